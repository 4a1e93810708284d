//! Limits on work that could explode, and cancellation (Ctrl-C), shared by
//! the enumerator and the machine explorer: a wall-clock deadline, a memory
//! budget (the process's resident memory) and a cancel generation, checked
//! from the first phase of a run to its last. A run that hits one stops
//! where it is and reports which, never a verdict it did not establish.

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The limits of a check (the enumerator). Every field has its default
/// here and only here (`hrf.Limits` reads them through `defaults_json`);
/// an unknown field is an error naming it.
#[derive(Serialize, Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Candidate executions judged. A partial candidate that pruning rules
    /// out (a combination of thread paths whose reads no write can
    /// justify, or a partial rf/co choice that already fails an axiom)
    /// counts as one too, so that the limit bounds the work of tests whose
    /// candidates are mostly pruned.
    pub max_candidates: u64,
    pub max_seconds: Option<f64>,
    /// Resident memory of the process, in bytes (None: no budget).
    pub max_memory: Option<u64>,
    /// Let reads guess values out of thin air (see `value_domains`).
    pub thin_air: bool,
    /// Control paths per thread.
    pub max_paths: usize,
    /// Values a location may hold.
    pub max_values: usize,
    /// The slow reference enumerator (no pruning), for property tests.
    pub reference: bool,
    /// Keep every consistent execution (for export and tests), not one per outcome.
    pub keep_all: bool,
    /// With keep_all: keep at most this many (the first in enumeration
    /// order); the others are still judged and counted.
    pub max_kept: Option<u64>,
    /// Report a witness execution per outcome and per flag (off for bulk
    /// runs that need verdicts only: no execution is built or sent).
    pub witnesses: bool,
    /// Stop at the first consistent execution that settles the condition
    /// (`Program::deciding_value`): the verdict is established, the
    /// outcomes and flags are those found until then (limit `decided`).
    pub decide: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_candidates: 10_000_000,
            max_seconds: None,
            max_memory: None,
            thin_air: false,
            max_paths: 100_000,
            max_values: 64,
            reference: false,
            keep_all: false,
            max_kept: None,
            witnesses: true,
            decide: false,
        }
    }
}

/// The limits of a machine exploration, defaults here and only here.
#[derive(Serialize, Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ExploreLimits {
    /// States stored (None: no limit).
    pub max_states: Option<u64>,
    pub max_seconds: Option<f64>,
    /// Resident memory of the process, in bytes (None: no budget).
    pub max_memory: Option<u64>,
    /// Look for states from which no final state is reachable.
    pub deadlocks: bool,
}

impl Default for ExploreLimits {
    fn default() -> Self {
        ExploreLimits { max_states: Some(20_000_000), max_seconds: None, max_memory: None, deadlocks: true }
    }
}

/// The defaults of both, as JSON: `{"check": {...}, "explore": {...}}`.
pub fn defaults_json() -> String {
    serde_json::json!({ "check": Limits::default(), "explore": ExploreLimits::default() }).to_string()
}

/// Which limit stopped a run, and how far it had got.
#[derive(Serialize, Clone, Debug, Default, schemars::JsonSchema)]
pub struct LimitOut {
    pub which: String,
    pub detail: String,
}

/// Bumped by `cancel()` (Ctrl-C on the Python side): every run in progress
/// when it changes stops at its next check and reports "interrupted".
pub static CANCEL_GENERATION: AtomicU64 = AtomicU64::new(0);

pub fn cancel() {
    CANCEL_GENERATION.fetch_add(1, Ordering::SeqCst);
}

/// The resident memory of this process in bytes (Linux: `VmRSS` of
/// /proc/self/status), None where it cannot be read.
pub fn resident_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The budget of one run: time, memory and cancellation. Cheap to ask
/// (`stopped`); `check` reads the clock, and the memory every
/// `MEMORY_EVERY` calls.
pub struct Budget {
    deadline: Option<Instant>,
    max_seconds: f64,
    max_memory: Option<u64>,
    generation: u64,
    stop: AtomicBool,
    hit: Mutex<Option<LimitOut>>,
    calls: AtomicU64,
}

const MEMORY_EVERY: u64 = 64;

impl Budget {
    /// A budget from now: `max_seconds` of wall-clock time (None: no
    /// limit) and `max_memory` bytes of resident memory (None: no limit).
    pub fn new(max_seconds: Option<f64>, max_memory: Option<u64>) -> Self {
        Self::from_start(Instant::now(), max_seconds, max_memory)
    }

    /// The same, with the time counted from `start`.
    pub fn from_start(start: Instant, max_seconds: Option<f64>, max_memory: Option<u64>) -> Self {
        Budget {
            deadline: max_seconds.map(|s| start + Duration::from_secs_f64(s.clamp(0.0, 1e9))),
            max_seconds: max_seconds.unwrap_or(0.0),
            max_memory,
            generation: CANCEL_GENERATION.load(Ordering::SeqCst),
            stop: AtomicBool::new(false),
            hit: Mutex::new(None),
            calls: AtomicU64::new(0),
        }
    }

    /// Has a limit been hit (by any worker)?
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Cancelled, out of time or over the memory budget: record which and
    /// say so.
    pub fn check(&self) -> bool {
        if self.stopped() {
            return true;
        }
        if CANCEL_GENERATION.load(Ordering::Relaxed) != self.generation {
            self.hit("interrupted", "cancelled (Ctrl-C)".into());
            return true;
        }
        if let Some(dl) = self.deadline {
            if Instant::now() > dl {
                self.hit("time", format!("more than {} seconds", self.max_seconds));
                return true;
            }
        }
        if let Some(max) = self.max_memory {
            // every MEMORY_EVERY-th call, not the first: a small check never
            // pays for reading /proc
            if (self.calls.fetch_add(1, Ordering::Relaxed) + 1).is_multiple_of(MEMORY_EVERY) {
                if let Some(used) = resident_bytes() {
                    if used > max {
                        self.hit(
                            "memory",
                            format!("resident memory {} MB, more than the budget of {} MB", used >> 20, max >> 20),
                        );
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Record that limit `which` was hit (the first one recorded wins) and
    /// tell every worker to stop.
    pub fn hit(&self, which: &str, detail: String) {
        self.stop.store(true, Ordering::Relaxed);
        let mut g = self.hit.lock().unwrap_or_else(|p| p.into_inner());
        if g.is_none() {
            *g = Some(LimitOut { which: which.into(), detail });
        }
    }

    /// The limit hit, if any.
    pub fn take(&self) -> Option<LimitOut> {
        self.hit.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_past_deadline_stops_and_says_time() {
        let b = Budget::new(Some(0.0), None);
        std::thread::sleep(Duration::from_millis(2));
        assert!(b.check());
        assert!(b.stopped());
        assert_eq!(b.take().unwrap().which, "time");
    }

    #[test]
    fn a_memory_budget_below_what_is_used_stops() {
        if resident_bytes().is_none() {
            return; // not Linux
        }
        let b = Budget::new(None, Some(1));
        assert!((0..MEMORY_EVERY).any(|_| b.check()));
        assert_eq!(b.take().unwrap().which, "memory");
    }

    #[test]
    fn no_limit_never_stops() {
        let b = Budget::new(None, None);
        for _ in 0..1000 {
            assert!(!b.check());
        }
        assert!(b.take().is_none());
    }
}
