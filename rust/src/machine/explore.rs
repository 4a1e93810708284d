//! The exhaustive explorer (SPEC sec. 7): breadth-first over canonical
//! state encodings, one layer at a time. A layer's states are expanded in
//! parallel against a read-only visited set; the new states are then
//! deduplicated keeping the first in (parent, step) order (so indices,
//! parents and traces do not depend on scheduling), appended to the
//! block arena, and inserted into the visited set's shards in parallel. Every state keeps its parent and step: the trace to any
//! state is shortest (breadth-first) and reconstructed on demand.

use super::state::{get_u, put_u, Machine, Packed};
use super::step::{Step, ThreadStep};
use crate::enumerate::{LimitOut, CANCEL_GENERATION};
use hashbrown::HashTable;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

fn yes() -> bool {
    true
}

#[derive(Deserialize, Debug, Clone)]
pub struct ExploreLimits {
    #[serde(default)]
    pub max_states: Option<u64>,
    #[serde(default)]
    pub max_seconds: Option<f64>,
    /// Look for states from which no final state is reachable.
    #[serde(default = "yes")]
    pub deadlocks: bool,
}

impl Default for ExploreLimits {
    fn default() -> Self {
        ExploreLimits { max_states: None, max_seconds: None, deadlocks: true }
    }
}

#[derive(Serialize, Debug)]
pub struct OutcomeOut {
    pub values: Vec<i64>,
    pub holds: bool,
    pub trace: Vec<Value>,
}

#[derive(Serialize, Debug)]
pub struct StuckOut {
    pub trace: Vec<Value>,
    /// Each unfinished thread and the pc it waits at.
    pub waiting: Vec<(usize, usize)>,
    pub state: Value,
}

#[derive(Serialize, Debug)]
pub struct FaultOut {
    pub message: String,
    pub trace: Vec<Value>,
}

#[derive(Serialize, Debug, Default)]
pub struct ExploreOut {
    pub complete: bool,
    pub limit: Option<LimitOut>,
    pub states: u64,
    pub transitions: u64,
    pub layers: u32,
    pub outcomes: Vec<OutcomeOut>,
    /// States from which no final state is reachable (None: not established).
    pub deadlocks: Option<u64>,
    pub deadlock: Option<StuckOut>,
    pub faults: Vec<FaultOut>,
    pub cut: u64,
    pub seconds: f64,
    pub bytes_per_state: f64,
    pub threads: usize,
}

const SHARDS: usize = 64;

/// States stored and layers done by the exploration now running (0, 0
/// before the first layer), for a progress display; readable from any
/// thread while `explore` runs.
pub static PROGRESS_STATES: AtomicU64 = AtomicU64::new(0);
pub static PROGRESS_LAYERS: AtomicU64 = AtomicU64::new(0);

fn shard(h: u64) -> usize {
    // Bits the tables themselves use least (hashbrown: low bits pick the
    // bucket, the top 7 are the tag).
    ((h >> 50) as usize) % SHARDS
}

/// The arena is a list of blocks of at most this many bytes (a record
/// that does not fit in the last block starts a new one): growing it never
/// copies and wastes at most one block.
const BLOCK_BITS: u32 = 22;
const BLOCK: usize = 1 << BLOCK_BITS;
/// Every `MARK`-th record's offset is kept; the others are found by
/// skipping records from there.
const MARK: usize = 8;

/// An arena offset: block number, then position in the block, in 40 bits.
type Offset = u64;

/// A set entry: a record's arena offset in 5 bytes.
type Entry = [u8; 5];

fn entry(o: Offset) -> Entry {
    let b = o.to_le_bytes();
    [b[0], b[1], b[2], b[3], b[4]]
}

fn offset(e: &Entry) -> Offset {
    u64::from_le_bytes([e[0], e[1], e[2], e[3], e[4], 0, 0, 0])
}

