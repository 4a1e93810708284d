//! Candidate executions of a program and their verdict under a model.
//!
//! A candidate is one control path per thread (given the
//! values its reads return), an `rf` that maps each read to a write of the
//! same location and value, and a `co` that orders the writes of each
//! location with the init write first. The fast enumerator extends `rf` and
//! `co` one choice at a time and drops a partial choice as soon as a
//! consistency axiom that is monotone in `rf`/`co` fails on it (a failure
//! of a monotone check persists in every completion). `Strategy::Reference`
//! builds every complete candidate and judges only complete ones; property
//! tests compare the two.

use super::execution::{thread_paths, value_domains, Chained, Dynamic, Event, EventStructure, Path};
use super::model::{Compiled, Evaluator, READS_CO, READS_ORDERS, READS_RF};
use super::relation::{bits, EventSet, Relation, MAX_EVENTS};
use crate::error::Error;
use crate::limits::Budget;
pub use crate::limits::{cancel, LimitOut, Limits, CANCEL_GENERATION};
use crate::program::{LoadUse, Observed, Program};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

#[derive(Serialize, Clone, Debug, schemars::JsonSchema)]
pub struct ExecutionOut {
    pub events: Vec<Event>,
    pub rf: Vec<(usize, usize)>,
    /// Consecutive pairs of each location's coherence order.
    pub co: Vec<(usize, usize)>,
    pub po: Vec<(usize, usize)>,
    pub rmw: Vec<(usize, usize)>,
    /// The model's shown relations (e.g. synchronisation), by name.
    pub shown: Vec<(String, Vec<(usize, usize)>)>,
    /// Every flag this execution raises: (kind, check, witness events).
    pub raised: Vec<(String, String, Vec<usize>)>,
    /// Its outcome: the values of the test's observed registers and locations.
    pub outcome: Vec<i64>,
    /// Data, control and address dependencies (read -> dependent event).
    pub data: Vec<(usize, usize)>,
    pub ctrl: Vec<(usize, usize)>,
    pub addr: Vec<(usize, usize)>,
    /// The model's witness orders as found for this execution: each one's
    /// events, first to last (empty for a candidate judged without them).
    pub orders: Vec<(String, Vec<usize>)>,
}

#[derive(Serialize, Clone, Debug, schemars::JsonSchema)]
pub struct FlagOut {
    pub kind: String,
    pub check: String,
    pub events: Vec<usize>,
    pub execution: Option<ExecutionOut>,
}

#[derive(Serialize, Clone, Debug, schemars::JsonSchema)]
pub struct OutcomeOut {
    pub values: Vec<i64>,
    pub count: u64,
    pub positive: bool,
    pub flagged: u64,
    pub witness: Option<ExecutionOut>,
}

#[derive(Serialize, Clone, Debug, Default, schemars::JsonSchema)]
pub struct CheckOut {
    pub outcomes: Vec<OutcomeOut>,
    pub positive: u64,
    pub negative: u64,
    pub consistent: u64,
    pub candidates: u64,
    pub pruned: u64,
    pub flagged_executions: u64,
    pub flags: Vec<FlagOut>,
    pub cut_paths: Vec<usize>,
    pub complete: bool,
    pub limit: Option<LimitOut>,
    pub seconds: f64,
    pub executions: Vec<ExecutionOut>,
    /// With thin-air guessing: the fresh value that stands for "any value
    /// the test does not name" (herd prints such values symbolically).
    pub thin_air_value: Option<i64>,
    /// Path combinations with no execution because a barrier with a thread
    /// count is reached by fewer threads than it waits for (`Program::quorums`).
    pub blocked: u64,
}

/// What one path combination contributes; merged in combination order so
/// that witnesses do not depend on scheduling.
#[derive(Default)]
struct Partial {
    outcomes: BTreeMap<Vec<i64>, (u64, bool, u64, Option<ExecutionOut>)>,
    order: Vec<Vec<i64>>,
    positive: u64,
    negative: u64,
    consistent: u64,
    candidates: u64,
    pruned: u64,
    flagged: u64,
    flags: Vec<FlagOut>,
    executions: Vec<ExecutionOut>,
    blocked: u64,
}

impl Partial {
    /// Append a later combination's contribution.
    fn absorb(&mut self, p: Partial) {
        self.positive += p.positive;
        self.negative += p.negative;
        self.consistent += p.consistent;
        self.candidates += p.candidates;
        self.pruned += p.pruned;
        self.flagged += p.flagged;
        self.blocked += p.blocked;
        for f in p.flags {
            if !self.flags.iter().any(|g| g.check == f.check) {
                self.flags.push(f);
            }
        }
        for key in p.order {
            let (count, pos, flagged, wit) = p.outcomes[&key].clone();
            match self.outcomes.get_mut(&key) {
                Some(e) => {
                    e.0 += count;
                    e.2 += flagged;
                }
                None => {
                    self.order.push(key.clone());
                    self.outcomes.insert(key, (count, pos, flagged, wit));
                }
            }
        }
        self.executions.extend(p.executions);
    }
}

struct Shared<'a> {
    prog: &'a Program,
    model: &'a Compiled,
    limits: &'a Limits,
    budget: Budget,
    /// Candidates judged plus combinations ruled out before rf/co.
    candidates: AtomicU64,
    /// The executions merged so far fill max_kept: keep no more.
    kept_full: std::sync::atomic::AtomicBool,
    /// Locations one thread alone accesses, under a model whose reads of
    /// them read the last write before them (`ModelIr::uniproc`): their
    /// rf is that write. All false otherwise.
    private: Vec<bool>,
    /// The observed values a filter reads, where all are registers (the
    /// filter is then judged once per combination of paths).
    filter_regs: Option<Vec<usize>>,
    /// The values each location may hold: a computed write on a cycle of
    /// RMWs reading each other takes each of its location's in turn.
    dom: super::execution::Domains,
}

impl<'a> Shared<'a> {
    /// Count `n` units of work against `max_candidates`; false (and the
    /// run stopped) once the limit is passed.
    fn spend(&self, n: u64) -> bool {
        let c = self.candidates.fetch_add(n, Ordering::Relaxed) + n;
        if c > self.limits.max_candidates {
            self.budget.hit("candidates", format!("more than {} candidate executions", self.limits.max_candidates));
            return false;
        }
        true
    }
}

/// Combinations of thread paths handed to the workers at a time: each
/// window's partial results are merged before the next starts, so memory
/// does not grow with the number of combinations.
const WINDOW: usize = 1 << 14;

