"""Dat3M's PTX dialect (header `PTX`): the PTX ISA 6.0 and 7.5 memory
model's litmus tests as Dartagnan reads them, on the layout of `dat3m.py`.
hrf's reader of [GPU15]'s older syntax (`GPU_PTX`) is `ptx.py`.

    head    := 'cta' n ',' 'gpu' n
    cell    := (st | sust) '.' sem ('.' scope)? loc ',' v
             | (ld | tld | suld | cold) '.' sem ('.' scope)? reg ',' loc  |  ld reg ',' v
             | (add | sub | mul | div) reg ',' v ',' v
             | (atom | suatom) '.' sem '.' scope '.' op reg ',' loc ',' v (',' v)?   (op: cas takes two)
             | (red | sured) '.' sem '.' scope '.' op loc ',' v
             | fence '.' (sc | acq_rel) '.' scope | fence '.proxy.' (proxy | alias)
             | bar '.cta.' (sync | arrive) n (',' v (',' v)?)?
             | (beq | bne | blt | ble | bgt | bge) v ',' v ',' label | goto label | label ':'
    sem     := weak | relaxed | acquire | release | acq_rel | sc      scope := cta | gpu | sys

Meanings (as Dartagnan gives them): `.weak` accesses are plain (no order,
no scope); `.relaxed`, `.acquire`, `.release` are atomic with the PTX
scope (cta -> hrf's wg, gpu -> dev, sys -> all); the proxy of an access
(generic, texture, surface, constant) is an event tag; `bar.cta.sync n`
is the control barrier n of the thread's CTA.
"""

from __future__ import annotations

from . import ast as A
from .dat3m import Dat3mReader, parse_dat3m

SCOPE = {"cta": "wg", "gpu": "dev", "sys": "all"}
SEM = {"weak": None, "relaxed": "rlx", "acquire": "acq", "release": "rel", "acq_rel": "acq_rel", "sc": "sc"}
RMW = {"add": "add", "sub": "sub", "mul": "mul", "and": "and", "or": "or", "xor": "xor"}
# the instruction names of each kind, with the proxy each one accesses memory through
LOADS = {"ld": "GEN", "tld": "TEX", "suld": "SUR", "cold": "CON"}
STORES = {"st": "GEN", "sust": "SUR"}
ATOMS = {"atom": "GEN", "suatom": "SUR"}
REDS = {"red": "GEN", "sured": "SUR"}
PROXIES = {"generic": "GEN", "constant": "CON", "texture": "TEX", "surface": "SUR"}
# An RMW's read and write orders (Dartagnan's Tag.PTX.loadMO / storeMO: relaxed
# halves stay strong, so that the two halves are morally strong)
RMW_ORDERS = {"rlx": ("rlx", "rlx"), "acq": ("acq", "rlx"), "rel": ("rlx", "rel"), "acq_rel": ("acq", "rel")}


