"""herd's cat language as a model language (hrf.cat): the grammar with
herd's precedences, errors at file, line and column, a cat model compiled
to the same IR as the DSL's, and the command line's herd spellings. The
cat texts here are written for these tests; the peers' own files are the
conformance suite's (tests/conformance/test_cat_reference.py)."""

import re
import warnings
from pathlib import Path

import pytest

import hrf
from hrf import dsl
from hrf.cat import load
from hrf.cat import syntax as S
from hrf.cli import main
from hrf.models import get

CORPUS = Path(__file__).resolve().parent.parent / "litmus"


def exp(text):
    """The expression of `let e = text`."""
    (ins,) = S.parse(f"let e = {text}\n").body
    return ins.bindings[0][1]


def shape(e):
    """A syntax tree as nested tuples of operators and names."""
    if isinstance(e, S.Var):
        return e.name
    if isinstance(e, S.Op):
        return (e.op, *map(shape, e.args))
    if isinstance(e, S.Op1):
        return (e.op, shape(e.arg))
    if isinstance(e, S.App):
        return ("app", shape(e.fn), shape(e.arg))
    if isinstance(e, S.Const):
        return e.what
    raise AssertionError(e)


@pytest.mark.parametrize(
    "text, tree",
    [
        # herd's precedences (lib/modelParser.mly): | < ++ < ; < \ < & < * + ? ~ < ^
        ("a & b; c", ("seq", ("inter", "a", "b"), "c")),
        ("a | b; c", ("union", "a", ("seq", "b", "c"))),
        ("a; b | c", ("union", ("seq", "a", "b"), "c")),
        ("a \\ b \\ c", ("diff", ("diff", "a", "b"), "c")),
        ("a \\ b & c", ("diff", "a", ("inter", "b", "c"))),
        ("a; b; c", ("seq", "a", ("seq", "b", "c"))),
        ("W * M & loc", ("inter", ("cartesian", "W", "M"), "loc")),
        ("(a | b)* ; c", ("seq", ("star", ("union", "a", "b")), "c")),
        ("po+ | rf?", ("union", ("plus", "po"), ("opt", "rf"))),
        ("rf^-1 ; co", ("seq", ("inv", "rf"), "co")),
        ("~a & b", ("inter", ("comp", "a"), "b")),
        ("~a^-1", ("comp", ("inv", "a"))),  # ^ binds tighter than ~
        ("!s_all", ("comp", "s_all")),  # herd 2015's complement
        ("mo_sc^2", ("square", "mo_sc")),  # herd 2015's s^2
        ("[R]; po; [W]", ("seq", ("toid", "R"), ("seq", "po", ("toid", "W")))),
        ("f(x) | g y", ("union", ("app", "f", "x"), ("app", "g", "y"))),
        ("_ * W", ("cartesian", "universe", "W")),
        ("0 | po", ("union", "empty", "po")),
    ],
)
def test_precedences_are_herds(text, tree):
    assert shape(exp(text)) == tree


def test_comments_titles_and_options():
    cat = S.parse(
        '"My model"\nwithoutsc\n(* a (* nested *) comment *)\n{%(* LaTeX\n for the paper %*)}\n'
        "// a line comment\nacyclic po | rf as sc (* trailing *)\n"
    )
    assert cat.title == "My model" and cat.options == ("withoutsc",)
    (t,) = cat.body
    assert (t.kind, t.name, t.line) == ("acyclic", "sc", 7)


def test_names_with_dots_dashes_and_primes():
    assert shape(exp("po-loc | membar.cta | scp'")) == ("union", "po-loc", ("union", "membar.cta", "scp'"))


