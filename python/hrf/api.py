"""`hrf.check` and `hrf.check_many` and their result object: the names of
`hrf.results` (what a check establishes), `hrf.checking` (one test),
`hrf.many` (many tests) and `hrf.limits` (the limits), in one place."""

from __future__ import annotations

from .checking import check, check_compiled, prepare
from .limits import (
    UNROLL,
    Limits,
    check_workers,
    default_max_memory,
    limits_from,
    on_limit_mode,
    physical_memory,
)
from .many import adopt, check_many, check_on_cluster, error_results, portable
from .program import compile_test
from .results import WITNESS_KEYS, Flag, Result, build_result, condition_verdict, verdict

__all__ = [
    "UNROLL",
    "WITNESS_KEYS",
    "Flag",
    "Limits",
    "Result",
    "adopt",
    "build_result",
    "check",
    "check_compiled",
    "check_many",
    "check_on_cluster",
    "check_workers",
    "compile_test",
    "condition_verdict",
    "default_max_memory",
    "error_results",
    "limits_from",
    "on_limit_mode",
    "physical_memory",
    "portable",
    "prepare",
    "verdict",
]
