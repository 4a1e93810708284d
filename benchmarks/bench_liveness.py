"""Liveness speed: every file of Dartagnan's liveness suites (PTX 2 x 91,
Vulkan 278 + 436 + 419 + 408 + 467 listed) checked in one process under
its model and progress model, loops unrolled up to three times (as the
conformance suite checks them), wall time per suite and the slowest test.
Aim: all under 30 s on this machine, no test over 1 s.
Run by hand: `python benchmarks/bench_liveness.py` (reads
../shared/reference, or $HRF_REFERENCE)."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

import hrf

ROOT = Path(__file__).resolve().parent.parent
GPU = Path(os.environ.get("HRF_REFERENCE", ROOT.parent / "shared" / "reference")) / "dat3m-gpu"
sys.path.insert(0, str(ROOT / "tests" / "conformance"))
from test_dat3m_liveness_reference import SUITES, UNROLL, _expected  # noqa: E402


def main():
    total, slowest = 0.0, (0.0, "")
    for suite, (model, progress) in SUITES.items():
        t0 = time.perf_counter()
        for path, _ in _expected(suite):
            t1 = time.perf_counter()
            with contextlib.suppress(hrf.UnsupportedFeature):  # nested loops: refused by name
                hrf.check(GPU / path, model, liveness=True, progress=progress, unroll=UNROLL)
            slowest = max(slowest, (time.perf_counter() - t1, f"{suite}: {path}"))
        dt = time.perf_counter() - t0
        total += dt
        print(f"{suite:28s} {len(_expected(suite)):4d} files {dt:6.2f} s")
    print(f"all: {total:.2f} s; slowest test {slowest[0]:.3f} s ({slowest[1]})")


if __name__ == "__main__":
    main()
