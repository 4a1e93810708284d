"""herd's cat language: the reader of a cat file into its syntax tree
(`tree.py`), over the tokens of `tokens.py`.

The grammar and the operator precedences are herd7's (herdtools7,
`lib/modelParser.mly` and `lib/modelLexer.mll`), read and restated here;
from loosest to tightest: `|`, `++`, `;`, `\\` (left), `&`, then the
postfix `*` `+` `?`, prefix `~` and the cartesian product `*`, then `^`.
So `a & b; c` is `(a & b); c` and `a | b; c` is `a | (b; c)`. herd of 2015
also wrote `s^2` for `s * s` (sets) and `r; r` (relations) and put LaTeX
between `{%` and `%}`: both are read. Errors are DefinitionErrors naming
the file, line and column.
"""

from __future__ import annotations

from ..errors import DefinitionError
from .tokens import Tok, syntax_error, tokenize
from .tree import (
    App,
    Bind,
    Call,
    CatFile,
    Const,
    Exp,
    Fun,
    IfVariant,
    Include,
    Ins,
    Let,
    Op,
    Op1,
    Procedure,
    Show,
    TagE,
    Test,
    Unsupported,
    UnsupportedIns,
    Var,
    WithFrom,
)

# herd 2015's model options after the title (`withoutsc`, ...)
MODEL_OPTIONS = {"withco", "withoutco", "withsc", "withoutsc", "withinit", "withoutinit", "catdep"}
# ... and hrf's own (see compile.py)
MODEL_OPTIONS |= {"withthinair", "withoutthinair", "withcaswriteback", "withoutcaswriteback"}

# the binary operators of `base`: (precedence, associativity)
_BINARY = {"|": (1, "right"), "++": (2, "right"), ";": (3, "right"), "\\": (4, "left"), "&": (5, "right")}
_OPNAME = {"|": "union", "++": "add", ";": "seq", "\\": "diff", "&": "inter"}
_STAR_PREC = 6
# The deepest nesting of expressions (parentheses, brackets, complements,
# bodies) a cat file may have: herd's own files nest a few levels; reading
# recurses once per level.
MAX_NESTING = 100


