"""Hostile and careless input: hrf never answers a different question than
the one asked, never takes the interpreter down, and holds its limits.

Each case here was once accepted and reinterpreted, or crashed; the
expected behaviour is a LitmusSyntaxError naming file, line and column, an
InvalidArgument, or a result marked incomplete by the limit that cut it.
"""

import json
import math

import pytest

import hrf
from conftest import many_writes
from hrf.cli import main
from hrf.errors import InvalidArgument

# Message passing at work-group scope, both threads in work-group 0: the
# release/acquire pair synchronises, so 1:r1=0 after 1:r0=1 is forbidden.
MP = """OpenCL mp
{ [x]=0; [y]=0; }
P0@wg 0, dev 0 (global int* x, global atomic_int* y) {
  *x = 1;
  atomic_store_explicit(y, 1, memory_order_release, memory_scope_work_group);
}
P1@wg 0, dev 0 (global int* x, global atomic_int* y) {
  int r0 = atomic_load_explicit(y, memory_order_acquire, memory_scope_work_group);
  int r1 = *x;
}
exists (1:r0=1 /\\ 1:r1=0)
"""


def refused(text, line, column, match):
    with pytest.raises(hrf.LitmusSyntaxError, match=match) as e:
        hrf.parse(text)
    assert (e.value.line, e.value.column) == (line, column), str(e.value)
    return e.value


def test_the_base_test_is_accepted():
    r = hrf.check(MP, "opencl")
    assert r.condition_holds is False


def test_a_thread_placed_twice_is_refused():
    # `wg 0, wg 1`: before, the last won and the test became another test
    refused(MP.replace("P1@wg 0, dev 0", "P1@wg 0, wg 1, dev 0"), 7, 10, "placed twice")


TREE = """OpenCL st
{ [x]=0; }
P0 (global atomic_int* x) { atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_work_group); }
P1 (global atomic_int* x) { int r0 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_work_group); }
scopeTree TREE
exists (1:r0=1)
"""


@pytest.mark.parametrize(
    "tree, column, what",
    [
        ("(device (work_group (work_group P0) P1))", 31, "a work_group cannot be inside a work_group"),
        ("(work_group (device P0 P1))", 23, "a device cannot be inside a work_group"),
        ("(device (device (work_group P0 P1)))", 19, "a device cannot be inside a device"),
        ("(device (work_group (sub_group (work_group P0)) P1))", 42, "a work_group cannot be inside a sub_group"),
    ],
)
def test_malformed_scope_trees_are_refused(tree, column, what):
    refused(TREE.replace("TREE", tree), 5, column, what)


@pytest.mark.parametrize(
    "tree",
    ["(device (work_group P0 P1))", "((device (work_group P0 P1)))", "(device (kernel (cta (warp P0) (warp P1))))"],
)
def test_well_formed_scope_trees_are_accepted(tree):
    t = hrf.parse(TREE.replace("TREE", tree))
    assert t.threads[0].wg == t.threads[1].wg


def test_scope_tree_thread_errors_name_the_line():
    refused(TREE.replace("TREE", "(device (work_group P0 P0))"), 5, 1, "P0 appears twice")
    refused(TREE.replace("TREE", "(device (work_group P0))"), 5, 1, "P1 is missing")
    refused(TREE.replace("TREE", "(device (work_group P0 P1 P2))"), 5, 1, "P2, which is not a thread")


def test_placing_some_threads_but_not_others_is_refused():
    refused(MP.replace("P1@wg 0, dev 0 ", "P1 "), 7, 1, "P1 has no placement")


def test_a_misspelt_location_is_refused():
    # before: a fresh location z, and message passing silently said No
    refused(MP.replace("*x = 1;", "*z = 1;"), 4, 4, "'z', which is neither a parameter")


def test_an_undeclared_register_is_refused():
    refused(MP.replace("int r1 = *x;", "int r1 = r7;"), 9, 12, "register 'r7'")


def test_a_condition_about_nothing_is_refused():
    refused(MP.replace("1:r1=0", "1:r9=0"), 11, 19, "'r9' appears nowhere")
    refused(MP.replace("1:r1=0", "q=0"), 11, 19, "location 'q'")
    refused(MP.replace("1:r1=0", "3:r1=0"), 11, 19, "no thread P3")


