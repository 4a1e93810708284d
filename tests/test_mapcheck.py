"""Mapping checks between axiomatic models (`hrf map`, hrf.mapcheck): the
atomics ABI's C11/OpenCL -> PTX mapping, its trailing-fence variant, and
planted unsound mappings, each caught with its smallest counterexample.
Verdicts come from the models; the shapes of the counterexamples are
derived next to each test."""

import pytest

import hrf
from hrf.generate import generate, litmus_text, size
from hrf.mapcheck import check_mapping, check_mappings
from hrf.mappings.axiomatic import Mapping, Row, apply
from hrf.mappings.models import get, mappings
from hrf.mappings.ptx_abi import ABI

# race-free C11 families: atomics alone (no plain access can race)
C_ORDERS = ("rlx", "acq", "rel", "sc")


def family(count=600, dialect="c", orders=C_ORDERS, scopes=("dev",), **kw):
    return generate(count=count, dialect=dialect, orders=orders, scopes=scopes, seed=4, **kw)


def verdicts(tests, mapping, source, target):
    out: dict = {}
    for t, r in zip(tests, check_mappings(tests, mapping, source, target, workers=1), strict=True):
        key = "refused" if isinstance(r, hrf.HrfError) else r.verdict
        out.setdefault(key, []).append(t)
    return out


def test_the_shipped_mappings_are_valid_and_listed():
    assert mappings() == ["ptx-abi", "ptx-abi-trailing"]
    for name in mappings():
        get(name).validate()
    assert "store sc      -> fence.sc; st.relaxed" in ABI.table()


@pytest.mark.parametrize("mapping", ["ptx-abi", "ptx-abi-trailing"])
@pytest.mark.parametrize("target", ["ptx-6.0", "ptx-7.5"])
def test_the_abi_is_sound_from_rc11(mapping, target):
    # [PTX19] proves the leading-fence mapping against (scoped) RC11; on a
    # race-free C11 family every outcome of the compiled test under the PTX
    # models is an RC11 outcome
    got = verdicts(family(max_edges=5, max_threads=3), mapping, "rc11", target)
    assert set(got) == {"sound"} and len(got["sound"]) >= 500


def test_before_the_fence_sc_fix_the_abi_was_unsound():
    # Dartagnan's reading of fence.sc (no release fence): the ABI's seq_cst
    # store, fence.sc then st.relaxed, releases nothing, and message passing
    # through it fails: P0 writes x (release), then y (seq_cst); P1 reads y
    # = 1 (acquire), then x. RC11: the release sequence of P0's SC store
    # synchronises with P1's acquire (sw), x = 1 happens before P1's read
    # of x, which must see it. Compiled: P0's st.relaxed y is no release
    # pattern's write without fence.sc in F & ACQ_REL, so no sync, and the
    # read of x may take 0.
    got = verdicts(family(max_edges=4, max_threads=2), ABI, "rc11", "ptx-7.5-dat3m")
    smallest = min(got["unsound"], key=size)
    assert smallest.name.startswith("MP+") and "_sc_" in smallest.name, smallest.name
    r = check_mapping(smallest, ABI, "rc11", "ptx-7.5-dat3m")
    assert r.verdict == "unsound" and {"1:r0": 1, "1:r1": 0} in [
        {k: v for k, v in o.items() if k in ("1:r0", "1:r1")} for o in r.extra
    ]
    # and with the ISA's fence.sc, sound
    assert check_mapping(smallest, ABI, "rc11", "ptx-7.5").verdict == "sound"


def _planted(name, key, seq):
    rows = dict(ABI.rows)
    rows[key] = Row(seq, "planted unsound")
    return Mapping(name, "planted", rows)


def test_a_seq_cst_load_without_its_leading_fence_is_caught():
    # SB with seq_cst accesses: each thread stores (fence.sc; st.relaxed)
    # then loads. Without the load's fence.sc nothing orders a thread's
    # store before its load (the store's fence comes before the store), so
    # both loads may read 0, which SC (RC11's psc) forbids.
    mp = _planted("no-leading-fence", ("load", "sc"), ("ld.acquire",))
    got = verdicts(family(max_edges=4, max_threads=2), mp, "rc11", "ptx-7.5")
    names = [t.name for t in sorted(got["unsound"], key=size)]
    assert names[:2] == ["R+sc_sc_sc_sc", "SB+sc_sc_sc_sc"]


