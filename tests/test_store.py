"""The results store (hrf.store): identities, rows once per (test, run),
resuming after an interrupt, runs list / show / diff, export."""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import hrf
from hrf.bulk import run as bulk_run
from hrf.cli import main
from hrf.dsl import Model
from hrf.errors import HrfWarning
from hrf.generate import write_tests
from hrf.litmus.printer import litmus_identity
from hrf.models.common import atomicity_violation, sc_order
from hrf.records import export, model_identity
from hrf.store import Store, StoreError

FIG6 = "litmus/hrf/hrf14-fig6.litmus"


def write_family(folder, count, seed=3):
    tests = hrf.generate(count=count, seed=seed, max_edges=5)
    assert len(write_tests(tests, str(folder))) == count
    return len({litmus_identity(t)[0] for t in tests})


def test_one_test_under_two_names_is_one_test():
    t = hrf.parse(FIG6)
    text = hrf.to_litmus(t)
    renamed = hrf.parse(text.replace(t.name, "another_name", 1))
    head, rest = text.split("\n", 1)
    spaced = hrf.parse(head + "\n(* a comment *)\n" + rest.replace(";", " ;"))
    assert litmus_identity(renamed) == litmus_identity(t) == litmus_identity(spaced)
    other = hrf.parse("litmus/hrf/hrf14-fig7.litmus")
    assert litmus_identity(other)[0] != litmus_identity(t)[0]


def test_a_test_of_a_dialect_the_printer_does_not_write_has_an_identity():
    """Dat3M's PTX: renamed, respaced or commented, one test; a cache
    operator, a proxy or a vector's width apart, two (the store must
    never take one for the other); `hrf bulk --db` keeps them."""
    text = (Path("litmus") / "ptx7" / "MP+volatile+membar.gl.litmus").read_text()
    t = hrf.parse(text)
    renamed = hrf.parse(text.replace("PTX MP+volatile+membar.gl", "PTX another", 1))
    spaced = hrf.parse(text.replace(" ;", "  ;").replace("{\n", "{\n// a comment\n", 1))
    assert litmus_identity(renamed) == litmus_identity(t) == litmus_identity(spaced)
    for a, b in (("st.weak x, 1", "st.weak.global.cg x, 1"), ("ld.volatile r0, y", "ld.relaxed.sys r0, y")):
        assert litmus_identity(hrf.parse(text.replace(a, b)))[0] != litmus_identity(t)[0], b
    v2 = (Path("litmus") / "ptx7" / "MP+v2-release.litmus").read_text()
    assert (
        litmus_identity(hrf.parse(v2))[0]
        != litmus_identity(hrf.parse(v2.replace("release.gpu.v2", "relaxed.gpu.v2")))[0]
    )


def test_bulk_db_keeps_ptx_and_gpu15_tests(tmp_path):
    db = tmp_path / "runs.sqlite"
    assert main(["bulk", "--db", str(db), "-m", "ptx-7.5", "litmus/ptx7", "litmus/gpu15"]) in (0, 1)
    with sqlite3.connect(db) as c:
        names = {n for (n,) in c.execute("select test from results_view where error is null")}
    assert {"MP+v2-release", "SpinMP", "MP+membar.gl"} <= names


def test_one_model_under_two_names_is_one_model():
    def sc(name, atomicity=True):
        m = Model(name)
        m.acyclic(sc_order, "sc")
        if atomicity:
            m.empty(atomicity_violation, "atomicity")
        return m

    assert model_identity(sc("a")) == model_identity(sc("b"))
    assert model_identity(sc("a")) != model_identity(sc("a", atomicity=False))


