"""One thread of a litmus test -> its instructions and event templates
(the IR of `rust/src/program.rs`), for `hrf.program`.

Expressions are compiled to the IR's expressions, their memory operations
hoisted into temporaries in evaluation order (`&&` and `||` short-circuit);
loops are unrolled (`hrf.unroll`), a path past the bound ending in `cut`; each memory
operation gets an event template with the tags models name (`program.py`
lists them). What liveness needs of the code (each loop copy's side effect,
spins, a path's end status) is `hrf.thread_liveness`'s.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .errors import LimitExceeded, UnsupportedFeature
from .litmus import ast as A
from .litmus.ptx_hopper import event_text
from .thread_ir import Label, const_ir, not_ir, reg_ir
from .thread_liveness import EVENTS, LISTED, STOPPED, LivenessCode
from .unroll import Back, Cut, Enter, Leave, next_loop_tag, unroll_backward_jumps, written_regs

if TYPE_CHECKING:  # the IR's types, for annotations only
    from . import ir as ir_types

# fences with no order and no scope: Dat3M's fence.proxy.* (PTX), avdevice and visdevice (Vulkan),
# the markers of sm_80's cp.async-groups (a commit, a wait) and of an mbarrier's phases (one
# completed by an update, one a wait saw complete)
UNORDERED_FENCES = ("proxy", "avdevice", "visdevice", "cp.async", "mbarrier", "wgmma")
DEFAULT_SCOPE = "dev"  # OpenCL: atomics without a scope argument are device-scoped


# Expressions and conditions nest at most this deep: the core reads its
# input with a bounded recursion (a deeper test is a LitmusSyntaxError).
MAX_NESTING = 100


def nested_too_deeply(test, line, what):
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
MAX_INSTRUCTIONS = 200_000


@dataclass
class Template:
    kind: Literal["R", "W", "F"]
    tags: list
    attrs: dict
    thread: int
    line: int
    text: str
    unseq: tuple = ()  # (operator, side) marks: unsequenced operand evaluation (C11)
    # liveness: the unrolled loop copies it belongs to, (loop, copy) frames
    # from the outermost loop in
    iteration: tuple | None = None
    # the attribute whose value is the event's own (a barrier resource held
    # in a register), known only on the event's path
    value_attr: str | None = None

    def ir(self) -> ir_types.EventTemplate:
        d: ir_types.EventTemplate = {"kind": self.kind, "tags": self.tags, "attrs": self.attrs}
        if self.unseq:
            d["unseq"] = [(op, side) for op, side in self.unseq]
        if self.value_attr is not None:
            d["value_attr"] = self.value_attr
        return d


class ThreadCompiler(LivenessCode):
    """A thread's instructions and event templates; the liveness half
    (loop copies, spins, a path's end status) is `LivenessCode`'s."""

    def __init__(self, prog: Any, tidx: int, thread: A.Thread):
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
        self.copy_wg: int | None = None  # the thread block of the bulk copy write compiled last
        # liveness (`hrf.liveness`): the loop copies being compiled, outermost
        # first, as (loop, copy) frames, and the blocks that end a path with
        # a status (spinning, stopped, ...)
        self.frames: list[tuple[int, int]] = []
        self.exits: list = []
        # the names the thread uses as registers: a location's name elsewhere is its address
        self.defined = {s.reg for s in A.walk_stmts(thread.body) if isinstance(s, A.Assign)} | {
            ri.reg for ri in prog.test.reg_init if ri.thread == tidx
        }

    def label(self, name: str) -> Label:
        return self.labels.setdefault(name, Label())

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
        """Add an access's location to its instruction, and its computed
        address if it has one (`at`: the offset and the length of the array
        it indexes, 1 for a location; through a pointer register, its value
        less the first location's address, over every location); its text
        for the event template."""
        if self.through_pointer(op):
            self.p.addresses_used = True
            ins["loc"] = 0
            off = {"k": "bin", "o": "-", "a": reg_ir(self.reg(op.loc)), "b": const_ir(ADDRESS_BASE)}
            ins["at"] = {"off": off, "len": len(self.p.locations)}
            return f"*{op.loc}"
        ins["loc"] = self.loc(op.loc)
        if op.offset is None:
            return op.loc
        cell = f"{op.loc}[{op.offset.value}]" if isinstance(op.offset, A.Const) else ""
        if cell in self.p.array_of:  # a constant offset in the array: that element, no computed address
            ins["loc"] = self.p.loc_index[cell]
            return cell
        from .litmus.printer import format_address

        ins["at"] = {"off": self.expr(op.offset), "len": self.p.array_size.get(op.loc, 1)}
        return format_address(op)

    def access_template(self, kind: str, op, where: str, attrs=None, extra=(), note: str = "") -> int:
        """The event template of a load (`R`) or store (`W`) at `where` (`note` after its text)."""
        word, plain, ptx = ("load", f"*{where}", "ld") if kind == "R" else ("store", f"*{where} = ..", "st")
        text = plain if not op.atomic else f"{word}({where}, {op.order}, {op.scope or DEFAULT_SCOPE})"
        if op.cache:
            text = f"{ptx}.{op.cache} [{op.loc}]"
        text = (event_text(op) or text) + note
        return self.template(
            kind,
            word,
            op.line,
            text,
            order=op.order,
            scope=op.scope,
            atomic=op.atomic,
            remote=op.remote,
            loc=None if self.through_pointer(op) else op.loc,
            extra=([f"cache_{op.cache}"] if op.cache else []) + list(op.tags) + list(extra),
            attrs=attrs,
        )

    def emit(self, ins):
        live = self.p.liveness
        if live is not None and live.stops and isinstance(ins, dict) and ins["op"] in EVENTS:
            self.stop_here(STOPPED)  # a thread the scheduler need not run may stop before any event
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
        value_attr=None,
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
            # a bulk copy's complete-tx is performed in the CTA of the mbarrier it updates, and its
            # write in the CTA whose shared memory it writes (docs/readings.md): scopes and proxy rules
            # hold them there
            copy_write = kind == "W" and "BULK" in tags and not {"MBAR", "STASYNC"} & set(tags)
            if "BULK" in tags and ("MBAR" in tags or copy_write):
                wg = self.p.shared_wg(loc)
                if copy_write:
                    self.copy_wg = wg
                if wg is not None:
                    at["wg"] = wg
            if self.p.aliases:  # the name it goes through: its virtual location
                at["vloc"] = self.p.vloc_index[loc]
                if at["vloc"] != self.p.vloc_index[self.p.aliases.get(loc, loc)]:
                    tags.append("virtual")  # its virtual location is not its location's
        elif kind == "F" and "BULK" in tags and "proxy" in tags and self.copy_wg is not None:
            at["wg"] = self.copy_wg  # the implicit proxy fence after that write: in the same thread block
        return self.p.add_template(
            Template(kind, tags, at, self.t, line, text, tuple(self.unseq), tuple(self.frames) or None, value_attr)
        )

    # ------------------------------------------------------------ expressions
    def expr(self, e) -> dict:
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise nested_too_deeply(self.p.test, getattr(e, "line", None), "an expression")
            return self._expr(e)
        finally:
            self.depth -= 1

    def _expr(self, e) -> dict:
        if isinstance(e, A.Const):
            return const_ir(e.value)
        if isinstance(e, A.Reg):
            if e.name not in self.defined and e.name in self.p.address_of:
                return const_ir(self.p.address(e.name))  # `x` as a value: x's address (C)
            return reg_ir(self.reg(e.name))
        if isinstance(e, A.Load):
            d = self.temp()
            self.load(e, d)
            return reg_ir(d)
        if isinstance(e, A.Rmw):
            d = self.temp()
            self.rmw(e, d)
            return reg_ir(d)
        if isinstance(e, A.Old):
            return {"k": "old"}
        if isinstance(e, A.UnOp):
            a = self.expr(e.operand)
            return not_ir(a) if e.op == "!" else {"k": "neg", "a": a}
        if isinstance(e, A.DerefExpr):  # the C readers resolve these (litmus/addresses.py)
            raise UnsupportedFeature("an unresolved computed address *(e)", self.p.test.path, e.line)
        if isinstance(e, A.StoreExpr):
            # `(*x = e)`: the store's value is the expression's value
            v = self.expr(e.value)
            ev = self.template("W", "store", e.line, f"*{e.loc} = .. (in an expression)", atomic=False, loc=e.loc)
            self.emit({"op": "store", "loc": self.loc(e.loc), "val": v, "ev": ev})
            self.wrote()
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
        end = Label()
        a = self.expr(e.left)
        self.emit({"op": "assign", "dst": t, "val": {"k": "bin", "o": "!=", "a": a, "b": const_ir(0)}})
        # && stops when the left is false, || when it is true.
        cond = not_ir(reg_ir(t)) if e.op == "&&" else reg_ir(t)
        self.emit({"op": "branch", "cond": cond, "target": end})
        b = self.expr(e.right)
        self.emit({"op": "assign", "dst": t, "val": {"k": "bin", "o": "!=", "a": b, "b": const_ir(0)}})
        self.emit(end)
        return reg_ir(t)

    def load(self, e: A.Load, dst):
        if e.loc in self.p.mixed:
            self.mixed_access(e, dst)
            return
        ins: dict = {"op": "load", "dst": dst}
        where = self.address(e, ins)
        ins["ev"] = self.access_template("R", e, where)
        self.emit(ins)

    def mixed_access(self, op, dst=None) -> None:
        """A load (into `dst`) or a store of an array accessed with several sizes: an access of each
        element (of the narrowest access's bytes) it covers, little-endian, tagged MIXED, with
        attributes `acc` (the access: its elements' events share it) and `fp` (its footprint: its
        first element and their number; the ISA's accesses "overlap completely" where theirs agree).
        A load's value is its elements' bytes (sign-extended for a `.s` type), a store's elements
        hold its value's bytes."""
        grain, width = self.p.mixed[op.loc], A.type_bytes(op.dtype)
        first = op.offset.value if isinstance(op.offset, A.Const) else 0
        n, bits = width // grain, 8 * grain
        self.p.accesses += 1
        attrs = {"acc": self.p.accesses, "fp": self.p.loc_index[f"{op.loc}[{first}]"] * 64 + n}
        mask = const_ir((1 << bits) - 1)
        value = None
        if isinstance(op, A.Store):
            value = self.temp()
            self.emit({"op": "assign", "dst": value, "val": self.expr(op.value)})
        pieces = []
        for j in range(n):
            piece = A.with_fields(op, offset=A.Const(first + j))
            ins: dict = {"op": "load" if value is None else "store"}
            where = self.address(piece, ins)
            note = f" (bytes {bits // 8 * j}-{bits // 8 * (j + 1) - 1} of {width})" if n > 1 else ""
            ins["ev"] = self.access_template("R" if value is None else "W", piece, where, attrs, ["MIXED"], note)
            if value is None:
                ins["dst"] = self.temp()
                pieces.append(reg_ir(ins["dst"]))
            else:
                shifted = {"k": "bin", "o": ">>", "a": reg_ir(value), "b": const_ir(bits * j)}
                ins["val"] = {"k": "bin", "o": "&", "a": shifted, "b": mask}
            self.emit(ins)
        if dst is None or value is not None:
            return
        whole = pieces[0]
        for j, p in enumerate(pieces[1:], 1):
            whole = {
                "k": "bin",
                "o": "|",
                "a": whole,
                "b": {"k": "bin", "o": "*", "a": p, "b": const_ir(1 << bits * j)},
            }
        if op.dtype[0] == "s" and width < 8:  # sign-extended from the access's top bit
            sign = const_ir(1 << (8 * width - 1))
            whole = {"k": "bin", "o": "-", "a": {"k": "bin", "o": "^", "a": whole, "b": sign}, "b": sign}
        self.emit({"op": "assign", "dst": dst, "val": whole})

    def rmw(self, e: A.Rmw, dst):
        ins: dict = {"op": "rmw", "dst": dst}
        where = self.address(e, ins)
        text = event_text(e) or f"{e.op}({where}, {e.order}, {e.scope or DEFAULT_SCOPE})"
        common = dict(scope=e.scope, remote=e.remote, loc=None if self.through_pointer(e) else e.loc)
        order_r, order_w = e.orders or (e.order, e.order)
        tags_r, tags_w = e.half_tags
        ev_r = self.template("R", "rmw", e.line, text, order=order_r, extra=["RMW", *e.tags, *tags_r], **common)
        ev_w = self.template("W", "rmw", e.line, text, order=order_w, extra=["RMW", *e.tags, *tags_w], **common)
        # PTX atom.cas: compare with a value, return the old one; a failing
        # compare writes nothing (the PTX ISA), or the old value again where
        # every failing compare writes back (Dartagnan's reading)
        op = "cas_always" if e.op == "cas_old" and self.p.cas_writeback is True else e.op
        ins.update(rmw="update" if e.update is not None else op.replace("_", ""), ev_r=ev_r, ev_w=ev_w)
        if op in ("cas_old", "cas_always"):
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
            ins["expected"] = reg_ir(t)
            ins["ev_fail"] = self.template(
                "R", "rmw", e.line, text + " (failed)", order=e.fail_order or e.order, extra=["RMW_FAIL"], **common
            )
            if self.p.cas_writeback is not False:
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
        ins["val"] = self.expr(e.operand if e.update is None else e.update)
        if self.p.liveness is None:
            self.emit(ins)
            return
        # liveness: whether the iteration wrote (a compare-exchange only where it succeeds)
        if ins["dst"] is None:
            ins["dst"] = self.temp()
        expected = None
        if op == "cas_old":
            expected = self.temp()
            self.emit({"op": "assign", "dst": expected, "val": ins["expected"]})
        self.emit(ins)
        wrote = const_ir(1)
        if e.op == "cas":
            wrote = reg_ir(ins["dst"])  # 1 on success
        elif expected is not None:
            wrote = {"k": "bin", "o": "==", "a": reg_ir(ins["dst"]), "b": reg_ir(expected)}
        self.side_effect(wrote)

    # ------------------------------------------------------------ statements
    def stmts(self, body):
        for s in unroll_backward_jumps(body, self.p.unroll, spin=self.p.liveness is not None):
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
        elif isinstance(s, A.Store) and s.loc in self.p.mixed:
            self.mixed_access(s)
            self.wrote()
        elif isinstance(s, A.Store):
            ins: dict = {"op": "store"}
            where = self.address(s, ins)
            ins["val"] = self.expr(s.value)
            ins["ev"] = self.access_template("W", s, where)
            self.emit(ins)
            self.wrote()
        elif isinstance(s, A.ExprStmt):
            if isinstance(s.expr, A.Load):
                self.load(s.expr, None)
            elif isinstance(s.expr, A.Rmw):
                self.rmw(s.expr, None)
            else:
                self.expr(s.expr)
        elif isinstance(s, A.Fence) and s.order in UNORDERED_FENCES:
            # Dat3M's fence.proxy.* (PTX), avdevice and visdevice (Vulkan), cp.async's markers: no order, no scope
            text = s.order
            if s.order == "proxy":
                text = f"fence.proxy.{'alias' if 'ALIAS' in s.tags else s.tags[0].lower()}"
            text = event_text(s) or text
            ev = self.template("F", "fence", s.line, text, scoped=False, extra=["fence", *s.flags, *s.tags])
            self.emit({"op": "fence", "ev": ev})
        elif isinstance(s, A.Fence):
            ev = self.template(
                "F",
                "fence",
                s.line,
                event_text(s) or f"fence({s.order}, {s.scope or DEFAULT_SCOPE})",
                order=s.order,
                scope=s.scope,
                extra=["fence", *s.flags, *s.tags],
            )
            self.emit({"op": "fence", "ev": ev})
        elif isinstance(s, A.Barrier) and ("CBAR" in s.tags or "CLBAR" in s.tags):
            self.control_barrier(s)
        elif isinstance(s, A.Barrier):
            if self.p.liveness is not None:
                raise UnsupportedFeature(
                    "barrier(...) in a liveness check: not yet (Dat3M's bar.sync and cbar are)",
                    self.p.test.path,
                    s.line,
                )
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
            els, end = Label(), Label()
            c = self.expr(s.cond)
            self.emit({"op": "branch", "cond": not_ir(c), "target": els})
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
        elif isinstance(s, Cut):
            self.cut()
        elif isinstance(s, Enter):
            self.enter_iteration(s)
        elif isinstance(s, Back):
            self.back_jump(s)
        elif isinstance(s, Leave):
            self.leave_iteration(s.loop)
        elif isinstance(s, A.AnyOrder):
            self.any_order(s)
        elif isinstance(s, A.While):
            end = Label()
            spin = self.p.liveness is not None
            if spin:
                tag, regs = next_loop_tag(), written_regs(s.body)
            for k in range(self.p.unroll):
                if spin:
                    self.stmt(Enter(tag, k, regs, s.line, whole_last=False))
                c = self.expr(s.cond)
                self.emit({"op": "branch", "cond": not_ir(c), "target": end})
                self.stmts(s.body)
                if spin:
                    self.stmt(Back(tag, k, regs, s.line, Leave(tag)))
            if spin:
                self.stmt(Enter(tag, self.p.unroll, regs, s.line, whole_last=False))
            c = self.expr(s.cond)
            self.emit({"op": "branch", "cond": not_ir(c), "target": end})
            self.cut()
            self.emit(end)
            if spin:
                self.leave_iteration(tag)
        else:
            raise UnsupportedFeature(f"statement {s!r} is not supported", self.p.test.path, getattr(s, "line", None))

    def any_order(self, s: A.AnyOrder) -> None:
        """Statements in an order the program does not fix (a vector access's elements): a path
        for each order, chosen as barriers choose (`choose`), in lexicographic order; the written
        order alone where the model sees the order only through elements that acquire or release
        and none does (`vector_orders` "sync")."""
        synchronising = any(getattr(op, "order", None) not in (None, "rlx") for op in s.accesses())
        if self.p.vector_orders == "sync" and not synchronising:
            for x in s.body:
                self.stmt(x)
            return
        orders = list(itertools.permutations(s.body))
        end = Label()
        for k, order in enumerate(orders):
            other = Label()
            if k + 1 < len(orders):
                self.emit({"op": "choose", "target": other})
            for x in order:
                self.stmt(x)
            self.emit({"op": "jump", "target": end})
            self.emit(other)
        self.emit(end)

    def control_barrier(self, s: A.Barrier) -> None:
        """Dat3M's control barrier: one event; barriers of the same number
        and resource in one work group synchronise (the models' syncbar:
        the same `bar` and `res`). A resource held in a register is the
        event's value (`value_attr`), known on its path: barriers whose
        registers hold equal values synchronise, as do a register and a
        constant of that value (Dartagnan's NamedBarrier).
        With a thread count q (Dartagnan's quorum): it passes once q threads
        of its work group reach it, and any q or more of those that reach it
        synchronise: the thread chooses, a path each, whether its barrier is
        among them (the other is tagged NOSYNC), and the core keeps the
        combinations with q chosen (`Program::quorums`), a combination
        reached by fewer than q being blocked."""
        in_register = s.resource is not None and not isinstance(s.resource, A.Const)
        if in_register and s.quorum is not None:
            raise UnsupportedFeature(
                "a barrier with a thread count and a barrier resource held in a register", self.p.test.path, s.line
            )
        if in_register and self.p.liveness is not None:
            raise UnsupportedFeature(
                "liveness of a barrier whose barrier resource is held in a register", self.p.test.path, s.line
            )
        if s.quorum is not None and not isinstance(s.quorum, A.Const):
            raise UnsupportedFeature("a barrier with a thread count held in a register", self.p.test.path, s.line)
        # the barrier's number (and whether it names a resource), its resource
        bar = self.p.barrier_ids.setdefault(
            f"cbar {s.label}" + (", resource" if s.resource is not None else ""), len(self.p.barrier_ids)
        )
        res = s.resource.value if isinstance(s.resource, A.Const) else 0
        attrs = {"bar": bar} if in_register else {"bar": bar, "res": res}
        val = self.expr(s.resource) if in_register else None
        text = f"bar.{'arrive' if s.arrive else 'sync'} {s.label}"
        if isinstance(s.resource, A.Const | A.Reg):
            text += f", {s.resource.value if isinstance(s.resource, A.Const) else s.resource.name}"
        tags = ["barrier", *s.flags, *s.tags] + (["ARRIVE"] if s.arrive else [])
        if s.order is not None:  # Vulkan's cbar with semantics: a fence of its order and scope too
            text = f"cbar.{s.order}.{s.scope} {s.label}"
        elif s.scope is None:  # Vulkan's cbar without semantics (its scope a tag: the reader's)
            text = f"cbar {s.label}"
        text = event_text(s) or text  # PTX's cluster barrier, as the ISA writes it

        def event(extra: list, suffix: str = "") -> int:
            return self.template(
                "F",
                "barrier",
                s.line,
                text + suffix,
                scoped=s.order is not None,
                order=s.order,
                scope=s.scope,
                extra=tags + extra,
                attrs=attrs,
                value_attr="res" if in_register else None,
            )

        if in_register:
            self.emit({"op": "fence", "ev": event([]), "val": val})
            return
        quorum = self.p.quorum((bar, res), self.thread, s)
        if self.p.liveness is not None and not s.arrive:
            # a path that waits here forever (`hrf.liveness` judges whether too few arrive)
            q = quorum["q"] if quorum is not None else None
            self.stop_here(LISTED + self.p.add_end(("blocked", self.t, (bar, res), q, s.line)))
        if quorum is None:
            self.emit({"op": "fence", "ev": event([])})
            return
        chosen, end = Label(), Label()
        self.emit({"op": "choose", "target": chosen})
        out = event(["NOSYNC"], f" (count {quorum['q']}, not among those that synchronise)")
        self.emit({"op": "fence", "ev": out})
        self.emit({"op": "jump", "target": end})
        self.emit(chosen)
        sync = event([], f" (count {quorum['q']})")
        self.emit({"op": "fence", "ev": sync})
        self.emit(end)
        quorum["sync"].append(sync)
        quorum["all"] += [out, sync]

    def finish(self) -> ir_types.Thread:
        missing = set(self.labels) - self.labels_seen
        if missing:
            raise UnsupportedFeature(
                f"{self.thread.name}: bra to undefined label {sorted(missing)[0]}", self.p.test.path, self.thread.line
            )
        # Resolve labels to program counters.
        code: list[ir_types.AnyInstr] = []
        for ins in self.code:
            if isinstance(ins, Label):
                ins.pc = len(code)
            else:
                code.append(ins)
        for ins in code:
            target: Any = ins.get("target")
            if isinstance(target, Label):
                ins["target"] = target.pc
        return {
            "name": self.thread.name,
            "attrs": self.p.scopes.attrs[self.t],
            "nregs": len(self.regs),
            "regs": list(self.regs),
            "code": code,
        }
