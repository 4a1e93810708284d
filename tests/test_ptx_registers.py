"""PTX's register instructions and guard predicates as real kernels write
them ([PTXISA] "Predicated Execution", "Integer Arithmetic Instructions",
"Comparison and Selection Instructions", `mov`, `bra`): `setp.cmp.type p,
a, b`, `@p` / `@!p` before any instruction, `selp`, typed `add`/`sub`/
`mul.lo`/`and`/`or`/`xor`/`shl`, `mov.type`, `bra{.uni}`. They compute on
hrf's 64-bit values; setp compares signed for `.s` types and unsigned for
`.u` types. Each expected value is worked out next to its test; no file beside
the repository is read."""

import re
from pathlib import Path

import pytest

import hrf
from hrf.errors import LitmusSyntaxError, UnsupportedFeature
from hrf.gpu.lower import lower
from test_ptx_vectors import ptx

PTX7 = Path(hrf.__file__).parent / "corpus" / "ptx7"
MODELS = ["ptx-6.0", "ptx-7.5", "ptx-8.0"]


def one_thread(rows: list[str], model: str = "ptx-7.5", init: str = "x=0;") -> dict:
    """The single outcome of a one-thread test, unflagged, every register r0.. observed."""
    regs = sorted({reg for r in rows for reg in re.findall(r"\br[0-9]+\b", r)})
    cond = "exists (" + " /\\ ".join(f"P0:{r} == P0:{r}" for r in regs) + ")"
    r = hrf.check(ptx(init, rows, cond, heads="P0@cta 0,gpu 0"), model)
    assert r.error is None and r.complete and len(r.outcomes) == 1 and not r.flags, (r.error, r.outcomes)
    return {k.split(":")[1]: v for k, v in r.outcomes[0].items()}


@pytest.mark.parametrize("m", MODELS)
def test_the_corpus_test_guards_its_read_with_a_predicate(m):
    """litmus/ptx7/MP+setp-guard: P1 reads x only where its acquire read 1;
    there the release/acquire pair (morally strong) orders P0's store before
    the read, which reads 1 (Causality). Where the acquire read 0, r1 keeps
    its 2. Forbidden, and exactly these two outcomes."""
    r = hrf.check(PTX7 / "MP+setp-guard.litmus", m)
    assert r.error is None and r.condition_holds is False
    assert {(o["1:r0"], o["1:r1"]) for o in r.outcomes} == {(0, 2), (1, 1)}


def test_arithmetic_moves_selections_and_shifts():
    """mov 5; add 5 + 3 = 8; sub 8 - 10 = -2; mul.lo -2 * 3 = -6; and 12 & 10
    = 8; or 12 | 3 = 15; xor 15 ^ 5 = 10; shl 3 << 4 = 48; setp.eq 8 == 8
    holds: selp picks 100; setp.ne 8 != 8 does not: selp picks 200."""
    got = one_thread(
        [
            "mov.u32 r0, 5",
            "add.s32 r1, r0, 3",
            "sub.s32 r2, r1, 10",
            "mul.lo.s32 r3, r2, 3",
            "and.b32 r4, 12, 10",
            "or.b32 r5, 12, 3",
            "xor.b32 r6, r5, 5",
            "shl.b32 r7, 3, 4",
            "setp.eq.s32 p1, r1, 8",
            "selp.s32 r8, 100, 200, p1",
            "setp.ne.s32 p2, r1, 8",
            "selp.s32 r9, 100, 200, p2",
        ]
    )
    assert got == {"r0": 5, "r1": 8, "r2": -2, "r3": -6, "r4": 8, "r5": 15, "r6": 10, "r7": 48, "r8": 100, "r9": 200}


