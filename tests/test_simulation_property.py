"""hrf's machine explorer (Rust) against Hrf_Simulation's theorem, proved
in Isabelle over the machine's own definitions: on every program whose
locations each belong to one work-group, compiled by rows that perform
their access in the L1, every outcome of the machine is an SC outcome,
under both write-back policies, racy or not. The explorer is a second
implementation of the machine: a seeded sample of such programs must show
no other outcome (`hrf.soundness` against the `sc` model, which judges
no race). The theorem holds of `rsp-old` too, which [RSP15] refutes only
across work-groups (the corrupt MP)."""

import random

import pytest

import hrf
from conftest import CORPUS
from hrf.isabelle.schemes import l1_row
from hrf.mappings import get

_SCOPE = {"wg": "work_group", "dev": "device"}


def _op(kind: str, x: str, r: str, order: str, scope: str, remote: bool = False, value: int = 0) -> str:
    """One straight-line OpenCL operation on location x (register r);
    `order` "na" for a non-atomic access."""
    if order == "na":
        return f"int {r} = *{x};" if kind == "load" else f"*{x} = {value};"
    tail = "_remote" if remote else ""
    if kind == "rmw":
        return f"int {r} = atomic_fetch_add_explicit{tail}({x}, 1, memory_order_{order}, memory_scope_{scope});"
    if kind == "load":
        return f"int {r} = atomic_load_explicit{tail}({x}, memory_order_{order}, memory_scope_{scope});"
    return f"atomic_store_explicit{tail}({x}, {value}, memory_order_{order}, memory_scope_{scope});"


def _litmus(name: str, locs: str, threads: list, groups: str, exists: str = "x=0", init: dict | None = None) -> str:
    """An OpenCL litmus test of the threads' texts, every location 0 at
    first unless `init` says otherwise; `groups` the work-groups of one
    device, or the whole scope tree where it starts with a device."""
    init = " ".join(f"[{x}]={(init or {}).get(x, 0)};" for x in locs)
    tree = groups if groups.startswith("(device") else f"(device {groups})"
    return f"OpenCL {name}\n{{\n  {init}\n}}\n\n" + "\n".join(threads) + f"\nscopeTree {tree}\nexists ({exists})\n"


def _program(rng: random.Random, k: int) -> str:
    """Two work-groups: the first's two threads share x and y, the second's
    one thread owns z (every location has one home work-group). Each
    location is atomic or not throughout."""
    atomic = {x: rng.random() < 0.6 for x in "xyz"}
    homes = [("P0", "xy"), ("P1", "xy"), ("P2", "z")]
    threads = []
    for name, locs in homes:
        params = ", ".join(f"global {'atomic_int' if atomic[x] else 'int'}* {x}" for x in locs)
        body = []
        for i in range(rng.randint(1, 3)):
            x = rng.choice(locs)
            kind = rng.choice(("load", "store", "rmw") if atomic[x] else ("load", "store"))
            s = _SCOPE[rng.choice(("wg", "dev"))]
            if kind == "rmw":
                body.append(_op("rmw", x, f"r{i}", rng.choice(("relaxed", "acq_rel")), "work_group"))
            elif kind == "load":
                o = rng.choice(("relaxed", "acquire", "seq_cst"))
                body.append(_op("load", x, f"r{i}", o if atomic[x] else "na", s))
            else:
                o = rng.choice(("relaxed", "release", "seq_cst"))
                body.append(_op("store", x, f"r{i}", o if atomic[x] else "na", s, value=rng.randint(1, 2)))
        threads.append(f"{name} ({params}) {{\n  " + "\n  ".join(body) + "\n}\n")
    return _litmus(f"homed{k}", "xyz", threads, "(work_group P0 P1) (work_group P2)")


def _sample(n: int, seed: int):
    rng = random.Random(seed)
    return [_program(rng, k) for k in range(n)]


@pytest.mark.parametrize("scheme", ["rsp-new", "rsp-old", "hrf-cache"])
def test_the_explorer_shows_only_sc_outcomes_on_homed_programs(tmp_path, scheme):
    rows = get(scheme).rows
    # the sample's operations are the scheme's L1 rows (RMWs at work-group scope only)
    assert all(l1_row(op, rows[(op, sc, False)].seq) for op in ("load", "store") for sc in ("na", "wg", "dev"))
    assert l1_row("rmw", rows[("rmw", "wg", False)].seq)
    checked = 0
    for k, text in enumerate(_sample(40, seed=7)):
        path = tmp_path / f"homed{k}.litmus"
        path.write_text(text)
        r = hrf.soundness(path, scheme, model="sc")
        assert r.complete and not r.racy_source, text
        assert r.sound, (text, [(c.writeback, c.outcome) for c in r.counterexamples])
        assert set(r.machine) == {"fifo", "any"}
        checked += 1
    assert checked == 40


def test_outside_the_class_the_explorer_finds_what_the_theorem_leaves_out():
    # Controls, one for each hypothesis: the corrupt MP's reader and writer
    # sit in two work-groups sharing x and y (not homed), and rsp-old shows
    # a non-SC outcome; rmw-dev-vs-wg's two threads share one work-group,
    # but hrf-cache performs the device RMW at the L2 (not an L1 row) and
    # loses the other increment (x=1).
    r = hrf.soundness(CORPUS / "rsp/corrupt-mp.litmus", "rsp-old", model="sc")
    assert r.sound is False and any(c.kind == "outcome" for c in r.counterexamples)
    r = hrf.soundness(CORPUS / "rsp/rmw-dev-vs-wg.litmus", "hrf-cache", model="sc")
    assert r.sound is False and any(c.outcome and c.outcome.get("x") == 1 for c in r.counterexamples)


