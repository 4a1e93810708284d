"""The Isabelle export, checked by Isabelle itself: the corpus exported
under every model the exporter takes, with every scheme, loads, and every
lemma holds (`by eval`; no theory uses `sorry` or `quick_and_dirty`: the
scheme theories state their goals as definitions). It needs an Isabelle/HOL, which CI does not have:
set HRF_ISABELLE to one built by the project's tools and HRF_ISABELLE_CHECK
to their `check.sh`, then run

    python -m pytest -q tests/test_isabelle_check.py

Without them the test is skipped, saying so."""

import os
import re
import subprocess
from pathlib import Path

import pytest

import hrf
from conftest import CORPUS
from hrf.isabelle import BASE_THEORIES, export_isabelle
from planted import planted_acquire_relaxed

CHECK = os.environ.get("HRF_ISABELLE_CHECK")

pytestmark = [
    pytest.mark.skipif(
        not (os.environ.get("HRF_ISABELLE") and CHECK and Path(CHECK).is_file()),
        reason="needs an Isabelle/HOL: set HRF_ISABELLE and HRF_ISABELLE_CHECK (its check.sh)",
    ),
    # Isabelle's sessions have their own limits (an hour at most, a first heap build)
    pytest.mark.timeout(4000),
]

# The models the exporter takes, on the tests they apply to.
EXPORTS = [
    (sorted((CORPUS / "hrf").glob("*.litmus")), ["sc", "hrf-direct", "hrf-indirect"]),
    (sorted((CORPUS / "rsp").glob("*.litmus")), ["opencl-rsp"]),
    # models with a witness order (consistency: some total order of the sc
    # atomics; an inconsistent execution is evaluated over the orders that
    # avoid hhb's converse, after the coherence check on the empty order)
    (sorted((CORPUS / "hrf").glob("*.litmus")), ["hrf-direct-relaxed", "hrf-indirect-relaxed", "hrf-opencl"]),
]


def _check(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(CHECK), str(folder)], capture_output=True, text=True, timeout=3600)


@pytest.mark.parametrize("k", range(len(EXPORTS)))
def test_the_exported_corpus_loads_in_isabelle(tmp_path, k):
    tests, models = EXPORTS[k]
    # every scheme, with the machine runs of the tests it compiles
    r = export_isabelle(tests, models, tmp_path, schemes=hrf.schemes() if k < 2 else None)
    assert r.tests
    done = _check(tmp_path)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    assert f"TOTAL: {len(r.theories)} of {len(r.theories)} theories loaded" in done.stdout
    for thy in tmp_path.glob("*.thy"):  # every lemma and theorem proved: none allows a stub
        assert not re.search(r"\b(sorry|oops|quick_and_dirty|axiomatization)\b", thy.read_text()), thy.name


def test_a_false_lemma_or_a_sorry_in_a_test_theory_fails(tmp_path):
    # Controls: Isabelle, not the reader, rejects a wrong verdict and a stub
    # outside the scheme theories.
    r = export_isabelle(CORPUS / "hrf" / "hrf14-fig5-diff-wg.litmus", "hrf-direct", tmp_path)
    (theory,) = [t for t in r.tests]
    path = tmp_path / f"{theory.theory}.thy"
    text = path.read_text()
    path.write_text(text.replace("\n  by eval", "\n  sorry", 1))  # the first proof (not the header comment)
    assert _check(tmp_path).returncode != 0
    path.write_text(text.replace("hrf_direct_consistent ex1", "\\<not> hrf_direct_consistent ex1", 1))
    assert _check(tmp_path).returncode != 0


