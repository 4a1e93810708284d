"""Scaling with the cores: bulk checking and the machine explorer at 1, 2,
4, ... workers up to this machine's cores, each rate and its speed-up over
1 worker, and the CPU time the coordinating process spends per check
(`parent: N us per check`: what stops bulk from scaling when it grows).

- `check_many`: `--count` generated tests x 2 models, verdicts only (as
  `hrf bulk` runs them), results collected in a list;
- `hrf bulk` (`hrf.bulk.run`): the same tests as files, rows written as
  JSON lines, and with `--db` into a results store as well (a fresh one per
  run: nothing is skipped);
- the explorer: RSP_Test9 compiled with rsp-new, writeback fifo, cut at
  `--states` states (11.3 M on the 16-core machine for docs/speed.md).

Aims (issue of record: docs/speed.md): on 2 cores the parent under 10 us
per check and 1 -> 2 workers at least 1.9x; on 16 cores at least 12x for
bulk and for the explorer over 10 M states.
Run by hand: `python benchmarks/bench_scale.py [--count N] [--db]
[--states N] [--rsp DIR] [--workers 1,2,4]`."""

from __future__ import annotations

import argparse
import io
import os
import resource
import tempfile
import time
from pathlib import Path

import hrf
from hrf import bulk
from hrf.generate import write_tests
from hrf.machine import explore
from hrf.mappings import compile_scheme
from hrf.store import Store

MODELS = ["hrf-direct", "hrf-indirect"]
PHASES = ("expand", "enter", "store")  # the explorer's per-layer phases (ExploreOut's phase_seconds)
RSP = Path(__file__).resolve().parent.parent.parent / "shared/reference/rsp"


