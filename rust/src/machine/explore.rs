//! The exhaustive explorer ([RSP15] sec. 5): breadth-first over packed
//! states, one layer at a time. A layer's states are expanded in parallel
//! into all their successors; then, shard by shard in parallel, the
//! successors are deduplicated keeping the first in (parent, step) order
//! (so indices, parents and traces do not depend on scheduling) and
//! looked up in the visited set in prefetched batches; the new ones are
//! appended to the block arena and inserted into the visited set's shards
//! in parallel. Every state keeps its parent and step: the trace to any
//! state is shortest (breadth-first) and reconstructed on demand.

use super::state::{Machine, Packed, View};
use super::step::{in_set, Step, ThreadStep};
use crate::limits::{Budget, ExploreLimits, LimitOut};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use super::pool::awake;
use super::report::*;
use super::visited::*;

/// States stored and layers done by the exploration now running (0, 0
/// before the first layer), for a progress display; readable from any
/// thread while `explore` runs.
pub static PROGRESS_STATES: AtomicU64 = AtomicU64::new(0);
pub static PROGRESS_LAYERS: AtomicU64 = AtomicU64::new(0);

/// A successor found while expanding a layer: where its bytes start in
/// its share's `bytes` (they end where the next one's start), its parent
/// and step. (Small: a layer writes one per successor, and reads it twice.)
struct Cand {
    start: u32,
    parent: u32,
    step: u16,
}

/// A successor in its shard's list: its hash, its index in `cands` and its
/// bytes' place (what entering it reads, in one place).
#[derive(Clone, Copy)]
struct ShardEntry {
    h: u64,
    k: u32,
    start: u32,
    len: u32,
}

/// One worker's share of a layer: a range of parents, in order.
#[derive(Default)]
struct Local {
    next: Packed,
    bytes: Vec<u8>,
    cands: Vec<Cand>,
    /// `Machine::reads_into` of the state being expanded.
    reads: Vec<u64>,
    /// `Machine::flushing_into` of the state being expanded.
    flushing: Vec<u64>,
    /// The successors by shard, in order (what entering them needs, so
    /// that a shard reads its list sequentially, not `cands` by strides).
    by_shard: Vec<Vec<ShardEntry>>,
    /// The share's latest successors by hash (a direct-mapped cache: the
    /// top 32 bits of the hash over an index in `cands`). A successor
    /// equal to the one cached under its hash is not the first in
    /// (parent, step) order and is dropped at once, while its bytes are
    /// still in the CPU's cache; a layer's diamonds mostly close within a
    /// few parents. Every hit is checked against the bytes, so entries
    /// left from an earlier layer are harmless: the cache is never cleared.
    recent: Vec<u64>,
    finals: Vec<u32>,
    live: Vec<u32>,
    faults: Vec<(u32, u16, String)>,
    cut: u64,
    transitions: u64,
    expanded: u64,
}

/// Entries of `Local::recent`.
const RECENT: usize = 1 << 12;

/// The bytes of successor k of a share (`cands`, `bytes`).
#[inline(always)]
fn cand_bytes<'a>(cands: &[Cand], bytes: &'a [u8], k: usize) -> &'a [u8] {
    let end = cands.get(k + 1).map_or(bytes.len(), |c| c.start as usize);
    &bytes[cands[k].start as usize..end]
}

impl Local {
    fn cand_bytes(&self, k: usize) -> &[u8] {
        cand_bytes(&self.cands, &self.bytes, k)
    }
}

struct Ctx {
    env: Vec<Step>,
    /// Every step by number: thread t's is t, env[k]'s is nthreads + k.
    steps: Vec<Step>,
    stop: AtomicBool,
    /// A successor overflowed the machine's field widths: start again wider.
    widen: AtomicBool,
    limit: std::sync::Mutex<Option<LimitOut>>,
    /// Locals of the last layer, emptied, their allocations kept.
    pool: std::sync::Mutex<Vec<Local>>,
    /// Time, memory and Ctrl-C (crate::limits).
    budget: Budget,
}

impl Ctx {
    fn check_interrupt(&self) -> bool {
        if self.stop.load(Ordering::Relaxed) {
            return true;
        }
        if self.budget.check() {
            self.stop.store(true, Ordering::Relaxed);
            if let Some(h) = self.budget.take() {
                self.limit.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(h);
            }
            return true;
        }
        false
    }

