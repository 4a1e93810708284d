"""The PTX that real kernels and compilers write, read with the PTX ISA's
meaning in hrf's PTX dialect (Dat3M's, extended): `.volatile`, `membar`,
unqualified accesses, `atom`/`red` without order or scope, `atom.inc/dec/
min/max` with their types, the `.cluster` scope, the ISA's barriers,
chains of aliases, labels of any name, a `{` in a description; and
SPIR-V's compare-exchange and min/max in the Vulkan dialect. Each verdict
is derived next to its test from the ISA's definitions and [PTX19]'s
axioms (as tests/test_ptx_models.py does)."""

import itertools
from pathlib import Path

import pytest

import hrf
from hrf.litmus import ast as A
from test_ptx_registers import one_thread

MODELS = ["ptx-6.0", "ptx-7.5"]
PTX7 = Path(hrf.__file__).parent / "corpus" / "ptx7"


def ptx(rows: list[str], cond: str, heads: str = "P0@cta 0,gpu 0 | P1@cta 1,gpu 0", init: str = "x=0; y=0;") -> str:
    body = "\n".join(f" {r} ;" for r in rows)
    return f"PTX t\n{{\n{init}\nP0:r0=0; P0:r1=0; P1:r0=0; P1:r1=0;\n}}\n {heads} ;\n{body}\n{cond}\n"


def ops(text: str) -> list:
    return [op for th in hrf.parse(text).threads for op in th.ops]


MP = "exists (P1:r0 == 1 /\\ P1:r1 == 0)"


def mp(w: str, f0: str, r: str, f1: str, heads: str = "P0@cta 0,gpu 0 | P1@cta 1,gpu 0") -> str:
    """Message passing: data x plain, flag y written by `w`, read by `r`, fences between."""
    return ptx(
        [f"st.weak x, 1 | {r} r0, y", f"{f0} | {f1}", f"{w} y, 1 | ld.weak r1, x"],
        MP,
        heads,
    )


def test_the_forms_read_with_the_isas_meanings():
    got = ops(
        ptx(
            [
                "ld.volatile r0, x | st.volatile y, 1",
                "ld r1, y | st x, 2",
                "membar.gl | membar.cta",
                "fence.gpu | membar.sys",
                "atom.add.u32 r0, x, 1 | red.add.global.u32 [y], 1",
                "atom.global.relaxed.cluster.min.u32 r1, x, 1 | atom.acquire.sys.max.s64 r1, [y], 1",
            ],
            "exists (x == 0)",
        )
    )
    kinds = [
        (type(o).__name__, getattr(o, "order", None), getattr(o, "scope", None), getattr(o, "op", None)) for o in got
    ]
    assert kinds == [
        ("Load", "rlx", "all", None),  # ld.volatile: relaxed at system scope (the ISA)
        ("Load", None, None, None),  # ld: weak
        ("Fence", "sc", "dev", None),  # membar.gl: fence.sc.gpu
        ("Fence", "acq_rel", "dev", None),  # fence.gpu: fence.acq_rel.gpu
        ("Rmw", "rlx", "dev", "add"),  # atom without order or scope: relaxed, GPU
        ("Rmw", "rlx", "qf", "umin"),  # .cluster: the level between CTA and GPU; .u32: unsigned
        ("Store", "rlx", "all", None),  # st.volatile
        ("Store", None, None, None),  # st: weak
        ("Fence", "sc", "wg", None),  # membar.cta
        ("Fence", "sc", "all", None),  # membar.sys
        ("Rmw", "rlx", "dev", "add"),  # red.add.global.u32 [y]
        ("Rmw", "acq", "all", "max"),  # .s64: signed
    ]


@pytest.mark.parametrize("model", MODELS)
def test_volatile_accesses_are_strong_at_system_scope(model):
    # st.volatile / ld.volatile are relaxed.sys: strong, each in the other's
    # (system) scope, so morally strong; with fence.acq_rel.gpu on both
    # sides (in each other's GPU scope) the release pattern (fence; po;
    # strong write) is observed by the acquire pattern (strong read; po;
    # fence): sync; x=1 is in cause before P1's read of x, which taking 0
    # would be fr before it: Causality forbids the outcome.
    text = mp("st.volatile", "fence.acq_rel.gpu", "ld.volatile", "fence.acq_rel.gpu")
    assert hrf.check(text, model).condition_holds is False
    # unqualified ld/st are weak: no moral strength, no sync, allowed
    weak = mp("st", "fence.acq_rel.gpu", "ld", "fence.acq_rel.gpu")
    r = hrf.check(weak, model)
    assert r.complete and r.condition_holds is True


