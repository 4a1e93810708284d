"""The LALR parsers of the executable grammars (lark), built once per run."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from lark import Lark

HERE = Path(__file__).resolve().parent


@cache
def lalr(name: str, start: tuple = ("start",)) -> Lark:
    """The LALR parser of `name.grammar` (here), with positions."""
    return Lark(
        (HERE / f"{name}.grammar").read_text(),
        parser="lalr",
        start=list(start),
        propagate_positions=True,
        maybe_placeholders=True,
    )
