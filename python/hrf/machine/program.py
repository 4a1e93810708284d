"""Machine programs (mirrors `rust/src/machine/program.rs`): threads
placed in devices and work-groups, their code as the IR the core reads,
and the lowering of a GPU_MACHINE test's AST (`litmus/machine.py`) to one,
each instruction read by the instruction table."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import NoReturn

from .. import ir as ir_types
from ..errors import LitmusSyntaxError
from ..litmus import ast as A
from ..litmus.machine import parse_machine_ast
from ..litmus.printer import format_condition
from .instructions import REGISTER, SCOPES, instr_text, parse_instruction


@dataclass
class MThread:
    name: str
    dev: int
    wg: int  # over the whole machine
    regs: list  # register names by index
    code: list  # instruction dicts (rust/src/machine/program.rs)

    def ir(self) -> dict:
        code = [{k: v for k, v in ins.items() if k not in ("src", "line")} for ins in self.code]
        return {"name": self.name, "dev": self.dev, "wg": self.wg, "nregs": len(self.regs), "code": code}


@dataclass
class MachineProgram:
    """A program for the machine: threads placed in devices and work-groups."""

    name: str
    locations: list  # [(name, init)]
    threads: list
    observed: list  # names as herd prints them: "1:r0", "x"
    observed_ir: list
    condition: A.Condition | None = None
    condition_ir: ir_types.Cond = field(default_factory=lambda: ir_types.CondTrue(k="true"))
    path: str | None = None
    scheme: str | None = None  # the scheme that compiled it, if any
    source: object = None  # the source `Compiled`, if any

    def ir(self, writeback: str = "fifo", reduce: bool = True) -> dict:
        if writeback not in ("fifo", "any"):
            raise ValueError("writeback must be 'fifo' or 'any'")
        return {
            "name": self.name,
            "locations": [{"name": n, "init": v} for n, v in self.locations],
            "threads": [t.ir() for t in self.threads],
            "observed": self.observed_ir,
            "condition": self.condition_ir,
            "writeback": writeback,
            "reduce": reduce,
        }

    def instruction_text(self, t: int, pc: int) -> str:
        return instr_text(
            self.threads[t].code[pc],
            self.threads[t].regs,
            [n for n, _ in self.locations],
            labels_of(self.threads[t].code),
        )

    def format(self) -> str:
        """The program as a GPU_MACHINE litmus test (parsed back by `parse_machine`)."""
        locs = [n for n, _ in self.locations]
        cols = []
        for t in self.threads:
            labels = labels_of(t.code)
            cells = []
            for pc, ins in enumerate(t.code):
                if pc in labels:
                    cells.append(f"{labels[pc]}:")
                cells.append(instr_text(ins, t.regs, locs, labels))
            if len(t.code) in labels:
                cells.append(f"{labels[len(t.code)]}:")
            cols.append(cells)
        head = [t.name for t in self.threads]
        width = [max([len(h)] + [len(c) for c in col]) for h, col in zip(head, cols, strict=False)]
        rows = [" " + " | ".join(h.ljust(w) for h, w in zip(head, width, strict=False)) + " ;"]
        for k in range(max((len(c) for c in cols), default=0)):
            rows.append(
                " "
                + " | ".join((col[k] if k < len(col) else "").ljust(w) for col, w in zip(cols, width, strict=False))
                + " ;"
            )
        devs: dict = {}
        for t in self.threads:
            devs.setdefault(t.dev, {}).setdefault(t.wg, []).append(t.name)
        tree = " ".join(
            "(device " + " ".join(f"(work_group {' '.join(ns)})" for ns in wgs.values()) + ")"
            for _, wgs in sorted(devs.items())
        )
        init = " ".join(f"{n}={v};" for n, v in self.locations)
        out = [f"GPU_MACHINE {self.name}"]
        if self.scheme:
            out.append(f'"compiled with scheme {self.scheme}"')
        out += [f"{{ {init} }}", *rows, f"scopeTree {tree}"]
        if self.condition is not None:
            out.append(format_condition(self.condition))
        return "\n".join(out) + "\n"


def labels_of(code) -> dict:
    """A label name for each branch target of a thread's code."""
    targets = sorted({ins["target"] for ins in code if "target" in ins})
    return {pc: f"L{pc}" for pc in targets}


def lower(test: A.MachineTest) -> MachineProgram:
    """The machine program of a GPU_MACHINE test's AST; errors name the
    file, line and column of the instruction."""
    path = test.path

    def fail(msg: str, line: int, col: int = 1) -> NoReturn:
        raise LitmusSyntaxError(msg, path, line, col)

    loc_index = {n: k for k, (n, _) in enumerate(test.locations)}
    threads = []
    wg_ids: dict = {}
    for t, th in enumerate(test.threads):
        regs: list = []

        def reg(r: str, regs: list = regs) -> int:
            if not REGISTER.fullmatch(r) or r.upper() in SCOPES:
                raise ValueError(f"{r!r} is not a register name")
            if r not in regs:
                regs.append(r)
            return regs.index(r)

        code: list[dict] = []
        labels: dict[str, int] = {}
        fixups: list = []
        for item in th.body:
            if isinstance(item, A.MachineLabel):
                labels[item.name] = len(code)
                continue
            try:
                ins = parse_instruction(item.text, reg, loc_index)
            except ValueError as e:
                fail(f"{th.name}: {e}", item.line, item.col)
            if "target" in ins:
                fixups.append((ins, item.line, item.col))
            ins["line"] = item.line
            code.append(ins)
        for ins, line, col in fixups:
            lab = ins["target"]
            if lab not in labels:
                fail(f"{th.name}: no label {lab}", line, col)
            if labels[lab] <= code.index(ins):
                fail(f"{th.name}: branch to {lab} goes backwards (only forward branches)", line, col)
            ins["target"] = labels[lab]
        dev = th.dev or 0
        wg = wg_ids.setdefault((dev, th.wg if th.wg is not None else ("own", t)), len(wg_ids))
        threads.append(MThread(th.name, dev, wg, regs, code))
    locs = list(test.locations)
    observed = [f"{t}:{r}" for t, th in enumerate(threads) for r in th.regs] + [n for n, _ in locs]
    obs_ir = [{"kind": "reg", "thread": t, "reg": k} for t, th in enumerate(threads) for k in range(len(th.regs))] + [
        {"kind": "loc", "loc": k} for k in range(len(locs))
    ]
    cond_ir: ir_types.Cond = {"k": "true"}
    cond = test.condition
    if cond is not None:
        from ..program import prop_ir

        for a in A.prop_atoms(cond.prop):
            if str(a.var) not in observed:
                fail(f"the condition names {a.var}, which the program does not have", test.lines)
        cond_ir = prop_ir(cond.prop, {v: k for k, v in enumerate(observed)})
    return MachineProgram(test.name, locs, threads, observed, obs_ir, cond, cond_ir, path)


def parse_machine(text, path: str | None = None) -> MachineProgram:
    """Parse a GPU_MACHINE test, given as its text or (as `hrf.parse`
    takes one) a path to it; errors name file, line and column."""
    if (
        isinstance(text, os.PathLike)
        or path is None
        and "\n" not in str(text)
        and not str(text).lstrip().upper().startswith(("GPU_MACHINE", "MACHINE"))
    ):
        return parse_machine_file(text)
    return lower(parse_machine_ast(text, path))


def parse_machine_file(path_or_text) -> MachineProgram:
    """A GPU_MACHINE test from a path, or from its text."""
    from ..litmus import read_file

    s = str(path_or_text)
    return parse_machine(read_file(s), s) if "\n" not in s else parse_machine(s)
