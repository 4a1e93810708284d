"""The enumerator's reductions against the plain reference enumerator.

A load whose value nothing uses (its register is read by no instruction
and not observed) is one path that may read any write of its location,
not a path per value of the location's domain.

Reads of a private location (one thread alone accesses it) read the last
write before them in program order, under models that declare it
(`Model(uniproc=True)`): the fast enumerator gives such a read that value
only. Property: on generated programs with private locations, retry loops
through them (compare-exchange with a private expected object, as C11's
idiom) and shared locations, every built-in model gives the same outcomes,
verdict, race flags and execution counts with and without the reduction
(`reference=True` turns every reduction off)."""

import importlib
import itertools

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import hrf
from hrf.models import get as get_model
from hrf.models import names as model_names
from strategies import hrf_programs
from test_properties import summary

ORDERS = ["memory_order_relaxed", "memory_order_acquire", "memory_order_release", "memory_order_seq_cst"]


@st.composite
def c_ops(draw, i: int, regs: list[str]):
    """One statement of thread i: shared atomics on x, y; its private p{i}."""
    p = f"p{i}"
    o = draw(st.sampled_from(ORDERS))
    k = draw(st.integers(0, 6))
    r = f"r{len(regs)}"
    loc = draw(st.sampled_from(["x", "y"]))
    v = draw(st.integers(1, 2))
    if k == 0:
        return f"atomic_store_explicit({loc}, {v}, {o});", None
    if k == 1:
        return f"int {r} = atomic_load_explicit({loc}, {o});", r
    if k == 2:
        src = draw(st.sampled_from(regs)) if regs and draw(st.booleans()) else str(v)
        return f"*{p} = {src};", None
    if k == 3:
        return f"int {r} = *{p};", r
    if k == 4:
        return f"int {r} = atomic_fetch_add_explicit({loc}, 1, {o});", r
    if k == 5:
        # C11's retry idiom: a failed compare-exchange refreshes *p.
        return (
            f"*{p} = atomic_load_explicit({loc}, {o});\n  while (atomic_compare_exchange_strong_explicit({loc}, {p}, *{p} + 1, {o}, {o}) == 0) {{}}",
            None,
        )
    return f"int {r} = atomic_compare_exchange_strong_explicit({loc}, {p}, {v}, {o}, {o});", r


@st.composite
def c_programs(draw):
    n = draw(st.integers(1, 2))
    threads, observed = [], []
    for i in range(n):
        regs: list[str] = []
        body = []
        for _ in range(draw(st.integers(1, 3))):
            text, reg = draw(c_ops(i, regs))
            body.append(text)
            if reg:
                regs.append(reg)
        params = ", ".join(["atomic_int* x", "atomic_int* y", f"int* p{i}"])
        threads.append(f"P{i} ({params}) {{\n  " + "\n  ".join(body) + "\n}")
        observed += [f"{i}:{r}" for r in regs[:2]]
    init = "; ".join(f"[p{i}] = 0" for i in range(n))
    cond = " /\\ ".join(f"{o}={draw(st.integers(0, 2))}" for o in observed[:2]) or "x=1"
    locs = " ".join(f"p{i};" for i in range(n))
    return (
        f"C gen\n{{ [x] = 0; [y] = 0; {init}; }}\n\n"
        + "\n\n".join(threads)
        + f"\n\nlocations [{locs}]\nexists ({cond})\n"
    )


# The models that declare uniproc: every built-in one.
MODELS = [m for m in model_names() if get_model(m).uniproc]


def test_every_builtin_model_declares_uniproc():
    # Each shipped model's axioms order a thread's own accesses to a
    # location it alone uses: sc and the HRF models by acyclic po|rf|co|fr,
    # C11 and OpenCL by coherence and visible side effects (po within hb),
    # PTX by its SC-per-location axiom (read-read pairs aside, which cannot
    # change what a read of a private location reads), the HRF-relaxed
    # family by its per-location coherence (a thread's pairs are observable).
    # Vulkan's do not: a thread's accesses to one location through two names
    # (`y aliases x`) are not location-ordered (Dat3M's ssw tests); nor
    # PTX 7.5's and 8.0's, which have no SC-per-location axiom: their
    # causality order keeps program order only between generic accesses of
    # one virtual location, not through proxies or aliases.
    assert [m for m in model_names() if not m.startswith(("vulkan", "ptx-7.5", "ptx-8"))] == MODELS


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(c_programs())
def test_private_reads_reduction_equals_reference(text):
    for m in MODELS:
        try:
            slow = hrf.check(text, m, reference=True, max_candidates=150_000, unroll=1)
        except hrf.UnsupportedFeature:
            continue
        assume(slow.complete)
        fast = hrf.check(text, m, unroll=1)
        assert summary(fast) == summary(slow), (m, text)
        assert sorted(fast.flags) == sorted(slow.flags), (m, text)


