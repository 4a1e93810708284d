"""Sequential consistency (Lamport 1979), as herd's sc.cat: every candidate
execution whose po | rf | co | fr is acyclic, with atomic RMWs.
No undefined behaviour: SC gives every program a meaning."""
from ..dsl import Model
from .common import atomicity_violation, sc_order

MODEL = Model("sc", doc=__doc__)
MODEL.acyclic(sc_order, "sc")
MODEL.empty(atomicity_violation, "atomicity")
