"""Mapping checks: 10,000 generated race-free C11 tests, each checked
under RC11, compiled by the atomics ABI (`ptx-abi`) and checked under
PTX 7.5 (`hrf map`), at 1 and 2 workers: wall time, mapped checks per
second, the verdicts. Aim: under 60 s on 2 cores.
Run by hand: `python benchmarks/bench_mapcheck.py [--count N]`."""

from __future__ import annotations

import argparse
import collections
import time

import hrf
from hrf.mapcheck import check_mappings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--workers", default="1,2")
    a = ap.parse_args()
    t0 = time.perf_counter()
    tests = hrf.generate(
        count=a.count, seed=2, dialect="c", orders=("rlx", "acq", "rel", "sc"), max_edges=6, max_threads=4
    )
    print(f"generated {len(tests):,} C11 tests in {time.perf_counter() - t0:.2f} s")
    for w in (int(x) for x in a.workers.split(",")):
        t0 = time.perf_counter()
        verdicts = collections.Counter(
            "refused" if isinstance(r, hrf.HrfError) else r.verdict
            for r in check_mappings(tests, "ptx-abi", "rc11", "ptx-7.5", workers=w)
        )
        dt = time.perf_counter() - t0
        print(f"workers={w}: {dt:.1f} s, {len(tests) / dt:,.0f} mapped checks/s, {dict(verdicts)}")


if __name__ == "__main__":
    main()
