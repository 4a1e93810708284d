//! One unit test per instruction and per environment step ([RSP15] sec. 5),
//! then the explorer on small programs derived by hand.

use super::explore::explore;
use super::state::{Line, Machine, Packed, State, DIRTY, PRESENT, VALID};
use super::step::{in_set, Step, ThreadStep};
use crate::limits::ExploreLimits;
use serde_json::{json, Value};

/// Threads as (device, work-group, code); locations x, y, z.
fn machine_with(threads: Vec<(usize, usize, Value)>, writeback: &str, reduce: bool) -> Machine {
    let threads: Vec<Value> = threads
        .into_iter()
        .enumerate()
        .map(|(i, (d, w, code))| json!({"name": format!("P{i}"), "dev": d, "wg": w, "nregs": 3, "code": code}))
        .collect();
    let observed: Vec<Value> = (0..threads.len())
        .flat_map(|t| (0..3).map(move |r| json!({"kind": "reg", "thread": t, "reg": r})))
        .chain((0..3).map(|l| json!({"kind": "loc", "loc": l})))
        .collect();
    let p = json!({"name": "t", "locations": [{"name": "x"}, {"name": "y"}, {"name": "z"}],
                   "threads": threads, "observed": observed, "condition": {"k": "true"},
                   "writeback": writeback, "reduce": reduce});
    Machine::new(serde_json::from_value(p).unwrap()).unwrap()
}

/// The literal machine of [RSP15] sec. 5 (no reduction).
fn machine(threads: Vec<(usize, usize, Value)>) -> Machine {
    machine_with(threads, "fifo", false)
}

fn c(v: i64) -> Value {
    json!({"k": "c", "v": v})
}

/// Two devices; device 0 has work-groups 0 and 1, device 1 has work-group 2.
fn three_wgs(code0: Value) -> Machine {
    machine(vec![(0, 0, code0), (0, 1, json!([])), (1, 2, json!([]))])
}

/// The packed form of a test's state (its numbers fit the machine's widths).
fn pack(m: &Machine, s: &State) -> Vec<u8> {
    let p = m.pack(s);
    assert!(!p.overflow);
    assert_eq!(&m.unpack(&p.b), s);
    p.b
}

/// Thread t's step on s, and the state it wrote (s itself if none).
fn step(m: &Machine, s: &State, t: usize) -> (ThreadStep, State) {
    let mut out = Packed::default();
    let r = m.view().thread_step(&pack(m, s), t, &mut out);
    assert!(!out.overflow);
    let o = if out.b.is_empty() { s.clone() } else { m.unpack(&out.b) };
    (r, o)
}

fn env(m: &Machine, s: &State, st: Step) -> Option<State> {
    let mut out = Packed::default();
    m.view().env_step(&pack(m, s), st, &mut out).then(|| {
        assert!(!out.overflow);
        m.unpack(&out.b)
    })
}

const CV: u8 = PRESENT | VALID;
const DV: u8 = PRESENT | DIRTY | VALID;
const CI: u8 = PRESENT;
const DI: u8 = PRESENT | DIRTY;

// ---------------------------------------------------------------- instructions

#[test]
fn ld_reads_a_valid_l1_entry_and_blocks_otherwise() {
    let m = three_wgs(json!([{"op": "ld", "dst": 1, "loc": 0}]));
    let mut s = m.initial();
    assert_eq!(step(&m, &s, 0).0, ThreadStep::Blocked); // absent
    s.l1[0] = Line { st: CI, val: 5 };
    assert_eq!(step(&m, &s, 0).0, ThreadStep::Blocked); // invalid
    s.l1[0] = Line { st: CV, val: 5 };
    let (r, o) = step(&m, &s, 0);
    assert_eq!(r, ThreadStep::Stepped);
    assert_eq!((o.regs[1], o.pc[0]), (5, 1));
    assert_eq!(o.l1[0], s.l1[0]);
}

#[test]
fn st_makes_the_line_dirty_valid_and_enqueues_it() {
    let m = three_wgs(json!([{"op": "st", "loc": 1, "val": c(7)}]));
    let mut s = m.initial();
    let (r, o) = step(&m, &s, 0);
    assert_eq!(r, ThreadStep::Stepped);
    assert_eq!(o.l1[1], Line { st: DV, val: 7 });
    assert_eq!(o.l1_fifo[0], vec![1]);
    s.l1[1] = Line { st: CI, val: 3 }; // clean-invalid: overwritten
    assert_eq!(step(&m, &s, 0).1.l1[1], Line { st: DV, val: 7 });
    s.l1[1] = Line { st: DI, val: 3 }; // dirty-invalid: wait for the write-back
    assert_eq!(step(&m, &s, 0).0, ThreadStep::Blocked);
}

