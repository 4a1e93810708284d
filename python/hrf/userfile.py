"""Models and schemes of the user's own, from Python files.

A model file defines `MODEL` (a `hrf.dsl.Model`), as the files of
`hrf.models` do; a scheme file defines `SCHEME` (a `hrf.mappings.Scheme`),
as the files of `hrf.mappings` do. Wherever hrf takes a model or scheme
name, it also takes the path of such a file (`hrf check t.litmus -m
./mine.py`, `hrf soundness t.litmus -s ./my_scheme.py`). Each file is run
once per process (again when it changes).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import traceback
from typing import Any

from .errors import DefinitionError, read_input

# (absolute path, mtime_ns, size) -> the object the file defines
_LOADED: dict = {}


def is_path(name) -> bool:
    """Does a model or scheme name stand for a file?"""
    return isinstance(name, (str, os.PathLike)) and (str(name).endswith(".py") or os.sep in str(name))


def load(path, attr: str, cls: type[Any], what: str, builtin: list) -> Any:
    """The `attr` (an instance of `cls`) that the Python file at `path`
    defines; `what` ("model", "scheme") and `builtin` (the names shipped)
    are for the errors."""
    path = os.fspath(path)
    full = os.path.abspath(path)
    try:
        st = os.stat(full)
    except OSError as e:
        raise DefinitionError(f"cannot read this {what} file: {e.strerror or e}", path) from None
    key = (full, st.st_mtime_ns, st.st_size)
    if key in _LOADED:
        return _LOADED[key]
    try:
        text = read_input(full).decode("utf-8")
        code = compile(text, full, "exec")
    except SyntaxError as e:
        raise DefinitionError(
            f"Python syntax: {e.msg}", path, e.lineno, e.offset, (e.text or "").rstrip("\n") or None
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        raise DefinitionError(f"cannot read this {what} file: {e}", path) from None
    modname = f"hrf_user_{what}_{abs(hash(key)):x}"
    spec = importlib.util.spec_from_file_location(modname, full)
    if spec is None or spec.loader is None:
        raise DefinitionError(f"cannot load this {what} file as Python", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    try:
        exec(code, mod.__dict__)
    except SystemExit as e:  # sys.exit() in the file must not end hrf without a word
        del sys.modules[modname]
        line = next((fr.lineno for fr in reversed(traceback.extract_tb(e.__traceback__)) if fr.filename == full), None)
        raise DefinitionError(
            f"this {what} file called sys.exit({e.code!r}) while it was run", path, line, excerpt=_line(text, line)
        ) from None
    except Exception as e:
        del sys.modules[modname]
        # the deepest frame in the user's file: where its code failed
        line = next((fr.lineno for fr in reversed(traceback.extract_tb(e.__traceback__)) if fr.filename == full), None)
        raise DefinitionError(
            f"running this {what} file raised {type(e).__name__}: {e}", path, line, excerpt=_line(text, line)
        ) from e
    obj: Any = mod.__dict__.get(attr)
    if obj is None:
        raise DefinitionError(
            f"defines no {attr} (a {cls.__module__}.{cls.__name__}): "
            f"a {what} file ends with `{attr} = {cls.__name__}(...)`",
            path,
        )
    if not isinstance(obj, cls):
        raise DefinitionError(f"{attr} is a {type(obj).__name__}, not a {cls.__module__}.{cls.__name__}", path)
    if obj.name in builtin:
        raise DefinitionError(
            f"{what} name {obj.name!r} is a shipped {what}'s: give yours another name, "
            f"so that results say which one they come from",
            path,
        )
    validate = getattr(obj, "validate", None)
    if validate is not None:
        try:
            validate()
        except DefinitionError as e:
            raise DefinitionError(e.message, path) from None
    _LOADED[key] = obj
    return obj


def _line(text: str, line):
    lines = text.splitlines()
    return lines[line - 1].strip() if line and 0 < line <= len(lines) else None