/// Every visited state: its record (length, then the bytes of its
/// encoding) in the arena, its parent and step, and a sharded hash set of
/// record offsets. A lookup goes from the set straight to the record (no
/// index table in between).
struct Store {
    blocks: Vec<Vec<u8>>,
    marks: Vec<Offset>,
    parent: Vec<u32>,
    step: Vec<u32>,
    shards: Vec<HashTable<Entry>>,
    hasher: foldhash::fast::FixedState,
}

/// The bytes of the record at offset o, and the offset just after it.
fn record(blocks: &[Vec<u8>], o: Offset) -> (&[u8], Offset) {
    let (k, mut i) = ((o >> BLOCK_BITS) as usize, (o as usize) & (BLOCK - 1));
    let block = &blocks[k];
    let len = get_u(block, &mut i) as usize;
    let end = i + len;
    let next = if end >= block.len() { ((k as u64) + 1) << BLOCK_BITS } else { o - (o & (BLOCK as u64 - 1)) + end as u64 };
    (&block[i..end], next)
}

impl Store {
    fn new() -> Store {
        Store {
            blocks: Vec::new(),
            marks: Vec::new(),
            parent: Vec::new(),
            step: Vec::new(),
            shards: (0..SHARDS).map(|_| HashTable::new()).collect(),
            hasher: foldhash::fast::FixedState::with_seed(0x68726620),
        }
    }
    fn len(&self) -> usize {
        self.parent.len()
    }
    fn offset_of(&self, i: u32) -> Offset {
        let mut o = self.marks[i as usize / MARK];
        for _ in 0..i as usize % MARK {
            o = record(&self.blocks, o).1;
        }
        o
    }
    fn get(&self, i: u32) -> &[u8] {
        record(&self.blocks, self.offset_of(i)).0
    }
    fn hash(&self, b: &[u8]) -> u64 {
        self.hasher.hash_one(b)
    }
    fn lookup(&self, h: u64, b: &[u8]) -> Option<Offset> {
        self.shards[shard(h)].find(h, |e| record(&self.blocks, offset(e)).0 == b).map(offset)
    }
    /// Whether the state is stored.
    fn contains(&self, h: u64, b: &[u8]) -> bool {
        self.lookup(h, b).is_some()
    }
    /// The index of a stored state.
    fn find(&self, h: u64, b: &[u8]) -> Option<u32> {
        let o = self.lookup(h, b)?;
        let m = self.marks.partition_point(|&x| x <= o) - 1;
        let mut i = m * MARK;
        let mut p = self.marks[m];
        while p != o {
            p = record(&self.blocks, p).1;
            i += 1;
        }
        Some(i as u32)
    }
    /// Append a state's record (not yet in the hash set); its set entry.
    fn push(&mut self, b: &[u8], parent: u32, step: u32) -> Entry {
        // The length prefix takes at most 10 bytes.
        let size = 10 + b.len();
        // A record starts below BLOCK in its block (offsets keep 22 bits of position).
        if self.blocks.last().map_or(true, |l| l.len() + size > l.capacity().min(BLOCK)) {
            // 4 KiB, doubling up to BLOCK: small explorations stay small.
            let cap = self.blocks.last().map_or(4096, |l| (2 * l.capacity()).min(BLOCK));
            self.blocks.push(Vec::with_capacity(cap.max(size)));
        }
        let kb = self.blocks.len() - 1;
        assert!(kb < 1 << (40 - BLOCK_BITS), "state arena beyond 1 TiB");
        let last = &mut self.blocks[kb];
        let o = ((kb as u64) << BLOCK_BITS) | last.len() as u64;
        put_u(last, b.len() as u64);
        last.extend_from_slice(b);
        if self.parent.len() % MARK == 0 {
            self.marks.push(o);
        }
        self.parent.push(parent);
        self.step.push(step);
        entry(o)
    }
    /// Put entries made by `push` into the hash set, shard by shard in parallel.
    fn insert(&mut self, buckets: Vec<Vec<(u64, Entry)>>) {
        let Store { blocks, shards, hasher, .. } = self;
        let (blocks, hasher) = (&*blocks, &*hasher);
        let rehash = |e: &Entry| hasher.hash_one(record(blocks, offset(e)).0);
        shards.par_iter_mut().zip(buckets.into_par_iter()).for_each(|(table, bucket)| {
            table.reserve(bucket.len(), rehash);
            for (h, e) in bucket {
                table.insert_unique(h, e, rehash);
            }
        });
    }
    /// Bytes held: blocks, marks, parents and steps, and the hash set
    /// (hashbrown: a bucket per 7/8 of capacity, 5 bytes and a control byte).
    fn bytes_used(&self) -> usize {
        let table: usize = self.shards.iter().map(|t| t.capacity() * 8 / 7 * 6).sum();
        let blocks: usize = self.blocks.iter().map(|b| b.capacity()).sum();
        blocks + self.marks.capacity() * 8 + self.parent.capacity() * 4 + self.step.capacity() * 4 + table
    }
}

