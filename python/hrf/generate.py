"""Families of litmus tests from cycles of relations,
in the manner of herd's diy: a cycle of edges

    Rfe  write -> read of another thread, same location (reads-from)
    Fre  read -> write of another thread, same location (from-read)
    Coe  write -> write of another thread, same location (coherence)
    PodXY  X then Y in program order of one thread, different locations

fixes the threads, their accesses and the final condition (the outcome the
cycle describes). Each test is crossed with an annotation per access (a
plain data access, or an atomic with an order, a scope and optionally
remote promotion) and a placement of its threads in the scope tree.

Data accesses that follow an atomic read in a thread run only when that
read saw the value the cycle expects (`if (r == v)`), as the papers'
examples do with spin loops ([HRF14] Fig. 6) or guards (RSP tests): without the
guard a data read after a failed flag read races under every model.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from . import program as _program
from .errors import check_whole
from .litmus import ast as A

EDGES = {  # name: (source kind, target kind, external?, same location?)
    "Rfe": ("W", "R", True, True),
    "Fre": ("R", "W", True, True),
    "Coe": ("W", "W", True, True),
    "PodWW": ("W", "W", False, False),
    "PodWR": ("W", "R", False, False),
    "PodRW": ("R", "W", False, False),
    "PodRR": ("R", "R", False, False),
}
LOCS = ["x", "y", "z", "w"]


@dataclass(frozen=True)
class Access:
    thread: int
    kind: str  # R or W
    loc: str


def cycles(max_edges: int = 6, max_threads: int = 4, edges: Sequence[str] = tuple(EDGES)) -> list[tuple]:
    """Every cycle of at most `max_edges` edges, one per rotation class,
    that makes 2..max_threads threads, alternates po and communication as
    diy does (no two po edges in a row), and closes."""
    out = []
    seen = set()
    for n in range(2, max_edges + 1):
        for cyc in itertools.product(edges, repeat=n):
            rot = min(tuple(cyc[i:] + cyc[:i]) for i in range(n))
            if rot in seen:
                continue
            seen.add(rot)
            if _valid(rot, max_threads):
                out.append(rot)
    return out


# diy's names for the classic shapes whose cycle has only the edges above
# (Alglave, Maranget, Tautschnig, "Herding cats", 2014, and diy7's docs).
NAMED = {
    "MP": "PodWW Rfe PodRR Fre",
    "SB": "PodWR Fre PodWR Fre",
    "LB": "PodRW Rfe PodRW Rfe",
    "2+2W": "PodWW Coe PodWW Coe",
    "R": "PodWW Coe PodWR Fre",
    "S": "PodWW Rfe PodRW Coe",
    "WRC": "Rfe PodRW Rfe PodRR Fre",
    "RWC": "Rfe PodRR Fre PodWR Fre",
    "WRW+2W": "Rfe PodRW Coe PodWW Coe",
    "IRIW": "Rfe PodRR Fre Rfe PodRR Fre",
    "ISA2": "PodWW Rfe PodRW Rfe PodRR Fre",
}


def parse_cycle(text: str) -> tuple:
    """A cycle in diy's notation (`"Rfe PodRR Fre PodWW"`, spaces or commas)
    or by a name of `NAMED` (`"MP"`), as the rotation the family uses.
    InvalidArgument when an edge is unknown or the edges do not close."""
    from .errors import InvalidArgument

    if not isinstance(text, str) or not text.strip():
        raise InvalidArgument(f"a cycle is a string of diy edges or a name, not {text!r}")
    named = {k.upper(): v for k, v in NAMED.items()}
    spelled = named.get(text.strip().upper(), text)
    words = tuple(w for w in spelled.replace(",", " ").split() if w)
    bad = [w for w in words if w not in EDGES]
    if bad:
        raise InvalidArgument(
            f"cycle {text!r}: edge(s) {', '.join(bad)} not generated (fences, dependencies and same-location po "
            f"edges are not yet); edges: {', '.join(EDGES)}; names: {', '.join(NAMED)}"
        )
    if len(words) < 2:
        raise InvalidArgument(f"cycle {text!r}: a cycle has at least two edges")
    rot = min(tuple(words[i:] + words[:i]) for i in range(len(words)))
    if not _valid(rot, len(words)):
        raise InvalidArgument(
            f"cycle {text!r} does not make a test: each edge's target kind (R/W) must be the next edge's source "
            "kind, po edges must be separated by communication edges, and the cycle must visit 2 or more threads "
            "and come back"
        )
    return rot


def _valid(cyc, max_threads) -> bool:
    n = len(cyc)
    ext = sum(EDGES[e][2] for e in cyc)
    if not 2 <= ext <= max_threads:
        return False
    for i in range(n):
        a, b = EDGES[cyc[i]], EDGES[cyc[(i + 1) % n]]
        if a[1] != b[0]:
            return False  # kinds must chain
        if not a[2] and not b[2]:
            return False  # one po edge per thread step (diy's Pod, not Pod;Pod)
    return _build(cyc) is not None


def _build(cyc):
    """Accesses of a cycle: thread and location of each edge's source."""
    n = len(cyc)
    # start right after an external edge so that thread 0 begins the cycle
    start = next(i for i in range(n) if EDGES[cyc[i - 1]][2])
    order = [cyc[(start + i) % n] for i in range(n)]
    # k program-order edges make k same-location segments; the last one wraps
    # around to the first (diy). One Pod edge alone cannot close the cycle.
    npod = sum(not EDGES[e][3] for e in order)
    if npod == 1:
        return None
    accesses = []
    thread, seg = 0, 0
    for _i, e in enumerate(order):
        src_kind = EDGES[e][0]
        accesses.append(Access(thread, src_kind, LOCS[seg % npod] if npod else LOCS[0]))
        if EDGES[e][2]:
            thread += 1
        if not EDGES[e][3]:
            seg += 1
    if not EDGES[order[-1]][2]:
        return None  # the cycle must come back to thread 0 through another thread
    locs_used = {a.loc for a in accesses}
    if len(locs_used) > len(LOCS):
        return None
    # a location must not be used by two distinct po-separated sections of one thread
    for t in {a.thread for a in accesses}:
        ts = [a.loc for a in accesses if a.thread == t]
        if len(set(ts)) != len(ts):
            return None
    return order, accesses


