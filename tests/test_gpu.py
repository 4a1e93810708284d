"""`hrf run` on the CPU side: the CUDA it generates, where it places
threads, the SASS check on listings recorded on an H100, the litmus7 log
and the comparison with a model. The runs themselves need a GPU
(benchmarks/gpu_check.sh); the test at the end skips without one."""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hrf.cli import main
from hrf.errors import InvalidArgument, UnsupportedFeature
from hrf.gpu import NotRunnable, Setting, cuda_source, load_setting, prepare
from hrf.gpu.cuda import standalone
from hrf.gpu.lower import lower, observed_vars
from hrf.gpu.placement import WARP, Permutation, Shape, draw, geometry, position, role_of
from hrf.gpu.report import build, compare
from hrf.gpu.runtime import DeviceInfo, RunCounts
from hrf.gpu.sass import check, functions
from hrf.herdout import read_herd_output
from hrf.litmus import ast as A
from hrf.litmus import parse_file, parse_text

ROOT = Path(__file__).resolve().parent.parent
LITMUS = ROOT / "litmus"
SASS = Path(__file__).parent / "data" / "sass"
GOLDEN = Path(__file__).parent / "golden" / "gpu"


# ------------------------------------------------------------ generated CUDA
@pytest.mark.parametrize("golden", sorted(GOLDEN.glob("*.cu")), ids=lambda p: p.stem)
def test_generated_cuda_matches_the_reviewed_golden(golden):
    """The reviewed sources, the kernels and the standalone driver's tables
    (regenerate: hrf run --emit-cuda DIR TEST, then copy DIR/NAME.cu here)."""
    name = golden.read_text().splitlines()[0].split(": ", 1)[1]
    (path,) = LITMUS.rglob(name)
    lt, shape = prepare(parse_file(path))
    assert standalone(lt, shape, Setting()) == golden.read_text()


def _shipped():
    for f in sorted(LITMUS.rglob("*.litmus")):
        if f.parent.name == "machine":  # machine code, not tests
            continue
        t = parse_file(f)
        if t.arch in ("GPU_PTX", "PTX", "OpenCL", "C"):
            yield f


def runnable_shipped() -> list:
    """(path, lowered test, shape) of every shipped test `hrf run` runs."""
    out = []
    for f in _shipped():
        try:
            out.append((f, *prepare(parse_file(f))))
        except NotRunnable:
            continue
    return out


@pytest.mark.parametrize("path", list(_shipped()), ids=lambda p: str(p.relative_to(LITMUS)))
def test_every_shipped_test_lowers_or_is_refused_by_name(path):
    t = parse_file(path)
    try:
        src = cuda_source(t)
    except NotRunnable as e:
        assert str(e).startswith("cannot run on a GPU: ")
        return
    lt = lower(t)
    for th in lt.threads:  # each thread's function, with each access's instruction in its PTX
        assert f"void hrf_{th.name}(" in src
        for a in th.accesses:
            assert f'"{a.ptx}' in src
    # and the opaque-pointer move, the mbarriers' initialisation where there are any, the
    # cluster's barrier between the phases (a cluster with shared memory), the other
    # threads' rounds of the cluster barrier (a test that passes it)
    phases = lt.cluster and bool(lt.shared)
    assert src.count("asm volatile(") == len(lt.threads) + 1 + bool(lt.mbarriers) + phases + any(lt.cluster_rounds)


def test_c_atomics_follow_the_ptx_abi_mapping():
    """The atomics ABI's mapping (hrf.mappings.ptx_abi, as libcu++ emits
    it): seq_cst store = fence.sc + st.relaxed (the fence.sc releases),
    seq_cst load = fence.sc + ld.acquire, at the access's scope."""
    lt = lower(parse_file(LITMUS / "hrf" / "hrf14-fig5-diff-wg.litmus"))
    assert [a.ptx for a in lt.threads[0].accesses] == [
        "fence.sc.cta",
        "st.relaxed.cta.global.u32",
        "fence.sc.gpu",
        "ld.acquire.gpu.global.u32",
    ]


def test_gpu15_instructions_are_kept_as_written():
    lt = lower(parse_file(LITMUS / "gpu15" / "MP+membar.gl.litmus"))
    assert [a.ptx for a in lt.threads[1].accesses] == ["ld.cg.global.u32", "membar.gl", "ld.cg.global.u32"]


def test_each_access_has_its_own_address_operand():
    """CoRR's two loads of x: two operands, which keeps them apart in the SASS."""
    lt = lower(parse_file(LITMUS / "gpu15" / "CoRR.litmus"))
    assert lt.threads[1].locs == ["x", "x"]


@pytest.mark.parametrize(
    "text, words",
    [
        (
            "P0 (global atomic_int* x) { atomic_store_explicit_remote(x, 1, memory_order_release, memory_scope_device); }",
            "remote-scope promotion",
        ),
        (  # P1 never reaches the work-group's barrier: on a GPU, P0 would wait forever
            "P0@wg 0, dev 0 (global int* x) { barrier(CLK_GLOBAL_MEM_FENCE); }\n"
            "P1@wg 0, dev 0 (global int* x) { *x = 1; }",
            "barrier divergence",
        ),
        (
            "P0@wg 0, dev 0 (global int* x) { while (*x == 0) { barrier(CLK_GLOBAL_MEM_FENCE); } }\n"
            "P1@wg 0, dev 0 (global int* x) { *x = 1; }",
            "a barrier in P0, which branches or loops",
        ),
        (
            "P0@wg 0, dev 0 (local int* x) { *x = 1; }\nP1@wg 1, dev 0 (local int* x) { *x = 2; }",
            r"x is in shared memory, which one CTA holds, and P0, P1 are in 2 CTAs",
        ),
    ],
)
def test_what_has_no_lowering_is_refused_by_name(text, words):
    t = parse_text(f"OpenCL T\n{{ x=0; }}\n{text}\nexists (x=1)\n")
    with pytest.raises(NotRunnable, match=words):
        lower(t)


def test_threads_on_two_devices_are_refused():
    with pytest.raises(NotRunnable, match="several devices"):
        prepare(parse_file(LITMUS / "hrf" / "hrfr15-fig3-two-devices.litmus"))


def test_emit_cuda_writes_one_source_per_test(tmp_path, capsys):
    rc = main(["run", "--emit-cuda", str(tmp_path), str(LITMUS / "gpu" / "MP+rlx-gpu.litmus")])
    assert rc == 0
    assert (tmp_path / "MP+rlx-gpu.cu").read_text().startswith("// MP+rlx-gpu:")


def test_emit_cuda_into_a_file_is_a_located_error(tmp_path, capsys):
    f = tmp_path / "taken"
    f.write_text("")
    assert main(["run", "--emit-cuda", str(f), str(LITMUS / "gpu" / "MP+rlx-gpu.litmus")]) == 2
    assert f"cannot write the CUDA sources into {f}: " in capsys.readouterr().err


