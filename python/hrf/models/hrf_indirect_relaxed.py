"""HRF-indirect-relaxed ([HRFR15] Fig. 12): Fig. 9 with hhb.ir = (po | U_a so_a)+."""

from .hrf_relaxed import hhb_indirect, hrf_relaxed_model

MODEL = hrf_relaxed_model("hrf-indirect-relaxed", __doc__, hhb_indirect())
