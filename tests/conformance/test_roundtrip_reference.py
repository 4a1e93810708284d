"""test_roundtrip: the cases that need the peers' reference data."""

import pytest
from reference import NOT_YET, ids, parse_reference, reference_files

import hrf
from hrf.litmus.printer import to_litmus

FILES = reference_files(exclude={"ptx-asplos15"} | NOT_YET)


def test_only_ptx_is_left_out_of_the_round_trip():
    every = reference_files()  # NOT_YET left out of both
    left_out = [p for p in every if p not in FILES]
    assert left_out and all(parse_reference(p).arch == "GPU_PTX" for p in left_out)
    assert all(parse_reference(p).arch != "GPU_PTX" for p in FILES)


@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_reference_round_trip(path):
    t = parse_reference(path)
    text = to_litmus(t)
    assert hrf.parse(text) == t, text
    # And the printed test means the same: same outcomes under SC (or the
    # same refusal, for what hrf does not model yet).
    if len(t.threads) <= 3:
        try:
            a = hrf.check(t, "sc")
        except hrf.UnsupportedFeature as e:
            with pytest.raises(hrf.UnsupportedFeature, match=str(e.message)[:30].replace("(", ".").replace(")", ".")):
                hrf.check(text, "sc")
            return
        b = hrf.check(text, "sc")
        assert (a.outcomes, a.condition_holds) == (b.outcomes, b.condition_holds)
