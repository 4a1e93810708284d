"""`hrf.check` and `hrf.check_many` and their result object."""

from __future__ import annotations

import contextlib
import gc
import json
import os
import signal
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, cast

from . import core
from . import models as _models
from .dsl import Model
from .errors import CoreError, HrfError, InvalidArgument, LimitExceeded
from .graph import Drawable, count, render
from .limits import (  # noqa: F401 (hrf.api's names too)
    UNROLL,
    Limits,
    check_workers,
    default_max_memory,
    limits_from,
    on_limit_mode,
    physical_memory,
)
from .litmus import parse
from .litmus.printer import format_state, litmus_identity
from .program import Compiled, compile_test

if TYPE_CHECKING:  # the IR's types, for annotations only (imported lazily: cold start)
    from . import ir as ir_types


def _result_from_values(values: tuple) -> Result:
    r = Result.__new__(Result)
    r.__dict__.update(zip(_RESULT_FIELDS, values, strict=True))
    r._attach_flags()
    return r


# The keys of a flag that hold its witness (built on first use under check_many).
WITNESS_KEYS = ("events", "execution")


class Flag(dict):
    """A flag of a result: `kind`, `check`, and, where witnesses were asked
    for, the `events` that show it and the `execution` they belong to.
    Results of `check_many` build these on first use: reading `events` or
    `execution` checks the test again, with witnesses, once per result."""

    _owner: Any = None  # the Result holding the flag (set by it)

    def __missing__(self, key):
        owner = self._owner
        if key in WITNESS_KEYS and owner is not None and owner._lazy is not None:
            owner.build_witnesses()
            return self[key]
        raise KeyError(key)

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def __reduce__(self):  # the owner is attached again on arrival (_result_from_values)
        return (Flag, (dict(self),))