    fn local(&self) -> Local {
        self.pool.lock().unwrap().pop().unwrap_or_default()
    }

    /// Give a layer's locals back, emptied.
    fn recycle(&self, locals: Vec<Local>) {
        let mut pool = self.pool.lock().unwrap();
        for mut l in locals {
            l.bytes.clear();
            l.cands.clear();
            l.by_shard.iter_mut().for_each(Vec::clear);
            l.finals.clear();
            l.live.clear();
            l.faults.clear();
            (l.cut, l.transitions, l.expanded) = (0, 0, 0);
            pool.push(l);
        }
    }

    /// Expand the parents of a share (consecutive states).
    fn expand_share<const VW: usize, const SW: usize>(
        &self,
        m: View<'_, VW, SW>,
        store: &Store,
        parents: std::ops::Range<u32>,
        l: &mut Local,
    ) {
        // The share's records are consecutive in the arena.
        let mut o = store.offset_of(parents.start);
        for i in parents {
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            let (cur, next) = record(&store.blocks, o);
            self.expand(m, store, i, cur, l);
            o = next;
        }
    }

    /// Expand state i (bytes `cur`): record it as final, or emit its
    /// successors (the store is asked later, `enter_layer`).
    /// (`m`: the machine, through its widths.)
    #[inline(always)]
    fn expand<const VW: usize, const SW: usize>(
        &self,
        m: View<'_, VW, SW>,
        store: &Store,
        i: u32,
        cur: &[u8],
        l: &mut Local,
    ) {
        l.expanded += 1;
        if l.expanded.is_multiple_of(1024) && self.check_interrupt() {
            return;
        }
        if m.is_final(cur) {
            l.finals.push(i);
            l.live.push(i);
            return;
        }
        let n = m.nthreads();
        // Persistent-set reduction (`reduce`): a step that commutes with
        // every other step and that nothing disables is taken alone.
        m.flushing_into(cur, &mut l.flushing);
        let alone = if m.prog.reduce { m.invisible_step(cur, &l.flushing) } else { None };
        if let Some(st @ (Step::DequeueL1(_) | Step::DequeueL2(_))) = alone {
            // (A dequeue reads no `reads_into` masks.)
            if m.env_step_with(cur, st, &mut l.next, &[]) {
                let k = self.env.iter().position(|&e| e == st).expect("every dequeue is an environment step");
                self.emit(store, i, (n + k) as u16, l);
            }
            return;
        }
        let first_local = match alone {
            Some(Step::Thread(t)) => Some(t),
            _ => None,
        };
        let threads = match first_local {
            Some(t) => t..t + 1,
            None => 0..n,
        };
        let mut progress = false;
        for t in threads {
            match m.thread_step_with(cur, t, &mut l.next, in_set(&l.flushing, t)) {
                ThreadStep::Stepped => {
                    progress = true;
                    self.emit(store, i, t as u16, l);
                }
                ThreadStep::Cut => {
                    progress = true;
                    l.cut += 1;
                }
                ThreadStep::Fault(msg) => {
                    progress = true;
                    l.faults.push((i, t as u16, msg));
                }
                ThreadStep::Blocked | ThreadStep::Done => {}
            }
        }
        if progress {
            l.live.push(i);
        }
        if first_local.is_some() {
            return;
        }
        m.reads_into(cur, &mut l.reads);
        for (k, &st) in self.env.iter().enumerate() {
            if m.env_step_with(cur, st, &mut l.next, &l.reads) {
                self.emit(store, i, (n + k) as u16, l);
            }
        }
    }

    #[inline(always)]
    fn emit(&self, store: &Store, parent: u32, step: u16, l: &mut Local) {
        l.transitions += 1;
        let Local { next, bytes, cands, by_shard, recent, .. } = &mut *l;
        if next.overflow {
            self.widen.store(true, Ordering::Relaxed);
            self.stop.store(true, Ordering::Relaxed);
            return;
        }
        let h = store.hash(&next.b);
        if recent.is_empty() {
            recent.resize(RECENT, 0);
        }
        const LOW: u64 = u32::MAX as u64;
        let slot = (h >> 40) as usize % RECENT;
        let e = recent[slot];
        let k = (e & LOW) as usize;
        if (e ^ h) & !LOW == 0 && k < cands.len() && cand_bytes(cands, bytes, k) == &next.b[..] {
            return;
        }
        recent[slot] = (h & !LOW) | cands.len() as u64;
        let start = bytes.len() as u32;
        bytes.extend_from_slice(&next.b);
        if by_shard.is_empty() {
            by_shard.resize(SHARDS, Vec::new());
        }
        let len = next.b.len() as u32;
        by_shard[shard(h)].push(ShardEntry { h, k: cands.len() as u32, start, len });
        cands.push(Cand { start, parent, step });
    }
}

