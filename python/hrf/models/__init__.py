"""The memory models, one file each, in the DSL of `hrf.dsl` (docs/readings.md)."""

from __future__ import annotations

from importlib import import_module

from ..dsl import Model
from ..errors import HrfError
from ..userfile import is_path, load

# name -> module that defines MODEL
_REGISTRY = {
    "sc": "sc",
    "hrf-direct": "hrf_direct",
    "hrf-indirect": "hrf_indirect",
    "opencl": "opencl",
    "opencl-rsp": "opencl_rsp",
    "c11": "c11",
    "rc11": "rc11",
    "hrf-direct-relaxed": "hrf_direct_relaxed",
    "hrf-direct-relaxed-literal": "hrf_direct_relaxed_literal",
    "hrf-indirect-relaxed": "hrf_indirect_relaxed",
    "hrf-direct-relaxed-observable": "hrf_direct_relaxed_observable",
    "hrf-indirect-relaxed-observable": "hrf_indirect_relaxed_observable",
    "hrf-indirect-relaxed-spaces": "hrf_indirect_relaxed_spaces",
    "hrf-opencl": "hrf_opencl",
    "ptx": "ptx",
    "ptx-6.0": "ptx_6_0",
    "ptx-7.5": "ptx_7_5",
    "ptx-8.0": "ptx_8_0",
    "ptx-6.0-dat3m": "ptx_6_0_dat3m",
    "ptx-7.5-dat3m": "ptx_7_5_dat3m",
    "vulkan": "vulkan",
    "vulkan-nochains": "vulkan_nochains",
    "vulkan-dat3m": "vulkan_dat3m",
    "vulkan-nochains-dat3m": "vulkan_nochains_dat3m",
}


# Folders searched for the files a .cat model includes, after its own
# folder (the command line's --catdir, herd's -I).
CATDIR: list[str] = []
# The variants a .cat model's `if "name"` tests see (the command line's
# --variant, herd's -variant).
VARIANTS: list[str] = []
# Whether a failing compare-exchange writes back what it read, for .cat
# models, where the command line says (--cas-writeback): a choice of herd's
# front end, not of the file (the RSP artifact's herd leaves it out).
CAS_WRITEBACK: list[bool] = []
# How a .cat model of PTX reads Dat3M's PTX tests, where the command line
# says (--reading): "isa" (the default) or "dartagnan" (hrf.cat.load).
READING: list[str] = []


def names() -> list[str]:
    return list(_REGISTRY)


def summary(name) -> str:
    """A model's first sentence, whole (its docstring's lines joined): what
    `hrf models` and the page show."""
    import re

    text = " ".join((get(name).doc or "").split())
    # the first full stop that ends a sentence: not an abbreviation's (et al., App., Fig., e.g.)
    for m in re.finditer(r"\.(\s|$)", text):
        before = text[: m.start()].rsplit(" ", 1)[-1]
        if before in ("al", "App", "Fig", "Figs", "sec", "e.g", "i.e", "cf", "vs", "Def", "Thm") or len(before) == 1:
            continue
        return text[: m.start() + 1]
    return text


def get(name) -> Model:
    """A shipped model by name, or the MODEL of a Python file (a path:
    `hrf.userfile`)."""
    if isinstance(name, Model):
        return name
    if name not in _REGISTRY and str(name).endswith(".cat"):
        from ..cat import load as load_cat

        return load_cat(
            name,
            CATDIR,
            VARIANTS,
            CAS_WRITEBACK[0] if CAS_WRITEBACK else None,
            reading=READING[0] if READING else "isa",
        )
    if name not in _REGISTRY and is_path(name):
        return load(name, "MODEL", Model, "model", list(_REGISTRY))
    mod = _REGISTRY.get(name)
    if mod is None:
        raise HrfError(f"unknown model {name!r}; known models: {', '.join(_REGISTRY)}")
    return import_module(f"{__name__}.{mod}").MODEL


def readers(test) -> list[str]:
    """The built-in models that read the test (directly or translated, as
    every verb reads it): named where a model refuses it (the page, `hrf check`)."""
    from ..errors import HrfError
    from ..litmus.translate import read_by

    out = []
    for n in names():
        try:
            read_by(test, get(n))
        except HrfError:
            continue
        out.append(n)
    return out
