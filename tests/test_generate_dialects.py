"""`hrf generate` and `hrf compare` in Dat3M's PTX and Vulkan dialects:
the tests are written in the dialect, read back by its reader (one text,
one AST), judged by the dialect's models; verdicts derived by hand."""

import subprocess
import sys

import pytest

import hrf
from hrf.generate import generate
from hrf.litmus.dat3m_print import to_dat3m


def by_name(tests, name):
    (t,) = [t for t in tests if t.name == name]
    return t


@pytest.mark.parametrize("dialect,scopes", [("ptx", "cta,gpu"), ("vulkan", "wg,dv")])
def test_a_family_reads_back_as_written(dialect, scopes):
    tests = generate(cycle="MP", orders="na,rlx,acq,rel", scopes=scopes, dialect=dialect, trees=("same-wg",))
    assert len(tests) == 5**4  # na, rlx and two scopes of one order: 5 per access (acq writes, rel reads dropped)
    for t in tests:
        text = to_dat3m(t, t.arch)
        again = hrf.parse(text)
        assert again.arch == t.arch == dialect.upper() and to_dat3m(again, again.arch) == text


def test_ptx_message_passing_by_scope():
    # MP, the flag a release/acquire pair, the data weak, two CTAs: at gpu
    # scope each thread is in the other's scope, the pair is morally strong
    # and synchronises, so the data read must see the data write (Causality:
    # fr; cause would be reflexive); at cta scope it is not: allowed.
    tests = generate(cycle="MP", orders="na,rel,acq", scopes="cta,gpu", dialect="ptx", trees=("wg-per-thread",))
    gpu = by_name(tests, "MP+weak_rel.gpu_acq.gpu_weak+wg-per-thread")
    cta = by_name(tests, "MP+weak_rel.cta_acq.cta_weak+wg-per-thread")
    assert "st.release.gpu y, 1" in to_dat3m(gpu, "PTX") and "P1@cta 1,gpu 0" in to_dat3m(gpu, "PTX")
    for model in ("ptx-6.0", "ptx-7.5"):
        assert hrf.check(gpu, model).condition_holds is False
        assert hrf.check(cta, model).condition_holds is True


def test_vulkan_message_passing_by_scope():
    # The same in Vulkan: the release makes the non-private data write
    # available (semav), the acquire makes it visible (semvis), at device
    # scope across work groups: the data is location-ordered, forbidden and
    # race-free. At work-group scope across work groups the pair is not in
    # scope: the data accesses are unordered, a data race (and allowed);
    # within one work group, work-group scope suffices again.
    tests = generate(cycle="MP", orders="na,rel,acq", scopes="wg,dv", dialect="vulkan")
    dv = hrf.check(by_name(tests, "MP+nonpriv_rel.dv_acq.dv_nonpriv+wg-per-thread"), "vulkan")
    assert dv.condition_holds is False and not dv.flags
    wg = hrf.check(by_name(tests, "MP+nonpriv_rel.wg_acq.wg_nonpriv+wg-per-thread"), "vulkan")
    assert wg.condition_holds is True and [f["check"] for f in wg.flags] == ["data_race"]
    same = hrf.check(by_name(tests, "MP+nonpriv_rel.wg_acq.wg_nonpriv+same-wg"), "vulkan")
    assert same.condition_holds is False and not same.flags


def test_ptx_load_buffering_with_dependencies():
    # LB, weak accesses in one CTA. ptx-v6.0's NoThinAir is acyclic (rf |
    # dep): with a data (or control) dependency from each read to the write
    # after it, both reads seeing 1 closes rf; dep; rf; dep: forbidden. With
    # program order only, nothing forbids it: allowed. The data dependency
    # is written r * 0 + 1 (the dialect has no xor), read back as written.
    def lb(edge):
        (t,) = generate(cycle=f"{edge} Rfe {edge} Rfe", orders="na", scopes="cta", dialect="ptx", trees=("same-wg",))
        return t

    data, ctrl, po = lb("DpDatadW"), lb("DpCtrldW"), lb("PodRW")
    text = to_dat3m(data, "PTX")
    assert "mul r100, r0, 0" in text and "add r100, r100, 1" in text and "st.weak y, r100" in text
    assert to_dat3m(hrf.parse(text), "PTX") == text
    assert "bne r0, 1, LC00" in to_dat3m(ctrl, "PTX")
    for model in ("ptx-6.0", "ptx-7.5"):
        assert hrf.check(data, model).condition_holds is False
        assert hrf.check(ctrl, model).condition_holds is False
        assert hrf.check(po, model).condition_holds is True


@pytest.mark.parametrize(
    "kw,words",
    [
        ({"dialect": "vulkan", "orders": "na,sc"}, "vulkan has no sc accesses"),
        ({"dialect": "ptx", "scopes": "wg,qf"}, "scopes: unknown .qf.; known: cta, gpu, sys"),
        ({"dialect": "ptx", "cycle": "Rfe DpAddrdW Rfe DpAddrdW"}, "ptx names locations only"),
        ({"dialect": "vulkan", "cycle": "Rfe FenceScdRR Fre FenceScdWW"}, "vulkan has no sc fence"),
        ({"dialect": "ptx", "regions": "local"}, "global memory only"),
        ({"dialect": "ptx", "remote": True}, "no remote scope promotion"),
        ({"dialect": "cuda"}, "unknown 'cuda'"),
    ],
)
def test_what_a_dialect_lacks_is_refused_by_name(kw, words):
    kw = {"orders": "na,rel", "scopes": "cta,gpu" if kw.get("dialect") == "ptx" else "wg,dv", **kw}
    with pytest.raises(hrf.InvalidArgument, match=words):
        generate(count=2, **kw)


def test_the_command_line_writes_tests_hrf_checks(tmp_path):
    cmd = [sys.executable, "-m", "hrf", "generate", "--dialect", "vulkan", "--cycle", "SB", "--count", "4"]
    subprocess.run([*cmd, "--out", str(tmp_path)], check=True, capture_output=True)
    files = sorted(tmp_path.glob("*.litmus"))
    assert len(files) == 4 and all(f.read_text().startswith("VULKAN SB+") for f in files)
    for f in files:
        assert hrf.check(f, "vulkan").complete
