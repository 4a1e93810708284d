"""The compiled-code check ([GPU15] sec. 4's optcheck): read the SASS of
the test kernel (`cuobjdump -sass` or `nvdisasm` of the cubin) and confirm
that each test thread's function `hrf_P<n>` holds its accesses, in order,
each with its width and its strength and scope (`LDG.E.STRONG.GPU` for
`ld.relaxed.gpu` or `ld.cg`, a plain `LDG.E` for a weak load, `MEMBAR.SC.GPU`
for `fence.sc.gpu` ...). Two accesses of the same form cannot be told
apart: the check sees their number and place, not their addresses.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from ..errors import HrfError
from .lower import Access, LoweredTest

# an instruction line: `/*0050*/  @!P0 LDG.E.STRONG.GPU R2, desc[UR4][R2.64] ;`; one under
# `@!PT` never runs (ptxas puts three `@!PT LDS RZ, [RZ]` before a cp.async's LDGSTS)
_INSN = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")
# a function: nvdisasm's `$hrf_test$hrf_P0:` or `.text.hrf_test:`, cuobjdump's `Function : hrf_test`
_FUNCTION = re.compile(r"^\s*(?:Function\s*:\s*(\S+)|\.text\.(\S+):|\$(\S+):)\s*$")
# shared memory's accesses, and sm_90's mbarrier operations (SYNCS.ARRIVE, .PHASECHK, .EXCH)
SHARED_ACCESSES = ("LDS", "STS", "ATOMS", "SYNCS")
# a bulk copy (cp.async.bulk, global to shared): UBLKCP.S.G, issued by one elected lane; to global
# memory UBLKCP.G.S, a bulk reduction UBLKRED.G.S.<OP>, a bulk async-group's commit UTMACMDFLUSH and
# its wait (with .read too) DEPBAR.LE SB0, N (tests/data/sass/*bulk-group*); sm_80's cp.async:
# LDGSTS (.BYPASS for .cg; .64, .128 for 8 and 16 bytes), its commit LDGDEPBAR, its wait
# DEPBAR.LE SB0, N, and cp.async.mbarrier.arrive's ARRIVES.LDGSTSBAR (tests/data/sass/*cp-async*)
ACCESSES = (
    *("LDG", "STG", "ATOMG", "ATOM", "RED", "REDG", "LD", "ST", "UBLKCP", "UBLKRED", "LDGSTS", "ARRIVES"),
    *SHARED_ACCESSES,
)
# what a fence or an acquire brings along, skipped between the accesses
AUXILIARY = ("ERRBAR", "CGAERRBAR", "CCTL")
# a CTA barrier: BAR.SYNC (barrier.sync; .DEFER_BLOCKING on sm_70 and later), BAR.ARV (barrier.arrive)
# sm_90's cluster barrier: UCGABAR_ARV (barrier.cluster.arrive), UCGABAR_WAIT (.wait)
MEMORY = (
    *ACCESSES,
    *("MEMBAR", "FENCE", "BAR", "UCGABAR_ARV", "UCGABAR_WAIT", "LDGDEPBAR", "DEPBAR", "UTMACMDFLUSH"),
    *AUXILIARY,
)


class CodeCheckError(HrfError):
    """The compiled code does not hold the test's accesses as written."""


@dataclass(frozen=True)
class Insn:
    opcode: str  # LDG.E.STRONG.GPU
    # out of line, after the function's return, where a barrier sends a warp whose
    # lanes diverged (BRA.DIV): ptxas's copy of the barrier (warp-collective) and of
    # the code after it. hrf keeps a test's warps in step (cuda.py): it never runs
    diverged: bool = False

    @property
    def base(self) -> str:
        return self.opcode.split(".")[0]

    @property
    def mods(self) -> set[str]:
        mods = set(self.opcode.split(".")[1:])
        if self.base in ACCESSES and "CTA" in mods:  # Turing (sm_75) spells an access's SM scope CTA
            mods = (mods - {"CTA"}) | {"SM"}
        return mods


def functions(listing: str) -> dict[str, list[Insn]]:
    """The memory instructions of each function of a SASS listing (a
    device function by its own name: `$hrf_test$hrf_P0` is hrf_P0)."""
    out: dict[str, list[Insn]] = {}
    current = None
    divergent = diverged = False  # a BRA.DIV seen; past the return that follows it
    for line in listing.splitlines():
        m = _FUNCTION.match(line)
        if m:
            current = next(g for g in m.groups() if g).split("$")[-1]
            out.setdefault(current, [])
            divergent = diverged = False
            continue
        m = _INSN.search(line)
        if m and current is not None and (m.group(1) or "").strip() != "@!PT":
            insn = Insn(m.group(2), diverged)
            if insn.base == "BRA" and "DIV" in insn.mods:
                divergent = True
            elif insn.base == "RET" and divergent:
                diverged = True
            elif insn.base in MEMORY:
                out[current].append(insn)
    return out


