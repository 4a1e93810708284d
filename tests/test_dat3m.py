"""Dat3M's PTX dialect (header `PTX`): what the reader builds, what it
refuses and where, and the execution semantics hrf gives its tests
(partial co, backward jumps, comparisons and filters). The verdicts of
Dartagnan's own tests and cat files are in tests/conformance."""

from pathlib import Path

import pytest

import hrf
import hrf.cat
from hrf import dsl
from hrf.litmus import ast as A

PTX7 = Path(hrf.__file__).parent / "corpus" / "ptx7"


def ptx(rows: str, init: str = "x=0;", cond: str = "exists (P0:r0 == 1)", heads=None) -> str:
    n = rows.splitlines()[0].count("|") + 1
    heads = heads or " | ".join(f"P{k}@cta {k},gpu 0" for k in range(n))
    return f"PTX t\n{{\n{init}\n}}\n {heads} ;\n{rows}\n{cond}\n"


def test_instructions_read_as_dartagnan_gives_them():
    t = hrf.parse(
        ptx(
            " st.weak x, 1 | ld.acquire.gpu r0, x ;\n"
            " st.release.sys y, r1 | atom.acq_rel.gpu.cas r2, x, 1, 2 ;\n"
            " red.relaxed.cta.add y, 3 | fence.sc.cta ;\n"
            " bar.cta.sync 0 | bar.cta.arrive 1 ;",
            init="x=0; P0:r1=5;",
            cond="exists (P1:r0 == P1:r2 /\\ x != 2)",
        )
    )
    p0, p1 = t.threads
    assert (p0.wg, p0.dev, p1.wg) == (0, 0, 1)
    st, rel, red, bar = p0.body
    assert st == A.Store("x", A.Const(1), False, None, None, tags=("GEN",))
    assert rel == A.Store("y", A.Reg("r1"), True, "rel", "all", tags=("GEN",))
    # an RMW's read and write orders apart: acq_rel is an acquire read and a release write
    assert red.expr.orders == ("rlx", "rlx") and red.expr.scope == "wg"
    cas = p1.body[1].expr
    assert (cas.op, cas.order, cas.orders, cas.expected_value) == ("cas_old", "acq_rel", ("acq", "rel"), A.Const(1))
    assert p1.body[2] == A.Fence((), "sc", "wg", tags=("GEN",))
    assert (bar.label, bar.arrive, p1.body[3].arrive) == ("0", False, True)
    # y is used, never declared: it holds 0, as in Dartagnan's zeroed memory
    assert [(i.loc, i.value) for i in t.init] == [("x", 0), ("y", 0)]
    assert t.condition.prop == A.PAnd(
        (A.PCompare("==", A.RegVar(1, "r0"), A.RegVar(1, "r2")), A.PCompare("!=", A.LocVar("x"), 2))
    )


@pytest.mark.parametrize(
    "rows,line,col,words",
    [
        (" st.weak x | ld.weak r0, x ;", 6, 12, "expected ','"),
        (" st.weak.gpu x, 1 | ld.weak r0, x ;", 6, 9, "a weak st takes no scope"),
        (" st.relaxed x, 1 | ld.weak r0, x ;", 6, 13, "a scope"),
        (" st.weak x, 1 | ld.weak r0, x ;\n st.weak x, 1 | ld.weak r0, x | st.weak x, 2 ;", 7, 33, "more cells"),
        (" frob x | ld.weak r0, x ;", 6, 2, "an instruction"),
        (" atom.relaxed.gpu.nand r0, x, 1 | ld.weak r0, x ;", 6, 18, "unknown operation .nand"),
    ],
)
def test_syntax_errors_are_located(rows, line, col, words):
    with pytest.raises(hrf.LitmusSyntaxError, match=words) as e:
        hrf.parse(ptx(rows))
    assert (e.value.line, e.value.column) == (line, col)


@pytest.mark.parametrize(
    "rows,words",
    [
        (" st.acquire.gpu x, 1 | ld.weak r0, x ;", "st.acquire"),
        (" atom.sc.gpu.add r0, x, 1 | ld.weak r0, x ;", "atom.sc"),
        (" div r0, r1, 2 | ld.weak r0, x ;", "div"),
    ],
)
def test_constructs_without_a_meaning_are_refused_by_name(rows, words):
    with pytest.raises(hrf.UnsupportedFeature, match=words) as e:
        hrf.parse(ptx(rows))
    assert e.value.line == 6


def named_barrier_mp(res0: str, res1: str, init: str = "x=0;", cond: str = "exists (P1:r0 == 0)") -> str:
    # MP through a barrier of number 1 with a resource each side: P0 writes
    # x (and may load its resource from z), then waits; P1 waits, then reads
    # x; P2 writes z = 5. One CTA, so the barriers synchronise iff the
    # resources are equal on the path (Dartagnan's NamedBarrier: sameId).
    load = "ld.weak r2, z" if res0 == "r2" else "fence.sc.cta"
    rows = (
        f" st.weak x, 1 | bar.cta.sync 1, {res1} | st.weak z, 5 ;\n"
        f" {load} | ld.weak r0, x | fence.sc.cta ;\n"
        f" bar.cta.sync 1, {res0} | fence.sc.cta | fence.sc.cta ;"
    )
    heads = " | ".join(f"P{k}@cta 0,gpu 0" for k in range(3))
    return ptx(rows, init=init, cond=cond, heads=heads)


