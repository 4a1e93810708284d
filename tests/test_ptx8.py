"""sm_90's forms under `ptx-8.0`: mbarriers, bulk copies through the async
proxy, `fence.proxy.async`, distributed shared memory, cluster barriers and
`fence.mbarrier_init` (litmus/ptx_hopper.py, models/ptx_8_0.py). The
family's verdicts are derived by hand from the PTX ISA's text in
litmus/ptx8/manifest.toml; here each is checked, with the refusals by name
of what is not modelled and of what the older models and `hrf run` do not
take, and located errors for mutated tests."""

import re
from pathlib import Path

import pytest
import tomllib

import hrf
from hrf.errors import HrfError, LitmusSyntaxError, UnsupportedFeature
from hrf.gpu.lower import NotRunnable
from hrf.litmus import ast as A
from hrf.litmus import parse_text

FAMILY = Path(__file__).resolve().parent.parent / "litmus" / "ptx8"
MANIFEST = tomllib.loads((FAMILY / "manifest.toml").read_text())["test"]


def test_the_manifest_covers_the_family():
    assert sorted(t["file"] for t in MANIFEST) == sorted(p.name for p in FAMILY.glob("*.litmus"))
    assert all(t["derivation"] and t["isa"] for t in MANIFEST)


@pytest.mark.parametrize("entry", MANIFEST, ids=[t["file"] for t in MANIFEST])
def test_each_verdict_is_its_derivation(entry):
    r = hrf.check(str(FAMILY / entry["file"]), "ptx-8.0", **entry.get("limits", {}))
    assert r.error is None and r.complete
    assert r.condition_holds is entry["expect"]["condition_holds"], entry["derivation"]
    assert [f["kind"] for f in r.flags][:1] == ([entry["expect"]["flag"]] if "flag" in entry["expect"] else [])


def test_the_uninitialised_use_names_its_events():
    r = hrf.check(str(FAMILY / "mbar-init-no-fence.litmus"), "ptx-8.0")
    events = r.flags[0]["events"]
    assert [(e["thread"], e["kind"], e["loc"]) for e in events] == [("init", "W", "b"), ("P1", "R", "b")]
    assert "init: W b=uninitialised" in r.to_herd()  # (an mbarrier's state as the ISA names it)


def test_an_incomplete_copy_names_its_events():
    """The flag names the copy's event and the access: the source written again
    before the copy completes (no wait), then the destination read (a lone wait)."""
    r = hrf.check(str(FAMILY / "bulk-group-reuse-no-wait.litmus"), "ptx-8.0")
    (flag,) = r.flags
    assert [(e["thread"], e["kind"], e["loc"]) for e in flag["events"]] == [("P0", "R", "s"), ("P0", "W", "s")]
    assert "cp.async.bulk: read [s]" in r.to_herd()
    r = hrf.check(str(FAMILY / "bulk-copy-wait.litmus"), "ptx-8.0")
    assert [(e["thread"], e["kind"], e["loc"]) for e in r.flags[0]["events"]] == [("P0", "W", "d"), ("P1", "R", "d")]
    # the same read on the wait's true branch alone (the spin) is no flag
    assert hrf.check(str(FAMILY / "bulk-copy-spin.litmus"), "ptx-8.0").flags == []


def test_st_async_and_red_async_events_name_their_instruction():
    from hrf.litmus.ptx_hopper import event_text

    def texts(name):  # (an update's phase marker after it: the model's, no instruction)
        return [event_text(op) for op in hrf.parse(FAMILY / name).threads[0].ops if "MBDONE" not in op.tags]

    assert texts("red-async-atomic.litmus") == ["red.async: add [d]", "red.async: complete_tx [b]"]
    assert texts("MP+st-async.litmus") == ["st.async: write [d]", "st.async: complete_tx [b]"]


def test_undefined_behaviour_is_named_not_called_a_race():
    r = hrf.check(str(FAMILY / "bulk-group-no-wait.litmus"), "ptx-8.0")
    assert r.racy is True and ", undefined: async_copy_incomplete, " in repr(r)
    assert ", race-free, " in repr(hrf.check(str(FAMILY / "bulk-group-fence.litmus"), "ptx-8.0"))


@pytest.mark.parametrize(
    "hinted",
    [
        "cp.async.ca.shared.global.L2::cache_hint [d], [g], 4, 7",
        "cp.async.cg.shared.global.L2::128B [d], [g], 16",
        "cp.async.ca.shared::cta.global.L2::cache_hint.L2::256B [d], [g], 8, r5",
    ],
)
def test_a_cp_asyncs_cache_hint_and_prefetch_size_change_nothing(hinted):
    """[PTXISA] cp.async: `.level::cache_hint` and `.level::prefetch_size` are
    hints: the copy has the events and outcomes of the copy without them."""
    plain = re.sub(r"\.L2::(cache_hint|\d+B)", "", hinted).replace(", 7", "").replace(", r5", "")
    size = plain.split(", ")[-1]
    texts = [
        two(f"{c} ;\n cp.async.wait_all", "ld.weak r0, d", init="P0:r5=3; g=1; d @ shared P0 = 0;")
        for c in (hinted, plain)
    ]
    a, b = (hrf.check(parse_text(x, "t.litmus"), "ptx-8.0") for x in texts)
    assert size in ("4", "8", "16") and (a.outcomes, a.candidates) == (b.outcomes, b.candidates) and a.outcomes


@pytest.mark.parametrize(
    "hint",
    ["prefetch.global.L2 [x]", "prefetch.L1 [x]", "prefetchu.L1 [x]", "cp.async.bulk.prefetch.L2.global [x], 16"],
)
def test_a_prefetch_is_no_event(hint):
    """A cache hint changes no verdict: the test with it has the events and outcomes of the test without."""
    with_hint = two("st.weak x, 1", f"{hint} ;\n | ld.weak r0, x", init="x=0;")
    plain = two("st.weak x, 1", "ld.weak r0, x", init="x=0;")
    a, b = hrf.check(parse_text(with_hint, "t.litmus"), "ptx-8.0"), hrf.check(parse_text(plain, "t.litmus"), "ptx-8.0")
    assert (a.outcomes, a.candidates) == (b.outcomes, b.candidates) and len(a.outcomes) == 2


def test_a_read_wait_orders_the_copys_read_alone():
    """wait_group.read: the buffer may be written again (the copy has read it), but
    the copy's write is not yet visible; wait_group: both (litmus/ptx8/manifest.toml)."""
    reuse = (FAMILY / "bulk-group-reuse.litmus").read_text()
    assert hrf.check(reuse, "ptx-8.0").condition_holds is False
    assert hrf.check(reuse.replace("wait_group.read 0", "wait_group 0"), "ptx-8.0").condition_holds is False
    mp = (FAMILY / "MP+bulk-group-wait.litmus").read_text()
    assert hrf.check(mp, "ptx-8.0").condition_holds is False
    assert hrf.check(mp.replace("wait_group 0", "wait_group.read 0"), "ptx-8.0").condition_holds is True


def test_older_models_refuse_bulk_groups_by_name():
    text = two("cp.async.bulk.commit_group", "cp.async.bulk.wait_group.read 0")
    with pytest.raises(UnsupportedFeature, match=r"ptx-7.5 has no bulk async-groups .*: use ptx-8.0"):
        hrf.check(parse_text(text, "t.litmus"), "ptx-7.5")


@pytest.mark.parametrize("model", ["ptx-6.0", "ptx-7.5", "ptx-7.5-dat3m"])
def test_older_models_refuse_the_forms_by_name(model):
    for name, what in [
        ("MP+mbar-cta", "mbarriers"),
        ("bulk-copy-wait", "mbarriers"),
        ("MP+cluster-barrier", "cluster barriers"),
        ("cp-async-wait-all", r"cp\.async, sm_80's asynchronous copies \(PTX ISA 7\.0\)"),
        ("bulk-group-fence", "the async proxy"),
    ]:
        with pytest.raises(UnsupportedFeature, match=f"{model} has no {what}.*: use ptx-8.0"):
            hrf.check(str(FAMILY / f"{name}.litmus"), model)


