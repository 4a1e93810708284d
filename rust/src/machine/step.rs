//! Instructions and environment steps as functions from a state to a set
//! of states ([RSP15] sec. 5.2-5.3, [RSP15] sec. 5). No instruction has more than
//! one successor, so a thread step yields a state or `Blocked` (the empty
//! set); the environment's steps are enumerated one by one.

use super::program::{MInstr, MThread, Writeback};
use super::state::{FifoEl, Line, Machine, Packed, View, DIRTY, PRESENT, VALID};

/// What a step did, to label the transition (and print a trace).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    /// Thread t executed its instruction at the pc it had.
    Thread(usize),
    /// Fetch address a into the L1 of work-group w from its L2.
    FetchL1(usize, usize),
    /// Fetch address a into the L2 of device d from memory.
    FetchL2(usize, usize),
    /// Dequeue the head of work-group w's L1 fifo.
    DequeueL1(usize),
    /// Dequeue the head of device d's L2 fifo.
    DequeueL2(usize),
    /// Write back the dirty line a of w's L1 out of fifo order (`writeback="any"`).
    WritebackL1(usize, usize),
    /// Write back the dirty line a of d's L2 out of fifo order.
    WritebackL2(usize, usize),
    /// Evict the clean entry a of w's L1.
    EvictL1(usize, usize),
    /// Evict the clean entry a of d's L2.
    EvictL2(usize, usize),
}

/// The result of trying thread t's next instruction.
#[derive(Debug, PartialEq, Eq)]
pub enum ThreadStep {
    /// The thread has no instruction left.
    Done,
    /// The empty set of successors: the instruction waits.
    Blocked,
    /// One successor, written into `out`.
    Stepped,
    /// The path reached the loop-unrolling bound: dropped.
    Cut,
    /// A program error (e.g. UNLK of a lock the thread does not hold).
    Fault(String),
}

/// Whether i is in the bit set (bit i of word i / 64; `flushing_into`).
#[inline(always)]
pub fn in_set(set: &[u64], i: usize) -> bool {
    set[i / 64] >> (i % 64) & 1 != 0
}

