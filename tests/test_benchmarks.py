"""The scaling benchmark runs whole on a small load (its 16-core run is one
short call of a lent machine: a benchmark broken there is the call lost).
The figures themselves are not judged here (docs/speed.md has them)."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def bench_scale(*args: str) -> str:
    r = subprocess.run(
        [sys.executable, "benchmarks/bench_scale.py", "--workers", "1,2", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


def table_rows(out: str, title: str) -> list[list[str]]:
    """The rows of the table under `title` (its workers' lines)."""
    lines = out[out.index(title) :].splitlines()[2:]
    rows = []
    for line in lines:
        if not re.match(r"\s+\d+\s", line):
            break
        rows.append(line.split())
    return rows


def test_bench_scale_prints_every_table_and_the_parents_line():
    out = bench_scale("--count", "60", "--db", "--skip-explore", "--one-every", "2")
    for title in ("check_many: 60 tests x 2 models", "hrf bulk: 60 files", "hrf bulk --db: 60 files"):
        rows = table_rows(out, title)
        assert [r[0] for r in rows] == ["1", "2"], out
        for r in rows:
            # seconds, rate, speed-up, parent, CPU a check, busy
            assert float(r[1]) > 0 and float(r[2]) > 0 and r[3].endswith("x") and float(r[5]) > 0
            assert r[6].endswith("%"), out
        assert rows[0][4] == "-" and float(rows[1][4]) > 0  # the parent's CPU, where there are workers
    assert re.search(r"store writer \(a process of its own\): [\d.]+ us per check", out)
    assert re.search(r"^parent: [\d.]+ us per check$", out, re.M)
    assert "1 worker checks one test in 2;" in out
    assert re.search(
        r"^a fork of this process \(holding the tests\): [\d.]+ ms; 2 workers start over \d+ ms$", out, re.M
    )