pub fn check(prog: &Program, model: &Compiled, limits: &Limits) -> Result<CheckOut, Error> {
    let start = Instant::now();
    prog.validate()?;
    let mut out = CheckOut { complete: true, ..Default::default() };
    out.thin_air_value = limits.thin_air.then(|| super::execution::thin_air_value(prog));
    let budget = Budget::new(limits.max_seconds, limits.max_memory);
    // A limit hit while listing values or paths ends the run (the budget's
    // own limit, time, memory or Ctrl-C, first); any other error is one.
    let stopped = |out: &mut CheckOut, e: Error, budget: &Budget| -> Result<(), Error> {
        let Error::Limit { which, detail } = e else { return Err(e) };
        out.complete = false;
        out.limit = Some(budget.take().unwrap_or(LimitOut { which: which.into(), detail }));
        out.seconds = start.elapsed().as_secs_f64();
        Ok(())
    };
    // Reads of a location one thread alone accesses read its last write
    // there, under a model that says so (the reference ignores it).
    let private = if model.ir.uniproc && !limits.reference {
        prog.private_locations(&model.ir.uniproc_tags)
    } else {
        vec![false; prog.locations.len()]
    };
    // How each load uses its value (`LoadUse`): one whose value nothing uses
    // reads any write, on one path; one read through one assignment is a
    // path per image (the reference gives each every value of its domain).
    let loads: Vec<Vec<LoadUse>> = if limits.reference {
        vec![Vec::new(); prog.threads.len()]
    } else {
        (0..prog.threads.len()).map(|t| prog.load_uses(t)).collect()
    };
    // Per thread: the locations whose every write (init aside) is one of its
    // RMWs that the model makes atomic: each of its paths must form their
    // chain (`thread_paths`).
    let writers = if limits.reference || model.ir.rmw_chains.is_empty() {
        Vec::new()
    } else {
        prog.rmw_chain_writers(&model.ir.rmw_chains)
    };
    let chained: Vec<Chained> = (0..prog.threads.len())
        .map(|t| Chained {
            locs: (0..writers.len()).filter(|&l| writers[l] == Some(t)).collect(),
            order: model.ir.rmw_chain_order.clone(),
        })
        .collect();
    // The locations whose writes (init aside) are RMWs whose value nothing
    // reads but a branch on it: a path per image, each write's value left to
    // its read's rf (`Program::computed_locations`; not a chained one, whose
    // paths carry their values; the reference guesses every value).
    let computed: Vec<bool> = if limits.reference || limits.thin_air {
        vec![false; prog.locations.len()]
    } else {
        let chained_loc = |l: usize| writers.get(l).is_some_and(|w| w.is_some());
        let c = prog.computed_locations(&loads);
        (0..c.len()).map(|l| c[l] && !private[l] && !chained_loc(l)).collect()
    };
    let dom = match value_domains(prog, &private, &loads, &chained, limits, &budget) {
        Ok(d) => d,
        Err(e) => {
            stopped(&mut out, e, &budget)?;
            return Ok(out);
        }
    };
    let mut per_thread: Vec<Vec<Path>> = Vec::new();
    for (t, uses) in loads.iter().enumerate() {
        match thread_paths(prog, t, &dom, &private, uses, &chained[t], &computed, limits.max_paths, &budget, false) {
            Ok(p) => {
                out.cut_paths.push(p.cut);
                per_thread.push(p.paths);
            }
            Err(e) => {
                stopped(&mut out, e, &budget)?;
                return Ok(out);
            }
        }
    }
    if !limits.reference {
        drop_unjustified_paths(prog, &mut per_thread, &computed);
    }
    // The most events a combination of paths may have: more than this
    // checker's event sets hold goes to a wider one (lib.rs, check_json).
    let most = prog.locations.len()
        + per_thread.iter().map(|p| p.iter().map(|x| x.events.len()).max().unwrap_or(0)).sum::<usize>();
    if most > MAX_EVENTS {
        return Err(Error::TooManyEvents { events: most, max: MAX_EVENTS });
    }
    // Every combination of one path per thread, as a mixed-radix index.
    let radices: Vec<usize> = per_thread.iter().map(|p| p.len()).collect();
    let total: Option<usize> = radices.iter().try_fold(1usize, |a, &r| a.checked_mul(r));
    // the observed values the filter reads, where they are registers alone
    let filter_regs = prog.filter.as_ref().and_then(|f| {
        let mut vars = Vec::new();
        f.vars(&mut vars);
        vars.iter().all(|&v| matches!(prog.observed.get(v), Some(Observed::Reg { .. }))).then_some(vars)
    });
    // What each path reads and writes, for the cheap test of each
    // combination (`Justify::justified`) before its event structure is built.
    let justify = (!limits.reference).then(|| Justify::new(prog, &per_thread, &computed));
    let shared = Shared {
        prog,
        model,
        limits,
        budget,
        candidates: AtomicU64::new(0),
        kept_full: Default::default(),
        private,
        filter_regs,
        dom,
    };
    let total = match total {
        Some(t) => t,
        None => {
            shared.budget.hit("paths", "the number of combinations of thread paths overflows".into());
            0
        }
    };
    // Combinations in blocks: a block is folded in order by one worker and
    // stops as soon as a limit is hit; blocks are merged in order, so the
    // witnesses do not depend on scheduling. Windows of blocks keep the
    // memory of partial results bounded.
    const BLOCK: usize = 64;
    let nblocks = total.div_ceil(BLOCK);
    let mut all = Partial::default();
    let mut first = 0;
    // Kept executions are merged window by window and cut to max_kept, so
    // keep the windows small when executions are kept.
    let window = if limits.keep_all { 64 } else { WINDOW };
    while first < nblocks && !shared.budget.stopped() {
        let last = (first + window).min(nblocks);
        let block = |b: usize| {
            let mut acc = Partial::default();
            let mut carry = Carry::default();
            let mut unjustified = 0;
            for idx in b * BLOCK..((b + 1) * BLOCK).min(total) {
                if shared.budget.stopped() {
                    break;
                }
                let which = path_indices(&radices, idx);
                if justify.as_ref().is_some_and(|j| !j.justified(&which)) {
                    // no candidate: a read's value is written by none of these
                    // paths, nor is it the initial value (counted as the work
                    // it is, as when the event structure finds it)
                    unjustified += 1;
                    continue;
                }
                let chosen: Vec<&Path> = which.iter().enumerate().map(|(t, &i)| &per_thread[t][i]).collect();
                match quorums_met(prog, &chosen) {
                    Quorums::Met => acc.absorb(combination(&shared, &chosen, &mut carry)?),
                    Quorums::Blocked => acc.blocked += 1,
                    Quorums::NotChosen => {}
                }
            }
            if unjustified > 0 {
                shared.spend(unjustified);
            }
            Ok(acc)
        };
        // Blocks in parallel where several threads may work (threads.rs).
        let parts: Vec<Result<Partial, Error>> = crate::threads::par_map(last - first, |i| block(first + i));
        // Merge in combination order.
        for p in parts {
            all.absorb(p?);
        }
        if let Some(max) = limits.max_kept {
            all.executions.truncate(max as usize);
            if all.executions.len() as u64 >= max {
                shared.kept_full.store(true, Ordering::Relaxed);
            }
        }
        first = last;
    }
    out.positive = all.positive;
    out.negative = all.negative;
    out.consistent = all.consistent;
    out.candidates = all.candidates;
    out.pruned = all.pruned;
    out.flagged_executions = all.flagged;
    out.flags = all.flags;
    out.executions = all.executions;
    out.blocked = all.blocked;
    for key in all.order {
        let (count, positive, flagged, witness) = all.outcomes.remove(&key).unwrap();
        out.outcomes.push(OutcomeOut { values: key, count, positive, flagged, witness });
    }
    out.outcomes.sort_by(|a, b| a.values.cmp(&b.values));
    if let Some(l) = shared.budget.take() {
        out.complete = false;
        out.limit = Some(l);
    }
    out.seconds = start.elapsed().as_secs_f64();
    Ok(out)
}

/// Combination `idx` of the threads' paths as a mixed-radix number: the
/// index of each thread's path (`radices`: how many paths each has).
fn path_indices(radices: &[usize], idx: usize) -> Vec<usize> {
    let mut rem = idx;
    radices
        .iter()
        .map(|&r| {
            let i = rem % r;
            rem /= r;
            i
        })
        .collect()
}

/// Whether a path combination is an execution of the barriers with a
/// thread count: each that some path reaches reached by at least its count
/// of threads, and that many of them chosen to synchronise.
enum Quorums {
    Met,
    /// Fewer threads reach a barrier than it waits for: none passes.
    Blocked,
    /// Enough threads reach it, but fewer are chosen to synchronise: the
    /// choice is another combination's.
    NotChosen,
}