def test_private_locations_are_found():
    # p0 is P0's alone; x is shared; a location two threads touch is not private.
    text = (
        "C t\n{ }\nP0 (atomic_int* x, int* p0) {\n  *p0 = 1;\n  int r0 = *p0;\n  atomic_store_explicit(x, r0, "
        "memory_order_relaxed);\n}\n\nP1 (atomic_int* x) {\n  int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}"
        "\n\nexists (1:r1=1)\n"
    )
    fast, slow = hrf.check(text, "c11"), hrf.check(text, "c11", reference=True)
    # Hand derivation: P0's read of p0 reads its write of 1 (the only write
    # before it; init would be overwritten), so x gets 1 and P1 may read it
    # or the initial 0: two outcomes, one consistent execution each.
    assert [o["1:r1"] for o in fast.outcomes] == [0, 1] == [o["1:r1"] for o in slow.outcomes]
    assert fast.consistent == slow.consistent == 2
    assert fast.candidates < slow.candidates  # the read of p0 took one value, not both


def test_tsan_retry_loops_decided():
    # Dat3M's manual/TSan (C11): two threads each retry a compare-exchange
    # whose expected object is private. It once listed more than 100,000
    # paths for one thread and stopped with no verdict. Hand derivation of
    # the verdict: P0 reads x=2 and then x=0 only if a write of 0 is
    # mo-after P2's store of 2; the only writes of 0 are compare-exchanges
    # that succeed on 0, and an RMW is mo-adjacent to the write it reads
    # (the initial write or another such one, all mo-before P2's store, which
    # is po-after P2's compare-exchange): so no write of 0 follows the
    # store of 2 and CoRR forbids the outcome: Never.
    text = """C TSan
{}
P0 (atomic_int* x) {
  int r0 = atomic_load_explicit(x, memory_order_relaxed);
  int r1 = atomic_load_explicit(x, memory_order_relaxed);
}
P1 (atomic_int* x, int* y) {
  *y = atomic_load_explicit(x, memory_order_relaxed);
  while(atomic_compare_exchange_strong_explicit(x, y, *y, memory_order_relaxed, memory_order_relaxed) == 0) {}
  atomic_store_explicit(x, 1, memory_order_relaxed);
}
P2 (atomic_int* x, int* a) {
  *a = atomic_load_explicit(x, memory_order_relaxed);
  while(atomic_compare_exchange_strong_explicit(x, a, *a, memory_order_relaxed, memory_order_relaxed) == 0) {}
  atomic_store_explicit(x, 2, memory_order_relaxed);
}
exists (0:r0=2 /\\ 0:r1=0)
"""
    r = hrf.check(text, "c11", unroll=1)
    assert r.complete and r.limit is None
    assert r.observation[0] == "Never" and r.condition_holds is False


PRIVATE_READ = {
    "c11": "C t\n{ }\nP0 (int* p0) {\n  *p0 = 1;\n  *p0 = 2;\n  int r0 = *p0;\n}\n\nexists (0:r0=2)\n",
    "opencl": "OpenCL t\n{ }\nP0@wg 0, dev 0 (global int* p0) {\n  *p0 = 1;\n  *p0 = 2;\n  int r0 = *p0;\n}\n"
    "\nexists (0:r0=2)\n",
}


@pytest.mark.parametrize("model", PRIVATE_READ)
def test_reference_ignores_uniproc(model):
    # The reference enumerator gives a private read every value of its
    # location's domain: more candidates on a test with private reads.
    text = PRIVATE_READ[model]
    fast, slow = hrf.check(text, model), hrf.check(text, model, reference=True)
    assert fast.outcomes == slow.outcomes == [{"0:r0": 2}]
    assert fast.candidates < slow.candidates


