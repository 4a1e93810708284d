"""C11 without consume ([BDW16] App. B; Batty, Donaldson, Wickerson, POPL 2016),
with the simplified SC axiom of App. A: SC-before over seq_cst operations,
through fences sequenced before and after, must be acyclic. Data races
and unsequenced races are undefined behaviour. The definitions follow
herd7's c11_simp.cat (the reference of c11-herd2015/), adapted to hrf's
events, where an RMW is a read and a write linked by `rmw`."""

from ..dsl import ALL, IW, F, I, M, Model, R, W, co, dom, ext, fr, id_, int_, loc, po, ran, rf, rmw
from ..litmus import ast as AST
from .common import ACQ, ACQ_REL, REL, SC, A, refuse

mo = co
fsb = po & (F * ALL)  # a fence sequenced before
sbf = po & (ALL * F)  # a fence sequenced after
cacq = ACQ | (SC & (R | F)) | ACQ_REL
crel = REL | (SC & (W | F)) | ACQ_REL

# Init writes synchronise with the first memory access of each thread (asw).
asw = IW * (M - IW)
pp_asw = asw - (asw >> po)

# Release sequence: mo-later writes of the same thread or RMWs, up to the first other write.
rs_prime = int_ | (ALL * ran(rmw))
rs = mo & rs_prime - ((mo - rs_prime) >> mo)

# Release/acquire synchronisation, through fences.
sw_ra = ext & (I(crel) >> fsb.opt >> I(A & W) >> rs.opt >> rf >> I(R & A) >> sbf.opt >> I(cacq))
sw = pp_asw | sw_ra

# Happens-before (no consume: no dependency-ordered-before).
ithbr = sw | (sw >> po)
ithb = (ithbr | (po >> ithbr)).plus
hb = po | ithb
hbl = hb & loc

# Visible side effects, and the final write of a non-atomic location.
vis = (hbl & (W * R)) - (hbl >> I(W) >> hbl)
final_writes = W - dom(co)


def supports(test: AST.Test) -> None:
    refuse(
        test, "c11", barriers=True, remote=True, consume=True, dialects=("C", "OpenCL")
    )  # docs/readings.md: C11 without consume


# The axioms have no no-thin-air condition ([BDW16] App. A): thin-air candidates are enumerated.
# uniproc: coherence and visible side effects order a thread's own accesses (sb in hb).
MODEL = Model("c11", doc=__doc__, supports=supports, thin_air=True, uniproc=True)
MODEL.show("sw", sw_ra)
MODEL.acyclic(hb, "hb")
MODEL.irreflexive(rf.inv.opt >> mo >> rf.opt >> hb, "coherence")
# Implied by coherence (hb contains po) but monotone in rf/co, where hb is
# not (rs uses mo negatively): lets the core prune. Changes no verdict.
MODEL.irreflexive(rf.inv.opt >> mo >> rf.opt >> po, "coherence_po")
MODEL.irreflexive(rf >> hb, "rf")
MODEL.empty((rf >> I(R - A)) - vis, "nonatomic_rf")
MODEL.empty(I(final_writes - A) >> hbl >> I(W), "nonatomic_final_write")
MODEL.empty(rmw & (fr >> co), "rmw_atomicity")
# [BDW16] App. A: A is SC-before B when X reads before / happens before / precedes
# in mo Y, A is X or a fence sequenced before it, B is Y or a fence after it.
MODEL.acyclic(((SC * SC) & (fsb.opt >> (mo | fr | hb) >> sbf.opt)) - id_, "sc_simplified")

conflict = ((W * M) | (M * W)) & loc
MODEL.empty(ext & (conflict - hb - hb.inv - (A * A)), "data_race", flag="data_race")
MODEL.empty((int_ & conflict) - id_ - po.plus - po.plus.inv, "unsequenced_race", flag="unsequenced_race")
