"""Dat3M's GPU suites in one process: each suite under Dartagnan's cat
file and, where hrf has one, under its built-in model; the time of each,
the slowest tests, and the agreement with Dartagnan's expected verdicts
(the condition; race freedom for the DR suites), refusals and files the
expected results list but the reference lacks counted apart.

Every test's outcomes are enumerated whole, but for the conformance
suite's DECIDE tests (too many outcomes to list: decided at the first
execution that settles the condition). With --decide, every test is
decided so, as Dartagnan decides them (verdicts only).

    python benchmarks/bench_dat3m_gpu.py [REFERENCE] [--decide]   (default ../shared/reference)
"""

import os
import sys
import time
from pathlib import Path

import hrf
import hrf.cat

ROOT = Path(__file__).resolve().parent.parent
ARGS = [a for a in sys.argv[1:] if a != "--decide"]
REF = Path(ARGS[0]) if ARGS else ROOT.parent / "shared" / "reference"
GPU = REF / "dat3m-gpu"
ALL_DECIDED = "--decide" in sys.argv
os.environ["HRF_REFERENCE"] = str(REF)
sys.path.insert(0, str(ROOT / "tests" / "conformance"))
from test_dat3m_reference import DECIDE  # noqa: E402  (one list of them, the suite's)

# (suite, Dartagnan's cat file, hrf's built-in model of it or None)
SUITES = [
    ("PTXv6_0", "ptx-v6.0.cat", "ptx-6.0"),
    ("PTXv7_5", "ptx-v7.5.cat", "ptx-7.5"),
    ("VULKAN", "vulkan.cat", "vulkan"),
    ("VULKAN-DR", "vulkan.cat", "vulkan"),
    ("VULKAN-DR-NOCHAINS", "vulkan-nochains.cat", "vulkan-nochains"),
]
WHOLE = hrf.Limits(unroll=1)  # Dartagnan's test suite bounds loops at 1
DECIDED = hrf.Limits(unroll=1, decide=True)


def rows(name):
    for line in (GPU / "expected" / f"{name}-expected.csv").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("//", ";")):
            path, want = line.rsplit(",", 1)
            yield path, int(want)


def run(name, model, label, slow):
    agree = differ = refused = missing = 0
    start = time.perf_counter()
    for path, want in rows(name):
        if not (GPU / path).exists():
            missing += 1
            continue
        t0 = time.perf_counter()
        try:
            r = hrf.check(GPU / path, model, limits=DECIDED if ALL_DECIDED or path in DECIDE else WHOLE)
        except (hrf.UnsupportedFeature, hrf.CoreError):
            refused += 1
            continue
        slow.append((time.perf_counter() - t0, f"{path} ({label})"))
        got = not r.flags if "-DR" in name else r.condition_holds
        ok = (r.complete or (r.limit or {}).get("which") == "decided") and got == bool(want)
        agree, differ = agree + ok, differ + (not ok)
    took = time.perf_counter() - start
    print(
        f"{name:19} {label:20} agree {agree:3}  differ {differ}  refused {refused:2}  missing {missing}  {took:6.2f} s"
    )
    return took


def main():
    totals = {"cat": 0.0, "built in": 0.0}
    slow: list = []
    for name, cat, builtin in SUITES:
        totals["cat"] += run(name, hrf.cat.load(str(GPU / "cat" / cat)), cat, slow)
        if builtin:
            totals["built in"] += run(name, builtin, builtin, slow)
    print(f"total: cat files {totals['cat']:.2f} s, built-in models {totals['built in']:.2f} s; slowest tests:")
    for t, p in sorted(slow)[-5:]:
        print(f"  {t:6.3f} s  {p}")


if __name__ == "__main__":
    main()
