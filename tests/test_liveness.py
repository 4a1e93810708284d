"""Liveness of spin loops under progress models (`hrf.liveness`).
Every expected verdict is derived by hand next to its test."""

import pytest

import hrf
from conftest import CORPUS
from hrf.liveness import DONE, SPIN, UNSTARTED, hierarchy, scheduler_allows


def _ptx(p0: list, p1: list, name="t") -> str:
    rows = "\n".join(
        f" {a:24s}| {b:24s};"
        for a, b in zip(p0 + [""] * (len(p1) - len(p0)), p1 + [""] * (len(p0) - len(p1)), strict=True)
    )
    return f"PTX {name}\n{{ x=0; }}\n P0@cta 0,gpu 0          | P1@cta 0,gpu 0          ;\n{rows}\nexists 0==0\n"


SPIN_ON_X = ["LC10:", "ld.relaxed.gpu r0, x", "bne r0, 0, LC11", "goto LC10", "LC11:"]


def test_a_waiter_is_released_under_fair_scheduling():
    # P1 spins until it reads x != 0; P0 writes x = 1. Fair: P0 runs, and a
    # spinning iteration of P1 reads either 1 (it leaves) or the initial 0,
    # which is coherence-before P0's write (not the last write: memory
    # fairness lets it see 1 later). No execution spins forever.
    t = _ptx(["st.relaxed.gpu x, 1"], SPIN_ON_X)
    r = hrf.check(t, "ptx-6.0", liveness=True)
    assert r.live is True and r.stuck == []


def test_a_waiter_whose_writer_never_starts_spins_under_obe():
    # OBE runs only threads that have started: P0 may never start, and then
    # 0 is the last write of x -- P1 reads it forever (line 5: its loop).
    t = _ptx(["st.relaxed.gpu x, 1"], SPIN_ON_X)
    r = hrf.check(t, "ptx-6.0", liveness=True, progress="obe")
    assert r.live is False
    assert [(s.thread, s.line) for s in r.stuck] == [("P1", 4)]
    assert r.to_dot().startswith("digraph")  # the witness is drawn
    # HSA runs the lowest-id unfinished thread: P0 writes, P1 is released
    assert hrf.check(t, "ptx-6.0", liveness=True, progress="hsa").live is True


def test_hsa_runs_the_lowest_thread_only():
    # Now P0 waits for P1. HSA: P0 (lowest, never finished) is the one run;
    # P1 need not run at all -- P0 spins forever. LOBE: P1 has not started,
    # so no one above P0 forces it either. Fair: P1 runs.
    t = _ptx(["LC00:", "ld.relaxed.gpu r0, x", "bne r0, 0, LC01", "goto LC00", "LC01:"], ["st.relaxed.gpu x, 1"])
    assert hrf.check(t, "ptx-6.0", liveness=True, progress="hsa").live is False
    assert hrf.check(t, "ptx-6.0", liveness=True, progress="lobe").live is False
    assert hrf.check(t, "ptx-6.0", liveness=True, progress="fair").live is True


def test_the_progress_rules_by_hand():
    tree = hierarchy(hrf.parse(_ptx(["st.relaxed.gpu x, 1"], SPIN_ON_X)))
    # P0 spins, P1 never started: fair runs P1 (no); OBE need not (yes);
    # HSA runs P0, the lowest, which spins: P1 need not run (yes)
    assert not scheduler_allows(tree, "fair", (SPIN, UNSTARTED))
    assert scheduler_allows(tree, "obe", (SPIN, UNSTARTED))
    assert scheduler_allows(tree, "hsa", (SPIN, UNSTARTED))
    # P0 never started, P1 spins: HSA must run P0 (no); LOBE must run
    # every thread below a started one (no); OBE need not (yes)
    assert not scheduler_allows(tree, "hsa", (UNSTARTED, SPIN))
    assert not scheduler_allows(tree, "lobe", (UNSTARTED, SPIN))
    assert scheduler_allows(tree, "obe", (UNSTARTED, SPIN))
    # with no guarantee the machine still runs one unfinished thread: a
    # spinning one will do, but not one that never starts
    assert scheduler_allows(tree, "unfair", (SPIN, UNSTARTED))
    assert not scheduler_allows(tree, "unfair", (DONE, UNSTARTED))


def test_a_loop_that_writes_every_iteration():
    # P0 exchanges 1 into x until it reads 1. Its first iteration reads the
    # initial 0, the second its own 1 (coherence): it leaves by the second
    # iteration in every execution, so no execution goes past the bound
    # when unrolled once -- live, established by deepening the bound.
    leaves = _ptx(["LC00:", "atom.relaxed.gpu.exch r0, x, 1", "bne r0, 0, LC01", "goto LC00", "LC01:"], [])
    r = hrf.check(leaves, "ptx-6.0", liveness=True)
    assert r.live is True
    # Exchanging 0 until it reads 1, which no thread writes: every
    # iteration writes, so none spins, but copy 1 does what copy 0 did
    # (reads 0, writes 0, r0 = 0) and reads copy 0's write, which no write
    # follows: repeating copy 0 forever is an execution -- a livelock.
    never = _ptx(["LC00:", "atom.relaxed.gpu.exch r0, x, 0", "bne r0, 1, LC00"], [])
    r = hrf.check(never, "ptx-6.0", liveness=True)
    assert r.live is False
    assert [str(s) for s in r.stuck] == ["P0 loops forever at line 4, repeating copy 0 of the loop (a livelock)"]
    assert r.stuck[0].livelock == (0, 1)
    assert r.to_json()["stuck"] == [{"thread": "P0", "line": 4, "barrier": False, "repeats": {"first": 0, "count": 1}}]


