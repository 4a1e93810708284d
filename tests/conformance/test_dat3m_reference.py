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


PTX60 = expected("PTXv6_0-expected.csv")


@pytest.mark.parametrize("path,want", PTX60, ids=[p for p, _ in PTX60])
def test_ptx60_cat_agrees_with_dartagnan(path, want):
    model = cat_model("ptx-v6.0.cat")
    if path in REFUSED:
        with pytest.raises(hrf.UnsupportedFeature, match=REFUSED[path]):
            hrf.check(GPU / path, model, limits=UNROLL_1)
        return
    # loops unrolled once, as Dartagnan's test suite bounds them (bound 1)
    r = hrf.check(GPU / path, model, limits=UNROLL_1)
    assert r.complete and r.error is None, r
    record_agreement("dat3m PTXv6_0 (ptx-v6.0.cat)", path, r.condition_holds == bool(want))
    assert r.condition_holds == bool(want), r
