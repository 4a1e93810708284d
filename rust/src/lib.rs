//! hrf's Rust core: relations, executions, enumeration and model
//! evaluation. It knows no particular model; `python/hrf` builds the
//! program and model IRs. The PyO3 layer at the bottom is thin: JSON in,
//! JSON out, the GIL released while Rust works, panics caught.

pub mod error;
pub mod limits;
pub mod machine;
pub mod model_ir;
pub mod program;
pub mod threads;

// One source, two widths of event set: narrow.rs and wide.rs load the
// same files (clippy's duplicate_mod, on purpose).
#[allow(clippy::duplicate_mod)]
pub mod narrow;
#[allow(clippy::duplicate_mod)]
pub mod wide;

pub use narrow::{enumerate, execution, model, relation};

use enumerate::{CheckOut, Limits};
use error::{Error, Result};
use model_ir::ModelIr;
use program::Program;
use serde_json::json;

/// A JSON document, named `what` in the error.
fn from_json<T: serde::de::DeserializeOwned>(text: &str, what: &'static str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Error::Decode { what, message: e.to_string() })
}

/// Limits as JSON; empty text means the defaults.
fn limits_from_json<T: serde::de::DeserializeOwned + Default>(text: &str) -> Result<T> {
    if text.trim().is_empty() {
        Ok(T::default())
    } else {
        from_json(text, "limits")
    }
}

/// The model IRs parsed lately, by their text: a bulk run sends the same
/// few models with every test, and parsing one cost about as much as
/// checking a small test. Kept small; the oldest goes first.
static MODELS: std::sync::Mutex<Vec<(String, std::sync::Arc<ModelIr>)>> = std::sync::Mutex::new(Vec::new());
const MODELS_KEPT: usize = 8;

fn model_ir(text: &str) -> Result<std::sync::Arc<ModelIr>> {
    let lock = || MODELS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, ir)) = lock().iter().find(|(t, _)| t == text) {
        return Ok(ir.clone());
    }
    let ir = std::sync::Arc::new(from_json::<ModelIr>(text, "model IR")?);
    let mut kept = lock();
    if kept.len() == MODELS_KEPT {
        kept.remove(0);
    }
    kept.push((text.to_string(), ir.clone()));
    Ok(ir)
}

/// A check's answer from either width of the checker (the same document).
pub enum Checked {
    Narrow(CheckOut),
    Wide(wide::enumerate::CheckOut),
}

impl serde::Serialize for Checked {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Checked::Narrow(c) => c.serialize(s),
            Checked::Wide(c) => c.serialize(s),
        }
    }
}

impl Checked {
    /// Take the outcomes out of the answer: (them as JSON rows, how many);
    /// the answer keeps an empty list. A row is an `OutcomeOut`'s fields in
    /// order, `[values, count, positive, flagged, witness]`: read in Python,
    /// 14 outcomes took 9.6 us as objects (their keys each time).
    fn take_outcomes(&mut self) -> Result<(String, usize)> {
        macro_rules! rows {
            ($outcomes:expr) => {{
                let o = std::mem::take($outcomes);
                let rows: Vec<_> = o.iter().map(|x| (&x.values, x.count, x.positive, x.flagged, &x.witness)).collect();
                serde_json::to_string(&rows).map(|t| (t, o.len())).map_err(|e| Error::invalid(format!("outcomes: {e}")))
            }};
        }
        match self {
            Checked::Narrow(c) => rows!(&mut c.outcomes),
            Checked::Wide(c) => rows!(&mut c.outcomes),
        }
    }
}

/// Parse the three JSON documents and check the program under the model:
/// with 64-bit event sets, or 128-bit ones where an execution of the
/// program may have more than 64 events.
pub fn check_json(program: &str, model: &str, limits: &str) -> Result<Checked> {
    let prog: Program = from_json(program, "program IR")?;
    let ir = model_ir(model)?;
    let limits: Limits = limits_from_json(limits)?;
    let compiled = narrow::model::Compiled::new(ir.clone(), &prog)?;
    match narrow::enumerate::check(&prog, &compiled, &limits) {
        Err(Error::TooManyEvents { .. }) => {
            let compiled = wide::model::Compiled::new(ir, &prog)?;
            wide::enumerate::check(&prog, &compiled, &limits).map(Checked::Wide)
        }
        other => other.map(Checked::Narrow),
    }
}

#[derive(serde::Serialize)]
struct Reply<'a, T> {
    ok: &'a T,
}

/// `{"ok": result}` or `{"error": message}`; a panic becomes an error too.
fn safe_json<T: serde::Serialize>(f: impl FnOnce() -> Result<T>) -> String {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        // written straight to text (through a JSON value tree it cost twice)
        Ok(Ok(out)) => serde_json::to_string(&Reply { ok: &out })
            .unwrap_or_else(|e| json!({ "error": format!("internal error: {e}"), "kind": "internal" }).to_string()),
        Ok(Err(Error::Fault { thread, pc, detail })) => {
            json!({ "error": detail, "kind": "unsupported", "at": { "thread": thread, "pc": pc } }).to_string()
        }
        Ok(Err(e)) => json!({ "error": e.to_string(), "kind": e.kind() }).to_string(),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            json!({ "error": format!("internal error in the Rust core: {msg}"), "kind": "internal", "internal": true })
                .to_string()
        }
    }
}

