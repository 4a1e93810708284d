"""test_hrf_relaxed: the cases that need the peers' reference data."""

from reference import REFERENCE

import hrf

DAT3M = REFERENCE / "opencl-dat3m" / "overhauling"


def test_address_spaces_separate_hb():
    # [HRFR15] Fig. 14 / sec. 6.1: global and local memory have separate
    # happens-before orders. example5 publishes global x through a local
    # flag y: ordered under one hhb (hrf-indirect-relaxed), a race once the
    # orders are separated (hrf_relaxed.hb_in reads Fig. 14's po within the
    # space). Dartagnan (OpenCL) agrees it is racy.
    assert hrf.check(DAT3M / "example5.litmus", "hrf-indirect-relaxed").racy is False
    assert hrf.check(DAT3M / "example5.litmus", "hrf-indirect-relaxed-spaces").racy is True
    # example6 joins the orders with fences carrying both flags (bso):
    # race-free, and r = 0 after reading the flag is impossible.
    r = hrf.check(DAT3M / "example6.litmus", "hrf-indirect-relaxed-spaces")
    assert r.racy is False and r.condition_holds is False
    # Fences with the global flag only do not bridge: racy again.
    text = (
        (DAT3M / "example6.litmus")
        .read_text()
        .replace("CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE", "CLK_GLOBAL_MEM_FENCE")
    )
    assert hrf.check(text, "hrf-indirect-relaxed-spaces").racy is True
