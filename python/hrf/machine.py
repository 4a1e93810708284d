"""The GPU machine of [RSP15] sec. 5 from Python: machine programs (written
directly in the machine's assembly, or compiled from a
source test by a scheme, `hrf.mappings`), their exploration by the Rust
core, and readable traces.

Assembly test syntax (herd-like, column format)::

    GPU_MACHINE corrupt-MP
    { x=0; y=0; }
     P0         | P1         ;
     ST 42 x    | INVL1 WG   ;
     FLUL1 WG   | LD r0 y    ;
     ST 1 y     | LD r1 x    ;
    scopeTree (device (work_group P0) (work_group P1))
    exists (1:r0=1 /\\ 1:r1=0)

Instructions ([RSP15] Table 1): ``LD r x``, ``ST v x``, ``INCL1 r x``,
``INCL2 r x``, ``FLUL1 s``, ``FLUL2 s``, ``INVL1 s``, ``LK x``, ``UNLK x``,
``LKrmw s``, ``UNLKrmw s`` with s in WG, DV, ALL; hrf adds ``INVL2 s``
(to write all-devices rows), RMWs generalising INCL: ``ADDL1 r x v``,
``EXCHL2 r x v``, ``CASL2 r x e v`` (r := 1 if x held e), and register
code: ``MOV r e`` (e an expression over registers and numbers), ``BNZ e
L``, ``BZ e L``, ``JMP L`` (forward only) and labels ``L:``.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import NoReturn

from .core import EXPLORE_DEFAULTS
from .errors import CoreError, LimitExceeded, LitmusSyntaxError
from .graph import Drawable, count
from .litmus import MACHINE_ARCHES as ARCH_NAMES
from .litmus import ast as A
from .litmus.columns import read_columns
from .litmus.opencl import apply_scope_tree
from .litmus.printer import format_condition, format_state
from .litmus.ptx import read_tail
from .status import StatusLine

SCOPES = {"WG": "wg", "DV": "dev", "ALL": "all"}
SCOPE_NAMES = {v: k for k, v in SCOPES.items()}
RMW_NAMES = {
    "INC": "add",
    "ADD": "add",
    "SUB": "sub",
    "AND": "and",
    "OR": "or",
    "XOR": "xor",
    "EXCH": "exch",
    "CAS": "cas",
}
_RMW_MNEMONIC = {"add": "ADD", "sub": "SUB", "and": "AND", "or": "OR", "xor": "XOR", "exch": "EXCH", "cas": "CAS"}


# ---------------------------------------------------------------- expressions (the IR's `Expr`)
def expr_text(e: dict, regs: list) -> str:
    k = e["k"]
    if k == "c":
        return str(e["v"])
    if k == "r":
        return regs[e["r"]]
    if k == "not":
        return "!" + expr_text(e["a"], regs)
    if k == "neg":
        return "-" + expr_text(e["a"], regs)
    return f"({expr_text(e['a'], regs)} {e['o']} {expr_text(e['b'], regs)})"


_TOK = re.compile(r"\s*(-?\d+|[A-Za-z_%][\w%]*|==|!=|<=|>=|&&|\|\||[-+*&|^<>!()])")
_PREC = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*",)]


def parse_expr(text: str, reg) -> dict:
    """An expression over registers and numbers, in C syntax."""
    toks, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOK.match(text, pos)
        if not m:
            raise ValueError(f"cannot read {text[pos:]!r}")
        toks.append(m.group(1))
        pos = m.end()
    i = 0

    def atom():
        nonlocal i
        if i >= len(toks):
            raise ValueError("expression ends too early")
        t = toks[i]
        i += 1
        if t == "(":
            e = binary(0)
            if i >= len(toks) or toks[i] != ")":
                raise ValueError("missing ')'")
            i += 1
            return e
        if t in ("!", "-"):
            return {"k": "not" if t == "!" else "neg", "a": atom()}
        if re.fullmatch(r"-?\d+", t):
            return {"k": "c", "v": int(t)}
        if re.fullmatch(r"[A-Za-z_%][\w%]*", t):
            return {"k": "r", "r": reg(t)}
        raise ValueError(f"unexpected {t!r}")

    def binary(level):
        nonlocal i
        if level == len(_PREC):
            return atom()
        e = binary(level + 1)
        while i < len(toks) and toks[i] in _PREC[level]:
            op = toks[i]
            i += 1
            e = {"k": "bin", "o": op, "a": e, "b": binary(level + 1)}
        return e

    e = binary(0)
    if i != len(toks):
        raise ValueError(f"unexpected {toks[i]!r}")
    return e


# ---------------------------------------------------------------- programs
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
    condition_ir: dict = field(default_factory=lambda: {"k": "true"})
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
            _labels(self.threads[t].code),
        )

    def format(self) -> str:
        """The program as a GPU_MACHINE litmus test (parsed back by `parse_machine`)."""
        locs = [n for n, _ in self.locations]
        cols = []
        for t in self.threads:
            labels = _labels(t.code)
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


def _labels(code) -> dict:
    targets = sorted({ins["target"] for ins in code if "target" in ins})
    return {pc: f"L{pc}" for pc in targets}


def instr_text(ins: dict, regs: list, locs: list, labels: dict) -> str:
    op = ins["op"]
    if op == "ld":
        return f"LD {regs[ins['dst']]} {locs[ins['loc']]}"
    if op == "st":
        return f"ST {expr_text(ins['val'], regs)} {locs[ins['loc']]}"
    if op == "rmw":
        lvl = ins["level"]
        dst = regs[ins["dst"]] if ins.get("dst") is not None else "_"
        val = expr_text(ins["val"], regs)
        if ins["rmw"] == "add" and ins["val"] == {"k": "c", "v": 1}:
            return f"INCL{lvl} {dst} {locs[ins['loc']]}"
        if ins["rmw"] == "cas":
            return f"CASL{lvl} {dst} {locs[ins['loc']]} {expr_text(ins['expected'], regs)} {val}"
        return f"{_RMW_MNEMONIC[ins['rmw']]}L{lvl} {dst} {locs[ins['loc']]} {val}"
    if op in ("flu", "inv"):
        return f"{'FLU' if op == 'flu' else 'INV'}L{ins['level']} {SCOPE_NAMES[ins['scope']]}"
    if op in ("lk", "unlk"):
        return f"{op.upper()} {locs[ins['loc']]}"
    if op in ("lkrmw", "unlkrmw"):
        return f"{'LKrmw' if op == 'lkrmw' else 'UNLKrmw'} {SCOPE_NAMES[ins['scope']]}"
    if op == "assign":
        return f"MOV {regs[ins['dst']]} {expr_text(ins['val'], regs)}"
    if op == "branch":
        c = ins["cond"]
        if c["k"] == "not":
            return f"BZ {expr_text(c['a'], regs)} {labels[ins['target']]}"
        return f"BNZ {expr_text(c, regs)} {labels[ins['target']]}"
    if op == "jump":
        return f"JMP {labels[ins['target']]}"
    if op == "cut":
        return "CUT"
    raise ValueError(op)


# ---------------------------------------------------------------- parsing GPU_MACHINE tests
def parse_machine(text: str, path: str | None = None) -> MachineProgram:
    """Parse a GPU_MACHINE litmus test; errors name file, line and column."""
    if not is_machine_text(text):
        first = text.splitlines()[0] if text.strip() else None
        raise LitmusSyntaxError("a machine test starts with 'GPU_MACHINE name'", path, 1, 1, first)
    c = read_columns(text, path, r"\s*(scopetree|exists|forall|~|locations)")
    lines, names, cells, name = c.lines, c.names, c.cells, c.name

    def fail(msg, line, col=1) -> NoReturn:
        c.fail(msg, path, line, col)

    locations: dict = {}
    for item in c.init_text.split(";"):
        s = item.strip()
        if not s:
            continue
        m = re.fullmatch(r"\[?(\w+)\]?\s*=\s*(-?\d+)", s)
        if not m:
            fail(f"cannot read init item {s!r} (machine tests initialise locations: x=0;)", c.init_item_line(item))
        locations[m.group(1)] = int(m.group(2))
    tree, _, cond, _ = read_tail(lines, c.tail, path)
    placed = tuple(A.Thread(n, (), (), line=0) for n in names)
    if tree is not None:
        placed = apply_scope_tree(placed, tree, path, text)
    threads = []
    loc_index = {n: k for k, n in enumerate(locations)}
    wg_ids: dict = {}
    for t, (n, th) in enumerate(zip(names, placed, strict=False)):
        regs: list = []

        def reg(r, regs=regs):
            if not re.fullmatch(r"[A-Za-z_%][\w%]*", r) or r.upper() in SCOPES:
                raise ValueError(f"{r!r} is not a register name")
            if r not in regs:
                regs.append(r)
            return regs.index(r)

        code: list[dict] = []
        labels: dict[str, int] = {}
        fixups: list = []
        for src, line, col in cells[t]:
            try:
                if re.fullmatch(r"\w+:", src):
                    labels[src[:-1]] = len(code)
                    continue
                ins = parse_instruction(src, reg, loc_index)
                if "target" in ins:
                    fixups.append((ins, line, col))
                ins["line"] = line
                code.append(ins)
            except ValueError as e:
                fail(f"{n}: {e}", line, col)
        for ins, line, col in fixups:
            lab = ins["target"]
            if lab not in labels:
                fail(f"{n}: no label {lab}", line, col)
            if labels[lab] <= code.index(ins):
                fail(f"{n}: branch to {lab} goes backwards (only forward branches)", line, col)
            ins["target"] = labels[lab]
        dev = th.dev or 0
        wg = wg_ids.setdefault((dev, th.wg if th.wg is not None else ("own", t)), len(wg_ids))
        threads.append(MThread(n, dev, wg, regs, code))
    locs = [(n, v) for n, v in locations.items()]
    observed = [f"{t}:{r}" for t, th in enumerate(threads) for r in th.regs] + [n for n, _ in locs]
    obs_ir = [{"kind": "reg", "thread": t, "reg": k} for t, th in enumerate(threads) for k in range(len(th.regs))] + [
        {"kind": "loc", "loc": k} for k in range(len(locs))
    ]
    cond_ir = {"k": "true"}
    if cond is not None:
        from .program import prop_ir

        for a in A.prop_atoms(cond.prop):
            if str(a.var) not in observed:
                fail(f"the condition names {a.var}, which the program does not have", len(lines))
        cond_ir = prop_ir(cond.prop, {v: k for k, v in enumerate(observed)})
    return MachineProgram(name, locs, threads, observed, obs_ir, cond, cond_ir, path)


def parse_instruction(src: str, reg, loc_index: dict) -> dict:
    """One instruction of the assembly; `reg` maps a register name to its
    index, `loc_index` a location name to its. Raises ValueError."""
    parts = src.replace(",", " ").split()
    mn, args = parts[0], parts[1:]
    up = mn.upper()

    def loc(x):
        if x not in loc_index:
            raise ValueError(f"{x!r} is not a location of the init block")
        return loc_index[x]

    def scope(s):
        if s.upper() not in SCOPES:
            raise ValueError(f"{s!r} is not a scope (WG, DV, ALL)")
        return SCOPES[s.upper()]

    def nargs(n):
        if len(args) != n:
            raise ValueError(f"{mn} takes {n} operand{'s' if n != 1 else ''}, got {len(args)}")

    if up == "LD":
        nargs(2)
        return {"op": "ld", "dst": reg(args[0]), "loc": loc(args[1])}
    if up == "ST":
        nargs(2)
        return {"op": "st", "loc": loc(args[1]), "val": parse_expr(args[0], reg)}
    m = re.fullmatch(r"(INC|ADD|SUB|AND|OR|XOR|EXCH|CAS)L([12])", up)
    if m:
        kind, level = RMW_NAMES[m.group(1)], int(m.group(2))
        want = {"add": 3, "cas": 4}.get(kind, 3) if m.group(1) != "INC" else 2
        nargs(want)
        dst = None if args[0] == "_" else reg(args[0])
        ins = {"op": "rmw", "level": level, "dst": dst, "loc": loc(args[1]), "rmw": kind}
        if m.group(1) == "INC":
            ins["val"] = {"k": "c", "v": 1}
        elif kind == "cas":
            ins["expected"] = parse_expr(args[2], reg)
            ins["val"] = parse_expr(args[3], reg)
        else:
            ins["val"] = parse_expr(args[2], reg)
        return ins
    m = re.fullmatch(r"(FLU|INV)L([12])", up)
    if m:
        nargs(1)
        s = scope(args[0])
        if m.group(2) == "2" and s == "wg":
            raise ValueError(f"{mn} WG: an L2 cache serves a device (DV or ALL)")
        return {"op": m.group(1).lower(), "level": int(m.group(2)), "scope": s}
    if up in ("LK", "UNLK"):
        nargs(1)
        return {"op": up.lower(), "loc": loc(args[0])}
    if up in ("LKRMW", "UNLKRMW"):
        nargs(1)
        return {"op": up.lower(), "scope": scope(args[0])}
    if up == "MOV":
        if len(args) < 2:
            raise ValueError("MOV takes a register and an expression")
        return {"op": "assign", "dst": reg(args[0]), "val": parse_expr(" ".join(args[1:]), reg)}
    if up in ("BNZ", "BZ"):
        if len(args) < 2:
            raise ValueError(f"{mn} takes an expression and a label")
        e = parse_expr(" ".join(args[:-1]), reg)
        return {"op": "branch", "cond": e if up == "BNZ" else {"k": "not", "a": e}, "target": args[-1]}
    if up == "JMP":
        nargs(1)
        return {"op": "jump", "target": args[0]}
    if up == "CUT":
        return {"op": "cut"}
    raise ValueError(f"unknown instruction {mn!r}")


# ---------------------------------------------------------------- exploring
@dataclass
class MachineResult(Drawable):
    """What the explorer established about a machine program."""

    name: str
    writeback: str
    complete: bool
    limit: dict | None
    states: int
    transitions: int
    seconds: float
    bytes_per_state: float
    outcomes: list  # [{"1:r0": 1, "x": 2}]
    traces: list  # per outcome: the steps, readable
    holds: list  # per outcome: does the condition hold
    deadlocks: int | None
    deadlock: dict | None  # {"trace": [...], "waiting": [...], "state": {...}}
    faults: list
    cut: int
    condition_holds: bool | None
    program: MachineProgram = field(repr=False)
    # per outcome: the steps of its trace as the core reports them
    # ({"kind": "thread" | "fetch_l1" | ..., ...}), for pictures (`trace_dot`)
    steps: list = field(repr=False, default_factory=list)
    # seconds in each part of the exploration: expand, enter (visited-set
    # lookups), store (arena), outcomes (and traces), deadlocks
    phases: dict = field(repr=False, default_factory=dict)
    # the most steps of a shortest trace to a state explored (breadth-first
    # layers less one; of the states stored so far when a limit cut it)
    depth: int = 0

    def stuck_text(self) -> str:
        """Where each unfinished thread waits in the first deadlock found."""
        p, d = self.program, self.deadlock
        if d is None:
            return "stuck: (no deadlock)"
        return "stuck: " + ", ".join(f"{p.threads[t].name} at {p.instruction_text(t, pc)}" for t, pc in d["waiting"])

    def trace_of(self, outcome: dict) -> list:
        return self.traces[self.outcomes.index(outcome)]

    def pictured(self) -> tuple:
        """The trace a picture shows: to the first outcome satisfying the
        condition, else to the first deadlock, else to the first outcome.
        (steps, what it ends in)."""
        for o, h, st in zip(self.outcomes, self.holds, self.steps, strict=False):
            if h:
                return st, "outcome: " + format_state(o)
        if self.deadlock is not None:
            return self.deadlock["steps"], "then " + self.stuck_text()
        if self.outcomes:
            return self.steps[0], "outcome: " + format_state(self.outcomes[0])
        return [], "no outcome"

    def to_dot(self) -> str:
        """`pictured`'s trace as a sequence chart (DOT): threads, caches
        and memory as lifelines, one row per step."""
        from .graph import trace_dot

        steps, end = self.pictured()
        return trace_dot(self.program, steps, f"{self.name} (machine, writeback={self.writeback})", end)

    def __repr__(self) -> str:
        verdict = {True: "Ok", False: "No", None: "undetermined"}[self.condition_holds]
        cut = "" if self.complete else f", cut by limit {(self.limit or {}).get('which')}"
        dead = f", {self.deadlocks} deadlocked states" if self.deadlocks else ""
        return (
            f"<MachineResult {self.name} (writeback={self.writeback}): {verdict}, {count(len(self.outcomes), 'outcome')}, "
            f"{self.states} states{dead}{cut}>"
        )

    def to_json(self) -> dict:
        """Everything established, as plain data (`hrf explore --json`):
        each outcome with whether it satisfies the condition and its
        trace, readable and as the core's steps."""
        dl = self.deadlock
        return {
            "name": self.name,
            "path": self.program.path if self.program else None,
            "writeback": self.writeback,
            "complete": self.complete,
            "limit": self.limit,
            "condition_holds": self.condition_holds,
            "states": self.states,
            "transitions": self.transitions,
            "depth": self.depth,
            "seconds": self.seconds,
            "phases": self.phases,
            "bytes_per_state": self.bytes_per_state,
            "outcomes": [
                {"values": o, "holds": h, "trace": tr, "steps": st}
                for o, h, tr, st in zip(self.outcomes, self.holds, self.traces, self.steps, strict=False)
            ],
            "deadlocks": self.deadlocks,
            "deadlock": None
            if dl is None
            else {"trace": dl["trace"], "steps": dl["steps"], "stuck": self.stuck_text(), "state": dl["state"]},
            "faults": self.faults,
            "cut": self.cut,
        }

    def to_text(self) -> str:
        p = self.program
        out = [f"Test {self.name} (machine, writeback={self.writeback})"]
        out.append(f"States {len(self.outcomes)}")
        for o in self.outcomes:
            out.append(format_state(o))
        if p.condition is not None:
            verdict = {True: "Ok", False: "No", None: "Unknown"}[self.condition_holds]
            out.append(verdict)
            out.append(f"Condition {format_condition(p.condition)}")
        out.append(
            f"Machine states {self.states}, transitions {self.transitions}, depth {self.depth}, {self.seconds:.3f} s"
        )
        if self.limit is not None:
            out.append(
                f"INCOMPLETE: limit {self.limit['which']} hit ({self.limit['detail']}); "
                "the outcomes are those found so far"
            )
        if self.deadlocks and self.deadlock is not None:
            out.append(f"DEADLOCK: {self.deadlocks} states cannot finish; the first reached:")
            out += ["  " + s for s in self.deadlock["trace"]]
            out.append("  then " + self.stuck_text())
        for f in self.faults:
            out.append(f"FAULT: {f['message']}")
        if self.cut:
            out.append(f"{self.cut} paths cut by the loop bound")
        return "\n".join(out)

    __str__ = to_text


