"""`hrf.check_many`: many tests under several models, on threads, forked
worker processes or a Dask cluster, results in order as they finish."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, cast

from . import core
from . import models as _models
from .dsl import Model
from .errors import HrfError, InvalidArgument
from .limits import (
    Limits,
    check_workers,
    limits_from,
)
from .litmus import parse
from .litmus.printer import litmus_identity
from .program import compile_test

if TYPE_CHECKING:  # the IR's types, for annotations only (imported lazily: cold start)
    pass
from .checking import witnesses_later
from .results import Result, build_result


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
    is parsed), also where a model refuses the test."""
    limits = limits_from(limits, kw)
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
        yield from check_on_cluster(list(tests), models, scheduler, limits, identify)
        return
    nworkers = workers or os.cpu_count() or 1
    if processes is not False and nworkers > 1 and _can_fork():
        tests = tests if isinstance(tests, list) else list(tests)
        if processes or len(tests) >= PROCESS_MIN_TESTS:
            yield from _check_in_processes(tests, models, nworkers, limits, identify)
            return
    yield from _check_in_threads(tests, models, workers, limits, chunk, identify)


PROCESS_MIN_TESTS = 64
SPAN = 2048  # tests per forked worker, at most (a fresh process per span; a fork of a
# parent holding 100,000 tests costs about 20 ms)


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """Run Python's cyclic collector less often while checking many tests:
    each check allocates hundreds of short-lived containers, and the
    collector's default pace (every 700) spent a quarter of a bulk run
    walking them. Reference counting still frees them at once; the old
    pace comes back when the run ends (or its generator is closed)."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], 20_000), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def _check_in_threads(
    tests: Iterable, models: list, workers: int | None, limits: Limits, chunk: int, identify: bool = False
) -> Iterator[Result]:
    """`check_many` in this process: Python compiles, the core checks a
    chunk of jobs at a time in parallel with the GIL released."""
    with _fewer_collections():
        yield from _check_in_threads_paced(tests, models, workers, limits, chunk, identify)


def _check_in_threads_paced(
    tests: Iterable, models: list, workers: int | None, limits: Limits, chunk: int, identify: bool
) -> Iterator[Result]:
    model_json = {m.name: m.ir_json() for m in models}
    # most results of a bulk check are read for their verdicts only
    lazy, run = witnesses_later(limits)
    limits_json = {m.name: run.core_json(m) for m in models}
    # (Compiled or None, model, error, name, the test's identity or None)
    pending: list = []

    def flush():
        jobs = [(c.json(), model_json[m.name], limits_json[m.name]) for c, m, _, _, _ in pending if c is not None]
        raws = iter(core.check_many(jobs, workers))
        for c, m, err, name, ident in pending:
            r = Result.failed(name, m.name, err, path=name) if c is None else build_result(next(raws), c, m, lazy)
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
            pending.extend((None, m, e, name, None) for m in models)
            t = None
        except Exception as e:  # a bug of hrf: one error row, the run goes on
            pending.extend((None, m, _internal_error(e, name), name, None) for m in models)
            t = None
        if t is not None:
            # one identity per test, on every row of it (a model's refusal too)
            ident = litmus_identity(t) if identify else None
            compiled: dict = {}  # one compilation per distinct language semantics
            for m in models:
                try:
                    m.supports(t)
                    if m.cas_writeback not in compiled:
                        compiled[m.cas_writeback] = compile_test(t, limits.unroll, m.cas_writeback)
                    pending.append((compiled[m.cas_writeback], m, None, name, ident))
                except HrfError as e:
                    pending.append((None, m, e, name, ident))
                except Exception as e:
                    pending.append((None, m, _internal_error(e, name), name, ident))
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
SEND_SECONDS = 0.05


def _fork_worker(
    conn, tests: list, models: list, limits: Limits, start: int, end: int, identify: bool, per: int = 1
) -> None:
    """A forked worker: check tests[start:end] on one core and send the
    results of `per` tests at a time (fewer when SEND_SECONDS have passed),
    as `(index of the first, their results)`: a worker that dies loses at
    most the tests of the message it was filling. Errors travel as text (an
    exception that does not pickle cannot hang the run)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    k = start  # the first test whose results are not sent
    batch: list = []
    sent = time.monotonic()
    try:
        for r in _check_in_threads(tests[start:end], models, 1, limits, per * len(models), identify):
            batch.append(portable(r))
            if len(batch) % len(models) == 0 and (
                len(batch) == per * len(models) or time.monotonic() - sent > SEND_SECONDS
            ):
                conn.send((k, batch))
                k += len(batch) // len(models)
                batch, sent = [], time.monotonic()
        if batch:
            conn.send((k, batch))
    except BaseException as e:  # pragma: no cover - _check_in_threads turns errors into rows
        done = len(batch) // len(models)
        if done:
            conn.send((k, batch[: done * len(models)]))
        conn.send((k + done, [_internal_error(e, str(tests[k + done]))]))
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
    r._compiled = None
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
        r._source = (test, limits.unroll, by_name[r.model].cas_writeback)
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


