"""Cycles of relations, as herd's diy writes them (`Rfe PodRR Fre PodWW`):
the edges, the cycles of a family (rotations counted once, diy's -safe and
-relax), their names (MP, SB, ...), and the shape of the test a cycle
fixes: its threads' accesses, the values written and the outcome the
cycle describes. `generate` makes tests of them."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass


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
    # diy's access annotations after the edge (`PodWWRlxRel`): the order of
    # its source and target accesses ("na": plain), None where unpinned
    a1: str | None = None
    a2: str | None = None

    @property
    def rf(self) -> bool:
        return self.external and (self.src, self.tgt) == ("W", "R")

    @property
    def fr(self) -> bool:
        return self.external and (self.src, self.tgt) == ("R", "W")


# The edges a family is built from unless others are asked for.
EDGES = ("Rfe", "Fre", "Coe", "PodWW", "PodWR", "PodRW", "PodRR")
_COMMUNICATION = {"Rfe": ("W", "R"), "Fre": ("R", "W"), "Coe": ("W", "W"), "Wse": ("W", "W")}
# diy's C fence names (diy7's documentation, fence prefixes) -> hrf's orders
FENCES = {"Sc": "sc", "AR": "acq_rel", "Acq": "acq", "Rel": "rel"}
_EDGE = re.compile(r"(Pod|Pos|Fenced|Fence([A-Za-z]+?)d|Dp(Data|Ctrl|Addr)d)([RW])([RW])?")
# diy's C access annotations (herdtools7's memory orders, `Na` for a plain
# access), written after an edge for its source and target: -> hrf's orders
ANNOTATIONS = {"Na": "na", "Rlx": "rlx", "Acq": "acq", "Rel": "rel", "AR": "acq_rel", "Sc": "sc", "Con": "con"}
_ANN = "|".join(ANNOTATIONS)
_ANNOTATED = re.compile(rf"(.+?)({_ANN})({_ANN})")
LOCS = ["x", "y", "z", "w"]


@functools.cache
def edge(name: str) -> Edge:
    """The edge a diy name stands for, with its access annotations if it
    ends in two (`RfeRelAcq`: a release write read by an acquire read);
    InvalidArgument saying why not."""
    from .errors import InvalidArgument

    m = _ANNOTATED.fullmatch(name)
    if m is not None:
        try:
            base = _unannotated(m.group(1))
        except InvalidArgument:
            base = None
        if base is not None:
            a1, a2 = ANNOTATIONS[m.group(2)], ANNOTATIONS[m.group(3)]
            for end, kind, a in (("source", base.src, a1), ("target", base.tgt, a2)):
                why = _inapplicable(kind, a)
                if why:
                    raise InvalidArgument(f"edge {name!r}: its {end} is a {'read' if kind == 'R' else 'write'}; {why}")
            return dataclasses.replace(base, name=base.name + m.group(2) + m.group(3), a1=a1, a2=a2)
    return _unannotated(name)


# Orders a load or store of hrf's families cannot have (diy's C: no acquire
# write, no release read), and why.
NOT_FOR = {("W", "acq"): "a write has no acquire order", ("R", "rel"): "a read has no release order"}


def _inapplicable(kind: str, order: str) -> str | None:
    """Why an access of `kind` cannot carry annotation `order` in hrf's
    families, or None."""
    if order == "acq_rel":
        return "AR annotates read-modify-writes, which hrf's families do not make"
    if order == "con":
        return "Con (consume) is not generated: hrf's families read with rlx, acq or sc"
    return NOT_FOR.get((kind, order))


def _unannotated(name: str) -> Edge:
    from .errors import InvalidArgument

    if name in _COMMUNICATION:
        return Edge("Coe" if name == "Wse" else name, *_COMMUNICATION[name], True, True)  # Wse: diy's old Coe
    m = _EDGE.fullmatch(name)
    if m is None:
        raise InvalidArgument(
            f"unknown edge {name!r}; hrf generates Rfe, Fre, Coe (Wse), PodXY, PosXY, FencedXY, "
            f"Fence{{{','.join(FENCES)}}}dXY, DpDatadW, DpCtrldR, DpCtrldW, DpAddrdR, DpAddrdW (X, Y: R or W), "
            f"each optionally followed by the annotations of its two accesses ({', '.join(ANNOTATIONS)}: PodWWRlxRel)"
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
    if head in ("Pod", "Pos"):  # program order to another location (d), to the same one (s)
        return Edge(name, x, y, False, head == "Pos")
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
    pinned: str | None = None  # the order the edges' annotations give it ("na": plain)


def _pos(e: Edge) -> bool:
    """Program order to the same location (diy's Pos)."""
    return not e.external and e.same_loc


def _pinned(into: Edge, out: Edge) -> tuple[bool, str | None]:
    """The order annotations give the access between two edges (the target
    of `into`, the source of `out`): where both annotate it they must agree
    (diy's can_precede_atoms); (False, None) where they do not."""
    a, b = into.a2, out.a1
    if a is not None and b is not None and a != b:
        return False, None
    return True, a if a is not None else b


def rotation(words) -> tuple:
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
            if names == rotation(names) and valid_cycle(names, max_threads):
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
    # coherence shapes: program order to the same location (diy's Pos)
    "CoRR": "Rfe PosRR Fre",
    "CoWR": "PosWR Fre Coe",
    "CoRW": "PosRW Coe Rfe",
}


