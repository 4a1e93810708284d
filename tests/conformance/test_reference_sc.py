"""SC against the peers' verdicts (../shared/reference).

No peer has an SC model, but SC is the strongest: every SC execution is
consistent under herd's OpenCL models (opencl.cat, opencl_rem.cat) and
under Dartagnan's OpenCL model, because their axioms (coherence, atomicity,
happens-before acyclicity, the SC axiom over a total order) all hold of a
total order that contains po, rf, co and fr. So:
- every outcome hrf finds under `sc` is among the states herd lists;
- a condition reachable under `sc` is reachable for Dartagnan (expected.csv).
Barriers are the exception: they make threads wait for one another, which
the `sc` model (barriers as plain fences) does not, so tests with barriers
are left to the OpenCL model. This checks that hrf reads the
tests' syntax as the peers do: operations, CAS, conditionals, defaults."""

import copy
import csv

import pytest
from reference import REFERENCE, parse_reference

import hrf
from hrf.herdout import herd_name, read_herd_output
from hrf.litmus import ast as A
from hrf.models import get as get_model


def has_barrier(t):
    return any(isinstance(op, A.Barrier) for th in t.threads for op in A.memory_ops(th.body))


def herd_cases():
    """(path, herd's verdict) for every test herd judged; excluded, by name:
    tests herd could not parse, and tests with barriers (which make threads
    wait for one another, beyond SC's plain fences; the OpenCL model covers
    them)."""
    out, excluded = [], {}
    for folder, outfile in [("opencl-herd2015", "herd-opencl.out"), ("rsp", "herd-opencl_rem.out")]:
        verdicts = read_herd_output(REFERENCE / folder / outfile)
        for f in sorted((REFERENCE / folder).glob("*.litmus")):
            t = parse_reference(f)
            v = verdicts.get(herd_name(t.name))
            if v is None:
                excluded[f"{folder}/{f.name}"] = "no herd verdict"
            elif has_barrier(t):
                excluded[f"{folder}/{f.name}"] = "barriers"
            else:
                out.append(pytest.param(f, v, id=f"{folder}/{f.name}"))
    return out, excluded


HERD_CASES, HERD_EXCLUDED = herd_cases()


def sc_without_cas_writeback():
    """SC over the RSP herd's compare-exchange, which writes nothing back on
    failure (see models/opencl_rsp.py): compare like with like."""
    m = copy.copy(get_model("sc"))
    m.cas_writeback = False
    return m


@pytest.mark.parametrize("path,verdict", HERD_CASES)
def test_sc_outcomes_are_herd_states(path, verdict):
    t = parse_reference(path)
    r = hrf.check(t, sc_without_cas_writeback() if path.parent.name == "rsp" else "sc")
    assert r.complete
    herd_states = [dict(s) for s in verdict.states]
    for o in r.outcomes:
        assert o in herd_states, f"SC outcome {o} is not among herd's states {herd_states}"
    if r.observation[1] > 0:
        assert verdict.positive > 0


def dat3m_cases():
    """(path, Dartagnan's reachability) for the Dat3M tests; excluded, by
    name: the test expected.csv has no row for (it lists MP_ra_dev twice
    instead of MP_sc_dev), and tests with barriers."""
    rows = {}
    with open(REFERENCE / "opencl-dat3m" / "expected.csv") as fh:
        for path, val in csv.reader(fh):
            rows[path.replace("litmus/OPENCL/", "")] = val == "1"
    out, excluded = [], {}
    for f in sorted((REFERENCE / "opencl-dat3m").rglob("*.litmus")):
        rel = str(f.relative_to(REFERENCE / "opencl-dat3m"))
        if rel not in rows:
            excluded[rel] = "no row in expected.csv"
        elif has_barrier(parse_reference(f)):
            excluded[rel] = "barriers"
        else:
            out.append(pytest.param(f, rows[rel], id=rel))
    return out, excluded


DAT3M_CASES, DAT3M_EXCLUDED = dat3m_cases()


@pytest.mark.parametrize("path,reachable", DAT3M_CASES)
def test_sc_reachable_implies_dartagnan_reachable(path, reachable):
    t = parse_reference(path)
    r = hrf.check(t, "sc")
    assert r.complete and t.condition.quantifier == "exists"
    if r.condition_holds:
        assert reachable, "reachable under SC, so under any weaker model"


def test_known_counts():
    # How many tests the comparison covers; a change here means a reader or
    # a reference file changed.
    assert len(HERD_CASES) == 30
    assert HERD_EXCLUDED == {"opencl-herd2015/3LB_xaG_yaG_zaG_sc--sc_na--sc_sc--sc_0_1__2.litmus": "no herd verdict"}
    assert DAT3M_EXCLUDED == {
        "herd/barrier_example.litmus": "barriers",
        "herd/global_barrier.litmus": "barriers",
        "herd/global_barrier_mo.litmus": "barriers",
        "overhauling/MP_sc_dev.litmus": "no row in expected.csv",
    }
