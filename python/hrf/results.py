"""What a check establishes: `Result` (verdict, outcomes, flags and their
witnesses, herd's text and log, pictures), built from the core's reply
(`build_result`), and herd's verdict words."""

from __future__ import annotations

import json
import pickle
from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING, Any

from . import core, spin
from . import models as _models
from .dsl import Model
from .errors import CoreError, HrfError
from .graph import Drawable, count, render
from .herdout import HERD_KIND, herd_name, log_variable
from .limits import (
    Limits,
)
from .litmus import parse
from .litmus.printer import format_state
from .litmus.ptx_hopper import mbarriers, state_text
from .program import Compiled, compile_test

if TYPE_CHECKING:  # the IR's types, for annotations only (imported lazily: cold start)
    from . import ir as ir_types


def pack_results(results: list) -> list:
    """Results as they travel between processes in bulk: the state of each
    (`Result.__reduce__`), a dict of its fields, the lists packed."""
    return [r.__reduce__()[1][0] for r in results]


def unpack_results(packed: list) -> list:
    """`pack_results`'s results again, their lists still packed."""
    return [_result_from_state(state) for state in packed]


def _event_text(e: dict) -> str:
    """`P0 line 14: W X=1 (*X = ..)`: a flagged event, as the terminal shows it."""
    # an initial write has no line (its `thread` is "init")
    where = f"{e['thread']} line {e['line']}" if e.get("thread") not in (None, "init") else "init"
    access = f"{e['kind']} {e['loc']}={e.get('state', e['value'])}" if e.get("loc") is not None else e["kind"]
    return f"{where}: {access}" + (f" ({e['op']})" if e.get("op") else "")


