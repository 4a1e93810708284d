"""`hrf check` from the shell: herd-style text, --json lines, errors, graphs."""

import json
import subprocess
import sys

from conftest import CORPUS, have_dot
from hrf.cli import main

FIG6 = str(CORPUS / "hrf" / "hrf14-fig6.litmus")


def test_herd_style_text(capsys):
    assert main(["check", FIG6, "--model", "hrf-direct"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "Test hrf14-fig6 Required" and lines[1] == "Model hrf-direct"
    assert lines[2] == "States 1" and lines[3] == "1:R2=1; 2:R3=1;"
    assert "Ok" in lines and "Witnesses" in lines and "Flag heterogeneous_race" in lines
    assert any(l.startswith("Observation hrf14-fig6 Always") for l in lines)
    assert any(l.startswith("Time hrf14-fig6 ") for l in lines)


def test_json_lines_several_models(capsys):
    assert main(["check", FIG6, "-m", "hrf-direct", "-m", "hrf-indirect", "--json"]) == 0
    rows = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    assert [(r["model"], r["racy"]) for r in rows] == [("hrf-direct", True), ("hrf-indirect", False)]
    assert all(r["condition_holds"] is True for r in rows)


def test_syntax_error_exit_status(tmp_path, capsys):
    bad = tmp_path / "bad.litmus"
    bad.write_text("OPENCL bad\n{ [x]=0; }\nP0@wg 0, dev 0 (global int* x) {\n  *x = 1\n}\nexists (x=1)\n")
    assert main(["check", str(bad), "-m", "sc"]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:5:1:" in err and "unexpected '}'" in err


def test_graph_dot(tmp_path):
    out = tmp_path / "g.dot"
    assert main(["check", FIG6, "-m", "hrf-direct", "--graph", str(out)]) == 0
    assert out.read_text().startswith("digraph execution {")


def test_console_script_installed():
    r = subprocess.run([sys.executable, "-m", "hrf.cli", "models"], capture_output=True, text=True)
    assert r.returncode == 0 and "hrf-indirect" in r.stdout


def test_graph_svg(tmp_path):
    # Graphviz is installed by .ci/run; without it hrf says how to get it.
    out = tmp_path / "g.svg"
    if not have_dot():
        assert main(["check", FIG6, "-m", "hrf-direct", "--graph", str(out)]) == 1
        return
    assert main(["check", FIG6, "-m", "hrf-direct", "--graph", str(out)]) == 0
    svg = out.read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "heterogeneous_race" in svg and "device 0" in svg


def test_python_dash_m_hrf_and_one_version():
    # `python -m hrf` is the hrf command; the version has one source
    # (Cargo.toml: the core's and the distribution's agree)
    import hrf
    import hrf._core

    r = subprocess.run([sys.executable, "-m", "hrf", "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == f"hrf {hrf.__version__}"
    assert hrf.__version__ == hrf._core.__version__
    from importlib.metadata import version

    assert version("hrf") == hrf.__version__  # the metadata says the same


def test_generate_and_compare_say_when_the_family_is_smaller_or_separates_nothing(tmp_path, capsys):
    # a count larger than the family gives the family, and says so
    assert main(["generate", "--count", "100000", "--max-edges", "3", "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    n = len(list(tmp_path.glob("*.litmus")))
    assert f"the family has {n:,} tests, fewer than the 100,000 asked for" in err and n < 100000
    assert "--max-edges, now 3" in err
    # two models no test of the family separates: the hint names the knobs
    assert main(["compare", "-m", "sc", "-m", "sc", "--max-edges", "4", "--count", "30"]) == 0
    assert "no test of this family separates them" in capsys.readouterr().err
    # an empty family established nothing: it says so, and fails
    assert main(["compare", "-m", "sc", "-m", "sc", "--max-edges", "3"]) == 1
    assert "the family is empty" in capsys.readouterr().err


def test_a_refusal_names_the_models_that_read_the_test(capsys):
    # a Dat3M PTX test under a C-family model: refused by name, the readers named
    spin = str(CORPUS / "ptx7" / "SpinMP.litmus")
    assert main(["check", spin, "-m", "opencl"]) == 1
    err = capsys.readouterr().err
    assert "opencl reads C and OpenCL tests; this is a PTX test" in err
    assert "models that read it:" in err and "ptx-7.5" in err


def test_each_verb_builds_its_own_modules_parser_and_the_table_names_every_verb():
    # A command builds only its verb's module's parsers (cold start); the
    # table that says which module that is must name every verb, rightly.
    import argparse
    import importlib

    from hrf.cli import MODULES, VERBS

    for name in MODULES:
        sub = argparse.ArgumentParser().add_subparsers()
        mod = importlib.import_module(f"hrf.cli.{name}")
        mod.add(sub)
        if name == "check":
            mod.add_models(sub)
        assert {v for v, m in VERBS.items() if m == name} == set(sub.choices), name
