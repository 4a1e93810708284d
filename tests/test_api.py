"""The public API and its limits."""

import json

import pytest

import hrf
from conftest import CORPUS, have_dot

FIG5 = CORPUS / "hrf" / "hrf14-fig5-diff-wg.litmus"

SB_TEXT = """OPENCL SB
{ [x]=0; [y]=0; }
P0@wg 0, dev 0 (global int* x, global int* y) { *x = 1; int r0 = *y; }
P1@wg 1, dev 0 (global int* x, global int* y) { *y = 1; int r1 = *x; }
exists (0:r0=0 /\\ 1:r1=0)
"""


def test_models_names():
    assert {"sc", "hrf-direct", "hrf-indirect"} <= set(hrf.models())


def test_check_accepts_path_text_and_ast():
    a = hrf.check(FIG5, "hrf-direct")
    b = hrf.check(FIG5.read_text(), "hrf-direct")
    c = hrf.check(hrf.parse(FIG5), "hrf-direct")
    d = hrf.check(str(FIG5), "hrf-direct")
    for r in (b, c, d):
        assert (r.outcomes, r.racy, r.condition_holds) == (a.outcomes, a.racy, a.condition_holds)


def test_result_contract():
    r = hrf.check(FIG5, "hrf-direct")
    assert isinstance(r.condition_holds, bool) and isinstance(r.racy, bool)
    assert r.flags[0]["kind"] == "heterogeneous_race" and len(r.flags[0]["events"]) == 2
    assert all(set(o) == {"0:rB", "1:rA"} for o in r.outcomes)
    kind, pos, neg = r.observation
    assert kind in ("Always", "Sometimes", "Never") and pos + neg == r.consistent
    j = r.to_json()
    for key in ("condition_holds", "racy", "flags", "outcomes", "observation", "name", "model"):
        assert key in j
    json.dumps(j)  # serialisable
    assert r.time >= 0 and r.candidates >= r.consistent > 0


def test_sb_under_sc_by_hand():
    # SC forbids r0 = r1 = 0 (each read follows the other thread's write or
    # precedes it; both preceding would be a cycle po;fr;po;fr).
    r = hrf.check(SB_TEXT, "sc")
    assert r.condition_holds is False
    assert sorted(tuple(o.values()) for o in r.outcomes) == [(0, 1), (1, 0), (1, 1)]
    assert "Test SB Allowed" in r.to_herd() and "\nNo\n" in r.to_herd()


def test_unknown_model():
    with pytest.raises(hrf.HrfError, match="unknown model 'tso'"):
        hrf.check(FIG5, "tso")


def test_established_verdict_survives_a_limit():
    # An `exists` with a witness is established even if the run is cut.
    r = hrf.check(SB_TEXT.replace("0:r0=0 /\\ 1:r1=0", "0:r0=1"), "sc", max_candidates=2)
    if r.observation[1] > 0:
        assert r.condition_holds is True


def test_value_limit():
    text = """OPENCL inc
{ [x]=0; }
P0@wg 0, dev 0 (global atomic_int* x) { atomic_fetch_add(x, 1); atomic_fetch_add(x, 1); }
P1@wg 0, dev 0 (global atomic_int* x) { atomic_fetch_add(x, 1); atomic_fetch_add(x, 1); }
exists (x=4)
"""
    r = hrf.check(text, "sc")
    assert r.condition_holds is True and r.observation[2] == 0  # four increments always give 4
    r = hrf.check(text, "sc", max_values=2)
    assert r.complete is False and r.limit["which"] == "values" and r.condition_holds is None


def test_unroll_bound_changes_cut_paths():
    f = CORPUS / "hrf" / "hrf14-fig6.litmus"
    r0 = hrf.check(f, "sc", unroll=0)
    r3 = hrf.check(f, "sc", unroll=3)
    assert r0.cut_paths and r3.cut_paths
    assert r3.consistent > r0.consistent  # more iterations, more executions kept


SPIN_ON_OWN_STORE = """PTX spin-own
"P0 spins on what it wrote itself; P1 writes another location"
{
x=0;
P0:r0=0;
}
 P0@cta 0,gpu 0  | P1@cta 0,gpu 0 ;
 st.weak x, 1    | st.weak y, 1   ;
 LC00:           |                ;
 ld.weak r0, x   |                ;
 bne r0, 1, LC00 |                ;
exists
(P0:r0 == 1)
"""


