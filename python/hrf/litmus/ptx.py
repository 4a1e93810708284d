"""Parser for GPU_PTX litmus tests (herd's PTX front end).

Layout: a header `GPU_PTX name`, an init block of register declarations
(`0:.reg .b64 r1 = x;` makes r1 hold x's address), a column table (`P0 | P1
;` then one instruction per cell), a scope tree (`device`/`grid` >
`kernel` > `cta` > `warp`), a region line (`x: global, y: shared`), and a
condition. The table is split by lines and cells; each cell is read by
`CellReader`, the tail by `TailReader` (both on the reader of `reader.py`),
and `instruction` gives an instruction its meaning. Registers that hold
addresses are resolved statically to the locations they point to.

The forms (tests/lalr/ptx.grammar is the same grammar, executable, that
the readers are tested against):

    cell    := ('@' '!'? reg)? op | label ':'
    op      := ld mods reg ',' [loc] | st mods [loc] ',' v | mov mods reg ',' v
             | add|and|setp mods reg ',' v ',' v | bra mods? label | membar mods
             | atom mods reg ',' [loc] ',' v (',' v)?
    tail    := scopeTree? (loc ':' region (',' loc ':' region)*)? locations? condition?
"""

from __future__ import annotations

import re
from typing import NoReturn

from ..errors import LitmusSyntaxError
from . import ast as A
from .columns import read_columns
from .comments import blank_comments
from .reader import PROC, SyntaxFault, TokenReader
from .toolkit import CACHE_OPS, ParseFailure, apply_scope_tree, int_literal

MEMBAR_SCOPE = {"cta": "wg", "gl": "dev", "sys": "all"}
SETP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
REGION = {"global": "global", "shared": "local", "local": "local"}
# per instruction: its operands after the modifiers, the last one optional for atom
SHAPES = {
    "ld": ("reg", "addr"),
    "st": ("addr", "operand"),
    "mov": ("reg", "operand"),
    "add": ("reg", "operand", "operand"),
    "and": ("reg", "operand", "operand"),
    "setp": ("reg", "operand", "operand"),
    "atom": ("reg", "addr", "operand", "operand?"),
    "bra": ("label",),
    "membar": (),
}
# the instruction names, longest first (where only one may come, a name starting with one is read as it)
_OPS = sorted(SHAPES, key=lambda o: (-len(o), o))


def _err(msg, path, lines, line, col) -> NoReturn:
    raise LitmusSyntaxError.at(msg, path, lines, line, col)


def parse_ptx(text: str, path: str | None = None, read_cell=None, read_tail_items=None) -> A.Test:
    """A GPU_PTX test; `read_cell(src, line, col, path, lines)` and
    `read_tail_items(text, path, lines, i)` replace the readers (the tests
    give the LALR reference here)."""
    read_cell = read_cell or cell
    text = blank_comments(text, c_bodies=False)  # herd's (* *), anywhere: PTX code has none of its own
    c = read_columns(text, path, r"\s*(scopetree|exists|forall|~|locations|\w+\s*:\s*\w+)")
    lines, name, init_text = c.lines, c.name, c.init_text
    pointers: dict = {}  # thread -> reg -> location
    inits: list = []
    reg_inits: list = []
    for raw in init_text.split(";"):
        item = raw.strip()
        if not item:
            continue
        m = re.fullmatch(r"(\d+)\s*:\s*\.reg\s+\.\w+\s+(\w+)(?:\s*=\s*(-?\w+))?", item)
        if m:
            t, reg, val = int(m.group(1)), m.group(2), m.group(3)
            if val is None:
                continue
            if re.fullmatch(r"-?\d+", val):
                reg_inits.append(A.RegInit(t, reg, int(val)))
            else:
                pointers.setdefault(t, {})[reg] = val
            continue
        m = re.fullmatch(r"\[?(\w+)\]?\s*=\s*(-?\d+)", item)
        if m:
            inits.append(A.Init(m.group(1), int(m.group(2))))
            continue
        _err(f"cannot read init item {item!r}", path, lines, c.init_item_line(raw), 1)
    names = c.names
    bodies: list = [[] for _ in names]
    for t, cells in enumerate(c.cells):
        for src, line, col in cells:
            parts = read_cell(src, line, col, path, lines)
            try:
                bodies[t].append(statement(parts, pointers.get(t, {}), line))
            except ParseFailure as e:  # a cell that reads but means nothing to hrf
                _err(e.msg, path, lines, line, col)
    i = c.tail
    tree, regions, cond, locs = read_tail(lines, i, path, read_tail_items)
    for loc, reg in regions.items():
        if reg not in REGION:
            _err(f"unknown region {reg!r} for {loc} (global or shared)", path, lines, i + 1, 1)
    params = tuple(A.Param(loc, REGION[r]) for loc, r in regions.items())
    threads = tuple(A.Thread(n, params, tuple(b), line=0) for n, b in zip(names, bodies, strict=False))
    if tree is not None:
        threads = apply_scope_tree(threads, tree, path, text)
    return A.Test("GPU_PTX", name, threads, tuple(inits), tuple(reg_inits), cond, locs, path=path)


