"""The relational DSL models are written in (docs/readings.md).

Sets and relations over the events of an execution, written with Python
operators and compiled to the IR evaluated by the Rust core:

    r | s    union            r & s    intersection      r - s   difference
    r >> s   sequence (r;s)   r.inv    inverse           ~S      complement of a set
    r.plus   r+               r.star   r*                r.opt   r?
    I(S)     [S]              S * T    cartesian product
    dom(r), ran(r)            foreach("sinst", lambda S: ...)

A `Model` collects named checks: `acyclic`, `irreflexive`, `empty`, each a
consistency axiom or, with `flag=`, an undefined-behaviour flag.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # the IR's types, for annotations only (imported lazily: cold start)
    from . import ir as ir_types


def _ir_node(key: tuple, operands: list[int]) -> ir_types.AnyNode:
    """A node of the model IR: its op and fields, operands by index."""
    op = key[0]
    if op in ("tag", "base", "same_thread_attr", "same_event_attr", "var", "rel_var"):
        return {"op": op, "name": key[1]}  # type: ignore[return-value]
    if op in ("all_set", "empty_set"):
        return {"op": op}  # type: ignore[return-value]
    if op == "foreach":
        return {"op": "foreach", "attr": key[1], "var": key[2], "body": operands[0]}
    if op == "fix":
        return {"op": "fix", "var": key[1], "body": operands[0]}  # type: ignore[return-value]
    if len(key) == 2:
        return {"op": op, "a": operands[0]}  # type: ignore[return-value]
    return {"op": op, "a": operands[0], "b": operands[1]}  # type: ignore[return-value]


class _Node:
    __slots__ = ("key", "is_set")

    def __init__(self, key: tuple, is_set: bool):
        self.key = key
        self.is_set = is_set

    def __repr__(self):
        return f"{'Set' if self.is_set else 'Rel'}{self.key}"


class Set(_Node):
    def __init__(self, key):
        super().__init__(key, True)

    def __or__(self, o):
        return Set(("set_union", self, _want(o, True)))

    def __and__(self, o):
        return Set(("set_inter", self, _want(o, True)))

    def __sub__(self, o):
        return Set(("set_diff", self, _want(o, True)))

    def __invert__(self):
        return Set(("set_diff", ALL, self))

    def __mul__(self, o):
        return Rel(("prod", self, _want(o, True)))


class Rel(_Node):
    def __init__(self, key):
        super().__init__(key, False)

    def __or__(self, o):
        return Rel(("union", self, _want(o, False)))

    def __and__(self, o):
        return Rel(("inter", self, _want(o, False)))

    def __sub__(self, o):
        return Rel(("diff", self, _want(o, False)))

    def __rshift__(self, o):
        return Rel(("seq", self, _want(o, False)))

    @property
    def inv(self):
        return Rel(("inv", self))

    @property
    def plus(self):
        return Rel(("plus", self))

    @property
    def star(self):
        return Rel(("star", self))

    @property
    def opt(self):
        return Rel(("opt", self))


def _want(x, is_set):
    if not isinstance(x, _Node) or x.is_set != is_set:
        raise TypeError(f"expected a {'set' if is_set else 'relation'}, got {x!r}")
    return x


# ---------------------------------------------------------------- builders
# Relations the core computes from an execution (rust/src/model.rs).
BASE_RELATIONS = (
    "po",
    "rf",
    "co",
    "fr",
    "rmw",
    "loc",
    "int",
    "ext",
    "id",
    "universal",
    "empty",
    "data",
    "ctrl",
    "addr",
    "ssw",  # system-synchronises-with (Dat3M's Vulkan: the test's `ssw P0 P1` pairs)
)


def _known(what: str, name, known) -> None:
    """A misspelt name would be an empty set or relation without a word:
    refuse it (in a model file, the error names its line)."""
    if name not in known:
        raise ValueError(f"unknown {what} {name!r}; known: {', '.join(sorted(known))}")


def tag(name: str) -> Set:
    """Events whose template carries `name` (hrf.program.TAGS lists them)."""
    from .program import TAGS

    _known("tag", name, TAGS)
    return Set(("tag", name))


def base(name: str) -> Rel:
    """A relation the core computes (BASE_RELATIONS)."""
    _known("base relation", name, BASE_RELATIONS)
    return Rel(("base", name))


def same_thread_attr(name: str) -> Rel:
    """Pairs of thread events whose threads agree on `name` (wi, sg, wg, dev)."""
    from .program import THREAD_ATTRS

    _known("thread attribute", name, THREAD_ATTRS)
    return Rel(("same_thread_attr", name))


def same_event_attr(name: str) -> Rel:
    """Pairs of events with the same value of template attribute `name`."""
    from .program import EVENT_ATTRS

    _known("event attribute", name, EVENT_ATTRS)
    return Rel(("same_event_attr", name))


def I(s: Set) -> Rel:
    """`[S]`: the identity on S."""
    return Rel(("ident", _want(s, True)))


def dom(r: Rel) -> Set:
    return Set(("domain", _want(r, False)))


def ran(r: Rel) -> Set:
    return Set(("range", _want(r, False)))


_vars = [0]


def foreach(attr: str, body: Callable[[Set], Rel]) -> Rel:
    """Union, over the classes of events sharing a value of `attr`, of
    body(class). E.g. HRF-direct's union over scope instances."""
    from .program import EVENT_ATTRS

    _known("event attribute", attr, EVENT_ATTRS)
    _vars[0] += 1
    name = f"v{_vars[0]}"
    b = _want(body(Set(("var", name))), False)
    return Rel(("foreach", attr, name, b))


