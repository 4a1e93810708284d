"""The layout of Dat3M's GPU litmus tests (its PTX and Vulkan dialects),
read with `reader.py`'s token reader; each dialect adds its thread heads
and instructions (`dat3m_ptx.py`, `vulkan.py`).

    test    := ARCH name doc* '{' init (';' init)* '}' ssw? heads row* tail
    init    := loc '=' '&'? (number | loc) | tid ':' reg '=' '&'? (number | loc)
             | loc '@' proxy 'aliases' loc (PTX) | loc 'aliases' loc (Vulkan)
    ssw     := '{' ('ssw' tid tid) (';' ...)* '}'                 (Vulkan)
    heads   := tid '@' scopes ('|' tid '@' scopes)* ';'
    row     := cell ('|' cell)* ';'          (a cell may be empty)
    tail    := ('locations' '[' v (';' v)* ']')? ('filter' prop)? condition?
    prop    := value cmp value | '(' prop ')' | ('~'|'not') prop | prop '/\\' prop | prop '\\/' prop
    value   := tid ':' reg | loc | number        cmp := = == != < <= > >=

Locations a test uses without declaring them hold 0 (Dartagnan's memory
starts zeroed): the reader declares them, so that the AST holds every
location with its initial value.
"""

from __future__ import annotations

import re

from ..errors import LitmusSyntaxError, UnsupportedFeature
from . import ast as A
from .comments import blank_comments
from .reader import END, SyntaxFault, TokenReader
from .toolkit import ParseFailure, Unsupported

TID = re.compile(r"P([0-9]+)")
CMP = ("=", "==", "!=", "<", "<=", ">", ">=")
BRANCHES = ("beq", "bne", "blt", "ble", "bgt", "bge")
# the words a table ends at (its first row aside)
TAIL_WORDS = frozenset(["exists", "forall", "not", "filter", "locations", "final"])


