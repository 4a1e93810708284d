"""Model theories: SC, HRF-direct and HRF-indirect as `Hrf_Models.thy`
defines them; any other model translated from hrf's DSL into a theory
`Model_<name>` of its own."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..dsl import Model
from ..errors import UnsupportedFeature
from ..models import get as _get_model
from .terms import arg_term, safe_name, string_term, text_body


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
# the DSL's operators of one argument, as functions of the theory (star and opt take the events)
_UNARY = {"domain": "dom_of", "range": "ran_of", "ident": "Id_on", "inv": "conv", "star": "star X", "opt": "opt X"}


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
    named = {
        i: f"{prefix}_n{i}"
        for i, d in enumerate(nodes)
        if uses[i] >= 2 and not fv[i] and d["op"] not in leaf and not _inverse_of_shown(nodes, i, ir["shows"])
    }
    # a relation the model shows (hhb, so, ...) is a constant of its name, so
    # that theorems about the model can speak of it (Hrf_Relaxed_Theorems)
    taken = {f"{prefix}_{safe_name(c['name'], 'c').lower()}" for c in ir["checks"]} | {f"{prefix}_consistent"}
    for show, i in ir["shows"]:
        const = f"{prefix}_{safe_name(show, 'r').lower()}"
        if not fv[i] and nodes[i]["op"] not in leaf and const not in taken and const not in named.values():
            named[i] = const
    is_set = _set_nodes(nodes)
    # foreach's variables, numbered in the model's own order (the DSL's
    # names count every foreach the process has built)
    var_names: dict = {}
    for d in nodes:
        for v in (d["name"],) if d["op"] == "var" else (d["var"],) if d["op"] == "foreach" else ():
            var_names.setdefault(v, f"V{len(var_names) + 1}")

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
            return f"tag X {string_term(d['name'])}"
        if op == "base" and d["name"] in orders:
            return orders[d["name"]]
        if op == "base":
            return f"{_BASES[d['name']]} X"
        if op == "same_event_attr":
            return f"same_attr X {string_term(d['name'])}"
        if op == "same_thread_attr":
            return f"same_thread_attr X {string_term(d['name'])}"
        if op == "var":
            return var_names[d["name"]]
        if op == "all_set":
            return "events X"
        if op == "empty_set":
            return "{}"
        if op in _BINARY:
            return f"({kid(d['a'])} {_BINARY[op]} {kid(d['b'])})"
        if op in _UNARY:
            return f"{_UNARY[op]} {arg_term(kid(d['a']))}"
        if op == "plus":
            return f"({kid(d['a'])})\\<^sup>+"
        if op == "foreach":
            v = var_names[d["var"]]
            return f"foreach X {string_term(d['attr'])} (\\<lambda>{v}. {kid(d['body'])})"
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
        out += [f"text \\<open>{text_body(doc)}\\<close>", ""]

    def signature(i: int, typ: str) -> str:
        return "execution \\<Rightarrow> " + "event rel \\<Rightarrow> " * len(ov[i]) + typ

    defs = [f"{named[i]}_def" for i in sorted(named)]
    for i in sorted(named):
        typ = "event set" if is_set[i] else "event rel"
        out += [
            f'definition {named[i]} :: "{signature(i, typ)}" where',
            f'  "{named[i]} X{args(i)} = {term(i, top=True)}"',
            "",
        ]
    flags, conj = {}, []
    order_flags: list = []  # flags that read a witness order, with their check's constant
    for c in ir["checks"]:
        const = f"{prefix}_{safe_name(c['name'], 'c').lower()}"
        out += [
            f"text \\<open>Check {c['name']} ({c['kind']}{', flag ' + c['flag'] if c['flag'] else ''}).\\<close>",
            f'definition {const} :: "{signature(c["node"], "event rel")}" where',
            f'  "{const} X{args(c["node"])} = {term(c["node"], top=c["node"] not in named)}"',
            "",
        ]
        defs.append(f"{const}_def")
        if c["flag"] and ov[c["node"]]:
            # raised where some order the execution is consistent with raises it: the union,
            # over those orders, of its relation (below, once consistency is defined)
            if c["kind"] == "acyclic":
                raise UnsupportedFeature(f"model {m.name}: flag {c['name']} (acyclic) reads a witness order")
            order_flags.append((c, const))
        elif c["flag"]:
            flags[c["name"]] = (const, c["kind"])
        else:
            conj.append((bool(ov[c["node"]]), c["kind"], holds(c["kind"], f"{const} X{args(c['node'])}"), c["node"]))
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

    inner = " \\<and> ".join(holds(k, hterm(node)) for _, k, _, node in on_orders) or "True"
    checks_on_orders = inner
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
    for c, const in order_flags:
        # the flag's relation under each order that passes the checks reading it, united
        union = f"(if {checks_on_orders} then {const} X{args(c['node'])} else {{}})"
        for var, over in reversed(sets):
            union = f"(\\<Union>{var} \\<in> total_orders ({over}). {union})"
        if hoisted:
            union = f"(let {'; '.join(f'{v} = {term(i)}' for i, v in hoisted.items())} in {union})"
        flags[c["name"]] = (f"{const}_some", c["kind"])
        out += [
            f"text \\<open>Flag {c['flag']} as the execution raises it: under some order of its",
            "  witness orders with which it is consistent (the union of the check's relation",
            "  over them).\\<close>",
            f'definition {const}_some :: "execution \\<Rightarrow> event rel" where',
            f'  "{const}_some X = {union}"',
            "",
        ]
        defs.append(f"{const}_some_def")
    out += [
        "text \\<open>Every definition above, for proofs that unfold the model whole.\\<close>",
        f"lemmas {prefix}_defs = {' '.join(defs)}",
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
        rest = [holds(k, hterm(node)) for _, k, _, node in on_orders[1:]]
        pvar = "P" + var[3:]
        rest_text = " \\<and> ".join(with_given(h) for h in rest) or "True"
        h = avoid[0] if len(avoid) == 1 else "(" + " \\<inter> ".join(avoid) + ")"
        code = f"(\\<exists>{pvar} \\<in> set (perms_avoiding {h} (sorted_list_of_set ({over}))). {rest_text})"
        # A check that reads the order only where more order means more
        # pairs fails for every order when it fails for the empty one: that
        # is tried first, once (most inconsistent executions stop there).
        pre = [
            re.sub(rf"\b{var}\b", "{}", holds(k, hterm(node)))
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


def _inverse_of_shown(nodes: list, i: int, shows) -> bool:
    """Whether node i is the inverse of a relation the model shows (written
    `conv (m_hhb X)` where it is used rather than as a constant of its own)."""
    return nodes[i]["op"] == "inv" and any(nodes[i]["a"] == j for _, j in shows)


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


def holds(kind: str, rel: str) -> str:
    """The proposition that a check of `kind` holds of `rel`."""
    return {"acyclic": f"acyclic ({rel})", "irreflexive": f"irrefl ({rel})", "empty": f"{rel} = {{}}"}[kind]


def _set_nodes(nodes) -> list:
    sets = {"tag", "var", "all_set", "empty_set", "set_union", "set_inter", "set_diff", "domain", "range"}
    return [d["op"] in sets for d in nodes]