def test_rows_once_and_rerun_skips(tmp_path):
    distinct = write_family(tmp_path / "gen", 150)
    db = tmp_path / "runs.sqlite"
    with Store(db) as st:
        s1 = bulk_run([str(p) for p in sorted((tmp_path / "gen").iterdir())], ["sc", "hrf-direct"], store=st)
        assert s1.done == 300 and s1.skipped == 0
        s2 = bulk_run([str(p) for p in sorted((tmp_path / "gen").iterdir())], ["sc", "hrf-direct"], store=st)
        assert s2.done == 0 and s2.skipped == 150
        runs = st.runs()
        assert [r.model for r, _ in runs] == ["sc", "hrf-direct"]
        # one row per distinct test (the family may hold one test twice)
        assert [c["tests"] for _, c in runs] == [distinct, distinct]
    # A changed file is read again and checked under its new identity.
    f = sorted((tmp_path / "gen").iterdir())[0]
    f.write_text(f.read_text().replace("exists", "~exists", 1))
    with Store(db) as st:
        s3 = bulk_run([str(p) for p in sorted((tmp_path / "gen").iterdir())], ["sc"], store=st)
        assert s3.done == 1 and s3.skipped == 149


def test_a_test_a_model_refuses_is_one_test_and_not_checked_again(tmp_path):
    # hrf-direct refuses hrfr15-fig10-rlx (relaxed atomics); sc checks it.
    # Its refusal row and its sc row are one test, and a rerun skips both
    # (it once stored the refusal under the file's bytes and rechecked it).
    paths = hrf.bulk.expand(["litmus/hrf"])
    with Store(tmp_path / "r.sqlite") as st:
        first = bulk_run(paths, ["sc", "hrf-direct"], store=st)
        again = bulk_run(paths, ["sc", "hrf-direct"], store=st)
        ids = {tid for (tid,) in st.db.execute("SELECT test_id FROM tests")}
        refused = st.db.execute("SELECT COUNT(*) FROM results WHERE verdict='error'").fetchone()[0]
    assert first.by_model["hrf-direct"]["error"] == 1 == refused
    assert (again.done, again.skipped) == (0, len(paths))
    assert len(ids) == len(paths) and not any(i.startswith("raw:") for i in ids)


def test_diff_of_direct_and_indirect_names_fig6(tmp_path):
    # [HRF14] Fig. 6: indirect synchronisation through a third work-item is a
    # heterogeneous race under HRF-direct and race-free under HRF-indirect.
    db = tmp_path / "r.sqlite"
    with Store(db) as st:
        bulk_run(hrf.bulk.expand(["litmus/hrf"]), ["hrf-direct", "hrf-indirect"], store=st)
        (a, _), (b, _) = st.runs()
        d = st.diff(a, b)
    names = [os.path.basename(x["path"]) for x in d["differ"]]
    assert "hrf14-fig6.litmus" in names
    x = d["differ"][names.index("hrf14-fig6.litmus")]
    assert x["a"]["racy"] is True and x["b"]["racy"] is False and "racy" in x["differs_in"]
    sizes = [x["size"] for x in d["differ"]]
    assert sizes == sorted(sizes)  # smallest first
    assert d["only_a"] == d["only_b"] == 0


def test_export_csv_jsonl_and_pandas_load(tmp_path):
    db = tmp_path / "r.sqlite"
    with Store(db) as st:
        bulk_run(hrf.bulk.expand(["litmus/hrf"]), ["sc"], store=st)
        ((run, counts),) = st.runs()
        n = export(st.rows(run), str(tmp_path / "rows.csv"))
        export(st.rows(run), str(tmp_path / "rows.jsonl"))
    assert n == counts["tests"] == 13
    lines = (tmp_path / "rows.csv").read_text().splitlines()
    assert lines[0].startswith("run,model,version,test") and len(lines) == 14
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert {r["verdict"] for r in rows} <= {"Ok", "No"}
    # the documented view, as pandas would read it
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM results_view").fetchone()[0] == 13
    con.close()


def test_export_parquet(tmp_path):
    import pyarrow.parquet as pa  # (a test dependency: the `test` extra)

    db = tmp_path / "r.sqlite"
    with Store(db) as st:
        bulk_run(hrf.bulk.expand(["litmus/hrf"]), ["sc"], store=st)
        ((run, _),) = st.runs()
        export(st.rows(run), str(tmp_path / "rows.parquet"))
    assert pa.read_table(tmp_path / "rows.parquet").num_rows == 13


def test_not_a_store(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all, certainly not sqlite" * 40)
    with pytest.raises(StoreError, match="junk.sqlite"):
        Store(junk)
    other = tmp_path / "other.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t(x)")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="not an hrf results store"):
        Store(other)
    with Store(tmp_path / "ok.sqlite") as st, pytest.raises(StoreError, match="no run 7"):
        st.get_run(7)


