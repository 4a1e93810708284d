"""Hypothesis strategies for litmus ASTs.

`litmus_asts` covers every construct of the AST (for the printer round trip);
`hrf_programs` makes small programs within the HRF models' fragment
(seq_cst atomics and ordinary accesses, no loops) for property tests.
"""

from hypothesis import strategies as st

from hrf.litmus import ast as A

LOCS = ["x", "y", "z"]
REGS = ["r0", "r1", "r2"]
ORDERS = ["rlx", "acq", "rel", "acq_rel", "sc"]
SCOPES = [None, "wi", "sg", "wg", "dev", "all"]
FLAGS = [("global",), ("local",), ("global", "local")]

consts = st.integers(-3, 5).map(A.Const)
regs = st.sampled_from(REGS).map(A.Reg)


def _exprs(depth):
    leaf = st.one_of(consts, regs)
    if depth == 0:
        return leaf
    sub = _exprs(depth - 1)
    return st.one_of(
        leaf,
        st.builds(A.BinOp, st.sampled_from(["+", "-", "*", "==", "!=", "<", "&&", "||", "&", "|", "^"]), sub, sub),
        st.builds(A.UnOp, st.just("!"), sub),
        st.builds(A.UnOp, st.just("-"), regs),
    )


values = _exprs(2)


@st.composite
def loads(draw):
    if draw(st.booleans()):
        return A.Load(draw(st.sampled_from(LOCS)))
    return A.Load(
        draw(st.sampled_from(LOCS)),
        True,
        draw(st.sampled_from(ORDERS)),
        draw(st.sampled_from(SCOPES)),
        draw(st.booleans()),
    )


@st.composite
def rmws(draw):
    op = draw(st.sampled_from(["add", "sub", "and", "or", "xor", "exch", "cas"]))
    cas = op == "cas"
    return A.Rmw(
        op,
        draw(st.sampled_from(LOCS)),
        draw(values),
        draw(st.sampled_from(ORDERS)),
        draw(st.sampled_from(SCOPES)),
        draw(st.booleans()),
        expected=draw(st.sampled_from(LOCS)) if cas else None,
        fail_order=draw(st.sampled_from(ORDERS)) if cas else None,
    )


@st.composite
def stores(draw):
    if draw(st.booleans()):
        return A.Store(draw(st.sampled_from(LOCS)), draw(values))
    return A.Store(
        draw(st.sampled_from(LOCS)),
        draw(values),
        True,
        draw(st.sampled_from(ORDERS)),
        draw(st.sampled_from(SCOPES)),
        draw(st.booleans()),
    )


def _stmts(depth):
    simple = st.one_of(
        st.builds(A.Assign, st.sampled_from(REGS), st.one_of(values, loads(), rmws()), st.booleans()),
        st.builds(A.Assign, st.sampled_from(REGS), st.none(), st.just(True)),
        stores(),
        st.builds(A.ExprStmt, st.one_of(loads(), rmws())),
        st.builds(A.Fence, st.sampled_from(FLAGS), st.sampled_from(ORDERS), st.sampled_from(SCOPES[1:])),
        st.builds(
            A.Barrier, st.sampled_from(FLAGS), st.sampled_from([None, "B1", "B2"]), st.sampled_from([None, "wg", "dev"])
        ),
    )
    if depth == 0:
        return simple
    body = st.lists(_stmts(depth - 1), max_size=2).map(tuple)
    return st.one_of(
        simple,
        st.builds(A.If, values, body, body),
        st.builds(A.While, values, body),
    )


def _props(depth):
    atom = st.builds(
        A.PAtom,
        st.one_of(st.builds(A.RegVar, st.integers(0, 2), st.sampled_from(REGS)), st.sampled_from(LOCS).map(A.LocVar)),
        st.integers(-2, 3),
    )
    if depth == 0:
        return st.one_of(atom, st.just(A.PTrue()), st.just(A.PFalse()))
    sub = _props(depth - 1)
    not_and = sub.filter(lambda p: not isinstance(p, A.PAnd))
    not_or = sub.filter(lambda p: not isinstance(p, A.POr))
    return st.one_of(
        atom,
        st.builds(A.PNot, sub),
        st.lists(not_and, min_size=2, max_size=3).map(lambda ps: A.PAnd(tuple(ps))),
        st.lists(not_or, min_size=2, max_size=3).map(lambda ps: A.POr(tuple(ps))),
    )


@st.composite
def params(draw):
    region = draw(st.sampled_from([None, "global", "local"]))
    ctype = draw(st.sampled_from(["int", "atomic_int"]))
    return tuple(A.Param(l, region, ctype.startswith("atomic"), ctype) for l in LOCS)


def _within(p, n):
    """The proposition with every register atom's thread taken modulo n
    (a condition about a thread the test does not have is refused)."""
    if isinstance(p, A.PAtom) and isinstance(p.var, A.RegVar):
        return A.PAtom(A.RegVar(p.var.thread % n, p.var.reg), p.value)
    if isinstance(p, A.PNot):
        return A.PNot(_within(p.prop, n))
    if isinstance(p, (A.PAnd, A.POr)):
        return type(p)(tuple(_within(q, n) for q in p.props))
    return p


