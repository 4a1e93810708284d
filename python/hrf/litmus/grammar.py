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

from ..cache import cache_folder, write_whole


def lalr(grammar_file: Path, **options: Any) -> Lark:
    """The LALR parser of a grammar file, from the cache when it is there.
    The cache file's name carries a hash of the grammar, the options and
    the versions of lark and Python; it is written whole (a temporary file
    renamed), so that processes starting together never read half of one."""
    grammar = grammar_file.read_text()
    folder = cache_folder()
    if folder is None:
        return Lark(grammar, parser="lalr", **options)
    key = hashlib.sha256(
        repr((grammar, sorted(options.items()), lark_version, sys.version_info[:2])).encode()
    ).hexdigest()[:16]
    cache = folder / f"{grammar_file.stem}-{key}.lalr"
    try:
        with open(cache, "rb") as f:
            return Lark.load(f)
    except Exception:  # absent, or unreadable: build it again
        pass
    parser = Lark(grammar, parser="lalr", **options)
    write_whole(cache, parser.save)
    return parser
