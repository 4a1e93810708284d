"""Litmus AST -> the small IR that the Rust core executes (`rust/src/program.rs`).

Loops are unrolled `unroll` times; a path that would need another
iteration ends in `Cut` and is dropped and counted. Memory
operations inside expressions are hoisted into temporaries, in evaluation
order; `&&` and `||` short-circuit.

Every memory event gets a template with tags the models refer to:
`A`/`NA` (atomic or not), the order (`rlx acq rel acq_rel sc con`), the
scope (`wi sg wg dev all`), `remote`, the region (`global`/`local`; for
fences and barriers, their flags), the location's declared atomicity
(`atomicloc`/`nonatomicloc`), `RMW`, `fence`, `barrier` with
`entry`/`exit`; and integer attributes: `sinst`, the scope instance (the
static scope and which instance of it: docs/readings.md `exact`), and `bar`, the
barrier instance.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import UnsupportedFeature
from .litmus import ast as A
from .litmus.printer import format_condition
from .litmus.toolkit import ALLOC_CLASSES, CACHE_OPS  # [x]=0 @coarse; PTX ld/st cache operators
from .thread_code import (  # noqa: F401 (DEFAULT_SCOPE, MAX_NESTING, Template: hrf.program's names too)
    ADDRESS_BASE,
    DEFAULT_SCOPE,
    MAX_INSTRUCTIONS,
    MAX_NESTING,
    Template,
    ThreadCompiler,
)
from .thread_ir import const_ir
from .thread_liveness import END, LISTED, NOT_STARTED, STATUS

if TYPE_CHECKING:  # the IR's types, for annotations only (imported lazily: cold start)
    from . import ir as ir_types

# The vocabulary of event templates, which models name (hrf.dsl checks a
# model's tag(...), attribute and base-relation names against it).
ORDERS = ("rlx", "acq", "rel", "acq_rel", "sc", "con")
SCOPES = ("wi", "sg", "wg", "qf", "dev", "all")  # qf: Vulkan's queue family
TAGS = frozenset(
    ("R", "W", "F", "M", "IW")  # event kinds and init writes (the core's own sets)
    + (
        "A",
        "NA",
        "remote",
        "global",
        "local",
        "image",
        "atomicloc",
        "nonatomicloc",
        "RMW",
        "RMW_FAIL",
        "fence",
        "barrier",
        "entry",
        "exit",
        "cas_expected",
        # Dat3M's PTX: the proxy an access or fence goes through, proxy
        # fences for aliases, its one-event control barriers (bar.cta.arrive too)
        "GEN",
        "SUR",
        "TEX",
        "CON",
        "ALIAS",
        "CBAR",
        "ARRIVE",
        "NOSYNC",
        "proxy",
        "RED",  # a reduction (red), an atomic operation but no read of the ISA
        "MIXED",  # an access of an array accessed with several sizes (one event per element it covers)
        "NC",  # ld.global.nc: a load of read-only data through the non-coherent cache
        # PTX on sm_90: mbarrier operations, mbarrier.init, a wait's read and
        # acquire, an uninitialised mbarrier's location, the async proxy, a
        # bulk copy's events, the cluster barrier
        "MBAR",
        "MBINIT",
        "MBWAIT",
        "TRYWAIT",  # a wait written as try_wait (test_wait otherwise)
        "UNINIT",
        "MBDONE",  # the marker of an update that completed its mbarrier's phase
        "MBSEEN",  # the marker of a wait that returned true (its acquire, for an acquire wait)
        "MBSTALE",  # the marker of a wait on an arrive's state from before the preceding phase
        "NOCOMPLETE",  # mbarrier.arrive.noComplete: it must not complete its phase
        "ASYNC",
        "BULK",
        "CLBAR",
        # PTX on sm_80: cp.async (any of its events), a copy's read and write, a
        # cp.async-group's commit and a wait leaving N groups pending, the
        # increment and the asynchronous arrive-on of cp.async.mbarrier.arrive
        "CPASYNC",
        "CPREAD",
        "CPSIZE4",
        "CPSIZE8",
        "CPSIZE16",
        "CPCG",  # the copy's form as written (hrf run writes it so)
        "CPWRITE",
        "CPCOMMIT",
        *(f"CPWAIT{n}" for n in range(8)),
        "CPINC",
        "CPARRIVE",
        "ONEWAY",  # PTX ISA 8.6's fence.release, fence.acquire
        # cp.async.bulk's bulk async-groups: a bulk_group copy's events and the
        # groups' markers, a commit and a wait (with .read: BWAITR) leaving N pending
        "BGROUP",
        "BULKCTA",  # cp.async.bulk.shared::cta.global (PTX ISA 8.6)
        "BULKS2S",  # cp.async.bulk.shared::cluster.shared::cta
        "BREDUCE",  # cp.reduce.async.bulk: a bulk copy whose write is a reduction
        "BRED64",  # of 64-bit elements
        "TENSOR",  # cp.async.bulk.tensor: the bulk copy of a tensor map's box
        "MULTICAST",  # a copy of cp.async.bulk{.tensor}'s .multicast::cluster, into one CTA of its mask
        "STASYNC",  # st.async, red.async: an asynchronous store or reduction and its complete-tx
        "REDASYNC",  # a red.async's complete-tx
        "BCOMMIT",
        *(f"BWAIT{n}" for n in range(8)),
        *(f"BWAITR{n}" for n in range(8)),
        "MATRIX",  # ldmatrix, stmatrix: a warp's collective weak load or store of shared memory
        # wgmma (sm_90a): any of its events, the operation's own (its reads and proxy fence),
        # wgmma.fence, a wgmma-group's commit and a wait leaving N pending, an access to a
        # register a wgmma accesses, and that register's index in its thread
        "WGMMA",
        "WGOP",
        "WFENCE",
        "WCOMMIT",
        *(f"WWAIT{n}" for n in range(8)),
        "WREGUSE",
        *(f"WREG{n}" for n in range(8)),
        # Dat3M's Vulkan: storage classes, the storage classes of an
        # operation's semantics, availability and visibility (of the
        # access, of its semantics, to the device domain), non-private
        "SC0",
        "SC1",
        "SC2",
        "SC3",
        "SEMSC0",
        "SEMSC1",
        "SEMSC2",
        "SEMSC3",
        "AV",
        "VIS",
        "SEMAV",
        "SEMVIS",
        "AVDEVICE",
        "VISDEVICE",
        "NONPRIV",
        # an access through a name declared an alias of another location (`y aliases x`)
        "virtual",
    )
    + ORDERS
    + SCOPES
    + tuple(f"alloc_{a}" for a in ALLOC_CLASSES)
    + tuple(f"cache_{c}" for c in CACHE_OPS)
)
# scope instance, barrier (its number), barrier resource, thread (agent),
# virtual location (the name an access uses); the work group (CTA) an
# operation is performed in, where it is not its thread's (unset: the
# thread's, as for every thread attribute named here); a mixed-size access (its elements' events share
# it) and its footprint (its first element and their number)
EVENT_ATTRS = ("sinst", "bar", "res", "tid", "vloc", "wg", "acc", "fp")
THREAD_ATTRS = ("wi", "sg", "wg", "qf", "dev")  # the thread's place in the scope tree


@dataclass
class Compiled:
    """A program IR plus what is needed to read the core's answer."""

    test: A.Test
    ir: ir_types.Program
    templates: list
    observed: list  # names as herd prints them: "1:r0", "x"
    locations: list
    unroll: int
    # Address values and the locations they are the addresses of, where the
    # test holds addresses in registers or locations (`int *r0`, `p = y`);
    # empty otherwise. Outcomes show such values by name, as herd does.
    addresses: dict = field(default_factory=dict)
    # liveness (`hrf.liveness`): the ends a path may have, indexed by a
    # thread's `%status` - LISTED: ("spin", thread, ctx, line), ("loops",
    # thread, ctx, line) (a livelock's claim), ("bound", thread, ctx, line)
    # -- ctx the (loop, copy) frames of the copy, outermost first -- or
    # ("blocked", thread, barrier, count, line); the observed values' last
    # ones are the threads' `%status`
    ends: list = field(default_factory=list)
    # liveness: the unrolled loops, by tag (unroll.Loop); the observed
    # values before the statuses hold the registers at each copy's end
    loops: dict = field(default_factory=dict)
    _ranks: dict | None = field(default=None, repr=False)
    _observed_at: dict | None = field(default=None, repr=False)
    _json: str | None = field(default=None, repr=False)
    _condition: str | None = field(default=None, repr=False)
    # where the test was read translated for the model (`litmus.translate.read_by`): why
    read_note: str | None = None

    def observed_at(self, name: str) -> int:
        """The place of observed value `name` ("1:r0", "x") in an outcome."""
        if self._observed_at is None:
            self._observed_at = {n: i for i, n in enumerate(self.observed)}
        return self._observed_at[name]

    def loop_rank(self, template: int, depth: int) -> int:
        """Liveness: an event template's place among the templates of its
        thread in the same copy of its `depth`-th loop, counted from the
        outermost (`Template.iteration[:depth]`): the same in every copy."""
        if self._ranks is None:
            self._ranks = {}
            seen: dict[tuple, int] = {}
            for k, tpl in enumerate(self.templates):
                for d in range(1, len(tpl.iteration or ()) + 1):
                    key = (tpl.thread, tpl.iteration[:d])
                    self._ranks[k, d] = seen[key] = seen.get(key, -1) + 1
        return self._ranks[template, depth]

    def condition_text(self) -> str:
        """The test's condition as herd prints it (computed once: every
        model's result states it); herd reads a missing one as forall (true)."""
        if self._condition is None:
            cond = self.test.condition
            self._condition = format_condition(cond) if cond else "forall (true)"
        return self._condition

    def place(self, thread: int, pc: int) -> str:
        """Where instruction `pc` of a thread comes from, as an error names
        it: `thread P0 (line 5)`."""
        th = self.ir["threads"][thread]
        ins: Any = th["code"][pc] if pc < len(th["code"]) else {}
        ev = ins.get("ev", ins.get("ev_r"))
        line = self.templates[ev].line if ev is not None else 0
        return f"thread {th['name']} ({f'line {line}' if line else f'instruction {pc}'})"

    def json(self) -> str:
        if self._json is None:
            self._json = _ir_text(self.ir)
        return self._json


