"""The PTX memory model of PTX ISA 8.0 (sm_90, Hopper): PTX 7.5's model as
the ISA states it (`ptx-7.5`: [PTX19]'s axioms with [PTX22]'s proxies)
with what the 8.0 ISA adds to its memory consistency model and to the
instructions that synchronise:

- the cluster scope (`.cluster`, between CTA and GPU) and the shared
  memory of a CTA, reached from the other CTAs of its cluster
  (`.shared::cluster`, distributed shared memory);
- the async proxy among the proxies ("Async proxy"): bulk copies read
  and write through it, and `fence.proxy.async` orders an access through
  the generic proxy with one through the async proxy, in the state space
  it names;
- mbarriers ("Parallel Synchronization and Communication Instructions:
  mbarrier"): an arrive with `.release` is a release at its scope, a wait
  with `.acquire` that observes its phase's completion is an acquire at
  its scope, transaction counts complete a phase only when their bytes
  have arrived; a bulk copy's complete-tx is a release at `.cluster`
  scope, after the implicit generic-async proxy fence that follows its
  completion; the copy is asynchronous: program order puts its events
  after what its thread did before it, never before what the thread does
  after it (only its mbarrier says when it is done); and the complete-tx
  releases the copy's own operations alone, not what its thread did
  before the copy ("Asynchronous Operations", under program order);
- cluster barriers (`barrier.cluster.arrive.release` then
  `barrier.cluster.wait.acquire`): every arrive of a use of the barrier
  synchronises with every wait of that use, in the cluster; a relaxed
  arrive after a release fence of cluster scope or wider does too;
- `fence.mbarrier_init.release.cluster`: a release of the mbarrier.init
  before it alone, paired with a cluster barrier's wait;
- PTX ISA 8.6's one-way fences: `fence.release` begins a release
  pattern, `fence.acquire` ends an acquire pattern;
- bulk copies from the CTA's shared memory to global memory, completed
  through bulk async-groups ("Async-group mechanism",
  `cp.async.bulk.wait_group`): ordered as the other bulk copies until a
  `wait_group N` completes them (all but the N most recent groups): then
  their read, write and implicit proxy fence come before what the thread
  does after the wait; after `wait_group.read N` their read alone;
- bulk reductions (`cp.reduce.async.bulk`): a bulk copy whose write is an
  atomic reduction, relaxed at .gpu scope through the async proxy;
- `st.async` and `red.async` (PTX ISA 8.1): a weak store, or a reduction
  relaxed at .cluster scope, of a cluster's shared memory, asynchronous,
  its complete-tx a release of the store alone, as a bulk copy's;
- an mbarrier used before an initialisation it can see is undefined
  (`mbarrier_uninitialised`); so is an arrive-on in a phase after one that
  no wait returning true saw complete before it (`mbarrier_phase_unwaited`:
  "at least one test_wait or try_wait operation must be performed which
  returns True ... before an arrive-on operation in the subsequent phase");
  so is a wait on the state of an arrive older than the preceding phase
  (`mbarrier_wait_stale`); so is an `mbarrier.arrive.noComplete` that
  completes its phase (`mbarrier_nocomplete_completed`); so is reading a copy's destination, or
  writing its source, before the copy completes ("Completion Mechanisms
  for Asynchronous Copy Operations": `async_copy_incomplete`);
- sm_80's `cp.async` (PTX ISA 7.0, read here beside sm_90's forms): a
  weak read and a weak write through the generic proxy, ordered after
  what the thread did before it and before nothing it does after, nor
  with another copy ("Asynchronous Operations"), until a
  `cp.async.wait_group N` completes it (all but the N most recent
  cp.async-groups) or `cp.async.wait_all` does: then before what the
  thread does after the wait; `cp.async.mbarrier.arrive`'s arrive-on,
  asynchronous too, follows the thread's earlier copies alone and
  releases them (and nothing else) to a wait that acquires the phase's
  completion ("Mbarrier-based mechanism");
- copies multicast to several CTAs (`.multicast::cluster`): read by
  `litmus/ptx_hopper.py` as one bulk copy per CTA of the mask; a bulk
  copy's write into a CTA's shared memory, and its implicit proxy fence,
  are performed in that CTA's thread block (`fence.proxy`: ordering
  "limited only to operations performed on objects in the state space
  specified"), so a consumer's proxy fence orders its read before a
  refill another CTA multicasts into its memory; and the complete-tx on
  a CTA's mbarrier is performed in that CTA ("Mbarrier-based mechanism":
  a completed phase lets all threads participating in the mbarrier access
  the results), so a `.cta` wait there acquires it;
- sm_90a's `wgmma.mma_async` ("Asynchronous Warpgroup Level Matrix
  Multiply-Accumulate Instructions"): its reads of its matrices in shared
  memory are the async proxy's ("Async Proxy"), ordered after what its
  thread did before it (docs/readings.md reads the ISA's exception for
  wgmma as its registers') and before nothing it does after until a
  `wgmma.wait_group N` completes its wgmma-group, then the implicit
  generic-async proxy fence that follows its completion; an access to its
  accumulator or A register that no such wait precedes is undefined
  (`wgmma_register_unwaited`), as is a wgmma that no `wgmma.fence`
  precedes, or none after another access to its registers
  (`wgmma_unfenced`; accumulating across wgmmas needs none).

How the litmus syntax reads into events is `litmus/ptx_hopper.py`; each
place where the ISA's prose leaves a choice is a row of docs/readings.md.
"""