# A store written by hrf's schema 1 (its results table in key order,
# WITHOUT ROWID): `hrf bulk litmus/hrf -m sc -m hrf-direct --db
# schema1.sqlite` at commit fbe3e8a.
SCHEMA1 = Path(__file__).parent / "data" / "store" / "schema1.sqlite"
TABLES = ("runs", "tests", "files", "results", "invocations", "meta")


def _contents(db) -> tuple[dict, str]:
    """Every table's rows (sorted) and the results table's definition."""
    con = sqlite3.connect(db)
    try:
        rows = {t: sorted(con.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in TABLES}
        sql = con.execute("SELECT sql FROM sqlite_master WHERE name='results'").fetchone()[0]
    finally:
        con.close()
    return rows, sql


def _schema1_copy(tmp_path, *statements):
    """A copy of the schema-1 store, `statements` run on it."""
    db = tmp_path / "old.sqlite"
    shutil.copy(SCHEMA1, db)
    con = sqlite3.connect(db)
    for statement in statements:
        con.execute(statement)
    con.commit()
    con.close()
    return db


def test_a_schema_1_store_is_upgraded_with_every_row(tmp_path):
    db = _schema1_copy(tmp_path)
    before, sql = _contents(db)
    assert "WITHOUT ROWID" in sql and ("schema", "1") in before["meta"] and len(before["results"]) == 26
    with pytest.warns(HrfWarning, match="old.sqlite: the store was upgraded from schema 1 to 2, every row kept"):
        st = Store(db)
    with st:
        (a, ca), (b, cb) = st.runs()
        assert (a.model, b.model, ca["tests"], cb["tests"]) == ("sc", "hrf-direct", 13, 13)
        # the counts of a run, as a plain query over its rows gives them
        q = "SELECT run, COUNT(*), SUM(verdict='Ok'), SUM(verdict='No'), SUM(verdict='error'), SUM(racy=1) FROM results"
        direct = {row[0]: row[1:] for row in st.db.execute(q + " GROUP BY run")}
        keys = ("tests", "Ok", "No", "error", "racy")
        assert {u.run: tuple(c[k] for k in keys) for u, c in st.runs()} == direct
        # [HRF14] Fig. 6 as the old rows hold it: racy under HRF-direct, not under SC
        fig6 = [x for x in st.diff(a, b)["differ"] if x["path"].endswith("hrf14-fig6.litmus")]
        assert [(x["a"]["racy"], x["b"]["racy"]) for x in fig6] == [(False, True)]
        # the key is still one row per (run, test)
        assert st.db.execute("INSERT OR IGNORE INTO results SELECT * FROM results").rowcount == 0
    after, sql = _contents(db)
    assert "WITHOUT ROWID" not in sql and "UNIQUE(run, test_id)" in sql
    assert after.pop("meta") == [("schema", "2")]
    before.pop("meta")
    assert after == before
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM results_view").fetchone()[0] == 26
    con.close()


def test_the_command_line_says_a_store_was_upgraded_once(tmp_path):
    db = _schema1_copy(tmp_path)
    first = _cli("runs", "list", "--db", str(db), cwd=tmp_path)
    again = _cli("runs", "list", "--db", str(db), cwd=tmp_path)
    assert first.returncode == again.returncode == 0 and first.stdout == again.stdout
    assert "hrf: note: " in first.stderr and "upgraded from schema 1 to 2" in first.stderr
    assert again.stderr == ""


def test_a_schema_1_store_opened_by_several_at_once_is_upgraded_once(tmp_path, monkeypatch):
    # each opener asks the version again under the write lock: the later
    # ones find schema 2 and leave it be
    import threading

    upgrades: list = []
    upgrade = Store._upgrade
    monkeypatch.setattr(Store, "_upgrade", lambda self: (upgrades.append(1), upgrade(self)))
    db = _schema1_copy(tmp_path)
    before, _ = _contents(db)
    errors: list = []

    def open_it():
        try:
            Store(db).close()
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    with pytest.warns(HrfWarning, match="upgraded from schema 1 to 2") as said:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    after, sql = _contents(db)
    assert errors == [] and len(upgrades) == 1 == len(said) and "WITHOUT ROWID" not in sql
    assert after.pop("meta") == [("schema", "2")]
    before.pop("meta")
    assert after == before


def test_an_upgrade_that_fails_leaves_the_store_as_it_was(tmp_path):
    # the name the upgrade moves the old table to, taken
    db = _schema1_copy(tmp_path, "CREATE TABLE results_schema1(x)")
    before = _contents(db)
    with pytest.raises(StoreError, match="old.sqlite: .*results_schema1"):
        Store(db)
    assert _contents(db) == before


def test_a_schema_no_hrf_made_is_refused(tmp_path):
    db = _schema1_copy(tmp_path, "UPDATE meta SET value='0' WHERE key='schema'")
    with pytest.raises(StoreError, match="schema 0, which no hrf made"):
        Store(db)


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "hrf", *args], cwd=cwd, capture_output=True, text=True)


