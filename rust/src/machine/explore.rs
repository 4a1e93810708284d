//! The exhaustive explorer ([RSP15] sec. 5): breadth-first over packed
//! states, one layer at a time. A layer's states are expanded in parallel
//! into all their successors; then, shard by shard in parallel, the
//! successors are deduplicated keeping the first in (parent, step) order
//! (so indices, parents and traces do not depend on scheduling) and
//! looked up in the visited set in prefetched batches; the new ones are
//! appended to the block arena and inserted into the visited set's shards
//! in parallel. Every state keeps its parent and step: the trace to any
//! state is shortest (breadth-first) and reconstructed on demand.

use super::state::{get_u, put_u, varint, varint_len, Machine, Packed, View};
use super::step::{in_set, Step, ThreadStep};
use crate::limits::{Budget, ExploreLimits, LimitOut};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

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

/// Seconds spent in each part of an exploration, summed over layers (a
/// profile: where the time goes, and how each part scales with threads).
#[derive(Serialize, Debug, Default, Clone)]
pub struct PhaseSeconds {
    /// Expanding every state of a layer into its successors (`Ctx::expand_share`).
    pub expand: f64,
    /// Looking the successors up in the visited set (`enter_layer`).
    pub enter: f64,
    /// Appending the new states to the arena and settling their slots.
    pub store: f64,
    /// Finding the outcomes and faults and their traces.
    pub outcomes: f64,
    /// The search for states that cannot finish (`stuck_states`).
    pub deadlocks: f64,
}

#[derive(Serialize, Debug, Default)]
pub struct ExploreOut {
    pub complete: bool,
    pub limit: Option<LimitOut>,
    pub states: u64,
    pub transitions: u64,
    /// Breadth-first layers expanded (the last one finds nothing new when
    /// the exploration is complete).
    pub layers: u32,
    /// The most steps of a shortest trace to a state stored: layers - 1.
    pub depth: u32,
    pub outcomes: Vec<OutcomeOut>,
    /// States from which no final state is reachable (None: not established).
    pub deadlocks: Option<u64>,
    pub deadlock: Option<StuckOut>,
    pub faults: Vec<FaultOut>,
    pub cut: u64,
    pub seconds: f64,
    pub bytes_per_state: f64,
    pub threads: usize,
    pub phase_seconds: PhaseSeconds,
}

const SHARDS: usize = 64;

/// States stored and layers done by the exploration now running (0, 0
/// before the first layer), for a progress display; readable from any
/// thread while `explore` runs.
pub static PROGRESS_STATES: AtomicU64 = AtomicU64::new(0);
pub static PROGRESS_LAYERS: AtomicU64 = AtomicU64::new(0);

/// A state's shard: the low bits of its hash (a shard's table uses the
/// top 28, `Table`).
fn shard(h: u64) -> usize {
    h as usize % SHARDS
}

/// The arena is a list of blocks of at most this many bytes (a record
/// that does not fit in the last block starts a new one): growing it never
/// copies and wastes at most one block.
const BLOCK_BITS: u32 = 22;
const BLOCK: usize = 1 << BLOCK_BITS;
/// Every `MARK`-th record's offset is kept; the others are found by
/// skipping records from there.
const MARK: usize = 8;

/// An arena offset: block number, then position in the block (`BLOCK_BITS`), in 36 bits.
type Offset = u64;

/// Bits of a slot that hold a record's arena offset plus one (an arena
/// of up to 32 GiB, `PENDING`); the other 28 hold the top 28 bits of its hash.
const OFF_BITS: u32 = 36;
const OFF_MASK: u64 = (1 << OFF_BITS) - 1;
/// A slot whose offset field has this bit is pending (`Table::enter`):
/// the rest is the index of a successor not yet in the arena. Arena
/// offsets stay below it (32 GiB).
const PENDING: u64 = 1 << (OFF_BITS - 1);

/// Most slots a table fills before it grows: 7 in 10 (it grows to about
/// half full).
const LOAD: (usize, usize) = (7, 10);

/// One shard of the visited set: open addressing with linear probing over
/// its slots, each 0 (empty) or a record's arena offset plus one under the
/// top 28 bits of its hash (the tag). The home slot is the tag scaled to
/// the table's size, so the table grows without reading records; a probe
/// compares a record only when the whole tag matches.
#[derive(Default)]
struct Table {
    slots: Vec<u64>,
    len: usize,
}