/// The whole reply as one document, its outcomes inside (the reference
/// that `check_json_apart`, which Python is given, is tested against).
pub fn check_json_safe(program: &str, model: &str, limits: &str) -> String {
    safe_json(|| check_json(program, model, limits))
}

/// `check_json_safe` with the outcomes apart: (the reply, whose outcomes
/// are an empty list; the outcomes as JSON rows, `Checked::take_outcomes`;
/// how many). Most results of a bulk check are read for their verdicts
/// only: reading the outcomes was most of reading a reply, so the caller
/// reads them where they are used (an error reply: no outcomes, `[]`).
pub fn check_json_apart(program: &str, model: &str, limits: &str) -> (String, String, usize) {
    let mut apart = (String::from("[]"), 0);
    let reply = safe_json(|| {
        let mut out = check_json(program, model, limits)?;
        apart = out.take_outcomes()?;
        Ok(out)
    });
    (reply, apart.0, apart.1)
}

/// Explore a machine program ([RSP15] sec. 5) under the limits.
pub fn explore_json(program: &str, limits: &str) -> Result<machine::ExploreOut> {
    let prog: machine::MProgram = from_json(program, "machine program")?;
    let limits: machine::ExploreLimits = limits_from_json(limits)?;
    let m = machine::Machine::new(prog)?;
    Ok(machine::explore(&m, &limits))
}

/// The JSON Schema of every document that crosses the boundary, by the
/// name of its Rust type: hrf/ir.py mirrors them (a test compares).
pub fn ir_schema_json() -> String {
    use schemars::schema_for;
    json!({
        "Program": schema_for!(Program),
        "ModelIr": schema_for!(ModelIr),
        "Limits": schema_for!(Limits),
        "CheckOut": schema_for!(CheckOut),
        "MProgram": schema_for!(machine::MProgram),
        "ExploreLimits": schema_for!(machine::ExploreLimits),
        "ExploreOut": schema_for!(machine::ExploreOut),
    })
    .to_string()
}

pub fn explore_json_safe(program: &str, limits: &str) -> String {
    let mut stored = 0.0; // bytes of the states kept, about
    let reply = safe_json(|| {
        let out = explore_json(program, limits)?;
        stored = out.states as f64 * out.bytes_per_state;
        Ok(out)
    });
    // the memory of a large exploration back to the system (a small one's
    // is little, and giving it back made a run of 1,105 states up to half again as long)
    if stored >= GIVE_BACK_BYTES {
        give_back_memory();
    }
    reply
}

/// An exploration whose states took this much gives its memory back after it.
const GIVE_BACK_BYTES: f64 = (64 << 20) as f64;

#[cfg(feature = "python")]
// pyo3 0.22's #[pyfunction] expands PyResult returns into a conversion
// newer clippy calls useless (PyO3/pyo3#4828; fixed in pyo3 0.23).
#[allow(clippy::useless_conversion)]
mod py {
    use pyo3::prelude::*;
    use rayon::prelude::*;

    /// Check one program; returns (the reply's JSON, its outcomes as JSON
    /// rows, how many: `check_json_apart`). With `catch_sigint`, a Ctrl-C during
    /// the check stops it (`take_sigint` then says so).
    #[pyfunction]
    #[pyo3(signature = (program, model, limits, catch_sigint=false))]
    fn check(
        py: Python<'_>,
        program: String,
        model: String,
        limits: String,
        catch_sigint: bool,
    ) -> (String, String, usize) {
        // on this thread; the enumerator enters a pool where it has work for several
        py.allow_threads(|| sigint::guard(catch_sigint, || super::check_json_apart(&program, &model, &limits)))
    }

    /// Whether a Ctrl-C stopped the last call made with `catch_sigint`.
    #[pyfunction]
    fn take_sigint() -> bool {
        sigint::take()
    }

    /// Ctrl-C during a call made on Python's main thread: the call runs
    /// there (no helper thread, whose hand-overs cost a millisecond a call)
    /// with a handler of its own for SIGINT, which cancels the core's work;
    /// the Python side then raises KeyboardInterrupt. Python's handler is
    /// put back after the call.
    mod sigint {
        use std::sync::atomic::{AtomicBool, Ordering};
        static SEEN: AtomicBool = AtomicBool::new(false);

        pub fn take() -> bool {
            SEEN.swap(false, Ordering::SeqCst)
        }

        #[cfg(target_os = "linux")]
        extern "C" fn on_sigint(_: libc::c_int) {
            // async-signal-safe: two atomic operations
            SEEN.store(true, Ordering::SeqCst);
            crate::limits::cancel();
        }