@pytest.mark.parametrize("model", MODELS)
def test_membar_is_fence_sc_at_its_scope(model):
    # membar.gl is fence.sc.gpu: also a release and an acquire fence, so MP
    # with relaxed.gpu flag accesses is forbidden as with fence.sc.gpu
    flag = ("st.relaxed.gpu", "ld.relaxed.gpu")
    assert hrf.check(mp(flag[0], "membar.gl", flag[1], "membar.gl"), model).condition_holds is False
    # membar.cta is fence.sc.cta: the two fences, in two CTAs, are not in
    # each other's scope: neither morally strong (no sync) nor ordered by
    # the fence-SC order (sync_fence takes pairs in each other's scope)
    r = hrf.check(mp(flag[0], "membar.cta", flag[1], "membar.cta"), model)
    assert r.complete and r.condition_holds is True


@pytest.mark.parametrize("model", MODELS)
def test_atom_and_red_without_order_or_scope_are_relaxed_at_gpu_scope(model):
    # relaxed.gpu on both sides: morally strong, so Atomicity forbids a
    # write between an RMW's read and write: x ends 2 in every execution
    text = ptx(["atom.add.u32 r0, x, 1 | red.add.u32 x, 1"], "forall (x == 2)")
    r = hrf.check(text, model)
    assert r.complete and r.condition_holds is True


@pytest.mark.parametrize("model", MODELS)
def test_inc_dec_min_max_compute_as_the_isa_says(model):
    # atom.inc.u32 with b = 1 from 0: 0 -> 1 -> 0 (old >= b gives 0), each
    # thread returning the old value: {0, 1} in some order, x ends 0
    text = ptx(["atom.inc.u32 r0, x, 1 | atom.inc.u32 r0, x, 1"], "forall (x == 0 /\\ (P0:r0 == 0 \\/ P1:r0 == 0))")
    r = hrf.check(text, model)
    assert r.condition_holds is True
    assert sorted(str(o) for o in r.outcomes) == ["{'0:r0': 0, '1:r0': 1, 'x': 0}", "{'0:r0': 1, '1:r0': 0, 'x': 0}"]
    # atom.dec.u32 with b = 3 from 0: old == 0 gives b
    one = "P0@cta 0,gpu 0"
    assert hrf.check(ptx(["atom.dec.u32 r0, x, 3"], "forall (x == 3)", one), model).condition_holds is True
    # -1 is the smallest signed value and the largest unsigned one
    neg = "x=-1; y=0;"
    assert hrf.check(ptx(["atom.min.s32 r0, x, 3"], "forall (x == -1)", one, neg), model).condition_holds is True
    assert hrf.check(ptx(["atom.min.u32 r0, x, 3"], "forall (x == 3)", one, neg), model).condition_holds is True
    assert hrf.check(ptx(["atom.max.u32 r0, x, 3"], "forall (x == -1)", one, neg), model).condition_holds is True
    assert hrf.check(ptx(["atom.max.s64 r0, x, 3"], "forall (x == 3)", one, neg), model).condition_holds is True


@pytest.mark.parametrize("model", MODELS)
def test_the_cluster_scope_lies_between_cta_and_gpu(model):
    # two CTAs of one cluster: the release and the acquire, each at
    # cluster scope, are in each other's scope: morally strong, sync, and
    # Causality forbids the stale read (as at GPU scope)
    same = "P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0"
    text = ptx(["st.weak x, 1 | ld.acquire.cluster r0, y", "st.release.cluster y, 1 | ld.weak r1, x"], MP, same)
    assert hrf.check(text, model).condition_holds is False
    # two clusters: neither in the other's scope, no sync, allowed
    other = same.replace("cta 1,cluster 0", "cta 1,cluster 1")
    r = hrf.check(text.replace(same, other), model)
    assert r.complete and r.condition_holds is True
    # no clusters named: each CTA is a cluster of its own (the ISA's CTAs
    # launched without clusters), so two CTAs do not share one
    bare = "P0@cta 0,gpu 0 | P1@cta 1,gpu 0"
    assert hrf.check(text.replace(same, bare), model).condition_holds is True
    # .gpu across the two clusters synchronises again
    gpu = text.replace(same, other).replace(".cluster", ".gpu")
    assert hrf.check(gpu, model).condition_holds is False


