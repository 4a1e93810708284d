//! Machine states (001 Fig. 4) and their canonical byte encoding.

use super::program::{MInstr, MProgram, Scope};
use crate::program::Observed;

/// Cache entry bits: an entry is present or absent; a present one is
/// CLEAN or DIRTY and VALID or INV'D (001 Fig. 4: hygiene x freshness).
pub const PRESENT: u8 = 1;
pub const DIRTY: u8 = 2;
pub const VALID: u8 = 4;

#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Line {
    pub st: u8,
    pub val: i64,
}

impl Line {
    pub fn present(&self) -> bool {
        self.st & PRESENT != 0
    }
    pub fn dirty(&self) -> bool {
        self.st & DIRTY != 0
    }
    pub fn valid(&self) -> bool {
        self.st & VALID != 0
    }
    pub fn readable(&self) -> bool {
        self.st & (PRESENT | VALID) == (PRESENT | VALID)
    }
}

/// A fifo element: an address `a < naddr`, or `naddr + t`: FLUSH of thread t.
pub type FifoEl = u16;

#[derive(Default, PartialEq, Eq, Debug)]
pub struct State {
    /// Per thread; `code.len()` once the thread is done.
    pub pc: Vec<u32>,
    /// All registers, thread by thread (`Machine::reg_off`).
    pub regs: Vec<i64>,
    /// L1 of work-group w, address a: `l1[w * naddr + a]`.
    pub l1: Vec<Line>,
    /// L2 of device d: `l2[d * naddr + a]`.
    pub l2: Vec<Line>,
    /// Global memory.
    pub mem: Vec<i64>,
    pub l1_fifo: Vec<Vec<FifoEl>>,
    pub l2_fifo: Vec<Vec<FifoEl>>,
    /// Per work-group: 0 free, t + 1 held by thread t.
    pub rmw_lock: Vec<u16>,
    /// Per device and address: 0 free, t + 1 held by thread t.
    pub lockfile: Vec<u16>,
}

impl Clone for State {
    fn clone(&self) -> State {
        let mut s = State::default();
        s.clone_from(self);
        s
    }

    /// Field by field, reusing this state's allocations (the explorer's
    /// hot path copies a state once per successor).
    fn clone_from(&mut self, o: &State) {
        self.pc.clone_from(&o.pc);
        self.regs.clone_from(&o.regs);
        self.l1.clone_from(&o.l1);
        self.l2.clone_from(&o.l2);
        self.mem.clone_from(&o.mem);
        self.l1_fifo.clone_from(&o.l1_fifo);
        self.l2_fifo.clone_from(&o.l2_fifo);
        self.rmw_lock.clone_from(&o.rmw_lock);
        self.lockfile.clone_from(&o.lockfile);
    }
}

/// A program with its layout: counts and who is where.
pub struct Machine {
    pub prog: MProgram,
    pub naddr: usize,
    pub ndev: usize,
    pub nwg: usize,
    pub wg_dev: Vec<usize>,
    pub reg_off: Vec<usize>,
    /// Per thread and pc (0..=code length): the addresses the code from
    /// that pc on may read through the L1 (LD, L1 RMW) and at the L2 (L2
    /// RMW), as bit masks; None with more than 64 addresses. Branches go
    /// forward only, so this is everything the thread can still read.
    pub future_reads: Option<Vec<Vec<(u64, u64)>>>,
}

