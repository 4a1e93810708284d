"""What the results store keeps of a check (`store.py` keeps the file):
the identities that key it (of a test file hrf could not read, of a
model, of the limits that can change a verdict), a result as the rows
that enter it (`test_entries`, `result_row`), and rows written out as
CSV, JSON lines or Parquet (`export`, `hrf runs export`)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import time
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

from .errors import HrfError, read_input, write_output

# Limits that change no verdict (what is reported, not what is decided).
_PRESENTATION = ("witnesses", "keep_all", "max_kept")

COLUMNS = [
    "run",
    "model",
    "version",
    "test",
    "path",
    "size",
    "test_id",
    "verdict",
    "condition_holds",
    "racy",
    "flags",
    "outcomes",
    "n_outcomes",
    "consistent",
    "candidates",
    "complete",
    "limit_which",
    "time",
    "error",
]


def now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S")


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def raw_identity(path: str) -> str:
    """The identity of a file hrf could not read as a test: a hash of its
    bytes (or of its name, when it cannot be read either)."""
    try:
        data = read_input(path)
    except OSError:
        data = path.encode()
    return "raw:" + hashlib.sha256(data).hexdigest()[:28]


def model_identity(model) -> str:
    """A model's identity: a hash of its IR, name aside (one model under two
    names is one model; a changed axiom is another model)."""
    ir = dict(model.ir())
    ir.pop("name", None)
    return _sha(json.dumps(ir, sort_keys=True, separators=(",", ":")))


def limits_identity(limits) -> tuple[str, str]:
    """(hash, JSON) of the limits that can change a verdict."""
    d = {k: v for k, v in sorted(asdict(limits).items()) if k not in _PRESENTATION}
    text = json.dumps(d, sort_keys=True)
    return _sha(text), text


def test_entries(r, test_id: str, path: str | None) -> list:
    """The statements that enter the test of result `r` (and its file, with
    its size and time for `known_files`) into a store."""
    out: list = [
        ("INSERT OR IGNORE INTO tests(test_id, name, path, size) VALUES(?,?,?,?)", (test_id, r.name, path, r.test_size))
    ]
    if path is not None:
        try:
            st = os.stat(path)
            out.append(("INSERT OR REPLACE INTO files VALUES(?,?,?,?)", (path, st.st_size, st.st_mtime_ns, test_id)))
        except OSError:
            pass
    return out


def result_row(run: int, r, test_id: str) -> tuple:
    """The row of the results table that holds result `r` of run `run`."""
    from .api import verdict

    flags = sorted({f["kind"] for f in r.flags})
    # The core sorts outcomes by their values, in the test's order of
    # observed variables: one test's outcome sets compare as text.
    outcomes = json.dumps(r.outcomes, separators=(",", ":"))
    return (
        run,
        test_id,
        verdict(r),
        None if r.condition_holds is None else int(r.condition_holds),
        None if r.racy is None else int(r.racy),
        json.dumps(flags),
        outcomes,
        len(r.outcomes),
        r.consistent,
        r.candidates,
        int(r.complete),
        r.limit["which"] if r.limit else None,
        round(r.time, 6),
        None if r.error is None else f"{type(r.error).__name__}: {r.error}",
        now(),
    )


def export(rows: Iterable[dict], path: str, fmt: str | None = None) -> int:
    """Write rows to `path` as CSV, JSON lines or Parquet (by `fmt`, else by
    the suffix). Parquet needs pyarrow (`pip install pyarrow`)."""
    fmt = fmt or {".csv": "csv", ".parquet": "parquet", ".jsonl": "jsonl"}.get(Path(path).suffix, "")
    rows = list(rows)
    # The whole file is made in memory and written once: a failure leaves
    # the path as it was (pyarrow, writing to the path itself, removes what
    # it fails to write, a device node included).
    if fmt == "parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise HrfError("writing Parquet needs pyarrow: pip install pyarrow (or write .csv)") from None
        sink = pa.BufferOutputStream()
        pq.write_table(pa.Table.from_pylist(rows) if rows else pa.table({c: [] for c in COLUMNS}), sink)
        write_output(path, sink.getvalue().to_pybytes())
    elif fmt == "csv":
        text = io.StringIO(newline="")
        w = csv.DictWriter(text, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
        write_output(path, text.getvalue().encode())
    elif fmt == "jsonl":
        write_output(path, "".join(json.dumps(r) + "\n" for r in rows))
    else:
        raise HrfError(f"{path}: say the format (--format csv|jsonl|parquet) or use one of those suffixes")
    return len(rows)