class Dat3mReader(TokenReader):
    """A whole Dat3M test; a dialect gives `ARCH`, `head` (a thread's place
    in the scope tree, after `P0@`) and `instruction` (one cell)."""

    ARCH = ""
    TOKEN = re.compile(
        r"(?P<skip>[ \t\f\r\n]+|//[^\n]*)"
        r"|(?P<mod>\.[A-Za-z_][A-Za-z0-9_]*)"
        r"|(?P<int>0x[0-9a-fA-F]+|[0-9]+)"
        r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
        r"|(?P<op>\\/|/\\|==|!=|<=|>=|[{};|@,:=&\[\]()~<>\-])"
    )

    def __init__(self, src: str):
        super().__init__(src)
        self.line = 0  # the line of the cell being read
        self.col = 0  # its column: the thread's index

    # ------------------------------------------------------------ the test
    def test(self, name: str, path) -> A.Test:
        """The test from its init block on."""
        inits, reg_inits = self.init_block()
        ssw = self.ssw_block() if self.peek()[0] == "{" else ()
        heads = self.heads()
        bodies: list[list] = [[] for _ in heads]
        while not self.at_tail():
            self.row(bodies)
        locs, filt, cond = self.tail()
        threads = tuple(
            A.Thread(f"P{k}", (), tuple(body), line=heads[k][1], **heads[k][0]) for k, body in enumerate(bodies)
        )
        declared = {i.loc for i in inits}
        used = [loc for t in threads for loc in A.locations_of(t.ops)]
        inits += [A.Init(loc, 0) for loc in dict.fromkeys(used) if loc not in declared]
        return self.finish(
            A.Test(
                self.ARCH,
                name,
                threads,
                tuple(inits),
                tuple(reg_inits),
                cond,
                locs,
                path=path,
                filter=filt,
                sync_with=ssw,
            )
        )

    def init_block(self) -> tuple[list, list]:
        self.expect("{", "'{' (the initial state)")
        inits: list = []
        reg_inits: list = []
        while not self.accept("}"):
            if self.accept(";"):
                continue
            t = self.peek()
            tid = self.thread_id(optional=True)
            if tid is not None:
                self.expect(":")
                reg = self.name("a register")
                self.split("=")
                self.expect("=")
                if self.accept("&") or self.peek()[0] == "name":
                    loc = self.name("a location")
                    self.defer(Unsupported(f"a register holding the address of {loc} is not supported", t[2], t[3]))
                    continue
                reg_inits.append(A.RegInit(tid, reg, self.signed(), line=t[2]))
                continue
            loc = self.name("a location or a register (P0:r0)")
            if self.peek()[0] == "[":
                self.init_array(t, loc, inits)
                continue
            if self.accept("@"):
                self.init_at(t, loc, inits)
                continue
            if self.at_word("aliases"):
                self.alias(t, loc, None, inits)
                continue
            self.split("=")
            self.expect("=", "'=' or 'aliases'")
            if self.accept("&") or self.peek()[0] == "name":
                # `x = y`: a location of its own holding y's initial value (Dartagnan's initVirLocEqLoc)
                w = self.peek()
                other = self.name("a location")
                value = next((i.value for i in inits if i.loc == other and i.alias_of is None), None)
                if value is None:
                    self.fail(f"a location declared before ({other} is not)", w)
                inits.append(A.Init(loc, value, line=t[2]))
                continue
            inits.append(A.Init(loc, self.signed(), line=t[2]))
        self.accept(";")
        return inits, reg_inits

    def init_array(self, t, loc: str, inits: list) -> None:
        """`x[n] ...`: an array, which a dialect with vector accesses declares (PTX)."""
        self.fail(f"'=' or '@' after {loc} (arrays are PTX's: x[2] = {{0, 0}})")

    def init_at(self, t, loc: str, inits: list) -> None:
        """`loc @ proxy aliases other` (a dialect adds its own forms after `@`)."""
        proxy = self.name("a proxy (generic, constant, texture, surface)")
        self.alias(t, loc, proxy, inits)

    def alias(self, t, loc: str, proxy: str | None, inits: list) -> None:
        """`loc @ proxy aliases other` (PTX) or `loc aliases other` (Vulkan)."""
        w = self.peek()
        if not self.at_word("aliases"):
            self.fail("'aliases'")
        self.i += 1
        other = self.name("a location")
        if other not in {i.loc for i in inits}:
            self.defer(ParseFailure(f"{loc} aliases {other}, which is not declared before it", w[2], w[3]))
        if proxy is not None and proxy not in ("generic", "constant", "texture", "surface"):
            self.defer(ParseFailure(f"unknown proxy {proxy!r} (generic, constant, texture, surface)", w[2], w[3]))
        inits.append(A.Init(loc, 0, line=t[2], alias_of=other, proxy=proxy or "generic"))

    def ssw_block(self) -> tuple:
        """Vulkan's system-synchronizes-with pairs: `{ ssw P0 P1; ... }`."""
        self.expect("{")
        pairs = []
        while not self.accept("}"):
            if self.accept(";"):
                continue
            if not self.at_word("ssw"):
                self.fail("'ssw P0 P1' or '}'")
            self.i += 1
            a = self.ssw_thread()
            b = self.ssw_thread()
            pairs.append((a, b))
        self.accept(";")
        return tuple(pairs)

    def ssw_thread(self) -> int:
        """`P0` or `0` (Dat3M writes the pairs of `ssw` either way)."""
        t = self.peek()
        if t[0] == "int":
            self.i += 1
            return self.number(t)
        k = self.thread_id()
        assert k is not None  # (not optional: a thread or a located error)
        return k

    def thread_id(self, optional: bool = False) -> int | None:
        """`P0` (or `0` before ':')."""
        t = self.peek()
        if t[0] == "name" and TID.fullmatch(t[1]):
            self.i += 1
            return int(t[1][1:])
        if t[0] == "int" and self.peek(1)[0] == ":":
            self.i += 1
            return self.number(t)
        if optional:
            return None
        self.fail("a thread (P0, P1, ...)")

    def heads(self) -> list:
        """The first row: `P0@... | P1@... ;` -> per thread (scope fields, line)."""
        out: list[tuple[dict, int]] = []
        while True:
            t = self.peek()
            k = self.thread_id()
            if k != len(out):
                raise SyntaxFault(f"thread columns must be P0, P1, ...; found P{k}", t[2], t[3])
            self.expect("@", "'@' and the thread's scopes")
            out.append((self.head(), t[2]))
            if self.accept(";"):
                return out
            self.expect("|", "'|' or ';'")

    def head(self) -> dict:
        raise NotImplementedError

    def at_tail(self) -> bool:
        t = self.peek()
        return t[0] in (END, "~") or t[0] == "name" and t[1] in TAIL_WORDS and self.peek(1)[0] not in (":", ".", "mod")

    def row(self, bodies: list) -> None:
        """One row of cells, each appended to its thread's body."""
        k = 0
        while True:
            t = self.peek()
            if t[0] not in ("|", ";"):
                if k >= len(bodies):
                    raise SyntaxFault(f"more cells than the {len(bodies)} threads", t[2], t[3])
                self.line = t[2]
                self.col = k
                cell = self.instruction()
                # a cell is a statement, or several (PTX's bulk copy, mbarrier waits)
                bodies[k].extend(cell) if isinstance(cell, tuple) else bodies[k].append(cell)
            if self.accept(";"):
                return
            self.expect("|", "'|', ';' or the end of an instruction")
            k += 1

    def instruction(self):
        raise NotImplementedError

    def barrier_operands(self) -> tuple:
        """`n [, resource [, thread count]]` after a barrier's name -> (n, resource, quorum)."""
        n = self.expect("int", "a barrier number")[1]
        resource = quorum = None
        if self.accept(","):
            resource = self.value()
            if self.accept(","):
                quorum = self.value()
        return n, resource, quorum

    def fail_at(self, t, expected: str):
        self.fail(expected, t)

    # the register operations of the dialect (`add r0, r1, 1`), as hrf's operators
    LOCAL_OPS = {"add": "+", "sub": "-", "mul": "*", "div": "/"}

    def control(self):
        """The cells both dialects share: a label, `goto`, a branch, a
        register operation. -> (the statement, or None with the name read
        and its token for the dialect's own instructions)."""
        t = self.peek()
        line = self.line
        if t[0] != "name":
            self.fail("an instruction or a label")
        op = t[1]
        if self.peek(1)[0] == ":":  # a label
            self.i += 2
            return A.Label(op, line=line), op, t
        self.i += 1
        if op == "goto":
            return A.Goto(self.label(), line=line), op, t
        if op in BRANCHES:
            return self.branch(op), op, t
        if op in self.LOCAL_OPS and self.peek()[0] != "mod":
            dst = self.reg()
            self.comma()
            a = self.value()
            self.comma()
            b = self.value()
            if op == "div":
                self.unsupported("div is not supported (hrf's expressions have no division)", t)
            return A.Assign(dst, A.BinOp(self.LOCAL_OPS[op], a, b, line=line), line=line), op, t
        return None, op, t

    # ------------------------------------------------------------ cells
    def mods(self) -> list:
        """The modifiers after an instruction's name: `.acquire.gpu` -> [(acquire, token)]."""
        out = []
        while self.peek()[0] == "mod":
            t = self.next()
            out.append((t[1][1:], t))
        return out

    def unsupported(self, msg: str, t) -> None:
        self.defer(Unsupported(msg, t[2], t[3]))

    def reg(self, pattern: str = r"r[0-9]+", what: str = "a register (r0, r1, ...)") -> str:
        t = self.peek()
        if t[0] != "name" or not re.fullmatch(pattern, t[1]):
            self.fail(what)
        self.i += 1
        return t[1]

    def loc(self) -> str:
        t = self.peek()
        if t[0] != "name" or re.fullmatch(r"r[0-9]+|LC[0-9]+", t[1]):
            self.fail("a location")
        self.i += 1
        return t[1]

    def label(self) -> str:
        """A label: any name but a register's (`LC00`, `loop`, `L1`, `$Lt_0`)."""
        t = self.peek()
        if t[0] != "name" or re.fullmatch(r"r[0-9]+", t[1]):
            self.fail("a label (LC00, loop, ...)")
        self.i += 1
        return t[1]

    def value(self):
        """A register or a number."""
        t = self.peek()
        if t[0] == "name" and re.fullmatch(r"r[0-9]+", t[1]):
            self.i += 1
            return A.Reg(t[1], line=t[2])
        if t[0] in ("int", "-"):
            return A.Const(self.signed(), line=t[2])
        self.fail("a register or a number")

    def comma(self) -> None:
        self.expect(",", "','")

    def branch(self, op: str):
        """`beq a, b, LC01` (the name read): a conditional forward or backward jump."""
        a = self.value()
        self.comma()
        b = self.value()
        self.comma()
        lab = self.label()
        cmp = {"beq": "==", "bne": "!=", "blt": "<", "ble": "<=", "bgt": ">", "bge": ">="}[op]
        return A.If(A.BinOp(cmp, a, b, line=self.line), (A.Goto(lab, line=self.line),), line=self.line)

    # ------------------------------------------------------------ the tail
    def tail(self) -> tuple:
        locs: tuple = ()
        filt = None
        cond = None
        if self.at_word("locations"):
            self.i += 1
            locs = self.locations()[1]
        if self.at_word("filter"):
            self.i += 1
            filt = self.prop()
            self.accept(";")
        t = self.peek()
        if t[0] == "~" or t[0] == "name" and t[1] in ("not", "exists", "forall"):
            negated = t[0] == "~" or t[1] == "not"
            if negated:
                self.i += 1
            q = self.peek()
            if not (q[0] == "name" and q[1] in ("exists", "forall")) or negated and q[1] != "exists":
                self.fail("exists" if negated else "exists or forall")
            self.i += 1
            cond = A.Condition("~exists" if negated else q[1], self.prop())
            self.accept(";")
        elif self.at_word("final"):
            self.unsupported("Dat3M's `final ... with` conditions are not supported", t)
            while self.peek()[0] != END:
                self.i += 1
        self.expect(END, "a condition or end of input")
        return locs, filt, cond

    def cvar(self):
        """A condition's operand: `P0:r0`, `0:r0`, `[x]`, `x` or a number."""
        t = self.peek()
        if t[0] == "name" and TID.fullmatch(t[1]) and self.peek(1)[0] == ":":
            self.i += 2
            return A.RegVar(int(t[1][1:]), self.name("a register"))
        if t[0] == "int" and self.peek(1)[0] == ":":
            self.i += 2
            return A.RegVar(self.number(t), self.name("a register"))
        if t[0] in ("int", "-"):
            return self.signed()
        return super().cvar()

    def pnot(self):
        t = self.peek()
        if t[0] == "(":  # a parenthesised proposition (a number never starts one here)
            self.i += 1
            p = self.prop()
            self.expect(")", "')', '/\\' or '\\/'")
            return p
        if t[0] == "~" or t[0] == "name" and t[1] == "not":
            self.i += 1
            return A.PNot(self.pnot())
        return self.atom(self.cvar())

    def atom(self, left):
        t = self.peek()
        if t[0] not in CMP:
            self.fail("a comparison (==, !=, <, <=, >, >=)")
        self.i += 1
        op = "==" if t[0] == "=" else t[0]
        right = self.cvar()
        if op == "==" and isinstance(right, int) and not isinstance(left, int):
            return A.PAtom(left, right)
        if op == "==" and isinstance(left, int) and not isinstance(right, int):
            return A.PAtom(right, left)
        return A.PCompare(op, left, right)


