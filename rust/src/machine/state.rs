//! Machine states ([RSP15] Fig. 4), apart and packed (the canonical bytes the explorer stores).

use super::program::{MInstr, MProgram, Scope};
use crate::error::Error;
use crate::program::Observed;

/// Cache entry bits: an entry is present or absent; a present one is
/// CLEAN or DIRTY and VALID or INV'D ([RSP15] Fig. 4: hygiene x freshness).
pub const PRESENT: u8 = 1;
pub const DIRTY: u8 = 2;
pub const VALID: u8 = 4;

#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Line {
    pub st: u8,
    pub val: i64,
}

impl Line {
    #[inline(always)]
    pub fn present(&self) -> bool {
        self.st & PRESENT != 0
    }
    #[inline(always)]
    pub fn dirty(&self) -> bool {
        self.st & DIRTY != 0
    }
    #[inline(always)]
    pub fn valid(&self) -> bool {
        self.st & VALID != 0
    }
    #[inline(always)]
    pub fn readable(&self) -> bool {
        self.st & (PRESENT | VALID) == (PRESENT | VALID)
    }
}

/// A fifo element: an address `a < naddr`, or `naddr + t`: FLUSH of thread t.
pub type FifoEl = u16;

/// A machine state with its fields apart ([RSP15] Fig. 4): what tests build
/// and reports print. The explorer works on the packed form (`Packed`,
/// `Machine::pack` / `unpack`).
#[derive(Default, Clone, PartialEq, Eq, Debug)]
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

/// A state packed into bytes, fields at fixed offsets (`Layout`), fifos
/// last with their lengths. The bytes are the state's canonical encoding:
/// the explorer copies, hashes, compares and stores them as they are.
/// `overflow`: a step wrote a number the layout's widths cannot hold (the
/// explorer then starts again with wider fields).
#[derive(Default, Clone, PartialEq, Eq, Debug)]
pub struct Packed {
    pub b: Vec<u8>,
    pub overflow: bool,
}

impl Packed {
    /// Become a copy of the packed state s.
    #[inline(always)]
    pub fn copy_from(&mut self, s: &[u8]) {
        self.b.clear();
        self.b.extend_from_slice(s);
        self.overflow = false;
    }
}

/// Where each field of a packed state lies. Values (registers, cache
/// lines, memory) take `vw` bytes, two's complement; pcs, fifo lengths
/// and elements and lock holders take `sw` bytes, unsigned; a cache line
/// is its status byte then its value (0 when absent).
#[derive(Clone, Debug)]
pub struct Layout {
    pub vw: usize,
    pub sw: usize,
    pc: usize,
    regs: usize,
    l1: usize,
    l2: usize,
    mem: usize,
    rmw_lock: usize,
    lockfile: usize,
    fifos: usize,
}

/// What a thread's code from some pc on may still access, as bit masks
/// of addresses (`Machine::future`).
#[derive(Clone, Copy, Default, Debug)]
pub struct Future {
    /// Read through the L1: LD, L1 RMW.
    pub l1: u64,
    /// Read at the L2: L2 RMW.
    pub l2: u64,
    /// Written, at any level: ST, RMW.
    pub writes: u64,
}

/// A program with its layout: counts and who is where.
pub struct Machine {
    pub prog: MProgram,
    pub naddr: usize,
    pub ndev: usize,
    pub nwg: usize,
    pub wg_dev: Vec<usize>,
    pub reg_off: Vec<usize>,
    /// Per thread and pc (0..=code length): what the code from that pc
    /// on may still access (`Future`); None with more than 64 addresses.
    /// Branches go forward only, so this is everything the thread can
    /// still do.
    pub future: Option<Vec<Vec<Future>>>,
    pub lay: Layout,
}

impl Machine {
    /// The machine of a program, its values packed in the fewest bytes
    /// (1, 2, 4 or 8) that hold the initial memory.
    pub fn new(prog: MProgram) -> Result<Machine, Error> {
        let vw = [1, 2, 4, 8].into_iter().find(|&w| prog.locations.iter().all(|l| fits(l.init, w))).unwrap_or(8);
        Machine::with_value_width(prog, vw)
    }

