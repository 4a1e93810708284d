"""The `hrf` command."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
import warnings
from collections.abc import Iterable

from .api import UNROLL, Limits, Result, check, check_many
from .core import CHECK_DEFAULTS, EXPLORE_DEFAULTS, MAX_WORKERS, version
from .errors import HrfError, HrfWarning, InvalidArgument, make_folder, open_output
from .litmus.printer import format_state


def _whole(least: int):
    """An argparse type: a whole number >= least."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
        if v < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, not {v}")
        return v

    parse.__name__ = "whole number"
    return parse


def _workers(text: str) -> int:
    """An argparse type: a number of workers, 1 to MAX_WORKERS."""
    v = _whole(1)(text)
    if v > MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"at most {MAX_WORKERS}, not {v}")
    return v


def _seconds(text: str) -> float:
    """An argparse type: a finite number of seconds > 0."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds > 0, not {text}")
    return v


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _memory(text: str) -> int:
    """An argparse type: bytes, with an optional K, M, G or T suffix (powers of 1024)."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = t[-1:] if t[-1:] in _UNITS and t[-1:] else ""
    try:
        v = float(t[: len(t) - len(unit)])
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a size such as 4G or 512M, not {text!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"must be a size > 0, not {text}")
    return int(v * _UNITS[unit])


def limits_of_args(a) -> Limits:
    return Limits(
        max_candidates=a.max_candidates,
        max_seconds=a.max_seconds,
        unroll=a.unroll,
        max_memory=a.max_memory,
        thin_air=getattr(a, "thin_air", None),
    )


def _limit_args(p, candidates: bool = True) -> None:
    """--unroll, --max-candidates, --max-seconds and --max-memory."""
    p.add_argument(
        "--unroll", type=_whole(0), default=UNROLL, help=f"loop iterations before a path is cut (default {UNROLL})"
    )
    if candidates:
        p.add_argument(
            "--max-candidates",
            type=_whole(1),
            default=CHECK_DEFAULTS["max_candidates"],
            help=f"candidate executions judged, pruned ones included (default {CHECK_DEFAULTS['max_candidates']})",
        )
    p.add_argument("--max-seconds", type=_seconds, default=None, help="stop (reported as incomplete) after this long")
    p.add_argument(
        "--max-memory",
        type=_memory,
        default=None,
        help="stop (reported as incomplete) past this much resident memory, e.g. 4G "
        "(default: 40%% of physical memory, per process)",
    )
    if candidates:
        g = p.add_mutually_exclusive_group()
        g.add_argument(
            "--no-thin-air",
            dest="thin_air",
            action="store_false",
            default=None,
            help="reads take only values that chains of writes from the initial state compute "
            "(changes the verdicts of models whose axioms admit thin air: c11, opencl, "
            "opencl-rsp and the HRF-relaxed family)",
        )
        g.add_argument(
            "--thin-air",
            dest="thin_air",
            action="store_true",
            default=None,
            help="let reads guess values out of thin air under every model (the default for the models above)",
        )


def _error_json(e: BaseException, path=None, model=None) -> str:
    """An error as a JSON object (what --json prints for a test that fails)."""
    return json.dumps(
        {
            "name": None,
            "path": path,
            "model": model,
            "error": f"{type(e).__name__}: {e}",
            "condition_holds": None,
            "racy": None,
            "complete": False,
        }
    )


def _inputs(files: list) -> list:
    """The tests to check: paths as given; `-` is standard input's text
    (at most once)."""
    if files.count("-") > 1:
        raise InvalidArgument("standard input (-) can be read once")
    if "-" not in files:
        return files
    from .litmus import decode, parse_text

    text = decode(sys.stdin.buffer.read(), "<stdin>")
    return [parse_text(text, "<stdin>") if f == "-" else f for f in files]