impl Table {
    fn home(&self, h: u64) -> usize {
        (((h >> OFF_BITS) * self.slots.len() as u64) >> (64 - OFF_BITS)) as usize
    }
    /// The slot after i, round the end.
    fn after(&self, i: usize) -> usize {
        if i + 1 == self.slots.len() {
            0
        } else {
            i + 1
        }
    }
    fn tagged(h: u64) -> u64 {
        h & !OFF_MASK
    }
    /// The first slot from i on that is empty or carries h's tag.
    fn scan(&self, h: u64, mut i: usize) -> usize {
        let t = Table::tagged(h);
        loop {
            let v = self.slots[i];
            if v == 0 || v & !OFF_MASK == t {
                return i;
            }
            i = self.after(i);
        }
    }
    /// Probe from slot i on for the record b with hash h.
    fn probe(&self, blocks: &[Vec<u8>], h: u64, b: &[u8], mut i: usize) -> Option<Offset> {
        loop {
            i = self.scan(h, i);
            let v = self.slots[i];
            if v == 0 {
                return None;
            }
            debug_assert!(v & PENDING == 0, "find while a layer is pending");
            if record(blocks, (v & OFF_MASK) - 1).0 == b {
                return Some((v & OFF_MASK) - 1);
            }
            i = self.after(i);
        }
    }
    fn find(&self, blocks: &[Vec<u8>], h: u64, b: &[u8]) -> Option<Offset> {
        if self.slots.is_empty() {
            return None;
        }
        self.probe(blocks, h, b, self.home(h))
    }
    /// Enter each item (hash, bytes), in order, unless the table holds
    /// its bytes already (a stored record, or an earlier item): the new
    /// ones' (item index, slot), where they wait as pending (`PENDING`
    /// and the item's index) until `settle` gives them their arena
    /// offsets. One probe per item answers "stored?", "earlier in the
    /// layer?" and "where does it go?". As `find` then `insert_unique`
    /// one by one (the reference, `enter_is_find_then_insert` test), but
    /// with each item's bytes and slot and then the slot's record
    /// prefetched well before they are read.
    fn enter(&mut self, blocks: &[Vec<u8>], items: &[(u64, &[u8])], fresh: &mut Vec<(u32, usize)>) {
        // A software pipeline AHEAD items deep: item j's home slot is
        // fetched, AHEAD items later its first candidate slot is found and
        // that slot's record fetched, and AHEAD items after that it is
        // entered, so that its memory accesses overlap others' work.
        const AHEAD: usize = 16;
        const RING: usize = 2 * AHEAD;
        assert!((items.len() as u64) < PENDING, "layer too large for pending entries");
        // Slots stay where they are until `settle`: nothing grows meanwhile.
        self.reserve(items.len());
        let n = items.len();
        let mut at = [0usize; RING];
        for j in 0..n + RING {
            // Enter item q: from its first slot that is empty or has its
            // tag on. Entering an item fills only empty slots, so such a
            // slot stays a valid starting point for the items after it.
            if j >= RING {
                let q = j - RING;
                let (h, b) = items[q];
                let mut i = at[q % RING];
                loop {
                    i = self.scan(h, i);
                    let v = self.slots[i] & OFF_MASK;
                    if self.slots[i] == 0 {
                        self.slots[i] = Table::tagged(h) | PENDING | q as u64;
                        self.len += 1;
                        fresh.push((q as u32, i));
                        break;
                    }
                    let held =
                        if v & PENDING != 0 { items[(v & !PENDING) as usize].1 } else { record(blocks, v - 1).0 };
                    if held == b {
                        break;
                    }
                    i = self.after(i);
                }
            }
            // Item q's first slot that is empty or has its tag; its record fetched.
            if j >= AHEAD && j - AHEAD < n {
                let q = j - AHEAD;
                let i = self.scan(items[q].0, at[q % RING]);
                at[q % RING] = i;
                let v = self.slots[i] & OFF_MASK;
                if v != 0 && v & PENDING == 0 {
                    // (The record is as long as the item, plus its length.)
                    let (o, len) = (v - 1, items[q].1.len() + 1);
                    let block = &blocks[(o >> BLOCK_BITS) as usize];
                    let at = (o as usize) & (BLOCK - 1);
                    prefetch_bytes(&block[at..(at + len).min(block.len())]);
                }
            }
            // Item j's home slot and bytes fetched (a shard's items are
            // strided through the layer's successors).
            if j < n {
                at[j % RING] = self.home(items[j].0);
                prefetch(&self.slots[at[j % RING]]);
                prefetch_bytes(items[j].1);
            }
        }
    }
    /// The pending entry in `slot` is the record at offset o.
    fn settle(&mut self, slot: usize, o: Offset) {
        debug_assert!(self.slots[slot] & PENDING != 0 && o + 1 < PENDING);
        self.slots[slot] = (self.slots[slot] & !OFF_MASK) | (o + 1);
    }
    /// Forget the pending entries (a layer not stored after all); the
    /// table shrinks back to the size `reserve` gives its entries.
    fn drop_pending(&mut self) {
        let old = std::mem::take(&mut self.slots);
        self.len = 0;
        let kept: Vec<u64> = old.into_iter().filter(|&v| v != 0 && v & PENDING == 0).collect();
        self.reserve(kept.len());
        for v in kept {
            self.place(v);
            self.len += 1;
        }
    }
    /// Room for `extra` more entries; on growth every slot is placed again
    /// by its tag.
    fn reserve(&mut self, extra: usize) {
        let need = self.len + extra;
        if need * LOAD.1 <= self.slots.len() * LOAD.0 {
            return;
        }
        let cap = (need * LOAD.1 / LOAD.0 * 14 / 10).max(16);
        let old = std::mem::replace(&mut self.slots, zeroed_slots(cap));
        for v in old.into_iter().filter(|&v| v != 0) {
            self.place(v);
        }
    }
    fn place(&mut self, v: u64) {
        let mut i = self.home(v);
        while self.slots[i] != 0 {
            i = self.after(i);
        }
        self.slots[i] = v;
    }
    /// Add an entry known to be absent (after `reserve`).
    fn insert_unique(&mut self, h: u64, o: Offset) {
        debug_assert!(o < OFF_MASK);
        self.place(Table::tagged(h) | (o + 1));
        self.len += 1;
    }
}

