"""AST -> Dat3M-style OpenCL litmus text (`P0@wg 0, dev 0 (...)`).

`parse(to_litmus(t)) == t` for every test (a property test checks it).
"""

from __future__ import annotations

import dataclasses

from . import ast as A
from .toolkit import FLAGS, ORDERS, SCOPES

_ORDER = {v: k for k, v in ORDERS.items()}
_SCOPE = {v: k for k, v in SCOPES.items() if k != "memory_scope_all_devices"}
_FLAG = {v: k for k, v in FLAGS.items()}
_PREC = {
    "||": 1,
    "&&": 2,
    "|": 3,
    "^": 4,
    "&": 5,
    "==": 6,
    "!=": 6,
    "<": 7,
    "<=": 7,
    ">": 7,
    ">=": 7,
    "+": 8,
    "-": 8,
    "*": 9,
}


def format_var(v) -> str:
    return str(v)


def format_prop(p, top=True) -> str:
    if isinstance(p, A.PTrue):
        return "true"
    if isinstance(p, A.PFalse):
        return "false"
    if isinstance(p, A.PAtom):
        return f"{format_var(p.var)}={p.value}"
    if isinstance(p, A.PCompare):
        return f"{format_var(p.left)} {p.op} {format_var(p.right)}"
    if isinstance(p, A.PNot):
        return f"~({format_prop(p.prop)})"
    if isinstance(p, A.PAnd):
        s = " /\\ ".join(format_prop(q, False) for q in p.props)
        return s if top else f"({s})"
    if isinstance(p, A.POr):
        s = " \\/ ".join(format_prop(q, False) for q in p.props)
        return s if top else f"({s})"
    raise TypeError(p)


def format_state(outcome: dict) -> str:
    """An outcome as herd prints a state: `0:r0=1; x=2;`."""
    return " ".join(f"{k}={v};" for k, v in outcome.items())


def format_condition(c: A.Condition) -> str:
    return f"{c.quantifier} ({format_prop(c.prop)})"


def _scope_args(scope) -> str:
    return f", {_SCOPE[scope]}" if scope else ""


def format_expr(e, prec=0) -> str:
    if isinstance(e, A.Const):
        return str(e.value) if e.value >= 0 or prec == 0 else f"({e.value})"
    if isinstance(e, A.Reg):
        return e.name
    if isinstance(e, A.UnOp):
        return f"{e.op}{format_expr(e.operand, 10)}"
    if isinstance(e, A.BinOp):
        p = _PREC[e.op]
        s = f"{format_expr(e.left, p)} {e.op} {format_expr(e.right, p + 1)}"
        return f"({s})" if p < prec else s
    if isinstance(e, A.Load):
        if not e.atomic:
            return f"*{e.loc}" if e.offset is None else f"*({format_address(e)})"
        rem = "_remote" if e.remote else ""
        return f"atomic_load_explicit{rem}({format_address(e)}, {_ORDER[e.order or 'sc']}{_scope_args(e.scope)})"
    if isinstance(e, A.DerefExpr):
        return f"*({format_expr(e.addr)})"
    if isinstance(e, A.StoreExpr):
        return f"(*{e.loc} = {format_expr(e.value)})"
    if isinstance(e, A.Rmw):
        rem = "_remote" if e.remote else ""
        if e.op == "cas":
            return (
                f"atomic_compare_exchange_strong_explicit{rem}({format_address(e)}, {e.expected}, {format_expr(e.operand)}, "
                f"{_ORDER[e.order]}, {_ORDER[e.fail_order or e.order]}{_scope_args(e.scope)})"
            )
        fn = "atomic_exchange_explicit" if e.op == "exch" else f"atomic_fetch_{e.op}_explicit"
        return f"{fn}{rem}({format_address(e)}, {format_expr(e.operand)}, {_ORDER[e.order]}{_scope_args(e.scope)})"
    raise TypeError(e)


def format_address(op) -> str:
    """An access's address: its location, or `y + offset`."""
    if op.offset is None:
        return op.loc
    return format_expr(A.BinOp("+", A.Reg(op.loc), op.offset))


def _flags(flags) -> str:
    return " | ".join(_FLAG[f] for f in flags) if flags else "CLK_GLOBAL_MEM_FENCE"


