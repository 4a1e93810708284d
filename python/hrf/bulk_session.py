"""A bulk run's side of the results store (`hrf bulk --db`): the session
that asks the store what is left to check, and the process that writes
the rows as they come (`hrf.store` holds the store itself)."""

from __future__ import annotations

import contextlib
import gc
import os
import time
from collections.abc import Iterator
from typing import Any, NoReturn

from .records import raw_identity, result_row, test_entries
from .store import Store, StoreError


class BulkSession:
    """One `hrf bulk --db` invocation: the runs of its models, the paths the
    store lacks a row of under some model (`todo`, checked in order), each
    result kept as it comes (`keep`, in check_many's order: test by test,
    models in order), committed every COMMIT_EVERY rows or every second,
    and the invocation recorded as done or interrupted (`close`).

    The rows are written by a process of their own (`_store_writer`, with
    its own connection to the store): the entries come packed from where
    the results were checked (`rows`, in a bulk run's workers) and the
    run's process only passes them on, so that SQLite's work per row (about
    10 us a check) is not the run's: at 16 workers' pace it took most of a
    core there, beside receiving the results."""

    # A row's key goes to the results table's index at a random place (a
    # test's identity is a hash): a commit writes each index page it
    # touched, so that small commits in a large store cost more per row
    # the larger it grows (`bench_store.py --grow 500000`: 4,000 rows a
    # commit, 6.5 us a row at first and 15.6 at 500,000 rows; 60,000 rows
    # a commit, 5.5 and 9.9; schema 1's rows in key order: 13 and 33, 8
    # and 23). At most a second's rows wait (and a Ctrl-C commits them).
    COMMIT_EVERY = 100_000
    COMMIT_SECONDS = 1.0

    def __init__(self, store: Store, paths: list, models: list, limits, command: str):
        from .models import get as get_model

        self.store = store
        self.models = [get_model(m) for m in models]
        self.runs = {m.name: store.run_for(m, limits) for m in self.models}
        known = store.known_files(paths)
        done = [store.done(run, set(known.values())) for run in self.runs.values()]
        self.todo = [p for p in paths if not (p in known and all(known[p] in d for d in done))]
        self.skipped = len(paths) - len(self.todo)
        self.invocation = store.begin(command, list(self.runs.values()))
        # The writer's own CPU seconds, once it has ended (`close`).
        self.writer_cpu: float | None = None
        # The writer process, started now: before the run forks its workers,
        # so that it holds none of their pipes (a worker whose run's process
        # is gone must see its pipe's end).
        self._writer: Any = None  # a multiprocessing Process
        self._conn: Any = None  # its Connection
        if self.todo:
            self._start()

    def rows(self, results: list, first: int) -> bytes:
        """The store's entries for results of self.todo[first:], models in
        order, packed for `keep`: `(test entries, result rows)` pickled
        (made where the results are: a bulk run's workers)."""
        import pickle

        nm = len(self.models)
        tests: list = []
        rows: list = []
        for j, r in enumerate(results):
            path = str(self.todo[first + j // nm])
            test_id = r.test_id or raw_identity(path)
            if j % nm == 0:
                tests += test_entries(r, test_id, path)
            rows.append(result_row(self.runs[r.model].run, r, test_id))
        return pickle.dumps((tests, rows), protocol=pickle.HIGHEST_PROTOCOL)

    def keep(self, packed: bytes) -> None:
        """Keep entries packed by `rows`, in check_many's order (test by
        test, models in order): passed on to the writer process as they
        are. A StoreError the writer met is raised here."""
        conn = self._conn
        if conn is None:
            raise StoreError(f"{self.store.path}: entries kept after the bulk session ended")
        if conn.poll():  # the writer speaks only when it fails (or has ended)
            self._failed()
        try:
            with _whole():
                conn.send_bytes(packed)
        except (BrokenPipeError, ConnectionResetError, EOFError, OSError):
            self._failed()

    def _start(self) -> None:
        import multiprocessing as mp

        # fork where there is one (the writer starts at once); spawn elsewhere
        ctx: Any = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        mine, theirs = ctx.Pipe(duplex=True)
        args = (self.store.path, theirs, self.COMMIT_EVERY, self.COMMIT_SECONDS, mine)
        self._writer = ctx.Process(target=_store_writer, args=args, daemon=True, name="hrf-store-writer")
        self._writer.start()
        theirs.close()
        self._conn = mine

    def _failed(self) -> None:
        # the writer's last word (its StoreError), or its death; the writer
        # is then done with (close does not ask it again)
        conn, writer = self._conn, self._writer
        self._conn = self._writer = None
        msg = None
        with contextlib.suppress(EOFError, OSError):
            if conn.poll(5.0):
                msg = conn.recv()
        conn.close()
        writer.join()
        self._writer_failed(msg, writer)

    def _finish_writer(self) -> None:
        # the writer commits what it was given and ends; its errors raised here
        conn, writer = self._conn, self._writer
        if conn is None or writer is None:
            return
        self._conn = self._writer = None
        try:
            try:
                conn.send_bytes(b"")  # the end: commit and leave
                msg = conn.recv()
            except (BrokenPipeError, ConnectionResetError, EOFError, OSError):
                msg = None
            if isinstance(msg, tuple) and msg and msg[0] == "ok":
                self.writer_cpu = msg[1]
            else:
                writer.join()
                self._writer_failed(msg, writer)
        finally:
            conn.close()
            writer.join()

    def _writer_failed(self, msg, writer) -> NoReturn:
        # the writer's own word (its StoreError), else how it ended
        if isinstance(msg, tuple) and msg and msg[0] == "error":
            raise StoreError(msg[1])
        raise StoreError(
            f"{self.store.path}: the process writing the store ended unexpectedly (exit status {writer.exitcode})"
        )

    def close(self, interrupted: bool, checked: int) -> None:
        try:
            self._finish_writer()
        finally:
            self.store.commit()
            self.store.end(self.invocation, "interrupted" if interrupted else "done", checked, self.skipped)


@contextlib.contextmanager
def _whole() -> Iterator[None]:
    """Ctrl-C held back until the block is done (on the main thread, where
    Python handles signals): a message to the store's writer is sent whole,
    never cut by a KeyboardInterrupt half-way through a write to a full
    pipe (the writer would read garbage). (A signal mask would not do: the
    core's threads take a signal the main thread blocks.)"""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    old = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        if caught:
            signal.raise_signal(signal.SIGINT)  # now, to the handler that was there


def _store_writer(path: str, conn, commit_every: int, commit_seconds: float, theirs=None) -> None:
    """The process that writes a bulk run's rows (`BulkSession`): packed
    entries from `conn` until an empty message (or the run's process is
    gone), committed every `commit_every` rows or `commit_seconds`, and at
    the end; then `("ok", its CPU seconds)`, or `("error", message)` as soon
    as the store fails. Ctrl-C is the run's to handle: the writer commits
    what it was given either way. `theirs`: the run's end of the pipe,
    closed at once (a fork inherits it), so that the writer sees the run's
    process gone (killed)."""
    import pickle
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # What the run's process held when it forked the writer (a caller's
    # parsed tests, say) is left alone by the writer's collector: walking
    # it (and copying each page it touched) cost 80 us a row, not 13.
    gc.freeze()
    if theirs is not None:
        theirs.close()
    store = None
    try:
        store = Store(path)
        pending, last = 0, time.monotonic()
        while True:
            wait = max(0.0, commit_seconds - (time.monotonic() - last))
            if not conn.poll(wait if pending else None):
                store.commit()
                pending, last = 0, time.monotonic()
                continue
            try:
                packed = conn.recv_bytes()
            except (EOFError, OSError):
                break  # the run's process is gone: keep what came
            if not packed:
                break
            tests, rows = pickle.loads(packed)
            store.add_rows(tests, rows)
            pending += len(rows)
            if pending >= commit_every or time.monotonic() - last > commit_seconds:
                store.commit()
                pending, last = 0, time.monotonic()
        store.close()
        with contextlib.suppress(OSError):
            conn.send(("ok", time.process_time()))
    except BaseException as e:
        # the rows kept so far are whole: committed if the store lets them be
        if store is not None:
            with contextlib.suppress(Exception):
                store.close()
        with contextlib.suppress(Exception):
            conn.send(("error", str(e) if isinstance(e, StoreError) else f"{path}: writing the store failed ({e!r})"))
    finally:
        conn.close()
        os._exit(0)
