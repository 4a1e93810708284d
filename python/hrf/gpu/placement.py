"""Where each instance's threads run: thread randomisation ([GPU15] sec. 4)
that keeps the test's scope tree.

A launch runs `N` instances of a test on `B` blocks of `W` warps. The test's
threads fall into CTA groups (threads the scope tree puts in one CTA) and,
inside a group, warp groups (threads it puts in one warp; a thread with no
warp in the tree is a warp group of its own). Blocks come in tuples of `K`
(one block per CTA group); warps `0..WT-1` of a block run tests, the others
stress memory; in a test warp, a warp group takes `S_c` consecutive lanes
(the size of the group's largest warp group), `Y` instances per warp.

A test with CTA barriers is placed in whole warps (`WHOLE`): a barrier
counts whole warps and waits for every lane of each, so every warp group
of an instance has a warp of its own (the other lanes mirror its
barriers: cuda.py), one instance a warp, and each instance of a block has
its own named barriers (16 a CTA, the first kept for the block's own
barrier): a block runs at most 15 // (the barriers an instance needs)
instances, each over `NEED` consecutive test warps.

Per launch, three random affine bijections (block, warp, lane) move every
thread: the instance's CTA groups land in `K` different blocks, its warp
groups in different warps of a block, each thread on its own lane. The
device computes the inverse (hardware thread -> instance and role) from
`INVERSE`, the same statements this module evaluates in `role_of`: one
text, run in Python by the tests and compiled into the kernel. The
launch's geometry is one text too (`GEOMETRY`), which `hrf run` evaluates
in Python and the standalone driver compiles (cuda.py writes it as C).
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass

from .lower import LoweredTest, NotRunnable, cta_of, warp_of

WARP = 32


@dataclass(frozen=True)
class Shape:
    """The scope tree of a test, as placement needs it: per CTA group, per
    warp group, the test threads (indices)."""

    groups: tuple[tuple[tuple[int, ...], ...], ...]
    barriers: int = 0  # named barriers an instance needs in one CTA (0: none, not placed in whole warps)
    align: int = 1  # words an instance's global copies align to (4: a bulk copy reads 16 aligned bytes)
    cluster: bool = False  # the CTAs run as one thread-block cluster (a tuple of blocks is a cluster)

    @property
    def k(self) -> int:
        return len(self.groups)

    @property
    def whole(self) -> bool:
        """Placed in whole warps (a test with CTA barriers)."""
        return self.barriers > 0

    @property
    def need(self) -> int:
        """The warps of the test's largest CTA."""
        return max(self.warps(c) for c in range(self.k))

    @property
    def span(self) -> int:
        """The lanes of the test's largest CTA, packed (warps times lanes)."""
        return max(self.warps(c) * self.lanes(c) for c in range(self.k))

    def warps(self, c: int) -> int:
        return len(self.groups[c])

    def lanes(self, c: int) -> int:
        return max(len(g) for g in self.groups[c])

    def where(self, thread: int) -> tuple[int, int, int]:
        """(CTA group, warp group, lane in the group) of a test thread."""
        for c, cta in enumerate(self.groups):
            for h, warp in enumerate(cta):
                if thread in warp:
                    return c, h, warp.index(thread)
        raise KeyError(thread)


def shape_of(lt: LoweredTest) -> Shape:
    """The CTA and warp groups of a lowered test's threads, from its scope
    tree (a thread with no CTA gets one of its own), with what lowering
    found: its CTA barriers, bulk copies and cluster."""
    test = lt.test
    devices = {t.dev for t in test.threads if t.dev is not None}
    if len(devices) > 1:
        raise NotRunnable("cannot run on a GPU: the test's threads are on several devices")
    ctas: dict = {}
    for t in test.threads:
        ctas.setdefault(cta_of(t), {}).setdefault(warp_of(t), []).append(t.index)
    groups = tuple(tuple(tuple(w) for w in cta.values()) for cta in ctas.values())
    # an instance's copy of a location: 16 aligned bytes for a bulk copy, an array's words (a power of
    # two: a vector access's address is aligned to its size) for an array's first element
    align = max([4 if lt.bulk else 1, *lt.rows.values()])
    return Shape(groups, lt.barriers.ids, align, lt.cluster)


