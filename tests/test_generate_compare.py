"""Generation (diy-style cycles) and model comparison ."""

import pytest

import hrf
from hrf.generate import cycle_name, cycles, family, generate, size
from hrf.litmus import ast as A
from hrf.litmus.printer import to_litmus

CHAIN = dict(
    max_edges=5, max_threads=3, trees=("first-two-share-wg",), edges=("Rfe", "Fre", "PodWW", "PodRW", "PodRR", "PodWR")
)


def test_classic_shapes_are_cycles():
    names = {cycle_name(c) for c in cycles(6, 4)}
    for shape in [
        "PodWW-Rfe-PodRR-Fre",  # MP
        "PodWR-Fre-PodWR-Fre",  # SB
        "PodRW-Rfe-PodRW-Rfe",  # LB
        "Rfe-PodRW-Rfe-PodRR-Fre",  # WRC
        "Rfe-PodRR-Fre-Rfe-PodRR-Fre",
    ]:  # IRIW
        assert shape in names


def test_generated_mp_is_message_passing():
    t = next(t for t in family(max_edges=4) if t.name == "MP+na_sc.dev_sc.dev_na+same-wg")
    # by hand: the data read is guarded by the flag read; SC forbids r1 = 0
    r = hrf.check(t, "sc")
    assert r.condition_holds is False
    assert hrf.check(t, "hrf-direct").racy is False


def test_deterministic_and_valid():
    a = generate(count=200, seed=7, max_edges=4)
    b = generate(count=200, seed=7, max_edges=4)
    c = generate(count=200, seed=8, max_edges=4)
    assert [t.name for t in a] == [t.name for t in b] and [t.name for t in a] != [t.name for t in c]
    assert len({t.name for t in a}) == 200
    for t in a[:60]:  # printable in Dat3M syntax and parsed back unchanged
        assert hrf.parse(to_litmus(t)) == t
    assert all(2 <= len(t.threads) <= 4 for t in a)


def test_at_least_ten_thousand_distinct_tests():
    names = {t.name for t in family(max_edges=5, max_threads=3)}
    assert len(names) >= 10_000


def test_smallest_direct_indirect_separator_is_a_transitive_chain():
    # Over cycles of up to 5 edges on 3 threads, the two first sharing a
    # work-group: the smallest test that separates HRF-direct from
    # HRF-indirect has three threads, like [HRF14] Fig. 6: a synchronisation at
    # work-group scope, then one at device scope, then the data read.
    diffs = hrf.compare(family(**CHAIN), "hrf-direct", "hrf-indirect", workers=2)
    assert diffs, "some test separates the two models"
    smallest = diffs[0]
    assert len(smallest.test.threads) == 3
    assert smallest.what == ["racy"] and smallest.a.racy and not smallest.b.racy
    scopes = [op.scope for th in smallest.test.threads for op in A.memory_ops(th.body) if getattr(op, "atomic", False)]
    assert "wg" in scopes and "dev" in scopes
    # and no two-thread test separates them (transitivity needs a third party)
    assert all(len(d.test.threads) == 3 for d in diffs)


def test_no_test_is_direct_race_free_but_indirect_racy():
    tests = generate(count=800, seed=3, max_edges=5, max_threads=3)
    for d in hrf.compare(tests, "hrf-direct", "hrf-indirect", workers=2):
        assert not (d.a.racy is False and d.b.racy is True), d.test.name


