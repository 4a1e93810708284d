"""A scheme of one's own: `rsp-new` with the invalidate after a
device-scope acquire load left out (on purpose: hrf refutes it).

    hrf compile litmus/rsp/corrupt-mp.litmus -s examples/rsp-new-no-acquire-inval.py
    hrf soundness litmus/rsp/corrupt-mp.litmus -s examples/rsp-new-no-acquire-inval.py

A scheme file defines SCHEME, a `hrf.mappings.Scheme`: rows keyed by
(operation, scope, remote) as in `python/hrf/mappings/__init__.py`, each a
sequence of machine instructions holding the access itself (LD, ST, RMWL1
or RMWL2) once, with where the row comes from.
"""

from hrf.mappings import Row, Scheme
from hrf.mappings.rsp_new import SCHEME as RSP_NEW

rows = dict(RSP_NEW.rows)
# rsp-new's row is LD; INVL1 WG: without the invalidate, later loads may
# read lines of the L1 older than the value acquired.
rows[("load", "dev", False)] = Row(("LD",), "rsp-new's row without its INVL1 WG")

SCHEME = Scheme(
    name="rsp-new-no-acquire-inval",
    description="rsp-new without the invalidate after a device-scope acquire load (broken on purpose)",
    model=RSP_NEW.model,
    rows=rows,
    several_devices=dict(RSP_NEW.several_devices),
    missing=dict(RSP_NEW.missing),
)
