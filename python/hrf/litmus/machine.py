"""The syntax of GPU_MACHINE tests (herd-like, column format) read into
the AST of `litmus.ast` (`MachineTest`); `hrf.machine.lower` makes a
machine program of it, reading each instruction by the machine's
instruction table::

    GPU_MACHINE corrupt-MP
    { x=0; y=0; }
     P0         | P1         ;
     ST 42 x    | INVL1 WG   ;
     FLUL1 WG   | LD r0 y    ;
     ST 1 y     | LD r1 x    ;
    scopeTree (device (work_group P0) (work_group P1))
    exists (1:r0=1 /\\ 1:r1=0)
"""

from __future__ import annotations

import re
from typing import NoReturn

from ..errors import LitmusSyntaxError
from . import MACHINE_ARCHES
from . import ast as A
from .columns import read_columns
from .comments import blank_comments
from .ptx import read_tail
from .toolkit import apply_scope_tree


def is_machine_text(text: str) -> bool:
    first = text.lstrip().split(None, 1)
    return bool(first) and first[0].upper() in MACHINE_ARCHES


def parse_machine_ast(text: str, path: str | None = None) -> A.MachineTest:
    """Parse a GPU_MACHINE test; errors name file, line and column."""
    if not is_machine_text(text):
        first = text.splitlines()[0] if text.strip() else None
        raise LitmusSyntaxError("a machine test starts with 'GPU_MACHINE name'", path, 1, 1, first)
    text = blank_comments(text, c_bodies=False)  # herd's (* *), anywhere
    c = read_columns(text, path, r"\s*(scopetree|exists|forall|~|locations)")

    def fail(msg: str, line: int, col: int = 1) -> NoReturn:
        c.fail(msg, path, line, col)

    locations: dict[str, int] = {}
    for item in c.init_text.split(";"):
        s = item.strip()
        if not s:
            continue
        m = re.fullmatch(r"\[?(\w+)\]?\s*=\s*(-?\d+)", s)
        if not m:
            fail(f"cannot read init item {s!r} (machine tests initialise locations: x=0;)", c.init_item_line(item))
        locations[m.group(1)] = int(m.group(2))
    tree, _, cond, _ = read_tail(c.lines, c.tail, path)
    placed = tuple(A.Thread(n, (), (), line=0) for n in c.names)
    if tree is not None:
        placed = apply_scope_tree(placed, tree, path, text)
    threads = []
    for t, (n, th) in enumerate(zip(c.names, placed, strict=True)):
        body: list[A.MachineInstr | A.MachineLabel] = []
        for src, line, col in c.cells[t]:
            if re.fullmatch(r"\w+:", src):
                body.append(A.MachineLabel(src[:-1], line, col))
            else:
                words = src.replace(",", " ").split()
                body.append(A.MachineInstr(words[0], tuple(words[1:]), line, col))
        threads.append(A.MachineThread(n, tuple(body), th.dev, th.wg))
    return A.MachineTest(c.name, tuple(locations.items()), tuple(threads), cond, path, len(c.lines))
