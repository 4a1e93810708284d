//! The small IR that Python's `hrf.program` compiles a litmus test to.
//!
//! Threads are straight-line code with forward jumps only (loops are
//! unrolled by Python); memory operations name an event template that holds
//! the event's tags (atomicity, order, scope, region, ...) and integer
//! attributes (scope instance, barrier instance, ...). The core gives those
//! names no meaning: models refer to them.

use crate::error::Error;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Program {
    pub name: String,
    pub locations: Vec<Location>,
    pub threads: Vec<Thread>,
    pub templates: Vec<EventTemplate>,
    /// The final-state variables an outcome is made of (herd: the
    /// condition's variables plus a `locations` clause).
    pub observed: Vec<Observed>,
    pub condition: Cond,
    /// The condition's value on an execution that settles the test's
    /// quantifier: true for `exists` and `~exists`, false for `forall`
    /// (`Limits::decide` stops at the first such execution).
    #[serde(default)]
    pub deciding_value: bool,
    /// Only executions whose outcome satisfies it count (Dat3M's `filter`).
    #[serde(default)]
    pub filter: Option<Cond>,
    /// `co` orders only some pairs of writes of a location: it is any strict
    /// partial order with the initial write first, and the final value of a
    /// location is that of one of its co-maximal writes (Dat3M's reading of
    /// PTX, whose model says "co in PTX is not total").
    #[serde(default)]
    pub partial_co: bool,
    /// Pairs of threads (a, b) whose every event system-synchronises-with
    /// every event of b (Dat3M's Vulkan `ssw`: work ordered by the host).
    #[serde(default)]
    pub sync_with: Vec<(usize, usize)>,
    /// Barriers with a thread count (Dat3M's quorum barriers): an
    /// execution is one whose path combination reaches at least `q` events
    /// of `sync` templates for each quorum; a combination that reaches
    /// fewer than `q` events of `all` is blocked (no thread passes).
    #[serde(default)]
    pub quorums: Vec<Quorum>,
}

/// One barrier instance with a thread count: the templates of its events
/// that synchronise (`sync`, those chosen into the synchronising set) and
/// all its templates (`all`, the synchronising ones included).
#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Quorum {
    pub q: usize,
    pub sync: Vec<usize>,
    pub all: Vec<usize>,
}

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Location {
    pub name: String,
    pub init: i64,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub attrs: BTreeMap<String, i64>,
}

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Thread {
    pub name: String,
    /// Thread attributes such as `wg`, `dev`, `sg`: the scope tree.
    #[serde(default)]
    pub attrs: BTreeMap<String, i64>,
    pub nregs: usize,
    /// Register names by index (the source's; for people and the
    /// compilation schemes, not for the core's semantics).
    #[serde(default)]
    pub regs: Vec<String>,
    pub code: Vec<Instr>,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, schemars::JsonSchema)]
pub enum Kind {
    R,
    W,
    F,
}

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventTemplate {
    pub kind: Kind,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub attrs: BTreeMap<String, i64>,
    /// Unsequenced evaluation (C11): (operator, operand side) marks. Two
    /// events of a thread are unordered by po when some operator has them
    /// on different sides (its operands are evaluated unsequenced).
    #[serde(default)]
    pub unseq: Vec<(u32, u8)>,
    /// The attribute whose value is the event's own value, known only on
    /// its path (a barrier resource held in a register): it is not in `attrs`.
    #[serde(default)]
    pub value_attr: Option<String>,
}

impl EventTemplate {
    pub fn unsequenced_with(&self, o: &EventTemplate) -> bool {
        self.unseq.iter().any(|(op, side)| o.unseq.iter().any(|(op2, side2)| op == op2 && side != side2))
    }
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RmwOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    Exch,
    Cas,
    /// Compare-and-swap returning the old value (PTX `atom.cas`).
    CasOld,
    /// Compare-and-swap that always writes: the new value where the old one
    /// is the expected one, else the old value again (Dartagnan's reading
    /// of PTX `atom.cas`, `*a = (*a == b) ? c : *a`); returns the old value.
    CasAlways,
    /// The smaller and the larger of the old value and the operand, signed
    /// (PTX `atom.min.s32`, SPIR-V's OpAtomicSMin) ...
    Min,
    Max,
    /// ... and unsigned (`atom.min.u32`, OpAtomicUMin): values compared as
    /// unsigned 64-bit numbers.
    Umin,
    Umax,
    /// PTX `atom.inc`: `old >= b ? 0 : old + 1`, and `atom.dec`:
    /// `old == 0 || old > b ? b : old - 1`, comparisons unsigned.
    Inc,
    Dec,
    /// A value function: writes `val` evaluated with `Expr::Old` as the
    /// value read (an object whose update is no single operation: an
    /// mbarrier's phase completing); the register gets the old value.
    Update,
}

