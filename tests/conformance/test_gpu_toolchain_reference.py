"""The peers' PTX tests through `hrf run`'s lowering and NVIDIA's compiler,
with no GPU (tests/test_gpu_toolchain.py does the shipped ones): every
test of [GPU15]'s and Dat3M's PTX suites that `hrf run` runs compiles for
sm_90 to SASS that holds its accesses (loops the assembler peeled: their
forms), and every one it refuses is refused by name. Needs NVIDIA's
wheels (`pip install '.[nvcc]'`); skips without them unless
HRF_REQUIRE_NVCC is set (as in CI)."""

import os
from concurrent.futures import ThreadPoolExecutor

from reference import REFERENCE

import hrf
from hrf.gpu import NotRunnable, prepare
from hrf.gpu.cuda import source
from hrf.gpu.runtime import compile_cubin
from hrf.gpu.sass import check, disassemble
from hrf.litmus import ast as A
from test_gpu_toolchain import require_toolchain


def test_every_runnable_reference_ptx_test_compiles_to_its_accesses():
    require_toolchain()
    files = sorted((REFERENCE / "ptx-asplos15").glob("*.litmus")) + sorted(
        (REFERENCE / "dat3m-gpu" / "litmus" / "PTX").rglob("*.litmus")
    )
    runnable, refused = [], {}
    for f in files:
        t = hrf.parse(f)
        try:
            runnable.append((f, *prepare(t)))
        except NotRunnable as e:
            refused[f.name] = str(e)
    assert all(why.startswith("cannot run on a GPU: ") for why in refused.values())

    def one(item):
        f, lt, shape = item
        try:
            return f, check(lt, disassemble(compile_cubin(source(lt, shape), "sm_90", f.name)))
        except Exception as e:
            return f, [f"{type(e).__name__}: {e}"]

    with ThreadPoolExecutor(max_workers=2 * (os.cpu_count() or 1)) as pool:
        bad = {str(f.relative_to(REFERENCE)): p for f, p in pool.map(one, runnable) if p}
    assert len(runnable) > 550 and bad == {}


# the reference's CTA-barrier tests `hrf run` runs (placed in whole warps, a named barrier
# each of an instance's barriers); every other one is refused by name, for the reason given
BARRIER_RUNS = {
    "barrier-inscope", "barrier-not-inscope", "quorum1-fail", "quorum2-fail", "PC-bar-sync-arrive",
    "PC-bar-sync-sync-1", "PC-bar-sync-sync-2", "SB+bar-const-equal", "SB+bar-diff-cta",
    "SB+named-bar-reg-const-equal", "SB+named-bar-reg-equal", "SB+twice-bars", "counter-atomic-store-rmw",
    "counter-plain-store-atomic-load", "counter-plain-store-plain-load", "counter-plain-store-rmw",
    "barrier_example",
}  # fmt: skip
BARRIER_REFUSALS = {
    # more threads reach a barrier than its count, or fewer than the CTA's: on a GPU, a thread waits forever
    "waiting forever": {
        "quorum1-hang", "quorum1-pass", "quorum2-hang", "quorum2-pass", "quorum3-fail", "quorum3-pass",
        "quorum4-fail", "quorum4-pass", "PC-bar-sync-sync-3", "PC-bar-sync-sync-4", "SB+bar-const-diff",
        "SB+named-bar-reg-const-diff", "SB+named-bar-reg-diff", "SB+twice-bars-diff", "barrier-instance-id-exists",
        "barrier-instance-id-forall", "barrier-logical-id-exists", "barrier-logical-id-forall",
    },
    "a barrier resource the thread computes": {"SB+named-bar-dyn-reg-const", "SB+named-bar-sta-reg-const"},
    "which branches or loops": {"XF-Barrier-relacq", "XF-Barrier-rlx", "XF-Barrier-weak"},
    "a fence on local alone": {"global_barrier", "global_barrier_mo"},
}  # fmt: skip


def _barrier_tests():
    files = sorted((REFERENCE / "dat3m-gpu" / "litmus" / "PTX").rglob("*.litmus"))
    files += sorted((REFERENCE / "opencl-dat3m").rglob("*.litmus"))
    for f in files:
        t = hrf.parse(f)
        if any(isinstance(op, A.Barrier) for th in t.threads for op in th.ops):
            yield f, t


def test_the_reference_barrier_tests_run_or_are_refused_by_name():
    """Each of Dat3M's 39 PTX barrier tests and herd's 3 OpenCL ones: run, or
    refused for the reason pinned (docs/hardware.md's table); the run ones
    compile for sm_90 to their accesses and barriers (BAR.SYNC, BAR.ARV)."""
    require_toolchain()
    runs, refused = [], {}
    for f, t in _barrier_tests():
        try:
            runs.append((f, *prepare(t)))
        except NotRunnable as e:
            refused[f.stem] = str(e)
    assert len(runs) + len(refused) == 42
    assert {f.stem for f, _, _ in runs} == BARRIER_RUNS
    for why, names in BARRIER_REFUSALS.items():
        assert {n for n, e in refused.items() if why in e} == names, why
    assert set(refused) == set().union(*BARRIER_REFUSALS.values())

    def one(item):
        f, lt, shape = item
        return f, check(lt, disassemble(compile_cubin(source(lt, shape), "sm_90", f.name)))

    with ThreadPoolExecutor(max_workers=2 * (os.cpu_count() or 1)) as pool:
        bad = {f.stem: p for f, p in pool.map(one, runs) if p}
    assert bad == {}


def test_the_reference_barrier_tests_drivers_count_what_the_script_writes(tmp_path):
    """The standalone driver of each barrier test `hrf run` takes, built for
    hrf's CPU emulation (g++): its log is what the placement and the
    driver's script make it (tests/test_gpu_driver.py's check)."""
    from hrf.gpu import emit_cuda
    from hrf.gpu.setting import Setting
    from test_gpu_driver import GXX, build_emulation, check_run

    assert GXX is not None, "g++ builds the driver's CPU check (the conformance suite fails without it)"
    runs = []
    for f, t in _barrier_tests():
        try:
            prepare(t)
        except NotRunnable:
            continue
        runs.append((f, emit_cuda([t], tmp_path / f.stem)[0]))
    assert {f.stem for f, _ in runs} == BARRIER_RUNS
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        exes = list(pool.map(lambda fc: build_emulation(fc[1], "-O0"), runs))
    for (f, _), exe in zip(runs, exes, strict=True):
        check_run(tmp_path, f, Setting(), [], launches=12, blocks=8, exe=exe)
