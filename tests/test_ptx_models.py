"""The built-in PTX models `ptx-6.0` ([PTX19]) and `ptx-7.5` ([PTX22]) on
shipped and small tests, with verdicts derived by hand next to each test.
Their agreement with Dartagnan's cat files and verdicts on Dat3M's whole
PTX suites is in tests/conformance/test_dat3m_reference.py."""

from pathlib import Path

import pytest

import hrf

PTX7 = Path(hrf.__file__).parent / "corpus" / "ptx7"
MODELS = ["ptx-6.0", "ptx-7.5"]


@pytest.mark.parametrize("model", MODELS)
def test_message_passing_synchronises_only_within_scope(model):
    # MP+rel-acq-gpu: st.release.gpu y and ld.acquire.gpu y are strong, each
    # in the other's GPU scope, so morally strong; the acquire reading the
    # release is sync, so the data write is in cause before the data read,
    # and that read taking the initial value puts it fr-before the write:
    # (fr; cause) is reflexive, Causality forbids r0=1, r1=0.
    assert hrf.check(PTX7 / "MP+rel-acq-gpu.litmus", model).condition_holds is False
    # MP+rel-acq-cta: the same with CTA scope across two CTAs: neither
    # thread is in the other's scope, no sync, nothing orders the data
    r = hrf.check(PTX7 / "MP+rel-acq-cta.litmus", model)
    assert r.condition_holds is True and r.complete


@pytest.mark.parametrize("model", MODELS)
def test_a_spinning_consumer_reads_the_data(model):
    # SpinMP: every iteration that leaves the loop read 1 by an acquire
    # from the release: sync, so the data read must see 42 (Causality as above)
    r = hrf.check(PTX7 / "SpinMP.litmus", model)
    assert r.condition_holds is True


def proxy_test(fence: str) -> str:
    rows = "\n".join(f" {row} ;" for row in ["st.weak x, 1", *([fence] if fence else []), "tld.weak r0, x"])
    return f"PTX proxy\n{{\nx=0;\nP0:r0=0;\n}}\n P0@cta 0,gpu 0 ;\n{rows}\nexists (P0:r0 == 0)\n"


def test_a_texture_read_sees_a_generic_write_only_after_a_proxy_fence():
    # One thread writes x through the generic proxy, then reads it through
    # the texture proxy. Without a fence no proxy-preserved causality order
    # relates them (different proxies, no proxy fence): the read may take
    # the initial value. With fence.proxy.texture between them, the write
    # reaches the fence in po and the fence reaches the read in po within
    # the read's proxy and CTA ([GEN]; cause-base; cause-base & proxy-fence-ops),
    # on the same virtual location: write cause-before read, and the read
    # taking 0 would be fr-before the write: Causality forbids it.
    assert hrf.check(proxy_test(""), "ptx-7.5").condition_holds is True
    assert hrf.check(proxy_test("fence.proxy.texture"), "ptx-7.5").condition_holds is False


def test_ptx_6_0_refuses_what_7_5_added_by_name():
    with pytest.raises(hrf.UnsupportedFeature, match="generic proxy alone, not TEX: use ptx-7.5"):
        hrf.check(proxy_test(""), "ptx-6.0")
    aliased = proxy_test("").replace("x=0;", "x=0; y @ generic aliases x;")
    with pytest.raises(hrf.UnsupportedFeature, match="no aliases"):
        hrf.check(aliased, "ptx-6.0")


@pytest.mark.parametrize("model", MODELS)
def test_other_dialects_are_refused_by_name(model):
    with pytest.raises(hrf.UnsupportedFeature, match="reads Dat3M's PTX tests"):
        hrf.check(Path(hrf.__file__).parent / "corpus" / "vulkan" / "MP-avvis-dv.litmus", model)


GPU15 = Path(hrf.__file__).parent / "corpus" / "gpu15"