@dataclass(frozen=True)
class Geometry:
    """A launch's shape: blocks, warps per block, test warps, instances per warp."""

    blocks: int  # B, a multiple of K
    warps: int  # W, warps per block (a power of two)
    test_warps: int  # WT <= W
    per_warp: int  # Y: instances whose warp group shares one warp (1 in whole warps)
    block_instances: int = 0  # M: the instances a block runs (0: WT * Y)
    pad: int = 1  # words between neighbouring instances' copies of a location (the setting's, aligned)
    region: int = 32  # words of a location's copies (a multiple of 32)
    units: int = 0  # what the block permutation moves: blocks, or clusters (tuples) of K (0: blocks)

    @property
    def moved(self) -> int:
        return self.units or self.blocks

    def per_block(self) -> int:
        return self.block_instances or self.test_warps * self.per_warp  # M

    def instances(self, shape: Shape) -> int:
        return self.blocks // shape.k * self.per_block()  # N


# The blocks of BLOCK threads that fit on the device at once, from its SMs,
# threads and registers an SM and the kernel's registers a thread (spin loops
# and the synchronised start need every block running): Python and C, as below.
RESIDENT = "max(min(min(THREADS_SM // BLOCK, REGS_SM // (max(REGS, 1) * BLOCK)), 32), 1) * SMS"


def resident(block: int, sms: int, threads_sm: int, regs_sm: int, regs: int) -> int:
    """`RESIDENT` for a device and a kernel."""
    env = {"BLOCK": block, "SMS": sms, "THREADS_SM": threads_sm, "REGS_SM": regs_sm, "REGS": regs}
    return eval(RESIDENT, {}, env)


def resident_c() -> str:
    """`RESIDENT` as a C expression over the driver's names (cudaDeviceProp, cudaFuncAttributes)."""
    names = {
        "THREADS_SM": "(u64)props.maxThreadsPerMultiProcessor",
        "REGS_SM": "(u64)props.regsPerMultiprocessor",
        "REGS": "(u64)attr.numRegs",
        "SMS": "(u64)props.multiProcessorCount",
        "BLOCK": "(u64)s.block",
    }
    return re.sub(r"\b[A-Z][A-Z_]*\b", lambda m: names[m.group(0)], _c(RESIDENT))


# A launch's geometry from the blocks that fit (BLOCKS), the setting's block
# size, test warps, lanes and padding, and the test's CTAs (K, NEED, SPAN),
# barriers (WHOLE, NB) and alignment (ALIGN): blocks b, warps w, test warps
# wt, instances per warp y and per block m, instances n, the padding and a
# location's region (words). Statements valid in Python and C, as `INVERSE`.
GEOMETRY = """
w = BLOCK // 32
wt0 = min(max(TEST_WARPS, NEED), w)
g = min(wt0 // NEED, 15 // max(NB, 1))
wt = wt0 - WHOLE * (wt0 - g * NEED)
y = (LANES // SPAN) * (1 - WHOLE) + WHOLE
m = wt * y // (1 + WHOLE * (NEED - 1))
b = BLOCKS // K * K
n = b // K * m
pad = (PAD + ALIGN - 1) // ALIGN * ALIGN
region = (n * pad + 31) // 32 * 32
units = b // (1 + CL * (K - 1))
"""
# what cannot be launched, checked in order: (condition, message, its values)
GEOMETRY_CHECKS = (
    (
        "(BLOCK % 32 != 0) + ((w & (w - 1)) != 0) + (w == 0)",
        "a block of %u threads (a power of two times 32)",
        ("BLOCK",),
    ),
    ("NEED > w", "%u warps of one CTA, more than a block of %u warps holds", ("NEED", "w")),
    ("y == 0", "a CTA of the test needs more than the %u lanes a warp gives it", ("LANES",)),
    ("b == 0", "%u CTAs, more than the %u blocks that fit", ("K", "BLOCKS")),
)


# GEOMETRY's results as the standalone driver's HrfGeometry keeps them (its field names)
GEOMETRY_FIELDS = (
    ("b", "blocks"),
    ("w", "warps"),
    ("wt", "test_warps"),
    ("y", "per_warp"),
    ("m", "per_block"),
    ("pad", "pad"),
    ("region", "region"),
    ("units", "units"),
)


def test_constants(shape: Shape) -> dict:
    """What `GEOMETRY` and `INVERSE` know of a test (compiled into its kernels)."""
    return {
        "K": shape.k,
        "NEED": shape.need,
        "SPAN": shape.span,
        "WHOLE": int(shape.whole),
        "NB": shape.barriers,
        "ALIGN": shape.align,
        "CL": int(shape.cluster),
    }