/// A successor not yet in the store, found while expanding a layer.
struct Cand {
    h: u64,
    local: u32,
    start: u32,
    len: u32,
    parent: u32,
    step: u32,
}

struct Local {
    next: Packed,
    bytes: Vec<u8>,
    cands: Vec<Cand>,
    finals: Vec<u32>,
    live: Vec<u32>,
    faults: Vec<(u32, u32, String)>,
    cut: u64,
    transitions: u64,
    expanded: u64,
}

struct Ctx<'a> {
    m: &'a Machine,
    env: Vec<Step>,
    stop: AtomicBool,
    /// A successor overflowed the machine's field widths: start again wider.
    widen: AtomicBool,
    limit: std::sync::Mutex<Option<LimitOut>>,
    deadline: Option<Instant>,
    max_seconds: f64,
    generation: u64,
}

impl<'a> Ctx<'a> {
    fn check_interrupt(&self) -> bool {
        if self.stop.load(Ordering::Relaxed) {
            return true;
        }
        let hit = if CANCEL_GENERATION.load(Ordering::Relaxed) != self.generation {
            Some(LimitOut { which: "interrupted".into(), detail: "cancelled (Ctrl-C)".into() })
        } else if self.deadline.map_or(false, |d| Instant::now() > d) {
            Some(LimitOut { which: "time".into(), detail: format!("more than {} seconds", self.max_seconds) })
        } else {
            None
        };
        if let Some(h) = hit {
            self.stop.store(true, Ordering::Relaxed);
            self.limit.lock().unwrap().get_or_insert(h);
            return true;
        }
        false
    }

    fn local(&self) -> Local {
        Local {
            next: Packed::default(),
            bytes: Vec::new(),
            cands: Vec::new(),
            finals: Vec::new(),
            live: Vec::new(),
            faults: Vec::new(),
            cut: 0,
            transitions: 0,
            expanded: 0,
        }
    }

