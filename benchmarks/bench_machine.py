"""Machine explorer figures (issue: the GPU machine): states per second per
core, bytes per stored state, and the speed-up from 1 to 2 threads, on the
RSP tests compiled with rsp-new; then the soundness verdicts that take too
long for the test suite. Run by hand: `python benchmarks/bench_machine.py`.
Aim: >= 2M states/s/core, <= 100 bytes per state, >= 1.8x on 2 cores."""
import sys
import time
from pathlib import Path

import hrf
from hrf.machine import explore
from hrf.mappings import compile_scheme

REF = Path(__file__).resolve().parent.parent.parent / "shared/reference/rsp"
TESTS = ["RSP_Test1", "RSP_Test5", "RSP_Test6", "RSP_Test11", "WSQ1"]


def main():
    print(f"{'test':<12} {'wb':<5} {'states':>9} {'1 thr s':>8} {'st/s/core':>10} {'2 thr s':>8} {'speed-up':>8} {'B/state':>8}")
    tot = {1: 0.0, 2: 0.0}
    states = 0
    for name in TESTS:
        prog = compile_scheme(REF / f"{name}.litmus", "rsp-new")
        for wb in ("fifo", "any"):
            r1 = explore(prog, writeback=wb, workers=1, deadlocks=False)
            r2 = explore(prog, writeback=wb, workers=2, deadlocks=False)
            tot[1] += r1.seconds
            tot[2] += r2.seconds
            states += r1.states
            print(f"{name:<12} {wb:<5} {r1.states:>9} {r1.seconds:>8.3f} {r1.states / r1.seconds:>10.0f} "
                  f"{r2.seconds:>8.3f} {r1.seconds / r2.seconds:>8.2f} {r1.bytes_per_state:>8.1f}")
    print(f"total: {states} states, 1 thread {tot[1]:.2f} s ({states / tot[1]:.0f} states/s), "
          f"2 threads {tot[2]:.2f} s, speed-up {tot[1] / tot[2]:.2f}x")
    if "--long" in sys.argv:
        for f, scheme, model in [(REF / "RSP_Test8.litmus", "rsp-new", None),
                                 ("litmus/hrf/004-fig2.litmus", "hrf-cache", "hrf-direct"),
                                 ("litmus/hrf/002-fig10-sc.litmus", "hrf-cache", "hrf-indirect")]:
            t = time.time()
            r = hrf.soundness(f, scheme, model, max_seconds=900)
            print(r.to_text().splitlines()[0], f"({time.time() - t:.0f} s)")


if __name__ == "__main__":
    main()
