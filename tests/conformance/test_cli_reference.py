"""test_cli: the cases that need the peers' reference data."""
import json
import subprocess
import sys
from hrf.cli import main
from reference import REFERENCE


def test_unsupported_exit_status(capsys):
    from reference import REFERENCE
    assert main(["check", str(REFERENCE / "rsp" / "RSP_Test1.litmus"), "-m", "hrf-direct"]) == 1
    assert "seq_cst atomics only" in capsys.readouterr().err
