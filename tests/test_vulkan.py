"""Dat3M's Vulkan dialect (header `VULKAN`): what the reader builds (the
event tags Dartagnan's front end gives each instruction, which vulkan.cat
names), what it refuses and where, the scope tree with queue families,
`ssw` and aliases, and spin loops that are never left. The verdicts of
Dartagnan's own tests under its cat files are in tests/conformance."""

import pytest

import hrf
import hrf.cat
from hrf import spin
from hrf.litmus import ast as A


def vulkan(rows: str, init: str = "x=0;", cond: str = "exists (P0:r0 == 1)", heads=None, ssw: str = "") -> str:
    n = rows.splitlines()[0].count("|") + 1
    heads = heads or " | ".join(f"P{k}@sg 0, wg {k}, qf 0" for k in range(n))
    return f"VULKAN t\n{{\n{init}\n}}\n{ssw} {heads} ;\n{rows}\n{cond}\n"


def test_instructions_take_dartagnans_tags():
    t = hrf.parse(
        vulkan(
            " st.av.dv.sc0 x, 1 | ld.atom.acq.wg.sc1.semsc0.semsc1.semvis r0, y ;\n"
            " rmw.atom.acq_rel.dv.sc0.semsc0.semav.semvis.add r1, x, 2 | membar.rel.qf.semsc0.semav ;\n"
            " cbar.acq_rel.wg.semsc0 1 | cbar.wg 1 ;\n"
            " avdevice | ld.nonpriv.sc0 r2, x ;\n"
            " st.atom.wg.sc2 y, 3 | rmw.atom.wg.sc0 r3, x, 4 ;",
            heads="P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 1",
        )
    )
    p0, p1 = t.threads
    assert (p0.sg, p0.wg, p0.qf, p1.sg, p1.qf) == (0, 0, 0, 1, 1)
    st, rmw, cbar, av, st_atom = p0.body
    # a plain store made available: non-private, AV, and the scope it is made available to
    assert st == A.Store("x", A.Const(1), tags=("SC0", "NONPRIV", "AV", "dev"))
    # an RMW: the read takes the acquire side, the write the release side (VisitorVulkan)
    r = rmw.expr
    assert (r.op, r.order, r.scope, r.orders, r.tags) == ("add", "acq_rel", "dev", ("acq", "rel"), ("SC0", "NONPRIV"))
    assert r.half_tags == (("VIS", "SEMVIS", "SEMSC0"), ("AV", "SEMAV", "SEMSC0"))
    assert (cbar.label, cbar.order, cbar.scope, cbar.tags) == ("1", "acq_rel", "wg", ("CBAR", "SEMSC0"))
    assert av == A.Fence((), "avdevice", None, tags=("AVDEVICE",))
    assert st_atom == A.Store("y", A.Const(3), True, "rlx", "wg", tags=("SC2", "NONPRIV", "AV"))
    ld, membar, cbar1, ld_np, xchg = p1.body
    assert ld.expr == A.Load("y", True, "acq", "wg", tags=("SC1", "NONPRIV", "VIS", "SEMSC0", "SEMSC1", "SEMVIS"))
    assert membar == A.Fence((), "rel", "qf", tags=("SEMSC0", "SEMAV"))
    assert (cbar1.order, cbar1.scope, cbar1.tags) == (None, None, ("CBAR", "wg"))
    assert ld_np.expr == A.Load("x", tags=("SC0", "NONPRIV"))
    # rmw without an operation: an exchange; relaxed: neither half carries semantics
    assert (xchg.expr.op, xchg.expr.orders, xchg.expr.half_tags) == ("exch", ("rlx", "rlx"), (("VIS",), ("AV",)))


def test_ssw_pairs_and_aliases_read():
    t = hrf.parse(vulkan(" st.sc0 x, 1 | ld.sc0 r0, y ;", init="x=0; y aliases x;", ssw="{ ssw 0 1; ssw P1 P0; }\n"))
    assert t.sync_with == ((0, 1), (1, 0))
    assert [(i.loc, i.alias_of) for i in t.init] == [("x", None), ("y", "x")]


