"""One AST for every litmus syntax.

Nodes are frozen dataclasses; source positions (`line`) do not take part
in equality, so that `parse(print(t)) == t` compares meaning, not layout.
Memory orders are normalised to `rlx, acq, rel, acq_rel, sc` (and `con`
for consume), scopes to `wi, sg, wg, dev, all`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field


def _pos():
    return field(default=0, compare=False, repr=False)


# ---------------------------------------------------------------- expressions
@dataclass(frozen=True)
class Const:
    value: int
    line: int = _pos()


@dataclass(frozen=True)
class Reg:
    name: str
    line: int = _pos()


@dataclass(frozen=True)
class BinOp:
    op: str  # + - * & | ^ == != < <= > >= && ||
    left: Expr
    right: Expr
    line: int = _pos()


@dataclass(frozen=True)
class UnOp:
    op: str  # ! -
    operand: Expr
    line: int = _pos()


@dataclass(frozen=True)
class Load:
    """`*x` (atomic=False) or `atomic_load[_explicit][_remote](x, ...)`."""

    loc: str
    atomic: bool = False
    order: str | None = None
    scope: str | None = None
    remote: bool = False
    line: int = _pos()
    cache: str | None = None  # PTX cache operator: cg, ca, volatile, ...


@dataclass(frozen=True)
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
    line: int = _pos()
    expected_value: Expr | None = None


@dataclass(frozen=True)
class DerefExpr:
    """`*(e)`: a load from a computed address (C tests' fake dependencies)."""

    addr: Expr
    line: int = _pos()


@dataclass(frozen=True)
class StoreExpr:
    """`(*x = e)` inside an expression: its value is the stored value."""

    loc: str
    value: Expr
    line: int = _pos()


Expr = Const | Reg | BinOp | UnOp | Load | Rmw | DerefExpr | StoreExpr


# ---------------------------------------------------------------- statements
@dataclass(frozen=True)
class Assign:
    """`int r = e;` (decl=True) or `r = e;`; `e` None for a bare declaration;
    `pointer` for `int *r = e;`."""

    reg: str
    expr: Expr | None
    decl: bool = False
    line: int = _pos()
    pointer: bool = False


@dataclass(frozen=True)
class Store:
    """`*x = e;` (atomic=False) or `atomic_store[_explicit][_remote](x, e, ...)`."""

    loc: str
    value: Expr
    atomic: bool = False
    order: str | None = None
    scope: str | None = None
    remote: bool = False
    line: int = _pos()
    cache: str | None = None  # PTX cache operator


@dataclass(frozen=True)
class Goto:
    """PTX `bra L`: a forward jump to label L of the same thread."""

    label: str
    line: int = _pos()


@dataclass(frozen=True)
class Label:
    name: str
    line: int = _pos()


@dataclass(frozen=True)
class ExprStmt:
    expr: Expr
    line: int = _pos()


@dataclass(frozen=True)
class Fence:
    """`atomic_work_item_fence(flags, order, scope)`."""

    flags: tuple[str, ...]
    order: str
    scope: str | None = None
    line: int = _pos()


@dataclass(frozen=True)
class Barrier:
    """`[L:] barrier(flags)` / `work_group_barrier(flags[, scope])`."""

    flags: tuple[str, ...]
    label: str | None = None
    scope: str | None = None
    line: int = _pos()


@dataclass(frozen=True)
class If:
    cond: Expr
    then: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...] = ()
    line: int = _pos()


@dataclass(frozen=True)
class While:
    cond: Expr
    body: tuple[Stmt, ...]
    line: int = _pos()


Stmt = Assign | Store | ExprStmt | Fence | Barrier | If | While | Goto | Label


# ---------------------------------------------------------------- test
@dataclass(frozen=True)
class Param:
    name: str
    region: str | None = None  # global / local / None (unstated)
    atomic: bool = False
    ctype: str = "int"
    points_to_pointer: bool = False  # `_Atomic (int *) *p`: the location holds a pointer


@dataclass(frozen=True)
class Thread:
    name: str  # P0, P1, ...
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    # Position in the scope tree; None where the test does not say.
    dev: int | None = None
    wg: int | None = None
    sg: int | None = None
    line: int = _pos()

    @property
    def index(self) -> int:
        return int(self.name[1:])

    @functools.cached_property
    def ops(self) -> tuple:
        """Every memory operation of the body in source order (`memory_ops`),
        computed once: models, validation and compilation all read them."""
        return tuple(memory_ops(self.body))


@dataclass(frozen=True)
class Init:
    loc: str
    value: int | str = 0  # a str is another location's address (C tests)
    alloc: str | None = None  # allocation class for observability (docs/readings.md)
    line: int = _pos()


@dataclass(frozen=True)
class RegInit:
    thread: int
    reg: str
    value: int
    line: int = _pos()


# condition propositions
@dataclass(frozen=True)
class PTrue:
    pass


@dataclass(frozen=True)
class PFalse:
    pass


