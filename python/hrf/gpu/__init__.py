"""Litmus tests on real NVIDIA GPUs, the hardware side of [GPU15]: each
test lowered to PTX (`lower`), placed as its scope tree says with fresh
random placements (`placement`), wrapped in a CUDA kernel with the
incantations of [GPU15] sec. 4 (`cuda`, `setting`), run many times with the
histogram kept on the device (`runtime`, CuPy), the compiled code checked
(`sass`), reported as litmus7 does (`report`)."""

from __future__ import annotations

import contextlib
import random
import time
from pathlib import Path

from ..errors import HrfError, InvalidArgument
from ..litmus import ast as A
from .cuda import DRIVER_FILES, driver_file, file_stem, source, standalone
from .lower import LoweredTest, NotRunnable, lower
from .placement import Shape, shape_of
from .report import GpuResult, build, compare, from_log
from .setting import Setting, load_setting, sample

__all__ = [
    "NotRunnable",
    "Setting",
    "GpuResult",
    "load_setting",
    "prepare",
    "cuda_source",
    "emit_cuda",
    "run_test",
    "judge",
    "judges",
    "from_log",
    "tune",
]


def prepare(test: A.Test) -> tuple[LoweredTest, Shape]:
    """A test lowered and its shape read; NotRunnable says what has no lowering."""
    lt = lower(test)
    return lt, shape_of(lt)


def cuda_source(test: A.Test) -> str:
    lt, shape = prepare(test)
    return source(lt, shape)


