"""The results store: bulk checks kept in SQLite, resumed, compared (what
a check becomes there, its identities and rows, is `records.py`).

One row per (test, run), where a run is one model (by the hash of its IR,
so one model under two names is one model) under one hrf version and one
set of limits: the same question asked twice is answered once. A test is
known by its identity (`litmus_identity`: a hash of the normalised test, so
one test under two names is one test); a file already indexed and not
changed since (same size and modification time) is not parsed again to
find it. A rerun of `hrf bulk --db` skips every (test, run) the store
holds, so an interrupted run resumes where it stopped.

Tables (`runs.sqlite` in pandas: `pd.read_sql("select * from results_view",
sqlite3.connect("runs.sqlite"))`):
- runs(run, model, model_id, version, limits_id, limits, created)
- tests(test_id, name, path, size): size is the length of the normalised
  test, so `runs diff` lists the smallest differing tests first
- results(run, test_id, verdict, condition_holds, racy, flags, outcomes,
  n_outcomes, consistent, candidates, complete, limit_which, time, error,
  checked_at)
- files(path, size, mtime_ns, test_id): the index of files read
- invocations(id, started, finished, status, command, checked, skipped)
- results_view: results with the run's model, version and limits and the
  test's name and size.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .errors import HrfError, HrfWarning
from .records import COLUMNS, limits_identity, model_identity, now, result_row, test_entries

SCHEMA_VERSION = 2

# The results table keeps its rows in the order they were written (a rowid
# table) and its key (run, test_id) in an index of its own: a test's
# identity is a hash, so rows kept in key order (schema 1, WITHOUT ROWID)
# went to random places, and each commit rewrote the pages of rows it
# touched (about 0.5 KB a row, chiefly the outcomes) where it now rewrites
# those of the index (about 50 bytes an entry). Schema 1 is upgraded on
# opening (`Store._upgrade`).

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
    run INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    model_id TEXT NOT NULL,
    version TEXT NOT NULL,
    limits_id TEXT NOT NULL,
    limits TEXT NOT NULL,
    created TEXT NOT NULL,
    UNIQUE(model_id, version, limits_id)
);
CREATE TABLE IF NOT EXISTS tests(
    test_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    path TEXT,
    size INTEGER
);
CREATE TABLE IF NOT EXISTS results(
    run INTEGER NOT NULL REFERENCES runs(run),
    test_id TEXT NOT NULL REFERENCES tests(test_id),
    verdict TEXT NOT NULL,
    condition_holds INTEGER,
    racy INTEGER,
    flags TEXT NOT NULL,
    outcomes TEXT NOT NULL,
    n_outcomes INTEGER NOT NULL,
    consistent INTEGER NOT NULL,
    candidates INTEGER NOT NULL,
    complete INTEGER NOT NULL,
    limit_which TEXT,
    time REAL NOT NULL,
    error TEXT,
    checked_at TEXT NOT NULL,
    UNIQUE(run, test_id)
);
CREATE TABLE IF NOT EXISTS files(
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    test_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS invocations(
    id INTEGER PRIMARY KEY,
    started TEXT NOT NULL,
    finished TEXT,
    status TEXT NOT NULL,
    command TEXT,
    runs TEXT NOT NULL,
    checked INTEGER NOT NULL DEFAULT 0,
    skipped INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS hardware(
    id INTEGER PRIMARY KEY,
    test TEXT NOT NULL,
    path TEXT,
    device TEXT NOT NULL,
    arch TEXT NOT NULL,
    driver TEXT NOT NULL,
    cuda TEXT NOT NULL,
    incantations TEXT NOT NULL,
    instances INTEGER NOT NULL,
    launches INTEGER NOT NULL,
    states TEXT NOT NULL,
    positive INTEGER NOT NULL,
    negative INTEGER NOT NULL,
    observation TEXT NOT NULL,
    timeouts INTEGER NOT NULL,
    model TEXT,
    forbidden INTEGER,
    codecheck TEXT NOT NULL,
    seconds REAL NOT NULL,
    run_at TEXT NOT NULL
);
CREATE VIEW IF NOT EXISTS results_view AS
    SELECT r.run, u.model, u.version, u.limits, t.name AS test, t.path, t.size, r.test_id, r.verdict,
           r.condition_holds, r.racy, r.flags, r.outcomes, r.n_outcomes, r.consistent, r.candidates,
           r.complete, r.limit_which, r.time, r.error, r.checked_at
    FROM results r JOIN runs u ON u.run = r.run JOIN tests t ON t.test_id = r.test_id;
"""


