"""Litmus syntaxes -> one AST, and a printer back to text."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import NamedTuple

from ..errors import LitmusSyntaxError, read_input
from . import ast
from .ast import Test
from .validate import validate

__all__ = ["parse", "parse_text", "parse_file", "LitmusText", "Test", "ast"]

_ARCH = re.compile(r"\A\s*(\S+)")


# The first words of the syntaxes hrf reads (the machine's own included).
# (the GPU machine's own assembly: hrf.machine reads it)
MACHINE_ARCHES = ("GPU_MACHINE", "MACHINE")
ARCHES = ("OPENCL", "C", "GPU_PTX", "PTX", "VULKAN") + MACHINE_ARCHES


def too_deep(text: str, path: str | None) -> LitmusSyntaxError:
    """The error for a test nested deeper than hrf's recursion allows,
    placed where the brackets nest deepest (or, for a long flat chain such
    as a sum of thousands of terms, at the start of the longest line)."""
    lines = text.splitlines() or [""]
    depth, best = 0, 0
    where: tuple[int, int] = (1, 1)
    for ln, line in enumerate(lines, 1):
        for col, ch in enumerate(line, 1):
            if ch in "({[":
                depth += 1
                if depth > best:
                    best, where = depth, (ln, col)
            elif ch in ")}]":
                depth -= 1
    if best < 50:
        ln = max(range(len(lines)), key=lambda k: len(lines[k])) + 1
        where = (ln, 1)
    return LitmusSyntaxError(
        "the test nests statements, expressions, conditions or scopes too deeply for hrf "
        "(Python's recursion limit); split it or nest less",
        path,
        where[0],
        where[1],
        lines[where[0] - 1][:200],
    )


def parse_text(text: str, path: str | None = None) -> Test:
    """Parse litmus text; the first word of the header chooses the syntax."""
    if text.startswith("\ufeff"):  # a byte-order mark
        text = text[1:]
    try:
        return _parse_text(text, path)
    except RecursionError:
        raise too_deep(text, path) from None


def _parse_text(text: str, path: str | None) -> Test:
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
    if arch == "PTX":  # Dat3M's PTX dialect (PTX ISA 6.0 and 7.5)
        from .dat3m_ptx import parse_ptx_dat3m

        return validate(parse_ptx_dat3m(text, path), text)
    if arch == "VULKAN":  # Dat3M's Vulkan dialect
        from .vulkan import parse_vulkan

        return validate(parse_vulkan(text, path), text)
    line = text[: m.start(1)].count("\n") + 1
    if arch in MACHINE_ARCHES:
        raise LitmusSyntaxError(
            f"a {m.group(1)} test is machine code, not a source test: run it with `hrf explore` "
            "(hrf.explore), read it with hrf.parse_machine",
            path,
            line,
            1,
            text.splitlines()[line - 1] if text.splitlines() else None,
        )
    raise LitmusSyntaxError(
        f"unknown litmus architecture {m.group(1)!r} (this version reads OpenCL, C, GPU_PTX, PTX and Vulkan tests)",
        path,
        line,
        1,
        text.splitlines()[line - 1] if text.splitlines() else None,
    )


def decode(data: bytes, path: str | None = None) -> str:
    """A test's bytes as text: UTF-8, a leading byte-order mark skipped.
    Bytes that are not UTF-8 are a LitmusSyntaxError at their line and column."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
        before = data[start : e.start]
        line = before.count(b"\n") + 1
        col = len(before) - (before.rfind(b"\n") + 1) + 1
        excerpt = data[start:].split(b"\n")[line - 1].decode("utf-8", "replace")
        raise LitmusSyntaxError(
            f"byte 0x{data[e.start]:02x} is not UTF-8 text (is this a litmus file?)", path, line, col, excerpt
        ) from None


# The tests shipped with hrf (the papers' figures, the RSP and machine
# tests); in a clone of the repository also reachable as `litmus/`.
CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def resolve(path) -> Path:
    """`path`, or, when it is a relative `litmus/...` path that does not exist
    here, the copy shipped in the package (so the README's commands work from
    an installed wheel in any folder). The result names the file read."""
    p = Path(path)
    if p.exists() or p.is_absolute() or not p.parts or p.parts[0] != "litmus":
        return p
    shipped = CORPUS.joinpath(*p.parts[1:])
    return shipped if shipped.exists() else p


def read_file(path) -> str:
    """A test file's text; an unreadable file is a LitmusSyntaxError naming it."""
    path = resolve(path)
    try:
        data = read_input(path)
    except OSError as e:
        raise LitmusSyntaxError(f"cannot read file: {e.strerror}", str(path)) from None
    return decode(data, str(path))


def parse_file(path) -> Test:
    return parse_text(read_file(path), str(path))


class LitmusText(NamedTuple):
    """A test's bytes with the path they were read from: parsed as that
    file would be (errors name the path), where the file itself is not at
    hand (a cluster worker on another machine)."""

    data: bytes
    path: str

    @property
    def name(self) -> str:
        return self.path

    @classmethod
    def read(cls, path) -> LitmusText | str:
        """The file's bytes, or, where it cannot be read here, its path (to
        be read, or reported unreadable, where it is parsed)."""
        try:
            return cls(read_input(resolve(path)), str(path))
        except OSError:
            return str(path)


def parse(path_or_text) -> Test:
    """A path to a .litmus file, or litmus text, or an already parsed Test,
    or a `LitmusText`."""
    if isinstance(path_or_text, Test):
        return path_or_text
    if isinstance(path_or_text, LitmusText):
        return parse_text(decode(path_or_text.data, path_or_text.path), path_or_text.path)
    if isinstance(path_or_text, os.PathLike):
        return parse_file(path_or_text)
    if isinstance(path_or_text, bytes):
        return parse_text(decode(path_or_text))
    if not isinstance(path_or_text, str):
        from ..errors import InvalidArgument

        raise InvalidArgument(f"a test is a path, litmus text or an hrf.Test, not {type(path_or_text).__name__}")
    s = path_or_text
    if "\n" not in s and not looks_like_text(s):
        return parse_file(s)  # a missing file is an error naming it
    return parse_text(s)


def looks_like_text(s: str) -> bool:
    """Is a one-line string litmus text (it starts with a known
    architecture and a name) rather than a path?"""
    if os.path.exists(s) or s.endswith(".litmus"):
        return False
    words = s.lstrip("\ufeff").split(None, 2)
    return len(words) >= 2 and words[0].upper() in ARCHES