    /// Expand state i: record it as final, or emit its successors that are
    /// not yet in the store.
    fn expand(&self, store: &Store, i: u32, l: &mut Local) {
        l.expanded += 1;
        if l.expanded % 1024 == 0 && self.check_interrupt() {
            return;
        }
        let m = self.m;
        let cur = store.get(i);
        if m.is_final(cur) {
            l.finals.push(i);
            l.live.push(i);
            return;
        }
        let n = m.nthreads();
        // Persistent-set reduction (`reduce`): a step that commutes with
        // every other step and that nothing disables is taken alone.
        let alone = if m.prog.reduce { m.invisible_step(cur) } else { None };
        if let Some(st @ (Step::DequeueL1(_) | Step::DequeueL2(_))) = alone {
            if m.env_step(cur, st, &mut l.next) {
                self.emit(store, i, st, l);
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
            match m.thread_step(cur, t, &mut l.next) {
                ThreadStep::Stepped => {
                    progress = true;
                    self.emit(store, i, Step::Thread(t), l);
                }
                ThreadStep::Cut => {
                    progress = true;
                    l.cut += 1;
                }
                ThreadStep::Fault(msg) => {
                    progress = true;
                    l.faults.push((i, Step::Thread(t).pack(), msg));
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
        for &st in &self.env {
            if m.env_step(cur, st, &mut l.next) {
                self.emit(store, i, st, l);
            }
        }
    }

    fn emit(&self, store: &Store, parent: u32, step: Step, l: &mut Local) {
        l.transitions += 1;
        let next = &l.next;
        if next.overflow {
            self.widen.store(true, Ordering::Relaxed);
            self.stop.store(true, Ordering::Relaxed);
            return;
        }
        let h = store.hash(&next.b);
        if !store.contains(h, &next.b) {
            let start = l.bytes.len() as u32;
            l.bytes.extend_from_slice(&next.b);
            l.cands.push(Cand { h, local: 0, start, len: next.b.len() as u32, parent, step: step.pack() });
        }
    }
}

/// For each candidate, whether it is the first with its bytes: shard by
/// shard in parallel, each with a table of the candidates seen so far.
fn first_of_each<'c>(cands: &[Cand], bytes: &(impl Fn(&Cand) -> &'c [u8] + Sync)) -> Vec<bool> {
    let mut by_shard: Vec<Vec<u32>> = vec![Vec::new(); SHARDS];
    for (k, c) in cands.iter().enumerate() {
        by_shard[shard(c.h)].push(k as u32);
    }
    let firsts: Vec<Vec<u32>> = by_shard
        .into_par_iter()
        .map(|ks| {
            let mut seen: HashTable<u32> = HashTable::with_capacity(ks.len());
            let mut out = Vec::new();
            for k in ks {
                let c = &cands[k as usize];
                let b = bytes(c);
                let same = |&j: &u32| cands[j as usize].h == c.h && bytes(&cands[j as usize]) == b;
                if let hashbrown::hash_table::Entry::Vacant(v) = seen.entry(c.h, same, |&j| cands[j as usize].h) {
                    v.insert(k);
                    out.push(k);
                }
            }
            out
        })
        .collect();
    let mut first = vec![false; cands.len()];
    for k in firsts.into_iter().flatten() {
        first[k as usize] = true;
    }
    first
}

/// Explore every reachable state of the machine: packed with the
/// machine's field widths, and again with wider ones each time a state
/// does not fit (a value, pc or fifo length too large).
pub fn explore(m: &Machine, limits: &ExploreLimits) -> ExploreOut {
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
                    return ExploreOut { limit: Some(limit), threads: rayon::current_num_threads(), ..Default::default() };
                }
            },
        }
    }
}

