"""Bulk checking: many tests under several models in
parallel, streamed to JSON lines or CSV and kept in a results store
(`hrf.store`, resumed on a rerun), with a progress bar and a summary.
Ctrl-C stops cleanly and keeps what is done; a test cut by a limit is
reported as `incomplete`, never dropped."""

from __future__ import annotations

import csv
import glob
import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from .api import Limits, Result, check_many
from .litmus import CORPUS, resolve
from .status import StatusLine

FIELDS = [
    "test",
    "model",
    "verdict",
    "condition_holds",
    "racy",
    "outcomes",
    "consistent",
    "candidates",
    "complete",
    "limit",
    "time",
    "error",
]


def expand(paths: Iterable[str]) -> list[str]:
    """Files, folders (every .litmus below them) and glob patterns, in order,
    each file once. A path that matches nothing is an error."""
    out: dict[str, None] = {}
    for p in paths:
        if not any(ch in p for ch in "*?["):
            p = str(resolve(p))
        elif not glob.glob(p, recursive=True) and p.startswith("litmus/"):
            p = str(CORPUS) + p[len("litmus") :]
        if os.path.isdir(p):
            found = sorted(str(f) for f in Path(p).rglob("*.litmus"))
        elif any(ch in p for ch in "*?["):
            found = sorted(glob.glob(p, recursive=True))
        elif os.path.exists(p):
            found = [p]
        else:
            raise FileNotFoundError(f"no such file, folder or pattern: {p}")
        for f in found:
            out.setdefault(f)
    return list(out)


def verdict(r: Result) -> str:
    """Ok / No as herd says, `incomplete` where a limit cut the run short,
    `error` where the test could not be checked."""
    if r.error is not None:
        return "error"
    if r.condition_holds is None:
        return "incomplete"
    return "Ok" if r.condition_holds else "No"


def row(r: Result) -> dict:
    return {
        "test": r.path or r.name,
        "model": r.model,
        "verdict": verdict(r),
        "condition_holds": r.condition_holds,
        "racy": r.racy,
        "outcomes": len(r.outcomes),
        "consistent": r.consistent,
        "candidates": r.candidates,
        "complete": r.complete,
        "limit": r.limit["which"] if r.limit else None,
        "time": round(r.time, 6),
        "error": None if r.error is None else f"{type(r.error).__name__}: {r.error}",
    }


@dataclass
class Summary:
    by_model: dict = field(default_factory=dict)
    done: int = 0
    interrupted: bool = False
    seconds: float = 0.0
    # With a results store: tests whose every run the store already held.
    skipped: int = 0
    store: str | None = None

    def add(self, r: Result) -> None:
        m = self.by_model.setdefault(
            r.model, {"checked": 0, "Ok": 0, "No": 0, "racy": 0, "incomplete": 0, "error": 0, "time": 0.0}
        )
        v = verdict(r)
        m["checked"] += 1
        m[v] = m.get(v, 0) + 1
        m["racy"] += bool(r.racy)
        m["time"] += r.time
        self.done += 1

    def table(self) -> str:
        head = f"{'model':32s} {'checked':>8s} {'Ok':>7s} {'No':>7s} {'racy':>7s} {'incompl.':>8s} {'error':>7s}"
        lines = [head, "-" * len(head)]
        for name, m in self.by_model.items():
            lines.append(
                f"{name:32s} {m['checked']:8d} {m['Ok']:7d} {m['No']:7d} {m['racy']:7d} "
                f"{m['incomplete']:8d} {m['error']:7d}"
            )
        rate = self.done / self.seconds if self.seconds > 0 else 0.0
        lines.append(
            f"{self.done} checks in {self.seconds:.2f}s ({rate:.1f} checks/s)"
            + (" -- interrupted, results so far" if self.interrupted else "")
        )
        if self.store is not None:
            lines.append(
                f"store {self.store}: {self.skipped} tests already there under every model, not checked again"
                + (" (run the same command again to resume)" if self.interrupted else "")
            )
        return "\n".join(lines)


