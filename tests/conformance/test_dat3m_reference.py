"""Dat3M's GPU tests (../shared/reference/dat3m-gpu): its PTX and Vulkan
dialects read by hrf, run under Dartagnan's own cat files, against
Dartagnan's expected verdicts (its test resources: 1 = PASS, herd's Ok for
the condition; for the DR suites, no data race). A
test whose outcomes are too many to list is decided at the first
execution that settles its condition (DECIDE); every other one is
enumerated whole."""

import functools

import pytest
from reference import REFERENCE, record_agreement

import hrf
import hrf.cat

GPU = REFERENCE / "dat3m-gpu"

# Tests whose outcomes are too many to list: xf-barrier's variants with a
# relaxed barrier, load or store leave 16 to 36 reads each free to see 0
# or 1 (2^16 outcomes and more). They are decided as Dartagnan decides them:
# at the first execution that settles the condition (`decide`; the
# verdict is established, the outcome list is not whole).
DECIDE = {
    f"litmus/VULKAN/Manual/xf-barrier-{k}.litmus"
    for k in ("cbar-rlx-1", "cbar-rlx-2", "cbar-rlx-3", "load-rlx-1", "load-rlx-2", "store-rlx-1", "store-rlx-2")
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


def limits(path: str) -> hrf.Limits:
    return hrf.Limits(unroll=1, decide=path in DECIDE)


@functools.cache
def cat_model(name: str, reading: str = "dartagnan"):
    # Dartagnan's verdicts are its front end's: its files are run as it reads
    # Dat3M's PTX tests (fence.sc SC alone, a failing atom.cas writing back)
    return hrf.cat.load(str(GPU / "cat" / name), reading=reading)


def test_every_ptx_file_reads():
    # every file of Dat3M's PTX dialect reads (liveness tests included)
    paths = sorted((GPU / "litmus" / "PTX").rglob("*.litmus"))
    assert len(paths) > 600
    for p in paths:
        t = hrf.parse(p)
        assert t.arch == "PTX" and t.threads, p


def test_every_vulkan_file_reads():
    # every file of Dat3M's Vulkan dialect reads (liveness tests included),
    # with its scope tree (subgroup, work group, queue family)
    paths = sorted((GPU / "litmus" / "VULKAN").rglob("*.litmus"))
    assert len(paths) > 600
    for p in paths:
        t = hrf.parse(p)
        assert t.arch == "VULKAN" and t.threads and all(th.qf is not None for th in t.threads), p


# (expected results, Dartagnan's cat file for them); the DR suites judge
# race freedom (the file's `flag ~empty dr`), the others the condition
SUITES = [
    ("PTXv6_0-expected.csv", "ptx-v6.0.cat"),
    ("PTXv7_5-expected.csv", "ptx-v7.5.cat"),
    ("VULKAN-expected.csv", "vulkan.cat"),
    ("VULKAN-DR-expected.csv", "vulkan.cat"),
    ("VULKAN-DR-NOCHAINS-expected.csv", "vulkan-nochains.cat"),
]
# Files Dartagnan's VULKAN-DR results list that are not among Dat3M's tests
# (not in its repository either): no test to run, checked to stay these.
MISSING = {f"litmus/VULKAN/Manual/XF-Barrier{k}.litmus" for k in ("", "-relacq", "-relacq2", "-rlx", "-weak")}
CASES = [(csv, cat, path, want) for csv, cat in SUITES for path, want in expected(csv) if path not in MISSING]


def test_the_files_missing_from_dat3m_are_the_known_ones():
    listed = {path for csv, _ in SUITES for path, _ in expected(csv)}
    assert {p for p in listed if not (GPU / p).exists()} == MISSING
    assert all(path in listed for path in MISSING)


@pytest.mark.parametrize("csv,cat,path,want", CASES, ids=[f"{c}:{p}" for c, _, p, _ in CASES])
def test_cat_agrees_with_dartagnan(csv, cat, path, want):
    model = cat_model(cat)
    # loops unrolled once, as Dartagnan's test suite bounds them (bound 1)
    r = hrf.check(GPU / path, model, limits=limits(path))
    assert r.error is None and (r.complete or (path in DECIDE and r.limit["which"] == "decided")), r
    # the DR suites: PASS iff no consistent execution has a data race
    got = not r.flags if "-DR" in csv else r.condition_holds
    record_agreement(f"dat3m {csv.removesuffix('-expected.csv')} ({cat})", path, got == bool(want))
    assert got == bool(want), r


# Dartagnan's cat files and hrf's built-in models of them (hrf.models): the
# same verdicts on every test of the suites, and the same outcomes and races
# (the -dat3m models, Dartagnan's reading of PTX, against the files run as
# Dartagnan's front end reads them)
BUILTIN = {
    "ptx-v6.0.cat": "ptx-6.0-dat3m",
    "ptx-v7.5.cat": "ptx-7.5-dat3m",
    "vulkan.cat": "vulkan-dat3m",
    "vulkan-nochains.cat": "vulkan-nochains-dat3m",
}
BUILTIN_CASES = [c for c in CASES if c[1] in BUILTIN]


@pytest.mark.parametrize("csv,cat,path,want", BUILTIN_CASES, ids=[f"{c}:{p}" for c, _, p, _ in BUILTIN_CASES])
def test_builtin_model_agrees_with_dartagnan_and_the_cat_file(csv, cat, path, want):
    mine = hrf.check(GPU / path, BUILTIN[cat], limits=limits(path))
    theirs = hrf.check(GPU / path, cat_model(cat), limits=limits(path))
    assert mine.error is None and (mine.complete or path in DECIDE), mine
    got = not mine.flags if "-DR" in csv else mine.condition_holds
    record_agreement(f"dat3m {csv.removesuffix('-expected.csv')} ({BUILTIN[cat]}, built in)", path, got == bool(want))
    assert got == bool(want), mine
    if path in DECIDE:  # the verdict alone is whole
        assert mine.condition_holds == theirs.condition_holds
        return
    assert sorted(map(str, mine.outcomes)) == sorted(map(str, theirs.outcomes))
    assert bool(mine.flags) == bool(theirs.flags)


# hrf's models as their authorities state them (docs/readings.md): the PTX
# ISA for ptx-6.0 and ptx-7.5, the Vulkan specification's from-read (as
# Khronos revised it in 2024) for vulkan and vulkan-nochains. They give
# Dartagnan's verdict on every Dat3M test but those below, where the
# authority decides otherwise: `red.acq_rel` is no PTX (the ISA's red takes
# .relaxed and .release alone), refused by name; CoWW-RR's non-atomic reads
# of 2 then 1 close a cycle of rf, locord and the specification's fr.
FOLLOWS_AUTHORITY = {
    "litmus/PTX/Manual/Atom-plus-register.litmus": ("refused", "red.acq_rel is not PTX"),
    "litmus/PTX/Manual/Red-minus-location_.litmus": ("refused", "red.acq_rel is not PTX"),
    "litmus/PTX/Manual/Red-plus-location_.litmus": ("refused", "red.acq_rel is not PTX"),
    ("VULKAN-expected.csv", "litmus/VULKAN/Manual/CoWW-RR.litmus"): (
        False,
        "the specification's from-read forbids reading 2 then 1 (Khronos' noncohcoww)",
    ),
}
AUTHORITY = {
    "ptx-v6.0.cat": "ptx-6.0",
    "ptx-v7.5.cat": "ptx-7.5",
    "vulkan.cat": "vulkan",
    "vulkan-nochains.cat": "vulkan-nochains",
}
AUTHORITY_CASES = [c for c in CASES if c[1] in AUTHORITY]


@pytest.mark.parametrize("csv,cat,path,want", AUTHORITY_CASES, ids=[f"{c}:{p}" for c, _, p, _ in AUTHORITY_CASES])
def test_the_models_differ_from_dartagnan_only_where_their_authority_decides(csv, cat, path, want):
    model = AUTHORITY[cat]
    suite = f"dat3m {csv.removesuffix('-expected.csv')} ({model}, as its authority states it)"
    listed = FOLLOWS_AUTHORITY.get(path) or FOLLOWS_AUTHORITY.get((csv, path))
    if listed is not None and listed[0] == "refused":
        with pytest.raises(hrf.UnsupportedFeature, match=listed[1]):
            hrf.check(GPU / path, model, limits=limits(path))
        record_agreement(suite, path, False, f"hrf follows the authority: {listed[1]}: refused")
        return
    mine = hrf.check(GPU / path, model, limits=limits(path))
    assert mine.error is None and (mine.complete or path in DECIDE), mine
    got = not mine.flags if "-DR" in csv else mine.condition_holds
    if listed is not None:
        assert got == listed[0] != bool(want), mine
        record_agreement(suite, path, False, f"hrf follows the authority: {listed[1]}")
        return
    record_agreement(suite, path, got == bool(want))
    assert got == bool(want), mine
    # PTX: the cat file read as the ISA says gives the same outcomes where
    # the test has no reduction (the file's R keeps a red's read a read)
    if cat.startswith("ptx") and "red." not in (GPU / path).read_text():
        theirs = hrf.check(GPU / path, cat_model(cat, "isa"), limits=limits(path))
        assert sorted(map(str, mine.outcomes)) == sorted(map(str, theirs.outcomes))
