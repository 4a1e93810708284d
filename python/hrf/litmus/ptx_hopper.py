"""The PTX forms of sm_90 (Hopper) in hrf's PTX dialect (`dat3m_ptx.py`):
shared memory of a CTA and of a cluster, mbarriers, bulk copies through
the async proxy, proxy fences of the async proxy and cluster barriers,
read into the one AST with the tags the `ptx-8.0` model reads.

    init    := loc '@' 'shared' tid ('=' number)? ('offset' loc)?   x in the shared memory of tid's CTA
             | loc '@' 'mbarrier' tid ('=' count)? ('offset' loc)?  an mbarrier there (with count: initialised)
                 (offset y: at y's CTA-relative offset, in another CTA of y's cluster)
             | name '@' 'tensormap' loc '=' bytes        a tensor map whose one box is loc, of that many bytes
    cell    := mbarrier.init{.shared::cta}.b64 [b], count
             | mbarrier.arrive{.expect_tx}{.sem}{.scope}{.space}.b64 (_ | state), [b] (',' n)?
             | mbarrier.expect_tx.relaxed.scope.space.b64 [b], tx  |  mbarrier.complete_tx... [b], tx
             | mbarrier.(test_wait | try_wait).parity{.sem}{.scope}{.shared::cta}.b64 reg, [b], (0 | 1)
             | mbarrier.(test_wait | try_wait){.sem}{.scope}{.shared::cta}.b64 reg, [b], state
                 (try_wait: and a time hint, read and left aside)
             | cp.async.bulk.dst.src.mbarrier::complete_tx::bytes [dst], [src], n, [b]
                 (dst.src: shared::cluster.global, shared::cta.global, shared::cluster.shared::cta)
             | cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
                 [dst], [src], n, [b], mask     (mask: a 16-bit constant, a bit per CTA rank of the cluster)
             | cp.async.bulk.global.shared::cta.bulk_group [dst], [src], n
             | cp.async.bulk.tensor.Nd.dst.src{.tile}.mbarrier::complete_tx::bytes [dst], [tm, {0, ..}], [b]
             | cp.async.bulk.tensor.Nd.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes.multicast::cluster
                 [dst], [tm, {0, ..}], [b], mask
             | cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group [tm, {0, ..}], [src]
                 (tm: a tensor map of the initial state, `tm @ tensormap g = bytes`)
             | cp.async.bulk.commit_group  |  cp.async.bulk.wait_group{.read} N
             | st.async{.weak}{.shared::cluster}.mbarrier::complete_tx::bytes.type [a], v, [b]
             | red.async.relaxed.cluster{.shared::cluster}{.mbarrier::complete_tx::bytes}.op.type [a], v, [b]
             | cp.reduce.async.bulk.dst.src.completion.op.type [dst], [src], n{, [b]}
                 (shared::cluster.shared::cta.mbarrier::complete_tx::bytes, global.shared::cta.bulk_group;
                  op: add, min, max, inc, dec, and, or, xor; integer types)
             | cp.reduce.async.bulk.tensor.Nd.global.shared::cta.op{.tile}.bulk_group [tm, {0, ..}], [src]
                 (op: add, inc, dec, and, or, xor)
                 (each copy and reduction: with .L2::cache_hint, and then `, policy` after its
                  operands, a register or an integer: a hint, no event)
             | cp.async.(ca | cg).shared{::cta}.global [dst], [src], n            (sm_80)
             | cp.async.commit_group  |  cp.async.wait_group N  |  cp.async.wait_all
             | cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [b]
             | fence.proxy.async{.global | .shared::cta | .shared::cluster}
             | fence.mbarrier_init.release.cluster
             | barrier.cluster.arrive{.release | .relaxed}{.aligned}
             | barrier.cluster.wait{.acquire}{.aligned}
             | wgmma.fence.sync.aligned  |  wgmma.commit_group.sync.aligned  |  wgmma.wait_group.sync.aligned N
             | wgmma.mma_async.sync.aligned.m64nNk32{.satfinite}.s32.atype.btype {d}, ([sa] | {a}), [sb], scale-d
                 (atype, btype: .s8 or .u8; [sa], [sb]: the matrices' descriptors, each the one
                  element's location in the CTA's shared memory; scale-d: 0, 1 or a register)

An mbarrier is a location whose value is its state: the phases it has
completed times PHASE, plus the current phase's pending arrivals times
ARRIVAL, plus its pending transaction count (ARRIVAL exceeds any
transaction count the ISA allows, 2^20 - 1, and PHASE any pending
arrivals, so the current phase is complete exactly when the value is a
multiple of PHASE). `mbarrier.init` is a weak write of the count (phase
0); an arrive is an atomic update (by default .release at .cta scope, the
ISA's default) that adds minus ARRIVAL, with `.expect_tx` the
transaction count too; `expect_tx`/`complete_tx` are relaxed updates of
the count alone. An update that completes the phase begins the next in
the same step ("Phase Completion": the pending arrivals reset to the
count, the transaction count to 0): its value function (`phase_update`)
adds PHASE and the count's arrivals where the sum is a multiple of
PHASE. An arrive that returns its state returns the value it read (the
state's phase is the arrive's). A wait (`test_wait`, `try_wait`: either
may return false) is a relaxed read at its scope whose register is 1
when the phase it names is complete: for a parity, when the current
phase's parity is the other ("the integer parity of either the current
phase or the immediately preceding phase"); for a state, when the
current phase is later than the state's (`wait_done`); where it is, and
where the wait is `.acquire` (the
default), an acquire event of its scope follows, on that path alone (a
fence event tagged MBWAIT, which `ptx-8.0` reads as the wait's acquire on
its mbarrier, not as a fence): the ISA's acquire pattern of a wait that
observes the phase's completion. The count an update restarts a phase
with is the object's one count (`with_phases`, once the test is read): an
mbarrier initialised with two counts is refused by name. Markers, events
of no memory effect that `ptx-8.0`'s flags read, say on their paths that
an update completed its phase (MBDONE), that a relaxed wait returned true
(MBSEEN; an acquire wait's acquire carries the tag) and that a wait's
state was from before the preceding phase (MBSTALE); `hrf run` leaves
them out (`as_written`).

A bulk copy is a weak read of the source and a weak write of the
destination through the async proxy (`ASYNC`), then the implicit proxy
fence that follows its completion, then its complete-tx on the mbarrier:
an add of minus its byte count, a release at .cluster scope (the ISA:
"the complete-tx operation on the mbarrier has .release semantics at the
.cluster scope"), all four tagged BULK. hrf places these events where the
instruction is in its thread's program order; `ptx-8.0` orders them after
what the thread did before the copy and not before what it does after
(the copy is asynchronous: docs/readings.md). A copy to global memory
(`.bulk_group`, the "TMA store" of real kernels) has no complete-tx: its
read, write and proxy fence are tagged BGROUP too, and a bulk
async-group's commit and wait are marker events (BCOMMIT; BWAITn for
`wait_group n`, BWAITRn for `wait_group.read n`), counted by `ptx-8.0`
as sm_80's cp.async-groups are. A bulk reduction (`cp.reduce.async.bulk`)
is a copy whose write is an atomic reduction of the destination by the
source's value, relaxed at .gpu scope ("Each reduction operation
performed by the cp.reduce.async.bulk has individually .relaxed.gpu
memory ordering semantics"), an operation of no read (RED), as `red` is.
`st.async` and `red.async` (STASYNC) are a weak store, or a reduction
relaxed at .cluster scope, of a cluster's shared memory through the
generic proxy, then the complete-tx of their bytes on an mbarrier of the
same CTA: asynchronous as a bulk copy, with no proxy fence.

A multicast copy (`.multicast::cluster`) "is multicast to the same
CTA-relative offset as dstMem in the shared memory of each destination CTA"
and so is its complete-tx, on the mbarrier at mbar's offset: a location
declared `offset` another (`d1 @ shared P2 offset d0`) lies at that one's
offset in its own CTA, and the copy reads as one bulk copy per CTA of its
mask (in rank order), each to that CTA's location at dstMem's offset,
completing on its mbarrier at mbar's offset (each reads the source: a
write of the source while any is in flight is the flagged undefined
behaviour anyway). Its events carry MULTICAST beside the copy's tags.

A tensor copy (`cp.async.bulk.tensor`, the "TMA" of real kernels) is
read as the bulk copy of its box: a tensor map of the initial state
(`tm @ tensormap g = 16`) stands for the opaque object the host builds,
whose one box is the global location g, of that many bytes (the
complete-tx's count); the copy's coordinates must be 0 in each of its
dimensions (any other names a box hrf's tensor map does not hold). The
ISA reads the tensor map through the tensormap proxy; the test never
writes it (the host built it), so that read is no event. Its events carry
TENSOR beside the bulk copy's tags.

sm_80's `cp.async` is a weak read of the source and a weak write of the
destination through the generic proxy (CPREAD, CPWRITE). A commit and a
wait are marker events (CPCOMMIT, CPWAITn for `wait_group n`; `wait_all`
is a commit then `wait_group 0`, as the ISA defines it): `ptx-8.0` counts
the commits between a copy and a wait to know whether the wait completes
it. `cp.async.mbarrier.arrive` is, without `.noinc`, a relaxed increment
of the pending count at the instruction (CPINC), then the asynchronous
arrive-on (CPARRIVE), an arrive that `ptx-8.0` orders after the thread's
earlier copies alone.

`wgmma.mma_async` (the warpgroup's asynchronous matrix multiply of every
Hopper GEMM; a thread of the test stands for its warpgroup, which executes
it alike) multiplies matrices of one element each here: its events are a
weak read of each matrix in shared memory through the async proxy (A's
where a descriptor names it, B's), then the implicit generic-async proxy
fence that follows its completion ("Async Proxy"), tagged WGOP; its
accumulator d takes A x B, plus d where scale-d is not 0 (`D = A*B+D`).
Its integer forms alone are read (hrf's values are integers). A
descriptor, a 64-bit value encoding a matrix's address and layout, is
written as that one element's location (`[sa]`). `wgmma.fence`, a commit
and a wait are marker events (WFENCE, WCOMMIT, WWAITn), counted by
`ptx-8.0` as the other async-groups are. Before each instruction that
reads or writes a register a wgmma of its thread accesses (its
accumulator, its A in registers), and at the thread's end for such a
register the final state observes, a marker (WREGUSE) carries that
register's tag (WREGk), as the wgmma's events do: `ptx-8.0` flags an
access that no wait completing the wgmma precedes, and a wgmma that no
`wgmma.fence` follows such an access to (or that none precedes at all).
"""

from __future__ import annotations

import itertools
import re

from . import ast as A
from .dat3m import Dat3mReader
from .reader import END
from .toolkit import ParseFailure, Unsupported

