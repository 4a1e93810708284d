"""Parser for GPU_PTX litmus tests (herd's PTX front end).

Layout: a header `GPU_PTX name`, an init block of register declarations
(`0:.reg .b64 r1 = x;` makes r1 hold x's address), a column table (`P0 | P1
;` then one instruction per cell), a scope tree (`device`/`grid` >
`kernel` > `cta` > `warp`), a region line (`x: global, y: shared`), and a
condition. The table is split by lines and cells; each cell, and the tail,
is read by a hand-written reader of `ptx.grammar` that gives up on what it
does not know, which the LALR reader (`ptx_lalr`, lark, the reference)
then reads and, where it is wrong, reports. Registers that hold
addresses are resolved statically to the locations they point to.
"""

from __future__ import annotations

import re

from ..errors import LitmusSyntaxError
from . import ast as A
from .columns import read_columns
from .comments import blank_comments
from .opencl_fast import GiveUp, Reader
from .toolkit import CACHE_OPS, READER, ParseFailure, apply_scope_tree, int_literal

MEMBAR_SCOPE = {"cta": "wg", "gl": "dev", "sys": "all"}
SETP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
REGION = {"global": "global", "shared": "local", "local": "local"}


def _err(msg, path, lines, line, col):
    raise LitmusSyntaxError(msg, path, line, col, lines[line - 1] if 0 < line <= len(lines) else None)


def read_tail(lines: list, i: int, path, reader: str | None = None) -> tuple:
    """The tail of a column-format test from line index i: its scope tree
    (or None), regions, condition (or None) and `locations` clause."""
    text = "\n".join(lines[i:])
    items = _fast_tail(text) if (reader or READER) != "lalr" else None
    if items is None:
        from .ptx_lalr import tail_items

        items = tail_items(text, path, lines, i)

    def item(kind, default):
        return next((x[1] for x in items if isinstance(x, tuple) and x[0] == kind), default)

    return item("tree", None), dict(item("regions", [])), item("cond", None), item("locations", ())


def parse_ptx(text: str, path: str | None = None, reader: str | None = None) -> A.Test:
    """A GPU_PTX test; `reader` "lalr" reads it with the reference alone
    (as HRF_PARSER=lalr does)."""
    fast = (reader or READER) != "lalr"
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
            tree = _fast_instr(src) if fast else None
            if tree is None:
                from .ptx_lalr import instr_tree

                tree = instr_tree(src, path, lines, line, col)
            try:
                bodies[t].append(_instr(tree, t, pointers.get(t, {}), path, lines, line, col))
            except ParseFailure as e:  # a number that does not fit in 64 bits
                _err(e.msg, path, lines, line, col)
    i = c.tail
    tree, regions, cond, locs = read_tail(lines, i, path, reader)
    for loc, reg in regions.items():
        if reg not in REGION:
            _err(f"unknown region {reg!r} for {loc} (global or shared)", path, lines, i + 1, 1)
    params = tuple(A.Param(loc, REGION[r]) for loc, r in regions.items())
    threads = tuple(A.Thread(n, params, tuple(b), line=0) for n, b in zip(names, bodies, strict=False))
    if tree is not None:
        threads = apply_scope_tree(threads, tree, path, text)
    return A.Test("GPU_PTX", name, threads, tuple(inits), tuple(reg_inits), cond, locs, path=path)


def _instr(tree, t, pointers, path, lines, line, col):
    """One cell -> one AST statement."""

    def fail(msg):
        _err(msg, path, lines, line, col)

    def mods(node):
        return [str(m)[1:] for m in node.children] if node is not None else []

    def loc_of(addr):
        name = str(addr.children[0])
        return pointers.get(name, name)

    def operand(o):
        if o.data == "op_reg":
            return A.Reg(str(o.children[0]), line=line)
        s = o.children[0]
        v = int_literal(s.children[-1])
        return A.Const(-v if len(s.children) == 2 else v, line=line)

    if tree.data == "label":
        return A.Label(str(tree.children[0]), line=line)
    pred = tree.children[0] if len(tree.children) == 2 else None
    op = tree.children[-1]
    stmt = _op(op, t, mods, loc_of, operand, fail, line)
    if pred is not None:
        neg = any(getattr(x, "type", None) == "BANG" for x in pred.children)
        reg = A.Reg(str(pred.children[-1]), line=line)
        stmt = A.If(A.UnOp("!", reg, line=line) if neg else reg, (stmt,), (), line=line)
    return stmt


