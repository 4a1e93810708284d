"""A scheme's soundness on a family of small programs ([RSP15] sec. 5),
proved in Isabelle program by program: every straight-line program of two
threads with one operation each (every source operation the scheme has a
row for, on one location or two), in each placement of the threads on one
device. For each race-free program, Hrf_Soundness's `sound_check`,
evaluated over Hrf_Mapping's `compile` of the program, proves that every
final state the machine reaches, under either write-back policy, shows an
outcome the source model allows, and that no reachable state deadlocks.
What the source model allows is hrf's verdict on the same program written
as a litmus test (hrf.soundness, which also runs hrf's own explorer).
The litmus tests' atomics are acquire loads, release stores and acq_rel
RMWs: a source model with seq_cst atomics only (HRF-direct,
HRF-indirect) refuses them; hrf-cache's family is judged under the
relaxed HRF models ([HRFR15] App. B: model="hrf-direct-relaxed")."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

from .. import mappings as _mappings
from ..errors import UnsupportedFeature
from .runs import closable, outcome_defs
from .schemes import scheme_theory_name, src_op_term
from .terms import list_term, safe_name, text_body

# The C/OpenCL spelling of each source operation's scope and memory order.
# Hrf_Mapping's operations carry no memory order: the rows are those of
# acquire loads, release stores and acq_rel RMWs (a scheme's seq_cst rows
# are other rows).
_SCOPE_C = {"wg": "memory_scope_work_group", "dev": "memory_scope_device", "all": "memory_scope_all_svm_devices"}
_ORDER_C = {"load": "memory_order_acquire", "store": "memory_order_release", "rmw": "memory_order_acq_rel"}
_LOCS = ("x", "y")
# Members per eval (family_theory).
_CHUNK = 10


@dataclass(frozen=True)
class Member:
    """One program of the family: each thread's operation (op, scope,
    remote, location index), and each thread's work-group."""

    ops: tuple
    wgs: tuple

    @property
    def name(self) -> str:
        parts = [f"{op}_{scope}{'_remote' if remote else ''}_{_LOCS[loc]}" for op, scope, remote, loc in self.ops]
        return "F_" + "__".join(parts) + ("_same_wg" if len(set(self.wgs)) == 1 else "_two_wgs")

    def litmus(self) -> str:
        """The program as a litmus test of hrf's C/OpenCL dialect."""
        lines = [f"OpenCL {self.name}", "{"]
        lines += [f"  [{v}]=0;" for v in _LOCS[: self.locations]] + ["}", ""]
        for t, (op, scope, remote, loc) in enumerate(self.ops):
            x = _LOCS[loc]
            params = ", ".join(
                f"global {'int' if (scope == 'na' and i == loc) else 'atomic_int'}* {v}"
                for i, v in enumerate(_LOCS[: self.locations])
            )
            suffix = "_remote" if remote else ""
            if scope == "na":
                body = f"int r0 = *{x};" if op == "load" else f"*{x} = {t + 1};"
            else:
                args = f"{_ORDER_C[op]}, {_SCOPE_C[scope]}"
                body = {
                    "load": f"int r0 = atomic_load_explicit{suffix}({x}, {args});",
                    "store": f"atomic_store_explicit{suffix}({x}, {t + 1}, {args});",
                    "rmw": f"int r0 = atomic_fetch_add_explicit{suffix}({x}, 1, {args});",
                }[op]
            lines += [f"P{t} ({params}) {{", f"  {body}", "}", ""]
        groups: dict = {}
        for t, w in enumerate(self.wgs):
            groups.setdefault(w, []).append(f"P{t}")
        tree = " ".join(f"(work_group {' '.join(ps)})" for _, ps in sorted(groups.items()))
        lines += [f"scopeTree (device {tree})", "exists (x=0)", ""]
        return "\n".join(lines)

    @property
    def locations(self) -> int:
        return max(loc for *_, loc in self.ops) + 1


def family(scheme: str, locations: int = 2) -> list:
    """The family's programs: two threads with one operation each, over the
    scheme's source operations (single-device rows), P0's on x and P1's on
    x or (with locations=2) y; both threads in one work-group or in two.
    Programs equal up to swapping the threads are listed once."""
    if locations not in (1, 2):
        raise UnsupportedFeature(f"a family over {locations} locations: hrf lists families over 1 or 2")
    keys = sorted(_mappings.get(scheme).rows)
    out = []
    # swapping the threads (and, with two locations, x and y) gives a
    # program already listed: each unordered pair of operations once
    for a, b in itertools.combinations_with_replacement(keys, 2):
        for loc in range(locations):
            for wgs in ((0, 0), (0, 1)):
                out.append(Member(((*a, 0), (*b, loc)), wgs))
    return out


