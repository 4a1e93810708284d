"""Liveness (`hrf.liveness`) against Dartagnan's verdicts on Dat3M's GPU
tests: `PTXv6_0-Liveness`, `PTXv7_5-Liveness` (fair scheduling) and
`VULKAN-Liveness-{Fair,HSA,HSA_OBE,LOBE,OBE}` (1 = PASS: no execution gets
stuck forever). Every verdict hrf establishes must be Dartagnan's. Where hrf
establishes none, the cause is one of two, each stated and counted:
- the test's loops overlap or nest (refused by name), or
- a loop writes on every iteration and an allowed execution takes it to
  the unrolling bound: hrf shows only side-effect-free loops spinning
  (Dartagnan finds such livelocks by repeating an infix of iterations).
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

# the verdicts hrf establishes, per suite, at least (all of them agree)
ESTABLISHED_AT_LEAST = {
    "PTXv6_0-Liveness": 91,
    "PTXv7_5-Liveness": 91,
    "VULKAN-Liveness-Fair": 106,
    "VULKAN-Liveness-HSA": 104,
    "VULKAN-Liveness-HSA_OBE": 100,
    "VULKAN-Liveness-LOBE": 100,
    "VULKAN-Liveness-OBE": 121,
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
    established = refused = open_ = 0
    for path, want in cases:
        try:
            r = hrf.check(GPU / path, model, liveness=True, progress=progress)
        except hrf.UnsupportedFeature as e:
            assert "overlap or nest" in str(e) or "holds another loop" in str(e), (path, str(e))
            refused += 1
            record_agreement(f"dat3m liveness {suite}", path, False, "loops overlap or nest: refused")
            continue
        if r.live is None:
            assert "writes on every iteration" in " ".join(r.notes), (path, r.notes)
            open_ += 1
            record_agreement(f"dat3m liveness {suite}", path, False, "a writing loop reaches the bound")
            continue
        assert r.live == want, (path, r.notes[-1])
        established += 1
        record_agreement(f"dat3m liveness {suite}", path, True)
    assert established + refused + open_ == len(cases)
    assert established >= ESTABLISHED_AT_LEAST[suite], (established, refused, open_)