# Hrf_Simulation's homed_l2_outcomes_sc: besides locations homed in a
# work-group, locations homed in a device and accessed by its threads only
# through L2 rows (device and remote RMWs, performed at the L2): a counter
# shared across work-groups; and read-only locations, loaded by any thread.
# Every outcome is still an SC outcome.


def _counter_program(rng: random.Random, k: int, remote: bool) -> str:
    """Two work-groups: P0 and P1 share x (homed in the first), P2 owns z;
    all three increment the counter c, homed in the device, by device-scope
    RMWs (remote or not, where the scheme has a remote RMW), between their
    other operations; some load k (3 at first, read-only), at work-group or
    device scope."""
    homes = [("P0", "x"), ("P1", "x"), ("P2", "z")]
    threads = []
    for name, loc in homes:
        body = []
        for i in range(rng.randint(0, 2)):
            kind = rng.choice(("load", "store", "rmw"))
            value = rng.randint(1, 2) if kind == "store" else 0
            body.append(_op(kind, loc, f"r{i}", _ORDER[kind], "work_group", value=value))
        body.insert(
            rng.randint(0, len(body)), _op("rmw", "c", "rc", "acq_rel", "device", remote and rng.random() < 0.4)
        )
        if rng.random() < 0.5:
            scope = rng.choice(("work_group", "device"))
            body.insert(rng.randint(0, len(body)), _op("load", "k", "rk", "acquire", scope))
        params = f"global atomic_int* {loc}, global atomic_int* c, global atomic_int* k"
        threads.append(f"{name} ({params}) {{\n  " + "\n  ".join(body) + "\n}\n")
    groups = "(work_group P0 P1) (work_group P2)"
    return _litmus(f"counter{k}", "xzck", threads, groups, exists="c=0", init={"k": 3})


@pytest.mark.parametrize("scheme", ["rsp-new", "rsp-old", "hrf-cache"])
def test_the_explorer_shows_only_sc_outcomes_with_counters_homed_in_the_device(tmp_path, scheme):
    from hrf.isabelle.schemes import l2_row

    rows = get(scheme).rows
    assert all(l1_row(op, rows[(op, "wg", False)].seq) for op in ("load", "store", "rmw"))
    assert l2_row("rmw", rows[("rmw", "dev", False)].seq)
    remote = l2_row("rmw", rows[("rmw", "dev", True)].seq) if ("rmw", "dev", True) in rows else False
    rng = random.Random(11)
    checked = 0
    for k in range(12):
        text = _counter_program(rng, k, remote)
        path = tmp_path / f"counter{k}.litmus"
        path.write_text(text)
        r = hrf.soundness(path, scheme, model="sc")
        assert r.complete and not r.racy_source, text
        assert r.sound, (text, [(c.writeback, c.outcome) for c in r.counterexamples])
        checked += 1
    assert checked == 12


def test_a_counter_incremented_in_two_l1s_loses_an_update(tmp_path):
    # Control for the hypothesis that a location of Z is accessed only
    # through L2 rows: two work-groups increment c with work-group-scope
    # RMWs, which rsp-new performs in each work-group's L1 (an L1 row, but c
    # has no home work-group). By hand: both L1s fetch c = 0 and increment
    # it to 1; the second write-back overwrites the first, so c = 1 is
    # reachable, which no SC execution gives (SC: c = 2).
    inc = _op("rmw", "c", "r0", "acq_rel", "work_group")
    threads = [f"P{t} (global atomic_int* c) {{\n  {inc}\n}}\n" for t in range(2)]
    path = tmp_path / "counter-wg.litmus"
    path.write_text(_litmus("counter-wg", "c", threads, "(work_group P0) (work_group P1)", exists="c=0"))
    r = hrf.soundness(path, "rsp-new", model="sc")
    assert r.sound is False and any(c.outcome and c.outcome.get("c") == 1 for c in r.counterexamples)


# Deadlock freedom (Hrf_Simulation's scheme_deadlock_free, instantiated as
# rsp_new_deadlock_free): every program rsp-new compiles, on every layout,
# can always finish. A seeded sample across work-groups, with device and
# remote RMWs and stores (the rows that take rmw locks), explored under
# both write-back policies: no deadlock.

_ORDER = {"load": "acquire", "store": "release", "rmw": "acq_rel"}


def _shared_program(rng: random.Random, k: int) -> str:
    """Three threads in two or three work-groups sharing x and y, atomic
    throughout, at work-group or device scope, remote or not."""
    groups = rng.choice(("(work_group P0 P1) (work_group P2)", "(work_group P0) (work_group P1) (work_group P2)"))
    threads = []
    for t in range(3):
        body = []
        for i in range(rng.randint(1, 3)):
            x = rng.choice("xy")
            kind = rng.choice(("load", "store", "rmw"))
            s = rng.choice(("work_group", "device"))
            remote = s == "device" and rng.random() < 0.4
            value = rng.randint(1, 2) if kind == "store" else 0
            body.append(_op(kind, x, f"r{i}", _ORDER[kind], s, remote, value))
        threads.append(f"P{t} (global atomic_int* x, global atomic_int* y) {{\n  " + "\n  ".join(body) + "\n}\n")
    return _litmus(f"shared{k}", "xy", threads, groups)


