"""What an exploration reports (mirrors `rust/src/machine/report.rs`):
the result object, and trace steps as text."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .. import ir as ir_types
from ..graph import Drawable, count
from ..litmus.printer import format_condition, format_state
from .program import MachineProgram


@dataclass
class MachineResult(Drawable):
    """What the explorer established about a machine program."""

    name: str
    writeback: str
    complete: bool
    limit: ir_types.LimitOut | None
    states: int
    final_states: int  # of the states, those final (not stepped on from)
    transitions: int
    seconds: float
    bytes_per_state: float
    outcomes: list  # [{"1:r0": 1, "x": 2}]
    traces: list  # per outcome: the steps, readable
    holds: list  # per outcome: does the condition hold
    deadlocks: int | None
    deadlock: dict | None  # {"trace": [...], "waiting": [...], "state": {...}}
    faults: list
    cut: int
    condition_holds: bool | None
    program: MachineProgram = field(repr=False)
    # per outcome: the steps of its trace as the core reports them
    # ({"kind": "thread" | "fetch_l1" | ..., ...}), for pictures (`trace_dot`)
    steps: list = field(repr=False, default_factory=list)
    # seconds in each part of the exploration: expand, enter (visited-set
    # lookups), store (arena), outcomes (and traces), deadlocks
    phases: ir_types.PhaseSeconds | dict = field(repr=False, default_factory=dict)
    # the most steps of a shortest trace to a state explored (breadth-first
    # layers less one; of the states stored so far when a limit cut it)
    depth: int = 0

    def stuck_text(self) -> str:
        """Where each unfinished thread waits in the first deadlock found."""
        p, d = self.program, self.deadlock
        if d is None:
            return "stuck: (no deadlock)"
        return "stuck: " + ", ".join(f"{p.threads[t].name} at {p.instruction_text(t, pc)}" for t, pc in d["waiting"])

    def trace_of(self, outcome: dict) -> list:
        return self.traces[self.outcomes.index(outcome)]

    def pictured(self) -> tuple:
        """The trace a picture shows: to the first outcome satisfying the
        condition, else to the first deadlock, else to the first outcome.
        (steps, what it ends in)."""
        for o, h, st in zip(self.outcomes, self.holds, self.steps, strict=False):
            if h:
                return st, "outcome: " + format_state(o)
        if self.deadlock is not None:
            return self.deadlock["steps"], "then " + self.stuck_text()
        if self.outcomes:
            return self.steps[0], "outcome: " + format_state(self.outcomes[0])
        return [], "no outcome"

    def to_dot(self) -> str:
        """`pictured`'s trace as a sequence chart (DOT): threads, caches
        and memory as lifelines, one row per step."""
        from ..graph import trace_dot

        steps, end = self.pictured()
        return trace_dot(self.program, steps, f"{self.name} (machine, writeback={self.writeback})", end)

    def __repr__(self) -> str:
        verdict = {True: "Ok", False: "No", None: "undetermined"}[self.condition_holds]
        cut = "" if self.complete else f", cut by limit {self.limit['which'] if self.limit else '?'}"
        dead = f", {self.deadlocks} deadlocked states" if self.deadlocks else ""
        return (
            f"<MachineResult {self.name} (writeback={self.writeback}): {verdict}, {count(len(self.outcomes), 'outcome')}, "
            f"{self.states} states{dead}{cut}>"
        )

    def to_json(self) -> dict:
        """Everything established, as plain data (`hrf explore --json`):
        each outcome with whether it satisfies the condition and its
        trace, readable and as the core's steps."""
        dl = self.deadlock
        return {
            "name": self.name,
            "path": self.program.path if self.program else None,
            "writeback": self.writeback,
            "complete": self.complete,
            "limit": self.limit,
            "condition_holds": self.condition_holds,
            "states": self.states,
            "final_states": self.final_states,
            "transitions": self.transitions,
            "depth": self.depth,
            "seconds": self.seconds,
            "phases": self.phases,
            "bytes_per_state": self.bytes_per_state,
            "outcomes": [
                {"values": o, "holds": h, "trace": tr, "steps": st}
                for o, h, tr, st in zip(self.outcomes, self.holds, self.traces, self.steps, strict=False)
            ],
            "deadlocks": self.deadlocks,
            "deadlock": None
            if dl is None
            else {"trace": dl["trace"], "steps": dl["steps"], "stuck": self.stuck_text(), "state": dl["state"]},
            "faults": self.faults,
            "cut": self.cut,
        }

    def to_text(self) -> str:
        p = self.program
        out = [f"Test {self.name} (machine, writeback={self.writeback})"]
        out.append(f"States {len(self.outcomes)}")
        for o in self.outcomes:
            out.append(format_state(o))
        if p.condition is not None:
            verdict = {True: "Ok", False: "No", None: "Unknown"}[self.condition_holds]
            out.append(verdict)
            out.append(f"Condition {format_condition(p.condition)}")
        out.append(
            f"Machine states {self.states}, transitions {self.transitions}, depth {self.depth}, {self.seconds:.3f} s"
        )
        if self.limit is not None:
            out.append(
                f"INCOMPLETE: limit {self.limit['which']} hit ({self.limit['detail']}); "
                "the outcomes are those found so far"
            )
        if self.deadlocks and self.deadlock is not None:
            out.append(f"DEADLOCK: {self.deadlocks} states cannot finish; the first reached:")
            out += ["  " + s for s in self.deadlock["trace"]]
            out.append("  then " + self.stuck_text())
        for f in self.faults:
            out.append(f"FAULT: {f['message']}")
        if self.cut:
            out.append(f"{self.cut} paths cut by the loop bound")
        return "\n".join(out)

    __str__ = to_text