def step_text(prog: MachineProgram, st: dict) -> str:
    """One trace step, readably ([RSP15] sec. 5 names)."""
    k = st["kind"]
    if k == "thread":
        t, pc = st["thread"], st["pc"]
        th = prog.threads[t]
        ins = th.code[pc]
        text = f"{th.name} (wg {th.wg}, dev {th.dev})  {prog.instruction_text(t, pc)}"
        if "val" in st:
            text += f"   -> {th.regs[st['reg']]} = {st['val']}"
        if "fault" in st:
            text += f"   FAULT: {st['fault']}"
        src = ins.get("src")
        if src:
            text += f"   [{src}]"
        return text
    if k == "fetch_l1":
        return f"env: fetch {st['loc']} = {st['val']} from L2 into the L1 of wg {st['wg']}"
    if k == "fetch_l2":
        return f"env: fetch {st['loc']} = {st['val']} from memory into the L2 of dev {st['dev']}"
    if k in ("dequeue_l1", "dequeue_l2"):
        where = f"the L1 fifo of wg {st['wg']}" if k == "dequeue_l1" else f"the L2 fifo of dev {st['dev']}"
        below = "L2" if k == "dequeue_l1" else "memory"
        if "flush" in st:
            return f"env: dequeue FLUSH({prog.threads[st['flush']].name}) from {where}"
        if st["wrote"]:
            return f"env: dequeue {st['loc']} from {where}: write {st['loc']} = {st['val']} to {below}"
        return f"env: dequeue {st['loc']} from {where} (clean: nothing to write)"
    if k == "writeback_l1":
        return f"env: write {st['loc']} = {st['val']} from the L1 of wg {st['wg']} to L2 (out of fifo order)"
    if k == "writeback_l2":
        return f"env: write {st['loc']} = {st['val']} from the L2 of dev {st['dev']} to memory (out of fifo order)"
    if k == "evict_l1":
        return f"env: evict {st['loc']} from the L1 of wg {st['wg']}"
    if k == "evict_l2":
        return f"env: evict {st['loc']} from the L2 of dev {st['dev']}"
    return json.dumps(st)