def _deadlocks(path, scheme) -> list:
    r = hrf.soundness(path, scheme, model="sc")
    assert r.complete, path.read_text()
    return [c for c in r.counterexamples if c.kind == "deadlock"]


def test_the_explorer_finds_no_deadlock_in_programs_rsp_new_compiles(tmp_path):
    from hrf.isabelle.schemes import disciplined_row

    scheme = get("rsp-new")
    assert all(disciplined_row(r.seq) for r in scheme.rows.values())
    rng = random.Random(5)
    locked = 0
    for k in range(20):
        text = _shared_program(rng, k)
        path = tmp_path / f"shared{k}.litmus"
        path.write_text(text)
        assert not _deadlocks(path, scheme), text
        locked += "fetch_add" in text or "_remote" in text
    assert locked >= 15  # most programs use a row that takes an rmw lock


def test_a_row_that_keeps_its_lock_deadlocks(tmp_path):
    # Control: the work-group RMW's row without its UNLKrmw is not
    # disciplined, and two work-group RMWs in one work-group deadlock (the
    # second waits for ever for the lock the first kept).
    from dataclasses import replace

    from hrf.isabelle.schemes import disciplined_row
    from hrf.mappings.scheme import Row

    base = get("rsp-new")
    broken = replace(
        base,
        name="rsp-new-kept-lock",
        rows={**base.rows, ("rmw", "wg", False): Row(("LKrmw WG", "RMWL1"), "planted: never released")},
    )
    assert not disciplined_row(broken.rows[("rmw", "wg", False)].seq)
    rmw = _op("rmw", "x", "r0", "acq_rel", "work_group")
    path = tmp_path / "two-rmw.litmus"
    path.write_text(
        "OpenCL two_rmw\n{\n  [x]=0;\n}\n\n"
        f"P0 (global atomic_int* x) {{\n  {rmw}\n}}\n\nP1 (global atomic_int* x) {{\n  {rmw}\n}}\n\n"
        "scopeTree (device (work_group P0 P1))\nexists (x=2)\n"
    )
    assert _deadlocks(path, broken) and not _deadlocks(path, base)


# What the general theorem still needs (docs/isabelle.md, a hand
# argument): in a race-free straight-line program, a location written
# non-atomically is accessed by its writer alone, and every pair of
# conflicting accesses from two work-groups is at scopes that include each
# other (both at device scope, or one remote). hrf's race check under
# opencl-rsp on a seeded sample: every race-free program has that shape.
def _mixed_program(rng: random.Random, k: int, plain: bool = False):
    """Three threads in two or three work-groups on x and y, each location
    atomic or not throughout (but, where `plain`, for one thread that
    accesses every location plainly); returns the text and the accesses
    (thread, work-group, location, writes, scope, remote)."""
    atomic = {x: rng.random() < 0.7 for x in "xy"}
    two = rng.random() < 0.5
    wg = {0: 0, 1: 0 if two else 1, 2: 1 if two else 2}
    groups = "(work_group P0 P1) (work_group P2)" if two else "(work_group P0) (work_group P1) (work_group P2)"
    plain_thread = rng.randrange(3) if plain else None
    threads, accesses = [], []
    for t in range(3):
        seen = {x: False for x in atomic} if t == plain_thread else atomic
        threads.append(_mixed_thread(rng, t, wg[t], seen, "xy", 2, ("work_group", "device"), accesses))
    return _litmus(f"mixed{k}", "xy", threads, groups), accesses


def _mixed_thread(
    rng: random.Random,
    t: int,
    w: int,
    atomic: dict,
    locs: str,
    most: int,
    scopes,
    accesses,
    remote_p: float = 0.3,
    remote_at=("device", "all_svm_devices"),
) -> str:
    """Thread t (of work-group w) of one to `most` operations on `locs`
    (each atomic or not as `atomic` says), at one of `scopes` (an RMW at
    work-group or device scope), remote or not (with probability
    `remote_p`, at a scope of `remote_at`); appends its accesses
    (thread, work-group, location, writes, scope, remote) to `accesses`."""
    body = []
    for i in range(rng.randint(1, most)):
        x = rng.choice(locs)
        kind = rng.choice(("load", "store", "rmw") if atomic[x] else ("load", "store"))
        s = rng.choice([c for c in scopes if kind != "rmw" or c in ("work_group", "device")])
        remote = atomic[x] and s in remote_at and rng.random() < remote_p
        value = rng.randint(1, 2) if kind == "store" else 0
        if not atomic[x]:
            s = "na"
        body.append(_op(kind, x, f"r{i}", _ORDER[kind] if atomic[x] else "na", s, remote, value))
        accesses.append((t, w, x, kind != "load", s, remote, kind))
    params = ", ".join(f"global {'atomic_int' if atomic[x] else 'int'}* {x}" for x in sorted(atomic))
    return f"P{t} ({params}) {{\n  " + "\n  ".join(body) + "\n}\n"


def _conflicts(accesses):
    """The pairs of conflicting accesses of two threads (one location, one
    of them a write), each pair both ways round."""
    for a in accesses:
        for b in accesses:
            if a[0] != b[0] and a[2] == b[2] and (a[3] or b[3]):
                yield a, b


