"""One AST for every litmus syntax.

Nodes are frozen records (`node`, a frozen dataclass made cheaply; the
Test itself is a dataclass); source positions (`line`) do not take part
in equality, so that `parse(print(t)) == t` compares meaning, not layout.
Memory orders are normalised to `rlx, acq, rel, acq_rel, sc` (and `con`
for consume), scopes to `wi, sg, wg, dev, all`.
"""

from __future__ import annotations

import functools
from dataclasses import FrozenInstanceError, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_):
        return lambda f: f


@dataclass_transform(frozen_default=True)
def node(cls: Any = None, *, positions: tuple[str, ...] = ("line",)) -> Any:
    """A frozen record, as `@dataclass(frozen=True)` makes it (an __init__
    by field, equality and hash over the fields, a repr, no assignment),
    but cheaply: Python's dataclass machinery took about 1 ms a class, a
    third of `import hrf`; here the methods of every node of the module
    are compiled together, once (`_make_nodes`, at the end of the module).
    The fields in `positions` (a node's source line) are left out of
    equality, hash and repr. A node keeps its fields in slots, not in a
    dict of its own: a parsed test takes about half the memory (and a
    forked worker reading it copies half the pages)."""

    def make(cls):
        names = tuple(cls.__dict__.get("__annotations__", {}))
        defaults = {n: cls.__dict__[n] for n in names if n in cls.__dict__}
        ns = {k: v for k, v in cls.__dict__.items() if k not in defaults and k not in ("__dict__", "__weakref__")}
        # (a cached property, Thread.ops, keeps its value in a dict made when it is first read)
        cached = any(isinstance(v, functools.cached_property) for v in ns.values())
        ns["__slots__"] = names + (("__dict__",) if cached else ())
        slotted = type(cls.__name__, cls.__bases__, ns)
        slotted.__qualname__ = cls.__qualname__
        _PENDING.append((slotted, names, positions, defaults))
        return slotted

    return make if cls is None else make(cls)


_PENDING: list = []
_METHODS = ("__init__", "__eq__", "__hash__", "__repr__", "__reduce__")


def _make_nodes() -> None:
    src, spaces = [], {}
    for k, (cls, names, positions, defaults) in enumerate(_PENDING):
        spaces[f"_d{k}"] = defaults
        # a field set through its slot's descriptor (the node's own __setattr__ refuses)
        spaces.update({f"_s{k}_{i}": cls.__dict__[n].__set__ for i, n in enumerate(names)})
        compared = [n for n in names if n not in positions]
        args = "".join(f", {n}=_d{k}[{n!r}]" if n in defaults else f", {n}" for n in names)
        sets = "".join(f"    _s{k}_{i}(self, {n})\n" for i, n in enumerate(names))
        mine = "(" + "".join(f"self.{n}, " for n in compared) + ")"
        theirs = "(" + "".join(f"other.{n}, " for n in compared) + ")"
        shown = ", ".join(f"{n}={{self.{n}!r}}" for n in compared)
        every = "(" + "".join(f"self.{n}, " for n in names) + ")"
        src.append(
            f"def __init__{k}(self{args}):\n{sets}    return None\n"
            f"def __reduce__{k}(self):\n    return (self.__class__, {every})\n"
            f"def __eq__{k}(self, other):\n"
            f"    if other.__class__ is self.__class__:\n        return {mine} == {theirs}\n"
            "    return NotImplemented\n"
            f"def __hash__{k}(self):\n    return hash({mine})\n"
            f"def __repr__{k}(self):\n    return f'{{self.__class__.__qualname__}}({shown})'\n"
        )
    ns: dict = dict(spaces)
    exec(_compiled("".join(src)), ns)
    for k, (cls, *_) in enumerate(_PENDING):
        for m in _METHODS:
            f = ns[f"{m}{k}"]
            f.__name__, f.__qualname__ = m, f"{cls.__qualname__}.{m}"
            setattr(cls, m, f)
        cls.__setattr__ = _frozen
        cls.__delattr__ = _frozen
        cls.__node_fields__ = tuple(cls.__dict__.get("__annotations__", {}))
        setattr(cls, "__match_args__", cls.__node_fields__)  # noqa: B010 (mypy: not assignable)
    _PENDING.clear()


def _compiled(src: str):
    """The methods' code, compiled, from hrf's per-user cache where it is
    there (compiling them is most of the module's import time). The file
    holds the source with the code and is used only for the same source."""
    import marshal
    import sys
    import zlib

    from ..cache import read_or_build

    def read(f):
        cached_src, code = marshal.load(f)
        return code if cached_src == src else None

    return read_or_build(
        f"ast-nodes-{zlib.crc32((sys.version + src).encode()):08x}-{len(src)}.code",
        read,
        lambda: compile(src, "<hrf.litmus.ast nodes>", "exec"),
        lambda code, f: marshal.dump((src, code), f),
    )


