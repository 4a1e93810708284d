"""herd's comments are comments in every dialect, every reader and every
place a comment may stand: `(* ... *)` outside C code (nested, as OCaml's),
C's own inside it. A comment's text, thread headers included, never
changes what is read."""

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hrf
import lalr
from hrf.litmus.machine import parse_machine_ast
from hrf.litmus.opencl import parse_opencl
from hrf.litmus.ptx import parse_ptx

ROOT = Path(__file__).resolve().parent.parent
OPENCL = [ROOT / "litmus/hrf/hrf14-fig6.litmus", ROOT / "litmus/rsp/corrupt-mp.litmus"]
MACHINE = [ROOT / "litmus/machine/corrupt-mp-rsp-old.litmus"]
PTX = """GPU_PTX MP
{
0:.reg .s32 r0;
0:.reg .b64 r1 = x;
0:.reg .b64 r3 = y;
1:.reg .s32 r0;
1:.reg .s32 r2;
1:.reg .b64 r1 = y;
1:.reg .b64 r3 = x;
}
 P0                | P1                ;
 mov.s32 r0,1      | ld.cg.s32 r0,[r1] ;
 st.cg.s32 [r1],r0 | ld.cg.s32 r2,[r3] ;
 st.cg.s32 [r3],r0 |                   ;

scopeTree
(device (kernel (cta (warp P0)) (cta (warp P1))))
x: global, y: global
exists (1:r0=1 /\\ 1:r2=0)
"""


def test_a_comment_naming_a_thread_before_the_init_block():
    # Before: "unexpected '('" at the comment's first line (the reader took
    # `P1 (client)` for the first thread).
    text = (ROOT / "litmus/hrf/hrf14-fig6.litmus").read_text()
    head, rest = text.split("\n", 1)
    with_comment = f"{head}\n(* a\n   P1 (client) b *)\n{rest}"
    assert hrf.parse(with_comment) == hrf.parse(text)


def readers(text: str):
    """What hrf's reader and the reference make of the text (a machine
    test's instructions without the lines and columns they were read at)."""
    if text.startswith("GPU_MACHINE"):
        return [re.sub(r"\b(line|col|lines)=\d+", "", repr(parse_machine_ast(text)))]
    if text.startswith("GPU_PTX"):
        return [parse_ptx(text), lalr.parse_ptx(text)]
    return [parse_opencl(text), lalr.parse_opencl(text)]


def places(text: str) -> list[int]:
    """Line boundaries where a `(* *)` comment may stand: every one outside
    a C thread body (its lines are C code, where `(*x)` is C)."""
    out, depth = [], 0
    for i, line in enumerate(text.split("\n")):
        if depth == 0 and not line.lstrip().startswith("{") or not text.startswith(("OpenCL", "OPENCL", "C ")):
            out.append(i)
        if text.startswith(("OpenCL", "OPENCL", "C ")) and line.lstrip().startswith("P"):
            depth += 1
        if depth and line.strip() == "}":
            depth = 0
            out.append(i + 1)
    return sorted({i for i in out if i >= 1})


# comment text: anything but the delimiters themselves, with thread headers
# and the framework's keywords likely
WORDS = st.sampled_from(
    ["P0", "P1 (client)", "P0@wg 0, dev 0", "P1@cta 0,gpu 0", "{", "}", "exists", "forall", "~exists", ";", "|"]
    + ["scopeTree", "(device", ")", "x: global", "locations [x;]", '"quoted"', "(", "*", "\n", "  "]
)
BODY = st.lists(st.one_of(WORDS, st.text(alphabet=st.characters(blacklist_characters="()*"), max_size=8)))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(range(len(OPENCL) + len(MACHINE) + 1)), BODY, st.booleans(), st.data())
def test_any_text_in_a_comment_anywhere_reads_as_no_comment(which, words, nested, data):
    paths = OPENCL + MACHINE
    text = paths[which].read_text() if which < len(paths) else PTX
    inner = " ".join(words)
    comment = f"(* {inner} (* {inner} *) *)" if nested else f"(* {inner} *)"
    lines = text.split("\n")
    at = data.draw(st.sampled_from(places(text)))
    inline = data.draw(st.booleans()) and at > 0 and lines[at - 1].strip()
    if inline:  # at the end of the line before: `{ [x]=0; (* ... *)`
        lines[at - 1] += " " + comment
    else:
        lines.insert(at, comment)
    base = readers(text)
    got = readers("\n".join(lines))
    assert got == base
    if text.startswith("GPU_MACHINE"):
        return
    assert hrf.check("\n".join(lines), "sc").outcomes == hrf.check(text, "sc").outcomes


@pytest.mark.parametrize("comment", ["/* P1 (client) { exists */", "// P1@wg 0 (global int* x) {"])
def test_c_comments_inside_and_between_threads(comment):
    for path in OPENCL:
        text = path.read_text()
        lines = text.split("\n")
        base = hrf.parse(text)
        for at in range(1, len(lines)):
            assert hrf.parse("\n".join([*lines[:at], comment, *lines[at:]])) == base, (path, at)


def test_an_unclosed_comment_is_a_located_error():
    text = (ROOT / "litmus/hrf/hrf14-fig6.litmus").read_text()
    head, rest = text.split("\n", 1)
    with pytest.raises(hrf.LitmusSyntaxError) as e:
        hrf.parse(f"{head}\n(* never closed (* *)\n{rest}")
    assert e.value.line is not None
