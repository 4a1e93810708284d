"""Load on `hrf serve`: `--clients` clients (50), each checking a generated
test every `--period` seconds (0.1) for `--seconds` (60), under two
models; then the same with one more client sending a test that explodes
(it meets the server's time or candidate limit every time). Prints, per
phase, the requests, the failed ones (any answer but 200 with "ok"), the
rate, and the latency's median, p99 and maximum. The clients are raw
HTTP/1.1 keep-alive connections in one asyncio process (light, so that
they take little of the cores they share with the server).
Run by hand: `python benchmarks/bench_web.py [--clients 50] [--seconds 60] [--workers 2]`."""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

import hrf

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from conftest import many_writes, start_server  # noqa: E402

MODELS = ["hrf-direct", "hrf-indirect"]


async def post(reader, writer, body: bytes) -> tuple[int, bytes]:
    writer.write(
        b"POST /api/check HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    length = 0
    while (line := await reader.readline()) not in (b"\r\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return status, await reader.readexactly(length)


async def client(port: int, bodies: list[bytes], period: float, until: float, out: list) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    i, due = 0, time.monotonic()
    while time.monotonic() < until:
        t0 = time.monotonic()
        try:
            status, data = await post(reader, writer, bodies[i % len(bodies)])
            ok = status == 200 and json.loads(data)["ok"]
        except (OSError, ValueError, asyncio.IncompleteReadError):
            ok = False
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        out.append((time.monotonic() - t0, ok))
        i += 1
        due += period
        await asyncio.sleep(max(0.0, due - time.monotonic()))
    writer.close()


async def phase(port: int, tests: list[bytes], args, explosive: bool) -> tuple[list, list]:
    until = time.monotonic() + args.seconds
    per = [tests[k :: args.clients] for k in range(args.clients)]
    results: list = []
    boom: list = []
    tasks = [client(port, per[k], args.period, until, results) for k in range(args.clients)]
    if explosive:
        body = json.dumps({"test": many_writes(3, 4, 4), "models": ["c11"]}).encode()
        tasks.append(client(port, [body], args.period, until, boom))
    await asyncio.gather(*tasks)
    return results, boom


def report(name: str, results: list, seconds: float) -> None:
    lat = sorted(t for t, _ in results)
    failed = sum(1 for _, ok in results if not ok)
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    print(
        f"{name:34s} {len(results):7d} requests {failed:5d} failed {len(results) / seconds:7.1f}/s "
        f"median {statistics.median(lat) * 1000:7.1f} ms  p99 {p99 * 1000:7.1f} ms  max {lat[-1] * 1000:7.1f} ms"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--period", type=float, default=0.1)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--limit", type=float, default=2.0, help="the server's time limit per request")
    a = p.parse_args()
    tests = [
        json.dumps({"test": hrf.to_litmus(t), "models": MODELS}).encode()
        for t in hrf.generate(count=max(1000, a.clients * 20), seed=7)
    ]
    server, url = start_server("--workers", str(a.workers), "--seconds", str(a.limit))
    port = int(url.rsplit(":", 1)[1])
    try:
        print(f"hrf serve, {a.workers} workers, limit {a.limit} s; {a.clients} clients every {a.period} s")
        results, _ = asyncio.run(phase(port, tests, a, explosive=False))
        report("generated tests", results, a.seconds)
        results, boom = asyncio.run(phase(port, tests, a, explosive=True))
        report("generated tests, beside an explosive", results, a.seconds)
        report("the explosive client", boom, a.seconds)
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
