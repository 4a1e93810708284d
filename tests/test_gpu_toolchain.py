"""`hrf run`'s generated code through NVIDIA's own compiler, with no GPU:
NVIDIA's wheels (`pip install '.[nvcc]'`, which `.ci/run` installs) bring
nvcc, ptxas and nvdisasm to any Linux x86-64 machine. Every shipped test
that `hrf run` runs is compiled as `hrf run` compiles it, for sm_90 (the
H100 and H200), and its SASS must hold the test's accesses (the code check
that refuses a run otherwise); the standalone driver of `--emit-cuda` must
build, and without a GPU say so in one line.

Without the tools these tests skip, unless HRF_REQUIRE_NVCC is set (as in
CI), where they fail."""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import hrf
from hrf.gpu import emit_cuda, prepare
from hrf.gpu.cuda import source
from hrf.gpu.runtime import compile_cubin
from hrf.gpu.sass import check, disassemble, tool
from hrf.litmus import parse_file
from test_gpu import runnable_shipped

LITMUS = Path(__file__).parent.parent / "litmus"
NVCC, NVDISASM = tool("nvcc"), tool("nvdisasm")
ARCH = "sm_90"


def toolchain_at_hand() -> bool:
    """Whether nvcc and nvdisasm are here; their absence fails a test where
    HRF_REQUIRE_NVCC is set (CI installs them: it must not skip)."""
    if NVCC is not None and NVDISASM is not None:
        return True
    if os.environ.get("HRF_REQUIRE_NVCC"):
        pytest.fail("HRF_REQUIRE_NVCC is set, but nvcc or nvdisasm is missing: pip install '.[nvcc]'")
    return False


def require_toolchain() -> None:
    """Skip (or, with HRF_REQUIRE_NVCC, fail) without nvcc and nvdisasm."""
    if not toolchain_at_hand():
        pytest.skip("no nvcc and nvdisasm: pip install '.[nvcc]' brings NVIDIA's (no GPU needed)")


@pytest.fixture(autouse=True)
def _toolchain():
    require_toolchain()


def test_every_shipped_test_compiles_to_its_accesses():
    """ptxas may reorder, merge or drop accesses ([GPU15]'s optcheck found
    compilers do): the SASS of every shipped test's threads holds its
    accesses in order with their width, strength and scope (a thread with a
    loop the assembler peeled: their forms), then its output stores."""

    def one(item):
        f, lt, shape = item
        notes: list = []
        try:
            return f, check(lt, disassemble(compile_cubin(source(lt, shape), ARCH, f.name)), notes), notes
        except Exception as e:  # a compile error is a failure of the generated code too
            return f, [f"{type(e).__name__}: {e}"], notes

    items = runnable_shipped()
    assert len(items) > 50
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(one, items))
    bad = {str(f.relative_to(LITMUS)): p for f, p, _ in results if p}
    # ptxas moves a weak global access across a relaxed mbarrier operation
    # (they order nothing, and shared memory never aliases global memory):
    # the code check refuses to run these two as written, and says why
    moved = {"ptx8/MP+mbar-relaxed-arrive.litmus": "P0", "ptx8/MP+mbar-relaxed-wait.litmus": "P1"}
    # and a proxy fence of shared memory alone (fence.proxy.async.shared::cta) above the
    # global store before it: the fence orders no global access, and the assembler knows it
    fence_moved = {"ptx8/async-read-fence-other-space.litmus": "P0"}
    # and a weak load above a bulk async-group's commit (the commit orders no access: it groups the
    # copies before it; with no wait after it, the load reads the copy's destination undefined anyway)
    commit_moved = {"ptx8/bulk-group-no-wait.litmus": "P0"}
    assert set(bad) == set(moved) | set(fence_moved) | set(commit_moved)
    for name, thread in moved.items():
        (why,) = bad[name]
        assert why.startswith(f"{thread}: ") and "the two swapped" in why and "relaxed" in why
    for name, thread in fence_moved.items():
        (why,) = bad[name]
        assert why.startswith(f"{thread}: `st.global.u32` should be STG/ST (weak), found MEMBAR.ALL.CTA")
        assert "MEMBAR.ALL.CTA FENCE.VIEW.ASYNC.S STG.E" in why
    for name, thread in commit_moved.items():
        (why,) = bad[name]
        assert why.startswith(f"{thread}: `cp.async.bulk.commit_group` should be UTMACMDFLUSH, found LDG.E")
        assert "the two swapped" in why and "UBLKCP.G.S LDG.E UTMACMDFLUSH" in why


