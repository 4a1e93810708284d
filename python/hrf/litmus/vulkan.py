"""Dat3M's Vulkan dialect (header `VULKAN`, `Vulkan` or `vulkan`): the
Vulkan memory model's litmus tests as Dartagnan reads them, on the layout
of `dat3m.py` (with its `{ ssw P0 P1; }` block and `y aliases x`).

    head    := 'sg' n ',' 'wg' n ',' 'qf' n
    cell    := st ('.nonpriv' | '.av' scope)? sc loc ',' v
             | ld ('.nonpriv' | '.vis' scope)? sc reg ',' loc
             | st '.atom' (scope sc | '.rel' scope sc semsc+ '.semav'?) loc ',' v
             | ld '.atom' (scope sc | '.acq' scope sc semsc+ '.semvis'?) reg ',' loc
             | rmw '.atom' (scope sc | mo scope sc semsc+ av-vis) ('.' op)? reg ',' loc ',' v
             | membar mo scope semsc+ av-vis
             | cbar (scope | mo scope semsc+ av-vis) n (',' v (',' v)?)?
             | avdevice | visdevice
             | op reg ',' v ',' v  |  (beq | bne | ...) v ',' v ',' label | goto label | label ':'
    scope   := .sg | .wg | .qf | .dv      sc := .sc0 .. .sc3      semsc := .semsc0 .. .semsc3
    mo      := .acq | .rel | .acq_rel     av-vis := '.semav'? '.semvis'? (as the order allows)
    op      := add | sub | mul | div | and | or | xor      (rmw without op: an exchange)
             | min | max | smin | smax | umin | umax | cmpxchg  (cmpxchg reg ',' loc ',' comparator ',' v)

Meanings, as Dartagnan's front end gives them (its event tags, which
`vulkan.cat` names, become hrf's event tags): a plain access has its
storage class (`SC0`..`SC3`); `.nonpriv` adds `NONPRIV`; `.av`/`.vis` add
`NONPRIV`, `AV`/`VIS` and the scope. Atomics are `NONPRIV`, `AV` (stores)
or `VIS` (loads), relaxed unless `.acq`/`.rel`, with their semantics'
storage classes (`SEMSC0`..) and `SEMAV`/`SEMVIS`. An RMW's read takes
the acquire side (order, `VIS`, `SEMVIS`, `SEMSC*` if it acquires), its
write the release side. Scopes: sg, wg and dv are hrf's sg, wg and dev;
a queue family (qf) sits between work group and device. A control
barrier (`cbar`) synchronises the threads of a work group that reach the
barrier of the same number; its memory side, where it has an order, is a
fence of that scope.
"""

from __future__ import annotations

from . import ast as A
from .dat3m import Dat3mReader, parse_dat3m

SCOPE = {"sg": "sg", "wg": "wg", "qf": "qf", "dv": "dev"}
MO = {"acq": "acq", "rel": "rel", "acq_rel": "acq_rel"}
STORAGE = {f"sc{n}": f"SC{n}" for n in range(4)}
SEMANTICS = {f"semsc{n}": f"SEMSC{n}" for n in range(4)}
OPS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "and": "&", "or": "|", "xor": "^"}
# SPIR-V's other atomic read-modify-writes: OpAtomicSMin/SMax (min, max
# too), OpAtomicUMin/UMax, and OpAtomicCompareExchange (cmpxchg r0, x,
# comparator, value: returns the old value, writes only where it equals
# the comparator)
RMW_MORE = {
    "min": "min",
    "max": "max",
    "smin": "min",
    "smax": "max",
    "umin": "umin",
    "umax": "umax",
    "cmpxchg": "cas_old",
}
# An RMW's read and write orders (Dartagnan's Tag.Vulkan.loadMO / storeMO)
RMW_ORDERS = {"rlx": ("rlx", "rlx"), "acq": ("acq", "rlx"), "rel": ("rlx", "rel"), "acq_rel": ("acq", "rel")}