def cycle_name(cyc) -> str:
    return "-".join(_build(cyc)[0])


@dataclass(frozen=True)
class Annotation:
    atomic: bool
    order: str | None = None
    scope: str | None = None
    remote: bool = False

    def short(self) -> str:
        if not self.atomic:
            return "na"
        return f"{self.order}.{self.scope}{'.rem' if self.remote else ''}"


# Placements of up to 4 threads: (device, work-group) per thread.
TREES = {
    "same-wg": lambda n: [(0, 0)] * n,
    "wg-per-thread": lambda n: [(0, i) for i in range(n)],
    "first-two-share-wg": lambda n: [(0, 0), (0, 0)] + [(0, i) for i in range(1, n - 1)],
    "dev-per-thread": lambda n: [(i, 0) for i in range(n)],
}


def access_annotations(orders=("na", "sc"), scopes=("wg", "dev"), remote=False) -> list[Annotation]:
    out = []
    for o in orders:
        if o == "na":
            out.append(Annotation(False))
            continue
        for s in scopes:
            out.append(Annotation(True, o, s))
            if remote:
                out.append(Annotation(True, o, s, True))
    return out


def _legal(acc: Access, ann: Annotation) -> bool:
    if ann.atomic and ann.order in ("acq",) and acc.kind == "W":
        return False
    return not (ann.atomic and ann.order in ("rel",) and acc.kind == "R")