def test_ptx_8_keeps_the_older_verdicts():
    """Without sm_90's forms ptx-8.0 is ptx-7.5: the same outcomes on the PTX corpus."""
    corpus = Path(__file__).resolve().parent.parent / "litmus"
    files = sorted((corpus / "ptx7").glob("*.litmus")) + sorted((corpus / "gpu").glob("*.litmus"))[:24]
    assert len(files) > 10
    for f in files:
        a, b = hrf.check(str(f), "ptx-7.5"), hrf.check(str(f), "ptx-8.0")
        assert (a.error is None) == (b.error is None), f
        assert sorted(map(str, a.outcomes)) == sorted(map(str, b.outcomes)), f


# what hrf run takes of the family (tests/test_gpu_toolchain.py checks their SASS): one
# CTA's mbarriers, bulk copies from global memory and (with bulk async-groups, as bulk
# reductions too) to it, clusters of several CTAs (distributed shared memory, remote
# arrives, cluster barriers), sm_80's cp.async; refused by name: the bulk copies between
# shared memories and st.async/red.async
REFUSED_BY_HRF_RUN = {
    "MP+bulk-copy-dsmem": "cp.async.bulk.shared::cluster.shared::cta, the bulk copy between CTAs' shared memories",
    "MP+bulk-copy-dsmem-no-fence": "cp.async.bulk.shared::cluster.shared::cta",
    "MP+bulk-reduce-dsmem": "cp.async.bulk.shared::cluster.shared::cta",
    **dict.fromkeys(("MP+st-async", "st-async-prior-store", "red-async-atomic"), "st.async and red.async"),
    # a tensor copy reads a tensor map the host builds (cuTensorMapEncodeTiled): not built
    **dict.fromkeys(
        (
            "tma-tensor-load",
            "tma-tensor-load-short",
            "tma-tensor-load-hint",
            "MP+tma-tensor-store",
            "MP+tma-tensor-reduce",
            "MP+tma-tensor-reduce-no-wait",
        ),
        "cp.async.bulk.tensor",
    ),
    **{p.stem: "multicast::cluster" for p in FAMILY.glob("*multicast*.litmus")},
    # a warp's collective accesses: hrf run runs each thread alone
    **{
        p.stem: "ldmatrix and stmatrix" for p in FAMILY.glob("*.litmus") if "ldmatrix" in p.stem or "stmatrix" in p.stem
    },
    # wgmma (sm_90a): no lowering yet
    **{p.stem: "wgmma, the warpgroup's" for p in FAMILY.glob("wgmma-*.litmus")},
}


@pytest.mark.parametrize("path", sorted(FAMILY.glob("*.litmus")), ids=lambda p: p.name)
def test_hrf_run_takes_the_family_and_refuses_the_rest_by_name(path):
    from hrf.gpu import prepare

    test = hrf.parse(path)
    if path.stem in REFUSED_BY_HRF_RUN:
        with pytest.raises(NotRunnable, match=REFUSED_BY_HRF_RUN[path.stem]):
            prepare(test)
        return
    lt, shape = prepare(test)
    tags = {tag for t in test.threads for op in t.ops for tag in getattr(op, "tags", ())}
    # several CTAs of one cluster: a cluster launch (a CTA that names no cluster is one of its own)
    clusters = {t.qf for t in test.threads}
    assert shape.cluster == any(len({t.wg for t in test.threads if t.qf == q}) > 1 for q in clusters)
    assert bool(lt.bulk) == bool(tags & {"BULK", "CPWRITE"}) and any(lt.cluster_rounds) == ("CLBAR" in tags)
    assert bool(lt.mbarriers) == ("MBAR" in tags)
    copies = {s.loc for t in test.threads for s in A.walk_stmts(t.body) if "CPWRITE" in getattr(s, "tags", ())}
    assert copies <= lt.bulk  # cp.async's destinations: 16 aligned bytes an instance, as a bulk copy's


def test_hrf_run_refuses_a_64_bit_bulk_reduction_by_name():
    from hrf.gpu import prepare

    text = two("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u64 [x], [d], 16", "st.weak y, 1", RED_INIT)
    assert hrf.check(parse_text(text, "t.litmus"), "ptx-8.0").complete  # the model reads it
    with pytest.raises(NotRunnable, match="a bulk reduction of 64-bit elements: hrf run's locations are 32-bit words"):
        prepare(parse_text(text, "t.litmus"))


def test_hrf_run_needs_sm_80_for_cp_async_and_sm_90_with_mbarriers():
    from hrf.gpu import prepare
    from hrf.gpu.lower import needs

    alone, _ = prepare(hrf.parse(FAMILY / "cp-async-wait-all.litmus"))
    assert needs(alone) == (80, "cp.async, sm_80's asynchronous copies")
    with_mbarrier, _ = prepare(hrf.parse(FAMILY / "MP+cp-async-mbar-noinc.litmus"))
    assert needs(with_mbarrier) == (90, "cp.async, sm_80's asynchronous copies, mbarriers")


HEAD = "PTX t\n{\n%s\nP0:r0=0; P1:r0=0; P1:r1=0;\n}\n P0@cta 0,cluster 0,gpu 0 | P1@cta %s,cluster 0,gpu 0 ;\n%s\nexists (P1:r0 == 1)\n"
ARRIVE = "mbarrier.arrive.release.cta.shared::cta.b64 _, [b]"
WAIT = "mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 r0, [b], 0"


CPA = "b @ mbarrier P1 = 1; d @ shared P0; g=1;"  # a copy's locations: d in P0's shared memory, g global
RED_INIT = "b @ mbarrier P1 = 1; d @ shared P0; x=0;"  # a bulk reduction's: d its source, x global
TMA = "tm @ tensormap g = 16; " + CPA  # a tensor copy's: the tensor map of g's box
TMA_LOAD = "shared::cluster.global.tile.mbarrier::complete_tx::bytes"
# a multicast copy's test: two CTAs of a cluster, d1 and b1 at d0's and b0's offsets in CTA 1 (line 10: P0's row)
MC = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
MC_INIT = "g=1;\nd0 @ shared P0;\nd1 @ shared P1 offset d0;\nb0 @ mbarrier P0 = 1;\nb1 @ mbarrier P1 = 1 offset b0;"
MULTICAST_HEAD = """PTX t
{
%s
}
 P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 | P2@cta 0,cluster 1,gpu 0 ;
 %s | mbarrier.test_wait.parity.acquire.cluster.shared::cta.b64 r0, [b1], 0 | ld.weak r0, [g] ;
exists (P1:r0 == 1)
"""
WG = "b @ mbarrier P1 = 1; d @ shared P0; e @ shared P0; g=1;"  # a wgmma's: its matrices d and e in shared memory
WGMMA = "mma_async.sync.aligned.m64n8k32.s32.s8.s8"


def two(row0: str, row1: str, init: str = "b @ mbarrier P1 = 1;", cta1: int = 0) -> str:
    return HEAD % (init, cta1, f" {row0} | {row1} ;")


def on_line_7(init: str, cases) -> list:
    """REFUSED's entries for (P0's row, P1's CTA, error, words) cases over one init block."""
    return [(two(row, WAIT, init=init, cta1=cta1), error, words, 7) for row, cta1, error, words in cases]


def prefixed(prefix: str, init: str, cases) -> list:
    """REFUSED's entries for P0's rows `prefix` + row, with (row, error, words) cases over one init block."""
    return [(two(prefix + row, WAIT, init=init), error, words, 7) for row, error, words in cases]