impl RmwOp {
    /// The RMW on a location holding `old`: the value it writes (None when
    /// a compare-and-swap fails) and the value its destination register
    /// gets (the old value; for `Cas`, 1 on success and 0 on failure, as
    /// herd's OpenCL). Shared by the candidate enumerator and the machine.
    pub fn apply(self, old: i64, operand: i64, expected: Option<i64>) -> (Option<i64>, i64) {
        let new = match self {
            RmwOp::Add => Some(old.wrapping_add(operand)),
            RmwOp::Sub => Some(old.wrapping_sub(operand)),
            RmwOp::Mul => Some(old.wrapping_mul(operand)),
            RmwOp::And => Some(old & operand),
            RmwOp::Or => Some(old | operand),
            RmwOp::Xor => Some(old ^ operand),
            RmwOp::Exch => Some(operand),
            RmwOp::Cas | RmwOp::CasOld => (Some(old) == expected).then_some(operand),
            RmwOp::CasAlways => Some(if Some(old) == expected { operand } else { old }),
            RmwOp::Min => Some(old.min(operand)),
            RmwOp::Max => Some(old.max(operand)),
            RmwOp::Umin => Some(if (old as u64) <= (operand as u64) { old } else { operand }),
            RmwOp::Umax => Some(if (old as u64) >= (operand as u64) { old } else { operand }),
            RmwOp::Inc => Some(if (old as u64) >= (operand as u64) { 0 } else { old.wrapping_add(1) }),
            RmwOp::Dec => Some(if old == 0 || (old as u64) > (operand as u64) { operand } else { old.wrapping_sub(1) }),
            // the operand is the value function's, evaluated on `old` (`operand_of`)
            RmwOp::Update => Some(operand),
        };
        let result = if self == RmwOp::Cas { new.is_some() as i64 } else { old };
        (new, result)
    }

    /// The operand of this RMW on a location holding `old`: `val` on the
    /// registers, `Expr::Old` read as `old` (only an `Update` may name it).
    pub fn operand_of(self, val: &Expr, reg: &impl Fn(usize) -> Option<i64>, old: i64) -> Result<i64, Error> {
        val.eval_full(reg, (self == RmwOp::Update).then_some(old))
    }
}

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields, tag = "op", rename_all = "lowercase")]
pub enum Instr {
    Load {
        dst: Option<usize>,
        loc: usize,
        ev: usize,
        #[serde(default)]
        at: Option<At>,
    },
    Store {
        loc: usize,
        val: Expr,
        ev: usize,
        #[serde(default)]
        at: Option<At>,
    },
    /// Read-modify-write: a read and, unless a compare-exchange fails, a
    /// write linked to it by `rmw`. `dst` gets the old value, or for `cas`
    /// 1 on success and 0 on failure (herd's OpenCL convention). A failing
    /// `cas` with `fail_store` writes the value it read there (C11: into
    /// the expected object).
    Rmw {
        dst: Option<usize>,
        loc: usize,
        rmw: RmwOp,
        val: Expr,
        #[serde(default)]
        expected: Option<Expr>,
        ev_r: usize,
        ev_w: usize,
        #[serde(default)]
        ev_fail: Option<usize>,
        #[serde(default)]
        fail_store: Option<FailStore>,
        #[serde(default)]
        at: Option<At>,
    },
    Fence {
        ev: usize,
        /// The event's value, where it has one: a barrier's resource
        /// (PTX's `bar.cta.sync 1, r2`), read by a template's `value_attr`.
        #[serde(default)]
        val: Option<Expr>,
    },
    Assign {
        dst: usize,
        val: Expr,
    },
    /// Go on at `target` or at the next instruction, a path each (a choice
    /// the program does not make: which barriers synchronise).
    Choose {
        target: usize,
    },
    /// Jump to `target` when `cond` is non-zero.
    Branch {
        cond: Expr,
        target: usize,
    },
    Jump {
        target: usize,
    },
    /// A path that reaches this was cut by the loop-unrolling bound.
    Cut,
}

/// Is register `d` dead at instruction `k` (`live`: the registers live before each)?
fn dead_at(live: &[Vec<bool>], k: usize, d: usize) -> bool {
    !live.get(k).is_some_and(|l| l.get(d).copied().unwrap_or(true))
}

/// Does `e` read no register but `d` (of `nregs`)?
fn reads_only(e: &Expr, d: usize, nregs: usize) -> bool {
    let mut reads = vec![false; nregs];
    e.mark_regs(&mut reads);
    reads.iter().enumerate().all(|(k, &u)| !u || k == d)
}

/// How a load's value is used (`Program::load_uses`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LoadUse {
    /// Its register is read: a path for each value it may read.
    #[default]
    Value,
    /// Nothing reads its register: one path, reading any write.
    Free,
    /// Only the next instruction reads it, an assignment of a function of
    /// it (a load) or a branch on one (an RMW): a path for each image of
    /// that function, the read reading any write of a value with that image.
    Mapped,
}

impl Instr {
    /// Mark every register the instruction reads: its values, conditions
    /// and expected values, and a computed address's offset.
    pub fn mark_reads(&self, used: &mut [bool]) {
        match self {
            Instr::Store { val, .. } | Instr::Assign { val, .. } => val.mark_regs(used),
            Instr::Branch { cond, .. } | Instr::Fence { val: Some(cond), .. } => cond.mark_regs(used),
            Instr::Rmw { val, expected, .. } => {
                val.mark_regs(used);
                if let Some(e) = expected {
                    e.mark_regs(used);
                }
            }
            Instr::Load { .. }
            | Instr::Fence { val: None, .. }
            | Instr::Jump { .. }
            | Instr::Choose { .. }
            | Instr::Cut => {}
        }
        if let Instr::Load { at: Some(a), .. } | Instr::Store { at: Some(a), .. } | Instr::Rmw { at: Some(a), .. } =
            self
        {
            a.off.mark_regs(used);
        }
    }
}

/// A computed address (`y + r0` in C): the access is to location
/// `loc + off`, `off` evaluated on the path's registers, which must name
/// one of the `len` locations from `loc` (an array's elements; 1 for a
/// single location). The locations are those an access may reach.
#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct At {
    pub off: Expr,
    pub len: usize,
}

