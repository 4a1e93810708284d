"""The standalone driver of `hrf run --emit-cuda` (gpu/driver/hrf_driver.h),
checked on a CPU: each emitted `.cu` is built with g++ against
hrf_emulate.h (kernels run one thread after another, test threads write
the values of a fixed script instead of running their PTX) and run; the
histogram it prints must be the one computed here from the script and
from hrf's own placement geometry, and its log the one `hrf run`'s report
writes for that histogram (device, rate and time lines aside).

What this cannot check is the hardware: that needs a GPU
(benchmarks/gpu_check.sh builds the driver with nvcc and runs it there)."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import fields
from pathlib import Path

import pytest

from hrf.cli import main
from hrf.gpu import Setting, emit_cuda, prepare
from hrf.gpu.placement import geometry
from hrf.gpu.report import build, signed
from hrf.gpu.runtime import DeviceInfo, RunCounts
from hrf.gpu.setting import PATTERNS
from hrf.herdout import read_herd_output
from hrf.litmus import ast as A
from hrf.litmus import parse_file, parse_text

LITMUS = Path(__file__).parent.parent / "litmus"
GXX = shutil.which("g++")
pytestmark = pytest.mark.skipif(GXX is None, reason="g++ builds the driver's CPU check (on every machine CI uses)")

# A filter, ~exists, a negative initial value, two threads in one warp of one CTA.
FILTERED = """PTX filtered
"hrf's own: a filter and ~exists"
{
x=-1; y=0;
P0:r0=0; P1:r1=0; P2:r2=0;
}
 P0@cta 0,gpu 0      | P1@cta 0,gpu 0       | P2@cta 1,gpu 0 ;
 st.relaxed.gpu x, 2 | ld.relaxed.gpu r1, x | ld.relaxed.gpu r2, y ;
 ld.relaxed.gpu r0, y | st.relaxed.gpu y, 3 | ;
filter (P0:r0 != 3)
~exists (P1:r1 == -1 /\\ P2:r2 == 3 /\\ x == 2)
"""
WARPS = """OpenCL warps
{ [x]=0; [y]=0; }
P0@sg 0, wg 0, dev 0 (global atomic_int* x, global atomic_int* y) {
  atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_work_group);
}
P1@sg 0, wg 0, dev 0 (global atomic_int* x, global atomic_int* y) {
  int r0 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_work_group);
}
P2@sg 1, wg 0, dev 0 (global atomic_int* x, global atomic_int* y) {
  int r1 = atomic_load_explicit(y, memory_order_relaxed, memory_scope_work_group);
}
exists (1:r0=1 /\\ 2:r1=0)
"""

# CTA barriers (placed in whole warps): Dat3M's named barriers, an arrive, two CTAs
BARRIERS = """PTX barriers
{
x=0; y=0; z=0;
}
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0   | P2@cta 1,gpu 0 | P3@cta 1,gpu 0 ;
 st.weak x, 1   | bar.cta.arrive 2 | st.weak z, 1   | bar.cta.sync 1 ;
 bar.cta.sync 1 | bar.cta.sync 1   | bar.cta.sync 1 | ld.weak r0, z  ;
 bar.cta.sync 2 | ld.weak r0, x    |                | ld.weak r1, y  ;