@pytest.mark.parametrize(
    "text, where, message",
    [
        ("X\nlet a = po |\n", (3, 1), "expected an expression"),
        ("X\nlet a = po $ rf\n", (2, 12), "unexpected character '$'"),
        ("X\nacyclic po as\n", (3, 1), "expected a name"),
        ("X\n(* never closed\nlet a = po\n", (2, 1), "comment (* not closed"),
        ("X\nlet a = po\nacyclic a | nosuch as x\n", (3, 13), "unknown name 'nosuch'"),
        ("X\nlet a = R | po\n", (2, 11), "'|' between a set and a relation"),
        ("X\nacyclic R * po\n", (2, 11), "cartesian product takes two sets"),
    ],
)
def test_errors_name_file_line_and_column(tmp_path, text, where, message):
    f = tmp_path / "bad.cat"
    f.write_text(text)
    with pytest.raises(hrf.DefinitionError, match=re.escape(message)) as e:
        load(f)
    assert (e.value.file, e.value.line, e.value.column) == (str(f), *where)


@pytest.mark.parametrize(
    "text, what",
    [
        ("X\nlet rec a = po | b and b = a\n", "let rec"),
        ("X\nforall e in W do acyclic po end\n", "'forall'"),
        ("X\n~acyclic po\n", "negated check"),
        ("X\nassert acyclic po\n", "assert"),
    ],
)
def test_constructs_without_a_meaning_are_refused_by_name(tmp_path, text, what):
    f = tmp_path / "m.cat"
    f.write_text(text)
    with pytest.raises(hrf.UnsupportedFeature, match=what) as e:
        load(f)
    assert e.value.line == 2


def test_include_searches_beside_the_file_then_catdir(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "base.cat").write_text('"base"\nlet com = rf | co | fr\n')
    (tmp_path / "m.cat").write_text('"m"\ninclude "base.cat"\nacyclic po | com as sc\n')
    with pytest.raises(hrf.DefinitionError, match="cannot find 'base.cat'.*--catdir"):
        load(tmp_path / "m.cat")
    m = load(tmp_path / "m.cat", catdir=[str(lib)])
    assert [c.name for c in m.checks] == ["sc"]
    (lib / "loop.cat").write_text('"l"\ninclude "loop.cat"\n')
    with pytest.raises(hrf.DefinitionError, match="includes itself"):
        load(lib / "loop.cat")


SC_CAT = """SC
(* Lamport's SC: one order of all memory events that po and the
   communication relations respect; RMWs atomic. *)
let com = rf | co | fr
acyclic po | com as sc
empty rmw & (fre; coe) as atomicity
"""


def test_a_cat_model_compiles_to_the_ir_of_the_same_dsl_model(tmp_path):
    # The core cannot tell which language a model came from.
    f = tmp_path / "sc.cat"
    f.write_text(SC_CAT)
    cat = load(f)
    m = dsl.Model("sc.cat")
    m.acyclic(dsl.po | (dsl.rf | (dsl.co | dsl.fr)), "sc")
    m.empty(dsl.rmw & ((dsl.fr & dsl.ext) >> (dsl.co & dsl.ext)), "atomicity")
    assert cat.ir() == m.ir()


def test_a_cat_sc_gives_hrfs_sc_verdicts(tmp_path):
    # Property: the cat text of SC and hrf's `sc` (same axioms, written in
    # each language) agree on the corpus and on generated tests, outcome
    # by outcome.
    f = tmp_path / "sc.cat"
    f.write_text(SC_CAT)
    tests = [str(p) for p in sorted((CORPUS / "hrf").glob("*.litmus"))]
    tests += hrf.generate(count=150, seed=11, max_edges=4, max_threads=3)
    mine, theirs = get("sc"), get(str(f))
    n = 0
    for t in tests:
        try:
            a = hrf.check(t, mine)
        except hrf.UnsupportedFeature:
            continue
        b = hrf.check(t, theirs)
        assert (sorted(map(str, a.outcomes)), a.condition_holds) == (sorted(map(str, b.outcomes)), b.condition_holds)
        n += 1
    assert n > 150


