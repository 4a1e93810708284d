"""Parser for OpenCL litmus tests (Dat3M and herd 2015 styles).

The grammar is `opencl.grammar` (lark, LALR); this module turns its parse
tree into the AST of `hrf.litmus.ast` and reports every problem as a
`LitmusSyntaxError` naming file, line and column.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedInput, VisitError

from ..errors import LitmusSyntaxError, UnsupportedFeature
from . import ast as A
from .grammar import lalr

ORDERS = {
    "memory_order_relaxed": "rlx",
    "memory_order_consume": "con",
    "memory_order_acquire": "acq",
    "memory_order_release": "rel",
    "memory_order_acq_rel": "acq_rel",
    "memory_order_seq_cst": "sc",
}
SCOPES = {
    "memory_scope_work_item": "wi",
    "memory_scope_sub_group": "sg",
    "memory_scope_work_group": "wg",
    "memory_scope_device": "dev",
    "memory_scope_all_svm_devices": "all",
    "memory_scope_all_devices": "all",
}
FLAGS = {"CLK_GLOBAL_MEM_FENCE": "global", "CLK_LOCAL_MEM_FENCE": "local", "CLK_IMAGE_MEM_FENCE": "image"}
RMW_OPS = {"add", "sub", "and", "or", "xor"}

# Names of the levels of a scope tree (OpenCL and, for later, PTX).
TREE_LEVELS = {
    "device": "dev",
    "grid": "dev",
    "work_group": "wg",
    "workgroup": "wg",
    "cta": "wg",
    "block": "wg",
    "sub_group": "sg",
    "subgroup": "sg",
    "warp": "sg",
}

# How deep each level sits in a scope tree: a node's children are finer.
_TREE_RANK = {"dev": 0, "kernel": 1, "wg": 2, "sg": 3}


def int_literal(tok) -> int:
    """A litmus integer: decimal (leading zeros allowed, as herd reads them)
    or 0x hexadecimal."""
    s = str(tok)
    v = int(s, 16) if s[:2].lower() == "0x" else int(s, 10)
    if v >= 1 << 63:
        raise ParseFailure(
            f"{s} does not fit in 64 bits: hrf's values are 64-bit signed integers",
            getattr(tok, "line", None),
            getattr(tok, "column", None),
        )
    return v


# lark's terminal names, as a reader of the error would write them.
_TERMINALS = {
    "SEMICOLON": "';'",
    "COMMA": "','",
    "COLON": "':'",
    "EQUAL": "'='",
    "LPAR": "'('",
    "RPAR": "')'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "LSQB": "'['",
    "RSQB": "']'",
    "AT": "'@'",
    "STAR": "'*'",
    "AMP": "'&'",
    "ANDAND": "'&&'",
    "BAR": "'|'",
    "OROR": "'||'",
    "CARET": "'^'",
    "BANG": "'!'",
    "EQOP": "'==' or '!='",
    "RELOP": "a comparison",
    "PLUS": "'+'",
    "MINUS": "'-'",
    "TILDE": "'~'",
    "NAME": "a name",
    "INT": "a number",
    "PROC": "a thread (P0, P1, ...)",
    "TYPENAME": "a type",
    "QUANT": "exists/forall",
    "HEADER": "a header 'OPENCL name'",
    "DOCSTRING": "a quoted line",
    "METALINE": "a key=value line",
    "IF": "if",
    "ELSE": "else",
    "WHILE": "while",
    "SCOPETREE": "scopeTree",
    "LOCATIONS": "locations",
    "REGIONS": "regions",
    "NOT": "not",
    "TRUE": "true",
    "FALSE": "false",
    "$END": "end of file",
}

_OCAML_COMMENT = re.compile(r"\(\*.*?\*\)", re.S)


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return lalr(Path(__file__).parent / "opencl.grammar", propagate_positions=True, maybe_placeholders=True)


def _blank_preamble_comments(text: str) -> str:
    """Blank out herd's `(* ... *)` comments before the first thread (Dat3M
    puts its provenance there; herd's tests annotate the init block) and
    after the threads (scope tree, locations, condition); inside thread
    bodies `(*x` is C, not a comment. Blanking keeps every line and column
    where it was."""
    blank = lambda c: re.sub(r"[^\n]", " ", c.group(0))  # noqa: E731
    m = re.search(r"^[ \t]*P\d+\b", text, re.M)
    end = m.start() if m else len(text)
    tail = None
    for t in re.finditer(r"^[ \t]*(~[ \t]*)?(exists|forall|locations|scopeTree|regions)\b", text, re.M):
        tail = t.start()
        break
    head = _OCAML_COMMENT.sub(blank, text[:end])
    if tail is None or tail < end:
        return head + text[end:]
    return head + text[end:tail] + _OCAML_COMMENT.sub(blank, text[tail:])


class ParseFailure(Exception):
    def __init__(self, msg, line=None, column=None):
        super().__init__(msg)
        self.msg, self.line, self.column = msg, line, column


class _Unsupported(ParseFailure):
    """A construct that parses but has no meaning in hrf: UnsupportedFeature."""


# Linux-kernel primitives (herd's LKMM tests are C tests too): hrf has no
# model for them, so a test that uses one is refused, naming it.
_LKMM = re.compile(
    r"\b(WRITE_ONCE|READ_ONCE|smp_\w+|spin_\w+|rcu_\w+|srcu_\w+|synchronize_\w+|__atomic_\w+|"
    r"atomic_t|cmpxchg\w*|xchg\w*|atomic_(?:inc|dec|add|sub)(?:_return|_unless)?\w*)\b"
)


def _lkmm(name: str, line=None, column=None) -> _Unsupported:
    return _Unsupported(
        f"{name} is a Linux-kernel primitive (herd's LKMM tests): hrf has no model of them", line, column
    )


def _line(meta) -> int:
    return getattr(meta, "line", 0) or 0


def _flatten_or(e) -> list:
    if isinstance(e, A.BinOp) and e.op == "|":
        return _flatten_or(e.left) + _flatten_or(e.right)
    return [e]


@v_args(meta=True)
class ToAst(Transformer):
    # ---------------------------------------------------------- expressions
    def const(self, meta, c):
        return A.Const(int_literal(c[0]), line=_line(meta))

    def var(self, meta, c):
        return A.Reg(str(c[0]), line=_line(meta))

    def binop(self, meta, c):
        return A.BinOp(str(c[1]), c[0], c[2], line=_line(meta))

    def unop(self, meta, c):
        op, e = str(c[0]), c[1]
        if op == "-" and isinstance(e, A.Const):
            return A.Const(-e.value, line=_line(meta))
        return A.UnOp(op, e, line=_line(meta))

    def deref(self, meta, c):
        return A.Load(str(c[1]), atomic=False, line=_line(meta))

    def deref_expr(self, meta, c):
        return A.DerefExpr(_value(c[1], meta), line=_line(meta))

    def store_expr(self, meta, c):
        return A.StoreExpr(str(c[1]), _value(c[2], meta), line=_line(meta))

    def addr(self, meta, c):
        return ("addr", str(c[1]))

    def call(self, meta, c):
        name = str(c[0])
        args = [a for a in c[1:] if a is not None]
        return _call(name, args, meta)

    # ---------------------------------------------------------- statements
    def decl(self, meta, c):
        return A.Assign(str(c[1]), None, decl=True, line=_line(meta))

    def decl_init(self, meta, c):
        return A.Assign(str(c[1]), _value(c[2], meta), decl=True, line=_line(meta))

    def decl_init_ptr(self, meta, c):
        return A.Assign(str(c[2]), _value(c[3], meta), decl=True, line=_line(meta), pointer=True)

    def assign(self, meta, c):
        return A.Assign(str(c[0]), _value(c[1], meta), line=_line(meta))

    def store(self, meta, c):
        return A.Store(str(c[1]), _value(c[2], meta), atomic=False, line=_line(meta))

    def expr_stmt(self, meta, c):
        e = c[0]
        if isinstance(e, (A.Store, A.Fence, A.Barrier)):
            return e
        return A.ExprStmt(_value(e, meta), line=_line(meta))

    def block(self, meta, c):
        out = []
        for s in c:
            out.extend(s if isinstance(s, list) else [s])
        return out

    def _body(self, s):
        return tuple(s) if isinstance(s, list) else ((s,) if s is not None else ())

    def if_else(self, meta, c):
        return A.If(_value(c[0], meta), self._body(c[1]), self._body(c[2]), line=_line(meta))

    def if_then(self, meta, c):
        return A.If(_value(c[0], meta), self._body(c[1]), (), line=_line(meta))

    def while_(self, meta, c):
        return A.While(_value(c[0], meta), self._body(c[1]), line=_line(meta))

    def labelled(self, meta, c):
        label, s = str(c[0]), c[1]
        if isinstance(s, A.Barrier):
            return A.Barrier(s.flags, label=label, scope=s.scope, line=s.line)
        return s

    def skip(self, meta, c):
        return []

    # ---------------------------------------------------------- threads
    def param(self, meta, c):
        words = [str(w) for w in c[:-2]]
        name = str(c[-1])
        region = None
        for w in words:
            if w in ("global", "__global"):
                region = "global"
            elif w in ("local", "__local"):
                region = "local"
        ctype = words[-1] if words else "int"
        return A.Param(name, region=region, atomic=ctype.startswith("atomic"), ctype=ctype)

    def ptr_param(self, meta, c):
        # `_Atomic (int *) *p`: p holds a pointer
        words = [str(w) for w in c[:-3]]
        return A.Param(
            str(c[-1]),
            region=None,
            atomic=words[0] == "_Atomic",
            ctype=f"{words[0]} ({' '.join(words[1:])} *)",
            points_to_pointer=True,
        )

    def scope_kv(self, meta, c):
        return (str(c[0]), int_literal(c[1]), meta)

    def scope_annot(self, meta, c):
        out = {}
        for key, val, m in c:
            k = {"wg": "wg", "dev": "dev", "sg": "sg", "work_group": "wg", "device": "dev"}.get(key)
            if k is None:
                raise ParseFailure(f"unknown scope level {key!r} (expected wg, dev or sg)", m.line, m.column)
            if k in out:
                raise ParseFailure(
                    f"the thread is placed twice at level {key!r} ({k} {out[k]} and {k} {val})", m.line, m.column
                )
            out[k] = val
        return out

    def thread(self, meta, c):
        annot, params, body = {}, [], []
        for x in c[1:]:
            if isinstance(x, dict):
                annot = x
            elif isinstance(x, A.Param):
                params.append(x)
            elif isinstance(x, list):
                body = x
        return A.Thread(
            str(c[0]),
            tuple(params),
            tuple(body),
            dev=annot.get("dev"),
            wg=annot.get("wg"),
            sg=annot.get("sg"),
            line=_line(meta),
        )

    # ---------------------------------------------------------- init
    def signed(self, meta, c):
        v = int_literal(c[-1])
        return -v if len(c) == 2 else v

    def loc_ref(self, meta, c):
        return str(c[0])

    def init_loc(self, meta, c):
        from ..program import ALLOC_CLASSES

        alloc = str(c[2]) if len(c) > 2 and c[2] is not None else None
        if alloc is not None and alloc not in ALLOC_CLASSES:
            raise ParseFailure(
                f"unknown allocation class @{alloc} (known: {', '.join('@' + a for a in ALLOC_CLASSES)})",
                c[2].line,
                c[2].column,
            )
        return A.Init(c[0], c[1], alloc=alloc, line=_line(meta))

    def init_default(self, meta, c):
        return A.Init(c[0], 0, line=_line(meta))

    def init_locval(self, meta, c):
        return A.Init(c[0], str(c[1]), line=_line(meta))

    def init_reg(self, meta, c):
        return A.RegInit(int_literal(c[0]), str(c[1]), c[2], line=_line(meta))

    def init_typed(self, meta, c):
        return A.Init(str(c[-2]), c[-1], line=_line(meta))

    def init_typed_default(self, meta, c):
        return A.Init(str(c[-1]), 0, line=_line(meta))

    def init_typed_macro(self, meta, c):
        # `atomic_t x = ATOMIC_INIT(0);`
        if str(c[2]) == "ATOMIC_INIT":
            raise _lkmm("atomic_t", meta.line, meta.column)
        raise _Unsupported(f"initialiser {c[2]}(...) has no meaning in hrf", meta.line, meta.column)

    def init_pointer(self, meta, c):
        raise _Unsupported(
            f"locations holding pointers are not supported yet ({c[0]} *{c[2]} = ...)", meta.line, meta.column
        )

    def init_array(self, meta, c):
        raise _Unsupported(f"arrays are not supported ({c[0]} {c[1]}[{c[2]}])", meta.line, meta.column)

    def array_param(self, meta, c):
        raise _Unsupported(
            f"arrays are not supported (parameter {c[-2] if len(c) > 2 else c[-1]}[...])", meta.line, meta.column
        )

    def ptr_ptr_param(self, meta, c):
        words = [str(w) for w in c[:-3]]
        return A.Param(
            str(c[-1]),
            region=None,
            atomic=bool(words) and words[-1].startswith("atomic"),
            ctype=f"{' '.join(words)} *",
            points_to_pointer=True,
        )

    def regions_clause(self, meta, c):
        raise _Unsupported("herd's memory regions (regions: ...) are not supported", meta.line, meta.column)

    def init_block(self, meta, c):
        return ("init", [x for x in c if x is not None])

    # ---------------------------------------------------------- tree, condition
    def stree(self, meta, c):
        name = None
        kids = []
        for x in c:
            if isinstance(x, Token) and x.type == "NAME":
                name = str(x)
            elif isinstance(x, Token) and x.type == "PROC":
                kids.append(str(x))
            elif x is not None:
                kids.append(x)
        if name is None:
            # a bare pair of parentheses groups (herd: `((device ...))`): it
            # is as deep as the shallowest level inside it
            rank = min((k[2] for k in kids if not isinstance(k, str)), default=len(_TREE_RANK))
            return (None, kids, rank, "group", meta.line, meta.column)
        if name not in TREE_LEVELS and name != "kernel":
            raise ParseFailure(f"unknown scope-tree level {name!r}", meta.line, meta.column)
        rank = _TREE_RANK[TREE_LEVELS.get(name, "kernel")]
        for k in kids:
            if not isinstance(k, str) and k[2] <= rank:
                raise ParseFailure(
                    f"a {k[3]} cannot be inside a {name} (the levels nest device > kernel > work_group > sub_group)",
                    k[4],
                    k[5],
                )
        return (TREE_LEVELS.get(name), kids, rank, name, meta.line, meta.column)

    def scope_tree(self, meta, c):
        return ("tree", c)

    def regvar(self, meta, c):
        return A.RegVar(int_literal(c[0]), str(c[1]))

    def locvar(self, meta, c):
        return A.LocVar(str(c[0]))

    def locations_clause(self, meta, c):
        return ("locations", tuple(c))

    def p_atom(self, meta, c):
        return A.PAtom(c[0], c[1])

    def p_atom_op(self, meta, c):
        atom = A.PAtom(c[0], c[2])
        return atom if str(c[1]) == "==" else A.PNot(atom)

    def p_atom_loc(self, meta, c):
        return A.PAtom(c[0], str(c[1]))

    def pointee(self, meta, c):
        return A.PointeeVar(str(c[0]))

    def p_true(self, meta, c):
        return A.PTrue()

    def p_false(self, meta, c):
        return A.PFalse()

    def p_not(self, meta, c):
        return A.PNot(c[-1])

    def p_and(self, meta, c):
        return A.PAnd(tuple(_flat(c, A.PAnd)))

    def p_or(self, meta, c):
        return A.POr(tuple(_flat(c, A.POr)))

    def condition(self, meta, c):
        return ("cond", A.Condition(str(c[0]), c[1] if len(c) > 1 else A.PTrue()))

    def neg_condition(self, meta, c):
        if str(c[1]) != "exists":
            raise ParseFailure("only 'exists' may be negated", meta.line, meta.column)
        return ("cond", A.Condition("~exists", c[2] if len(c) > 2 else A.PTrue()))

    def header(self, meta, c):
        parts = str(c[0]).split(None, 1)
        arch = "C" if parts[0] == "C" else "OpenCL"
        return ("header", arch, parts[1].strip() if len(parts) > 1 else "")

    def meta(self, meta, c):
        return None


def _flat(items, cls):
    out = []
    for p in items:
        out.extend(p.props if isinstance(p, cls) else [p])
    return out


def _value(e, meta):
    """An expression used as a value: a location's address is not one."""
    if isinstance(e, tuple) and e and e[0] == "addr":
        raise ParseFailure(f"'&{e[1]}' is not a value here", meta.line, meta.column)
    if isinstance(e, (A.Store, A.Fence, A.Barrier)):
        raise ParseFailure("this operation has no value", meta.line, meta.column)
    return e


