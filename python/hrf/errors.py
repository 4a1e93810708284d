"""The exception hierarchy of hrf (SPEC sec. 10)."""
from __future__ import annotations


class HrfError(Exception):
    """Base class of every error hrf raises on purpose."""


class _Located(HrfError):
    """An error at a place in a file: the file, line, column and the line's text."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None,
                 column: int | None = None, excerpt: str | None = None):
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.excerpt = excerpt
        super().__init__(self._text())

    def _caret(self) -> str:
        return f"\n    {self.excerpt}\n    " + " " * max((self.column or 1) - 1, 0) + "^"

    def __reduce__(self):  # pickled whole (results come back from worker processes)
        return (type(self), (self.message, self.file, self.line, self.column, self.excerpt))


class LitmusSyntaxError(_Located):
    """A litmus test that does not parse: names the file, line and column."""

    def _text(self) -> str:
        line, column = (x if x is not None else "?" for x in (self.line, self.column))
        return f"{self.file or '<string>'}:{line}:{column}: {self.message}" \
            + (self._caret() if self.excerpt is not None else "")


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


class InvalidArgument(HrfError, ValueError):
    """An argument or option hrf cannot use (a negative limit, an unknown
    order, a string where a list of tests is wanted): names it and says what
    is accepted. The command line exits with status 2 on it, as on any
    usage error."""


class CoreError(HrfError):
    """The Rust core rejected its input or failed; never a crash of the interpreter."""


class DefinitionError(_Located):
    """A model or scheme file of the user's that cannot be used: names the
    file, and the line and column when the fault is in one."""

    def _text(self) -> str:
        where = (self.file or "<definition>") + (f":{self.line}" if self.line is not None else "") \
            + (f":{self.column}" if self.line is not None and self.column is not None else "")
        excerpt = "" if self.excerpt is None else \
            self._caret() if self.column is not None else f"\n    {self.excerpt}"
        return f"{where}: {self.message}{excerpt}"