def test_a_cluster_for_some_threads_alone_is_refused():
    with pytest.raises(hrf.LitmusSyntaxError, match="P1 names no cluster, where other threads do"):
        hrf.parse(ptx(["st.weak x, 1 | ld.weak r0, x"], MP, "P0@cta 0,cluster 0,gpu 0 | P1@cta 1,gpu 0"))


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("bar", ["bar.sync 0", "barrier.sync 0", "barrier.sync.aligned 0", "bar.cta.sync 0"])
def test_the_isas_barriers_order_a_ctas_threads(model, bar):
    # one CTA: the two barriers with resource 0 synchronise (sync_barrier),
    # so x=1 is in cause before P1's read of x: taking 0 is forbidden
    heads = "P0@cta 0,gpu 0 | P1@cta 0,gpu 0"
    text = ptx([f"st.weak x, 1 | {bar}", f"{bar} | ld.weak r1, x"], "exists (P1:r1 == 0)", heads)
    assert hrf.check(text, model).condition_holds is False
    # resources 0 and 1 are two barriers: no synchronisation, allowed
    other = bar.replace(" 0", " 1")
    text2 = ptx([f"st.weak x, 1 | {other}", f"{bar} | ld.weak r1, x"], "exists (P1:r1 == 0)", heads)
    assert hrf.check(text2, model).condition_holds is True


@pytest.mark.parametrize(
    "hint",
    [
        "nanosleep.u32 100",
        "nanosleep.u32 r0",
        "applypriority.global.L2::evict_normal [x], 128",
        "createpolicy.fractional.L2::evict_last.b64 r5, 1.0",
        "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 r5, [x], 128, 256",
    ],
)
def test_a_sleep_or_a_cache_policy_is_no_event(hint):
    """How long a thread sleeps, or how a cache keeps a line, changes what no
    read may return: MP with the hint before the reader's loads has the
    events and outcomes of MP without it (a cache policy is a register's
    value alone, 0 here, for .L2::cache_hint operands)."""
    heads = "P0@cta 0,gpu 0 | P1@cta 1,gpu 0"
    plain = ptx(["st.weak x, 1 | ld.weak r0, y", "st.release.gpu y, 1 | ld.weak r1, x"], MP, heads)
    hinted = ptx(["st.weak x, 1 | ld.weak r0, y", f"st.release.gpu y, 1 | {hint}", "| ld.weak r1, x"], MP, heads)
    a, b = hrf.check(hinted, "ptx-8.0"), hrf.check(plain, "ptx-8.0")
    assert (a.outcomes, a.candidates) == (b.outcomes, b.candidates) and len(a.outcomes) == 4


