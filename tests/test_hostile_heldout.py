"""A held-out corpus of hostile input on the surfaces of the third round
(`hrf serve`, `hrf run --log`, `--emit-cuda`, liveness, Dat3M's dialects),
written apart from `benchmarks/hostile_campaign.py`'s generators: each case
is answered right or refused by name. Cases that found a defect say so."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import hrf_cli

ROOT = Path(__file__).resolve().parent.parent
MP_GPU = ROOT / "litmus" / "gpu" / "MP+rlx-gpu.litmus"
FIG6 = (ROOT / "litmus" / "hrf" / "hrf14-fig6.litmus").read_text()


def _log(states: str, ok: str, pos: int, neg: int, word: str, held: int, not_held: int, nl: str = "\n") -> str:
    n = states.count("\n")
    text = (
        f"Test MP+rlx-gpu Allowed\nHistogram ({n} states)\n{states}{ok}\n\nWitnesses\n"
        f"Positive: {pos}, Negative: {neg}\nCondition exists (1:r0=1 /\\ 1:r1=0) is validated\n"
        f"Observation MP+rlx-gpu {word} {held} {not_held}\n"
    )
    return text.replace("\n", nl)


STATES = "600   :>1:r0=0; 1:r1=0;\n380   :>1:r0=1; 1:r1=1;\n20    *>1:r0=1; 1:r1=0;\n"


def test_a_log_with_windows_line_ends_is_read(tmp_path):
    (tmp_path / "g.log").write_bytes(_log(STATES, "Ok", 20, 980, "Sometimes", 20, 980, "\r\n").encode())
    p = hrf_cli("run", "--log", "g.log", "-m", "ptx-7.5", MP_GPU, cwd=tmp_path)
    assert p.returncode == 0 and "3 of 3 seen states allowed by ptx-7.5" in p.stdout


def test_a_state_counted_zero_times_is_refused(tmp_path):
    # found by this corpus: the state was counted as seen
    states = STATES.replace("380   :>", "0     :>")
    (tmp_path / "g.log").write_text(_log(states, "Ok", 20, 600, "Sometimes", 20, 600))
    p = hrf_cli("run", "--log", "g.log", "-m", "ptx-7.5", MP_GPU, cwd=tmp_path)
    assert p.returncode == 2 and "is counted 0 times" in p.stderr and "Traceback" not in p.stderr


@pytest.mark.parametrize(
    "ok, pos, neg, word, held, not_held, says",
    [
        ("No", 20, 980, "Sometimes", 20, 980, "it says No, its states Ok"),
        ("Ok", 21, 980, "Sometimes", 20, 980, "Positive: 21"),
        ("Ok", 20, 980, "Always", 20, 980, "its Observation says Always, its states Sometimes"),
        ("Ok", 20, 980, "Sometimes", 0, 1000, "its Observation counts 0 1000, its states 20 980"),
    ],
)
def test_a_log_whose_summary_contradicts_its_states_is_refused(tmp_path, ok, pos, neg, word, held, not_held, says):
    # found by this corpus: the summary lines were not read against the states
    (tmp_path / "g.log").write_text(_log(STATES, ok, pos, neg, word, held, not_held))
    p = hrf_cli("run", "--log", "g.log", "-m", "ptx-7.5", MP_GPU, cwd=tmp_path)
    assert p.returncode == 2 and "contradicts itself" in p.stderr and says in p.stderr


def test_emit_cuda_twice_into_one_folder_gives_the_same_files(tmp_path):
    out = tmp_path / "a folder with spaces é"
    for _ in range(2):
        assert hrf_cli("run", MP_GPU, "--emit-cuda", out).returncode == 0
    assert sorted(p.name for p in out.iterdir()) == ["MP+rlx-gpu.cu", "hrf_driver.h", "hrf_emulate.h"]


NESTED = """OpenCL nested
{ x = 0; y = 0; }
P0 (global atomic_int* x, global atomic_int* y) {
  atomic_store_explicit(x, 1, memory_order_release, memory_scope_device);
  atomic_store_explicit(y, 1, memory_order_release, memory_scope_device);
}
P1 (global atomic_int* x, global atomic_int* y) {
  int r0 = 0; int r1 = 0;
  while (r0 == 0) {
    r0 = atomic_load_explicit(x, memory_order_acquire, memory_scope_device);
    while (r1 == 0) { r1 = atomic_load_explicit(y, memory_order_acquire, memory_scope_device); }
  }
}
exists (1:r0=1)
"""


@pytest.mark.parametrize(
    "progress, live",
    # Hand derivation: P1 waits for P0's stores (x, then y) in nested loops.
    # fair: P0 runs and its stores are seen in time: live. hsa: the lowest
    # schedulable thread, P0, progresses: live. lobe: a thread at or below a
    # started one (P0 below P1) progresses: live. obe, unfair: P0 need never
    # start once P1 has; P1 spins in the inner loop (line 11) for ever.
    [("fair", True), ("hsa", True), ("lobe", True), ("obe", False), ("unfair", False)],
)
def test_nested_loops_under_each_progress_model(tmp_path, progress, live):
    (tmp_path / "n.litmus").write_text(NESTED)
    p = hrf_cli("check", "n.litmus", "-m", "opencl", "--liveness", "--progress", progress, "--unroll", 3, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (f": live under {progress} progress" in p.stderr) == live
    assert ("not live" in p.stderr) == (not live)
    if not live:
        assert "line 11" in p.stderr
    # unroll 0: nothing established either way, and said so
    p0 = hrf_cli("check", "n.litmus", "-m", "opencl", "--liveness", "--progress", progress, "--unroll", 0, cwd=tmp_path)
    assert "liveness not established" in p0.stderr


def test_a_jump_to_another_threads_label_is_refused_by_name(tmp_path):
    (tmp_path / "j.litmus").write_text(
        "PTX jump\n{\nx=0; flag=0;\nP1:r0=0;\n}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
        " LC00: | ld.acquire.gpu r0, flag ;\n st.weak x, 42 | bne r0, 1, LC00 ;\nexists (P1:r0 == 0)\n"
    )
    p = hrf_cli("check", "j.litmus", "-m", "ptx-7.5", cwd=tmp_path)
    assert p.returncode == 1 and "P1: bra to undefined label LC00" in p.stderr


@pytest.fixture(scope="module")
def client():
    from starlette.testclient import TestClient

    from hrf.web import ServeLimits, create_app

    with TestClient(create_app(ServeLimits(seconds=2.0, workers=2))) as c:
        yield c


@pytest.mark.parametrize(
    "route, payload, says",
    [
        # found by this corpus: unknown fields were ignored, so a misspelt one was answered as if absent
        ("soundness", {"test": FIG6, "scheme": "rsp-new", "max_states": 0}, "has no field 'max_states'"),
        ("check", {"test": FIG6, "models": ["sc"], "unrol": 3}, "has no field 'unrol'"),
        ("check", {"test": FIG6, "models": [{"cat": "", "name": 5}]}, "model 0 has no field 'name'"),
        ("check", {"test": FIG6, "models": ["sc"], "graph": {"model": 0, "idx": 1}}, "'graph' has no field 'idx'"),
        ("graph", {"test": FIG6, "models": ["sc"], "graph": {}}, "a graph request has no field 'graph'"),
        ("check", {"test": FIG6, "models": ["sc"], "unroll": float("inf")}, "'unroll' must be a whole number"),
        ("check", {"test": FIG6 + "\x00", "models": ["sc"]}, "unexpected character"),
        ("check", {"models": ["sc"]}, "'test' must be text"),
    ],
)
def test_serve_refuses_by_name(client, route, payload, says):
    r = client.post(f"/api/{route}", content=json.dumps(payload, allow_nan=True).encode())
    assert r.status_code == 200
    body = r.json()
    assert not body["ok"] and says in body["error"]["message"]


def test_serve_corpus_paths_that_leave_it_are_not_found(client):
    for path in ("/api/corpus/./..", "/api/corpus/hrf/.", "/api/corpus/%00/%00", "/static/%2e%2e/%2e%2e/README.md"):
        r = client.get(path)
        assert r.status_code == 404 and "root:" not in r.text


def _writers(n: int, final: int = 1) -> str:
    return (
        "PTX many\n{\nx=0;\n}\n"
        + " | ".join(f"P{i}@cta {i},gpu 0" for i in range(n))
        + " ;\n"
        + " | ".join("st.relaxed.gpu x, 1" for _ in range(n))
        + f" ;\nexists (x={final})\n"
    )


def test_many_writers_to_one_location_meet_the_time_limit(tmp_path):
    # found by this corpus: PTX's partial coherence order tried 2^k sets of
    # predecessors per write without looking at the clock (24 writers under
    # --max-seconds 1 ran for 14 s, 28 for ever). x=2 holds in no execution:
    # only the whole search could say so, and the limit leaves it undecided
    (tmp_path / "w.litmus").write_text(_writers(28, final=2))
    p = subprocess.run(
        [sys.executable, "-m", "hrf", "check", "w.litmus", "-m", "ptx-7.5", "--max-seconds", "1", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,  # a hang guard, not a speed figure
    )
    r = json.loads(p.stdout)
    r = r[0] if isinstance(r, list) else r
    assert r["complete"] is False and r["limit"]["which"] == "time" and r["condition_holds"] is None


def test_more_than_63_writers_to_one_location_are_a_limit_not_a_hang(tmp_path):
    (tmp_path / "w.litmus").write_text(_writers(65))
    p = hrf_cli("check", "w.litmus", "-m", "ptx-7.5", cwd=tmp_path)
    assert "more than 63 writes to one location in a partial coherence order" in p.stdout
    assert "Undetermined" in p.stdout and "Traceback" not in p.stderr
