"""Dat3M's PTX dialect (header `PTX`): the PTX ISA's memory model's litmus
tests as Dartagnan reads them, on the layout of `dat3m.py`, and the forms
of the PTX ISA that real kernels and compilers write. hrf's reader of
[GPU15]'s older syntax (`GPU_PTX`) is `ptx.py`.

    head    := 'cta' n (',' 'cluster' n)? ',' 'gpu' n
    cell    := (st | sust) qual* addr ',' v  |  st qual* '.' vec addr ',' '{' v (',' v)* '}'
             | (ld | tld | suld | cold) qual* reg ',' addr  |  ld reg ',' v
             | ld qual* '.' vec '{' reg (',' reg)* '}' ',' addr      (one per element: 2 or 4)
             | (add | sub | mul | div) reg ',' v ',' v
             | (atom | suatom) qual* '.' op reg ',' addr ',' v (',' v)?   (cas takes two)
             | (red | sured) qual* '.' op addr ',' v
             | fence ('.' (sc | acq_rel))? '.' scope | fence '.proxy.' (proxy | alias)
             | membar '.' (cta | gl | sys)
             | bar '.cta.' (sync | arrive) n (',' v (',' v)?)?          (Dat3M's operands)
             | (bar | barrier) ('.cta')? '.' (sync | arrive) ('.aligned')? a (',' b)?   (the ISA's)
             | (beq | bne | blt | ble | bgt | bge) v ',' v ',' label | goto label | label ':'
             | mbarrier.*, cp.async.bulk, fence.proxy.async, fence.mbarrier_init,
               barrier.cluster.*, wgmma.*                            (sm_90: `ptx_hopper.py`)
             | cp.async, its groups, cp.async.mbarrier.arrive         (sm_80: `ptx_hopper.py`)
             | mapa{.shared::cluster}.(u32 | u64) r, x, rank     (r: x's address in CTA rank; no event)
             | getctarank{.shared::cluster}.(u32 | u64) r, x     (r: the rank of x's CTA; no event)
             | ldmatrix.sync.aligned.m8n8.x1{.trans}{.shared{::cta}}.b16 {r}, [s]
             | stmatrix.sync.aligned.(m8n8 | m16n8).x1{.trans}{.shared{::cta}}.(b16 | b8) [s], {r}
                 (a weak load or store of s in the CTA's shared memory: one matrix of one element)
    qual    := '.' (sem | scope | space | type | cop | hint | mmio)   (any order, each but hints at most once)
    vec     := v2 | v4       mmio := `ld.mmio.relaxed.sys{.global}.type`, `st` alike
    cop     := ca | cg | cs | lu | cv (ld) | wb | cg | cs | wt (st)  (a weak access's; a hint)
    hint    := L1::evict_* | L1::no_allocate | L2::evict_* | L2::cache_hint | L2::64B | L2::128B | L2::256B
                 (no event; with L2::cache_hint, `, policy` after the operands)
    space   := global | shared | shared::cta | shared::cluster   (a shared location: `x @ shared P1`)
    sem     := weak | relaxed | acquire | release | acq_rel | volatile
    scope   := cta | cluster | gpu | sys      type := (b | u | s) (8 | 16 | 32 | 64)
    op      := add | sub | mul | and | or | xor | min | max | inc | dec | exch | cas
    loc     := name | '[' name ']'
    addr    := loc | '[' name '+' n ']'      (n bytes past an array's first element)
    init    := ... | name '[' n ']' ('=' '{' v (',' v)* '}')? ('@' 'shared' tid)?
                 (an array of n elements: `x[0]` .. `x[n-1]` in conditions)

Meanings, as the PTX ISA gives them: an access with no order is weak (no
scope); `.volatile` is relaxed at system scope; `.relaxed`, `.acquire`,
`.release` are strong with their scope (cta -> hrf's wg, cluster -> qf,
the level between CTA and GPU, gpu -> dev, sys -> all). `atom` and `red`
without an order are relaxed, without a scope at GPU scope; `min`/`max`
compare signed values unless the type is unsigned (`.u32`, `.u64`);
`inc`/`dec` are the ISA's wrapping counters. A vector access (`.v2`,
`.v4`) is one access of each element, of the same order and scope, "in an
unspecified order" (the ISA): an `AnyOrder`, each execution taking one
order; its elements are those of an array from its address (`[x+8]`, in
bytes, by the access's type), as a scalar access at `[x+4]` reaches one.
The ISA's register instructions (`setp`, `selp`, typed `add`, `mov`, `bra`,
...) compute on hrf's 64-bit values, and a guard `@p`/`@!p` makes its
instruction an `If`. An array accessed with several sizes (mixed-size accesses) has elements
of its narrowest access's bytes (`Init.mixed`); each access keeps its type
(`dtype`), and the compiler makes a wider one an event per element.
An `.mmio` access is relaxed at system scope: for the memory consistency
model, "a strong operation" (the ISA). `membar.cta/gl/sys` is
`fence.sc` at CTA, GPU or system scope; `fence.<scope>` is
`fence.acq_rel.<scope>`. The proxy of an access (generic, texture,
surface, constant) is an event tag; a reduction's events carry `RED` (it
is no read: the models say what that means). `bar.cta.sync n` is the
control barrier n of the thread's CTA with Dat3M's operands (a barrier
resource and a thread count after the number); `bar.sync a, b` and
`barrier.sync a, b` are the ISA's (the barrier resource a, the thread
count b). A thread with no `cluster` in its head is alone in its
cluster with its CTA (the ISA: a CTA launched without clusters is a
cluster of one), unless no thread names one and the test uses no
`.cluster` scope. A location declared `x @ shared P1` lies in the shared
memory of P1's CTA: its CTA reaches it generically or through
`.shared::cta`, the other CTAs of its cluster through `.shared::cluster`,
no other thread at all. `.f32` data is moved by `ld`, `st` and `mov` as
its bits (`0f3F800000`, the ISA's exact form of 1.0f, is 1065353216) and
summed by `atom.add.f32`/`red.add.f32` (an update RMW: the core's IEEE sum).
A test's thread is the one lane of its warp the test has: `elect.sync
d|p, mask` elects it (`|` followed by a predicate and a comma is the
instruction's, as in `setp ... p|q`, not the column separator).
`ld.global.nc` is a weak load (tagged `NC`) of data the models flag where
a thread writes it.
Forms the ISA gives but hrf does not model (other state spaces,
floating-point arithmetic and other float types, `bar.red`, warp barriers,
atomic operations of an array accessed with several sizes, `.b128`,
sm_100's 256-bit vectors) are refused by name.
"""

from __future__ import annotations

import dataclasses
import re

from . import ast as A
from .dat3m import Dat3mReader, parse_dat3m
from .ptx_hopper import SHARED, HopperForms
from .reader import END
from .toolkit import ParseFailure, Where, make_array_init

