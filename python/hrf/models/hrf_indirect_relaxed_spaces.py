"""HRF-indirect-relaxed with multiple address spaces ([HRFR15] Fig. 14): one
happens-before per address space (global, local), joined by the bridging
synchronisation of fences with both flags: hhb.ir = (U_as hhb.ir_as | bso)+.
Choices where the figure is ambiguous are stated in hrf_relaxed.hb_in and
hrf_relaxed.bso."""

from .common import G, L
from .hrf_relaxed import bso, hb_in, hrf_relaxed_model, inclusive

hhb = (hb_in(G) | hb_in(L) | bso(inclusive)).plus

MODEL = hrf_relaxed_model("hrf-indirect-relaxed-spaces", __doc__, hhb, allow_fences=True)
