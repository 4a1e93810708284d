"""`check_many` on a Dask distributed cluster (`hrf bulk --scheduler`).

The tests are cut into slices; each slice goes to a worker as the tests'
bytes (no shared file system needed), is parsed and checked there by
hrf's Rust core, and comes back as results, which are yielded in the
tests' order. A worker that dies takes no result with it: Dask runs the
slices it held elsewhere, and a result is only taken once its slice is
whole. A slice that keeps killing its workers (Dask's KilledWorker) is
split into single tests; a single test that does so is checked again
alone on the cluster, and if it kills its workers even then, it becomes
an error row naming it.

Workers are started the usual ways (`dask worker ADDRESS`, dask-jobqueue
on SLURM or PBS, dask-kubernetes) on machines with the same hrf version;
`local:N` starts a cluster of N worker processes on this machine."""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import platform
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from .core import MAX_WORKERS, version
from .errors import HrfError


class ClusterError(HrfError):
    """The cluster cannot be used: dask.distributed missing, the scheduler
    unreachable, no worker, or workers that run another hrf."""


# Tests per slice at most: small enough that a lost worker costs little
# and the slices spread evenly, large enough that Dask's per-task cost
# (about a millisecond) stays small next to the checks.
SLICE_MAX = 64
# Seconds to wait for the scheduler, and for a first worker (a batch
# system may take a while to start one).
CONNECT_TIMEOUT = 10
WORKER_TIMEOUT = 120


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ClusterError(
            "--scheduler needs Dask's distributed scheduler: pip install 'hrf[cluster]' (or dask[distributed])"
        ) from None
    return distributed


def _worker_versions() -> tuple[str, str]:
    """Run on each worker: the hrf and Python it runs."""
    return version(), platform.python_version()


