"""The one door to the Rust core (`hrf._core`, typed in `_core.pyi`).

Every call into Rust goes through this module: it imports the extension
(with a clear error when it is not built), runs the long calls in a worker
thread so that Ctrl-C reaches Python and stops the core cleanly, and turns
the core's JSON replies into Python values. What crosses is described in
ARCHITECTURE.md."""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

from .errors import HrfError

# The most worker processes or threads hrf starts for one run (a bound on
# --workers and on a local cluster's local:N).
MAX_WORKERS = 256

T = TypeVar("T")


def _module() -> ModuleType:
    try:
        from . import _core
    except ImportError as e:  # pragma: no cover - only without a build
        raise HrfError("hrf's Rust core is not built; install with `pip install .`") from e
    return _core


def interruptible(fn: Callable[..., T], *args: Any, tick: Callable[[], None] | None = None) -> T:
    """Run a core call in a worker thread so that Ctrl-C reaches the main
    thread; on Ctrl-C the core is told to stop, and once it has, the
    KeyboardInterrupt goes on. `tick`, if given, is called about every
    0.1 s while the call runs (a progress display)."""
    if tick is None and not _ctrl_c_reaches_us():
        return fn(*args)  # no Ctrl-C to wait for: no thread (0.1 ms a call)
    box: dict[str, Any] = {}
    # The end of the call is an Event, not Thread.join: a Ctrl-C that lands
    # inside join() can leave the thread marked finished while it still runs
    # (CPython), and then the interpreter exits under the core, which aborts.
    done = threading.Event()

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # pragma: no cover - the core returns errors as JSON
            box["error"] = e
        finally:
            done.set()

    th = threading.Thread(target=target, name="hrf-core", daemon=True)
    th.start()
    try:
        while not done.wait(0.1):
            if tick is not None:
                tick()
    except KeyboardInterrupt:
        cancel()
        while True:  # the core stops at its next check; further Ctrl-Cs wait for it too
            try:
                if done.wait(0.1):
                    break
            except KeyboardInterrupt:
                cancel()
        raise
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value


def _ctrl_c_reaches_us() -> bool:
    """Whether a Ctrl-C could interrupt this thread: only the main thread
    gets it, and not where SIGINT is ignored (bulk's worker processes)."""
    return threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) not in (
        signal.SIG_IGN,
        None,
    )


def _on_this_thread(fn: Callable[..., T], *args: Any) -> T:
    """A core call on the main thread itself, where Python's own Ctrl-C
    handling is in place: the core catches SIGINT for the call's length,
    stops, and a KeyboardInterrupt follows here (no helper thread: its
    hand-overs cost about a millisecond a call, more than a small check).
    Elsewhere (a handler of the user's, a progress display): `interruptible`."""
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler or not _ctrl_c_reaches_us():
        return interruptible(fn, *args)
    value: T = fn(*args, catch_sigint=True)
    if _module().take_sigint():
        raise KeyboardInterrupt
    return value


# A check's reply: its JSON text (`{"ok": ...}`, whose outcomes are an
# empty list, or `{"error": ...}`), the outcomes apart as JSON rows
# (`[values, count, positive, flagged, witness]` each), and how many (most
# results are read for their verdicts only: the outcomes are read where
# they are used).
Reply = tuple[str, str, int]


def check(program: str, model: str, limits: str) -> Reply:
    """One program IR under one model IR: the reply (`Reply`)."""
    return _on_this_thread(_module().check, program, model, limits)


def check_many(jobs: list[tuple[str, str, str]], workers: int | None) -> list[Reply]:
    """(program, model, limits) jobs in parallel on `workers` threads; the
    replies in job order."""
    return _on_this_thread(_module().check_many, jobs, workers)


def explore(program: str, limits: str, workers: int | None, tick: Callable[[], None] | None = None) -> dict[str, Any]:
    """Explore a machine program: the reply, decoded."""
    reply: dict[str, Any] = json.loads(interruptible(_module().explore, program, limits, workers, tick=tick))
    return reply


def explore_progress() -> tuple[int, int]:
    """(states stored, layers done) of the exploration now running."""
    return _module().explore_progress()


def cancel() -> None:
    """Stop every check and exploration now running."""
    _module().cancel()


def limit_defaults() -> dict[str, dict[str, Any]]:
    """The core's limit defaults, the one place they are written:
    `{"check": {...}, "explore": {...}}`."""
    defaults: dict[str, dict[str, Any]] = json.loads(_module().limit_defaults())
    return defaults


_DEFAULTS = limit_defaults()
CHECK_DEFAULTS = _DEFAULTS["check"]  # hrf.Limits
EXPLORE_DEFAULTS = _DEFAULTS["explore"]  # hrf.explore, hrf.soundness


def version() -> str:
    """hrf's version: Cargo.toml's, built into the core (maturin writes the
    same into the package metadata)."""
    v: str = _module().__version__
    return v


def max_events() -> int:
    """The most events an execution may have (init writes included)."""
    return _module().max_events()
