"""Families of litmus tests from cycles of relations,
in the manner of herd's diy: a cycle of edges

    Rfe  write -> read of another thread, same location (reads-from)
    Fre  read -> write of another thread, same location (from-read)
    Coe  write -> write of another thread, same location (coherence)
    PodXY  X then Y in program order of one thread, different locations
    PosXY  the same, one location (the coherence shapes CoRR, CoWR, CoRW)
    FencedXY, FenceOdXY  the same with a fence between them (diy's C
           fences: O is Sc, AR, Acq or Rel; Fenced is FenceScd), its
           scope one of the family's scopes
    DpDatadW, DpCtrldR, DpCtrldW  a read, then (different location) a
           write whose value depends on it, or an access guarded by it

each optionally followed by diy's annotations of its source and target
accesses (`PodWWRlxRel`, `RfeRelAcq`: Na for plain, Rlx, Acq, Rel, Sc),
which pin their orders (at each of the family's scopes); two edges
annotating one access must agree, as diy requires,

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
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from . import program as _program
from .cycles import (
    EDGES,
    NAMED,
    NOT_FOR,
    Access,
    canonical_name,
    cycle_name,
    cycle_shape,
    cycle_values,
    cycles,
    edge,
    edge_list,
    parse_cycle,
)
from .errors import InvalidArgument, check_whole
from .litmus import ast as A

__all__ = [
    "Access",
    "Annotation",
    "EDGES",
    "MAX_EDGES",
    "NAMED",
    "ORDERS",
    "REGIONS",
    "SCOPES",
    "TREES",
    "access_annotations",
    "access_choices",
    "canonical_name",
    "check_family",
    "cycle_name",
    "cycle_shape",
    "cycle_values",
    "cycles",
    "edge",
    "edge_list",
    "family",
    "fences",
    "generate",
    "make_test",
    "mixed_locations",
    "parse_cycle",
    "size",
    "write_tests",
]


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


def access_choices(cyc, anns: Sequence[Annotation], scopes, remote=False) -> list[list[Annotation]]:
    """The annotations each access of the cycle is crossed with: the
    family's, or where the cycle's edges pin its order (`PodWWRlxRel`),
    that order at each of the family's scopes."""
    return [
        list(anns) if a.pinned is None else access_annotations((a.pinned,), scopes, remote) for a in cycle_shape(cyc)[1]
    ]


def _legal(acc: Access, ann: Annotation) -> bool:
    return not (ann.atomic and (acc.kind, ann.order) in NOT_FOR)


def fences(cyc) -> int:
    """How many fence edges a cycle has (each takes a scope)."""
    return sum(edge(e).fence is not None for e in cyc)


def make_test(
    cyc, anns: Sequence[Annotation], tree: str, local: frozenset = frozenset(), fence_scopes: Sequence[str] = ()
) -> A.Test | None:
    """One test: the cycle, an annotation per access, a placement, the
    locations in `local` (OpenCL local memory) rather than global, and a
    scope per fence edge (in the order the test's threads meet them)."""
    order, accesses = cycle_shape(cyc)
    if len(fence_scopes) != fences(cyc):
        return None
    scope_of = dict(zip([i for i, e in enumerate(order) if edge(e).fence], fence_scopes, strict=True))
    n = len(order)
    nthreads = max(a.thread for a in accesses) + 1
    values, expect, final = cycle_values(order, accesses)  # type: ignore[misc]  # cycle_shape checked it
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


def _shadowed(tree: str, trees, cyc) -> bool:
    """Whether an earlier tree of `trees` places the cycle's threads as
    `tree` does (for two threads first-two-share-wg is same-wg; for one,
    every tree is one): its tests are that tree's, emitted once."""
    n = max(a.thread for a in cycle_shape(cyc)[1]) + 1
    place = TREES[tree](n)[:n]
    return any(TREES[u](n)[:n] == place for u in trees[: trees.index(tree)])