impl<const VW: usize, const SW: usize> View<'_, VW, SW> {
    /// "unflushed_{d,w,t}": a FLUSH marker of thread t is in some fifo ([RSP15] sec. 5.2).
    pub fn unflushed(&self, s: &[u8], t: usize) -> bool {
        self.in_some_fifo(s, self.marker(t))
    }

    /// `unflushed` of every thread at once, as a bit set (bit t of word
    /// t / 64), from one walk of the fifos: the explorer's, once per state.
    pub fn flushing_into(&self, s: &[u8], out: &mut Vec<u64>) {
        out.clear();
        out.resize(self.nthreads().div_ceil(64), 0);
        self.each_fifo_el(s, |e| {
            if let Some(t) = (e as usize).checked_sub(self.naddr) {
                out[t / 64] |= 1 << (t % 64);
            }
        });
    }

    /// A step the reduced machine may take alone (a persistent set of one):
    /// - a register move or branch of a thread that is not unflushed: it
    ///   touches only the thread's own registers and pc;
    /// - the dequeue of a FLUSH marker at the head of a fifo: it only
    ///   removes that head; enqueues append at the tail (the fifo is not
    ///   empty, so they commute with it), the marker's thread stays blocked
    ///   until it is gone, and nothing else can remove it;
    /// - the dequeue of an address at the head of a fifo whose line is
    ///   clean and can no longer become dirty (`idle_head`): it writes
    ///   nothing back and only removes that head, as for a marker (the
    ///   address is no marker, so no thread waits for it).
    ///
    /// Each is enabled until taken and commutes with every other step, and
    /// a final state has empty fifos and finished threads, so every final
    /// state and every state that cannot reach one stays reachable
    /// through it. (`flushing`: `flushing_into` of s.)
    pub fn invisible_step(&self, s: &[u8], flushing: &[u64]) -> Option<Step> {
        if let Some(t) = (0..self.nthreads()).find(|&t| self.next_is_local(s, t) && !in_set(flushing, t)) {
            return Some(Step::Thread(t));
        }
        // The first fifo (L1 fifos, then L2) with a marker or an idle
        // address at its head, in one walk.
        let f = self.fifos(s).enumerate().position(|(f, (o, n))| {
            n > 0 && {
                let e = self.get_small(s, o);
                e >= self.naddr || self.idle_head(s, f, e)
            }
        })?;
        Some(if f < self.nwg { Step::DequeueL1(f) } else { Step::DequeueL2(f - self.nwg) })
    }

    /// Whether address a at the head of fifo f is idle: its line is clean
    /// and stays clean, so dequeuing it writes nothing back. An L1 line of
    /// work-group w becomes dirty only by a store or RMW of a thread of w;
    /// an L2 line of device d only by an L2 RMW of a thread of d or by
    /// the write-back of a dirty L1 line of d. False when the machine
    /// keeps no masks (`future`).
    fn idle_head(&self, s: &[u8], f: usize, a: usize) -> bool {
        let Some(fr) = &self.future else {
            return false;
        };
        // Whether some thread that `pick` selects may still write a.
        let may_write = |pick: &dyn Fn(&MThread) -> bool| {
            self.prog.threads.iter().enumerate().any(|(t, th)| pick(th) && fr[t][self.pc(s, t)].writes >> a & 1 != 0)
        };
        if f < self.nwg {
            !self.l1(s, f, a).dirty() && !may_write(&|th| th.wg == f)
        } else {
            let d = f - self.nwg;
            !self.l2(s, d, a).dirty()
                && (0..self.nwg).all(|w| self.wg_dev[w] != d || !self.l1(s, w, a).dirty())
                && !may_write(&|th| th.dev == d)
        }
    }

    /// Which addresses some thread may still read, as bit masks: through
    /// each work-group's L1 (an LD or L1 RMW of a thread of the work-group
    /// at or after its pc), then through each device's L2 (such an L1 read
    /// in the device, or an L2 RMW), into `out` (nwg + ndev masks). A fetch
    /// nobody will read changes only a clean entry that no later step
    /// looks at (other than further such fetches), so the reduced machine
    /// leaves it out (`env_step_with`). All ones when the machine has more
    /// than 64 addresses (no masks kept).
    pub fn reads_into(&self, s: &[u8], out: &mut Vec<u64>) {
        out.clear();
        let Some(fr) = &self.future else {
            out.resize(self.nwg + self.ndev, u64::MAX);
            return;
        };
        out.resize(self.nwg + self.ndev, 0);
        for (t, th) in self.prog.threads.iter().enumerate() {
            let f = fr[t][self.pc(s, t)];
            out[th.wg] |= f.l1;
            out[self.nwg + th.dev] |= f.l1 | f.l2;
        }
    }

    /// Whether thread t's next instruction is a register move or branch.
    pub fn next_is_local(&self, s: &[u8], t: usize) -> bool {
        self.prog.threads[t].code.get(self.pc(s, t)).is_some_and(|i| i.is_local())
    }

    /// Thread t's next instruction ([RSP15] Table 1), applied to `s`, the
    /// successor written into `out`.
    pub fn thread_step(&self, s: &[u8], t: usize, out: &mut Packed) -> ThreadStep {
        self.thread_step_with(s, t, out, self.unflushed(s, t))
    }

    /// `thread_step`, given `unflushed(s, t)` (the explorer has it from
    /// `flushing_into`).
    #[inline(always)]
    pub fn thread_step_with(&self, s: &[u8], t: usize, out: &mut Packed, unflushed: bool) -> ThreadStep {
        let th = &self.prog.threads[t];
        let pc = self.pc(s, t);
        let Some(ins) = th.code.get(pc) else {
            return ThreadStep::Done;
        };
        if unflushed {
            return ThreadStep::Blocked;
        }
        let (w, d) = (th.wg, th.dev);
        let eval = |e: &crate::program::Expr| e.eval_with(&|r| (r < th.nregs).then(|| self.reg(s, t, r)));
        out.copy_from(s);
        self.set_pc(out, t, pc + 1);
        match ins {
            MInstr::Ld { dst, loc } => {
                // L1(x) valid: copy its value; else block (the environment fetches).
                let l = self.l1(s, w, *loc);
                if !l.readable() {
                    return ThreadStep::Blocked;
                }
                self.set_reg(out, t, *dst, l.val);
            }
            MInstr::St { loc, val } => {
                // Dirty and invalid: block until written back; else write, enqueue.
                let l = self.l1(s, w, *loc);
                if l.present() && l.dirty() && !l.valid() {
                    return ThreadStep::Blocked;
                }
                let v = match eval(val) {
                    Ok(v) => v,
                    Err(e) => return ThreadStep::Fault(e.to_string()),
                };
                self.set_l1(out, w, *loc, Line { st: PRESENT | DIRTY | VALID, val: v });
                self.push(out, w, *loc as FifoEl);
            }
            MInstr::Rmw { level, dst, loc, rmw, val, expected } => {
                // INCL1 / INCL2 generalised: at the level's cache, whose entry must be valid.
                let line = if *level == 1 { self.l1(s, w, *loc) } else { self.l2(s, d, *loc) };
                if !line.readable() {
                    return ThreadStep::Blocked;
                }
                let arg = rmw.operand_of(val, &|r| (r < th.nregs).then(|| self.reg(s, t, r)), line.val);
                let (arg, exp) = match (arg, expected.as_ref().map(eval).transpose()) {
                    (Ok(a), Ok(e)) => (a, e),
                    (Err(e), _) | (_, Err(e)) => return ThreadStep::Fault(e.to_string()),
                };
                let (new, result) = rmw.apply(line.val, arg, exp);
                if let Some(nv) = new {
                    let nl = Line { st: PRESENT | DIRTY | VALID, val: nv };
                    if *level == 1 {
                        self.set_l1(out, w, *loc, nl);
                        self.push(out, w, *loc as FifoEl);
                    } else {
                        self.set_l2(out, d, *loc, nl);
                        self.push(out, self.nwg + d, *loc as FifoEl);
                    }
                }
                if let Some(r) = dst {
                    self.set_reg(out, t, *r, result);
                }
            }
            MInstr::Flu { level, scope } => {
                let m = self.marker(t);
                if *level == 1 {
                    for v in self.wgs_in(*scope, w) {
                        self.push(out, v, m);
                    }
                } else {
                    for e in self.devs_in(*scope, d) {
                        self.push(out, self.nwg + e, m);
                    }
                }
            }
            MInstr::Inv { level, scope } => {
                for a in 0..self.naddr {
                    if *level == 1 {
                        for v in self.wgs_in(*scope, w) {
                            let l = self.l1(s, v, a);
                            self.set_l1(out, v, a, Line { st: l.st & !VALID, ..l });
                        }
                    } else {
                        for e in self.devs_in(*scope, d) {
                            let l = self.l2(s, e, a);
                            self.set_l2(out, e, a, Line { st: l.st & !VALID, ..l });
                        }
                    }
                }
            }
            MInstr::Lk { loc } => {
                if self.lockfile(s, d, *loc) != 0 {
                    return ThreadStep::Blocked;
                }
                self.set_lockfile(out, d, *loc, t + 1);
            }
            MInstr::Unlk { loc } => {
                if self.lockfile(s, d, *loc) != t + 1 {
                    return ThreadStep::Fault(format!(
                        "{}: UNLK {} without holding it",
                        th.name, self.prog.locations[*loc].name
                    ));
                }
                self.set_lockfile(out, d, *loc, 0);
            }
            MInstr::Lkrmw { scope } => {
                if self.wgs_in(*scope, w).any(|v| self.rmw_lock(s, v) != 0) {
                    return ThreadStep::Blocked;
                }
                for v in self.wgs_in(*scope, w) {
                    self.set_rmw_lock(out, v, t + 1);
                }
            }
            MInstr::Unlkrmw { scope } => {
                if self.wgs_in(*scope, w).any(|v| self.rmw_lock(s, v) != t + 1) {
                    return ThreadStep::Fault(format!("{}: UNLKrmw without holding the rmw locks", th.name));
                }
                for v in self.wgs_in(*scope, w) {
                    self.set_rmw_lock(out, v, 0);
                }
            }
            MInstr::Assign { dst, val } => match eval(val) {
                Ok(v) => self.set_reg(out, t, *dst, v),
                Err(e) => return ThreadStep::Fault(e.to_string()),
            },
            MInstr::Branch { cond, target } => match eval(cond) {
                Ok(0) => {}
                Ok(_) => self.set_pc(out, t, *target),
                Err(e) => return ThreadStep::Fault(e.to_string()),
            },
            MInstr::Jump { target } => self.set_pc(out, t, *target),
            MInstr::Cut => return ThreadStep::Cut,
        }
        ThreadStep::Stepped
    }

    /// Fetches into, and write-backs from, the L1 of work-group w wait
    /// while address a is locked in the device's lock file by a thread of
    /// another work-group ([RSP15] sec. 5).
    fn locked_out(&self, s: &[u8], w: usize, a: usize) -> bool {
        let h = self.lockfile(s, self.wg_dev[w], a);
        h != 0 && self.prog.threads[h - 1].wg != w
    }

    /// Write line a of w's L1 to its device's L2 (dirty there, enqueued
    /// on the L2 fifo); the L1 line becomes clean.
    fn write_back_l1(&self, s: &mut Packed, w: usize, a: usize) {
        let d = self.wg_dev[w];
        let l = self.l1(&s.b, w, a);
        self.set_l1(s, w, a, Line { st: l.st & !DIRTY, ..l });
        self.set_l2(s, d, a, Line { st: PRESENT | DIRTY | VALID, val: l.val });
        self.push(s, self.nwg + d, a as FifoEl);
    }

    fn write_back_l2(&self, s: &mut Packed, d: usize, a: usize) {
        let l = self.l2(&s.b, d, a);
        self.set_l2(s, d, a, Line { st: l.st & !DIRTY, ..l });
        self.set_mem(s, a, l.val);
    }

    /// One environment step, applied to `s` into `out`; false when it is
    /// not enabled (or would change nothing).
    pub fn env_step(&self, s: &[u8], step: Step, out: &mut Packed) -> bool {
        let mut reads = Vec::new();
        self.reads_into(s, &mut reads);
        self.env_step_with(s, step, out, &reads)
    }

    /// `env_step`, given `reads_into` of s (computed once for all of a
    /// state's steps).
    #[inline(always)]
    pub fn env_step_with(&self, s: &[u8], step: Step, out: &mut Packed, reads: &[u64]) -> bool {
        let na = self.naddr;
        let may_read = |k: usize, a: usize| a >= 64 || reads[k] >> a & 1 != 0;
        match step {
            Step::Thread(_) => false,
            Step::FetchL1(w, a) => {
                // L1(a) absent or clean-invalid, L2(a) valid, not locked out.
                // Reduced (`reduce`): a clean valid entry may be refreshed,
                // standing for an eviction followed by a fetch.
                // (The cheapest test first: a fetch nobody reads is left out.)
                if self.prog.reduce && !may_read(w, a) {
                    return false;
                }
                let l = self.l1(s, w, a);
                let l2 = self.l2(s, self.wg_dev[w], a);
                let refresh = self.prog.reduce && l.readable() && !l.dirty() && l.val != l2.val;
                if (l.present() && (l.dirty() || l.valid()) && !refresh) || !l2.readable() || self.locked_out(s, w, a) {
                    return false;
                }
                out.copy_from(s);
                self.set_l1(out, w, a, Line { st: PRESENT | VALID, val: l2.val });
                true
            }
            Step::FetchL2(d, a) => {
                // L2(a) not dirty: (re)load it from memory.
                if self.prog.reduce && !may_read(self.nwg + d, a) {
                    return false;
                }
                let l = self.l2(s, d, a);
                let v = self.mem(s, a);
                if l.dirty() || (l.readable() && l.val == v) {
                    return false;
                }
                out.copy_from(s);
                self.set_l2(out, d, a, Line { st: PRESENT | VALID, val: v });
                true
            }
            Step::DequeueL1(w) => {
                let Some(e) = self.fifo_head(s, w) else {
                    return false;
                };
                let a = e as usize;
                let writes = a < na && self.l1(s, w, a).dirty();
                if writes && self.locked_out(s, w, a) {
                    return false;
                }
                out.copy_from(s);
                self.pop(out, w);
                if writes {
                    self.write_back_l1(out, w, a);
                }
                true
            }
            Step::DequeueL2(d) => {
                let Some(e) = self.fifo_head(s, self.nwg + d) else {
                    return false;
                };
                let a = e as usize;
                out.copy_from(s);
                self.pop(out, self.nwg + d);
                if a < na && self.l2(s, d, a).dirty() {
                    self.write_back_l2(out, d, a);
                }
                true
            }
            Step::WritebackL1(w, a) => {
                if self.prog.writeback != Writeback::Any || !self.l1(s, w, a).dirty() || self.locked_out(s, w, a) {
                    return false;
                }
                out.copy_from(s);
                self.write_back_l1(out, w, a);
                true
            }
            Step::WritebackL2(d, a) => {
                if self.prog.writeback != Writeback::Any || !self.l2(s, d, a).dirty() {
                    return false;
                }
                out.copy_from(s);
                self.write_back_l2(out, d, a);
                true
            }
            Step::EvictL1(k, a) | Step::EvictL2(k, a) => {
                let l1 = matches!(step, Step::EvictL1(..));
                let l = if l1 { self.l1(s, k, a) } else { self.l2(s, k, a) };
                if !l.present() || l.dirty() {
                    return false;
                }
                out.copy_from(s);
                if l1 {
                    self.set_l1(out, k, a, Line::default());
                } else {
                    self.set_l2(out, k, a, Line::default());
                }
                true
            }
        }
    }
}