def _name_arg(a, what, meta) -> str:
    if isinstance(a, A.Reg):
        return a.name
    if isinstance(a, tuple) and a[0] == "addr":
        return a[1]
    raise ParseFailure(f"expected {what}", meta.line, meta.column)


def _order(a, meta) -> str:
    n = _name_arg(a, "a memory order", meta)
    if n not in ORDERS:
        raise ParseFailure(f"unknown memory order {n!r}", meta.line, meta.column)
    return ORDERS[n]


def _scope(a, meta) -> str:
    n = _name_arg(a, "a memory scope", meta)
    if n not in SCOPES:
        raise ParseFailure(f"unknown memory scope {n!r}", meta.line, meta.column)
    return SCOPES[n]


def _flags(a, meta) -> tuple:
    out = []
    for f in _flatten_or(a):
        n = _name_arg(f, "fence flags", meta)
        if n not in FLAGS:
            raise ParseFailure(f"unknown fence flag {n!r}", meta.line, meta.column)
        out.append(FLAGS[n])
    return tuple(sorted(set(out)))


def _arity(name, args, lo, hi, meta):
    if not lo <= len(args) <= hi:
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        raise ParseFailure(f"{name} takes {want} arguments, got {len(args)}", meta.line, meta.column)


_CALL = re.compile(
    r"atomic_(?P<op>store|load|exchange|fetch_(?:add|sub|and|or|xor)|compare_exchange_(?:strong|weak))"
    r"(?P<explicit>_explicit)?(?P<remote>_remote)?$"
)