def test_a_release_store_at_a_narrower_scope_is_caught():
    # OpenCL message passing at device scope between two work groups: the
    # release store mapped at CTA scope is not morally strong with the
    # other CTA's acquire (neither in the other's scope): no sync, the data
    # read may take 0, which OpenCL's device-scope synchronisation forbids
    mp = _planted("narrow-release", ("store", "rel"), ("st.release.cta",))
    got = verdicts(family(dialect="opencl", max_edges=4, max_threads=2), mp, "opencl", "ptx-7.5")
    smallest = min(got["unsound"], key=size)
    assert smallest.name.startswith("MP+rel.dev_rel.dev_acq.dev") and smallest.name.endswith("wg-per-thread")


def test_an_acquire_load_mapped_to_a_relaxed_one_is_caught():
    # message passing: the reader's flag load, relaxed, begins no acquire
    # pattern; the data read may take 0
    mp = _planted("acquire-relaxed", ("load", "acq"), ("ld.relaxed",))
    got = verdicts(family(max_edges=4, max_threads=2), mp, "rc11", "ptx-7.5")
    assert min(got["unsound"], key=size).name == "MP+rel_rel_acq_acq"


BDW16_SC = """C Coe-PodWW-Rfe-Fre-PodWR-Fre+sc_sc_rel_sc_sc_sc
{ [x]=0; [y]=0; }
P0 (atomic_int* x, atomic_int* y) { atomic_store_explicit(x, 1, memory_order_seq_cst); }
P1 (atomic_int* x, atomic_int* y) {
  atomic_store_explicit(x, 2, memory_order_seq_cst);
  atomic_store_explicit(y, 1, memory_order_release);
}
P2 (atomic_int* x, atomic_int* y) { int r0 = atomic_load_explicit(y, memory_order_seq_cst); }
P3 (atomic_int* x, atomic_int* y) {
  atomic_store_explicit(y, 2, memory_order_seq_cst);
  int r0 = atomic_load_explicit(x, memory_order_seq_cst);
}
exists (2:r0=1 /\\ 3:r0=1 /\\ x=2 /\\ y=2)
"""


def test_the_abi_is_not_sound_from_the_bdw16_models():
    # hrf's c11 and opencl take [BDW16]'s SC axiom, stronger than RC11's.
    # The outcome: P2 reads y = 1 (P1's release), P3 reads x = 1 though
    # x = 2 is later in mo (x ends 2), y ends 2. [BDW16]: P1's x=2 happens
    # before P2's read (release/acquire through y), so SC-before has
    # x=2 -> P2's read (hb) -> P3's y=2 (P2 reads y=1, mo-before y=2: rb)
    # -> P3's read of x (sb) -> x=2 (P3 reads x=1, mo-before x=2: rb): a
    # cycle, forbidden. RC11's psc keeps hb between SC accesses only through
    # sb on both ends of other locations' hb, so the first edge is not in
    # psc: allowed. The ABI (leading fence.sc) gives it on PTX: sound
    # against RC11, as [PTX19] proves, not against [BDW16].
    assert hrf.check(BDW16_SC, "c11").condition_holds is False
    assert hrf.check(BDW16_SC, "rc11").condition_holds is True
    r = check_mapping(BDW16_SC, ABI, "c11", "ptx-7.5")
    assert r.verdict == "unsound" and {"2:r0": 1, "3:r0": 1, "x": 2, "y": 2} in r.extra
    assert check_mapping(BDW16_SC, ABI, "rc11", "ptx-7.5").verdict == "sound"


def test_a_racy_source_is_skipped_and_a_limit_decides_nothing():
    fig5 = "litmus/hrf/hrf14-fig5-diff-wg.litmus"
    r = check_mapping(fig5, ABI, "hrf-direct", "ptx-7.5")
    assert r.verdict == "racy" and r.sound is None and "racy under hrf-direct" in r.reason
    r = check_mapping("litmus/hrf/hrf14-fig2.litmus", ABI, "opencl", "ptx-7.5", max_candidates=1)
    assert r.verdict == "limit" and r.sound is None


