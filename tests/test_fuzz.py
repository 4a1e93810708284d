"""Fuzzing in the suite: mutations and truncations of the repository's own
tests (tests/fuzz.py) end in a result or an hrf error, never another
exception, a crash, or a run past its time limit. A bounded hypothesis run;
`python tests/fuzz.py --cases N` runs long campaigns by hand."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz import DIALECT_MODELS, MODELS, ROOT, corpus, is_bug, judge, mutate

TEXTS = corpus()


def test_the_corpus_is_there():
    assert len(TEXTS) >= 20


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(TEXTS) - 1), st.lists(st.integers(0, 2**32), min_size=1, max_size=3), st.sampled_from(MODELS))
def test_mutated_tests_end_in_a_result_or_an_hrf_error(i, seeds, model):
    _survives(TEXTS[i], seeds, model)


# Dat3M's dialects as hrf reads them: PTX with the forms kernels write
# (volatile, membar, clusters, the ISA's barriers, inc/dec/min/max; sm_90's
# mbarriers, bulk copies, proxy fences and cluster barriers) and
# Vulkan, mutated and run under their models
DIALECTS = [t for d in ("ptx7", "ptx8", "vulkan") for t in corpus(ROOT / "litmus" / d)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, len(DIALECTS) - 1),
    st.lists(st.integers(0, 2**32), min_size=1, max_size=3),
    st.sampled_from(DIALECT_MODELS),
)
def test_mutated_dialect_tests_end_in_a_result_or_an_hrf_error(i, seeds, model):
    _survives(DIALECTS[i], seeds, model)


def _survives(data: bytes, seeds, model) -> None:
    """The text mutated once per seed ends in a result or an hrf error."""
    for s in seeds:
        data = mutate(data, random.Random(s))
    cls, detail = judge(data, model)
    assert not is_bug(cls), (cls, detail, data[:2000])
