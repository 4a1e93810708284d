"""Families of litmus tests from cycles of relations,
in the manner of herd's diy: a cycle of edges

    Rfe  write -> read of another thread, same location (reads-from)
    Fre  read -> write of another thread, same location (from-read)
    Coe  write -> write of another thread, same location (coherence)
    PodXY  X then Y in program order of one thread, different locations
    FencedXY, FenceOdXY  the same with a fence between them (diy's C
           fences: O is Sc, AR, Acq or Rel; Fenced is FenceScd), its
           scope one of the family's scopes
    DpDatadW, DpCtrldR, DpCtrldW  a read, then (different location) a
           write whose value depends on it, or an access guarded by it

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

import functools
import itertools
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from . import program as _program
from .errors import check_whole
from .litmus import ast as A


@dataclass(frozen=True)
class Edge:
    """One of diy's edges: the kinds (R/W) of its two accesses, whether it
    goes to another thread (communication) or stays in one (program order
    to another location), and what lies between: a fence of some order,
    or a dependency of the target on the source read."""

    name: str
    src: str
    tgt: str
    external: bool
    same_loc: bool
    fence: str | None = None  # the fence's order (hrf's names)
    dep: str | None = None  # "data", "ctrl" or "addr"


# The edges a family is built from unless others are asked for.
EDGES = ("Rfe", "Fre", "Coe", "PodWW", "PodWR", "PodRW", "PodRR")
_COMMUNICATION = {"Rfe": ("W", "R"), "Fre": ("R", "W"), "Coe": ("W", "W"), "Wse": ("W", "W")}
# diy's C fence names (diy7's documentation, fence prefixes) -> hrf's orders
FENCES = {"Sc": "sc", "AR": "acq_rel", "Acq": "acq", "Rel": "rel"}
_EDGE = re.compile(r"(Pod|Fenced|Fence([A-Za-z]+?)d|Dp(Data|Ctrl|Addr)d)([RW])([RW])?")
LOCS = ["x", "y", "z", "w"]


@functools.cache
def edge(name: str) -> Edge:
    """The edge a diy name stands for; InvalidArgument saying why not."""
    from .errors import InvalidArgument

    if name in _COMMUNICATION:
        return Edge("Coe" if name == "Wse" else name, *_COMMUNICATION[name], True, True)  # Wse: diy's old Coe
    m = _EDGE.fullmatch(name)
    if m is None:
        raise InvalidArgument(
            f"unknown edge {name!r}; hrf generates Rfe, Fre, Coe (Wse), PodXY, FencedXY, "
            f"Fence{{{','.join(FENCES)}}}dXY, DpDatadW, DpCtrldR, DpCtrldW, DpAddrdR, DpAddrdW (X, Y: R or W)"
        )
    head, order, dep, x, y = m.groups()
    if dep is not None:
        if y is not None:
            raise InvalidArgument(f"edge {name!r}: a dependency edge names its target only (Dp{dep}d{x})")
        if dep == "Data" and x == "R":
            raise InvalidArgument(f"edge {name!r}: a data dependency ends in a write (DpDatadW)")
        return Edge(name, "R", x, False, False, dep=dep.lower())
    if y is None:
        raise InvalidArgument(f"edge {name!r}: name both kinds, as in {head}{x}R or {head}{x}W")
    if head == "Pod":
        return Edge(name, x, y, False, False)
    if order is not None and order not in FENCES:
        raise InvalidArgument(
            f"edge {name!r}: fence {order!r} is not generated; diy's C fences hrf generates: {', '.join(FENCES)}"
        )
    return Edge(name, x, y, False, False, fence=FENCES[order or "Sc"])


def edge_list(value, what: str = "edges") -> tuple[str, ...]:
    """Edge names from a list or a comma- or space-separated string, each
    checked (`edge`)."""
    from .errors import InvalidArgument

    items = tuple(value.replace(",", " ").split()) if isinstance(value, str) else tuple(value)
    if not items:
        raise InvalidArgument(f"{what}: no edges given")
    return tuple(dict.fromkeys(edge(e).name for e in items))


@dataclass(frozen=True)
class Access:
    thread: int
    kind: str  # R or W
    loc: str


def _rotation(words) -> tuple:
    """A cycle's representative among its rotations (the smallest)."""
    words = tuple(words)
    return min(words[i:] + words[:i] for i in range(len(words)))