fn quorums_met(prog: &Program, paths: &[&Path]) -> Quorums {
    let mut out = Quorums::Met;
    for q in &prog.quorums {
        let count = |of: &[usize]| paths.iter().flat_map(|p| &p.events).filter(|e| of.contains(&e.template)).count();
        let reached = count(&q.all);
        if reached == 0 {
            continue; // no thread reaches it on these paths: nothing waits there
        }
        if reached < q.q {
            return Quorums::Blocked;
        }
        if count(&q.sync) < q.q {
            out = Quorums::NotChosen;
        }
    }
    out
}

/// Drop the paths with a read of a value that no write of any remaining
/// path (nor the initial value) gives its location, to a fixpoint: every
/// combination holding such a path has no rf for that read, so it has no
/// candidate. With thin-air guessing most guessed values are of this kind,
/// and they would otherwise multiply the combinations. The reference
/// enumerator keeps every path (property tests compare the two).
fn drop_unjustified_paths(prog: &Program, per_thread: &mut [Vec<Path>], computed: &[bool]) {
    use crate::program::Kind;
    loop {
        let mut written: Vec<std::collections::BTreeSet<i64>> =
            prog.locations.iter().map(|l| std::collections::BTreeSet::from([l.init])).collect();
        for paths in per_thread.iter() {
            for p in paths {
                for e in &p.events {
                    if e.kind == Kind::W {
                        written[e.loc.unwrap()].insert(e.value);
                    }
                }
            }
        }
        let before: usize = per_thread.iter().map(Vec::len).sum();
        for paths in per_thread.iter_mut() {
            paths.retain(|p| {
                p.events.iter().all(|e| {
                    // (a computed location's writes have no value before rf: any read of it may be justified)
                    if e.kind != Kind::R || e.any_value || computed[e.loc.unwrap()] {
                        return true;
                    }
                    let w = &written[e.loc.unwrap()];
                    e.alts.as_ref().map_or(w.contains(&e.value), |a| a.iter().any(|v| w.contains(v)))
                })
            });
        }
        if per_thread.iter().map(Vec::len).sum::<usize>() == before {
            return;
        }
    }
}

/// (location, value) pairs, sorted: what a path's reads need, what its writes give.
type Pairs = Vec<(usize, i64)>;

/// The values each path reads and writes, for the cheap test of a
/// combination (`justified`) before its event structure is built.
struct Justify {
    /// Per thread, per path: the (location, value) pairs its reads need a
    /// write of (an any-value read needs none, the initial value needs
    /// none) and those its writes give, each sorted.
    paths: Vec<Vec<(Pairs, Pairs)>>,
    /// The same as bit sets over the pairs that occur, where at most 128
    /// do (a fast path; `paths` is the reference it must agree with).
    masks: Option<Vec<Vec<(u128, u128)>>>,
}

impl Justify {
    fn new(prog: &Program, per_thread: &[Vec<Path>], computed: &[bool]) -> Justify {
        use crate::program::Kind;
        let of = |p: &Path| {
            let (mut needs, mut gives) = (Vec::new(), Vec::new());
            for e in &p.events {
                let Some(l) = e.loc else { continue };
                if computed[l] {
                    continue; // its writes' values are the candidate's (not tested here)
                }
                match e.kind {
                    // (a mapped load's read needs one of several values: not tested here)
                    Kind::R if !e.any_value && e.alts.is_none() && e.value != prog.locations[l].init => {
                        needs.push((l, e.value))
                    }
                    Kind::W => gives.push((l, e.value)),
                    _ => {}
                }
            }
            for v in [&mut needs, &mut gives] {
                v.sort_unstable();
                v.dedup();
            }
            (needs, gives)
        };
        let paths: Vec<Vec<_>> = per_thread.iter().map(|ps| ps.iter().map(of).collect()).collect();
        let pairs: BTreeSet<(usize, i64)> =
            paths.iter().flatten().flat_map(|(n, g)| n.iter().chain(g.iter()).copied()).collect();
        let masks = (pairs.len() <= 128).then(|| {
            let index: BTreeMap<(usize, i64), usize> = pairs.iter().enumerate().map(|(i, &p)| (p, i)).collect();
            let mask = |v: &[(usize, i64)]| v.iter().fold(0u128, |m, p| m | 1u128 << index[p]);
            paths.iter().map(|ps| ps.iter().map(|(n, g)| (mask(n), mask(g))).collect()).collect()
        });
        Justify { paths, masks }
    }

    /// Does every read of the combination (`which`: a path index per
    /// thread) read a value that one of its paths writes there, or the
    /// initial value? Where one does not, no rf exists: no candidate.
    fn justified(&self, which: &[usize]) -> bool {
        if let Some(masks) = &self.masks {
            let (needs, gives) =
                which.iter().enumerate().fold((0u128, 0u128), |(n, g), (t, &i)| (n | masks[t][i].0, g | masks[t][i].1));
            return needs & !gives == 0;
        }
        let chosen: Vec<_> = which.iter().enumerate().map(|(t, &i)| &self.paths[t][i]).collect();
        chosen.iter().all(|(needs, _)| needs.iter().all(|n| chosen.iter().any(|(_, g)| g.binary_search(n).is_ok())))
    }
}

/// What one combination leaves to the next of its block: its event
/// structure and the evaluator's buffers, whose static values the next
/// one keeps when its event structure has the same shape (combinations
/// that differ only in the values their reads read).
#[derive(Default)]
struct Carry {
    es: Option<EventStructure>,
    state: Option<super::model::EvalState>,
    /// Whether the monotone checks hold with no rf and no co (a function of
    /// the shape alone), once known.
    empty_ok: Option<bool>,
}

/// All candidates of one combination of thread paths.
fn combination(sh: &Shared, paths: &[&Path], carry: &mut Carry) -> Result<Partial, Error> {
    if sh.budget.check() {
        return Ok(Partial::default());
    }
    let es = EventStructure::build(sh.prog, paths)?;
    // The reference evaluates everything anew for each combination.
    let same = !sh.limits.reference && carry.es.as_ref().is_some_and(|p| p.same_shape(&es));
    let state = if sh.limits.reference { None } else { carry.state.take() };
    let mut ev = Evaluator::with_state(sh.model, &es, state, same);
    if !same {
        carry.empty_ok = None;
    }
    let out = candidates(sh, paths, &es, &mut ev, &mut carry.empty_ok);
    carry.state = Some(ev.into_state());
    carry.es = Some(es);
    out
}

