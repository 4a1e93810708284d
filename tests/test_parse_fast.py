"""The hand-written reader of the C/OpenCL syntax (hrf.litmus.opencl_fast)
against the LALR reader it stands in for (opencl_lalr, the reference):
wherever the fast one reads a test, it builds the AST the reference
builds, source lines included; wherever it gives up, the reference reads
the test, so errors are the reference's. Checked on the shipped tests,
on generated programs, and on mutations of the shipped tests."""

import os
import random
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hrf
from fuzz import mutate
from hrf.litmus import decode, opencl, read_file
from hrf.litmus.ast import structure
from hrf.litmus.comments import blank_comments
from hrf.litmus.opencl_fast import read_items
from hrf.litmus.printer import to_litmus
from strategies import litmus_asts

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = [
    p for p in sorted((ROOT / "litmus").rglob("*.litmus")) if read_file(p).split(None, 1)[0].upper() in ("C", "OPENCL")
]


def outcome(text: str, reader: str, read=opencl.parse_opencl):
    """What a reader makes of a test: its AST with lines, or its error."""
    try:
        return ("test", structure(read(text, "t.litmus", reader=reader)))
    except hrf.HrfError as e:
        return ("error", type(e).__name__, str(e))
    except RecursionError:
        return ("too deep",)


def test_every_shipped_test_is_read_by_the_fast_reader_as_by_the_reference():
    assert len(SHIPPED) >= 20
    for p in SHIPPED:
        text = read_file(p)
        assert read_items(blank_comments(text, c_bodies=True)) is not None, f"gave up on {p}"
        assert outcome(text, "fast") == outcome(text, "lalr"), p


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(litmus_asts())
def test_generated_programs_read_alike(t):
    text = to_litmus(t)
    assert read_items(blank_comments(text, c_bodies=True)) is not None
    assert outcome(text, "fast") == outcome(text, "lalr")


TEXTS = [p.read_bytes() for p in SHIPPED]


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(TEXTS) - 1), st.lists(st.integers(0, 2**32), min_size=1, max_size=3))
def test_mutated_tests_read_alike(i, seeds):
    # a mutation is mostly a syntax error: the fast reader must give up
    # on it (the reference then reports it), never read it otherwise
    text = _mutated(TEXTS[i], seeds)
    if text is not None and text.strip() and text.split(None, 1)[0].upper() in ("C", "OPENCL"):
        assert outcome(text, "fast") == outcome(text, "lalr")


def _mutated(data: bytes, seeds) -> str | None:
    """The test after the mutations (tests/fuzz.py), or None where it is no text."""
    for s in seeds:
        data = mutate(data, random.Random(s))
    try:
        return decode(data)
    except hrf.HrfError:
        return None


def test_reading_a_c_test_loads_no_lark():
    code = "import sys, hrf; hrf.parse(sys.argv[1]); print('lark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code, str(SHIPPED[0])], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_hrf_parser_lalr_forces_the_reference():
    code = "import sys, hrf; hrf.parse(sys.argv[1]); print('lark' in sys.modules)"
    env = {**os.environ, "HRF_PARSER": "lalr"}
    out = subprocess.run([sys.executable, "-c", code, str(SHIPPED[0])], capture_output=True, text=True, env=env)
    assert out.stdout.strip() == "True", out.stderr


# ---------------------------------------------------------------- PTX
def ptx_outcome(text: str, reader: str):
    from hrf.litmus.ptx import parse_ptx

    return outcome(text, reader, parse_ptx)


def _ptx_texts() -> list:
    from test_ptx import OBSERVED

    return list(OBSERVED.values())


def test_ptx_tests_are_read_by_the_fast_reader_as_by_the_reference():
    from hrf.litmus import ptx
    from hrf.litmus.columns import read_columns

    for text in _ptx_texts():
        assert ptx_outcome(text, "fast") == ptx_outcome(text, "lalr")
        c = read_columns(text, None, r"\s*(scopetree|exists|forall|~|locations|\w+\s*:\s*\w+)")
        assert all(ptx._fast_instr(src) is not None for cells in c.cells for src, _, _ in cells)
        assert ptx._fast_tail("\n".join(c.lines[c.tail :])) is not None


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 4), st.lists(st.integers(0, 2**32), min_size=1, max_size=3))
def test_mutated_ptx_tests_read_alike(i, seeds):
    text = _mutated(_ptx_texts()[i].encode(), seeds)
    if text is not None and text.startswith("GPU_PTX"):
        assert ptx_outcome(text, "fast") == ptx_outcome(text, "lalr")