def step_text(prog: MachineProgram, st: dict) -> str:
    """One trace step, readably ([RSP15] sec. 5 names)."""
    k = st["kind"]
    if k == "thread":
        t, pc = st["thread"], st["pc"]
        th = prog.threads[t]
        ins = th.code[pc]
        text = f"{th.name} (wg {th.wg}, dev {th.dev})  {prog.instruction_text(t, pc)}"
        if "val" in st:
            text += f"   -> {th.regs[st['reg']]} = {st['val']}"
        if "fault" in st:
            text += f"   FAULT: {st['fault']}"
        src = ins.get("src")
        if src:
            text += f"   [{src}]"
        return text
    if k == "fetch_l1":
        return f"env: fetch {st['loc']} = {st['val']} from L2 into the L1 of wg {st['wg']}"
    if k == "fetch_l2":
        return f"env: fetch {st['loc']} = {st['val']} from memory into the L2 of dev {st['dev']}"
    if k in ("dequeue_l1", "dequeue_l2"):
        where = f"the L1 fifo of wg {st['wg']}" if k == "dequeue_l1" else f"the L2 fifo of dev {st['dev']}"
        below = "L2" if k == "dequeue_l1" else "memory"
        if "flush" in st:
            return f"env: dequeue FLUSH({prog.threads[st['flush']].name}) from {where}"
        if st["wrote"]:
            return f"env: dequeue {st['loc']} from {where}: write {st['loc']} = {st['val']} to {below}"
        return f"env: dequeue {st['loc']} from {where} (clean: nothing to write)"
    if k == "writeback_l1":
        return f"env: write {st['loc']} = {st['val']} from the L1 of wg {st['wg']} to L2 (out of fifo order)"
    if k == "writeback_l2":
        return f"env: write {st['loc']} = {st['val']} from the L2 of dev {st['dev']} to memory (out of fifo order)"
    if k == "evict_l1":
        return f"env: evict {st['loc']} from the L1 of wg {st['wg']}"
    if k == "evict_l2":
        return f"env: evict {st['loc']} from the L2 of dev {st['dev']}"
    return json.dumps(st)