_CANONICAL = {rotation(v.split()): k for k, v in NAMED.items()}


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
    rot = rotation(words)
    npod = sum(not edge(e).same_loc for e in rot)  # each changes location: one location a segment
    if npod > len(LOCS):
        raise InvalidArgument(
            f"cycle {text!r} has {npod} edges that change location: hrf's tests use at most {len(LOCS)} "
            f"locations ({', '.join(LOCS)})"
        )
    for a, b in zip(words, words[1:] + words[:1], strict=True):
        if edge(a).tgt == edge(b).src and not _pinned(edge(a), edge(b))[0]:
            raise InvalidArgument(
                f"cycle {text!r}: {a} and {b} annotate the access between them differently "
                f"({edge(a).a2} and {edge(b).a1}); diy joins two edges only where their annotations agree"
            )
    if not valid_cycle(rot, len(words)):
        raise InvalidArgument(
            f"cycle {text!r} does not make a test: each edge's target kind (R/W) must be the next edge's source "
            "kind, po edges must be separated by communication edges, the cycle must visit 2 or more threads "
            "and come back, the coherence order it asks for must be one a final state can pin (at most two "
            "writes to a location, not ordered both ways), and two edges annotating one access must agree"
        )
    return rot


def valid_cycle(cyc, max_threads) -> bool:
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
    return cycle_shape(cyc) is not None


@functools.lru_cache(maxsize=4096)
def cycle_shape(cyc: tuple):
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
    for i, e in enumerate(order):
        src_kind = edge(e).src
        agree, pinned = _pinned(edge(order[i - 1]), edge(e))
        if not agree:
            return None
        accesses.append(Access(thread, src_kind, LOCS[seg % npod] if npod else LOCS[0], pinned))
        if edge(e).external:
            thread += 1
        if not edge(e).same_loc:
            seg += 1
    if not edge(order[-1]).external:
        return None  # the cycle must come back to thread 0 through another thread
    locs_used = {a.loc for a in accesses}
    if len(locs_used) > len(LOCS):
        return None
    # a location must not be used by two distinct po-separated sections of
    # one thread (two accesses joined by a Pos edge are one section)
    for t in {a.thread for a in accesses}:
        sections = [a.loc for i, a in enumerate(accesses) if a.thread == t and not (i > 0 and _pos(edge(order[i - 1])))]
        if len(set(sections)) != len(sections):
            return None
    shape = tuple(order), tuple(accesses)
    if cycle_values(*shape) is None:
        return None
    return shape


@functools.lru_cache(maxsize=4096)
def cycle_values(order, accesses):
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
    rf_from = {(i + 1) % n: i for i, e in enumerate(order) if edge(e).rf}
    hard: set = set()  # (w1, w2): w1 before w2 in coherence, as the cycle says
    soft: set = set()  # the same where it lets a read read the initial value
    for i, e in enumerate(order):
        j = (i + 1) % n
        if edge(e).same_loc and (edge(e).src, edge(e).tgt) == ("W", "W"):  # Coe, PosWW: coherence
            hard.add((i, j))
        elif edge(e).fr:
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
        elif edge(e).fr:
            target = (i + 1) % n
            before = [values[w] for w in writes_of[accesses[target].loc] if values[w] < values[target]]
            expect[i] = max(before, default=0)
        else:
            expect[i] = 0
    # a read that is from-read before a write must not read that write or a later one
    for i, e in enumerate(order):
        if edge(e).fr and expect[i] is not None and expect[i] >= values[(i + 1) % n]:
            return None
    return values, expect, final


def canonical_name(cyc) -> str | None:
    """The classic name of a cycle (MP, SB, IRIW, ...: `NAMED`), if it has one."""
    return _CANONICAL.get(rotation(cyc))


def cycle_name(cyc) -> str:
    return "-".join(cycle_shape(cyc)[0])
