"""Run the README's shell commands (the first set-up line's check and every
`hrf ...` line of the tour) with the `hrf` on PATH, in an empty folder, as
a user of an installed wheel would, in order, in one folder. A command must
exit 0, or 1 where its comment says UNSOUND or "exit 1"; anything else, or a
Python traceback, fails."""

import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

readme = (Path(__file__).resolve().parent.parent / "README.md").read_text().splitlines()
first = readme[readme.index("```sh") + 1]
commands = [first.split("&&", 1)[1].strip()]
commands += [line.strip() for line in readme if line.startswith("    hrf ")]
failed = 0
with tempfile.TemporaryDirectory() as here:
    for line in commands:
        cmd, _, comment = line.partition("#")
        want = 1 if ("UNSOUND" in comment or "exit 1" in comment) else 0
        p = subprocess.run(shlex.split(cmd), cwd=here, capture_output=True, text=True, env=os.environ)
        ok = p.returncode == want and "Traceback" not in p.stderr
        print(f"{'ok  ' if ok else 'FAIL'} (exit {p.returncode}) {cmd.strip()}")
        if not ok:
            failed += 1
            print(re.sub(r"(?m)^", "    ", (p.stdout + p.stderr)[-3000:]))
sys.exit(1 if failed else 0)