def _call(name, args, meta):
    line = _line(meta)
    if name == "atomic_thread_fence":  # C11: no flags, no scope
        _arity(name, args, 1, 1, meta)
        return A.Fence((), _order(args[0], meta), None, line=line)
    if name == "atomic_work_item_fence":
        _arity(name, args, 3, 3, meta)
        return A.Fence(_flags(args[0], meta), _order(args[1], meta), _scope(args[2], meta), line=line)
    if name in ("barrier", "work_group_barrier"):
        _arity(name, args, 1, 2, meta)
        return A.Barrier(_flags(args[0], meta), scope=_scope(args[1], meta) if len(args) > 1 else None, line=line)
    m = _CALL.match(name)
    if not m:
        if _LKMM.fullmatch(name):
            raise _lkmm(name, meta.line, meta.column)
        raise ParseFailure(f"unknown function {name!r}", meta.line, meta.column)
    op, explicit, remote = m.group("op"), bool(m.group("explicit")), bool(m.group("remote"))
    loc = _name_arg(args[0], "a location", meta) if args else None
    if op == "store":
        if explicit:
            _arity(name, args, 3, 4, meta)
        else:
            _arity(name, args, 2, 2, meta)
        return A.Store(
            loc,
            _value(args[1], meta),
            atomic=True,
            order=_order(args[2], meta) if explicit else "sc",
            scope=_scope(args[3], meta) if len(args) > 3 else None,
            remote=remote,
            line=line,
        )
    if op == "load":
        if explicit:
            _arity(name, args, 2, 3, meta)
        else:
            _arity(name, args, 1, 1, meta)
        return A.Load(
            loc,
            atomic=True,
            order=_order(args[1], meta) if explicit else "sc",
            scope=_scope(args[2], meta) if len(args) > 2 else None,
            remote=remote,
            line=line,
        )
    if op.startswith("compare_exchange"):
        if explicit:
            _arity(name, args, 5, 6, meta)
        else:
            _arity(name, args, 3, 3, meta)
        return A.Rmw(
            "cas",
            loc,
            _value(args[2], meta),
            order=_order(args[3], meta) if explicit else "sc",
            scope=_scope(args[5], meta) if len(args) > 5 else None,
            remote=remote,
            expected=_name_arg(args[1], "the location of the expected value", meta),
            fail_order=_order(args[4], meta) if explicit else "sc",
            line=line,
        )
    kind = "exch" if op == "exchange" else op[len("fetch_") :]
    if explicit:
        _arity(name, args, 3, 4, meta)
    else:
        _arity(name, args, 2, 2, meta)
    return A.Rmw(
        kind,
        loc,
        _value(args[1], meta),
        order=_order(args[2], meta) if explicit else "sc",
        scope=_scope(args[3], meta) if len(args) > 3 else None,
        remote=remote,
        line=line,
    )