    /// The same machine with values twice as wide (None: already 8 bytes).
    pub fn widened(&self) -> Option<Machine> {
        (self.lay.vw < 8).then(|| Machine::with_value_width(self.prog.clone(), 2 * self.lay.vw).expect("valid before"))
    }

    pub fn with_value_width(prog: MProgram, vw: usize) -> Result<Machine, Error> {
        let naddr = prog.locations.len();
        let nthreads = prog.threads.len();
        if nthreads == 0 {
            return Err(Error::invalid("the machine program has no thread"));
        }
        if naddr + nthreads >= u16::MAX as usize || nthreads >= u16::MAX as usize - 1 {
            return Err(Error::invalid("too many addresses or threads for the machine"));
        }
        let nwg = prog.threads.iter().map(|t| t.wg).max().unwrap_or(0) + 1;
        let ndev = prog.threads.iter().map(|t| t.dev).max().unwrap_or(0) + 1;
        let mut wg_dev: Vec<Option<usize>> = vec![None; nwg];
        for t in &prog.threads {
            match wg_dev[t.wg] {
                None => wg_dev[t.wg] = Some(t.dev),
                Some(d) if d != t.dev => {
                    return Err(Error::invalid(format!("work-group {} is in two devices ({d} and {})", t.wg, t.dev)))
                }
                _ => {}
            }
        }
        let wg_dev: Vec<usize> = wg_dev
            .into_iter()
            .enumerate()
            .map(|(w, d)| d.ok_or_else(|| Error::invalid(format!("work-group {w} has no thread"))))
            .collect::<Result<_, _>>()?;
        for d in 0..ndev {
            if !wg_dev.contains(&d) {
                return Err(Error::invalid(format!("device {d} has no work-group")));
            }
        }
        let mut reg_off = Vec::with_capacity(nthreads + 1);
        let mut off = 0;
        for t in &prog.threads {
            reg_off.push(off);
            off += t.nregs;
        }
        reg_off.push(off);
        let future = (naddr <= 64).then(|| {
            prog.threads
                .iter()
                .map(|t| {
                    let mut masks = vec![Future::default(); t.code.len() + 1];
                    for pc in (0..t.code.len()).rev() {
                        let mut f = masks[pc + 1];
                        match &t.code[pc] {
                            MInstr::Ld { loc, .. } => f.l1 |= 1 << loc,
                            MInstr::St { loc, .. } => f.writes |= 1 << loc,
                            MInstr::Rmw { level, loc, .. } => {
                                *if *level == 1 { &mut f.l1 } else { &mut f.l2 } |= 1 << loc;
                                f.writes |= 1 << loc;
                            }
                            _ => {}
                        }
                        masks[pc] = f;
                    }
                    masks
                })
                .collect()
        });
        // Small numbers: pcs up to the longest code, fifo elements up to
        // naddr + nthreads (FLUSH markers), lock holders up to nthreads;
        // fifo lengths are checked as they grow. Wide values, wide smalls.
        let longest = prog.threads.iter().map(|t| t.code.len()).max().unwrap_or(0);
        let sw = if vw == 1 && longest.max(naddr + nthreads) < 255 { 1 } else { 2 };
        let nregs = *reg_off.last().unwrap();
        let pc = 0;
        let regs = pc + nthreads * sw;
        let l1 = regs + nregs * vw;
        let l2 = l1 + nwg * naddr * (1 + vw);
        let mem = l2 + ndev * naddr * (1 + vw);
        // The lock fields take room only in programs that lock.
        let uses = |f: fn(&MInstr) -> bool| prog.threads.iter().any(|t| t.code.iter().any(f));
        let rmw_locks = uses(|i| matches!(i, MInstr::Lkrmw { .. } | MInstr::Unlkrmw { .. }));
        let locks = uses(|i| matches!(i, MInstr::Lk { .. } | MInstr::Unlk { .. }));
        let rmw_lock = mem + naddr * vw;
        let lockfile = rmw_lock + if rmw_locks { nwg * sw } else { 0 };
        let fifos = lockfile + if locks { ndev * naddr * sw } else { 0 };
        let lay = Layout { vw, sw, pc, regs, l1, l2, mem, rmw_lock, lockfile, fifos };
        let m = Machine { prog, naddr, ndev, nwg, wg_dev, reg_off, future, lay };
        m.validate()?;
        Ok(m)
    }

