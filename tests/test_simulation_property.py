"""hrf's machine explorer (Rust) against Hrf_Simulation's theorem, proved
in Isabelle over the machine's own definitions: on every program whose
locations each belong to one work-group, compiled by rows that perform
their access in the L1, every outcome of the machine is an SC outcome,
under both write-back policies, racy or not. The explorer is a second
implementation of the machine: a seeded sample of such programs must show
no other outcome (`hrf.soundness` against the `sc` model, which judges
no race). The theorem holds of `rsp-old` too, which [RSP15] refutes only
across work-groups (the corrupt MP)."""

import random

import pytest

import hrf
from conftest import CORPUS
from hrf.isabelle.schemes import l1_row
from hrf.mappings import get

# Straight-line OpenCL operations; {l} a location, {v} a value.
_STORE = {
    "na": "*{l} = {v};",
    "at": "atomic_store_explicit({l}, {v}, memory_order_{o}, memory_scope_{s});",
}
_LOAD = {
    "na": "int {r} = *{l};",
    "at": "int {r} = atomic_load_explicit({l}, memory_order_{o}, memory_scope_{s});",
}
_RMW = "int {r} = atomic_fetch_add_explicit({l}, 1, memory_order_{o}, memory_scope_work_group);"
_SCOPE = {"wg": "work_group", "dev": "device"}


def _program(rng: random.Random, k: int) -> str:
    """Two work-groups: the first's two threads share x and y, the second's
    one thread owns z (every location has one home work-group). Each
    location is atomic or not throughout."""
    atomic = {x: rng.random() < 0.6 for x in "xyz"}
    homes = [("P0", "xy"), ("P1", "xy"), ("P2", "z")]
    threads = []
    for name, locs in homes:
        params = ", ".join(f"global {'atomic_int' if atomic[x] else 'int'}* {x}" for x in locs)
        body = []
        for i in range(rng.randint(1, 3)):
            x = rng.choice(locs)
            kind = rng.choice(("load", "store", "rmw") if atomic[x] else ("load", "store"))
            s = _SCOPE[rng.choice(("wg", "dev"))]
            if kind == "rmw":
                body.append(_RMW.format(r=f"r{i}", l=x, o=rng.choice(("relaxed", "acq_rel"))))
            elif kind == "load":
                o = rng.choice(("relaxed", "acquire", "seq_cst"))
                body.append(_LOAD["at" if atomic[x] else "na"].format(r=f"r{i}", l=x, o=o, s=s))
            else:
                o = rng.choice(("relaxed", "release", "seq_cst"))
                body.append(_STORE["at" if atomic[x] else "na"].format(l=x, v=rng.randint(1, 2), o=o, s=s))
        threads.append(f"{name} ({params}) {{\n  " + "\n  ".join(body) + "\n}\n")
    return (
        f"OpenCL homed{k}\n{{\n  [x]=0; [y]=0; [z]=0;\n}}\n\n"
        + "\n".join(threads)
        + "\nscopeTree (device (work_group P0 P1) (work_group P2))\nexists (x=0)\n"
    )


def _sample(n: int, seed: int):
    rng = random.Random(seed)
    return [_program(rng, k) for k in range(n)]


@pytest.mark.parametrize("scheme", ["rsp-new", "rsp-old", "hrf-cache"])
def test_the_explorer_shows_only_sc_outcomes_on_homed_programs(tmp_path, scheme):
    rows = get(scheme).rows
    # the sample's operations are the scheme's L1 rows (RMWs at work-group scope only)
    assert all(l1_row(op, rows[(op, sc, False)].seq) for op in ("load", "store") for sc in ("na", "wg", "dev"))
    assert l1_row("rmw", rows[("rmw", "wg", False)].seq)
    checked = 0
    for k, text in enumerate(_sample(40, seed=7)):
        path = tmp_path / f"homed{k}.litmus"
        path.write_text(text)
        r = hrf.soundness(path, scheme, model="sc")
        assert r.complete and not r.racy_source, text
        assert r.sound, (text, [(c.writeback, c.outcome) for c in r.counterexamples])
        assert set(r.machine) == {"fifo", "any"}
        checked += 1
    assert checked == 40


def test_outside_the_class_the_explorer_finds_what_the_theorem_leaves_out():
    # Controls, one for each hypothesis: the corrupt MP's reader and writer
    # sit in two work-groups sharing x and y (not homed), and rsp-old shows
    # a non-SC outcome; rmw-dev-vs-wg's two threads share one work-group,
    # but hrf-cache performs the device RMW at the L2 (not an L1 row) and
    # loses the other increment (x=1).
    r = hrf.soundness(CORPUS / "rsp/corrupt-mp.litmus", "rsp-old", model="sc")
    assert r.sound is False and any(c.kind == "outcome" for c in r.counterexamples)
    r = hrf.soundness(CORPUS / "rsp/rmw-dev-vs-wg.litmus", "hrf-cache", model="sc")
    assert r.sound is False and any(c.outcome and c.outcome.get("x") == 1 for c in r.counterexamples)
