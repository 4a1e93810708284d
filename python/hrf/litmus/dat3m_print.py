"""hrf's AST as a test in one of Dat3M's dialects (PTX, Vulkan), for the
tests `hrf generate` builds: loads, stores and fences with hrf's orders
and scopes, guards on a read's value (`if (r == v)`), constant values.
The text reads back with the dialect's reader (`dat3m_ptx.py`,
`vulkan.py`), which gives the events their tags; whatever falls outside
that fragment is refused by name (UnsupportedFeature).

PTX: a plain access is `.weak`; atomics are `.relaxed`, `.acquire`
(loads), `.release` (stores) at `.cta`/`.gpu`/`.sys` (hrf's wg, dev,
all); fences are `fence.sc` or `fence.acq_rel`. Vulkan: a plain access is
non-private (`.nonpriv`, storage class 0); atomics are `.atom` (relaxed),
`.atom.acq` (loads), `.atom.rel` (stores) at `.sg`/`.wg`/`.qf`/`.dv`, an
acquire or release with storage class 0 in its semantics and visibility
or availability (`.semsc0.semvis`, `.semsc0.semav`); fences are
`membar.acq`, `.rel`, `.acq_rel` with both. A placement's device is the
GPU (PTX) or queue family (Vulkan).
"""

from __future__ import annotations

from ..errors import UnsupportedFeature
from . import ast as A

PTX_SCOPE = {"wg": "cta", "qf": "cluster", "dev": "gpu", "all": "sys"}
VK_SCOPE = {"sg": "sg", "wg": "wg", "qf": "qf", "dev": "dv"}
PTX_ORDER = {"rlx": "relaxed", "acq": "acquire", "rel": "release"}


def _scope(table: dict, scope, dialect: str, what: str) -> str:
    if scope not in table:
        raise UnsupportedFeature(f"{dialect} has no scope {scope!r} for {what} (scopes: {', '.join(table)})")
    return table[scope]


def _ptx_access(op, kind: str) -> str:
    if set(op.tags) - {"GEN"}:
        raise UnsupportedFeature(f"a PTX access through the {', '.join(op.tags)} proxy has no form here")
    if not op.atomic:
        return f"{kind}.weak"
    if not (op.order == "rlx" or (kind, op.order) in (("ld", "acq"), ("st", "rel"))):
        raise UnsupportedFeature(f"PTX has no {op.order} {'load' if kind == 'ld' else 'store'}")
    return f"{kind}.{PTX_ORDER[op.order]}.{_scope(PTX_SCOPE, op.scope, 'PTX', 'an access')}"


def _vk_access(op, kind: str) -> str:
    """As the module says for hrf's accesses (no tags); an access read from
    Vulkan text (its tags, as vulkan.py gives them) as it was written."""
    tags = set(op.tags)
    sc = next((t.lower() for t in ("SC0", "SC1", "SC2", "SC3") if t in tags), "sc0")
    if not op.atomic:
        if tags & {"AV", "VIS"}:
            scope = next(VK_SCOPE[x] for x in VK_SCOPE if x in tags)
            return f"{kind}.{'av' if kind == 'st' else 'vis'}.{scope}.{sc}"
        return f"{kind}.nonpriv.{sc}" if not tags or "NONPRIV" in tags else f"{kind}.{sc}"
    scope = _scope(VK_SCOPE, op.scope, "Vulkan", "an access")
    if op.order == "rlx":
        return f"{kind}.atom.{scope}.{sc}"
    if (kind, op.order) not in (("ld", "acq"), ("st", "rel")):
        raise UnsupportedFeature(f"Vulkan has no {op.order} {'load' if kind == 'ld' else 'store'}")
    sem = "".join(f".{t.lower()}" for t in sorted(tags) if t.startswith("SEMSC")) or ".semsc0"
    visible = ".semvis" if kind == "ld" else ".semav"
    if tags and visible[1:].upper() not in tags:
        visible = ""
    return f"{kind}.atom.{op.order}.{scope}.{sc}{sem}{visible}"