def _frozen(self, name, *_):
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def fields_of(n) -> tuple[str, ...]:
    """The field names of a node (or of the Test, a dataclass)."""
    names = getattr(n, "__node_fields__", None)
    if names is None:
        import dataclasses

        names = tuple(f.name for f in dataclasses.fields(n))
    return names


def with_fields(n, **changes):
    """A copy of node `n` with some fields changed (`dataclasses.replace`
    for nodes)."""
    return type(n)(**{f: changes.get(f, getattr(n, f)) for f in fields_of(n)})


def type_bytes(dtype: str) -> int:
    """The bytes of a PTX access's type (`u32`: 4, `s8`: 1)."""
    return int(dtype[1:]) // 8


# ---------------------------------------------------------------- expressions
@node
class Const:
    value: int
    line: int = 0


@node
class Reg:
    name: str
    line: int = 0


@node
class BinOp:
    op: str  # + - * & | ^ == != < <= > >= && ||
    left: Expr
    right: Expr
    line: int = 0


@node
class UnOp:
    op: str  # ! -
    operand: Expr
    line: int = 0


@node
class Old:
    """The value the RMW reads, in its `update` alone."""

    line: int = 0


@node
class Load:
    """`*x` (atomic=False) or `atomic_load[_explicit][_remote](x, ...)`."""

    loc: str
    atomic: bool = False
    order: str | None = None
    scope: str | None = None
    remote: bool = False
    line: int = 0
    cache: str | None = None  # PTX cache operator: cg, ca, volatile, ...
    offset: Expr | None = None  # a computed address: element `offset` from `loc` (`y+r0`)
    tags: tuple[str, ...] = ()  # the dialect's own event tags (Dat3M's proxies, storage classes)
    dtype: str | None = None  # PTX: the access's type where it names one (u32, s64, b16)


@node
class Rmw:
    """`atomic_fetch_<op>`, `atomic_exchange`, `atomic_compare_exchange_strong`.

    `op` is add, sub, and, or, xor, exch or cas; for cas, `expected` names
    the location holding the expected value and `fail_order` the order of
    a failing compare."""

    op: str
    loc: str
    operand: Expr
    order: str = "sc"
    scope: str | None = None
    remote: bool = False
    expected: str | None = None
    fail_order: str | None = None
    line: int = 0
    expected_value: Expr | None = None
    offset: Expr | None = None  # a computed address, as for Load
    tags: tuple[str, ...] = ()  # as for Load
    # the orders of its read and its write where the dialect gives them
    # apart (Dat3M's PTX: acq_rel is an acquire read and a release write)
    orders: tuple[str, str] | None = None
    # tags of its read alone and of its write alone (Dat3M's Vulkan: the
    # read takes the acquire side, the write the release side)
    half_tags: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    # where set, the value it writes: an expression of `Old` (the value it reads) for an
    # object whose update is no one operation (an mbarrier's phase completing); `op` and
    # `operand` still say the instruction as written
    update: Expr | None = None


# The location of an access whose address is an expression, as a reader
# gives it (`offset` then holds the whole address, `y+r0`); `resolve_addresses`
# splits it into a location and an offset once the test's locations are known.
COMPUTED = "*"


@node
class DerefExpr:
    """`*(e)`: a load from a computed address, as a reader gives it;
    `resolve_addresses` makes it a Load with an offset."""

    addr: Expr
    line: int = 0


@node
class StoreExpr:
    """`(*x = e)` inside an expression: its value is the stored value."""

    loc: str
    value: Expr
    line: int = 0


Expr = Const | Reg | BinOp | UnOp | Load | Rmw | DerefExpr | StoreExpr | Old


# ---------------------------------------------------------------- statements
@node
class Assign:
    """`int r = e;` (decl=True) or `r = e;`; `e` None for a bare declaration;
    `pointer` for `int *r = e;`."""

    reg: str
    expr: Expr | None
    decl: bool = False
    line: int = 0
    pointer: bool = False


@node
class Store:
    """`*x = e;` (atomic=False) or `atomic_store[_explicit][_remote](x, e, ...)`."""

    loc: str
    value: Expr
    atomic: bool = False
    order: str | None = None
    scope: str | None = None
    remote: bool = False
    line: int = 0
    cache: str | None = None  # PTX cache operator
    offset: Expr | None = None  # a computed address, as for Load
    tags: tuple[str, ...] = ()  # as for Load
    dtype: str | None = None  # as for Load


