import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The peers' tests and verdicts live beside the repository (../shared/reference).
REFERENCE = Path(os.environ.get("HRF_REFERENCE", ROOT.parent / "shared" / "reference"))
CORPUS = ROOT / "litmus"

# Folders whose syntax hrf does not read yet.
NOT_YET: set = set()


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


def pytest_terminal_summary(terminalreporter):
    if not _AGREEMENT:
        return
    tr = terminalreporter
    tr.section("agreement with the peers")
    for suite, rows in sorted(_AGREEMENT.items()):
        n_ok = sum(1 for _, a, _ in rows if a)
        tr.write_line(f"{suite}: {n_ok}/{len(rows)} agree")
        for test, agrees, why in sorted(rows):
            if not agrees:
                tr.write_line(f"    differs: {test}: {why[:160]}{'...' if len(why) > 160 else ''}")