def test_a_register_the_thread_never_assigns_reads_its_initial_value():
    # herd's reading, which peers' tests use (Dat3M's barrier_example names
    # 0:x for a location x): accepted, the register holds 0.
    r = hrf.check(MP.replace("1:r1=0", "0:x=0"), "opencl")
    assert all(o["0:x"] == 0 for o in r.outcomes)


def test_a_file_without_condition_is_read_as_herd_reads_it_and_says_so():
    # herd's default is forall (true) (its catalogue relies on it); a file
    # cut short after a thread looks the same, so every result states it
    # (before: reported Ok without a word)
    cut = "\n".join(MP.splitlines()[:6]) + "\n"
    r = hrf.check(cut, "opencl")
    assert r.condition == "forall (true)" and r.condition_holds is True
    assert any("no final condition" in n and "cut short" in n for n in r.notes)
    assert "Note the test has no final condition" in r.to_herd() and r.to_json()["notes"] == r.notes
    assert hrf.check(MP, "opencl").notes == []


def test_a_locations_clause_without_condition_is_herds_listing():
    t = hrf.parse(MP.replace("exists (1:r0=1 /\\ 1:r1=0)", "locations [x; y;]"))
    assert t.condition is None and t.locations


def test_numbers_with_leading_zeros_are_decimal():
    # `dev 04` raised a bare ValueError inside lark before
    t = hrf.parse(MP.replace("P0@wg 0, dev 0", "P0@wg 00, dev 04").replace("P1@wg 0, dev 0", "P1@wg 0, dev 0"))
    assert t.threads[0].dev == 4


# ---------------------------------------------------------------- limits
def test_an_explosive_test_stops_at_the_time_limit_without_a_verdict():
    # 3 x (4 stores + 4 loads) once aborted the interpreter (an allocation of
    # 52 TB for the path combinations) whatever the limits
    r = hrf.check(many_writes(3, 4, 4), "c11", max_seconds=1)
    assert not r.complete and r.limit["which"] == "time"
    assert r.condition_holds is None and r.racy is None


def test_the_candidate_limit_counts_pruned_work():
    # 3 x (3 stores + 3 loads): almost every candidate is pruned, so a limit
    # on complete candidates alone never came; now the pruned ones count
    r = hrf.check(many_writes(3, 3, 3), "c11", max_candidates=1000)
    assert not r.complete and r.limit["which"] == "candidates"
    assert r.condition_holds is None


def test_the_memory_budget_holds():
    # a budget below what the process already uses stops the run at once
    # (the memory is read every 64th time the budget is asked: a family of
    # some thousands of candidates asks often enough)
    r = hrf.check(many_writes(3, 3, 3), "sc", max_memory=1)
    assert not r.complete and r.limit["which"] == "memory" and r.condition_holds is None


def test_a_huge_unroll_bound_is_a_size_limit():
    loop = """C loop
{ [x]=0; }
P0 (atomic_int* x) {
  int r0 = 0;
  while (r0 == 0) { r0 = atomic_load_explicit(x, memory_order_relaxed); }
}
P1 (atomic_int* x) { atomic_store_explicit(x, 1, memory_order_relaxed); }
exists (0:r0=1)
"""
    with pytest.raises(hrf.LimitExceeded, match="instructions") as e:
        hrf.check(loop, "c11", unroll=1_000_000)
    assert e.value.which == "size"


@pytest.mark.parametrize(
    "limit, value",
    [
        ("max_seconds", -1),
        ("max_seconds", math.nan),
        ("max_seconds", math.inf),
        ("max_candidates", -1),
        ("max_candidates", 0),
        ("unroll", -3),
        ("max_paths", 1.5),
        ("max_memory", 0),
        ("keep_all", "yes"),
    ],
)
def test_bad_limit_values_are_refused(limit, value):
    with pytest.raises(InvalidArgument, match=limit):
        hrf.Limits(**{limit: value})
    with pytest.raises(InvalidArgument, match=limit):
        hrf.check(MP, "opencl", **{limit: value})