def make_test(cyc, anns: Sequence[Annotation], tree: str, local: frozenset = frozenset()) -> A.Test | None:
    """One test: the cycle, an annotation per access, a placement, and the
    locations in `local` (OpenCL local memory) rather than global."""
    order, accesses = _build(cyc)
    n = len(order)
    nthreads = max(a.thread for a in accesses) + 1
    # values: writes to a location get 1, 2, ... in cycle order; the cycle's
    # coherence order is that order, so Fre reads the write before its target.
    values: list[int | None] = []
    counter: dict[str, int] = {}
    for a in accesses:
        if a.kind == "W":
            counter[a.loc] = counter.get(a.loc, 0) + 1
            values.append(counter[a.loc])
        else:
            values.append(None)
    writes_of: dict = {}
    for i, a in enumerate(accesses):
        if a.kind == "W":
            writes_of.setdefault(a.loc, []).append(i)
    expect: dict = {}  # read index -> value it must read
    final: dict = {}  # loc -> final value (Coe edges)
    for i, e in enumerate(order):
        j = (i + 1) % n
        if e == "Rfe":
            expect[j] = values[i]
        elif e == "Fre":
            w = j
            before = [k for k in writes_of[accesses[w].loc] if values[k] < values[w]]
            expect[i] = max((values[k] for k in before), default=0)
        elif e == "Coe":
            final[accesses[j].loc] = values[j]
    for i, a in enumerate(accesses):
        if a.kind == "R" and i not in expect:
            expect[i] = 0
    # a location written twice needs its co order fixed by the condition
    for loc, ws in writes_of.items():
        if len(ws) > 1 and loc not in final:
            final[loc] = max(values[k] for k in ws)
    place = TREES[tree](nthreads)
    threads = []
    conds = []
    for t in range(nthreads):
        body: list = []
        guard_stack: list = []
        regs = 0
        for i, a in enumerate(accesses):
            if a.thread != t:
                continue
            ann = anns[i]
            if not _legal(a, ann):
                return None
            st: A.Stmt
            v = values[i]
            if v is not None:  # a write
                st = A.Store(a.loc, A.Const(v), ann.atomic, ann.order, ann.scope, ann.remote)
            else:
                reg = f"r{regs}"
                regs += 1
                ld = A.Load(a.loc, ann.atomic, ann.order, ann.scope, ann.remote)
                st = A.Assign(reg, ld, True)
                conds.append(A.PAtom(A.RegVar(t, reg), expect[i]))
            body.append(st)
            if a.kind == "R" and ann.atomic:
                guard_stack.append((len(body), A.BinOp("==", A.Reg(f"r{regs - 1}"), A.Const(expect[i]))))
        # wrap the accesses after each atomic read in a guard on its value
        for pos, cond in reversed(guard_stack):
            rest = tuple(body[pos:])
            if rest:
                body = body[:pos] + [A.If(cond, rest, ())]
        dev, wg = place[t]
        params = tuple(
            A.Param(
                l,
                "local" if l in local else "global",
                any(anns[i].atomic for i, x in enumerate(accesses) if x.loc == l),
                "atomic_int" if any(anns[i].atomic for i, x in enumerate(accesses) if x.loc == l) else "int",
            )
            for l in sorted({x.loc for x in accesses})
        )
        threads.append(A.Thread(f"P{t}", params, tuple(body), dev=dev, wg=wg))
    for loc, v in sorted(final.items()):
        conds.append(A.PAtom(A.LocVar(loc), v))
    prop = A.PAnd(tuple(conds)) if len(conds) > 1 else conds[0]
    name = f"{'-'.join(order)}+{'_'.join(x.short() for x in anns)}+{tree}"
    if local:
        name += "+local-" + "".join(sorted(local))
    init = tuple(A.Init(l, 0) for l in sorted({x.loc for x in accesses}))
    return A.Test("OpenCL", name, tuple(threads), init, (), A.Condition("exists", prop), ())


def _region_choices(cyc, regions) -> list[frozenset]:
    """Which of the cycle's locations are local: none, or (with `local` in
    `regions`) every subset."""
    locs = sorted({a.loc for a in _build(cyc)[1]})
    if "local" not in regions:
        return [frozenset()]
    out = []
    for k in range(len(locs) + 1):
        out += [frozenset(c) for c in itertools.combinations(locs, k)]
    if "global" not in regions:
        out = [frozenset(locs)]
    return out


def family(
    max_edges=6,
    max_threads=4,
    orders=("na", "sc"),
    scopes=("wg", "dev"),
    remote=False,
    trees=tuple(TREES),
    edges=tuple(EDGES),
    regions=("global",),
    cycle: str | None = None,
) -> Iterator[A.Test]:
    """Every test of the family, in a fixed order: small cycles first. With
    `cycle` (diy's notation or a name, `parse_cycle`), that cycle's tests only."""
    max_edges, max_threads, orders, scopes, remote, trees, edges, regions = check_family(
        max_edges, max_threads, orders, scopes, remote, trees, edges, regions
    )
    anns = access_annotations(orders, scopes, remote)
    for cyc in [parse_cycle(cycle)] if cycle is not None else cycles(max_edges, max_threads, edges):
        n = len(cyc)
        for local in _region_choices(cyc, regions):
            for combo in itertools.product(anns, repeat=n):
                for tree in trees:
                    t = make_test(cyc, combo, tree, local)
                    if t is not None:
                        yield t


