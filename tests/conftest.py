import importlib.util
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "litmus"

# Tests send SIGINT to the processes they start, as a terminal would. A
# suite started in the background by a non-interactive shell inherits
# SIGINT ignored, and so would those processes: give them the terminal's
# disposition back (a Python handler here is the default after exec).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The processes tests start (`python -m hrf ...`, in a folder of their own)
# run the package these tests import, not another copy installed beside it:
# its folder leads their PYTHONPATH (a relative PYTHONPATH would not follow
# them into another working directory).
_HRF_HOME = str(Path(importlib.util.find_spec("hrf").origin).resolve().parent.parent)
os.environ["PYTHONPATH"] = os.pathsep.join(
    [_HRF_HOME, *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != _HRF_HOME)]
)


def hrf_cli(*args, cwd=None, **kw):
    """The hrf command in a process of its own (a crash, a hang or a
    traceback shows there, not in the test runner), in `cwd` (the
    repository by default); the timeout is a hang guard, not a speed figure."""
    return subprocess.run(
        [sys.executable, "-m", "hrf", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        timeout=120,
        **kw,
    )


def have_dot() -> bool:
    """Whether Graphviz's `dot` is on PATH. Where HRF_REQUIRE_DOT is set
    (.ci/run installs Graphviz) its absence fails the test instead: a test
    that should draw must not skip there."""
    if shutil.which("dot") is not None:
        return True
    if os.environ.get("HRF_REQUIRE_DOT"):
        pytest.fail("HRF_REQUIRE_DOT is set, but Graphviz's dot is not on PATH", pytrace=False)
    return False


def require_dot() -> None:
    """Skip the calling test without Graphviz's `dot` (see have_dot)."""
    if not have_dot():
        pytest.skip("Graphviz's dot is not on PATH (Debian: apt install graphviz)")


def many_writes(threads, stores, loads, observe=True):
    """`threads` threads each storing `stores` distinct values to x and
    loading it `loads` times: the candidate count explodes. Every load's
    register is observed (`locations`) and used by nothing else, so each
    load may read any of the stores (a choice of `rf` each), and the
    outcomes are many. Without `observe`: no register is observed, the
    outcomes are x's final values (few), the candidates as many."""
    body = []
    for i in range(threads):
        ops = [f"  atomic_store_explicit(x, {i * 10 + k + 1}, memory_order_relaxed);" for k in range(stores)]
        ops += [f"  int r{k} = atomic_load_explicit(x, memory_order_relaxed);" for k in range(loads)]
        body.append(f"P{i} (atomic_int* x) {{\n" + "\n".join(ops) + "\n}")
    regs = " ".join(f"{i}:r{k};" for i in range(threads) for k in range(loads))
    shown = f"\nlocations [{regs}]" if observe else ""
    return "C boom\n{ [x]=0; }\n" + "\n".join(body) + f"{shown}\nexists (x=1)\n"


def free_port() -> int:
    """A TCP port on the loopback that nothing listens on now."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(*options: str):
    """`hrf serve` on a free port in a process of its own, once it answers:
    (the process, its URL). The caller ends the process."""
    import subprocess
    import sys
    import tempfile
    import time
    import urllib.request

    port = free_port()
    log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the server; a pipe nobody reads could fill
    proc = subprocess.Popen(
        [sys.executable, "-m", "hrf", "serve", "--port", str(port), *options], stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(url + "/api/info", timeout=1).read()
            return proc, url
        except OSError:
            if proc.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"hrf serve stopped: {log.read().decode(errors='replace')}") from None
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("hrf serve did not answer within a minute")
