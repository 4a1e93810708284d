"""What a request to `hrf serve` asks, answered in a worker process: a
test checked under models, one execution drawn, a scheme's soundness.
Everything here takes JSON-like data and gives JSON-like data; only
litmus and cat text come in (never a path, never a Python model), under
the server's limits (`ServeLimits`)."""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass
from typing import Any

from ..errors import HrfError, InvalidArgument, UnsupportedFeature


@dataclass(frozen=True)
class ServeLimits:
    """The limits the server sets on each request (none comes from the page)."""

    seconds: float = 5.0  # a check's or exploration's own deadline (hrf.Limits.max_seconds)
    memory: int = 2 << 30  # resident bytes of a worker (hrf.Limits.max_memory)
    candidates: int = 2_000_000  # candidate executions per check
    machine_states: int = 500_000  # states the [RSP15] machine may explore per write-back policy
    request_bytes: int = 256 << 10  # a request's body
    models: int = 4  # models checked together
    workers: int = 2  # worker processes
    queue: int = 256  # requests that may wait for a worker before the server answers "busy"

    def public(self) -> dict:
        return asdict(self)


def check_limits(lim: ServeLimits) -> ServeLimits:
    """The limits as given, or InvalidArgument naming the one out of range."""
    for name, value in asdict(lim).items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise InvalidArgument(f"serve: {name} must be a number > 0, not {value!r}")
    return lim


# The fields each request reads: any other is refused by name (a misspelt
# "unrol" would otherwise be answered as if it were not there).
FIELDS = {
    "check": ("test", "models", "unroll", "graph"),
    "graph": ("test", "models", "unroll", "index"),
    "soundness": ("test", "scheme", "unroll"),
}


def _known_fields(obj: dict, known: tuple, what: str) -> None:
    unknown = [k for k in obj if k not in known]
    if unknown:
        raise InvalidArgument(
            f"{what} has no field {', '.join(repr(k) for k in unknown)} (its fields: {', '.join(known)})"
        )


def answer(kind: str, payload: Any, lim: ServeLimits) -> dict:
    """The reply to one request: `{"ok": True, ...}`, or `{"ok": False,
    "error": {...}}` with the error's kind, message, and where it is
    (`where`: "test", "model N" or "request"; line and column)."""
    handlers = {"check": _check, "graph": _graph, "soundness": _soundness}
    try:
        if kind not in handlers:
            raise InvalidArgument(f"unknown request {kind!r}")
        if not isinstance(payload, dict):
            raise InvalidArgument("a request is a JSON object")
        _known_fields(payload, FIELDS[kind], f"a {kind} request")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            reply = handlers[kind](payload, lim)
        reply["warnings"] = [str(w.message) for w in caught]
        return {"ok": True, **reply}
    except _Located as e:
        return {"ok": False, "error": error_json(e.error, e.where)}
    except HrfError as e:
        return {"ok": False, "error": error_json(e, "request")}
    except (MemoryError, RecursionError) as e:  # pragma: no cover - guarded by the limits
        return {
            "ok": False,
            "error": {"kind": type(e).__name__, "message": "the request ran out of room", "where": "request"},
        }


class _Located(Exception):
    """An hrf error and the part of the request it is about."""

    def __init__(self, error: HrfError, where: str):
        super().__init__(str(error))
        self.error, self.where = error, where


def error_json(e: HrfError, where: str) -> dict:
    return {
        "kind": type(e).__name__,
        "message": getattr(e, "message", None) or str(e),
        "text": str(e),
        "where": where,
        "line": getattr(e, "line", None),
        "column": getattr(e, "column", None),
    }


# ------------------------------------------------------------ the request's parts
def _text(payload: dict, key: str, lim: ServeLimits) -> str:
    v = payload.get(key)
    if not isinstance(v, str):
        raise InvalidArgument(f"{key!r} must be text")
    if len(v) > lim.request_bytes:
        raise InvalidArgument(f"{key!r} is longer than the server's limit of {lim.request_bytes} characters")
    return v


def _test(payload: dict, lim: ServeLimits):
    from ..litmus import parse_text

    text = _text(payload, "test", lim)
    try:
        return parse_text(text)  # text only: never a path
    except HrfError as e:
        raise _Located(e, "test") from None