def _src_code(op: str, scope: str, remote: bool, loc: int, value: int) -> str:
    """A thread's source code over Hrf_Mapping: register 0 holds a load's
    or an increment's result, or the value a store writes."""
    access = f"Op ({src_op_term(op, scope, remote)}) 0 {loc}"
    return list_term([f"SetReg 0 {value}", access] if op == "store" else [access])


@dataclass
class FamilyResult:
    out: Path
    theory: str
    members: list = field(default_factory=list)  # the race-free programs proved, by name
    racy: list = field(default_factory=list)  # racy sources: soundness says nothing of them
    left_out: list = field(default_factory=list)  # (name, reason): hrf found no verdict or refused
    # theories of the members hrf finds unsound: the machine's run to the
    # outcome the source model does not allow, proved reachable in Isabelle
    counterexamples: list = field(default_factory=list)


def _member_defs(m: Member, allowed_outcomes: list) -> tuple:
    """A member's definitions (placement, source program, finite part,
    observations, allowed outcomes) and the prefix of their names."""
    p = safe_name(m.name, "F").lower()
    obs, keys = [], []
    for t, (op, *_rest) in enumerate(m.ops):
        if op in ("load", "rmw"):
            obs.append(f"OReg {t} 0")
            keys.append(f"{t}:r0")
    for i in range(m.locations):
        obs.append(f"OMem {i}")
        keys.append(_LOCS[i])
    nwg = max(m.wgs) + 1
    code = ", ".join(f"{t} := {_src_code(o[0], o[1], o[2], o[3], t + 1)}" for t, o in enumerate(m.ops))
    return p, [
        f"text \\<open>{text_body(m.name)}: {text_body(', '.join(_mappings.key_text(o[:3]) for o in m.ops))}; "
        f"P0 in work-group 0, P1 in work-group {m.wgs[1]}.\\<close>",
        f"definition {p}_layout :: layout where",
        f'  "{p}_layout = \\<lparr>wg_of = (\\<lambda>_. 0)(1 := {m.wgs[1]}), dev_of = (\\<lambda>_. 0), '
        f'wgs = {{{", ".join(str(w) for w in range(nwg))}}}, devs = {{0}}\\<rparr>"',
        f"definition {p}_src :: src_program where",
        f'  "{p}_src = \\<lparr>src_threads = {{0, 1}}, src_code = (\\<lambda>_. [])({code}), '
        f'src_init = (\\<lambda>_. 0)\\<rparr>"',
        f"definition {p}_dom :: dom where",
        f'  "{p}_dom = \\<lparr>d_threads = [0, 1], d_regs = [0], d_wgs = {list_term(range(nwg))}, d_devs = [0], '
        f'd_addrs = {list_term(sorted({o[3] for o in m.ops}))}\\<rparr>"',
        *(line for lines in outcome_defs(p, obs, keys, allowed_outcomes) for line in lines),
        "",
    ]