def test_a_flag_read_under_some_fence_sc_order_loads_and_a_planted_error_fails(tmp_path):
    # PTX's mixed-size data-race reads the execution's Fence-SC order (a
    # witness order): the exported flag is the union of its relation over the
    # orders the execution is consistent with. SB+u64+halves+fence.sc is
    # flagged in every execution, each under the order hrf did not find
    # first for some of them; a lemma that one is race-free fails.
    r = export_isabelle(CORPUS / "ptx7" / "SB+u64+halves+fence.sc.litmus", "ptx-7.5", tmp_path)
    (theory,) = [t.theory for t in r.tests]
    names = ["Hrf_Execution", "Model_ptx_7_5", theory]
    path = tmp_path / f"{theory}.thy"
    text = path.read_text()
    assert len(re.findall(r"lemma ex\d_mixed_size_race: .* ptx_7_5_mixed_size_race_some ex\d", text)) == 3
    done = subprocess.run(["bash", str(CHECK), str(tmp_path), *names], capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    planted = re.sub(
        r'lemma ex1_mixed_size_race: "[^"]*"',
        'lemma ex1_mixed_size_race: "ptx_7_5_mixed_size_race_some ex1 = {}"',
        text,
    )
    path.write_text(planted)
    done = subprocess.run(["bash", str(CHECK), str(tmp_path), *names], capture_output=True, text=True, timeout=3600)
    assert done.returncode != 0


def test_a_false_machine_outcome_fails(tmp_path):
    # Control for the runs: the counterexample of rsp-old on the corrupt MP
    # with a wrong value of r1 is not proved.
    r = export_isabelle(CORPUS / "rsp" / "corrupt-mp.litmus", "opencl-rsp", tmp_path, schemes="rsp-old")
    path = tmp_path / f"{r.runs[0]}.thy"
    text = path.read_text()
    assert _check(tmp_path).returncode == 0
    i = text.index("a counterexample to scheme rsp-old")
    j = text.index("regs s 1 1 = 0", i)
    path.write_text(text[:j] + "regs s 1 1 = 42" + text[j + len("regs s 1 1 = 0") :])
    assert _check(tmp_path).returncode != 0


def test_a_closure_that_leaves_out_an_outcome_fails(tmp_path):
    # Control for the no-other-outcome theorem: rsp-new on the RMW-vs-remote-
    # store test reaches x=5 with r0=0 and x=6 with r0=5 (the RMW before or
    # after the store); with the second left out of the allowed outcomes,
    # Isabelle's closure check finds a final state outside them and the
    # theory does not load.
    r = export_isabelle(CORPUS / "rsp" / "store-remote-all-vs-rmw.litmus", "opencl-rsp", tmp_path, schemes="rsp-new")
    assert r.closures
    path = tmp_path / f"{r.runs[0]}.thy"
    text = path.read_text()
    assert _check(tmp_path).returncode == 0
    assert "_allowed = [[0, 5], [5, 6]]" in text
    path.write_text(text.replace("_allowed = [[0, 5], [5, 6]]", "_allowed = [[0, 5]]"))
    assert _check(tmp_path).returncode != 0


BASE = Path(__file__).resolve().parent.parent / "isabelle_export"


def _planted(tmp_path, theories, model, whole, planted):
    """Load `theories` (base theories, in order) copied into tmp_path; then
    replace `whole` by `planted` in `model` and load them again."""
    for name in theories:
        (tmp_path / f"{name}.thy").write_text((BASE / f"{name}.thy").read_text())

    def check():
        return subprocess.run(
            ["bash", str(CHECK), str(tmp_path), *theories], capture_output=True, text=True, timeout=600
        )

    done = check()
    n = len(theories)
    assert done.returncode == 0 and f"TOTAL: {n} of {n} theories loaded" in done.stdout, done.stdout[-3000:]
    path = tmp_path / f"{model}.thy"
    text = path.read_text()
    assert whole in text
    path.write_text(text.replace(whole, planted))
    return check()


def test_the_papers_theorems_load_and_a_planted_error_breaks_sc_for_hrf(tmp_path):
    # Hrf_Theorems proves SC for HRF over Hrf_Models' definitions. Planted
    # error: hhb.d without its `po X \<union>` (HRF-direct's happens-before
    # before it was mended: empty for a program without atomics). Hrf_Models
    # still loads; the SC-for-HRF proof does not (po is no longer within hhb.d).
    theories = ("Hrf_Execution", "Hrf_Models", "Hrf_Theorems")
    mended = "\"hhb_d X = po X \\<union> foreach X ''sinst''"
    done = _planted(tmp_path, theories, "Hrf_Models", mended, "\"hhb_d X = foreach X ''sinst''")
    assert done.returncode != 0
    assert "RESULT Hrf_Models: OK" in done.stdout and "RESULT Hrf_Theorems: FAILED" in done.stdout


def test_theorem_a4_loads_and_a_planted_error_in_the_relaxed_model_breaks_it(tmp_path):
    # Hrf_Relaxed_Theorems proves [HRFR15] Theorem A.4 over the exported
    # HRF-relaxed models. Planted error: HRF-direct-relaxed's hhb without
    # its `po X \<union>` (a happens-before that need not contain program
    # order). The model theory still loads; the theorem does not.
    theories = BASE_THEORIES[: BASE_THEORIES.index("Hrf_Relaxed_Theorems") + 1]
    whole = "hrf_direct_relaxed_hhb X = (po X \\<union> foreach X"
    done = _planted(tmp_path, theories, "Model_hrf_direct_relaxed", whole, "hrf_direct_relaxed_hhb X = (foreach X")
    assert done.returncode != 0
    assert "RESULT Model_hrf_direct_relaxed: OK" in done.stdout
    assert "RESULT Hrf_Relaxed_Theorems: FAILED" in done.stdout


def test_the_model_lattice_loads_and_a_planted_error_breaks_it(tmp_path):
    # Hrf_Lattice proves that hhb.dr lies within hhb.ir, so that a program
    # race-free under HRF-direct-relaxed is race-free under
    # HRF-indirect-relaxed. Planted error: HRF-direct-relaxed's pairs "in
    # each other's scope" (n51) no longer symmetric: the scope relation
    # itself, not its meet with its converse, so that its so holds pairs the
    # indirect model's does not. Theorem A.4 still holds of it (it reads
    # only the shape of so); the lattice does not.
    theories = BASE_THEORIES[: BASE_THEORIES.index("Hrf_Lattice") + 1]
    whole = "hrf_direct_relaxed_n51 X = (hrf_direct_relaxed_n49 X \\<inter> hrf_direct_relaxed_n50 X)"
    planted = "hrf_direct_relaxed_n51 X = hrf_direct_relaxed_n49 X"
    done = _planted(tmp_path, theories, "Model_hrf_direct_relaxed", whole, planted)
    assert done.returncode != 0
    assert "RESULT Model_hrf_direct_relaxed: OK" in done.stdout
    assert "RESULT Hrf_Relaxed_Theorems: OK" in done.stdout
    assert "RESULT Hrf_Lattice: FAILED" in done.stdout


def test_the_simulation_theorem_loads_and_planted_machine_errors_break_it(tmp_path):
    # Hrf_Simulation proves, for every program whose locations each belong
    # to one work-group and every layout, that the machine's outcomes are
    # SC outcomes. Planted errors in the machine, each a lost write that the
    # theorem rules out: a write-back from an L1 that leaves the L2's line
    # clean (never written to memory), and a fetch into an L1 over a dirty
    # line; and a deadlock. The machine theory still loads; the simulation
    # does not.
    planted = {
        "(set_l2 (dev_of L w) x (Some (v, Dirty, Valid))": "(set_l2 (dev_of L w) x (Some (v, Clean, Valid))",
        "(if (l1 s w x = None \\<or> l1 s w x = Some (val_of (l1 s w x), Clean, Invalid))": "(if True",
        # a fetch into the L2 of a line it does not hold blocked: a load of
        # it waits forever (the deadlock-freedom part fails, the rest holds)
        "(if l2 s d x = Some (val_of (l2 s d x), Dirty, Valid)": "(if l2 s d x = None \\<or> l2 s d x = Some (val_of (l2 s d x), Dirty, Valid)",
        # an UNLKrmw that leaves its locks held: the next LKrmw of the scope
        # waits forever (the lock invariant, and deadlock freedom, fail)
        "then None else rmw_lock s w)": "then rmw_lock s w else rmw_lock s w)",
        # an increment at the L2 that leaves its line clean: evicted, the
        # increment is lost (the invariant for locations homed in a device)
        "(set_l2 d x (Some (val_of e + 1, Dirty, Valid))": "(set_l2 d x (Some (val_of e + 1, Clean, Valid))",
    }
    for whole, error in planted.items():
        done = _planted(tmp_path, ("Hrf_Machine", "Hrf_Mapping", "Hrf_Simulation"), "Hrf_Machine", whole, error)
        results = re.findall(r"^RESULT (\w+): (\w+)", done.stdout, re.M)
        assert done.returncode != 0 and results[0] == ("Hrf_Machine", "OK"), whole
        assert ("Hrf_Simulation", "FAILED") in results, whole


def _failed_in(done, path: Path, lemma: str) -> None:
    """Isabelle's messages in `done` name a line of `lemma` in `path` (the
    planted error breaks that proof, not another)."""
    text = path.read_text()
    start = text.index(f"\ntheorem {lemma}:") if f"\ntheorem {lemma}:" in text else text.index(f"\nlemma {lemma}:")
    ends = (text.find(f"\n{word} ", start + 1) for word in ("theorem", "lemma", "section"))
    end = min((i for i in ends if i > 0), default=len(text))
    first, last = text[:start].count("\n") + 2, text[:end].count("\n") + 1
    lines = [int(n) for n in re.findall(r"\(line (\d+) of", done.stdout)]
    assert any(first <= n <= last for n in lines), (lemma, lines, first, last)


def _each_breaks(tmp_path, theories, planted, loads: str, fails: str) -> None:
    """Each planted error (`whole` -> (theory, error, lemma)) leaves
    `loads` loading and makes `fails` fail in `lemma` (an error planted in a
    theory that no other imports, after `fails`, makes that theory fail)."""
    for whole, (theory, error, lemma) in planted.items():
        done = _planted(tmp_path, theories, theory, whole, error)
        results = dict(re.findall(r"^RESULT (\w+): (\w+)", done.stdout, re.M))
        failing = theory if theories.index(theory) > theories.index(fails) else fails
        assert done.returncode != 0 and results[loads] == "OK", whole
        assert results[failing] == "FAILED", whole
        _failed_in(done, tmp_path / f"{failing}.thy", lemma)


def test_the_source_models_candidates_load_and_planted_errors_break_them(tmp_path):
    # Hrf_Source defines the candidate executions of a source program, with
    # values, and proves that every outcome of the SC semantics is the
    # outcome of an SC-consistent candidate (sc_outcomes_allowed, through
    # run_cand: the run's execution is a candidate). Planted errors:
    # an RMW's write part writing its read's value plus two (the candidates
    # then no longer hold the SC run's values: run_cand fails); a read's
    # value no longer tied to its write's (then the candidates do not
    # constrain: the check own_store_reads_1, a thread reading its own
    # store, fails).
    theories = tuple(t for t in BASE_THEORIES[: BASE_THEORIES.index("Hrf_Source") + 1] if t != "Hrf_Closure")
    src = "Hrf_Source"
    planted = {
        "v (Acc t i True) = v (Acc t i False) + 1)": (src, "v (Acc t i True) = v (Acc t i False) + 2)", "run_cand"),
        "\\<and> (\\<forall>r. is_rd P r \\<longrightarrow> v r = v (rfw r))\n": (src, "", "own_store_reads_1"),
    }
    _each_breaks(tmp_path, theories, planted, loads="Hrf_Simulation", fails=src)


def test_the_execution_a_machine_run_exhibits_loads_and_planted_errors_break_it(tmp_path):
    # Hrf_Exhibit proves, for every program compiled by rows whose one data
    # instruction is an L1 access or an increment at the L2 (every row of
    # rsp-new), every layout and both write-back policies, that every final
    # state of the machine shows the outcome of a candidate execution of
    # the source program (machine_candidate): reads-from from the write a
    # line holds, coherence from the order in which writes reach memory.
    # Planted errors: coherence by when writes were performed (two
    # work-groups' writes reach memory in the other order, and memory's
    # last value is then not the coherence-last write: wb2_inv fails); an
    # L2 line written back from an L1 that still names its old write (a
    # later read of it would read from the wrong write: wb1_inv fails).
    theories = tuple(t for t in BASE_THEORIES[: BASE_THEORIES.index("Hrf_Source") + 1] if t != "Hrf_Closure")
    theories += ("Hrf_Exhibit",)
    exhibit = "Hrf_Exhibit"
    planted = {
        '"key g e = (the (ga3 g e), the (ga2 g e), gt g e)"': (exhibit, '"key g e = (0, 0, gt g e)"', "wb2_inv"),
        "(x := h1 g w x)), clk := Suc (clk g)": (exhibit, "(x := h2 g (dev_of L w) x)), clk := Suc (clk g)", "wb1_inv"),
    }
    _each_breaks(tmp_path, theories, planted, loads="Hrf_Source", fails=exhibit)


def test_program_order_in_the_exhibited_coherence_loads_and_planted_errors_break_it(tmp_path):
    # Hrf_Coherence proves, for every program compiled by such rows whose
    # increments at the L2 each come after a flush of the L1 (every rsp-new
    # row), every layout and both write-back policies, that a thread that
    # has flushed its L1 and waited has no write left in it
    # (flushed_reached_l2), and that the exhibited coherence orders each
    # thread's writes of a location as the program does
    # (machine_candidate_po_co); where the increments are also followed by
    # an invalidation of the L1, that reads-from and coherence agree with
    # program order on every pair of a thread's accesses of a location,
    # reads included (machine_candidate_po_loc). Planted errors, each making
    # the claim false: a flush of the L1 that puts no marker on the fifo (the thread
    # then does not wait for its writes to leave its L1, and an increment
    # at the L2 after it reaches memory before the thread's own earlier
    # store: exec_fifo, what a flush does, fails); rows whose increment at
    # the L2 need not follow a flush (a row of RMWL2 alone then passes, with
    # the same reordering: compiled_flushed fails); rows whose increment at
    # the L2 need not be invalidated after (rsp-old's device RMW then
    # passes, whose stale read rmw-then-load shows: iv_seq_quiet fails);
    # po_loc_ok with two reads of a location ordered the other way, and with
    # a read's write after the thread's later write of the location (the
    # machine never shows either: final_po_loc, the final state's part of
    # machine_candidate_po_loc, fails).
    theories = tuple(t for t in BASE_THEORIES[: BASE_THEORIES.index("Hrf_Source") + 1] if t != "Hrf_Closure")
    theories += ("Hrf_Exhibit", "Hrf_Coherence")
    coherence = "Hrf_Coherence"
    planted = {
        "then l1_fifo s w @ [Flush t] else l1_fifo s w)": (
            "Hrf_Machine",
            "then l1_fifo s w else l1_fifo s w)",
            "exec_fifo",
        ),
        "(\\<forall>r x. fl_seq False (rw r x)))": (
            coherence,
            "(\\<forall>r x. fl_seq True (rw r x)))",
            "compiled_flushed",
        ),
        "INCL2 _ _ \\<Rightarrow> \\<not> p \\<and> iv_seq True xs": (
            coherence,
            "INCL2 _ _ \\<Rightarrow> \\<not> p \\<and> iv_seq False xs",
            "iv_seq_quiet",
        ),
        "\\<longrightarrow> rfw a = rfw r \\<or> (rfw a, rfw r) \\<in> cr)": (
            coherence,
            "\\<longrightarrow> rfw a = rfw r \\<or> (rfw r, rfw a) \\<in> cr)",
            "final_po_loc",
        ),
        "\\<longrightarrow> (rfw r, e) \\<in> cr)": (
            coherence,
            "\\<longrightarrow> (e, rfw r) \\<in> cr)",
            "final_po_loc",
        ),
    }
    _each_breaks(tmp_path, theories, planted, loads="Hrf_Exhibit", fails=coherence)


def test_opencl_rsp_as_a_source_model_loads_and_planted_errors_break_it(tmp_path):
    # Hrf_Source_Opencl proves that opencl-rsp (Model_opencl_rsp, as hrf
    # exports it) allows every SC outcome of a program race-free under it
    # with no non-atomic RMW: the SC run's candidate with each read of a
    # non-atomic location moved to its happens-before-latest write is
    # consistent, and is the run's own unless that read races. Planted
    # errors, each breaking the proof where the claim becomes false:
    # - a data race flag that sees only pairs of atomics (a message passed
    #   through a plain location without synchronisation is then
    #   "race-free", and its SC outcome, the message read, is not allowed:
    #   race2 fails);
    # - the reads of non-atomic locations left on the run's write (the
    #   claim that each then reads a write before it in happens-before,
    #   which the axiom of visible side effects needs, is false for a racy
    #   run: rf2_nal fails);
    # - synchronisation without scope inclusion (the model's sw no longer
    #   asks that release and acquire be in each other's scope: two threads
    #   of two work-groups then pass a message through work-group-scope
    #   atomics race-free, and the claim that a race-free program's
    #   conflicting accesses are in each other's scope is false:
    #   cross_step_incl fails);
    # - the schedule that puts the two accesses side by side with the other
    #   access first (the write is then no longer right before it:
    #   race_free_conflicts_incl fails).
    theories = tuple(t for t in BASE_THEORIES[: BASE_THEORIES.index("Hrf_Source_Opencl") + 1] if t != "Hrf_Closure")
    planted = {
        "- same_thread_attr X ''wi'') - opencl_rsp_n90 X)": (
            "Model_opencl_rsp",
            "- same_thread_attr X ''wi'') - opencl_rsp_n90 X) \\<inter> (tag X ''A'' \\<times> tag X ''A'')",
            "race2",
        ),
        "if nal_ev P r then (SOME w.": ("Hrf_Source_Opencl", "if False then (SOME w.", "rf2_nal"),
        "O Id_on (opencl_rsp_n58 X \\<inter> tag X ''global'')) \\<inter> opencl_rsp_n91 X)": (
            "Model_opencl_rsp",
            "O Id_on (opencl_rsp_n58 X \\<inter> tag X ''global'')))",
            "cross_step_incl",
        ),
        "replicate i t @ replicate j u @ [t, u]": (
            "Hrf_Source_Opencl",
            "replicate i t @ replicate j u @ [u, t]",
            "race_free_conflicts_incl",
        ),
    }
    _each_breaks(tmp_path, theories, planted, loads="Hrf_Source", fails="Hrf_Source_Opencl")


def test_what_threads_know_along_happens_before_loads_and_planted_errors_break_it(tmp_path):
    # Hrf_Happens proves, for every race-free program whose remote
    # operations promote at most a load by a remote store or a remote RMW,
    # or a work-group-scope write to a remote load or a remote RMW
    # (load_promotion), compiled by rows whose device-scope writes flush
    # first, whose device-scope RMWs are performed at the L2 and whose
    # remote loads and RMWs flush the device's L1s after their access
    # (rsp-new's), every
    # layout and both write-back policies, that a write a thread knows along
    # happens-before that has not reached the L2 waits in its own
    # work-group's L1, that every write of a location two work-groups
    # access was released flushed (machine_knows_home), and that coherence
    # agrees with happens-before on writes and on a read before a write
    # (machine_candidate_hb_co). Planted errors, each
    # making the claim false:
    # - synchronisation without scope inclusion (a work-group-scope release
    #   read by another work-group would hand over writes still in the
    #   releaser's L1: hb_thread fails);
    # - a release row that need not flush (vis_flushed read with
    #   `flq visible True`: a row of ST alone passes; compiled_vis_flushed
    #   fails);
    # - coherence against happens-before (a write coherence-after a write
    #   it happens after: final_hb_co fails);
    # - an acquire row that need not invalidate (ia_seq accepting a row
    #   that ends waiting for its invalidation: LD alone passes;
    #   ia_seq_win fails);
    # - what a device-scope acquire learns settled in its L1 at once, not
    #   only once its invalidation has emptied it (kl_ok without its
    #   exemption: a message-passing acquire may still read a stale line of
    #   the data until then; kl_thread fails);
    # - the read halves against happens-before (a read reading a write
    #   coherence-before the one an access before it observes:
    #   final_hb_co_rd fails);
    # - promotion let in: a work-group scope holding every thread, so that
    #   a remote operation may conflict with a work-group-scope access of
    #   another work-group (the model's scope inclusion is then not
    #   reaches: reaches_n82 fails);
    # - what a remote store knew claimed fresh in every L1 of its device
    #   with the store's own write (another work-group may have fetched the
    #   line between the invalidation and the store, and keeps the older
    #   write: rp_thread fails);
    # - promotion let in for any write at device scope (a work-group-scope
    #   load of another work-group reading a device-scope store that is not
    #   remote, whose knowledge is in the L2 but may be older in the
    #   reader's L1, which nothing invalidates: wg_reader_settled fails);
    # - devices that may share a location through a remote all-devices
    #   operation (dev_sys without "neither remote": xdev_pair's second
    #   case, which happens-before does not follow; a remote one and its
    #   conflicting access no longer sit on one device: dv_sys fails);
    # - a remote load's row whose flush after its access need only be of
    #   its own work-group's L1 (fl_next taking FLUL1 WG: what a remote
    #   acquire learns from a work-group-scope release of another
    #   work-group would stay in the releaser's L1; fl_next_idx, on which
    #   rexempt_step rests, fails);
    # - what an all-devices store knew claimed in memory with the store's
    #   own write (it has just been written in the L1: mr_thread fails);
    # - every flush of the L2 at the head of a row counted as after a flush
    #   of the L1 (mem_rows with `flq flul2 True`: in compiled code the
    #   writes waiting in the L1 may reach the L2 after the L2's flush;
    #   compiled_fl2 fails);
    # - synchronisation across devices with one side at all-devices scope
    #   only (a device-scope release read by an all-devices acquire of
    #   another device would hand over writes still in the releaser's L2:
    #   hb_thread fails);
    # - an all-devices load row that need only invalidate its L1 after its
    #   access (inv2_after asking win, the device-scope row LD; INVL1 WG
    #   then passes: its device's L2 may keep lines older than what another
    #   device's release put in memory; compiled_win2 fails);
    # - what a remote store knew of another device claimed fresh in its
    #   device's L1s without its L2's lines (fresh without its fourth part:
    #   an L1 may then fetch an L2 line older than that write, which
    #   another device's release put in memory; fresh_env fails).
    theories = tuple(t for t in BASE_THEORIES[: BASE_THEORIES.index("Hrf_Happens") + 1] if t != "Hrf_Closure")
    happens = "Hrf_Happens"
    planted = {
        "     \\<and> (ewg L w = ewg L r \\<or> ((wide_ev P w": (
            "Hrf_Coherence",
            "     \\<and> (True \\<or> ((wide_ev P w",
            "hb_thread",
        ),
        "(\\<forall>r x. flq visible False (rw r x))": (
            happens,
            "(\\<forall>r x. flq visible True (rw r x))",
            "compiled_vis_flushed",
        ),
        "\\<longrightarrow> ((if is_rd P b then rfw b else b), w) \\<in> cr)": (
            happens,
            "\\<longrightarrow> (w, (if is_rd P b then rfw b else b)) \\<in> cr)",
            "final_hb_co",
        ),
        '"ia_seq p [] = (\\<not> p)"': (happens, '"ia_seq p [] = True"', "ia_seq_win"),
        "readable (l1 s (wg_of L t) x) \\<and> \\<not> exempt L S P s c a \\<longrightarrow>": (
            happens,
            "readable (l1 s (wg_of L t) x) \\<longrightarrow>",
            "kl_thread",
        ),
        "\\<or> ((if is_rd P b then rfw b else b), rfw r) \\<in> cr)": (
            happens,
            "\\<or> (rfw r, (if is_rd P b then rfw b else b)) \\<in> cr)",
            "final_hb_co_rd",
        ),
        "     | WorkGroup \\<Rightarrow> wg_of L u = wg_of L t\n": (
            happens,
            "     | WorkGroup \\<Rightarrow> True\n",
            "reaches_n82",
        ),
        "        \\<and> knows_at L P g (Acc t k False) a \\<and> a \\<noteq> Acc t k False \\<longrightarrow>": (
            happens,
            "        \\<and> knows_at L P g (Acc t k False) a \\<longrightarrow>",
            "rp_thread",
        ),
        "sc_pair P a b \\<longleftrightarrow> wide_ev P a \\<and> (wide_ev P b \\<or> ((rstore_ev P a \\<or> racq_ev P a) \\<and> \\<not> is_wr P b))\n": (
            happens,
            "sc_pair P a b \\<longleftrightarrow> wide_ev P a \\<and> (wide_ev P b \\<or> \\<not> is_wr P b)\n",
            "wg_reader_settled",
        ),
        '| "fl_next (i # xs) = (case i of FLUL1 sc \\<Rightarrow> sc \\<noteq> WG |': (
            happens,
            '| "fl_next (i # xs) = (case i of FLUL1 sc \\<Rightarrow> True |',
            "fl_next_idx",
        ),
        "\\<longrightarrow> sys_ev P a \\<and> sys_ev P b \\<and> \\<not> remote_ev P a \\<and> \\<not> remote_ev P b)": (
            happens,
            "\\<longrightarrow> sys_ev P a \\<and> sys_ev P b)",
            "dv_sys",
        ),
        "        \\<and> knows_at L P g (Acc t k False) a \\<and> a \\<noteq> Acc t k False\n        \\<longrightarrow> ga3 g a": (
            happens,
            "        \\<and> knows_at L P g (Acc t k False) a\n        \\<longrightarrow> ga3 g a",
            "mr_thread",
        ),
        "(\\<forall>r x. flq flul2 False (rw r x))": (
            happens,
            "(\\<forall>r x. flq flul2 True (rw r x))",
            "compiled_fl2",
        ),
        "(ewg L r)) \\<or> (sys_ev P w \\<and> sys_ev P r))}": (
            "Hrf_Coherence",
            "(ewg L r)) \\<or> (sys_ev P w \\<or> sys_ev P r))}",
            "hb_thread",
        ),
        "visible (rw r x ! m) \\<longrightarrow> win2 (rw r x) (Suc m))": (
            happens,
            "visible (rw r x ! m) \\<longrightarrow> win (rw r x) (Suc m))",
            "compiled_win2",
        ),
        '     \\<and> (\\<forall>x. readable (l2 s d x) \\<and> wx S P s x a \\<and> dv L a \\<noteq> Some d \\<longrightarrow> sb L g a (h2 g d x))"': (
            happens,
            '"',
            "fresh_env",
        ),
    }
    _each_breaks(tmp_path, theories, planted, loads="Hrf_Coherence", fails=happens)


def test_rmw_atomicity_at_the_l2_loads_and_planted_errors_break_it(tmp_path):
    # Hrf_Atomicity proves, for every program, racy or not, compiled by rows
    # whose one data instruction is an L1 access or an increment at the L2
    # that a flush of the L1 precedes, on every layout of one device and
    # under both write-back policies, that every RMW performed at the L2 is
    # atomic in the candidate a final state exhibits: no write comes, in
    # its coherence, between the write it reads from and its own
    # (machine_candidate_l2_atomic); and, on a race-free program whose code
    # takes the rmw locks as rsp-new's rows do (lk_code), that every RMW is
    # (machine_candidate_rmw_atomic). Planted errors, each making the claim
    # false:
    # - the claim made of the RMWs performed in the L1 instead ([HRFR15]
    #   Fig. 11's work-group RMW, after a device RMW of its location, reads
    #   its L1's stale line and loses the device RMW's update:
    #   tests/test_soundness.py): at2_thread fails;
    # - atomicity turned round (no write coherence-before the one the RMW
    #   reads, or after its own: the initial write is before every other):
    #   final_rmw_sb fails;
    # - an RMW at all-devices scope let in where two devices share a
    #   location through all-devices atomics (dev_sys_rmw without its row
    #   hypothesis that no RMW is at all-devices scope: such an RMW is
    #   performed at one device's L2, not atomic against another device's
    #   writes; the machine has no RMW at memory): dev_sys_rmw fails.
    theories = tuple(t for t in BASE_THEORIES[: BASE_THEORIES.index("Hrf_Atomicity") + 1] if t != "Hrf_Closure")
    atom = "Hrf_Atomicity"
    planted = {
        "ins P t k = Op a r x \\<and> a \\<in> B)": (atom, "ins P t k = Op a r x \\<and> a \\<notin> B)", "at2_thread"),
        "(rfw (Acc t k False), w) \\<notin> cos \\<or> (w, Acc t k True) \\<notin> cos": (
            atom,
            "(w, rfw (Acc t k False)) \\<notin> cos \\<or> (Acc t k True, w) \\<notin> cos",
            "final_rmw_sb",
        ),
        'and nsr: "\\<forall>a \\<in> A \\<union> B. \\<forall>rm. a \\<noteq> FetchInc AllDevices rm"': (
            atom,
            'and nsr: "True"',
            "dev_sys_rmw",
        ),
    }
    _each_breaks(tmp_path, theories, planted, loads="Hrf_Happens", fails=atom)


def test_opencl_rsp_consistency_of_the_exhibited_candidate_loads_and_planted_errors_break_it(tmp_path):
    # Hrf_Consistent proves that the candidate a final state exhibits meets
    # all eleven of OpenCL+RSP's checks, for every race-free program without
    # remote operations on one device compiled by rows like rsp-new's
    # (machine_candidate_consistent), so that such a scheme is sound against
    # the model (machine_sound_on_rows). Planted errors, each making a claim
    # false:
    # - a cross-thread conflict asks only the write to be atomic (a
    #   non-atomic read of another thread's atomic write synchronises with
    #   nothing): rf_hbr fails;
    # - a candidate without RMW atomicity (an RMW may then read a write
    #   coherence-before the head of the release sequence it extends, and
    #   the model's synchronisation through it is not in hbr): relseq_hbr
    #   fails;
    # - the four checks claimed without coherence of reads along
    #   happens-before (hb_co_rd_ok): cand_hb_axioms fails;
    # - a race-free program's remote operations meeting accesses of their
    #   own device only, claimed without its hypothesis that none is at
    #   all-devices scope (a remote all-devices store and an atomic load of
    #   another device it promotes are race-free, on two devices):
    #   race_free_remote_local fails;
    # - such remote operations promoting at most as load_promotion says,
    #   claimed without remote_wide (a remote work-group-scope operation's
    #   scope does not hold another work-group's thread):
    #   remote_load_promotion fails.
    theories = tuple(t for t in BASE_THEORIES[: BASE_THEORIES.index("Hrf_Consistent") + 1] if t != "Hrf_Closure")
    cons = "Hrf_Consistent"
    planted = {
        '\\<longrightarrow> atomic_ev P a \\<and> atomic_ev P b)"': (
            cons,
            '\\<longrightarrow> atomic_ev P a)"',
            "rf_hbr",
        ),
        'rmw_atomic P f cr t k"\n    and ac:': (
            cons,
            'True"\n    and ac:',
            "relseq_hbr",
        ),
        'assumes hc: "hb_co_ok L P f cr" and hr: "hb_co_rd_ok L P f cr" and': (
            cons,
            'assumes hc: "hb_co_ok L P f cr" and hr: "True" and',
            "cand_hb_axioms",
        ),
        'and ns: "no_remote_sys P"\n  shows "remote_local L P"': (
            cons,
            'and ns: "True"\n  shows "remote_local L P"',
            "race_free_remote_local",
        ),
        'and rw: "remote_wide P" and rl: "remote_local L P"\n  shows "load_promotion L (plain_as_wg P)"': (
            cons,
            'and rw: "True" and rl: "remote_local L P"\n  shows "load_promotion L (plain_as_wg P)"',
            "remote_load_promotion",
        ),
    }
    _each_breaks(tmp_path, theories, planted, loads="Hrf_Atomicity", fails=cons)


def test_the_schemes_l1_rows_are_proved_and_a_device_rmw_among_them_fails(tmp_path):
    # Each scheme theory proves which of its rows are L1 rows and which L2
    # rows and states Hrf_Simulation's theorems for them, and, where every
    # row takes its rmw locks in brackets, deadlock freedom of every program
    # it compiles. Planted claims: rsp-new's device RMW (performed at the
    # L2) among the L1 rows; a row that never releases its lock among
    # disciplined rows; its work-group RMW (in the L1) among the L2 rows.
    from hrf.isabelle.schemes import scheme_theory

    # every base theory a scheme theory imports (Hrf_Consistent's among them)
    theories = tuple(t for t in BASE_THEORIES[: BASE_THEORIES.index("Hrf_Consistent") + 1] if t != "Hrf_Closure")
    for name in theories:
        (tmp_path / f"{name}.thy").write_text((BASE / f"{name}.thy").read_text())
    names = []
    for scheme in hrf.schemes():
        name, text = scheme_theory(scheme)
        (tmp_path / f"{name}.thy").write_text(text)
        names.append(name)

    def check(*extra):
        return subprocess.run(
            ["bash", str(CHECK), str(tmp_path), *theories, *extra], capture_output=True, text=True, timeout=600
        )

    done = check(*names)
    n = len(theories) + len(names)
    assert done.returncode == 0 and f"TOTAL: {n} of {n} theories loaded" in done.stdout, done.stdout[-3000:]
    path = tmp_path / "Scheme_rsp_new.thy"
    text = path.read_text()

    def fails(pattern, replacement, lemma=None):
        """rsp-new's theory with one planted change fails, at the proof of
        `lemma` where one is named."""
        planted, k = re.subn(pattern, replacement, text)
        assert k == 1
        path.write_text(planted)
        done = check("Scheme_rsp_new")
        assert done.returncode != 0 and "RESULT Scheme_rsp_new: FAILED" in done.stdout
        if lemma:
            line = planted[: planted.index(f"lemma {lemma}:")].count("\n") + 2  # its proof
            assert f"(line {line} of" in done.stdout, done.stdout[-3000:]

    fails(r'(lemma rsp_new_l1_rows: "l1_rows rsp_new \{)', r"\1FetchInc Device False, ")
    # Planted: the work-group RMW's row without its UNLKrmw (a lock held
    # for ever): rsp_new_disciplined, and so its deadlock freedom, fail.
    fails(r"\[LKrmw WG, INCL1 r x, UNLKrmw WG\]", "[LKrmw WG, INCL1 r x]", "rsp_new_disciplined")
    # Planted: the work-group RMW (performed in the L1) among the L2 rows.
    fails(r'(lemma rsp_new_l2_rows: "l2_rows rsp_new \{)', r"\1FetchInc WorkGroup False, ", "rsp_new_l2_rows")
    # Planted: the device store without the flush before it (a release that
    # hands over writes still in its L1: Hrf_Happens's rel_rows, and so
    # rsp_new_knows_home, fail).
    fails(
        r"\(Store Device False, \\<lambda>r x\. \[FLUL1 WG, ST \(ER r\) x\]\)",
        r"(Store Device False, \\<lambda>r x. [ST (ER r) x])",
        "rsp_new_rel_rows",
    )
    # Planted: the device load without the invalidation after it (an
    # acquire that may go on reading lines older than what it learnt:
    # Hrf_Happens's acq_rows, and so rsp_new_outcomes_hb_coherent, fail).
    fails(
        r"\(Load Device False, \\<lambda>r x\. \[LD r x, INVL1 WG\]\)",
        r"(Load Device False, \\<lambda>r x. [LD r x])",
        "rsp_new_acq_rows",
    )
    # Planted: the device RMW without its rmw lock (the slide's row, which
    # hrf refutes on litmus/rsp/rmw-dev-vs-wg.litmus: its flush is made
    # under no lock, so a work-group RMW may still wait in the L1 when the
    # increment at the L2 is made): Hrf_Atomicity's lk_rows, and so
    # rsp_new_outcomes_rmw_atomic, fail.
    fails(
        r"\[LKrmw WG, FLUL1 WG, INCL2 r x, INVL1 WG, UNLKrmw WG\]",
        "[FLUL1 WG, INCL2 r x, INVL1 WG]",
        "rsp_new_lk_rows",
    )
    # Planted: the remote store without its device flush before the store
    # (a remote release to a device-scope acquire of another work-group,
    # which promotes nothing, may hand over a write still in the L1:
    # tests/test_soundness.py; rel_rows, and so rsp_new_knows_home, fail).
    fails(
        r"\[LKrmw DV, FLUL1 DV, INVL1 DV, ST \(ER r\) x, FLUL1 WG, INVL1 DV, UNLKrmw DV\]",
        "[LKrmw DV, INVL1 DV, ST (ER r) x, FLUL1 WG, INVL1 DV, UNLKrmw DV]",
        "rsp_new_rel_rows",
    )
    # Planted: the all-devices store without its flush of the L2 (a
    # release whose writes may still wait in its device's L2, out of reach
    # of another device's acquire: Hrf_Happens's mem_rows, and so
    # rsp_new_memory_release, fail).
    fails(
        r"\(Store AllDevices False, \\<lambda>r x\. \[FLUL1 WG, FLUL2 DV, ST \(ER r\) x\]\)",
        r"(Store AllDevices False, \\<lambda>r x. [FLUL1 WG, ST (ER r) x])",
        "rsp_new_mem_rows",
    )
    # Planted: the all-devices load invalidating its L1 before its L2 (a
    # stale L2 line may come back into the L1 in between, RSP_Test5 one
    # level down: Hrf_Happens's acq2_rows, and so
    # rsp_new_acquire_l2_fresh, fail).
    fails(
        r"\(Load AllDevices False, \\<lambda>r x\. \[LD r x, INVL2 DV, INVL1 WG\]\)",
        r"(Load AllDevices False, \\<lambda>r x. [LD r x, INVL1 WG, INVL2 DV])",
        "rsp_new_acq2_rows",
    )
    # Planted: the remote store invalidating only its own work-group's L1
    # before the store (INVL1 WG): another work-group of the device may
    # keep a line older than what the release knew, and a work-group-scope
    # acquire there that promotion lets read the release would find it
    # (Hrf_Happens's prom_rows, and so rsp_new_remote_release_fresh, fail).
    fails(
        r"\[LKrmw DV, FLUL1 DV, INVL1 DV, ST \(ER r\) x, FLUL1 WG, INVL1 DV, UNLKrmw DV\]",
        "[LKrmw DV, FLUL1 DV, INVL1 WG, ST (ER r) x, FLUL1 WG, INVL1 DV, UNLKrmw DV]",
        "rsp_new_prom_rows",
    )
    # Planted: the remote load without its device flush after the load, or
    # with its invalidation before that flush: a remote acquire that reads a
    # work-group-scope release of another work-group may go on reading
    # lines older than the writes that release knew, still waiting in the
    # releaser's L1 (tests/test_soundness.py; Hrf_Happens's rl_rows, and so
    # rsp_new_knows_home, fail).
    for row in ("[LD r x, INVL1 WG]", "[LD r x, INVL1 WG, FLUL1 DV]"):
        fails(
            r"\(Load Device True, \\<lambda>r x\. \[LD r x, FLUL1 DV, INVL1 WG\]\)",
            f"(Load Device True, \\\\<lambda>r x. {row})",
            "rsp_new_rl_rows",
        )
    # Planted: the remote RMW without its device flush after the increment
    # (a remote RMW that reads a work-group-scope release of another
    # work-group may go on reading lines older than the writes that release
    # knew: tests/test_soundness.py; rl_rows, and so rsp_new_knows_home,
    # fail).
    fails(
        r"\(FetchInc Device True, \\<lambda>r x\. \[LKrmw DV, FLUL1 DV, INVL1 DV, INCL2 r x, FLUL1 DV, INVL1 DV, UNLKrmw DV\]\)",
        "(FetchInc Device True, \\\\<lambda>r x. [LKrmw DV, FLUL1 DV, INVL1 DV, INCL2 r x, INVL1 DV, UNLKrmw DV])",
        "rsp_new_rl_rows",
    )
    # Planted: the remote RMW invalidating only its own work-group's L1
    # after the increment (the slide's INVL1 WG): another work-group's L1
    # may keep a line of x fetched before the increment, and a
    # work-group-scope RMW there reads it and loses the remote RMW's update
    # (tests/test_soundness.py; Hrf_Atomicity's rr_rows, and so
    # rsp_new_outcomes_rmw_atomic, fail).
    fails(
        r"\(FetchInc Device True, \\<lambda>r x\. \[LKrmw DV, FLUL1 DV, INVL1 DV, INCL2 r x, FLUL1 DV, INVL1 DV, UNLKrmw DV\]\)",
        "(FetchInc Device True, \\\\<lambda>r x. [LKrmw DV, FLUL1 DV, INVL1 DV, INCL2 r x, FLUL1 DV, INVL1 WG, UNLKrmw DV])",
        "rsp_new_rr_rows",
    )
    # Planted: the remote store without the flush of its L1 after the store
    # (its store may wait in its L1 after the lock is released, and a
    # work-group-scope RMW of another work-group, reading the L2's older
    # line, loses it: tests/test_soundness.py; Hrf_Atomicity's rr_rows
    # (rs_code), and so rsp_new_outcomes_rmw_atomic, fail).
    fails(
        r"\[LKrmw DV, FLUL1 DV, INVL1 DV, ST \(ER r\) x, FLUL1 WG, INVL1 DV, UNLKrmw DV\]",
        "[LKrmw DV, FLUL1 DV, INVL1 DV, ST (ER r) x, INVL1 DV, UNLKrmw DV]",
        "rsp_new_rr_rows",
    )
    # Planted: the remote RMW invalidating only its own work-group's L1
    # before the increment (INVL1 WG): another work-group of the device may
    # keep a line older than what the RMW's thread knew, and a
    # work-group-scope acquire there that promotion lets read the RMW's
    # write would find it (tests/test_soundness.py; Hrf_Happens's prom_rows,
    # and so rsp_new_remote_release_fresh, fail).
    fails(
        r"\(FetchInc Device True, \\<lambda>r x\. \[LKrmw DV, FLUL1 DV, INVL1 DV, INCL2 r x, FLUL1 DV, INVL1 DV, UNLKrmw DV\]\)",
        "(FetchInc Device True, \\\\<lambda>r x. [LKrmw DV, FLUL1 DV, INVL1 WG, INCL2 r x, FLUL1 DV, INVL1 DV, UNLKrmw DV])",
        "rsp_new_prom_rows",
    )


def test_a_family_theory_loads_and_a_planted_outcome_breaks_it(tmp_path):
    # rsp-new on the family's first two programs (two acquire loads of x at
    # all-devices scope, in one work-group and in two): sound_check is
    # evaluated over Hrf_Mapping's compile. Planted error: the first
    # program's allowed outcomes emptied; its final states then show an
    # outcome not listed, and the theory no longer loads.
    from hrf.isabelle import export_scheme_family

    r = export_scheme_family("rsp-new", tmp_path, locations=1, first=2)
    assert len(r.members) == 2
    theories = BASE_THEORIES[: BASE_THEORIES.index("Hrf_Soundness") + 1] + ("Scheme_rsp_new", r.theory)

    def check():
        return subprocess.run(
            ["bash", str(CHECK), str(tmp_path), *theories], capture_output=True, text=True, timeout=900
        )

    done = check()
    assert done.returncode == 0 and f"RESULT {r.theory}: OK" in done.stdout, done.stdout[-3000:]
    path = tmp_path / f"{r.theory}.thy"
    text = path.read_text()
    planted, n = re.subn(r'(_allowed = )\[\[.*?\]\]"', r'\1[]"', text, count=1)
    assert n == 1
    path.write_text(planted)
    done = check()
    assert done.returncode != 0 and f"RESULT {r.theory}: FAILED" in done.stdout


def _mapping_sample(n: int, seed: int = 11):
    from hrf.generate import generate

    return generate(count=n, seed=seed, dialect="c", orders="rlx,acq,rel,sc", scopes="dev", max_edges=6, max_threads=4)


def test_mapping_lemmas_load_for_50_tests(tmp_path):
    # The ABI mapping from rc11 to ptx-7.5: for each of 50 generated C11
    # tests, Isabelle decides which candidate executions each model takes
    # and proves the source race-free and every target outcome a source one.
    from hrf.isabelle import export_mapping_isabelle

    r = export_mapping_isabelle(_mapping_sample(50), "ptx-abi", tmp_path, source="rc11", target="ptx-7.5")
    assert len(r.tests) == 50, r.skipped
    done = _check(tmp_path)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    assert f"TOTAL: {len(r.theories)} of {len(r.theories)} theories loaded" in done.stdout


def test_a_planted_unsound_mapping_lemma_fails(tmp_path):
    # Control: the acquire load mapped to ld.relaxed on message passing;
    # hrf finds it unsound and claims nothing, and the lemma written anyway
    # (only_sound=False) is refused by Isabelle, not only by hrf.
    from hrf.api import Limits
    from hrf.isabelle import export_mapping_isabelle, mapping_theory
    from hrf.models import get as get_model

    mp, bad = planted_acquire_relaxed()
    # the same test under the ABI itself loads (so what fails is the mapping)
    ok = export_mapping_isabelle(mp, "ptx-abi", tmp_path / "ok", source="rc11", target="ptx-7.5")
    assert _check(tmp_path / "ok").returncode == 0
    theory, text, *_ = mapping_theory(mp, bad, get_model("rc11"), get_model("ptx-7.5"), Limits(), 64, only_sound=False)
    (tmp_path / "ok" / f"{ok.tests[0].theory}.thy").unlink()
    (tmp_path / "ok" / f"{theory}.thy").write_text(text)
    from hrf.isabelle import write_root

    write_root(tmp_path / "ok")
    done = _check(tmp_path / "ok")
    assert done.returncode != 0
    assert f"RESULT {theory}: FAILED" in done.stdout


def test_the_theorems_apply_to_exported_executions(tmp_path):
    # Each consistent, race-free execution exported under the HRF models
    # gets `exK_well_formed` (by evaluation) and SC for HRF / [HRFR15]
    # Theorem A.4 obtained by `rule`, its hypotheses evaluated: the
    # theorems hold of what hrf exports. Control: `well_formed` as it was
    # (every access atomic or ordinary, the initial writes included, which
    # hrf tags neither) is false of every exported execution, and the
    # instances fail to load.
    test = CORPUS / "hrf" / "hrf14-fig5-same-wg.litmus"
    r = export_isabelle([test], ["hrf-direct", "hrf-direct-relaxed"], tmp_path)
    texts = [p.read_text() for p in tmp_path.glob("hrf14_fig5*.thy")]
    assert sum(t.count('_sc: "sc_consistent') for t in texts) == 6  # 3 consistent executions, 2 models
    done = _check(tmp_path)
    assert done.returncode == 0, done.stdout[-5000:]
    assert f"TOTAL: {len(r.theories)} of {len(r.theories)} theories loaded" in done.stdout
    base = tmp_path / "Hrf_Theorems.thy"
    now = "\\<and> accesses X - init_writes X \\<subseteq> atomics X \\<union> ordinary X"
    assert now in base.read_text()
    # the old requirement, which also asked it of the initial writes
    old = now + "\n   \\<and> init_writes X \\<subseteq> atomics X \\<union> ordinary X"
    base.write_text(base.read_text().replace(now, old))
    done = _check(tmp_path)
    assert "RESULT Hrf_Theorems: OK" in done.stdout
    assert "RESULT hrf14_fig5_same_wg_hrf_direct: FAILED" in done.stdout
    assert "RESULT hrf14_fig5_same_wg_hrf_direct_relaxed: FAILED" in done.stdout


def test_theorem_b4_repaired_loads_and_its_refutation_is_a_theorem(tmp_path):
    # [HRFR15] Theorem B.4: refuted for Fig. 11's hrf-cache (a run of the
    # machine to x = 1, a theorem here) and proved, family member by member,
    # for the repaired hrf-cache-locked (under both write-back policies).
    from hrf.isabelle import export_scheme_family

    r = export_scheme_family("hrf-cache", tmp_path / "cache", model="hrf-direct-relaxed")
    (cex,) = r.counterexamples
    done = subprocess.run(
        ["bash", str(CHECK), str(tmp_path / "cache"), "Hrf_Execution", "Hrf_Machine", cex],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0 and f"RESULT {cex}: OK" in done.stdout, done.stdout[-3000:]
    r = export_scheme_family("hrf-cache-locked", tmp_path / "locked", model="hrf-direct-relaxed")
    assert "F_rmw_dev_x__rmw_wg_x_same_wg" in r.members
    done = _check(tmp_path / "locked")
    assert done.returncode == 0 and f"RESULT {r.theory}: OK" in done.stdout, done.stdout[-3000:]


def test_a_planted_error_in_rsp_new_fails_the_family_proof(tmp_path):
    # The family's soundness proof, not hrf's verdict, rejects a planted
    # error: rsp-new's device RMW without its work-group's rmw lock (the
    # slide's row), with the member it breaks put in the theory although hrf
    # finds it unsound (include_unsound): Isabelle's sound_check evaluates
    # to False on it and the theory does not load. Control: the repaired
    # row on the same members loads. (Without the L1 invalidation after an
    # acquire, or the flush before a device store, no program of one
    # operation per thread goes wrong: hrf soundness catches those on
    # message passing, tests/test_soundness.py.)
    import dataclasses

    from hrf.isabelle import export_scheme_family
    from hrf.mappings.registry import get
    from hrf.mappings.scheme import Row

    s = get("rsp-new")
    planted = dataclasses.replace(
        s,
        name="rsp-new-no-lock",
        rows={**s.rows, ("rmw", "dev", False): Row(("FLUL1 WG", "RMWL2", "INVL1 WG"), "planted")},
    )
    names = {"F_rmw_dev_x__rmw_wg_x_same_wg", "F_rmw_dev_x__rmw_dev_x_same_wg"}
    for scheme, ok in ((s, True), (planted, False)):
        out = tmp_path / scheme.name
        r = export_scheme_family(scheme, out, names=names, include_unsound=True)
        assert set(r.members) == names
        done = _check(out)
        assert (f"RESULT {r.theory}: OK" in done.stdout) is ok, done.stdout[-3000:]


@pytest.mark.parametrize(
    "key, row, wb",
    [(("load", "dev", False), ("LD",), "fifo"), (("store", "dev", False), ("ST",), "any")],
    ids=["no-invalidation-after-acquire", "no-flush-before-release"],
)
def test_planted_errors_one_operation_misses_fail_the_closure_on_message_passing(tmp_path, key, row, wb):
    # rsp-new without the L1 invalidation after a device acquire, or without
    # the flush before a device store: no program of the family (one
    # operation per thread) goes wrong, but the corrupt MP does (the first
    # under either write-back policy, the second when the L1 may write its
    # lines back in any order). The no-other-outcome theorem claimed for it
    # anyway (closable's unsound_too) is refused by Isabelle's closure check
    # over the machine's reachable states, not by hrf; control: the same
    # theorem for rsp-new loads.
    import dataclasses

    from hrf.isabelle.runs import closable, run_theory
    from hrf.mappings.registry import get
    from hrf.mappings.scheme import Row

    s = get("rsp-new")
    planted = dataclasses.replace(s, name="rsp-new-planted", rows={**s.rows, key: Row(row, "planted")})
    for scheme, ok in ((s, True), (planted, False)):
        res = hrf.soundness(CORPUS / "rsp" / "corrupt-mp.litmus", scheme, writeback=[wb])
        assert res.sound is ok
        closed, _ = closable(res, 100_000, unsound_too=True)
        assert set(closed) == {wb}
        name, text = run_theory(res, closed=closed)
        assert re.search(rf"^theorem {name.lower()}_{wb}_sound:", text, re.M)
        folder = tmp_path / scheme.name
        folder.mkdir()
        for base in ("Hrf_Machine", "Hrf_Closure"):
            (folder / f"{base}.thy").write_text((BASE / f"{base}.thy").read_text())
        (folder / f"{name}.thy").write_text(text)
        done = subprocess.run(
            ["bash", str(CHECK), str(folder), "Hrf_Machine", "Hrf_Closure", name],
            capture_output=True,
            text=True,
            timeout=1800,
        )
        assert (f"RESULT {name}: OK" in done.stdout) is ok, done.stdout[-3000:]