# scopes as SASS writes them: on accesses (.STRONG.SM) and on MEMBAR (.CTA);
# ptxas 13 compiles sm_90's .cluster scope to the GPU's (STG.E.STRONG.GPU,
# MEMBAR.SC.GPU: tests/data/sass/ptx-forms.sass)
_ACCESS_SCOPE = {"cta": "SM", "cluster": "GPU", "gpu": "GPU", "sys": "SYS", "gl": "GPU"}
_MEMBAR_SCOPE = {"cta": "CTA", "cluster": "GPU", "gpu": "GPU", "sys": "SYS", "gl": "GPU"}
# [GPU15]'s cache operators that make an access strong, as ptxas 13 compiles them for sm_90: .ca
# and .wb at the SM (LDG.E.STRONG.SM, STG.E.STRONG.SM), .cg at the GPU's L2, .cv, .wt and volatile at
# system scope; .cs and .lu stay weak (LDG.E.EF, LDG.E.LU; tests/data/sass/cache-operators.sass)
_STRONG_CACHE = {"ca": "SM", "wb": "SM", "cg": "GPU", "cv": "SYS", "wt": "SYS", "volatile": "SYS"}


@dataclass(frozen=True)
class Step:
    """One SASS instruction an access compiles to."""

    bases: tuple[str, ...]
    mods: frozenset = frozenset()
    weak: bool = False  # must not be STRONG
    optional: bool = False

    def matches(self, insn: Insn) -> bool:
        if insn.base not in self.bases or not self.mods <= insn.mods:
            return False
        if self.weak and "STRONG" in insn.mods:
            return False
        if insn.base in ("SYNCS", "ARRIVES"):  # an mbarrier is 64 bits wide
            return True
        return not ((insn.mods - self.mods) & {"64", "128", "U8", "S8", "U16", "S16"})  # 32 bits, or as asked

    def __str__(self) -> str:
        return "/".join(self.bases) + "".join(f".{m}" for m in sorted(self.mods)) + (" (weak)" if self.weak else "")