        #[cfg(target_os = "linux")]
        pub fn guard<T>(on: bool, f: impl FnOnce() -> T) -> T {
            if !on {
                return f();
            }
            SEEN.store(false, Ordering::SeqCst);
            // SAFETY: sigaction with a handler that only touches atomics; the
            // previous action is restored before returning.
            unsafe {
                let mut new: libc::sigaction = std::mem::zeroed();
                new.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
                libc::sigemptyset(&mut new.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(libc::SIGINT, &new, &mut old) != 0 {
                    return f();
                }
                let out = f();
                libc::sigaction(libc::SIGINT, &old, std::ptr::null_mut());
                out
            }
        }

        #[cfg(not(target_os = "linux"))]
        pub fn guard<T>(_on: bool, f: impl FnOnce() -> T) -> T {
            f()
        }
    }

    /// Run `f` without the GIL on a pool of `workers` threads (all cores when None).
    fn in_pool<T: Send>(py: Python<'_>, workers: Option<usize>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
        let pool = crate::threads::pool(workers).map_err(pyo3::exceptions::PyRuntimeError::new_err)?;
        Ok(py.allow_threads(|| pool.install(f)))
    }

    /// Check many (program, model, limits) jobs in parallel on `workers`
    /// threads (all cores when None); returns `check`'s answers in job order.
    #[pyfunction]
    #[pyo3(signature = (jobs, workers=None, catch_sigint=false))]
    fn check_many(
        py: Python<'_>,
        jobs: Vec<(String, String, String)>,
        workers: Option<usize>,
        catch_sigint: bool,
    ) -> PyResult<Vec<(String, String, usize)>> {
        let one = |(p, m, l): &(String, String, String)| super::check_json_apart(p, m, l);
        if workers == Some(1) {
            // on this thread: handing each call to a pool thread cost more
            // than checking a small test (bulk's workers check one test a call)
            return Ok(py.allow_threads(|| {
                sigint::guard(catch_sigint, || crate::threads::one_thread(|| jobs.iter().map(one).collect()))
            }));
        }
        let pool = crate::threads::pool(workers).map_err(pyo3::exceptions::PyRuntimeError::new_err)?;
        Ok(py.allow_threads(|| sigint::guard(catch_sigint, || pool.install(|| jobs.par_iter().map(one).collect()))))
    }

    /// Explore a machine program on `workers` threads; returns JSON.
    #[pyfunction]
    #[pyo3(signature = (program, limits, workers=None))]
    fn explore(py: Python<'_>, program: String, limits: String, workers: Option<usize>) -> PyResult<String> {
        in_pool(py, workers, || super::explore_json_safe(&program, &limits))
    }

    /// Stop every check now running (they report the limit "interrupted").
    #[pyfunction]
    fn cancel() {
        crate::enumerate::cancel();
    }

    /// (states stored, layers done) of the machine exploration now running.
    #[pyfunction]
    fn explore_progress() -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (crate::machine::explore::PROGRESS_STATES.load(Relaxed), crate::machine::explore::PROGRESS_LAYERS.load(Relaxed))
    }

    /// The JSON Schema of the IR (`{"Program": ..., ...}`).
    #[pyfunction]
    fn ir_schema() -> String {
        super::ir_schema_json()
    }

    /// The limits' defaults as JSON (`{"check": ..., "explore": ...}`).
    #[pyfunction]
    fn limit_defaults() -> String {
        crate::limits::defaults_json()
    }

    #[pyfunction]
    fn max_events() -> usize {
        crate::wide::relation::MAX_EVENTS
    }

    #[pymodule]
    fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add_function(wrap_pyfunction!(check, m)?)?;
        m.add_function(wrap_pyfunction!(take_sigint, m)?)?;
        m.add_function(wrap_pyfunction!(check_many, m)?)?;
        m.add_function(wrap_pyfunction!(max_events, m)?)?;
        m.add_function(wrap_pyfunction!(limit_defaults, m)?)?;
        m.add_function(wrap_pyfunction!(ir_schema, m)?)?;
        m.add_function(wrap_pyfunction!(cancel, m)?)?;
        m.add_function(wrap_pyfunction!(explore, m)?)?;
        m.add_function(wrap_pyfunction!(explore_progress, m)?)?;
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        Ok(())
    }
}

// The core allocates and frees many small relations per candidate execution;
// mimalloc's thread-local free lists serve them faster than glibc's malloc.
// (Built without its requests for transparent huge pages, `no_thp`: where
// the system grants them on request, its compaction made a fresh process's
// first exploration 3x slower, and later ones gained nothing measurable.)
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

extern "C" {
    // mimalloc's (linked with the allocator above)
    fn mi_collect(force: bool);
}

/// Give the memory freed lately back to the system: mimalloc keeps it for
/// reuse, and after an exploration that is hundreds of megabytes, which
/// the process would hold, and every fork of it copy the page tables of.
fn give_back_memory() {
    // SAFETY: mi_collect only returns free memory; no allocation is live in it.
    unsafe { mi_collect(true) }
}