def test_an_unknown_limit_is_refused():
    with pytest.raises(InvalidArgument, match="max_candidate"):
        hrf.check(MP, "opencl", max_candidate=1)


def test_api_arguments_are_checked():
    with pytest.raises(InvalidArgument, match="on_limit"):
        hrf.check(MP, "opencl", on_limit="bogus")
    # a string is one test, not a list of one-character tests
    with pytest.raises(InvalidArgument, match="list"):
        list(hrf.check_many("t.litmus", ["sc"]))
    assert isinstance(InvalidArgument("x"), ValueError) and isinstance(InvalidArgument("x"), hrf.HrfError)


# ---------------------------------------------------------------- bulk survives its tests
def _corpus_tests(n):
    from conftest import CORPUS

    return sorted(str(p) for p in (CORPUS / "hrf").glob("*.litmus"))[:n]


def _killer_test(monkeypatch, tmp_path):
    """A test file whose compilation kills the process compiling it (as an
    abort of the core or the kernel's OOM killer would)."""
    import os
    import signal

    import hrf.many

    killer = tmp_path / "killer.litmus"
    killer.write_text(MP)
    real = hrf.many.compile_test

    def compile_or_die(t, *a, **k):
        if t.path == str(killer):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(t, *a, **k)

    monkeypatch.setattr(hrf.many, "compile_test", compile_or_die)  # inherited by the forked workers
    return killer


def test_a_worker_that_dies_is_one_error_row(monkeypatch, tmp_path):
    # A test whose check kills its worker process (as an abort of the core
    # or the kernel's OOM killer would): before, the pool waited forever.
    killer = _killer_test(monkeypatch, tmp_path)
    tests = _corpus_tests(3) + [str(killer)] + _corpus_tests(6)[3:]
    rows = list(hrf.check_many(tests, ["sc", "opencl"], workers=2, processes=True))
    assert [r.path for r in rows] == [t for t in tests for _ in range(2)]
    dead = [r for r in rows if r.path == str(killer)]
    assert all(r.error is not None and "died" in str(r.error) and "signal 9" in str(r.error) for r in dead)
    others = [r for r in rows if r.path != str(killer)]
    assert all(r.error is None for r in others), [str(r.error) for r in others if r.error]


def test_a_worker_that_dies_mid_message_blames_only_its_test(monkeypatch, tmp_path):
    # Workers send the results of several tests in one message; a worker that
    # dies loses the tests of the message it was filling. Those are checked
    # again, one test a message, so that the death is put on its test alone.
    killer = _killer_test(monkeypatch, tmp_path)
    corpus = _corpus_tests(6)
    tests = [corpus[i % len(corpus)] for i in range(150)]
    tests[77] = str(killer)  # inside a span (10 tests a span here), after the first message's start
    rows = list(hrf.check_many(tests, ["sc"], workers=2, processes=True))
    assert [r.path for r in rows] == tests
    assert [i for i, r in enumerate(rows) if r.error is not None] == [77]
    assert "died" in str(rows[77].error) and "signal 9" in str(rows[77].error)
    # the same rows as a run without the killer, elsewhere
    alone = {t: hrf.check(t, "sc") for t in corpus}
    assert all(r.observation == alone[r.path].observation for i, r in enumerate(rows) if i != 77)


def test_an_exception_outside_hrf_is_one_error_row(monkeypatch, tmp_path):
    # lark's VisitError did not pickle and hung the run; any exception hrf
    # did not mean to raise is now an error row naming the test
    import hrf.many

    class Unpicklable(Exception):  # a local class: pickle cannot find it
        def __init__(self):
            super().__init__("boom")
            self.f = lambda: 0

    odd = tmp_path / "odd.litmus"
    odd.write_text(MP)
    real = hrf.many.parse

    def parse_or_raise(t):
        if str(t) == str(odd):
            raise Unpicklable()
        return real(t)

    monkeypatch.setattr(hrf.many, "parse", parse_or_raise)
    tests = _corpus_tests(2) + [str(odd)]
    for processes in (True, False):
        rows = list(hrf.check_many(tests, ["sc"], workers=2, processes=processes))
        assert [r.path for r in rows] == tests
        assert "internal error" in str(rows[-1].error) and "Unpicklable" in str(rows[-1].error)
        assert all(r.error is None for r in rows[:-1])


