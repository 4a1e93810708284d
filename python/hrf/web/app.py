"""The ASGI application of `hrf serve` (Starlette): the page, its static
files, the shipped corpus, and three JSON requests (check, graph,
soundness) answered by the worker pool."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .pool import WorkerPool, failure
from .work import ServeLimits, check_limits

STATIC = Path(__file__).resolve().parent / "static"
CORPUS = Path(__file__).resolve().parent.parent / "corpus"

# the page loads nothing but its own files; the graphs are SVG images
SECURITY = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; "
    "script-src 'self'; object-src 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def corpus() -> dict[str, Path]:
    """The shipped litmus tests the page offers, by "group/name"
    (machine-code tests left out: the page checks source tests)."""
    out = {}
    for p in sorted(CORPUS.glob("*/*.litmus")):
        if p.parent.name != "machine":
            out[f"{p.parent.name}/{p.name}"] = p
    return out


def create_app(lim: ServeLimits | None = None) -> Starlette:
    lim = check_limits(lim or ServeLimits())
    pool = WorkerPool(lim)
    tests = corpus()

    @contextlib.asynccontextmanager
    async def lifespan(app):
        pool.start()
        try:
            yield
        finally:
            pool.close()

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers=SECURITY)

    async def info(request: Request) -> Response:
        from ..core import version
        from ..mappings import schemes
        from ..models import names, summary

        return JSONResponse(
            {
                "version": version(),
                "models": [{"name": n, "doc": summary(n)} for n in names()],
                "schemes": schemes(),
                "corpus": list(tests),
                "limits": lim.public(),
            },
            headers=SECURITY,
        )

    async def test_text(request: Request) -> Response:
        p = tests.get(f"{request.path_params['group']}/{request.path_params['name']}")
        if p is None:  # only the listed files: no path from the request reaches the file system
            return PlainTextResponse("no such test in hrf's corpus", status_code=404, headers=SECURITY)
        return PlainTextResponse(p.read_text(encoding="utf-8"), headers=SECURITY)

    def endpoint(kind: str):
        async def handle(request: Request) -> Response:
            body = await _body(request, lim.request_bytes)
            if isinstance(body, Response):
                return body
            try:
                payload = json.loads(body)
            except (ValueError, UnicodeDecodeError) as e:
                return JSONResponse(failure("BadRequest", f"malformed JSON: {e}"), status_code=400, headers=SECURITY)
            except RecursionError:  # Python's decoder recurses per level
                payload = _DEEP
            if payload is _DEEP or _too_deep(payload):
                return JSONResponse(
                    failure("BadRequest", f"the request's JSON is nested deeper than {MAX_DEPTH} levels"),
                    status_code=400,
                    headers=SECURITY,
                )
            reply = await pool.run(kind, payload)
            status = 503 if not reply["ok"] and reply["error"]["kind"] == "Busy" else 200
            return JSONResponse(reply, status_code=status, headers=SECURITY)

        return handle

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/info", info),
            Route("/api/corpus/{group}/{name}", test_text),
            Route("/api/check", endpoint("check"), methods=["POST"]),
            Route("/api/graph", endpoint("graph"), methods=["POST"]),
            Route("/api/soundness", endpoint("soundness"), methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.pool = pool
    return app


# A request is an object of texts, lists of models and small objects: a
# few levels. Deeper JSON is refused before it reaches a worker (pickling
# and reading it recurse per level).
MAX_DEPTH = 16
_DEEP = object()


def _too_deep(payload) -> bool:
    """Whether a decoded JSON value nests lists and objects deeper than
    MAX_DEPTH (walked without recursion)."""
    stack = [(payload, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (list, dict)):
            if d > MAX_DEPTH:
                return True
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return False


async def _body(request: Request, cap: int) -> bytes | Response:
    """The request's body, or a 413 answer once it passes `cap` bytes
    (read no further)."""
    too_big = JSONResponse(
        failure("TooLarge", f"the request is larger than the server's limit of {cap >> 10} KiB"),
        status_code=413,
        headers=SECURITY,
    )
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > cap):
        return too_big
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            return too_big
        chunks.append(chunk)
    return b"".join(chunks)
