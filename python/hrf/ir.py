"""The documents that cross between Python and the Rust core, as typed
dictionaries mirroring the Rust types (their JSON form): the program IR
(`rust/src/program.rs`), the model IR (`rust/src/model.rs`), the machine
program (`rust/src/machine/program.rs`), the limits (`rust/src/limits.rs`)
and the core's replies (`enumerate.rs`, `machine/report.rs`). Producers
build these and consumers read them; the core refuses an unknown field,
and `tests/test_ir_boundary.py` checks every class here against the JSON
Schema the core derives from its own types (`hrf._core.ir_schema`).

A tagged Rust enum is one class per variant, its tag a Literal; fields
the core may go without (serde defaults, options) are in a `total=False`
class.

One module past 600 lines, on purpose: it is the whole contract with the
core, one class per Rust type in the order of the Rust files, so that a
change on either side is checked against one place (and the boundary test
reads it as one); it holds declarations only, no logic."""

from __future__ import annotations

from typing import Any, Literal, TypedDict


# ---------------------------------------------------------------- expressions and conditions
class ExprC(TypedDict):
    k: Literal["c"]
    v: int


class ExprR(TypedDict):
    k: Literal["r"]
    r: int


class ExprBin(TypedDict):
    k: Literal["bin"]
    o: str
    a: Expr
    b: Expr


class ExprNot(TypedDict):
    k: Literal["not"]
    a: Expr


class ExprNeg(TypedDict):
    k: Literal["neg"]
    a: Expr


class ExprOld(TypedDict):
    k: Literal["old"]


Expr = ExprC | ExprR | ExprBin | ExprNot | ExprNeg | ExprOld


class CondTrue(TypedDict):
    k: Literal["true"]


class CondFalse(TypedDict):
    k: Literal["false"]


class CondEq(TypedDict):
    k: Literal["eq"]
    var: int
    val: int


class ArgVar(TypedDict):
    k: Literal["var"]
    var: int


class ArgVal(TypedDict):
    k: Literal["val"]
    val: int


class CondCmp(TypedDict):
    k: Literal["cmp"]
    op: Literal["==", "!=", "<", "<=", ">", ">="]
    a: ArgVar | ArgVal
    b: ArgVar | ArgVal


class CondAnd(TypedDict):
    k: Literal["and"]
    args: list[Cond]


class CondOr(TypedDict):
    k: Literal["or"]
    args: list[Cond]


class CondNot(TypedDict):
    k: Literal["not"]
    a: Cond


Cond = CondTrue | CondFalse | CondEq | CondCmp | CondAnd | CondOr | CondNot


class ObservedReg(TypedDict):
    kind: Literal["reg"]
    thread: int
    reg: int


class ObservedLoc(TypedDict):
    kind: Literal["loc"]
    loc: int


Observed = ObservedReg | ObservedLoc

# ---------------------------------------------------------------- the program IR
RmwOp = Literal[
    "add",
    "sub",
    "mul",
    "and",
    "or",
    "xor",
    "exch",
    "cas",
    "casold",
    "casalways",
    "min",
    "max",
    "umin",
    "umax",
    "inc",
    "dec",
    "update",
]


class _Location(TypedDict):
    name: str
    init: int


class Location(_Location, total=False):
    tags: list[str]
    attrs: dict[str, int]


class _Thread(TypedDict):
    name: str
    nregs: int
    code: list[AnyInstr]


class Thread(_Thread, total=False):
    attrs: dict[str, int]  # the scope tree: wg, dev, sg, ...
    regs: list[str]  # register names by index (for people and the schemes)


class _EventTemplate(TypedDict):
    kind: Literal["R", "W", "F"]


class EventTemplate(_EventTemplate, total=False):
    tags: list[str]
    attrs: dict[str, int]
    unseq: list[tuple[int, int]]
    value_attr: str  # the attribute whose value is the event's own (a barrier resource in a register)


class At(TypedDict):
    """A computed address: element `off` of the `len` locations from `loc`."""

    off: Expr
    len: int


class _Load(TypedDict):
    op: Literal["load"]
    loc: int
    ev: int


class Load(_Load, total=False):
    dst: int | None
    at: At | None