# each: a test, the error's class, words of its message, the line it names
REFUSED = [
    (two(ARRIVE, WAIT.replace("], 0", "], 2")), LitmusSyntaxError, "a parity, 0 or 1", 7),
    (
        two(ARRIVE.replace(".cta.shared::cta", ".cluster.shared::cluster").replace("_,", "r1,"), WAIT),
        LitmusSyntaxError,
        "returns no state",
        7,
    ),
    (two(ARRIVE, WAIT.replace(".parity", "")), LitmusSyntaxError, "a register", 7),
    (
        two("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [b], 1000000", WAIT)
        .replace("P1:r1=0;", "P1:r1=0; P0:r1=0;")
        .replace(" ;\nexists", " ;\n mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [b], 100000 | ;\nexists"),
        UnsupportedFeature,
        "expect 1100000 bytes, beyond the tx-count's range",
        8,
    ),
    (two("mbarrier.init.shared::cta.b64 [b], 2", WAIT), UnsupportedFeature, "initialised with counts 1 and 2", 7),
    (two(ARRIVE, WAIT, init="b=0;"), LitmusSyntaxError, "b is no mbarrier", 7),
    (two("ld.weak r0, b", WAIT), LitmusSyntaxError, "only mbarrier instructions", 7),
    (two(ARRIVE, WAIT, init="b @ mbarrier P1 = 0;"), LitmusSyntaxError, "count is 1 to", 3),
    (two(ARRIVE, WAIT, init="b @ mbarrier P7 = 1;"), LitmusSyntaxError, "no P7", 7),
    (two(ARRIVE, WAIT, cta1=1), LitmusSyntaxError, "through .shared::cluster", 7),
    (
        two("ld.shared::cta.weak r0, [x]", "st.weak y, 1", init="x @ shared P1;", cta1=1),
        LitmusSyntaxError,
        ".shared::cluster",
        7,
    ),
    (two("ld.global.weak r0, [x]", "st.weak y, 1", init="x @ shared P1;"), LitmusSyntaxError, "not .global", 7),
    (
        two("ld.shared::cta.weak r0, [x]", "st.weak y, 1", init="x=0;"),
        LitmusSyntaxError,
        "not declared in shared memory",
        7,
    ),
    (two("mbarrier.arrive.bogus.b64 _, [b]", WAIT), LitmusSyntaxError, "not .bogus", 7),
    (two("mbarrier.expect_tx.cta.shared::cta.b64 [b], 16", WAIT), LitmusSyntaxError, ".relaxed is required", 7),
    (two("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [b], 2000000", WAIT), LitmusSyntaxError, "range", 7),
    (two("mbarrier.inval.shared::cta.b64 [b]", WAIT), UnsupportedFeature, "not modelled", 7),
    (two("cp.async.bulk.tensor.2d.shared::cluster.global [b], [x]", WAIT), UnsupportedFeature, "in tile mode", 7),
    (
        two(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [d], [g], 7, [b]",
            WAIT,
            init="b @ mbarrier P1 = 1; d @ shared P1;",
        ),
        LitmusSyntaxError,
        "multiple of 16",
        7,
    ),
    (two("fence.proxy.async.local", WAIT), LitmusSyntaxError, "fence.proxy.async", 7),
    (two("fence.mbarrier_init.release.gpu", WAIT), LitmusSyntaxError, "one form", 7),
    (two("barrier.cluster.wait", "barrier.cluster.arrive"), LitmusSyntaxError, "an arrive, then a wait", 7),
    (two("barrier.cluster.arrive.acquire", WAIT), LitmusSyntaxError, "barrier.cluster.arrive", 7),
    (
        HEAD
        % (
            "b @ mbarrier P1 = 1;",
            0,
            " barrier.cluster.arrive | st.weak x, 1 ;\n barrier.cluster.wait | st.weak y, 1 ;",
        ),
        UnsupportedFeature,
        "different numbers of times",
        None,
    ),
    (two("cp.async.cg.shared.global [d], [g], 4", WAIT, init=CPA), LitmusSyntaxError, "a cp-size of 16 bytes", 7),
    (two("cp.async.ca.global.shared [g], [d], 4", WAIT, init=CPA), LitmusSyntaxError, "the ISA's one direction", 7),
    (two("cp.async.ca.shared.global [d], [g], 4, 2", WAIT, init=CPA), UnsupportedFeature, "zero fill", 7),
    *[
        (two(row, WAIT, init=CPA), error, words, 7)
        for row, error, words in (
            ("cp.async.ca.shared.global.L2::cache_hint [d], [g], 4, 4, 7", UnsupportedFeature, "zero fill"),
            ("cp.async.ca.shared.global.L2::128B.L2::64B [d], [g], 4", LitmusSyntaxError, "the ISA's one direction"),
            ("cp.async.ca.shared.global.L2::256B.L2::cache_hint [d], [g], 4, 7", LitmusSyntaxError, "{.L2::64B"),
        )
    ],
    (
        two("cp.async.ca.shared.global [g], [d], 4", WAIT, init=CPA),
        LitmusSyntaxError,
        "g is not declared in shared memory",
        7,
    ),
    (two("cp.async.wait_group 8", WAIT), UnsupportedFeature, "N up to 7", 7),
    (two("cp.async.wait_group r0", WAIT), LitmusSyntaxError, "an integer constant", 7),
    (two("cp.async.mbarrier.arrive.release.b64 [b]", WAIT), LitmusSyntaxError, "the ISA's form", 7),
    *on_line_7(
        RED_INIT,
        (
            (f"cp.reduce.async.bulk.{form} [x], [d], 16", 0, error, words)
            for form, error, words in (
                ("global.shared::cta.bulk_group.add.f32", UnsupportedFeature, "hrf's values are integers"),
                ("global.shared::cta.bulk_group.add.noftz.bf16", UnsupportedFeature, "hrf's values are integers"),
                ("global.shared::cta.bulk_group.and.u32", LitmusSyntaxError, ".and.u32 is not among the ISA's"),
                (
                    "shared::cluster.shared::cta.mbarrier::complete_tx::bytes.L2::cache_hint.add.u32",
                    LitmusSyntaxError,
                    "the source or the destination in .global",
                ),
                ("global.shared::cta.mbarrier::complete_tx::bytes.add.u32", UnsupportedFeature, "hrf models"),
            )
        ),
    ),
    *on_line_7(
        "b @ mbarrier P1 = 1; d @ shared P1; e @ shared P0;",
        (
            ("st.async.shared::cluster.u32 [d], 1, [b]", 1, LitmusSyntaxError, "the completion mechanism is required"),
            ("st.async.release.gpu.global.u32 [d], 1", 1, UnsupportedFeature, "PTX ISA 8.7, sm_100"),
            ("st.async.mbarrier::complete_tx::bytes.v2.u32 [d], 1, [b]", 1, UnsupportedFeature, "vectors"),
            ("st.async.mbarrier::complete_tx::bytes.u32 [e], 1, [b]", 1, LitmusSyntaxError, "lie in two CTAs"),
            ("st.async.mbarrier::complete_tx::bytes.u32 [d], 1, [b]", 0, LitmusSyntaxError, "cluster_nctarank > 1"),
            ("red.async.relaxed.cluster.and.u32 [d], 1, [b]", 1, LitmusSyntaxError, "among the ISA's"),
            ("red.async.relaxed.gpu.add.u32 [d], 1, [b]", 1, LitmusSyntaxError, "red.async.relaxed.cluster"),
            ("red.async.release.cluster.add.u32 [d], 1, [b]", 1, UnsupportedFeature, "PTX ISA 8.7"),
            ("red.async.relaxed.cluster.add.u32 [d], 1, [b]", 0, LitmusSyntaxError, "not d of its own"),
        ),
    ),
    (two("prefetch.global.L3 [x]", WAIT), LitmusSyntaxError, "prefetch{.global,.local}.L1|.L2 [a]", 7),
    (two("prefetch.tensormap [x]", WAIT), UnsupportedFeature, "prefetch.tensormap", 7),
    (two("cp.async.bulk.prefetch.tensor.1d.L2.global [x], 16", WAIT), UnsupportedFeature, "tensors", 7),
    (two("cp.async.bulk.prefetch.L2.global [x], 8", WAIT), LitmusSyntaxError, "a multiple of 16", 7),
    (two("cp.async.bulk.wait_group 8", WAIT), UnsupportedFeature, "cp.async.bulk.wait_group 8: hrf reads N up to 7", 7),
    (two("cp.async.bulk.wait_group.write 0", WAIT), LitmusSyntaxError, "wait_group.read N (the ISA's forms)", 7),
    (
        two(
            "cp.async.bulk.global.shared::cta.bulk_group [x], [d], 16",
            WAIT,
            init="b @ mbarrier P1 = 1; d @ shared P1; x=0;",
            cta1=1,
        ),
        LitmusSyntaxError,
        "through .shared::cluster",
        7,
    ),
    (
        two("cp.async.bulk.global.shared::cta.bulk_group [d], [g], 16", WAIT, init=CPA),
        LitmusSyntaxError,
        "not .global",
        7,
    ),
    (
        two(
            "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [e], [d], 16, [b]",
            WAIT,
            init="b @ mbarrier P1 = 1; d @ shared P0; e @ shared P0;",
        ),
        LitmusSyntaxError,
        "writes another CTA's shared memory, not e of its own",
        7,
    ),
    (
        two(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [d], [g], 16, [b]",
            WAIT,
            init=CPA,
        ),
        LitmusSyntaxError,
        "expected ','",  # the ctaMask
        7,
    ),
    *prefixed(
        "cp.async.bulk.tensor.",
        TMA,
        (
            (f"2d.{TMA_LOAD} [d], [tm, {{0, 1}}], [b]", UnsupportedFeature, "hrf's tensor map holds one box"),
            (f"2d.{TMA_LOAD} [d], [tm, {{0}}], [b]", LitmusSyntaxError, "2 coordinates"),
            (f"2d.{TMA_LOAD} [d], [tm, {{0, r1}}], [b]", UnsupportedFeature, "coordinates are 0"),
            (f"1d.{TMA_LOAD} [d], [um, {{0}}], [b]", LitmusSyntaxError, "a tensor map of the initial state"),
            (f"1d.{TMA_LOAD} [d], [tm, 0], [b]", LitmusSyntaxError, "'{'"),
            (f"6d.{TMA_LOAD} [d], [tm, {{0}}], [b]", LitmusSyntaxError, ".1d, .2d, .3d, .4d or .5d"),
            (f"1d.{TMA_LOAD}.multicast::cluster [d], [tm, {{0}}], [b], 3", LitmusSyntaxError, "names CTA 1, which"),
            (
                "3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [d], [tm, {0, 0, 0}], [b], {0}",
                UnsupportedFeature,
                "in tile mode",
            ),
            (f"2d.{TMA_LOAD} [d], [tm, {{0, 0}}], [b], 0", LitmusSyntaxError, "needs .L2::cache_hint"),
            (
                f"2d.{TMA_LOAD}.L2::cache_hint [d], [tm, {{0, 0}}], [b], [g]",
                LitmusSyntaxError,
                "a register or a number",
            ),
            # a TMA store's source is the CTA's shared memory
            (
                "1d.global.shared::cta.bulk_group [tm, {0}], [g]",
                LitmusSyntaxError,
                "g is not declared in shared memory",
            ),
        ),
    ),
    # a tensor map's box is global memory
    (
        two(f"cp.async.bulk.tensor.1d.{TMA_LOAD} [d], [tm, {{0}}], [b]", WAIT, init="tm @ tensormap d = 16; " + CPA),
        LitmusSyntaxError,
        "not .global",
        7,
    ),
    (two(ARRIVE, WAIT, init="tm @ tensormap g = 24; " + CPA), LitmusSyntaxError, "a box's bytes, a multiple of 16", 3),
    *prefixed(
        "cp.reduce.async.bulk.tensor.",
        "tm @ tensormap g = 16; b @ mbarrier P1 = 1; d @ shared P0; g=1;",
        (
            ("1d.global.shared::cta.min.tile.bulk_group [tm, {0}], [d]", UnsupportedFeature, "element type"),
            (
                "3d.global.shared::cta.add.im2col_no_offs.bulk_group [tm, {0, 0, 0}], [d]",
                UnsupportedFeature,
                "tile mode",
            ),
            (
                "1d.shared::cluster.shared::cta.add.tile.bulk_group [tm, {0}], [d]",
                LitmusSyntaxError,
                "the ISA's one form",
            ),
            ("1d.global.shared::cta.mul.bulk_group [tm, {0}], [d]", LitmusSyntaxError, "not .mul"),
        ),
    ),
    (two("fence.proxy.tensormap::generic.release.gpu", WAIT), UnsupportedFeature, "modified on the device", 7),
    *[
        (two(row, WAIT), LitmusSyntaxError, words, 7)
        for row, words in (
            ("mbarrier.arrive.noComplete.release.cluster.shared::cta.b64 r1, [b], 1", ".noComplete{.release.cta}"),
            ("mbarrier.arrive.noComplete.relaxed.cta.shared::cta.b64 r1, [b], 1", ".noComplete{.release.cta}"),
            ("mbarrier.arrive.noComplete.expect_tx.shared::cta.b64 r1, [b], 16", ".noComplete{.release.cta}"),
            ("mbarrier.arrive.noComplete.shared::cluster.b64 _, [b], 1", ".noComplete{.release.cta}"),
            ("mbarrier.arrive.noComplete.shared::cta.b64 r1, [b]", "','"),
        )
    ],
    *[
        (two(fence, WAIT), UnsupportedFeature, ".sync_restrict) is not modelled", 7)
        for fence in (
            "fence.release.sync_restrict::shared::cta.cluster",
            "fence.acquire.sync_restrict::shared::cluster.cluster",
            "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster",
            "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster",
        )
    ],
    (two("tensormap.replace.tile.global_address.global.b1024.b64 [tm], r1", WAIT), UnsupportedFeature, "tensormap", 7),
    (two(ARRIVE, WAIT, init="tm @ tensormap P0 = 16; " + CPA), LitmusSyntaxError, "the tensor map's box", 3),
    *prefixed(
        "wgmma.",
        WG,
        (
            (
                f"{WGMMA.replace('s8.s8', 'f16.f16')} {{r1}}, [d], [e], 1, 1, 1, 0, 0",
                UnsupportedFeature,
                "integer forms",
            ),
            (f"{WGMMA.replace('s32.s8.s8', 's32.b1.b1.and.popc')} {{r1}}, [d], [e], 1", UnsupportedFeature, ".b1"),
            ("mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {r1}, [d], [e], r2, 0, 1", UnsupportedFeature, ".sp"),
            (f"{WGMMA.replace('n8k32', 'n40k32')} {{r1}}, [d], [e], 1", LitmusSyntaxError, "m64nNk32"),
            (f"{WGMMA.replace('s32.s8', 'u32.s8')} {{r1}}, [d], [e], 1", LitmusSyntaxError, "atype and btype"),
            (f"{WGMMA} {{r1, r2}}, [d], [e], 1", LitmusSyntaxError, "one element each"),
            (f"{WGMMA} {{r1}}, d, [e], 1", LitmusSyntaxError, "its one element's location"),
            (f"{WGMMA} {{r1}}, [d], [e], 2", LitmusSyntaxError, "scale-d: 0, 1"),
            (f"{WGMMA} {{r1}}, [d], [g], 1", LitmusSyntaxError, "g is not declared in shared memory"),
            ("wait_group.sync.aligned 9", UnsupportedFeature, "wgmma.wait_group 9: hrf reads N up to 7"),
            ("fence.aligned", LitmusSyntaxError, "wgmma.fence.sync.aligned"),
        ),
    ),
    *prefixed(
        "",
        "b @ mbarrier P1 = 1; d @ shared P0; g=1;",
        (
            ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {r1, r2, r3, r4}, [d]", UnsupportedFeature, "hrf reads .x1"),
            ("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {r1, r2}, [d]", UnsupportedFeature, ".m16n16"),
            ("ldmatrix.m8n8.x1.shared.b16 {r1}, [d]", LitmusSyntaxError, "ldmatrix.sync.aligned (the ISA"),
            ("stmatrix.sync.aligned.m8n8.x1.shared.b8 [d], {r1}", LitmusSyntaxError, "shape and type among"),
            ("ldmatrix.sync.aligned.m8n8.x1.b16 {r1, r2}, [d]", LitmusSyntaxError, "one register"),
            ("ldmatrix.sync.aligned.m8n8.x1.b16 {r1}, [g]", LitmusSyntaxError, "g is not declared in shared memory"),
            ("stmatrix.sync.aligned.m8n8.x1.global.b16 [d], {r1}", LitmusSyntaxError, "the ISA's form"),
        ),
    ),
    *[
        (MULTICAST_HEAD % (init, row), error, words, line)
        for init, row, error, words, line in (
            (MC_INIT, f"{MC} [d0], [g], 16, [b0], 5", LitmusSyntaxError, "ctaMask names CTA 2", 10),
            (MC_INIT, f"{MC} [d0], [g], 16, [b0], r1", UnsupportedFeature, "a constant mask", 10),
            (MC_INIT, f"{MC} [d0], [g], 16, [b0], 0", LitmusSyntaxError, "at least one CTA", 10),
            (
                MC_INIT.replace(" offset d0", ""),
                f"{MC} [d0], [g], 16, [b0], 3",
                LitmusSyntaxError,
                "no location at d0's offset in CTA 1",
                10,
            ),
            (
                MC_INIT.replace("offset d0", "offset e"),
                f"{MC} [d0], [g], 16, [b0], 3",
                LitmusSyntaxError,
                "declared before it",
                5,
            ),
            (
                MC_INIT.replace("d1 @ shared P1", "d1 @ shared P0"),
                f"{MC} [d0], [g], 16, [b0], 3",
                LitmusSyntaxError,
                "already has one there",
                5,
            ),
            (
                MC_INIT.replace("d1 @ shared P1", "d1 @ shared P2"),
                "ld.shared::cta.u32 r1, [d0]",
                LitmusSyntaxError,
                "not another's",
                5,
            ),
            (
                MC_INIT,
                "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster [d0], [d1], 16, [b0], 3",
                LitmusSyntaxError,
                "copies global memory",
                10,
            ),
        )
    ],
    *[
        (MULTICAST_HEAD % (MC_INIT, row), error, words, 10)
        for row, error, words in (
            ("mapa.shared::cluster.u32 r5, d0, r1", UnsupportedFeature, "a constant rank"),
            ("mapa.shared::cluster.u32 r5, d0, 2", LitmusSyntaxError, "no location at d0's offset in CTA 2"),
            ("mapa.shared::cluster.b32 r5, d0, 1", LitmusSyntaxError, "mapa{.shared::cluster}.u32 or .u64"),
            ("mapa.shared::cluster.u32 r5, d0, 1 ; add r6, r5, 4", LitmusSyntaxError, "r5 holds d1's address"),
        )
    ],
    (
        (MULTICAST_HEAD % (MC_INIT, "mapa.shared::cluster.u32 r5, d0, 1")).replace(",cluster 0", ""),
        LitmusSyntaxError,
        "name its cluster",
        10,
    ),
    (two("mbarrier.arrive.release.cta.shared::cta.b64 _, [b", WAIT), LitmusSyntaxError, "']'", 7),
    (two("mbarrier.arrive.release.cta.shared:cta.b64 _, [b]", WAIT), LitmusSyntaxError, None, 7),
]


