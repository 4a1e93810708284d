"""test_properties: the cases that need the peers' reference data."""

from reference import REFERENCE

import hrf
from test_properties import summary


def test_pruning_prunes():
    # Not a timing claim: on IRIW the pruned search judges fewer complete
    # candidates than the reference and finds the same consistent ones.
    f = REFERENCE / "opencl-herd2015" / "IRIW_sc_sc_sc-sc_sc-sc_xaG_yaG_P0_P1_P2_P3.litmus"
    fast, slow = hrf.check(f, "sc"), hrf.check(f, "sc", reference=True)
    assert summary(fast) == summary(slow)
    assert fast.pruned > 0 and fast.candidates < slow.candidates