def test_opencl_and_rsp_without_remote_operations():
    # Issue 4 expects `opencl` and `opencl-rsp` to differ exactly on tests
    # with remote operations. With hrf's definitions they do not: the
    # RSP cat's inclusion (incl1 & incl1^-1) lets a work-group-scope and a
    # device-scope operation of one work-group synchronise, while `opencl`
    # needs identical scopes. So they agree on non-remote tests whose
    # atomics all use one scope, and the smallest non-remote difference
    # mixes scopes. (Reported as a finding.)
    def has_remote(t):
        return any(getattr(op, "remote", False) for th in t.threads for op in A.memory_ops(th.body))

    def scopes_of(t):
        return {op.scope for th in t.threads for op in A.memory_ops(th.body) if getattr(op, "atomic", False)}

    tests = generate(count=400, seed=5, max_edges=4, orders=("na", "rlx", "acq", "rel", "sc"))
    assert not any(has_remote(t) for t in tests)
    one_scope = [t for t in tests if len(scopes_of(t)) <= 1]
    assert len(one_scope) > 50
    assert hrf.compare(one_scope, "opencl", "opencl-rsp", workers=2) == []
    diffs = hrf.compare(tests, "opencl", "opencl-rsp", workers=2)
    assert diffs and all(len(scopes_of(d.test)) > 1 for d in diffs)
    # Remote operations are outside `opencl`: hrf reports the refusal, it
    # does not count it as a difference.
    remote = [t for t in generate(count=40, seed=5, max_edges=4, remote=True) if has_remote(t)]
    assert remote and all(isinstance(r.error, hrf.UnsupportedFeature) for r in hrf.check_many(remote, ["opencl"]))


def test_size_orders_by_threads_then_accesses():
    ts = generate(count=50, seed=1, max_edges=5)
    assert sorted(ts, key=size)[0].threads.__len__() == 2


def test_regions_vary():
    ts = generate(count=300, seed=2, max_edges=4, regions=("global", "local"))
    regions = {p.region for t in ts for p in t.threads[0].params}
    assert regions == {"global", "local"}
    for t in ts[:30]:
        assert hrf.parse(to_litmus(t)) == t
    # A local flag does not order global data under OpenCL (separate hb):
    mp = next(
        t
        for t in family(
            max_edges=4, regions=("global", "local"), orders=("na", "rel", "acq"), scopes=("wg",), trees=("same-wg",)
        )
        if t.name == "MP+na_rel.wg_acq.wg_na+same-wg+local-y"
    )
    assert hrf.check(mp, "opencl").racy is True
    glob_mp = next(
        t
        for t in family(max_edges=4, orders=("na", "rel", "acq"), scopes=("wg",), trees=("same-wg",))
        if t.name == "MP+na_rel.wg_acq.wg_na+same-wg"
    )
    assert hrf.check(glob_mp, "opencl").racy is False


def test_named_cycles_are_forbidden_under_sc():
    # A diy cycle of po and external communication edges is an SC
    # violation by construction (the final condition asks for exactly the
    # cycle): under `sc` no test of any named shape may reach it, whatever
    # its annotations and placement.
    from hrf.generate import NAMED, parse_cycle

    for name in NAMED:
        assert parse_cycle(name) == parse_cycle(NAMED[name]) == parse_cycle(name.lower())
        tests = hrf.generate(cycle=name, orders=("na", "sc"), scopes=("dev",), trees=("same-wg", "dev-per-thread"))
        assert tests, name
        for t in tests:
            assert hrf.check(t, "sc").condition_holds is False, (name, t.name)


def test_cycle_rotations_are_one_cycle_and_bad_cycles_say_why():
    from hrf.generate import parse_cycle

    assert parse_cycle("Rfe PodRR Fre PodWW") == parse_cycle("PodWW, Rfe, PodRR, Fre") == parse_cycle("MP")
    with pytest.raises(hrf.InvalidArgument, match="Fence"):
        parse_cycle("Rfe Fence Fre PodWW")
    with pytest.raises(hrf.InvalidArgument, match="does not make a test"):
        parse_cycle("Rfe PodWW Fre PodWW")  # Rfe ends in a read, PodWW starts with a write