SCOPE = {"cta": "wg", "cluster": "qf", "gpu": "dev", "sys": "all"}
SEM = {"weak": None, "relaxed": "rlx", "acquire": "acq", "release": "rel", "acq_rel": "acq_rel", "sc": "sc"}
# the read-modify-write operations, as hrf's RMWs (min and max: signed; unsigned below)
RMW = {"add": "add", "sub": "sub", "mul": "mul", "and": "and", "or": "or", "xor": "xor"}
RMW_PTX = {**RMW, "min": "min", "max": "max", "inc": "inc", "dec": "dec"}
UNSIGNED = {"min": "umin", "max": "umax"}
TYPE = re.compile(r"[bus](8|16|32|64)")
FLOAT = re.compile(r"f16|f16x2|bf16|bf16x2|tf32|f32|f64")  # the ISA's floating-point types
# the instruction names of each kind, with the proxy each one accesses memory through
LOADS = {"ld": "GEN", "tld": "TEX", "suld": "SUR", "cold": "CON"}
STORES = {"st": "GEN", "sust": "SUR"}
ATOMS = {"atom": "GEN", "suatom": "SUR"}
REDS = {"red": "GEN", "sured": "SUR"}
PROXIES = {"generic": "GEN", "constant": "CON", "texture": "TEX", "surface": "SUR"}
MEMBAR = {"cta": "wg", "gl": "dev", "sys": "all"}
# ldmatrix's and stmatrix's (shape, type) pairs the ISA gives, for one matrix (.x1)
MATRIX_SHAPES = {"ldmatrix": (("m8n8", "b16"),), "stmatrix": (("m8n8", "b16"), ("m16n8", "b8"))}
# the ISA's other state spaces, floating-point types and qualifiers hrf does not model
SPACES = ("local", "const", "param", "tex")
VECTORS = ("v2", "v4", "v8")
HINTS = ("nc", "mmio", "L1", "L2", *VECTORS)
# cache operators of a weak ld and st: "treated as performance hints only. The use of a cache operator
# on an ld or st instruction does not change the memory consistency behavior of the program"
CACHE_OPS = {"ld": ("ca", "cg", "cs", "lu", "cv"), "st": ("wb", "cg", "cs", "wt")}
# eviction priorities, the L2 cache hint and prefetch sizes of ld and st: hints too (no event)
EVICTION = re.compile(
    r"L1::(evict_(normal|unchanged|first|last)|no_allocate)|L2::(evict_(normal|first|last)|cache_hint|64B|128B|256B)"
)
# instructions of the ISA whose meaning lies outside a litmus test's memory: refused by name
UNMODELLED = {
    "griddepcontrol": "programmatic dependent launch orders whole grids, and a litmus test launches one",
    "multimem": "multimem addresses (one access to the copies on several GPUs) are not modelled",
    "discard": "discard.global.L2 leaves the cache line's contents undefined, which hrf's memory does not model",
    "clusterlaunchcontrol": "sm_100's cluster launch control (cancelling a cluster's launch) is not modelled",
    "activemask": "the active lanes of a warp: a thread of a litmus test is one thread",
}
# an RMW's read and write orders (Dartagnan's Tag.PTX.loadMO / storeMO: relaxed
# halves stay strong, so that the two halves are morally strong)
RMW_ORDERS = {"rlx": ("rlx", "rlx"), "acq": ("acq", "rlx"), "rel": ("rlx", "rel"), "acq_rel": ("acq", "rel")}


# the ISA's integer instructions on registers (`register_op`), their types and setp's comparisons
BINARY_OPS = {"add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^"}
REGISTER_OPS = (*BINARY_OPS, "not", "shl", "mov", "setp", "selp", "bra")
INT_TYPES = ("u16", "u32", "u64", "s16", "s32", "s64", "b16", "b32", "b64")
BIT_TYPES = ("b16", "b32", "b64")
CMP = {
    "eq": "==",
    "ne": "!=",
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
    "lo": "lo",
    "ls": "ls",
    "hi": "hi",
    "hs": "hs",
}


def type_width(q: dict) -> int | None:
    """The bytes of an access's type (`.u32`: 4), None where it names none (Dat3M's dialect)."""
    return A.type_bytes(q["type"][0]) if "type" in q else None


