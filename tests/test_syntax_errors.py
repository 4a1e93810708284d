"""Malformed input raises hrf.LitmusSyntaxError naming file, line and column,
with the offending text; never another exception from inside the parser."""

import contextlib

import pytest

import hrf

GOOD = """OPENCL ok
{ [x]=0; [y]=0; }
P0@wg 0, dev 0 (global atomic_int* x, global atomic_int* y) {
  atomic_store_explicit(x, 1, memory_order_release, memory_scope_device);
}
P1@wg 1, dev 0 (global atomic_int* x, global atomic_int* y) {
  int r0 = atomic_load_explicit(x, memory_order_acquire, memory_scope_device);
}
exists (1:r0=1)
"""

# (replace this, with that) -> (line, column, words the message contains)
CASES = [
    (
        ("memory_order_release, memory_scope_device);", "memory_order_release, memory_scope_device)"),
        (5, 1, "unexpected '}'"),
    ),
    (("memory_order_release", "memory_order_sloppy"), (4, 3, "unknown memory order 'memory_order_sloppy'")),
    (("memory_scope_device);\n}\nP1", "memory_scope_galaxy);\n}\nP1"), (4, 3, "unknown memory scope")),
    (
        ("atomic_store_explicit(x, 1, memory_order_release, memory_scope_device)", "atomic_store_explicit(x)"),
        (4, 3, "takes 3 to 4 arguments"),
    ),
    (("atomic_store_explicit", "atomic_stroe_explicit"), (4, 3, "unknown function 'atomic_stroe_explicit'")),
    (("exists (1:r0=1)", "exists (1:r0=)"), (9, 14, "unexpected ')'")),
    (("P1@wg 1", "P2@wg 1"), (6, 1, "threads must be P0, P1")),
    (("P1@wg 1, dev 0", "P1@wg 1, cluster 0"), (6, 10, "unknown scope level 'cluster'")),
    (("{ [x]=0; [y]=0; }", "{ [x]=0; [x]=0; }"), (2, None, "initialised twice")),
    (("OPENCL ok", "ARM ok"), (1, 1, "unknown litmus architecture 'ARM'")),
    (("int r0 = ", "int r0 = $ "), (7, 12, "unexpected character '$'")),
]


@pytest.mark.parametrize("change,where", CASES, ids=[c[1][2] for c in CASES])
def test_error_names_file_line_column(change, where, tmp_path):
    text = GOOD.replace(*change)
    assert text != GOOD
    f = tmp_path / "bad.litmus"
    f.write_text(text)
    with pytest.raises(hrf.LitmusSyntaxError) as ei:
        hrf.parse(f)
    e = ei.value
    line, col, words = where
    assert e.file == str(f)
    assert e.line == line, str(e)
    if col is not None:
        assert e.column == col, str(e)
    assert words in str(e)
    assert str(f) in str(e) and f":{line}:" in str(e)
    if e.excerpt is not None:
        assert e.excerpt == text.splitlines()[line - 1]


def test_good_input_parses():
    assert hrf.parse(GOOD).name == "ok"


def test_scope_tree_must_name_threads():
    text = (
        GOOD.replace("P0@wg 0, dev 0", "P0")
        .replace("P1@wg 1, dev 0", "P1")
        .replace("exists", "scopeTree (device (work_group P0) (work_group P7))\nexists")
    )
    with pytest.raises(hrf.LitmusSyntaxError, match="P7, which is not a thread"):
        hrf.parse(text)


def test_missing_file():
    with pytest.raises(hrf.LitmusSyntaxError, match="cannot read file"):
        hrf.parse("/nonexistent/dir/x.litmus")


def test_garbage_never_crashes():
    # Random byte soup: always our own exception, never a parser internal.
    import random

    rnd = random.Random(7)
    alphabet = "OPENCL{}[]()=;:*&|~/\\ \n\tP0x1r@,-"
    for _ in range(300):
        s = "OPENCL t\n" + "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 80)))
        with contextlib.suppress(hrf.LitmusSyntaxError):
            hrf.parse(s)
