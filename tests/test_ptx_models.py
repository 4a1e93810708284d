"""The built-in PTX models `ptx-6.0` ([PTX19]) and `ptx-7.5` ([PTX22]) on
shipped and small tests, with verdicts derived by hand next to each test.
Their agreement with Dartagnan's cat files and verdicts on Dat3M's whole
PTX suites is in tests/conformance/test_dat3m_reference.py."""

from pathlib import Path

import pytest

import hrf

PTX7 = Path(hrf.__file__).parent / "corpus" / "ptx7"
MODELS = ["ptx-6.0", "ptx-7.5"]


@pytest.mark.parametrize("model", MODELS)
def test_message_passing_synchronises_only_within_scope(model):
    # MP+rel-acq-gpu: st.release.gpu y and ld.acquire.gpu y are strong, each
    # in the other's GPU scope, so morally strong; the acquire reading the
    # release is sync, so the data write is in cause before the data read,
    # and that read taking the initial value puts it fr-before the write:
    # (fr; cause) is reflexive, Causality forbids r0=1, r1=0.
    assert hrf.check(PTX7 / "MP+rel-acq-gpu.litmus", model).condition_holds is False
    # MP+rel-acq-cta: the same with CTA scope across two CTAs: neither
    # thread is in the other's scope, no sync, nothing orders the data
    r = hrf.check(PTX7 / "MP+rel-acq-cta.litmus", model)
    assert r.condition_holds is True and r.complete


@pytest.mark.parametrize("model", MODELS)
def test_a_spinning_consumer_reads_the_data(model):
    # SpinMP: every iteration that leaves the loop read 1 by an acquire
    # from the release: sync, so the data read must see 42 (Causality as above)
    r = hrf.check(PTX7 / "SpinMP.litmus", model)
    assert r.condition_holds is True


def proxy_test(fence: str) -> str:
    rows = "\n".join(f" {row} ;" for row in ["st.weak x, 1", *([fence] if fence else []), "tld.weak r0, x"])
    return f"PTX proxy\n{{\nx=0;\nP0:r0=0;\n}}\n P0@cta 0,gpu 0 ;\n{rows}\nexists (P0:r0 == 0)\n"


def test_a_texture_read_sees_a_generic_write_only_after_a_proxy_fence():
    # One thread writes x through the generic proxy, then reads it through
    # the texture proxy. Without a fence no proxy-preserved causality order
    # relates them (different proxies, no proxy fence): the read may take
    # the initial value. With fence.proxy.texture between them, the write
    # reaches the fence in po and the fence reaches the read in po within
    # the read's proxy and CTA ([GEN]; cause-base; cause-base & proxy-fence-ops),
    # on the same virtual location: write cause-before read, and the read
    # taking 0 would be fr-before the write: Causality forbids it.
    assert hrf.check(proxy_test(""), "ptx-7.5").condition_holds is True
    assert hrf.check(proxy_test("fence.proxy.texture"), "ptx-7.5").condition_holds is False


def test_ptx_6_0_refuses_what_7_5_added_by_name():
    with pytest.raises(hrf.UnsupportedFeature, match="generic proxy alone, not TEX: use ptx-7.5"):
        hrf.check(proxy_test(""), "ptx-6.0")
    aliased = proxy_test("").replace("x=0;", "x=0; y @ generic aliases x;")
    with pytest.raises(hrf.UnsupportedFeature, match="no aliases"):
        hrf.check(aliased, "ptx-6.0")


@pytest.mark.parametrize("model", MODELS)
def test_other_dialects_are_refused_by_name(model):
    with pytest.raises(hrf.UnsupportedFeature, match="reads Dat3M's PTX tests"):
        hrf.check(Path(hrf.__file__).parent / "corpus" / "vulkan" / "MP-avvis-dv.litmus", model)
