"""hrf against the peers (herd 2015, herd7, the RSP paper's herd) on the
shared suites: one table, printed, and the figures as JSON.

For each suite, hrf's side is measured here, in one process for the whole
suite (best of `--runs`), split into where the time goes per test:
parsing, compiling (the model's fragment check and the program IR), the
core's own time (enumeration and axioms, as the core measures it), and the
rest of the call (the JSON crossing and the result object). A cold
single-test run (`python -m hrf check T -m M` in a fresh process, as herd
is run) is measured for each suite's first test. The peers' side is read
from the reference folder's PEER-TIMES.md (one process per test, as herd is
used), so the ratio is the one a user sees who swaps herd for hrf.

    python benchmarks/bench_vs_peers.py [--runs 3] [--json figures.json]
        [--herd-c DIR]   # herdtools7's C tests (not shipped): the C11 row
        [--herd7 PATH [--herd7-libdir DIR]]   # a herd7 binary: the C11 row's peer measured live

With --herd7, the C11 row's peer side is herd7 run here, one process per
test that hrf checked, with herd7's c11_simp.cat (the model hrf's `c11`
follows), instead of the figure in PEER-TIMES.md.

The suites are read from `$HRF_REFERENCE` (default ../shared/reference).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import hrf
from hrf.api import check_compiled
from hrf.models import get as get_model
from hrf.program import compile_test

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = Path(os.environ.get("HRF_REFERENCE", ROOT.parent / "shared" / "reference"))

# (label, folder under the reference or None for --herd-c, hrf's model,
#  the first-column text of PEER-TIMES.md's row for it)
SUITES = [
    ("RSP tests", "rsp", "opencl-rsp", "`rsp/`"),
    ("generated OpenCL, family", "generated-herd2015/family", "opencl", "`generated-herd2015/family/`"),
    ("generated OpenCL, small", "generated-herd2015/small", "opencl", "`generated-herd2015/small/`"),
    ("OpenCL tests of herd 2015", "opencl-herd2015", "opencl", "`opencl-herd2015/`"),
    ("PTX tests", "ptx-asplos15", "ptx", "`ptx-asplos15/`"),
    ("herd7's C11 tests", None, "c11", "herd7's C11 tests"),
]


def peer_times(path: Path) -> dict[str, tuple[str, float]]:
    """The rows of PEER-TIMES.md's table: first column -> (peer, total s)."""
    rows = {}
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and re.fullmatch(r"[0-9.]+", cells[3]):
            rows[cells[0]] = (cells[2], float(cells[3]))
    return rows


def one_pass(files: list[Path], model_name: str) -> dict:
    """Check every file once in this process; seconds per phase, summed."""
    model = get_model(model_name)
    # as `hrf check` runs when it prints herd's text: no witness executions
    limits = hrf.Limits(witnesses=False)
    ph = {"parse": 0.0, "compile": 0.0, "core": 0.0, "call_and_result": 0.0}
    checked = refused = 0
    slowest = (0.0, "")
    t_all = time.perf_counter()
    for f in files:
        t0 = time.perf_counter()
        try:
            t = hrf.parse(f)
            t1 = time.perf_counter()
            model.supports(t)
            comp = compile_test(t, limits.unroll, model.cas_writeback)
            t2 = time.perf_counter()
            r = check_compiled(comp, model, limits)
            t3 = time.perf_counter()
        except (hrf.UnsupportedFeature, hrf.LitmusSyntaxError):
            refused += 1
            continue
        checked += 1
        ph["parse"] += t1 - t0
        ph["compile"] += t2 - t1
        ph["core"] += r.time
        ph["call_and_result"] += (t3 - t2) - r.time
        slowest = max(slowest, (t3 - t0, f.name))
    return {
        "wall": time.perf_counter() - t_all,
        "phases": ph,
        "checked": checked,
        "refused": refused,
        "slowest": {"test": slowest[1], "seconds": slowest[0]},
    }


# As a user runs it: with Python's bytecode caches (pip writes them when it
# installs a wheel; some sandboxes turn them off) and the grammar cache warm.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def cold(test: Path, model: str, runs: int) -> float:
    """Best wall time of `python -m hrf check TEST -m MODEL` in a fresh process."""
    cmd = [sys.executable, "-m", "hrf", "check", str(test), "-m", model]
    subprocess.run(cmd, capture_output=True, env=ENV)  # warm the caches
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, env=ENV)
        best = min(best, time.perf_counter() - t)
    return best