@dataclass
class Result(Drawable):
    """What `check` established about one test under one model."""

    name: str
    model: str
    path: str | None = None
    condition: str | None = None
    quantifier: str = "exists"
    condition_holds: bool | None = None
    racy: bool | None = None
    flags: list = field(default_factory=list)
    outcomes: list = field(default_factory=list)
    # herd's (Never|Always|Sometimes, positive, negative); the first None
    # where a limit cut the run before Never or Always was established
    observation: tuple = ("Never", 0, 0)
    complete: bool = True
    limit: ir_types.LimitOut | None = None
    time: float = 0.0
    candidates: int = 0
    consistent: int = 0
    pruned: int = 0
    flagged_executions: int = 0
    cut_paths: dict = field(default_factory=dict)
    states: list = field(default_factory=list)  # (outcome, count, positive, flagged, witness)
    executions: list = field(default_factory=list)
    error: HrfError | None = None
    # With thin-air guessing, the fresh value that stands for any value the
    # test does not name (herd prints such values symbolically, as S8).
    thin_air_value: int | None = None
    # What the reader must know about how the test was read (e.g. a missing
    # condition read as herd's forall (true)).
    notes: list = field(default_factory=list)
    # The test's identity and size (`hrf.litmus.printer.litmus_identity`),
    # where asked for (check_many(identify=True): the results store's key).
    test_id: str | None = None
    test_size: int | None = None
    _compiled: Compiled | None = field(default=None, repr=False, compare=False)
    # (test, unroll, cas_writeback) to compile again where the compiled
    # program was not kept (results from a worker process)
    _source: tuple | None = field(default=None, repr=False, compare=False)
    # Checked without witnesses that were asked for (check_many): the limits
    # to check again with, on first use of a witness (build_witnesses).
    _lazy: Limits | None = field(default=None, repr=False, compare=False)
    _model_obj: Model | None = field(default=None, repr=False, compare=False)  # not sent by workers

    def __reduce__(self):
        # field values in order, rebuilt without __init__: bulk's workers
        # send every result this way, and the parent reads them one by one
        return (_result_from_values, (tuple(self.__dict__[f] for f in _RESULT_FIELDS),))

    def _attach_flags(self) -> None:
        for f in self.flags:
            if isinstance(f, Flag):
                f._owner = self

    def build_witnesses(self) -> None:
        """Build the witness executions (one per outcome and per flag) of a
        result checked without them: `check_many` leaves them to first use
        (a flag's events, `witness`, `to_dot`, `to_json`), which calls this.
        The test is checked again with the same limits; the check is
        deterministic, so the witnesses are those `check` would give."""
        if self._lazy is None:
            return
        limits, self._lazy = self._lazy, None
        comp = self.compiled()
        model = self._model_obj or _models.get(self.model)
        try:
            assert comp is not None, "a lazy result keeps its program or its source"
            full = check_compiled(comp, model, limits, eager=True)
        except HrfError as e:
            full = Result.failed(self.name, self.model, e)
        if full.error is not None or (full.outcomes, [f["kind"] for f in full.flags]) != (
            self.outcomes,
            [f["kind"] for f in self.flags],
        ):
            # not the same result (a deadline or memory limit met one time
            # and not the other): no witness is better than a wrong one
            why = f"checking again with witnesses gave a different result ({full!r})"
            self.notes.append(f"no witnesses: {why}")
            for f in self.flags:
                f.setdefault("events", None)
                f.setdefault("execution", None)
            return
        self.states = full.states
        self.executions = full.executions
        for mine, theirs in zip(self.flags, full.flags, strict=True):
            mine["events"], mine["execution"] = theirs["events"], theirs["execution"]

    @classmethod
    def failed(cls, name: str, model: str, error: HrfError, **kw) -> Result:
        """The result of a check that could not be made: no verdict, the error."""
        return cls(name=name, model=model, complete=False, error=error, **kw)

    def compiled(self) -> Compiled | None:
        """The compiled program this result is about (compiled again on
        first use for results that come from a worker process)."""
        if self._compiled is None and self._source is not None:
            test, unroll, cas_writeback = self._source
            self._compiled = compile_test(parse(test), unroll, cas_writeback)
        return self._compiled

    # ---------------------------------------------------------- output
    def to_json(self) -> dict:
        self.build_witnesses()
        return {
            "name": self.name,
            "model": self.model,
            "path": self.path,
            "condition": self.condition,
            "condition_holds": self.condition_holds,
            "racy": self.racy,
            "flags": self.flags,
            "outcomes": self.outcomes,
            "observation": list(self.observation),
            "complete": self.complete,
            "limit": self.limit,
            "time": self.time,
            "candidates": self.candidates,
            "consistent": self.consistent,
            "pruned": self.pruned,
            "flagged_executions": self.flagged_executions,
            "cut_paths": self.cut_paths,
            "thin_air_value": self.thin_air_value,
            "notes": self.notes,
            "error": None if self.error is None else f"{type(self.error).__name__}: {self.error}",
        }

    def to_herd(self) -> str:
        """herd-style text: Test / States / Ok|No / Witnesses / Condition /
        Observation / Time, plus a `Model` line (which model judged it) and
        a `Flag` line per undefined behaviour."""
        if self.error is not None:
            return f"Test {self.name} Error\n{type(self.error).__name__}: {self.error}\n"
        kind = {"exists": "Allowed", "~exists": "Forbidden", "forall": "Required"}[self.quantifier]
        lines = [f"Test {self.name} {kind}", f"Model {self.model}", f"States {len(self.states)}"]
        for st in self.states:
            lines.append(format_state(st[0]))
        if self.condition_holds is None:
            lines.append("Undetermined")
        else:
            lines.append("Ok" if self.condition_holds else "No")
        lines.append("Witnesses")
        lines.append(self._witnesses())
        for f in self.flags:
            lines.append(f"Flag {f['kind']}")
        if self.flags:
            lines.append(f"Bad executions ({self.flagged_executions} in total)")
        if self.cut_paths:
            cut = ", ".join(f"{t}: {n}" for t, n in self.cut_paths.items())
            lines.append(f"Loop bound {self._unroll()} cut paths ({cut})")
        if self.limit:
            lines.append(f"Limit {self.limit['which']} reached: {self.limit['detail']}")
        for n in self.notes:
            lines.append(f"Note {n}")
        if self.thin_air_value is not None and any(self.thin_air_value in o.values() for o in self.outcomes):
            lines.append(f"Thin-air value {self.thin_air_value} stands for any value the test does not name")
        lines.append(f"Condition {self.condition}")
        if self.observation[0] is not None:  # a cut run established no Never or Always
            lines.append(f"Observation {self.name} {self.observation[0]} {self.observation[1]} {self.observation[2]}")
        lines.append(f"Time {self.name} {self.time:.3f}")
        return "\n".join(lines) + "\n"

    def _witnesses(self) -> str:
        """herd's `Positive: P Negative: N`: executions that satisfy the
        condition as written and that do not. For `~exists p` that is `~p`:
        the Observation line's counts (of `p`) swapped, as herd prints them."""
        pos, neg = self.observation[1], self.observation[2]
        if self.quantifier == "~exists":
            pos, neg = neg, pos
        return f"Positive: {pos} Negative: {neg}"

    def to_herd_log(self) -> str:
        """This result as a test block of a herd log, in the subset herd's
        companion tools (mcompare7, msum7) read: Test, States with memory
        locations written `[x]`, Ok or No, Witnesses, Flag lines,
        Condition, Observation, Time. A result a limit cut short says `??`
        (their reader's "don't know") where Ok or No would be, and lists the
        states found; a check that failed writes no block (its error goes
        elsewhere). hrf's own lines (Model, Note, Limit ...) are left out."""
        if self.error is not None:
            return ""
        name = self.name.split("|")[0]  # herd cuts a name at its first `|`
        kind = {"exists": "Allowed", "~exists": "Forbidden", "forall": "Required"}[self.quantifier]
        lines = [f"Test {name} {kind}", f"States {len(self.states)}"]
        for st in self.states:
            lines.append(" ".join(f"{k if ':' in k else f'[{k}]'}={v};" for k, v in st[0].items()))
        lines.append({True: "Ok", False: "No", None: "??"}[self.condition_holds])
        lines += ["Witnesses", self._witnesses()]
        lines += [f"Flag {f['kind']}" for f in self.flags]
        lines.append(f"Condition {self.condition}")
        if self.observation[0] is not None:  # herd's tools read it as a verdict: none where none was established
            lines.append(f"Observation {name} {self.observation[0]} {self.observation[1]} {self.observation[2]}")
        lines.append(f"Time {name} {self.time:.2f}")
        return "\n".join(lines) + "\n\n"

    def _unroll(self):
        c = self.compiled()
        return c.unroll if c else "?"

    def describe_event(self, ev: ir_types.Event) -> dict:
        """An event of a witness execution in source terms."""
        c = self.compiled()
        if c is None:
            raise ValueError("this result keeps no program to describe its events with")
        d: dict[str, Any] = {"id": ev["id"], "kind": ev["kind"], "value": ev["value"]}
        if ev["loc"] is not None:
            d["loc"] = c.locations[ev["loc"]]
        if ev["thread"] is None:
            d["thread"] = "init"
            d["op"] = f"init {d.get('loc')}"
        else:
            template = ev["template"]
            assert template is not None, "the core gives every event of a thread its template"
            tp = c.templates[template]
            d["thread"] = c.test.threads[ev["thread"]].name
            d["line"] = tp.line
            d["op"] = tp.text
        return d

    def witness(self, outcome: dict | None = None) -> dict | None:
        """An execution reaching `outcome` (the first outcome by default)."""
        self.build_witnesses()
        for st in self.states:
            if outcome is None or st[0] == outcome:
                return st[4]
        return None

    def to_dot(self, execution: dict | None = None) -> str:
        """Graphviz DOT of an execution: the first flagged one by default,
        else the witness of the first outcome."""
        from .graph import execution_dot

        self.build_witnesses()
        execution = execution or (self.flags[0]["execution"] if self.flags else self.witness())
        if execution is None:
            raise HrfError(f"{self.name}: no witness execution to draw (checked with witnesses=False)")
        return execution_dot(self, execution)

    def render(self, path, execution: dict | None = None) -> None:
        """Write the execution graph to `path`: .dot as text, any other
        suffix (.svg, .png, .pdf) rendered by Graphviz."""
        render(self.to_dot(execution), path)

    def __str__(self):
        return self.to_herd()

    def __repr__(self) -> str:
        if self.error is not None:
            return f"<Result {self.name} under {self.model}: error: {self.error}>"
        verdict = {True: "Ok", False: "No", None: "undetermined"}[self.condition_holds]
        race = {True: "racy", False: "race-free", None: "race unknown"}[self.racy]
        cut = "" if self.complete else f", cut by limit {self.limit['which'] if self.limit else '?'}"
        return (
            f"<Result {self.name} under {self.model}: {verdict} ({self.observation[0] or 'so far'} "
            f"{self.observation[1]}/{self.observation[1] + self.observation[2]}), {race}, "
            f"{count(len(self.outcomes), 'outcome')}, {count(self.candidates, 'candidate')}{cut}>"
        )