/// The locations an access at `loc` may reach: `loc` itself, or with a
/// computed address every one of its array.
pub fn reach(loc: usize, at: &Option<At>) -> std::ops::Range<usize> {
    loc..loc + at.as_ref().map_or(1, |a| a.len)
}

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FailStore {
    pub loc: usize,
    pub ev: usize,
}

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields, tag = "k", rename_all = "lowercase")]
pub enum Expr {
    C {
        v: i64,
    },
    R {
        r: usize,
    },
    Bin {
        o: String,
        a: Box<Expr>,
        b: Box<Expr>,
    },
    Not {
        a: Box<Expr>,
    },
    Neg {
        a: Box<Expr>,
    },
    /// The value the enclosing RMW reads (its `Update`'s value function alone).
    Old {},
}

impl Expr {
    /// Does the expression read no register?
    pub fn is_const(&self) -> bool {
        match self {
            Expr::C { .. } => true,
            Expr::R { .. } | Expr::Old {} => false,
            Expr::Not { a } | Expr::Neg { a } => a.is_const(),
            Expr::Bin { a, b, .. } => a.is_const() && b.is_const(),
        }
    }

    /// Does the expression read a register?
    pub fn names_register(&self) -> bool {
        match self {
            Expr::R { .. } => true,
            Expr::C { .. } | Expr::Old {} => false,
            Expr::Not { a } | Expr::Neg { a } => a.names_register(),
            Expr::Bin { a, b, .. } => a.names_register() || b.names_register(),
        }
    }

    /// Does the expression name `Expr::Old`?
    pub fn names_old(&self) -> bool {
        match self {
            Expr::Old {} => true,
            Expr::C { .. } | Expr::R { .. } => false,
            Expr::Not { a } | Expr::Neg { a } => a.names_old(),
            Expr::Bin { a, b, .. } => a.names_old() || b.names_old(),
        }
    }

    /// Every constant of the expression.
    pub fn constants(&self, out: &mut std::collections::BTreeSet<i64>) {
        match self {
            Expr::C { v } => {
                out.insert(*v);
            }
            Expr::R { .. } | Expr::Old {} => {}
            Expr::Not { a } | Expr::Neg { a } => a.constants(out),
            Expr::Bin { a, b, .. } => {
                a.constants(out);
                b.constants(out);
            }
        }
    }

    /// Mark every register the expression reads.
    pub fn mark_regs(&self, used: &mut [bool]) {
        match self {
            Expr::C { .. } | Expr::Old {} => {}
            Expr::R { r } => {
                if let Some(u) = used.get_mut(*r) {
                    *u = true;
                }
            }
            Expr::Not { a } | Expr::Neg { a } => a.mark_regs(used),
            Expr::Bin { a, b, .. } => {
                a.mark_regs(used);
                b.mark_regs(used);
            }
        }
    }

    /// The registers the expression reads, as a bit set over register
    /// taints: `taint[r]` is the set of reads register r depends on.
    pub fn deps<S: Copy + Default + std::ops::BitOr<Output = S>>(&self, taint: &[S]) -> S {
        match self {
            Expr::C { .. } | Expr::Old {} => S::default(),
            Expr::R { r } => taint.get(*r).copied().unwrap_or_default(),
            Expr::Not { a } | Expr::Neg { a } => a.deps(taint),
            Expr::Bin { a, b, .. } => a.deps(taint) | b.deps(taint),
        }
    }

    pub fn eval(&self, regs: &[i64]) -> Result<i64, Error> {
        self.eval_with(&|r| regs.get(r).copied())
    }

    /// The value, register r read as `reg(r)` (None: no such register).
    pub fn eval_with(&self, reg: &impl Fn(usize) -> Option<i64>) -> Result<i64, Error> {
        self.eval_full(reg, None)
    }