def geometry(shape: Shape, blocks: int, block_threads: int, test_warps: int, lanes: int, pad: int = 1) -> Geometry:
    """The geometry for a shape, given the blocks that fit on the device
    at once, the block size and the incantation's test warps, lanes and padding."""
    env = test_constants(shape) | {
        "BLOCKS": blocks,
        "BLOCK": block_threads,
        "TEST_WARPS": test_warps,
        "LANES": lanes,
        "PAD": pad,
    }
    exec(GEOMETRY, {}, env)
    for cond, message, values in GEOMETRY_CHECKS:
        if eval(cond, {}, env):
            raise NotRunnable("cannot run on a GPU: " + message % tuple(env[v] for v in values))
    return Geometry(env["b"], env["w"], env["wt"], env["y"], env["m"], env["pad"], env["region"], env["units"])


def geometry_c(shape: Shape) -> str:
    """`GEOMETRY` and its checks as the standalone driver's `hrf_geometry`."""
    test = " ".join(f"const u64 {k} = {v};" for k, v in test_constants(shape).items())
    body = [f"    {test}"] + [f"    const u64 {name} = {_c(expr)};" for name, expr in _statements(GEOMETRY)]
    for cond, message, values in GEOMETRY_CHECKS:
        args = "".join(f", (unsigned){v}" for v in values)
        body.append(f'    if ({_c(cond)}) hrf_failf("cannot run on a GPU: {message}"{args});')
    consts = " ".join(
        f"const u64 {k} = {v};"
        for k, v in (("TEST_WARPS", "s.test_warps"), ("LANES", "s.lanes"), ("BLOCK", "s.block"), ("PAD", "s.pad"))
    )
    return f"""// the launch's geometry (gpu/placement.py's GEOMETRY, as C)
static HrfGeometry hrf_geometry(unsigned long long BLOCKS, const HrfSetting &s) {{
    {consts}
{chr(10).join(body)}
    HrfGeometry out;
    {" ".join(f"out.{field} = {name};" for name, field in GEOMETRY_FIELDS)}
    return out;
}}
"""


def _statements(text: str) -> list[tuple[str, str]]:
    return [tuple(s.strip() for s in line.split("=", 1)) for line in text.strip().splitlines()]  # type: ignore[misc]


def _c(expr: str) -> str:
    """A statement's expression as C: `//` divides whole numbers, min and max are hrf's."""
    return expr.replace("//", "/").replace("min(", "hrf_min(").replace("max(", "hrf_max(")


@dataclass(frozen=True)
class Permutation:
    """A launch's random placement: x -> (a*x + c) mod n for blocks, warps and lanes."""

    ba: int
    bc: int
    wa: int
    wc: int
    la: int
    lc: int


def affine(n: int, rng: random.Random) -> tuple[int, int]:
    """A random bijection x -> (a*x + c) mod n of 0..n-1, as (a, c)."""
    a = 1
    while n > 1 and math.gcd(a := rng.randrange(1, n), n) != 1:
        pass
    return a, rng.randrange(n)


def draw(g: Geometry, rng: random.Random | None) -> Permutation:
    """A fresh placement (rng None: the identity, no randomisation)."""
    if rng is None:
        return Permutation(1, 0, 1, 0, 1, 0)
    return Permutation(*affine(g.moved, rng), *affine(g.warps, rng), *affine(WARP, rng))


# Hardware thread (b, t) -> instance i and CTA group c, warp group h, lane q
# (`live` 0: a stress thread), and m, the instances a block runs. Statements
# valid in both Python and C (`//` becomes `/`); every quantity is a
# non-negative whole number. Packed (WHOLE 0): a warp holds Y instances'
# slots, warp group h of instance x - h in warp x; in whole warps (WHOLE 1):
# instance u of a block holds warps u * WN[c] .. + WN[c] - 1, lanes 0..SC[c]-1.
INVERSE = """
m = WT * Y // (1 + WHOLE * (NEED - 1))
nb = B // (1 + CL * (K - 1))
ub = b // (1 + CL * (K - 1))
tu = (BAINV * ((ub + nb - BC) % nb)) % nb
tb = CL * (tu * K + b % K) + (1 - CL) * tu
j = tb // K
c = tb % K
x = (WAINV * (((t // 32) + W - WC) % W)) % W
s = (LAINV * (((t % 32) + 32 - LC) % 32)) % 32
slot = (s // SC[c]) * (1 - WHOLE)
q = WHOLE * s + (1 - WHOLE) * (s % SC[c])
y = slot // WN[c]
u = x // WN[c]
h = WHOLE * (x % WN[c]) + (1 - WHOLE) * (slot % WN[c])
live = (x < WT) * (y < Y) * (1 - WHOLE + WHOLE * (u < m))
i = j * m + WHOLE * u + (1 - WHOLE) * (y * WT + (x + WT - h) % WT)
"""


