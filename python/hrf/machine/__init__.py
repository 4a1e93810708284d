"""The GPU machine of [RSP15] sec. 5 from Python, a package mirroring
`rust/src/machine/`: `instructions` (the one instruction table: syntax,
IR, drawing, Isabelle name), `program` (machine programs and the lowering
of GPU_MACHINE tests, whose syntax is read by `litmus/machine.py`),
`explore` (the driver of the Rust explorer) and `report` (its result and
readable traces). Programs are written in the machine's assembly or
compiled from a source test by a scheme (`hrf.mappings`).

The test syntax (herd-like, column format) is shown in `litmus/machine.py`.

Instructions ([RSP15] Table 1): ``LD r x``, ``ST v x``, ``INCL1 r x``,
``INCL2 r x``, ``FLUL1 s``, ``FLUL2 s``, ``INVL1 s``, ``LK x``, ``UNLK x``,
``LKrmw s``, ``UNLKrmw s`` with s in WG, DV, ALL; hrf adds ``INVL2 s``
(to write all-devices rows), RMWs generalising INCL: ``ADDL1 r x v``,
``EXCHL2 r x v``, ``CASL2 r x e v`` (r := 1 if x held e), and register
code: ``MOV r e`` (e an expression over registers and numbers), ``BNZ e
L``, ``BZ e L``, ``JMP L`` (forward only) and labels ``L:``.
"""

from ..litmus.machine import is_machine_text
from .explore import ExploreProgress, explore
from .instructions import SCOPES, TABLE, instr_text, parse_instruction
from .program import MachineProgram, MThread, labels_of, lower, parse_machine, parse_machine_file
from .report import MachineResult, step_text

__all__ = [
    "SCOPES",
    "TABLE",
    "ExploreProgress",
    "MThread",
    "MachineProgram",
    "MachineResult",
    "explore",
    "instr_text",
    "is_machine_text",
    "labels_of",
    "lower",
    "parse_instruction",
    "parse_machine",
    "parse_machine_file",
    "step_text",
]