@node
class Goto:
    """PTX `bra L`: a forward jump to label L of the same thread."""

    label: str
    line: int = 0


@node
class Label:
    name: str
    line: int = 0


@node
class ExprStmt:
    expr: Expr
    line: int = 0


@node
class Fence:
    """`atomic_work_item_fence(flags, order, scope)`."""

    flags: tuple[str, ...]
    order: str
    scope: str | None = None
    line: int = 0
    tags: tuple[str, ...] = ()  # as for Load


@node
class Barrier:
    """`[L:] barrier(flags)` / `work_group_barrier(flags[, scope])`; Dat3M's
    `bar.cta.sync 1` (label "1"), with a barrier resource and a quorum of
    threads where the test names them (`bar.cta.sync 1, r0, 2`)."""

    flags: tuple[str, ...]
    label: str | None = None
    scope: str | None = None
    line: int = 0
    tags: tuple[str, ...] = ()  # as for Load
    resource: Expr | None = None
    quorum: Expr | None = None
    arrive: bool = False  # PTX `bar.arrive`: signals the barrier without waiting at it
    order: str | None = None  # Vulkan's `cbar.acq_rel.wg.semsc0 0`: the barrier is a fence of that order too
    aligned: bool = False  # PTX's aligned form (`bar.sync`, `barrier.sync.aligned`): the warp executes it together


@node
class If:
    cond: Expr
    then: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...] = ()
    line: int = 0


@node
class While:
    cond: Expr
    body: tuple[Stmt, ...]
    line: int = 0


@node
class AnyOrder:
    """Statements executed in an order the program does not fix, some one
    order in each execution: the elements of a PTX vector access, "a set of
    equivalent memory operations with a scalar data type, executed in an
    unspecified order" ([PTXISA] "Memory Operations on Vector Data Types")."""

    body: tuple[Stmt, ...]
    line: int = 0

    def accesses(self) -> list:
        """The memory operation of each statement (a load's, not its assignment)."""
        return [s.expr if isinstance(s, Assign) else s for s in self.body]


Stmt = Assign | Store | ExprStmt | Fence | Barrier | If | While | Goto | Label | AnyOrder


# ---------------------------------------------------------------- test
@node
class Param:
    name: str
    region: str | None = None  # global / local / None (unstated)
    atomic: bool = False
    ctype: str = "int"
    points_to_pointer: bool = False  # `_Atomic (int *) *p`: the location holds a pointer


@node
class Thread:
    name: str  # P0, P1, ...
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    # Position in the scope tree; None where the test does not say.
    dev: int | None = None
    wg: int | None = None
    sg: int | None = None
    line: int = 0
    qf: int | None = None  # Vulkan's queue family (between work group and device)

    @property
    def index(self) -> int:
        return int(self.name[1:])

    @functools.cached_property
    def ops(self) -> tuple:
        """Every memory operation of the body in source order (`memory_ops`),
        computed once: models, validation and compilation all read them."""
        return tuple(memory_ops(self.body))


@node
class Init:
    loc: str
    value: int | str = 0  # a str is another location's address (C tests)
    alloc: str | None = None  # allocation class for observability (docs/readings.md)
    line: int = 0
    size: int | None = None  # an array `int y[size] = {elements}`: its elements are `y[0]`, `y[1]`, ...
    elements: tuple[int, ...] = ()  # an array's initial values (the rest are 0)
    width: int | None = None  # PTX: the bytes of an array's element, as its accesses' types say
    # PTX: an array accessed with several sizes; its elements are the narrowest access's bytes
    mixed: bool = False
    alias_of: str | None = None  # Dat3M: `y @ generic aliases x` (PTX), `y aliases x` (Vulkan)
    proxy: str | None = None  # the proxy of such an alias: generic, constant, texture, surface
    # PTX (sm_90): `shared` for a location in the shared memory of the CTA of
    # thread `owner`; `mbarrier` for an mbarrier object there (initialised
    # before the test), `mbarrier-uninit` for one a thread must initialise
    space: str | None = None
    owner: str | None = None

    def cells(self) -> list[tuple[str, int]]:
        """The locations the item declares, with their initial values: the
        location itself, or an array's elements `y[0]` .. `y[size-1]`."""
        if self.size is None:
            return [(self.loc, self.value if isinstance(self.value, int) else 0)]
        vals = list(self.elements) + [0] * (self.size - len(self.elements))
        return [(f"{self.loc}[{k}]", v) for k, v in enumerate(vals)]