class _Store(TypedDict):
    op: Literal["store"]
    loc: int
    val: Expr
    ev: int


class Store(_Store, total=False):
    at: At | None


class FailStore(TypedDict):
    loc: int
    ev: int


class _Rmw(TypedDict):
    op: Literal["rmw"]
    loc: int
    rmw: RmwOp
    val: Expr
    ev_r: int
    ev_w: int


class Rmw(_Rmw, total=False):
    dst: int | None
    expected: Expr | None
    ev_fail: int | None
    fail_store: FailStore | None
    at: At | None


class _Fence(TypedDict):
    op: Literal["fence"]
    ev: int


class Fence(_Fence, total=False):
    val: Expr  # the event's value: a barrier resource held in a register


class Assign(TypedDict):
    op: Literal["assign"]
    dst: int
    val: Expr


class Choose(TypedDict):
    op: Literal["choose"]
    target: int


class Branch(TypedDict):
    op: Literal["branch"]
    cond: Expr
    target: int


class Jump(TypedDict):
    op: Literal["jump"]
    target: int


class Cut(TypedDict):
    op: Literal["cut"]


Instr = Load | Store | Rmw | Fence | Assign | Choose | Branch | Jump | Cut


class _Op(TypedDict):
    op: str


class AnyInstr(_Op, total=False):
    """Any variant of `Instr`: what code that walks instructions generically
    reads (a key outside every variant is still a type error)."""

    dst: int | None
    loc: int
    ev: int
    val: Expr
    rmw: RmwOp
    expected: Expr | None
    ev_r: int
    ev_w: int
    ev_fail: int | None
    fail_store: FailStore | None
    at: At | None
    cond: Expr
    target: int


class _Program(TypedDict):
    name: str
    locations: list[Location]
    threads: list[Thread]
    templates: list[EventTemplate]
    observed: list[Observed]
    condition: Cond


class Program(_Program, total=False):
    deciding_value: bool  # the condition's value on an execution that settles the quantifier
    filter: Cond
    partial_co: bool
    sync_with: list[tuple[int, int]]
    quorums: list[Quorum]


class Quorum(TypedDict):
    q: int
    sync: list[int]
    all: list[int]


# ---------------------------------------------------------------- the model IR
class NodeNamed(TypedDict):
    op: Literal["tag", "var", "rel_var", "base", "same_thread_attr", "same_event_attr"]
    name: str


class NodeConst(TypedDict):
    op: Literal["all_set", "empty_set"]


class NodeUnary(TypedDict):
    op: Literal["domain", "range", "ident", "inv", "plus", "star", "opt"]
    a: int


class NodeBinary(TypedDict):
    op: Literal["set_union", "set_inter", "set_diff", "prod", "union", "inter", "diff", "seq"]
    a: int
    b: int


class NodeForeach(TypedDict):
    op: Literal["foreach"]
    attr: str
    var: str
    body: int


class NodeFix(TypedDict):
    op: Literal["fix"]
    var: str
    body: int


Node = NodeNamed | NodeConst | NodeUnary | NodeBinary | NodeForeach | NodeFix


class AnyNode(_Op, total=False):
    """Any variant of `Node`, for code that walks the DAG generically."""

    name: str
    a: int
    b: int
    attr: str
    var: str
    body: int


class _Check(TypedDict):
    kind: Literal["acyclic", "irreflexive", "empty"]
    node: int
    name: str


class Check(_Check, total=False):
    flag: str | None


class OrderDecl(TypedDict):
    name: str
    set: int


class _ModelIr(TypedDict):
    name: str
    nodes: list[AnyNode]
    checks: list[Check]


class RmwChainOrder(TypedDict, total=False):
    not_from: list[str]
    not_to: list[str]


class ModelIr(_ModelIr, total=False):
    orders: list[OrderDecl]
    shows: list[tuple[str, int]]
    uniproc: bool
    uniproc_tags: list[str]
    rmw_chains: list[str]
    rmw_chain_order: RmwChainOrder


# ---------------------------------------------------------------- limits
class Limits(TypedDict, total=False):
    max_candidates: int
    max_seconds: float | None
    max_memory: int | None
    thin_air: bool
    max_paths: int
    max_values: int
    reference: bool
    keep_all: bool
    max_kept: int | None
    witnesses: bool
    decide: bool


