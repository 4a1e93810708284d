"""The README's first lines are exactly the two set-up commands, and CI runs
the second one as it is written."""

from conftest import ROOT


def test_readme_commands():
    lines = (ROOT / "README.md").read_text().splitlines()
    block = lines[lines.index("```sh") + 1 : lines.index("```sh") + 3]
    assert block[0].startswith("pip install . && hrf check litmus/")
    assert block[1].startswith("pip install '.[test]' && python -m pytest")
    assert lines.index("```sh") <= 3 and lines[lines.index("```sh") + 3] == "```"
    # the example the first command checks exists
    example = block[0].split("hrf check ")[1].split()[0]
    assert (ROOT / example).is_file()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert block[1] in ci, "CI runs the README's test command as written"
