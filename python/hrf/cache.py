"""hrf's per-user cache of what is slow to build and the same on every
start: the AST nodes' compiled methods.
The folder is `$XDG_CACHE_HOME/hrf`, else `~/.cache/hrf`; `HRF_CACHE=off`
turns it off. Each file's name carries a hash of everything it was built
from (so a change builds a new one), and is written whole (a temporary
file renamed), so processes starting together never read half of one.
Without a writable folder everything is built in memory, every time."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


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


def read_or_build(name: str, read, build, write):
    """The value the cache file `name` holds (`read(f)` of the file open for
    reading; None or an exception means absent, damaged or stale), else
    `build()`, then written to the file by `write(value, f)`. Without a
    cache folder, `build()` every time."""
    folder = cache_folder()
    if folder is None:
        return build()
    path = folder / name
    try:
        with open(path, "rb") as f:
            value = read(f)
        if value is not None:
            return value
    except Exception:  # absent or damaged: build it again
        pass
    value = build()
    write_whole(path, lambda f: write(value, f))
    return value


def write_whole(path: Path, write) -> None:
    """Write a cache file through `write(f)` on a temporary file renamed
    into place; on a full or read-only disk, write nothing."""
    tmp_name = None
    try:
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, delete=False) as tmp:
            tmp_name = tmp.name
            write(tmp)
        os.replace(tmp_name, path)
    except OSError:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