# Every thread declares every register first: hrf refuses a test that
# reads a register it never declares (a misspelt name).
DECLS = tuple(A.Assign(r, None, decl=True) for r in REGS)


@st.composite
def litmus_asts(draw):
    n = draw(st.integers(1, 3))
    ps = draw(params())
    threads = tuple(
        A.Thread(
            f"P{i}",
            ps,
            DECLS + tuple(draw(st.lists(_stmts(2), max_size=4))),
            dev=draw(st.integers(0, 1)),
            wg=draw(st.integers(0, 2)),
            sg=draw(st.sampled_from([None, 0, 1])),
        )
        for i in range(n)
    )
    init = tuple(
        A.Init(l, draw(st.integers(-2, 3)), draw(st.sampled_from([None, "coarse", "fine"])))
        for l in draw(st.lists(st.sampled_from(LOCS), unique=True))
    )
    reg_init = tuple(
        A.RegInit(t, r, v)
        for t, r, v in draw(
            st.lists(
                st.tuples(st.integers(0, n - 1), st.sampled_from(REGS), st.integers(-2, 3)),
                max_size=2,
                unique_by=lambda x: (x[0], x[1]),
            )
        )
    )
    cond = draw(
        st.one_of(st.none(), st.builds(A.Condition, st.sampled_from(["exists", "~exists", "forall"]), _props(2)))
    )
    if cond is not None:
        cond = A.Condition(cond.quantifier, _within(cond.prop, n))
    # a test needs a final condition or a `locations` clause (else it is refused as cut short)
    locs = tuple(draw(st.lists(st.sampled_from(LOCS).map(A.LocVar), unique=True, min_size=cond is None, max_size=2)))
    return A.Test(
        "OpenCL",
        draw(st.from_regex(r"[A-Za-z][A-Za-z0-9_+.]{0,12}", fullmatch=True)),
        threads,
        init,
        reg_init,
        cond,
        locs,
    )


# ---------------------------------------------------------------- HRF fragment
@st.composite
def hrf_ops(draw, tid, scopes=("wg", "dev"), orders=("sc",), atomics=True):
    loc = draw(st.sampled_from(LOCS[:2]))
    scope = draw(st.sampled_from(list(scopes)))
    order = draw(st.sampled_from(list(orders)))
    kind = draw(st.sampled_from(["st", "ld", "ast", "ald", "inc"] if atomics else ["st", "ld"]))
    reg = f"r{draw(st.integers(0, 1))}"
    if kind == "st":
        return A.Store(loc, A.Const(draw(st.integers(1, 2))))
    if kind == "ld":
        return A.Assign(reg, A.Load(loc), True)
    if kind == "ast":
        return A.Store(loc, A.Const(draw(st.integers(1, 2))), True, order if order != "acq" else "rlx", scope)
    if kind == "ald":
        return A.Assign(reg, A.Load(loc, True, order if order != "rel" else "rlx", scope), True)
    return A.Assign(reg, A.Rmw("add", loc, A.Const(1), order, scope), True)


@st.composite
def hrf_programs(draw, single_scope=False, orders=("sc",), atomics=True, min_threads=2):
    """2-3 threads of 1-3 operations on x, y: ordinary and seq_cst atomic
    loads, stores and fetch_adds with work-group or device scope, threads
    spread over work-groups and devices, an `exists` on the registers.
    With single_scope, every atomic of a program has the same scope; with
    atomics=False there are none (ordinary loads and stores only)."""
    n = draw(st.integers(min_threads, 3))
    scopes = (draw(st.sampled_from(["wg", "dev"])),) if single_scope else ("wg", "dev")
    ps = tuple(A.Param(l, "global", False, "int") for l in LOCS[:2])
    threads = []
    for i in range(n):
        body = [A.Assign("r0", None, decl=True), A.Assign("r1", None, decl=True)]
        # at most 6 operations in all (so at most 6! witness orders)
        for _ in range(draw(st.integers(1, 3 if n == 2 else 2))):
            op = draw(hrf_ops(i, scopes, orders, atomics))
            if draw(st.integers(0, 5)) == 0 and len(body) > 2:
                # occasionally guard the rest on a register
                body = body[:2] + [A.If(A.BinOp("==", A.Reg("r0"), A.Const(1)), tuple(body[2:] + [op]), ())]
            else:
                body.append(op)
        threads.append(A.Thread(f"P{i}", ps, tuple(body), dev=draw(st.integers(0, 1)), wg=draw(st.integers(0, 1))))
    atoms = [A.PAtom(A.RegVar(i, r), draw(st.integers(0, 2))) for i in range(n) for r in ("r0",) if draw(st.booleans())]
    prop = A.PAnd(tuple(atoms)) if len(atoms) > 1 else (atoms[0] if atoms else A.PTrue())
    return A.Test("OpenCL", "gen", tuple(threads), (), (), A.Condition("exists", prop), ())