def apply_scope_tree(threads, forest, path, text):
    """Place threads in the scope tree: numbers for devices, work-groups and
    sub-groups in order of appearance."""
    where: dict[str, dict] = {}
    counters = {"dev": 0, "wg": 0, "sg": 0}

    def visit(node, ctx):
        level, kids = node[0], node[1]
        ctx = dict(ctx)
        if level is not None:
            ctx[level] = counters[level]
            counters[level] += 1
        for k in kids:
            if isinstance(k, str):
                if k in where:
                    raise LitmusSyntaxError(
                        f"thread {k} appears twice in the scope tree", path, *_scope_tree_line(text)
                    )
                where[k] = ctx
            else:
                visit(k, ctx)

    for node in forest:
        visit(node, {})
    out = []
    names = {t.name for t in threads}
    for k in where:
        if k not in names:
            raise LitmusSyntaxError(f"the scope tree names {k}, which is not a thread", path, *_scope_tree_line(text))
    for t in threads:
        ctx = where.get(t.name)
        if ctx is None:
            raise LitmusSyntaxError(f"thread {t.name} is missing from the scope tree", path, *_scope_tree_line(text))
        dev = ctx.get("dev", 0)
        wg = ctx.get("wg")
        if wg is None:
            wg = counters["wg"]
            counters["wg"] += 1
        out.append(A.Thread(t.name, t.params, t.body, dev=dev, wg=wg, sg=ctx.get("sg"), line=t.line))
    return tuple(out)