# One pending arrival in an mbarrier's value; above the ISA's largest
# transaction count (2^20 - 1), so that value 0 is "no arrival and no byte pending"
ARRIVAL = 1 << 20
MAX_TX = ARRIVAL - 1
# One completed phase: above any pending arrivals (at most 2^20 - 1) times ARRIVAL, so that the
# current phase's state is the value's low bits, its number the high ones; HALF below it reads a
# state whose transaction count went below 0 (a complete_tx before its expect_tx) in its phase
PHASE = 1 << 42
HALF = PHASE >> 1
OLD_STATE = "phase."  # the registers of updates' old values (no register of a test: a name with a dot)
SCOPES = {"cta": "wg", "cluster": "qf"}  # an mbarrier operation's scopes (the ISA's)
SHARED = {"shared": "cta", "shared::cta": "cta", "shared::cluster": "cluster"}
# the tags of an mbarrier operation's events: the generic proxy, the object's kind
MBAR_TAGS = ("GEN", "MBAR")
# the forms' event tags, each with what it names (the models before ptx-8.0 and `hrf run` refuse them)
HOPPER = {
    "ASYNC": "the async proxy",
    "CLBAR": "cluster barriers",
    "MBAR": "mbarriers",
    "CPASYNC": "cp.async, sm_80's asynchronous copies",
    "ONEWAY": "fence.release and fence.acquire",
    "BGROUP": "bulk async-groups (cp.async.bulk's .bulk_group completion)",
    "BULKCTA": "cp.async.bulk.shared::cta.global, the bulk copy into the CTA's own shared memory",
    "BULKS2S": "cp.async.bulk.shared::cluster.shared::cta, the bulk copy between CTAs' shared memories",
    "BREDUCE": "cp.reduce.async.bulk, bulk reductions",
    "TENSOR": "cp.async.bulk.tensor, tensor copies through a tensor map the host builds",
    "STASYNC": "st.async and red.async, asynchronous stores and reductions to a cluster's shared memory",
    "WGMMA": "wgmma, the warpgroup's asynchronous matrix multiply-and-accumulate",
    "MULTICAST": "cp.async.bulk's .multicast::cluster, copies into several CTAs of a cluster",
}
# where a form comes from, for the older models' refusals (SM90 where none is said)
SM90 = "PTX ISA 8.0's, sm_90"
ORIGIN = {
    "CPASYNC": "PTX ISA 7.0",
    "ONEWAY": "PTX ISA 8.6, sm_90",
    "BULKCTA": "PTX ISA 8.6, sm_90",
    "STASYNC": "PTX ISA 8.1, sm_90",
    "WGMMA": "PTX ISA 8.0's, sm_90a",
}
# "cache-policy is a hint to the cache subsystem ... and does not change the memory consistency
# behavior of the program": read (its 64-bit operand too), no event
PREFETCH_SIZES = ("L2::64B", "L2::128B", "L2::256B")  # a cp.async's prefetch sizes: hints
CACHE_HINT = "L2::cache_hint"
MULTICAST = "multicast::cluster"  # cp.async.bulk{.tensor}'s copy into several CTAs' shared memories
WAIT_GROUPS = 8  # cp.async.wait_group N for N below this (a tag CPWAITn each)
# cp.async.bulk's directions hrf reads (the ISA's .dst, .src, completion mechanism), each
# with the tag its events carry beside BULK (the copy into the executing CTA's own memory is
# PTX ISA 8.6's; the others 8.0's)
BULK_FORMS = {
    ("shared::cluster", "global", "mbarrier::complete_tx::bytes"): (),
    ("shared::cta", "global", "mbarrier::complete_tx::bytes"): ("BULKCTA",),
    ("shared::cluster", "shared::cta", "mbarrier::complete_tx::bytes"): ("BULKS2S",),
    ("global", "shared::cta", "bulk_group"): ("BGROUP",),
}
# cp.async.bulk.tensor's directions hrf reads (tile mode, the default): the bulk copy's but
# between shared memories (PTX ISA 8.0's, and 8.6's into the executing CTA's own), with its tags
# beside BULK and TENSOR
TENSOR_FORMS = {form: tags for form, tags in BULK_FORMS.items() if form[1] == "global" or form[0] == "global"}
TENSOR_DIMS = ("1d", "2d", "3d", "4d", "5d")
# cp.reduce.async.bulk's directions and, for each, its integer operations with their types (the ISA's
# table; hrf's values are integers: its floating-point types are refused by name)
# the reductions of a cluster's shared memory (cp.reduce.async.bulk's and red.async's, with an mbarrier)
SHARED_REDUCTIONS = {
    "add": ("u32", "s32", "u64"),
    "min": ("u32", "s32"),
    "max": ("u32", "s32"),
    "inc": ("u32",),
    "dec": ("u32",),
    "and": ("b32",),
    "or": ("b32",),
    "xor": ("b32",),
}
REDUCE_FORMS = {
    ("shared::cluster", "shared::cta", "mbarrier::complete_tx::bytes"): SHARED_REDUCTIONS,
    ("global", "shared::cta", "bulk_group"): {
        "add": ("u32", "s32", "u64"),
        "min": ("u32", "s32", "u64", "s64"),
        "max": ("u32", "s32", "u64", "s64"),
        "inc": ("u32",),
        "dec": ("u32",),
        "and": ("b32", "b64"),
        "or": ("b32", "b64"),
        "xor": ("b32", "b64"),
    },
}
FLOATS = ("f16", "bf16", "f32", "f64")
# red.async's operations with their types (the ISA's, with an mbarrier), and st.async's integer types
RED_ASYNC = SHARED_REDUCTIONS
ST_ASYNC = ("b32", "u32", "s32", "b64", "u64", "s64")
# wgmma.mma_async's integer shapes (the ISA's m64nNk32 for .s32.atype.btype) and its types
WGMMA_N = (8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224)
WGMMA_INT = ("s8", "u8")
# its other type forms, refused by name (hrf's values are integers)
WGMMA_OTHER = ("f16", "bf16", "tf32", "e4m3", "e5m2", "f32", "b1")
WGMMA_REGS = 8  # the registers a thread's wgmmas access, each a tag WREGk (one flag relation each)
WGMMA_VALUE = "wgmma."  # the registers of a wgmma's reads (no register of a test: a name with a dot)


def mbarrier_add(b: str, delta: int, sem: str, scope: str, tags: tuple, line: int) -> A.ExprStmt:
    """An update of mbarrier `b`: an atomic add of `delta` to its one word
    (pending arrivals x ARRIVAL + tx-count), its write of order `sem`; the
    phase it may complete is `with_phases`'s, once the count is known."""
    rmw = A.Rmw("add", b, A.Const(delta, line=line), sem, scope, line=line, tags=tags, orders=("rlx", sem))
    return A.ExprStmt(rmw, line=line)


def phase_update(delta: int, count: int, line: int = 0):
    """What an update adding `delta` writes to an mbarrier of `count`: the
    sum, and where that completes the phase (a multiple of PHASE: nothing
    pending) the next phase begun, its arrivals the count ("Phase
    Completion"): old + delta + (((old + delta) & (PHASE - 1)) == 0) x (PHASE + count x ARRIVAL)."""

    def c(v: int) -> A.Const:
        return A.Const(v, line=line)

    total = A.BinOp("+", A.Old(line=line), c(delta), line=line)
    return A.BinOp("+", total, A.BinOp("*", completes(total, line), c(PHASE + count * ARRIVAL), line=line), line=line)


def completes(total, line: int = 0) -> A.BinOp:
    """Whether `total`, an update's sum, completes the phase: a multiple of PHASE, nothing pending."""
    low = A.BinOp("&", total, A.Const(PHASE - 1, line=line), line=line)
    return A.BinOp("==", low, A.Const(0, line=line), line=line)


