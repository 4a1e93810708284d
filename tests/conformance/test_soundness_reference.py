"""test_soundness: the cases that need the peers' reference data."""

import pytest
from reference import REFERENCE

import hrf
from test_soundness import RACE_FREE, RACY

RSP_TESTS = REFERENCE / "rsp"


def test_reference_partition_is_complete():
    names = {p.stem for p in RSP_TESTS.glob("*.litmus")}
    assert names == set(RACE_FREE) | set(RACY)


@pytest.mark.parametrize("name", RACE_FREE)
def test_rsp_new_sound_on_race_free_reference_tests(name):
    r = hrf.soundness(RSP_TESTS / f"{name}.litmus", "rsp-new")
    assert r.sound is True, r.to_text()
    assert set(r.machine) == {"fifo", "any"} and all(m.complete for m in r.machine.values())


@pytest.mark.parametrize("name", RACY)
def test_racy_reference_tests_are_reported_and_skipped(name):
    r = hrf.soundness(RSP_TESTS / f"{name}.litmus", "rsp-new")
    assert r.racy_source is True and r.sound is None and not r.machine