# The program IR as the core reads it: compact, and without the check for
# cycles (an IR is a tree): 26 against 31 us for a generated test's IR.
_ir_text = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


class _Scopes:
    """Thread attributes and scope instances of a test's scope tree: a
    device holds queue families (Vulkan's; one where the test names none),
    which hold work groups, which hold subgroups."""

    LEVELS = ("dev", "qf", "wg", "sg")  # outermost first; a thread's position names one instance of each

    def __init__(self, test: A.Test):
        self.threads = test.threads
        n = len(test.threads)
        pos = []
        for i, t in enumerate(test.threads):
            dev = t.dev if t.dev is not None else 0
            qf = (dev, t.qf) if t.qf is not None else (dev, "one")
            wg = (qf, t.wg) if t.wg is not None else ("own", i)
            sg = (wg, t.sg) if t.sg is not None else ("own", i)
            pos.append({"dev": dev, "qf": qf, "wg": wg, "sg": sg})
        self.pos = pos
        ids: dict = {}  # subgroups and work groups numbered together, queue families apart
        qfs: dict = {}
        self.attrs = [
            {
                "wi": i,
                "sg": ids.setdefault(("sg", p["sg"]), len(ids)),
                "wg": ids.setdefault(("wg", p["wg"]), len(ids)),
                "qf": qfs.setdefault(p["qf"], len(qfs)),
                "dev": p["dev"],
            }
            for i, p in enumerate(pos)
        ]
        self.instances: dict = {}
        self.n = n

    def instance(self, t: int, scope: str) -> int:
        """The scope instance of an operation of thread t with scope `scope`:
        the static scope and which instance of it (docs/readings.md `exact`). Two
        operations of different static scopes never share an instance, even
        where the litmus test puts no other work-item in the larger one."""
        where = t if scope == "wi" else 0 if scope == "all" else self.pos[t][scope]
        return self.instances.setdefault((scope, where), len(self.instances))

    def members(self, t: int, scope: str) -> frozenset:
        """The threads of the test inside that instance."""
        if scope == "wi":
            return frozenset([t])
        if scope == "all":
            return frozenset(range(self.n))
        key = self.pos[t][scope]
        return frozenset(i for i, p in enumerate(self.pos) if p[scope] == key)