@pytest.mark.parametrize(
    "cell,words",
    [
        ("ld.local.relaxed.cta r0, x", r"ld\.local: hrf's PTX tests are in global and shared memory alone"),
        ("ld.relaxed.gpu.f64 r0, x", r"ld\.f64: hrf does not model floating-point values other than \.f32 data"),
        ("ld.global.f16 r0, [x]", r"ld\.f16: hrf does not model floating-point values other than \.f32 data"),
        ("atom.global.min.f32 r0, [x], 0f3F800000", r"atom\.min\.f32: floating-point arithmetic other than \.add"),
        ("red.global.max.f32 [x], 0f3F800000", r"red\.max\.f32: floating-point arithmetic other than \.add"),
        ("atom.global.add.f64 r0, [x], 1", r"atom\.f64: hrf does not model floating-point values other than \.f32"),
        ("add.f32 r0, r1, 0f3F800000", r"add\.f32: floating-point arithmetic is not modelled"),
        ("setp.lt.f32 p1, r1, 0f3F800000", r"setp\.f32: floating-point arithmetic is not modelled"),
        ("mov.f64 r0, 0d3FF0000000000000", r"mov\.f64: floating-point data other than \.f32 is not modelled"),
        ("st.global.f32 [x], 0d3FF0000000000000", r"0d3FF0000000000000: \.f64 data is not modelled"),
        ("st.global.nc.u32 x, 1", r"st\.nc: hrf does not model its cache"),
        ("bar.warp.sync 0", "a warp barrier is not modelled"),
        ("bar.red.popc.u32 r0, 0, 1", "a barrier reduction is not modelled"),
        ("griddepcontrol.wait", "griddepcontrol: programmatic dependent launch orders whole grids"),
        ("multimem.ld_reduce.relaxed.sys.global.add.u32 r0, [x]", "multimem: multimem addresses"),
        ("discard.global.L2 [x], 128", "discard: discard.global.L2 leaves the cache line's contents undefined"),
        ("activemask.b32 r0", "activemask: the active lanes of a warp"),
        ("st.bulk.weak.shared::cta [x], 16, 0", "st.bulk: sm_100's initialisation"),
        (
            "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [x], [x]",
            "clusterlaunchcontrol: sm_100's cluster launch control",
        ),
    ],
)
def test_forms_the_isa_gives_but_hrf_does_not_model_are_refused_by_name(cell, words):
    with pytest.raises(hrf.UnsupportedFeature, match=words):
        hrf.parse(ptx([f"{cell} | ld.weak r0, x"], MP))


@pytest.mark.parametrize(
    "cell,words",
    [
        ("atom.relaxed.gpu.min.b32 r0, x, 1", r"atom\.min takes a signed or unsigned type"),
        ("atom.relaxed.relaxed.add r0, x, 1", r"one sem \(atom\.relaxed already\)"),
        ("red.cas x, 1", r"red has no \.cas"),
        ("ld.volatile.gpu r0, x", "a volatile ld takes no scope"),
        ("bar.arrive 0", "a thread count"),
        ("ld.shared.relaxed.cta r0, x", r"x is not declared in shared memory \(x @ shared P0\)"),
        ("ld.relaxed.gpu.cg r0, x", r"a cache operator on a weak ld alone"),
        ("st.global.lu x, 1", r"a cache operator of st \(\.wb, \.cg, \.cs, \.wt\); not \.lu"),
        ("ld.global.L1::evict_last r0, x, 7", r"a cache-policy operand needs \.L2::cache_hint"),
        ("nanosleep 20", r"nanosleep\.u32 t \(the ISA's form\)"),
        ("applypriority.global.L2::evict_normal [x], 64", r"a size of 128 \(the ISA's one size\)"),
        ("applypriority.global.L2::evict_last [x], 128", r"applypriority\{\.global\}\.L2::evict_normal"),
        ("createpolicy.fractional.L2::evict_last r0, 1.0", r"createpolicy\.fractional, \.range or \.cvt"),
    ],
)
def test_malformed_forms_are_located_syntax_errors(cell, words):
    with pytest.raises(hrf.LitmusSyntaxError, match=words) as e:
        hrf.parse(ptx([f"{cell} | ld.weak r0, x"], MP))
    assert e.value.line == 7


SYNONYMS = """PTX synonyms
"[PTX22]'s synonym tests: y a generic alias of x, s1 a surface alias of y {not the init block}"
{
x=0;
y @ generic aliases x;
s1 @ surface aliases y;
P0:r0=0;
}
 P0@cta 0,gpu 0   ;
 st.weak x, 1     ;
FENCES
 suld.weak r0, s1 ;
exists (P0:r0 == 0)
"""


@pytest.mark.parametrize(
    "fences,allowed",
    [
        # no fence: the surface read is in another proxy, nothing orders it
        ((), True),
        # a surface proxy fence: the write and the read are at different
        # virtual addresses (x, and y's, which the surface alias reaches
        # through its generic synonym), and causality crosses virtual
        # addresses only through an alias fence ([PTX22])
        (("fence.proxy.surface",), True),
        # an alias fence, then the surface proxy fence before the read:
        # causality order is preserved (GEN; alias; proxy fence to the read)
        # and the read taking 0 would be fr before the write: forbidden
        (("fence.proxy.alias", "fence.proxy.surface"), False),
    ],
)
def test_an_alias_of_an_alias_names_the_first_location(fences, allowed):
    text = SYNONYMS.replace("FENCES\n", "".join(f" {f} ;\n" for f in fences))
    r = hrf.check(text, "ptx-7.5")
    assert r.complete and r.condition_holds is allowed


