"""test_api: the cases that need the peers' reference data."""

import pytest
from reference import REFERENCE

import hrf


def test_hrf_rejects_relaxed_atomics():
    with pytest.raises(hrf.UnsupportedFeature, match="seq_cst atomics only, not rel") as ei:
        hrf.check(REFERENCE / "rsp" / "RSP_Test1.litmus", "hrf-direct")
    assert ei.value.line == 9
    with pytest.raises(hrf.UnsupportedFeature, match="no fences"):
        hrf.check(REFERENCE / "opencl-herd2015" / "MP_rlx_1FG-sc-all_rlx_xaG_yaG_P0_P1.litmus", "hrf-indirect")


def test_candidate_limit_gives_no_verdict():
    r = hrf.check(
        REFERENCE / "opencl-herd2015" / "IRIW_sc_sc_sc-sc_sc-sc_xaG_yaG_P0_P1_P2_P3.litmus", "sc", max_candidates=3
    )
    assert r.complete is False and r.limit["which"] == "candidates"
    # IRIW's condition is never satisfied under SC; cut short, hrf must not say "No".
    assert r.condition_holds is None
    assert "Undetermined" in r.to_herd() and "Limit candidates reached" in r.to_herd()
    with pytest.raises(hrf.LimitExceeded) as ei:
        hrf.check(
            REFERENCE / "opencl-herd2015" / "IRIW_sc_sc_sc-sc_sc-sc_xaG_yaG_P0_P1_P2_P3.litmus",
            "sc",
            max_candidates=3,
            on_limit="raise",
        )
    assert ei.value.which == "candidates" and ei.value.result is not None