/// The candidates of one combination, its event structure `es` built.
fn candidates<'b>(
    sh: &Shared,
    paths: &[&Path],
    es: &'b EventStructure,
    ev: &mut Evaluator<'b>,
    empty_ok: &mut Option<bool>,
) -> Result<Partial, Error> {
    let mut part = Partial::default();
    let orders = sh.model.ir.orders.iter().map(|o| (o.name.clone(), Relation::empty(es.n))).collect();
    let empty = Dynamic { rf: Relation::empty(es.n), co: Relation::empty(es.n), orders };
    // Every candidate orders the init write of a location before its other
    // writes: start from that part of co, so that fr from reads of init
    // values is there for pruning from the first rf choice on.
    let mut start = empty.clone();
    for ws in &es.writes_of {
        for &w in &ws[1..] {
            start.co.add(ws[0], w);
        }
    }
    // Static checks (no rf/co) that fail rule out the whole combination;
    // their verdict is the previous combination's when the shapes agree.
    if !sh.limits.reference {
        let ok = match *empty_ok {
            Some(ok) => ok,
            None => {
                let ok = sh.model.prunable.iter().all(|&ci| ev.check(ci, &empty).is_ok());
                *empty_ok = Some(ok);
                ok
            }
        };
        if !ok {
            part.pruned += 1;
            sh.spend(1);
            return Ok(part);
        }
    }
    // rf candidates per read: writes of the same location and value.
    let reads: Vec<usize> = bits(es.reads).collect();
    let mut rf_choices: Vec<Vec<usize>> = Vec::with_capacity(reads.len());
    for &r in &reads {
        let e = &es.events[r];
        let l = e.loc.unwrap();
        let ws: Vec<usize> = if es.any_value >> r & 1 == 1 {
            // Nothing uses its value: any write of the location.
            es.writes_of[l].clone()
        } else if es.is_computed(l) {
            // A computed write's value is known once its read's rf is (checked then)
            (es.writes_of[l].iter().copied())
                .filter(|w| es.computed.contains_key(w) || es.may_read_value(r, *w))
                .collect()
        } else if sh.private[l] {
            // The last write before r (writes_of is in event order), or init.
            let last = es.writes_of[l].iter().copied().rfind(|&w| w < r).unwrap_or(es.writes_of[l][0]);
            Some(last).filter(|&w| es.may_read_value(r, w)).into_iter().collect()
        } else {
            es.writes_of[l].iter().copied().filter(|&w| es.may_read_value(r, w)).collect()
        };
        if ws.is_empty() {
            // Ruled out: no write of the value this path reads. Counted
            // against max_candidates, as the work it is.
            sh.spend(1);
            return Ok(part);
        }
        rf_choices.push(ws);
    }
    let regs: Vec<Vec<i64>> = paths.iter().map(|p| p.regs.clone()).collect();
    // per observed value: the any-value read whose write gives it, if any
    let mut firsts = Vec::with_capacity(paths.len());
    let mut first = es.writes_of.len(); // a thread's events follow the init writes and the threads before
    for p in paths {
        firsts.push(first);
        first += p.events.len();
    }
    let observed_reads: Vec<Option<usize>> = (sh.prog.observed.iter())
        .map(|o| match o {
            Observed::Reg { thread, reg } => {
                paths[*thread].read_regs.iter().find(|x| x.0 == *reg).map(|&(_, i)| firsts[*thread] + i)
            }
            Observed::Loc { .. } => None,
        })
        .collect();
    // A filter that reads registers alone holds or fails for the whole
    // combination: its paths fix every register but those an any-value
    // read loads (`observed_reads`).
    if let (Some(f), Some(vars)) = (&sh.prog.filter, &sh.filter_regs) {
        if !sh.limits.reference && vars.iter().all(|&v| observed_reads[v].is_none()) {
            let values: Vec<i64> = (sh.prog.observed.iter())
                .map(|o| match o {
                    Observed::Reg { thread, reg } => regs[*thread][*reg],
                    Observed::Loc { .. } => 0, // not read
                })
                .collect();
            if !f.eval(&values) {
                part.pruned += 1;
                sh.spend(1);
                return Ok(part);
            }
        }
    }
    // reads that may read a computed write: chosen once co has given it its value
    let dynamic: Vec<bool> = rf_choices.iter().map(|ws| ws.iter().any(|w| es.computed.contains_key(w))).collect();
    let steps = search_order(es, &rf_choices, &dynamic);
    // The pairs of writes co must order one way or the other (`Compiled::co_total`), both ways
    // (none for the reference, nor where co is total anyway or no check asks it)
    let pruned_co = !sh.limits.reference && sh.prog.partial_co && !sh.model.co_total.is_empty();
    let mut must = vec![0 as EventSet; if pruned_co { es.n } else { 0 }];
    if !must.is_empty() {
        for &node in &sh.model.co_total {
            for (a, &row) in ev.rel(node, &empty).iter().enumerate() {
                must[a] |= row;
                for b in bits(row) {
                    must[b] |= (1 as EventSet) << a;
                }
            }
        }
    }
    // The read of an RMW whose rf is not forced: chosen as soon as co places
    // its write (`co_place`), where the write placed before it is known.
    let mut rmw_read = vec![None; es.n];
    let mut rf_in_co = vec![false; reads.len()];
    for (r, w) in es.rmw.pairs() {
        if let Ok(k) = reads.binary_search(&r) {
            // (a computed write's read: chosen before its location's co, `sources`)
            if es.computed.contains_key(&w) {
                rf_in_co[k] = true;
            } else if rf_choices[k].len() > 1 {
                rmw_read[w] = Some(k);
                rf_in_co[k] = true;
            }
        }
    }
    let mut st = Search {
        sh,
        es,
        ev,
        reads,
        rf_choices,
        co_chosen_at: steps.iter().rposition(|s| matches!(s, Step::Co(_))).map_or(0, |p| p + 1),
        order: steps,
        // the evaluator's cache holds what the static checks computed on no rf or co
        changed: READS_RF | READS_CO | READS_ORDERS,
        part,
        dynm: start,
        regs,
        observed_reads,
        fault: paths.iter().enumerate().find_map(|(t, p)| p.fault.clone().map(|(pc, why)| (t, pc, why))),
        steps: 0,
        unspent: 0,
        last_write: vec![None; es.writes_of.len()],
        rmw_read,
        rf_in_co,
        value: if es.computed.is_empty() { Vec::new() } else { es.events.iter().map(|e| e.value).collect() },
        must,
        unknown: es.computed.keys().fold(0, |s, &w| s | (1 as EventSet) << w),
        sweep: None,
    };
    st.step(0)?;
    if st.unspent > 0 {
        sh.spend(st.unspent);
    }
    Ok(st.part)
}

/// One choice of the search: the rf of read `reads[k]`, or the co of a
/// location's writes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Step {
    Rf(usize),
    Co(usize),
}

/// The order of the choices: reads with one possible write first (no
/// branching, and their rf gives pruning something to work on), then, a
/// location at a time, its co and the reads of it with several possible
/// writes (or a computed one, `dynamic`: its value is known once its co is
/// chosen), each checked against that co (a few writes have far fewer
/// orders than many reads have rf choices, and a read's coherence with co
/// fails as soon as its rf is chosen). The locations go in the order of
/// their first read in any thread (those no thread reads last), so that
/// what threads read first (the waits on a barrier or a flag, before the
/// data they guard) is chosen first. Any
/// order finds the same consistent executions: pruning only drops partial
/// choices that a monotone check rejects, whatever was chosen before them
/// (how many inconsistent candidates reach the final judgement may differ).
fn search_order(es: &EventStructure, rf_choices: &[Vec<usize>], dynamic: &[bool]) -> Vec<Step> {
    let forced = |k: &usize| rf_choices[*k].len() == 1 && !dynamic[*k];
    // (all of a read's choices are writes of its location)
    let loc = |k: usize| rf_choices[k].first().and_then(|&w| es.events[w].loc);
    let branching = |l: usize| (0..rf_choices.len()).filter(move |k| !forced(k) && loc(*k) == Some(l)).map(Step::Rf);
    // each event's place in its thread, and each location's first read
    let mut first = vec![usize::MAX; es.writes_of.len()];
    let mut start = 0;
    for e in &es.events {
        if e.id == 0 || es.events[e.id - 1].thread != e.thread {
            start = e.id;
        }
        if let (Some(l), Some(_), "R") = (e.loc, e.thread, e.kind) {
            first[l] = first[l].min(e.id - start);
        }
    }
    let mut locs: Vec<usize> = (0..es.writes_of.len()).collect();
    locs.sort_by_key(|&l| first[l]);
    let co = locs.into_iter().flat_map(|l| std::iter::once(Step::Co(l)).chain(branching(l)));
    (0..rf_choices.len()).filter(forced).map(Step::Rf).chain(co).collect()
}

