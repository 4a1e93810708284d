//! The explorer's worker pool: `awake` keeps rayon's workers polling for
//! work while an exploration runs, instead of sleeping between steps.

use std::sync::atomic::{AtomicBool, Ordering};

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
pub(crate) fn awake<R: Send>(f: impl FnOnce() -> R + Send) -> R {
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
