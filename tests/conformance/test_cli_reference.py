"""test_cli: the cases that need the peers' reference data."""

from reference import REFERENCE

from hrf.cli import main


def test_unsupported_exit_status(capsys):
    assert main(["check", str(REFERENCE / "rsp" / "RSP_Test1.litmus"), "-m", "hrf-direct"]) == 1
    assert "seq_cst atomics only" in capsys.readouterr().err