def test_a_barrier_resource_held_in_a_register_is_its_value_on_the_path():
    # Hand derivation under ptx-6.0: with syncbar from P0's barrier to P1's,
    # st x; po; syncbar; po; ld x is in causality order, so P1 reads 1
    # (r0 == 0 forbidden); without it nothing orders them and r0 == 0 is allowed.
    # Registers holding equal values synchronise, different ones do not.
    same = hrf.check(named_barrier_mp("r4", "r3", init="x=0; P0:r4=7; P1:r3=7;"), "ptx-6.0")
    assert same.complete and same.condition_holds is False
    other = hrf.check(named_barrier_mp("r4", "r3", init="x=0; P0:r4=7; P1:r3=8;"), "ptx-6.0")
    assert other.complete and other.condition_holds is True
    # A register and a constant of its value synchronise (and not another).
    assert hrf.check(named_barrier_mp("r4", "7", init="x=0; P0:r4=7;"), "ptx-6.0").condition_holds is False
    assert hrf.check(named_barrier_mp("r4", "6", init="x=0; P0:r4=7;"), "ptx-6.0").condition_holds is True
    # P0's resource loaded from z: 5 (P2's write) synchronises with P1's
    # constant 5, the initial 0 does not; r0 == 0 only on paths with r2 == 0.
    r = hrf.check(named_barrier_mp("r2", "5", "x=0; z=0;", "exists (P1:r0 == 0 /\\ P0:r2 == 5)"), "ptx-6.0")
    assert r.condition_holds is False
    stale = {(s[0]["0:r2"], s[0]["1:r0"]) for s in r.states}
    assert r.complete and stale == {(0, 0), (0, 1), (5, 1)}


def test_a_register_resource_is_refused_with_a_thread_count_or_under_liveness():
    with pytest.raises(hrf.UnsupportedFeature, match="thread count and a barrier resource held in a register"):
        hrf.check(ptx(" bar.cta.sync 1, r1, 2 | ld.weak r0, x ;", init="x=0; P0:r1=1;"), _none())
    src = ptx(
        " bar.cta.sync 1, r1 | bar.cta.sync 1, 1 ;\n ld.weak r0, x | fence.sc.cta ;",
        init="x=0; P0:r1=1;",
        heads="P0@cta 0,gpu 0 | P1@cta 0,gpu 0",
    )
    with pytest.raises(hrf.UnsupportedFeature, match="liveness of a barrier whose barrier resource"):
        hrf.check(src, "ptx-6.0", liveness=True)


def test_aliases_share_an_address_and_a_proxy_alias_shares_the_virtual_location(tmp_path):
    # Dat3M's VirtualMemoryObject: `y @ generic aliases x` is x's memory under
    # a name of its own (another virtual location); `y @ constant aliases x`
    # has x's generic address (the same virtual location, through the
    # constant proxy). Either way y reads what x holds (loc).
    cat = tmp_path / "probe.cat"
    cat.write_text(
        "PTX probe\nflag ~empty ((loc \\ vloc) & (W * R)) as other_name\n"
        "flag ~empty (vloc & (W * R) & ~(IW * _)) as same_name\nflag ~empty [R & CON] as constant\n"
    )
    model = hrf.cat.load(str(cat))
    rows = {"generic": " st.weak x, 1 | ld.weak r0, y ;", "constant": " st.weak x, 1 | cold.weak r0, y ;"}
    for proxy, want in (("generic", {"other_name"}), ("constant", {"same_name", "constant"})):
        src = ptx(rows[proxy], init=f"x=0; y @ {proxy} aliases x;", cond="exists (P1:r0 == 1)")
        r = hrf.check(src, model)
        assert r.condition_holds is True and {f["check"] for f in r.flags} == want, (proxy, r.flags)


def test_a_location_set_to_another_takes_its_initial_value():
    # `y = x` in the init block: y is a location of its own holding x's initial value
    t = hrf.parse(ptx(" st.weak y, 1 ;", init="x=5; y = x;", cond="exists (y == 5)"))
    assert [(i.loc, i.value, i.alias_of) for i in t.init] == [("x", 5, None), ("y", 5, None)]
    with pytest.raises(hrf.LitmusSyntaxError, match="a location declared before"):
        hrf.parse(ptx(" st.weak y, 1 ;", init="y = x; x=5;", cond="exists (y == 5)"))


def _none() -> dsl.Model:
    """A model with no axiom: every candidate is consistent."""
    m = dsl.Model("none")
    m.empty(dsl.base("empty"), "nothing")
    return m


