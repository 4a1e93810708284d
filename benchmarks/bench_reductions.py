"""What the enumerator's reductions save: every test below some folders
under one model, checked as usual and with every reduction and all
pruning off (`reference=True`, the plain enumerator), one at a time in
this process. Prints, per folder, the candidates judged, the partial
candidates pruned and the core's time both ways, and whether the two
agree on outcomes, verdict and flags (they must; a test the plain
enumerator cannot finish within the limits is counted apart).

    python benchmarks/bench_reductions.py -m c11 DIR [DIR ...] [--max-candidates N]

(DIR: e.g. ../shared/reference/<suite>, litmus/, or a fetched folder such
as Dat3M's litmus/C11.)
"""

from __future__ import annotations

import argparse
from pathlib import Path

import hrf


def summary(r: hrf.Result) -> tuple:
    return (
        sorted(tuple(sorted(o.items())) for o in r.outcomes),
        r.condition_holds,
        r.racy,
        sorted(f["kind"] for f in r.flags),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--model", "-m", required=True)
    ap.add_argument(
        "--max-candidates", type=int, default=2_000_000, help="limit of the plain enumerator (default 2,000,000)"
    )
    ap.add_argument("--max-seconds", type=float, default=60.0, help="per plain check (default 60)")
    a = ap.parse_args()
    print(
        f"| folder ({a.model}) | tests | candidates: reduced / plain | pruned: reduced / plain "
        "| core s: reduced / plain | agree | plain cut by a limit |"
    )
    print("|---|---|---|---|---|---|---|")
    for folder in a.folders:
        files = sorted(Path(folder).rglob("*.litmus"))
        n = agree = cut = 0
        cand = [0, 0]
        pruned = [0, 0]
        secs = [0.0, 0.0]
        differ = []
        for f in files:
            try:
                fast = hrf.check(str(f), a.model, witnesses=False)
            except hrf.HrfError:
                continue
            if not fast.complete:
                continue
            slow = hrf.check(
                str(f),
                a.model,
                reference=True,
                witnesses=False,
                max_candidates=a.max_candidates,
                max_seconds=a.max_seconds,
            )
            n += 1
            if not slow.complete:
                cut += 1
                continue
            for k, r in enumerate((fast, slow)):
                cand[k] += r.candidates
                pruned[k] += r.pruned
                secs[k] += r.time
            if summary(fast) == summary(slow):
                agree += 1
            else:
                differ.append(f)
        print(
            f"| {folder} | {n} | {cand[0]:,} / {cand[1]:,} | {pruned[0]:,} / {pruned[1]:,} "
            f"| {secs[0]:.3f} / {secs[1]:.3f} | {agree} of {n - cut} | {cut} |"
        )
        for f in differ:
            print(f"  DIFFERENT: {f}")


if __name__ == "__main__":
    main()
