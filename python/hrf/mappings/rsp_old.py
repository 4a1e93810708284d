"""`rsp-old`: the first implementation of remote-scope promotion (Orr et
al.), as transcribed in memalloy's `mappings/opencl_amd.als` and in the
"Old compilation scheme" slide of the RSP talk ([RSP15 talk])."""

from .scheme import Row, Scheme

_SLIDE = "[RSP15 talk] 'Old compilation scheme'"
_MEMALLOY = "memalloy mappings/opencl_amd.als"

SCHEME = Scheme(
    name="rsp-old",
    description="Orr et al.'s RSP implementation (the README's schemes section)",
    model="opencl-rsp",
    refuted_by=(
        "litmus/rsp/corrupt-mp.litmus",
        "litmus/rsp/mp-remote-acquire.litmus",
        "litmus/rsp/rmw-two-remote.litmus",
        "litmus/rsp/rmw-then-load.litmus",
    ),
    rows={
        ("load", "na", False): Row(("LD",), f"{_SLIDE}, column na or WG; {_MEMALLOY}"),
        ("load", "wg", False): Row(("LD",), f"{_SLIDE}, column na or WG; {_MEMALLOY}"),
        ("load", "dev", False): Row(("INVL1 WG", "LD"), f"{_SLIDE}, column DV; {_MEMALLOY} 'Inval ; Load'"),
        ("load", "dev", True): Row(("FLUL1 DV", "INVL1 WG", "LD"), f"{_SLIDE}, column DV (remote)"),
        ("store", "na", False): Row(("ST",), f"{_SLIDE}, column na or WG; {_MEMALLOY}"),
        ("store", "wg", False): Row(("ST",), f"{_SLIDE}, column na or WG; {_MEMALLOY}"),
        ("store", "dev", False): Row(("FLUL1 WG", "ST"), f"{_SLIDE}, column DV; {_MEMALLOY} 'Flush ; Store'"),
        ("store", "dev", True): Row(
            ("LK x", "FLUL1 WG", "ST", "INVL1 DV", "UNLK x"),
            f"{_MEMALLOY} 'Lock x; Flush; Store x; RemInval; Unlock x'; {_SLIDE}",
        ),
        ("rmw", "wg", False): Row(("RMWL1",), f"{_MEMALLOY} 'Workgroup-scoped RMW compiles to IncL1'; {_SLIDE}"),
        # The slide's fetch_inc cells for DV were damaged in extraction and
        # memalloy leaves device-scope RMWs out: hrf's reconstruction, by
        # analogy with the DV load (invalidate first) and store (flush first)
        # rows, and with the remote store row (lock x, remote invalidate).
        ("rmw", "dev", False): Row(("FLUL1 WG", "INVL1 WG", "RMWL2"), "hrf's reconstruction (slide cell damaged)"),
        ("rmw", "dev", True): Row(
            ("LK x", "FLUL1 WG", "RMWL2", "INVL1 DV", "UNLK x"),
            "hrf's reconstruction, after the remote store row (slide cell damaged)",
        ),
    },
)