@pytest.mark.parametrize("text,error,words,line", REFUSED, ids=[str(k) for k in range(len(REFUSED))])
def test_mutated_forms_give_located_errors(text, error, words, line):
    with pytest.raises(error) as e:
        parse_text(text, "t.litmus")
    assert isinstance(e.value, HrfError)
    if words is not None:
        assert words in str(e.value)
    if line is not None:
        assert f":{line}:" in str(e.value), str(e.value)


def test_the_forms_read_into_the_one_ast():
    t = hrf.parse((FAMILY / "bulk-copy-wait.litmus").read_text())
    kinds = [(type(op).__name__, op.tags) for op in t.threads[0].ops]
    assert kinds == [
        ("Rmw", ("GEN", "MBAR", "ARRIVE")),  # the arrive with its expect_tx
        ("Fence", ("MBDONE",)),  # on the path where it completed the phase, a marker
        ("Load", ("ASYNC", "BULK")),  # the copy's read of the source
        ("Store", ("ASYNC", "BULK")),  # its write of the destination
        ("Fence", ("ASYNC", "BULK")),  # the implicit generic-async proxy fence
        ("Rmw", ("GEN", "MBAR", "BULK")),  # its complete-tx, a release at cluster scope
        ("Fence", ("MBDONE",)),
    ]
    arrive, complete = t.threads[0].ops[0], t.threads[0].ops[-2]
    assert (arrive.order, arrive.scope, complete.order, complete.scope) == ("rel", "wg", "rel", "qf")
    d = next(i for i in t.init if i.loc == "d")
    assert (d.space, d.owner) == ("shared", "P1")


