"""Litmus AST -> the small IR that the Rust core executes (`rust/src/program.rs`).

Loops are unrolled `unroll` times; a path that would need another
iteration ends in `Cut` and is dropped and counted. Memory
operations inside expressions are hoisted into temporaries, in evaluation
order; `&&` and `||` short-circuit.

Every memory event gets a template with tags the models refer to:
`A`/`NA` (atomic or not), the order (`rlx acq rel acq_rel sc con`), the
scope (`wi sg wg dev all`), `remote`, the region (`global`/`local`; for
fences and barriers, their flags), the location's declared atomicity
(`atomicloc`/`nonatomicloc`), `RMW`, `fence`, `barrier` with
`entry`/`exit`; and integer attributes: `sinst`, the scope instance (the
static scope and which instance of it: docs/readings.md `exact`), and `bar`, the
barrier instance.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .errors import LimitExceeded, UnsupportedFeature
from .litmus import ast as A
from .litmus.printer import format_condition
from .litmus.toolkit import ALLOC_CLASSES, CACHE_OPS  # [x]=0 @coarse; PTX ld/st cache operators

if TYPE_CHECKING:  # the IR's types, for annotations only (imported lazily: cold start)
    from . import ir as ir_types

# The vocabulary of event templates, which models name (hrf.dsl checks a
# model's tag(...), attribute and base-relation names against it).
ORDERS = ("rlx", "acq", "rel", "acq_rel", "sc", "con")
SCOPES = ("wi", "sg", "wg", "dev", "all")
TAGS = frozenset(
    ("R", "W", "F", "M", "IW")  # event kinds and init writes (the core's own sets)
    + (
        "A",
        "NA",
        "remote",
        "global",
        "local",
        "image",
        "atomicloc",
        "nonatomicloc",
        "RMW",
        "RMW_FAIL",
        "fence",
        "barrier",
        "entry",
        "exit",
        "cas_expected",
    )
    + ORDERS
    + SCOPES
    + tuple(f"alloc_{a}" for a in ALLOC_CLASSES)
    + tuple(f"cache_{c}" for c in CACHE_OPS)
)
EVENT_ATTRS = ("sinst", "bar", "tid")  # scope instance, barrier instance, thread (agent)
THREAD_ATTRS = ("wi", "sg", "wg", "dev")  # the thread's place in the scope tree
DEFAULT_SCOPE = "dev"
# Expressions and conditions nest at most this deep: the core reads its
# input with a bounded recursion (a deeper test is a LitmusSyntaxError).
MAX_NESTING = 100


def _nested_too_deeply(test, line, what):
    from .errors import LitmusSyntaxError

    return LitmusSyntaxError(
        f"{what} nested more than {MAX_NESTING} levels deep: hrf does not take it", test.path, line or None
    )


# A location's address, as a value (a pointer held in a register or a
# location): ADDRESS_BASE plus its index, far from the small numbers tests
# compute with (a test that names a number in that range is refused).
ADDRESS_BASE = 1 << 40


# Instructions of a compiled thread past which a test (typically a large
# unroll bound) is refused with LimitExceeded("size"), before memory goes on it.
MAX_INSTRUCTIONS = 200_000  # OpenCL: atomics without a scope argument are device-scoped


@dataclass
class Template:
    kind: Literal["R", "W", "F"]
    tags: list
    attrs: dict
    thread: int
    line: int
    text: str
    unseq: tuple = ()  # (operator, side) marks: unsequenced operand evaluation (C11)

    def ir(self) -> ir_types.EventTemplate:
        d: ir_types.EventTemplate = {"kind": self.kind, "tags": self.tags, "attrs": self.attrs}
        if self.unseq:
            d["unseq"] = [(op, side) for op, side in self.unseq]
        return d


@dataclass
class Compiled:
    """A program IR plus what is needed to read the core's answer."""

    test: A.Test
    ir: ir_types.Program
    templates: list
    observed: list  # names as herd prints them: "1:r0", "x"
    locations: list
    unroll: int
    # Address values and the locations they are the addresses of, where the
    # test holds addresses in registers or locations (`int *r0`, `p = y`);
    # empty otherwise. Outcomes show such values by name, as herd does.
    addresses: dict = field(default_factory=dict)
    _json: str | None = field(default=None, repr=False)
    _condition: str | None = field(default=None, repr=False)

    def condition_text(self) -> str:
        """The test's condition as herd prints it (computed once: every
        model's result states it); herd reads a missing one as forall (true)."""
        if self._condition is None:
            cond = self.test.condition
            self._condition = format_condition(cond) if cond else "forall (true)"
        return self._condition

    def source_lines(self, message: str) -> str:
        """A message of the core's with each `thread P (instruction N)` it
        names given as the line of the test that instruction comes from."""
        import re

        names = [t["name"] for t in self.ir["threads"]]

        def line(m):
            if m.group(1) not in names:
                return m.group()
            code = self.ir["threads"][names.index(m.group(1))]["code"]
            pc = int(m.group(2))
            ins: Any = code[pc] if pc < len(code) else {}
            ev = ins.get("ev", ins.get("ev_r"))
            if ev is None or not self.templates[ev].line:
                return m.group()
            return f"thread {m.group(1)} (line {self.templates[ev].line})"

        return re.sub(r"thread (\w+) \(instruction (\d+)\)", line, message)

    def json(self) -> str:
        if self._json is None:
            self._json = json.dumps(self.ir, separators=(",", ":"))
        return self._json


