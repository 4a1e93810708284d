"""Bulk speed: 10,000 generated tests x 2 models, wall time and
checks per second at 1 and 2 workers, speed-up, peak memory.
Aim: under 60 s on 2 cores, >= 1.8x from 1 to 2 workers.
With 2 workers `check_many` forks worker processes (the Python side --
compiling tests, building results -- is then spread too); the thread-only
path at 2 workers is timed as well, for comparison.
Run by hand: `python benchmarks/bench_bulk.py [--count N]`."""

from __future__ import annotations

import argparse
import resource
import time

import hrf

MODELS = ["hrf-direct", "hrf-indirect"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=10_000)
    a = ap.parse_args()
    t0 = time.perf_counter()
    tests = hrf.generate(count=a.count, seed=1, max_edges=5, max_threads=3)
    print(f"generated {len(tests)} tests in {time.perf_counter() - t0:.2f}s")
    times = {}
    for workers, processes in ((1, False), (2, False), (2, True)):
        t0 = time.perf_counter()
        # Verdicts only, as `hrf bulk` runs them (no witness executions).
        rs = list(
            hrf.check_many(tests, MODELS, workers=workers, processes=processes, limits=hrf.Limits(witnesses=False))
        )
        dt = time.perf_counter() - t0
        times[workers, processes] = dt
        bad = sum(r.error is not None for r in rs)
        how = "processes" if processes else "threads"
        print(
            f"workers={workers} ({how}): {len(rs)} checks in {dt:.2f}s = {len(rs) / dt:.0f} checks/s "
            f"({bad} refused), racy {sum(bool(r.racy) for r in rs)}"
        )
    print(
        f"speed-up 1 -> 2 workers: {times[1, False] / times[2, True]:.2f}x "
        f"(threads only: {times[1, False] / times[2, False]:.2f}x)"
    )
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak memory: {me:.0f} MiB (this process), {kids:.0f} MiB (largest worker process)")


if __name__ == "__main__":
    main()