def test_cat_models_on_the_command_line(tmp_path, capsys):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "com.cat").write_text('"c"\nlet com = rf | co | fr\n')
    (tmp_path / "sc.cat").write_text('"SC"\ninclude "com.cat"\nacyclic po | com as sc\n')
    test = str(CORPUS / "hrf" / "hrf14-fig6.litmus")
    # herd's spellings: -model, -I, -initwrites true
    assert main(["check", test, "-model", str(tmp_path / "sc.cat"), "-I", str(lib), "-initwrites", "true"]) == 0
    out = capsys.readouterr().out
    assert "Model sc.cat" in out and "Observation hrf14-fig6 Always 9 0" in out
    assert main(["check", test, "-m", str(tmp_path / "sc.cat"), "--catdir", str(lib)]) == 0
    assert main(["check", test, "-m", str(tmp_path / "sc.cat"), "-initwrites", "false"]) == 2
    assert "always makes the initial values writes" in capsys.readouterr().err
    assert main(["check", test, "-m", str(tmp_path / "missing.cat")]) == 1


def test_the_shipped_cat_example_is_sc(tmp_path):
    # litmus/cat/sc.cat (the README's example, shipped with hrf, read from
    # the package when there is no litmus/ folder here) says what SC_CAT says.
    f = tmp_path / "sc.cat"
    f.write_text(SC_CAT)
    assert load("litmus/cat/sc.cat").ir() == load(f).ir()


def _tree(ir, i, interned, env=(), memo=None):
    """IR node i as a canonical id: equal ids for equal trees (hash-consed
    in `interned`, shared by the IRs compared, so that a DAG with much
    sharing is not unfolded), foreach variables named by their depth (each
    compilation names them afresh)."""
    memo = {} if memo is None else memo
    if (i, env) in memo:
        return memo[(i, env)]
    n = ir["nodes"][i]
    if n["op"] == "var":
        shape: tuple = ("var", len(env) - env.index(n["name"]) if n["name"] in env else n["name"])
    elif n["op"] == "foreach":
        shape = ("foreach", n["attr"], _tree(ir, n["body"], interned, env + (n["var"],), memo))
    else:
        shape = (n["op"],) + tuple(
            _tree(ir, n[k], interned, env, memo) if k in ("a", "b", "body") else n[k] for k in sorted(n) if k != "op"
        )
    memo[(i, env)] = out = interned.setdefault(shape, len(interned))
    return out


def _canonical(ir, interned):
    memo: dict = {}
    return (
        [(c["kind"], c["name"], c["flag"], _tree(ir, c["node"], interned, memo=memo)) for c in ir["checks"]],
        [(o["name"], _tree(ir, o["set"], interned, memo=memo)) for o in ir["orders"]],
        [(name, _tree(ir, node, interned, memo=memo)) for name, node in ir["shows"]],
    )


@pytest.mark.parametrize("name", hrf.models())
def test_every_shipped_model_printed_as_cat_reads_back_to_its_ir(tmp_path, name, capsys):
    # `hrf models --cat NAME`, read back by the cat front end: the same
    # checks over the same expressions, witness orders and shows (so the
    # same verdicts on every test), the same thin-air and CAS options.
    assert main(["models", "--cat", name]) == 0
    f = tmp_path / f"{name}.cat"
    f.write_text(capsys.readouterr().out)
    mine, back = get(name), load(f)
    interned: dict = {}
    assert _canonical(back.ir(), interned) == _canonical(mine.ir(), interned)
    assert (back.thin_air, back.cas_writeback) == (mine.thin_air, mine.cas_writeback)