def test_opencl_uniproc_only_in_regions():
    # OpenCL's happens-before holds po only within the global and local
    # regions ([BDW16]); a C test's locations have neither, so nothing orders
    # a thread's own accesses there and the model allows reading a
    # overwritten value. The reduction must not apply (as the model says).
    text = PRIVATE_READ["c11"]
    fast, slow = hrf.check(text, "opencl"), hrf.check(text, "opencl", reference=True)
    assert fast.outcomes == slow.outcomes == [{"0:r0": v} for v in (0, 1, 2)]


THREE_READS = """C t
{ [x] = 0; }
P0 (atomic_int* x) {
  atomic_store_explicit(x, 1, memory_order_relaxed);
  atomic_store_explicit(x, 2, memory_order_relaxed);
}
P1 (atomic_int* x) {
  int r0 = atomic_load_explicit(x, memory_order_relaxed);
  int r1 = atomic_load_explicit(x, memory_order_relaxed);
  int r2 = atomic_load_explicit(x, memory_order_relaxed);
}
exists (1:r0=2)
"""


def test_value_free_loads_read_any_write():
    # r1 and r2 are neither observed nor used: each is one path reading
    # any write of x. Hand derivation under C11: co of x is 0, 1, 2 (init
    # first, then P0's stores in po order); by CoRR P1's three reads read
    # non-decreasing positions of it, C(5, 3) = 10 executions, and r0 takes
    # each of the three values.
    fast, slow = hrf.check(THREE_READS, "c11", keep_all=True), hrf.check(THREE_READS, "c11", reference=True)
    assert fast.outcomes == slow.outcomes == [{"1:r0": v} for v in (0, 1, 2)]
    assert fast.consistent == slow.consistent == 10
    assert fast.candidates < slow.candidates  # 10 against 54: r1, r2 no longer split by value
    # Each read of a kept execution shows the value of the write it reads.
    for e in fast.executions:
        _reads_show_their_writes(e)


def _reads_show_their_writes(e):
    value = {ev["id"]: ev["value"] for ev in e["events"]}
    kind = {ev["id"]: ev["kind"] for ev in e["events"]}
    read_from = {r: w for w, r in e["rf"]}
    for i, k in kind.items():
        if k == "R":
            assert value[i] == value[read_from[i]], e


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.one_of(c_programs(), hrf_programs().map(hrf.to_litmus)))
def test_value_free_loads_show_the_value_they_read(text):
    # hrf_programs observes r0 only (loads into r1 are value-free);
    # c_programs observes two registers per thread at most.
    for m in ("c11", "sc", "hrf-indirect"):
        try:
            r = hrf.check(text, m, keep_all=True, max_candidates=100_000, unroll=1)
        except hrf.UnsupportedFeature:
            continue
        for e in r.executions:
            _reads_show_their_writes(e)


# Lower bounds: a consistency check that reads co through a difference (the
# immediate pairs of an order: Vulkan's release sequences, imm(asmo)) cannot
# prune a partial co as it is; the core adds the same check on a lower bound
# of its relation, which can (rust/src/model.rs, lower_bounds). It prunes
# only: the candidates judged and their verdicts are the reference's.
EXCHANGE_LOOPS = """VULKAN exchange-loops
"two threads swap a flag in exchange loops while a third stores 2"
{
f=0;
P0:r0=0;
P1:r1=0;
}
P0@sg 0,wg 0, qf 0        | P1@sg 0,wg 1, qf 0        | P2@sg 0,wg 1, qf 0  ;
LC00:                     | LC10:                     | st.atom.dv.sc0 f, 2 ;
rmw.atom.wg.sc0 r0, f, 1  | rmw.atom.dv.sc0 r1, f, 0  |                     ;
bne r0, 0, LC01           | beq r1, 2, LC11           |                     ;
goto LC00                 | goto LC10                 |                     ;
LC01:                     | LC11:                     |                     ;
exists (P0:r0=2)
"""