    fn validate(&self) -> Result<(), Error> {
        for t in &self.prog.threads {
            let len = t.code.len();
            for (pc, ins) in t.code.iter().enumerate() {
                let at = || format!("{}, instruction {pc}", t.name);
                let loc_ok = |l: usize| {
                    if l < self.naddr {
                        Ok(())
                    } else {
                        Err(Error::invalid(format!("{}: address out of range", at())))
                    }
                };
                let reg_ok = |r: usize| {
                    if r < t.nregs {
                        Ok(())
                    } else {
                        Err(Error::invalid(format!("{}: register out of range", at())))
                    }
                };
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
                            return Err(Error::invalid(format!("{}: RMW level must be 1 or 2", at())));
                        }
                        use crate::program::RmwOp::*;
                        if matches!(rmw, Cas | CasOld) != expected.is_some() {
                            return Err(Error::invalid(format!(
                                "{}: a compare-exchange needs an expected value, only it",
                                at()
                            )));
                        }
                    }
                    MInstr::Flu { level, scope } | MInstr::Inv { level, scope } => {
                        if *level != 1 && *level != 2 {
                            return Err(Error::invalid(format!("{}: cache level must be 1 or 2", at())));
                        }
                        if *level == 2 && *scope == Scope::Wg {
                            return Err(Error::invalid(format!(
                                "{}: an L2 cache serves a device: scope WG is meaningless",
                                at()
                            )));
                        }
                    }
                    MInstr::Lkrmw { .. } | MInstr::Unlkrmw { .. } | MInstr::Cut => {}
                    MInstr::Assign { dst, .. } => reg_ok(*dst)?,
                    MInstr::Branch { target, .. } | MInstr::Jump { target } => {
                        if *target <= pc || *target > len {
                            return Err(Error::invalid(format!("{}: branch target {target} is not forward", at())));
                        }
                    }
                }
            }
        }
        for o in &self.prog.observed {
            match o {
                Observed::Reg { thread, reg } => {
                    if *thread >= self.prog.threads.len() || *reg >= self.prog.threads[*thread].nregs {
                        return Err(Error::invalid("observed register out of range"));
                    }
                }
                Observed::Loc { loc } => {
                    if *loc >= self.naddr {
                        return Err(Error::invalid("observed location out of range"));
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

    #[inline(always)]
    pub fn marker(&self, t: usize) -> FifoEl {
        (self.naddr + t) as FifoEl
    }

    /// The machine with its field widths at hand (read from the layout).
    #[inline(always)]
    pub fn view(&self) -> View<'_> {
        View { m: self }
    }

    /// The machine with field widths VW and SW as constants (the
    /// explorer's specialised copy); None if its layout has others.
    #[inline(always)]
    pub fn view_as<const VW: usize, const SW: usize>(&self) -> Option<View<'_, VW, SW>> {
        (self.lay.vw == VW && self.lay.sw == SW).then_some(View { m: self })
    }

    /// The packed form of a state (of this machine's shape).
    pub fn pack(&self, st: &State) -> Packed {
        let v = self.view();
        let mut s = Packed { b: vec![0; self.lay.fifos], overflow: false };
        for (t, &pc) in st.pc.iter().enumerate() {
            v.set_pc(&mut s, t, pc as usize);
        }
        for t in 0..self.nthreads() {
            for r in 0..self.prog.threads[t].nregs {
                v.set_reg(&mut s, t, r, st.regs[self.reg_off[t] + r]);
            }
        }
        for (w, &h) in st.rmw_lock.iter().enumerate() {
            v.set_rmw_lock(&mut s, w, h as usize);
        }
        for a in 0..self.naddr {
            for w in 0..self.nwg {
                v.set_l1(&mut s, w, a, st.l1[w * self.naddr + a]);
            }
            for d in 0..self.ndev {
                v.set_l2(&mut s, d, a, st.l2[d * self.naddr + a]);
                v.set_lockfile(&mut s, d, a, st.lockfile[d * self.naddr + a] as usize);
            }
            v.set_mem(&mut s, a, st.mem[a]);
        }
        for _ in st.l1_fifo.iter().chain(&st.l2_fifo) {
            s.b.extend(std::iter::repeat_n(0, v.sw()));
        }
        for (f, fifo) in st.l1_fifo.iter().chain(&st.l2_fifo).enumerate() {
            for &e in fifo {
                v.push(&mut s, f, e);
            }
        }
        s
    }

    /// The state of a packed one, fields apart.
    pub fn unpack(&self, s: &[u8]) -> State {
        let v = self.view();
        let na = self.naddr;
        State {
            pc: (0..self.nthreads()).map(|t| v.pc(s, t) as u32).collect(),
            regs: (0..self.nthreads())
                .flat_map(|t| (0..self.prog.threads[t].nregs).map(move |r| (t, r)))
                .map(|(t, r)| v.reg(s, t, r))
                .collect(),
            l1: (0..self.nwg * na).map(|k| v.l1(s, k / na, k % na)).collect(),
            l2: (0..self.ndev * na).map(|k| v.l2(s, k / na, k % na)).collect(),
            mem: (0..na).map(|a| v.mem(s, a)).collect(),
            l1_fifo: (0..self.nwg).map(|w| v.fifo(s, w)).collect(),
            l2_fifo: (0..self.ndev).map(|d| v.fifo(s, self.nwg + d)).collect(),
            rmw_lock: (0..self.nwg).map(|w| v.rmw_lock(s, w) as u16).collect(),
            lockfile: (0..self.ndev * na).map(|k| v.lockfile(s, k / na, k % na) as u16).collect(),
        }
    }
}

/// A machine seen through its field widths: the accessors of packed
/// states, and the steps (`step`). `VW` and `SW` > 0 are the layout's
/// widths as constants, which the compiler folds into every access (the
/// explorer's copy for 1-byte fields, `Machine::view_as`); 0 reads them
/// from the layout (`Machine::view`). Same fields, same bytes either way.
#[derive(Clone, Copy)]
pub struct View<'m, const VW: usize = 0, const SW: usize = 0> {
    m: &'m Machine,
}

