"""The HRF papers' figures under sc, hrf-direct and hrf-indirect, with the
expected verdicts of litmus/hrf/manifest.toml (each quoting its paper)."""

import pytest
import tomllib

import hrf
from conftest import CORPUS

MANIFEST = tomllib.loads((CORPUS / "hrf" / "manifest.toml").read_text())["test"]
CASES = [(t, model) for t in MANIFEST for model in t["expect"]]


def test_manifest_covers_every_corpus_file():
    files = {p.name for p in (CORPUS / "hrf").glob("*.litmus")}
    assert files == {t["file"] for t in MANIFEST}


@pytest.mark.parametrize("entry,model", CASES, ids=[f"{t['file']}-{m}" for t, m in CASES])
def test_figure(entry, model):
    r = hrf.check(CORPUS / "hrf" / entry["file"], model)
    assert r.complete
    want = entry["expect"][model]
    if "racy" in want:
        assert r.racy == want["racy"], f"{entry['source']}: {entry['quote']}"
    if "condition_holds" in want:
        assert r.condition_holds == want["condition_holds"], f"{entry['source']}: {entry['quote']}"
    if want.get("racy") and "race_events" in entry:
        # The witness names the racing operations as the paper does.
        ops = [e["op"] for e in r.flags[0]["events"]]
        assert ops == entry["race_events"]
        assert all("line" in e and e["thread"].startswith("P") for e in r.flags[0]["events"])


def test_fig6_values_in_every_execution():
    # [HRF14] Fig. 6 under hrf-indirect: race-free, and R2 = R3 = 1 in every
    # execution (the forall condition holds with no negative execution).
    r = hrf.check(CORPUS / "hrf" / "hrf14-fig6.litmus", "hrf-indirect")
    assert r.racy is False
    assert r.outcomes == [{"1:R2": 1, "2:R3": 1}]
    assert r.observation[0] == "Always" and r.observation[2] == 0
    # The spin loops are bounded: paths still spinning after the bound are reported.
    assert r.cut_paths == {"P1": 1, "P2": 1}


def test_fig6_direct_races_only_across_scopes():
    # Under hrf-direct the race is X=1 (wi1) against R3 = X (wi3), the pair
    # that synchronizes only through two scopes; R2 = X (wi2) does not race.
    r = hrf.check(CORPUS / "hrf" / "hrf14-fig6.litmus", "hrf-direct")
    ev = r.flags[0]["events"]
    assert [e["thread"] for e in ev] == ["P0", "P2"]
