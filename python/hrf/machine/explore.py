"""Exploring a machine program with the Rust core (`rust/src/machine/
explore.rs`): the driver and its progress line."""

from __future__ import annotations

import json
import time

from .. import ir as ir_types
from ..core import EXPLORE_DEFAULTS
from ..errors import CoreError, LimitExceeded
from ..status import StatusLine
from .program import MachineProgram, parse_machine_file
from .report import MachineResult, step_text


class ExploreProgress(StatusLine):
    """A status line on a terminal stream while the explorer runs: states
    stored, breadth-first layers done, states per second, elapsed time and
    the state limit; wiped when the run ends."""

    def update(self, label: str, states: int, layers: int, seconds: float, max_states: int | None) -> None:
        rate = states / seconds if seconds > 0 else 0.0
        cap = f" of at most {max_states:,}" if max_states else ""
        self.show(
            f"  exploring {label}: {states:,} states{cap}, layer {layers}, {rate:,.0f} states/s, {seconds:.0f} s   "
        )

    def close(self) -> None:
        self.end(keep=False)


def explore(
    prog,
    *,
    writeback: str = "fifo",
    reduce: bool = True,
    max_states: int | None = EXPLORE_DEFAULTS["max_states"],
    max_seconds: float | None = None,
    deadlocks: bool = True,
    workers: int | None = None,
    on_limit: str = "result",
    progress: ExploreProgress | None = None,
    max_memory: int | None = None,
) -> MachineResult:
    """Explore every reachable state of a machine program (a MachineProgram,
    or the path or text of a GPU_MACHINE test). `progress` shows a status
    line while it runs (the CLI passes one on a terminal). `max_memory`:
    resident bytes of the process (None: the default of `hrf.Limits`)."""
    from .. import core
    from ..api import Limits, check_workers, condition_verdict, on_limit_mode
    from ..errors import InvalidArgument, check_whole

    if writeback not in ("fifo", "any"):
        raise InvalidArgument(f"writeback must be 'fifo' or 'any', not {writeback!r}")
    check_workers(workers)
    check_whole("max_states", max_states, 1, none_ok=True)
    on_limit_mode(on_limit)
    # the time and memory limits are checked as hrf.Limits checks them
    budget = Limits(max_seconds=max_seconds, max_memory=max_memory)
    if not isinstance(prog, MachineProgram):
        prog = parse_machine_file(prog)
    limits = json.dumps(
        {
            "max_states": max_states,
            "max_seconds": max_seconds,
            "deadlocks": deadlocks,
            "max_memory": budget.memory_budget(),
        }
    )
    start = time.perf_counter()

    def tick():
        states, layers = core.explore_progress()
        progress.update(f"{prog.name} (writeback={writeback})", states, layers, time.perf_counter() - start, max_states)

    try:
        data = core.explore(
            json.dumps(prog.ir(writeback, reduce)), limits, workers, tick=tick if progress is not None else None
        )
    finally:
        if progress is not None:
            progress.close()
    if "error" in data:
        raise CoreError(f"{prog.path or prog.name}: {data['error']}", data.get("kind", "internal"))
    o: ir_types.ExploreOut = data["ok"]
    outcomes = [dict(zip(prog.observed, x["values"], strict=False)) for x in o["outcomes"]]
    holds = [x["holds"] for x in o["outcomes"]]
    quant = prog.condition.quantifier if prog.condition is not None else "forall"
    verdict = condition_verdict(quant, sum(holds), len(holds) - sum(holds), o["complete"])
    # the first deadlock with its trace readable (`trace`) and as the core gave it (`steps`)
    stuck = o.get("deadlock")
    dl = (
        None
        if stuck is None
        else {**stuck, "trace": [step_text(prog, s) for s in stuck["trace"]], "steps": stuck["trace"]}
    )
    r = MachineResult(
        name=prog.name,
        writeback=writeback,
        complete=o["complete"],
        limit=o["limit"],
        states=o["states"],
        final_states=o["final_states"],
        transitions=o["transitions"],
        seconds=o["seconds"],
        bytes_per_state=o["bytes_per_state"],
        outcomes=outcomes,
        traces=[[step_text(prog, s) for s in x["trace"]] for x in o["outcomes"]],
        holds=holds,
        deadlocks=o["deadlocks"],
        deadlock=dl,
        faults=[
            {"message": f["message"], "trace": [step_text(prog, s) for s in f["trace"]], "steps": f["trace"]}
            for f in o["faults"]
        ],
        cut=o["cut"],
        condition_holds=verdict,
        program=prog,
        steps=[x["trace"] for x in o["outcomes"]],
        phases=o["phase_seconds"],
        depth=o["depth"],
    )
    if r.limit is not None and on_limit == "raise":
        raise LimitExceeded(r.limit["which"], r.limit["detail"], r)
    return r