#[test]
fn incl1_increments_at_l1_and_incl2_at_l2() {
    let inc = |level| json!([{"op": "rmw", "level": level, "dst": 0, "loc": 0, "rmw": "add", "val": c(1)}]);
    let m = three_wgs(inc(1));
    let mut s = m.initial();
    assert_eq!(step(&m, &s, 0).0, ThreadStep::Blocked);
    s.l1[0] = Line { st: CV, val: 4 };
    let (_, o) = step(&m, &s, 0);
    assert_eq!(
        (o.regs[0], o.l1[0], o.l1_fifo[0].clone(), o.l2_fifo[0].clone()),
        (4, Line { st: DV, val: 5 }, vec![0], vec![])
    );
    let m = three_wgs(inc(2));
    let mut s = m.initial();
    s.l1[0] = Line { st: CV, val: 4 }; // the L1 is not used
    assert_eq!(step(&m, &s, 0).0, ThreadStep::Blocked);
    s.l2[0] = Line { st: CV, val: 9 };
    let (_, o) = step(&m, &s, 0);
    assert_eq!((o.regs[0], o.l2[0], o.l2_fifo[0].clone(), o.l1[0]), (9, Line { st: DV, val: 10 }, vec![0], s.l1[0]));
}

#[test]
fn cas_writes_only_on_success() {
    let m =
        three_wgs(json!([{"op": "rmw", "level": 2, "dst": 0, "loc": 0, "rmw": "cas", "val": c(1), "expected": c(0)}]));
    let mut s = m.initial();
    s.l2[0] = Line { st: CV, val: 0 };
    let (_, o) = step(&m, &s, 0);
    assert_eq!((o.regs[0], o.l2[0]), (1, Line { st: DV, val: 1 }));
    s.l2[0] = Line { st: CV, val: 2 };
    let (_, o) = step(&m, &s, 0);
    assert_eq!((o.regs[0], o.l2[0], o.l2_fifo[0].len()), (0, s.l2[0], 0));
}

#[test]
fn flul1_and_flul2_put_the_thread_marker_on_the_fifos_of_the_scope() {
    let fl = |level, scope| three_wgs(json!([{"op": "flu", "level": level, "scope": scope}]));
    let marker = 3; // 3 addresses, thread 0
    for (scope, wgs) in [("wg", vec![0]), ("dev", vec![0, 1]), ("all", vec![0, 1, 2])] {
        let m = fl(1, scope);
        let (_, o) = step(&m, &m.initial(), 0);
        for w in 0..3 {
            assert_eq!(o.l1_fifo[w].contains(&marker), wgs.contains(&w), "{scope} wg {w}");
        }
    }
    for (scope, devs) in [("dev", vec![0]), ("all", vec![0, 1])] {
        let m = fl(2, scope);
        let (_, o) = step(&m, &m.initial(), 0);
        for d in 0..2 {
            assert_eq!(o.l2_fifo[d].contains(&marker), devs.contains(&d));
        }
    }
}

#[test]
fn unflushed_blocks_every_instruction_of_the_thread_only() {
    let m = machine(vec![
        (0, 0, json!([{"op": "flu", "level": 1, "scope": "dev"}, {"op": "assign", "dst": 0, "val": c(1)}])),
        (0, 1, json!([{"op": "assign", "dst": 0, "val": c(1)}])),
    ]);
    let (_, s) = step(&m, &m.initial(), 0);
    assert!(m.view().unflushed(&pack(&m, &s), 0) && !m.view().unflushed(&pack(&m, &s), 1));
    assert_eq!(step(&m, &s, 0).0, ThreadStep::Blocked);
    assert_eq!(step(&m, &s, 1).0, ThreadStep::Stepped);
    let s = env(&m, &s, Step::DequeueL1(0)).unwrap();
    assert_eq!(step(&m, &s, 0).0, ThreadStep::Blocked); // still in wg 1's fifo
    let s = env(&m, &s, Step::DequeueL1(1)).unwrap();
    assert_eq!(step(&m, &s, 0).0, ThreadStep::Stepped);
}

#[test]
fn invl1_invalidates_every_entry_of_the_l1_caches_in_scope() {
    for (scope, wgs) in [("wg", vec![0]), ("dev", vec![0, 1]), ("all", vec![0, 1, 2])] {
        let m = three_wgs(json!([{"op": "inv", "level": 1, "scope": scope}]));
        let mut s = m.initial();
        for w in 0..3 {
            s.l1[w * 3] = Line { st: CV, val: 1 };
            s.l1[w * 3 + 1] = Line { st: DV, val: 2 };
        }
        let (_, o) = step(&m, &s, 0);
        for w in 0..3 {
            let inv = wgs.contains(&w);
            assert_eq!(o.l1[w * 3], Line { st: if inv { CI } else { CV }, val: 1 });
            assert_eq!(o.l1[w * 3 + 1], Line { st: if inv { DI } else { DV }, val: 2 });
            assert_eq!(o.l1[w * 3 + 2], Line::default()); // absent stays absent
        }
    }
    let m = three_wgs(json!([{"op": "inv", "level": 2, "scope": "dev"}]));
    let mut s = m.initial();
    s.l2[0] = Line { st: CV, val: 1 };
    s.l2[3] = Line { st: CV, val: 1 };
    let (_, o) = step(&m, &s, 0);
    assert_eq!((o.l2[0].st, o.l2[3].st), (CI, CV));
}