def test_cli_runs(tmp_path):
    r = _cli(
        "bulk",
        "litmus/hrf",
        "-m",
        "hrf-direct",
        "-m",
        "hrf-indirect",
        "--db",
        "s.sqlite",
        "--no-progress",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert "store s.sqlite" in r.stdout and r.stdout.count("\n") >= 4
    r = _cli("runs", "list", "--db", "s.sqlite", cwd=tmp_path)
    assert r.returncode == 0 and "hrf-direct" in r.stdout and "hrf-indirect" in r.stdout
    r = _cli("runs", "diff", "1", "2", "--db", "s.sqlite", cwd=tmp_path)
    assert r.returncode == 1 and "hrf14-fig6.litmus" in r.stdout  # some tests differ: exit 1
    r = _cli("runs", "show", "1", "--db", "s.sqlite", "-o", "one.csv", cwd=tmp_path)
    assert r.returncode == 0 and (tmp_path / "one.csv").exists()
    r = _cli("runs", "diff", "1", "--db", "s.sqlite", cwd=tmp_path)
    assert r.returncode == 2 and "takes 2 run number(s)" in r.stderr
    r = _cli("runs", "list", "--db", "none.sqlite", cwd=tmp_path)
    assert r.returncode == 1 and "no results store" in r.stderr


def _first_rows(p: subprocess.Popen, db, what: str) -> int:
    """Wait (up to a minute) until the running bulk run `p` has committed
    rows to `db`; their number. The run must still be running then."""
    deadline = time.time() + 60
    rows = 0
    while time.time() < deadline and p.poll() is None:
        time.sleep(0.2)
        try:
            con = sqlite3.connect(db)
            rows = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
            con.close()
        except sqlite3.Error:
            continue
        if rows > 0:
            break
    if p.poll() is not None:
        pytest.fail(f"the run finished before it could be {what}: make the family larger")
    return rows


def test_interrupted_run_resumes(tmp_path):
    # A real Ctrl-C (SIGINT) in the middle of a bulk run into a store, then
    # the same command again: the second run checks only what the first did
    # not store, and the store ends with each (test, run) once.
    files = 4000  # (rows are committed every second: a run long enough to be interrupted)
    distinct = write_family(tmp_path / "gen", files, seed=5)
    cmd = [
        sys.executable,
        "-m",
        "hrf",
        "bulk",
        "gen",
        "-m",
        "sc",
        "-m",
        "hrf-indirect",
        "--db",
        "s.sqlite",
        "--no-progress",
        "--workers",
        "1",
    ]
    p = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    db = tmp_path / "s.sqlite"
    _first_rows(p, db, "interrupted")
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "interrupted" in out and "resume" in out
    con = sqlite3.connect(db)
    first = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    con.close()
    assert 0 < first < 2 * distinct
    q = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    assert q.returncode == 0, q.stderr
    con = sqlite3.connect(db)
    per_run = dict(con.execute("SELECT run, COUNT(*) FROM results GROUP BY run").fetchall())
    inv = con.execute("SELECT status, checked, skipped FROM invocations ORDER BY id").fetchall()
    con.close()
    assert per_run == {1: distinct, 2: distinct}
    assert [s for s, _, _ in inv] == ["interrupted", "done"]
    # the rerun skipped the tests the first run had finished under both models
    assert inv[1][2] > 0 and inv[1][1] < 2 * files


def test_a_store_its_writer_cannot_write_fails_the_run_by_its_error(tmp_path, monkeypatch):
    # The rows are written by a process of their own; its StoreError (here
    # a full disk, made by hand: the forked writer inherits the patch) is
    # the run's, raised once, not hidden behind "the writer ended".
    write_family(tmp_path / "gen", 300, seed=4)

    def full(self, tests, rows):
        raise StoreError(f"{self.path}: the results store cannot be used (database or disk is full)")

    monkeypatch.setattr(Store, "add_rows", full)
    paths = sorted(str(p) for p in (tmp_path / "gen").iterdir())
    db = Store(tmp_path / "s.sqlite")
    with pytest.raises(StoreError, match="disk is full") as e:
        bulk_run(paths, ["sc"], workers=2, store=db)
    assert "ended unexpectedly" not in str(e.value)
    db.close()


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (their /proc stat's fourth field)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:  # ended meanwhile
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
                out.append(int(entry))
    return out


@pytest.mark.skipif(sys.platform != "linux", reason="reads the processes in Linux's /proc")
def test_a_killed_run_leaves_its_rows_and_no_process_behind(tmp_path):
    # SIGKILL of `hrf bulk --db` (no Ctrl-C to handle): its workers and the
    # process writing the store see it gone and end; the writer commits the
    # rows it was given first, so that a rerun resumes from them.
    distinct = write_family(tmp_path / "gen", 8000, seed=6)  # (rows are committed every second)
    cmd = [sys.executable, "-m", "hrf", "bulk", "gen", "-m", "sc", "-m", "hrf-indirect", "--db", "s.sqlite"]
    cmd += ["--no-progress", "--workers", "2"]
    p = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    db = tmp_path / "s.sqlite"
    rows = _first_rows(p, db, "killed")
    children = _children(p.pid)
    assert len(children) >= 2  # the writer and the workers
    p.kill()
    p.wait(timeout=30)
    deadline = time.time() + 30
    while time.time() < deadline and any(os.path.exists(f"/proc/{c}") and _alive(c) for c in children):
        time.sleep(0.1)
    assert not any(os.path.exists(f"/proc/{c}") and _alive(c) for c in children), "a process outlived the run"
    con = sqlite3.connect(db)
    kept = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    con.close()
    assert kept >= rows
    q = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    assert q.returncode == 0, q.stderr
    con = sqlite3.connect(db)
    total = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    con.close()
    assert total == 2 * distinct


def _alive(pid: int) -> bool:
    # a zombie (ended, not yet reaped by its adopter) counts as gone
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_the_writer_runs_where_there_is_no_fork(tmp_path, monkeypatch):
    # Where processes are spawned, not forked (Windows), the store's writer
    # is a fresh interpreter given the store's path: the same rows.
    import multiprocessing

    write_family(tmp_path / "gen", 40, seed=7)
    paths = sorted(str(p) for p in (tmp_path / "gen").iterdir())
    want = Store(tmp_path / "fork.sqlite")
    bulk_run(paths, ["sc", "hrf-indirect"], workers=1, store=want)
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    got = Store(tmp_path / "spawn.sqlite")
    summary = bulk_run(paths, ["sc", "hrf-indirect"], workers=1, store=got)
    assert summary.done == 80 and summary.writer_seconds is not None
    rows = [
        sorted((r["model"], r["test"], r["verdict"], r["outcomes"]) for run, _ in s.runs() for r in s.rows(run))
        for s in (want, got)
    ]
    assert rows[0] == rows[1] and len(rows[0]) == 80
    want.close()
    got.close()


def test_a_message_to_the_writer_is_not_cut_by_ctrl_c():
    # Ctrl-C during a message to the store's writer (a write to a full pipe
    # can take a while) waits for the message's end: the writer never reads
    # half a message. Here the signal comes inside the block and is raised
    # only when the block is done.
    from hrf.bulk_session import _whole

    done = False
    with pytest.raises(KeyboardInterrupt), _whole():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        done = True
    assert done
