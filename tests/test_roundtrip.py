"""The printer writes any AST as Dat3M-style OpenCL; parse(print(t)) == t."""

from hypothesis import HealthCheck, given, settings

import hrf
from hrf.litmus.printer import to_litmus
from strategies import litmus_asts

# The printer writes OpenCL/C; PTX tests are not printed back.


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(litmus_asts())
def test_generated_round_trip(t):
    text = to_litmus(t)
    assert hrf.parse(text) == t, text