#[test]
fn lk_and_unlk_use_the_device_lock_file() {
    let m = machine(vec![
        (0, 0, json!([{"op": "lk", "loc": 0}, {"op": "unlk", "loc": 0}])),
        (0, 1, json!([{"op": "lk", "loc": 0}])),
        (1, 2, json!([{"op": "lk", "loc": 0}, {"op": "unlk", "loc": 1}])),
    ]);
    let (_, s) = step(&m, &m.initial(), 0);
    assert_eq!(s.lockfile[0], 1);
    assert_eq!(step(&m, &s, 1).0, ThreadStep::Blocked); // same device: held
    let (r, s2) = step(&m, &s, 2); // another device: its own lock file
    assert_eq!((r, s2.lockfile[3]), (ThreadStep::Stepped, 3));
    assert!(matches!(step(&m, &s2, 2).0, ThreadStep::Fault(_))); // y not held
    let (_, s3) = step(&m, &s, 0);
    assert_eq!(s3.lockfile[0], 0);
    assert_eq!(step(&m, &s3, 1).0, ThreadStep::Stepped);
}

#[test]
fn lkrmw_takes_every_rmw_lock_of_the_scope_at_once() {
    let m = machine(vec![
        (0, 0, json!([{"op": "lkrmw", "scope": "dev"}, {"op": "unlkrmw", "scope": "dev"}])),
        (0, 1, json!([{"op": "lkrmw", "scope": "wg"}, {"op": "unlkrmw", "scope": "wg"}])),
        (1, 2, json!([{"op": "lkrmw", "scope": "all"}])),
    ]);
    let (_, s) = step(&m, &m.initial(), 1);
    assert_eq!(s.rmw_lock, vec![0, 2, 0]);
    assert_eq!(step(&m, &s, 0).0, ThreadStep::Blocked); // wg 1's lock is held
    assert_eq!(step(&m, &s, 2).0, ThreadStep::Blocked);
    let (_, s) = step(&m, &s, 1);
    let (_, s) = step(&m, &s, 0);
    assert_eq!(s.rmw_lock, vec![1, 1, 0]);
    assert_eq!(step(&m, &s, 2).0, ThreadStep::Blocked);
    let (_, s) = step(&m, &s, 0);
    assert_eq!(s.rmw_lock, vec![0, 0, 0]);
    let (_, s) = step(&m, &s, 2);
    assert_eq!(s.rmw_lock, vec![3, 3, 3]);
}

#[test]
fn register_moves_and_forward_branches() {
    let r = |i| json!({"k": "r", "r": i});
    let m = three_wgs(json!([
        {"op": "assign", "dst": 0, "val": c(1)},
        {"op": "branch", "cond": r(0), "target": 3},
        {"op": "assign", "dst": 1, "val": c(5)},
        {"op": "jump", "target": 4},
        {"op": "cut"}
    ]));
    let (_, s) = step(&m, &m.initial(), 0);
    let (_, s) = step(&m, &s, 0);
    assert_eq!(s.pc[0], 3);
    let (_, s) = step(&m, &s, 0);
    assert_eq!(s.pc[0], 4);
    assert_eq!(step(&m, &s, 0).0, ThreadStep::Cut);
}

// ---------------------------------------------------------------- environment

#[test]
fn fetch_into_l1_needs_an_absent_or_clean_invalid_entry_and_a_valid_l2() {
    let m = three_wgs(json!([]));
    let mut s = m.initial();
    assert!(env(&m, &s, Step::FetchL1(0, 0)).is_none()); // L2 absent
    s.l2[0] = Line { st: CV, val: 8 };
    assert_eq!(env(&m, &s, Step::FetchL1(0, 0)).unwrap().l1[0], Line { st: CV, val: 8 });
    assert!(env(&m, &s, Step::FetchL1(2, 0)).is_none()); // wg 2 is in device 1
    for (st, ok) in [(CI, true), (CV, false), (DV, false), (DI, false)] {
        s.l1[0] = Line { st, val: 1 };
        assert_eq!(env(&m, &s, Step::FetchL1(0, 0)).is_some(), ok, "{st}");
    }
    s.l2[0].st = CI;
    s.l1[0] = Line::default();
    assert!(env(&m, &s, Step::FetchL1(0, 0)).is_none()); // L2 invalid (INVL2)
}

