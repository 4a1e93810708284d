"""test_isabelle: the cases that need the peers' reference data."""

from reference import REFERENCE

import hrf
from hrf.api import Limits
from hrf.isabelle import export_isabelle
from isabelle_reader import check_session
from test_isabelle import _lemmas


def test_ptx_test_exports_with_its_dependencies(tmp_path):
    # PTX's model reads data and control dependencies: they are exported.
    path = REFERENCE / "ptx-asplos15" / "mp+membar.gls.litmus"
    r = export_isabelle(path, "ptx", tmp_path)
    check_session(tmp_path)
    full = hrf.check(path, "ptx", limits=Limits(keep_all=True))
    text = r.tests[0].path.read_text()
    assert len(_lemmas(text, "consistent")) == full.consistent
    assert "data = {" in text and "ctrl = {" in text