def _race_free(path, text: str) -> bool:
    """Whether hrf's race check (opencl-rsp, complete) finds the program
    `text`, written to `path`, race-free."""
    path.write_text(text)
    r = hrf.check(path, "opencl-rsp")
    assert r.complete, text
    return not r.racy


def test_race_free_straight_line_programs_share_across_work_groups_only_through_inclusive_atomics(tmp_path):
    rng = random.Random(3)
    race_free = shared = 0
    for k in range(60):
        text, accesses = _mixed_program(rng, k)
        if not _race_free(tmp_path / f"mixed{k}.litmus", text):
            continue
        race_free += 1
        for a, b in _conflicts(accesses):
            assert a[4] != "na" and b[4] != "na", text  # non-atomic: its writer's alone
            if a[1] != b[1]:
                inclusive = (a[4] == b[4] == "device") or a[5] or b[5]
                assert inclusive, text
                shared += 1
    assert race_free >= 10 and shared >= 5  # the sample reaches the claim


def _shared_devices_program(rng: random.Random, k: int, remote_p: float = 0.0):
    """Three threads on two devices sharing x and y: P0 on device 0, P2 on
    device 1, P1 on either (a work-group each); each location atomic or not
    throughout, at any scope (all-devices scope most often), remote at
    device scope with probability `remote_p` (rsp-new's remote rows).
    Returns the text, the accesses (as _mixed_program) and each thread's
    device."""
    atomic = {x: rng.random() < 0.9 for x in "xy"}
    dev = {0: 0, 1: rng.randrange(2), 2: 1}
    scopes = _ALL_SCOPES + ("all_svm_devices",) * 3
    threads, accesses = [], []
    for t in range(3):
        threads.append(
            _mixed_thread(rng, t, t, atomic, "xy", 2, scopes, accesses, remote_p=remote_p, remote_at=("device",))
        )
    tree = " ".join(
        "(device " + " ".join(f"(work_group P{t})" for t in range(3) if dev[t] == d) + ")" for d in range(2)
    )
    return _litmus(f"shared{k}", "xy", threads, tree), accesses, dev


def test_race_free_programs_share_across_devices_only_through_all_devices_atomics(tmp_path):
    # Hrf_Happens's race_free_dev_scoped: in a race-free program (as
    # race_free_scoped asks) a write and a conflicting access of two devices
    # are atomics at all-devices scope, or one is a remote operation at
    # all-devices scope whose scope holds the other, an atomic (only
    # all_svm_devices scope holds a thread of another device: the model's
    # n82, n82_sys). hrf's race check must agree on a seeded sample of
    # programs on two devices without remote operations (load_promotion
    # then holds), where the claim reads: both at all-devices scope.
    rng = random.Random(5)
    race_free = shared = 0
    for k in range(150):
        text, accesses, dev = _shared_devices_program(rng, k)
        if not _race_free(tmp_path / f"shared{k}.litmus", text):
            continue
        race_free += 1
        for a, b in _conflicts(accesses):
            if dev[a[0]] != dev[b[0]]:
                assert a[4] == b[4] == "all_svm_devices", text
                shared += 1
    assert race_free >= 10 and shared >= 5, (race_free, shared)  # the sample reaches the claim


def _rsp_new_sound_if_race_free(path, text: str) -> bool:
    """Whether the program `text`, written to `path`, is race-free under
    opencl-rsp; where it is, hrf's explorer must find rsp-new sound on it
    (sound_on asks nothing of a racy program)."""
    path.write_text(text)
    r = hrf.soundness(path, "rsp-new", model="opencl-rsp")
    assert r.complete, text
    if r.racy_source:
        return False
    assert r.sound, (text, [(c.kind, c.writeback, c.outcome) for c in r.counterexamples])
    return True


def test_race_free_programs_keep_device_scope_remote_operations_on_their_device(tmp_path):
    # Hrf_Consistent's race_free_remote_local: in a race-free program
    # without remote all-devices operations, a remote operation and an
    # access of another thread it conflicts with sit on one device (a
    # remote device-scope operation's scope, promoted or not, holds only
    # its device's threads). hrf's race check must agree on a seeded sample
    # of programs on two devices whose remote operations are at device
    # scope (rsp-new's remote rows): every program rsp-new compiles.
    rng = random.Random(7)
    race_free = remote = 0
    for k in range(300):
        text, accesses, dev = _shared_devices_program(rng, k, remote_p=0.4)
        if not _race_free(tmp_path / f"remote{k}.litmus", text):
            continue
        race_free += 1
        pairs = [(a, b) for a, b in _conflicts(accesses) if a[5] or b[5]]
        for a, b in pairs:
            assert dev[a[0]] == dev[b[0]], text
        remote += bool(pairs)
    # 33 race-free, 9 with a remote operation meeting another thread's access
    assert race_free >= 20 and remote >= 5, (race_free, remote)


