"""What a run on a GPU saw, as litmus7 writes it (`Test`, `Histogram (N
states)`, the count of each state, `Ok`/`No`, `Witnesses`, `Positive: P,
Negative: N`, `Condition ... is validated`, `Observation NAME
Never|Sometimes|Always P N`, `Time`; herd's `mcompare7` and hrf's own log
reader read it), as JSON, and against a model's allowed outcomes."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import HrfError, InvalidArgument
from ..herdout import HERD_KIND, herd_name, log_variable
from ..litmus import ast as A
from ..litmus.printer import format_condition, format_state
from .lower import observed_vars
from .runtime import DeviceInfo, RunCounts
from .setting import Setting


def signed(v: int) -> int:
    return v - (1 << 32) if v >= 1 << 31 else v


@dataclass
class ModelVerdict:
    """What one model says of the states a run saw."""

    model: str
    forbidden: list  # seen states the model forbids: (outcome, count)
    unseen: list  # states the model allows that the run did not see
    read_as: str | None = None  # the dialect the model read the test translated into, if any
    # the model finds a race: the program has no meaning under it (a data or heterogeneous
    # race is undefined behaviour), so a seen state outside its outcomes is no violation
    racy: bool = False

    @property
    def violations(self) -> list:
        """The seen states this model forbids of a program it gives a meaning: (outcome, count)."""
        return [] if self.racy else self.forbidden

    def to_json(self) -> dict:
        return {
            "model": self.model,
            "read_as": self.read_as,
            "racy": self.racy,
            "forbidden": [{"outcome": o, "count": n} for o, n in self.forbidden],
            "unseen": self.unseen,
        }


@dataclass
class GpuResult:
    name: str
    path: str | None
    quantifier: str
    condition: str
    states: list  # (outcome dict, count, satisfies the proposition)
    counts: RunCounts
    device: DeviceInfo
    setting: Setting
    codecheck: str  # "ok", "skipped" or what did not match
    verdicts: list[ModelVerdict] = field(default_factory=list)  # one per model compared (`compare`)
    notes: list = field(default_factory=list)

    @property
    def model(self) -> str | None:
        """The models compared, by name (None: none)."""
        return ", ".join(v.model for v in self.verdicts) or None

    @property
    def forbidden(self) -> list:
        """The seen states some compared model forbids of a program it gives
        a meaning (not racy under it): (outcome, count)."""
        bad = [st for v in self.verdicts for st, _ in v.violations]
        return [(st, n) for st, n, _ in self.states if st in bad]

    @property
    def positive(self) -> int:
        """Instances whose outcome satisfies the condition's proposition."""
        return sum(c for _, c, sat in self.states if sat)

    @property
    def negative(self) -> int:
        return sum(c for _, c, sat in self.states if not sat)

    @property
    def condition_holds(self) -> bool:
        if self.quantifier == "exists":
            return self.positive > 0
        if self.quantifier == "~exists":
            return self.positive == 0
        return self.negative == 0

    @property
    def observation(self) -> str:
        if not self.positive:
            return "Never"
        return "Always" if not self.negative else "Sometimes"

    def kind(self) -> str:
        return HERD_KIND[self.quantifier]

    def to_litmus7(self) -> str:
        """A test block of a litmus7 log."""
        name = herd_name(self.name)
        lines = [f"Test {name} {self.kind()}", f"Histogram ({len(self.states)} states)"]
        for st, count, sat in self.states:
            mark = "*" if sat != (self.quantifier == "forall") else ":"
            state = " ".join(f"{log_variable(k)}={v};" for k, v in st.items())
            lines.append(f"{count:<6d}{mark}>{state}")
        lines.append("Ok" if self.condition_holds else "No")
        lines += ["", "Witnesses"]
        pos, neg = self.positive, self.negative
        if self.quantifier == "~exists":
            pos, neg = neg, pos
        lines.append(f"Positive: {pos}, Negative: {neg}")
        lines.append(f"Condition {self.condition} is {'' if self.condition_holds else 'NOT '}validated")
        c, d, s = self.counts, self.device, self.setting
        lines.append(f"Device={d.name} ({d.arch}), driver {d.driver}, CUDA {d.cuda}, NVRTC {d.nvrtc}")
        lines.append(f"Incantations={s.describe()}")
        lines.append(
            f"Instances={c.instances} in {c.launches} launches of {c.instances_per_launch}, "
            f"{c.rate / 1e6:.1f} M/s, code check {self.codecheck}"
        )
        for n, v in (("Timeouts", c.timeouts), ("Filtered", c.filtered), ("Missing", c.missing)):
            if v:
                lines.append(f"{n}={v}")
        lines.append(f"Observation {name} {self.observation} {self.positive} {self.negative}")
        lines.append(f"Time {name} {c.seconds:.2f}")
        return "\n".join(lines) + "\n\n"

    def to_json(self) -> dict:
        c = self.counts
        return {
            "name": self.name,
            "path": self.path,
            "condition": self.condition,
            "condition_holds": self.condition_holds,
            "observation": [self.observation, self.positive, self.negative],
            "states": [{"outcome": st, "count": n, "satisfies": sat} for st, n, sat in self.states],
            "instances": c.instances,
            "launches": c.launches,
            "instances_per_launch": c.instances_per_launch,
            "seconds": c.seconds,
            "compile_seconds": c.compile_seconds,
            "rate": c.rate,
            "timeouts": c.timeouts,
            "filtered": c.filtered,
            "missing": c.missing,
            "overflow_lost": c.overflow_lost,
            "device": self.device.to_json(),
            "incantations": self.setting.to_json(),
            "codecheck": self.codecheck,
            "model": self.model,
            "forbidden": [{"outcome": o, "count": n} for o, n in self.forbidden],
            "models": [v.to_json() for v in self.verdicts],
            "notes": self.notes,
        }

    def comparison(self) -> list[str]:
        """Against each model: each seen state allowed or not, each allowed state seen or not."""
        out = []
        seen = len(self.states)
        for v in self.verdicts:
            by = v.model + (f" (the test read as {v.read_as})" if v.read_as else "")
            if v.racy:
                out.append(
                    f"{self.name}: racy under {by}: a race is undefined behaviour there, so no seen state "
                    f"violates it; {len(v.forbidden)} of {seen} seen states are outside its executions' outcomes"
                )
                continue
            for o, n in v.forbidden:
                out.append(f"{self.name}: FORBIDDEN by {by}, seen {n} times: {_state(o)}")
            for o in v.unseen:
                out.append(f"{self.name}: allowed by {by}, not seen: {_state(o)}")
            out.append(
                f"{self.name}: {seen - len(v.forbidden)} of {seen} seen states allowed by {by}"
                + ("" if not v.forbidden else f"; {len(v.forbidden)} forbidden")
            )
        return out


