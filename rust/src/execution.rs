//! Events, per-thread control paths, and one candidate execution
//!.

use super::relation::{bits, EventSet, Relation};
use crate::error::Error;
use crate::limits::{Budget, Limits};
use crate::model_ir::RmwChainOrder;
use crate::program::{reach, At, Instr, Kind, LoadUse, Program, RmwOp};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// An event of a thread path, before it is placed in an execution.
#[derive(Clone, Debug)]
pub struct PathEvent {
    pub kind: Kind,
    pub loc: Option<usize>,
    pub value: i64,
    pub template: usize,
    pub pc: usize,
    /// This write is the write half of an RMW whose read is the previous event.
    pub rmw_with_prev: bool,
    /// Earlier events of the path (bit = index in the path) this one
    /// depends on: its value (data) and whether it happens at all (ctrl).
    pub data: EventSet,
    pub ctrl: EventSet,
    /// The reads its computed address depends on (addr).
    pub addr: EventSet,
    /// A read whose value nothing uses (`Program::value_free_loads`): it
    /// may read any write of its location, and `value` means nothing.
    pub any_value: bool,
    /// A mapped load's read (`LoadUse::Mapped`): the values, sorted, whose
    /// image its register gets; it reads a write of any of them (`value` is
    /// the first). None: it reads `value` alone.
    pub alts: Option<std::sync::Arc<[i64]>>,
    /// The write of an RMW of a computed location (`thread_paths`'s
    /// `computed`): the registers its operand reads (as they are at it);
    /// its value is the RMW's function of the value its read reads, known
    /// once its rf is chosen (`enumerate`), and `value` means nothing.
    pub computed: Option<std::sync::Arc<[i64]>>,
}

impl PathEvent {
    /// An event of instruction `pc` (its template `template`) under the
    /// control dependencies `ctrl` and address dependencies `addr`: no data
    /// dependency, one value, not computed.
    fn of(kind: Kind, loc: usize, value: i64, template: usize, pc: usize, ctrl: EventSet, addr: EventSet) -> Self {
        PathEvent {
            kind,
            loc: Some(loc),
            value,
            template,
            pc,
            rmw_with_prev: false,
            data: 0,
            ctrl,
            addr,
            any_value: false,
            alts: None,
            computed: None,
        }
    }

    /// The write of an RMW whose read is the event before it, its value's data dependencies `data`.
    fn rmw_write(
        loc: usize,
        value: i64,
        template: usize,
        pc: usize,
        data: EventSet,
        ctrl: EventSet,
        addr: EventSet,
    ) -> Self {
        PathEvent { rmw_with_prev: true, data, ..PathEvent::of(Kind::W, loc, value, template, pc, ctrl, addr) }
    }
}

/// `vals` grouped by their image under `f` (the function a mapped read's
/// value goes through: an assignment after a load, a branch after an RMW),
/// the groups in the order of their images, each in `vals`' order.
fn by_image(vals: &[i64], f: impl Fn(i64) -> Result<i64, Error>) -> Result<Vec<Vec<i64>>, Error> {
    let mut by: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for &v in vals {
        by.entry(f(v)?).or_default().push(v);
    }
    Ok(by.into_values().collect())
}

/// One control path of a thread, given the values its reads returned.
#[derive(Clone, Debug)]
pub struct Path {
    pub events: Vec<PathEvent>,
    pub regs: Vec<i64>,
    /// Registers whose final value is that of a read whose value nothing
    /// uses (`any_value`): (register, the read's index in `events`). The
    /// outcome takes the value of the write the read reads, not `regs`'s.
    pub read_regs: Vec<(usize, usize)>,
    /// The path's first access whose computed address is outside the
    /// locations it may reach (C: undefined behaviour): its instruction and
    /// why. An execution made with it that the model finds consistent is an
    /// error, not an outcome (`enumerate::check`).
    pub fault: Option<(usize, String)>,
}

/// The value each location may hold: an over-approximation computed as a
/// fixpoint, so that every read of a candidate execution takes a value in it.
pub type Domains = Vec<BTreeSet<i64>>;

pub struct PathsOfThread {
    pub paths: Vec<Path>,
    /// Paths that reached the loop-unrolling bound (a `Cut`), dropped.
    pub cut: usize,
    /// The writes (location, value) those paths made before the bound, when
    /// asked for (`value_domains`: a longer unrolling makes them too, so
    /// they are values reads may see; a thread spinning on what it wrote
    /// itself leaves its loop on them).
    pub cut_writes: BTreeSet<(usize, i64)>,
}

/// The location an access at `loc` with computed address `at` reaches on
/// registers `regs` (and the reads it depends on), or why it reaches none.
fn resolve(
    prog: &Program,
    loc: usize,
    at: &Option<At>,
    regs: &[i64],
    taint: &[EventSet],
) -> Result<Result<(usize, EventSet), String>, Error> {
    let Some(a) = at else { return Ok(Ok((loc, 0))) };
    let off = a.off.eval(regs)?;
    if off >= 0 && (off as u64) < a.len as u64 {
        return Ok(Ok((loc + off as usize, a.off.deps(taint))));
    }
    if loc == 0 && a.len == prog.locations.len() && a.len > 1 {
        // through a pointer: any location may be named, none was
        return Ok(Err(format!(
            "dereferences a value that is no location's address (offset {off} from the first location): \
             an access there has no meaning"
        )));
    }
    let name = &prog.locations[loc].name;
    let base = name.strip_suffix("[0]").unwrap_or(name);
    let plural = if a.len == 1 { "" } else { "s" };
    Ok(Err(format!(
        "reaches {base} + {off}, outside {base} ({} location{plural}): an access out of bounds has no meaning",
        a.len
    )))
}