struct Search<'a, 'b, 'c> {
    sh: &'a Shared<'a>,
    es: &'b EventStructure,
    ev: &'c mut Evaluator<'b>,
    reads: Vec<usize>,
    rf_choices: Vec<Vec<usize>>,
    /// The order in which rf and co are chosen (`search_order`).
    order: Vec<Step>,
    /// The first step of `order` after its last co step: from there on,
    /// co is complete (`Compiled::prunable_once_co` prune too).
    co_chosen_at: usize,
    /// What of rf, co and the orders changed since the evaluator's cache
    /// was last brought up to date (`refresh`).
    changed: u8,
    part: Partial,
    dynm: Dynamic,
    regs: Vec<Vec<i64>>,
    /// Per observed value: the any-value read whose write gives it (a
    /// register such a read wrote last), not `regs`'s value.
    observed_reads: Vec<Option<usize>>,
    /// A path's access out of bounds (`Path::fault`): thread, instruction, why.
    fault: Option<(usize, usize, String)>,
    /// Partial choices tried: the budget is asked every `CHECK_EVERY`.
    steps: u64,
    /// Pruned partial candidates not yet counted against max_candidates.
    unspent: u64,
    /// Under a partial co (`Program::partial_co`): per location, the write
    /// whose value it ends with.
    last_write: Vec<Option<usize>>,
    /// Per write of an RMW: its read (an index into `reads`), where the
    /// read's rf is chosen when co places the write, not at its own step.
    rmw_read: Vec<Option<usize>>,
    /// Per read: its rf is chosen in co_place (`rmw_read`).
    rf_in_co: Vec<bool>,
    /// Per event, where there are computed writes (`EventStructure::
    /// computed`; else empty): the value it writes, a computed write's as
    /// its read's rf gives it, where not in `unknown` (`value_of`).
    value: Vec<i64>,
    /// The computed writes whose value is not known yet.
    unknown: EventSet,
    /// Per write: the writes co must order with it (`Compiled::co_total`;
    /// none for the reference).
    must: Vec<EventSet>,
    /// While the witness orders are swept for the flags that read them
    /// (`sweep_orders`): what the sweep still looks for, and what it found.
    sweep: Option<Sweep>,
}

/// A sweep of the witness orders of one execution (rf and co fixed) for the
/// flag checks that read them (`Compiled::order_flags`).
struct Sweep {
    /// The flag checks not raised yet.
    wanted: Vec<usize>,
    /// The flags raised under the execution's first order, that read none:
    /// (kind, check, events), part of each execution the sweep shows.
    fixed: Vec<(String, String, Vec<usize>)>,
    /// Those raised under another order: the check, its events, and the
    /// execution with that order (where a witness is wanted).
    found: Vec<(usize, Vec<usize>, Option<ExecutionOut>)>,
}

const SPEND_BATCH: u64 = 256;

const CHECK_EVERY: u64 = 4096;

impl<'a, 'b, 'c> Search<'a, 'b, 'c> {
    /// Forget the cached values that read what changed since the last
    /// evaluation (`changed`), before evaluating again.
    fn refresh(&mut self) {
        self.ev.forget(std::mem::take(&mut self.changed));
    }

    /// With debug assertions (the Rust tests): the cached evaluation of
    /// check `ci` agrees with an evaluation from scratch.
    fn debug_assert_fresh(&self, ci: usize, fails: bool) {
        if cfg!(debug_assertions) {
            let mut fresh = Evaluator::new(self.sh.model, self.es);
            assert_eq!(fresh.check(ci, &self.dynm).is_err(), fails, "stale cached value for check {ci}");
        }
    }

    /// Do the prunable axioms hold on the current partial rf/co? With
    /// `co_chosen` (all of co is chosen), those monotone in rf alone too.
    fn partial_ok(&mut self, co_chosen: bool) -> bool {
        self.steps += 1;
        if self.steps.is_multiple_of(CHECK_EVERY) && self.sh.budget.check() {
            return false;
        }
        if self.sh.limits.reference {
            return true;
        }
        self.refresh();
        let model = self.sh.model;
        let once_co = if co_chosen { &model.prunable_once_co[..] } else { &[] };
        for &ci in model.prunable.iter().chain(once_co) {
            let fails = self.ev.check(ci, &self.dynm).is_err();
            self.debug_assert_fresh(ci, fails);
            if fails {
                self.part.pruned += 1;
                // counted against max_candidates in batches: one shared
                // atomic add per pruned partial would be contended
                self.unspent += 1;
                if self.unspent == SPEND_BATCH {
                    self.sh.spend(std::mem::take(&mut self.unspent));
                }
                return false;
            }
        }
        true
    }

    /// Make choice `i` of the search order, then the ones after it.
    fn step(&mut self, i: usize) -> Result<(), Error> {
        if self.sh.budget.stopped() {
            return Ok(());
        }
        let Some(&step) = self.order.get(i) else {
            return self.order_step(0).map(|_| ());
        };
        match step {
            Step::Rf(k) if self.rf_in_co[k] => self.step(i + 1), // chosen in co_place
            Step::Rf(k) => {
                let r = self.reads[k];
                // A run of forced reads (one write each) is checked once, after
                // its last read: with no choice among them, an earlier check
                // would prune nothing more (the checks are monotone in rf).
                let forced = |k: usize| self.rf_choices[k].len() == 1;
                let defer = forced(k) && matches!(self.order.get(i + 1), Some(&Step::Rf(k2)) if forced(k2));
                let co_chosen = i >= self.co_chosen_at;
                let any = self.es.any_value >> r & 1 == 1;
                for c in 0..self.rf_choices[k].len() {
                    let w = self.rf_choices[k][c];
                    if !any && self.es.computed.contains_key(&w) && !self.es.may_read(r, self.value[w]) {
                        continue; // co has given w its value (`resolve`): not one r reads
                    }
                    self.dynm.rf.add(w, r);
                    self.changed |= READS_RF;
                    if defer || self.partial_ok(co_chosen) {
                        self.step(i + 1)?;
                    }
                    self.dynm.rf.rows[w] &= !((1 as EventSet) << r);
                    self.changed |= READS_RF;
                }
                Ok(())
            }
            // a computed location's RMWs' reads first: its writes' values, then its co
            Step::Co(l) if self.es.is_computed(l) => self.sources(i, l, 0),
            Step::Co(l) => self.place_co(i, l),
        }
    }

    /// The value write `w` writes (a computed one's as its read's rf gave it).
    fn value_of(&self, w: usize) -> i64 {
        self.value.get(w).copied().unwrap_or(self.es.events[w].value)
    }

    /// The write read `r` reads, where its rf is chosen.
    fn rf_source(&self, r: usize) -> Option<usize> {
        let l = self.es.events[r].loc?;
        self.es.writes_of[l].iter().copied().find(|&w| self.dynm.rf.contains(w, r))
    }

    /// The co of location `l`'s writes (step `i`), then the steps after it.
    fn place_co(&mut self, i: usize, l: usize) -> Result<(), Error> {
        // The init write is already co-before the others (see `combination`).
        let es = self.es;
        let mut placed = Vec::new();
        if self.sh.prog.partial_co {
            self.co_place_partial(i, l, &es.writes_of[l][1..], &mut placed)
        } else {
            self.co_place(i, &es.writes_of[l][1..], &mut placed)
        }
    }

    /// The rf of the read of computed location `l`'s `j`th write's RMW (and
    /// of the later ones'; step `i`), before its co: each choice gives the
    /// writes whose read's write has a known value theirs (`propagate`; the
    /// others wait for `resolve`), and is checked.
    fn sources(&mut self, i: usize, l: usize, j: usize) -> Result<(), Error> {
        let es = self.es;
        let Some(&w) = es.writes_of[l].get(j + 1) else { return self.resolve(i, l, 0) };
        let r = w - 1; // the RMW's read, the event before its write
        let k = self.reads.binary_search(&r).map_err(|_| Error::invalid("a computed write with no read before it"))?;
        for c in 0..self.rf_choices[k].len() {
            if self.sh.budget.stopped() {
                return Ok(());
            }
            let x = self.rf_choices[k][c];
            self.dynm.rf.add(x, r);
            self.changed |= READS_RF;
            if let Some(given) = self.propagate(l)? {
                if self.partial_ok(false) {
                    self.sources(i, l, j + 1)?;
                }
                self.unknown |= given;
            }
            self.dynm.rf.rows[x] &= !((1 as EventSet) << r);
            self.changed |= READS_RF;
        }
        Ok(())
    }

