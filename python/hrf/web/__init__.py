"""`hrf serve`: a local web page on hrf (the `hrf[web]` extra: Starlette
and uvicorn). Write or pick a test, choose models (built-in, or cat text),
and see the verdicts, the outcomes each model allows, races and
divergence with their events, and the executions drawn in scope boxes,
checked as one types; a scheme's soundness on the [RSP15] machine with
its counterexample's trace. Requests run in worker processes under the
server's limits (`ServeLimits`); only litmus and cat text come from the
page."""

from __future__ import annotations

from .work import ServeLimits, answer, check_limits

__all__ = ["ServeLimits", "answer", "check_limits", "create_app", "serve"]


def create_app(lim: ServeLimits | None = None):
    """The ASGI application (Starlette) serving the page under `lim`."""
    from ..errors import HrfError

    try:
        from .app import create_app as make
    except ImportError as e:  # pragma: no cover - depends on the extra
        raise HrfError(f"hrf serve needs the web extra: pip install 'hrf[web]' ({e})") from None
    return make(lim)


def serve(host: str = "127.0.0.1", port: int = 8000, lim: ServeLimits | None = None, quiet: bool = False) -> None:
    """Serve the page on host:port until interrupted (loopback by default)."""
    from ..errors import HrfError

    app = create_app(lim)
    try:
        import uvicorn
    except ImportError as e:  # pragma: no cover - depends on the extra
        raise HrfError(f"hrf serve needs the web extra: pip install 'hrf[web]' ({e})") from None
    if not quiet:
        print(f"hrf serve: http://{host}:{port}/ (Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
