"""hrf's herd logs beside the logs herd wrote for the same tests: read by
the same reader, the same tests, validations, witness counts and states."""

import tempfile

from reference import REFERENCE, parse_reference

import hrf
from hrf.herdout import read_herd_output


def _log(folder, model):
    tests = [parse_reference(p) for p in sorted((REFERENCE / folder).glob("*.litmus"))]
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        for t in tests:
            f.write(hrf.check(t, model).to_herd_log())
    return read_herd_output(f.name)


def test_rsp_log_matches_herds():
    mine, herds = _log("rsp", "opencl-rsp"), read_herd_output(REFERENCE / "rsp" / "herd-opencl_rem.out")
    assert set(mine) == set(herds)
    for name, v in herds.items():
        m = mine[name]
        assert (m.kind, m.ok, m.condition is not None) == (v.kind, v.ok, v.condition is not None), name
        key = lambda d: sorted(d.items())  # noqa: E731
        assert sorted(map(key, m.states)) == sorted(map(key, v.states)), name


def test_ptx_log_matches_herds():
    mine, herds = _log("ptx-asplos15", "ptx"), read_herd_output(REFERENCE / "ptx-asplos15" / "herd-ptx.out")
    # herd's output also holds tests printed only in the paper, and two tests named MP
    names = [n for n in herds if n in mine and n != "MP"]
    assert len(names) >= 6
    for name in names:
        v, m = herds[name], mine[name]
        assert (m.kind, m.ok, m.positive, m.negative) == (v.kind, v.ok, v.positive, v.negative), name