class PtxReader(HopperForms):
    ARCH = "PTX"
    # a modifier may begin with a digit (`cp.async.bulk.tensor.2d`)
    TOKEN = re.compile(
        Dat3mReader.TOKEN.pattern.replace(r"(?P<mod>\.[A-Za-z_]", r"(?P<mod>\.[A-Za-z_0-9]")
        .replace(
            r"~<>\-]",
            r"~<>\-+!]",  # `+`: an address's offset, `[x+4]`; `!`: a negated guard, `@!p`
        )
        # a register as compilers name it, `%r1` or `%p1`: the dialect's `r1`, `p1`
        .replace(r"(?P<skip>[ \t\f\r\n]+", r"(?P<skip>[ \t\f\r\n]+|%(?=[rp][0-9])")
        # the ISA's floating-point constants, as their bits: `0f3F800000` (.f32), `0d...` (.f64)
        .replace(r"(?P<int>0x", r"(?P<int>0[fF][0-9a-fA-F]{8}(?![0-9A-Za-z_])|0[dD][0-9a-fA-F]{16}(?![0-9A-Za-z_])|0x")
    )

    def number(self, t) -> int:
        """An integer, or a floating-point constant as the ISA writes its exact bits ([PTXISA]
        "Floating-Point Constants": `0[fF]{hexdigit}{8}` single precision): the value of .f32 data,
        which ld, st and mov move as its bits (docs/readings.md). A `0d` constant (.f64) is
        refused by name: its bits pass hrf's range for a value."""
        if t[1][:2] in ("0f", "0F"):
            return int(t[1][2:], 16)
        if t[1][:2] in ("0d", "0D"):
            self.unsupported(f"{t[1]}: .f64 data is not modelled (its bits pass hrf's range for a value)", t)
            return 0
        return super().number(t)

    def __init__(self, src: str):
        super().__init__(src)
        self.arrays: dict = {}  # an array -> its number of elements
        # each access of an array: (array, bytes past it, bytes per element, elements, token, an RMW?)
        self.array_accesses: list = []

    def mods(self) -> list:
        """The modifiers, `.shared::cluster` and `.mbarrier::complete_tx::bytes` each one."""
        out = super().mods()
        while out and self.peek()[0] == ":" and self.peek(1)[0] == ":" and self.peek(2)[0] in ("name", "int"):
            word, tok = out[-1]
            if self.peek(2)[0] == "int":  # a size, `.L2::64B`: its digits, then its unit
                if self.peek(3)[0] != "name" or self.peek(3)[1] != "B":
                    break
                out[-1] = (f"{word}::{self.peek(2)[1]}B", tok)
                self.i += 1
            else:
                out[-1] = (f"{word}::{self.peek(2)[1]}", tok)
            self.i += 3
            out += super().mods()
        return out

    def head(self) -> dict:
        """`cta 0, gpu 0` or `cta 0, cluster 0, gpu 0`."""
        if not self.at_word("cta"):
            self.fail("'cta'")
        self.i += 1
        cta = self.number(self.expect("int", "a CTA number"))
        self.comma()
        out = {"wg": cta}
        if self.at_word("cluster"):
            self.i += 1
            out["qf"] = self.number(self.expect("int", "a cluster number"))
            self.comma()
        if not self.at_word("gpu"):
            self.fail("'gpu'" if "qf" in out else "'cluster' or 'gpu'")
        self.i += 1
        out["dev"] = self.number(self.expect("int", "a GPU number"))
        return out

    def finish(self, test: A.Test) -> A.Test:
        """Clusters: where no thread names one, each CTA is a cluster of its
        own (the ISA's CTAs launched without clusters), so that `.cluster`
        is the CTA's scope there; a test naming them for some threads
        alone is refused."""
        named = [t.qf is not None for t in test.threads]
        if any(named) and not all(named):
            t = test.threads[named.index(False)]
            msg = f"{t.name} names no cluster, where other threads do (cta n, cluster m, gpu k)"
            self.defer(ParseFailure(msg, t.line, 1))
        elif not any(named):
            ctas: dict = {}
            threads = tuple(A.with_fields(t, qf=ctas.setdefault((t.dev, t.wg), len(ctas))) for t in test.threads)
            test = dataclasses.replace(test, threads=threads)
        for th in test.threads:  # an array's elements are reached by ld, st, atom and red alone
            for op in th.ops:
                loc = getattr(op, "loc", None)
                if loc in self.arrays and not set(op.tags) <= {"GEN", "RED", "MMIO"}:
                    msg = f"{th.name}: {loc} is an array, whose elements ld, st, atom and red reach; this names a location"
                    self.defer(ParseFailure(msg, op.line, 1))
        grains = self.array_elements()
        if grains:  # an array's element width, as its typed accesses say (hrf run lays it out so)
            inits = []
            for i in test.init:
                if i.loc in grains:
                    width, mixed = grains[i.loc]
                    i = A.with_fields(i, width=width, mixed=mixed)
                    if mixed:
                        self.unsigned_elements(i, width)
                inits.append(i)
            test = dataclasses.replace(test, init=tuple(inits))
            mixed_widths = {loc: w for loc, (w, mixed) in grains.items() if mixed}
            if mixed_widths:
                threads = tuple(A.with_fields(t, body=self.regrain(t.body, mixed_widths)) for t in test.threads)
                test = dataclasses.replace(test, threads=threads)
        test = self.check_hopper(test)
        return super().finish(test)

    def instruction(self):
        if self.peek()[0] == "@":
            return self.guarded()
        stmt, op, t = self.control()
        if stmt is not None:
            return stmt
        line = self.line
        if op in REGISTER_OPS:
            return self.register_op(op, self.mods(), t, line)
        if op == "ld" and self.peek()[0] != "mod" and self.is_move():  # ld r0, 1: a register takes a value
            dst = self.reg()
            self.comma()
            return A.Assign(dst, self.value(), line=line)
        ms = self.mods()
        if op == "mbarrier":
            return self.mbarrier(ms, t, line)
        if op == "cp":
            return self.copy(ms, t, line)
        if op == "wgmma":
            return self.wgmma(ms, t, line)
        if op in MATRIX_SHAPES:
            return self.matrix_access(op, ms, t, line)
        if op == "mapa":
            return self.mapa(ms, t, line)
        if op == "getctarank":
            return self.getctarank(ms, t, line)
        if op in ("st", "red") and ms and ms[0][0] == "async":  # sm_90's asynchronous store and reduction
            return self.async_store(op, ms[1:], t, line)
        if op in ("prefetch", "prefetchu"):
            return self.prefetch(op, ms, t)
        if op == "elect":
            return self.elect(ms, t, line)
        if op in UNMODELLED:
            self.unsupported(f"{op}: {UNMODELLED[op]}", t)
            return self.skip_operands(line)
        if op in ("nanosleep", "applypriority", "createpolicy"):
            return self.hint(op, ms, t, line)
        if op == "st" and ms and ms[0][0] == "bulk":  # sm_100's st.bulk
            self.unsupported("st.bulk: sm_100's initialisation of a range of shared memory is not modelled", t)
            return self.skip_operands(line)
        if op == "tensormap":  # tensormap.replace (PTX ISA 8.3)
            self.unsupported("tensormap.replace: tensor maps modified on the device are not modelled", t)
            return self.skip_operands(line)
        if op in STORES or op in LOADS:
            return self.access(op, ms, t, line)
        if op in ATOMS or op in REDS:
            return self.atomic(op, ms, t, line)
        if op == "fence":
            return self.fence(ms, t, line)
        if op == "membar":
            if len(ms) != 1 or ms[0][0] not in MEMBAR:
                self.fail_at(ms[0][1] if ms else t, "membar.cta, membar.gl or membar.sys")
            # the ISA: on sm_70 and later, membar is a synonym of fence.sc
            return A.Fence((), "sc", MEMBAR[ms[0][0]], line=line, tags=("GEN",))
        if op in ("bar", "barrier"):
            return self.barrier(op, ms, t, line)
        self.fail_at(t, "an instruction (ld, st, atom, red, fence, membar, bar, add, beq, goto, ...)")

    def predicate(self) -> str:
        """A predicate register: `p`, `p1`, ... (the ISA's `.pred` registers)."""
        return self.reg(r"p[0-9]*", "a predicate register (p, p1, ...)")

    def second_predicate(self) -> str | None:
        """The predicate after `|` in a pair of destinations (`setp ... p|q`, `elect.sync d|p`),
        or None: a `|` followed by a predicate and a comma begins no cell (an instruction or a
        label would), so it is the instruction's, not the column separator."""
        after = self.peek(1)
        if self.peek()[0] != "|" or after[0] != "name" or not re.fullmatch(r"p[0-9]*", after[1]):
            return None
        if self.peek(2)[0] != ",":
            return None
        self.i += 1
        return self.predicate()

    def elect(self, ms: list, t, line: int):
        """`elect.sync d|p, membermask`: "elects one predicated active leader thread from among a
        set of threads specified by membermask"; p is true for the leader, d its lane. A thread of a
        litmus test is the one lane of its warp the test has: the lane of the warp that runs the
        test's code, lane 0 (hrf's reading: docs/readings.md): elected, p = 1, d = 0. The mask
        must hold it ("the executing thread must be in the membermask"): bit 0, a constant."""
        if [w for w, _ in ms] != ["sync"]:
            self.fail_at(ms[0][1] if ms else t, "elect.sync d|p, membermask (the ISA's form)")
        d = None if self.at_word("_") else self.reg(what="a register or _ (the elected lane)")
        if d is None:
            self.i += 1
        if self.second_predicate() is None:
            self.fail("'|' and a predicate register (elect.sync d|p, membermask)")
        p = self.toks[self.i - 1][1]
        self.comma()
        at = self.peek()
        if at[0] not in ("int", "-"):
            self.unsupported("elect.sync with a membermask in a register: hrf reads a constant mask", at)
            return self.skip_operands(line)
        if not self.signed() & 1:
            self.fail_at(
                at, "a membermask holding the thread's lane, lane 0 (bit 0): the ISA leaves the rest undefined"
            )
        out = [A.Assign(p, A.Const(1, line=line), line=line)]
        if d is not None:
            out.append(A.Assign(d, A.Const(0, line=line), line=line))
        return tuple(out)

    def guarded(self):
        """`@p instr` or `@!p instr`: the instruction where p holds (does not hold) ([PTXISA]
        "Predicated Execution": "All instructions have an optional guard predicate")."""
        line = self.line
        self.expect("@")
        negated = self.accept("!")
        p = self.predicate()
        if self.peek()[0] == "@" or self.peek(1)[0] == ":":
            self.fail("an instruction after the guard (one guard, no label)")
        body = self.instruction()
        body = tuple(body) if isinstance(body, (list, tuple)) else (body,)
        return A.If(A.BinOp("==" if negated else "!=", A.Reg(p, line=line), A.Const(0), line=line), body, line=line)

    def register_op(self, op: str, ms: list, t, line: int):
        """The ISA's integer instructions on registers ([PTXISA] "Integer Arithmetic Instructions",
        "Logic and Shift Instructions", "Comparison and Selection Instructions", `mov`, `bra`), on
        hrf's 64-bit values (docs/readings.md): `add`/`sub`/`mul.lo`/`and`/`or`/`xor.type d, a, b`,
        `shl.type d, a, n` (n a number), `mov.type d, a`, `setp.cmp.type p, a, b`,
        `selp.type d, a, b, p`, `bra{.uni} L`; on predicates `and`/`or`/`xor.pred p, q, r`,
        `not.pred p, q` and `mov.pred p, q` (a predicate holds 1 or 0: setp's)."""
        words = [w for w, _ in ms]
        if words == ["pred"] and op in ("and", "or", "xor", "not", "mov"):
            p = self.predicate()
            self.comma()
            q = A.Reg(self.predicate(), line=line)
            if op in ("not", "mov"):
                return A.Assign(p, A.BinOp("==", q, A.Const(0), line=line) if op == "not" else q, line=line)
            self.comma()
            r = A.Reg(self.predicate(), line=line)
            return A.Assign(p, A.BinOp(BINARY_OPS[op], q, r, line=line), line=line)
        if op == "not":
            self.fail_at(ms[0][1] if ms else t, "not.pred p, q (not on integer types is not read)")
        if op == "bra":
            if words not in ([], ["uni"]):
                self.fail_at(ms[0][1], "bra or bra.uni and a label")
            return A.Goto(self.label(), line=line)
        kinds: tuple[str, ...] = INT_TYPES if op not in ("and", "or", "xor") else BIT_TYPES
        if op == "mov":
            kinds += ("f32",)  # a copy of .f32 data: its bits
        if op == "mul":
            if words[:1] != ["lo"]:
                self.unsupported("mul.hi and mul.wide (a product's high half, or a wider product): mul.lo alone", t)
            words = words[1:]
        if op == "setp":
            if not words or words[0] not in CMP:
                self.fail_at(ms[0][1] if ms else t, f"setp's comparison (.{', .'.join(CMP)})")
            cmp, words = words[0], words[1:]
        floats = [(w, k) for w, k in ms if FLOAT.fullmatch(w) and (op, w) != ("mov", "f32")]
        if floats:
            what = "floating-point data other than .f32" if op == "mov" else "floating-point arithmetic"
            self.unsupported(
                f"{op}.{floats[0][0]}: {what} is not modelled (.f32 data moves through ld, st and mov as its bits)",
                floats[0][1],
            )
            return self.skip_operands(line)
        if len(words) != 1 or words[0] not in kinds:
            at = ms[-1][1] if ms else t
            self.fail_at(at, f"{op}'s type, one of .{', .'.join(kinds)}, and no other qualifier")
        typ = words[0]
        if op == "setp":
            p = self.predicate()
            negated = self.second_predicate()
            self.comma()
            a = self.value()
            self.comma()
            b = self.value()
            holds = A.Assign(p, A.BinOp(self.comparison(cmp, typ, ms[0][1]), a, b, line=line), line=line)
            if negated is None:
                return holds
            # `p|q`: "q = !(a CmpOp b)" ([PTXISA] setp)
            return holds, A.Assign(negated, A.BinOp("==", A.Reg(p, line=line), A.Const(0), line=line), line=line)
        dst = self.reg()
        self.comma()
        a = self.value()
        if op == "mov":
            return A.Assign(dst, a, line=line)
        self.comma()
        if op == "shl":  # a * 2^n (hrf's values are 64-bit signed: n at most 62)
            at = self.peek()
            k = self.number(self.expect("int", "a number of bits"))
            if k > 62:
                self.fail_at(at, "a shift of at most 62 bits (hrf's values are 64-bit signed integers)")
            return A.Assign(dst, A.BinOp("*", a, A.Const(1 << k), line=line), line=line)
        b = self.value()
        if op == "selp":
            self.comma()
            guard = A.Reg(self.predicate(), line=line)
            chosen = A.BinOp("*", A.BinOp("!=", guard, A.Const(0)), a, line=line)
            other = A.BinOp("*", A.BinOp("==", guard, A.Const(0)), b, line=line)
            return A.Assign(dst, A.BinOp("+", chosen, other, line=line), line=line)
        return A.Assign(dst, A.BinOp(BINARY_OPS[op], a, b, line=line), line=line)

    def comparison(self, cmp: str, typ: str, t) -> str:
        """setp's comparison on `typ`: signed for `.s` types, unsigned for `.u` types (where `lt`
        reads as `lo`, as compilers write it), `eq` and `ne` alone for bit-size types (the ISA:
        "ordering comparisons are not defined for bit-size types")."""
        if typ[0] == "b" and cmp not in ("eq", "ne"):
            self.fail_at(t, f"eq or ne on .{typ} (the ISA defines no ordering of bit-size types)")
        if typ[0] == "s" and cmp in ("lo", "ls", "hi", "hs"):
            self.fail_at(t, f"lt, le, gt or ge on .{typ} ({cmp}: the ISA's unsigned comparisons)")
        if typ[0] == "u":
            return CMP[{"lt": "lo", "le": "ls", "gt": "hi", "ge": "hs"}.get(cmp, cmp)]
        return CMP[cmp]

    def access(self, op: str, ms: list, t, line: int):
        """A load or a store: `ld{.sem.scope}{.space}{.cop}{.hints}{.vec}.type d, [a]` and `st` alike
        (Dat3M's dialect: the type optional, `x` for `[x]`). A vector access (`.v2`, `.v4`, its registers
        or values in braces) is "a set of equivalent memory operations with a scalar data type, executed
        in an unspecified order on the elements in the vector" ([PTXISA] "Memory Operations on Vector
        Data Types"): one access of each element of an array, in an order each execution chooses."""
        vector_ops = op in ("ld", "st")
        kinds = ("sem", "scope", "space", "type", "cop", "hint") + (("vec", "mmio") if vector_ops else ())
        q = self.qualifiers(op, ms, t, kinds=kinds + (("nc",) if op == "ld" else ()))
        if not vector_ops and any(w in VECTORS for w, _ in ms):  # refused above; its operands in braces unread
            return self.skip_operands(line)
        sem, scope = self.access_order(op, q, t)
        tags: tuple = (LOADS.get(op) or STORES[op],) + (("MMIO",) if "mmio" in q else ())
        if "cop" in q and q.get("sem", ("weak",))[0] != "weak":
            self.fail_at(q["cop"][1], f"a cache operator on a weak {op} alone (the ISA's syntax), not .{q['sem'][0]}")
        # kept for hrf run's lowering, which writes the access as read: volatile, or the cache operator
        cache = "volatile" if q.get("sem", ("",))[0] == "volatile" else q.get("cop", (None,))[0]
        if "nc" in q:  # ld.global.nc: a weak load of read-only data (docs/readings.md)
            if q.get("space", ("",))[0] != "global":
                self.fail_at(q["nc"][1], "ld.global.nc (the ISA's form: .nc on a .global load)")
            if "sem" in q:
                self.fail_at(q["sem"][1], f"no .{q['sem'][0]} on ld.global.nc (the ISA's form: a weak load)")
            if "mmio" in q:
                self.fail_at(q["mmio"][1], "no .mmio on ld.global.nc")
            tags, cache = (*tags, "NC"), "nc" if cache is None else f"{cache}.nc"
        hinted = any(w == "L2::cache_hint" for w, _ in q.get("hint", ()))
        width = type_width(q)
        n = int(q["vec"][0][1:]) if "vec" in q else 1
        if n == 8 or n == 4 and width == 8:
            self.unsupported(
                f"{op}.{q['vec'][0]} of {q['type'][0] if 'type' in q else 'no type'}: 256-bit "
                "accesses (sm_100's) are not modelled",
                q["vec"][1],
            )
        if n > 1 and "mmio" in q:
            self.fail_at(q["vec"][1], f"no vector qualifier on {op}.mmio (the ISA's syntax)")
        if op in STORES:
            loc, off, at = self.element_address()
            self.comma()
            values = self.vector_operand(n, self.value, "values")
            dsts = None
        else:
            dsts = self.vector_operand(n, self.reg, "registers")
            if len(set(dsts)) < len(dsts):  # the ISA: "all elements in vector expression must be unique"
                self.fail_at(t, f"{n} distinct registers (the ISA leaves a repeated destination undefined)")
            self.comma()
            loc, off, at = self.element_address()
        self.note_space(loc, q, t)
        if "mmio" in q and loc in self.owners:  # the ISA: .global, or a generic address in it
            self.fail_at(at, f"a location in global memory for {op}.mmio, not {loc} in shared memory")
        self.cache_policy(hinted, t)
        elements = self.elements(loc, off, width, n, at)
        dtype = q["type"][0] if "type" in q else None
        out: list = []
        for k, offset in enumerate(elements):
            if dsts is None:
                out.append(
                    A.Store(
                        loc,
                        values[k],
                        sem is not None,
                        sem,
                        scope,
                        line=line,
                        tags=tags,
                        cache=cache,
                        offset=offset,
                        dtype=dtype,
                    )
                )
            else:
                load = A.Load(
                    loc, sem is not None, sem, scope, line=line, tags=tags, cache=cache, offset=offset, dtype=dtype
                )
                out.append(A.Assign(dsts[k], load, line=line))
        return out[0] if n == 1 else A.AnyOrder(tuple(out), line=line)

    def vector_operand(self, n: int, one, what: str) -> list:
        """One operand, or `n` in braces for a vector access (`{r0, r1}`)."""
        if n == 1:
            return [one()]
        self.expect("{", f"'{{' and {n} {what} (a .v{n} access)")
        out = [one()]
        for _ in range(n - 1):
            self.expect(",", f"',' and {n} {what} in all (a .v{n} access)")
            out.append(one())
        self.expect("}", f"'}}' after {n} {what} (a .v{n} access)")
        return out

    def element_address(self) -> tuple:
        """`x`, `[x]` or `[x+n]`, n bytes past x (an array's element): (location, bytes, token)."""
        t = self.peek()
        if not self.accept("["):
            return self.loc(), 0, t
        name = self.mapped_loc() or super().loc()
        off = 0
        if self.accept("+"):
            off = self.number(self.expect("int", "a number of bytes ([x+4])"))
        self.expect("]", "']'" if off else "'+' or ']'")
        return name, off, t

    def element(self, q: dict, t) -> tuple:
        """The location and element offset of an RMW's address (`x`, `[x]`, `[x+4]`)."""
        loc, off, at = self.element_address()
        self.note_space(loc, q, t)
        return loc, self.elements(loc, off, type_width(q), 1, at, rmw=True)[0]

    def elements(self, loc: str, off: int, width: int | None, n: int, t, rmw: bool = False) -> list:
        """The offsets, in elements of the access's own width, of the `n` elements an access of `width`
        bytes per element reaches at `off` bytes past `loc` (None for an array's first element or a
        location's own access); `finish` counts them in the array's elements (`array_elements`)."""
        size = self.arrays.get(loc)
        if size is None:
            if off or n > 1:
                what = f"[{loc}+{off}]" if off else f"a .v{n} access of {loc}"
                self.fail_at(
                    t, f"an array ({loc}[{max(n, 2)}] = {{..}} in the initial state): {what} reaches elements of one"
                )
            return [None]
        if width is None:
            if off or n > 1:
                self.fail_at(t, f"a type (.b32, .u64, ...) on an access of array {loc}: its elements' width")
            self.array_accesses.append((loc, 0, None, 1, t, rmw))
            return [None]
        if off % (width * n):  # the ISA: an address aligned to a multiple of the access size
            self.fail_at(t, f"an offset that is a multiple of {width * n} bytes (the access's size), not {off}")
        self.array_accesses.append((loc, off, width, n, t, rmw))
        first_element = off // width
        return [A.Const(k, line=t[2]) if k else None for k in range(first_element, first_element + n)]

    def array_elements(self) -> dict:
        """Each accessed array's element width: its narrowest access's bytes (the ISA's accesses
        "overlap" byte by byte: "Overlap"), after checking every access against it: within the
        array, typed where the array is accessed with several sizes ("mixed-size accesses"), and
        no RMW of such an array."""
        widths: dict = {}
        for loc, _, width, *_ in self.array_accesses:
            if width is not None:
                widths.setdefault(loc, set()).add(width)
        for loc, off, width, n, t, rmw in self.array_accesses:
            sizes = sorted(widths.get(loc, ()))
            if width is None:
                if len(sizes) > 1:
                    msg = f"a type on every access of {loc}, accessed {' and '.join(map(str, sizes))} bytes at a time"
                    self.defer(ParseFailure(msg, t[2], t[3]))
                continue
            grain = sizes[0]
            size = self.arrays[loc]
            if off + width * n > size * grain:
                msg = f"elements of {loc} ({size} of {grain} bytes); [{loc}+{off}] reaches past them"
                self.defer(ParseFailure(msg, t[2], t[3]))
            if rmw and len(sizes) > 1:
                msg = (
                    f"{loc} accessed {' and '.join(map(str, sizes))} bytes at a time: an atomic operation "
                    "of an array accessed with mixed sizes is not modelled"
                )
                self.unsupported(msg, t)
        return {loc: (min(ws), len(ws) > 1) for loc, ws in widths.items()}

    def unsigned_elements(self, array: A.Init, width: int) -> None:
        """An array accessed with several sizes holds bytes: its elements' initial values are
        their bytes' unsigned value (a wider access reads several elements' bytes)."""
        top = 1 << (8 * width)
        for k, v in enumerate(array.elements):
            if not 0 <= v < top:
                msg = (
                    f"{array.loc}[{k}] = {v}: an element of {width} bytes of an array accessed with "
                    f"several sizes holds 0 .. {top - 1} (its bytes, unsigned)"
                )
                self.defer(ParseFailure(msg, array.line, 1))

    def regrain(self, stmts: tuple, mixed: dict) -> tuple:
        """`stmts` with each access of an array of `mixed` ({array: element bytes}) at its offset in
        those elements (the reader counted it in elements of the access's own width)."""

        def one(op):
            if op.loc not in mixed or not isinstance(op.offset, A.Const):
                return op
            k = op.offset.value * A.type_bytes(op.dtype) // mixed[op.loc]
            return A.with_fields(op, offset=A.with_fields(op.offset, value=k))

        out = []
        for s in stmts:
            s = A.with_nested(s, lambda body: self.regrain(body, mixed))
            if isinstance(s, A.Assign) and isinstance(s.expr, A.Load):
                s = A.with_fields(s, expr=one(s.expr))
            elif isinstance(s, A.Store):
                s = one(s)
            out.append(s)
        return tuple(out)

    def init_array(self, t, loc: str, inits: list) -> None:
        """`x[n]`, `x[n] = {v0, v1, ..}` (the rest 0), then `@ shared P1` for an array in the shared
        memory of P1's CTA: an array of n elements, `x[0]` .. `x[n-1]` in conditions, which vector
        accesses and `[x+4]` reach."""
        self.expect("[")
        size = self.number(self.expect("int", "the array's number of elements"))
        self.expect("]", "']'")
        values = []
        if self.accept("="):
            self.expect("{", "'{' and the elements' initial values")
            values.append(self.signed())
            while self.accept(","):
                values.append(self.signed())
            self.expect("}", "'}'")
        item = A.Init(loc, 0, line=t[2])
        if self.accept("@"):
            w = self.peek()
            if not self.at_word("shared"):
                self.fail("'shared' (an array in the shared memory of a thread's CTA: x[2] @ shared P1)")
            if self.peek(2)[0] == "=":
                self.fail(
                    "no value: an array's initial values come before '@' (x[2] = {1, 2} @ shared P1)", self.peek(2)
                )
            self.init_at(t, loc, inits)
            item = inits.pop()
            if self.offsets.pop(loc, None) is not None:
                self.defer(ParseFailure(f"an array at another's offset ({loc}) is not modelled", w[2], w[3]))
        try:
            array = make_array_init(loc, size, values, Where(t[2], t[3]))
        except ParseFailure as e:
            self.defer(e)
            array = make_array_init(loc, 1, [], Where(t[2], t[3]))
        inits.append(A.with_fields(item, size=array.size, elements=array.elements))
        self.arrays[loc] = array.size

    def cvar(self):
        """A condition's operand, and an array's element `x[1]`."""
        t = self.peek()
        if t[0] == "name" and t[1] in self.arrays and self.peek(1)[0] == "[":
            self.i += 2
            k = self.number(self.expect("int", "an element's index"))
            self.expect("]", "']'")
            return A.LocVar(f"{t[1]}[{k}]")
        return super().cvar()

    def matrix_access(self, op: str, ms: list, t, line: int):
        """`ldmatrix.sync.aligned.m8n8.x1{.trans}{.shared{::cta}}.b16 {r}, [s]` and
        `stmatrix.sync.aligned.shape.x1{.trans}{.shared{::cta}}.type [s], {r}`: a warp's collective load
        (store) of matrices in shared memory, which "is treated as a weak memory operation" (the ISA);
        here one matrix of one element, a weak generic load (store) of s in the CTA's shared memory."""
        words = [w for w, _ in ms]
        if words[:2] != ["sync", "aligned"]:
            self.fail_at(t, f"{op}.sync.aligned (the ISA: both are required)")
        rest = [w for w in words[2:] if w != "trans"]
        if op == "ldmatrix" and rest[:1] == ["m16n16"] or any(w in ("b8x16", "b6x16_p32", "b4x16_p64") for w in rest):
            self.unsupported(f"{op} with .m16n16 or a source format (sm_100's) is not modelled", t)
            return self.skip_operands(line)
        if len(rest) >= 2 and rest[1] in ("x2", "x4"):
            # each matrix's rows come from eight threads' addresses: one thread of a test stands for the warp
            self.unsupported(
                f"{op}.{rest[1]}: hrf reads .x1, one matrix of one element (a thread stands for the warp)", t
            )
            return self.skip_operands(line)
        shapes = MATRIX_SHAPES[op]
        if len(rest) < 3 or rest[1] != "x1" or rest[2:-1] not in ([], ["shared"], ["shared::cta"]):
            self.fail_at(t, f"{op}.sync.aligned.shape.x1{{.trans}}{{.shared{{::cta}}}}.type (the ISA's form)")
        if (rest[0], rest[-1]) not in shapes:
            known = ", ".join(f".{a}.x1.{b}" for a, b in shapes)
            self.fail_at(t, f"{op}'s shape and type among the ISA's ({known})")
        # the ISA: an address outside .shared is undefined: s must be a location of the CTA's shared memory
        if op == "ldmatrix":
            dst = self.one_register(f"one register ({{r}}): hrf's {op} reads one matrix of one element")
            self.comma()
            loc = self.address()
            self.note_space(loc, {"space": ("shared::cta", t)}, t)
            return A.Assign(dst, A.Load(loc, False, line=line, tags=("GEN", "MATRIX")), line=line)
        loc = self.address()
        self.comma()
        src = self.one_register(f"one register ({{r}}): hrf's {op} writes one matrix of one element")
        self.note_space(loc, {"space": ("shared::cta", t)}, t)
        return A.Store(loc, A.Reg(src, line=line), False, line=line, tags=("GEN", "MATRIX"))

    def loc(self) -> str:
        """A location, or the ISA's `[x]`; a register `mapa` set names the location it mapped."""
        if self.accept("["):
            name = self.mapped_loc() or super().loc()
            self.expect("]", "']'")
            return name
        return self.mapped_loc() or super().loc()

    def mapped_loc(self) -> str | None:
        """The location a register of this thread holds the address of (`mapa`), if the next token is one."""
        t = self.peek()
        if t[0] == "name" and (self.col, t[1]) in self.mapped:
            self.i += 1
            return self.mapped[(self.col, t[1])][0]
        return None

    def heads(self) -> list:
        """The threads' heads, kept: `mapa` finds the CTAs of a thread's cluster in them."""
        self.thread_heads = super().heads()
        return self.thread_heads

    def is_move(self) -> bool:
        """`ld r0, 1` or `ld r0, r1` (Dat3M's move), not `ld r0, x` (a weak load)."""
        t = self.peek(2)
        return t[0] in ("int", "-") or (t[0] == "name" and re.fullmatch(r"r[0-9]+", t[1]) is not None)

    def prefetch(self, op: str, ms: list, t) -> tuple:
        """`prefetch{.global,.local}.level [a]`, `prefetchu.L1 [a]`: a cache hint,
        no event (the memory consistency model names no cache: docs/readings.md)."""
        words = [w for w, _ in ms]
        if "tensormap" in words:
            self.unsupported(f"{op}.tensormap (a tensor map's, for cp.async.bulk.tensor) is not modelled", t)
            self.address()
            return ()
        levels = ("L1",) if op == "prefetchu" else ("L1", "L2", "L2::evict_last", "L2::evict_normal")
        spaces = () if op == "prefetchu" else ("global", "local")
        if [w for w in words if w not in spaces] not in [[x] for x in levels] or len(words) > 2:
            want = "prefetchu.L1 [a]" if op == "prefetchu" else "prefetch{.global,.local}.L1|.L2 [a] (the ISA's forms)"
            self.fail_at(t, want)
        self.address()
        return ()

    def hint(self, op: str, ms: list, t, line: int):
        """Instructions that change how long a thread waits or how a cache keeps a line, not
        what a read may return (docs/readings.md): `nanosleep.u32 t` and
        `applypriority{.global}.L2::evict_normal [a], 128`, no event; `createpolicy... r, ...`
        makes r a cache policy, an opaque value (0 here) for `.L2::cache_hint` operands."""
        words = [w for w, _ in ms]
        if op == "nanosleep":
            if words != ["u32"]:
                self.fail_at(t, "nanosleep.u32 t (the ISA's form)")
            self.value()
            return ()
        if op == "applypriority":
            if [w for w in words if w != "global"] != ["L2::evict_normal"]:
                self.fail_at(t, "applypriority{.global}.L2::evict_normal [a], 128 (the ISA's form)")
            self.address()
            self.comma()
            if self.peek()[:2] != ("int", "128"):
                self.fail("a size of 128 (the ISA's one size)")
            self.i += 1
            return ()
        if words[:1] not in (["fractional"], ["range"], ["cvt"]) or words[-1:] != ["b64"]:
            self.fail_at(t, "createpolicy.fractional, .range or .cvt ... .b64 r, ... (the ISA's forms)")
        dst = self.reg()
        self.skip_operands(line)
        return A.Assign(dst, A.Const(0, line=line), line=line)

    def qualifiers(self, op: str, ms: list, t, kinds: tuple) -> dict:
        """The qualifiers `.sem.scope.global.type` in any order -> {kind: (word, token)}."""
        out: dict = {}
        for word, tok in ms:
            if word in SEM or word == "volatile":
                kind = "sem"
            elif word in SCOPE:
                kind = "scope"
            elif word == "global" or word in SHARED:
                kind = "space"
            elif TYPE.fullmatch(word) or word == "f32" and op in ("ld", "st", "atom", "red"):
                kind = "type"  # (.f32 data as its bits: docs/readings.md)
            elif word in RMW_PTX or word in ("exch", "cas"):
                kind = "op"
            elif word == "nc" and "nc" in kinds:
                kind = "nc"
            elif word in SPACES:
                self.unsupported(
                    f"{op}.{word}: hrf's PTX tests are in global and shared memory alone (.{word} is not modelled)", tok
                )
                continue
            elif word in VECTORS and "vec" in kinds:
                kind = "vec"
            elif word == "mmio" and "vec" in kinds:
                kind = "mmio"
            elif word == "b128":
                self.unsupported(
                    f"{op}.b128: the memory consistency model's scalar types are at most 64 bits wide, "
                    "and it does not say what a 128-bit access is",
                    tok,
                )
                continue
            elif word in CACHE_OPS.get(op, ()) and "cop" in kinds:
                kind = "cop"
            elif word in CACHE_OPS.get(op, ()) + CACHE_OPS["ld"] + CACHE_OPS["st"] and op in CACHE_OPS:
                ops = ", ".join("." + w for w in CACHE_OPS[op])
                self.fail_at(tok, f"a cache operator of {op} ({ops}); not .{word}")
            elif EVICTION.fullmatch(word) and "hint" in kinds:
                out.setdefault("hint", []).append((word, tok))  # hints, several (no event)
                continue
            elif (
                word in HINTS
                or word in CACHE_OPS["ld"] + CACHE_OPS["st"]
                or word.startswith("f")
                and word[1:].isdigit()
            ):
                what = (
                    "floating-point arithmetic (.f32 data moves through ld, st and mov as its bits)"
                    if word == "f32"
                    else "floating-point values other than .f32 data"
                    if word.startswith("f")
                    else "its cache and vector qualifiers"
                )
                self.unsupported(f"{op}.{word}: hrf does not model {what}", tok)
                continue
            elif "op" in kinds and (word, tok) == ms[-1]:
                self.fail_at(tok, f"an operation; unknown operation .{word} ({', '.join([*RMW_PTX, 'exch', 'cas'])})")
            else:
                self.fail_at(tok, f"a qualifier of {op} ({', '.join(kinds)}); unknown qualifier .{word}")
            if kind not in kinds:
                self.fail_at(tok, f"{op} takes no .{word}")
            if kind in out:
                self.fail_at(tok, f"one {kind} ({op}.{out[kind][0]} already)")
            out[kind] = (word, tok)
        return out

    def access_order(self, op: str, q: dict, t) -> tuple:
        """(order, scope) of a load or store: weak with neither, relaxed at
        system scope if volatile, else the order at its scope."""
        word, tok = q.get("sem", ("weak", t))
        scope = q.get("scope")
        # mmio: "equivalent to the semantics of a strong operation" ([PTXISA] "mmio Operation")
        one_form = word == "relaxed" and scope is not None and scope[0] == "sys"
        if "mmio" in q and not (one_form and q.get("space", ("global",))[0] == "global"):
            self.fail_at(q["mmio"][1], f"{op}.mmio.relaxed.sys{{.global}} (the ISA: its one form)")
        if word == "volatile":  # the ISA: ld.volatile / st.volatile are relaxed at system scope
            if scope is not None:
                self.fail_at(scope[1], f"a volatile {op} takes no scope")
            return "rlx", "all"
        sem = SEM[word]
        if sem is None:
            if scope is not None:
                self.fail_at(scope[1], f"a weak {op} takes no scope")
            return None, None
        if scope is None:
            self.fail("a scope (.cta, .cluster, .gpu, .sys)")
        if op in LOADS and sem not in ("rlx", "acq"):
            self.unsupported(f"{op}.{word}: a load is weak, relaxed or acquire", tok)
        if op in STORES and sem not in ("rlx", "rel"):
            self.unsupported(f"{op}.{word}: a store is weak, relaxed or release", tok)
        return sem, SCOPE[scope[0]]

    def atomic(self, op: str, ms: list, t, line: int):
        """`atom{.sem}{.scope}{.global}.op{.type}` and `red` alike: relaxed
        and at GPU scope where the instruction names neither (the ISA)."""
        q = self.qualifiers(op, ms, t, kinds=("sem", "scope", "space", "op", "type"))
        if "op" not in q:
            self.fail_at(ms[-1][1] if ms else t, f"{op} takes an operation (.add, .cas, .min, ...)")
        kind, kt = q["op"]
        word, st = q.get("sem", ("relaxed", t))
        sem = SEM.get(word)
        if sem in (None, "sc"):
            self.unsupported(f"{op}.{word}: an atomic operation is relaxed, acquire, release or acq_rel", st)
        scope = SCOPE[q["scope"][0]] if "scope" in q else "dev"
        typ = q.get("type", ("", t))[0]
        if kind in ("min", "max", "inc", "dec") and typ.startswith("b"):
            self.fail_at(q["type"][1], f"{op}.{kind} takes a signed or unsigned type (.s32, .u32, ...), not .{typ}")
        if typ == "f32" and kind != "add":
            self.unsupported(f"{op}.{kind}.f32: floating-point arithmetic other than .add is not modelled", kt)
        rmw = UNSIGNED[kind] if kind in UNSIGNED and typ.startswith("u") else RMW_PTX.get(kind, kind)
        tags = (ATOMS.get(op) or REDS[op],)
        orders = RMW_ORDERS.get(sem or "")
        if op in REDS:
            if kind in ("exch", "cas"):
                self.fail_at(kt, f"red has no .{kind} (the ISA: atom.{kind})")
            # RED: a reduction is an atomic operation, not a read (the PTX
            # ISA's operation types); models say what its read half may do
            loc, offset = self.element(q, t)
            self.comma()
            v = self.value()
            red = A.Rmw(
                rmw,
                loc,
                v,
                sem or "rlx",
                scope,
                line=line,
                tags=(*tags, "RED"),
                orders=orders,
                offset=offset,
                update=self.f32_sum(typ, loc, v, line),
            )
            return A.ExprStmt(red, line=line)
        dst = self.reg()
        self.comma()
        loc, offset = self.element(q, t)
        self.comma()
        v = self.value()
        if kind == "cas":  # writes only where the compare succeeds (the ISA; models choose: cas_writeback)
            self.comma()
            new = self.value()
            out = A.Rmw(
                "cas_old",
                loc,
                new,
                sem or "rlx",
                scope,
                expected_value=v,
                line=line,
                tags=tags,
                orders=orders,
                offset=offset,
            )
        else:
            update = self.f32_sum(typ, loc, v, line)
            out = A.Rmw(
                rmw, loc, v, sem or "rlx", scope, line=line, tags=tags, orders=orders, offset=offset, update=update
            )
        return A.Assign(dst, out, line=line)

    def f32_sum(self, typ: str, loc: str, v, line: int):
        """The value `atom.add.f32`/`red.add.f32` writes: the IEEE sum of the value read and v,
        as their bits; "on global memory [it] flushes subnormal inputs and results to
        sign-preserving zero; whereas ... on shared memory [it] supports subnormal inputs and
        results" ([PTXISA] atom, red). None for other types."""
        if typ != "f32":
            return None
        op = "+f32" if loc in self.owners else "+f32ftz"  # (a location in shared memory: owners)
        return A.BinOp(op, A.Old(line=line), v, line=line)

    def fence(self, ms: list, t, line: int):
        words = [m for m, _ in ms]
        if words[:2] == ["proxy", "async"]:
            return self.async_proxy_fence(ms, t, line)
        if words[:1] == ["mbarrier_init"]:
            return self.mbarrier_init_fence(ms, t, line)
        if words[:2] == ["proxy", "tensormap::generic"]:  # PTX ISA 8.3: publishes a tensor map modified on the device
            self.unsupported("fence.proxy.tensormap::generic: tensor maps modified on the device are not modelled", t)
            return self.skip_operands(line)
        if any(w.startswith("sync_restrict") for w in words) or words[:2] == ["proxy", "async::generic"]:
            # PTX ISA 8.6: a fence whose effect "only applies to operations performed on objects in"
            # one state space, and the one-way generic-to-async proxy fences that carry it
            self.unsupported(
                f"fence.{'.'.join(words)}: a fence restricted to one state space (PTX ISA 8.6's "
                ".sync_restrict) is not modelled: the memory consistency model does not say how "
                "the restriction composes with causality order",
                t,
            )
            return self.skip_operands(line)
        if words[:1] == ["proxy"]:
            if len(ms) != 2 or words[1] not in (*PROXIES, "alias"):
                self.fail_at(t, "fence.proxy.generic, .constant, .texture, .surface or .alias")
            tag = "ALIAS" if words[1] == "alias" else PROXIES[words[1]]
            return A.Fence(("proxy",), "proxy", None, line=line, tags=(tag,))
        if len(ms) == 1 and words[0] in SCOPE:  # the ISA: fence.scope is fence.acq_rel.scope
            return A.Fence((), "acq_rel", SCOPE[words[0]], line=line, tags=("GEN",))
        if len(ms) != 2 or words[1] not in SCOPE:
            self.fail_at(
                ms[-1][1] if ms else t, "fence.sc.<scope> or fence.acq_rel.<scope> (.cta, .cluster, .gpu, .sys)"
            )
        if words[0] in ("release", "acquire"):  # PTX ISA 8.6's one-way fences (ptx-8.0 reads them)
            order = "rel" if words[0] == "release" else "acq"
            return A.Fence((), order, SCOPE[words[1]], line=line, tags=("GEN", "ONEWAY"))
        if words[0] not in ("sc", "acq_rel"):
            self.unsupported(f"fence.{words[0]}: a fence is sc, acq_rel, release or acquire", ms[0][1])
        return A.Fence((), words[0], SCOPE[words[1]], line=line, tags=("GEN",))

    def barrier(self, op: str, ms: list, t, line: int):
        words = [m for m, _ in ms]
        if words[:1] == ["cta"]:
            words = words[1:]
            dat3m = op == "bar"
        else:
            dat3m = False
        aligned = op == "bar" or words[-1:] == ["aligned"]  # the ISA: bar{.cta} is barrier{.cta}.aligned
        if words[-1:] == ["aligned"]:
            words = words[:-1]
        if op == "barrier" and words[:1] == ["cluster"]:
            return self.cluster_barrier(words, t, line)
        if words in (["warp", "sync"], ["red"]) or words[:1] == ["red"] or words[:1] == ["cluster"]:
            what = {"warp": "a warp barrier", "red": "a barrier reduction", "cluster": "a cluster barrier"}[words[0]]
            self.unsupported(f"{op}.{'.'.join(words)}: {what} is not modelled", t)
            while self.peek()[0] not in ("|", ";", END):  # its operands, unread
                self.i += 1
            return A.Barrier((), "0", "wg", line=line, tags=("CBAR",))
        if words not in (["sync"], ["arrive"]):
            self.fail_at(t, f"{op}.sync or {op}.arrive ({op}.cta.sync, {op}.sync.aligned, ...)")
        arrive = words[0] == "arrive"
        if dat3m:  # Dat3M's operands: a number, then a barrier resource and a thread count
            n, resource, quorum = self.barrier_operands()
            return A.Barrier(
                (), n, "wg", line=line, tags=("CBAR",), resource=resource, quorum=quorum, arrive=arrive, aligned=aligned
            )
        # the ISA's: the barrier resource a (0-15), and the thread count b (required by arrive)
        resource = self.value()
        quorum = None
        if self.accept(","):
            quorum = self.value()
        elif arrive:
            self.fail(f"',' and a thread count ({op}.arrive a, b)")
        return A.Barrier(
            (), "isa", "wg", line=line, tags=("CBAR",), resource=resource, quorum=quorum, arrive=arrive, aligned=aligned
        )


def parse_ptx_dat3m(text: str, path: str | None = None) -> A.Test:
    return parse_dat3m(PtxReader, text, path)
