"""HRF-direct ([HRF14], sidebar "Formal Definition of HRF-direct"): work-items
that communicate must synchronize with operations of the exact same scope.

    hhb.d = U_S (po | so_S)+      (the closure inside the union, not outside)
"""

from ..dsl import I, foreach, po
from .hrf_common import hrf_model, so

# One happens-before per scope instance S: so restricted to S, closed with po.
# The union over scope instances always contains po, also in a program where
# no event has a scope (no atomics): `foreach` over no instance is empty.
hhb_d = po | foreach("sinst", lambda S: (po | (I(S) >> so)).plus)

MODEL = hrf_model("hrf-direct", __doc__, hhb_d)
