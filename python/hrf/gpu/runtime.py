"""Running a lowered test on an NVIDIA GPU through CuPy (the `hrf[cuda]`
extra): compile the source with NVRTC to a cubin for the device, launch
the test and tally kernels many times with fresh placements, read the
histogram once at the end. The host writes a few words of parameters per
launch and never touches an instance."""

from __future__ import annotations

import os
import random
import tempfile
import time
from dataclasses import dataclass, field

from ..errors import HrfError
from .cuda import COUNTERS, HIST_LIMIT, PARAMS, POISON, SETTING_CODE, layout, n_params, setting_env, source, strides
from .lower import LoweredTest, NotRunnable, refuse_below
from .placement import Shape, affine, draw, geometry, parameters, resident
from .setting import Setting

OVERFLOW_CAP = 1 << 16  # outcomes outside the domains, recorded one by one
BATCH = 64  # launches whose parameters go to the device together


class NoGpu(HrfError):
    """No GPU to run on: CuPy missing, no CUDA device, or no driver."""


def cupy_module():
    """CuPy, with a device; NoGpu says why not."""
    try:
        import cupy
    except ImportError as e:
        raise NoGpu(f"hrf run needs CuPy and an NVIDIA GPU: pip install 'hrf[cuda]' ({e})") from None
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise NoGpu("hrf run: no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError as e:
        raise NoGpu(f"hrf run: no usable CUDA device ({e})") from None
    return cupy


@dataclass
class DeviceInfo:
    name: str
    arch: str  # sm_90
    sms: int
    threads_per_sm: int
    regs_per_sm: int
    driver: str
    cuda: str
    nvrtc: str

    def to_json(self) -> dict:
        return self.__dict__.copy()


def _version(v: int) -> str:
    return f"{v // 1000}.{v % 1000 // 10}"


def device_info(cupy) -> DeviceInfo:
    rt = cupy.cuda.runtime
    props = rt.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    try:
        from cupy.cuda import nvrtc

        nv = ".".join(str(x) for x in nvrtc.getVersion())
    except Exception:
        nv = "?"
    return DeviceInfo(
        name=name,
        arch=f"sm_{props['major']}{props['minor']}",
        sms=props["multiProcessorCount"],
        threads_per_sm=props["maxThreadsPerMultiProcessor"],
        regs_per_sm=props["regsPerMultiprocessor"],
        driver=_version(rt.driverGetVersion()),
        cuda=_version(rt.runtimeGetVersion()),
        nvrtc=nv,
    )


def compile_cubin(src: str, arch: str, name: str = "hrf.cu") -> bytes:
    """The source compiled to a cubin for `arch` (sm_90): by nvcc where it
    is installed (the CUDA toolkit's cuobjdump and nvdisasm read its cubins;
    those of the NVRTC that CuPy brings may be newer than they read), else
    by NVRTC."""
    from .sass import tool

    nvcc = tool("nvcc")
    if nvcc is not None:
        import subprocess

        with tempfile.TemporaryDirectory() as d:
            cu, cubin = os.path.join(d, "test.cu"), os.path.join(d, "test.cubin")
            with open(cu, "w", encoding="utf-8") as f:
                f.write(src)
            r = subprocess.run([nvcc, "-cubin", f"-arch={arch}", "-o", cubin, cu], capture_output=True, text=True)
            if r.returncode != 0:
                raise HrfError(f"nvcc could not compile the kernel of {name}:\n{r.stderr.strip()}")
            with open(cubin, "rb") as f:
                return f.read()
    try:
        from cupy.cuda import nvrtc
    except ImportError:
        raise HrfError(
            f"no compiler for the kernel of {name}: nvcc (a CUDA toolkit, or NVIDIA's wheels: "
            "pip install 'hrf[nvcc]', no GPU needed) or CuPy's NVRTC (pip install 'hrf[cuda]')"
        ) from None

    prog = nvrtc.createProgram(src, name, (), ())
    try:
        try:
            nvrtc.compileProgram(prog, (f"--gpu-architecture={arch}", "--std=c++17"))
        except nvrtc.NVRTCError as e:
            log = nvrtc.getProgramLog(prog)
            raise HrfError(f"NVRTC could not compile the kernel of {name}: {e}\n{log}") from None
        return nvrtc.getCUBIN(prog)
    finally:
        nvrtc.destroyProgram(prog)


@dataclass
class RunCounts:
    """What a run on the device saw."""

    histogram: dict = field(default_factory=dict)  # outcome values (tuple) -> count
    instances: int = 0
    launches: int = 0
    seconds: float = 0.0  # the launches, from the first to the histogram read
    compile_seconds: float = 0.0
    timeouts: int = 0  # instances whose spin loop met its bound
    filtered: int = 0  # instances the test's filter left out
    missing: int = 0  # instances where a thread did not run (a harness fault)
    overflow_lost: int = 0  # outcomes outside the domains beyond the record's room
    instances_per_launch: int = 0

    @property
    def rate(self) -> float:
        return self.instances / self.seconds if self.seconds else 0.0


class Runner:
    """One lowered test, compiled for the device, ready to run under settings."""

    def __init__(self, lt: LoweredTest, shape: Shape, cupy=None, cubin: bytes | None = None):
        self.cp = cupy or cupy_module()
        self.lt, self.shape = lt, shape
        self.info = device_info(self.cp)
        self.src = source(lt, shape)
        _, self.hist_size = strides(lt)
        if self.hist_size > HIST_LIMIT:
            raise NotRunnable(
                f"cannot run on a GPU: the outcome's variables take {self.hist_size} value combinations, "
                f"more than the device histogram's {HIST_LIMIT}"
            )
        t0 = time.perf_counter()
        refuse_below(lt, self.info.arch)
        self.cubin = cubin if cubin is not None else compile_cubin(self.src, self.info.arch, f"{lt.test.name}.cu")
        with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
            f.write(self.cubin)
            path = f.name
        try:
            self.module = self.cp.RawModule(path=path)
            self.k_test = self.module.get_function("hrf_test")
            self.k_tally = self.module.get_function("hrf_tally")
        finally:
            os.unlink(path)
        self.compile_seconds = time.perf_counter() - t0

    def resident_blocks(self, s: Setting) -> int:
        """Blocks of `s.block` threads that fit on the device at once (spin
        loops and the synchronised start need every block running)."""
        i = self.info
        return resident(s.block, i.sms, i.threads_per_sm, i.regs_per_sm, self.k_test.num_regs)

    def run(
        self, s: Setting, launches: int | None = None, seconds: float | None = None, seed: int | None = None
    ) -> RunCounts:
        """Launch until `launches` are done or `seconds` have passed."""
        cp, lt = self.cp, self.lt
        import numpy as np

        g = geometry(self.shape, s.blocks or self.resident_blocks(s), s.block, s.test_warps, s.lanes, s.pad)
        n = g.instances(self.shape)
        nl = len(lt.locations)
        region = g.region
        mem = cp.empty(max(nl, 1) * region, dtype=cp.uint32)
        for k, loc in enumerate(lt.locations):
            # an array's element c: c words past its first's, in each instance's copy (padded)
            c = lt.cell.get(loc, 0)
            first = (k - c) * region
            mem[first + c : first + region : g.pad if c else 1] = lt.init.get(loc, 0) & 0xFFFFFFFF
        _, row = layout(lt)
        res = cp.full((n + 1) * row, POISON, dtype=cp.uint32)  # the last row: spare lanes' outputs (cuda.py)
        scratch = cp.zeros(s.stress_words, dtype=cp.uint32)
        sync = cp.zeros(n, dtype=cp.uint32)
        hist = cp.zeros(self.hist_size, dtype=cp.uint64)
        nv = max(len(lt.variables), 1)
        ovf = cp.zeros(OVERFLOW_CAP * nv, dtype=cp.uint32)
        counters = cp.zeros(len(COUNTERS), dtype=cp.uint32)
        rng = random.Random(seed)
        np_ = n_params(lt)
        fixed = {k: eval(v, {}, setting_env(s)) for k, v in SETTING_CODE.items()}  # the setting's, every launch
        done = 0
        tally_blocks = -(-n // 256)
        t0 = time.perf_counter()
        while True:
            if launches is not None and done >= launches:
                break
            if seconds is not None and time.perf_counter() - t0 >= seconds and done:
                break
            batch = BATCH if launches is None else min(BATCH, launches - done)
            params = np.empty((batch, np_), dtype=np.uint32)
            for k in range(batch):
                params[k] = self._params(g, s, n, rng, fixed)
            dparams = cp.asarray(params)
            for k in range(batch):
                kk = np.uint32(k)
                self.k_test((g.blocks,), (s.block,), (mem, res, scratch, sync, dparams, kk))
                self.k_tally(
                    (tally_blocks,),
                    (256,),
                    (mem, res, sync, dparams, kk, hist, ovf, np.uint32(OVERFLOW_CAP), counters),
                )
            done += batch
            if seconds is not None:
                cp.cuda.runtime.deviceSynchronize()
        cp.cuda.runtime.deviceSynchronize()
        h = hist.get()
        c = counters.get()
        elapsed = time.perf_counter() - t0
        out = RunCounts(
            instances=done * n,
            launches=done,
            seconds=elapsed,
            compile_seconds=self.compile_seconds,
            timeouts=int(c[0]),
            filtered=int(c[1]),
            missing=int(c[3]),
            instances_per_launch=n,
        )
        stride, _ = strides(lt)
        for key in np.nonzero(h)[0]:
            vals = []
            rest = int(key)
            for d, st in zip(lt.domains, stride, strict=True):
                vals.append(d[rest // st % len(d)])
            out.histogram[tuple(vals)] = int(h[key])
        kept = min(int(c[2]), OVERFLOW_CAP)
        out.overflow_lost = int(c[2]) - kept
        if kept:
            rows = ovf[: kept * nv].get().reshape(kept, nv)
            for r in rows:
                seen = tuple(int(x) for x in r[: len(lt.variables)])
                out.histogram[seen] = out.histogram.get(seen, 0) + 1
        return out

    def _params(self, g, s: Setting, n: int, rng: random.Random, fixed: dict) -> list[int]:
        """One launch's parameters, in the order of `cuda.PARAMS`: placement's
        (drawn afresh) and the setting's (`fixed`, the same every launch), one
        table each with the driver; then each location's shuffle (a, c): copy
        i of a location at (a*i + c) mod n."""
        vals = parameters(self.shape, g, draw(g, rng if s.randomise else None)) | fixed
        shuffles = [affine(n, rng) if s.shuffle else (1, 0) for _ in self.lt.locations]
        return [vals[k] for k in PARAMS] + [a for a, _ in shuffles] + [c for _, c in shuffles]
