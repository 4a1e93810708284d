"""Families of message-passing tests over sm_90's synchronisation edges,
in hrf's PTX dialect (`hrf generate --dialect ptx --sync ...`): a producer
writes data and signals, a consumer observes the signal and reads the
data, for every choice of

- the signal (`--sync`): an mbarrier (`mbarrier`: arrive / wait), its
  second phase (`mbarrier-phase`: the producer writes the data, then its
  first arrive, relaxed, completes phase 0 and its second phase 1; the
  consumer waits for phase 0, then phase 1, each wait retried until it
  returns true), the
  cluster barrier (`cluster-barrier`: arrive / wait), a flag in
  distributed shared memory (`dsmem`: store / load), a bulk copy of the
  data through the async proxy completing on an mbarrier (`bulk`), or
  sm_80's `cp.async` of the data into the consumer's CTA, then an
  mbarrier arrive (`cp-async`), or a bulk copy of the data from the
  producer's shared memory to global memory (a TMA store) completed
  through a bulk async-group, then a flag (`bulk-group`);
- its strength on each side: release or relaxed (a relaxed one after a
  `fence.acq_rel` too, where the ISA has that pattern), acquire or relaxed;
- its scope (`.cta`, `.cluster`) where the instruction takes one;
- where the two threads run: one CTA, or two CTAs of one cluster;
- where the data lies: global memory or the consumer's shared memory
  (for `bulk`: what fence orders the producer's generic write of the
  copy's source with the copy's async-proxy read; for `cp-async`: how the
  producer completes the copy before it arrives, if it does: no wait,
  `wait_all`, a commit and `wait_group 0`, `wait_group 0` with no commit,
  or the mbarrier tracking it, `cp.async.mbarrier.arrive` with or
  without `.noinc`; for `bulk-group`: how the producer completes the
  copy before its flag: no wait, `wait_group 0`, `wait_group.read 0`, a
  wait with no commit, or a wait with no proxy fence before the copy).

Each test asks whether the consumer can see the signal and not the data.
The verdicts are the model's; the hand-derived family `litmus/ptx8/` and
the properties of the generated one (stronger never allows more) are
checked in tests/test_ptx8.py.
"""

from __future__ import annotations

import itertools

from .errors import InvalidArgument

SYNCS = ("mbarrier", "mbarrier-phase", "cluster-barrier", "dsmem", "bulk", "cp-async", "bulk-group")
PLACES = {
    "cta": "P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0",
    "cluster": "P0@cta 1,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0",
}


def _test(name: str, doc: str, init: list, p0: list, p1: list, place: str, cond: str, regs: str) -> str:
    rows = itertools.zip_longest(p0, p1, fillvalue="")
    body = "\n".join(f" {a} | {b} ;" for a, b in rows)
    return f'PTX {name}\n"{doc}"\n{{\n{" ".join(init)}\n{regs}\n}}\n {PLACES[place]} ;\n{body}\nexists\n({cond})\n'


def _space(place: str) -> str:
    """How the producer names the consumer's shared memory."""
    return "shared::cta" if place == "cta" else "shared::cluster"


def _data(where: str, place: str) -> tuple[list, str, str]:
    """(init, the producer's write, the consumer's read) of the data x."""
    if where == "global":
        return ["x=0;"], "st.weak x, 1", "ld.weak r1, x"
    return ["x @ shared P1 = 0;"], f"st.{_space(place)}.weak [x], 1", "ld.shared::cta.weak r1, [x]"


def _mbarrier(place, where, rel, acq, scope) -> tuple:
    init, write, read = _data(where, place)
    arrive = f"mbarrier.arrive.{rel}.{scope}.{_space(place)}.b64 _, [b]"
    wait = f"mbarrier.test_wait.parity.{acq}.{scope}.shared::cta.b64 r0, [b], 0"
    return (
        init + ["b @ mbarrier P1 = 1;"],
        [write, arrive],
        [wait, read],
        "P1:r0 == 1 /\\ P1:r1 == 0",
        "P1:r0=0; P1:r1=0;",
    )