#[test]
fn reduced_machine_refreshes_clean_entries_instead_of_evicting_them() {
    let m = machine_with(vec![(0, 0, json!([{"op": "ld", "dst": 0, "loc": 0}]))], "fifo", true);
    let mut s = m.initial();
    s.l2[0] = Line { st: CV, val: 8 };
    s.l1[0] = Line { st: CV, val: 1 };
    assert_eq!(env(&m, &s, Step::FetchL1(0, 0)).unwrap().l1[0], Line { st: CV, val: 8 });
    let steps = m.env_steps();
    assert!(!steps.iter().any(|s| matches!(s, Step::EvictL1(..) | Step::EvictL2(..))));
    // y and z are never read: never fetched
    assert!(!steps.iter().any(|s| matches!(s, Step::FetchL1(_, 1) | Step::FetchL2(_, 2))));
}

#[test]
fn fetch_into_l2_loads_memory_unless_dirty() {
    let m = three_wgs(json!([]));
    let mut s = m.initial();
    s.mem[1] = 6;
    assert_eq!(env(&m, &s, Step::FetchL2(1, 1)).unwrap().l2[3 + 1], Line { st: CV, val: 6 });
    s.l2[1] = Line { st: CV, val: 2 }; // clean but stale: refreshed
    assert_eq!(env(&m, &s, Step::FetchL2(0, 1)).unwrap().l2[1], Line { st: CV, val: 6 });
    s.l2[1] = Line { st: CV, val: 6 }; // nothing would change
    assert!(env(&m, &s, Step::FetchL2(0, 1)).is_none());
    s.l2[1] = Line { st: DV, val: 2 };
    assert!(env(&m, &s, Step::FetchL2(0, 1)).is_none());
}

#[test]
fn locked_addresses_are_not_fetched_or_written_back_by_other_work_groups() {
    let m = machine(vec![(0, 0, json!([{"op": "lk", "loc": 0}])), (0, 1, json!([]))]);
    let mut s = m.initial();
    s.lockfile[0] = 1; // x held by P0 (work-group 0)
    s.l2[0] = Line { st: CV, val: 1 };
    assert!(env(&m, &s, Step::FetchL1(1, 0)).is_none());
    assert!(env(&m, &s, Step::FetchL1(0, 0)).is_some()); // the holder's own work-group
    s.l1[3] = Line { st: DV, val: 2 };
    s.l1_fifo[1] = vec![0];
    assert!(env(&m, &s, Step::DequeueL1(1)).is_none());
    s.lockfile[0] = 0;
    assert!(env(&m, &s, Step::DequeueL1(1)).is_some());
}

#[test]
fn dequeue_l1_writes_a_dirty_head_to_l2_and_drops_clean_heads_and_markers() {
    let m = machine(vec![(0, 0, json!([])), (0, 1, json!([]))]);
    let mut s = m.initial();
    s.l1[0] = Line { st: DI, val: 4 };
    s.l1_fifo[0] = vec![0, 3, 0];
    let s1 = env(&m, &s, Step::DequeueL1(0)).unwrap();
    assert_eq!(
        (s1.l1[0], s1.l2[0], s1.l2_fifo[0].clone(), s1.l1_fifo[0].clone()),
        (Line { st: CI, val: 4 }, Line { st: DV, val: 4 }, vec![0], vec![3, 0])
    );
    let s2 = env(&m, &s1, Step::DequeueL1(0)).unwrap(); // the marker FLUSH(P0)
    assert_eq!(s2.l1_fifo[0], vec![0]);
    let s3 = env(&m, &s2, Step::DequeueL1(0)).unwrap(); // x clean now: dropped
    assert_eq!((s3.l1_fifo[0].len(), s3.l2_fifo[0].len()), (0, 1));
    assert!(env(&m, &s3, Step::DequeueL1(0)).is_none());
}

#[test]
fn reduced_machine_dequeues_idle_heads_alone() {
    // An address at a fifo's head whose line is clean and stays clean (no
    // thread that could dirty it will still write it) is dequeued alone,
    // as a FLUSH marker is; while a writer remains, it is not.
    let st_x = json!([{"op": "st", "loc": 0, "val": c(1)}]);
    let ld_y = json!([{"op": "ld", "dst": 0, "loc": 1}]);
    for (code, idle) in [(ld_y.clone(), true), (st_x, false)] {
        let m = machine_with(vec![(0, 0, code), (1, 1, ld_y.clone())], "fifo", true);
        let alone = |s: &State| m.view().invisible_step(&pack(&m, s), &[0]);
        // wg 0's L1 fifo holds x, its line clean: idle unless P0 may still store x.
        let mut s = m.initial();
        (s.l1[0], s.l1_fifo[0]) = (Line { st: CV, val: 1 }, vec![0]);
        assert_eq!(alone(&s), idle.then_some(Step::DequeueL1(0)));
        // Dirty, it is written back: never alone.
        s.l1[0] = Line { st: DV, val: 1 };
        assert_eq!(alone(&s), None);
        // Device 0's L2 fifo holds x: idle when the L2 line is clean, no L1
        // line of x in the device is dirty and no thread of the device
        // may still write x.
        let mut s = m.initial();
        (s.l2[0], s.l2_fifo[0]) = (Line { st: CV, val: 1 }, vec![0]);
        assert_eq!(alone(&s), idle.then_some(Step::DequeueL2(0)));
        (s.l1[0], s.l1_fifo[0]) = (Line { st: DV, val: 1 }, vec![0]);
        assert_eq!(alone(&s), None);
    }
}

