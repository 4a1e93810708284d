"""test_properties: the cases that need the peers' reference data."""

from reference import REFERENCE, parse_reference

import hrf
from test_properties import summary


def test_pruning_prunes():
    # Not a timing claim: on IRIW the pruned search judges fewer complete
    # candidates than the reference and finds the same consistent ones.
    f = REFERENCE / "opencl-herd2015" / "IRIW_sc_sc_sc-sc_sc-sc_xaG_yaG_P0_P1_P2_P3.litmus"
    fast, slow = hrf.check(f, "sc"), hrf.check(f, "sc", reference=True)
    assert summary(fast) == summary(slow)
    assert fast.pruned > 0 and fast.candidates < slow.candidates


SUITE_MODELS = {
    "opencl-dat3m": "opencl",
    "opencl-herd2015": "opencl",
    "rsp": "opencl-rsp",
    "ptx-asplos15": "ptx",
    "c11-herd2015": "c11",
}


def test_every_reduction_changes_nothing_on_the_peers_tests():
    # Every reference test under its suite's model: the enumerator with its
    # reductions (pruning, unjustified paths, reads of private locations)
    # against the plain reference, wherever the reference finishes.
    compared = 0
    for suite, model in SUITE_MODELS.items():
        for f in sorted((REFERENCE / suite).rglob("*.litmus")):
            try:
                t = parse_reference(f)
                slow = hrf.check(t, model, reference=True, max_candidates=100_000)
            except hrf.UnsupportedFeature:
                continue
            if not slow.complete:
                continue
            assert summary(hrf.check(t, model)) == summary(slow), (f.name, model)
            compared += 1
    assert compared >= 85  # 90 when written: every test the models accept
