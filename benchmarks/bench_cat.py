"""A model read from cat against the same model in hrf's DSL.

1. Every shipped model printed as cat (`hrf models --cat NAME`) and read
   back: the IR is the DSL's (a test says so), so the check time must be
   the same. Measured over the paper corpus and 300 generated tests, one
   thread, best of --repeat.
2. The peers' own files beside hrf's model of the same name, on the suite
   each was written for (where ../shared/reference is there): these are
   different texts of a model, and may differ in speed (hrf's models add
   axioms that prune the enumeration early).

    python benchmarks/bench_cat.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
import time
from pathlib import Path

import hrf
from hrf.cat import load
from hrf.cat.printer import to_cat
from hrf.models import get, names

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = Path(os.environ.get("HRF_REFERENCE", ROOT.parent / "shared" / "reference"))

# (peer's file, its suite, hrf's model of the same name, options of hrf.cat.load)
PEERS = [
    ("herd2015/sc.cat", "opencl-herd2015", "sc", {}),
    ("herd2015/opencl.cat", "opencl-herd2015", "opencl", {}),
    ("herd2015/ptx.cat", "ptx-asplos15", "ptx", {}),
    ("herd-rsp/opencl_rem.cat", "rsp", "opencl-rsp", {"cas_writeback": False}),
    ("herd7/c11_simp.cat", "c11-herd2015", "c11", {}),
    ("dat3m/opencl.cat", "opencl-dat3m", "opencl", {}),
]


def timed(tests, model, repeat: int) -> tuple[float, int]:
    """Best wall time of checking every test under `model` on one thread,
    and how many it checked (a test the model refuses counts apart)."""
    best, n = float("inf"), 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        rs = list(hrf.check_many(tests, [model], workers=1, witnesses=False))
        best = min(best, time.perf_counter() - t0)
        n = sum(r.error is None for r in rs)
    return best, n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    corpus = sorted(str(p) for p in (ROOT / "litmus").glob("*/*.litmus") if "machine" not in p.parts)
    tests = [hrf.parse(p) for p in corpus] + list(hrf.generate(count=300, seed=1))
    print(f"1. shipped models, in the DSL and printed as cat and read back: {len(tests)} tests, one thread")
    print(f"{'model':34} {'DSL s':>8} {'cat s':>8} {'cat/DSL':>8} {'checked':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names():
            dsl_model = get(name)
            path = Path(tmp) / f"{name}.cat"
            path.write_text(to_cat(dsl_model))
            cat_model = load(str(path))
            # the tests the model takes (a printed model keeps its axioms,
            # not the refusals of features outside its paper, `supports`)
            taken = [
                t
                for t, r in zip(tests, hrf.check_many(tests, [dsl_model], workers=1, witnesses=False), strict=True)
                if r.error is None
            ]
            d, n = timed(taken, dsl_model, a.repeat)
            c, m = timed(taken, cat_model, a.repeat)
            assert n == m, (name, n, m)
            print(f"{name:34} {d:8.3f} {c:8.3f} {c / d:8.2f} {n:8}")
    if not REFERENCE.is_dir():
        print(f"2. skipped: no reference data at {REFERENCE}")
        return
    print("\n2. the peers' files against hrf's model of the same name, on the peer's suite, one thread")
    print(f"{'file':28} {'suite':16} {'hrf model':12} {'hrf s':>8} {'file s':>8} {'file/hrf':>9} {'checked':>8}")
    for cat, suite, mine, options in PEERS:
        paths = sorted((REFERENCE / suite).rglob("*.litmus"))
        ts = []
        for p in paths:
            with contextlib.suppress(hrf.HrfError):  # read errors are the parsing conformance tests' business
                ts.append(hrf.parse(p))
        peer = load(str(REFERENCE / "cat" / cat), **options)
        h, n = timed(ts, get(mine), a.repeat)
        f, m = timed(ts, peer, a.repeat)
        print(f"{cat:28} {suite:16} {mine:12} {h:8.3f} {f:8.3f} {f / h:9.2f} {min(n, m):8}")


if __name__ == "__main__":
    main()