    /// Give each computed write of location `l` not known yet whose read
    /// reads a write of known value its value, to a fixpoint: the writes
    /// given one (to forget after), or None (nothing given) where a read
    /// reads a value it may not.
    fn propagate(&mut self, l: usize) -> Result<Option<EventSet>, Error> {
        let es = self.es;
        let mut given: EventSet = 0;
        loop {
            let mut progress = false;
            for &w in &es.writes_of[l][1..] {
                if self.unknown >> w & 1 == 0 {
                    continue;
                }
                let Some(x) = self.rf_source(w - 1) else { continue };
                if self.unknown >> x & 1 == 1 {
                    continue;
                }
                if !es.may_read(w - 1, self.value[x]) {
                    self.unknown |= given;
                    return Ok(None);
                }
                self.value[w] = es.computed_value(self.sh.prog, w, self.value[x])?;
                self.unknown &= !((1 as EventSet) << w);
                given |= (1 as EventSet) << w;
                progress = true;
            }
            if !progress {
                return Ok(Some(given));
            }
        }
    }

    /// A partial `co` of one location's writes `rest` (step `i`): the writes
    /// are placed one at a time in an order T, each after a down-closed set
    /// of the writes placed before it (its co-predecessors), so that co is
    /// transitive and T extends it. The last write of T is the one whose
    /// value the location ends with; each pair (co, last write) is made
    /// once: T is the extension that places, before the last, the least
    /// event whose predecessors are all placed (`canonical_order`).
    fn co_place_partial(&mut self, i: usize, l: usize, rest: &[usize], placed: &mut Vec<usize>) -> Result<(), Error> {
        if self.sh.budget.stopped() {
            return Ok(());
        }
        if placed.len() == rest.len() {
            debug_assert!(self.canonical_order(placed), "the placement keeps only canonical orders");
            let saved = self.last_write[l];
            self.last_write[l] = placed.last().copied();
            let out = self.step(i + 1);
            self.last_write[l] = saved;
            return out;
        }
        let k = placed.len();
        if k >= 63 {
            // the predecessor sets below are the masks of a u64
            self.sh.budget.hit(
                "candidates",
                format!("more than 63 writes to one location in a partial coherence order ({})", rest.len()),
            );
            return Ok(());
        }
        for &w in rest {
            if placed.contains(&w) {
                continue;
            }
            // a write co must order with w, placed before it, is among its
            // predecessors (later writes are placed after both): the sets tried
            // are the supersets of those, in increasing order
            let required = (0..k)
                .filter(|&j| self.must.get(placed[j]).is_some_and(|m| m >> w & 1 == 1))
                .fold(0u64, |m, j| m | 1 << j);
            let free = ((1u64 << k) - 1) & !required;
            let mut extra = 0u64;
            loop {
                let mask = required | extra;
                // up to 2^k sets to try: the time limit is looked at as they go
                self.steps += 1;
                if self.sh.budget.stopped() || (self.steps.is_multiple_of(CHECK_EVERY) && self.sh.budget.check()) {
                    return Ok(());
                }
                // the predecessors: closed under co-predecessors among the placed
                let closed = (0..k)
                    .filter(|&j| mask >> j & 1 == 1)
                    .all(|j| (0..k).all(|q| !self.dynm.co.contains(placed[q], placed[j]) || mask >> q & 1 == 1));
                if closed {
                    self.place_after(i, l, rest, placed, w, mask)?;
                }
                match next_subset(extra, free) {
                    Some(next) => extra = next,
                    None => break,
                }
            }
        }
        Ok(())
    }

    /// Places `w` after the placed writes in `mask` (step `i`, location `l`)
    /// and goes on placing the rest of `rest`.
    #[inline]
    fn place_after(
        &mut self,
        i: usize,
        l: usize,
        rest: &[usize],
        placed: &mut Vec<usize>,
        w: usize,
        mask: u64,
    ) -> Result<(), Error> {
        let k = placed.len();
        // canonical orders only (`canonical_order`): a write that is not the
        // last comes before every greater one placed since its last predecessor
        let from = (0..k).rev().find(|&j| mask >> j & 1 == 1).map_or(0, |j| j + 1);
        if placed.len() + 1 < rest.len() && placed[from..].iter().any(|&q| q > w) {
            return Ok(());
        }
        for (j, &p) in placed.iter().enumerate() {
            if mask >> j & 1 == 1 {
                self.dynm.co.add(p, w);
            }
        }
        placed.push(w);
        self.changed |= READS_CO;
        let last = placed.len() == rest.len();
        self.after_placing(w, last, &mut |s: &mut Self| s.co_place_partial(i, l, rest, placed))?;
        placed.pop();
        // w's predecessors were set in the placed writes' rows alone
        for &p in placed.iter() {
            self.dynm.co.rows[p] &= !((1 as EventSet) << w);
        }
        self.changed |= READS_CO;
        Ok(())
    }

    /// Is `t` (all writes of a location but init, the last one the final
    /// write) the canonical order of its co: every write before the last is
    /// the least event, among those not yet placed, whose co-predecessors
    /// (the last write aside) are all placed?
    fn canonical_order(&self, t: &[usize]) -> bool {
        let n = t.len();
        let co = &self.dynm.co;
        for j in 0..n.saturating_sub(1) {
            // a lesser write placed later (the last aside) that was ready at j
            let earlier = t[j + 1..n - 1].iter().any(|&q| q < t[j] && !(j..n - 1).any(|x| co.contains(t[x], q)));
            if earlier {
                return false;
            }
        }
        true
    }

    /// Co has just placed write `w` (`last`: the location's last): go on
    /// (`next`) where the monotone checks hold. The write of an RMW first
    /// chooses its read's rf (`rmw_read`), each choice checked: the writes
    /// before it are placed, which is what the read's choice depends on.
    fn after_placing(
        &mut self,
        w: usize,
        last: bool,
        next: &mut dyn FnMut(&mut Self) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let Some(k) = self.rmw_read[w] else {
            return if last || self.partial_ok(false) { next(self) } else { Ok(()) };
        };
        let r = self.reads[k];
        for c in 0..self.rf_choices[k].len() {
            let x = self.rf_choices[k][c];
            self.dynm.rf.add(x, r);
            self.changed |= READS_RF;
            if self.partial_ok(false) {
                next(self)?;
            }
            self.dynm.rf.rows[x] &= !((1 as EventSet) << r);
            self.changed |= READS_RF;
        }
        Ok(())
    }

