"""The Vulkan memory model ([VK] appendix "Memory Model", its Alloy
formalisation by Khronos; in the form Dartagnan checks, Dat3M's vulkan.cat,
but with the specification's from-read as Khronos revised it in 2024)
over Dat3M's Vulkan tests. `vulkan-dat3m` keeps vulkan.cat's from-read.

Vulkan has no total order of all writes: atomics in each other's scope
are mutually ordered (`asmo`, a part of co); plain accesses are ordered by
happens-before and by availability / visibility chains that carry a
write to the scope instance of a read (`locord`, location order). A data
race, two accesses of one location not ordered either way, is undefined
behaviour: flagged with its events. `MODEL_NOCHAINS` (vulkan-nochains)
keeps only chains of one operation (no availability in one domain and
visibility in another).

Tags as Dartagnan's front end gives them (litmus/vulkan.py): `SC0`..`SC3`
storage classes, `SEMSC0`..`SEMSC3` the storage classes of an operation's
semantics, `AV`/`VIS`, `SEMAV`/`SEMVIS`, `AVDEVICE`/`VISDEVICE`,
`NONPRIV`, `CBAR`; an `acq_rel` operation is both an acquire and a release.
"""

from __future__ import annotations

from itertools import combinations

from ..dsl import IW, F, I, M, Model, R, Set, W, base, co, ext, id_, int_, loc, po, rf, rmw
from ..dsl import same_thread_attr as same
from ..dsl import tag as t
from ..errors import UnsupportedFeature
from ..litmus import ast as AST
from .common import ACQ_REL, S_DEV, S_QF, S_SG, S_WG, A, syncbar, vloc

ATOM = A
ACQ = t("acq") | ACQ_REL  # an acq_rel operation acquires and releases ([VK]; Dat3M's VisitorVulkan)
REL = t("rel") | ACQ_REL
CBAR, AVDEVICE, VISDEVICE = t("CBAR"), t("AVDEVICE"), t("VISDEVICE")
AV, VIS, SEMAV, SEMVIS = t("AV"), t("VIS"), t("SEMAV"), t("SEMVIS")
PRIV = M - t("NONPRIV")  # private accesses: the complement of non-private ones
STORAGE = [t(f"SC{n}") for n in range(4)]  # storage classes
SEMANTICS = [t(f"SEMSC{n}") for n in range(4)]  # the storage classes an operation's semantics name
ssw = base("ssw")
ssg, swg, sqf = same("sg"), same("wg"), same("qf")


def imm(r):
    """The immediate pairs of an order: r less what r;r+ reaches."""
    return r - (r >> r.plus)


# Scope inclusion ([VK] "inscope"): both operations' scopes include the other's thread.
DV_UP, QF_UP = S_DEV, S_DEV | S_QF
WG_UP, SG_UP = QF_UP | S_WG, QF_UP | S_WG | S_SG
inscope = (DV_UP * DV_UP) | (sqf & (QF_UP * QF_UP)) | (swg & (WG_UP * WG_UP)) | (ssg & (SG_UP * SG_UP))

# Mutually ordered atomics, and atomic scoped modification order (asmo: co among them).
mutordatom = (loc & vloc & inscope & (ATOM * ATOM)) - id_
asmo = co & mutordatom


def _each(fn):
    """The union of fn(k) over the four storage classes."""
    out = fn(0)
    for k in range(1, 4):
        out = out | fn(k)
    return out


# Availability and visibility: which storage classes an operation makes available/visible.
SC_ANY = _each(lambda k: STORAGE[k])
avvis_sem = (
    (SC_ANY * AVDEVICE)
    | (VISDEVICE * SC_ANY)
    | _each(lambda k: STORAGE[k] * (SEMANTICS[k] & SEMAV))
    | _each(lambda k: (SEMANTICS[k] & SEMVIS) * STORAGE[k])
)
avvis_set = I(AV | VIS) >> (vloc & loc)  # an access's own availability / visibility
avvisinc = avvis_sem | avvis_set | avvis_set.inv