def cmd_check(a) -> int:
    limits = limits_of_args(a)
    status = 0
    if a.graph:
        if len(a.files) != 1 or len(a.model) != 1:
            print("hrf: --graph draws one test under one model", file=sys.stderr)
            return 2
        from .graph import check_graph_path

        check_graph_path(a.graph)
    files = _inputs(a.files)
    results: Iterable[Result]
    if len(files) == 1 and len(a.model) == 1:
        one: list[Result] = []
        results = one
        try:
            one.append(check(files[0], a.model[0], limits=limits))
        except InvalidArgument:
            raise
        except HrfError as e:
            print(f"hrf: {e}", file=sys.stderr)
            if a.json:
                print(_error_json(e, a.files[0], a.model[0]), flush=True)
            return 1
    else:
        results = check_many(files, a.model, workers=a.workers, limits=limits)
    for r in results:
        if r.error is not None:
            status = 1
            print(f"hrf: {r.error}", file=sys.stderr)
            if not a.json:
                continue
        for n in r.notes:
            print(f"hrf: note: {r.path or r.name}: {n}", file=sys.stderr)
        if a.json:
            print(json.dumps(r.to_json()))
        elif a.herd_log:
            print(r.to_herd_log(), end="")
        else:
            print(r.to_herd())
        if a.graph:
            r.render(a.graph)
        sys.stdout.flush()
    return status


def cmd_bulk(a) -> int:
    from . import bulk

    try:
        paths = bulk.expand(a.paths)
    except FileNotFoundError as e:
        print(f"hrf: {e}", file=sys.stderr)
        return 2
    if a.scheduler and a.workers:
        print("hrf: bulk: give --workers or --scheduler, not both (the cluster has its own workers)", file=sys.stderr)
        return 2
    fmt = a.format or ("csv" if a.out and a.out.endswith(".csv") else "jsonl")
    if a.out and a.db:
        _not_the_store(a.out, a.db)
    # With a store and no --out, the rows go to the store only.
    out = open_output(a.out, newline="") if a.out else (None if a.db else sys.stdout)
    total = len(paths) * len(a.model)
    progress = bulk.Progress(total, enabled=None if not a.no_progress else False)
    store = None
    logs: dict = {}
    if a.herd_log:
        a.herd_log = make_folder(a.herd_log)
        logs = {name: open_output(path) for name, path in bulk.herd_log_paths(a.herd_log, a.model).items()}
    if a.db:
        from .store import Store

        store = Store(a.db)
    try:
        summary = bulk.run(
            paths,
            a.model,
            out=out,
            fmt=fmt,
            workers=a.workers,
            limits=limits_of_args(a),
            progress=progress,
            store=store,
            command=" ".join(["hrf", *sys.argv[1:]]),
            scheduler=a.scheduler,
            herd_logs=logs or None,
        )
    finally:
        for f in logs.values():
            f.close()
        if a.out and out is not None:
            out.close()
        if store is not None:
            store.close()
    print(summary.table(), file=sys.stdout if (a.out or a.db) else sys.stderr)
    for name, f in logs.items():
        print(f"herd log of {name}: {f.name}", file=sys.stderr)
    return 130 if summary.interrupted else 0


def _not_the_store(out: str, db: str) -> None:
    """Refuse an output path that is the results store itself (writing rows
    there would destroy it)."""
    same = os.path.realpath(out) == os.path.realpath(db)
    if not same and os.path.exists(out) and os.path.exists(db):
        with contextlib.suppress(OSError):
            same = os.path.samefile(out, db)
    if same:
        raise InvalidArgument(f"--out {out} is the results store --db {db}: writing rows there would destroy it")


