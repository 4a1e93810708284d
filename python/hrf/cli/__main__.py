"""`python -m hrf.cli`."""

import sys

from . import main

sys.exit(main())
