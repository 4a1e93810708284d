"""Thin-air guessing on vs off (`thin_air=True/False`), one process, on the
peers' suites under the models that guess by default. Best of N runs per
setting; prints seconds, candidates and Ok verdicts.

    python benchmarks/bench_thin_air.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import hrf

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = Path(os.environ.get("HRF_REFERENCE", ROOT.parent / "shared" / "reference"))
SUITES = [
    ("opencl", ["opencl-dat3m", "opencl-herd2015"]),
    ("opencl-rsp", ["rsp"]),
    ("c11", ["c11-herd2015"]),
    ("opencl", ["generated-herd2015"]),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    for model, folders in SUITES:
        files = sorted(str(p) for f in folders for p in (REFERENCE / f).rglob("*.litmus"))
        for thin_air in (False, True):
            best, cands, ok = float("inf"), 0, 0
            for _ in range(a.repeat):
                t0, cands, ok = time.perf_counter(), 0, 0
                for f in files:
                    try:
                        r = hrf.check(f, model, thin_air=thin_air)
                    except hrf.HrfError:
                        continue
                    cands += r.candidates
                    ok += bool(r.condition_holds)
                best = min(best, time.perf_counter() - t0)
            print(
                f"{model:11s} {'+'.join(folders):32s} thin_air={thin_air!s:5s} {len(files):4d} tests "
                f"{best:7.3f} s  candidates {cands:6d}  Ok {ok}"
            )


if __name__ == "__main__":
    main()