class Progress(StatusLine):
    """A one-line progress bar on a terminal stream: done/total, rate, ETA."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool | None = None):
        super().__init__(stream, enabled)
        self.total = total
        self.start = time.perf_counter()
        self.last = 0.0

    def update(self, done: int, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if not force and now - self.last < 0.1 and done < self.total:
            return
        self.last = now
        elapsed = now - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - done) / rate if rate > 0 else float("inf")
        width = 30
        filled = int(width * done / self.total) if self.total else width
        eta_s = f"{eta:5.0f}s" if eta != float("inf") else "    ?"
        self.show(f"[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} {rate:7.1f}/s ETA {eta_s}")

    def close(self) -> None:
        self.end(keep=True)


def run(
    paths: list[str],
    models: list[str],
    out: TextIO | None = None,
    fmt: str = "jsonl",
    workers: int | None = None,
    limits: Limits | None = None,
    progress: Progress | None = None,
    chunk: int | None = None,
    store=None,
    command: str = "",
) -> Summary:
    """Check every path under every model, streaming one row per check to
    `out` as it finishes. Returns the summary; on Ctrl-C the rows written so
    far stay written and the summary says it was interrupted.

    With `store` (a `hrf.store.Store`), each result is also kept there, and
    the tests whose rows the store already holds under every model (same
    model IR, hrf version and limits) are not checked again."""
    summary = Summary()
    start = time.perf_counter()
    limits = limits or Limits()
    if store is not None:
        return _run_with_store(paths, models, out, fmt, workers, limits, progress, chunk, store, command, summary)
    writer = csv.DictWriter(out, fieldnames=FIELDS) if (out is not None and fmt == "csv") else None
    if writer is not None:
        writer.writeheader()
    chunk = chunk or max(32, 8 * (workers or os.cpu_count() or 1))
    # Rows hold verdicts, not executions: the core builds and sends none.
    limits = replace(limits or Limits(), witnesses=False)
    try:
        for r in check_many(paths, models, workers=workers, limits=limits, chunk=chunk):
            _emit(r, summary, out, writer, progress)
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        summary.seconds = time.perf_counter() - start
        if progress is not None:
            progress.update(summary.done, force=True)
            progress.close()
    return summary


def _emit(r: Result, summary: Summary, out, writer, progress) -> None:
    summary.add(r)
    if out is not None:
        if writer is not None:
            writer.writerow(row(r))
        else:
            out.write(json.dumps(row(r)) + "\n")
        out.flush()
    if progress is not None:
        progress.update(summary.done)


COMMIT_EVERY = 2000  # rows per store transaction (and at most a second apart)


def _run_with_store(paths, models, out, fmt, workers, limits, progress, chunk, store, command, summary) -> Summary:
    from .models import get as get_model
    from .store import raw_identity

    start = time.perf_counter()
    model_objs = [get_model(m) for m in models]
    runs = {m.name: store.run_for(m, limits) for m in model_objs}
    known = store.known_files(paths)
    done = {name: store.done(run, set(known.values())) for name, run in runs.items()}
    todo = [p for p in paths if not (p in known and all(known[p] in d for d in done.values()))]
    summary.skipped = len(paths) - len(todo)
    summary.store = store.path
    if progress is not None:
        progress.total = len(todo) * len(model_objs)
    inv = store.begin(command, list(runs.values()))
    writer = csv.DictWriter(out, fieldnames=FIELDS) if (out is not None and fmt == "csv") else None
    if writer is not None:
        writer.writeheader()
    chunk = chunk or max(32, 8 * (workers or os.cpu_count() or 1))
    run_limits = replace(limits, witnesses=False)
    pending, last = 0, time.perf_counter()
    k = 0
    try:
        for r in check_many(todo, model_objs, workers=workers, limits=run_limits, chunk=chunk, identify=True):
            path = str(todo[k // len(model_objs)])
            k += 1
            store.add(runs[r.model], r, r.test_id or raw_identity(path), path=path)
            pending += 1
            if pending >= COMMIT_EVERY or time.perf_counter() - last > 1.0:
                store.commit()
                pending, last = 0, time.perf_counter()
            _emit(r, summary, out, writer, progress)
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        store.commit()
        store.end(inv, "interrupted" if summary.interrupted else "done", summary.done, summary.skipped)
        summary.seconds = time.perf_counter() - start
        if progress is not None:
            progress.update(summary.done, force=True)
            progress.close()
    return summary
