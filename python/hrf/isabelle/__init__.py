"""Isabelle/HOL export (the README's Isabelle section), one module per kind of theory
(`models`, `tests`, `schemes`, `runs`; `terms` the terms they share): executions, model definitions and
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
- One theory per scheme: its rows as data over `Hrf_Machine`, a goal per
  row (the row implements its source operation) and the scheme's soundness
  goal, stated over `Hrf_Mapping` as definitions over an arbitrary source
  model, and proved against OpenCL+RSP where Hrf_Consistent's theorems take
  every row and no remote row is at all-devices scope (`<scheme>_sound`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..api import Limits, limits_from
from ..dsl import Model
from ..errors import OutputError, UnsupportedFeature, check_whole, make_folder, write_output
from ..litmus import parse
from ..models import get as _get_model
from .family import FamilyResult, family_theory
from .mapping import mapping_theory
from .models import HANDWRITTEN, ModelTheory, holds, model_theory
from .runs import closable, machine_instr, run_theory
from .schemes import scheme_theory
from .terms import BASE_DIR, BASE_THEORIES, SESSION, safe_name
from .tests import Exported, event_tags, execution_term, test_theory

__all__ = [
    "BASE_DIR",
    "BASE_THEORIES",
    "ExportResult",
    "Exported",
    "FamilyResult",
    "HANDWRITTEN",
    "ModelTheory",
    "SESSION",
    "closable",
    "event_tags",
    "execution_term",
    "export_isabelle",
    "export_mapping_isabelle",
    "export_scheme_family",
    "holds",
    "mapping_theory",
    "machine_instr",
    "model_theory",
    "run_theory",
    "safe_name",
    "scheme_theory",
    "test_theory",
    "write_root",
]


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
                "(* Generated by hrf. The session does not allow sorry, and no theory",
                "   declares quick_and_dirty: every lemma and theorem here is proved (the",
                "   Scheme_* theories state their goals as definitions over any source model",
                "   and prove them against OpenCL+RSP where they can). *)",
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


def _export_runs(
    res: ExportResult, test, scheme: str, limits: Limits, max_states: int, max_proof_states: int, progress=None
) -> None:
    """The machine runs of `test` compiled by `scheme` as a theory, or the
    pair in `res.skipped` with the reason; where hrf found the scheme sound,
    with the closure theorems of `run_theory`. `progress`: the explorer's
    status line (`hrf.machine.explore.ExploreProgress`), or None."""
    from ..soundness import soundness

    where = test.path or test.name
    try:
        r = soundness(test, scheme, limits=limits, max_states=max_states, progress=progress)
        if not r.machine:
            raise UnsupportedFeature(r.reason or "not run on the machine")
        closed, notes = closable(r, max_proof_states, progress)
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
            theory, text, total, shown, complete = test_theory(test, m, mt, limits, max_executions)
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


def export_mapping_isabelle(
    tests: str | Path | object | Iterable,
    mapping,
    out: str | Path = "isabelle_out",
    source: str | Model | None = None,
    target: str | Model | None = None,
    *,
    max_executions: int = 256,
    limits: Limits | None = None,
    **kw,
) -> ExportResult:
    """Write a session folder with, per test the mapping keeps sound, a
    theory `Map_<test>_<mapping>_<source>_<target>` proving by evaluation
    that the source is race-free under `source` and that every outcome of
    the compiled test under `target` is a source outcome (the source and
    target models' theories beside it). A test with no lemma (racy,
    unsound, cut by a limit, more than `max_executions` candidates, a model
    without an Isabelle form) is listed in `skipped` with the reason; when
    every test is, the first reason is raised (UnsupportedFeature)."""
    from ..mappings.models import get as get_mapping

    limits = limits_from(limits, kw)
    check_whole("max_executions", max_executions, 1)
    mp = get_mapping(mapping)
    src, tgt = _get_model(source or mp.source_model), _get_model(target or mp.target_model)
    out = _prepare_folder(Path(out))
    res = ExportResult(out)
    items = [tests] if isinstance(tests, (str, Path)) or not isinstance(tests, Iterable) else list(tests)
    _copy_base(out)
    res.theories += list(BASE_THEORIES)
    first_refusal: UnsupportedFeature | None = None
    for t in items:
        test = parse(t)
        try:
            theory, text, smt, tmt, n = mapping_theory(test, mp, src, tgt, limits, max_executions)
        except UnsupportedFeature as e:
            res.skipped.append((test.path or test.name, f"mapping {mp.name}", str(e)))
            first_refusal = first_refusal or e
            continue
        for mt in (smt, tmt):
            if mt.text is not None and mt.theory not in res.theories:
                write_output(out / f"{mt.theory}.thy", mt.text)
                res.theories.append(mt.theory)
        if theory in res.theories:
            continue  # the same test given twice
        path = out / f"{theory}.thy"
        write_output(path, text)
        res.theories.append(theory)
        res.tests.append(Exported(theory, path, n, n, True))
    if first_refusal is not None and not res.tests:
        raise first_refusal
    write_root(out)
    return res


def export_scheme_family(
    scheme: str,
    out,
    model: str | None = None,
    locations: int = 2,
    max_states: int = 20_000,
    first: int | None = None,
    max_proof_states: int = 20_000,
    names=None,
    include_unsound: bool = False,
) -> FamilyResult:
    """Write a session folder (base theories, the scheme theory, the family
    theory and ROOT) proving `scheme` sound on its family of programs: the
    race-free ones hrf finds sound and whose unreduced machine has at most
    `max_proof_states` states under each write-back policy (the others are
    in `left_out`, with the reason). `names`, `include_unsound`: as
    `family.family_theory`'s (the latter a control of the proof)."""
    check_whole("max_states", max_states, 1)
    check_whole("max_proof_states", max_proof_states, 1)
    folder = _prepare_folder(Path(out))
    _copy_base(folder)
    scheme_thy, scheme_text = scheme_theory(scheme)
    write_output(folder / f"{scheme_thy}.thy", scheme_text)
    theory, text, proved, racy, left, unsound = family_theory(
        scheme, model, locations, max_states, first, max_proof_states, names, include_unsound
    )
    write_output(folder / f"{theory}.thy", text)
    counterexamples = []
    for res in unsound:  # the run to each outcome the source model does not allow, a theorem
        name, run = run_theory(res, name=f"Counterexample_{safe_name(res.name)}_{safe_name(res.scheme, 'S')}")
        write_output(folder / f"{name}.thy", run)
        counterexamples.append(name)
    write_root(folder)
    return FamilyResult(folder, theory, proved, racy, left, counterexamples)
