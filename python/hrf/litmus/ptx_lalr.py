"""The LALR reader of GPU_PTX cells and tails (lark, `ptx.grammar`): the
reference the hand-written reader in `ptx` is tested against, and the
reader of every cell or tail that one gives up on, errors included."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, v_args
from lark.exceptions import UnexpectedInput, VisitError

from ..errors import LitmusSyntaxError
from .grammar import lalr
from .opencl_lalr import ToAst, lark_syntax_error
from .toolkit import ParseFailure


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


def instr_tree(src: str, path, lines: list, line: int, col: int):
    """One cell's parse tree; a syntax error names the cell's place."""
    try:
        return _parser().parse(src, start="instr")
    except UnexpectedInput as e:
        raise lark_syntax_error(e, path, lines, line - 1, col - 1) from None


def tail_items(text: str, path, lines: list, i: int) -> list:
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