def thread_places(test: A.Test) -> list[dict]:
    """Each thread's place in the scope tree: its instance of each level of
    `SCOPE_LEVELS`, outermost first (a level the test leaves out is the
    thread's own)."""
    return _Scopes(test).pos


SCOPE_LEVELS = _Scopes.LEVELS


class _ProgramCompiler:
    def __init__(
        self,
        test: A.Test,
        unroll: int,
        cas_writeback: bool | None = None,
        observe_all: bool = False,
        liveness=None,
        vector_orders: str = "all",
    ):
        self.test = test
        self.liveness = liveness
        self.ends: list = []
        self.loops: dict = {}  # liveness: loop tag -> unroll.Loop
        self.observe_all = observe_all
        self.unroll = unroll
        self.cas_writeback = cas_writeback
        self.vector_orders = vector_orders  # "all", or "sync": a vector's orders only where it synchronises
        self.max_instructions = MAX_INSTRUCTIONS
        self.scopes = _Scopes(test)
        # An array is its elements, `y[0]` .. `y[n-1]`, in a row; its name
        # stands for its first element (C: `y` is `&y[0]`).
        arrays = {i.loc: i for i in test.init if i.size is not None}
        self.array_size = {name: i.size for name, i in arrays.items()}
        self.first_cell = {name: f"{name}[0]" for name in arrays}
        self.array_of = {cell: name for name, i in arrays.items() for cell, _ in i.cells()}
        # the arrays accessed with several sizes, and their elements' bytes (`ThreadCode.mixed_access`)
        self.mixed = {name: i.width for name, i in arrays.items() if i.mixed}
        self.accesses = 0  # the mixed-size accesses compiled so far (each one's `acc` attribute)
        # `*r0` through a register that holds an address names no location
        declared = {i.loc for i in test.init} | {p.name for t in test.threads for p in t.params}
        through = {
            op.loc
            for t in test.threads
            for op in t.ops
            if isinstance(op, (A.Load, A.Store, A.Rmw))
            and op.loc not in declared
            and any(isinstance(s, A.Assign) and s.reg == op.loc for s in A.walk_stmts(t.body))
        }
        # Dat3M's `y aliases x`: y is another virtual name of x's memory
        self.aliases, direct = _aliases(test)
        names = [l for l in test.all_locations() if l not in through]
        self.locations = [
            c
            for l in dict.fromkeys(self.aliases.get(l, l) for l in names)
            for c in ([c for c, _ in arrays[l].cells()] if l in arrays else [l])
        ]
        self.loc_index = {l: i for i, l in enumerate(self.locations)}
        self.loc_index.update({a: self.loc_index[x] for a, x in self.aliases.items()})
        # each name's virtual location (the `vloc` attribute of an access
        # through it): its own, but for an alias through a proxy other than
        # the generic one, whose generic address is the location it aliases
        # (Dat3M's VirtualMemoryObject)
        # (Dat3M's VirtualMemoryObject); through a chain of aliases, the
        # virtual location of the first generic name on the way
        proxied = {i.loc for i in test.init if i.alias_of is not None and i.proxy != "generic"}
        index = {l: i for i, l in enumerate(dict.fromkeys(names))}

        def virtual(l: str) -> int:
            return virtual(direct[l]) if l in proxied else index[l]

        self.vloc_index = {l: virtual(l) for l in index} if self.aliases else {}
        # the names whose address a value may be: every location, and each array's name
        self.address_of = set(self.locations) | set(self.first_cell)
        self.addresses_used = False
        self.templates: list[Template] = []
        self.barrier_ids: dict = {}
        # (barrier, work group) -> a barrier with a thread count (`quorum`)
        self.quorums: dict = {}
        self._loc_tags: dict = {}

    def shared_wg(self, loc: str) -> int | None:
        """The CTA (work group) whose shared memory holds `loc` (`d @ shared P1`: P1's), if any."""
        owner = next((i.owner for i in self.test.init if i.loc == loc and i.space), None)
        k = next((k for k, t in enumerate(self.test.threads) if t.name == owner), None)
        return None if k is None else self.scopes.attrs[k]["wg"]

    def location_tags(self, loc: str) -> list:
        """Region and declared atomicity of a location (herd's `G`/`L` and
        `atomicloc`/`nonatomicloc`: from the type of the parameter that
        declares it; a location no parameter declares is neither)."""
        if loc in self.array_of:  # an array's element: the array's tags
            return self.location_tags(self.array_of[loc])
        if loc not in self._loc_tags:
            region = self.test.region_of(loc)
            tags = [region] if region else []
            kinds = {p.atomic for t in self.test.threads for p in t.params if p.name == loc}
            if kinds:
                tags.append("atomicloc" if True in kinds else "nonatomicloc")
            space = next((i.space for i in self.test.init if i.loc == loc and i.space), None)
            if space is not None:  # PTX's shared memory of a CTA: OpenCL's local memory, hrf's `local` region
                tags.append("local")
                if space == "mbarrier-uninit":
                    tags.append("UNINIT")
            alloc = next((i.alloc for i in self.test.init if i.loc == loc and i.alloc), None)
            if alloc:
                tags.append(f"alloc_{alloc}")  # allocation class ([HRFR15] sec. 5: observability)
            self._loc_tags[loc] = tags
        return self._loc_tags[loc]

    def quorum(self, bar: tuple, thread: A.Thread, s: A.Barrier) -> dict | None:
        """The thread count of barrier instance `bar` (number, resource) in the thread's work
        group, shared by its barriers: None without one. A work group whose
        barriers of one instance disagree on it is refused by name."""
        key = (bar, thread.dev, thread.qf, thread.wg)
        q = s.quorum.value if isinstance(s.quorum, A.Const) else None
        entry = self.quorums.setdefault(key, {"q": q, "sync": [], "all": [], "line": s.line})
        if entry["q"] != q:

            def waits(n):
                return f"{n} threads" if n is not None else "its whole work group"

            raise UnsupportedFeature(
                f"{thread.name}: barrier {s.label} waits for {waits(q)} where the barrier of line "
                f"{entry['line']} waits for {waits(entry['q'])}",
                self.test.path,
                s.line,
            )
        return entry if q is not None else None

    def add_end(self, end: tuple) -> int:
        self.ends.append(end)
        return len(self.ends) - 1

    def add_template(self, t: Template) -> int:
        self.templates.append(t)
        return len(self.templates) - 1

    def address(self, name: str) -> int:
        """The address of a location (of an array: of its first element), as a value."""
        self.addresses_used = True
        return ADDRESS_BASE + self.loc_index[self.first_cell.get(name, name)]

    def _address_value(self, value, line=None) -> int:
        """An initial or compared value: a number, or a location's name (its address)."""
        if isinstance(value, int):
            return value
        if value not in self.address_of:
            from .errors import LitmusSyntaxError

            raise LitmusSyntaxError(f"{value!r} is not a location: it has no address", self.test.path, line)
        return self.address(value)

    def _prop(self, p):
        """The condition with locations' names as addresses and `y*` as y."""
        if isinstance(p, A.PAtom):
            var = A.LocVar(p.var.loc) if isinstance(p.var, A.PointeeVar) else p.var
            return A.PAtom(var, self._address_value(p.value))
        if isinstance(p, A.PNot):
            return A.PNot(self._prop(p.prop))
        if isinstance(p, (A.PAnd, A.POr)):
            return type(p)(tuple(self._prop(q) for q in p.props))
        return p

    def _refuse_address_clashes(self) -> None:
        """A number the test names where hrf keeps addresses would read as one."""
        top = ADDRESS_BASE + len(self.locations)
        values = [i.value for i in self.test.init] + [ri.value for ri in self.test.reg_init]
        values += [
            e.value
            for t in self.test.threads
            for st in A.walk_stmts(t.body)
            for x in A.exprs_of(st)
            for e in A.walk_expr(x)
            if isinstance(e, A.Const)
        ]
        if self.test.condition is not None:
            values += [a.value for a in A.prop_atoms(self.test.condition.prop)]
            values += [x for c in A.prop_compares(self.test.condition.prop) for x in (c.left, c.right)]
        for v in values:
            if isinstance(v, int) and ADDRESS_BASE <= v < top:
                raise UnsupportedFeature(
                    f"the test names {v}, a value hrf keeps for the address of {self.locations[v - ADDRESS_BASE]}",
                    self.test.path,
                )

    def compile(self) -> Compiled:
        test = self.test
        prop = test.condition.prop if test.condition is not None else None
        if prop is not None and any(
            isinstance(a.value, str) or isinstance(a.var, A.PointeeVar) for a in A.prop_atoms(prop)
        ):
            prop = self._prop(prop)  # names as addresses, `y*` as y
        # Observed variables: the condition's and the `locations` clause's;
        # with neither, every register and location.
        cond_vars: list[A.RegVar | A.LocVar] = []
        if prop is not None:
            cond_vars = list(_prop_vars(prop))
        if test.filter is not None:  # a filter's variables are observed too
            cond_vars += list(_prop_vars(test.filter))
        # An array's name in the condition is its first element.
        cond_vars = [
            A.LocVar(self.first_cell[v.loc]) if isinstance(v, A.LocVar) and v.loc in self.first_cell else v
            for v in cond_vars
        ]
        # `y*` in a locations clause: y's value, which herd shows as a location's name
        listed = [A.LocVar(v.loc) if isinstance(v, A.PointeeVar) else v for v in test.locations]
        named = [
            A.LocVar(self.first_cell[v.loc]) if isinstance(v, A.LocVar) and v.loc in self.first_cell else v
            for v in listed
        ]
        obs: list[A.RegVar | A.LocVar] | None = list(dict.fromkeys(list(cond_vars) + named))
        if test.condition is None and not test.locations:
            obs = None
        for v in obs or []:
            if isinstance(v, A.LocVar) and v.loc not in self.loc_index:
                self.loc_index[v.loc] = len(self.locations)
                self.locations.append(v.loc)
            if isinstance(v, A.RegVar) and v.thread >= len(test.threads):
                from .errors import LitmusSyntaxError

                raise LitmusSyntaxError(f"the condition names thread {v.thread}, which does not exist", test.path)
        tcs = []
        for i, t in enumerate(test.threads):
            tc = ThreadCompiler(self, i, t)
            for ri in test.reg_init:
                if ri.thread == i:
                    tc.emit({"op": "assign", "dst": tc.reg(ri.reg), "val": const_ir(ri.value)})
            if self.liveness is not None and self.liveness.stops:
                tc.stop_here(NOT_STARTED)
            tc.stmts(t.body)
            if self.liveness is not None:
                tc.end_liveness()
            tcs.append(tc)
        if obs is None or self.observe_all:
            every: list[A.RegVar | A.LocVar] = [
                A.RegVar(i, r) for i, tc in enumerate(tcs) for r in tc.regs if not r.startswith("%")
            ]
            every += [A.LocVar(l) for l in self.locations]
            obs = list(dict.fromkeys((obs or []) + every))
        # herd's order: registers by thread and name, then locations by name.
        obs.sort(key=lambda v: (0, v.thread, v.reg, "") if isinstance(v, A.RegVar) else (1, 0, "", v.loc))
        observed_ir: list[ir_types.Observed] = []
        names: list[str] = []
        for v in obs:
            if isinstance(v, A.RegVar):
                observed_ir.append({"kind": "reg", "thread": v.thread, "reg": tcs[v.thread].reg(v.reg)})
            else:
                observed_ir.append({"kind": "loc", "loc": self.loc_index[v.loc]})
            names.append(str(v))
        if self.liveness is not None:  # the loops' copies' end states, then each thread's status, last
            for i, tc in enumerate(tcs):
                for r in tc.regs:
                    if r.startswith(END):
                        observed_ir.append({"kind": "reg", "thread": i, "reg": tc.reg(r)})
                        names.append(f"{i}:{r}")
            for i, tc in enumerate(tcs):
                observed_ir.append({"kind": "reg", "thread": i, "reg": tc.reg(STATUS)})
                names.append(f"{i}:{STATUS}")
        threads_ir = [tc.finish() for tc in tcs]
        init: dict = {}
        for item in test.init:
            if item.size is not None:
                init.update(item.cells())
            else:
                init[item.loc] = self._address_value(item.value, item.line)  # `p = y`: y's address
        locs_ir: list[ir_types.Location] = []
        for l in self.locations:
            locs_ir.append({"name": l, "init": init.get(l, 0), "tags": list(self.location_tags(l))})
        index = {str(v): i for i, v in enumerate(obs)}
        for name, cell in self.first_cell.items():
            if cell in index:
                index[name] = index[cell]
        cond: ir_types.Cond = prop_ir(prop, index, path=test.path) if prop is not None else {"k": "true"}
        addresses: dict = {}
        if self.addresses_used:
            self._refuse_address_clashes()
            addresses = {ADDRESS_BASE + k: name for k, name in enumerate(self.locations)}
        ir: ir_types.Program = {
            "name": test.name,
            "locations": locs_ir,
            "threads": threads_ir,
            "templates": [t.ir() for t in self.templates],
            "observed": observed_ir,
            "condition": cond,
            # an execution where the condition holds settles exists and
            # ~exists; for forall (herd's reading of no condition too), one where it fails
            "deciding_value": test.condition is not None and test.condition.quantifier != "forall",
        }
        if test.filter is not None:
            ir["filter"] = prop_ir(test.filter, index, path=test.path)
        if self.liveness is not None:
            # executions where every thread terminates or stops say nothing of
            # liveness: some thread must end at the bound, spinning, blocked or
            # looping on (the core drops other combinations of paths unexplored)
            first = len(names) - len(test.threads)
            ir["filter"] = {
                "k": "or",
                "args": [
                    {"k": "cmp", "op": ">=", "a": {"k": "var", "var": first + i}, "b": {"k": "val", "val": LISTED}}
                    for i in range(len(test.threads))
                ],
            }
        if test.arch == "PTX":
            # Dat3M's PTX: co need not be total (its models say so; Dartagnan
            # reads every PTX test so): docs/readings.md
            ir["partial_co"] = True
        # barriers with a thread count
        quorums = [{k: q[k] for k in ("q", "sync", "all")} for q in self.quorums.values() if q["q"] is not None]
        if quorums:
            ir["quorums"] = quorums  # type: ignore[typeddict-item]
        if test.sync_with:
            ir["sync_with"] = [list(p) for p in test.sync_with]  # type: ignore[misc]
        return Compiled(
            test, ir, self.templates, names, list(self.locations), self.unroll, addresses, self.ends, self.loops
        )