/// Every path of thread `t` when each read may return any value of its
/// location's domain, except a read of a location marked in `private`: it
/// returns the value of the path's last write to it, or the initial value
/// (for models whose axioms imply as much: `ModelIr::uniproc`), and a
/// load marked `LoadUse::Free` in `loads` (by instruction; nothing uses its
/// value): one path, whichever write it reads; one marked `Mapped`: a path
/// per image of the assignment after it. With `chained` (locations whose
/// only writes, init aside, are this thread's RMWs, under a model that
/// makes them atomic: `ModelIr::rmw_chains`): only the paths whose RMWs of
/// each form one chain from its initial value (`rmw_chain_holds`). An RMW
/// of a location marked in `computed` (`Program::computed_locations`): a
/// path per image of the branch on its value where it is mapped, one where
/// it is free, its read reading any write of a value with that image, its
/// write's value left to the candidate (`PathEvent::computed`). Errors when
/// more than `max_paths` paths exist, or when the budget (time, memory,
/// Ctrl-C) runs out.
#[allow(clippy::too_many_arguments)]
pub fn thread_paths(
    prog: &Program,
    t: usize,
    dom: &Domains,
    private: &[bool],
    loads: &[LoadUse],
    chained: &Chained,
    computed: &[bool],
    max_paths: usize,
    budget: &Budget,
    cut_writes: bool,
) -> Result<PathsOfThread, Error> {
    // The value a read of `loc` may return on a path whose events so far are `evs`.
    let values = |loc: usize, evs: &[PathEvent]| -> Vec<i64> {
        if private.get(loc).copied().unwrap_or(false) {
            let last = evs.iter().rev().find(|e| e.kind == Kind::W && e.loc == Some(loc));
            vec![last.map_or(prog.locations[loc].init, |e| e.value)]
        } else {
            dom[loc].iter().copied().collect()
        }
    };
    let th = &prog.threads[t];
    // The orders its RMWs of each chained location may take, where they are few and known
    // (`chain_plans`): an RMW reads only what some order still open on its path gives it.
    let plans: BTreeMap<usize, ChainPlans> = (chained.locs.iter())
        .filter_map(|&l| chain_plans(prog, t, l, chained.order.as_ref()).map(|p| (l, p)))
        .collect();
    let mut out = PathsOfThread { paths: Vec::new(), cut: 0, cut_writes: BTreeSet::new() };
    // Explicit DFS stack of (pc, regs, events, register taints, control
    // taint, the path's first access out of bounds).
    type State = (usize, Vec<i64>, Vec<PathEvent>, Vec<EventSet>, EventSet, Option<(usize, String)>);
    let mut stack: Vec<State> = vec![(0, vec![0; th.nregs], Vec::new(), vec![0; th.nregs], 0, None)];
    let bit = |i: usize| if i < super::relation::MAX_EVENTS { (1 as EventSet) << i } else { 0 };
    let mut steps: u64 = 0;
    while let Some((mut pc, mut regs, mut evs, mut taint, mut ctl, mut fault)) = stack.pop() {
        steps += 1;
        if steps.is_multiple_of(1024) && budget.check() {
            return Err(Error::limit(
                "paths",
                format!("stopped while listing the control paths of thread {}", th.name),
            ));
        }
        loop {
            if pc >= th.code.len() {
                // A register last written by an any-value read has exactly
                // that read in its taint (no instruction reads the register,
                // so its taint goes nowhere else); a path longer than the
                // taint's bits makes an execution the core refuses anyway.
                let read_regs = (0..th.nregs)
                    .filter(|&d| taint[d].count_ones() == 1)
                    .map(|d| (d, taint[d].trailing_zeros() as usize))
                    .filter(|&(_, i)| evs.get(i).is_some_and(|e| e.any_value))
                    .collect();
                // a path whose RMWs of a chained location form no chain has no
                // consistent execution: not kept, nor counted against max_paths
                // (where a plan gave the values, they follow one of its orders: a chain)
                let mut unplanned = chained.locs.iter().filter(|l| !plans.contains_key(l));
                if !unplanned.all(|&l| rmw_chain_holds(prog.locations[l].init, &evs, l)) {
                    break;
                }
                out.paths.push(Path { events: evs, regs, read_regs, fault });
                if out.paths.len() + out.cut > max_paths {
                    return Err(Error::limit(
                        "paths",
                        format!("thread {} has more than {} control paths", th.name, max_paths),
                    ));
                }
                break;
            }
            // The location an access reaches (its own, or on this path its
            // computed address's) and the reads that address depends on.
            let reached = match &th.code[pc] {
                Instr::Load { loc, at, .. } | Instr::Store { loc, at, .. } | Instr::Rmw { loc, at, .. } => {
                    resolve(prog, *loc, at, &regs, &taint)?
                }
                _ => Ok((0, 0)),
            };
            let (loc, addr) = match reached {
                Ok(r) => r,
                Err(why) => {
                    // Outside its array: the path records it and goes on
                    // without the access (a load or RMW may return any
                    // value any location may hold), so that every execution
                    // that reaches it, whatever the rest of the thread does,
                    // is found.
                    let fault = fault.take().or(Some((pc, why)));
                    match &th.code[pc] {
                        Instr::Load { dst: Some(d), .. } | Instr::Rmw { dst: Some(d), .. } => {
                            let any: BTreeSet<i64> = dom.iter().flatten().copied().collect();
                            for v in any {
                                let (mut r2, mut t2) = (regs.clone(), taint.clone());
                                r2[*d] = v;
                                t2[*d] = 0;
                                stack.push((pc + 1, r2, evs.clone(), t2, ctl, fault.clone()));
                            }
                        }
                        _ => stack.push((pc + 1, regs, evs, taint, ctl, fault)),
                    }
                    break;
                }
            };
            match &th.code[pc] {
                Instr::Load { dst, ev, .. } => {
                    let shared = !private.get(loc).copied().unwrap_or(false);
                    let any_value = shared && loads.get(pc) == Some(&LoadUse::Free);
                    // A value-free load: one path (its value, 0, is never read).
                    let vals = if any_value { vec![0] } else { values(loc, &evs) };
                    // A mapped load: one path per image of the assignment after it, the
                    // read's alternatives the values of that image (the first its value).
                    let mut alts: Vec<Option<std::sync::Arc<[i64]>>> = Vec::new();
                    let mut vals = vals;
                    if let (Some(Instr::Assign { val, .. }), Some(d)) = (th.code.get(pc + 1), dst) {
                        if shared && loads.get(pc) == Some(&LoadUse::Mapped) {
                            let by = by_image(&vals, |v| {
                                val.eval_with(&|r| if r == *d { Some(v) } else { regs.get(r).copied() })
                            })?;
                            vals = by.iter().map(|g| g[0]).collect();
                            alts = by.into_iter().map(|g| (g.len() > 1).then(|| g.into())).collect();
                        }
                    }
                    for (k, &v) in vals.iter().enumerate() {
                        let last = k + 1 == vals.len();
                        let mut r2 = if last { std::mem::take(&mut regs) } else { regs.clone() };
                        let mut e2 = if last { std::mem::take(&mut evs) } else { evs.clone() };
                        let mut t2 = if last { std::mem::take(&mut taint) } else { taint.clone() };
                        let me = bit(e2.len());
                        if let Some(d) = dst {
                            r2[*d] = v;
                            t2[*d] = me;
                        }
                        e2.push(PathEvent {
                            kind: Kind::R,
                            loc: Some(loc),
                            value: v,
                            template: *ev,
                            pc,
                            rmw_with_prev: false,
                            data: 0,
                            ctrl: ctl,
                            addr,
                            any_value,
                            alts: alts.get(k).cloned().flatten(),
                            computed: None,
                        });
                        stack.push((pc + 1, r2, e2, t2, ctl, fault.clone()));
                    }
                    break;
                }
                Instr::Rmw { dst, rmw, val, expected, ev_r, ev_w, ev_fail, fail_store, .. } => {
                    let operand_deps = val.deps(&taint) | expected.as_ref().map_or(0, |e| e.deps(&taint));
                    let exp = match expected {
                        Some(e) => Some(e.eval(&regs)?),
                        None => None,
                    };
                    let mut vals = values(loc, &evs);
                    if computed.get(loc).copied().unwrap_or(false) {
                        // the function evaluated on every value (its errors are the guessing paths')
                        let operand = |v: i64| rmw.operand_of(val, &|r| regs.get(r).copied(), v);
                        let by = by_image(&vals, |v| {
                            operand(v)?;
                            match (loads.get(pc), dst, th.code.get(pc + 1)) {
                                (Some(LoadUse::Mapped), Some(d), Some(Instr::Branch { cond, .. })) => {
                                    cond.eval_with(&|r| if r == *d { Some(v) } else { regs.get(r).copied() })
                                }
                                _ => Ok(0),
                            }
                        })?;
                        let at: std::sync::Arc<[i64]> = regs.clone().into();
                        for g in by {
                            let (mut r2, mut e2, mut t2) = (regs.clone(), evs.clone(), taint.clone());
                            let me = bit(e2.len());
                            if let Some(d) = dst {
                                r2[*d] = g[0];
                                t2[*d] = me;
                            }
                            let (new, _) = rmw.apply(g[0], operand(g[0])?, exp);
                            let read = PathEvent::of(Kind::R, loc, g[0], *ev_r, pc, ctl, addr);
                            e2.push(PathEvent { alts: (g.len() > 1).then(|| g.into()), ..read });
                            let write = PathEvent::rmw_write(loc, new.unwrap_or(0), *ev_w, pc, operand_deps, ctl, addr);
                            e2.push(PathEvent { computed: Some(at.clone()), ..write });
                            stack.push((pc + 1, r2, e2, t2, ctl, fault.clone()));
                        }
                        break;
                    }
                    if let Some(plan) = plans.get(&loc) {
                        let open = plan.open_at(pc, &evs, loc);
                        vals.retain(|v| open.contains(v));
                    }
                    for &v in &vals {
                        let operand = rmw.operand_of(val, &|r| regs.get(r).copied(), v)?;
                        let mut r2 = regs.clone();
                        let mut e2 = evs.clone();
                        let mut t2 = taint.clone();
                        let me = bit(e2.len());
                        let (new, ret) = rmw.apply(v, operand, exp);
                        if let Some(d) = dst {
                            r2[*d] = ret;
                            t2[*d] = me;
                        }
                        match new {
                            Some(w) => {
                                e2.push(PathEvent::of(Kind::R, loc, v, *ev_r, pc, ctl, addr));
                                e2.push(PathEvent::rmw_write(loc, w, *ev_w, pc, operand_deps, ctl, addr));
                            }
                            None => {
                                e2.push(PathEvent::of(Kind::R, loc, v, ev_fail.unwrap_or(*ev_r), pc, ctl, addr));
                                if let Some(fs) = fail_store {
                                    e2.push(PathEvent {
                                        kind: Kind::W,
                                        loc: Some(fs.loc),
                                        value: v,
                                        template: fs.ev,
                                        pc,
                                        rmw_with_prev: false,
                                        data: me,
                                        ctrl: ctl,
                                        addr: 0,
                                        any_value: false,
                                        alts: None,
                                        computed: None,
                                    });
                                }
                            }
                        }
                        stack.push((pc + 1, r2, e2, t2, ctl, fault.clone()));
                    }
                    break;
                }
                Instr::Store { val, ev, .. } => {
                    let v = val.eval(&regs)?;
                    let data = val.deps(&taint);
                    evs.push(PathEvent {
                        kind: Kind::W,
                        loc: Some(loc),
                        value: v,
                        template: *ev,
                        pc,
                        rmw_with_prev: false,
                        data,
                        ctrl: ctl,
                        addr,
                        any_value: false,
                        alts: None,
                        computed: None,
                    });
                    pc += 1;
                }
                Instr::Fence { ev, val } => {
                    let (value, data) = match val {
                        Some(v) => (v.eval(&regs)?, v.deps(&taint)),
                        None => (0, 0),
                    };
                    evs.push(PathEvent {
                        kind: Kind::F,
                        loc: None,
                        value,
                        template: *ev,
                        pc,
                        rmw_with_prev: false,
                        data,
                        ctrl: ctl,
                        addr: 0,
                        any_value: false,
                        alts: None,
                        computed: None,
                    });
                    pc += 1;
                }
                Instr::Assign { dst, val } => {
                    regs[*dst] = val.eval(&regs)?;
                    taint[*dst] = val.deps(&taint);
                    pc += 1;
                }
                Instr::Branch { cond, target } => {
                    // Everything after a branch depends on the reads its condition uses.
                    ctl |= cond.deps(&taint);
                    pc = if cond.eval(&regs)? != 0 { *target } else { pc + 1 };
                }
                Instr::Jump { target } => pc = *target,
                Instr::Choose { target } => {
                    stack.push((*target, regs.clone(), evs.clone(), taint.clone(), ctl, fault.clone()));
                    pc += 1;
                }
                Instr::Cut => {
                    out.cut += 1;
                    if cut_writes {
                        out.cut_writes
                            .extend(evs.iter().filter(|e| e.kind == Kind::W).map(|e| (e.loc.unwrap(), e.value)));
                    }
                    break;
                }
            }
        }
    }
    // The stack visits later read values first; restore a stable order.
    out.paths.reverse();
    Ok(out)
}

