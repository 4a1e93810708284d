"""Mappings between axiomatic models as data: how a compiler maps the
atomics of a source language (C11, OpenCL, and the HRF models over
OpenCL's syntax) to a target's instructions (PTX), one row per source
operation, with where the row comes from. `apply` rewrites a source test
into the target's dialect; `hrf.mapcheck` checks a mapping against a
source and a target model; `hrf run`'s lowering (`hrf.gpu.lower`) emits
the same rows.

A row's key is (operation, order): operation `load`, `store`, `rmw` or
`fence`; order `na` (a plain access), `rlx`, `acq`, `rel`, `acq_rel` or
`sc`. Its sequence is PTX instructions without operands: `fence.sc`,
`fence.acq_rel`, `ld.weak`, `ld.relaxed`, `ld.acquire`, `st.weak`,
`st.relaxed`, `st.release`, `atom.relaxed`, `atom.acquire`,
`atom.release`, `atom.acq_rel`. An access and its fences take the scope
the source operation names, through the mapping's `scopes` (a C11 atomic,
which names none, the GPU's: hrf's tests run on one GPU); a row may name a
scope of its own (`st.release.cta`). A load, store or RMW row holds its
access exactly once; a fence row holds fences alone (or nothing).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import DefinitionError, UnsupportedFeature
from ..litmus import ast as A

OPERATIONS = ("load", "store", "rmw", "fence")
ORDERS = ("na", "rlx", "acq", "rel", "acq_rel", "sc")
# PTX's words, as hrf's orders and scopes (litmus/dat3m_ptx.py)
PTX_SEM = {"weak": None, "relaxed": "rlx", "acquire": "acq", "release": "rel", "acq_rel": "acq_rel", "sc": "sc"}
PTX_SCOPE = {"cta": "wg", "cluster": "qf", "gpu": "dev", "sys": "all"}
# hrf's scopes -> PTX's: a work-item's, a subgroup's and a work group's are
# the CTA's (the narrowest PTX scope holding a work group); no scope (C11) the GPU's
SCOPES = {"wi": "cta", "sg": "cta", "wg": "cta", "qf": "cluster", "dev": "gpu", "all": "sys", None: "gpu"}
# An RMW's read and write orders in PTX (litmus/dat3m_ptx.py)
RMW_ORDERS = {"rlx": ("rlx", "rlx"), "acq": ("acq", "rlx"), "rel": ("rlx", "rel"), "acq_rel": ("acq", "rel")}


@dataclass(frozen=True)
class Row:
    seq: tuple[str, ...]
    source: str  # where the row comes from


@dataclass
class Mapping:
    name: str
    description: str
    rows: dict  # (operation, order) -> Row
    source_model: str = "opencl"  # checked against by default
    target_model: str = "ptx-7.5"
    scopes: dict = field(default_factory=lambda: dict(SCOPES))
    notes: str = ""

    def row(self, op: str, order: str, where=None) -> Row:
        r = self.rows.get((op, order))
        if r is None:
            what = "a plain" if order == "na" else f"an {order}" if order[0] in "aeiou" else f"a {order}"
            raise UnsupportedFeature(f"mapping {self.name} has no row for {what} {op}", *(where or (None, None)))
        return r

    def validate(self) -> None:
        """DefinitionError unless every key and instruction is one of the
        module docstring's, and every access row holds its access once."""
        if not isinstance(self.rows, dict):
            raise DefinitionError(
                f"mapping {self.name}: its rows are a dict (operation, order) -> Row, not {type(self.rows).__name__}"
            )
        if not isinstance(self.scopes, dict):
            raise DefinitionError(f"mapping {self.name}: its scopes are a dict, not {type(self.scopes).__name__}")
        for key, r in self.rows.items():
            if not (isinstance(key, tuple) and len(key) == 2 and key[0] in OPERATIONS and key[1] in ORDERS):
                raise DefinitionError(f"mapping {self.name}: row key {key!r} is not (operation, order) of {OPERATIONS}")
            if not isinstance(r, Row) or not isinstance(r.seq, tuple) or not all(isinstance(w, str) for w in r.seq):
                raise DefinitionError(
                    f"mapping {self.name}: row {key} is not a Row of PTX instructions (a tuple of text)"
                )
            kinds = [instruction(w, None, self.name)[0] for w in r.seq]
            want = {"load": "ld", "store": "st", "rmw": "atom"}.get(key[0])
            accesses = [k for k in kinds if k != "fence"]
            if want is None and accesses:
                raise DefinitionError(f"mapping {self.name}: fence row {key} holds an access ({', '.join(r.seq)})")
            if want is not None and accesses != [want]:
                raise DefinitionError(f"mapping {self.name}: row {key} must hold one {want} ({', '.join(r.seq)})")

    def table(self) -> str:
        """The rows as text, with their sources."""
        out = [f"{self.name}: {self.description}"]
        for (op, order), r in sorted(
            self.rows.items(), key=lambda kv: (OPERATIONS.index(kv[0][0]), ORDERS.index(kv[0][1]))
        ):
            out.append(f"  {op:5} {order:7} -> {'; '.join(r.seq) or '(nothing)':40} {r.source}")
        return "\n".join(out)


