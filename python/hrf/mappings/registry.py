"""The shipped schemes by name, and a user's scheme file by path."""

from __future__ import annotations

from ..errors import UnsupportedFeature
from ..userfile import is_path, load
from .scheme import Scheme


def schemes() -> list:
    return list(_registry())


def get(name) -> Scheme:
    """A shipped scheme by name, or the SCHEME of a Python file (a path:
    `hrf.userfile`)."""
    if isinstance(name, Scheme):
        return name
    reg = _registry()
    if name not in reg and is_path(name):
        return load(name, "SCHEME", Scheme, "scheme", list(reg))
    if name not in reg:
        raise UnsupportedFeature(f"unknown scheme {name!r}; schemes: {', '.join(reg)}")
    return reg[name]


def _registry() -> dict:
    from . import hrf_cache, rsp_new, rsp_old

    return {s.name: s for s in (rsp_old.SCHEME, rsp_new.SLIDES, rsp_new.SCHEME, hrf_cache.SCHEME, hrf_cache.LOCKED)}
