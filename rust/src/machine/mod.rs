//! The operational GPU machine of ([RSP15] sec. 5, Fig. 4 and
//! Table 1): devices with an L2 cache, an L2 fifo and a lock file;
//! work-groups with an L1 cache, an L1 fifo and an rmw lock; threads with
//! registers and a pc. `program` is the assembly Python hands over,
//! `state` the machine state and its canonical byte encoding, `step` the
//! instructions and environment steps as functions from a state to a set
//! of states, `explore` the exhaustive parallel explorer (its search), with
//! `visited` (the visited set and arena), `pool` (the worker pool) and
//! `report` (what it reports).

pub mod explore;
mod pool;
pub mod program;
pub mod report;
pub mod state;
pub mod step;
mod visited;

pub use crate::limits::ExploreLimits;
pub use explore::explore;
pub use program::{MInstr, MProgram, Scope, Writeback};
pub use report::ExploreOut;
pub use state::{Line, Machine, State, View};
pub use step::{Step, ThreadStep};

#[cfg(test)]
mod tests;
