"""Parser for OpenCL litmus tests (Dat3M and herd 2015 styles) and herd's
C tests, which share the C-like syntax.

The syntax is `opencl.grammar`. Two readers build the same AST of
`hrf.litmus.ast` from it: a hand-written one (`opencl_fast`), fast and
without lark, which reads what it knows and gives up on anything else,
and the LALR one (`opencl_lalr`, lark), the reference, which reads the
rest and reports every problem as a `LitmusSyntaxError` naming file, line
and column. The builders both call are the toolkit's (`toolkit.py`); here
the two are chosen between and their items assembled into a test.
"""

from __future__ import annotations

import dataclasses

from ..errors import LitmusSyntaxError
from . import ast as A
from .addresses import resolve_addresses
from .comments import blank_comments
from .toolkit import READER, apply_scope_tree


def parse_opencl(text: str, path: str | None = None, reader: str | None = None) -> A.Test:
    src = blank_comments(text, c_bodies=True)
    lines = text.splitlines()
    items = None
    if (reader or READER) != "lalr":
        from .opencl_fast import read_items

        items = read_items(src)  # None where it gives up
    if items is None:
        from .opencl_lalr import read_items as lalr_items

        items = lalr_items(src, path, lines)
    return assemble(items, path, text, lines)


def assemble(items: list, path: str | None, text: str, lines: list[str]) -> A.Test:
    """The Test from the top-level items either reader gives."""
    header = next(x for x in items if isinstance(x, tuple) and x[0] == "header")
    init = next(x for x in items if isinstance(x, tuple) and x[0] == "init")[1]
    threads = tuple(x for x in items if isinstance(x, A.Thread))
    tree = next((x for x in items if isinstance(x, tuple) and x[0] == "tree"), None)
    cond = next((x[1] for x in items if isinstance(x, tuple) and x[0] == "cond"), None)
    locs = next((x[1] for x in items if isinstance(x, tuple) and x[0] == "locations"), ())

    for i, t in enumerate(threads):
        if t.index != i:
            raise LitmusSyntaxError(
                f"threads must be P0, P1, ... in order; found {t.name} in position {i}",
                path,
                t.line,
                1,
                lines[t.line - 1] if t.line else None,
            )
    annotated = [t for t in threads if t.wg is not None or t.dev is not None]
    if tree is not None:
        if annotated:
            raise LitmusSyntaxError(
                "a test gives scopes either with P0@... or with scopeTree, not both", path, annotated[0].line
            )
        threads = apply_scope_tree(threads, tree[1], path, text)
    elif annotated:
        bare = [t for t in threads if t.wg is None and t.dev is None]
        if bare:
            t = bare[0]
            raise LitmusSyntaxError(
                f"{t.name} has no placement (@wg N, dev N) while {annotated[0].name} has one: "
                "place every thread or none",
                path,
                t.line,
                1,
                lines[t.line - 1] if t.line else None,
            )
        threads = tuple(
            A.Thread(
                t.name,
                t.params,
                t.body,
                dev=t.dev if t.dev is not None else 0,
                wg=t.wg if t.wg is not None else 0,
                sg=t.sg,
                line=t.line,
            )
            for t in threads
        )
    inits = tuple(x for x in init if isinstance(x, A.Init))
    reg_inits = tuple(x for x in init if isinstance(x, A.RegInit))
    seen = set()
    for ini in inits:
        if ini.loc in seen:
            raise LitmusSyntaxError(f"location {ini.loc} is initialised twice", path, ini.line)
        seen.add(ini.loc)
    test = A.Test(header[1], header[2], threads, inits, reg_inits, cond, locs, path=path)
    resolved = resolve_addresses(threads, test, text)
    if resolved is not None:
        test = dataclasses.replace(test, threads=resolved)
    return test
