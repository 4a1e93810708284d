"""`hrf-cache`: the HRF papers' example implementation ([HRF14] sec. 3.2, also
[HRFR15] Fig. 11): "(1) on a release event, flushing dirty data from any
cache/memory that are not visible to all threads in the scope of
synchronization, (2) on an acquire event, invalidating the now-stale data
from caches/memories that are not visible to all threads in the scope of
synchronization, and (3) completing all atomic operations in the
cache/memory corresponding to the scope of the atomic."

On the machine: the L1 is the work-group's cache, the L2 the device's.
Work-group-scope atomics need no flush or invalidate (the sub-group write
buffers of the paper are not modelled) and run at the L1; device-scope
atomics run at the L2: a load invalidates the L1 first (so that it reads
what L2 holds) and after (acquire), a store flushes before (release) and
after (to perform it at L2), an RMW flushes, runs at L2, invalidates.
The source models are the HRF ones: no remote operations.
"""

from .scheme import LOCKED_DEVICE_RMW, LOCKED_WORK_GROUP_RMW, Row, Scheme

_P = "[HRF14] sec. 3.2"

SCHEME = Scheme(
    name="hrf-cache",
    description="the HRF example implementation: scoped flush/invalidate ([HRF14] sec. 3.2)",
    model="hrf-indirect",
    rows={
        ("load", "na", False): Row(("LD",), f"{_P}: data accesses use the caches"),
        ("store", "na", False): Row(("ST",), f"{_P}: data accesses use the caches"),
        ("load", "wg", False): Row(("LD",), f"{_P} (3): at the L1, the work-group's cache"),
        ("store", "wg", False): Row(("ST",), f"{_P} (3): at the L1"),
        ("rmw", "wg", False): Row(("RMWL1",), f"{_P} (3): at the L1"),
        ("load", "dev", False): Row(("INVL1 WG", "LD", "INVL1 WG"), f"{_P} (3) read at L2, (2) acquire invalidates L1"),
        ("store", "dev", False): Row(("FLUL1 WG", "ST", "FLUL1 WG"), f"{_P} (1) release flushes L1, (3) written to L2"),
        ("rmw", "dev", False): Row(("FLUL1 WG", "RMWL2", "INVL1 WG"), f"{_P} (1)-(3): 'performed entirely in the L2'"),
    },
)

# [HRFR15] Theorem B.4 repaired. Fig. 11 performs a device-scope RMW at the
# L2 and a work-group-scope RMW at the L1 with nothing between them: under
# HRF-relaxed's scope inclusion the two are in each other's scope and do
# not conflict, and the L1's line, written back after, overwrites the
# device RMW's increment (x = 1 where RMW atomicity asks x = 2:
# litmus/rsp/rmw-dev-vs-wg.litmus, tests/test_soundness.py). The repair, as
# rsp-new's: every work-group RMW runs under its work-group's rmw lock, and
# so does the device RMW, flush and invalidate included.
LOCKED = Scheme(
    name="hrf-cache-locked",
    description="hrf-cache with its RMWs under the work-group's rmw lock ([HRFR15] Theorem B.4 repaired)",
    model="hrf-indirect",
    rows={
        **SCHEME.rows,
        ("rmw", "wg", False): Row(LOCKED_WORK_GROUP_RMW, f"{_P} (3) at the L1; repair: under the rmw lock"),
        ("rmw", "dev", False): Row(
            LOCKED_DEVICE_RMW,
            f"{_P} (1)-(3) at the L2; repair: under the work-group's rmw lock (rmw-dev-vs-wg)",
        ),
    },
)
