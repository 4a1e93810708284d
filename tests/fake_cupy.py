"""A stand-in for CuPy over hrf_emulate.h, so that `hrf run`'s own runtime
(gpu/runtime.py: its geometry, per-launch parameters, memory layout,
launches and the reading of the histogram) runs on a CPU in tests: device
arrays are NumPy arrays, and a kernel launch calls the test's kernels,
built with g++ as a shared library under the emulation, through
`hrf_emulate_kernel` (gpu/driver/hrf_driver.h). The test threads write
the emulation's script, not their PTX's results: a check of the harness,
not of any memory model."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from hrf.gpu import emit_cuda

GXX = shutil.which("g++")


class Array(np.ndarray):
    """A device array: NumPy's, with CuPy's `get`."""

    def get(self):
        return np.asarray(self)


def _device(a) -> Array:
    return np.ascontiguousarray(a).view(Array)


class _Runtime:
    """The made-up device of hrf_emulate.h: 2 SMs of 2048 threads."""

    def getDeviceCount(self):
        return 1

    def getDeviceProperties(self, device):
        return {
            "name": b"hrf CPU emulation",
            "major": 0,
            "minor": 0,
            "multiProcessorCount": 2,
            "maxThreadsPerMultiProcessor": 2048,
            "regsPerMultiprocessor": 65536,
        }

    def driverGetVersion(self):
        return 0

    def runtimeGetVersion(self):
        return 0

    def deviceSynchronize(self):
        pass


class _Kernel:
    num_regs = 32  # as hrf_emulate.h's cudaFuncGetAttributes says

    def __init__(self, lib, name: str):
        self.lib, self.name = lib, name

    def __call__(self, grid, block, args):
        words = [a.ctypes.data if isinstance(a, np.ndarray) else int(a) for a in args]
        rc = self.lib.hrf_emulate_kernel(
            self.name.encode(), grid[0], block[0], (ctypes.c_ulonglong * len(words))(*words)
        )
        assert rc == 0, f"no kernel {self.name}"


class _Module:
    def __init__(self, lib):
        self.lib = lib

    def get_function(self, name: str) -> _Kernel:
        return _Kernel(self.lib, name)


class FakeCupy:
    """The part of CuPy that gpu/runtime.py uses, over one test's kernels."""

    uint32 = np.uint32
    uint64 = np.uint64

    def __init__(self, library: Path):
        self.lib = ctypes.CDLL(str(library))
        self.lib.hrf_emulate_kernel.argtypes = [
            ctypes.c_char_p,
            ctypes.c_uint,
            ctypes.c_uint,
            ctypes.POINTER(ctypes.c_ulonglong),
        ]
        self.lib.hrf_emulate_kernel.restype = ctypes.c_int
        self.cuda = SimpleNamespace(runtime=_Runtime(), Device=lambda: SimpleNamespace(id=0))

    def restart(self) -> None:
        """The script from launch 0 again."""
        self.lib.hrf_emulate_restart()

    def empty(self, n, dtype):
        return _device(np.empty(n, dtype))

    def full(self, n, value, dtype):
        return _device(np.full(n, value, dtype))

    def zeros(self, n, dtype):
        return _device(np.zeros(n, dtype))

    def asarray(self, a):
        return _device(a)

    def RawModule(self, path):  # CuPy's name
        return _Module(self.lib)


def fake_cupy(test, folder: Path) -> FakeCupy:
    """A FakeCupy running `test`'s kernels (emitted and built into `folder`)."""
    (cu,) = emit_cuda([test], folder)
    lib = cu.with_suffix(".so")
    r = subprocess.run(
        [GXX, "-std=c++17", "-O1", "-shared", "-fPIC", "-x", "c++", "-DHRF_EMULATE", "-include", "hrf_emulate.h"]
        + ["-o", str(lib), str(cu)],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    cp = FakeCupy(lib)
    cp.restart()
    return cp
