"""Speed of the core engine on the reference OpenCL tests.

Checks every .litmus file of ../shared/reference/{opencl-dat3m,
opencl-herd2015,rsp} under `sc` and `hrf-indirect`, counting the tests a
model rejects (UnsupportedFeature) separately, and prints tests per second,
candidate executions judged, consistent executions, and the slowest tests.
Run by hand: `python benchmarks/bench_reference.py [--repeat N]`.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = Path(os.environ.get("HRF_REFERENCE", ROOT.parent / "shared" / "reference"))
SUITES = ["opencl-dat3m", "opencl-herd2015", "rsp"]
MODELS = ["sc", "hrf-indirect"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--workers", type=int, default=None)
    a = ap.parse_args()
    files = sorted(str(p) for s in SUITES for p in (REFERENCE / s).rglob("*.litmus"))
    t0 = time.perf_counter()
    import hrf._core

    hrf.parse(files[0])  # builds the LALR tables: start-up, reported apart
    print(
        f"files: {len(files)}  models: {', '.join(MODELS)}  start-up (core + grammar): {time.perf_counter() - t0:.3f}s"
    )

    # Sequential, one test at a time (as herd runs).
    for model in MODELS:
        checked = rejected = cands = cons = 0
        per_test = []
        t0 = time.perf_counter()
        for f in files:
            try:
                ts = time.perf_counter()
                r = hrf.check(f, model)
                per_test.append((time.perf_counter() - ts, Path(f).name))
                checked += 1
                cands += r.candidates
                cons += r.consistent
            except (hrf.UnsupportedFeature, hrf.LitmusSyntaxError):
                rejected += 1  # outside hrf's fragment, or refused as written (CT_wsq2's misspelt name)
        dt = time.perf_counter() - t0
        print(
            f"[sequential] {model:13s} checked {checked:3d} rejected {rejected:3d}  {dt:.3f}s  "
            f"{checked / dt:8.1f} tests/s  candidates {cands}  consistent {cons}"
        )
        for secs, name in sorted(per_test, reverse=True)[:3]:
            print(f"    slowest: {name:60s} {secs * 1000:8.2f} ms")

    # Parallel, all tests x models at once (check_many), best of --repeat.
    best = None
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        res = list(hrf.check_many(files, MODELS, workers=a.workers))
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    ok = [r for r in res if r.error is None]
    refused = (hrf.UnsupportedFeature, hrf.LitmusSyntaxError)
    rej = [r for r in res if isinstance(r.error, refused)]
    other = [r for r in res if r.error is not None and not isinstance(r.error, refused)]
    print(
        f"[check_many] {len(files)} files x {len(MODELS)} models: {len(ok)} checked, {len(rej)} rejected, "
        f"{len(other)} errors; best of {a.repeat}: {best:.3f}s = {len(ok) / best:.1f} checks/s "
        f"(workers={a.workers or os.cpu_count()})"
    )
    print(
        f"    candidates {sum(r.candidates for r in ok)}  consistent {sum(r.consistent for r in ok)}  "
        f"pruned {sum(r.pruned for r in ok)}"
    )


if __name__ == "__main__":
    main()