def test_the_compiled_test_keeps_the_source_and_reads_back():
    t = hrf.parse("litmus/hrf/hrf14-fig2.litmus")
    u = apply(t, ABI)
    assert u.arch == "PTX" and [th.name for th in u.threads] == [th.name for th in t.threads]
    r = check_mapping(t, ABI, "opencl", "ptx-7.5")
    text = r.target_text()
    # the seq_cst load of the spin loop's condition is read into a register
    # of its own, its fence before it, and again at the end of each iteration
    assert text.count("ld.acquire.gpu r0, A") == 2 and "bne r0, 0, LC01" in text and "goto LC00" in text
    # a generated test (registers r0, r1, ...) reads back as PTX
    c = family(count=1, max_edges=4, max_threads=2)[0]
    back = hrf.parse(check_mapping(c, ABI, "rc11", "ptx-7.5").target_text())
    assert back.arch == "PTX" and len(back.threads) == len(c.threads)


@pytest.mark.parametrize(
    "body, words",
    [
        ("barrier(CLK_GLOBAL_MEM_FENCE);", "a barrier"),
        ("atomic_store_explicit_remote(x, 1, memory_order_release, memory_scope_device);", "remote scope promotion"),
        ("int r0 = atomic_load(x) + atomic_load(x);", "inside an expression"),
    ],
)
def test_what_the_mapping_cannot_compile_is_refused_by_name(body, words):
    text = f"OPENCL t\n{{ [x]=0; }}\nP0@wg 0, dev 0 (global atomic_int* x) {{ {body} }}\nexists (x=0)\n"
    with pytest.raises(hrf.UnsupportedFeature, match=words):
        check_mapping(text, ABI, "opencl-rsp" if "remote" in body else "opencl", "ptx-7.5")


def test_a_mapping_file_of_ones_own(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text(
        "from hrf.mappings.axiomatic import Mapping, Row\n"
        "from hrf.mappings.ptx_abi import ABI\n"
        "MAPPING = Mapping('mine', 'the ABI, acquire loads relaxed', "
        "{**ABI.rows, ('load', 'acq'): Row(('ld.relaxed',), 'mine')})\n"
    )
    assert get(str(f)).name == "mine"
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from hrf.mappings.axiomatic import Mapping, Row\nMAPPING = Mapping('bad', '', {('load', 'acq'): Row(('st.relaxed',), 'x')})\n"
    )
    with pytest.raises(hrf.DefinitionError, match="must hold one ld"):
        get(str(bad))


def test_the_command_prints_the_smallest_counterexample(capsys, tmp_path):
    from hrf.cli import main

    rc = main(
        [
            "map",
            "--mapping",
            "ptx-abi",
            "-m",
            "rc11",
            "--target",
            "ptx-7.5-dat3m",
            "--dialect",
            "c",
            "--orders",
            "rlx,acq,rel,sc",
            "--max-edges",
            "4",
            "--max-threads",
            "2",
            "--count",
            "300",
            "--workers",
            "1",
        ]
    )
    out, err = capsys.readouterr()
    assert rc == 1
    assert "// counterexample 1: MP+" in out and "// compiled by ptx-abi:" in out and "fence.sc.gpu" in out
    assert "unsound" in err
    assert main(["map", "--mapping", "ptx-abi", "--table"]) == 0
    assert "fence.sc; ld.acquire" in capsys.readouterr().out
    # a sound run: exit 0
    t = tmp_path / "mp.litmus"
    t.write_text(litmus_text(family(count=1, max_edges=4, max_threads=2)[0]))
    assert main(["map", "--mapping", "ptx-abi", "-m", "rc11", str(t)]) == 0


def test_a_mapping_whose_rows_are_no_dict_is_a_definition_error():
    with pytest.raises(hrf.DefinitionError, match="its rows are a dict"):
        get(Mapping("m", "", [1, 2]))  # type: ignore[arg-type]
