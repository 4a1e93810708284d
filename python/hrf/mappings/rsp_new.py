"""`rsp-new`: the RSP paper's improved scheme ([RSP15] sec. 5-6; the "New
compilation scheme" slide of [RSP15 talk]), as transcribed in the README
(`rsp-new-slides`), and repaired where hrf finds the transcription unsound
(`rsp-new`), with hrf's rows for programs on several devices (remote
operations at scope all_svm_devices, which the slide's one-device machine
does not have)."""

from .scheme import LOCKED_DEVICE_RMW, LOCKED_WORK_GROUP_RMW, Row, Scheme

_SLIDE = "[RSP15 talk] 'New compilation scheme'"

# As transcribed from the slide (the README's schemes section). The slide brackets the
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
    ("rmw", "wg", False): Row(LOCKED_WORK_GROUP_RMW, f"{_SLIDE}, column na or WG, LKrmw brace"),
    ("rmw", "dev", False): Row(("FLUL1 WG", "RMWL2", "INVL1 WG"), f"{_SLIDE}, column DV (not remote)"),
    ("rmw", "dev", True): Row(
        ("LKrmw DV", "FLUL1 WG", "INVL1 DV", "RMWL2", "FLUL1 DV", "INVL1 WG", "UNLKrmw DV"),
        f"{_SLIDE}, column DV (remote), LKrmw brace",
    ),
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
    description="the RSP talk's new scheme as transcribed in the README",
    model="opencl-rsp",
    rows=dict(_ROWS),
    refuted_by=("litmus/rsp/rmw-two-remote.litmus", "litmus/rsp/rmw-dev-vs-wg.litmus"),
)

# Several devices: remote operations at scope all_svm_devices (RSP_Test3).
# Not on the slide, whose machine has one device; hrf's rows, the repaired
# remote DV rows lifted one level (memory is the point of coherence now, a
# device's L2 is a cache like an L1). A remote operation reaches the
# work-group-scope operations of every device ([RSP15] sec. 5.1, the cat's
# incl), so it flushes every L1 and L2 (FLUL1 ALL, then FLUL2 ALL) and
# invalidates caches outside its own work-group (L2 before L1: RSP_Test5's
# lesson). Each instruction is needed: without any one of them (or with
# DV for ALL) hrf finds a counterexample on one of litmus/rsp/
# mp-remote-all-acquire, mp-remote-all-release, store-remote-all-vs-rmw,
# store-remote-all-vs-dev-rmw (tests/test_soundness.py).
_SEVERAL = "hrf: repaired remote DV row lifted to all devices (several devices)"
_SEVERAL_DEVICES = {
    # Acquire: read, then bring every cache's writes to memory and drop
    # the own device's L2 and own L1.
    ("load", "all", True): Row(("LD", "FLUL1 ALL", "FLUL2 ALL", "INVL2 DV", "INVL1 WG"), _SEVERAL),
    # Release: under every rmw lock, everything to memory and every cache
    # invalidated; the store, published to memory; every cache invalidated
    # again (a fetch in between may have brought the old value).
    ("store", "all", True): Row(
        (
            "LKrmw ALL",
            "FLUL1 ALL",
            "FLUL2 ALL",
            "INVL2 ALL",
            "INVL1 ALL",
            "ST",
            "FLUL1 WG",
            "FLUL2 DV",
            "INVL2 ALL",
            "INVL1 ALL",
            "UNLKrmw ALL",
        ),
        _SEVERAL,
    ),
    # A device-scope RMW is performed at its device's L2, which another
    # device's remote all-devices store cannot reach: without the lock the
    # RMW's result, written back later, overwrites the store in memory
    # (store-remote-all-vs-dev-rmw, x=1).
    ("rmw", "dev", False): Row(
        ("LKrmw DV", "FLUL1 WG", "RMWL2", "INVL1 WG", "UNLKrmw DV"),
        "hrf: the slide's DV row under the device's rmw locks (several devices)",
    ),
}
# The machine has no RMW at memory: an RMW performed at one device's L2
# is atomic only against writers that take a lock, and work-group stores
# of other devices take none. hrf tried the remote store row around RMWL2
# (flushing and invalidating on both sides): it loses a work-group store
# of another device (mp-remote-all-rmw-acquire, y=0).
_NO_REMOTE_ALL_RMW = (
    "the machine has no RMW at memory, and an RMW at one device's L2 is not atomic against "
    "unlocked stores of other devices (hrf's candidate loses one on litmus/rsp/"
    "mp-remote-all-rmw-acquire.litmus)"
)
_NO_ALL_RMW = "the machine has no RMW at memory"

