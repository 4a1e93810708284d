"""Every OpenCL .litmus file under ../shared/reference parses.

The folder is enumerated, so a new file there is covered automatically.
Files that are themselves malformed would be listed in MALFORMED with the
reason: hrf refuses a name used but declared nowhere, where herd makes it
a fresh location (a typo read that way silently changes the test)."""

import pytest
from reference import REFERENCE, ids, reference_files

import hrf
from hrf.litmus import ast as A

FILES = reference_files()
MALFORMED: dict = {
    "opencl-herd2015/CT_wsq2.litmus": "uses `oldHead_p`, declares the parameter `oldhead_p` (conftest.REPAIRS)",
}


def test_the_folder_is_not_empty():
    assert len(FILES) >= 60


@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_parses(path):
    name = str(path.relative_to(REFERENCE))
    if name in MALFORMED:
        with pytest.raises(hrf.LitmusSyntaxError):
            hrf.parse(path)
        return
    t = hrf.parse(path)
    assert t.threads, "a test has threads"
    if t.arch in ("OpenCL", "GPU_PTX"):
        assert all(th.dev is not None and th.wg is not None for th in t.threads), (
            "every thread is placed in the scope tree"
        )
        assert t.condition is not None
    # Everything the body touches is a known location.
    locs = set(t.all_locations())
    for th in t.threads:
        for op in A.memory_ops(th.body):
            if hasattr(op, "loc"):
                assert op.loc in locs


def test_scope_trees_both_ways(reference):
    # herd 2015 style: scopeTree (device (work_group P0 P1 P2) (work_group P3))
    t = hrf.parse(reference / "rsp" / "RSP_Test1.litmus")
    assert [(th.dev, th.wg) for th in t.threads] == [(0, 0), (0, 0), (0, 0), (0, 1)]
    # several devices: (device (work_group P0)) (device (work_group P1))
    t = hrf.parse(reference / "rsp" / "RSP_Test12.litmus")
    assert [th.dev for th in t.threads] == [0, 1]
    # Dat3M style: P1@wg 0, dev 1
    t = hrf.parse(reference / "opencl-dat3m" / "overhauling" / "MP_ra_dev_broken.litmus")
    assert [(th.dev, th.wg) for th in t.threads] == [(0, 0), (1, 0)]


def test_operations_are_read_as_written(reference):
    t = hrf.parse(reference / "rsp" / "RSP_Test8.litmus")
    cas = [op for op in A.memory_ops(t.threads[1].body) if isinstance(op, A.Rmw)][0]
    assert (cas.op, cas.loc, cas.expected, cas.order, cas.fail_order, cas.scope, cas.remote) == (
        "cas",
        "y",
        "zero",
        "acq",
        "acq",
        "all",
        True,
    )
    t = hrf.parse(reference / "opencl-dat3m" / "overhauling" / "example6.litmus")
    fence = [op for op in A.memory_ops(t.threads[0].body) if isinstance(op, A.Fence)][0]
    assert fence.flags == ("global", "local") and fence.order == "rel" and fence.scope == "wg"
    t = hrf.parse(reference / "opencl-dat3m" / "herd" / "global_barrier.litmus")
    bars = [op for op in A.memory_ops(t.threads[0].body) if isinstance(op, A.Barrier)]
    assert [b.label for b in bars] == ["B1", "B3"]
    t = hrf.parse(reference / "rsp" / "RSP_Test7.litmus")
    assert t.region_of("y") == "local" and t.region_of("x") == "global"
    # non-explicit forms default to seq_cst (device scope is applied later)
    t = hrf.parse(reference / "opencl-herd2015" / "2+2W_xaG_yaG_sc--sc_sc--sc_0__1.litmus")
    st = [op for op in A.memory_ops(t.threads[0].body)][0]
    assert st.atomic and st.order == "sc" and st.scope is None


def test_conditions(reference):
    t = hrf.parse(reference / "rsp" / "RSP_Test12.litmus")
    assert t.condition == A.Condition("exists", A.PTrue())
    t = hrf.parse(reference / "rsp" / "RSP_Test10.litmus")
    assert t.condition.prop == A.PNot(A.PAtom(A.LocVar("x"), 3))
    t = hrf.parse("OPENCL t\n{ [x]=0; }\nP0@wg 0, dev 0 (global int* x) { *x = 1; }\n~exists (x=1 \\/ not x=2)\n")
    assert t.condition.quantifier == "~exists"
    assert t.condition.prop == A.POr((A.PAtom(A.LocVar("x"), 1), A.PNot(A.PAtom(A.LocVar("x"), 2))))


READ_TWICE = [p for p in FILES if p.read_text().split(None, 1)[0].upper() in ("C", "OPENCL", "GPU_PTX")]


@pytest.mark.parametrize("path", READ_TWICE, ids=ids(READ_TWICE))
def test_the_reader_reads_as_the_reference(path):
    # hrf's readers of the C/OpenCL and PTX syntaxes build the AST the LALR
    # readers of the executable grammars (tests/lalr) build, lines included,
    # or refuse the test with the same error (tests/test_reader_reference.py)
    import lalr
    from hrf.litmus import opencl, ptx
    from hrf.litmus.ast import structure

    text = path.read_text()
    gpu_ptx = text.startswith("GPU_PTX")

    def outcome(read):
        try:
            return structure(read(text, str(path)))
        except hrf.HrfError as e:
            return (type(e).__name__, str(e))

    mine = outcome(ptx.parse_ptx if gpu_ptx else opencl.parse_opencl)
    assert mine == outcome(lalr.parse_ptx if gpu_ptx else lalr.parse_opencl)