impl Machine {
    /// Every environment step of the machine, enabled or not, in a fixed order.
    ///
    /// With `reduce`, steps that cannot change an outcome or a deadlock
    /// verdict are left out: a fetch into a cache whose entry nothing
    /// reads (no LD or L1 RMW of the address in that work-group, no L2 RMW
    /// and no such work-group in that device; `env_step` also drops, state
    /// by state, fetches that no thread can read any more: `reads_into`), and evictions (a clean
    /// entry may be refreshed instead; an absent entry only disables
    /// steps that its refetch re-enables). `reduce = false` is the
    /// reference, literally [RSP15] sec. 5.
    pub fn env_steps(&self) -> Vec<Step> {
        let na = self.naddr;
        let mut read_l1 = vec![!self.prog.reduce; self.nwg * na];
        let mut read_l2 = vec![!self.prog.reduce; self.ndev * na];
        for t in &self.prog.threads {
            for ins in &t.code {
                match ins {
                    MInstr::Ld { loc, .. } | MInstr::Rmw { level: 1, loc, .. } => {
                        read_l1[t.wg * na + loc] = true;
                        read_l2[t.dev * na + loc] = true;
                    }
                    MInstr::Rmw { loc, .. } => read_l2[t.dev * na + loc] = true,
                    _ => {}
                }
            }
        }
        let evict = !self.prog.reduce;
        let mut v = Vec::new();
        for w in 0..self.nwg {
            v.push(Step::DequeueL1(w));
        }
        for d in 0..self.ndev {
            v.push(Step::DequeueL2(d));
        }
        for a in 0..na {
            for w in 0..self.nwg {
                if read_l1[w * na + a] {
                    v.push(Step::FetchL1(w, a));
                }
                if evict {
                    v.push(Step::EvictL1(w, a));
                }
                if self.prog.writeback == Writeback::Any {
                    v.push(Step::WritebackL1(w, a));
                }
            }
            for d in 0..self.ndev {
                if read_l2[d * na + a] {
                    v.push(Step::FetchL2(d, a));
                }
                if evict {
                    v.push(Step::EvictL2(d, a));
                }
                if self.prog.writeback == Writeback::Any {
                    v.push(Step::WritebackL2(d, a));
                }
            }
        }
        v
    }
}