def read_tail(lines: list, i: int, path, read_items=None) -> tuple:
    """The tail of a column-format test from line index i: its scope tree
    (or None), regions, condition (or None) and `locations` clause."""
    items = (read_items or tail)("\n".join(lines[i:]), path, lines, i)

    def item(kind, default):
        return next((x[1] for x in items if isinstance(x, tuple) and x[0] == kind), default)

    return item("tree", None), dict(item("regions", [])), item("cond", None), item("locations", ())


# ---------------------------------------------------------------- meaning
# A cell as read: ("label", name) or (pred, op, mods, args), pred being
# None or (negated, reg), args ("reg", name), ("addr", loc), ("imm", digits, negated) or
# ("label", name) in the order SHAPES gives.
def statement(parts: tuple, pointers: dict, line: int):
    """One cell's AST statement; a meaningless one is a ParseFailure."""
    if parts[0] == "label":
        return A.Label(parts[1], line=line)
    pred, op, mods, args = parts
    stmt = instruction(op, mods, args, pointers, line)
    if pred is not None:
        neg, reg = pred
        r = A.Reg(reg, line=line)
        stmt = A.If(A.UnOp("!", r, line=line) if neg else r, (stmt,), (), line=line)
    return stmt


def instruction(op: str, ms: list, args: list, pointers: dict, line: int):
    """An instruction's meaning."""

    def fail(msg) -> NoReturn:
        raise ParseFailure(msg)

    def loc(a):
        return pointers.get(a[1], a[1])

    def operand(a):
        if a[0] == "reg":
            return A.Reg(a[1], line=line)
        v = int_literal(a[1])  # ("imm", digits, negated)
        return A.Const(-v if a[2] else v, line=line)

    cache = next((m for m in ms if m in CACHE_OPS), None)
    if op == "ld":
        return A.Assign(args[0][1], A.Load(loc(args[1]), line=line, cache=cache), line=line)
    if op == "st":
        return A.Store(loc(args[0]), operand(args[1]), line=line, cache=cache)
    if op == "mov":
        return A.Assign(args[0][1], operand(args[1]), line=line)
    if op in ("add", "and"):
        o = "+" if op == "add" else "&"
        return A.Assign(args[0][1], A.BinOp(o, operand(args[1]), operand(args[2]), line=line), line=line)
    if op == "setp":
        cmp = next((SETP[m] for m in ms if m in SETP), None)
        if cmp is None:
            fail(f"setp needs a comparison (.eq, .ne, ...), got {'.'.join(ms)}")
        return A.Assign(args[0][1], A.BinOp(cmp, operand(args[1]), operand(args[2]), line=line), line=line)
    if op == "bra":
        return A.Goto(args[0][1], line=line)
    if op == "membar":
        if len(ms) != 1 or ms[0] not in MEMBAR_SCOPE:
            fail(f"membar needs one of .cta, .gl, .sys, got .{'.'.join(ms)}")
        return A.Fence((), "sc", MEMBAR_SCOPE[ms[0]], line=line)
    if op == "atom":
        dst, addr, a = args[0][1], loc(args[1]), operand(args[2])
        b = operand(args[3]) if len(args) > 3 else None
        if "cas" in ms:
            if b is None:
                fail("atom.cas takes a compare value and a new value")
            return A.Assign(dst, A.Rmw("cas_old", addr, b, "rlx", None, expected_value=a, line=line), line=line)
        for name, op_ in (("exch", "exch"), ("add", "add"), ("and", "and"), ("or", "or"), ("xor", "xor")):
            if name in ms:
                return A.Assign(dst, A.Rmw(op_, addr, a, "rlx", None, line=line), line=line)
        fail(f"atom.{'.'.join(ms)} is not supported (cas, exch, add, and, or, xor)")
    fail(f"unknown instruction {op}")


# ---------------------------------------------------------------- the readers
def cell(src: str, line: int, col: int, path, lines: list):
    """One cell, read: ("label", name) or (pred, op, mods, args)."""
    r = CellReader(src)
    try:
        r.lex()
        return r.cell()
    except SyntaxFault as e:
        _err(e.msg, path, lines, line, e.column + col - 1)