def test_two_threads_that_swap_a_flag_forever():
    # P0 exchanges 0 into x while it reads 1; P1 exchanges 1 while it reads
    # 0. One execution alternates forever: P1 reads 0 (initial) and writes
    # 1, P0 reads that 1 and writes 0, P1 reads that 0, ... Unrolled once,
    # each thread's copy 1 repeats its copy 0 (same values read and
    # written), the rf and coherence among the copies 0 are those among the
    # copies 1, and the copies 1 read only the copies before them: under
    # fair scheduling a livelock of both. Unrolled zero times no stretch
    # can repeat (it takes two copies): open, and the note says why.
    swap = _ptx(
        ["LC00:", "atom.relaxed.gpu.exch r0, x, 0", "beq r0, 1, LC00"],
        ["LC10:", "atom.relaxed.gpu.exch r1, x, 1", "beq r1, 0, LC10"],
    )
    r = hrf.check(swap, "ptx-6.0", liveness=True)
    assert r.live is False
    assert [(s.thread, s.livelock) for s in r.stuck] == [("P0", (0, 1)), ("P1", (0, 1))]
    r = hrf.check(swap, "ptx-6.0", liveness=True, unroll=0)
    assert r.live is None and "no stretch of iterations within the bound repeats forever" in r.notes[-1]
    # both threads run forever in it, so every progress model lets it be
    # (each promises that some threads run, none forbids running others)
    for progress in ("hsa", "obe", "hsa-obe", "lobe", "unfair"):
        assert hrf.check(swap, "ptx-6.0", liveness=True, progress=progress).live is False, progress


ASYMMETRIC = """VULKAN two-for-one
{
x=0;
}
P0@sg 0,wg 0, qf 0       | P1@sg 0,wg 0, qf 0       ;
LC00:                    | LC10:                    ;
rmw.atom.wg.sc0 r0, x, 1 | rmw.atom.wg.sc0 r1, x, 0 ;
beq r0, 0, LC00          | beq r1, 0, LC11          ;
                         | rmw.atom.wg.sc0 r2, x, 0 ;
                         | beq r2, 1, LC10          ;
                         | LC11:                    ;
exists 0==0
"""


def test_a_livelock_where_one_thread_loops_twice_as_often():
    # P0 exchanges 1 while it reads 0; P1 exchanges 0 twice per iteration
    # and goes on while both read 1. Forever: P0 reads 0 and writes 1, P1's
    # first exchange reads that 1 and writes 0, P0 again, P1's second
    # exchange reads 1 -- two copies of P0's loop per copy of P1's. The
    # stretch that repeats is P0's copies 1-2 (copy 3 does what copy 1 did)
    # with P1's copy 0 (its path ends after copy 1, claiming the loop goes
    # on): four copies of P0's loop, so unrolled three times. Unrolled
    # twice, P0 reaches the bound with no stretch that repeats: open.
    r = hrf.check(ASYMMETRIC, "vulkan", liveness=True, unroll=3)
    assert r.live is False
    assert [(s.thread, s.livelock) for s in r.stuck] == [("P0", (1, 2)), ("P1", (0, 1))]
    r = hrf.check(ASYMMETRIC, "vulkan", liveness=True, unroll=2)
    assert r.live is None and "takes P0 to the unrolling bound (2)" in r.notes[-1]


def test_a_loop_with_two_ways_back_is_one_loop():
    # P1 goes back to LC10 while x is 0, and again while y is 0: one loop
    # with two jumps back (not two nested loops). P0 stores x then y.
    # Fair: P0 runs, the last writes of x and y are 1s, no iteration of P1
    # can repeat forever reading 0s that a newer write follows: live. OBE:
    # P0 may never start, x = 0 stays the last write: P1 spins (line 4).
    both = ["LC10:", "ld.relaxed.gpu r0, x", "beq r0, 0, LC10", "ld.relaxed.gpu r1, y", "beq r1, 0, LC10"]
    t = _ptx(["st.relaxed.gpu x, 1", "st.relaxed.gpu y, 1"], both)
    assert hrf.check(t, "ptx-6.0", liveness=True).live is True
    r = hrf.check(t, "ptx-6.0", liveness=True, progress="obe")
    assert r.live is False and [str(s) for s in r.stuck] == ["P1 spins forever in the loop at line 4"]
    # P0 stores x alone: once P1 reads x = 1 it goes back from the second
    # jump while y stays 0, the only write of y: it spins even when fair
    t = _ptx(["st.relaxed.gpu x, 1"], both)
    r = hrf.check(t, "ptx-6.0", liveness=True)
    assert r.live is False and [s.thread for s in r.stuck] == ["P1"]


