"""One status line rewritten in place on a terminal: the one mechanism
behind `hrf bulk`'s progress bar and the explorer's progress line."""

from __future__ import annotations

import sys
from typing import TextIO


class StatusLine:
    """A line on `stream` (stderr by default) that each `show` rewrites.
    Off when the stream is not a terminal, unless `enabled` says so."""

    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.shown = False

    def show(self, text: str) -> None:
        if self.enabled:
            self.stream.write("\r" + text)
            self.stream.flush()
            self.shown = True

    def end(self, keep: bool) -> None:
        """Leave the last line standing (`keep`) or wipe it."""
        if self.enabled and self.shown:
            self.stream.write("\n" if keep else "\r" + " " * 100 + "\r")
            self.stream.flush()
            self.shown = False
