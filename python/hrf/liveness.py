"""Forward progress: can a spin loop spin forever under a GPU's scheduler?

A thread waits in a spin loop until another thread's write releases it.
Whether it ever gets out depends on the memory model (may the write stay
invisible to it?) and on the scheduler (is the writer ever run?). The
progress models are those of [PROG21] sec. 3, stated over the scope tree
as Dartagnan states them (a uniform model at every level of the tree).

The check:
- loops are unrolled; at each copy's jump back, an iteration with no
  side effect ends the path *spinning* (repeated, it does the same again),
  and an iteration with one goes on (`hrf.thread_code`); it may also end
  the path *looping on* (a claim that the loop runs forever from there),
  and the last copy's jump back ends it at the bound;
- where the progress model lets the scheduler stop a thread, its paths may
  also end before any of its events (*stopped*, or *not started* before
  the first);
- an execution the memory model allows is a liveness violation when some
  thread never finishes, the progress model lets every stopped thread stay
  stopped, and what never finishes repeats forever:
  - a spinning thread's last iteration read, for each location, a write no
    other write is coherence-after (so no write it has not seen can ever
    release it: memory fairness);
  - a thread looping on, or at the bound, repeats a stretch of its loop's
    copies (a livelock: `repeating_stretches`, the decomposition into
    prefix, infix and suffix that Dartagnan's non-termination check
    makes): its last copies do what the copies before them did, and the
    memory they read stays as they found it;
  - a thread waiting at a barrier waits for more threads than arrive.
Liveness is established where no allowed execution reaches the bound
(none does at a larger one either); otherwise, with no violation found,
the verdict is open (`Result.live` None), naming the threads at the
bound: raise `--unroll` to look at longer stretches. So are the verdicts
a limit cuts short.

Dropping the iterations between a loop's entry and its repeating one keeps
the execution consistent, and an execution whose stretches relate as
above can be repeated consistently (the assumptions Dartagnan's spin-loop
and non-termination checks make): that is why a path can end where the
repetition starts.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, replace

from .errors import InvalidArgument, UnsupportedFeature
from .litmus import ast as A
from .models import get as get_model
from .thread_liveness import LISTED, NOT_STARTED, STOPPED, TERMINATED, end_register
from .unroll import jump_labels


@dataclass(frozen=True)
class Liveness:
    """How `compile_test` prepares a test for the liveness check."""

    stops: bool  # may the scheduler stop a thread anywhere (every model but fair)


# [PROG21] sec. 3: which children of a group the scheduler must keep running,
# given (i, S, O): the child's rank by id, which children are schedulable
# (not terminated, not blocked) and which have run at least one step.
PROGRESS = {
    "fair": lambda i, S, O: True,  # every thread
    "hsa": lambda i, S, O: not any(S[:i]),  # the lowest-id schedulable one
    "obe": lambda i, S, O: O[i],  # occupancy-bound: those that have started
    "hsa-obe": lambda i, S, O: not any(S[:i]) or O[i],
    "lobe": lambda i, S, O: any(O[i:]),  # linear OBE: those at or below a started one
    "unfair": lambda i, S, O: False,  # none (a group still runs one of its threads)
}

# each thread's state at the end of a path (`%status`), as the progress rules read it
DONE, SPIN, STOP, UNSTARTED, CUT, BLOCKED, LOOPS = (
    "terminated",
    "spinning",
    "stopped",
    "not started",
    "at the bound",
    "blocked at a barrier",
    "looping on",  # its path ends after a copy of a loop it claims to repeat (a livelock, if one repeats)
)


def progress_model(name: str | None) -> str:
    name = "fair" if name is None else str(name).lower().replace("_", "-")
    if name not in PROGRESS:
        raise InvalidArgument(f"progress model {name!r}: known ones are {', '.join(PROGRESS)}")
    return name


@dataclass(frozen=True)
class Stuck:
    """A thread that never finishes in the witness execution: it spins
    forever in a loop, or waits forever at a barrier."""

    thread: str
    line: int  # the loop's first line, or the barrier's
    iteration: int | None = None  # the repeating copy of the loop (0: the first time through)
    barrier: bool = False
    # a livelock (the loop changes memory or registers as it goes): (first,
    # count) of the copies it runs over and over, `iteration` the first;
    # None where it spins
    livelock: tuple | None = None

    def __str__(self) -> str:
        if self.barrier:
            return f"{self.thread} waits forever at the barrier at line {self.line}"
        if self.livelock is not None:
            first, count = self.livelock
            copies = f"copy {first}" if count == 1 else f"copies {first}-{first + count - 1}"
            return f"{self.thread} loops forever at line {self.line}, repeating {copies} of the loop (a livelock)"
        return f"{self.thread} spins forever in the loop at line {self.line}"


# ------------------------------------------------------------------ refusals
def refuse(test: A.Test) -> None:
    """Refuse, naming the thread and line, what the check cannot judge:
    loops that overlap without one holding the other (a jump back into
    another loop's middle). Several jumps back to one label make one loop;
    a loop may hold others."""
    for t in test.threads:
        for body in _bodies(t.body):
            for (i, j), (k, l) in itertools.combinations(_spans(body), 2):
                if i <= l and k <= j and not (i <= k and l <= j) and not (k <= i and j <= l):
                    raise UnsupportedFeature(
                        f"{t.name}: the loops at lines {body[i].line} and {body[k].line} overlap, neither "
                        "holding the other: the liveness check takes loops that nest",
                        test.path,
                        body[max(i, k)].line,
                    )


def _bodies(body):
    """A statement list and those nested in its if statements."""
    yield list(body)
    for s in body:
        if isinstance(s, A.If):
            yield from _bodies(s.then)
            yield from _bodies(s.orelse)


def _spans(body) -> list:
    """(label index, last jump index) of each label of `body` that a later
    statement jumps back to: one loop per label, however many jumps go
    back to it (`unroll.unroll_backward_jumps` unrolls it so)."""
    seen: dict = {}
    last: dict = {}
    for j, s in enumerate(body):
        if isinstance(s, A.Label):
            seen.setdefault(s.name, j)
        for lab in jump_labels(s):
            if lab in seen:
                last[seen[lab]] = j
    return sorted(last.items())


def writing_loops(test: A.Test) -> dict[int, list[str]]:
    """The loops with a write on every iteration, by thread: they never
    spin; only a livelock (a repeating stretch) keeps them going forever."""
    out: dict[int, list[str]] = {}
    for i, t in enumerate(test.threads):
        for loop_line, body in _loops(t.body):
            w = _unconditional_write(body)
            if w is not None:
                out.setdefault(i, []).append(
                    f"{t.name}'s loop at line {loop_line} writes on every iteration (line {w.line})"
                )
    return out


def _loops(body):
    """(line, body) of each loop: the statements from a label to a jump
    back to it, and `while` statements (their condition first)."""
    for b in _bodies(body):
        for i, j in _spans(b):
            yield b[i].line, b[i:j]
        for s in b:
            if isinstance(s, A.While):
                yield s.line, [_CondStmt(s.cond, s.line), *s.body]


@dataclass(frozen=True)
class _CondStmt:
    expr: object
    line: int


def _unconditional_write(body):
    """The first statement at the loop's top level (so on every iteration
    that gets to it) that writes: a store, or an RMW other than a
    compare-exchange (which writes only where it succeeds)."""
    for s in body:
        if isinstance(s, (A.Label, A.Goto)):
            continue
        if isinstance(s, A.If):
            return None  # what follows may be skipped
        if isinstance(s, A.Store):
            return s
        exprs = [s.expr] if isinstance(s, _CondStmt) else list(A.exprs_of(s))
        for ex in exprs:
            for e in A.walk_expr(ex):
                if isinstance(e, A.StoreExpr) or (isinstance(e, A.Rmw) and e.op not in ("cas", "cas_old")):
                    return s
    return None


# ------------------------------------------------------------ the scheduler
def hierarchy(test: A.Test) -> tuple:
    """The scope tree as nested groups, outermost first (device, queue
    family, work group, subgroup), each group's children in id order:
    ("group", children) and ("thread", index)."""
    from .program import SCOPE_LEVELS, thread_places

    pos = thread_places(test)

    def build(members: list, level: int):
        if level == len(SCOPE_LEVELS):
            return tuple(("thread", i) for i in members)
        name = SCOPE_LEVELS[level]
        groups: dict = {}
        for i in members:
            groups.setdefault(pos[i][name], []).append(i)

        def rank(key):
            last = key[-1] if isinstance(key, tuple) else key
            return (0, last, "") if isinstance(last, int) else (1, 0, str(last))

        return tuple(("group", build(groups[k], level + 1)) for k in sorted(groups, key=rank))

    return ("group", build(list(range(len(test.threads))), 0))


@functools.lru_cache(maxsize=4096)
def scheduler_allows(tree: tuple, progress: str, states: tuple) -> bool:
    """Whether some schedule under `progress` leaves every stopped or
    unstarted thread so, given each thread's state: the progress
    obligations of Dartagnan's ForwardProgressEncoder, solved exactly
    (the trees are small). The root group always makes progress; a group
    that makes progress and has a schedulable thread makes progress in one
    schedulable child, and passes it on to the children its model names; a
    thread that makes progress is not stopped."""
    nodes: list = []  # (parent, children, thread)

    def walk(node, parent):
        k = len(nodes)
        nodes.append([parent, [], node[1] if node[0] == "thread" else None])
        if node[0] == "group":
            nodes[k][1] = [walk(c, k) for c in node[1]]
        return k

    walk(tree, None)
    rule = PROGRESS[progress]
    # leaves: schedulable (not terminated), started, may make progress
    sched = [False] * len(nodes)
    started = [False] * len(nodes)
    for k in reversed(range(len(nodes))):
        parent, children, t = nodes[k]
        if t is not None:
            sched[k] = states[t] not in (DONE, BLOCKED)
            started[k] = states[t] != UNSTARTED
        else:
            sched[k] = any(sched[c] for c in children)
            started[k] = any(started[c] for c in children)
    # a group with no schedulable thread may still count as schedulable
    free = [k for k in range(len(nodes)) if nodes[k][2] is None and not sched[k]]
    for extra in itertools.product((False, True), repeat=len(free)):
        S = list(sched)
        for k, v in zip(free, extra, strict=True):
            S[k] = v
        if _progress_exists(nodes, S, started, rule, states, frozenset([0])):
            return True
    return False


def _progress_exists(nodes, S, O, rule, states, given: frozenset) -> bool:
    """Is there a set of nodes making progress, containing `given`, closed
    under the obligations, with no stopped thread in it?"""
    P = set(given)
    work = list(P)
    while work:
        k = work.pop()
        parent, children, t = nodes[k]
        if t is not None and states[t] not in (DONE, SPIN, BLOCKED):
            return False
        new = [parent] if parent is not None else []
        if children:
            Sc, Oc = [S[c] for c in children], [O[c] for c in children]
            new += [c for i, c in enumerate(children) if rule(i, Sc, Oc)]
        for n in new:
            if n not in P:
                P.add(n)
                work.append(n)
    # a progressing schedulable group runs one of its schedulable children
    for k in sorted(P):
        children = nodes[k][1]
        if children and S[k] and not any(c in P and S[c] for c in children):
            return any(_progress_exists(nodes, S, O, rule, states, frozenset(P | {c})) for c in children if S[c])
    return True


# ------------------------------------------------------------------ the check
def state_of(comp, status: int) -> str:
    if status >= LISTED:
        return {"spin": SPIN, "loops": LOOPS, "bound": CUT, "blocked": BLOCKED}[comp.ends[status - LISTED][0]]
    return {TERMINATED: DONE, NOT_STARTED: UNSTARTED, STOPPED: STOP}[status]


def witness(comp, execution: dict, tree: tuple, progress: str) -> list[Stuck] | None:
    """The threads stuck forever in this execution, or None where it
    shows no violation."""
    n = len(comp.test.threads)
    statuses = execution["outcome"][-n:]
    states = tuple(state_of(comp, s) for s in statuses)
    if SPIN not in states and BLOCKED not in states and CUT not in states and LOOPS not in states:
        return None  # every thread ends or stops
    # a thread at the bound, or looping on, runs forever only in a livelock: the scheduler runs it
    running = tuple(SPIN if s in (CUT, LOOPS) else s for s in states)
    if not scheduler_allows(tree, progress, running):  # cached: the cheap test first
        return None
    spinning: dict[int, tuple] = {}  # thread -> the copy (its frames) that repeats
    looping: dict[int, tuple] = {}  # thread -> the copy its path ended after
    stuck: dict[int, Stuck] = {}
    for t, status in enumerate(statuses):
        if status < LISTED:
            continue
        end = comp.ends[status - LISTED]
        if end[0] == "spin":
            spinning[t] = end[2]
        elif end[0] in ("loops", "bound"):
            looping[t] = end[2]
        elif _too_few_arrive(comp, execution, statuses, t, end[2], end[3]):
            stuck[t] = Stuck(comp.test.threads[t].name, end[4], barrier=True)
        else:
            return None
    stretches = repeating_stretches(comp, execution, spinning, looping)
    if stretches is None:
        return None
    for t, ctx in spinning.items():
        stuck[t] = Stuck(comp.test.threads[t].name, comp.loops[ctx[-1][0]].line, ctx[-1][1])
    for t, (loop, first, count) in stretches.items():
        stuck[t] = Stuck(comp.test.threads[t].name, comp.loops[loop].line, first, livelock=(first, count))
    return [stuck[t] for t in sorted(stuck)]


# ------------------------------------------------------ repeating iterations
# A livelock: threads that keep writing, each repeating a stretch of its
# loop's iterations forever. Found as Dartagnan's non-termination encoding
# finds it: each looping thread's iterations split into a prefix, an infix
# and a suffix whose last iterations repeat the infix.
def repeating_stretches(comp, execution: dict, spinning: dict, looping: dict) -> dict | None:
    """Whether the execution repeats forever: each spinning thread's last
    iteration (side-effect-free: a suffix of one, no infix) and, for each
    thread `looping` on (at the bound, or its path ended after copy N of a
    loop, claiming it runs on), a suffix of its loop's copies s..N whose
    last m copies repeat the m copies before s (the infix): the same
    events, values and locations, the same registers at each copy's end,
    and the same rf and coherence among infix events as among those that
    repeat them. Memory fairness, so that the suffix repeats: no write
    outside the stretches is coherence-after a suffix write, only suffix
    reads read suffix writes, and a suffix read reads a write outside the
    stretches only where no write is coherence-after it (as for a spin).
    Repeating, such a thread runs copies s-m..N-m over and over (the
    infix, then the suffix less its last m copies). Returns {thread:
    (loop, s-m, N-s+1)} for the looping threads, or None where no
    split does. A stretch holding a barrier is not judged (None).

    The repeated execution is assumed consistent where the finite one is
    and the stretches relate so (Dartagnan's encoding assumes the same)."""
    by_copy: dict = {}  # (thread, frames) -> the events of that copy (inner loops' included), in program order
    for e in sorted(execution["events"], key=lambda e: e["id"]):
        frames: tuple = (comp.templates[e["template"]].iteration or ()) if e["template"] is not None else ()
        for d in range(1, len(frames) + 1):
            by_copy.setdefault((e["thread"], frames[:d]), []).append(e)
    base: set = set()
    for t, ctx in spinning.items():
        base |= {e["id"] for e in by_copy.get((t, ctx), [])}
    options = []
    for t, where in looping.items():
        found = _splits(comp, execution, by_copy, t, where)
        if not found:
            return None
        options.append(found)
    events = {e["id"]: e for e in execution["events"]}
    after = _coherence_after(execution["co"])
    rf = {(w, r) for w, r in execution["rf"]}
    for choice in itertools.product(*options):
        suffix, match = set(base), {}
        for split in choice:
            suffix |= split.suffix
            match.update(split.match)
        if _repeatable(events, rf, after, suffix, match):
            return {
                t: (split.loop, split.start - split.length, split.last - split.start + 1)
                for t, split in zip(looping, choice, strict=True)
            }
    return None


@dataclass(frozen=True)
class _Split:
    """A looping thread's loop copies: suffix start..last, infix start-length..start-1."""

    loop: int
    start: int
    length: int
    last: int
    suffix: frozenset  # event ids
    match: dict  # infix event id -> the suffix event that repeats it


def _splits(comp, execution: dict, by_copy: dict, t: int, ctx: tuple) -> list:
    """The splits of thread t's loop, its path ended after copy `last` (`ctx`:
    that copy's frames), whose infix copies the suffix's last copies
    repeat, event for event and in the registers each copy leaves
    (`thread_liveness.end_register`); the copies compared are those of the
    same copies of the loops around it."""
    around, (loop, last) = ctx[:-1], ctx[-1]
    if last == comp.unroll and not comp.loops[loop].whole_last:
        return []  # a while loop stopped at its test
    depth = len(ctx)
    regs = comp.loops[loop].regs
    outcome = execution["outcome"]

    def copy(j: int) -> tuple:
        return (*around, (loop, j))

    def same(j: int, k: int):
        """The pairs of events copy k repeats of copy j, or None."""
        a, b = by_copy.get((t, copy(j)), []), by_copy.get((t, copy(k)), [])
        if [_shape(comp, e, depth) for e in a] != [_shape(comp, e, depth) for e in b]:
            return None
        for r in regs:
            x, y = (outcome[comp.observed_at(f"{t}:{end_register(copy(c), r)}")] for c in (j, k))
            if x != y:
                return None
        return {e["id"]: f["id"] for e, f in zip(a, b, strict=True)}

    out = []
    for start in range(1, last + 1):
        for length in range(1, min(start, last - start + 1) + 1):
            match: dict = {}
            for i in range(1, length + 1):  # infix copy start-i repeats as copy last+1-i
                pairs = same(start - i, last + 1 - i)
                if pairs is None:
                    break
                match.update(pairs)
            else:
                stretch = [e for c in range(start - length, last + 1) for e in by_copy.get((t, copy(c)), [])]
                if any("barrier" in comp.templates[e["template"]].tags for e in stretch):
                    continue  # not judged: which barriers a repeated stretch meets
                suffix = frozenset(e["id"] for c in range(start, last + 1) for e in by_copy.get((t, copy(c)), []))
                out.append(_Split(loop, start, length, last, suffix, match))
    return out


def _shape(comp, e: dict, depth: int) -> tuple:
    """What two events of copies of one loop (its `depth`-th, from the
    outermost) share when one repeats the other."""
    return (comp.loop_rank(e["template"], depth), e["kind"], e["loc"], e["value"])


def _coherence_after(co_pairs) -> dict:
    """Each write -> the writes coherence-after it (co's immediate pairs closed)."""
    succ: dict = {}
    for a, b in co_pairs:
        succ.setdefault(a, set()).add(b)
    out: dict = {}

    def reach(w):
        if w not in out:
            out[w] = set()
            for v in succ.get(w, ()):
                out[w] |= {v} | reach(v)
        return out[w]

    for w in list(succ):
        reach(w)
    return out


def _repeatable(events: dict, rf: set, after: dict, suffix: set, match: dict) -> bool:
    infix = set(match)
    # the infix relates among itself as the events that repeat it do
    for x in infix:
        for y in infix:
            if x == y:
                continue
            mx, my = match[x], match[y]
            if ((x, y) in rf) != ((mx, my) in rf) or (y in after.get(x, ())) != (my in after.get(mx, ())):
                return False
    stretch = infix | suffix
    writes = [i for i, e in events.items() if e["kind"] == "W"]
    for y in writes:
        if y in suffix and any(x not in stretch for x in after.get(y, ())):
            return False  # a write outside the stretches is coherence-after a suffix write
    for w, r in rf:
        if w in suffix and r not in suffix:
            return False  # the suffix's writes are read only by the suffix
        if r in suffix and w not in stretch and after.get(w):
            return False  # a newer write would reach the repeating read
    return True


def _too_few_arrive(comp, execution: dict, statuses, t: int, bar: tuple, q: int | None) -> bool:
    """A barrier waits forever when no thread of the work group passed it
    and fewer threads arrive (wait there, or arrive without waiting) than
    it waits for: its count, or else every thread of the work group whose
    code holds it."""
    group = comp.ir["threads"][t]["attrs"]["wg"]
    members = [i for i, th in enumerate(comp.ir["threads"]) if th["attrs"]["wg"] == group]
    arrivals = 0
    for e in execution["events"]:
        if e["template"] is None or e["thread"] not in members:
            continue
        tpl = comp.templates[e["template"]]
        if _instance(tpl) == bar and "barrier" in tpl.tags:
            if "ARRIVE" not in tpl.tags:
                return False  # a thread went through it
            arrivals += 1
    for i in members:
        s = statuses[i]
        if s >= LISTED and comp.ends[s - LISTED][0] == "blocked" and comp.ends[s - LISTED][2] == bar:
            arrivals += 1
    if q is None:  # without a count: every thread of the work group whose code holds it (Dartagnan's reading)
        q = len({tpl.thread for tpl in comp.templates if _instance(tpl) == bar and tpl.thread in members})
    return arrivals < q


def _instance(tpl) -> tuple:
    """A barrier event's instance: its number and resource (liveness
    refuses a resource held in a register)."""
    return (tpl.attrs.get("bar"), tpl.attrs.get("res"))


def check_liveness(test, model, progress: str | None, limits):
    """`hrf.check(..., liveness=True)`: the Result of the test's check with
    `live` (True: no execution gets stuck; False: `stuck` names the
    spinning threads of `witness`; None: not established, `notes` say why)."""
    from .litmus import parse

    progress = progress_model(progress)
    from .litmus.translate import read_by

    t = parse(test)
    m = get_model(model)
    t = read_by(t, m)  # as every verb reads it (translated where the model reads another dialect)
    refuse(t)
    tree = hierarchy(t)
    writing = writing_loops(t)
    # Unrolled 0, 1, .. limits.unroll times, until established: a witness
    # is one at any bound, and where no allowed execution reaches bound k
    # none reaches a larger one (its prefix would reach k).
    for unroll in range(limits.unroll + 1):
        r = _check_at(t, m, progress, replace(limits, unroll=unroll), tree, writing)
        if r.live is not None or not r.complete:
            break
    return r


def _check_at(t: A.Test, m, progress: str, limits, tree: tuple, writing: dict):
    """The liveness check with loops unrolled `limits.unroll` times."""
    from .program import compile_test
    from .results import run_core

    comp = compile_test(t, limits.unroll, m.cas_writeback, liveness=Liveness(stops=progress != "fair"))
    r = run_core(comp, m, replace(limits, keep_all=True))
    if r.error is not None:
        raise r.error
    r.progress = progress
    bound: set = set()  # the threads an allowed execution takes to the bound
    for ex in r.executions:
        bound |= {i for i, s in enumerate(ex["outcome"][-len(t.threads) :]) if state_of(comp, s) == CUT}
        stuck = witness(comp, ex, tree, progress)
        if stuck:
            r.live, r.stuck, r.liveness_witness = False, stuck, ex
            r.executions = [ex]
            r.notes.append(f"not live under {progress} progress: " + "; ".join(map(str, stuck)))
            break
    else:
        why = []
        if not r.complete:
            why.append("a limit cut the check short")
        if limits.max_kept is not None and len(r.executions) >= limits.max_kept:
            why.append(f"max_kept={limits.max_kept} left executions unexamined")
        if bound:
            names = ", ".join(t.threads[i].name for i in sorted(bound))
            writes = [w for i in sorted(bound) for w in writing.get(i, [])]
            why.append(
                f"an execution the model allows takes {names} to the unrolling bound ({limits.unroll}) in a loop "
                + (f"with a side effect on every iteration ({'; '.join(writes)}) " if writes else "")
                + "and no stretch of iterations within the bound repeats forever "
                "(raise --unroll to look at longer ones)"
            )
        r.live = None if why else True
        r.notes.append(
            f"live under {progress} progress: no execution spins forever"
            if r.live
            else "liveness not established: " + "; ".join(why)
        )
    # the outcomes are over the threads' statuses: not the test's own
    r.outcomes, r.states, r.condition_holds = [], [], None
    if r.live is not False:
        r.executions = []
    return r


def liveness_text(r) -> str:
    """A liveness result as text, herd-like: the test, the model and the
    progress model, the verdict, the threads that never finish."""
    verdict = {True: "Yes", False: "No", None: "Unknown"}[r.live]
    lines = [f"Test {r.name} Liveness", f"Model {r.model}", f"Progress {r.progress}", f"Live {verdict}"]
    lines += [f"Stuck {x}" for x in r.stuck]
    lines.append(f"Time {r.name} {r.time:.2f}")
    return "\n".join(lines) + "\n"
