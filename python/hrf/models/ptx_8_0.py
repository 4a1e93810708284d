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
- an mbarrier used before an initialisation it can see is undefined
  (`mbarrier_uninitialised`).

How the litmus syntax reads into events is `litmus/ptx_hopper.py`; each
place where the ISA's prose leaves a choice is a row of docs/readings.md.
"""

from __future__ import annotations

from ..dsl import IW, F, I, Model, R, W, po, rf, same_event_attr, same_thread_attr
from ..dsl import tag as t
from .common import ACQ, ACQ_REL, QF_UP, REL, SC, sync_fence, vloc
from .ptx_6_0 import axioms, patterns, strong_read, supports, sync_barrier
from .ptx_7_5 import PROXIES, proxies, proxy_preserved

ASYNC, MBAR, MBINIT, UNINIT, CLBAR = t("ASYNC"), t("MBAR"), t("MBINIT"), t("UNINIT"), t("CLBAR")
ARRIVE, GLOBAL, SHARED, BULK = t("ARRIVE"), t("global"), t("local"), t("BULK")  # shared memory: hrf's `local`
# cp.async.bulk is asynchronous (the ISA: its completion is signalled through
# the mbarrier alone): its events (BULK: read, write, proxy fence, complete-tx,
# the last) are in program order after what the thread did before the copy,
# not before what it does after it, nor before a later copy's
after_copy = (I(BULK) >> po >> I(~BULK)) | (I(BULK) >> po.opt >> I(BULK & MBAR & W) >> po >> I(BULK))
po_async = po - after_copy  # this model's program order, everywhere below
# the ISA's "Asynchronous Operations": the complete-tx "is ordered only with respect
# to the memory operations performed by the same asynchronous instruction", and "does
# not transitively establish ordering with respect to prior instructions"
COMPLETE_TX = BULK & MBAR & W
copy_before_complete = I(BULK) >> po_async >> I(COMPLETE_TX)  # one copy's events before its complete-tx
po_vloc = po_async & vloc
same_proxy, morally_strong, observation, fence_ops = proxies(*PROXIES, ASYNC)
# a proxy fence naming a state space orders the accesses to that space alone ("fence.proxy.async.global")
proxy_fence_ops = fence_ops - (I(F & GLOBAL) >> fence_ops >> I(SHARED)) - (I(F & SHARED) >> fence_ops >> I(~SHARED))
# the arrives and the waits of one use of a cluster barrier, in one cluster
cluster_pairs = same_thread_attr("qf") & same_event_attr("bar") & ((CLBAR & ARRIVE) * (CLBAR - ARRIVE))
# a release arrive, or a relaxed one after a release fence of cluster scope or wider
cluster_release = I(CLBAR & ARRIVE & REL) | (I(F & (ACQ_REL | SC) & QF_UP - MBINIT) >> po_async >> I(CLBAR & ARRIVE))
cluster_sync = cluster_release >> cluster_pairs
# fence.mbarrier_init.release.cluster: the mbarrier.init before it, released by the cluster barrier's arrive
init_sync = I(W & MBINIT) >> po_async >> I(F & MBINIT) >> po_async >> I(CLBAR & ARRIVE) >> cluster_pairs


def build() -> Model:
    name = "ptx-8.0"
    model = Model(name, doc=__doc__, supports=lambda test: supports(name, test, hopper=True))
    release_pattern, acquire_pattern = patterns(po_vloc, dartagnan=False, po_=po_async)
    # a complete-tx is a release pattern by itself alone: no fence or release of its thread before it extends to it
    release_pattern = release_pattern - ((~COMPLETE_TX) * COMPLETE_TX)
    # a wait that observes its phase's completion: its read, then its acquire on that path
    acquire_pattern = acquire_pattern | (I(strong_read) >> po_async >> I(F & ACQ))
    sync = morally_strong & (release_pattern >> observation.plus >> acquire_pattern)
    copy_sync = I(COMPLETE_TX) >> sync
    fence_sc = sync_fence(model)
    steps = (po_async.opt >> ((sync - copy_sync) | fence_sc | sync_barrier | cluster_sync) >> po_async.opt) | (
        init_sync >> po_async.opt
    )
    # a complete-tx's synchronisation orders its own copy's events before the waiter's later ones,
    # and begins a chain: it extends no chain that reached the copy from before it
    copy_steps = copy_before_complete.opt >> copy_sync >> po_async.opt
    cause_base = steps.plus | po_async | (copy_steps >> steps.star)
    cause = observation.opt >> proxy_preserved(cause_base, same_proxy, proxy_fence_ops)
    axioms(model, sync, cause, morally_strong, fence_sc)
    # an mbarrier operation reading an mbarrier no initialisation it sees has set
    model.empty(I(IW & UNINIT) >> rf >> I(R & MBAR), "mbarrier_uninitialised", flag="mbarrier_uninitialised")
    return model


MODEL = build()