    /// The value, `Expr::Old` read as `old` (None: an error, outside an update RMW).
    pub fn eval_full(&self, reg: &impl Fn(usize) -> Option<i64>, old: Option<i64>) -> Result<i64, Error> {
        Ok(match self {
            Expr::C { v } => *v,
            Expr::R { r } => reg(*r).ok_or_else(|| Error::invalid("register index out of range"))?,
            Expr::Old {} => old.ok_or_else(|| Error::invalid("the value an RMW reads, outside an update RMW"))?,
            Expr::Not { a } => (a.eval_full(reg, old)? == 0) as i64,
            Expr::Neg { a } => a.eval_full(reg, old)?.wrapping_neg(),
            Expr::Bin { o, a, b } => {
                let x = a.eval_full(reg, old)?;
                let y = b.eval_full(reg, old)?;
                match o.as_str() {
                    "+" => x.wrapping_add(y),
                    "-" => x.wrapping_sub(y),
                    "*" => x.wrapping_mul(y),
                    "&" => x & y,
                    "|" => x | y,
                    "^" => x ^ y,
                    // a logical shift right, of the value's 64 bits (a wide access's pieces)
                    ">>" if (0..64).contains(&y) => ((x as u64) >> y) as i64,
                    ">>" => 0,
                    "==" => (x == y) as i64,
                    "!=" => (x != y) as i64,
                    "<" => (x < y) as i64,
                    "<=" => (x <= y) as i64,
                    ">" => (x > y) as i64,
                    ">=" => (x >= y) as i64,
                    // PTX's unsigned comparisons (`setp.lo.u32`): the values' 64 bits as unsigned
                    "lo" => ((x as u64) < (y as u64)) as i64,
                    "ls" => ((x as u64) <= (y as u64)) as i64,
                    "hi" => ((x as u64) > (y as u64)) as i64,
                    "hs" => ((x as u64) >= (y as u64)) as i64,
                    // PTX's atom.add.f32 / red.add.f32 on .f32 data held as its bits: IEEE 754
                    // addition, rounding to nearest even; `+f32ftz` flushes subnormal inputs and
                    // results to zero of their sign, as the ISA says the global-memory form does
                    "+f32" | "+f32ftz" => f32_add(x, y, o == "+f32ftz"),
                    "&&" => (x != 0 && y != 0) as i64,
                    "||" => (x != 0 || y != 0) as i64,
                    other => return Err(Error::invalid(format!("unknown operator {other:?}"))),
                }
            }
        })
    }
}

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "lowercase")]
pub enum Observed {
    Reg { thread: usize, reg: usize },
    Loc { loc: usize },
}

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields, tag = "k", rename_all = "lowercase")]
pub enum Cond {
    True,
    False,
    Eq {
        var: usize,
        val: i64,
    },
    /// `a op b` over observed variables and numbers (Dat3M's `P0:r1 == P0:r2`, `x > 0`).
    Cmp {
        op: CmpOp,
        a: Arg,
        b: Arg,
    },
    And {
        args: Vec<Cond>,
    },
    Or {
        args: Vec<Cond>,
    },
    Not {
        a: Box<Cond>,
    },
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, schemars::JsonSchema)]
pub enum CmpOp {
    #[serde(rename = "==")]
    Eq,
    #[serde(rename = "!=")]
    Ne,
    #[serde(rename = "<")]
    Lt,
    #[serde(rename = "<=")]
    Le,
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = ">=")]
    Ge,
}

/// An operand of a comparison: an observed variable or a number.
#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields, tag = "k", rename_all = "lowercase")]
pub enum Arg {
    Var { var: usize },
    Val { val: i64 },
}

impl Arg {
    fn value(&self, values: &[i64]) -> Option<i64> {
        match self {
            Arg::Var { var } => values.get(*var).copied(),
            Arg::Val { val } => Some(*val),
        }
    }
}

impl Cond {
    /// Each observed variable (`var`) and each number (`val`) the condition reads.
    fn operands(&self, var: &mut dyn FnMut(usize), val: &mut dyn FnMut(i64)) {
        match self {
            Cond::True | Cond::False => {}
            Cond::Eq { var: v, val: x } => {
                var(*v);
                val(*x);
            }
            Cond::Cmp { a, b, .. } => {
                for x in [a, b] {
                    match x {
                        Arg::Var { var: v } => var(*v),
                        Arg::Val { val: x } => val(*x),
                    }
                }
            }
            Cond::And { args } | Cond::Or { args } => args.iter().for_each(|c| c.operands(var, val)),
            Cond::Not { a } => a.operands(var, val),
        }
    }

    /// The observed variables the condition reads.
    pub fn vars(&self, out: &mut Vec<usize>) {
        self.operands(&mut |v| out.push(v), &mut |_| {});
    }

    /// Every value the condition compares with.
    pub fn constants(&self, out: &mut std::collections::BTreeSet<i64>) {
        self.operands(&mut |_| {}, &mut |x| {
            out.insert(x);
        });
    }

    pub fn eval(&self, values: &[i64]) -> bool {
        match self {
            Cond::True => true,
            Cond::False => false,
            Cond::Eq { var, val } => values.get(*var) == Some(val),
            Cond::Cmp { op, a, b } => match (a.value(values), b.value(values)) {
                (Some(x), Some(y)) => match op {
                    CmpOp::Eq => x == y,
                    CmpOp::Ne => x != y,
                    CmpOp::Lt => x < y,
                    CmpOp::Le => x <= y,
                    CmpOp::Gt => x > y,
                    CmpOp::Ge => x >= y,
                },
                _ => false,
            },
            Cond::And { args } => args.iter().all(|c| c.eval(values)),
            Cond::Or { args } => args.iter().any(|c| c.eval(values)),
            Cond::Not { a } => !a.eval(values),
        }
    }
}

impl Program {
    /// Every constant of the program: initial values, constants of its
    /// instructions, values of its final condition.
    pub fn constants(&self) -> std::collections::BTreeSet<i64> {
        let mut out: std::collections::BTreeSet<i64> = self.locations.iter().map(|l| l.init).collect();
        for t in &self.threads {
            for i in &t.code {
                match i {
                    Instr::Store { val, .. }
                    | Instr::Assign { val, .. }
                    | Instr::Branch { cond: val, .. }
                    | Instr::Fence { val: Some(val), .. } => val.constants(&mut out),
                    Instr::Rmw { val, expected, .. } => {
                        val.constants(&mut out);
                        if let Some(e) = expected {
                            e.constants(&mut out);
                        }
                    }
                    _ => {}
                }
            }
        }
        self.condition.constants(&mut out);
        if let Some(f) = &self.filter {
            f.constants(&mut out);
        }
        out
    }