def test_printed_models_give_the_same_verdicts(tmp_path):
    # The IR identity above decides it; checked end to end on the corpus and
    # generated tests for the models with witness orders and foreach.
    from hrf.cat.printer import to_cat

    tests = [str(p) for p in sorted((CORPUS / "hrf").glob("*.litmus"))]
    tests += hrf.generate(count=40, seed=3, max_edges=4, max_threads=3)
    for name in ("hrf-direct", "hrf-indirect-relaxed", "opencl-rsp"):
        f = tmp_path / f"{name}.cat"
        f.write_text(to_cat(get(name)))
        for t in tests:
            try:
                a = hrf.check(t, name)
            except hrf.UnsupportedFeature:
                continue
            b = hrf.check(t, str(f))
            assert (sorted(map(str, a.outcomes)), a.condition_holds, a.racy) == (
                sorted(map(str, b.outcomes)),
                b.condition_holds,
                b.racy,
            ), (name, t)


HRF_CORPUS = sorted((Path(__file__).resolve().parent.parent / "litmus" / "hrf").glob("*.litmus"))


def _verdicts(model):
    return [(r.name, r.condition_holds, r.error is None) for r in hrf.check_many(HRF_CORPUS, [model], workers=1)]


def test_recursive_functions_and_match_are_read(tmp_path):
    # Recursive functions (as herd's libraries define them) are closures that
    # see themselves; unused, they cost nothing. A `let rec` of a relation is
    # its least fixed point; of several relations together, UnsupportedFeature.
    lib = tmp_path / "lib.cat"
    lib.write_text(
        "Lib\nlet count =\n  let rec walk (k, xs) = match xs with\n  || {} -> k\n  || x ++ rest ->\n"
        "      let rec inner (k, ys) = match ys with || {} -> k || y ++ zs -> inner (k, zs) end in\n"
        "      walk (inner (k, x), rest)\n  end in\n  fun xs -> walk (0, xs)\n"
    )
    model = tmp_path / "m.cat"
    model.write_text('M\ninclude "lib.cat"\nacyclic po | rf | co | fr as sc\n')
    assert _verdicts(str(model)) == _verdicts("sc")
    # `let rec r = e` is the least fixed point of e: here (po|rf|co|fr)+, so
    # that `irreflexive r` is SC's acyclicity (one round from the empty
    # relation, po|rf|co|fr alone, is irreflexive in every execution)
    (tmp_path / "fix.cat").write_text("F\nlet rec r = (po | rf | co | fr) | (r ; r)\nirreflexive r as sc\n")
    assert _verdicts(str(tmp_path / "fix.cat")) == _verdicts("sc")
    assert sum(not holds for _, holds, _ in _verdicts("sc")) > 0  # some test tells them apart
    (tmp_path / "two.cat").write_text("F\nlet rec r = po | s and s = r ; r\nacyclic r\n")
    with pytest.raises(hrf.UnsupportedFeature, match="least fixed point"):
        load(str(tmp_path / "two.cat"))


def test_generate_orders_of_writes_is_coherence(tmp_path):
    # herd's generate_orders(S, r) makes one order per location of S that
    # extends r; over writes from the initial ones on (co0), every such
    # order is hrf's coherence cut to S: SC written with it is SC.
    m = tmp_path / "sc_mo.cat"
    m.write_text(
        "SCmo\nwith mo from generate_orders(W, co0)\nlet fr2 = (rf^-1 ; mo) \\ id\nacyclic po | rf | mo | fr2 as sc\n"
    )
    assert _verdicts(str(m)) == _verdicts("sc")
    # over an empty set (herd's lock sets: hrf has no locks) the order is empty
    e = tmp_path / "locks.cat"
    e.write_text("L\nwith lo from generate_orders(LS, po)\nacyclic po | rf | co | fr | lo as sc\n")
    assert _verdicts(str(e)) == _verdicts("sc")


def test_complement_of_nothing_is_everything_of_either_kind(tmp_path):
    m = tmp_path / "c.cat"
    m.write_text(
        "C\nlet all_rel = po & ~0\nlet all_set = W & ~0\nacyclic (all_rel | rf | co | fr) & (all_set * _ | _ * _) as sc\n"
    )
    assert _verdicts(str(m)) == _verdicts("sc")