def emit_cuda(tests: list[A.Test], folder: str | Path, setting: Setting | None = None) -> list[Path]:
    """Write each test's CUDA source (`NAME.cu`: the kernels and the
    standalone driver's tables, starting from `setting`) into a folder,
    with the driver's headers beside them (`hrf_driver.h`, and
    `hrf_emulate.h` that checks it on a CPU): `nvcc -O2 -arch=native -o
    NAME NAME.cu && ./NAME launches=1000` runs a test without Python."""
    out = Path(folder)
    written = []
    if out.exists() and not out.is_dir():
        raise InvalidArgument(f"cannot write the CUDA sources into {folder}: it is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        for t in tests:
            lt, shape = prepare(t)
            p = out / f"{file_stem(t)}.cu"
            _replace(p, standalone(lt, shape, setting or Setting()))
            written.append(p)
        for name in DRIVER_FILES:
            _replace(out / name, driver_file(name))
    except OSError as e:
        raise InvalidArgument(f"cannot write the CUDA sources into {folder}: {e.strerror or e}") from None
    return written


def _replace(path: Path, text: str) -> None:
    """Write `path` anew: a file written beside it, then renamed onto it,
    so that a link of that name is replaced, not written through (to a
    file outside the folder), and a fifo or device of that name is not
    opened (a fifo would wait for a reader for ever); a folder of that
    name is an error."""
    import os
    import tempfile

    if path.is_dir() and not path.is_symlink():
        raise IsADirectoryError(21, f"{path.name} is a folder")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def run_test(
    test: A.Test,
    setting: Setting | None = None,
    launches: int | None = None,
    seconds: float | None = None,
    model=None,
    codecheck: bool = True,
    seed: int | None = None,
    runner_cache: dict | None = None,
) -> GpuResult:
    """Run a test on the GPU: `launches` launches, or for `seconds`. With a
    model, each seen outcome is marked allowed or forbidden by it."""
    from .runtime import Runner
    from .sass import CodeCheckError, check, disassemble, passed

    setting = setting or Setting()
    lt, shape = prepare(test)
    runner = (runner_cache or {}).get(id(test)) or Runner(lt, shape)
    if runner_cache is not None:
        runner_cache[id(test)] = runner
    status = "skipped (--no-codecheck)"
    if codecheck:
        notes: list[str] = []
        problems = check(lt, disassemble(runner.cubin), notes)
        if problems:
            raise CodeCheckError(
                f"{test.name}: the compiled code is not the test as written (--no-codecheck to run anyway): "
                + "; ".join(problems)
            )
        status = passed(notes)
    counts = runner.run(setting, launches=launches, seconds=seconds, seed=seed)
    r = build(lt, counts, runner.info, setting, status)
    for what, n in (
        ("instances timed out in a spin loop (not counted as states)", counts.timeouts),
        ("instances where a thread did not run: a harness fault", counts.missing),
        ("outcomes outside the recorded range were lost", counts.overflow_lost),
    ):
        if n:
            r.notes.append(f"{n} {what}")
    for m in models_of(model):
        judge(r, test, m)
    return r


def judges(arch: str) -> list[str]:
    """The models that judge a run of a test in dialect `arch` in hrf's
    device check and its records (benchmarks/gpu_check.py,
    tests/data/hardware): [GPU15]'s PTX by its model and, translated, PTX
    6.0 and 7.5; Dat3M's PTX by PTX 6.0, 7.5 and 8.0 (sm_90's forms: 8.0
    alone); C/OpenCL (run through the atomics ABI) by its source models,
    OpenCL and [HRF14]'s (a test racy under one has no meaning there)."""
    return {"GPU_PTX": ["ptx", "ptx-6.0", "ptx-7.5"], "PTX": ["ptx-6.0", "ptx-7.5", "ptx-8.0"]}.get(
        arch, ["opencl", "hrf-direct", "hrf-indirect"]
    )


def models_of(model) -> list:
    """None, one model (a name, a cat file, a Model) or several, as a list."""
    if model is None:
        return []
    return list(model) if isinstance(model, (list, tuple)) else [model]


def judge(r: GpuResult, test: A.Test, model) -> None:
    """Mark each state the run saw allowed or forbidden by `model`, the
    test read as the model reads it (translated where it takes another
    dialect: [GPU15]'s PTX for the PTX 6.0/7.5 models); a model that gives
    no complete verdict is a note, never a comparison, and one that finds
    the test racy gives it no meaning (`ModelVerdict.racy`: its forbidden
    states are no violations)."""
    from ..api import check as model_check
    from ..litmus.translate import read_as_by
    from ..models import get as get_model

    m = get_model(model)
    read, arch = read_as_by(test, m)
    try:
        mr = model_check(read, m)
    except HrfError as e:  # the model refuses the test
        r.notes.append(f"the model {m.name} gave no verdict ({e}): no comparison")
        return
    if not mr.complete:
        why = f"limit {mr.limit['which']}: {mr.limit['detail']}" if mr.limit else "incomplete"
        r.notes.append(f"the model {m.name} gave no complete verdict ({why}): no comparison")
    else:
        compare(r, mr.model, mr.outcomes, arch, bool(mr.racy))


def tune(test: A.Test, budget: float, samples: int, seed: int | None = None) -> list[tuple[Setting, float, int, float]]:
    """Sample incantation settings for `budget` seconds in all: per setting,
    (setting, weak outcomes per second, weak outcomes, seconds), best first.
    A weak outcome is one that satisfies the condition's proposition."""
    from .runtime import Runner

    lt, shape = prepare(test)
    runner = Runner(lt, shape)
    rng = random.Random(seed)
    each = budget / max(samples, 1)
    tried = [Setting()] + [sample(rng) for _ in range(samples - 1)]
    out = []
    t_end = time.perf_counter() + budget
    for s in tried:
        if time.perf_counter() >= t_end:
            break
        try:
            counts = runner.run(s, seconds=each, seed=rng.randrange(1 << 30))
        except NotRunnable:
            continue
        r = build(lt, counts, runner.info, s, "skipped (tuning)")
        out.append((s, r.positive / counts.seconds if counts.seconds else 0.0, r.positive, counts.seconds))
    out.sort(key=lambda x: -x[1])
    return out