def _mbarrier_phase(place, where, rel, acq, scope) -> tuple:
    init, write, read = _data(where, place)
    arrive = f"mbarrier.{{}}.{scope}.{_space(place)}.b64 _, [b]"
    # the consumer's wait on phase 0 is what the ISA asks of each phase before an arrive in the next:
    # an execution that ends has it before the producer's second arrive (after it, it never returns true)
    p1 = [
        "LC10:",
        f"mbarrier.try_wait.parity.relaxed.{scope}.shared::cta.b64 r0, [b], 0",
        "bne r0, 1, LC10",
        "LC11:",
        f"mbarrier.try_wait.parity.{acq}.{scope}.shared::cta.b64 r2, [b], 1",
        "bne r2, 1, LC11",
        read,
    ]
    # (the data before the first arrive, which is relaxed: ptxas would move a weak store after
    # that arrive above it, and the second arrive releases the data either way)
    p0 = [write, arrive.format("arrive.relaxed"), arrive.format(f"arrive.{rel}")]
    return init + ["b @ mbarrier P1 = 1;"], p0, p1, "P1:r1 == 0", "P1:r0=0; P1:r1=0; P1:r2=0;"


def _cluster_barrier(place, where, rel, acq, scope) -> tuple:
    init, write, read = _data(where, place)
    arrive = {
        "release": ["barrier.cluster.arrive.release"],
        "relaxed": ["barrier.cluster.arrive.relaxed"],
        "fence": ["fence.acq_rel.cluster", "barrier.cluster.arrive.relaxed"],
    }[rel]
    p0 = [write, *arrive, "barrier.cluster.wait.acquire"]
    p1 = ["barrier.cluster.arrive.relaxed", "barrier.cluster.wait.acquire", read]
    return init, p0, p1, "P1:r1 == 0", "P1:r1=0;"


def _dsmem(place, where, rel, acq, scope) -> tuple:
    init, write, read = _data(where, place)
    p0 = [write, f"st.{rel}.{scope}.{_space(place)} [f], 1"]
    p1 = [f"ld.{acq}.{scope}.shared::cta r0, [f]", read]
    return init + ["f @ shared P1 = 0;"], p0, p1, "P1:r0 == 1 /\\ P1:r1 == 0", "P1:r0=0; P1:r1=0;"


def _bulk(place, fence, rel, acq, scope) -> tuple:
    fences = {"none": [], "async": ["fence.proxy.async"], "global": ["fence.proxy.async.global"]}[fence]
    copy = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [d], [g], 16, [b]"
    arrive = f"mbarrier.arrive.expect_tx.{rel}.{scope}.{_space(place)}.b64 _, [b], 16"
    p0 = ["st.weak g, 1", *fences, arrive, copy]
    p1 = [f"mbarrier.try_wait.parity.{acq}.{scope}.shared::cta.b64 r0, [b], 0", "ld.shared::cta.weak r1, [d]"]
    init = ["g=0;", "d @ shared P1 = 0;", "b @ mbarrier P1 = 1;"]
    return init, p0, p1, "P1:r0 == 1 /\\ P1:r1 == 0", "P1:r0=0; P1:r1=0;"


# how a cp.async's producer completes the copy before its arrive: the instructions, the mbarrier's count
CP_ASYNC_COMPLETION = {
    "none": ([], 1),
    "wait-all": (["cp.async.wait_all"], 1),
    "wait-group": (["cp.async.commit_group", "cp.async.wait_group 0"], 1),
    "uncommitted": (["cp.async.wait_group 0"], 1),
    "mbarrier": (["cp.async.mbarrier.arrive.shared::cta.b64 [b]"], 1),  # an increment, then the arrive-on
    "mbarrier-noinc": (["cp.async.mbarrier.arrive.noinc.shared::cta.b64 [b]"], 2),  # the arrive-on: one arrival
}


def _cp_async(place, completion, rel, acq, scope) -> tuple:
    done, count = CP_ASYNC_COMPLETION[completion]
    p0 = ["cp.async.ca.shared.global [d], [g], 4", *done, f"mbarrier.arrive.{rel}.{scope}.shared::cta.b64 _, [b]"]
    p1 = [f"mbarrier.try_wait.parity.{acq}.{scope}.shared::cta.b64 r0, [b], 0", "ld.shared::cta.weak r1, [d]"]
    init = ["g=1;", "d @ shared P1 = 0;", f"b @ mbarrier P1 = {count};"]
    return init, p0, p1, "P1:r0 == 1 /\\ P1:r1 == 0", "P1:r0=0; P1:r1=0;"