@pytest.mark.parametrize(
    ("cmp", "typ", "a", "b", "holds"),
    [
        # signed: -1 < 1
        ("lt", "s32", -1, 1, True),
        ("ge", "s64", -1, 1, False),
        # unsigned: -1's bits are the largest unsigned value, so not below 1; lt on .u reads as lo
        ("lt", "u32", -1, 1, False),
        ("lo", "u32", -1, 1, False),
        ("hi", "u64", -1, 1, True),
        ("ls", "u32", 2, 2, True),
        ("hs", "u16", 1, 2, False),
        ("le", "u32", 1, 2, True),
        # equality on bit-size types
        ("eq", "b32", 7, 7, True),
        ("ne", "b64", 7, 7, False),
    ],
)
def test_setp_compares_as_its_type_says(cmp, typ, a, b, holds):
    got = one_thread([f"mov.s64 r0, {a}", f"setp.{cmp}.{typ} p1, r0, {b}", "selp.s32 r1, 1, 0, p1"])
    assert got["r1"] == int(holds)


def test_guards_run_an_instruction_where_the_predicate_holds_or_not():
    """p1 holds (1 == 1), p2 does not: @p1 and @!p2 run, @!p1 and @p2 do not;
    a guarded store writes x, a guarded-off one does not; a guarded branch
    skips the add."""
    got = one_thread(
        [
            "mov.u32 r0, 1",
            "setp.eq.u32 p1, r0, 1",
            "setp.eq.u32 p2, r0, 2",
            "mov.u32 r1, 0",
            "mov.u32 r2, 0",
            "@p1 add.u32 r1, r1, 10",
            "@!p1 add.u32 r1, r1, 100",
            "@p2 add.u32 r2, r2, 10",
            "@!p2 add.u32 r2, r2, 100",
            "@p1 st.weak.u32 [x], 5",
            "@p2 st.weak.u32 [x], 6",
            "ld.weak.u32 r3, [x]",
            "mov.u32 r4, 1",
            "@p1 bra.uni LC00",
            "add.u32 r4, r4, 1",
            "LC00:",
        ]
    )
    assert got == {"r0": 1, "r1": 10, "r2": 100, "r3": 5, "r4": 1}


def test_hrf_run_writes_unsigned_comparisons_unsigned():
    """The lowering writes setp's unsigned comparison as `setp.lo.u32` (the
    generated code is compiled and checked with nvcc where it is at hand:
    tests/test_gpu_toolchain.py runs every shipped test)."""
    t = hrf.parse(
        "PTX t\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n ld.weak.u32 r0, [x] ;\n setp.lt.u32 p1, r0, 3 ;\n"
        " @p1 st.weak.u32 [x], 1 ;\nexists (P0:r0 == 0)\n"
    )
    code = "\n".join(lower(t).threads[0].lines)
    assert "setp.lo.u32" in code


def test_predicate_logic():
    """p1 holds (1 == 1), p2 does not (1 == 2): and is 0, or 1, xor 1,
    not p1 0, mov p1 1; each read through selp."""
    rows = ["mov.u32 r0, 1", "setp.eq.u32 p1, r0, 1", "setp.eq.u32 p2, r0, 2"]
    rows += ["and.pred p3, p1, p2", "or.pred p4, p1, p2", "xor.pred p5, p1, p2", "not.pred p6, p1", "mov.pred p7, p1"]
    rows += [f"selp.u32 r{k}, 1, 0, p{k}" for k in range(3, 8)]
    got = one_thread(rows)
    assert [got[f"r{k}"] for k in range(3, 8)] == [0, 1, 1, 0, 1]


@pytest.mark.parametrize(
    ("row", "error", "words"),
    [
        ("setp.lt.b32 p1, r0, 1", LitmusSyntaxError, "eq or ne on .b32"),
        ("setp.lo.s32 p1, r0, 1", LitmusSyntaxError, "lt, le, gt or ge on .s32"),
        ("setp.u32 p1, r0, 1", LitmusSyntaxError, "setp's comparison"),
        ("add.u8 r1, r0, 1", LitmusSyntaxError, "add's type"),
        ("add.sat.s32 r1, r0, 1", LitmusSyntaxError, "add's type, one of"),
        ("shl.b32 r1, r0, 63", LitmusSyntaxError, "a shift of at most 62 bits"),
        ("@p1 LC00:", LitmusSyntaxError, "an instruction after the guard"),
        ("@r1 st.weak.u32 [x], 1", LitmusSyntaxError, "a predicate register"),
        ("mul.hi.s32 r1, r0, 3", UnsupportedFeature, "mul.lo alone"),
        ("not.b32 r1, r0", LitmusSyntaxError, "not.pred p, q"),
        ("and.pred p1, r0, p2", LitmusSyntaxError, "a predicate register"),
    ],
)
def test_malformed_forms_are_located_errors(row, error, words):
    with pytest.raises(error, match=words):
        hrf.parse(f"PTX t\n{{\nx=0;\n}}\n P0@cta 0,gpu 0 ;\n ld.weak.u32 r0, [x] ;\n {row} ;\nexists (x == 0)\n")