def _models(payload: dict, lim: ServeLimits) -> list:
    """(label, Model) of each model asked for: a built-in's name, or
    {"cat": text} (confined: it includes only hrf's shipped cat files)."""
    from ..cat import load_text
    from ..models import get, names

    specs = payload.get("models")
    if not isinstance(specs, list) or not specs:
        raise InvalidArgument("'models' must be a list of one or more models")
    if len(specs) > lim.models:
        raise InvalidArgument(f"at most {lim.models} models at once (the server's limit), not {len(specs)}")
    out: list[tuple[str, Any]] = []  # a Model, or the _Located error of a cat model that does not compile
    for i, spec in enumerate(specs):
        if isinstance(spec, str):
            if spec not in names():
                raise InvalidArgument(f"unknown model {spec!r}; known models: {', '.join(names())}")
            out.append((spec, get(spec)))
        elif isinstance(spec, dict) and isinstance(spec.get("cat"), str):
            _known_fields(spec, ("cat",), f"model {i}")
            text = _text(spec, "cat", lim)
            try:
                m = load_text(text)
            except HrfError as e:  # the cat model's own error: its card's, the others still answer
                out.append(("cat model", _Located(e, f"model {i}")))
                continue
            out.append((f"{m.name} (cat)", m))
        else:
            raise InvalidArgument(f'model {i}: a built-in model\'s name or {{"cat": text}}')
    return out


def _limits(lim: ServeLimits, payload: dict):
    from ..api import UNROLL, Limits

    unroll = payload.get("unroll", UNROLL)
    if isinstance(unroll, bool) or not isinstance(unroll, int) or not 0 <= unroll <= 8:
        raise InvalidArgument("'unroll' must be a whole number from 0 to 8")
    return Limits(max_seconds=lim.seconds, max_memory=lim.memory, max_candidates=lim.candidates, unroll=unroll)


def _results(payload: dict, lim: ServeLimits):
    from ..api import check_compiled, prepare

    test = _test(payload, lim)
    limits = _limits(lim, payload)
    out: list = []
    for label, model in _models(payload, lim):
        if isinstance(model, _Located):  # a model that did not compile: said for that model
            out.append((label, model))
            continue
        try:
            # witnesses with the check, under its deadline (not built again on first use)
            out.append((label, check_compiled(*prepare(test, model, limits), limits, eager=True)))
        except HrfError as e:  # this model refuses the test (UnsupportedFeature, ...): said for that model
            out.append((label, e))
    return test, out


# ------------------------------------------------------------ the answers
def executions(r) -> list[tuple[str, dict | None]]:
    """The executions the page steps through for a result: a witness per
    outcome, then each flag's execution; (label, execution)."""
    from ..litmus.printer import format_state

    out = [(f"outcome {format_state(st[0])}", st[4]) for st in r.states]
    out += [(f"{f['kind']} ({f['check']})", f.get("execution")) for f in r.flags]
    return out


def _check(payload: dict, lim: ServeLimits) -> dict:
    from ..litmus.printer import format_state
    from ..models import readers as model_readers
    from ..results import flag_word, verdict

    test, results = _results(payload, lim)
    models: list[dict] = []
    allowed: list[dict[str, None] | None] = []
    for label, r in results:
        if isinstance(r, _Located):  # the model's own text is wrong (a cat model): where in it
            models.append({"label": label, "error": error_json(r.error, r.where)})
            allowed.append(None)
            continue
        if isinstance(r, HrfError):
            # about a line of the test (a construct this model refuses) or about the model
            where = "test" if getattr(r, "line", None) else "model"
            e = error_json(r, where)
            e["refused"] = isinstance(r, UnsupportedFeature)  # a refusal, not a syntax error
            models.append({"label": label, "error": e})
            allowed.append(None)
            continue
        labels = [x[0] for x in executions(r)]
        n_out = len(r.states)
        models.append(
            {
                "label": label,
                "verdict": verdict(r),
                "condition_holds": r.condition_holds,
                "observation": list(r.observation),
                "racy": r.racy,
                "race_word": flag_word(r.racy, r.flags),  # racy, race-free, or the undefined behaviour named
                "flags": [
                    {"kind": f["kind"], "check": f["check"], "events": f.get("events"), "execution": n_out + j}
                    for j, f in enumerate(r.flags)
                ],
                "complete": r.complete,
                "limit": r.limit,
                "notes": r.notes,
                "candidates": r.candidates,
                "time": round(r.time, 6),
                "executions": labels,
            }
        )
        allowed.append(dict.fromkeys(format_state(o) for o in r.outcomes))  # in order, found at once
    # every model's outcomes, first seen first (C11's fig6 has thousands: no list scans)
    keys = dict.fromkeys(k for a in allowed for k in a or ())
    rows = []
    for k in keys:
        cells = [None if a is None else k in a for a in allowed]
        known = [c for c in cells if c is not None]
        rows.append({"outcome": k, "allowed": cells, "differs": len(set(known)) > 1})
    return {
        "test": {"name": test.name, "arch": test.arch, "threads": [t.name for t in test.threads]},
        "models": models,
        "outcomes": rows,
        "readers": model_readers(test),
        "graph": _check_graph(payload, results),
    }


