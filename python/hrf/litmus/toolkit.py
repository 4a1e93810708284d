"""The shared toolkit of hrf's C-like and assembly-like litmus readers:
the tables of memory orders, scopes and fence flags, integer literals,
the errors a reader raises (`ParseFailure`, `Unsupported`), herd's call
forms (atomics, fences, barriers) as AST nodes, scope trees and scope
annotations, and the builders of threads, headers and conditions. Every
reader (C/OpenCL, PTX, the GPU machine's assembly, and the LALR reference
readers of the tests) builds its AST from these; none of them imports
another reader's private names. The reading itself (tokens, positions,
syntax errors, conditions) is `reader.py`'s.
"""

from __future__ import annotations

import re

from ..errors import LitmusSyntaxError
from . import ast as A

# The allocation classes of an init entry (`[x]=0 @coarse`: observability,
# [HRFR15] sec. 6.2) and PTX's ld/st cache operators (event tags cache_*):
# the syntax knows them; hrf.program lowers them to tags.
ALLOC_CLASSES = ("coarse", "fine", "fga")
CACHE_OPS = ("ca", "cg", "cs", "cv", "lu", "wb", "wt", "volatile")

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


class ParseFailure(Exception):
    def __init__(self, msg, line=None, column=None):
        super().__init__(msg)
        self.msg, self.line, self.column = msg, line, column


class Unsupported(ParseFailure):
    """A construct that parses but has no meaning in hrf: UnsupportedFeature."""


# Linux-kernel primitives (herd's LKMM tests are C tests too): hrf has no
# model for them, so a test that uses one is refused, naming it.
LKMM = re.compile(
    r"\b(WRITE_ONCE|READ_ONCE|smp_\w+|spin_\w+|rcu_\w+|srcu_\w+|synchronize_\w+|__atomic_\w+|"
    r"atomic_t|cmpxchg\w*|xchg\w*|atomic_(?:inc|dec|add|sub)(?:_return|_unless)?\w*)\b"
)


def lkmm(name: str, line=None, column=None) -> Unsupported:
    return Unsupported(
        f"{name} is a Linux-kernel primitive (herd's LKMM tests): hrf has no model of them", line, column
    )


def meta_line(meta) -> int:
    return getattr(meta, "line", 0) or 0


def _flatten_or(e) -> list:
    if isinstance(e, A.BinOp) and e.op == "|":
        return _flatten_or(e.left) + _flatten_or(e.right)
    return [e]


def _flat(items, cls):
    out = []
    for p in items:
        out.extend(p.props if isinstance(p, cls) else [p])
    return out


def value(e, meta):
    """An expression used as a value: a location's address is not one."""
    if isinstance(e, tuple) and e and e[0] == "addr":
        raise ParseFailure(f"'&{e[1]}' is not a value here", meta.line, meta.column)
    if isinstance(e, (A.Store, A.Fence, A.Barrier)):
        raise ParseFailure("this operation has no value", meta.line, meta.column)
    return e


def _location(a, meta) -> tuple:
    """(location, offset) of an access's address argument: a name, or an
    expression (`y+r0`), which `addresses.resolve_addresses` splits once the
    test's locations are known: (COMPUTED, the whole address) until then."""
    if isinstance(a, A.Reg):
        return a.name, None
    if isinstance(a, tuple) and a[0] == "addr":
        return a[1], None
    if isinstance(a, (A.BinOp, A.UnOp)):
        return A.COMPUTED, value(a, meta)
    raise ParseFailure("expected a location", meta.line, meta.column)


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


def call(name, args, meta):
    line = meta_line(meta)
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
        if LKMM.fullmatch(name):
            raise lkmm(name, meta.line, meta.column)
        raise ParseFailure(f"unknown function {name!r}", meta.line, meta.column)
    op, explicit, remote = m.group("op"), bool(m.group("explicit")), bool(m.group("remote"))
    loc, offset = _location(args[0], meta) if args else (None, None)
    kind = op if op in ("store", "load") else "cas" if op.startswith("compare_exchange") else "rmw"
    # f(loc, ..., order[, failure order][, scope]): n arguments before the order
    n, orders = _BEFORE_ORDER[kind], 2 if kind == "cas" else 1
    if explicit:
        _arity(name, args, n + orders, n + orders + 1, meta)
    else:
        _arity(name, args, n, n, meta)

    def order(k: int) -> str:  # the k-th order argument; seq_cst without `_explicit`
        return _order(args[n + k], meta) if explicit else "sc"

    def scope() -> str | None:
        return _scope(args[n + orders], meta) if len(args) > n + orders else None

    common = dict(remote=remote, line=line, offset=offset)
    if kind == "store":
        return A.Store(loc, value(args[1], meta), atomic=True, order=order(0), scope=scope(), **common)
    if kind == "load":
        return A.Load(loc, atomic=True, order=order(0), scope=scope(), **common)
    if kind == "cas":
        return A.Rmw(
            "cas",
            loc,
            value(args[2], meta),
            order=order(0),
            scope=scope(),
            expected=_name_arg(args[1], "the location of the expected value", meta),
            fail_order=order(1),
            **common,
        )
    rmw = "exch" if op == "exchange" else op[len("fetch_") :]
    return A.Rmw(rmw, loc, value(args[1], meta), order=order(0), scope=scope(), **common)


