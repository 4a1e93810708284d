"""Tests on which two models differ, smallest first,
like memalloy's distinguishing tests."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from .api import Limits, Result, check_many
from .generate import size
from .litmus import ast as A
from .litmus import parse
from .litmus.translate import read_as_by
from .models import get as get_model


@dataclass
class Difference:
    test: A.Test
    a: Result
    b: Result

    @property
    def what(self) -> list[str]:
        out = []
        if self.a.condition_holds != self.b.condition_holds:
            out.append("condition")
        if self.a.racy != self.b.racy:
            out.append("racy")
        return out


class Comparison(list):
    """The differences (a list of `Difference`, smallest first) and what the
    comparison established: `compared` tests both models decided in full,
    `incomplete` tests a limit cut under either model, `refused` tests either
    model refused (an unsupported operation, an error), each as
    (test name, reason)."""

    def __init__(self, diffs: Iterable[Difference] = ()):
        super().__init__(diffs)
        self.compared = 0
        self.incomplete: list[tuple[str, str]] = []
        self.refused: list[tuple[str, str]] = []
        # (test name, model, dialect): tests a model read through a translation
        self.translated: list[tuple[str, str, str]] = []

    @property
    def established(self) -> bool:
        """True when every test was compared (no test left undecided)."""
        return not self.incomplete and not self.refused

    def summary(self, model_a: str, model_b: str) -> str:
        total = self.compared + len(self.incomplete) + len(self.refused)
        text = f"{len(self)} of {total} tests separate {model_a} and {model_b}"
        if not self.established:
            text += (
                f" ({self.compared} compared; {len(self.incomplete)} cut short by a limit, "
                f"{len(self.refused)} refused by a model, neither counted)"
            )
        for model in dict.fromkeys(m for _, m, _ in self.translated):
            n = sum(m == model for _, m, _ in self.translated)
            arch = next(a for _, m, a in self.translated if m == model)
            text += f"; {n} read by {model} translated into {arch} (hrf.litmus.translate)"
        return text


def compare(
    tests: Iterable[A.Test | str | os.PathLike] | A.Test | str | os.PathLike,
    model_a: str,
    model_b: str,
    workers: int | None = None,
    limits: Limits | None = None,
) -> Comparison:
    """Every test whose condition verdict or race verdict differs between
    the two models, smallest first. A test either model refuses or cannot
    finish is no difference, and no agreement either: the result counts it
    in `incomplete` or `refused`, with the reason. A model that reads
    another dialect of the test's architecture reads the test translated
    (`hrf.litmus.translate`: [GPU15]'s PTX for the PTX 6.0 models), and the
    result lists it in `translated`."""
    items: list = [tests] if isinstance(tests, (str, os.PathLike, A.Test)) else list(tests)  # one test, or many
    parsed: list[A.Test] = [t if isinstance(t, A.Test) else parse(t) for t in items]
    out = Comparison()
    models = [get_model(model_a), get_model(model_b)]
    read = [[_as_read_by(t, m, out.translated) for t in parsed] for m in models]
    if out.translated:  # each model its own reading of the tests
        per_model = [
            list(check_many(r, [m], workers=workers, limits=limits)) for r, m in zip(read, models, strict=True)
        ]
        pairs = list(zip(*per_model, strict=True))
    else:  # one run, each test compiled once for both
        results = list(check_many(parsed, models, workers=workers, limits=limits))
        pairs = [(results[2 * i], results[2 * i + 1]) for i in range(len(parsed))]
    diffs = []
    for t, (ra, rb) in zip(parsed, pairs, strict=True):
        errors = [f"{r.model}: {r.error}" for r in (ra, rb) if r.error is not None]
        if errors:
            out.refused.append((t.name, "; ".join(errors)))
            continue
        cut = [f"{r.model}: {_limit_text(r)}" for r in (ra, rb) if not r.complete]
        if cut:
            out.incomplete.append((t.name, "; ".join(cut)))
            continue
        out.compared += 1
        if (ra.condition_holds, ra.racy) != (rb.condition_holds, rb.racy):
            diffs.append(Difference(t, ra, rb))
    diffs.sort(key=lambda d: size(d.test))
    out.extend(diffs)
    return out


def _as_read_by(t: A.Test, model, translated: list) -> A.Test:
    """The test as `model` reads it (`read_as_by`), each translation listed."""
    u, arch = read_as_by(t, model)
    if arch is not None:
        translated.append((t.name, model.name, arch))
    return u


def _limit_text(r: Result) -> str:
    return f"limit {r.limit['which']} ({r.limit['detail']})" if r.limit else "incomplete"