/// Ask for the cache line of x (a hint: no effect on results).
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, and x is a valid reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(x as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// v, its allocation backed by huge pages where the system does so on
/// request (Linux's transparent huge pages in `madvise` mode): the arena
/// and the tables are read at random, and with 4 KiB pages nearly every
/// such read also misses the TLB. A hint: no effect on results.
fn huge<T>(v: Vec<T>) -> Vec<T> {
    const HUGE: usize = 2 << 20;
    let bytes = v.capacity() * std::mem::size_of::<T>();
    #[cfg(target_os = "linux")]
    if bytes >= HUGE {
        // The whole 2 MiB pages inside the allocation.
        let start = (v.as_ptr() as usize).next_multiple_of(HUGE);
        let end = (v.as_ptr() as usize + bytes) & !(HUGE - 1);
        if end > start {
            // SAFETY: the range lies within v's allocation; MADV_HUGEPAGE
            // changes no contents and its failure is harmless.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    let _ = (bytes, HUGE);
    v
}

/// `cap` empty slots, every page of them first touched by a write. (A
/// zeroed allocation's pages are mapped on first touch; touched by a read
/// first, a page is mapped to the shared zero page, and the write that
/// follows must replace that mapping and flush it from every CPU running
/// the process: with 2 threads, one interrupt of the other CPU per 4 KiB,
/// in the middle of `Table::enter`.)
fn zeroed_slots(cap: usize) -> Vec<u64> {
    let mut v = huge(vec![0u64; cap]);
    for k in (0..cap).step_by(4096 / 8) {
        // SAFETY: k < cap = v.len(); a volatile write of the value already
        // there (the compiler may not drop it: it is the page's first touch).
        unsafe { std::ptr::write_volatile(v.as_mut_ptr().add(k), 0) };
    }
    v
}

/// Ask for every cache line of b.
#[inline(always)]
fn prefetch_bytes(b: &[u8]) {
    if let Some(first) = b.first() {
        prefetch(first);
        let mut i = 64 - (b.as_ptr() as usize & 63);
        while i < b.len() {
            prefetch(&b[i]);
            i += 64;
        }
    }
}

/// Every visited state: its record (length, then the bytes of its
/// encoding) in the arena, its parent and step, and a sharded hash set of
/// record offsets. A lookup goes from the set straight to the record (no
/// index table in between).
struct Store {
    blocks: Vec<Vec<u8>>,
    marks: Vec<Offset>,
    parent: Vec<u32>,
    /// The step number (`Ctx::steps`) from the parent.
    step: Vec<u16>,
    shards: Vec<Table>,
    hasher: foldhash::fast::FixedState,
}

/// Room in v for `extra` more values: its capacity the next power of two.
fn grow<T>(v: &mut Vec<T>, extra: usize) {
    let need = v.len() + extra;
    if need > v.capacity() {
        v.reserve_exact(need.next_power_of_two() - v.len());
    }
}

/// The arena bytes of a record of `len` bytes: its length prefix, then them.
fn record_size(len: usize) -> usize {
    varint_len(len as u64) + len
}

/// The bytes of the record at offset o, and the offset just after it.
fn record(blocks: &[Vec<u8>], o: Offset) -> (&[u8], Offset) {
    let (k, mut i) = ((o >> BLOCK_BITS) as usize, (o as usize) & (BLOCK - 1));
    let block = &blocks[k];
    let len = get_u(block, &mut i) as usize;
    let end = i + len;
    let next =
        if end >= block.len() { ((k as u64) + 1) << BLOCK_BITS } else { o - (o & (BLOCK as u64 - 1)) + end as u64 };
    (&block[i..end], next)
}

impl Store {
    fn new() -> Store {
        Store {
            blocks: Vec::new(),
            marks: Vec::new(),
            parent: Vec::new(),
            step: Vec::new(),
            shards: (0..SHARDS).map(|_| Table::default()).collect(),
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
    #[inline(always)]
    fn hash(&self, b: &[u8]) -> u64 {
        self.hasher.hash_one(b)
    }
    fn lookup(&self, h: u64, b: &[u8]) -> Option<Offset> {
        self.shards[shard(h)].find(&self.blocks, h, b)
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
    /// An empty block for the arena, for a record of `size` bytes at
    /// least: 4 KiB, doubling up to BLOCK, so small explorations stay small.
    fn next_block(&self, size: usize) -> Vec<u8> {
        let cap = self.blocks.last().map_or(4096, |l| (2 * l.capacity()).min(BLOCK));
        huge(Vec::with_capacity(cap.max(size)))
    }
    /// Where the next record goes, `len` bytes of encoding when the last
    /// block holds `used` bytes: after them if it fits, else at the start
    /// of a new block. Its offset (its bytes are written by the caller).
    #[inline(always)]
    fn lay_out(&mut self, used: usize, len: usize) -> Offset {
        // The length prefix takes at most 10 bytes; a record starts below
        // BLOCK in its block (offsets keep 22 bits of position).
        let size = 10 + len;
        let fits = self.blocks.last().is_some_and(|l| used + size <= l.capacity().min(BLOCK));
        if !fits {
            let block = self.next_block(size);
            self.blocks.push(block);
        }
        let kb = self.blocks.len() - 1;
        assert!(kb < 1 << (OFF_BITS - 1 - BLOCK_BITS), "state arena beyond 32 GiB");
        ((kb as u64) << BLOCK_BITS) | if fits { used as u64 } else { 0 }
    }
    /// Note the next state: its record's offset (as a mark every `MARK`
    /// states), its parent and step.
    fn note(&mut self, o: Offset, parent: u32, step: u16) {
        if self.parent.len().is_multiple_of(MARK) {
            self.marks.push(o);
        }
        self.parent.push(parent);
        self.step.push(step);
    }
    /// Append a state's record (not yet in the hash set); its offset.
    fn push(&mut self, b: &[u8], parent: u32, step: u16) -> Offset {
        let o = self.lay_out(self.blocks.last().map_or(0, |l| l.len()), b.len());
        self.note(o, parent, step);
        let last = self.blocks.last_mut().expect("lay_out makes a block");
        put_u(last, b.len() as u64);
        last.extend_from_slice(b);
        o
    }
    /// Append records in order, each (bytes, parent, step): the same
    /// blocks, marks and offsets as `push` one by one (the reference,
    /// `push_all_is_push_one_by_one` test), but laid out and written in
    /// parallel. Records go in groups of `GROUP` consecutive ones: a group
    /// that fits whole in the last block is one run of consecutive bytes;
    /// only a group that may cross into a new block is laid out one by
    /// one, as `push` would, and cut into runs where its block changes.
    /// Each run is then written by one worker: its records' bytes (the
    /// copy, and the first touch of the new pages, spread over the
    /// workers even when a layer fits in one block), offsets, parents,
    /// steps and marks. Their offsets.
    fn push_all<'c>(&mut self, n: usize, rec: impl Fn(usize) -> (&'c [u8], u32, u16) + Sync) -> Vec<Offset> {
        const GROUP: usize = 1024;
        /// Records `recs`, consecutive in one block from offset `at`, `bytes` long.
        struct Run {
            recs: std::ops::Range<usize>,
            at: Offset,
            bytes: usize,
        }
        let group = |g: usize| g * GROUP..n.min(g * GROUP + GROUP);
        let total: Vec<usize> = (0..n.div_ceil(GROUP))
            .into_par_iter()
            .map(|g| group(g).map(|j| record_size(rec(j).0.len())).sum())
            .collect();
        let kb0 = self.blocks.len().saturating_sub(1);
        // The length each block will have, from kb0 on.
        let mut len: Vec<usize> = self.blocks.get(kb0).map(|b| b.len()).into_iter().collect();
        let mut runs: Vec<Run> = Vec::with_capacity(total.len());
        for (g, &t) in total.iter().enumerate() {
            let used = len.last().copied().unwrap_or(0);
            // (Each record of the group fits if the whole group does: a
            // record's `lay_out` test is below the group's.)
            if self.blocks.last().is_some_and(|l| used + t + 10 <= l.capacity().min(BLOCK)) {
                runs.push(Run {
                    recs: group(g),
                    at: (((self.blocks.len() - 1) as u64) << BLOCK_BITS) | used as u64,
                    bytes: t,
                });
                *len.last_mut().unwrap() += t;
                continue;
            }
            for j in group(g) {
                let b = rec(j).0.len();
                let size = record_size(b);
                let o = self.lay_out(len.last().copied().unwrap_or(0), b);
                if self.blocks.len() - kb0 > len.len() {
                    len.push(0);
                }
                *len.last_mut().unwrap() += size;
                match runs.last_mut() {
                    // (Records laid out in the same block are consecutive.)
                    Some(r) if (r.at >> BLOCK_BITS) == (o >> BLOCK_BITS) => {
                        r.recs.end = j + 1;
                        r.bytes += size;
                    }
                    _ => runs.push(Run { recs: j..j + 1, at: o, bytes: size }),
                }
            }
        }
        // Each run's own parts of the offsets, of the new parents, steps
        // and marks (every MARK-th state's offset), and of its block's
        // spare capacity (within the capacity the layout checked: no
        // block moves).
        let len0 = self.parent.len();
        let marks_before = |i: usize| i.div_ceil(MARK);
        // (Capacities grow to powers of two, as pushing one by one does.)
        grow(&mut self.parent, n);
        grow(&mut self.step, n);
        grow(&mut self.marks, marks_before(len0 + n) - marks_before(len0));
        self.parent.resize(len0 + n, 0);
        self.step.resize(len0 + n, 0);
        self.marks.resize(marks_before(len0 + n), 0);
        let mut offs: Vec<Offset> = vec![0; n];
        let (mut off, mut parent, mut step) = (&mut offs[..], &mut self.parent[len0..], &mut self.step[len0..]);
        let mut marks = &mut self.marks[marks_before(len0)..];
        let mut spares: Vec<&mut [MaybeUninit<u8>]> = self.blocks[kb0..]
            .iter_mut()
            .zip(&len)
            .map(|(b, &l)| {
                let old = b.len();
                &mut b.spare_capacity_mut()[..l - old]
            })
            .collect();
        let mut jobs = Vec::with_capacity(runs.len());
        for r in runs {
            let k = r.recs.len();
            let (o, rest) = std::mem::take(&mut off).split_at_mut(k);
            off = rest;
            let (p, rest) = std::mem::take(&mut parent).split_at_mut(k);
            parent = rest;
            let (s, rest) = std::mem::take(&mut step).split_at_mut(k);
            step = rest;
            let (mk, rest) = std::mem::take(&mut marks)
                .split_at_mut(marks_before(len0 + r.recs.end) - marks_before(len0 + r.recs.start));
            marks = rest;
            let spare = &mut spares[(r.at >> BLOCK_BITS) as usize - kb0];
            let (bytes, rest) = std::mem::take(spare).split_at_mut(r.bytes);
            *spare = rest;
            jobs.push((r, o, p, s, mk, bytes));
        }
        assert!(spares.iter().all(|s| s.is_empty()), "the runs fill the blocks' new bytes");
        jobs.into_par_iter().for_each(|(r, offs, parent, step, marks, bytes)| {
            let (mut o, mut at, mut m) = (r.at, 0, 0);
            for (q, j) in r.recs.enumerate() {
                let (b, p, s) = rec(j);
                let (head, k) = varint(b.len() as u64);
                bytes[at..at + k].write_copy_of_slice(&head[..k]);
                bytes[at + k..at + k + b.len()].write_copy_of_slice(b);
                (offs[q], parent[q], step[q]) = (o, p, s);
                if (len0 + j).is_multiple_of(MARK) {
                    marks[m] = o;
                    m += 1;
                }
                at += k + b.len();
                o += (k + b.len()) as u64;
            }
            assert_eq!(at, bytes.len(), "a run's records fill its part");
        });
        for (block, &l) in self.blocks[kb0..].iter_mut().zip(&len) {
            // SAFETY: the runs' parts cover the spare capacity up to l
            // exactly (asserted above) and each was filled (asserted).
            unsafe { block.set_len(l) };
        }
        offs
    }
    /// Put entries made by `push` into the hash set, shard by shard in parallel.
    fn insert(&mut self, buckets: Vec<Vec<(u64, Offset)>>) {
        self.shards.par_iter_mut().zip(buckets.into_par_iter()).for_each(|(table, bucket)| {
            table.reserve(bucket.len());
            for (h, o) in bucket {
                table.insert_unique(h, o);
            }
        });
    }
    /// Bytes held: blocks, marks, parents and steps, and the hash set.
    fn bytes_used(&self) -> usize {
        let table: usize = self.shards.iter().map(|t| t.slots.capacity() * 8).sum();
        let blocks: usize = self.blocks.iter().map(|b| b.capacity()).sum();
        blocks + self.marks.capacity() * 8 + self.parent.capacity() * 4 + self.step.capacity() * 2 + table
    }
}

/// A successor found while expanding a layer.
struct Cand {
    h: u64,
    start: u32,
    len: u32,
    parent: u32,
    step: u16,
}

/// A successor in its shard's list: its hash, its index in `cands` and its bytes' place.
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

/// The bytes of a successor that start at `start` in a share's `bytes`.
#[inline(always)]
fn span(bytes: &[u8], start: u32, len: u32) -> &[u8] {
    &bytes[start as usize..(start + len) as usize]
}

impl Local {
    fn cand_bytes(&self, k: usize) -> &[u8] {
        let c = &self.cands[k];
        span(&self.bytes, c.start, c.len)
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
        if (e ^ h) & !LOW == 0 {
            if let Some(c) = cands.get((e & LOW) as usize) {
                if c.h == h && span(bytes, c.start, c.len) == &next.b[..] {
                    return;
                }
            }
        }
        recent[slot] = (h & !LOW) | cands.len() as u64;
        let start = bytes.len() as u32;
        bytes.extend_from_slice(&next.b);
        if by_shard.is_empty() {
            by_shard.resize(SHARDS, Vec::new());
        }
        let len = next.b.len() as u32;
        by_shard[shard(h)].push(ShardEntry { h, k: cands.len() as u32, start, len });
        cands.push(Cand { h, start, len, parent, step });
    }
}

/// The layer's new successors, by shard: each shard's successors, in
/// (parent, step) order (locals in order, each local's in order), are
/// entered into the shard's table in parallel (`Table::enter`), so the
/// first of each new state is kept (its smallest (parent, step)). The new
/// ones come back as (layer index: `base` of the local plus index in it,
/// slot), pending in the table until they are pushed and settled.
fn enter_layer(store: &mut Store, locals: &[Local], base: &[u32]) -> Vec<Vec<(u32, usize)>> {
    let Store { shards, blocks, .. } = store;
    let blocks = &*blocks;
    shards
        .par_iter_mut()
        .enumerate()
        .map(|(s, table)| {
            let count = locals.iter().map(|l| l.by_shard.get(s).map_or(0, Vec::len)).sum();
            let mut ks: Vec<u32> = Vec::with_capacity(count);
            let mut items: Vec<(u64, &[u8])> = Vec::with_capacity(count);
            for (l, &b) in locals.iter().zip(base) {
                for e in l.by_shard.get(s).map_or(&[][..], |v| &v[..]) {
                    ks.push(b + e.k);
                    items.push((e.h, span(&l.bytes, e.start, e.len)));
                }
            }
            let mut fresh = Vec::with_capacity(count);
            table.enter(blocks, &items, &mut fresh);
            fresh.into_iter().map(|(j, slot)| (ks[j as usize], slot)).collect()
        })
        .collect()
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

thread_local! {
    /// This worker is busy in an `awake`: running its f, or polling.
    static AWAKE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `f`, run with the pool's other workers kept awake until it returns:
/// each polls for work (`rayon::yield_now`) instead of going to sleep
/// between two parallel steps. A layer takes some ten parallel steps and
/// waking a sleeping worker costs tens of microseconds on a virtual
/// machine, which cost layers of a few thousand states most of their
/// speed-up. Not done when the pool has more workers than the machine has
/// CPUs (a polling worker would take a CPU from a working one). The
/// results are those of `f` alone; only the scheduling changes.
fn awake<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let n = rayon::current_num_threads();
    let cpus = std::thread::available_parallelism().map_or(1, |c| c.get());
    if n < 2 || n > cpus {
        return f();
    }
    let done = AtomicBool::new(false);
    /// While alive, marks its worker busy in an `awake`; when dropped (f
    /// returned or unwound), unmarks it and stops the pollers.
    struct Busy<'a>(&'a AtomicBool, bool);
    impl Drop for Busy<'_> {
        fn drop(&mut self) {
            AWAKE.with(|a| a.set(self.1));
            self.0.store(true, Ordering::Release);
        }
    }
    rayon::scope(|s| {
        let _busy = Busy(&done, AWAKE.with(|a| a.replace(true)));
        let done = &done;
        for _ in 1..n {
            s.spawn(move |_| {
                // A poller taken by a worker already busy in an `awake`
                // (f's own, while f waits for work it shared, or one
                // polling) ends at once: that worker must get back to
                // what it was doing.
                if AWAKE.with(|a| a.replace(true)) {
                    return;
                }
                let mut idle = 0u32;
                while !done.load(Ordering::Acquire) {
                    if rayon::yield_now() == Some(rayon::Yield::Executed) {
                        idle = 0;
                    } else {
                        idle += 1;
                        if idle.is_multiple_of(64) {
                            std::thread::yield_now();
                        } else {
                            std::hint::spin_loop();
                        }
                    }
                }
                AWAKE.with(|a| a.set(false));
            });
        }
        f()
    })
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
    let mut live_idx: Vec<u32> = Vec::new();
    // A layer's `off` and `order` (below), their allocations kept from
    // layer to layer (fresh ones would be paged in again every layer).
    let mut off: Vec<AtomicU64> = Vec::new();
    let mut order: Vec<(u32, u32)> = Vec::new();
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
    while lo < hi {
        out.layers += 1;
        // Shares of consecutive parents, each expanded by one worker into
        // its own `Local` (collected in order).
        let share = ((hi - lo) / (16 * rayon::current_num_threads() as u32)).clamp(256, 1 << 14);
        let locals: Vec<Local> = (0..(hi - lo).div_ceil(share))
            .into_par_iter()
            .map(|k| {
                let mut l = ctx.local();
                let first = lo + k * share;
                let parents = first..(first + share).min(hi);
                with_view!(m, v => ctx.expand_share(v, &store, parents, &mut l));
                l
            })
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
        lap(&mut ph.expand);
        // The layer's successors, locals in order: each local covers a
        // range of parents in order and emits in step order, so this is
        // (parent, step) order whatever the scheduling.
        let mut base = Vec::with_capacity(locals.len());
        let mut n = 0u32;
        for l in &locals {
            base.push(n);
            n = n.checked_add(l.cands.len() as u32).expect("fewer than 2^32 successors in a layer");
        }
        let fresh = enter_layer(&mut store, &locals, &base);
        lap(&mut ph.enter);
        let nfresh: usize = fresh.iter().map(Vec::len).sum();
        if let Some(max) = limits.max_states {
            if store.len() as u64 + nfresh as u64 > max {
                store.shards.par_iter_mut().for_each(Table::drop_pending);
                out.limit = Some(LimitOut { which: "states".into(), detail: format!("more than {max} states") });
                break;
            }
        }
        // The new states pushed in (parent, step) order, then settled:
        // `off` marks them (1), then holds their offsets (every entry is
        // written by one worker: relaxed atomics let workers share it).
        off.clear();
        off.par_extend((0..n).into_par_iter().map(|_| AtomicU64::new(0)));
        fresh.par_iter().flatten().for_each(|&(k, _)| off[k as usize].store(1, Ordering::Relaxed));
        let parts = locals
            .par_iter()
            .zip(&base)
            .enumerate()
            .map(|(li, (l, &b))| {
                (0..l.cands.len() as u32)
                    .filter(|&k| off[(b + k) as usize].load(Ordering::Relaxed) == 1)
                    .map(|k| (li as u32, k))
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>();
        order.clear();
        parts.iter().for_each(|p| order.extend_from_slice(p));
        let offs = store.push_all(order.len(), |j| {
            let (li, k) = order[j];
            let l = &locals[li as usize];
            (l.cand_bytes(k as usize), l.cands[k as usize].parent, l.cands[k as usize].step)
        });
        order
            .par_iter()
            .zip(&offs)
            .for_each(|(&(li, k), &o)| off[(base[li as usize] + k) as usize].store(o, Ordering::Relaxed));
        store.shards.par_iter_mut().zip(fresh).for_each(|(table, fresh)| {
            for (k, slot) in fresh {
                table.settle(slot, off[k as usize].load(Ordering::Relaxed));
            }
        });
        ctx.recycle(locals);
        lap(&mut ph.store);
        lo = hi;
        hi = store.len() as u32;
        PROGRESS_STATES.store(hi as u64, Ordering::Relaxed);
        PROGRESS_LAYERS.store(out.layers as u64, Ordering::Relaxed);
    }
    out.limit = out.limit.or_else(|| ctx.limit.lock().unwrap().take());
    out.complete = out.limit.is_none();
    out.states = store.len() as u64;
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
        let (count, first) = with_view!(m, v => stuck_states(&ctx, v, &store, &live_idx))?;
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
/// backwards over environment steps to a fixpoint. None: a successor does
/// not fit the machine's widths.
/// (`m`: the machine, through its widths.)
fn stuck_states<const VW: usize, const SW: usize>(
    ctx: &Ctx,
    m: View<'_, VW, SW>,
    store: &Store,
    live_idx: &[u32],
) -> Option<(u64, Option<u32>)> {
    let n = store.len();
    let live: Vec<AtomicU64> = (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
    let is_live = |i: u32| live[i as usize / 64].load(Ordering::Relaxed) & (1 << (i % 64)) != 0;
    let set_live = |i: u32| {
        live[i as usize / 64].fetch_or(1 << (i % 64), Ordering::Relaxed);
    };
    for &i in live_idx {
        set_live(i);
    }
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

/// The steps from the initial state to state i (then `last`, if given),
/// steps by number (`Ctx::steps`).
fn trace(m: &Machine, store: &Store, steps: &[Step], i: u32, last: Option<u16>) -> Vec<Value> {
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
    chain.into_iter().map(|(p, st)| describe_step(m, store.get(p), steps[st as usize], &mut next)).collect()
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
            let r = m.view().thread_step(packed, t, next);
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
                    v["val"] = json!(m.view().reg(&next.b, t, dst));
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
        let mut x: u64 = 12345;
        let mut buckets: Vec<Vec<(u64, Offset)>> = vec![Vec::new(); SHARDS];
        for i in 0..5000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let len = 1 + (x >> 33) as usize % 300;
            let mut b: Vec<u8> = (0..len).map(|k| (x >> (k % 56)) as u8).collect();
            b.extend_from_slice(&i.to_le_bytes()); // distinct records
            let h = store.hash(&b);
            let e = store.push(&b, i, (i + 1) as u16);
            buckets[shard(h)].push((h, e));
            all.push(b);
            if i % 1000 == 999 {
                // In several rounds: the shards grow on the way.
                store.insert(std::mem::replace(&mut buckets, vec![Vec::new(); SHARDS]));
            }
        }
        assert!(store.blocks.len() > 5);
        for (i, b) in all.iter().enumerate() {
            assert_eq!(store.get(i as u32), &b[..]);
            assert_eq!(store.find(store.hash(b), b), Some(i as u32));
            assert_eq!(store.parent[i], i as u32);
        }
        assert_eq!(store.find(store.hash(b"absent"), b"absent"), None);
    }

    #[test]
    fn push_all_is_push_one_by_one() {
        // Rounds of records of many lengths (1- and 2-byte length
        // prefixes, some of 70 KB), appended one by one to one
        // store and with `push_all` to another: the same blocks (bytes
        // and capacities), marks, parents, steps and offsets.
        let (mut one, mut all) = (Store::new(), Store::new());
        let mut x: u64 = 99;
        for round in 0..40usize {
            let recs: Vec<(Vec<u8>, u32, u16)> = (0..round * round * 7)
                .map(|i| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let len = if i % 997 == 5 { 70_000 } else { (x >> 40) as usize % 300 };
                    ((0..len).map(|k| (x >> (k % 50)) as u8).collect(), i as u32, round as u16)
                })
                .collect();
            let want: Vec<Offset> = recs.iter().map(|(b, p, s)| one.push(b, *p, *s)).collect();
            let got = all.push_all(recs.len(), |j| (&recs[j].0[..], recs[j].1, recs[j].2));
            assert_eq!(got, want, "round {round}");
        }
        assert!(one.blocks.len() > 4);
        assert_eq!(one.blocks, all.blocks);
        assert_eq!(
            one.blocks.iter().map(|b| b.capacity()).collect::<Vec<_>>(),
            all.blocks.iter().map(|b| b.capacity()).collect::<Vec<_>>()
        );
        assert_eq!(
            (one.marks.capacity(), one.parent.capacity(), one.step.capacity()),
            (all.marks.capacity(), all.parent.capacity(), all.step.capacity())
        );
        assert_eq!((one.marks, one.parent, one.step), (all.marks, all.parent, all.step));
    }

    #[test]
    fn enter_is_find_then_insert() {
        // Made-up hashes that crowd: 3 tags for thousands of records
        // (long probe runs, tags that match records with other bytes).
        // A table holding 1000 records, then a layer of items (stored
        // ones, new ones, repeats, same hash with other bytes, same
        // bytes under another tag) entered in batches: the new ones are
        // exactly those the one-by-one reference (`find` in the table,
        // else an earlier item with the same tag and bytes) calls new;
        // once settled, every item is found under its tag.
        let mut store = Store::new();
        let mut table = Table::default();
        let fake = |i: u32| ((i % 3) as u64) << 60 | i as u64;
        let rec = |i: u32| format!("record {}", i).into_bytes();
        table.reserve(1000);
        for i in 0..1000u32 {
            let o = store.push(&rec(i), 0, 0);
            table.insert_unique(fake(i), o);
        }
        let mut bufs: Vec<(u64, Vec<u8>)> = Vec::new();
        for i in 0..3000u32 {
            bufs.push((fake(i), rec(i))); // stored (i < 1000) or new
            bufs.push((fake(i), format!("other {}", i % 700).into_bytes())); // new, then repeats
            bufs.push((fake(i + 1), rec(i))); // another tag
            bufs.push((fake(i / 2), rec(i / 2))); // repeats
        }
        let items: Vec<(u64, &[u8])> = bufs.iter().map(|(h, b)| (*h, &b[..])).collect();
        let mut want = Vec::new();
        for (k, &(h, b)) in items.iter().enumerate() {
            let earlier = items[..k].iter().any(|&(g, c)| Table::tagged(g) == Table::tagged(h) && c == b);
            if table.find(&store.blocks, h, b).is_none() && !earlier {
                want.push(k as u32);
            }
        }
        let mut fresh = Vec::new();
        table.enter(&store.blocks, &items, &mut fresh);
        assert_eq!(fresh.iter().map(|p| p.0).collect::<Vec<_>>(), want);
        assert!(want.len() > 3000 && want.len() < items.len() - 3000);
        for &(k, slot) in &fresh {
            let o = store.push(items[k as usize].1, 0, 0);
            table.settle(slot, o);
        }
        assert_eq!(table.len, 1000 + want.len());
        for &(h, b) in &items {
            let o = table.find(&store.blocks, h, b).expect("entered");
            assert_eq!(record(&store.blocks, o).0, b);
        }
        // A layer entered then dropped leaves the table as it was.
        let more: Vec<(u64, Vec<u8>)> = (0..500u32).map(|i| (fake(i), format!("late {}", i).into_bytes())).collect();
        let items: Vec<(u64, &[u8])> = more.iter().map(|(h, b)| (*h, &b[..])).collect();
        table.enter(&store.blocks, &items, &mut Vec::new());
        table.drop_pending();
        assert_eq!(table.len, 1000 + want.len());
        assert!(items.iter().all(|&(h, b)| table.find(&store.blocks, h, b).is_none()));
        assert!(bufs.iter().all(|(h, b)| table.find(&store.blocks, *h, b).is_some()));
    }
}

#[cfg(test)]
mod awake_tests {
    use super::awake;
    use rayon::prelude::*;

    fn pool(n: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap()
    }

    #[test]
    fn awake_gives_what_f_gives_and_shares_its_work() {
        for n in [1, 2, 3] {
            let (sum, workers) = pool(n).install(|| {
                awake(|| {
                    let seen = std::sync::Mutex::new(std::collections::BTreeSet::new());
                    let sum: u64 = (0..200_000u64)
                        .into_par_iter()
                        .map(|i| {
                            seen.lock().unwrap().insert(rayon::current_thread_index());
                            i
                        })
                        .sum();
                    (sum, seen.into_inner().unwrap().len())
                })
            });
            assert_eq!(sum, 200_000 * 199_999 / 2);
            assert!(workers >= 1 && workers <= n);
        }
    }

    #[test]
    fn awakes_side_by_side_and_nested_each_give_what_f_gives() {
        let sum = |k: u64| (0..k).into_par_iter().sum::<u64>();
        let p = pool(2);
        let (a, (b, c)) =
            p.install(|| rayon::join(|| awake(|| sum(100_000)), || awake(|| (sum(50_000), awake(|| sum(1000))))));
        assert_eq!((a, b, c), (100_000 * 99_999 / 2, 50_000 * 49_999 / 2, 1000 * 999 / 2));
    }

    #[test]
    fn awake_ends_when_f_panics() {
        // The pollers stop and the panic comes through (a hang would fail the test run).
        let p = pool(2);
        let r = p.install(|| std::panic::catch_unwind(|| awake(|| -> u32 { panic!("inside f") })));
        assert!(r.is_err());
        // The same pool works afterwards.
        assert_eq!(p.install(|| awake(|| (0..1000u32).into_par_iter().sum::<u32>())), 999 * 1000 / 2);
    }
}
