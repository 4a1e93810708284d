"""The HRF-relaxed family ([HRFR15], Gaster, Hower, Howes, TACO 2015): HRF with
scope inclusion and relaxed, acquire and release atomics. One builder for
HRF-direct-relaxed (Fig. 9), HRF-indirect-relaxed (Fig. 12) and the
literal reading of Fig. 9 (docs/readings.md); they differ only in hhb.

Reading of the figures (docs/readings.md):
- "inclusive" scopes (Def. 3.1, read through the per-agent so_a): each
  operation's work-item lies in the other's scope instance;
- two orders are "consistent" when no pair is ordered both ways (Fig. 9,
  sec. I, first sentence), so an apparent order containing a relation's
  same-location pairs exists iff their union with rf/co/fr is acyclic;
- the apparent total order sc of seq_cst atomics is a witness order that
  the core enumerates; it must be consistent with hhb ("pb" in Fig. 9 is
  read as hhb, which contains po);
- "Rel coh Acq" (so) between a release and an acquire of one location is
  co?;rf: the acquire reads the release or a coherence-later write.
"""

from __future__ import annotations

from ..dsl import ALL, IW, I, Model, R, Rel, W, co, dom, foreach, fr, loc, po, rf, rmw, same_thread_attr
from ..litmus import ast as AST
from .common import (
    ACQ,
    ACQ_REL,
    COARSE,
    FENCE,
    FINE,
    NA,
    REL,
    S_ALL,
    S_DEV,
    S_SG,
    S_WG,
    S_WI,
    A,
    G,
    L,
    conflict,
    dep,
    refuse,
)
from .common import SC as SC_
from .opencl_common import incl1

# Fig. 9 sec. I, with docs/readings.md `inclusive`: mutual reach of scope instances.
inclusive = incl1 & incl1.inv

Rel_ = (A & W & (REL | ACQ_REL | SC_)) - IW
Acq = A & R & (ACQ | ACQ_REL | SC_)

# Scoped synchronization order, all agents at once: Rel_S coh Acq_S', inclusive.
so = (I(Rel_) >> co.opt >> rf >> I(Acq)) & inclusive

# a's scope instance is within b's: b's instance holds a's work-item, and
# a's scope is no wider (scopes are nested wi < sg < wg < dev < all).
_no_wider = (
    (S_WI * A)
    | (S_SG * (S_SG | S_WG | S_DEV | S_ALL))
    | (S_WG * (S_WG | S_DEV | S_ALL))
    | (S_DEV * (S_DEV | S_ALL))
    | (S_ALL * S_ALL)
)
within = _no_wider & incl1.inv

# Fig. 9 sec. II: conflicts.
ordinary_conflict = conflict & ((NA * (A | NA)) | ((A | NA) * NA))
atomic_conflict = (conflict & (A * A)) - inclusive


def hhb_direct_intent() -> Rel:
    """docs/readings.md: a synchronising pair belongs to the so of the narrower of
    its two scope instances; hhb.dr = U_S (po | so_S)+."""

    def so_of(S):
        return (I(S) >> (so & within)) | ((so & within.inv) >> I(S))

    # po alone when no event has a scope instance (foreach over none is empty)
    return po | foreach("sinst", lambda S: (po | so_of(S)).plus)


def hhb_direct_literal() -> Rel:
    """Fig. 9 as printed: hhb.dr = U_a (po | so_a)+ over agents a, where
    so_a holds the pairs whose two scopes both include agent a."""

    def per_agent(events_of_a):
        includes_a = dom(incl1 >> I(events_of_a))
        return (po | (I(includes_a) >> so >> I(includes_a))).plus

    return po | foreach("tid", per_agent)


def hhb_indirect() -> Rel:
    """Fig. 12: hhb.ir = (po | U_a so_a)+."""
    return (po | so).plus


def supports(name):
    def check(test: AST.Test) -> None:
        refuse(
            test, name, fences=True, remote=True, consume=True, dialects=("C", "OpenCL")
        )  # [HRFR15] Fig. 9 has no fences

    return check


# Observability ([HRFR15] Fig. 13): MaxS(L), the widest scope at which a write to
# L becomes visible, is the device for a coarse-grained allocation and for a
# fine-grained one without platform atomics (`[x]=0 @coarse`, `@fine`; sec.
# 6.2: "The maximum dynamic memory scope for a coarse-grained allocation, or
# a fine-grained allocation without platform atomics, is device scope"), and
# the system otherwise. O(A, B): same location, and A and B taken at scope
# MaxS are inclusive: for device-bounded locations, the same device. The
# initial contents are visible everywhere.
DEVICE_BOUNDED = COARSE | FINE
observable = loc & (
    ((DEVICE_BOUNDED * DEVICE_BOUNDED) & same_thread_attr("dev"))
    | ((~DEVICE_BOUNDED) * (~DEVICE_BOUNDED))
    | (IW * ALL)
    | (ALL * IW)
)


