"""Loops unrolled, for `hrf.thread_code`: a backward jump of an
assembly-like thread (`LC00: ... bne r0, 1, LC00`) becomes copies of its
loop, the last one ending the path (`cut`); for liveness each copy is
marked where it starts, where it jumps back and where it ends, so that
`hrf.liveness` can tell a spinning or repeating iteration."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .litmus import ast as A


class Cut:
    """Where an unrolled loop would need another iteration: the path ends (`cut`)."""

    line = 0


@dataclass(frozen=True)
class Enter:
    """Liveness: copy `copy` of unrolled loop `loop` starts."""

    loop: int
    copy: int
    regs: tuple  # the registers the loop writes
    line: int
    whole_last: bool = True  # does the last copy end at the jump back (not a while's test alone)


@dataclass(frozen=True)
class Loop:
    """Liveness: an unrolled loop of a thread (`Compiled.loops`)."""

    thread: int
    line: int
    regs: tuple  # the registers it writes: their values at each copy's end are observed
    whole_last: bool  # a path at the bound ran the last copy whole (a while loop's ends at its test)


@dataclass(frozen=True)
class Back:
    """Liveness: the jump back at the end of copy `copy`; then `then`."""

    loop: int
    copy: int
    regs: tuple
    line: int
    then: Any


@dataclass(frozen=True)
class Leave:
    """Liveness: the statements of a copy of loop `loop` end."""

    loop: int
    line = 0


def written_regs(body) -> tuple:
    return tuple(sorted({s.reg for s in A.walk_stmts(body) if isinstance(s, A.Assign)}))


def jump_labels(s):
    """The labels a statement may jump to (a goto, or a goto inside an if)."""
    if isinstance(s, A.Goto):
        yield s.label
    elif isinstance(s, A.If):
        for x in (*s.then, *s.orelse):
            yield from jump_labels(x)


def _relabel(s, names: dict, back: str, to):
    """A copy of statement s with its labels renamed (`names`) and its jumps
    to label `back` replaced by `to` (a Goto or a Cut)."""
    if isinstance(s, A.Label):
        return A.Label(names.get(s.name, s.name), line=s.line)
    if isinstance(s, A.Goto):
        if s.label == back:
            return to
        return A.Goto(names.get(s.label, s.label), line=s.line)
    if isinstance(s, A.If):
        return A.If(
            s.cond,
            tuple(_relabel(x, names, back, to) for x in s.then),
            tuple(_relabel(x, names, back, to) for x in s.orelse),
            line=s.line,
        )
    if isinstance(s, Back):  # an inner loop's jump back: to its next copy, in this copy
        return replace(s, then=_relabel(s.then, names, back, to))
    return s


_copies = [0]


def next_loop_tag() -> int:
    """A tag no loop unrolled in this process had."""
    _copies[0] += 1
    return _copies[0]


def unroll_backward_jumps(body, unroll: int, spin: bool = False) -> list:
    """A body whose jumps back to an earlier label (the loops of assembly-like
    tests: `LC00: ... bne r0, 1, LC00`) are unrolled: the statements from the
    label to the jump are written unroll + 1 times, a jump back in copy k
    going to copy k + 1 and in the last one ending the path (`cut`), and a
    copy that falls through skipping the rest. Forward jumps are kept.
    With `spin` (liveness), each copy is marked (`Enter`, `Leave`) and
    its jump back checked for a repeating iteration (`Back`)."""
    body = list(body)
    while True:
        seen: dict = {}
        found = None
        for j, s in enumerate(body):
            if isinstance(s, A.Label):
                seen.setdefault(s.name, j)
            if not seen:  # (no label yet: no jump back; most bodies have none)
                continue
            back = next((lab for lab in jump_labels(s) if lab in seen), None)
            if back is not None:
                found = (seen[back], j, back)
                break
        if found is None:
            return body
        i, j, back = found
        if spin:
            # liveness: one loop from the label to the last jump back to it,
            # each jump back going to the next copy (a loop with two ways
            # back is one loop, as Dartagnan's loop normalisation makes it)
            j = max(k for k in range(j, len(body)) if back in set(jump_labels(body[k])))
        loop = body[i : j + 1]
        inner = [s.name for s in loop if isinstance(s, A.Label)]
        tag = next_loop_tag()
        out_label = f"{back}#end{tag}"
        copies: list = []
        regs = written_regs(loop)
        for k in range(unroll + 1):
            # the first copy keeps the loop's labels, for jumps into it from before
            names = {n: f"{n}#{tag}.{k}" for n in inner} if k else {}
            nxt: Any = A.Goto(f"{back}#{tag}.{k + 1}") if k < unroll else Cut()
            if not spin:
                copies += [_relabel(s, names, back, nxt) for s in loop]
            else:
                nxt = Back(tag, k, regs, loop[0].line, nxt)
                head, *rest = [_relabel(s, names, back, nxt) for s in loop]
                copies += [head, Enter(tag, k, regs, loop[0].line), *rest, Leave(tag)]
            copies.append(A.Goto(out_label))
        body = body[:i] + copies + [A.Label(out_label)] + body[j + 1 :]
