"""`hrf run`: litmus tests on an NVIDIA GPU, reported as litmus7 does."""

from __future__ import annotations

import json
import sys

from ..errors import HrfError, InvalidArgument
from .args import inputs, seconds, whole


def _tests(files: list) -> list:
    from ..litmus import parse_file

    return [f if not isinstance(f, str) else parse_file(f) for f in inputs(files)]


def cmd_run(a) -> int:
    from .. import gpu

    tests = _tests(a.files)
    if a.emit_cuda:
        status = 0
        setting = gpu.load_setting(a.setting) if a.setting else None
        for t in tests:
            try:
                (path,) = gpu.emit_cuda([t], a.emit_cuda, setting)
                print(path)
            except gpu.NotRunnable as e:
                print(f"hrf: {t.path or t.name}: {e}", file=sys.stderr)
                status = 1
        return status
    if a.check_code:
        return _check_code(a, tests)
    if a.model:  # every model read before anything runs (a misspelt one is an error now, not after the run)
        from ..models import get as get_model

        a.model = [get_model(m) for m in a.model]
    if a.log:
        return _from_log(a, tests)
    setting = gpu.load_setting(a.setting) if a.setting else gpu.Setting()
    for t in tests:  # refuse what cannot run before anything runs
        try:
            gpu.prepare(t)
        except gpu.NotRunnable as e:
            print(f"hrf: {t.path or t.name}: {e}", file=sys.stderr)
            return 1
    from ..gpu.runtime import NoGpu, cupy_module

    try:
        cupy_module()
    except NoGpu as e:
        print(f"hrf: {e}", file=sys.stderr)
        return 1
    if a.tune:
        return _tune(a, tests)
    store = None
    if a.db:
        from ..store import Store

        store = Store(a.db)
    status = 0
    launches = a.launches if a.seconds is None else None
    try:
        for t in tests:
            try:
                r = gpu.run_test(
                    t, setting, launches=launches, seconds=a.seconds, model=a.model, codecheck=not a.no_codecheck
                )
            except HrfError as e:
                print(f"hrf: {t.path or t.name}: {e}", file=sys.stderr)
                status = 1
                continue
            if a.json:
                print(json.dumps(r.to_json()))
            else:
                print(r.to_litmus7(), end="")
            for n in r.notes:
                print(f"hrf: note: {r.path or r.name}: {n}", file=sys.stderr)
            _print_comparison(r, sys.stderr)
            if r.forbidden or r.counts.missing or len(r.verdicts) < len(a.model or ()):
                status = 1  # a forbidden state, a harness fault, or a model that gave no verdict
            if store is not None:
                store.add_hardware(r)
            sys.stdout.flush()
    finally:
        if store is not None:
            store.close()
    return status


def _print_comparison(r, out) -> None:
    """Each model's word on the seen states; a forbidden one in red on a terminal."""
    red = out.isatty()
    for line in r.comparison():
        print(f"\033[31m{line}\033[0m" if "FORBIDDEN" in line and red else line, file=out)


def _from_log(a, tests) -> int:
    """`hrf run --log FILE -m MODEL TEST...`: the histograms of a litmus7 log
    (the standalone driver's, an earlier run's, litmus7's) against models."""
    from .. import gpu
    from ..herdout import herd_name, read_herd_output

    if not a.model:
        raise InvalidArgument("--log compares a log's histograms with models: give -m MODEL")
    try:
        blocks = read_herd_output(a.log)
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidArgument(f"cannot read the log {a.log}: {getattr(e, 'strerror', None) or e}") from None
    status = 0
    for t in tests:
        block = blocks.get(herd_name(t.name))
        if block is None:
            print(f"hrf: {a.log}: no histogram of {t.name} (its tests: {', '.join(blocks) or 'none'})", file=sys.stderr)
            status = 1
            continue
        r = gpu.from_log(t, block, a.log)
        for m in a.model:
            gpu.judge(r, t, m)
        if a.json:
            d = r.to_json()
            keep = ("name", "path", "condition", "observation", "states", "instances", "model", "forbidden", "models")
            print(json.dumps({"log": a.log} | {k: d[k] for k in keep} | {"notes": r.notes}))
        else:
            _print_comparison(r, sys.stdout)
        for n in r.notes:
            print(f"hrf: note: {r.path or r.name}: {n}", file=sys.stderr)
        if r.forbidden or len(r.verdicts) < len(a.model):
            status = 1
    return status