@node
class RegInit:
    thread: int
    reg: str
    value: int
    line: int = 0


# condition propositions
@node
class PTrue:
    pass


@node
class PFalse:
    pass


@node
class RegVar:
    thread: int
    reg: str

    def __str__(self):
        return f"{self.thread}:{self.reg}"


@node
class LocVar:
    loc: str

    def __str__(self):
        return self.loc


@node
class PointeeVar:
    """`y*` in a `locations` clause: the location y points to."""

    loc: str

    def __str__(self):
        return f"{self.loc}*"


@node
class PAtom:
    var: RegVar | LocVar | PointeeVar
    value: int | str  # a str is a location's address


@node
class PCompare:
    """Dat3M's comparisons: `P0:r1 == P0:r2`, `x != 1`, `P0:r0 > 0` (an
    equation of a variable and a number is a PAtom)."""

    op: str  # == != < <= > >=
    left: RegVar | LocVar | int
    right: RegVar | LocVar | int


@node
class PNot:
    prop: Prop


@node
class PAnd:
    props: tuple[Prop, ...]


@node
class POr:
    props: tuple[Prop, ...]


Prop = PTrue | PFalse | PAtom | PCompare | PNot | PAnd | POr


@node
class Condition:
    quantifier: str  # exists, ~exists, forall
    prop: Prop


def condition_of(test) -> Condition:
    """A test's condition; a test without one says `forall (true)`, which
    every outcome satisfies (as herd reads it)."""
    return test.condition or Condition("forall", PTrue())


@dataclass(frozen=True)
class Test:  # a dataclass: `dataclasses.replace` renames tests
    arch: str  # OpenCL, C or GPU_PTX (what the test was written in)
    name: str
    threads: tuple[Thread, ...]
    init: tuple[Init, ...] = ()
    reg_init: tuple[RegInit, ...] = ()
    condition: Condition | None = None
    locations: tuple[RegVar | LocVar, ...] = ()
    path: str | None = field(default=None, compare=False)
    filter: Prop | None = None  # Dat3M's `filter p`: only executions where p holds count
    sync_with: tuple[tuple[int, int], ...] = ()  # Dat3M Vulkan's `ssw P0 P1` pairs
    # the text a generated test was read from, where no printer writes it (sm_90's forms)
    source: str | None = field(default=None, compare=False, repr=False)

    def all_locations(self) -> list[str]:
        """Every shared location, in order of first mention."""
        seen: dict[str, None] = {}
        for i in self.init:
            seen.setdefault(i.loc)
        for t in self.threads:
            for p in t.params:
                seen.setdefault(p.name)
        for t in self.threads:
            for loc in locations_of(t.ops):
                seen.setdefault(loc)
        return list(seen)

    def region_of(self, loc: str) -> str | None:
        """`global` or `local` as a parameter declares it; None for a
        pointer with no address space (OpenCL 2.0's generic space), which
        herd and Dat3M put in neither region."""
        for t in self.threads:
            for p in t.params:
                if p.name == loc and p.region:
                    return p.region
        return None


def walk_stmts(stmts):
    """Every statement, nested ones included, in source order."""
    for s in stmts:
        yield s
        if isinstance(s, If):
            yield from walk_stmts(s.then)
            yield from walk_stmts(s.orelse)
        elif isinstance(s, (While, AnyOrder)):
            yield from walk_stmts(s.body)


def walk_expr(e):
    yield e
    if isinstance(e, BinOp):
        yield from walk_expr(e.left)
        yield from walk_expr(e.right)
    elif isinstance(e, (UnOp, Rmw)):
        yield from walk_expr(e.operand)
        if isinstance(e, Rmw) and e.offset is not None:
            yield from walk_expr(e.offset)
    elif isinstance(e, Load) and e.offset is not None:
        yield from walk_expr(e.offset)
    elif isinstance(e, DerefExpr):
        yield from walk_expr(e.addr)
    elif isinstance(e, StoreExpr):
        yield from walk_expr(e.value)


def exprs_of(s):
    if isinstance(s, Assign) and s.expr is not None:
        return [s.expr]
    if isinstance(s, Store):
        return [s.value] if s.offset is None else [s.offset, s.value]
    if isinstance(s, ExprStmt):
        return [s.expr]
    if isinstance(s, (If, While)):
        return [s.cond]
    return []


def regs_read(s) -> list:
    """The registers a statement's expressions read (its own, not those of a nested body)."""
    return [x.name for e in exprs_of(s) for x in walk_expr(e) if isinstance(x, Reg)]