impl Machine {
    pub fn new(prog: MProgram) -> Result<Machine, String> {
        let naddr = prog.locations.len();
        let nthreads = prog.threads.len();
        if nthreads == 0 {
            return Err("the machine program has no thread".into());
        }
        if naddr + nthreads >= u16::MAX as usize || nthreads >= u16::MAX as usize - 1 {
            return Err("too many addresses or threads for the machine".into());
        }
        let nwg = prog.threads.iter().map(|t| t.wg).max().unwrap_or(0) + 1;
        let ndev = prog.threads.iter().map(|t| t.dev).max().unwrap_or(0) + 1;
        let mut wg_dev: Vec<Option<usize>> = vec![None; nwg];
        for t in &prog.threads {
            match wg_dev[t.wg] {
                None => wg_dev[t.wg] = Some(t.dev),
                Some(d) if d != t.dev => {
                    return Err(format!("work-group {} is in two devices ({d} and {})", t.wg, t.dev))
                }
                _ => {}
            }
        }
        let wg_dev: Vec<usize> = wg_dev
            .into_iter()
            .enumerate()
            .map(|(w, d)| d.ok_or(format!("work-group {w} has no thread")))
            .collect::<Result<_, _>>()?;
        for d in 0..ndev {
            if !wg_dev.contains(&d) {
                return Err(format!("device {d} has no work-group"));
            }
        }
        let mut reg_off = Vec::with_capacity(nthreads + 1);
        let mut off = 0;
        for t in &prog.threads {
            reg_off.push(off);
            off += t.nregs;
        }
        reg_off.push(off);
        let future_reads = (naddr <= 64).then(|| {
            prog.threads
                .iter()
                .map(|t| {
                    let mut masks = vec![(0u64, 0u64); t.code.len() + 1];
                    for pc in (0..t.code.len()).rev() {
                        let (mut l1, mut l2) = masks[pc + 1];
                        match &t.code[pc] {
                            MInstr::Ld { loc, .. } | MInstr::Rmw { level: 1, loc, .. } => l1 |= 1 << loc,
                            MInstr::Rmw { loc, .. } => l2 |= 1 << loc,
                            _ => {}
                        }
                        masks[pc] = (l1, l2);
                    }
                    masks
                })
                .collect()
        });
        let m = Machine { prog, naddr, ndev, nwg, wg_dev, reg_off, future_reads };
        m.validate()?;
        Ok(m)
    }

    fn validate(&self) -> Result<(), String> {
        for t in &self.prog.threads {
            let len = t.code.len();
            for (pc, ins) in t.code.iter().enumerate() {
                let at = || format!("{}, instruction {pc}", t.name);
                let loc_ok = |l: usize| if l < self.naddr { Ok(()) } else { Err(format!("{}: address out of range", at())) };
                let reg_ok = |r: usize| if r < t.nregs { Ok(()) } else { Err(format!("{}: register out of range", at())) };
                match ins {
                    MInstr::Ld { dst, loc } => {
                        loc_ok(*loc)?;
                        reg_ok(*dst)?;
                    }
                    MInstr::St { loc, .. } | MInstr::Lk { loc } | MInstr::Unlk { loc } => loc_ok(*loc)?,
                    MInstr::Rmw { level, dst, loc, rmw, expected, .. } => {
                        loc_ok(*loc)?;
                        if let Some(d) = dst {
                            reg_ok(*d)?;
                        }
                        if *level != 1 && *level != 2 {
                            return Err(format!("{}: RMW level must be 1 or 2", at()));
                        }
                        use crate::program::RmwOp::*;
                        if matches!(rmw, Cas | CasOld) != expected.is_some() {
                            return Err(format!("{}: a compare-exchange needs an expected value, only it", at()));
                        }
                    }
                    MInstr::Flu { level, scope } | MInstr::Inv { level, scope } => {
                        if *level != 1 && *level != 2 {
                            return Err(format!("{}: cache level must be 1 or 2", at()));
                        }
                        if *level == 2 && *scope == Scope::Wg {
                            return Err(format!("{}: an L2 cache serves a device: scope WG is meaningless", at()));
                        }
                    }
                    MInstr::Lkrmw { .. } | MInstr::Unlkrmw { .. } | MInstr::Cut => {}
                    MInstr::Assign { dst, .. } => reg_ok(*dst)?,
                    MInstr::Branch { target, .. } | MInstr::Jump { target } => {
                        if *target <= pc || *target > len {
                            return Err(format!("{}: branch target {target} is not forward", at()));
                        }
                    }
                }
            }
        }
        for o in &self.prog.observed {
            match o {
                Observed::Reg { thread, reg } => {
                    if *thread >= self.prog.threads.len() || *reg >= self.prog.threads[*thread].nregs {
                        return Err("observed register out of range".into());
                    }
                }
                Observed::Loc { loc } => {
                    if *loc >= self.naddr {
                        return Err("observed location out of range".into());
                    }
                }
            }
        }
        Ok(())
    }

    pub fn nthreads(&self) -> usize {
        self.prog.threads.len()
    }

    pub fn initial(&self) -> State {
        State {
            pc: vec![0; self.nthreads()],
            regs: vec![0; *self.reg_off.last().unwrap()],
            l1: vec![Line::default(); self.nwg * self.naddr],
            l2: vec![Line::default(); self.ndev * self.naddr],
            mem: self.prog.locations.iter().map(|l| l.init).collect(),
            l1_fifo: vec![Vec::new(); self.nwg],
            l2_fifo: vec![Vec::new(); self.ndev],
            rmw_lock: vec![0; self.nwg],
            lockfile: vec![0; self.ndev * self.naddr],
        }
    }

