"""herd7's C syntax beyond the peers' reference tests: each construct
of herdtools7's own C tests (herd/tests/instructions/C, catalogue/) either
parses and runs, or is refused with an UnsupportedFeature naming it.
`benchmarks/herd_c_coverage.py DIR` prints the coverage over a copy of
those tests (they are herd's, not shipped here)."""

import pytest

import hrf

BASE = """C t
{ [x]=0; [y]=0; }
P0 (atomic_int* x, atomic_int* y) {
  atomic_store_explicit(x, 1, memory_order_relaxed);
  int r0 = atomic_load_explicit(y, memory_order_relaxed);
}
P1 (atomic_int* x, atomic_int* y) {
  atomic_store_explicit(y, 1, memory_order_relaxed);
  int r1 = atomic_load_explicit(x, memory_order_relaxed);
}
COND
"""


@pytest.mark.parametrize(
    "cond, holds",
    [
        # store buffering with relaxed atomics under c11: every combination of
        # r0, r1 is reachable, x = y = 1 at the end
        ("forall x=1", True),  # herd's C03: no parentheses
        ("forall (x=1 /\\ y=1)", True),
        ("exists 0:r0 != 0", True),  # C13: != in a condition
        ("exists 0:r0=0 /\\ 1:r1=0", True),  # C15, C16: unparenthesised conjunction
        ("~exists 0:r0=0 /\\ 1:r1=0", False),
        ("exists (0:r0 == 1)", True),
        ("exists ()", True),  # the empty proposition is true
    ],
)
def test_conditions_as_herd_writes_them(cond, holds):
    assert hrf.check(BASE.replace("COND", cond), "c11").condition_holds is holds


@pytest.mark.parametrize(
    "init",
    [
        "{ __int128_t x=0; __uint128_t y; }",  # C05, C06: 128-bit types
        "{ __int128 x; __int128 y; }",  # C08
        "{ __int128 x; _Atomic __int128 y = 0; }",  # C11
        "{ int x = 0; int y = 0 }",  # C12: no final semicolon
        "{ [x]=0; (* herd's comments in the init block *) [y]=0; }",
    ],
)
def test_init_blocks_as_herd_writes_them(init):
    t = hrf.parse(BASE.replace("{ [x]=0; [y]=0; }", init).replace("COND", "exists (0:r0=0)"))
    assert {i.loc: i.value for i in t.init} == {"x": 0, "y": 0}


def test_128_bit_registers():
    # C04: 128-bit registers hold what was read (values here fit 64 bits)
    t = """C C04
{ }
P0 (__int128_t *y, __uint128_t *a) {
  __int128_t r1 = *y;
  __uint128_t r3 = *a;
}
forall (0:r1 = 0 /\\ 0:r3 = 0)
"""
    assert hrf.check(t, "c11").condition_holds is True


def test_comments_after_the_threads():
    # herd's Linux tests end lines with (* ... *) after the condition
    t = BASE.replace("COND", "locations [0:r0; 1:r1] (* debug aid *)\nexists (0:r0=0)  (* \\lnlbl[exists] *)")
    assert hrf.check(t, "c11").condition_holds is True


@pytest.mark.parametrize(
    "text, what",
    [
        (BASE.replace("atomic_store_explicit(x, 1, memory_order_relaxed);", "WRITE_ONCE(*x, 1);"), "WRITE_ONCE"),
        (BASE.replace("{ [x]=0; [y]=0; }", "{ atomic_t x = ATOMIC_INIT(0); [y]=0; }"), "atomic_t"),
        (BASE.replace("COND", "regions: x:PROP\nexists (0:r0=0)"), "regions"),
    ],
)
def test_constructs_without_meaning_in_hrf_are_refused_by_name(text, what):
    with pytest.raises(hrf.UnsupportedFeature, match=what) as e:
        hrf.check(text, "c11")
    assert e.value.line is not None


def test_a_misspelt_function_is_still_a_syntax_error():
    with pytest.raises(hrf.LitmusSyntaxError, match="unknown function 'atomic_stroe_explicit'"):
        hrf.parse(BASE.replace("atomic_store_explicit(x", "atomic_stroe_explicit(x").replace("COND", "exists (x=1)"))