class StoreError(HrfError):
    """A results store that cannot be used (not hrf's, a newer schema, a
    run that does not exist)."""


def _bool(x: int | None) -> bool | None:
    return None if x is None else bool(x)


@dataclass
class Run:
    run: int
    model: str
    model_id: str
    version: str
    limits_id: str
    limits: str
    created: str


# SQLite's application_id of an hrf results store ("hrf1" as a 32-bit number):
# a file without it, or with another, is not hrf's to change.
APPLICATION_ID = int.from_bytes(b"hrf1", "big")

# The tables an hrf store of schema 1 made before the application id was set
# holds: such a store is recognised by them and its `schema` entry.
_TABLES = {"meta", "runs", "tests", "results", "files", "invocations"}

# How long a writer waits for another hrf process that holds the store
# (concurrent `hrf bulk --db` runs queue on it; each write is short).
BUSY_SECONDS = 600.0


def _guarded(method):
    """A Store method whose SQLite failures (a damaged file, a store held
    past BUSY_SECONDS) are StoreErrors naming the file."""

    @functools.wraps(method)
    def guarded(self, *args, **kw):
        try:
            return method(self, *args, **kw)
        except sqlite3.OperationalError as e:
            if "locked" in str(e) or "busy" in str(e):
                raise StoreError(
                    f"{self.path}: the store is held by another process past {BUSY_SECONDS:.0f} s ({e})"
                ) from None
            raise StoreError(f"{self.path}: the results store cannot be used ({e})") from None
        except sqlite3.Error as e:
            raise StoreError(f"{self.path}: the results store is damaged ({e})") from None
        except (ValueError, OverflowError, json.JSONDecodeError) as e:
            raise StoreError(f"{self.path}: the results store holds a value hrf cannot read ({e})") from None

    return guarded


