"""Definitions shared by several models; each cites where it comes from."""
from __future__ import annotations

from ..dsl import IW, M, W, co, fr, loc, po, rf, rmw, tag, id_, I

# Thread events: everything but the init writes.
TE = ~IW
A = tag("A")    # atomic accesses
NA = tag("NA")  # ordinary (non-atomic) data accesses

# SC candidate executions: Lamport's SC as acyclicity of all communication
# with program order (herd's sc.cat; 004 "sequentially consistent candidate").
sc_order = po | rf | co | fr

# RMW atomicity: no write comes between the write a read-modify-write reads
# from and its own write (herd: `empty rmw & (fre; coe)`).
atomicity_violation = rmw & (fr >> co)

# Two accesses conflict: same location, at least one a write (004 sidebar
# "Conflict Definitions"); init writes take no part in races.
conflict = (I(TE) >> (loc & ((W * M) | (M * W))) >> I(TE)) - id_
