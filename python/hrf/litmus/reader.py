"""The reader every litmus dialect is built from: a lexer that keeps each
token's line and column, a recursive-descent reader over the tokens whose
syntax errors name the token they stop at and what was expected there,
and the clauses herd's syntaxes share (scope trees, `locations [...]`,
conditions). A dialect subclasses `TokenReader` with its token pattern and
its own forms (`opencl.CReader`, `ptx.CellReader`, `ptx.TailReader`).

Errors come in two kinds, in the order a reader of the whole text finds
them: a syntax error (`SyntaxFault`) stops the reading at once; a form that
reads but means nothing to hrf (a number past 64 bits, an unknown memory
order, an LKMM primitive) is kept (`defer`) and raised only once the whole
text has read, so that a test with both is reported for its syntax first.

The names a dialect makes keywords are keywords only where the dialect
accepts the keyword, as the grammars' contextual lexers take them (the
executable grammars in tests/lalr are the reference): `exists` is a
register's name inside a thread and the condition's quantifier after the
threads.
"""

from __future__ import annotations

import re
from typing import NoReturn

from . import ast as A
from .toolkit import ParseFailure, Where, int_literal, make_and, make_or, make_stree

END = "end"  # the token after the last one, placed at the last one (as the grammars' readers place it)
BAD = "bad"  # a character no token starts with: an error wherever the reader reaches it
PROC = re.compile(r"P[0-9]+")  # a thread's name, where threads are named
Token = tuple  # (kind, text, line, column, offset): kind is the operator's text for operators


class SyntaxFault(ParseFailure):
    """A syntax error at a token."""