@dataclass(frozen=True)
class RegVar:
    thread: int
    reg: str

    def __str__(self):
        return f"{self.thread}:{self.reg}"


@dataclass(frozen=True)
class LocVar:
    loc: str

    def __str__(self):
        return self.loc


@dataclass(frozen=True)
class PointeeVar:
    """`y*` in a `locations` clause: the location y points to."""

    loc: str

    def __str__(self):
        return f"{self.loc}*"


@dataclass(frozen=True)
class PAtom:
    var: RegVar | LocVar | PointeeVar
    value: int | str  # a str is a location's address


@dataclass(frozen=True)
class PNot:
    prop: Prop


@dataclass(frozen=True)
class PAnd:
    props: tuple[Prop, ...]


@dataclass(frozen=True)
class POr:
    props: tuple[Prop, ...]


Prop = PTrue | PFalse | PAtom | PNot | PAnd | POr


@dataclass(frozen=True)
class Condition:
    quantifier: str  # exists, ~exists, forall
    prop: Prop


@dataclass(frozen=True)
class Test:
    arch: str  # OpenCL, C or GPU_PTX (what the test was written in)
    name: str
    threads: tuple[Thread, ...]
    init: tuple[Init, ...] = ()
    reg_init: tuple[RegInit, ...] = ()
    condition: Condition | None = None
    locations: tuple[RegVar | LocVar, ...] = ()
    path: str | None = field(default=None, compare=False)

    def all_locations(self) -> list[str]:
        """Every shared location, in order of first mention."""
        seen: dict[str, None] = {}
        for i in self.init:
            seen.setdefault(i.loc)
        for t in self.threads:
            for p in t.params:
                seen.setdefault(p.name)
        for t in self.threads:
            for loc in _locs_of(t.ops):
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
        elif isinstance(s, While):
            yield from walk_stmts(s.body)


def walk_expr(e):
    yield e
    if isinstance(e, BinOp):
        yield from walk_expr(e.left)
        yield from walk_expr(e.right)
    elif isinstance(e, (UnOp, Rmw)):
        yield from walk_expr(e.operand)
    elif isinstance(e, DerefExpr):
        yield from walk_expr(e.addr)
    elif isinstance(e, StoreExpr):
        yield from walk_expr(e.value)


def exprs_of(s):
    if isinstance(s, Assign) and s.expr is not None:
        return [s.expr]
    if isinstance(s, Store):
        return [s.value]
    if isinstance(s, ExprStmt):
        return [s.expr]
    if isinstance(s, (If, While)):
        return [s.cond]
    return []


def memory_ops(stmts):
    """Every memory operation (Load, Store, Rmw, Fence, Barrier) of a body."""
    for s in walk_stmts(stmts):
        if isinstance(s, (Store, Fence, Barrier)):
            yield s
        for e in exprs_of(s):
            for sub in walk_expr(e):
                if isinstance(sub, (Load, Rmw, StoreExpr)):
                    yield sub


def prop_atoms(p):
    """Every atom `var=value` of a condition's proposition."""
    if isinstance(p, PAtom):
        yield p
    elif isinstance(p, PNot):
        yield from prop_atoms(p.prop)
    elif isinstance(p, (PAnd, POr)):
        for q in p.props:
            yield from prop_atoms(q)


def _locs_of(ops):
    for op in ops:
        if isinstance(op, (Load, Store, Rmw, StoreExpr)):
            yield op.loc
            if isinstance(op, Rmw) and op.expected:
                yield op.expected


# ---------------------------------------------------------------- machine assembly (GPU_MACHINE tests)
@dataclass(frozen=True)
class MachineInstr:
    """One instruction as written: `INCL1 r0 x` is ("INCL1", ("r0", "x"))."""

    mnemonic: str
    operands: tuple[str, ...]
    line: int
    col: int

    @property
    def text(self) -> str:
        return " ".join((self.mnemonic, *self.operands))


@dataclass(frozen=True)
class MachineLabel:
    name: str
    line: int
    col: int


@dataclass(frozen=True)
class MachineThread:
    name: str
    body: tuple[MachineInstr | MachineLabel, ...]
    # Position in the scope tree; None where the test does not say.
    dev: int | None = None
    wg: int | None = None


@dataclass(frozen=True)
class MachineTest:
    """A GPU_MACHINE test as written; `hrf.machine.lower` makes the
    machine program of it."""

    name: str
    locations: tuple[tuple[str, int], ...]  # (name, initial value) in order
    threads: tuple[MachineThread, ...]
    condition: Condition | None
    path: str | None = None
    lines: int = 0  # the test's length, where an error about the whole condition points


def structure(node):
    """A node as nested tuples of every field, source lines included (which
    equality leaves out): to compare what two readers built, line by line."""
    import dataclasses

    if dataclasses.is_dataclass(node):
        fs = dataclasses.fields(node)
        return (type(node).__name__,) + tuple((f.name, structure(getattr(node, f.name))) for f in fs)
    if isinstance(node, (list, tuple)):
        return tuple(structure(x) for x in node)
    return node