def cmd_runs(a) -> int:
    """hrf runs list | show RUN | diff A B, over a results store."""
    from .store import Store, export

    want = {"list": 0, "show": 1, "diff": 2}[a.action]
    if len(a.runs) != want:
        print(f"hrf: runs {a.action} takes {want} run number(s), not {len(a.runs)} (hrf runs list)", file=sys.stderr)
        return 2
    if not os.path.exists(a.db):
        print(f"hrf: {a.db}: no results store here (hrf bulk ... --db {a.db} makes one)", file=sys.stderr)
        return 1
    with Store(a.db) as st:
        if a.action == "list":
            head = f"{'run':>4s}  {'model':28s} {'hrf':8s} {'tests':>8s} {'Ok':>7s} {'No':>7s} {'racy':>7s} "
            head += f"{'incompl.':>8s} {'error':>6s}  limits"
            print(head)
            for run, c in st.runs():
                try:
                    lim = json.loads(run.limits)
                    short = ", ".join(f"{k}={v}" for k, v in lim.items() if v is not None and k != "reference")
                except (ValueError, AttributeError):
                    short = f"(unreadable: {run.limits!r:.40})"
                print(
                    f"{run.run:4d}  {run.model:28s} {run.version:8s} {c['tests']:8d} {c['Ok']:7d} {c['No']:7d} "
                    f"{c['racy']:7d} {c['incomplete']:8d} {c['error']:6d}  {short}"
                )
            return 0
        if a.action == "show":
            run = st.get_run(a.runs[0])
            if a.out:
                _not_the_store(a.out, a.db)
            rows = st.rows_list(run)
            if a.out:
                n = export(rows, a.out, a.format)
                print(f"{n} rows of run {run.run} ({run.model}) written to {a.out}")
                return 0
            for r in rows:
                print(json.dumps(r))
            return 0
        a_run, b_run = st.get_run(a.runs[0]), st.get_run(a.runs[1])
        d = st.diff(a_run, b_run)
        if a.json:
            print(json.dumps({"a": a_run.run, "b": b_run.run, **d}))
            return 1 if d["differ"] else 0
        print(
            f"run {a_run.run}: {a_run.model} (hrf {a_run.version})    run {b_run.run}: {b_run.model} (hrf {b_run.version})"
        )
        if a_run.limits != b_run.limits:
            print(f"  limits differ: {a_run.limits}  vs  {b_run.limits}")
        print(
            f"{len(d['differ'])} tests differ, {d['same']} agree; {d['only_a']} only in run {a_run.run}, "
            f"{d['only_b']} only in run {b_run.run}"
        )
        shown = d["differ"] if a.max is None else d["differ"][: a.max]
        for x in shown:
            print(f"\n{x['path'] or x['test']}  (size {x['size']}; differs in {', '.join(x['differs_in'])})")
            for side, run in (("a", a_run), ("b", b_run)):
                v = x[side]
                outs = "; ".join(" ".join(f"{k}={val}" for k, val in o.items()) for o in v["outcomes"])
                flags = ",".join(v["flags"]) or "-"
                print(f"  run {run.run} {run.model:24s} {v['verdict']:10s} racy={v['racy']} flags={flags}  {{{outs}}}")
        if len(shown) < len(d["differ"]):
            print(f"\n... {len(d['differ']) - len(shown)} more (--max N, or --json for all)")
        return 1 if d["differ"] else 0


def _family(a) -> dict:
    # comma-separated lists, checked by hrf.generate (InvalidArgument: exit 2)
    return dict(
        max_edges=a.max_edges,
        max_threads=a.max_threads,
        orders=a.orders,
        scopes=a.scopes,
        remote=a.remote,
        regions=a.regions,
        cycle=a.cycle,
        **({"edges": a.safe} if a.safe is not None else {}),  # `--safe ''` is no edges, refused
        relax=() if a.relax is None else a.relax,
        mixed=not a.no_mixed,
    )


def _say_if_short(a, tests: list) -> None:
    """A family smaller than the count asked for gives all of it: say so
    (with what would make it larger), rather than write fewer in silence."""
    if a.count is not None and len(tests) < a.count:
        print(
            f"hrf: the family has {len(tests):,} tests, fewer than the {a.count:,} asked for: all of them "
            f"(a larger family: raise --max-edges, now {a.max_edges}, or --max-threads, now {a.max_threads}, "
            "or add orders, scopes or regions)",
            file=sys.stderr,
        )


def cmd_generate(a) -> int:
    from .generate import generate, write_tests

    tests = generate(count=a.count, seed=a.seed, **_family(a))
    _say_if_short(a, tests)
    if a.out:
        write_tests(tests, a.out)
        print(f"{len(tests)} tests written to {a.out}", file=sys.stderr)
    else:
        for t in tests:
            print(t.name)
    return 0


