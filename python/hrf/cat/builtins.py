"""The names a cat file uses without defining them: herd's built-in sets
and relations of its C, OpenCL and PTX front ends, and the few functions
of its standard library that the field's models call, each mapped onto
hrf's events and written here in hrf's own terms.

hrf's events differ from herd's in one way that matters to models: a
read-modify-write is a read and a write linked by `rmw`, where herd's C
and OpenCL front ends of 2015 have one event, which is in both R and W,
and call the set of such events `rmw`. `rmw` here is a relation where a
relation is wanted and the set of RMW events (both halves) where a set is
wanted; a file that takes it as a set is written for single-event RMWs
and is compiled under `SingleEventRmw` (compile.py).
"""

from __future__ import annotations

from .. import dsl
from ..dsl import Rel, Set
from ..models.common import (
    ACQ,
    ACQ_REL,
    EF,
    NA,
    NAL,
    REL,
    REMOTE,
    RLX,
    S_ALL,
    S_DEV,
    S_SG,
    S_WG,
    S_WI,
    SC,
    XF,
    A,
    G,
    L,
    sr,
    sync_fence,
    syncbar,
    vloc,
)
from .values import Builtin, Empty, SetOrRel

CON = dsl.tag("con")
RMW_EVENTS = dsl.tag("RMW")
NOTHING = dsl.EMPTY_SET

_sets: dict[str, Set] = {
    # event kinds
    "M": dsl.M,
    "R": dsl.R,
    "W": dsl.W,
    "F": dsl.F,
    "IW": dsl.IW,
    "I": dsl.IW,  # herd 2015's name for the initial writes
    "FW": dsl.W - dsl.dom(dsl.co),  # final writes: co-last
    "A": A,  # atomic accesses
    "NA": NA,
    # C's memory orders (herd7's C front end)
    "RLX": RLX,
    "ACQ": ACQ,
    "REL": REL,
    "ACQ_REL": ACQ_REL,
    "SC": SC,
    "CON": CON,
    # herd 2015's C++11 front end: memory orders in lower case, and the
    # initial writes' additional synchronises-with (CPP11Action, CPP11ModelChecker)
    "rlx": RLX,
    "acq": ACQ,
    "rel": REL,
    "acq_rel": ACQ_REL,
    "sc": SC,
    "con": CON,
    "na": NA,
    "brmw": NOTHING,  # blocked RMWs: hrf's tests have no locks
    "lk": NOTHING,
    "ls": NOTHING,
    "ul": NOTHING,
    "mutexloc": NOTHING,
    # locks: hrf's tests have none
    "LK": NOTHING,
    "UL": NOTHING,
    "LS": NOTHING,
    # OpenCL's orders and scopes (herd 2015's OpenCL front end)
    "memory_order_relaxed": RLX,
    "memory_order_acquire": ACQ,
    "memory_order_release": REL,
    "memory_order_acq_rel": ACQ_REL,
    "memory_order_seq_cst": SC,
    # herd gives initial writes and non-atomic accesses work-item scope, and
    # puts the initial writes in one pseudo work-item (herd 2015's OpenCL
    # front end: mk_init_write, and its parser for `*x` and `*x = e`)
    "memory_scope_work_item": S_WI | dsl.IW | NA,
    "memory_scope_sub_group": S_SG,
    "memory_scope_work_group": S_WG,
    "memory_scope_device": S_DEV,
    "memory_scope_all_svm_devices": S_ALL,
    # regions, fences, locations
    "G": G,
    "L": L,
    "entry_fence": EF,
    "exit_fence": XF,
    "atomicloc": ~NAL & dsl.M,
    "nonatomicloc": NAL,
    "remote": REMOTE,
    "emptyset": NOTHING,
}

_KIND = {"M": dsl.M, "R": dsl.R, "W": dsl.W}