/// A shard's lists for `enter_layer`, kept from layer to layer (fresh
/// ones were allocated, and their pages often taken from the system
/// again, every layer by every thread at once).
#[derive(Default)]
struct ShardLists {
    /// Each successor's index in the layer, in the shard's order.
    ks: Vec<u32>,
    /// Always empty between layers (`relife`): the allocation is what is kept.
    items: Vec<(u64, &'static [u8])>,
    /// The shard's new states: (layer index, slot), pending in the table.
    fresh: Vec<(u32, usize)>,
}

/// An emptied list of borrowed bytes, its allocation kept, for another
/// lifetime. (Collected in place: the same allocation.)
fn relife<'b>(mut v: Vec<(u64, &[u8])>) -> Vec<(u64, &'b [u8])> {
    v.clear();
    v.into_iter().map(|_| unreachable!("the list is empty")).collect()
}

/// The layer's new successors, by shard: each shard's successors, in
/// (parent, step) order (locals in order, each local's in order), are
/// entered into the shard's table in parallel (`Table::enter`), so the
/// first of each new state is kept (its smallest (parent, step)). The new
/// ones go to their shard's `fresh` as (layer index: `base` of the local
/// plus index in it, slot), pending in the table until they are pushed
/// and settled, and are marked in `off` (1: new).
fn enter_layer(store: &mut Store, locals: &[Local], base: &[u32], lists: &mut [ShardLists], off: &[AtomicU64]) {
    let Store { shards, blocks, .. } = store;
    let blocks = &*blocks;
    shards.par_iter_mut().zip(lists.par_iter_mut()).enumerate().for_each(|(s, (table, sl))| {
        let count = locals.iter().map(|l| l.by_shard.get(s).map_or(0, Vec::len)).sum();
        let mut items = relife(std::mem::take(&mut sl.items));
        sl.ks.clear();
        sl.ks.reserve(count);
        items.reserve(count);
        for (l, &b) in locals.iter().zip(base) {
            for e in l.by_shard.get(s).map_or(&[][..], |v| &v[..]) {
                sl.ks.push(b + e.k);
                items.push((e.h, &l.bytes[e.start as usize..(e.start + e.len) as usize]));
            }
        }
        sl.fresh.clear();
        table.enter(blocks, &items, &mut sl.fresh);
        sl.items = relife(items);
        for f in &mut sl.fresh {
            f.0 = sl.ks[f.0 as usize];
            off[f.0 as usize].store(1, Ordering::Relaxed);
        }
    })
}

/// `body` with `v` the machine `m` seen through its widths: as constants
/// when they are one byte each (most tests; the compiler folds them into
/// every access), else read from the layout. The explorer's hot loops
/// (expansion, the search for stuck states) run through it.
macro_rules! with_view {
    ($m:expr, $v:ident => $body:expr) => {
        match $m.view_as::<1, 1>() {
            Some($v) => $body,
            None => {
                let $v = $m.view();
                $body
            }
        }
    };
}

/// Explore every reachable state of the machine: packed with the
/// machine's field widths, and again with wider ones each time a state
/// does not fit (a value, pc or fifo length too large).
pub fn explore(m: &Machine, limits: &ExploreLimits) -> ExploreOut {
    awake(|| explore_widening(m, limits))
}

/// Explore packed with the machine's widths, then wider ones while a
/// state does not fit.
fn explore_widening(m: &Machine, limits: &ExploreLimits) -> ExploreOut {
    let start = Instant::now();
    let mut wider;
    let mut m = m;
    loop {
        match explore_packed(m, limits, start) {
            Some(out) => return out,
            None => match m.widened() {
                Some(w) => {
                    wider = w;
                    m = &wider;
                }
                None => {
                    let limit = LimitOut {
                        which: "states".into(),
                        detail: "a machine state does not fit in 8-byte values and 2-byte fifo lengths".into(),
                    };
                    return ExploreOut {
                        limit: Some(limit),
                        threads: rayon::current_num_threads(),
                        ..Default::default()
                    };
                }
            },
        }
    }
}