def test_the_explorer_finds_rsp_new_sound_on_every_race_free_program_it_compiles(tmp_path):
    # Hrf_Consistent's scheme_sound (rsp_new_sound: sound rsp_new against
    # OpenCL+RSP): every program rsp-new compiles, on any number of devices,
    # that is race-free under opencl-rsp shows only outcomes opencl-rsp
    # allows, under both write-back policies, and cannot deadlock. The
    # explorer must agree on the seeded sample above (two devices, remote
    # operations at device scope): every race-free one, those with a remote
    # operation meeting another thread's access and those sharing a
    # location across devices among them.
    rng = random.Random(7)
    race_free = remote = across = 0
    for k in range(300):
        text, accesses, dev = _shared_devices_program(rng, k, remote_p=0.4)
        if not _rsp_new_sound_if_race_free(tmp_path / f"remote{k}.litmus", text):
            continue
        race_free += 1
        remote += any(a[5] or b[5] for a, b in _conflicts(accesses))
        across += any(dev[a[0]] != dev[b[0]] for a, b in _conflicts(accesses))
    # 33 race-free, 9 with a remote operation meeting another thread's
    # access, 13 sharing a location across devices
    assert race_free >= 20 and remote >= 5 and across >= 5, (race_free, remote, across)


def test_the_explorer_finds_rsp_new_sound_on_race_free_programs_across_devices(tmp_path):
    # Hrf_Consistent's machine_sound_on_devices (rsp_new_sound_devices): on
    # any number of devices, every program without remote all-devices
    # operations (whose remote operations promote as load_promotion says)
    # that is race-free under opencl-rsp shows only outcomes opencl-rsp
    # allows, under both write-back policies, and cannot deadlock. The
    # explorer, a second implementation of the machine, must agree on the
    # seeded sample above (two devices sharing x and y, none remote): every
    # race-free one, those that share a location across devices (through
    # all-devices atomics) among them.
    rng = random.Random(5)
    race_free = across = 0
    for k in range(150):
        text, accesses, dev = _shared_devices_program(rng, k)
        if not _rsp_new_sound_if_race_free(tmp_path / f"shared{k}.litmus", text):
            continue
        race_free += 1
        across += any(dev[a[0]] != dev[b[0]] for a, b in _conflicts(accesses))
    assert race_free >= 10 and across >= 5, (race_free, across)  # the sample reaches the claim


# Hrf_Coherence's machine_outcomes_po_loc (rsp_new_outcomes_po_loc): for
# every program rsp-new compiles, racy or not, on every layout and under
# both write-back policies, every outcome of the machine is the outcome of
# a candidate that is SC per location (herd's uniproc: program order
# between accesses of one location, reads-from, coherence and from-reads
# acyclic). The explorer, a second implementation of the machine, must
# show no other outcome on a seeded sample across work-groups, atomic or
# not, at any scope, remote or not (uniproc as a cat file judges the
# source program; it calls no program racy).
_UNIPROC = '"SC per location (herd\'s uniproc)"\n\nacyclic po-loc | rf | co | fr as uniproc\n'


@pytest.mark.parametrize("name", ["rsp-new", "rsp-new-slides", "hrf-cache", "hrf-cache-locked"])
def test_the_explorer_shows_only_outcomes_sc_per_location(tmp_path, name):
    from hrf.isabelle.schemes import flushed_row, invalidated_row, l1_row, l2_row

    scheme = get(name)
    # every row is an L1 or an L2 row (the theorem's hypothesis), and the
    # L2 rows flush before and invalidate after (l2_flushed, l2_invalidated)
    assert all(l1_row(k[0], r.seq) or l2_row(k[0], r.seq) for k, r in scheme.rows.items())
    l2 = [r.seq for k, r in scheme.rows.items() if l2_row(k[0], r.seq)]
    assert l2 and all(flushed_row(q) and invalidated_row(q) for q in l2)
    remote = any(k[2] for k in scheme.rows)
    cat = tmp_path / "uniproc.cat"
    cat.write_text(_UNIPROC)
    rng = random.Random(13)
    checked = 0
    for k in range(24):
        text = _shared_program(rng, k) if k % 2 else _mixed_program(rng, k)[0]
        if "_remote" in text and not remote:
            continue  # no row for a remote operation: the scheme compiles no such program
        path = tmp_path / f"coherence{k}.litmus"
        path.write_text(text)
        r = hrf.soundness(path, name, model=str(cat))
        assert r.complete and not r.racy_source, text
        assert r.sound, (text, [(c.writeback, c.outcome) for c in r.counterexamples])
        checked += 1
    assert checked >= 8  # the sample, across work-groups, reaches every scheme


