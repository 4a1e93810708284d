"""Isabelle/HOL export (the README's Isabelle section): executions, model definitions and
mapping lemmas as theories importing the base theories of
`isabelle_export/` (copied into the output directory, so that it builds on
its own as a session: `isabelle build -D DIR`).

- One theory per test and model: every candidate execution hrf enumerated
  (up to `max_executions`, the rest counted and named in the theory), each
  as concrete finite sets, with a lemma for its consistency or
  inconsistency and, when consistent, its race-freedom or racing pair,
  proved `by eval` (finite, executable definitions).
- SC, HRF-direct and HRF-indirect are the hand-written definitions of
  `Hrf_Models.thy`; any other model is translated from hrf's DSL into a
  theory `Model_<name>` of its own, a witness order as "some total order of
  its set" (`total_orders` of Hrf_Execution, executable).
- One theory per scheme: its rows as data over `Hrf_Machine`, a lemma per
  row (the row implements its source operation) and the scheme's soundness,
  stated over `Hrf_Mapping` and left as stubs (`sorry`, marked so).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import mappings as _mappings
from .api import Limits, check_compiled, limits_from
from .dsl import Model
from .errors import OutputError, UnsupportedFeature, check_whole, make_folder, write_output
from .litmus import parse
from .litmus.printer import format_state, to_litmus
from .machine.instructions import ISABELLE_SCOPES, SCOPE_NAMES, isabelle_term, mnemonic, row_of
from .models import get as _get_model
from .program import compile_test

BASE_DIR = Path(__file__).parent / "isabelle_export"
BASE_THEORIES = ("Hrf_Execution", "Hrf_Models", "Hrf_Machine", "Hrf_Closure", "Hrf_Mapping")
SESSION = "Hrf_Export"


def safe_name(text: str, prefix: str = "T") -> str:
    """An Isabelle identifier for `text`: letters, digits and single
    underscores, starting with a letter (`prefix` is put in front of
    anything else)."""
    s = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")
    if not s or not s[0].isalpha():
        s = f"{prefix}_{s}" if s else prefix
    return s


def _str(s: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_]+", s):
        raise UnsupportedFeature(f"cannot write {s!r} as an Isabelle string literal")
    return f"''{s}''"


def _set(items) -> str:
    items = list(items)
    return "{" + ", ".join(str(x) for x in items) + "}" if items else "{}"


def _list(items) -> str:
    return "[" + ", ".join(str(x) for x in items) + "]"


def _pairs(pairs) -> str:
    return _set(f"({a}, {b})" for a, b in sorted(map(tuple, pairs)))


def _text(s: str) -> str:
    """A text block's body: no backslash (it would start a symbol, maybe a
    closing cartouche) and no antiquotation."""
    return s.replace("\\", "\\<backslash>").replace("@{", "@ {")


def _arg(t: str) -> str:
    """A term as a function argument: parenthesised unless atomic."""
    if " " not in t:
        return t
    depth = 0
    for i, ch in enumerate(t):
        depth += (ch == "(") - (ch == ")")
        if depth == 0:
            return t if t[0] == "(" and i == len(t) - 1 else f"({t})"
    return f"({t})"


# ------------------------------------------------------------------ models
@dataclass
class ModelTheory:
    """How a model appears in Isabelle: the theory defining it, its
    consistency predicate, and one constant per flag check."""

    theory: str
    consistent: str
    flags: dict  # check name -> (constant, kind)
    text: str | None = None  # the theory's text, for DSL-translated models
    # For a model with witness orders: the rule that proves consistency from
    # one given order per witness order, and its variables (order name ->
    # variable), so that an execution hrf found consistent is proved with
    # the order hrf found instead of a search through n! orders.
    intro: str | None = None
    order_vars: dict | None = None


# Hand-written in Hrf_Models.thy, next to the DSL files they mirror: the
# consistency predicate and, per DSL check, its kind and the constant
# that stands for its relation (tests compare these with the DSL).
_SC_CHECKS = {"sc": ("acyclic", "sc_order"), "atomicity": ("empty", "atomicity_violation")}
HANDWRITTEN = {
    "sc": ("sc_consistent", _SC_CHECKS),
    "hrf-direct": ("hrf_direct_consistent", {**_SC_CHECKS, "heterogeneous_race": ("empty", "hrf_direct_race")}),
    "hrf-indirect": ("hrf_indirect_consistent", {**_SC_CHECKS, "heterogeneous_race": ("empty", "hrf_indirect_race")}),
}

# DSL base relations -> Hrf_Execution constants (applied to the execution X).
_BASES = {
    "po": "po",
    "rf": "rf",
    "co": "co",
    "fr": "fr",
    "rmw": "rmw",
    "loc": "loc",
    "int": "int_r",
    "ext": "ext_r",
    "id": "id_r",
    "universal": "universal",
    "data": "data",
    "ctrl": "ctrl",
    "addr": "addr",
}
_BINARY = {
    "set_union": "\\<union>",
    "set_inter": "\\<inter>",
    "set_diff": "-",
    "union": "\\<union>",
    "inter": "\\<inter>",
    "diff": "-",
    "seq": "O",
    "prod": "\\<times>",
}


def model_theory(model: str | Model) -> ModelTheory:
    """The Isabelle form of a model: the hand-written one for SC and HRF,
    else a theory translated from the DSL (constants prefixed with the
    model's name)."""
    m = _get_model(model)
    if m.name in HANDWRITTEN:
        consistent, checks = HANDWRITTEN[m.name]
        flags = {c.name: (checks[c.name][1], checks[c.name][0]) for c in m.checks if c.flag}
        return ModelTheory("Hrf_Models", consistent, flags)
    ir = m.ir()
    nodes = ir["nodes"]
    # Witness orders ([HRFR15] Fig. 9's sc): a variable of each definition
    # that reads one, bound by the consistency's "some total order of ...".
    orders = {o["name"]: f"ORD_{safe_name(o['name'], 'O').upper()}" for o in ir["orders"]}
    for d in nodes:
        if d["op"] == "base" and d["name"] not in _BASES and d["name"] not in orders:
            raise UnsupportedFeature(f"model {m.name}: base relation {d['name']} is not exported to Isabelle")
    prefix = safe_name(m.name, "M").lower()
    theory = f"Model_{safe_name(m.name, 'M')}"
    # Free variables of each node (foreach binds its own).
    fv: list = []
    ov: list = []  # the witness orders each node reads
    for d in nodes:
        ov.append(
            {d["name"]}
            if d["op"] == "base" and d["name"] in orders
            else set().union(*(ov[d[k]] for k in ("a", "b", "body") if k in d))
        )
        if d["op"] == "var":
            fv.append({d["name"]})
        elif d["op"] == "foreach":
            fv.append(fv[d["body"]] - {d["var"]})
        else:
            fv.append(set().union(*(fv[d[k]] for k in ("a", "b") if k in d)))
    uses = [0] * len(nodes)
    for d in nodes:
        for k in ("a", "b", "body"):
            if k in d:
                uses[d[k]] += 1
    for c in ir["checks"]:
        uses[c["node"]] += 1
    leaf = {"tag", "base", "same_event_attr", "same_thread_attr", "var", "all_set", "empty_set"}
    named = {i: f"{prefix}_n{i}" for i, d in enumerate(nodes) if uses[i] >= 2 and not fv[i] and d["op"] not in leaf}
    is_set = _set_nodes(nodes)

    def args(i: int) -> str:
        return "".join(f" {orders[o]}" for o in sorted(ov[i]))

    def term(i: int, top: bool = False, kid=None) -> str:
        """The node's term; its children through `kid` (default: term)."""
        if i in named and not top:
            return f"{named[i]} X{args(i)}"
        kid = kid or term
        d = nodes[i]
        op = d["op"]
        if op == "tag":
            return f"tag X {_str(d['name'])}"
        if op == "base" and d["name"] in orders:
            return orders[d["name"]]
        if op == "base":
            return f"{_BASES[d['name']]} X"
        if op == "same_event_attr":
            return f"same_attr X {_str(d['name'])}"
        if op == "same_thread_attr":
            return f"same_thread_attr X {_str(d['name'])}"
        if op == "var":
            return safe_name(d["name"], "V").upper()
        if op == "all_set":
            return "events X"
        if op == "empty_set":
            return "{}"
        if op in _BINARY:
            return f"({kid(d['a'])} {_BINARY[op]} {kid(d['b'])})"
        if op == "domain":
            return f"dom_of {_arg(kid(d['a']))}"
        if op == "range":
            return f"ran_of {_arg(kid(d['a']))}"
        if op == "ident":
            return f"Id_on {_arg(kid(d['a']))}"
        if op == "inv":
            return f"conv {_arg(kid(d['a']))}"
        if op == "plus":
            return f"({kid(d['a'])})\\<^sup>+"
        if op == "star":
            return f"star X {_arg(kid(d['a']))}"
        if op == "opt":
            return f"opt X {_arg(kid(d['a']))}"
        if op == "foreach":
            v = safe_name(d["var"], "V").upper()
            return f"foreach X {_str(d['attr'])} (\\<lambda>{v}. {kid(d['body'])})"
        raise UnsupportedFeature(f"model {m.name}: DSL operator {op} has no Isabelle form")

    out = [
        f"(* Generated by hrf from python/hrf/models ({m.name}): the model's checks",
        "   translated from hrf's relational DSL, one constant per shared",
        "   subexpression and per check. *)",
        f"theory {theory}",
        "  imports Hrf_Execution",
        "begin",
        "",
    ]
    doc = (m.doc or "").strip()
    if doc:
        out += [f"text \\<open>{_text(doc)}\\<close>", ""]

    def signature(i: int, typ: str) -> str:
        return "execution \\<Rightarrow> " + "event rel \\<Rightarrow> " * len(ov[i]) + typ

    for i in sorted(named):
        typ = "event set" if is_set[i] else "event rel"
        out += [
            f'definition {named[i]} :: "{signature(i, typ)}" where',
            f'  "{named[i]} X{args(i)} = {term(i, top=True)}"',
            "",
        ]
    flags, conj = {}, []
    for c in ir["checks"]:
        const = f"{prefix}_{safe_name(c['name'], 'c').lower()}"
        out += [
            f"text \\<open>Check {c['name']} ({c['kind']}{', flag ' + c['flag'] if c['flag'] else ''}).\\<close>",
            f'definition {const} :: "{signature(c["node"], "event rel")}" where',
            f'  "{const} X{args(c["node"])} = {term(c["node"], top=True)}"',
            "",
        ]
        if c["flag"]:
            if ov[c["node"]]:  # pragma: no cover - the DSL refuses it (hrf.dsl, the core)
                raise UnsupportedFeature(f"model {m.name}: flag {c['name']} reads a witness order")
            flags[c["name"]] = (const, c["kind"])
        else:
            conj.append((bool(ov[c["node"]]), c["kind"], _holds(c["kind"], f"{const} X{args(c['node'])}"), c["node"]))
    consistent = f"{prefix}_consistent"
    # The checks that read no witness order come first and once; inside
    # "some total order ...", the cheap `empty` checks before the closures,
    # so that evaluation drops most of the n! orders early.
    free = [h for o, _, h, _ in conj if not o]
    on_orders = [c for c in sorted(conj, key=lambda c: c[1] != "empty") if c[0]]
    bound = [h for _, _, h, _ in on_orders]
    # Inside the quantifier the checks are written out, and what in them
    # reads no order (hhb's closure, fr, ...) is bound by a `let` outside it:
    # computed once, not once per order tried.
    hoisted: dict = {}  # node -> its let variable

    def hterm(i: int) -> str:
        if not ov[i] and not fv[i] and nodes[i]["op"] not in leaf:
            return hoisted.setdefault(i, f"H{len(hoisted) + 1}")
        if not ov[i]:
            return term(i)
        return term(i, top=True, kid=hterm)

    inner = " \\<and> ".join(_holds(k, hterm(node)) for _, k, _, node in on_orders) or "True"
    sets = []  # (variable, the term of its order's set)
    for o in ir["orders"]:
        if ov[o["set"]]:  # pragma: no cover - an order's set is fixed by the events
            raise UnsupportedFeature(f"model {m.name}: the set of order {o['name']} reads a witness order")
        sets.append((orders[o["name"]], term(o["set"], top=True)))
    for var, over in reversed(sets):  # some total order of each witness order's set
        inner = f"(\\<exists>{var} \\<in> total_orders ({over}). {inner})"
    if hoisted:
        lets = "; ".join(f"{v} = {term(i)}" for i, v in hoisted.items())
        inner = f"(let {lets} in {inner})"
    body = " \\<and> ".join(free + ([inner] if ir["orders"] else [])) or "True"
    if ir["orders"]:
        out += [
            "text \\<open>Consistency asks for some total order of each witness order's set that",
            "  passes the checks reading it: evaluation tries the n! orders of n events one",
            "  by one, so a proof by eval grows with n! (fine for a handful of events). An",
            "  execution shown consistent is proved with the order hrf found instead, by the",
            "  rule after the definition.\\<close>",
            "",
        ]
    out += [
        f'definition {consistent} :: "execution \\<Rightarrow> bool" where',
        f'  "{consistent} X \\<longleftrightarrow> {body}"',
        "",
    ]
    intro = None
    if ir["orders"]:
        # One order per witness order, given as the list of its events (P_...,
        # first to last); membership of the list among the permutations
        # compares lists, cheaper than comparing the n! orders as sets.
        intro = f"{consistent}I"
        given = {var: "P" + var[3:] for var, _ in sets}

        def with_given(h: str) -> str:
            for var, p in given.items():
                h = re.sub(rf"\b{var}\b", f"(order_of {p})", h)
            return h

        assumptions = (
            free
            + [f"{given[var]} \\<in> set (perms (sorted_list_of_set ({over})))" for var, over in sets]
            + [with_given(h) for h in bound]
        )
        premises = ";\n    ".join(assumptions)
        out += [
            "text \\<open>Consistency from given orders, one list of events per witness order.\\<close>",
            f"lemma {intro}:",
            f'  "\\<And>X {" ".join(given.values())}. \\<lbrakk>{premises}\\<rbrakk>',
            f'    \\<Longrightarrow> {consistent} X"',
            f"  unfolding {consistent}_def total_orders_def set_map Let_def"
            + "".join(f" {prefix}_{safe_name(c['name'], 'c').lower()}_def" for c in ir["checks"] if ov[c["node"]])
            + "".join(f" {named[i]}_def" for i in sorted(named) if ov[i])
            + " by blast",
            "",
        ]
    # One witness order whose first check is "the order and T are disjoint"
    # (T reads no order): a code equation that builds only the orders
    # avoiding T (perms_avoiding of Hrf_Execution), proved from the
    # definition by ex_total_order_avoiding.
    # ((ORD \<inter> T1) \<inter> T2) ...: the order and T1 \<inter> T2 ... disjoint.
    avoid: list = []
    at = on_orders[0][3] if len(sets) == 1 and on_orders and on_orders[0][1] == "empty" else None
    while at is not None and nodes[at]["op"] == "inter" and not ov[nodes[at]["b"]]:
        avoid.insert(0, hterm(nodes[at]["b"]))
        at = nodes[at]["a"]
    if avoid and at is not None and nodes[at]["op"] == "base" and nodes[at]["name"] in orders:
        var, over = sets[0]
        rest = [_holds(k, hterm(node)) for _, k, _, node in on_orders[1:]]
        pvar = "P" + var[3:]
        rest_text = " \\<and> ".join(with_given(h) for h in rest) or "True"
        h = avoid[0] if len(avoid) == 1 else "(" + " \\<inter> ".join(avoid) + ")"
        code = f"(\\<exists>{pvar} \\<in> set (perms_avoiding {h} (sorted_list_of_set ({over}))). {rest_text})"
        # A check that reads the order only where more order means more
        # pairs fails for every order when it fails for the empty one: that
        # is tried first, once (most inconsistent executions stop there).
        pre = [
            re.sub(rf"\b{var}\b", "{}", _holds(k, hterm(node)))
            for _, k, _, node in on_orders[1:]
            if k in ("acyclic", "irreflexive", "empty") and _monotone(nodes, ov, node)
        ]
        code = "(" + " \\<and> ".join([*pre, code]) + ")" if pre else code
        if hoisted:
            code = f"(let {lets} in {code})"
        out += [
            "text \\<open>The code equation: evaluation builds only the orders that pass the",
            "  first check on the order (disjoint from a relation that reads none).\\<close>",
            f"lemma {consistent}_code [code]:",
            f'  "{consistent} X \\<longleftrightarrow> ' + " \\<and> ".join([*free, code]) + '"',
            f"  unfolding {consistent}_def by (simp only: {'Int_assoc ' if len(avoid) > 1 else ''}ex_total_order_avoiding)"
            + (" (auto simp only: Let_def intro: check_subset)" if pre else ""),
            "",
        ]
    out += ["end", ""]
    return ModelTheory(
        theory, consistent, flags, "\n".join(out), intro, {o["name"]: "P" + orders[o["name"]][3:] for o in ir["orders"]}
    )


def _monotone(nodes: list, ov: list, i: int) -> bool:
    """Whether node i reads the witness orders only where a larger order
    gives a larger relation (never on the right of a difference)."""
    d = nodes[i]
    if not ov[i] or d["op"] == "base":
        return True
    if d["op"] in ("diff", "set_diff"):
        return _monotone(nodes, ov, d["a"]) and not ov[d["b"]]
    if d["op"] in _BINARY:
        return _monotone(nodes, ov, d["a"]) and _monotone(nodes, ov, d["b"])
    if d["op"] in ("domain", "range", "ident", "inv", "plus", "star", "opt"):
        return _monotone(nodes, ov, d["a"])
    if d["op"] == "foreach":
        return _monotone(nodes, ov, d["body"])
    return False


def _holds(kind: str, rel: str) -> str:
    """The proposition that a check of `kind` holds of `rel`."""
    return {"acyclic": f"acyclic ({rel})", "irreflexive": f"irrefl ({rel})", "empty": f"{rel} = {{}}"}[kind]


def _set_nodes(nodes) -> list:
    sets = {"tag", "var", "all_set", "empty_set", "set_union", "set_inter", "set_diff", "domain", "range"}
    return [d["op"] in sets for d in nodes]


# -------------------------------------------------------------- executions
def _key(ex: dict) -> tuple:
    evs = tuple((e["kind"], e["loc"], e["value"], e["thread"], e["template"]) for e in ex["events"])
    return evs, tuple(sorted(map(tuple, ex["rf"]))), tuple(sorted(map(tuple, ex["co"])))


def _event_tags(comp, e: dict) -> set:
    """The tags the core gives an event (rust/src/model.rs, Node::Tag):
    R/W/F from its kind, M for accesses, IW for initial writes, the rest
    from its operation's template or, for an initial write, its location."""
    tags = {e["kind"]}
    if e["kind"] in ("R", "W"):
        tags.add("M")
    if e["template"] is None:
        tags.add("IW")
        tags.update(comp.ir["locations"][e["loc"]]["tags"])
    else:
        tags.update(comp.templates[e["template"]].tags)
    return tags


def execution_term(comp, ex: dict) -> str:
    """An execution as a record value of Hrf_Execution's type `execution`."""
    events = ex["events"]
    ids = [e["id"] for e in events]
    tags: dict = {}
    attrs: dict = {}
    for e in events:
        for t in sorted(_event_tags(comp, e)):
            tags.setdefault(t, []).append(e["id"])
        if e["template"] is not None:
            for k, v in sorted(comp.templates[e["template"]].attrs.items()):
                attrs.setdefault(k, []).append((e["id"], v))
    tattrs: dict = {}
    for ti, th in enumerate(comp.ir["threads"]):
        for k, v in sorted(th["attrs"].items()):
            tattrs.setdefault(k, []).append((ti, v))

    def assoc(pairs):
        return _list(f"({a}, {b})" for a, b in pairs)

    def table(d, fmt):
        return "[" + ",\n        ".join(f"({_str(k)}, {fmt(v)})" for k, v in sorted(d.items())) + "]"

    return "\n".join(
        [
            "\\<lparr>",
            f"    events = {_set(ids)},",
            f"    thread_of = map_of {assoc((e['id'], e['thread']) for e in events if e['thread'] is not None)},",
            f"    loc_of = map_of {assoc((e['id'], e['loc']) for e in events if e['loc'] is not None)},",
            f"    tags = table {table(tags, _set)},",
            f"    attr = attr_table {table(attrs, assoc)},",
            f"    thread_attr = attr_table {table(tattrs, assoc)},",
            f"    po_imm = {_pairs(ex['po'])},",
            f"    co_imm = {_pairs(ex['co'])},",
            f"    rf = {_pairs(ex['rf'])},",
            f"    rmw = {_pairs(ex['rmw'])},",
            f"    data = {_pairs(ex['data'])},",
            f"    ctrl = {_pairs(ex['ctrl'])}\\<rparr>",
        ]
    )


# ----------------------------------------------------------- test theories
@dataclass
class Exported:
    """One theory written for a test and a model."""

    theory: str
    path: Path
    candidates: int  # candidate executions the core enumerated
    exported: int  # of which this theory holds
    complete: bool  # whether the enumeration ran to its end


def _describe(comp, ex: dict) -> str:
    """Events, one per line, in source terms."""
    lines = []
    for e in ex["events"]:
        loc = comp.locations[e["loc"]] if e["loc"] is not None else None
        if e["template"] is None:
            lines.append(f"  {e['id']}: init {loc} = {e['value']}")
        else:
            tp = comp.templates[e["template"]]
            th = comp.test.threads[e["thread"]].name
            what = f"{e['kind']} {loc} = {e['value']}" if loc is not None else e["kind"]
            lines.append(f"  {e['id']}: {th} line {tp.line}: {tp.text} ({what})")
    return "\n".join(lines)


def _test_theory(test, model: Model, mt: ModelTheory, limits: Limits, max_executions: int) -> tuple:
    comp = compile_test(test, limits.unroll, model.cas_writeback)
    # The core keeps no more executions than a theory shows (it counts the rest).
    keep = replace(limits, keep_all=True, max_kept=max_executions)
    verdict = check_compiled(comp, model, keep)
    # Every candidate: the executions consistent under a model without axioms.
    cands = check_compiled(comp, Model("candidates"), keep)
    if verdict.error is not None:
        raise verdict.error
    if cands.error is not None:
        raise cands.error
    if any(ex["addr"] for ex in cands.executions):
        # Hrf_Execution's addr is empty: an execution with one would be judged differently there
        raise UnsupportedFeature(f"{test.name}: address dependencies (computed addresses) are not exported to Isabelle")
    judged = {_key(ex): ex for ex in verdict.executions}

    def outcome(ex):
        return dict(zip(comp.observed, ex["outcome"], strict=False))

    # The consistent executions kept, then the kept candidates that are not
    # among them; each list holds at most max_executions.
    rows = [(ex, ex) for ex in verdict.executions]
    rows += [(ex, None) for ex in cands.executions if _key(ex) not in judged]
    # Order: consistent first (flagged ones first among them), then the rest.
    rows.sort(key=lambda r: (r[1] is None, not (r[1] and r[1]["raised"])))
    total = cands.consistent
    shown = rows[:max_executions]
    theory = safe_name(f"{test.name}_{model.name}")
    out = [
        f"(* Generated by hrf: test {test.name} under model {model.name}.",
        "   Each execution is a concrete value; each lemma is a finite fact",
        "   about it, proved by evaluation. That these are all the candidate",
        "   executions of the program is hrf's enumeration, not proved here. *)",
        f"theory {theory}",
        f"  imports {mt.theory}",
        "begin",
        "",
    ]
    out.append("text \\<open>" + _text(to_litmus(test).rstrip()) + "\\<close>")
    out.append("")
    observed = (
        f"Model {model.name}: condition {verdict.condition}: "
        + (
            "undetermined (a limit cut the run short)"
            if verdict.condition_holds is None
            else ("Ok" if verdict.condition_holds else "No")
        )
        + f"; observation {verdict.observation[0] or 'undetermined'} {verdict.observation[1]} {verdict.observation[2]}"
        + ("; racy" if verdict.racy else ("; race-free" if verdict.racy is False else ""))
        + "."
    )
    cover = f"{len(shown)} of {total} candidate executions are exported"
    if len(shown) < total:
        cover += f" (limit max_executions={max_executions}; consistent ones first)"
    if not cands.complete:
        cover += f"; the enumeration stopped early: {cands.limit['detail'] if cands.limit else 'limit'}"
    out += [f"text \\<open>{_text(observed)} {_text(cover)}.\\<close>", ""]
    for k, (ex, j) in enumerate(shown, 1):
        name = f"ex{k}"
        o = ", ".join(f"{a}={b}" for a, b in outcome(ex).items())
        status = "consistent" if j is not None else "inconsistent"
        out += [
            f"text \\<open>{name}: {status}; outcome {o}.",
            _text(_describe(comp, ex)) + "\\<close>",
            f"definition {name} :: execution where",
            f'  "{name} = {execution_term(comp, ex)}"',
            "",
        ]
        if j is None:
            out += [f'lemma {name}_inconsistent: "\\<not> {mt.consistent} {name}"', "  by eval", ""]
            continue
        found = dict(j.get("orders") or [])
        if mt.intro is not None and mt.order_vars and set(found) == set(mt.order_vars):
            # with the witness orders hrf found: one evaluation, not n!
            inst = " and ".join(
                [f"X={name}"] + [f'{var}="[{", ".join(map(str, found[o]))}]"' for o, var in mt.order_vars.items()]
            )
            out += [
                f'lemma {name}_consistent: "{mt.consistent} {name}"',
                f"  by (rule {mt.intro}[where {inst}]; eval)",
                "",
            ]
        else:
            out += [f'lemma {name}_consistent: "{mt.consistent} {name}"', "  by eval", ""]
        raised = {check: evs for _, check, evs in j["raised"]}
        for check, (const, kind) in mt.flags.items():
            if check in raised:
                evs = raised[check]
                if kind == "empty" and len(evs) == 2:
                    prop = f"({evs[0]}, {evs[1]}) \\<in> {const} {name}"
                elif kind == "empty":
                    prop = f"{const} {name} \\<noteq> {{}}"
                else:
                    prop = f"\\<not> ({_holds(kind, f'{const} {name}')})"
                out += [f'lemma {name}_{safe_name(check).lower()}: "{prop}"', "  by eval", ""]
            else:
                out += [
                    f'lemma {name}_no_{safe_name(check).lower()}: "{_holds(kind, f"{const} {name}")}"',
                    "  by eval",
                    "",
                ]
    out += ["end", ""]
    return theory, "\n".join(out), total, len(shown), cands.complete


# --------------------------------------------------------- scheme theories
_SRC_OP = {"load": "Load", "store": "Store", "rmw": "FetchInc"}
_SRC_SCOPE = {"na": "NonAtomic", "wg": "WorkGroup", "dev": "Device", "all": "AllDevices"}
# A row's access itself: the source access's register r at location x.
_ACCESS = {"LD": "LD r x", "ST": "ST (ER r) x", "RMWL1": "INCL1 r x", "RMWL2": "INCL2 r x"}


def _instr(word: str) -> str:
    """A row's instruction as a Hrf_Machine constructor term (the
    instruction table's Isabelle names)."""
    term = _ACCESS.get(word) or isabelle_term(word)
    if term is None:
        raise UnsupportedFeature(f"row instruction {word!r} has no Isabelle form")
    return term


def scheme_theory(scheme) -> tuple:
    """(theory name, text) for a compilation scheme."""
    s = _mappings.get(scheme)
    c = safe_name(s.name, "S").lower()
    theory = f"Scheme_{safe_name(s.name, 'S')}"
    out = [
        f"(* Generated by hrf from python/hrf/mappings: scheme {s.name}.",
        "   Its rows as data over Hrf_Machine; one lemma per row and the",
        "   soundness of the scheme, stated over Hrf_Mapping. The proofs are",
        "   not generated: every `sorry` below is a stub, which this theory",
        "   alone allows (quick_and_dirty, declared below; the session does",
        "   not, so a test theory cannot use sorry). *)",
        f"theory {theory}",
        "  imports Hrf_Mapping",
        "begin",
        "",
        "declare [[quick_and_dirty = true]]",
        "",
        f"text \\<open>{_text(s.description)} (default source model: {s.model}).\\<close>",
        "",
    ]

    def listed(rows):
        return [
            (
                op,
                scope,
                remote,
                r,
                f"{_SRC_OP[op]} {_SRC_SCOPE[scope]} {'True' if remote else 'False'}",
                _list(_instr(w) for w in r.seq),
            )
            for (op, scope, remote), r in rows.items()
        ]

    def define(name, rows, base=""):
        # map_of takes the first pair of a key: the several-device rows
        # come before the rows they replace.
        return [
            f'definition {name}_rows :: "(src_op \\<times> row) list" where',
            f'  "{name}_rows = [',
            ",\n".join(f"     ({src}, \\<lambda>r x. {seq})" for *_, src, seq in rows) + ']"',
            "",
            f"definition {name} :: scheme where",
            f'  "{name} = map_of ({name}_rows{f" @ {base}_rows" if base else ""})"',
            "",
        ]

    def lemmas(name, rows):
        out = []
        for op, scope, remote, r, src, _seq in rows:
            lemma = f"{name}_{op}_{scope}{'_remote' if remote else ''}"
            out += [
                f"text \\<open>{_mappings.key_text((op, scope, remote))}: {'; '.join(r.seq)}. "
                f"Source: {_text(r.source)}.\\<close>",
                f'lemma {lemma}: "row_implements {name} ({src})"',
                "  sorry \\<comment> \\<open>stub: proof not generated\\<close>",
                "",
            ]
        return out

    def theorem(name):
        return [
            f'theorem {name}_sound: "sound {name}"',
            "  sorry \\<comment> \\<open>stub: proof not generated\\<close>",
            "",
        ]

    rows = listed(s.rows)
    several = listed(s.several_devices)
    out += define(c, rows)
    if several:
        out += [
            f"text \\<open>On several devices the scheme is {c}_several_devices: these rows in place of "
            "or besides the ones above.\\<close>",
            "",
        ]
        out += define(f"{c}_several_devices", several, base=c)
    out += ["context source_model", "begin", ""]
    out += lemmas(c, rows)
    out += lemmas(f"{c}_several_devices", several)
    if s.seq_cst:
        # Hrf_Mapping's source operations carry no memory order.
        out += [
            "text \\<open>Not stated: the rows this scheme uses for seq_cst accesses instead (the source "
            "operations here carry no memory order, so the theorem below is about acquire/release): "
            + _text("; ".join(f"{_mappings.key_text(key)}: {', '.join(r.seq)}" for key, r in s.seq_cst.items()))
            + ".\\<close>",
            "",
        ]
    if s.refuted_by:
        out += [
            "text \\<open>Not stated: hrf finds this scheme unsound against "
            f"{_text(s.model)} (`hrf soundness`) on {_text(', '.join(s.refuted_by))}; exported with "
            "those tests, the theories Run_<test>_<scheme> prove each counterexample outcome reachable "
            "on the machine.\\<close>",
            "",
        ]
    else:
        out += theorem(c) + (theorem(f"{c}_several_devices") if several else [])
    out += ["end", "", "end", ""]
    return theory, "\n".join(out)


# ------------------------------------------------------------------ machine runs
_BINOP = {
    "+": "BAdd", "-": "BSub", "*": "BMul", "&": "BAnd", "|": "BOr", "^": "BXor", "==": "BEq", "!=": "BNe",
    "<": "BLt", "<=": "BLe", ">": "BGt", ">=": "BGe", "&&": "BLAnd", "||": "BLOr",
}  # fmt: skip
# The explorer's trace steps as Hrf_Machine's labels: (constructor, fields).
_LABELS = {
    "thread": ("Thread", ("thread",)),
    "fetch_l1": ("FetchL1", ("wg", "loc")),
    "fetch_l2": ("FetchL2", ("dev", "loc")),
    "dequeue_l1": ("DequeueL1", ("wg",)),
    "dequeue_l2": ("DequeueL2", ("dev",)),
    "writeback_l1": ("WritebackL1", ("wg", "loc")),
    "writeback_l2": ("WritebackL2", ("dev", "loc")),
    "evict_l1": ("EvictL1", ("wg", "loc")),
    "evict_l2": ("EvictL2", ("dev", "loc")),
}


def _int(v: int) -> str:
    return str(v) if v >= 0 else f"({v})"


def _expr(e: dict) -> str:
    """A machine expression (the IR's `Expr`) as Hrf_Machine's `expr`."""
    k = e["k"]
    if k == "c":
        return f"EC {_int(e['v'])}"
    if k == "r":
        return f"ER {e['r']}"
    if k in ("not", "neg"):
        return f"{'ENot' if k == 'not' else 'ENeg'} ({_expr(e['a'])})"
    return f"EBin {_BINOP[e['o']]} ({_expr(e['a'])}) ({_expr(e['b'])})"


def machine_instr(ins: dict, scratch: int) -> str:
    """A machine instruction (the IR's dict) as a term of Hrf_Machine's
    `instr`; an increment that keeps no result writes register `scratch`
    (one the thread does not have). UnsupportedFeature where the theory has
    no such instruction (compare-exchange, other read-modify-writes)."""
    row = row_of(ins)
    if row.isabelle is None:
        raise UnsupportedFeature(f"machine instruction {mnemonic(ins, row)} has no Isabelle form")
    name = row.isabelle.format(level=ins.get("level", ""))
    op = ins["op"]
    scope = ISABELLE_SCOPES.get(SCOPE_NAMES.get(ins.get("scope", ""), ""), "")
    args = {
        "ld": lambda: [str(ins["dst"]), str(ins["loc"])],
        "st": lambda: [f"({_expr(ins['val'])})", str(ins["loc"])],
        "rmw": lambda: [str(scratch if ins.get("dst") is None else ins["dst"]), str(ins["loc"])],
        "flu": lambda: [scope],
        "inv": lambda: [scope],
        "lk": lambda: [str(ins["loc"])],
        "unlk": lambda: [str(ins["loc"])],
        "lkrmw": lambda: [scope],
        "unlkrmw": lambda: [scope],
        "assign": lambda: [str(ins["dst"]), f"({_expr(ins['val'])})"],
        "branch": lambda: [f"({_expr(ins['cond'])})", str(ins["target"])],
        "jump": lambda: [str(ins["target"])],
        "cut": lambda: [],
    }[op]()
    return " ".join([name, *args])


def _fun(pairs, default: str = "0") -> str:
    """A finite function as `(%_. default)(k := v, ...)` (Isabelle's lambda)."""
    body = ", ".join(f"{k} := {v}" for k, v in pairs)
    return f"(\\<lambda>_. {default})({body})" if body else f"(\\<lambda>_. {default})"


_WRITEBACK = {"fifo": "Fifo", "any": "Any"}  # write-back policies as Hrf_Machine's `writeback`


def _closure_terms(res, p: str, nwg: int, ndev: int) -> tuple:
    """The finite part of the machine state (Hrf_Closure's `dom`), the
    outcome's observations and the outcomes the source model allows, as
    definitions; and a note on what the observations leave out. Locations
    no instruction accesses are not observed (their memory never changes;
    the closure covers the program's addresses only)."""
    prog = res.program
    used = sorted({ins["loc"] for t in prog.threads for ins in t.code if "loc" in ins})
    nregs = max(len(t.regs) for t in prog.threads) + 1  # and the scratch register of increments
    keep, obs = [], []
    for name, o in zip(prog.observed, prog.observed_ir, strict=True):
        if o["kind"] == "reg":
            keep.append(name)
            obs.append(f"OReg {o['thread']} {o['reg']}")
        elif o["loc"] in used:
            keep.append(name)
            obs.append(f"OMem {o['loc']}")
    left = [n for n in prog.observed if n not in keep]
    allowed = sorted({tuple(a[n] for n in keep) for a in res.allowed})
    defs = [
        f"definition {p}_dom :: dom where",
        f'  "{p}_dom = \\<lparr>d_threads = {_list(range(len(prog.threads)))}, d_regs = {_list(range(nregs))}, '
        f'd_wgs = {_list(range(nwg))}, d_devs = {_list(range(ndev))}, d_addrs = {_list(used)}\\<rparr>"',
        "",
        f'definition {p}_obs :: "obs list" where',
        f'  "{p}_obs = {_list(obs)}"',
        "",
        f'definition {p}_allowed :: "int list list" where',
        f'  "{p}_allowed = {_list(_list(_int(v) for v in a) for a in allowed)}"',
        "",
    ]
    return defs, keep, left


def run_theory(res, name: str | None = None, closed: dict | None = None) -> tuple:
    """(theory name, text) for the machine runs of a soundness check
    (`hrf.soundness`): the compiled program as Hrf_Machine data and, for
    each outcome the explorer found under each write-back policy, the trace
    that reached it as a run, with a theorem that the outcome is one of the
    machine's (a reachable final state), proved by evaluating the run. An
    outcome the source model does not allow is marked as the scheme's
    counterexample. `closed` (write-back policy -> numbers of states and of
    states not final of the unreduced machine, as `_closable` gives them):
    for those policies, a theorem that the machine has no outcome the source
    model does not allow, proved by Hrf_Closure's `machine_outcomes_within`
    over the reachable states, which Isabelle enumerates and checks closed
    (by eval), counting as many states that are not final as hrf."""
    from .soundness import outcome_key

    found = [(wb, r) for wb, r in res.machine.items() if r.outcomes]
    if not found:
        raise UnsupportedFeature(f"{res.name}: the explorer found no outcome to export")
    prog = res.program
    theory = name or f"Run_{safe_name(res.name)}_{safe_name(res.scheme, 'S')}"
    p = theory.lower()
    locs = [n for n, _ in prog.locations]
    loc_index = {n: i for i, n in enumerate(locs)}
    nwg = max(t.wg for t in prog.threads) + 1
    ndev = max(t.dev for t in prog.threads) + 1
    wg_dev = {t.wg: t.dev for t in prog.threads}
    code = [_list(machine_instr(ins, len(t.regs)) for ins in t.code) for t in prog.threads]
    allowed = res.allowed_keys()
    out = [
        f"(* Generated by hrf: test {res.name} compiled by scheme {res.scheme}, run on the",
        "   machine of Hrf_Machine. Each outcome hrf's explorer found is shown to be",
        "   one of the machine's: the explorer's trace to it, as a run, evaluates to",
        "   a final state with that outcome (by eval), and run_outcome makes that a",
        "   reachable final state. Whether the source model allows the outcome is",
        "   hrf's verdict (the test's own theory lists its candidate executions). *)",
        f"theory {theory}",
        "  imports Hrf_Closure" if closed else "  imports Hrf_Machine",
        "begin",
        "",
        f"text \\<open>Locations: {_text(', '.join(f'{n} = {i}' for i, n in enumerate(locs)))}. Threads: "
        + _text(
            "; ".join(
                f"{t.name} = {i} (work-group {t.wg}, device {t.dev}"
                + (f"; registers {', '.join(f'{r} = {j}' for j, r in enumerate(t.regs))}" if t.regs else "")
                + ")"
                for i, t in enumerate(prog.threads)
            )
        )
        + ".\\<close>",
        "",
        f"definition {p}_layout :: layout where",
        f'  "{p}_layout = \\<lparr>wg_of = {_fun((i, t.wg) for i, t in enumerate(prog.threads))}, '
        f'dev_of = {_fun(sorted(wg_dev.items()))}, wgs = {_set(range(nwg))}, devs = {_set(range(ndev))}\\<rparr>"',
        "",
        f"definition {p}_program :: program where",
        f'  "{p}_program = \\<lparr>threads = {_set(range(len(prog.threads)))}, instrs = '
        + _fun(((i, c) for i, c in enumerate(code)), "[]")
        + '\\<rparr>"',
        "",
        f'definition {p}_init :: "addr \\<Rightarrow> int" where',
        f'  "{p}_init = {_fun((i, _int(v)) for i, (_, v) in enumerate(prog.locations))}"',
        "",
    ]
    for wb, r in found:
        wbc = _WRITEBACK[wb]
        for k, (o, steps) in enumerate(zip(r.outcomes, r.steps, strict=True), 1):
            labels = []
            for st in steps:
                con, fields = _LABELS[st["kind"]]
                labels.append(" ".join([con, *(str(loc_index[st[f]] if f == "loc" else st[f]) for f in fields)]))
            facts = []
            for name_, obs in zip(prog.observed, prog.observed_ir, strict=True):
                if name_ not in o:
                    continue
                at = f"regs s {obs['thread']} {obs['reg']}" if obs["kind"] == "reg" else f"mem s {obs['loc']}"
                facts.append(f"{at} = {_int(o[name_])}")
            q = " \\<and> ".join(facts) or "True"
            lemma = f"{p}_{wb}_{k}"
            verdict = (
                f"allowed by {res.model}"
                if outcome_key(o) in allowed
                else f"not allowed by {res.model}: a counterexample to scheme {res.scheme}"
            )
            ctx = f"{p}_layout {wbc} {p}_program"
            out += [
                f"text \\<open>writeback={wb}, outcome {_text(format_state(o).rstrip(';'))}: {_text(verdict)}.\\<close>",
                f'definition {lemma}_trace :: "label list" where',
                f'  "{lemma}_trace = {_list(labels)}"',
                "",
                f"lemma {lemma}_run:",
                f'  "case run {ctx} {lemma}_trace (initial {p}_init) of None \\<Rightarrow> False',
                f'     | Some s \\<Rightarrow> is_final_on (addrs {p}_program) {p}_layout {p}_program s \\<and> {q}"',
                "  by eval",
                "",
                f"theorem {lemma}:",
                f'  "\\<exists>s \\<in> reachable {ctx} (initial {p}_init). is_final {p}_layout {p}_program s \\<and> {q}"',
                f"  by (rule run_outcome[OF {lemma}_run])",
                "",
            ]
    if not res.complete:
        out += [
            "text \\<open>The exploration stopped at a limit: more outcomes may exist.\\<close>",
            "",
        ]
    if closed:
        defs, keep, left = _closure_terms(res, p, nwg, ndev)
        out += [
            f"text \\<open>No other outcome: every final state the machine reaches shows one of the outcomes "
            f"{_text(res.model)} allows, over {_text(', '.join(keep))}"
            + (f" ({_text(', '.join(left))}: no instruction accesses them)" if left else "")
            + ". Isabelle enumerates the machine's reachable states (their part at the program's addresses, "
            "registers and pcs; as many states that are not final as hrf's unreduced explorer), checks the set closed under "
            "every step and every final state's outcome allowed (by eval); machine_outcomes_within makes that a "
            "statement over all reachable states.\\<close>",
            "",
            *defs,
        ]
        for wb, (states, live) in closed.items():
            wbc = _WRITEBACK[wb]
            ctx = f"{p}_layout {wbc} {p}_program"
            # fuel: the search takes a state per round; the final states hrf
            # did not step on from may lead to more final states
            out += [
                f"text \\<open>writeback={wb}: hrf's unreduced explorer stores {states} states, "
                f"{live} of them not final.\\<close>",
                f"lemma {p}_{wb}_closed:",
                f'  "outcomes_check {64 * states + 1000} {p}_dom {ctx} {p}_init {p}_obs {p}_allowed {live}"',
                "  by eval",
                "",
                f"theorem {p}_{wb}_sound:",
                f'  "\\<forall>s \\<in> reachable {ctx} (initial {p}_init). is_final {p}_layout {p}_program s '
                f'\\<longrightarrow> map (obs_val s) {p}_obs \\<in> set {p}_allowed"',
                f"  by (rule machine_outcomes_within[OF {p}_{wb}_closed])",
                "",
            ]
    out += ["end", ""]
    return theory, "\n".join(out)


# ------------------------------------------------------------------ export
@dataclass
class ExportResult:
    out: Path
    theories: list = field(default_factory=list)  # every theory written (names)
    tests: list = field(default_factory=list)  # Exported, one per test and model
    notes: list = field(default_factory=list)  # what the reader should know (truncations)
    # (test, model or "scheme S", reason) of each pair refused (UnsupportedFeature): not exported
    skipped: list = field(default_factory=list)
    runs: list = field(default_factory=list)  # the theories of machine runs (one per test and scheme)
    closures: list = field(default_factory=list)  # "theory: writeback=W" of each no-other-outcome theorem


def _copy_base(out: Path) -> None:
    for name in BASE_THEORIES:
        write_output(out / f"{name}.thy", (BASE_DIR / f"{name}.thy").read_text())


def _prepare_folder(out: Path) -> Path:
    """The export folder: created if missing; an earlier export (its ROOT
    names hrf's session and it holds only theories) is cleared of its
    theories, so that none of them is pulled into the new session; any
    other non-empty folder is refused rather than overwritten."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"cannot export to {out}: it is a file, not a folder")
    out = Path(make_folder(out))
    entries = list(out.iterdir())
    if not entries:
        return out
    root = out / "ROOT"
    # an earlier export holds plain files only: a link (to a ROOT elsewhere,
    # say) or a folder named X.thy is not hrf's to write through or remove
    plain = all(e.is_file() and not e.is_symlink() and (e.name == "ROOT" or e.suffix == ".thy") for e in entries)
    ours = (
        plain
        and root.is_file()
        and re.search(rf"^session {SESSION} ", root.read_text(errors="replace"), re.M) is not None
    )
    if not ours:
        raise OutputError(
            f"cannot export to {out}: the folder is not empty and holds no earlier hrf export of plain "
            "files (hrf would overwrite its ROOT and pull its theories in): give a new or empty folder"
        )
    for e in entries:
        try:
            e.unlink()  # ROOT too: written anew, never through what stood there
        except OSError as x:
            raise OutputError(f"cannot clear the earlier export in {out}: {x.strerror or x}") from None
    return out


def write_root(out: Path, session: str = SESSION) -> Path:
    """A ROOT file listing every theory in `out`, base theories first."""
    present = sorted(p.stem for p in out.glob("*.thy"))
    # What a theory imports comes first: base theories, then model theories.
    order = [t for t in BASE_THEORIES if t in present] + sorted(
        (t for t in present if t not in BASE_THEORIES), key=lambda t: (not t.startswith("Model_"), t)
    )
    text = (
        "\n".join(
            [
                "(* Generated by hrf. The session does not allow sorry: every lemma of a",
                "   test theory is proved. The Scheme_* theories, whose proofs are stubs,",
                "   declare quick_and_dirty for themselves alone. *)",
                f"session {session} = HOL +",
                "  options [document = false]",
                "  theories",
            ]
            + [f"    {t}" for t in order]
        )
        + "\n"
    )
    p = out / "ROOT"
    write_output(p, text)
    return p


def _closable(r, max_proof_states: int, progress=None) -> tuple:
    """For a scheme hrf found sound on a test: write-back policy -> (number
    of states, number of them not final) of the unreduced machine, for the
    policies whose unreduced machine has at most `max_proof_states` states
    (Isabelle enumerates them again); and a note for each policy left out."""
    from .machine import explore

    closed: dict[str, tuple[int, int]] = {}
    notes: list[str] = []
    if r.sound is not True or max_proof_states == 0:
        return closed, notes
    for wb in r.machine:
        m = explore(r.program, writeback=wb, reduce=False, max_states=max_proof_states, progress=progress)
        if m.complete:
            closed[wb] = (m.states, m.states - m.final_states)
        else:
            notes.append(
                f"writeback={wb}: no closure theorem, the unreduced machine has more than "
                f"{max_proof_states} states (max_proof_states)"
            )
    return closed, notes


def _export_runs(
    res: ExportResult, test, scheme: str, limits: Limits, max_states: int, max_proof_states: int, progress=None
) -> None:
    """The machine runs of `test` compiled by `scheme` as a theory, or the
    pair in `res.skipped` with the reason; where hrf found the scheme sound,
    with the closure theorems of `run_theory`. `progress`: the explorer's
    status line (`hrf.machine.explore.ExploreProgress`), or None."""
    from .soundness import soundness

    where = test.path or test.name
    try:
        r = soundness(test, scheme, limits=limits, max_states=max_states, progress=progress)
        if not r.machine:
            raise UnsupportedFeature(r.reason or "not run on the machine")
        closed, notes = _closable(r, max_proof_states, progress)
        theory, text = run_theory(r, closed=closed)
    except UnsupportedFeature as e:
        res.skipped.append((where, f"scheme {scheme}", str(e)))
        return
    if theory in res.theories:
        return  # the same test given twice
    write_output(res.out / f"{theory}.thy", text)
    res.theories.append(theory)
    res.runs.append(theory)
    if not r.complete:
        res.notes.append(f"{theory}: the machine exploration stopped at a limit; more outcomes may exist")
    res.notes += [f"{theory}: {n}" for n in notes]
    res.closures += [f"{theory}: writeback={wb}" for wb in closed]


def export_isabelle(
    tests: None | str | Path | object | Iterable = None,
    models: str | Iterable = "sc",
    out: str | Path = "isabelle_out",
    *,
    schemes: None | str | Iterable = None,
    max_executions: int = 64,
    runs: bool = True,
    max_states: int = 1_000_000,
    max_proof_states: int = 20_000,
    limits: Limits | None = None,
    progress=None,
    **kw,
) -> ExportResult:
    """Write Isabelle theories into `out`: the base theories, one theory per
    test and model, one per scheme, and a ROOT file for the session. A
    (test, model) pair the model refuses (a test outside its fragment, a
    model with no Isabelle form) is skipped and listed in `skipped`; when
    every pair is refused and no scheme is asked for, the first refusal is
    raised (UnsupportedFeature), as is a scheme row with no Isabelle form.
    With `runs`, each test a scheme compiles is run on the machine (`hrf
    soundness`, at most `max_states` states per write-back policy) and its
    outcomes are written as machine runs (`run_theory`); a (test, scheme)
    pair the scheme or the machine theory refuses is skipped and listed.
    Where hrf found the scheme sound on a test, and the unreduced machine
    has at most `max_proof_states` states under a write-back policy (0:
    never), the run theory also proves that the machine has no outcome the
    source model does not allow (Isabelle enumerates those states again).
    `progress` (an `hrf.machine.explore.ExploreProgress`) shows those
    explorations as they run (`hrf export` passes one)."""
    limits = limits_from(limits, kw)
    check_whole("max_executions", max_executions, 1)
    check_whole("max_states", max_states, 1)
    check_whole("max_proof_states", max_proof_states, 0)
    out = Path(out)
    out = _prepare_folder(out)
    res = ExportResult(out)
    tests = (
        []
        if tests is None
        else ([tests] if isinstance(tests, (str, Path)) or not isinstance(tests, Iterable) else list(tests))
    )
    models = [models] if isinstance(models, (str, Model)) else list(models)
    schemes = [] if schemes is None else ([schemes] if isinstance(schemes, str) else list(schemes))
    _copy_base(out)
    res.theories += list(BASE_THEORIES)
    first_refusal: UnsupportedFeature | None = None
    tests = [parse(t) for t in tests]
    for test in tests:
        for mname in models:
            m = _get_model(mname)
            try:
                m.supports(test)
                mt = model_theory(m)
            except UnsupportedFeature as e:
                res.skipped.append((test.path or test.name, m.name, str(e)))
                first_refusal = first_refusal or e
                continue
            if mt.text is not None:
                write_output(out / f"{mt.theory}.thy", mt.text)
                if mt.theory not in res.theories:
                    res.theories.append(mt.theory)
            theory, text, total, shown, complete = _test_theory(test, m, mt, limits, max_executions)
            if theory in res.theories:  # two tests of one name: number the later ones
                k = 2
                while f"{theory}_{k}" in res.theories:
                    k += 1
                text = re.sub(rf"^theory {theory}$", f"theory {theory}_{k}", text, count=1, flags=re.M)
                theory = f"{theory}_{k}"
            path = out / f"{theory}.thy"
            write_output(path, text)
            res.theories.append(theory)
            res.tests.append(Exported(theory, path, total, shown, complete))
            if shown < total:
                res.notes.append(
                    f"{theory}: {shown} of {total} candidate executions exported (max_executions={max_executions})"
                )
            if not complete:
                res.notes.append(f"{theory}: the candidate enumeration hit a limit; more executions exist")
    if first_refusal is not None and not res.tests and not schemes:
        raise first_refusal
    for s in schemes:
        theory, text = scheme_theory(s)
        write_output(out / f"{theory}.thy", text)
        res.theories.append(theory)
        for test in tests if runs else ():
            _export_runs(res, test, s, limits, max_states, max_proof_states, progress)
    write_root(out)
    return res
