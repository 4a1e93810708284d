"""Scheme theories: a compilation scheme's rows as data over
`Hrf_Machine`; the rows `Hrf_Simulation`'s theorems cover, proved to be
such (`<name>_l1_rows`, `<name>_l2_rows`) with the theorems' instances; where every row takes
its rmw locks in brackets, that proved (`<name>_disciplined`) with deadlock
freedom of every program the scheme compiles; and, over
`Hrf_Mapping`, the goals a proof would discharge: a row's `row_implements`
and the scheme's `sound`, stated as definitions (`<name>_goal`) over an
arbitrary source model (where it does not hold), and proved against
OpenCL+RSP where every row the scheme has is one the theorems take and no
remote row is at all-devices scope (`<name>_sound`)."""

from __future__ import annotations

from .. import mappings as _mappings
from ..errors import UnsupportedFeature
from ..machine.instructions import isabelle_term
from .terms import list_term, safe_name, text_body

# --------------------------------------------------------- scheme theories
_SRC_OP = {"load": "Load", "store": "Store", "rmw": "FetchInc"}
_SRC_SCOPE = {"na": "NonAtomic", "wg": "WorkGroup", "dev": "Device", "all": "AllDevices"}
# A row's access itself: the source access's register r at location x.
_ACCESS = {"LD": "LD r x", "ST": "ST (ER r) x", "RMWL1": "INCL1 r x", "RMWL2": "INCL2 r x"}
# The interpretations of sc_source_model by Hrf_Source (and
# Hrf_Source_Opencl, for opencl-rsp): the source models whose candidate
# executions it defines.
SOURCE_MODELS = ("sc", "hrf_direct", "hrf_indirect", "hrf_direct_relaxed", "hrf_indirect_relaxed", "opencl_rsp")

# Hrf_Coherence's conjuncts of the candidate: coherence agrees with program
# order on a thread's writes of a location; and on every pair of accesses
# of a location, reads included (po_loc_ok), so the candidate is SC per
# location (com_loc acyclic).
_PO_CO = (
    "         \\<and> (\\<forall>e e'. (e, e') \\<in> src_po P \\<and> is_wr P e \\<and> is_wr P e' "
    "\\<and> sloc P e = sloc P e' \\<longrightarrow> (e, e') \\<in> co)"
)
_PO_LOC = "         \\<and> po_loc_ok P rfw co \\<and> acyclic (com_loc P rfw co)"

# Hrf_Simulation's L1 rows: the one data instruction an L1 access (LD, ST,
# RMWL1 for a load, a store, an RMW), every other one quiet (a flush, an
# invalidation or a lock).
_L1_ACCESS = {"load": "LD", "store": "ST", "rmw": "RMWL1"}
_QUIET = {"FLUL1", "FLUL2", "INVL1", "INVL2", "LK", "UNLK", "LKrmw", "UNLKrmw"}


# Hrf_Simulation's `unlocked` instructions: they take no lock and do not branch.
_UNLOCKED = {"LD", "ST", "RMWL1", "RMWL2", "FLUL1", "FLUL2", "INVL1", "INVL2"}


def _data_words(seq) -> list:
    """A row's instructions that are not quiet (Hrf_Simulation's visible
    ones), by name."""
    return [w for w in (word.split()[0] for word in seq) if w not in _QUIET]


def l1_row(op: str, seq) -> bool:
    """Whether a row is one of Hrf_Simulation's L1 rows (its theorem then
    applies to programs using it): hrf chooses the rows, Isabelle proves
    that they are (`<scheme>_l1_rows`)."""
    return _data_words(seq) == [_L1_ACCESS[op]]


def l2_row(op: str, seq) -> bool:
    """Whether a row is one of Hrf_Simulation's L2 rows: an RMW whose one
    data instruction is the increment at the device's L2 (RMWL2), every
    other one quiet. Its theorem covers locations homed in a device and
    accessed only through such rows (`<scheme>_l2_rows`)."""
    return op == "rmw" and _data_words(seq) == ["RMWL2"]


def _flushed_before(seq, picked) -> bool:
    """Whether each instruction `picked` takes in a row comes after a flush
    of the L1 with only quiet instructions between (Hrf_Coherence's
    `flq D False`)."""
    ready = False
    for word in seq:
        op = word.split()[0]
        if op != "FLUL1" and picked(op):
            if not ready:
                return False
            ready = False
        else:
            ready = op == "FLUL1" or (ready and op in _QUIET)
    return True


def flushed_row(seq) -> bool:
    """Whether each increment at the L2 (RMWL2) in a row comes after a
    flush of the L1 with only quiet instructions between (Hrf_Coherence's
    `fl_seq False`): a thread's writes waiting in its L1 reach the L2
    before its increment there. hrf chooses, Isabelle proves
    (`<scheme>_l2_flushed`)."""
    return _flushed_before(seq, lambda op: op == "RMWL2")


def released_row(seq) -> bool:
    """Whether each data instruction of a row comes after a flush of the L1
    with only quiet instructions between (Hrf_Happens's `vis_flushed`): a
    release at device scope or wider, all of whose thread's known writes
    have reached the L2 when it is performed. hrf chooses, Isabelle proves
    (`<scheme>_rel_rows`)."""
    return _flushed_before(seq, lambda op: op not in _QUIET)


def l2_after_l1_row(seq) -> bool:
    """Whether each flush of the L2 (FLUL2) in a row comes after a flush of
    the L1 with only quiet instructions between (`flq flul2 False`, part of
    Hrf_Happens's `mem_rows`): the writes waiting in the thread's L1 reach
    the L2 before the L2's are sent on to memory."""
    return _flushed_before(seq, lambda op: op == "FLUL2")


def memory_released_row(seq) -> bool:
    """Whether each data instruction of a row comes after a flush of the L2
    that itself comes after a flush of the L1, with only quiet instructions
    between (Hrf_Happens's `vis_flushed2`): an all-devices release, all of
    whose thread's known writes have reached memory when it is performed.
    hrf chooses, Isabelle proves (`<scheme>_mem_rows`)."""
    l1 = l2 = False
    for word in seq:
        op = word.split()[0]
        if op not in _QUIET:
            if not l2:
                return False
            l1 = l2 = False
        elif op == "FLUL1":
            l1 = True
        elif op == "FLUL2":
            l2 = l1
    return True


def _invalidated_after(seq, picked) -> bool:
    """Whether each instruction `picked` takes in a row is followed by an
    invalidation of the L1 (INVL1) with only quiet instructions between,
    within the row."""
    pending = False
    for word in seq:
        op = word.split()[0]
        if op == "INVL1":
            pending = False
        elif pending and op not in _QUIET:
            return False
        elif picked(op):
            pending = True
    return not pending


def l2_invalidated_after_row(seq) -> bool:
    """Whether each data instruction of a row is followed by an
    invalidation of the L2 and then one of the L1, with only quiet
    instructions between, none an invalidation of the L1 before the L2's
    (Hrf_Happens's `inv2_after`): an all-devices acquire, which may learn
    writes another device's release put in memory while its device's L2
    holds older lines (hrf's LD; INVL2 DV; INVL1 WG, the L2 before the L1).
    hrf chooses, Isabelle proves (`<scheme>_acq2_rows`)."""
    ops = [word.split()[0] for word in seq]
    for m, op in enumerate(ops):
        if op in _QUIET:
            continue
        rest = ops[m + 1 :]
        if "INVL2" not in rest:
            return False
        j = rest.index("INVL2")
        if "INVL1" in rest[:j] or "INVL1" not in rest[j:]:
            return False
        k = j + rest[j:].index("INVL1")
        if any(o not in _QUIET for o in rest[:k]):
            return False
    return True