def test_herd_library_includes_fall_back_to_hrfs_stand_ins(tmp_path):
    # A file including c11_cos.cat compiles without herd's library (hrf's
    # stand-in, litmus/cat/herd-compat); a folder given with --catdir wins.
    from hrf.cat.compile import HERD_COMPAT

    m = tmp_path / "uses_cos.cat"
    m.write_text('U\ninclude "c11_cos.cat"\nacyclic po | rf | mo | fr as sc\n')
    with pytest.warns(hrf.errors.StandInWarning, match="c11_cos.cat"):
        stand_in = _verdicts(str(m))
    assert stand_in == _verdicts(load(str(m), [str(HERD_COMPAT)]))
    mine = tmp_path / "lib"
    mine.mkdir()
    (mine / "c11_cos.cat").write_text("Mine\nlet mo = 0\nlet fr = 0\n")  # po | rf alone: weaker
    with warnings.catch_warnings():
        warnings.simplefilter("error", hrf.errors.StandInWarning)  # none: the file is at hand
        assert _verdicts(load(str(m), [str(mine)])) != stand_in


def test_a_stand_in_is_a_note_on_the_command_line(tmp_path, capsys):
    m = tmp_path / "uses_cos.cat"
    m.write_text('U\ninclude "c11_cos.cat"\nacyclic po | rf | mo | fr as sc\n')
    assert main(["check", str(HRF_CORPUS[0]), "-m", str(m)]) in (0, 1)
    err = capsys.readouterr().err
    assert "hrf: note:" in err and "stand-in" in err and "c11_cos.cat" in err


def test_variants_choose_the_branch_of_an_if(tmp_path):
    # herd's `if "name" ... else ... end` on the variants asked for (-variant).
    m = tmp_path / "v.cat"
    m.write_text('V\nif "strong" & ~"weak"\n  acyclic po | rf | co | fr as sc\nelse\n  acyclic po as weak\nend\n')
    strong, weak = load(str(m), variants=["strong"]), load(str(m))
    assert [c.name for c in strong.checks] == ["sc"] and [c.name for c in weak.checks] == ["weak"]
    assert [c.name for c in load(str(m), variants=["strong", "weak"]).checks] == ["weak"]
    assert _verdicts(strong) == _verdicts("sc")
    fig = str(HRF_CORPUS[0])
    assert main(["check", fig, "-model", str(m), "-variant", "strong"]) == main(["check", fig, "-m", "sc"])


# Two relaxed fetch-and-adds of one location: x=1 is a lost update.
ADDS = """C adds
{ [x]=0; }
P0 (atomic_int* x) { int r0 = atomic_fetch_add_explicit(x, 1, memory_order_relaxed); }
P1 (atomic_int* x) { int r0 = atomic_fetch_add_explicit(x, 1, memory_order_relaxed); }
exists (x=1)
"""


def test_single_event_rmws_are_herds_events(tmp_path):
    # SC over herd's events, with no atomicity axiom: `acyclic po|rf|co|fr`.
    # Over herd's single-event RMWs e0 and e1 (both read 0), x=1 needs
    # co(e0, e1) and fr(e1, e0), a cycle: forbidden. Over hrf's halves
    # r0 w0 r1 w1 the same edges (co w0->w1, fr r1->w0, fr r0->w1, po
    # r->w) have no cycle: allowed. The file is read over single events
    # when asked, or when it says so by its use of `rmw` as a set or R & W.
    m = tmp_path / "sc_events.cat"
    m.write_text("SC\nacyclic po | rf | co | fr as sc\n")
    test = hrf.parse(ADDS)
    assert not hrf.check(test, load(str(m), single_rmw=True)).condition_holds
    assert hrf.check(test, load(str(m))).condition_holds
    for use in ("let a = [rmw]", "let a = R & W", "let a = W & R"):
        m.write_text(f"SC\n{use}\nacyclic po | rf | co | fr as sc\n")
        assert "herd's RMWs as one event" in load(str(m)).doc
        assert not hrf.check(test, load(str(m))).condition_holds
    m.write_text("SC\nlet a = rmw\nacyclic po | rf | co | fr | a as sc\n")  # rmw as a relation
    assert "one event" not in load(str(m)).doc


