"""HRF-indirect-relaxed-observable ([HRFR15] Fig. 13 with Fig. 12's hhb.ir)."""

from .hrf_relaxed import hhb_indirect, hrf_relaxed_model

MODEL = hrf_relaxed_model("hrf-indirect-relaxed-observable", __doc__, hhb_indirect(), observability=True)