    /// The work-groups a scope operand names, seen from work-group w.
    pub fn wgs_in(&self, scope: Scope, w: usize) -> impl Iterator<Item = usize> + '_ {
        let d = self.wg_dev[w];
        (0..self.nwg).filter(move |&v| match scope {
            Scope::Wg => v == w,
            Scope::Dev => self.wg_dev[v] == d,
            Scope::All => true,
        })
    }

    /// The devices a scope operand names, seen from device d.
    pub fn devs_in(&self, scope: Scope, d: usize) -> impl Iterator<Item = usize> {
        let all = scope == Scope::All;
        (0..self.ndev).filter(move |&e| all || e == d)
    }

    pub fn marker(&self, t: usize) -> FifoEl {
        (self.naddr + t) as FifoEl
    }

    /// All threads done, every fifo drained, no dirty line (SPEC 7).
    pub fn is_final(&self, s: &State) -> bool {
        s.pc.iter().zip(&self.prog.threads).all(|(&pc, t)| pc as usize == t.code.len())
            && s.l1_fifo.iter().all(|f| f.is_empty())
            && s.l2_fifo.iter().all(|f| f.is_empty())
            && s.l1.iter().chain(&s.l2).all(|l| !l.dirty())
    }

    /// The observed registers and memory of a state.
    pub fn outcome(&self, s: &State) -> Vec<i64> {
        self.prog
            .observed
            .iter()
            .map(|o| match o {
                Observed::Reg { thread, reg } => s.regs[self.reg_off[*thread] + reg],
                Observed::Loc { loc } => s.mem[*loc],
            })
            .collect()
    }

    // ------------------------------------------------------------ encoding
    /// The canonical encoding: the state's fields in a fixed order, each
    /// number as a LEB128 varint (values zig-zagged), fifos with their
    /// length. Two states are equal iff their encodings are.
    pub fn encode(&self, s: &State, out: &mut Vec<u8>) {
        out.clear();
        for &p in &s.pc {
            put_u(out, p as u64);
        }
        for &r in &s.regs {
            put_i(out, r);
        }
        for l in s.l1.iter().chain(&s.l2) {
            out.push(l.st);
            if l.present() {
                put_i(out, l.val);
            }
        }
        for &m in &s.mem {
            put_i(out, m);
        }
        for f in s.l1_fifo.iter().chain(&s.l2_fifo) {
            put_u(out, f.len() as u64);
            for &e in f {
                put_u(out, e as u64);
            }
        }
        for &k in s.rmw_lock.iter().chain(&s.lockfile) {
            put_u(out, k as u64);
        }
    }

    /// The inverse of `encode`, into a state of the right shape (made by
    /// `initial`), reusing its allocations.
    pub fn decode(&self, b: &[u8], s: &mut State) {
        let mut i = 0usize;
        for p in s.pc.iter_mut() {
            *p = get_u(b, &mut i) as u32;
        }
        for r in s.regs.iter_mut() {
            *r = get_i(b, &mut i);
        }
        for l in s.l1.iter_mut().chain(s.l2.iter_mut()) {
            l.st = b[i];
            i += 1;
            l.val = if l.st & PRESENT != 0 { get_i(b, &mut i) } else { 0 };
        }
        for m in s.mem.iter_mut() {
            *m = get_i(b, &mut i);
        }
        for f in s.l1_fifo.iter_mut().chain(s.l2_fifo.iter_mut()) {
            let n = get_u(b, &mut i) as usize;
            f.clear();
            for _ in 0..n {
                f.push(get_u(b, &mut i) as FifoEl);
            }
        }
        for k in s.rmw_lock.iter_mut().chain(s.lockfile.iter_mut()) {
            *k = get_u(b, &mut i) as u16;
        }
        debug_assert_eq!(i, b.len());
    }
}

/// LEB128 varints (the state encoding's numbers; the explorer's record lengths).
pub(super) fn put_u(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_i(out: &mut Vec<u8>, v: i64) {
    put_u(out, ((v << 1) ^ (v >> 63)) as u64);
}

pub(super) fn get_u(b: &[u8], i: &mut usize) -> u64 {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let x = b[*i];
        *i += 1;
        v |= ((x & 0x7f) as u64) << shift;
        if x < 0x80 {
            return v;
        }
        shift += 7;
    }
}

fn get_i(b: &[u8], i: &mut usize) -> i64 {
    let u = get_u(b, i);
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}
