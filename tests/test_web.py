"""`hrf serve` without a browser: the answers (hrf.web.work), the server's
limits and its refusals of bad input (through Starlette's test client),
and the worker pool's deadline. The page itself: test_web_browser.py."""

import asyncio
import json
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from conftest import CORPUS, have_dot, many_writes, require_dot
from hrf.web import ServeLimits, answer, create_app
from hrf.web.pool import WorkerPool

FIG6 = (CORPUS / "hrf" / "hrf14-fig6.litmus").read_text()
CORRUPT_MP = (CORPUS / "rsp" / "corrupt-mp.litmus").read_text()
LIM = ServeLimits(seconds=2.0, workers=2)


# ---------------------------------------------------------------- answers
def test_fig6_is_racy_under_hrf_direct_only():
    # [HRF14] Fig. 6: "an example of a racey execution in HRF-direct that is
    # data-race-free in HRF-indirect"; R2 = R3 = 1 in every execution
    a = answer("check", {"test": FIG6, "models": ["hrf-direct", "hrf-indirect"]}, LIM)
    assert a["ok"], a
    direct, indirect = a["models"]
    assert (direct["racy"], indirect["racy"]) == (True, False)
    assert (direct["race_word"], indirect["race_word"]) == ("racy", "race-free")
    (race,) = direct["flags"]
    assert race["kind"] == "heterogeneous_race"
    # the race is on X: P0's plain store (line 14) and P2's plain load (line 26)
    assert sorted((e["thread"], e["line"], e["loc"]) for e in race["events"]) == [("P0", 14, "X"), ("P2", 26, "X")]
    assert a["outcomes"] == [{"outcome": "1:R2=1; 2:R3=1;", "allowed": [True, True], "differs": False}]
    # the race's execution is the page's execution after the one outcome's witness
    assert race["execution"] == 1 and direct["executions"][1].startswith("heterogeneous_race")


def test_the_outcome_table_marks_where_models_differ():
    # MP with relaxed atomics: SC forbids 1:r0=1 /\ 1:r1=0, C11 allows it
    mp = """C MP
{ [x]=0; [y]=0; }
P0 (atomic_int* x, atomic_int* y) {
  atomic_store_explicit(x, 1, memory_order_relaxed);
  atomic_store_explicit(y, 1, memory_order_relaxed);
}
P1 (atomic_int* x, atomic_int* y) {
  int r0 = atomic_load_explicit(y, memory_order_relaxed);
  int r1 = atomic_load_explicit(x, memory_order_relaxed);
}
exists (1:r0=1 /\\ 1:r1=0)
"""
    a = answer("check", {"test": mp, "models": ["sc", "c11"]}, LIM)
    rows = {r["outcome"]: r for r in a["outcomes"]}
    assert len(rows) == 4
    assert rows["1:r0=1; 1:r1=0;"] == {"outcome": "1:r0=1; 1:r1=0;", "allowed": [False, True], "differs": True}
    assert [r["outcome"] for r in a["outcomes"] if r["differs"]] == ["1:r0=1; 1:r1=0;"]


def test_a_graph_is_an_svg_of_the_chosen_execution():
    require_dot()
    a = answer("graph", {"test": FIG6, "models": ["hrf-direct"], "index": 1}, LIM)
    assert a["ok"], a
    assert a["label"].startswith("heterogeneous_race") and a["count"] == 2
    assert a["svg"].lstrip().startswith("<?xml") and "<svg" in a["svg"] and ">P2<" in a["svg"]
    past = answer("graph", {"test": FIG6, "models": ["hrf-direct"], "index": 2}, LIM)
    assert not past["ok"] and "has 2 executions" in past["error"]["message"]


def test_soundness_gives_the_counterexample_trace():
    # [RSP15] talk's "corrupt MP": the old scheme is unsound for it
    a = answer("soundness", {"test": CORRUPT_MP, "scheme": "rsp-old"}, LIM)
    assert a["ok"] and a["verdict"] == "unsound"
    if have_dot():
        assert "<svg" in a["svg"] and a["svg_error"] is None
    else:  # the verdict without its picture, and why
        assert a["svg"] is None and "Graphviz" in a["svg_error"]
    b = answer("soundness", {"test": CORRUPT_MP, "scheme": "rsp-new"}, LIM)
    assert b["ok"] and b["verdict"] == "sound" and b["svg"] is None


def test_a_syntax_error_is_located_in_the_test():
    broken = FIG6.replace("  *X = 1;", "  *X = = 1;")
    a = answer("check", {"test": broken, "models": ["sc"]}, LIM)
    assert not a["ok"]
    e = a["error"]
    assert (e["kind"], e["where"], e["line"]) == ("LitmusSyntaxError", "test", 14)
    assert e["column"] is not None


