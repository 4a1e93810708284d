"""HRF-direct-relaxed-observable ([HRFR15] Fig. 13): HRF-direct-relaxed (docs/readings.md
reading) with observability bounded by each location's allocation class."""

from .hrf_relaxed import hhb_direct_intent, hrf_relaxed_model

MODEL = hrf_relaxed_model("hrf-direct-relaxed-observable", __doc__, hhb_direct_intent(), observability=True)
