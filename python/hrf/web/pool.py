"""The worker processes of `hrf serve`: each request runs in one, so that
a test that explodes holds one worker, not the server. A worker past its
deadline (the check's own limit plus a grace) is killed and replaced; a
worker that dies (out of memory) is replaced; the request is answered
with an error that says which. A worker says when it has started, and a
request's deadline runs from then: a replacement's start-up (a process,
hrf's imports) is not charged to the request it serves first."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing as mp
import os
import resource
from collections.abc import Callable
from typing import Any

from .work import ServeLimits, answer

GRACE = 2.0  # seconds past the check's own deadline before its worker is killed
STARTUP = 60.0  # seconds a new worker may take to start before it is given up
READY = "ready"  # a worker's first message: it has started


def _worker(conn, lim: ServeLimits, respond: Callable[[str, Any, ServeLimits], dict]) -> None:
    """A worker's life: answer requests until told to stop (None)."""
    # a backstop under hrf's own memory limit: an allocation past it fails
    # (Python: MemoryError, answered; Rust: the process ends, replaced)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (lim.memory * 2 + (2 << 30), resource.RLIM_INFINITY))
    try:
        conn.send(READY)
    except (BrokenPipeError, OSError):
        return
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if msg is None:
            return
        kind, payload = msg
        try:
            conn.send(respond(kind, payload, lim))
        except (BrokenPipeError, OSError):
            return


class _Worker:
    def __init__(self, ctx, lim: ServeLimits, respond):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, lim, respond), daemon=True, name="hrf-serve-worker")
        self.proc.start()
        child.close()
        self.started = False  # its READY not yet read

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.proc.kill()
            self.proc.join(1)
        with contextlib.suppress(Exception):
            self.conn.close()


class WorkerPool:
    """`lim.workers` processes answering `respond(kind, payload, lim)`
    (`hrf.web.work.answer`; a module-level function)."""

    def __init__(
        self, lim: ServeLimits, respond: Callable[[str, Any, ServeLimits], dict] = answer, grace: float = GRACE
    ):
        # forkserver: workers start from a clean process, not a fork of the
        # server's event loop and threads
        method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        self.ctx = mp.get_context(method)
        if method == "forkserver":
            self.ctx.set_forkserver_preload(["hrf.web.work", "hrf.api"])
        self.lim, self.respond, self.grace = lim, respond, grace
        self.idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self.all: list[_Worker] = []
        self.waiting = 0
        self.restarts = 0

    def start(self) -> None:
        for _ in range(self.lim.workers):
            self._add()

    def _add(self) -> _Worker:
        w = _Worker(self.ctx, self.lim, self.respond)
        self.all.append(w)
        self.idle.put_nowait(w)
        return w

    def _replace(self, w: _Worker) -> None:
        w.kill()
        self.all.remove(w)
        self.restarts += 1
        self._add()

    def close(self) -> None:
        for w in self.all:
            with contextlib.suppress(Exception):
                w.conn.send(None)
        for w in self.all:
            w.proc.join(1)
            w.kill()
        self.all.clear()

    async def run(self, kind: str, payload: Any) -> dict:
        """The reply to a request; a request that finds the queue full is
        answered busy at once."""
        if self.waiting >= self.lim.queue:
            return failure("Busy", f"the server is busy ({self.waiting} requests waiting): try again")
        # shielded: a client that goes away (the page sent a newer edit)
        # leaves its worker to finish and go back to the idle queue
        return await asyncio.shield(asyncio.ensure_future(self._run(kind, payload)))

    async def _run(self, kind: str, payload: Any) -> dict:
        self.waiting += 1
        try:
            w = await self.idle.get()
        finally:
            self.waiting -= 1
        starting = not w.started
        try:
            if starting:
                if await asyncio.wait_for(self._reply(w), STARTUP) != READY:
                    raise EOFError("no start-up message")
                w.started, starting = True, False
            w.conn.send((kind, payload))
            reply = await asyncio.wait_for(self._reply(w), self.lim.seconds + self.grace)
        except asyncio.TimeoutError:
            self._replace(w)
            if starting:
                return failure("WorkerStopped", f"the worker for the request did not start within {STARTUP:g} s")
            return failure("LimitExceeded", f"the request took longer than the server's limit ({self.lim.seconds:g} s)")
        except (EOFError, OSError):
            code = w.proc.exitcode
            self._replace(w)
            if starting:
                return failure("WorkerStopped", f"the worker for the request stopped while starting (exit {code})")
            return failure(
                "WorkerStopped",
                f"the worker answering the request stopped (exit {code}): out of memory "
                f"(the server's limit is {self.lim.memory >> 20} MiB)?",
            )
        self.idle.put_nowait(w)
        return reply

    @staticmethod
    async def _reply(w: _Worker) -> dict:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        fd = w.conn.fileno()

        def readable() -> None:
            if not ready.done():
                ready.set_result(None)

        loop.add_reader(fd, readable)
        try:
            await ready
        finally:
            loop.remove_reader(fd)
        return w.conn.recv()


def failure(kind: str, message: str) -> dict:
    return {"ok": False, "error": {"kind": kind, "message": message, "text": message, "where": "request"}}


def default_workers() -> int:
    return max(1, min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))