/// The exploration with m's widths; None if a state does not fit them.
fn explore_packed(m: &Machine, limits: &ExploreLimits, start: Instant) -> Option<ExploreOut> {
    let env = m.env_steps();
    let steps: Vec<Step> = (0..m.nthreads()).map(Step::Thread).chain(env.iter().copied()).collect();
    if steps.len() > u16::MAX as usize {
        let limit =
            LimitOut { which: "states".into(), detail: format!("{} machine steps: at most {}", steps.len(), u16::MAX) };
        return Some(ExploreOut { limit: Some(limit), threads: rayon::current_num_threads(), ..Default::default() });
    }
    let ctx = Ctx {
        env,
        steps,
        stop: AtomicBool::new(false),
        widen: AtomicBool::new(false),
        limit: std::sync::Mutex::new(None),
        pool: std::sync::Mutex::new(Vec::new()),
        budget: Budget::from_start(start, limits.max_seconds, limits.max_memory),
    };
    let mut store = Store::new();
    let mut out = ExploreOut { threads: rayon::current_num_threads(), ..Default::default() };
    {
        let buf = m.pack(&m.initial()).b;
        let h = store.hash(&buf);
        let e = store.push(&buf, u32::MAX, 0);
        let mut buckets = vec![Vec::new(); SHARDS];
        buckets[shard(h)].push((h, e));
        store.insert(buckets);
    }
    // The states that are final or where some thread can step, a bit each
    // (`stuck_states`).
    let mut live: Vec<AtomicU64> = Vec::new();
    // A layer's lists, their allocations kept from layer to layer: `off`
    // and `order` (below), and the shards' (`enter_layer`).
    let mut off: Vec<AtomicU64> = Vec::new();
    let mut order: Vec<(u32, u32)> = Vec::new();
    let mut lists: Vec<ShardLists> = (0..SHARDS).map(|_| ShardLists::default()).collect();
    let mut finals: Vec<u32> = Vec::new();
    let mut faults: Vec<(u32, u16, String)> = Vec::new();
    let (mut lo, mut hi) = (0u32, 1u32);
    PROGRESS_STATES.store(1, Ordering::Relaxed);
    PROGRESS_LAYERS.store(0, Ordering::Relaxed);
    let mut clock = Instant::now();
    // The seconds since the last lap, added to a phase.
    let mut lap = |phase: &mut f64| {
        let now = Instant::now();
        *phase += (now - clock).as_secs_f64();
        clock = now;
    };
    let mut ph = PhaseSeconds::default();
    // The seconds `work` takes, added to `ph.serial` (work on one thread).
    let serially = |serial: &mut f64, work: &mut dyn FnMut()| {
        let t = Instant::now();
        work();
        *serial += t.elapsed().as_secs_f64();
    };
    while lo < hi {
        out.layers += 1;
        // Shares of consecutive parents, each expanded by one worker into
        // its own `Local` (collected in order).
        let share = ((hi - lo) / (16 * rayon::current_num_threads() as u32)).clamp(256, 1 << 14);
        let words = (hi as usize).div_ceil(64);
        let more = words.saturating_sub(live.len());
        live.par_extend((0..more).into_par_iter().map(|_| AtomicU64::new(0)));
        let locals: Vec<Local> = (0..(hi - lo).div_ceil(share))
            .into_par_iter()
            .map(|k| {
                let mut l = ctx.local();
                let first = lo + k * share;
                let parents = first..(first + share).min(hi);
                with_view!(m, v => ctx.expand_share(v, &store, parents, &mut l));
                for &i in &l.live {
                    live[i as usize / 64].fetch_or(1 << (i % 64), Ordering::Relaxed);
                }
                l
            })
            .collect();
        if ctx.widen.load(Ordering::Relaxed) {
            return None;
        }
        if ctx.check_interrupt() {
            break;
        }
        let mut base = Vec::with_capacity(locals.len());
        let mut n = 0u32;
        serially(&mut ph.serial, &mut || {
            for l in &locals {
                out.transitions += l.transitions;
                out.cut += l.cut;
                finals.extend_from_slice(&l.finals);
                faults.extend(l.faults.iter().cloned());
            }
            // The layer's successors, locals in order: each local covers a
            // range of parents in order and emits in step order, so this is
            // (parent, step) order whatever the scheduling.
            for l in &locals {
                base.push(n);
                n = n.checked_add(l.cands.len() as u32).expect("fewer than 2^32 successors in a layer");
            }
        });
        lap(&mut ph.expand);
        // `off`, a place per successor: 1 for the new states (marked as they
        // are entered), then their offsets (every entry is written by one
        // worker: relaxed atomics let workers share it).
        off.clear();
        off.par_extend((0..n).into_par_iter().map(|_| AtomicU64::new(0)));
        enter_layer(&mut store, &locals, &base, &mut lists, &off);
        lap(&mut ph.enter);
        let nfresh: usize = lists.iter().map(|sl| sl.fresh.len()).sum();
        if let Some(max) = limits.max_states {
            if store.len() as u64 + nfresh as u64 > max {
                store.shards.par_iter_mut().for_each(Table::drop_pending);
                out.limit = Some(LimitOut { which: "states".into(), detail: format!("more than {max} states") });
                break;
            }
        }
        // The new states pushed in (parent, step) order, then settled.
        // `order`: the new states as (local, index in it), in order; each
        // local's part counted, then written, in parallel.
        let (offs, locs, bases) = (&off, &locals, &base);
        let fresh_in = move |li: usize| {
            let (l, b) = (&locs[li], bases[li]);
            (0..l.cands.len() as u32).filter(move |&k| offs[(b + k) as usize].load(Ordering::Relaxed) == 1)
        };
        let counts: Vec<usize> = (0..locals.len()).into_par_iter().map(|li| fresh_in(li).count()).collect();
        // (each new state is one shard's and marked once: the parts below fill `order` exactly)
        assert_eq!(counts.iter().sum::<usize>(), nfresh, "new states marked once each");
        order.clear();
        order.reserve(nfresh);
        {
            let mut parts = Vec::with_capacity(locals.len());
            let mut rest = &mut order.spare_capacity_mut()[..nfresh];
            for &c in &counts {
                let (part, r) = std::mem::take(&mut rest).split_at_mut(c);
                parts.push(part);
                rest = r;
            }
            parts.into_par_iter().enumerate().for_each(|(li, part)| {
                for (slot, k) in part.iter_mut().zip(fresh_in(li)) {
                    slot.write((li as u32, k));
                }
            });
        }
        // SAFETY: the parts cover order's first nfresh places, each written
        // above (a local's part is as long as its count of new states).
        unsafe { order.set_len(nfresh) };
        store.push_all(
            order.len(),
            |j| {
                let (li, k) = order[j];
                let l = &locals[li as usize];
                (l.cand_bytes(k as usize), l.cands[k as usize].parent, l.cands[k as usize].step)
            },
            |j, o| {
                let (li, k) = order[j];
                off[(base[li as usize] + k) as usize].store(o, Ordering::Relaxed)
            },
        );
        store.shards.par_iter_mut().zip(&lists).for_each(|(table, sl)| {
            for &(k, slot) in &sl.fresh {
                table.settle(slot, off[k as usize].load(Ordering::Relaxed));
            }
        });
        let mut done = Some(locals);
        serially(&mut ph.serial, &mut || ctx.recycle(done.take().unwrap_or_default()));
        lap(&mut ph.store);
        lo = hi;
        hi = store.len() as u32;
        PROGRESS_STATES.store(hi as u64, Ordering::Relaxed);
        PROGRESS_LAYERS.store(out.layers as u64, Ordering::Relaxed);
    }
    out.limit = out.limit.or_else(|| ctx.limit.lock().unwrap().take());
    out.complete = out.limit.is_none();
    out.states = store.len() as u64;
    out.final_states = finals.len() as u64;
    out.depth = out.layers.saturating_sub(1);
    // Outcomes: the first (breadth-first) final state of each.
    let mut by_outcome: BTreeMap<Vec<i64>, u32> = BTreeMap::new();
    finals.sort_unstable();
    for &i in &finals {
        by_outcome.entry(m.view().outcome(store.get(i))).or_insert(i);
    }
    for (values, i) in by_outcome {
        let holds = m.prog.condition.eval(&values);
        out.outcomes.push(OutcomeOut { values, holds, trace: trace(m, &store, &ctx.steps, i, None) });
    }
    faults.sort_by_key(|a| (a.0, a.1));
    for (i, st, msg) in faults.into_iter().take(8) {
        out.faults.push(FaultOut { message: msg, trace: trace(m, &store, &ctx.steps, i, Some(st)) });
    }
    lap(&mut ph.outcomes);
    if out.complete && limits.deadlocks {
        let (count, first) = with_view!(m, v => stuck_states(&ctx, v, &store, live))?;
        if let Some(h) = ctx.limit.lock().unwrap_or_else(|p| p.into_inner()).take() {
            // Cut during the deadlock search: no deadlock verdict.
            out.limit = Some(h);
            out.complete = false;
        } else {
            out.deadlocks = Some(count);
            out.deadlock = first.map(|i| {
                let s = store.get(i);
                let v = m.view();
                let waiting = (0..m.nthreads())
                    .filter(|&t| v.pc(s, t) < m.prog.threads[t].code.len())
                    .map(|t| (t, v.pc(s, t)))
                    .collect();
                StuckOut {
                    trace: trace(m, &store, &ctx.steps, i, None),
                    waiting,
                    state: describe_state(m, &m.unpack(s)),
                }
            });
        }
        lap(&mut ph.deadlocks);
    }
    out.phase_seconds = ph;
    out.bytes_per_state = store.bytes_used() as f64 / store.len().max(1) as f64;
    out.seconds = start.elapsed().as_secs_f64();
    Some(out)
}