@pytest.mark.parametrize("model", ["sc", "ptx-6.0", "ptx-7.5", "ptx-8.0"])
def test_a_thread_spinning_on_its_own_write_leaves_its_loop(model):
    # By hand: P0's load is po-after its store of 1, so coherence gives it 1
    # (or a co-later write: there is none) and the loop exits at once; 0 (the
    # initial write, co-before the store) is forbidden by read-write coherence.
    # Every path of P0 that does not leave the unrolled loop is cut by the
    # bound, and the store of 1 is on each: the values a read may take now
    # include what cut paths wrote (before, 1 was none of x's values, so the
    # read never returned it and no execution completed).
    r = hrf.check(SPIN_ON_OWN_STORE, model)
    assert r.complete and r.condition_holds is True
    assert [dict(o) for o in r.outcomes] == [{"0:r0": 1}]


def test_check_many_in_order_and_errors_inline(tmp_path):
    bad = tmp_path / "bad.litmus"
    bad.write_text("OPENCL bad\n{ [x]=0; }\nP0 (global int* x) { *x = }\nexists (x=1)\n")
    files = sorted((CORPUS / "hrf").glob("*.litmus"))
    tests = [str(f) for f in files] + [str(bad)]
    out = list(hrf.check_many(tests, ["hrf-direct", "hrf-indirect"], workers=2, chunk=5))
    assert len(out) == 2 * len(tests)
    for i, f in enumerate(files):
        for j, m in enumerate(["hrf-direct", "hrf-indirect"]):
            r = out[2 * i + j]
            try:
                single = hrf.check(f, m)
            except hrf.UnsupportedFeature as e:  # e.g. relaxed atomics under HRF-direct
                assert isinstance(r.error, hrf.UnsupportedFeature) and str(r.error) == str(e)
                continue
            assert (r.name, r.model, r.racy, r.condition_holds, r.outcomes) == (
                single.name,
                m,
                single.racy,
                single.condition_holds,
                single.outcomes,
            )
    assert isinstance(out[-1].error, hrf.LitmusSyntaxError) and out[-1].condition_holds is None


def test_dot_graph():
    r = hrf.check(CORPUS / "hrf" / "hrf14-fig6.litmus", "hrf-direct")
    dot = r.to_dot()
    assert dot.startswith("digraph execution {") and dot.rstrip().endswith("}")
    assert "cluster_dev0" in dot and "work-group" in dot and "label=rf" in dot
    assert "color=red, penwidth=2" in dot  # the racing pair is highlighted
    assert "heterogeneous_race" in dot
    assert 'label="so"' in dot  # the model's synchronisation edges (Model.show)


def test_check_many_processes_match_threads(tmp_path):
    # The process pool (forked workers, compiled program not sent back) and
    # the thread path must give the same results: verdicts, outcomes, flags
    # with their events, witness graphs (drawn from a recompiled program)
    # and errors with their file/line/column.
    bad = tmp_path / "bad.litmus"
    bad.write_text("OPENCL bad\n{ [x]=0; }\nP0 (global int* x) { *x = }\nexists (x=1)\n")
    files = [str(f) for f in sorted((CORPUS / "hrf").glob("*.litmus"))]
    tests = files + [str(bad)] + hrf.generate(count=60, seed=3, max_edges=4, max_threads=3)
    models = ["hrf-direct", "hrf-indirect", "sc"]
    threads = list(hrf.check_many(tests, models, workers=2, processes=False))
    procs = list(hrf.check_many(tests, models, workers=2, processes=True))
    assert len(threads) == len(procs) == 3 * len(tests)
    assert any(r.racy for r in procs) and any(r.error for r in procs)
    for a, b in zip(threads, procs, strict=False):
        assert b._compiled is None  # not sent back by the worker
        # nor kept in one process (the parsed test is, to compile again from)
        assert a._compiled is None and (a.error is not None or a._source is not None)
        ja, jb = a.to_json(), b.to_json()
        ja.pop("time"), jb.pop("time")
        assert ja == jb
        assert a.states == b.states and a.executions == b.executions
        if a.error is None:
            assert a.to_herd().split("\nTime")[0] == b.to_herd().split("\nTime")[0]
            if a.flags or a.states:
                assert a.to_dot() == b.to_dot()
        else:
            assert type(a.error) is type(b.error) and str(a.error) == str(b.error)
    err = next(r.error for r in procs if isinstance(r.error, hrf.LitmusSyntaxError))
    assert (err.file, err.line) == (str(bad), 3) and err.column is not None