def test_an_alias_names_a_location_declared_before_it():
    # so no chain of aliases can close a cycle
    text = SYNONYMS.replace("x=0;\n", "x @ generic aliases s1;\n").replace("FENCES\n", "")
    with pytest.raises(hrf.LitmusSyntaxError, match="x aliases s1, which is not declared before it") as e:
        hrf.parse(text)
    assert e.value.line == 4


def test_labels_of_any_name_and_a_brace_in_a_description():
    text = ptx(
        ["ld.relaxed.gpu r0, x | st.relaxed.gpu x, 1", "bne r0, 1, done | ", "ld.relaxed.gpu r1, x | ", "done: | "],
        "exists (P0:r1 == 1)",
    )
    text = text.replace("PTX t\n", 'PTX t\n"a loop-free test {with braces} in its description"\n')
    t = hrf.parse(text)
    assert any(isinstance(s, A.Label) and s.name == "done" for s in t.threads[0].body)
    # P0 reads 1 (P1's store) and then x again: 1 again (SC per location)
    assert hrf.check(text, "ptx-6.0").condition_holds is True


VK_CAS = """VULKAN cmpxchg
{
x=0;
P0:r0=0; P1:r0=0;
}
 P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;
 rmw.atom.dv.sc0.cmpxchg r0, x, 0, 1 | rmw.atom.dv.sc0.cmpxchg r0, x, 0, 2 ;
exists (P0:r0 == 0 /\\ P1:r0 == 0)
"""


def test_vulkan_compare_exchange_and_min_max():
    # OpAtomicCompareExchange from 0 in two threads, device scope: mutually
    # ordered atomics; both reading 0 would put the second write between
    # the other's read (of the initial value, which from-reads every write)
    # and its write in asmo, which the atomicity axiom forbids: one succeeds,
    # the other reads its value and writes nothing
    r = hrf.check(VK_CAS, "vulkan")
    assert r.condition_holds is False
    assert sorted(str(o) for o in r.outcomes) == ["{'0:r0': 0, '1:r0': 1}", "{'0:r0': 2, '1:r0': 0}"]
    # umax(·, 5) and min(·, -3) in either order: -3, which as an unsigned
    # value is larger than 5, stays
    mm = VK_CAS.replace("cmpxchg r0, x, 0, 1", "umax r0, x, 5").replace("cmpxchg r0, x, 0, 2", "smin r0, x, -3")
    mm = mm.replace("exists (P0:r0 == 0 /\\ P1:r0 == 0)", "forall (x == -3)")
    assert hrf.check(mm, "vulkan").condition_holds is True


def test_a_test_with_clusters_prints_them_back():
    from hrf.litmus.dat3m_print import to_dat3m

    heads = "P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0"
    t = hrf.parse(
        ptx(["st.weak x, 1 | ld.acquire.cluster r0, y", "st.release.cluster y, 1 | ld.weak r1, x"], MP, heads)
    )
    text = to_dat3m(t, "PTX")
    assert "P0@cta 0,cluster 0,gpu 0" in text and "ld.acquire.cluster r0, y" in text
    back = hrf.parse(text)
    assert [(th.wg, th.qf) for th in back.threads] == [(th.wg, th.qf) for th in t.threads]
    # without clusters named, none is written (each CTA alone in its own)
    bare = hrf.parse(ptx(["st.weak x, 1 | ld.weak r0, x"], MP))
    assert "cluster" not in to_dat3m(bare, "PTX")