def test_gpu15_ptx_translates_with_the_ptx_6_0_meanings():
    from hrf.litmus import ast as A
    from hrf.litmus.translate import gpu15_to_ptx, translate

    t = hrf.parse(GPU15 / "dlb-mp.litmus")  # ld.cg, ld/st.volatile, a predicated load
    u = gpu15_to_ptx(t)
    assert u.arch == "PTX" and [th.wg for th in u.threads] == [th.wg for th in t.threads]
    ops = [op for th in u.threads for op in th.ops]
    plain = [op for op in ops if op.loc == "d"]  # st.cg / ld.cg: weak
    volatile = [op for op in ops if op.loc == "t"]  # ld/st.volatile: relaxed, system scope
    assert all(not op.atomic and op.cache is None and op.tags == ("GEN",) for op in plain)
    assert all(op.atomic and (op.order, op.scope) == ("rlx", "all") for op in volatile)
    fenced = gpu15_to_ptx(hrf.parse(GPU15 / "mp-L1+membar.gl.litmus"))  # membar.gl: fence.sc.gpu
    fences = [op for th in fenced.threads for op in th.ops if isinstance(op, A.Fence)]
    assert [(f.order, f.scope) for f in fences] == [("sc", "dev"), ("sc", "dev")]
    rmws = [op for th in gpu15_to_ptx(hrf.parse(GPU15 / "dlb-lb.litmus")).threads for op in th.ops]
    assert {(op.order, op.scope) for op in rmws if isinstance(op, A.Rmw)} == {("rlx", "dev")}  # atom: relaxed, gpu
    assert translate(u, "PTX") is u
    with pytest.raises(hrf.UnsupportedFeature, match="no translation of PTX tests into VULKAN"):
        translate(u, "VULKAN")


# [GPU15]'s hardware observations (each file's comment: the figure and the
# weak outcomes per 100,000 runs), as PTX 6.0 judges them. Derived by hand:
# every access of these tests is weak (.cg/.ca) or relaxed (.volatile), so
# without fences nothing synchronises and every weak outcome is allowed.
# With fence.sc on both sides of mp-L1 (membar.gl, .sys: each thread in the
# other's scope), the fence-SC order puts one fence first: writer's first
# gives the data write cause-before the data read, which read 0 (fr;cause
# reflexive); reader's first gives the flag read cause-before the flag
# write it read (rf;cause reflexive): forbidden either way. membar.cta
# across two CTAs: neither fence is in the other's scope, allowed. coRR-L2-L1
# with a fence between the reads: the reads take a weak write, so no
# morally strong rf or fr relates them and SC-per-location has no cycle.
OBSERVED = [
    *("coRR-intra", "mp-volatile", "dlb-mp", "dlb-lb", "cas-sl", "sl-future", "lb-inter", "mp-inter", "lb+membar.ctas"),
    *(f"{t}{f}" for t in ("mp-L1", "coRR-L2-L1") for f in ("", "+membar.cta", "+membar.gl", "+membar.sys")),
]
FORBIDDEN_BY_PTX_6_0 = {"mp-L1+membar.gl", "mp-L1+membar.sys"}


@pytest.mark.parametrize("name", OBSERVED)
def test_which_gpu15_observations_ptx_6_0_allows(name):
    from hrf.litmus.translate import gpu15_to_ptx

    r = hrf.check(gpu15_to_ptx(hrf.parse(GPU15 / f"{name}.litmus")), "ptx-6.0")
    assert r.complete and r.condition_holds is (name not in FORBIDDEN_BY_PTX_6_0)


