"""The argument types and options the verbs share: whole numbers, workers,
seconds, memory sizes, the limits, the inputs, errors as JSON, herd's
option spellings and the options of a .cat model."""

from __future__ import annotations

import argparse
import json
import math
import sys

from ..api import UNROLL, Limits
from ..core import CHECK_DEFAULTS, MAX_WORKERS
from ..errors import InvalidArgument


def whole(least: int):
    """An argparse type: a whole number >= least."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
        if v < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, not {v}")
        return v

    parse.__name__ = "whole number"
    return parse


def workers(text: str) -> int:
    """An argparse type: a number of workers, 1 to MAX_WORKERS."""
    v = whole(1)(text)
    if v > MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"at most {MAX_WORKERS}, not {v}")
    return v


def seconds(text: str) -> float:
    """An argparse type: a finite number of seconds > 0."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds > 0, not {text}")
    return v


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def memory(text: str) -> int:
    """An argparse type: bytes, with an optional K, M, G or T suffix (powers of 1024)."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = t[-1:] if t[-1:] in _UNITS and t[-1:] else ""
    try:
        v = float(t[: len(t) - len(unit)])
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a size such as 4G or 512M, not {text!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"must be a size > 0, not {text}")
    return int(v * _UNITS[unit])


def limits_of_args(a) -> Limits:
    return Limits(
        max_candidates=a.max_candidates,
        max_seconds=a.max_seconds,
        unroll=a.unroll,
        max_memory=a.max_memory,
        thin_air=getattr(a, "thin_air", None),
        decide=getattr(a, "decide", False),
    )


def limit_args(p, candidates: bool = True) -> None:
    """--unroll, --max-candidates, --max-seconds and --max-memory."""
    p.add_argument(
        "--unroll", type=whole(0), default=UNROLL, help=f"loop iterations before a path is cut (default {UNROLL})"
    )
    if candidates:
        p.add_argument(
            "--max-candidates",
            type=whole(1),
            default=CHECK_DEFAULTS["max_candidates"],
            help=f"candidate executions judged, pruned ones included (default {CHECK_DEFAULTS['max_candidates']})",
        )
    p.add_argument("--max-seconds", type=seconds, default=None, help="stop (reported as incomplete) after this long")
    p.add_argument(
        "--max-memory",
        type=memory,
        default=None,
        help="stop (reported as incomplete) past this much resident memory, e.g. 4G "
        "(default: 40%% of physical memory, per process)",
    )
    if candidates:
        g = p.add_mutually_exclusive_group()
        g.add_argument(
            "--no-thin-air",
            dest="thin_air",
            action="store_false",
            default=None,
            help="reads take only values that chains of writes from the initial state compute "
            "(changes the verdicts of models whose axioms admit thin air: c11, opencl, "
            "opencl-rsp and the HRF-relaxed family)",
        )
        g.add_argument(
            "--thin-air",
            dest="thin_air",
            action="store_true",
            default=None,
            help="let reads guess values out of thin air under every model (the default for the models above)",
        )
        p.add_argument(
            "--decide",
            action="store_true",
            help="stop at the first execution that settles the condition (exists: one where it holds; "
            "forall: one where it fails): the verdict without every outcome",
        )


def error_json(e: BaseException, path=None, model=None) -> str:
    """An error as a JSON object (what --json prints for a test that fails)."""
    return json.dumps(
        {
            "name": None,
            "path": path,
            "model": model,
            "error": f"{type(e).__name__}: {e}",
            "condition_holds": None,
            "racy": None,
            "complete": False,
        }
    )


def inputs(files: list) -> list:
    """The tests to check: paths as given; `-` is standard input's text
    (at most once)."""
    if files.count("-") > 1:
        raise InvalidArgument("standard input (-) can be read once")
    if "-" not in files:
        return files
    from ..litmus import decode, parse_text

    text = decode(sys.stdin.buffer.read(), "<stdin>")
    return [parse_text(text, "<stdin>") if f == "-" else f for f in files]


def herd_spellings(argv: list[str]) -> list[str]:
    """herd's option spellings, where they do not clash with hrf's: `-model
    M` is `--model M`, `-variant V` is `--variant V`; `-initwrites true` is what hrf always does (initial
    values are writes), so it is dropped, and `-initwrites false` refused."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-model", "-variant"):
            out.append("-" + arg)
        elif arg == "-initwrites":
            value = argv[i + 1] if i + 1 < len(argv) else ""
            if value not in ("true", "false"):
                raise InvalidArgument(f"-initwrites takes true or false, not {value!r}")
            if value == "false":
                raise InvalidArgument(
                    "-initwrites false: hrf always makes the initial values writes (herd's -initwrites true)"
                )
            i += 2
            continue
        else:
            out.append(arg)
        i += 1
    return out


def cat_options(sub) -> None:
    """The options of the verbs that read .cat models (herd's -I and -variant)."""
    for verb in ("check", "bulk", "compare", "soundness", "export"):
        if verb not in sub.choices:
            continue  # a command builds its own verb's parser only
        sub.choices[verb].add_argument(
            "--catdir",
            "-I",
            action="append",
            default=[],
            metavar="DIR",
            help="a folder searched for the files a .cat model includes (repeatable; herd's -I)",
        )
        sub.choices[verb].add_argument(
            "--variant",
            action="append",
            default=[],
            metavar="NAME",
            help='a variant a .cat model tests with `if "NAME"` (repeatable; herd\'s -variant)',
        )
        sub.choices[verb].add_argument(
            "--cas-writeback",
            choices=["on", "off"],
            default=None,
            help="for a .cat model: whether a failing compare-exchange writes back the value it read "
            "(default: on unless the file says withoutcaswriteback; herd's OpenCL of 2015 does, "
            "the RSP artifact's herd does not; PTX's atom.cas writes nothing unless on)",
        )
        sub.choices[verb].add_argument(
            "--reading",
            choices=["isa", "dartagnan"],
            default=None,
            help="for a .cat model of PTX: Dat3M's PTX tests tagged as the PTX ISA says (isa, the default: "
            "fence.sc is also an acq_rel fence, a failing atom.cas writes nothing) or as Dartagnan's "
            "front end does (dartagnan)",
        )
