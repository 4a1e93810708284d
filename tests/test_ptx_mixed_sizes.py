"""PTX's mixed-size accesses: an array read and written with several sizes
(a 64-bit store, 32-bit loads of its halves), as the ISA's memory
consistency model says. Two accesses "overlap" when one's bytes include the
other's first byte, "completely" when their bytes are the same ([PTXISA]
"Overlap"); only completely overlapping operations are morally strong
([PTXISA] "Morally strong operations"); and "the axioms in the memory
consistency model do not apply if a PTX program contains one or more
mixed-size data-races" ([PTXISA] "Limitations on Mixed-size Data-races"),
which hrf flags (`mixed_size_race`). hrf reads such an array as elements of
its narrowest access's bytes, a wider access as one event of each element
it covers, read and ordered whole against an access of the same bytes
(docs/readings.md). Each verdict is derived next to its test from the ISA's
axioms; no file beside the repository is read."""

import itertools
from pathlib import Path

import pytest

import hrf
from hrf.errors import LitmusSyntaxError, UnsupportedFeature
from hrf.models import get as model
from test_ptx_registers import one_thread
from test_ptx_vectors import ptx

MODELS = ["ptx-6.0", "ptx-7.5", "ptx-8.0"]


PTX7 = Path(hrf.__file__).parent / "corpus" / "ptx7"

# The corpus's mixed-size tests: (verdict, flagged), derived in each one's
# description and here.
CORPUS = {
    # The 64-bit store is before the release, P1's 32-bit loads after the
    # acquire that reads it (gpu scope, one GPU: morally strong): each load
    # follows the store in causality order and reads its half (Causality);
    # the loads run only where the acquire read 1: no race. Forbidden.
    "MP+u64+halves": (False, False),
    # Unguarded, P1's loads also run where its acquire read 0, unordered with
    # the store they overlap partially: a mixed-size data-race, flagged. The
    # axioms still forbid the condition (the flag seen, a half not).
    "MP+u64+halves-race": (False, True),
    # Morally strong 64-bit stores: P2's 64-bit load reads one whole (whole-rf),
    # coherence orders them alike in both halves (Coherence2, whole-co). P2's
    # 32-bit load of x[2] overlaps neither: no race. Forbidden.
    "CoWW+u64-whole": (False, False),
    # fence.sc between each thread's 64-bit store and its 32-bit load of the
    # other's array: whichever fence the execution's Fence-SC order puts
    # first, the other thread's store and this thread's load are in no
    # causality order: a mixed-size data-race in every execution (flagged);
    # the axioms (Fence-SC) forbid both loads reading 0.
    "SB+u64+halves+fence.sc": (False, True),
}


@pytest.mark.parametrize("m", MODELS)
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_corpus_mixed_size_tests(name, m):
    r = hrf.check(PTX7 / f"{name}.litmus", m)
    assert r.error is None and r.complete
    assert (r.condition_holds, bool(r.flags)) == CORPUS[name], (name, m)
    assert [f["kind"] for f in r.flags] in ([], ["mixed_size_race"])


def check(text: str, m, tmp_path, **kw):
    p = tmp_path / "t.litmus"
    p.write_text(text)
    r = hrf.check(p, m, **kw)
    assert r.error is None and r.complete, r.error
    return r


def outcomes(r, key: str) -> set:
    return {o[key] for o in r.outcomes}


# P0 stores 2^32 + 2 as one 64-bit store (x[0] = 2, x[1] = 1: little-endian),
# then releases the flag; P1 reads the halves with 32-bit loads once it has
# acquired the flag.
MP = [
    "st.weak.u64 [x], 4294967298   | ld.acquire.gpu.u32 r0, [flag]",
    "st.release.gpu.u32 [flag], 1  | bne r0, 1, LC00",
    "                              | ld.weak.u32 r1, [x]",
    "                              | ld.weak.u32 r2, [x+4]",
    "                              | LC00:",
]


@pytest.mark.parametrize("m", MODELS)
def test_a_64_bit_store_read_in_halves_after_an_acquire(m, tmp_path):
    """The release (gpu scope) is read by the acquire (gpu scope, one GPU):
    morally strong, so the store, before the release in program order,
    precedes both loads, after the acquire, in causality order; neither may
    read the initial 0 (Causality), so r1 = 2 and r2 = 1: forbidden. No
    race: P1 reads x only after the acquire that orders it."""
    r = check(ptx("x[2];\nflag=0;", MP, "exists (P1:r0 == 1 /\\ ~(P1:r1 == 2 /\\ P1:r2 == 1))"), m, tmp_path)
    assert r.condition_holds is False
    assert not r.flags and r.racy is False
    assert {(o["1:r0"], o["1:r1"], o["1:r2"]) for o in r.outcomes} == {(0, 0, 0), (1, 2, 1)}


