"""Coverage of herd7's own C tests: parsed / run / refused (with reasons).

herdtools7's C tests (herd/tests/instructions/C/ and the C tests of its
catalogue/) are herd's, not shipped with hrf: fetch herdtools7 and point
this script at a folder of them.

    python benchmarks/herd_c_coverage.py DIR [--model c11] [--max-seconds 5]

Prints one line per class (run, refused with UnsupportedFeature, syntax
error, other error) and the reasons for refusals, most frequent first.
Every test must be run or refused: a syntax error on herd's own test is a
gap of hrf's parser (the script exits 1).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

import hrf


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder")
    p.add_argument("--model", default="c11")
    p.add_argument("--max-seconds", type=float, default=5.0)
    a = p.parse_args(argv)
    files = sorted(f for f in Path(a.folder).rglob("*.litmus") if f.read_bytes()[:200].split(None, 1)[:1] == [b"C"])
    classes: Counter = Counter()
    reasons: Counter = Counter()
    gaps = []
    for f in files:
        try:
            r = hrf.check(f, a.model, max_seconds=a.max_seconds)
            classes["run" if r.complete else "run (cut by a limit)"] += 1
        except hrf.UnsupportedFeature as e:
            classes["refused"] += 1
            reasons[re.sub(r"^P\d+: ", "", e.message)] += 1
        except hrf.LitmusSyntaxError as e:
            classes["syntax error"] += 1
            gaps.append(str(e).splitlines()[0])
        except hrf.HrfError as e:
            classes["other error"] += 1
            gaps.append(str(e).splitlines()[0])
    print(f"{len(files)} C tests under {a.folder} (model {a.model})")
    for cls in ("run", "run (cut by a limit)", "refused", "syntax error", "other error"):
        print(f"  {cls:22s} {classes[cls]:5d}")
    for why, n in reasons.most_common():
        print(f"    refused {n:4d}: {why}")
    for g in gaps:
        print(f"    gap: {g}")
    return 1 if gaps else 0


if __name__ == "__main__":
    raise SystemExit(main())
