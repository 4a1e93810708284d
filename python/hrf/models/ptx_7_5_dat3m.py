"""`ptx-7.5` as Dartagnan reads it (Dat3M's `ptx-v7.5.cat` as its front end
tags events): `fence.sc` no release or acquire fence, `red` a read
(`red.acquire`/`red.acq_rel` taken), a failing `atom.cas` writing the old
value back. `ptx-7.5` follows the PTX ISA instead (docs/readings.md).
"""

from .ptx_7_5 import build

MODEL = build(dartagnan=True)
