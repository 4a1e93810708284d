"""The LALR parsers of the litmus syntaxes, built once per grammar and
kept between runs: lark stores the analysed tables in a per-user cache
folder (`$XDG_CACHE_HOME/hrf`, else `~/.cache/hrf`; `HRF_CACHE=off`
turns it off) and rebuilds them whenever the grammar, the options or
lark change (it checks a hash of all three). Without a writable folder
the parser is built in memory, as before."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from lark import Lark
from lark import __version__ as lark_version


def cache_folder() -> Path | None:
    """The per-user cache folder, created (mode 0700) on first use; None
    when caching is off or no folder can be made."""
    if os.environ.get("HRF_CACHE", "").lower() in ("off", "0", "no"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "hrf"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if os.access(folder, os.W_OK) else None


def lalr(grammar_file: Path, **options: Any) -> Lark:
    """The LALR parser of a grammar file, from the cache when it is there."""
    grammar = grammar_file.read_text()
    folder = cache_folder()
    if folder is None:
        return Lark(grammar, parser="lalr", **options)
    cache = folder / f"{grammar_file.stem}-lark{lark_version}.lalr"
    return Lark(grammar, parser="lalr", cache=str(cache), **options)
