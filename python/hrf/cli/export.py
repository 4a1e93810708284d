"""`hrf export isabelle`: theories of executions, models and schemes."""

from __future__ import annotations

import sys

from .args import limit_args, limits_of_args, whole


def cmd_family(a) -> int:
    """--family: a scheme's soundness on every program of two threads with
    one operation each (hrf.isabelle.export_scheme_family)."""
    from ..isabelle import export_scheme_family

    if a.files or not a.scheme or len(a.scheme) != 1 or (a.model and len(a.model) != 1):
        print(
            "hrf export isabelle --family: give one --scheme (and at most one --model), no litmus tests",
            file=sys.stderr,
        )
        return 2
    r = export_scheme_family(
        a.scheme[0],
        a.out,
        model=a.model[0] if a.model else None,
        locations=a.locations,
        max_states=a.max_states,
        max_proof_states=a.max_proof_states,
    )
    print(
        f"{r.out / (r.theory + '.thy')}: soundness on {len(r.members)} race-free programs "
        f"({len(r.racy)} racy, {len(r.left_out)} left out)"
    )
    for name in r.counterexamples:
        print(
            f"{r.out / (name + '.thy')}: a counterexample: the machine's run to an outcome the source model does not allow"
        )
    print(f"{r.out / 'ROOT'}: the session (isabelle build -D {r.out})")
    for name, why in r.left_out:
        print(f"hrf: left out {name}: {why}", file=sys.stderr)
    return 0


def cmd_export(a) -> int:
    from ..isabelle import export_isabelle
    from ..machine import ExploreProgress

    if a.family:
        return cmd_family(a)
    if not a.files and not a.scheme:
        print("hrf export isabelle: give litmus tests (with --model) or --scheme", file=sys.stderr)
        return 2
    r = export_isabelle(
        a.files,
        a.model or ["sc"],
        a.out,
        schemes=a.scheme,
        max_executions=a.max_executions,
        runs=a.runs,
        max_states=a.max_states,
        max_proof_states=a.max_proof_states,
        limits=limits_of_args(a),
        progress=ExploreProgress(),  # a status line on stderr while the machine runs, on a terminal
    )
    for e in r.tests:
        print(
            f"{e.path}: {e.exported} of {e.candidates} candidate executions"
            + ("" if e.complete else " (enumeration cut short by a limit)")
        )
    print(f"{r.out / 'ROOT'}: session of {len(r.theories)} theories (isabelle build -D {r.out})")
    for n in r.notes:
        print(f"hrf: note: {n}", file=sys.stderr)
    for test, model, why in r.skipped:
        print(f"hrf: skipped {test} under {model}: {why}", file=sys.stderr)
    if r.runs:
        print(f"{len(r.runs)} theories of machine runs: {', '.join(r.runs)}")
    if r.closures:
        print(f"{len(r.closures)} no-other-outcome theorems: {', '.join(r.closures)}")
    return 0


def add(sub) -> None:
    """The `export` verb."""
    x = sub.add_parser("export", help="write Isabelle theories: executions, model definitions, mapping lemmas")
    x.add_argument("format", choices=["isabelle"])
    x.add_argument("files", nargs="*", help=".litmus files: one theory per test and model")
    x.add_argument("--model", "-m", action="append", help="model (repeatable; default sc)")
    x.add_argument("--scheme", "-s", action="append", help="also a theory per compilation scheme (repeatable)")
    x.add_argument("--out", "-o", required=True, help="output folder (a session: base theories, ROOT)")
    x.add_argument("--max-executions", type=whole(1), default=64, help="executions per theory (default 64)")
    x.add_argument(
        "--no-runs",
        dest="runs",
        action="store_false",
        help="with --scheme: do not run the tests on the machine (by default each test a scheme compiles gets "
        "a theory of machine runs, one per outcome found)",
    )
    x.add_argument(
        "--max-states",
        type=whole(1),
        default=1_000_000,
        help="machine states explored per test, scheme and write-back policy for the runs (default 1000000)",
    )
    x.add_argument(
        "--max-proof-states",
        type=whole(0),
        default=20_000,
        help="where the scheme is sound on a test: prove in Isabelle that the machine has no other outcome, "
        "when the unreduced machine has at most this many states (Isabelle enumerates them; default 20000, "
        "0: never)",
    )
    x.add_argument(
        "--family",
        action="store_true",
        help="with one --scheme: its soundness on every program of two threads with one operation each, "
        "proved in Isabelle program by program (--model: the source model, default the scheme's)",
    )
    x.add_argument(
        "--locations", type=whole(1), default=2, help="with --family: programs over 1 or 2 locations (default 2)"
    )
    limit_args(x)
    x.set_defaults(func=cmd_export)
