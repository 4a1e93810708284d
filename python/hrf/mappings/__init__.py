"""Compilation schemes (the README's schemes section) as data: one file per scheme, each row
a machine-instruction sequence for a source operation, with its source.

A row's key is (operation, scope, remote): operation `load`, `store` or
`rmw` (every RMW kind: the access is performed by one RMW instruction);
scope `na` (non-atomic), `wg` (work-item, sub-group and work-group scopes),
`dev` or `all`. In a sequence, `LD`, `ST`, `RMWL1`, `RMWL2` stand for the
access itself, `LK x`/`UNLK x` lock the accessed location, the rest are
machine instructions ([RSP15] Table 1). A scheme may have rows for programs
on several devices (`several_devices`), used in place of or besides its
rows there, and rows for seq_cst accesses (`seq_cst`), used in place of
the others for their keys; it says why a key has no row (`missing`,
`seq_cst_missing`).
"""

from __future__ import annotations

from .compile import compile_scheme
from .registry import get, schemes
from .scheme import ACCESS, SCOPE_CLASS, Row, Scheme, key_text

__all__ = ["Row", "Scheme", "schemes", "get", "compile_scheme", "key_text", "ACCESS", "SCOPE_CLASS"]
