"""The exception hierarchy of hrf (SPEC sec. 10)."""
from __future__ import annotations


class HrfError(Exception):
    """Base class of every error hrf raises on purpose."""


class LitmusSyntaxError(HrfError):
    """A litmus test that does not parse: names the file, line and column."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None,
                 column: int | None = None, excerpt: str | None = None):
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.excerpt = excerpt
        where = f"{file or '<string>'}:{line if line is not None else '?'}:{column if column is not None else '?'}"
        text = f"{where}: {message}"
        if excerpt is not None:
            caret = " " * max((column or 1) - 1, 0) + "^"
            text += f"\n    {excerpt}\n    {caret}"
        super().__init__(text)

    def __reduce__(self):  # pickled whole (results come back from worker processes)
        return (type(self), (self.message, self.file, self.line, self.column, self.excerpt))


class UnsupportedFeature(HrfError):
    """The model (or syntax) does not cover an operation of the test."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None):
        self.message = message
        self.file = file
        self.line = line
        where = f"{file}:{line}: " if file and line else (f"{file}: " if file else "")
        super().__init__(where + message)

    def __reduce__(self):
        return (type(self), (self.message, self.file, self.line))


class LimitExceeded(HrfError):
    """A user-set limit cut the work short; `result` holds what was established."""

    def __init__(self, which: str, detail: str, result=None):
        self.which = which
        self.detail = detail
        self.result = result
        super().__init__(f"limit '{which}' reached: {detail}")

    def __reduce__(self):
        return (type(self), (self.which, self.detail, self.result))


class CoreError(HrfError):
    """The Rust core rejected its input or failed; never a crash of the interpreter."""
