"""Hostile requests on `hrf serve`, under load: a server with 2 workers and
its 2 s limit, the ordinary load of docs/web.md's table running beside
(`--clients` clients, each checking a generated test every 100 ms), and
the attacks sent over the campaign: malformed, huge and deeply nested
JSON; wrong types and unknown fields on every route; corpus and static
paths that try to leave their folders; cat text including files by every
spelling; explosive tests; slow clients (headers a byte at a time) and
many clients opening at once. Each attack is classed:

- answer: 200 with "ok";
- refused: a 4xx (or 503 Busy) or a 200 whose error names what is wrong;
- traceback: a 500, or a reply naming an internal error;
- hang: no reply within --timeout seconds;
- crash: the server stopped;
- outside: a reply holding a file's text from outside the corpus
  (/etc/passwd's first line).

Then: the ordinary load's failed requests (any answer but 200 with "ok"),
tracebacks in the server's log, and, once the attacks are over, every
worker answering (as many concurrent checks as workers, all answered).

    python benchmarks/hostile_serve.py [--count 240] [--seed 1] [--clients 50] [--timeout 30]

Also run by `benchmarks/hostile_campaign.py --serve N`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import socket
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_web import client as load_client  # noqa: E402

from conftest import free_port, many_writes  # noqa: E402

FIG6 = (ROOT / "litmus/hrf/hrf14-fig6.litmus").read_text()
LEAK = b"root:x:0:0"  # /etc/passwd's first line
ROUTES = ("/api/check", "/api/graph", "/api/soundness")
INCLUDES = [
    "/etc/passwd",
    "../../../../../../etc/passwd",
    "~/.bashrc",
    "file:///etc/passwd",
    "%2e%2e/%2e%2e/etc/passwd",
    "..\\\\..\\\\etc\\\\passwd",
    "/proc/self/environ",
    "/dev/zero",
    "litmus/../../../../etc/passwd",
    "cos.cat",
    "stdlib.cat",
    "",
]
PATHS = [
    "/api/corpus/..%2f..%2fetc/passwd",
    "/api/corpus/hrf/..%2f..%2f..%2f..%2fetc%2fpasswd",
    "/api/corpus/%2e%2e/%2e%2e",
    "/api/corpus/hrf/hrf14-fig6.litmus%00.txt",
    "/static/../../../../etc/passwd",
    "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/static/..%2f..%2f..%2fREADME.md",
    "//etc/passwd",
    "/api/corpus/hrf/" + "a" * 5000,
    "/api/check",  # GET on a POST route
    "/api/info?x=" + "%" * 100,
]
BAD_VALUES = [None, True, -1, 2**70, 1.5, float("inf"), "", "x" * 300_000, [], {}, [1, 2], {"a": []}, "\x00"]


def _json(o) -> bytes:
    return json.dumps(o, allow_nan=True).encode()


def attacks(rng: random.Random, n: int) -> list[tuple[str, str, str, bytes | None]]:
    """(kind, method, path, body) each."""
    boom = many_writes(4, 4, 4, observe=False)
    out = []
    for _ in range(n):
        kind = rng.choice(["malformed", "huge", "deep", "types", "unknown", "paths", "include", "explosive", "valid"])
        route = rng.choice(ROUTES)
        body: bytes | None
        if kind == "malformed":
            base = _json({"test": FIG6, "models": ["sc"]})
            body = rng.choice(
                [
                    base[: rng.randrange(len(base))],
                    bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400))),
                    b'{"test": "\xff\xfe\xfd"}',
                    b"",
                    b"NaN",
                    b'{"test": ' + b"9" * 5000 + b"}",
                    b'{"test": "a", "test": 5}',
                ]
            )
        elif kind == "huge":
            body = _json({"test": "x" * ((256 << 10) + rng.randrange(1, 1 << 20)), "models": ["sc"]})
        elif kind == "deep":
            d = rng.choice([17, 100, 1000, 100_000])
            field = rng.choice(["models", "graph", "test", "unroll"])
            body = b'{"test": ' + _json(FIG6) + b', "' + field.encode() + b'": ' + b"[" * d + b"]" * d + b"}"
        elif kind == "types":
            payload = {"test": FIG6, "models": ["sc"], "scheme": "rsp-new"}
            key = rng.choice(["test", "models", "unroll", "graph", "scheme", "max_states", "writeback", "index"])
            payload[key] = rng.choice(BAD_VALUES + [[{"cat": 5}], [{"cat": []}], ["sc"] * 50, ["no-such"]])
            body = _json(payload)
        elif kind == "unknown":
            body = _json({"test": FIG6, "models": ["sc"], rng.choice(["zzz", "__proto__", "", "models "]): 1})
        elif kind == "paths":
            out.append((kind, "GET", rng.choice(PATHS), None))
            continue
        elif kind == "include":
            inc = rng.choice(INCLUDES)
            cat = f'"mine"\ninclude "{inc}"\nacyclic po | rf as sc'
            body = _json({"test": FIG6, "models": [{"cat": cat}]})
            route = "/api/check"
        elif kind == "explosive":
            body = _json({"test": boom, "models": ["c11"]})
            route = "/api/check"
        else:
            body = _json({"test": FIG6, "models": ["sc", "hrf-direct"], "scheme": "rsp-new"})
        out.append((kind, "POST", route, body))
    return out


def classify(url: str, method: str, path: str, body: bytes | None, timeout: float, alive) -> tuple[str, str]:
    req = urllib.request.Request(url + path, data=body, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, data = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, data = e.code, e.read()
    except TimeoutError:
        return "hang", f"no reply within {timeout} s"
    except (OSError, urllib.error.URLError) as e:
        if not alive():
            return "crash", "the server stopped"
        reason = getattr(e, "reason", e)
        if isinstance(reason, (BrokenPipeError, ConnectionResetError)) and len(body or b"") > (256 << 10):
            # the server answered 413 and closed before the whole body was sent
            return "refused", "closed after refusing a body over its limit"
        return "hang", f"connection: {e}"
    if LEAK in data:
        return "outside", "a reply holds /etc/passwd"
    if status >= 500 and status != 503:
        return "traceback", f"{status}: {data[:120]!r}"
    if status == 200 and path.startswith("/api/") and method == "POST":
        reply = json.loads(data)
        if reply.get("ok"):
            return "answer", ""
        kind = reply["error"]["kind"]
        if kind in ("MemoryError", "RecursionError", "Internal"):
            return "traceback", f"{kind}: {reply['error']['message']}"
        return "refused", f"{kind}: {reply['error']['message'][:80]}"
    if status == 200:
        return "answer", ""
    return "refused", f"{status}"


def slow_clients(port: int, n: int, seconds: float) -> None:
    """`n` connections sending a request's headers a byte every 0.5 s."""
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        socks.append(s)
    head = b"POST /api/check HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n"
    t0 = time.monotonic()
    i = 0
    while time.monotonic() - t0 < seconds and i < len(head):
        for s in socks:
            with contextlib.suppress(OSError):
                s.send(head[i : i + 1])
        i += 1
        time.sleep(0.5)
    for s in socks:
        s.close()