# Per kind of atomic call: its arguments before the memory order.
_BEFORE_ORDER = {"store": 2, "load": 1, "cas": 3, "rmw": 2}


def make_array_init(name: str, size: int, elements: list, meta) -> A.Init:
    """`int y[size] = {v0, v1, ...};`: an array of `size` locations."""
    if size < 1:
        raise ParseFailure(f"array {name} has {size} elements: an array has at least one", meta.line, meta.column)
    if size > MAX_ARRAY:
        raise ParseFailure(
            f"array {name} has {size:,} elements, more than hrf takes ({MAX_ARRAY})", meta.line, meta.column
        )
    if len(elements) > size:
        raise ParseFailure(
            f"array {name} has {size} elements but {len(elements)} initial values", meta.line, meta.column
        )
    return A.Init(name, 0, line=meta_line(meta), size=size, elements=tuple(elements))


# Elements of an array past which a test is refused (each is a location,
# and an execution holds at most 128 events, init writes included).
MAX_ARRAY = 32


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


class Where:
    """A position (line, column), as the builders take it."""

    __slots__ = ("line", "column")

    def __init__(self, line: int, column: int):
        self.line, self.column = line, column


def make_param(words: list[str], name: str) -> A.Param:
    """A thread's parameter `words* name` (e.g. `global atomic_int* x`)."""
    region = None
    for w in words:
        if w in ("global", "__global"):
            region = "global"
        elif w in ("local", "__local"):
            region = "local"
    ctype = words[-1] if words else "int"
    return A.Param(name, region=region, atomic=ctype.startswith("atomic"), ctype=ctype)


def make_scope_annot(pairs) -> dict:
    """`@wg 0, dev 1` from its (key, value, where) pairs."""
    out: dict = {}
    for key, val, m in pairs:
        k = {"wg": "wg", "dev": "dev", "sg": "sg", "work_group": "wg", "device": "dev"}.get(key)
        if k is None:
            raise ParseFailure(f"unknown scope level {key!r} (expected wg, dev or sg)", m.line, m.column)
        if k in out:
            raise ParseFailure(
                f"the thread is placed twice at level {key!r} ({k} {out[k]} and {k} {val})", m.line, m.column
            )
        out[k] = val
    return out


def make_thread(name: str, annot: dict, params, body, line: int) -> A.Thread:
    return A.Thread(
        name, tuple(params), tuple(body), dev=annot.get("dev"), wg=annot.get("wg"), sg=annot.get("sg"), line=line
    )


def make_stree(name: str | None, kids: list, meta) -> tuple:
    """A node of a scope tree: `(level kids...)`, kids being thread names
    and nodes; (level, kids, rank, name, line, column)."""
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


def make_unop(op: str, e, line: int):
    """`-e` or `!e`; minus a constant is the negative constant."""
    if op == "-" and isinstance(e, A.Const):
        return A.Const(-e.value, line=line)
    return A.UnOp(op, e, line=line)


def make_expr_stmt(e, meta):
    """An expression as a statement: a store, fence or barrier call is that
    statement; any other expression is evaluated for its effects."""
    if isinstance(e, (A.Store, A.Fence, A.Barrier)):
        return e
    return A.ExprStmt(value(e, meta), line=meta.line)


def make_labelled(label: str, s):
    """`L: s`: a label names a barrier (herd's barrier instances); elsewhere it is dropped."""
    if isinstance(s, A.Barrier):
        return A.Barrier(s.flags, label=label, scope=s.scope, line=s.line)
    return s


def make_header(token: str) -> tuple:
    parts = token.split(None, 1)
    arch = "C" if parts[0] == "C" else "OpenCL"
    return ("header", arch, parts[1].strip() if len(parts) > 1 else "")


def make_and(items) -> A.PAnd:
    return A.PAnd(tuple(_flat(items, A.PAnd)))


def make_or(items) -> A.POr:
    return A.POr(tuple(_flat(items, A.POr)))