def _scope_tree_line(text: str) -> tuple:
    """(line, column, excerpt) of the `scopeTree` keyword."""
    lines = text.splitlines()
    for k, ln in enumerate(lines):
        col = ln.lower().find("scopetree")
        if col >= 0:
            return (k + 1, col + 1, ln)
    return (None, None, None)


def lark_syntax_error(e: UnexpectedInput, path, lines, line_offset: int = 0, col_offset: int = 0):
    """A LitmusSyntaxError for a lark error in text that starts at
    (line_offset + 1, col_offset + 1) of the file: what was found, what
    was expected, where."""
    line = e.line + line_offset
    col = e.column + col_offset if e.line == 1 else e.column
    excerpt = lines[line - 1] if 0 < line <= len(lines) else None
    tok = getattr(e, "token", None)
    if tok is not None and getattr(tok, "type", "") == "$END":
        msg = "unexpected end of input"
    elif tok is not None:
        msg = f"unexpected {str(tok)!r}"
    else:
        ch = getattr(e, "char", None)
        msg = f"unexpected character {ch!r}" if ch else "syntax error"
    exp = getattr(e, "expected", None) or getattr(e, "allowed", None)
    if exp:
        shown = sorted({_TERMINALS.get(x, x) for x in exp if not x.startswith("__")})
        if len(shown) > 12:
            shown = shown[:12] + ["..."]
        if shown:
            msg += " (expected " + ", ".join(shown) + ")"
    return LitmusSyntaxError(msg, path, line, col, excerpt)