# ---------------------------------------------------------------- reading files
def test_bytes_that_are_not_utf8_are_a_located_error(tmp_path):
    p = tmp_path / "latin1.litmus"
    p.write_bytes(MP.replace("*x = 1;", "*x = 1; // caf\xe9").encode("latin-1"))
    with pytest.raises(hrf.LitmusSyntaxError, match="0xe9 is not UTF-8") as e:
        hrf.parse(p)
    assert (e.value.line, e.value.column) == (4, 17)


def test_a_byte_order_mark_is_skipped(tmp_path):
    p = tmp_path / "bom.litmus"
    p.write_bytes(b"\xef\xbb\xbf" + MP.encode())
    assert hrf.parse(p) == hrf.parse(MP)
    assert hrf.parse("\ufeff" + MP) == hrf.parse(MP)


def test_a_missing_file_is_named_not_parsed_as_text():
    with pytest.raises(hrf.LitmusSyntaxError, match="nothere: cannot read file"):
        hrf.parse("nothere")
    with pytest.raises(InvalidArgument):
        hrf.parse(42)


def test_a_ptx_immediate_beyond_64_bits_is_a_located_error():
    # was an internal exception of the reader, not an hrf error
    text = (
        "GPU_PTX t\n{\n0:.reg .s32 r0; 0:.reg .b64 r1 = x;\n}\n P0 ;\n mov.s32 r0,99999999999999999999 ;\n"
        " st.cg.s32 [r1],r0 ;\n\nx: global\n\nexists (x=1)\n"
    )
    import lalr
    from hrf.litmus.ptx import parse_ptx

    for read in (parse_ptx, lalr.parse_ptx):
        with pytest.raises(hrf.LitmusSyntaxError, match="does not fit in 64 bits") as e:
            read(text, "t.litmus")
        assert e.value.line == 6


def test_a_truncated_ptx_file_is_a_located_error():
    text = "GPU_PTX t\n{\n0:.reg .s32 r0;\n"
    with pytest.raises(hrf.LitmusSyntaxError, match="never closed") as e:
        hrf.parse(text)
    assert e.value.line == 2


@pytest.mark.parametrize(
    "what, text",
    [
        ("500 nested ifs", MP.replace("int r1 = *x;", "int r1 = 0;" + "if (r0 == 1) {" * 500 + "r1 = *x;" + "}" * 500)),
        ("a 20,000-term sum", MP.replace("int r1 = *x;", "int r1 = " + "+".join(["1"] * 20000) + ";")),
        (
            "a deep scope tree",
            MP.replace("P0@wg 0, dev 0", "P0")
            .replace("P1@wg 0, dev 0", "P1")
            .replace("exists", "scopeTree " + "(" * 2000 + "device P0 P1" + ")" * 2000 + "\nexists"),
        ),
    ],
)
def test_deep_nesting_is_a_located_error(what, text):
    # RecursionError tracebacks before
    with pytest.raises(hrf.LitmusSyntaxError, match="too deeply") as e:
        hrf.check(text, "opencl")
    assert e.value.line is not None and e.value.column is not None


def test_a_long_flat_condition_is_read():
    # a conjunction is a flat list: 5,000 terms read (hrf's reader keeps no
    # stack per term) and mean what one term means
    long = MP.replace("exists (1:r0=1 /\\ 1:r1=0)", "exists (" + " /\\ ".join(["1:r0=1"] * 5000) + ")")
    short = MP.replace("exists (1:r0=1 /\\ 1:r1=0)", "exists (1:r0=1)")
    assert hrf.check(long, "opencl").condition_holds == hrf.check(short, "opencl").condition_holds


# ---------------------------------------------------------------- export, generate, options
def test_export_keeps_no_more_executions_than_it_writes(tmp_path):
    # the core keeps at most max_kept executions and counts the rest
    t = many_writes(2, 2, 1)
    r = hrf.check(t, "sc", keep_all=True, max_kept=3)
    assert len(r.executions) == 3 and r.consistent > 3
    res = hrf.export_isabelle([t], "sc", tmp_path / "out", max_executions=3)
    assert res.tests[0].exported == 3 and res.tests[0].candidates > 3