def parent_cpu() -> float:
    """CPU seconds of this process alone (its worker processes not counted)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def fork_ms(tries: int = 3) -> float:
    """Milliseconds a fork of this process takes (the best of `tries`)."""
    best = float("inf")
    for _ in range(tries):
        t = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        best = min(best, time.perf_counter() - t)
        os.waitpid(pid, 0)
    return best * 1e3


def counts(top: int) -> list[int]:
    out, w = [], 1
    while w < top:
        out.append(w)
        w *= 2
    return [*out, top]


def all_cpu() -> float:
    """CPU seconds of this process and of its ended child processes."""
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return parent_cpu() + c.ru_utime + c.ru_stime


def timed(work) -> tuple[float, float, int, float]:
    """(wall seconds, parent CPU seconds, checks, CPU seconds of all its
    processes, the parent's and its workers') of `work()`."""
    c0, a0, t0 = parent_cpu(), all_cpu(), time.perf_counter()
    n = work()
    return time.perf_counter() - t0, parent_cpu() - c0, n, all_cpu() - a0


def table(title: str, unit: str, rows: list) -> None:
    """Rows (workers, seconds, parent CPU s, units, CPU s of all). Where a
    speed-up falls short of the workers, the last two columns say why:
    `CPU us/unit` rising with the workers is work each core does slower
    (a lower clock with every core busy, shared caches and memory, a
    core's second hardware thread), `busy` under 100% is cores left idle
    (work not spread, or waiting on the parent)."""
    print(f"\n{title}")
    print(
        f"{'workers':>7} {'seconds':>8} {unit + '/s':>12} {'speed-up':>8} {'parent us/' + unit[:-1]:>16}"
        f" {'CPU us/' + unit[:-1]:>13} {'busy':>6}"
    )
    base = rows[0][3] / rows[0][1]  # (speed-ups compare rates: a row may have checked fewer, --one-every)
    for w, dt, cpu, n, total in rows:
        own = "-" if cpu is None or w == 1 else f"{cpu / n * 1e6:.1f}"  # (1 worker: all of the work is its own)
        print(
            f"{w:>7} {dt:>8.2f} {n / dt:>12.0f} {n / dt / base:>7.2f}x {own:>16}"
            f" {total / n * 1e6:>13.2f} {total / dt / w:>6.0%}"
        )


def _copy(size: int, rounds: int, start, q) -> None:
    import numpy as np

    a, b = np.ones(size // 8), np.zeros(size // 8)
    np.copyto(b, a)  # pages touched before the clock starts
    start.wait()
    t = time.perf_counter()
    for _ in range(rounds):
        np.copyto(b, a)
    q.put(time.perf_counter() - t)


def bandwidth(ws: list[int], size: int = 256 << 20, rounds: int = 8, tries: int = 3) -> None:
    """The machine's memory copy bandwidth with 1, 2, ... processes copying
    at once (each its own `size`-byte arrays; the best of `tries`): the
    ceiling of a speed-up of work that moves as many bytes as it computes,
    as the explorer does."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("\nmemory bandwidth: skipped (no numpy)")
        return
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    print(f"\nmemory copy bandwidth ({size >> 20} MiB arrays, {rounds} copies per process, best of {tries})")
    print(f"{'workers':>7} {'GB/s':>8} {'speed-up':>8}")
    best: dict[int, float] = {}
    for _ in range(tries):
        for w in ws:
            start, q = ctx.Barrier(w), ctx.Queue()
            procs = [ctx.Process(target=_copy, args=(size, rounds, start, q)) for _ in range(w)]
            for p in procs:
                p.start()
            slowest = max(q.get() for _ in procs)
            for p in procs:
                p.join()
            best[w] = max(best.get(w, 0.0), w * size * rounds / slowest / 1e9)
    for w in ws:
        print(f"{w:>7} {best[w]:>8.1f} {best[w] / best[ws[0]]:>7.2f}x")


def bulk_figures(a, ws: list[int]) -> float:
    """check_many and hrf bulk at each worker count; the parent's CPU
    microseconds per check (check_many at the most workers)."""
    # up to 6 edges and 4 threads (as bench_store.py): a family of over
    # 100,000 tests (up to 5 and 3: 13,608)
    tests = hrf.generate(count=a.count, seed=1, max_edges=6, max_threads=4)
    if len(tests) < a.count:
        print(f"\n(the generated family holds {len(tests)} tests, not the {a.count} asked)")
    limits = hrf.Limits(witnesses=False)

    def some(xs: list, w: int) -> list:
        # 1 worker takes every --one-every-th test only (a sample across the
        # family, not its small first tests): its rate, in a shorter time
        return xs[:: a.one_every] if w == 1 else xs

    if a.one_every > 1:
        print(f"\n(1 worker checks one test in {a.one_every}; speed-ups compare rates)")
    if hasattr(os, "fork"):
        # check_many forks its workers one after another from the process
        # that holds the tests, each fork copying its page tables: what the
        # last of many workers waits before it starts
        ms = fork_ms()
        print(
            f"\na fork of this process (holding the tests): {ms:.1f} ms; {ws[-1]} workers start over {(ws[-1] - 1) * ms:.0f} ms"
        )
    rows = []
    for w in ws:
        rows.append(
            (w, *timed(lambda w=w: len(list(hrf.check_many(some(tests, w), MODELS, workers=w, limits=limits)))))
        )
    table(f"check_many: {len(tests)} tests x {len(MODELS)} models", "checks", rows)
    parent = rows[-1][2] / rows[-1][3] * 1e6 if len(rows) > 1 else float("nan")

    with tempfile.TemporaryDirectory() as d:
        paths = write_tests(tests, os.path.join(d, "tests"))
        for store in (False, True) if a.db else (False,):
            rows = []
            writer: list = []  # the store writer's CPU seconds per run (a process of its own)
            for w in ws:

                def work(w=w, store=store, writer=writer) -> int:
                    db = Store(os.path.join(d, f"s{w}-{time.monotonic_ns()}.db")) if store else None
                    try:
                        summary = bulk.run(some(paths, w), MODELS, out=io.StringIO(), workers=w, store=db)
                        writer.append(summary.writer_seconds)
                        return summary.done
                    finally:
                        if db is not None:
                            db.close()

                dt, cpu, n, total = timed(work)
                rows.append((w, dt, cpu, n, total - (writer[-1] or 0.0)))  # the writer's apart (below)
            table(f"hrf bulk{' --db' if store else ''}: {len(paths)} files x {len(MODELS)} models", "checks", rows)
            if len(rows) > 1:
                print(
                    f"parent (hrf bulk{' --db' if store else ''}): {rows[-1][2] / rows[-1][3] * 1e6:.1f} us per check"
                )
            if store and writer[-1] is not None:
                print(f"store writer (a process of its own): {writer[-1] / rows[-1][3] * 1e6:.1f} us per check")
    return parent


def explorer_figures(a, ws: list[int]) -> None:
    """The explorer at each worker count, phase by phase."""
    prog = compile_scheme(Path(a.rsp) / "RSP_Test9.litmus", "rsp-new")
    # The first run in a process also starts the thread pool, and every
    # run takes its pages from the system (the core gives an exploration's
    # memory back after it, as a user's single run ends): one run first,
    # shown apart; then the best of `--repeat` runs at each worker count
    # (the counts alternating, so that a slow spell of a shared machine
    # falls on all of them).
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    first = explore(prog, writeback="fifo", workers=ws[-1], deadlocks=False, max_states=a.states)
    kernel = resource.getrusage(resource.RUSAGE_SELF).ru_stime - r0.ru_stime
    print(
        f"\nexplorer, first run in the process at {ws[-1]} workers: {first.seconds:.2f} s, "
        f"of which the kernel {kernel:.2f} CPU s (fresh pages), {first.bytes_per_state:.0f} bytes per state"
    )
    best: dict = {}
    for _ in range(a.repeat):
        for w in ws:
            r0 = resource.getrusage(resource.RUSAGE_SELF)
            r = explore(prog, writeback="fifo", workers=w, deadlocks=False, max_states=a.states)
            r1 = resource.getrusage(resource.RUSAGE_SELF)
            if w not in best or r.seconds < best[w][0].seconds:
                cpu = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime  # all its threads
                best[w] = (r, r1.ru_stime - r0.ru_stime, r1.ru_minflt - r0.ru_minflt, cpu)
    rows = [(w, best[w][0].seconds, None, best[w][0].states, best[w][3]) for w in ws]
    table(f"explorer: RSP_Test9 under rsp-new, fifo, cut at {a.states} states", "states", rows)
    # where a worker count's time goes, phase by phase (which one stops
    # scaling); the kernel's share (system CPU seconds, all threads: mostly
    # fresh pages zeroed for the arena and the visited set) and page faults
    print(
        f"{'workers':>7} "
        + " ".join(f"{p:>10}" for p in PHASES)
        + f" {'kernel s':>8} {'faults':>8}  (seconds; speed-up over 1 worker)"
    )
    for w in ws:
        ph, base = best[w][0].phases, best[ws[0]][0].phases
        cells = [f"{ph.get(p, 0):5.2f} {base.get(p, 0) / ph[p] if ph.get(p) else 0:>3.1f}x" for p in PHASES]
        print(f"{w:>7} " + " ".join(f"{c:>10}" for c in cells) + f" {best[w][1]:>8.2f} {best[w][2]:>8}")
    # Amdahl's law: the work done on one thread between the parallel parts
    # (`serial`) bounds the speed-up at any number of workers
    one = best[ws[0]][0]
    share = one.phases.get("serial", 0) / one.seconds
    bound = 1 / (share + (1 - share) / 16)
    print(f"serial: {share:.2%} of 1 worker's time ({one.phases.get('serial', 0):.3f} s): at most {bound:.1f}x on 16")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=10_000, help="generated tests (each checked under 2 models)")
    ap.add_argument("--workers", default=None, help="worker counts, comma-separated (default 1, 2, 4, ... cores)")
    ap.add_argument("--db", action="store_true", help="also time hrf bulk writing a results store")
    ap.add_argument("--states", type=int, default=3_000_000, help="the explorer's cut (states)")
    ap.add_argument("--rsp", default=str(RSP), help="folder holding RSP_Test9.litmus ([RSP15]'s tests)")
    ap.add_argument("--repeat", type=int, default=2, help="explorer runs per worker count (the best is shown)")
    ap.add_argument("--skip-explore", action="store_true")
    ap.add_argument("--one-every", type=int, default=1, help="1 worker checks every N-th test only (its rate)")
    ap.add_argument("--bandwidth", action="store_true", help="also the memory copy bandwidth per worker count (numpy)")
    a = ap.parse_args()
    cores = os.cpu_count() or 1
    ws = [int(x) for x in a.workers.split(",")] if a.workers else counts(cores)
    print(f"{cores} cores; workers {ws}")

    # the explorer first: on a machine lent for a few minutes, what the
    # earlier runs did not show comes first
    if not a.skip_explore:
        explorer_figures(a, ws)
    if a.bandwidth:
        bandwidth(ws)
    parent = bulk_figures(a, ws)
    # the line watched where CI runs (2 cores): check_many's parent at the most workers
    print(f"parent: {parent:.1f} us per check")


if __name__ == "__main__":
    main()