@contextlib.contextmanager
def connect(scheduler) -> Iterator:
    """A `distributed.Client` for `scheduler`: `local` or `local:N` (a
    LocalCluster of N worker processes, one thread each, ended on exit), a
    scheduler address (`tcp://host:8786`), a scheduler file (`.json`, as
    `dask scheduler --scheduler-file` writes) or a Client (left open).
    Checks that some worker is there and that every worker runs this hrf."""
    distributed = _distributed()
    if isinstance(scheduler, distributed.Client):
        _check_workers(scheduler, str(scheduler.scheduler.address))
        yield scheduler
        return
    text = str(scheduler)
    cluster = None
    try:
        if text == "local" or text.startswith("local:"):
            n = text.partition(":")[2] or str(os.cpu_count() or 1)
            if not n.isdigit() or not 1 <= int(n) <= MAX_WORKERS:
                raise ClusterError(f"--scheduler {text}: local:N takes a number of workers from 1 to {MAX_WORKERS}")
            cluster = distributed.LocalCluster(
                n_workers=int(n),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
            client = distributed.Client(cluster)
        elif text.endswith(".json"):
            address = _scheduler_file_address(text)
            _probe(address)
            client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
        else:
            _probe(text)
            client = distributed.Client(text, timeout=CONNECT_TIMEOUT)
    except ClusterError:
        if cluster is not None:
            cluster.close()
        raise
    except (OSError, TimeoutError, ValueError) as e:
        if cluster is not None:
            cluster.close()
        raise ClusterError(f"cannot reach the Dask scheduler at {text}: {e}") from None
    try:
        _check_workers(client, text)
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _scheduler_file_address(path: str) -> str:
    """The address a scheduler file (`dask scheduler --scheduler-file`)
    names; a file that cannot be read, is not JSON or names none is a
    ClusterError saying so."""
    import json

    from .errors import read_input

    try:
        data = json.loads(read_input(path).decode("utf-8"))
    except OSError as e:
        raise ClusterError(f"{path}: cannot read this scheduler file: {e.strerror or e}") from None
    except (UnicodeDecodeError, ValueError) as e:
        raise ClusterError(f"{path}: not a scheduler file (not JSON: {e})") from None
    address = data.get("address") if isinstance(data, dict) else None
    if not isinstance(address, str) or not address:
        raise ClusterError(f'{path}: not a scheduler file (it names no "address" of a scheduler)')
    return address


def _probe(address: str) -> None:
    """Refuse a tcp:// address where nothing answers as a Dask scheduler
    within CONNECT_TIMEOUT: a scheduler speaks first on a new connection,
    and a server that accepts and stays silent would otherwise hold the
    client (and Ctrl-C) for good. Other schemes are left to Dask."""
    import socket
    from urllib.parse import urlsplit

    if "://" not in address:
        address = "tcp://" + address
    parts = urlsplit(address)
    if parts.scheme != "tcp":
        return
    try:
        host, port = parts.hostname, parts.port
    except ValueError as e:
        raise ClusterError(f"--scheduler {address}: not an address ({e})") from None
    if not host or port is None:
        raise ClusterError(f"--scheduler {address}: not an address (tcp://HOST:PORT)")
    try:
        s = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
    except OSError as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {e.strerror or e}") from None
    with s:
        try:
            said = s.recv(1)
        except TimeoutError:
            raise ClusterError(
                f"the server at {address} accepts connections but says nothing in {CONNECT_TIMEOUT} s: "
                "not a Dask scheduler"
            ) from None
        except OSError as e:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {e.strerror or e}") from None
        if not said:
            raise ClusterError(f"the server at {address} closed the connection: not a Dask scheduler")


def _check_workers(client, where: str) -> None:
    try:
        client.wait_for_workers(1, timeout=WORKER_TIMEOUT)
    except TimeoutError:
        raise ClusterError(
            f"the Dask scheduler at {where} has no worker after {WORKER_TIMEOUT} s (start some: dask worker ADDRESS)"
        ) from None
    other = {w: v for w, v in client.run(_worker_versions).items() if v[0] != version()}
    if other:
        listed = ", ".join(f"{w} (hrf {v[0]})" for w, v in sorted(other.items()))
        raise ClusterError(f"workers run another hrf than this one ({version()}): {listed}")


def _shippable(test):
    """A test as sent to a worker: a path becomes the file's bytes."""
    from .litmus import LitmusText

    if isinstance(test, os.PathLike) or (isinstance(test, str) and "\n" not in test):
        from .litmus import looks_like_text

        if isinstance(test, os.PathLike) or not looks_like_text(test):
            return LitmusText.read(test)
    return test


def check_on_cluster(
    tests: list,
    models: list,
    scheduler,
    limits,
    identify: bool = False,
    slice_size: int | None = None,
    *,
    check_slice: Callable[..., list],
    error_results: Callable[..., list],
    adopt: Callable[..., Any],
) -> Iterator:
    """`check_many`'s results, in the tests' order, computed on a Dask
    cluster (see the module's text). The checking is the caller's (hrf.api,
    which imports this module, not the other way round): `check_slice(items,
    models, limits, identify)` runs on a worker and returns its results made
    portable, `error_results(test, models, error)` stands for a test the
    cluster could not check, `adopt(result, test, by_name, limits)` gives a
    worker's result back what it left out."""
    distributed = _distributed()
    if not tests:
        return
    by_name = {m.name: m for m in models}
    with connect(scheduler) as client:
        nthreads = max(1, sum(client.nthreads().values()))
        size = slice_size or max(1, min(SLICE_MAX, -(-len(tests) // (nthreads * 8))))
        todo = deque((i, min(i + size, len(tests))) for i in range(0, len(tests), size))
        window = max(4, 2 * nthreads)  # slices in flight at once
        run, serial = uuid.uuid4().hex[:8], itertools.count()  # a fresh key for each submission
        # Single tests whose workers died while checking them, but maybe
        # with another task on the same worker to blame: each is checked
        # again alone on the cluster before it is called the culprit.
        suspects: deque = deque()
        alone: set[int] = set()  # starts of suspects checked alone
        flying: dict = {}  # future -> (start, end)
        ready: dict[int, list] = {}  # start of a finished slice -> its results
        ends: dict[int, int] = {}  # start -> end, of slices not yet yielded
        queue = distributed.as_completed()

        def submit(start: int, end: int) -> None:
            items = [_shippable(t) for t in tests[start:end]]
            f = client.submit(check_slice, items, models, limits, identify, key=f"hrf-{run}-{next(serial)}", pure=False)
            flying[f] = (start, end)
            ends[start] = end
            queue.add(f)

        def launch() -> None:
            if any(start in alone for start, _ in flying.values()):
                return  # a suspect runs alone
            if suspects:
                if not flying:
                    start, end = suspects.popleft()
                    alone.add(start)
                    submit(start, end)
                return
            while todo and len(flying) < window:
                submit(*todo.popleft())

        nxt = 0
        try:
            launch()
            for f in queue:
                start, end = flying.pop(f)
                try:
                    results = f.result()
                except distributed.KilledWorker:
                    del ends[start]
                    if end - start > 1:
                        # one of these tests may kill every worker it goes to:
                        # check them one by one to find it
                        todo.extendleft(reversed([(k, k + 1) for k in range(start, end)]))
                    elif start not in alone:
                        suspects.append((start, end))
                    else:
                        ends[start] = end
                        ready[start] = error_results(
                            tests[start],
                            models,
                            HrfError(
                                f"{tests[start]}: the cluster's workers died each time they checked it "
                                "(a crash of hrf or too little memory on the workers)"
                            ),
                        )
                    results = None
                except Exception as e:  # a task that failed otherwise: its tests' rows say why
                    results = []
                    for k in range(start, end):
                        results += error_results(tests[k], models, HrfError(f"{tests[k]}: on the cluster: {e}"))
                finally:
                    f.release()
                if results is not None:
                    ready[start] = results
                launch()
                while nxt in ready:
                    results = ready.pop(nxt)
                    n = len(models)
                    for i in range(ends[nxt] - nxt):
                        for r in results[i * n : (i + 1) * n]:
                            yield adopt(r, tests[nxt + i], by_name, limits)
                    nxt = ends.pop(nxt)
        finally:
            if flying:
                client.cancel(list(flying))
