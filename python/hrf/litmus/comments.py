"""herd's comments, `(* ... *)`, blanked before a test is read.

herd's lexers skip `(* ... *)` (nested, as OCaml's) wherever they read the
parts of a test that are not code: the header's doc lines, the init block,
between threads, the scope tree, the locations and the condition. Blanking
them first (each character but newlines becomes a space) keeps every line
and column where it was, so the readers never see a comment and their
errors point where they did. Inside the code of a C or OpenCL thread,
`(*x)` is C; such bodies are left as they are (their comments are C's own,
which the readers skip)."""

from __future__ import annotations

import re

# what the scan stops at: a comment, a quoted string, a brace, or a thread
# header at the start of a line (whose body, in C, follows in braces)
_SCAN = re.compile(r'(?P<open>\(\*)|"[^"\n]*"|(?P<brace>\{)|\}|(?P<header>^[ \t]*P\d+\b)', re.M)
_NEST = re.compile(r"\(\*|\*\)")
# C's comments and strings inside a thread body (a brace in them is not one)
_C_SKIP = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:[^"\\\n]|\\.)*"|[{}]', re.S)


def _blank(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


def comment_end(text: str, start: int) -> int:
    """The index past the `*)` closing the comment opened at `start`
    (comments nest); len(text) where it is never closed."""
    depth = 0
    for m in _NEST.finditer(text, start):
        depth += 1 if m.group() == "(*" else -1
        if depth == 0:
            return m.end()
    return len(text)


def blank_comments(text: str, c_bodies: bool) -> str:
    """`text` with herd's comments blanked. With `c_bodies`, the braces
    after a thread header hold C code and are left as they are."""
    if "(*" not in text:
        return text  # nothing to blank (most tests): no scan
    out: list[str] = []
    pos = 0
    header = False  # a thread header was read: its body's brace is next
    while True:
        m = _SCAN.search(text, pos)
        if m is None:
            out.append(text[pos:])
            return "".join(out)
        if m.lastgroup == "open":
            end = comment_end(text, m.start())
            out += [text[pos : m.start()], _blank(text[m.start() : end])]
            pos = end
        elif c_bodies and m.lastgroup == "brace" and header:
            end = _body_end(text, m.end())
            out.append(text[pos:end])
            pos, header = end, False
        else:
            header = header or m.lastgroup == "header"
            out.append(text[pos : m.end()])
            pos = m.end()


def _body_end(text: str, pos: int) -> int:
    """The index past the `}` that closes a C body opened just before `pos`."""
    depth = 1
    for m in _C_SKIP.finditer(text, pos):
        if m.group() == "{":
            depth += 1
        elif m.group() == "}":
            depth -= 1
            if depth == 0:
                return m.end()
    return len(text)
