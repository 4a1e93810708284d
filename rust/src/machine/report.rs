//! What an exploration reports: its output types (outcomes with their
//! shortest traces, the first deadlock, faults, the time in each phase)
//! and the readable steps and states of a trace.

use super::state::{Machine, Packed};
use super::step::{Step, ThreadStep};
use super::visited::Store;
use crate::limits::LimitOut;
use serde::Serialize;
use serde_json::{json, Value};

#[derive(Serialize, Debug, schemars::JsonSchema)]
pub struct OutcomeOut {
    pub values: Vec<i64>,
    pub holds: bool,
    pub trace: Vec<Value>,
}

#[derive(Serialize, Debug, schemars::JsonSchema)]
pub struct StuckOut {
    pub trace: Vec<Value>,
    /// Each unfinished thread and the pc it waits at.
    pub waiting: Vec<(usize, usize)>,
    pub state: Value,
}

#[derive(Serialize, Debug, schemars::JsonSchema)]
pub struct FaultOut {
    pub message: String,
    pub trace: Vec<Value>,
}

/// Seconds spent in each part of an exploration, summed over layers (a
/// profile: where the time goes, and how each part scales with threads).
#[derive(Serialize, Debug, Default, Clone, schemars::JsonSchema)]
pub struct PhaseSeconds {
    /// Expanding every state of a layer into its successors (`Ctx::expand_share`).
    pub expand: f64,
    /// Looking the successors up in the visited set (`enter_layer`).
    pub enter: f64,
    /// Appending the new states to the arena and settling their slots.
    pub store: f64,
    /// Finding the outcomes and faults and their traces.
    pub outcomes: f64,
    /// The search for states that cannot finish (`stuck_states`).
    pub deadlocks: f64,
    /// Of `expand`, `enter` and `store`, the seconds spent on one thread
    /// between their parallel parts: what bounds the speed-up over one
    /// thread (Amdahl's law), whatever the number of threads.
    pub serial: f64,
}

#[derive(Serialize, Debug, Default, schemars::JsonSchema)]
pub struct ExploreOut {
    pub complete: bool,
    pub limit: Option<LimitOut>,
    pub states: u64,
    /// Of those, the final ones. The explorer does not step on from a final
    /// state: a fetch or an eviction there gives another final state with
    /// the same registers and memory.
    pub final_states: u64,
    pub transitions: u64,
    /// Breadth-first layers expanded (the last one finds nothing new when
    /// the exploration is complete).
    pub layers: u32,
    /// The most steps of a shortest trace to a state stored: layers - 1.
    pub depth: u32,
    pub outcomes: Vec<OutcomeOut>,
    /// States from which no final state is reachable (None: not established).
    pub deadlocks: Option<u64>,
    pub deadlock: Option<StuckOut>,
    pub faults: Vec<FaultOut>,
    pub cut: u64,
    pub seconds: f64,
    pub bytes_per_state: f64,
    pub threads: usize,
    pub phase_seconds: PhaseSeconds,
}

/// The steps from the initial state to state i (then `last`, if given),
/// steps by number (`Ctx::steps`).
pub(crate) fn trace(m: &Machine, store: &Store, steps: &[Step], i: u32, last: Option<u16>) -> Vec<Value> {
    let mut chain = Vec::new();
    let mut j = i;
    while store.parent[j as usize] != u32::MAX {
        chain.push((store.parent[j as usize], store.step[j as usize]));
        j = store.parent[j as usize];
    }
    chain.reverse();
    if let Some(st) = last {
        chain.push((i, st));
    }
    let mut next = Packed::default();
    chain.into_iter().map(|(p, st)| describe_step(m, store.get(p), steps[st as usize], &mut next)).collect()
}