def _init_block(text: str, start: int) -> int:
    """Where the init block's `{` is, after the header line: the first `{`
    outside the doc strings ("...") between them, or -1."""
    k = start
    while k < len(text):
        c = text[k]
        if c == "{":
            return k
        if c == '"':
            end = text.find('"', k + 1)
            if end < 0:
                return text.find("{", k + 1)  # an unclosed string: the first brace after it
            k = end
        k += 1
    return -1


def parse_dat3m(reader_class, text: str, path: str | None) -> A.Test:
    """A test of a Dat3M dialect, read by `reader_class`."""
    text = blank_comments(text, c_bodies=False)  # (* ... *)
    lines = text.splitlines()
    r = reader_class(text)
    header = lines[0].split(None, 1) if lines else []
    # after the header line, whose name may hold any character, and the doc
    # strings before the init block, which Dartagnan skips whatever they hold
    # (a `{` inside a quoted one included)
    start = text.find("\n") + 1 if "\n" in text else len(text)
    brace = _init_block(text, start)
    first = brace if brace >= 0 else start
    line = text.count("\n", 0, first) + 1
    try:
        r.lex(first, line, text.rfind("\n", 0, first) + 1)
        return r.test(header[1].strip() if len(header) > 1 else "", path)
    except Unsupported as e:
        raise UnsupportedFeature(e.msg, path, e.line) from None
    except ParseFailure as e:
        raise LitmusSyntaxError.at(e.msg, path, lines, e.line, e.column) from None
