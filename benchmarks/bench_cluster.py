"""Bulk checking on a Dask cluster against the same work on local processes.

Writes a generated family of --count tests (default 10,000; up to 6
edges, 4 threads) to a temporary folder, then checks it under 2 models
into a fresh results store three ways, one run each:
1. `hrf.bulk.run` on --workers local processes (forked);
2. the same on a Dask LocalCluster of --workers worker processes (one
   thread each), its start-up timed apart;
3. the same on the cluster with one worker killed (SIGKILL) after a third
   of the rows: the time, and that the store holds each row once.
The aim: the cluster within 1.3x of the local processes. (A generated
family holds a few tests twice; the store keeps each test once, so it
holds a few rows fewer than tests x models.)

    python benchmarks/bench_cluster.py [--count 10000] [--workers 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import tempfile
import time
from pathlib import Path

import distributed

import hrf
from hrf.bulk import expand
from hrf.bulk import run as bulk_run
from hrf.generate import write_tests
from hrf.store import Store

MODELS = ["hrf-direct", "hrf-indirect"]


class KillOne:
    """A progress callback that kills one worker process once `after` rows are in."""

    def __init__(self, client, after):
        self.client, self.after, self.total, self.killed = client, after, 0, None

    def update(self, done, force=False):
        if self.killed is None and done >= self.after:
            self.killed = sorted(self.client.run(os.getpid).values())[0]
            os.kill(self.killed, signal.SIGKILL)

    def close(self):
        pass


def rows_once(db: Path) -> tuple[int, int]:
    con = sqlite3.connect(db)
    total = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    distinct = con.execute("SELECT COUNT(*) FROM (SELECT DISTINCT run, test_id FROM results)").fetchone()[0]
    con.close()
    return total, distinct


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args()
    figures: dict = {"count": a.count, "workers": a.workers, "models": MODELS}
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        write_tests(hrf.generate(count=a.count, seed=1, max_edges=6, max_threads=4), str(d / "gen"))
        paths = expand([str(d / "gen")])
        n = len(paths) * len(MODELS)
        print(f"{len(paths)} tests x {len(MODELS)} models = {n} checks, {a.workers} workers, into a fresh store")

        with Store(d / "local.sqlite") as st:
            t0 = time.perf_counter()
            bulk_run(paths, MODELS, workers=a.workers, store=st)
            local = time.perf_counter() - t0
        local_rows = rows_once(d / "local.sqlite")[0]
        print(f"local processes:       {local:7.2f}s ({n / local:,.0f} checks/s), {local_rows} rows stored")

        t0 = time.perf_counter()
        cluster = distributed.LocalCluster(
            n_workers=a.workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
        )
        client = distributed.Client(cluster)
        client.wait_for_workers(a.workers)
        start = time.perf_counter() - t0
        try:
            with Store(d / "cluster.sqlite") as st:
                t0 = time.perf_counter()
                bulk_run(paths, MODELS, store=st, scheduler=client)
                on_cluster = time.perf_counter() - t0
            print(
                f"Dask LocalCluster:     {on_cluster:7.2f}s ({n / on_cluster:,.0f} checks/s), "
                f"{on_cluster / local:.2f}x local; the cluster's start {start:.2f}s apart"
            )
            kill = KillOne(client, after=n // 3)
            with Store(d / "killed.sqlite") as st:
                t0 = time.perf_counter()
                bulk_run(paths, MODELS, store=st, scheduler=client, progress=kill)
                killed = time.perf_counter() - t0
            total, distinct = rows_once(d / "killed.sqlite")
            assert total == distinct == local_rows, "the killed run's store differs from the local one"
            print(
                f"one worker killed:     {killed:7.2f}s, {total} rows stored, {distinct} distinct "
                f"(as local; worker pid {kill.killed} killed after {n // 3} rows)"
            )
        finally:
            client.close()
            cluster.close()
        figures.update(
            local_s=local,
            cluster_s=on_cluster,
            cluster_start_s=start,
            ratio=on_cluster / local,
            killed_s=killed,
            killed_rows=total,
            killed_distinct=distinct,
        )
    if a.json:
        Path(a.json).write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