class _Label:
    __slots__ = ("pc",)

    def __init__(self):
        self.pc = None


def _c(v):
    return {"k": "c", "v": int(v)}


def _r(i):
    return {"k": "r", "r": i}


def _not(e):
    return {"k": "not", "a": e}


class _Scopes:
    """Thread attributes and scope instances of a test's scope tree."""

    def __init__(self, test: A.Test):
        self.threads = test.threads
        n = len(test.threads)
        pos = []
        for i, t in enumerate(test.threads):
            dev = t.dev if t.dev is not None else 0
            wg = (dev, t.wg) if t.wg is not None else ("own", i)
            sg = (wg, t.sg) if t.sg is not None else ("own", i)
            pos.append((dev, wg, sg))
        self.pos = pos
        ids: dict = {}
        self.attrs = []
        for i, (dev, wg, sg) in enumerate(pos):
            self.attrs.append(
                {
                    "wi": i,
                    "sg": ids.setdefault(("sg", sg), len(ids)),
                    "wg": ids.setdefault(("wg", wg), len(ids)),
                    "dev": dev,
                }
            )
        self.instances: dict = {}
        self.n = n

    def instance(self, t: int, scope: str) -> int:
        """The scope instance of an operation of thread t with scope `scope`:
        the static scope and which instance of it (docs/readings.md `exact`). Two
        operations of different static scopes never share an instance, even
        where the litmus test puts no other work-item in the larger one."""
        dev, wg, sg = self.pos[t]
        where = {"wi": t, "sg": sg, "wg": wg, "dev": dev, "all": 0}[scope]
        return self.instances.setdefault((scope, where), len(self.instances))

    def members(self, t: int, scope: str) -> frozenset:
        """The threads of the test inside that instance."""
        dev, wg, sg = self.pos[t]
        col = {"sg": 2, "wg": 1, "dev": 0}
        if scope == "wi":
            return frozenset([t])
        if scope == "all":
            return frozenset(range(self.n))
        key = self.pos[t][col[scope]]
        return frozenset(i for i, p in enumerate(self.pos) if p[col[scope]] == key)


