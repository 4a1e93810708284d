"""A litmus test as PTX: each thread's instructions, as `hrf run` puts them
into a CUDA kernel's inline assembly.

[GPU15]'s PTX tests keep their own instructions (`ld.cg`, `membar.gl`,
`atom.cas`, ...); Dat3M's PTX keeps its (`ld.acquire.gpu`,
`fence.sc.cta`, ...); C and OpenCL tests are lowered with the C++-to-PTX
mapping proved correct in [PTX19] (NVIDIA's atomics ABI): relaxed
accesses `ld/st/atom.relaxed.s`, acquire loads `ld.acquire.s`, release
stores `st.release.s`, seq_cst accesses a `fence.sc.s` before an acquire
load, a release store or an acq_rel RMW, fences `fence.acq_rel.s` (acquire,
release, acq_rel) or `fence.sc.s`, with scopes work-group `cta`, device
`gpu` and all devices `sys` (a narrower OpenCL scope widened to `cta`,
which only strengthens). Non-atomic accesses are plain (weak) `ld`/`st`.

A location in shared memory (OpenCL's `local`, [GPU15]'s `x: shared`,
hrf's PTX `x @ shared P1`) is accessed through the `.shared` state space
(`ld.shared`, `atom.shared`, ...: the generic address converted with
`cvta.to.shared`); each instance has its own copy in the shared memory of
the block that runs its CTA (cuda.py); a bulk copy's or sm_80's cp.async's
destination has 16 aligned bytes of it (the instruction as written, its
completion as written: `cp.async.commit_group`, `.wait_group N`,
`cp.async.mbarrier.arrive{.noinc}`), as has the source of a bulk copy or a
bulk reduction to global memory (with `cp.async.bulk.commit_group` and
`.wait_group{.read} N` as written; its destination's global copies padded
to 16 bytes). What has no PTX form here is
refused by name before anything runs (`NotRunnable`): proxies and aliases,
a shared location that threads of two CTAs of no one cluster access
(a cluster's: `mapa`, `in_cluster`), bulk copies of other than 16 bytes,
bulk copies between shared memories, bulk reductions of 64-bit elements,
several clusters of several CTAs, remote-scope promotion, computed
addresses and pointers, and the CTA barriers that could leave a thread
waiting forever or that depend on run-time values (`barrier_plan`).

A CTA barrier (Dat3M's `bar.cta.sync n[, resource[, count]]`, the ISA's
`bar.sync a[, b]` and `bar.arrive a, b`, OpenCL's `barrier(flags)`) is
`barrier.sync id, count` (`barrier.arrive`) at one of the instance's own
named barriers: each barrier of the test a CTA holds (Dat3M: its number and
resource; OpenCL: the work-group's one barrier, passed in order) is one of
them, and the count is in whole warps: placement gives every thread of a
test with barriers a warp of its own, whose spare lanes run its code in
step (cuda.py), so a thread count q of the test (Dat3M's, the ISA's b, as
the models read it: test threads) is q warps. The form as written: `bar.sync`
(aligned: the warp, in step, passes it together) for `bar` and
`barrier...aligned`, `barrier.sync` otherwise and for OpenCL.

Every value is 32 bits (`.b32`); each thread's code is one `asm volatile`
block whose operands are its observed registers (outputs), a time-out flag
(output: a spin loop that met its bound) and the addresses of the
locations it touches (inputs). Backward jumps count down a spin budget.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NoReturn, TypeGuard

from ..errors import UnsupportedFeature
from ..litmus import ast as A
from ..litmus.ptx_hopper import (
    ARRIVAL,
    HOPPER,
    ISA_SCOPE,
    ISA_SEM,
    as_written,
    copy_size,
    is_phase_marker,
    mbarrier_update,
    mbarriers,
    wait_group,
    wait_read,
)
from ..mappings.axiomatic import SCOPES as SCOPE  # hrf's scopes -> PTX's, one table with `hrf map`


class NotRunnable(UnsupportedFeature):
    """A test, or an instruction of one, that `hrf run` cannot put on a GPU."""


MEMBAR = {"wg": "cta", "dev": "gl", "all": "sys"}
ARITH = {"+": "add.s32", "-": "sub.s32", "*": "mul.lo.s32", "&": "and.b32", "|": "or.b32", "^": "xor.b32"}
COMPARE = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
UNSIGNED_COMPARE = ("lo", "ls", "hi", "hs")  # PTX's setp on unsigned types, as written
COMPARE.update({c: c for c in UNSIGNED_COMPARE})
# the sm_90 forms (and sm_80's cp.async) lowered as written: mbarriers, the async proxy, cluster
# barriers, cp.async, bulk copies into shared memory (PTX ISA 8.6's too), to global memory and
# their bulk async-groups, bulk reductions to global memory; the rest of HOPPER is refused by name
LOWERED_FORMS = frozenset({"MBAR", "ASYNC", "CLBAR", "CPASYNC", "BGROUP", "BREDUCE", "BULKCTA"})
# a bulk reduction's operation as written (hrf run's words are 32 bits: .u32, .s32 for signed min and max, .b32)
BULK_REDUCE = {
    "add": "add.u32",
    "umin": "min.u32",
    "min": "min.s32",
    "umax": "max.u32",
    "max": "max.s32",
    "inc": "inc.u32",
    "dec": "dec.u32",
    "and": "and.b32",
    "or": "or.b32",
    "xor": "xor.b32",
}
ATOM_OP = {
    "add": "add.u32",
    "sub": None,
    "and": "and.b32",
    "or": "or.b32",
    "xor": "xor.b32",
    "exch": "exch.b32",
    "min": "min.s32",
    "max": "max.s32",
    "umin": "min.u32",
    "umax": "max.u32",
    "inc": "inc.u32",
    "dec": "dec.u32",
}
PROXY_TAGS = {"TEX", "SUR", "CON", "ALIAS"}


@dataclass
class Access:
    """A memory instruction of a thread, as the compiled-code check looks for it."""

    kind: str  # ld, st, atom, red, fence
    ptx: str  # the instruction's name with its qualifiers (`ld.relaxed.gpu.global.u32`)
    loc: str | None = None
    size: int = 4  # the bytes it moves (a cp.async's cp-size)


@dataclass
class ThreadCode:
    name: str
    index: int
    locs: list[str]  # per access, the location whose address it takes (its own operand: no two
    # accesses share an address register, so the assembler cannot merge them)
    words: list[int]  # per access, the locations from it that it reaches (a vector's elements: 2 or 4)
    observed: list[str]  # the thread's registers that the outcome reads
    outputs: list[str] = field(default_factory=list)  # every register, the observed first: loads stay live
    lines: list[str] = field(default_factory=list)  # PTX, operands as %N
    accesses: list[Access] = field(default_factory=list)
    spins: bool = False  # has a backward jump (counts down the spin budget)
    barriers: bool = False  # passes CTA barriers (takes the instance's first named barrier as an operand)

    @property
    def n_outputs(self) -> int:
        return len(self.outputs) + 1  # the last: the time-out flag


def _refuse(what: str, line: int = 0) -> NoReturn:
    where = f" (line {line})" if line else ""
    raise NotRunnable(f"cannot run on a GPU: {what}{where}")


def check_runnable(test: A.Test) -> None:
    """Refuse, by name, what `hrf run` cannot lower."""
    for i in test.init:
        if isinstance(i.value, str):
            _refuse(f"{i.loc} holds a pointer (&{i.value}): pointers have no lowering", i.line)
        if i.alias_of is not None:
            _refuse(f"{i.loc} aliases {i.alias_of}: aliases and proxies have no lowering", i.line)
        if i.mixed:
            _refuse(f"{i.loc} is accessed with several sizes: hrf run lowers an array of one size", i.line)
        if i.size is not None and (i.width or 4) != 4:
            _refuse(f"{i.loc} is an array of {i.width}-byte elements: hrf run's locations are 32-bit words", i.line)
    in_cluster(test)  # a cluster it cannot launch: refused
    for t in test.threads:
        for p in t.params:
            if p.points_to_pointer:
                _refuse(f"{p.name} holds a pointer: pointers have no lowering")
        for op in t.ops:
            line = getattr(op, "line", 0)
            tags = set(getattr(op, "tags", ()))
            hopper = tags & (set(HOPPER) - LOWERED_FORMS)
            if hopper:
                _refuse(f"{HOPPER[min(hopper)]} (sm_90): hrf run has no lowering of them yet", line)
            if "MMIO" in tags:
                _refuse(".mmio accesses, whose locations are a peer device's registers", line)
            if "MATRIX" in tags:
                _refuse("ldmatrix and stmatrix, a warp's collective accesses: hrf run runs each thread alone", line)
            if "BRED64" in tags:
                _refuse("a bulk reduction of 64-bit elements: hrf run's locations are 32-bit words", line)
            if getattr(op, "remote", False):
                _refuse("remote-scope promotion has no PTX form", line)
            asynchronous = "ASYNC" in getattr(op, "tags", ())  # sm_90's async proxy: bulk copies, its fences
            if set(getattr(op, "tags", ())) & PROXY_TAGS or (
                isinstance(op, A.Fence) and op.order == "proxy" and not asynchronous
            ):
                _refuse("a texture, surface or constant proxy access or proxy fence", line)
            if getattr(op, "offset", None) is not None and not isinstance(op.offset, A.Const):  # type: ignore[union-attr]
                _refuse("a computed address", line)
            if isinstance(op, A.Rmw) and op.expected is not None:
                _refuse("a compare-exchange whose expected value is in memory", line)
            if isinstance(op, A.Fence) and op.flags and "global" not in " ".join(op.flags).lower() and not asynchronous:
                _refuse(f"a fence on {'|'.join(op.flags)} alone: only global memory", line)
            if isinstance(op, A.DerefExpr):
                _refuse("a computed address", line)


# CTAs a cluster holds, portably (the ISA: 8; 16 with a non-portable size)
CLUSTER_CTAS = 8


def in_cluster(test: A.Test) -> bool:
    """Whether the test's CTAs run as one thread-block cluster (a PTX test
    whose threads are in one cluster of several CTAs: distributed shared
    memory, remote arrives and cluster barriers reach across them). Several
    clusters of several CTAs, or more CTAs than a cluster holds, are refused."""
    if test.arch != "PTX":
        return False
    clusters: dict = {}
    for t in test.threads:
        clusters.setdefault(t.qf, set()).add(t.wg)
    several = [q for q, ctas in clusters.items() if len(ctas) > 1]
    if not several:
        return False
    if len(clusters) > 1:
        _refuse("threads in several clusters, one of several CTAs: hrf run launches one cluster a test")
    members = clusters[several[0]]
    if len(members) > CLUSTER_CTAS or None in members:
        _refuse(f"a cluster of {len(members)} CTAs: hrf run launches clusters of up to {CLUSTER_CTAS} named CTAs")
    return True


def cta_of(t: A.Thread) -> tuple:
    """The CTA of a thread as placement groups them: its number within its
    cluster (PTX numbers CTAs so), or, with no CTA in the scope tree, its own."""
    return ("wg", t.qf, t.wg) if t.wg is not None else ("own", t.index)


def warp_of(t: A.Thread) -> tuple:
    """The warp of a thread as placement groups them: its sub-group, or its own."""
    return ("sg", t.sg) if t.sg is not None else ("own", t.index)


@dataclass(frozen=True)
class BarrierStep:
    """One CTA barrier a thread passes: the instance's `index`-th named
    barrier, waited at (or, `arrive`, only signalled) until `warps` whole
    warps have arrived."""

    index: int
    warps: int
    arrive: bool = False
    aligned: bool = False  # as the test writes it (`bar.sync`): the warp passes it together


@dataclass(frozen=True)
class BarrierPlan:
    """Each thread's barriers, in order (the threads without: none), and the
    named barriers an instance needs in one CTA (0: a test without)."""

    steps: dict
    ids: int = 0


# named barriers of a CTA: 16, the first the block's own (__syncthreads)
NAMED_BARRIERS = 16


def barrier_plan(test: A.Test) -> BarrierPlan:
    """The CTA barriers of a test as `hrf run` places them, refusing by name
    what could hang on a GPU or depends on values known at run time alone:
    a barrier in a thread that branches or loops (a time-out or a branch
    would leave its partners waiting), a barrier resource or thread count
    a thread computes, threads that share a warp (a barrier counts whole
    warps, and the warp's lanes run one thread's code in step: cuda.py),
    OpenCL work-groups whose threads pass different barriers (divergence),
    and barriers that can leave a thread waiting forever (every order of
    the CTA's arrivals is tried: `_may_hang`)."""
    bars = {t.index: [s for s in t.body if _cta_barrier(s)] for t in test.threads}
    if not any(_cta_barrier(s) for t in test.threads for s in A.walk_stmts(t.body)):
        return BarrierPlan({})
    ctas: dict = {}
    for t in test.threads:
        ctas.setdefault(cta_of(t), {}).setdefault(warp_of(t), []).append(t)
    for cta in ctas.values():
        for warp in cta.values():
            if len(warp) > 1:
                _refuse(f"{', '.join(t.name for t in warp)} share a warp in a test with CTA barriers (a warp a thread)")
    steps: dict = {}
    ids = 0
    for cta in ctas.values():
        threads = [t for warp in cta.values() for t in warp]
        keys: dict = {}
        for t in threads:
            nested = [s for s in A.walk_stmts(t.body) if _cta_barrier(s)]
            if len(nested) > len(bars[t.index]) or (
                nested and any(isinstance(s, (A.If, A.While, A.Goto, A.Label)) for s in t.body)
            ):
                _refuse(
                    f"a barrier in {t.name}, which branches or loops (its partners could wait forever)", nested[0].line
                )
        if test.arch in ("OpenCL", "C"):  # the work-group's barrier, its phases passed in order
            seqs = {tuple(s.label for s in bars[t.index]) for t in threads}
            if len(seqs) > 1:
                _refuse(
                    "the threads of a work-group pass different barriers (barrier divergence)",
                    bars[threads[0].index][0].line if bars[threads[0].index] else 0,
                )
        for t in threads:
            out = []
            for s in bars[t.index]:
                key = (
                    ("wg",)
                    if test.arch in ("OpenCL", "C")
                    else (s.label, s.resource is not None, _static(test, t, s.resource, s.line, "barrier resource"))
                )
                count = _static(test, t, s.quorum, s.line, "thread count")
                out.append(
                    BarrierStep(
                        keys.setdefault(key, len(keys)), count if count is not None else len(cta), s.arrive, s.aligned
                    )
                )
            steps[t.index] = out
        hang = _may_hang([steps[w[0].index] for w in cta.values()], [w[0].name for w in cta.values()])
        if hang:
            _refuse(
                f"its barriers can leave {hang} waiting forever (on a GPU, a hang)",
                bars[threads[0].index][0].line if bars[threads[0].index] else 0,
            )
        ids = max(ids, len(keys))
    if ids >= NAMED_BARRIERS:
        _refuse(f"{ids} barriers in one CTA, more than the {NAMED_BARRIERS - 1} named barriers a CTA lends")
    return BarrierPlan(steps, ids)


def _cta_barrier(s) -> TypeGuard[A.Barrier]:
    """A CTA barrier (not sm_90's cluster barrier, which every thread of the cluster passes)."""
    return isinstance(s, A.Barrier) and "CLBAR" not in s.tags


def cluster_rounds(t: A.Thread) -> int:
    """How many times a thread passes the cluster barrier (an arrive and a
    wait; the reader checks a cluster's threads agree): every other thread
    of its block passes it as many times (cuda.py)."""
    return sum(1 for s in t.body if isinstance(s, A.Barrier) and "CLBAR" in s.tags and s.arrive)


def ctas(test: A.Test) -> list:
    """The test's CTAs (`cta_of`) in the order placement numbers them: a CTA's
    number is its block's rank in the cluster (`in_cluster`)."""
    return list(dict.fromkeys(cta_of(t) for t in test.threads))


def _static(test: A.Test, t: A.Thread, e, line: int, what: str) -> int | None:
    """A barrier operand's value where it is known before the thread runs: a
    number, or a register no statement of the thread writes (its initial value)."""
    if e is None or isinstance(e, A.Const):
        return None if e is None else e.value
    if isinstance(e, A.Reg) and not any(isinstance(s, A.Assign) and s.reg == e.name for s in A.walk_stmts(t.body)):
        return next((ri.value for ri in test.reg_init if ri.thread == t.index and ri.reg == e.name), 0)
    _refuse(f"a {what} the thread computes (known at run time alone)", line)


def _may_hang(warps: list[list[BarrierStep]], names: list[str]) -> str | None:
    """Which warp can wait forever at a barrier, in some order of the warps'
    arrivals (each warp's barriers in turn; a barrier completes, releasing
    those waiting at it, when its count has arrived): None if none can."""
    State = tuple[tuple[int, ...], tuple[bool, ...], tuple[tuple[int, int], ...]]
    start: State = (tuple(0 for _ in warps), tuple(False for _ in warps), ())
    seen, todo = {start}, [start]
    while todo:
        pcs, waiting, counts = todo.pop()
        arrived: dict[int, int] = dict(counts)
        moves: list[State] = []
        for w, steps in enumerate(warps):
            if waiting[w] or pcs[w] == len(steps):
                continue
            st = steps[pcs[w]]
            n = arrived.get(st.index, 0) + 1
            npcs = pcs[:w] + (pcs[w] + 1,) + pcs[w + 1 :]
            nwait = list(waiting)
            nwait[w] = not st.arrive
            nar = dict(arrived)
            if n == st.warps:  # complete: its waiting warps go on
                nar.pop(st.index, None)
                for v in range(len(warps)):
                    if nwait[v] and warps[v][npcs[v] - 1].index == st.index:
                        nwait[v] = False
            else:
                nar[st.index] = n
            moves.append((npcs, tuple(nwait), tuple(sorted(nar.items()))))
        if not moves and any(waiting):
            w = waiting.index(True)
            return f"{names[w]} at its barrier {pcs[w]}"
        for m in moves:
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return None


def shared_locations(test: A.Test, cluster: bool = False) -> dict:
    """The test's locations in shared memory (and its mbarriers, which live
    there), each with a thread of the CTA that holds it: the one the test
    names (hrf's PTX: `x @ shared P1`), else the first that accesses it.
    One that threads of two CTAs reach is refused by name, unless the CTAs
    are one cluster's (`in_cluster`): then the others reach it by `mapa`."""
    names = {p.name for t in test.threads for p in t.params if p.region == "local"}
    names |= {i.loc for i in test.init if i.space is not None}
    owners = {i.loc: int(i.owner[1:]) for i in test.init if i.owner}
    touched = {t.index: set(A.locations_of(t.ops)) for t in test.threads}
    by_index = {t.index: t for t in test.threads}
    out: dict = {}
    for loc in test.all_locations():
        if loc not in names:
            continue
        holders = sorted(
            {k for k, locs in touched.items() if loc in locs} | ({owners[loc]} if loc in owners else set())
        )
        ctas = {cta_of(by_index[k]) for k in holders}
        if len(ctas) > 1 and not cluster:
            names_ = ", ".join(f"P{k}" for k in holders)
            _refuse(f"{loc} is in shared memory, which one CTA holds, and {names_} are in {len(ctas)} CTAs")
        if holders:
            out[loc] = owners.get(loc, holders[0])
    arrays = {i.loc: i for i in test.init if i.size is not None}
    # an array's elements, each a location lowered (`LoweredTest.cell`), in its CTA alike
    return {c: k for loc, k in out.items() for c in ([c for c, _ in arrays[loc].cells()] if loc in arrays else [loc])}


def observed_vars(test: A.Test) -> list:
    """The variables an outcome holds: the condition's, the `locations`
    clause's and the filter's, in order, once each."""
    seen: dict = {}
    props = [p for p in (test.condition.prop if test.condition else None, test.filter) if p is not None]
    for p in props:
        for v in A.prop_vars(p):
            seen.setdefault(v)
    for v in test.locations:
        if isinstance(v, (A.RegVar, A.LocVar)):
            seen.setdefault(v)
        else:
            _refuse(f"`{v}` in the locations clause: pointers have no lowering")
    return list(seen)


@dataclass(frozen=True)
class Around:
    """What a thread's code depends on beyond its own statements."""

    shared: frozenset = frozenset()  # the test's locations in shared memory
    barriers: tuple = ()  # the thread's CTA barriers, in order (barrier_plan)
    remote: dict = field(default_factory=dict)  # shared locations another CTA of the cluster holds: its rank


class _Emitter:
    """One thread's PTX."""

    def __init__(self, test: A.Test, th: A.Thread, observed: list[str], around: Around):
        self.test, self.th = test, th
        self.remote = around.remote  # the shared locations another CTA of the cluster holds, with its rank
        self.remote_addrs = 0  # .b32 registers holding shared::cluster addresses (mapa's)
        self.barriers = list(around.barriers)  # the thread's CTA barriers, in order (barrier_plan)
        self.shared = around.shared  # the locations in shared memory
        self.shared_addrs = 0  # .b64 registers holding shared-window addresses
        self.states = 0  # .b64 registers holding arrives' states
        self.state_of: dict = {}  # the test's register an arrive returned its state in -> that .b64 register
        self.locs: list[str] = []
        self.words: list[int] = []
        self.code = ThreadCode(th.name, th.index, self.locs, self.words, observed)
        self.arrays = {i.loc for i in test.init if i.size is not None}
        self.regs: list[str] = []
        self.temps = 0
        self.preds = 0
        self.labels = 0
        self.seen_labels: set[str] = set()
        self.out: list[str] = []

    # ------------------------------------------------------------ operands
    def reg(self, name: str) -> str:
        if name not in self.regs:
            self.regs.append(name)
        return f"hr_{name}"

    def temp(self) -> str:
        self.temps += 1
        return f"ht{self.temps - 1}"

    def pred(self) -> str:
        self.preds += 1
        return f"hp{self.preds - 1}"

    def label(self, hint: str) -> str:
        self.labels += 1
        return f"HG_{self.th.name}_{hint}{self.labels - 1}"

    def addr(self, loc: str, words: int = 1) -> str:
        """The address operand of a new access (numbered once the outputs are
        known), which reaches `words` locations from `loc` (a vector's
        elements); for a shared location, the generic address converted to
        the shared window first (the access names `.shared`)."""
        self.locs.append(loc)
        self.words.append(words)
        if loc in self.remote:  # distributed shared memory: the holder's copy, by its rank in the cluster
            self.shared_addrs += 1
            self.remote_addrs += 1
            wide, reg = f"hsa{self.shared_addrs - 1}", f"hra{self.remote_addrs - 1}"
            self.emit(f"cvta.to.shared.u64 {wide}, @A{len(self.locs) - 1};")
            self.emit(f"cvt.u32.u64 {reg}, {wide};")
            self.emit(f"mapa.shared::cluster.u32 {reg}, {reg}, {self.remote[loc]};")
            return f"[{reg}]"
        if loc in self.shared:
            self.shared_addrs += 1
            reg = f"hsa{self.shared_addrs - 1}"
            self.emit(f"cvta.to.shared.u64 {reg}, @A{len(self.locs) - 1};")
            return f"[{reg}]"
        return f"[@A{len(self.locs) - 1}]"

    def space(self, q: list[str], loc: str) -> list[str]:
        """An access's qualifiers with the state space of its location."""
        space = "shared::cluster" if loc in self.remote else "shared"
        return [(space if w == "global" and loc in self.shared else w) for w in q]

    def emit(self, text: str) -> None:
        self.out.append(text)

    # ------------------------------------------------------------ memory
    def qualifiers(self, op, kind: str) -> list[str]:
        """The PTX qualifiers of an access, by the test's dialect."""
        arch = self.test.arch
        if arch == "GPU_PTX":  # [GPU15]: the instruction as written
            if op.cache == "volatile":
                return ["volatile", "global"]
            return ([op.cache] if op.cache else []) + ["global"]
        if kind != "atom" and not op.atomic:
            cache = getattr(op, "cache", None)
            if cache is not None and cache.endswith("nc"):  # ld.global{.cop}.nc, as the ISA writes it
                return ["global", *cache.split(".")]
            # a weak access, with its cache operator as read (a hint: ld.cg, st.cs, ...)
            return ([op.cache] if getattr(op, "cache", None) not in (None, "volatile") else []) + ["global"]
        order = op.order or "rlx"
        if arch == "PTX" and getattr(op, "cache", None) == "volatile":  # ld.volatile / st.volatile, as written
            return ["volatile", "global"]
        if arch == "PTX":
            sem = {"rlx": "relaxed", "acq": "acquire", "rel": "release", "acq_rel": "acq_rel"}.get(order)
            if sem is None:
                _refuse(f"an access with order {order}", op.line)
            return [sem, SCOPE[op.scope], "global"]
        # C and OpenCL: the atomics ABI's row ([PTX19]; hrf.mappings.ptx_abi,
        # the mapping `hrf map` checks), its fences emitted around the access
        word = self.abi_row(op, {"ld": "load", "st": "store", "atom": "rmw"}[kind])[1]
        assert word is not None  # (an access row holds its access: Mapping.validate)
        sem = word.split(".")[1]
        return ["global"] if sem == "weak" else [sem, SCOPE[op.scope], "global"]

    def abi_row(self, op, kind: str) -> tuple[list[str], str | None, list[str]]:
        """(fences before, the access's word, fences after) of a C or OpenCL
        operation by the atomics ABI, as PTX instructions with their scope."""
        from ..mappings.axiomatic import order_of
        from ..mappings.ptx_abi import ABI

        before: list[str] = []
        after: list[str] = []
        access = None
        for w in ABI.row(kind, order_of(op), (self.test.path, op.line)).seq:
            if w.startswith("fence."):
                (after if access is not None else before).append(f"{w}.{SCOPE[op.scope]}")
            else:
                access = w
        return before, access, after

    def seq_cst_fence(self, op, kind: str = "", after: bool = False) -> None:
        """The fences the ABI puts before (or after) a C or OpenCL access."""
        if self.test.arch in ("PTX", "GPU_PTX"):
            return
        before, _, later = self.abi_row(op, kind)
        for f in later if after else before:
            self.access("fence", f, None)

    def access(self, kind: str, name: str, loc: str | None, operands: str = "", size: int = 4) -> None:
        self.code.accesses.append(Access(kind, name, loc, size))
        self.emit(f"{name} {operands};" if operands else f"{name};")

    def cell(self, op) -> str:
        """The location an access reaches: its own, or its array's element
        (`x[1]`: lowered, each element is a location, an array's consecutive)."""
        if op.loc in self.arrays:
            return f"{op.loc}[{op.offset.value if op.offset is not None else 0}]"
        return op.loc

    def load(self, op: A.Load, dst: str) -> None:
        self.seq_cst_fence(op, "load")
        loc = self.cell(op)
        q = self.space(self.qualifiers(op, "ld"), loc)
        self.access("ld", ".".join(["ld", *q, "u32"]), loc, f"{dst}, {self.addr(loc)}")
        self.seq_cst_fence(op, "load", after=True)

    def store(self, op: A.Store) -> None:
        self.seq_cst_fence(op, "store")
        v = self.value(op.value)
        loc = self.cell(op)
        q = self.space(self.qualifiers(op, "st"), loc)
        self.access("st", ".".join(["st", *q, "u32"]), loc, f"{self.addr(loc)}, {v}")
        self.seq_cst_fence(op, "store", after=True)

    def vector(self, s: A.AnyOrder) -> None:
        """A vector access (`ld.v2`, `st.v4`): the reader's elements, which
        lie in a row of an array, one instruction as written."""
        ops = s.accesses()
        first, n = ops[0], len(ops)
        if not all(isinstance(op, (A.Load, A.Store)) and op.loc in self.arrays for op in ops):
            _refuse("statements in an order the program does not fix, other than a vector access", s.line)
        loc = self.cell(first)
        kind = "st" if isinstance(first, A.Store) else "ld"
        q = self.space(self.qualifiers(first, kind), loc)
        name = ".".join([kind, *q, f"v{n}", "u32"])
        if kind == "ld":
            dsts = ", ".join(self.reg(x.reg) for x in s.body)  # type: ignore[union-attr]
            self.access("ld", name, loc, f"{{{dsts}}}, {self.addr(loc, n)}", 4 * n)
            return
        values = []
        for op in ops:  # a vector's registers (the ISA's braces hold registers): a constant moved into one
            v = self.value(op.value)  # type: ignore[union-attr]
            if isinstance(op.value, A.Const):  # type: ignore[union-attr]
                t = self.temp()
                self.emit(f"mov.b32 {t}, {v};")
                v = t
            values.append(v)
        self.access("st", name, loc, f"{self.addr(loc, n)}, {{{', '.join(values)}}}", 4 * n)

    def mbarrier_update(self, op: A.Rmw, dst: str | None = None) -> None:
        """An arrive, expect_tx or complete_tx on an mbarrier (the instruction the reader's encoding stands for)."""
        kind, n = mbarrier_update(op)
        sem = ISA_SEM[op.order] if kind.startswith("arrive") else "relaxed"
        space = "shared::cluster" if op.loc in self.remote else "shared::cta"
        name = f"mbarrier.{kind}.{sem}.{ISA_SCOPE[op.scope or 'wg']}.{space}.b64"
        if not kind.startswith("arrive"):
            self.access("mbar", name, op.loc, f"{self.addr(op.loc)}, {n}")
            return
        if op.loc in self.remote:  # a remote arrive returns no state (the ISA: the sink `_`)
            self.access("mbar", name, op.loc, f"_, {self.addr(op.loc)}" + (f", {n}" if n > 1 else ""))
            return
        # an arrive's state: opaque, a .b64 register of its own (a wait's operand, where the test names it)
        self.states += 1
        state = f"hmb{self.states - 1}"
        if dst is not None:
            self.state_of[dst] = state
        count = f", {n}" if kind != "arrive" or n > 1 else ""
        self.access("mbar", name, op.loc, f"{state}, {self.addr(op.loc)}{count}")

    def bulk_copy(self, read: A.Assign, write: A.Store, _fence: A.Fence, complete: A.ExprStmt) -> None:
        """`cp.async.bulk` from global to shared memory, its bytes' completion on an
        mbarrier: the reader's four statements (the async proxy's read and
        write, the implicit proxy fence, the complete_tx), one instruction."""
        assert isinstance(read.expr, A.Load) and isinstance(complete.expr, A.Rmw)
        _, size = mbarrier_update(complete.expr)
        if size != 16:  # an instance's copy of the destination is 16 bytes (cuda.py), the source's padding as many
            _refuse(f"a bulk copy of {size} bytes: hrf run copies 16", write.line)
        dst, src, bar = self.addr(write.loc), self.addr(read.expr.loc), self.addr(complete.expr.loc)
        into = "shared::cta" if "BULKCTA" in write.tags else "shared::cluster"  # PTX ISA 8.6's, or 8.0's
        name = f"cp.async.bulk.{into}.global.mbarrier::complete_tx::bytes"
        self.access("bulk", name, write.loc, f"{dst}, {src}, {size}, {bar}")

    def bulk_group_copy(self, read: A.Assign, write: A.Store | A.ExprStmt) -> None:
        """`cp.async.bulk.global.shared::cta.bulk_group` (a TMA store) or its
        reduction `cp.reduce.async.bulk...bulk_group.op.type`: the reader's
        read, write (or reduction) and implicit proxy fence, one instruction."""
        assert isinstance(read.expr, A.Load)
        dst = write.expr.loc if isinstance(write, A.ExprStmt) else write.loc  # type: ignore[union-attr]
        operands = f"{self.addr(dst)}, {self.addr(read.expr.loc)}, 16"
        if isinstance(write, A.Store):
            self.access("bulk", "cp.async.bulk.global.shared::cta.bulk_group", dst, operands)
            return
        assert isinstance(write.expr, A.Rmw)
        op = BULK_REDUCE[write.expr.op]
        self.access("bulk", f"cp.reduce.async.bulk.global.shared::cta.bulk_group.{op}", dst, operands)

    def async_copy(self, read: A.Assign, write: A.Store) -> None:
        """sm_80's `cp.async.ca|cg.shared.global [dst], [src], size`: the
        reader's two statements (the copy's read and write), one instruction."""
        assert isinstance(read.expr, A.Load)
        size = copy_size(read.expr.tags)
        kind = "cg" if "CPCG" in read.expr.tags else "ca"
        dst, src = self.addr(write.loc), self.addr(read.expr.loc)
        self.access("cpasync", f"cp.async.{kind}.shared.global", write.loc, f"{dst}, {src}, {size}", size)

    def copy_arrive(self, op: A.Rmw, noinc: bool) -> None:
        """`cp.async.mbarrier.arrive{.noinc}.shared::cta.b64 [b]`."""
        name = "cp.async.mbarrier.arrive" + (".noinc" if noinc else "") + ".shared::cta.b64"
        self.access("cpasync", name, op.loc, self.addr(op.loc))

    def mbarrier_wait(self, load: A.Load, phase: int | str, dst: str, acquire: bool) -> None:
        """A wait on the phase of a parity, or of an arrive's state (the test's
        register it returned it in), in the form written (test_wait or
        try_wait): its predicate as the register's 1 or 0."""
        p = self.pred()
        sem = "acquire" if acquire else "relaxed"
        kind = "try_wait" if "TRYWAIT" in load.tags else "test_wait"
        form = ".parity" if isinstance(phase, int) else ""
        operand = str(phase) if isinstance(phase, int) else self.state_of[self.reg(phase)]
        name = f"mbarrier.{kind}{form}.{sem}.{ISA_SCOPE[load.scope or 'wg']}.shared::cta.b64"
        self.access("mbar", name, load.loc, f"{p}, {self.addr(load.loc)}, {operand}")
        self.emit(f"selp.b32 {dst}, 1, 0, {p};")

    def rmw(self, op: A.Rmw, dst: str | None) -> None:
        if "CPARRIVE" in op.tags:  # an arrive-on with no increment before it
            self.copy_arrive(op, noinc=True)
            return
        if "MBAR" in op.tags:
            self.mbarrier_update(op, dst)
            return
        self.seq_cst_fence(op, "rmw")
        self._rmw(op, dst)
        self.seq_cst_fence(op, "rmw", after=True)

    def _rmw(self, op: A.Rmw, dst: str | None) -> None:
        loc = self.cell(op)
        q = self.space(["global"] if self.test.arch == "GPU_PTX" else self.qualifiers(op, "atom"), loc)
        operand = self.value(op.operand)
        if op.op in ("cas", "cas_old", "cas_always"):
            if op.expected_value is None:
                _refuse(f"atomic {op.op} without an expected value", op.line)
            expect = self.value(op.expected_value)
            name = ".".join(["atom", *q, "cas", "b32"])
            target = dst or self.temp()
            self.access("atom", name, loc, f"{target}, {self.addr(loc)}, {expect}, {operand}")
            if op.op == "cas" and dst is not None:  # C's compare-exchange returns success
                _refuse("a compare-exchange whose result is a success flag", op.line)
            return
        kind = ATOM_OP.get(op.op)
        if isinstance(op.update, A.BinOp) and op.update.op in ("+f32", "+f32ftz"):  # atom/red.add.f32, as written
            kind = "add.f32"
            if isinstance(op.operand, A.Const):  # an .f32 instruction's immediate: the float's exact bits
                operand = f"0f{op.operand.value & 0xFFFFFFFF:08X}"
        elif op.update is not None:
            _refuse("an atomic update of no PTX form", op.line)
        if op.op == "sub":  # PTX has no atom.sub: add the negation
            neg = self.temp()
            self.emit(f"neg.s32 {neg}, {operand};")
            operand, kind = neg, "add.u32"
        if kind is None:
            _refuse(f"atomic {op.op} has no PTX form", op.line)
        # PTX's red takes .relaxed and .release alone: an acquiring RMW whose
        # value nothing reads is an atom into a scratch register
        acquiring = any(w in ("acquire", "acq_rel") for w in q)
        if dst is None and op.op != "exch" and not acquiring:
            name = ".".join(["red", *q, kind])
            self.access("red", name, loc, f"{self.addr(loc)}, {operand}")
        else:
            name = ".".join(["atom", *q, kind])
            self.access("atom", name, loc, f"{dst or self.temp()}, {self.addr(loc)}, {operand}")

    def fence(self, op: A.Fence) -> None:
        if "BCOMMIT" in op.tags:
            self.access("bulkgroup", "cp.async.bulk.commit_group", None)
            return
        for prefix, name in (("BWAITR", "cp.async.bulk.wait_group.read"), ("BWAIT", "cp.async.bulk.wait_group")):
            n = wait_group(op.tags, prefix)
            if n is not None:
                self.access("bulkgroup", name, None, str(n))
                return
        if "CPCOMMIT" in op.tags:
            self.access("cpasync", "cp.async.commit_group", None)
            return
        n = wait_group(op.tags)
        if n is not None:
            self.access("cpasync", "cp.async.wait_group", None, str(n))
            return
        if "ASYNC" in op.tags:  # fence.proxy.async, for the state space the test names (all where none)
            space = ".global" if "global" in op.tags else ".shared::cta" if "local" in op.tags else ""
            self.access("fence", f"fence.proxy.async{space}", None)
            return
        if "MBINIT" in op.tags:
            self.access("fence", "fence.mbarrier_init.release.cluster", None)
            return
        if self.test.arch == "GPU_PTX":
            self.access("fence", f"membar.{MEMBAR[op.scope or 'all']}", None)
            return
        if self.test.arch == "PTX":
            sem = "sc" if op.order == "sc" else "acq_rel"
            self.access("fence", f"fence.{sem}.{SCOPE[op.scope]}", None)
            return
        self.seq_cst_fence(op, "fence")  # C and OpenCL: the ABI's row

    # ------------------------------------------------------------ expressions
    def value(self, e) -> str:
        """An operand holding e's value: a register, or an immediate."""
        if isinstance(e, A.Const):
            return str(e.value)
        if isinstance(e, A.Reg):
            return self.reg(e.name)
        t = self.temp()
        self.into(e, t)
        return t

    def into(self, e, dst: str) -> None:
        """Compute e into register dst."""
        if isinstance(e, A.Const):
            self.emit(f"mov.b32 {dst}, {e.value};")
        elif isinstance(e, A.Reg):
            self.emit(f"mov.b32 {dst}, {self.reg(e.name)};")
        elif isinstance(e, A.Load):
            self.load(e, dst)
        elif isinstance(e, A.Rmw):
            self.rmw(e, dst)
        elif isinstance(e, A.BinOp) and e.op in ARITH:
            a, b = self.value(e.left), self.value(e.right)
            if a.lstrip("-").isdigit():  # PTX wants a register first
                t = self.temp()
                self.emit(f"mov.b32 {t}, {a};")
                a = t
            self.emit(f"{ARITH[e.op]} {dst}, {a}, {b};")
        elif isinstance(e, (A.BinOp, A.UnOp)):
            p = self.predicate(e)
            self.emit(f"selp.b32 {dst}, 1, 0, {p};")
        else:
            _refuse(f"the expression {type(e).__name__}", getattr(e, "line", 0))

    def predicate(self, e) -> str:
        """A predicate register holding e != 0."""
        if isinstance(e, A.BinOp) and e.op in COMPARE:
            a, b = self.value(e.left), self.value(e.right)
            if a.lstrip("-").isdigit():
                t = self.temp()
                self.emit(f"mov.b32 {t}, {a};")
                a = t
            p = self.pred()
            self.emit(f"setp.{COMPARE[e.op]}.{'u32' if e.op in UNSIGNED_COMPARE else 's32'} {p}, {a}, {b};")
            return p
        if isinstance(e, A.UnOp) and e.op == "!":
            q = self.predicate(e.operand)
            p = self.pred()
            self.emit(f"not.pred {p}, {q};")
            return p
        if isinstance(e, A.BinOp) and e.op in ("&&", "||"):
            a, b = self.predicate(e.left), self.predicate(e.right)
            p = self.pred()
            self.emit(f"{'and' if e.op == '&&' else 'or'}.pred {p}, {a}, {b};")
            return p
        v = self.value(e)
        p = self.pred()
        self.emit(f"setp.ne.s32 {p}, {v}, 0;")
        return p

    # ------------------------------------------------------------ statements
    def body(self, stmts) -> None:
        stmts = as_written(stmts)  # (an mbarrier's phase markers are the model's, no instruction)
        k = 0
        while k < len(stmts):
            s = stmts[k]
            if _bulk_copy(stmts[k : k + 4]):
                self.bulk_copy(*stmts[k : k + 4])
                k += 4
                continue
            if _bulk_group_copy(stmts[k : k + 3]):
                self.bulk_group_copy(*stmts[k : k + 2])
                k += 3
                continue
            if _async_copy(stmts[k : k + 2]):
                self.async_copy(*stmts[k : k + 2])
                k += 2
                continue
            if _tagged(s, "CPINC") and k + 1 < len(stmts) and _tagged(stmts[k + 1], "CPARRIVE"):
                self.copy_arrive(stmts[k + 1].expr, noinc=False)  # the increment and its arrive-on: one instruction
                k += 2
                continue
            wait = wait_read(s)
            if wait is not None:  # a wait, and on its success path its acquire (the reader's pair)
                nxt = stmts[k + 1] if k + 1 < len(stmts) else None
                acquire = isinstance(nxt, A.If) and any("MBWAIT" in getattr(x, "tags", ()) for x in nxt.then)
                self.mbarrier_wait(*wait, self.reg(s.reg), acquire)
                k += 2 if acquire else 1
                continue
            self.stmt(s)
            k += 1

    def stmt(self, s) -> None:
        if isinstance(s, A.Assign):
            if s.pointer:
                _refuse("a pointer register", s.line)
            if s.expr is not None:
                self.into(s.expr, self.reg(s.reg))
            else:
                self.reg(s.reg)
        elif isinstance(s, A.Store) and "MBINIT" in s.tags:
            count = s.value.value // ARRIVAL if isinstance(s.value, A.Const) else 1
            self.access("mbar", "mbarrier.init.shared::cta.b64", s.loc, f"{self.addr(s.loc)}, {count}")
        elif isinstance(s, A.Store):
            self.store(s)
        elif isinstance(s, A.ExprStmt):
            if isinstance(s.expr, A.Rmw):
                self.rmw(s.expr, None)
            elif isinstance(s.expr, A.Load):
                self.load(s.expr, self.temp())
            else:
                self.value(s.expr)
        elif isinstance(s, A.Fence):
            self.fence(s)
        elif isinstance(s, A.Label):
            self.seen_labels.add(s.name)
            self.emit(f"HL_{self.th.name}_{s.name}:")
        elif isinstance(s, A.Goto):
            self.jump(f"HL_{self.th.name}_{s.label}", backward=s.label in self.seen_labels)
        elif isinstance(s, A.If):
            p = self.predicate(s.cond)
            if len(s.then) == 1 and isinstance(s.then[0], A.Goto) and not s.orelse:
                g = s.then[0]
                self.jump(f"HL_{self.th.name}_{g.label}", backward=g.label in self.seen_labels, pred=p)
                return
            other, end = self.label("else"), self.label("fi")
            self.emit(f"@!{p} bra {other};")
            self.body(s.then)
            self.emit(f"bra {end};")
            self.emit(f"{other}:")
            self.body(s.orelse)
            self.emit(f"{end}:")
        elif isinstance(s, A.While):
            top, end = self.label("while"), self.label("done")
            self.emit(f"{top}:")
            p = self.predicate(s.cond)
            self.emit(f"@!{p} bra {end};")
            self.body(s.body)
            self.jump(top, backward=True)
            self.emit(f"{end}:")
        elif isinstance(s, A.Barrier) and "CLBAR" in s.tags:  # sm_90's cluster barrier, non-aligned
            if s.arrive:
                self.access("clbar", f"barrier.cluster.arrive.{ISA_SEM[s.order or 'rel']}", None)
            else:
                self.access("clbar", "barrier.cluster.wait" + (".acquire" if s.order == "acq" else ""), None)
        elif isinstance(s, A.Barrier):
            self.barrier(s)
        elif isinstance(s, A.AnyOrder):
            self.vector(s)
        else:
            _refuse(f"the statement {type(s).__name__}", getattr(s, "line", 0))

    def barrier(self, s: A.Barrier) -> None:
        """A CTA barrier: the instance's named barrier for it (its first,
        @BAR, plus the barrier's index), the count in whole warps."""
        if not self.barriers:
            _refuse("a barrier placement has not planned", s.line)
        step = self.barriers.pop(0)
        self.code.barriers = True
        self.emit(f"add.u32 hbar, @BAR, {step.index};")
        name = ("bar." if step.aligned else "barrier.") + ("arrive" if step.arrive else "sync")  # as written
        self.access("bar", name, None, f"hbar, {step.warps * 32}")

    def jump(self, target: str, backward: bool, pred: str | None = None) -> None:
        """A jump; a backward one first spends one unit of the spin budget
        (none left: the thread stops, its time-out flag set)."""
        guard = f"@{pred} " if pred else ""
        if not backward:
            self.emit(f"{guard}bra {target};")
            return
        self.code.spins = True
        skip = self.label("stay")
        if pred:
            self.emit(f"@!{pred} bra {skip};")
        self.emit("sub.u32 hspin, hspin, 1;")
        self.emit("setp.eq.u32 hpspin, hspin, 0;")
        self.emit(f"@hpspin bra HL_{self.th.name}_timeout;")
        self.emit(f"bra {target};")
        if pred:
            self.emit(f"{skip}:")


def _tagged(s, tag: str) -> bool:
    """Whether statement `s` is an RMW whose tags hold `tag`."""
    return isinstance(s, A.ExprStmt) and isinstance(s.expr, A.Rmw) and tag in s.expr.tags


def _copy_read_write(stmts: list, tag: str) -> bool:
    """Whether a copy's read (into a register, tagged `tag`) and its write start `stmts`."""
    return (
        len(stmts) >= 2
        and isinstance(stmts[0], A.Assign)
        and isinstance(stmts[0].expr, A.Load)
        and tag in stmts[0].expr.tags
        and isinstance(stmts[1], A.Store)
    )


def _async_copy(stmts: list) -> bool:
    """Whether a cp.async's two statements (litmus/ptx_hopper.py) start `stmts`."""
    return len(stmts) == 2 and _copy_read_write(stmts, "CPREAD") and "CPWRITE" in stmts[1].tags


def _bulk_copy(stmts: list) -> bool:
    """Whether a bulk copy's four statements (litmus/ptx_hopper.py) start `stmts`."""
    return (
        len(stmts) == 4
        and _copy_read_write(stmts, "BULK")
        and isinstance(stmts[2], A.Fence)
        and isinstance(stmts[3], A.ExprStmt)
        and isinstance(stmts[3].expr, A.Rmw)
    )


def _bulk_group_copy(stmts: list) -> bool:
    """Whether a bulk-group copy's (or reduction's) three statements start `stmts`."""
    if len(stmts) != 3 or not isinstance(stmts[0], A.Assign) or not isinstance(stmts[0].expr, A.Load):
        return False
    write = stmts[1].expr if isinstance(stmts[1], A.ExprStmt) else stmts[1]
    return (
        "BGROUP" in stmts[0].expr.tags
        and isinstance(write, (A.Store, A.Rmw))
        and "BGROUP" in write.tags
        and isinstance(stmts[2], A.Fence)
        and "BGROUP" in stmts[2].tags
    )


def lower_thread(test: A.Test, th: A.Thread, observed: list[str], around: Around | None = None) -> ThreadCode:
    """One thread's PTX: declarations, its initial registers, its body,
    then its registers (the observed first) and time-out flag into the
    outputs, then the address operands of its accesses, the spin budget
    and (a thread passing barriers) the instance's first named barrier."""
    em = _Emitter(test, th, observed, around or Around())
    for r in observed:
        em.reg(r)
    init = {ri.reg: ri.value for ri in test.reg_init if ri.thread == th.index}
    em.body(th.body)
    for r in init:
        em.reg(r)
    code = em.code
    code.outputs = list(observed) + [r for r in em.regs if r not in observed]
    n_out = code.n_outputs
    lines = ["{"]
    if em.regs:
        lines.append(".reg .b32 " + ", ".join(f"hr_{r}" for r in em.regs) + ";")
    if em.temps:
        lines.append(".reg .b32 " + ", ".join(f"ht{k}" for k in range(em.temps)) + ";")
    if em.shared_addrs:
        lines.append(".reg .b64 " + ", ".join(f"hsa{k}" for k in range(em.shared_addrs)) + ";")
    if em.remote_addrs:
        lines.append(".reg .b32 " + ", ".join(f"hra{k}" for k in range(em.remote_addrs)) + ";")
    if em.states:
        lines.append(".reg .b64 " + ", ".join(f"hmb{k}" for k in range(em.states)) + ";")
    lines.append(".reg .b32 hspin;" if not code.barriers else ".reg .b32 hspin, hbar;")
    lines.append(".reg .pred hpspin" + "".join(f", hp{k}" for k in range(em.preds)) + ";")
    for r in em.regs:  # registers start at their initial value, 0 by default
        lines.append(f"mov.b32 hr_{r}, {init.get(r, 0)};")
    lines.append("mov.b32 hspin, @SPIN;")
    lines += em.out
    done = len(code.outputs)
    lines.append(f"mov.b32 %{done}, 0;")
    lines.append(f"bra HL_{th.name}_end;")
    lines.append(f"HL_{th.name}_timeout:")
    lines.append(f"mov.b32 %{done}, 1;")
    lines.append(f"HL_{th.name}_end:")
    for k, r in enumerate(code.outputs):
        lines.append(f"mov.b32 %{k}, hr_{r};")
    lines.append("}")
    operand = re.compile(r"@A(\d+)|@SPIN|@BAR")

    def number(m):
        if m.group(0) == "@BAR":
            return f"%{n_out + len(code.locs) + 1}"
        return f"%{n_out + (int(m.group(1)) if m.group(1) else len(code.locs))}"

    code.lines = [operand.sub(number, line) for line in lines]
    return code


@dataclass
class LoweredTest:
    test: A.Test
    threads: list[ThreadCode]
    variables: list  # observed variables (RegVar / LocVar), in outcome order
    locations: list[str]  # every location, in memory order
    init: dict  # location -> initial value
    domains: list[list[int]]  # per variable: the values the device histogram counts (one list, shared)
    # the locations in shared memory, each with a thread of the CTA that holds it
    shared: dict = field(default_factory=dict)
    # the mbarriers among them, each with its count where the init block sets one
    mbarriers: dict = field(default_factory=dict)
    barriers: BarrierPlan = field(default_factory=lambda: BarrierPlan({}))  # the CTA barriers, per thread
    bulk: frozenset = frozenset()  # the shared locations bulk copies and cp.async write (16 aligned bytes an instance)
    cluster: bool = False  # the test's CTAs run as one thread-block cluster
    cluster_rounds: tuple = ()  # per CTA (`ctas` order), times its threads pass the cluster barrier
    # each array's element of each location (0 for a location of its own): an array's elements are
    # consecutive locations, laid out in a row in each instance's copy of its first (cuda.py)
    cell: dict = field(default_factory=dict)
    rows: dict = field(default_factory=dict)  # an array's first element -> the words of its row (`row_words`)


def lower(test: A.Test) -> LoweredTest:
    """The PTX of every thread of a test, and what its outcome observes."""
    if test.arch not in ("GPU_PTX", "PTX", "OpenCL", "C"):
        _refuse(f"tests written in {test.arch}")
    check_runnable(test)
    cluster = in_cluster(test)  # distributed shared memory: a CTA's shared memory, reached from the cluster's
    shared = shared_locations(test, cluster)
    plan = barrier_plan(test)
    mbars = mbarriers(test)
    if plan.ids and mbars:  # the spare lanes that keep a warp in step would arrive on no mbarrier
        _refuse("mbarriers in a test with CTA barriers: not yet")
    variables = observed_vars(test)
    threads = []
    order = ctas(test)
    by_index = {t.index: t for t in test.threads}
    for th in test.threads:
        regs = [v.reg for v in variables if isinstance(v, A.RegVar) and v.thread == th.index]
        remote = {  # another CTA's shared memory (a cluster's): its rank, the holder's number in `ctas`
            loc: order.index(cta_of(by_index[k])) for loc, k in shared.items() if cta_of(by_index[k]) != cta_of(th)
        }
        steps = tuple(plan.steps.get(th.index, ()))
        threads.append(lower_thread(test, th, regs, Around(frozenset(shared), steps, remote)))
    arrays = {i.loc: i for i in test.init if i.size is not None}
    locs = [
        c for loc in test.all_locations() for c in ([c for c, _ in arrays[loc].cells()] if loc in arrays else [loc])
    ]
    for v in variables:
        if isinstance(v, A.LocVar) and v.loc not in locs:
            locs.append(v.loc)
    init = {i.loc: int(i.value) for i in test.init if isinstance(i.value, int) and i.size is None}
    init |= {c: v for i in arrays.values() for c, v in i.cells()}
    cell = {c: k for i in arrays.values() for k, (c, _) in enumerate(i.cells())}
    rows = {i.cells()[0][0]: row_words(len(i.cells())) for i in arrays.values()}
    values = domain(test)
    bulk = frozenset(  # and cp.async's destinations, a bulk-group copy's source: 16 aligned bytes each too
        e.loc
        for t in test.threads
        for s in A.walk_stmts(t.body)
        for e in (s, getattr(s, "expr", None))  # a statement, and the copy's read an assignment holds
        if (isinstance(e, A.Store) and ("BULK" in e.tags or "CPWRITE" in e.tags) and e.loc in shared)
        or (isinstance(e, A.Load) and "BGROUP" in e.tags and e.loc in shared)
    )
    return LoweredTest(
        test,
        threads,
        variables,
        locs,
        init,
        [values] * len(variables),
        shared,
        mbars,
        plan,
        bulk,
        cluster,
        tuple(max(cluster_rounds(t) for t in test.threads if cta_of(t) == c) for c in order),
        cell,
        rows,
    )


def row_words(n: int) -> int:
    """The words of an instance's copy of an array of n elements: a power of
    two, so that a vector's address is aligned to its size ([PTXISA]
    "Vectors": aligned to a multiple of their overall size)."""
    return 1 << (n - 1).bit_length()


def needs(lt: LoweredTest) -> tuple[int, str] | None:
    """The least GPU architecture a lowered test runs on, with what needs it
    (None: any hrf run takes, sm_70 and later)."""
    tags = {tag for th in lt.test.threads for op in th.ops for tag in getattr(op, "tags", ())}
    found = [HOPPER[t] for t in sorted(tags & set(HOPPER))] + (["thread-block clusters"] if lt.cluster else [])
    if found == [HOPPER["CPASYNC"]]:  # sm_80's alone
        return 80, found[0]
    return (90, ", ".join(found)) if found else None


def refuse_below(lt: LoweredTest, arch: str) -> None:
    """Refuse by name to compile a test for an architecture older than it needs."""
    need = needs(lt)
    number = int(re.sub(r"\D", "", arch) or 0)
    if need is not None and number < need[0]:
        _refuse(f"{need[1]} need sm_{need[0]} or later, not {arch}")


def constants(test: A.Test) -> set[int]:
    """Every number a test names: initial values, constants of its code,
    of its condition: the values an outcome's variables most likely take."""
    out = {0}
    # (an mbarrier's state and the numbers of its encoding are no value a test's variable takes)
    mbars = mbarriers(test)
    out |= {i.value for i in test.init if isinstance(i.value, int) and i.loc not in mbars}
    out |= {ri.value for ri in test.reg_init}
    for t in test.threads:
        for s in A.walk_stmts(t.body):
            if wait_read(s) is not None or is_phase_marker(s) or "MBAR" in getattr(getattr(s, "expr", s), "tags", ()):
                continue
            for e in A.exprs_of(s):
                for x in A.walk_expr(e):
                    for c in (x, getattr(x, "expected_value", None)):  # a compare-exchange's expected value too
                        if isinstance(c, A.Const):
                            out.add(c.value)
    for p in (test.condition.prop if test.condition else None, test.filter):
        if p is not None:
            for x in A.prop_leaves(p):
                if isinstance(x, A.PAtom) and isinstance(x.value, int):
                    out.add(x.value)
                elif isinstance(x, A.PCompare):
                    out |= {v for v in (x.left, x.right) if isinstance(v, int)}
    return out


def domain(test: A.Test) -> list[int]:
    """The values the device counts in its histogram, for every variable
    (the test's numbers, as 32-bit words; any other value is recorded
    apart, exactly)."""
    return sorted({x & 0xFFFFFFFF for x in constants(test)})
