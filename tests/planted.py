"""Planted errors the suites use as controls (importable from the unit
suite and from the conformance suite alike, whose conftest is another module)."""


def planted_acquire_relaxed():
    """(message passing in C11, the ABI with its acquire load planted as
    ld.relaxed): a mapping hrf finds unsound on that test, for controls."""
    import hrf
    from hrf.mappings.axiomatic import Mapping, Row
    from hrf.mappings.models import get as get_mapping

    abi = get_mapping("ptx-abi")
    bad = Mapping("acquire-relaxed", "planted", {**abi.rows, ("load", "acq"): Row(("ld.relaxed",), "planted")})
    mp = hrf.parse(
        "C MP\n{ x = 0; y = 0; }\n"
        "P0 (atomic_int* x, atomic_int* y) { atomic_store_explicit(x, 1, memory_order_relaxed);"
        " atomic_store_explicit(y, 1, memory_order_release); }\n"
        "P1 (atomic_int* x, atomic_int* y) { int r0 = atomic_load_explicit(y, memory_order_acquire);"
        " int r1 = atomic_load_explicit(x, memory_order_relaxed); }\n"
        "exists (1:r0=1 /\\ 1:r1=0)"
    )
    return mp, bad
