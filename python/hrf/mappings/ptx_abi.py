"""NVIDIA's mapping of C++'s (and so C11's and OpenCL's) atomics to PTX,
as [PTX19] states and proves it for PTX 6.0 and libcu++ implements it: the
leading-fence mapping (a seq_cst access is a `fence.sc` then the access),
and the trailing-fence variant [PTX19] discusses beside it (the access,
then a `fence.sc`). `hrf run` lowers C and OpenCL tests with `ABI`."""

from __future__ import annotations

from .axiomatic import Mapping, Row

_P = "[PTX19] C++ to PTX mapping; libcu++'s cuda::atomic"
_ROWS = {
    ("load", "na"): Row(("ld.weak",), "a plain access is weak"),
    ("load", "rlx"): Row(("ld.relaxed",), _P),
    ("load", "acq"): Row(("ld.acquire",), _P),
    ("load", "sc"): Row(("fence.sc", "ld.acquire"), _P),
    ("store", "na"): Row(("st.weak",), "a plain access is weak"),
    ("store", "rlx"): Row(("st.relaxed",), _P),
    ("store", "rel"): Row(("st.release",), _P),
    ("store", "sc"): Row(("fence.sc", "st.relaxed"), _P),
    ("rmw", "rlx"): Row(("atom.relaxed",), _P),
    ("rmw", "acq"): Row(("atom.acquire",), _P),
    ("rmw", "rel"): Row(("atom.release",), _P),
    ("rmw", "acq_rel"): Row(("atom.acq_rel",), _P),
    # libcu++: a seq_cst RMW is fence.sc, then the acquire RMW (the fence releases)
    ("rmw", "sc"): Row(("fence.sc", "atom.acquire"), _P),
    ("fence", "rlx"): Row((), "a relaxed fence orders nothing"),
    ("fence", "acq"): Row(("fence.acq_rel",), _P),
    ("fence", "rel"): Row(("fence.acq_rel",), _P),
    ("fence", "acq_rel"): Row(("fence.acq_rel",), _P),
    ("fence", "sc"): Row(("fence.sc",), _P),
}
_T = "[PTX19]'s trailing-fence alternative: the fence.sc after the seq_cst access"

ABI = Mapping(
    "ptx-abi",
    "C11/OpenCL atomics to PTX, NVIDIA's atomics ABI (leading fence.sc)",
    dict(_ROWS),
)
TRAILING = Mapping(
    "ptx-abi-trailing",
    "C11/OpenCL atomics to PTX, seq_cst accesses with a trailing fence.sc",
    {
        **_ROWS,
        ("load", "sc"): Row(("ld.acquire", "fence.sc"), _T),
        ("store", "sc"): Row(("st.release", "fence.sc"), _T),
        ("rmw", "sc"): Row(("atom.acq_rel", "fence.sc"), _T),
    },
)
