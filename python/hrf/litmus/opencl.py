"""The C/OpenCL litmus syntax: OpenCL tests (Dat3M style, `P0@wg 0, dev 0
(...)`, and herd 2015 style, `scopeTree (device (work_group P0) ...)`) and
herd's C11 tests (`C name`), which share the C-like syntax. `CReader`
reads a test's text into the items `assemble` makes a `Test` of, with the
toolkit's builders (`toolkit.py`) and the reader of `reader.py`; every
problem is a `LitmusSyntaxError` (or `UnsupportedFeature`) naming file,
line and column.

The forms, as a grammar (tests/lalr/opencl.grammar is the same grammar,
executable, that the reader is tested against):

    test      := header meta* init thread+ scopeTree? regions? locations? condition?
    init      := '{' (item | ';')* '}'
    thread    := Pn ('@' level n (',' level n)*)? '(' params ')' block
    stmt      := block | type reg ('=' expr)? ';' | type '*' reg '=' expr ';'
               | reg '=' expr ';' | '*' loc '=' expr ';' | '*' '(' expr ')' '=' expr ';'
               | expr ';' | 'if' '(' expr ')' stmt ('else' stmt)? | 'while' '(' expr ')' stmt
               | label ':' stmt | ';'
    condition := '~'? ('exists' | 'forall') prop

One module past 600 lines, on purpose: a dialect is one module (its
reader, form by form in the grammar's order, and the assembly of a test),
so that adding a dialect is adding a file; the shared reading is
`reader.py`'s, the shared building `toolkit.py`'s.
"""

from __future__ import annotations

import dataclasses
import re

from ..errors import LitmusSyntaxError, UnsupportedFeature
from . import ast as A
from .addresses import resolve_addresses
from .comments import blank_comments
from .reader import END, PROC, SyntaxFault, Token, TokenReader
from .toolkit import (
    ALLOC_CLASSES,
    LKMM,
    ParseFailure,
    Unsupported,
    Where,
    apply_scope_tree,
    call,
    lkmm,
    make_array_init,
    make_expr_stmt,
    make_header,
    make_labelled,
    make_param,
    make_scope_annot,
    make_thread,
    make_unop,
    value,
)


def parse_opencl(text: str, path: str | None = None, read_items=None) -> A.Test:
    """A C or OpenCL test; `read_items(src, path, lines)` replaces the
    reader (the tests give the LALR reference here)."""
    src = blank_comments(text, c_bodies=True)
    lines = text.splitlines()
    items = (read_items or read_test)(src, path, lines)
    return assemble(items, path, text, lines)


def read_test(src: str, path, lines: list[str]) -> list:
    """The top-level items of a test (comments blanked), for `assemble`."""
    r = CReader(src)
    try:
        return r.finish(r.test())
    except Unsupported as e:
        raise _lkmm_first(src, path) or UnsupportedFeature(e.msg, path, e.line) from None
    except SyntaxFault as e:
        raise _lkmm_first(src, path) or LitmusSyntaxError.at(e.msg, path, lines, e.line, e.column) from None
    except ParseFailure as e:
        raise LitmusSyntaxError.at(e.msg, path, lines, e.line, e.column) from None


def _lkmm_first(src: str, path) -> UnsupportedFeature | None:
    """An LKMM test is refused for what it is, not for its syntax or its first odd construct."""
    lk = LKMM.search(src)
    if lk is None:
        return None
    return UnsupportedFeature(lkmm(lk.group(1)).msg, path, src[: lk.start()].count("\n") + 1)


_HEADER = re.compile(r"(?:(?i:opencl)|C)[ \t]+[^\n]*")
_DOCSTRING = re.compile(r'"[^"\n]*"')
_METALINE = re.compile(r"[A-Za-z][A-Za-z0-9_]*=[^\n]*")
_SKIP = re.compile(r"(?:[ \t\f\r\n]+|//[^\n]*|/\*(?:.|\n)*?\*/)*")
# the grammar's types: a name that is one of these is a type where a statement starts
_TYPES = frozenset(
    ["int", "long", "short", "char", "atomic_int", "intptr_t", "uint", "__int128_t", "__uint128_t", "__int128"]
    + ["int128_t", "uint128_t", "atomic_t"]
    + [f"{u}int{n}_t" for u in ("", "u") for n in (8, 16, 32, 64)]
)
# what may follow the threads: these names are keywords there
_AFTER_THREADS = frozenset(["scopeTree", "regions", "locations", "exists", "forall"])
# the binding level of each binary operator (higher binds tighter)
_LEVELS = (("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*",))
_LEVEL_OF = {op: k for k, ops in enumerate(_LEVELS) for op in ops}
_STMT = "a statement or '}'"


