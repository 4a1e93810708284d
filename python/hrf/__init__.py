"""hrf: what GPU and heterogeneous programs may do under scoped memory models.

    >>> import hrf
    >>> r = hrf.check("litmus/hrf/hrf14-fig6.litmus", "hrf-indirect")
    >>> r.condition_holds, r.racy

The public names below are a contract: extend, don't rename.
"""

from __future__ import annotations

import sys
import types
from importlib import import_module
from typing import TYPE_CHECKING, Any

from .api import Limits, Result, check, check_many
from .errors import (
    CoreError,
    DefinitionError,
    HrfError,
    InvalidArgument,
    LimitExceeded,
    LitmusSyntaxError,
    UnsupportedFeature,
)
from .litmus import Test, parse

# Imported on first use, so that `import hrf` (and a cold `hrf check`)
# loads only what checking needs: name -> module that defines it.
_LAZY = {
    "generate": "generate",
    "compare": "compare",
    "soundness": "soundness",
    "export_isabelle": "isabelle",
    "export_mapping_isabelle": "isabelle",
    "to_litmus": "litmus.printer",
    "explore": "machine",
    "parse_machine": "machine",
    "compile_scheme": "mappings",
    "schemes": "mappings",
    "check_mapping": "mapcheck",
    "check_mappings": "mapcheck",
}

# `generate`, `compare` and `soundness` are functions named as the modules
# that define them. Importing such a module binds it to its name on this
# package; the package keeps the function there instead (the module stays
# in sys.modules, so `from hrf.generate import ...` reads it).
_FUNCTIONS_NAMED_AS_MODULES = frozenset({"generate", "compare", "soundness"})


class _Package(types.ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        if name in _FUNCTIONS_NAMED_AS_MODULES and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

if TYPE_CHECKING:
    from .compare import compare
    from .generate import generate
    from .isabelle import export_isabelle, export_mapping_isabelle
    from .litmus.printer import to_litmus
    from .machine.explore import explore
    from .machine.program import parse_machine
    from .mapcheck import check_mapping, check_mappings
    from .mappings import compile_scheme, schemes
    from .soundness import soundness


def __getattr__(name: str) -> Any:
    if name == "__version__":  # one source: Cargo.toml, built into the core (and the package metadata)
        from .core import version

        globals()[name] = version()
        return globals()[name]
    if name in _LAZY:
        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'hrf' has no attribute {name!r}")


if TYPE_CHECKING:
    __version__: str


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
    "check_mapping",
    "check_mappings",
    "compile_scheme",
    "schemes",
    "explore",
    "parse_machine",
    "export_isabelle",
    "export_mapping_isabelle",
    "HrfError",
    "LitmusSyntaxError",
    "UnsupportedFeature",
    "LimitExceeded",
    "CoreError",
    "DefinitionError",
    "InvalidArgument",
]