def _state(o: dict) -> str:
    return " ".join(f"{k}={v};" for k, v in o.items())


def build(lt, counts: RunCounts, device: DeviceInfo, setting: Setting, codecheck: str) -> GpuResult:
    test = lt.test
    names = [str(v) for v in lt.variables]
    prop = A.condition_of(test).prop
    states = []
    for vals, n in sorted(counts.histogram.items(), key=lambda kv: -kv[1]):
        st = {k: signed(v) for k, v in zip(names, vals, strict=True)}
        states.append((st, n, A.prop_holds(prop, st)))
    return _result(test, states, counts, device, setting, codecheck)


def _result(test: A.Test, states: list, counts: RunCounts, device: DeviceInfo, setting: Setting, codecheck: str):
    """A test's result of a run: its states (outcome, count, satisfies the proposition) and what saw them."""
    return GpuResult(
        name=test.name,
        path=test.path,
        quantifier=A.condition_of(test).quantifier,
        condition=format_condition(A.condition_of(test)),
        states=states,
        counts=counts,
        device=device,
        setting=setting,
        codecheck=codecheck,
    )


def compare(
    r: GpuResult, model_name: str, allowed: list[dict], read_as: str | None = None, racy: bool = False
) -> ModelVerdict:
    """Mark each seen state allowed or forbidden by a model's outcomes
    (restricted to the variables the run observed); the verdict is added
    to the result's."""
    keys = [k for k in (r.states[0][0] if r.states else {})]
    allowed_keys = {tuple(o.get(k) for k in keys) for o in allowed}
    forbidden = [(st, n) for st, n, _ in r.states if tuple(st[k] for k in keys) not in allowed_keys]
    seen = {tuple(st[k] for k in keys) for st, _, _ in r.states}
    unseen = [dict(zip(keys, t, strict=True)) for t in sorted(allowed_keys - seen, key=str)]
    v = ModelVerdict(model_name, forbidden, unseen, read_as, racy)
    r.verdicts.append(v)
    return v