@pytest.mark.parametrize(
    "f0,f1,scope,forbidden",
    [
        # a release fence then a strong write is a release pattern; a strong read then an acquire
        # fence an acquire pattern ("Release and Acquire Patterns", 3.); gpu scope, one GPU: morally
        # strong, so they synchronise and P1's read of x cannot take 0
        ("fence.release.gpu", "fence.acquire.gpu", "gpu", True),
        # swapped: an acquire fence begins no release pattern, a release fence ends no acquire pattern
        ("fence.acquire.gpu", "fence.release.gpu", "gpu", False),
        # .cta scope, two CTAs: neither operation is in the other's scope, no synchronisation
        ("fence.release.cta", "fence.acquire.cta", "cta", False),
        # with fence.acq_rel on one side, as before
        ("fence.release.gpu", "fence.acq_rel.gpu", "gpu", True),
    ],
)
def test_the_one_way_fences_of_ptx_8_6(f0, f1, scope, forbidden):
    text = mp(f"st.relaxed.{scope}", f0, f"ld.relaxed.{scope}", f1)
    assert hrf.check(text, "ptx-8.0").condition_holds is not forbidden
    # the older models do not read them: refused by name, never read as no fence
    with pytest.raises(
        hrf.UnsupportedFeature, match=r"ptx-7\.5 has no fence\.release and fence\.acquire \(PTX ISA 8\.6"
    ):
        hrf.check(text, "ptx-7.5")


def test_a_reduction_then_fence_acquire_is_no_acquire_pattern():
    # the ISA's own example: `red.add [M], 1; fence.acquire;` is not an acquire pattern, so P1's
    # reduction reading the release's 1 (y ends 2) orders nothing before its read of x: allowed;
    # with atom (a strong read) in its place the pattern forms and x=0 is forbidden
    rows = ["st.weak x, 1 | {op}", "st.release.gpu y, 1 | fence.acquire.gpu", " | ld.weak r1, x"]
    cond = "exists (y == 2 /\\ P1:r1 == 0)"
    red = ptx([r.format(op="red.relaxed.gpu.add y, 1") for r in rows], cond)
    atom = ptx([r.format(op="atom.relaxed.gpu.add r0, y, 1") for r in rows], "exists (P1:r0 == 1 /\\ P1:r1 == 0)")
    assert hrf.check(red, "ptx-8.0").condition_holds is True
    assert hrf.check(atom, "ptx-8.0").condition_holds is False


def cluster_mp(p0: list[str], p1: list[str], cond: str) -> str:
    """P0 writes x then passes the cluster barrier, P1 (another CTA of the cluster) passes it then reads x."""
    p0 = ["st.weak x, 1", *p0, "barrier.cluster.arrive.relaxed", "barrier.cluster.wait"]
    p1 = [*p1, "barrier.cluster.arrive.relaxed", "barrier.cluster.wait", "ld.weak r1, x"]
    rows = [f"{a} | {b}" for a, b in itertools.zip_longest(p0, p1, fillvalue="")]
    return ptx(rows, cond, "P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0")


def test_a_relaxed_cluster_arrive_after_fence_release_releases():
    # barrier.cluster.arrive.relaxed after a release fence of cluster scope: a release (as after
    # fence.acq_rel.cluster, litmus/ptx8/MP+cluster-barrier-fence); after none, nothing is released
    def text(fence: str) -> str:
        return cluster_mp([fence], [], "exists (P1:r1 == 0)")

    assert hrf.check(text("fence.release.cluster"), "ptx-8.0").condition_holds is False
    assert hrf.check(text("fence.release.cta"), "ptx-8.0").condition_holds is True


def test_hrf_run_refuses_the_one_way_fences_by_name():
    from hrf.gpu import prepare
    from hrf.gpu.lower import NotRunnable

    text = mp("st.relaxed.gpu", "fence.release.gpu", "ld.relaxed.gpu", "fence.acquire.gpu")
    with pytest.raises(NotRunnable, match=r"fence\.release and fence\.acquire \(sm_90\): hrf run has no lowering"):
        prepare(hrf.parse(text))


def test_a_cluster_barriers_wait_is_no_acquire_fence():
    # barrier.cluster.wait's acquire makes visible what every thread did before its arrive
    # (P0's is relaxed: nothing); it is no memory fence, so P1's relaxed read of the released
    # y before it forms no acquire pattern with it ("Release and Acquire Patterns" names
    # acquire operations on y and acquire fences): x=0 is allowed. fence.acquire.gpu after the
    # read forms the pattern: forbidden
    def text(after_read: str) -> str:
        return cluster_mp(["st.release.gpu y, 1"], ["ld.relaxed.gpu r0, y", after_read], MP)

    assert hrf.check(text(""), "ptx-8.0").condition_holds is True
    assert hrf.check(text("fence.acquire.gpu"), "ptx-8.0").condition_holds is False