def test_registers_named_as_compilers_name_them():
    """`%r0` and `%p1` (nvcc's names) are the dialect's `r0` and `p1`: the
    corpus test written with them reads as the same test."""
    import re

    text = (PTX7 / "MP+setp-guard.litmus").read_text()
    renamed = re.sub(r"\b([rp][0-9])", r"%\1", text)
    assert "%r0" in renamed and "@%p1" in renamed and "P1:%r0" in renamed
    assert hrf.parse(renamed) == hrf.parse(text)


def test_setp_writes_a_predicate_and_its_complement():
    """`setp.lt.s32 p1|p2, a, b`: p1 = a < b, and "q = !(a CmpOp b)" ([PTXISA]
    setp): 1 < 2 gives p1 = 1, p2 = 0; the `|` is the instruction's (a
    predicate and a comma follow it), not the column separator."""
    got = one_thread(
        [
            "setp.lt.s32 p1|p2, 1, 2",
            "selp.u32 r0, 10, 20, p1",
            "selp.u32 r1, 10, 20, p2",
            "setp.ne.u32 %p3|%p4, 5, 5",
            "selp.u32 r2, 10, 20, %p3",
            "selp.u32 r3, 10, 20, %p4",
        ]
    )
    assert got == {"r0": 10, "r1": 20, "r2": 20, "r3": 10}


def test_elect_sync_elects_the_tests_thread():
    """`elect.sync d|p, membermask`: a thread of a litmus test is the one lane
    of its warp the test has (lane 0, hrf's reading): elected, p = 1, d = 0;
    `_` discards d."""
    got = one_thread(["mov.u32 r1, 9", "elect.sync r1|p1, 0xffffffff", "selp.u32 r0, 1, 2, p1"])
    assert got == {"r0": 1, "r1": 0}
    assert one_thread(["elect.sync _|%p1, -1", "selp.u32 r0, 1, 2, %p1"]) == {"r0": 1}


@pytest.mark.parametrize("m", MODELS)
def test_the_corpus_test_elects_its_producer(m):
    """litmus/ptx7/MP+elect: P0's stores run under elect.sync's predicate (1);
    where P1's acquire reads 1 the release/acquire pair orders the store of x
    before P1's load (Causality): r1 = 1, so p3 = !(r1 == 1) = 0 and r2 = 8.
    Where the acquire reads 0 the load reads 0 or 1. Forbidden."""
    r = hrf.check(PTX7 / "MP+elect.litmus", m)
    assert r.error is None and r.condition_holds is False and not r.flags
    assert {(o["1:r0"], o["1:r2"]) for o in r.outcomes} == {(0, 7), (0, 8), (1, 8)}


@pytest.mark.parametrize(
    "cell,error,words",
    [
        ("elect.sync r1|p1, 2", LitmusSyntaxError, "a membermask holding the thread's lane, lane 0"),
        ("elect.sync r1|p1, r2", UnsupportedFeature, "a membermask in a register"),
        ("elect.sync r1, -1", LitmusSyntaxError, "'|' and a predicate register"),
        ("elect.any r1|p1, -1", LitmusSyntaxError, r"elect\.sync d\|p, membermask"),
    ],
)
def test_elect_sync_errors(cell, error, words):
    with pytest.raises(error, match=words):
        hrf.parse(ptx("x=0;", [cell], "exists (P0:r1 == 0)", heads="P0@cta 0,gpu 0"))