    /// Computed location `l`'s RMWs' reads all given their rf (step `i`),
    /// the values that follow from known ones given and checked
    /// (`propagate`): what is left unknown is on a cycle of RMWs reading
    /// each other (or after one): each value of the location in turn for
    /// one of them (`Shared::dom`, whose values the reads may read; those
    /// taken so far: `guessed`). Go on to its co where each guessed write
    /// is its function of what its read reads, a value the read may read.
    fn resolve(&mut self, i: usize, l: usize, guessed: EventSet) -> Result<(), Error> {
        let es = self.es;
        match es.writes_of[l][1..].iter().copied().find(|&w| self.unknown >> w & 1 == 1) {
            Some(w) => {
                let bit = (1 as EventSet) << w;
                let values: Vec<i64> = self.sh.dom[l].iter().copied().collect();
                for v in values {
                    self.value[w] = v;
                    self.unknown &= !bit;
                    if let Some(given) = self.propagate(l)? {
                        self.resolve(i, l, guessed | bit)?;
                        self.unknown |= given;
                    }
                    self.unknown |= bit;
                }
                Ok(())
            }
            None => {
                for w in bits(guessed) {
                    let x =
                        self.rf_source(w - 1).ok_or_else(|| Error::invalid("a computed write's read with no rf"))?;
                    let old = self.value[x];
                    if !es.may_read(w - 1, old) || self.value[w] != es.computed_value(self.sh.prog, w, old)? {
                        return Ok(());
                    }
                }
                self.place_co(i, l)
            }
        }
    }

    /// Order the writes `rest` of one location (step `i`), one placed at a
    /// time before every write not yet placed.
    fn co_place(&mut self, i: usize, rest: &[usize], placed: &mut Vec<usize>) -> Result<(), Error> {
        if self.sh.budget.stopped() {
            return Ok(());
        }
        if placed.len() == rest.len() {
            return self.step(i + 1);
        }
        for &w in rest {
            if placed.contains(&w) {
                continue;
            }
            // w is placed next: before every write not yet placed.
            let saved = self.dynm.co.rows[w];
            for &u in rest {
                if u != w && !placed.contains(&u) {
                    self.dynm.co.add(w, u);
                }
            }
            placed.push(w);
            self.changed |= READS_CO;
            let last = placed.len() == rest.len();
            self.after_placing(w, last, &mut |s: &mut Self| s.co_place(i, rest, placed))?;
            placed.pop();
            self.dynm.co.rows[w] = saved;
            self.changed |= READS_CO;
        }
        Ok(())
    }

    /// Enumerate the model's witness order `k` over its set, one element
    /// placed at a time (before every element not yet placed), pruning as
    /// for co. Orders only have to exist: the search stops at the first
    /// one with which the execution is consistent (returns true).
    fn order_step(&mut self, k: usize) -> Result<bool, Error> {
        if k == self.dynm.orders.len() {
            return self.complete();
        }
        let set_node = self.sh.model.ir.orders[k].set;
        let members: Vec<usize> = bits(self.ev.set(set_node, &self.dynm)).collect();
        let mut placed = Vec::new();
        let found = self.order_place(k, &members, &mut placed)?;
        self.dynm.orders[k].1 = Relation::empty(self.es.n);
        self.changed |= READS_ORDERS;
        Ok(found)
    }

