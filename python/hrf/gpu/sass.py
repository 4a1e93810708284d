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

# an instruction line: `/*0050*/  @!P0 LDG.E.STRONG.GPU R2, desc[UR4][R2.64] ;`
_INSN = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")
_FUNCTION = re.compile(r"(?:Function\s*:\s*(\S+))|(?:^\s*\.text\.(\S+?):)|(?:^(hrf_\w+):)")
MEMORY = ("LDG", "STG", "ATOMG", "ATOM", "RED", "REDG", "MEMBAR", "LD", "ST", "FENCE", "CCTL", "ERRBAR")


class CodeCheckError(HrfError):
    """The compiled code does not hold the test's accesses as written."""


@dataclass(frozen=True)
class Insn:
    opcode: str  # LDG.E.STRONG.GPU

    @property
    def base(self) -> str:
        return self.opcode.split(".")[0]

    @property
    def mods(self) -> set[str]:
        return set(self.opcode.split(".")[1:])


def functions(listing: str) -> dict[str, list[Insn]]:
    """The memory instructions of each function of a SASS listing."""
    out: dict[str, list[Insn]] = {}
    current = None
    for line in listing.splitlines():
        m = _FUNCTION.search(line)
        if m:
            current = next(g for g in m.groups() if g)
            out.setdefault(current, [])
            continue
        m = _INSN.search(line)
        if m and current is not None:
            insn = Insn(m.group(1))
            if insn.base in MEMORY:
                out[current].append(insn)
    return out


_SCOPE = {"cta": "SM", "gpu": "GPU", "sys": "SYS", "gl": "GPU"}
_STRONG_CACHE = {"cg": "GPU", "cv": "SYS", "volatile": "SYS"}


def expected(a: Access) -> tuple[set[str], set[str]]:
    """The SASS opcodes an access may compile to, and the modifiers it must carry."""
    words = a.ptx.split(".")
    if a.kind == "fence":
        scope = words[-1]
        return {"MEMBAR"}, {_SCOPE[scope]} if scope in _SCOPE else set()
    base = {"ld": {"LDG", "LD"}, "st": {"STG", "ST"}, "atom": {"ATOMG", "ATOM"}, "red": {"RED", "REDG", "ATOMG"}}[
        a.kind
    ]
    scope = next((_SCOPE[w] for w in words if w in ("cta", "gpu", "sys")), None)
    cache = next((_STRONG_CACHE[w] for w in words if w in _STRONG_CACHE), None)
    strong = scope or cache
    if a.kind in ("atom", "red"):
        return base, {"STRONG", strong or "GPU"}
    if strong is None:  # a weak access
        return base, set()
    return base, {"STRONG", strong}


def _matches(a: Access, insn: Insn) -> bool:
    bases, mods = expected(a)
    if insn.base not in bases or not mods <= insn.mods:
        return False
    if a.kind in ("ld", "st") and not mods and "STRONG" in insn.mods:
        return False  # a weak access made strong is not the test as written
    return not (insn.mods & {"64", "128", "U8", "S8", "U16", "S16"})  # 32 bits wide


def check_thread(accesses: list[Access], insns: list[Insn]) -> str | None:
    """None where the accesses appear in order among the instructions;
    else what is missing."""
    k = 0
    for a in accesses:
        while k < len(insns) and not _matches(a, insns[k]):
            k += 1
        if k == len(insns):
            want = "/".join(sorted(expected(a)[0]))
            mods = ".".join(sorted(expected(a)[1]))
            return f"`{a.ptx}` (as {want}{'.' + mods if mods else ''}) is not there in order"
        k += 1
    return None


def check(lt: LoweredTest, listing: str) -> list[str]:
    """What does not match, per thread (empty: the code is the test's)."""
    funcs = functions(listing)
    problems = []
    for th in lt.threads:
        name = f"hrf_{th.name}"
        if name not in funcs:
            problems.append(f"{th.name}: no function {name} in the SASS")
            continue
        why = check_thread(th.accesses, funcs[name])
        if why:
            problems.append(f"{th.name}: {why}; its memory instructions: {' '.join(i.opcode for i in funcs[name])}")
    return problems


def disassemble(cubin: bytes) -> str:
    """The SASS of a cubin, by cuobjdump (or nvdisasm)."""
    for tool, args in (("cuobjdump", ["-sass"]), ("nvdisasm", ["-c"])):
        exe = shutil.which(tool)
        if exe is None:
            continue
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(cubin)
            f.flush()
            r = subprocess.run([exe, *args, f.name], capture_output=True, text=True, check=False)
        if r.returncode == 0:
            return r.stdout
    raise CodeCheckError("no cuobjdump or nvdisasm to read the compiled code (--no-codecheck to run without)")
