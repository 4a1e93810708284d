"""The family export (hrf.isabelle.family): a scheme's soundness on every
program of two threads with one operation each, proved in Isabelle program
by program. Here, without Isabelle: the family is what it says, each member
is a litmus test hrf judges, the theory reads as a session with a lemma per
race-free member and no stub. Loading it in Isabelle:
tests/test_isabelle_check.py."""

import re

import pytest

import hrf
from hrf.isabelle import export_scheme_family, safe_name
from hrf.isabelle.family import family
from hrf.mappings import get
from isabelle_reader import check_session


def test_the_family_is_every_pair_of_operations_once_in_each_placement():
    rows = sorted(get("rsp-new").rows)
    assert len(rows) == 13
    for locations in (1, 2):
        members = family("rsp-new", locations)
        # unordered pairs of rows (swapping threads, and x with y, gives a
        # program already listed), times P1's location, times two placements
        assert len(members) == 13 * 14 // 2 * locations * 2
        assert len({(m.ops, m.wgs) for m in members}) == len(members)
        assert {m.wgs for m in members} == {(0, 0), (0, 1)}
        assert {op[:3] for m in members for op in m.ops} == set(rows)


def test_each_member_is_a_litmus_test_of_its_operations():
    for m in family("rsp-new", 2)[::17]:
        t = hrf.parse(m.litmus())
        assert t.name == m.name and len(t.threads) == 2
        r = hrf.check(t, "opencl-rsp")
        assert r.complete and r.outcomes
        remote = sum(1 for op in m.ops if op[2])
        assert m.litmus().count("_remote(") == remote


def test_the_slides_lose_an_update_between_a_device_and_a_work_group_rmw_in_one_work_group(tmp_path):
    # Hand derivation: P0 increments x at device scope, P1 at work-group
    # scope, both in work-group 0. Each scope holds both threads, so the
    # RMWs are in each other's scope: no race under opencl-rsp, and RMW
    # atomicity leaves x = 2. The slide's rows run the work-group RMW in the
    # L1 (under the work-group's rmw lock) and the device RMW in the L2 (no
    # lock): P0 flushes its L1, both read x = 0 (P1 in the L1, P0 in the
    # L2), and P1's line, written back after, overwrites P0's increment:
    # x = 1. The family found it; the slides' other two left-out members are
    # the known remote findings (rmw-two-remote's and memalloy's atom shape).
    r = export_scheme_family("rsp-new-slides", tmp_path, locations=1)
    assert r.left_out == [
        ("F_rmw_dev_x__rmw_wg_x_same_wg", "hrf found it unsound"),
        ("F_rmw_dev_remote_x__rmw_wg_x_two_wgs", "hrf found it unsound"),
        ("F_rmw_wg_x__store_dev_remote_x_two_wgs", "hrf found it unsound"),
    ]
    m = next(m for m in family("rsp-new-slides", 1) if m.name == "F_rmw_dev_x__rmw_wg_x_same_wg")
    s = hrf.soundness(hrf.parse(m.litmus()), "rsp-new-slides")
    assert s.sound is False and not s.racy_source
    assert {"0:r0": 0, "1:r0": 0, "x": 2} not in s.allowed
    bad = [c for c in s.counterexamples if c.kind == "outcome"]
    assert bad and all(c.outcome == {"0:r0": 0, "1:r0": 0, "x": 1} for c in bad)


def test_repaired_rsp_new_is_sound_on_its_whole_family(tmp_path):
    # rsp-new runs the device RMW under its work-group's rmw lock too
    # (hrf/mappings/rsp_new.py): hrf finds every race-free member sound
    # (48 are racy). With no limit on the unreduced machine, none is left
    # out; the theory states each member whose unreduced machine Isabelle
    # enumerates again (at most max_proof_states states), and the others
    # say so.
    r = export_scheme_family("rsp-new", tmp_path, locations=2, max_proof_states=10**6)
    assert r.left_out == [] and len(r.racy) == 48
    assert len(r.members) == len(family("rsp-new", 2)) - 48 == 316
    assert "F_rmw_dev_x__rmw_wg_x_same_wg" in r.members
    small = export_scheme_family("rsp-new", tmp_path / "small", locations=2, max_proof_states=20_000)
    assert len(small.members) + len(small.left_out) == 316 and len(small.left_out) == 30
    assert all("unreduced machine has more than 20000 states" in why for _, why in small.left_out)
    text = (tmp_path / "small" / "Sound_rsp_new_family.thy").read_text()
    assert "sound_check 80001 D L Fifo" in text
    with pytest.raises(hrf.InvalidArgument, match="max_proof_states"):
        export_scheme_family("rsp-new", tmp_path / "bad", max_proof_states=0)


