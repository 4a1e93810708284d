"""Litmus syntaxes -> one AST (SPEC sec. 3), and a printer back to text."""
from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import LitmusSyntaxError
from . import ast
from .ast import Test
from .validate import validate

__all__ = ["parse", "parse_text", "parse_file", "Test", "ast"]

_ARCH = re.compile(r"\A\s*(\S+)")


def parse_text(text: str, path: str | None = None) -> Test:
    """Parse litmus text; the first word of the header chooses the syntax."""
    m = _ARCH.match(text)
    if not m:
        raise LitmusSyntaxError("empty litmus test", path, 1, 1)
    arch = m.group(1).upper()
    if arch in ("OPENCL", "C"):
        from .opencl import parse_opencl
        return validate(parse_opencl(text, path), text)
    if arch == "GPU_PTX":
        from .ptx import parse_ptx
        return validate(parse_ptx(text, path), text)
    line = text[: m.start(1)].count("\n") + 1
    raise LitmusSyntaxError(
        f"unknown litmus architecture {m.group(1)!r} (this version reads OpenCL, C and GPU_PTX tests)",
        path, line, 1, text.splitlines()[line - 1] if text.splitlines() else None)


def read_file(path) -> str:
    """A test file's text; an unreadable file is a LitmusSyntaxError naming it."""
    try:
        return Path(path).read_text()
    except OSError as e:
        raise LitmusSyntaxError(f"cannot read file: {e.strerror}", str(path)) from None


def parse_file(path) -> Test:
    return parse_text(read_file(path), str(path))


def parse(path_or_text) -> Test:
    """A path to a .litmus file, or litmus text, or an already parsed Test."""
    if isinstance(path_or_text, Test):
        return path_or_text
    if isinstance(path_or_text, os.PathLike):
        return parse_file(path_or_text)
    s = str(path_or_text)
    if "\n" not in s and (s.endswith(".litmus") or os.path.exists(s)):
        return parse_file(s)
    return parse_text(s)
