"""`python -m hrf ...`: the same as the `hrf` command."""

from .cli import main

raise SystemExit(main())
