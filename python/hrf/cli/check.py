"""`hrf check` and `hrf models`: litmus tests under models, herd-style."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable

from ..api import Result, check, check_many
from ..errors import HrfError, InvalidArgument
from ..liveness import PROGRESS
from .args import error_json, inputs, limit_args, limits_of_args, workers


def cmd_check(a) -> int:
    limits = limits_of_args(a)
    if a.progress is not None and not a.liveness:
        print("hrf: --progress is the scheduler of a liveness check: give --liveness too", file=sys.stderr)
        return 2
    if a.liveness:
        return _liveness(a, limits)
    status = 0
    if a.graph:
        if len(a.files) != 1 or len(a.model) != 1:
            print("hrf: --graph draws one test under one model", file=sys.stderr)
            return 2
        from ..graph import check_graph_path

        check_graph_path(a.graph)
    files = inputs(a.files)
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
            _suggest_readers(e, files[0])
            if a.json:
                print(error_json(e, a.files[0], a.model[0]), flush=True)
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


def _suggest_readers(e, path) -> None:
    """After a model's refusal: the built-in models that read the test."""
    from ..errors import HrfError, UnsupportedFeature
    from ..litmus import parse
    from ..models import readers

    if not isinstance(e, UnsupportedFeature):
        return
    try:
        names = readers(parse(path))
    except HrfError:
        return
    if names:
        print(f"hrf: note: models that read it: {', '.join(names)}", file=sys.stderr)


def _liveness(a, limits) -> int:
    """`hrf check --liveness`: each test under each model, one at a time."""
    from ..liveness import liveness_text

    status = 0
    for f in inputs(a.files):
        for m in a.model:
            try:
                r = check(f, m, limits=limits, liveness=True, progress=a.progress)
            except InvalidArgument:
                raise
            except HrfError as e:
                print(f"hrf: {e}", file=sys.stderr)
                status = 1
                continue
            for n in r.notes:
                print(f"hrf: note: {r.path or r.name}: {n}", file=sys.stderr)
            print(json.dumps(r.to_json()) if a.json else liveness_text(r), flush=True)
            if a.graph and r.live is False:
                r.render(a.graph)
    return status


def cmd_models(a) -> int:
    import shutil
    import textwrap

    from ..models import get, names, summary

    if a.cat:
        from ..cat.printer import to_cat

        print(to_cat(get(a.cat)), end="")
        return 0
    width = max(60, min(shutil.get_terminal_size((100, 24)).columns, 120))
    for n in names():  # each model's first sentence, whole, wrapped under its name
        print(
            textwrap.fill(
                summary(n),
                width,
                initial_indent=f"{n:16s} " if len(n) < 16 else f"{n}\n" + " " * 17,
                subsequent_indent=" " * 17,
            )
        )
    return 0


def add(sub) -> None:
    """The `check` verb."""
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
    c.add_argument(
        "--liveness",
        action="store_true",
        help="may a spin loop spin forever (or a barrier wait forever)? Live Yes/No/Unknown, the stuck threads; "
        "--graph draws the witness",
    )
    c.add_argument(
        "--progress",
        choices=list(PROGRESS),
        default=None,
        help="with --liveness: the scheduler's progress model (default fair)",
    )
    limit_args(c)
    c.add_argument("--workers", type=workers, default=None, help="threads for several tests (default: all cores)")
    c.set_defaults(func=cmd_check)


def add_models(sub) -> None:
    """The `models` verb."""
    m = sub.add_parser("models", help="list the models")
    m.add_argument("--cat", metavar="MODEL", help="print a model in herd's cat language (hrf reads it back)")
    m.set_defaults(func=cmd_models)