def _region_choices(cyc, regions) -> list[frozenset]:
    """Which of the cycle's locations are local: none, or (with `local` in
    `regions`) every subset."""
    locs = sorted({a.loc for a in cycle_shape(cyc)[1]})
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
    dialect: str = "opencl",
) -> Iterator[A.Test]:
    """Every test of the family, in a fixed order: small cycles first. With
    `cycle` (diy's notation or a name, `parse_cycle`), that cycle's tests
    only; with `relax` (diy's -relax; `edges` is then its -safe), the cycles
    that contain one of them (`cycles`). With `mixed=False`, no test
    accesses a location both atomically and not (`mixed_locations`). With
    `dialect` "ptx" or "vulkan", the tests are Dat3M's dialect (`DIALECTS`)."""
    max_edges, max_threads, orders, scopes, remote, trees, edges, regions, relax = check_family(
        max_edges, max_threads, orders, scopes, remote, trees, edges, regions, relax, dialect, cycle
    )
    anns = access_annotations(orders, scopes, remote)
    for cyc in [parse_cycle(cycle)] if cycle is not None else cycles(max_edges, max_threads, edges, relax):
        choices = access_choices(cyc, anns, scopes, remote)
        placements = [tree for tree in trees if not _shadowed(tree, trees, cyc)]  # once per cycle
        for local in _region_choices(cyc, regions):
            for combo in itertools.product(*choices):
                for fence_scopes in itertools.product(scopes, repeat=fences(cyc)):
                    for tree in placements:
                        t = _in_dialect(_kept(make_test(cyc, combo, tree, local, fence_scopes), mixed), dialect)
                        if t is not None:
                            yield t


# The dialects a family is written in: hrf's OpenCL, Dat3M's PTX and Vulkan
# (litmus/dat3m_print.py), each with the orders, scopes (its own names ->
# hrf's) and fences it has.
@dataclass(frozen=True)
class Dialect:
    arch: str  # the test header
    orders: tuple[str, ...]
    scopes: dict[str, str]  # its names (and hrf's) -> hrf's
    fences: tuple[str, ...]  # the orders of its fences
    plain: str  # what a plain access is called in test names


DIALECTS: dict[str, Dialect | None] = {
    "opencl": None,
    # C11: atomics with orders and no scopes, every thread in one place
    # (a family's scopes and trees are ignored: one of each is generated)
    "c": None,
    "ptx": Dialect(
        "PTX",
        ("na", "rlx", "acq", "rel"),
        {"cta": "wg", "gpu": "dev", "sys": "all", "wg": "wg", "dev": "dev", "all": "all"},
        ("sc", "acq_rel"),
        "weak",
    ),
    "vulkan": Dialect(
        "VULKAN",
        ("na", "rlx", "acq", "rel"),
        {"sg": "sg", "wg": "wg", "qf": "qf", "dv": "dev", "dev": "dev"},
        ("acq", "rel", "acq_rel"),
        "nonpriv",
    ),
}


def _in_dialect(t: A.Test | None, dialect: str) -> A.Test | None:
    """The test written in the dialect and read back by its reader (which
    gives its events the dialect's tags): hrf's own AST for opencl."""
    d = DIALECTS[dialect]
    if t is not None and dialect == "c":
        return _in_c(t)
    if t is None or d is None:
        return t
    from .litmus import parse
    from .litmus.dat3m_print import to_dat3m

    cyc, shorts, tree = t.name.rsplit("+", 2)
    words = {**{v: k for k, v in d.scopes.items() if k != v}, "na": d.plain}
    shorts = "_".join(".".join(words.get(w, w) for w in a.split(".")) for a in shorts.split("_"))
    return parse(to_dat3m(A.with_fields(t, name=f"{cyc}+{shorts}+{tree}"), d.arch))


def _in_c(t: A.Test) -> A.Test:
    """The OpenCL test as C11 writes it (no scopes, no regions, no scope
    tree), printed and read back."""
    import dataclasses

    from .litmus import parse
    from .litmus.printer import to_litmus

    def strip(s):
        if isinstance(s, (A.Store, A.Fence)):
            s = A.with_fields(s, scope=None)
            return A.with_fields(s, flags=()) if isinstance(s, A.Fence) else s
        if isinstance(s, A.Assign) and isinstance(s.expr, A.Load):
            return A.with_fields(s, expr=A.with_fields(s.expr, scope=None))
        if isinstance(s, A.If):
            return A.with_fields(s, then=tuple(map(strip, s.then)), orelse=tuple(map(strip, s.orelse)))
        return s

    threads = tuple(
        A.with_fields(
            th,
            dev=None,
            wg=None,
            sg=None,
            params=tuple(A.with_fields(p, region=None) for p in th.params),
            body=tuple(map(strip, th.body)),
        )
        for th in t.threads
    )
    cyc, shorts, _tree = t.name.rsplit("+", 2)
    shorts = "_".join(a.split(".")[0] for a in shorts.split("_"))
    c = dataclasses.replace(t, arch="C", name=f"{cyc}+{shorts}", threads=threads)
    return parse(to_litmus(c))