def cycles(
    max_edges: int = 6, max_threads: int = 4, edges: Sequence[str] = EDGES, relax: Sequence[str] = ()
) -> list[tuple]:
    """Every cycle of at most `max_edges` edges, one per rotation class,
    that makes 2..max_threads threads, alternates po and communication as
    diy does (no two po edges in a row), and closes. With `relax` (diy's
    -relax, `edges` then being its -safe), the cycles over `edges` and one
    relaxation r of `relax` that contain r, for each r in turn."""
    if relax:
        out: list[tuple] = []
        seen: set = set()
        for r in relax:
            for c in cycles(max_edges, max_threads, tuple(dict.fromkeys((*edges, r))), ()):
                if r in c and c not in seen and not any(o in c for o in relax if o != r):
                    seen.add(c)
                    out.append(c)
        return sorted(out, key=_family_order((*edges, *relax)))
    es = [edge(e) for e in dict.fromkeys(edges)]
    out = []

    def grow(word: list) -> None:
        n = len(word)
        first, last = word[0], word[-1]
        if n >= 2 and last.tgt == first.src and (last.external or first.external):
            names = tuple(e.name for e in word)
            if names == _rotation(names) and _valid(names, max_threads):
                out.append(names)
        if n == max_edges:
            return
        for e in es:
            if e.src == last.tgt and (e.external or last.external) and e.name >= first.name:
                word.append(e)
                grow(word)
                word.pop()

    for e in es:
        grow([e])
    return sorted(out, key=_family_order(edges))


def _family_order(edges: Sequence[str]):
    """Small cycles first; among cycles of one length, the order in which
    words over `edges` (in the order given) first reach them."""
    index = {e: i for i, e in enumerate(dict.fromkeys(edges))}

    def key(c: tuple) -> tuple:
        ids = tuple(index[e] for e in c)
        return len(c), min(ids[i:] + ids[:i] for i in range(len(c)))

    return key


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


_CANONICAL = {_rotation(v.split()): k for k, v in NAMED.items()}


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
    try:
        words = tuple(edge(w).name for w in words)
    except InvalidArgument as e:
        raise InvalidArgument(f"cycle {text!r}: {e}; or a name: {', '.join(NAMED)}") from None
    if len(words) < 2:
        raise InvalidArgument(f"cycle {text!r}: a cycle has at least two edges")
    rot = _rotation(words)
    npod = sum(not edge(e).same_loc for e in rot)  # each changes location: one location a segment
    if npod > len(LOCS):
        raise InvalidArgument(
            f"cycle {text!r} has {npod} edges that change location: hrf's tests use at most {len(LOCS)} "
            f"locations ({', '.join(LOCS)})"
        )
    if not _valid(rot, len(words)):
        raise InvalidArgument(
            f"cycle {text!r} does not make a test: each edge's target kind (R/W) must be the next edge's source "
            "kind, po edges must be separated by communication edges, the cycle must visit 2 or more threads "
            "and come back, and the coherence order it asks for must be one a final state can pin (at most two "
            "writes to a location, not ordered both ways)"
        )
    return rot


def _valid(cyc, max_threads) -> bool:
    n = len(cyc)
    ext = sum(edge(e).external for e in cyc)
    if not 2 <= ext <= max_threads:
        return False
    for i in range(n):
        a, b = edge(cyc[i]), edge(cyc[(i + 1) % n])
        if a.tgt != b.src:
            return False  # kinds must chain
        if not a.external and not b.external:
            return False  # one po edge per thread step (diy's Pod, not Pod;Pod)
    return _build(cyc) is not None


