"""The values a cat file computes with besides hrf's DSL sets and
relations: herd's polymorphic `0`, built-in functions, and names that are
both a set and a relation. Shared by the built-ins and the compiler."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..dsl import Rel, Set


@dataclass(frozen=True)
class Empty:
    """herd's `0`: the empty set or relation, whichever the context wants."""


EMPTY = Empty()


@dataclass
class Builtin:
    name: str
    fn: Callable[..., Any]
    arity: int = 1
    # takes a cat function, which it calls with DSL values (union_per.*)
    higher: bool = False


class SetOrRel:
    """A name herd uses both as a set and as a relation (`rmw`). `on_set`,
    when given, is called each time the name is taken as a set."""

    def __init__(self, as_set: Set, as_rel: Rel, on_set=None):
        self.as_set, self.as_rel, self.on_set = as_set, as_rel, on_set