#[test]
fn dequeue_l2_writes_a_dirty_head_to_memory() {
    let m = three_wgs(json!([]));
    let mut s = m.initial();
    s.l2[2] = Line { st: DV, val: 9 };
    s.l2_fifo[0] = vec![2, 3];
    let s1 = env(&m, &s, Step::DequeueL2(0)).unwrap();
    assert_eq!((s1.mem[2], s1.l2[2], s1.l2_fifo[0].clone()), (9, Line { st: CV, val: 9 }, vec![3]));
    let s2 = env(&m, &s1, Step::DequeueL2(0)).unwrap();
    assert!(s2.l2_fifo[0].is_empty() && s2.mem == s1.mem);
}

#[test]
fn out_of_order_write_back_only_with_writeback_any() {
    for (mode, ok) in [("fifo", false), ("any", true)] {
        let m = machine_with(vec![(0, 0, json!([]))], mode, false);
        let mut s = m.initial();
        s.l1[1] = Line { st: DV, val: 3 };
        s.l1_fifo[0] = vec![0, 1];
        let r = env(&m, &s, Step::WritebackL1(0, 1));
        assert_eq!(r.is_some(), ok);
        if let Some(o) = r {
            assert_eq!((o.l1[1].st, o.l2[1], o.l1_fifo[0].clone()), (CV, Line { st: DV, val: 3 }, vec![0, 1]));
            let o2 = env(&m, &o, Step::WritebackL2(0, 1)).unwrap();
            assert_eq!((o2.mem[1], o2.l2[1].st), (3, CV));
        }
        assert_eq!(m.env_steps().iter().any(|s| matches!(s, Step::WritebackL1(..))), ok);
    }
}

#[test]
fn evict_removes_clean_entries_only() {
    let m = three_wgs(json!([]));
    let mut s = m.initial();
    for (st, ok) in [(CV, true), (CI, true), (DV, false), (DI, false), (0, false)] {
        s.l1[0] = Line { st, val: 1 };
        s.l2[0] = Line { st, val: 1 };
        assert_eq!(env(&m, &s, Step::EvictL1(0, 0)).map(|o| o.l1[0]), ok.then_some(Line::default()));
        assert_eq!(env(&m, &s, Step::EvictL2(0, 0)).map(|o| o.l2[0]), ok.then_some(Line::default()));
    }
}

#[test]
fn packing_is_canonical_and_invertible_and_overflow_is_seen() {
    let m = three_wgs(json!([{"op": "lk", "loc": 0}, {"op": "lkrmw", "scope": "wg"}]));
    assert_eq!((m.lay.vw, m.lay.sw), (1, 1));
    // Lock fields only where the program locks: 3 rmw locks, 2 x 3 lock-file entries.
    let plain = three_wgs(json!([]));
    assert_eq!(m.pack(&m.initial()).b.len() - plain.pack(&plain.initial()).b.len(), 3 + 6);
    let mut s = m.initial();
    s.regs[1] = -100;
    s.l1[4] = Line { st: DI, val: 100 };
    s.l1_fifo[0] = vec![2];
    s.l2_fifo[1] = vec![0, 5];
    s.lockfile[2] = 2;
    s.rmw_lock[1] = 3;
    let b = pack(&m, &s);
    let mut t = s.clone();
    t.l1[4].val += 1;
    assert_ne!(pack(&m, &t), b);
    // The same elements in other fifos: other bytes.
    let mut t = s.clone();
    t.l2_fifo = vec![vec![0], vec![5]];
    assert_ne!(pack(&m, &t), b);
    // Numbers one byte cannot hold are seen, and fit once widened.
    s.regs[1] = -300;
    s.l1[4].val = 1 << 40;
    assert!(m.pack(&s).overflow);
    let mut w = m.widened().unwrap();
    assert_eq!((w.lay.vw, w.lay.sw), (2, 2));
    while let Some(v) = w.widened() {
        w = v;
    }
    assert_eq!(w.lay.vw, 8);
    assert_eq!(w.unpack(&pack(&w, &s)), s);
    // A fifo longer than a byte counts.
    let mut p = m.pack(&m.initial());
    for _ in 0..255 {
        m.view().push(&mut p, 1, 0);
    }
    assert!(!p.overflow);
    m.view().push(&mut p, 1, 0);
    assert!(p.overflow);
}