def steps(a: Access) -> list[Step]:
    """The SASS an access compiles to on sm_70 and later."""
    words = a.ptx.split(".")
    scope = next((w for w in words if w in _ACCESS_SCOPE), None)
    if a.kind == "mbar":  # sm_90's mbarrier operations, as ptxas 13 compiles them (tests/data/sass/mbarrier.sass)
        if "init" in words:
            return [Step(("FENCE",), optional=True), Step(("SYNCS",), frozenset({"EXCH"}))]
        if "test_wait" in words:
            return [Step(("SYNCS",), frozenset({"PHASECHK"}))]
        if "try_wait" in words:  # the potentially blocking test: SYNCS.PHASECHK.TRANS64.TRYWAIT
            return [Step(("SYNCS",), frozenset({"PHASECHK", "TRYWAIT"}))]
        if "arrive" in words:  # a release: MEMBARs first where ptxas needs them (cluster scope)
            lead = [Step(("MEMBAR",), optional=True)] * 2 if "release" in words else []
            return [*lead, Step(("SYNCS",), frozenset({"ARRIVE"}))]
        return [Step(("SYNCS",), frozenset({"ARRIVE", "RED"}))]  # expect_tx, complete_tx: no arrival
    if a.kind == "bar":  # a CTA barrier, its named barrier and count in registers
        return [Step(("BAR",), frozenset({"ARV" if "arrive" in words else "SYNC"}))]
    if a.kind == "clbar":  # a release arrive: MEMBAR.ALL.CTA, MEMBAR.ALL.GPU first
        if "arrive" in words:
            lead = [Step(("MEMBAR",), optional=True)] * 2 if "release" in words else []
            return [*lead, Step(("UCGABAR_ARV",))]
        return [Step(("UCGABAR_WAIT",))]
    if a.kind == "bulk" and a.ptx.startswith("cp.reduce"):  # UBLKRED.G.S.MIN, .MAX.S32, .ADD ...
        op = words[-2].upper()
        return [
            Step(
                ("UBLKRED",),
                frozenset({"G", "S", op} | ({"S32"} if op in ("MIN", "MAX") and words[-1] == "s32" else set())),
            )
        ]
    if a.kind == "bulk":  # a copy, UBLKCP.S.G or (to global memory) UBLKCP.G.S: the same modifiers
        return [Step(("UBLKCP",), frozenset({"S", "G"}))]
    if a.kind == "bulkgroup":
        return [Step(("UTMACMDFLUSH",))] if a.ptx.endswith("commit_group") else [Step(("DEPBAR",), frozenset({"LE"}))]
    if a.kind == "cpasync":  # sm_80's cp.async, as ptxas 13 compiles it for sm_90
        if a.ptx == "cp.async.commit_group":
            return [Step(("LDGDEPBAR",))]
        if a.ptx == "cp.async.wait_group":
            return [Step(("DEPBAR",), frozenset({"LE"}))]
        if "mbarrier" in words:  # without .noinc: the increment (a transaction count's), then the arrive-on
            if "noinc" in words:
                return [Step(("ARRIVES",), frozenset({"LDGSTSBAR", "ARVCNT"}))]
            return [Step(("SYNCS",), frozenset({"ARRIVE", "RED"})), Step(("ARRIVES",), frozenset({"LDGSTSBAR"}))]
        width = {4: frozenset(), 8: frozenset({"64"}), 16: frozenset({"128"})}[a.size]
        return [Step(("LDGSTS",), width | ({"BYPASS"} if "cg" in words else set()))]
    if a.ptx.startswith("fence.proxy.async"):  # the async proxy's fence: a view fence of the space
        # (ptxas 13.5: .global FENCE.VIEW.ASYNC.G; shared or all, MEMBARs then FENCE.VIEW.ASYNC.S)
        view = "G" if a.ptx.endswith(".global") else "S"
        lead = [] if view == "G" else [Step(("MEMBAR",), optional=True), Step(("MEMBAR",), optional=True)]
        return [*lead, Step(("FENCE",), frozenset({"VIEW", "ASYNC", view}))]
    if a.ptx.startswith("fence.mbarrier_init"):  # ptxas 13.5 for sm_90: a NOP, no memory instruction to find
        return []
    if a.kind == "fence":
        kind = "ALL" if "acq_rel" in words else "SC"
        return [Step(("MEMBAR",), frozenset({kind, _MEMBAR_SCOPE[scope or "gpu"]}))]
    strong = _ACCESS_SCOPE[scope] if scope else next((_STRONG_CACHE[w] for w in words if w in _STRONG_CACHE), None)
    releases = any(w in ("release", "acq_rel") for w in words)
    before = [Step(("MEMBAR",), optional=True)] if releases else []
    # a vector: LDG.E.64, STG.E.128, LDS.64 ...
    wide = {8: frozenset({"64"}), 16: frozenset({"128"})}.get(a.size, frozenset()) if a.kind in ("ld", "st") else None
    if "shared" in words:  # shared memory: LDS, STS, ATOMS, which carry no strength or scope in SASS
        shared: tuple[str, ...] = {"ld": ("LDS",), "st": ("STS",), "atom": ("ATOMS",), "red": ("ATOMS",)}[a.kind]
        return [*before, Step(shared, wide or frozenset())]
    if a.kind in ("atom", "red"):
        bases = ("ATOMG", "ATOM") if a.kind == "atom" else ("RED", "REDG", "ATOMG")
        return [*before, Step(bases, frozenset({"STRONG", strong or "GPU"}))]
    bases = ("LDG", "LD") if a.kind == "ld" else ("STG", "ST")
    wide = wide or frozenset()
    if strong is None:
        return [Step(bases, wide, weak=True)]
    return [*before, Step(bases, wide | {"STRONG", strong})]


def _body(insns: list[Insn], outputs: int) -> list[Insn] | str:
    """The function's memory instructions before the stores of its
    `outputs` (a fence's auxiliaries left out); what differs if it does
    not end with those stores."""
    body = [i for i in insns if i.base not in AUXILIARY and not i.diverged]
    if not outputs:
        return body
    # the output stores: the last `outputs` global stores. The assembler may
    # move a shared-memory access past them (the two state spaces never
    # alias), so only those may come after the first of them
    stores = [k for k, i in enumerate(body) if i.base == "STG"][-outputs:]
    after = [i for k, i in enumerate(body) if stores and k > stores[0] and k not in stores and i.base in ACCESSES]
    if len(stores) < outputs or any(i.base not in SHARED_ACCESSES for i in after):
        return f"its last {outputs} accesses are not the stores of its outputs"
    return [i for k, i in enumerate(body) if k not in stores]


def _forms(accesses: list[Access]) -> list[Step]:
    """Every SASS form the accesses compile to."""
    return [st for a in accesses for st in steps(a)]


def _diverged(accesses: list[Access], insns: list[Insn]) -> str | None:
    """The out-of-line copy for a diverged warp holds only the forms of the
    thread's accesses (the barrier, the code after it) and of its output stores."""
    forms = _forms(accesses) + [Step(("STG",), weak=True)]
    for i in insns:
        if i.diverged and i.base not in AUXILIARY and not any(st.matches(i) for st in forms):
            return f"{i.opcode} (on the path of a diverged warp) is the form of no access of the test"
    return None