# Hrf_Consistent's machine_sound_on_rows (rsp_new_sound_device_local,
# hrf_cache_locked_sound_device_local): on one device, every program whose
# remote operations promote at most an atomic load of another work-group by
# a remote store, a work-group-scope atomic write of another work-group
# to a remote load, or a work-group-scope atomic store of another
# work-group to a remote RMW (load_promotion), that is race-free under
# opencl-rsp shows only outcomes opencl-rsp allows, under both write-back
# policies, and cannot deadlock. The explorer, a second implementation of
# the machine, must agree on a seeded sample across work-groups (atomic or
# not, work-group or device scope, remote or not).
def _promotes(
    accesses,
    store: bool = True,
    load: bool = True,
    rmw: bool = True,
    rmw_rmw: bool = True,
    rmw_load: bool = True,
    store_write: bool = True,
    store_rmw: bool = True,
    plain_as_wg: bool = False,
) -> bool:
    """load_promotion's negation: a write and a conflicting access of
    another thread, one of them remote, not each in the other's scope
    without promotion (non-atomic, or at work-group scope in another
    work-group), unless the write is a remote store whose scope holds an
    atomic load (not where not `store`), or the other access is a remote
    load whose scope holds the write, atomic and not remote (not where not
    `load`; store_promotion's negation then, and no_promotion's where
    neither), or a remote RMW and an atomic store or RMW, not remote, or an
    atomic load, that its scope holds (not where not `rmw`; not an RMW where
    not `rmw_rmw`, not a load where not `rmw_load`), or a remote store and an
    atomic store or RMW, not remote, that its scope holds (not where not
    `store_write`; not an RMW where not `store_rmw`). Where `plain_as_wg`,
    of the program whose plain accesses of a location some atomic accesses
    are work-group-scope atomics (Hrf_Consistent's plain_as_wg). Threads 0 and 1 sit on device 0,
    thread 2 on device 1 where a test has two (`_devices_program`);
    conflicting accesses sit on one device there."""

    if plain_as_wg:
        atomic_locs = {a[2] for a in accesses if a[4] != "na"}
        accesses = [
            a[:4] + ("work_group",) + a[5:] if a[4] == "na" and a[2] in atomic_locs and not a[5] else a
            for a in accesses
        ]

    def reaches(a, b) -> bool:
        return a[4] != "na" and (a[4] != "work_group" or a[1] == b[1])

    for a, b in _conflicts(accesses):
        if not a[3] or not (a[5] or b[5]):
            continue
        promoted = store and a[6] == "store" and a[5] and reaches(a, b) and not b[3] and b[4] != "na"
        loaded = load and b[6] == "load" and b[5] and reaches(b, a) and not a[5] and a[4] != "na"
        # a remote RMW against an atomic store or RMW, not remote, or an atomic load, that its scope
        # holds, both ways round
        rmw_store = rmw and any(
            w[6] == "rmw"
            and w[5]
            and reaches(w, v)
            and ((v[6] in (("store", "rmw") if rmw_rmw else ("store",)) and not v[5]) or (rmw_load and v[6] == "load"))
            and v[4] != "na"
            for w, v in ((a, b), (b, a))
        )
        # a remote store against an atomic store or RMW, not remote, that its scope holds, both ways round
        stores = store_write and any(
            w[6] == "store"
            and w[5]
            and reaches(w, v)
            and v[6] in (("store", "rmw") if store_rmw else ("store",))
            and not v[5]
            and v[4] != "na"
            for w, v in ((a, b), (b, a))
        )
        if not (reaches(a, b) and reaches(b, a)) and not promoted and not loaded and not rmw_store and not stores:
            return True
    return False


@pytest.mark.parametrize("name", ["rsp-new", "hrf-cache-locked"])
def test_the_explorer_finds_the_locked_schemes_sound_against_opencl_rsp_on_one_device(tmp_path, name):
    has_remote_rows = any(key[2] for key in get(name).rows)
    rng = random.Random(21)
    race_free = remote = promoted = loaded = 0
    for k in range(200):
        text, accesses = _mixed_program(rng, k)
        if _promotes(accesses):
            continue  # the theorem's load_promotion
        if "_remote" in text and not has_remote_rows:
            continue  # no row for a remote operation: the scheme compiles no such program
        path = tmp_path / f"consistent{k}.litmus"
        path.write_text(text)
        r = hrf.soundness(path, name, model="opencl-rsp")
        assert r.complete, text
        if r.racy_source:
            continue  # sound_on asks nothing of a racy program
        assert r.sound, (text, [(c.kind, c.writeback, c.outcome) for c in r.counterexamples])
        race_free += 1
        remote += "_remote" in text
        promoted += _promotes(accesses, store=False)
        loaded += _promotes(accesses, load=False)
    assert race_free >= 12  # the sample reaches race-free programs
    if name == "rsp-new":
        assert remote >= 3  # and, for rsp-new, race-free ones with remote operations
        assert promoted >= 1  # among them one whose remote store promotes an atomic load
        assert loaded >= 1  # and one whose remote load promotes a work-group-scope write


def test_the_explorer_finds_rsp_new_sound_where_a_remote_rmw_meets_a_work_group_write(tmp_path):
    # The same theorem on the programs that need its newest cases: a remote
    # RMW against a work-group-scope atomic store or RMW of another
    # work-group, or against an atomic load of another work-group that its
    # scope holds (load_promotion without them fails them). They are rare in
    # the mixed sample, so the sample is larger and only they are explored.
    # The controls, rsp-new's remote RMW row without its flush after the
    # increment, or with its lock, first flush or last invalidation of its
    # own work-group only, are tests/test_soundness.py's message passing
    # and lost update.
    needing = _explore_needing(tmp_path, 29, "rmw")
    rmws = sum(_promotes(accesses, rmw_rmw=False) for accesses, _ in needing)
    loads = sum(_promotes(accesses, rmw_load=False) for accesses, _ in needing)
    race_free = sum(free for _, free in needing)
    assert len(needing) >= 30 and race_free >= 10 and rmws >= 10 and loads >= 10  # the sample reaches each case


def _explore_needing(tmp_path, seed: int, case: str, count: int = 3000):
    """Of `count` mixed programs (`seed`), those the theorem covers only
    with its `case` (a flag of `_promotes`: load_promotion's case, or
    `plain_as_wg`, over programs with a plain thread), each explored:
    rsp-new is sound on each race-free one. Returns (accesses, race-free)
    for each."""
    plain = case == "plain_as_wg"
    within, without = ({case: True}, {}) if plain else ({}, {case: False})
    rng = random.Random(seed)
    found = []
    for k in range(count):
        text, accesses = _mixed_program(rng, k, plain=plain)
        if _promotes(accesses, **within) or not _promotes(accesses, **without):
            continue  # outside the theorem, or not needing the case
        path = tmp_path / f"{case}{k}.litmus"
        path.write_text(text)
        r = hrf.soundness(path, "rsp-new", model="opencl-rsp")
        assert r.complete, text
        if not r.racy_source:
            assert r.sound, (text, [(c.kind, c.writeback, c.outcome) for c in r.counterexamples])
        found.append((accesses, not r.racy_source))
    return found