#[test]
fn explorer_widens_the_state_for_large_values() {
    // P0: ST 1000 x; r0 = 70000 * 70000 (the product needs 8 bytes)    P1 (same work-group): LD r1 x
    let big = json!({"k": "bin", "o": "*", "a": c(70000), "b": c(70000)});
    let m = machine(vec![
        (0, 0, json!([{"op": "st", "loc": 0, "val": c(1000)}, {"op": "assign", "dst": 0, "val": big}])),
        (0, 0, json!([{"op": "ld", "dst": 1, "loc": 0}])),
    ]);
    assert_eq!(m.lay.vw, 1);
    let o = explore(&m, &ExploreLimits::default());
    assert!(o.complete);
    // observed: P0 r0..r2, P1 r0..r2, x y z. P1 reads x once P0 stored it
    // (an empty L1 entry is fetched from L2: 0 before the write-back).
    let got: Vec<(i64, i64, i64)> = o.outcomes.iter().map(|o| (o.values[0], o.values[4], o.values[6])).collect();
    assert_eq!(got, vec![(4_900_000_000, 0, 1000), (4_900_000_000, 1000, 1000)]);
}

#[test]
fn invalid_programs_are_rejected() {
    let bad = |code: Value| {
        let p = json!({"name": "t", "locations": [{"name": "x"}], "threads": [{"name": "P0", "dev": 0, "wg": 0, "nregs": 1, "code": code}],
                       "observed": [], "condition": {"k": "true"}});
        Machine::new(serde_json::from_value(p).unwrap()).err().unwrap().to_string()
    };
    assert!(bad(json!([{"op": "ld", "dst": 0, "loc": 1}])).contains("address"));
    assert!(bad(json!([{"op": "jump", "target": 0}])).contains("forward"));
    assert!(bad(json!([{"op": "flu", "level": 2, "scope": "wg"}])).contains("WG"));
}

// ---------------------------------------------------------------- explorer

/// Message passing through device-scope flush/invalidate, both threads in
/// different work-groups of one device:
///   P0: ST 1 x; FLUL1 WG; ST 1 y        P1: LD r0 y; INVL1 WG; LD r1 x
/// P0's FLUL1 waits until x is in L2 before y is written; after P1 reads
/// y = 1 (so y reached L2 after x), it invalidates its L1, so x is fetched
/// from L2 again: r0 = 1 implies r1 = 1. Every other pair is reachable.
fn mp(reduce: bool, writeback: &str) -> Machine {
    machine_with(
        vec![
            (
                0,
                0,
                json!([{"op": "st", "loc": 0, "val": c(1)}, {"op": "flu", "level": 1, "scope": "wg"}, {"op": "st", "loc": 1, "val": c(1)}]),
            ),
            (
                0,
                1,
                json!([{"op": "ld", "dst": 0, "loc": 1}, {"op": "inv", "level": 1, "scope": "wg"}, {"op": "ld", "dst": 1, "loc": 0}]),
            ),
        ],
        writeback,
        reduce,
    )
}

fn outcomes(m: &Machine) -> Vec<(i64, i64)> {
    let o = explore(m, &ExploreLimits::default());
    assert!(o.complete);
    assert_eq!(o.deadlocks, Some(0));
    // observed: P0 r0..r2, P1 r0..r2, x y z
    o.outcomes.iter().map(|o| (o.values[3], o.values[4])).collect()
}

#[test]
fn message_passing_with_flush_and_invalidate() {
    for wb in ["fifo", "any"] {
        let got = outcomes(&mp(true, wb));
        assert_eq!(got, vec![(0, 0), (0, 1), (1, 1)], "writeback={wb}");
    }
    // Without the invalidate the stale x survives: P1 may fetch x = 0 first.
    let m = machine(vec![
        (
            0,
            0,
            json!([{"op": "st", "loc": 0, "val": c(1)}, {"op": "flu", "level": 1, "scope": "wg"}, {"op": "st", "loc": 1, "val": c(1)}]),
        ),
        (
            0,
            1,
            json!([{"op": "ld", "dst": 2, "loc": 0}, {"op": "ld", "dst": 0, "loc": 1}, {"op": "ld", "dst": 1, "loc": 0}]),
        ),
    ]);
    assert!(outcomes(&m).contains(&(1, 0)));
}

#[test]
fn the_reduction_keeps_outcomes_and_deadlocks() {
    for wb in ["fifo", "any"] {
        let a = explore(&mp(true, wb), &ExploreLimits::default());
        let b = explore(&mp(false, wb), &ExploreLimits::default());
        let va: Vec<_> = a.outcomes.iter().map(|o| o.values.clone()).collect();
        let vb: Vec<_> = b.outcomes.iter().map(|o| o.values.clone()).collect();
        assert_eq!(va, vb);
        eprintln!("{wb}: reduced {} states {:.3}s, full {} states {:.3}s", a.states, a.seconds, b.states, b.seconds);
        assert!(a.states <= b.states);
    }
}

