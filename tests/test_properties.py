"""Properties over small generated programs (hypothesis):
- the pruning enumerator and the slow reference enumerator agree;
- race-free under hrf-direct implies race-free under hrf-indirect ([HRF14]:
  hhb.d is contained in hhb.i);
- a program race-free under an HRF model has exactly its SC outcomes
  (SC for HRF)."""

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import hrf
from strategies import hrf_programs

MODELS = ["sc", "hrf-direct", "hrf-indirect"]
SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)


def summary(r):
    return (
        sorted(tuple(sorted(o.items())) for o in r.outcomes),
        r.consistent,
        r.observation,
        r.racy,
        r.flagged_executions,
        r.condition_holds,
    )


@SETTINGS
@given(hrf_programs())
def test_fast_enumerator_equals_reference(t):
    for m in MODELS:
        slow = hrf.check(t, m, reference=True, max_candidates=200_000)
        assume(slow.complete)  # the unpruned reference must finish to compare
        fast = hrf.check(t, m)
        assert summary(fast) == summary(slow), (m, hrf.to_litmus(t))
        assert fast.candidates <= slow.candidates


@SETTINGS
@given(hrf_programs())
def test_direct_race_free_implies_indirect_race_free(t):
    d = hrf.check(t, "hrf-direct")
    i = hrf.check(t, "hrf-indirect")
    if not d.racy:
        assert not i.racy, hrf.to_litmus(t)


@SETTINGS
@given(hrf_programs())
def test_race_free_programs_are_sc(t):
    sc = hrf.check(t, "sc")
    for m in ("hrf-direct", "hrf-indirect"):
        r = hrf.check(t, m)
        if not r.racy:
            assert r.outcomes == sc.outcomes and r.condition_holds == sc.condition_holds


# ---------------------------------------------------------------- families that once hid a bug
# Atomic-free programs and programs whose atomics all share one scope
# instance: there hhb.d = hhb.i ([HRF14] sidebars: with one scope instance S,
# U_S (po | so_S)+ = (po | so)+; with no atomics both are po), so hrf-direct
# and hrf-indirect must agree exactly. hrf-direct once lost po when no event
# had a scope instance (tests/test_models_audit.py), which this catches.
def one_scope_instance(t) -> bool:
    """Do all atomics of the test share one scope instance (same scope and,
    for wg/dev, the same work-group or device)?"""
    from hrf.litmus import ast as A

    where = set()
    for th in t.threads:
        for op in A.memory_ops(th.body):
            if getattr(op, "atomic", False) or isinstance(op, A.Rmw):
                s = op.scope or "dev"
                where.add((s, th.dev if s in ("dev", "wg") else None, th.wg if s == "wg" else None))
    return len(where) <= 1


@SETTINGS
@given(st.one_of(hrf_programs(atomics=False, min_threads=1), hrf_programs(single_scope=True)))
def test_direct_equals_indirect_with_at_most_one_scope_instance(t):
    assume(one_scope_instance(t))
    d, i = hrf.check(t, "hrf-direct"), hrf.check(t, "hrf-indirect")
    assert (d.racy, d.outcomes, d.condition_holds) == (i.racy, i.outcomes, i.condition_holds), hrf.to_litmus(t)


@SETTINGS
@given(hrf_programs(atomics=False, min_threads=1))
def test_one_thread_without_atomics_is_race_free_everywhere(t):
    # program order orders every pair of one thread's accesses
    assume(len(t.threads) == 1)
    for m in ("hrf-direct", "hrf-indirect", "hrf-direct-relaxed", "hrf-indirect-relaxed", "opencl", "c11"):
        assert hrf.check(t, m).racy is False, (m, hrf.to_litmus(t))


FAMILIES = {
    "atomic-free": dict(orders=("na",)),
    "device scope only": dict(scopes=("dev",)),
    "work-group scope only": dict(scopes=("wg",)),
}


@pytest.mark.parametrize("family", FAMILIES)
def test_model_lattice_on_generated_families(family):
    # On each family: race-free under hrf-direct => race-free under
    # hrf-indirect => the outcomes of sc; and on a test a weaker model calls
    # race-free, every sc outcome is among its outcomes.
    tests = hrf.generate(count=120, seed=11, max_edges=4, **FAMILIES[family])
    weaker = ["hrf-direct-relaxed", "hrf-indirect-relaxed", "opencl"]
    for t in tests:
        sc, d, i = (hrf.check(t, m) for m in ("sc", "hrf-direct", "hrf-indirect"))
        if d.racy is False:
            assert i.racy is False, hrf.to_litmus(t)
        if i.racy is False:
            assert i.outcomes == sc.outcomes, hrf.to_litmus(t)
        for m in weaker:
            r = hrf.check(t, m)
            if r.racy is False:
                assert all(o in r.outcomes for o in sc.outcomes), (m, hrf.to_litmus(t))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(hrf_programs(orders=("rlx", "acq", "rel", "acq_rel", "sc")))
def test_industrial_models_fast_equals_reference(t):
    # The pruning enumerator against the unpruned reference under the
    # scoped C11 models, with every memory order (release sequences make
    # their happens-before non-monotone: pruning must use only the
    # monotone axioms).
    for m in ("opencl", "opencl-rsp", "c11"):
        slow = hrf.check(t, m, reference=True, max_candidates=200_000)
        assume(slow.complete)
        fast = hrf.check(t, m)
        assert summary(fast) == summary(slow), (m, hrf.to_litmus(t))


def test_thin_air_guessing_changes_nothing_under_models_that_forbid_it():
    # sc, hrf-direct and hrf-indirect (acyclic po | rf | co | fr) and ptx
    # (its no-thin-air axiom over addr | data | ctrl) forbid every thin-air
    # cycle: guessing values changes no verdict and no outcome. The models
    # whose axioms admit thin air (c11, opencl, the HRF-relaxed family) do
    # differ on this family (load buffering through dependencies).
    tests = hrf.generate(count=200, seed=4, max_edges=4, orders=("na", "rlx", "acq", "rel", "sc"))
    for m in ("sc", "hrf-direct", "hrf-indirect", "ptx"):
        for t in tests:
            try:
                a = hrf.check(t, m, thin_air=False)
            except hrf.UnsupportedFeature:
                continue
            b = hrf.check(t, m, thin_air=True)
            assert (a.condition_holds, a.racy, a.outcomes) == (b.condition_holds, b.racy, b.outcomes), (m, t.name)
    assert any(hrf.check(t, "c11", thin_air=False).outcomes != hrf.check(t, "c11").outcomes for t in tests)
