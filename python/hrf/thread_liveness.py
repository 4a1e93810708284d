"""The liveness half of a thread's compilation (`hrf.liveness` judges
what it marks): each copy of an unrolled loop records whether it wrote and
the registers it started with; a copy that neither wrote nor changed them
ends its path spinning; paths end at the unrolling bound, where a thread
may stop, or after the body, each with a status in `%status`.
`ThreadCompiler` (`hrf.thread_code`), which compiles the instructions and
event templates, is a `LivenessCode`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .thread_ir import Label, const_ir, reg_ir
from .unroll import Back, Cut, Enter
from .unroll import Loop as Loop

# liveness (`hrf.liveness`): the statuses a path may end with in `%status`
# (LISTED + k: the program's k-th listed end -- a spin, a loop claimed to go
# on, the unrolling bound, a barrier -- `Compiled.ends`)
TERMINATED, NOT_STARTED, STOPPED, LISTED = 0, 1, 2, 3
STATUS, SIDE_EFFECT, SNAPSHOT, END = "%status", "%wrote", "%was:", "%end:"
EVENTS = ("load", "store", "rmw", "fence")  # the instructions that make events


def end_register(ctx: tuple, reg: str) -> str:
    """Liveness: register `reg` as the innermost copy of `ctx` (its (loop,
    copy) frames, outermost first) left it."""
    return END + "/".join(f"{loop}.{copy}" for loop, copy in ctx) + ":" + reg


class LivenessCode:
    """The liveness instructions of one thread, emitted into its code."""

    p: Any  # the program being compiled (`hrf.program`)
    t: int  # the thread's index
    # the loop copies being compiled, outermost first, as (loop, copy)
    # frames, and the blocks that end a path with a status
    frames: list[tuple[int, int]]
    exits: list

    if TYPE_CHECKING:  # ThreadCompiler's

        def emit(self, ins) -> None: ...

        def reg(self, name: str) -> int: ...

        def stmt(self, s) -> None: ...

    def side_effect(self, wrote: dict) -> None:
        """Liveness: the copies being compiled have a side effect where
        `wrote` is not 0 (an RMW's, a compare-exchange's where it succeeds)."""
        for loop, _ in self.frames:
            se = self.reg(f"{SIDE_EFFECT}{loop}")
            self.emit({"op": "assign", "dst": se, "val": {"k": "bin", "o": "|", "a": reg_ir(se), "b": wrote}})

    def wrote(self) -> None:
        """Liveness: the copies being compiled have a side effect."""
        if self.p.liveness is not None:
            for loop, _ in self.frames:
                self.emit({"op": "assign", "dst": self.reg(f"{SIDE_EFFECT}{loop}"), "val": const_ir(1)})

    def stop_here(self, status: int) -> None:
        """A path each: go on, or end here with `status` (a thread the
        progress model lets the scheduler stop)."""
        stop = Label()
        self.exits.append((stop, status))
        self.emit({"op": "choose", "target": stop})

    def enter_iteration(self, s: Enter) -> None:
        """The start of copy k of an unrolled loop: no side effect yet, and
        the registers the loop writes as they are (Dartagnan's
        DynamicSpinLoopDetection states the same check)."""
        self.frames.append((s.loop, s.copy))
        self.p.loops[s.loop] = Loop(self.t, s.line, s.regs, s.whole_last)
        self.emit({"op": "assign", "dst": self.reg(f"{SIDE_EFFECT}{s.loop}"), "val": const_ir(0)})
        for r in s.regs:
            self.emit({"op": "assign", "dst": self.reg(f"{SNAPSHOT}{s.loop}:{r}"), "val": reg_ir(self.reg(r))})

    def leave_iteration(self, loop: int) -> None:
        """The end of a copy's statements: its frame and those inside it go."""
        while self.frames and self.frames.pop()[0] != loop:
            pass

    def back_jump(self, s: Back) -> None:
        """The jump back of copy k: an iteration with no write that left
        every register as it found it repeats forever once its reads keep
        their values -- the path ends there, spinning (`hrf.liveness`
        judges whether the execution lets it); otherwise on to copy k + 1.
        A jump back from inside an inner loop's copy leaves that copy."""
        frames = tuple(self.frames)
        ctx = frames[: frames.index((s.loop, s.copy)) + 1]  # this copy, in the copies around it
        for r in s.regs:  # the state it ends in, for a livelock's repeating iterations
            self.emit({"op": "assign", "dst": self.reg(end_register(ctx, r)), "val": reg_ir(self.reg(r))})
        same: dict = {"k": "bin", "o": "==", "a": reg_ir(self.reg(f"{SIDE_EFFECT}{s.loop}")), "b": const_ir(0)}
        for r in s.regs:
            eq = {"k": "bin", "o": "==", "a": reg_ir(self.reg(f"{SNAPSHOT}{s.loop}:{r}")), "b": reg_ir(self.reg(r))}
            same = {"k": "bin", "o": "&&", "a": same, "b": eq}
        spin = Label()
        self.exits.append((spin, LISTED + self.p.add_end(("spin", self.t, ctx, s.line))))
        self.emit({"op": "branch", "cond": same, "target": spin})
        if isinstance(s.then, Cut):
            self.cut(ctx)
            return
        if s.copy > 0:
            # or the path ends here, the loop claimed to run on forever: a
            # livelock may repeat a stretch ending at any copy, one thread's
            # stretch longer than another's (the last copy's claim is the
            # bound; a stretch that repeats needs a copy before it)
            self.stop_here(LISTED + self.p.add_end(("loops", self.t, ctx, s.line)))
        self.stmt(s.then)

    def cut(self, ctx: tuple | None = None) -> None:
        """The unrolling bound: the path ends (`cut`); for liveness it ends
        with a listed status ("bound", the copies it is in), so that the
        core says whether an execution the model allows reaches it."""
        if self.p.liveness is None:
            self.emit({"op": "cut"})
            return
        bound = Label()
        ctx = tuple(self.frames) if ctx is None else ctx
        line = self.p.loops[ctx[-1][0]].line if ctx else 0
        self.exits.append((bound, LISTED + self.p.add_end(("bound", self.t, ctx, line))))
        self.emit({"op": "jump", "target": bound})

    def end_liveness(self) -> None:
        """After the body: the blocks that end a path with a status, in
        `%status` (0: the thread terminated)."""
        if self.p.liveness.stops:
            self.stop_here(STOPPED)  # stopped after its last event, not terminated
        end = Label()
        self.emit({"op": "jump", "target": end})
        status = self.reg(STATUS)
        for label, value in self.exits:
            self.emit(label)
            self.emit({"op": "assign", "dst": status, "val": const_ir(value)})
            self.emit({"op": "jump", "target": end})
        self.emit(end)