class CReader(TokenReader):
    """The C/OpenCL syntax, read by recursive descent."""

    ended = ""  # what the statement read last ended with: ";" or "}"
    TOKEN = re.compile(
        r"(?P<skip>[ \t\f\r\n]+|//[^\n]*|/\*(?:.|\n)*?\*/)"
        r"|(?P<int>0x[0-9a-fA-F]+|[0-9]+)"
        r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
        r"|(?P<op>\|\||&&|==|!=|<=|>=|/\\|\\/|[<>+\-*&|^!~=;,(){}\[\]@:])"
    )

    def preamble(self) -> tuple:
        """The header and the meta lines; lexes the rest."""
        src = self.src
        pos = _SKIP.match(src, 0).end()  # type: ignore[union-attr]
        m = _HEADER.match(src, pos)
        if m is None:
            self.lex(pos, src.count("\n", 0, pos) + 1, src.rfind("\n", 0, pos) + 1)
            self.fail("a header 'OPENCL name' or 'C name'")
        header = make_header(m.group())
        last = pos
        pos = m.end()
        while True:
            pos = _SKIP.match(src, pos).end()  # type: ignore[union-attr]
            m = _DOCSTRING.match(src, pos) or _METALINE.match(src, pos)
            if m is None:
                break
            last, pos = pos, m.end()
        where = (src.count("\n", 0, last) + 1, last - src.rfind("\n", 0, last))
        self.lex(pos, src.count("\n", 0, pos) + 1, src.rfind("\n", 0, pos) + 1, where)
        return header

    # ------------------------------------------------------------ test
    def test(self) -> list:
        items: list = [self.preamble(), self.init_block()]
        if not self._proc():
            self.fail("a thread (P0, P1, ...)")
        while self._proc():
            items.append(self.thread())
        if self.at_word("scopeTree"):
            self.i += 1
            items.append(self.scope_tree())
        if self.at_word("regions"):
            self.regions()
        if self.at_word("locations"):
            self.i += 1
            items.append(self.locations())
        t = self.peek()
        if t[0] == "~" or t[0] == "name" and t[1] in ("exists", "forall"):
            items.append(self.condition(parens=False))
        if self.peek()[0] != END:
            self.fail("a thread, scopeTree, locations or a condition")
        return items

    def _proc(self) -> bool:
        t = self.peek()
        return t[0] == "name" and PROC.fullmatch(t[1]) is not None

    def regions(self) -> None:
        """herd's `regions: x:PROP, ...`: read, then refused."""
        t = self.next()
        self.expect(":")
        while True:
            self.name("a location")
            self.expect(":")
            self.name("a region")
            self.accept(",")
            k = self.peek()
            if k[0] != "name" or k[1] in ("locations", "exists", "forall"):
                break
        self.defer(Unsupported("herd's memory regions (regions: ...) are not supported", t[2], t[3]))

    def init_block(self) -> tuple:
        self.expect("{", "'{' (the initial state)")
        out: list = []
        while True:
            k = self.peek()[0]
            if k == "}":
                self.i += 1
                return ("init", out)
            if k == ";":
                self.i += 1
                continue
            item = self.init_item()
            if item is not None:
                out.append(item)

    def init_item(self):
        t0 = self.peek()
        line = t0[2]
        if t0[0] == "int":  # 0:r0 = 1
            self.i += 1
            self.expect(":")
            reg = self.name("a register")
            self.split("=")
            self.expect("=")
            v = self.signed()
            self.accept(";")
            return A.RegInit(self.number(t0), reg, v, line=line)
        if t0[0] == "[":
            self.i += 1
            loc = self.name("a location")
            self.expect("]")
            return self.loc_init(loc, line)
        if t0[0] != "name":
            self.fail("an initial value or '}'")
        self.i += 1
        self.split("=")
        k = self.peek()[0]
        if k == "=" or k == ";":  # x = 1;
            return self.loc_init(t0[1], line)
        if k == "*":  # int *y = &x;
            self.i += 1
            ptr = self.name()
            self.split("=")
            self.expect("=")
            self.split("&")
            k = self.peek()[0]
            if k == "&":
                self.i += 1
                v: int | str = self.name("a location")
            elif k == "name":
                v = self.name()
            else:
                v = self.signed()
            self.accept(";")
            return A.Init(ptr, v, line=line)
        second = self.name("'=', ';', '*' or a name")
        self.split("=")
        k = self.peek()[0]
        if k == "[":  # atomic_int y[2] = {0, 0};
            return self.array_init(second, t0)
        if k == ";":
            self.i += 1
            return A.Init(second, 0, line=line)
        if k == "=":
            self.i += 1
            if self.peek()[0] == "name":  # atomic_t x = ATOMIC_INIT(0);
                macro = self.next()
                self.expect("(")
                self.signed()
                self.expect(")")
                self.accept(";")
                if macro[1] == "ATOMIC_INIT":
                    self.defer(lkmm("atomic_t", t0[2], t0[3]))
                else:
                    self.defer(Unsupported(f"initialiser {macro[1]}(...) has no meaning in hrf", t0[2], t0[3]))
                return None
            v = self.signed()
            self.accept(";")
            return A.Init(second, v, line=line)
        third = self.name("'=', ';', '[' or a name")  # unsigned int x = 1;
        self.split("=")
        if self.accept(";"):
            return A.Init(third, 0, line=line)
        self.expect("=", "'=' or ';'")
        v = self.signed()
        self.accept(";")
        return A.Init(third, v, line=line)

    def loc_init(self, loc: str, line: int) -> A.Init:
        """`x = 1`, `x = y`, `x = 1 @fine` or `x;` after the location."""
        self.split("=")
        if self.accept(";"):
            return A.Init(loc, 0, line=line)
        self.expect("=", "'=' or ';'")
        if self.peek()[0] == "name":
            v = self.name()
            self.accept(";")
            return A.Init(loc, v, line=line)
        n = self.signed()
        alloc = None
        if self.accept("@"):
            at = self.peek()
            alloc = self.name("an allocation class")
            if alloc not in ALLOC_CLASSES:
                known = ", ".join("@" + a for a in ALLOC_CLASSES)
                self.defer(ParseFailure(f"unknown allocation class @{alloc} (known: {known})", at[2], at[3]))
                alloc = None
        self.accept(";")
        return A.Init(loc, n, alloc=alloc, line=line)

    def array_init(self, name: str, t0: Token) -> A.Init | None:
        self.i += 1
        size = self.expect("int", "the number of elements")
        self.expect("]")
        elements: list = []
        self.split("=")
        if self.accept("="):
            self.expect("{")
            if not self.accept("}"):
                elements.append(self.signed())
                while self.accept(","):
                    elements.append(self.signed())
                self.expect("}", "',' or '}'")
        self.accept(";")
        n = self.number(size)
        try:
            return make_array_init(name, n, elements, Where(t0[2], t0[3]))
        except ParseFailure as e:
            self.defer(e)
            return None

    # ------------------------------------------------------------ threads
    def thread(self) -> A.Thread:
        t = self.next()
        annot: dict = {}
        if self.accept("@"):
            pairs = []
            while True:
                k = self.peek()
                key = self.name("a scope level (wg, dev, sg)")
                n = self.expect("int", "a number")
                pairs.append((key, self.number(n), Where(k[2], k[3])))
                if not self.accept(","):
                    break
            try:
                annot = make_scope_annot(pairs)
            except ParseFailure as e:
                self.defer(e)
        self.expect("(", "'(' (the thread's parameters)")
        params: list = []
        if not self.accept(")"):
            while True:
                params.append(self.param())
                if self.accept(")"):
                    break
                self.expect(",", "',' or ')'")
        return make_thread(t[1], annot, params, self.block(), t[2])

    def param(self) -> A.Param:
        words = [self.name("a parameter")]
        if self.peek()[0] == "(":  # _Atomic (int *) *p: p holds a pointer
            self.i += 1
            inner = [self.name("a type")]
            while self.peek()[0] == "name":
                inner.append(self.next()[1])
            self.expect("*")
            self.expect(")")
            self.expect("*")
            name = self.name()
            return A.Param(
                name,
                region=None,
                atomic=words[0] == "_Atomic",
                ctype=f"{words[0]} ({' '.join(inner)} *)",
                points_to_pointer=True,
            )
        while self.peek()[0] == "name":
            words.append(self.next()[1])
        if self.peek()[0] == "[" and len(words) > 1:  # atomic_int y[]: a pointer to its first element
            self.i += 1
            self.accept("int")
            self.expect("]", "']' or a number")
            return make_param(words[:-1], words[-1])
        self.expect("*", "'*' or a name")
        if self.accept("*"):  # atomic_int **p
            name = self.name()
            return A.Param(
                name,
                region=None,
                atomic=words[-1].startswith("atomic"),
                ctype=f"{' '.join(words)} *",
                points_to_pointer=True,
            )
        return make_param(words, self.name("'*' or a name"))

    def block(self) -> list:
        """`{ stmt* }`: the statements, flattened."""
        self.expect("{", "'{'")
        out: list = []
        after = ""  # what the last statement ended with: "" (none yet), ";" or "}"
        while self.peek()[0] != "}":
            s = self.stmt(after)
            after = self.ended
            if isinstance(s, list):
                out.extend(s)
            else:
                out.append(s)
        self.i += 1
        self.ended = "}"
        return out

    def body(self) -> tuple:
        s = self.stmt("")
        return tuple(s) if isinstance(s, list) else (s,)

    def stmt(self, after: str):
        """One statement; `after` is what the statement before it ended
        with, which decides whether `else` (after one) and, after a `}`,
        the names that may follow a thread (P1, exists, ...) are keywords."""
        t = self.peek()
        kind, text, line = t[0], t[1], t[2]
        self.ended = ";"
        if kind == "{":
            return self.block()
        if kind == ";":
            self.i += 1
            return []
        if kind == "name":
            if text == "if":
                return self.if_stmt(t)
            if text == "while":
                self.i += 1
                cond = self.paren()
                body = self.body()
                return A.While(self.value(cond, t), body, line=line)
            if after and text == "else" or after == "}" and (text in _AFTER_THREADS or PROC.fullmatch(text)):
                self.fail(_STMT)
            if text in _TYPES or text == "unsigned" and self._unsigned_type():
                return self.decl(t)
            nxt = self.peek(1)[0]
            if nxt == "=":
                self.i += 2
                e = self.expr()
                return self._semi(A.Assign(text, self.value(e, t), line=line))
            if nxt == ":":
                self.i += 2
                return make_labelled(text, self.stmt(""))
        elif kind == "*":
            k1 = self.peek(1)
            if k1[0] == "name" and self.peek(2)[0] == "=":  # *x = v;
                self.i += 3
                e = self.expr()
                return self._semi(A.Store(k1[1], self.value(e, t), atomic=False, line=line))
            if k1[0] == "(":  # *(x + r0) = v;
                star = self.i
                self.i += 1
                addr = self.paren()
                if self.accept("="):
                    e = self.expr()
                    v = self.value(e, t)
                    offset = self.value(addr, t)
                    return self._semi(A.Store(A.COMPUTED, v, atomic=False, line=line, offset=offset))
                e = self.expr(0, A.DerefExpr(self.value(addr, t), line=line), star)
                self.expect(";", "';' or an operator")
                return self._expr_stmt(e, t)
        elif kind == "}" or kind == END:
            self.fail(_STMT)
        first = self.i
        e = self.expr()
        self.expect(";", "';' or an operator")
        return self._expr_stmt(e, self._start(first))

    def _unsigned_type(self) -> bool:
        """`unsigned int`: one type, where blanks alone part the words."""
        u, k = self.peek(), self.peek(1)
        return k[0] == "name" and k[1] in _TYPES and self.src[u[4] + 8 : k[4]].strip(" \t") == "" and k[4] > u[4] + 8

    def decl(self, t: Token):
        """`int r0;`, `int r0 = e;`, `int *r0 = e;`, `unsigned int r0 = e;`."""
        self.i += 2 if t[1] == "unsigned" else 1
        if self.accept("*"):
            reg = self.name()
            self.split("=")
            self.expect("=")
            e = self.expr()
            return self._semi(A.Assign(reg, self.value(e, t), decl=True, line=t[2], pointer=True))
        reg = self.name("a register or '*'")
        self.split("=")
        if self.accept(";"):
            return A.Assign(reg, None, decl=True, line=t[2])
        self.expect("=", "'=' or ';'")
        e = self.expr()
        return self._semi(A.Assign(reg, self.value(e, t), decl=True, line=t[2]))

    def if_stmt(self, t: Token) -> A.If:
        self.i += 1
        cond = self.paren()
        then = self.body()
        orelse: tuple = ()
        if self.at_word("else"):
            self.i += 1
            orelse = self.body()
        return A.If(self.value(cond, t), then, orelse, line=t[2])

    def paren(self):
        """`( expr )`."""
        self.expect("(", "'('")
        e = self.expr()
        self.expect(")", "')' or an operator")
        return e

    def _semi(self, s):
        self.expect(";", "';' or an operator")
        return s

    def _expr_stmt(self, e, start):
        try:
            return make_expr_stmt(e, Where(start[2], start[3]))
        except ParseFailure as err:
            self.defer(err)
            return []

    def value(self, e, at: Token):
        """`e` as a value, for the form that starts at token `at`."""
        try:
            return value(e, Where(at[2], at[3]))
        except ParseFailure as err:
            self.defer(err)
            return A.Const(0)

    # ------------------------------------------------------------ expressions
    def _start(self, j: int) -> Token:
        """Where the expression whose first token is the j-th starts, as
        herd's grammar places it: past the parentheses that open it (not
        those of `(*x = v)`)."""
        toks = self.toks
        while toks[j][0] == "(" and not (toks[j + 1][0] == "*" and toks[j + 2][0] == "name" and toks[j + 3][0] == "="):
            j += 1
        return toks[j]

    def expr(self, level: int = 0, left=None, first: int = 0):
        """A binary expression whose operators bind at least as tightly as
        `_LEVELS[level]` (precedence climbing, left-associative), from its
        first operand `left` when that is read already (its first token the
        `first`-th). Where it starts is looked up only for a BinOp's line."""
        if left is None:
            first = self.i
            left = self.unary()
        line = 0
        while True:
            op = self.peek()[0]
            at = _LEVEL_OF.get(op, -1)
            if at < level:
                return left
            if not line:
                line = self._start(first)[2]
            self.i += 1
            left = A.BinOp(op, left, self.expr(at + 1), line=line)

    def unary(self):
        t = self.peek()
        kind, line = t[0], t[2]
        if kind == "!" or kind == "-":
            self.i += 1
            return make_unop(kind, self.unary(), line)
        if kind == "*":
            self.i += 1
            if self.peek()[0] == "(":
                e = self.paren()
                return A.DerefExpr(self.value(e, t), line=line)
            return A.Load(self.name("a location or '('"), atomic=False, line=line)
        if kind == "&":
            self.i += 1
            return ("addr", self.name("a location"))
        if kind == "&&" or kind == "!=":  # `&` or `!` here, then a second character
            self.split("&!")
            return self.unary()
        return self.primary()

    def primary(self):
        t = self.peek()
        kind, text, line = t[0], t[1], t[2]
        if kind == "int":
            self.i += 1
            return A.Const(self.number(t), line=line)
        if kind == "name":
            self.i += 1
            if not self.accept("("):
                return A.Reg(text, line=line)
            args: list = []
            if not self.accept(")"):
                while True:
                    args.append(self.expr())
                    if self.accept(")"):
                        break
                    self.expect(",", "',' or ')'")
            try:
                return call(text, args, Where(line, t[3]))
            except ParseFailure as err:
                self.defer(err)
                return A.Const(0)
        if kind == "(":
            self.i += 1
            if self.peek()[0] == "*" and self.peek(1)[0] == "name" and self.peek(2)[0] == "=":  # (*x = v)
                loc = self.peek(1)[1]
                self.i += 3
                e = self.expr()
                self.expect(")", "')' or an operator")
                return A.StoreExpr(loc, self.value(e, t), line=line)
            e = self.expr()
            self.expect(")", "')' or an operator")
            return e
        self.fail("an expression")

    # ------------------------------------------------------------ conditions
    def cvar(self):
        t = self.peek()
        if t[0] != "name":
            return super().cvar()
        self.i += 1
        k = self.peek()[0]
        if k == "[":  # y[1]: an array's element
            self.i += 1
            n = self.expect("int", "a number")
            self.expect("]")
            return A.LocVar(f"{t[1]}[{self.number(n)}]")
        if k == "*":  # y*: the location y points to
            self.i += 1
            return A.PointeeVar(t[1])
        return A.LocVar(t[1])

    def atom(self, var):
        """`var = value` (a number or a location) or `var == n`, `var != n`."""
        op = self.peek()[0]
        if op == "=":
            self.i += 1
            if self.peek()[0] == "name":
                return A.PAtom(var, self.next()[1])
            return A.PAtom(var, self.signed())
        if op == "==" or op == "!=":
            self.i += 1
            atom = A.PAtom(var, self.signed())
            return atom if op == "==" else A.PNot(atom)
        self.fail("'=', '==' or '!='")