# Program order from an access to a fence whose semantics name its storage class, and back.
po_sc_to_sem = _each(lambda k: STORAGE[k] * SEMANTICS[k]) & po
po_sem_to_sc = _each(lambda k: SEMANTICS[k] * STORAGE[k]) & po

# Release sequences: a release atomic, then RMWs immediately after in asmo.
rs = I(REL & ATOM) >> (imm(asmo) >> I(t("RMW"))).star
hypo_rs = I(W & ATOM) >> (imm(asmo) >> I(t("RMW"))).star
rf_mo = rf & mutordatom

# Synchronises-with: atomic or fence release to atomic or fence acquire, and
# fence -> control barrier -> control barrier -> fence.
sw = inscope & (
    (I(REL & ATOM) >> rs >> rf_mo >> I(ACQ & ATOM))
    | (I(REL & F) >> po_sem_to_sc >> I(ATOM & W) >> hypo_rs >> rf_mo >> I(ACQ & ATOM))
    | (I(REL & ATOM) >> rs >> rf_mo >> I(ATOM & R) >> po_sc_to_sem >> I(ACQ & F))
    | (I(REL & F) >> po_sem_to_sc >> I(ATOM & W) >> hypo_rs >> rf_mo >> I(ATOM & R) >> po_sc_to_sem >> I(ACQ & F))
    | (I(REL & F) >> po.opt >> I(CBAR) >> ((syncbar & inscope) - id_) >> I(CBAR) >> po.opt >> I(ACQ & F))
)


def ithb(storage: Set, semantics: Set):
    """Inter-thread happens-before for a set of storage classes."""
    return (
        ssw
        | (I(semantics) >> sw >> I(semantics))
        | (I(storage | semantics) >> po >> I(REL & semantics))
        | (I(ACQ & semantics) >> po >> I(storage | semantics))
    ).plus


# Happens-before: program order, and inter-thread happens-before for every
# non-empty set of storage classes (an operation's semantics name them all).
hb = po
for n in range(1, 5):
    for ks in combinations(range(4), n):
        storage, semantics = STORAGE[ks[0]], SEMANTICS[ks[0]]
        for k in ks[1:]:
            storage, semantics = storage | STORAGE[k], semantics & SEMANTICS[k]
        hb = hb | ithb(storage, semantics)


def chain_scopes(chains):
    """Availability and visibility chains to each domain, within the pairs `chains` allows."""
    AVSG, VISSG = AV | SEMAV, VIS | SEMVIS
    AVWG, VISWG = AVSG & WG_UP, VISSG & WG_UP
    AVQF, VISQF = AVSG & QF_UP, VISSG & QF_UP
    AVSH, VISSH = AVSG & DV_UP, VISSG & DV_UP
    step_sg, step_wg, step_qf = hb & ssg & avvisinc, hb & swg & avvisinc, hb & sqf & avvisinc
    avsg = I(AVSG)
    avwg = (chains & (avsg >> step_sg).opt) >> I(AVWG)
    avqf = (chains & ((avsg >> step_sg).opt >> (avwg >> step_wg).opt)) >> I(AVQF)
    avsh = (chains & ((avsg >> step_sg).opt >> (avwg >> step_wg).opt >> (avqf >> step_qf).opt)) >> I(AVSH)
    vissg = I(VISSG)
    viswg = I(VISWG) >> (chains & (step_sg >> vissg).opt)
    visqf = I(VISQF) >> (chains & ((step_wg >> viswg).opt >> (step_sg >> vissg).opt))
    vissh = I(VISSH) >> (chains & ((step_qf >> visqf).opt >> (step_wg >> viswg).opt >> (step_sg >> vissg).opt))
    return avsg, avwg, avqf, avsh, vissg, viswg, visqf, vissh


