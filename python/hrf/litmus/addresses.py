"""Computed addresses in C-like tests: `y+r0`, `*(x + (r0 & 2))`.

A reader cannot tell a location from a register by its spelling, so it
gives an access whose address is an expression the location `COMPUTED`
and the whole address as its `offset` (and `*(e)` as a `DerefExpr`).
Once the test's locations are known (its threads' parameters and its init
block), `resolve_addresses` splits each address into the one location it
is relative to and an offset in elements: `y + r0` is `y`, offset `r0`;
`*(x + (r0 & 2))` is `x`, offset `r0 & 2`. The offset may be any integer
expression of registers; which element it names is decided per execution
(the core refuses an execution that reaches one outside the array). An
address that names no location (a pointer held in a register) or two is
refused, located.
"""

from __future__ import annotations

from typing import Any

from ..errors import LitmusSyntaxError, UnsupportedFeature
from . import ast as A
from .toolkit import make_unop


def _terms(e, sign: int = 1) -> list[tuple[int, Any]]:
    """The address as a sum of signed terms (`a + b - c`)."""
    if isinstance(e, A.BinOp) and e.op in ("+", "-"):
        return _terms(e.left, sign) + _terms(e.right, sign if e.op == "+" else -sign)
    return [(sign, e)]


def _sum(terms: list[tuple[int, Any]], line: int):
    """The terms added back up, in their order (None for no term)."""
    out = None
    for sign, t in terms:
        if out is None:
            out = t if sign > 0 else make_unop("-", t, line)
        else:
            out = A.BinOp("+" if sign > 0 else "-", out, t, line=line)
    return out


class _Resolver:
    def __init__(self, test: A.Test, thread: A.Thread, text_lines: list[str]):
        self.test = test
        self.thread = thread
        self.lines = text_lines
        self.locations = {i.loc for i in test.init} | {p.name for p in thread.params}

    def fail(self, msg: str, line: int, cls=LitmusSyntaxError):
        if cls is UnsupportedFeature:
            return UnsupportedFeature(msg, self.test.path, line or None)
        return LitmusSyntaxError.at(msg, self.test.path, self.lines, line or None)

    def split(self, addr, line: int) -> tuple[str, object]:
        """(location, offset or None) of an address expression."""
        from .printer import format_expr

        terms = _terms(addr)
        bases = [k for k, (sign, t) in enumerate(terms) if isinstance(t, A.Reg) and t.name in self.locations]
        if not bases:
            raise self.fail(
                f"the address {format_expr(addr)} is relative to no location of {self.thread.name} "
                "(addresses held in registers are not supported yet)",
                line,
                UnsupportedFeature,
            )
        if len(bases) > 1:
            names = " and ".join(terms[k][1].name for k in bases)  # type: ignore[attr-defined]
            raise self.fail(f"the address {format_expr(addr)} adds two locations ({names})", line)
        k = bases[0]
        sign, base = terms[k]
        if sign < 0:
            raise self.fail(f"the address {format_expr(addr)} subtracts location {base.name}", line)  # type: ignore[attr-defined]
        rest = terms[:k] + terms[k + 1 :]
        for _, t in rest:
            for sub in A.walk_expr(t):
                if isinstance(sub, A.Reg) and sub.name in self.locations:
                    raise self.fail(f"the address {format_expr(addr)} uses location {sub.name} as a number", line)
        offset = _sum(rest, line)
        if isinstance(offset, A.Const) and offset.value == 0:
            offset = None
        return base.name, offset  # type: ignore[attr-defined]

    # ------------------------------------------------------------ rewriting
    def located(self, op):
        """An access (Load, Store, Rmw) with its computed address, if it has
        one, split into a location and an offset."""
        if op.loc != A.COMPUTED:
            return op
        loc, off = self.split(self.expr(op.offset), op.line)
        return A.with_fields(op, loc=loc, offset=off)

    def expr(self, e):
        if isinstance(e, A.DerefExpr):
            return self.located(A.Load(A.COMPUTED, atomic=False, line=e.line, offset=e.addr))
        if isinstance(e, A.Load):
            return self.located(e)
        if isinstance(e, A.Rmw):
            return self.located(A.with_fields(e, operand=self.expr(e.operand)))
        if isinstance(e, A.BinOp):
            return A.with_fields(e, left=self.expr(e.left), right=self.expr(e.right))
        if isinstance(e, A.UnOp):
            return A.with_fields(e, operand=self.expr(e.operand))
        if isinstance(e, A.StoreExpr):
            return A.with_fields(e, value=self.expr(e.value))
        return e

    def stmt(self, s):
        if isinstance(s, A.Assign) and s.expr is not None:
            return A.with_fields(s, expr=self.expr(s.expr))
        if isinstance(s, A.Store):
            return self.located(A.with_fields(s, value=self.expr(s.value)))
        if isinstance(s, A.ExprStmt):
            return A.with_fields(s, expr=self.expr(s.expr))
        if isinstance(s, A.If):
            return A.with_fields(s, cond=self.expr(s.cond), then=self.body(s.then), orelse=self.body(s.orelse))
        if isinstance(s, A.While):
            return A.with_fields(s, cond=self.expr(s.cond), body=self.body(s.body))
        return s

    def body(self, stmts) -> tuple:
        return tuple(self.stmt(s) for s in stmts)


def _computed(t: A.Thread) -> bool:
    """Has the thread an access at a computed address (read from its memory
    operations, which later checks read too: computed once)?"""
    return any(
        op.__class__ is A.DerefExpr or op.__class__ in (A.Load, A.Store, A.Rmw) and op.loc == A.COMPUTED for op in t.ops
    )


def resolve_addresses(threads: tuple, test: A.Test, text: str) -> tuple | None:
    """The threads with every computed address split into a location and an
    offset; None when no thread has one (most tests)."""
    if not any(_computed(t) for t in threads):
        return None
    lines = text.splitlines()
    return tuple(
        A.Thread(t.name, t.params, _Resolver(test, t, lines).body(t.body), dev=t.dev, wg=t.wg, sg=t.sg, line=t.line)
        if _computed(t)
        else t
        for t in threads
    )