def family_theory(
    scheme: str,
    model: str | None = None,
    locations: int = 2,
    max_states: int = 20_000,
    first: int | None = None,
    max_proof_states: int = 20_000,
    names=None,
    include_unsound: bool = False,
):
    """(theory name, text, proved, racy, left out, unsound results) for a
    scheme's family (its first `first` programs only, where given; only
    those named in `names`, where given). Isabelle's search enumerates the
    unreduced machine, under each write-back policy: a program whose
    unreduced machine has more than `max_proof_states` states is left out,
    and says so. A program hrf finds unsound is left out, unless
    `include_unsound` (a control: Isabelle must then refute it itself, and
    the theory fails to load)."""
    from ..litmus import parse
    from ..soundness import soundness

    s = _mappings.get(scheme)
    model = model or s.model
    c = safe_name(s.name, "S").lower()
    scheme_thy = scheme_theory_name(scheme)
    theory = f"Sound_{safe_name(s.name, 'S')}_family"
    proved, racy, left, unsound = [], [], [], []
    defs, entries = [], []
    for m in family(scheme, locations)[:first]:
        if names is not None and m.name not in names:
            continue
        try:
            res = soundness(parse(m.litmus()), scheme, model=model, max_states=max_states)
        except UnsupportedFeature as e:
            raise UnsupportedFeature(
                f"the family of {scheme} under {model}: {e} (the family's atomics are acquire loads, release "
                "stores and acq_rel RMWs; for hrf-cache, give model hrf-direct-relaxed or hrf-indirect-relaxed)"
            ) from e
        if res.racy_source:
            racy.append(m.name)
            continue
        if res.sound is not True and not (include_unsound and res.sound is False):
            left.append((m.name, res.reason or "hrf found it unsound"))
            if res.sound is False and res.machine:
                unsound.append(res)
            continue
        closed, notes = closable(res, max_proof_states, unsound_too=include_unsound)
        if set(closed) != {"fifo", "any"}:
            left.append((m.name, "; ".join(notes)))
            continue
        p, member_defs = _member_defs(m, res.allowed)
        defs += member_defs
        entries.append(f"({p}_layout, {p}_dom, {p}_src, {p}_obs, {p}_allowed)")
        proved.append(m.name)
    if not entries:
        raise UnsupportedFeature(f"scheme {scheme}: no race-free program of the family that hrf found sound")
    member_t = "(layout \\<times> dom \\<times> src_program \\<times> obs list \\<times> int list list)"
    # The search's fuel: a state per round. Hrf_Mapping's compile moves a
    # store's value into a register first (one MOV more than hrf's compile
    # of the litmus test), so Isabelle's machine is larger than the one
    # `closable` counts (by 8-15% on this family): four times the limit.
    # Fuel that runs out fails the check (sound_check is False), it never
    # proves anything.
    fuel = 4 * max_proof_states + 1
    checked = (
        f"(\\<lambda>(L, D, P, os, vs). sound_check {fuel} D L Fifo (compile {c} P) (src_init P) os vs"
        f" \\<and> sound_check {fuel} D L Any (compile {c} P) (src_init P) os vs)"
    )
    # One eval per chunk of members: each eval generates and compiles the
    # machine's code once (under a second), and the chunks' proofs run in
    # parallel.
    chunks = [entries[i : i + _CHUNK] for i in range(0, len(entries), _CHUNK)]
    names = [f"{c}_family_{k + 1}" for k in range(len(chunks))]
    parts = []
    for name, chunk in zip(names, chunks, strict=True):
        parts += [
            f'definition {name} :: "{member_t} list" where',
            f'  "{name} = [\n     ' + ",\n     ".join(chunk) + ']"',
            f'lemma {name}_checked: "list_all {checked} {name}"',
            "  by eval",
            "",
        ]
    out = [
        f"(* Generated by hrf: scheme {s.name} on every program of two threads with one",
        "   operation each (hrf.isabelle.export_scheme_family). For each race-free one,",
        "   sound_check (Hrf_Soundness) is evaluated over Hrf_Mapping's compile of the",
        "   program, under both write-back policies; machine_sound makes that the",
        f"   scheme's soundness on it. What {model} allows is hrf's verdict. *)",
        f"theory {theory}",
        f"  imports Hrf_Soundness {scheme_thy}",
        "begin",
        "",
        *defs,
        *parts,
        f'definition {c}_family :: "{member_t} list" where',
        f'  "{c}_family = {" @ ".join(names)}"',
        "",
        f'lemma {c}_family_checked: "list_all {checked} {c}_family"',
        f"  unfolding {c}_family_def list_all_append",
        "  by (simp only: simp_thms " + " ".join(f"{n}_checked" for n in names) + ")",
        "",
        f"text \\<open>The soundness of {text_body(s.name)} against {text_body(model)} ([RSP15] sec. 5; for the HRF "
        "papers' implementation, [HRFR15] App. B's validity) on each program of the family (race-free "
        f"under {text_body(model)}): under either write-back policy, every final state the machine reaches "
        "shows an outcome the source model allows, and from every reachable state a final one is "
        "reachable.\\<close>",
        f"theorem {c}_sound_on_family:",
        f'  "\\<forall>(L, D, P, os, vs) \\<in> set {c}_family. \\<forall>wb.',
        f"     (\\<forall>s \\<in> reachable L wb (compile {c} P) (initial (src_init P)).",
        f"         is_final L (compile {c} P) s \\<longrightarrow> map (obs_val s) os \\<in> set vs)",
        f'     \\<and> deadlock_free L wb (compile {c} P) (initial (src_init P))"',
        f"  by (rule sound_on_members[OF {c}_family_checked])",
        "",
        "text \\<open>The same as Hrf_Mapping's sound_on (locale source_model) with the family's verdicts as the "
        "source model (family_allowed: what hrf's source model allows each member; no member is racy).\\<close>",
        f"theorem {c}_sound_on_family_model:",
        f'  "\\<forall>(L, D, P, os, vs) \\<in> set {c}_family. \\<forall>wb.',
        f'     source_model.sound_on (family_allowed {c}_family) (\\<lambda>_ _. False) L wb {c} P"',
        f"  by (rule sound_on_family[OF {c}_family_checked])",
        "",
        "end",
        "",
    ]
    return theory, "\n".join(out), proved, racy, left, unsound
