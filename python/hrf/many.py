"""`hrf.check_many`: many tests under several models, on threads, forked
worker processes or a Dask cluster, results in order as they finish."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import time
from collections.abc import Iterable, Iterator
from typing import Any, cast

from . import core
from . import models as _models
from .checking import vector_orders, witnesses_later
from .dsl import Model
from .errors import HrfError, InvalidArgument
from .limits import (
    Limits,
    check_workers,
    limits_from,
)
from .litmus import parse
from .litmus.printer import litmus_identity
from .litmus.translate import read_by, translation_note
from .program import compile_test
from .results import Result, build_result, pack_results, unpack_results


def check_many(
    tests: Iterable,
    models,
    workers: int | None = None,
    *,
    limits: Limits | None = None,
    chunk: int = 256,
    processes: bool | None = None,
    identify: bool = False,
    scheduler=None,
    **kw,
) -> Iterator[Result]:
    """Check every test under every model on `workers` cores (all when
    None), yielding results in order (test by test, models in the order
    given) as they finish. Each test is parsed and compiled once. A test
    that does not parse, or that a model rejects, yields a Result whose
    `error` is set rather than stopping the run.

    Two ways to use the cores, the same results either way:
    - threads: one process parses and compiles (Python, under the GIL) and
      the Rust core checks `chunk` jobs at a time on `workers` threads;
    - processes: `workers` forked processes each take slices of the tests
      and do everything, parsing included, so the Python work is spread
      too. Chosen by default (`processes=None`) when there are at least
      `PROCESS_MIN_TESTS` tests, more than one worker and `fork` exists;
      `processes=False` forces threads, `processes=True` processes.

    With `scheduler`, the tests are checked on a Dask distributed cluster
    instead (`hrf.cluster`: `"local:N"`, a scheduler address or file, or a
    `distributed.Client`), with the same results in the same order.

    With `identify`, each result of a test that parses holds the test's
    identity and size in `test_id` and `test_size` (computed where the test
    is parsed), also where a model refuses the test.

    A result keeps its parsed test, not the program compiled from it: what
    needs the program (a witness, a flag's events, a drawing) compiles it
    again on first use, so that many results kept cost little memory."""
    limits = limits_from(limits, kw)
    todo, models, how, nworkers = _plan(tests, models, workers, processes, scheduler)
    if how == "cluster":
        yield from check_on_cluster(todo, models, scheduler, limits, identify)
    elif how == "processes":
        yield from _check_in_processes(todo, models, nworkers, limits, identify)
    else:
        yield from _check_in_threads(todo, models, workers, limits, chunk, identify)


def check_batches(
    tests: Iterable,
    models,
    shape,
    workers: int | None = None,
    *,
    limits: Limits | None = None,
    chunk: int = 256,
    processes: bool | None = None,
    identify: bool = False,
    scheduler=None,
) -> Iterator[tuple]:
    """`check_many`'s checks, given back as `(first, n, shape(results,
    first))` for consecutive runs of tests (the results of tests[first:first
    + n], models in order), in the tests' order. On worker processes,
    `shape` runs in the workers: a bulk run has its rows made there, and
    its own process only writes them (elsewhere, `shape` runs here, on
    `chunk` results at a time)."""
    limits = limits or Limits()
    todo, models, how, nworkers = _plan(tests, models, workers, processes, scheduler)
    if how == "processes":
        yield from in_processes(todo, models, nworkers, limits, identify, shape)
        return
    if how == "cluster":
        results = check_on_cluster(todo, models, scheduler, limits, identify)
    else:
        results = _check_in_threads(todo, models, workers, limits, chunk, identify)
    per = max(1, chunk // len(models)) * len(models)
    first, batch = 0, []
    for r in results:
        batch.append(r)
        if len(batch) == per:
            yield first, per // len(models), shape(batch, first)
            first, batch = first + per // len(models), []
    if batch:
        yield first, len(batch) // len(models), shape(batch, first)


def _plan(
    tests: Iterable, models, workers: int | None, processes: bool | None, scheduler
) -> tuple[Any, list, str, int]:
    """`check_many`'s arguments checked, its models found, and where the
    checks run: `(tests, models, "cluster" | "processes" | "threads",
    workers)`."""
    if isinstance(tests, (str, bytes, os.PathLike)) or hasattr(tests, "threads"):
        raise InvalidArgument(
            "check_many takes a list (or other iterable) of tests, not one test: "
            f"check_many([{tests!r}], ...) or check({tests!r}, ...)"[:300]
        )
    check_workers(workers)
    if isinstance(models, (str, os.PathLike, Model)):
        models = [models]
    models = [_models.get(m) for m in models]
    for m in models:
        if any(o.name == m.name and o is not m for o in models):
            raise HrfError(f"two different models are named {m.name!r}: results could not say which is which")
    if scheduler is not None:
        if workers is not None:
            raise InvalidArgument("check_many: give workers or scheduler, not both (the cluster has its own workers)")
        return list(tests), models, "cluster", 0
    nworkers = workers or os.cpu_count() or 1
    if processes is not False and nworkers > 1 and _can_fork():
        tests = tests if isinstance(tests, list) else list(tests)
        if processes or len(tests) >= PROCESS_MIN_TESTS:
            return tests, models, "processes", nworkers
    return tests, models, "threads", nworkers


PROCESS_MIN_TESTS = 64
SPAN = 2048  # tests per forked worker, at most (a fresh process per span; a fork of a
# parent holding 100,000 tests costs about 20 ms)


@contextlib.contextmanager
def _fewer_collections(freeze: bool = True) -> Iterator[None]:
    """Run Python's cyclic collector less often while checking many tests:
    each check allocates hundreds of short-lived containers, and the
    collector's default pace (every 700) spent a quarter of a bulk run
    walking them. Reference counting still frees them at once; the old
    pace comes back when the run ends (or its generator is closed).
    With `freeze`, the objects there before the run (a caller's list of
    100,000 parsed tests, say) go to the permanent generation meanwhile,
    as `in_processes` puts them before it forks: the collections of the
    oldest generation, which the results kept set off, walked them every
    time (42% of one worker's time on 25,000 of 100,000 generated tests).
    A forked worker does without (its parent froze them)."""
    old = gc.get_threshold()
    if freeze:
        gc.freeze()
    gc.set_threshold(max(old[0], 20_000), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)
        if freeze:
            gc.unfreeze()


def _check_in_threads(
    tests: Iterable,
    models: list,
    workers: int | None,
    limits: Limits,
    chunk: int,
    identify: bool = False,
    freeze: bool = True,
) -> Iterator[Result]:
    """`check_many` in this process: Python compiles, the core checks a
    chunk of jobs at a time in parallel with the GIL released."""
    with _fewer_collections(freeze):
        yield from _check_in_threads_paced(tests, models, workers, limits, chunk, identify)


def _check_in_threads_paced(
    tests: Iterable, models: list, workers: int | None, limits: Limits, chunk: int, identify: bool
) -> Iterator[Result]:
    model_json = {m.name: m.ir_json() for m in models}
    # most results of a bulk check are read for their verdicts only
    lazy, run = witnesses_later(limits)
    limits_json = {m.name: run.core_json(m) for m in models}
    # (Compiled or None, model, error, name, the test's identity or None,
    # the parsed test or None)
    pending: list = []

    def flush():
        jobs = [(c.json(), model_json[m.name], limits_json[m.name]) for c, m, *_ in pending if c is not None]
        raws = iter(core.check_many(jobs, workers))
        for c, m, err, name, ident, t in pending:
            if c is None:
                r = Result.failed(name, m.name, err, path=name)
            else:
                r = build_result(next(raws), c, m, lazy)
                # A result keeps its parsed test, not its compiled program (13 KB
                # a test in a generated family, against 5 KB parsed), compiled
                # again on first use as a worker's results are: a caller keeping
                # 200,000 results held 3.4 GB (2.1 GB then), and Python's
                # collections of the oldest generation walked every program.
                r.keep_source(t, limits.unroll, m.cas_writeback, vector_orders(m, limits))
            if ident is not None:
                r.test_id, r.test_size = ident
            yield r

    for test in tests:
        name = (
            str(test)
            if isinstance(test, (str, os.PathLike)) and "\n" not in str(test)
            else getattr(test, "name", "<test>")
        )
        try:
            t = parse(test)
            name = t.path or t.name
        except HrfError as e:
            pending.extend((None, m, e, name, None, None) for m in models)
            t = None
        except Exception as e:  # a bug of hrf: one error row, the run goes on
            pending.extend((None, m, _internal_error(e, name), name, None, None) for m in models)
            t = None
        if t is not None:
            # one identity per test, on every row of it (a model's refusal too)
            ident = litmus_identity(t) if identify else None
            compiled: dict = {}  # one compilation per distinct language semantics and reading
            for m in models:
                try:
                    u = read_by(t, m)
                    orders = vector_orders(m, limits)
                    key = (m.cas_writeback, u.arch, orders)
                    if key not in compiled:
                        compiled[key] = compile_test(u, limits.unroll, m.cas_writeback, vector_orders=orders)
                        compiled[key].read_note = translation_note(t, u)
                    pending.append((compiled[key], m, None, name, ident, u))
                except HrfError as e:
                    pending.append((None, m, e, name, ident, None))
                except Exception as e:
                    pending.append((None, m, _internal_error(e, name), name, ident, None))
        if len(pending) >= chunk:
            yield from flush()
            pending.clear()
    if pending:
        yield from flush()


def _can_fork() -> bool:
    import multiprocessing as mp

    return "fork" in mp.get_all_start_methods()


def _internal_error(e: BaseException, name: str) -> HrfError:
    """An exception hrf did not mean to raise, as an error row naming the
    test (the run goes on; the type and message say what to report)."""
    return HrfError(f"{name}: internal error of hrf ({type(e).__name__}: {e}); please report it with the test")


# A worker sends the results of up to this many tests at once, or what it
# has after SEND_SECONDS; after a worker died, its span's rest is checked
# again one test a message, so that a death names its test.
SEND_TESTS = 16
MIN_SPAN = 16  # tests: the shortest span (`in_processes`), as many as a message holds
SEND_SECONDS = 0.05
# A worker takes span after span until it has checked this many tests, then
# a fresh one takes its place (memory a long-lived process piles up goes
# with it; a fork of a parent holding 100,000 tests costs about 20 ms).
WORKER_TESTS = 20_000


def _fork_worker(conn, tests: list, models: list, limits: Limits, identify: bool, shape, others=()) -> None:
    """A forked worker: take spans `(start, end, per)` from `conn` until
    `None` (or WORKER_TESTS checked), check each on one core and send
    `("batch", first, n, shape(results of n tests, first))` for `per` tests
    at a time (fewer when SEND_SECONDS have passed), then `("done", leaves)`
    (`leaves`: it has checked WORKER_TESTS and ends): a worker that dies
    loses at most the tests of the batch it was filling. `others`: the
    parent's ends of this worker's pipe and the other workers', closed at
    once (a fork inherits them), so that the worker sees the parent gone
    (killed) and ends.
    Errors travel as text (an exception that does not pickle cannot hang
    the run)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    for c in others:
        c.close()
    nm = len(models)
    checked = 0
    k = 0  # the first test whose results are not sent
    try:
        while checked < WORKER_TESTS:
            span = conn.recv()
            if span is None:
                break
            start, end, per = span
            k, batch, sent = start, [], time.monotonic()
            for r in _check_in_threads(tests[start:end], models, 1, limits, per * nm, identify, freeze=False):
                batch.append(r)
                if len(batch) % nm == 0 and (len(batch) == per * nm or time.monotonic() - sent > SEND_SECONDS):
                    conn.send(("batch", k, len(batch) // nm, shape(batch, k)))
                    k += len(batch) // nm
                    batch, sent = [], time.monotonic()
            if batch:
                conn.send(("batch", k, len(batch) // nm, shape(batch, k)))
            checked += end - start
            conn.send(("done", checked >= WORKER_TESTS))  # (True: this worker leaves)
    except (EOFError, BrokenPipeError):  # pragma: no cover - the parent went away
        pass
    except BaseException as e:  # pragma: no cover - _check_in_threads turns errors into rows
        with contextlib.suppress(Exception):
            conn.send(("error", k, str(_internal_error(e, str(tests[k])))))
    finally:
        conn.close()
        os._exit(0)


# What a sent result holds in place of the limits its witnesses wait for.
_LAZY = cast(Limits, True)


def portable(r: Result) -> Result:
    """A result made fit to send to the process that asked for it: without
    its compiled test (large; compiled again there on demand) and model
    (that process has it), its error as text where the error does not
    pickle. `adopt` undoes it on the other side."""
    r._compiled = r._source = None  # (`adopt` gives the source back)
    r._model_obj = None
    if r._lazy is not None:
        r._lazy = _LAZY  # the limits are the caller's own (`adopt`): not sent
    if r.error is not None:
        # its traceback and chained errors stay here: they hold frames and
        # modules (pickled where tblib is installed, as dask.distributed does)
        r.error = r.error.with_traceback(None)
        r.error.__context__ = r.error.__cause__ = None
    if r.error is not None and not _pickles(r.error):
        r.error = HrfError(f"{type(r.error).__name__}: {r.error}")
    return r


def adopt(r: Result, test, by_name: dict, limits: Limits) -> Result:
    """A result sent by a worker (`portable`), given back what it left out:
    the test it came from (to compile again for witnesses) and its model."""
    if r.error is None:
        m = by_name[r.model]
        r.keep_source(test, limits.unroll, m.cas_writeback, vector_orders(m, limits))
        r._model_obj = by_name[r.model]
        if r._lazy is not None:
            r._lazy = limits  # one object for all, not a copy per result
    return r


def _pickles(e: BaseException) -> bool:
    import pickle

    try:
        pickle.loads(pickle.dumps(e))
        return True
    except Exception:
        return False


def error_results(test, models: list, err: HrfError) -> list:
    name = str(
        test if isinstance(test, (str, os.PathLike)) else getattr(test, "path", None) or getattr(test, "name", "<test>")
    )
    return [Result.failed(name, m.name, err, path=name) for m in models]


def portable_batch(results: list, first: int) -> list:
    """A worker's batch as `check_many` sends it: its results portable and
    packed (`pack_results`: the parent reads scalars, lists wait)."""
    return pack_results([portable(r) for r in results])


def _check_in_processes(
    tests: list, models: list, nworkers: int, limits: Limits, identify: bool = False
) -> Iterator[Result]:
    """`check_many` on forked worker processes (`in_processes`)."""
    by_name = {m.name: m for m in models}
    nm = len(models)
    for first, _, packed in in_processes(tests, models, nworkers, limits, identify, portable_batch):
        batch = unpack_results(packed)
        for j, r in enumerate(batch):
            adopt(r, tests[first + j // nm], by_name, limits)
        yield from batch


def in_processes(tests: list, models: list, nworkers: int, limits: Limits, identify: bool, shape) -> Iterator[tuple]:
    """Check `tests` under `models` on `nworkers` forked worker processes and
    yield `(first, n, shape(results, first))` for consecutive runs of tests,
    in the tests' order: the results of tests[first:first + n], models in
    order, made by `shape` where they were checked (a worker) into what the
    caller wants of them (portable results; a bulk run's rows), so that
    this process touches each check as little as it can.

    Workers take spans of tests in turn and live for several (a fork per
    span cost the parent more than its checks at 16 workers). A worker that
    dies (a crash, the kernel's OOM killer) costs one error row for the
    test it was on; the rest of its span goes to a new worker."""
    import multiprocessing as mp  # here, not at import: a cold check does not fork
    import selectors
    from multiprocessing.connection import Connection

    ctx = mp.get_context("fork")
    # Spans shrink with the tests left (guided self-scheduling): an eighth of
    # a worker's share of them, from one of the whole at first down to
    # MIN_SPAN tests, so that the workers end together rather than some
    # idle while others finish long spans (at the end of a run of equal
    # spans, half a span's time on average).
    floor = min(MIN_SPAN, -(-len(tests) // (nworkers * 8)))
    cursor = 0  # the first test no span has taken yet
    # (first test, end, tests per message): spans a dead worker left, to be checked again first
    pending: list = []

    def more() -> bool:
        return bool(pending) or cursor < len(tests)

    def next_span() -> tuple:
        nonlocal cursor
        if pending:
            return pending.pop()
        size = max(1, min(SPAN, max(floor, -(-(len(tests) - cursor) // (nworkers * 8)))))
        span = (cursor, min(cursor + size, len(tests)), SEND_TESTS)
        cursor = span[1]
        return span

    done: dict = {}  # first test index -> (n, payload), until yielded
    # connection -> [process, next test index, end of its span, per] (end == -1: idle)
    running: dict[Connection, list] = {}
    # the workers' pipes, each registered once (multiprocessing's wait()
    # registers every pipe again at each call: 15 us a call with 16 workers)
    ready_pipes = selectors.DefaultSelector()
    next_out = 0

    def launch() -> Connection:
        # The parent's objects go to the permanent generation first: the
        # child's collector then leaves them alone, and so does not copy
        # every page it inherited (copy-on-write) by touching their headers.
        gc.freeze()
        mine, theirs = ctx.Pipe(duplex=True)
        others = [mine, *running]  # the parent's ends: not the worker's to hold
        p = ctx.Process(target=_fork_worker, args=(theirs, tests, models, limits, identify, shape, others), daemon=True)
        p.start()
        theirs.close()
        running[mine] = [p, 0, -1, 0]
        ready_pipes.register(mine, selectors.EVENT_READ)
        return mine

    def give(conn: Connection) -> None:
        # the next span to an idle worker, or its leave to go
        state = running[conn]
        if more():
            start, end, per = next_span()
            state[1:] = [start, end, per]
            conn.send((start, end, per))
        else:
            state[1:] = [0, -1, 0]
            with contextlib.suppress(OSError):
                conn.send(None)

    def died(conn: Connection) -> None:
        # the worker ended; if before its span's end, it died on one of the
        # tests from k of the batch it was filling
        p, k, end, per = running.pop(conn)
        ready_pipes.unregister(conn)
        conn.close()
        p.join()
        if k >= end:
            return
        if per > 1 and p.exitcode != 0:
            pending.append((k, end, 1))  # again, one test a message
            return
        code = p.exitcode
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
        name = tests[k] if isinstance(tests[k], (str, os.PathLike)) else "test"
        err = HrfError(f"{name}: the worker process checking it died ({how}): a crash of hrf or too little memory")
        done[k] = (1, shape(error_results(tests[k], models, err), k))
        if k + 1 < end:
            pending.append((k + 1, end, 1))

    with _fewer_collections():
        try:
            while more() or any(state[2] != -1 for state in running.values()):
                while more() and len(running) < nworkers:
                    give(launch())
                for key, _ in ready_pipes.select():
                    conn = cast(Connection, key.fileobj)
                    try:
                        msg = conn.recv()
                    except (EOFError, OSError):
                        died(conn)
                        continue
                    state = running[conn]
                    if msg[0] == "batch":
                        _, first, n, payload = msg
                        done[first] = (n, payload)
                        state[1] = first + n
                    elif msg[0] == "done" and not msg[1]:
                        give(conn)
                    elif msg[0] == "done":  # it leaves: a fresh one takes its place
                        state[1:] = [0, -1, 0]
                    else:  # pragma: no cover - see _fork_worker
                        k, end = msg[1], state[2]
                        done[k] = (1, shape(error_results(tests[k], models, HrfError(msg[2])), k))
                        if k + 1 < end:
                            pending.append((k + 1, end, 1))
                        state[1:] = [0, -1, 0]  # it leaves
                while next_out in done:
                    n, payload = done.pop(next_out)
                    yield next_out, n, payload
                    next_out += n
        finally:  # (what launch froze is given back as the run ends: _fewer_collections)
            ready_pipes.close()
            for conn, (p, *_) in running.items():
                if p.is_alive():
                    p.terminate()
                p.join()
                conn.close()


def _check_slice(items: list, models: list, limits, identify: bool) -> list:
    """Run on a cluster worker: check a slice of tests under every model, in
    this worker's thread (the worker's own threads are the parallelism)."""
    return [
        portable(r) for r in check_many(items, models, workers=1, processes=False, limits=limits, identify=identify)
    ]


def check_on_cluster(
    tests: list, models: list, scheduler, limits: Limits, identify: bool = False, slice_size: int | None = None
) -> Iterator[Result]:
    """`check_many`'s results computed on a Dask cluster (hrf.cluster does
    the distributing; the checking is this module's)."""
    from .cluster import check_on_cluster as distribute

    yield from distribute(
        tests,
        models,
        scheduler,
        limits,
        identify,
        slice_size,
        check_slice=_check_slice,
        error_results=error_results,
        adopt=adopt,
    )
