"""A TMA load ring of S stages over R rounds (a GEMM mainloop's pipeline,
one CTA): the producer P0 waits on stage s's `empty` barrier, arms its
`full` barrier for 16 bytes and issues the bulk copy of tile k into `d{s}`;
the consumer P1 waits on `full`, reads `d{s}`, fences the async proxy
(unless `--no-fence`) and releases the stage on `empty`. The condition asks
whether some round reads another tile than its own.

    python benchmarks/rings/tma_ring.py 2 4 > benchmarks/rings/tma-ring-2x4.litmus

Round k uses stage k mod S in its n-th use, n = k div S: the producer waits
on `empty` for parity (n + 1) mod 2 (the phase before the object's first,
which a fresh mbarrier has completed), the consumer on `full` for n mod 2.
"""

from __future__ import annotations

import argparse

WAIT = "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64"
ARRIVE = "mbarrier.arrive.release.cta.shared::cta.b64"
EXPECT = "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64"
COPY = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"


def ring(stages: int, rounds: int, fence: bool = True) -> str:
    p0: list[str] = []
    p1: list[str] = []
    for k in range(rounds):
        s, n = k % stages, k // stages
        p0 += [
            f"LP{k}:",
            f"{WAIT} r{k}, [empty{s}], {(n + 1) % 2}",
            f"bne r{k}, 1, LP{k}",
            f"{EXPECT} _, [full{s}], 16",
            f"{COPY} [d{s}], [g{k}], 16, [full{s}]",
        ]
        p1 += [f"LC{k}:", f"{WAIT} r{2 * k}, [full{s}], {n % 2}", f"bne r{2 * k}, 1, LC{k}"]
        p1 += [f"ld.shared::cta.weak r{2 * k + 1}, [d{s}]"] + (["fence.proxy.async.shared::cta"] if fence else [])
        p1 += [f"{ARRIVE} _, [empty{s}]"]
    name = f"tma-ring-{stages}x{rounds}" + ("" if fence else "-no-fence")
    what = "the consumer's proxy fence before each release" if fence else "no proxy fence"
    init = [" ".join(f"g{k}={k + 1};" for k in range(rounds))]
    for s in range(stages):
        init += [f"d{s} @ shared P0 = 0;", f"full{s} @ mbarrier P0 = 1;", f"empty{s} @ mbarrier P0 = 1;"]
    regs = [f"P0:r{k}=0;" for k in range(rounds)] + [f"P1:r{j}=0;" for j in range(2 * rounds)]
    rows = [f" {p0[i] if i < len(p0) else ''} | {p1[i] if i < len(p1) else ''} ;" for i in range(max(len(p0), len(p1)))]
    stale = " \\/ ".join(f"P1:r{2 * k + 1} != {k + 1}" for k in range(rounds))
    return "\n".join(
        [f"PTX {name}", f'"a {stages}-stage TMA ring over {rounds} rounds, {what}"', "{", *init, " ".join(regs), "}"]
        + [" P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;", *rows, "exists", f"({stale})", ""]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stages", type=int)
    ap.add_argument("rounds", type=int)
    ap.add_argument("--no-fence", action="store_true", help="the consumer releases its stage without a proxy fence")
    a = ap.parse_args()
    print(ring(a.stages, a.rounds, fence=not a.no_fence), end="")


if __name__ == "__main__":
    main()
