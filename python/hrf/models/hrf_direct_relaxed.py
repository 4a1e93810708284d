"""HRF-direct-relaxed ([HRFR15] Fig. 9) with docs/readings.md's reading of its hhb.dr:
a synchronising pair belongs to the so of the narrower of its two scope
instances, and hhb.dr = U_S (po | so_S)+ over scope instances S."""

from .hrf_relaxed import hhb_direct_intent, hrf_relaxed_model

MODEL = hrf_relaxed_model("hrf-direct-relaxed", __doc__, hhb_direct_intent())
