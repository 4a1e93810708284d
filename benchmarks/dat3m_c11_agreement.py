"""hrf against Dartagnan on Dat3M's C11 tests: condition verdicts under C11
(hrf's `c11`) and RC11 (hrf running herd7's `rc11.cat`).

Dat3M's tests and verdicts are Dat3M's, not shipped with hrf: fetch
hernanponcedeleon/Dat3M and point this script at its checkout (it reads
`litmus/C11/` and `dartagnan/src/test/resources/{C11,RC11}-expected.csv`,
`path,1` = the condition is reachable).

    python benchmarks/dat3m_c11_agreement.py DAT3M [--rc11-cat FILE] [--max-seconds 20]

Prints, per model, how many verdicts agree, differ, were cut by a limit or
refused, then every test that does not agree. Exits 1 on a difference.
"""

from __future__ import annotations

import argparse
import csv
from collections import Counter
from pathlib import Path

import hrf
import hrf.cat

RC11_CAT = Path(__file__).resolve().parents[1] / ".." / "shared" / "reference" / "cat" / "herd7" / "rc11.cat"


def _expected(path: Path) -> dict[str, bool]:
    with path.open() as f:
        return {row[0]: row[1].strip() == "1" for row in csv.reader(f) if len(row) >= 2}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dat3m")
    p.add_argument("--rc11-cat", default=str(RC11_CAT), help="herd7's rc11.cat (default: the reference data's)")
    p.add_argument("--max-seconds", type=float, default=20.0)
    a = p.parse_args(argv)
    root = Path(a.dat3m)
    resources = root / "dartagnan" / "src" / "test" / "resources"
    suites = [("c11", "c11", _expected(resources / "C11-expected.csv"))]
    suites.append(("rc11.cat", hrf.cat.load(a.rc11_cat), _expected(resources / "RC11-expected.csv")))
    differs = 0
    for name, model, expected in suites:
        counts: Counter = Counter()
        notes = []
        for rel, want in sorted(expected.items()):
            if not rel.startswith("litmus/C11/"):
                continue
            try:
                got = hrf.check(root / rel, model, max_seconds=a.max_seconds).condition_holds
            except hrf.HrfError as e:
                counts["refused"] += 1
                notes.append(f"refused {rel}: {str(e).splitlines()[0]}")
                continue
            if got is None:
                counts["cut by a limit"] += 1
                notes.append(f"cut {rel}")
            elif got == want:
                counts["agree"] += 1
            else:
                counts["differ"] += 1
                differs += 1
                notes.append(f"differ {rel}: hrf {got}, Dartagnan {want}")
        total = sum(counts.values())
        parts = ", ".join(f"{k} {counts[k]}" for k in ("agree", "differ", "cut by a limit", "refused") if counts[k])
        print(f"{name}: {total} tests: {parts}")
        for n in notes:
            print(f"  {n}")
    return 1 if differs else 0


if __name__ == "__main__":
    raise SystemExit(main())