@pytest.mark.parametrize("model", ["vulkan", "vulkan-nochains"])
def test_lower_bounds_prune_exchange_loops_as_the_reference_judges(model):
    slow = hrf.check(EXCHANGE_LOOPS, model, reference=True, unroll=1)
    fast = hrf.check(EXCHANGE_LOOPS, model, unroll=1)
    assert slow.complete and fast.complete
    assert summary(fast) == summary(slow)
    assert sorted(fast.flags) == sorted(slow.flags)
    assert fast.consistent == slow.consistent > 0
    # every co of the eight writes that places P0's or P1's writes against
    # their program order is pruned before its reads are chosen
    assert fast.candidates < slow.candidates / 10


@pytest.mark.parametrize(
    "dialect,models,scopes",
    [("vulkan", ("vulkan", "vulkan-nochains"), ("wg", "dev")), ("ptx", ("ptx-6.0", "ptx-7.5"), ("cta", "gpu"))],
)
def test_lower_bounds_keep_generated_verdicts(dialect, models, scopes):
    tests = importlib.import_module("hrf.generate").generate(
        count=60, seed=3, max_edges=4, dialect=dialect, orders=("na", "rlx", "acq", "rel"), scopes=scopes
    )
    compared = 0
    for t in tests:
        for m in models:
            slow = hrf.check(t, m, reference=True, max_candidates=200_000)
            if not slow.complete:
                continue
            fast = hrf.check(t, m)
            assert summary(fast) == summary(slow), (m, t.name)
            compared += 1
    assert compared >= 100


# ---------------------------------------------------------------- RMW chains
# Where one thread's RMWs that a model makes atomic (`Model(rmw_chains=...)`)
# are a location's only writes, each path of that thread must have its RMWs
# of it form one chain from the initial value; the others have no consistent
# execution and are dropped. ptx-8.0 declares it for mbarrier operations.
MBAR_OPS = (
    "mbarrier.arrive.release.cta.shared::cta.b64 _, [b]",
    "mbarrier.arrive.relaxed.cta.shared::cta.b64 _, [b]",
    "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [b], 16",
    "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [b], 16",
    "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [b], 16",
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [d], [g], 16, [b]",
    "st.weak x, 1",
)