# how a bulk_group copy's producer completes it before its flag: the instructions after the copy,
# and whether fence.proxy.async.shared::cta orders the generic write of its source before it
BULK_GROUP_COMPLETION = {
    "none": (["cp.async.bulk.commit_group"], True),
    "wait": (["cp.async.bulk.commit_group", "cp.async.bulk.wait_group 0"], True),
    "wait-read": (["cp.async.bulk.commit_group", "cp.async.bulk.wait_group.read 0"], True),
    "uncommitted": (["cp.async.bulk.wait_group 0"], True),
    "no-fence": (["cp.async.bulk.commit_group", "cp.async.bulk.wait_group 0"], False),
}


def _bulk_group(place, completion, rel, acq, scope) -> tuple:
    done, fence = BULK_GROUP_COMPLETION[completion]
    copy = "cp.async.bulk.global.shared::cta.bulk_group [x], [s], 16"
    p0 = ["st.shared::cta.weak [s], 1", *(["fence.proxy.async.shared::cta"] if fence else []), copy, *done]
    p0.append(f"st.{rel}.{scope} f, 1")
    p1 = [f"ld.{acq}.{scope} r0, f", "ld.weak r1, x"]
    init = ["x=0;", "f=0;", "s @ shared P0 = 0;"]
    return init, p0, p1, "P1:r0 == 1 /\\ P1:r1 == 0", "P1:r0=0; P1:r1=0;"


# per signal: its builder, the producer's strengths, the consumer's, the scopes, the data's places
KINDS = {
    "mbarrier": (_mbarrier, ("release", "relaxed"), ("acquire", "relaxed"), ("cta", "cluster"), ("global", "shared")),
    "mbarrier-phase": (
        _mbarrier_phase,
        ("release", "relaxed"),
        ("acquire", "relaxed"),
        ("cta", "cluster"),
        ("global", "shared"),
    ),
    "cluster-barrier": (
        _cluster_barrier,
        ("release", "relaxed", "fence"),
        ("acquire",),
        ("cluster",),
        ("global", "shared"),
    ),
    "dsmem": (_dsmem, ("release", "relaxed"), ("acquire", "relaxed"), ("cta", "cluster"), ("global", "shared")),
    "bulk": (_bulk, ("release", "relaxed"), ("acquire", "relaxed"), ("cta", "cluster"), ("none", "async", "global")),
    "cp-async": (
        _cp_async,
        ("release", "relaxed"),
        ("acquire", "relaxed"),
        ("cta", "cluster"),
        tuple(CP_ASYNC_COMPLETION),
    ),
    "bulk-group": (
        _bulk_group,
        ("release", "relaxed"),
        ("acquire", "relaxed"),
        ("cta", "cluster"),
        tuple(BULK_GROUP_COMPLETION),
    ),
}


def _data_words(sync: str, where: str) -> str:
    if sync == "bulk":
        return f"copied (fence: {where})"
    if sync in ("cp-async", "bulk-group"):
        return f"copied (completion: {where})"
    return where


def sync_family(syncs) -> list[tuple[str, str]]:
    """(name, litmus text) of every test of the family over the signals named."""
    unknown = [s for s in syncs if s not in SYNCS]
    if unknown:
        raise InvalidArgument(f"--sync {','.join(unknown)}: unknown (known: {', '.join(SYNCS)})")
    out = []
    for sync in syncs:
        build, rels, acqs, scopes, wheres = KINDS[sync]
        for place, where, rel, acq, scope in itertools.product(PLACES, wheres, rels, acqs, scopes):
            if sync == "cluster-barrier" and place == "cta":
                continue  # one CTA: the cluster barrier of a cluster of one (the CTA barrier's job)
            if sync == "cp-async" and place == "cluster":
                continue  # a cp.async writes the shared memory of its own CTA alone
            init, p0, p1, cond, regs = build(place, where, rel, acq, scope)
            name = f"MP+{sync}+{rel}+{acq}+{scope}+{where}+{place}"
            doc = (
                f"Message passing through {sync}: {rel} signal, {acq} observation at {scope} scope, "
                f"data {_data_words(sync, where)}, threads in one {place}"
            )
            out.append((name, _test(name, doc, init, p0, p1, place, cond, regs)))
    return out
