//! Explore a machine program given as JSON (as `hrf.machine` writes it):
//! `cargo run --release --no-default-features --example explore -- prog.json [threads]`.
//! For profiling the explorer without Python.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let prog = std::fs::read_to_string(&args[1]).expect("read the program");
    let threads: usize = args.get(2).map_or(0, |s| s.parse().unwrap());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let out = pool.install(|| _core::explore_json(&prog, "{\"max_seconds\": 60}")).unwrap();
    println!(
        "states {} transitions {} complete {} seconds {:.3} states/s {:.0} bytes/state {:.1} outcomes {}",
        out.states,
        out.transitions,
        out.complete,
        out.seconds,
        out.states as f64 / out.seconds,
        out.bytes_per_state,
        out.outcomes.len()
    );
}
