"""Tests on which two models differ, smallest first,
like memalloy's distinguishing tests."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .api import Limits, Result, check_many
from .generate import size
from .litmus import ast as A


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


def compare(
    tests: Iterable[A.Test], model_a: str, model_b: str, workers: int | None = None, limits: Limits | None = None
) -> list[Difference]:
    """Every test whose condition verdict or race verdict differs between
    the two models, smallest first. A test either model rejects or cannot
    finish is not a difference."""
    tests = list(tests)
    results = list(check_many(tests, [model_a, model_b], workers=workers, limits=limits))
    diffs = []
    for i, t in enumerate(tests):
        ra, rb = results[2 * i], results[2 * i + 1]
        if ra.error is not None or rb.error is not None or not (ra.complete and rb.complete):
            continue
        if (ra.condition_holds, ra.racy) != (rb.condition_holds, rb.racy):
            diffs.append(Difference(t, ra, rb))
    diffs.sort(key=lambda d: size(d.test))
    return diffs
