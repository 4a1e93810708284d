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