def _fence(f: A.Fence, dialect: str) -> str:
    if dialect == "PTX":
        if f.order not in ("sc", "acq_rel"):
            raise UnsupportedFeature(f"PTX has no {f.order} fence (fence.sc, fence.acq_rel)")
        return f"fence.{f.order}.{_scope(PTX_SCOPE, f.scope, 'PTX', 'a fence')}"
    if f.order not in ("acq", "rel", "acq_rel"):
        raise UnsupportedFeature(f"Vulkan has no {f.order} fence (membar.acq, .rel, .acq_rel)")
    sem = {"acq": ".semvis", "rel": ".semav", "acq_rel": ".semav.semvis"}[f.order]
    return f"membar.{f.order}.{_scope(VK_SCOPE, f.scope, 'Vulkan', 'a fence')}.semsc0{sem}"


def _value(e) -> str:
    if isinstance(e, A.Const):
        return str(e.value)
    if isinstance(e, A.Reg):
        return e.name
    raise UnsupportedFeature("Dat3M's dialects here take constants and registers as values")


LOCAL_OPS = {"+": "add", "-": "sub", "*": "mul"}  # the register arithmetic both dialects write alike


def _data_dependent(e) -> tuple[str, int] | None:
    """(r, v) for `v + (r ^ r)`: the value v, data-dependent on register r
    (the generated families' DpData)."""
    if (
        isinstance(e, A.BinOp)
        and e.op == "+"
        and isinstance(e.left, A.Const)
        and isinstance(e.right, A.BinOp)
        and e.right.op == "^"
        and isinstance(e.right.left, A.Reg)
        and e.right.right == e.right.left
    ):
        return e.right.left.name, e.left.value
    return None


DATA_REG = "r100"  # holds a data-dependent value from its computation to its store (the loads' are below)


def _cells(stmts, dialect: str, labels: list) -> list[str]:
    access = _ptx_access if dialect == "PTX" else _vk_access
    out: list[str] = []
    for s in stmts:
        dep = _data_dependent(s.value) if isinstance(s, A.Store) else None
        if isinstance(s, A.Store) and s.offset is None and dep is not None:
            # r * 0 + v: the value v, depending on r (the dialects have no xor)
            reg, v = dep
            t = DATA_REG
            out += [f"mul {t}, {reg}, 0", f"add {t}, {t}, {v}", f"{access(s, 'st')} {s.loc}, {t}"]
        elif isinstance(s, A.Store) and s.offset is None:
            out.append(f"{access(s, 'st')} {s.loc}, {_value(s.value)}")
        elif isinstance(s, A.Assign) and isinstance(s.expr, A.Load) and s.expr.offset is None:
            out.append(f"{access(s.expr, 'ld')} {s.reg}, {s.expr.loc}")
        elif isinstance(s, A.Assign) and isinstance(s.expr, A.BinOp) and s.expr.op in LOCAL_OPS:
            out.append(f"{LOCAL_OPS[s.expr.op]} {s.reg}, {_value(s.expr.left)}, {_value(s.expr.right)}")
        elif isinstance(s, A.Fence):
            out.append(_fence(s, dialect))
        elif isinstance(s, A.Label):
            out.append(f"{s.name}:")
        elif isinstance(s, A.Goto):
            out.append(f"goto {s.label}")
        elif (
            isinstance(s, A.If)
            and not s.orelse
            and len(s.then) == 1
            and isinstance(s.then[0], A.Goto)
            and isinstance(s.cond, A.BinOp)
            and s.cond.op in BRANCH
        ):  # a conditional jump, as the readers give one
            a, b = (_operand(x) for x in (s.cond.left, s.cond.right))
            out.append(f"{BRANCH[s.cond.op]} {a}, {b}, {s.then[0].label}")
        elif (
            isinstance(s, A.If)
            and not s.orelse
            and isinstance(s.cond, A.BinOp)
            and s.cond.op == "=="
            and isinstance(s.cond.left, A.Reg)
            and isinstance(s.cond.right, A.Const)
        ):
            label = f"LC{len(labels):02d}"
            labels.append(label)
            out.append(f"bne {s.cond.left.name}, {s.cond.right.value}, {label}")
            out += _cells(s.then, dialect, labels)
            out.append(f"{label}:")
        elif isinstance(s, A.While) and _exit_branch(s.cond) is not None:
            # `while (c) b`: a label, a jump out where c fails, b, a jump back
            top, out_label = f"LC{len(labels):02d}", f"LC{len(labels) + 1:02d}"
            labels += [top, out_label]
            out.append(f"{top}:")
            out.append(f"{_exit_branch(s.cond)}, {out_label}")
            out += _cells(s.body, dialect, labels)
            out.append(f"goto {top}")
            out.append(f"{out_label}:")
        else:
            raise UnsupportedFeature(f"{type(s).__name__} has no form in Dat3M's {dialect} here")
    return out