def test_the_explorer_finds_rsp_new_sound_where_a_remote_store_meets_a_work_group_write(tmp_path):
    # The same on the programs that need load_promotion's case of a remote
    # store against a work-group-scope atomic store or RMW, not remote, of
    # another work-group that its scope holds ([RSP15] sec. 5.1: promotion;
    # the two writes are each in the other's scope, coherence orders them,
    # and the RMW is atomic against the store). The controls, rsp-new's
    # remote store row without its lock, flushes or last invalidation, are
    # tests/test_soundness.py's remote store against a work-group RMW.
    needing = _explore_needing(tmp_path, 29, "store_write")
    race_free = sum(free for _, free in needing)
    rmws = sum(_promotes(accesses, store_rmw=False) and free for accesses, free in needing)
    assert len(needing) >= 30 and race_free >= 10 and rmws >= 10  # the sample reaches each case


def test_the_explorer_finds_rsp_new_sound_where_a_remote_operation_meets_a_plain_access(tmp_path):
    # Hrf_Consistent's machine_sound_on_plain (rsp_new_sound_device_local):
    # a plain access of a location that atomics access is read as a
    # work-group-scope atomic (plain_as_wg; rsp-new's rows for the two are
    # LD and ST alike). opencl-rsp lets a remote operation meet such an
    # access of its device unordered (its scope holds every access of its
    # device: the pair is in scope inclusion, so no race). The programs
    # load_promotion leaves out and load_promotion of plain_as_wg takes:
    # rsp-new is sound on each race-free one, under both write-back
    # policies, without deadlock.
    needing = _explore_needing(tmp_path, 41, "plain_as_wg", count=600)
    race_free = sum(free for _, free in needing)
    assert len(needing) >= 30 and race_free >= 10, (len(needing), race_free)  # the sample reaches the case


_ALL_SCOPES = ("work_group", "device", "all_svm_devices")


def _devices_program(rng: random.Random, k: int):
    """Two devices: P0 and P1 on device 0 (one work-group or two) on x and
    y, P2 alone on device 1 on z, so that conflicting accesses sit on one
    device (Hrf_Happens's dev_conflicts); each location atomic or not
    throughout, at any scope, remote or not (no all-devices RMW: rsp-new has
    no row for one). Returns the text and the accesses as _mixed_program."""
    atomic = {x: rng.random() < 0.7 for x in "xyz"}
    two = rng.random() < 0.5
    wg = {0: 0, 1: 0 if two else 1, 2: 2}
    device0 = "(device (work_group P0 P1))" if two else "(device (work_group P0) (work_group P1))"
    threads, accesses = [], []
    for t in range(3):
        locs = "xy" if t < 2 else "z"
        threads.append(_mixed_thread(rng, t, wg[t], atomic, locs, 3, _ALL_SCOPES, accesses))
    text = _litmus(f"devices{k}", "xyz", threads, f"{device0} (device (work_group P2))")
    return text, accesses


def _mp_unsound_with(path, scheme, key, seq) -> None:
    """The scheme with the row of `key` replaced by `seq` is unsound on the
    message passing at `path` (race-free): P1 reads the flag (r1=1) and
    then the stale data (r2=0)."""
    from dataclasses import replace

    from hrf.mappings.scheme import Row

    planted = replace(scheme, name="rsp-new-planted", rows={**scheme.rows, key: Row(seq, "planted")})
    r = hrf.soundness(path, planted, model="opencl-rsp")
    assert r.sound is False and not r.racy_source, key
    assert any(c.outcome and c.outcome.get("1:r1") == 1 and c.outcome.get("1:r2") == 0 for c in r.counterexamples)


# Message passing on device 0 at all-devices scope, with device 1 beside
# it. By hand: P0's store of x is before its release of y in program
# order, P1's acquire reading y=1 synchronises with it (both all-devices
# scope), and P1's second load of x is after that acquire; so the store
# of x happens before that load, which must read 1 (coherence after
# happens-before): r1=1, r2=0 is not allowed. P1's first load of x brings
# x=0 into its L1 early. Race-free: every access is an atomic at device
# scope or wider on one device.
_MP_ALL = """OpenCL MP_all_beside_a_device
{
  [x]=0; [y]=0; [z]=0;
}

P0 (global atomic_int* x, global atomic_int* y, global atomic_int* z) {
  atomic_store_explicit(x, 1, memory_order_release, memory_scope_device);
  atomic_store_explicit(y, 1, memory_order_release, memory_scope_all_svm_devices);
}

P1 (global atomic_int* x, global atomic_int* y, global atomic_int* z) {
  int r0 = atomic_load_explicit(x, memory_order_acquire, memory_scope_device);
  int r1 = atomic_load_explicit(y, memory_order_acquire, memory_scope_all_svm_devices);
  int r2 = atomic_load_explicit(x, memory_order_acquire, memory_scope_device);
}

P2 (global atomic_int* x, global atomic_int* y, global atomic_int* z) {
  atomic_store_explicit_remote(z, 2, memory_order_release, memory_scope_all_svm_devices);
}

scopeTree (device (work_group P0) (work_group P1)) (device (work_group P2))
exists (1:r1=1 /\\ 1:r2=0)
"""


