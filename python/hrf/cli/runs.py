"""`hrf bulk` and `hrf runs`: many tests under several models, and the
results store's runs."""

from __future__ import annotations

import contextlib
import json
import os
import sys

from ..errors import InvalidArgument, make_folder, open_output
from .args import limit_args, limits_of_args, whole, workers


def cmd_bulk(a) -> int:
    from .. import bulk

    try:
        paths = bulk.expand(a.paths)
    except FileNotFoundError as e:
        print(f"hrf: {e}", file=sys.stderr)
        return 2
    if a.scheduler and a.workers:
        print("hrf: bulk: give --workers or --scheduler, not both (the cluster has its own workers)", file=sys.stderr)
        return 2
    fmt = a.format or ("csv" if a.out and a.out.endswith(".csv") else "jsonl")
    if a.out and a.db:
        _not_the_store(a.out, a.db)
    # With a store and no --out, the rows go to the store only.
    out = open_output(a.out, newline="") if a.out else (None if a.db else sys.stdout)
    total = len(paths) * len(a.model)
    progress = bulk.Progress(total, enabled=None if not a.no_progress else False)
    store = None
    logs: dict = {}
    if a.herd_log:
        a.herd_log = make_folder(a.herd_log)
        logs = {name: open_output(path) for name, path in bulk.herd_log_paths(a.herd_log, a.model).items()}
    if a.db:
        from ..store import Store

        store = Store(a.db)
    try:
        summary = bulk.run(
            paths,
            a.model,
            out=out,
            fmt=fmt,
            workers=a.workers,
            limits=limits_of_args(a),
            progress=progress,
            store=store,
            command=" ".join(["hrf", *sys.argv[1:]]),
            scheduler=a.scheduler,
            herd_logs=logs or None,
        )
    finally:
        for f in logs.values():
            f.close()
        if a.out and out is not None:
            out.close()
        if store is not None:
            store.close()
    print(summary.table(), file=sys.stdout if (a.out or a.db) else sys.stderr)
    for name, f in logs.items():
        print(f"herd log of {name}: {f.name}", file=sys.stderr)
    return 130 if summary.interrupted else 0


def _not_the_store(out: str, db: str) -> None:
    """Refuse an output path that is the results store itself (writing rows
    there would destroy it)."""
    same = os.path.realpath(out) == os.path.realpath(db)
    if not same and os.path.exists(out) and os.path.exists(db):
        with contextlib.suppress(OSError):
            same = os.path.samefile(out, db)
    if same:
        raise InvalidArgument(f"--out {out} is the results store --db {db}: writing rows there would destroy it")


