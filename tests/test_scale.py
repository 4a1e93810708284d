"""Bulk work on worker processes: what travels between processes, workers
that take span after span, and a bulk run's rows made where the tests are
checked -- the same rows, logs and store as a run in one process."""

import gc
import io
import json
import pickle
import sqlite3

import hrf
import hrf.many
from conftest import CORPUS
from hrf import bulk
from hrf.generate import write_tests
from hrf.store import Store
from test_arrays import MP_POINTER

MODELS = ["hrf-direct", "hrf-indirect"]


def _fields(r):
    return (r.name, r.model, r.condition_holds, r.racy, r.outcomes, r.states, r.observation, r.notes, r.cut_paths)


def test_a_pickled_result_unpacks_its_lists_on_first_read():
    r = hrf.check(CORPUS / "hrf" / "hrf14-fig6.litmus", "hrf-direct")
    back = pickle.loads(pickle.dumps(r))
    assert "outcomes" not in back.__dict__ and "_packed" in back.__dict__  # not yet read
    assert back.racy is True and back.observation == r.observation  # scalars need no unpacking
    assert _fields(back) == _fields(r)
    assert "_packed" not in back.__dict__
    assert [f["kind"] for f in back.flags] == [f["kind"] for f in r.flags]
    assert all(f._owner is back for f in back.flags)  # a flag finds its result again
    # pickled again before being read: the packed lists travel as they came
    again = pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(r))))
    assert _fields(again) == _fields(r)
    # a list set before any was read is kept, the others still unpack
    mine = pickle.loads(pickle.dumps(r))
    mine.notes = ["mine"]
    assert mine.notes == ["mine"] and mine.outcomes == r.outcomes and mine.notes == ["mine"]


def test_outcomes_and_states_are_built_where_first_read():
    # A result keeps the core's outcomes as rows of numbers and builds its
    # outcomes and states on first read, in either order, each state's
    # outcome the outcome itself; pickled unread, the rows travel
    # (addresses with them: shown by name on the other side).
    r = hrf.check(CORPUS / "hrf" / "hrf14-fig6.litmus", "hrf-direct")
    assert "outcomes" not in r.__dict__ and "states" not in r.__dict__
    assert r.condition_holds is True and r.observation == ("Always", 9, 0)  # the verdict needs neither
    states = r.states
    assert len(states) == 1 and states[0][0] is r.outcomes[0] and states[0][1:3] == (9, True)  # Always 9/9
    again = hrf.check(CORPUS / "hrf" / "hrf14-fig6.litmus", "hrf-direct")
    assert again.outcomes == r.outcomes and again.states[0][0] is again.outcomes[0]
    pointer = hrf.check(MP_POINTER, "c11")
    back = pickle.loads(pickle.dumps(pointer))
    assert "outcomes" not in back.__dict__ and "_packed" in back.__dict__  # nothing built on either side yet
    assert sorted(back.outcomes, key=str) == [{"1:r0": "x", "1:r1": 1}, {"1:r0": "y", "1:r1": -1}]  # (test_arrays)
    assert back.states[0][0] is back.outcomes[0] and back.to_herd() == pointer.to_herd()


def test_a_result_counts_its_outcomes_without_building_them():
    # A bulk row counts the outcomes: the count comes with the core's reply,
    # the outcomes stay the core's text (fig6: one outcome, above; the
    # pointer test: two), here and where a pickled result arrives.
    r = hrf.check(CORPUS / "hrf" / "hrf14-fig6.litmus", "hrf-direct")
    assert r.n_outcomes == 1 and "outcomes" not in r.__dict__ and isinstance(r._rows[2], str)
    back = pickle.loads(pickle.dumps(hrf.check(MP_POINTER, "c11")))
    assert back.n_outcomes == 2 and "outcomes" not in back.__dict__
    mine = hrf.check(MP_POINTER, "c11")
    mine.outcomes = [{"1:r0": "x", "1:r1": 1}]  # set before any was read: these are counted
    assert mine.n_outcomes == 1
    # and the count is the outcomes' own, in one process and from workers
    tests = hrf.generate(count=80, seed=2, max_edges=5, max_threads=3)
    for processes in (False, True):
        rs = list(hrf.check_many(tests, MODELS, workers=2, processes=processes, limits=hrf.Limits(witnesses=False)))
        counts = [r.n_outcomes for r in rs]
        assert counts == [len(r.outcomes) for r in rs] and max(counts) > 1


def test_workers_that_take_several_spans_and_leave_give_the_same_results(monkeypatch, tmp_path):
    # A worker takes span after span until it has checked WORKER_TESTS
    # tests, then a fresh one takes its place: each test's results arrive
    # once, in order, equal to a run in one process.
    pids = tmp_path / "pids"
    real = hrf.many._fork_worker

    def counted(*a, **k):
        import os

        with open(pids, "a") as f:
            f.write(f"{os.getpid()}\n")
        real(*a, **k)

    monkeypatch.setattr(hrf.many, "WORKER_TESTS", 15)
    monkeypatch.setattr(hrf.many, "_fork_worker", counted)
    tests = hrf.generate(count=120, seed=4, max_edges=4, max_threads=3)
    forked = list(hrf.check_many(tests, MODELS, workers=2, processes=True, limits=hrf.Limits(witnesses=False)))
    alone = list(hrf.check_many(tests, MODELS, workers=1, processes=False, limits=hrf.Limits(witnesses=False)))
    assert [_fields(r) for r in forked] == [_fields(r) for r in alone]
    # 120 tests in spans of 8 (2 workers x 8 spans each); a worker leaves
    # after 15 or more tests (two spans): at least 120 / 16 workers
    assert len(set(pids.read_text().split())) >= 120 // 16