BRANCH = {"==": "beq", "!=": "bne", "<": "blt", "<=": "ble", ">": "bgt", ">=": "bge"}
NEGATED = {"==": "bne", "!=": "beq", "<": "bge", "<=": "bgt", ">": "ble", ">=": "blt"}


def _exit_branch(cond) -> str | None:
    """The branch (without its label) taken where `cond` fails: a register
    compared with a value, a register, or its negation; None otherwise."""
    if isinstance(cond, A.BinOp) and cond.op in NEGATED:
        return f"{NEGATED[cond.op]} {_operand(cond.left)}, {_operand(cond.right)}"
    if isinstance(cond, A.Reg):
        return f"beq {cond.name}, 0"
    if isinstance(cond, A.UnOp) and cond.op == "!" and isinstance(cond.operand, A.Reg):
        return f"bne {cond.operand.name}, 0"
    return None


def _operand(e) -> str:
    if isinstance(e, A.Reg):
        return e.name
    return _value(e)


def _prop(p) -> str:
    if isinstance(p, A.PAtom):
        var = p.var
        name = f"P{var.thread}:{var.reg}" if isinstance(var, A.RegVar) else str(var)
        return f"{name} == {p.value}"
    if isinstance(p, A.PAnd):
        return " /\\ ".join(_prop(q) for q in p.props)
    if isinstance(p, A.POr):
        return "(" + " \\/ ".join(_prop(q) for q in p.props) + ")"
    raise UnsupportedFeature(f"condition {p!r} has no form here")


def to_dat3m(t: A.Test, dialect: str) -> str:
    """The test in Dat3M's `PTX` or `VULKAN` dialect (its threads' device
    and work group placed as the module says)."""
    labels: list[str] = []
    columns = [_cells(th.body, dialect, labels) for th in t.threads]
    heads = []
    # PTX clusters are written where one holds several CTAs (each CTA is
    # alone in its cluster otherwise: litmus/dat3m_ptx.py)
    ctas: dict = {}
    for th in t.threads:
        ctas.setdefault((th.dev or 0, th.qf), set()).add(th.wg or 0)
    clusters = dialect == "PTX" and any(q is not None and len(w) > 1 for (_, q), w in ctas.items())
    for k, th in enumerate(t.threads):
        dev, wg = th.dev or 0, th.wg or 0
        if dialect != "PTX":
            heads.append(f"P{k}@sg {k}, wg {wg}, qf {dev}")
        else:
            heads.append(f"P{k}@cta {wg},cluster {th.qf},gpu {dev}" if clusters else f"P{k}@cta {wg},gpu {dev}")
    rows = [heads] + [[c[i] if i < len(c) else "" for c in columns] for i in range(max(map(len, columns), default=0))]
    widths = [max(len(r[j]) for r in rows) for j in range(len(heads))]
    body = [" " + " | ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)) + " ;" for r in rows]
    init = " ".join(f"{i.loc}={i.value};" for i in t.init)
    cond = t.condition
    assert cond is not None
    return f"{dialect} {t.name}\n{{\n{init}\n}}\n" + "\n".join(body) + f"\n{cond.quantifier}\n({_prop(cond.prop)})\n"