/// The exploration with m's widths; None if a state does not fit them.
fn explore_packed(m: &Machine, limits: &ExploreLimits, start: Instant) -> Option<ExploreOut> {
    let ctx = Ctx {
        m,
        env: m.env_steps(),
        stop: AtomicBool::new(false),
        widen: AtomicBool::new(false),
        limit: std::sync::Mutex::new(None),
        deadline: limits.max_seconds.map(|s| start + std::time::Duration::from_secs_f64(s.max(0.0))),
        max_seconds: limits.max_seconds.unwrap_or(0.0),
        generation: CANCEL_GENERATION.load(Ordering::SeqCst),
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
    let mut live_idx: Vec<u32> = Vec::new();
    let mut finals: Vec<u32> = Vec::new();
    let mut faults: Vec<(u32, u32, String)> = Vec::new();
    let (mut lo, mut hi) = (0u32, 1u32);
    PROGRESS_STATES.store(1, Ordering::Relaxed);
    PROGRESS_LAYERS.store(0, Ordering::Relaxed);
    while lo < hi {
        out.layers += 1;
        let locals: Vec<Local> = (lo..hi)
            .into_par_iter()
            .with_min_len(512)
            .fold(
                || ctx.local(),
                |mut l, i| {
                    if !ctx.stop.load(Ordering::Relaxed) {
                        ctx.expand(&store, i, &mut l);
                    }
                    l
                },
            )
            .collect();
        if ctx.widen.load(Ordering::Relaxed) {
            return None;
        }
        if ctx.check_interrupt() {
            break;
        }
        for l in &locals {
            out.transitions += l.transitions;
            out.cut += l.cut;
            live_idx.extend_from_slice(&l.live);
            finals.extend_from_slice(&l.finals);
            faults.extend(l.faults.iter().cloned());
        }
        // The layer's candidates, locals in order: each local covers a
        // range of parents in order and emits in step order, so this is
        // (parent, step) order whatever the scheduling. The first of each
        // distinct state is kept (its smallest (parent, step)).
        let cands: Vec<Cand> =
            locals.iter().enumerate().flat_map(|(k, l)| l.cands.iter().map(move |c| Cand { local: k as u32, ..*c })).collect();
        let bytes = |c: &Cand| &locals[c.local as usize].bytes[c.start as usize..(c.start + c.len) as usize];
        let first = first_of_each(&cands, &bytes);
        let fresh = first.iter().filter(|&&f| f).count();
        if let Some(max) = limits.max_states {
            if store.len() as u64 + fresh as u64 > max {
                out.limit = Some(LimitOut { which: "states".into(), detail: format!("more than {max} states") });
                break;
            }
        }
        let mut buckets: Vec<Vec<(u64, Entry)>> = vec![Vec::new(); SHARDS];
        for (c, _) in cands.iter().zip(&first).filter(|p| *p.1) {
            let e = store.push(bytes(c), c.parent, c.step);
            buckets[shard(c.h)].push((c.h, e));
        }
        drop(locals);
        store.insert(buckets);
        lo = hi;
        hi = store.len() as u32;
        PROGRESS_STATES.store(hi as u64, Ordering::Relaxed);
        PROGRESS_LAYERS.store(out.layers as u64, Ordering::Relaxed);
    }
    out.limit = out.limit.or_else(|| ctx.limit.lock().unwrap().take());
    out.complete = out.limit.is_none();
    out.states = store.len() as u64;
    // Outcomes: the first (breadth-first) final state of each.
    let mut by_outcome: BTreeMap<Vec<i64>, u32> = BTreeMap::new();
    finals.sort_unstable();
    for &i in &finals {
        by_outcome.entry(m.outcome(store.get(i))).or_insert(i);
    }
    for (values, i) in by_outcome {
        let holds = m.prog.condition.eval(&values);
        out.outcomes.push(OutcomeOut { values, holds, trace: trace(m, &store, i, None) });
    }
    faults.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    for (i, st, msg) in faults.into_iter().take(8) {
        out.faults.push(FaultOut { message: msg, trace: trace(m, &store, i, Some(st)) });
    }
    if out.complete && limits.deadlocks {
        let (count, first) = stuck_states(&ctx, &store, &live_idx)?;
        out.deadlocks = Some(count);
        out.deadlock = first.map(|i| {
            let s = store.get(i);
            let waiting = (0..m.nthreads()).filter(|&t| m.pc(s, t) < m.prog.threads[t].code.len()).map(|t| (t, m.pc(s, t))).collect();
            StuckOut { trace: trace(m, &store, i, None), waiting, state: describe_state(m, &m.unpack(s)) }
        });
    }
    out.bytes_per_state = store.bytes_used() as f64 / store.len().max(1) as f64;
    out.seconds = start.elapsed().as_secs_f64();
    Some(out)
}

/// States from which no final state can be reached. Thread steps only go
/// forward (branches are forward), so such a state exists iff one exists
/// whose every environment-reachable state lets no thread move and is not
/// final; "live" states (final, or some thread can step) are propagated
/// backwards over environment steps to a fixpoint. None: a successor does
/// not fit the machine's widths.
fn stuck_states(ctx: &Ctx, store: &Store, live_idx: &[u32]) -> Option<(u64, Option<u32>)> {
    let n = store.len();
    let live: Vec<AtomicU64> = (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
    let is_live = |i: u32| live[i as usize / 64].load(Ordering::Relaxed) & (1 << (i % 64)) != 0;
    let set_live = |i: u32| {
        live[i as usize / 64].fetch_or(1 << (i % 64), Ordering::Relaxed);
    };
    for &i in live_idx {
        set_live(i);
    }
    let m = ctx.m;
    loop {
        let changed = AtomicBool::new(false);
        (0..n as u32).into_par_iter().filter(|&i| !is_live(i)).for_each_init(Packed::default, |next, i| {
            let cur = store.get(i);
            for &st in &ctx.env {
                if m.env_step(cur, st, next) {
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
        });
        if ctx.widen.load(Ordering::Relaxed) {
            return None;
        }
        if !changed.load(Ordering::Relaxed) {
            break;
        }
    }
    let stuck: Vec<u32> = (0..n as u32).filter(|&i| !is_live(i)).collect();
    Some((stuck.len() as u64, stuck.first().copied()))
}

/// The steps from the initial state to state i (then `last`, if given).
fn trace(m: &Machine, store: &Store, i: u32, last: Option<u32>) -> Vec<Value> {
    let mut chain = Vec::new();
    let mut j = i;
    while store.parent[j as usize] != u32::MAX {
        chain.push((store.parent[j as usize], store.step[j as usize]));
        j = store.parent[j as usize];
    }
    chain.reverse();
    if let Some(st) = last {
        chain.push((i, st));
    }
    let mut next = Packed::default();
    chain.into_iter().map(|(p, st)| describe_step(m, store.get(p), Step::unpack(st), &mut next)).collect()
}

/// A step as JSON, with the values it moved (read from the state before it).
pub fn describe_step(m: &Machine, packed: &[u8], st: Step, next: &mut Packed) -> Value {
    let na = m.naddr;
    let s = m.unpack(packed);
    let loc = |a: usize| m.prog.locations[a].name.clone();
    // The head of a fifo: a FLUSH marker, or an address written back if dirty.
    let dequeue = |mut v: Value, head: u16, cache: &[super::state::Line]| {
        let e = head as usize;
        if e >= na {
            v["flush"] = json!(e - na);
        } else {
            v["loc"] = json!(loc(e));
            v["wrote"] = json!(cache[e].dirty());
            v["val"] = json!(cache[e].val);
        }
        v
    };
    match st {
        Step::Thread(t) => {
            let pc = s.pc[t] as usize;
            let r = m.thread_step(packed, t, next);
            let mut v = json!({"kind": "thread", "thread": t, "pc": pc});
            if let ThreadStep::Fault(msg) = r {
                v["fault"] = json!(msg);
            } else if matches!(r, ThreadStep::Stepped) {
                if let Some(dst) = match &m.prog.threads[t].code[pc] {
                    super::program::MInstr::Ld { dst, .. } => Some(*dst),
                    super::program::MInstr::Rmw { dst: Some(d), .. } => Some(*d),
                    _ => None,
                } {
                    v["reg"] = json!(dst);
                    v["val"] = json!(m.reg(&next.b, t, dst));
                }
            }
            v
        }
        Step::FetchL1(w, a) => {
            json!({"kind": "fetch_l1", "wg": w, "loc": loc(a), "val": s.l2[m.wg_dev[w] * na + a].val})
        }
        Step::FetchL2(d, a) => {
            json!({"kind": "fetch_l2", "dev": d, "loc": loc(a), "val": s.mem[a]})
        }
        Step::DequeueL1(w) => dequeue(json!({"kind": "dequeue_l1", "wg": w}), s.l1_fifo[w][0], &s.l1[w * na..]),
        Step::DequeueL2(d) => dequeue(json!({"kind": "dequeue_l2", "dev": d}), s.l2_fifo[d][0], &s.l2[d * na..]),
        Step::WritebackL1(w, a) => {
            json!({"kind": "writeback_l1", "wg": w, "loc": loc(a), "val": s.l1[w * na + a].val})
        }
        Step::WritebackL2(d, a) => {
            json!({"kind": "writeback_l2", "dev": d, "loc": loc(a), "val": s.l2[d * na + a].val})
        }
        Step::EvictL1(w, a) => json!({"kind": "evict_l1", "wg": w, "loc": loc(a)}),
        Step::EvictL2(d, a) => json!({"kind": "evict_l2", "dev": d, "loc": loc(a)}),
    }
}

/// A state as JSON (for a deadlock report).
pub fn describe_state(m: &Machine, s: &super::state::State) -> Value {
    let na = m.naddr;
    let cache = |lines: &[super::state::Line], k: usize| -> Value {
        let mut o = serde_json::Map::new();
        for a in 0..na {
            let l = lines[k * na + a];
            if l.present() {
                let st = format!("{}{}", if l.dirty() { "D" } else { "C" }, if l.valid() { "V" } else { "I" });
                o.insert(m.prog.locations[a].name.clone(), json!([l.val, st]));
            }
        }
        Value::Object(o)
    };
    let fifo = |f: &Vec<u16>| -> Value {
        f.iter()
            .map(|&e| {
                let e = e as usize;
                if e >= na {
                    json!(format!("FLUSH({})", m.prog.threads[e - na].name))
                } else {
                    json!(m.prog.locations[e].name)
                }
            })
            .collect()
    };
    json!({
        "pc": s.pc,
        "l1": (0..m.nwg).map(|w| json!({"cache": cache(&s.l1, w), "fifo": fifo(&s.l1_fifo[w]), "rmw_lock": s.rmw_lock[w]})).collect::<Vec<_>>(),
        "l2": (0..m.ndev).map(|d| json!({"cache": cache(&s.l2, d), "fifo": fifo(&s.l2_fifo[d]),
            "locks": (0..na).filter(|&a| s.lockfile[d * na + a] != 0).map(|a| json!([m.prog.locations[a].name, s.lockfile[d * na + a] - 1])).collect::<Vec<_>>()})).collect::<Vec<_>>(),
        "mem": s.mem,
    })
}

#[cfg(test)]
mod store_tests {
    use super::*;

    #[test]
    fn records_across_blocks_come_back_by_index_and_by_lookup() {
        // Records of many lengths (1- and 2-byte length prefixes), enough
        // to fill several doubling blocks; every one read back by index
        // (skipping from a mark) and found by its bytes, to its index.
        let mut store = Store::new();
        let mut all: Vec<Vec<u8>> = Vec::new();
        let mut buckets: Vec<Vec<(u64, Entry)>> = vec![Vec::new(); SHARDS];
        let mut x: u64 = 12345;
        for i in 0..5000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let len = 1 + (x >> 33) as usize % 300;
            let mut b: Vec<u8> = (0..len).map(|k| (x >> (k % 56)) as u8).collect();
            b.extend_from_slice(&i.to_le_bytes()); // distinct records
            let h = store.hash(&b);
            let e = store.push(&b, i, i + 1);
            buckets[shard(h)].push((h, e));
            all.push(b);
        }
        store.insert(buckets);
        assert!(store.blocks.len() > 5);
        for (i, b) in all.iter().enumerate() {
            assert_eq!(store.get(i as u32), &b[..]);
            assert_eq!(store.find(store.hash(b), b), Some(i as u32));
            assert_eq!(store.parent[i], i as u32);
        }
        assert_eq!(store.find(store.hash(b"absent"), b"absent"), None);
    }
}