def _forbidden_by_hand(sync: str, rel: str, acq: str, scope: str, where: str, place: str) -> bool:
    """The generated family's verdicts, derived from the ISA's text as the
    manifest's are: message passing is forbidden exactly when the signal
    synchronises."""
    # release and acquire synchronise when morally strong: one CTA, or
    # cluster scope for two CTAs of the cluster
    strong = place == "cta" or scope == "cluster"
    # an mbarrier's second phase: the acquire wait that sees phase 1 complete reads the second
    # arrive's state (the wait on phase 0 came before it), which releases the data alone
    if sync in ("mbarrier", "mbarrier-phase", "dsmem"):
        return rel == "release" and acq == "acquire" and strong
    if sync == "cluster-barrier":  # the wait is always an acquire; a relaxed arrive releases after a fence
        return rel in ("release", "fence")
    if sync == "cp-async":  # one CTA; where: how the producer completes the copy before its arrive
        # a wait that completes the copy's group puts it before the arrive, whose release the
        # acquire takes; an arrive-on (cp.async.mbarrier.arrive) releases the copy itself, and the
        # phase waits for it, whatever the plain arrive's order; no wait, or a copy in no
        # committed group, leaves it unordered with the arrive (an async operation: not released)
        if where in ("wait-all", "wait-group"):
            return rel == "release" and acq == "acquire"
        return where in ("mbarrier", "mbarrier-noinc") and acq == "acquire"
    if sync == "bulk-group":  # one CTA or two; where: how the producer completes the copy before its flag
        # wait_group 0 completes the copy's write (and the implicit proxy fence) before the flag's
        # release; .read completes its read alone, no commit puts it in no group, no wait completes
        # nothing; without fence.proxy.async the copy may read s before the generic store of 1
        return where == "wait" and rel == "release" and acq == "acquire" and strong
    # bulk: the copy's complete-tx releases at cluster scope whatever the
    # arrive's order, and is performed in the CTA of its mbarrier, the
    # reader's: a wait of either scope is morally strong with it; the copy
    # reads the generic write only after a proxy fence of its space (g is
    # global: .global or no space named)
    return where in ("async", "global") and acq == "acquire"


def test_the_generated_sync_family_gives_the_verdicts_derived_by_hand():
    from hrf.generate import generate

    tests = generate(dialect="ptx", sync="mbarrier,mbarrier-phase,cluster-barrier,dsmem,bulk,cp-async,bulk-group")
    assert len(tests) == 32 + 32 + 6 + 32 + 48 + 48 + 80
    for t in tests:
        _, sync, rel, acq, scope, where, place = t.name.split("+")
        r = hrf.check(t, "ptx-8.0")
        assert r.complete and r.condition_holds is not _forbidden_by_hand(sync, rel, acq, scope, where, place), t.name
        # the second phase's waits retry: every execution that ends saw phase 0 before phase 1's arrive
        assert r.flags == [] or sync != "mbarrier-phase", t.name
    # the hand-derived family's members among them agree
    same = {
        "MP+mbar-cta": "MP+mbarrier+release+acquire+cta+global+cta",
        "MP+mbar-cluster": "MP+mbarrier+release+acquire+cluster+global+cluster",
        "MP+cp-async-mbar-arrive": "MP+cp-async+release+acquire+cta+mbarrier+cta",
        "MP+cp-async-arrive-untracked": "MP+cp-async+release+acquire+cta+none+cta",
    }
    by_name = {t.name: t for t in tests}
    for shipped, generated in same.items():
        assert (
            hrf.check(str(FAMILY / f"{shipped}.litmus"), "ptx-8.0").condition_holds
            is hrf.check(by_name[generated], "ptx-8.0").condition_holds
        )


