"""Spin loops that can never be left, established from the values a test
can write.

A thread of an assembly-like test (`LC00: ld r0, x; bne r0, 0, LC01;
goto LC00; LC01:`) that reaches such a loop on every path and whose every
way out needs a value no write of the test can give stays in it forever:
the test has no finite execution at all, whatever the memory model. With
loops unrolled a bounded number of times that shows as every path of the
thread cut by the bound; `stuck_thread` turns it into an established
answer (no execution), where otherwise the check could not say.

The argument, kept small so that it is plainly sound:
- the values a location can hold are its initial value and the constants
  stored or exchanged into it (an RMW that computes, or a store of a
  register, makes them unknown, and the argument gives up);
- a register an exit branch compares is loaded in the same iteration,
  before the branch; every way out of the loop is such a branch, whose
  comparison is false for every combination of the values;
- everything before the loop is straight-line code, so every path of the
  thread enters it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from .litmus import ast as A

CMP = A.COMPARE
MAX_COMBINATIONS = 4096  # value combinations one exit branch is evaluated on


@dataclass(frozen=True)
class Stuck:
    """A thread that never leaves the loop starting at `line`."""

    thread: str
    line: int
    why: str

    def note(self) -> str:
        return (
            f"{self.thread} never leaves the loop at line {self.line} ({self.why}): "
            "the test has no finite execution, with any loop bound"
        )


def location_values(test: A.Test) -> dict[str, frozenset | None] | None:
    """Each location's possible values (None: not known from constants
    alone); None for a test that writes through pointers or into arrays."""
    direct = {i.loc: i.alias_of for i in test.init if i.alias_of is not None}
    alias = {}
    for name, at in direct.items():  # the location a chain of aliases names (cycles: none)
        seen = {name}
        while at in direct and at not in seen:
            seen.add(at)
            at = direct[at]
        alias[name] = at
    out: dict[str, set | None] = {}
    for i in test.init:
        if i.alias_of is None:
            out[i.loc] = {i.value} if isinstance(i.value, int) and i.size is None else None
    for t in test.threads:
        for st in A.walk_stmts(t.body):
            for e in [st, *(x for ex in A.exprs_of(st) for x in A.walk_expr(ex))]:
                if isinstance(e, A.DerefExpr):
                    return None
                if not isinstance(e, (A.Store, A.StoreExpr, A.Rmw)):
                    continue
                loc = alias.get(e.loc, e.loc)
                if loc not in out or getattr(e, "offset", None) is not None:
                    return None  # through a pointer, or a computed address
                operand = e.operand if isinstance(e, A.Rmw) else e.value
                # an exchange writes its operand; a PTX compare-and-swap its
                # operand, or nothing (or the old value again, where it writes back)
                writes_operand = not isinstance(e, A.Rmw) or e.op in ("exch", "cas_old")
                vals = out[loc]
                if vals is None or not isinstance(operand, A.Const) or not writes_operand:
                    out[loc] = None
                else:
                    vals.add(operand.value)
    known = {k: (frozenset(v) if v is not None else None) for k, v in out.items()}
    return known | {a: known.get(x) for a, x in alias.items()}


def stuck_thread(test: A.Test) -> Stuck | None:
    """The first thread that provably never leaves a loop it always enters."""
    values = None
    for t in test.threads:
        loop = _first_loop(t.body)
        if loop is None:
            continue
        if values is None:
            values = location_values(test)
            if values is None:
                return None
        why = _never_exits(t.body, *loop, values)
        if why is not None:
            return Stuck(t.name, t.body[loop[0]].line or t.line, why)
    return None


def _first_loop(body) -> tuple[int, int] | None:
    """(label index, backward goto index) of the first loop, where all
    before it is straight-line code and the loop ends in `goto label`."""
    seen: dict[str, int] = {}
    for j, s in enumerate(body):
        if isinstance(s, A.Label):
            seen.setdefault(s.name, j)
        elif isinstance(s, A.Goto) and s.label in seen:
            i = seen[s.label]
            if any(isinstance(x, (A.If, A.Goto, A.While)) for x in body[:i]):
                return None
            return i, j
    return None


def _never_exits(body, i: int, j: int, values: dict) -> str | None:
    """Why the loop body[i] .. body[j] (its goto back) is never left, or None."""
    inner = {s.name for s in body[i : j + 1] if isinstance(s, A.Label)}
    regs: dict[str, frozenset | None] = {}
    reasons = []
    for s in body[i + 1 : j]:
        if isinstance(s, A.Label):
            return None  # a label inside: the body may be entered part-way
        if isinstance(s, A.Assign):
            e = s.expr
            if isinstance(e, A.Load) and e.offset is None:
                known = regs[s.reg] = values.get(e.loc)
                if known is not None:
                    reasons.append(f"{e.loc} only ever holds {_show(known)}")
            elif isinstance(e, A.Rmw) and e.offset is None:
                regs[s.reg] = values.get(e.loc)
            elif isinstance(e, A.Const):
                regs[s.reg] = frozenset([e.value])
            else:
                regs[s.reg] = None
        elif isinstance(s, A.If):
            if s.orelse or len(s.then) != 1 or not isinstance(s.then[0], A.Goto):
                return None
            if s.then[0].label in inner:
                return None
            if _may_hold(s.cond, regs):
                return None
        elif isinstance(s, (A.Goto, A.While)) or not isinstance(s, (A.Store, A.Fence, A.Barrier, A.ExprStmt)):
            return None
    return "; ".join(dict.fromkeys(reasons)) or "no way out"


def _may_hold(cond, regs: dict) -> bool:
    """Can the branch condition be true for some values of its registers?"""
    if not (isinstance(cond, A.BinOp) and cond.op in CMP):
        return True
    sides = []
    for x in (cond.left, cond.right):
        if isinstance(x, A.Const):
            sides.append((x.value,))
        elif isinstance(x, A.Reg) and regs.get(x.name) is not None:
            sides.append(tuple(regs[x.name]))
        else:
            return True
    if len(sides[0]) * len(sides[1]) > MAX_COMBINATIONS:
        return True
    return any(CMP[cond.op](a, b) for a, b in itertools.product(*sides))


def _show(vals: frozenset) -> str:
    return ", ".join(str(v) for v in sorted(vals))