def _aliases(test: A.Test) -> tuple[dict[str, str], dict[str, str]]:
    """Each name declared an alias (`y aliases x`, Dat3M's Vulkan; `y @
    proxy aliases x`, its PTX 7.5) -> the location it names, following a
    chain of aliases ([PTX22]'s synonyms: `s1 @ surface aliases y` where y
    aliases x names x); and each one -> the name it aliases directly. A
    cycle of aliases is refused by name."""
    direct = {i.loc: i.alias_of for i in test.init if i.alias_of is not None}
    lines = {i.loc: i.line for i in test.init}
    out = {}
    for name in direct:
        seen, at = [name], direct[name]
        while at in direct:
            if at in seen:
                raise UnsupportedFeature(
                    f"{name} aliases {direct[name]}: a cycle of aliases ({' -> '.join([*seen, at])}) names no location",
                    test.path,
                    lines.get(name),
                )
            seen.append(at)
            at = direct[at]
        if at == name:
            raise UnsupportedFeature(f"{name} aliases itself", test.path, lines.get(name))
        out[name] = at
    return out, direct


def _prop_vars(p):
    return A.prop_vars(p)


def prop_ir(p, index, depth: int = 0, path=None) -> ir_types.Cond:
    if depth > MAX_NESTING:
        from .errors import LitmusSyntaxError

        raise LitmusSyntaxError(f"the condition nests more than {MAX_NESTING} levels deep: hrf does not take it", path)
    return _prop_ir_node(p, index, depth, path)


