//! The visited set and the arena of the explorer: states packed into
//! bytes are appended to an arena of blocks (`Store`) and found again
//! through the open-addressing tables of its shards (`Table`), with
//! prefetching. (No request for transparent huge pages: where the system
//! grants them on request, its compaction made a fresh process's first
//! exploration 3x slower, 8.6-10.2 s against 2.7-3.4 s for 11.3 M states
//! on 2 cores, and later ones gained nothing measurable.)

use super::state::{get_u, put_u, varint, varint_len};
use rayon::prelude::*;
use std::hash::BuildHasher;
use std::mem::MaybeUninit;

pub(crate) const SHARDS: usize = 64;

/// A state's shard: the low bits of its hash (a shard's table uses the
/// top 28, `Table`).
pub(crate) fn shard(h: u64) -> usize {
    h as usize % SHARDS
}

/// The arena is a list of blocks of at most this many bytes (a record
/// that does not fit in the last block starts a new one): growing it never
/// copies and wastes at most one block.
pub(crate) const BLOCK_BITS: u32 = 22;
pub(crate) const BLOCK: usize = 1 << BLOCK_BITS;
/// Every `MARK`-th record's offset is kept; the others are found by
/// skipping records from there.
pub(crate) const MARK: usize = 8;

/// An arena offset: block number, then position in the block (`BLOCK_BITS`), in 36 bits.
pub(crate) type Offset = u64;

/// Bits of a slot that hold a record's arena offset plus one (an arena
/// of up to 32 GiB, `PENDING`); the other 28 hold the top 28 bits of its hash.
pub(crate) const OFF_BITS: u32 = 36;
pub(crate) const OFF_MASK: u64 = (1 << OFF_BITS) - 1;
/// A slot whose offset field has this bit is pending (`Table::enter`):
/// the rest is the index of a successor not yet in the arena. Arena
/// offsets stay below it (32 GiB).
pub(crate) const PENDING: u64 = 1 << (OFF_BITS - 1);

/// Most slots a table fills before it grows: 7 in 10 (it grows to about
/// half full).
pub(crate) const LOAD: (usize, usize) = (7, 10);

/// One shard of the visited set: open addressing with linear probing over
/// its slots, each 0 (empty) or a record's arena offset plus one under the
/// top 28 bits of its hash (the tag). The home slot is the tag scaled to
/// the table's size, so the table grows without reading records; a probe
/// compares a record only when the whole tag matches.
#[derive(Default)]
pub(crate) struct Table {
    pub(crate) slots: Vec<u64>,
    pub(crate) len: usize,
}