def promoted_row(seq) -> bool:
    """Whether each data instruction of a row comes after an invalidation of
    every L1 of the device or wider (INVL1 DV or ALL) that a flush of the
    L1 precedes, with only quiet instructions between (Hrf_Happens's
    `dinv`): a remote release, whose thread's known writes have reached the
    L2 and which every work-group of its device then finds. hrf chooses,
    Isabelle proves (`<scheme>_prom_rows`)."""
    flushed = invalidated = False
    for word in seq:
        op, *arg = word.split()
        if op not in _QUIET:
            if not invalidated:
                return False
            flushed = invalidated = False
        else:
            invalidated = invalidated or (op == "INVL1" and arg[0] in ("DV", "ALL") and flushed)
            flushed = flushed or op == "FLUL1"
    return True


# The programs the theorems after Hrf_Happens's machine_knows_home cover,
# as their texts name them (Hrf_Happens's load_promotion).
_PROMOTION = (
    "whose remote operations promote at most a load by a remote store or a remote RMW, a "
    "work-group-scope write to a remote load, a remote RMW or a remote store (load_promotion)"
)


def remote_acquire_row(seq) -> bool:
    """Whether the data instruction of a row is followed by a flush of the
    L1s of the device or wider (FLUL1 DV or ALL), with only quiet
    instructions between, none a flush or an invalidation of the L1
    (Hrf_Happens's `rl_after`): a remote acquire (a remote load, or a
    remote RMW), which may learn writes still waiting in another
    work-group's L1 and flushes them to the L2 before it invalidates its
    own. hrf chooses, Isabelle proves (`<scheme>_rl_rows`)."""
    after = False
    for word in seq:
        op, *arg = word.split()
        if after:
            if op == "FLUL1":
                return arg[0] in ("DV", "ALL")
            if op == "INVL1" or op not in _QUIET:
                return False
        elif op not in _QUIET:
            after = True
    return not after


def invalidated_row(seq) -> bool:
    """Whether each increment at the L2 (RMWL2) in a row is followed by an
    invalidation of the L1 (INVL1) with only quiet instructions between,
    within the row (Hrf_Coherence's `iv_seq False`): the thread's next read
    of its L1 does not find a line older than its increment. hrf chooses,
    Isabelle proves (`<scheme>_l2_invalidated`)."""
    return _invalidated_after(seq, lambda op: op == "RMWL2")


def acquired_row(seq) -> bool:
    """Whether each data instruction of a row is followed by an
    invalidation of the L1 with only quiet instructions between (Hrf_Happens's
    `ia_seq False`): an acquire at device scope or wider, or an increment at
    the L2, after which the thread reads no line older than what it has
    learnt. hrf chooses, Isabelle proves (`<scheme>_acq_rows`)."""
    return _invalidated_after(seq, lambda op: op not in _QUIET)


def disciplined_row(seq) -> bool:
    """Whether a row keeps Hrf_Simulation's lock discipline (`disc None`):
    an LKrmw only when it holds no rmw lock, an UNLKrmw only of the scope it
    holds, no lock of the lock file, and none held at the end. A scheme all
    of whose rows keep it compiles only deadlock-free programs
    (`<scheme>_deadlock_free`); hrf chooses, Isabelle proves."""
    held = None
    for word in seq:
        op, *arg = word.split()
        if op == "LKrmw" and held is None:
            held = arg[0]
        elif op == "UNLKrmw" and held == arg[0]:
            held = None
        elif op not in _UNLOCKED:
            return False
    return held is None


def _held(seq) -> list:
    """The scope of the rmw lock a row holds before each of its positions
    (its length + 1 of them), None where it holds none (Hrf_Simulation's
    `held`)."""
    held = [None]
    for word in seq:
        op, *arg = word.split()
        held.append(arg[0] if op == "LKrmw" else None if op == "UNLKrmw" else held[-1])
    return held


def locked_row(seq) -> bool:
    """Whether a row takes its rmw locks as Hrf_Atomicity's `lk_code` says,
    position by position: disciplined; an increment in the L1 (RMWL1) inside
    an rmw bracket and before any flush of the L1 made in it; an increment at
    the L2 (RMWL2) after such a flush with only quiet instructions and no
    UNLKrmw between; the invalidation of the L1 after it in the row, with
    the bracket still held up to it. A scheme whose rows all do has every
    RMW atomic on a race-free program (`<scheme>_outcomes_rmw_atomic`); hrf
    chooses, Isabelle proves (`<scheme>_lk_rows`)."""
    if not disciplined_row(seq):
        return False
    ops = [word.split()[0] for word in seq]
    n = len(ops)
    held = [scope is not None for scope in _held(seq)]  # an rmw lock is held before position p

    def flushed(p):  # Hrf_Atomicity's lk_flushed
        return any(
            ops[j] == "FLUL1" and held[j] and all(ops[m] in _QUIET and ops[m] != "UNLKrmw" for m in range(j + 1, p))
            for j in range(p)
        )

    def win(p):  # Hrf_Happens's win: an INVL1 ahead, only quiet instructions between
        return any(ops[j] == "INVL1" and all(ops[m] in _QUIET for m in range(p, j)) for j in range(p, n))

    def calm(op):
        return op in _QUIET and op != "INVL1"

    for p, op in enumerate(ops):
        if op == "RMWL1" and not (held[p] and not flushed(p)):
            return False
        if op == "RMWL2" and not (flushed(p) and win(p + 1)):
            return False
        if op == "RMWL2":
            # the wait for the invalidation after it, inside the bracket
            for r in range(p + 1, n + 1):
                if not all(calm(ops[m]) for m in range(p + 1, r)):
                    break
                if win(r) and not held[r]:
                    return False
    return True


def remote_rmw_row(seq) -> bool:
    """Whether a remote RMW's row makes its increment at the L2 (RMWL2) as
    Hrf_Atomicity's `rr_code` says: under an rmw lock wider than the
    work-group's, after a flush of the L1s of the device or wider (FLUL1 DV
    or ALL) made under such a lock with only quiet instructions and no
    UNLKrmw between, and before an invalidation of the L1s of the device or
    wider (INVL1 DV or ALL) with only quiet instructions, none an
    invalidation of the L1, between. The remote RMW then excludes the
    work-group RMWs of every work-group of its device. hrf chooses,
    Isabelle proves (`<scheme>_rr_rows`)."""
    words = [word.split() for word in seq]
    held = _held(seq)

    def wide(p, name):
        return words[p][0] == name and words[p][1] in ("DV", "ALL")

    for m, (op, *_arg) in enumerate(words):
        if op in _QUIET:
            continue
        if held[m] in (None, "WG"):
            return False
        if not any(
            wide(j, "FLUL1")
            and held[j] not in (None, "WG")
            and all(words[i][0] in _QUIET and words[i][0] != "UNLKrmw" for i in range(j + 1, m))
            for j in range(m)
        ):
            return False
        if not any(
            wide(j, "INVL1") and all(words[i][0] in _QUIET and words[i][0] != "INVL1" for i in range(m + 1, j))
            for j in range(m + 1, len(words))
        ):
            return False
    return True


def remote_store_row(seq) -> bool:
    """Whether a remote store's row makes its store (ST) as Hrf_Atomicity's
    `rs_code` says: as `remote_rmw_row` says of an increment, and then, up
    to the first invalidation of an L1 after the store, a flush of the L1
    and no rmw lock taken or released. The store then reaches the L2 before
    its thread passes that invalidation, still under the lock, and a
    work-group RMW of its device finds it there. hrf chooses, Isabelle
    proves (`<scheme>_rr_rows`)."""
    if not remote_rmw_row(seq):
        return False
    words = [word.split()[0] for word in seq]
    for m, op in enumerate(words):
        if op in _QUIET:
            continue
        j = next((j for j in range(m + 1, len(words)) if words[j] == "INVL1"), len(words))
        between = words[m + 1 : j]
        if "FLUL1" not in between or any(w in ("LKrmw", "UNLKrmw") for w in between):
            return False
    return True


