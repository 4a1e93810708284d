"""The exception hierarchy of hrf."""

from __future__ import annotations

import os
from typing import TextIO, TypeVar

_L = TypeVar("_L", bound="_Located")


class HrfError(Exception):
    """Base class of every error hrf raises on purpose."""


class HrfWarning(UserWarning):
    """Base class of what hrf says without stopping: the command line
    prints it as a note on standard error."""


class StandInWarning(HrfWarning):
    """A .cat model includes a file of herd's library that is not at hand
    (beside the model, in --catdir or $HRF_CATDIR): hrf read its own
    stand-in for it (litmus/cat/herd-compat)."""


class _Located(HrfError):
    """An error at a place in a file: the file, line, column and the line's text."""

    def __init__(
        self,
        message: str,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        excerpt: str | None = None,
    ):
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.excerpt = excerpt
        super().__init__(self._text())

    @classmethod
    def at(
        cls: type[_L], message: str, file: str | None, lines: list[str], line: int | None, column: int | None = None
    ) -> _L:
        """The error at `line` (1-based) of a file read as `lines`, that line its excerpt."""
        excerpt = lines[line - 1] if line and 0 < line <= len(lines) else None
        return cls(message, file, line, column, excerpt)

    def _text(self) -> str:
        raise NotImplementedError  # each subclass says where

    def _caret(self) -> str:
        """The line, cut to a window of about 120 characters around the
        column (unprintable characters shown as ?), and a caret under it."""
        text = "".join(c if c.isprintable() or c == "\t" else "?" for c in self.excerpt or "")
        col = max((self.column or 1) - 1, 0)
        start = max(0, col - 60)
        window = text[start : start + 120]
        lead = "..." if start else ""
        tail = "..." if start + 120 < len(text) else ""
        return f"\n    {lead}{window}{tail}\n    " + " " * (len(lead) + col - start) + "^"

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:  # pickled whole (results come back from worker processes)
        return (type(self), (self.message, self.file, self.line, self.column, self.excerpt))


class LitmusSyntaxError(_Located):
    """A litmus test that does not parse: names the file, line and column."""

    def _text(self) -> str:
        where = self.file or "<string>"
        if self.line is not None:
            where += f":{self.line}" + (f":{self.column}" if self.column is not None else "")
        return f"{where}: {self.message}" + (self._caret() if self.excerpt is not None else "")


class UnsupportedFeature(HrfError):
    """The model (or syntax) does not cover an operation of the test."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None):
        self.message = message
        self.file = file
        self.line = line
        where = f"{file}:{line}: " if file and line else (f"{file}: " if file else "")
        super().__init__(where + message)

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.message, self.file, self.line))


class LimitExceeded(HrfError):
    """A user-set limit cut the work short; `result` holds what was established."""

    def __init__(self, which: str, detail: str, result: object = None):
        self.which = which
        self.detail = detail
        self.result = result
        super().__init__(f"limit '{which}' reached: {detail}")

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.which, self.detail, self.result))


class InvalidArgument(HrfError, ValueError):
    """An argument or option hrf cannot use (a negative limit, an unknown
    order, a string where a list of tests is wanted): names it and says what
    is accepted. The command line exits with status 2 on it, as on any
    usage error."""


def check_whole(what: str, value: object, least: int, most: int | None = None, none_ok: bool = False) -> int | None:
    """`value` as a whole number from `least` to `most` (None: no bound),
    or None where `none_ok`; anything else is InvalidArgument naming it."""
    if value is None and none_ok:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < least or (most is not None and value > most):
        bound = f">= {least}" if most is None else f"from {least} to {most}"
        raise InvalidArgument(f"{what} must be a whole number {bound}{' (or None)' if none_ok else ''}, not {value!r}")
    return value


def check_names(what: str, value: object) -> list[str]:
    """`value` as a list of strings (names, folders): a list, tuple or other
    iterable of strings, or None (no names). A single string is refused, not
    iterated as characters ("strict" is not ["s", "t", ...])."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, os.PathLike)):
        raise InvalidArgument(f"{what} must be a list of names, not the single {type(value).__name__} {value!r}")
    try:
        items = list(value)  # type: ignore[call-overload]
    except TypeError:
        raise InvalidArgument(f"{what} must be a list of names, not {value!r}") from None
    bad = [x for x in items if not isinstance(x, (str, os.PathLike))]
    if bad:
        raise InvalidArgument(f"{what} must be a list of names, but holds {bad[0]!r}")
    return [os.fspath(x) for x in items]


class CoreError(HrfError):
    """The Rust core rejected its input or failed; never a crash of the
    interpreter. `kind` is the core's: `decode` (an input that does not
    decode, e.g. an unknown field), `invalid` (an input not well formed),
    `unsupported` (more events than the core handles), `internal` (a bug)."""

    def __init__(self, message: str, kind: str = "internal"):
        self.kind = kind
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.args[0], self.kind))


class DefinitionError(_Located):
    """A model or scheme file of the user's that cannot be used: names the
    file, and the line and column when the fault is in one."""

    def _text(self) -> str:
        where = (
            (self.file or "<definition>")
            + (f":{self.line}" if self.line is not None else "")
            + (f":{self.column}" if self.line is not None and self.column is not None else "")
        )
        excerpt = "" if self.excerpt is None else self._caret() if self.column is not None else f"\n    {self.excerpt}"
        return f"{where}: {self.message}{excerpt}"


class OutputError(HrfError):
    """A file or folder hrf was asked to write cannot be written."""


# The largest input file hrf reads (a litmus test, a model, a scheduler
# file): the largest of the field's tests is a few kilobytes.
MAX_INPUT_BYTES = 16 << 20


def read_input(path: str | os.PathLike[str], limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them.
    A FIFO, a device, a folder or a larger file is refused as an OSError
    saying so (never a read that blocks or fills memory); callers turn it
    into their own located error."""
    import errno
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device"
            raise OSError(errno.EINVAL, f"not a regular file ({kind})")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit:,} bytes, the most hrf reads of an input")
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_output(path: str | os.PathLike[str], data: str | bytes | bytearray) -> None:
    """Write text or bytes to `path`; a failure is an OutputError naming it."""

    try:
        if isinstance(data, (bytes, bytearray)):
            with open(path, "wb") as fb:
                fb.write(data)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(data)
    except OSError as e:
        raise OutputError(f"cannot write {os.fspath(path)}: {e.strerror or e}") from None


def open_output(path: str | os.PathLike[str], newline: str | None = None) -> TextIO:
    """Open `path` for writing text; a failure is an OutputError naming it."""

    try:
        return open(path, "w", encoding="utf-8", newline=newline)
    except OSError as e:
        raise OutputError(f"cannot write {os.fspath(path)}: {e.strerror or e}") from None


def make_folder(path: str | os.PathLike[str]) -> str:
    """Create a folder (and its parents) and return the path to write
    into; a failure is an OutputError naming it. A path through a folder
    that does not exist and back (`sub/../../gen`) is the place it names
    (`../gen`): no `sub` is made on the way."""
    norm = os.path.normpath(path)
    real = os.path.realpath(path)
    folder = norm if os.path.realpath(norm) == real else real
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot create the folder {os.fspath(path)}: {e.strerror or e}") from None
    return folder