def _prop_ir_node(p, index, depth, path) -> ir_types.Cond:
    if isinstance(p, A.PTrue):
        return {"k": "true"}
    if isinstance(p, A.PFalse):
        return {"k": "false"}
    if isinstance(p, A.PAtom):
        assert isinstance(p.value, int), "a condition's addresses are numbers before it is compiled"
        return {"k": "eq", "var": index[str(p.var)], "val": p.value}
    if isinstance(p, A.PCompare):
        a, b = (
            {"k": "val", "val": x} if isinstance(x, int) else {"k": "var", "var": index[str(x)]}
            for x in (p.left, p.right)
        )
        return {"k": "cmp", "op": p.op, "a": a, "b": b}  # type: ignore[typeddict-item]
    if isinstance(p, A.PNot):
        return {"k": "not", "a": prop_ir(p.prop, index, depth + 1, path)}
    if isinstance(p, A.PAnd):
        return {"k": "and", "args": [prop_ir(q, index, depth + 1, path) for q in p.props]}
    if isinstance(p, A.POr):
        return {"k": "or", "args": [prop_ir(q, index, depth + 1, path) for q in p.props]}
    raise TypeError(p)


def compile_test(
    test: A.Test,
    unroll: int = 2,
    cas_writeback: bool | None = None,
    observe_all: bool = False,
    liveness=None,
    vector_orders: str = "all",
) -> Compiled:
    """`observe_all`: outcomes over every register and location, not only
    the condition's (as a comparison with the machine needs). `liveness`
    (`hrf.liveness.Liveness`): loops end where an iteration repeats, and
    each thread's `%status` is observed. `vector_orders`: "all", a path for
    each order of a vector access's elements; "sync", for a model whose
    axioms see that order only where the elements acquire or release
    (`Model.vector_orders_sync_only`), the written order alone for the rest."""
    if isinstance(unroll, bool) or not isinstance(unroll, int) or unroll < 0:
        from .errors import InvalidArgument

        raise InvalidArgument(f"unroll must be a whole number >= 0, not {unroll!r}")
    try:
        return _ProgramCompiler(test, unroll, cas_writeback, observe_all, liveness, vector_orders).compile()
    except RecursionError:
        from .litmus import read_file, too_deep

        raise too_deep(read_file(test.path) if test.path else "", test.path) from None
