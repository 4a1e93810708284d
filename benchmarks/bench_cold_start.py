"""Cold start: the wall time of one `hrf check` in a fresh process, as a
user who runs hrf from a script (as people run herd) waits for it, and
where it goes (interpreter, imports, grammar, model, check). Best and
median of `--runs` fresh processes each. Run by hand:
`python benchmarks/bench_cold_start.py [--runs N]`. Aim: within 2x of
herd's wall time for the same test (about 50-100 ms here)."""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST = ROOT / "litmus" / "hrf" / "hrf14-fig6.litmus"

PHASES = r"""
import sys, time
t0 = time.perf_counter()
import hrf
t1 = time.perf_counter()
t = hrf.parse(sys.argv[1])
t2 = time.perf_counter()
from hrf.models import get
get(sys.argv[2]).ir_json()
t3 = time.perf_counter()
hrf.check(t, sys.argv[2])
t4 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3)
"""


# As a user runs it: with the bytecode Python caches (pip writes it when it
# installs a wheel; some sandboxes turn it off with PYTHONDONTWRITEBYTECODE),
# and with the grammar cache filled by a first run.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(cmd: list[str], runs: int) -> list[float]:
    subprocess.run(cmd, check=True, capture_output=True, env=ENV)  # warm-up: bytecode and grammar caches
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=ENV)
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--model", default="hrf-direct")
    a = ap.parse_args()
    hrf_cmd = [sys.executable, "-m", "hrf", "check", str(TEST), "-m", a.model]
    for label, cmd in [
        ("python -c pass (the interpreter alone)", [sys.executable, "-c", "pass"]),
        ("python -c 'import hrf'", [sys.executable, "-c", "import hrf"]),
        (f"hrf check {TEST.name} -m {a.model}", hrf_cmd),
    ]:
        w = wall(cmd, a.runs)
        print(f"{label:55s} best {min(w) * 1000:6.0f} ms  median {statistics.median(w) * 1000:6.0f} ms")
    phases = [
        [
            float(x)
            for x in subprocess.run(
                [sys.executable, "-c", PHASES, str(TEST), a.model], check=True, capture_output=True, text=True
            ).stdout.split()
        ]
        for _ in range(a.runs)
    ]
    names = ["import hrf", "parse (grammar included)", "model IR", "check"]
    print("in one fresh process, median of", a.runs, "runs:")
    for k, n in enumerate(names):
        print(f"  {n:30s} {statistics.median(p[k] for p in phases) * 1000:6.1f} ms")


if __name__ == "__main__":
    main()