def test_export_refuses_a_folder_it_did_not_write(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(hrf.HrfError, match="not empty"):
        hrf.export_isabelle([MP], "sc", tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine" and not (tmp_path / "ROOT").exists()


def test_export_again_into_its_folder_drops_the_old_theories(tmp_path):
    hrf.export_isabelle([MP], "sc", tmp_path)
    old = tmp_path / "T_old.thy"
    old.write_text("theory T_old imports Main begin end")
    hrf.export_isabelle([MP], "sc", tmp_path)
    assert not old.exists() and "T_old" not in (tmp_path / "ROOT").read_text()


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(orders="na,bogus"), "orders"),
        (dict(scopes=["bogus"]), "scopes"),
        (dict(regions="nowhere"), "regions"),
        (dict(max_edges=100), "max_edges"),
        (dict(count=-1), "count"),
        (dict(orders=5), "orders"),
    ],
)
def test_generate_options_are_checked(kw, match):
    with pytest.raises(InvalidArgument, match=match):
        hrf.generate(**kw)


def test_generate_takes_the_command_lines_comma_lists():
    assert hrf.generate(count=7, orders="na,sc") == hrf.generate(count=7, orders=("na", "sc"))


def test_too_many_workers_are_refused():
    with pytest.raises(InvalidArgument, match="workers"):
        list(hrf.check_many([MP], ["sc"], workers=100000))


def hrf_cli(*args, stdin=None):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "hrf.cli", *map(str, args)], capture_output=True, text=True, input=stdin, timeout=120
    )


@pytest.mark.parametrize(
    "args",
    [
        ["check", "T", "-m", "sc", "--unroll", "-3"],
        ["check", "T", "-m", "sc", "--max-seconds", "nan"],
        ["check", "T", "-m", "sc", "--workers", "-1"],
        ["check", "T", "-m", "sc", "--workers", "100000"],
        ["check", "T", "-m", "sc", "--max-memory", "lots"],
        ["check", "T", "-m", "sc", "--graph", "out.txt"],
        ["generate", "--scopes", "bogus"],
        ["generate", "--regions", "nowhere"],
        ["generate", "--max-edges", "100"],
        ["export", "isabelle", "T", "--max-executions", "-1", "--out", "X"],
    ],
)
def test_bad_options_are_usage_errors(tmp_path, args):
    t = tmp_path / "t.litmus"
    t.write_text(MP)
    r = hrf_cli(*[str(t) if a == "T" else str(tmp_path / "x") if a == "X" else a for a in args])
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and r.stderr.strip()


def test_generate_with_a_bad_option_writes_nothing(tmp_path):
    r = hrf_cli("generate", "--orders", "bogus", "--out", tmp_path / "gen")
    assert r.returncode == 2 and not (tmp_path / "gen").exists()


def test_json_reports_a_failing_single_test_as_json(tmp_path):
    import json

    r = hrf_cli("check", tmp_path / "missing.litmus", "-m", "sc", "--json")
    assert r.returncode == 1
    row = json.loads(r.stdout)
    assert "cannot read file" in row["error"] and row["condition_holds"] is None


def test_standard_input_is_a_test():
    r = hrf_cli("check", "-", "-m", "opencl", stdin=MP)
    assert r.returncode == 0 and "\nNo\n" in r.stdout


def test_unwritable_outputs_are_hrf_errors(tmp_path):
    t = tmp_path / "t.litmus"
    t.write_text(MP)
    gone = tmp_path / "missing-folder"
    for args in (
        ["bulk", t, "-m", "sc", "--out", gone / "rows.jsonl", "--no-progress"],
        ["check", t, "-m", "sc", "--graph", gone / "g.dot"],
    ):
        r = hrf_cli(*args)
        assert r.returncode == 1 and "cannot write" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_sys_exit_in_a_model_file_is_a_definition_error(tmp_path):
    m = tmp_path / "quits.py"
    m.write_text("import sys\nsys.exit(3)\n")
    with pytest.raises(hrf.DefinitionError, match=r"sys.exit\(3\)") as e:
        hrf.check(MP, str(m))
    assert e.value.line == 2