class _ThreadCompiler:
    def __init__(self, prog: _ProgramCompiler, tidx: int, thread: A.Thread):
        self.p = prog
        self.t = tidx
        self.thread = thread
        self.regs: dict[str, int] = {}
        self.code: list = []
        self.ntemp = 0
        self.barriers = 0
        self.labels: dict = {}
        self.labels_seen: set = set()
        # C11 6.5: the operands of an operator (but &&, ||) are evaluated
        # unsequenced: events of the two sides get different marks of the
        # same operator, and the core leaves po out between them.
        self.unseq: list = []
        self.noperators = 0
        self.depth = 0  # of the expression being compiled
        # the names the thread uses as registers: a location's name elsewhere is its address
        self.defined = {s.reg for s in A.walk_stmts(thread.body) if isinstance(s, A.Assign)} | {
            ri.reg for ri in prog.test.reg_init if ri.thread == tidx
        }

    def label(self, name: str) -> _Label:
        return self.labels.setdefault(name, _Label())

    def reg(self, name: str) -> int:
        if name not in self.regs:
            self.regs[name] = len(self.regs)
        return self.regs[name]

    def temp(self) -> int:
        self.ntemp += 1
        return self.reg(f"%t{self.ntemp}")

    def loc(self, name: str) -> int:
        return self.p.loc_index[self.p.first_cell.get(name, name)]

    def through_pointer(self, op) -> bool:
        """Is the access `*r` through a register holding an address?"""
        return op.loc not in self.p.address_of and op.loc in self.defined

    def address(self, op, ins: dict) -> str:
        """Add an access's computed address to its instruction (`at`: the
        offset and the length of the array it indexes, 1 for a location;
        through a pointer register, its value less the first location's
        address, over every location); its text for the event template."""
        if self.through_pointer(op):
            self.p.addresses_used = True
            ins["loc"] = 0
            off = {"k": "bin", "o": "-", "a": _r(self.reg(op.loc)), "b": _c(ADDRESS_BASE)}
            ins["at"] = {"off": off, "len": len(self.p.locations)}
            return f"*{op.loc}"
        if op.offset is None:
            return op.loc
        from .litmus.printer import format_address

        ins["at"] = {"off": self.expr(op.offset), "len": self.p.array_size.get(op.loc, 1)}
        return format_address(op)

    def emit(self, ins):
        self.code.append(ins)
        if len(self.code) > self.p.max_instructions:
            raise LimitExceeded(
                "size",
                f"{self.p.test.path or self.p.test.name}: thread {self.thread.name} "
                f"compiles to more than {self.p.max_instructions:,} instructions with loops "
                f"unrolled {self.p.unroll} times",
            )

    # ------------------------------------------------------------ templates
    def template(
        self,
        kind,
        op,
        line,
        text,
        *,
        order=None,
        scope=None,
        atomic=True,
        remote=False,
        loc=None,
        extra=(),
        attrs=None,
        scoped=True,
    ) -> int:
        """An event template. Reads and writes are `A` or `NA`; atomics and
        fences carry an order and a scope (unless `scoped` is False, as for
        barrier fences); accesses carry their location's region and
        declared atomicity (`atomicloc` / `nonatomicloc`, herd's and
        Dat3M's NAL)."""
        tags = list(extra)
        if kind in ("R", "W"):
            tags.append("A" if atomic else "NA")
        at = dict(attrs or {})
        at["tid"] = self.t  # the agent, for per-agent definitions ([HRFR15] Fig. 9 so_a)
        if atomic and scoped:
            tags.append(order or "sc")
            sc = scope or DEFAULT_SCOPE
            tags.append(sc)
            at["sinst"] = self.p.scopes.instance(self.t, sc)
        if remote:
            tags.append("remote")
        if loc is not None:
            tags.extend(self.p.location_tags(loc))
        return self.p.add_template(Template(kind, tags, at, self.t, line, text, tuple(self.unseq)))

    # ------------------------------------------------------------ expressions
    def expr(self, e) -> dict:
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise _nested_too_deeply(self.p.test, getattr(e, "line", None), "an expression")
            return self._expr(e)
        finally:
            self.depth -= 1

    def _expr(self, e) -> dict:
        if isinstance(e, A.Const):
            return _c(e.value)
        if isinstance(e, A.Reg):
            if e.name not in self.defined and e.name in self.p.address_of:
                return _c(self.p.address(e.name))  # `x` as a value: x's address (C)
            return _r(self.reg(e.name))
        if isinstance(e, A.Load):
            d = self.temp()
            self.load(e, d)
            return _r(d)
        if isinstance(e, A.Rmw):
            d = self.temp()
            self.rmw(e, d)
            return _r(d)
        if isinstance(e, A.UnOp):
            a = self.expr(e.operand)
            return _not(a) if e.op == "!" else {"k": "neg", "a": a}
        if isinstance(e, A.DerefExpr):  # the C readers resolve these (litmus/addresses.py)
            raise UnsupportedFeature("an unresolved computed address *(e)", self.p.test.path, e.line)
        if isinstance(e, A.StoreExpr):
            # `(*x = e)`: the store's value is the expression's value
            v = self.expr(e.value)
            ev = self.template("W", "store", e.line, f"*{e.loc} = .. (in an expression)", atomic=False, loc=e.loc)
            self.emit({"op": "store", "loc": self.loc(e.loc), "val": v, "ev": ev})
            return v
        if isinstance(e, A.BinOp):
            if e.op in ("&&", "||"):
                return self.short_circuit(e)
            self.noperators += 1
            op = self.noperators
            self.unseq.append((op, 0))
            a = self.expr(e.left)
            self.unseq[-1] = (op, 1)
            b = self.expr(e.right)
            self.unseq.pop()
            return {"k": "bin", "o": e.op, "a": a, "b": b}
        raise UnsupportedFeature(f"expression {e!r} is not supported", self.p.test.path, getattr(e, "line", None))

    def short_circuit(self, e: A.BinOp) -> dict:
        t = self.temp()
        end = _Label()
        a = self.expr(e.left)
        self.emit({"op": "assign", "dst": t, "val": {"k": "bin", "o": "!=", "a": a, "b": _c(0)}})
        # && stops when the left is false, || when it is true.
        cond = _not(_r(t)) if e.op == "&&" else _r(t)
        self.emit({"op": "branch", "cond": cond, "target": end})
        b = self.expr(e.right)
        self.emit({"op": "assign", "dst": t, "val": {"k": "bin", "o": "!=", "a": b, "b": _c(0)}})
        self.emit(end)
        return _r(t)

    def load(self, e: A.Load, dst):
        ins: dict = {"op": "load", "dst": dst, "loc": 0 if self.through_pointer(e) else self.loc(e.loc)}
        where = self.address(e, ins)
        text = f"*{where}" if not e.atomic else f"load({where}, {e.order}, {e.scope or DEFAULT_SCOPE})"
        if e.cache:
            text = f"ld.{e.cache} [{e.loc}]"
        ev = self.template(
            "R",
            "load",
            e.line,
            text,
            order=e.order,
            scope=e.scope,
            atomic=e.atomic,
            remote=e.remote,
            loc=None if self.through_pointer(e) else e.loc,
            extra=[f"cache_{e.cache}"] if e.cache else (),
        )
        ins["ev"] = ev
        self.emit(ins)

    def rmw(self, e: A.Rmw, dst):
        at: dict = {}
        where = self.address(e, at)
        text = f"{e.op}({where}, {e.order}, {e.scope or DEFAULT_SCOPE})"
        common = dict(scope=e.scope, remote=e.remote, loc=None if self.through_pointer(e) else e.loc)
        ev_r = self.template("R", "rmw", e.line, text, order=e.order, extra=["RMW"], **common)
        ev_w = self.template("W", "rmw", e.line, text, order=e.order, extra=["RMW"], **common)
        ins = {
            "op": "rmw",
            "dst": dst,
            "loc": 0 if self.through_pointer(e) else self.loc(e.loc),
            "rmw": e.op.replace("_", ""),
            "ev_r": ev_r,
            "ev_w": ev_w,
            **at,
        }
        if e.op == "cas_old":  # PTX atom.cas: compare with a value, return the old one
            ins["expected"] = self.expr(e.expected_value)
        if e.op == "cas":
            assert e.expected is not None, "the parsers give every compare-exchange its expected location"
            # C11 and herd's OpenCL: the expected value is read (not
            # atomically) from its location; a failing compare writes the
            # value it read back there (where the model's language does:
            # `cas_writeback`) and returns 0, a successful one returns 1. herd annotates both plain accesses with scope
            # all_svm_devices (OpenCLSem.ml), so that they are "inclusive"
            # with other all-scoped accesses; hrf does the same.
            t = self.temp()
            exp_ev = self.template(
                "R",
                "load",
                e.line,
                f"*{e.expected} (expected)",
                atomic=False,
                loc=e.expected,
                extra=["all", "cas_expected"],
            )
            self.emit({"op": "load", "dst": t, "loc": self.loc(e.expected), "ev": exp_ev})
            ins["expected"] = _r(t)
            ins["ev_fail"] = self.template(
                "R", "rmw", e.line, text + " (failed)", order=e.fail_order or e.order, extra=["RMW_FAIL"], **common
            )
            if self.p.cas_writeback:
                ins["fail_store"] = {
                    "loc": self.loc(e.expected),
                    "ev": self.template(
                        "W",
                        "store",
                        e.line,
                        f"*{e.expected} = .. (failed cas)",
                        atomic=False,
                        loc=e.expected,
                        extra=["all", "cas_expected"],
                    ),
                }
        ins["val"] = self.expr(e.operand)
        self.emit(ins)

    # ------------------------------------------------------------ statements
    def stmts(self, body):
        for s in body:
            self.stmt(s)

    def stmt(self, s):
        if isinstance(s, A.Assign):
            if s.expr is None:
                self.reg(s.reg)
            elif isinstance(s.expr, A.Load):
                self.load(s.expr, self.reg(s.reg))
            elif isinstance(s.expr, A.Rmw):
                self.rmw(s.expr, self.reg(s.reg))
            else:
                v = self.expr(s.expr)
                self.emit({"op": "assign", "dst": self.reg(s.reg), "val": v})
        elif isinstance(s, A.Store):
            ins: dict = {"op": "store", "loc": 0 if self.through_pointer(s) else self.loc(s.loc)}
            where = self.address(s, ins)
            ins["val"] = self.expr(s.value)
            text = f"*{where} = .." if not s.atomic else f"store({where}, {s.order}, {s.scope or DEFAULT_SCOPE})"
            if s.cache:
                text = f"st.{s.cache} [{s.loc}]"
            ev = self.template(
                "W",
                "store",
                s.line,
                text,
                order=s.order,
                scope=s.scope,
                atomic=s.atomic,
                remote=s.remote,
                loc=None if self.through_pointer(s) else s.loc,
                extra=[f"cache_{s.cache}"] if s.cache else (),
            )
            ins["ev"] = ev
            self.emit(ins)
        elif isinstance(s, A.ExprStmt):
            if isinstance(s.expr, A.Load):
                self.load(s.expr, None)
            elif isinstance(s.expr, A.Rmw):
                self.rmw(s.expr, None)
            else:
                self.expr(s.expr)
        elif isinstance(s, A.Fence):
            ev = self.template(
                "F",
                "fence",
                s.line,
                f"fence({s.order}, {s.scope or DEFAULT_SCOPE})",
                order=s.order,
                scope=s.scope,
                extra=["fence"] + list(s.flags),
            )
            self.emit({"op": "fence", "ev": ev})
        elif isinstance(s, A.Barrier):
            # A barrier is an entry fence and an exit fence,
            # matched across threads by label, else by occurrence.
            key = s.label if s.label is not None else f"#{self.barriers}"
            self.barriers += 1
            bar = self.p.barrier_ids.setdefault(key, len(self.p.barrier_ids))
            for phase in ("entry", "exit"):
                ev = self.template(
                    "F",
                    "barrier",
                    s.line,
                    f"barrier {key} {phase}",
                    scoped=False,
                    extra=["barrier", phase] + list(s.flags),
                    attrs={"bar": bar},
                )
                self.emit({"op": "fence", "ev": ev})
        elif isinstance(s, A.If):
            els, end = _Label(), _Label()
            c = self.expr(s.cond)
            self.emit({"op": "branch", "cond": _not(c), "target": els})
            self.stmts(s.then)
            if s.orelse:
                self.emit({"op": "jump", "target": end})
            self.emit(els)
            self.stmts(s.orelse)
            self.emit(end)
        elif isinstance(s, A.Label):
            if s.name in self.labels_seen:
                raise UnsupportedFeature(f"label {s.name} twice in one thread", self.p.test.path, s.line)
            self.labels_seen.add(s.name)
            self.emit(self.label(s.name))
        elif isinstance(s, A.Goto):
            if s.label in self.labels_seen:
                raise UnsupportedFeature(
                    f"bra {s.label} jumps backwards (a loop): only forward branches are supported",
                    self.p.test.path,
                    s.line,
                )
            self.emit({"op": "jump", "target": self.label(s.label)})
        elif isinstance(s, A.While):
            end = _Label()
            for _ in range(self.p.unroll):
                c = self.expr(s.cond)
                self.emit({"op": "branch", "cond": _not(c), "target": end})
                self.stmts(s.body)
            c = self.expr(s.cond)
            self.emit({"op": "branch", "cond": _not(c), "target": end})
            self.emit({"op": "cut"})
            self.emit(end)
        else:
            raise UnsupportedFeature(f"statement {s!r} is not supported", self.p.test.path, getattr(s, "line", None))

    def finish(self) -> ir_types.Thread:
        missing = set(self.labels) - self.labels_seen
        if missing:
            raise UnsupportedFeature(
                f"{self.thread.name}: bra to undefined label {sorted(missing)[0]}", self.p.test.path, self.thread.line
            )
        # Resolve labels to program counters.
        code: list[ir_types.AnyInstr] = []
        for ins in self.code:
            if isinstance(ins, _Label):
                ins.pc = len(code)
            else:
                code.append(ins)
        for ins in code:
            target: Any = ins.get("target")
            if isinstance(target, _Label):
                ins["target"] = target.pc
        return {
            "name": self.thread.name,
            "attrs": self.p.scopes.attrs[self.t],
            "nregs": len(self.regs),
            "regs": list(self.regs),
            "code": code,
        }


