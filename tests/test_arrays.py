"""Arrays and computed addresses in C-like tests: `atomic_int y[2] = {0, 0};`,
`atomic_load_explicit(y+r0, ...)`, `*(x + (r0 & 2))`. An array is its
elements `y[0]`, `y[1]`, ... (its name stands for `y[0]`); an access at a
computed address reaches the element its offset names on each path, and
the reads the offset depends on are `addr` dependencies of it."""

from pathlib import Path

import pytest

import hrf
import lalr
from hrf.litmus import ast as A
from hrf.litmus.opencl import parse_opencl
from hrf.litmus.printer import to_litmus

# The shape of the IMM paper's example E3.5 (Dat3M's C11 imm-E3.5), in the corpus.
IMM_E35 = (Path(hrf.__file__).parent / "corpus" / "c11" / "imm-e35-shape.litmus").read_text()


def test_both_readers_read_arrays_and_computed_addresses_alike():
    fast = parse_opencl(IMM_E35)
    reference = lalr.parse_opencl(IMM_E35)
    assert A.structure(fast) == A.structure(reference)
    assert fast.init == (A.Init("y", 0, size=2, elements=(0, 0)),)
    load = fast.threads[0].body[1].expr
    assert (load.loc, load.offset) == ("y", A.Reg("r0"))
    # printed and read back: the same test
    assert hrf.parse(to_litmus(fast)) == fast


def test_imm_e35_is_load_buffering_through_an_address_dependency():
    # Dartagnan: C11 reachable, RC11 not (RC11's acyclic(po | rf) is
    # checked in the conformance suite with herd7's rc11.cat). By hand:
    # P0 reads x=1 from P1's release store, P1 reads y[0]=1 from P0's
    # relaxed store: a po|rf cycle, which [BDW16]'s C11 does not forbid
    # (a relaxed read does not synchronise with the release); r1 reads
    # y[1], which nobody writes: 0.
    r = hrf.check(IMM_E35, "c11", witnesses=True)
    assert r.condition_holds is True
    assert {"0:r0": 1, "1:r0": 1} in [{k: o[k] for k in ("0:r0", "1:r0")} for o in r.outcomes]
    assert hrf.check(IMM_E35, "sc").condition_holds is False


def test_the_address_dependency_is_an_addr_edge():
    # a model that forbids exactly (addr | rf) cycles and nothing else:
    # with P1 storing to x + (r1 & 0) the cycle r0 -addr-> St ... closes
    text = """C lb-addr
{ }
P0 (atomic_int* x, atomic_int* y) {
  int r0 = atomic_load_explicit(x, memory_order_relaxed);
  atomic_store_explicit(y + (r0 & 0), 1, memory_order_relaxed);
}
P1 (atomic_int* x, atomic_int* y) {
  int r1 = atomic_load_explicit(y, memory_order_relaxed);
  atomic_store_explicit(x + (r1 - r1), 1, memory_order_relaxed);
}
exists (0:r0=1 /\\ 1:r1=1)
"""
    from hrf import dsl

    no_addr_cycle = dsl.Model("no-addr-cycle", thin_air=True)
    no_addr_cycle.acyclic(dsl.base("addr") | dsl.rf, "no_addr_cycle")
    no_data_cycle = dsl.Model("no-data-cycle", thin_air=True)
    no_data_cycle.acyclic(dsl.base("data") | dsl.rf, "no_data_cycle")
    assert hrf.check(text, no_addr_cycle).condition_holds is False
    assert hrf.check(text, no_data_cycle).condition_holds is True  # no data dependency here
    assert hrf.check(text, "c11").condition_holds is True


def test_array_elements_initial_values_and_conditions():
    text = """C elements
{ int a[3] = {1, 2}; }
P0 (atomic_int* a) {
  int r0 = atomic_load_explicit(a+1, memory_order_relaxed);
  atomic_store_explicit(a + 2, r0 + 5, memory_order_relaxed);
  int r1 = atomic_load_explicit(a, memory_order_relaxed);
}
forall (0:r0=2 /\\ 0:r1=1 /\\ a[2]=7 /\\ a[1]=2 /\\ a=1)
"""
    # one thread: a[1] holds 2, a[2] gets 2 + 5, a (a[0]) keeps its 1
    r = hrf.check(text, "c11")
    assert r.condition_holds is True
    assert r.outcomes == [{"0:r0": 2, "0:r1": 1, "a[0]": 1, "a[1]": 2, "a[2]": 7}]


def test_plain_loads_and_stores_through_computed_addresses():
    # herd's MP_relcon_addr with acquire in place of consume: the address
    # x + (r0 & 2) is x whatever r0 is (0 or 1); message passing with
    # release/acquire forbids reading x=0 after y=1 (derivation: Wx -po->
    # Wy(rel) -rf-> Ry(acq) -po-> Rx is hb, and Rx reading the initial
    # write is then fr against hb)
    text = """C MP_relacq_addr
{}
P0 (atomic_int* y, volatile int* x) {
  *x = 1;
  atomic_store_explicit(y,1,memory_order_release);
}
P1 (atomic_int* y, volatile int* x, int* z) {
  int r0 = atomic_load_explicit(y,memory_order_acquire);
  int r1 = -1 ;
  if (r0 == 1) {
    r1 = *(x+(r0 & 2)) ;
  }
  *(z + (r1 & 0)) = 3;
}
locations [z;]
~exists (1:r0=1 /\\ 1:r1=0)
"""
    r = hrf.check(text, "c11")
    assert r.condition_holds is True and not r.racy
    assert {o["z"] for o in r.outcomes} == {3}  # the store through z + (r1 & 0)
    relaxed = hrf.check(text.replace("memory_order_acquire", "memory_order_relaxed"), "c11")
    # without synchronisation x is read while P0 writes it: a data race
    assert relaxed.condition_holds is False and relaxed.racy


