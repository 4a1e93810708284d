import signal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "litmus"

# Tests send SIGINT to the processes they start, as a terminal would. A
# suite started in the background by a non-interactive shell inherits
# SIGINT ignored, and so would those processes: give them the terminal's
# disposition back (a Python handler here is the default after exec).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