def _whole(payload: dict, key: str, default: int = 0) -> int:
    v = payload.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise InvalidArgument(f"'{key}' must be a whole number >= 0")
    return v


def _check_graph(payload: dict, results: list) -> dict | None:
    """The graph the page shows, drawn from the check's own executions (no
    second search): `"graph": {"model": i, "index": k}` in a check request.
    None where it asks for none; its error where it cannot be drawn."""
    want = payload.get("graph")
    if want is None:
        return None
    if not isinstance(want, dict):
        raise InvalidArgument("'graph' must be an object {model, index}")
    _known_fields(want, ("model", "index"), "'graph'")
    model, index = _whole(want, "model"), _whole(want, "index")
    if model >= len(results):
        return None
    label, r = results[model]
    if isinstance(r, (HrfError, _Located)):
        return None
    execs = executions(r)
    if not execs:
        return None
    index %= len(execs)
    try:
        return {"model": model, **_draw(label, r, execs, index)}
    except HrfError as e:  # no Graphviz here, or no execution kept: the check's answer stands
        return {"model": model, "index": index, "count": len(execs), "error": str(e)}


def _graph(payload: dict, lim: ServeLimits) -> dict:
    index = _whole(payload, "index")
    _, results = _results(payload, lim)
    if len(results) != 1:
        raise InvalidArgument("a graph is of one model's execution: give one model")
    label, r = results[0]
    if isinstance(r, _Located):
        raise r
    if isinstance(r, HrfError):
        raise r
    execs = executions(r)
    if index >= len(execs):
        raise InvalidArgument(f"{label} has {len(execs)} executions to draw, not {index + 1}")
    return _draw(label, r, execs, index)


def _draw(label: str, r, execs: list, index: int) -> dict:
    from ..graph import dot_output, execution_dot

    name, ex = execs[index]
    if ex is None:
        raise HrfError(f"no execution kept for {name}")
    svg = dot_output(execution_dot(r, ex), "svg").decode()
    return {"label": name, "index": index, "count": len(execs), "svg": svg}


def _soundness(payload: dict, lim: ServeLimits) -> dict:
    from ..graph import dot_output
    from ..mappings import schemes
    from ..soundness import soundness

    scheme = payload.get("scheme")
    if not isinstance(scheme, str) or scheme not in schemes():
        raise InvalidArgument(f"unknown scheme {scheme!r}; known schemes: {', '.join(schemes())}")
    test = _test(payload, lim)
    s = soundness(
        test,
        scheme,
        limits=_limits(lim, payload),
        max_states=lim.machine_states,
        max_seconds=lim.seconds,
        workers=1,
    )
    svg = svg_error = None
    if s.counterexamples:
        try:  # the verdict stands without its picture (no Graphviz here)
            svg = dot_output(s.to_dot(), "svg").decode()
        except HrfError as e:
            svg_error = str(e)
    return {
        "verdict": {True: "sound", False: "unsound", None: "not decided"}[s.sound],
        "text": s.to_text(),
        "svg": svg,
        "svg_error": svg_error,
    }