@pytest.mark.parametrize("m", MODELS)
def test_halves_read_without_the_flag_are_a_mixed_size_race(m, tmp_path):
    """Unguarded, P1's 32-bit loads run where its acquire read 0: nothing
    orders them with P0's 64-bit store, which they overlap partially, and
    one is a write: a mixed-size data-race, flagged, with its events."""
    rows = [MP[0], MP[1].split("|")[0] + "| ld.weak.u32 r1, [x]", "| ld.weak.u32 r2, [x+4]"]
    r = check(ptx("x[2];\nflag=0;", rows, "exists (P1:r0 == 1 /\\ P1:r1 == 0)"), m, tmp_path)
    assert r.racy is True and [f["kind"] for f in r.flags] == ["mixed_size_race"]
    assert r.flagged_executions > 0
    events = r.flags[0]["events"]  # a store's half and a load of it, in P0 and P1
    assert [(e["thread"], e["kind"], e["loc"]) for e in events] in (
        [("P0", "W", "x[0]"), ("P1", "R", "x[0]")],
        [("P0", "W", "x[1]"), ("P1", "R", "x[1]")],
    )
    assert "of 8)" in events[0]["op"]


# P0: a 64-bit store, fence.sc, a relaxed flag store; P1: a relaxed flag
# load, fence.sc, a 32-bit load of x's first half (unguarded, or run only
# where the flag read 1).
MP_FENCE = [
    "st.weak.u64 [x], 4294967298   | ld.relaxed.gpu.u32 r0, [flag]",
    "fence.sc.gpu                  | fence.sc.gpu",
    "st.relaxed.gpu.u32 [flag], 1  | ld.weak.u32 r1, [x]",
]
MP_FENCE_GUARDED = [*MP_FENCE[:2], MP_FENCE[2].split("|")[0] + "| bne r0, 1, LC00", "| ld.weak.u32 r1, [x]", "| LC00:"]


@pytest.mark.parametrize("m", MODELS)
@pytest.mark.parametrize("guarded", [False, True])
def test_a_mixed_size_race_under_some_fence_sc_order(m, guarded, tmp_path):
    """The flag reads each execution's own Fence-SC order (the core tries the
    orders an execution is consistent with), not a union of both.
    Where P1's flag load reads 1, the fences are release and acquire
    patterns around it: P0's fence synchronises with P1's, and Fence-SC
    order cannot contradict causality order, so P0's fence comes first and
    the store precedes the 32-bit load (no race). Where it reads 0 either
    order is consistent; with P1's fence first nothing orders the store and
    the load (a mixed-size data-race), whatever the load reads (0, or the
    store's half 2): two executions flagged of three. Guarded, the load runs
    only where the flag read 1: no race."""
    rows = MP_FENCE_GUARDED if guarded else MP_FENCE
    r = check(ptx("x[2];\nflag=0;", rows, "exists (P1:r0 == 1 /\\ P1:r1 == 0)"), m, tmp_path)
    assert r.condition_holds is False
    if guarded:
        assert not r.flags and r.flagged_executions == 0
        assert {(o["1:r0"], o["1:r1"]) for o in r.outcomes} == {(0, 0), (1, 2)}
        return
    assert {(o["1:r0"], o["1:r1"]) for o in r.outcomes} == {(0, 0), (0, 2), (1, 2)}
    assert [f["kind"] for f in r.flags] == ["mixed_size_race"] and r.flagged_executions == 2
    events = r.flags[0]["events"]
    assert [(e["thread"], e["kind"], e["loc"]) for e in events] == [("P0", "W", "x[0]"), ("P1", "R", "x[0]")]
    # the flag's witness execution is shown with the order that leaves them apart: P1's fence first
    ex = r.flags[0]["execution"]
    (fences,) = [evs for name, evs in ex["orders"] if name == "sync_fence"]
    assert [ex["events"][e]["thread"] for e in fences] == [1, 0]