def test_compare_reads_gpu15_tests_translated_for_ptx_6_0():
    # [GPU15]'s model and PTX 6.0 differ on coRR-L2-L1 with a fence between
    # the reads alone: the 2015 model's rmo-cta has rfe; fence; fr as a
    # cycle within the CTA (its fragment assumes .cg; the second read is
    # .ca), PTX 6.0 orders weak reads of a weak write by nothing (above).
    from hrf.compare import compare

    diffs = compare(sorted(GPU15.glob("*.litmus")), "ptx", "ptx-6.0")
    assert diffs.established and diffs.compared == len(list(GPU15.glob("*.litmus")))
    assert sorted(d.test.name for d in diffs) == [f"coRR-L2-L1+membar.{s}" for s in ("cta", "gl", "sys")]
    assert all(d.a.condition_holds is False and d.b.condition_holds is True for d in diffs)
    assert {m for _, m, _ in diffs.translated} == {"ptx-6.0"} and len(diffs.translated) == diffs.compared
    assert "read by ptx-6.0 translated into PTX" in diffs.summary("ptx", "ptx-6.0")


# ---- where the PTX ISA and [PTX19] decide against Dartagnan's reading
ISA_MODELS = ["ptx-6.0", "ptx-7.5"]
DAT3M_MODELS = ["ptx-6.0-dat3m", "ptx-7.5-dat3m"]


def mp_fences(f0: str, f1: str) -> str:
    return (
        "PTX MP+fences\n{\nx=0; y=0;\nP1:r0=0; P1:r1=0;\n}\n"
        " P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
        " st.weak x, 1 | ld.relaxed.gpu r0, y ;\n"
        f" fence.{f0}.gpu | fence.{f1}.gpu ;\n"
        " st.relaxed.gpu y, 1 | ld.weak r1, x ;\n"
        "exists (P1:r0 == 1 /\\ P1:r1 == 0)\n"
    )


@pytest.mark.parametrize("model", ISA_MODELS)
@pytest.mark.parametrize("f0,f1", [("acq_rel", "acq_rel"), ("sc", "acq_rel"), ("acq_rel", "sc"), ("sc", "sc")])
def test_fence_sc_is_also_a_release_and_an_acquire_fence(model, f0, f1):
    # [PTX19]'s Alloy model declares FenceSC a FenceAcqRel ([PTX22]'s
    # release and acquire fences are FenceAcqRel + FenceSC), and the ISA's
    # release pattern is "a release fence followed by a strong write": so
    # with fence.sc or fence.acq_rel on either side, P0's fence, po, the
    # strong write of y, observed by P1's strong read (morally strong: both
    # .gpu, both CTAs in GPU 0), po, P1's fence is sync; the write of x is
    # in cause before the read of x, and that read taking 0 would be fr
    # before the write: (fr; cause) reflexive, Causality forbids it.
    # Strengthening a fence (acq_rel -> sc, always valid: the atomics ABI)
    # keeps the outcome forbidden.
    r = hrf.check(mp_fences(f0, f1), model)
    assert r.complete and r.condition_holds is False


@pytest.mark.parametrize("model", DAT3M_MODELS)
def test_dartagnans_reading_of_fence_sc_is_not_monotonic(model):
    # Dartagnan's front end tags fence.sc SC alone: with one side fence.sc,
    # neither pattern forms (no FenceAcqRel there), and one fence.sc alone
    # synchronises with no other fence.sc: the outcome is allowed, though
    # fence.acq_rel on both sides forbids it (as does fence.sc on both:
    # the two SC fences are ordered by sync_fence one way or the other)
    assert hrf.check(mp_fences("acq_rel", "acq_rel"), model).condition_holds is False
    assert hrf.check(mp_fences("sc", "acq_rel"), model).condition_holds is True
    assert hrf.check(mp_fences("acq_rel", "sc"), model).condition_holds is True
    assert hrf.check(mp_fences("sc", "sc"), model).condition_holds is False


MP_RED = """PTX MP+rel+red-fence
{
x=0; y=0;
P1:r1=0;
}
 P0@cta 0,gpu 0         | P1@cta 1,gpu 0            ;
 st.weak x, 1           | red.relaxed.gpu.add y, 1  ;
 st.release.gpu y, 1    | fence.acq_rel.gpu         ;
                        | ld.weak r1, x             ;
exists (y == 2 /\\ P1:r1 == 0)
"""


