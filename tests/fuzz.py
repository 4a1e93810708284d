"""Mutations and truncations of litmus tests, and what hrf must do with them.

Used by `test_fuzz.py` (a bounded hypothesis run in the suite) and run by
hand for long campaigns:

    python tests/fuzz.py --cases 10000 [--seed 1] [--folder litmus] [--cli]

Every case must end in one of two classes: a result (a verdict, or a
result marked incomplete by a limit), or a clean error of hrf's own
hierarchy. Anything else (another exception, a run that overshoots its
time limit by more than SLACK seconds, a crash of the process) is a bug;
the campaign prints a table of the classes and keeps the failing cases.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import hrf

ROOT = Path(__file__).resolve().parent.parent
# Fragments a careless or hostile edit brings in: syntax of every kind hrf
# reads, bytes that are not UTF-8, a byte-order mark, big numbers, deep
# openers, loops.
TOKENS = [
    # Dat3M's PTX dialect
    b"@cta 1,gpu 0",
    b"LC00:",
    b"bne r0, 1, LC00",
    b"goto LC00",
    b"atom.acq_rel.gpu.cas r0, x, 0, 1",
    b"bar.cta.sync 1, r0, 2",
    # sm_80's cp.async and its completion
    b"cp.async.ca.shared.global [d], [g], 4",
    b"cp.async.commit_group",
    b"cp.async.wait_group 1",
    b"cp.async.mbarrier.arrive.noinc.shared::cta.b64 [b]",
    b"filter",
    b"!=",
    b"(",
    b")",
    b"{",
    b"}",
    b";",
    b"P0",
    b"P9",
    b"@wg 1",
    b", wg 0",
    b"exists",
    b"forall",
    b"~exists",
    b"/\\",
    b"\\/",
    b"~",
    b"*",
    b"0x",
    b"04",
    b"\xff",
    b"\xef\xbb\xbf",
    b"scopeTree",
    b"(device",
    b"(work_group",
    b"r0",
    b"r9",
    b"x",
    b"q",
    b"=",
    b"-",
    b"99999999999999999999",
    b"while (1)",
    b"if (r0) {",
    b"|",
    b"\n",
    b"ld.cg",
    b"[r9]",
    b"membar.gl",
    b"@coarse",
    b"atomic_load(x)",
    b"int r0 = *x;",
    b"(" * 300,
    b"+1" * 300,
    # PTX as kernels write it, and Vulkan's other RMWs
    b".cluster",
    b"cluster 0,",
    b".volatile",
    b"atom.inc.u32 r0, x, 1",
    b".min.u32",
    b"bar.sync 0",
    b"barrier.sync.aligned 1, 64",
    b"[x]",
    b".u64",
    b".shared",
    b"y @ surface aliases x;",
    b"rmw.atom.dv.sc0.cmpxchg r0, x, 0, 1",
    # sm_90's forms (ptx-8.0)
    b"b @ mbarrier P0 = 1;",
    b"x @ shared P1;",
    b"mbarrier.arrive.release.cluster.shared::cluster.b64 _, [b]",
    b"mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 r0, [b], 0",
    b"mbarrier.test_wait.parity.relaxed.cta.shared::cta.b64 r1, [b], 1",  # an mbarrier's later phases
    b"mbarrier.init.shared::cta.b64 [b], 2",
    b"mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [b], 16",
    b"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [d], [g], 16, [b]",
    b"fence.proxy.async.shared::cta",
    b"tm @ tensormap g = 16;",  # tensor copies through a tensor map
    b"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [d], [tm, {0, 0}], [b]",
    b"[tm, {0}]",
    b"barrier.cluster.arrive.relaxed",
    b"::",
    b".expect_tx",
]
MODELS = ["sc", "opencl", "opencl-rsp", "c11", "ptx", "hrf-direct", "hrf-indirect-relaxed", "hrf-opencl"]
# the models of Dat3M's dialects, for the mutated tests of those dialects
DIALECT_MODELS = ["ptx-6.0", "ptx-7.5", "ptx-8.0", "ptx-6.0-dat3m", "vulkan"]
MAX_SECONDS = 2.0
SLACK = 10.0  # seconds past max_seconds that a run may take (setup, parse, compile)


def corpus(folder: Path = ROOT / "litmus") -> list:
    """The bytes of every test under `folder`."""
    return [p.read_bytes() for p in sorted(folder.rglob("*.litmus"))]


def mutate(data: bytes, rnd: random.Random) -> bytes:
    """One mutation: truncate, insert a token, delete a span, duplicate a
    span, overwrite bytes, or rename the first x."""
    k = rnd.randrange(6)
    i = rnd.randrange(len(data) + 1)
    if k == 0:
        return data[:i]
    if k == 1:
        return data[:i] + rnd.choice(TOKENS) + data[i:]
    if k == 2:
        return data[:i] + data[i + rnd.randrange(1, 20) :]
    if k == 3:
        return data[:i] + data[i : i + rnd.randrange(1, 40)] + data[i:]
    if k == 4:
        b = bytearray(data)
        for _ in range(rnd.randrange(1, 4)):
            if b:
                b[rnd.randrange(len(b))] = rnd.randrange(256)
        return bytes(b)
    return data.replace(b"x", b"q", 1)


def _witnessed(r) -> bool:
    """Whether what an incomplete result says is established by the
    executions found before the limit: a verdict only where an execution
    witnesses it (exists: one satisfying the condition; forall: one
    violating it), a race only where one was found."""
    if r.racy is False:
        return False
    if r.condition_holds is None:
        return True
    _, pos, neg = r.observation
    quant = r.quantifier
    if quant == "forall":
        return r.condition_holds is False and neg > 0
    return pos > 0 and r.condition_holds is (quant != "~exists")


def judge(data: bytes, model: str) -> tuple:
    """Run one case: (class, detail). Classes: `result`, `error:<hrf
    class>`, and the bugs `exception:<type>` and `overshoot`."""
    start = time.perf_counter()
    try:
        r = hrf.check(data, model, max_seconds=MAX_SECONDS, max_candidates=200_000)
    except hrf.HrfError as e:
        return f"error:{type(e).__name__}", str(e)[:200]
    except Exception as e:  # anything else is a bug
        return f"exception:{type(e).__name__}", str(e)[:200]
    took = time.perf_counter() - start
    if took > MAX_SECONDS + SLACK:
        return "overshoot", f"{took:.1f} s with max_seconds={MAX_SECONDS}"
    if not r.complete and not _witnessed(r):
        return "exception:verdict-under-limit", f"limit {r.limit} yet condition {r.condition_holds}"
    return "result", ""


# Command lines of every verb that reads a test; {} is the test's path.
VERBS = [
    ["check", "{}", "-m", "opencl", "--max-seconds", "2"],
    ["check", "{}", "-m", "sc", "-m", "c11", "--json", "--max-seconds", "2"],
    ["bulk", "{}", "-m", "sc", "--no-progress", "--max-seconds", "2"],
    ["compile", "{}", "-s", "rsp-new"],
    ["explore", "{}", "--max-seconds", "2"],
    ["soundness", "{}", "-s", "rsp-new", "--max-seconds", "2"],
    ["export", "isabelle", "{}", "-m", "sc", "--out", "{out}", "--max-seconds", "2"],
]


def judge_cli(data: bytes, verb: list, folder: Path) -> tuple:
    """Run one case through the command line, in its own process: exit
    status 0, 1 or 2 with no traceback is clean; a traceback, a signal or
    another status is a bug."""
    import shutil
    import subprocess
    import sys

    path = folder / "case.litmus"
    path.write_bytes(data)
    out = folder / "export"
    shutil.rmtree(out, ignore_errors=True)
    args = [a.format(path, out=out) if "{" in a else a for a in verb]
    start = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "hrf.cli", *args], capture_output=True, timeout=120)
    took = time.perf_counter() - start
    err = r.stderr.decode("utf-8", "replace")
    if r.returncode < 0:
        return f"exception:signal {-r.returncode}", err[-300:]
    if "Traceback" in err or r.returncode not in (0, 1, 2):
        return f"exception:exit {r.returncode}", err[-300:]
    if took > MAX_SECONDS * 3 + SLACK:  # soundness: a check and two explorations
        return "overshoot", f"{took:.1f} s"
    return ("result" if r.returncode == 0 else f"error:exit {r.returncode}"), ""


def is_bug(cls: str) -> bool:
    return cls.startswith("exception") or cls == "overshoot"


def main(argv=None) -> int:
    import argparse
    from collections import Counter

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--folder", default=str(ROOT / "litmus"), help="tests to mutate (every .litmus below)")
    p.add_argument("--keep", default="fuzz-failures", help="folder for the failing cases")
    p.add_argument(
        "--cli",
        action="store_true",
        help="run each case through a verb of the command line, in its "
        "own process (slower; catches crashes of the process)",
    )
    a = p.parse_args(argv)
    rnd = random.Random(a.seed)
    texts = corpus(Path(a.folder))
    classes: Counter = Counter()
    start = time.perf_counter()
    for n in range(a.cases):
        data = rnd.choice(texts)
        for _ in range(rnd.randrange(1, 4)):
            data = mutate(data, rnd)
        # a test of Dat3M's dialects under its dialect's models, the others under the C family's
        model = rnd.choice(DIALECT_MODELS if data.lstrip().startswith((b"PTX ", b"VULKAN")) else MODELS)
        if a.cli:
            import tempfile

            verb = rnd.choice(VERBS)
            model = verb[0]
            with tempfile.TemporaryDirectory() as tmp:
                cls, detail = judge_cli(data, verb, Path(tmp))
        else:
            cls, detail = judge(data, model)
        classes[cls] += 1
        if is_bug(cls):
            Path(a.keep).mkdir(exist_ok=True)
            (Path(a.keep) / f"case-{a.seed}-{n}-{model}.litmus").write_bytes(data)
            print(f"BUG {cls}: {detail} (case {n}, model {model})")
    bugs = sum(v for k, v in classes.items() if is_bug(k))
    print(f"{a.cases} cases in {time.perf_counter() - start:.0f} s (seed {a.seed}, {a.folder})")
    for cls in sorted(classes, key=lambda c: (is_bug(c), c)):
        print(f"  {cls:40s} {classes[cls]:7d}")
    print(f"  {'anything else (bugs)':40s} {bugs:7d}")
    return 1 if bugs else 0


if __name__ == "__main__":
    raise SystemExit(main())