# Two relaxed 64-bit stores race (gpu scope, one GPU: morally strong, a
# uniform-size race, to which the axioms apply); P2 reads x whole and x[2]
# with a 32-bit load, which makes x an array of 4-byte elements but overlaps
# no 64-bit access.
TEAR = (
    "x[4];",
    [
        "st.relaxed.gpu.u64 [x], 4294967297 | st.relaxed.gpu.u64 [x], 8589934594 | ld.relaxed.gpu.u64 r0, [x]",
        "                                   |                                    | ld.relaxed.gpu.u32 r1, [x+8]",
    ],
    "P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0",
)
A, B = 4294967297, 8589934594  # (1, 1) and (2, 2) as two 32-bit halves
TORN = (4294967298, 8589934593, 1, 2, 4294967296, 8589934592)


@pytest.mark.parametrize("m", MODELS)
def test_a_wide_access_is_read_and_ordered_whole(m, tmp_path):
    """A read reads from one write ([PTX19]'s rf: one write per read); P2's
    load, of the same bytes as both stores, reads 0, A or B, never half of
    one and half of another or of the initial value. The stores are
    morally strong, so coherence orders them (Coherence2), the same way in
    both halves: the final x is A or B whole. Without the whole-access
    checks the torn values appear, which is what they forbid."""
    init, rows, heads = TEAR
    cond = (
        "exists ("
        + " \\/ ".join(f"P2:r0 == {v}" for v in TORN)
        + " \\/ x[0] == 1 /\\ x[1] == 2 \\/ x[0] == 2 /\\ x[1] == 1)"
    )
    text = ptx(init, rows, cond, heads)
    r = check(text, m, tmp_path)
    assert r.condition_holds is False and not r.flags
    assert outcomes(r, "2:r0") == {0, A, B}
    torn = check(text, model(m).without("whole-rf", "whole-co"), tmp_path)
    assert torn.condition_holds is True
    assert outcomes(torn, "2:r0") >= {4294967298, 8589934593}


@pytest.mark.parametrize("m", MODELS)
def test_a_threads_accesses_of_several_sizes_keep_program_order(m, tmp_path):
    """P0 writes x[1] = 7 with a 32-bit store, then x whole with a 64-bit
    store, then reads x[1] and x[0] with 32-bit loads. Program order is in
    causality order ([PTXISA] "Base causality order"): the 64-bit store is
    after the 32-bit one in coherence (Coherence), and each load reads the
    64-bit store (Causality: a read cannot read a write coherence-before one
    that precedes it): r0 = 1, r1 = 2, final x[1] = 1. One thread: no race.
    ptx-6.0's causality order leaves program order to its SC-per-location
    axiom, which orders morally strong pairs alone; its mixed-Coherence and
    mixed-Causality checks state the ISA's for these pairs, and without them
    the older values appear."""
    rows = [
        "st.weak.u32 [x+4], 7",
        "st.weak.u64 [x], 4294967298",
        "ld.weak.u32 r0, [x+4]",
        "ld.weak.u32 r1, [x]",
    ]
    cond = "exists (P0:r0 != 1 \\/ P0:r1 != 2 \\/ x[1] != 1)"
    text = ptx("x[2];", rows, cond, heads="P0@cta 0,gpu 0")
    r = check(text, m, tmp_path)
    assert r.condition_holds is False and not r.flags
    if m == "ptx-6.0":
        loose = check(text, model(m).without("mixed-Coherence", "mixed-Causality"), tmp_path)
        assert loose.condition_holds is True


@pytest.mark.parametrize("m", MODELS)
def test_values_are_bytes_little_endian_and_signed_types_sign_extend(m, tmp_path):
    """One thread, no race (its accesses are in program order). A 16-bit
    load makes the elements 2 bytes wide. st.u64 of 0x0004000300020001 puts
    1, 2, 3, 4 in x[0] .. x[3]: ld.u16 at +2 reads 2, ld.u32 at +4
    0x00040003. st.s32 of -1 at +4 writes 0xffff in x[2] and x[3]: ld.s32
    there reads -1, ld.u32 4294967295, ld.s16 -1, ld.u16 65535. After both
    stores, ld.u64 reads x[0], x[1] from the first and x[2], x[3] from the
    second (coherence-after the first's there): 0xffffffff00020001, -4294836223
    as hrf's 64-bit signed values."""
    assert 0x0004000300020001 == 1125912791875585
    v = "1125912791875585"
    assert one_thread([f"st.weak.u64 [x], {v}", "ld.weak.u16 r0, [x+2]", "ld.weak.u32 r1, [x+4]"], m, "x[4];") == {
        "r0": 2,
        "r1": 0x00040003,
    }
    rows = ["st.weak.s32 [x+4], -1", "ld.weak.s32 r2, [x+4]", "ld.weak.u32 r3, [x+4]"]
    rows += ["ld.weak.s16 r4, [x+6]", "ld.weak.u16 r5, [x+6]"]
    assert one_thread(rows, m, "x[4];") == {"r2": -1, "r3": 4294967295, "r4": -1, "r5": 65535}
    rows = [f"st.weak.u64 [x], {v}", "st.weak.s32 [x+4], -1", "ld.weak.u64 r6, [x]"]
    assert one_thread(rows, m, "x[4];") == {"r6": 0xFFFFFFFF00020001 - (1 << 64)}
    assert 0xFFFFFFFF00020001 - (1 << 64) == -4294836223


