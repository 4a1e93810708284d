"""Bulk checking: many tests under several models in
parallel (on this machine's cores or a Dask cluster), streamed to JSON lines or CSV and kept in a results store
(`hrf.store`, resumed on a rerun), with a progress bar and a summary.
Ctrl-C stops cleanly and keeps what is done; a test cut by a limit is
reported as `incomplete`, never dropped."""

from __future__ import annotations

import csv
import glob
import io
import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TextIO, cast

from .api import Limits, Result, verdict
from .litmus import CORPUS, resolve
from .many import check_batches
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


def herd_log_paths(folder: str, models: list) -> dict:
    """One herd log per model in `folder`: `<model>.log`, named after the
    model's name (a file model: its file name without suffix; a clash
    numbered)."""
    from .models import get

    out: dict = {}
    used: set = set()
    for m in models:
        name = get(m).name
        stem = "".join(c if c.isalnum() or c in "+-_." else "_" for c in Path(str(name)).stem) or "model"
        base, k = stem, 2
        while stem in used:
            stem, k = f"{base}-{k}", k + 1
        used.add(stem)
        out[name] = os.path.join(folder, stem + ".log")
    return out


def row(r: Result) -> dict:
    return {
        "test": r.path or r.name,
        "model": r.model,
        "verdict": verdict(r),
        "condition_holds": r.condition_holds,
        "racy": r.racy,
        "outcomes": r.n_outcomes,
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
    # The CPU seconds of the process that wrote the store's rows (a process
    # of its own: `hrf.bulk_session.BulkSession`), once it has ended.
    writer_seconds: float | None = None
    # The first errors (test, model, reason), named in the table (the counts have them all)
    errors: list = field(default_factory=list)
    ERRORS_KEPT = 5

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
        if r.error is not None and len(self.errors) < self.ERRORS_KEPT:
            self.errors.append((r.name, r.model, f"{type(r.error).__name__}: {r.error}"))

    def merge(self, other: Summary) -> None:
        """Add the counts of `other` (a batch's, made in a worker)."""
        for name, counts in other.by_model.items():
            mine = self.by_model.setdefault(name, dict.fromkeys(counts, 0))
            for k, v in counts.items():
                mine[k] = mine.get(k, 0) + v
        self.done += other.done
        self.errors += other.errors[: self.ERRORS_KEPT - len(self.errors)]

    def table(self) -> str:
        head = f"{'model':32s} {'checked':>8s} {'Ok':>7s} {'No':>7s} {'racy':>7s} {'incompl.':>8s} {'error':>7s}"
        lines = [head, "-" * len(head)]
        for name, m in self.by_model.items():
            lines.append(
                f"{name:32s} {m['checked']:8d} {m['Ok']:7d} {m['No']:7d} {m['racy']:7d} "
                f"{m['incomplete']:8d} {m['error']:7d}"
            )
        n_errors = sum(m["error"] for m in self.by_model.values())
        for name, model, why in self.errors:
            lines.append(f"error: {name} under {model}: {' '.join(why.split())[:300]}")
        if n_errors > len(self.errors):
            lines.append(f"... and {n_errors - len(self.errors)} more errors (--json or --db holds each)")
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


@dataclass
class Batch:
    """What a bulk run makes of the results of some consecutive tests where
    they were checked (a worker process: `_batch`), so that the run's own
    process only writes it: the output's lines, the summary's counts, the
    herd logs' blocks and the store's entries."""

    text: str
    summary: Summary
    herd: dict
    store: bytes


def _batch(results: list, first: int, fmt: str | None, herd: tuple, session) -> Batch:
    summary = Summary()
    lines = io.StringIO(newline="")
    writer = csv.DictWriter(lines, fieldnames=FIELDS) if fmt == "csv" else None
    logs: dict = {name: [] for name in herd}
    for r in results:
        summary.add(r)
        if writer is not None:
            writer.writerow(row(r))
        elif fmt is not None:
            lines.write(json.dumps(row(r)) + "\n")
        if r.model in logs:
            logs[r.model].append(r.to_herd_log())
    store = session.rows(results, first) if session is not None else b""
    return Batch(lines.getvalue(), summary, {k: "".join(v) for k, v in logs.items() if v}, store)


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
    models: list,
    out: TextIO | None = None,
    fmt: str = "jsonl",
    workers: int | None = None,
    limits: Limits | None = None,
    progress: Progress | None = None,
    chunk: int | None = None,
    store=None,
    command: str = "",
    scheduler=None,
    herd_logs: dict | None = None,
) -> Summary:
    """Check every path under every model, streaming one row per check to
    `out` as it finishes. Returns the summary; on Ctrl-C the rows written so
    far stay written and the summary says it was interrupted.

    With `store` (a `hrf.store.Store`), each result is also kept there, and
    the tests whose rows the store already holds under every model (same
    model IR, hrf version and limits) are not checked again.

    With `scheduler` (`hrf.cluster`), the checks run on a Dask cluster;
    the rows come back to this process, to `out` and the store.

    With `herd_logs` (model name -> text stream), each result is also
    written to its model's stream as a test block of a herd log
    (`Result.to_herd_log`), for herd's companion tools."""
    summary = Summary()
    start = time.perf_counter()
    # Rows hold verdicts, not executions: the core builds and sends none.
    limits = replace(limits or Limits(), witnesses=False)
    session = None
    if store is not None:
        from .bulk_session import BulkSession

        session = BulkSession(store, paths, models, limits, command)
        paths, models = session.todo, session.models
        summary.skipped, summary.store = session.skipped, store.path
        if progress is not None:
            progress.total = len(paths) * len(models)
    if out is not None and fmt == "csv":
        csv.DictWriter(out, fieldnames=FIELDS).writeheader()
    chunk = chunk or max(32, 8 * (workers or os.cpu_count() or 1))
    shape = partial(_batch, fmt=fmt if out is not None else None, herd=tuple(herd_logs or ()), session=session)
    try:
        for _, _, batch in check_batches(
            paths,
            models,
            shape,
            workers=workers,
            limits=limits,
            chunk=chunk,
            identify=session is not None,
            scheduler=scheduler,
        ):
            if session is not None:
                session.keep(batch.store)
            summary.merge(batch.summary)
            if out is not None:
                out.write(batch.text)
                out.flush()
            for name, text in batch.herd.items():
                cast(dict, herd_logs)[name].write(text)
            if progress is not None:
                progress.update(summary.done)
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        if session is not None:
            session.close(summary.interrupted, summary.done)
            summary.writer_seconds = session.writer_cpu
        summary.seconds = time.perf_counter() - start
        if progress is not None:
            progress.update(summary.done, force=True)
            progress.close()
    return summary
