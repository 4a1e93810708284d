"""A hand-written reader of the C/OpenCL litmus syntax (`opencl.grammar`),
for speed: no parse tree, no lark. It reads the forms of the grammar that
tests use, building the AST the LALR reader builds (`opencl_lalr`), lines
included, with the same builders (`opencl`). On anything else, a syntax
error, a construct hrf refuses, a rare form, it gives up (None) and the
LALR reader, the reference, reads the test and says what is wrong. So it
needs no error messages of its own; tests/test_parse_fast.py checks that
the two agree wherever it does not give up.

It follows the grammar's lexer where lark's contextual lexer decides by
the parser's state: a type name is a type only where a statement starts,
a thread name (P0, P1, ...) only where a thread starts, and a name that
is a keyword anywhere (if, exists, true, ...) makes it give up.
"""

from __future__ import annotations

import re

from . import ast as A
from .toolkit import (
    ALLOC_CLASSES,
    ParseFailure,
    Where,
    call,
    int_literal,
    make_and,
    make_array_init,
    make_expr_stmt,
    make_header,
    make_labelled,
    make_or,
    make_param,
    make_scope_annot,
    make_stree,
    make_thread,
    make_unop,
    value,
)


class GiveUp(Exception):
    """Not a form this reader knows: the LALR reader decides."""


_SKIP = re.compile(r"(?:[ \t\f\r\n]+|//[^\n]*|/\*(?:.|\n)*?\*/)*")
_HEADER = re.compile(r"(?:(?i:opencl)|C)[ \t]+[^\n]*")
_DOCSTRING = re.compile(r'"[^"\n]*"')
_METALINE = re.compile(r"[A-Za-z][A-Za-z0-9_]*=[^\n]*")
_TOKEN = re.compile(
    r"(?P<skip>[ \t\f\r\n]+|//[^\n]*|/\*(?:.|\n)*?\*/)"
    r"|(?P<int>0x[0-9a-fA-F]+|[0-9]+)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>\|\||&&|==|!=|<=|>=|/\\|\\/|[<>+\-*&|^!~=;,(){}\[\]@:])"
)
_PROC = re.compile(r"P[0-9]+")
# the grammar's TYPENAME: a name that is one of these is a type where a statement starts
_TYPES = frozenset(
    [
        "int",
        "long",
        "short",
        "char",
        "atomic_int",
        "intptr_t",
        "uint",
        "__int128_t",
        "__uint128_t",
        "__int128",
        "int128_t",
        "uint128_t",
        "atomic_t",
    ]
    + [f"{u}int{n}_t" for u in ("", "u") for n in (8, 16, 32, 64)]
)
# names the grammar makes keywords in some state: where one is a name, give up
_KEYWORDS = frozenset(
    ["if", "else", "while", "scopeTree", "locations", "regions", "not", "true", "false", "exists", "forall", "unsigned"]
)
_LEVELS = (("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*",))
# the binding level of each binary operator (higher binds tighter)
_LEVEL_OF = {op: k for k, ops in enumerate(_LEVELS) for op in ops}
_END = ("end", "", 0, 0)


def read_items(src: str) -> list | None:
    """The top-level items `opencl.assemble` takes, or None where this
    reader gives up (the LALR reader then reads the test)."""
    try:
        return Reader(src).test()
    except (GiveUp, ParseFailure, RecursionError, IndexError):
        return None


def _skip(src: str, pos: int) -> int:
    """Past the blanks and comments at pos."""
    m = _SKIP.match(src, pos)
    return m.end() if m else pos


