"""The PTX memory model of PTX ISA 6.0, as Lustig, Sahasrabuddhe and Giroux
formalise it ([PTX19]) and Dartagnan checks it (Dat3M's `ptx-v6.0.cat`,
which this file states in hrf's DSL, axiom for axiom), over Dat3M's PTX
tests (header `PTX`).

Strong operations (relaxed, acquire, release and fences) in each other's
scope are morally strong; a release pattern, observed through morally
strong reads-from and RMWs, synchronises with an acquire pattern; fence.sc
pairs are ordered by a total order the core enumerates (`sync_fence`), and
barriers of one CTA synchronise. Causality order is built from these and
program order. `co` is partial: PTX orders only the writes its axioms
order ("co in PTX is not total"), so the core enumerates partial orders
for PTX tests (docs/readings.md).

As the PTX ISA and [PTX19]'s Alloy model say, where Dartagnan's front
end reads otherwise (docs/readings.md): `fence.sc` is also a release and an
acquire fence (the Alloy model's FenceSC is a FenceAcqRel); a reduction
(`red`) is an atomic operation but not a read, so it begins no acquire
pattern, and `.acquire`/`.acq_rel` are no orders of it; a failing
`atom.cas` writes nothing. `ptx-6.0-dat3m` keeps Dartagnan's readings, for
comparison with its verdicts. An RMW's halves are relaxed where the other
half carries the order (litmus/dat3m_ptx.py).

Mixed-size accesses (an array read and written with several sizes: an
event per element a wider access covers) are the ISA's, in every PTX
model (`mixed_sizes`): only accesses of the same bytes are morally
strong; they are read and ordered whole; a conflicting pair that overlaps
partially in no causality order is a mixed-size data-race, flagged
`mixed_size_race` ("the axioms ... do not apply").
"""

from __future__ import annotations

from ..dsl import IW, F, I, M, Model, R, W, co, id_, loc, po, rf, rmw, same_event_attr, universal
from ..dsl import same_thread_attr as same
from ..dsl import tag as t
from ..errors import UnsupportedFeature
from ..litmus import ast as AST
from ..litmus.ptx_hopper import first_sm90_form
from .common import ACQ, ACQ_REL, REL, RLX, SC, dep, sr, sync_fence, syncbar

RED = t("RED")  # both halves of a reduction (`red`)

scta = same("wg")  # the same CTA
GEN = t("GEN")  # the generic proxy; PTX 6.0 has no other
sync_barrier = syncbar & scta
co_ = co.plus  # co made transitive, as the file says (the core's partial co already is)
fr_ = rf.inv >> co_
po_loc = po & loc

# Mixed-size accesses ([PTXISA] "Overlap"): an access of an array accessed with several sizes is
# an event per element it covers (MIXED), which share its access (`acc`); two such accesses overlap
# completely where their footprints (`fp`: first element, number of elements) agree
MIXED = t("MIXED")
same_access = same_event_attr("acc") | id_
same_footprint = same_event_attr("fp")
partial_overlap = I(MIXED) >> (loc - same_footprint) >> I(MIXED)


def read_only_loads(model: Model) -> None:
    """`ld.global.nc` loads "via non-coherent cache", a "read-only" one ([PTXISA] ld.global.nc):
    the memory consistency model gives it no other meaning, so it is a weak load of data that no
    thread writes. A location such a load reads that a thread of the test writes is flagged
    (docs/readings.md)."""
    written = I(t("NC")) >> loc >> I(W - IW)
    model.empty(written, "nc_load_of_written_data", flag="nc_load_of_written_data")