def test_a_model_that_refuses_the_test_says_so_for_that_model_alone():
    # [GPU15]'s ptx model reads no seq_cst atomics (Fig. 6 has them)
    a = answer("check", {"test": FIG6, "models": ["sc", "ptx"]}, LIM)
    assert a["ok"]
    assert a["models"][0]["verdict"] == "Ok"
    assert a["models"][1]["error"]["kind"] == "UnsupportedFeature" and a["models"][1]["error"]["line"]
    assert all(r["allowed"][1] is None for r in a["outcomes"])


def test_a_cat_model_from_the_page_is_checked_and_confined():
    sc = '"SC"\ninclude "communication.cat"\nacyclic po | com as sc\n'
    a = answer("check", {"test": FIG6, "models": [{"cat": sc}, "sc"]}, LIM)
    assert a["ok"] and a["models"][0]["label"] == "SC (cat)"
    assert a["outcomes"][0]["allowed"] == [True, True]
    for bad in ("/etc/passwd", "../../../../etc/passwd", "sub/sc.cat"):
        # the cat model's error is its own card's; the other models still answer
        a = answer("check", {"test": FIG6, "models": [{"cat": f'"m"\ninclude "{bad}"\n'}, "sc"]}, LIM)
        assert a["ok"] and a["models"][1]["verdict"] == "Ok"
        e = a["models"][0]["error"]
        assert (e["kind"], e["where"], e["line"]) == ("DefinitionError", "model 0", 2)
        assert "refused" in e["message"] and "passwd" not in e["message"].split("refused")[1]


@pytest.mark.parametrize(
    "payload, says",
    [
        ({"test": FIG6}, "'models' must be a list"),
        ({"test": FIG6, "models": ["no-such"]}, "unknown model 'no-such'"),
        ({"test": FIG6, "models": ["hrf/models/sc.py"]}, "unknown model"),  # never a path
        ({"test": "litmus/hrf/hrf14-fig6.litmus", "models": ["sc"]}, "LitmusSyntaxError"),  # text, not a path
        ({"test": 3, "models": ["sc"]}, "'test' must be text"),
        ({"test": FIG6, "models": ["sc"] * 5}, "at most 4 models"),
        ({"test": FIG6, "models": ["sc"], "unroll": 99}, "'unroll'"),
        ({"test": FIG6, "models": [{"python": "import os"}]}, "a built-in model's name"),
        ([1, 2], "a request is a JSON object"),
    ],
)
def test_bad_requests_get_clear_errors(payload, says):
    a = answer("check", payload, LIM)
    assert not a["ok"]
    assert says in a["error"]["message"] or says == a["error"]["kind"]


# ---------------------------------------------------------------- the server
@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(LIM)) as c:
        yield c


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "app.js" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/static/app.js").status_code == 200
    info = client.get("/api/info").json()
    assert "hrf-direct" in [m["name"] for m in info["models"]] and "rsp-new" in info["schemes"]
    assert "hrf/hrf14-fig6.litmus" in info["corpus"]
    assert client.get("/api/corpus/hrf/hrf14-fig6.litmus").text == FIG6


def test_the_corpus_serves_only_its_own_files(client):
    for path in ("/api/corpus/../../etc/passwd", "/api/corpus/hrf/..%2F..%2Fpyproject.toml", "/api/corpus/cat/sc.cat"):
        assert client.get(path).status_code == 404


def test_a_check_through_the_server(client):
    r = client.post("/api/check", json={"test": FIG6, "models": ["hrf-direct", "hrf-indirect"]})
    assert r.status_code == 200 and [m["racy"] for m in r.json()["models"]] == [True, False]


def test_a_huge_paste_is_refused_and_the_server_goes_on(client):
    r = client.post("/api/check", content=b'{"test": "' + b"x" * (10 << 20) + b'", "models": ["sc"]}')
    assert r.status_code == 413 and r.json()["error"]["kind"] == "TooLarge"
    assert client.post("/api/check", json={"test": FIG6, "models": ["sc"]}).json()["ok"]


def test_malformed_json_is_a_bad_request(client):
    for body in (b"{not json", b"\xff\xfe", b""):
        r = client.post("/api/check", content=body)
        assert r.status_code == 400 and r.json()["error"]["kind"] == "BadRequest"


def test_deeply_nested_json_is_a_bad_request_not_a_server_error(client):
    # Python's JSON decoder recursed past its limit on 100,000 brackets (a
    # 500 and a traceback in the log); 17 levels reached the worker.
    for body in (b"[" * 100_000 + b"]" * 100_000, b'{"test": "x", "models": ' + b"[" * 17 + b"]" * 17 + b"}"):
        for route in ("/api/check", "/api/graph", "/api/soundness"):
            r = client.post(route, content=body)
            assert r.status_code == 400, (route, r.status_code)
            assert "nested deeper than 16 levels" in r.json()["error"]["message"]
    # a request of ordinary depth (an object holding a list of objects) passes
    cat = '"mine"\ninclude "cos.cat"\nacyclic po | com as sc'
    r = client.post("/api/check", json={"test": FIG6, "models": ["sc", {"cat": cat}]})
    assert r.status_code == 200 and r.json()["ok"]