def test_an_access_out_of_bounds_in_a_consistent_execution_is_refused():
    # r0 = 2 only when P1 read z=1 from P0's store, which po-follows the
    # load of y+r0: load buffering. C11 allows it, so some consistent
    # execution reaches y[2], which does not exist: no verdict. SC forbids
    # the cycle: every consistent execution stays inside y.
    text = """C oob
{ int y[2] = {0, 0}; }
P0 (atomic_int* x, atomic_int* y, atomic_int* z) {
  int r0 = atomic_load_explicit(x, memory_order_relaxed);
  int r1 = atomic_load_explicit(y+r0, memory_order_relaxed);
  atomic_store_explicit(z, 1, memory_order_relaxed);
}
P1 (atomic_int* x, atomic_int* z) {
  int r2 = atomic_load_explicit(z, memory_order_relaxed);
  if (r2 == 1) atomic_store_explicit(x, 2, memory_order_relaxed);
}
exists (0:r0=2)
"""
    with pytest.raises(hrf.HrfError, match=r"thread P0 \(line 5\) reaches y \+ 2, outside y \(2 locations\)"):
        hrf.check(text, "c11")
    assert hrf.check(text, "sc").condition_holds is False


@pytest.mark.parametrize(
    "address, error, match",
    [
        ("r0 + 1", hrf.UnsupportedFeature, "relative to no location"),
        ("x + y", hrf.LitmusSyntaxError, "adds two locations"),
        ("r0 - x", hrf.LitmusSyntaxError, "subtracts location x"),
        ("x + (y & 1)", hrf.LitmusSyntaxError, "uses location y as a number"),
    ],
)
def test_addresses_that_name_no_single_location_are_refused(address, error, match):
    text = f"""C bad
{{}}
P0 (atomic_int* x, atomic_int* y) {{
  int r0 = 0;
  int r1 = atomic_load_explicit({address}, memory_order_relaxed);
}}
exists (0:r1=0)
"""
    with pytest.raises(error, match=match) as e:
        hrf.check(text, "c11")
    assert e.value.line == 5


@pytest.mark.parametrize(
    "init, match",
    [
        ("int y[0];", "at least one"),
        ("int y[2] = {1, 2, 3};", "2 elements but 3 initial values"),
        ("int y[100];", "more than hrf takes"),
    ],
)
def test_bad_arrays_are_refused_where_they_are_declared(init, match):
    text = f"C bad\n{{ {init} }}\nP0 (atomic_int* y) {{ int r0 = atomic_load_explicit(y, memory_order_relaxed); }}\nexists (0:r0=0)\n"
    for read in (hrf.parse, lalr.parse_opencl):
        with pytest.raises(hrf.LitmusSyntaxError, match=match) as e:
            read(text)
        assert e.value.line == 2


def test_an_array_parameter_is_a_pointer_to_its_first_element():
    text = IMM_E35.replace("P1 (atomic_int* x, atomic_int* y)", "P1 (atomic_int* x, atomic_int y[])")
    assert hrf.parse(text) == hrf.parse(IMM_E35)


# Message passing through a pointer (the shape of herd's MP_relcon_addr+REAL,
# acquire for consume): p points to y (-1) until P0 makes it point to x,
# written before. By hand: P1 reads p = y, then y = -1; or p = x, then (the
# acquire reading P0's release) x = 1: never x = 0.
MP_POINTER = """C MP_pointer
{ y = -1; p = y; }
P0 (_Atomic (int *) *p, int* x) {
  *x = 1;
  atomic_store_explicit(p, x, memory_order_release);
}
P1 (_Atomic (int *) *p) {
  int *r0 = atomic_load_explicit(p, memory_order_acquire);
  int r1 = *r0;
}
~exists (1:r0=x /\\ 1:r1=0)
"""


def test_locations_and_registers_hold_addresses_shown_by_name():
    r = hrf.check(MP_POINTER, "c11")
    assert r.condition_holds is True and not r.racy
    assert sorted(r.outcomes, key=str) == [{"1:r0": "x", "1:r1": 1}, {"1:r0": "y", "1:r1": -1}]
    assert "1:r0=x; 1:r1=1;" in r.to_herd()
    # relaxed: nothing orders P0's *x = 1 before P1's read of x through r0
    relaxed = hrf.check(MP_POINTER.replace("memory_order_acquire", "memory_order_relaxed"), "c11")
    assert relaxed.condition_holds is False and relaxed.racy
    # the pointer's value in the final state, as herd's `locations [p*;]` shows it
    shown = hrf.check(MP_POINTER.replace("~exists", "locations [p*;]\n~exists"), "c11")
    assert {o["p"] for o in shown.outcomes} == {"x"}


def test_dereferencing_what_is_no_address_is_refused():
    # p starts at 0, no location's address: P1 reads it in some execution
    text = MP_POINTER.replace("{ y = -1; p = y; }", "{ y = -1; p = 0; }")
    with pytest.raises(hrf.HrfError, match=r"thread P1 \(line 9\) dereferences a value that is no location's address"):
        hrf.check(text, "c11")
    # guarded, as herd's MP_relcon_addr_real does (if (r0 != 0)): decided
    guarded = text.replace("int r1 = *r0;", "int r1 = -1;\n  if (r0 != 0) { r1 = *r0; }")
    assert hrf.check(guarded, "c11").condition_holds is True


def test_a_number_where_addresses_are_kept_is_refused():
    text = MP_POINTER.replace("{ y = -1;", f"{{ y = {1 << 40};")
    with pytest.raises(hrf.UnsupportedFeature, match="a value hrf keeps for the address of y"):
        hrf.check(text, "c11")
