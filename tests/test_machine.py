"""The GPU machine from Python: assembly tests, exploration,
traces, deadlocks, limits. Expected outcomes are derived by hand next to
each test; the instruction-level unit tests are in rust/src/machine/tests.rs."""

import contextlib
from pathlib import Path

import pytest

import hrf
from conftest import have_dot
from hrf.machine import explore, parse_machine, parse_machine_file
from hrf.mappings import compile_scheme

ROOT = Path(__file__).resolve().parent.parent
CORRUPT = ROOT / "litmus/machine/corrupt-mp-rsp-old.litmus"


def test_corrupt_mp_reaches_the_stale_read_with_the_slide_trace():
    # [RSP15 talk] "A corrupt MP": P1 invalidates its L1 *before* loading y, so the
    # environment can fetch the old x into P1's L1 between INVL1 and LD y;
    # after y=1 arrives, LD x still hits the stale line: r0=1, r1=0.
    r = explore(parse_machine_file(CORRUPT))
    assert r.complete and r.deadlocks == 0
    assert r.condition_holds is True
    bad = {"1:r0": 1, "1:r1": 0, "x": 42, "y": 1}
    assert bad in r.outcomes
    tr = r.trace_of(bad)
    inv = next(i for i, s in enumerate(tr) if "INVL1 WG" in s)
    stale = next(i for i, s in enumerate(tr) if "fetch x = 0 from L2 into the L1 of wg 1" in s)
    ld_y = next(i for i, s in enumerate(tr) if "LD r0 y" in s)
    assert inv < stale < ld_y
    # every outcome of the four reads is reachable (no synchronisation at all)
    assert {(o["1:r0"], o["1:r1"]) for o in r.outcomes} == {(0, 0), (0, 42), (1, 0), (1, 42)}


def test_invalidating_after_the_load_forbids_the_stale_read():
    # The new scheme's dev load, `LD r0 y; INVL1 WG`: after r0=1 (y reached
    # L2 after x, through P0's FLUL1), x must be fetched again: r1=42.
    text = CORRUPT.read_text().replace(
        " ST 42 x    | INVL1 WG   ;\n FLUL1 WG   | LD r0 y    ;",
        " ST 42 x    | LD r0 y    ;\n FLUL1 WG   | INVL1 WG   ;",
    )
    r = explore(parse_machine(text))
    assert r.condition_holds is False
    assert {(o["1:r0"], o["1:r1"]) for o in r.outcomes} == {(0, 0), (0, 42), (1, 42)}


@pytest.mark.parametrize("writeback", ["fifo", "any"])
def test_reduction_keeps_the_outcomes(writeback):
    # The reduced machine (default) against the literal one (reference).
    p = parse_machine_file(CORRUPT)
    a = explore(p, writeback=writeback)
    b = explore(p, writeback=writeback, reduce=False)
    assert sorted(map(str, a.outcomes)) == sorted(map(str, b.outcomes))
    assert a.states < b.states


def test_remote_rmw_loses_updates_under_the_old_scheme():
    # INCL1 at wg 0's L1 and INCL2 at L2 are not atomic with each other:
    # wg 0's L1 holds x=2 after P0 and P1 while P2's INCL2 makes L2's x=1;
    # the L1 write-back of 2 then overwrites it: x=2, one update lost.
    # (x=1 would need P2's increment to be written last, but it is done
    # at L2 on whatever L2 holds, and L1's 2 can only overwrite it.)
    r = explore(parse_machine_file(ROOT / "litmus/machine/remote-rmw-lost.litmus"))
    assert r.complete and r.condition_holds is True
    assert {o["x"] for o in r.outcomes} == {2, 3}


def test_machine_text_round_trips():
    p = parse_machine_file(CORRUPT)
    q = parse_machine(p.format())

    def code(prog):
        return [[{k: v for k, v in i.items() if k != "line"} for i in t.code] for t in prog.threads]

    assert code(q) == code(p)
    assert q.format() == p.format()