/// States from which no final state can be reached. Thread steps only go
/// forward (branches are forward), so such a state exists iff one exists
/// whose every environment-reachable state lets no thread move and is not
/// final; "live" states (final, or some thread can step) are propagated
/// backwards over environment steps to a fixpoint, from `live` (a bit per
/// state: the layers' live states). None: a successor does not fit the
/// machine's widths.
/// (`m`: the machine, through its widths.)
fn stuck_states<const VW: usize, const SW: usize>(
    ctx: &Ctx,
    m: View<'_, VW, SW>,
    store: &Store,
    mut live: Vec<AtomicU64>,
) -> Option<(u64, Option<u32>)> {
    let n = store.len();
    live.resize_with(n.div_ceil(64).max(live.len()), || AtomicU64::new(0));
    let is_live = |i: u32| live[i as usize / 64].load(Ordering::Relaxed) & (1 << (i % 64)) != 0;
    let set_live = |i: u32| {
        live[i as usize / 64].fetch_or(1 << (i % 64), Ordering::Relaxed);
    };
    loop {
        let changed = AtomicBool::new(false);
        // Highest index first: a state's environment successors mostly
        // lie in later layers, so liveness found there reaches it in the
        // same round (RSP_Test8: 3 rounds instead of 12).
        (0..n as u32).into_par_iter().rev().filter(|&i| !is_live(i)).for_each_init(
            Default::default,
            |(next, reads), i| {
                let cur = store.get(i);
                m.reads_into(cur, reads);
                for &st in &ctx.env {
                    if m.env_step_with(cur, st, next, reads) {
                        if next.overflow {
                            ctx.widen.store(true, Ordering::Relaxed);
                            return;
                        }
                        let buf = &next.b;
                        if let Some(j) = store.find(store.hash(buf), buf) {
                            if is_live(j) {
                                set_live(i);
                                changed.store(true, Ordering::Relaxed);
                                return;
                            }
                        }
                    }
                }
            },
        );
        if ctx.widen.load(Ordering::Relaxed) {
            return None;
        }
        if !changed.load(Ordering::Relaxed) || ctx.check_interrupt() {
            break;
        }
    }
    let stuck: Vec<u32> = (0..n as u32).filter(|&i| !is_live(i)).collect();
    Some((stuck.len() as u64, stuck.first().copied()))
}

#[cfg(test)]
mod lists_tests {
    use super::relife;

    #[test]
    fn relife_keeps_the_allocation() {
        // What `ShardLists` keeps from layer to layer: an emptied list with
        // its allocation (no fresh pages every layer).
        let bytes = [7u8; 16];
        let mut v: Vec<(u64, &[u8])> = Vec::with_capacity(1000);
        v.push((1, &bytes[..]));
        let (ptr, cap) = (v.as_ptr() as usize, v.capacity());
        let w: Vec<(u64, &'static [u8])> = relife(v);
        assert!(w.is_empty());
        assert_eq!((w.as_ptr() as usize, w.capacity()), (ptr, cap));
    }
}