/// The fresh value of thin-air guessing: one more than the program's
/// largest constant, so none of them; it stands for "any other value".
pub fn thin_air_value(prog: &Program) -> i64 {
    prog.constants().iter().next_back().copied().unwrap_or(0).saturating_add(1)
}

/// The most (value, RMWs applied) states `rmw_chain_domains` visits for one location.
const MAX_CHAIN_STATES: usize = 1 << 16;
/// The most RMW instructions of one location it follows (a set of them is a bit mask).
const MAX_CHAIN_RMWS: usize = 24;

/// The values of each location written by nothing but RMWs whose value
/// reads no register (and constant stores), exactly: a value is its
/// initial value or a stored constant, then the RMWs of a chain applied in
/// turn, each instruction once (the code has no backward jump, so an
/// instruction happens at most once in an execution, and each RMW of a
/// chain reads the one before it). None for any other location, and where
/// the chains would exceed the bounds above (`value_domains`' fixpoint
/// then gives its values, a superset).
pub fn rmw_chain_domains(prog: &Program) -> Vec<Option<BTreeSet<i64>>> {
    let n = prog.locations.len();
    let mut starts: Vec<BTreeSet<i64>> = prog.locations.iter().map(|l| BTreeSet::from([l.init])).collect();
    let mut rmws: Vec<Vec<ConstantRmw>> = vec![Vec::new(); n];
    let mut general = vec![false; n];
    let no_reg = |_: usize| None;
    for t in &prog.threads {
        for i in &t.code {
            match i {
                Instr::Store { loc, val, at, .. } => match (at, val.eval(&[])) {
                    (None, Ok(v)) if val.is_const() => {
                        starts[*loc].insert(v);
                    }
                    _ => reach(*loc, at).for_each(|l| general[l] = true),
                },
                Instr::Rmw { loc, at, fail_store, .. } => {
                    if let Some(fs) = fail_store {
                        general[fs.loc] = true;
                    }
                    match constant_rmw(i) {
                        Some(f) => rmws[*loc].push(f),
                        None => reach(*loc, at).for_each(|l| general[l] = true),
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = vec![None; n];
    for l in 0..n {
        if general[l] || rmws[l].is_empty() || rmws[l].len() > MAX_CHAIN_RMWS {
            continue;
        }
        let mut seen: std::collections::HashSet<(i64, u32)> = starts[l].iter().map(|&v| (v, 0)).collect();
        let mut stack: Vec<(i64, u32)> = seen.iter().copied().collect();
        let mut values = starts[l].clone();
        let mut exact = true;
        'search: while let Some((v, used)) = stack.pop() {
            for (k, (op, val, exp)) in rmws[l].iter().enumerate() {
                if used & (1 << k) != 0 {
                    continue;
                }
                let Ok(operand) = op.operand_of(val, &no_reg, v) else {
                    exact = false;
                    break 'search;
                };
                if let (Some(w), _) = op.apply(v, operand, *exp) {
                    if seen.insert((w, used | 1 << k)) {
                        if seen.len() > MAX_CHAIN_STATES {
                            exact = false;
                            break 'search;
                        }
                        values.insert(w);
                        stack.push((w, used | 1 << k));
                    }
                }
            }
        }
        if exact {
            out[l] = Some(values);
        }
    }
    out
}

/// An RMW's operation, operand and expected value (`constant_rmw`).
type ConstantRmw<'a> = (RmwOp, &'a crate::program::Expr, Option<i64>);

/// An RMW at the location it names whose written value depends on the
/// value it reads alone (no register in its operand or expected value):
/// its operation, operand and expected value; None for any other.
fn constant_rmw(i: &Instr) -> Option<ConstantRmw<'_>> {
    let Instr::Rmw { rmw, val, expected, at: None, .. } = i else { return None };
    let exp = match expected {
        Some(e) => Some(e.eval(&[]).ok()?),
        None => None,
    };
    (!val.names_register()).then_some((*rmw, val, exp))
}

/// The orders in which one thread's RMWs of a location it alone writes
/// (`Program::rmw_chain_writers`) may follow each other in coherence, each
/// with the value every RMW then reads: where the RMWs are at most
/// `MAX_PLANNED`, each happens on every path that is not cut (so each
/// order holds them all), and each writes a value that depends on the
/// value it reads alone (no register, no failing compare).
pub struct ChainPlans {
    /// The RMW instructions, by pc.
    pcs: Vec<usize>,
    /// Per order: the value each of `pcs` reads.
    reads: Vec<Vec<i64>>,
}

const MAX_PLANNED: usize = 7;

impl ChainPlans {
    /// How many orders there are.
    pub fn orders(&self) -> usize {
        self.reads.len()
    }

    /// The values the RMW at `pc` may read on a path whose events so far
    /// are `evs`: those of the orders that agree with the values its
    /// earlier RMWs of `loc` read.
    fn open_at(&self, pc: usize, evs: &[PathEvent], loc: usize) -> BTreeSet<i64> {
        let Some(i) = self.pcs.iter().position(|&p| p == pc) else { return BTreeSet::new() };
        let read: Vec<(usize, i64)> = (1..evs.len())
            .filter(|&k| evs[k].rmw_with_prev && evs[k].loc == Some(loc))
            .filter_map(|k| self.pcs.iter().position(|&p| p == evs[k - 1].pc).map(|j| (j, evs[k - 1].value)))
            .collect();
        self.reads.iter().filter(|r| read.iter().all(|&(j, v)| r[j] == v)).map(|r| r[i]).collect()
    }
}

/// One thread's chained locations (`Program::rmw_chain_writers`, under a
/// model's `rmw_chains`) and what program order says of their RMWs' order.
#[derive(Default, Clone, Debug)]
pub struct Chained {
    pub locs: Vec<usize>,
    pub order: Option<RmwChainOrder>,
}

/// The orders of thread `t`'s RMWs of location `l` (`ChainPlans`), or None
/// where they are not all known so. With `po_order`: only those in which an
/// RMW comes after each earlier one that program order puts before it.
pub fn chain_plans(prog: &Program, t: usize, l: usize, po_order: Option<&RmwChainOrder>) -> Option<ChainPlans> {
    let code = &prog.threads[t].code;
    let pcs: Vec<usize> =
        (0..code.len()).filter(|&pc| matches!(&code[pc], Instr::Rmw { loc, .. } if *loc == l)).collect();
    if pcs.is_empty() || pcs.len() > MAX_PLANNED {
        return None;
    }
    let fns: Vec<_> = pcs.iter().map(|&pc| constant_rmw(&code[pc])).collect::<Option<_>>()?;
    // the RMWs every path that is not cut passes (forward jumps only: one pass from the end)
    let all: u64 = (1u64 << pcs.len()) - 1;
    let mut must = vec![0u64; code.len() + 1];
    for pc in (0..code.len()).rev() {
        let next = |k: usize| must.get(k).copied().unwrap_or(0);
        let m = match &code[pc] {
            Instr::Cut => all,
            Instr::Jump { target } => next(*target),
            Instr::Branch { target, .. } | Instr::Choose { target } => next(pc + 1) & next(*target),
            _ => next(pc + 1),
        };
        must[pc] = m | pcs.iter().position(|&p| p == pc).map_or(0, |i| 1 << i);
    }
    if must[0] != all {
        return None;
    }
    // per RMW, those program order puts before it in coherence (pcs are in program order: each
    // happens on every path, and the code jumps forward only)
    let tagged = |pc: usize, tags: &[String]| {
        let Instr::Rmw { ev_r, ev_w, .. } = &code[pc] else { return true };
        [*ev_r, *ev_w].iter().any(|&e| prog.templates[e].tags.iter().any(|g| tags.contains(g)))
    };
    let before: Vec<u64> = (0..pcs.len())
        .map(|j| match po_order {
            Some(o) if !tagged(pcs[j], &o.not_to) => {
                (0..j).filter(|&i| !tagged(pcs[i], &o.not_from)).fold(0, |m, i| m | 1 << i)
            }
            _ => 0,
        })
        .collect();
    // every order of them that keeps those pairs, each RMW reading what the ones before it left
    let mut reads = Vec::new();
    let mut stack = vec![(0u64, prog.locations[l].init, vec![0; pcs.len()])];
    while let Some((used, v, read)) = stack.pop() {
        if used == all {
            reads.push(read);
            continue;
        }
        for j in (0..pcs.len()).filter(|&j| used >> j & 1 == 0 && before[j] & !used == 0) {
            let (rmw, val, exp) = fns[j];
            let w = rmw.apply(v, rmw.operand_of(val, &|_| None, v).ok()?, exp).0?;
            let mut r = read.clone();
            r[j] = v;
            stack.push((used | 1 << j, w, r));
        }
    }
    Some(ChainPlans { pcs, reads })
}

/// Do the RMWs of location `l` among `events` (one path's) form one chain
/// from `init`: is there an order of their (value read, value written)
/// pairs whose first reads `init` and each later one what the one before it
/// wrote? Under a model that makes them atomic, coherence orders them so,
/// each reading the write just before its own. The search gives up,
/// answering yes, past `MAX_CHAIN_STEPS` (keeping a path is always sound).
pub fn rmw_chain_holds(init: i64, events: &[PathEvent], l: usize) -> bool {
    const MAX_CHAIN_STEPS: u32 = 1 << 16;
    let pairs: Vec<(i64, i64)> = (1..events.len())
        .filter(|&i| events[i].rmw_with_prev && events[i].loc == Some(l))
        .map(|i| (events[i - 1].value, events[i].value))
        .collect();
    fn go(v: i64, pairs: &[(i64, i64)], used: &mut [bool], left: usize, steps: &mut u32) -> bool {
        if left == 0 || *steps > MAX_CHAIN_STEPS {
            return true;
        }
        *steps += 1;
        // pairs alike are interchangeable: try the first unused of each
        for k in 0..pairs.len() {
            if used[k] || pairs[k].0 != v || (0..k).any(|j| !used[j] && pairs[j] == pairs[k]) {
                continue;
            }
            used[k] = true;
            let ok = go(pairs[k].1, pairs, used, left - 1, steps);
            used[k] = false;
            if ok {
                return true;
            }
        }
        false
    }
    go(init, &pairs, &mut vec![false; pairs.len()], pairs.len(), &mut 0)
}

/// The values each location may hold, as a fixpoint: iterate "every value
/// a path writes when reads range over the current domains" as many times
/// as the program has write instructions, or until nothing changes.
///
/// Without `thin_air`, each domain starts from the location's initial value:
/// a value is then the end of a chain "init value -> read -> write -> read
/// -> ..." whose writes are distinct events, and no value that only a cycle
/// of reads and writes could justify (out of thin air) is produced.
///
/// With `thin_air`, every domain starts from the location's initial value
/// and the constants any store of it writes, whatever guards that store
/// (load buffering through control dependencies); the domain of a location
/// that a write may give a value computed from reads
/// (`Program::value_carrying`) also from every constant of the program
/// (initial values, constants of its instructions and of its condition) and
/// one fresh value that is none of them, standing for "any other value":
/// reads may then guess values that only a cycle justifies, and `rf` (a
/// read takes its value from a write of that value) keeps the guesses that
/// some execution bears out; the model's axioms judge them. The domains are
/// closed under the program's operations as above, so this finds the
/// thin-air executions that copy, compare or compute from such values
/// within that many steps, not every value arbitrary arithmetic could reach.
/// `chained`: per thread, the locations whose RMW chains its paths must
/// form (`thread_paths`; none where empty).
pub fn value_domains(
    prog: &Program,
    private: &[bool],
    loads: &[Vec<LoadUse>],
    chained: &[Chained],
    limits: &Limits,
    budget: &Budget,
) -> Result<Domains, Error> {
    let (max_values, max_paths, thin_air) = (limits.max_values, limits.max_paths, limits.thin_air);
    // (the reference, and thin-air guessing, take the fixpoint's values for every location)
    let exact = if thin_air || limits.reference { vec![None; prog.locations.len()] } else { rmw_chain_domains(prog) };
    let mut dom: Domains = if thin_air {
        let mut seeds = prog.constants();
        seeds.insert(thin_air_value(prog));
        let carrying = prog.value_carrying();
        prog.locations
            .iter()
            .zip(carrying)
            .zip(prog.constant_writes())
            .map(|((l, c), mut d)| {
                if c {
                    d.extend(seeds.iter().copied());
                }
                d.insert(l.init);
                d
            })
            .collect()
    } else {
        prog.locations.iter().zip(&exact).map(|(l, e)| e.clone().unwrap_or_else(|| BTreeSet::from([l.init]))).collect()
    };
    let rounds: usize = prog
        .threads
        .iter()
        .map(|t| t.code.iter().filter(|i| matches!(i, Instr::Store { .. } | Instr::Rmw { .. })).count())
        .sum();
    for _ in 0..rounds {
        let mut next = dom.clone();
        for t in 0..prog.threads.len() {
            let free = loads.get(t).map_or(&[][..], |v| &v[..]);
            let none = Chained::default();
            let chain = chained.get(t).unwrap_or(&none);
            let paths = thread_paths(prog, t, &dom, private, free, chain, &[], max_paths, budget, true)?;
            for p in paths.paths {
                for e in p.events {
                    if e.kind == Kind::W {
                        next[e.loc.unwrap()].insert(e.value);
                    }
                }
            }
            // and the writes of paths the loop bound cut: a read may see them
            for (l, v) in paths.cut_writes {
                next[l].insert(v);
            }
        }
        // a location of exact values keeps them (the paths' writes to it are among them or unreachable)
        for (l, e) in exact.iter().enumerate() {
            if let Some(e) = e {
                next[l].clone_from(e);
            }
        }
        if next == dom {
            break;
        }
        too_many(prog, &next, max_values)?;
        dom = next;
    }
    // (the exact values of a location are its domain from the start: they too count)
    too_many(prog, &dom, max_values)?;
    Ok(dom)
}

/// The values limit: an error naming a location with more than `max_values` values.
fn too_many(prog: &Program, dom: &Domains, max_values: usize) -> Result<(), Error> {
    match dom.iter().enumerate().find(|(_, s)| s.len() > max_values) {
        Some((l, s)) => Err(Error::limit(
            "values",
            format!(
                "location {} may hold {} values, more than max_values = {max_values}",
                prog.locations[l].name,
                s.len()
            ),
        )),
        None => Ok(()),
    }
}

/// An event of an execution. Init writes have no thread and no template.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Event {
    pub id: usize,
    pub thread: Option<usize>,
    pub kind: &'static str,
    pub loc: Option<usize>,
    pub value: i64,
    pub template: Option<usize>,
    pub pc: Option<usize>,
}

/// The events of one choice of a path per thread, with the relations that
/// do not depend on `rf` and `co`.
pub struct EventStructure {
    pub n: usize,
    pub events: Vec<Event>,
    pub po: Relation,
    pub rmw: Relation,
    pub loc: Relation,
    pub int: Relation,
    /// Dependencies: reads to the events whose value (data), existence
    /// (ctrl) or location (addr: a computed address) they determine.
    pub data: Relation,
    pub ctrl: Relation,
    pub addr: Relation,
    /// System-synchronises-with: the events of a thread to those of the
    /// threads the program says it synchronises with (`Program::sync_with`).
    pub ssw: Relation,
    pub init: EventSet,
    pub reads: EventSet,
    pub writes: EventSet,
    pub fences: EventSet,
    /// Writes to each location (init write first).
    pub writes_of: Vec<Vec<usize>>,
    /// Reads that may read any write of their location (`PathEvent::any_value`):
    /// their `value` is their rf write's.
    pub any_value: EventSet,
    /// Mapped loads' reads (`PathEvent::alts`): each may read a write of
    /// any of its values, sorted; its `value` is the first.
    pub alts: BTreeMap<usize, std::sync::Arc<[i64]>>,
    /// The writes of computed locations' RMWs (`PathEvent::computed`): the
    /// registers their operands read. Each one's value is its RMW's
    /// function of its read's (`enumerate`); its `value` means nothing.
    pub computed: BTreeMap<usize, std::sync::Arc<[i64]>>,
}

impl EventStructure {
    /// May read `r` read write `w`'s value (equal, or among its alternatives)?
    pub fn may_read_value(&self, r: usize, w: usize) -> bool {
        self.may_read(r, self.events[w].value)
    }

    /// May read `r` read value `v` (its value, or one of its alternatives)?
    pub fn may_read(&self, r: usize, v: i64) -> bool {
        match self.alts.get(&r) {
            Some(a) => a.binary_search(&v).is_ok(),
            None => v == self.events[r].value,
        }
    }

    /// Is location `l`'s every write but init a computed one (`computed`)?
    pub fn is_computed(&self, l: usize) -> bool {
        self.writes_of[l].len() > 1 && self.writes_of[l][1..].iter().all(|w| self.computed.contains_key(w))
    }

    /// What the write `w` of a computed RMW writes when its read reads `old`
    /// (its instruction's function, on the registers it had).
    pub fn computed_value(&self, prog: &Program, w: usize, old: i64) -> Result<i64, Error> {
        let e = &self.events[w];
        let regs = &self.computed[&w];
        let (Some(t), Some(pc)) = (e.thread, e.pc) else { return Err(Error::invalid("a computed write of no thread")) };
        let Some(Instr::Rmw { rmw, val, expected, .. }) = prog.threads[t].code.get(pc) else {
            return Err(Error::invalid("a computed write of no RMW"));
        };
        let reg = |r: usize| regs.get(r).copied();
        let exp = match expected {
            Some(x) => Some(x.eval_with(&reg)?),
            None => None,
        };
        let (new, _) = rmw.apply(old, rmw.operand_of(val, &reg, old)?, exp);
        new.ok_or_else(|| Error::invalid("a computed RMW that did not write"))
    }
}

impl EventStructure {
    /// The events of a built-in tag: `R`, `W`, `F`, `M` (reads and writes),
    /// `IW` (init writes); no event for any other name.
    pub fn builtin_tag(&self, name: &str) -> EventSet {
        match name {
            "R" => self.reads,
            "W" => self.writes,
            "F" => self.fences,
            "M" => self.reads | self.writes,
            "IW" => self.init,
            _ => 0,
        }
    }

    /// Is every part of the structure a model reads the same in `o` (the
    /// events' threads, kinds, locations and templates, the static
    /// relations and sets)? Only the values read and written may differ, so
    /// a model's static values are those of `o` (`model::Evaluator::with_state`).
    pub fn same_shape(&self, o: &Self) -> bool {
        self.n == o.n
            && self.init == o.init
            && self.reads == o.reads
            && self.writes == o.writes
            && self.fences == o.fences
            && self.po == o.po
            && self.rmw == o.rmw
            && self.loc == o.loc
            && self.int == o.int
            && self.data == o.data
            && self.ctrl == o.ctrl
            && self.addr == o.addr
            && self.ssw == o.ssw
            && self.events.iter().zip(&o.events).all(|(a, b)| {
                a.id == b.id
                    && a.thread == b.thread
                    && a.kind == b.kind
                    && a.loc == b.loc
                    && a.template == b.template
                    && (a.kind != "F" || a.value == b.value) // a fence's value: a `value_attr`
            })
    }

    pub fn build(prog: &Program, paths: &[&Path]) -> Result<Self, Error> {
        let nloc = prog.locations.len();
        let n = nloc + paths.iter().map(|p| p.events.len()).sum::<usize>();
        if n > super::relation::MAX_EVENTS {
            return Err(Error::TooManyEvents { events: n, max: super::relation::MAX_EVENTS });
        }
        let mut events = Vec::with_capacity(n);
        let mut writes_of = vec![Vec::new(); nloc];
        for (l, loc) in prog.locations.iter().enumerate() {
            events.push(Event {
                id: l,
                thread: None,
                kind: "W",
                loc: Some(l),
                value: loc.init,
                template: None,
                pc: None,
            });
            writes_of[l].push(l);
        }
        let mut po = Relation::empty(n);
        let mut rmw = Relation::empty(n);
        let mut int = Relation::empty(n);
        let mut data = Relation::empty(n);
        let mut ctrl = Relation::empty(n);
        let mut addr = Relation::empty(n);
        let mut any_value: EventSet = 0;
        let mut alts = BTreeMap::new();
        let mut computed = BTreeMap::new();
        for (t, p) in paths.iter().enumerate() {
            let start = events.len();
            for e in &p.events {
                let id = events.len();
                if e.rmw_with_prev {
                    rmw.add(id - 1, id);
                }
                for i in bits(e.data) {
                    data.add(start + i, id);
                }
                for i in bits(e.ctrl) {
                    ctrl.add(start + i, id);
                }
                for i in bits(e.addr) {
                    addr.add(start + i, id);
                }
                if e.kind == Kind::W {
                    writes_of[e.loc.unwrap()].push(id);
                }
                if e.any_value {
                    any_value |= (1 as EventSet) << id;
                }
                if let Some(a) = &e.alts {
                    alts.insert(id, a.clone());
                }
                if let Some(at) = &e.computed {
                    computed.insert(id, at.clone());
                }
                events.push(Event {
                    id,
                    thread: Some(t),
                    kind: match e.kind {
                        Kind::R => "R",
                        Kind::W => "W",
                        Kind::F => "F",
                    },
                    loc: e.loc,
                    value: e.value,
                    template: Some(e.template),
                    pc: Some(e.pc),
                });
            }
            let end = events.len();
            let mask = super::relation::full_set(end) & !super::relation::full_set(start);
            for i in start..end {
                int.rows[i] = mask;
                po.rows[i] = mask & !super::relation::full_set(i + 1);
            }
            // Operands of one operator are unsequenced (C11): no po between them.
            let tmpl = |i: usize| &prog.templates[events[i].template.unwrap()];
            if (start..end).any(|i| !tmpl(i).unseq.is_empty()) {
                for i in start..end {
                    for j in i + 1..end {
                        if tmpl(i).unsequenced_with(tmpl(j)) {
                            po.rows[i] &= !((1 as EventSet) << j);
                        }
                    }
                }
            }
        }
        let mut loc = Relation::empty(n);
        let mut init: EventSet = 0;
        let (mut reads, mut writes, mut fences) = (0 as EventSet, 0 as EventSet, 0 as EventSet);
        let mut loc_sets = vec![0 as EventSet; nloc];
        for e in &events {
            if let Some(l) = e.loc {
                loc_sets[l] |= (1 as EventSet) << e.id;
            }
            match e.kind {
                "R" => reads |= (1 as EventSet) << e.id,
                "W" => writes |= (1 as EventSet) << e.id,
                _ => fences |= (1 as EventSet) << e.id,
            }
            if e.thread.is_none() {
                init |= (1 as EventSet) << e.id;
            }
        }
        for e in &events {
            if let Some(l) = e.loc {
                loc.rows[e.id] = loc_sets[l];
            }
        }
        let mut ssw = Relation::empty(n);
        let of_thread = |t: usize| {
            events.iter().filter(|e| e.thread == Some(t)).fold(0 as EventSet, |s, e| s | (1 as EventSet) << e.id)
        };
        for &(a, b) in &prog.sync_with {
            if a != b {
                let to = of_thread(b);
                for e in events.iter().filter(|e| e.thread == Some(a)) {
                    ssw.rows[e.id] |= to;
                }
            }
        }
        Ok(EventStructure {
            n,
            events,
            po,
            rmw,
            loc,
            int,
            data,
            ctrl,
            addr,
            ssw,
            init,
            reads,
            writes,
            fences,
            writes_of,
            any_value,
            alts,
            computed,
        })
    }
}

/// `rf` and `co` of a (possibly partial) candidate execution, with
/// `fr = rf^-1; co` (reads of the init value included).
#[derive(Clone)]
pub struct Dynamic {
    pub rf: Relation,
    pub co: Relation,
    /// The model's witness orders (name, relation), see `model::OrderDecl`.
    pub orders: Vec<(String, Relation)>,
}

impl Dynamic {
    /// `fr = rf^-1 ; co` written into `out`, with `inv` (a row per event)
    /// to hold rf^-1.
    pub fn fr_into(&self, out: &mut [EventSet], inv: &mut [EventSet]) {
        super::relation::rows::inverse(inv, &self.rf.rows);
        super::relation::rows::seq(out, inv, &self.co.rows);
    }
}
