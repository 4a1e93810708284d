"""The slowest tests of some folders under one model: does any small test
explode? Checks every .litmus file below the folders given, one at a time
in this process, and prints how many were decided, the total time, every
test over the threshold or cut by a limit, and the slowest five.

    python benchmarks/bench_slowest.py -m c11 DIR [DIR ...] [--over 1.0]

(DIR: e.g. Dat3M's litmus/C11 or herdtools7's catalogue/c11popl15, fetched;
or ../shared/reference/<suite>.)
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import hrf


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--model", "-m", required=True)
    ap.add_argument("--over", type=float, default=1.0, help="report tests slower than this (seconds)")
    a = ap.parse_args()
    files = sorted(p for d in a.folders for p in Path(d).rglob("*.litmus"))
    times, refused, cut = [], 0, []
    t0 = time.perf_counter()
    for f in files:
        t = time.perf_counter()
        try:
            r = hrf.check(str(f), a.model)
        except hrf.HrfError:
            refused += 1
            continue
        dt = time.perf_counter() - t
        times.append((dt, f))
        if not r.complete:
            cut.append((f, r.limit["which"] if r.limit else "?"))
    total = time.perf_counter() - t0
    print(
        f"{len(files)} files under {a.model}: {len(times)} checked ({len(times) - len(cut)} decided), "
        f"{refused} refused, {total:.2f}s in all"
    )
    for f, which in cut:
        print(f"  cut by a limit ({which}): {f}")
    for dt, f in sorted(times, reverse=True):
        if dt <= a.over:
            break
        print(f"  over {a.over}s: {dt:.2f}s {f}")
    for dt, f in sorted(times, reverse=True)[:5]:
        print(f"  slowest: {dt * 1000:9.1f} ms  {f.name}")


if __name__ == "__main__":
    main()