def live_herd7(herd7: str, libdir: str | None, files: list[Path], model: str) -> tuple[list[Path], float]:
    """The tests both hrf and herd7 decide (herd7 prints an Observation),
    and herd7's total wall time over them, one process per test (as herd
    is run), with c11_simp.cat."""
    checked = [
        f for f, r in zip(files, hrf.check_many(files, [model], witnesses=False), strict=True) if r.error is None
    ]
    cmd = [herd7, *(["-set-libdir", libdir] if libdir else []), "-model", "c11_simp.cat"]
    both, total = [], 0.0
    for f in checked:
        t0 = time.perf_counter()
        out = subprocess.run([*cmd, str(f)], capture_output=True, text=True, check=False).stdout
        if "Observation" in out:
            total += time.perf_counter() - t0
            both.append(f)
    return both, total


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="passes per suite; the best counts (default 3)")
    ap.add_argument("--cold-runs", type=int, default=5, help="fresh processes per cold run (default 5)")
    ap.add_argument("--json", metavar="FILE", help="write the figures here as JSON")
    ap.add_argument("--herd-c", metavar="DIR", help="herdtools7's C tests (herd/tests/instructions/C, catalogue)")
    ap.add_argument("--herd7", metavar="PATH", help="a herd7 binary: the C11 row's peer, measured live")
    ap.add_argument(
        "--herd7-libdir", metavar="DIR", help="herd7's libdir (its -set-libdir), where it has none built in"
    )
    a = ap.parse_args(argv)
    peers = peer_times(REFERENCE / "PEER-TIMES.md")
    figures = []
    for label, folder, model, peer_key in SUITES:
        if folder is None:
            if not a.herd_c:
                print(f"{label}: skipped (give --herd-c DIR, a fetched herdtools7)", file=sys.stderr)
                continue
            files = sorted(Path(a.herd_c).rglob("*.litmus"))
        else:
            files = sorted((REFERENCE / folder).rglob("*.litmus"))
        if not files:
            print(f"{label}: no tests found", file=sys.stderr)
            continue
        peer = next((v for k, v in peers.items() if k.startswith(peer_key)), None)
        if folder is None and a.herd7:
            files, seconds = live_herd7(a.herd7, a.herd7_libdir, files, model)
            peer = ("herd7 `c11_simp.cat` (live; the tests both decide)", seconds)
        passes = [one_pass(files, model) for _ in range(a.runs)]
        best = min(passes, key=lambda p: p["wall"])
        row = {
            "suite": label,
            "model": model,
            "tests": len(files),
            **best,
            "walls": [p["wall"] for p in passes],
            "peer": None if peer is None else {"tool": peer[0], "total": peer[1]},
            "ratio": None if peer is None else peer[1] / best["wall"],
            "cold_single_test": {"test": files[0].name, "seconds": cold(files[0], model, a.cold_runs)},
        }
        figures.append(row)
        print(f"  measured {label}: {best['wall']:.3f} s", file=sys.stderr)

    print()
    print(
        "| suite | tests | peer | peer s | hrf s (one process) | ratio | of hrf's time: parse / compile / core / call+result | slowest test | cold single test (hrf) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in figures:
        ph = r["phases"]
        split = " / ".join(f"{ph[k]:.3f}" for k in ("parse", "compile", "core", "call_and_result"))
        peer = r["peer"]
        print(
            f"| {r['suite']} ({r['model']}) | {r['checked']} run, {r['refused']} refused | "
            f"{peer['tool'] if peer else '-'} | {peer['total'] if peer else '-'} | {r['wall']:.3f} | "
            f"{format(r['ratio'], '.1f') + 'x' if r['ratio'] else '-'} | {split} | "
            f"{r['slowest']['test']} {r['slowest']['seconds'] * 1000:.1f} ms | "
            f"{r['cold_single_test']['seconds'] * 1000:.0f} ms |"
        )
    print()
    print(
        "ratio: the peer's total (one process per test, as herd is run) over hrf's wall time in one process; "
        f"hrf's walls over {a.runs} passes: "
        + "; ".join(f"{r['suite']}: " + ", ".join(f"{w:.3f}" for w in r["walls"]) for r in figures)
    )
    spread = [statistics.median(r["walls"]) / min(r["walls"]) for r in figures]
    print(f"median/best spread across passes: up to {max(spread):.2f}x")
    if a.json:
        Path(a.json).write_text(json.dumps({"hrf": hrf.__version__, "suites": figures}, indent=2) + "\n")
        print(f"figures written to {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