class CellReader(TokenReader):
    """One instruction of the table."""

    TOKEN = re.compile(
        r"(?P<skip>[ \t\f\r\n]+|//[^\n]*)"
        r"|(?P<mod>\.[A-Za-z0-9_]+)"
        r"|(?P<int>0x[0-9a-fA-F]+|[0-9]+)"
        r"|(?P<name>[A-Za-z_%][A-Za-z0-9_]*)"
        r"|(?P<op>\\/|/\\|[@!,\[\]:\-()~=;])"
    )

    def cell(self) -> tuple:
        t = self.peek()
        pred = None
        if t[0] == "@":
            self.i += 1
            neg = self.accept("!")
            pred = (neg, self.name("a predicate register"))
            op = self.op_after_pred()
        elif t[0] == "name" and t[1] in SHAPES:
            self.i += 1
            op = t[1]
        elif t[0] == "name":  # a label
            self.i += 1
            self.expect(":", "':' (a label) or an instruction")
            self.expect("end", "end of cell")
            return ("label", t[1])
        else:
            self.fail("an instruction, a label or '@'")
        mods = []
        while self.peek()[0] == "mod":
            mods.append(self.next()[1][1:])
        shape = SHAPES[op]
        if not mods and op != "bra":
            self.fail("a modifier (.u32, ...)")
        args: list = []
        for k, want in enumerate(shape):
            if want.endswith("?") and self.peek()[0] != ",":
                break
            if k > 0:
                self.expect(",", "','")
            args.append(self.arg(want.rstrip("?")))
        self.expect("end", "',' or end of cell" if shape and op != "bra" else "end of cell")
        return (pred, op, mods, args)

    def op_after_pred(self) -> str:
        """The instruction after `@p`: only an instruction's name may come
        there, so a name that starts with one is that name and what follows
        it (`@p brax` branches to x), as herd's PTX grammar reads it."""
        t = self.peek()
        if t[0] == "name":
            op = next((o for o in _OPS if t[1].startswith(o)), None)
            if op is not None:
                if len(t[1]) > len(op):
                    self.cut(len(op))
                self.i += 1
                return op
        self.fail("an instruction")

    def arg(self, want: str) -> tuple:
        t = self.peek()
        if want == "reg" or want == "label":
            return (want, self.name("a register" if want == "reg" else "a label"))
        if want == "addr":
            self.expect("[", "'[' (an address)")
            loc = self.name("a location")
            self.expect("]")
            return ("addr", loc)
        if t[0] == "name":
            self.i += 1
            return ("reg", t[1])
        if t[0] == "-" or t[0] == "int":
            neg = self.accept("-")
            return ("imm", self.expect("int", "a number")[1], neg)
        self.fail("a register or a number")


def tail(text: str, path, lines: list, i: int) -> list:
    """The tail's items (it starts at line index i of the file)."""
    r = TailReader(text)
    try:
        r.lex()
        return r.finish(r.tail())
    except SyntaxFault as e:
        _err(e.msg, path, lines, e.line + i, e.column)
    except ParseFailure as e:
        _err(e.msg, path, lines, (e.line or 1) + i, e.column or 1)


class TailReader(TokenReader):
    """The tail of a PTX test: scope tree, regions, locations, condition."""

    TOKEN = CellReader.TOKEN  # PTX's tokens: a modifier (.u32) is an error in the tail, where it stands

    def tail(self) -> list:
        items: list = []
        t = self.peek()
        after_tree = False
        if t[0] == "name" and t[1][:9].lower() == "scopetree":  # any case; a longer name is it and the rest
            if len(t[1]) > 9:
                self.cut(9)
            self.i += 1
            items.append(self.scope_tree())
            t = self.peek()
            after_tree = True
        if t[0] == "name" and t[1] not in ("locations", "exists", "forall"):
            if after_tree and PROC.fullmatch(t[1]):
                self.fail("regions, locations or a condition")
            regions = []
            while True:
                loc = self.name("a location")
                self.expect(":")
                regions.append((loc, self.name("a region")))
                if not self.accept(","):
                    break
            items.append(("regions", regions))
            t = self.peek()
        if self.at_word("locations"):
            self.i += 1
            items.append(self.locations())
            t = self.peek()
        if t[0] == "~" or t[0] == "name" and t[1] in ("exists", "forall"):
            items.append(self.condition(parens=True))
        if self.peek()[0] != "end":
            self.fail("a condition or end of input")
        return items