_RESULT_FIELDS = tuple(f.name for f in fields(Result))

NO_CONDITION = (
    "the test has no final condition: read as herd reads it, forall (true), which every execution "
    "satisfies (is the file cut short?)"
)


def _observation(pos: int, neg: int, complete: bool = True) -> str | None:
    """herd's Observation: Sometimes once executions both satisfy and
    violate the condition; Never or Always only of a complete run (a run a
    limit cut short has not established them: None)."""
    if pos and neg:
        return "Sometimes"
    if not complete:
        return None
    if pos == 0:
        return "Never"
    return "Always"


def verdict(r: Result) -> str:
    """A result's one word, as bulk rows and the results store keep it: Ok /
    No as herd says, `incomplete` where a limit cut the run short, `error`
    where the test could not be checked."""
    if r.error is not None:
        return "error"
    if r.condition_holds is None:
        return "incomplete"
    return "Ok" if r.condition_holds else "No"


def condition_verdict(quant: str, pos: int, neg: int, complete: bool) -> bool | None:
    """herd's Ok/No; None where a limit leaves it undecided."""
    if quant == "exists":
        return True if pos > 0 else (False if complete else None)
    if quant == "~exists":
        return False if pos > 0 else (True if complete else None)
    if quant == "forall":
        return False if neg > 0 else (True if complete else None)
    raise ValueError(quant)