#[test]
fn lock_order_inversion_is_a_deadlock_with_a_trace() {
    // P0: LK x; LK y; UNLK y; UNLK x    P1: LK y; LK x; UNLK x; UNLK y
    let lk = |op: &str, l: usize| json!({"op": op, "loc": l});
    let m = machine(vec![
        (0, 0, json!([lk("lk", 0), lk("lk", 1), lk("unlk", 1), lk("unlk", 0)])),
        (0, 1, json!([lk("lk", 1), lk("lk", 0), lk("unlk", 0), lk("unlk", 1)])),
    ]);
    let o = explore(&m, &ExploreLimits::default());
    assert!(o.complete && o.deadlocks.unwrap() >= 1);
    let d = o.deadlock.unwrap();
    assert_eq!(d.waiting, vec![(0, 1), (1, 1)]);
    assert_eq!(d.trace.len(), 2);
    assert_eq!(o.outcomes.len(), 1); // the runs that do not interleave finish
}

#[test]
fn state_limit_is_reported_not_a_verdict() {
    let o = explore(&mp(false, "any"), &ExploreLimits { max_states: Some(20), ..Default::default() });
    assert!(!o.complete);
    assert_eq!(o.limit.unwrap().which, "states");
    assert_eq!(o.deadlocks, None);
}

#[test]
fn parallel_exploration_is_deterministic() {
    let m = mp(false, "any");
    let on = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
            .install(|| explore(&m, &ExploreLimits::default()))
    };
    // (2 workers: kept awake on a machine of 2 CPUs or more; 4: maybe not.)
    let (one, two, four) = (on(1), on(2), on(4));
    for other in [&two, &four] {
        assert_eq!(one.states, other.states);
        assert_eq!(one.transitions, other.transitions);
        assert_eq!(serde_json::to_string(&one.outcomes).unwrap(), serde_json::to_string(&other.outcomes).unwrap());
    }
}

/// The successors of state s by any step: every thread, then every
/// environment step (`out`: scratch).
fn successors(m: &Machine, s: &[u8], out: &mut Packed) -> Vec<Vec<u8>> {
    let mut next = Vec::new();
    for t in 0..m.nthreads() {
        if m.view().thread_step(s, t, out) == ThreadStep::Stepped {
            next.push(out.b.clone());
        }
    }
    for st in m.env_steps() {
        if m.view().env_step(s, st, out) {
            next.push(out.b.clone());
        }
    }
    next
}

/// Every state reachable in the machine by any step (every thread, then
/// every environment step), depth-first, with a plain set: a reference
/// independent of the explorer.
fn reachable(m: &Machine) -> Vec<Vec<u8>> {
    let first = pack(m, &m.initial());
    let mut seen = std::collections::HashSet::from([first.clone()]);
    let (mut todo, mut all) = (vec![first], Vec::new());
    let mut out = Packed::default();
    while let Some(s) = todo.pop() {
        todo.extend(successors(m, &s, &mut out).into_iter().filter(|n| seen.insert(n.clone())));
        all.push(s);
        assert!(all.len() < 300_000, "reachable: test program too big for the naive search");
    }
    all
}

#[test]
fn flushing_is_unflushed_of_each_thread() {
    // In every reachable state of a program whose flushes leave markers
    // in L1 and L2 fifos (two work-groups, two devices), the explorer's
    // one-walk bit set says, thread by thread, what `unflushed` says, and
    // a thread step given it is the reference thread step; some states
    // do have a thread unflushed.
    let st = |l: usize, v: i64| json!({"op": "st", "loc": l, "val": c(v)});
    let m = machine_with(
        vec![
            (0, 0, json!([st(0, 1), {"op": "flu", "level": 1, "scope": "wg"}, st(1, 1)])),
            (0, 1, json!([st(1, 2), {"op": "flu", "level": 2, "scope": "dev"}, {"op": "ld", "dst": 0, "loc": 0}])),
            (1, 2, json!([{"op": "flu", "level": 2, "scope": "all"}, st(0, 3)])),
        ],
        "fifo",
        true,
    );
    let (mut flushing, mut seen_unflushed) = (Vec::new(), 0);
    let (mut a, mut b) = (Packed::default(), Packed::default());
    for s in reachable(&m) {
        m.view().flushing_into(&s, &mut flushing);
        for t in 0..m.nthreads() {
            let bit = in_set(&flushing, t);
            assert_eq!(bit, m.view().unflushed(&s, t));
            seen_unflushed += bit as usize;
            let r = m.view().thread_step(&s, t, &mut a);
            assert_eq!(r, m.view().thread_step_with(&s, t, &mut b, bit));
            if r == ThreadStep::Stepped {
                assert_eq!(a.b, b.b);
            }
        }
    }
    assert!(seen_unflushed > 0);
}