@pytest.mark.parametrize("model", ["ptx-7.5", "ptx-8.0"])
def test_cache_operators_and_eviction_hints_change_nothing(model):
    """ "Cache operators on load or store instructions are treated as performance hints only ...
    does not change the memory consistency behavior", and so are eviction priorities, the L2
    cache hint (its cache-policy operand too) and prefetch sizes: the test reads as without them."""
    hinted = mp(
        "st.release.gpu.global.L2::evict_first.u32",
        "",
        "ld.acquire.gpu.global.L1::evict_last.L2::cache_hint.u32",
        "",
    ).replace(
        "ld.acquire.gpu.global.L1::evict_last.L2::cache_hint.u32 r0, y",
        "ld.acquire.gpu.global.L1::evict_last.L2::cache_hint.u32 r0, y, 7",
    )
    hinted = hinted.replace("st.weak x, 1", "st.global.cs.u32 x, 1").replace(
        "ld.weak r1, x", "ld.global.lu.L2::128B.u32 r1, x"
    )
    plain = mp("st.release.gpu.global.u32", "", "ld.acquire.gpu.global.u32", "")
    assert "L2::128B" in hinted and ", 7" in hinted
    a, b = hrf.check(hinted, model), hrf.check(plain, model)
    assert a.outcomes == b.outcomes and a.condition_holds is False
    # the weak accesses keep their cache operators for hrf run, which writes them as read
    caches = [getattr(op, "cache", None) for op in ops(hinted)]
    assert "cs" in caches and "lu" in caches


@pytest.mark.parametrize("m", ["ptx-6.0", "ptx-7.5", "ptx-8.0"])
def test_f32_data_moves_as_its_bits(m):
    """litmus/ptx7/MP+f32: .f32 data is moved by ld, st and mov as its bits, and
    `0f3F800000` is the ISA's exact form of 1.0f ("Floating-Point Constants"):
    its bits, 1065353216. The release/acquire pair orders the store before the
    load where the acquire reads 1 (Causality): the load reads 1.0f there.
    Forbidden; outcomes (0, 0), (0, 1.0f), (1, 1.0f)."""
    r = hrf.check(PTX7 / "MP+f32.litmus", m)
    assert r.error is None and r.condition_holds is False and not r.flags
    one = 0x3F800000
    assert {(o["1:r0"], o["1:r1"]) for o in r.outcomes} == {(0, 0), (0, one), (1, one)}
    # the same test with integers for the floats' bits has the same outcomes
    text = (PTX7 / "MP+f32.litmus").read_text().replace(".f32", ".u32").replace("0f3F800000", str(one))
    assert hrf.check(text, m).outcomes == r.outcomes


def test_f32_vectors_and_constants():
    """A `.v2.f32` store of two constants and a `.v4.f32` load of them with two
    more (-2.0f = 0fC0000000 in x[2], 0.5f = 0f3F000000 in x[3] from the
    initial state): each element its bits, in one thread's program order."""
    rows = [
        "st.global.v2.f32 [x], {0f3F800000, 0f40000000}",
        "ld.global.v4.f32 { r0, r1, r2, r3 }, [x]",
    ]
    got = one_thread(rows, init="x[4] = {0, 0, 3221225472, 0x3F000000};")
    assert got == {"r0": 0x3F800000, "r1": 0x40000000, "r2": 0xC0000000, "r3": 0x3F000000}


@pytest.mark.parametrize("m", ["ptx-6.0", "ptx-7.5", "ptx-8.0"])
def test_float_reductions_are_atomic_ieee_sums(m):
    """litmus/ptx7/red-add-f32: x = 1.0f, P0 adds 1.0f (red), P1 adds 2.0f
    (atom). Each is atomic (Atomicity), so x ends at 4.0f in either order,
    and P1's atom reads 1.0f (first) or 2.0f (after P0's)."""
    r = hrf.check(PTX7 / "red-add-f32.litmus", m)
    assert r.error is None and r.condition_holds is True and not r.flags
    assert {(o["1:r0"], o["x"]) for o in r.outcomes} == {(0x3F800000, 0x40800000), (0x40000000, 0x40800000)}