# seq_cst: the slide's rows give acquire/release order only. A dev store
# leaves its line in the L1 (`FLUL1 WG; ST`) and a dev load may read a
# line fetched long before (`LD; INVL1 WG`), so store buffering with
# seq_cst atomics on two work-groups reaches r0 = r1 = 0, which the SC
# axiom forbids: hrf found it on 44 of the generated tests (SB and R
# shapes; four are kept in litmus/rsp/sc/, tests/test_soundness.py). hrf's
# rows: an SC store waits until it is in L2, the device's point of
# coherence (a flush after); an SC load reads L2 as it is after the
# thread's earlier SC accesses (an invalidate before), and a remote one
# first brings the device's L1s to L2 (the remote store row already
# flushes after). Then the SC accesses of a device meet in its L2 in
# program order. RMWs are performed at L2 and need nothing more; work-group
# scope accesses meet in the work-group's L1.
_SC = "hrf: seq_cst (store buffering); the row with"
_SEQ_CST = {
    ("load", "dev", False): Row(("INVL1 WG", "LD", "INVL1 WG"), f"{_SC} an invalidate before"),
    ("store", "dev", False): Row(("FLUL1 WG", "ST", "FLUL1 WG"), f"{_SC} a flush after"),
    ("load", "dev", True): Row(
        ("FLUL1 DV", "INVL1 WG", "LD", "FLUL1 DV", "INVL1 WG"), f"{_SC} a device flush and an invalidate before"
    ),
}
# Several devices: not derived (no test shape of the corpus or the
# generated families has seq_cst accesses at scope all).
_SEQ_CST_MISSING = {
    (op, "all", remote): "hrf has no seq_cst rows for several devices (not derived)"
    for op in ("load", "store", "rmw")
    for remote in (False, True)
}

# The repair (the README's schemes section's hypotheses, confirmed by hrf: see
# tests/test_soundness.py). The slide's remote rows flush only the
# promoting thread's own L1 (FLUL1 WG): a dirty line that a work-group RMW
# or store left in another L1 of the device is written back after the
# remote operation and overwrites it in L2 (a lost update). The repair
# widens the flush to the device (FLUL1 DV) and invalidates the device's
# L1s after as well as before, and brackets the remote store with the rmw
# locks like the remote RMW, so that no work-group RMW runs in between.
# The slide's device RMW takes no lock either: a work-group RMW of its own
# work-group, in the L1, reads x before the device RMW's increment at L2
# and its line, written back after, overwrites it (rmw-dev-vs-wg, x=1;
# found by the Isabelle family, hrf.isabelle.family). The repair runs it
# under its work-group's rmw lock, which every work-group RMW takes (what
# the slide gives if one of its LKrmw braces spans the DV column too: the
# extraction lost which columns they span).
SCHEME = Scheme(
    name="rsp-new",
    description="the RSP paper's new scheme, with hrf's repair of the RMW rows and the remote store row",
    model="opencl-rsp",
    rows={
        **_ROWS,
        **{
            ("rmw", "dev", False): Row(
                LOCKED_DEVICE_RMW,
                "repair: the slide's row under the work-group's rmw lock (rmw-dev-vs-wg)",
            ),
            ("rmw", "dev", True): Row(
                ("LKrmw DV", "FLUL1 DV", "INVL1 DV", "RMWL2", "FLUL1 DV", "INVL1 DV", "UNLKrmw DV"),
                "repair: the slide's row with FLUL1/INVL1 widened to DV (the README's schemes section)",
            ),
            ("store", "dev", True): Row(
                ("LKrmw DV", "FLUL1 DV", "INVL1 DV", "ST", "FLUL1 WG", "INVL1 DV", "UNLKrmw DV"),
                "repair: flush the device first, publish, under the rmw locks (the README's schemes section)",
            ),
        },
    },
    notes="Repaired rows: device RMW, remote RMW and remote store (see the module docstring and "
    "tests/test_soundness.py). "
    "On several devices: hrf's remote all-devices load and store rows and a locked device-scope RMW.",
    several_devices=_SEVERAL_DEVICES,
    missing={("rmw", "all", True): _NO_REMOTE_ALL_RMW, ("rmw", "all", False): _NO_ALL_RMW},
    seq_cst=_SEQ_CST,
    seq_cst_missing=_SEQ_CST_MISSING,
)
