"""What crosses into the Rust core is checked there: a misspelt or unknown
field anywhere in the program IR, the model IR, the limits or a machine
program is an error naming it (the core never ignores a key)."""

import json

import pytest

import hrf
from conftest import ROOT
from hrf import core
from hrf.api import Limits
from hrf.models import get
from hrf.program import compile_test

FIG6 = ROOT / "litmus" / "hrf" / "hrf14-fig6.litmus"
MACHINE = ROOT / "litmus" / "machine" / "corrupt-mp-rsp-old.litmus"


def _check(program: dict, model: dict, limits: dict) -> dict:
    """The core's whole reply: its outcomes, given apart, put back."""
    raw, outcomes, n = core.check(json.dumps(program), json.dumps(model), json.dumps(limits))
    reply = json.loads(raw)
    if "ok" in reply:
        assert reply["ok"]["outcomes"] == []
        keys = ("values", "count", "positive", "flagged", "witness")
        reply["ok"]["outcomes"] = [dict(zip(keys, row, strict=True)) for row in json.loads(outcomes)]
        assert len(reply["ok"]["outcomes"]) == n
    else:
        assert (outcomes, n) == ("[]", 0)
    return reply


def _inputs():
    model = get("hrf-direct")
    program = json.loads(compile_test(hrf.parse(FIG6), 2).json())
    return program, json.loads(model.ir_json()), json.loads(Limits().core_json(model))


def test_the_inputs_as_built_are_accepted():
    program, model, limits = _inputs()
    assert "ok" in _check(program, model, limits)


# (where, how to misspell it in place)
PROGRAM_TYPOS = [
    ("program", lambda p: p.update(nmae=p["name"])),
    ("location", lambda p: p["locations"][0].update(intt=0)),
    ("thread", lambda p: p["threads"][0].update(atrs={})),
    ("instruction", lambda p: p["threads"][0]["code"][0].update(scope="wg")),
    ("expression", lambda p: p["threads"][0]["code"][0]["val"].update(value=1)),
    ("event template", lambda p: p["templates"][0].update(tag=[])),
]


@pytest.mark.parametrize("where, typo", PROGRAM_TYPOS, ids=[w for w, _ in PROGRAM_TYPOS])
def test_an_unknown_field_of_the_program_ir_is_named(where, typo):
    program, model, limits = _inputs()
    typo(program)
    reply = _check(program, model, limits)
    assert "unknown field" in reply["error"] and "program IR" in reply["error"], where
    new = set(json.dumps(program).split('"')) - set(json.dumps(_inputs()[0]).split('"'))
    assert any(f"`{k}`" in reply["error"] for k in new), reply["error"]


MODEL_TYPOS = [
    ("model", lambda m: m.update(check=[])),
    ("node", lambda m: m["nodes"][0].update(nam="A")),
    ("check", lambda m: m["checks"][0].update(flags=None)),
]


@pytest.mark.parametrize("where, typo", MODEL_TYPOS, ids=[w for w, _ in MODEL_TYPOS])
def test_an_unknown_field_of_the_model_ir_is_named(where, typo):
    program, model, limits = _inputs()
    typo(model)
    reply = _check(program, model, limits)
    assert "model IR" in reply["error"] and "unknown field" in reply["error"], where


def test_a_misspelt_limit_is_named():
    program, model, limits = _inputs()
    limits["max_candidate"] = 1
    reply = _check(program, model, limits)
    assert "limits" in reply["error"] and "`max_candidate`" in reply["error"] and reply["kind"] == "decode"


MACHINE_TYPOS = [
    ("machine program", lambda p: p.update(writeback_="fifo")),
    ("machine thread", lambda p: p["threads"][0].update(work_group=0)),
    ("machine instruction", lambda p: p["threads"][0]["code"][0].update(reg=0)),
]


@pytest.mark.parametrize("where, typo", MACHINE_TYPOS, ids=[w for w, _ in MACHINE_TYPOS])
def test_an_unknown_field_of_a_machine_program_is_named(where, typo):
    prog = hrf.parse_machine(MACHINE.read_text()).ir("fifo", True)
    typo(prog)
    reply = core.explore(json.dumps(prog), json.dumps({"max_states": 1000}), 1)
    assert "machine program" in reply["error"] and "unknown field" in reply["error"], where


def test_a_misspelt_explore_limit_is_named():
    prog = hrf.parse_machine(MACHINE.read_text()).ir("fifo", True)
    reply = core.explore(json.dumps(prog), json.dumps({"max_state": 1000}), 1)
    assert "`max_state`" in reply["error"]


