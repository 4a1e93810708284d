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