from __future__ import annotations

from ..dsl import IW, F, I, Model, R, W, dom, loc, po, ran, rf, rmw, same_event_attr, same_thread_attr
from ..dsl import tag as t
from ..litmus.ptx_hopper import WAIT_GROUPS, WGMMA_REGS
from .common import ACQ, ACQ_REL, QF_UP, REL, SC, same_scope, sync_fence, vloc
from .ptx_6_0 import (
    RED,
    axioms,
    mixed_sizes,
    morally_scoped,
    patterns,
    read_only_loads,
    strong_read,
    strong_write,
    supports,
    sync_barrier,
)
from .ptx_7_5 import PROXIES, proxies, proxy_preserved

ASYNC, MBAR, MBINIT, UNINIT, CLBAR = t("ASYNC"), t("MBAR"), t("MBINIT"), t("UNINIT"), t("CLBAR")
MBWAIT = t("MBWAIT")  # a wait's read, and on its success path its acquire
ARRIVE, GLOBAL, SHARED, BULK = t("ARRIVE"), t("global"), t("local"), t("BULK")  # shared memory: hrf's `local`


def union_of(rs: list):
    """The union of the relations `rs` (at least one)."""
    out = rs[0]
    for r in rs[1:]:
        out = out | r
    return out


def completed_by(copies, commit, wait: str):
    """A copy's event and a wait that completes it (`wait`n: a wait that leaves the n most
    recent async-groups pending): a copy with n + 1 commits between it and the wait is done
    ("Async-group mechanism": a commit groups the thread's earlier uncommitted copies)."""
    out = []
    for n in range(WAIT_GROUPS):
        r = I(copies)
        for _ in range(n + 1):
            r = r >> po >> I(commit)
        out.append(r >> po >> I(t(f"{wait}{n}")))
    return union_of(out)


