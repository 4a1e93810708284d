"""The shipped mappings between axiomatic models by name, and a user's
mapping file by path (a Python file defining MAPPING)."""

from __future__ import annotations

from ..errors import UnsupportedFeature
from ..userfile import is_path, load
from .axiomatic import Mapping


def mappings() -> list:
    return list(_registry())


def get(name) -> Mapping:
    if isinstance(name, Mapping):
        name.validate()
        return name
    reg = _registry()
    if name not in reg and is_path(name):
        m = load(name, "MAPPING", Mapping, "mapping", list(reg))
        m.validate()
        return m
    if name not in reg:
        raise UnsupportedFeature(f"unknown mapping {name!r}; mappings: {', '.join(reg)}")
    return reg[name]


def _registry() -> dict:
    from .ptx_abi import ABI, TRAILING

    return {m.name: m for m in (ABI, TRAILING)}