impl<const VW: usize, const SW: usize> std::ops::Deref for View<'_, VW, SW> {
    type Target = Machine;
    #[inline(always)]
    fn deref(&self) -> &Machine {
        self.m
    }
}

impl<const VW: usize, const SW: usize> View<'_, VW, SW> {
    /// Bytes of a value.
    #[inline(always)]
    pub fn vw(&self) -> usize {
        if VW == 0 {
            self.m.lay.vw
        } else {
            VW
        }
    }
    /// Bytes of a small number (pc, fifo length or element, lock holder).
    #[inline(always)]
    pub fn sw(&self) -> usize {
        if SW == 0 {
            self.m.lay.sw
        } else {
            SW
        }
    }

    /// All threads done, every fifo drained, no dirty line ([RSP15] sec. 5).
    pub fn is_final(&self, s: &[u8]) -> bool {
        let lay = &self.lay;
        (0..self.nthreads()).all(|t| self.pc(s, t) == self.prog.threads[t].code.len())
            && self.fifos(s).all(|(_, n)| n == 0)
            && s[lay.l1..lay.mem].chunks_exact(1 + self.vw()).all(|l| l[0] & DIRTY == 0)
    }

    /// The observed registers and memory of a state.
    pub fn outcome(&self, s: &[u8]) -> Vec<i64> {
        self.prog
            .observed
            .iter()
            .map(|o| match o {
                Observed::Reg { thread, reg } => self.reg(s, *thread, *reg),
                Observed::Loc { loc } => self.mem(s, *loc),
            })
            .collect()
    }

    // ------------------------------------------------------ packed states
    // Fifo f: the L1 fifo of work-group f for f < nwg, else the L2 fifo of
    // device f - nwg.

    #[inline(always)]
    pub(super) fn get_small(&self, s: &[u8], o: usize) -> usize {
        if self.sw() == 1 {
            s[o] as usize
        } else {
            u16::from_le_bytes([s[o], s[o + 1]]) as usize
        }
    }

    #[inline(always)]
    fn put_small(&self, s: &mut Packed, o: usize, v: usize) {
        if self.sw() == 1 {
            s.overflow |= v > u8::MAX as usize;
            s.b[o] = v as u8;
        } else {
            s.overflow |= v > u16::MAX as usize;
            s.b[o..o + 2].copy_from_slice(&(v as u16).to_le_bytes());
        }
    }

    #[inline(always)]
    fn get_val(&self, s: &[u8], o: usize) -> i64 {
        match self.vw() {
            1 => s[o] as i8 as i64,
            2 => i16::from_le_bytes([s[o], s[o + 1]]) as i64,
            4 => i32::from_le_bytes(s[o..o + 4].try_into().unwrap()) as i64,
            _ => i64::from_le_bytes(s[o..o + 8].try_into().unwrap()),
        }
    }

    #[inline(always)]
    fn put_val(&self, s: &mut Packed, o: usize, v: i64) {
        let w = self.vw();
        s.overflow |= !fits(v, w);
        s.b[o..o + w].copy_from_slice(&v.to_le_bytes()[..w]);
    }

    #[inline(always)]
    pub fn pc(&self, s: &[u8], t: usize) -> usize {
        self.get_small(s, self.lay.pc + t * self.sw())
    }
    #[inline(always)]
    pub fn set_pc(&self, s: &mut Packed, t: usize, pc: usize) {
        self.put_small(s, self.lay.pc + t * self.sw(), pc)
    }
    /// Register r of thread t.
    #[inline(always)]
    pub fn reg(&self, s: &[u8], t: usize, r: usize) -> i64 {
        self.get_val(s, self.lay.regs + (self.reg_off[t] + r) * self.vw())
    }
    #[inline(always)]
    pub fn set_reg(&self, s: &mut Packed, t: usize, r: usize, v: i64) {
        self.put_val(s, self.lay.regs + (self.reg_off[t] + r) * self.vw(), v)
    }
    #[inline(always)]
    fn line_at(&self, s: &[u8], o: usize) -> Line {
        Line { st: s[o], val: self.get_val(s, o + 1) }
    }
    #[inline(always)]
    fn set_line_at(&self, s: &mut Packed, o: usize, l: Line) {
        s.b[o] = l.st;
        self.put_val(s, o + 1, l.val)
    }
    /// Entry a of work-group w's L1.
    #[inline(always)]
    pub fn l1(&self, s: &[u8], w: usize, a: usize) -> Line {
        self.line_at(s, self.lay.l1 + (w * self.naddr + a) * (1 + self.vw()))
    }
    #[inline(always)]
    pub fn set_l1(&self, s: &mut Packed, w: usize, a: usize, l: Line) {
        self.set_line_at(s, self.lay.l1 + (w * self.naddr + a) * (1 + self.vw()), l)
    }
    /// Entry a of device d's L2.
    #[inline(always)]
    pub fn l2(&self, s: &[u8], d: usize, a: usize) -> Line {
        self.line_at(s, self.lay.l2 + (d * self.naddr + a) * (1 + self.vw()))
    }
    #[inline(always)]
    pub fn set_l2(&self, s: &mut Packed, d: usize, a: usize, l: Line) {
        self.set_line_at(s, self.lay.l2 + (d * self.naddr + a) * (1 + self.vw()), l)
    }
    #[inline(always)]
    pub fn mem(&self, s: &[u8], a: usize) -> i64 {
        self.get_val(s, self.lay.mem + a * self.vw())
    }
    #[inline(always)]
    pub fn set_mem(&self, s: &mut Packed, a: usize, v: i64) {
        self.put_val(s, self.lay.mem + a * self.vw(), v)
    }
    /// Where entry k of the small-number field [start, end) lies; None
    /// when the field is left out (a program without that kind of lock).
    #[inline(always)]
    fn small_at(&self, start: usize, end: usize, k: usize) -> Option<usize> {
        (start < end).then(|| start + k * self.sw())
    }
    #[inline(always)]
    fn get_lock(&self, s: &[u8], at: Option<usize>) -> usize {
        at.map_or(0, |o| self.get_small(s, o))
    }
    #[inline(always)]
    fn set_lock(&self, s: &mut Packed, at: Option<usize>, h: usize) {
        match at {
            Some(o) => self.put_small(s, o, h),
            // Left out: only "free" fits.
            None => s.overflow |= h != 0,
        }
    }
    /// Work-group w's rmw lock: 0 free, t + 1 held by thread t.
    #[inline(always)]
    pub fn rmw_lock(&self, s: &[u8], w: usize) -> usize {
        self.get_lock(s, self.small_at(self.lay.rmw_lock, self.lay.lockfile, w))
    }
    pub fn set_rmw_lock(&self, s: &mut Packed, w: usize, h: usize) {
        self.set_lock(s, self.small_at(self.lay.rmw_lock, self.lay.lockfile, w), h)
    }
    /// Device d's lock of address a: 0 free, t + 1 held by thread t.
    #[inline(always)]
    pub fn lockfile(&self, s: &[u8], d: usize, a: usize) -> usize {
        self.get_lock(s, self.small_at(self.lay.lockfile, self.lay.fifos, d * self.naddr + a))
    }
    pub fn set_lockfile(&self, s: &mut Packed, d: usize, a: usize, h: usize) {
        self.set_lock(s, self.small_at(self.lay.lockfile, self.lay.fifos, d * self.naddr + a), h)
    }
    /// Each fifo in turn (`f` order): where its elements start, and its length.
    pub(super) fn fifos<'s>(&'s self, s: &'s [u8]) -> impl Iterator<Item = (usize, usize)> + 's {
        let sw = self.sw();
        let mut o = self.lay.fifos;
        (0..self.nwg + self.ndev).map(move |_| {
            let n = self.get_small(s, o);
            o += sw * (1 + n);
            (o - sw * n, n)
        })
    }
    /// Where fifo f's elements start, and its length.
    #[inline(always)]
    fn fifo_at(&self, s: &[u8], f: usize) -> (usize, usize) {
        self.fifos(s).nth(f).expect("a fifo of this machine")
    }
    pub fn fifo(&self, s: &[u8], f: usize) -> Vec<FifoEl> {
        let (o, n) = self.fifo_at(s, f);
        (0..n).map(|i| self.get_small(s, o + i * self.sw()) as FifoEl).collect()
    }
    #[inline(always)]
    pub fn fifo_head(&self, s: &[u8], f: usize) -> Option<FifoEl> {
        let (o, n) = self.fifo_at(s, f);
        (n > 0).then(|| self.get_small(s, o) as FifoEl)
    }
    /// Whether e is somewhere in a fifo.
    pub fn in_some_fifo(&self, s: &[u8], e: FifoEl) -> bool {
        let mut found = false;
        self.each_fifo_el(s, |x| found |= x == e);
        found
    }
    /// f of every element of every fifo, fifo by fifo, head first (plain
    /// loops: an iterator chain here cost the explorer 5% more instructions).
    pub fn each_fifo_el(&self, s: &[u8], mut f: impl FnMut(FifoEl)) {
        let sw = self.sw();
        for (o, n) in self.fifos(s) {
            for i in 0..n {
                f(self.get_small(s, o + i * sw) as FifoEl);
            }
        }
    }
    /// Append e to fifo f.
    pub fn push(&self, s: &mut Packed, f: usize, e: FifoEl) {
        let sw = self.sw();
        let (o, n) = self.fifo_at(&s.b, f);
        self.put_small(s, o - sw, n + 1);
        let at = o + n * sw;
        if sw == 1 {
            s.b.insert(at, e as u8);
        } else {
            s.b.splice(at..at, e.to_le_bytes());
        }
    }
    /// Remove fifo f's head (f not empty).
    pub fn pop(&self, s: &mut Packed, f: usize) {
        let sw = self.sw();
        let (o, n) = self.fifo_at(&s.b, f);
        self.put_small(s, o - sw, n - 1);
        s.b.drain(o..o + sw);
    }
}

/// Whether v fits in w bytes, two's complement.
fn fits(v: i64, w: usize) -> bool {
    w >= 8 || (v >> (8 * w - 1)) == 0 || (v >> (8 * w - 1)) == -1
}

/// LEB128 varints (the explorer's record lengths).
pub(super) fn put_u(out: &mut Vec<u8>, v: u64) {
    let (b, n) = varint(v);
    out.extend_from_slice(&b[..n]);
}

/// The LEB128 bytes of v, and how many there are.
#[inline(always)]
pub(super) fn varint(mut v: u64) -> ([u8; 10], usize) {
    let (mut b, mut n) = ([0u8; 10], 0);
    while v >= 0x80 {
        b[n] = (v as u8) | 0x80;
        v >>= 7;
        n += 1;
    }
    b[n] = v as u8;
    (b, n + 1)
}

/// The bytes `put_u` (`varint`) takes for v.
pub(super) fn varint_len(v: u64) -> usize {
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
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