def test_deadlock_reported_with_a_trace():
    text = """GPU_MACHINE lock-order
{ x=0; y=0; }
 P0       | P1       ;
 LK x     | LK y     ;
 LK y     | LK x     ;
 UNLK y   | UNLK x   ;
 UNLK x   | UNLK y   ;
scopeTree (device (work_group P0) (work_group P1))
exists (x=0)
"""
    r = explore(parse_machine(text))
    assert r.deadlocks and r.deadlocks > 0
    assert r.deadlock["waiting"] == [[0, 1], [1, 1]]
    assert "DEADLOCK" in r.to_text()
    # Drawn: with `exists (x=1)`, which no outcome satisfies (nobody
    # stores), the picture is the deadlock's trace: each thread takes its
    # first lock (a note on its own line), then the stuck text.
    r = explore(parse_machine(text.replace("exists (x=0)", "exists (x=1)")))
    assert not any(r.holds) and r.deadlocks
    dot = r.to_dot()
    assert "then stuck: P0 at LK y, P1 at LK x" in dot
    import json

    j = json.loads(json.dumps(r.to_json()))
    assert j["deadlock"]["stuck"] == "stuck: P0 at LK y, P1 at LK x" and len(j["deadlock"]["steps"]) == 2
    notes = [line for line in dot.splitlines() if "shape=box, width=0" in line]
    assert len(notes) == len(r.deadlock["trace"]) == 2
    assert any('label="1. LK' in n for n in notes) and any('label="2. LK' in n for n in notes)


def test_trace_chart_of_an_outcome_that_satisfies_the_condition():
    # The corrupt MP above: the chart shows the trace to the first outcome
    # satisfying `exists (1:r0=1 /\ 1:r1=0)`, row by row as the text trace.
    r = explore(parse_machine_file(CORRUPT), writeback="fifo")
    steps, end = r.pictured()
    o = next(o for o, h in zip(r.outcomes, r.holds, strict=False) if h)
    assert (o["1:r0"], o["1:r1"]) == (1, 0)
    assert len(steps) == len(r.trace_of(o)) and end.startswith("outcome: 1:r0=1; 1:r1=0;")
    dot = r.to_dot()
    for k, text in enumerate(r.trace_of(o), start=1):
        assert f'label="{k}. ' in dot, text
    assert f'label="{len(steps) + 1}. ' not in dot


def test_phase_clocks_cover_the_run():
    # The explorer's own profile: each part's seconds, within the whole run's;
    # `serial` (one thread's share of the layers' phases) is part of them.
    r = explore(parse_machine_file(CORRUPT))
    assert set(r.phases) == {"expand", "enter", "store", "outcomes", "deadlocks", "serial"}
    assert all(v >= 0 for v in r.phases.values()) and r.phases["expand"] > 0
    assert sum(v for k, v in r.phases.items() if k != "serial") <= r.seconds
    assert r.phases["serial"] <= r.phases["expand"] + r.phases["enter"] + r.phases["store"]
    assert explore(parse_machine_file(CORRUPT), deadlocks=False).phases["deadlocks"] == 0


def test_depth_bounds_every_shortest_trace():
    # Traces are shortest (breadth-first), so none is longer than the
    # depth; a state limit stores fewer layers. (The depth itself is
    # checked against a plain breadth-first search in the Rust tests,
    # depth_is_the_longest_shortest_trace.)
    r = explore(parse_machine_file(CORRUPT))
    assert 0 < max(len(t) for t in r.traces) <= r.depth
    assert r.to_json()["depth"] == r.depth and f"depth {r.depth}," in r.to_text()
    assert explore(parse_machine_file(CORRUPT), max_states=50).depth < r.depth


def test_state_limit_is_reported_and_no_verdict_claimed():
    r = explore(parse_machine_file(CORRUPT), max_states=50)
    assert not r.complete and r.limit["which"] == "states"
    assert r.deadlocks is None
    with pytest.raises(hrf.LimitExceeded):
        explore(parse_machine_file(CORRUPT), max_states=50, on_limit="raise")