def _check_dialect(dialect: str, d: Dialect, orders, scopes, edges, relax, regions) -> tuple:
    """The family's orders and scopes for Dat3M dialect `d` (scopes in
    hrf's names), checked: InvalidArgument naming what the dialect lacks."""
    from .errors import InvalidArgument

    bad = [o for o in orders if o not in d.orders]
    if bad:
        raise InvalidArgument(f"orders: {dialect} has no {', '.join(bad)} accesses; its orders: {', '.join(d.orders)}")
    for e in tuple(edges) + tuple(relax):
        ed = edge(e)
        if ed.dep == "addr":
            raise InvalidArgument(
                f"edge {e}: {dialect} names locations only (Dat3M's dialects have no computed address): "
                "DpData and DpCtrl edges it has"
            )
        bad = [a for a in dict.fromkeys((ed.a1, ed.a2)) if a is not None and a not in d.orders]
        if bad:
            raise InvalidArgument(
                f"edge {e}: {dialect} has no {', '.join(bad)} accesses; its orders: {', '.join(d.orders)}"
            )
        if ed.fence is not None and ed.fence not in d.fences:
            raise InvalidArgument(f"edge {e}: {dialect} has no {ed.fence} fence (its fences: {', '.join(d.fences)})")
    if tuple(regions) != ("global",):
        raise InvalidArgument(f"regions: {dialect} families are in global memory only")
    return orders, tuple(dict.fromkeys(d.scopes[x] for x in scopes))


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