def _bulk(paths, workers, store_path=None, herd=None):
    out = io.StringIO()
    store = Store(store_path) if store_path else None
    try:
        summary = bulk.run(paths, MODELS, out=out, workers=workers, store=store, herd_logs=herd)
    finally:
        if store is not None:
            store.close()
    return summary, [json.loads(line) for line in out.getvalue().splitlines()]


def _without_time(rows):
    return [{k: v for k, v in r.items() if k != "time"} for r in rows]


def test_bulk_rows_made_in_workers_are_a_single_process_run_s(tmp_path):
    # With worker processes, rows, summary, herd logs and store entries are
    # made in the workers; the run's process writes them. Same as one process.
    tests = hrf.generate(count=150, seed=9, max_edges=4, max_threads=3)
    paths = write_tests(tests, str(tmp_path / "t"))
    paths.append(str(tmp_path / "broken.litmus"))
    (tmp_path / "broken.litmus").write_text("C broken\n{ x = 0; }\nP0 (int* x) { *x = ; }\nexists (x=1)\n")
    runs = {}
    for w in (1, 2):
        herd = {m: io.StringIO() for m in MODELS}
        summary, rows = _bulk(paths, w, tmp_path / f"s{w}.db", herd)
        con = sqlite3.connect(tmp_path / f"s{w}.db")
        stored = con.execute(
            "SELECT model, test_id, verdict, condition_holds, racy, flags, outcomes, consistent, candidates, error "
            "FROM results JOIN runs USING(run) ORDER BY model, test_id"
        ).fetchall()
        indexed = con.execute("SELECT path, test_id FROM files ORDER BY path").fetchall()
        named = con.execute("SELECT test_id, name, size FROM tests ORDER BY test_id").fetchall()
        con.close()
        logs = {m: [ln for ln in h.getvalue().splitlines() if not ln.startswith("Time ")] for m, h in herd.items()}
        counts = {m: {k: v for k, v in c.items() if k != "time"} for m, c in summary.by_model.items()}
        runs[w] = (_without_time(rows), counts, summary.done, stored, indexed, named, logs)
    assert runs[1] == runs[2]
    rows = runs[2][0]
    assert [r["test"] for r in rows] == [p for p in paths for _ in MODELS]  # in order, test by test
    assert rows[-1]["verdict"] == "error" and rows[0]["verdict"] in ("Ok", "No")
    # a row per (test, model), a test under two names once; every file indexed
    assert len(runs[2][3]) == 2 * len(runs[2][5]) and len(runs[2][4]) == len(paths)


def test_bulk_csv_rows_made_in_workers(tmp_path):
    tests = hrf.generate(count=80, seed=2, max_edges=4, max_threads=3)
    paths = write_tests(tests, str(tmp_path / "t"))
    texts = []
    for w in (1, 2):
        out = io.StringIO(newline="")
        bulk.run(paths, MODELS, out=out, fmt="csv", workers=w)
        texts.append(
            [",".join(c for i, c in enumerate(line.split(",")) if i != 10) for line in out.getvalue().splitlines()]
        )
    assert texts[0] == texts[1] and texts[0][0].startswith("test,model,verdict")
    assert len(texts[0]) == 1 + 2 * len(paths)


def test_a_run_in_threads_freezes_what_was_there_and_gives_it_back():
    # The objects there before the run are left alone by the collector
    # while it runs (hrf.many._fewer_collections) and given back after it,
    # whether the run is read to its end or closed early.
    tests = [hrf.parse(p) for p in sorted((CORPUS / "hrf").glob("*.litmus"))[:6]]
    assert gc.get_freeze_count() == 0
    run = hrf.check_many(tests, ["sc"], workers=1, processes=False)
    first = next(run)
    assert gc.get_freeze_count() > 0 and first.error is None
    run.close()
    assert gc.get_freeze_count() == 0
    full = list(hrf.check_many(tests, ["sc"], workers=1, processes=False))
    assert gc.get_freeze_count() == 0 and len(full) == len(tests)


def test_spans_shrink_with_the_tests_left_and_cover_each_test_once(monkeypatch, tmp_path):
    # Guided self-scheduling (hrf.many.in_processes): spans of an eighth of
    # a worker's share of the tests left, down to MIN_SPAN, handed out in
    # order; the workers end together rather than wait on long last spans.
    log = tmp_path / "spans"
    real = hrf.many._fork_worker

    class Logged:
        def __init__(self, conn):
            self.conn = conn

        def recv(self):
            span = self.conn.recv()
            if span is not None:
                with open(log, "a") as f:
                    f.write(f"{span[0]} {span[1]}\n")
            return span

        def __getattr__(self, name):
            return getattr(self.conn, name)

    monkeypatch.setattr(hrf.many, "_fork_worker", lambda conn, *a, **k: real(Logged(conn), *a, **k))
    tests = hrf.generate(count=600, seed=4, max_edges=4, max_threads=3)
    forked = list(hrf.check_many(tests, MODELS, workers=2, processes=True, limits=hrf.Limits(witnesses=False)))
    assert len(forked) == 2 * len(tests)
    spans = sorted(tuple(map(int, line.split())) for line in log.read_text().splitlines())
    # each test in one span, the spans in order without a gap
    assert spans[0][0] == 0 and spans[-1][1] == len(tests)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))
    sizes = [e - s for s, e in spans]
    # 600 tests, 2 workers: 38 first (600 / 16, rounded up), then shrinking to 16 (the last may be shorter)
    assert sizes[0] == 38 and sizes == sorted(sizes, reverse=True)
    assert sizes[-2] == hrf.many.MIN_SPAN and sizes[-1] <= hrf.many.MIN_SPAN