@pytest.mark.parametrize(
    "rows,line,col,words",
    [
        (" st.sc4 x, 1 | ld.sc0 r0, x ;", 6, 4, "a storage class"),
        (" st.vis.dv.sc0 x, 1 | ld.sc0 r0, x ;", 6, 4, "a store takes .av, not .vis"),
        (" st.atom.acq.wg.sc0.semsc0 x, 1 | ld.sc0 r0, x ;", 6, 9, "a store is .rel or relaxed"),
        (" st.atom.rel.wg.sc0 x, 1 | ld.sc0 r0, x ;", 6, 21, "storage classes (.semsc0"),
        (" st.atom.wg.sc0.semsc0 x, 1 | ld.sc0 r0, x ;", 6, 16, "a relaxed st takes no semantics"),
        (" st.atom.rel.wg.sc0.semsc0.semvis x, 1 | ld.sc0 r0, x ;", 6, 27, ".semvis needs a .acq or .acq_rel order"),
        (" membar.wg.semsc0 | ld.sc0 r0, x ;", 6, 8, "membar takes an order"),
        (" cbar.xx 1 | ld.sc0 r0, x ;", 6, 6, "a scope (.sg, .wg, .qf, .dv)"),
        (" frob x | ld.sc0 r0, x ;", 6, 2, "an instruction"),
    ],
)
def test_malformed_instructions_are_located(rows, line, col, words):
    with pytest.raises(hrf.LitmusSyntaxError) as e:
        hrf.parse(vulkan(rows))
    assert (e.value.line, e.value.column) == (line, col) and words in e.value.message, e.value


def test_bad_heads_are_located():
    with pytest.raises(hrf.LitmusSyntaxError, match="expected ','") as e:
        hrf.parse(vulkan(" st.sc0 x, 1 ;", heads="P0@sg 0, wg 0"))
    assert (e.value.line, e.value.column) == (5, 16)
    with pytest.raises(hrf.LitmusSyntaxError, match="expected 'qf'") as e:
        hrf.parse(vulkan(" st.sc0 x, 1 ;", heads="P0@sg 0, wg 0, dv 0"))
    assert (e.value.line, e.value.column) == (5, 17)


def test_division_is_refused_by_name():
    with pytest.raises(hrf.UnsupportedFeature, match="div") as e:
        hrf.parse(vulkan(" rmw.atom.wg.sc0.div r0, x, 2 ;"))
    assert e.value.line == 6


# A cat file of our own (no Dartagnan text): each relation under test flagged.
PROBE = """VULKAN probe
flag ~empty (ssw & (W * R)) as ssw_write_read
flag ~empty ((loc \\ vloc) & (W * R)) as same_address_other_name
flag ~empty ((sqf \\ id) & (R * R)) as same_queue_family
flag ~empty ([ACQ & REL & F]) as acq_rel_fence_in_both
flag ~empty ([CBAR & REL]; (syncbar \\ id); [CBAR]) as barriers_pair
"""


def probe(src: str, tmp_path) -> set:
    cat = tmp_path / "probe.cat"
    cat.write_text(PROBE)
    r = hrf.check(src, hrf.cat.load(str(cat)))
    assert r.complete, r
    return {f["check"] for f in r.flags}


