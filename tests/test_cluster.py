"""Checking on a Dask cluster (hrf.cluster, `hrf bulk --scheduler`): a real
LocalCluster of two worker processes gives the same rows, in the same
order, as this process; a worker killed mid-run loses nothing and the
store holds each row once; a test that kills every worker it goes to is
an error row naming it, and the rest of its slice is checked."""

import copy
import os
import signal

import pytest

import hrf
from hrf.api import check_on_cluster
from hrf.bulk import run as bulk_run
from hrf.cluster import ClusterError
from hrf.generate import write_tests
from hrf.models import get
from hrf.store import Store

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

MODELS = ["sc", "hrf-direct", "opencl"]


@pytest.fixture(scope="module")
def client():
    # One retry per task before Dask gives up on it (KilledWorker), so the
    # test that kills every worker it goes to takes seconds, not minutes.
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
        )
        c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def family(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gen")
    paths = write_tests(hrf.generate(count=240, seed=5, max_edges=5), str(folder))
    # a file that does not parse, and one that hrf-direct refuses (relaxed atomics), ride along
    bad = folder / "zz_bad.litmus"
    bad.write_text("OpenCL bad\n{ x = 0; }\nP0 { garbage }\nexists (0:r0 = 1)\n")
    return sorted(paths) + [str(bad), "litmus/hrf/hrfr15-fig10-rlx.litmus"]


def key(r):
    return (
        r.path or r.name,
        r.model,
        r.condition_holds,
        r.racy,
        sorted(map(str, r.outcomes)),
        r.candidates,
        r.test_id,
        None if r.error is None else str(r.error),
    )


def test_same_rows_in_the_same_order(client, family):
    here = [key(r) for r in hrf.check_many(family, MODELS, workers=1, identify=True)]
    there = [key(r) for r in hrf.check_many(family, MODELS, scheduler=client, identify=True)]
    assert there == here
    assert len(here) == len(family) * len(MODELS)
    assert any(k[-1] and "bad" in k[0] for k in here)  # the broken file is an error row, there as here


def test_witnesses_of_a_cluster_result_are_built_here(client):
    (r,) = hrf.check_many(["litmus/hrf/hrf14-fig6.litmus"], ["hrf-direct"], scheduler=client)
    assert r.racy and r.flags and r.flags[0]["events"]


class KillOne:
    """A progress bar that, once `after` rows are in, kills one worker
    process with SIGKILL (as the kernel's OOM killer would)."""

    def __init__(self, client, after):
        self.client, self.after, self.total, self.killed = client, after, 0, None

    def update(self, done, force=False):
        if self.killed is None and done >= self.after:
            pid = sorted(self.client.run(os.getpid).values())[0]
            os.kill(pid, signal.SIGKILL)
            self.killed = pid

    def close(self):
        pass


def test_a_worker_killed_mid_run_loses_nothing(client, family, tmp_path):
    expected = {key(r)[:4] for r in hrf.check_many(family, MODELS, workers=1)}
    db = tmp_path / "runs.sqlite"
    kill = KillOne(client, after=60)
    with Store(db) as st:
        s = bulk_run(family, MODELS, store=st, scheduler=client, progress=kill)
        assert kill.killed is not None and not s.interrupted
        assert s.done == len(family) * len(MODELS)
        rows = [r for run, _ in st.runs() for r in st.rows(run)]
    # the pid is gone: the nanny started a new worker process in its place
    assert kill.killed not in client.run(os.getpid).values()
    # each (test, model) once, with the verdicts this process gives
    seen = [(r["path"], r["model"]) for r in rows]
    assert len(seen) == len(set(seen)) == len(family) * len(MODELS)

    def b(x):
        return None if x is None else bool(x)

    got = {(r["path"], r["model"], b(r["condition_holds"]), b(r["racy"])) for r in rows}
    assert got == expected


def test_a_test_that_kills_every_worker_is_an_error_row(client, family):
    boom = copy.copy(get("sc"))
    boom.name = "sc-boom"
    target = family[7]

    # Dies with the worker that checks `target` (cloudpickle carries the function to the workers).
    doomed = hrf.parse(target).name

    def supports(t):
        if t.name == doomed:
            os._exit(3)

    boom._supports = supports
    rows = list(check_on_cluster(family[:20], [boom], client, hrf.Limits(), slice_size=10))
    assert [r.path or r.name for r in rows] == family[:20]
    (dead,) = [r for r in rows if r.error is not None]
    assert dead.path == target and "died each time" in str(dead.error)
    assert all(r.condition_holds is not None for r in rows if r is not dead)


def test_unreachable_scheduler_and_bad_local_are_clear_errors():
    with pytest.raises(ClusterError, match="local:N takes a number"):
        list(hrf.check_many(["litmus/hrf/hrf14-fig6.litmus"], ["sc"], scheduler="local:zero"))
    with pytest.raises(ClusterError, match="cannot read this scheduler file: No such file"):
        list(hrf.check_many(["litmus/hrf/hrf14-fig6.litmus"], ["sc"], scheduler="/nonexistent/sched.json"))
    with pytest.raises(hrf.errors.InvalidArgument, match="not both"):
        list(hrf.check_many(["litmus/hrf/hrf14-fig6.litmus"], ["sc"], scheduler="local:1", workers=2))


def test_bulk_command_on_a_local_cluster_resumes_from_its_store(tmp_path, family):
    import subprocess
    import sys

    db = str(tmp_path / "runs.sqlite")
    cmd = [sys.executable, "-m", "hrf", "bulk", *family[:40], "-m", "sc", "--db", db, "--no-progress"]
    first = subprocess.run([*cmd, "--scheduler", "local:2"], capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    assert "40 checks" in first.stdout
    again = subprocess.run([*cmd, "--scheduler", "local:2"], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "0 checks" in again.stdout and "40 tests already there" in again.stdout
    both = subprocess.run([*cmd, "--scheduler", "local:2", "--workers", "2"], capture_output=True, text=True)
    assert both.returncode == 2 and "not both" in both.stderr


def test_errors_keep_their_type_from_workers_with_distributed_imported(tmp_path):
    # Importing distributed makes pickle carry tracebacks (tblib); a worker's
    # error must still arrive as itself, not as text in an HrfError.
    bad = tmp_path / "bad.litmus"
    bad.write_text("OPENCL bad\n{ [x]=0; }\nP0 (global int* x) { *x = }\nexists (x=1)\n")
    rows = list(hrf.check_many([str(bad)] * 4, ["sc"], workers=2, processes=True))
    assert all(type(r.error) is hrf.errors.LitmusSyntaxError and r.error.line == 3 for r in rows)
