"""Isabelle terms: names, string literals, sets, lists, text blocks, and
the base theories' folder."""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import UnsupportedFeature

BASE_DIR = Path(__file__).parent.parent / "isabelle_export"
# Model_hrf_*_relaxed, Model_opencl_rsp: the exporter's translation of
# those models, kept here so that Hrf_Relaxed_Theorems, Hrf_Lattice and
# Hrf_Source_Opencl prove their theorems over them (a test checks they are
# what the exporter writes today).
BASE_THEORIES = (
    "Hrf_Execution",
    "Hrf_Models",
    "Hrf_Theorems",
    "Model_hrf_direct_relaxed",
    "Model_hrf_indirect_relaxed",
    "Model_opencl_rsp",
    "Hrf_Relaxed_Theorems",
    "Hrf_Lattice",
    "Hrf_Machine",
    "Hrf_Closure",
    "Hrf_Mapping",
    "Hrf_Simulation",
    "Hrf_Source",
    "Hrf_Source_Opencl",
    "Hrf_Exhibit",
    "Hrf_Coherence",
    "Hrf_Happens",
    "Hrf_Atomicity",
    "Hrf_Consistent",
    "Hrf_Soundness",
)
SESSION = "Hrf_Export"


def safe_name(text: str, prefix: str = "T") -> str:
    """An Isabelle identifier for `text`: letters, digits and single
    underscores, starting with a letter (`prefix` is put in front of
    anything else)."""
    s = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")
    if not s or not s[0].isalpha():
        s = f"{prefix}_{s}" if s else prefix
    return s


def string_term(s: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_]+", s):
        raise UnsupportedFeature(f"cannot write {s!r} as an Isabelle string literal")
    return f"''{s}''"


def set_term(items) -> str:
    items = list(items)
    return "{" + ", ".join(str(x) for x in items) + "}" if items else "{}"


def list_term(items) -> str:
    return "[" + ", ".join(str(x) for x in items) + "]"


def int_term(v: int) -> str:
    """An integer literal; a negative one in parentheses."""
    return str(v) if v >= 0 else f"({v})"


def pairs_term(pairs) -> str:
    return set_term(f"({a}, {b})" for a, b in sorted(map(tuple, pairs)))


def text_body(s: str) -> str:
    """A text block's body: no backslash (it would start a symbol, maybe a
    closing cartouche) and no antiquotation."""
    return s.replace("\\", "\\<backslash>").replace("@{", "@ {")


def arg_term(t: str) -> str:
    """A term as a function argument: parenthesised unless atomic."""
    if " " not in t:
        return t
    depth = 0
    for i, ch in enumerate(t):
        depth += (ch == "(") - (ch == ")")
        if depth == 0:
            return t if t[0] == "(" and i == len(t) - 1 else f"({t})"
    return f"({t})"
