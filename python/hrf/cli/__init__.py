"""The `hrf` command: one module per group of verbs (check, runs, families,
machine, export), their shared options in `args`."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings

from ..core import version
from ..errors import HrfError, HrfWarning, InvalidArgument
from .args import cat_options, herd_spellings

# Each verb's module (its `add` registers its verbs): a command builds the
# parser of its own module only (building all of them took 9 ms of a
# 45 ms `hrf check`); help and unknown verbs build them all.
MODULES = ("check", "runs", "families", "mapping", "machine", "export", "gpu", "web")
VERBS = {
    "check": "check",
    "models": "check",
    "bulk": "runs",
    "runs": "runs",
    "generate": "families",
    "compare": "families",
    "map": "mapping",
    "compile": "machine",
    "explore": "machine",
    "soundness": "machine",
    "export": "export",
    "run": "gpu",
    "serve": "web",
}


def _verb(argv: list) -> str | None:
    """The verb of a command line, if it comes first (no top-level option)."""
    return argv[0] if argv and argv[0] in VERBS else None


def _notes(python_prints):
    """A `warnings.showwarning` that prints hrf's own warnings as a note on
    standard error, and others as Python prints them."""

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        if issubclass(category, HrfWarning):
            print(f"hrf: note: {message}", file=sys.stderr)
        else:
            python_prints(message, category, filename, lineno, file, line)

    return show


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="hrf", description="Scoped GPU memory models: check litmus tests.")
    p.add_argument("--version", action="version", version=f"hrf {version()}")
    sub = p.add_subparsers(dest="cmd", required=True)
    try:
        argv = herd_spellings(sys.argv[1:] if argv is None else list(argv))
    except InvalidArgument as e:
        print(f"hrf: {e}", file=sys.stderr)
        return 2
    import importlib

    verb = _verb(argv)
    for name in (VERBS[verb],) if verb else MODULES:
        mod = importlib.import_module(f".{name}", __name__)
        mod.add(sub)
        if name == "check":
            mod.add_models(sub)
    cat_options(sub)
    a = p.parse_args(argv)
    # the .cat options of this command (reset, so one call's do not outlive it in a process)
    from ..models import CAS_WRITEBACK, CATDIR, READING, VARIANTS

    for name in ("stdout", "stderr"):  # started with it closed: what would go there goes nowhere
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - for the process's life
    saved = (
        CATDIR[:],
        VARIANTS[:],
        CAS_WRITEBACK[:],
        READING[:],
    )  # given back on return (main may run in a longer process)
    CATDIR[:] = getattr(a, "catdir", None) or []
    VARIANTS[:] = [v for arg in getattr(a, "variant", None) or [] for v in arg.split(",") if v]
    CAS_WRITEBACK[:] = [a.cas_writeback == "on"] if getattr(a, "cas_writeback", None) else []
    READING[:] = [a.reading] if getattr(a, "reading", None) else []
    if getattr(a, "writeback", 0) is None:
        a.writeback = ["fifo", "any"] if a.cmd == "soundness" else ["fifo"]
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _notes(warnings.showwarning)
            return _flushed(a.func(a))
    except BrokenPipeError:  # e.g. `hrf check ... | head`, or a closed standard output
        _quiet_stdout()
        return 0
    except KeyboardInterrupt:
        print("hrf: interrupted", file=sys.stderr)
        return 130
    except InvalidArgument as e:
        print(f"hrf: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # standard output on a full device, a closed one
        _quiet_stdout()
        print(f"hrf: cannot write the output: {e.strerror or e}", file=sys.stderr)
        return 1
    except HrfError as e:
        print(f"hrf: {e}", file=sys.stderr)
        return 1
    finally:
        CATDIR[:], VARIANTS[:], CAS_WRITEBACK[:], READING[:] = saved


def _flushed(status: int) -> int:
    """The status, once what was printed has reached standard output (a
    full device fails here, inside main, not at exit)."""
    sys.stdout.flush()
    return status


def _quiet_stdout() -> None:
    """Standard output can take nothing more: point it at /dev/null so
    that Python's flush at exit says nothing more."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
