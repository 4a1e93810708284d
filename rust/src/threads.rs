//! Thread pools: built once per size and process, entered only where there
//! is work for more than one thread.
//!
//! Building a pool costs about half a millisecond and handing a call to a
//! pool thread about as much again, more than checking a small test. So a
//! check starts on the caller's thread and `par_map` enters a pool only
//! for more than one block of work. Pools are keyed by process id: a forked
//! child (bulk's workers, a user's multiprocessing pool) does not inherit
//! its parent's pool threads, so it builds its own; rayon's global pool is
//! never used, for that reason.

use rayon::prelude::*;
use std::cell::Cell;
use std::sync::{Arc, Mutex};

type Pools = Vec<(u32, usize, Arc<rayon::ThreadPool>)>;
static POOLS: Mutex<Pools> = Mutex::new(Vec::new());

thread_local! {
    /// Set while a caller has asked for one thread (`one_thread`).
    static ONE_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// The pool of `workers` threads (None: rayon's choice, RAYON_NUM_THREADS
/// or every core) of this process, built on first use.
pub fn pool(workers: Option<usize>) -> Result<Arc<rayon::ThreadPool>, String> {
    let threads = workers.map_or(0, |w| w.max(1));
    let build =
        || rayon::ThreadPoolBuilder::new().num_threads(threads).build().map(Arc::new).map_err(|e| e.to_string());
    let pid = std::process::id();
    // A lock held by a thread that did not survive a fork would never be
    // released: then this call builds a pool of its own.
    let Ok(mut pools) = POOLS.try_lock() else { return build() };
    if pools.iter().any(|(p, _, _)| *p != pid) {
        // The parent's pools, inherited by fork: their threads are gone, so
        // they are forgotten, never dropped (dropping would signal them).
        for entry in pools.drain(..) {
            std::mem::forget(entry);
        }
    }
    if let Some((_, _, p)) = pools.iter().find(|(_, n, _)| *n == threads) {
        return Ok(p.clone());
    }
    let p = build()?;
    pools.push((pid, threads, p.clone()));
    Ok(p)
}

/// Run `f` with every `par_map` inside it on this thread alone.
pub fn one_thread<T>(f: impl FnOnce() -> T) -> T {
    let before = ONE_THREAD.with(|c| c.replace(true));
    let out = f();
    ONE_THREAD.with(|c| c.set(before));
    out
}

/// `f` over `0..n`, results in order: in parallel when there is more than
/// one item and more than one thread is allowed (in the pool this call is
/// already in, else in the all-cores pool), else here, in order.
pub fn par_map<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    if n <= 1 || ONE_THREAD.with(|c| c.get()) {
        return (0..n).map(f).collect();
    }
    if rayon::current_thread_index().is_some() {
        return (0..n).into_par_iter().map(f).collect();
    }
    match pool(None) {
        Ok(p) => p.install(|| (0..n).into_par_iter().map(&f).collect()),
        Err(_) => (0..n).map(f).collect(),
    }
}