def test_the_standalone_driver_builds_and_without_a_gpu_says_so(tmp_path):
    """nvcc builds the emitted driver (host and device code); run where no
    GPU is, it stops at its first CUDA call with one line naming it (exit
    2), having printed no histogram."""
    names = (
        "gpu/MP+rlx-gpu.litmus",
        "ptx7/SpinMP.litmus",
        "hrf/hrf14-fig5-diff-wg.litmus",
        "ptx8/MP+dsmem-cluster.litmus",  # a thread-block cluster (sm_90: the driver is built for it)
        "ptx8/bulk-copy-wait.litmus",
    )
    from test_gpu_driver import BARRIERS  # CTA barriers, placed in whole warps

    (tmp_path / "barriers.litmus").write_text(BARRIERS)
    tests = [parse_file(LITMUS / n) for n in names] + [parse_file(tmp_path / "barriers.litmus")]
    cus = emit_cuda(tests, tmp_path / "cu")

    def build(cu):
        exe = cu.with_suffix("")
        r = subprocess.run([NVCC, "-O2", f"-arch={ARCH}", "-o", str(exe), str(cu)], capture_output=True, text=True)
        return exe, r

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        built = list(pool.map(build, cus))
    for exe, r in built:
        assert r.returncode == 0, r.stderr
        run = subprocess.run([str(exe), "launches=1"], capture_output=True, text=True, timeout=60)
        if run.returncode == 0:  # a machine with a GPU: the log is there
            assert "Histogram (" in run.stdout
            continue
        assert run.returncode == 2 and run.stdout == "", (run.returncode, run.stdout)
        (line,) = run.stderr.strip().splitlines()
        assert line.startswith(f"{exe.name}: CUDA error in cudaGetDeviceProperties(&props, 0): ")


def test_check_code_as_a_command(capsys):
    """`hrf run --check-code`: [GPU15]'s optcheck with no GPU. For sm_90
    the coherence test coRR-L2-L1 (ld.cg then ld.ca of x) compiles as
    written; for sm_80 ptxas 13.5 swaps its two loads (it cannot know their
    addresses are one, and PTX orders a weak load after a relaxed one to
    no other address), so a run there would not be the test: refused."""
    from hrf.cli import main

    corr = str(LITMUS / "gpu15" / "coRR-L2-L1.litmus")
    assert main(["run", "--check-code", corr, str(LITMUS / "gpu" / "MP+rlx-gpu.litmus")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{corr}: sm_90: ok", f"{LITMUS / 'gpu' / 'MP+rlx-gpu.litmus'}: sm_90: ok"]
    assert main(["run", "--check-code", "--arch", "sm_80", corr]) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith(f"{corr}: sm_80: NOT AS WRITTEN: P1: `ld.cg.global.u32` should be")
    assert "(the form of the later `ld.ca.global.u32`: the two swapped)" in line


def test_barrier_tests_compile_to_their_accesses_and_barriers(tmp_path):
    """The barrier tests of the driver's suite (Dat3M's named barriers and an
    arrive over two CTAs; OpenCL's work-group barrier over global and over
    local memory): the SASS of each thread holds its accesses and barriers
    (BAR.SYNC, BAR.ARV) in order; every thread passes its barriers."""
    from test_gpu_driver import BARRIER_TESTS

    for name, text in BARRIER_TESTS.items():
        lt, shape = prepare(hrf.parse(text))
        assert shape.whole and all(lt.barriers.steps.get(th.index) for th in lt.threads)
        assert check(lt, disassemble(compile_cubin(source(lt, shape), ARCH, f"{name}.cu"))) == [], name