def mixed_sizes(model: Model, ordered, po_in_cause: bool = True) -> None:
    """What the ISA says of accesses of several sizes, over causality order `ordered`: two
    accesses that overlap completely are read and ordered whole (where one element of a read
    reads from a write of its footprint, each of its elements reads that write's, or a write of
    other bytes coherence-after it; coherence orders two such writes alike in each element:
    docs/readings.md), and a pair that conflicts and overlaps
    partially, in no causality order, is a mixed-size data-race, to which "the axioms in the
    memory consistency model do not apply" ("Limitations on Mixed-size Data-races"); causality
    order takes the execution's Fence-SC order, so the flag is raised where some order the
    execution is consistent with leaves the pair apart (the core tries them). Where the
    model's causality order leaves program order out (`po_in_cause` False: [PTX19]'s, whose
    SC-per-location axiom orders a thread's accesses of a location, morally strong there), the
    ISA's Coherence and Causality axioms over program order are stated for accesses of a thread
    that overlap partially, which are not morally strong ("Base causality order": program order)."""
    # a read's element and the same element of a write of its footprint that another of its
    # elements reads from: it reads that write's, or a later write's of other bytes
    whole_rf = rf & same_footprint
    read_from = (same_access >> whole_rf >> same_access) & loc
    torn = ((read_from >> whole_rf.inv) - id_) | (read_from & (rf.inv >> co).inv)
    model.empty(torn, "whole-rf")
    model.empty(((same_access >> co >> same_access) & loc & same_footprint) - co, "whole-co")
    if not po_in_cause:
        model.empty(((I(W) >> po >> I(W)) & partial_overlap) - co, "mixed-Coherence")
        model.irreflexive((rf | (rf.inv >> co)) >> (po & partial_overlap), "mixed-Causality")
    conflict = (W * M) | (M * W)
    race = (partial_overlap & conflict) - ordered - ordered.inv - po - po.inv  # (no initial write is MIXED)
    model.empty(race, "mixed_size_race", flag="mixed_size_race")


strong_write = W & (RLX | REL)
strong_read = R & (RLX | ACQ)
strong_operation = strong_write | strong_read | F


def morally_scoped(sr_=sr):
    """ms1: related in program order, or both strong, each in the other's scope ([PTX19] "morally strong")."""
    return (po | po.inv) | (I(strong_operation) >> sr_ >> I(strong_operation))


ms1 = morally_scoped()


def supports(name: str, test: AST.Test, dartagnan: bool = False, hopper: bool = False) -> None:
    if test.arch != "PTX":
        raise UnsupportedFeature(f"{name} reads Dat3M's PTX tests (header PTX); this is a {test.arch} test", test.path)
    form = None if hopper else first_sm90_form(test)
    if form is not None:
        th, op, what = form
        msg = f"{th.name}: {name} has no {what}: use ptx-8.0"
        raise UnsupportedFeature(msg, test.path, getattr(op, "line", None))
    if dartagnan:
        return
    for th in test.threads:
        for op in th.ops:
            if isinstance(op, AST.Rmw) and "RED" in op.tags and op.order in ("acq", "acq_rel"):
                order = "acquire" if op.order == "acq" else "acq_rel"
                raise UnsupportedFeature(
                    f"{th.name}: red.{order} is not PTX (the ISA gives red .relaxed and .release): "
                    f"{name}-dat3m reads it as Dartagnan does",
                    test.path,
                    op.line,
                )


def release_fence(dartagnan: bool):
    """The fences that begin a release pattern and end an acquire pattern:
    fence.acq_rel, and fence.sc ([PTX19]'s Alloy model: FenceSC is a kind of
    FenceAcqRel); Dartagnan's front end tags fence.sc SC alone."""
    return F & ACQ_REL if dartagnan else F & (ACQ_REL | SC)


def patterns(po_same, dartagnan: bool, po_=po):
    """[PTX19]'s release and acquire patterns, `po_same` the program order
    of one (virtual) location, `po_` the program order (PTX 8.0's less the
    edges out of an asynchronous copy). A reduction is no read of the ISA
    (its operation types: "ld and atom, but not red"): it begins no
    acquire pattern, where Dartagnan reads it as a read."""
    fence = release_fence(dartagnan)
    first_read = strong_read if dartagnan else strong_read - RED
    release = (I(W & REL) >> po_same.opt >> I(strong_write)) | (I(fence) >> po_ >> I(strong_write))
    acquire = (I(first_read) >> po_same.opt >> I(R & ACQ)) | (I(first_read) >> po_ >> I(fence))
    return release, acquire


