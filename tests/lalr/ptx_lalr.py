"""The LALR reader of GPU_PTX cells and tails (lark, `ptx.grammar`): the
reference `hrf.litmus.ptx`'s readers are tested against. A cell's tree
becomes the parts `ptx.statement` gives a meaning to; the tail's the items
`ptx.parse_ptx` takes."""

from __future__ import annotations

from lark import Token, v_args
from lark.exceptions import UnexpectedInput, VisitError

from hrf.errors import LitmusSyntaxError
from hrf.litmus import ast as A
from hrf.litmus import ptx
from hrf.litmus.toolkit import ParseFailure

from .grammar import lalr
from .opencl_lalr import ToAst, lark_syntax_error


def parse_ptx(text: str, path: str | None = None) -> A.Test:
    """A GPU_PTX test, read by the LALR reader."""
    return ptx.parse_ptx(text, path, read_cell=read_cell, read_tail_items=read_tail)


def _parser():
    return lalr("ptx", ("instr", "tail"))


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


def read_cell(src: str, line: int, col: int, path, lines: list) -> tuple:
    """One cell's parts; a syntax error names the cell's place."""
    try:
        tree = _parser().parse(src, start="instr")
    except UnexpectedInput as e:
        raise lark_syntax_error(e, path, lines, line - 1, col - 1) from None
    if tree.data == "label":
        return ("label", str(tree.children[0]))
    pred = None
    if len(tree.children) == 2:
        p = tree.children[0]
        pred = (any(getattr(x, "type", None) == "BANG" for x in p.children), str(p.children[-1]))
    op = tree.children[-1]
    kind = {"and_": "and"}.get(op.data, op.data)
    mods = [str(m)[1:] for m in op.children[0].children] if op.children and _is(op.children[0], "mods") else []
    args = [_arg(x) for x in op.children if not _is(x, "mods")]
    return (pred, kind, mods, args)


def _is(x, data: str) -> bool:
    return getattr(x, "data", None) == data


def _arg(x) -> tuple:
    if isinstance(x, Token):
        return ("label", str(x))
    if x.data == "reg" or x.data == "op_reg":
        return ("reg", str(x.children[0]))
    if x.data == "addr":
        return ("addr", str(x.children[0]))
    s = x.children[0]  # op_imm: signed
    return ("imm", str(s.children[-1]), len(s.children) == 2)


def read_tail(text: str, path, lines: list, i: int) -> list:
    """The tail's items (the tail starts at line index i of the file)."""
    try:
        return _TailAst().transform(_parser().parse(text, start="tail"))
    except UnexpectedInput as e:
        raise lark_syntax_error(e, path, lines, i) from None
    except VisitError as e:
        if isinstance(e.orig_exc, ParseFailure):
            line = (e.orig_exc.line or 1) + i
            raise LitmusSyntaxError(
                e.orig_exc.msg,
                path,
                line,
                e.orig_exc.column or 1,
                lines[line - 1] if 0 < line <= len(lines) else None,
            ) from None
        raise
