"""The PTX memory model of PTX ISA 7.5: PTX 6.0's model ([PTX19],
`ptx-6.0`) with proxies, the mixed-proxy extension of [PTX22], as
Dartagnan checks it (Dat3M's `ptx-v7.5.cat`, stated here in hrf's DSL,
axiom for axiom), over Dat3M's PTX tests (header `PTX`).

Memory is reached through proxies: generic (`GEN`), surface (`SUR`),
texture (`TEX`), constant (`CON`); an alias (`y @ proxy aliases x`) is a
second virtual address of one location. Morally strong operations use the
same proxy and overlap in virtual address (`vloc`); causality order is
preserved across proxies only through proxy fences of the CTA
(`fence.proxy.*`) and alias fences (`fence.proxy.alias`). The 7.5 file
keeps no SC-per-location axiom, as [PTX22]'s Alloy model (the ISA states
one; adding it changes no verdict here: docs/readings.md), and its causality axiom is PTX 6.0's
(`(rf | fr); cause`, the paper's and the ISA's form, not the Alloy
model's `(rf | co | fr)?; cause`: the file's header says why). Where
the ISA and Dartagnan's front end differ (fence.sc an acq_rel fence too,
`red` no read, a failing `atom.cas` no write), this model follows the ISA
as `ptx-6.0` does; `ptx-7.5-dat3m` keeps Dartagnan's readings.
"""

from __future__ import annotations

from ..dsl import F, I, M, Model, id_, loc, po, rf, rmw, universal
from ..dsl import tag as t
from .common import sync_fence, vloc
from .ptx_6_0 import (
    GEN,
    axioms,
    mixed_sizes,
    ms1,
    partial_overlap,
    patterns,
    read_only_loads,
    scta,
    supports,
    sync_barrier,
)

SUR, TEX, CON, ALIAS = t("SUR"), t("TEX"), t("CON"), t("ALIAS")
PROXIES = (GEN, SUR, TEX, CON)


def proxies(*kinds, cta=scta, ms1_=ms1):
    """The relations that depend on the proxies a model knows: the same
    proxy, morally strong pairs (`ms1_`: in program order or each in the
    other's scope), observation, and each proxy fence with the accesses of
    its CTA (`cta`: pairs of one thread block) through its proxy ([PTX22]
    proxy fences)."""
    same_proxy = kinds[0] * kinds[0]
    for p in kinds[1:]:
        same_proxy = same_proxy | (p * p)
    morally_strong = (ms1_ & same_proxy & ms3) - id_
    observation = (morally_strong & rf) | rmw
    return same_proxy, morally_strong, observation, I(F) >> (same_proxy & cta) >> I(M)


po_vloc = po & vloc
# ms2: the same proxy; ms3: memory operations overlap completely in virtual address
ms3 = (((M * M) & vloc) - partial_overlap) | (universal - (M * M))
same_proxy, morally_strong, observation, proxy_fence_ops = proxies(*PROXIES)


def proxy_preserved(cb, same_proxy=same_proxy, proxy_fence_ops=proxy_fence_ops, cta=scta):
    """Causality order that survives the change of proxy: generic to generic
    on one virtual address, within one proxy of one CTA (`cta`), or through
    proxy fences at either end and alias fences between ([PTX22])."""
    into, out_of = cb & proxy_fence_ops.inv, cb & proxy_fence_ops
    alias = cb >> I(F & ALIAS) >> cb
    return (
        (I(GEN) >> (vloc & cb) >> I(GEN))
        | (I(M) >> (same_proxy & cta & vloc & cb) >> I(M))
        | (vloc & (into >> cb >> I(GEN)))
        | (vloc & (I(GEN) >> cb >> out_of))
        | (vloc & (into >> cb >> out_of))
        | (loc & (I(GEN) >> alias >> I(GEN)))
        | (loc & (into >> alias >> I(GEN)))
        | (loc & (I(GEN) >> alias >> out_of))
        | (loc & (into >> alias >> out_of))
    )


def build(dartagnan: bool = False) -> Model:
    """PTX 7.5's model as the ISA states it, or as Dartagnan reads it
    (`dartagnan`, as ptx_6_0.build)."""
    name = "ptx-7.5-dat3m" if dartagnan else "ptx-7.5"
    doc = __doc__ + ("\nThis is Dartagnan's reading (ptx-v7.5.cat as its front end tags events)." if dartagnan else "")
    model = Model(
        name,
        doc=doc,
        supports=lambda test: supports(name, test, dartagnan),
        cas_writeback=True if dartagnan else None,
        vector_orders_sync_only=True,  # [PTX19]: po between two locations reaches others through a sync alone
        mixed_sizes=True,
    )
    release_pattern, acquire_pattern = patterns(po_vloc, dartagnan)
    sync = morally_strong & (release_pattern >> observation.plus >> acquire_pattern)
    fence_sc = sync_fence(model)

    def causality(fences):
        cause_base = (po.opt >> ((sync | fences | sync_barrier) >> po.opt).plus) | po
        return observation.opt >> proxy_preserved(cause_base)

    cause = causality(fence_sc)
    axioms(model, sync, cause, morally_strong, fence_sc, dartagnan)
    mixed_sizes(model, cause)
    read_only_loads(model)
    return model


MODEL = build()
