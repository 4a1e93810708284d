"""The OpenCL 2.0 memory model of Batty, Donaldson and Wickerson,
*Overhauling SC atomics in C11 and OpenCL* (POPL 2016), technical appendix
sec. C ([BDW16]): scoped C11 with global and local happens-before,
execution barriers as entry/exit fences, and the scoped SC axiom. Its
`.cat` figure is not printed in the appendix; the definitions below follow the
paper's text and the published `opencl_base.cat` / `opencl_scopedsc.cat`
(as restated in Dat3M), adapted to hrf's events, where an RMW is a read
and a write linked by `rmw` rather than one event.

`opencl` and `opencl-rsp` differ only in scope inclusion (docs/readings.md), so
both are built here from an `incl` relation."""

from __future__ import annotations

from ..dsl import (
    IW,
    F,
    I,
    Model,
    R,
    Rel,
    W,
    co,
    fr,
    id_,
    loc,
    po,
    ran,
    rf,
    rmw,
    same_event_attr,
    same_thread_attr,
    universal,
)
from ..litmus import ast as AST
from .common import ACQ, ACQ_REL, EF, NAL, REL, REMOTE, S_ALL, S_DEV, S_SG, S_WG, S_WI, SC, XF, A, G, L, refuse

same_wi = same_thread_attr("wi")
same_sg = same_thread_attr("sg")
same_wg = same_thread_attr("wg")
same_dev = same_thread_attr("dev")
same_barrier = same_event_attr("bar")  # the same dynamic barrier instance

# Exact scope inclusion (docs/readings.md `exact`; opencl_base.cat `incl`): both
# operations name the same scope and lie in the same instance of it.
incl_exact = (
    (same_wi & (S_WI * S_WI))
    | (same_sg & (S_SG * S_SG))
    | (same_wg & (S_WG * S_WG))
    | (same_dev & (S_DEV * S_DEV))
    | (S_ALL * S_ALL)
)

# Remote scope inclusion (docs/readings.md, from the RSP artifact's opencl_rem.cat):
# each side lies in the other's scope instance, or a remote side reaches the other.
incl1 = (
    (I(S_WI) >> same_wi)
    | (I(S_SG) >> same_sg)
    | (I(S_WG) >> same_wg)
    | (I(S_DEV) >> same_dev)
    | (I(S_ALL) >> universal)
)
incl_remote = (incl1 & incl1.inv) | (I(REMOTE) >> incl1) | (incl1.inv >> I(REMOTE))


def opencl_model(name: str, doc: str, incl: Rel, remote: bool, cas_writeback: bool | None = None) -> Model:
    # no no-thin-air axiom ([BDW16] App. C): thin-air candidates are enumerated
    # uniproc within the regions: ghb and lhb hold po there, not elsewhere.
    m = Model(
        name,
        doc=doc,
        supports=_supports(name, remote),
        cas_writeback=cas_writeback,
        thin_air=True,
        uniproc=("global", "local"),
    )

    # Modification order: co among events of atomic locations; reads-before.
    mo = co & ((~NAL) * (~NAL))
    rb = (rf.inv >> mo) - id_

    acq = (ACQ | SC | ACQ_REL) & (R | F)
    rel = (REL | SC | ACQ_REL) & (W | F)
    fence_po = I(F) >> po  # Fsb: a fence sequenced before
    po_fence = po >> I(F)  # sbF: a fence sequenced after

    # Release sequence: mo-later writes by the same work-item or by RMWs,
    # up to the first other write (opencl_base.cat `rs`).
    rmw_write = ran(rmw)
    rs_prime = same_wi | (universal >> I(rmw_write))
    rs = mo & rs_prime - ((mo - rs_prime) >> mo)

    def ra_sw(r):
        """Release-acquire synchronisation on region r, through fences."""
        return (
            I(r & rel)
            >> fence_po.opt
            >> I((A & W) - S_WI)
            >> rs.opt
            >> I(r)
            >> rf
            >> I((A & R) - S_WI)
            >> po_fence.opt
            >> I(acq & r)
        ) & incl - same_wi

    def bar_sw(r):
        """Barrier synchronisation: an entry fence with another work-item's
        exit fence of the same barrier instance in its work-group."""
        return (EF * XF) & same_barrier - same_wi & same_wg & (r * r)

    # SC atomics, and fences on both regions, may synchronise on the other region.
    scf = (SC * SC) | ((G & L & F) * (G & L & F))
    gsw = ra_sw(G) | bar_sw(G) | (scf & ra_sw(L))
    lsw = ra_sw(L) | bar_sw(L) | (scf & ra_sw(G))

    m.show("sw", gsw | lsw)
    init_first = IW * (~IW)
    ghb = (((G * G) & (po | init_first)) | gsw).plus
    lhb = (((L * L) & (po | init_first)) | lsw).plus
    hb = ghb | lhb
    m.irreflexive(ghb, "global_hb_acyclic")
    m.irreflexive(lhb, "local_hb_acyclic")

    # Coherence over every location's writes (co), not only the atomic
    # ones' (mo): the axioms read no co of a non-atomic location, which
    # fixes only its final value, the co-last write. Ordered as happens-
    # before and reads-from order them (herd 2015's opencl.cat orders every
    # write so), a race-free test's plain int ends with its hb-last write
    # (docs/readings.md).
    def coh(h):
        return rf.inv.opt >> co >> rf.opt >> h

    m.irreflexive(coh(ghb), "global_coherence")
    m.irreflexive(coh(lhb), "local_coherence")
    # Implied by the two above (ghb, lhb contain po within their region),
    # but monotone in rf/co where they are not (rs uses mo negatively), so
    # the core can prune partial candidates with it. Changes no verdict.
    m.irreflexive(coh((G * G) & po), "global_coherence_po")
    m.irreflexive(coh((L * L) & po), "local_coherence_po")

    # A load reads from no store that happens after it.
    m.irreflexive(rf >> hb, "rf_hb")

    # A non-atomic location's load reads a visible side effect.
    def vse(h):
        return (W * R) & h & loc - ((h & loc) >> I(W) >> h)

    m.empty((rf >> I(NAL & G)) - vse(ghb), "global_nonatomic_rf")
    m.empty((rf >> I(NAL & L)) - vse(lhb), "local_nonatomic_rf")

    # RMW atomicity (herd's single-event `irreflexive rf | fr;co | co;rf`).
    m.empty(rmw & (fr >> co), "rmw_atomicity")

    # The scoped SC axiom ([BDW16] App. A "SC-before", restricted to inclusive pairs).
    scp = fence_po.opt >> (rb | mo | hb) >> po_fence.opt
    m.acyclic((SC * SC) & scp & incl, "scoped_sc")

    # Undefined behaviour.
    thread_events = ~IW
    conflict = (((W * W) | (W * R) | (R * W)) & loc) & (thread_events * thread_events)
    m.empty(conflict - hb - hb.inv - same_wi - incl, "data_race", flag="data_race")
    bsw = bar_sw(G) | bar_sw(L)
    m.empty(
        I(EF) & (((same_wg - same_wi) >> universal) - (bsw >> universal)),
        "barrier_divergence",
        flag="barrier_divergence",
    )
    return m


def _supports(name: str, remote: bool):
    def check(test: AST.Test) -> None:
        refuse(test, name, consume=True, remote=not remote, dialects=("C", "OpenCL"))

    return check