def fix(body: Callable[[Rel], Rel]) -> Rel:
    """The least fixed point of body (cat's `let rec r = ...`): the least
    relation X with X = body(X), reached from the empty relation. body must
    be monotone in X (cat's recursive definitions are)."""
    _vars[0] += 1
    name = f"x{_vars[0]}"
    b = _want(body(Rel(("rel_var", name))), False)
    return Rel(("fix", name, b))


def seq(*rs: Rel) -> Rel:
    out = rs[0]
    for r in rs[1:]:
        out = out >> r
    return out


ALL = Set(("all_set",))
EMPTY_SET = Set(("empty_set",))
R, W, F, M, IW = tag("R"), tag("W"), tag("F"), tag("M"), tag("IW")
po, rf, co, fr, rmw = base("po"), base("rf"), base("co"), base("fr"), base("rmw")
loc, int_, ext, id_ = base("loc"), base("int"), base("ext"), base("id")
universal = base("universal")


# ---------------------------------------------------------------- models
class Check:
    def __init__(self, kind: Literal["acyclic", "irreflexive", "empty"], rel: Rel, name: str, flag: str | None):
        self.kind, self.rel, self.name, self.flag = kind, _want(rel, False), name, flag


class Model:
    """A memory model: checks over relations, plus what it accepts.

    `supports(test)` raises UnsupportedFeature for operations the model does
    not cover (docs/readings.md)."""

    def __init__(
        self,
        name: str,
        doc: str = "",
        supports: Callable | None = None,
        cas_writeback: bool | None = None,
        thin_air: bool = False,
        uniproc: bool | tuple[str, ...] = False,
        rmw_chains: tuple[str, ...] = (),
        rmw_chain_order: tuple[tuple[str, ...], tuple[str, ...]] | None = None,
        vector_orders_sync_only: bool = False,
        mixed_sizes: bool = False,
    ):
        self.name = name
        self.doc = doc
        # Do the model's axioms admit values out of thin air (no axiom forbids
        # a cycle of dependencies through reads-from)? Then reads may guess
        # such values by default (hrf.Limits.thin_air overrides), so that a
        # check gives the model's own answer, known flaws included.
        self.thin_air = thin_air
        # Does a failing compare-exchange write back the value it read? None:
        # each instruction as its language says: C11's compare-exchange
        # writes it into the expected object (C11 7.17.7.4), PTX's atom.cas
        # writes nothing (the PTX ISA: memory is unchanged when the compare
        # fails). True: both write back (PTX's atom.cas the old value to its
        # own location, Dartagnan's reading); False: neither does (the RSP
        # artifact's herd). hrf.program compiles tests accordingly.
        self.cas_writeback = cas_writeback
        # Do the model's axioms imply coherence within a thread (herd's
        # "uniproc"): a read of a location that no other thread accesses
        # reads the last write to it before it in program order, or the
        # initial value? Then the enumerator gives such reads that value
        # alone instead of every value the location may hold (loops that
        # retry through a private variable stop multiplying paths). Only
        # a model that states it gets it; the reference enumerator
        # (Limits.reference) ignores it, and property tests compare. A tuple
        # of tags: only for locations whose every access carries one of them.
        self.uniproc = uniproc
        # Do the model's axioms make the RMWs carrying one of these tags
        # atomic with a thread's other such RMWs of their location (each
        # reads the write just before its own in coherence order)? Then,
        # where one thread's such RMWs are a location's only writes, the
        # enumerator drops the paths of that thread whose RMWs of it do not
        # form one chain from the initial value. As for uniproc, the
        # reference enumerator ignores it and property tests compare.
        self.rmw_chains = rmw_chains
        # With rmw_chains: do the axioms also put such an RMW before, in
        # coherence, each later one of its thread in program order? A pair
        # of tag tuples (not_from, not_to): but from an RMW carrying one of
        # not_from (what follows it is not ordered after it) and to one
        # carrying one of not_to (it is not ordered after what precedes it).
        self.rmw_chain_order = rmw_chain_order
        # Do the model's axioms see the order of a vector access's elements
        # (`AnyOrder`: an order each execution chooses) only where they
        # acquire or release? Then a vector of weak or relaxed elements is
        # compiled in its written order alone, not in each of its n! orders.
        # As for uniproc, the reference enumerator ignores it and property
        # tests compare.
        self.vector_orders_sync_only = vector_orders_sync_only
        # Do the model's checks say what accesses of several sizes to one array mean (PTX's
        # "mixed-size" accesses: an event per element an access covers, tagged MIXED, with its
        # access `acc` and footprint `fp`)? A test with such an array is refused by the others.
        self.mixed_sizes = mixed_sizes
        self.checks: list[Check] = []
        self.orders: list[tuple[str, Set]] = []
        self.shows: list[tuple[str, Rel]] = []
        self._supports = supports
        self._ir: ir_types.ModelIr | None = None
        self._ir_json: str | None = None

    def _add(self, kind, rel, name, flag):
        if any(c.name == name for c in self.checks):
            raise ValueError(f"model {self.name}: two checks named {name}")
        self.checks.append(Check(kind, rel, name, flag))
        self._ir = None

    def total_order(self, name: str, over: Set) -> Rel:
        """A witness order: the core tries every total order of the events
        of `over` (a set fixed by the events, not by rf/co) and the model's
        checks keep the candidates for which one exists. Returns it as a
        relation, e.g. HRF-relaxed's apparent order sc ([HRFR15] Fig. 9)."""
        if any(n == name for n, _ in self.orders) or name in ("po", "rf", "co", "fr", "rmw", "loc"):
            raise ValueError(f"model {self.name}: order name {name!r} is taken")
        self.orders.append((name, _want(over, True)))
        self._ir = None
        return Rel(("base", name))

    def show(self, name: str, rel: Rel) -> None:
        """Report `rel` for witness executions (herd's `show`): drawn as
        labelled edges in execution graphs, e.g. synchronisation."""
        self.shows.append((name, _want(rel, False)))
        self._ir = None

    def acyclic(self, rel: Rel, name: str, flag: str | None = None):
        self._add("acyclic", rel, name, flag)

    def irreflexive(self, rel: Rel, name: str, flag: str | None = None):
        self._add("irreflexive", rel, name, flag)

    def empty(self, rel: Rel, name: str, flag: str | None = None):
        self._add("empty", rel, name, flag)

    def without(self, *checks: str, name: str | None = None) -> Model:
        """This model less the named checks (an ablation: which axiom decides
        a test), as a new model with its own IR."""
        import copy

        unknown = set(checks) - {c.name for c in self.checks}
        if unknown:
            raise ValueError(f"model {self.name} has no check {', '.join(sorted(unknown))}")
        m = copy.copy(self)
        m.checks = [c for c in self.checks if c.name not in checks]
        m.orders, m.shows = list(self.orders), list(self.shows)
        m.name = name or f"{self.name} without {', '.join(checks)}"
        m._ir = m._ir_json = None
        return m

    def supports(self, test) -> None:
        if self._supports is not None:
            self._supports(test)
        mixed = next((i for i in getattr(test, "init", ()) if getattr(i, "mixed", False)), None)
        if mixed is not None and not self.mixed_sizes:
            from .errors import UnsupportedFeature

            raise UnsupportedFeature(
                f"{self.name} does not say what accesses of several sizes to one array mean "
                f"({mixed.loc}); the PTX models do (ptx-6.0, ptx-7.5, ptx-8.0)",
                getattr(test, "path", None),
                mixed.line or None,
            )

    @property
    def flags(self) -> list[str]:
        return sorted({c.flag for c in self.checks if c.flag})

    def ir_json(self) -> str:
        """The IR as the JSON the core reads, built once per model."""
        if self._ir_json is None or self._ir is None:
            import json

            self._ir_json = json.dumps(self.ir(), separators=(",", ":"))
        return self._ir_json

    def ir(self) -> ir_types.ModelIr:
        """The DAG of nodes (shared subexpressions once) and the checks."""
        if self._ir is not None:
            return self._ir
        nodes: list[ir_types.AnyNode] = []
        # A node's structural key is flat: its op, its atoms and the indices
        # of its operands, so shared subexpressions are found in time linear
        # in the DAG (nested keys would be hashed once per path: exponential
        # in a model's sharing).
        index: dict = {}  # flat structural key -> index in nodes
        done: dict[int, int] = {}  # id(node) -> index in nodes (all the model's: ids stay unique)

        def emit(root: _Node) -> int:
            # iterative, depth first, operands before the node: the same
            # order as a recursive walk, at any nesting depth
            stack: list[tuple[_Node, bool]] = [(root, False)]
            while stack:
                n, ready = stack.pop()
                if id(n) in done:
                    continue
                operands = [x for x in n.key if isinstance(x, _Node)]
                if not ready:
                    stack.append((n, True))
                    stack.extend((x, False) for x in reversed(operands) if id(x) not in done)
                    continue
                flat = tuple(("node", done[id(x)]) if isinstance(x, _Node) else x for x in n.key)
                at = index.get(flat)
                if at is None:
                    at = index[flat] = len(nodes)
                    nodes.append(_ir_node(n.key, [done[id(x)] for x in operands]))
                done[id(n)] = at
            return done[id(root)]

        orders: list[ir_types.OrderDecl] = [{"name": n, "set": emit(st)} for n, st in self.orders]
        shows: list[tuple[str, int]] = [(n, emit(r)) for n, r in self.shows]
        checks: list[ir_types.Check] = [
            {"kind": c.kind, "node": emit(c.rel), "name": c.name, "flag": c.flag} for c in self.checks
        ]
        ir: ir_types.ModelIr = {"name": self.name, "nodes": nodes, "checks": checks, "orders": orders, "shows": shows}
        if self.uniproc:
            ir["uniproc"] = True
            if isinstance(self.uniproc, tuple):
                ir["uniproc_tags"] = list(self.uniproc)
        if self.rmw_chains:
            ir["rmw_chains"] = list(self.rmw_chains)
            if self.rmw_chain_order is not None:
                not_from, not_to = self.rmw_chain_order
                ir["rmw_chain_order"] = {"not_from": list(not_from), "not_to": list(not_to)}
        self._ir = ir
        return ir