class ExploreLimits(TypedDict, total=False):
    max_states: int | None
    max_seconds: float | None
    max_memory: int | None
    deadlocks: bool


# ---------------------------------------------------------------- the machine program
Scope = Literal["wg", "dev", "all"]


class MLd(TypedDict):
    op: Literal["ld"]
    dst: int
    loc: int


class MSt(TypedDict):
    op: Literal["st"]
    loc: int
    val: Expr


class _MRmw(TypedDict):
    op: Literal["rmw"]
    level: int
    loc: int
    rmw: RmwOp
    val: Expr


class MRmw(_MRmw, total=False):
    dst: int | None
    expected: Expr | None


class MCache(TypedDict):
    op: Literal["flu", "inv"]
    level: int
    scope: Scope


class MLock(TypedDict):
    op: Literal["lk", "unlk"]
    loc: int


class MRmwLock(TypedDict):
    op: Literal["lkrmw", "unlkrmw"]
    scope: Scope


class MAssign(TypedDict):
    op: Literal["assign"]
    dst: int
    val: Expr


class MBranch(TypedDict):
    op: Literal["branch"]
    cond: Expr
    target: int


class MJump(TypedDict):
    op: Literal["jump"]
    target: int


class MCut(TypedDict):
    op: Literal["cut"]


MInstr = MLd | MSt | MRmw | MCache | MLock | MRmwLock | MAssign | MBranch | MJump | MCut


class AnyMInstr(_Op, total=False):
    """Any variant of `MInstr`, for code that walks machine code generically."""

    dst: int | None
    loc: int
    val: Expr
    level: int
    rmw: RmwOp
    expected: Expr | None
    scope: Scope
    cond: Expr
    target: int


class _MLocation(TypedDict):
    name: str


class MLocation(_MLocation, total=False):
    init: int


class MThread(TypedDict):
    name: str
    dev: int
    wg: int
    nregs: int
    code: list[AnyMInstr]


class _MProgram(TypedDict):
    name: str
    locations: list[MLocation]
    threads: list[MThread]
    observed: list[Observed]
    condition: Cond


class MProgram(_MProgram, total=False):
    writeback: Literal["fifo", "any"]
    reduce: bool


# ---------------------------------------------------------------- the core's replies
class LimitOut(TypedDict):
    which: str
    detail: str


class _Event(TypedDict):
    id: int
    kind: Literal["R", "W", "F"]
    value: int


class Event(_Event, total=False):
    loc: int | None
    thread: int | None
    pc: int | None
    template: int | None


class ExecutionOut(TypedDict):
    events: list[Event]
    rf: list[tuple[int, int]]
    co: list[tuple[int, int]]
    po: list[tuple[int, int]]
    rmw: list[tuple[int, int]]
    shown: list[tuple[str, list[tuple[int, int]]]]
    raised: list[tuple[str, str, list[int]]]
    outcome: list[int]
    data: list[tuple[int, int]]
    ctrl: list[tuple[int, int]]
    addr: list[tuple[int, int]]
    # the model's witness orders as found for this execution: events, first to last
    orders: list[tuple[str, list[int]]]


class _OutcomeOut(TypedDict):
    values: list[int]
    count: int
    positive: bool
    flagged: bool


class OutcomeOut(_OutcomeOut, total=False):
    witness: ExecutionOut | None


class _FlagOut(TypedDict):
    kind: str
    check: str
    events: list[int]


class FlagOut(_FlagOut, total=False):
    execution: ExecutionOut | None


class _CheckOut(TypedDict):
    complete: bool
    candidates: int
    consistent: int
    pruned: int
    flagged_executions: int
    positive: int
    negative: int
    outcomes: list[OutcomeOut]
    flags: list[FlagOut]
    executions: list[ExecutionOut]
    cut_paths: list[int]
    seconds: float
    blocked: int


class CheckOut(_CheckOut, total=False):
    limit: LimitOut | None
    thin_air_value: int | None


class MOutcomeOut(TypedDict):
    values: list[int]
    holds: bool
    trace: list[dict[str, Any]]


