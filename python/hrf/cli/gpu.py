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
            red = sys.stderr.isatty()
            for line in r.comparison():
                forbidden = "FORBIDDEN" in line
                print(f"\033[31m{line}\033[0m" if forbidden and red else line, file=sys.stderr)
            if r.forbidden or r.counts.missing:
                status = 1
            if store is not None:
                store.add_hardware(r)
            sys.stdout.flush()
    finally:
        if store is not None:
            store.close()
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


def add(sub) -> None:
    """The `run` verb."""
    r = sub.add_parser(
        "run",
        help="run litmus tests on an NVIDIA GPU (litmus7-style histogram; needs the hrf[cuda] extra)",
    )
    r.add_argument("files", nargs="+", help=".litmus files ([GPU15]'s PTX, Dat3M's PTX, C/OpenCL)")
    r.add_argument(
        "--model", "-m", help="mark each seen outcome allowed or forbidden by this model (exit 1 if forbidden)"
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
    r.add_argument("--tune", type=seconds, metavar="SECONDS", help="sample incantation settings for this long")
    r.add_argument("--samples", type=whole(1), default=12, help="settings --tune tries (default 12)")
    r.add_argument("--save", metavar="FILE", help="with --tune: write the best setting to FILE")
    r.add_argument("--seed", type=int, default=None, help="seed of the random placements and of --tune")
    r.set_defaults(func=cmd_run)