def with_nested(s, fn):
    """`s` with the bodies nested in it (an If's branches, a While's or an AnyOrder's body) mapped by `fn`."""
    if isinstance(s, If):
        return with_fields(s, then=fn(s.then), orelse=fn(s.orelse))
    if isinstance(s, (While, AnyOrder)):
        return with_fields(s, body=fn(s.body))
    return s


def memory_ops(stmts):
    """Every memory operation (Load, Store, Rmw, Fence, Barrier) of a body
    (and, as a reader gives them, the loads `*(e)` of `litmus/addresses.py`)."""
    for s in walk_stmts(stmts):
        if isinstance(s, (Store, Fence, Barrier)):
            yield s
        for e in exprs_of(s):
            for sub in walk_expr(e):
                if isinstance(sub, (Load, Rmw, StoreExpr, DerefExpr)):  # DerefExpr: only before it is resolved
                    yield sub


def prop_leaves(p):
    """Every leaf comparison of a proposition (PAtom, PCompare), in order."""
    if isinstance(p, (PAtom, PCompare)):
        yield p
    elif isinstance(p, PNot):
        yield from prop_leaves(p.prop)
    elif isinstance(p, (PAnd, POr)):
        for q in p.props:
            yield from prop_leaves(q)


def prop_atoms(p):
    """Every atom `var=value` of a condition's proposition."""
    return (x for x in prop_leaves(p) if isinstance(x, PAtom))


def prop_compares(p):
    """Every comparison (`PCompare`) of a proposition."""
    return (x for x in prop_leaves(p) if isinstance(x, PCompare))


def prop_vars(p):
    """Every variable a proposition names, in order (atoms' and comparisons')."""
    for x in prop_leaves(p):
        if isinstance(x, PAtom):
            yield x.var
        else:
            yield from (v for v in (x.left, x.right) if not isinstance(v, int))


def locations_of(ops):
    """The locations memory operations access, in order (a compare-exchange's expected one too)."""
    for op in ops:
        if isinstance(op, (Load, Store, Rmw, StoreExpr)):
            yield op.loc
            if isinstance(op, Rmw) and op.expected:
                yield op.expected


# ---------------------------------------------------------------- machine assembly (GPU_MACHINE tests)
@node(positions=())
class MachineInstr:
    """One instruction as written: `INCL1 r0 x` is ("INCL1", ("r0", "x"))."""

    mnemonic: str
    operands: tuple[str, ...]
    line: int
    col: int

    @property
    def text(self) -> str:
        return " ".join((self.mnemonic, *self.operands))


@node(positions=())
class MachineLabel:
    name: str
    line: int
    col: int


@node(positions=())
class MachineThread:
    name: str
    body: tuple[MachineInstr | MachineLabel, ...]
    # Position in the scope tree; None where the test does not say.
    dev: int | None = None
    wg: int | None = None


@node(positions=())
class MachineTest:
    """A GPU_MACHINE test as written; `hrf.machine.lower` makes the
    machine program of it."""

    name: str
    locations: tuple[tuple[str, int], ...]  # (name, initial value) in order
    threads: tuple[MachineThread, ...]
    condition: Condition | None
    path: str | None = None
    lines: int = 0  # the test's length, where an error about the whole condition points


_make_nodes()


def structure(node):
    """A node as nested tuples of every field, source lines included (which
    equality leaves out): to compare what two readers built, line by line."""
    if hasattr(node, "__node_fields__") or hasattr(node, "__dataclass_fields__"):
        return (type(node).__name__,) + tuple((f, structure(getattr(node, f))) for f in fields_of(node))
    if isinstance(node, (list, tuple)):
        return tuple(structure(x) for x in node)
    return node


COMPARE = {  # the comparisons of conditions and branches, on two numbers
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def prop_holds(p, state: dict) -> bool:
    """Whether a proposition holds of a final state ({"1:r0": 1, "x": 2},
    variables named as `str` names them)."""
    if isinstance(p, PTrue):
        return True
    if isinstance(p, PFalse):
        return False
    if isinstance(p, PAtom):
        return state.get(str(p.var)) == p.value
    if isinstance(p, PCompare):
        a, b = (x if isinstance(x, int) else state.get(str(x)) for x in (p.left, p.right))
        return a is not None and b is not None and COMPARE[p.op](a, b)
    if isinstance(p, PNot):
        return not prop_holds(p.prop, state)
    if isinstance(p, PAnd):
        return all(prop_holds(q, state) for q in p.props)
    if isinstance(p, POr):
        return any(prop_holds(q, state) for q in p.props)
    raise TypeError(p)