def src_op_term(op: str, scope: str, remote: bool) -> str:
    """A source operation (a row's key) as Hrf_Mapping's `src_op`."""
    return f"{_SRC_OP[op]} {_SRC_SCOPE[scope]} {'True' if remote else 'False'}"


def scheme_theory_name(scheme: str) -> str:
    return f"Scheme_{safe_name(_mappings.get(scheme).name, 'S')}"


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
    theory = scheme_theory_name(scheme)
    out = [
        f"(* Generated by hrf from python/hrf/mappings: scheme {s.name}.",
        "   Its rows as data over Hrf_Machine; the rows that perform their",
        "   access in the L1 or as an increment at the L2, with Hrf_Simulation's",
        "   theorems for them (proved);",
        "   where every row takes its rmw locks in brackets, deadlock freedom",
        "   of every program the scheme compiles (proved);",
        "   a goal per row and the scheme's soundness goal, stated over",
        "   Hrf_Mapping as definitions, and proved against OpenCL+RSP where",
        "   the theorems take every row and no remote row is at all-devices",
        "   scope (docs/isabelle.md says what is proved: per test, on a family",
        "   of programs, and for every race-free program whose remote",
        "   operations meet accesses of their own device only). *)",
        f"theory {theory}",
        "  imports Hrf_Source_Opencl Hrf_Coherence Hrf_Happens Hrf_Atomicity Hrf_Consistent",
        "begin",
        "",
        f"text \\<open>{text_body(s.description)} (default source model: {s.model}).\\<close>",
        "",
    ]

    def listed(rows):
        return [
            (
                op,
                scope,
                remote,
                r,
                src_op_term(op, scope, remote),
                list_term(_instr(w) for w in r.seq),
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
                f"Source: {text_body(r.source)}.\\<close>",
                f'definition {lemma}_goal :: bool where "{lemma}_goal \\<longleftrightarrow> row_implements {name} ({src})"',
                "",
            ]
        return out

    def rows_defs(name):
        """The definitions of the scheme's row lists (its base's too)."""
        return f"{name}_rows_def" + (f" {base_of[name]}_rows_def" if name in base_of else "")

    def chosen(name, rows, keep):
        """The source operations whose rows `keep` takes, as a list and as a
        set term."""
        ops = [src for op, _scope, _remote, r, src, _seq in rows if keep(op, r.seq)]
        return ops, "{" + ", ".join(ops) + "}"

    def deadlock_theorem(name):
        """Every row of the scheme's map_of list (rows it shadows included)
        keeps the lock discipline: proved, with deadlock freedom of every
        program the scheme compiles."""
        return [
            f"text \\<open>Every row of {name} takes its rmw locks in brackets (Hrf_Simulation's "
            "disciplined_scheme): every program it compiles is deadlock-free, on every layout that "
            "places it, under both write-back policies (half of the goal sound).\\<close>",
            f'lemma {name}_disciplined: "disciplined_scheme {name}"',
            f"  unfolding {name}_def by (rule disciplined_map_of) (simp add: {rows_defs(name)})",
            "",
            f"theorem {name}_deadlock_free:",
            f'  "\\<forall>P L wb. compilable {name} P \\<and> well_placed L P',
            f'     \\<longrightarrow> deadlock_free L wb (compile {name} P) (initial (src_init P))"',
            f"  using scheme_deadlock_free[OF {name}_disciplined] by blast",
            "",
        ]

    def class_theorem(head, quantifier, premises, conclusion, proof):
        """A theorem over the programs of Hrf_Simulation's class: the
        quantified premises, the homes on the layout, the conclusion."""
        return [
            f"theorem {head}:",
            f'  "{quantifier} {premises}',
            "     \\<and> (\\<forall>x. h x \\<in> wgs L \\<and> dev_of L (h x) \\<in> devs L)",
            f'     \\<longrightarrow> {conclusion}"',
            f"  using {proof} by blast",
            "",
        ]

    def outcomes_sc(name, thm, quantifier, premises, proof):
        sc = f"outcomes L wb (compile {name} P) (initial (src_init P)) \\<subseteq> sc_outcomes P"
        return class_theorem(f"{name}_{thm}", quantifier, premises, sc, proof)

    def sound_on(name, thm, quantifier, premises, proof):
        """The locale theorem `thm` (sound_on for the class), then its
        instance against each source model Hrf_Source interprets
        sc_source_model with: no assumption left."""
        out = class_theorem(
            f"(in sc_source_model) {name}_{thm}", quantifier, premises, f"sound_on L wb {name} P", proof
        )
        out.append(
            "text \\<open>The same against SC, HRF-direct, HRF-indirect, the HRF-relaxed models and "
            "OpenCL+RSP, each judging the source program's candidate executions (Hrf_Source).\\<close>"
        )
        for model in SOURCE_MODELS:
            out += class_theorem(
                f"{name}_{thm}_{model}",
                quantifier,
                premises,
                f"{model}_source.sound_on L wb {name} P",
                f"{model}_source.{name}_{thm}",
            )
        return out

    def l1_theorem(name, rows, disciplined):
        ops, ops_set = chosen(name, rows, l1_row)
        if not ops:
            return []
        out = [
            f"text \\<open>The operations whose rows in {name} perform their access in the L1 "
            "(Hrf_Simulation's l1_rows): on a program whose every location is accessed by the "
            "threads of one work-group, whatever the layout and the write-back policy, every "
            "outcome of the machine is an SC outcome of the source program.\\<close>",
            f'lemma {name}_l1_rows: "l1_rows {name} {ops_set}"',
            f"  by (simp add: l1_rows_def l1_row_def {name}_def {rows_defs(name)} access_def)",
            "",
        ]
        homed = f"ops_of P \\<subseteq> {ops_set} \\<and> homed L h P"
        out += outcomes_sc(
            name, "homed_outcomes_sc", "\\<forall>P L h wb.", homed, f"homed_outcomes_sc[OF {name}_l1_rows]"
        )
        if disciplined:
            out += [
                "text \\<open>The scheme being disciplined, on a program of the class placed on any layout it "
                "is sound (Hrf_Mapping's sound_on: outcomes and deadlock freedom) against every source "
                "model that allows the SC outcomes of a race-free program.\\<close>",
            ]
            out += sound_on(
                name,
                "homed_sound_on",
                "\\<forall>P L h wb.",
                f"{homed} \\<and> well_placed L P",
                f"homed_sound_on[OF {name}_l1_rows {name}_disciplined]",
            )
        return out

    def l2_theorem(name, rows, disciplined):
        """The L2 rows, with the theorems for the class they widen (over the
        L1 rows' lemma: none without L1 rows)."""
        ops, ops_set = chosen(name, rows, l2_row)
        l1_ops, l1_set = chosen(name, rows, l1_row)
        if not ops or not l1_ops:
            return []
        homed = f"ops_of P \\<subseteq> {l1_set} \\<union> {ops_set} \\<and> homed_l2 L h Z R {ops_set} P"
        out = [
            f"text \\<open>The operations whose rows in {name} perform their access as an increment at "
            "the device's L2 (Hrf_Simulation's l2_rows): on a program whose every location is homed "
            "in a work-group (accessed by its threads through the L1 rows above), or in a device "
            "(accessed by its threads through these rows), or read-only (loaded by any thread), every "
            "outcome of the machine is an SC outcome of the source program.\\<close>",
            f'lemma {name}_l2_rows: "l2_rows {name} {ops_set}"',
            f"  by (simp add: l2_rows_def l2_row_def {name}_def {rows_defs(name)})",
            "",
        ]
        rows_l1_l2 = f"{name}_l1_rows {name}_l2_rows"
        out += outcomes_sc(
            name, "homed_l2_outcomes_sc", "\\<forall>P L h Z R wb.", homed, f"homed_l2_outcomes_sc[OF {rows_l1_l2}]"
        )
        if disciplined:
            out += sound_on(
                name,
                "homed_l2_sound_on",
                "\\<forall>P L h Z R wb.",
                f"{homed} \\<and> well_placed L P",
                f"homed_l2_sound_on[OF {rows_l1_l2} {name}_disciplined]",
            )
        return out

    def l2_property(name, rows, l2_set, prop, row_ok, text):
        """The lemma that every L2 row of the scheme has Hrf_Coherence's
        `prop` (`<prop>_empty` without L2 rows), or None where a row lacks
        it."""
        taken = [r for op, _scope, _remote, r, _src, _seq in rows if l2_row(op, r.seq)]
        if not all(row_ok(r.seq) for r in taken):
            return None, []
        if not taken:
            return f"{prop}_empty", []
        return f"{name}_{prop}", [
            f"text \\<open>Each of these increments at the L2 {text} (Hrf_Coherence's {prop}).\\<close>",
            f'lemma {name}_{prop}: "{prop} {name} {l2_set}"',
            f"  by (simp add: {prop}_def {name}_def {rows_defs(name)})",
            "",
        ]

    def outcomes_theorem(name, thm, ops, conjuncts, proof):
        """A theorem that every outcome of the scheme's programs over `ops`
        is the outcome of a candidate with the given properties."""
        body = [
            f"theorem {name}_{thm}:",
            f'  "\\<forall>P L wb. ops_of P \\<subseteq> {ops} \\<and> well_placed L P',
            f"     \\<longrightarrow> outcomes L wb (compile {name} P) (initial (src_init P))",
            "       \\<subseteq> {ob. \\<exists>rfw co v. cand_ok P rfw co v \\<and> is_outcome P co v ob",
            *conjuncts,
        ]
        body[-1] += '}"'
        return body + proof + [""]

    def not_stated(what: str, why: str) -> list:
        """A text saying a theorem is not stated for the scheme, and why."""
        return [f"text \\<open>Not stated: {what} ({why}).\\<close>", ""]

    def race_free_premises(name, ops, devices, promotion="load_promotion L P"):
        """The statement's head, up to the machine's outcomes: every race-free
        program (OpenCL+RSP, as hrf exports it) of the operations `ops`
        whose remote operations promote at most a load by a remote store or
        a remote RMW, a work-group-scope write to a remote load, a remote
        RMW or a remote store (Hrf_Happens's load_promotion, of the program
        itself or, as `promotion` says, of the program with its plain
        accesses read as work-group-scope atomics), without non-atomic
        RMWs, and, as `devices` names it, whose conflicting accesses sit on
        one device (Hrf_Happens's dev_conflicts) or, on two, are all-devices
        atomics, neither remote (dev_sys)."""
        dev = f"\\<and> {devices} L P " if devices else ""
        return [
            f'  "\\<forall>P L wb. ops_of P \\<subseteq> {ops} \\<and> well_placed L P {dev}'
            f"\\<and> \\<not> na_rmw P \\<and> {promotion}",
            "     \\<and> \\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P",
            f"     \\<longrightarrow> outcomes L wb (compile {name} P) (initial (src_init P))",
        ]

    def race_free_outcomes(name, thm, ops, devices, tail, rule):
        """A theorem that every outcome of such a program (race_free_premises)
        is the outcome of a candidate with the properties `tail` (lines, the
        first continuing the set's), by `rule`."""
        conclusion = [
            "       \\<subseteq> {ob. \\<exists>rfw co v. cand_ok P rfw co v \\<and> is_outcome P co v ob " + tail[0]
        ]
        conclusion += tail[1:]
        conclusion[-1] += '}"'
        return [
            f"theorem {name}_{thm}:",
            *race_free_premises(name, ops, devices),
            *conclusion,
            f"  using {rule}",
            "  by blast",
            "",
        ]

    def candidates_theorem(name, rows):
        """Hrf_Exhibit's machine_outcomes_candidates for the programs whose
        every operation has an L1 or an L2 row, then Hrf_Coherence's
        theorems where the L2 rows are flushed (and invalidated)."""
        l1_ops, l1_set = chosen(name, rows, l1_row)
        l2_ops, l2_set = chosen(name, rows, l2_row)
        if not l1_ops:
            return []
        ops, l2_lemma = (f"{l1_set} \\<union> {l2_set}", f"{name}_l2_rows") if l2_ops else (l1_set, "l2_rows_empty")
        out = [
            "text \\<open>On every program whose operations all have such rows, well placed on any layout, "
            "under either write-back policy, every outcome of the machine is the outcome of a candidate "
            "execution of the source program (Hrf_Exhibit): its reads read from the writes their lines held, "
            "its coherence is the order in which writes reached memory. No model's axioms are claimed of "
            "it.\\<close>",
        ] + outcomes_theorem(
            name,
            "outcomes_candidates",
            ops,
            [],
            [f"  using machine_outcomes_candidates[OF {name}_l1_rows {l2_lemma}] by blast"],
        )
        flushed, lemma = l2_property(name, rows, l2_set, "l2_flushed", flushed_row, "comes after a flush of the L1")
        if flushed is None:
            return out
        out += lemma + [
            "text \\<open>So the candidate's coherence orders each thread's writes of a location as the "
            "program does (Hrf_Coherence).\\<close>",
        ]
        out += outcomes_theorem(
            name,
            "outcomes_po_co",
            ops,
            [_PO_CO],
            [
                "  apply (intro allI impI)",
                f"  apply (rule machine_outcomes_po_co[OF {name}_l1_rows {l2_lemma} _ {flushed}])",
                "  by simp_all",
            ],
        )
        if l2_ops:
            out += l2_atomic_theorem(name, ops, flushed, l2_set)
        invalidated, lemma = l2_property(
            name, rows, l2_set, "l2_invalidated", invalidated_row, "is followed by an invalidation of the L1"
        )
        if invalidated is None:
            return out + [
                "text \\<open>Not stated: Hrf_Coherence's theorem on a thread's reads (po_loc_ok) "
                f"(an increment at the L2 of {name} is not followed by an invalidation of the L1).\\<close>",
                "",
            ]
        out += lemma + [
            "text \\<open>So the candidate's reads-from and coherence agree with program order on each "
            "location, reads included (Hrf_Coherence's po_loc_ok): it is SC per location.\\<close>",
        ]
        out += outcomes_theorem(
            name,
            "outcomes_po_loc",
            ops,
            [_PO_LOC],
            [
                "  apply (intro allI impI)",
                f"  apply (rule machine_outcomes_po_loc[OF {name}_l1_rows {l2_lemma} _ {flushed} {invalidated}])",
                "  by simp_all",
            ],
        )
        return out + knows_theorem(name, rows, ops, l2_lemma, flushed, invalidated)

    def l2_atomic_theorem(name, ops, flushed, l2_set):
        """Hrf_Atomicity's machine_outcomes_l2_atomic for the scheme: on one
        device (where conflicting accesses sit on one) its RMWs performed at
        the L2 are atomic, racy or not."""
        return [
            "text \\<open>So where conflicting accesses sit on one device (dev_conflicts), every RMW these "
            "rows perform at the L2 is atomic in that "
            "candidate: no write comes, in its coherence, between the write the RMW reads from and its own "
            "(Hrf_Atomicity's rmw_atomic), race-free or not.\\<close>",
            f"theorem {name}_outcomes_l2_atomic:",
            f'  "\\<forall>P L wb. ops_of P \\<subseteq> {ops} \\<and> well_placed L P \\<and> dev_conflicts L P',
            f"     \\<longrightarrow> outcomes L wb (compile {name} P) (initial (src_init P))",
            "       \\<subseteq> {ob. \\<exists>rfw co v. cand_ok P rfw co v \\<and> is_outcome P co v ob",
            f'         \\<and> (\\<forall>t k. at_l2 {l2_set} P t k \\<longrightarrow> rmw_atomic P rfw co t k)}}"',
            f"  using machine_outcomes_l2_atomic[OF {name}_l1_rows {name}_l2_rows _ {flushed}] by blast",
            "",
        ]

    def knows_theorem(name, rows, ops, l2_lemma, flushed, invalidated):
        """Hrf_Happens's machine_knows_home for the scheme, where its rows
        that write at device scope or wider are releases (flushed first)
        and its RMWs at such scope are performed at the L2."""
        taken = [
            (op, r)
            for op, scope, _remote, r, _src, _seq in rows
            if op in ("store", "rmw") and scope in ("dev", "all") and (l1_row(op, r.seq) or l2_row(op, r.seq))
        ]
        if not all(released_row(r.seq) and (op != "rmw" or l2_row(op, r.seq)) for op, r in taken):
            return not_stated(
                "Hrf_Happens's theorem on what a thread knows",
                f"a row of {name} that writes at device scope or wider is not flushed first, or its RMW at such "
                "scope is not performed at the L2",
            )
        remote_acquires = [
            (op, r)
            for op, scope, remote, r, _src, _seq in rows
            if op in ("load", "rmw") and remote and scope in ("dev", "all") and (l1_row(op, r.seq) or l2_row(op, r.seq))
        ]
        if not all(remote_acquire_row(r.seq) and (op != "rmw" or l2_row(op, r.seq)) for op, r in remote_acquires):
            return not_stated(
                "Hrf_Happens's theorem on what a thread knows",
                f"a remote load or RMW row of {name} does not flush the L1s of its device after its access before "
                "it invalidates its L1, or its remote RMW is not performed at the L2",
            )
        if not memory_rows(rows):
            return not_stated(
                "Hrf_Happens's theorem on what a thread knows",
                f"a row of {name} flushes the L2 without a flush of the L1 right before, an all-devices store "
                "row does not flush both before its store, or a row is an RMW at all-devices scope",
            )
        _l1_ops, l1_set = chosen(name, rows, l1_row)
        _l2_ops, l2_set = chosen(name, rows, l2_row)
        return (
            [
                "text \\<open>Each flush of the L2 follows a flush of the L1, each all-devices store both, and no "
                "row is an RMW at all-devices scope (Hrf_Happens's mem_rows).\\<close>",
                f'lemma {name}_mem_rows: "mem_rows {name} ({l1_set} \\<union> {l2_set})"',
                f"  by (simp add: mem_simps {name}_def {rows_defs(name)})",
                "",
            ]
            + (
                [
                    "text \\<open>Each row that reads at all-devices scope invalidates its device's L2 and then its "
                    "L1 after its access (Hrf_Happens's acq2_rows).\\<close>",
                    f'lemma {name}_acq2_rows: "acq2_rows {name} ({l1_set} \\<union> {l2_set})"',
                    f"  by (simp add: acq2_simps {name}_def {rows_defs(name)})",
                    "",
                ]
                if acquire_rows(rows)
                else []
            )
            + [
                "text \\<open>Each row that writes at device scope or wider flushes the L1 before its access, "
                "and each RMW at such scope is performed at the L2 (Hrf_Happens's rel_rows).\\<close>",
                f'lemma {name}_rel_rows: "rel_rows {name} {l1_set} {l2_set}"',
                f"  by (simp add: rel_rows_def vis_flushed_def {name}_def {rows_defs(name)})",
                "",
                "text \\<open>Each remote load or RMW row flushes the L1s of its device after its access, before "
                "any invalidation of the L1, and each remote RMW is performed at the L2 (Hrf_Happens's "
                "rl_rows).\\<close>",
                f'lemma {name}_rl_rows: "rl_rows {name} {l1_set} {l2_set}"',
                f"  by (simp add: rl_simps {name}_def {rows_defs(name)})",
                "",
                f"text \\<open>So on a race-free program (OpenCL+RSP, as hrf exports it) {_PROMOTION}, "
                "in every state the machine reaches, a write an access knows along happens-before that has "
                "not reached the L2 waits in its thread's work-group's L1, but in a remote acquire's window "
                "(rexempt), and every write of a location two "
                "work-groups access and only device-scope atomics write was released flushed "
                "(Hrf_Happens's hb_home).\\<close>",
                f"theorem {name}_knows_home:",
                f'  "\\<forall>P L wb s. ops_of P \\<subseteq> {ops} \\<and> well_placed L P \\<and> \\<not> na_rmw P '
                "\\<and> load_promotion L P",
                "     \\<and> \\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P",
                f"     \\<and> s \\<in> reachable L wb (compile {name} P) (initial (src_init P))",
                f'     \\<longrightarrow> (\\<exists>g. ginv L {name} P s g \\<and> hb_home L {name} P s g)"',
                f"  using machine_knows_home[OF _ {name}_l1_rows {l2_lemma} _ {flushed} {invalidated} {name}_rel_rows "
                f"{name}_rl_rows {name}_mem_rows]",
                "  by blast",
                "",
                "text \\<open>So every outcome of such a program is the outcome of a candidate whose coherence "
                "agrees with its happens-before on writes and on a read before a write (Hrf_Happens's "
                "hb_co_ok).\\<close>",
            ]
            + race_free_outcomes(
                name,
                "outcomes_hb_co",
                ops,
                False,
                ["\\<and> hb_co_ok L P rfw co"],
                f"machine_outcomes_hb_co[OF {name}_l1_rows {l2_lemma} _ {flushed} {invalidated} {name}_rel_rows "
                f"{name}_rl_rows {name}_mem_rows]",
            )
            + promotion_theorem(name, rows, ops, l2_lemma, flushed, invalidated, l1_set, l2_set)
            + coherent_theorem(name, rows, ops, l2_lemma, flushed, invalidated, l1_set, l2_set)
            + memory_theorem(name, rows, ops, l2_lemma, flushed, invalidated)
            + acquire_theorem(name, rows, ops, l2_lemma, flushed, invalidated)
        )

    def memory_rows(rows) -> bool:
        """Whether each flush of the L2 in the scheme's rows follows one of the
        L1, each all-devices store row flushes both before its store, and no
        row is an RMW at all-devices scope (mem_rows)."""
        taken = [(op, scope, r) for op, scope, _remote, r, _src, _seq in rows if l1_row(op, r.seq) or l2_row(op, r.seq)]
        return all(
            l2_after_l1_row(r.seq)
            and (op != "store" or scope != "all" or memory_released_row(r.seq))
            and (op != "rmw" or scope != "all")
            for op, scope, r in taken
        )

    def sys_reads(rows) -> list:
        """The scheme's all-devices load and RMW rows that its theorems take."""
        return [
            r
            for op, scope, _remote, r, _src, _seq in rows
            if op in ("load", "rmw") and scope == "all" and (l1_row(op, r.seq) or l2_row(op, r.seq))
        ]

    def acquire_rows(rows) -> bool:
        """Whether each all-devices load or RMW row of the scheme invalidates
        the L2 and then the L1 after its access (acq2_rows)."""
        return all(l2_invalidated_after_row(r.seq) for r in sys_reads(rows))

    def memory_theorem(name, rows, ops, l2_lemma, flushed, invalidated):
        """Hrf_Happens's machine_memory_release for a scheme with all-devices
        store rows (its mem_rows stated beside its rel_rows)."""
        if not any(
            op == "store" and scope == "all" and l1_row(op, r.seq) for op, scope, _remote, r, _src, _seq in rows
        ):
            return []
        return [
            f"text \\<open>So on a race-free program {_PROMOTION}, on any number of devices, in every state the "
            "machine reaches, every write a performed all-devices store knew (its own excepted) has reached "
            "memory, where an acquire of another device finds it (Hrf_Happens's mem_released).\\<close>",
            f"theorem {name}_memory_release:",
            f'  "\\<forall>P L wb s. ops_of P \\<subseteq> {ops} \\<and> well_placed L P \\<and> \\<not> na_rmw P '
            "\\<and> load_promotion L P",
            "     \\<and> \\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P",
            f"     \\<and> s \\<in> reachable L wb (compile {name} P) (initial (src_init P))",
            f'     \\<longrightarrow> (\\<exists>g. ginv L {name} P s g \\<and> mem_released L {name} P s g)"',
            f"  using machine_memory_release[OF _ {name}_l1_rows {l2_lemma} _ {flushed} {invalidated} "
            f"{name}_rel_rows {name}_rl_rows {name}_mem_rows]",
            "  by blast",
            "",
        ]

    def acquire_theorem(name, rows, ops, l2_lemma, flushed, invalidated):
        """Hrf_Happens's machine_acquire_l2_fresh for a scheme with
        all-devices load rows, each of which invalidates the L2 and then
        the L1 after its access (acq2_rows)."""
        if not sys_reads(rows):
            return []
        if not acquire_rows(rows):
            return not_stated(
                "Hrf_Happens's theorem on what an all-devices acquire learns",
                f"an all-devices load or RMW row of {name} does not invalidate the L2 and then the L1 after its access",
            )
        return [
            f"text \\<open>So on a race-free program {_PROMOTION}, on any number of devices, in every state the "
            "machine reaches, what an access knows of another device is settled before every readable line of its "
            "device's L2, but while it is an all-devices read waiting for its invalidation of the L2 "
            "(Hrf_Happens's kl2_ok).\\<close>",
            f"theorem {name}_acquire_l2_fresh:",
            f'  "\\<forall>P L wb s. ops_of P \\<subseteq> {ops} \\<and> well_placed L P \\<and> \\<not> na_rmw P '
            "\\<and> load_promotion L P",
            "     \\<and> \\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P",
            f"     \\<and> s \\<in> reachable L wb (compile {name} P) (initial (src_init P))",
            f'     \\<longrightarrow> (\\<exists>g. ginv L {name} P s g \\<and> kl2_ok L {name} P s g)"',
            f"  using machine_acquire_l2_fresh[OF _ {name}_l1_rows {l2_lemma} _ {flushed} {invalidated} "
            f"{name}_rel_rows {name}_rl_rows {name}_mem_rows {name}_acq2_rows]",
            "  by blast",
            "",
        ]

    def promoted(rows) -> bool:
        """Whether each remote store row of the scheme flushes the L1 and then
        invalidates every L1 of the device before its store, and each remote
        RMW row at device scope or wider before its increment (prom_rows)."""
        return all(
            promoted_row(r.seq)
            for op, scope, remote, r, _src, _seq in rows
            if remote and (op == "store" or (op == "rmw" and scope in ("dev", "all")))
        )

    def promotion_theorem(name, rows, ops, l2_lemma, flushed, invalidated, l1_set, l2_set):
        """Hrf_Happens's prom_rows for the scheme, where each of its remote
        store rows flushes the L1 and then invalidates every L1 of the device
        before its store, and each of its remote RMW rows before its
        increment (so for a scheme without remote stores or RMWs), and its
        machine_remote_release_fresh where it has remote stores."""
        if not promoted(rows):
            return not_stated(
                "Hrf_Happens's theorem on what a remote release hands over, nor those that rest on it",
                f"a remote store or remote RMW row of {name} does not invalidate every L1 of its device after a "
                "flush before its store or its increment",
            )
        out = [
            "text \\<open>Each remote store row flushes the L1 and then invalidates every L1 of its device "
            "before its store, and each remote RMW row before its increment (Hrf_Happens's prom_rows).\\<close>",
            f'lemma {name}_prom_rows: "prom_rows {name} {l1_set} {l2_set}"',
            f"  by (simp add: prom_rows_def {name}_def {rows_defs(name)} dinv_simps)",
            "",
        ]
        if not any(op == "store" and remote for op, _scope, remote, _r, _src, _seq in rows):
            return out
        if not acquire_rows(rows):
            return out + not_stated(
                "Hrf_Happens's theorem on what a remote release hands over",
                f"an all-devices load or RMW row of {name} does not invalidate the L2 and then the L1 after its access",
            )
        return out + [
            f"text \\<open>So on a race-free program {_PROMOTION}, on any number of devices, in every state "
            "the machine reaches, every write a performed remote store knew (its own excepted) has reached the "
            "L2, is of its device or in memory, and is settled before every readable line of its location in "
            "every L1 of its device, and, a write of another device, in its device's L2 (Hrf_Happens's rp_fresh: "
            "what promotion hands a work-group-scope acquire of another work-group).\\<close>",
            f"theorem {name}_remote_release_fresh:",
            f'  "\\<forall>P L wb s. ops_of P \\<subseteq> {ops} \\<and> well_placed L P '
            "\\<and> \\<not> na_rmw P \\<and> load_promotion L P",
            "     \\<and> \\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P",
            f"     \\<and> s \\<in> reachable L wb (compile {name} P) (initial (src_init P))",
            f'     \\<longrightarrow> (\\<exists>g. ginv L {name} P s g \\<and> rp_fresh L {name} P s g)"',
            "  using machine_remote_release_fresh[OF _ "
            f"{name}_l1_rows {l2_lemma} _ {flushed} {invalidated} {name}_rel_rows {name}_rl_rows {name}_mem_rows {name}_prom_rows "
            f"{name}_acq2_rows]",
            "  by blast",
            "",
        ]

    def coherent_theorem(name, rows, ops, l2_lemma, flushed, invalidated, l1_set, l2_set):
        """Hrf_Happens's machine_outcomes_hb_coherent for the scheme, where its
        rows that read at device scope or wider, and its increments at the
        L2, invalidate the L1 after their access."""
        taken = [
            r
            for op, scope, _remote, r, _src, _seq in rows
            if (l1_row(op, r.seq) and op in ("load", "rmw") and scope in ("dev", "all")) or l2_row(op, r.seq)
        ]
        if not promoted(rows):
            return []  # promotion_theorem said why
        if not acquire_rows(rows):
            return not_stated(
                "Hrf_Happens's theorem on coherence after happens-before, its read halves",
                f"an all-devices load or RMW row of {name} does not invalidate the L2 and then the L1 after its access",
            )
        if not all(acquired_row(r.seq) for r in taken):
            return not_stated(
                "Hrf_Happens's theorem on coherence after happens-before, its read halves",
                f"a row of {name} that reads at device scope or wider, or increments at the L2, is not followed by "
                "an invalidation of the L1",
            )
        return (
            [
                "text \\<open>Each row that reads at device scope or wider, and each increment at the L2, "
                "invalidates the L1 after its access (Hrf_Happens's acq_rows).\\<close>",
                f'lemma {name}_acq_rows: "acq_rows {name} {l1_set} {l2_set}"',
                f"  by (simp add: acq_rows_def inv_after_def {name}_def {rows_defs(name)})",
                "",
                "text \\<open>So where conflicting accesses of two devices are all-devices atomics, neither "
                "remote (on one device, any), every outcome of such a program "
                "is the outcome of a candidate whose "
                "coherence agrees with its happens-before on every pair of accesses of a location, reads after "
                "them included (Hrf_Happens's hb_co_ok and hb_co_rd_ok: [HRF14]'s coherence).\\<close>",
            ]
            + race_free_outcomes(
                name,
                "outcomes_hb_coherent",
                ops,
                "dev_sys",
                ["\\<and> hb_co_ok L P rfw co \\<and> hb_co_rd_ok L P rfw co"],
                "machine_outcomes_hb_coherent[OF "
                f"{name}_l1_rows {l2_lemma} _ {flushed} {invalidated} {name}_rel_rows {name}_rl_rows "
                f"{name}_mem_rows {name}_acq_rows {name}_prom_rows {name}_acq2_rows]",
            )
            + rmw_atomic_theorem(name, rows, ops, l2_lemma, flushed, l1_set, l2_set)
        )

    def rmw_atomic_theorem(name, rows, ops, l2_lemma, flushed, l1_set, l2_set):
        """Hrf_Atomicity's machine_outcomes_rmw_atomic_rows for the scheme,
        where its rows take their rmw locks as lk_code says."""
        taken = [r for op, _scope, _remote, r, _src, _seq in rows if l1_row(op, r.seq) or l2_row(op, r.seq)]
        if not all(locked_row(r.seq) for r in taken):
            return not_stated(
                "Hrf_Atomicity's theorem that every RMW is atomic",
                f"a row of {name} does not take its rmw locks as lk_code says: an increment in the L1 inside a "
                "bracket before any flush made in it, one at the L2 after such a flush and before the "
                "invalidation that ends the bracket",
            )
        # The remote rows rr_rows asks of (Hrf_Atomicity): each remote RMW's and
        # remote store's row at device scope or wider, taken by the theorem.
        remote_checks = (
            (
                "rmw",
                remote_rmw_row,
                "a remote RMW row of {name} does not make its increment at the L2 under an rmw lock of the device "
                "or wider, after a flush of the device's L1s under it and before an invalidation of them",
            ),
            (
                "store",
                remote_store_row,
                "a remote store row of {name} does not make its store under an rmw lock of the device or wider, "
                "after a flush of the device's L1s under it, and flush its L1 before the invalidation after it "
                "under the same lock",
            ),
        )
        for kind, meets, why in remote_checks:
            remote_rows = [
                r
                for op, scope, remote, r, _src, _seq in rows
                if op == kind and remote and scope in ("dev", "all") and (l1_row(op, r.seq) or l2_row(op, r.seq))
            ]
            if not all(meets(r.seq) for r in remote_rows):
                return not_stated("Hrf_Atomicity's theorem that every RMW is atomic", why.format(name=name))
        atomic = "\\<and> (\\<forall>t k. acc P t k True \\<longrightarrow> rmw_atomic P rfw co t k)"
        rows_taken = (
            f"{name}_l1_rows {l2_lemma} _ {flushed} {name}_acq_rows {name}_rel_rows {name}_prom_rows {name}_rl_rows "
            f"{name}_rr_rows {name}_mem_rows {name}_acq2_rows {name}_lk_rows"
        )
        return (
            [
                "text \\<open>Each of these rows takes its rmw locks as Hrf_Atomicity's lk_code says: an "
                "increment in the L1 inside an rmw bracket before any flush of the L1 made in it, an increment "
                "at the L2 after such a flush, the invalidation after it inside the bracket.\\<close>",
                f'lemma {name}_lk_rows: "lk_rows {name} ({l1_set} \\<union> {l2_set})"',
                f"  by (simp add: lk_rows_def {name}_def {rows_defs(name)} lk_code_simps del: set_upt)",
                "",
                "text \\<open>Each remote RMW row makes its increment at the L2 under an rmw lock of the device or "
                "wider, after a flush of the device's L1s under it and before an invalidation of them, and "
                "each remote store row its store so, with a flush of its L1 before that invalidation under "
                "the same lock (Hrf_Atomicity's rr_rows): they exclude the work-group RMWs of every "
                "work-group of their device.\\<close>",
                f'lemma {name}_rr_rows: "rr_rows {name} {l1_set} {l2_set}"',
                f"  by (simp add: rr_simps {name}_def {rows_defs(name)})",
                "",
                "text \\<open>So where conflicting accesses of two devices are all-devices atomics, neither remote (on one device, any), every outcome of such a program "
                "is the outcome of a candidate in "
                "which every RMW is atomic: no write comes, in its coherence, between the write the RMW reads "
                "from and its own (Hrf_Atomicity's rmw_atomic; [HRF14]'s RMW atomicity).\\<close>",
            ]
            + race_free_outcomes(
                name,
                "outcomes_rmw_atomic",
                ops,
                "dev_sys",
                [atomic],
                f"machine_outcomes_rmw_atomic_rows[OF {rows_taken}]",
            )
            + allowed_theorems(name, ops, rows, rows_taken, l1_set, l2_set)
        )

    def allowed_theorems(name, ops, rows, rows_taken, l1_set, l2_set):
        """Hrf_Consistent's machine_outcomes_allowed_plain for the scheme, and
        where it is disciplined, machine_sound_on_plain: sound against
        OpenCL+RSP on every program whose remote operations promote as
        load_promotion says once its plain accesses are read as
        work-group-scope atomics, and whose conflicting accesses sit on one
        device. A scheme whose plain rows are not its work-group rows gets
        the theorems for load_promotion of the program itself."""
        seqs = {(op, scope): r.seq for op, scope, remote, r, _src, _seq in rows if not remote}
        plain = all((op, "na") in seqs and seqs[(op, "na")] == seqs.get((op, "wg")) for op in ("load", "store"))
        if plain:
            promotion = "load_promotion L (plain_as_wg P)"
            taken = f"{rows_taken} {name}_plain_rows"
            out = [
                "text \\<open>Its rows for plain loads and stores are its rows for work-group-scope ones "
                "(Hrf_Consistent's plain_rows): a plain access that meets a remote operation is read as a "
                "work-group-scope atomic (plain_as_wg).\\<close>",
                f'lemma {name}_plain_rows: "plain_rows {name} ({l1_set} \\<union> {l2_set})"',
                f"  by (simp add: plain_rows_def {name}_def {rows_defs(name)})",
                "",
            ]
            allowed_rule = "machine_outcomes_allowed_plain"
        else:
            promotion, taken, out = "load_promotion L P", rows_taken, []
            allowed_rule, sound_rule = "machine_outcomes_allowed_rows", "machine_sound_on_rows"
        out += [
            "text \\<open>So where conflicting accesses of two devices are all-devices atomics, neither remote "
            "(on one device, any), every outcome of such a program is one OpenCL+RSP allows: the "
            "candidate a run exhibits is consistent (Hrf_Consistent: the model's seven checks that need no "
            "happens-before, and its four that read it, whose every step is in hrf's happens-before).\\<close>",
            f"theorem {name}_outcomes_allowed:",
            *race_free_premises(name, ops, "dev_sys", promotion),
            '       \\<subseteq> src_allowed opencl_rsp_consistent L P"',
            f"  using {allowed_rule}[OF {taken}] by blast",
            "",
        ]
        if name not in disciplined:
            return out + not_stated(
                "soundness on these programs",
                f"a row of {name} does not take its rmw locks in brackets, so deadlock freedom is not proved",
            )
        return out + (
            sound_theorems(name, ops, rows, taken)
            if plain
            else [
                "text \\<open>With deadlock freedom: the scheme is sound against OpenCL+RSP (Hrf_Mapping's "
                "sound_on, OpenCL+RSP as Hrf_Source_Opencl's opencl_rsp_source) on every program of these "
                f"operations {_PROMOTION}, of any length and thread count, "
                "on every layout of any number of devices whose conflicting accesses sit on one device "
                "(dev_conflicts), under both write-back policies.\\<close>",
                f"theorem {name}_sound_device_local:",
                f'  "\\<forall>P L wb. ops_of P \\<subseteq> {ops} \\<and> well_placed L P \\<and> dev_conflicts L P '
                f"\\<and> {promotion}",
                f'     \\<longrightarrow> opencl_rsp_source.sound_on L wb {name} P"',
                f"  using {sound_rule}[OF {taken} {name}_disciplined] dev_conflicts_sys by blast",
                "",
            ]
        )

    def sound_theorems(name, ops, rows, taken):
        """Hrf_Consistent's machine_sound_on_remote_local and
        machine_sound_on_devices for a disciplined scheme whose plain rows are
        its work-group rows; and scheme_sound (the goal itself, against
        OpenCL+RSP) where the theorems take every row the scheme has and no
        remote row is at all-devices scope."""
        out = [
            "text \\<open>Its remote rows are at device scope or wider.\\<close>",
            f'lemma {name}_remote_wide: "remote_wide_ops ({ops})"',
            "  by (auto simp: remote_wide_ops_def)",
            "",
            "text \\<open>With deadlock freedom: the scheme is sound against OpenCL+RSP (Hrf_Mapping's "
            "sound_on, OpenCL+RSP as Hrf_Source_Opencl's opencl_rsp_source) on every program of these "
            "operations whose remote operations meet accesses of their own device only (remote_local), of "
            "any length and thread count, on every layout of any number of devices, under both write-back "
            "policies: race-free, such a program promotes at most as load_promotion says once its plain "
            "accesses are read as work-group-scope atomics, and shares a written location across devices "
            "only through all-devices atomics, neither remote.\\<close>",
            f"theorem {name}_sound_remote_local:",
            f'  "\\<forall>P L wb. ops_of P \\<subseteq> {ops} \\<and> well_placed L P \\<and> remote_local L P',
            f'     \\<longrightarrow> opencl_rsp_source.sound_on L wb {name} P"',
            f"  using machine_sound_on_remote_local[OF {taken} {name}_disciplined] "
            f"ops_remote_wide[OF _ {name}_remote_wide] by blast",
            "",
            "text \\<open>And on every layout of any number of devices, for every such program without "
            "remote all-devices operations (no_remote_sys): race-free, its remote operations meet accesses "
            "of their own device only (race_free_remote_local).\\<close>",
            f"theorem {name}_sound_devices:",
            f'  "\\<forall>P L wb. ops_of P \\<subseteq> {ops} \\<and> well_placed L P \\<and> no_remote_sys P',
            f'     \\<longrightarrow> opencl_rsp_source.sound_on L wb {name} P"',
            f"  using machine_sound_on_devices[OF {taken} {name}_disciplined] "
            f"ops_remote_wide[OF _ {name}_remote_wide] by blast",
            "",
        ]
        every_row = all(l1_row(op, r.seq) or l2_row(op, r.seq) for op, _scope, _remote, r, _src, _seq in rows)
        remote_sys = any(remote and scope == "all" for _op, scope, remote, *_ in rows)
        if not every_row or remote_sys:
            return out
        proved.add(name)
        return out + [
            f"text \\<open>So {name} is sound against OpenCL+RSP (Hrf_Mapping's sound; [RSP15] sec. 5's "
            "theorem): every program it compiles, of any length and thread count, on every placement on "
            "any number of devices, under both write-back policies, if race-free shows only outcomes "
            "OpenCL+RSP allows, and cannot deadlock. Every row it has is one the theorems take, and no "
            "remote row is at all-devices scope.\\<close>",
            f'theorem {name}_sound: "opencl_rsp_source.sound {name}"',
            f"  by (rule scheme_sound[OF {' '.join(w for w in taken.split() if w != '_')} {name}_disciplined _ "
            f"{name}_remote_wide])",
            f"    (simp_all add: {name}_def {rows_defs(name)} dom_map_of_conv_image_fst)",
            "",
        ]

    def theorem(name):
        out = [
            f"text \\<open>The goal: {name} is sound on every program"
            + (" (proved against OpenCL+RSP: below)" if name in proved else " (not proved here)")
            + ".\\<close>",
            f'definition {name}_sound_goal :: bool where "{name}_sound_goal \\<longleftrightarrow> sound {name}"',
            "",
        ]
        if name in disciplined:
            out += [
                "text \\<open>Its deadlock-freedom half proved: what is left is the outcome part.\\<close>",
                f"lemma {name}_sound_goal_outcomes:",
                f'  "{name}_sound_goal \\<longleftrightarrow> (\\<forall>L wb P. well_placed L P \\<and> compilable {name} P '
                "\\<and> \\<not> racy L P",
                f'     \\<longrightarrow> outcomes L wb (compile {name} P) (initial (src_init P)) \\<subseteq> allowed L P)"',
                f"  using sound_iff_outcomes[OF {name}_disciplined] by (simp add: {name}_sound_goal_def)",
                "",
            ]
        return out

    rows = listed(s.rows)
    several = listed(s.several_devices)
    base_of = {f"{c}_several_devices": c}
    disciplined = set()
    proved: set[str] = set()

    def claim(name, all_rows, rows_taken):
        """The discipline (over every row of the map_of list) and the L1 and
        L2 theorems (over the rows the scheme takes) for one scheme term."""
        ok = all(disciplined_row(r.seq) for _op, _scope, _remote, r, _src, _seq in all_rows)
        if ok:
            disciplined.add(name)
        return (
            (deadlock_theorem(name) if ok else [])
            + l1_theorem(name, rows_taken, ok)
            + l2_theorem(name, rows_taken, ok)
            + candidates_theorem(name, rows_taken)
        )

    out += define(c, rows)
    out += claim(c, rows, rows)
    if several:
        out += [
            f"text \\<open>On several devices the scheme is {c}_several_devices: these rows in place of "
            "or besides the ones above.\\<close>",
            "",
        ]
        out += define(f"{c}_several_devices", several, base=c)
        # map_of takes a several-device row before the base row it replaces.
        keys = {(op, scope, remote) for op, scope, remote, *_ in several}
        merged = several + [row for row in rows if tuple(row[:3]) not in keys]
        out += claim(f"{c}_several_devices", several + rows, merged)
    out += ["context source_model", "begin", ""]
    out += lemmas(c, rows)
    out += lemmas(f"{c}_several_devices", several)
    if s.seq_cst:
        # Hrf_Mapping's source operations carry no memory order.
        out += [
            "text \\<open>Not stated: the rows this scheme uses for seq_cst accesses instead (the source "
            "operations here carry no memory order, so the theorem below is about acquire/release): "
            + text_body("; ".join(f"{_mappings.key_text(key)}: {', '.join(r.seq)}" for key, r in s.seq_cst.items()))
            + ".\\<close>",
            "",
        ]
    if s.refuted_by:
        out += [
            "text \\<open>Not stated: hrf finds this scheme unsound against "
            f"{text_body(s.model)} (`hrf soundness`) on {text_body(', '.join(s.refuted_by))}; exported with "
            "those tests, the theories Run_<test>_<scheme> prove each counterexample outcome reachable "
            "on the machine.\\<close>",
            "",
        ]
    else:
        out += theorem(c) + (theorem(f"{c}_several_devices") if several else [])
    out += ["end", ""]
    if not s.refuted_by:
        for name in sorted(proved):
            out += [
                f"text \\<open>The goal {name}_sound_goal, proved against OpenCL+RSP ({name}_sound), and so "
                "each row's goal: the row implements its operation (Hrf_Mapping's sound_row).\\<close>",
                f'lemma {name}_sound_goal_opencl_rsp: "opencl_rsp_source.{name}_sound_goal"',
                f"  using {name}_sound by (simp add: opencl_rsp_source.{name}_sound_goal_def)",
                "",
                f'lemma {name}_rows_implemented: "\\<forall>a. opencl_rsp_source.row_implements {name} a"',
                f"  using opencl_rsp_source.sound_row[OF {name}_sound] by blast",
                "",
            ]
    out += ["end", ""]
    return theory, "\n".join(out)