def test_emit_cuda_replaces_links_and_fifos_of_its_names_and_writes_through_none(tmp_path, capsys):
    # A source's name linked to a file outside the folder was written
    # through (the file outside overwritten); a fifo of a header's name
    # waited for a reader for ever. Each name is now replaced.
    outside = tmp_path / "outside.txt"
    outside.write_text("mine\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "MP+rlx-gpu.cu").symlink_to(outside)
    os.mkfifo(out / "hrf_driver.h")
    assert main(["run", "--emit-cuda", str(out), str(LITMUS / "gpu" / "MP+rlx-gpu.litmus")]) == 0
    assert outside.read_text() == "mine\n"
    cu = out / "MP+rlx-gpu.cu"
    assert not cu.is_symlink() and cu.read_text().startswith("// MP+rlx-gpu:")
    assert (out / "hrf_driver.h").is_file() and not any(p.name.startswith(".") for p in out.iterdir())
    (out / "hrf_emulate.h").unlink()
    (out / "hrf_emulate.h").mkdir()  # a folder of a header's name: an error, named
    assert main(["run", "--emit-cuda", str(out), str(LITMUS / "gpu" / "MP+rlx-gpu.litmus")]) == 2
    assert "hrf_emulate.h is a folder" in capsys.readouterr().err


def test_a_misspelt_model_is_an_error_before_anything_runs(capsys, monkeypatch):
    import hrf.gpu.runtime as rt

    def no_gpu():  # pragma: no cover - must not be reached
        raise AssertionError("the GPU was asked for before the models were read")

    monkeypatch.setattr(rt, "cupy_module", no_gpu)
    rc = main(["run", "-m", "ptx-7.5", "-m", "ptx-75", str(LITMUS / "gpu" / "MP+rlx-gpu.litmus")])
    assert rc != 0 and "unknown model 'ptx-75'" in capsys.readouterr().err


def test_check_code_without_a_compiler_is_one_clear_line(capsys, monkeypatch):
    import builtins

    import hrf.gpu.sass as sass

    monkeypatch.setattr(sass, "tool", lambda name: None)
    real_import = builtins.__import__

    def no_cupy(name, *args, **kw):
        if name.startswith("cupy"):
            raise ImportError("No module named 'cupy'")
        return real_import(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", no_cupy)
    rc = main(["run", "--check-code", str(LITMUS / "gpu" / "MP+rlx-gpu.litmus")])
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and "no compiler for the kernel of MP+rlx-gpu.cu: nvcc" in line and "hrf[nvcc]" in line
    with pytest.raises(SystemExit):
        main(["run", "--check-code", "--arch", "90", str(LITMUS / "gpu" / "MP+rlx-gpu.litmus")])
    assert "a GPU architecture such as sm_80" in capsys.readouterr().err


def test_run_without_a_gpu_is_one_clear_line(capsys, monkeypatch):
    import hrf.gpu.runtime as rt

    def no_gpu():
        raise rt.NoGpu("hrf run needs CuPy and an NVIDIA GPU: pip install 'hrf[cuda]' (no module named cupy)")

    monkeypatch.setattr(rt, "cupy_module", no_gpu)
    rc = main(["run", str(LITMUS / "gpu" / "MP+rlx-gpu.litmus")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and len(err) == 1 and "hrf[cuda]" in err[0]


# ------------------------------------------------------------ placement
@st.composite
def shapes(draw_):
    """Up to 4 CTA groups of up to 3 warp groups of up to 4 threads, numbered
    in order; or, a test with barriers (placed in whole warps), warp groups
    of one thread each and up to 7 named barriers an instance."""
    barriers = draw_(st.sampled_from([0, 0, 1, 2, 7]))
    groups, n = [], 0
    for _ in range(draw_(st.integers(1, 4))):
        cta = []
        for _ in range(draw_(st.integers(1, 3))):
            size = 1 if barriers else draw_(st.integers(1, 4))
            cta.append(tuple(range(n, n + size)))
            n += size
        groups.append(tuple(cta))
    return Shape(tuple(groups), barriers, cluster=draw_(st.booleans()))  # a cluster: its tuples move whole


@settings(max_examples=60, deadline=None)
@given(
    shapes(),
    st.integers(1, 40),
    st.sampled_from([32, 64, 128, 256]),
    st.integers(1, 8),
    st.integers(4, 32),
    st.integers(0, 2**32),
)
def test_placement_respects_the_scope_tree(shape, blocks, block, test_warps, lanes, seed):
    """Every (instance, test thread) gets its own hardware thread; threads
    the scope tree puts in one CTA share a block, others never; threads in
    one warp share a warp, other warp groups of a CTA never; and the
    device's inverse (INVERSE) finds each one back."""
    try:
        g = geometry(shape, max(blocks, shape.k), block, test_warps, lanes)
    except NotRunnable:
        return
    p = draw(g, random.Random(seed))
    n = g.instances(shape)
    threads = [t for cta in shape.groups for w in cta for t in w]
    seen = {}
    warps_of: dict = {}
    for i in range(n):
        where = {t: position(shape, g, p, i, t) for t in threads}
        for t, (b, tid) in where.items():
            assert 0 <= b < g.blocks and 0 <= tid < block
            assert (b, tid) not in seen
            seen[(b, tid)] = (i, t)
            assert role_of(shape, g, p, b, tid) == (i, t)
        for c, cta in enumerate(shape.groups):
            for h, warp in enumerate(cta):
                blocks_ = {where[t][0] for t in warp}
                warps = {where[t][1] // WARP for t in warp}
                assert len(blocks_) == 1 and len(warps) == 1
                for h2, other in enumerate(cta):
                    if h2 != h:
                        assert where[other[0]][0] == where[warp[0]][0]
                        assert where[other[0]][1] // WARP != where[warp[0]][1] // WARP
            for c2, other in enumerate(shape.groups):
                if c2 != c:
                    assert where[other[0][0]][0] != where[cta[0][0]][0]
        if shape.cluster:  # its CTAs one cluster's blocks (K consecutive), each at its rank
            for c, cta in enumerate(shape.groups):
                b0 = where[cta[0][0]][0]
                assert b0 % shape.k == c and b0 // shape.k == where[shape.groups[0][0][0]][0] // shape.k
        if shape.whole:  # its warps its own: no other instance's thread in them
            warps_of[i] = {(b, tid // WARP) for b, tid in where.values()}
    if shape.whole:
        assert g.per_block() * shape.barriers <= 15  # the named barriers of a block, the first the block's
        held = [w for ws in warps_of.values() for w in ws]
        assert len(held) == len(set(held))
    # every other hardware thread is a stress thread or idle
    for b in range(g.blocks):
        for tid in range(block):
            if (b, tid) not in seen:
                assert role_of(shape, g, p, b, tid) is None


def test_without_randomisation_the_placement_is_the_identity():
    shape = Shape((((0,),), ((1,),)))
    g = geometry(shape, 4, 64, 2, 32)
    assert draw(g, None) == Permutation(1, 0, 1, 0, 1, 0)
    assert position(shape, g, draw(g, None), 0, 1) == (1, 0)


def test_geometry_refuses_a_cta_larger_than_a_block():
    shape = Shape((tuple((t,) for t in range(5)),))
    with pytest.raises(NotRunnable, match="5 warps of one CTA"):
        geometry(shape, 8, 128, 2, 32)


# ------------------------------------------------------------ the SASS check
def _checked(test, sass):
    return check(lower(parse_file(test)), (SASS / sass).read_text())


@pytest.mark.parametrize(
    "test, sass",
    [
        (LITMUS / "gpu" / "MP+rlx-gpu.litmus", "MP+rlx-gpu.sass"),
        (LITMUS / "gpu" / "SB+fence.sc-cta.litmus", "SB+fence.sc-cta.sass"),
        (LITMUS / "gpu" / "IRIW+rlx-gpu.litmus", "IRIW+rlx-gpu.sass"),
        (LITMUS / "gpu" / "LB+rlx-gpu.litmus", "LB+rlx-gpu.sass"),
        (LITMUS / "ptx7" / "SpinMP.litmus", "SpinMP.sass"),
        (LITMUS / "ptx7" / "MP+rel-acq-gpu.litmus", "MP+rel-acq-gpu.sass"),
        # the forms kernels write: volatile (STRONG.SYS), membar.gl (MEMBAR.SC.GPU),
        # atom.inc/min/dec and red.max, .cluster accesses (STRONG.GPU on sm_90)
        (LITMUS / "ptx7" / "MP+volatile+membar.gl.litmus", "MP+volatile+membar.gl.sass"),
        (LITMUS / "gpu15" / "MP+membar.gl.litmus", "mp+membar.gls.sass"),
        # ptxas 13.5 from NVIDIA's wheels: ld.ca is LDG.E.STRONG.SM on sm_90
        (LITMUS / "gpu15" / "mp-L1.litmus", "mp-L1.sass"),
        (LITMUS / "gpu15" / "coRR-L2-L1+membar.gl.litmus", "coRR-L2-L1+membar.gl.sass"),
        # and for sm_75 (Turing), whose SASS spells the SM scope .CTA: LDG.E.STRONG.CTA
        (LITMUS / "gpu15" / "mp-L1.litmus", "mp-L1.sm_75.sass"),
        # shared memory: LDS, STS (a release's MEMBAR.ALL.CTA before), moved past the output stores
        (LITMUS / "gpu15" / "mp-volatile.litmus", "mp-volatile.sass"),
        (LITMUS / "ptx7" / "MP+shared-rel-acq-cta.litmus", "MP+shared-rel-acq-cta.sass"),
        # sm_90's mbarriers: SYNCS.ARRIVE.TRANS64.A1T0, SYNCS.PHASECHK.TRANS64 (ptxas 13.5)
        (LITMUS / "ptx8" / "MP+mbar-cta.litmus", "MP+mbar-cta.sass"),
        (LITMUS / "ptx8" / "MP+mbar-count2.litmus", "MP+mbar-count2.sass"),
        # sm_80's cp.async: LDGSTS.E (.BYPASS.128 for .cg's 16 bytes), LDGDEPBAR, DEPBAR.LE SB0, N;
        # cp.async.mbarrier.arrive: ARRIVES.LDGSTSBAR (.noinc: .ARVCNT; else a SYNCS.ARRIVE.RED first);
        # ptxas's three `@!PT LDS RZ, [RZ]` before an LDGSTS never run
        (LITMUS / "ptx8" / "cp-async-wait-group-older.litmus", "cp-async-wait-group-older.sass"),
        (LITMUS / "ptx8" / "MP+cp-async-mbar-arrive.litmus", "MP+cp-async-mbar-arrive.sass"),
        (LITMUS / "ptx8" / "MP+cp-async-mbar-noinc.litmus", "MP+cp-async-mbar-noinc.sass"),
        # sm_90's bulk async-groups: a copy to global memory UBLKCP.G.S, a bulk reduction UBLKRED.G.S.ADD
        # (each in a loop of elected lanes), the commit UTMACMDFLUSH, a wait (.read too) DEPBAR.LE SB0, N
        (LITMUS / "ptx8" / "MP+bulk-group-wait.litmus", "MP+bulk-group-wait.sass"),
        (LITMUS / "ptx8" / "MP+bulk-reduce-wait-read.litmus", "MP+bulk-reduce-wait-read.sass"),
    ],
)
def test_recorded_sass_holds_the_tests_accesses(test, sass):
    assert _checked(test, sass) == []


def test_a_cp_async_wait_missing_from_the_sass_is_found():
    # the recorded listing less its DEPBAR (the wait_group): the loads after it would
    # read the shared memory before the older group's copy is known complete
    listing = (SASS / "cp-async-wait-group-older.sass").read_text()
    cut = "\n".join(line for line in listing.splitlines() if "DEPBAR.LE" not in line)
    (why,) = check(lower(parse_file(LITMUS / "ptx8" / "cp-async-wait-group-older.litmus")), cut)
    assert why.startswith("P0: `cp.async.wait_group` should be DEPBAR.LE, found LDS (the form of the later")
    assert "LDGSTS.E LDGDEPBAR LDGSTS.E.BYPASS.128 LDGDEPBAR LDS LDS" in why


def test_a_bulk_group_wait_missing_from_the_sass_is_found():
    # the recorded listing less its DEPBAR (the wait_group): the release after it would
    # publish the flag before the copy to global memory is known complete
    listing = (SASS / "MP+bulk-group-wait.sass").read_text()
    cut = "\n".join(line for line in listing.splitlines() if "DEPBAR.LE" not in line)
    (why,) = check(lower(parse_file(LITMUS / "ptx8" / "MP+bulk-group-wait.litmus")), cut)
    assert why.startswith("P0: `cp.async.bulk.wait_group` should be DEPBAR.LE, found MEMBAR.ALL.GPU")
    assert "UBLKCP.G.S UTMACMDFLUSH CCTL.IVALL MEMBAR.ALL.GPU" in why


def test_recorded_sass_of_a_relaxed_wait_has_the_load_moved_above_it():
    # ptxas 13.5 puts P1's weak global load before its relaxed mbarrier
    # wait (nothing orders them): the code check refuses to run it as written
    (why,) = _checked(LITMUS / "ptx8" / "MP+mbar-relaxed-wait.litmus", "MP+mbar-relaxed-wait.sass")
    assert why.startswith("P1: `mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64` should be SYNCS.PHASECHK.TRYWAIT")
    assert "the two swapped" in why


# hrf's own: a lock's two spin loops on one word
SPIN_EXCH = """PTX spin-exch
"P1 takes the lock (exchange 0 until it was nonzero), then waits for it back (exchange 0 until it was 1)"
{
x=0;
P0:r0=0;
P1:r1=0;
P1:r2=0;
}
P0@cta 0,gpu 0                 | P1@cta 0,gpu 0                 ;
LC00:                          | LC10:                          ;
atom.relaxed.gpu.exch r0, x, 1 | atom.relaxed.gpu.exch r1, x, 0 ;
bne r0, 0, LC01                | bne r1, 0, LC11                ;
goto LC00                      | goto LC10                      ;
LC01:                          | LC11:                          ;
                               | atom.relaxed.gpu.exch r2, x, 0 ;
                               | bne r2, 1, LC12                ;
                               | goto LC11                      ;
                               | LC12:                          ;
exists (P1:r1 == 1)
"""


def test_a_peeled_loop_is_held_to_its_accesses_forms():
    """ptxas peels P1's first loop (recorded: its exchange compiled twice,
    the loop's test moved ahead), so P1's code is not its accesses in order;
    a thread with a loop is then held to their forms alone, and the check
    says so. A form that is no access of the thread is still refused."""
    lt = lower(parse_text(SPIN_EXCH))
    text = (SASS / "spin-exch.sass").read_text()
    notes: list = []
    assert check(lt, text, notes) == []
    assert notes == [
        "P1 loops: its accesses' forms checked, not their order (ATOMG.E.EXCH.STRONG.GPU is not an access of the test)"
    ]
    p1 = text.index("$hrf_test$hrf_P1:")
    weaker = text[:p1] + text[p1:].replace("ATOMG.E.EXCH.STRONG.GPU", "ATOMG.E.EXCH.STRONG.SM", 1)
    (problem,) = check(lt, weaker)
    assert (
        problem.startswith("P1: ") and "its accesses' forms: ATOMG.E.EXCH.STRONG.SM is the form of no access" in problem
    )
    straight = (SASS / "MP+rlx-gpu.sass").read_text()  # no loop: the order stays required
    swapped = straight.replace("LDG.E.STRONG.GPU", "LDG.E", 1)
    assert check(lower(parse_file(LITMUS / "gpu" / "MP+rlx-gpu.litmus")), swapped)


def test_an_acquiring_reduction_is_an_atom():
    """PTX's red takes .relaxed and .release alone (ptxas: "Illegal modifier
    '.acq_rel' for instruction 'red'"): Dat3M's red.acq_rel is lowered to
    atom.acq_rel into a scratch register, the same access."""
    t = parse_text(
        "PTX red-acq\n{\nx=0;\n}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n"
        " red.acq_rel.cta.add x, 1 | red.release.gpu.add x, 1 ;\nexists (x == 2)\n"
    )
    lt = lower(t)
    assert [a.ptx for th in lt.threads for a in th.accesses] == [
        "atom.acq_rel.cta.global.add.u32",
        "red.release.gpu.global.add.u32",
    ]


def test_sass_of_a_merged_load_is_refused():
    """Recorded before each access had its own address operand: the
    assembler merged CoRR's two ld.cg of x into one LDG, as [GPU15]'s
    optcheck found compilers do."""
    problems = _checked(LITMUS / "gpu15" / "CoRR.litmus", "coRR.sass")
    assert len(problems) == 1 and problems[0].startswith("P1: `ld.cg.global.u32` should be LDG/LD.GPU.STRONG")


def test_sass_with_a_fence_removed_or_a_scope_changed_is_refused():
    text = (SASS / "mp+membar.gls.sass").read_text()
    lt = lower(parse_file(LITMUS / "gpu15" / "MP+membar.gl.litmus"))
    no_fence = re.sub(r".*MEMBAR.SC.GPU.*\n", "", text, count=1)
    assert any("membar.gl" in p for p in check(lt, no_fence))
    narrower = text.replace("STG.E.STRONG.GPU", "STG.E.STRONG.SM", 1)
    assert any("st.cg" in p for p in check(lt, narrower))
    assert check(lt, text.replace("$hrf_test$hrf_P1:", "$hrf_test$hrf_Q1:")) == ["P1: no function hrf_P1 in the SASS"]


def test_sass_functions_are_read_by_name():
    funcs = functions((SASS / "MP+rlx-gpu.sass").read_text())
    assert set(funcs) == {"hrf_P0", "hrf_P1"}
    assert [i.opcode for i in funcs["hrf_P1"]][:2] == ["LDG.E.STRONG.GPU", "LDG.E.STRONG.GPU"]


# ------------------------------------------------------------ reports
DEVICE = DeviceInfo("NVIDIA H100 80GB HBM3", "sm_90", 132, 2048, 65536, "13.0", "13.2", "13.0")


def _result(path, histogram):
    lt = lower(parse_file(path))
    counts = RunCounts(
        histogram=histogram,
        instances=sum(histogram.values()),
        launches=2,
        seconds=0.5,
        instances_per_launch=sum(histogram.values()) // 2,
    )
    return build(lt, counts, DEVICE, Setting(), "ok")


def test_litmus7_log_round_trip(tmp_path):
    r = _result(LITMUS / "gpu" / "MP+rlx-gpu.litmus", {(0, 0): 600, (1, 1): 380, (1, 0): 20})
    text = r.to_litmus7()
    assert "Histogram (3 states)\n600   :>1:r0=0; 1:r1=0;\n" in text
    assert "20    *>1:r0=1; 1:r1=0;" in text
    assert "Positive: 20, Negative: 980" in text and "is validated" in text
    path = tmp_path / "gpu.log"
    path.write_text(text)
    v = read_herd_output(path)["MP+rlx-gpu"]
    assert v.kind == "Allowed" and v.ok is True
    assert v.counts == [600, 380, 20]
    assert v.states[2] == {"1:r0": 1, "1:r1": 0}
    assert (v.positive, v.negative, v.observation, v.observed) == (20, 980, "Sometimes", (20, 980))


def test_forall_counts_the_states_against_it():
    """litmus7 marks, for forall, the states that violate it, and counts
    Positive as the states that satisfy it (the Observation's first count)."""
    r = _result(LITMUS / "ptx7" / "SpinMP.litmus", {(42,): 7})
    text = r.to_litmus7()
    assert "7     :>1:r1=42;" in text and "Ok" in text and "Observation SpinMP Always 7 0" in text


def test_comparison_with_a_model():
    """Hand derivation: under `ptx`, every outcome of mp without fences is
    allowed; with membar.gl in both threads, r0=1 /\\ r2=0 is forbidden
    (the gl_constraint cycle). A histogram showing it is flagged."""
    r = _result(LITMUS / "gpu15" / "MP+membar.gl.litmus", {(0, 0): 5, (1, 1): 5, (1, 0): 2})
    allowed = [{"1:r0": a, "1:r2": b} for a, b in ((0, 0), (0, 1), (1, 1))]
    compare(r, "ptx", allowed)
    assert r.forbidden == [({"1:r0": 1, "1:r2": 0}, 2)]
    assert r.verdicts[0].unseen == [{"1:r0": 0, "1:r2": 1}]
    assert any(line.startswith("MP+membar.gl: FORBIDDEN by ptx, seen 2 times") for line in r.comparison())


def test_several_models_each_read_the_test_as_it_takes_it():
    """[GPU15]'s mp with membar.gl in both threads, read by PTX 7.5 through
    the translation (membar.gl -> fence.sc.gpu, ld.cg/st.cg -> weak): the
    two fence.sc order the pairs, so r0=1 /\\ r2=0 is forbidden there as
    under `ptx` (hand derivation: the fences' sc order puts P0's fence
    before P1's, so P1's load of x after its fence reads P0's store)."""
    from hrf.gpu import judge

    path = LITMUS / "gpu15" / "MP+membar.gl.litmus"
    r = _result(path, {(0, 0): 5, (1, 1): 5, (1, 0): 2})
    for m in ("ptx", "ptx-7.5", "ptx-6.0"):
        judge(r, parse_file(path), m)
    assert [(v.model, v.read_as) for v in r.verdicts] == [("ptx", None), ("ptx-7.5", "PTX"), ("ptx-6.0", "PTX")]
    for v in r.verdicts:
        assert v.forbidden == [({"1:r0": 1, "1:r2": 0}, 2)]
    assert r.model == "ptx, ptx-7.5, ptx-6.0" and r.forbidden == [({"1:r0": 1, "1:r2": 0}, 2)]
    lines = r.comparison()
    assert "MP+membar.gl: FORBIDDEN by ptx-7.5 (the test read as PTX), seen 2 times: 1:r0=1; 1:r2=0;" in lines
    d = r.to_json()
    assert [m["model"] for m in d["models"]] == ["ptx", "ptx-7.5", "ptx-6.0"] and d["models"][1]["read_as"] == "PTX"


def test_a_racy_test_s_states_violate_no_model():
    """[HRF14] Fig. 5 under HRF-direct: with wi1 and wi2 in one work-group
    the four synchronising accesses are totally ordered, and rB = rA = 0 is
    forbidden (the paper: "A = B = 0 not allowed"); in different
    work-groups the work-group-scoped accesses race ("racey"), and a racy
    program has no meaning under HRF-direct: the same state seen there is
    no violation, and the comparison says why."""
    from hrf.gpu import judge

    same = LITMUS / "hrf" / "hrf14-fig5-same-wg.litmus"
    r = _result(same, {(0, 0): 3, (1, 1): 5})
    judge(r, parse_file(same), "hrf-direct")
    assert r.forbidden == [({"0:rB": 0, "1:rA": 0}, 3)] and not r.verdicts[0].racy
    diff = LITMUS / "hrf" / "hrf14-fig5-diff-wg.litmus"
    r = _result(diff, {(0, 0): 3, (1, 1): 5})
    judge(r, parse_file(diff), "hrf-direct")
    (v,) = r.verdicts
    assert v.racy and v.forbidden == [({"0:rB": 0, "1:rA": 0}, 3)] and v.violations == [] and r.forbidden == []
    (line,) = r.comparison()
    assert line.startswith("hrf14-fig5-diff-wg: racy under hrf-direct: a race is undefined behaviour there")
    assert r.to_json()["models"][0]["racy"] is True


def test_a_model_without_a_verdict_is_a_note_not_a_comparison():
    from hrf.gpu import judge

    path = LITMUS / "gpu" / "MP+rlx-gpu.litmus"
    r = _result(path, {(0, 0): 5})
    judge(r, parse_file(path), "ptx")  # [GPU15]'s 2015 model refuses Dat3M's PTX, and no translation helps
    assert r.verdicts == [] and r.forbidden == [] and r.model is None
    assert r.notes and r.notes[0].startswith("the model ptx gave no verdict (")


def test_a_log_compared_with_models(tmp_path, capsys):
    """`hrf run --log`: a run's log read back and judged, no GPU needed."""
    path = LITMUS / "gpu15" / "MP+membar.gl.litmus"
    log = tmp_path / "gpu.log"
    log.write_text(_result(path, {(0, 0): 5, (1, 1): 5, (1, 0): 2}).to_litmus7())
    rc = main(["run", "--log", str(log), "-m", "ptx", "-m", "ptx-7.5", str(path)])
    out = capsys.readouterr().out
    assert rc == 1
    assert "MP+membar.gl: FORBIDDEN by ptx, seen 2 times: 1:r0=1; 1:r2=0;" in out
    assert "MP+membar.gl: 2 of 3 seen states allowed by ptx-7.5 (the test read as PTX); 1 forbidden" in out
    log.write_text(_result(path, {(0, 0): 5, (1, 1): 5}).to_litmus7())
    assert main(["run", "--log", str(log), "-m", "ptx-7.5", "--json", str(path)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["models"][0]["forbidden"] == [] and d["instances"] == 10 and d["observation"] == ["Never", 0, 10]


def test_a_log_that_is_no_run_s_histogram_is_refused_by_name(tmp_path, capsys):
    path = LITMUS / "gpu" / "MP+rlx-gpu.litmus"
    good = _result(path, {(0, 0): 5, (1, 1): 5}).to_litmus7()
    log = tmp_path / "gpu.log"
    for text, words in (
        (good.replace("Histogram (2 states)", "Histogram (3 states)"), "its histogram announces 3 states and lists 2"),
        (good.replace("Histogram (2 states)", "Histogram (1 states)"), "its histogram announces 1 states and lists 2"),
        (good.replace("1:r1=", "1:r7="), "a state names no 1:r1 (the test observes 1:r0, 1:r1)"),
        (hrf_check_log(path), "has no histogram (a model's `States` list, not a run's)"),
    ):
        log.write_text(text)
        assert main(["run", "--log", str(log), "-m", "ptx-7.5", str(path)]) == 2
        assert words in capsys.readouterr().err
    log.write_text(good)
    assert main(["run", "--log", str(log), "-m", "ptx-7.5", str(LITMUS / "gpu" / "SB+rlx-gpu.litmus")]) == 1
    assert "no histogram of SB+rlx-gpu (its tests: MP+rlx-gpu)" in capsys.readouterr().err
    assert main(["run", "--log", str(log), str(path)]) == 2
    assert "give -m MODEL" in capsys.readouterr().err


def hrf_check_log(path) -> str:
    import hrf

    return hrf.check(path, "ptx-7.5").to_herd_log()


def test_json_has_the_device_and_the_incantations():
    r = _result(LITMUS / "gpu" / "SB+rlx-gpu.litmus", {(0, 0): 1, (1, 1): 3})
    d = json.loads(json.dumps(r.to_json()))
    assert d["device"]["name"] == DEVICE.name and d["incantations"]["block"] == Setting().block
    assert d["observation"] == ["Sometimes", 1, 3]


def test_hardware_rows_in_the_store(tmp_path):
    from hrf.store import Store

    r = _result(LITMUS / "gpu" / "SB+rlx-gpu.litmus", {(0, 0): 1, (1, 1): 3})
    with Store(tmp_path / "r.db") as s:
        s.add_hardware(r)
        rows = s.hardware_rows()
    assert rows[0]["test"] == "SB+rlx-gpu" and rows[0]["instances"] == 4 and rows[0]["positive"] == 1


# ------------------------------------------------------------ the hardware's observations
HARDWARE = Path(__file__).parent / "data" / "hardware"
SHIPPED_RUNS = ("litmus/gpu", "litmus/ptx7", "litmus/gpu15", "litmus/hrf")  # the shipped tests a record may name


def hardware_rows(folders: tuple[str, ...]) -> list[dict]:
    """The device runs recorded in tests/data/hardware (one JSON file a
    run of benchmarks/gpu_check.sh) whose tests come from these folders."""
    rows = []
    for f in sorted(HARDWARE.glob("*.json")):
        for row in json.loads(f.read_text())["runs"]:
            if row["from"] in folders:
                rows.append(row | {"record": f.name})
    return rows


def weak_state_allowed(test, model) -> bool:
    """Whether `model` allows the state the condition's proposition names
    (the test read as the model takes it). The proposition must fix every
    observed variable (a conjunction of equalities), so that one state is
    meant."""
    import hrf
    from hrf.litmus.translate import read_as_by
    from hrf.models import get as get_model

    prop = test.condition.prop
    atoms = list(prop.props) if isinstance(prop, A.PAnd) else [prop]
    assert all(isinstance(a, A.PAtom) for a in atoms), test.name
    assert {a.var for a in atoms} == set(observed_vars(test)), test.name
    read, _ = read_as_by(test, get_model(model))
    r = hrf.check(read, model)
    assert r.complete and r.error is None
    if r.racy:  # no meaning under the model: nothing the hardware shows contradicts it
        return True
    return any(A.prop_holds(prop, o) for o in r.outcomes)


def states_not_allowed(row: dict, r) -> list[dict]:
    """The states a hardware record's row saw that the check result `r`
    (the model's outcomes) does not allow, each a whole outcome."""
    allowed = [dict(o) for o in r.outcomes]
    return [s["outcome"] for s in row["states"] if s["outcome"] not in allowed]


def test_the_hardware_records_are_whole():
    rows = hardware_rows((*SHIPPED_RUNS, "ptx-asplos15"))
    assert len(rows) >= 35
    for row in rows:
        assert (row["weak"] > 0) == (row["observation"] != "Never") and 0 <= row["weak"] <= row["instances"]
        assert row["forbidden_seen"] == 0 and row["code"].startswith("ok")


@pytest.mark.parametrize(
    "row",
    [r for r in hardware_rows(SHIPPED_RUNS) if r["weak"]],
    ids=lambda r: f"{r['record']}:{r['test']}",
)
def test_every_weak_outcome_the_hardware_showed_is_allowed_by_ptx_6_and_7_5(row):
    """docs/hardware.md's device runs: a test whose weak outcome the GPU
    showed (weak > 0) has it allowed by PTX 6.0 and PTX 7.5, a [GPU15] test
    by `ptx` too, an OpenCL test (run through the atomics ABI) by `opencl`
    and [HRF14]'s models where it is race-free under them (a test that
    never showed it asks nothing of a model: not seeing is no proof)."""
    test = parse_file(ROOT / row["from"] / f"{row['test']}.litmus")
    from hrf.gpu import judges

    judged = 0
    for model in judges(test.arch):
        try:
            allowed = weak_state_allowed(test, model)
        except UnsupportedFeature:  # a model that does not take the test (hrf-direct: seq_cst only) gives no verdict
            continue
        assert allowed, (row["test"], model)
        judged += 1
    assert judged, row["test"]


# ------------------------------------------------------------ settings
def test_setting_files(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"setting": {"block": 256, "stress": True}}))
    assert load_setting(str(f)) == Setting(block=256, stress=True)
    f.write_text(json.dumps({"blok": 256}))
    with pytest.raises(InvalidArgument, match="unknown incantations blok"):
        load_setting(str(f))
    f.write_text(json.dumps({"block": "big"}))
    with pytest.raises(InvalidArgument, match="block is a int"):
        load_setting(str(f))
    with pytest.raises(InvalidArgument, match="block 100"):
        Setting(block=100)


def test_tuning_samples_every_incantation():
    """Each parameter tuning varies takes more than one value over a few
    hundred samples, and every sample is a valid setting (Setting checks)."""
    from dataclasses import fields

    from hrf.gpu.setting import sample

    rng = random.Random(7)
    seen: dict = {}
    for _ in range(300):
        s = sample(rng)
        for f in fields(s):
            seen.setdefault(f.name, set()).add(getattr(s, f.name))
    varied = {k for k, v in seen.items() if len(v) > 1}
    assert varied == {f.name for f in fields(Setting)} - {"randomise", "spin"}


# ------------------------------------------------------------ on a GPU
def test_runs_on_a_gpu_when_there_is_one():
    """The one test that runs: skipped without CuPy and a CUDA device."""
    from hrf.gpu import run_test
    from hrf.gpu.runtime import NoGpu, cupy_module

    try:
        cupy_module()
    except NoGpu as e:
        pytest.skip(str(e))
    r = run_test(parse_file(LITMUS / "gpu" / "MP+fence.sc-gpu.litmus"), launches=20, model=None)
    assert r.counts.instances == 20 * r.counts.instances_per_launch
    assert r.positive == 0  # fence.sc between both pairs: forbidden, never seen


@pytest.mark.parametrize(
    "edit, says",
    [
        (lambda t: t.replace("1:r0=1; 1:r1=1;", "1:r0=7; 1:r1=1;"), "no execution of the test gives the state 1:r0=7"),
        (lambda t: t.replace("1:r1=0;\nOk", "1:r1=0; 2:r9=0;\nOk"), "names 2:r9, which the test does not observe"),
        (
            lambda t: t.replace("20    *>", "380   :>1:r0=1; 1:r1=1;\n20    *>").replace("(3 states)", "(4 states)"),
            "listed twice",
        ),
    ],
)
def test_a_log_that_is_not_of_the_test_is_refused_by_name(tmp_path, capsys, edit, says):
    # a litmus7 log written by another program: a state the test cannot
    # produce (r0 is 0 or 1 in every execution, whatever the model), a
    # variable the test does not observe, a state counted on two lines
    path = LITMUS / "gpu" / "MP+rlx-gpu.litmus"
    log = tmp_path / "gpu.log"
    log.write_text(edit(_result(path, {(0, 0): 600, (1, 1): 380, (1, 0): 20}).to_litmus7()))
    assert main(["run", "--log", str(log), "-m", "ptx-7.5", str(path)]) == 2
    assert says in capsys.readouterr().err


def test_a_log_cut_short_is_read_without_a_traceback(tmp_path, capsys):
    path = LITMUS / "gpu" / "MP+rlx-gpu.litmus"
    text = _result(path, {(0, 0): 600, (1, 1): 380, (1, 0): 20}).to_litmus7()
    log = tmp_path / "gpu.log"
    log.write_text(text[: text.index("Observation") + len("Observation MP+r")])
    assert main(["run", "--log", str(log), "-m", "ptx-7.5", str(path)]) in (0, 1)
    assert "Traceback" not in capsys.readouterr().err


def test_the_h200_showed_what_the_cat_files_fence_sc_axiom_forbids():
    """The lent H200 (tests/data/hardware/h200-2026-11-28.json) ran
    litmus/ptx7/MP+volatile+membar.gl: the reader saw the flag (r0=1) and
    then the data (r1=1) 6,989,074 times -- message passing's expected
    outcome. The reader ends with a fence.sc.cluster, in causality order
    after the writer's membar.gl but in no Fence-SC order with it (their
    scopes leave each other out): Dat3M's ptx-v6.0.cat, which asks every
    such pair to be ordered, forbids the state; the ISA's axiom (morally
    strong pairs alone), which ptx-6.0 and ptx-7.5 state, allows it."""
    row = next(r for r in hardware_rows(("litmus/ptx7",)) if r["test"] == "MP+volatile+membar.gl")
    seen = row["forbidden_by_peer"]["ptx-v6.0.cat"]
    assert seen["count"] > 0
    import hrf

    test = parse_file(ROOT / "litmus/ptx7/MP+volatile+membar.gl.litmus")
    state = seen["state"]
    for model in ("ptx-6.0", "ptx-7.5"):
        assert state in hrf.check(test, model).outcomes, model
    # Dartagnan's reading of Fence-SC (ptx-6.0-dat3m states the cat file's axioms) forbids it
    assert state not in hrf.check(test, "ptx-6.0-dat3m").outcomes


# The H200 (tests/data/hardware/h200-2026-11-29-sm90.json): the one kind of
# state ptx-8.0 forbids that sm_90 showed. A wait (test_wait or try_wait,
# .acquire) returned true, then its thread read, whatever the wait returned:
# the read saw the data from before the phase's release (MP through an
# mbarrier) or before the bulk copy (its destination). The ISA gives a wait
# that observes the phase's completion an acquire, so these states are
# forbidden (litmus/ptx8/manifest.toml); ptxas put no fence and no dependency
# between the wait (SYNCS.PHASECHK) and the read. The same tests with a fence
# on either side, the read on the wait's true branch, or the wait in a loop
# showed none (docs/hardware.md).
LONE_WAIT_FINDINGS = {
    "MP+mbar-cta": {"1:r0": 1, "1:r1": 0},
    "MP+mbar-cta+try": {"1:r0": 1, "1:r1": 0},
    "bulk-copy-wait": {"1:r0": 1, "1:r1": 0},
    "bulk-copy-wait+test": {"1:r0": 1, "1:r1": 0},
    "bulk-copy-no-expect": {"1:r0": 1, "1:r1": 0},
    "async-read-fence": {"0:r0": 1, "0:r1": 0},
    "async-read-fence+test": {"0:r0": 1, "0:r1": 0},
}
# the controls: the same synchronisation, the read ordered after the wait's result
LONE_WAIT_CONTROLS = (
    "MP+mbar-cta+acq-fence",
    "MP+mbar-cta+rel-fence",
    "MP+mbar-cta+ctrl",
    "MP+mbar-cta+try-ctrl",
    "MP+mbar-spin",
    "bulk-copy-spin",
    "async-read-spin",
)
SM90_RECORD = "h200-2026-11-29-sm90.json"


def _ptx8_rows() -> list[dict]:
    return [r for r in hardware_rows(("litmus/ptx8",)) if r["record"] == SM90_RECORD]


@pytest.mark.parametrize("row", _ptx8_rows(), ids=lambda r: r["test"])
def test_what_sm_90_showed_is_allowed_by_ptx_8_but_the_lone_waits_stale_reads(row):
    """Each state the H200 showed for a test of litmus/ptx8, judged by
    ptx-8.0 as it is now: allowed, but for the stale read after a lone
    wait (LONE_WAIT_FINDINGS), which ptx-8.0 forbids. A record's state is
    a whole outcome (every observed register)."""
    import tomllib

    import hrf

    manifest = tomllib.loads((LITMUS / "ptx8" / "manifest.toml").read_text())["test"]
    entry = next(e for e in manifest if e["file"] == f"{row['test']}.litmus")
    r = hrf.check(str(LITMUS / "ptx8" / f"{row['test']}.litmus"), "ptx-8.0", **entry.get("limits", {}))
    # the flag the manifest derives (a copy's destination read where a lone wait may have failed)
    assert r.complete and [f["kind"] for f in r.flags] == [
        entry["expect"][k] for k in ("flag",) if k in entry["expect"]
    ]
    finding = LONE_WAIT_FINDINGS.get(row["test"])
    assert states_not_allowed(row, r) == ([finding] if finding else [])
    assert sum(s["count"] for s in row["states"]) == row["instances"]


def test_the_lone_waits_findings_and_their_controls_were_run():
    rows = {r["test"]: r for r in _ptx8_rows()}
    for name, state in LONE_WAIT_FINDINGS.items():
        seen = next(s["count"] for s in rows[name]["states"] if s["outcome"] == state)
        assert seen > 0 and rows[name]["code"] == "ok", name
    for name in LONE_WAIT_CONTROLS:
        assert rows[name]["weak"] == 0 and rows[name]["instances"] > 60_000_000 and rows[name]["code"] == "ok", name


SYNC_RECORD = "h200-2026-11-29-sync-family.json"


def _sync_family_rows() -> list[dict]:
    return json.loads((HARDWARE / SYNC_RECORD).read_text())["runs"]


def test_the_generated_sm_90_family_on_the_h200_shows_only_the_lone_waits_stale_reads():
    """The first 50 tests of `hrf generate --dialect ptx --sync ...`'s
    family (the call's time limit stopped the rest) on the H200: every
    state seen is allowed by ptx-8.0, but the stale read after a lone
    acquire wait at .cta scope on the mbarrier of a fenced copy (the
    finding above), the copy issued in the reader's CTA or in another CTA
    of its cluster (its complete-tx is performed in the mbarrier's CTA:
    docs/readings.md); at .cluster scope ptxas puts a CCTL.IVALL
    predicated on the wait's result after it, and none was seen."""
    import hrf
    from hrf.generate_hopper import sync_family

    family = dict(sync_family(["mbarrier", "cluster-barrier", "dsmem", "bulk"]))
    rows = _sync_family_rows()
    assert len(rows) == 50 and all(r["test"] in family for r in rows)
    stale = []
    for row in rows:
        r = hrf.check(family[row["test"]], "ptx-8.0")
        # a bulk test's consumer reads the copy's destination whatever its lone wait returned:
        # where the wait fails, before the copy completes (async_copy_incomplete)
        flagged = ["async_copy_incomplete"] if row["test"].startswith("MP+bulk+") else []
        assert r.complete and [f["kind"] for f in r.flags] == flagged, row["test"]
        forbidden = states_not_allowed(row, r)
        if forbidden:
            assert forbidden == [{"1:r0": 1, "1:r1": 0}], row["test"]
            stale.append(row["test"])
    # MP+bulk+<signal>+acquire+cta+<fenced copy>+cta: one CTA, a .cta acquire wait, the copy
    # fenced; and +global+cluster, two CTAs of a cluster (5 and 6 of 29.6 M; in +async+cluster
    # the lone wait never returned true)
    assert stale == [
        f"MP+bulk+{rel}+acquire+cta+{fence}+{place}"
        for rel in ("relaxed", "release")
        for fence, place in (("async", "cta"), ("global", "cluster"), ("global", "cta"))
    ]


def test_ctas_of_two_clusters_are_two_ctas():
    # PTX numbers CTAs within their cluster: `cta 0` of cluster 0 and `cta 0`
    # of cluster 1 are two CTAs (they were once placed in one, where a
    # .cta-scope pair between them would synchronise)
    from hrf.gpu.placement import shape_of

    text = (
        "PTX t\n{ x=0; y=0; }\n P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 1,gpu 0 ;\n"
        " st.weak x, 1 | ld.acquire.cta r0, y ;\n st.release.cta y, 1 | ld.weak r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n"
    )
    import hrf

    assert shape_of(lower(hrf.parse(text))).groups == (((0,),), ((1,),))


# ------------------------------------------------------------ CTA barriers
def _dat3m(rows: str, cond: str = "exists (P0:r0 == 0)") -> A.Test:
    return parse_text(f"PTX T\n{{\nx=0; y=0;\n}}\n{rows}\n{cond}\n")


def test_barriers_are_planned_per_instance():
    """Each barrier (number, resource) of a CTA is one of the instance's named
    barriers, in the order met; its count in whole warps: a Dat3M thread
    count q is q warps, none the CTA's threads (here 3)."""
    t = _dat3m(
        " P0@cta 0,gpu 0       | P1@cta 0,gpu 0         | P2@cta 0,gpu 0       ;\n"
        " st.weak x, 1         | bar.cta.arrive 2, 2, 2 | bar.cta.sync 7       ;\n"
        " bar.cta.sync 2, 2, 2 | bar.cta.sync 7         | ld.weak r0, x        ;\n"
        " bar.cta.sync 7       |                        |                      ;"
    )
    lt, shape = prepare(t)
    steps = {k: [(s.index, s.warps, s.arrive) for s in v] for k, v in lt.barriers.steps.items()}
    assert steps == {0: [(0, 2, False), (1, 3, False)], 1: [(0, 2, True), (1, 3, False)], 2: [(1, 3, False)]}
    assert shape.whole and shape.barriers == 2


def test_barriers_that_can_hang_are_refused():
    """quorum: three threads reach a barrier counting two: the third waits
    forever (the ISA's barrier starts again after two arrive)."""
    three = _dat3m(
        " P0@cta 0,gpu 0       | P1@cta 0,gpu 0       | P2@cta 0,gpu 0       ;\n"
        " bar.cta.sync 1, 1, 2 | bar.cta.sync 1, 1, 2 | bar.cta.sync 1, 1, 2 ;\n"
        " ld.weak r0, x        |                      |                      ;"
    )
    with pytest.raises(NotRunnable, match="waiting forever"):
        prepare(three)
    # P0 at barrier 1 then 2, P1 at 2 then 1: each waits for the other
    crossed = _dat3m(
        " P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n bar.cta.sync 1 | bar.cta.sync 2 ;\n bar.cta.sync 2 | bar.cta.sync 1 ;\n"
        " ld.weak r0, x  |                ;"
    )
    with pytest.raises(NotRunnable, match="P0 at its barrier 1 waiting forever|P1 at its barrier 1 waiting forever"):
        prepare(crossed)
    # the same barriers in one order: runs
    lt, shape = prepare(
        _dat3m(
            " P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n bar.cta.sync 1 | bar.cta.sync 1 ;\n bar.cta.sync 2 | bar.cta.sync 2 ;\n"
            " ld.weak r0, x  |                ;"
        )
    )
    assert shape.barriers == 2
    # P0's operands: r0 and its time-out flag (%0, %1), x (%2), the spin budget (%3), @BAR (%4)
    assert (
        "add.u32 hbar, %4, 1;" in lt.threads[0].lines and "bar.sync hbar, 64;" in lt.threads[0].lines
    )  # Dat3M's bar.cta.sync: aligned, as written


def test_every_launch_parameter_has_one_value_text():
    """The per-launch parameters (cuda.PARAMS) are placement's or the
    setting's, one text each, which hrf run evaluates and the driver compiles."""
    from hrf.gpu.cuda import PARAMS, SETTING_VALUES, param_values_c
    from hrf.gpu.placement import PLACEMENT_VALUES

    assert sorted([*PLACEMENT_VALUES, *SETTING_VALUES]) == sorted(PARAMS)
    c = param_values_c()
    assert all(f"P[P_{k}] = " in c for k in PARAMS) and "hrf_inverse(ba, units)" in c


def test_sm_90_forms_are_refused_for_older_gpus_by_name():
    """mbarriers, bulk copies, cluster barriers and clusters are sm_90's: a
    launch or a code check for an older architecture is refused, naming them."""
    from hrf.gpu.lower import needs, refuse_below

    lt, _ = prepare(parse_file(LITMUS / "ptx8" / "MP+dsmem-cluster.litmus"))
    assert needs(lt) == (90, "thread-block clusters")
    with pytest.raises(NotRunnable, match="thread-block clusters need sm_90 or later, not sm_80"):
        refuse_below(lt, "sm_80")
    refuse_below(lt, "sm_90")
    refuse_below(lt, "sm_100a")
    lt, _ = prepare(parse_file(LITMUS / "ptx8" / "bulk-copy-wait.litmus"))
    assert needs(lt) == (90, "the async proxy, mbarriers")
    lt, _ = prepare(parse_file(LITMUS / "gpu" / "MP+rlx-gpu.litmus"))
    assert needs(lt) is None
    refuse_below(lt, "sm_70")