def check_family(
    max_edges, max_threads, orders, scopes, remote, trees, edges, regions, relax=(), dialect="opencl", cycle=None
) -> tuple:
    """The family options, checked (InvalidArgument naming the bad one) and
    normalised to tuples; a Dat3M dialect's scopes in hrf's names."""
    from .errors import InvalidArgument

    if dialect not in DIALECTS:
        raise InvalidArgument(f"dialect: unknown {dialect!r}; known: {', '.join(DIALECTS)}")
    d = DIALECTS[dialect]
    out = (
        check_whole("max_edges", max_edges, 2, MAX_EDGES),
        check_whole("max_threads", max_threads, 1),
        _choices("orders", orders, ORDERS),
        _choices("scopes", scopes, SCOPES if d is None else tuple(d.scopes)),
        bool(remote),
        _choices("trees", trees, tuple(TREES)),
        edge_list(edges, "edges"),
        _choices("regions", regions, REGIONS),
        edge_list(relax, "relax") if relax != () and relax is not None else (),
    )
    if dialect == "c":  # no scopes, no scope tree, no regions, no remote promotion
        if out[4]:
            raise InvalidArgument("remote: C11 has no remote scope promotion")
        if out[7] != ("global",):
            raise InvalidArgument("regions: C11 has no address spaces (global only)")
        return out[:3] + (out[3][:1],) + (out[4], out[5][:1]) + out[6:]
    if d is None:
        return out
    if out[4]:
        raise InvalidArgument(f"remote: {dialect} has no remote scope promotion")
    cyc = tuple(parse_cycle(cycle)) if cycle is not None else ()
    orders, scopes = _check_dialect(dialect, d, out[2], out[3], out[6] + cyc, out[8], out[7])
    return out[:2] + (orders, scopes) + out[4:]


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
    dialect: str = "opencl",
    sync: tuple = (),
) -> list[A.Test]:
    """`count` tests of the family (all of it when None), deterministic for
    a seed: a seeded sample of (cycle, annotations, placement) indices,
    decoded one by one (the family is never built whole), in family order.
    With `cycle` (diy's notation, `"Rfe PodRR Fre PodWW"`, or a name such as
    `"MP"`: `NAMED`), the tests of that one cycle; with `relax`, diy's
    -relax (`edges` being its -safe: `cycles`). With `mixed=False`, no
    test accesses a location both atomically and not. `dialect`: as `family`'s.
    With `sync` (PTX alone), the message-passing family over sm_90's
    signals instead (`generate_hopper.sync_family`), sampled alike."""
    if sync:
        return _sync_tests(count, seed, sync, dialect)
    max_edges, max_threads, orders, scopes, remote, trees, edges, regions, relax = check_family(
        max_edges, max_threads, orders, scopes, remote, trees, edges, regions, relax, dialect, cycle
    )
    if count is not None:
        check_whole("count", count, 1)
    if count is None:
        return list(
            family(max_edges, max_threads, orders, scopes, remote, trees, edges, regions, cycle, relax, mixed, dialect)
        )
    cycs = [parse_cycle(cycle)] if cycle is not None else cycles(max_edges, max_threads, edges, relax)
    anns = access_annotations(orders, scopes, remote)
    trees = tuple(trees)
    locals_of = [_region_choices(c, regions) for c in cycs]
    choices_of = [access_choices(c, anns, scopes, remote) for c in cycs]
    sizes = [
        math.prod(map(len, ch)) * len(scopes) ** fences(c) * len(trees) * len(lc)
        for c, ch, lc in zip(cycs, choices_of, locals_of, strict=True)
    ]
    total = sum(sizes)
    rnd = random.Random(seed)
    chosen: dict = {}
    tried: set = set()
    shadowed: dict = {}
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
        for ch in choices_of[k]:
            combo.append(ch[rest % len(ch)])
            rest //= len(ch)
        fence_scopes = []
        for _ in range(fences(cyc)):
            fence_scopes.append(scopes[rest % len(scopes)])
            rest //= len(scopes)
        if shadowed.setdefault((k, tree), _shadowed(tree, trees, cyc)):  # once per cycle and placement
            continue
        t = _in_dialect(_kept(make_test(cyc, combo, tree, local, fence_scopes), mixed), dialect)
        if t is not None:
            chosen[idx] = t
    return [chosen[i] for i in sorted(chosen)]


def _sync_tests(count, seed, sync, dialect) -> list[A.Test]:
    import dataclasses

    from .generate_hopper import sync_family
    from .litmus import parse_text

    if dialect != "ptx":
        raise InvalidArgument(f"--sync: sm_90's signals are PTX's (--dialect ptx, not {dialect})")
    syncs = tuple(s.strip() for s in sync.split(",")) if isinstance(sync, str) else tuple(sync)
    fam = sync_family(syncs)
    if count is not None:
        check_whole("count", count, 1)
        keep = sorted(random.Random(seed).sample(range(len(fam)), min(count, len(fam))))
        fam = [fam[k] for k in keep]
    return [dataclasses.replace(parse_text(text), source=text) for _, text in fam]


def write_tests(tests: Sequence[A.Test], folder: str) -> list[str]:
    """Write tests as .litmus files into `folder` (made if missing), each
    named after its test; the paths written, in order."""
    import os

    from .errors import make_folder, write_output

    folder = make_folder(folder)
    paths = []
    for t in tests:
        safe = "".join(c if c.isalnum() or c in "+-_." else "_" for c in t.name)
        paths.append(os.path.join(folder, safe + ".litmus"))
        write_output(paths[-1], litmus_text(t))
    return paths


def litmus_text(t: A.Test) -> str:
    """A test as litmus text: C and OpenCL printed from the AST, a generated
    PTX or Vulkan test in Dat3M's dialect, any other test its file."""
    from .litmus.dat3m_print import to_dat3m
    from .litmus.printer import to_litmus

    if t.arch in ("C", "OpenCL"):
        return to_litmus(t)
    if t.path:
        with open(t.path, encoding="utf-8") as f:
            return f.read().rstrip() + "\n"
    if t.source is not None:
        return t.source
    return to_dat3m(t, t.arch)


def size(t: A.Test) -> tuple:
    """Smallest first: threads, then memory accesses."""
    return (len(t.threads), sum(len(th.ops) for th in t.threads), t.name)