def _build_result(raw: str, comp: Compiled, model: Model, lazy: Limits | None = None) -> Result:
    """The result of the core's reply. `lazy`: the limits the witnesses were
    asked for with, where the core was asked for none (built on first use)."""
    data = json.loads(raw)
    test = comp.test
    # herd: a test without a condition is `forall (true)`
    quant = test.condition.quantifier if test.condition else "forall"
    cond_text = comp.condition_text()
    if "error" in data:
        msg = data["error"]
        if "at" in data:  # a consistent execution reached an operation without a meaning: name its line
            msg = f"{comp.place(data['at']['thread'], data['at']['pc'])} {msg}"
        err = CoreError(f"{test.path or test.name}: {msg}", data.get("kind", "internal"))
        return Result.failed(
            test.name, model.name, err, path=test.path, condition=cond_text, quantifier=quant, _compiled=comp
        )
    out: ir_types.CheckOut = data["ok"]
    complete = out["complete"]
    r = Result(
        name=test.name,
        model=model.name,
        path=test.path,
        condition=cond_text,
        quantifier=quant,
        complete=complete,
        limit=out["limit"],
        time=out["seconds"],
        candidates=out["candidates"],
        consistent=out["consistent"],
        pruned=out["pruned"],
        flagged_executions=out["flagged_executions"],
        _compiled=comp,
    )
    r.cut_paths = {test.threads[i].name: n for i, n in enumerate(out["cut_paths"]) if n}
    r.thin_air_value = out.get("thin_air_value")
    if test.condition is None and not test.locations:
        r.notes.append(NO_CONDITION)
    obs, outs = comp.observed, out["outcomes"]
    r.outcomes = [dict(zip(obs, o["values"], strict=False)) for o in outs]
    if comp.addresses:  # a value that is a location's address shows as its name (herd: `1:r0=x`)
        r.outcomes = [{k: comp.addresses.get(v, v) for k, v in o.items()} for o in r.outcomes]
    r.states = [
        (v, o["count"], o["positive"], o["flagged"], o["witness"]) for v, o in zip(r.outcomes, outs, strict=True)
    ]
    if lazy is not None:
        r._lazy, r._model_obj = lazy, model
        r.flags = [Flag(kind=f["kind"], check=f["check"]) for f in out["flags"]]
    else:
        r.flags = [
            Flag(
                kind=f["kind"],
                check=f["check"],
                events=None
                if f["execution"] is None
                else [r.describe_event(f["execution"]["events"][i]) for i in f["events"]],
                execution=f["execution"],
            )
            for f in out["flags"]
        ]
    r._attach_flags()
    r.executions = out["executions"]
    pos, neg = out["positive"], out["negative"]
    if complete and out["consistent"] == 0 and r.cut_paths:
        # Every execution would need more loop iterations than the bound:
        # nothing was established (no outcome, no race) within it.
        complete = r.complete = False
        r.limit = {
            "which": "unroll",
            "detail": f"no execution completes within the loop bound ({comp.unroll} "
            f"iterations): the bound cut paths of {', '.join(r.cut_paths)}; raise it with --unroll",
        }
    r.observation = (_observation(pos, neg, complete), pos, neg)
    r.condition_holds = condition_verdict(quant, pos, neg, complete)
    r.racy = True if r.flags else (False if complete else None)
    return r