def parse_opencl(text: str, path: str | None = None) -> A.Test:
    src = _blank_preamble_comments(text)
    lines = text.splitlines()
    try:
        items = ToAst().transform(_parser().parse(src)).children
    except UnexpectedInput as e:
        lk = _LKMM.search(src)
        if lk is not None:  # an LKMM test: refuse it for what it is, not for its syntax
            line = src[: lk.start()].count("\n") + 1
            raise UnsupportedFeature(_lkmm(lk.group(1)).msg, path, line) from None
        raise lark_syntax_error(e, path, lines) from None
    except (VisitError, ParseFailure) as e:
        orig = e.orig_exc if isinstance(e, VisitError) else e
        if isinstance(orig, _Unsupported):
            raise UnsupportedFeature(orig.msg, path, orig.line) from None
        if isinstance(orig, ParseFailure):
            excerpt = lines[orig.line - 1] if orig.line and 0 < orig.line <= len(lines) else None
            raise LitmusSyntaxError(orig.msg, path, orig.line, orig.column, excerpt) from None
        if isinstance(orig, LitmusSyntaxError):
            raise orig from None
        raise  # a bug of hrf, not of the test: let it show

    header = next(x for x in items if isinstance(x, tuple) and x[0] == "header")
    init = next(x for x in items if isinstance(x, tuple) and x[0] == "init")[1]
    threads = tuple(x for x in items if isinstance(x, A.Thread))
    tree = next((x for x in items if isinstance(x, tuple) and x[0] == "tree"), None)
    cond = next((x[1] for x in items if isinstance(x, tuple) and x[0] == "cond"), None)
    locs = next((x[1] for x in items if isinstance(x, tuple) and x[0] == "locations"), ())

    for i, t in enumerate(threads):
        if t.index != i:
            raise LitmusSyntaxError(
                f"threads must be P0, P1, ... in order; found {t.name} in position {i}",
                path,
                t.line,
                1,
                lines[t.line - 1] if t.line else None,
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
            raise LitmusSyntaxError(
                f"{t.name} has no placement (@wg N, dev N) while {annotated[0].name} has one: "
                "place every thread or none",
                path,
                t.line,
                1,
                lines[t.line - 1] if t.line else None,
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
    return A.Test(header[1], header[2], threads, inits, reg_inits, cond, locs, path=path)