# cp.async.bulk is asynchronous: its events (BULK: read, write, proxy fence, then for a copy
# completed through an mbarrier its complete-tx) are in program order after what the thread
# did before the copy, not before what it does after it, nor before a later copy's, but for
# what follows a bulk async-group's wait that completes it: `wait_group` its read, write and
# the implicit proxy fence ("writes being made visible to the executing thread"),
# `wait_group.read` its read alone ("completed ... the reading from their source locations")
BGROUP, BCOMMIT, STASYNC = t("BGROUP"), t("BCOMMIT"), t("STASYNC")
COPY_LAST = (BULK & MBAR & W) | (BULK & BGROUP & F)  # a bulk copy's last event
# a bulk copy's read of its source (a bulk reduction's write is an atomic operation of no read)
SOURCE_READ = BULK & R - MBAR - RED
bulk_done = completed_by(BULK & BGROUP, BCOMMIT, "BWAIT") | completed_by(BULK & BGROUP & SOURCE_READ, BCOMMIT, "BWAITR")
after_copy = ((I(BULK) >> po >> I(~BULK)) | (I(BULK) >> po.opt >> I(COPY_LAST) >> po >> I(BULK))) - (bulk_done >> po)
# a bulk_group copy's read, done before what follows a wait that completes it, whatever the proxy
read_done = I(BGROUP & SOURCE_READ) >> bulk_done >> po
# cp.async (sm_80): its read and write are ordered with each other, after what the thread did
# before, and with nothing after ("Asynchronous Operations") but what follows a wait that
# completes it, and the arrive-on of a later cp.async.mbarrier.arrive
CPREAD, CPWRITE, CPCOMMIT, CPINC, CPARRIVE = t("CPREAD"), t("CPWRITE"), t("CPCOMMIT"), t("CPINC"), t("CPARRIVE")
CPCOPY = CPREAD | CPWRITE
# a copy's read and its own write: the first copy write after the read, no other read between
copy_pair = (I(CPREAD) >> po >> I(CPWRITE)) - (I(CPREAD) >> po >> I(CPREAD) >> po >> I(CPWRITE))
completed = completed_by(CPCOPY, CPCOMMIT, "CPWAIT")
after_cp = (I(CPCOPY) >> po) - copy_pair - (completed >> po) - (I(CPCOPY) >> po >> I(CPARRIVE))
# cp.async.mbarrier.arrive's arrive-on: after the thread's earlier copies and its own increment
# alone, before nothing ("ordered with respect to the memory operations performed by all prior
# cp.async operations ... but not to those of any other instruction issued by the thread")
own_increment = (I(CPINC) >> po >> I(CPARRIVE)) - (I(CPINC) >> po >> I(CPARRIVE & W) >> po >> I(CPARRIVE))
around_arrive = ((I(~CPCOPY) >> po >> I(CPARRIVE)) - own_increment - rmw) | ((I(CPARRIVE) >> po) - rmw)
# wgmma.mma_async (WGOP: its reads through the async proxy, then the proxy fence after its
# completion) is ordered after what the thread did before it (docs/readings.md: the ISA's "except
# in the case of wgmma.mma_async" read as its registers', which wgmma.fence orders) and before
# nothing it does after, but its own fence and what follows a wgmma.wait_group that completes it
WGOP, WFENCE, WCOMMIT, WREGUSE = t("WGOP"), t("WFENCE"), t("WCOMMIT"), t("WREGUSE")
wgmma_done = completed_by(WGOP, WCOMMIT, "WWAIT")
own_wgmma_fence = (I(WGOP & R) >> po >> I(WGOP & F)) - (I(WGOP & R) >> po >> I(WGOP & F) >> po >> I(WGOP & F))
after_wgmma = (I(WGOP) >> po) - own_wgmma_fence - (wgmma_done >> po)
po_async = po - after_copy - after_cp - around_arrive - after_wgmma  # this model's program order, everywhere below
# the ISA's "Asynchronous Operations": the complete-tx "is ordered only with respect
# to the memory operations performed by the same asynchronous instruction", and "does
# not transitively establish ordering with respect to prior instructions"
COMPLETE_TX = BULK & MBAR & W
# the asynchronous releases: a bulk copy's complete-tx, cp.async.mbarrier.arrive's arrive-on (its write)
ASYNC_RELEASE = COMPLETE_TX | (CPARRIVE & W)
# what each releases: one bulk copy's events; the earlier copies and the instruction's own increment
released = (I(BULK) >> po_async >> I(COMPLETE_TX)) | (I(CPCOPY | CPINC | CPARRIVE) >> po_async >> I(CPARRIVE & W))
po_vloc = po_async & vloc
# an asynchronous copy's read of its source and write of its destination (not its mbarrier's)
# (st.async and red.async store no copy: reading their destination early is a race, no flag)
COPY_READ, COPY_WRITE = SOURCE_READ | CPREAD, (BULK & W - MBAR - STASYNC) | CPWRITE
# the thread block an operation is performed in: its thread's, but a bulk copy's write and its
# complete-tx, which are their destination's (the CTA whose shared memory the write reaches, the
# CTA of the mbarrier: docs/readings.md); scopes hold the operation where it is performed
cta = same_event_attr("wg")
same_proxy, morally_strong, observation, fence_ops = proxies(
    *PROXIES, ASYNC, cta=cta, ms1_=morally_scoped(same_scope(cta))
)
# a proxy fence naming a state space orders the accesses to that space alone ("fence.proxy.async.global")
proxy_fence_ops = fence_ops - (I(F & GLOBAL) >> fence_ops >> I(SHARED)) - (I(F & SHARED) >> fence_ops >> I(~SHARED))
# the arrives and the waits of one use of a cluster barrier, in one cluster
cluster_pairs = same_thread_attr("qf") & same_event_attr("bar") & ((CLBAR & ARRIVE) * (CLBAR - ARRIVE))
# a release arrive, or a relaxed one after a release fence of cluster scope or wider
# a release fence: fence.acq_rel, fence.sc, or PTX ISA 8.6's fence.release; not fence.mbarrier_init,
# nor a cluster barrier's arrive (an F event of its order: it synchronises with the waits alone)
release_fence = F & (ACQ_REL | SC | REL) - MBINIT - CLBAR
cluster_release = I(CLBAR & ARRIVE & REL) | (I(release_fence & QF_UP) >> po_async >> I(CLBAR & ARRIVE))
cluster_sync = cluster_release >> cluster_pairs
# fence.mbarrier_init.release.cluster: the mbarrier.init before it, released by the cluster barrier's arrive
init_sync = I(W & MBINIT) >> po_async >> I(F & MBINIT) >> po_async >> I(CLBAR & ARRIVE) >> cluster_pairs
# an mbarrier's states in turn: each update reads the state before it (an atomic operation)
MBDONE, MBSEEN = t("MBDONE"), t("MBSEEN")
next_state = I(MBAR & W) >> rf >> I(MBAR & R) >> rmw
# the updates that completed their phase (the marker after each, on that path), the states a wait
# that returned true read (its marker, or its acquire: the same wait's, no other wait's read between)
completing = dom((I(MBAR & W) >> po >> I(MBDONE)) - (I(MBAR & W) >> po >> I(MBAR & W) >> po >> I(MBDONE)))
waited = dom(
    rf >> ((I(MBWAIT & R) >> po >> I(F & MBSEEN)) - (I(MBWAIT & R) >> po >> I(MBWAIT & R) >> po >> I(F & MBSEEN)))
)
# an arrive-on and the update that began its phase (the last to complete one before it) ...
began = (I(completing) >> next_state.plus) - (I(completing) >> next_state.plus >> I(completing) >> next_state.plus)
# ... with a state of that phase before the arrive that a wait returning true read
seen_before = I(completing) >> next_state.opt >> I(waited) >> next_state.plus