class TokenReader:
    """Tokens of `src` and the reading of them; `TOKEN` is the dialect's
    pattern, with the groups `skip` (blanks, comments), `int`, `name` and
    `op` (whose text is its kind), tried in that order."""

    TOKEN: re.Pattern[str]

    def __init__(self, src: str):
        self.src = src
        self.toks: list[Token] = []
        self.i = 0
        self.deferred: ParseFailure | None = None

    # ------------------------------------------------------------ lexing
    def lex(self, pos: int = 0, line: int = 1, col0: int = 0, last: tuple = (1, 1)) -> None:
        """Tokens from pos (on `line`, whose first character is at col0) to
        the end; `last` places the end where no token comes before it."""
        src, out = self.src, self.toks
        n = len(src)
        match = self.TOKEN.match
        while pos < n:
            m = match(src, pos)
            if m is None:
                out.append((BAD, src[pos], line, pos - col0 + 1, pos))
                break
            kind = m.lastgroup or ""
            text = m.group()
            if kind == "skip":
                nl = text.count("\n")
                if nl:
                    line += nl
                    col0 = pos + text.rindex("\n") + 1
            else:
                out.append((text if kind == "op" else kind, text, line, pos - col0 + 1, pos))
            pos = m.end()
        where = (out[-1][2], out[-1][3]) if out else last
        end = (END, "", where[0], where[1], n)
        out.extend((end, end, end))  # room for two tokens of look-ahead past the end

    # ------------------------------------------------------------ tokens
    def peek(self, k: int = 0) -> Token:
        return self.toks[self.i + k]

    def next(self) -> Token:
        t = self.toks[self.i]
        self.i += 1
        return t

    def accept(self, kind: str) -> bool:
        if self.toks[self.i][0] == kind:
            self.i += 1
            return True
        return False

    def expect(self, kind: str, what: str | None = None) -> Token:
        t = self.toks[self.i]
        if t[0] != kind:
            self.fail(what or _shown(kind))
        self.i += 1
        return t

    def name(self, what: str = "a name") -> str:
        t = self.toks[self.i]
        if t[0] != "name":
            self.fail(what)
        self.i += 1
        return t[1]

    def at_word(self, word: str) -> bool:
        """Whether the next token is the name `word` (a keyword where the caller accepts one)."""
        t = self.toks[self.i]
        return t[0] == "name" and t[1] == word

    def cut(self, n: int) -> None:
        """The next token as two, its first n characters and the rest, each
        of the kind its first token is: where the grammar takes only a
        shorter token than the lexer made, as a lexer that knows the
        grammar's state reads it."""
        t = self.toks[self.i]
        pieces = []
        for text, off in ((t[1][:n], 0), (t[1][n:], n)):
            m = self.TOKEN.match(text)
            kind = (text if m.lastgroup == "op" else m.lastgroup) if m else BAD
            pieces.append((kind, text, t[2], t[3] + off, t[4] + off))
        self.toks[self.i : self.i + 1] = pieces

    def split(self, firsts: str) -> None:
        """Where the grammar takes `=` (or `&`, `!`) but not `==` (`&&`,
        `!=`), the two-character operator there is its first character and
        then its second."""
        k = self.toks[self.i][0]
        if len(k) == 2 and k in _COMPOUND and k[0] in firsts:
            self.cut(1)

    def fail(self, expected: str | None = None, t: Token | None = None) -> NoReturn:
        """A syntax error at token t (the next one): what is there, what was expected."""
        t = t or self.toks[self.i]
        if t[0] == END:
            msg = "unexpected end of input"
        elif t[0] == BAD:
            msg = f"unexpected character {t[1]!r}"
        else:
            msg = f"unexpected {t[1]!r}"
        raise SyntaxFault(msg + (f" (expected {expected})" if expected else ""), t[2], t[3])

    # ------------------------------------------------------------ meaning
    def defer(self, e: ParseFailure) -> None:
        """Keep the first error of meaning until the whole text has read."""
        if self.deferred is None:
            self.deferred = e

    def number(self, t: Token) -> int:
        """The value of an int token (0 where it is past 64 bits: deferred)."""
        try:
            return int_literal(t[1])
        except ParseFailure as e:
            self.defer(ParseFailure(e.msg, t[2], t[3]))
            return 0

    def signed(self) -> int:
        neg = self.accept("-")
        v = self.number(self.expect("int", "a number"))
        return -v if neg else v

    def finish(self, items):
        """The items read, or the first deferred error."""
        if self.deferred is not None:
            raise self.deferred
        return items

    # ------------------------------------------------------------ scope trees
    def scope_tree(self) -> tuple:
        """`scopeTree` (the keyword already read) and its trees."""
        trees = [self.stree()]
        while self.peek()[0] == "(":
            trees.append(self.stree())
        return ("tree", trees)

    def stree(self) -> tuple:
        """`(level kids...)`: kids are threads (P0, ...) and nodes."""
        t = self.expect("(")
        name = None
        k = self.peek()
        if k[0] == "name" and not PROC.fullmatch(k[1]):
            name = self.next()[1]
        kids: list = []
        while True:
            k = self.peek()
            if k[0] == "(":
                kids.append(self.stree())
            elif k[0] == "name" and PROC.fullmatch(k[1]):
                kids.append(self.next()[1])
            elif k[0] == ")":
                self.i += 1
                break
            else:
                self.fail("a thread (P0, P1, ...), '(' or ')'")
        try:
            return make_stree(name, kids, Where(t[2], t[3]))
        except ParseFailure as e:
            self.defer(e)
            return (None, kids, 0, "group", t[2], t[3])

    # ------------------------------------------------------------ locations, conditions
    def locations(self) -> tuple:
        """`locations [v; ...]` (the keyword already read)."""
        self.expect("[")
        out = []
        while not self.accept("]"):
            out.append(self.cvar())
            self.accept(";")
        return ("locations", tuple(out))

    def cvar(self):
        """A condition's variable: `0:r0`, `[x]` or `x`."""
        t = self.peek()
        if t[0] == "int":
            self.i += 1
            self.expect(":")
            reg = self.name("a register")
            return A.RegVar(self.number(t), reg)
        if self.accept("["):
            loc = self.name("a location")
            self.expect("]")
            return A.LocVar(loc)
        if t[0] != "name":
            self.fail("a register (0:r0) or a location")
        self.i += 1
        return A.LocVar(t[1])

    def condition(self, parens: bool) -> tuple:
        """`exists p`, `forall p` or `~exists p` (at the quantifier or `~`);
        `parens`: the proposition is always in parentheses."""
        tilde = self.peek()
        negated = self.accept("~")
        q = self.peek()
        if not (q[0] == "name" and q[1] in ("exists", "forall")):
            self.fail("exists or forall")
        self.i += 1
        if parens:
            self.expect("(")
            prop = A.PTrue() if self.peek()[0] == ")" else self.prop()
            self.expect(")")
        elif self.peek()[0] == "(" and self.peek(1)[0] == ")":
            self.i += 2
            prop = A.PTrue()
        else:
            prop = self.prop()
        if negated and q[1] != "exists":
            self.defer(ParseFailure("only 'exists' may be negated", tilde[2], tilde[3]))
        return ("cond", A.Condition("~exists" if negated else q[1], prop))

    def prop(self):
        items = [self.pand()]
        while self.accept("\\/"):
            items.append(self.pand())
        return items[0] if len(items) == 1 else make_or(items)

    def pand(self):
        items = [self.pnot()]
        while self.accept("/\\"):
            items.append(self.pnot())
        return items[0] if len(items) == 1 else make_and(items)

    def pnot(self):
        t = self.peek()
        if t[0] == "~" or t[0] == "name" and t[1] == "not":
            self.i += 1
            return A.PNot(self.pnot())
        if t[0] == "name" and t[1] in ("true", "false"):
            self.i += 1
            return A.PTrue() if t[1] == "true" else A.PFalse()
        if t[0] == "(":
            self.i += 1
            p = self.prop()
            self.expect(")", "')', '/\\' or '\\/'")
            return p
        return self.atom(self.cvar())

    def atom(self, var):
        """`var = n` (the dialect adds its other forms)."""
        self.split("=")
        self.expect("=")
        return A.PAtom(var, self.signed())


_COMPOUND = frozenset(["==", "!=", "&&", "||", "<=", ">="])


def _shown(kind: str) -> str:
    return "end of input" if kind == END else f"'{kind}'" if not kind.isalpha() else f"a {kind}"