#[test]
fn narrow_view_is_the_layout_view() {
    // The explorer's copy of the steps with 1-byte widths as constants
    // (`Machine::view_as::<1, 1>`) against the steps reading the widths
    // from the layout (`Machine::view`), on every reachable state of a
    // program using every instruction, under both write-back policies,
    // reduced and literal: the same results and the same successor bytes.
    let st = |l: usize, v: i64| json!({"op": "st", "loc": l, "val": c(v)});
    let rmw = |level: u8, l: usize| json!({"op": "rmw", "level": level, "dst": 1, "loc": l, "rmw": "add", "val": c(1)});
    let code = json!([
        {"op": "lkrmw", "scope": "dev"}, rmw(1, 0), {"op": "unlkrmw", "scope": "dev"}, {"op": "inv", "level": 1, "scope": "dev"},
        {"op": "ld", "dst": 0, "loc": 1}, {"op": "branch", "cond": {"k": "r", "r": 0}, "target": 7},
        {"op": "assign", "dst": 2, "val": c(-3)}, {"op": "lk", "loc": 2}, rmw(2, 2), {"op": "unlk", "loc": 2},
    ]);
    let other = json!([st(1, 2), {"op": "flu", "level": 2, "scope": "dev"}, {"op": "flu", "level": 1, "scope": "dev"}, {"op": "ld", "dst": 0, "loc": 0}]);
    // (The literal machine, with evictions, gets a smaller program: the
    // naive search must stay small.)
    let literal =
        [json!([st(0, 1), {"op": "ld", "dst": 0, "loc": 0}]), json!([st(0, 2), {"op": "ld", "dst": 0, "loc": 0}])];
    for (wb, reduce) in [("fifo", true), ("fifo", false), ("any", true), ("any", false)] {
        let (p0, p1) = if reduce { (code.clone(), other.clone()) } else { (literal[0].clone(), literal[1].clone()) };
        let m = machine_with(vec![(0, 0, p0), (0, 1, p1)], wb, reduce);
        let (slow, fast) = (m.view(), m.view_as::<1, 1>().expect("1-byte widths"));
        assert!(m.view_as::<2, 2>().is_none());
        let (mut a, mut b) = (Packed::default(), Packed::default());
        let (mut fa, mut fb, mut ra, mut rb) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let states = reachable(&m);
        assert!(states.len() > 1000, "{} states", states.len());
        for s in &states {
            slow.flushing_into(s, &mut fa);
            fast.flushing_into(s, &mut fb);
            assert_eq!(fa, fb);
            slow.reads_into(s, &mut ra);
            fast.reads_into(s, &mut rb);
            assert_eq!(ra, rb);
            assert_eq!(slow.invisible_step(s, &fa), fast.invisible_step(s, &fb));
            assert_eq!((slow.is_final(s), slow.outcome(s)), (fast.is_final(s), fast.outcome(s)));
            for t in 0..m.nthreads() {
                let r = slow.thread_step_with(s, t, &mut a, in_set(&fa, t));
                assert_eq!(r, fast.thread_step_with(s, t, &mut b, in_set(&fb, t)));
                if r == ThreadStep::Stepped {
                    assert_eq!((&a.b, a.overflow), (&b.b, b.overflow));
                }
            }
            for st in m.env_steps() {
                let e = slow.env_step_with(s, st, &mut a, &ra);
                assert_eq!(e, fast.env_step_with(s, st, &mut b, &rb));
                if e {
                    assert_eq!((&a.b, a.overflow), (&b.b, b.overflow));
                }
            }
        }
    }
}

/// How many states lie at each distance from the initial state (the
/// most steps of a shortest path to a state is the length less one), by a
/// plain breadth-first search that, as the explorer does, takes no step
/// from a final state: a reference.
fn bfs_layers(m: &Machine) -> Vec<usize> {
    let first = pack(m, &m.initial());
    let mut dist = std::collections::HashMap::from([(first.clone(), 0usize)]);
    let mut todo = std::collections::VecDeque::from([first]);
    let (mut out, mut count) = (Packed::default(), Vec::new());
    while let Some(s) = todo.pop_front() {
        let d = dist[&s];
        count.resize(count.len().max(d + 1), 0);
        count[d] += 1;
        if m.view().is_final(&s) {
            continue;
        }
        for n in successors(m, &s, &mut out) {
            if !dist.contains_key(&n) {
                dist.insert(n.clone(), d + 1);
                todo.push_back(n);
            }
        }
        assert!(dist.len() < 300_000, "bfs_layers: test program too big for the naive search");
    }
    count
}

#[test]
fn depth_is_the_longest_shortest_trace() {
    // The literal machine (no reduction: every step is a step of the
    // reference) on message passing under both write-back policies; with
    // a state limit, the states stored are those of the layers done.
    for wb in ["fifo", "any"] {
        let m = mp(false, wb);
        let count = bfs_layers(&m);
        let (states, depth) = (count.iter().sum::<usize>(), count.len() as u32 - 1);
        let o = explore(&m, &ExploreLimits::default());
        assert!(o.complete && depth > 10, "{wb}: depth {depth}");
        assert_eq!((o.states as usize, o.depth, o.layers), (states, depth, depth + 1), "{wb}");
        let cut = explore(&m, &ExploreLimits { max_states: Some(states as u64 / 2), ..Default::default() });
        assert!(!cut.complete && cut.depth < depth, "{wb}: {} of {depth}", cut.depth);
        assert_eq!(cut.states as usize, count[..=cut.depth as usize].iter().sum::<usize>(), "{wb}");
    }
}