def test_a_reduction_begins_no_acquire_pattern():
    # The ISA's operation types: a read is "ld and atom, but not red". y == 2
    # says the red read-modify-wrote after the release store (its read half
    # took 1, observation from a morally strong release), but the acquire
    # pattern needs a strong *read* before the fence: none, so no sync, and
    # nothing orders P0's x=1 before P1's read of x, which may take 0.
    for model in ISA_MODELS:
        r = hrf.check(MP_RED, model)
        assert r.complete and r.condition_holds is True, model
    # Dartagnan reads red as a read: release pattern, observation, acquire
    # pattern (red; po; fence.acq_rel): sync, and Causality forbids r1 = 0
    for model in DAT3M_MODELS:
        assert hrf.check(MP_RED, model).condition_holds is False, model


@pytest.mark.parametrize("order", ["acquire", "acq_rel"])
def test_red_acquire_is_not_ptx(order):
    text = MP_RED.replace("red.relaxed", f"red.{order}")
    for model in ISA_MODELS:
        with pytest.raises(
            hrf.UnsupportedFeature, match=rf"P1: red\.{order} is not PTX .* {model}-dat3m reads it"
        ) as e:
            hrf.check(text, model)
        assert e.value.line == 7  # the red's line
    hrf.check(text, "ptx-6.0-dat3m")  # Dartagnan's reading takes it


CAS_FAILS = """PTX cas-fails
{
x=0;
P1:r0=0;
}
 P0@cta 0,gpu 0  | P1@cta 0,gpu 0                    ;
 st.weak x, 1    | atom.relaxed.gpu.cas r0, x, 5, 6  ;
exists (x == 0)
"""


def test_a_failing_atom_cas_writes_nothing():
    # The ISA: atom.cas leaves memory unchanged when the compare fails, and
    # only atomic operations "that result in a write" are writes. x never
    # holds 5, so the CAS fails and writes nothing: the writes of x are the
    # initial one and P0's, co puts the initial write first, and x ends 1.
    for model in ISA_MODELS:
        r = hrf.check(CAS_FAILS, model)
        assert r.complete and r.condition_holds is False, model
    # Dartagnan's reading writes the old value (0) back: the weak store and
    # the CAS's write are not morally strong, so co need not order them
    # (Coherence2) and atomicity holds them to nothing; the write-back may
    # be co-last and x end 0
    for model in DAT3M_MODELS:
        assert hrf.check(CAS_FAILS, model).condition_holds is True, model


def test_cat_files_tag_fence_sc_acq_rel_unless_read_as_dartagnan(tmp_path):
    # a PTX cat file whose one axiom says no fence is in ACQ_REL: over the
    # ISA's tags a fence.sc is (no execution of MP with one is consistent,
    # so no outcome); over Dartagnan's it is SC alone (every MP outcome)
    import hrf.cat

    path = tmp_path / "acq-rel-fences.cat"
    path.write_text("PTX acq-rel-fences\nempty (F & ACQ_REL) as no-acq-rel-fence\n")
    both_sc = mp_fences("sc", "sc")
    assert hrf.check(both_sc, hrf.cat.load(path)).outcomes == []
    assert len(hrf.check(both_sc, hrf.cat.load(path, reading="dartagnan")).outcomes) == 4
    with pytest.raises(hrf.InvalidArgument, match="reading must be one of isa, dartagnan"):
        hrf.cat.load(path, reading="herd")


FENCE_SC_CTA_AFTER = """PTX MP+fence.sc.gpus+fence.sc.cta
{
x=0; y=0;
P1:r0=0; P1:r1=0;
}
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0        ;
 st.weak x, 1         | ld.relaxed.gpu r0, y  ;
 fence.sc.gpu         | fence.sc.gpu          ;
 st.relaxed.gpu y, 1  | ld.weak r1, x         ;
                      | fence.sc.cta          ;
exists (P1:r0 == 1 /\\ P1:r1 == 1)
"""