def build() -> Model:
    name = "ptx-8.0"
    # rmw_chains: a thread's mbarrier operations of one object are morally strong pairs (one
    # thread, the generic proxy, the whole object; the complete-tx too), so axiom-Atomicity and
    # axiom-Coherence (through observation and program order) put each after the one it reads;
    # and axiom-Coherence puts each after the thread's earlier ones in this model's program order
    # (po_async, generic and on one address: causality order), which does not order what follows
    # an asynchronous complete-tx (BULK) or a cp.async arrive-on (CPARRIVE) after it, nor such an
    # arrive-on after what precedes it
    model = Model(
        name,
        doc=__doc__,
        supports=lambda test: supports(name, test, hopper=True),
        rmw_chains=("MBAR",),
        rmw_chain_order=(("BULK", "CPARRIVE"), ("CPARRIVE",)),
        vector_orders_sync_only=True,  # [PTX19]: po between two locations reaches others through a sync alone
        mixed_sizes=True,
    )
    release_pattern, acquire_pattern = patterns(po_vloc, dartagnan=False, po_=po_async)
    # PTX ISA 8.6's fence.release begins a release pattern ("Release and Acquire Patterns": "a release
    # or acquire-release memory fence followed by a strong write"); fence.acquire, an F & ACQ, ends an
    # acquire pattern as a wait's acquire does (below)
    release_pattern = release_pattern | (I(release_fence) >> po_async >> I(strong_write))
    # an asynchronous release is a release pattern by itself alone: no fence or release of its thread before it extends to it
    release_pattern = release_pattern - ((~ASYNC_RELEASE) * ASYNC_RELEASE)
    # a wait that observes its phase's completion is an acquire operation on its mbarrier: its read,
    # then its acquire on that path (the same wait's: no other wait's read between), after a strong
    # read of that mbarrier or none ("Release and Acquire Patterns" 1. and 2.); and a strong read
    # then fence.acquire (3.; a reduction's read begins none; a cluster barrier's wait is no fence)
    wait = (I(MBWAIT & R) >> po_async >> I(F & ACQ & MBWAIT)) - (
        I(MBWAIT & R) >> po_async >> I(MBWAIT & R) >> po_async >> I(F & MBWAIT)
    )
    acquire_pattern = (
        acquire_pattern
        | (I(strong_read - RED) >> po_vloc.opt >> wait)
        | (I(strong_read - RED) >> po_async >> I(F & ACQ - MBWAIT - CLBAR))
    )
    sync = morally_strong & (release_pattern >> observation.plus >> acquire_pattern)
    copy_sync = I(ASYNC_RELEASE) >> sync
    fence_sc = sync_fence(model)
    # an asynchronous release's synchronisation orders what it releases before the waiter's later
    # events, and begins a chain: it extends no chain that reached the copies from before them
    copy_steps = released.opt >> copy_sync >> po_async.opt

    def base(fences):
        steps = (po_async.opt >> ((sync - copy_sync) | fences | sync_barrier | cluster_sync) >> po_async.opt) | (
            init_sync >> po_async.opt
        )
        return steps.plus | po_async | (copy_steps >> steps.star)

    def causality(fences):
        cause_base = base(fences)
        # a bulk_group copy's read, done when a wait says so, is before what follows the wait in
        # any proxy (the WAR of a buffer reused after `wait_group.read`: docs/readings.md)
        return observation.opt >> (
            proxy_preserved(cause_base, same_proxy, proxy_fence_ops, cta) | (vloc & (read_done >> cause_base.opt))
        )

    cause = causality(fence_sc)
    axioms(model, sync, cause, morally_strong, fence_sc)
    mixed_sizes(model, cause)
    read_only_loads(model)
    # an mbarrier operation reading an mbarrier no initialisation it sees has set
    model.empty(I(IW & UNINIT) >> rf >> I(R & MBAR), "mbarrier_uninitialised", flag="mbarrier_uninitialised")
    # "Completion Mechanisms for Asynchronous Copy Operations": "modifying the source memory
    # location ... or reading from the destination memory location before the asynchronous
    # operation completes, exhibits undefined behavior": a read of a copy's destination, or a
    # write of its source, that the copy is not ordered with either way (in causality order, with
    # the execution's Fence-SC order: raised where some order the execution takes leaves them apart)
    ordered = observation.opt >> (base(fence_sc) | read_done)
    unordered = loc - ordered - ordered.inv
    # (a reduction, asynchronous or not, is no read: concurrent bulk reductions of one destination are not flagged)
    early = (I(COPY_WRITE) >> unordered >> I(R - RED)) | (I(COPY_READ) >> unordered >> I(W - IW))
    model.empty(early, "async_copy_incomplete", flag="async_copy_incomplete")
    # "Phase of the mbarrier object": "For each phase of the mbarrier object, at least one test_wait or
    # try_wait operation must be performed which returns True for waitComplete before an arrive-on
    # operation in the subsequent phase": before in the object's order of states (docs/readings.md)
    unwaited = (began >> I(ARRIVE & W & MBAR)) - seen_before
    model.empty(unwaited, "mbarrier_phase_unwaited", flag="mbarrier_phase_unwaited")
    # test_wait/try_wait "are valid only for: the current incomplete phase ... the immediately
    # preceding phase": a wait on an arrive's state from before that (its marker, on that path)
    # mbarrier.arrive.noComplete "must not cause the mbarrier to complete its current phase,
    # otherwise the behavior is undefined": such an arrive among the updates that completed one
    model.empty(I(completing & t("NOCOMPLETE")), "mbarrier_nocomplete_completed", flag="mbarrier_nocomplete_completed")
    STALE = t("MBSTALE")
    stale = (I(MBWAIT & R) >> po >> I(STALE)) - (I(MBWAIT & R) >> po >> I(MBWAIT & R) >> po >> I(STALE))
    model.empty(stale, "mbarrier_wait_stale", flag="mbarrier_wait_stale")
    # wgmma.wait_group: "Accessing the accumulator register or the input register containing the
    # fragments of matrix A of a wgmma.mma_async instruction without first performing a
    # wgmma.wait_group instruction that waits on a wgmma-group including that wgmma.mma_async
    # instruction is undefined behavior"; wgmma.fence "must be issued ... Before the first
    # wgmma.mma_async operation in a warpgroup" and between a register access and a wgmma that
    # accesses the same register ("Otherwise, the behavior is undefined")
    unwaited, unfenced = [], []
    for k in range(WGMMA_REGS):
        reg = t(f"WREG{k}")
        use, op = I(WREGUSE & reg), I(WGOP & R & reg)
        unwaited.append((op >> po >> use) - (wgmma_done >> po >> use))
        unfenced.append((use >> po >> op) - (use >> po >> I(WFENCE) >> po >> op))
    model.empty(union_of(unwaited), "wgmma_register_unwaited", flag="wgmma_register_unwaited")
    unfenced.append(I(WGOP & R - ran(I(WFENCE) >> po)))  # no wgmma.fence before it at all
    model.empty(union_of(unfenced), "wgmma_unfenced", flag="wgmma_unfenced")
    return model


MODEL = build()