def format_stmts(stmts, indent) -> list[str]:
    pad = "  " * indent
    out = []
    for s in stmts:
        if isinstance(s, A.Assign):
            if s.expr is None:
                out.append(f"{pad}int {s.reg};")
            else:
                decl = ("int *" if s.pointer else "int ") if s.decl else ""
                out.append(f"{pad}{decl}{s.reg} = {format_expr(s.expr)};")
        elif isinstance(s, A.Store):
            if not s.atomic:
                where = s.loc if s.offset is None else f"({format_address(s)})"
                out.append(f"{pad}*{where} = {format_expr(s.value)};")
            else:
                rem = "_remote" if s.remote else ""
                out.append(
                    f"{pad}atomic_store_explicit{rem}({format_address(s)}, {format_expr(s.value)}, "
                    f"{_ORDER[s.order or 'sc']}{_scope_args(s.scope)});"
                )
        elif isinstance(s, A.ExprStmt):
            out.append(f"{pad}{format_expr(s.expr)};")
        elif isinstance(s, A.Fence) and not s.flags and s.scope is None:
            out.append(f"{pad}atomic_thread_fence({_ORDER[s.order]});")
        elif isinstance(s, A.Fence):
            out.append(
                f"{pad}atomic_work_item_fence({_flags(s.flags)}, {_ORDER[s.order]}"
                f"{_scope_args(s.scope) or ', memory_scope_device'});"
            )
        elif isinstance(s, A.Barrier):
            label = f"{s.label}: " if s.label else ""
            fn = "work_group_barrier" if s.scope else "barrier"
            out.append(f"{pad}{label}{fn}({_flags(s.flags)}{_scope_args(s.scope)});")
        elif isinstance(s, A.If):
            out.append(f"{pad}if ({format_expr(s.cond)}) {{")
            out.extend(format_stmts(s.then, indent + 1))
            if s.orelse:
                out.append(f"{pad}}} else {{")
                out.extend(format_stmts(s.orelse, indent + 1))
            out.append(f"{pad}}}")
        elif isinstance(s, A.While):
            out.append(f"{pad}while ({format_expr(s.cond)}) {{")
            out.extend(format_stmts(s.body, indent + 1))
            out.append(f"{pad}}}")
        else:
            from ..errors import UnsupportedFeature

            kind = {"Goto": "jumps (goto)", "Label": "labels"}.get(type(s).__name__, type(s).__name__ + " statements")
            raise UnsupportedFeature(
                f"to_litmus writes herd's C and OpenCL, which have no {kind}: "
                "a test read from an assembly-like dialect (PTX, Vulkan) stays in its file",
                None,
                getattr(s, "line", None),
            )
    return out


def _param(p: A.Param) -> str:
    if p.points_to_pointer:
        return f"{p.ctype} *{p.name}"
    words = [p.region] if p.region else []
    words.append(p.ctype)
    return f"{' '.join(words)}* {p.name}"


def litmus_identity(t: A.Test) -> tuple[str, int]:
    """A test's identity and size: a hash of the test as the printer writes
    it, name and file aside, so one test under two names (or two spellings
    of it: comments, spacing) is one test; and that text's length, a
    measure of how small the test is. A test of a dialect the printer does
    not write (PTX, Vulkan, [GPU15]'s PTX, machine code) is its tree as read,
    source positions aside (the nodes' repr leaves them out), with
    everything that tells two tests apart: proxies, cache operators, tags."""
    t = dataclasses.replace(t, name="T", path=None)
    text = to_litmus(t) if t.arch in ("C", "OpenCL") else repr(t)
    import hashlib  # here: only the results store asks for identities

    return hashlib.sha256(text.encode()).hexdigest()[:32], len(text)


def to_litmus(t: A.Test) -> str:
    lines = [f"{'C' if t.arch == 'C' else 'OPENCL'} {t.name}", "", "{"]
    for i in t.init:
        if i.size is not None:
            lines.append(f"  int {i.loc}[{i.size}] = {{{', '.join(str(v) for v in i.elements)}}};")
            continue
        alloc = f" @{i.alloc}" if i.alloc else ""
        lines.append(f"  [{i.loc}]={i.value}{alloc};")
    for ri in t.reg_init:
        lines.append(f"  {ri.thread}:{ri.reg}={ri.value};")
    lines.append("}")
    for th in t.threads:
        lines.append("")
        at = []
        if th.sg is not None:
            at.append(f"sg {th.sg}")
        if th.wg is not None:
            at.append(f"wg {th.wg}")
        if th.dev is not None:
            at.append(f"dev {th.dev}")
        where = ("@" + ", ".join(at)) if at else ""
        lines.append(f"{th.name}{where} ({', '.join(_param(p) for p in th.params)}) {{")
        lines.extend(format_stmts(th.body, 1))
        lines.append("}")
    lines.append("")
    if t.locations:
        lines.append("locations [" + " ".join(f"{format_var(v)};" for v in t.locations) + "]")
    if t.condition is not None:
        lines.append(format_condition(t.condition))
    return "\n".join(lines) + "\n"
