"""`hrf serve`: the local web page (hrf.web)."""

from __future__ import annotations

from ..web.work import ServeLimits
from .args import memory, seconds, whole

_DEFAULT = ServeLimits()


def cmd_serve(a) -> int:
    from ..web import serve
    from ..web.pool import default_workers

    lim = ServeLimits(
        seconds=a.seconds,
        memory=a.memory,
        candidates=a.max_candidates,
        machine_states=a.max_states,
        request_bytes=a.max_request,
        workers=a.workers or default_workers(),
    )
    if a.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"hrf serve: note: listening on {a.host}, beyond this machine's loopback")
    serve(a.host, a.port, lim)
    return 0


def add(sub) -> None:
    """The `serve` verb."""
    d = sub.add_parser("serve", help="a local web page: write a test, see its executions (needs hrf[web])")
    d.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, the loopback)")
    d.add_argument("--port", type=whole(1), default=8000, help="port (default 8000)")
    d.add_argument("--workers", type=whole(1), default=None, help="worker processes (default: the cores, at most 8)")
    d.add_argument(
        "--seconds",
        type=seconds,
        default=_DEFAULT.seconds,
        help="a request's time limit in seconds (default %(default)s)",
    )
    d.add_argument(
        "--memory", type=memory, default=_DEFAULT.memory, help="a worker's memory limit in bytes (default %(default)s)"
    )
    d.add_argument(
        "--max-candidates",
        type=whole(1),
        default=_DEFAULT.candidates,
        help="candidates per check (default %(default)s)",
    )
    d.add_argument(
        "--max-states",
        type=whole(1),
        default=_DEFAULT.machine_states,
        help="machine states per soundness check (default %(default)s)",
    )
    d.add_argument(
        "--max-request",
        type=memory,
        default=_DEFAULT.request_bytes,
        help="a request's size in bytes (default %(default)s)",
    )
    d.set_defaults(func=cmd_serve)
