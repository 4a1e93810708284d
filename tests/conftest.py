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


def many_writes(threads, stores, loads):
    """`threads` threads each storing `stores` distinct values to x and
    loading it `loads` times: the candidate count explodes. Every load's
    register is observed (`locations`), so each load splits the paths by
    the value it reads (a load whose value nothing uses would not)."""
    body = []
    for i in range(threads):
        ops = [f"  atomic_store_explicit(x, {i * 10 + k + 1}, memory_order_relaxed);" for k in range(stores)]
        ops += [f"  int r{k} = atomic_load_explicit(x, memory_order_relaxed);" for k in range(loads)]
        body.append(f"P{i} (atomic_int* x) {{\n" + "\n".join(ops) + "\n}")
    regs = " ".join(f"{i}:r{k};" for i in range(threads) for k in range(loads))
    return "C boom\n{ [x]=0; }\n" + "\n".join(body) + f"\nlocations [{regs}]\nexists (x=1)\n"
