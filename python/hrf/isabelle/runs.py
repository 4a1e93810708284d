"""Machine-run theories: the runs of a test on the GPU machine, one per
outcome found, and, where the unreduced machine is small enough, the
proof that it has no other outcome."""

from __future__ import annotations

from ..errors import UnsupportedFeature
from ..litmus.printer import format_state
from ..machine.instructions import ISABELLE_SCOPES, SCOPE_NAMES, mnemonic, row_of
from .terms import int_term, list_term, safe_name, set_term, text_body

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


def _expr(e: dict) -> str:
    """A machine expression (the IR's `Expr`) as Hrf_Machine's `expr`."""
    k = e["k"]
    if k == "c":
        return f"EC {int_term(e['v'])}"
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
    obs_def, allowed_def = outcome_defs(p, obs, keep, res.allowed)
    defs = [
        f"definition {p}_dom :: dom where",
        f'  "{p}_dom = \\<lparr>d_threads = {list_term(range(len(prog.threads)))}, d_regs = {list_term(range(nregs))}, '
        f'd_wgs = {list_term(range(nwg))}, d_devs = {list_term(range(ndev))}, d_addrs = {list_term(used)}\\<rparr>"',
        "",
        *obs_def,
        "",
        *allowed_def,
        "",
    ]
    return defs, keep, left


def outcome_defs(p: str, obs: list, keys: list, allowed: list) -> tuple:
    """The definitions `{p}_obs` (Hrf_Closure's observations, one per key)
    and `{p}_allowed` (the source model's allowed outcomes, each the values
    of `keys` in that order, sorted, once each), as two pairs of lines."""
    rows = sorted({tuple(a[k] for k in keys) for a in allowed})
    return (
        [f'definition {p}_obs :: "obs list" where', f'  "{p}_obs = {list_term(obs)}"'],
        [
            f'definition {p}_allowed :: "int list list" where',
            f'  "{p}_allowed = {list_term(list_term(int_term(v) for v in a) for a in rows)}"',
        ],
    )


def run_theory(res, name: str | None = None, closed: dict | None = None) -> tuple:
    """(theory name, text) for the machine runs of a soundness check
    (`hrf.soundness`): the compiled program as Hrf_Machine data and, for
    each outcome the explorer found under each write-back policy, the trace
    that reached it as a run, with a theorem that the outcome is one of the
    machine's (a reachable final state), proved by evaluating the run. An
    outcome the source model does not allow is marked as the scheme's
    counterexample. `closed` (write-back policy -> numbers of states and of
    states not final of the unreduced machine, as `closable` gives them):
    for those policies, a theorem that the machine has no outcome the source
    model does not allow, proved by Hrf_Closure's `machine_outcomes_within`
    over the reachable states, which Isabelle enumerates and checks closed
    (by eval), counting as many states that are not final as hrf."""
    from ..soundness import outcome_key

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
    code = [list_term(machine_instr(ins, len(t.regs)) for ins in t.code) for t in prog.threads]
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
        f"text \\<open>Locations: {text_body(', '.join(f'{n} = {i}' for i, n in enumerate(locs)))}. Threads: "
        + text_body(
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
        f'dev_of = {_fun(sorted(wg_dev.items()))}, wgs = {set_term(range(nwg))}, devs = {set_term(range(ndev))}\\<rparr>"',
        "",
        f"definition {p}_program :: program where",
        f'  "{p}_program = \\<lparr>threads = {set_term(range(len(prog.threads)))}, instrs = '
        + _fun(((i, c) for i, c in enumerate(code)), "[]")
        + '\\<rparr>"',
        "",
        f'definition {p}_init :: "addr \\<Rightarrow> int" where',
        f'  "{p}_init = {_fun((i, int_term(v)) for i, (_, v) in enumerate(prog.locations))}"',
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
                facts.append(f"{at} = {int_term(o[name_])}")
            q = " \\<and> ".join(facts) or "True"
            lemma = f"{p}_{wb}_{k}"
            verdict = (
                f"allowed by {res.model}"
                if outcome_key(o) in allowed
                else f"not allowed by {res.model}: a counterexample to scheme {res.scheme}"
            )
            ctx = f"{p}_layout {wbc} {p}_program"
            out += [
                f"text \\<open>writeback={wb}, outcome {text_body(format_state(o).rstrip(';'))}: {text_body(verdict)}.\\<close>",
                f'definition {lemma}_trace :: "label list" where',
                f'  "{lemma}_trace = {list_term(labels)}"',
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
            f"{text_body(res.model)} allows, over {text_body(', '.join(keep))}"
            + (f" ({text_body(', '.join(left))}: no instruction accesses them)" if left else "")
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


def closable(r, max_proof_states: int, progress=None, unsound_too: bool = False) -> tuple:
    """For a scheme hrf found sound on a test (or, `unsound_too`, unsound:
    a control whose proof must fail): write-back policy -> (number of
    states, number of them not final) of the unreduced machine, for the
    policies whose unreduced machine has at most `max_proof_states` states
    (Isabelle enumerates them again); and a note for each policy left out."""
    from ..machine import explore

    closed: dict[str, tuple[int, int]] = {}
    notes: list[str] = []
    if not (r.sound is True or (unsound_too and r.sound is False)) or max_proof_states == 0:
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
