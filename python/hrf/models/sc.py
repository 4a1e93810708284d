"""Sequential consistency (Lamport 1979), as herd's sc.cat: every candidate
execution whose po | rf | co | fr is acyclic, with atomic RMWs.
No undefined behaviour: SC gives every program a meaning. Fences order
nothing SC does not already order; an execution barrier (threads wait for
one another) is beyond it, so a test with barriers is refused."""

from ..dsl import Model
from ..litmus import ast as AST
from .common import atomicity_violation, refuse, sc_order


def supports(test: AST.Test) -> None:
    refuse(test, "sc", barriers=True)


# uniproc: acyclic(po | rf | co | fr).
MODEL = Model("sc", doc=__doc__, supports=supports, uniproc=True)
MODEL.acyclic(sc_order, "sc")
MODEL.empty(atomicity_violation, "atomicity")
