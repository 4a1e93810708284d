"""hrf's readers of the C/OpenCL and GPU_PTX syntaxes (`hrf.litmus.opencl`,
`hrf.litmus.ptx`) against the executable grammars they follow (tests/lalr:
lark's LALR readers of the same grammars, the reference): every test reads
to the same AST, lines included, or fails with the same error at the same
line and column. The wording of a syntax error is the reader's own (what
it found, what it expected there); every other error (a number past 64
bits, an unknown memory order, an LKMM test) is word for word the same.
Checked on the shipped tests, on generated programs, on mutations of the
shipped tests, and on the places where a name is a keyword or not."""

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hrf
import hrf.litmus
import lalr
from fuzz import mutate
from hrf.litmus import decode, opencl, ptx, read_file
from hrf.litmus.ast import structure
from hrf.litmus.printer import to_litmus
from strategies import litmus_asts

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = [
    p for p in sorted((ROOT / "litmus").rglob("*.litmus")) if read_file(p).split(None, 1)[0].upper() in ("C", "OPENCL")
]


def outcome(text: str, read) -> tuple:
    """What a reader makes of a test: its AST with lines, or its error
    (a syntax error by its place alone)."""
    try:
        return ("test", structure(read(text, "t.litmus")))
    except hrf.LitmusSyntaxError as e:
        if e.message.startswith("unexpected"):
            return ("syntax", e.line, e.column)
        return ("error", "LitmusSyntaxError", str(e))
    except hrf.HrfError as e:
        return ("error", type(e).__name__, str(e))
    except RecursionError:
        return ("too deep",)


def alike(text: str) -> tuple:
    """The reader's outcome, checked to be the reference's."""
    ptx_test = text.startswith("GPU_PTX")
    mine = outcome(text, ptx.parse_ptx if ptx_test else opencl.parse_opencl)
    if mine == ("too deep",):
        # hrf's readers recurse, the reference does not: past Python's
        # recursion limit hrf refuses the test as nested too deeply
        # (hrf.parse says where), wherever the reference's error would be
        assert _depth(text) > 100, text
        return mine
    assert mine == outcome(text, lalr.parse_ptx if ptx_test else lalr.parse_opencl)
    return mine


def _depth(text: str) -> int:
    """The deepest nesting of brackets in the text."""
    depth = best = 0
    for ch in text:
        depth += ch in "({[" and 1 or -(ch in ")}]")
        best = max(best, depth)
    return best


def test_every_shipped_test_is_read_as_the_reference_reads_it():
    assert len(SHIPPED) >= 20
    for p in SHIPPED:
        assert alike(read_file(p))[0] == "test", p


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(litmus_asts())
def test_generated_programs_read_alike(t):
    assert alike(to_litmus(t))[0] == "test"


TEXTS = [p.read_bytes() for p in SHIPPED]


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(TEXTS) - 1), st.lists(st.integers(0, 2**32), min_size=1, max_size=3))
def test_mutated_tests_read_alike(i, seeds):
    # a mutation is mostly a syntax error: the same place, or the same refusal
    text = _mutated(TEXTS[i], seeds)
    if text is not None and text.strip() and text.split(None, 1)[0].upper() in ("C", "OPENCL"):
        alike(text)


def _mutated(data: bytes, seeds) -> str | None:
    """The test after the mutations (tests/fuzz.py), or None where it is no text."""
    for s in seeds:
        data = mutate(data, random.Random(s))
    try:
        return decode(data)
    except hrf.HrfError:
        return None


def test_reading_a_test_loads_no_lark():
    code = "import sys, hrf; hrf.parse(sys.argv[1]); print('lark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code, str(SHIPPED[0])], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# Where a name is a keyword: only where the grammar takes the keyword (after