def hrf_relaxed_model(
    name: str,
    doc: str,
    hhb: Rel,
    observability: bool = False,
    *,
    observable_rel: Rel | None = None,
    incl: Rel | None = None,
    sc_gate: Rel | None = None,
    allow_fences: bool = False,
) -> Model:
    """The Fig. 9 skeleton. `hhb` is the model's happens-before; with
    `observability` (or an explicit `observable_rel`) loads read the most
    recent observable store and non-observable conflicts race (Fig. 13);
    `incl` replaces inclusion in atomic conflicts (Fig. 17's clincl);
    `sc_gate` (universal or empty) says whether the total order sc exists."""
    # Thin-air candidates are enumerated (coherence is per location, hhb
    # holds no rf of relaxed atomics); Fig. 9 III(2)'s plausibility forbids
    # those a store's own dependencies feed (no_dependency_cycle, below).
    # uniproc: coherence is acyclic with po & loc (a thread's own pairs are observable).
    m = Model(
        name,
        doc=doc,
        supports=supports(name) if not allow_fences else _supports_with_fences(name),
        thin_air=True,
        uniproc=True,
    )
    obs = observable_rel if observable_rel is not None else (observable if observability else None)
    m.show("so", so)
    m.show("hhb", hhb)
    # Apparent total order of the seq_cst atomics (Fig. 9 sec. IV).
    sc = m.total_order("sc", over=A & SC_)
    sc_c = sc if sc_gate is None else (sc & sc_gate)
    # Coherent order: a total order of each location's accesses containing
    # rf, co and fr (load values), consistent with po, sc and hhb. With
    # observability (Fig. 13, "Value of a Load"), a load reads the most
    # recent *observable* store: it reads only observable stores, and only
    # observable pairs are ordered for it.
    if obs is not None:
        m.empty(rf - obs, "reads_observable_store")
        m.acyclic(rf | co | (fr & obs) | ((po | sc_c | hhb) & obs), "coherence")
    else:
        m.acyclic(rf | co | fr | ((po | sc_c | hhb) & loc), "coherence")
    # Fig. 9 III(2): a load L may read a store S "as long as S is not
    # control, address, or data dependent on L"; read causally
    # (docs/readings.md): no store feeds, through dependencies and
    # reads-from, the load it depends on.
    m.acyclic(dep | rf, "no_dependency_cycle")
    m.empty(sc_c & hhb.inv, "sc_consistent_with_hhb")
    m.acyclic(hhb, "hhb_acyclic")
    # The read and write of an RMW are adjacent in coh: no write between.
    m.empty(rmw & (fr >> co), "rmw_atomicity")
    # Fig. 9 sec. V; Fig. 13: conflicting actions also race when not observable.
    atomic_conf = atomic_conflict if incl is None else (conflict & (A * A)) - incl
    conflicts = ordinary_conflict | atomic_conf
    race = conflicts - hhb - hhb.inv
    if obs is not None:
        race = race | (conflicts - obs)
    m.empty(race, "heterogeneous_race", flag="heterogeneous_race")
    return m


def _supports_with_fences(name):
    def check(test: AST.Test) -> None:
        refuse(test, name, barriers=True, remote=True, consume=True, dialects=("C", "OpenCL"))

    return check


# ---------------------------------------------------------------- address spaces


def so_in(space, so_rel=None) -> Rel:
    """Fig. 14 so_{a,as}: synchronisation whose release and acquire are both
    in address space `space` (an access's space is its location's region)."""
    return (so if so_rel is None else so_rel) & (space * space)


def hb_in(space, so_rel=None) -> Rel:
    """Fig. 14 hhb.ir_as, reading `po` as program order *within* the space
    (sec. 5.1: "the global and local address spaces are covered by almost
    entirely separate happens-before relations"; with all of po, the two
    orders would merge into one and the extension would change nothing).
    Pinned by tests/test_hrf_relaxed.py::test_address_spaces_separate_hb."""
    return (((space * space) & po) | so_in(space, so_rel)).plus


def bso(incl_rel: Rel) -> Rel:
    """Fig. 14/17 bridging synchronisation: a release fence with both flags
    (CLK_GLOBAL|CLK_LOCAL) before an atomic write that an atomic read reads
    (or reads a coherence-later write), and an acquire fence with both flags
    after that read (sec. 6.1: "When two memory fences each specify
    CLK_LOCAL_MEM_FENCE|CLK_GLOBAL_MEM_FENCE, the individual happens-before
    relations ... are merged"). A fence has no place in coh, so "R_SO appears
    before A in coh" is read through the accesses the fences guard."""
    both = FENCE & G & L
    rel_f = both & (REL | ACQ_REL | SC_)
    acq_f = both & (ACQ | ACQ_REL | SC_)
    return (I(rel_f) >> po >> I(A & W) >> co.opt >> rf >> I(A & R) >> po >> I(acq_f)) & incl_rel
