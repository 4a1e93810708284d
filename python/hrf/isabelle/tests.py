"""Test theories: every candidate execution of a test (up to a bound, the
rest counted), with a lemma for its consistency and race-freedom under a
model, proved `by eval`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..api import Limits, check_compiled
from ..dsl import Model
from ..errors import UnsupportedFeature
from ..litmus.printer import to_litmus
from ..program import THREAD_ATTRS, compile_test
from .models import ModelTheory, holds
from .terms import list_term, pairs_term, safe_name, set_term, string_term, text_body


# -------------------------------------------------------------- executions
def _key(ex: dict) -> tuple:
    evs = tuple((e["kind"], e["loc"], e["value"], e["thread"], e["template"]) for e in ex["events"])
    return evs, tuple(sorted(map(tuple, ex["rf"]))), tuple(sorted(map(tuple, ex["co"])))


def event_tags(comp, e: dict) -> set:
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
        for t in sorted(event_tags(comp, e)):
            tags.setdefault(t, []).append(e["id"])
        if e["template"] is not None:
            tpl = comp.templates[e["template"]]
            if set(tpl.attrs) & set(THREAD_ATTRS):  # Hrf_Execution's same_attr reads the event's own attributes alone
                raise UnsupportedFeature(
                    f"{tpl.text}: an event performed in another thread block than its thread's has no Isabelle form yet"
                )
            own = {tpl.value_attr: e["value"]} if tpl.value_attr is not None else {}  # known on the path
            for k, v in sorted({**tpl.attrs, **own}.items()):
                attrs.setdefault(k, []).append((e["id"], v))
    tattrs: dict = {}
    for ti, th in enumerate(comp.ir["threads"]):
        for k, v in sorted(th["attrs"].items()):
            tattrs.setdefault(k, []).append((ti, v))

    def assoc(pairs):
        return list_term(f"({a}, {b})" for a, b in pairs)

    def table(d, fmt):
        return "[" + ",\n        ".join(f"({string_term(k)}, {fmt(v)})" for k, v in sorted(d.items())) + "]"

    return "\n".join(
        [
            "\\<lparr>",
            f"    events = {set_term(ids)},",
            f"    thread_of = map_of {assoc((e['id'], e['thread']) for e in events if e['thread'] is not None)},",
            f"    loc_of = map_of {assoc((e['id'], e['loc']) for e in events if e['loc'] is not None)},",
            f"    tags = table {table(tags, set_term)},",
            f"    attr = attr_table {table(attrs, assoc)},",
            f"    thread_attr = attr_table {table(tattrs, assoc)},",
            f"    po_imm = {pairs_term(ex['po'])},",
            f"    co_imm = {pairs_term(ex['co'])},",
            f"    rf = {pairs_term(ex['rf'])},",
            f"    rmw = {pairs_term(ex['rmw'])},",
            f"    data = {pairs_term(ex['data'])},",
            f"    ctrl = {pairs_term(ex['ctrl'])}\\<rparr>",
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


# The papers' theorems, instantiated on each consistent, race-free execution
# a theory exports under these models: (the theory proving it, its rule,
# whether it asks for seq_cst atomics alone, the `sco` it is given)
THEOREMS = {
    # SC for HRF ([HRF14] sec. 3-4): the same-scope atomics' communication as the order sco
    "hrf-direct": ("Hrf_Theorems", "sc_for_hrf_direct", False),
    "hrf-indirect": ("Hrf_Theorems", "sc_for_hrf_indirect", False),
    # [HRFR15] Theorem A.4, for programs whose atomics are all seq_cst
    "hrf-direct-relaxed": ("Hrf_Relaxed_Theorems", "sc_for_hrf_direct_relaxed", True),
    "hrf-indirect-relaxed": ("Hrf_Relaxed_Theorems", "sc_for_hrf_indirect_relaxed", True),
}


def theorem_instance(name: str, model: str, race_lemma: str, seq_cst_only: bool) -> list:
    """The theorem of `model` (THEOREMS) obtained by `rule` for execution
    `name`, its hypotheses proved by evaluation: that the paper's theorem
    applies to what hrf exports (its `well_formed` included). Empty where the
    theorem asks for seq_cst atomics and the execution has others."""
    if model not in THEOREMS:
        return []
    _, rule, sc_only = THEOREMS[model]
    if sc_only and not seq_cst_only:
        return []
    out = [f'lemma {name}_well_formed: "well_formed {name}"', "  by eval", ""]
    if sc_only:
        # finite (atomics X): by simplification (evaluation would need a finite type of events)
        premises = f"OF {name}_well_formed _ _ {name}_consistent {race_lemma}"
        rest = f"(simp add: atomics_def tag_def {name}_def table_def, eval)"
    else:
        premises = f'OF {name}_well_formed {race_lemma}, where sco = "com {name} \\<inter> same_scope_atomics {name}"'
        rest = "(eval+)"
    return out + [f'theorem {name}_sc: "sc_consistent {name}"', f"  by (rule {rule}[{premises}]) {rest}", ""]


def test_theory(test, model: Model, mt: ModelTheory, limits: Limits, max_executions: int) -> tuple:
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
        f"  imports {mt.theory}" + (f" {THEOREMS[model.name][0]}" if model.name in THEOREMS else ""),
        "begin",
        "",
    ]
    out.append("text \\<open>" + text_body(to_litmus(test).rstrip()) + "\\<close>")
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
    out += [f"text \\<open>{text_body(observed)} {text_body(cover)}.\\<close>", ""]
    for k, (ex, j) in enumerate(shown, 1):
        name = f"ex{k}"
        o = ", ".join(f"{a}={b}" for a, b in outcome(ex).items())
        status = "consistent" if j is not None else "inconsistent"
        out += [
            f"text \\<open>{name}: {status}; outcome {o}.",
            text_body(_describe(comp, ex)) + "\\<close>",
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
                    prop = f"\\<not> ({holds(kind, f'{const} {name}')})"
                out += [f'lemma {name}_{safe_name(check).lower()}: "{prop}"', "  by eval", ""]
            else:
                out += [
                    f'lemma {name}_no_{safe_name(check).lower()}: "{holds(kind, f"{const} {name}")}"',
                    "  by eval",
                    "",
                ]
        if "heterogeneous_race" in mt.flags and "heterogeneous_race" not in raised:
            tags = [event_tags(comp, e) for e in ex["events"]]
            sc_only = all("sc" in t for t in tags if "A" in t)
            out += theorem_instance(name, model.name, f"{name}_no_heterogeneous_race", sc_only)
    out += ["end", ""]
    return theory, "\n".join(out), total, len(shown), cands.complete