_rels: dict[str, Rel] = {
    "po": dsl.po,
    "rf": dsl.rf,
    "co": dsl.co,
    "mo": dsl.co,
    "co0": dsl.loc & (dsl.IW * (dsl.W - dsl.IW)),  # herd7: initial writes before the others
    "fr": dsl.fr,
    "loc": dsl.loc,
    "int": dsl.int_,
    "ext": dsl.ext,
    "id": dsl.id_,
    "data": dsl.base("data"),
    "ctrl": dsl.base("ctrl"),
    "addr": dsl.base("addr"),
    "unv": dsl.universal,
    "atom": dsl.rmw,  # herd 2015 (PTX, SC): an atomic RMW's read and write
    "lo": dsl.base("empty"),  # lock order: no locks
    "asw": dsl.IW * ~dsl.IW,  # herd 2015's C++11: the initial writes before every other event
    # the scope tree: events of threads in the same instance of a scope
    "wi": dsl.same_thread_attr("wi") | (dsl.IW * dsl.IW),
    "sg": dsl.same_thread_attr("sg"),
    "wg": dsl.same_thread_attr("wg"),
    "dev": dsl.same_thread_attr("dev"),
    "cta": dsl.same_thread_attr("wg"),  # PTX's names
    "gl": dsl.same_thread_attr("dev"),
    "sys": dsl.universal,
    "same_B": dsl.same_event_attr("bar"),  # the same barrier instance
    # PTX's fences (herd 2015's GPU_PTX front end) are relations: events
    # separated in po by a membar of that scope
    "membar.cta": dsl.po >> dsl.I(dsl.F & S_WG) >> dsl.po,
    "membar.gl": dsl.po >> dsl.I(dsl.F & S_DEV) >> dsl.po,
    "membar.sys": dsl.po >> dsl.I(dsl.F & S_ALL) >> dsl.po,
    # herd 2015's selections (pairs of kinds), also applied as `WW(r)`
    **{a + b: _KIND[a] * _KIND[b] for a in "MRW" for b in "MRW"},
    # herd's standard library
    "po-loc": dsl.po & dsl.loc,
    "rfe": dsl.rf & dsl.ext,
    "rfi": dsl.rf & dsl.int_,
    "coe": dsl.co & dsl.ext,
    "coi": dsl.co & dsl.int_,
    "fre": dsl.fr & dsl.ext,
    "fri": dsl.fr & dsl.int_,
}


def _toid(s):
    if not isinstance(s, Set):
        raise TypeError("takes a set")
    return dsl.I(s)


def _of_relation(project):
    """domain or range: a set from a relation (herd's `0` gives the empty set)."""

    def fn(r):
        if isinstance(r, Empty):
            return NOTHING
        if isinstance(r, SetOrRel):
            r = r.as_rel
        if not isinstance(r, Rel):
            raise TypeError("takes a relation")
        return project(r)

    return fn


def _fencerel(s):
    if not isinstance(s, Set):
        raise TypeError("takes a set of fences")
    return (dsl.po & (dsl.ALL * s)) >> dsl.po


def _union_per(attr: str):
    def per(fn):
        """The union, over the classes of events that agree on `attr`, of fn(class)."""
        return dsl.foreach(attr, lambda cls: fn(cls))

    return per


def same_name(op: str, name: str) -> str:
    """The cat name of a thread attribute's or an event attribute's pairs
    (`op`: same_thread_attr, same_event_attr): `same.NAME`; an event
    attribute named as a thread's (where an event is performed: its
    thread's unless its template says otherwise) is `same.event.NAME`."""
    from ..program import THREAD_ATTRS

    return f"same.event.{name}" if op == "same_event_attr" and name in THREAD_ATTRS else f"same.{name}"


def _hrf_names() -> dict:
    """hrf's own names, for models written for hrf (and printed by
    `hrf models --cat`): every event tag as `tag.NAME`, each thread or
    event attribute as `same.NAME` (the pairs that agree on it; an event
    attribute named as a thread's, `same.event.NAME`), and
    `union_per.NAME(fun S -> e)`, the union of e over the classes of events
    that agree on an event attribute."""
    from ..program import EVENT_ATTRS, TAGS, THREAD_ATTRS

    out: dict = {f"tag.{t}": dsl.tag(t) for t in TAGS}
    out.update({same_name("same_thread_attr", a): dsl.same_thread_attr(a) for a in THREAD_ATTRS})
    out.update({same_name("same_event_attr", a): dsl.same_event_attr(a) for a in EVENT_ATTRS})
    out.update({f"union_per.{a}": Builtin(f"union_per.{a}", _union_per(a), higher=True) for a in EVENT_ATTRS})
    return out


