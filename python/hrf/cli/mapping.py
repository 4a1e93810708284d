"""`hrf map`: is a compiler's mapping between axiomatic models sound
(`hrf.mapcheck`)? On the tests given, or a generated family; the smallest
counterexamples first."""

from __future__ import annotations

import argparse
import json
import sys

from .args import limit_args, limits_of_args, workers
from .families import family_args, family_options, say_if_short


def cmd_map(a) -> int:
    from ..errors import HrfError
    from ..generate import generate, litmus_text, size
    from ..litmus import parse
    from ..mapcheck import VERDICTS, check_mapping, check_mappings
    from ..mappings.models import get

    mp = get(a.mapping)
    if a.table:
        print(mp.table())
        return 0
    if a.paths:
        from ..bulk import expand

        tests: list = expand(a.paths)
    else:
        tests = generate(count=a.count, seed=a.seed, **family_options(a))
        say_if_short(a, tests)
    if not tests:
        print("hrf: no tests to map (add orders, scopes or edges, or give tests)", file=sys.stderr)
        return 1
    if a.graph:
        from ..graph import check_graph_path

        check_graph_path(a.graph)
    source, target = a.model or mp.source_model, a.target or mp.target_model
    counts = dict.fromkeys([*VERDICTS, "refused"], 0)
    unsound: list = []
    refused: list = []
    done = 0
    verdicts: list = []
    tty = sys.stderr.isatty()
    for t, r in zip(
        tests, check_mappings(tests, mp, source, target, limits=limits_of_args(a), workers=a.workers), strict=True
    ):
        done += 1
        if tty and done % 200 == 0:
            print(f"\rhrf: {done:,}/{len(tests):,} mapped", end="", file=sys.stderr, flush=True)
        verdicts.append(None if isinstance(r, HrfError) else r.verdict)
        if isinstance(r, HrfError):
            counts["refused"] += 1
            refused.append(f"{getattr(t, 'name', t)}: {r}")
            continue
        counts[r.verdict] += 1
        if a.json:
            print(json.dumps(r.to_json()))
        elif a.paths and len(tests) <= 20:
            print(r.to_text())
        if r.verdict == "unsound":
            unsound.append(t)
    if tty and done >= 200:
        print(file=sys.stderr)
    summary = ", ".join(f"{n:,} {what}" for what, n in counts.items() if n)
    print(f"hrf: {len(tests):,} tests, mapping {mp.name} from {source} to {target}: {summary}", file=sys.stderr)
    for line in refused[:3]:
        print(f"hrf: refused: {line}", file=sys.stderr)
    # the smallest counterexamples, each its source test and its target test
    smallest = sorted((parse(t) for t in unsound), key=size)
    for k, t in enumerate(smallest[: a.show]):
        r = check_mapping(t, mp, source, target, limits=limits_of_args(a))
        print(f"// counterexample {k + 1}: {r.to_text()}")
        print(litmus_text(t))
        print(f"// compiled by {mp.name}:")
        print(r.target_text())
        if k == 0 and a.graph:
            r.render(a.graph)
    if a.isabelle:
        from ..isabelle import export_mapping_isabelle

        sound = [t for t, v in zip(tests, verdicts, strict=True) if v == "sound"]
        if sound:
            ex = export_mapping_isabelle(
                sound, mp, a.isabelle, source, target, max_executions=a.max_executions, limits=limits_of_args(a)
            )
            print(
                f"hrf: {len(ex.tests):,} mapping lemmas written to {ex.out} (isabelle build -D {ex.out})"
                + (f"; {len(ex.skipped):,} sound tests without one, e.g. {ex.skipped[0][2]}" if ex.skipped else ""),
                file=sys.stderr,
            )
        else:
            print("hrf: no test found sound: no mapping lemma written", file=sys.stderr)
    status = 1 if unsound else 0
    if counts["sound"] == 0 and not unsound:
        print("hrf: no test was decided (racy sources, limits or refusals): nothing established", file=sys.stderr)
        status = 2
    return status


def add(sub) -> None:
    m = sub.add_parser(
        "map",
        help="is a mapping between models sound (C11/OpenCL atomics -> PTX)? smallest counterexamples first",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    m.add_argument("paths", nargs="*", help=".litmus files, folders or patterns (default: a generated family)")
    m.add_argument("--mapping", required=True, help="ptx-abi, ptx-abi-trailing, or a .py file defining MAPPING")
    m.add_argument("--model", "-m", default=None, help="the source model (default: the mapping's, opencl)")
    m.add_argument("--target", "-t", default=None, help="the target model (default: the mapping's, ptx-7.5)")
    m.add_argument("--table", action="store_true", help="print the mapping's rows and their sources")
    m.add_argument("--show", type=int, default=1, help="print this many smallest counterexamples")
    m.add_argument("--graph", metavar="OUT", help="draw the smallest counterexample's target execution to OUT")
    m.add_argument("--json", action="store_true", help="one JSON object per test")
    m.add_argument(
        "--isabelle",
        metavar="DIR",
        help="write a theory per sound test into DIR (a new or earlier export's folder): its source race-free and "
        "every target outcome a source outcome, proved by evaluation over every candidate execution",
    )
    m.add_argument(
        "--max-executions",
        type=int,
        default=256,
        help="with --isabelle: a test with more candidate executions (source or target) gets no lemma",
    )
    m.add_argument("--workers", type=workers, default=None)
    family_args(m)
    limit_args(m)
    m.set_defaults(func=cmd_map)
