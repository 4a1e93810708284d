"""hrf: what GPU and heterogeneous programs may do under scoped memory models.

    >>> import hrf
    >>> r = hrf.check("litmus/hrf/hrf14-fig6.litmus", "hrf-indirect")
    >>> r.condition_holds, r.racy

The public names below are a contract: extend, don't rename.
"""

from __future__ import annotations

from .api import Limits, Result, check, check_many
from .compare import compare
from .errors import (
    CoreError,
    DefinitionError,
    HrfError,
    InvalidArgument,
    LimitExceeded,
    LitmusSyntaxError,
    UnsupportedFeature,
)
from .generate import generate
from .isabelle import export_isabelle
from .litmus import Test, parse
from .litmus.printer import to_litmus
from .machine import explore, parse_machine
from .mappings import compile_scheme, schemes
from .soundness import soundness


def _version() -> str:
    """The installed distribution's version (one source: Cargo.toml, which
    maturin writes into the metadata)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hrf")
    except PackageNotFoundError:  # pragma: no cover - a source tree not installed
        return "unknown"


__version__ = _version()


from .models import names as _model_names  # noqa: E402  (before `models` is shadowed)


def models() -> list[str]:
    """Names of the models, as in docs/readings.md. (The subpackage
    `hrf.models` holds the model files; import from it by full name.)"""
    return _model_names()


__all__ = [
    "parse",
    "models",
    "check",
    "check_many",
    "generate",
    "compare",
    "Limits",
    "Result",
    "Test",
    "to_litmus",
    "soundness",
    "compile_scheme",
    "schemes",
    "explore",
    "parse_machine",
    "export_isabelle",
    "HrfError",
    "LitmusSyntaxError",
    "UnsupportedFeature",
    "LimitExceeded",
    "CoreError",
    "DefinitionError",
    "InvalidArgument",
]
