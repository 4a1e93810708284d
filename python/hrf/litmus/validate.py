"""Checks a parsed test must pass before any model sees it.

A parser accepts what its grammar allows; these checks refuse what parses
but would be read as a different test than the one written: a name used
but declared nowhere (a typo would otherwise become a fresh location or a
register holding 0), a condition about a variable that appears nowhere.
A missing final condition is herd's `forall (true)`, stated in every result.
Each refusal is a LitmusSyntaxError naming the file,
line and column.
"""

from __future__ import annotations

import re

from ..errors import LitmusSyntaxError
from . import ast as A


def _where(test: A.Test, lines: list, line: int, word: str | None = None) -> tuple:
    """(line, column, excerpt) of `word` on a line (column 1 when absent)."""
    if not line or not 0 < line <= len(lines):
        return (line or None, None, None)
    text = lines[line - 1]
    col = 1
    if word:
        m = re.search(r"(?<![\w%])" + re.escape(word) + r"(?!\w)", text)
        if m:
            col = m.start() + 1
    return (line, col, text)


def _fail(test: A.Test, lines: list, msg: str, line: int, word: str | None = None):
    ln, col, excerpt = _where(test, lines, line, word)
    raise LitmusSyntaxError(msg, test.path, ln, col, excerpt)


def _condition_line(lines: list) -> int:
    """The line of the final condition (the last line starting with one)."""
    for k in range(len(lines), 0, -1):
        if re.match(r"\s*(~\s*)?(exists|forall)\b", lines[k - 1]):
            return k
    return len(lines)


def _reads(stmts):
    """(register name, line) of every register an instruction reads."""
    for s in A.walk_stmts(stmts):
        for e in A.exprs_of(s):
            for sub in A.walk_expr(e):
                if isinstance(sub, A.Reg):
                    yield sub.name, sub.line or getattr(s, "line", 0)
                elif isinstance(sub, A.Rmw) and sub.expected_value is not None:
                    for x in A.walk_expr(sub.expected_value):
                        if isinstance(x, A.Reg):
                            yield x.name, x.line or sub.line


def _defined(test: A.Test, i: int, t: A.Thread) -> set:
    """Registers thread i declares, assigns or has an initial value for."""
    regs = {ri.reg for ri in test.reg_init if ri.thread == i}
    regs |= {s.reg for s in A.walk_stmts(t.body) if isinstance(s, A.Assign)}
    return regs


def _pointer_registers(t: A.Thread) -> set:
    """Registers declared as pointers (`int *r0 = ...`): a load `*r0` goes
    through one (the compiler refuses pointer values with UnsupportedFeature)."""
    return {s.reg for s in A.walk_stmts(t.body) if isinstance(s, A.Assign) and s.pointer}


def _accesses(t: A.Thread):
    """(location, line) of every memory access of a thread."""
    for op in t.ops:
        if isinstance(op, (A.Load, A.Store, A.Rmw, A.StoreExpr)):
            yield op.loc, op.line
            if isinstance(op, A.Rmw) and op.expected:
                yield op.expected, op.line


def validate(test: A.Test, text: str) -> A.Test:
    """Refuse a parsed test whose names or condition do not add up; return
    it unchanged when they do."""
    lines = text.splitlines()
    if not test.threads:
        _fail(test, lines, "the test has no threads", len(lines))
    init_locs = {i.loc for i in test.init}
    every_param = {p.name for t in test.threads for p in t.params}
    for i, t in enumerate(test.threads):
        params = {p.name for p in t.params}
        declared = params | init_locs
        pointers = _pointer_registers(t)
        for loc, line in _accesses(t):
            if loc not in declared and loc not in pointers:
                _fail(
                    test,
                    lines,
                    f"{t.name} accesses {loc!r}, which is neither a parameter of {t.name} nor "
                    "in the init block (a misspelt name?)",
                    line,
                    loc,
                )
        regs = _defined(test, i, t)
        for reg, line in _reads(t.body):
            if reg not in regs and reg not in declared:
                _fail(
                    test,
                    lines,
                    f"{t.name} reads register {reg!r}, which it never declares or assigns (a misspelt name?)",
                    line,
                    reg,
                )
    cond_line = _condition_line(lines)
    # A missing condition: herd reads it as `forall (true)` (its tests rely
    # on it); hrf does too, and every result says so (Result.notes), since a
    # file cut short after a thread looks the same.
    accessed = {loc for t in test.threads for loc, _ in _accesses(t)}
    known_locs = init_locs | every_param | accessed | {c for i in test.init if i.size for c, _ in i.cells()}
    every_reg = set().union(*(_defined(test, i, t) for i, t in enumerate(test.threads)))
    props = [c.prop for c in (test.condition,) if c is not None] + ([test.filter] if test.filter else [])
    variables = [v for p in props for v in A.prop_vars(p)] + list(test.locations)
    for v in variables:
        if isinstance(v, A.RegVar):
            if v.thread >= len(test.threads):
                _fail(test, lines, f"the condition names {v}, but there is no thread P{v.thread}", cond_line, str(v))
            # herd gives a register its thread never assigns its initial
            # value 0 (peers' tests rely on it: Dat3M's barrier_example names
            # 0:x for a location x); a name that appears nowhere is refused.
            if v.reg not in _defined(test, v.thread, test.threads[v.thread]) and v.reg not in known_locs | every_reg:
                _fail(
                    test,
                    lines,
                    f"the condition names {v}, but {v.reg!r} appears nowhere in the test (a misspelt name?)",
                    cond_line,
                    str(v),
                )
        elif isinstance(v, (A.LocVar, A.PointeeVar)) and v.loc not in known_locs:
            _fail(
                test,
                lines,
                f"the condition names location {v.loc!r}, which the test never declares or accesses (a misspelt name?)",
                cond_line,
                v.loc,
            )
    return test
