"""HRF-direct-relaxed exactly as [HRFR15] Fig. 9 prints it: hhb.dr =
U_a (po | so_a)+ over agents a. A work-item is in its work-group's and its
device's scopes, so so_a chains a work-group pair with a device pair and
the "direct" model becomes transitive: [HRF14] Fig. 6 is race-free under it,
against [HRFR15] App. C.1 and Fig. 3's caption (docs/readings.md; a test pins this)."""

from .hrf_relaxed import hhb_direct_literal, hrf_relaxed_model

MODEL = hrf_relaxed_model("hrf-direct-relaxed-literal", __doc__, hhb_direct_literal())
