"""`hrf.check`: one test under one model."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from . import models as _models
from .dsl import Model
from .errors import LimitExceeded
from .limits import (
    Limits,
    limits_from,
    on_limit_mode,
)
from .litmus import parse
from .program import Compiled, compile_test

if TYPE_CHECKING:  # the IR's types, for annotations only (imported lazily: cold start)
    pass
from .results import Result, run_core


def vector_orders(m: Model, limits: Limits) -> str:
    """How a check compiles a vector access's orders under model `m`
    (`compile_test`): the model's reduction, unless the reference enumerator runs."""
    return "sync" if m.vector_orders_sync_only and not limits.reference else "all"


def prepare(test, model, limits: Limits) -> tuple[Compiled, Model]:
    from .litmus.translate import read_by, translation_note

    t = parse(test)
    m = _models.get(model)
    u = read_by(t, m)
    comp = compile_test(u, limits.unroll, m.cas_writeback, vector_orders=vector_orders(m, limits))
    comp.read_note = translation_note(t, u)
    return comp, m


def check(
    test,
    model="sc",
    *,
    limits: Limits | None = None,
    on_limit: str = "result",
    liveness: bool = False,
    progress: str | None = None,
    **kw,
) -> Result:
    """Check a litmus test (path, text or parsed Test) under a model.

    Keyword arguments other than `limits` and `on_limit` set fields of
    `Limits` (e.g. `unroll=3`, `max_seconds=10`). With `on_limit="raise"` a
    result cut short by a limit raises `LimitExceeded` (holding the result).
    With `liveness=True`: whether a spin loop may spin forever under the
    `progress` model (fair, hsa, obe, hsa-obe, lobe, unfair; `hrf.liveness`),
    in `Result.live` and `Result.stuck`."""
    limits = limits_from(limits, kw)
    on_limit_mode(on_limit)
    if liveness:
        from .liveness import check_liveness

        r = check_liveness(test, model, progress, limits)
        if r.limit is not None and on_limit == "raise":
            raise LimitExceeded(r.limit["which"], r.limit["detail"], r)
        return r
    if progress is not None:
        from .errors import InvalidArgument

        raise InvalidArgument("progress= is the scheduler of a liveness check: give liveness=True too")
    comp, m = prepare(test, model, limits)
    return check_compiled(comp, m, limits, on_limit)


def check_compiled(
    comp: Compiled, model: Model, limits: Limits, on_limit: str = "result", *, eager: bool = False
) -> Result:
    """`check` of an already compiled test (`hrf.program.compile_test`).
    Witness executions asked for are built on first use (a flag's events,
    `witness`, `to_dot`, `to_json`: `Result.build_witnesses` checks again),
    as `check_many` does: a test with thousands of outcomes (C11's fig6 has
    3,256) spent more time building them than checking. With `eager`,
    built at once."""
    lazy, run = (None, limits) if eager else witnesses_later(limits)
    r = run_core(comp, model, run, lazy)
    if r.error is not None:
        raise r.error
    if r.limit is not None and on_limit == "raise":
        raise LimitExceeded(r.limit["which"], r.limit["detail"], r)
    return r


def witnesses_later(limits: Limits) -> tuple[Limits | None, Limits]:
    """(the limits to build witnesses with on first use, or None; the limits
    to check with now): witnesses asked for are left to first use
    (`Result.build_witnesses`), except with `keep_all`, whose kept
    executions come with the check."""
    if limits.witnesses and not limits.keep_all:
        return limits, replace(limits, witnesses=False)
    return None, limits