def test_check_many_results_keep_their_test_and_compile_it_again_on_first_use():
    # Results made in one process hold the parsed test (the caller's own
    # object), not the program compiled from it; a herd log needs only the
    # unroll bound; witnesses compile it again and are those check gives.
    tests = hrf.generate(count=12, seed=5, max_edges=4, max_threads=3)
    rs = list(hrf.check_many(tests, ["hrf-direct"], workers=1))
    assert all(r._compiled is None and r._source[0] is t for r, t in zip(rs, tests, strict=True))
    assert "States" in rs[0].to_herd_log() and rs[0]._compiled is None
    for t, r in zip(tests, rs, strict=True):
        want, got = hrf.check(t, "hrf-direct").to_json(), r.to_json()
        want.pop("time"), got.pop("time")
        assert got == want
        assert r._compiled is not None  # compiled for the witnesses, once


def test_results_have_a_short_repr_and_draw_themselves_in_notebooks():

    r = hrf.check(CORPUS / "hrf" / "hrf14-fig6.litmus", "hrf-direct")
    assert repr(r) == "<Result hrf14-fig6 under hrf-direct: Ok (Always 9/9), racy, 1 outcome, 9 candidates>"
    m = hrf.explore(CORPUS / "machine" / "corrupt-mp-rsp-old.litmus")
    assert repr(m).startswith("<MachineResult corrupt-MP-rsp-old (writeback=fifo): Ok, 4 outcomes, ")
    s = hrf.soundness(CORPUS / "rsp" / "corrupt-mp.litmus", "rsp-old")
    assert "UNSOUND" in repr(s) and len(repr(s)) < 200
    if not have_dot():
        assert r._repr_svg_() is None  # the notebook falls back to the repr
        return
    for x in (r, m, s, s.counterexamples[0]):
        assert x._repr_svg_().lstrip().startswith(("<?xml", "<svg"))
    # nothing to draw: no picture, no exception
    assert hrf.check(CORPUS / "hrf" / "hrf14-fig6.litmus", "hrf-direct", witnesses=False)._repr_svg_() is None