@functools.lru_cache(maxsize=4096)
def _build(cyc: tuple):
    """Accesses of a cycle: thread and location of each edge's source
    (cached: a sample of the family meets each cycle many times)."""
    n = len(cyc)
    # start right after an external edge so that thread 0 begins the cycle
    start = next(i for i in range(n) if edge(cyc[i - 1]).external)
    order = [cyc[(start + i) % n] for i in range(n)]
    # k program-order edges make k same-location segments; the last one wraps
    # around to the first (diy). One Pod edge alone cannot close the cycle.
    npod = sum(not edge(e).same_loc for e in order)
    if npod == 1:
        return None
    accesses = []
    thread, seg = 0, 0
    for _i, e in enumerate(order):
        src_kind = edge(e).src
        accesses.append(Access(thread, src_kind, LOCS[seg % npod] if npod else LOCS[0]))
        if edge(e).external:
            thread += 1
        if not edge(e).same_loc:
            seg += 1
    if not edge(order[-1]).external:
        return None  # the cycle must come back to thread 0 through another thread
    locs_used = {a.loc for a in accesses}
    if len(locs_used) > len(LOCS):
        return None
    # a location must not be used by two distinct po-separated sections of one thread
    for t in {a.thread for a in accesses}:
        ts = [a.loc for a in accesses if a.thread == t]
        if len(set(ts)) != len(ts):
            return None
    shape = tuple(order), tuple(accesses)
    if _values(*shape) is None:
        return None
    return shape


@functools.lru_cache(maxsize=4096)
def _values(order, accesses):
    """The values of a cycle's test: each write's value, the value each read
    must see and the final values that fix coherence, or None where the
    cycle's coherence cannot be pinned by a final state (three writes to
    one location) or contradicts itself (Coe Coe, Fre Rfe: no test).

    Each location's writes are numbered 1, 2 in the coherence order the
    cycle implies: a Coe edge orders its two writes, and so does a read
    that reads from one write (Rfe) and is from-read before the other
    (Fre). A read reads what its Rfe brings, else (from-read before its Fre
    target) the write before that target, which is the initial value
    wherever the cycle leaves the order free."""
    n = len(order)
    writes_of: dict[str, list[int]] = {}
    for i, a in enumerate(accesses):
        if a.kind == "W":
            writes_of.setdefault(a.loc, []).append(i)
    if any(len(ws) > 2 for ws in writes_of.values()):
        return None
    rf_from = {(i + 1) % n: i for i, e in enumerate(order) if e == "Rfe"}
    hard: set = set()  # (w1, w2): w1 before w2 in coherence, as the cycle says
    soft: set = set()  # the same where it lets a read read the initial value
    for i, e in enumerate(order):
        j = (i + 1) % n
        if e == "Coe":
            hard.add((i, j))
        elif e == "Fre":
            if i in rf_from:
                hard.add((rf_from[i], j))
            else:
                soft |= {(j, w) for w in writes_of[accesses[j].loc] if w != j}
    values: list[int | None] = [None] * n
    final: dict = {}
    for loc, ws in writes_of.items():
        if len(ws) == 2:
            a, b = ws
            if (a, b) in hard and (b, a) in hard:
                return None
            if (b, a) in hard or ((a, b) not in hard and (b, a) in soft and (a, b) not in soft):
                a, b = b, a
            values[a], values[b] = 1, 2
            final[loc] = 2
        else:
            values[ws[0]] = 1
    expect: dict = {}  # read index -> value it must read
    for i, e in enumerate(order):
        if accesses[i].kind != "R":
            continue
        if i in rf_from:
            expect[i] = values[rf_from[i]]
        elif e == "Fre":
            target = (i + 1) % n
            before = [values[w] for w in writes_of[accesses[target].loc] if values[w] < values[target]]
            expect[i] = max(before, default=0)
        else:
            expect[i] = 0
    # a read that is from-read before a write must not read that write or a later one
    for i, e in enumerate(order):
        if e == "Fre" and expect[i] is not None and expect[i] >= values[(i + 1) % n]:
            return None
    return values, expect, final


def canonical_name(cyc) -> str | None:
    """The classic name of a cycle (MP, SB, IRIW, ...: `NAMED`), if it has one."""
    return _CANONICAL.get(_rotation(cyc))


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


def fences(cyc) -> int:
    """How many fence edges a cycle has (each takes a scope)."""
    return sum(edge(e).fence is not None for e in cyc)


