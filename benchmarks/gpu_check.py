"""The device check of `hrf run` (benchmarks/gpu_check.sh runs it on a
machine with an NVIDIA GPU and CuPy): [GPU15]'s PTX tests and the
MP/SB/LB/CoRR/IRIW/2+2W families at cta and gpu scope, relaxed and fenced,
each run with the default incantations, compared with the models (`ptx`,
and translated `ptx-6.0` and `ptx-7.5`, for [GPU15]'s tests; `ptx-6.0`,
`ptx-7.5` and Dartagnan's ptx-v6.0.cat where it is at hand for the PTX 6
families; `opencl`, `hrf-direct` and `hrf-indirect` for the HRF papers'
OpenCL tests, run through the atomics ABI); weak outcomes per second for MP, SB and LB at gpu scope with
the default and with a tuned setting; the end-to-end rate; the standalone
driver of `hrf run --emit-cuda` built with nvcc, run, its log judged.

    python benchmarks/gpu_check.py [--tests DIR ...] [--cat FILE] [--out DIR] [--launches N] [--tune SECONDS]

Prints a table last; writes the litmus7 log (gpu.log), one JSON object per
test (gpu.jsonl), the SASS of every test kernel (sass.txt), the runs as
tests/data/hardware keeps them (hardware.json: copy it there, named after
the device and the date) and the driver's builds and logs (driver/) under
--out.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
import traceback


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tests", action="append", default=[], help="folders of .litmus files")
    ap.add_argument("--cat", default=None, help="the model for Dat3M-PTX tests (ptx-v6.0.cat)")
    ap.add_argument("--out", default=os.environ.get("OUT", "gpu-check"))
    ap.add_argument("--launches", type=int, default=200)
    ap.add_argument("--tune", type=float, default=20.0, help="seconds of tuning per MP/SB/LB test")
    ap.add_argument("--rate-seconds", type=float, default=5.0)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    from hrf import gpu
    from hrf.gpu.runtime import NoGpu, Runner, cupy_module, device_info
    from hrf.gpu.sass import disassemble
    from hrf.litmus import parse_file
    from hrf.litmus.ptx_hopper import first_sm90_form

    try:
        cp = cupy_module()
    except NoGpu as e:
        print(f"gpu_check: {e}", file=sys.stderr)
        return 2
    info = device_info(cp)
    print(
        f"device: {info.name} {info.arch}, {info.sms} SMs, driver {info.driver}, CUDA {info.cuda}, NVRTC {info.nvrtc}"
    )
    folders = a.tests or ["litmus/gpu"]
    # in the order the folders are given (the first run first: a run cut at its time limit keeps them)
    files = [f for d in folders for f in sorted(glob.glob(os.path.join(d, "*.litmus")))]
    log = open(os.path.join(a.out, "gpu.log"), "w", encoding="utf-8")  # noqa: SIM115 - closed at the end
    js = open(os.path.join(a.out, "gpu.jsonl"), "w", encoding="utf-8")  # noqa: SIM115 - closed at the end
    sass = open(os.path.join(a.out, "sass.txt"), "w", encoding="utf-8")  # noqa: SIM115 - closed at the end
    from hrf.models import get as get_model

    cat = [get_model(a.cat)] if a.cat else []  # read once, not once a test
    rows = []
    record: list = []  # the runs as tests/data/hardware keeps them
    cache: dict = {}
    for f in files:
        started = time.perf_counter()  # the test's whole time here: compile, SASS, run, judging
        t = parse_file(f)
        # Dat3M's cat file predates sm_90: it judges no test of sm_90's forms
        model = gpu.judges(t.arch) + (cat if t.arch == "PTX" and first_sm90_form(t) is None else [])
        try:
            lt, shape = gpu.prepare(t)
        except gpu.NotRunnable as e:
            rows.append((t.name, "refused", str(e)))
            print(f"{t.name}: refused: {e}", flush=True)
            continue
        try:
            runner = Runner(lt, shape)
            cache[id(t)] = runner
            try:
                sass.write(f"##### {t.name} ({f})\n{disassemble(runner.cubin)}\n")
            except Exception as e:
                print(f"{t.name}: no SASS: {e}", flush=True)
            sass.flush()
        except Exception as e:
            rows.append((t.name, "compile", f"{type(e).__name__}: {e}"))
            print(f"{t.name}: compile failed: {e}", flush=True)
            continue
        try:
            r = gpu.run_test(t, launches=a.launches, model=model, runner_cache=cache, seed=1)
        except Exception as e:
            try:
                r = gpu.run_test(t, launches=a.launches, model=model, runner_cache=cache, codecheck=False, seed=1)
                r.notes.append(f"code check failed: {e}")
                r.codecheck = "FAILED"
            except Exception as e2:
                rows.append((t.name, "run", f"{type(e2).__name__}: {e2}"))
                print(f"{t.name}: run failed: {e2}", flush=True)
                traceback.print_exc()
                continue
        log.write(r.to_litmus7())
        whole = r.to_json()
        js.write(json.dumps(whole) + "\n")
        forb = sum(n for _, n in r.forbidden)
        record.append(
            {
                "test": t.name,
                "from": origin(f),
                "file": os.path.basename(f),
                "observation": r.observation,
                "weak": r.positive,
                "instances": r.counts.instances,
                "compared_with": r.model,
                "forbidden_seen": forb,
                "code": r.codecheck,
                "states": [{"outcome": s["outcome"], "count": s["count"]} for s in whole["states"]],
                "forbidden": {m["model"]: m["forbidden"] for m in whole["models"] if m["forbidden"]},
            }
        )
        save_record(a, info, record)  # after each test: a run cut at its time limit keeps its record
        rows.append(
            (
                t.name,
                "ok",
                f"{r.positive:>9} / {r.counts.instances:>11}  {r.counts.rate / 1e6:7.1f} M/s  "
                f"forbidden {forb if r.model else '-'}  timeouts {r.counts.timeouts}  code {r.codecheck[:40]}",
            )
        )
        for line in r.comparison() + r.notes:
            print("  " + line)
        print(
            f"{t.name}: weak {r.positive} of {r.counts.instances}, {r.counts.rate / 1e6:.1f} M/s; "
            f"{time.perf_counter() - started:.1f} s in all (compile {r.counts.compile_seconds:.1f} s)",
            flush=True,
        )

    # weak behaviours per second: default and tuned, MP/SB/LB at gpu scope
    weak = []
    for name in ("MP+rlx-gpu", "SB+rlx-gpu", "LB+rlx-gpu"):
        path = next((f for f in files if os.path.basename(f) == f"{name}.litmus"), None)
        if path is None:
            continue
        t = parse_file(path)
        try:
            d = gpu.run_test(t, seconds=a.rate_seconds, runner_cache=cache, seed=2)
            tuned = gpu.tune(t, a.tune, 8, seed=3)
            best = tuned[0][0] if tuned else gpu.Setting()
            b = gpu.run_test(t, best, seconds=a.rate_seconds, runner_cache=cache, seed=4)
            weak.append((name, d.positive / d.counts.seconds, b.positive / b.counts.seconds, best.describe()))
            with open(os.path.join(a.out, f"tuned-{name.replace('+', '_')}.json"), "w", encoding="utf-8") as f:
                json.dump(
                    {
                        "test": name,
                        "setting": best.to_json(),
                        "tuning": [
                            {"setting": s.to_json(), "weak_per_second": w, "weak": n, "seconds": sec}
                            for s, w, n, sec in tuned
                        ],
                    },
                    f,
                    indent=1,
                )
        except Exception as e:
            print(f"{name}: weak/s failed: {e}", flush=True)
            traceback.print_exc()

    # the end-to-end rate: instances per second on SB+rlx-gpu, default setting
    rate = None
    path = next((f for f in files if os.path.basename(f) == "SB+rlx-gpu.litmus"), None)
    if path:
        t = parse_file(path)
        t0 = time.perf_counter()
        r = gpu.run_test(t, seconds=a.rate_seconds, runner_cache=cache, seed=5)
        rate = (r.counts.rate, r.counts.instances, time.perf_counter() - t0)
        fast = gpu.Setting(block=256, test_warps=8, lanes=32, pad=1)
        r2 = gpu.run_test(t, fast, seconds=a.rate_seconds, runner_cache=cache, seed=6)
        rate += (r2.counts.rate, r2.positive)
        for name, s in (
            (
                "[GPU15]-style stress and sync",
                gpu.Setting(block=256, test_warps=4, lanes=32, stress=True, sync=True, pad=1),
            ),
            ("light stress", gpu.Setting(stress=True, stress_iters=32, stress_words=4096)),
            ("sync", gpu.Setting(sync=True)),
        ):
            r3 = gpu.run_test(t, s, seconds=a.rate_seconds, runner_cache=cache, seed=7)
            print(
                f"rate SB+rlx-gpu {name}: {r3.counts.rate / 1e6:.1f} M/s, weak {r3.positive} "
                f"({r3.positive / r3.counts.seconds:.0f}/s)",
                flush=True,
            )

    driver = standalone_driver(files, a.out, info)
    log.close()
    js.close()
    sass.close()
    save_record(a, info, record)
    print()
    print(f"device: {info.name} {info.arch}, driver {info.driver}, CUDA {info.cuda}")
    for name, status, what in rows:
        print(f"{name:28s} {status:8s} {what}")
    for name, dflt, tuned, s in weak:
        print(f"weak/s {name:14s} default {dflt:10.1f}  tuned {tuned:10.1f}  ({s})")
    for line in driver:
        print(line)
    if rate:
        print(
            f"rate SB+rlx-gpu default: {rate[0] / 1e6:.1f} M instances/s; dense (block 256, 8 test warps): {rate[3] / 1e6:.1f} M/s "
            f"({rate[4]} weak)"
        )
    return 0


def save_record(a, info, record: list) -> None:
    """The runs so far as tests/data/hardware keeps them (hardware.json
    under --out): each test's states with their counts, and the states
    each judging model forbids."""
    with open(os.path.join(a.out, "hardware.json"), "w", encoding="utf-8") as f:
        json.dump(
            {
                "device": f"{info.name} ({info.arch}, {info.sms} SMs)",
                "driver": f"CUDA {info.driver} (nvidia-smi above names the driver's release)",
                "runtime": f"CuPy's CUDA {info.cuda}, NVRTC {info.nvrtc}",
                "date": time.strftime("%Y-%m-%d"),
                "launches": a.launches,
                "setting": "the default (gpu/setting.py)",
                "how": "benchmarks/gpu_check.sh; weak: instances whose final state satisfies the condition's proposition; "
                "states: the histogram; forbidden: the states each judging model forbids",
                "runs": record,
            },
            f,
            indent=1,
        )


def origin(path: str) -> str:
    """Where a test comes from, as tests/data/hardware names it."""
    d = os.path.dirname(os.path.relpath(path))
    return os.path.basename(d) if os.path.basename(d) == "ptx-asplos15" else d


# the driver on global memory, a spin loop, shared memory ([GPU15]'s mp-volatile), a CTA barrier
# (Dat3M's SB+bar-const-equal) and sm_90's mbarrier in shared memory
DRIVER_TESTS = ("MP+rlx-gpu", "SB+fence.sc-gpu", "SpinMP", "mp-volatile", "SB+bar-const-equal", "MP+mbar-cta")


def standalone_driver(files: list[str], out: str, info) -> list[str]:
    """`hrf run --emit-cuda`'s standalone driver on the device: built by
    nvcc, run without Python, its log judged by `hrf run --log`'s code
    (every state allowed by the models that judge the test's dialect,
    `gpu.judges`; no instance missing)."""
    import subprocess

    from hrf import gpu
    from hrf.gpu.sass import tool
    from hrf.herdout import herd_name, read_herd_output
    from hrf.litmus import parse_file

    nvcc = tool("nvcc")
    if nvcc is None:
        return ["driver: no nvcc here: the standalone driver was not built"]
    folder = os.path.join(out, "driver")
    lines = []
    for name in DRIVER_TESTS:
        path = next((f for f in files if os.path.basename(f) == f"{name}.litmus"), None)
        if path is None:
            continue
        t = parse_file(path)
        try:
            (cu,) = gpu.emit_cuda([t], folder)
            exe = str(cu)[: -len(".cu")]
            b = subprocess.run(
                [nvcc, "-O2", f"-arch={info.arch}", "-o", exe, str(cu)], capture_output=True, text=True, timeout=120
            )
            if b.returncode:
                lines.append(f"driver {name}: nvcc failed: {b.stderr.strip()[:500]}")
                continue
            r = subprocess.run([exe, "launches=1000"], capture_output=True, text=True, timeout=120)
            logf = exe + ".log"
            with open(logf, "w", encoding="utf-8") as f:
                f.write(r.stdout)
            res = gpu.from_log(t, read_herd_output(logf)[herd_name(t.name)], logf)
            for m in gpu.judges(t.arch):
                gpu.judge(res, t, m)
            speed = next((x for x in r.stdout.splitlines() if x.startswith("Instances=")), "?")
            lines.append(
                f"driver {name}: exit {r.returncode}, weak {res.positive} of {res.counts.instances}, "
                f"forbidden {sum(n for _, n in res.forbidden)} ({res.model}); {speed}; {r.stderr.strip()}"
            )
        except Exception as e:
            lines.append(f"driver {name}: {type(e).__name__}: {e}")
            traceback.print_exc()
        print(lines[-1], flush=True)
    return lines


if __name__ == "__main__":
    sys.exit(main())