def test_base_relations_of_vulkan_cat(tmp_path):
    # ssw: every event of P0 to every event of P1, and not back
    flags = probe(vulkan(" st.sc0 x, 1 | ld.sc0 r0, x ;", ssw="{ ssw 0 1; }\n"), tmp_path)
    assert "ssw_write_read" in flags
    assert "ssw_write_read" not in probe(vulkan(" ld.sc0 r0, x | st.sc0 x, 1 ;", ssw="{ ssw 0 1; }\n"), tmp_path)
    # y aliases x: the same address (loc) through another name (not vloc)
    flags = probe(vulkan(" st.sc0 x, 1 | ld.sc0 r0, y ;", init="x=0; y aliases x;"), tmp_path)
    assert "same_address_other_name" in flags
    assert "same_address_other_name" not in probe(vulkan(" st.sc0 x, 1 | ld.sc0 r0, x ;"), tmp_path)
    # queue families: P0 and P1 in qf 0, P2 in qf 1
    heads = "P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0"
    assert "same_queue_family" in probe(vulkan(" ld.sc0 r0, x | ld.sc0 r1, x ;", heads=heads), tmp_path)
    heads = "P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 1"
    assert "same_queue_family" not in probe(vulkan(" ld.sc0 r0, x | ld.sc0 r1, x ;", heads=heads), tmp_path)
    # acq_rel is both ACQ and REL (Dartagnan's VisitorVulkan), for Vulkan files
    assert "acq_rel_fence_in_both" in probe(vulkan(" membar.acq_rel.wg.semsc0 ;", cond="exists (x == 0)"), tmp_path)
    # control barriers of one number pair up within a work group, not across
    same = "P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0"
    rows = " cbar.acq_rel.wg.semsc0 1 | cbar.wg 1 ;"
    free = "exists (x == 0)"
    assert "barriers_pair" in probe(vulkan(rows, heads=same, cond=free), tmp_path)
    assert "barriers_pair" not in probe(vulkan(rows, cond=free), tmp_path)


SPIN_FOREVER = vulkan(
    # P1 waits for x to become 0, but x is 1 and nothing writes it (Dat3M's cbar-4)
    " LC00: | LC10: ;\n ld.sc0 r0, x | ld.sc0 r0, x ;\n bne r0, 0, LC01 | bne r0, 1, LC11 ;\n"
    " goto LC00 | goto LC10 ;\n LC01: | LC11: ;",
    init="x=1;",
    cond="forall (P0:r0 == 1 /\\ P1:r0 == 7)",
)


def test_a_loop_no_value_can_leave_has_no_execution(tmp_path):
    # Hand derivation: x only ever holds 1 (its initial value, no store), so
    # P0 (bne r0, 0: leaves on any value but 0) leaves at once, and P1 (bne
    # r0, 1: leaves on any value but 1) never does. No execution of the test
    # is finite: forall holds over none, exists finds none.
    stuck = spin.stuck_thread(hrf.parse(SPIN_FOREVER))
    assert stuck is not None and (stuck.thread, stuck.line) == ("P1", 6) and "x only ever holds 1" in stuck.why
    cat = tmp_path / "any.cat"
    cat.write_text("VULKAN any\nacyclic po as sane\n")
    for bound in (1, 3):
        r = hrf.check(SPIN_FOREVER, hrf.cat.load(str(cat)), limits=hrf.Limits(unroll=bound))
        assert r.complete and r.consistent == 0 and r.condition_holds is True, r
        assert any("P1 never leaves the loop at line 6" in n for n in r.notes), r.notes


def test_a_loop_some_write_can_leave_is_not_stuck(tmp_path):
    # the same spin, with a store of 0 to x: P1 may leave, nothing is established
    src = SPIN_FOREVER.replace(" LC01: | LC11: ;", " LC01: | LC11: ;\n st.sc0 x, 0 | ;")
    assert spin.stuck_thread(hrf.parse(src)) is None
    # a store of a register: x's values are not known, the argument gives up
    src = SPIN_FOREVER.replace(" LC01: | LC11: ;", " LC01: | LC11: ;\n st.sc0 x, r0 | ;")
    assert spin.stuck_thread(hrf.parse(src)) is None
    # an RMW that adds: the same
    src = SPIN_FOREVER.replace(" LC01: | LC11: ;", " LC01: | LC11: ;\n rmw.atom.wg.sc0.add r5, x, 1 | ;")
    assert spin.stuck_thread(hrf.parse(src)) is None


VK = "litmus/vulkan"