def assemble(items: list, path: str | None, text: str, lines: list[str]) -> A.Test:
    """The Test from the top-level items either reader gives."""
    header = next(x for x in items if isinstance(x, tuple) and x[0] == "header")
    init = next(x for x in items if isinstance(x, tuple) and x[0] == "init")[1]
    threads = tuple(x for x in items if isinstance(x, A.Thread))
    tree = next((x for x in items if isinstance(x, tuple) and x[0] == "tree"), None)
    cond = next((x[1] for x in items if isinstance(x, tuple) and x[0] == "cond"), None)
    locs = next((x[1] for x in items if isinstance(x, tuple) and x[0] == "locations"), ())

    for i, t in enumerate(threads):
        if t.index != i:
            raise LitmusSyntaxError.at(
                f"threads must be P0, P1, ... in order; found {t.name} in position {i}", path, lines, t.line, 1
            )
    annotated = [t for t in threads if t.wg is not None or t.dev is not None]
    if tree is not None:
        if annotated:
            raise LitmusSyntaxError(
                "a test gives scopes either with P0@... or with scopeTree, not both", path, annotated[0].line
            )
        threads = apply_scope_tree(threads, tree[1], path, text)
    elif annotated:
        bare = [t for t in threads if t.wg is None and t.dev is None]
        if bare:
            t = bare[0]
            raise LitmusSyntaxError.at(
                f"{t.name} has no placement (@wg N, dev N) while {annotated[0].name} has one: "
                "place every thread or none",
                path,
                lines,
                t.line,
                1,
            )
        threads = tuple(
            A.Thread(
                t.name,
                t.params,
                t.body,
                dev=t.dev if t.dev is not None else 0,
                wg=t.wg if t.wg is not None else 0,
                sg=t.sg,
                line=t.line,
            )
            for t in threads
        )
    inits = tuple(x for x in init if isinstance(x, A.Init))
    reg_inits = tuple(x for x in init if isinstance(x, A.RegInit))
    seen = set()
    for ini in inits:
        if ini.loc in seen:
            raise LitmusSyntaxError(f"location {ini.loc} is initialised twice", path, ini.line)
        seen.add(ini.loc)
    test = A.Test(header[1], header[2], threads, inits, reg_inits, cond, locs, path=path)
    resolved = resolve_addresses(threads, test, text)
    if resolved is not None:
        test = dataclasses.replace(test, threads=resolved)
    return test