def _result_from_state(state: dict) -> Result:
    """A pickled Result on arrival: its scalar fields set (those it does not
    hold are their defaults), its lists (flags, outcomes, states, ...) left
    packed until first read (`_unpack`)."""
    r = Result.__new__(Result)
    r.__dict__ = state
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

    def __reduce__(self):  # the owner is attached again where its result unpacks it
        return (Flag, (dict(self),))

    def __repr__(self) -> str:
        # the same before and after its witness is first read: read it here
        for key in WITNESS_KEYS:
            self.get(key)
        return dict.__repr__(self)


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
    # Path combinations with no execution: a barrier with a thread count
    # reached by fewer threads (Dat3M's quorum barriers).
    blocked: int = 0
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
    # With liveness=True (`hrf.liveness`): True when no execution spins
    # forever under the progress model, False with the spinning threads
    # (`stuck`) and their execution (`liveness_witness`), None when not
    # established (the notes say why).
    live: bool | None = None
    stuck: list = field(default_factory=list)
    progress: str | None = None
    liveness_witness: dict | None = None
    _compiled: Compiled | None = field(default=None, repr=False, compare=False)
    # (test, unroll, cas_writeback) to compile again where the compiled
    # program was not kept (results from a worker process)
    _source: tuple | None = field(default=None, repr=False, compare=False)
    # Checked without witnesses that were asked for (check_many): the limits
    # to check again with, on first use of a witness (build_witnesses).
    _lazy: Limits | None = field(default=None, repr=False, compare=False)
    _model_obj: Model | None = field(default=None, repr=False, compare=False)  # not sent by workers

    def __reduce__(self):
        # Bulk's workers send every result this way and the parent reads
        # them one by one: a dict of the scalar fields that are not their
        # defaults, and the lists pickled apart as one bytes object that
        # the receiver unpacks only where one of them is read (a bulk run
        # reading verdicts never does: building the outcome dicts and flags
        # was most of the parent's time per check).
        d = self.__dict__
        packed = d.get("_packed")
        if packed is None or any(f in d for f in _PACKED_FIELDS):  # (one set before reading it)
            if packed is not None:
                self._unpack()
            rows = d.get("_rows")
            if rows is not None and ("outcomes" in d or "states" in d):  # (one set before reading it)
                self._build_rows()
                rows = None
            # outcomes and states not built yet travel as their rows (they
            # are not in the dict: None); flags as plain dicts, which pickle
            # without a call each (Flags again in `_unpack`)
            lists = [*map(d.get, _PACKED_FIELDS), rows]
            if lists[_FLAGS]:
                lists[_FLAGS] = [dict(f) for f in lists[_FLAGS]]
            packed = pickle.dumps(tuple(lists), protocol=pickle.HIGHEST_PROTOCOL)
        state = {}
        for f, default in _SCALAR_DEFAULTS:  # (the fields that are not their defaults)
            v = d.get(f, _NONE)
            if v is _NONE or v is default or (type(v) is type(default) and v == default):
                continue
            state[f] = v
        state["_packed"] = packed
        return (_result_from_state, (state,))

    if not TYPE_CHECKING:  # (mypy keeps checking attribute names)

        def __getattr__(self, name):
            # Called only for an attribute the instance lacks: a packed list,
            # or the outcomes and states, built on first use.
            d = self.__dict__
            if name in _PACKED_FIELDS:
                if "_packed" in d:
                    self._unpack()
                if name not in d and name in _ROW_FIELDS and "_rows" in d:
                    self._build_rows()
                if name in d:
                    return d[name]
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _unpack(self) -> None:
        d = self.__dict__
        *lists, rows = pickle.loads(d.pop("_packed"))
        for name, value in zip(_PACKED_FIELDS, lists, strict=True):
            if value is not None:  # (None: outcomes and states still as the core gave them, `rows`)
                d.setdefault(name, [Flag(f) for f in value] if name == "flags" else value)  # one set before stays
        if rows is not None:
            d.setdefault("_rows", rows)
        self._attach_flags()

    def _build_rows(self) -> None:
        """The outcomes and states, from the core's outcomes kept as its
        JSON rows (`_rows`, by `build_result`): a result read for its
        verdict never reads them, and a worker sends the text."""
        d = self.__dict__
        obs, addresses, text, _ = d.pop("_rows")
        rows = json.loads(text)  # [values, count, positive, flagged, witness] each
        outcomes = [dict(zip(obs, row[0], strict=False)) for row in rows]
        if addresses:  # a value that is a location's address shows as its name (herd: `1:r0=x`)
            outcomes = [{k: addresses.get(v, v) for k, v in o.items()} for o in outcomes]
        d.setdefault("outcomes", outcomes)  # one set before any was read stays
        d.setdefault("states", [(o, *row[1:]) for o, row in zip(d["outcomes"], rows, strict=False)])

    @property
    def n_outcomes(self) -> int:
        """How many outcomes, without building them where they are not
        built yet (a bulk run's rows count them)."""
        d = self.__dict__
        if "_packed" in d:
            self._unpack()
        rows = d.get("_rows")
        return len(self.outcomes) if rows is None or "outcomes" in d else rows[3]  # (one set before it was read)

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
            full = run_core(comp, model, limits)
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

    def keep_source(self, test, unroll: int, cas_writeback: bool, vector_orders: str = "all") -> None:
        """Hold what compiles this result's program again on first use
        (`compiled`: the parsed test, or its path, and how it was compiled)
        in place of the program itself, which is large."""
        self._compiled, self._source = None, (test, unroll, cas_writeback, vector_orders)

    def compiled(self) -> Compiled | None:
        """The compiled program this result is about (compiled again on
        first use for results that come from a worker process)."""
        if self._compiled is None and self._source is not None:
            test, unroll, cas_writeback, orders = self._source
            self._compiled = compile_test(parse(test), unroll, cas_writeback, vector_orders=orders)
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
            "blocked": self.blocked,
            "thin_air_value": self.thin_air_value,
            "notes": self.notes,
            "live": self.live,
            "stuck": [
                {
                    "thread": x.thread,
                    "line": x.line,
                    "barrier": x.barrier,
                    # a livelock: the loop copies it runs over and over
                    "repeats": None if x.livelock is None else {"first": x.livelock[0], "count": x.livelock[1]},
                }
                for x in self.stuck
            ],
            "progress": self.progress,
            "error": None if self.error is None else f"{type(self.error).__name__}: {self.error}",
        }

    def to_herd(self) -> str:
        """herd-style text: Test / States / Ok|No / Witnesses / Condition /
        Observation / Time, plus a `Model` line (which model judged it) and
        a `Flag` line per undefined behaviour."""
        if self.error is not None:
            return f"Test {self.name} Error\n{type(self.error).__name__}: {self.error}\n"
        kind = HERD_KIND[self.quantifier]
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
            events = f.get("events")
            if events:  # the events that show it (where witnesses were kept)
                lines.append("  events: " + "; ".join(_event_text(e) for e in events))
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
        name = herd_name(self.name)
        kind = HERD_KIND[self.quantifier]
        lines = [f"Test {name} {kind}", f"States {len(self.states)}"]
        for st in self.states:
            lines.append(" ".join(f"{log_variable(k)}={v};" for k, v in st[0].items()))
        lines.append({True: "Ok", False: "No", None: "??"}[self.condition_holds])
        lines += ["Witnesses", self._witnesses()]
        lines += [f"Flag {f['kind']}" for f in self.flags]
        lines.append(f"Condition {self.condition}")
        if self.observation[0] is not None:  # herd's tools read it as a verdict: none where none was established
            lines.append(f"Observation {name} {self.observation[0]} {self.observation[1]} {self.observation[2]}")
        lines.append(f"Time {name} {self.time:.2f}")
        return "\n".join(lines) + "\n\n"

    def _unroll(self):
        if self._compiled is None and self._source is not None:
            return self._source[1]  # (not compiled again for this alone)
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
            if d["loc"] in mbarriers(c.test):  # its value is hrf's encoding: the state as the ISA names it too
                d["state"] = state_text(ev["value"])
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
        """Graphviz DOT of an execution: a liveness check's witness, else
        the first flagged one by default, else the witness of the first
        outcome."""
        from .graph import execution_dot

        self.build_witnesses()
        execution = execution or self.liveness_witness
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
        race = flag_word(self.racy, self.flags)
        cut = "" if self.complete else f", cut by limit {self.limit['which'] if self.limit else '?'}"
        return (
            f"<Result {self.name} under {self.model}: {verdict} ({self.observation[0] or 'so far'} "
            f"{self.observation[1]}/{self.observation[1] + self.observation[2]}), {race}, "
            f"{count(len(self.outcomes), 'outcome')}, {count(self.candidates, 'candidate')}{cut}>"
        )


