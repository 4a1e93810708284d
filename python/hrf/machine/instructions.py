"""The machine's instructions ([RSP15] sec. 5), one table read by the
assembly parser, the printer, the trace drawing and the Isabelle export.
Each row says how an instruction is written (its mnemonic and operands),
what it becomes in the IR the core reads (`rust/src/machine/program.rs`,
`MInstr`), how a trace draws it, and its constructor in the exported
theory `Hrf_Machine` (None where that theory has none). Adding an
instruction is a row here and its step in `rust/src/machine/step.rs`."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

SCOPES = {"WG": "wg", "DV": "dev", "ALL": "all"}
SCOPE_NAMES = {v: k for k, v in SCOPES.items()}
# Hrf_Machine's scope constructors
ISABELLE_SCOPES = {"WG": "WG", "DV": "DV", "ALL": "SYS"}
REGISTER = re.compile(r"[A-Za-z_%][\w%]*")


@dataclass(frozen=True)
class Instruction:
    """One row. `mnemonic` is a regular expression whose groups, if any,
    fill `fixed` fields (`level` from `L1`/`L2`, an RMW's operation); each
    operand is `field:kind`, kind one of reg, reg? (`_` for none), loc,
    expr (the rest of the line where it comes last), scope, label."""

    op: str  # the IR's `op`
    mnemonic: str  # as the parser reads it (upper case; a regular expression)
    spelling: str  # as the printer writes it: `INVL{level}`, `{rmw}L{level}`
    operands: tuple[str, ...]
    # what the trace drawing makes of a step: an arrow to (write, rmw,
    # sync) or from (read) the thread's cache, or a note (local)
    lane: str
    isabelle: str | None = None  # constructor of Hrf_Machine's `instr`
    fixed: dict = field(default_factory=dict)  # IR fields every instance has
    groups: tuple[str, ...] = ()  # IR fields read from the mnemonic's groups
    doc: str = ""

    def matches(self, word: str) -> re.Match | None:
        return re.fullmatch(self.mnemonic, word.upper())


_RMW = {"ADD": "add", "SUB": "sub", "AND": "and", "OR": "or", "XOR": "xor", "EXCH": "exch"}
_LEVEL = r"L([12])"

TABLE: tuple[Instruction, ...] = (
    Instruction("ld", "LD", "LD", ("dst:reg", "loc:loc"), "read", "LD", doc="load from the L1 (blocks while invalid)"),
    Instruction("st", "ST", "ST", ("val:expr1", "loc:loc"), "write", "ST", doc="store to the L1, address enqueued"),
    Instruction(
        "rmw",
        "INC" + _LEVEL,
        "INCL{level}",
        ("dst:reg?", "loc:loc"),
        "rmw",
        "INCL{level}",
        fixed={"rmw": "add", "val": {"k": "c", "v": 1}},
        groups=("level",),
        doc="atomic increment at the L1 or L2",
    ),
    Instruction(
        "rmw",
        "CAS" + _LEVEL,
        "CASL{level}",
        ("dst:reg?", "loc:loc", "expected:expr1", "val:expr1"),
        "rmw",
        fixed={"rmw": "cas"},
        groups=("level",),
        doc="compare-exchange at the L1 or L2",
    ),
    Instruction(
        "rmw",
        "(" + "|".join(_RMW) + ")" + _LEVEL,
        "{rmw}L{level}",
        ("dst:reg?", "loc:loc", "val:expr1"),
        "rmw",
        groups=("rmw", "level"),
        doc="fetch-and-op at the L1 or L2",
    ),
    Instruction(
        "flu", "FLU" + _LEVEL, "FLUL{level}", ("scope:scope",), "sync", "FLUL{level}", groups=("level",), doc="flush"
    ),
    Instruction(
        "inv",
        "INV" + _LEVEL,
        "INVL{level}",
        ("scope:scope",),
        "sync",
        "INVL{level}",
        groups=("level",),
        doc="invalidate",
    ),
    Instruction("lk", "LK", "LK", ("loc:loc",), "local", "LK", doc="take an address's lock in the device's lock file"),
    Instruction("unlk", "UNLK", "UNLK", ("loc:loc",), "local", "UNLK", doc="release it"),
    Instruction("lkrmw", "LKRMW", "LKrmw", ("scope:scope",), "local", "LKrmw", doc="take the rmw lock(s) of the scope"),
    Instruction("unlkrmw", "UNLKRMW", "UNLKrmw", ("scope:scope",), "local", "UNLKrmw", doc="release them"),
    Instruction("assign", "MOV", "MOV", ("dst:reg", "val:expr"), "local", "MOV", doc="register move"),
    Instruction(
        "branch", "BNZ", "BNZ", ("cond:expr", "target:label"), "local", "BNZ", doc="branch forward if non-zero"
    ),
    Instruction(
        "branch",
        "BZ",
        "BZ",
        ("cond:expr", "target:label"),
        "local",
        "BNZ",  # its condition is negated in the IR
        fixed={"negate": True},
        doc="branch forward if zero",
    ),
    Instruction("jump", "JMP", "JMP", ("target:label",), "local", "JMP", doc="jump forward"),
    Instruction("cut", "CUT", "CUT", (), "local", "CUT", doc="end this path (a loop bound)"),
)

_RMW_MNEMONIC = {v: k for k, v in _RMW.items()} | {"cas": "CAS"}


def row_of(ins: dict) -> Instruction:
    """The table's row for an IR instruction (as the parser made it)."""
    op = ins["op"]
    if op == "rmw":
        if ins["rmw"] == "add" and ins["val"] == {"k": "c", "v": 1}:
            return TABLE[2]
        return TABLE[3] if ins["rmw"] == "cas" else TABLE[4]
    if op == "branch":
        return TABLE[-3] if ins["cond"].get("k") == "not" else TABLE[-4]
    return next(r for r in TABLE if r.op == op)


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


def parse_expr(text: str, reg: Callable[[str], int]) -> dict:
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

    def atom() -> dict:
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
        if REGISTER.fullmatch(t):
            return {"k": "r", "r": reg(t)}
        raise ValueError(f"unexpected {t!r}")

    def binary(level: int) -> dict:
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


# ---------------------------------------------------------------- reading and writing
def parse_instruction(src: str, reg: Callable[[str], int], loc_index: dict) -> dict:
    """One instruction of the assembly as the IR's dict; `reg` maps a
    register name to its index, `loc_index` a location name to its. A
    branch's target stays a label name. Raises ValueError."""
    words = src.replace(",", " ").split()
    mn, args = words[0], words[1:]
    for row in TABLE:
        m = row.matches(mn)
        if m:
            break
    else:
        raise ValueError(f"unknown instruction {mn!r}")
    ins: dict = {"op": row.op}
    for name, value in zip(row.groups, m.groups(), strict=True):
        ins[name] = int(value) if name == "level" else _RMW[value]
    exprs = [o for o in row.operands if o.endswith(":expr")]
    if len(args) < len(row.operands) or (not exprs and len(args) > len(row.operands)):
        raise ValueError(f"{mn} takes {usage(row)}, got {len(args)} operand{'s' if len(args) != 1 else ''}")
    rest = list(args)
    for k, operand in enumerate(row.operands):
        name, kind = operand.split(":")
        if kind == "expr":  # the rest of the line but for the operands after it
            after = len(row.operands) - k - 1
            text, rest = " ".join(rest[: len(rest) - after]), rest[len(rest) - after :]
            ins[name] = parse_expr(text, reg)
            continue
        word = rest.pop(0)
        if kind == "reg":
            ins[name] = reg(word)
        elif kind == "reg?":
            ins[name] = None if word == "_" else reg(word)
        elif kind == "loc":
            if word not in loc_index:
                raise ValueError(f"{word!r} is not a location of the init block")
            ins[name] = loc_index[word]
        elif kind == "expr1":
            ins[name] = parse_expr(word, reg)
        elif kind == "scope":
            if word.upper() not in SCOPES:
                raise ValueError(f"{word!r} is not a scope (WG, DV, ALL)")
            ins[name] = SCOPES[word.upper()]
        elif kind == "label":
            ins[name] = word
    ins.update(row.fixed)
    if ins.get("negate"):
        del ins["negate"]
        ins["cond"] = {"k": "not", "a": ins["cond"]}
    if row.op in ("flu", "inv") and ins["level"] == 2 and ins["scope"] == "wg":
        raise ValueError(f"{mn} WG: an L2 cache serves a device (DV or ALL)")
    return ins


_KIND_WORDS = {
    "reg": "a register",
    "reg?": "a register or _",
    "loc": "a location",
    "expr": "an expression",
    "expr1": "an expression",
    "scope": "a scope (WG, DV, ALL)",
    "label": "a label",
}


def usage(row: Instruction) -> str:
    """What an instruction's operands are, in words."""
    words = [_KIND_WORDS[o.split(":")[1]] for o in row.operands]
    if not words:
        return "no operand"
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def instr_text(ins: dict, regs: list, locs: list, labels: dict) -> str:
    """An IR instruction as the assembly writes it (parsed back by
    `parse_instruction`)."""
    row = row_of(ins)
    words = []
    for operand in row.operands:
        name, kind = operand.split(":")
        v = ins[name]
        if name == "cond" and row.fixed.get("negate"):
            v = v["a"]
        if kind == "reg":
            words.append(regs[v])
        elif kind == "reg?":
            words.append("_" if v is None else regs[v])
        elif kind == "loc":
            words.append(locs[v])
        elif kind in ("expr", "expr1"):
            words.append(expr_text(v, regs))
        elif kind == "scope":
            words.append(SCOPE_NAMES[v])
        elif kind == "label":
            words.append(labels[v])
    return " ".join([mnemonic(ins, row), *words])


def mnemonic(ins: dict, row: Instruction | None = None) -> str:
    """The instruction's mnemonic as the assembly writes it (`INCL1`, `LKrmw`)."""
    row = row or row_of(ins)
    return row.spelling.format(rmw=_RMW_MNEMONIC.get(ins.get("rmw", ""), ""), level=ins.get("level", ""))


def isabelle_term(word: str) -> str | None:
    """A scheme row's instruction (`FLUL1 WG`, `LK x`) as a constructor term
    of Hrf_Machine's `instr`, None where the theory has none."""
    words = word.split()
    for row in TABLE:
        m = row.matches(words[0])
        if m and row.isabelle is not None:
            name = row.isabelle.format(level=m.group(1) if row.groups == ("level",) else "")
            args = []
            for operand, w in zip(row.operands, words[1:], strict=False):
                kind = operand.split(":")[1]
                if kind == "scope" and w.upper() in ISABELLE_SCOPES:
                    args.append(ISABELLE_SCOPES[w.upper()])
                elif kind == "loc" and w == "x":
                    args.append("x")
                else:
                    return None
            return " ".join([name, *args]) if len(args) == len(words) - 1 == len(row.operands) else None
    return None
