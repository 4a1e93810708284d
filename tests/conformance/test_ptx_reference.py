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


DAT3M_FOLDERS = ("dat3m-gpu/litmus/PTX/Barrier", "dat3m-gpu/litmus/PTX/Manual", "opencl-dat3m/herd")


def _dat3m_rows():
    from test_gpu import hardware_rows

    return hardware_rows(DAT3M_FOLDERS)


@pytest.mark.parametrize("row", _dat3m_rows(), ids=lambda r: f"{r['record']}:{r['test']}")
def test_every_state_the_hardware_showed_for_dat3ms_tests_is_allowed(row):
    """Dat3M's barrier and manual tests (and its OpenCL barrier example)
    on the lent H200 (tests/data/hardware): each state the GPU showed is
    allowed by every model that judges the dialect and takes the test
    (`red.acq_rel`, which the PTX models refuse by name, gives no verdict)."""
    from hrf.errors import UnsupportedFeature
    from hrf.gpu import judges
    from test_gpu import states_not_allowed

    test = hrf.parse(REFERENCE / row["from"] / row["file"])
    assert herd_name(test.name) == row["test"]
    judged = 0
    for model in judges(test.arch):
        try:
            r = hrf.check(test, model)
        except UnsupportedFeature:
            continue
        assert r.complete, (row["test"], model)
        if r.racy:  # no meaning under the model
            continue
        assert states_not_allowed(row, r) == [], (row["test"], model)
        judged += 1
    assert judged or row["test"] in ("Atom-plus-register", "_Red-minus-location", "Red-plus-location"), row["test"]
