"""`hrf compile`, `hrf explore` and `hrf soundness`: the GPU machine of
[RSP15] and compilation schemes."""

from __future__ import annotations

import json
import sys

from ..api import Limits
from ..core import EXPLORE_DEFAULTS
from ..errors import HrfError
from ..litmus.printer import format_state
from .args import limit_args, whole, workers


def cmd_compile(a) -> int:
    from ..mappings import compile_scheme, get

    if a.table:
        print(get(a.scheme).table())
        return 0
    status = 0
    for f in a.files:
        try:
            print(compile_scheme(f, a.scheme, unroll=a.unroll).format(), end="", flush=True)
        except HrfError as e:
            print(f"hrf: {e}", file=sys.stderr, flush=True)
            status = 1
    return status


def cmd_explore(a) -> int:
    from ..machine import ExploreProgress, explore, parse_machine_file
    from ..mappings import compile_scheme

    if a.graph and (len(a.files) != 1 or len(a.writeback) != 1):
        print("hrf: --graph draws one test under one write-back policy (--writeback fifo or any)", file=sys.stderr)
        return 2
    if a.graph:
        from ..graph import check_graph_path

        check_graph_path(a.graph)
    status = 0
    progress = ExploreProgress()  # a status line on stderr, when it is a terminal
    for f in a.files:
        try:
            # read (or compile) once, explore under each policy
            prog = compile_scheme(f, a.scheme, unroll=a.unroll) if a.scheme else parse_machine_file(f)
            for wb in a.writeback:
                r = explore(
                    prog,
                    writeback=wb,
                    max_states=a.max_states,
                    max_seconds=a.max_seconds,
                    max_memory=a.max_memory,
                    workers=a.workers,
                    reduce=not a.literal,
                    progress=progress,
                )
                if a.json:
                    print(json.dumps(r.to_json()), flush=True)
                else:
                    print(r.to_text())
                if a.graph:
                    r.render(a.graph)
                if a.trace and not a.json:
                    for o, h, tr in zip(r.outcomes, r.holds, r.traces, strict=False):
                        if not r.program.condition or h:
                            print("Trace to " + format_state(o))
                            print("\n".join("  " + s for s in tr))
                status |= 0 if r.complete else 2
        except HrfError as e:
            # a bad test does not stop the others
            print(f"hrf: {e}", file=sys.stderr, flush=True)
            status |= 1
    return status


def cmd_soundness(a) -> int:
    from ..machine import ExploreProgress
    from ..soundness import soundness

    if a.graph and len(a.files) != 1:
        print("hrf: --graph draws the counterexample of one test", file=sys.stderr)
        return 2
    if a.graph:
        from ..graph import check_graph_path

        check_graph_path(a.graph)
    status = 0
    progress = ExploreProgress()  # a status line on stderr, when it is a terminal
    counts = dict.fromkeys(["sound", "unsound", "racy source (skipped)", "not decided (a limit)", "not compiled"], 0)
    for f in a.files:
        try:
            r = soundness(
                f,
                a.scheme,
                a.model,
                writeback=a.writeback,
                limits=Limits(unroll=a.unroll, max_seconds=a.max_seconds, max_memory=a.max_memory),
                max_states=a.max_states,
                max_seconds=a.max_seconds,
                workers=a.workers,
                progress=progress,
            )
        except HrfError as e:
            # one test the scheme or model cannot take does not stop the others
            print(f"hrf: {e}", file=sys.stderr, flush=True)
            status |= 1
            counts["not compiled"] += 1
            continue
        print(json.dumps(r.to_json()) if a.json else r.to_text(), flush=True)
        kind = {
            True: "sound",
            False: "unsound",
            None: "racy source (skipped)" if r.racy_source else "not decided (a limit)",
        }[r.sound]
        counts[kind] += 1
        status |= {"unsound": 1, "not decided (a limit)": 2}.get(kind, 0)
        if a.graph:
            if r.counterexamples:
                r.render(a.graph)
            else:
                print(f"hrf: note: {r.name}: no counterexample, nothing drawn to {a.graph}", file=sys.stderr)
    if len(a.files) > 1:
        print(
            f"hrf: {len(a.files)} tests, scheme {a.scheme}: "
            + ", ".join(f"{n} {what}" for what, n in counts.items() if n),
            file=sys.stderr,
        )
    return status


def machine_args(p, default_writeback):
    p.add_argument(
        "--writeback",
        action="append",
        choices=["fifo", "any"],
        default=None,
        help=f"machine write-back policy (repeatable; default {default_writeback})",
    )
    p.add_argument(
        "--max-states",
        type=whole(1),
        default=EXPLORE_DEFAULTS["max_states"],
        help=f"stop (reported as incomplete) past this many machine states (default {EXPLORE_DEFAULTS['max_states']})",
    )
    p.add_argument("--workers", type=workers, default=None, help="threads (default: all cores)")


def add(sub) -> None:
    """The `compile`, `explore` and `soundness` verbs."""
    k = sub.add_parser("compile", help="compile a source test to the GPU machine with a scheme")
    k.add_argument("files", nargs="*", help=".litmus files")
    k.add_argument(
        "--scheme",
        "-s",
        required=True,
        help="rsp-old, rsp-new-slides, rsp-new, hrf-cache, hrf-cache-locked, or a .py file defining SCHEME",
    )
    k.add_argument("--table", action="store_true", help="print the scheme's rows and their sources")
    k.add_argument("--unroll", type=whole(0), default=2)
    k.set_defaults(func=cmd_compile)

    e = sub.add_parser("explore", help="explore every behaviour of a GPU_MACHINE test")
    e.add_argument("files", nargs="+", help="GPU_MACHINE .litmus files (source tests with --scheme)")
    e.add_argument("--scheme", "-s", help="compile source litmus tests with this scheme first (as `hrf compile`)")
    machine_args(e, "fifo")
    limit_args(e, candidates=False)
    e.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per test and write-back policy (outcomes "
        "with their traces, deadlocks, faults, states, phases)",
    )
    e.add_argument(
        "--trace", action="store_true", help="print a shortest trace to each outcome (satisfying the condition)"
    )
    e.add_argument(
        "--graph",
        metavar="OUT",
        help="draw a shortest trace (to the first outcome satisfying the "
        "condition, else to a deadlock, else to the first outcome) as a sequence chart to OUT.dot/.svg",
    )
    e.add_argument("--literal", action="store_true", help="no state-space reduction (the reference machine)")
    e.set_defaults(func=cmd_explore)

    s = sub.add_parser("soundness", help="is a compilation scheme sound for tests? counterexamples with traces")
    s.add_argument("files", nargs="+", help="source .litmus files")
    s.add_argument(
        "--scheme",
        "-s",
        required=True,
        help="rsp-old, rsp-new-slides, rsp-new, hrf-cache, hrf-cache-locked, or a .py file defining SCHEME",
    )
    s.add_argument(
        "--model",
        "-m",
        default=None,
        help="source model, a name or a .py file defining MODEL (default: the scheme's, e.g. opencl-rsp)",
    )
    s.add_argument("--json", action="store_true")
    s.add_argument(
        "--graph", metavar="OUT", help="draw the first counterexample's trace as a sequence chart to OUT.dot/.svg"
    )
    machine_args(s, "both")
    limit_args(s, candidates=False)
    s.set_defaults(func=cmd_soundness)