class Reader:
    def __init__(self, src: str):
        self.src = src
        self.toks: list[tuple[str, str, int, int]] = []
        self.i = 0

    # ------------------------------------------------------------ lexing
    def lex(self, pos: int, line: int, col0: int) -> None:
        """Tokens from pos (at `line`, whose first character is at col0) to the end."""
        src, out = self.src, self.toks
        n = len(src)
        match = _TOKEN.match
        while pos < n:
            m = match(src, pos)
            if m is None:
                raise GiveUp
            kind = m.lastgroup or ""
            text = m.group()
            if kind == "skip":
                nl = text.count("\n")
                if nl:
                    line += nl
                    col0 = pos + text.rindex("\n") + 1
            else:
                out.append((text if kind == "op" else kind, text, line, pos - col0 + 1))
            pos = m.end()
        out.append(_END)

    def preamble(self) -> tuple:
        """The header and the meta lines; lexes the rest."""
        src = self.src
        pos = _skip(src, 0)
        m = _HEADER.match(src, pos)
        if m is None:
            raise GiveUp
        header = make_header(m.group())
        pos = m.end()
        while True:
            pos = _skip(src, pos)
            m = _DOCSTRING.match(src, pos) or _METALINE.match(src, pos)
            if m is None:
                break
            pos = m.end()
        line = src.count("\n", 0, pos) + 1
        self.lex(pos, line, src.rfind("\n", 0, pos) + 1)
        return header

    # ------------------------------------------------------------ tokens
    def peek(self, k: int = 0) -> tuple[str, str, int, int]:
        return self.toks[self.i + k]

    def next(self) -> tuple[str, str, int, int]:
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, kind: str) -> tuple[str, str, int, int]:
        t = self.toks[self.i]
        if t[0] != kind:
            raise GiveUp
        self.i += 1
        return t

    def name(self) -> str:
        t = self.expect("name")
        if t[1] in _KEYWORDS:
            raise GiveUp
        return t[1]

    def accept(self, kind: str) -> bool:
        if self.toks[self.i][0] == kind:
            self.i += 1
            return True
        return False

    # ------------------------------------------------------------ test
    def test(self) -> list:
        items: list = [self.preamble(), self.init_block()]
        while self.peek()[0] == "name" and _PROC.fullmatch(self.peek()[1]):
            items.append(self.thread())
        if len(items) == 2:
            raise GiveUp
        t = self.peek()
        if t[1] == "scopeTree":
            items.append(self.scope_tree())
            t = self.peek()
        if t[1] == "locations":
            items.append(self.locations())
            t = self.peek()
        if t[0] == "~" or t[1] in ("exists", "forall"):
            items.append(self.condition())
        if self.peek() is not _END:
            raise GiveUp
        return items

    def signed(self) -> int:
        neg = self.accept("-")
        v = int_literal(self.expect("int")[1])
        return -v if neg else v

    def init_block(self) -> tuple:
        self.expect("{")
        out = []
        while not self.accept("}"):
            if self.accept(";"):
                continue
            out.append(self.init_item())
        return ("init", out)

    def init_item(self):
        t0, t1 = self.peek(), self.peek(1)
        line = t0[2]
        if t0[0] == "int":  # 0:r0 = 1
            reg_thread = int_literal(self.next()[1])
            self.expect(":")
            reg = self.name()
            self.expect("=")
            item = A.RegInit(reg_thread, reg, self.signed(), line=line)
        elif t0[0] == "[" or t0[0] == "name" and t1[0] in ("=", ";"):
            if t0[0] == "[":
                self.next()
                loc = self.name()
                self.expect("]")
            else:
                loc = self.name()
            if self.accept(";"):
                return A.Init(loc, 0, line=line)
            self.expect("=")
            t = self.peek()
            if t[0] == "name":
                return self._optional_semi(A.Init(loc, self.name(), line=line))
            value = self.signed()
            alloc = None
            if self.accept("@"):
                alloc = self.name()
                if alloc not in ALLOC_CLASSES:
                    raise GiveUp  # the LALR reader names the known ones
            item = A.Init(loc, value, alloc=alloc, line=line)
        elif t0[0] == "name" and t1[0] == "name":  # int x = 0; unsigned int x;
            words = [self.name(), self.name()]
            if self.peek()[0] == "[" and len(words) == 2:  # atomic_int y[2] = {0, 0};
                return self._optional_semi(self.array_init(words[1], t0))
            if self.peek()[0] == "name":
                words.append(self.name())
            if self.accept(";"):
                return A.Init(words[-1], 0, line=line)
            self.expect("=")
            item = A.Init(words[-1], self.signed(), line=line)
        else:
            raise GiveUp
        return self._optional_semi(item)

    def array_init(self, name: str, t0) -> A.Init:
        self.expect("[")
        size = int_literal(self.expect("int")[1])
        self.expect("]")
        elements: list = []
        if self.accept("="):
            self.expect("{")
            if not self.accept("}"):
                elements.append(self.signed())
                while self.accept(","):
                    elements.append(self.signed())
                self.expect("}")
        return make_array_init(name, size, elements, Where(t0[2], t0[3]))

    def _optional_semi(self, item):
        self.accept(";")
        return item

    # ------------------------------------------------------------ threads
    def thread(self) -> A.Thread:
        t = self.next()
        annot: dict = {}
        if self.accept("@"):
            pairs = []
            while True:
                k = self.expect("name")
                pairs.append((k[1], int_literal(self.expect("int")[1]), Where(k[2], k[3])))
                if not self.accept(","):
                    break
            annot = make_scope_annot(pairs)
        self.expect("(")
        params = self.items_to_paren(self.param)
        return make_thread(t[1], annot, params, self.block(), t[2])

    def items_to_paren(self, item) -> list:
        """`a, b, ...)` after an opening parenthesis (none: `)`), each read by `item`."""
        out: list = []
        if self.accept(")"):
            return out
        while True:
            out.append(item())
            if self.accept(")"):
                return out
            self.expect(",")

    def param(self) -> A.Param:
        words = [self.name()]
        while self.peek()[0] == "name":
            words.append(self.name())
        if self.peek()[0] == "[" and len(words) > 1:  # atomic_int y[] : a pointer to its first element
            self.next()
            self.accept("int")
            self.expect("]")
            return make_param(words[:-1], words[-1])
        self.expect("*")
        return make_param(words, self.name())

    def block(self) -> list:
        self.expect("{")
        out: list = []
        while not self.accept("}"):
            s = self.stmt()
            if isinstance(s, list):
                out.extend(s)
            else:
                out.append(s)
        return out

    def body(self) -> tuple:
        s = self.stmt()
        return tuple(s) if isinstance(s, list) else (s,)

    def stmt(self):
        t = self.peek()
        kind, text, line = t[0], t[1], t[2]
        if kind == "{":
            return self.block()
        if kind == ";":
            self.next()
            return []
        if kind == "name":
            nxt = self.peek(1)[0]
            if text == "if":
                self.next()
                cond = self.paren_expr()
                then = self.body()
                orelse = ()
                if self.peek()[1] == "else":
                    self.next()
                    orelse = self.body()
                return A.If(cond, then, orelse, line=line)
            if text == "while":
                self.next()
                cond = self.paren_expr()
                return A.While(cond, self.body(), line=line)
            if text in _TYPES:
                self.next()
                if self.accept("*"):
                    reg = self.name()
                    self.expect("=")
                    return self._semi(A.Assign(reg, self.value(), decl=True, line=line, pointer=True))
                reg = self.name()
                if self.accept(";"):
                    return A.Assign(reg, None, decl=True, line=line)
                self.expect("=")
                return self._semi(A.Assign(reg, self.value(), decl=True, line=line))
            if text in _KEYWORDS:
                raise GiveUp
            if nxt == "=":
                self.i += 2
                return self._semi(A.Assign(text, self.value(), line=line))
            if nxt == ":":
                self.i += 2
                return make_labelled(text, self.stmt())
        elif kind == "*" and self.peek(1)[0] == "(":
            e = self.unary()
            if self.accept("="):  # *(x + r0) = v;
                assert isinstance(e, A.DerefExpr)
                return self._semi(A.Store(A.COMPUTED, self.value(), atomic=False, line=line, offset=e.addr))
            raise GiveUp  # an expression statement starting `*(...)`: rare, the LALR reader reads it
        elif kind == "*" and self.peek(1)[0] == "name" and self.peek(2)[0] == "=":
            self.i += 1
            loc = self.name()
            self.i += 1
            return self._semi(A.Store(loc, self.value(), atomic=False, line=line))
        e = self.expr()
        self.expect(";")
        return make_expr_stmt(e, Where(line, t[3]))

    def _semi(self, s):
        self.expect(";")
        return s

    def paren_expr(self):
        t = self.expect("(")
        e = self.expr()
        self.expect(")")
        return value(e, Where(t[2], t[3]))

    def value(self):
        t = self.peek()
        return value(self.expr(), Where(t[2], t[3]))

    # ------------------------------------------------------------ expressions
    def expr(self, level: int = 0):
        """A binary expression whose operators bind at least as tightly as
        `_LEVELS[level]` (precedence climbing: left-associative, one call
        per operand rather than one per level)."""
        line = self.peek()[2]
        left = self.unary()
        while True:
            op = self.peek()[0]
            at = _LEVEL_OF.get(op, -1)
            if at < level:
                return left
            self.i += 1
            left = A.BinOp(op, left, self.expr(at + 1), line=line)

    def unary(self):
        t = self.peek()
        kind, line = t[0], t[2]
        if kind == "!" or kind == "-":
            self.next()
            return make_unop(kind, self.unary(), line)
        if kind == "*":
            self.next()
            if self.peek()[0] == "(":
                return A.DerefExpr(self.paren_expr(), line=line)
            return A.Load(self.name(), atomic=False, line=line)
        if kind == "&":
            self.next()
            return ("addr", self.name())
        return self.primary()

    def primary(self):
        t = self.next()
        kind, text, line = t[0], t[1], t[2]
        if kind == "int":
            return A.Const(int_literal(text), line=line)
        if kind == "name":
            if text in _KEYWORDS:
                raise GiveUp
            if self.accept("("):
                return call(text, self.items_to_paren(self.expr), Where(line, t[3]))
            return A.Reg(text, line=line)
        if kind == "(":
            if self.peek()[0] == "*" and self.peek(1)[0] == "name" and self.peek(2)[0] == "=":
                self.i += 1
                loc = self.name()
                self.i += 1
                e = A.StoreExpr(loc, self.value(), line=line)
                self.expect(")")
                return e
            e = self.expr()
            self.expect(")")
            return e
        raise GiveUp

    # ------------------------------------------------------------ tree, locations, condition
    def scope_tree(self) -> tuple:
        """`scopeTree` (its keyword next) and its trees."""
        self.next()
        trees = [self.stree()]
        while self.peek()[0] == "(":
            trees.append(self.stree())
        return ("tree", trees)

    def stree(self) -> tuple:
        t = self.expect("(")
        name = None
        if self.peek()[0] == "name" and not _PROC.fullmatch(self.peek()[1]):
            name = self.name()
        kids: list = []
        while not self.accept(")"):
            k = self.peek()
            if k[0] == "(":
                kids.append(self.stree())
            elif k[0] == "name" and _PROC.fullmatch(k[1]):
                kids.append(self.next()[1])
            else:
                raise GiveUp
        return make_stree(name, kids, Where(t[2], t[3]))

    def locations(self) -> tuple:
        self.next()
        self.expect("[")
        out = []
        while not self.accept("]"):
            out.append(self.cvar())
            self.accept(";")
        return ("locations", tuple(out))

    def cvar(self):
        t = self.peek()
        if t[0] == "int":
            self.next()
            thread = int_literal(t[1])
            self.expect(":")
            return A.RegVar(thread, self.name())
        if self.accept("["):
            loc = self.name()
            self.expect("]")
            return A.LocVar(loc)
        loc = self.name()
        if self.peek()[0] == "[":  # y[1]: an array's element
            self.next()
            k = int_literal(self.expect("int")[1])
            self.expect("]")
            return A.LocVar(f"{loc}[{k}]")
        if self.peek()[0] == "*" and self.peek(1)[0] in ("=", "==", "!="):
            self.next()
            return A.PointeeVar(loc)
        return A.LocVar(loc)

    def condition(self) -> tuple:
        negated = self.accept("~")
        quant = self.next()[1]
        if quant not in ("exists", "forall") or negated and quant != "exists":
            raise GiveUp
        if self.peek()[0] == "(" and self.peek(1)[0] == ")":
            self.i += 2
            prop = A.PTrue()
        else:
            prop = self.prop()
        return ("cond", A.Condition("~exists" if negated else quant, prop))

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
        if t[0] == "~" or t[1] == "not":
            self.next()
            return A.PNot(self.pnot())
        if t[1] == "true" or t[1] == "false":
            self.next()
            return A.PTrue() if t[1] == "true" else A.PFalse()
        if t[0] == "(":
            self.next()
            p = self.prop()
            self.expect(")")
            return p
        return self.atom(self.cvar())

    def atom(self, var):
        """`var = value` (a number or a location) or `var == n`, `var != n`."""
        op = self.next()[0]
        if op == "=":
            if self.peek()[0] == "name":
                return A.PAtom(var, self.name())
            return A.PAtom(var, self.signed())
        if op in ("==", "!="):
            atom = A.PAtom(var, self.signed())
            return atom if op == "==" else A.PNot(atom)
        raise GiveUp