exists (P1:r0 == 0 /\\ P3:r0 == 1)
"""
# OpenCL's work-group barrier
WG_BARRIER = """OpenCL wg-barrier
{ [x]=0; [y]=0; }
P0@wg 0, dev 0 (global atomic_int* x, global atomic_int* y) {
  atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_work_group);
  barrier(CLK_GLOBAL_MEM_FENCE);
  int r0 = atomic_load_explicit(y, memory_order_relaxed, memory_scope_work_group);
}
P1@wg 0, dev 0 (global atomic_int* x, global atomic_int* y) {
  atomic_store_explicit(y, 1, memory_order_relaxed, memory_scope_work_group);
  barrier(CLK_GLOBAL_MEM_FENCE);
  int r1 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_work_group);
}
exists (0:r0=0 /\\ 1:r1=0)
"""

# a work-group's barrier over local (shared) memory: the spare lanes' shared scratch
LOCAL_BARRIER = """OpenCL local-barrier
{ [x]=0; }
P0@wg 0, dev 0 (local int* x) {
  *x = 1;
  barrier(CLK_LOCAL_MEM_FENCE);
}
P1@wg 0, dev 0 (local int* x) {
  barrier(CLK_LOCAL_MEM_FENCE);
  int r0 = *x;
}
exists (1:r0=0)
"""
# An array: its elements' initial values (one never accessed, in the outcome), a vector store at
# an offset, a scalar load of an element.
ARRAY = """PTX array
"hrf's own: an array's elements laid out in a row"
{
x[4] = {5, 6, 7, 8};
}
 P0@cta 0,gpu 0                         | P1@cta 1,gpu 0 ;
 st.relaxed.gpu.v2.u32 [x+8], {1, 2}    | ld.relaxed.gpu.u32 r0, [x+12] ;
                                        | ld.relaxed.gpu.u32 r1, [x] ;
exists (P1:r0 == 2 /\\ x[1] == 6 /\\ x[3] == 2 /\\ x[0] == 5)
"""
# The same in the shared memory of one CTA, a vector load too.
SHARED_ARRAY = """PTX shared-array
"hrf's own: an array in shared memory"
{
x[4] = {5, 6, 7, 8} @ shared P0;
}
 P0@cta 0,gpu 0                                    | P1@cta 0,gpu 0 ;
 st.shared.relaxed.cta.v2.u32 [x+8], {1, 2}        | ld.shared.relaxed.cta.u32 r0, [x+12] ;
                                                   | ld.shared.relaxed.cta.v2.u32 {r1, r2}, [x+8] ;
