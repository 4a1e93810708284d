"""PTX ([GPU15]): agreement with herd-ptx.out, the weak
outcomes the paper observed on hardware, and dependencies."""

import pytest

import hrf


def _two_threads(p0, p1, cond, same_cta=False, regs0="", regs1=""):
    rows = "\n".join(
        f" {a:28s}| {b:28s};"
        for a, b in zip(p0 + [""] * (len(p1) - len(p0)), p1 + [""] * (len(p0) - len(p1)), strict=False)
    )
    tree = (
        "(device (kernel (cta (warp P0) (warp P1))))"
        if same_cta
        else "(device (kernel (cta (warp P0)) (cta (warp P1))))"
    )
    return f"""GPU_PTX gen
{{
0:.reg .s32 r0; 0:.reg .s32 r2; 0:.reg .b64 r1 = x; 0:.reg .b64 r3 = y; {regs0}
1:.reg .s32 r0; 1:.reg .s32 r2; 1:.reg .b64 r1 = y; 1:.reg .b64 r3 = x; {regs1}
}}
 P0                          | P1                          ;
{rows}

scopeTree
{tree}

x: global, y: global

exists ({cond})
"""


# PAPER-NOTES C.2/C.3: weak outcomes observed on Nvidia hardware for tests in
# the model's fragment (.cg accesses, membar); the model must allow them.
OBSERVED = {
    "coRR intra-CTA (Fig. 1; GTX5 11642/100k)": _two_threads(
        ["mov.s32 r0,1", "st.cg.s32 [r1],r0"],
        ["ld.cg.s32 r0,[r3]", "ld.cg.s32 r2,[r3]"],
        "1:r0=1 /\\ 1:r2=0",
        same_cta=True,
    ),
    "lb inter-CTA (Table 6; Titan)": _two_threads(
        ["ld.cg.s32 r0,[r1]", "mov.s32 r2,1", "st.cg.s32 [r3],r2"],
        ["ld.cg.s32 r0,[r1]", "mov.s32 r2,1", "st.cg.s32 [r3],r2"],
        "0:r0=1 /\\ 1:r0=1",
    ),
    "mp inter-CTA (Table 6; Titan)": _two_threads(
        ["mov.s32 r0,1", "st.cg.s32 [r1],r0", "mov.s32 r2,1", "st.cg.s32 [r3],r2"],
        ["ld.cg.s32 r0,[r1]", "ld.cg.s32 r2,[r3]"],
        "1:r0=1 /\\ 1:r2=0",
    ),
    "sb inter-CTA (Table 6; Titan)": _two_threads(
        ["mov.s32 r0,1", "st.cg.s32 [r1],r0", "ld.cg.s32 r2,[r3]"],
        ["mov.s32 r0,1", "st.cg.s32 [r1],r0", "ld.cg.s32 r2,[r3]"],
        "0:r2=0 /\\ 1:r2=0",
    ),
    "lb+membar.ctas inter-CTA (related work; Titan 586/100k)": _two_threads(
        ["ld.cg.s32 r0,[r1]", "membar.cta", "mov.s32 r2,1", "st.cg.s32 [r3],r2"],
        ["ld.cg.s32 r0,[r1]", "membar.cta", "mov.s32 r2,1", "st.cg.s32 [r3],r2"],
        "0:r0=1 /\\ 1:r0=1",
    ),
}


@pytest.mark.parametrize("name", list(OBSERVED))
def test_observed_weak_outcomes_are_allowed(name):
    r = hrf.check(OBSERVED[name], "ptx")
    assert r.condition_holds is True, name


def test_dependencies_forbid_thin_air_load_buffering():
    # LB with a (fake) data dependency: r2 = (r0 & 0) + 1 depends on the
    # load, so rf;data;rf;data is a cycle of (dp | rf): no-thin-air forbids
    # the outcome that plain LB allows (above).
    data = _two_threads(
        ["ld.cg.s32 r0,[r1]", "and.b32 r2,r0,0", "add.s32 r2,r2,1", "st.cg.s32 [r3],r2"],
        ["ld.cg.s32 r0,[r1]", "and.b32 r2,r0,0", "add.s32 r2,r2,1", "st.cg.s32 [r3],r2"],
        "0:r0=1 /\\ 1:r0=1",
    )
    assert hrf.check(data, "ptx").condition_holds is False
    # The same with control dependencies: the store happens under a
    # predicate computed from the load.
    ctrl = _two_threads(
        ["ld.cg.s32 r0,[r1]", "setp.eq.s32 p,r0,7", "@!p mov.s32 r2,1", "@!p st.cg.s32 [r3],r2"],
        ["ld.cg.s32 r0,[r1]", "setp.eq.s32 p,r0,7", "@!p mov.s32 r2,1", "@!p st.cg.s32 [r3],r2"],
        "0:r0=1 /\\ 1:r0=1",
    )
    assert hrf.check(ctrl, "ptx").condition_holds is False


def test_ptx_syntax_errors():
    bad = _two_threads(["mov.s32 r0,1", "st.cg.s32 [r1] r0"], ["ld.cg.s32 r0,[r1]"], "1:r0=1")
    with pytest.raises(hrf.LitmusSyntaxError) as ei:
        hrf.parse(bad)
    assert ei.value.line == 8 and "unexpected" in str(ei.value)  # the second instruction row
    bad = _two_threads(["membar.warp"], ["ld.cg.s32 r0,[r1]"], "1:r0=1")
    with pytest.raises(hrf.LitmusSyntaxError, match="membar needs one of"):
        hrf.parse(bad)


def test_ptx_cas_returns_old_value():
    # atom.cas r0,[x],0,1 on x = 0 returns 0 and sets x = 1 (PTX semantics,
    # unlike OpenCL's boolean): by hand, the one outcome is r0 = 0, x = 1.
    text = _two_threads(["atom.cas.b32 r0,[r1],0,1"], ["mov.s32 r0,0"], "0:r0=0 /\\ x=1")
    r = hrf.check(text, "ptx")
    assert r.outcomes == [{"0:r0": 0, "x": 1}]


def test_ptx_refuses_what_it_would_read_as_plain():
    # [GPU15]'s model has membar and relaxed atom only: a Dat3M PTX test's
    # ld.acquire / st.release, or a C atomic with memory_order_seq_cst, would
    # be read as a plain or relaxed access -- a weaker program, silently.
    dat3m = """PTX MP-rel-acq
{ x=0; y=0; }
 P0@cta 0,gpu 0              | P1@cta 1,gpu 0              ;
 st.weak x, 1                | ld.acquire.gpu r0, y        ;
 st.release.gpu y, 1         | ld.weak r1, x               ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
"""
    with pytest.raises(hrf.UnsupportedFeature, match="Dat3M PTX test: use ptx-6.0 or ptx-7.5"):
        hrf.check(dat3m, "ptx")
    assert hrf.check(dat3m, "ptx-6.0").condition_holds is False
    opencl = """OpenCL MP-sc
{ x=0; y=0; }
P0 (global atomic_int* x, global atomic_int* y) {
  atomic_store_explicit(x, 1, memory_order_relaxed);
  atomic_store(y, 1);
}
P1 (global atomic_int* x, global atomic_int* y) {
  int r0 = atomic_load(y);
  int r1 = atomic_load_explicit(x, memory_order_relaxed);
}
scopeTree (device (work_group P0) (work_group P1))
exists (1:r0=1 /\\ 1:r1=0)
"""
    with pytest.raises(hrf.UnsupportedFeature, match="P0: the PTX model has no memory_order sc") as ei:
        hrf.check(opencl, "ptx")
    assert ei.value.line == 5
