//! The machine's assembly ([RSP15] sec. 5; [RSP15] Table 1), as Python's
//! `hrf.machine` writes it in JSON: per thread its device, work-group and
//! code. Register moves and forward branches reuse the source IR's `Expr`.

use crate::program::{Cond, Expr, Observed, RmwOp};
use serde::Deserialize;

/// The scope operand of FLUL1/FLUL2/INVL1/LKrmw/UNLKrmw: WG, DV, ALL.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Wg,
    Dev,
    All,
}

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields, tag = "op", rename_all = "lowercase")]
pub enum MInstr {
    /// `LD r x`
    Ld {
        dst: usize,
        loc: usize,
    },
    /// `ST r x` (the value may be a register or a constant)
    St {
        loc: usize,
        val: Expr,
    },
    /// `INCL1 r x` / `INCL2 r x` and, generalising them, an RMW performed
    /// at the L1 (level 1) or L2 (level 2) cache: add, exch, cas, ...
    /// `cas` sets dst to 1 on success, 0 on failure; the others to the old
    /// value.
    Rmw {
        level: u8,
        #[serde(default)]
        dst: Option<usize>,
        loc: usize,
        rmw: RmwOp,
        val: Expr,
        #[serde(default)]
        expected: Option<Expr>,
    },
    /// `FLUL1 s` / `FLUL2 s`: the thread's FLUSH marker on the fifos in s.
    Flu {
        level: u8,
        scope: Scope,
    },
    /// `INVL1 s` (and hrf's `INVL2 s`): invalidate every entry of the caches in s.
    Inv {
        level: u8,
        scope: Scope,
    },
    /// `LK x` / `UNLK x`: the device's lock file.
    Lk {
        loc: usize,
    },
    Unlk {
        loc: usize,
    },
    /// `LKrmw s` / `UNLKrmw s`: every rmw lock of the work-groups in s.
    Lkrmw {
        scope: Scope,
    },
    Unlkrmw {
        scope: Scope,
    },
    Assign {
        dst: usize,
        val: Expr,
    },
    /// Jump forward to `target` when `cond` is non-zero.
    Branch {
        cond: Expr,
        target: usize,
    },
    Jump {
        target: usize,
    },
    /// A path cut by the loop-unrolling bound: dropped and counted.
    Cut,
}

impl MInstr {
    /// Register moves and branches: they touch only the thread's own state.
    pub fn is_local(&self) -> bool {
        matches!(self, MInstr::Assign { .. } | MInstr::Branch { .. } | MInstr::Jump { .. } | MInstr::Cut)
    }
}

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MLocation {
    pub name: String,
    #[serde(default)]
    pub init: i64,
}

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MThread {
    pub name: String,
    /// Device index (0..devices).
    pub dev: usize,
    /// Work-group index over the whole machine (0..work-groups).
    pub wg: usize,
    pub nregs: usize,
    pub code: Vec<MInstr>,
}

/// When dirty lines go down a level: in fifo order only ([RSP15] sec. 5), or
/// also at any time, out of order (memalloy's EnvFlush; the README's schemes section).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Writeback {
    #[default]
    Fifo,
    Any,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MProgram {
    pub name: String,
    pub locations: Vec<MLocation>,
    pub threads: Vec<MThread>,
    pub observed: Vec<Observed>,
    pub condition: Cond,
    #[serde(default)]
    pub writeback: Writeback,
    /// Reductions that keep outcomes and deadlocks: register moves and
    /// branches run as soon as they are enabled (a persistent-set
    /// reduction), and useless environment steps are left out
    /// (`Machine::env_steps`). `false` is the reference: [RSP15] sec. 5 literally.
    #[serde(default = "yes")]
    pub reduce: bool,
}
