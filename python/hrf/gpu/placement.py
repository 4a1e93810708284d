"""Where each instance's threads run: thread randomisation ([GPU15] sec. 4)
that keeps the test's scope tree.

A launch runs `N` instances of a test on `B` blocks of `W` warps. The test's
threads fall into CTA groups (threads the scope tree puts in one CTA) and,
inside a group, warp groups (threads it puts in one warp; a thread with no
warp in the tree is a warp group of its own). Blocks come in tuples of `K`
(one block per CTA group); warps `0..WT-1` of a block run tests, the others
stress memory; in a test warp, a warp group takes `S_c` consecutive lanes
(the size of the group's largest warp group), `Y` instances per warp.

Per launch, three random affine bijections (block, warp, lane) move every
thread: the instance's CTA groups land in `K` different blocks, its warp
groups in different warps of a block, each thread on its own lane. The
device computes the inverse (hardware thread -> instance and role) from
`INVERSE`, the same statements this module evaluates in `role_of`: one
text, run in Python by the tests and compiled into the kernel.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from ..litmus import ast as A
from .lower import NotRunnable, cta_of

WARP = 32


@dataclass(frozen=True)
class Shape:
    """The scope tree of a test, as placement needs it: per CTA group, per
    warp group, the test threads (indices)."""

    groups: tuple[tuple[tuple[int, ...], ...], ...]

    @property
    def k(self) -> int:
        return len(self.groups)

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


def shape_of(test: A.Test) -> Shape:
    """The CTA and warp groups of a test's threads, from its scope tree
    (a thread with no CTA gets one of its own)."""
    devices = {t.dev for t in test.threads if t.dev is not None}
    if len(devices) > 1:
        raise NotRunnable("cannot run on a GPU: the test's threads are on several devices")
    ctas: dict = {}
    for t in test.threads:
        key = cta_of(t)
        warp = ("sg", t.sg) if t.sg is not None else ("own", t.index)
        ctas.setdefault(key, {}).setdefault(warp, []).append(t.index)
    return Shape(tuple(tuple(tuple(w) for w in cta.values()) for cta in ctas.values()))


@dataclass(frozen=True)
class Geometry:
    """A launch's shape: blocks, warps per block, test warps, instances per warp."""

    blocks: int  # B, a multiple of K
    warps: int  # W, warps per block (a power of two)
    test_warps: int  # WT <= W
    per_warp: int  # Y: instances whose warp group shares one warp

    def per_block(self) -> int:
        return self.test_warps * self.per_warp  # M

    def instances(self, shape: Shape) -> int:
        return self.blocks // shape.k * self.per_block()  # N


def geometry(shape: Shape, blocks: int, block_threads: int, test_warps: int, lanes: int) -> Geometry:
    """The geometry for a shape, given the blocks that fit on the device
    at once, the block size and the incantation's test warps and lanes."""
    w = block_threads // WARP
    if block_threads % WARP or w & (w - 1) or w == 0:
        raise NotRunnable(f"cannot run on a GPU: a block of {block_threads} threads (a power of two times 32)")
    need = max(shape.warps(c) for c in range(shape.k))
    if need > w:
        raise NotRunnable(f"cannot run on a GPU: {need} warps of one CTA, more than a block of {w} warps holds")
    wt = min(max(test_warps, need), w)  # at least the warps a CTA of the test needs
    y = min(lanes // (shape.warps(c) * shape.lanes(c)) for c in range(shape.k))
    if y == 0:
        raise NotRunnable(f"cannot run on a GPU: a CTA of the test needs more than the {lanes} lanes a warp gives it")
    b = blocks // shape.k * shape.k
    if b == 0:
        raise NotRunnable(f"cannot run on a GPU: {shape.k} CTAs, more than the {blocks} blocks that fit")
    return Geometry(b, w, wt, y)


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
    return Permutation(*affine(g.blocks, rng), *affine(g.warps, rng), *affine(WARP, rng))


def inverses(g: Geometry, p: Permutation) -> tuple[int, int, int]:
    return pow(p.ba, -1, g.blocks), pow(p.wa, -1, g.warps), pow(p.la, -1, WARP)


# Hardware thread (b, t) -> instance i and CTA group c, warp group h, lane q
# (`live` 0: a stress thread). Statements valid in both Python and C
# (`//` becomes `/`); every quantity is a non-negative whole number.
INVERSE = """
tb = (BAINV * ((b + B - BC) % B)) % B
j = tb // K
c = tb % K
x = (WAINV * (((t // 32) + W - WC) % W)) % W
s = (LAINV * (((t % 32) + 32 - LC) % 32)) % 32
slot = s // SC[c]
q = s % SC[c]
y = slot // WN[c]
h = slot % WN[c]
live = (x < WT) * (y < Y)
i = j * (WT * Y) + y * WT + (x + WT - h) % WT
"""
INVERSE_NAMES = ("tb", "j", "c", "x", "s", "slot", "q", "y", "h", "live", "i")


def parameters(shape: Shape, g: Geometry, p: Permutation) -> dict:
    binv, winv, linv = inverses(g, p)
    return {
        "B": g.blocks,
        "K": shape.k,
        "W": g.warps,
        "WT": g.test_warps,
        "Y": g.per_warp,
        "BAINV": binv,
        "BC": p.bc,
        "WAINV": winv,
        "WC": p.wc,
        "LAINV": linv,
        "LC": p.lc,
        "SC": [shape.lanes(c) for c in range(shape.k)],
        "WN": [shape.warps(c) for c in range(shape.k)],
    }


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
    y, x0 = divmod(r, g.test_warps)
    x = (x0 + h) % g.test_warps
    s = (y * shape.warps(c) + h) * shape.lanes(c) + q
    block = (p.ba * (j * shape.k + c) + p.bc) % g.blocks
    warp = (p.wa * x + p.wc) % g.warps
    lane = (p.la * s + p.lc) % WARP
    return block, warp * WARP + lane


def inverse_c() -> str:
    """`INVERSE` as C statements (unsigned 64-bit arithmetic)."""
    out = []
    for line in INVERSE.strip().splitlines():
        name, expr = (s.strip() for s in line.split("=", 1))
        out.append(f"const u64 {name} = {expr.replace('//', '/')};")
    return "\n".join(out)