def _prepare(test, model, limits: Limits) -> tuple[Compiled, Model]:
    t = parse(test)
    m = _models.get(model)
    m.supports(t)
    return compile_test(t, limits.unroll, m.cas_writeback), m


def check(test, model="sc", *, limits: Limits | None = None, on_limit: str = "result", **kw) -> Result:
    """Check a litmus test (path, text or parsed Test) under a model.

    Keyword arguments other than `limits` and `on_limit` set fields of
    `Limits` (e.g. `unroll=3`, `max_seconds=10`). With `on_limit="raise"` a
    result cut short by a limit raises `LimitExceeded` (holding the result)."""
    limits = limits_from(limits, kw)
    on_limit_mode(on_limit)
    comp, m = _prepare(test, model, limits)
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
    lazy, run = (None, limits) if eager else _witnesses_later(limits)
    raw = core.check(comp.json(), model.ir_json(), run.core_json(model))
    r = _build_result(raw, comp, model, lazy)
    if r.error is not None:
        raise r.error
    if r.limit is not None and on_limit == "raise":
        raise LimitExceeded(r.limit["which"], r.limit["detail"], r)
    return r


def _witnesses_later(limits: Limits) -> tuple[Limits | None, Limits]:
    """(the limits to build witnesses with on first use, or None; the limits
    to check with now): witnesses asked for are left to first use
    (`Result.build_witnesses`), except with `keep_all`, whose kept
    executions come with the check."""
    if limits.witnesses and not limits.keep_all:
        return limits, replace(limits, witnesses=False)
    return None, limits


