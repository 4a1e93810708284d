"""The results store's cost and its resume.

Writes a generated family of --count tests (default 10,000; up to 6
edges, 4 threads) to a temporary folder, then:
1. `hrf.bulk.run` of the folder under 2 models without a store, and with a
   fresh store: total time and rows per second into SQLite;
2. the same as a command (`hrf bulk --db`) interrupted by SIGINT after
   --interrupt seconds, then run again: how much each part checked, the
   rows in the store at the end (each once), and the times;
3. a rerun of a complete store: time to find there is nothing to do;
4. Store.add alone, on results in memory: rows per second into SQLite;
5. with --grow N: a store grown to N rows in commits of --commit rows (the
   rows of step 4's results, each under a fresh test identity), the CPU
   time per row for each tenth of them: what a commit costs as the store
   grows (a bulk run's writer commits every second); then the time to read
   it (the runs' counts, a run's rows, the runs' difference).

    python benchmarks/bench_store.py [--count 100000] [--workers 2] [--interrupt 20] [--grow N [--commit C]]
"""

from __future__ import annotations

import argparse
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import hrf
from hrf.bulk import expand
from hrf.bulk import run as bulk_run
from hrf.generate import write_tests
from hrf.models import get as get_model
from hrf.store import Store

MODELS = ["hrf-direct", "hrf-indirect"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--interrupt", type=float, default=5.0, help="seconds before the SIGINT")
    ap.add_argument("--grow", type=int, default=0, help="also grow a store to this many rows")
    ap.add_argument("--commit", type=int, default=20_000, help="rows a commit while growing")
    a = ap.parse_args()
    # the command below is interrupted as from a terminal: started in the
    # background, this process (and so the command) would ignore SIGINT
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        t0 = time.perf_counter()
        tests = hrf.generate(count=a.count, seed=1, max_edges=6, max_threads=4)
        write_tests(tests, str(d / "gen"))
        paths = expand([str(d / "gen")])
        print(
            f"{len(paths)} tests x {len(MODELS)} models, {a.workers} workers (written in {time.perf_counter() - t0:.1f}s)"
        )

        t0 = time.perf_counter()
        s = bulk_run(paths, MODELS, workers=a.workers)
        plain = time.perf_counter() - t0
        print(f"without a store: {plain:.2f}s ({s.done / plain:,.0f} rows/s)")
        with Store(d / "fresh.sqlite") as st:
            t0 = time.perf_counter()
            s = bulk_run(paths, MODELS, workers=a.workers, store=st)
            stored = time.perf_counter() - t0
            rows = st.db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        print(
            f"into a fresh store: {stored:.2f}s ({s.done / stored:,.0f} rows/s checked and stored; {rows} rows, "
            f"{stored / plain:.2f}x the time without)"
        )

        # SQLite alone: rows per second of Store.add (results already in memory).
        some = paths[:4000]
        results = list(hrf.check_many(some, MODELS, workers=a.workers, identify=True, witnesses=False))
        with Store(d / "insert.sqlite") as st:
            runs = {m: st.run_for(get_model(m), hrf.Limits(witnesses=False)) for m in MODELS}
            t0 = time.perf_counter()
            for i, r in enumerate(results):
                st.add(runs[r.model], r, r.test_id, path=some[i // len(MODELS)])
                if i % 2000 == 1999:
                    st.commit()
            st.commit()
            ins = time.perf_counter() - t0
        print(f"Store.add alone: {len(results) / ins:,.0f} rows/s ({len(results)} rows, file index included)")
        if a.grow:
            grow(d / "grown.sqlite", results, a.grow, a.commit)

        cmd = [
            sys.executable,
            "-m",
            "hrf",
            "bulk",
            str(d / "gen"),
            *sum((["-m", m] for m in MODELS), []),
            "--db",
            str(d / "s.sqlite"),
            "--no-progress",
            "--workers",
            str(a.workers),
        ]
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(a.interrupt)
        p.send_signal(signal.SIGINT)
        p.communicate()
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        q = subprocess.run(cmd, capture_output=True, text=True)
        second = time.perf_counter() - t0
        con = sqlite3.connect(d / "s.sqlite")
        inv = con.execute("SELECT status, checked, skipped FROM invocations ORDER BY id").fetchall()
        per_run = con.execute("SELECT run, COUNT(*), COUNT(DISTINCT test_id) FROM results GROUP BY run").fetchall()
        con.close()
        print(f"interrupted after {first:.1f}s (exit {p.returncode}): {inv[0][1]} checks stored")
        print(f"resumed: {second:.1f}s (exit {q.returncode}), {inv[1][1]} checks, {inv[1][2]} tests skipped")
        print(f"store at the end, per run (run, rows, distinct tests): {per_run}")
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, text=True)
        print(f"rerun of a complete store: {time.perf_counter() - t0:.2f}s")


def grow(db: Path, results: list, total: int, every: int) -> None:
    """Rows of `results` (in turn) under fresh test identities into a fresh
    store, `every` a commit, up to `total`: CPU microseconds a row, a tenth
    of them at a time."""
    from hrf.records import result_row, test_entries

    with Store(db) as st:
        runs = {m: st.run_for(get_model(m), hrf.Limits(witnesses=False)) for m in MODELS}
        n = last = 0
        spent = 0.0  # CPU seconds in SQLite (the rows are made beforehand, as a bulk run's workers make them)
        print(f"a store grown to {total:,} rows, {every:,} a commit (CPU us a row, SQLite's work):")
        while n < total:
            tests, rows = [], []
            for k in range(n, min(n + every, total)):
                r = results[k % len(results)]
                test_id = f"{k // len(MODELS):032x}"[::-1]  # spread over the key space, as hashes are
                if k % len(MODELS) == 0:
                    tests += test_entries(r, test_id, None)
                rows.append(result_row(runs[r.model].run, r, test_id))
            n += len(rows)
            t0 = time.process_time()
            st.add_rows(tests, rows)
            st.commit()
            spent += time.process_time() - t0
            if n - last >= total // 10 or n == total:
                print(f"  {n:>9,} rows: {spent / (n - last) * 1e6:6.1f} us a row", flush=True)
                last, spent = n, 0.0
        # reading it: the runs' counts, a run's rows whole, the two runs' difference
        (a, _), (b, _) = st.runs()
        for what, read in (
            ("runs list", st.runs),
            ("a run's rows", lambda: st.rows_list(a)),
            ("diff", lambda: st.diff(a, b)),
        ):
            t0 = time.perf_counter()
            read()
            print(f"  {what}: {time.perf_counter() - t0:.2f} s")
    size = db.stat().st_size  # closed: the write-ahead log's pages are in the file
    print(f"  the file: {size / 2**20:.0f} MB, {size / total:.0f} bytes a row")


if __name__ == "__main__":
    main()