def make_test(
    cyc, anns: Sequence[Annotation], tree: str, local: frozenset = frozenset(), fence_scopes: Sequence[str] = ()
) -> A.Test | None:
    """One test: the cycle, an annotation per access, a placement, the
    locations in `local` (OpenCL local memory) rather than global, and a
    scope per fence edge (in the order the test's threads meet them)."""
    order, accesses = _build(cyc)
    if len(fence_scopes) != fences(cyc):
        return None
    scope_of = dict(zip([i for i, e in enumerate(order) if edge(e).fence], fence_scopes, strict=True))
    n = len(order)
    nthreads = max(a.thread for a in accesses) + 1
    values, expect, final = _values(order, accesses)  # type: ignore[misc]  # _build checked it
    place = TREES[tree](nthreads)
    threads = []
    conds = []
    atomic_locs = {x.loc for x, ann in zip(accesses, anns, strict=True) if ann.atomic}
    params = tuple(
        A.Param(
            l,
            "local" if l in local else "global",
            l in atomic_locs,
            "atomic_int" if l in atomic_locs else "int",
        )
        for l in sorted({x.loc for x in accesses})
    )

    def offset(into, regs):
        """x + (r ^ r): the location x, at an address that depends on the read's register (diy's DpAddr)."""
        if into is None or into.dep != "addr":
            return None
        r = A.Reg(f"r{regs - 1}")
        return A.BinOp("^", r, r)

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
            into = edge(order[i - 1]) if i > 0 and accesses[i - 1].thread == t else None
            if into is not None and into.fence is not None:
                regions = {"local" if x.loc in local else "global" for x in (accesses[i - 1], a)}
                body.append(A.Fence(tuple(sorted(regions)), into.fence, scope_of[i - 1]))
            st: A.Stmt
            v = values[i]
            if v is not None:  # a write
                value: A.Expr = A.Const(v)
                if into is not None and into.dep == "data":
                    # v + (r ^ r): the value v, and a dependency on the read's register
                    r = A.Reg(f"r{regs - 1}")
                    value = A.BinOp("+", value, A.BinOp("^", r, r))
                st = A.Store(a.loc, value, ann.atomic, ann.order, ann.scope, ann.remote, offset=offset(into, regs))
            else:
                reg = f"r{regs}"
                off = offset(into, regs)
                regs += 1
                ld = A.Load(a.loc, ann.atomic, ann.order, ann.scope, ann.remote, offset=off)
                st = A.Assign(reg, ld, True)
                conds.append(A.PAtom(A.RegVar(t, reg), expect[i]))
            body.append(st)
            out = edge(order[i]) if i + 1 < n and accesses[i + 1].thread == t else None
            if a.kind == "R" and (ann.atomic or (out is not None and out.dep == "ctrl")):
                guard_stack.append((len(body), A.BinOp("==", A.Reg(f"r{regs - 1}"), A.Const(expect[i]))))
        # wrap the accesses after each atomic read in a guard on its value
        for pos, cond in reversed(guard_stack):
            rest = tuple(body[pos:])
            if rest:
                body = body[:pos] + [A.If(cond, rest, ())]
        dev, wg = place[t]
        threads.append(A.Thread(f"P{t}", params, tuple(body), dev=dev, wg=wg))
    for loc, v in sorted(final.items()):
        conds.append(A.PAtom(A.LocVar(loc), v))
    prop = A.PAnd(tuple(conds)) if len(conds) > 1 else conds[0]
    shorts = [x.short() for x in anns] + [f"f.{scope_of[i]}" for i in sorted(scope_of)]
    name = f"{canonical_name(cyc) or '-'.join(order)}+{'_'.join(shorts)}+{tree}"
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


def mixed_locations(t: A.Test) -> set[str]:
    """The locations a test accesses both atomically and not (a plain
    access to an `atomic_int`, the `na` annotation beside an atomic one)."""
    kinds: dict = {}
    for th in t.threads:
        for op in th.ops:
            if isinstance(op, (A.Load, A.Store)):
                kinds.setdefault(op.loc, set()).add(op.atomic)
            elif isinstance(op, A.Rmw):
                kinds.setdefault(op.loc, set()).add(True)
    return {loc for loc, k in kinds.items() if len(k) == 2}


