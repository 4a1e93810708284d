"""Source test -> machine program, through a scheme (the README's schemes section).

The source is first compiled to the IR the Rust core executes
(`hrf.program`); register code and branches are kept, and each memory
operation is replaced by its scheme row. Registers keep their indices and
the outcome keeps its variables, so that machine outcomes compare directly
with the source model's.
"""

from __future__ import annotations

from ..errors import UnsupportedFeature
from ..litmus import parse
from ..machine import MachineProgram, MThread
from ..program import Compiled, compile_test
from .registry import get
from .scheme import SCOPE_CLASS, machine_instr


def _classify(tags) -> tuple:
    """(scope class, remote, seq_cst) of an access's tags."""
    scope = "na" if "NA" in tags else SCOPE_CLASS[next(t for t in tags if t in SCOPE_CLASS)]
    return scope, "remote" in tags, "sc" in tags


def compile_scheme(
    test, scheme, *, unroll: int = 2, cas_writeback: bool = False, comp: Compiled | None = None
) -> MachineProgram:
    """Compile a source litmus test with a scheme (a name or a Scheme).
    `comp` reuses a compiled source (its outcomes then match exactly)."""
    sch = get(scheme)
    if comp is None:
        comp = compile_test(parse(test), unroll, cas_writeback, observe_all=True)
    t = comp.test
    ir = comp.ir
    devs = {d: k for k, d in enumerate(dict.fromkeys(th["attrs"]["dev"] for th in ir["threads"]))}
    wgs = {w: k for k, w in enumerate(dict.fromkeys(th["attrs"]["wg"] for th in ir["threads"]))}
    ndev = len(devs)
    threads = []
    for _ti, th in enumerate(ir["threads"]):
        regs = list(th["regs"])
        code: list = []
        newpc: dict = {}
        for pc, ins in enumerate(th["code"]):
            newpc[pc] = len(code)
            op = ins["op"]
            if op in ("assign", "branch", "jump", "cut"):
                code.append(dict(ins))
                continue
            if op == "choose":  # only a barrier with a thread count makes one (thread_code)
                raise UnsupportedFeature(f"scheme {sch.name} has no row for barriers with a thread count", t.path)
            if op == "fence":
                tpl = comp.templates[ins["ev"]]
                raise UnsupportedFeature(
                    f"scheme {sch.name} has no row for fences or barriers ({tpl.text})", t.path, tpl.line
                )
            ev = ins["ev"] if op != "rmw" else ins["ev_r"]
            tpl = comp.templates[ev]
            where = (t.path, tpl.line)
            if ins.get("at") is not None:  # the machine's instructions name their location
                raise UnsupportedFeature(
                    f"the GPU machine has no computed addresses ({tpl.text}): scheme {sch.name} cannot compile it",
                    *where,
                )
            scope, remote, sc = _classify(ir["templates"][ev]["tags"])
            if op == "load":
                dst = ins.get("dst")
                if dst is None:
                    regs.append(f"_{len(regs)}")
                    dst = len(regs) - 1
                access = {"op": "ld", "dst": dst, "loc": ins["loc"]}
            elif op == "store":
                access = {"op": "st", "loc": ins["loc"], "val": ins["val"]}
            else:
                if ins.get("fail_store") is not None:
                    raise UnsupportedFeature(
                        f"scheme {sch.name}: a compare-exchange that writes back on failure has no machine instruction",
                        *where,
                    )
                access = {"op": "rmw", "dst": ins.get("dst"), "loc": ins["loc"], "rmw": ins["rmw"], "val": ins["val"]}
                if "expected" in ins:
                    access["expected"] = ins["expected"]
            row = sch.row(op, scope, remote, ndev, where, sc)
            for word in row.seq:
                m = machine_instr(word, access, ins["loc"])
                m["src"] = f"line {tpl.line}: {tpl.text}"
                code.append(m)
        newpc[len(th["code"])] = len(code)
        for m in code:
            if "target" in m:
                m["target"] = newpc[m["target"]]
        threads.append(MThread(th["name"], devs[th["attrs"]["dev"]], wgs[th["attrs"]["wg"]], regs, code))
    locs = [(l["name"], l["init"]) for l in ir["locations"]]
    return MachineProgram(
        t.name,
        locs,
        threads,
        list(comp.observed),
        ir["observed"],
        t.condition,
        ir["condition"],
        t.path,
        scheme=sch.name,
        source=comp,
    )