class StuckOut(TypedDict):
    trace: list[dict[str, Any]]
    waiting: list[tuple[int, int]]
    state: dict[str, Any]


class FaultOut(TypedDict):
    message: str
    trace: list[dict[str, Any]]


class PhaseSeconds(TypedDict):
    expand: float
    enter: float
    store: float
    outcomes: float
    deadlocks: float
    serial: float


class _ExploreOut(TypedDict):
    complete: bool
    states: int
    final_states: int
    transitions: int
    layers: int
    depth: int
    threads: int
    seconds: float
    bytes_per_state: float
    outcomes: list[MOutcomeOut]
    faults: list[FaultOut]
    cut: int
    phase_seconds: PhaseSeconds


class ExploreOut(_ExploreOut, total=False):
    limit: LimitOut | None
    deadlocks: int | None
    deadlock: StuckOut | None


# The Rust type each class mirrors: a struct by its name, a variant of a
# tagged enum as (enum, tag). tests/test_ir_boundary.py checks them all.
MIRRORS: dict[str | tuple[str, str], Any] = {
    **{
        ("Expr", t): c
        for t, c in [("c", ExprC), ("r", ExprR), ("bin", ExprBin), ("not", ExprNot), ("neg", ExprNeg), ("old", ExprOld)]
    },
    **{
        ("Cond", t): c
        for t, c in [
            ("true", CondTrue),
            ("false", CondFalse),
            ("eq", CondEq),
            ("cmp", CondCmp),
            ("and", CondAnd),
            ("or", CondOr),
            ("not", CondNot),
        ]
    },
    ("Arg", "var"): ArgVar,
    ("Arg", "val"): ArgVal,
    ("Observed", "reg"): ObservedReg,
    ("Observed", "loc"): ObservedLoc,
    "Location": Location,
    "Thread": Thread,
    "EventTemplate": EventTemplate,
    "FailStore": FailStore,
    "At": At,
    **{
        ("Instr", t): c
        for t, c in [
            ("load", Load),
            ("store", Store),
            ("rmw", Rmw),
            ("fence", Fence),
            ("assign", Assign),
            ("choose", Choose),
            ("branch", Branch),
            ("jump", Jump),
            ("cut", Cut),
        ]
    },
    "Program": Program,
    "Quorum": Quorum,
    **{("Node", t): NodeNamed for t in ("tag", "var", "rel_var", "base", "same_thread_attr", "same_event_attr")},
    **{("Node", t): NodeConst for t in ("all_set", "empty_set")},
    **{("Node", t): NodeUnary for t in ("domain", "range", "ident", "inv", "plus", "star", "opt")},
    **{
        ("Node", t): NodeBinary for t in ("set_union", "set_inter", "set_diff", "prod", "union", "inter", "diff", "seq")
    },
    ("Node", "foreach"): NodeForeach,
    ("Node", "fix"): NodeFix,
    "Check": Check,
    "OrderDecl": OrderDecl,
    "RmwChainOrder": RmwChainOrder,
    "ModelIr": ModelIr,
    "Limits": Limits,
    "ExploreLimits": ExploreLimits,
    **{
        ("MInstr", t): c
        for t, c in [
            ("ld", MLd),
            ("st", MSt),
            ("rmw", MRmw),
            ("flu", MCache),
            ("inv", MCache),
            ("lk", MLock),
            ("unlk", MLock),
            ("lkrmw", MRmwLock),
            ("unlkrmw", MRmwLock),
            ("assign", MAssign),
            ("branch", MBranch),
            ("jump", MJump),
            ("cut", MCut),
        ]
    },
    "MLocation": MLocation,
    "MThread": MThread,
    "MProgram": MProgram,
    "LimitOut": LimitOut,
    "Event": Event,
    "ExecutionOut": ExecutionOut,
    ("CheckOut", "OutcomeOut"): OutcomeOut,
    "FlagOut": FlagOut,
    "CheckOut": CheckOut,
    ("ExploreOut", "OutcomeOut"): MOutcomeOut,
    "StuckOut": StuckOut,
    "FaultOut": FaultOut,
    "PhaseSeconds": PhaseSeconds,
    "ExploreOut": ExploreOut,
}
