"""The LALR reader of the C/OpenCL litmus syntax (lark, `opencl.grammar`):
the reference `hrf.litmus.opencl` is tested against. Its transformer turns
lark's parse tree into the AST with the package's builders."""

from __future__ import annotations

from lark import Token, Transformer, v_args
from lark.exceptions import UnexpectedInput, VisitError

from hrf.errors import LitmusSyntaxError, UnsupportedFeature
from hrf.litmus import ast as A
from hrf.litmus import opencl
from hrf.litmus.toolkit import (
    ALLOC_CLASSES,
    LKMM,
    ParseFailure,
    Unsupported,
    Where,
    call,
    int_literal,
    lkmm,
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
    meta_line,
    value,
)

from .grammar import lalr

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


def parse_opencl(text: str, path: str | None = None) -> A.Test:
    """A C or OpenCL test, read by the LALR reader."""
    return opencl.parse_opencl(text, path, read_items=read_items)


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


@v_args(meta=True)
class ToAst(Transformer):
    # ---------------------------------------------------------- expressions
    def const(self, meta, c):
        return A.Const(int_literal(c[0]), line=meta_line(meta))

    def var(self, meta, c):
        return A.Reg(str(c[0]), line=meta_line(meta))

    def binop(self, meta, c):
        return A.BinOp(str(c[1]), c[0], c[2], line=meta_line(meta))

    def unop(self, meta, c):
        return make_unop(str(c[0]), c[1], meta_line(meta))

    def deref(self, meta, c):
        return A.Load(str(c[1]), atomic=False, line=meta_line(meta))

    def deref_expr(self, meta, c):
        return A.DerefExpr(value(c[1], meta), line=meta_line(meta))

    def store_expr(self, meta, c):
        return A.StoreExpr(str(c[1]), value(c[2], meta), line=meta_line(meta))

    def addr(self, meta, c):
        return ("addr", str(c[1]))

    def call(self, meta, c):
        name = str(c[0])
        args = [a for a in c[1:] if a is not None]
        return call(name, args, meta)

    # ---------------------------------------------------------- statements
    def decl(self, meta, c):
        return A.Assign(str(c[1]), None, decl=True, line=meta_line(meta))

    def decl_init(self, meta, c):
        return A.Assign(str(c[1]), value(c[2], meta), decl=True, line=meta_line(meta))

    def decl_init_ptr(self, meta, c):
        return A.Assign(str(c[2]), value(c[3], meta), decl=True, line=meta_line(meta), pointer=True)

    def assign(self, meta, c):
        return A.Assign(str(c[0]), value(c[1], meta), line=meta_line(meta))

    def store(self, meta, c):
        return A.Store(str(c[1]), value(c[2], meta), atomic=False, line=meta_line(meta))

    def store_at(self, meta, c):
        return A.Store(A.COMPUTED, value(c[2], meta), atomic=False, line=meta_line(meta), offset=value(c[1], meta))

    def expr_stmt(self, meta, c):
        return make_expr_stmt(c[0], Where(meta_line(meta), getattr(meta, "column", 0)))

    def block(self, meta, c):
        out = []
        for s in c:
            out.extend(s if isinstance(s, list) else [s])
        return out

    def _body(self, s):
        return tuple(s) if isinstance(s, list) else ((s,) if s is not None else ())

    def if_else(self, meta, c):
        return A.If(value(c[0], meta), self._body(c[1]), self._body(c[2]), line=meta_line(meta))

    def if_then(self, meta, c):
        return A.If(value(c[0], meta), self._body(c[1]), (), line=meta_line(meta))

    def while_(self, meta, c):
        return A.While(value(c[0], meta), self._body(c[1]), line=meta_line(meta))

    def labelled(self, meta, c):
        return make_labelled(str(c[0]), c[1])

    def skip(self, meta, c):
        return []

    # ---------------------------------------------------------- threads
    def param(self, meta, c):
        return make_param([str(w) for w in c[:-2]], str(c[-1]))

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
        return make_scope_annot(c)

    def thread(self, meta, c):
        annot, params, body = {}, [], []
        for x in c[1:]:
            if isinstance(x, dict):
                annot = x
            elif isinstance(x, A.Param):
                params.append(x)
            elif isinstance(x, list):
                body = x
        return make_thread(str(c[0]), annot, params, body, meta_line(meta))

    def signed(self, meta, c):
        v = int_literal(c[-1])
        return -v if len(c) == 2 else v

    def loc_ref(self, meta, c):
        return str(c[0])

    def init_loc(self, meta, c):

        alloc = str(c[2]) if len(c) > 2 and c[2] is not None else None
        if alloc is not None and alloc not in ALLOC_CLASSES:
            raise ParseFailure(
                f"unknown allocation class @{alloc} (known: {', '.join('@' + a for a in ALLOC_CLASSES)})",
                c[2].line,
                c[2].column,
            )
        return A.Init(c[0], c[1], alloc=alloc, line=meta_line(meta))

    def init_default(self, meta, c):
        return A.Init(c[0], 0, line=meta_line(meta))

    def init_locval(self, meta, c):
        return A.Init(c[0], str(c[1]), line=meta_line(meta))

    def init_reg(self, meta, c):
        return A.RegInit(int_literal(c[0]), str(c[1]), c[2], line=meta_line(meta))

    def init_typed(self, meta, c):
        return A.Init(str(c[-2]), c[-1], line=meta_line(meta))

    def init_typed_default(self, meta, c):
        return A.Init(str(c[-1]), 0, line=meta_line(meta))

    def init_typed_macro(self, meta, c):
        # `atomic_t x = ATOMIC_INIT(0);`
        if str(c[2]) == "ATOMIC_INIT":
            raise lkmm("atomic_t", meta.line, meta.column)
        raise Unsupported(f"initialiser {c[2]}(...) has no meaning in hrf", meta.line, meta.column)

    def init_pointer(self, meta, c):
        # `int *y = &x;` or `int *y = x;`: y holds x's address; `int *y = 0;` a number
        value = c[-1]
        return A.Init(str(c[2]), str(value) if isinstance(value, Token) else value, line=meta_line(meta))

    def init_array(self, meta, c):
        return make_array_init(str(c[1]), int_literal(c[2]), [x for x in c[3:] if x is not None], meta)

    def array_param(self, meta, c):
        # `atomic_int y[]` or `atomic_int y[2]`: a pointer to the array's first element
        words = [str(w) for w in c if isinstance(w, Token) and w.type == "NAME"]
        return make_param(words[:-1], words[-1])

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
        raise Unsupported("herd's memory regions (regions: ...) are not supported", meta.line, meta.column)

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
        return make_stree(name, kids, meta)

    def scope_tree(self, meta, c):
        return ("tree", c)

    def regvar(self, meta, c):
        return A.RegVar(int_literal(c[0]), str(c[1]))

    def locvar(self, meta, c):
        return A.LocVar(str(c[0]))

    def elemvar(self, meta, c):
        return A.LocVar(f"{c[0]}[{int_literal(c[1])}]")

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
        return make_and(c)

    def p_or(self, meta, c):
        return make_or(c)

    def condition(self, meta, c):
        return ("cond", A.Condition(str(c[0]), c[1] if len(c) > 1 else A.PTrue()))

    def neg_condition(self, meta, c):
        if str(c[1]) != "exists":
            raise ParseFailure("only 'exists' may be negated", meta.line, meta.column)
        return ("cond", A.Condition("~exists", c[2] if len(c) > 2 else A.PTrue()))

    def header(self, meta, c):
        return make_header(str(c[0]))

    def meta(self, meta, c):
        return None