def state_text(value: int) -> str:
    """An mbarrier's state, its value in this encoding, as the ISA names it
    (execution graphs, flagged events): `phase 1: 2 pending, tx-count 16`.
    (A tx-count is read as the nearer to 0 of the two a value may hold; 0 is
    no state a phase leaves, the initial value of an uninitialised object.)"""
    if value == 0:
        return "uninitialised"
    phase = (value + HALF) // PHASE
    rest = value - phase * PHASE
    pending = (rest + ARRIVAL // 2) // ARRIVAL
    tx = rest - pending * ARRIVAL
    return f"phase {phase}: {pending} pending" + (f", tx-count {tx}" if tx else "")


def mbarriers(test: A.Test) -> dict:
    """The test's mbarriers, each with its count where the init block
    initialises it (None where a thread's mbarrier.init does)."""
    return {
        i.loc: (i.value // ARRIVAL if i.space == "mbarrier" and isinstance(i.value, int) else None)
        for i in test.init
        if (i.space or "").startswith("mbarrier")
    }


def phase_of(state, line: int = 0, later: int = 0):
    """The phase of an mbarrier's state (`later` phases on), times PHASE: its high
    bits, HALF added so that a transaction count below 0 does not borrow from them."""
    c = A.Const
    high = A.BinOp("&", A.BinOp("+", state, c(HALF, line=line), line=line), c(-PHASE, line=line), line=line)
    return A.BinOp("+", high, c(later * PHASE, line=line), line=line) if later else high


def wait_done(read: A.Load, phase: int | str, line: int = 0):
    """A wait's register: 1 when the phase it names is complete. A parity
    names the current phase or the one before: complete when the current
    phase's parity is the other. A state (the register an arrive returned it
    in) names the arrive's phase: complete when the current one is later."""
    if isinstance(phase, str):
        return A.BinOp(">", phase_of(read, line), phase_of(A.Reg(phase, line=line), line), line=line)
    current = A.BinOp(
        "&", A.BinOp("+", read, A.Const(HALF, line=line), line=line), A.Const(PHASE, line=line), line=line
    )
    return A.BinOp("!=", current, A.Const(phase * PHASE, line=line), line=line)


def wait_read(s) -> tuple[A.Load, int | str] | None:
    """The read of a wait and the phase it names, its parity or its state's
    register (`r = wait_done(ld b, phase)`), if `s` is one: the one decoding
    of `wait_done`'s encoding."""
    e = s.expr if isinstance(s, A.Assign) else None
    if not (isinstance(e, A.BinOp) and e.op in ("!=", ">")):
        return None
    read = next((x for x in A.walk_expr(e.left) if isinstance(x, A.Load)), None)
    if read is None or "MBWAIT" not in read.tags:
        return None
    if isinstance(e.right, A.Const):
        return read, e.right.value // PHASE
    return read, next(x.name for x in A.walk_expr(e.right) if isinstance(x, A.Reg))


def phase_marker(tag: str, line: int) -> A.Fence:
    """An event with no memory effect that says, on its path, that an update
    completed its mbarrier's phase (MBDONE), that a relaxed wait saw its
    phase complete (MBSEEN; an acquire wait's acquire carries the tag) or
    that a wait's state was from before the preceding phase (MBSTALE)."""
    return A.Fence((), "mbarrier", None, line=line, tags=(tag,))


def is_phase_marker(s) -> bool:
    """Is `s` the reader's `If` around a phase marker alone (`with_phases`, a wait's)?"""
    return isinstance(s, A.If) and all(isinstance(x, A.Fence) and x.order == "mbarrier" for x in s.then)


def as_written(stmts) -> list:
    """Statements as their instructions were written: `with_phases`'s
    markers left out, and the registers that keep updates' old values."""
    out = []
    for s in stmts:
        if is_phase_marker(s):
            continue
        if isinstance(s, A.Assign) and s.reg.startswith(OLD_STATE) and isinstance(s.expr, A.Rmw):
            s = A.ExprStmt(s.expr, line=s.line)
        out.append(s)
    return out


def with_phases(body: tuple, counts: dict, names=None) -> tuple:
    """`body` with each update of an mbarrier of one count (`counts`) given
    its value function (`phase_update`), its old value in a register of its
    own (`names`: a counter) and, on the path where it completed the phase,
    the MBDONE marker after it."""
    names = itertools.count() if names is None else names
    out: list = []
    for s in body:
        e = s.expr if isinstance(s, (A.ExprStmt, A.Assign)) else None
        if isinstance(e, A.Rmw) and "MBAR" in e.tags and counts.get(e.loc) and isinstance(e.operand, A.Const):
            # (an arrive that returns its state keeps the old value in the test's register)
            old = s.reg if isinstance(s, A.Assign) else f"{OLD_STATE}{next(names)}"
            line, delta = e.line, e.operand.value
            update = A.with_fields(e, update=phase_update(delta, counts[e.loc], line))
            total = A.BinOp("+", A.Reg(old, line=line), A.Const(delta, line=line), line=line)
            marker = A.If(completes(total, line), (phase_marker("MBDONE", line),), line=line)
            out += [A.Assign(old, update, line=line), marker]
            continue
        out.append(A.with_nested(s, lambda b: with_phases(b, counts, names)))
    return tuple(out)


def register_use(regs: dict, names, line: int) -> tuple:
    """The markers (WREGUSE, WREGk) of an access to those of `names` a wgmma of the thread accesses."""
    ks = sorted({regs[n] for n in names if n in regs})
    return tuple(A.Fence((), "wgmma", None, line=line, tags=("WGMMA", "WREGUSE", f"WREG{k}")) for k in ks)


def is_wgmma_part(s) -> bool:
    """Is `s` one of a wgmma's own statements (a read into its held register, its accumulator's update)?"""
    if not isinstance(s, A.Assign):
        return False
    if s.reg.startswith(WGMMA_VALUE):
        return True
    return s.expr is not None and any(
        isinstance(x, A.Reg) and x.name.startswith(WGMMA_VALUE) for x in A.walk_expr(s.expr)
    )


def with_register_uses(body: tuple, regs: dict) -> tuple:
    """`body` with, before each statement that reads or writes a register of
    `regs` (those its thread's wgmmas access, each with its k) other than a
    wgmma's own, the markers of that access (`register_use`)."""
    out: list = []
    for s in body:
        if isinstance(s, A.Fence) and "WGOP" in s.tags or is_wgmma_part(s):
            out.append(s)
            continue
        names = A.regs_read(s)
        if isinstance(s, A.Assign):
            names.append(s.reg)
        out += register_use(regs, names, s.line)
        s = A.with_nested(s, lambda b: with_register_uses(b, regs))
        if isinstance(s, A.While):  # its condition is read again after each pass of its body
            s = A.with_fields(s, body=s.body + register_use(regs, names, s.line))
        out.append(s)
    return tuple(out)


def with_expanded(body: tuple, expanded: dict) -> tuple:
    """`body` with each placeholder label of `expanded` replaced by its statements."""
    out: list = []
    for s in body:
        if isinstance(s, A.Label) and s.name in expanded:
            out += expanded[s.name]
            continue
        out.append(A.with_nested(s, lambda b: with_expanded(b, expanded)))
    return tuple(out)


def wait_group(tags, prefix: str = "CPWAIT") -> int | None:
    """The N of a `cp.async.wait_group N` marker's tags (CPWAITn), or of
    another wait's (`prefix` BWAIT, BWAITR: cp.async.bulk.wait_group{.read}), or None."""
    return next((int(x[len(prefix) :]) for x in tags if x.startswith(prefix) and x[len(prefix) :].isdigit()), None)


def copy_size(tags) -> int:
    """A cp.async read's cp-size, from its tags (CPSIZEn)."""
    return next(int(x[len("CPSIZE") :]) for x in tags if x.startswith("CPSIZE"))


def first_sm90_form(test: A.Test) -> tuple[A.Thread, object, str] | None:
    """The first operation of an sm_90 form in `test` (its thread, the
    operation, what the form is and where it comes from), or None: what the
    models before ptx-8.0, and Dat3M's cat files, which predate sm_90, do not read."""
    for th in test.threads:
        for op in th.ops:
            tag = next((k for k in HOPPER if k in getattr(op, "tags", ())), None)
            if tag is not None:
                return th, op, f"{HOPPER[tag]} ({ORIGIN.get(tag, SM90)})"
    return None


class HopperForms(Dat3mReader):
    """The sm_90 forms, which the PTX reader (`dat3m_ptx.PtxReader`) reads
    beside the older ones; what they need of the whole test is checked
    once it is read (`check_hopper`)."""

    def __init__(self, src: str):
        super().__init__(src)
        self.spaces: list = []  # (thread index, location, state space named, token)
        self.copies = 0
        self.cluster_barriers: list = []  # (thread index, arrive or wait, token)
        self.remote_copies: list = []  # shared::cta to shared::cluster copies: (thread index, destination, token)
        self.async_stores: list = []  # st.async, red.async: (thread index, destination, mbarrier, red?, token)
        self.states: list = []  # registers arrives return their states in: (thread index, register, token)
        self.tensormaps: dict = {}  # tensor map -> (its box's location, bytes, token)
        self.offsets: dict = {}  # a shared location -> the one whose CTA-relative offset it lies at
        self.owners: dict = {}  # a shared location -> the thread whose CTA holds it
        self.mapped: dict = {}  # (thread index, register) -> (the location mapa gave its address, token)
        self.thread_heads: list = []  # (scope fields, line) per thread
        self.multicasts: list = []  # (thread index, form, dst, src, size, mbarrier, mask, tags, token, line)
        self.wgmma_regs: dict = {}  # (thread index, register a wgmma accesses) -> k, its tag WREGk
        self.wgmmas = 0

    # ------------------------------------------------------------ the init block
    def init_at(self, t, loc: str, inits: list) -> None:
        w = self.peek()
        if w[0] == "name" and w[1] == "tensormap":
            # a tensor map is no location: the copies that name it read its box (`tensor_operand`)
            self.i += 1
            box = self.peek()
            if box[0] != "name" or box[1].startswith("P"):
                self.fail("the location of the tensor map's box in global memory (tm @ tensormap g = bytes)")
            self.i += 1
            self.expect("=", "'=' and the bytes of the tensor map's box (tm @ tensormap g = 16)")
            size = self.signed()
            if not 0 < size <= MAX_TX or size % 16:
                self.defer(
                    ParseFailure(f"a box's bytes, a multiple of 16 up to {MAX_TX} (the ISA), not {size}", t[2], t[3])
                )
            if loc in self.tensormaps:
                self.defer(ParseFailure(f"the tensor map {loc} is declared twice", t[2], t[3]))
            self.tensormaps[loc] = (box[1], size, t)
            return
        if w[0] == "name" and w[1] in ("shared", "mbarrier"):
            self.i += 1
            owner = self.peek()
            if owner[0] != "name" or not owner[1].startswith("P") or not owner[1][1:].isdigit():
                self.fail("a thread (P0, P1, ...): the location lies in the shared memory of its CTA")
            self.i += 1
            count = None
            if self.accept("="):
                count = self.signed()
            if self.at_word("offset"):
                self.i += 1
                at = self.peek()
                if at[0] != "name" or at[1] not in {i.loc for i in inits if (i.space or "").startswith(w[1])}:
                    self.fail(
                        f"a location declared before it in {w[1]} memory (x @ {w[1]} P0 ...; y @ {w[1]} P1 offset x)"
                    )
                self.i += 1
                self.offsets[loc] = (at[1], at)
            self.owners[loc] = owner[1]
            if w[1] == "shared":
                inits.append(A.Init(loc, count or 0, line=t[2], space="shared", owner=owner[1]))
                return
            if count is None:
                inits.append(A.Init(loc, 0, line=t[2], space="mbarrier-uninit", owner=owner[1]))
                return
            if not 1 <= count < ARRIVAL:
                self.defer(
                    ParseFailure(f"an mbarrier's count is 1 to {ARRIVAL - 1} (the ISA), not {count}", t[2], t[3])
                )
            inits.append(A.Init(loc, count * ARRIVAL, line=t[2], space="mbarrier", owner=owner[1]))
            return
        super().init_at(t, loc, inits)

    # ------------------------------------------------------------ mbarriers
    def address(self) -> str:
        """`[b]`: the ISA's address operand."""
        self.expect("[", "'[' (an address, [b])")
        name = self.loc()
        self.expect("]", "']'")
        return name

    def mbarrier_quals(self, ms: list, what: str, allowed: tuple, default_sem: str | None) -> dict:
        """The qualifiers of an mbarrier instruction: {kind: (word, token)}, sem and scope defaulted."""
        kinds = {
            "release": "sem",
            "acquire": "sem",
            "relaxed": "sem",
            "cta": "scope",
            "cluster": "scope",
            "shared": "space",
            "shared::cta": "space",
            "shared::cluster": "space",
            "b64": "type",
            "parity": "parity",
            "expect_tx": "expect_tx",
            "noComplete": "noComplete",
        }
        out: dict = {}
        for word, tok in ms:
            kind = kinds.get(word)
            if kind is None or word not in allowed:
                self.fail_at(tok, f"a qualifier of {what} ({', '.join('.' + a for a in allowed)}); not .{word}")
            if kind in out:
                self.fail_at(tok, f"one {kind} ({what}.{out[kind][0]} already)")
            out[kind] = (word, tok)
        if default_sem is not None:
            out.setdefault("sem", (default_sem, None))
        out.setdefault("scope", ("cta", None))  # the ISA: .cta where no scope is named
        return out

    def mbarrier(self, ms: list, t, line: int):
        words = [m for m, _ in ms]
        kind = words[0] if words else ""
        if kind == "init":
            q = self.mbarrier_quals(ms[1:], "mbarrier.init", ("shared", "shared::cta", "b64"), None)
            b = self.address()
            self.comma()
            count = self.value()
            if not isinstance(count, A.Const) or not 1 <= count.value < ARRIVAL:
                self.fail_at(t, f"a count from 1 to {ARRIVAL - 1} (the ISA)")
            self.note_space(b, q, t)
            # a weak write of the count: the object's state at the start of its first phase
            return A.Store(b, A.Const(count.value * ARRIVAL, line=line), line=line, tags=(*MBAR_TAGS, "MBINIT"))
        if kind in ("arrive", "expect_tx", "complete_tx"):
            return self.mbarrier_update(kind, ms[1:], t, line)
        if kind in ("test_wait", "try_wait"):
            return self.mbarrier_wait(kind, ms[1:], t, line)
        if kind in ("arrive_drop", "inval", "pending_count"):
            # arrive_drop changes the count of later phases; hrf's phases restart with the object's count
            self.unsupported(f"mbarrier.{kind} is not modelled (an mbarrier's count is its init's)", t)
            return self.skip_operands(line)
        self.fail_at(t, "mbarrier.init, .arrive, .expect_tx, .complete_tx, .test_wait or .try_wait")

    def mbarrier_update(self, kind: str, ms: list, t, line: int):
        """An arrive (with `.expect_tx`: and an expectation of bytes), or a
        relaxed expect_tx / complete_tx: an atomic add on the object."""
        what = f"mbarrier.{kind}"
        allowed: tuple = ("relaxed", "cta", "cluster", "shared", "shared::cta", "shared::cluster", "b64")
        if kind == "arrive":
            allowed += ("release", "expect_tx", "noComplete")
        q = self.mbarrier_quals(ms, what, allowed, "release" if kind == "arrive" else None)
        if kind != "arrive" and "sem" not in q:
            self.fail_at(t, f"{what}.relaxed (the ISA: .relaxed is required)")
        # the ISA: mbarrier.arrive.noComplete{.release.cta}{.shared{::cta}}.b64 state, [addr], count
        no_complete = "noComplete" in q
        if no_complete and (
            "expect_tx" in q
            or q["sem"][0] != "release"
            or q["scope"][0] != "cta"
            or q.get("space", ("",))[0] == "shared::cluster"
        ):
            self.fail_at(
                q["noComplete"][1], "mbarrier.arrive.noComplete{.release.cta}{.shared{::cta}}.b64 (the ISA's form)"
            )
        state = None  # the register an arrive returns its state in (`_`: none)
        if kind == "arrive":
            sink = self.peek()
            if sink[0] == "name" and sink[1] == "_":
                self.i += 1
            else:
                state = self.reg()
                if q.get("space", ("",))[0] == "shared::cluster":
                    self.fail_at(sink, "'_': an arrive on .shared::cluster returns no state (the ISA)")
                self.states.append((self.col, state, sink))
            self.comma()
        b = self.address()
        n = None
        if kind != "arrive" or "expect_tx" in q or no_complete or self.peek()[0] == ",":
            self.comma()
            n = self.value()
            if not isinstance(n, A.Const) or not 0 < n.value <= MAX_TX:
                self.fail_at(t, f"a count from 1 to {MAX_TX} (the ISA's range)")
        self.note_space(b, q, t)
        if kind == "arrive" and "expect_tx" in q:
            delta = n.value - ARRIVAL  # type: ignore[union-attr]
        elif kind == "arrive":
            delta = -(n.value if n is not None else 1) * ARRIVAL  # type: ignore[union-attr]
        else:
            delta = n.value if kind == "expect_tx" else -n.value  # type: ignore[union-attr]
        sem = {"release": "rel", "relaxed": "rlx"}[q["sem"][0]]
        tags: tuple = (*MBAR_TAGS, "ARRIVE") if kind == "arrive" else MBAR_TAGS
        if no_complete:  # it must not complete the phase (the ISA: undefined otherwise): ptx-8.0 flags it
            tags += ("NOCOMPLETE",)
        update = mbarrier_add(b, delta, sem, SCOPES[q["scope"][0]], tags, line)
        # the state returned: the object's before the arrive, whose phase is the arrive's
        return update if state is None else A.Assign(state, update.expr, line=line)

    def mbarrier_wait(self, kind: str, ms: list, t, line: int):
        what = f"mbarrier.{kind}"
        q = self.mbarrier_quals(
            ms, what, ("parity", "acquire", "relaxed", "cta", "cluster", "shared", "shared::cta", "b64"), "acquire"
        )
        dst = self.reg()
        self.comma()
        b = self.address()
        self.comma()
        if "parity" in q:
            parity = self.value()
            if not isinstance(parity, A.Const) or parity.value not in (0, 1):
                self.fail_at(t, "a parity, 0 or 1 (an integer constant)")
            phase: int | str = parity.value  # type: ignore[union-attr]
        else:  # the state an earlier arrive on the object returned
            phase = self.reg()
        if kind == "try_wait" and self.accept(","):
            # suspendTimeHint: how long the thread may be suspended, a hint; the wait may return false either way
            hint = self.value()
            if not isinstance(hint, (A.Const, A.Reg)):
                self.fail_at(t, "a time limit in nanoseconds (a 32-bit integer or a register)")
        self.note_space(b, q, t)
        scope = SCOPES[q["scope"][0]]
        # TRYWAIT: the form as written, which `hrf run` runs (the two mean the same here)
        tags = (*MBAR_TAGS, "MBWAIT") + (("TRYWAIT",) if kind == "try_wait" else ())
        read = A.Load(b, True, "rlx", scope, line=line, tags=tags)
        done = A.Assign(dst, wait_done(read, phase, line), line=line)
        returned_true = A.BinOp("!=", A.Reg(dst, line=line), A.Const(0, line=line), line=line)
        out: tuple = (done,)
        if isinstance(phase, str):
            # "valid only for the current incomplete phase ... the immediately preceding phase": a
            # state from an earlier phase still is the wait's undefined use (MBSTALE, flagged)
            stale = A.BinOp(">", phase_of(read, line), phase_of(A.Reg(phase, line=line), line, later=1), line=line)
            out += (A.If(stale, (phase_marker("MBSTALE", line),), line=line),)
        if q["sem"][0] == "relaxed":
            return (*out, A.If(returned_true, (phase_marker("MBSEEN", line),), line=line))
        # the acquire pattern of a wait that observes the phase's completion: on that path alone
        acquire = A.Fence((), "acq", scope, line=line, tags=(*MBAR_TAGS, "MBWAIT", "MBSEEN"))
        return (*out, A.If(returned_true, (acquire,), line=line))

    # ------------------------------------------------------------ copies
    def copy(self, ms: list, t, line: int):
        """`cp.async...`: sm_90's bulk copy, or sm_80's cp.async and its completion."""
        words = [m for m, _ in ms]
        if words[:2] in (["async", "ca"], ["async", "cg"]):
            return self.async_copy(words, t, line)
        if words == ["async", "commit_group"]:
            return self.async_marker("CPCOMMIT", line)
        if words == ["async", "wait_all"]:  # the ISA: cp.async.commit_group; cp.async.wait_group 0
            return (self.async_marker("CPCOMMIT", line), self.async_marker("CPWAIT0", line))
        if words == ["async", "wait_group"]:
            n = self.group_count("cp.async.wait_group", t)
            return A.Label(f"$unread{line}", line=line) if n is None else self.async_marker(f"CPWAIT{n}", line)
        if words[:3] == ["async", "mbarrier", "arrive"]:
            return self.async_copy_arrive(words[3:], t, line)
        if words == ["async", "bulk", "commit_group"]:
            return self.async_marker("BCOMMIT", line, "BGROUP")
        if words[:3] == ["async", "bulk", "wait_group"]:
            return self.bulk_wait(words[3:], t, line)
        if words[:4] == ["reduce", "async", "bulk", "tensor"]:
            return self.bulk_reduce_tensor(words, t, line)
        if words[:3] == ["reduce", "async", "bulk"]:
            return self.bulk_reduce(words, t, line)
        if words[:3] == ["async", "bulk", "prefetch"]:
            return self.bulk_prefetch(words, t, line)
        if words[:3] == ["async", "bulk", "tensor"]:
            return self.bulk_tensor(words, t, line)
        return self.bulk_copy(ms, t, line)

    def bulk_prefetch(self, words: list, t, line: int):
        """`cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [src], size{, policy}`: a cache hint, no event (as prefetch)."""
        hinted = CACHE_HINT in words
        words = [w for w in words if w != CACHE_HINT]
        if words[3:] != ["L2", "global"]:
            self.unsupported(
                f"cp.{'.'.join(words)}: hrf reads cp.async.bulk.prefetch.L2.global{{.L2::cache_hint}} alone (tensors are not)",
                t,
            )
            return self.skip_operands(line)
        self.address()
        self.comma()
        size = self.value()
        if not isinstance(size, A.Const) or size.value <= 0 or size.value % 16:
            self.fail_at(t, "a size in bytes, a multiple of 16 (the ISA)")
        self.cache_policy(hinted, t)
        return ()

    def async_copy(self, words: list, t, line: int):
        """`cp.async.ca|cg.shared{::cta}.global{.L2::cache_hint}{.L2::64B|128B|256B} [dst], [src],
        size{, cache-policy}`: a weak read of the source, a weak write of the destination,
        asynchronous (`ptx-8.0`); the cache hint and the prefetch size are hints, no event."""
        hints = words[4:]
        prefetch = [w for w in hints if w in PREFETCH_SIZES]
        if (
            words[2:4] not in (["shared", "global"], ["shared::cta", "global"])
            or len(prefetch) > 1
            or hints.count(CACHE_HINT) > 1
            or hints[: hints.count(CACHE_HINT)] + prefetch != hints
        ):
            self.fail_at(
                t,
                f"cp.async.{words[1]}.shared{{::cta}}.global{{.{CACHE_HINT}}}{{.L2::64B, .L2::128B or .L2::256B}} "
                "(global to the CTA's shared memory: the ISA's one direction)",
            )
        dst = self.address()
        self.comma()
        src = self.address()
        self.comma()
        size = self.value()
        sizes = (16,) if words[1] == "cg" else (4, 8, 16)
        if not isinstance(size, A.Const) or size.value not in sizes:
            self.fail_at(t, f"a cp-size of {' or '.join(map(str, sizes))} bytes (the ISA's, for cp.async.{words[1]})")
        # with the cache hint, one more operand is its cache policy; any other is src-size or ignore-src
        operands = 0
        while self.peek(operands * 2)[0] == "," and self.peek(operands * 2 + 1)[0] in ("name", "int"):
            operands += 1
        if operands > (CACHE_HINT in hints):
            self.unsupported("cp.async with src-size or ignore-src is not modelled (zero fill)", t)
            return self.skip_operands(line)
        self.cache_policy(CACHE_HINT in hints, t)
        self.note_space(dst, {"space": ("shared::cta", t)}, t)
        self.note_space(src, {"space": ("global", t)}, t)
        self.copies += 1
        reg = f"copy{self.copies}"  # the copied value, in no register the test names
        form = (f"CPSIZE{size.value}",) + (("CPCG",) if words[1] == "cg" else ())  # type: ignore[union-attr]
        return (
            # its size and .cg (hrf run writes the form as read)
            A.Assign(reg, A.Load(src, False, line=line, tags=("GEN", "CPASYNC", "CPREAD", *form)), line=line),
            A.Store(dst, A.Reg(reg, line=line), False, line=line, tags=("GEN", "CPASYNC", "CPWRITE")),
        )

    def group_count(self, what: str, t) -> int | None:
        """A wait's N: the async-groups it leaves pending (None: beyond what hrf reads, refused)."""
        n = self.value()
        if not isinstance(n, A.Const) or n.value < 0:
            self.fail_at(t, f"{what} N, N an integer constant (the ISA)")
        if n.value >= WAIT_GROUPS:  # type: ignore[union-attr]
            self.unsupported(f"{what} {n.value}: hrf reads N up to {WAIT_GROUPS - 1}", t)  # type: ignore[union-attr]
            return None
        return n.value  # type: ignore[union-attr]

    def async_marker(self, tag: str, line: int, kind: str = "CPASYNC") -> A.Fence:
        """An async-group's commit or a wait: an event with no memory effect of its own."""
        return A.Fence((), "cp.async", None, line=line, tags=(kind, tag))

    def bulk_wait(self, words: list, t, line: int):
        """`cp.async.bulk.wait_group{.read} N`: all but the N most recent bulk
        async-groups complete (with `.read`: done reading their sources)."""
        if words not in ([], ["read"]):
            self.fail_at(t, "cp.async.bulk.wait_group N or cp.async.bulk.wait_group.read N (the ISA's forms)")
        what = "cp.async.bulk.wait_group" + (".read" if words else "")
        n = self.group_count(what, t)
        if n is None:
            return A.Label(f"$unread{line}", line=line)
        return self.async_marker(f"{'BWAITR' if words else 'BWAIT'}{n}", line, "BGROUP")

    def async_copy_arrive(self, words: list, t, line: int):
        """`cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [b]`: without
        .noinc the pending count goes up by one at the instruction; the
        arrive-on that brings it down follows the thread's earlier copies."""
        noinc = words[:1] == ["noinc"]
        if words[noinc:] not in (["b64"], ["shared", "b64"], ["shared::cta", "b64"]):
            self.fail_at(t, "cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [b] (the ISA's form)")
        b = self.address()
        self.note_space(b, {"space": ("shared::cta", t)}, t)
        arrive = mbarrier_add(b, -ARRIVAL, "rel", SCOPES["cta"], (*MBAR_TAGS, "ARRIVE", "CPASYNC", "CPARRIVE"), line)
        if noinc:
            return arrive
        inc = mbarrier_add(b, ARRIVAL, "rlx", SCOPES["cta"], (*MBAR_TAGS, "CPASYNC", "CPINC"), line)
        return (inc, arrive)

    def bulk_copy(self, ms: list, t, line: int):
        """`cp.async.bulk.dst.src.completion [dst], [src], size{, [b]}`: a copy
        through the async proxy, completed through an mbarrier or a bulk async-group."""
        words = [m for m, _ in ms]
        hinted, multicast = CACHE_HINT in words, MULTICAST in words
        words = [w for w in words if w not in (CACHE_HINT, MULTICAST)]
        if words[:2] != ["async", "bulk"]:
            self.unsupported(
                f"cp.{'.'.join(words)}: hrf models cp.async.bulk (its three mbarrier directions and the "
                "bulk_group copy to global memory), and sm_80's cp.async.ca/.cg with commit_group, wait_group, "
                "wait_all and cp.async.mbarrier.arrive",
                t,
            )
            return self.skip_operands(line)
        form = tuple(words[2:])
        if form not in BULK_FORMS:
            self.unsupported(
                f"cp.{'.'.join(words)}: hrf models cp.async.bulk.{{{', '.join('.'.join(f) for f in BULK_FORMS)}}} "
                "(tensors are cp.async.bulk.tensor, reductions cp.reduce.async.bulk)",
                t,
            )
            return self.skip_operands(line)
        self.hint_space(hinted, form, t)
        operands = self.bulk_operands(form)
        if multicast:
            return self.multicast(form, *operands, BULK_FORMS[form], hinted, t, line)
        self.cache_policy(hinted, t)
        return self.bulk_events(form, *operands, BULK_FORMS[form], None, t, line)

    def multicast(self, form: tuple, dst: str, src: str, size, b, tags: tuple, hinted: bool, t, line: int):
        """`..., ctaMask{, policy}` of a `.multicast::cluster` copy: kept, and read as one copy per
        CTA of the mask once the test's CTAs are known (`expand_multicasts`); a placeholder here."""
        if form != ("shared::cluster", "global", "mbarrier::complete_tx::bytes"):
            self.fail_at(t, ".multicast::cluster copies global memory into .shared::cluster with an mbarrier (the ISA)")
        self.comma()
        mask = self.value()
        if isinstance(mask, A.Reg):
            self.unsupported("a ctaMask in a register: hrf reads a constant mask", t)
            return self.skip_operands(line)
        if not isinstance(mask, A.Const) or not 0 < mask.value < 1 << 16:
            self.fail_at(t, "a ctaMask, a 16-bit integer naming at least one CTA (the ISA)")
        self.cache_policy(hinted, t)
        self.multicasts.append((self.col, form, dst, src, size, b, mask.value, tags, t, line))  # type: ignore[union-attr]
        return A.Label(f"$multicast{len(self.multicasts) - 1}", line=line)

    def bulk_operands(self, form: tuple) -> tuple[str, str, object, str | None]:
        """`[dst], [src], size` and, but for a bulk-group copy, `, [b]`: (dst, src, size, b or None)."""
        dst = self.address()
        self.comma()
        src = self.address()
        self.comma()
        size = self.value()
        if form[2] == "bulk_group":
            return dst, src, size, None
        self.comma()
        return dst, src, size, self.address()

    def bulk_tensor(self, words: list, t, line: int):
        """`cp.async.bulk.tensor.dim.dst.src{.tile}.completion`: the bulk copy of the tensor map's box."""
        hinted, multicast = CACHE_HINT in words, MULTICAST in words
        dim = words[3] if len(words) > 3 else ""
        form = tuple(w for w in words[4:] if w not in ("tile", CACHE_HINT, MULTICAST))
        if dim not in TENSOR_DIMS:
            self.fail_at(t, "cp.async.bulk.tensor's dimensions: .1d, .2d, .3d, .4d or .5d")
        if form not in TENSOR_FORMS:
            self.unsupported(
                f"cp.{'.'.join(words)}: hrf models cp.async.bulk.tensor.dim."
                f"{{{', '.join('.'.join(f) for f in TENSOR_FORMS)}}} in tile mode (im2col, gather4 and "
                "scatter4 and cta_group are not modelled)",
                t,
            )
            return self.skip_operands(line)
        if form[2] == "bulk_group":  # [tm, {coordinates}], [src]: to the box
            dst, size = self.tensor_operand(int(dim[0]))
            self.comma()
            src = self.address()
            self.cache_policy(hinted, t)
            return self.bulk_events(form, dst, src, size, None, (*TENSOR_FORMS[form], "TENSOR"), None, t, line)
        dst = self.address()
        self.comma()
        src, size = self.tensor_operand(int(dim[0]))
        self.comma()
        b = self.address()
        if multicast:
            return self.multicast(form, dst, src, size, b, (*TENSOR_FORMS[form], "TENSOR"), hinted, t, line)
        self.cache_policy(hinted, t)
        return self.bulk_events(form, dst, src, size, b, (*TENSOR_FORMS[form], "TENSOR"), None, t, line)

    def hint_space(self, hinted: bool, form: tuple, t) -> None:
        """ "The qualifier .level::cache_hint is only supported when at least one of the .src or .dst
        statespaces is .global state space" (the ISA)."""
        if hinted and "global" not in form[:2]:
            self.fail_at(t, f".{CACHE_HINT} needs the source or the destination in .global (the ISA)")

    def cache_policy(self, hinted: bool, t) -> None:
        """`, cache-policy`, which `.L2::cache_hint` allows (a 64-bit register or integer): a hint, no event."""
        if self.peek()[0] != ",":
            return
        if not hinted:
            self.fail_at(self.peek(), f"no more operands (a cache-policy operand needs .{CACHE_HINT}: the ISA)")
        self.i += 1
        policy = self.value()
        if not isinstance(policy, (A.Const, A.Reg)):
            self.fail_at(t, "a cache policy: a 64-bit register or integer (the ISA)")

    def tensor_operand(self, dims: int) -> tuple[str, A.Const]:
        """`[tm, {c0, ..}]`, `dims` coordinates, each 0: (the box's location, its bytes)."""
        self.expect("[", "'[' (a tensor map and its coordinates, [tm, {0}])")
        tm = self.peek()
        name = super().loc()
        self.comma()
        self.expect("{", "'{' (the tensor's coordinates, {0})")
        coords = [self.value()]
        while self.accept(","):
            coords.append(self.value())
        self.expect("}", "'}'")
        self.expect("]", "']'")
        if name not in self.tensormaps:
            self.fail_at(tm, f"a tensor map of the initial state (tm @ tensormap g = bytes), not {name}")
        if len(coords) != dims:
            self.fail_at(tm, f"{dims} coordinates, one for each of the copy's dimensions")
        if any(not isinstance(c, A.Const) or c.value != 0 for c in coords):
            self.defer(
                Unsupported(
                    "a tensor copy's coordinates are 0 here: hrf's tensor map holds one box (any other "
                    "coordinates name boxes it does not hold)",
                    tm[2],
                    tm[3],
                )
            )
        box, size, _ = self.tensormaps[name]
        return box, A.Const(size, line=tm[2])

    def bulk_events(self, form: tuple, dst: str, src: str, size, b, tags: tuple, op, t, line: int):
        """A bulk copy's events (`op`: a reduction's operation, else None):
        its read of the source, its write of the destination (a reduction's:
        an atomic operation at .gpu scope), the implicit proxy fence, and
        with an mbarrier the complete-tx."""
        if not isinstance(size, A.Const) or not 0 < size.value <= MAX_TX or size.value % 16:
            self.fail_at(t, f"a size in bytes, a multiple of 16 up to {MAX_TX} (the ISA)")
        dst_space, src_space, _ = form
        self.note_space(dst, {"space": (dst_space, t)}, t)
        self.note_space(src, {"space": (src_space, t)}, t)
        if (dst_space, src_space) == ("shared::cluster", "shared::cta"):
            self.remote_copies.append((self.col, dst, t))
        self.copies += 1
        reg = f"copy{self.copies}"  # the copied value, in no register the test names
        tags = ("ASYNC", "BULK", *tags)
        value = A.Reg(reg, line=line)
        write: A.Store | A.ExprStmt = A.Store(dst, value, False, line=line, tags=tags)
        if op is not None:  # "individually .relaxed.gpu memory ordering semantics"; no read (as red)
            write = A.ExprStmt(A.Rmw(op, dst, value, "rlx", "dev", line=line, tags=(*tags, "RED")), line=line)
        events: tuple = (
            A.Assign(reg, A.Load(src, False, line=line, tags=tags), line=line),
            write,
            # the implicit generic-async proxy fence that follows the copy's completion (the ISA)
            A.Fence(("proxy",), "proxy", None, line=line, tags=tags),
        )
        if b is None:
            return events
        self.note_space(b, {"space": ("shared::cluster", t)}, t)
        tensor = ("TENSOR",) if "TENSOR" in tags else ()
        return (*events, mbarrier_add(b, -size.value, "rel", SCOPES["cluster"], (*MBAR_TAGS, "BULK", *tensor), line))

    def bulk_reduce(self, words: list, t, line: int):
        """`cp.reduce.async.bulk.dst.src.completion{.L2::cache_hint}.op.type [dst], [src], size{, [b]}{, policy}`."""
        hinted = CACHE_HINT in words
        words = [w for w in words if w != CACHE_HINT]
        form, rest = tuple(words[3:6]), words[6:]
        ops = REDUCE_FORMS.get(form)
        if ops is None or len(rest) not in (2, 3) or (len(rest) == 3 and rest[1] != "noftz"):
            self.unsupported(
                f"cp.{'.'.join(words)}: hrf models cp.reduce.async.bulk.{{{', '.join('.'.join(f) for f in REDUCE_FORMS)}}}"
                ".op.type (the floating-point .noftz form is not modelled)",
                t,
            )
            return self.skip_operands(line)
        op, typ = rest[0], rest[-1]
        if typ in FLOATS:
            self.unsupported(
                f"cp.reduce.async.bulk on .{typ}: hrf's values are integers (floating-point reductions are not modelled)",
                t,
            )
            return self.skip_operands(line)
        if op not in ops or typ not in ops[op]:
            known = "; ".join(f".{k} {', '.join('.' + x for x in v)}" for k, v in ops.items())
            self.fail_at(t, f"cp.reduce.async.bulk to .{form[0]}: .{op}.{typ} is not among the ISA's ({known})")
        rmw = "umin" if op == "min" and typ.startswith("u") else "umax" if op == "max" and typ.startswith("u") else op
        tags = (*BULK_FORMS[form], "BREDUCE") + (("BRED64",) if typ.endswith("64") else ())  # hrf run: 32-bit words
        self.hint_space(hinted, form, t)
        operands = self.bulk_operands(form)
        self.cache_policy(hinted, t)
        return self.bulk_events(form, *operands, tags, rmw, t, line)

    def bulk_reduce_tensor(self, words: list, t, line: int):
        """`cp.reduce.async.bulk.tensor.dim.global.shared::cta.op{.tile}.bulk_group{.L2::cache_hint}
        [tm, {0, ..}], [src]{, policy}`: the bulk reduction of the tensor map's box (the TMA reduce)."""
        hinted = CACHE_HINT in words
        dim = words[4] if len(words) > 4 else ""
        if dim not in TENSOR_DIMS:
            self.fail_at(t, "cp.reduce.async.bulk.tensor's dimensions: .1d, .2d, .3d, .4d or .5d")
        rest = [w for w in words[5:] if w not in ("tile", CACHE_HINT)]
        if "im2col_no_offs" in rest:
            self.unsupported("cp.reduce.async.bulk.tensor in .im2col_no_offs mode is not modelled (tile mode is)", t)
            return self.skip_operands(line)
        if len(rest) != 4 or (rest[0], rest[1], rest[3]) != ("global", "shared::cta", "bulk_group"):
            self.fail_at(
                t, "cp.reduce.async.bulk.tensor.dim.global.shared::cta.op{.tile}.bulk_group (the ISA's one form)"
            )
        op = rest[2]
        if op in ("min", "max"):
            # the element type, which decides a signed or an unsigned comparison, is the tensor map's
            self.unsupported(
                f"cp.reduce.async.bulk.tensor .{op}: its element type is the tensor map's, which hrf's does not give",
                t,
            )
            return self.skip_operands(line)
        if op not in SHARED_REDUCTIONS:
            self.fail_at(t, f"a reduction among the ISA's (.add, .min, .max, .inc, .dec, .and, .or, .xor), not .{op}")
        form = ("global", "shared::cta", "bulk_group")
        dst, size = self.tensor_operand(int(dim[0]))
        self.comma()
        src = self.address()
        self.cache_policy(hinted, t)
        return self.bulk_events(form, dst, src, size, None, (*BULK_FORMS[form], "BREDUCE", "TENSOR"), op, t, line)

    def async_store(self, op: str, ms: list, t, line: int):
        """`st.async{.weak}{.shared::cluster}.mbarrier::complete_tx::bytes.type [a], b, [mbar]` and
        `red.async.relaxed.cluster{.shared::cluster}{.mbarrier::complete_tx::bytes}.op.type [a], b, [mbar]`:
        a weak store (a reduction relaxed at .cluster scope) of a cluster's shared memory, then the
        complete-tx of its bytes on the mbarrier, a release at .cluster scope, asynchronous as a bulk copy."""
        words = [w for w, _ in ms]
        what = f"{op}.async"
        if any(w in ("release", "mmio", "global") for w in words):
            self.unsupported(f"{what}.release to global memory (PTX ISA 8.7, sm_100) is not modelled", t)
            return self.skip_operands(line)
        head = ["weak"] if op == "st" else ["relaxed", "cluster"]
        if op == "red" and words[:2] != head:
            self.fail_at(t, "red.async.relaxed.cluster (the ISA's one order and scope with an mbarrier)")
        if op == "st" and "mbarrier::complete_tx::bytes" not in words:
            self.fail_at(t, "st.async.mbarrier::complete_tx::bytes (the ISA: the completion mechanism is required)")
        start = len(head) if words[: len(head)] == head else 0
        rest = [w for w in words[start:] if w not in ("shared::cluster", "mbarrier::complete_tx::bytes")]
        if any(w in ("v2", "v4") for w in rest) or any(w in FLOATS for w in rest):
            self.unsupported(
                f"{what} of vectors or floating-point values is not modelled (hrf's values are integers)", t
            )
            return self.skip_operands(line)
        if op == "st":
            if len(rest) != 1 or rest[0] not in ST_ASYNC:
                self.fail_at(t, f"st.async's type, one of {', '.join('.' + x for x in ST_ASYNC)}")
            kind, typ = None, rest[0]
        else:
            if len(rest) != 2 or rest[0] not in RED_ASYNC or rest[1] not in RED_ASYNC[rest[0]]:
                known = "; ".join(f".{k} {', '.join('.' + x for x in v)}" for k, v in RED_ASYNC.items())
                self.fail_at(t, f"red.async's operation and type, among the ISA's ({known})")
            kind, typ = rest
        a = self.address()
        self.comma()
        value = self.value()
        self.comma()
        b = self.address()
        for loc in (a, b):
            self.note_space(loc, {"space": ("shared::cluster", t)}, t)
        self.async_stores.append((self.col, a, b, op == "red", t))
        tags = ("GEN", "BULK", "STASYNC")
        size = 8 if typ.endswith("64") else 4
        # the complete-tx's text names its instruction: REDASYNC (no RED: an mbarrier update reads)
        complete = mbarrier_add(
            b, -size, "rel", SCOPES["cluster"], (*MBAR_TAGS, "BULK", "STASYNC") + (("REDASYNC",) if kind else ()), line
        )
        if kind is None:
            return (A.Store(a, value, False, line=line, tags=tags), complete)
        rmw = {"min": "umin", "max": "umax"}.get(kind, kind) if typ.startswith("u") else kind
        red = A.Rmw(rmw, a, value, "rlx", SCOPES["cluster"], line=line, tags=(*tags, "RED"))
        return (A.ExprStmt(red, line=line), complete)

    # ------------------------------------------------------------ mapa
    def mapa(self, ms: list, t, line: int):
        """`mapa{.shared::cluster}.type r, x, rank`: r holds the address of the location at x's
        CTA-relative offset in the CTA of that rank in the thread's cluster ("Get address in the CTA
        specified by operand b which corresponds to the address specified by operand a"). No event:
        the accesses through `[r]` are that location's."""
        self.cluster_address_form("mapa", ms, t)
        dst = self.reg()
        self.comma()
        src = self.loc()
        self.comma()
        rank = self.value()
        if isinstance(rank, A.Reg):
            self.unsupported("mapa with a rank in a register: hrf reads a constant rank", t)
            return ()
        if not isinstance(rank, A.Const) or rank.value < 0:
            self.fail_at(t, "a CTA rank, an integer (the ISA)")
        head = self.own_head()
        if head.get("qf") is None:
            msg = "mapa maps into a CTA of the thread's cluster: name its cluster (cta n, cluster m, gpu k)"
            self.defer(ParseFailure(msg, t[2], t[3]))
            return ()
        there = self.at_offset(src, head, rank.value, t)  # type: ignore[union-attr]
        if there is None:
            return ()
        self.mapped[(self.col, dst)] = (there, t)
        return ()

    def cluster_address_form(self, op: str, ms: list, t) -> None:
        """`op{.shared::cluster}.u32` or `.u64`: mapa's and getctarank's forms (the ISA's)."""
        if [w for w, _ in ms] not in (["shared::cluster", "u32"], ["shared::cluster", "u64"], ["u32"], ["u64"]):
            self.fail_at(t, f"{op}{{.shared::cluster}}.u32 or .u64 (the ISA's forms)")

    def own_head(self) -> dict:
        """The scope fields of the thread being read (its head: `cta 0, cluster 0, gpu 0`)."""
        return self.thread_heads[self.col][0] if self.col < len(self.thread_heads) else {}

    def getctarank(self, ms: list, t, line: int):
        """`getctarank{.shared::cluster}.type d, a`: d takes the rank, in the thread's cluster, of the
        CTA whose shared memory holds a, a location or a register `mapa` set ("Write the destination
        register d with the rank of the CTA which contains the address specified in operand a"):
        mapa's inverse. No event; an address outside the cluster's shared memory is a located error."""
        self.cluster_address_form("getctarank", ms, t)
        dst = self.reg()
        self.comma()
        a = self.peek()
        loc = self.loc()
        head = self.own_head()
        owner = self.owners.get(loc)
        if owner is None or not owner[1:].isdigit() or int(owner[1:]) >= len(self.thread_heads):
            self.fail_at(a, f"an address in shared memory (the ISA): {loc} is declared in no CTA's (x @ shared P1)")
        there = self.thread_heads[int(owner[1:])][0]  # type: ignore[index]
        if (there.get("dev"), there.get("qf")) != (head.get("dev"), head.get("qf")):
            self.fail_at(a, f"an address in the shared memory of the thread's cluster: {loc} is another cluster's")
        return A.Assign(dst, A.Const(there["wg"], line=line), line=line)

    def at_offset(self, loc: str, head: dict, rank: int, tok) -> str | None:
        """The location at `loc`'s CTA-relative offset in CTA `rank` of `head`'s cluster; None,
        with a located error at `tok`, where none is declared."""
        for other, owner in self.owners.items():
            if (
                self.offset_root(other) != self.offset_root(loc)
                or not owner[1:].isdigit()
                or int(owner[1:]) >= len(self.thread_heads)
            ):
                continue
            h = self.thread_heads[int(owner[1:])][0]
            if (h.get("dev"), h.get("qf"), h.get("wg")) == (head.get("dev"), head.get("qf"), rank):
                return other
        msg = f"no location at {loc}'s offset in CTA {rank} of the thread's cluster (declare one: x @ shared P.. offset {loc})"
        self.defer(ParseFailure(msg, tok[2], tok[3]))
        return None

    def offset_root(self, loc: str) -> str:
        """The first location of the chain of `offset`s from `loc`: one per CTA-relative offset."""
        while loc in self.offsets:
            loc = self.offsets[loc][0]
        return loc

    def check_mapped(self, test: A.Test) -> None:
        """A register mapa set holds an address: the thread uses it as an address operand alone."""
        for (col, reg), (loc, tok) in self.mapped.items():
            th = test.threads[col]
            for s in A.walk_stmts(th.body):
                names = A.regs_read(s)
                if reg in names or (isinstance(s, A.Assign) and s.reg == reg):
                    msg = f"{th.name}: {reg} holds {loc}'s address (mapa): an address operand alone ([{reg}])"
                    self.defer(ParseFailure(msg, s.line or tok[2], 1))
                    break

    # ------------------------------------------------------------ wgmma
    def wgmma(self, ms: list, t, line: int):
        """`wgmma.fence`, `.commit_group`, `.wait_group N` (each `.sync.aligned`) and `.mma_async`."""
        words = [m for m, _ in ms]
        if words[:1] == ["mma_async"] and words[1:2] == ["sp"]:
            self.unsupported("wgmma.mma_async.sp (a sparse A) is not modelled", t)
            return self.skip_operands(line)
        if words[:1] == ["mma_async"] and words[1:3] == ["sync", "aligned"]:
            return self.mma_async(ms[3:], t, line)
        if words == ["fence", "sync", "aligned"]:
            return self.wgmma_marker("WFENCE", line)
        if words == ["commit_group", "sync", "aligned"]:
            return self.wgmma_marker("WCOMMIT", line)
        if words == ["wait_group", "sync", "aligned"]:
            n = self.group_count("wgmma.wait_group", t)
            return A.Label(f"$unread{line}", line=line) if n is None else self.wgmma_marker(f"WWAIT{n}", line)
        self.fail_at(
            t,
            "wgmma.fence.sync.aligned, wgmma.mma_async.sync.aligned..., wgmma.commit_group.sync.aligned "
            "or wgmma.wait_group.sync.aligned N (the ISA's forms)",
        )

    def wgmma_marker(self, tag: str, line: int) -> A.Fence:
        """wgmma.fence, a wgmma-group's commit or a wait: an event with no memory effect of its own."""
        return A.Fence((), "wgmma", None, line=line, tags=("WGMMA", tag))

    def mma_async(self, ms: list, t, line: int):
        """`wgmma.mma_async.sync.aligned.shape{.satfinite}.s32.atype.btype d, (a-desc | a), b-desc, scale-d`:
        the reads of its matrices in shared memory through the async proxy, the proxy fence after
        its completion, and its accumulator's `D = A*B+D` (`D = A*B` where scale-d is 0)."""
        words = [w for w, _ in ms if w != "satfinite"]
        other = next((w for w in words[1:] if w in WGMMA_OTHER), None)
        if other is not None:
            what = "single-bit .b1 (.and.popc)" if other == "b1" else "floating-point"
            self.unsupported(f"wgmma.mma_async of {what} matrices: hrf reads its integer forms alone (.s32.s8/.u8)", t)
            return self.skip_operands(line)
        shape = re.fullmatch(r"m64n([0-9]+)k32", words[0]) if words else None
        if shape is None or int(shape.group(1)) not in WGMMA_N:
            self.fail_at(
                t, f"an integer wgmma's shape, m64nNk32 with N one of {', '.join(map(str, WGMMA_N))} (the ISA)"
            )
        if len(words) != 4 or words[1] != "s32" or words[2] not in WGMMA_INT or words[3] not in WGMMA_INT:
            self.fail_at(
                t, "wgmma.mma_async.sync.aligned.shape{.satfinite}.s32.atype.btype, atype and btype .s8 or .u8"
            )
        d = self.one_register("the accumulator d: one register ({d}): hrf's matrices are one element each")
        self.comma()
        a_reg = a_loc = None
        if self.peek()[0] == "{":
            a_reg = self.one_register("A in registers: one register ({a}): hrf's matrices are one element each")
        else:
            a_loc = self.descriptor()
        self.comma()
        b_loc = self.descriptor()
        self.comma()
        scale = self.value()
        if not isinstance(scale, A.Reg) and not (isinstance(scale, A.Const) and scale.value in (0, 1)):
            self.fail_at(t, "scale-d: 0, 1 or a predicate register (the ISA)")
        if self.peek()[0] == ",":
            self.fail_at(self.peek(), "no more operands (the integer forms end with scale-d)")
        regs = [d] + ([a_reg] if a_reg else [])
        for r in regs:
            if (self.col, r) not in self.wgmma_regs:
                k = sum(1 for col, _ in self.wgmma_regs if col == self.col)
                if k == WGMMA_REGS:
                    msg = (
                        f"a thread's wgmmas access {WGMMA_REGS} registers at most here (hrf counts each one's accesses)"
                    )
                    self.defer(Unsupported(msg, t[2], t[3]))
                self.wgmma_regs[(self.col, r)] = k
        self.wgmmas += 1
        tags = ("ASYNC", "WGMMA", "WGOP", *(f"WREG{self.wgmma_regs[(self.col, r)]}" for r in regs))
        out: list = []
        values = []
        for name, loc in (("a", a_loc), ("b", b_loc)):
            if loc is None:  # A in a register
                values.append(A.Reg(a_reg or "", line=line))
                continue
            self.note_space(loc, {"space": ("shared::cta", t)}, t)
            held = f"{WGMMA_VALUE}{name}{self.wgmmas}"
            out.append(A.Assign(held, A.Load(loc, False, line=line, tags=tags), line=line))
            values.append(A.Reg(held, line=line))
        product = A.BinOp("*", values[0], values[1], line=line)
        kept = A.BinOp("!=", scale, A.Const(0, line=line), line=line)
        accumulated = A.BinOp("*", A.Reg(d, line=line), kept, line=line)
        out.append(A.Assign(d, A.BinOp("+", product, accumulated, line=line), line=line))
        # the implicit generic-async proxy fence that follows its completion ("Async Proxy")
        out.append(A.Fence(("proxy",), "proxy", None, line=line, tags=tags))
        return tuple(out)

    def one_register(self, what: str) -> str:
        """`{r}`: a matrix's fragment in one register."""
        self.expect("{", f"'{{' ({what})")
        r = self.reg()
        if self.peek()[0] == ",":
            self.fail_at(self.peek(), what)
        self.expect("}", "'}'")
        return r

    def descriptor(self) -> str:
        """`[s]`: a matrix descriptor, written as its one element's location in shared memory."""
        if self.peek()[0] != "[":
            self.fail("a matrix descriptor, written as its one element's location in shared memory ([s])")
        return self.address()

    def skip_operands(self, line: int):
        while self.peek()[0] not in ("|", ";", END):
            self.i += 1
        return A.Label(f"$unread{line}", line=line)

    # ------------------------------------------------------------ fences and cluster barriers
    def async_proxy_fence(self, ms: list, t, line: int):
        """`fence.proxy.async{.global | .shared::cta | .shared::cluster}`: both directions, the generic
        and the async proxy, for the state space it names (all where it names none)."""
        space = [m for m, _ in ms[2:]]
        if space not in ([], ["global"], ["shared::cta"], ["shared::cluster"]):
            self.fail_at(t, "fence.proxy.async, fence.proxy.async.global, .shared::cta or .shared::cluster")
        tags: tuple = ("ASYNC",) + (("global",) if space == ["global"] else ("local",) if space else ())
        return A.Fence(("proxy",), "proxy", None, line=line, tags=tags)

    def mbarrier_init_fence(self, ms: list, t, line: int):
        words = [m for m, _ in ms]
        if words != ["mbarrier_init", "release", "cluster"]:
            self.fail_at(t, "fence.mbarrier_init.release.cluster (the ISA's one form)")
        return A.Fence((), "rel", "qf", line=line, tags=("GEN", "MBINIT"))

    def cluster_barrier(self, words: list, t, line: int):
        """`barrier.cluster.arrive{.release|.relaxed}` and `barrier.cluster.wait{.acquire}`."""
        rest = [w for w in words[1:] if w != "aligned"]
        # the k-th arrive and the k-th wait of each thread are one use of the barrier (`cluster k`)
        k = sum(1 for col, kind, _ in self.cluster_barriers if col == self.col and kind == "arrive")
        if rest[:1] == ["arrive"] and rest[1:] in ([], ["release"], ["relaxed"]):
            order = "rlx" if rest[1:] == ["relaxed"] else "rel"
            self.cluster_barriers.append((self.col, "arrive", t))
            return A.Barrier((), f"cluster{k}", "qf", line=line, tags=("CLBAR",), arrive=True, order=order)
        if rest[:1] == ["wait"] and rest[1:] in ([], ["acquire"]):
            self.cluster_barriers.append((self.col, "wait", t))
            return A.Barrier((), f"cluster{max(k - 1, 0)}", "qf", line=line, tags=("CLBAR",), order="acq")
        self.fail_at(
            t, "barrier.cluster.arrive{.release,.relaxed}{.aligned} or barrier.cluster.wait{.acquire}{.aligned}"
        )

    # ------------------------------------------------------------ the whole test
    def note_space(self, loc: str, q: dict, t) -> None:
        """Keep the state space an access names, checked against the location's once the test is read."""
        space = q.get("space")
        self.spaces.append((self.col, loc, space[0] if space else None, t))

    def check_hopper(self, test: A.Test) -> A.Test:
        """What the forms above need of the whole test: mbarrier operations
        on mbarriers alone and mbarriers touched by no other access; shared
        locations reached from their CTA (`.shared::cta`, generic) or from
        its cluster (`.shared::cluster`); an mbarrier's one count; cluster
        barriers that every thread of a cluster arrives at and waits on
        alike. The test, its mbarrier updates given their phases (`with_phases`)."""
        self.check_offsets(test)  # wherever they are declared, used or not
        test = self.expand_multicasts(test)
        self.check_mapped(test)
        decl = {i.loc: i for i in test.init}
        mbars = mbarriers(test)
        threads = {th.name: th for th in test.threads}
        for th in test.threads:
            for op in th.ops:
                loc = getattr(op, "loc", None)
                if loc is None or loc not in decl:
                    continue
                is_mbar = "MBAR" in getattr(op, "tags", ())
                declared_mbar = loc in mbars
                if is_mbar and not declared_mbar:
                    self.defer(
                        ParseFailure(f"{th.name}: {loc} is no mbarrier ({loc} @ mbarrier P0 = count)", op.line, 1)
                    )
                elif declared_mbar and not is_mbar:
                    self.defer(
                        ParseFailure(
                            f"{th.name}: {loc} is an mbarrier: only mbarrier instructions access it (the ISA)",
                            op.line,
                            1,
                        )
                    )
        for col, loc, space, tok in self.spaces:
            i = decl.get(loc)
            th = test.threads[col]
            kind = i.space if i is not None else None
            if space == "global":
                if kind is not None:
                    self.defer(ParseFailure(f"{th.name}: {loc} is in shared memory, not .global", tok[2], tok[3]))
                continue
            if kind is None and space is None:
                continue
            if kind is None or i is None or i.owner is None:
                self.defer(
                    ParseFailure(
                        f"{th.name}: {loc} is not declared in shared memory ({loc} @ shared P0)", tok[2], tok[3]
                    )
                )
                continue
            owner = threads.get(i.owner)
            if owner is None:
                self.defer(
                    ParseFailure(
                        f"{loc} is in the shared memory of {i.owner}'s CTA: the test has no {i.owner}", tok[2], tok[3]
                    )
                )
                continue
            same_cta = (owner.dev, owner.qf, owner.wg) == (th.dev, th.qf, th.wg)
            same_cluster = (owner.dev, owner.qf) == (th.dev, th.qf)
            if not same_cluster:
                self.defer(
                    ParseFailure(
                        f"{th.name}: {loc} is in the shared memory of {i.owner}'s cluster, out of its reach",
                        tok[2],
                        tok[3],
                    )
                )
            elif not same_cta and space in ("shared", "shared::cta"):
                self.defer(
                    ParseFailure(
                        f"{th.name}: {loc} is in the shared memory of {i.owner}'s CTA: another CTA reaches it through .shared::cluster",
                        tok[2],
                        tok[3],
                    )
                )
        for col, a, b, remote_only, tok in self.async_stores:
            th, owners = test.threads[col], []
            for loc in (a, b):
                i = decl.get(loc)
                owner = threads.get(i.owner) if i is not None and i.owner else None
                owners.append(None if owner is None else (owner.dev, owner.qf, owner.wg))
            what = "red.async" if remote_only else "st.async"
            cluster = {t.wg for t in test.threads if (t.dev, t.qf) == (th.dev, th.qf)}
            if None not in owners and owners[0] != owners[1]:
                msg = f"{th.name}: {what}'s destination {a} and mbarrier {b} lie in two CTAs (the ISA: one CTA)"
                self.defer(ParseFailure(msg, tok[2], tok[3]))
            elif remote_only and owners[0] == (th.dev, th.qf, th.wg):
                msg = f"{th.name}: red.async reduces another CTA's shared memory, not {a} of its own (the ISA)"
                self.defer(ParseFailure(msg, tok[2], tok[3]))
            elif len(cluster) < 2:
                msg = f"{th.name}: {what} needs a cluster of more than one CTA (the ISA: %cluster_nctarank > 1)"
                self.defer(ParseFailure(msg, tok[2], tok[3]))
        for col, dst, tok in self.remote_copies:
            i, th = decl.get(dst), test.threads[col]
            owner = threads.get(i.owner) if i is not None and i.owner else None
            if owner is not None and (owner.dev, owner.qf, owner.wg) == (th.dev, th.qf, th.wg):
                # cp.async.bulk: "the destination has to be in the shared memory of a different CTA"
                msg = f"{th.name}: a copy from .shared::cta to .shared::cluster writes another CTA's shared memory, not {dst} of its own (the ISA)"
                self.defer(ParseFailure(msg, tok[2], tok[3]))
        counts = self.mbarrier_counts(test)
        # the ISA's mbarrier is "an opaque object": a test observes its phases through waits alone
        observed = [*A.prop_vars(test.condition.prop), *test.locations] if test.condition else [*test.locations]
        for loc in (v.loc for v in observed if isinstance(v, A.LocVar)):
            if loc in mbars:
                msg = f"the final state observes {loc}, an mbarrier: an opaque object (the ISA), observed through its waits"
                self.defer(ParseFailure(msg, decl[loc].line, 1))
        self.check_states(test)
        self.check_cluster_barriers(test)
        phased = tuple(A.with_fields(th, body=with_phases(th.body, counts)) for th in test.threads)
        return A.with_fields(test, threads=self.with_wgmma_uses(test, phased))

    def with_wgmma_uses(self, test: A.Test, threads: tuple) -> tuple:
        """Each thread whose wgmmas access registers, with the markers of its
        other accesses to them (`with_register_uses`), and at its end those of
        the registers the final state observes (read once the thread is done)."""
        observed = [*A.prop_vars(test.condition.prop)] if test.condition else []
        observed += [v for v in test.locations if isinstance(v, A.RegVar)]
        out = []
        for col, th in enumerate(threads):
            regs = {r: k for (c, r), k in self.wgmma_regs.items() if c == col}
            if regs:
                seen = [v.reg for v in observed if isinstance(v, A.RegVar) and v.thread == th.index]
                body = with_register_uses(th.body, regs) + register_use(regs, seen, th.line)
                th = A.with_fields(th, body=body)
            out.append(th)
        return tuple(out)

    def check_offsets(self, test: A.Test) -> None:
        """Each location declared at another's CTA-relative offset (`offset`) lies in another CTA
        of that one's cluster, one per CTA (`at_offset` finds them)."""
        decl = {i.loc: i for i in test.init}
        owner = {th.name: th for th in test.threads}

        def cta(loc: str):
            th = owner.get(decl[loc].owner or "")
            return None if th is None else (th.dev, th.qf, th.wg)

        groups: dict = {}
        for loc, i in decl.items():
            if (i.space or "") not in ("shared", "mbarrier", "mbarrier-uninit") or cta(loc) is None:
                continue
            group = groups.setdefault(self.offset_root(loc), {})
            where = cta(loc)
            if loc in self.offsets:
                other, tok = self.offsets[loc]
                there = cta(other)
                if there is not None and where[:2] != there[:2]:
                    self.defer(
                        ParseFailure(
                            f"{loc} lies at {other}'s offset: in a CTA of its cluster, not another's", tok[2], tok[3]
                        )
                    )
                if where in group.values() or (there is not None and where == there):
                    self.defer(
                        ParseFailure(
                            f"{loc} lies at {other}'s offset in a CTA that already has one there", tok[2], tok[3]
                        )
                    )
            group[loc] = where

    def expand_multicasts(self, test: A.Test) -> A.Test:
        """Each `.multicast::cluster` copy (its placeholder) as one bulk copy per CTA of its mask,
        in rank order, to that CTA's location at dst's offset (`at_offset`), completing on its
        mbarrier at b's."""
        if not self.multicasts:
            return test
        expanded: dict = {}
        for n, (col, form, dst, src, size, b, mask, tags, tok, line) in enumerate(self.multicasts):
            th = test.threads[col]
            ranks = [k for k in range(16) if mask >> k & 1]
            ctas = {t.wg for t in test.threads if (t.dev, t.qf) == (th.dev, th.qf)}
            events: tuple = ()
            self.col = col
            for k in ranks:
                if k not in ctas:
                    self.defer(
                        ParseFailure(
                            f"{th.name}: ctaMask names CTA {k}, which its cluster does not have", tok[2], tok[3]
                        )
                    )
                    continue
                dst_k, b_k = (self.at_offset(loc, self.thread_heads[col][0], k, tok) for loc in (dst, b))
                if dst_k is not None and b_k is not None:
                    events += self.bulk_events(form, dst_k, src, size, b_k, (*tags, "MULTICAST"), None, tok, line)
            expanded[f"$multicast{n}"] = events
        return A.with_fields(
            test, threads=tuple(A.with_fields(th, body=with_expanded(th.body, expanded)) for th in test.threads)
        )

    def check_states(self, test: A.Test) -> None:
        """The state an arrive returns is opaque (the ISA): its register is
        a wait's operand alone, no value of the test's code or final state."""
        for col, reg, tok in self.states:
            th = test.threads[col]
            for s in A.walk_stmts(th.body):
                if wait_read(s) is not None or is_phase_marker(s):  # (the reader's own)
                    continue
                names = A.regs_read(s)
                if reg in names:
                    msg = f"{th.name}: {reg} holds an mbarrier's state, opaque (the ISA): a wait's operand alone"
                    self.defer(ParseFailure(msg, s.line or tok[2], 1))
                    return
            seen = [*A.prop_vars(test.condition.prop)] if test.condition else []
            if any(
                isinstance(v, A.RegVar) and v.thread == th.index and v.reg == reg for v in seen + list(test.locations)
            ):
                msg = f"the final state observes {th.name}:{reg}, an mbarrier's state: opaque (the ISA)"
                self.defer(ParseFailure(msg, tok[2], tok[3]))
                return

    def mbarrier_counts(self, test: A.Test) -> dict:
        """Each mbarrier's count, the one its initialisations give (the
        init block's, each mbarrier.init's); one initialised with two is
        refused by name (a phase restarts with the object's count here)."""
        inits: dict = {}
        for i in test.init:
            if i.space == "mbarrier" and isinstance(i.value, int):
                inits.setdefault(i.loc, []).append((i.value // ARRIVAL, i.line))
        for th in test.threads:
            for op in th.ops:
                if isinstance(op, A.Store) and "MBINIT" in op.tags and isinstance(op.value, A.Const):
                    inits.setdefault(op.loc, []).append((op.value.value // ARRIVAL, op.line))
        # the tx-count's range, -(2^20 - 1) to 2^20 - 1 (the ISA), which hrf's encoding keeps apart
        # from the pending arrivals: the bytes a test's instructions expect, and complete, stay in it
        for b in inits:
            ups = [(mbarrier_update(op), op.line) for th in test.threads for op in th.ops if is_update(op, b)]
            for sign, kinds in ((1, ("expect_tx", "arrive.expect_tx")), (-1, ("complete_tx",))):
                total = sum(n for (kind, n), _ in ups if kind in kinds)
                if total > MAX_TX:
                    line = next(line for (kind, _), line in reversed(ups) if kind in kinds)
                    msg = f"{b}: its instructions {'expect' if sign > 0 else 'complete'} {total} bytes, beyond the tx-count's range (the ISA: up to {MAX_TX})"
                    self.defer(Unsupported(msg, line, 1))
        out = {}
        for b, seen in inits.items():
            if len({n for n, _ in seen}) > 1:
                listed = " and ".join(str(n) for n in sorted({n for n, _ in seen}))
                msg = f"{b} is initialised with counts {listed}: hrf restarts each phase with an mbarrier's one count"
                self.defer(Unsupported(msg, seen[-1][1], 1))
                continue
            out[b] = seen[0][0]
        return out

    def check_cluster_barriers(self, test: A.Test) -> None:
        """Each thread of a cluster arrives at its barrier and then waits on
        it, the same number of times, in straight-line code: a wait that
        some thread never arrives for blocks for ever (not modelled)."""
        if not self.cluster_barriers:
            return
        per: dict = {}
        for col, kind, tok in self.cluster_barriers:
            per.setdefault(col, []).append((kind, tok))
        rounds: dict = {}
        for k, th in enumerate(test.threads):
            kinds = [kind for kind, _ in per.get(k, [])]
            line, col = (per[k][0][1][2], per[k][0][1][3]) if k in per else (th.line, 1)
            # (an If holding no cluster barrier, as a wait's acquire on its success path, is no branch around one)
            branches = [
                s
                for s in th.body
                if isinstance(s, (A.While, A.Goto, A.Label))
                or (isinstance(s, A.If) and any("CLBAR" in getattr(x, "tags", ()) for x in A.memory_ops((s,))))
            ]
            if k in per and branches:
                self.defer(
                    Unsupported(f"{th.name}: a cluster barrier in a thread that branches is not modelled", line, col)
                )
            if len(kinds) % 2 or kinds != ["arrive", "wait"] * (len(kinds) // 2):
                msg = f"{th.name}: a cluster barrier is an arrive, then a wait (barrier.cluster.arrive; barrier.cluster.wait)"
                self.defer(ParseFailure(msg, line, col))
            rounds.setdefault((th.dev, th.qf), {})[th.name] = len(kinds) // 2
        for n in rounds.values():
            if len(set(n.values())) > 1:
                listed = ", ".join(f"{name} {k}" for name, k in n.items())
                msg = f"the threads of a cluster pass its barrier different numbers of times ({listed}): a wait would block for ever"
                self.defer(Unsupported(msg, test.threads[0].line, 1))


# hrf's orders and scopes as the ISA's qualifiers of these instructions
ISA_SEM = {"rel": "release", "rlx": "relaxed", "acq": "acquire"}
ISA_SCOPE = {v: k for k, v in SCOPES.items()}


def mbarrier_update(op: A.Rmw) -> tuple[str, int]:
    """An mbarrier update as the instruction it encodes: (`arrive`, its
    count), (`arrive.expect_tx`, bytes), (`expect_tx`, bytes) or
    (`complete_tx`, bytes): the one decoding of this module's encoding."""
    d = op.operand.value if isinstance(op.operand, A.Const) else 0
    if "ARRIVE" in op.tags and d % ARRIVAL == 0:
        return "arrive", -d // ARRIVAL
    if "ARRIVE" in op.tags:  # one arrival and the bytes it expects
        return "arrive.expect_tx", d + ARRIVAL
    return ("expect_tx", d) if d > 0 else ("complete_tx", -d)


def is_update(op, b: str) -> bool:
    """Is `op` an update of mbarrier `b` that `mbarrier_update` decodes (an arrive, expect_tx,
    complete_tx, a copy's complete-tx; not cp.async.mbarrier.arrive's increment)?"""
    return (
        isinstance(op, A.Rmw)
        and op.loc == b
        and "MBAR" in op.tags
        and "CPINC" not in op.tags
        and isinstance(op.operand, A.Const)
    )


def event_text(op) -> str | None:
    """An sm_90 form's events as the ISA writes the instruction (execution
    graphs, flagged events), or None for any other operation."""
    tags = getattr(op, "tags", ())
    loc = getattr(op, "loc", None)
    scope = ISA_SCOPE.get(getattr(op, "scope", None) or "", "")
    if "CPASYNC" in tags:
        if "CPREAD" in tags:
            return f"cp.async: read [{loc}]"
        if "CPWRITE" in tags:
            return f"cp.async: write [{loc}]"
        if "CPCOMMIT" in tags:
            return "cp.async.commit_group"
        if "CPINC" in tags:
            return f"cp.async.mbarrier.arrive [{loc}]: the pending count's increment"
        if "CPARRIVE" in tags:
            return f"cp.async.mbarrier.arrive [{loc}]: the arrive-on after the thread's earlier copies"
        return f"cp.async.wait_group {wait_group(tags)}"
    if "BCOMMIT" in tags:
        return "cp.async.bulk.commit_group"
    if "BGROUP" in tags and "BULK" not in tags:
        n = wait_group(tags, "BWAITR")
        return (
            f"cp.async.bulk.wait_group.read {n}"
            if n is not None
            else f"cp.async.bulk.wait_group {wait_group(tags, 'BWAIT')}"
        )
    if "WGMMA" in tags:
        if "WGOP" in tags:
            return f"wgmma.mma_async: read [{loc}]" if loc else "wgmma.mma_async: the proxy fence after its completion"
        if "WFENCE" in tags:
            return "wgmma.fence"
        if "WCOMMIT" in tags:
            return "wgmma.commit_group"
        if "WREGUSE" in tags:
            return "(an access to a register of a wgmma above)"
        return f"wgmma.wait_group {wait_group(tags, 'WWAIT')}"
    if "STASYNC" in tags:
        what = "complete_tx" if "MBAR" in tags else op.op if "RED" in tags else "write"
        return f"{'red' if 'RED' in tags or 'REDASYNC' in tags else 'st'}.async: {what} [{loc}]"
    if "BULK" in tags:
        what = {
            A.Load: f"read [{loc}]",
            A.Store: f"write [{loc}]",
            A.Fence: "the proxy fence after its completion",
            A.Rmw: f"{op.op} [{loc}]" if "RED" in tags else f"complete_tx [{loc}]",
        }
        multicast = " (multicast)" if "MULTICAST" in tags else ""
        return f"cp.{'reduce.' * ('BREDUCE' in tags)}async.bulk{'.tensor' * ('TENSOR' in tags)}{multicast}: {what.get(type(op), '')}"
    if "CLBAR" in tags:
        return f"barrier.cluster.{'arrive' if op.arrive else 'wait'}.{ISA_SEM[op.order or 'acq']}"
    if "MBINIT" in tags:
        if isinstance(op, A.Store) and isinstance(op.value, A.Const):
            return f"mbarrier.init [{loc}], {op.value.value // ARRIVAL}"
        return "fence.mbarrier_init.release.cluster"
    if "MBDONE" in tags:
        return "(its phase complete, the next begun)"
    if "MBSTALE" in tags:
        return "(the wait above: its state from before the preceding phase)"
    if "MBSEEN" in tags and "MBWAIT" not in tags:
        return "(the relaxed wait: its phase seen complete)"
    if "MBWAIT" in tags:
        kind = "try_wait" if "TRYWAIT" in tags else "test_wait"
        return f"mbarrier.{kind}.{scope} [{loc}]" if loc else f"(the wait's acquire.{scope}: its phase complete)"
    if "MBAR" in tags and isinstance(op, A.Rmw):
        kind, n = mbarrier_update(op)
        prefix = "" if kind == "complete_tx" else "mbarrier."
        kind += ".noComplete" * ("NOCOMPLETE" in tags)
        text = f"{prefix}{kind}.{ISA_SEM.get(op.order, op.order)}.{scope} [{loc}]"
        return text + (f", {n}" if kind != "arrive" or n > 1 else "")
    return None