def test_f32_addition_rounds_and_flushes_as_the_isa_says():
    """[PTXISA] atom/red: ".add ... rounds to nearest even"; on global memory
    it "flushes subnormal inputs and results to sign-preserving zero", on
    shared memory it "supports subnormal inputs and results". x and y hold
    the smallest subnormal (bits 1) and each gets it added: global x becomes
    +0, shared y two of it (bits 2); the atoms return the old bits. 2^24
    (0x4B800000) + 1.0f is halfway between 2^24 and 2^24 + 2: the even one,
    2^24. 1.0f + -1.0f is +0."""
    rows = [
        "atom.global.add.f32 r0, [x], 0f00000001",
        "atom.shared::cta.add.f32 r1, [y], 0f00000001",
        "atom.global.add.f32 r7, [z], 0f3F800000",
        "atom.global.add.f32 r2, [w], 0fBF800000",
        "ld.global.f32 r3, [x]",
        "ld.shared::cta.f32 r4, [y]",
        "ld.global.f32 r5, [z]",
        "ld.global.f32 r6, [w]",
    ]
    init = "x = 1; y @ shared P0 = 1; z = 0f4B800000; w = 0f3F800000;"
    got = one_thread(rows, init=init)
    assert got == {"r0": 1, "r1": 1, "r2": 0x3F800000, "r3": 0, "r4": 2, "r5": 0x4B800000, "r6": 0, "r7": 0x4B800000}


@pytest.mark.parametrize("m", ["ptx-6.0", "ptx-7.5", "ptx-8.0"])
def test_a_non_coherent_load_of_read_only_data_is_a_weak_load(m):
    """litmus/ptx7/MP+nc: `ld.global.nc` loads "via non-coherent cache" data the
    kernel only reads ([PTXISA] ld.global.nc): a weak load, here of c, which
    no thread writes, so it reads 5. Where the acquire reads 1 the release/
    acquire pair orders x's store before the load of x (Causality).
    Forbidden, unflagged, and the outcomes of the same test with a plain
    weak load."""
    r = hrf.check(PTX7 / "MP+nc.litmus", m)
    assert r.error is None and r.condition_holds is False and not r.flags
    assert {(o["1:r0"], o["1:r1"], o["1:r2"]) for o in r.outcomes} == {(0, 5, 0), (0, 5, 1), (1, 5, 1)}
    plain = hrf.check((PTX7 / "MP+nc.litmus").read_text().replace("ld.global.nc.u32", "ld.global.u32"), m)
    assert plain.outcomes == r.outcomes


def test_a_non_coherent_load_of_written_data_is_flagged():
    """The same load of x, which P0 writes: outside the read-only data the
    ISA's non-coherent load is for, flagged with the load and the write."""
    text = (PTX7 / "MP+nc.litmus").read_text().replace("ld.global.nc.u32 r1, [c]", "ld.global.nc.u32 r1, [x]")
    r = hrf.check(text, "ptx-7.5")
    assert [f["kind"] for f in r.flags] == ["nc_load_of_written_data"]
    events = r.flags[0]["events"]
    assert [(e["thread"], e["kind"], e["loc"]) for e in events] == [("P1", "R", "x"), ("P0", "W", "x")]
    assert "undefined: nc_load_of_written_data" in repr(r)


@pytest.mark.parametrize(
    "cell,words",
    [
        ("ld.nc.u32 r0, [x]", r"ld\.global\.nc \(the ISA's form"),
        ("ld.shared::cta.nc.u32 r0, [x]", r"ld\.global\.nc \(the ISA's form"),
        ("ld.relaxed.gpu.global.nc.u32 r0, [x]", r"no \.relaxed on ld\.global\.nc"),
    ],
)
def test_non_coherent_load_errors(cell, words):
    with pytest.raises(hrf.LitmusSyntaxError, match=words):
        hrf.parse(ptx([f"{cell} | ld.weak r0, x"], MP))