def cmd_runs(a) -> int:
    """hrf runs list | show RUN | diff A B, over a results store."""
    from ..records import export
    from ..store import Store

    want = {"list": 0, "show": 1, "diff": 2}[a.action]
    if len(a.runs) != want:
        print(f"hrf: runs {a.action} takes {want} run number(s), not {len(a.runs)} (hrf runs list)", file=sys.stderr)
        return 2
    if not os.path.exists(a.db):
        print(f"hrf: {a.db}: no results store here (hrf bulk ... --db {a.db} makes one)", file=sys.stderr)
        return 1
    with Store(a.db) as st:
        if a.action == "list":
            head = f"{'run':>4s}  {'model':28s} {'hrf':8s} {'tests':>8s} {'Ok':>7s} {'No':>7s} {'racy':>7s} "
            head += f"{'incompl.':>8s} {'error':>6s}  limits"
            print(head)
            for run, c in st.runs():
                try:
                    lim = json.loads(run.limits)
                    short = ", ".join(f"{k}={v}" for k, v in lim.items() if v is not None and k != "reference")
                except (ValueError, AttributeError):
                    short = f"(unreadable: {run.limits!r:.40})"
                print(
                    f"{run.run:4d}  {run.model:28s} {run.version:8s} {c['tests']:8d} {c['Ok']:7d} {c['No']:7d} "
                    f"{c['racy']:7d} {c['incomplete']:8d} {c['error']:6d}  {short}"
                )
            return 0
        if a.action == "show":
            run = st.get_run(a.runs[0])
            if a.out:
                _not_the_store(a.out, a.db)
            rows = st.rows_list(run)
            if a.out:
                n = export(rows, a.out, a.format)
                print(f"{n} rows of run {run.run} ({run.model}) written to {a.out}")
                return 0
            for r in rows:
                print(json.dumps(r))
            return 0
        a_run, b_run = st.get_run(a.runs[0]), st.get_run(a.runs[1])
        d = st.diff(a_run, b_run)
        if a.json:
            print(json.dumps({"a": a_run.run, "b": b_run.run, **d}))
            return 1 if d["differ"] else 0
        print(
            f"run {a_run.run}: {a_run.model} (hrf {a_run.version})    run {b_run.run}: {b_run.model} (hrf {b_run.version})"
        )
        if a_run.limits != b_run.limits:
            print(f"  limits differ: {a_run.limits}  vs  {b_run.limits}")
        print(
            f"{len(d['differ'])} tests differ, {d['same']} agree; {d['only_a']} only in run {a_run.run}, "
            f"{d['only_b']} only in run {b_run.run}"
        )
        shown = d["differ"] if a.max is None else d["differ"][: a.max]
        for x in shown:
            print(f"\n{x['path'] or x['test']}  (size {x['size']}; differs in {', '.join(x['differs_in'])})")
            for side, run in (("a", a_run), ("b", b_run)):
                v = x[side]
                outs = "; ".join(" ".join(f"{k}={val}" for k, val in o.items()) for o in v["outcomes"])
                flags = ",".join(v["flags"]) or "-"
                print(f"  run {run.run} {run.model:24s} {v['verdict']:10s} racy={v['racy']} flags={flags}  {{{outs}}}")
        if len(shown) < len(d["differ"]):
            print(f"\n... {len(d['differ']) - len(shown)} more (--max N, or --json for all)")
        return 1 if d["differ"] else 0


def add(sub) -> None:
    """The `bulk` and `runs` verbs."""
    b = sub.add_parser("bulk", help="check many tests under several models in parallel")
    b.add_argument("paths", nargs="+", help=".litmus files, folders (searched recursively) or glob patterns")
    b.add_argument(
        "--model", "-m", action="append", required=True, help="model name or a .py file defining MODEL (repeatable)"
    )
    b.add_argument("--out", "-o", help="write rows here (.jsonl or .csv); default: JSON lines on stdout")
    b.add_argument("--format", choices=["jsonl", "csv"], help="row format (default from --out's suffix)")
    b.add_argument("--workers", type=workers, default=None, help="worker processes (default: all cores)")
    limit_args(b)
    b.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    b.add_argument(
        "--db",
        metavar="FILE",
        help="keep the results in this SQLite results store (made if missing); a rerun skips what it holds",
    )
    b.add_argument(
        "--herd-log",
        metavar="DIR",
        help="also write one herd log per model into DIR (<model>.log), for herd's tools (mcompare7, msum7)",
    )
    b.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="check on a Dask cluster: its scheduler (tcp://host:8786 or a scheduler file .json), "
        "or local:N for N worker processes here (pip install 'hrf[cluster]')",
    )
    b.set_defaults(func=cmd_bulk)

    ru = sub.add_parser(
        "runs",
        help="the runs of a results store: list them, show one's rows, diff two",
        description="A run is one model (by its IR) under one hrf version and one set of limits. "
        "`list` counts each run's verdicts; `show RUN` writes its rows (JSON lines, or -o FILE as .csv, "
        ".jsonl or .parquet); `diff A B` lists the tests both runs hold whose verdict, race, flags or "
        "outcomes differ, smallest first (exit 1 when some do).",
    )
    ru.add_argument("action", choices=["list", "show", "diff"])
    ru.add_argument("runs", nargs="*", help="run numbers (show: one, diff: two)")
    ru.add_argument("--db", default="runs.sqlite", help="the results store (default: runs.sqlite)")
    ru.add_argument("--out", "-o", help="show: write the rows here (.csv, .jsonl, .parquet)")
    ru.add_argument("--format", choices=["csv", "jsonl", "parquet"], help="show: row format (default from --out)")
    ru.add_argument("--json", action="store_true", help="diff: one JSON object with every difference")
    ru.add_argument("--max", type=whole(0), default=20, help="diff: differing tests to print (default 20)")
    ru.set_defaults(func=cmd_runs)