# ---------------------------------------------------------------- model files
@pytest.mark.parametrize(
    "line, match",
    [
        ('MODEL.acyclic(po | rf | co | fr | I(tag("seqcst")), "sc")', "unknown tag 'seqcst'"),
        ('MODEL.acyclic(po | rf | co | fr | same_event_attr("sinstance"), "sc")', "unknown event attribute"),
        ('MODEL.acyclic(po | rf | co | fr | same_thread_attr("workgroup"), "sc")', "unknown thread attribute"),
        ('MODEL.acyclic(po | rf | co | base("mo"), "sc")', "unknown base relation 'mo'"),
    ],
)
def test_a_misspelt_name_in_a_model_file_is_refused_at_its_line(tmp_path, line, match):
    # before: a misspelt tag was an empty set without a word, and an unknown
    # base relation was reported against the litmus file
    m = tmp_path / "typo.py"
    m.write_text(
        "from hrf.dsl import Model, tag, base, po, rf, co, fr, I, same_event_attr, same_thread_attr\n"
        "MODEL = Model('mysc')\n" + line + "\n"
    )
    with pytest.raises(hrf.DefinitionError, match=match) as e:
        hrf.check(MP, str(m))
    assert e.value.file == str(m) and e.value.line == 3


def test_an_unknown_allocation_class_is_refused():
    refused(MP.replace("[y]=0;", "[y]=0 @coarsegrained;"), 2, 17, "unknown allocation class @coarsegrained")


def test_a_value_beyond_64_bits_is_a_located_error():
    # was a CoreError from the core's JSON reader (a float where an integer was due)
    refused(MP.replace("*x = 1;", "*x = 99999999999999999999;"), 4, 8, "does not fit in 64 bits")


def test_expressions_and_conditions_nested_past_the_cores_reader_are_refused():
    # 100-150 levels: below Python's recursion limit but past the bounded
    # recursion with which the core reads its input (was a CoreError)
    e = "r0"
    for _ in range(150):
        e = f"(1+{e})"
    with pytest.raises(hrf.LitmusSyntaxError, match="expression nested more than 100") as err:
        hrf.check(MP.replace("int r1 = *x;", f"int r1 = {e};"), "sc")
    assert err.value.line == 9
    with pytest.raises(hrf.LitmusSyntaxError, match="condition nests more than 100"):
        hrf.check(MP.replace("exists (1:r0=1 /\\ 1:r1=0)", "exists (" + "~" * 150 + "1:r0=1)"), "sc")


def test_decide_stops_at_the_first_execution_that_settles_the_condition(tmp_path, capsys):
    # MP under sc: four outcomes by hand, (r0, r1) in {(0,0), (0,1), (1,1)}
    # allowed and (1,0) forbidden.
    allowed = MP.replace("exists (1:r0=1 /\\ 1:r1=0)", "exists (1:r0=1 /\\ 1:r1=1)")
    whole = hrf.check(allowed, "sc")
    r = hrf.check(allowed, "sc", decide=True)
    # exists, and an execution reaches it: settled at the first one found,
    # said as a limit (the outcome list is not whole), the verdict established
    assert whole.complete and whole.condition_holds is True and len(whole.outcomes) == 3
    assert not r.complete and r.limit["which"] == "decided" and r.condition_holds is True
    assert r.observation[1] >= 1 and r.consistent <= whole.consistent
    # no execution settles it (the forbidden outcome): every one is enumerated
    # and the answer is whole
    never = hrf.check(MP, "sc", decide=True)
    assert never.complete and never.condition_holds is False and never.limit is None
    # forall: settled at the first execution where it fails
    every = hrf.check(MP.replace("exists (1:r0=1 /\\ 1:r1=0)", "forall (1:r1=1)"), "sc", decide=True)
    assert not every.complete and every.limit["which"] == "decided" and every.condition_holds is False
    # the command line's --decide
    f = tmp_path / "mp.litmus"
    f.write_text(allowed)
    assert main(["check", str(f), "-m", "sc", "--decide", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["condition_holds"] is True and out["complete"] is False and out["limit"]["which"] == "decided"
