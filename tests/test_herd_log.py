"""`hrf check --herd-log`: logs herd's companion tools (mcompare7, msum7)
read. The validator below restates the rules of their log reader
(herdtools7, tools/lexLog_tools.mll): a block starts `Test NAME KIND`; the
reader skips lines to `States N`; each state is bindings `0:r0=v;` or
`[x]=v;`; then one validation line starting Ok, No, Undef, Succeeded,
Failed or ?? (anything else aborts the whole log); then optional
Witnesses / Positive / Negative, Flag and Condition lines, then
`Time NAME secs` and key lines, until the next Test."""

import re
from pathlib import Path

import hrf
from hrf.cli import main
from hrf.herdout import read_herd_output

CORPUS = Path(__file__).resolve().parent.parent / "litmus"

_BINDING = r"\s*(?:\d+:[A-Za-z_.$][A-Za-z0-9_.]*|\[[A-Za-z_.$][A-Za-z0-9_.]*\])\s*=\s*-?\d+\s*;"
_TESTNAME = r"[A-Za-z0-9_/.\-+\[\]:]+"


def validate_herd_log(text: str) -> int:
    """The number of test blocks herd's log reader would take from `text`;
    an AssertionError where it would stop."""
    lines = text.split("\n")
    i, blocks = 0, 0
    while i < len(lines):
        m = re.fullmatch(rf"Test ({_TESTNAME})( (Allowed|Forbidden|Required))?", lines[i])
        if not m:
            assert not lines[i].startswith("Test "), f"line {i + 1}: a Test line the reader would not take"
            i += 1
            continue
        i += 1
        while not lines[i].startswith("States"):
            i += 1
        n = int(re.fullmatch(r"States (\d+)", lines[i]).group(1))
        i += 1
        for _ in range(n):
            assert re.fullmatch(rf"(?:{_BINDING})+\s*", lines[i]) or lines[i] == "", f"line {i + 1}: {lines[i]!r}"
            i += 1
        assert re.match(r"(Loop\s+)?(Undef|Succeeded|Failed|Ok|No|\?\?)", lines[i]), f"line {i + 1}: {lines[i]!r}"
        i += 1
        if lines[i] == "Witnesses":
            assert re.fullmatch(r"Positive: \d+ Negative: \d+", lines[i + 1])
            i += 2
        while lines[i].startswith(("Flag ", "Bad executions")):
            i += 1
        if lines[i].startswith("Condition "):
            i += 1
        blocks += 1
    return blocks


def test_logs_of_the_corpus_read_as_herd_reads_them(capsys):
    files = sorted(str(p) for p in (CORPUS / "hrf").glob("*.litmus")) + sorted(
        str(p) for p in (CORPUS / "rsp").glob("*.litmus")
    )
    assert main(["check", *files, "-m", "opencl-rsp", "--herd-log"]) == 0
    log = capsys.readouterr().out
    assert validate_herd_log(log) == len(files)
    # and hrf's reader of herd's logs finds the verdicts and states the results have
    got = read_herd_output_text(log)
    for f in files:
        r = hrf.check(f, "opencl-rsp")
        v = got[r.name.split("|")[0]]
        assert (v.ok, v.observed) == (r.condition_holds, tuple(r.observation[1:]))
        assert v.states == r.outcomes and bool(v.flags) == bool(r.racy)


def read_herd_output_text(text):
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".out", delete=False) as f:
        f.write(text)
    return read_herd_output(f.name)


def test_a_run_cut_by_a_limit_does_not_break_the_log(capsys):
    # One test cut short (max-candidates 1) between two complete ones: its
    # block says ?? where Ok or No would be; the reader takes all three.
    fig6 = str(CORPUS / "hrf" / "hrf14-fig6.litmus")
    big = str(CORPUS / "rsp" / "corrupt-mp.litmus")
    assert main(["check", fig6, big, fig6, "-m", "opencl", "--herd-log", "--max-candidates", "1"]) == 0
    log = capsys.readouterr().out
    assert validate_herd_log(log) == 3
    assert "\n??\n" in log and "Undetermined" not in log and "Limit" not in log


def test_memory_locations_are_bracketed_registers_not():
    r = hrf.check(CORPUS / "hrf" / "hrf14-fig6.litmus", "hrf-direct")
    log = r.to_herd_log()
    assert log.startswith("Test hrf14-fig6 Required\nStates 1\n1:R2=1; 2:R3=1;\nOk\n")
    t = "OPENCL m\n{ [x]=0; }\nP0@wg 0, dev 0 (global int* x) { *x = 1; }\nexists (x=1)\n"
    assert "[x]=1;" in hrf.check(t, "sc").to_herd_log()


def test_witnesses_of_a_negated_condition_count_it_as_herd_does():
    # herd 2015 on herd's MP_relcon_addr (`~exists (1:r0=1 /\ 1:r1=0)`, two
    # executions, neither satisfies the proposition): `Positive: 2
    # Negative: 0` (the condition as written, ~p, holds in both) and
    # `Observation MP_relcon_addr Never 0 2` (p holds in none). The same
    # shape, with acquire for consume:
    t = """C MP_relacq_addr
{}
P0 (atomic_int* y, volatile int* x) {
  *x = 1;
  atomic_store_explicit(y,1,memory_order_release);
}
P1 (atomic_int* y, volatile int* x) {
  int r0 = atomic_load_explicit(y,memory_order_acquire);
  int r1 = -1 ;
  if (r0 == 1) {
    r1 = *(x+(r0 & 2)) ;
  }
}
~exists (1:r0=1 /\\ 1:r1=0)
"""
    r = hrf.check(t, "c11")
    for text in (r.to_herd(), r.to_herd_log()):
        assert "Positive: 2 Negative: 0" in text
        assert "Observation MP_relacq_addr Never 0 2" in text
    v = read_herd_output_text(r.to_herd_log())["MP_relacq_addr"]
    assert (v.positive, v.negative, v.observed, v.holds) == (2, 0, (0, 2), True)
