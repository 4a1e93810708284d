"""Translations between dialects of one architecture, as AST rewrites.

[GPU15]'s PTX (herd's `GPU_PTX`, PTX as of 2015) into Dat3M's PTX (header
`PTX`, the PTX ISA 6.0 memory model's tests), with the meanings the PTX
ISA gives the 2015 instructions since version 6.0 ([PTX19]):

    ld / st with a cache operator (.ca .cg .cs .lu .cv .wb .wt) or none
        -> ld.weak / st.weak: cache operators are performance hints, with
           no memory-model meaning
    ld.volatile / st.volatile -> ld.relaxed.sys / st.relaxed.sys
    membar.cta / .gl / .sys   -> fence.sc.cta / .gpu / .sys
    atom.op (no semantics, no scope) -> atom.relaxed.gpu.op (the ISA's
        defaults); atom.cas keeps its meaning (writes only when equal)

Every access goes through the generic proxy. The scope tree is kept (CTA
and GPU of each thread). A construct with no PTX 6.0 meaning is refused
by name (UnsupportedFeature).
"""

from __future__ import annotations

from ..errors import UnsupportedFeature
from . import ast as A

GEN = ("GEN",)


def _access(op, path):
    """A 2015 load or store as PTX 6.0 gives it meaning."""
    if op.atomic:  # pragma: no cover - the GPU_PTX reader makes no atomic loads or stores
        raise UnsupportedFeature(f"an atomic {type(op).__name__.lower()} has no GPU_PTX form", path, op.line)
    if op.cache == "volatile":
        return A.with_fields(op, atomic=True, order="rlx", scope="all", cache=None, tags=GEN)
    return A.with_fields(op, cache=None, tags=GEN)


def _expr(e, path):
    if isinstance(e, A.Load):
        return _access(e, path)
    if isinstance(e, A.Rmw):
        # the ISA's defaults: .relaxed, .gpu; both halves relaxed (strong)
        return A.with_fields(e, order="rlx", scope=e.scope or "dev", tags=GEN, orders=("rlx", "rlx"))
    return e


def _stmt(s, path):
    if isinstance(s, A.Store):
        return _access(s, path)
    if isinstance(s, A.Assign) and s.expr is not None:
        return A.with_fields(s, expr=_expr(s.expr, path))
    if isinstance(s, A.ExprStmt):
        return A.with_fields(s, expr=_expr(s.expr, path))
    if isinstance(s, A.Fence):
        return A.with_fields(s, order="sc", tags=GEN)  # membar: fence.sc of the same scope
    if isinstance(s, A.If):
        return A.with_fields(s, then=_body(s.then, path), orelse=_body(s.orelse, path))
    if isinstance(s, A.While):
        return A.with_fields(s, body=_body(s.body, path))
    if isinstance(s, A.Barrier):
        raise UnsupportedFeature("a GPU_PTX barrier has no translation to PTX 6.0 here", path, s.line)
    return s


def _body(stmts, path) -> tuple:
    return tuple(_stmt(s, path) for s in stmts)


def gpu15_to_ptx(test: A.Test) -> A.Test:
    """A [GPU15] test (GPU_PTX) as a PTX 6.0 test (Dat3M's PTX), named as before."""
    threads = tuple(A.with_fields(t, body=_body(t.body, test.path)) for t in test.threads)
    return A.with_fields(test, arch="PTX", threads=threads)


# (the test's dialect, the dialect a model reads) -> the translation
TRANSLATIONS = {("GPU_PTX", "PTX"): gpu15_to_ptx}


def translate(test: A.Test, arch: str) -> A.Test:
    """`test` in dialect `arch` (itself when it is already): UnsupportedFeature
    when hrf has no translation."""
    if test.arch == arch:
        return test
    fn = TRANSLATIONS.get((test.arch, arch))
    if fn is None:
        raise UnsupportedFeature(f"no translation of {test.arch} tests into {arch}", test.path)
    return fn(test)


def read_as_by(test: A.Test, model) -> tuple[A.Test, str | None]:
    """The test as `model` (anything with `supports(test)`, which raises
    UnsupportedFeature on a test it refuses) reads it, and the dialect it
    was translated into: itself and None where the model takes it, else a
    translation the model takes (the refusal stands where none helps: the
    check reports it)."""
    try:
        model.supports(test)
        return test, None
    except UnsupportedFeature:
        pass
    for (src, dst), fn in TRANSLATIONS.items():
        if src != test.arch:
            continue
        try:
            u = fn(test)
            model.supports(u)
        except UnsupportedFeature:
            continue
        return u, dst
    return test, None


def read_by(test: A.Test, model) -> A.Test:
    """The test as `model` reads it, the same in every verb (check, bulk,
    compare, run, the page): itself where the model takes it, else its
    translation into a dialect the model takes ([GPU15]'s PTX into PTX 6.0
    for ptx-6.0 and ptx-7.5), else the model's own refusal (raised)."""
    u, arch = read_as_by(test, model)
    if arch is None:
        model.supports(test)
    return u


def translation_note(source: A.Test, read: A.Test) -> str | None:
    """The note a result carries where its test was read translated."""
    if read.arch == source.arch:
        return None
    return f"the test read as {read.arch}, translated from {source.arch} (the PTX ISA's meanings: litmus/translate.py)"