def generic_only(name: str, dartagnan: bool, test: AST.Test) -> None:
    """PTX 6.0 has the generic proxy alone: an access through another
    proxy, a proxy fence or an alias is PTX 7.5's (ptx-7.5), refused by name."""
    supports(name, test, dartagnan)
    for i in test.init:
        if i.alias_of is not None:
            raise UnsupportedFeature(f"ptx-6.0 has no aliases ({i.loc} aliases {i.alias_of}): use ptx-7.5", test.path)
    for th in test.threads:
        for op in th.ops:
            other = sorted(set(getattr(op, "tags", ())) & {"TEX", "SUR", "CON", "ALIAS"})
            if other:
                raise UnsupportedFeature(
                    f"{th.name}: ptx-6.0 has the generic proxy alone, not {', '.join(other)}: use ptx-7.5",
                    test.path,
                    getattr(op, "line", None),
                )


def build(dartagnan: bool = False) -> Model:
    """PTX 6.0's model as the ISA states it, or as Dartagnan reads it
    (`dartagnan`: fence.sc no acq_rel fence, red a read, a failing atom.cas
    writing the old value back)."""
    name = "ptx-6.0-dat3m" if dartagnan else "ptx-6.0"
    ms2 = (((M * M) & loc) - partial_overlap) | (universal - (M * M))  # memory operations overlap completely
    morally_strong = (ms1 & ms2) - id_
    # the file's `let rec observation = (ms & rf) | (observation; rmw; observation)`, its least fixed point
    observation = (morally_strong & rf) >> (rmw >> (morally_strong & rf)).star
    release_pattern, acquire_pattern = patterns(po_loc, dartagnan)
    doc = __doc__ + ("\nThis is Dartagnan's reading (ptx-v6.0.cat as its front end tags events)." if dartagnan else "")
    # uniproc: a thread's accesses to a location are po-related, so morally
    # strong, and SC-per-location orders them with po-loc
    model = Model(
        name,
        doc=doc,
        supports=lambda test: generic_only(name, dartagnan, test),
        uniproc=True,
        cas_writeback=True if dartagnan else None,
        vector_orders_sync_only=True,  # [PTX19]: po between two locations reaches others through a sync alone
        mixed_sizes=True,
    )
    fence_sc = sync_fence(model)
    sync = morally_strong & (release_pattern >> observation >> acquire_pattern)

    def causality(fences):
        cause_base = po.opt >> ((sync | fences | sync_barrier) >> po.opt).plus
        return cause_base | (observation >> (cause_base | po_loc))

    cause = causality(fence_sc)
    axioms(model, sync, cause, morally_strong, fence_sc, dartagnan)
    mixed_sizes(model, cause, po_in_cause=False)
    read_only_loads(model)
    model.acyclic((morally_strong & (rf | co_ | fr_)) | po_loc, "axiom-ScPerLocation")
    return model


def axioms(model: Model, sync, cause, morally_strong, fence_sc, dartagnan: bool = False) -> None:
    """The axioms PTX 6.0 and 7.5 share, over each one's causality order
    and morally strong pairs ([PTX19]; the cat files' names)."""
    model.show("sync", sync)
    model.show("cause", cause)
    model.empty(((I(W) >> cause >> I(W)) & loc) - co_, "axiom-Coherence")
    model.empty(((I(W) >> morally_strong >> I(W)) & loc) - (co_ | co_.inv), "axiom-Coherence2")
    # [PTXISA] Fence-SC: "for a pair of morally strong fence.sc operations F1
    # and F2, if F1 precedes F2 in causality order, then F1 must precede F2
    # in Fence-SC order". The cat files require it of every pair of SC
    # fences in causality order: one at CTA scope after another CTA's
    # fence.sc.gpu, in no Fence-SC order with it, then forbids what its
    # thread saw before it (docs/readings.md)
    fences_in_cause = I(F & SC) >> cause >> I(F & SC)
    model.empty((fences_in_cause if dartagnan else fences_in_cause & morally_strong) - fence_sc, "axiom-FenceSC")
    model.empty(((morally_strong & fr_) >> (morally_strong & co_)) & rmw, "axiom-Atomicity")
    model.acyclic(rf | dep, "axiom-NoThinAir")
    model.irreflexive((rf | fr_) >> cause, "axiom-Causality")


MODEL = build()