def test_message_passing_with_availability_and_visibility_is_forbidden_and_race_free():
    # Hand derivation under `vulkan`: if P1 reads y = 1 its acquire reads
    # P0's release (both atomics at device scope: in scope, mutually
    # ordered), so they synchronise; st x -po-> the release (SC0 with
    # SEMSC0) and the acquire -po-> ld x put st x before ld x in
    # happens-before for SC0. st x is made available (.av.dv) and ld x
    # visible (.vis.dv) to the device: st x is location-ordered before ld x
    # (through the shader domain). Reading 0, ld x would read the initial
    # write and come before st x in from-read: a cycle with locord. Where P1
    # reads y = 0 it skips the load; no two accesses of x are unordered.
    r = hrf.check(f"{VK}/MP-avvis-dv.litmus", "vulkan")
    assert r.complete and r.condition_holds is False and not r.flags, r


@pytest.mark.parametrize("name", ["MP-plain-dv", "MP-avvis-wg-scope"])
def test_message_passing_without_chains_or_out_of_scope_races(name):
    # MP-plain-dv: plain (private) st x and ld x are location-ordered by
    # nothing across threads (hb orders them, but only availability to and
    # visibility from a domain puts a write before another thread's read).
    # MP-avvis-wg-scope: work-group release and acquire in different work
    # groups are not in each other's scope: no synchronisation, no hb.
    # Either way st x and ld x are unordered in locord: a data race, and
    # ld x may read 0 after seeing the flag.
    r = hrf.check(f"{VK}/{name}.litmus", "vulkan")
    assert r.complete and r.condition_holds is True, r
    assert [f["check"] for f in r.flags] == ["data_race"], r.flags


def test_the_vulkan_models_read_vulkan_tests_only():
    with pytest.raises(hrf.UnsupportedFeature, match="Dat3M's Vulkan tests"):
        hrf.check("litmus/ptx7/MP+rel-acq-cta.litmus", "vulkan")
    # vulkan-nochains: the same verdict where one domain's chain suffices
    assert hrf.check(f"{VK}/MP-avvis-dv.litmus", "vulkan-nochains").condition_holds is False


# Khronos' noncohcoww (its Alloy tests, added with the 2024 revision of
# from-read), in Dat3M's syntax: P0 writes x non-atomically with
# availability to the work group, then atomically (relaxed, work-group
# scope); P1, another subgroup of the same work group, reads 2 atomically,
# then 1 with visibility from the work group.
NONCOHCOWW = """VULKAN noncohcoww
{
x=0;
P1:r0=0; P1:r1=0;
}
 P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;
 st.av.wg.sc0 x, 1   | ld.atom.wg.sc0 r0, x ;
 st.atom.wg.sc0 x, 2 | ld.vis.wg.sc0 r1, x  ;
exists (P1:r0 == 2 /\\ P1:r1 == 1)
"""


def test_from_read_follows_the_specification_not_vulkan_cat():
    # [VK] From-reads: R from-reads W when R reads a value written earlier
    # than W in W's location order. P0's two writes are location-ordered
    # (same agent and reference, in program order); P1's read of 1 reads the
    # first, so it from-reads the second; P1's two reads are location-ordered
    # (same agent and reference). Then: second write -rf-> P1's read of 2
    # -locord-> P1's read of 1 -fr-> second write, a cycle the consistency
    # axiom forbids (Khronos: NOSOLUTION consistent[X]).
    r = hrf.check(NONCOHCOWW, "vulkan")
    assert r.complete and r.condition_holds is False
    # vulkan.cat takes fr through locord only where the read is location-
    # ordered after the write it reads: no visibility chain carries the
    # first write to P1 (no release/acquire, no happens-before), so no fr
    # edge, no cycle, and the outcome is allowed (racy)
    r = hrf.check(NONCOHCOWW, "vulkan-dat3m")
    assert r.condition_holds is True and r.flags


def test_the_nochains_model_follows_the_specification_too():
    assert hrf.check(NONCOHCOWW, "vulkan-nochains").condition_holds is False
    assert hrf.check(NONCOHCOWW, "vulkan-nochains-dat3m").condition_holds is True
