"""The incantations of [GPU15] sec. 4, as one setting: what `hrf run` does
around a test's code to make weak behaviours show, each an option, the
defaults chosen to expose them; `--tune` samples settings (as Kirkham et
al., OOPSLA 2020, and GPUHarbor, ISSTA 2023, tune theirs) and writes the
best one to a file a later run takes."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, fields

from ..errors import InvalidArgument

PATTERNS = ("st-st", "st-ld", "ld-st", "ld-ld")


@dataclass(frozen=True)
class Setting:
    block: int = 128  # threads per block (a power of two times 32)
    test_warps: int = 2  # warps of a block that run test threads (at least a CTA's); the others stress memory
    lanes: int = 16  # lanes of a test warp that test threads may take (the rest stress)
    stress: bool = False  # memory stress by the spare threads
    stress_pattern: str = "st-ld"  # what each stress iteration does: two accesses
    stress_words: int = 1024  # the scratch memory the stress threads share, in 32-bit words
    stress_iters: int = 256  # iterations of each stress thread per launch
    bank_conflicts: bool = False  # test warps hit one shared-memory bank before the test
    sync: bool = False  # an instance's threads wait for each other before the test (bounded)
    randomise: bool = True  # a fresh placement per launch (thread randomisation)
    shuffle: bool = True  # each location's copies in a fresh order per launch
    pad: int = 32  # words between neighbouring instances' copies of a location
    spin: int = 100_000  # backward jumps a thread may take before it gives up (time-out)
    blocks: int = 0  # blocks per launch (0: as many as fit on the device at once)

    def __post_init__(self):
        def bad(msg):
            raise InvalidArgument(f"incantation setting: {msg}")

        if self.block < 32 or self.block % 32 or (self.block // 32) & (self.block // 32 - 1) or self.block > 1024:
            bad(f"block {self.block}: a power of two times 32, at most 1024")
        if not 1 <= self.test_warps <= self.block // 32:
            bad(f"test_warps {self.test_warps}: 1 to {self.block // 32}")
        if not 1 <= self.lanes <= 32:
            bad(f"lanes {self.lanes}: 1 to 32")
        if self.stress_pattern not in PATTERNS:
            bad(f"stress_pattern {self.stress_pattern!r}: one of {', '.join(PATTERNS)}")
        w = self.stress_words
        if w < 32 or w & (w - 1) or w > 1 << 26:
            bad(f"stress_words {w}: a power of two, 32 to 2^26")
        if not 0 <= self.stress_iters <= 1 << 20:
            bad(f"stress_iters {self.stress_iters}: 0 to 2^20")
        if not 1 <= self.pad <= 1024:
            bad(f"pad {self.pad}: 1 to 1024 words")
        if not 1 <= self.spin <= 1 << 30:
            bad(f"spin {self.spin}: 1 to 2^30")
        if self.blocks < 0:
            bad(f"blocks {self.blocks}: 0 (all that fit) or more")

    def to_json(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        on = [
            f"block {self.block}",
            f"test warps {self.test_warps}",
            f"lanes {self.lanes}",
            f"stress {self.stress_pattern} x{self.stress_iters} over {self.stress_words} words"
            if self.stress
            else "no stress",
        ]
        on += [n for n, v in (("bank conflicts", self.bank_conflicts), ("sync", self.sync)) if v]
        on += [n for n, v in (("randomise", self.randomise), ("shuffle", self.shuffle)) if v]
        on.append(f"pad {self.pad}")
        return ", ".join(on)


def load_setting(path: str) -> Setting:
    """A setting from a JSON file (what `hrf run --tune` writes)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise InvalidArgument(f"cannot read the setting {path}: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise InvalidArgument(f"{path}:{e.lineno}: not JSON: {e.msg}") from None
    if isinstance(data, dict) and "setting" in data:
        data = data["setting"]
    if not isinstance(data, dict):
        raise InvalidArgument(f"{path}: a setting is a JSON object")
    known = {f.name: f.type for f in fields(Setting)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise InvalidArgument(f"{path}: unknown incantations {', '.join(unknown)} (known: {', '.join(known)})")
    for k, v in data.items():
        want = bool if known[k] in (bool, "bool") else (str if known[k] in (str, "str") else int)
        if not isinstance(v, want) or (want is int and isinstance(v, bool)):
            raise InvalidArgument(f"{path}: {k} is a {want.__name__}, not {v!r}")
    return Setting(**data)


def sample(rng: random.Random) -> Setting:
    """A random setting, as tuning draws them: the parameters Kirkham et
    al. and GPUHarbor tune (workgroups and their size, the stress pattern
    and its memory, shuffling, the synchronising barrier) and [GPU15]'s
    bank conflicts and padding."""
    block = rng.choice((128, 256, 512))
    return Setting(
        block=block,
        test_warps=rng.randint(1, block // 32),
        lanes=rng.choice((4, 8, 16, 32)),
        stress=rng.random() < 0.8,
        stress_pattern=rng.choice(PATTERNS),
        stress_words=rng.choice((64, 256, 1024, 4096, 65536)),
        stress_iters=rng.choice((16, 64, 256, 1024)),
        bank_conflicts=rng.random() < 0.3,
        sync=rng.random() < 0.7,
        randomise=True,
        shuffle=rng.random() < 0.8,
        pad=rng.choice((1, 1, 2, 8, 32)),
        blocks=rng.choice((0, 0, 32, 128, 512)),  # workgroups per launch (0: all that fit at once)
    )