def _check_in_processes(
    tests: list, models: list, nworkers: int, limits: Limits, identify: bool = False
) -> Iterator[Result]:
    """`check_many` on forked worker processes, one per span of tests (fork
    is cheap and a fresh process per span keeps memory from piling up).
    A worker that dies (a crash, the kernel's OOM killer) costs one error
    row for the test it was on; the rest of its span goes to a new worker."""
    import multiprocessing as mp  # here, not at import: a cold check does not fork
    from multiprocessing.connection import Connection, wait

    ctx = mp.get_context("fork")
    size = max(1, min(SPAN, -(-len(tests) // (nworkers * 8))))
    # (first test, end, tests per message): spans not yet started
    pending = [(i, min(i + size, len(tests)), SEND_TESTS) for i in range(0, len(tests), size)]
    pending.reverse()  # popped from the end: in order
    by_name = {m.name: m for m in models}
    done: dict = {}  # test index -> its results, until yielded
    running: dict[Connection, list] = {}  # connection -> [process, next test index, end, per]
    next_out = 0

    def launch(start: int, end: int, per: int) -> None:
        # The parent's objects go to the permanent generation first: the
        # child's collector then leaves them alone, and so does not copy
        # every page it inherited (copy-on-write) by touching their headers.
        gc.freeze()
        recv, send = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_fork_worker, args=(send, tests, models, limits, start, end, identify, per), daemon=True)
        p.start()
        send.close()
        running[recv] = [p, start, end, per]

    with _fewer_collections():
        try:
            while pending or running:
                while pending and len(running) < nworkers:
                    launch(*pending.pop())
                for ready in wait(list(running)):
                    conn = cast(Connection, ready)
                    p, k, end, per = running[conn]
                    try:
                        idx, results = conn.recv()
                    except (EOFError, OSError):
                        # the worker ended; if before its span's end, it died on
                        # one of the tests from k of the message it was filling
                        del running[conn]
                        conn.close()
                        p.join()
                        if k < end and per > 1 and p.exitcode != 0:
                            pending.append((k, end, 1))  # again, one test a message
                        elif k < end:
                            code = p.exitcode
                            how = (
                                f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
                            )
                            done[k] = error_results(
                                tests[k],
                                models,
                                HrfError(
                                    f"{tests[k] if isinstance(tests[k], (str, os.PathLike)) else 'test'}: the worker "
                                    f"process checking it died ({how}): a crash of hrf or too little memory"
                                ),
                            )
                            if k + 1 < end:
                                pending.append((k + 1, end, 1))
                        continue
                    if any(isinstance(r, HrfError) for r in results):  # pragma: no cover - see _fork_worker
                        done[idx] = error_results(tests[idx], models, results[0])
                        running[conn][1] = idx + 1
                        continue
                    nm = len(models)
                    for j in range(len(results) // nm):
                        done[idx + j] = results[j * nm : (j + 1) * nm]
                    running[conn][1] = idx + len(results) // nm
                while next_out in done:
                    for r in done.pop(next_out):
                        yield adopt(r, tests[next_out], by_name, limits)
                    next_out += 1
        finally:
            gc.unfreeze()
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
