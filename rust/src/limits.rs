//! Limits on work that could explode, and cancellation (Ctrl-C), shared by
//! the enumerator and the machine explorer: a wall-clock deadline, a memory
//! budget (the process's resident memory) and a cancel generation, checked
//! from the first phase of a run to its last. A run that hits one stops
//! where it is and reports which, never a verdict it did not establish.

use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Which limit stopped a run, and how far it had got.
#[derive(Serialize, Clone, Debug, Default)]
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