@st.composite
def mbarrier_programs(draw):
    """P0 updates the mbarrier b (alone, or P1 arrives too), P1 waits on a
    parity, once or in a loop, and reads x or the copy's destination d."""
    p0 = draw(st.lists(st.sampled_from(MBAR_OPS), min_size=1, max_size=3))
    p1 = []
    for k in range(draw(st.integers(1, 2))):
        wait = f"mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 r{k}, [b], {draw(st.integers(0, 1))}"
        p1 += (
            [f"LC1{k}:", wait.replace("test_wait", "try_wait"), f"bne r{k}, 1, LC1{k}"]
            if draw(st.booleans())
            else [wait]
        )
    if draw(st.booleans()):
        p1.append("mbarrier.arrive.release.cta.shared::cta.b64 _, [b]")
    p1.append(f"ld{draw(st.sampled_from(['.weak r5, x', '.shared::cta.weak r5, [d]']))}")
    rows = [f" {a} | {b} ;" for a, b in itertools.zip_longest(p0, p1, fillvalue="")]
    cond = f"P1:r0 == {draw(st.integers(0, 1))} /\\ P1:r5 == {draw(st.integers(0, 1))}"
    return (
        f"PTX gen\n{{\nx=0; g=1;\nd @ shared P1 = 0;\nb @ mbarrier P1 = {draw(st.integers(1, 2))};\n"
        "P1:r0=0; P1:r1=0; P1:r5=0;\n}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n"
        + "\n".join(rows)
        + f"\nexists\n({cond})\n"
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(mbarrier_programs())
def test_rmw_chains_keep_the_references_executions(text):
    try:
        slow = hrf.check(text, "ptx-8.0", reference=True, max_candidates=100_000)
    except hrf.HrfError:
        assume(False)  # a form refused by name (too many bytes expected, say)
        return
    assume(slow.complete)
    fast = hrf.check(text, "ptx-8.0")
    assert summary(fast) == summary(slow), text
    assert sorted(f["kind"] for f in fast.flags) == sorted(f["kind"] for f in slow.flags), text


def test_rmw_chains_drop_paths_only_where_declared():
    """The ISA's family with the reduction and without it (the same model,
    undeclared): the same outcomes, executions, flags and verdict; the
    refilled rings (tma-ring*, wgmma-ring*, tma-multicast-ring*) end only with it
    (each of the producer's four updates of full branching over the object's values
    otherwise)."""
    from pathlib import Path

    import tomllib

    from hrf.models import ptx_8_0

    plain = ptx_8_0.build()
    plain.rmw_chains, plain.name = (), "ptx-8.0-unchained"
    family = Path(__file__).resolve().parent.parent / "litmus" / "ptx8"
    entries = tomllib.loads((family / "manifest.toml").read_text())["test"]
    for e in entries:
        path, limits = str(family / e["file"]), e.get("limits", {})
        fast = hrf.check(path, "ptx-8.0", **limits)
        if e["file"].startswith(("tma-ring", "wgmma-ring", "tma-multicast-ring")):
            assert fast.complete
            stopped = hrf.check(path, plain, **limits)
            assert not stopped.complete and stopped.limit["which"] == "paths"
            continue
        assert summary(fast) == summary(hrf.check(path, plain, **limits)), e["file"]


def test_rmw_chain_order_keeps_the_executions():
    """ptx-8.0 declares that program order puts a thread's mbarrier updates
    in coherence order (but after an asynchronous complete-tx or a cp.async
    arrive-on, and before such an arrive-on): the orders of a thread's
    updates that break it are dropped as paths are listed. The ISA's family
    with the declaration and without it (chains alone): the same outcomes,
    executions, flags and verdicts."""
    from pathlib import Path

    import tomllib

    from hrf.models import ptx_8_0

    unordered = ptx_8_0.build()
    unordered.rmw_chain_order, unordered.name = None, "ptx-8.0-chains-unordered"
    family = Path(__file__).resolve().parent.parent / "litmus" / "ptx8"
    for e in tomllib.loads((family / "manifest.toml").read_text())["test"]:
        path, limits = str(family / e["file"]), e.get("limits", {})
        ordered, plain = hrf.check(path, "ptx-8.0", **limits), hrf.check(path, unordered, **limits)
        assert ordered.complete and plain.complete, e["file"]
        assert summary(ordered) == summary(plain), e["file"]
        assert sorted(f["kind"] for f in ordered.flags) == sorted(f["kind"] for f in plain.flags), e["file"]


# An mbarrier of count 2 that two threads arrive on (P0 after its store, P1
# before its wait): no one thread's chain, so its updates' values are
# computed from the rf of their reads (`Program::computed_locations`).
TWO_ARRIVALS = """PTX MP+mbar-two-arrivals{name}
"Two threads arrive on one mbarrier of count 2: P0 after its store, P1 before its wait"
{{
x=0;
b @ mbarrier P1 = 2;
P1:r0=0; P1:r1=0;
}}
 P0@cta 0,gpu 0                               | P1@cta 0,gpu 0                                                  ;
 st.weak x, 1                                 | mbarrier.arrive.{sem}.cta.shared::cta.b64 _, [b]              ;
 mbarrier.arrive.{sem}.cta.shared::cta.b64 _, [b] | LC10:                                                         ;
                                              | mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 r0, [b], 0 ;
                                              | bne r0, 1, LC10                                                 ;
                                              | ld.weak r1, x                                                   ;
exists
(P1:r1 == 0)
"""


@pytest.mark.parametrize("sem", ["release", "relaxed"])
def test_an_mbarrier_two_threads_update_keeps_the_references_executions(sem, tmp_path):
    """By hand: the wait returns true once both arrives are applied; the
    update that completes the phase is P0's, or P1's reading P0's (an RMW
    of the same object: observation). With release arrives, P0's release
    then reaches the wait's acquire either way, so ld x reads 1: r1 = 0
    forbidden. With relaxed arrives nothing releases the store: allowed.
    The reference guesses every value of b; the two agree."""
    path = tmp_path / f"two-arrivals-{sem}.litmus"
    path.write_text(TWO_ARRIVALS.format(name="" if sem == "release" else "-relaxed", sem=sem))
    fast = hrf.check(str(path), "ptx-8.0")
    slow = hrf.check(str(path), "ptx-8.0", reference=True)
    assert fast.complete and slow.complete
    assert summary(fast) == summary(slow)
    assert fast.condition_holds is (sem == "relaxed")
    assert fast.candidates < slow.candidates