def test_an_explosive_test_meets_the_servers_limit_and_others_are_answered(client):
    boom = many_writes(4, 4, 4, observe=False)
    t0 = time.monotonic()
    r = client.post("/api/check", json={"test": boom, "models": ["c11"]}).json()
    assert r["ok"]
    (m,) = r["models"]
    # whichever of the server's limits comes first (time or candidates)
    assert not m["complete"] and m["limit"]["which"] in ("time", "candidates")
    assert m["verdict"] == "incomplete" and m["condition_holds"] is None
    assert time.monotonic() - t0 < LIM.seconds + 10
    assert client.post("/api/check", json={"test": FIG6, "models": ["sc"]}).json()["ok"]


# ---------------------------------------------------------------- the pool
def sleeper(kind, payload, lim):
    """A stand-in for a request that ignores its deadline."""
    time.sleep(payload["sleep"])
    return {"ok": True, "slept": payload["sleep"]}


def _sleeps(seconds: float, grace: float, *sleeps: float):
    """The answers of a one-worker pool with `sleeper` to requests that
    sleep `sleeps` seconds in turn, and how often it replaced its worker."""

    async def go():
        pool = WorkerPool(ServeLimits(seconds=seconds, workers=1), respond=sleeper, grace=grace)
        pool.start()
        try:
            answers = [await pool.run("sleep", {"sleep": s}) for s in sleeps]
            return answers, pool.restarts
        finally:
            pool.close()

    return asyncio.run(go())


def test_a_worker_past_its_deadline_is_replaced():
    (stuck, fine), restarts = _sleeps(0.2, 0.3, 30, 0)
    assert stuck["error"]["kind"] == "LimitExceeded" and "0.2 s" in stuck["error"]["message"]
    assert fine == {"ok": True, "slept": 0} and restarts == 1


def test_a_fresh_workers_start_up_is_not_charged_to_its_request():
    # A worker says when it has started; a request's deadline runs from
    # then. With a deadline (0.05 s + 0.05 s grace) shorter than a worker's
    # start-up (a process from the forkserver, hrf's imports), the first
    # request and the first after a replacement are still answered.
    (first, stuck, after), restarts = _sleeps(0.05, 0.05, 0, 30, 0)
    assert first == after == {"ok": True, "slept": 0}
    assert stuck["error"]["kind"] == "LimitExceeded" and restarts == 1


def test_a_full_queue_is_answered_busy():
    async def go():
        pool = WorkerPool(ServeLimits(seconds=5, workers=1, queue=1), respond=sleeper)
        pool.start()
        try:
            first = asyncio.ensure_future(pool.run("sleep", {"sleep": 0.5}))
            await asyncio.sleep(0.05)
            second = asyncio.ensure_future(pool.run("sleep", {"sleep": 0}))  # waits for the one worker
            await asyncio.sleep(0.05)
            third = await pool.run("sleep", {"sleep": 0})  # the queue (1) is full
            return await first, await second, third
        finally:
            pool.close()

    first, second, third = asyncio.run(go())
    assert first["ok"] and second["ok"]
    assert third["error"]["kind"] == "Busy"


def test_serve_limits_are_checked():
    from hrf.errors import InvalidArgument
    from hrf.web import check_limits

    with pytest.raises(InvalidArgument, match="seconds"):
        check_limits(ServeLimits(seconds=0))
    assert json.dumps(ServeLimits().public())


def test_a_check_draws_the_graph_asked_for_from_its_own_executions():
    # no second search: the check's answer carries the chosen execution's drawing
    a = answer("check", {"test": FIG6, "models": ["sc", "hrf-direct"], "graph": {"model": 1, "index": 1}}, LIM)
    assert a["ok"] and a["graph"]["model"] == 1 and a["graph"]["count"] == 2
    if have_dot():
        assert a["graph"]["label"].startswith("heterogeneous_race") and "<svg" in a["graph"]["svg"]
    else:
        assert "Graphviz" in a["graph"]["error"]
    # an index past the end wraps round; none asked, none drawn; a bad one is the request's error
    assert (
        answer("check", {"test": FIG6, "models": ["sc"], "graph": {"model": 0, "index": 5}}, LIM)["graph"]["index"] == 0
    )
    assert answer("check", {"test": FIG6, "models": ["sc"]}, LIM)["graph"] is None
    bad = answer("check", {"test": FIG6, "models": ["sc"], "graph": {"model": -1}}, LIM)
    assert not bad["ok"] and "'model' must be a whole number" in bad["error"]["message"]


def test_undefined_behaviour_is_named_in_the_answer():
    # ptx-8.0's flag for a copy's destination read before the copy completes is no race
    text = (Path(__file__).resolve().parent.parent / "litmus" / "ptx8" / "bulk-group-no-wait.litmus").read_text()
    a = answer("check", {"test": text, "models": ["ptx-8.0"]}, LIM)
    (m,) = a["models"]
    assert m["racy"] is True and m["race_word"] == "undefined: async_copy_incomplete"
