"""Reading herd's text output (the peers' verdicts in ../shared/reference).

herd prints, per test: `Test NAME Allowed|Forbidden|Required`, `States N`
and N state lines (`0:r0=1; x=2;`, symbolic values such as `S8` for values
out of thin air), `Ok`/`No`, `Positive: P Negative: N`, `Bad executions (K
in total)` (K > 0: some consistent execution is flagged, so the test is
racy), `Condition ...` and `Observation NAME Always|Sometimes|Never P N`.
herd cuts test names at the first `|`.

litmus7 (and `hrf run`) write `Histogram (N states)` in place of `States
N`, each state line led by its count and `*>` (the state satisfies the
condition's check) or `:>`, and `Positive: P, Negative: N` with a comma.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

# herd's word for a test by its condition's quantifier (`Test NAME Allowed`)
HERD_KIND = {"exists": "Allowed", "~exists": "Forbidden", "forall": "Required"}


def log_variable(name: str) -> str:
    """A state's variable as a herd log writes it: a register as it is
    (`0:r0`), a memory location in brackets (`[x]`)."""
    return name if ":" in name else f"[{name}]"


_STATE_ITEM = re.compile(r"\s*([^=;\s]+)=([^;]+);")


@dataclass
class HerdVerdict:
    name: str
    kind: str
    states: list = field(default_factory=list)  # [{"1:r0": 1, "x": "S8"}]
    ok: bool | None = None
    positive: int | None = None
    negative: int | None = None
    bad: int | None = None
    condition: str | None = None
    observation: str | None = None
    flags: list = field(default_factory=list)  # herd7: `Flag NAME` lines
    undef: bool = False  # herd7 prints `Undef` instead of Ok/No when a flag is raised
    counts: list = field(default_factory=list)  # litmus7: how often each state was seen
    histogram: int | None = None  # litmus7: the states its `Histogram (N states)` line announces
    # the Observation line's counts: executions where the proposition holds,
    # and where not. herd's `Positive: P Negative: N` count the condition as
    # a whole, so for `~exists p` (Forbidden) they count `~p`: swapped.
    observed: tuple[int, int] | None = None

    @property
    def racy(self) -> bool | None:
        """herd 2015: Bad executions > 0; herd7: a Flag line."""
        if self.bad is not None:
            return self.bad > 0
        return bool(self.flags)

    @property
    def holds(self) -> bool | None:
        """The condition's verdict; where herd7 says `Undef`, from the
        witness counts as herd defines them."""
        if self.ok is not None:
            return self.ok
        if self.positive is None or self.kind is None:
            return None
        if self.kind == "Allowed":
            return self.positive > 0
        # Required (forall p) and Forbidden (~exists p, counted as ~p): no
        # execution against the condition
        return self.negative == 0


def _value(v: str):
    v = v.strip()
    try:
        return int(v, 0)
    except ValueError:
        return v  # symbolic


def parse_state(line: str) -> dict:
    """`0:r0=1; [x]=2;` -> {"0:r0": 1, "x": 2} (herd7 brackets locations)."""
    return {k.strip("[]"): _value(v) for k, v in _STATE_ITEM.findall(line)}


def read_herd_output(path) -> dict[str, HerdVerdict]:
    """Every test block of a herd output file, by herd's test name."""
    lines = Path(path).read_text().splitlines()
    out: dict[str, HerdVerdict] = {}
    i = 0
    while i < len(lines):
        m = re.match(r"^Test (\S+) (Allowed|Forbidden|Required)\s*$", lines[i])
        if not m:
            i += 1
            continue
        v = HerdVerdict(m.group(1), m.group(2))
        i += 1
        m = re.match(r"^States (\d+)", lines[i]) if i < len(lines) else None
        h = re.match(r"^Histogram \((\d+) states?\)", lines[i]) if i < len(lines) else None
        if h:
            v.histogram = int(h.group(1))
            i += 1
            # every state line there is, however many the header announces
            # (a reader of the histogram compares the two: `gpu.from_log`)
            while True:
                seen = re.match(r"^\s*(\d+)\s*[:*]>(.*)$", lines[i]) if i < len(lines) else None
                if seen is None:
                    break
                v.counts.append(int(seen.group(1)))
                v.states.append(parse_state(seen.group(2)))
                i += 1
        elif m:
            n = int(m.group(1))
            i += 1
            for _ in range(n):
                # herd writes no line for the empty state (a condition with no variables)
                if i < len(lines) and lines[i] not in ("Ok", "No", "Undef") and "=" in lines[i]:
                    v.states.append(parse_state(lines[i]))
                    i += 1
                else:
                    v.states.append({})
        while i < len(lines) and not lines[i].startswith("Test "):
            l = lines[i]
            if l in ("Ok", "No"):
                v.ok = l == "Ok"
            elif l == "Undef":
                v.undef = True
            elif l.startswith("Flag "):
                v.flags.append(l[len("Flag ") :].strip())
            elif l.startswith("Positive:"):
                counts = re.match(r"Positive: (\d+),? Negative: (\d+)", l)
                if counts:
                    v.positive, v.negative = int(counts.group(1)), int(counts.group(2))
            elif l.startswith("Bad executions"):
                bad = re.search(r"\((\d+) in total\)", l)
                if bad:
                    v.bad = int(bad.group(1))
            elif l.startswith("Condition "):
                v.condition = l[len("Condition ") :]
            elif l.startswith("Observation "):
                words = l.split()
                v.observation = words[2] if len(words) > 2 else None  # (a log cut short: no word)
                if len(words) >= 5 and words[3].isdigit() and words[4].isdigit():
                    v.observed = (int(words[3]), int(words[4]))
                i += 1
                break
            i += 1
        out[v.name] = v
    return out


def herd_name(test_name: str) -> str:
    """The name herd prints for a test: cut at the first `|`."""
    return test_name.split("|")[0]