class Store:
    """A results store in one SQLite file (created when missing). A file
    that is not an hrf store (another program's SQLite file, anything
    else) is refused unchanged."""

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        self._indexed: set[str] = set()  # files (or tests) entered by this process
        self._pending: list[tuple] = []  # rows not yet written (`commit` writes them in one transaction)
        self._tests: list[tuple] = []  # test and file entries not yet written
        if os.path.exists(self.path) and not os.path.isfile(self.path):
            raise StoreError(f"{self.path}: not a results store (not a regular file)")
        try:
            # autocommit off by hand: a transaction is opened only to write, and closed at once
            # (a bulk run's rows are written by a process of its own, with its own connection: BulkSession)
            self.db = sqlite3.connect(self.path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as e:
            raise StoreError(f"{self.path}: cannot open the results store ({e})") from None
        try:
            self._open()
        except BaseException:
            self.db.close()
            raise

    @_guarded
    def _open(self) -> None:
        # Look before writing anything (journal mode, tables, ids): a file
        # that is not hrf's is left as it was.
        app = self.db.execute("PRAGMA application_id").fetchone()[0]
        have = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if app != APPLICATION_ID:
            legacy = app == 0 and have >= _TABLES and self._schema() is not None
            if have and not legacy:
                raise StoreError(f"{self.path}: an SQLite file, but not an hrf results store (left unchanged)")
        self._known_schema("meta" in have)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA cache_size=-65536")  # KiB: a bulk run's index pages stay at hand
        self.db.execute("PRAGMA foreign_keys=ON")
        with self._transaction():  # one transaction: an upgrade is whole or not at all
            # asked again under the write lock: another process may have upgraded it meanwhile
            version = self._known_schema("meta" in have)
            upgrade = version is not None and version < SCHEMA_VERSION
            self.db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            if upgrade:
                self._upgrade()  # (it makes the tables and the view too)
            else:
                self._create()
            self.db.execute("INSERT OR REPLACE INTO meta VALUES('schema', ?)", (str(SCHEMA_VERSION),))
        if upgrade:  # the file changed under the user: said (an earlier hrf refuses it now)
            warnings.warn(
                f"{self.path}: the store was upgraded from schema {version} to {SCHEMA_VERSION}, every row kept "
                f"(an hrf that knows only schema {version} refuses it now)",
                HrfWarning,
                stacklevel=4,  # (here, _guarded, Store(), the caller's line)
            )

    def _create(self) -> None:
        """The tables and the view that are missing."""
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                self.db.execute(statement)

    def _upgrade(self) -> None:
        """Schema 1 to 2, in the caller's transaction: the results table
        kept in key order moved aside, its rows copied into schema 2's."""
        self.db.execute("DROP VIEW IF EXISTS results_view")
        self.db.execute("ALTER TABLE results RENAME TO results_schema1")
        self._create()
        self.db.execute("INSERT INTO results SELECT * FROM results_schema1")
        self.db.execute("DROP TABLE results_schema1")

    def _known_schema(self, has_meta: bool) -> int | None:
        """The store's schema version (None: a new store), if this hrf can read it."""
        version = self._schema() if has_meta else None
        if version is not None and version > SCHEMA_VERSION:
            raise StoreError(f"{self.path}: store schema {version} is newer than this hrf's ({SCHEMA_VERSION})")
        if version is not None and version < 1:
            raise StoreError(f"{self.path}: the store names schema {version}, which no hrf made (damaged?)")
        return version

    def _schema(self) -> int | None:
        """The schema version the store's meta table names (None: none); a
        value that is not a whole number is a StoreError."""
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.OperationalError:
            return None  # a meta table of another shape: not hrf's
        if row is None:
            return None
        try:
            return int(row[0])
        except (TypeError, ValueError):
            raise StoreError(f"{self.path}: the store's schema version {row[0]!r} is not a number (damaged?)") from None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """A write transaction (BEGIN IMMEDIATE: it waits for another writer
        rather than failing half-way), committed on leaving."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def close(self) -> None:
        try:
            self.commit()
        finally:
            self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------ runs
    @_guarded
    def run_for(self, model, limits, version: str | None = None) -> Run:
        """The run of `model` under `limits` with this hrf (made if new)."""
        if version is None:
            from . import __version__ as version
        mid = model_identity(model)
        lid, ltext = limits_identity(limits)
        with self._transaction():
            self.db.execute(
                "INSERT OR IGNORE INTO runs(model, model_id, version, limits_id, limits, created) VALUES(?,?,?,?,?,?)",
                (model.name, mid, version, lid, ltext, now()),
            )
        row = self.db.execute(
            "SELECT * FROM runs WHERE model_id=? AND version=? AND limits_id=?", (mid, version, lid)
        ).fetchone()
        return Run(*row)

    @_guarded
    def runs(self) -> list[tuple[Run, dict]]:
        """Every run with its counts: tests, Ok, No, racy, incomplete, error,
        time (summed) and the last check's date."""
        keys = ["tests", "Ok", "No", "racy", "incomplete", "error", "time", "last"]
        # the results read once in the order they were written, grouped by
        # run (through the key's index, each row looked up: 2.7x the time)
        q = (
            "SELECT u.*, c.n, c.ok, c.no, c.racy, c.incomplete, c.error, c.time, c.last FROM runs u LEFT JOIN "
            "(SELECT run, COUNT(*) AS n, SUM(verdict='Ok') AS ok, SUM(verdict='No') AS no, SUM(racy=1) AS racy, "
            "SUM(verdict='incomplete') AS incomplete, SUM(verdict='error') AS error, SUM(time) AS time, "
            "MAX(checked_at) AS last FROM results NOT INDEXED GROUP BY run) c ON c.run = u.run ORDER BY u.run"
        )
        out = []
        for row in self.db.execute(q).fetchall():
            n = len(row) - len(keys)
            counts = {k: v if k == "last" else (v or 0) for k, v in zip(keys, row[n:], strict=True)}
            out.append((Run(*row[:n]), counts))
        return out

    @_guarded
    def get_run(self, run: int | str) -> Run:
        try:
            n = int(run)
        except (TypeError, ValueError):
            raise StoreError(f"{self.path}: a run is named by its number (hrf runs list), not {run!r}") from None
        if not 0 < n < 1 << 63:
            raise StoreError(f"{self.path}: no run {n} (runs are numbered from 1; hrf runs list shows them)")
        row = self.db.execute("SELECT * FROM runs WHERE run=?", (n,)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no run {n} (hrf runs list shows the runs)")
        return Run(*row)

    # ------------------------------------------------------------ resuming
    @_guarded
    def known_files(self, paths: Iterable[str]) -> dict[str, str]:
        """path -> test identity, for the files indexed and unchanged since."""
        out = {}
        paths = list(paths)
        for k in range(0, len(paths), 500):  # (a query a path cost a bulk run 6 us a check)
            some = paths[k : k + 500]
            rows = self.db.execute(
                f"SELECT path, size, mtime_ns, test_id FROM files WHERE path IN ({','.join('?' * len(some))})", some
            )
            for p, size, mtime_ns, test_id in rows:
                try:
                    st = os.stat(p)
                except OSError:
                    continue
                if (st.st_size, st.st_mtime_ns) == (size, mtime_ns):
                    out[p] = test_id
        return out

    @_guarded
    def done(self, run: Run, test_ids: Iterable[str]) -> set[str]:
        """The identities among `test_ids` that `run` holds a row for."""
        have = {r[0] for r in self.db.execute("SELECT test_id FROM results WHERE run=?", (run.run,))}
        return have.intersection(test_ids)

    # ------------------------------------------------------------ writing
    def add(self, run: Run, r, test_id: str, path: str | None = None) -> None:
        """Store result `r` of `run` (a row already there stays: once per key).
        Not committed: `commit` (bulk commits in batches)."""
        # The test's row and the file's index entry: once per file (per test
        # without a file) in this process, not once per model.
        if (path or test_id) not in self._indexed:
            self._indexed.add(path or test_id)
            self._tests += test_entries(r, test_id, path)
        self._pending.append(result_row(run.run, r, test_id))

    def add_rows(self, tests: list, rows: list) -> None:
        """Store rows made by `test_entries` and `result_row` elsewhere (a
        bulk run's workers). Not committed: `commit`."""
        self._tests += tests
        self._pending += rows

    def commit(self) -> None:
        """Write the rows `add` kept, in one short transaction: no write
        lock is held between commits, so concurrent runs on one store
        take turns rather than time out."""
        self.write(*self.take())

    def take(self) -> tuple[list, list]:
        """The entries kept and not yet written, `(tests, rows)`, for `write`
        (`commit`); kept no longer."""
        tests, self._tests = self._tests, []
        rows, self._pending = self._pending, []
        return tests, rows

    @_guarded
    def write(self, tests: list, rows: list) -> None:
        """Write entries taken by `take` in one transaction."""
        if not rows and not tests:
            return
        with self._transaction():
            by_statement: dict[str, list] = {}
            for statement, values in tests:
                by_statement.setdefault(statement, []).append(values)
            for statement, many in by_statement.items():
                self.db.executemany(statement, many)
            self.db.executemany("INSERT OR IGNORE INTO results VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)

    @_guarded
    def add_hardware(self, r) -> None:
        """Keep a run on a GPU (`hrf run --db`): the device, the
        incantations, the counts of each state."""
        d = r.device
        states = [{"outcome": st, "count": n} for st, n, _ in r.states]
        with self._transaction():
            self.db.execute(
                "INSERT INTO hardware(test, path, device, arch, driver, cuda, incantations, instances, launches, "
                "states, positive, negative, observation, timeouts, model, forbidden, codecheck, seconds, run_at) "
                "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    r.name,
                    r.path,
                    d.name,
                    d.arch,
                    d.driver,
                    d.cuda,
                    json.dumps(r.setting.to_json(), sort_keys=True),
                    r.counts.instances,
                    r.counts.launches,
                    json.dumps(states, separators=(",", ":")),
                    r.positive,
                    r.negative,
                    r.observation,
                    r.counts.timeouts,
                    r.model,
                    None if r.model is None else sum(n for _, n in r.forbidden),
                    r.codecheck,
                    round(r.counts.seconds, 6),
                    now(),
                ),
            )

    @_guarded
    def hardware_rows(self) -> list[dict]:
        """Every run on a GPU the store keeps, oldest first."""
        cur = self.db.execute("SELECT * FROM hardware ORDER BY id")
        names = [c[0] for c in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur]

    @_guarded
    def begin(self, command: str, runs: list[Run]) -> int:
        with self._transaction():
            cur = self.db.execute(
                "INSERT INTO invocations(started, status, command, runs) VALUES(?,?,?,?)",
                (now(), "running", command, json.dumps([u.run for u in runs])),
            )
        return int(cur.lastrowid or 0)

    @_guarded
    def end(self, inv: int, status: str, checked: int, skipped: int) -> None:
        self.commit()
        with self._transaction():
            self.db.execute(
                "UPDATE invocations SET finished=?, status=?, checked=?, skipped=? WHERE id=?",
                (now(), status, checked, skipped, inv),
            )

    # ------------------------------------------------------------ reading
    @_guarded
    def rows_list(self, run: Run) -> list[dict]:
        """The rows of `run`, read whole (a damaged store fails here, not half-way through writing them)."""
        return list(self.rows(run))

    def rows(self, run: Run) -> Iterator[dict]:
        cur = self.db.execute(
            f"SELECT {', '.join(COLUMNS)} FROM results_view WHERE run=? ORDER BY size, test", (run.run,)
        )
        for row in cur:
            yield dict(zip(COLUMNS, row, strict=True))

    @_guarded
    def diff(self, a: Run, b: Run) -> dict:
        """The tests both runs hold whose verdict, race, flags or outcome set
        differ (smallest first), and the counts of the rest."""
        q = (
            "SELECT t.name, t.path, t.size, x.test_id, x.verdict, y.verdict, x.racy, y.racy, x.flags, y.flags, "
            "x.outcomes, y.outcomes FROM results x JOIN results y ON x.test_id = y.test_id "
            "JOIN tests t ON t.test_id = x.test_id WHERE x.run=? AND y.run=? ORDER BY t.size, t.name"
        )
        differ, same = [], 0
        for name, path, size, tid, va, vb, ra, rb, fa, fb, oa, ob in self.db.execute(q, (a.run, b.run)):
            if (va, ra, fa, oa) == (vb, rb, fb, ob):
                same += 1
                continue
            pairs = (("verdict", va, vb), ("racy", ra, rb), ("flags", fa, fb), ("outcomes", oa, ob))
            what = [k for k, x, y in pairs if x != y]
            differ.append(
                {
                    "test": name,
                    "path": path,
                    "size": size,
                    "test_id": tid,
                    "differs_in": what,
                    "a": {"verdict": va, "racy": _bool(ra), "flags": json.loads(fa), "outcomes": json.loads(oa)},
                    "b": {"verdict": vb, "racy": _bool(rb), "flags": json.loads(fb), "outcomes": json.loads(ob)},
                }
            )
        only = {}
        for x, y, key in ((a, b, "only_a"), (b, a, "only_b")):
            only[key] = self.db.execute(
                "SELECT COUNT(*) FROM results WHERE run=? AND test_id NOT IN (SELECT test_id FROM results WHERE run=?)",
                (x.run, y.run),
            ).fetchone()[0]
        return {"same": same, "differ": differ, **only}