# the threads `exists` is the quantifier, inside one it is a register), and
# `else` only after a statement, as the grammar's contextual lexer has it.
# (body, what it is: "test" or the column of the syntax error on line 4)
KEYWORD_PLACES = [
    ("int r0 = if;", "test"),
    ("r0 = exists;", "test"),
    ("exists = 1;", "test"),
    ("else = 1;", "test"),  # the block's first statement: no `if` before it, a name
    ("r0 = 1; else = 2;", 11),  # after a statement: the keyword, with no `if`
    ("if (r0) else = 1;", "test"),
    ("{ r0 = 1; } exists = 1;", 15),  # after a block a thread may end: the quantifier
    ("{ r0 = 1; } P1 = 2;", 15),
    ("{ r0 = 1; } regions = 1;", 15),
    ("{ } int r0 = 1;", "test"),
    ("r0 = locations;", "test"),
    ("unsigned int r0 = 1;", "test"),
    ("unsigned  int r0;", "test"),
    ("unsigned\nint r0;", 1),  # `unsigned int` is one type on one line
    ("r0 = &&x;", 9),  # `&` then a second `&`, which cannot follow it
    ("r0 = != 1;", 9),
    ("*(x) * 2 + 1;", "test"),
    ("r0 = (*x = 2) + 1;", "test"),
    ("int r0 = 1 r1 = 2;", 14),
]


@pytest.mark.parametrize("body, want", KEYWORD_PLACES)
def test_names_are_keywords_where_the_grammar_takes_them(body, want):
    text = f"C t\n{{ x = 0; }}\nP0 (atomic_int* x, atomic_int* y) {{\n  {body}\n}}\nexists (x=0)\n"
    got = alike(text)
    assert got[0] == "test" if want == "test" else got == ("syntax", 4 + body.count("\n"), want)


# PTX cells: after a predicate only an instruction's name may come, so a
# longer name is the instruction and what follows it (herd's grammar reads
# `@p brax` as `@p bra x`); (cell, the error's column within the cell, or "test")
PTX_CELLS = [
    ("@p brax", "test"),
    ("@p ldx.u32 r0, [x]", 6),
    ("@p bra2", 7),
    ("@p foo", 4),
    ("ld.u32 r0, [x", 13),  # the end of the cell, placed at its last token
    ("ld: ", 3),
    ("bra.uni L", "test"),
    ("ld.u32 %r0, [x] // a comment", "test"),
    ("mov.u32 r0 == 1", 12),
]


@pytest.mark.parametrize("cell, want", PTX_CELLS)
def test_ptx_cells_read_as_the_grammar_reads_them(cell, want):
    got = alike(_PTX_MP.replace("ld.cg.s32 r2,[r3]", cell))
    start = _PTX_MP.splitlines()[3].index("ld.cg")  # the cell's column, less one
    assert got[0] == "test" if want == "test" else got == ("syntax", 4, start + want)


_PTX_MP = """GPU_PTX MP
{ 0:.reg .b64 r1 = x; 1:.reg .b64 r3 = x; }
 P0                | P1                ;
 st.cg.s32 [r1],1  | ld.cg.s32 r2,[r3] ;
scopeTree (device (kernel (cta (warp P0)) (cta (warp P1))))
x: global
exists (1:r2=0)
"""


def test_a_syntax_error_says_what_it_found_and_what_was_expected():
    text = "C t\n{ x = 0; }\nP0 (atomic_int* x) {\n  int r0 = 1\n}\n"
    with pytest.raises(hrf.LitmusSyntaxError) as e:
        hrf.litmus.parse_text(text)
    assert (e.value.line, e.value.column) == (5, 1)
    assert e.value.message == "unexpected '}' (expected ';' or an operator)"


# ---------------------------------------------------------------- PTX
def _ptx_texts() -> list:
    from test_ptx import OBSERVED

    return list(OBSERVED.values())


def test_ptx_tests_are_read_as_the_reference_reads_them():
    for text in _ptx_texts():
        assert alike(text)[0] == "test"


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 4), st.lists(st.integers(0, 2**32), min_size=1, max_size=3))
def test_mutated_ptx_tests_read_alike(i, seeds):
    text = _mutated(_ptx_texts()[i].encode(), seeds)
    if text is not None and text.startswith("GPU_PTX"):
        alike(text)
