"""RC11, the repaired C11 of Lahav, Vafeiadis, Kang, Hur and Dreyer
([RC11] Fig. 1 and sec. 3): release/acquire synchronisation through
release sequences and fences, happens-before, extended coherence order
`eco`, and the repaired SC axiom (`psc`: SC-before over seq_cst accesses
and fences, where an SC access ordered only through happens-before
between accesses of other locations no longer orders them, which makes
the leading-fence mappings to Power and to PTX sound); no thin air
(`sb | rf` acyclic); races on plain accesses are undefined behaviour,
flagged. The model [PTX19] proves NVIDIA's C++ to PTX mapping against
(in its scoped form); hrf's `c11` is the older [BDW16] model, with the
simplified SC axiom. Scopes are not RC11's: read, not used."""

from ..dsl import IW as IW_
from ..dsl import F, I, M, Model, R, W, co, ext, id_, loc, po, rf, rmw
from ..litmus import ast as AST
from .common import ACQ, ACQ_REL, REL, SC, A, refuse

mo = co
sb = po
rb = (rf.inv >> mo) - id_  # [RC11] Fig. 1: rb (fr) without its identity pairs (an RMW's own read)
eco = (rf | mo | rb).plus  # extended coherence order
# release sequence: a write, then program-order-later atomic writes of its
# location, then RMWs reading each other ([RC11] sec. 3.1, the C11 repair: no mo)
rs = I(W) >> (sb & loc).opt >> I(W & A) >> (rf >> rmw).star
releasing, acquiring = REL | ACQ_REL | SC, ACQ | ACQ_REL | SC
sw = I(releasing) >> (I(F) >> sb).opt >> rs >> rf >> I(R & A) >> (sb >> I(F)).opt >> I(acquiring)
hb = (sb | sw).plus
# [RC11] sec. 3.2: SC-before and the partial SC relation
sbl = sb - loc
scb = sb | (sbl >> hb >> sbl) | (hb & loc) | mo | rb
pscb = (I(SC) | (I(F & SC) >> hb.opt)) >> scb >> (I(SC) | (hb.opt >> I(F & SC)))
pscf = I(F & SC) >> (hb | (hb >> eco >> hb)) >> I(F & SC)
psc = pscb | pscf
# conflicting accesses of one location, one a write, of two threads, not
# both atomic and ordered by hb neither way: a data race
conflict = ((((W * M) | (M * W)) & loc) - ((IW_ * M) | (M * IW_))) & ext
race = conflict - hb - hb.inv - (A * A)


def supports(test: AST.Test) -> None:
    refuse(test, "rc11", barriers=True, remote=True, consume=True, dialects=("C", "OpenCL"))


# uniproc: coherence orders a thread's own accesses (sb in hb); no thin air
MODEL = Model("rc11", doc=__doc__, supports=supports, uniproc=True)
MODEL.show("sw", sw)
MODEL.irreflexive(hb >> eco.opt, "coherence")
MODEL.irreflexive(rmw >> eco, "coherence_rmw")
MODEL.empty(rmw & (rb >> mo), "atomicity")
MODEL.acyclic(psc, "sc")
MODEL.acyclic(sb | rf, "no_thin_air")
MODEL.empty(race, "data_race", flag="data_race")