def _possible_states(test: A.Test, names: list) -> set | None:
    """Every state any execution of the test gives, over `names` (under no
    axiom at all: the program's own values), or None where that is not
    established within the default limits."""
    from ..api import Limits, check_compiled
    from ..dsl import Model
    from ..program import compile_test

    try:
        comp = compile_test(test, 2, None, observe_all=True)
        r = check_compiled(comp, Model("candidates"), Limits(max_seconds=10))
    except HrfError:  # a program hrf cannot check has no states to compare with
        return None
    if not r.complete:
        return None
    return {tuple(sorted((k, o[k]) for k in names if k in o)) for o in r.outcomes}


def _summary_agrees(block, quantifier: str, states: list, log: str) -> None:
    """The lines a litmus7 log writes after its histogram (Ok or No, the
    witnesses, the Observation) say what its states say, or the log is
    refused: which of them to believe is not hrf's to guess."""
    holds = sum(n for _, n, h in states if h)
    fails = sum(n for _, n, h in states if not h)
    # herd's Positive and Negative count the condition as a whole: for ~exists, ~p
    positive, negative = (fails, holds) if quantifier == "~exists" else (holds, fails)
    ok = {"exists": holds > 0, "forall": fails == 0, "~exists": holds == 0}.get(quantifier)
    word = "Never" if holds == 0 else ("Always" if fails == 0 else "Sometimes")
    wrong = []
    if block.ok is not None and ok is not None and block.ok != ok:
        wrong.append(f"it says {'Ok' if block.ok else 'No'}, its states {'Ok' if ok else 'No'}")
    if block.positive is not None and (block.positive, block.negative) != (positive, negative):
        wrong.append(
            f"its witnesses are Positive: {block.positive}, Negative: {block.negative}; its states "
            f"Positive: {positive}, Negative: {negative}"
        )
    if block.observed is not None and block.observed != (holds, fails):
        wrong.append(f"its Observation counts {block.observed[0]} {block.observed[1]}, its states {holds} {fails}")
    if block.observation is not None and block.observation != word:
        wrong.append(f"its Observation says {block.observation}, its states {word}")
    if wrong:
        raise InvalidArgument(f"{log}: {block.name}: the log contradicts itself: " + "; ".join(wrong))


def from_log(test: A.Test, block, log: str) -> GpuResult:
    """A test's block of a litmus7 log (`hrf run`'s, its standalone
    driver's, litmus7's own; `herdout.read_herd_output`) as a result to
    compare with models (`judge`). InvalidArgument where the block holds no
    histogram (a model's `States` list, not a run's) or its states do not
    name every variable the test observes."""
    names = [str(v) for v in observed_vars(test)]
    if block.histogram is None:
        raise InvalidArgument(f"{log}: {block.name} has no histogram (a model's `States` list, not a run's)")
    if len(block.counts) != block.histogram:
        raise InvalidArgument(
            f"{log}: {block.name}: its histogram announces {block.histogram} states and lists {len(block.counts)}"
        )
    prop = A.condition_of(test).prop
    possible = _possible_states(test, names)
    states = []
    seen: set = set()
    for st, n in zip(block.states, block.counts, strict=True):
        missing = [k for k in names if k not in st]
        if missing:
            raise InvalidArgument(
                f"{log}: {block.name}: a state names no {', '.join(missing)} (the test observes {', '.join(names)})"
            )
        extra = [k for k in st if k not in names]
        if extra:
            raise InvalidArgument(
                f"{log}: {block.name}: a state names {', '.join(extra)}, which the test does not observe "
                f"(it observes {', '.join(names)}): not a log of this test"
            )
        o = {k: st[k] for k in names}
        key = tuple(sorted(o.items()))
        if key in seen:
            raise InvalidArgument(f"{log}: {block.name}: the state {format_state(o)} is listed twice")
        seen.add(key)
        if possible is not None and key not in possible:
            raise InvalidArgument(
                f"{log}: {block.name}: no execution of the test gives the state {format_state(o)} "
                "(whatever the model): not a log of this test"
            )
        if n <= 0:
            raise InvalidArgument(
                f"{log}: {block.name}: the state {format_state(o)} is counted {n} times (litmus7 lists the states seen)"
            )
        states.append((o, n, A.prop_holds(prop, o)))
    _summary_agrees(block, A.condition_of(test).quantifier, states, log)
    device = DeviceInfo(f"(read from {log})", "", 0, 0, 0, "", "", "")
    return _result(test, states, RunCounts(instances=sum(block.counts)), device, Setting(), "not run (read from a log)")