def test_single_event_view_keeps_reading_ones_own_write_and_drops_inner_pairs(tmp_path):
    # herd forbids an RMW reading its own write by `irreflexive rf`: over
    # single events hrf's rf from an RMW's write to its own read is that
    # self-loop. po and fr between the halves of one RMW are no pairs of
    # herd's events: `irreflexive po | fr` holds of every execution, so
    # this file is SC with RMW atomicity (herd 2015's opencl.cat axiom).
    m = tmp_path / "atomic.cat"
    m.write_text(
        "A\nlet r = [rmw]\nirreflexive po | fr as inner\nirreflexive rf | (fr;co) | (co;rf) as rmw_atomic\n"
        "acyclic po | rf | co | fr as sc\n"
    )
    model = load(str(m))
    assert "one event" in model.doc
    r = hrf.check(hrf.parse(ADDS), model)
    assert sorted(map(str, r.outcomes)) == sorted(map(str, hrf.check(hrf.parse(ADDS), "sc").outcomes))
    assert not r.condition_holds


def test_cas_writeback_is_an_option_of_the_front_end(tmp_path, capsys):
    m = tmp_path / "sc.cat"
    m.write_text("SC\nacyclic po | rf | co | fr as sc\n")
    # unset: each instruction as its language says (C's compare-exchange
    # writes back, PTX's atom.cas does not); on or off: every one alike
    assert load(str(m)).cas_writeback is None
    assert load(str(m), cas_writeback=False).cas_writeback is False
    assert load(str(m), cas_writeback=True).cas_writeback is True
    fig = str(HRF_CORPUS[0])
    assert main(["check", fig, "-m", str(m), "--cas-writeback", "off"]) == 0


def test_generated_coherence_and_lock_orders_over_single_event_rmws(tmp_path):
    # herd7's C11 library generates mo per location over the atomic and
    # initial writes (`with mo from generate_orders(W & (A | IW), co0)`)
    # and a lock order over lock events (none in C tests); a file in that
    # shape, read over herd's single-event RMWs (it names `rmw` as a set),
    # must give coherence cut to those writes -- no witness order -- so a
    # flag reading mo is allowed, and a fetch_add chain keeps its
    # executions. (Written here in hrf's words; the shape is herd7's.)
    m = tmp_path / "gen.cat"
    m.write_text(
        "C gen\n"
        "let mobase = co0\n"
        "with mo from generate_orders(W & (A | IW), mobase)\n"
        "with lk from generate_orders(LS, po)\n"
        "let fr = (rf^-1; mo) \\ id\n"
        "let rmwev = R & W\n"  # herd's RMW events: read over single-event RMWs
        "acyclic po | rf | mo | fr as sc\n"
        "undefined_unless empty ((mo & ext) \\ (A * A)) \\ (rmwev * rmwev) as Dr\n"
    )
    model = load(str(m))
    text = (
        "C adds\n{ [x]=0; }\n"
        "P0 (atomic_int* x) { int r0 = atomic_fetch_add_explicit(x, 1, memory_order_relaxed); }\n"
        "P1 (atomic_int* x) { int r0 = atomic_fetch_add_explicit(x, 1, memory_order_relaxed); }\n"
        "forall (x=2)\n"
    )
    r = hrf.check(text, model)
    # herd's single-event RMWs: both reading 0 puts each RMW fr-before the
    # other, a cycle; the two increments in either mo order remain, x ends
    # 2 in each (no execution lost to an order the reading left out)
    assert r.condition_holds is True and r.consistent == 2 and not r.flags
