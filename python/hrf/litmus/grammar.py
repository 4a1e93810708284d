"""The LALR parsers of the litmus syntaxes, built once per grammar and
kept between runs in hrf's per-user cache (`hrf.cache`): rebuilt whenever
the grammar, the options, lark or Python change (the file's name carries
a hash of all four)."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

from lark import Lark
from lark import __version__ as lark_version

from ..cache import read_or_build


def lalr(grammar_file: Path, **options: Any) -> Lark:
    """The LALR parser of a grammar file, from the cache when it is there.
    The cache file's name carries a hash of the grammar, the options and
    the versions of lark and Python."""
    grammar = grammar_file.read_text()
    key = hashlib.sha256(
        repr((grammar, sorted(options.items()), lark_version, sys.version_info[:2])).encode()
    ).hexdigest()[:16]
    return read_or_build(
        f"{grammar_file.stem}-{key}.lalr",
        Lark.load,
        lambda: Lark(grammar, parser="lalr", **options),
        lambda parser, f: parser.save(f),
    )