def check_many(
    tests: Iterable,
    models,
    workers: int | None = None,
    *,
    limits: Limits | None = None,
    chunk: int = 256,
    processes: bool | None = None,
    identify: bool = False,
    scheduler=None,
    **kw,
) -> Iterator[Result]:
    """Check every test under every model on `workers` cores (all when
    None), yielding results in order (test by test, models in the order
    given) as they finish. Each test is parsed and compiled once. A test
    that does not parse, or that a model rejects, yields a Result whose
    `error` is set rather than stopping the run.

    Two ways to use the cores, the same results either way:
    - threads: one process parses and compiles (Python, under the GIL) and
      the Rust core checks `chunk` jobs at a time on `workers` threads;
    - processes: `workers` forked processes each take slices of the tests
      and do everything, parsing included, so the Python work is spread
      too. Chosen by default (`processes=None`) when there are at least
      `PROCESS_MIN_TESTS` tests, more than one worker and `fork` exists;
      `processes=False` forces threads, `processes=True` processes.

    With `scheduler`, the tests are checked on a Dask distributed cluster
    instead (`hrf.cluster`: `"local:N"`, a scheduler address or file, or a
    `distributed.Client`), with the same results in the same order.

    With `identify`, each result of a test that parses holds the test's
    identity and size in `test_id` and `test_size` (computed where the test
    is parsed), also where a model refuses the test."""
    limits = limits_from(limits, kw)
    if isinstance(tests, (str, bytes, os.PathLike)) or hasattr(tests, "threads"):
        raise InvalidArgument(
            "check_many takes a list (or other iterable) of tests, not one test: "
            f"check_many([{tests!r}], ...) or check({tests!r}, ...)"[:300]
        )
    check_workers(workers)
    if isinstance(models, (str, os.PathLike, Model)):
        models = [models]
    models = [_models.get(m) for m in models]
    for m in models:
        if any(o.name == m.name and o is not m for o in models):
            raise HrfError(f"two different models are named {m.name!r}: results could not say which is which")
    if scheduler is not None:
        if workers is not None:
            raise InvalidArgument("check_many: give workers or scheduler, not both (the cluster has its own workers)")
        yield from check_on_cluster(list(tests), models, scheduler, limits, identify)
        return
    nworkers = workers or os.cpu_count() or 1
    if processes is not False and nworkers > 1 and _can_fork():
        tests = tests if isinstance(tests, list) else list(tests)
        if processes or len(tests) >= PROCESS_MIN_TESTS:
            yield from _check_in_processes(tests, models, nworkers, limits, identify)
            return
    yield from _check_in_threads(tests, models, workers, limits, chunk, identify)


PROCESS_MIN_TESTS = 64
SPAN = 2048  # tests per forked worker, at most (a fresh process per span; a fork of a
# parent holding 100,000 tests costs about 20 ms)


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """Run Python's cyclic collector less often while checking many tests:
    each check allocates hundreds of short-lived containers, and the
    collector's default pace (every 700) spent a quarter of a bulk run
    walking them. Reference counting still frees them at once; the old
    pace comes back when the run ends (or its generator is closed)."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], 20_000), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def _check_in_threads(
    tests: Iterable, models: list, workers: int | None, limits: Limits, chunk: int, identify: bool = False
) -> Iterator[Result]:
    """`check_many` in this process: Python compiles, the core checks a
    chunk of jobs at a time in parallel with the GIL released."""
    with _fewer_collections():
        yield from _check_in_threads_paced(tests, models, workers, limits, chunk, identify)


def _check_in_threads_paced(
    tests: Iterable, models: list, workers: int | None, limits: Limits, chunk: int, identify: bool
) -> Iterator[Result]:
    model_json = {m.name: m.ir_json() for m in models}
    # most results of a bulk check are read for their verdicts only
    lazy, run = _witnesses_later(limits)
    limits_json = {m.name: run.core_json(m) for m in models}
    # (Compiled or None, model, error, name, the test's identity or None)
    pending: list = []

    def flush():
        jobs = [(c.json(), model_json[m.name], limits_json[m.name]) for c, m, _, _, _ in pending if c is not None]
        raws = iter(core.check_many(jobs, workers))
        for c, m, err, name, ident in pending:
            r = Result.failed(name, m.name, err, path=name) if c is None else _build_result(next(raws), c, m, lazy)
            if ident is not None:
                r.test_id, r.test_size = ident
            yield r

    for test in tests:
        name = (
            str(test)
            if isinstance(test, (str, os.PathLike)) and "\n" not in str(test)
            else getattr(test, "name", "<test>")
        )
        try:
            t = parse(test)
            name = t.path or t.name
        except HrfError as e:
            pending.extend((None, m, e, name, None) for m in models)
            t = None
        except Exception as e:  # a bug of hrf: one error row, the run goes on
            pending.extend((None, m, _internal_error(e, name), name, None) for m in models)
            t = None
        if t is not None:
            # one identity per test, on every row of it (a model's refusal too)
            ident = litmus_identity(t) if identify else None
            compiled: dict = {}  # one compilation per distinct language semantics
            for m in models:
                try:
                    m.supports(t)
                    if m.cas_writeback not in compiled:
                        compiled[m.cas_writeback] = compile_test(t, limits.unroll, m.cas_writeback)
                    pending.append((compiled[m.cas_writeback], m, None, name, ident))
                except HrfError as e:
                    pending.append((None, m, e, name, ident))
                except Exception as e:
                    pending.append((None, m, _internal_error(e, name), name, ident))
        if len(pending) >= chunk:
            yield from flush()
            pending.clear()
    if pending:
        yield from flush()


def _can_fork() -> bool:
    import multiprocessing as mp

    return "fork" in mp.get_all_start_methods()


def _internal_error(e: BaseException, name: str) -> HrfError:
    """An exception hrf did not mean to raise, as an error row naming the
    test (the run goes on; the type and message say what to report)."""
    return HrfError(f"{name}: internal error of hrf ({type(e).__name__}: {e}); please report it with the test")


# A worker sends the results of up to this many tests at once, or what it
# has after SEND_SECONDS; after a worker died, its span's rest is checked
# again one test a message, so that a death names its test.
SEND_TESTS = 16
SEND_SECONDS = 0.05


def _fork_worker(
    conn, tests: list, models: list, limits: Limits, start: int, end: int, identify: bool, per: int = 1
) -> None:
    """A forked worker: check tests[start:end] on one core and send the
    results of `per` tests at a time (fewer when SEND_SECONDS have passed),
    as `(index of the first, their results)`: a worker that dies loses at
    most the tests of the message it was filling. Errors travel as text (an
    exception that does not pickle cannot hang the run)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    k = start  # the first test whose results are not sent
    batch: list = []
    sent = time.monotonic()
    try:
        for r in _check_in_threads(tests[start:end], models, 1, limits, per * len(models), identify):
            batch.append(portable(r))
            if len(batch) % len(models) == 0 and (
                len(batch) == per * len(models) or time.monotonic() - sent > SEND_SECONDS
            ):
                conn.send((k, batch))
                k += len(batch) // len(models)
                batch, sent = [], time.monotonic()
        if batch:
            conn.send((k, batch))
    except BaseException as e:  # pragma: no cover - _check_in_threads turns errors into rows
        done = len(batch) // len(models)
        if done:
            conn.send((k, batch[: done * len(models)]))
        conn.send((k + done, [_internal_error(e, str(tests[k + done]))]))
    finally:
        conn.close()
        os._exit(0)