@pytest.mark.parametrize(
    "text,where,msg",
    [
        ("GPU_MACHINE t\n{ x=0; }\n P0 ;\n LD r0 q ;\n", (4, 2), "not a location"),
        ("GPU_MACHINE t\n{ x=0; }\n P0 ;\n FLUL2 WG ;\n", (4, 2), "L2"),
        ("GPU_MACHINE t\n{ x=0; }\n P0 ;\n L: ;\n JMP L ;\n", (5, 2), "backwards"),
        ("GPU_MACHINE t\n{ x=0; }\n P0 ;\n FOO x ;\n", (4, 2), "unknown instruction"),
        ("GPU_MACHINE t\n{ x=0; }\n P0 ;\n LD r0 x ;\nexists (0:r9=1)\n", (5, 1), "does not have"),
    ],
)
def test_bad_machine_programs_name_line_and_column(text, where, msg):
    with pytest.raises(hrf.LitmusSyntaxError) as e:
        parse_machine(text, "t.litmus")
    assert (e.value.line, e.value.column) == where
    assert msg in str(e.value)


def test_cli_compile_explore_soundness(capsys):
    from hrf.cli import main

    rsp = ROOT / "litmus/rsp/corrupt-mp.litmus"
    assert main(["compile", str(rsp), "--scheme", "rsp-old"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("GPU_MACHINE corrupt_MP") and "INVL1 WG" in out
    assert main(["explore", str(CORRUPT), "--trace"]) == 0
    assert "Trace to 1:r0=1; 1:r1=0;" in capsys.readouterr().out
    assert main(["soundness", str(rsp), "--scheme", "rsp-old", "--writeback", "fifo"]) == 1
    assert "UNSOUND" in capsys.readouterr().out
    assert main(["soundness", str(rsp), "--scheme", "rsp-new", "--json"]) == 0
    import json

    assert json.loads(capsys.readouterr().out)["sound"] is True


def test_cli_goes_on_past_a_test_it_cannot_take(tmp_path, capsys):
    # A remote RMW at scope all (two devices): rsp-new has no row for it.
    # The error names the file and line; the next test runs.
    from hrf.cli import main

    rsp = ROOT / "litmus/rsp/corrupt-mp.litmus"
    t3 = ROOT / "litmus/rsp/mp-remote-all-rmw-acquire.litmus"
    assert main(["soundness", str(t3), str(rsp), "--scheme", "rsp-new", "--writeback", "fifo"]) == 1
    out, err = capsys.readouterr()
    assert f"{t3}:14: scheme rsp-new has no row for a remote rmw at scope all" in err
    assert "corrupt_MP: scheme rsp-new vs model opencl-rsp: SOUND" in out
    assert err.rstrip().endswith("hrf: 2 tests, scheme rsp-new: 1 sound, 1 not compiled")
    assert main(["compile", str(t3), str(rsp), "--scheme", "rsp-new"]) == 1
    out, err = capsys.readouterr()
    assert "no row for a remote rmw" in err and out.startswith("GPU_MACHINE corrupt_MP")
    bad = tmp_path / "bad.litmus"
    bad.write_text("GPU_MACHINE t\n{ x=0; }\n P0 ;\n FOO x ;\n")
    assert main(["explore", str(bad), str(CORRUPT)]) == 1
    out, err = capsys.readouterr()
    assert f"{bad}:4:2" in err and "unknown instruction" in err
    assert "Test corrupt-MP-rsp-old (machine, writeback=fifo)" in out


def test_cli_explore_compiles_a_source_test_with_a_scheme(capsys):
    # The corrupt MP of the slides compiled with rsp-old: the machine
    # reaches r0=1, r1=0 (the stale x; test_soundness pins its trace), the
    # same outcomes with r0=1 as the hand-compiled GPU_MACHINE version of
    # this file (which loads x whatever r0 is; the source loads it only
    # when r0=1, else r1=-1).
    from hrf.cli import main

    assert main(["explore", str(ROOT / "litmus/rsp/corrupt-mp.litmus"), "--scheme", "rsp-old", "--trace"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Test corrupt_MP (machine, writeback=fifo)")
    assert "Trace to 1:r0=1; 1:r1=0; x=42; y=1;" in out and "INVL1 WG   [line 14: load(y, acq, dev)]" in out
    compiled = explore(compile_scheme(ROOT / "litmus/rsp/corrupt-mp.litmus", "rsp-old"))
    hand = explore(CORRUPT)
    after = lambda r: {o["1:r1"] for o in r.outcomes if o["1:r0"] == 1}  # noqa: E731
    assert after(compiled) == after(hand) == {0, 42}
    assert {o["1:r1"] for o in compiled.outcomes if o["1:r0"] == 0} == {-1}


def test_cli_explore_json(capsys):
    # The corrupt MP (hand derivation at the top of this file): four
    # outcomes of (r0, r1), only (1, 0) satisfies the condition; no deadlock.
    import json

    from hrf.cli import main

    assert main(["explore", str(CORRUPT), "--json", "--writeback", "fifo", "--writeback", "any"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(x)["writeback"] for x in lines] == ["fifo", "any"]
    j = json.loads(lines[0])
    assert j["complete"] and j["condition_holds"] is True and j["deadlocks"] == 0 and j["deadlock"] is None
    assert {(o["values"]["1:r0"], o["values"]["1:r1"]): o["holds"] for o in j["outcomes"]} == {
        (0, 0): False,
        (0, 42): False,
        (1, 0): True,
        (1, 42): False,
    }
    assert all(len(o["trace"]) == len(o["steps"]) for o in j["outcomes"])
    assert j["states"] == explore(parse_machine_file(CORRUPT), writeback="fifo").states


def test_cli_draws_machine_traces(tmp_path, capsys):

    from hrf.cli import main

    rsp = ROOT / "litmus/rsp/corrupt-mp.litmus"
    out = tmp_path / "t.dot"
    assert main(["explore", str(CORRUPT), "--graph", str(out)]) == 0
    assert out.read_text().startswith("digraph trace {") and "INVL1 WG" in out.read_text()
    assert main(["explore", str(CORRUPT), "--writeback", "fifo", "--writeback", "any", "--graph", str(out)]) == 2
    assert "one write-back policy" in capsys.readouterr().err
    cex = tmp_path / "cex.dot"
    assert main(["soundness", str(rsp), "--scheme", "rsp-old", "--writeback", "fifo", "--graph", str(cex)]) == 1
    assert "outcome not allowed by the source model" in cex.read_text()
    none = tmp_path / "none.dot"
    assert main(["soundness", str(rsp), "--scheme", "rsp-new", "--writeback", "fifo", "--graph", str(none)]) == 0
    assert "no counterexample, nothing drawn" in capsys.readouterr().err and not none.exists()
    svg = tmp_path / "cex.svg"
    if not have_dot():
        assert main(["soundness", str(rsp), "--scheme", "rsp-old", "--writeback", "fifo", "--graph", str(svg)]) == 1
        assert "Graphviz" in capsys.readouterr().err
        return
    assert main(["soundness", str(rsp), "--scheme", "rsp-old", "--writeback", "fifo", "--graph", str(svg)]) == 1
    assert svg.read_text().lstrip().startswith(("<?xml", "<svg")) and "fetch x = 0" in svg.read_text()


def _random_machine_program(rng) -> str:
    """A small random machine program: 2 or 3 threads placed in one or two
    work-groups of one device, or in two devices; loads, stores, L1 and L2
    increments, flushes, invalidations, locks (possibly unbalanced: faults
    and deadlocks are part of what must be kept) and a forward branch."""
    nthreads = rng.choice([2, 2, 3])
    names = [f"P{t}" for t in range(nthreads)]
    cols = []
    for _t in range(nthreads):
        code = []
        for _ in range(rng.randint(1, 4)):
            x = rng.choice("xy")
            code.append(
                rng.choice(
                    [
                        f"LD r{rng.randint(0, 1)} {x}",
                        f"ST {rng.randint(1, 2)} {x}",
                        f"ST r0 {x}",
                        f"INCL1 r1 {x}",
                        f"INCL2 r1 {x}",
                        "FLUL1 WG",
                        "FLUL1 DV",
                        "FLUL2 DV",
                        "INVL1 WG",
                        "INVL1 DV",
                        f"LK {x}",
                        f"UNLK {x}",
                        "LKRMW DV",
                        "UNLKRMW DV",
                        "MOV r1 r0+1",
                        "BNZ r0 E",
                    ]
                )
            )
        if any(c.startswith("BNZ") for c in code):
            code.append("E:")
        cols.append(code)
    rows = max(map(len, cols))
    lines = [" " + " | ".join(names) + " ;"]
    for i in range(rows):
        lines.append(" " + " | ".join(c[i] if i < len(c) else "" for c in cols) + " ;")
    placement = rng.choice(["one-wg", "two-wg", "two-dev"])
    if placement == "one-wg":
        tree = f"(device (work_group {' '.join(names)}))"
    elif placement == "two-wg":
        tree = f"(device (work_group {names[0]}) (work_group {' '.join(names[1:])}))"
    else:
        tree = f"(device (work_group {names[0]})) (device (work_group {' '.join(names[1:])}))"
    return "GPU_MACHINE random\n{ x=0; y=0; }\n" + "\n".join(lines) + f"\nscopeTree {tree}\nexists (x=1)\n"


@pytest.mark.parametrize("writeback", ["fifo", "any"])
def test_reduction_matches_the_literal_machine_on_random_programs(writeback):
    # Property test of every reduction of the default explorer (register
    # moves and branches alone, FLUSH-marker and idle-address dequeues alone, no fetch that
    # nobody can read any more, refresh instead of evict) against the
    # literal machine of [RSP15] sec. 5: the same outcomes, the same faults, and a
    # deadlock in one iff in the other.
    import random

    rng = random.Random(20261122)
    compared = deadlocked = 0
    for _k in range(60):
        text = _random_machine_program(rng)
        p = parse_machine(text)
        ref = explore(p, writeback=writeback, reduce=False, max_states=60_000)
        if not ref.complete:
            continue
        red = explore(p, writeback=writeback)
        assert red.complete
        assert sorted(map(str, red.outcomes)) == sorted(map(str, ref.outcomes)), text
        assert bool(red.deadlocks) == bool(ref.deadlocks), text
        if len(ref.faults) < 8:
            assert {f["message"] for f in red.faults} == {f["message"] for f in ref.faults}, text
        assert red.states <= ref.states
        compared += 1
        deadlocked += bool(ref.deadlocks)
    assert compared >= 40 and deadlocked >= 3  # the sample covers deadlocks too


def test_every_instruction_of_the_table_prints_and_parses_back():
    # The one instruction table drives the parser and the printer: every
    # instruction of the machine tests and of every scheme's compilation of
    # the RSP corpus reads back as the same IR from its printed text.
    from hrf.machine import TABLE, instr_text, labels_of, parse_instruction
    from hrf.mappings import compile_scheme, schemes

    programs = [parse_machine_file(p) for p in sorted((ROOT / "litmus" / "machine").glob("*.litmus"))]
    for s in schemes():
        for p in sorted((ROOT / "litmus" / "rsp").glob("*.litmus")):
            with contextlib.suppress(hrf.UnsupportedFeature):  # a key the scheme has no row for
                programs.append(compile_scheme(p, s))
    seen = set()
    for prog in programs:
        locs = [n for n, _ in prog.locations]
        for th in prog.threads:
            labels = labels_of(th.code)
            for ins in th.code:
                text = instr_text(ins, th.regs, locs, labels)
                back = parse_instruction(text, th.regs.index, {n: k for k, n in enumerate(locs)})
                if "target" in back:
                    back["target"] = {v: k for k, v in labels.items()}[back["target"]]
                assert back == {k: v for k, v in ins.items() if k not in ("src", "line")}, text
                seen.add(text.split()[0].rstrip("12"))
    # the corpus uses most of the table
    assert len(seen) >= len(TABLE) - 6, seen


def test_a_machine_test_is_read_from_a_path_and_named_where_a_source_test_is_wanted():
    # hrf.parse_machine takes a path as hrf.parse does; hrf.parse and
    # hrf.check say where a GPU_MACHINE test goes instead
    path = Path(__file__).resolve().parent.parent / "litmus" / "machine" / "corrupt-mp-rsp-old.litmus"
    by_text = hrf.parse_machine(path.read_text(), str(path))
    assert hrf.parse_machine(str(path)).format() == hrf.parse_machine(path).format() == by_text.format()
    for call in (hrf.parse, lambda p: hrf.check(p, "sc")):
        with pytest.raises(hrf.LitmusSyntaxError, match="machine code, not a source test: run it with `hrf explore`"):
            call(str(path))
