"""Soundness of a compilation scheme on a test (the README's schemes section): compile the
source with the scheme, explore every machine behaviour, and compare each
machine outcome with the outcomes the source model allows. A racy source
is reported and skipped (the model gives it no meaning); a machine state
that cannot finish (deadlock) or a program fault counts against the scheme.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .api import Limits, check_compiled
from .core import EXPLORE_DEFAULTS
from .graph import Drawable, count
from .litmus import parse
from .litmus.printer import format_state
from .models import get as get_model
from .program import compile_test

if TYPE_CHECKING:
    from .machine import MachineResult


@dataclass
class Counterexample(Drawable):
    kind: str  # "outcome" (not allowed by the model), "deadlock", "fault"
    writeback: str
    outcome: dict | None
    trace: list  # readable steps
    steps: list = field(default_factory=list, repr=False)  # the core's steps (`MachineResult.steps`)
    program: object = field(default=None, repr=False)  # the compiled MachineProgram

    def to_dot(self, title: str = "") -> str:
        """The trace as a sequence chart (DOT; `hrf.graph.trace_dot`)."""
        from .graph import trace_dot

        end = (
            "outcome: " + format_state(self.outcome)
            if self.outcome is not None
            else self.trace[-1]
            if self.trace
            else ""
        )
        head = {"outcome": "outcome not allowed by the source model", "deadlock": "deadlock", "fault": "fault"}[
            self.kind
        ]
        return trace_dot(self.program, self.steps, f"{title}{head} (writeback={self.writeback})", end)

    def __repr__(self) -> str:
        return f"<Counterexample {self.kind} (writeback={self.writeback}), {count(len(self.trace), 'step')}>"

    def to_text(self) -> str:
        head = {
            "outcome": "machine outcome not allowed by the source model",
            "deadlock": "the machine can reach a state from which it never finishes",
            "fault": "the compiled program faults",
        }[self.kind]
        out = [f"{head} (writeback={self.writeback})"]
        if self.outcome is not None:
            out.append("  outcome: " + format_state(self.outcome))
        out += ["  " + s for s in self.trace]
        return "\n".join(out)


def outcome_key(o: dict) -> tuple:
    """An outcome (name -> value) as a comparable key."""
    return tuple(sorted(o.items()))


@dataclass
class SoundnessResult(Drawable):
    name: str
    path: str | None
    scheme: str
    model: str
    sound: bool | None  # None: racy source, or a limit cut the work
    racy_source: bool
    counterexamples: list
    allowed: list  # outcomes the source model allows
    machine: dict = field(default_factory=dict)  # writeback -> MachineResult
    complete: bool = True
    reason: str = ""
    program: object = None  # the compiled MachineProgram (None when the source was not compiled)

    def allowed_keys(self) -> set:
        """The outcomes the source model allows, as `outcome_key`s."""
        return {outcome_key(o) for o in self.allowed}

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "path": self.path,
            "scheme": self.scheme,
            "model": self.model,
            "sound": self.sound,
            "racy_source": self.racy_source,
            "complete": self.complete,
            "reason": self.reason,
            "allowed": self.allowed,
            "machine": {
                wb: {
                    "outcomes": r.outcomes,
                    "states": r.states,
                    "complete": r.complete,
                    "deadlocks": r.deadlocks,
                    "seconds": r.seconds,
                }
                for wb, r in self.machine.items()
            },
            "counterexamples": [
                {"kind": c.kind, "writeback": c.writeback, "outcome": c.outcome, "trace": c.trace, "steps": c.steps}
                for c in self.counterexamples
            ],
        }

    def to_text(self) -> str:
        verdict = {True: "SOUND", False: "UNSOUND", None: "NOT DECIDED"}[self.sound]
        out = [
            f"{self.name}: scheme {self.scheme} vs model {self.model}: {verdict}"
            + (f" ({self.reason})" if self.reason else "")
        ]
        for wb, r in self.machine.items():
            out.append(
                f"  machine (writeback={wb}): {len(r.outcomes)} outcomes, {r.states} states, {r.seconds:.3f} s"
                + ("" if r.complete else f", INCOMPLETE ({r.limit['which']})")
            )
        for c in self.counterexamples:
            out.append("  " + c.to_text().replace("\n", "\n  "))
        return "\n".join(out)

    __str__ = to_text

    def to_dot(self) -> str:
        """The first counterexample's trace as a sequence chart (DOT)."""
        if not self.counterexamples:
            from .errors import HrfError

            raise HrfError(
                f"{self.name}: no counterexample to draw (scheme {self.scheme}: "
                + {True: "sound", False: "unsound", None: "not decided"}[self.sound]
                + ")"
            )
        return self.counterexamples[0].to_dot(f"{self.name}: scheme {self.scheme} vs model {self.model}\n")

    def __repr__(self) -> str:
        verdict = {True: "SOUND", False: "UNSOUND", None: "NOT DECIDED"}[self.sound]
        why = f" ({self.reason})" if self.reason else ""
        return (
            f"<SoundnessResult {self.name}: scheme {self.scheme} vs model {self.model}: {verdict}{why}, "
            f"{count(len(self.counterexamples), 'counterexample')}>"
        )