def _check_code(a, tests) -> int:
    """`hrf run --check-code [--arch sm_NN] TEST...`: each test compiled as
    `hrf run` compiles it, for a GPU architecture, and its SASS checked
    ([GPU15]'s optcheck); no GPU needed, only nvcc and nvdisasm."""
    from .. import gpu
    from ..gpu.cuda import source
    from ..gpu.lower import refuse_below
    from ..gpu.runtime import compile_cubin
    from ..gpu.sass import check, disassemble, passed

    status = 0
    for t in tests:
        where = t.path or t.name
        try:
            lt, shape = gpu.prepare(t)
            notes: list[str] = []
            refuse_below(lt, a.arch)
            problems = check(lt, disassemble(compile_cubin(source(lt, shape), a.arch, f"{t.name}.cu")), notes)
        except HrfError as e:  # not runnable, not compiled, not disassembled
            print(f"hrf: {where}: {e}", file=sys.stderr)
            status = 1
            continue
        if problems:
            status = 1
            for p in problems:
                print(f"{where}: {a.arch}: NOT AS WRITTEN: {p}")
        else:
            print(f"{where}: {a.arch}: {passed(notes)}")
    return status


def _tune(a, tests) -> int:
    from .. import gpu

    if len(tests) != 1:
        raise InvalidArgument("--tune tunes one test at a time")
    rows = gpu.tune(tests[0], a.tune, a.samples, seed=a.seed)
    print(f"{'weak/s':>10} {'weak':>8} {'seconds':>7}  setting")
    for s, rate, weak, secs in rows:
        print(f"{rate:10.1f} {weak:8d} {secs:7.2f}  {s.describe()}")
    if a.save and rows:
        best = rows[0]
        with open(a.save, "w", encoding="utf-8") as f:
            json.dump({"test": tests[0].name, "weak_per_second": best[1], "setting": best[0].to_json()}, f, indent=1)
        print(f"hrf: the best setting is in {a.save} (hrf run --setting {a.save})", file=sys.stderr)
    return 0


def _arch(text: str) -> str:
    """A GPU architecture as nvcc names it: sm_ and its number (sm_90, sm_100a)."""
    import argparse
    import re

    if not re.fullmatch(r"sm_\d{2,3}[a-z]?", text):
        raise argparse.ArgumentTypeError(f"{text!r}: a GPU architecture such as sm_80, sm_90, sm_100")
    return text


def add(sub) -> None:
    """The `run` verb."""
    r = sub.add_parser(
        "run",
        help="run litmus tests on an NVIDIA GPU (litmus7-style histogram; needs the hrf[cuda] extra)",
    )
    r.add_argument("files", nargs="+", help=".litmus files ([GPU15]'s PTX, Dat3M's PTX, C/OpenCL)")
    r.add_argument(
        "--model",
        "-m",
        action="append",
        help="mark each seen outcome allowed or forbidden by this model (repeat for several; exit 1 if forbidden); "
        "a [GPU15] test is read translated by the PTX 6.0/7.5 models",
    )
    r.add_argument(
        "--log",
        metavar="FILE",
        help="run nothing: compare the histograms of a litmus7 log (hrf run's, the standalone driver's, "
        "litmus7's) with the -m models",
    )
    r.add_argument("--launches", type=whole(1), default=100, help="kernel launches per test (default 100)")
    r.add_argument("--seconds", type=seconds, default=None, help="run each test for this long instead")
    r.add_argument("--setting", metavar="FILE", help="incantations from a JSON file (what --tune --save writes)")
    r.add_argument("--json", action="store_true", help="one JSON object per test")
    r.add_argument("--db", metavar="FILE", help="keep each run in a results store (SQLite)")
    r.add_argument("--no-codecheck", action="store_true", help="run even where the SASS does not match the test")
    r.add_argument(
        "--emit-cuda",
        metavar="DIR",
        help="write each test's CUDA source and the standalone driver to DIR, run nothing "
        "(nvcc -o T T.cu && ./T launches=N runs a test without Python; --setting: its defaults)",
    )
    r.add_argument(
        "--check-code",
        action="store_true",
        help="run nothing: compile each test as hrf run does and check that its SASS holds the test's accesses "
        "as written (no GPU needed: nvcc and nvdisasm, e.g. pip install 'hrf[nvcc]')",
    )
    r.add_argument(
        "--arch", default="sm_90", type=_arch, help="with --check-code: the GPU architecture (default sm_90)"
    )
    r.add_argument("--tune", type=seconds, metavar="SECONDS", help="sample incantation settings for this long")
    r.add_argument("--samples", type=whole(1), default=12, help="settings --tune tries (default 12)")
    r.add_argument("--save", metavar="FILE", help="with --tune: write the best setting to FILE")
    r.add_argument("--seed", type=int, default=None, help="seed of the random placements and of --tune")
    r.set_defaults(func=cmd_run)