    /// Per location, the constant values its stores and exchanges write,
    /// whatever the path: a write guarded by a branch on a thin-air read
    /// (load buffering through control dependencies) writes one of these.
    pub fn constant_writes(&self) -> Vec<std::collections::BTreeSet<i64>> {
        let mut out = vec![std::collections::BTreeSet::new(); self.locations.len()];
        for t in &self.threads {
            for i in &t.code {
                match i {
                    Instr::Store { loc, val, at, .. }
                    | Instr::Rmw {
                        loc,
                        rmw:
                            RmwOp::Exch
                            | RmwOp::Cas
                            | RmwOp::CasOld
                            | RmwOp::CasAlways
                            | RmwOp::Min
                            | RmwOp::Max
                            | RmwOp::Umin
                            | RmwOp::Umax,
                        val,
                        at,
                        ..
                    } if val.is_const() => {
                        if let Ok(v) = val.eval(&[]) {
                            for l in reach(*loc, at) {
                                out[l].insert(v);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    }

    /// How each instruction of thread `t` that is a load uses its value
    /// (`LoadUse`, per instruction): free where nothing reads its register
    /// (`value_free_loads`); mapped where its register is read by the next
    /// instruction alone, an assignment of a function of it (and of
    /// constants) to another register, and by nothing after that before
    /// it is written again (a wait's read whose register gets "is the phase
    /// complete"): values with one image are then one path.
    pub fn load_uses(&self, t: usize) -> Vec<LoadUse> {
        let th = &self.threads[t];
        let free = self.value_free_loads(t);
        let n = th.code.len();
        // registers live before each instruction (the code jumps forward
        // only: one pass from the end), those observed live at the end
        let mut end = vec![false; th.nregs];
        for o in &self.observed {
            if let Observed::Reg { thread, reg } = o {
                if *thread == t {
                    if let Some(u) = end.get_mut(*reg) {
                        *u = true;
                    }
                }
            }
        }
        let mut live: Vec<Vec<bool>> = vec![end.clone(); n + 1];
        for pc in (0..n).rev() {
            let after = |k: usize| live.get(k).cloned().unwrap_or_else(|| end.clone());
            let mut l = match &th.code[pc] {
                Instr::Jump { target } => after(*target),
                Instr::Branch { target, .. } | Instr::Choose { target } => {
                    let (a, b) = (after(pc + 1), after(*target));
                    a.iter().zip(&b).map(|(x, y)| *x || *y).collect()
                }
                Instr::Cut => vec![false; th.nregs],
                _ => after(pc + 1),
            };
            match &th.code[pc] {
                Instr::Load { dst: Some(d), .. } | Instr::Rmw { dst: Some(d), .. } | Instr::Assign { dst: d, .. } => {
                    if let Some(x) = l.get_mut(*d) {
                        *x = false;
                    }
                }
                _ => {}
            }
            th.code[pc].mark_reads(&mut l);
            live[pc] = l;
        }
        (0..n)
            .map(|pc| {
                if free[pc] {
                    return LoadUse::Free;
                }
                if let Instr::Rmw { dst, .. } = &th.code[pc] {
                    return self.rmw_use(t, pc, *dst, &live);
                }
                let Instr::Load { dst: Some(d), ev, .. } = &th.code[pc] else { return LoadUse::Value };
                let Some(Instr::Assign { dst: r, val }) = th.code.get(pc + 1) else { return LoadUse::Value };
                let dead = r != d && dead_at(&live, pc + 2, *d);
                if reads_only(val, *d, th.nregs) && dead && self.templates[*ev].value_attr.is_none() {
                    LoadUse::Mapped
                } else {
                    LoadUse::Value
                }
            })
            .collect()
    }

    /// How RMW `pc` of thread `t` uses the value it reads (`live`: the
    /// registers live before each instruction): free where its register is
    /// none or dead after it; mapped where the next instruction alone reads
    /// it, a branch on a function of it (an mbarrier update's "did it
    /// complete the phase"), dead on both ways on; else its value.
    fn rmw_use(&self, t: usize, pc: usize, dst: Option<usize>, live: &[Vec<bool>]) -> LoadUse {
        let th = &self.threads[t];
        let Some(d) = dst else { return LoadUse::Free };
        if dead_at(live, pc + 1, d) {
            return LoadUse::Free;
        }
        let Some(Instr::Branch { cond, target }) = th.code.get(pc + 1) else { return LoadUse::Value };
        if reads_only(cond, d, th.nregs) && dead_at(live, pc + 2, d) && dead_at(live, *target, d) {
            LoadUse::Mapped
        } else {
            LoadUse::Value
        }
    }

    /// The locations whose every write but the initial one is the write of
    /// an RMW at the location named (no computed address) that always
    /// writes (no compare-exchange), its templates with no `value_attr`,
    /// whose value nothing reads but a branch right after it
    /// (`uses`: `load_uses` per thread; `LoadUse::Free` or `Mapped`). Each
    /// such write's value is the RMW's function of the value its read
    /// reads: an enumeration may leave it to the read's rf, whatever
    /// thread made it and whether or not the model makes RMWs atomic.
    pub fn computed_locations(&self, uses: &[Vec<LoadUse>]) -> Vec<bool> {
        let eligible = |t: usize, pc: usize| {
            let Some(Instr::Rmw { rmw, ev_r, ev_w, fail_store, .. }) = self.threads[t].code.get(pc) else {
                return false;
            };
            let plain = [*ev_r, *ev_w].iter().all(|&e| self.templates[e].value_attr.is_none());
            let used = uses.get(t).and_then(|u| u.get(pc)).is_some_and(|u| *u != LoadUse::Value);
            let writes = !matches!(rmw, RmwOp::Cas | RmwOp::CasOld) && fail_store.is_none();
            plain && used && writes
        };
        self.rmw_only_writers(eligible).into_iter().map(|w| w.is_some_and(|ts| !ts.is_empty())).collect()
    }

    /// Per location, the threads that write it, where its every write but
    /// the initial one is the write of an RMW at the location named (no
    /// computed address) that `eligible` (thread, instruction) takes; None
    /// where another write reaches it (a store, a failing RMW's store).
    fn rmw_only_writers(&self, eligible: impl Fn(usize, usize) -> bool) -> Vec<Option<BTreeSet<usize>>> {
        let nl = self.locations.len();
        let mut writers: Vec<Option<BTreeSet<usize>>> = vec![Some(BTreeSet::new()); nl];
        for (ti, t) in self.threads.iter().enumerate() {
            for (pc, i) in t.code.iter().enumerate() {
                match i {
                    Instr::Store { loc, at, .. } => reach(*loc, at).for_each(|l| writers[l] = None),
                    Instr::Rmw { loc, at, fail_store, .. } => {
                        if let Some(fs) = fail_store {
                            writers[fs.loc] = None;
                        }
                        if at.is_some() || !eligible(ti, pc) {
                            reach(*loc, at).for_each(|l| writers[l] = None);
                        } else if let Some(ts) = &mut writers[*loc] {
                            ts.insert(ti);
                        }
                    }
                    _ => {}
                }
            }
        }
        writers
    }

    /// The locations whose every write but the initial one is the write of
    /// an RMW of one thread, at the location named (no computed address),
    /// each RMW's events carrying one of `tags`: per location, that thread. Under a model whose axioms make such RMWs
    /// atomic (`ModelIr::rmw_chains`), each reads the write just before its
    /// own in coherence order, so the values one path's RMWs read and write
    /// form one chain from the initial value (`enumerate`'s use).
    pub fn rmw_chain_writers(&self, tags: &[String]) -> Vec<Option<usize>> {
        let tagged = |ev: usize| self.templates[ev].tags.iter().any(|g| tags.contains(g));
        let eligible = |t: usize, pc: usize| matches!(self.threads[t].code.get(pc), Some(Instr::Rmw { ev_r, ev_w, .. }) if tagged(*ev_r) && tagged(*ev_w));
        // one thread's alone
        (self.rmw_only_writers(eligible).into_iter())
            .map(|w| w.filter(|ts| ts.len() == 1).and_then(|ts| ts.first().copied()))
            .collect()
    }

    /// The locations that one thread alone accesses, in an order program
    /// order fixes: no two of its accesses to the location are unsequenced
    /// (C11's operands of one operator); with `tags` not empty, each access
    /// carries one of them. Per location.
    pub fn private_locations(&self, tags: &[String]) -> Vec<bool> {
        let nl = self.locations.len();
        // Per location: the accessing thread and the templates of its accesses.
        let mut access: Vec<Option<(usize, Vec<usize>)>> = vec![None; nl];
        let mut shared = vec![false; nl];
        for (ti, t) in self.threads.iter().enumerate() {
            for i in &t.code {
                let mut touch = |loc: usize, ev: usize| match &mut access[loc] {
                    Some((o, _)) if *o != ti => shared[loc] = true,
                    Some((_, evs)) => evs.push(ev),
                    None => access[loc] = Some((ti, vec![ev])),
                };
                match i {
                    Instr::Load { loc, ev, at, .. } | Instr::Store { loc, ev, at, .. } => {
                        reach(*loc, at).for_each(|l| touch(l, *ev))
                    }
                    Instr::Rmw { loc, ev_r, ev_w, ev_fail, fail_store, at, .. } => {
                        for l in reach(*loc, at) {
                            touch(l, *ev_r);
                            touch(l, *ev_w);
                            if let Some(e) = ev_fail {
                                touch(l, *e);
                            }
                        }
                        if let Some(fs) = fail_store {
                            touch(fs.loc, fs.ev);
                        }
                    }
                    _ => {}
                }
            }
        }
        (0..nl)
            .map(|l| match &access[l] {
                Some((_, evs)) if !shared[l] => evs.iter().all(|&a| {
                    let t = &self.templates[a];
                    (tags.is_empty() || t.tags.iter().any(|g| tags.contains(g)))
                        && evs.iter().all(|&b| !t.unsequenced_with(&self.templates[b]))
                }),
                _ => false,
            })
            .collect()
    }

    /// Per instruction of thread `t`: is it a load whose value no
    /// instruction uses? It writes no register, or one that no instruction
    /// of the thread reads (no store, assignment, branch, fence value or
    /// read-modify-write operand, no computed address). The outcome may
    /// observe that register: its value is then the write the load reads
    /// (`Path::read_regs`), chosen with `rf` rather than a path per value.
    pub fn value_free_loads(&self, t: usize) -> Vec<bool> {
        let th = &self.threads[t];
        let mut used = vec![false; th.nregs];
        for i in &th.code {
            i.mark_reads(&mut used);
        }
        th.code
            .iter()
            .map(|i| matches!(i, Instr::Load { dst, .. } if dst.is_none_or(|r| !used.get(r).copied().unwrap_or(true))))
            .collect()
    }

    /// The locations a thin-air value can reach: those a plain store may
    /// give a value computed from registers, or a failing compare-exchange
    /// writes back to. A location written only by its initial value and by
    /// read-modify-writes holds no such value when the model makes RMWs
    /// atomic (each reads its immediate coherence predecessor, so values
    /// chain from the initial one), as every model hrf ships does.
    pub fn value_carrying(&self) -> Vec<bool> {
        let mut out = vec![false; self.locations.len()];
        for t in &self.threads {
            for i in &t.code {
                match i {
                    Instr::Store { loc, val, at, .. } if !val.is_const() => reach(*loc, at).for_each(|l| out[l] = true),
                    Instr::Rmw { fail_store: Some(fs), .. } => out[fs.loc] = true,
                    _ => {}
                }
            }
        }
        out
    }

    /// Structural checks, so that enumeration can index without panicking.
    pub fn validate(&self) -> Result<(), Error> {
        let nl = self.locations.len();
        let nt = self.templates.len();
        for (ti, t) in self.threads.iter().enumerate() {
            let chk_reg = |r: usize| {
                if r < t.nregs {
                    Ok(())
                } else {
                    Err(Error::invalid(format!("thread {ti}: register {r} out of range")))
                }
            };
            for (pc, ins) in t.code.iter().enumerate() {
                let tgt = |target: usize| {
                    if target > pc && target <= t.code.len() {
                        Ok(())
                    } else {
                        Err(Error::invalid(format!("thread {ti}, pc {pc}: jump target {target} is not forward")))
                    }
                };
                // the value an RMW reads is named by an update RMW's value function alone
                let old_outside = match ins {
                    Instr::Rmw { rmw, val, expected, .. } => {
                        (*rmw != RmwOp::Update && val.names_old()) || expected.as_ref().is_some_and(Expr::names_old)
                    }
                    Instr::Store { val, .. } | Instr::Assign { val, .. } | Instr::Fence { val: Some(val), .. } => {
                        val.names_old()
                    }
                    Instr::Branch { cond, .. } => cond.names_old(),
                    _ => false,
                };
                let addr_old = match ins {
                    Instr::Load { at: Some(a), .. }
                    | Instr::Store { at: Some(a), .. }
                    | Instr::Rmw { at: Some(a), .. } => a.off.names_old(),
                    _ => false,
                };
                if old_outside || addr_old {
                    return Err(Error::invalid(format!(
                        "thread {ti}, pc {pc}: the value an RMW reads, named outside an update RMW's value"
                    )));
                }
                if let Instr::Load { loc, at: Some(a), .. }
                | Instr::Store { loc, at: Some(a), .. }
                | Instr::Rmw { loc, at: Some(a), .. } = ins
                {
                    if a.len == 0 || loc.checked_add(a.len).is_none_or(|end| end > nl) {
                        return Err(Error::invalid(format!("thread {ti}, pc {pc}: bad computed address")));
                    }
                }
                match ins {
                    Instr::Load { dst, loc, ev, .. } => {
                        if *loc >= nl || *ev >= nt {
                            return Err(Error::invalid(format!("thread {ti}, pc {pc}: bad load")));
                        }
                        if let Some(d) = dst {
                            chk_reg(*d)?;
                        }
                    }
                    Instr::Store { loc, ev, .. } => {
                        if *loc >= nl || *ev >= nt {
                            return Err(Error::invalid(format!("thread {ti}, pc {pc}: bad store")));
                        }
                    }
                    Instr::Rmw { dst, loc, ev_r, ev_w, ev_fail, rmw, expected, fail_store, .. } => {
                        if *loc >= nl
                            || *ev_r >= nt
                            || *ev_w >= nt
                            || ev_fail.is_some_and(|e| e >= nt)
                            || fail_store.as_ref().is_some_and(|f| f.loc >= nl || f.ev >= nt)
                        {
                            return Err(Error::invalid(format!("thread {ti}, pc {pc}: bad rmw")));
                        }
                        if matches!(rmw, RmwOp::Cas | RmwOp::CasOld | RmwOp::CasAlways) && expected.is_none() {
                            return Err(Error::invalid(format!("thread {ti}, pc {pc}: cas without expected value")));
                        }
                        if let Some(d) = dst {
                            chk_reg(*d)?;
                        }
                    }
                    Instr::Fence { ev, .. } => {
                        if *ev >= nt {
                            return Err(Error::invalid(format!("thread {ti}, pc {pc}: bad fence")));
                        }
                    }
                    Instr::Assign { dst, .. } => chk_reg(*dst)?,
                    Instr::Branch { target, .. } | Instr::Jump { target } | Instr::Choose { target } => tgt(*target)?,
                    Instr::Cut => {}
                }
            }
        }
        for o in &self.observed {
            match o {
                Observed::Reg { thread, reg } => {
                    if *thread >= self.threads.len() || *reg >= self.threads[*thread].nregs {
                        return Err(Error::invalid("observed register out of range"));
                    }
                }
                Observed::Loc { loc } => {
                    if *loc >= nl {
                        return Err(Error::invalid("observed location out of range"));
                    }
                }
            }
        }
        if self.sync_with.iter().any(|&(a, b)| a >= self.threads.len() || b >= self.threads.len()) {
            return Err(Error::invalid("sync_with names a thread out of range"));
        }
        let n = self.templates.len();
        if self.quorums.iter().any(|q| q.all.iter().any(|&t| t >= n) || q.sync.iter().any(|t| !q.all.contains(t))) {
            return Err(Error::invalid("a quorum names a template out of range or outside its barrier"));
        }
        Ok(())
    }
}

/// The sum of two `.f32` values held as their bits (the low 32 bits of each
/// value): IEEE 754 single-precision addition, rounding to nearest even; with
/// `ftz`, subnormal inputs and a subnormal result are zeros of their sign. A
/// NaN result is the canonical NaN (0x7fffffff).
fn f32_add(x: i64, y: i64, ftz: bool) -> i64 {
    let flush = |v: f32| if ftz && v.is_subnormal() { f32::from_bits(v.to_bits() & 0x8000_0000) } else { v };
    let sum = flush(flush(f32::from_bits(x as u32)) + flush(f32::from_bits(y as u32)));
    if sum.is_nan() {
        0x7fff_ffff
    } else {
        i64::from(sum.to_bits())
    }
}

#[cfg(test)]
mod tests {
    use super::{Expr, RmwOp};

    #[test]
    fn a_shift_right_is_logical_over_64_bits() {
        let shr = |v: i64, k: i64| {
            Expr::Bin { o: ">>".into(), a: Box::new(Expr::C { v }), b: Box::new(Expr::C { v: k }) }.eval(&[]).unwrap()
        };
        assert_eq!(shr(0x1_0000_0002, 32), 1);
        assert_eq!(shr(-1, 32), 0xffff_ffff); // the high half of all ones, not sign-extended
        assert_eq!(shr(-1, 0), -1);
        assert_eq!((shr(5, 64), shr(5, -1)), (0, 0)); // past the word: nothing is left
    }

    #[test]
    fn unsigned_comparisons_read_the_values_bits_unsigned() {
        let cmp = |o: &str, a: i64, b: i64| {
            Expr::Bin { o: o.into(), a: Box::new(Expr::C { v: a }), b: Box::new(Expr::C { v: b }) }.eval(&[]).unwrap()
        };
        assert_eq!((cmp("lo", 1, 2), cmp("lo", -1, 2), cmp("<", -1, 2)), (1, 0, 1)); // -1 is the largest
        assert_eq!((cmp("ls", 2, 2), cmp("hi", -1, 0), cmp("hs", 0, -1)), (1, 1, 0));
    }

    #[test]
    fn f32_addition_of_the_values_bits() {
        let cmp = |o: &str, a: i64, b: i64| {
            Expr::Bin { o: o.into(), a: Box::new(Expr::C { v: a }), b: Box::new(Expr::C { v: b }) }.eval(&[]).unwrap()
        };
        // .f32 bits: 1.0 + 2.0 = 3.0; 0.1 + 0.2 rounds to nearest even (0x3e99999a);
        // the smallest subnormal plus itself is two of it, or 0 flushed; -1 + 1 = +0;
        // inf - inf is the canonical NaN
        let (one, two, three) = (0x3f80_0000, 0x4000_0000, 0x4040_0000);
        assert_eq!(cmp("+f32", one, two), three);
        assert_eq!(cmp("+f32", 0x3dcc_cccd, 0x3e4c_cccd), 0x3e99_999a);
        assert_eq!((cmp("+f32", 1, 1), cmp("+f32ftz", 1, 1), cmp("+f32ftz", one, 1)), (2, 0, one));
        assert_eq!(cmp("+f32", 0xbf80_0000, one), 0);
        assert_eq!(cmp("+f32", 0x7f80_0000, 0xff80_0000), 0x7fff_ffff);
    }

    #[test]
    fn an_update_writes_its_value_function_of_the_old_value() {
        // old + 1, but 10 where that would be 3 (a counter that restarts)
        let bump = Expr::Bin { o: "+".into(), a: Box::new(Expr::Old {}), b: Box::new(Expr::C { v: 1 }) };
        let restart = Expr::Bin {
            o: "*".into(),
            a: Box::new(Expr::Bin { o: "==".into(), a: Box::new(bump.clone()), b: Box::new(Expr::C { v: 3 }) }),
            b: Box::new(Expr::C { v: 7 }),
        };
        let f = Expr::Bin { o: "+".into(), a: Box::new(bump), b: Box::new(restart) };
        let no_reg = |_: usize| None;
        for (old, new) in [(0, 1), (1, 2), (2, 10), (10, 11)] {
            let operand = RmwOp::Update.operand_of(&f, &no_reg, old).unwrap();
            assert_eq!(RmwOp::Update.apply(old, operand, None), (Some(new), old));
        }
        // named outside an update, `Old` is an error, not a value
        assert!(RmwOp::Add.operand_of(&f, &no_reg, 0).is_err());
        assert!(f.eval(&[]).is_err());
        assert!(f.names_old() && !Expr::C { v: 0 }.names_old());
    }

    #[test]
    fn min_max_inc_dec_as_ptx_defines_them() {
        // signed and unsigned: -1 is the smallest signed, the largest unsigned
        assert_eq!(RmwOp::Min.apply(-1, 3, None), (Some(-1), -1));
        assert_eq!(RmwOp::Umin.apply(-1, 3, None), (Some(3), -1));
        assert_eq!(RmwOp::Max.apply(-1, 3, None), (Some(3), -1));
        assert_eq!(RmwOp::Umax.apply(-1, 3, None), (Some(-1), -1));
        // atom.inc: old >= b ? 0 : old + 1
        assert_eq!(RmwOp::Inc.apply(2, 3, None), (Some(3), 2));
        assert_eq!(RmwOp::Inc.apply(3, 3, None), (Some(0), 3));
        // atom.dec: old == 0 || old > b ? b : old - 1
        assert_eq!(RmwOp::Dec.apply(0, 3, None), (Some(3), 0));
        assert_eq!(RmwOp::Dec.apply(5, 3, None), (Some(3), 5));
        assert_eq!(RmwOp::Dec.apply(2, 3, None), (Some(1), 2));
    }
}
