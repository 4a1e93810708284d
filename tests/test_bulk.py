"""`hrf bulk`: many tests x models, streamed rows, summary, limits, Ctrl-C."""

import csv
import io
import json

import pytest

import hrf
from conftest import CORPUS
from hrf import bulk
from hrf.cli import main


def test_witness_free_runs_decide_the_same():
    # `witnesses=False` (what bulk runs) skips building executions; every
    # verdict, outcome, count and flag kind must be the default run's.
    tests = hrf.generate(count=300, seed=7, max_edges=4, max_threads=3, remote=True)
    models = ["hrf-direct", "hrf-indirect", "opencl-rsp"]
    full = list(hrf.check_many(tests, models, workers=2))
    lean = list(hrf.check_many(tests, models, workers=2, limits=hrf.Limits(witnesses=False)))
    assert len(full) == len(lean) == 3 * len(tests)
    for a, b in zip(full, lean, strict=False):
        assert (
            a.name,
            a.model,
            a.condition_holds,
            a.racy,
            a.outcomes,
            a.observation,
            a.consistent,
            a.candidates,
            a.flagged_executions,
        ) == (
            b.name,
            b.model,
            b.condition_holds,
            b.racy,
            b.outcomes,
            b.observation,
            b.consistent,
            b.candidates,
            b.flagged_executions,
        )
        assert [f["kind"] for f in a.flags] == [f["kind"] for f in b.flags]
        assert all(f["events"] is None for f in b.flags) and all(st[4] is None for st in b.states)
    racy = next(b for b in lean if b.racy)
    with pytest.raises(hrf.HrfError, match="witnesses=False"):
        racy.to_dot()


def test_cli_bulk_csv(tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert (
        main(
            ["bulk", str(CORPUS / "hrf"), "-m", "hrf-direct", "-m", "hrf-indirect", "--out", str(out), "--no-progress"]
        )
        == 0
    )
    rows = list(csv.DictReader(out.open()))
    n = len(list((CORPUS / "hrf").glob("*.litmus")))
    assert len(rows) == 2 * n and set(rows[0]) == set(bulk.FIELDS)
    table = capsys.readouterr().out
    assert "hrf-direct" in table and "checks in" in table


def test_progress_bar_text():
    s = io.StringIO()
    p = bulk.Progress(10, stream=s, enabled=True)
    p.update(5, force=True)
    p.close()
    assert "5/10" in s.getvalue() and "/s ETA" in s.getvalue()


def test_real_ctrl_c_on_worker_processes(tmp_path):
    # A real SIGINT to the whole process group, as a terminal sends it,
    # while forked workers are checking: the rows done stay written and
    # whole, the summary says interrupted, exit status 130, no worker left.
    import os
    import signal
    import subprocess
    import sys
    import time

    folder = tmp_path / "family"
    assert main(["generate", "--count", "3000", "--seed", "5", "--max-threads", "3", "--out", str(folder)]) == 0
    out = tmp_path / "rows.jsonl"
    cmd = [
        sys.executable,
        "-c",
        "import sys; from hrf.cli import main; sys.exit(main(sys.argv[1:]))",
        "bulk",
        str(folder),
        "-m",
        "hrf-direct",
        "-m",
        "hrf-indirect",
        "-m",
        "opencl",
        "--workers",
        "2",
        "--out",
        str(out),
        "--no-progress",
    ]
    p = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and (not out.exists() or out.stat().st_size < 2000):
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGINT)
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 130, stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert 0 < len(rows) < 3 * 3000
    assert "interrupted" in stdout
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        os.killpg(p.pid, 0)  # every worker of the group is gone


def test_bulk_writes_one_herd_log_per_model(tmp_path, capsys):
    # Each model's log holds a block per test, as herd's log reader (hrf's
    # own, herdout) reads it back: verdict, states and flags as check gives.
    from hrf.herdout import read_herd_output

    paths = sorted(str(p) for p in (CORPUS / "hrf").glob("*.litmus"))
    logs = tmp_path / "logs"
    args = ["bulk", *paths, "-m", "sc", "-m", "hrf-direct", "--herd-log", str(logs), "--no-progress"]
    assert main([*args, "-o", str(tmp_path / "rows.jsonl")]) == 0
    assert sorted(p.name for p in logs.iterdir()) == ["hrf-direct.log", "sc.log"]
    assert "herd log of hrf-direct:" in capsys.readouterr().err
    for model in ("sc", "hrf-direct"):
        read = read_herd_output(logs / f"{model}.log")
        for r in hrf.check_many(paths, [model]):
            if r.error is not None:
                assert r.name not in read  # a refused test writes no block
                continue
            v = read[r.name]
            assert v.ok == r.condition_holds
            assert v.states == [s[0] for s in r.states]
            assert v.flags == [f["kind"] for f in r.flags]