def cmd_compare(a) -> int:
    from .compare import compare
    from .generate import generate
    from .litmus.printer import to_litmus

    if len(a.model) != 2:
        print("hrf: compare takes exactly two --model", file=sys.stderr)
        return 2
    tests = generate(count=a.count, seed=a.seed, **_family(a))
    _say_if_short(a, tests)
    diffs = compare(tests, a.model[0], a.model[1], workers=a.workers, limits=limits_of_args(a))
    print(diffs.summary(a.model[0], a.model[1]), file=sys.stderr)
    for what, left in (("cut short by a limit", diffs.incomplete), ("refused", diffs.refused)):
        for name, why in left[:3]:
            print(f"hrf: {what}: {name}: {why}", file=sys.stderr)
        if len(left) > 3:
            print(f"hrf: ... {len(left) - 3} more {what}", file=sys.stderr)
    status = 0
    if not tests:
        print("hrf: the family is empty: nothing was compared (add orders, scopes or edges)", file=sys.stderr)
        status = 1
    elif not diffs and diffs.compared == 0:
        print(
            f"hrf: the comparison established nothing: no test of the {len(tests):,} was decided under both models",
            file=sys.stderr,
        )
        status = 1
    elif not diffs and not diffs.established:
        print(
            f"hrf: none of the {diffs.compared:,} tests decided under both models separates them; the "
            f"{len(diffs.incomplete) + len(diffs.refused):,} others were not compared"
            + (" (raise the limits for those cut short)" if diffs.incomplete else ""),
            file=sys.stderr,
        )
        status = 1
    elif not diffs:
        print(
            f"hrf: no test of this family separates them; a larger family may (--max-edges, now {a.max_edges}; "
            f"--max-threads, now {a.max_threads}; --orders, --scopes)",
            file=sys.stderr,
        )
    for d in diffs[: a.show]:
        print(to_litmus(d.test))
        for r in (d.a, d.b):
            print(f"// {r.model}: condition {'Ok' if r.condition_holds else 'No'}, {'racy' if r.racy else 'race-free'}")
        print()
    return status


def cmd_models(a) -> int:
    from .models import get, names

    if a.cat:
        from .cat.printer import to_cat

        print(to_cat(get(a.cat)), end="")
        return 0
    for n in names():
        doc = (get(n).doc or "").strip().splitlines()
        print(f"{n:16s} {doc[0] if doc else ''}")
    return 0


def cmd_compile(a) -> int:
    from .mappings import compile_scheme, get

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
    from .machine import ExploreProgress, explore, parse_machine_file
    from .mappings import compile_scheme

    if a.graph and (len(a.files) != 1 or len(a.writeback) != 1):
        print("hrf: --graph draws one test under one write-back policy (--writeback fifo or any)", file=sys.stderr)
        return 2
    if a.graph:
        from .graph import check_graph_path

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
    from .machine import ExploreProgress
    from .soundness import soundness

    if a.graph and len(a.files) != 1:
        print("hrf: --graph draws the counterexample of one test", file=sys.stderr)
        return 2
    if a.graph:
        from .graph import check_graph_path

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


def cmd_export(a) -> int:
    from .isabelle import export_isabelle
    from .machine import ExploreProgress

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


