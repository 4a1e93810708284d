"""herd's single-event RMWs, read over hrf's read and write linked by rmw
(the quotient of hrf's events by `id | rmw | rmw^-1`), and the shapes of
set expressions a reading of `generate_orders` relies on."""

from __future__ import annotations

from .. import dsl
from ..dsl import Rel, Set
from .builtins import RMW_EVENTS
from .values import Builtin, SetOrRel


class SingleEventRmw:
    r"""herd's RMW as one event, read over hrf's two. herd's C and OpenCL
    front ends of 2015 make an RMW one event, in both R and W; hrf makes a
    read and a write linked by rmw. A file written for the former (it takes
    `rmw` as a set, or intersects R with W) is read over the quotient of hrf's events by
    `same = id | rmw | rmw^-1`: a herd event is a class, a set is a union
    of classes, and a relation holds between all members of two classes.
    Then union, intersection, difference, complement, inverse, `;`,
    closures, products, domain, range and the tests mean on hrf's events
    what they mean on herd's, once three things are translated:
    - a built-in relation X (po, co, fr, loc, ...) is
      `same; (X \ (rmw | rmw^-1)); same`: the pairs inside one RMW (its
      read before its write in po, fr from its read to its write) are not
      pairs of herd events, and herd's fr leaves out an RMW with itself;
      but rf (and rfi) is `same; rf; same`: an RMW's read reading its own
      write is herd's RMW reading from itself, which herd's files forbid
      by `irreflexive rf`;
    - a built-in set S is saturated: S and the other half of every RMW
      with a half in S (an RMW is in R and in W);
    - the identity is `same`: `[S]` is `same; [S]`, `r?` is `r | same`,
      `r*` is `r+ | same`."""

    def __init__(self):
        self.cross = dsl.rmw | dsl.rmw.inv
        self.same = dsl.id_ | self.cross

    def set(self, s: Set) -> Set:
        return s | dsl.dom(self.cross >> dsl.I(s))

    # the built-ins whose pairs inside one RMW are herd's pairs of an event with itself
    SELF_PAIRS = frozenset({"rf", "rfi"})

    def rel(self, r: Rel, self_pairs: bool = False) -> Rel:
        return self.same >> (r if self_pairs else r - self.cross) >> self.same

    def ident(self, s: Set) -> Rel:
        return self.same >> dsl.I(s)

    def representatives(self, s: Set) -> Set:
        """One event of each class in s (an RMW's read): a witness order of
        herd's events is a total order of these."""
        return s - dsl.ran(dsl.rmw)

    def order(self, o: Rel) -> Rel:
        """An order of representatives, as an order of herd's events."""
        return self.same >> o >> self.same

    def builtins(self, env: dict) -> dict:
        out: dict = {}
        for k, v in env.items():
            if isinstance(v, SetOrRel):
                # herd's `rmw` is the set of RMW events only
                v = RMW_EVENTS
            if isinstance(v, Set):
                out[k] = self.set(v)
            elif isinstance(v, Rel):
                out[k] = self.rel(v, self_pairs=k in self.SELF_PAIRS)
            elif isinstance(v, Builtin) and k == "toid":
                out[k] = Builtin(k, self.ident)
            elif isinstance(v, Builtin) and not v.higher:
                out[k] = Builtin(v.name, self.lift_result(v.fn), v.arity)
            else:
                out[k] = v
        return out

    def lift_result(self, fn):
        def lifted(*args):
            v = fn(*args)
            return self.rel(v) if isinstance(v, Rel) else self.set(v) if isinstance(v, Set) else v

        return lifted


def inside(s, *within: tuple, single: SingleEventRmw | None = None) -> bool:
    """Is the set `s` (a DSL expression) inside the union of the basic sets
    `within` (their keys), as its shape shows: one of them, an intersection
    with one inside, a union of two inside, or a difference whose left
    side is inside? Under single-event RMWs, the saturation of a set inside
    is inside too (herd's events of that set). False where the shape does
    not show it."""
    k = s.key
    if k in within:
        return True
    if k[0] == "set_inter":
        return inside(k[1], *within, single=single) or inside(k[2], *within, single=single)
    if k[0] == "set_union":
        if single is not None and repr(single.set(k[1])) == repr(s):  # (nodes compare by identity: by shape here)
            return inside(k[1], *within, single=single)
        return inside(k[1], *within, single=single) and inside(k[2], *within, single=single)
    if k[0] == "set_diff":
        return inside(k[1], *within, single=single)
    return False
