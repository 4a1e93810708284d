"""Bulk speed (issue 4): 10,000 generated tests x 2 models, wall time and
checks per second at 1 and 2 worker threads, speed-up, peak memory.
Aim: under 60 s on 2 cores, >= 1.8x from 1 to 2 threads.
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
    for workers in (1, 2):
        t0 = time.perf_counter()
        # Verdicts only, as `hrf bulk` runs them (no witness executions).
        rs = list(hrf.check_many(tests, MODELS, workers=workers, chunk=512, limits=hrf.Limits(witnesses=False)))
        dt = time.perf_counter() - t0
        times[workers] = dt
        bad = sum(r.error is not None for r in rs)
        print(f"workers={workers}: {len(rs)} checks in {dt:.2f}s = {len(rs) / dt:.0f} checks/s "
              f"({bad} refused), racy {sum(bool(r.racy) for r in rs)}")
    print(f"speed-up 1 -> 2 threads: {times[1] / times[2]:.2f}x")
    print(f"peak memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
