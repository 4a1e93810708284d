"""The LALR parsers of the litmus syntaxes, built once per grammar and
kept between runs: lark stores the analysed tables in a per-user cache
folder (`$XDG_CACHE_HOME/hrf`, else `~/.cache/hrf`; `HRF_CACHE=off`
turns it off) and rebuilds them whenever the grammar, the options, lark
or Python change (the file's name carries a hash of all four). Without a writable folder
the parser is built in memory, as before."""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
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
    tmp_name = None
    try:
        with tempfile.NamedTemporaryFile("wb", dir=folder, delete=False) as tmp:
            tmp_name = tmp.name
            parser.save(tmp)
        os.replace(tmp_name, cache)
    except OSError:  # a full or read-only disk: run without the cache
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
    return parser