def test_import_hrf_loads_only_what_checking_needs_and_every_public_name_resolves():
    # A cold `hrf check` should not pay for the machine, the schemes or the
    # Isabelle export (benchmarks/bench_cold_start.py measures the time);
    # every name of the contract still resolves, to what it did before.
    import subprocess
    import sys

    code = (
        "import sys, hrf\n"
        "lazy = ('hrf.machine', 'hrf.mappings', 'hrf.isabelle', 'hrf.ir', 'hrf.generate', 'hrf.compare', "
        "'hrf.soundness', 'lark', 'multiprocessing', 'hashlib')\n"
        "print(sorted(m for m in lazy if m in sys.modules))\n"
        "import hrf.isabelle, hrf.machine, hrf.mappings, hrf.generate, hrf.compare, hrf.soundness\n"
        "print(all(callable(getattr(hrf, n)) or isinstance(getattr(hrf, n), type) for n in hrf.__all__))\n"
        "from hrf.generate import write_tests\n"
        "print([type(getattr(hrf, n)).__name__ for n in ('generate', 'compare', 'soundness')])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    # the functions named as their modules stay functions once the modules are imported
    assert out[0] == "[]" and out[1] == "True" and out[2] == "['function', 'function', 'function']"


def test_the_ast_methods_are_cached_and_rebuilt_when_damaged(tmp_path):
    # the AST nodes' compiled methods live in hrf's per-user cache; a
    # damaged file is compiled again, and without the cache hrf compiles
    # them in memory: the same parse each way
    import os
    import subprocess
    import sys

    code = "import hrf; print(hrf.parse(sys.argv[1]) == hrf.parse(sys.argv[1]), repr(hrf.parse(sys.argv[1]))[:60])"
    fig6 = str(CORPUS / "hrf" / "hrf14-fig6.litmus")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}

    def run(**extra):
        out = subprocess.run(
            [sys.executable, "-c", "import sys; " + code, fig6], env={**env, **extra}, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        return out.stdout

    first = run()
    (cached,) = (tmp_path / "hrf").glob("ast-nodes-*.code")
    assert run() == first
    cached.write_bytes(b"damaged")
    assert run() == first and cached.read_bytes() != b"damaged"
    assert run(HRF_CACHE="off") == first


def _eager(test, model):
    """`check` with its witness executions built at once (the reference)."""
    from hrf.api import check_compiled, prepare

    comp, m = prepare(test, model, hrf.Limits())
    return check_compiled(comp, m, hrf.Limits(), eager=True)


def test_check_and_check_many_build_witnesses_on_first_use():
    # check and check_many check without witnesses and build them when
    # first read (a flag's events, witness(), to_dot, to_json); the
    # reference builds them at once: every field must be the same.
    tests = [str(f) for f in sorted((CORPUS / "hrf").glob("*.litmus"))]
    tests += hrf.generate(count=40, seed=5, max_edges=4, max_threads=3)
    models = ["hrf-direct", "hrf-indirect", "sc"]
    for how in ("threads", "processes", "check"):
        if how == "check":
            lazy = [_checked_or_error(t, m) for t in tests for m in models]
        else:
            lazy = list(hrf.check_many(tests, models, workers=2, processes=how == "processes"))
        k = 0
        for t in tests:
            for m in models:
                r = lazy[k]
                k += 1
                if r.error is not None:
                    continue
                ref = _eager(t, m)
                assert ref._lazy is None
                assert r._lazy is not None and all("events" not in f for f in r.flags)
                assert [f["kind"] for f in r.flags] == [f["kind"] for f in ref.flags]  # no witness needed
                assert r._lazy is not None
                if ref.flags:
                    assert r.flags[0]["events"] == ref.flags[0]["events"]  # built here
                    assert r._lazy is None
                ja, jb = r.to_json(), ref.to_json()
                ja.pop("time"), jb.pop("time")
                assert ja == jb
                assert r.states == ref.states and r.witness() == ref.witness()
                if ref.flags or ref.states:
                    assert r.to_dot() == ref.to_dot()
        assert k == len(lazy) and any(r.flags for r in lazy)


def _checked_or_error(test, model):
    try:
        return hrf.check(test, model)
    except hrf.HrfError as e:
        return hrf.Result.failed(str(test), model, e)


def test_checks_in_a_forked_child_of_a_process_that_checked():
    # The core's thread pools are per process: a child forked after a check
    # (a user's multiprocessing pool on Linux) must not wait for pool
    # threads that exist only in its parent. One worker or all cores, one
    # check or many: the child answers as the parent does.
    import multiprocessing as mp

    test = str(CORPUS / "hrf" / "hrf14-fig6.litmus")
    here = hrf.check(test, "hrf-direct").observation
    list(hrf.check_many([test] * 3, "sc", workers=2, processes=False))
    ctx = mp.get_context("fork")
    with ctx.Pool(2) as pool:
        got = pool.map(_observations_in_child, [test] * 2, chunksize=1)
    assert got == [(here, here)] * 2


def _observations_in_child(test):
    one = hrf.check(test, "hrf-direct").observation
    many = [r.observation for r in hrf.check_many([test], "hrf-direct", workers=1)]
    return (one, many[0])


def test_a_model_without_a_check_is_a_new_model():
    # Model.without: the ablation of an axiom. SB's weak outcome is what
    # SC's acyclicity forbids; without that check it is allowed, and the
    # model it came from (its IR computed first) is unchanged.
    from hrf.models import get

    sc = get("sc")
    before = sc.ir_json()
    weaker = sc.without("sc")
    assert [c.name for c in weaker.checks] == ["atomicity"] and weaker.name == "sc without sc"
    assert hrf.check(SB_TEXT, weaker).condition_holds is True
    assert hrf.check(SB_TEXT, sc).condition_holds is False
    assert sc.ir_json() == before and weaker.ir_json() != before
    with pytest.raises(ValueError, match="no check nope"):
        sc.without("nope")
