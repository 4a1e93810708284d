"""Parser for GPU_PTX litmus tests (herd's PTX front end).

Layout: a header `GPU_PTX name`, an init block of register declarations
(`0:.reg .b64 r1 = x;` makes r1 hold x's address), a column table (`P0 | P1
;` then one instruction per cell), a scope tree (`device`/`grid` >
`kernel` > `cta` > `warp`), a region line (`x: global, y: shared`), and a
condition. The table is split by lines and cells; each cell, and the tail,
is parsed with the lark grammar `ptx.grammar`. Registers that hold
addresses are resolved statically to the locations they point to.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, v_args
from lark.exceptions import UnexpectedInput, VisitError

from ..errors import LitmusSyntaxError
from ..program import CACHE_OPS  # the cache operators (event tags cache_*)
from . import ast as A
from .columns import read_columns
from .grammar import lalr
from .opencl import ParseFailure, apply_scope_tree, int_literal
from .opencl_lalr import ToAst, lark_syntax_error

MEMBAR_SCOPE = {"cta": "wg", "gl": "dev", "sys": "all"}
SETP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
REGION = {"global": "global", "shared": "local", "local": "local"}


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return lalr(
        Path(__file__).parent / "ptx.grammar",
        start=["instr", "tail"],
        propagate_positions=True,
        maybe_placeholders=True,
    )


@v_args(meta=True)
class _TailAst(ToAst):
    """The OpenCL transformer reads the scope tree and condition; regions here."""

    def region(self, meta, c):
        return (str(c[0]), str(c[1]))

    def regions(self, meta, c):
        return ("regions", list(c))

    def scope_tree(self, meta, c):
        return ("tree", [x for x in c if not isinstance(x, Token)])

    def tail(self, meta, c):
        return [x for x in c if x is not None]


def _err(msg, path, lines, line, col):
    raise LitmusSyntaxError(msg, path, line, col, lines[line - 1] if 0 < line <= len(lines) else None)


def _lark_error(e: UnexpectedInput, path, lines, line_offset, col_offset=0):
    raise lark_syntax_error(e, path, lines, line_offset, col_offset) from None


def read_tail(lines: list, i: int, path) -> tuple:
    """The tail of a column-format test from line index i: its scope tree
    (or None), regions, condition (or None) and `locations` clause."""
    try:
        items = _TailAst().transform(_parser().parse("\n".join(lines[i:]), start="tail"))
    except UnexpectedInput as e:
        _lark_error(e, path, lines, i)
    except VisitError as e:
        if isinstance(e.orig_exc, ParseFailure):
            _err(e.orig_exc.msg, path, lines, (e.orig_exc.line or 1) + i, e.orig_exc.column or 1)
        raise

    def item(kind, default):
        return next((x[1] for x in items if isinstance(x, tuple) and x[0] == kind), default)

    return item("tree", None), dict(item("regions", [])), item("cond", None), item("locations", ())


def parse_ptx(text: str, path: str | None = None) -> A.Test:
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
            try:
                tree = _parser().parse(src, start="instr")
            except UnexpectedInput as e:
                _lark_error(e, path, lines, line - 1, col - 1)
            bodies[t].append(_instr(tree, t, pointers.get(t, {}), path, lines, line, col))
    i = c.tail
    tree, regions, cond, locs = read_tail(lines, i, path)
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
        neg = any(isinstance(x, Token) and x.type == "BANG" for x in pred.children)
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