def test_co_is_partial_and_the_final_value_is_a_co_maximal_writes():
    # Two writes of x from two threads, a and b. Partial orders of {a, b}
    # after init: none, a<b, b<a; the location ends with a co-maximal write:
    # none gives two candidates (ends a, ends b), each order one: 4 in all,
    # where a total co gives 2. Both final values are reached.
    src = ptx(" st.weak x, 1 | st.weak x, 2 ;", cond="exists (x == 1)")
    r = hrf.check(src, _none())
    assert r.candidates == 4 and r.consistent == 4
    assert {s[0]["x"] for s in r.states} == {1, 2}


def test_backward_jumps_unroll_and_cut():
    # SpinMP: the consumer reads the flag until it is 1; unrolled twice, a
    # path that would spin a third time is cut (and counted), the others
    # all read 42 after the acquire (SC: every interleaving)
    r = hrf.check(PTX7 / "SpinMP.litmus", "sc")
    assert r.condition_holds is True and r.cut_paths == {"P1": 1}
    r1 = hrf.check(PTX7 / "SpinMP.litmus", "sc", limits=hrf.Limits(unroll=0))
    assert r1.condition_holds is True and r1.cut_paths == {"P1": 1}


def test_filter_drops_executions():
    # SB under SC with a filter keeping only executions where P0 reads 0:
    # of SB's three SC outcomes (0,1) (1,0) (1,1), two remain
    src = ptx(
        " st.weak x, 1 | st.weak y, 1 ;\n ld.weak r0, y | ld.weak r1, x ;",
        init="x=0; y=0;",
        cond="filter (P0:r0 == 0) exists (P1:r1 == 0)",
    )
    r = hrf.check(src, "sc")
    assert {(s[0]["0:r0"], s[0]["1:r1"]) for s in r.states} == {(0, 1)}
    assert r.condition_holds is False


def quorum_test(q: int, extra: str = "") -> str:
    # P0 writes x and reaches the barrier; P1 reads x after it; P2 only
    # reaches it. Every barrier waits for q threads of the CTA.
    bar = f"bar.cta.sync 1, 1, {q}"
    rows = f" st.weak x, 1 | {bar} | {bar} ;\n {bar} | ld.weak r0, x | {extra or ' '} ;"
    heads = " | ".join(f"P{k}@cta 0,gpu 0" for k in range(3))
    return ptx(rows, init="x=0; P1:r0=0;", cond="exists (P1:r0 == 0)", heads=heads)


def test_a_barrier_with_a_thread_count_synchronises_any_quorum():
    # Three threads reach a barrier that waits for q of them, and any q or
    # more of those synchronise (Dartagnan's quorum barriers): syncbar from
    # a synchronising barrier to every barrier that passes.
    # q = 2: P1 and P2 may pass together without P0, so P0's write is not
    # ordered before P1's read, which may read 0.
    r2 = hrf.check(quorum_test(2), "ptx-6.0")
    assert r2.complete and r2.condition_holds is True and r2.blocked == 0
    # q = 3: all three synchronise, P0's barrier among them: the write is in
    # cause before the read (st; po; syncbar; po), which must read 1.
    r3 = hrf.check(quorum_test(3), "ptx-6.0")
    assert r3.complete and r3.condition_holds is False and r3.consistent > 0
    # q = 4: three threads never make four, no thread passes: no execution
    # at all (Dartagnan: no terminating execution), said in a note.
    r4 = hrf.check(quorum_test(4), "ptx-6.0")
    assert r4.complete and r4.consistent == 0 and r4.condition_holds is False and r4.blocked > 0
    assert any("fewer threads reach than its thread count" in n for n in r4.notes)


def test_barriers_of_one_instance_must_agree_on_their_thread_count():
    src = quorum_test(2).replace("bar.cta.sync 1, 1, 2 ;\n", "bar.cta.sync 1, 1, 3 ;\n", 1)
    with pytest.raises(hrf.UnsupportedFeature, match="waits for 3 threads where the barrier of line"):
        hrf.check(src, "ptx-6.0")
    with pytest.raises(hrf.UnsupportedFeature, match="thread count held in a register"):
        hrf.check(
            ptx(
                " bar.cta.sync 1, 1, r1 | ld.weak r0, x ;",
                init="x=0; P0:r1=1;",
                heads="P0@cta 0,gpu 0 | P1@cta 0,gpu 0",
            ),
            "ptx-6.0",
        )


def test_to_litmus_refuses_a_dialect_test_by_name():
    # herd's C has no labels or jumps: a Dat3M test is not written as C (it
    # was a TypeError from inside the printer)
    t = hrf.parse("PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n LC00: ;\n ld.weak r0, x ;\n bne r0, 0, LC00 ;\nexists 0==0\n")
    with pytest.raises(hrf.UnsupportedFeature, match="herd's C and OpenCL, which have no labels"):
        hrf.to_litmus(t)
