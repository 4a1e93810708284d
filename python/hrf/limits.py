"""The limits on work that could explode (`hrf.Limits`), and the checks
of the arguments that set them: one place, read by `check`, `check_many`,
the command line and the cluster."""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING

from .core import CHECK_DEFAULTS, MAX_WORKERS
from .errors import InvalidArgument, check_whole

if TYPE_CHECKING:
    from .dsl import Model

UNROLL = 2  # loop iterations before a path is cut, by default


def physical_memory() -> int | None:
    """Bytes of physical memory of this machine (None where unknown)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return None


def default_max_memory() -> int | None:
    """The default memory budget of one process: 40% of physical memory
    (two bulk workers then stay within 80% of it)."""
    total = physical_memory()
    return None if total is None else int(total * 0.4)


@dataclass
class Limits:
    """Limits on work that could explode. A result cut short
    by one says so (`complete` False, `limit` set) and claims no verdict it
    did not establish. Every limit holds from the first phase of a check
    (value domains, control paths, candidates) to the last."""

    # The core's defaults (rust/src/limits.rs, the one place they are written).
    # Candidate executions judged; a partial candidate that pruning rules
    # out counts as one, so that the limit bounds the work.
    max_candidates: int = CHECK_DEFAULTS["max_candidates"]
    max_seconds: float | None = CHECK_DEFAULTS["max_seconds"]
    max_paths: int = CHECK_DEFAULTS["max_paths"]  # control paths per thread
    max_values: int = CHECK_DEFAULTS["max_values"]  # values a location may hold
    unroll: int = UNROLL  # loop iterations before a path is cut (compiling is Python's)
    reference: bool = CHECK_DEFAULTS["reference"]  # slow reference enumerator (no pruning)
    keep_all: bool = CHECK_DEFAULTS["keep_all"]  # keep every consistent execution
    max_kept: int | None = CHECK_DEFAULTS["max_kept"]  # with keep_all: at most this many (the first enumerated)
    # A witness execution per outcome and per flag; off for verdict-only bulk
    # runs (then flags carry their kind and check but no events).
    witnesses: bool = CHECK_DEFAULTS["witnesses"]
    # Stop at the first consistent execution that settles the condition
    # (exists, ~exists: one where it holds; forall: one where it fails):
    # the verdict is established, the outcomes and flags are those found
    # until then, and the result says so (complete False, limit `decided`).
    decide: bool = CHECK_DEFAULTS["decide"]
    # Resident memory of the process in bytes; None: `default_max_memory()`.
    max_memory: int | None = None
    # Reads may guess values out of thin air (closed over the test's
    # constants and one fresh value); None: the model's own default
    # (Model.thin_air: on for models whose axioms admit such values).
    thin_air: bool | None = None

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if f.type == "bool" or f.name == "thin_air":
                if v is None and f.name == "thin_air":
                    continue
                if not isinstance(v, bool):
                    raise InvalidArgument(f"limit {f.name} must be True or False, not {v!r}")
            elif f.name == "max_seconds":
                if v is not None and (
                    isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0
                ):
                    raise InvalidArgument(
                        f"limit max_seconds must be a finite number of seconds > 0 (or None), not {v!r}"
                    )
            elif f.name == "max_memory":
                if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v <= 0):
                    raise InvalidArgument(f"limit max_memory must be a number of bytes > 0 (or None), not {v!r}")
            elif v is None and f.type.endswith("| None"):
                continue
            else:
                least = 0 if f.name == "unroll" else 1
                if isinstance(v, bool) or not isinstance(v, int) or v < least:
                    raise InvalidArgument(f"limit {f.name} must be a whole number >= {least}, not {v!r}")

    def memory_budget(self) -> int | None:
        return self.max_memory if self.max_memory is not None else default_max_memory()

    def core_json(self, model: Model | None = None) -> str:
        """The limits as the core reads them, for checking under `model`
        (which decides thin_air when the limits leave it None)."""
        d = {f: getattr(self, f) for f in _CORE_LIMITS}  # scalars: no asdict's deep copy
        d["max_memory"] = self.memory_budget()
        d["thin_air"] = self.thin_air if self.thin_air is not None else bool(model is not None and model.thin_air)
        return json.dumps(d)


# The limits the core reads (unroll is the compiler's).
_CORE_LIMITS = tuple(f.name for f in fields(Limits) if f.name != "unroll")


def on_limit_mode(on_limit: str) -> str:
    if on_limit not in ("result", "raise"):
        raise InvalidArgument(f"on_limit must be 'result' or 'raise', not {on_limit!r}")
    return on_limit


def limits_from(limits, kw) -> Limits:
    if limits is not None and not isinstance(limits, Limits):
        raise InvalidArgument(f"limits must be an hrf.Limits, not {type(limits).__name__}")
    limits = limits or Limits()
    if kw:
        d = asdict(limits)
        for k, v in kw.items():
            if k not in d:
                raise InvalidArgument(f"unknown limit {k!r}; known: {', '.join(d)}")
            d[k] = v
        limits = Limits(**d)
    return limits


# More workers than this is a mistake (each is a thread or a process).


def check_workers(workers) -> None:
    """`workers`: None (every core) or a whole number from 1 to MAX_WORKERS."""
    check_whole("workers", workers, 1, MAX_WORKERS, none_ok=True)
