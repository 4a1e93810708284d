"""Definitions shared by several models; each cites where it comes from."""

from __future__ import annotations

from ..dsl import IW, F, I, M, W, base, co, fr, id_, loc, po, rf, rmw, same_event_attr, same_thread_attr, tag
from ..errors import UnsupportedFeature
from ..litmus import ast as AST

# The event tags hrf.program puts on templates, named once for every model.
RLX, SC, ACQ, REL, ACQ_REL = tag("rlx"), tag("sc"), tag("acq"), tag("rel"), tag("acq_rel")  # memory orders
S_WI, S_SG, S_WG, S_DEV, S_ALL = tag("wi"), tag("sg"), tag("wg"), tag("dev"), tag("all")  # scopes
G, L = tag("global"), tag("local")  # regions (fences: their flags)
FENCE, EF, XF = tag("fence"), tag("entry"), tag("exit")  # fences; barrier entry/exit fences
REMOTE = tag("remote")
NAL = tag("nonatomicloc")  # locations declared with a non-atomic type
COARSE = tag("alloc_coarse")  # coarse-grained allocations ([HRFR15] sec. 6.2)
FINE = tag("alloc_fine")  # fine-grained allocations without platform atomics ([HRFR15] sec. 6.2)

# Dat3M's dialects (Dartagnan's names): the same virtual location, accesses
# through the same name (an access through an alias, `y aliases x`, is
# `virtual`; initial writes have no name, only a location)
VIRTUAL = tag("virtual")
vloc = loc - (((VIRTUAL * M) | (M * VIRTUAL)) - same_event_attr("vloc"))
# barriers of the same instance: an OpenCL barrier's entry with the exits;
# a one-event barrier (Dat3M's PTX `bar`, Vulkan's `cbar`) with those of its
# work group (CTA) of the same number and barrier resource (`res`: the value
# a register holds on the event's path, for `bar.cta.sync 1, r2`) that wait
# (not `bar.arrive`), from those among the synchronising ones (all, but for
# barriers with a thread count: NOSYNC)
CBAR = tag("CBAR")
syncbar = (same_event_attr("bar") & (EF * XF)) | (
    same_event_attr("bar")
    & same_event_attr("res")
    & same_thread_attr("wg")
    & ((CBAR - tag("NOSYNC")) * (CBAR - tag("ARRIVE")))
)

# Dartagnan's same-scope (`sr`, its SameScope with no scope named): both
# events scoped, each thread inside the other's scope instance (PTX's
# morally strong pairs, [PTX19]'s "morally strong"). The level between
# work group and device (`qf`) is PTX's cluster (sm_90's `.cluster` scope)
S_QF = tag("qf")
SCOPED, QF_UP, DEV_UP = S_WG | S_QF | S_DEV | S_ALL, S_QF | S_DEV | S_ALL, S_DEV | S_ALL


def same_scope(same_wg=None):
    """`sr` with the pairs of one work group given (`same_wg`; by default
    the pairs of events whose threads share one): a model whose operations
    may be performed in another thread block than their thread's says which
    (ptx-8.0's asynchronous operations)."""
    if same_wg is None:
        same_wg = same_thread_attr("wg")
    return (
        ((SCOPED * SCOPED) & same_wg)
        | ((QF_UP * QF_UP) & same_thread_attr("qf"))
        | ((DEV_UP * DEV_UP) & same_thread_attr("dev"))
        | (S_ALL * S_ALL)
    )


sr = same_scope()


def sync_fence(model):
    """Dartagnan's `sync_fence`: the fence.sc pairs that synchronise, in a
    total order of the fence.sc events the core enumerates (a witness of
    the model), on the pairs each inside the other's scope ([PTX19]'s
    Fence-SC order)."""
    fences = F & SC
    return model.total_order("sync_fence", fences) & sr & (fences * fences)


# Thread events: everything but the init writes.
TE = ~IW
A = tag("A")  # atomic accesses
NA = tag("NA")  # ordinary (non-atomic) data accesses

# SC candidate executions: Lamport's SC as acyclicity of all communication
# with program order (herd's sc.cat; [HRF14] "sequentially consistent candidate").
sc_order = po | rf | co | fr

# Dependencies from a read: to what its value feeds (data), to what follows
# a branch on it (ctrl), to an access whose address it gives (addr).
addr, data, ctrl = base("addr"), base("data"), base("ctrl")
dep = data | ctrl | addr

# RMW atomicity: no write comes between the write a read-modify-write reads
# from and its own write (herd: `empty rmw & (fre; coe)`).
atomicity_violation = rmw & (fr >> co)

# Two accesses conflict: same location, at least one a write ([HRF14] sidebar
# "Conflict Definitions"); init writes take no part in races.
conflict = (I(TE) >> (loc & ((W * M) | (M * W))) >> I(TE)) - id_


def refuse(
    test: AST.Test,
    model: str,
    *,
    fences: bool = False,
    barriers: bool = False,
    remote: bool = False,
    consume: bool = False,
    orders_other_than_sc: bool = False,
    dialects: tuple[str, ...] | None = None,
) -> None:
    """Raise UnsupportedFeature, naming the thread and line, for the first
    operation of `test` outside the model's fragment (docs/readings.md);
    with `dialects`, for a test of another dialect (a PTX or Vulkan test's
    orders and scopes mean other things than C's)."""
    if dialects is not None and test.arch not in dialects:
        raise UnsupportedFeature(f"{model} reads {' and '.join(dialects)} tests; this is a {test.arch} test", test.path)
    for t in test.threads:
        for op in t.ops:
            orders: set[str] = {o for o in (getattr(op, "order", None), getattr(op, "fail_order", None)) if o}
            why = None
            if barriers and isinstance(op, AST.Barrier):
                why = "no execution barriers (barrier(...) makes threads wait for one another)"
            elif fences and isinstance(op, (AST.Fence, AST.Barrier)):
                why = "no fences or barriers"
            elif remote and getattr(op, "remote", False):
                why = "no remote scope promotion (that is the opencl-rsp model)"
            elif consume and "con" in orders:
                why = "no memory_order_consume"
            elif orders_other_than_sc and getattr(op, "atomic", True) and orders - {"sc"}:
                why = f"seq_cst atomics only, not {', '.join(sorted(orders - {'sc'}))}"
            if why is not None:
                raise UnsupportedFeature(f"{t.name}: {model} has {why}", test.path, getattr(op, "line", None))