# Dartagnan's dialect (its cat/ folder): its names for the same things.
# Its RMWs are two events, as hrf's; its barrier is one event where hrf has
# an entry and an exit fence, so `syncbar` relates a barrier's entry to
# the exits of the same barrier instance.
_dartagnan: dict = {
    "WI": S_WI,
    "SG": S_SG,
    "WG": S_WG,
    "DV": S_DEV,
    "ALL": S_ALL,
    "GLOBAL": G,
    "LOCAL": L,
    "NAL": NAL,
    "RMW": RMW_EVENTS,
    "swg": dsl.same_thread_attr("wg"),
    "sdv": dsl.same_thread_attr("dev"),
    "ssg": dsl.same_thread_attr("sg"),
    # its PTX names: the scopes of CTA, GPU and system, the proxies
    "CTA": S_WG,
    "GPU": S_DEV,
    "SYS": S_ALL,
    **{t: dsl.tag(t) for t in ("GEN", "SUR", "TEX", "CON", "ALIAS", "ARRIVE")},
    "scta": dsl.same_thread_attr("wg"),  # the same CTA
    # its Vulkan names: queue families, system-synchronises-with
    "QF": dsl.tag("qf"),
    "sqf": dsl.same_thread_attr("qf"),
    "ssw": dsl.base("ssw"),
    "sr": sr,  # same-scope (models.common)
    "vloc": vloc,  # the same virtual location (models.common)
    "syncbar": syncbar,  # barriers of the same instance (models.common)
}

# Dartagnan's Vulkan names (its vulkan.cat header), for files whose title
# starts `VULKAN`: its front end gives an acq_rel operation both ACQ and REL
# (VisitorVulkan), and calls its atomics ATOM.
_VULKAN: dict = {
    "ATOM": A,
    "ACQ": ACQ | ACQ_REL,
    "REL": REL | ACQ_REL,
    **{
        t: dsl.tag(t)
        for t in (
            *(f"SC{n}" for n in range(4)),
            *(f"SEMSC{n}" for n in range(4)),
            *("AV", "VIS", "SEMAV", "SEMVIS", "AVDEVICE", "VISDEVICE", "NONPRIV", "CBAR"),
        )
    },
}
# Dartagnan's PTX names, for files whose title starts `PTX`: CON is the
# constant proxy there, where herd's C front end calls consume CON
_PTX: dict = {"CON": dsl.tag("CON")}
# ... read as the PTX ISA says: fence.sc is also a release and an acquire
# fence ([PTX19]'s Alloy model: FenceSC is a FenceAcqRel), where Dartagnan's
# front end tags it SC alone (the reading "dartagnan")
_PTX_ISA: dict = {**_PTX, "ACQ_REL": ACQ_REL | (dsl.F & SC)}
ARCH_BUILTINS = {"VULKAN": _VULKAN, "PTX": _PTX_ISA}
# the readings of Dat3M's PTX tests a cat file may be run under (hrf.cat.load)
READINGS = ("isa", "dartagnan")

# Names whose meaning asks the model for a witness order: bound when a file uses them.
LAZY = ("sync_fence",)


def lazy_builtin(name: str, model: dsl.Model) -> Rel:
    """`sync_fence`, bound for the model being compiled (models.common)."""
    assert name == "sync_fence"
    return sync_fence(model)


BUILTINS: dict = {
    **_dartagnan,
    **_hrf_names(),
    **_sets,
    **_rels,
    "rmw": SetOrRel(RMW_EVENTS, dsl.rmw),
    "toid": Builtin("toid", _toid),
    "domain": Builtin("domain", _of_relation(dsl.dom)),
    "range": Builtin("range", _of_relation(dsl.ran)),
    "fencerel": Builtin("fencerel", _fencerel),
}


def builtins_for(arch: str, reading: str = "isa") -> dict:
    """The names a cat file of that architecture (its title's first word)
    starts with, under `reading` (READINGS)."""
    extra = _PTX if arch.upper() == "PTX" and reading == "dartagnan" else ARCH_BUILTINS.get(arch.upper())
    return {**BUILTINS, **extra} if extra else BUILTINS