def test_the_sync_family_is_written_and_read_back(tmp_path):
    from hrf.cli import main

    assert main(["generate", "--dialect", "ptx", "--sync", "bulk", "--count", "5", "--out", str(tmp_path)]) == 0
    files = sorted(tmp_path.glob("*.litmus"))
    assert len(files) == 5
    assert all(hrf.check(str(f), "ptx-8.0").complete for f in files)
    with pytest.raises(HrfError, match="--dialect ptx"):
        hrf.generate(sync="bulk")


@pytest.mark.parametrize("name", ["async-read-fence", "async-read-no-fence", "async-read-fence+test"])
def test_a_bulk_copy_is_asynchronous_to_its_own_thread(name):
    # By hand (the ISA: cp.async.bulk is asynchronous, its completion known
    # through the mbarrier alone): the wait after the copy in the same thread
    # may run before the copy's complete-tx, so it may return false (r0=0)
    # with d still 0 or already copied. The H200 showed both (docs/hardware.md).
    # Placing the copy's events where the instruction is in program order
    # forbade r0=0 by coherence on the mbarrier (the wait read the complete-tx).
    r = hrf.check(str(FAMILY / f"{name}.litmus"), "ptx-8.0")
    seen = [(o["0:r0"], o["0:r1"]) for o in r.outcomes]
    assert (0, 0) in seen and (0, 1) in seen and (1, 1) in seen


def test_a_waits_acquire_is_on_its_mbarrier_alone():
    """A wait with .acquire that returns True is an acquire operation on its
    mbarrier ("Release and Acquire Patterns" 1.), not an acquire fence: a
    relaxed read of y before it forms no acquire pattern on y (2. needs the
    acquire on y, 3. a fence). P0's release of y, read by P1's relaxed load,
    then synchronises with nothing, and the relaxed arrive releases nothing:
    P1 may read x=0 (allowed). With fence.acquire after the wait, the read of
    y and the fence form the pattern and x=0 is forbidden."""
    text = HEAD % (
        "b @ mbarrier P1 = 1; x=0; y=0; P1:r2=0;",
        0,
        " st.weak x, 1 | ld.relaxed.cta r1, y ;\n"
        " st.release.cta y, 1 | " + WAIT + " ;\n"
        " mbarrier.arrive.relaxed.cta.shared::cta.b64 _, [b] | {after} ;\n"
        "  | ld.weak r2, x ;",
    )
    text = text.replace("exists (P1:r0 == 1)", "exists (P1:r0 == 1 /\\ P1:r1 == 1 /\\ P1:r2 == 0)")
    assert hrf.check(text.replace("{after}", ""), "ptx-8.0").condition_holds is True
    assert hrf.check(text.replace("{after}", "fence.acquire.cta"), "ptx-8.0").condition_holds is False