def test_core_errors_carry_their_kind():
    program, model, limits = _inputs()
    program["threads"][0]["code"][0]["loc"] = 99  # decodes, but no such location
    reply = _check(program, model, limits)
    assert reply["kind"] == "invalid", reply
    with pytest.raises(hrf.CoreError) as e:
        hrf.check(
            "\n".join(
                ["OPENCL big", "{ [x]=0; }"]
                + [
                    f"P{t}@wg 0, dev 0 (global atomic_int* x) {{ {' '.join(['atomic_store(x, 1);'] * 17)} }}"
                    for t in range(8)
                ]
                + ["exists (x=1)"]
            ),
            "sc",
        )
    assert e.value.kind == "unsupported" and "137 events; the core handles at most 128" in str(e.value)


def wide_mp(n: int) -> str:
    """MP through n data locations: P0 stores 1 to x0..x(n-1), then to f;
    P1 reads f, then x0. 2n + 4 events (n + 1 initial writes)."""
    xs = [f"x{i}" for i in range(n)] + ["f"]
    params = ", ".join(f"atomic_int* {x}" for x in xs)
    return (
        "C wide\n{ " + " ".join(f"[{x}]=0;" for x in xs) + " }\n"
        f"P0 ({params}) {{ " + " ".join(f"atomic_store({x}, 1);" for x in xs) + " }\n"
        f"P1 ({params}) {{ int r0 = atomic_load(f); int r1 = atomic_load(x0); }}\n"
        "exists (1:r0=1 /\\ 1:r1=0)\n"
    )


@pytest.mark.parametrize("model", ["sc", "c11"])
def test_an_execution_of_more_than_64_events_is_checked_with_wider_sets(model):
    # 34 data locations: 72 events, past one 64-bit word. By hand (MP with
    # seq_cst atomics, under SC and C11 alike): r0 = 1 reads P0's last
    # store, after which x0 = 1 in every order: 1:r0=1 /\ 1:r1=0 never
    # happens; the other three outcomes do. The reference enumerator agrees.
    r = hrf.check(wide_mp(34), model)
    ref = hrf.check(wide_mp(34), model, reference=True)
    got = sorted((o["1:r0"], o["1:r1"]) for o in r.outcomes)
    assert r.complete and r.condition_holds is False and got == [(0, 0), (0, 1), (1, 1)]
    assert sorted(map(str, ref.outcomes)) == sorted(map(str, r.outcomes))
    # the executions kept are whole: all 72 events
    kept = hrf.check(wide_mp(34), model, keep_all=True).executions
    assert len(kept) == r.consistent and all(len(x["events"]) == 72 for x in kept)


def _variants(schema: dict):
    """(tag, variant schema) of a tagged enum's schema; [] for a struct or a
    plain string enum."""
    out = []
    for v in schema.get("oneOf", []):
        if v.get("type") == "object":
            (tag,) = [p["enum"][0] for p in v["properties"].values() if "enum" in p and len(p["enum"]) == 1]
            out.append((tag, v))
    return out


def test_hrf_ir_mirrors_every_type_the_core_reads_and_writes():
    # Each class of hrf/ir.py has exactly the fields of the Rust type it
    # mirrors, the same ones required, checked against the JSON Schema the
    # core derives from its types: a field added, renamed or removed on one
    # side fails here.
    from hrf import _core, ir

    schemas = json.loads(_core.ir_schema())
    checked = set()
    for root, schema in schemas.items():
        for name, d in [(root, schema), *schema.get("definitions", {}).items()]:
            variants = _variants(d)
            if variants:
                items = [((name, tag), v) for tag, v in variants]
            elif d.get("type") == "object":
                items = [((root, name) if (root, name) in ir.MIRRORS else name, d)]
            else:
                continue  # a plain enum of strings
            for key, v in items:
                assert key in ir.MIRRORS, f"hrf/ir.py has no class for {key}"
                cls = ir.MIRRORS[key]
                fields = set(cls.__required_keys__ | cls.__optional_keys__)
                assert fields == set(v["properties"]), (key, fields ^ set(v["properties"]))
                assert set(cls.__required_keys__) == set(v.get("required", [])), key
                checked.add(key)
    assert checked == set(ir.MIRRORS), set(ir.MIRRORS) - checked


def test_the_core_stub_names_every_function_of_the_core():
    import re
    from pathlib import Path

    from hrf import _core

    stub = (Path(hrf.__file__).parent / "_core.pyi").read_text()
    declared = set(re.findall(r"^def (\w+)\(", stub, re.M))
    exported = {n for n in dir(_core) if not n.startswith("_") and callable(getattr(_core, n))}
    assert declared == exported