# annotations: a plain access, or an atomic with one of hrf's orders (consume aside)
ORDERS = ("na",) + tuple(o for o in _program.ORDERS if o != "con")
SCOPES = _program.SCOPES
REGIONS = ("global", "local")
# Cycles are enumerated over every word of edges up to this length (7^8
# words at 8): a longer bound would never end.
MAX_EDGES = 8


def _choices(what: str, value, known) -> tuple:
    """A family option as a tuple of known names; a comma-separated string
    (the command line's form) is split. Anything else is InvalidArgument."""
    from .errors import InvalidArgument

    items = value.split(",") if isinstance(value, str) else value
    try:
        items = tuple(items)
    except TypeError:
        raise InvalidArgument(f"{what} must be a list of names, not {value!r}") from None
    bad = [x for x in items if x not in known]
    if bad or not items:
        raise InvalidArgument(
            f"{what}: unknown {', '.join(map(repr, bad)) if bad else 'empty list'}; known: {', '.join(known)}"
        )
    return items


def check_family(max_edges, max_threads, orders, scopes, remote, trees, edges, regions) -> tuple:
    """The family options, checked (InvalidArgument naming the bad one) and
    normalised to tuples."""
    return (
        check_whole("max_edges", max_edges, 2, MAX_EDGES),
        check_whole("max_threads", max_threads, 1),
        _choices("orders", orders, ORDERS),
        _choices("scopes", scopes, SCOPES),
        bool(remote),
        _choices("trees", trees, tuple(TREES)),
        _choices("edges", edges, tuple(EDGES)),
        _choices("regions", regions, REGIONS),
    )


def generate(
    count: int | None = None,
    seed: int = 0,
    max_edges=6,
    max_threads=4,
    orders=("na", "sc"),
    scopes=("wg", "dev"),
    remote=False,
    trees=tuple(TREES),
    edges=tuple(EDGES),
    regions=("global",),
    cycle: str | None = None,
) -> list[A.Test]:
    """`count` tests of the family (all of it when None), deterministic for
    a seed: a seeded sample of (cycle, annotations, placement) indices,
    decoded one by one (the family is never built whole), in family order.
    With `cycle` (diy's notation, `"Rfe PodRR Fre PodWW"`, or a name such as
    `"MP"`: `NAMED`), the tests of that one cycle."""
    max_edges, max_threads, orders, scopes, remote, trees, edges, regions = check_family(
        max_edges, max_threads, orders, scopes, remote, trees, edges, regions
    )
    if count is not None:
        check_whole("count", count, 1)
    if count is None:
        return list(family(max_edges, max_threads, orders, scopes, remote, trees, edges, regions, cycle))
    cycs = [parse_cycle(cycle)] if cycle is not None else cycles(max_edges, max_threads, edges)
    anns = access_annotations(orders, scopes, remote)
    trees = tuple(trees)
    locals_of = [_region_choices(c, regions) for c in cycs]
    sizes = [len(anns) ** len(c) * len(trees) * len(lc) for c, lc in zip(cycs, locals_of, strict=False)]
    total = sum(sizes)
    rnd = random.Random(seed)
    chosen: dict = {}
    tried: set = set()
    while len(chosen) < count and len(tried) < total:
        idx = rnd.randrange(total)
        if idx in tried:
            continue
        tried.add(idx)
        k, rest = 0, idx
        while rest >= sizes[k]:
            rest -= sizes[k]
            k += 1
        cyc = cycs[k]
        local = locals_of[k][rest % len(locals_of[k])]
        rest //= len(locals_of[k])
        tree = trees[rest % len(trees)]
        rest //= len(trees)
        combo = []
        for _ in cyc:
            combo.append(anns[rest % len(anns)])
            rest //= len(anns)
        t = make_test(cyc, combo, tree, local)
        if t is not None:
            chosen[idx] = t
    return [chosen[i] for i in sorted(chosen)]


def write_tests(tests: Sequence[A.Test], folder: str) -> list[str]:
    """Write tests as .litmus files into `folder` (made if missing), each
    named after its test; the paths written, in order."""
    import os

    from .errors import make_folder, write_output
    from .litmus.printer import to_litmus

    make_folder(folder)
    paths = []
    for t in tests:
        safe = "".join(c if c.isalnum() or c in "+-_." else "_" for c in t.name)
        paths.append(os.path.join(folder, safe + ".litmus"))
        write_output(paths[-1], to_litmus(t))
    return paths


def size(t: A.Test) -> tuple:
    """Smallest first: threads, then memory accesses."""
    return (len(t.threads), sum(len(th.ops) for th in t.threads), t.name)