def instruction(word: str, scope: str | None, mapping: str) -> tuple[str, str | None, str | None]:
    """`ld.acquire` (at `scope`, PTX's word) -> (kind, hrf's order, hrf's scope)."""
    parts = word.split(".")
    kind, rest = parts[0], parts[1:]
    if kind not in ("ld", "st", "atom", "fence") or not rest or rest[0] not in PTX_SEM:
        raise DefinitionError(f"mapping {mapping}: unknown instruction {word!r} (ld.acquire, fence.sc, ...)")
    if len(rest) > 2 or (len(rest) == 2 and rest[1] not in PTX_SCOPE):
        raise DefinitionError(f"mapping {mapping}: {word!r}: a scope is one of {', '.join(PTX_SCOPE)}")
    sem = PTX_SEM[rest[0]]
    ok = {
        "ld": (None, "rlx", "acq"),
        "st": (None, "rlx", "rel"),
        "atom": ("rlx", "acq", "rel", "acq_rel"),
        "fence": ("sc", "acq_rel"),
    }[kind]
    if sem not in ok:
        raise DefinitionError(f"mapping {mapping}: {word!r} is no PTX instruction")
    if sem is None:
        return kind, None, None
    return kind, sem, PTX_SCOPE[rest[1] if len(rest) == 2 else scope or "gpu"]


# ------------------------------------------------------------------ applying a mapping
def apply(test: A.Test, mapping: Mapping) -> A.Test:
    """The test compiled by the mapping: a PTX test (Dat3M's dialect, as
    hrf reads it) with the source's threads, scope tree, registers,
    locations and condition, each operation replaced by its row."""
    if test.arch not in ("C", "OpenCL"):
        raise UnsupportedFeature(
            f"mapping {mapping.name} maps C and OpenCL tests; this is a {test.arch} test", test.path
        )
    m = _Mapper(test, mapping)
    threads = tuple(
        A.with_fields(t, body=tuple(m.stmts(t.body)), params=tuple(A.with_fields(p, region=None) for p in t.params))
        for t in test.threads
    )
    return dataclasses.replace(test, arch="PTX", name=f"{test.name}@{mapping.name}", threads=threads, path=None)


def _registers(test: A.Test) -> set:
    """Every register name a test's threads assign or read."""
    out: set = set()
    for t in test.threads:
        for s in A.walk_stmts(t.body):
            if isinstance(s, A.Assign):
                out.add(s.reg)
            out |= set(A.regs_read(s))
    return out