def read_items(src: str, path, lines: list[str]) -> list:
    """The top-level items of a test (comments blanked), for `opencl.assemble`."""
    try:
        return ToAst().transform(lalr("opencl").parse(src)).children
    except UnexpectedInput as e:
        lk = LKMM.search(src)
        if lk is not None:  # an LKMM test: refuse it for what it is, not for its syntax
            line = src[: lk.start()].count("\n") + 1
            raise UnsupportedFeature(lkmm(lk.group(1)).msg, path, line) from None
        raise lark_syntax_error(e, path, lines) from None
    except (VisitError, ParseFailure) as e:
        orig = e.orig_exc if isinstance(e, VisitError) else e
        if isinstance(orig, RecursionError):
            raise orig from None
        if isinstance(orig, Unsupported):
            lk = LKMM.search(src)
            if lk is not None:
                # an LKMM test: refused for what it is, before any construct of it
                line = src[: lk.start()].count("\n") + 1
                raise UnsupportedFeature(lkmm(lk.group(1)).msg, path, line) from None
            raise UnsupportedFeature(orig.msg, path, orig.line) from None
        if isinstance(orig, ParseFailure):
            excerpt = lines[orig.line - 1] if orig.line and 0 < orig.line <= len(lines) else None
            raise LitmusSyntaxError(orig.msg, path, orig.line, orig.column, excerpt) from None
        if isinstance(orig, LitmusSyntaxError):
            raise orig from None
        raise  # a bug of hrf, not of the test: let it show