def test_fence_sc_orders_morally_strong_fences_alone():
    # Message passing's expected outcome (the flag read 1, then the data 1),
    # with a fence.sc.cta at the end of P1. P0's fence.sc.gpu synchronises
    # with P1's (release and acquire patterns, morally strong), and P1's
    # fence.sc.cta follows in program order: P0's fence is in causality
    # order before the CTA fence. The two are not morally strong (the CTA
    # fence's scope leaves P0 out), so no Fence-SC order relates them, and
    # [PTXISA]'s Fence-SC axiom, which speaks of morally strong pairs,
    # asks nothing of them: the outcome is allowed (as without the last fence).
    for model in ISA_MODELS:
        r = hrf.check(FENCE_SC_CTA_AFTER, model)
        assert r.complete and r.condition_holds is True, model
        # the reference enumerator (no reductions) agrees
        assert hrf.check(FENCE_SC_CTA_AFTER, model, reference=True).condition_holds is True
    # Dat3M's ptx-v6.0.cat asks it of every pair of SC fences in causality
    # order (`empty ([F & SC]; cause; [F & SC]) \ sync_fence`), which no
    # Fence-SC order can hold here: every execution reading the flag is
    # forbidden, and a fence at the end of a thread forbids what it saw
    assert hrf.check(FENCE_SC_CTA_AFTER, "ptx-6.0-dat3m").condition_holds is False
    # (ptx-v7.5.cat states its cause with the proxies: P1's fence.sc.cta is
    # not in its proxy-preserved causality order after P0's fence, so the
    # file's 7.5 gives the outcome)
    assert hrf.check(FENCE_SC_CTA_AFTER, "ptx-7.5-dat3m").condition_holds is True


def test_sc_per_location_adds_nothing_to_ptx_7_5_and_8_0():
    """The ISA states Sequential Consistency Per Location as an axiom of its
    own; [PTX22]'s Alloy model and Dartagnan's ptx-v7.5.cat state none, and
    neither do `ptx-7.5` and `ptx-8.0`. Within a set of pairwise morally
    strong operations, causality with observation and coherence already
    forbid each cycle it forbids (CoRR: fr against observation then po;
    CoRW: coherence against co; CoWR, CoWW: causality and coherence over po).
    The two agree here on a sample of generated PTX cycles with same-location
    edges (Pos) and every access order, and on the sm_90/sm_80 sync family."""
    from hrf.dsl import po, rf
    from hrf.generate import generate
    from hrf.models import ptx_7_5, ptx_8_0
    from hrf.models.common import vloc
    from hrf.models.ptx_6_0 import co_, fr_

    def with_axiom(mod, po_):
        m = mod.build()
        m.acyclic((mod.morally_strong & (rf | co_ | fr_)) | (po_ & vloc), "axiom-ScPerLocation")
        return m

    edges = ("Rfe", "Fre", "Coe", "PodWR", "PodRR", "PosWW", "PosWR", "PosRW", "PosRR")
    cycles = generate(
        count=400, seed=3, dialect="ptx", max_edges=4, max_threads=3, orders=("na", "rlx", "acq", "rel"), edges=edges
    )
    syncs = generate(dialect="ptx", sync="mbarrier,dsmem,bulk,cp-async")
    assert len(cycles) == 400 and sum("Pos" in t.name for t in cycles) > 100  # the coherence shapes among them
    for mod, tests, po_ in ((ptx_7_5, cycles, po), (ptx_8_0, cycles + syncs, ptx_8_0.po_async)):
        stated = with_axiom(mod, po_)
        for t in tests:
            assert sorted(map(str, hrf.check(t, mod.MODEL).outcomes)) == sorted(
                map(str, hrf.check(t, stated).outcomes)
            ), t.name