def flag_word(racy: bool | None, flags: list) -> str:
    """What a result's flags say in a word: racy where one is a race (a flag whose
    kind ends in `race`), else the undefined behaviour the others name (an
    uninitialised mbarrier, a copy's destination read before it completes ...)."""
    if racy is None:
        return "race unknown"
    kinds = sorted({f["kind"] for f in flags})
    if not racy:
        return "race-free"
    if not kinds or any(k.endswith("race") for k in kinds):
        return "racy"
    return "undefined: " + ", ".join(kinds)


_RESULT_FIELDS = tuple(f.name for f in fields(Result))
# The fields a pickled Result carries packed (its lists and dicts: flags,
# outcomes, states, ...) and those it carries as they are.
_PACKED_FIELDS = tuple(f.name for f in fields(Result) if f.default_factory is not MISSING)
_SCALAR_FIELDS = tuple(f for f in _RESULT_FIELDS if f not in _PACKED_FIELDS)
_DEFAULTS = {f.name: f.default for f in fields(Result) if f.default is not MISSING}
_NONE = object()
_SCALAR_DEFAULTS = tuple((f, _DEFAULTS.get(f, _NONE)) for f in _SCALAR_FIELDS)
_FLAGS = _PACKED_FIELDS.index("flags")
# The lists a result builds from the core's outcomes on first use.
_ROW_FIELDS = ("outcomes", "states")


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


def build_result(reply: core.Reply, comp: Compiled, model: Model, lazy: Limits | None = None) -> Result:
    """The result of the core's reply (`core.Reply`: its JSON, its outcomes
    apart as JSON rows, how many). `lazy`: the limits the witnesses were asked for
    with, where the core was asked for none (built on first use)."""
    raw, outcomes, n_outcomes = reply
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
    r.blocked = out["blocked"]
    if r.blocked:
        r.notes.append(
            f"{r.blocked} combination{'s' if r.blocked > 1 else ''} of thread paths blocked at a barrier that "
            "fewer threads reach than its thread count: no execution there (no thread passes it)"
        )
    if comp.read_note:
        r.notes.append(comp.read_note)
    if test.condition is None and not test.locations:
        r.notes.append(NO_CONDITION)
    # the outcomes and states, built where first read (`Result._build_rows`)
    # from the core's text (reading it was most of reading the reply: 14
    # outcomes, 10 of 13 us); a text is nothing Python's collector walks
    d = r.__dict__
    del d["outcomes"], d["states"]
    d["_rows"] = (comp.observed, comp.addresses or None, outcomes, n_outcomes)
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
    stuck = spin.stuck_thread(test) if complete and out["consistent"] == 0 and r.cut_paths else None
    if stuck is not None and stuck.thread in r.cut_paths:
        # a thread that never leaves its loop: no finite execution exists (established, spin.py)
        r.notes.append(stuck.note())
    elif complete and out["consistent"] == 0 and r.cut_paths:
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


def run_core(comp: Compiled, model: Model, limits: Limits, lazy: Limits | None = None) -> Result:
    """The core's check of a compiled test, as a Result (an error result
    where the core refused it). `lazy`: as `build_result`'s."""
    return build_result(core.check(comp.json(), model.ir_json(), limits.core_json(model)), comp, model, lazy)
