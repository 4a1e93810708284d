"""Dat3M's GPU suites under Dartagnan's cat files, in one process: the
time of each suite, the slowest tests, and the agreement with Dartagnan's
expected verdicts (refusals counted apart).

    python benchmarks/bench_dat3m_gpu.py [REFERENCE]   (default ../shared/reference)
"""

import sys
import time
from pathlib import Path

import hrf
import hrf.cat

ROOT = Path(__file__).resolve().parent.parent
REF = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "reference"
GPU = REF / "dat3m-gpu"
SUITES = [("PTXv6_0", "ptx-v6.0.cat"), ("PTXv7_5", "ptx-v7.5.cat")]
LIMITS = hrf.Limits(unroll=1)  # Dartagnan's test suite bounds loops at 1


def rows(name):
    for line in (GPU / "expected" / f"{name}-expected.csv").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("//", ";")):
            path, want = line.rsplit(",", 1)
            yield path, int(want)


def main():
    total = 0.0
    slow = []
    for name, cat in SUITES:
        model = hrf.cat.load(str(GPU / "cat" / cat))
        agree = differ = refused = 0
        start = time.perf_counter()
        for path, want in rows(name):
            t0 = time.perf_counter()
            try:
                r = hrf.check(GPU / path, model, limits=LIMITS)
            except hrf.UnsupportedFeature:
                refused += 1
                continue
            slow.append((time.perf_counter() - t0, path))
            ok = r.complete and r.condition_holds == bool(want)
            agree, differ = agree + ok, differ + (not ok)
        took = time.perf_counter() - start
        total += took
        print(f"{name:10} {cat:15} agree {agree:3}  differ {differ}  refused {refused:2}  {took:6.2f} s")
    print(f"total {total:.2f} s; slowest:")
    for t, p in sorted(slow)[-5:]:
        print(f"  {t:6.3f} s  {p}")


if __name__ == "__main__":
    main()
