"""The layout herd's assembly-like litmus tests share (GPU_PTX, and hrf's
GPU_MACHINE): a header `ARCH name`, an init block `{ ... }`, a table whose
first row names the threads `P0 | P1 ;` and whose cells hold one
instruction each, then a tail (scope tree, condition, ...)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NoReturn

from ..errors import LitmusSyntaxError


@dataclass
class Columns:
    lines: list
    name: str
    init_text: str  # between the braces
    init_line: int  # 1-based line of the opening brace
    names: list  # P0, P1, ...
    cells: list  # per thread: [(text, line, column)], 1-based
    tail: int  # 0-based index of the first line after the table

    def fail(self, msg: str, path, line: int, col: int = 1) -> NoReturn:
        raise LitmusSyntaxError.at(msg, path, self.lines, line, col)

    def init_item_line(self, item: str) -> int:
        """The line of one `;`-separated item of the init block."""
        return self.init_line + self.init_text[: self.init_text.find(item)].count("\n")


def read_columns(text: str, path, table_end: str) -> Columns:
    """Split a column-format test; `table_end` is a regex matching the
    first line after the table."""
    lines = text.splitlines()
    header = lines[0].split(None, 1) if lines else []
    c = Columns(lines, header[1].strip() if len(header) > 1 else "", "", 0, [], [], 0)
    i = 1
    # quoted doc lines and key=value lines before the init block
    while i < len(lines) and not lines[i].strip().startswith("{"):
        i += 1
    if i == len(lines):
        c.fail("no init block '{ ... }'", path, len(lines))
    c.init_line = i + 1
    body = []
    while i < len(lines):
        body.append(lines[i])
        if "}" in lines[i]:
            break
        i += 1
    init = "\n".join(body)
    if "}" not in init:
        c.fail("the init block '{' is never closed with '}'", path, c.init_line, lines[c.init_line - 1].find("{") + 1)
    c.init_text = init[init.index("{") + 1 : init.index("}")]
    i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i == len(lines):
        c.fail("no thread table", path, len(lines))
    c.names = [h.strip() for h in lines[i].strip().rstrip(";").split("|")]
    for k, n in enumerate(c.names):
        if n != f"P{k}":
            c.fail(f"thread columns must be P0, P1, ...; found {n!r}", path, i + 1)
    c.cells = [[] for _ in c.names]
    i += 1
    end = re.compile(table_end, re.I)
    while i < len(lines) and not end.match(lines[i]):
        row = lines[i]
        if row.strip():
            parts = row.rstrip().rstrip(";").split("|")
            if len(parts) > len(c.names):
                c.fail(f"{len(parts)} cells in a table of {len(c.names)} threads", path, i + 1)
            col = 1
            for t, cell in enumerate(parts):
                src = cell.strip()
                if src:
                    c.cells[t].append((src, i + 1, col + cell.index(src)))
                col += len(cell) + 1
        i += 1
    c.tail = i
    return c
