"""Dat3M's GPU tests (../shared/reference/dat3m-gpu): its PTX dialect read
by hrf, run under Dartagnan's own cat files, against Dartagnan's expected
verdicts (its test resources: 1 = PASS, herd's Ok for the condition). A
test hrf does not take yet is refused by name (UnsupportedFeature), and
listed here with the construct; it never gets a verdict."""

import functools

import pytest
from reference import REFERENCE, record_agreement

import hrf
import hrf.cat

GPU = REFERENCE / "dat3m-gpu"

# Tests whose construct hrf refuses for now: (file, the words of the refusal).
REFUSED = {
    **{
        f"litmus/PTX/Manual/SB+named-bar-{n}.litmus": "barrier resource held in a register"
        for n in ("dyn-reg-const", "sta-reg-const", "reg-const-diff", "reg-const-equal", "reg-diff", "reg-equal")
    },
    **{
        f"litmus/PTX/Barrier/quorum{n}-{k}.litmus": "thread count"
        for n, k in [(1, "pass"), (1, "fail"), (1, "hang"), (2, "pass"), (2, "fail"), (2, "hang")]
        + [(3, "pass"), (3, "fail"), (4, "pass"), (4, "fail")]
    },
    # PTX 7.5's virtual aliases (`rd2 @ generic aliases rd1`)
    **{
        f"litmus/PTX/Manual/proxy/Proxy-{n}.litmus": "alias"
        for n in (
            "Alias-AliasFence",
            "Const-ConstFence",
            "Const-MP-cause-different-cta",
            "Const-MP-cause1",
            "Const-MP-cause2",
            "SingleThread-rf-surW-surF-conF-conR",
            "SingleThread-rf-surW-surF-genR",
        )
    },
}


def expected(name: str) -> list[tuple[str, int]]:
    """Dartagnan's expected results: (path under dat3m-gpu, 0 or 1)."""
    out = []
    for line in (GPU / "expected" / name).read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("//", ";")):
            path, verdict = line.rsplit(",", 1)
            out.append((path, int(verdict)))
    return out


UNROLL_1 = hrf.Limits(unroll=1)


@functools.cache
def cat_model(name: str):
    return hrf.cat.load(str(GPU / "cat" / name))


def test_every_ptx_file_reads():
    # every file of Dat3M's PTX dialect reads (liveness tests included)
    paths = sorted((GPU / "litmus" / "PTX").rglob("*.litmus"))
    assert len(paths) > 600
    for p in paths:
        t = hrf.parse(p)
        assert t.arch == "PTX" and t.threads, p


def test_vulkan_is_refused_by_name():
    # Dat3M's Vulkan dialect (its reader is still to come): refused with a
    # located error naming its architecture, never read as another dialect
    paths = sorted((GPU / "litmus" / "VULKAN").rglob("*.litmus"))
    assert paths
    for p in paths:
        with pytest.raises(hrf.LitmusSyntaxError, match="unknown litmus architecture '(Vulkan|VULKAN)'") as e:
            hrf.parse(p)
        assert e.value.line == 1, p


# (expected results, Dartagnan's cat file for them)
SUITES = [("PTXv6_0-expected.csv", "ptx-v6.0.cat"), ("PTXv7_5-expected.csv", "ptx-v7.5.cat")]
CASES = [(csv, cat, path, want) for csv, cat in SUITES for path, want in expected(csv)]


@pytest.mark.parametrize("csv,cat,path,want", CASES, ids=[f"{c}:{p}" for c, _, p, _ in CASES])
def test_cat_agrees_with_dartagnan(csv, cat, path, want):
    model = cat_model(cat)
    if path in REFUSED:
        with pytest.raises(hrf.UnsupportedFeature, match=REFUSED[path]):
            hrf.check(GPU / path, model, limits=UNROLL_1)
        return
    # loops unrolled once, as Dartagnan's test suite bounds them (bound 1)
    r = hrf.check(GPU / path, model, limits=UNROLL_1)
    assert r.complete and r.error is None, r
    record_agreement(f"dat3m {csv.removesuffix('-expected.csv')} ({cat})", path, r.condition_holds == bool(want))
    assert r.condition_holds == bool(want), r
