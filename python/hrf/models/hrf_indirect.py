"""HRF-indirect ([HRF14], sidebar "Formal Definition of HRF-indirect"): as
HRF-direct, but synchronization of different scopes composes transitively.

    hhb.i = (po | U_S so_S)+
"""

from ..dsl import po
from .hrf_common import hrf_model, so

hhb_i = (po | so).plus

MODEL = hrf_model("hrf-indirect", __doc__, hhb_i)