class VulkanReader(Dat3mReader):
    ARCH = "VULKAN"

    def head(self) -> dict:
        """`sg 0, wg 0, qf 0`."""
        out = {}
        for k, word in enumerate(("sg", "wg", "qf")):
            if k:
                self.comma()
            if not self.at_word(word):
                self.fail(f"'{word}'")
            self.i += 1
            out[word] = self.number(self.expect("int", f"a {word} number"))
        return out

    LOCAL_OPS = OPS

    def instruction(self):
        stmt, op, t = self.control()
        if stmt is not None:
            return stmt
        line = self.line
        if op in ("avdevice", "visdevice"):
            return A.Fence((), op, None, line=line, tags=(op.upper(),))
        ms = self.mods()
        if op in ("ld", "st"):
            return self.access(op, ms, t)
        if op == "rmw":
            return self.rmw(ms, t)
        if op == "membar":
            order, scope, tags = self.semantics(op, ms, t, need_order=True)
            return A.Fence((), order, scope, line=line, tags=tags)
        if op == "cbar":
            order, scope, tags = self.semantics(op, ms, t, need_order=False)
            n, resource, quorum = self.barrier_operands()
            # the barrier of the work group (Dartagnan: its execution scope);
            # its memory scope and order, where given, make it a fence too;
            # without an order the scope is a tag alone, as Dartagnan gives it
            if order is None:
                tags, scope = (scope,), None
            return A.Barrier(
                (),
                n,
                scope,
                line=line,
                tags=("CBAR", *tags),
                resource=resource,
                quorum=quorum,
                order=order,
            )
        self.fail_at(t, "an instruction (ld, st, rmw, membar, cbar, avdevice, visdevice, add, bne, goto, ...)")

    # ------------------------------------------------------------ accesses
    def access(self, op: str, ms: list, t):
        line = self.line
        load = op == "ld"
        words = [m for m, _ in ms]
        if words[:1] == ["atom"]:
            order, scope, sem, sc = self.atomic_head(op, ms[1:], t, "acq" if load else "rel")
            tags = (sc, "NONPRIV", "VIS" if load else "AV", *sem)
            if load:
                dst = self.reg()
                self.comma()
                loc = self.loc()
                return A.Assign(dst, A.Load(loc, True, order, scope, line=line, tags=tags), line=line)
            loc = self.loc()
            self.comma()
            return A.Store(loc, self.value(), True, order, scope, line=line, tags=tags)
        # a plain access: [.nonpriv | .av scope | .vis scope] storage-class
        tags = ()
        rest = ms
        flag = "vis" if load else "av"
        if words[:1] == ["nonpriv"]:
            tags, rest = ("NONPRIV",), ms[1:]
        elif words[:1] == [flag]:
            scope = self.scope(ms[1:2], t)
            tags, rest = ("NONPRIV", flag.upper(), scope), ms[2:]
        elif words[:1] in (["av"], ["vis"]):
            self.fail_at(ms[0][1], f"{'a load' if load else 'a store'} takes .{flag}, not .{words[0]}")
        if len(rest) != 1:
            self.fail_at(rest[1][1] if len(rest) > 1 else self.peek(), "a storage class (.sc0 .. .sc3), last")
        tags = (self.storage(rest[0]), *tags)
        if load:
            dst = self.reg()
            self.comma()
            loc = self.loc()
            return A.Assign(dst, A.Load(loc, line=line, tags=tags), line=line)
        loc = self.loc()
        self.comma()
        return A.Store(loc, self.value(), line=line, tags=tags)

    def rmw(self, ms: list, t):
        line = self.line
        if [m for m, _ in ms[:1]] != ["atom"]:
            self.fail_at(ms[0][1] if ms else self.peek(), "rmw.atom")
        ms = ms[1:]
        kind = "exch"
        if ms and (ms[-1][0] in OPS or ms[-1][0] in RMW_MORE):
            kind = ms[-1][0]
            if kind == "div":
                self.unsupported("rmw .div is not supported (hrf's RMWs have no division)", ms[-1][1])
            ms = ms[:-1]
        order, scope, tags, sc = self.atomic_head("rmw", ms, t, None)
        # Dartagnan's VisitorVulkan: the read takes the acquire side, the write the release side
        orders = RMW_ORDERS[order]
        semsc = tuple(x for x in tags if x.startswith("SEMSC"))
        read = ("VIS", *(("SEMVIS",) if "SEMVIS" in tags else ()), *(semsc if orders[0] == "acq" else ()))
        write = ("AV", *(("SEMAV",) if "SEMAV" in tags else ()), *(semsc if orders[1] == "rel" else ()))
        dst = self.reg()
        self.comma()
        loc = self.loc()
        self.comma()
        v = self.value()
        expected = None
        if kind == "cmpxchg":  # OpAtomicCompareExchange: the comparator, then the value
            self.comma()
            expected, v = v, self.value()
        rmw = A.Rmw(
            "add" if kind == "div" else RMW_MORE.get(kind, kind),  # (div is refused above)
            loc,
            v,
            order,
            scope,
            line=line,
            tags=(sc, "NONPRIV"),
            orders=orders,
            half_tags=(read, write),
            expected_value=expected,
        )
        return A.Assign(dst, rmw, line=line)

    def atomic_head(self, op: str, ms: list, t, allowed: str | None) -> tuple:
        """After `.atom`: `scope sc` or `mo scope sc semsc+ av-vis` ->
        (order, scope, semantics tags, storage-class tag)."""
        order = "rlx"
        if ms and ms[0][0] in MO:
            order = MO[ms[0][0]]
            if allowed is not None and order != allowed:
                what = {"acq": "a load is .acq", "rel": "a store is .rel"}[allowed]
                self.fail_at(ms[0][1], f"{what} or relaxed (no order), not .{ms[0][0]}")
            ms = ms[1:]
        scope = self.scope(ms[:1], t)
        if len(ms) < 2:
            self.fail_at(self.peek(), "a storage class (.sc0 .. .sc3)")
        sc = self.storage(ms[1])
        tags = self.semantics_tail(op, order if order != "rlx" else None, ms[2:])
        return order, scope, tags, sc

    def semantics(self, op: str, ms: list, t, need_order: bool) -> tuple:
        """`mo scope semsc+ av-vis` (or, for cbar, a bare scope) -> (order, scope, tags)."""
        if ms and ms[0][0] in MO:
            order = MO[ms[0][0]]
            scope = self.scope(ms[1:2], t)
            return order, scope, self.semantics_tail(op, order, ms[2:])
        if need_order:
            self.fail_at(ms[0][1] if ms else self.peek(), f"{op} takes an order (.acq, .rel, .acq_rel)")
        scope = self.scope(ms[:1], t)
        if len(ms) > 1:
            self.fail_at(ms[1][1], f"a {op} without an order takes no semantics")
        return None, scope, ()

    def semantics_tail(self, op: str, order: str | None, ms: list) -> tuple:
        """`semsc+ .semav? .semvis?` after an order; nothing without one."""
        out: list[str] = []
        k = 0
        while k < len(ms) and ms[k][0] in SEMANTICS:
            out.append(SEMANTICS[ms[k][0]])
            k += 1
        if order is None:
            if ms:
                self.fail_at(ms[0][1], f"a relaxed {op} takes no semantics (.semsc, .semav, .semvis)")
            return ()
        if not k:
            self.fail_at(ms[0][1] if ms else self.peek(), "the semantics' storage classes (.semsc0 .. .semsc3)")
        for word, tag, needs in (("semav", "SEMAV", ("rel", "acq_rel")), ("semvis", "SEMVIS", ("acq", "acq_rel"))):
            if k < len(ms) and ms[k][0] == word:
                if order not in needs:
                    self.fail_at(ms[k][1], f".{word} needs a {' or '.join('.' + n for n in needs)} order")
                out.append(tag)
                k += 1
        if k < len(ms):
            self.fail_at(ms[k][1], "the end of the modifiers (.semsc*, then .semav, then .semvis)")
        return tuple(dict.fromkeys(out))

    def scope(self, ms: list, t) -> str:
        if not ms or ms[0][0] not in SCOPE:
            self.fail_at(ms[0][1] if ms else self.peek(), "a scope (.sg, .wg, .qf, .dv)")
        return SCOPE[ms[0][0]]

    def storage(self, m) -> str:
        if m[0] not in STORAGE:
            self.fail_at(m[1], "a storage class (.sc0 .. .sc3)")
        return STORAGE[m[0]]


def parse_vulkan(text: str, path: str | None = None) -> A.Test:
    return parse_dat3m(VulkanReader, text, path)
