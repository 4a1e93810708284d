"""The conformance suite's helpers: where the peers' tests and verdicts are
(../shared/reference beside the repository, or $HRF_REFERENCE), and the
agreement table pytest prints. The suite fails, not skips, without them."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
REFERENCE = Path(os.environ.get("HRF_REFERENCE", ROOT.parent / "shared" / "reference"))
if not REFERENCE.is_dir():
    raise RuntimeError(
        f"the conformance suite needs the peers' reference data at {REFERENCE} "
        "(../shared/reference beside the repository, or set HRF_REFERENCE)"
    )

# Folders the generic suites leave out: Dat3M's GPU dialects, with their
# own suite (test_dat3m_reference.py; Vulkan is refused by name there).
NOT_YET: set = {"dat3m-gpu"}


def reference_files(exclude=NOT_YET):
    if not REFERENCE.is_dir():
        raise RuntimeError(f"reference data not found at {REFERENCE} (set HRF_REFERENCE)")
    return sorted(p for p in REFERENCE.rglob("*.litmus") if p.relative_to(REFERENCE).parts[0] not in exclude)


# Peer tests hrf refuses as written (a name used but declared nowhere,
# which herd makes a fresh location), with the repair that makes them mean
# what herd read them as: (old, new), replaced throughout.
REPAIRS = {
    "CT_wsq2.litmus": ("oldHead_p", "oldhead_p"),
}


def parse_reference(path):
    """hrf.parse of a peer test, repaired first where REPAIRS says so."""
    import hrf

    if path.name in REPAIRS:
        old, new = REPAIRS[path.name]
        return hrf.parse(path.read_text().replace(old, new))
    return hrf.parse(path)


def ids(paths):
    return [str(p.relative_to(REFERENCE)) for p in paths]


@pytest.fixture(scope="session")
def reference():
    return REFERENCE


# ---------------------------------------------------------------- agreement table
_AGREEMENT: dict = {}


def record_agreement(suite: str, test: str, agrees: bool, why: str = ""):
    _AGREEMENT.setdefault(suite, []).append((test, agrees, why))


def judge(suite, test, got, want, disagree):
    """Compare hrf's verdicts with a peer's; a listed disagreement must be
    exactly the one stated (hrf's pinned verdicts), else none is allowed."""
    diff = {k for k in want if got[k] != want[k]}
    if test in disagree:
        pinned, why = disagree[test]
        assert diff == set(pinned) and all(got[k] == v for k, v in pinned.items()), why
        record_agreement(suite, test, False, why)
        return
    record_agreement(suite, test, not diff)
    assert not diff, (got, want)
