"""test_machine: the cases that need the peers' reference data."""

from reference import REFERENCE

from hrf.machine import explore
from hrf.mappings import compile_scheme

REF = REFERENCE / "rsp"


def test_reduction_matches_the_literal_machine_on_compiled_rsp_tests():
    # The RSP tests that the literal machine can explore in a few seconds,
    # compiled with both schemes: the same outcomes and deadlock verdicts.
    checked = 0
    for name in ["RSP_Test2", "RSP_Test6", "RSP_Test10", "RSP_Test11", "RSP_Test12", "WSQ1"]:
        for scheme in ["rsp-new", "rsp-old"]:
            p = compile_scheme(REF / f"{name}.litmus", scheme)
            for wb in ["fifo", "any"]:
                ref = explore(p, writeback=wb, reduce=False, max_states=150_000)
                if not ref.complete:
                    continue
                red = explore(p, writeback=wb)
                assert sorted(map(str, red.outcomes)) == sorted(map(str, ref.outcomes)), (name, scheme, wb)
                assert bool(red.deadlocks) == bool(ref.deadlocks)
                checked += 1
    assert checked >= 16


def test_progress_line_while_exploring():
    # A long exploration (RSP_Test8 under rsp-new: 728,202 states with the
    # reductions, 0.5-1 s) reports its progress from the core as
    # it goes: states grow layer by layer up to the final count.
    import io

    from hrf.machine import ExploreProgress

    class Recording(ExploreProgress):
        def __init__(self):
            super().__init__(io.StringIO(), enabled=True)
            self.seen = []

        def update(self, label, states, layers, seconds, max_states):
            self.seen.append((states, layers))
            super().update(label, states, layers, seconds, max_states)

    rec = Recording()
    r = explore(compile_scheme(REF / "RSP_Test8.litmus", "rsp-new"), deadlocks=False, workers=1, progress=rec)
    assert r.complete
    assert rec.seen, "no progress reported during a run of more than 0.1 s"
    assert rec.seen == sorted(rec.seen) and all(0 < s <= r.states for s, _ in rec.seen)
    text = rec.stream.getvalue()
    assert "exploring RSP_Test8 (writeback=fifo)" in text and "states/s" in text
    assert text.endswith("\r") and not rec.shown  # the line is cleared at the end