# What a sent result holds in place of the limits its witnesses wait for.
_LAZY = cast(Limits, True)


def portable(r: Result) -> Result:
    """A result made fit to send to the process that asked for it: without
    its compiled test (large; compiled again there on demand) and model
    (that process has it), its error as text where the error does not
    pickle. `adopt` undoes it on the other side."""
    r._compiled = None
    r._model_obj = None
    if r._lazy is not None:
        r._lazy = _LAZY  # the limits are the caller's own (`adopt`): not sent
    if r.error is not None:
        # its traceback and chained errors stay here: they hold frames and
        # modules (pickled where tblib is installed, as dask.distributed does)
        r.error = r.error.with_traceback(None)
        r.error.__context__ = r.error.__cause__ = None
    if r.error is not None and not _pickles(r.error):
        r.error = HrfError(f"{type(r.error).__name__}: {r.error}")
    return r


def adopt(r: Result, test, by_name: dict, limits: Limits) -> Result:
    """A result sent by a worker (`portable`), given back what it left out:
    the test it came from (to compile again for witnesses) and its model."""
    if r.error is None:
        r._source = (test, limits.unroll, by_name[r.model].cas_writeback)
        r._model_obj = by_name[r.model]
        if r._lazy is not None:
            r._lazy = limits  # one object for all, not a copy per result
    return r


def _pickles(e: BaseException) -> bool:
    import pickle

    try:
        pickle.loads(pickle.dumps(e))
        return True
    except Exception:
        return False


def _error_results(test, models: list, err: HrfError) -> list:
    name = str(
        test if isinstance(test, (str, os.PathLike)) else getattr(test, "path", None) or getattr(test, "name", "<test>")
    )
    return [Result.failed(name, m.name, err, path=name) for m in models]


