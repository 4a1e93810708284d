"""Conformance: hrf against the peers' tests and verdicts (see reference.py)."""

from reference import _AGREEMENT, reference  # noqa: F401  (the fixture)


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