def _op(op, t, mods, loc_of, operand, fail, line):
    kind = op.data
    ch = op.children
    if kind == "ld":
        ms = mods(ch[0])
        cache = next((m for m in ms if m in CACHE_OPS), None)
        return A.Assign(str(ch[1].children[0]), A.Load(loc_of(ch[2]), line=line, cache=cache), line=line)
    if kind == "st":
        ms = mods(ch[0])
        cache = next((m for m in ms if m in CACHE_OPS), None)
        return A.Store(loc_of(ch[1]), operand(ch[2]), line=line, cache=cache)
    if kind == "mov":
        return A.Assign(str(ch[1].children[0]), operand(ch[2]), line=line)
    if kind in ("add", "and_"):
        o = "+" if kind == "add" else "&"
        return A.Assign(str(ch[1].children[0]), A.BinOp(o, operand(ch[2]), operand(ch[3]), line=line), line=line)
    if kind == "setp":
        ms = mods(ch[0])
        cmp = next((SETP[m] for m in ms if m in SETP), None)
        if cmp is None:
            fail(f"setp needs a comparison (.eq, .ne, ...), got {'.'.join(ms)}")
        return A.Assign(str(ch[1].children[0]), A.BinOp(cmp, operand(ch[2]), operand(ch[3]), line=line), line=line)
    if kind == "bra":
        return A.Goto(str(ch[-1]), line=line)
    if kind == "membar":
        ms = mods(ch[0])
        if len(ms) != 1 or ms[0] not in MEMBAR_SCOPE:
            fail(f"membar needs one of .cta, .gl, .sys, got .{'.'.join(ms)}")
        return A.Fence((), "sc", MEMBAR_SCOPE[ms[0]], line=line)
    if kind == "atom":
        ms = mods(ch[0])
        dst, addr, a = str(ch[1].children[0]), loc_of(ch[2]), operand(ch[3])
        b = operand(ch[4]) if len(ch) > 4 else None
        if "cas" in ms:
            if b is None:
                fail("atom.cas takes a compare value and a new value")
            return A.Assign(dst, A.Rmw("cas_old", addr, b, "rlx", None, expected_value=a, line=line), line=line)
        for name, op_ in (("exch", "exch"), ("add", "add"), ("and", "and"), ("or", "or"), ("xor", "xor")):
            if name in ms:
                return A.Assign(dst, A.Rmw(op_, addr, a, "rlx", None, line=line), line=line)
        fail(f"atom.{'.'.join(ms)} is not supported (cas, exch, add, and, or, xor)")
    fail(f"unknown instruction {kind}")


# ---------------------------------------------------------------- the hand-written reader
class _Tree:
    """A node as the LALR reader's parse tree has it (`data`, `children`),
    so that `_instr` reads either reader's cells."""

    __slots__ = ("data", "children")

    def __init__(self, data: str, children: list):
        self.data, self.children = data, children


class _Tok(str):
    """A token as lark's: its text, with `type`."""

    type: str

    def __new__(cls, text: str, type_: str):
        t = super().__new__(cls, text)
        t.type = type_
        return t


_CELL = re.compile(
    r"\s*(?:(?P<mod>\.[A-Za-z0-9_]+)|(?P<name>[A-Za-z_%][A-Za-z0-9_]*)|(?P<int>0x[0-9a-fA-F]+|[0-9]+)|(?P<op>[@!,\[\]:-]))"
)
_OPS = ("ld", "st", "mov", "add", "and", "setp", "bra", "membar", "atom")
# per op: its operands after the modifiers (reg, addr, operand), the last one optional for atom
_SHAPES = {
    "ld": ("reg", "addr"),
    "st": ("addr", "operand"),
    "mov": ("reg", "operand"),
    "add": ("reg", "operand", "operand"),
    "and": ("reg", "operand", "operand"),
    "setp": ("reg", "operand", "operand"),
    "atom": ("reg", "addr", "operand", "operand?"),
}