class _ProgramCompiler:
    def __init__(self, test: A.Test, unroll: int, cas_writeback: bool = True, observe_all: bool = False):
        self.test = test
        self.observe_all = observe_all
        self.unroll = unroll
        self.cas_writeback = cas_writeback
        self.max_instructions = MAX_INSTRUCTIONS
        self.scopes = _Scopes(test)
        # An array is its elements, `y[0]` .. `y[n-1]`, in a row; its name
        # stands for its first element (C: `y` is `&y[0]`).
        arrays = {i.loc: i for i in test.init if i.size is not None}
        self.array_size = {name: i.size for name, i in arrays.items()}
        self.first_cell = {name: f"{name}[0]" for name in arrays}
        self.array_of = {cell: name for name, i in arrays.items() for cell, _ in i.cells()}
        # `*r0` through a register that holds an address names no location
        declared = {i.loc for i in test.init} | {p.name for t in test.threads for p in t.params}
        through = {
            op.loc
            for t in test.threads
            for op in t.ops
            if isinstance(op, (A.Load, A.Store, A.Rmw))
            and op.loc not in declared
            and any(isinstance(s, A.Assign) and s.reg == op.loc for s in A.walk_stmts(t.body))
        }
        self.locations = [
            c
            for l in test.all_locations()
            if l not in through
            for c in ([c for c, _ in arrays[l].cells()] if l in arrays else [l])
        ]
        self.loc_index = {l: i for i, l in enumerate(self.locations)}
        # the names whose address a value may be: every location, and each array's name
        self.address_of = set(self.locations) | set(self.first_cell)
        self.addresses_used = False
        self.templates: list[Template] = []
        self.barrier_ids: dict = {}
        self._loc_tags: dict = {}

    def location_tags(self, loc: str) -> list:
        """Region and declared atomicity of a location (herd's `G`/`L` and
        `atomicloc`/`nonatomicloc`: from the type of the parameter that
        declares it; a location no parameter declares is neither)."""
        if loc in self.array_of:  # an array's element: the array's tags
            return self.location_tags(self.array_of[loc])
        if loc not in self._loc_tags:
            region = self.test.region_of(loc)
            tags = [region] if region else []
            kinds = {p.atomic for t in self.test.threads for p in t.params if p.name == loc}
            if kinds:
                tags.append("atomicloc" if True in kinds else "nonatomicloc")
            alloc = next((i.alloc for i in self.test.init if i.loc == loc and i.alloc), None)
            if alloc:
                tags.append(f"alloc_{alloc}")  # allocation class ([HRFR15] sec. 5: observability)
            self._loc_tags[loc] = tags
        return self._loc_tags[loc]

    def add_template(self, t: Template) -> int:
        self.templates.append(t)
        return len(self.templates) - 1

    def address(self, name: str) -> int:
        """The address of a location (of an array: of its first element), as a value."""
        self.addresses_used = True
        return ADDRESS_BASE + self.loc_index[self.first_cell.get(name, name)]

    def _address_value(self, value, line=None) -> int:
        """An initial or compared value: a number, or a location's name (its address)."""
        if isinstance(value, int):
            return value
        if value not in self.address_of:
            from .errors import LitmusSyntaxError

            raise LitmusSyntaxError(f"{value!r} is not a location: it has no address", self.test.path, line)
        return self.address(value)

    def _prop(self, p):
        """The condition with locations' names as addresses and `y*` as y."""
        if isinstance(p, A.PAtom):
            var = A.LocVar(p.var.loc) if isinstance(p.var, A.PointeeVar) else p.var
            return A.PAtom(var, self._address_value(p.value))
        if isinstance(p, A.PNot):
            return A.PNot(self._prop(p.prop))
        if isinstance(p, (A.PAnd, A.POr)):
            return type(p)(tuple(self._prop(q) for q in p.props))
        return p

    def _refuse_address_clashes(self) -> None:
        """A number the test names where hrf keeps addresses would read as one."""
        top = ADDRESS_BASE + len(self.locations)
        values = [i.value for i in self.test.init] + [ri.value for ri in self.test.reg_init]
        values += [
            e.value
            for t in self.test.threads
            for st in A.walk_stmts(t.body)
            for x in A.exprs_of(st)
            for e in A.walk_expr(x)
            if isinstance(e, A.Const)
        ]
        if self.test.condition is not None:
            values += [a.value for a in A.prop_atoms(self.test.condition.prop)]
        for v in values:
            if isinstance(v, int) and ADDRESS_BASE <= v < top:
                raise UnsupportedFeature(
                    f"the test names {v}, a value hrf keeps for the address of {self.locations[v - ADDRESS_BASE]}",
                    self.test.path,
                )

    def compile(self) -> Compiled:
        test = self.test
        prop = self._prop(test.condition.prop) if test.condition is not None else None
        # Observed variables: the condition's and the `locations` clause's;
        # with neither, every register and location.
        cond_vars: list[A.RegVar | A.LocVar] = []
        if prop is not None:
            cond_vars = list(_prop_vars(prop))
        # An array's name in the condition is its first element.
        cond_vars = [
            A.LocVar(self.first_cell[v.loc]) if isinstance(v, A.LocVar) and v.loc in self.first_cell else v
            for v in cond_vars
        ]
        # `y*` in a locations clause: y's value, which herd shows as a location's name
        listed = [A.LocVar(v.loc) if isinstance(v, A.PointeeVar) else v for v in test.locations]
        named = [
            A.LocVar(self.first_cell[v.loc]) if isinstance(v, A.LocVar) and v.loc in self.first_cell else v
            for v in listed
        ]
        obs: list[A.RegVar | A.LocVar] | None = list(dict.fromkeys(list(cond_vars) + named))
        if test.condition is None and not test.locations:
            obs = None
        for v in obs or []:
            if isinstance(v, A.LocVar) and v.loc not in self.loc_index:
                self.loc_index[v.loc] = len(self.locations)
                self.locations.append(v.loc)
            if isinstance(v, A.RegVar) and v.thread >= len(test.threads):
                from .errors import LitmusSyntaxError

                raise LitmusSyntaxError(f"the condition names thread {v.thread}, which does not exist", test.path)
        tcs = []
        for i, t in enumerate(test.threads):
            tc = _ThreadCompiler(self, i, t)
            for ri in test.reg_init:
                if ri.thread == i:
                    tc.emit({"op": "assign", "dst": tc.reg(ri.reg), "val": _c(ri.value)})
            tc.stmts(t.body)
            tcs.append(tc)
        if obs is None or self.observe_all:
            every: list[A.RegVar | A.LocVar] = [
                A.RegVar(i, r) for i, tc in enumerate(tcs) for r in tc.regs if not r.startswith("%")
            ]
            every += [A.LocVar(l) for l in self.locations]
            obs = list(dict.fromkeys((obs or []) + every))
        # herd's order: registers by thread and name, then locations by name.
        obs.sort(key=lambda v: (0, v.thread, v.reg, "") if isinstance(v, A.RegVar) else (1, 0, "", v.loc))
        observed_ir: list[ir_types.Observed] = []
        names: list[str] = []
        for v in obs:
            if isinstance(v, A.RegVar):
                observed_ir.append({"kind": "reg", "thread": v.thread, "reg": tcs[v.thread].reg(v.reg)})
            else:
                observed_ir.append({"kind": "loc", "loc": self.loc_index[v.loc]})
            names.append(str(v))
        threads_ir = [tc.finish() for tc in tcs]
        init: dict = {}
        for item in test.init:
            if item.size is not None:
                init.update(item.cells())
            else:
                init[item.loc] = self._address_value(item.value, item.line)  # `p = y`: y's address
        locs_ir: list[ir_types.Location] = []
        for l in self.locations:
            locs_ir.append({"name": l, "init": init.get(l, 0), "tags": list(self.location_tags(l))})
        index = {str(v): i for i, v in enumerate(obs)}
        for name, cell in self.first_cell.items():
            if cell in index:
                index[name] = index[cell]
        cond: ir_types.Cond = prop_ir(prop, index, path=test.path) if prop is not None else {"k": "true"}
        addresses: dict = {}
        if self.addresses_used:
            self._refuse_address_clashes()
            addresses = {ADDRESS_BASE + k: name for k, name in enumerate(self.locations)}
        ir: ir_types.Program = {
            "name": test.name,
            "locations": locs_ir,
            "threads": threads_ir,
            "templates": [t.ir() for t in self.templates],
            "observed": observed_ir,
            "condition": cond,
        }
        return Compiled(test, ir, self.templates, names, list(self.locations), self.unroll, addresses)