def herd_spellings(argv: list[str]) -> list[str]:
    """herd's option spellings, where they do not clash with hrf's: `-model
    M` is `--model M`, `-variant V` is `--variant V`; `-initwrites true` is what hrf always does (initial
    values are writes), so it is dropped, and `-initwrites false` refused."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-model", "-variant"):
            out.append("-" + arg)
        elif arg == "-initwrites":
            value = argv[i + 1] if i + 1 < len(argv) else ""
            if value not in ("true", "false"):
                raise InvalidArgument(f"-initwrites takes true or false, not {value!r}")
            if value == "false":
                raise InvalidArgument(
                    "-initwrites false: hrf always makes the initial values writes (herd's -initwrites true)"
                )
            i += 2
            continue
        else:
            out.append(arg)
        i += 1
    return out


def _notes(python_prints):
    """A `warnings.showwarning` that prints hrf's own warnings as a note on
    standard error, and others as Python prints them."""

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        if issubclass(category, HrfWarning):
            print(f"hrf: note: {message}", file=sys.stderr)
        else:
            python_prints(message, category, filename, lineno, file, line)

    return show


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="hrf", description="Scoped GPU memory models: check litmus tests.")
    p.add_argument("--version", action="version", version=f"hrf {version()}")
    sub = p.add_subparsers(dest="cmd", required=True)

    c = sub.add_parser("check", help="check litmus tests under models (herd-style output)")
    c.add_argument("files", nargs="+", help=".litmus files (- reads one test from standard input)")
    c.add_argument(
        "--model",
        "-m",
        action="append",
        required=True,
        help="model name, a .cat file (herd's cat language) or a .py file defining MODEL (repeatable); "
        "`hrf models` lists the names",
    )
    c.add_argument("--json", action="store_true", help="one JSON object per line")
    c.add_argument(
        "--herd-log",
        action="store_true",
        help="write a log herd's tools read (mcompare7, msum7): herd's lines only, ?? where a limit left no verdict",
    )
    c.add_argument("--graph", metavar="OUT", help="draw an execution (a flagged one, else the first) to OUT.dot/.svg")
    _limit_args(c)
    c.add_argument("--workers", type=_workers, default=None, help="threads for several tests (default: all cores)")
    c.set_defaults(func=cmd_check)

    b = sub.add_parser("bulk", help="check many tests under several models in parallel")
    b.add_argument("paths", nargs="+", help=".litmus files, folders (searched recursively) or glob patterns")
    b.add_argument(
        "--model", "-m", action="append", required=True, help="model name or a .py file defining MODEL (repeatable)"
    )
    b.add_argument("--out", "-o", help="write rows here (.jsonl or .csv); default: JSON lines on stdout")
    b.add_argument("--format", choices=["jsonl", "csv"], help="row format (default from --out's suffix)")
    b.add_argument("--workers", type=_workers, default=None, help="worker processes (default: all cores)")
    _limit_args(b)
    b.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    b.add_argument(
        "--db",
        metavar="FILE",
        help="keep the results in this SQLite results store (made if missing); a rerun skips what it holds",
    )
    b.add_argument(
        "--herd-log",
        metavar="DIR",
        help="also write one herd log per model into DIR (<model>.log), for herd's tools (mcompare7, msum7)",
    )
    b.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="check on a Dask cluster: its scheduler (tcp://host:8786 or a scheduler file .json), "
        "or local:N for N worker processes here (pip install 'hrf[cluster]')",
    )
    b.set_defaults(func=cmd_bulk)

    ru = sub.add_parser(
        "runs",
        help="the runs of a results store: list them, show one's rows, diff two",
        description="A run is one model (by its IR) under one hrf version and one set of limits. "
        "`list` counts each run's verdicts; `show RUN` writes its rows (JSON lines, or -o FILE as .csv, "
        ".jsonl or .parquet); `diff A B` lists the tests both runs hold whose verdict, race, flags or "
        "outcomes differ, smallest first (exit 1 when some do).",
    )
    ru.add_argument("action", choices=["list", "show", "diff"])
    ru.add_argument("runs", nargs="*", help="run numbers (show: one, diff: two)")
    ru.add_argument("--db", default="runs.sqlite", help="the results store (default: runs.sqlite)")
    ru.add_argument("--out", "-o", help="show: write the rows here (.csv, .jsonl, .parquet)")
    ru.add_argument("--format", choices=["csv", "jsonl", "parquet"], help="show: row format (default from --out)")
    ru.add_argument("--json", action="store_true", help="diff: one JSON object with every difference")
    ru.add_argument("--max", type=_whole(0), default=20, help="diff: differing tests to print (default 20)")
    ru.set_defaults(func=cmd_runs)

    def family_args(p):
        p.add_argument(
            "--count", type=_whole(1), default=None, help="a seeded sample of this many (None: the whole family)"
        )
        p.add_argument("--seed", type=int, default=0, help="the sample's seed")
        p.add_argument("--max-edges", type=_whole(2), default=4, help="longest cycle (edges)")
        p.add_argument("--max-threads", type=_whole(1), default=3, help="most threads of a test")
        p.add_argument("--orders", default="na,sc", help="access annotations: na and atomic orders")
        p.add_argument("--scopes", default="wg,dev", help="the scopes atomics may name")
        p.add_argument("--remote", action="store_true", help="also remote-promoted atomics")
        p.add_argument("--regions", default="global", help="global, local or global,local (every mix)")
        p.add_argument(
            "--cycle",
            default=None,
            help="one cycle instead of the family: diy's edges ('Rfe PodRR Fre PodWW'; also FencedWR, "
            "FenceRel/Acq/AR/ScdXY, DpDatadW, DpCtrldR/W, DpAddrdR/W) or a name (MP, SB, LB, 2+2W, R, S, WRC, RWC, WRW+2W, "
            "IRIW, ISA2)",
        )
        p.add_argument(
            "--safe",
            default=None,
            help="the edges cycles are built from, as diy's -safe (default: Rfe,Fre,Coe,PodWW,PodWR,PodRW,PodRR)",
        )
        p.add_argument(
            "--relax",
            default=None,
            help="diy's -relax: for each edge r of this list, the cycles of r and the --safe edges that contain r",
        )
        p.add_argument(
            "--no-mixed",
            action="store_true",
            help="no test accesses a location both atomically and not (na beside an atomic annotation)",
        )

    g = sub.add_parser(
        "generate",
        help="litmus families from cycles of relations (diy-style)",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    family_args(g)
    g.add_argument("--out", help="write .litmus files to this folder (None: print their names)")
    g.set_defaults(func=cmd_generate)

    c = sub.add_parser(
        "compare",
        help="generated tests on which two models differ, smallest first",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    family_args(c)
    c.add_argument(
        "--model",
        "-m",
        action="append",
        required=True,
        help="the two models to compare (names or .py files defining MODEL)",
    )
    c.add_argument("--show", type=_whole(0), default=3, help="print this many differences")
    c.add_argument("--workers", type=_workers, default=None)
    _limit_args(c)
    c.set_defaults(func=cmd_compare)

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
            type=_whole(1),
            default=EXPLORE_DEFAULTS["max_states"],
            help=f"stop (reported as incomplete) past this many machine states (default {EXPLORE_DEFAULTS['max_states']})",
        )
        p.add_argument("--workers", type=_workers, default=None, help="threads (default: all cores)")

    k = sub.add_parser("compile", help="compile a source test to the GPU machine with a scheme")
    k.add_argument("files", nargs="*", help=".litmus files")
    k.add_argument(
        "--scheme",
        "-s",
        required=True,
        help="rsp-old, rsp-new-slides, rsp-new, hrf-cache, or a .py file defining SCHEME",
    )
    k.add_argument("--table", action="store_true", help="print the scheme's rows and their sources")
    k.add_argument("--unroll", type=_whole(0), default=2)
    k.set_defaults(func=cmd_compile)

    e = sub.add_parser("explore", help="explore every behaviour of a GPU_MACHINE test")
    e.add_argument("files", nargs="+", help="GPU_MACHINE .litmus files (source tests with --scheme)")
    e.add_argument("--scheme", "-s", help="compile source litmus tests with this scheme first (as `hrf compile`)")
    machine_args(e, "fifo")
    _limit_args(e, candidates=False)
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
        help="rsp-old, rsp-new-slides, rsp-new, hrf-cache, or a .py file defining SCHEME",
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
    _limit_args(s, candidates=False)
    s.set_defaults(func=cmd_soundness)

    x = sub.add_parser("export", help="write Isabelle theories: executions, model definitions, mapping lemmas")
    x.add_argument("format", choices=["isabelle"])
    x.add_argument("files", nargs="*", help=".litmus files: one theory per test and model")
    x.add_argument("--model", "-m", action="append", help="model (repeatable; default sc)")
    x.add_argument("--scheme", "-s", action="append", help="also a theory per compilation scheme (repeatable)")
    x.add_argument("--out", "-o", required=True, help="output folder (a session: base theories, ROOT)")
    x.add_argument("--max-executions", type=_whole(1), default=64, help="executions per theory (default 64)")
    x.add_argument(
        "--no-runs",
        dest="runs",
        action="store_false",
        help="with --scheme: do not run the tests on the machine (by default each test a scheme compiles gets "
        "a theory of machine runs, one per outcome found)",
    )
    x.add_argument(
        "--max-states",
        type=_whole(1),
        default=1_000_000,
        help="machine states explored per test, scheme and write-back policy for the runs (default 1000000)",
    )
    x.add_argument(
        "--max-proof-states",
        type=_whole(0),
        default=20_000,
        help="where the scheme is sound on a test: prove in Isabelle that the machine has no other outcome, "
        "when the unreduced machine has at most this many states (Isabelle enumerates them; default 20000, "
        "0: never)",
    )
    _limit_args(x)
    x.set_defaults(func=cmd_export)

    m = sub.add_parser("models", help="list the models")
    m.add_argument("--cat", metavar="MODEL", help="print a model in herd's cat language (hrf reads it back)")
    m.set_defaults(func=cmd_models)

    for verb in ("check", "bulk", "compare", "soundness", "export"):
        sub.choices[verb].add_argument(
            "--catdir",
            "-I",
            action="append",
            default=[],
            metavar="DIR",
            help="a folder searched for the files a .cat model includes (repeatable; herd's -I)",
        )
        sub.choices[verb].add_argument(
            "--variant",
            action="append",
            default=[],
            metavar="NAME",
            help='a variant a .cat model tests with `if "NAME"` (repeatable; herd\'s -variant)',
        )
        sub.choices[verb].add_argument(
            "--cas-writeback",
            choices=["on", "off"],
            default=None,
            help="for a .cat model: whether a failing compare-exchange writes back the value it read "
            "(default: on unless the file says withoutcaswriteback; herd's OpenCL of 2015 does, "
            "the RSP artifact's herd does not)",
        )

    try:
        argv = herd_spellings(sys.argv[1:] if argv is None else list(argv))
    except InvalidArgument as e:
        print(f"hrf: {e}", file=sys.stderr)
        return 2
    a = p.parse_args(argv)
    # the .cat options of this command (reset, so one call's do not outlive it in a process)
    from .models import CAS_WRITEBACK, CATDIR, VARIANTS

    for name in ("stdout", "stderr"):  # started with it closed: what would go there goes nowhere
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - for the process's life
    saved = CATDIR[:], VARIANTS[:], CAS_WRITEBACK[:]  # given back on return (main may run in a longer process)
    CATDIR[:] = getattr(a, "catdir", None) or []
    VARIANTS[:] = [v for arg in getattr(a, "variant", None) or [] for v in arg.split(",") if v]
    CAS_WRITEBACK[:] = [a.cas_writeback == "on"] if getattr(a, "cas_writeback", None) else []
    if getattr(a, "writeback", 0) is None:
        a.writeback = ["fifo", "any"] if a.cmd == "soundness" else ["fifo"]
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _notes(warnings.showwarning)
            return _flushed(a.func(a))
    except BrokenPipeError:  # e.g. `hrf check ... | head`, or a closed standard output
        _quiet_stdout()
        return 0
    except KeyboardInterrupt:
        print("hrf: interrupted", file=sys.stderr)
        return 130
    except InvalidArgument as e:
        print(f"hrf: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # standard output on a full device, a closed one
        _quiet_stdout()
        print(f"hrf: cannot write the output: {e.strerror or e}", file=sys.stderr)
        return 1
    except HrfError as e:
        print(f"hrf: {e}", file=sys.stderr)
        return 1
    finally:
        CATDIR[:], VARIANTS[:], CAS_WRITEBACK[:] = saved


def _flushed(status: int) -> int:
    """The status, once what was printed has reached standard output (a
    full device fails here, inside main, not at exit)."""
    sys.stdout.flush()
    return status


def _quiet_stdout() -> None:
    """Standard output can take nothing more: point it at /dev/null so
    that Python's flush at exit says nothing more."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
