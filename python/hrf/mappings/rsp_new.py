"""`rsp-new`: the RSP paper's improved scheme (001 sec. 5-6; the "New
compilation scheme" slide of 003), as transcribed in SPEC sec. 8
(`rsp-new-slides`), and repaired where hrf finds the transcription unsound
(`rsp-new`)."""
from . import Row, Scheme

_SLIDE = "003 'New compilation scheme'"

# As transcribed from the slide (SPEC sec. 8). The slide brackets the
# fetch_inc row with two `LKrmw` braces; hrf reads them as the WG column
# (its own work-group's rmw lock) and the remote column (every rmw lock of
# the device), so that a remote RMW excludes the work-group RMWs of the
# work-group it promotes into.
_ROWS = {
    ("load", "na", False): Row(("LD",), f"{_SLIDE}, column na or WG"),
    ("load", "wg", False): Row(("LD",), f"{_SLIDE}, column na or WG"),
    ("load", "dev", False): Row(("LD", "INVL1 WG"), f"{_SLIDE}, column DV (not remote)"),
    ("load", "dev", True): Row(("LD", "FLUL1 DV", "INVL1 WG"), f"{_SLIDE}, column DV (remote)"),
    ("store", "na", False): Row(("ST",), f"{_SLIDE}, column na or WG"),
    ("store", "wg", False): Row(("ST",), f"{_SLIDE}, column na or WG"),
    ("store", "dev", False): Row(("FLUL1 WG", "ST"), f"{_SLIDE}, column DV (not remote)"),
    ("store", "dev", True): Row(("FLUL1 WG", "INVL1 DV", "ST"), f"{_SLIDE}, column DV (remote)"),
    ("rmw", "wg", False): Row(("LKrmw WG", "RMWL1", "UNLKrmw WG"), f"{_SLIDE}, column na or WG, LKrmw brace"),
    ("rmw", "dev", False): Row(("FLUL1 WG", "RMWL2", "INVL1 WG"), f"{_SLIDE}, column DV (not remote)"),
    ("rmw", "dev", True): Row(("LKrmw DV", "FLUL1 WG", "INVL1 DV", "RMWL2", "FLUL1 DV", "INVL1 WG", "UNLKrmw DV"),
                              f"{_SLIDE}, column DV (remote), LKrmw brace"),
    # All-devices scope on several devices: not on the slide. hrf's rows,
    # lifting the DV rows one level with FLUL2 and hrf's INVL2 (the machine
    # has no RMW at memory, so no all-devices RMW row).
    # (The L2 is invalidated before the L1: in the other order a stale
    # value can be fetched from L2 into L1 in between, the "corrupt MP" one
    # level down; hrf found this on RSP_Test5.)
    ("load", "all", False): Row(("LD", "INVL2 DV", "INVL1 WG"), "hrf: DV row lifted to memory"),
    ("store", "all", False): Row(("FLUL1 WG", "FLUL2 DV", "ST"), "hrf: DV row lifted to memory"),
}

SLIDES = Scheme(
    name="rsp-new-slides",
    description="the RSP talk's new scheme as transcribed in SPEC sec. 8",
    model="opencl-rsp",
    rows=dict(_ROWS),
    refuted_by=("litmus/rsp/rmw-two-remote.litmus",),
)

# The repair (SPEC sec. 8's hypotheses, confirmed by hrf: see
# tests/test_soundness.py). The slide's remote rows flush only the
# promoting thread's own L1 (FLUL1 WG): a dirty line that a work-group RMW
# or store left in another L1 of the device is written back after the
# remote operation and overwrites it in L2 (a lost update). The repair
# widens the flush to the device (FLUL1 DV) and invalidates the device's
# L1s after as well as before, and brackets the remote store with the rmw
# locks like the remote RMW, so that no work-group RMW runs in between.
SCHEME = Scheme(
    name="rsp-new",
    description="the RSP paper's new scheme, with hrf's repair of the remote RMW and store rows",
    model="opencl-rsp",
    rows={**_ROWS, **{
        ("rmw", "dev", True): Row(("LKrmw DV", "FLUL1 DV", "INVL1 DV", "RMWL2", "FLUL1 DV", "INVL1 DV", "UNLKrmw DV"),
                                  "repair: the slide's row with FLUL1/INVL1 widened to DV (SPEC sec. 8)"),
        ("store", "dev", True): Row(("LKrmw DV", "FLUL1 DV", "INVL1 DV", "ST", "FLUL1 WG", "INVL1 DV", "UNLKrmw DV"),
                                    "repair: flush the device first, publish, under the rmw locks (SPEC sec. 8)"),
    }},
    notes="Repaired rows: remote RMW and remote store (see the module docstring and tests/test_soundness.py).",
)