def _prop_vars(p):
    return (a.var for a in A.prop_atoms(p))


def prop_ir(p, index, depth: int = 0, path=None) -> ir_types.Cond:
    if depth > MAX_NESTING:
        from .errors import LitmusSyntaxError

        raise LitmusSyntaxError(f"the condition nests more than {MAX_NESTING} levels deep: hrf does not take it", path)
    return _prop_ir_node(p, index, depth, path)


def _prop_ir_node(p, index, depth, path) -> ir_types.Cond:
    if isinstance(p, A.PTrue):
        return {"k": "true"}
    if isinstance(p, A.PFalse):
        return {"k": "false"}
    if isinstance(p, A.PAtom):
        assert isinstance(p.value, int), "a condition's addresses are numbers before it is compiled"
        return {"k": "eq", "var": index[str(p.var)], "val": p.value}
    if isinstance(p, A.PNot):
        return {"k": "not", "a": prop_ir(p.prop, index, depth + 1, path)}
    if isinstance(p, A.PAnd):
        return {"k": "and", "args": [prop_ir(q, index, depth + 1, path) for q in p.props]}
    if isinstance(p, A.POr):
        return {"k": "or", "args": [prop_ir(q, index, depth + 1, path) for q in p.props]}
    raise TypeError(p)


def compile_test(test: A.Test, unroll: int = 2, cas_writeback: bool = True, observe_all: bool = False) -> Compiled:
    """`observe_all`: outcomes over every register and location, not only
    the condition's (as a comparison with the machine needs)."""
    if isinstance(unroll, bool) or not isinstance(unroll, int) or unroll < 0:
        from .errors import InvalidArgument

        raise InvalidArgument(f"unroll must be a whole number >= 0, not {unroll!r}")
    try:
        return _ProgramCompiler(test, unroll, cas_writeback, observe_all).compile()
    except RecursionError:
        from .litmus import read_file, too_deep

        raise too_deep(read_file(test.path) if test.path else "", test.path) from None
