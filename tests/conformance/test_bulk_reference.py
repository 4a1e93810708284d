"""test_bulk: the cases that need the peers' reference data."""

import io
import json

import pytest
from reference import REFERENCE

import hrf
from hrf import bulk


def test_expand_files_folders_globs(tmp_path):
    files = bulk.expand(
        [
            str(REFERENCE / "rsp"),
            str(REFERENCE / "rsp" / "RSP_Test1.litmus"),
            str(REFERENCE / "opencl-dat3m" / "overhauling" / "MP_*.litmus"),
        ]
    )
    assert len(files) == 14 + 4  # the RSP folder once, plus four MP_ files
    with pytest.raises(FileNotFoundError):
        bulk.expand([str(tmp_path / "nothing-here")])


def test_rows_match_single_checks():
    paths = bulk.expand([str(REFERENCE / "rsp")])
    out = io.StringIO()
    summary = bulk.run(paths, ["opencl-rsp", "opencl"], out=out, workers=2)
    rows = [json.loads(l) for l in out.getvalue().splitlines()]
    assert len(rows) == summary.done == 2 * len(paths)
    for r in rows:
        if r["model"] == "opencl":
            # remote operations are outside `opencl`: reported, not dropped
            if r["verdict"] == "error":
                assert "UnsupportedFeature" in r["error"]
            continue
        single = hrf.check(r["test"], "opencl-rsp")
        assert r["verdict"] == ("Ok" if single.condition_holds else "No")
        assert r["racy"] == single.racy and r["outcomes"] == len(single.outcomes)
    m = summary.by_model["opencl-rsp"]
    assert m["checked"] == 14 and m["racy"] == 5 and m["error"] == 0


def test_limits_reported_as_incomplete():
    out = io.StringIO()
    summary = bulk.run(
        [str(REFERENCE / "rsp" / "RSP_Test8.litmus")], ["opencl-rsp"], out=out, limits=hrf.Limits(max_candidates=3)
    )
    r = json.loads(out.getvalue())
    assert r["verdict"] == "incomplete" and r["limit"] == "candidates" and r["complete"] is False
    assert summary.by_model["opencl-rsp"]["incomplete"] == 1


def test_ctrl_c_keeps_what_is_done(monkeypatch):
    # Interrupt after the second batch of rows: rows written so far stay,
    # the summary says so.
    real = bulk.check_batches

    def interrupting(*a, **kw):
        for i, batch in enumerate(real(*a, **kw)):
            if i == 2:
                raise KeyboardInterrupt
            yield batch

    monkeypatch.setattr(bulk, "check_batches", interrupting)
    out = io.StringIO()
    summary = bulk.run(bulk.expand([str(REFERENCE / "rsp")]), ["opencl-rsp"], out=out, chunk=2)
    assert summary.interrupted and summary.done == 4  # two batches of two tests
    assert len(out.getvalue().splitlines()) == 4
    assert "interrupted" in summary.table()