def _check_in_processes(
    tests: list, models: list, nworkers: int, limits: Limits, identify: bool = False
) -> Iterator[Result]:
    """`check_many` on forked worker processes, one per span of tests (fork
    is cheap and a fresh process per span keeps memory from piling up).
    A worker that dies (a crash, the kernel's OOM killer) costs one error
    row for the test it was on; the rest of its span goes to a new worker."""
    import multiprocessing as mp  # here, not at import: a cold check does not fork
    from multiprocessing.connection import Connection, wait

    ctx = mp.get_context("fork")
    size = max(1, min(SPAN, -(-len(tests) // (nworkers * 8))))
    # (first test, end, tests per message): spans not yet started
    pending = [(i, min(i + size, len(tests)), SEND_TESTS) for i in range(0, len(tests), size)]
    pending.reverse()  # popped from the end: in order
    by_name = {m.name: m for m in models}
    done: dict = {}  # test index -> its results, until yielded
    running: dict[Connection, list] = {}  # connection -> [process, next test index, end, per]
    next_out = 0

    def launch(start: int, end: int, per: int) -> None:
        # The parent's objects go to the permanent generation first: the
        # child's collector then leaves them alone, and so does not copy
        # every page it inherited (copy-on-write) by touching their headers.
        gc.freeze()
        recv, send = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_fork_worker, args=(send, tests, models, limits, start, end, identify, per), daemon=True)
        p.start()
        send.close()
        running[recv] = [p, start, end, per]

    with _fewer_collections():
        try:
            while pending or running:
                while pending and len(running) < nworkers:
                    launch(*pending.pop())
                for ready in wait(list(running)):
                    conn = cast(Connection, ready)
                    p, k, end, per = running[conn]
                    try:
                        idx, results = conn.recv()
                    except (EOFError, OSError):
                        # the worker ended; if before its span's end, it died on
                        # one of the tests from k of the message it was filling
                        del running[conn]
                        conn.close()
                        p.join()
                        if k < end and per > 1 and p.exitcode != 0:
                            pending.append((k, end, 1))  # again, one test a message
                        elif k < end:
                            code = p.exitcode
                            how = (
                                f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
                            )
                            done[k] = _error_results(
                                tests[k],
                                models,
                                HrfError(
                                    f"{tests[k] if isinstance(tests[k], (str, os.PathLike)) else 'test'}: the worker "
                                    f"process checking it died ({how}): a crash of hrf or too little memory"
                                ),
                            )
                            if k + 1 < end:
                                pending.append((k + 1, end, 1))
                        continue
                    if any(isinstance(r, HrfError) for r in results):  # pragma: no cover - see _fork_worker
                        done[idx] = _error_results(tests[idx], models, results[0])
                        running[conn][1] = idx + 1
                        continue
                    nm = len(models)
                    for j in range(len(results) // nm):
                        done[idx + j] = results[j * nm : (j + 1) * nm]
                    running[conn][1] = idx + len(results) // nm
                while next_out in done:
                    for r in done.pop(next_out):
                        yield adopt(r, tests[next_out], by_name, limits)
                    next_out += 1
        finally:
            gc.unfreeze()
            for conn, (p, *_) in running.items():
                if p.is_alive():
                    p.terminate()
                p.join()
                conn.close()


def _check_slice(items: list, models: list, limits, identify: bool) -> list:
    """Run on a cluster worker: check a slice of tests under every model, in
    this worker's thread (the worker's own threads are the parallelism)."""
    return [
        portable(r) for r in check_many(items, models, workers=1, processes=False, limits=limits, identify=identify)
    ]


def check_on_cluster(
    tests: list, models: list, scheduler, limits: Limits, identify: bool = False, slice_size: int | None = None
) -> Iterator[Result]:
    """`check_many`'s results computed on a Dask cluster (hrf.cluster does
    the distributing; the checking is this module's)."""
    from .cluster import check_on_cluster as distribute

    yield from distribute(
        tests,
        models,
        scheduler,
        limits,
        identify,
        slice_size,
        check_slice=_check_slice,
        error_results=_error_results,
        adopt=adopt,
    )