def location_order(chains):
    """locord: the accesses of a location ordered by happens-before within a
    thread, between non-private reads and later accesses, and from a write
    made available to a domain to a write after it or a read it is visible to."""
    avsg, avwg, avqf, avsh, vissg, viswg, visqf, vissh = chain_scopes(chains)
    avdv, visdv = I(AVDEVICE), I(VISDEVICE)
    np_w, np_r, np_m = I(W - PRIV), I(R - PRIV), I(M - PRIV)
    near = po.opt & avvisinc

    def through(av, step, vis):
        return (np_w >> near >> av >> step >> np_w) | (np_w >> near >> av >> step >> vis >> near >> np_r)

    return loc & (
        (hb & int_ & vloc)
        | (np_r >> hb >> np_m)
        | (I(R) >> ssw.plus >> I(M))
        | (vloc & through(avsg, hb & ssg, vissg))
        | (vloc & through(avwg, hb & swg, viswg))
        | (vloc & through(avqf, hb & sqf, visqf))
        | (vloc & through(avsh, hb, vissh))
        | (I(W) >> (hb & avvisinc) >> avdv >> hb >> I(W))
        | (I(W) >> (hb & avvisinc) >> avdv >> hb >> visdv >> (hb & avvisinc) >> I(R))
    )


def supports(test: AST.Test) -> None:
    if test.arch != "VULKAN":
        raise UnsupportedFeature(
            f"vulkan reads Dat3M's Vulkan tests (header VULKAN); this is a {test.arch} test", test.path
        )


EVENTS = (M | F | CBAR | AVDEVICE | VISDEVICE) - IW  # what chains are made of


def build(name: str, chains, doc: str, dat3m_fr: bool = False) -> Model:
    locord = location_order(chains)
    # [VK] "From-reads": a read reads a value written earlier than the write
    # in its scoped modification order or location order, or reads the
    # initial value and the write is any write of its location (Khronos'
    # Alloy model since its 2024 revision: ~rf . ((W -> W) & locord)).
    # Dat3M's vulkan.cat (`dat3m_fr`) takes the locord case only where the
    # read is itself location-ordered after the write it reads: it allows
    # non-atomic reads of a racy location that the specification forbids
    # (Khronos' noncohcoww, Dat3M's CoWW-RR)
    reads = (rf & locord).inv if dat3m_fr else rf.inv
    fr_vk = (reads >> ((W * W) & locord)) | (rf.inv >> asmo) | ((I(IW) >> rf).inv >> ((loc >> I(W)) - id_))
    # no axiom forbids a cycle of dependencies through rf: values out of thin air are the model's (Dat3M's OOTA test)
    model = Model(name, doc=doc, supports=supports, thin_air=True)
    model.show("hb", hb)
    model.show("locord", locord)
    model.acyclic(locord | rf | fr_vk | asmo, "consistency_cycle")
    # a non-atomic read reads no write hidden by another write between them in locord
    model.empty((rf >> I(R - ATOM)) & ((I(W) >> locord) >> (I(W) >> locord).plus), "consistency_rf")
    model.empty(rmw & ((fr_vk & ext) >> (asmo & ext)), "atomic")
    pairs = ((W * W) | (W * R) | (R * W)) - ((IW * M) | (M * IW))
    race = loc & (pairs - mutordatom - id_ - (locord | locord.inv))
    model.empty(race, "data_race", flag="data_race")
    return model


MODEL = build("vulkan", EVENTS * EVENTS, __doc__)
MODEL_NOCHAINS = build(
    "vulkan-nochains",
    I(EVENTS),
    "The Vulkan memory model with availability and visibility chains of one "
    "operation only (Dat3M's vulkan-nochains.cat, with the specification's "
    "from-read); see `vulkan`.",
)
_DAT3M = " Dartagnan's reading: from-read as Dat3M's vulkan.cat defines it (docs/readings.md)."
MODEL_DAT3M = build("vulkan-dat3m", EVENTS * EVENTS, __doc__ + _DAT3M, dat3m_fr=True)
MODEL_NOCHAINS_DAT3M = build("vulkan-nochains-dat3m", I(EVENTS), MODEL_NOCHAINS.doc + _DAT3M, dat3m_fr=True)
