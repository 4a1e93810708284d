"""herd's cat language as a model language: `load(path)` gives the Model a
.cat file defines, compiled to the same IR as hrf's own models (syntax.py
reads the file, compile.py gives it a meaning, builtins.py maps herd's
built-in names onto hrf's events)."""

from .compile import load, load_text

__all__ = ["load", "load_text"]
