"""`hrf generate` and `hrf compare`: diy-style families of tests, and the
tests on which two models differ."""

from __future__ import annotations

import argparse
import sys

from .args import limit_args, limits_of_args, whole, workers

DEFAULT_SCOPES = {"ptx": "cta,gpu", "vulkan": "wg,dv"}
DEFAULT_ORDERS = {"ptx": "na,acq,rel", "vulkan": "na,acq,rel"}


def family_options(a) -> dict:
    # comma-separated lists, checked by hrf.generate (InvalidArgument: exit 2)
    return dict(
        max_edges=a.max_edges,
        max_threads=a.max_threads,
        orders=a.orders if a.orders is not None else DEFAULT_ORDERS.get(a.dialect, "na,sc"),
        scopes=a.scopes if a.scopes is not None else DEFAULT_SCOPES.get(a.dialect, "wg,dev"),
        remote=a.remote,
        regions=a.regions,
        cycle=a.cycle,
        **({"edges": a.safe} if a.safe is not None else {}),  # `--safe ''` is no edges, refused
        relax=() if a.relax is None else a.relax,
        mixed=not a.no_mixed,
        dialect=a.dialect,
        sync=a.sync or (),
    )


def say_if_short(a, tests: list) -> None:
    """A family smaller than the count asked for gives all of it: say so
    (with what would make it larger), rather than write fewer in silence."""
    if a.count is not None and len(tests) < a.count:
        print(
            f"hrf: the family has {len(tests):,} tests, fewer than the {a.count:,} asked for: all of them "
            f"(a larger family: raise --max-edges, now {a.max_edges}, or --max-threads, now {a.max_threads}, "
            "or add orders, scopes or regions)",
            file=sys.stderr,
        )


def cmd_generate(a) -> int:
    from ..generate import generate, write_tests

    tests = generate(count=a.count, seed=a.seed, **family_options(a))
    say_if_short(a, tests)
    if a.out:
        write_tests(tests, a.out)
        print(f"{len(tests)} tests written to {a.out}", file=sys.stderr)
    else:
        for t in tests:
            print(t.name)
    return 0


def cmd_compare(a) -> int:
    from ..compare import compare
    from ..generate import generate, litmus_text

    if len(a.model) != 2:
        print("hrf: compare takes exactly two --model", file=sys.stderr)
        return 2
    if a.paths:  # the tests given (files, folders, patterns) rather than a family
        from ..bulk import expand

        tests: list = expand(a.paths)
    else:
        tests = generate(count=a.count, seed=a.seed, **family_options(a))
        say_if_short(a, tests)
    diffs = compare(tests, a.model[0], a.model[1], workers=a.workers, limits=limits_of_args(a))
    print(diffs.summary(a.model[0], a.model[1]), file=sys.stderr)
    for what, left in (("cut short by a limit", diffs.incomplete), ("refused", diffs.refused)):
        for name, why in left[:3]:
            print(f"hrf: {what}: {name}: {why}", file=sys.stderr)
        if len(left) > 3:
            print(f"hrf: ... {len(left) - 3} more {what}", file=sys.stderr)
    status = 0
    if not tests:
        print("hrf: the family is empty: nothing was compared (add orders, scopes or edges)", file=sys.stderr)
        status = 1
    elif not diffs and diffs.compared == 0:
        print(
            f"hrf: the comparison established nothing: no test of the {len(tests):,} was decided under both models",
            file=sys.stderr,
        )
        status = 1
    elif not diffs and not diffs.established:
        print(
            f"hrf: none of the {diffs.compared:,} tests decided under both models separates them; the "
            f"{len(diffs.incomplete) + len(diffs.refused):,} others were not compared"
            + (" (raise the limits for those cut short)" if diffs.incomplete else ""),
            file=sys.stderr,
        )
        status = 1
    elif not diffs:
        print(
            f"hrf: no test of this family separates them; a larger family may (--max-edges, now {a.max_edges}; "
            f"--max-threads, now {a.max_threads}; --orders, --scopes)",
            file=sys.stderr,
        )
    for d in diffs[: a.show]:
        print(litmus_text(d.test))
        for r in (d.a, d.b):
            print(f"// {r.model}: condition {'Ok' if r.condition_holds else 'No'}, {'racy' if r.racy else 'race-free'}")
        print()
    return status