@pytest.mark.parametrize("m", MODELS)
def test_a_vector_of_wide_elements_over_narrow_ones(m, tmp_path):
    """st.v2.u64 writes two 64-bit elements, each two 4-byte elements of
    the array (a 32-bit load makes them so), in some order; the thread then
    reads x[3] (the second's high half) and x[0]: program order, one
    thread, so 2 and 1, whatever order the vector's elements took."""
    rows = ["st.weak.v2.u64 [x], {1, 8589934592}", "ld.weak.u32 r0, [x+12]", "ld.weak.u32 r1, [x]"]
    r = check(ptx("x[4];", rows, "exists (P0:r0 != 2 \\/ P0:r1 != 1)", heads="P0@cta 0,gpu 0"), m, tmp_path)
    assert r.condition_holds is False and not r.flags


@pytest.mark.parametrize("m", MODELS)
def test_the_reference_enumerator_agrees(m, tmp_path):
    """The enumerator's shortcuts (a thread's own location read from its
    last write, a weak vector in its written order) against every candidate."""
    init, rows, heads = TEAR
    for text in (
        ptx("x[2];\nflag=0;", MP, "exists (P1:r0 == 1 /\\ P1:r1 == 0)"),
        ptx(init, rows, "exists (P2:r0 == 1)", heads),
        ptx("x[4];", ["st.weak.v2.u64 [x], {1, 2} | ld.weak.v4.u32 {r0, r1, r2, r3}, [x]"], "exists (P1:r0 == 1)"),
    ):
        fast = check(text, m, tmp_path)
        slow = check(text, m, tmp_path, limits=hrf.Limits(reference=True))
        assert fast.outcomes == slow.outcomes and [f["kind"] for f in fast.flags] == [f["kind"] for f in slow.flags]


def test_models_that_do_not_say_refuse_it(tmp_path):
    p = tmp_path / "t.litmus"
    p.write_text(ptx("x[2];\nflag=0;", MP, "exists (P1:r0 == 1)"))
    with pytest.raises(UnsupportedFeature, match=r"several sizes to one array mean \(x\)"):
        hrf.check(p, "sc")


@pytest.mark.parametrize(
    ("init", "row", "message"),
    [
        ("x[2];", "st.weak.u64 [x], 1 | ld.weak r0, [x] ;\n st.weak.u32 [x+4], 1 |", "a type on every access of x"),
        ("x[2];", "st.weak.u64 [x], 1 | ld.weak.u32 r0, [x+8]", r"x \(2 of 4 bytes\); \[x\+8\] reaches past"),
        ("x[2] = {-1};", "st.weak.u64 [x], 1 | ld.weak.u32 r0, [x]", "holds 0 .. 4294967295"),
    ],
)
def test_located_errors(init, row, message, tmp_path):
    p = tmp_path / "t.litmus"
    p.write_text(ptx(init, [row], "exists (P1:r0 == 1)"))
    with pytest.raises(LitmusSyntaxError, match=message):
        hrf.parse(p)


def test_an_atomic_of_a_mixed_size_array_is_refused_by_name(tmp_path):
    p = tmp_path / "t.litmus"
    p.write_text(ptx("x[2];", ["st.weak.u64 [x], 1 | atom.add.u32 r0, [x+4], 1"], "exists (P1:r0 == 1)"))
    with pytest.raises(UnsupportedFeature, match="atomic operation of an array accessed with mixed sizes"):
        hrf.parse(p)