def test_the_explorer_finds_rsp_new_sound_on_two_devices_whose_conflicts_sit_on_one(tmp_path):
    # rsp_new_sound_device_local: on any number of devices whose conflicting
    # accesses sit on one device (dev_conflicts), every race-free program
    # whose remote operations promote nothing shows only outcomes
    # opencl-rsp allows. The several-device rows then run on several
    # devices: device 1's remote all-devices operations flush and
    # invalidate device 0's caches while its threads synchronise, and
    # device 0's all-devices rows go through memory. The explorer must
    # agree on a seeded sample. Controls: rsp-new with its all-devices
    # load not invalidating the L1 (LD; INVL2 DV), or its all-devices store
    # not flushing it first (FLUL2 DV; ST), is unsound on _MP_ALL.
    scheme = get("rsp-new")
    rng = random.Random(23)
    race_free = remote_all = 0
    for k in range(120):
        text, accesses = _devices_program(rng, k)
        assert not any(a[0] // 2 != b[0] // 2 for a, b in _conflicts(accesses))  # dev_conflicts
        if _promotes(accesses):
            continue  # the theorem's load_promotion
        path = tmp_path / f"devices{k}.litmus"
        path.write_text(text)
        r = hrf.soundness(path, scheme, model="opencl-rsp")
        assert r.complete, text
        if r.racy_source:
            continue
        assert r.sound, (text, [(c.kind, c.writeback, c.outcome) for c in r.counterexamples])
        race_free += 1
        remote_all += any(a[5] and a[4] == "all_svm_devices" for a in accesses)
    assert race_free >= 40 and remote_all >= 5  # the sample reaches remote all-devices operations
    path = tmp_path / "mp_all.litmus"
    path.write_text(_MP_ALL)
    assert hrf.soundness(path, scheme, model="opencl-rsp").sound
    for key, seq in ((("load", "all", False), ("LD", "INVL2 DV")), (("store", "all", False), ("FLUL2 DV", "ST"))):
        _mp_unsound_with(path, scheme, key, seq)


_MP_ACROSS = """OpenCL MP_across_devices
{
  [x]=0; [y]=0;
}

P0 (global atomic_int* x, global atomic_int* y) {
  atomic_store_explicit(x, 1, memory_order_release, memory_scope_all_svm_devices);
  atomic_store_explicit(y, 1, memory_order_release, memory_scope_all_svm_devices);
}

P1 (global atomic_int* x, global atomic_int* y) {
  int r0 = atomic_load_explicit(x, memory_order_acquire, memory_scope_all_svm_devices);
  int r1 = atomic_load_explicit(y, memory_order_acquire, memory_scope_all_svm_devices);
  int r2 = atomic_load_explicit(x, memory_order_acquire, memory_scope_all_svm_devices);
}

scopeTree (device (work_group P0)) (device (work_group P1))
exists (1:r1=1 /\\ 1:r2=0)
"""


def test_the_explorer_finds_rsp_new_sound_on_message_passing_across_devices(tmp_path):
    # Synchronisation across devices (Hrf_Happens's hbm edge between two
    # all-devices atomics of two devices): message passing at all-devices
    # scope from device 0 to device 1 is race-free, and rsp-new is sound on
    # it. Controls, by hand: its all-devices store without the flush of the
    # L2 (FLUL1 WG; ST: mem_rows fails) lets y reach memory before x under
    # the any-order write-back, so device 1 reads y=1 and then x=0 from
    # memory; its all-devices load without the invalidation of the L2
    # (LD; INVL1 WG: the read half that kl_ok's twin for the L2 lines will
    # need) lets device 1's L2 keep the x=0 its first load fetched.
    scheme = get("rsp-new")
    path = tmp_path / "mp_across.litmus"
    path.write_text(_MP_ACROSS)
    r = hrf.soundness(path, scheme, model="opencl-rsp")
    assert r.complete and not r.racy_source and r.sound
    for key, seq in ((("store", "all", False), ("FLUL1 WG", "ST")), (("load", "all", False), ("LD", "INVL1 WG"))):
        _mp_unsound_with(path, scheme, key, seq)


def test_rsp_old_breaks_sc_per_location_on_one_work_item(tmp_path):
    # Control for l2_invalidated: rsp-old's device RMW, as hrf reconstructs
    # it, invalidates the L1 before its increment at the L2, not after; its
    # thread's next load then reads the L1's stale 0 (rmw-then-load), an
    # outcome no candidate SC per location has (the load reads a write
    # coherence-before the thread's own earlier increment). The corrupt
    # MP, wrong across two locations, is SC per location: uniproc does not
    # see it.
    cat = tmp_path / "uniproc.cat"
    cat.write_text(_UNIPROC)
    r = hrf.soundness(CORPUS / "rsp/rmw-then-load.litmus", "rsp-old", model=str(cat))
    assert r.sound is False and any(c.outcome and c.outcome.get("0:r1") == 0 for c in r.counterexamples)
    assert hrf.soundness(CORPUS / "rsp/rmw-then-load.litmus", "rsp-new", model=str(cat)).sound
    assert hrf.soundness(CORPUS / "rsp/corrupt-mp.litmus", "rsp-old", model=str(cat)).sound