/// A step as JSON, with the values it moved (read from the state before it).
pub fn describe_step(m: &Machine, packed: &[u8], st: Step, next: &mut Packed) -> Value {
    let na = m.naddr;
    let s = m.unpack(packed);
    let loc = |a: usize| m.prog.locations[a].name.clone();
    // The head of a fifo: a FLUSH marker, or an address written back if dirty.
    let dequeue = |mut v: Value, head: u16, cache: &[super::state::Line]| {
        let e = head as usize;
        if e >= na {
            v["flush"] = json!(e - na);
        } else {
            v["loc"] = json!(loc(e));
            v["wrote"] = json!(cache[e].dirty());
            v["val"] = json!(cache[e].val);
        }
        v
    };
    match st {
        Step::Thread(t) => {
            let pc = s.pc[t] as usize;
            let r = m.view().thread_step(packed, t, next);
            let mut v = json!({"kind": "thread", "thread": t, "pc": pc});
            if let ThreadStep::Fault(msg) = r {
                v["fault"] = json!(msg);
            } else if matches!(r, ThreadStep::Stepped) {
                if let Some(dst) = match &m.prog.threads[t].code[pc] {
                    super::program::MInstr::Ld { dst, .. } => Some(*dst),
                    super::program::MInstr::Rmw { dst: Some(d), .. } => Some(*d),
                    _ => None,
                } {
                    v["reg"] = json!(dst);
                    v["val"] = json!(m.view().reg(&next.b, t, dst));
                }
            }
            v
        }
        Step::FetchL1(w, a) => {
            json!({"kind": "fetch_l1", "wg": w, "loc": loc(a), "val": s.l2[m.wg_dev[w] * na + a].val})
        }
        Step::FetchL2(d, a) => {
            json!({"kind": "fetch_l2", "dev": d, "loc": loc(a), "val": s.mem[a]})
        }
        Step::DequeueL1(w) => dequeue(json!({"kind": "dequeue_l1", "wg": w}), s.l1_fifo[w][0], &s.l1[w * na..]),
        Step::DequeueL2(d) => dequeue(json!({"kind": "dequeue_l2", "dev": d}), s.l2_fifo[d][0], &s.l2[d * na..]),
        Step::WritebackL1(w, a) => {
            json!({"kind": "writeback_l1", "wg": w, "loc": loc(a), "val": s.l1[w * na + a].val})
        }
        Step::WritebackL2(d, a) => {
            json!({"kind": "writeback_l2", "dev": d, "loc": loc(a), "val": s.l2[d * na + a].val})
        }
        Step::EvictL1(w, a) => json!({"kind": "evict_l1", "wg": w, "loc": loc(a)}),
        Step::EvictL2(d, a) => json!({"kind": "evict_l2", "dev": d, "loc": loc(a)}),
    }
}

/// A state as JSON (for a deadlock report).
pub fn describe_state(m: &Machine, s: &super::state::State) -> Value {
    let na = m.naddr;
    let cache = |lines: &[super::state::Line], k: usize| -> Value {
        let mut o = serde_json::Map::new();
        for a in 0..na {
            let l = lines[k * na + a];
            if l.present() {
                let st = format!("{}{}", if l.dirty() { "D" } else { "C" }, if l.valid() { "V" } else { "I" });
                o.insert(m.prog.locations[a].name.clone(), json!([l.val, st]));
            }
        }
        Value::Object(o)
    };
    let fifo = |f: &Vec<u16>| -> Value {
        f.iter()
            .map(|&e| {
                let e = e as usize;
                if e >= na {
                    json!(format!("FLUSH({})", m.prog.threads[e - na].name))
                } else {
                    json!(m.prog.locations[e].name)
                }
            })
            .collect()
    };
    json!({
        "pc": s.pc,
        "l1": (0..m.nwg).map(|w| json!({"cache": cache(&s.l1, w), "fifo": fifo(&s.l1_fifo[w]), "rmw_lock": s.rmw_lock[w]})).collect::<Vec<_>>(),
        "l2": (0..m.ndev).map(|d| json!({"cache": cache(&s.l2, d), "fifo": fifo(&s.l2_fifo[d]),
            "locks": (0..na).filter(|&a| s.lockfile[d * na + a] != 0).map(|a| json!([m.prog.locations[a].name, s.lockfile[d * na + a] - 1])).collect::<Vec<_>>()})).collect::<Vec<_>>(),
        "mem": s.mem,
    })
}