def order_of(op) -> str:
    """A source operation's order: `na` for a plain access."""
    if not getattr(op, "atomic", True):
        return "na"
    return op.order or "sc"


class _Mapper:
    def __init__(self, test: A.Test, mapping: Mapping):
        self.test, self.mapping = test, mapping
        self.temps = 0  # registers holding a condition's reads (`hoisted`): r<first_free>, ...
        used = [int(r[1:]) for r in _registers(test) if re.fullmatch(r"r[0-9]+", r)]
        self.first_free = max(used, default=-1) + 1

    def where(self, op) -> tuple:
        return (self.test.path, getattr(op, "line", None) or None)

    def refuse(self, what: str, op) -> UnsupportedFeature:
        return UnsupportedFeature(f"mapping {self.mapping.name}: {what}", *self.where(op))

    def scope(self, op) -> str:
        s = self.mapping.scopes.get(op.scope)
        if s is None:
            raise self.refuse(f"no PTX scope for scope {op.scope}", op)
        return s

    def check(self, op) -> None:
        if getattr(op, "remote", False):
            raise self.refuse("remote scope promotion has no PTX form", op)
        if getattr(op, "offset", None) is not None:
            raise self.refuse("a computed address", op)
        if self.test.region_of(op.loc) == "local":
            raise self.refuse(f"{op.loc} is in local memory (PTX's shared memory is not modelled)", op)

    def sequence(self, op, kind: str) -> tuple[list, list, str]:
        """(instructions before, after, the access's word) of a row."""
        r = self.mapping.row(kind, order_of(op), self.where(op))
        before: list = []
        after: list = []
        access = None
        for w in r.seq:
            k = w.split(".")[0]
            if k == "fence":
                _, sem, scope = instruction(w, self.scope(op), self.mapping.name)
                assert sem is not None  # (a fence always has one)
                (after if access is not None else before).append(A.Fence((), sem, scope, line=op.line, tags=("GEN",)))
            else:
                access = w
        return before, after, access or ""

    def stmts(self, body) -> list:
        out: list = []
        for s in body:
            out += self.stmt(s)
        return out

    def stmt(self, s) -> list:
        if isinstance(s, A.Store):
            self.check(s)
            before, after, w = self.sequence(s, "store")
            _, sem, scope = instruction(w, self.scope(s), self.mapping.name)
            st = A.Store(s.loc, self.expr(s.value, s), sem is not None, sem, scope, line=s.line, tags=("GEN",))
            return [*before, st, *after]
        if isinstance(s, A.Fence):
            if s.flags and not any("global" in f.lower() for f in s.flags):
                return []  # a fence on local memory alone orders nothing of PTX's global memory
            before, after, _ = self.sequence(s, "fence")
            return before + after
        if isinstance(s, A.Barrier):
            raise self.refuse("a barrier (its mapping to bar.sync with fences is not given)", s)
        if isinstance(s, A.AnyOrder):
            raise self.refuse("a vector access (no scheme here maps one)", s)
        if isinstance(s, A.Assign) and s.expr is not None and isinstance(s.expr, (A.Load, A.Rmw)):
            before, e, after = self.access(s.expr)
            return [*before, A.with_fields(s, expr=e), *after]
        if isinstance(s, A.ExprStmt) and isinstance(s.expr, (A.Load, A.Rmw)):
            before, e, after = self.access(s.expr)
            return [*before, A.with_fields(s, expr=e), *after]
        if isinstance(s, A.If):
            pre, cond = self.hoisted(s.cond, s)
            return [
                *pre,
                A.with_fields(s, cond=cond, then=tuple(self.stmts(s.then)), orelse=tuple(self.stmts(s.orelse))),
            ]
        if isinstance(s, A.While):
            # `while (c) b` whose c reads with fences: the reads before the
            # loop and again at the end of each iteration
            pre, cond = self.hoisted(s.cond, s)
            return [*pre, A.with_fields(s, cond=cond, body=tuple(self.stmts(s.body)) + tuple(pre))]
        if isinstance(s, A.Assign):
            return [A.with_fields(s, expr=self.expr(s.expr, s)) if s.expr is not None else s]
        if isinstance(s, A.ExprStmt):
            return [A.with_fields(s, expr=self.expr(s.expr, s))]
        return [s]

    def access(self, e) -> tuple[list, Any, list]:
        """A load or RMW at the top of a statement: (fences before, it, fences after)."""
        self.check(e)
        kind = "load" if isinstance(e, A.Load) else "rmw"
        before, after, w = self.sequence(e, kind)
        _, sem, scope = instruction(w, self.scope(e), self.mapping.name)
        if isinstance(e, A.Load):
            out = A.Load(e.loc, sem is not None, sem, scope, line=e.line, tags=("GEN",))
        else:
            out = self.rmw(e, sem, scope)
        return before, out, after

    def rmw(self, e: A.Rmw, sem, scope):
        if e.op == "cas" or e.expected is not None:
            raise self.refuse("a compare-exchange whose expected value is in memory has no PTX form", e)
        op = e.op if e.op != "cas_always" else "cas_old"
        return A.Rmw(
            op,
            e.loc,
            self.expr(e.operand, e),
            sem,
            scope,
            line=e.line,
            expected_value=None if e.expected_value is None else self.expr(e.expected_value, e),
            tags=("GEN",),
            orders=RMW_ORDERS[sem],
        )

    def hoisted(self, cond, at) -> tuple[list, object]:
        """A condition whose loads and RMWs need fences: each into a
        register of its own first, in evaluation order (refused where
        `&&`/`||` might skip one), and the condition over the registers."""
        fenced = [
            x
            for x in A.walk_expr(cond)
            if isinstance(x, (A.Load, A.Rmw)) and any(w.startswith("fence") for w in self.row_of(x))
        ]
        if not fenced:
            return [], self.expr(cond, at)
        if any(isinstance(x, A.BinOp) and x.op in ("&&", "||") for x in A.walk_expr(cond)):
            raise self.refuse("a condition reading with fences under && or ||: the reads it skips have no place", at)
        pre: list = []
        names: dict = {}
        for x in fenced:
            self.temps += 1
            reg = f"r{self.first_free + self.temps - 1}"
            names[id(x)] = reg
            before, out, after = self.access(x)
            pre += [*before, A.Assign(reg, out, True, line=x.line), *after]
        return pre, self.expr(self.replace(cond, names), at)

    def replace(self, e, names: dict):
        if id(e) in names:
            return A.Reg(names[id(e)], line=getattr(e, "line", 0))
        if isinstance(e, A.BinOp):
            return A.with_fields(e, left=self.replace(e.left, names), right=self.replace(e.right, names))
        if isinstance(e, A.UnOp):
            return A.with_fields(e, operand=self.replace(e.operand, names))
        return e

    def row_of(self, e) -> tuple:
        return self.mapping.row("load" if isinstance(e, A.Load) else "rmw", order_of(e), self.where(e)).seq

    def expr(self, e, at):
        """An expression whose loads and RMWs carry no fences (else refused:
        a fence has no place inside an expression)."""
        if isinstance(e, (A.Load, A.Rmw)):
            before, out, after = self.access(e)
            if before or after:
                raise self.refuse(
                    f"a {e.order} {'load' if isinstance(e, A.Load) else 'RMW'} inside an expression: its fences "
                    "have no place there (assign it to a register first)",
                    e,
                )
            return out
        if isinstance(e, A.BinOp):
            return A.with_fields(e, left=self.expr(e.left, at), right=self.expr(e.right, at))
        if isinstance(e, A.UnOp):
            return A.with_fields(e, operand=self.expr(e.operand, at))
        if isinstance(e, (A.StoreExpr, A.DerefExpr)):
            raise self.refuse("a store or computed address inside an expression", at)
        return e