impl Table {
    pub(crate) fn home(&self, h: u64) -> usize {
        (((h >> OFF_BITS) * self.slots.len() as u64) >> (64 - OFF_BITS)) as usize
    }
    /// The slot after i, round the end.
    pub(crate) fn after(&self, i: usize) -> usize {
        if i + 1 == self.slots.len() {
            0
        } else {
            i + 1
        }
    }
    pub(crate) fn tagged(h: u64) -> u64 {
        h & !OFF_MASK
    }
    /// The first slot from i on that is empty or carries h's tag.
    pub(crate) fn scan(&self, h: u64, mut i: usize) -> usize {
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
    pub(crate) fn probe(&self, blocks: &[Vec<u8>], h: u64, b: &[u8], mut i: usize) -> Option<Offset> {
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
    pub(crate) fn find(&self, blocks: &[Vec<u8>], h: u64, b: &[u8]) -> Option<Offset> {
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
    pub(crate) fn enter(&mut self, blocks: &[Vec<u8>], items: &[(u64, &[u8])], fresh: &mut Vec<(u32, usize)>) {
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
    pub(crate) fn settle(&mut self, slot: usize, o: Offset) {
        debug_assert!(self.slots[slot] & PENDING != 0 && o + 1 < PENDING);
        self.slots[slot] = (self.slots[slot] & !OFF_MASK) | (o + 1);
    }
    /// Forget the pending entries (a layer not stored after all); the
    /// table shrinks back to the size `reserve` gives its entries.
    pub(crate) fn drop_pending(&mut self) {
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
    pub(crate) fn reserve(&mut self, extra: usize) {
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
    pub(crate) fn place(&mut self, v: u64) {
        let mut i = self.home(v);
        while self.slots[i] != 0 {
            i = self.after(i);
        }
        self.slots[i] = v;
    }
    /// Add an entry known to be absent (after `reserve`).
    pub(crate) fn insert_unique(&mut self, h: u64, o: Offset) {
        debug_assert!(o < OFF_MASK);
        self.place(Table::tagged(h) | (o + 1));
        self.len += 1;
    }
}

/// Ask for the cache line of x (a hint: no effect on results).
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, and x is a valid reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(x as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// `cap` empty slots, every page of them first touched by a write. (A
/// zeroed allocation's pages are mapped on first touch; touched by a read
/// first, a page is mapped to the shared zero page, and the write that
/// follows must replace that mapping and flush it from every CPU running
/// the process: with 2 threads, one interrupt of the other CPU per 4 KiB,
/// in the middle of `Table::enter`.)
pub(crate) fn zeroed_slots(cap: usize) -> Vec<u64> {
    let mut v = vec![0u64; cap];
    for k in (0..cap).step_by(4096 / 8) {
        // SAFETY: k < cap = v.len(); a volatile write of the value already
        // there (the compiler may not drop it: it is the page's first touch).
        unsafe { std::ptr::write_volatile(v.as_mut_ptr().add(k), 0) };
    }
    v
}

/// Ask for every cache line of b.
#[inline(always)]
pub(crate) fn prefetch_bytes(b: &[u8]) {
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
pub(crate) struct Store {
    pub(crate) blocks: Vec<Vec<u8>>,
    pub(crate) marks: Vec<Offset>,
    pub(crate) parent: Vec<u32>,
    /// The step number (`Ctx::steps`) from the parent.
    pub(crate) step: Vec<u16>,
    pub(crate) shards: Vec<Table>,
    pub(crate) hasher: foldhash::fast::FixedState,
}

/// Room in v for `extra` more values: its capacity the next power of two,
/// the values it holds copied over in parallel (a copy on one thread of the
/// explorer's longest lists would be a layer's one part that does not
/// scale with the threads).
pub(crate) fn grow<T: Copy + Send + Sync>(v: &mut Vec<T>, extra: usize) {
    const CHUNK: usize = 1 << 15;
    let need = v.len() + extra;
    if need > v.capacity() {
        let mut wider: Vec<T> = Vec::with_capacity(need.next_power_of_two());
        wider.spare_capacity_mut()[..v.len()].par_chunks_mut(CHUNK).zip(v.par_chunks(CHUNK)).for_each(|(to, from)| {
            to.write_copy_of_slice(from);
        });
        // SAFETY: the first v.len() values were written just above.
        unsafe { wider.set_len(v.len()) };
        *v = wider;
    }
}

/// The arena bytes of a record of `len` bytes: its length prefix, then them.
pub(crate) fn record_size(len: usize) -> usize {
    varint_len(len as u64) + len
}

/// The bytes of the record at offset o, and the offset just after it.
pub(crate) fn record(blocks: &[Vec<u8>], o: Offset) -> (&[u8], Offset) {
    let (k, mut i) = ((o >> BLOCK_BITS) as usize, (o as usize) & (BLOCK - 1));
    let block = &blocks[k];
    let len = get_u(block, &mut i) as usize;
    let end = i + len;
    let next =
        if end >= block.len() { ((k as u64) + 1) << BLOCK_BITS } else { o - (o & (BLOCK as u64 - 1)) + end as u64 };
    (&block[i..end], next)
}

impl Store {
    pub(crate) fn new() -> Store {
        Store {
            blocks: Vec::new(),
            marks: Vec::new(),
            parent: Vec::new(),
            step: Vec::new(),
            shards: (0..SHARDS).map(|_| Table::default()).collect(),
            hasher: foldhash::fast::FixedState::with_seed(0x68726620),
        }
    }
    pub(crate) fn len(&self) -> usize {
        self.parent.len()
    }
    pub(crate) fn offset_of(&self, i: u32) -> Offset {
        let mut o = self.marks[i as usize / MARK];
        for _ in 0..i as usize % MARK {
            o = record(&self.blocks, o).1;
        }
        o
    }
    pub(crate) fn get(&self, i: u32) -> &[u8] {
        record(&self.blocks, self.offset_of(i)).0
    }
    #[inline(always)]
    pub(crate) fn hash(&self, b: &[u8]) -> u64 {
        self.hasher.hash_one(b)
    }
    pub(crate) fn lookup(&self, h: u64, b: &[u8]) -> Option<Offset> {
        self.shards[shard(h)].find(&self.blocks, h, b)
    }
    /// The index of a stored state.
    pub(crate) fn find(&self, h: u64, b: &[u8]) -> Option<u32> {
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
    pub(crate) fn next_block(&self, size: usize) -> Vec<u8> {
        let cap = self.blocks.last().map_or(4096, |l| (2 * l.capacity()).min(BLOCK));
        Vec::with_capacity(cap.max(size))
    }
    /// Where the next record goes, `len` bytes of encoding when the last
    /// block holds `used` bytes: after them if it fits, else at the start
    /// of a new block. Its offset (its bytes are written by the caller).
    #[inline(always)]
    pub(crate) fn lay_out(&mut self, used: usize, len: usize) -> Offset {
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
    pub(crate) fn note(&mut self, o: Offset, parent: u32, step: u16) {
        if self.parent.len().is_multiple_of(MARK) {
            self.marks.push(o);
        }
        self.parent.push(parent);
        self.step.push(step);
    }
    /// Append a state's record (not yet in the hash set); its offset.
    pub(crate) fn push(&mut self, b: &[u8], parent: u32, step: u16) -> Offset {
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
    /// steps and marks; record j's offset goes to `put(j, offset)`.
    pub(crate) fn push_all<'c>(
        &mut self,
        n: usize,
        rec: impl Fn(usize) -> (&'c [u8], u32, u16) + Sync,
        put: impl Fn(usize, Offset) + Sync,
    ) {
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
        let new_marks = marks_before(len0 + n) - marks_before(len0);
        // The new values are written in parallel into the lists' spare
        // room (not zeroed first), then the lists' lengths set.
        let (mut parent, mut step) =
            (&mut self.parent.spare_capacity_mut()[..n], &mut self.step.spare_capacity_mut()[..n]);
        let mut marks = &mut self.marks.spare_capacity_mut()[..new_marks];
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
            jobs.push((r, p, s, mk, bytes));
        }
        assert!(spares.iter().all(|s| s.is_empty()), "the runs fill the blocks' new bytes");
        assert!(parent.is_empty() && step.is_empty() && marks.is_empty(), "the runs cover the new records");
        jobs.into_par_iter().for_each(|(r, parent, step, marks, bytes)| {
            let (mut o, mut at, mut m) = (r.at, 0, 0);
            for (q, j) in r.recs.enumerate() {
                let (b, p, s) = rec(j);
                let (head, k) = varint(b.len() as u64);
                bytes[at..at + k].write_copy_of_slice(&head[..k]);
                bytes[at + k..at + k + b.len()].write_copy_of_slice(b);
                parent[q].write(p);
                step[q].write(s);
                put(j, o);
                if (len0 + j).is_multiple_of(MARK) {
                    marks[m].write(o);
                    m += 1;
                }
                at += k + b.len();
                o += (k + b.len()) as u64;
            }
            assert_eq!(at, bytes.len(), "a run's records fill its part");
            assert_eq!(m, marks.len(), "a run's marks fill its part");
        });
        // SAFETY: the runs cover records 0..n (each written once above),
        // and so the new parents, steps and marks.
        unsafe {
            self.parent.set_len(len0 + n);
            self.step.set_len(len0 + n);
            self.marks.set_len(marks_before(len0 + n));
        }
        for (block, &l) in self.blocks[kb0..].iter_mut().zip(&len) {
            // SAFETY: the runs' parts cover the spare capacity up to l
            // exactly (asserted above) and each was filled (asserted).
            unsafe { block.set_len(l) };
        }
    }
    /// Put entries made by `push` into the hash set, shard by shard in parallel.
    pub(crate) fn insert(&mut self, buckets: Vec<Vec<(u64, Offset)>>) {
        self.shards.par_iter_mut().zip(buckets.into_par_iter()).for_each(|(table, bucket)| {
            table.reserve(bucket.len());
            for (h, o) in bucket {
                table.insert_unique(h, o);
            }
        });
    }
    /// Bytes held: blocks, marks, parents and steps, and the hash set.
    pub(crate) fn bytes_used(&self) -> usize {
        let table: usize = self.shards.iter().map(|t| t.slots.capacity() * 8).sum();
        let blocks: usize = self.blocks.iter().map(|b| b.capacity()).sum();
        blocks + self.marks.capacity() * 8 + self.parent.capacity() * 4 + self.step.capacity() * 2 + table
    }
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
            let got: Vec<std::sync::atomic::AtomicU64> =
                (0..recs.len()).map(|_| std::sync::atomic::AtomicU64::new(u64::MAX)).collect();
            all.push_all(
                recs.len(),
                |j| (&recs[j].0[..], recs[j].1, recs[j].2),
                |j, o| got[j].store(o, std::sync::atomic::Ordering::Relaxed),
            );
            let got: Vec<Offset> = got.into_iter().map(|o| o.into_inner()).collect();
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