def test_cli_generate_one_cycle(tmp_path):
    from hrf.cli import main

    assert main(["generate", "--cycle", "SB", "--orders", "sc", "--scopes", "wg,dev", "--out", str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names and all(n.startswith("SB+") for n in names)
    assert main(["generate", "--cycle", "Rfe DpAddrdR Fre"]) == 2


def test_relax_and_safe_build_cycles_as_diy_does():
    # diy7's documentation: with one relaxation r, cycles of r and the safe
    # edges that contain r; with several (no mix), one such set per r.
    sb = ("Fre", "PodWR", "Fre", "PodWR")
    assert cycles(6, 4, ("Fre",), ("PodWR",)) == [sb, ("Fre", "PodWR") * 3]
    both = cycles(4, 4, ("Rfe", "Fre", "PodWW", "PodRR"), ("PodWR", "PodRW"))
    assert both and all(("PodWR" in c) != ("PodRW" in c) for c in both)
    assert set(cycles(4, 4, ("Rfe", "Fre", "PodWW", "PodRR", "PodRW"), ("PodWR",))) == {
        c for c in cycles(4, 4, ("Rfe", "Fre", "PodWW", "PodRR", "PodRW", "PodWR")) if "PodWR" in c
    }
    assert cycles(6, 4, ("Fre",)) == []  # Fre alone never closes (kinds R->W, W->? must chain)


def test_fence_and_dependency_edges_are_forbidden_under_sc():
    # Fences and dependencies only add order: each cycle of the extended
    # vocabulary is still a critical cycle, so `sc` forbids every test of it.
    safe = ("Rfe", "Fre", "Coe", "FencedWR", "FenceReldWW", "FenceAcqdRR", "DpDatadW", "DpCtrldR")
    cycs = cycles(4, 2, safe)
    assert {"FencedWR", "DpDatadW", "DpCtrldR"} <= {e for c in cycs for e in c}
    for c in cycs:
        for t in generate(cycle=" ".join(c), orders=("na", "rlx"), scopes=("dev",), trees=("same-wg",)):
            assert hrf.check(t, "sc").condition_holds is False, t.name


def test_sb_with_sc_fences_is_forbidden_under_c11_and_allowed_without():
    # By hand, C11 (Batty et al. 2011, sc fences): in SB with relaxed
    # atomics, W x; F_sc; R y and W y; F_sc; R x: the two fences are ordered
    # in S, say F0 before F1; then P1's read of x, after F1, must read P0's
    # write of x (sequenced before F0) or a later one, so r = 0 is impossible
    # on one side. Without the fences (PodWR) nothing forbids both zeros.
    fenced = generate(cycle="FencedWR Fre FencedWR Fre", orders=("rlx",), scopes=("dev",), trees=("same-wg",))
    plain = generate(cycle="SB", orders=("rlx",), scopes=("dev",), trees=("same-wg",))
    assert len(fenced) == len(plain) == 1
    assert "atomic_work_item_fence" in to_litmus(fenced[0])
    assert hrf.check(fenced[0], "c11").condition_holds is False
    assert hrf.check(plain[0], "c11").condition_holds is True


def test_dependencies_are_in_the_program():
    # DpDatadW: the write's value depends on the read's register (data);
    # DpCtrldR: the second read is guarded by the first (ctrl), even when plain.
    (lb,) = generate(cycle="DpDatadW Rfe DpDatadW Rfe", orders=("na",), trees=("same-wg",))
    assert "1 + (r0 ^ r0)" in to_litmus(lb)
    (mp,) = generate(cycle="PodWW Rfe DpCtrldR Fre", orders=("na",), trees=("same-wg",))
    assert "if (r0 == 1)" in to_litmus(mp)
    ex = hrf.check(lb, "ptx", keep_all=True).executions[0]
    assert ex["data"] and not ex.get("ctrl")
    # where the first read sees 1 the guarded read runs, ctrl-dependent on it
    assert any(ex["ctrl"] for ex in hrf.check(mp, "ptx", keep_all=True).executions)


def test_address_dependencies_are_generated_as_computed_addresses():
    # diy's DpAddr: the target is accessed at x + (r ^ r), the location x at
    # an address that depends on the read's register
    (lb,) = [
        t
        for t in generate(cycle="Rfe DpAddrdW Rfe DpAddrdW", orders=("rlx",), trees=("same-wg",))
        if t.name.endswith("rlx.wg_rlx.wg_rlx.wg_rlx.wg+same-wg")
    ]
    text = to_litmus(lb)
    assert "atomic_store_explicit(y + (r0 ^ r0), 1," in text and hrf.parse(text) == lb
    ex = hrf.check(lb, "opencl", keep_all=True).executions
    assert any(e["addr"] for e in ex) and not any(e["data"] for e in ex)
    # load buffering through address dependencies: [BDW16] allows it (no
    # dependency rule), HRF-relaxed's no-dependency-cycle rule does not
    assert hrf.check(lb, "opencl").condition_holds is True
    assert hrf.check(lb, "hrf-direct-relaxed").condition_holds is False


def test_unknown_and_ungenerated_edges_say_why():
    from hrf.generate import edge

    with pytest.raises(hrf.InvalidArgument, match="fence 'Rlx' is not generated"):
        edge("FenceRlxdWW")
    with pytest.raises(hrf.InvalidArgument, match="ends in a write"):
        edge("DpDatadR")
    with pytest.raises(hrf.InvalidArgument, match="unknown edge 'Foo'"):
        generate(relax="Foo")
    assert edge("Wse") == edge("Coe")


def test_sampling_with_fences_stays_in_the_family():
    kw = dict(max_edges=4, max_threads=2, edges=("Rfe", "Fre", "FencedWR", "PodWW"), orders=("na", "sc"))
    whole = {t.name for t in family(**kw)}
    some = generate(count=40, seed=2, **kw)
    assert len(some) == 40 and {t.name for t in some} <= whole
    assert any("f.wg" in t.name for t in some) and any("f.dev" in t.name for t in some)


def test_cli_relax_and_safe(tmp_path):
    from hrf.cli import main

    args = ["generate", "--safe", "Fre", "--relax", "FenceScdWR,PodWR", "--orders", "sc", "--scopes", "dev"]
    assert main([*args, "--out", str(tmp_path)]) == 0
    names = {p.name.split("+")[0] for p in tmp_path.iterdir()}
    assert names == {"FenceScdWR-Fre-FenceScdWR-Fre", "SB"}
    assert main(["generate", "--relax", "DpAddrdZ"]) == 2  # no such edge


def test_every_cycle_of_the_family_is_forbidden_under_sc():
    # The final condition must ask for exactly the cycle: under `sc` no test
    # of any cycle may reach it. Before, cycles whose coherence the test
    # could not pin (Fre Rfe, Coe Coe, three writes to one location) were
    # generated with a weaker condition that sc allows.
    from hrf.generate import parse_cycle

    for c in cycles(6, 4):
        for t in generate(cycle=" ".join(c), orders=("sc",), scopes=("dev",), trees=("same-wg",)):
            assert hrf.check(t, "sc").condition_holds is False, t.name
    for broken in ("Fre Rfe", "Coe Coe", "Coe Rfe Fre", "Coe PodWW Rfe PodRW Rfe Fre"):
        with pytest.raises(hrf.InvalidArgument, match="does not make a test"):
            parse_cycle(broken)


def test_a_family_without_mixed_accesses(tmp_path, capsys):
    # mixed=False (--no-mixed): the family less the tests that access a
    # location both atomically and not (a plain access beside an atomic one),
    # where models differ most; sampling keeps to the same family
    from hrf.cli import main
    from hrf.generate import mixed_locations

    whole = hrf.generate(max_edges=4, max_threads=3)
    kept = hrf.generate(max_edges=4, max_threads=3, mixed=False)
    assert [t.name for t in kept] == [t.name for t in whole if not mixed_locations(t)]
    assert 0 < len(kept) < len(whole)
    sample = hrf.generate(count=50, seed=2, max_edges=4, max_threads=3, mixed=False)
    assert len(sample) == 50 and {t.name for t in sample} <= {t.name for t in kept}
    assert main(["generate", "--no-mixed", "--count", "5", "--out", str(tmp_path)]) == 0
    assert all(not mixed_locations(hrf.parse(p)) for p in tmp_path.glob("*.litmus"))


def test_same_location_program_order_edges_make_the_coherence_shapes():
    # diy's Pos edges: program order to the same location. Every cycle of
    # Rfe, Fre, Coe and the four Pos edges is a coherence violation, so SC
    # forbids each test's condition (as for every cycle above).
    from hrf.generate import parse_cycle

    assert parse_cycle("CoRR") == parse_cycle("Rfe PosRR Fre")
    pos = ("Rfe", "Fre", "Coe", "PosWW", "PosWR", "PosRW", "PosRR")
    family = cycles(4, 3, pos)
    from hrf.cycles import canonical_name

    assert {"CoRR", "CoWR", "CoRW"} <= {canonical_name(c) for c in family}
    for c in family:
        assert any(e.startswith("Pos") for e in c)
        for t in generate(cycle=" ".join(c), orders=("na", "sc"), scopes=("dev",), trees=("wg-per-thread",)):
            assert hrf.check(t, "sc").condition_holds is False, t.name
    # CoRR in PTX: weak accesses are not morally strong, so the two reads
    # may see the write out of order; relaxed gpu-scope ones are, and
    # SC-per-location (po-loc with morally strong rf and fr) forbids it.
    tests = generate(cycle="CoRR", orders="na,rlx", scopes="gpu", dialect="ptx", trees=("wg-per-thread",))
    verdicts = {t.name: hrf.check(t, "ptx-6.0").condition_holds for t in tests}
    assert verdicts["CoRR+weak_weak_weak+wg-per-thread"] is True
    assert verdicts["CoRR+rlx.gpu_rlx.gpu_rlx.gpu+wg-per-thread"] is False


def test_access_annotations_in_edge_names():
    # diy's C annotations after an edge name pin the orders of its source
    # and target accesses (herdtools7: Na, Rlx, Acq, Rel, AR, Sc, Con)
    from hrf.generate import edge, parse_cycle

    e = edge("PodWWRlxRel")
    assert (e.src, e.tgt, e.a1, e.a2) == ("W", "W", "rlx", "rel") and not e.external
    assert (edge("RfeRelAcq").a1, edge("RfeRelAcq").a2) == ("rel", "acq") and edge("RfeRelAcq").external
    assert edge("WseRlxRlx") == edge("CoeRlxRlx")
    d = edge("DpDatadWRlxNa")  # `W` then the annotations: the target is a write
    assert (d.dep, d.tgt, d.a1, d.a2) == ("data", "W", "rlx", "na")
    assert edge("PodWR").a1 is None  # unannotated: the family's orders
    with pytest.raises(hrf.InvalidArgument, match="a write has no acquire order"):
        edge("RfeAcqAcq")
    with pytest.raises(hrf.InvalidArgument, match="a read has no release order"):
        edge("FreRelRlx")
    with pytest.raises(hrf.InvalidArgument, match="read-modify-writes"):
        edge("PodWWARRlx")
    with pytest.raises(hrf.InvalidArgument, match="consume"):
        edge("RfeRlxCon")
    # two edges annotating one access must agree (diy's can_precede_atoms)
    with pytest.raises(hrf.InvalidArgument, match="annotate the access between them differently"):
        parse_cycle("PodWWRlxRel RfeRlxAcq PodRR Fre")
    assert parse_cycle("PodWWRlxRel Rfe PodRRAcqRlx Fre")  # one side unannotated: the other's order


def test_annotated_message_passing_by_hand():
    # MP whose edges pin a relaxed data write, a release flag write, an
    # acquire flag read and a relaxed data read; the two threads in different
    # work-groups, every access at each of two scopes: 2^4 tests.
    # By hand ([BDW16], OpenCL): the release and the acquire synchronise only
    # when each one's scope includes the other thread, that is both at device
    # scope; then the data write happens before the data read, which cannot
    # read the initial value (coherence with happens-before), whatever the
    # data accesses' scopes. PTX 6.0 (morally strong release/acquire pattern,
    # causality order) is the same with cta/gpu.
    cyc = "PodWWRlxRel RfeRelAcq PodRRAcqRlx Fre"
    tests = generate(cycle=cyc, scopes=("wg", "dev"), trees=("wg-per-thread",))
    assert len(tests) == 16
    for t in tests:
        anns = t.name.split("+")[1].split("_")
        assert [a.split(".")[0] for a in anns] == ["rlx", "rel", "acq", "rlx"]
        synchronise = anns[1] == "rel.dev" and anns[2] == "acq.dev"
        assert hrf.check(t, "opencl").condition_holds is (not synchronise), t.name
    ptx = generate(cycle=cyc, scopes=("cta", "gpu"), trees=("wg-per-thread",), dialect="ptx", orders=("rlx",))
    assert len(ptx) == 16 and "st.release.gpu y, 1" in hrf.litmus.dat3m_print.to_dat3m(ptx[-1], "PTX")
    for t in ptx:
        anns = t.name.split("+")[1].split("_")
        synchronise = anns[1] == "rel.gpu" and anns[2] == "acq.gpu"
        assert hrf.check(t, "ptx-6.0").condition_holds is (not synchronise), t.name
    # a pinned order the dialect lacks is refused by name
    with pytest.raises(hrf.InvalidArgument, match="ptx has no sc accesses"):
        generate(cycle="PodWWScSc Rfe PodRR Fre", dialect="ptx", orders=("rlx",))


def test_annotated_edges_in_a_family_and_its_sample():
    # a pinned access takes its order at each scope; the others the family's
    edges = ("RfeRelAcq", "Fre", "PodWW", "PodRR", "PodRW")
    kw = dict(max_edges=5, max_threads=3, edges=edges, orders=("na", "sc"), trees=("same-wg",))
    whole = list(family(**kw))
    assert {t.name.split("+")[0] for t in whole} == {
        "PodWW-RfeRelAcq-PodRR-Fre",  # MP
        "PodRW-RfeRelAcq-PodRW-RfeRelAcq",  # LB
        "RfeRelAcq-PodRW-RfeRelAcq-PodRR-Fre",  # WRC
        "Fre-PodWW-RfeRelAcq-PodRW-RfeRelAcq",  # three threads, the first a single read
    }
    for t in whole:  # sc or na elsewhere: each rel and acq is an end of an RfeRelAcq edge
        cyc, anns = t.name.split("+")[:2]
        orders = [a.split(".")[0] for a in anns.split("_")]
        n = cyc.split("-").count("RfeRelAcq")
        assert orders.count("rel") == orders.count("acq") == n and set(orders) <= {"rel", "acq", "sc", "na"}
    some = generate(count=20, seed=3, **kw)
    assert len(some) == 20 and {t.name for t in some} <= {t.name for t in whole}


def test_a_family_holds_each_test_once():
    # two placements that put a cycle's threads alike (two threads:
    # first-two-share-wg is same-wg) give one test, not two files of it
    from hrf.generate import generate, litmus_text

    tests = generate(max_edges=4, max_threads=3, orders=("na", "sc"), scopes=("wg", "dev"))
    bodies = [litmus_text(t).split("\n", 1)[1] for t in tests]
    assert len(set(bodies)) == len(bodies) == 1458
