"""Every reference suite under its model: tests per second and the
slowest tests. herd's `opencl_total` needs 12 s for IRIW with seq_cst
atomics; the aim is milliseconds. Run by hand:
`python benchmarks/bench_suites.py`."""

from __future__ import annotations

import os
import time
from pathlib import Path

import hrf

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = Path(os.environ.get("HRF_REFERENCE", ROOT.parent / "shared" / "reference"))
SUITES = [
    ("rsp", "opencl-rsp"),
    ("opencl-dat3m", "opencl"),
    ("opencl-herd2015", "opencl"),
    ("c11-herd2015", "c11"),
    ("ptx-asplos15", "ptx"),
    (str(ROOT / "litmus" / "hrf"), "hrf-indirect-relaxed"),
]


def main():
    hrf.parse(next((REFERENCE / "rsp").glob("*.litmus")))  # grammar start-up
    rows = []
    for folder, model in SUITES:
        files = sorted((REFERENCE / folder).rglob("*.litmus"))
        checked = rejected = 0
        t0 = time.perf_counter()
        for f in files:
            ts = time.perf_counter()
            try:
                r = hrf.check(f, model)
            except hrf.UnsupportedFeature:
                rejected += 1
                continue
            checked += 1
            rows.append((time.perf_counter() - ts, f"{folder}/{f.name}", model, r.candidates, r.consistent))
        dt = time.perf_counter() - t0
        print(
            f"{folder:24s} {model:22s} {checked:3d} checked {rejected:2d} rejected  {dt:7.3f}s  "
            f"{checked / dt:7.1f} tests/s"
        )
    print("slowest:")
    for secs, name, model, cands, cons in sorted(rows, reverse=True)[:6]:
        print(f"  {secs * 1000:8.2f} ms  {name:60s} {model:14s} candidates {cands:6d} consistent {cons:6d}")
    for name in (
        "opencl-herd2015/IRIW_sc_sc_sc-sc_sc-sc_xaG_yaG_P0_P1_P2_P3.litmus",
        "opencl-dat3m/overhauling/IRIW_sc_dev.litmus",
    ):
        best = min(_time(REFERENCE / name, "opencl") for _ in range(5))
        print(f"IRIW seq_cst under opencl ({name.split('/')[0]}): best of 5 {best * 1000:.2f} ms")


def _time(path, model):
    t = time.perf_counter()
    hrf.check(path, model)
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