def test_the_family_theory_reads_as_a_session_with_every_race_free_member_checked(tmp_path):
    r = export_scheme_family("rsp-new", tmp_path, locations=1, first=25)
    theories = check_session(tmp_path)
    assert "Sound_rsp_new_family" in theories
    text = (tmp_path / "Sound_rsp_new_family.thy").read_text()
    assert not re.search(r"\b(sorry|oops|quick_and_dirty|axiomatization)\b", text)
    assert len(r.members) + len(r.racy) + len(r.left_out) == 25 and len(r.members) > 10
    # each member in exactly one chunk, each chunk checked by one eval, the
    # family the chunks appended
    chunks = re.findall(r'^definition (rsp_new_family_\d+) :: .*\n  "\1 = \[(.*?)\]"\n', text, re.M | re.S)
    assert len(chunks) == -(-len(r.members) // 10)
    members = [e for _, body in chunks for e in re.findall(r"\((f_\w+)_layout, ", body)]
    assert members == [safe_name(n, "F").lower() for n in r.members]
    for name, _ in chunks:
        assert re.search(rf'^lemma {name}_checked: "list_all .* {name}"\n  by eval$', text, re.M)
    assert re.search(r'^  "rsp_new_family = ' + " @ ".join(n for n, _ in chunks) + '"$', text, re.M)
    assert re.search(r"^theorem rsp_new_sound_on_family:", text, re.M)
    # every member's allowed outcomes are hrf's verdict, in the order of its observations
    m = family("rsp-new", 1)[0]
    s = hrf.soundness(hrf.parse(m.litmus()), "rsp-new")
    p = safe_name(m.name, "F").lower()
    want = sorted({(a["0:r0"], a["1:r0"], a["x"]) for a in s.allowed})
    assert f'"{p}_obs = [OReg 0 0, OReg 1 0, OMem 0]"' in text
    got = re.search(rf'"{p}_allowed = (\[.*\])"', text).group(1)
    assert got == "[" + ", ".join("[" + ", ".join(map(str, w)) + "]" for w in want) + "]"


def test_the_hrf_cache_family_under_hrf_direct_relaxed_leaves_out_the_lost_update(tmp_path):
    # [HRFR15] App. B on the family: hrf-cache's 8 single-device rows (no
    # remote, no all-devices scope), 36 pairs x 2 locations x 2 placements.
    # The one member hrf finds unsound is the lost update of
    # tests/test_soundness.py (a device and a work-group RMW of x in one
    # work-group, in each other's scope under HRF-relaxed's inclusion).
    r = export_scheme_family("hrf-cache", tmp_path, model="hrf-direct-relaxed")
    assert len(family("hrf-cache", 2)) == 8 * 9 // 2 * 2 * 2 == 144
    unsound = [(n, why) for n, why in r.left_out if "unreduced machine" not in why]
    assert unsound == [("F_rmw_dev_x__rmw_wg_x_same_wg", "hrf found it unsound")]
    assert len(r.members) + len(r.racy) + len(r.left_out) == 144 and len(r.members) > 100
    assert "Sound_hrf_cache_family" in check_session(tmp_path)
    text = (tmp_path / "Sound_hrf_cache_family.thy").read_text()
    assert re.search(r"^theorem hrf_cache_sound_on_family:", text, re.M)
    assert "[HRFR15] App. B" in text
    # the lost update as a theorem: the machine's run to x = 1, which
    # HRF-direct-relaxed does not allow (tests/test_isabelle_check.py loads it)
    (cex,) = r.counterexamples
    run = (tmp_path / f"{cex}.thy").read_text()
    assert "x=1: not allowed by hrf-direct-relaxed: a counterexample to scheme hrf-cache" in run
    assert re.search(r"^theorem \w+_fifo_\d+:", run, re.M) and "mem s 0 = 1" in run


def test_the_repaired_hrf_cache_is_sound_on_its_whole_family(tmp_path):
    # [HRFR15] Theorem B.4 repaired: hrf-cache-locked (its RMWs under the
    # work-group's rmw lock) is sound on every race-free member hrf can
    # explore, the lost update's program among them; none is unsound
    r = export_scheme_family("hrf-cache-locked", tmp_path, model="hrf-direct-relaxed")
    assert "F_rmw_dev_x__rmw_wg_x_same_wg" in r.members and not r.counterexamples
    assert all("unreduced machine" in why for _, why in r.left_out)
    assert len(r.members) + len(r.racy) + len(r.left_out) == 144 and len(r.members) >= 99


def test_hrf_export_isabelle_family_from_the_command_line(tmp_path, capsys):
    from hrf.cli import main

    assert (
        main(["export", "isabelle", "--family", "-s", "rsp-new", "--locations", "1", "--out", str(tmp_path / "a")]) == 0
    )
    out = capsys.readouterr().out
    assert "Sound_rsp_new_family.thy: soundness on 134 race-free programs (48 racy, 0 left out)" in out
    assert (tmp_path / "a" / "ROOT").is_file()
    # one scheme, no tests; a model that refuses the family's orders says why
    assert main(["export", "isabelle", "--family", "--out", str(tmp_path / "b")]) == 2
    assert main(["export", "isabelle", "--family", "-s", "hrf-cache", "--out", str(tmp_path / "c")]) != 0
    err = capsys.readouterr().err
    assert "give one --scheme" in err
    assert "the family of hrf-cache under hrf-indirect" in err and "hrf-direct-relaxed" in err
    assert (
        main(
            ["export", "isabelle", "--family", "-s", "rsp-new", "--max-proof-states", "0", "--out", str(tmp_path / "d")]
        )
        != 0
    )
    assert "max_proof_states must be a whole number >= 1" in capsys.readouterr().err