class Parser:
    def __init__(self, text: str, path: str | None):
        self.text, self.path = text, path
        self.toks = tokenize(text, path)
        self.i = 0
        self.depth = 0  # expressions open around the one being read (MAX_NESTING)

    # ------------------------------------------------------------ helpers
    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> Tok:
        t = self.toks[self.i]
        self.i = min(self.i + 1, len(self.toks) - 1)
        return t

    def at(self, kind: str, text: str | None = None) -> bool:
        t = self.tok
        return t.kind == kind and (text is None or t.text == text)

    def at_op(self, text: str) -> bool:
        return self.at("op", text)

    def at_kw(self, text: str) -> bool:
        return self.at("kw", text)

    def expect(self, kind: str, text: str | None = None) -> Tok:
        if not self.at(kind, text):
            want = repr(text) if text else {"name": "a name", "string": "a string"}.get(kind, kind)
            raise self.error(f"expected {want}, found {self.describe(self.tok)}")
        return self.next()

    def describe(self, t: Tok) -> str:
        return "the end of the file" if t.kind == "eof" else repr(t.text)

    def error(self, msg: str, t: Tok | None = None) -> DefinitionError:
        t = t or self.tok
        return syntax_error(msg, self.path, self.text, t.line, t.col)

    # ------------------------------------------------------------ file
    def parse_file(self) -> CatFile:
        title = arch = ""
        if self.at("string"):
            title = self.next().text
        elif self.at("name") and self.peek().text != "=":
            title = arch = self.next().text
            if self.at("string") or (self.at("name") and self.tok.text not in MODEL_OPTIONS):
                title = self.next().text  # herd: an architecture, then the model's name
        options = []
        while self.at("name") and self.tok.text in MODEL_OPTIONS or self.at_kw("catdep"):
            options.append(self.next().text)
        body = self.instructions(top=True)
        self.expect("eof")
        return CatFile(title, tuple(options), tuple(body), self.path, arch)

    def instructions(self, top: bool = False) -> list[Ins]:
        out = []
        while not (self.at("eof") or self.at_kw("end") or self.at_kw("else")):
            out.append(self.instruction())
        return out

    def instruction(self) -> Ins:
        t = self.tok
        pos = {"line": t.line, "col": t.col}
        if self.at_kw("let"):
            rec, bindings = self.let_head()
            if self.at_kw("when"):
                raise self.error("let rec ... when is not supported")
            if self.at_kw("in"):  # `let ... in exp` at the top: an expression statement herd ignores
                self.next()
                self.exp()
            return Let(tuple(bindings), rec, **pos)
        if self.at_kw("include"):
            self.next()
            return Include(self.expect("string").text, **pos)
        if self.at_kw("show") or self.at_kw("unshow"):
            unshow = self.next().text == "unshow"
            if not unshow and not (self.at("name") and self.peek().text in (",",) or self._show_names_only()):
                e = self.base()
                as_name = None
                if self.at_kw("as"):
                    self.next()
                    as_name = self.expect("name").text
                return Show(e, (), as_name, **pos)
            names = [self.expect("name").text]
            while self.at_op(","):
                self.next()
                names.append(self.expect("name").text)
            return Show(None, tuple(names), "unshow" if unshow else None, **pos)
        if self.at_kw("procedure"):
            self.next()
            if self.at_kw("rec"):
                self.next()
            name = self.expect("name").text
            if self.at_op("("):
                self.next()
                params = self.formals()
                self.expect("op", ")")
            else:
                params = [self.pat0()]
            self.expect("op", "=")
            body = self.instructions()
            self.expect("kw", "end")
            return Procedure(name, tuple(params), tuple(body), **pos)
        if self.at_kw("call"):
            self.next()
            name = self.expect("name").text
            arg = self.simple()
            as_name = None
            if self.at_kw("as"):
                self.next()
                as_name = self.expect("name").text
            return Call(name, arg, as_name, **pos)
        if self.at_kw("undefined_unless") or self.at_kw("flag") or self.at_kw("assert"):
            ttype = {"undefined_unless": "undefined_unless", "flag": "flag", "assert": "assert"}[self.next().text]
            return self.test(ttype, pos)
        if self.at_kw("acyclic") or self.at_kw("irreflexive") or self.at_kw("empty") or self.at_op("~"):
            return self.test("check", pos)
        if self.at_kw("with"):
            self.next()
            name = self.expect("name").text
            self.expect("kw", "from")
            return WithFrom(name, self.exp(), **pos)
        if self.at_kw("if") and (self.peek().kind == "string" or self.peek().text in ("variant", "~", "(")):
            self.next()
            cond = self.variant()
            then = self.instructions()
            orelse: list[Ins] = []
            if self.at_kw("else"):
                self.next()
                orelse = self.instructions()
            self.expect("kw", "end")
            return IfVariant(cond, tuple(then), tuple(orelse), **pos)
        for kw in ("enum", "debug", "forall", "if", "match", "instructions", "default"):
            if self.at_kw(kw):
                return self.skip_unsupported(kw, pos)
        raise self.error(f"expected an instruction (let, acyclic, show, include ...), found {self.describe(t)}")

    def variant(self, min_prec: int = 0) -> tuple:
        """A variant condition: "name", variant "name", ~c, c & c, c | c, (c)."""
        if self.at_op("~"):
            self.next()
            left: tuple = ("not", self.variant(2))
        elif self.at_op("("):
            self.next()
            left = self.variant()
            self.expect("op", ")")
        else:
            if self.at_kw("variant"):
                self.next()
            left = ("var", self.expect("string").text)
        while (self.at_op("&") and min_prec <= 1) or (self.at_op("|") and min_prec == 0):
            op = self.next().text
            left = ("and" if op == "&" else "or", left, self.variant(2 if op == "&" else 1))
        return left

    def _show_names_only(self) -> bool:
        # `show a, b` (names) against `show exp [as name]`
        j = self.i
        if self.toks[j].kind != "name":
            return False
        while self.toks[j].kind == "name" and self.toks[j + 1].text == ",":
            j += 2
        return self.toks[j].kind == "name" and self.toks[j + 1].kind in ("kw", "eof") and self.toks[j + 1].text != "as"

    def test(self, ttype: str, pos: dict) -> Test:
        negated = False
        if self.at_op("~"):
            self.next()
            negated = True
        kw = self.tok
        if not (self.at_kw("acyclic") or self.at_kw("irreflexive") or self.at_kw("empty")):
            raise self.error(f"expected acyclic, irreflexive or empty, found {self.describe(kw)}")
        self.next()
        e = self.exp()
        name = None
        if self.at_kw("as"):
            self.next()
            name = self.expect("name").text
        return Test(kw.text, e, name, negated, ttype, **pos)

    def skip_unsupported(self, kw: str, pos: dict) -> UnsupportedIns:
        """Read past an instruction hrf gives no meaning to yet, so that the
        error can name it (and where it is) when it is compiled."""
        self.next()
        depth = 1 if kw in ("forall", "if", "match", "instructions", "default") else 0
        if kw in ("instructions", "default"):
            depth = 0
        while not self.at("eof"):
            if depth == 0 and self._starts_instruction() and kw not in ("forall", "if", "match"):
                break
            if self.at_kw("end"):
                depth -= 1
                self.next()
                if depth <= 0:
                    break
                continue
            if self.at_kw("forall") or self.at_kw("if") or self.at_kw("match") or self.at_kw("begin"):
                depth += 1
            self.next()
        return UnsupportedIns(kw, **pos)

    def _starts_instruction(self) -> bool:
        return self.tok.kind == "kw" and self.tok.text in (
            "let",
            "include",
            "show",
            "unshow",
            "procedure",
            "call",
            "acyclic",
            "irreflexive",
            "empty",
            "undefined_unless",
            "flag",
            "assert",
            "enum",
            "debug",
            "forall",
            "with",
            "if",
            "match",
        )

    # ------------------------------------------------------------ bindings
    def let_head(self) -> tuple[bool, list]:
        """`let [rec] bindings`: whether rec, and the bindings."""
        self.expect("kw", "let")
        rec = self.at_kw("rec")
        if rec:
            self.next()
        return rec, self.bindings()

    def pat0(self) -> str | None:
        if self.at_op("_"):
            self.next()
            return None
        return self.expect("name").text

    def formals(self) -> list[str | None]:
        if self.at_op(")"):
            return []
        out = [self.pat0()]
        while self.at_op(","):
            self.next()
            out.append(self.pat0())
        return out

    def bindings(self) -> list[tuple[tuple[str | None, ...], Exp]]:
        out = [self.binding()]
        while self.at_kw("and"):
            self.next()
            out.append(self.binding())
        return out

    def binding(self) -> tuple[tuple[str | None, ...], Exp]:
        t = self.tok
        if self.at_op("("):  # (a, b) = exp
            self.next()
            pattern = self.formals()
            self.expect("op", ")")
            self.expect("op", "=")
            return (tuple(pattern), self.exp())
        name = self.expect("name").text
        if self.at_op("("):  # f(a, b) = exp
            self.next()
            params = self.formals()
            self.expect("op", ")")
            self.expect("op", "=")
            body = self.exp()
            return ((name,), Fun(tuple(params), body, True, line=t.line, col=t.col))
        if (self.at("name") or self.at_op("_")) and self.peek().text == "=":  # f x = exp
            param = self.pat0()
            self.expect("op", "=")
            body = self.exp()
            return ((name,), Fun((param,), body, False, line=t.line, col=t.col))
        names: list[str | None] = [name]
        while self.at_op(","):
            self.next()
            names.append(self.pat0())
        self.expect("op", "=")
        return (tuple(names), self.exp())

    # ------------------------------------------------------------ expressions
    def exp(self) -> Exp:
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise self.error(f"expressions nested more than {MAX_NESTING} deep")
            return self._exp()
        finally:
            self.depth -= 1

    def _exp(self) -> Exp:
        t = self.tok
        pos = {"line": t.line, "col": t.col}
        if self.at_kw("let"):
            rec, bindings = self.let_head()
            self.expect("kw", "in")
            return Bind(tuple(bindings), self.exp(), rec, **pos)
        if self.at_kw("fun"):
            self.next()
            if self.at_op("("):
                self.next()
                params = self.formals()
                self.expect("op", ")")
                self.expect("op", "->")
                return Fun(tuple(params), self.exp(), True, **pos)
            p = self.pat0()
            self.expect("op", "->")
            return Fun((p,), self.exp(), False, **pos)
        for kw in ("try", "if", "match"):
            if self.at_kw(kw):
                return self.skip_unsupported_exp(kw, pos)
        e = self.base()
        if self.at_op(","):
            items = [e]
            while self.at_op(","):
                self.next()
                items.append(self.base())
            return Op("tuple", tuple(items), **pos)
        return e

    def skip_unsupported_exp(self, kw: str, pos: dict) -> Unsupported:
        self.next()
        depth = 0
        while not self.at("eof"):
            if self.at_kw("match") or self.at_kw("begin"):
                depth += 1
            elif self.at_kw("end"):
                if depth == 0 and kw != "match":
                    break
                depth -= 1
                self.next()
                if depth < 0:
                    break
                continue
            elif depth == 0 and kw != "match" and self._starts_instruction() and self.tok.text != "with":
                break
            self.next()
        return Unsupported(kw, **pos)

    def starts_simple(self, t: Tok) -> bool:
        return (
            t.kind in ("name", "tag")
            or (t.kind == "op" and t.text in ("(", "[", "{", "_", "~", "!"))
            or (t.kind == "num" and t.text == "0")
            or (t.kind == "kw" and t.text == "begin")
        )

    def base(self, min_prec: int = 0) -> Exp:
        left = self.unary()
        while True:
            t = self.tok
            pos = {"line": t.line, "col": t.col}
            if t.kind == "op" and t.text == "*":
                if self.starts_simple(self.peek()):  # cartesian product
                    if min_prec > _STAR_PREC:
                        break
                    self.next()
                    right = self.base(_STAR_PREC + 1)
                    left = Op("cartesian", (left, right), **pos)
                else:
                    self.next()
                    left = Op1("star", left, **pos)
                continue
            if t.kind == "op" and t.text in ("+", "?"):
                self.next()
                left = Op1("plus" if t.text == "+" else "opt", left, **pos)
                continue
            if t.kind == "op" and t.text == "^":
                left = self.hat(left)
                continue
            if t.kind == "op" and t.text in _BINARY:
                prec, assoc = _BINARY[t.text]
                if prec < min_prec:
                    break
                # a chain of one operator is read in a loop (a `|` of 5,000
                # terms recurses no deeper than one), then nested as its
                # associativity says
                operands, places = [left], []
                while self.tok.kind == "op" and self.tok.text == t.text:
                    places.append({"line": self.tok.line, "col": self.tok.col})
                    self.next()
                    operands.append(self.base(prec + 1))
                if assoc == "left":
                    for right, at in zip(operands[1:], places, strict=True):
                        left = Op(_OPNAME[t.text], (left, right), **at)
                else:
                    left = operands[-1]
                    for item, at in zip(reversed(operands[:-1]), reversed(places), strict=True):
                        left = Op(_OPNAME[t.text], (item, left), **at)
                continue
            break
        return left

    def hat(self, left: Exp) -> Exp:
        t = self.next()  # the ^
        pos = {"line": t.line, "col": t.col}
        if self.at_op("-1"):
            self.next()
            return Op1("inv", left, **pos)
        if self.at("num", "2"):
            self.next()
            return Op1("square", left, **pos)
        raise self.error(f"expected -1 (or herd 2015's 2) after ^, found {self.describe(self.tok)}")

    def unary(self) -> Exp:
        t = self.tok
        if self.at_op("~") or self.at_op("!"):  # `!` is herd 2015's spelling
            self.next()
            self.depth += 1
            try:
                if self.depth > MAX_NESTING:
                    raise self.error(f"expressions nested more than {MAX_NESTING} deep")
                arg = self.unary()
            finally:
                self.depth -= 1
            while self.at_op("^"):  # `^` binds tighter than `~`: ~r^-1 is ~(r^-1)
                arg = self.hat(arg)
            return Op1("comp", arg, line=t.line, col=t.col)
        return self.application()

    def application(self) -> Exp:
        t = self.tok
        if t.kind == "name":
            self.next()
            e: Exp = Var(t.text, line=t.line, col=t.col)
            while self.starts_simple(self.tok) and not self.at_op("~") and not self.at_op("!"):
                a = self.tok
                arg = Var(self.next().text, line=a.line, col=a.col) if a.kind == "name" else self.simple()
                e = App(e, arg, line=t.line, col=t.col)
            return e
        return self.simple()

    def simple(self) -> Exp:
        t = self.tok
        pos = {"line": t.line, "col": t.col}
        if t.kind == "num" and t.text == "0":
            self.next()
            return Const("empty", **pos)
        if self.at_op("_"):
            self.next()
            return Const("universe", **pos)
        if t.kind == "tag":
            self.next()
            return TagE(t.text, **pos)
        if t.kind == "name":
            self.next()
            return Var(t.text, **pos)
        if self.at_op("("):
            self.next()
            if self.at_op(")"):
                self.next()
                return Op("tuple", (), **pos)
            e = self.exp()
            self.expect("op", ")")
            return e
        if self.at_kw("begin"):
            self.next()
            e = self.exp()
            self.expect("kw", "end")
            return e
        if self.at_op("["):
            self.next()
            e = self.exp()
            self.expect("op", "]")
            return Op1("toid", e, **pos)
        if self.at_op("{"):
            self.next()
            depth = 1
            while depth and not self.at("eof"):
                depth += {"{": 1, "}": -1}.get(self.tok.text, 0) if self.tok.kind == "op" else 0
                self.next()
            return Unsupported("explicit sets {...}", **pos)
        raise self.error(f"expected an expression, found {self.describe(t)}")


def parse(text: str, path: str | None = None) -> CatFile:
    """A cat file's syntax tree; a DefinitionError at the first fault."""
    return Parser(text, path).parse_file()
