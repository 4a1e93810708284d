"""Hostile and careless input: hrf never answers a different question than
the one asked, never takes the interpreter down, and holds its limits.

Each case here was once accepted and reinterpreted, or crashed; the
expected behaviour is a LitmusSyntaxError naming file, line and column, an
InvalidArgument, or a result marked incomplete by the limit that cut it.
"""
import math

import pytest

import hrf
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


@pytest.mark.parametrize("tree, column, what", [
    ("(device (work_group (work_group P0) P1))", 31, "a work_group cannot be inside a work_group"),
    ("(work_group (device P0 P1))", 23, "a device cannot be inside a work_group"),
    ("(device (device (work_group P0 P1)))", 19, "a device cannot be inside a device"),
    ("(device (work_group (sub_group (work_group P0)) P1))", 42, "a work_group cannot be inside a sub_group"),
])
def test_malformed_scope_trees_are_refused(tree, column, what):
    refused(TREE.replace("TREE", tree), 5, column, what)


@pytest.mark.parametrize("tree", ["(device (work_group P0 P1))", "((device (work_group P0 P1)))",
                                  "(device (kernel (cta (warp P0) (warp P1))))"])
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


def test_a_file_cut_before_its_condition_is_refused():
    # before: checked as `forall (true)` and reported Ok, threads missing
    cut = "\n".join(MP.splitlines()[:6]) + "\n"
    refused(cut, 6, 1, "no final condition")


def test_a_locations_clause_without_condition_is_herds_listing():
    t = hrf.parse(MP.replace("exists (1:r0=1 /\\ 1:r1=0)", "locations [x; y;]"))
    assert t.condition is None and t.locations


def test_numbers_with_leading_zeros_are_decimal():
    # `dev 04` raised a bare ValueError inside lark before
    t = hrf.parse(MP.replace("P0@wg 0, dev 0", "P0@wg 00, dev 04").replace("P1@wg 0, dev 0", "P1@wg 0, dev 0"))
    assert t.threads[0].dev == 4


# ---------------------------------------------------------------- limits
def many_writes(threads, stores, loads):
    """`threads` threads each storing `stores` distinct values to x and
    loading it `loads` times: the candidate count explodes."""
    body = []
    for i in range(threads):
        ops = [f"  atomic_store_explicit(x, {i * 10 + k + 1}, memory_order_relaxed);" for k in range(stores)]
        ops += [f"  int r{k} = atomic_load_explicit(x, memory_order_relaxed);" for k in range(loads)]
        body.append(f"P{i} (atomic_int* x) {{\n" + "\n".join(ops) + "\n}")
    return "C boom\n{ [x]=0; }\n" + "\n".join(body) + "\nexists (x=1)\n"


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
    r = hrf.check(many_writes(2, 2, 2), "sc", max_memory=1)
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


@pytest.mark.parametrize("limit, value", [
    ("max_seconds", -1), ("max_seconds", math.nan), ("max_seconds", math.inf), ("max_candidates", -1),
    ("max_candidates", 0), ("unroll", -3), ("max_paths", 1.5), ("max_memory", 0), ("keep_all", "yes"),
])
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