def family_args(p):
    p.add_argument("--count", type=whole(1), default=None, help="a seeded sample of this many (None: the whole family)")
    p.add_argument("--seed", type=int, default=0, help="the sample's seed")
    p.add_argument("--max-edges", type=whole(2), default=4, help="longest cycle (edges)")
    p.add_argument("--max-threads", type=whole(1), default=3, help="most threads of a test")
    p.add_argument(
        "--orders",
        default=None,
        help="access annotations: na and atomic orders (default: na,sc; na,acq,rel for ptx, vulkan)",
    )
    p.add_argument(
        "--scopes",
        default=None,
        help="the scopes atomics and fences may name (default: wg,dev; cta,gpu for ptx; wg,dv for vulkan)",
    )
    p.add_argument(
        "--dialect",
        default="opencl",
        help="the tests' language: opencl (hrf's OpenCL), c (C11: no scopes, no scope tree), ptx or vulkan "
        "(Dat3M's dialects; --orders among na, rlx, acq, rel: plain accesses are weak in PTX, non-private in Vulkan)",
    )
    p.add_argument("--remote", action="store_true", help="also remote-promoted atomics")
    p.add_argument("--regions", default="global", help="global, local or global,local (every mix)")
    p.add_argument(
        "--cycle",
        default=None,
        help="one cycle instead of the family: diy's edges ('Rfe PodRR Fre PodWW'; also PosXY (same location), "
        "FencedWR, FenceRel/Acq/AR/ScdXY, DpDatadW, DpCtrldR/W, DpAddrdR/W; each may end in the orders of its two "
        "accesses, diy's Na/Rlx/Acq/Rel/Sc: 'PodWWRlxRel RfeRelAcq PodRRAcqRlx Fre') or a name (MP, SB, LB, 2+2W, R, S, WRC, "
        "RWC, WRW+2W, IRIW, ISA2, CoRR, CoWR, CoRW)",
    )
    p.add_argument(
        "--safe",
        default=None,
        help="the edges cycles are built from, as diy's -safe (default: Rfe,Fre,Coe,PodWW,PodWR,PodRW,PodRR)",
    )
    p.add_argument(
        "--relax",
        default=None,
        help="diy's -relax: for each edge r of this list, the cycles of r and the --safe edges that contain r",
    )
    p.add_argument(
        "--no-mixed",
        action="store_true",
        help="no test accesses a location both atomically and not (na beside an atomic annotation)",
    )
    p.add_argument(
        "--sync",
        default=None,
        help="with --dialect ptx: instead of cycles, message passing over sm_90's signals, any of "
        "mbarrier,mbarrier-phase,cluster-barrier,dsmem,bulk,cp-async,bulk-group (every strength, scope, placement and data place; ptx-8.0 reads them)",
    )


def add(sub) -> None:
    """The `generate` and `compare` verbs."""
    g = sub.add_parser(
        "generate",
        help="litmus families from cycles of relations (diy-style)",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    family_args(g)
    g.add_argument("--out", help="write .litmus files to this folder (None: print their names)")
    g.set_defaults(func=cmd_generate)

    c = sub.add_parser(
        "compare",
        help="tests on which two models differ, smallest first: a generated family, or the tests given",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    c.add_argument(
        "paths",
        nargs="*",
        help=".litmus files, folders or glob patterns to compare on instead of a family (a model that reads "
        "another dialect of the tests' architecture reads them translated: [GPU15]'s PTX into PTX 6.0)",
    )
    family_args(c)
    c.add_argument(
        "--model",
        "-m",
        action="append",
        required=True,
        help="the two models to compare (names or .py files defining MODEL)",
    )
    c.add_argument("--show", type=whole(0), default=3, help="print this many differences")
    c.add_argument("--workers", type=workers, default=None)
    limit_args(c)
    c.set_defaults(func=cmd_compare)
