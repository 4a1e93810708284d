"""test_ptx: the cases that need the peers' reference data."""

import pytest
from reference import REFERENCE, record_agreement

import hrf
from hrf.herdout import herd_name, read_herd_output

PTX = REFERENCE / "ptx-asplos15"


OUT = read_herd_output(PTX / "herd-ptx.out")


FILES = sorted(PTX.glob("*.litmus"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_ptx_agrees_with_herd(path):
    t = hrf.parse(path)
    v = OUT[herd_name(t.name)]
    r = hrf.check(t, "ptx")
    same = r.condition_holds == v.holds and len(r.outcomes) == len(v.states)
    record_agreement("ptx-asplos15 / herd ptx.cat", path.name, same)
    assert same, (r.condition_holds, v.holds, r.outcomes, v.states)


def test_membar_gl_restores_mp_across_ctas():
    # Fig. 16: a gl fence on both sides orders MP between CTAs of one device;
    # cta fences do not (herd agrees: MP+membar.ctas Ok, MP+membar.gls No).
    assert hrf.check(PTX / "mp+membar.gls.litmus", "ptx").condition_holds is False
    assert hrf.check(PTX / "mp+membar.ctas.litmus", "ptx").condition_holds is True


def _asplos15_weak_rows():
    from test_gpu import hardware_rows

    return [r for r in hardware_rows(("ptx-asplos15",)) if r["weak"]]


@pytest.mark.parametrize("row", _asplos15_weak_rows(), ids=lambda r: f"{r['record']}:{r['test']}")
def test_every_weak_outcome_the_hardware_showed_is_allowed_by_every_ptx_model(row):
    """[GPU15]'s tests on the lent H100 (tests/data/hardware): each weak
    outcome the GPU showed is allowed by [GPU15]'s `ptx`, and by PTX 6.0
    and 7.5 reading the test translated."""
    from hrf.gpu import NotRunnable, judges, prepare
    from test_gpu import weak_state_allowed

    def runs(t) -> bool:
        try:
            prepare(t)
            return True
        except NotRunnable:  # herd2015-MP (shared memory) is MP too, but never ran on the GPU
            return False

    (path,) = [p for p in FILES if herd_name(hrf.parse(p).name) == row["test"] and runs(hrf.parse(p))]
    assert judges("GPU_PTX") == ["ptx", "ptx-6.0", "ptx-7.5"]
    for model in judges("GPU_PTX"):
        assert weak_state_allowed(hrf.parse(path), model), (row["test"], model)
