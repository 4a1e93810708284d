"""HRF-direct and HRF-indirect ([HRF14], sidebars "Formal Definition of
HRF-direct" and "... of HRF-indirect"): SC for heterogeneous-race-free
programs. Both share everything but heterogeneous-happens-before."""

from __future__ import annotations

from ..dsl import I, M, Model, R, Rel, W, co, rf, same_event_attr
from ..litmus import ast as AST
from .common import IW, NA, A, atomicity_violation, conflict, refuse, sc_order

# Two operations are "performed with respect to the same scope" when they
# name the same static scope and the same instance of it (docs/readings.md `exact`;
# [HRF14] Fig. 7 needs a device-scope and a work-group-scope operation to differ
# even when no other work-item is in the device). hrf.program numbers scope
# instances as attribute `sinst`.
same_scope = same_event_attr("sinst")

# The HRF models have seq_cst atomics only: stores (and the write of an RMW)
# are releases, loads (and the read of an RMW) acquires ([HRF14] Fig. 2, 5, 6).
Rel_ = (A & W) - IW
Acq = A & R

# Scoped synchronization order, over all scopes at once ([HRF14] sidebar: "Release
# rel1 appears before acquire acq2 in so_S iff both are performed with respect
# to scope S, and rel1 completes before acq2"); "completes before" between a
# release and an acquire of one location in the SC order is co?;rf (docs/readings.md).
so = (I(Rel_) >> co.opt >> rf >> I(Acq)) & same_scope

# [HRF14] sidebar: an ordinary conflict has at least one ordinary data access; a
# synchronization conflict is between atomics of different scopes.
ordinary_conflict = conflict & ((NA * M) | (M * NA))
synchronization_conflict = (conflict & (A * A)) - same_scope


def heterogeneous_race(hhb: Rel) -> Rel:
    """Conflicting pairs unordered by hhb ([HRF14]: "Heterogeneous Race")."""
    return (ordinary_conflict | synchronization_conflict) - (hhb | hhb.inv)


def supports(test: AST.Test) -> None:
    """HRF-direct/-indirect define seq_cst atomics only ([HRF14] sec. 3): no
    relaxed or acquire/release atomics, fences, barriers or remote scopes."""
    refuse(test, "the HRF model", fences=True, remote=True, orders_other_than_sc=True, dialects=("C", "OpenCL"))


def hrf_model(name: str, doc: str, hhb: Rel) -> Model:
    # uniproc: the SC axiom, acyclic(po | rf | co | fr).
    m = Model(name, doc=doc, supports=supports, uniproc=True)
    m.show("so", so)
    # "Definitions for a Sequentially Consistent Candidate Execution"
    m.acyclic(sc_order, "sc")
    m.empty(atomicity_violation, "atomicity")
    m.empty(heterogeneous_race(hhb), "heterogeneous_race", flag="heterogeneous_race")
    return m
