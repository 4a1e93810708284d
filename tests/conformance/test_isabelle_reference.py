"""test_isabelle: the cases that need the peers' reference data."""
import re
import shutil
import subprocess
import sys
from pathlib import Path
import pytest
import hrf
from hrf.api import Limits
from hrf.dsl import Model
from hrf.isabelle import HANDWRITTEN, export_isabelle, model_theory, safe_name, scheme_theory
from hrf.mappings import get, schemes
from isabelle_reader import ReadError, check_session, read_theory
from reference import REFERENCE
from test_isabelle import _lemmas


def test_ptx_test_exports_with_its_dependencies(tmp_path):
    # PTX's model reads data and control dependencies: they are exported.
    from reference import REFERENCE
    path = REFERENCE / "ptx-asplos15" / "mp+membar.gls.litmus"
    r = export_isabelle(path, "ptx", tmp_path)
    check_session(tmp_path)
    full = hrf.check(path, "ptx", limits=Limits(keep_all=True))
    text = r.tests[0].path.read_text()
    assert len(_lemmas(text, "consistent")) == full.consistent
    assert "data = {" in text and "ctrl = {" in text
