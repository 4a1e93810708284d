"""herd's cat language: its tokens (names, tags, strings, numbers,
operators, keywords) with their lines and columns, and the located error
of a cat file."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import DefinitionError

KEYWORDS = {
    "let",
    "rec",
    "and",
    "when",
    "acyclic",
    "irreflexive",
    "show",
    "unshow",
    "empty",
    "subset",
    "as",
    "fun",
    "in",
    "undefined_unless",
    "flag",
    "assert",
    "include",
    "variant",
    "begin",
    "end",
    "procedure",
    "call",
    "enum",
    "debug",
    "match",
    "with",
    "forall",
    "from",
    "do",
    "try",
    "if",
    "then",
    "else",
    "instructions",
    "default",
    "not",
}

# herd's names: a letter (after an optional `_`), then letters, digits,
# `_`, `.`, `-`, and an optional final `'` (po-loc, membar.cta, scp').
_NAME = r"_?[A-Za-z][A-Za-z0-9_.\-]*'?"
_TOKEN = re.compile(
    rf"""
    (?P<nl>\n)
  | (?P<ws>[ \t\r]+)
  | (?P<line_comment>(?://|\#)[^\n]*)
  | (?P<tag>'{_NAME})
  | (?P<name>{_NAME})
  | (?P<string>"[^"]*")
  | (?P<num>[0-9]+)
  | (?P<op>\|\||&&|\+\+|->|-1|[(){{}}\[\]|&*~!+^\\?=;,_])
    """,
    re.X,
)


@dataclass(frozen=True)
class Tok:
    kind: str  # "name", "kw", "tag", "string", "num", "op", "eof"
    text: str
    line: int
    col: int


def tokenize(text: str, path: str | None) -> list[Tok]:
    toks: list[Tok] = []
    i, line, line_start = 0, 1, 0
    n = len(text)
    while i < n:
        if text.startswith("(*", i):  # nested OCaml comments
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("(*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*)", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            if depth:
                raise syntax_error("comment (* not closed", path, text, line, i - line_start + 1)
            chunk = text[i:j]
            line += chunk.count("\n")
            if "\n" in chunk:
                line_start = i + chunk.rindex("\n") + 1
            i = j
            continue
        if text.startswith("{%(*", i):  # herd 2015: LaTeX for the paper, {%(* ... %*)}
            j = text.find("%*)}", i + 4)
            if j < 0:
                raise syntax_error("{%(* not closed by %*)}", path, text, line, i - line_start + 1)
            chunk = text[i : j + 4]
            line += chunk.count("\n")
            if "\n" in chunk:
                line_start = i + chunk.rindex("\n") + 1
            i = j + 4
            continue
        m = _TOKEN.match(text, i)
        if m is None:
            raise syntax_error(f"unexpected character {text[i]!r}", path, text, line, i - line_start + 1)
        kind = m.lastgroup
        col = i - line_start + 1
        s = m.group()
        if kind == "nl":
            line, line_start = line + 1, m.end()
        elif kind in ("ws", "line_comment"):
            pass
        elif kind == "name":
            toks.append(Tok("kw" if s in KEYWORDS else "name", s, line, col))
        elif kind == "tag":
            toks.append(Tok("tag", s[1:], line, col))
        elif kind == "string":
            toks.append(Tok("string", s[1:-1], line, col))
        elif kind == "num":
            toks.append(Tok("num", s, line, col))
        else:
            toks.append(Tok("op", s, line, col))
        i = m.end()
    toks.append(Tok("eof", "", line, i - line_start + 1))
    return toks


def syntax_error(msg, path, text, line, col) -> DefinitionError:
    return DefinitionError.at(f"cat: {msg}", path, text.splitlines(), line, col)