class ExploreProgress(StatusLine):
    """A status line on a terminal stream while the explorer runs: states
    stored, breadth-first layers done, states per second, elapsed time and
    the state limit; wiped when the run ends."""

    def update(self, label: str, states: int, layers: int, seconds: float, max_states: int | None) -> None:
        rate = states / seconds if seconds > 0 else 0.0
        cap = f" of at most {max_states:,}" if max_states else ""
        self.show(
            f"  exploring {label}: {states:,} states{cap}, layer {layers}, {rate:,.0f} states/s, {seconds:.0f} s   "
        )

    def close(self) -> None:
        self.end(keep=False)


def explore(
    prog,
    *,
    writeback: str = "fifo",
    reduce: bool = True,
    max_states: int | None = EXPLORE_DEFAULTS["max_states"],
    max_seconds: float | None = None,
    deadlocks: bool = True,
    workers: int | None = None,
    on_limit: str = "result",
    progress: ExploreProgress | None = None,
    max_memory: int | None = None,
) -> MachineResult:
    """Explore every reachable state of a machine program (a MachineProgram,
    or the path or text of a GPU_MACHINE test). `progress` shows a status
    line while it runs (the CLI passes one on a terminal). `max_memory`:
    resident bytes of the process (None: the default of `hrf.Limits`)."""
    from . import core
    from .api import Limits, check_workers, condition_verdict, on_limit_mode
    from .errors import InvalidArgument, check_whole

    if writeback not in ("fifo", "any"):
        raise InvalidArgument(f"writeback must be 'fifo' or 'any', not {writeback!r}")
    check_workers(workers)
    check_whole("max_states", max_states, 1, none_ok=True)
    on_limit_mode(on_limit)
    # the time and memory limits are checked as hrf.Limits checks them
    budget = Limits(max_seconds=max_seconds, max_memory=max_memory)
    if not isinstance(prog, MachineProgram):
        prog = parse_machine_file(prog)
    limits = json.dumps(
        {
            "max_states": max_states,
            "max_seconds": max_seconds,
            "deadlocks": deadlocks,
            "max_memory": budget.memory_budget(),
        }
    )
    start = time.perf_counter()

    def tick():
        states, layers = core.explore_progress()
        progress.update(f"{prog.name} (writeback={writeback})", states, layers, time.perf_counter() - start, max_states)

    try:
        data = core.explore(
            json.dumps(prog.ir(writeback, reduce)), limits, workers, tick=tick if progress is not None else None
        )
    finally:
        if progress is not None:
            progress.close()
    if "error" in data:
        raise CoreError(f"{prog.path or prog.name}: {data['error']}", data.get("kind", "internal"))
    o = data["ok"]
    outcomes = [dict(zip(prog.observed, x["values"], strict=False)) for x in o["outcomes"]]
    holds = [x["holds"] for x in o["outcomes"]]
    quant = prog.condition.quantifier if prog.condition is not None else "forall"
    verdict = condition_verdict(quant, sum(holds), len(holds) - sum(holds), o["complete"])
    dl = o["deadlock"]
    if dl is not None:
        dl = dict(dl, trace=[step_text(prog, s) for s in dl["trace"]], steps=dl["trace"])
    r = MachineResult(
        name=prog.name,
        writeback=writeback,
        complete=o["complete"],
        limit=o["limit"],
        states=o["states"],
        transitions=o["transitions"],
        seconds=o["seconds"],
        bytes_per_state=o["bytes_per_state"],
        outcomes=outcomes,
        traces=[[step_text(prog, s) for s in x["trace"]] for x in o["outcomes"]],
        holds=holds,
        deadlocks=o["deadlocks"],
        deadlock=dl,
        faults=[
            {"message": f["message"], "trace": [step_text(prog, s) for s in f["trace"]], "steps": f["trace"]}
            for f in o["faults"]
        ],
        cut=o["cut"],
        condition_holds=verdict,
        program=prog,
        steps=[x["trace"] for x in o["outcomes"]],
        phases=o["phase_seconds"],
        depth=o["depth"],
    )
    if r.limit is not None and on_limit == "raise":
        raise LimitExceeded(r.limit["which"], r.limit["detail"], r)
    return r


def parse_machine_file(path_or_text) -> MachineProgram:
    """A GPU_MACHINE test from a path, or from its text."""
    from .litmus import read_file

    s = str(path_or_text)
    return parse_machine(read_file(s), s) if "\n" not in s else parse_machine(s)


def is_machine_text(text: str) -> bool:
    first = text.lstrip().split(None, 1)
    return bool(first) and first[0].upper() in ARCH_NAMES