class PtxReader(Dat3mReader):
    ARCH = "PTX"

    def head(self) -> dict:
        """`cta 0, gpu 0`."""
        if not self.at_word("cta"):
            self.fail("'cta'")
        self.i += 1
        cta = self.number(self.expect("int", "a CTA number"))
        self.comma()
        if not self.at_word("gpu"):
            self.fail("'gpu'")
        self.i += 1
        gpu = self.number(self.expect("int", "a GPU number"))
        return {"wg": cta, "dev": gpu}

    def instruction(self):
        stmt, op, t = self.control()
        if stmt is not None:
            return stmt
        line = self.line
        if op == "ld" and self.peek()[0] != "mod":  # ld r0, 1: a register takes a value
            dst = self.reg()
            self.comma()
            return A.Assign(dst, self.value(), line=line)
        ms = self.mods()
        words = [m for m, _ in ms]
        if op in STORES or op in LOADS:
            sem, scope = self.sem_scope(op, ms, t, memory=True)
            tags = (LOADS.get(op) or STORES[op],)
            if op in STORES:
                loc = self.loc()
                self.comma()
                v = self.value()
                return A.Store(loc, v, sem is not None, sem, scope, line=line, tags=tags)
            dst = self.reg()
            self.comma()
            loc = self.loc()
            return A.Assign(dst, A.Load(loc, sem is not None, sem, scope, line=line, tags=tags), line=line)
        if op in ATOMS or op in REDS:
            if len(ms) != 3:
                self.fail_at(t, f"{op} takes .sem.scope.operation (atom.acquire.gpu.add)")
            sem, scope = self.sem_scope(op, ms[:2], t, memory=True)
            kind, kt = ms[2]
            if sem in (None, "sc"):
                self.unsupported(f"{op}.{words[0]}: an atomic operation is relaxed, acquire, release or acq_rel", kt)
            tags = (ATOMS.get(op) or REDS[op],)
            if op in REDS:
                # RED: a reduction is an atomic operation, not a read (the PTX
                # ISA's operation types); models say what its read half may do
                tags = (*tags, "RED")
                if kind not in RMW:
                    self.fail_at(kt, f"unknown operation .{kind} ({', '.join(RMW)})")
                loc = self.loc()
                self.comma()
                v = self.value()
                red = A.Rmw(
                    RMW[kind], loc, v, sem or "rlx", scope, line=line, tags=tags, orders=RMW_ORDERS.get(sem or "")
                )
                return A.ExprStmt(red, line=line)
            dst = self.reg()
            self.comma()
            loc = self.loc()
            self.comma()
            v = self.value()
            orders = RMW_ORDERS.get(sem or "")
            if kind == "cas":  # writes only where the compare succeeds (the ISA; models choose: cas_writeback)
                self.comma()
                new = self.value()
                rmw = A.Rmw(
                    "cas_old", loc, new, sem or "rlx", scope, expected_value=v, line=line, tags=tags, orders=orders
                )
            elif kind == "exch":
                rmw = A.Rmw("exch", loc, v, sem or "rlx", scope, line=line, tags=tags, orders=orders)
            elif kind in RMW:
                rmw = A.Rmw(RMW[kind], loc, v, sem or "rlx", scope, line=line, tags=tags, orders=orders)
            else:
                self.fail_at(kt, f"unknown operation .{kind} (cas, exch, {', '.join(RMW)})")
            return A.Assign(dst, rmw, line=line)
        if op == "fence":
            if words[:1] == ["proxy"]:
                if len(ms) != 2 or words[1] not in (*PROXIES, "alias"):
                    self.fail_at(t, "fence.proxy.generic, .constant, .texture, .surface or .alias")
                tag = "ALIAS" if words[1] == "alias" else PROXIES[words[1]]
                return A.Fence(("proxy",), "proxy", None, line=line, tags=(tag,))
            if len(ms) != 2:
                self.fail_at(t, "fence.sc.<scope> or fence.acq_rel.<scope>")
            sem, scope = self.sem_scope(op, ms, t, memory=False)
            if sem not in ("sc", "acq_rel"):
                self.unsupported(f"fence.{words[0]}: a fence is sc or acq_rel", ms[0][1])
            return A.Fence((), sem or "sc", scope, line=line, tags=("GEN",))
        if op == "bar":
            if words[:1] != ["cta"] or len(ms) != 2 or words[1] not in ("sync", "arrive"):
                self.fail_at(t, "bar.cta.sync or bar.cta.arrive")
            n, resource, quorum = self.barrier_operands()
            return A.Barrier(
                (),
                n,
                "wg",
                line=line,
                tags=("CBAR",),
                resource=resource,
                quorum=quorum,
                arrive=words[1] == "arrive",
            )
        self.fail_at(t, "an instruction (ld, st, atom, red, fence, bar, add, beq, goto, ...)")

    def sem_scope(self, op: str, ms: list, t, memory: bool) -> tuple:
        """(order, scope) of `.sem[.scope]`: weak takes no scope, the others one."""
        if not ms or ms[0][0] not in SEM:
            self.fail_at(ms[0][1] if ms else self.peek(), f"{op} takes .weak, .relaxed, .acquire, .release, ...")
        sem = SEM[ms[0][0]]
        if sem is None:
            if len(ms) > 1:
                self.fail_at(ms[1][1], f"a weak {op} takes no scope")
            return None, None
        if len(ms) != 2 or ms[1][0] not in SCOPE:
            self.fail_at(ms[1][1] if len(ms) > 1 else self.peek(), "a scope (.cta, .gpu, .sys)")
        if memory and op in LOADS and sem not in ("rlx", "acq"):
            self.unsupported(f"{op}.{ms[0][0]}: a load is weak, relaxed or acquire", ms[0][1])
        if memory and op in STORES and sem not in ("rlx", "rel"):
            self.unsupported(f"{op}.{ms[0][0]}: a store is weak, relaxed or release", ms[0][1])
        return sem, SCOPE[ms[1][0]]


def parse_ptx_dat3m(text: str, path: str | None = None) -> A.Test:
    return parse_dat3m(PtxReader, text, path)