def check_thread(accesses: list[Access], insns: list[Insn], outputs: int) -> str | None:
    """None where the function's memory instructions are the accesses, in
    order, then the stores of its `outputs`; else what differs."""
    why = _diverged(accesses, insns)
    if why:
        return why
    body = _body(insns, outputs)
    if isinstance(body, str):
        return body
    k = 0
    for j, a in enumerate(accesses):
        for st in steps(a):
            if k < len(body) and st.matches(body[k]):
                k += 1
            elif not st.optional:
                found = body[k].opcode if k < len(body) else "nothing"
                later = next((b for b in accesses[j + 1 :] if k < len(body) and _first(b).matches(body[k])), None)
                moved = f" (the form of the later `{later.ptx}`: the two swapped)" if later is not None else ""
                return f"`{a.ptx}` should be {st}, found {found}{moved}"
    if k < len(body):
        return f"{body[k].opcode} is not an access of the test"
    return None


def _first(a: Access) -> Step:
    """The instruction that stands for an access (a release's fence aside)."""
    return next(st for st in steps(a) if not st.optional)


def check_forms(accesses: list[Access], insns: list[Insn], outputs: int) -> str | None:
    """The check of a thread with a loop, which the assembler may peel or
    rotate (an access compiled twice, a loop's first test moved ahead):
    None where every memory instruction before the output stores is the
    form of one of the accesses and every access's form is there; their
    number and order are not checked. Else what differs."""
    body = _body(insns, outputs)
    if isinstance(body, str):
        return body
    forms = _forms(accesses)
    for i in body:
        if not any(st.matches(i) for st in forms):
            return f"{i.opcode} is the form of no access of the test"
    for a in accesses:
        for st in steps(a):
            if not st.optional and not any(st.matches(i) for i in body):
                return f"`{a.ptx}` should be {st}, found none"
    return None


def passed(notes: list[str]) -> str:
    """A passed check's word, with what `check` noted (threads held to their forms)."""
    return "ok" + (f" ({'; '.join(notes)})" if notes else "")


def check(lt: LoweredTest, listing: str, notes: list | None = None) -> list[str]:
    """What does not match, per thread (empty: the code is the test's). A
    thread with a loop whose code is not its accesses in order is held to
    their forms alone (`check_forms`), and `notes` says so."""
    funcs = functions(listing)
    problems = []
    for th in lt.threads:
        name = f"hrf_{th.name}"
        if name not in funcs:
            problems.append(f"{th.name}: no function {name} in the SASS")
            continue
        why = check_thread(th.accesses, funcs[name], th.n_outputs)
        if why and th.spins:
            loose = check_forms(th.accesses, funcs[name], th.n_outputs)
            if loose is None:
                if notes is not None:
                    notes.append(f"{th.name} loops: its accesses' forms checked, not their order ({why})")
                continue
            why = f"{why}; nor, as a thread with a loop, its accesses' forms: {loose}"
        if why:
            problems.append(f"{th.name}: {why} (its memory instructions: {' '.join(i.opcode for i in funcs[name])})")
    return problems


def tool(name: str) -> str | None:
    """A CUDA tool: on the PATH, else in $CUDA_HOME/bin or
    /usr/local/cuda/bin, else from NVIDIA's wheels (`pip install
    nvidia-cuda-nvcc nvidia-nvvm nvidia-cuda-runtime nvidia-cuda-crt
    nvidia-cuda-nvdisasm`: nvidia/cu13/bin in site-packages), which need
    no GPU: the code check then runs on any Linux machine."""
    import os

    found = shutil.which(name)
    if found:
        return found
    homes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    import importlib.util

    spec = importlib.util.find_spec("nvidia")  # NVIDIA's wheels: a namespace package
    if spec is not None and spec.submodule_search_locations:
        homes += [os.path.join(p, "cu13") for p in spec.submodule_search_locations]
    for home in homes:
        if home and os.access(os.path.join(home, "bin", name), os.X_OK):
            return os.path.join(home, "bin", name)
    return None


def disassemble(cubin: bytes) -> str:
    """The SASS of a cubin, by cuobjdump (or nvdisasm)."""
    errors = []
    for name, args in (("nvdisasm", ["-c"]), ("cuobjdump", ["-sass"])):
        exe = tool(name)
        if exe is None:
            continue
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(cubin)
            f.flush()
            r = subprocess.run([exe, *args, f.name], capture_output=True, text=True, check=False)
        if r.returncode == 0:
            return r.stdout
        errors.append(f"{name}: {(r.stderr or r.stdout).strip()[:300]}")
    if errors:
        raise CodeCheckError("cannot read the compiled code: " + "; ".join(errors))
    raise CodeCheckError("no cuobjdump or nvdisasm to read the compiled code (--no-codecheck to run without)")