# Random programs of mixed-size accesses that race nowhere, against a byte
# array: one thread's accesses in program order, or one thread's stores
# published by a release to another thread's loads after an acquire. Each
# load must read what the bytes hold after the stores before it (causality
# order: program order, then release-acquire), little-endian, a `.s` type's
# value sign-extended; hrf's values are 64-bit signed.
def random_rows(rng, widths: tuple, n_stores: int, n_loads: int, interleave: bool) -> list[str]:
    """Stores of random values and loads into r0, r1, ..., of random sizes among `widths`, aligned
    offsets into the 8 bytes of x, signed or unsigned types."""
    ops = ["st"] * n_stores + ["ld"] * n_loads
    if interleave:
        rng.shuffle(ops)
    rows: list[str] = []
    for op in ops:
        w = rng.choice(widths)
        off = rng.randrange(0, 8, w)
        signed = rng.random() < 0.5
        typ = f"{'s' if signed else 'u'}{8 * w}"
        if op == "st":
            top = 1 << (8 * w - 1)  # (hrf's values are 64-bit signed: a u64 below 2^63)
            v = rng.randrange(-top, top) if signed else rng.randrange(top if w == 8 else 2 * top)
            rows.append(f"st.weak.{typ} [x+{off}], {v}")
        else:
            rows.append(f"ld.weak.{typ} r{sum(r.startswith('ld') for r in rows)}, [x+{off}]")
    return rows


def replay(rows: list[str]) -> tuple[dict, set]:
    """Each load's value after the stores before it in `rows`, on a byte array; the sizes used."""
    memory, expected, sizes = bytearray(8), {}, set()
    for row in rows:
        op, rest = row.split(" ", 1)
        typ = op.rsplit(".", 1)[1]
        w, signed = int(typ[1:]) // 8, typ[0] == "s"
        sizes.add(w)
        if op.startswith("st"):
            addr, v = rest.split(", ")
            off = int(addr.strip("[]").split("+")[1])
            memory[off : off + w] = (int(v) & ((1 << 8 * w) - 1)).to_bytes(w, "little")
        else:
            reg, addr = rest.split(", ")
            off = int(addr.strip("[]").split("+")[1])
            expected[reg] = int.from_bytes(memory[off : off + w], "little", signed=signed or w == 8)
    return expected, sizes


def equal_to(thread: int, expected: dict) -> str:
    return " /\\ ".join(f"P{thread}:{r} == {v}" for r, v in expected.items())


# ptx-6.0 reads a thread's own location from its last write (uniproc); the others take each
# value an element may hold, for each element a load reads (8 for a u64 of bytes): smaller there
@pytest.mark.parametrize(
    ("m", "programs", "size", "widths"),
    [("ptx-6.0", 120, (5, 4), (1, 2, 4, 8)), ("ptx-7.5", 30, (2, 2), (2, 4, 8)), ("ptx-8.0", 20, (2, 2), (2, 4, 8))],
)
def test_random_one_thread_programs_read_a_byte_array(m, programs, size, widths, tmp_path):
    import random

    rng = random.Random(20261203)
    checked = 0
    for _ in range(programs):
        rows = random_rows(rng, tuple(sorted(rng.sample(widths, 2))), *size, interleave=True)
        expected, sizes = replay(rows)
        if not expected or len(sizes) < 2:  # one size: no mixed-size array
            continue
        text = ptx(f"x[{8 // min(sizes)}];", rows, f"exists ({equal_to(0, expected)})", heads="P0@cta 0,gpu 0")
        r = check(text, m, tmp_path)
        assert r.condition_holds is True and len(r.outcomes) == 1 and not r.flags, (rows, expected, r.outcomes)
        checked += 1
    assert checked >= programs // 2


@pytest.mark.parametrize("m", MODELS)
def test_random_stores_published_by_a_release(m, tmp_path):
    """P0's stores, then a release of the flag; P1's loads, once its acquire has read it: each
    load reads what the bytes hold after all of P0's stores, and nothing races."""
    import random

    rng = random.Random(3 + MODELS.index(m))
    checked = 0
    for _ in range(20):
        stores, loads = random_rows(rng, (4, 8), 3, 0, False), random_rows(rng, (4, 8), 0, 2, False)
        expected, sizes = replay(stores + loads)
        if len(sizes) < 2:
            continue
        p0 = [*stores, "st.release.gpu.u32 [flag], 1"]
        p1 = ["ld.acquire.gpu.u32 r9, [flag]", "bne r9, 1, LC00", *loads, "LC00:"]
        rows = [f"{a} | {b}" for a, b in itertools.zip_longest(p0, p1, fillvalue="")]
        text = ptx("x[2];\nflag=0;", rows, f"exists (P1:r9 == 1 /\\ ~({equal_to(1, expected)}))")
        r = check(text, m, tmp_path)
        assert r.condition_holds is False and not r.flags, (rows, expected)
        assert any(o["1:r9"] == 1 for o in r.outcomes)
        checked += 1
    assert checked >= 6
