"""Liveness (`hrf.liveness`) against Dartagnan's verdicts on Dat3M's GPU
tests: `PTXv6_0-Liveness`, `PTXv7_5-Liveness` (fair scheduling) and
`VULKAN-Liveness-{Fair,HSA,HSA_OBE,LOBE,OBE}` (1 = PASS: no execution gets
stuck forever). Loops unrolled up to three times (`UNROLL`: the livelocks
where one thread loops twice per iteration of another take four copies of
a loop). Every verdict hrf establishes must be Dartagnan's, and it
establishes one for every test it takes; the tests whose loops overlap or
nest it refuses by name, counted.
"""

import pytest
from reference import REFERENCE, record_agreement

import hrf

GPU = REFERENCE / "dat3m-gpu"

SUITES = {
    "PTXv6_0-Liveness": ("ptx-6.0", "fair"),
    "PTXv7_5-Liveness": ("ptx-7.5", "fair"),
    "VULKAN-Liveness-Fair": ("vulkan", "fair"),
    "VULKAN-Liveness-HSA": ("vulkan", "hsa"),
    "VULKAN-Liveness-HSA_OBE": ("vulkan", "hsa-obe"),
    "VULKAN-Liveness-LOBE": ("vulkan", "lobe"),
    "VULKAN-Liveness-OBE": ("vulkan", "obe"),
}

UNROLL = 3

# the verdicts hrf establishes, per suite, at least (all of them agree)
ESTABLISHED_AT_LEAST = {
    "PTXv6_0-Liveness": 91,
    "PTXv7_5-Liveness": 91,
    "VULKAN-Liveness-Fair": 272,
    "VULKAN-Liveness-HSA": 430,
    "VULKAN-Liveness-HSA_OBE": 413,
    "VULKAN-Liveness-LOBE": 402,
    "VULKAN-Liveness-OBE": 461,
}


def _expected(name: str) -> list:
    out = []
    for line in (GPU / "expected" / f"{name}-expected.csv").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("//", ";")):
            path, verdict = line.rsplit(",", 1)
            out.append((path, verdict == "1"))
    return out


@pytest.mark.parametrize("suite", list(SUITES))
def test_liveness_agrees_with_dartagnan(suite):
    model, progress = SUITES[suite]
    cases = _expected(suite)
    assert cases, suite
    established = refused = 0
    for path, want in cases:
        try:
            r = hrf.check(GPU / path, model, liveness=True, progress=progress, unroll=UNROLL)
        except hrf.UnsupportedFeature as e:
            assert "overlap, neither holding the other" in str(e), (path, str(e))
            refused += 1
            record_agreement(f"dat3m liveness {suite}", path, False, "loops that overlap: refused")
            continue
        assert r.live is not None, (path, r.notes)
        assert r.live == want, (path, r.notes[-1])
        established += 1
        record_agreement(f"dat3m liveness {suite}", path, True)
    assert established + refused == len(cases)
    assert established >= ESTABLISHED_AT_LEAST[suite], (established, refused)