def soundness(
    test,
    scheme: str = "rsp-new",
    model: str | None = None,
    *,
    writeback: Sequence[str] = ("fifo", "any"),
    limits: Limits | None = None,
    max_states: int | None = EXPLORE_DEFAULTS["max_states"],
    max_seconds: float | None = None,
    workers: int | None = None,
    progress=None,
) -> SoundnessResult:
    """Is `scheme` sound for `test` against `model` (the scheme's own model
    by default), on the machine with each write-back policy? `progress`
    (a `hrf.machine.ExploreProgress`) shows the explorer's status line."""
    if isinstance(writeback, str):
        writeback = (writeback,)
    # the machine and the schemes are loaded when a soundness check runs (cold start)
    from .machine import explore
    from .mappings import compile_scheme, get

    sch = get(scheme)
    t = parse(test)
    m = get_model(model or sch.model)
    m.supports(t)
    limits = limits or Limits()
    comp = compile_test(t, limits.unroll, m.cas_writeback, observe_all=True)
    src = check_compiled(comp, m, limits)
    allowed = src.outcomes
    res = SoundnessResult(t.name, t.path, sch.name, m.name, None, bool(src.racy), [], allowed)
    if src.racy:
        res.reason = "racy source: skipped"
        return res
    if not src.complete:
        res.complete = False
        res.reason = f"source model check cut by limit {src.limit['which'] if src.limit else '?'}"
        return res
    prog = res.program = compile_scheme(t, sch, comp=comp)
    ok = res.allowed_keys()
    for wb in writeback:
        r: MachineResult = explore(
            prog,
            writeback=wb,
            max_states=max_states,
            max_seconds=max_seconds,
            max_memory=limits.max_memory,
            workers=workers,
            progress=progress,
        )
        res.machine[wb] = r
        for o, tr, st in zip(r.outcomes, r.traces, r.steps, strict=False):
            if outcome_key(o) not in ok:
                res.counterexamples.append(Counterexample("outcome", wb, o, tr, st, prog))
        if r.deadlocks and r.deadlock is not None:
            res.counterexamples.append(
                Counterexample("deadlock", wb, None, r.deadlock["trace"] + [r.stuck_text()], r.deadlock["steps"], prog)
            )
        for f in r.faults:
            res.counterexamples.append(Counterexample("fault", wb, None, f["trace"] + [f["message"]], f["steps"], prog))
        if not r.complete:
            res.complete = False
    if res.counterexamples:
        res.sound = False
    elif res.complete:
        res.sound = True
    else:
        res.reason = "machine exploration cut by a limit"
    return res