exists (P1:r0 == 2 /\\ x[1] == 6 /\\ x[3] == 2 /\\ x[0] == 5 /\\ P1:r1 == 1)
"""
BARRIER_TESTS = {"barriers": BARRIERS, "wg-barrier": WG_BARRIER, "local-barrier": LOCAL_BARRIER}


def _tests(tmp_path):
    (tmp_path / "filtered.litmus").write_text(FILTERED)
    (tmp_path / "warps.litmus").write_text(WARPS)
    (tmp_path / "array.litmus").write_text(ARRAY)
    (tmp_path / "shared-array.litmus").write_text(SHARED_ARRAY)
    for name, text in BARRIER_TESTS.items():
        (tmp_path / f"{name}.litmus").write_text(text)
    return [
        LITMUS / "gpu15" / "MP+membar.gl.litmus",  # [GPU15]'s PTX
        LITMUS / "ptx7" / "SpinMP.litmus",  # forall, a spin loop
        LITMUS / "gpu" / "IRIW+rlx-gpu.litmus",  # four CTAs
        LITMUS / "gpu" / "2+2W+rlx-gpu.litmus",  # memory locations in the outcome
        LITMUS / "hrf" / "hrf14-fig5-diff-wg.litmus",  # C/OpenCL lowered with the atomics ABI
        LITMUS / "ptx7" / "CoRR+v2-acquire-orders.litmus",  # a vector load, an array's elements in the outcome
        LITMUS / "ptx7" / "MP+v2+rel-acq.litmus",  # vector accesses, an array's initial values
        tmp_path / "filtered.litmus",
        tmp_path / "warps.litmus",
        tmp_path / "array.litmus",
        tmp_path / "shared-array.litmus",
        *(tmp_path / f"{name}.litmus" for name in BARRIER_TESTS),
    ]


def build_emulation(cu: Path, opt: str = "-O1") -> Path:
    exe = cu.with_suffix(".emu")
    r = subprocess.run(
        [GXX, "-std=c++17", opt, "-Wall", "-Werror", "-x", "c++", "-DHRF_EMULATE", "-include", "hrf_emulate.h"]
        + ["-o", str(exe), str(cu)],
        cwd=cu.parent,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    return exe


def expected_counts(test: A.Test, s: Setting, launches: int, blocks: int) -> RunCounts:
    """What the driver must count: hrf_driver.h's script (in launch l,
    variable k takes the domain's value (l + k) mod its size, variable 0 of
    every fifth launch 1000000 + l, outside every domain; test thread 0 of
    every seventh launch times out; a location no thread accesses keeps its
    initial value) in every instance of the launch, the instances from
    hrf's placement geometry. Histogram order as the runtime builds it:
    keys in mixed-radix order, then the values outside the domains as
    first recorded."""
    lt, shape = prepare(test)
    n = geometry(shape, blocks, s.block, s.test_warps, s.lanes).instances(shape)
    names = [str(v) for v in lt.variables]
    # what the accesses reach: a vector's elements too, consecutive locations from its own
    accessed = {
        lt.locations[lt.locations.index(loc) + j]
        for th in lt.threads
        for loc, n in zip(th.locs, th.words, strict=True)
        for j in range(n)
    }
    inside: dict = {}
    outside: dict = {}
    out = RunCounts(launches=launches, instances=launches * n, instances_per_launch=n)
    for l in range(launches):
        if l % 7 == 6:
            out.timeouts += n
            continue
        vals = []
        for k, v in enumerate(lt.variables):
            d = lt.domains[k]
            if isinstance(v, A.LocVar) and v.loc not in accessed:
                vals.append(lt.init.get(v.loc, 0) & 0xFFFFFFFF)
            elif k == 0 and l % 5 == 4:
                vals.append(1000000 + l)
            else:
                vals.append(d[(l + k) % len(d)])
        state = dict(zip(names, (signed(x) for x in vals), strict=True))
        if test.filter is not None and not A.prop_holds(test.filter, state):
            out.filtered += n
            continue
        key = tuple(vals)
        if all(x in d for x, d in zip(vals, lt.domains, strict=True)):
            inside[key] = inside.get(key, 0) + n
        else:
            outside[key] = outside.get(key, 0) + n
    radix = [len(d) for d in lt.domains]

    def order(key):
        idx, mul = 0, 1
        for x, d, r in zip(key, lt.domains, radix, strict=True):
            idx += d.index(x) * mul
            mul *= r
        return idx

    out.histogram = {k: inside[k] for k in sorted(inside, key=order)} | outside
    return out


DEVICE = DeviceInfo("hrf CPU emulation", "sm_00", 2, 2048, 65536, "0.0", "0.0", "-")
SKIP = ("Device=", "Instances=", "Time ")


def _log_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith(SKIP)]


def check_run(tmp_path, path: Path, s: Setting, args: list[str], launches: int, blocks: int, exe=None) -> None:
    test = parse_file(path)
    if exe is None:
        (cu,) = emit_cuda([test], tmp_path / "out", s)
        exe = build_emulation(cu)
    r = subprocess.run([str(exe), f"launches={launches}", f"blocks={blocks}", *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lt, _ = prepare(test)
    want = build(lt, expected_counts(test, s, launches, blocks), DEVICE, s, "not run (standalone driver)")
    assert _log_lines(r.stdout) == _log_lines(want.to_litmus7()), path.name
    inst = re.search(r"^Instances=(\d+) in (\d+) launches of (\d+),", r.stdout, re.M)
    c = want.counts
    assert inst and tuple(map(int, inst.groups())) == (c.instances, c.launches, c.instances_per_launch)
    assert "Missing=" not in r.stdout  # every instance's every thread ran: the placement covers them
    log = exe.with_suffix(".log")
    log.write_text(r.stdout)
    v = read_herd_output(log)[want.name]
    assert sum(v.counts) == want.positive + want.negative > 0


def test_the_driver_counts_what_the_script_writes(tmp_path):
    """Every test of the set, default setting (as emitted): the printed log
    is `hrf run`'s report of the histogram computed here; time-outs and
    filtered instances counted apart, values outside the domains listed."""
    for path in _tests(tmp_path):
        check_run(tmp_path, path, Setting(), [], launches=37, blocks=8)


def test_every_shipped_test_s_driver_counts_what_the_script_writes(tmp_path):
    """The same for every shipped test that `hrf run` runs ([GPU15]'s PTX,
    Dat3M's PTX, C/OpenCL): built without optimisation, a few launches."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    from test_gpu import runnable_shipped

    runnable = [(f, emit_cuda([lt.test], tmp_path / f.parent.name)[0]) for f, lt, _ in runnable_shipped()]
    assert len(runnable) > 50
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        exes = list(pool.map(lambda fc: build_emulation(fc[1], "-O0"), runnable))
    for (f, _), exe in zip(runnable, exes, strict=True):
        check_run(tmp_path, f, Setting(), [], launches=12, blocks=8, exe=exe)


def test_the_driver_under_other_settings(tmp_path):
    """Settings from the command line and from the emitted defaults
    (`--setting`): the geometry follows them (instances per launch) and
    the log names them; stress, bank conflicts, the synchronised start and
    no randomisation all still run every instance."""
    base = Setting(block=256, test_warps=3, lanes=8, randomise=False, shuffle=False, pad=1)
    args = ["stress=1", "stress_pattern=ld-ld", "stress_iters=4", "stress_words=64", "bank_conflicts=true", "sync=1"]
    want = Setting(
        block=256,
        test_warps=3,
        lanes=8,
        stress=True,
        stress_pattern="ld-ld",
        stress_iters=4,
        stress_words=64,
        bank_conflicts=True,
        sync=True,
        randomise=False,
        shuffle=False,
        pad=1,
    )
    path = _tests(tmp_path)[2]  # IRIW: four CTAs
    test = parse_file(path)
    (cu,) = emit_cuda([test], tmp_path / "o", base)
    exe = build_emulation(cu)
    r = subprocess.run([str(exe), "launches=9", "blocks=8", *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lt, _ = prepare(test)
    expect = build(lt, expected_counts(test, want, 9, 8), DEVICE, want, "not run (standalone driver)")
    assert _log_lines(r.stdout) == _log_lines(expect.to_litmus7())
    assert f"Incantations={want.describe()}\n" in r.stdout


def test_the_driver_refuses_bad_arguments_by_name(tmp_path):
    (cu,) = emit_cuda([parse_file(LITMUS / "gpu" / "MP+rlx-gpu.litmus")], tmp_path)
    exe = build_emulation(cu)
    for args, words in (
        (["blok=128"], "unknown argument blok=128 (NAME=VALUE, the names: launches, seconds, seed, block,"),
        (["block=100"], "incantation setting: block 100: a power of two times 32, at most 1024"),
        (["lanes=40"], "incantation setting: lanes 40: 1 to 32"),
        (["launches=x"], "launches=x: a whole number"),
        (["sync=maybe"], "sync=maybe: 0, 1, true or false"),
        (["stress_pattern=st"], "stress_pattern: one of st-st, st-ld, ld-st, ld-ld"),
        (["lanes=1", "blocks=8"], "cannot run on a GPU: a CTA of the test needs more than"),
        (["blocks=1"], "cannot run on a GPU: 2 CTAs, more than the 1 blocks that fit"),
    ):
        if words.startswith("cannot run") and "lanes" in args[0]:
            continue  # MP's CTAs hold one thread each: one lane serves them
        r = subprocess.run([str(exe), *args], capture_output=True, text=True)
        assert r.returncode == 2 and words in r.stderr, (args, r.stderr)


def test_the_driver_knows_the_setting_field_for_field():
    """The C struct the emitted HRF_SETTING fills is hrf's Setting, in order;
    the driver takes every field by its name."""
    from hrf.gpu.cuda import driver_file

    text = driver_file("hrf_driver.h")
    struct = re.search(r"struct HrfSetting \{\s*unsigned ([^;]+);", text)
    assert struct
    names = [f.name for f in fields(Setting)]
    assert [x.strip() for x in struct.group(1).split(",")] == names
    for n in names:
        assert f'{{"{n}", &s.{n},' in text
    assert PATTERNS == ("st-st", "st-ld", "ld-st", "ld-ld")
    assert 'HRF_PATTERNS[] = {"st-st", "st-ld", "ld-st", "ld-ld"}' in text


def test_emit_cuda_writes_the_driver_beside_the_sources(tmp_path, capsys):
    """`--setting` gives the emitted driver its defaults."""
    f = tmp_path / "s.json"
    f.write_text('{"setting": {"block": 256, "stress": true}}')
    out = tmp_path / "cu"
    rc = main(["run", "--emit-cuda", str(out), "--setting", str(f), str(LITMUS / "gpu" / "SB+rlx-gpu.litmus")])
    assert rc == 0
    assert {p.name for p in out.iterdir()} == {"SB+rlx-gpu.cu", "hrf_driver.h", "hrf_emulate.h"}
    text = (out / "SB+rlx-gpu.cu").read_text()
    assert "#define HRF_SETTING {256u, 2u, 16u, 1u," in text and '#include "hrf_driver.h"' in text


def test_what_nvrtc_compiles_is_the_kernels_alone():
    """NVRTC (hrf run's compiler) defines __CUDACC_RTC__: the driver's part
    is left out, so the kernels `hrf run` compiles are the reviewed ones."""
    from hrf.gpu.cuda import source, standalone

    lt, shape = prepare(parse_text(WARPS))
    full = standalone(lt, shape, Setting())
    kernels = source(lt, shape)
    assert full.startswith(kernels)
    rest = full[len(kernels) :].strip().splitlines()
    assert rest[0].startswith("#ifndef __CUDACC_RTC__") and rest[-1] == "#endif"


# ------------------------------------------------------------ hrf run's own runtime, on a CPU
def test_hrf_run_s_runtime_counts_what_the_script_writes(tmp_path):
    """gpu/runtime.py's Runner (what `hrf run` uses with CuPy) over the
    emulated kernels (tests/fake_cupy.py): its geometry, per-launch
    parameters, memory layout and histogram reading give the histogram
    computed from the script, time-outs, filtered instances and values
    outside the domains included; no instance misses a thread."""
    from fake_cupy import fake_cupy
    from hrf.gpu.runtime import Runner

    for k, path in enumerate(_tests(tmp_path)):
        test = parse_file(path)
        lt, shape = prepare(test)
        cp = fake_cupy(test, tmp_path / f"lib{k}")
        runner = Runner(lt, shape, cupy=cp, cubin=b"")
        for s, launches in ((Setting(blocks=8), 37), (Setting(blocks=16, shuffle=False, randomise=False, pad=1), 9)):
            cp.restart()
            got = runner.run(s, launches=launches, seed=11)
            want = expected_counts(test, s, launches, s.blocks)
            assert got.histogram == want.histogram, path.name
            assert (got.instances, got.launches, got.instances_per_launch) == (
                want.instances,
                want.launches,
                want.instances_per_launch,
            )
            assert (got.timeouts, got.filtered, got.missing, got.overflow_lost) == (want.timeouts, want.filtered, 0, 0)


def test_hrf_run_end_to_end_on_a_cpu(tmp_path):
    """`gpu.run_test` whole, over the emulated kernels: with NVIDIA's
    compiler at hand the code check runs on the real SASS; the models judge
    the histogram (the script's values are no memory model's, so they find
    states to forbid: the comparison at work, not a finding); the report is
    the one the standalone driver prints for the same launches."""
    from fake_cupy import fake_cupy
    from hrf import gpu
    from hrf.gpu.cuda import source
    from hrf.gpu.runtime import Runner, compile_cubin
    from test_gpu_toolchain import toolchain_at_hand

    path = LITMUS / "gpu" / "MP+rlx-gpu.litmus"
    test = parse_file(path)
    lt, shape = prepare(test)
    cp = fake_cupy(test, tmp_path)
    have_nvcc = toolchain_at_hand()  # without it the run goes on with --no-codecheck (CI requires it)
    cubin = compile_cubin(source(lt, shape), "sm_90", "MP.cu") if have_nvcc else b""
    runner = Runner(lt, shape, cupy=cp, cubin=cubin)
    s = Setting(blocks=8)
    r = gpu.run_test(
        test, s, launches=23, model=["ptx-6.0", "ptx-7.5"], codecheck=have_nvcc, runner_cache={id(test): runner}
    )
    assert r.codecheck == ("ok" if have_nvcc else "skipped (--no-codecheck)")
    assert [v.model for v in r.verdicts] == ["ptx-6.0", "ptx-7.5"] and r.forbidden
    assert "384 instances timed out in a spin loop (not counted as states)" in r.notes  # launches 6, 13, 20
    exe = build_emulation(next(tmp_path.glob("*.cu")))
    d = subprocess.run([str(exe), "launches=23", "blocks=8"], capture_output=True, text=True)
    assert _log_lines(d.stdout) == _log_lines(r.to_litmus7())


def test_runs_for_a_time_and_tuning_on_a_cpu(tmp_path, monkeypatch):
    """`--seconds` (the Runner's and the driver's) runs whole batches until
    the time is up and counts every launch it made; `--tune` samples
    settings (workgroups, stress, synchronised start, ...) and runs each
    through the Runner, best first (over the emulated kernels: the weak
    counts are the script's)."""
    import hrf.gpu.runtime as rt
    from fake_cupy import fake_cupy
    from hrf import gpu
    from hrf.gpu.runtime import Runner

    test = parse_file(LITMUS / "gpu" / "SB+rlx-gpu.litmus")
    lt, shape = prepare(test)
    cp = fake_cupy(test, tmp_path)
    got = Runner(lt, shape, cupy=cp, cubin=b"").run(Setting(blocks=8), seconds=0.3, seed=1)
    assert got.launches % 64 == 0 and got.launches >= 64 and got.seconds >= 0.3  # whole batches of 64
    assert got.instances == got.launches * got.instances_per_launch
    # every instance counted once: a state, a time-out, or beyond the 65,536 out-of-domain records (lost, said)
    assert sum(got.histogram.values()) + got.timeouts + got.filtered + got.overflow_lost == got.instances
    # past the records' end whatever the machine's speed: the script writes about 22 out-of-domain
    # states a launch, so 4,096 launches write some 90,000 (a timed run reaches them only on a fast CPU)
    cp.restart()
    got = Runner(lt, shape, cupy=cp, cubin=b"").run(Setting(blocks=8), launches=4096, seed=1)
    assert sum(got.histogram.values()) + got.timeouts + got.filtered + got.overflow_lost == got.instances
    assert got.overflow_lost > 0 and sum(n for k, n in got.histogram.items() if k[0] >= 1000000) == 1 << 16
    exe = build_emulation(next(tmp_path.glob("*.cu")))
    d = subprocess.run([str(exe), "seconds=0.2", "blocks=8"], capture_output=True, text=True)
    inst = re.search(r"^Instances=(\d+) in (\d+) launches of (\d+),", d.stdout, re.M)
    assert d.returncode == 0 and inst and int(inst.group(2)) % 64 == 0 and int(inst.group(2)) >= 64

    monkeypatch.setattr(rt, "cupy_module", lambda: cp)
    monkeypatch.setattr(rt, "compile_cubin", lambda src, arch, name="": b"")
    rows = gpu.tune(test, 1.5, 3, seed=5)
    assert 1 <= len(rows) <= 3 and any(r[0] == Setting() for r in rows)  # the default is tried first
    assert [r[1] for r in rows] == sorted((r[1] for r in rows), reverse=True)
    for _setting, rate, weak, secs in rows:
        assert secs > 0 and rate == weak / secs