def many_at_once(url: str, n: int) -> int:
    """`n` clients asking for the page's info at once: how many failed."""

    def one(_):
        try:
            with urllib.request.urlopen(url + "/api/info", timeout=60) as r:
                return r.status == 200
        except OSError:
            return False

    with ThreadPoolExecutor(n) as pool:
        return sum(not ok for ok in pool.map(one, range(n)))


def campaign(count: int, seed: int, clients: int, timeout: float, workers: int = 2, say=print) -> dict:
    """Run it; the table (Counter of classes), the bad attacks, and the
    load's and the server's figures."""
    import subprocess

    from hrf.generate import generate, litmus_text

    rng = random.Random(seed)
    port = free_port()
    log = tempfile.TemporaryFile()  # noqa: SIM115 - read at the end
    proc = subprocess.Popen(
        [sys.executable, "-m", "hrf", "serve", "--port", str(port), "--workers", str(workers), "--seconds", "2"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(url + "/api/info", timeout=1).read()
            break
        except OSError:
            time.sleep(0.1)

    def alive() -> bool:
        return proc.poll() is None

    tests = [_json({"test": litmus_text(t), "models": ["hrf-direct", "hrf-indirect"]}) for t in generate(count=200)]
    done = threading.Event()
    results: list = []

    def load() -> None:
        async def main() -> None:
            until = time.monotonic() + 10_000
            tasks = [
                asyncio.create_task(load_client(port, tests[i::clients], 0.1, until, results)) for i in range(clients)
            ]
            while not done.is_set():
                await asyncio.sleep(0.2)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run(main())

    loader = threading.Thread(target=load, daemon=True)
    loader.start()
    table: Counter = Counter()
    bad: list = []
    slow = threading.Thread(target=slow_clients, args=(port, 30, 30.0), daemon=True)
    slow.start()
    started = time.monotonic()
    crowd_failed = many_at_once(url, 200)
    with ThreadPoolExecutor(4) as pool:
        jobs = attacks(rng, count)
        for (kind, method, path, body), (cls, detail) in zip(
            jobs, pool.map(lambda j: classify(url, *j[1:], timeout, alive), jobs), strict=True
        ):
            table[cls] += 1
            if cls not in ("answer", "refused"):
                bad.append((kind, method, path, (body or b"")[:100], cls, detail))
    slow.join()
    done.set()
    loader.join(60)
    seconds = time.monotonic() - started
    # every worker answers: as many concurrent checks as workers, twice
    after = 0
    for _ in range(2):
        with ThreadPoolExecutor(workers) as pool:
            after += sum(
                not ok
                for ok in pool.map(
                    lambda _: classify(url, "POST", "/api/check", tests[0], 30, alive)[0] == "answer", range(workers)
                )
            )
    proc.terminate()
    proc.wait(30)
    log.seek(0)
    server_log = log.read().decode(errors="replace")
    return {
        "table": table,
        "bad": bad,
        "load": len(results),
        "seconds": seconds,
        "load_failed": sum(not ok for _, ok in results),
        "crowd_failed": crowd_failed,
        "after_failed": after,
        "log_tracebacks": server_log.count("Traceback"),
        "alive": after == 0,
    }


def main(argv=None) -> int:
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--count", type=int, default=240)
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--clients", type=int, default=50)
    a.add_argument("--timeout", type=float, default=30.0)
    args = a.parse_args(argv)
    r = campaign(args.count, args.seed, args.clients, args.timeout)
    print(report(r))
    return 0 if ok(r) else 1


def ok(r: dict) -> bool:
    return not r["bad"] and not r["load_failed"] and not r["log_tracebacks"] and r["alive"] and not r["crowd_failed"]


def report(r: dict) -> str:
    t = r["table"]
    lines = [
        "serve attacks: "
        + ", ".join(f"{t[c]} {c}" for c in ("answer", "refused", "traceback", "hang", "crash", "outside")),
        f"ordinary load beside: {r['load']:,} requests in {r['seconds']:.0f} s, {r['load_failed']} failed; "
        "200 clients at once: "
        f"{r['crowd_failed']} failed; tracebacks in the server's log: {r['log_tracebacks']}; "
        f"every worker answering after: {'yes' if r['alive'] else 'NO'}",
    ]
    for kind, method, path, body, cls, detail in r["bad"]:
        lines.append(f"{cls}: {kind} {method} {path} {body!r}: {detail}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
