"""test_benchmarks: the scaling benchmark's explorer part, on [RSP15]'s
RSP_Test9 (the peers' reference data)."""

import re

from reference import REFERENCE

from test_benchmarks import bench_scale, table_rows


def test_bench_scale_explorer_runs_whole():
    out = bench_scale("--count", "20", "--states", "20000", "--repeat", "1", "--rsp", str(REFERENCE / "rsp"))
    rows = table_rows(out, "explorer: RSP_Test9 under rsp-new")
    assert [r[0] for r in rows] == ["1", "2"] and all(float(r[2]) > 0 for r in rows)
    assert re.search(r"serial: [\d.]+% of 1 worker's time", out)