def _fast_instr(src: str):
    """One cell as the LALR reader's tree, or None (it gives up)."""
    toks = []
    pos, n = 0, len(src)
    while pos < n:
        if src.startswith("//", pos) or src.startswith("/*", pos):
            return None
        m = _CELL.match(src, pos)
        if m is None:
            if src[pos:].strip() == "":
                break
            return None
        kind = m.lastgroup or ""
        toks.append((kind, m.group(kind)))
        pos = m.end()
    if len(toks) == 2 and toks[0][0] == "name" and toks[1] == ("op", ":") and toks[0][1] not in _OPS:
        return _Tree("label", [_Tok(toks[0][1], "NAME")])
    k = 0
    pred = None
    if toks and toks[0] == ("op", "@"):
        k = 1
        children = []
        if k < len(toks) and toks[k] == ("op", "!"):
            children.append(_Tok("!", "BANG"))
            k += 1
        if k >= len(toks) or toks[k][0] != "name":
            return None
        children.append(_Tok(toks[k][1], "NAME"))
        k += 1
        pred = _Tree("pred", children)
    if k >= len(toks) or toks[k][0] != "name" or toks[k][1] not in _OPS:
        return None
    op = toks[k][1]
    k += 1
    mods = []
    while k < len(toks) and toks[k][0] == "mod":
        mods.append(_Tok(toks[k][1], "MOD"))
        k += 1
    mods_node = _Tree("mods", mods) if mods else None
    rest = toks[k:]
    if op == "bra":
        if len(rest) != 1 or rest[0][0] != "name":
            return None
        bra: list = [mods_node, _Tok(rest[0][1], "NAME")] if mods else [_Tok(rest[0][1], "NAME")]
        node = _Tree("bra", bra)
    elif op == "membar":
        if not mods or rest:
            return None
        node = _Tree("membar", [mods_node])
    else:
        if not mods:
            return None
        args = _operands(rest, _SHAPES[op])
        if args is None:
            return None
        node = _Tree({"and": "and_"}.get(op, op), [mods_node, *args])
    return _Tree("instr", [pred, node] if pred is not None else [node])


def _operands(toks: list, shape: tuple):
    """The operands of an instruction, comma-separated, as tree nodes."""
    out: list = []
    k = 0
    for i, want in enumerate(shape):
        if want.endswith("?") and k == len(toks):
            break
        if i > 0:
            if k >= len(toks) or toks[k] != ("op", ","):
                return None
            k += 1
        if k >= len(toks):
            return None
        kind, text = toks[k]
        if want == "reg" and kind == "name":
            out.append(_Tree("reg", [_Tok(text, "NAME")]))
            k += 1
        elif want == "addr" and toks[k] == ("op", "[") and k + 2 < len(toks) and toks[k + 1][0] == "name":
            if toks[k + 2] != ("op", "]"):
                return None
            out.append(_Tree("addr", [_Tok(toks[k + 1][1], "NAME")]))
            k += 3
        elif want.startswith("operand") and kind == "name":
            out.append(_Tree("op_reg", [_Tok(text, "NAME")]))
            k += 1
        elif want.startswith("operand") and (kind == "int" or toks[k] == ("op", "-")):
            sign = []
            if toks[k] == ("op", "-"):
                sign = [_Tok("-", "MINUS")]
                k += 1
                if k >= len(toks) or toks[k][0] != "int":
                    return None
            out.append(_Tree("op_imm", [_Tree("signed", [*sign, _Tok(toks[k][1], "INT")])]))
            k += 1
        else:
            return None
    return out if k == len(toks) else None


class _TailReader(Reader):
    """The tail of a PTX test (scope tree, regions, locations, condition)
    with the hand-written reader of the C/OpenCL syntax, where the PTX
    grammar says the same; it gives up where the grammars differ."""

    def tail(self) -> list:
        self.lex(0, 1, 0)
        items: list = []
        t = self.peek()
        if t[0] == "name" and t[1].lower().startswith("scopetree"):
            if t[1].lower() != "scopetree":
                raise GiveUp
            items.append(self.scope_tree())
            t = self.peek()
        if t[0] == "name" and t[1] not in ("locations", "exists", "forall") and self.peek(1)[0] == ":":
            regions = []
            while True:
                loc = self.name()
                self.expect(":")
                regions.append((loc, self.name()))
                if not self.accept(","):
                    break
            items.append(("regions", regions))
            t = self.peek()
        if t[1] == "locations":
            items.append(self.locations())
            t = self.peek()
        if t[0] == "~" or t[1] in ("exists", "forall"):
            negated = self.accept("~")
            quant = self.next()[1]
            if quant not in ("exists", "forall") or negated and quant != "exists":
                raise GiveUp
            self.expect("(")
            prop = A.PTrue() if self.peek()[0] == ")" else self.prop()
            self.expect(")")
            items.append(("cond", A.Condition("~exists" if negated else quant, prop)))
        if self.peek()[0] != "end":
            raise GiveUp
        return items

    def cvar(self):
        # the PTX grammar has no pointee variables
        if self.peek()[0] == "name" and self.peek(1)[0] == "*":
            raise GiveUp
        return super().cvar()

    def atom(self, var):
        # the PTX grammar's atoms are `var = number` only
        self.expect("=")
        return A.PAtom(var, self.signed())


def _fast_tail(text: str):
    if "/*" in text:
        return None  # the PTX grammar has no block comments
    try:
        return _TailReader(text).tail()
    except (GiveUp, ParseFailure, RecursionError, IndexError):
        return None
