"""A campaign of hostile and careless inputs on hrf's surfaces beyond the
litmus readers: cat models, Python model files, the results store, the
cluster option, generate, compare, export, limits and I/O; and (--new) the
newer ones: litmus7 logs read by `hrf run --log`, `hrf map` with mapping
files, liveness options, Dat3M's dialects mutated, `--emit-cuda` and
family exports onto files and links; and (--serve N) N requests on `hrf
serve` under load (`benchmarks/hostile_serve.py`).

Each attack runs the `hrf` command in a process of its own, in a sandbox
folder, and is classed by what came back:

- answer: exit 0;
- refused: exit 1 or 2 with hrf's own message (`hrf: ...`), no traceback;
- traceback: a Python traceback on standard error;
- hang: still running after --timeout seconds (killed);
- crash: killed by a signal, or another exit status;
- outside: a file beside the sandbox (the sentinel folder) changed.

    python benchmarks/hostile_campaign.py [--count 520] [--new 400] [--serve 240] [--seed 1] [--timeout 60] [--jobs 2]

Prints one row per surface with the count of each class, and every attack
that was not an answer or a refusal, with its command; exits 1 if any was.
The attacks are generated from the seed: rerun with the same seed to get
the same ones.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import random
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIG6 = str(ROOT / "litmus/hrf/hrf14-fig6.litmus")
CAT_SC = ROOT / "litmus/cat/sc.cat"
CLASSES = ("answer", "refused", "traceback", "hang", "crash", "outside")


@dataclass
class Attack:
    surface: str
    what: str
    argv: list[str]
    setup: Callable[[Path], None] | None = None
    stdin: bytes | None = None


def cat_mutants(rng: random.Random, n: int) -> list[Attack]:
    """cat files: byte flips, cuts and splices of real models, deep nesting,
    long chains, sets where relations belong, recursion, bad includes."""
    sources = [p.read_text() for p in [CAT_SC, *sorted((ROOT / "litmus/cat").rglob("*.cat"))]]
    ref = ROOT.parent / "shared" / "reference" / "cat"
    if ref.is_dir():
        sources += [p.read_text(errors="replace") for p in sorted(ref.rglob("*.cat"))]
    out = []
    for i in range(n):
        kind = rng.choice(["flip", "cut", "splice", "nest", "chain", "set", "rec", "include", "bytes"])
        text = rng.choice(sources)
        extra: dict[str, bytes] = {}
        if kind == "flip":
            b = bytearray(text.encode())
            for _ in range(rng.randint(1, 8)):
                b[rng.randrange(len(b))] = rng.choice(b"()[];|&\\*+?~^-_0\"' \n{}abcW")
            data = bytes(b)
        elif kind == "cut":
            data = text.encode()[: rng.randrange(len(text))]
        elif kind == "splice":
            other = rng.choice(sources)
            data = (text[: rng.randrange(len(text))] + other[rng.randrange(len(other)) :]).encode()
        elif kind == "nest":
            depth = rng.choice([50, 99, 101, 300, 3000])
            left, right = rng.choice([("(", ")"), ("[", "]"), ("~", ""), ("begin ", " end"), ("", "^-1"), ("", "+")])
            data = f"m\nacyclic {left * depth}po{right * depth}\n".encode()
        elif kind == "chain":
            op = rng.choice(["|", ";", "&", "\\", "*"])
            data = f"m\nacyclic {f' {op} '.join(['po'] * rng.choice([10, 500, 5000, 20000]))}\n".encode()
        elif kind == "set":
            test = rng.choice(["acyclic", "irreflexive", "empty"])
            data = f"m\n{test} {rng.choice(['R', 'W', 'M', 'R | W', '~W', 'domain(po)'])}\n".encode()
        elif kind == "rec":
            data = rng.choice(
                [
                    b"m\nlet rec f(x) = f(x)\nacyclic f(po)\n",
                    b"m\nlet rec f(x) = g(x) and g(x) = f(x | po)\nacyclic f(po)\n",
                    b"m\nprocedure p(x) =\n call p(x)\nend\ncall p(po)\n",
                    b"m\nlet rec r = r | po\nacyclic r\n",
                    b"m\nlet f(x) = f(x)\nacyclic f(po)\n",
                ]
            )
        elif kind == "include":
            depth = rng.choice([3, 60, 3000])
            for k in range(depth):
                extra[f"i{k}.cat"] = (
                    f'"i{k}"\ninclude "{f"i{k + 1}.cat" if k + 1 < depth else "sub/../i0.cat"}"\n'.encode()
                )
            data = b'm\ninclude "i0.cat"\nacyclic po\n'
        else:
            data = b"m\nlet " + bytes(rng.randrange(256) for _ in range(rng.randint(1, 40))) + b" = po\nacyclic po\n"

        def setup(d: Path, data=data, extra=extra) -> None:
            (d / "sub").mkdir(exist_ok=True)
            (d / "m.cat").write_bytes(data)
            for name, content in extra.items():
                (d / name).write_bytes(content)

        out.append(Attack("cat", f"{kind} #{i}", ["check", FIG6, "-m", "m.cat", "--max-seconds", "20"], setup))
    return out


def model_files(rng: random.Random, n: int) -> list[Attack]:
    bodies = [
        "MODEL = 3",
        "raise RuntimeError('boom')",
        "import sys; sys.exit(3)",
        "from hrf.dsl import Model\nMODEL = Model('x')\nMODEL.acyclic(3, 'x')",
        "from hrf.dsl import Model, po\nMODEL = Model('x')\nMODEL.acyclic(po, 'x')\nMODEL.acyclic(po, 'x')",
        "from hrf.dsl import Model, po, rf\nr = po\nfor i in range({d}):\n    r = r | rf if i % 2 else r >> po\n"
        "MODEL = Model('d')\nMODEL.acyclic(r, 'd')",
        "from hrf.dsl import Model, po, R\nMODEL = Model('x')\nMODEL.acyclic(R, 'x')",
        "def f(: pass",
        "\xff\xfe",
        "",
        "from hrf.dsl import Model, foreach, po\nMODEL = Model('x')\n"
        "MODEL.acyclic(foreach('wg', lambda S: foreach('wg', lambda T: po)), 'x')",
    ]
    out = []
    for i in range(n):
        body = rng.choice(bodies).replace("{d}", str(rng.choice([10, 600, 999, 1001, 20000])))

        def setup(d: Path, body=body) -> None:
            (d / "m.py").write_bytes(body.encode("utf-8", "surrogateescape"))

        out.append(Attack("model file", f"#{i}", ["check", FIG6, "-m", "m.py"], setup))
    return out


def store_attacks(rng: random.Random, n: int, base: Path) -> list[Attack]:
    data = base.read_bytes()
    out = []
    for i in range(n):
        kind = rng.choice(["flip", "flip", "table", "value", "foreign", "runid", "same-out", "truncate"])
        verb = rng.choice(
            [["runs", "list"], ["runs", "show", "1"], ["runs", "diff", "1", "2"], ["bulk", FIG6, "-m", "sc"]]
        )
        if kind == "runid":
            verb = ["runs", rng.choice(["show", "diff"]), str(rng.choice([2**63, 2**70, -1, 0])), "1"][
                : 3 if verb[1] == "show" else 4
            ]

        seed = rng.randrange(1 << 30)

        def setup(d: Path, kind=kind, seed=seed) -> None:
            r = random.Random(seed)
            p = d / "s.sqlite"
            b = bytearray(data)
            if kind == "flip":
                for _ in range(r.randint(1, 16)):
                    b[r.randrange(len(b))] = r.randrange(256)
            elif kind == "truncate":
                b = b[: r.randrange(len(b))]
            p.write_bytes(bytes(b))
            if kind in ("table", "value", "foreign"):
                c = sqlite3.connect(p)
                if kind == "table":
                    c.execute(f"DROP TABLE {r.choice(['runs', 'tests', 'files', 'invocations', 'meta'])}")
                elif kind == "value":
                    c.execute(
                        r.choice(
                            [
                                "UPDATE meta SET value='x' WHERE key='schema'",
                                "UPDATE meta SET value='99' WHERE key='schema'",
                                "UPDATE runs SET limits='{'",
                                "UPDATE results SET flags='['",
                                "UPDATE results SET outcomes='nope'",
                                "UPDATE runs SET run=9223372036854775807 WHERE run=1",
                            ]
                        )
                    )
                else:
                    c.execute("PRAGMA application_id=7")
                c.commit()
                c.close()

        argv = [*verb, "--db", "s.sqlite"]
        if kind == "same-out":
            argv = ["bulk", FIG6, "-m", "sc", "--db", "s.sqlite", "--out", "./s.sqlite"]
        out.append(Attack("store", f"{kind} #{i}", argv, setup))
    return out


def silent_server() -> tuple[socket.socket, int]:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    return s, s.getsockname()[1]


def cluster_attacks(rng: random.Random, n: int, silent_port: int) -> list[Attack]:
    texts = [
        "local:0",
        "local:-1",
        "local:999999",
        "local:x",
        f"tcp://127.0.0.1:{silent_port}",
        f"127.0.0.1:{silent_port}",
        "tcp://127.0.0.1:1",
        "tcp://:80",
        "tcp://[::1",
        "s.json",
        "missing.json",
        "udp://127.0.0.1:9",
        "",
    ]
    files = [b"not json", b"{}", b'{"address": 3}', b"[1]", b'{"address": "tcp://127.0.0.1:1"}', b"\xff"]
    out = []
    for i in range(n):
        text = rng.choice(texts)
        content = rng.choice(files)

        def setup(d: Path, content=content) -> None:
            (d / "s.json").write_bytes(content)

        out.append(Attack("cluster", f"{text!r} #{i}", ["bulk", FIG6, "-m", "sc", "--scheduler", text], setup))
    return out


def generate_attacks(rng: random.Random, n: int) -> list[Attack]:
    options = [
        ["--safe", ""],
        ["--relax", ""],
        ["--orders", ""],
        ["--orders", "sc,,"],
        ["--scopes", "sys"],
        ["--regions", "shared"],
        ["--max-edges", "1"],
        ["--max-edges", "99"],
        ["--max-threads", "0"],
        ["--count", "-3"],
        ["--seed", "x"],
        ["--cycle", "Rfe PodRR Fre PodWW Rfe PodRR Fre PodWW Rfe PodRR Fre PodWW"],
        ["--cycle", "Rfe"],
        ["--cycle", ""],
        ["--cycle", "Rfe Rfe Rfe Rfe"],
        ["--cycle", "MP", "--count", "3"],
        ["--safe", "Rfe,Bogus"],
        ["--relax", "PodWW", "--safe", "Rfe,Fre"],
        ["--out", "/proc/hrf-gen"],
        ["--out", "sub/../../gen", "--count", "2"],
        ["--out", "file.txt", "--count", "2"],
    ]
    out = []
    for i in range(n):
        opts = rng.choice(options)

        def setup(d: Path) -> None:
            (d / "file.txt").write_text("a file\n")

        verb = rng.choice(["generate", "compare"])
        extra = ["-m", "sc", "-m", rng.choice(["c11", "hrf-direct", "sc"]), "--count", "5"] if verb == "compare" else []
        if verb == "compare" and "--count" in opts:
            extra = extra[:4]
        out.append(Attack(verb, f"{' '.join(opts)!r} #{i}", [verb, *opts, *extra], setup))
    return out


def compare_limits(rng: random.Random, n: int) -> list[Attack]:
    out = []
    for i in range(n):
        lim = rng.choice(
            [
                ["--max-candidates", "1"],
                ["--max-candidates", "0"],
                ["--max-seconds", "0.0001"],
                ["--max-seconds", "nan"],
                ["--max-seconds", "-1"],
                ["--max-memory", "1K"],
                ["--max-memory", "0"],
                ["--max-memory", "12Q"],
                ["--unroll", "-1"],
                ["--unroll", "100000"],
                ["--workers", "0"],
                ["--workers", "100000"],
            ]
        )
        verb = rng.choice(["compare", "check", "bulk"])
        if verb == "compare":
            argv = ["compare", "-m", "sc", "-m", "c11", "--max-edges", "4", "--count", "8", *lim]
        else:
            argv = [verb, FIG6, "-m", rng.choice(["sc", "opencl", "hrf-direct"]), *lim]
        out.append(Attack("limits", f"{verb} {' '.join(lim)} #{i}", argv))
    return out


def export_attacks(rng: random.Random, n: int) -> list[Attack]:
    out = []
    for i in range(n):
        kind = rng.choice(["root-link", "thy-dir", "file", "foreign", "dotdot", "device", "ok"])

        def setup(d: Path, kind=kind) -> None:
            e = d / "exp"
            if kind in ("root-link", "thy-dir", "foreign"):
                e.mkdir()
                (e / "A.thy").write_text("theory A imports Main begin end\n")
                if kind == "root-link":
                    (e / "ROOT").symlink_to(d.parent / "sentinel" / "keep.txt")
                elif kind == "thy-dir":
                    (e / "ROOT").write_text("session hrf_export = HOL +\n")
                    (e / "X.thy").mkdir()
                else:
                    (e / "notes.txt").write_text("mine\n")
            elif kind == "file":
                e.write_text("a file\n")

        target = {"dotdot": "a/../exp", "device": "/dev/null"}.get(kind, "exp")
        argv = ["export", "isabelle", FIG6, "--out", target]
        if kind == "ok" and rng.random() < 0.5:
            argv = ["runs", "show", "1", "--db", "missing.sqlite", "-o", "/dev/full", "--format", "parquet"]
        out.append(Attack("export", f"{kind} #{i}", argv, setup))
    return out


def io_attacks(rng: random.Random, n: int) -> list[Attack]:
    out = []
    for i in range(n):
        kind = rng.choice(["fifo", "zero", "dir", "big", "full", "closed", "stdin", "nul", "perm"])
        argv = ["check", "x.litmus", "-m", "sc"]
        stdin = None

        def setup(d: Path, kind=kind) -> None:
            if kind == "fifo":
                os.mkfifo(d / "x.litmus")
            elif kind == "dir":
                (d / "x.litmus").mkdir()
            elif kind == "big":
                with open(d / "x.litmus", "wb") as f:
                    f.truncate(20 << 20)
            elif kind == "perm":
                (d / "x.litmus").write_text("OpenCL x\n")
                (d / "x.litmus").chmod(0)
            else:
                shutil.copy(FIG6, d / "x.litmus")

        if kind == "zero":
            argv = ["check", "/dev/zero", "-m", "sc"]
        elif kind == "full":
            argv = ["check", "x.litmus", "-m", "sc", "--out-to-full"]
        elif kind == "closed":
            argv = ["check", "x.litmus", "-m", "sc", "--closed-stdout"]
        elif kind == "stdin":
            argv, stdin = ["check", "-", "-m", "sc"], bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
        elif kind == "nul":
            argv = ["check", "x\0y.litmus", "-m", "sc"]
        out.append(Attack("I/O", f"{kind} #{i}", argv, setup, stdin))
    return out


MP_GPU = ROOT / "litmus/gpu/MP+rlx-gpu.litmus"
# a litmus7 log of MP+rlx-gpu as `hrf run` writes one (the base of the log mutants)
LOG = (
    "Test MP+rlx-gpu Allowed\nHistogram (3 states)\n600   :>1:r0=0; 1:r1=0;\n380   :>1:r0=1; 1:r1=1;\n"
    "20    *>1:r0=1; 1:r1=0;\nOk\n\nWitnesses\nPositive: 20, Negative: 980\n"
    "Condition exists (1:r0=1 /\\ 1:r1=0) is validated\nObservation MP+rlx-gpu Sometimes 20 980\n"
    "Time MP+rlx-gpu 0.50\n"
)


def log_attacks(rng: random.Random, n: int) -> list[Attack]:
    """`hrf run --log`: litmus7 logs written by other programs, wrong or hostile."""
    edits = [
        ("wrong count", lambda t: t.replace("600   :>", "-5    :>")),
        ("huge count", lambda t: t.replace("600   :>", "99999999999999999999999 :>")),
        ("unknown variable", lambda t: t.replace("1:r1=0;\nOk", "2:r9=0;\nOk")),
        ("value outside the domain", lambda t: t.replace("1:r0=1; 1:r1=1;", "1:r0=7; 1:r1=1;")),
        ("duplicated state", lambda t: t.replace("20    *>", "380   :>1:r0=1; 1:r1=1;\n20    *>")),
        ("missing state line", lambda t: t.replace("380   :>1:r0=1; 1:r1=1;\n", "")),
        ("wrong state count", lambda t: t.replace("Histogram (3 states)", "Histogram (9 states)")),
        ("no histogram", lambda t: t.replace("Histogram (3 states)", "Histo")),
        ("another test's name", lambda t: t.replace("Test MP+rlx-gpu", "Test SB")),
        ("truncated", lambda t: t[: rng.randrange(len(t))]),
        ("empty", lambda t: ""),
        ("missing register", lambda t: t.replace("1:r0=0; 1:r1=0;", "1:r0=0;")),
        ("garbage state", lambda t: t.replace("1:r0=0; 1:r1=0;", "1:r0==; ;;")),
    ]
    out = []
    for i in range(n):
        kind = rng.randrange(len(edits) + 2)
        if kind < len(edits):
            what, edit = edits[kind]
            data = edit(LOG).encode()
        elif kind == len(edits):
            what, data = "non-UTF-8", LOG.encode().replace(b"Ok", b"\xff\xfe")
        else:
            what = "random bytes"
            data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 400)))
        models = rng.choice([["-m", "ptx-7.5"], ["-m", "ptx-6.0", "-m", "ptx-7.5"], ["-m", "ptx"], []])

        def setup(d: Path, data=data) -> None:
            (d / "gpu.log").write_bytes(data)

        json_out = ["--json"] if rng.random() < 0.3 else []
        out.append(
            Attack("run --log", f"{what} #{i}", ["run", "--log", "gpu.log", *models, *json_out, str(MP_GPU)], setup)
        )
    return out


def map_attacks(rng: random.Random, n: int) -> list[Attack]:
    """`hrf map`: mappings by name and by file, families and tests."""
    files = {
        "syntax error": "MAPPING = (\n",
        "not a Mapping": "MAPPING = 3\n",
        "no MAPPING": "X = 1\n",
        "a bad key": "from hrf.mappings.axiomatic import Mapping, Row\nMAPPING = Mapping('m', '', {('jump', 'sc'): Row(('ld.weak',), 'x')})\n",
        "two accesses": "from hrf.mappings.axiomatic import Mapping, Row\nMAPPING = Mapping('m', '', {('load', 'sc'): Row(('ld.weak', 'ld.weak'), 'x')})\n",
        "an unknown instruction": "from hrf.mappings.axiomatic import Mapping, Row\nMAPPING = Mapping('m', '', {('load', 'sc'): Row(('ld.frob',), 'x')})\n",
        "a bad scope": "from hrf.mappings.axiomatic import Mapping, Row\nMAPPING = Mapping('m', '', {('load', 'sc'): Row(('ld.acquire.galaxy',), 'x')})\n",
        "rows not a dict": "from hrf.mappings.axiomatic import Mapping\nMAPPING = Mapping('m', '', [1, 2])\n",
        "raises": "raise SystemExit(3)\n",
        "no rows": "from hrf.mappings.axiomatic import Mapping\nMAPPING = Mapping('m', '', {})\n",
    }
    tests = [FIG6, str(ROOT / "litmus/ptx7/SpinMP.litmus"), str(ROOT / "litmus/c11"), str(MP_GPU), "nosuch.litmus"]
    out = []
    for i in range(n):
        r = rng.random()
        setup = None
        if r < 0.4:
            what, text = rng.choice(sorted(files.items()))
            mapping = "mine.py"

            def setup(d: Path, text=text) -> None:
                (d / "mine.py").write_text(text)
        else:
            what, mapping = "by name", rng.choice(["ptx-abi", "ptx-abi-trailing", "nosuch", "", "../ptx-abi"])
        argv = ["map", "--mapping", mapping]
        if rng.random() < 0.5:
            argv += [rng.choice(tests)]
        else:
            argv += ["--dialect", rng.choice(["c", "opencl", "ptx", "vulkan", "klingon"]), "--count"]
            argv += [
                rng.choice(["5", "0", "-3", "x", "99999999999999999999"]),
                "--max-edges",
                rng.choice(["3", "4", "1", "99"]),
            ]
        argv += rng.choice(
            [[], ["-m", "rc11"], ["-m", "nosuch"], ["--target", "vulkan"], ["--target", "ptx-7.5-dat3m"]]
        )
        argv += rng.choice(
            [[], ["--json"], ["--show", "-1"], ["--graph", "/"], ["--graph", "g.svg"], ["--max-seconds", "0.001"]]
        )
        out.append(Attack("map", f"{what} #{i}", argv, setup))
    return out


def liveness_attacks(rng: random.Random, n: int) -> list[Attack]:
    """Liveness: progress models, unroll bounds, loops of every shape."""
    tests = [FIG6, str(ROOT / "litmus/ptx7/SpinMP.litmus"), str(ROOT / "litmus/vulkan/MP-avvis-dv.litmus")]
    out = []
    for i in range(n):
        t = rng.choice(tests)
        model = {"ptx7": "ptx-7.5", "vulkan": "vulkan"}.get(Path(t).parent.name, "hrf-indirect")
        progress = rng.choice(["fair", "obe", "hsa", "hsa-obe", "lobe", "unfair", "bogus", ""])
        unroll = rng.choice(["0", "1", "3", "-1", "99999", "x", "2.5"])
        argv = ["check", t, "-m", model, "--liveness", "--progress", progress, "--unroll", unroll]
        argv += rng.choice([[], ["--json"], ["--max-seconds", "0.01"], ["--max-paths", "1"]])
        out.append(Attack("liveness", f"{progress}/{unroll} #{i}", argv))
    return out


def dialect_mutants(rng: random.Random, n: int) -> list[Attack]:
    """Dat3M's PTX and Vulkan tests, mutated (tests/fuzz.py's mutations),
    under their models."""
    sys.path.insert(0, str(ROOT / "tests"))
    from fuzz import mutate

    texts = [p.read_bytes() for d in ("ptx7", "ptx8", "vulkan") for p in sorted((ROOT / "litmus" / d).glob("*.litmus"))]
    out = []
    for i in range(n):
        data = rng.choice(texts)
        for _ in range(rng.randint(1, 3)):
            data = mutate(data, rng)
        model = rng.choice(["ptx-6.0", "ptx-7.5", "ptx-8.0", "ptx-7.5-dat3m", "vulkan", "vulkan-dat3m"])

        def setup(d: Path, data=data) -> None:
            (d / "t.litmus").write_bytes(data)

        extra = rng.choice([[], ["--liveness"], ["--graph", "g.dot"], ["--json"]])
        out.append(Attack("dat3m", f"mutant #{i}", ["check", "t.litmus", "-m", model, *extra], setup))
    return out


def emit_attacks(rng: random.Random, n: int) -> list[Attack]:
    """`hrf run --emit-cuda DIR` onto files, links, read-only and special
    files; `hrf export isabelle --family` onto folders with links."""
    out = []
    for i in range(n):
        kind = rng.choice(
            ["file", "link-out", "link-dir-out", "read-only", "device", "fifo-inside", "link-inside", "nested", "ok"]
        )
        emit = rng.random() < 0.5
        if emit and kind == "link-dir-out":
            kind = "link-out"  # a folder named through a link is where the user asked for the sources

        fifo = rng.choice(["MP+rlx-gpu.cu", "hrf_driver.h"])

        def setup(d: Path, kind=kind, fifo=fifo) -> None:
            e = d / "out"
            sentinel = d.parent.parent / "sentinel"
            if kind == "file":
                e.write_text("mine\n")
            elif kind == "link-out":
                e.mkdir()
                # a file the export would write, linked to one outside the sandbox
                for name in ("MP+rlx-gpu.cu", "hrf_driver.h", "hrf_emulate.h", "ROOT", "Family_rsp_new.thy"):
                    (e / name).symlink_to(sentinel / "keep.txt")
            elif kind == "link-dir-out":
                e.symlink_to(sentinel, target_is_directory=True)
            elif kind == "read-only":
                e.mkdir()
                e.chmod(0o500)
            elif kind == "fifo-inside":
                e.mkdir()
                os.mkfifo(e / fifo)
            elif kind == "link-inside":
                e.mkdir()
                (e / "MP+rlx-gpu.cu").symlink_to(e / "other.cu")
            elif kind == "nested":
                (d / "a").mkdir()

        target = {"device": "/dev/null", "nested": "a/b/c/out"}.get(kind, "out")
        if emit:
            argv = ["run", str(MP_GPU), "--emit-cuda", target]
            surface = "emit-cuda"
        else:
            argv = ["export", "isabelle", "--scheme", "rsp-new", "--family", "--locations", "1", "--out", target]
            surface = "export family"
        out.append(Attack(surface, f"{kind} #{i}", argv, setup))
    return out


def run(attack: Attack, timeout: float, sandbox_root: Path) -> tuple[str, str]:
    d = Path(tempfile.mkdtemp(dir=sandbox_root))
    try:
        if attack.setup:
            attack.setup(d)
        argv = [a for a in attack.argv if a not in ("--out-to-full", "--closed-stdout")]
        stdout = subprocess.PIPE
        if "--out-to-full" in attack.argv:
            stdout = open("/dev/full", "wb")  # noqa: SIM115 - closed below
        cmd = [sys.executable, "-m", "hrf", *argv]
        if "--closed-stdout" in attack.argv:
            cmd = ["bash", "-c", " ".join(map(_quote, cmd)) + " >&-"]
        try:
            p = subprocess.run(
                cmd,
                cwd=d,
                stdout=stdout,
                stderr=subprocess.PIPE,
                input=attack.stdin,
                stdin=None if attack.stdin is not None else subprocess.DEVNULL,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return "hang", f"still running after {timeout} s"
        except ValueError as e:  # a NUL in an argument: refused before hrf runs
            return "refused", str(e)
        finally:
            if stdout is not subprocess.PIPE:
                stdout.close()
        err = p.stderr.decode(errors="replace")
        if "Traceback" in err:
            return "traceback", err.strip().splitlines()[-1]
        if p.returncode == 0 or (p.returncode == 1 and argv[:2] == ["runs", "diff"] and not err.strip()):
            return "answer", ""  # `runs diff` exits 1 when the runs differ
        if p.returncode in (1, 2) and ("hrf: " in err or "usage:" in err or "error:" in err):
            return "refused", err.strip().splitlines()[0] if err.strip() else ""
        return "crash", f"exit {p.returncode}: {err.strip()[-200:]}"
    finally:
        for p in d.rglob("*"):
            if not p.is_symlink():
                with contextlib.suppress(OSError):
                    p.chmod(0o700)
        shutil.rmtree(d, ignore_errors=True)


def _quote(s: str) -> str:
    import shlex

    return shlex.quote(s)


def snapshot(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        h.update(str(p).encode())
        if p.is_file() and not p.is_symlink():
            h.update(p.read_bytes())
    return h.hexdigest()


def main(argv=None) -> int:
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--count", type=int, default=520, help="attacks in all (spread over the surfaces)")
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--timeout", type=float, default=60.0, help="seconds before an attack counts as a hang")
    a.add_argument("--jobs", type=int, default=2)
    a.add_argument(
        "--new",
        type=int,
        default=400,
        help="attacks on the newer surfaces (run --log, map, liveness, Dat3M mutants, --emit-cuda, family exports)",
    )
    a.add_argument(
        "--serve",
        type=int,
        default=0,
        help="also this many requests on `hrf serve` under docs/web.md's load (benchmarks/hostile_serve.py)",
    )
    args = a.parse_args(argv)
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="hrf-campaign-"))
    sentinel = work / "sentinel"
    sentinel.mkdir()
    (sentinel / "keep.txt").write_text("nothing may write here\n")
    sandboxes = work / "boxes"
    sandboxes.mkdir()
    base = work / "base.sqlite"
    subprocess.run(
        [sys.executable, "-m", "hrf", "bulk", str(ROOT / "litmus/hrf"), "-m", "sc", "-m", "hrf-direct"]
        + ["--db", str(base), "--no-progress"],
        check=True,
        capture_output=True,
    )
    with sqlite3.connect(base) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    server, port = silent_server()
    accepted: list[socket.socket] = []
    threading.Thread(target=lambda: [accepted.append(server.accept()[0]) for _ in iter(int, 1)], daemon=True).start()
    share = max(1, args.count // 8)
    rest = args.count - (share * 2 + share // 2 * 3 + share * 4)
    attacks = (
        cat_mutants(rng, share * 2 + max(0, rest))
        + model_files(rng, share // 2)
        + store_attacks(rng, share, base)
        + cluster_attacks(rng, share // 2, port)
        + generate_attacks(rng, share)
        + compare_limits(rng, share)
        + export_attacks(rng, share // 2)
        + io_attacks(rng, share)
    )
    if args.new:  # the surfaces landed since the last campaigns: --new N attacks over them
        k = max(1, args.new // 5)
        attacks += (
            log_attacks(rng, k)
            + map_attacks(rng, k)
            + liveness_attacks(rng, k)
            + emit_attacks(rng, k)
            + dialect_mutants(rng, args.new - 4 * k)
        )
    before = snapshot(sentinel)
    table: dict[str, Counter] = defaultdict(Counter)
    bad: list[tuple[Attack, str, str]] = []
    with ThreadPoolExecutor(args.jobs) as pool:
        for i, (attack, (cls, detail)) in enumerate(
            zip(attacks, pool.map(lambda x: run(x, args.timeout, sandboxes), attacks), strict=True)
        ):
            if snapshot(sentinel) != before:
                cls, detail = "outside", "the sentinel folder beside the sandbox changed"
                before = snapshot(sentinel)
            table[attack.surface][cls] += 1
            if cls not in ("answer", "refused"):
                bad.append((attack, cls, detail))
            print(f"\r{i + 1}/{len(attacks)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    server.close()
    print(f"{'surface':12s} " + " ".join(f"{c:>9s}" for c in CLASSES) + f" {'total':>7s}")
    for surface, counts in table.items():
        print(f"{surface:12s} " + " ".join(f"{counts[c]:9d}" for c in CLASSES) + f" {sum(counts.values()):7d}")
    total = Counter()
    for c in table.values():
        total.update(c)
    print(f"{'all':12s} " + " ".join(f"{total[c]:9d}" for c in CLASSES) + f" {sum(total.values()):7d}")
    for attack, cls, detail in bad:
        print(f"\n{cls}: {attack.surface} {attack.what}: hrf {' '.join(attack.argv)}\n    {detail}")
    shutil.rmtree(work, ignore_errors=True)
    served_ok = True
    if args.serve:
        from hostile_serve import campaign, ok, report

        r = campaign(args.serve, args.seed, 50, args.timeout)
        print("\n" + report(r))
        served_ok = ok(r)
    return 1 if bad or not served_ok else 0


if __name__ == "__main__":
    sys.exit(main())
