"""Conformance: hrf against the peers' tests and verdicts (see reference.py)."""

import sys
from pathlib import Path

from reference import _AGREEMENT, reference  # noqa: F401  (the fixture)

# the unit suite's helpers (test_gpu's hardware records, test_gpu_toolchain's
# toolchain check) importable here as they are there
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def pytest_terminal_summary(terminalreporter):
    if not _AGREEMENT:
        return
    tr = terminalreporter
    tr.section("agreement with the peers")
    for suite, rows in sorted(_AGREEMENT.items()):
        n_ok = sum(1 for _, a, _ in rows if a)
        tr.write_line(f"{suite}: {n_ok}/{len(rows)} agree")
        by_why: dict = {}
        for test, agrees, why in sorted(rows):
            if not agrees:
                by_why.setdefault(why, []).append(test)
        for why, tests in by_why.items():
            which = tests[0] if len(tests) == 1 else f"{len(tests)} tests ({tests[0]}, ...)"
            tr.write_line(f"    differs: {which}: {why[:160]}{'...' if len(why) > 160 else ''}")