def _kept(t: A.Test | None, mixed: bool) -> A.Test | None:
    return t if t is None or mixed or not mixed_locations(t) else None


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
    relax=(),
    mixed: bool = True,
) -> Iterator[A.Test]:
    """Every test of the family, in a fixed order: small cycles first. With
    `cycle` (diy's notation or a name, `parse_cycle`), that cycle's tests
    only; with `relax` (diy's -relax; `edges` is then its -safe), the cycles
    that contain one of them (`cycles`). With `mixed=False`, no test
    accesses a location both atomically and not (`mixed_locations`)."""
    max_edges, max_threads, orders, scopes, remote, trees, edges, regions, relax = check_family(
        max_edges, max_threads, orders, scopes, remote, trees, edges, regions, relax
    )
    anns = access_annotations(orders, scopes, remote)
    for cyc in [parse_cycle(cycle)] if cycle is not None else cycles(max_edges, max_threads, edges, relax):
        n = len(cyc)
        for local in _region_choices(cyc, regions):
            for combo in itertools.product(anns, repeat=n):
                for fence_scopes in itertools.product(scopes, repeat=fences(cyc)):
                    for tree in trees:
                        t = _kept(make_test(cyc, combo, tree, local, fence_scopes), mixed)
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


def check_family(max_edges, max_threads, orders, scopes, remote, trees, edges, regions, relax=()) -> tuple:
    """The family options, checked (InvalidArgument naming the bad one) and
    normalised to tuples."""
    return (
        check_whole("max_edges", max_edges, 2, MAX_EDGES),
        check_whole("max_threads", max_threads, 1),
        _choices("orders", orders, ORDERS),
        _choices("scopes", scopes, SCOPES),
        bool(remote),
        _choices("trees", trees, tuple(TREES)),
        edge_list(edges, "edges"),
        _choices("regions", regions, REGIONS),
        edge_list(relax, "relax") if relax != () and relax is not None else (),
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
    relax=(),
    mixed: bool = True,
) -> list[A.Test]:
    """`count` tests of the family (all of it when None), deterministic for
    a seed: a seeded sample of (cycle, annotations, placement) indices,
    decoded one by one (the family is never built whole), in family order.
    With `cycle` (diy's notation, `"Rfe PodRR Fre PodWW"`, or a name such as
    `"MP"`: `NAMED`), the tests of that one cycle; with `relax`, diy's
    -relax (`edges` being its -safe: `cycles`). With `mixed=False`, no
    test accesses a location both atomically and not."""
    max_edges, max_threads, orders, scopes, remote, trees, edges, regions, relax = check_family(
        max_edges, max_threads, orders, scopes, remote, trees, edges, regions, relax
    )
    if count is not None:
        check_whole("count", count, 1)
    if count is None:
        return list(family(max_edges, max_threads, orders, scopes, remote, trees, edges, regions, cycle, relax, mixed))
    cycs = [parse_cycle(cycle)] if cycle is not None else cycles(max_edges, max_threads, edges, relax)
    anns = access_annotations(orders, scopes, remote)
    trees = tuple(trees)
    locals_of = [_region_choices(c, regions) for c in cycs]
    sizes = [
        len(anns) ** len(c) * len(scopes) ** fences(c) * len(trees) * len(lc)
        for c, lc in zip(cycs, locals_of, strict=False)
    ]
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
        fence_scopes = []
        for _ in range(fences(cyc)):
            fence_scopes.append(scopes[rest % len(scopes)])
            rest //= len(scopes)
        t = _kept(make_test(cyc, combo, tree, local, fence_scopes), mixed)
        if t is not None:
            chosen[idx] = t
    return [chosen[i] for i in sorted(chosen)]


def write_tests(tests: Sequence[A.Test], folder: str) -> list[str]:
    """Write tests as .litmus files into `folder` (made if missing), each
    named after its test; the paths written, in order."""
    import os

    from .errors import make_folder, write_output
    from .litmus.printer import to_litmus

    folder = make_folder(folder)
    paths = []
    for t in tests:
        safe = "".join(c if c.isalnum() or c in "+-_." else "_" for c in t.name)
        paths.append(os.path.join(folder, safe + ".litmus"))
        write_output(paths[-1], to_litmus(t))
    return paths


def size(t: A.Test) -> tuple:
    """Smallest first: threads, then memory accesses."""
    return (len(t.threads), sum(len(th.ops) for th in t.threads), t.name)