# The per-launch parameters placement sets, from the launch's geometry (GEOMETRY's
# names) and permutation (ba, bc, wa, wc, la, lc): statements valid in Python
# and C, which `hrf run` evaluates and the standalone driver compiles
# (cuda.py writes them as its `hrf_param_values`, beside the setting's).
PLACEMENT_VALUES = {
    "B": "b",
    "W": "w",
    "WT": "wt",
    "Y": "y",
    "N": "n",
    "PAD": "pad",
    "REGION": "region",
    "BAINV": "inverse(ba, units)",
    "BC": "bc",
    "WAINV": "inverse(wa, w)",
    "WC": "wc",
    "LAINV": "inverse(la, 32)",
    "LC": "lc",
}


def compiled(values: dict) -> dict:
    """Each value's text compiled once (a launch evaluates them all)."""
    return {k: compile(v, f"<{k}>", "eval") for k, v in values.items()}


_PLACEMENT = compiled(PLACEMENT_VALUES)


def geometry_env(shape: Shape, g: Geometry, p: Permutation) -> dict:
    """The names `PLACEMENT_VALUES` reads: the geometry's (as GEOMETRY
    names them) and the permutation's, and `inverse` (a's inverse mod n)."""
    return {
        "b": g.blocks,
        "w": g.warps,
        "wt": g.test_warps,
        "y": g.per_warp,
        "m": g.per_block(),
        "n": g.instances(shape),
        "pad": g.pad,
        "region": g.region,
        "units": g.moved,
        "ba": p.ba,
        "bc": p.bc,
        "wa": p.wa,
        "wc": p.wc,
        "la": p.la,
        "lc": p.lc,
        "inverse": lambda a, n: pow(a, -1, n),
    }


def parameters(shape: Shape, g: Geometry, p: Permutation) -> dict:
    """What `INVERSE` reads: the test's constants and CTAs' lanes and warps,
    and the launch's placement parameters (`PLACEMENT_VALUES`)."""
    env = geometry_env(shape, g, p)
    return (
        test_constants(shape)
        | {k: eval(v, {}, env) for k, v in _PLACEMENT.items()}
        | {"SC": [shape.lanes(c) for c in range(shape.k)], "WN": [shape.warps(c) for c in range(shape.k)]}
    )


def role_of(shape: Shape, g: Geometry, p: Permutation, b: int, t: int) -> tuple[int, int] | None:
    """(instance, test thread) that hardware thread t of block b runs, by
    `INVERSE`; None for a stress thread or an idle lane."""
    env = parameters(shape, g, p) | {"b": b, "t": t}
    exec(INVERSE, {}, env)
    if not env["live"]:
        return None
    c, h, q = env["c"], env["h"], env["q"]
    warp = shape.groups[c][h]
    if q >= len(warp):
        return None
    return env["i"], warp[q]


def position(shape: Shape, g: Geometry, p: Permutation, i: int, thread: int) -> tuple[int, int]:
    """(block, thread in block) where instance i runs test thread `thread`:
    the forward map, which `INVERSE` undoes."""
    c, h, q = shape.where(thread)
    m = g.per_block()
    j, r = divmod(i, m)
    if shape.whole:  # instance r of the block: warps r * WN[c] + h, lanes from 0
        x, s = r * shape.warps(c) + h, q
    else:
        y, x0 = divmod(r, g.test_warps)
        x = (x0 + h) % g.test_warps
        s = (y * shape.warps(c) + h) * shape.lanes(c) + q
    if shape.cluster:  # clusters move whole: a block's rank in its cluster is its CTA group
        block = (p.ba * j + p.bc) % g.moved * shape.k + c
    else:
        block = (p.ba * (j * shape.k + c) + p.bc) % g.blocks
    warp = (p.wa * x + p.wc) % g.warps
    lane = (p.la * s + p.lc) % WARP
    return block, warp * WARP + lane


def inverse_c() -> str:
    """`INVERSE` as C statements (unsigned 64-bit arithmetic)."""
    return "\n".join(f"const u64 {name} = {_c(expr)};" for name, expr in _statements(INVERSE))