def test_a_barrier_that_too_few_threads_reach_waits_forever():
    # bar.cta.sync 1, 1, 3: three threads must arrive; only two run it.
    t = """PTX hang
{ x=0; }
 P0@cta 0,gpu 0       | P1@cta 0,gpu 0       ;
 st.weak x, 1         | bar.cta.sync 1, 1, 3 ;
 bar.cta.sync 1, 1, 3 | ld.weak r0, x        ;
exists (P1:r0 == 0)
"""
    r = hrf.check(t, "ptx-6.0", liveness=True)
    assert r.live is False and {s.thread for s in r.stuck} == {"P0", "P1"} and all(s.barrier for s in r.stuck)
    # with a count of two, both pass
    assert hrf.check(t.replace("1, 1, 3", "1, 1, 2"), "ptx-6.0", liveness=True).live is True


def test_nested_loops():
    # P0: an outer loop (LC00, line 4) around an inner one (LC01, line 5)
    # that goes back while x != 0; the outer goes back while r0 != 1.
    # Alone, P0 reads x = 0 every time: the inner loop falls through, the
    # outer goes back, and its iteration (one read of 0, r0 as it was)
    # repeats reading the only write of x: it spins in the outer loop.
    nested = ["LC00:", "LC01:", "ld.relaxed.gpu r0, x", "bne r0, 0, LC01", "bne r0, 1, LC00"]
    r = hrf.check(_ptx(nested, []), "ptx-6.0", liveness=True)
    assert r.live is False and [str(s) for s in r.stuck] == ["P0 spins forever in the loop at line 4"]
    # With P1 storing x = 1: once P0 reads 1 (the last write of x) the inner
    # loop goes back forever, reading 1 again: it spins in the inner loop.
    r = hrf.check(_ptx(nested, ["st.relaxed.gpu x, 1"]), "ptx-6.0", liveness=True)
    assert r.live is False and [str(s) for s in r.stuck] == ["P0 spins forever in the loop at line 5"]


def test_what_the_check_refuses_or_rejects():
    # two loops that overlap, neither holding the other
    over = _ptx(
        ["LC00:", "ld.relaxed.gpu r0, x", "LC01:", "ld.relaxed.gpu r1, x", "bne r0, 0, LC00", "bne r1, 0, LC01"], []
    )
    with pytest.raises(hrf.UnsupportedFeature, match="P0: the loops at lines 4 and 6 overlap, neither holding") as ei:
        hrf.check(over, "ptx-6.0", liveness=True)
    assert ei.value.line == 6
    t = _ptx(["st.relaxed.gpu x, 1"], SPIN_ON_X)
    with pytest.raises(hrf.InvalidArgument, match="known ones are fair, hsa"):
        hrf.check(t, "ptx-6.0", liveness=True, progress="eventually")
    with pytest.raises(hrf.InvalidArgument, match="give liveness=True too"):
        hrf.check(t, "ptx-6.0", progress="obe")


def test_cli_liveness(tmp_path, capsys):
    from hrf.cli import main

    f = tmp_path / "t.litmus"
    f.write_text(_ptx(["st.relaxed.gpu x, 1"], SPIN_ON_X))
    assert main(["check", "--liveness", "--progress", "obe", "-m", "ptx-6.0", str(f)]) == 0
    out = capsys.readouterr().out
    assert "Live No" in out and "Stuck P1 spins forever in the loop at line 4" in out
    assert main(["check", "--progress", "obe", "-m", "ptx-6.0", str(f)]) == 2


@pytest.mark.parametrize("model", ["hrf-direct", "hrf-indirect", "opencl"])
def test_hrf14_fig6_under_each_progress_model(model):
    # [HRF14] Fig. 6: P1 (wg 0) spins on A until P0 (wg 0) stores it; P2
    # (wg 1) spins on B until P1 stores it. Derived by hand, the progress
    # model applied at every level of the scope tree (threads within a
    # work-group too, as Dartagnan's rules apply it):
    # - fair: everyone runs: P0 stores A, P1 leaves and stores B, P2 leaves;
    # - hsa: the lowest-id unfinished thread runs: P0 finishes, then P1 is
    #   the lowest and leaves (A = 1 is the last write), then P2: live;
    # - lobe: a started thread forces every lower one: P1 spinning forces
    #   P0, P2 spinning forces P0 and P1: live;
    # - hsa-obe: at least what hsa gives: live;
    # - obe: only started threads run: P1 may start and P0 never, and then
    #   A = 0 is A's last write: P1 spins at line 19 forever;
    # - unfair: the same execution (a group runs one of its threads: P1).
    expected = {"fair": True, "hsa": True, "lobe": True, "hsa-obe": True, "obe": False, "unfair": False}
    for progress, live in expected.items():
        r = hrf.check(CORPUS / "hrf" / "hrf14-fig6.litmus", model, liveness=True, progress=progress)
        assert r.live is live, (progress, r.notes)
        if not live:
            assert [(s.thread, s.line) for s in r.stuck] == [("P1", 19)]
