"""herd's cat language: the syntax tree `syntax.parse` builds (expressions
and instructions, each with its line and column) and `compile` reads."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Located:
    """Where a node starts in its file (not part of its value)."""

    line: int = field(default=0, compare=False, kw_only=True)
    col: int = field(default=0, compare=False, kw_only=True)


@dataclass(frozen=True)
class Exp(Located):
    """An expression."""


@dataclass(frozen=True)
class Var(Exp):
    name: str


@dataclass(frozen=True)
class Const(Exp):
    what: str  # "empty" (0) or "universe" (_)


@dataclass(frozen=True)
class TagE(Exp):
    name: str


@dataclass(frozen=True)
class Op1(Exp):
    op: str  # star plus opt inv comp toid square
    arg: Exp


@dataclass(frozen=True)
class Op(Exp):
    op: str  # union seq inter diff cartesian add tuple
    args: tuple[Exp, ...]


@dataclass(frozen=True)
class App(Exp):
    fn: Exp
    arg: Exp


@dataclass(frozen=True)
class Fun(Exp):
    params: tuple[str | None, ...]
    body: Exp
    tuple_params: bool = False


@dataclass(frozen=True)
class Bind(Exp):
    bindings: tuple[tuple[tuple[str | None, ...], Exp], ...]
    body: Exp
    rec: bool = False


@dataclass(frozen=True)
class Unsupported(Exp):
    """A construct read but not given a meaning (if, match, try, sets of
    tags...): compiling it is an UnsupportedFeature naming it."""

    what: str


# instructions
@dataclass(frozen=True)
class Ins(Located):
    """An instruction."""


@dataclass(frozen=True)
class Let(Ins):
    bindings: tuple[tuple[tuple[str | None, ...], Exp], ...]
    rec: bool = False


@dataclass(frozen=True)
class Test(Ins):
    kind: str  # acyclic irreflexive empty
    exp: Exp
    name: str | None
    negated: bool = False
    test_type: str = "check"  # check, undefined_unless, flag, assert


@dataclass(frozen=True)
class Show(Ins):
    exp: Exp | None
    names: tuple[str, ...] = ()
    as_name: str | None = None


@dataclass(frozen=True)
class Include(Ins):
    file: str


@dataclass(frozen=True)
class Procedure(Ins):
    name: str
    params: tuple[str | None, ...]
    body: tuple[Ins, ...]


@dataclass(frozen=True)
class Call(Ins):
    name: str
    arg: Exp
    as_name: str | None = None


@dataclass(frozen=True)
class WithFrom(Ins):
    name: str
    exp: Exp


@dataclass(frozen=True)
class IfVariant(Ins):
    """`if "name" ... [else ...] end`: herd's model variants (its -variant
    option). `cond` is ("var", name), ("not", c), ("and", a, b) or ("or", a, b)."""

    cond: tuple
    then: tuple[Ins, ...]
    orelse: tuple[Ins, ...]


@dataclass(frozen=True)
class UnsupportedIns(Ins):
    what: str


@dataclass(frozen=True)
class CatFile:
    title: str
    options: tuple[str, ...]
    body: tuple[Ins, ...]
    path: str | None
    arch: str = ""  # the architecture word a title starts with (`VULKAN`), where it has one
