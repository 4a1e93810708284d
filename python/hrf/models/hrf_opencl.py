"""HRF-OpenCL ([HRFR15] Fig. 17): OpenCL 2.0 in HRF terms: HRF-indirect-relaxed
with OpenCL's scope inclusion (Def. 6.1/6.2: identical dynamic scope; svm
scope spans devices only between fine-grained allocations with platform
atomics), separate local and global happens-before joined by fences with
both flags, the observability of coarse-grained and local memory, and
OpenCL's restricted total order of seq_cst atomics.

Choices (pinned in tests/test_hrf_relaxed.py):
- allocation classes: `[x]=0 @fga` is a fine-grained SVM allocation with
  platform atomics, `@fine` one without, `@coarse` a coarse-grained buffer;
  a location with none is an ordinary (non-SVM) buffer, which sec. 6.2
  (footnote 6) puts with the coarse-grained ones;
- lhb and ghb close program order within their address space (as Fig. 14;
  see hrf_relaxed.hb_in); bso is fence-based (hrf_relaxed.bso);
- Fig. 17's race formula names hhb.dr; with clhb the model is defined by,
  hrf uses clhb.
"""

from ..dsl import ALL, IW, I, co, loc, rf, tag, universal
from .common import S_ALL, S_DEV, S_SG, S_WG, A, G, L
from .hrf_relaxed import Acq, Rel_, bso, hb_in, hrf_relaxed_model
from .opencl_common import same_dev, same_sg, same_wg

FGA = tag("alloc_fga")  # fine-grained with platform atomics; everything else is not

# Def. 6.1: equivalent dynamic scopes.
clincl = (
    ((S_SG * S_SG) & same_sg)
    | ((S_WG * S_WG) & same_wg)
    | ((S_DEV * S_DEV) & same_dev)
    | ((S_ALL * S_ALL) & ((FGA * FGA) | same_dev))
)

# so with clincl in place of inclusion (Fig. 17 so_{L,a}, so_{G,a}).
so_opencl = (I(Rel_) >> co.opt >> rf >> I(Acq)) & clincl
lhb = hb_in(L, so_opencl)
ghb = hb_in(G, so_opencl)
clhb = (lhb | ghb | bso(clincl)).plus

# Fig. 17 observability: global accesses of two devices observe each other
# only between fga locations; local accesses only within a work-group.
observable_cl = loc & (
    (IW * ALL) | (ALL * IW) | ((G * G) & ((FGA * FGA) | same_dev)) | ((L * L) & same_wg) | ((~(G | L)) * (~(G | L)))
)


# Fig. 17 sec. IV: the total order sc exists iff all atomics use svm scope
# on fga locations, or all use device scope and none is on an fga location.
def _if_empty(s):
    return universal - (universal >> I(s) >> universal)


sc_gate = _if_empty(A - (S_ALL & FGA)) | _if_empty((A - S_DEV) | (A & FGA))

MODEL = hrf_relaxed_model(
    "hrf-opencl", __doc__, clhb, observable_rel=observable_cl, incl=clincl, sc_gate=sc_gate, allow_fences=True
)
