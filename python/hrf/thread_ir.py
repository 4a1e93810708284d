"""The building blocks of a compiled thread (the IR of
`rust/src/program.rs`): a label, resolved to a program counter when the
thread is finished, and the IR's expressions."""

from __future__ import annotations


class Label:
    __slots__ = ("pc",)

    def __init__(self):
        self.pc = None


def const_ir(v):
    return {"k": "c", "v": int(v)}


def reg_ir(i):
    return {"k": "r", "r": i}


def not_ir(e):
    return {"k": "not", "a": e}