# ---------------------------------------------------------------- an mbarrier's phases
def test_an_update_completes_its_phase_and_begins_the_next():
    """ "Phase Completion": the pending arrivals reach 0 and the tx-count 0;
    then, atomically, the next phase begins with the count's arrivals. The
    value function on hrf's encoding, step by step for count 2 with a
    transaction of 16 bytes, and a wait's parity read of each state."""
    from hrf.litmus.ptx_hopper import ARRIVAL, PHASE, phase_update, wait_done

    def apply(fn, old):  # the value function, evaluated as the core does (Old: the value read)
        def ev(e):
            if isinstance(e, A.Old):
                return old
            if isinstance(e, A.Const):
                return e.value
            x, y = ev(e.left), ev(e.right)
            return {"+": x + y, "*": x * y, "&": x & y, "==": int(x == y), "!=": int(x != y)}[e.op]

        return ev(fn)

    state = 2 * ARRIVAL  # phase 0, 2 pending, no transaction
    # arrive; arrive.expect_tx 16; complete_tx 16 (phase 0 done); arrive; complete_tx 16 before
    # its expect_tx (a tx-count of -16); arrive.expect_tx 16 (phase 1 done); complete_tx 16 early
    steps = [(-ARRIVAL, 0), (16 - ARRIVAL, 0), (-16, 1), (-ARRIVAL, 1), (-16, 1), (16 - ARRIVAL, 2), (-16, 2)]
    for delta, phase in steps:
        state = apply(phase_update(delta, 2), state)
        assert (state + PHASE // 2) // PHASE == phase
        for parity in (0, 1):  # complete: the phase of that parity is not the current one
            assert apply(wait_done(A.Old(), parity), state) == int(phase % 2 != parity)
    assert state == 2 * PHASE + 2 * ARRIVAL - 16  # phase 2, two arrivals pending, a tx-count of -16


def test_an_mbarriers_state_is_shown_as_the_isa_names_it():
    from hrf.litmus.ptx_hopper import ARRIVAL, PHASE, state_text

    assert state_text(2 * ARRIVAL) == "phase 0: 2 pending"
    assert state_text(PHASE + ARRIVAL - 16) == "phase 1: 1 pending, tx-count -16"
    assert state_text(2 * PHASE + 16) == "phase 2: 0 pending, tx-count 16"
    assert state_text(0) == "uninitialised"
    r = hrf.check(str(FAMILY / "MP+mbar-phase1.litmus"), "ptx-8.0")
    assert "P0 line 11: W b=phase 2: 1 pending" in r.to_herd()


def test_each_update_of_an_mbarrier_carries_its_phases():
    t = hrf.parse(FAMILY / "bulk-copy-wait.litmus")
    updates = [op for op in t.threads[0].ops if isinstance(op, A.Rmw) and "MBAR" in op.tags]
    assert len(updates) == 2 and all(op.update is not None for op in updates)
    assert all(op.op == "add" for op in updates)  # the instruction as written, for graphs and hrf run


def test_a_tracking_arrive_alone_completes_no_phase():
    """cp.async.mbarrier.arrive without .noinc "increments the pending count
    by 1 prior to the asynchronous arrive-on": the two leave the count as it
    was, so P0's alone never completes a phase of count 1 and P1's wait never
    returns true (refused when hrf modelled the first phase alone)."""
    text = two("cp.async.mbarrier.arrive.shared::cta.b64 [b]", WAIT)
    assert hrf.check(parse_text(text, "t.litmus"), "ptx-8.0").condition_holds is False
    assert hrf.check(parse_text(two(ARRIVE, WAIT), "t.litmus"), "ptx-8.0").condition_holds is True


def test_an_arrives_state_is_a_waits_operand_alone():
    """The state an arrive returns is opaque (the ISA): hrf keeps its own
    encoding in the register, which no code or final state may read."""
    state = "mbarrier.arrive.release.cta.shared::cta.b64 r1, [b]"
    for row, cond, words in [
        ("st.weak x, r1", "P1:r0 == 1", "P0: r1 holds an mbarrier's state"),
        ("ld.weak r2, x", "P0:r1 == 0", "observes P0:r1, an mbarrier's state"),
    ]:
        text = HEAD % ("b @ mbarrier P1 = 1; x=0;", 0, f" {state} | {WAIT} ;\n {row} | ;")
        with pytest.raises(LitmusSyntaxError, match=words):
            parse_text(text.replace("exists (P1:r0 == 1)", f"exists ({cond})"), "t.litmus")


def test_a_try_waits_time_limit_is_a_hint():
    """suspendTimeHint bounds how long the thread may be suspended; the wait
    may return false either way, as hrf's try_wait does: the same outcomes."""
    plain = two(ARRIVE, WAIT.replace("test_wait", "try_wait"))
    hinted = two(ARRIVE, WAIT.replace("test_wait", "try_wait") + ", 1000")
    a, b = (hrf.check(parse_text(t, "t.litmus"), "ptx-8.0") for t in (plain, hinted))
    assert sorted(map(str, a.outcomes)) == sorted(map(str, b.outcomes)) and a.condition_holds is True


def test_an_mbarrier_in_the_final_state_is_refused():
    text = two(ARRIVE, WAIT).replace("exists (P1:r0 == 1)", "exists (b == 0)")
    with pytest.raises(LitmusSyntaxError, match=":3:.*observes b, an mbarrier: an opaque object"):
        parse_text(text, "t.litmus")


# the tests of the family whose unpruned reference ends within its limit
REFERENCE_ENDS = (
    "MP+mbar-phase1",
    "MP+mbar-phase1-relaxed",
    "MP+mbar-parity1",
    "MP+mbar-count2",
    "bulk-copy-wait",
    "bulk-copy-spin",
    "MP+cp-async-mbar-arrive",
    "mbar-init-no-fence",
    "MP+st-async",
    "MP+bulk-reduce-dsmem",
)


@pytest.mark.parametrize("name", REFERENCE_ENDS)
def test_exact_mbarrier_values_keep_the_references_outcomes(name):
    """The fast path gives a location that only RMWs of constant values
    write the values of their chains alone (each RMW once); the reference
    takes the fixpoint over every write: the same outcomes, flags and verdict."""

    def summary(r):
        outcomes = sorted(tuple(sorted(o.items())) for o in r.outcomes)
        return outcomes, r.consistent, r.observation, r.flagged_executions, r.condition_holds

    slow = hrf.check(str(FAMILY / f"{name}.litmus"), "ptx-8.0", reference=True, max_candidates=200_000)
    fast = hrf.check(str(FAMILY / f"{name}.litmus"), "ptx-8.0")
    assert slow.complete and fast.complete
    assert summary(fast) == summary(slow)
    assert fast.candidates <= slow.candidates


def test_an_unwaited_phase_names_the_arrive_and_the_update_that_began_its_phase():
    r = hrf.check(str(FAMILY / "MP+mbar-phase1.litmus"), "ptx-8.0")
    (flag,) = {f["kind"]: f for f in r.flags}.values()
    assert [(e["thread"], e["kind"], e["line"]) for e in flag["events"]] == [("P0", "W", 9), ("P0", "W", 11)]
    # the same program with P0 waiting for phase 0 first: no flag (MP+mbar-phase1-waited)
    assert hrf.check(str(FAMILY / "MP+mbar-phase1-waited.litmus"), "ptx-8.0").flags == []


def test_a_ring_refilled_without_its_empty_wait_can_hang():
    """mbar-pipeline-no-empty-wait: where the producer's second arrive on
    full comes before the consumer's wait on parity 0, the object is in
    phase 2 (parity 0 again) and that wait never returns true: the liveness
    check finds the consumer spinning for ever, and those executions are
    the ones the ISA's rule on phases flags. With the empty wait, none."""
    bad = hrf.check(str(FAMILY / "mbar-pipeline-no-empty-wait.litmus"), "ptx-8.0", liveness=True)
    assert "not live under fair progress: P1 spins forever in the loop at line 10" in str(bad)
    assert [f["kind"] for f in bad.flags] == ["mbarrier_phase_unwaited"]
    good = hrf.check(str(FAMILY / "mbar-pipeline.litmus"), "ptx-8.0", liveness=True)
    assert "live under fair progress: no execution spins forever" in str(good) and good.flags == []


def test_a_wgmma_reads_its_matrices_through_the_async_proxy():
    """wgmma-unwaited-add: the wgmma's two reads and its proxy fence carry its
    registers' tag (r0: WREG0); the add that reads r0 before the wait has the
    marker of that access before it; the accumulator takes A x B."""
    t = hrf.parse((FAMILY / "wgmma-unwaited-add.litmus").read_text())
    ops = [(type(op).__name__, op.tags) for op in t.threads[0].ops]
    wg = ("ASYNC", "WGMMA", "WGOP", "WREG0")
    assert ops == [
        ("Store", ("GEN",)),
        ("Fence", ("ASYNC", "local")),  # fence.proxy.async.shared::cta
        ("Fence", ("WGMMA", "WFENCE")),
        ("Load", wg),  # A's element, sa
        ("Load", wg),  # B's, sb
        ("Fence", wg),  # the proxy fence after its completion
        ("Fence", ("WGMMA", "WCOMMIT")),
        ("Fence", ("WGMMA", "WREGUSE", "WREG0")),  # the add's access to r0
        ("Fence", ("WGMMA", "WWAIT0")),
    ]
    r = hrf.check(t, "ptx-8.0")
    # r1 = r0 + 1, r0 = 2 x 3 (sa x sb after the proxy fence), in every execution, each flagged
    assert r.outcomes == [{"0:r1": 7}] and [f["kind"] for f in r.flags] == ["wgmma_register_unwaited"]


def test_older_models_refuse_wgmma_by_name():
    with pytest.raises(UnsupportedFeature) as e:
        hrf.check(str(FAMILY / "wgmma-chain.litmus"), "ptx-7.5")
    assert "wgmma" in str(e.value) and "sm_90a" in str(e.value)


@pytest.mark.parametrize(
    "plain,hinted",
    [
        (
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [d], [g], 16, [b]",
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [d], [g], 16, [b], r1",
        ),
        (
            f"cp.async.bulk.tensor.1d.{TMA_LOAD} [d], [tm, {{0}}], [b]",
            f"cp.async.bulk.tensor.1d.{TMA_LOAD}.L2::cache_hint [d], [tm, {{0}}], [b], 0",
        ),
        (
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [g], [d], 16",
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.add.u32 [g], [d], 16, r1",
        ),
        (
            "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [tm, {0}], [d]",
            "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.bulk_group.L2::cache_hint [tm, {0}], [d], r1",
        ),
        ("cp.async.bulk.prefetch.L2.global [g], 16", "cp.async.bulk.prefetch.L2.global.L2::cache_hint [g], 16, r1"),
    ],
)
def test_a_cache_hint_is_no_event(plain, hinted):
    """ "cache-policy is a hint ... and does not change the memory consistency behavior": the
    hinted form reads into the plain one's operations (a reduction of the tensor map's box too)."""
    a, b = (parse_text(two(row, WAIT, init=TMA), "t.litmus") for row in (plain, hinted))
    assert a.threads[0].ops == b.threads[0].ops
    assert "TENSOR" in str(b.threads[0].ops) or "tensor" not in plain


def test_the_ring_generator_gives_the_familys_verdicts():
    """benchmarks/rings/tma_ring.py at sizes the unit suite affords, against
    the derivations of litmus/ptx8's tma-ring (manifest.toml): a stage used
    once (2 stages, 2 rounds) is read after its one copy completes, fence or
    not: never another tile. One stage refilled (1 stage, 2 rounds): without
    the consumer's proxy fence its generic read and the refill's async write
    are not in proxy-preserved causality order, so round 1 may read tile 2
    (tma-ring); with it, never (tma-ring+fence). The consumer's last release
    (which tma-ring leaves out) is read by no one."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "rings" / "tma_ring.py"
    spec = importlib.util.spec_from_file_location("tma_ring", path)
    assert spec and spec.loader
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    verdicts = {
        (2, 2, True): False,
        (2, 2, False): False,
        (1, 2, True): False,
        (1, 2, False): True,
    }
    for (stages, rounds, fence), holds in verdicts.items():
        r = hrf.check(parse_text(gen.ring(stages, rounds, fence), "ring.litmus"), "ptx-8.0")
        assert r.complete and r.condition_holds is holds and r.flags == [], (stages, rounds, fence)
    # the shipped benchmark is the generator's
    shipped = path.parent / "tma-ring-2x4.litmus"
    assert shipped.read_text() == gen.ring(2, 4)


def test_a_copys_write_into_a_ctas_shared_memory_is_performed_in_that_cta():
    """docs/readings.md: a bulk copy's write, and its implicit proxy fence, are
    in the thread block whose shared memory the write reaches (the event
    attribute `wg`); its read stays the issuing thread's. tma-multicast-war's
    copy writes d0 (CTA 0) and d1 (CTA 1)."""
    from hrf.program import compile_test

    comp = compile_test(hrf.parse(FAMILY / "tma-multicast-war.litmus"))
    cta = {t.name: comp.ir["threads"][k]["attrs"]["wg"] for k, t in enumerate(comp.test.threads)}
    bulk = [tpl for tpl in comp.templates if "BULK" in tpl.tags]
    writes = {
        tpl.text.split("[")[1].split("]")[0]: tpl.attrs.get("wg")
        for tpl in bulk
        if tpl.kind == "W" and "MBAR" not in tpl.tags
    }
    assert writes == {"d0": cta["P0"], "d1": cta["P1"]} and cta["P0"] != cta["P1"]
    fences = [tpl.attrs.get("wg") for tpl in bulk if tpl.kind == "F"]
    assert fences == [cta["P0"], cta["P1"]]
    reads = [tpl for tpl in bulk if tpl.kind == "R" and "MBAR" not in tpl.tags]
    assert reads and all("wg" not in tpl.attrs for tpl in reads)


def test_a_complete_tx_is_performed_in_its_mbarriers_cta():
    """docs/readings.md: the complete-tx of a copy issued in CTA 0 on CTA 1's
    mbarrier is performed in CTA 1 (its read and write carry `wg`), so P1's
    .cta acquire wait is morally strong with it: MP+tma-multicast-cta-wait
    is forbidden (the manifest's derivation). A remote mbarrier.arrive is
    its own thread's operation: MP+mbar-cluster-cta-wait, the same shape with
    an arrive for the copy, stays allowed."""
    from hrf.program import compile_test

    test = hrf.parse(FAMILY / "MP+tma-multicast-cta-wait.litmus")
    comp = compile_test(test)
    cta = {t.name: comp.ir["threads"][k]["attrs"]["wg"] for k, t in enumerate(comp.test.threads)}
    complete = [tpl for tpl in comp.templates if {"BULK", "MBAR"} <= set(tpl.tags)]
    where = sorted((tpl.text.split("[")[-1].split("]")[0], tpl.kind, tpl.attrs.get("wg")) for tpl in complete)
    # one complete-tx a CTA of the mask, each a read and a write of its mbarrier
    assert where == [
        ("full0", "R", cta["P0"]),
        ("full0", "W", cta["P0"]),
        ("full1", "R", cta["P1"]),
        ("full1", "W", cta["P1"]),
    ]
    r = hrf.check(test, "ptx-8.0")
    assert r.complete and r.condition_holds is False and r.flags == []
    arrive = hrf.parse(FAMILY / "MP+mbar-cluster-cta-wait.litmus")
    remote = [tpl for tpl in compile_test(arrive).templates if "MBAR" in tpl.tags]
    assert remote and all("wg" not in tpl.attrs for tpl in remote)
    assert hrf.check(arrive, "ptx-8.0").condition_holds is True


def test_an_event_in_another_thread_block_is_refused_by_the_isabelle_export():
    """Isabelle's same_attr reads an event's own attributes, not its thread's:
    an execution with a copy's write performed in another CTA has no term yet."""
    from hrf.isabelle.tests import execution_term
    from hrf.program import compile_test

    test = hrf.parse(FAMILY / "tma-multicast-war.litmus")
    comp = compile_test(test)
    (ex, *_) = hrf.check(test, "ptx-8.0", keep_all=True).executions
    with pytest.raises(UnsupportedFeature, match="another thread block than its thread's has no Isabelle form"):
        execution_term(comp, ex)


DSMEM_WAR = """PTX dsmem-war
"The WAR of a stage in another CTA's shared memory: P1 reads d, fences the async proxy and releases it remotely; P0 waits and copies into d from its own shared memory"
{
s @ shared P0 = 2;
d @ shared P1 = 1;
b @ mbarrier P1 = 1;
empty @ mbarrier P0 = 1;
P0:r2=0; P1:r1=0;
}
 P0@cta 0,cluster 0,gpu 0                                                                   | P1@cta 1,cluster 0,gpu 0                                       ;
 LC01:                                                                                      | ld.shared::cta.weak r1, [d]                                    ;
 mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 r2, [empty], 0                   | FENCE                                                          ;
 bne r2, 1, LC01                                                                            | mbarrier.arrive.release.cluster.shared::cluster.b64 _, [empty] ;
 cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [d], [s], 16, [b] |                                                                ;
exists
(P1:r1 == 2)"""


@pytest.mark.parametrize("fence,holds", [("fence.proxy.async.shared::cta", False), ("fence.acq_rel.cta", True)])
def test_a_copy_into_another_ctas_memory_is_ordered_by_that_ctas_proxy_fence(fence, holds):
    """The unicast form of tma-multicast-war, from shared memory (derived by
    hand, docs/readings.md): P1's generic read of d precedes its fence and its
    remote release arrive on empty, which P0's acquire wait at .cluster scope
    observes (morally strong: both .cluster, one cluster), and P0's copy is
    ordered after its wait: the read precedes the copy's async write of d in
    base causality order. That write is performed in CTA 1, whose shared memory
    it writes, as P1's fence.proxy.async.shared::cta is: the read precedes it
    in proxy-preserved base causality order, so it cannot read 2. With a
    fence that is no proxy fence, nothing on the path crosses the proxies:
    the read may see the copy's 2. No flag either way."""
    r = hrf.check(parse_text(DSMEM_WAR.replace("FENCE", fence), "dsmem-war.litmus"), "ptx-8.0")
    assert r.complete and r.condition_holds is holds and r.flags == []


def test_getctarank_is_mapas_inverse():
    """getctarank gives the rank of the CTA whose shared memory holds its
    operand ("the rank of the CTA which contains the address"): d1 lies in
    P1's CTA, rank 1 of cluster 0, d0 in P0's, rank 0; through a register
    mapa set to d0's offset in CTA 1, rank 1. An address in global memory,
    or in another cluster's CTA, is a located error (the ISA: a shared
    memory address of the cluster)."""
    head = "PTX t\n{\ng=1;\nd0 @ shared P0;\nd1 @ shared P1 offset d0;\n}\n"
    head += " P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 | P2@cta 0,cluster 1,gpu 0 ;\n"

    def text(p0: str, p2: str = "ld.weak r0, [g]") -> str:
        return head + f" {p0} | ld.weak r0, [g] | {p2} ;\nexists (P0:r3 == 1)\n"

    def rank(t: str) -> set:
        r = hrf.check(t, "ptx-8.0")
        assert r.error is None
        return {o["0:r3"] for o in r.outcomes}

    assert rank(text("getctarank.shared::cluster.u32 r3, d1")) == {1}
    assert rank(text("getctarank.u64 r3, d0")) == {0}
    mapped = text("mapa.shared::cluster.u32 r5, d0, 1").replace(
        "[g] ;\nexists", "[g] ;\n getctarank.shared::cluster.u32 r3, r5 | | ;\nexists"
    )
    assert rank(mapped) == {1}
    for t, words in (
        (text("getctarank.shared::cluster.u32 r3, g"), "g is declared in no CTA's"),
        (text("getctarank.shared::cluster.b32 r3, d1"), "getctarank{.shared::cluster}.u32 or .u64"),
        (text("ld.weak r3, [g]", "getctarank.shared::cluster.u32 r3, d0"), "another cluster's"),
    ):
        with pytest.raises(LitmusSyntaxError, match=re.escape(words)):
            parse_text(t, "t.litmus")