    fn order_place(&mut self, k: usize, members: &[usize], placed: &mut Vec<usize>) -> Result<bool, Error> {
        if self.sh.budget.stopped() {
            return Ok(false);
        }
        if placed.len() == members.len() {
            return self.order_step(k + 1);
        }
        for &w in members {
            if placed.contains(&w) {
                continue;
            }
            let saved = self.dynm.orders[k].1.rows[w];
            for &u in members {
                if u != w && !placed.contains(&u) {
                    self.dynm.orders[k].1.add(w, u);
                }
            }
            placed.push(w);
            self.changed |= READS_ORDERS;
            let found = if placed.len() == members.len() || self.partial_ok(true) {
                self.order_place(k, members, placed)?
            } else {
                false
            };
            placed.pop();
            self.dynm.orders[k].1.rows[w] = saved;
            self.changed |= READS_ORDERS;
            if found {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The flags that read a witness order are the execution's where some
    /// order it is consistent with raises them (an execution has its orders,
    /// as herd's has its `S`; the search keeps the first order it finds):
    /// those `raised` (under the first) lacks, raised under another order,
    /// each with its events and (witnesses wanted) the execution under it.
    /// A flag that only shrinks as the orders grow, and that the empty orders
    /// do not raise, no order raises.
    #[allow(clippy::type_complexity)]
    fn sweep_orders(
        &mut self,
        raised: &[(usize, Vec<usize>)],
    ) -> Result<Vec<(usize, Vec<usize>, Option<ExecutionOut>)>, Error> {
        let sh = self.sh;
        let model = sh.model;
        let mut wanted: Vec<(usize, bool)> =
            model.order_flags.iter().copied().filter(|(ci, _)| !raised.iter().any(|r| r.0 == *ci)).collect();
        // a single order of each set: the one found
        let several =
            (0..self.dynm.orders.len()).any(|k| bits(self.ev.set(model.ir.orders[k].set, &self.dynm)).nth(1).is_some());
        if wanted.is_empty() || !several {
            return Ok(Vec::new());
        }
        let saved = self.dynm.orders.clone();
        for o in self.dynm.orders.iter_mut() {
            o.1 = Relation::empty(self.es.n);
        }
        self.changed |= READS_ORDERS;
        self.refresh();
        let mut keep = Vec::new();
        for (ci, shrinks) in wanted.drain(..) {
            if !shrinks || self.ev.check(ci, &self.dynm).is_err() {
                keep.push(ci);
            }
        }
        let mut found = Vec::new();
        if !keep.is_empty() {
            let checks = &model.ir.checks;
            let fixed = raised
                .iter()
                .map(|(ci, evs)| (checks[*ci].flag.clone().unwrap_or_default(), checks[*ci].name.clone(), evs.clone()))
                .collect();
            self.sweep = Some(Sweep { wanted: keep, fixed, found: Vec::new() });
            let swept = self.order_step(0);
            found = self.sweep.take().map(|s| s.found).unwrap_or_default();
            swept?;
        }
        self.dynm.orders = saved;
        self.changed |= READS_ORDERS;
        self.refresh();
        Ok(found)
    }

    /// A leaf of `sweep_orders`: under these orders, is the execution
    /// consistent, and which of the wanted flags does it raise? True once
    /// none is left to look for.
    fn sweep_leaf(&mut self) -> Result<bool, Error> {
        let sh = self.sh;
        if !sh.spend(1) {
            return Ok(false);
        }
        self.part.candidates += 1; // (judged, and counted against max_candidates, as any candidate)
        self.refresh();
        let checks = &sh.model.ir.checks[..sh.model.judged];
        for (ci, c) in checks.iter().enumerate() {
            if c.flag.is_none() && self.ev.check(ci, &self.dynm).is_err() {
                return Ok(false);
            }
        }
        let Some(mut sweep) = self.sweep.take() else {
            return Ok(true);
        };
        let mut now = Vec::new();
        sweep.wanted.retain(|&ci| match self.ev.check(ci, &self.dynm) {
            Err(evs) => {
                now.push((ci, evs));
                false
            }
            Ok(_) => true,
        });
        if !now.is_empty() {
            let named = |ci: usize, evs: &Vec<usize>| {
                (checks[ci].flag.clone().unwrap_or_default(), checks[ci].name.clone(), evs.clone())
            };
            let shown = sh.limits.witnesses
                && now.iter().any(|(ci, _)| !self.part.flags.iter().any(|f| f.check == checks[*ci].name));
            let exec = if shown {
                let mut e = self.execution_out();
                e.raised = sweep.fixed.iter().cloned().chain(now.iter().map(|(ci, evs)| named(*ci, evs))).collect();
                e.outcome = self.outcome();
                Some(e)
            } else {
                None
            };
            for (ci, evs) in now {
                sweep.found.push((ci, evs, exec.clone()));
            }
        }
        let done = sweep.wanted.is_empty();
        self.sweep = Some(sweep);
        Ok(done)
    }

    /// Judge a complete candidate; true if it is consistent.
    fn complete(&mut self) -> Result<bool, Error> {
        let sh = self.sh;
        if self.sweep.is_some() {
            return self.sweep_leaf();
        }
        if !sh.spend(1) {
            return Ok(false);
        }
        self.part.candidates += 1;
        self.steps += 1;
        if self.steps.is_multiple_of(256) && sh.budget.check() {
            return Ok(false);
        }
        self.refresh();
        let checks = &sh.model.ir.checks[..sh.model.judged];
        for (ci, c) in checks.iter().enumerate() {
            if c.flag.is_none() {
                let fails = self.ev.check(ci, &self.dynm).is_err();
                self.debug_assert_fresh(ci, fails);
                if fails {
                    return Ok(false);
                }
            }
        }
        let values = self.outcome();
        if let Some(f) = &sh.prog.filter {
            if !f.eval(&values) {
                return Ok(false);
            }
        }
        self.part.consistent += 1;
        if let Some((thread, pc, detail)) = &self.fault {
            // a consistent execution reaches an access out of bounds: no verdict
            return Err(Error::Fault { thread: *thread, pc: *pc, detail: detail.clone() });
        }
        // The flag checks this execution fails, with their witness events.
        let mut raised: Vec<(usize, Vec<usize>)> = Vec::new();
        for (ci, c) in checks.iter().enumerate() {
            if c.flag.is_some() {
                let got = self.ev.check(ci, &self.dynm);
                self.debug_assert_fresh(ci, got.is_err());
                if let Err(evs) = got {
                    raised.push((ci, evs));
                }
            }
        }
        let named = |ci: usize| (checks[ci].flag.clone().unwrap_or_default(), checks[ci].name.clone());
        // the flags that read a witness order and are raised under another order only, each
        // with its own execution
        let swept = self.sweep_orders(&raised)?;
        let own = raised.len();
        raised.extend(swept.iter().map(|(ci, evs, _)| (*ci, evs.clone())));
        let mut swept_exec: Vec<Option<ExecutionOut>> = swept.into_iter().map(|(_, _, e)| e).collect();
        let flagged = !raised.is_empty();
        let new_flags: Vec<usize> = (0..raised.len())
            .filter(|&k| !self.part.flags.iter().any(|f| f.check == checks[raised[k].0].name))
            .collect();
        let pos = sh.prog.condition.eval(&values);
        if pos {
            self.part.positive += 1;
        } else {
            self.part.negative += 1;
        }
        if flagged {
            self.part.flagged += 1;
        }
        let keep = sh.limits.keep_all
            && !sh.kept_full.load(Ordering::Relaxed)
            && (self.part.executions.len() as u64) < sh.limits.max_kept.unwrap_or(u64::MAX);
        let need_exec =
            (sh.limits.witnesses && (!new_flags.is_empty() || !self.part.outcomes.contains_key(&values))) || keep;
        let exec = if need_exec {
            let mut e = self.execution_out();
            e.raised = raised
                .iter()
                .map(|(ci, evs)| {
                    let (kind, check) = named(*ci);
                    (kind, check, evs.clone())
                })
                .collect();
            e.outcome = values.clone();
            Some(e)
        } else {
            None
        };
        for k in new_flags {
            let (kind, check) = named(raised[k].0);
            let execution = if k < own { exec.clone() } else { swept_exec[k - own].take() };
            self.part.flags.push(FlagOut { kind, check, events: raised[k].1.clone(), execution });
        }
        if keep {
            self.part.executions.push(exec.clone().unwrap());
        }
        match self.part.outcomes.get_mut(&values) {
            Some(e) => {
                e.0 += 1;
                e.2 += flagged as u64;
            }
            None => {
                self.part.order.push(values.clone());
                self.part.outcomes.insert(values, (1, pos, flagged as u64, exec));
            }
        }
        if sh.limits.decide && pos == sh.prog.deciding_value {
            sh.budget.hit("decided", "stopped at the first execution that settles the condition (decide)".into());
        }
        Ok(true)
    }

    fn outcome(&self) -> Vec<i64> {
        let es = self.es;
        let co = &self.dynm.co;
        self.sh
            .prog
            .observed
            .iter()
            .zip(&self.observed_reads)
            .map(|(o, read)| match (o, read) {
                (_, Some(r)) => self.value_of(self.rf_source(*r).expect("every read has its rf chosen")),
                (Observed::Loc { loc }, None) if self.last_write[*loc].is_some() => {
                    self.value_of(self.last_write[*loc].unwrap())
                }
                (Observed::Loc { loc }, None) => {
                    // The value of the co-last write of the location.
                    let ws = &es.writes_of[*loc];
                    let last = ws.iter().copied().find(|&w| ws.iter().all(|&u| u == w || !co.contains(w, u)));
                    self.value_of(last.unwrap_or(ws[0]))
                }
                (Observed::Reg { thread, reg }, None) => self.regs[*thread][*reg],
            })
            .collect()
    }

    fn execution_out(&mut self) -> ExecutionOut {
        let es = self.es;
        let mut co = Vec::new();
        for ws in &es.writes_of {
            if self.sh.prog.partial_co {
                // A partial co: its immediate pairs.
                let c = &self.dynm.co;
                for &a in ws {
                    for &b in ws {
                        if c.contains(a, b) && !ws.iter().any(|&m| c.contains(a, m) && c.contains(m, b)) {
                            co.push((a, b));
                        }
                    }
                }
                continue;
            }
            // Sort the writes of the location by their number of co-predecessors.
            let mut order: Vec<(usize, usize)> =
                ws.iter().map(|&w| (ws.iter().filter(|&&u| self.dynm.co.contains(u, w)).count(), w)).collect();
            order.sort();
            for pair in order.windows(2) {
                co.push((pair[0].1, pair[1].1));
            }
        }
        let mut po = Vec::new();
        for (a, b) in es.po.pairs() {
            // Immediate program-order successors only.
            if !bits(es.po.rows[a]).any(|c| es.po.contains(c, b)) {
                po.push((a, b));
            }
        }
        // Each witness order (a total order of its set while a candidate is
        // judged): its events by their number of predecessors.
        let mut orders = Vec::new();
        for k in 0..self.dynm.orders.len() {
            let set_node = self.sh.model.ir.orders[k].set;
            let mut evs: Vec<usize> = bits(self.ev.set(set_node, &self.dynm)).collect();
            let rel = &self.dynm.orders[k].1;
            evs.sort_by_key(|&e| (0..es.n).filter(|&u| rel.contains(u, e)).count());
            orders.push((self.dynm.orders[k].0.clone(), evs));
        }
        let dynm = self.dynm.clone();
        let shown = self.ev.shown(&dynm);
        // A read that may read any write, or any of several values, shows the value it read.
        // A computed write shows the value its read's rf gave it.
        let mut events = es.events.clone();
        for (e, v) in events.iter_mut().zip(&self.value) {
            e.value = *v;
        }
        let computed_reads = es.computed.keys().map(|&w| w - 1);
        for r in bits(es.any_value).chain(es.alts.keys().copied()).chain(computed_reads) {
            if let Some(w) = self.rf_source(r) {
                events[r].value = self.value_of(w);
            }
        }
        ExecutionOut {
            events,
            rf: self.dynm.rf.pairs(),
            co,
            po,
            rmw: es.rmw.pairs(),
            shown,
            raised: Vec::new(),
            outcome: Vec::new(),
            data: es.data.pairs(),
            ctrl: es.ctrl.pairs(),
            addr: es.addr.pairs(),
            orders,
        }
    }
}

/// The subset of `free` after `extra` in increasing order, `None` after the
/// last (`free` itself).
pub(crate) fn next_subset(extra: u64, free: u64) -> Option<u64> {
    let next = (extra | !free).wrapping_add(1) & free;
    (next != 0).then_some(next)
}

#[cfg(test)]
#[path = "enumerate/tests.rs"]
mod tests;
