"""Is a compiler's mapping sound? A mapping between axiomatic models
(`hrf.mappings.axiomatic`: C11/OpenCL atomics -> PTX) checked on a test:
the source test under the source model, the test the mapping compiles it
to under the target model, and every target outcome must be a source
outcome (over the source's registers and locations, every one observed).
A source test the source model finds racy (its own race definition) has
no meaning to keep and is skipped; a limit leaves the test undecided.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .api import Limits, check_compiled
from .errors import HrfError
from .graph import Drawable
from .litmus import ast as A
from .litmus import parse
from .litmus.printer import format_state
from .models import get as get_model
from .program import compile_test

VERDICTS = ("sound", "unsound", "racy", "limit")


@dataclass
class MappingResult(Drawable):
    name: str
    path: str | None
    mapping: str
    source_model: str
    target_model: str
    verdict: str  # sound, unsound, racy (skipped), limit (not decided)
    extra: list = field(default_factory=list)  # target outcomes the source does not allow
    reason: str = ""
    source: Any = field(default=None, repr=False)  # the source Result
    target: Any = field(default=None, repr=False)  # the target Result
    compiled: A.Test | None = field(default=None, repr=False)  # the test the mapping gives

    @property
    def sound(self) -> bool | None:
        return {"sound": True, "unsound": False}.get(self.verdict)

    def counterexample(self) -> dict | None:
        """A target execution reaching the first outcome the source does not allow."""
        if not self.extra or self.target is None:
            return None
        want = self.extra[0]
        self.target.build_witnesses()
        for st in self.target.states:
            if {k: v for k, v in st[0].items() if k in want} == want:
                return st[4]
        return None

    def to_dot(self) -> str:
        if self.target is None or not self.extra:
            from .errors import HrfError as _E

            raise _E(f"{self.name}: no counterexample to draw ({self.verdict})")
        return self.target.to_dot(self.counterexample())

    def target_text(self) -> str:
        """The compiled test, in Dat3M's PTX dialect."""
        from .litmus.dat3m_print import to_dat3m

        assert self.compiled is not None
        return to_dat3m(self.compiled, "PTX")

    def to_text(self) -> str:
        head = f"{self.name}: {self.mapping} from {self.source_model} to {self.target_model}: {self.verdict.upper()}"
        if self.reason:
            head += f" ({self.reason})"
        lines = [head]
        for o in self.extra:
            lines.append("  outcome the source does not allow: " + format_state(o))
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "path": self.path,
            "mapping": self.mapping,
            "source_model": self.source_model,
            "target_model": self.target_model,
            "verdict": self.verdict,
            "reason": self.reason,
            "extra": self.extra,
        }

    def __repr__(self) -> str:
        return f"<MappingResult {self.name} {self.mapping} {self.source_model} -> {self.target_model}: {self.verdict}>"


def _mapping(m):
    from .mappings.models import get as get_mapping

    return get_mapping(m)


def check_mapping(test, mapping, source=None, target=None, *, limits: Limits | None = None, **kw) -> MappingResult:
    """Check `mapping` (a name or a Mapping) on one test from `source` to
    `target` (model names or Models; the mapping's defaults)."""
    from .api import limits_from

    limits = limits_from(limits, kw)
    mp = _mapping(mapping)
    src = get_model(source or mp.source_model)
    tgt = get_model(target or mp.target_model)
    t = parse(test)
    src.supports(t)
    from .mappings.axiomatic import apply

    u = apply(t, mp)
    tgt.supports(u)
    rs = check_compiled(compile_test(t, limits.unroll, src.cas_writeback, observe_all=True), src, limits)
    res = MappingResult(t.name, t.path, mp.name, src.name, tgt.name, "limit", source=rs, compiled=u)
    if not rs.complete:
        res.reason = f"source cut by limit {rs.limit['which'] if rs.limit else '?'}"
        return res
    if rs.flags:
        res.verdict, res.reason = "racy", f"the source is racy under {src.name}: skipped"
        return res
    rt = check_compiled(compile_test(u, limits.unroll, tgt.cas_writeback, observe_all=True), tgt, limits)
    res.target = rt
    keys = {k for o in rs.outcomes for k in o} or {k for o in rt.outcomes for k in o}
    allowed = {tuple(sorted(o.items())) for o in rs.outcomes}
    extra = []
    for o in rt.outcomes:
        p = {k: v for k, v in o.items() if k in keys}
        if tuple(sorted(p.items())) not in allowed and p not in extra:
            extra.append(p)
    res.extra = extra
    if extra:  # established by the executions found, limit or not
        res.verdict = "unsound"
    elif rt.complete:
        res.verdict = "sound"
    else:
        res.reason = f"target cut by limit {rt.limit['which'] if rt.limit else '?'}"
    return res


def _one(args) -> MappingResult | HrfError:
    test, mapping, source, target, limits = args
    try:
        r = check_mapping(test, mapping, source, target, limits=limits)
    except HrfError as e:
        e.test_name = getattr(test, "name", str(test))  # type: ignore[attr-defined]
        return e
    r.source = r.target = None  # the results stay in the worker
    return r


def check_mappings(
    tests: Iterable, mapping, source=None, target=None, *, limits: Limits | None = None, workers: int | None = None
) -> Iterator[MappingResult | HrfError]:
    """`check_mapping` on every test, in order, on `workers` processes (all
    cores when None; 1: here). A test the mapping or a model refuses yields
    its HrfError. Results from workers keep no Result objects (draw a
    counterexample by checking its test again with `check_mapping`)."""
    from .api import limits_from

    limits = limits_from(limits, {})
    mp = _mapping(mapping)
    jobs = ((t, mp, source, target, limits) for t in tests)
    n = workers or os.cpu_count() or 1
    if n <= 1 or not hasattr(os, "fork"):
        for j in jobs:
            try:
                yield check_mapping(*j[:4], limits=j[4])
            except HrfError as e:
                yield e
        return
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(n) as pool:
        yield from pool.imap(_one, jobs, chunksize=32)
