//! Tests of the candidate enumerator (the parent module).

use super::super::model::{CheckKind, ModelIr};
use super::super::relation::{full_set, EventSet};
use super::*;
use serde_json::json;

/// SC as the Python DSL builds it: acyclic(po|rf|co|fr), rmw atomicity.
fn sc_model() -> ModelIr {
    serde_json::from_value(sc_model_json()).unwrap()
}

fn sc_model_json() -> serde_json::Value {
    json!({
        "name": "sc",
        "nodes": [
            {"op": "base", "name": "po"}, {"op": "base", "name": "rf"},
            {"op": "union", "a": 0, "b": 1}, {"op": "base", "name": "co"},
            {"op": "union", "a": 2, "b": 3}, {"op": "base", "name": "fr"},
            {"op": "union", "a": 4, "b": 5}, {"op": "base", "name": "rmw"},
            {"op": "seq", "a": 5, "b": 3}, {"op": "inter", "a": 7, "b": 8}
        ],
        "checks": [
            {"kind": "acyclic", "node": 6, "name": "sc"},
            {"kind": "empty", "node": 9, "name": "atomicity"}
        ]
    })
}

fn tmpl(kind: &str) -> serde_json::Value {
    json!({"kind": kind, "tags": [], "attrs": {}})
}

/// Store buffering: x=1; r0=y || y=1; r1=x.
fn sb() -> Program {
    serde_json::from_value(sb_json()).unwrap()
}

fn sb_json() -> serde_json::Value {
    json!({
        "name": "SB",
        "locations": [{"name": "x", "init": 0}, {"name": "y", "init": 0}],
        "templates": [tmpl("W"), tmpl("R"), tmpl("W"), tmpl("R")],
        "threads": [
            {"name": "P0", "nregs": 1, "code": [
                {"op": "store", "loc": 0, "val": {"k": "c", "v": 1}, "ev": 0},
                {"op": "load", "dst": 0, "loc": 1, "ev": 1}]},
            {"name": "P1", "nregs": 1, "code": [
                {"op": "store", "loc": 1, "val": {"k": "c", "v": 1}, "ev": 2},
                {"op": "load", "dst": 0, "loc": 0, "ev": 3}]}
        ],
        "observed": [{"kind": "reg", "thread": 0, "reg": 0}, {"kind": "reg", "thread": 1, "reg": 0}],
        "condition": {"k": "and", "args": [{"k": "eq", "var": 0, "val": 0}, {"k": "eq", "var": 1, "val": 0}]}
    })
}

/// Three threads each doing fetch_add(x, 1) and a loop-free branch on it.
fn incs() -> Program {
    let th = |name: &str| {
        json!({"name": name, "nregs": 2, "code": [
            {"op": "rmw", "dst": 0, "loc": 0, "rmw": "add", "val": {"k": "c", "v": 1}, "ev_r": 0, "ev_w": 1},
            {"op": "branch", "cond": {"k": "bin", "o": "==", "a": {"k": "r", "r": 0}, "b": {"k": "c", "v": 0}}, "target": 3},
            {"op": "store", "loc": 1, "val": {"k": "r", "r": 0}, "ev": 2}
        ]})
    };
    serde_json::from_value(json!({
        "name": "INC3",
        "locations": [{"name": "x", "init": 0}, {"name": "y", "init": 0}],
        "templates": [tmpl("R"), tmpl("W"), tmpl("W")],
        "threads": [th("P0"), th("P1"), th("P2")],
        "observed": [{"kind": "loc", "loc": 0}, {"kind": "loc", "loc": 1}],
        "condition": {"k": "eq", "var": 0, "val": 3}
    }))
    .unwrap()
}

fn run(p: &Program, reference: bool) -> CheckOut {
    let m = Compiled::new(sc_model(), p).unwrap();
    check(p, &m, &Limits { reference, keep_all: true, ..Limits::default() }).unwrap()
}

fn summary(o: &CheckOut) -> (Vec<(Vec<i64>, u64)>, u64) {
    (o.outcomes.iter().map(|x| (x.values.clone(), x.count)).collect(), o.consistent)
}

#[test]
fn sb_under_sc() {
    // By hand: SC forbids r0 = r1 = 0; the other three outcomes remain.
    let o = run(&sb(), false);
    let outs: Vec<Vec<i64>> = o.outcomes.iter().map(|x| x.values.clone()).collect();
    assert_eq!(outs, vec![vec![0, 1], vec![1, 0], vec![1, 1]]);
    assert_eq!(o.positive, 0);
    assert!(o.complete);
}

#[test]
fn fast_equals_reference() {
    for p in [sb(), incs()] {
        let fast = run(&p, false);
        let slow = run(&p, true);
        assert_eq!(summary(&fast), summary(&slow), "{}", p.name);
        assert!(fast.candidates <= slow.candidates);
    }
}

/// Two threads store 1 to x, a third reads x twice: each read of 1 may
/// read either store (two rf choices), a read of 0 the init write only.
fn two_writers() -> Program {
    serde_json::from_value(json!({
        "name": "2W",
        "locations": [{"name": "x", "init": 0}],
        "templates": [tmpl("W"), tmpl("W"), tmpl("R"), tmpl("R")],
        "threads": [
            {"name": "P0", "nregs": 0, "code": [{"op": "store", "loc": 0, "val": {"k": "c", "v": 1}, "ev": 0}]},
            {"name": "P1", "nregs": 0, "code": [{"op": "store", "loc": 0, "val": {"k": "c", "v": 1}, "ev": 1}]},
            {"name": "P2", "nregs": 2, "code": [
                {"op": "load", "dst": 0, "loc": 0, "ev": 2},
                {"op": "load", "dst": 1, "loc": 0, "ev": 3}]}
        ],
        "observed": [{"kind": "reg", "thread": 2, "reg": 0}, {"kind": "reg", "thread": 2, "reg": 1}],
        "condition": {"k": "and", "args": [{"k": "eq", "var": 0, "val": 1}, {"k": "eq", "var": 1, "val": 0}]}
    }))
    .unwrap()
}

#[test]
fn search_order_forced_reads_then_co_then_branching_reads() {
    let p = two_writers();
    let paths = all_paths(&p);
    // P2 reads 0 then 1: the first read has one write to read, the second two.
    let p2 = paths[2].iter().find(|q| q.regs == [0, 1]).unwrap();
    let es = EventStructure::build(&p, &[&paths[0][0], &paths[1][0], p2]).unwrap();
    let rf: Vec<Vec<usize>> = bits(es.reads)
        .map(|r| es.writes_of[0].iter().copied().filter(|&w| es.events[w].value == es.events[r].value).collect())
        .collect();
    assert_eq!(rf.iter().map(Vec::len).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(search_order(&es, &rf, &[false, false]), [Step::Rf(0), Step::Co(0), Step::Rf(1)]);
    // Whatever the order, the same candidates: against the reference.
    // By hand under SC: (r0, r1) is (0, 0), (0, 1), (1, 1), never
    // (1, 0); co has 2 orders of the stores, and each read of 1 reads the
    // store that is co-last at its place in the total order.
    let (fast, slow) = (run(&p, false), run(&p, true));
    assert_eq!(summary(&fast), summary(&slow));
    let outs: Vec<Vec<i64>> = fast.outcomes.iter().map(|x| x.values.clone()).collect();
    assert_eq!(outs, vec![vec![0, 0], vec![0, 1], vec![1, 1]]);
    assert_eq!(fast.positive, 0);
}

/// The value of node `i` computed the plain way, by recursion over the
/// IR with `Relation`'s methods and nothing cached: the reference for
/// the evaluator, which keeps every node's value in one buffer.
fn reference_value(
    ir: &ModelIr,
    p: &Program,
    es: &EventStructure,
    d: &Dynamic,
    i: usize,
    bound: &mut Vec<(String, Result<EventSet, Relation>)>,
) -> Result<EventSet, Relation> {
    use super::super::model::Node;
    let n = es.n;
    let set = |j: usize, bound: &mut Vec<(String, Result<EventSet, Relation>)>| {
        reference_value(ir, p, es, d, j, bound).unwrap()
    };
    let rel = |j: usize, bound: &mut Vec<(String, Result<EventSet, Relation>)>| {
        reference_value(ir, p, es, d, j, bound).unwrap_err()
    };
    let events_with = |f: &dyn Fn(&super::super::execution::Event) -> bool| {
        es.events.iter().filter(|e| f(e)).fold(0 as EventSet, |s, e| s | (1 as EventSet) << e.id)
    };
    let prog_tags = |e: &super::super::execution::Event, name: &str, p: &Program| match e.template {
        // an access: its template's tags and its location's
        Some(t) => {
            p.templates[t].tags.iter().any(|x| x == name)
                || e.loc.is_some_and(|l| p.locations[l].tags.iter().any(|x| x == name))
        }
        None => p.locations[e.loc.unwrap()].tags.iter().any(|x| x == name),
    };
    // pairs of events with the same value (where they have one)
    let same = |v: &dyn Fn(&super::super::execution::Event) -> Option<i64>| {
        let pairs: Vec<(usize, usize)> = (0..n)
            .flat_map(|a| (0..n).map(move |b| (a, b)))
            .filter(|&(a, b)| v(&es.events[a]).is_some() && v(&es.events[a]) == v(&es.events[b]))
            .collect();
        Relation::from_pairs(n, &pairs)
    };
    match &ir.nodes[i] {
        Node::Tag { name } => Ok(es.builtin_tag(name) | events_with(&|e| prog_tags(e, name, p))),
        Node::AllSet => Ok(full_set(n)),
        Node::EmptySet => Ok(0),
        Node::Var { name } | Node::RelVar { name } => bound.iter().rev().find(|(v, _)| v == name).unwrap().1.clone(),
        Node::SetUnion { a, b } => Ok(set(*a, bound) | set(*b, bound)),
        Node::SetInter { a, b } => Ok(set(*a, bound) & set(*b, bound)),
        Node::SetDiff { a, b } => Ok(set(*a, bound) & !set(*b, bound)),
        Node::Domain { a } => Ok(rel(*a, bound).domain()),
        Node::Range { a } => Ok(rel(*a, bound).range()),
        Node::Base { name } => Err(match name.as_str() {
            "po" => es.po.clone(),
            "rf" => d.rf.clone(),
            "co" => d.co.clone(),
            "fr" => d.rf.inverse().seq(&d.co),
            "rmw" => es.rmw.clone(),
            "loc" => es.loc.clone(),
            "int" => es.int.clone(),
            "ext" => {
                let t = full_set(n) & !es.init;
                Relation::product(n, t, t).diff(&es.int)
            }
            "id" => Relation::identity(n),
            "universal" => Relation::product(n, full_set(n), full_set(n)),
            _ => Relation::empty(n),
        }),
        Node::SameThreadAttr { name } => Err(same(&|e| e.thread.and_then(|t| p.threads[t].attrs.get(name).copied()))),
        Node::SameEventAttr { name } => {
            Err(same(&|e| e.template.and_then(|t| p.templates[t].attrs.get(name).copied())))
        }
        Node::Ident { a } => Err(Relation::identity_on(n, set(*a, bound))),
        Node::Prod { a, b } => Err(Relation::product(n, set(*a, bound), set(*b, bound))),
        Node::Union { a, b } => Err(rel(*a, bound).union(&rel(*b, bound))),
        Node::Inter { a, b } => Err(rel(*a, bound).inter(&rel(*b, bound))),
        Node::Diff { a, b } => Err(rel(*a, bound).diff(&rel(*b, bound))),
        Node::Seq { a, b } => Err(rel(*a, bound).seq(&rel(*b, bound))),
        Node::Inv { a } => Err(rel(*a, bound).inverse()),
        Node::Plus { a } => Err(rel(*a, bound).plus()),
        Node::Star { a } => Err(rel(*a, bound).star()),
        Node::Opt { a } => Err(rel(*a, bound).opt()),
        Node::Foreach { attr, var, body } => {
            let v =
                |e: &super::super::execution::Event| e.template.and_then(|t| p.templates[t].attrs.get(attr).copied());
            let mut vals: Vec<i64> = es.events.iter().filter_map(v).collect();
            vals.sort();
            vals.dedup();
            let mut acc = Relation::empty(n);
            for x in vals {
                bound.push((var.clone(), Ok(events_with(&|e| v(e) == Some(x)))));
                acc = acc.union(&rel(*body, bound));
                bound.pop();
            }
            Err(acc)
        }
        Node::Fix { var, body } => {
            // from the empty relation, one round at a time, until it holds still
            let mut x = Relation::empty(n);
            loop {
                bound.push((var.clone(), Err(x.clone())));
                let next = rel(*body, bound);
                bound.pop();
                if next == x {
                    return Err(x);
                }
                x = next;
            }
        }
    }
}

/// Two threads in two work-groups; events tagged and with a scope
/// instance attribute, for `reference_value`.
fn tagged() -> Program {
    let t = |kind: &str, tags: &[&str], si: i64| json!({"kind": kind, "tags": tags, "attrs": {"sinst": si}});
    serde_json::from_value(json!({
        "name": "tagged",
        "locations": [{"name": "x", "init": 0, "tags": ["global"]}, {"name": "y", "init": 0}],
        "templates": [t("W", &["A", "rel"], 1), t("R", &["A"], 2), t("W", &[], 1), t("R", &["A", "acq"], 2),
                      t("W", &["A"], 2)],
        "threads": [
            {"name": "P0", "attrs": {"wg": 0}, "nregs": 1, "code": [
                {"op": "store", "loc": 0, "val": {"k": "c", "v": 1}, "ev": 0},
                {"op": "load", "dst": 0, "loc": 1, "ev": 1}]},
            {"name": "P1", "attrs": {"wg": 1}, "nregs": 1, "code": [
                {"op": "store", "loc": 1, "val": {"k": "c", "v": 1}, "ev": 2},
                {"op": "load", "dst": 0, "loc": 0, "ev": 3},
                {"op": "store", "loc": 0, "val": {"k": "c", "v": 2}, "ev": 4}]}
        ],
        "observed": [{"kind": "reg", "thread": 0, "reg": 0}, {"kind": "reg", "thread": 1, "reg": 0}],
        "condition": {"k": "eq", "var": 0, "val": 0}
    }))
    .unwrap()
}

#[test]
fn evaluator_agrees_with_plain_recursion_on_every_node() {
    // Every kind of node, nested foreach over two variables, on
    // arbitrary rf/co (not only candidates), changed one at a time so
    // that cached values are forgotten as they would be in the search.
    let ir: ModelIr = serde_json::from_str(
        r#"{
            "name": "all-nodes",
            "nodes": [
                {"op": "tag", "name": "A"}, {"op": "tag", "name": "W"}, {"op": "tag", "name": "global"},   
                {"op": "all_set"}, {"op": "empty_set"}, {"op": "set_union", "a": 0, "b": 2},            
                {"op": "set_inter", "a": 0, "b": 1}, {"op": "set_diff", "a": 3, "b": 1},                 
                {"op": "base", "name": "po"}, {"op": "base", "name": "rf"}, {"op": "base", "name": "co"}, 
                {"op": "base", "name": "fr"}, {"op": "base", "name": "ext"}, {"op": "base", "name": "id"}, 
                {"op": "base", "name": "universal"}, {"op": "base", "name": "loc"},                       
                {"op": "same_thread_attr", "name": "wg"}, {"op": "same_event_attr", "name": "sinst"},     
                {"op": "ident", "a": 6}, {"op": "prod", "a": 0, "b": 7},                                  
                {"op": "union", "a": 9, "b": 10}, {"op": "inter", "a": 20, "b": 15},                     
                {"op": "diff", "a": 14, "b": 21}, {"op": "seq", "a": 18, "b": 20},                       
                {"op": "seq", "a": 20, "b": 18}, {"op": "seq", "a": 11, "b": 8},                         
                {"op": "inv", "a": 25}, {"op": "plus", "a": 20}, {"op": "star", "a": 24},               
                {"op": "opt", "a": 9}, {"op": "domain", "a": 20}, {"op": "range", "a": 11},              
                {"op": "var", "name": "S"}, {"op": "var", "name": "T"},                                   
                {"op": "ident", "a": 32}, {"op": "seq", "a": 34, "b": 20}, {"op": "union", "a": 8, "b": 35}, 
                {"op": "plus", "a": 36}, {"op": "prod", "a": 32, "b": 33},                                
                {"op": "inter", "a": 38, "b": 12}, {"op": "foreach", "attr": "sinst", "var": "T", "body": 39}, 
                {"op": "union", "a": 37, "b": 40}, {"op": "foreach", "attr": "sinst", "var": "S", "body": 41}, 
                {"op": "ident", "a": 30}, {"op": "ident", "a": 31}, {"op": "seq", "a": 43, "b": 16},      
                {"op": "seq", "a": 45, "b": 44}, {"op": "union", "a": 42, "b": 46}, {"op": "diff", "a": 47, "b": 17}, 
                {"op": "ident", "a": 5}, {"op": "ident", "a": 4}, {"op": "union", "a": 49, "b": 50},     
                {"op": "seq", "a": 26, "b": 27}, {"op": "union", "a": 22, "b": 28}, {"op": "union", "a": 29, "b": 19} 
            ],
            "checks": [{"kind": "acyclic", "node": 48, "name": "a"}, {"kind": "irreflexive", "node": 52, "name": "b"},
                       {"kind": "empty", "node": 53, "name": "c"}, {"kind": "empty", "node": 54, "name": "d"},
                       {"kind": "empty", "node": 51, "name": "e"}]
        }"#,
    )
    .unwrap();
    let p = tagged();
    let m = Compiled::new(ir.clone(), &p).unwrap();
    let paths = all_paths(&p);
    let es = EventStructure::build(&p, &[&paths[0][0], &paths[1][0]]).unwrap();
    let n = es.n;
    let mut ev = Evaluator::new(&m, &es);
    let mut d = Dynamic { rf: Relation::empty(n), co: Relation::empty(n), orders: vec![] };
    let mut x = 12345u64;
    for round in 0..300 {
        // change rf or co at random (a pair added or removed)
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let (a, b) = ((x >> 20) as usize % n, (x >> 40) as usize % n);
        let changed = if x >> 63 == 0 {
            d.rf.rows[a] ^= 1 << b;
            READS_RF
        } else {
            d.co.rows[a] ^= 1 << b;
            READS_CO
        };
        ev.forget(changed);
        // evaluate in a different order each round: the checks, or nodes one by one
        let order: Vec<usize> =
            if round % 2 == 0 { (0..ir.nodes.len()).rev().collect() } else { (0..ir.nodes.len()).collect() };
        for i in order {
            if !ev_free(&ir, i) {
                continue; // a node under a foreach has no value of its own
            }
            let want = reference_value(&ir, &p, &es, &d, i, &mut vec![]);
            match want {
                Ok(s) => assert_eq!(ev.set(i, &d), s, "set node {i}, round {round}"),
                Err(r) => assert_eq!(ev.rel_pairs(i, &d), r.pairs(), "relation node {i}, round {round}"),
            }
        }
        for ci in 0..ir.checks.len() {
            let node = ir.checks[ci].node;
            let r = reference_value(&ir, &p, &es, &d, node, &mut vec![]).unwrap_err();
            let holds = match ir.checks[ci].kind {
                CheckKind::Acyclic => r.is_acyclic(),
                CheckKind::Irreflexive => r.is_irreflexive(),
                CheckKind::Empty => r.is_empty(),
            };
            assert_eq!(ev.check(ci, &d).is_ok(), holds, "check {ci}, round {round}");
        }
    }
    // A foreach binding a name again inside its body is refused.
    let mut bad = ir.clone();
    bad.nodes[40] = serde_json::from_value(json!({"op": "foreach", "attr": "sinst", "var": "S", "body": 39})).unwrap();
    bad.nodes[38] = serde_json::from_value(json!({"op": "prod", "a": 32, "b": 32})).unwrap();
    let err = Compiled::new(bad, &p).err().expect("refused").to_string();
    assert!(err.contains("binds S again"), "{err}");
}

/// Does node `i` read no foreach variable it does not bind (is it closed)?
fn ev_free(ir: &ModelIr, i: usize) -> bool {
    free_vars(ir, i).is_empty()
}

fn free_vars(ir: &ModelIr, i: usize) -> Vec<String> {
    use super::super::model::Node;
    let mut v: Vec<String> = match &ir.nodes[i] {
        Node::Var { name } => vec![name.clone()],
        Node::Foreach { var, body, .. } => free_vars(ir, *body).into_iter().filter(|x| x != var).collect(),
        node => node.operands().flat_map(|k| free_vars(ir, k)).collect(),
    };
    v.sort();
    v.dedup();
    v
}

/// Every path of every thread of `p` (no private locations, no value-free loads).
fn all_paths(p: &Program) -> Vec<Vec<Path>> {
    let budget = Budget::new(None, None);
    let private = vec![false; p.locations.len()];
    let dom =
        value_domains(p, &private, &[], &[], &Limits { max_values: 100, max_paths: 100, ..Limits::default() }, &budget)
            .unwrap();
    (0..p.threads.len())
        .map(|t| thread_paths(p, t, &dom, &private, &[], &Chained::default(), &[], 100, &budget, false).unwrap().paths)
        .collect()
}

#[test]
fn shapes_agree_when_only_values_differ() {
    // P2 of 2W reads (0, 1) on one path and (1, 1) on another: the same
    // events, relations and templates, other values; INC3's threads
    // store to y only when their increment read non-zero: other events.
    let p = two_writers();
    let paths = all_paths(&p);
    let with = |regs: &[i64]| {
        let p2 = paths[2].iter().find(|q| q.regs == regs).unwrap();
        EventStructure::build(&p, &[&paths[0][0], &paths[1][0], p2]).unwrap()
    };
    assert!(with(&[0, 1]).same_shape(&with(&[1, 1])));
    let q = incs();
    let paths = all_paths(&q);
    let stores = |x: &Path| x.events.len();
    let (short, long) =
        (paths[0].iter().min_by_key(|x| stores(x)).unwrap(), paths[0].iter().max_by_key(|x| stores(x)).unwrap());
    assert!(stores(short) < stores(long));
    let a = EventStructure::build(&q, &[short, &paths[1][0], &paths[2][0]]).unwrap();
    let b = EventStructure::build(&q, &[long, &paths[1][0], &paths[2][0]]).unwrap();
    assert!(!a.same_shape(&b));
    assert!(a.same_shape(&a));
}

#[test]
fn value_free_loads_are_one_path() {
    // SB observing P0's register only: P1's load is value-free, and so is
    // P0's (the outcome observes it, no instruction uses it: its value is
    // the write it reads).
    let mut p = sb();
    p.observed.truncate(1);
    p.condition = serde_json::from_value(json!({"k": "eq", "var": 0, "val": 0})).unwrap();
    assert_eq!(p.value_free_loads(0), [false, true]);
    assert_eq!(p.value_free_loads(1), [false, true]);
    let (fast, slow) = (run(&p, false), run(&p, true));
    assert_eq!(summary(&fast), summary(&slow));
    // By hand under SC: r0 = 0 needs P0's read before P1's store, so
    // P1's read comes after P0's store and reads 1: one execution;
    // r0 = 1: P1's read reads x = 0 or 1 as it comes before or after
    // P0's store, two executions.
    assert_eq!(summary(&fast), (vec![(vec![0], 1), (vec![1], 2)], 3));
    assert!(fast.candidates < slow.candidates);
    // The kept executions show what each read read.
    for e in &fast.executions {
        for &(w, r) in &e.rf {
            assert_eq!(e.events[w].value, e.events[r].value);
        }
    }
}

#[test]
fn increments_are_atomic_under_sc() {
    // Three atomic increments always leave x = 3 (atomicity axiom).
    let o = run(&incs(), false);
    assert!(o.outcomes.iter().all(|x| x.values[0] == 3));
    assert_eq!(o.negative, 0);
    // 3! orders of the increments; in each, the two threads that read a
    // non-zero value store it to y, and those two stores have 2 co
    // orders: 6 * 2 consistent executions.
    assert_eq!(o.consistent, 12);
}

/// SC as "some total order of all memory events contains po, rf, co
/// and fr" (a witness order) gives the same executions as acyclicity.
#[test]
fn witness_order_sc_equals_acyclic_sc() {
    let ir: ModelIr = serde_json::from_value(json!({
        "name": "sc-as-order",
        "nodes": [
            {"op": "tag", "name": "M"},
            {"op": "base", "name": "S"},
            {"op": "base", "name": "po"}, {"op": "base", "name": "rf"},
            {"op": "union", "a": 2, "b": 3}, {"op": "base", "name": "co"},
            {"op": "union", "a": 4, "b": 5}, {"op": "base", "name": "fr"},
            {"op": "union", "a": 6, "b": 7},
            {"op": "inv", "a": 8}, {"op": "inter", "a": 1, "b": 9},
            {"op": "base", "name": "rmw"}, {"op": "seq", "a": 7, "b": 5}, {"op": "inter", "a": 11, "b": 12}
        ],
        "checks": [{"kind": "empty", "node": 10, "name": "S_contains_com"},
                   {"kind": "empty", "node": 13, "name": "atomicity"}],
        "orders": [{"name": "S", "set": 0}]
    }))
    .unwrap();
    // The reference enumerates all n! orders of the events unpruned:
    // SB's 6 events only; INC3's 11 would be 11! per candidate.
    for (p, refs) in [(sb(), vec![false, true]), (incs(), vec![false])] {
        let m = Compiled::new(ir.clone(), &p).unwrap();
        for reference in refs {
            let o = check(&p, &m, &Limits { reference, ..Limits::default() }).unwrap();
            assert!(o.complete);
            let want = run(&p, false);
            assert_eq!(summary(&o), summary(&want), "{} reference={reference}", p.name);
        }
        // Each kept execution reports the order S it was found with: all
        // its memory events, in an order that contains its po, rf and co.
        let o = check(&p, &m, &Limits { keep_all: true, ..Limits::default() }).unwrap();
        assert!(!o.executions.is_empty());
        for e in &o.executions {
            let (name, order) = &e.orders[0];
            assert_eq!(name, "S");
            let mem = e.events.iter().filter(|v| v.kind == "R" || v.kind == "W").count();
            assert_eq!(order.len(), mem);
            let at = |x: usize| order.iter().position(|&y| y == x).unwrap();
            for &(a, b) in e.po.iter().chain(&e.rf).chain(&e.co) {
                assert!(at(a) < at(b), "{} ({a}, {b}) against S {order:?}", p.name);
            }
        }
    }
}

/// A flag that reads a witness order is raised where some order the
/// execution is consistent with raises it (herd's executions carry their
/// `S`), not only under the first order the search finds. SB under SC, with
/// an order S of its two stores a (P0's) and b (P1's): `S & b*a` is raised
/// when b comes first, `a*b - S` (which shrinks as S grows) too, `empty - S`
/// never; a consistency check that forbids b before a leaves none raised.
#[test]
fn flags_reading_a_witness_order_are_raised_under_some_order() {
    let mut prog = sb_json();
    prog["templates"][0]["tags"] = json!(["A"]);
    prog["templates"][2]["tags"] = json!(["B"]);
    let prog: Program = serde_json::from_value(prog).unwrap();
    let model = |forbid: bool| {
        let mut ir = sc_model_json();
        let nodes = ir["nodes"].as_array_mut().unwrap();
        let k = nodes.len();
        nodes.extend([
            json!({"op": "tag", "name": "A"}),
            json!({"op": "tag", "name": "B"}),
            json!({"op": "set_union", "a": k, "b": k + 1}),
            json!({"op": "base", "name": "S"}),
            json!({"op": "prod", "a": k + 1, "b": k}),
            json!({"op": "inter", "a": k + 3, "b": k + 4}),
            json!({"op": "prod", "a": k, "b": k + 1}),
            json!({"op": "diff", "a": k + 6, "b": k + 3}),
            json!({"op": "tag", "name": "C"}),
            json!({"op": "prod", "a": k + 8, "b": k + 8}),
            json!({"op": "diff", "a": k + 9, "b": k + 3}),
        ]);
        let checks = ir["checks"].as_array_mut().unwrap();
        checks.extend([
            json!({"kind": "empty", "node": k + 5, "name": "b_first", "flag": "f"}),
            json!({"kind": "empty", "node": k + 7, "name": "a_not_first", "flag": "f"}),
            json!({"kind": "empty", "node": k + 10, "name": "never", "flag": "f"}),
        ]);
        if forbid {
            checks.push(json!({"kind": "empty", "node": k + 5, "name": "a_first"}));
        }
        ir["orders"] = json!([{"name": "S", "set": k + 2}]);
        let ir: ModelIr = serde_json::from_value(ir).unwrap();
        Compiled::new(ir, &prog).unwrap()
    };
    for reference in [false, true] {
        let limits = Limits { reference, ..Limits::default() };
        let o = check(&prog, &model(false), &limits).unwrap();
        assert_eq!(summary(&o), summary(&run(&prog, false)));
        assert_eq!(o.flagged_executions, 3, "every execution, under the order b before a");
        let mut names: Vec<&str> = o.flags.iter().map(|f| f.check.as_str()).collect();
        names.sort();
        assert_eq!(names, ["a_not_first", "b_first"]);
        for f in &o.flags {
            // its execution is shown with the order that raises it
            let e = f.execution.as_ref().unwrap();
            let (name, order) = &e.orders[0];
            assert_eq!(name, "S");
            assert_eq!(order.iter().map(|&x| e.events[x].thread).collect::<Vec<_>>(), [Some(1), Some(0)]);
            assert!(e.raised.iter().any(|r| r.1 == f.check));
        }
        // each execution raises both (its orders shown are the first found)
        let kept = check(&prog, &model(false), &Limits { keep_all: true, ..limits.clone() }).unwrap();
        assert_eq!(kept.executions.len(), 3);
        for e in &kept.executions {
            let mut raised: Vec<&str> = e.raised.iter().map(|r| r.1.as_str()).collect();
            raised.sort();
            assert_eq!(raised, ["a_not_first", "b_first"]);
        }
        let o = check(&prog, &model(true), &limits).unwrap();
        assert_eq!(summary(&o), summary(&run(&prog, false)));
        assert_eq!((o.flagged_executions, o.flags.len()), (0, 0));
    }
}

#[test]
fn candidate_limit_reports_incomplete() {
    let p = incs();
    let m = Compiled::new(sc_model(), &p).unwrap();
    let o = check(&p, &m, &Limits { max_candidates: 2, reference: true, ..Limits::default() }).unwrap();
    assert!(!o.complete);
    assert_eq!(o.limit.as_ref().unwrap().which, "candidates");
}

#[test]
fn bad_ir_is_an_error_not_a_panic() {
    let out = crate::check_json_safe("{\"name\": 1}", "{}", "");
    assert!(out.contains("\"error\""));
    // A backward jump would loop forever: rejected.
    let mut p = sb();
    p.threads[0].code.push(crate::program::Instr::Jump { target: 0 });
    assert!(p.validate().is_err());
    // A model applying a relation operator to a set.
    let bad: ModelIr = serde_json::from_value(json!({
            "name": "bad", "nodes": [{"op": "all_set"}, {"op": "plus", "a": 0}],
            "checks": [{"kind": "acyclic", "node": 1, "name": "x"}]}))
    .unwrap();
    assert!(Compiled::new(bad, &sb()).is_err());
}

#[test]
fn outcomes_apart_are_the_whole_replys_outcomes() {
    // The reply with its outcomes apart (what Python is given) is the whole
    // reply once they are put back (its time aside): SB under SC, the three
    // outcomes of `sb_under_sc`, with witnesses and without.
    use serde_json::Value;
    let (prog, model) = (sb_json().to_string(), sc_model_json().to_string());
    for limits in ["", "{\"witnesses\": false}"] {
        let mut whole: Value = serde_json::from_str(&crate::check_json_safe(&prog, &model, limits)).unwrap();
        let (reply, outcomes, n) = crate::check_json_apart(&prog, &model, limits);
        let mut reply: Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(reply["ok"]["outcomes"], json!([]));
        let rows: Vec<Value> = serde_json::from_str(&outcomes).unwrap();
        assert_eq!((rows.len(), n), (3, 3));
        assert_eq!(rows[0][4].is_null(), limits.contains("false"));
        let keys = ["values", "count", "positive", "flagged", "witness"];
        let objects: Vec<Value> = rows
            .iter()
            .map(|row| keys.iter().enumerate().map(|(i, k)| (k.to_string(), row[i].clone())).collect())
            .collect();
        reply["ok"]["outcomes"] = json!(objects);
        for r in [&mut reply, &mut whole] {
            r["ok"]["seconds"] = json!(0);
        }
        assert_eq!(reply, whole);
    }
    let (reply, outcomes, n) = crate::check_json_apart("{\"name\": 1}", "{}", "");
    assert!(reply.contains("\"error\""));
    assert_eq!((outcomes.as_str(), n), ("[]", 0));
}

#[test]
fn partial_co_makes_each_order_and_last_write_once() {
    // Three threads each write x (values 1, 2, 3); x observed; no axiom.
    // By hand: the strict partial orders of three writes number 19, and
    // each is counted once per co-maximal write: 1 (antichain, 3 maximal)
    // * 3 + 6 (one pair ordered, 2 maximal) * 2 + 6 (a chain) + 3 (one
    // before two) * 2 + 3 (two before one) = 3 + 12 + 6 + 6 + 3 = 30
    // candidates (a total co: 6). The debug build checks each order is
    // the canonical one (`canonical_order`).
    let th = |name: &str, v: i64, ev: usize| json!({"name": name, "nregs": 0, "code": [{"op": "store", "loc": 0, "val": {"k": "c", "v": v}, "ev": ev}]});
    let mut p: Program = serde_json::from_value(json!({
        "name": "3W",
        "locations": [{"name": "x", "init": 0}],
        "templates": [tmpl("W"), tmpl("W"), tmpl("W")],
        "threads": [th("P0", 1, 0), th("P1", 2, 1), th("P2", 3, 2)],
        "observed": [{"kind": "loc", "loc": 0}],
        "condition": {"k": "eq", "var": 0, "val": 1},
        "partial_co": true
    }))
    .unwrap();
    let none: ModelIr = serde_json::from_value(json!({"name": "none", "nodes": [], "checks": []})).unwrap();
    let m = Compiled::new(none.clone(), &p).unwrap();
    let o = check(&p, &m, &Limits::default()).unwrap();
    assert_eq!(o.candidates, 30);
    let finals: Vec<(i64, u64)> = o.outcomes.iter().map(|x| (x.values[0], x.count)).collect();
    assert_eq!(finals.iter().map(|f| f.1).sum::<u64>(), 30);
    assert_eq!(finals.len(), 3);
    p.partial_co = false;
    let m = Compiled::new(none, &p).unwrap();
    assert_eq!(check(&p, &m, &Limits::default()).unwrap().candidates, 6);
}

#[test]
fn quorums_keep_combinations_with_enough_chosen_and_count_the_blocked() {
    // Three threads each reach one barrier and choose (a path each) whether
    // it synchronises: template 2t synchronises, 2t+1 does not. With q of
    // 3 needed: the combinations with at least q chosen are candidates
    // (no axiom, no reads: one candidate each): q=2: C(3,2)+C(3,3) = 4;
    // q=3: 1; q=4: three barriers never make four, all 8 combinations blocked.
    let th = |name: &str, t: usize| {
        json!({"name": name, "nregs": 0, "code": [
            {"op": "choose", "target": 3},
            {"op": "fence", "ev": 2 * t + 1},
            {"op": "jump", "target": 4},
            {"op": "fence", "ev": 2 * t}]})
    };
    let none: ModelIr = serde_json::from_value(json!({"name": "none", "nodes": [], "checks": []})).unwrap();
    for (q, candidates, blocked) in [(2, 4, 0), (3, 1, 0), (4, 0, 8)] {
        let p: Program = serde_json::from_value(json!({
            "name": "Q",
            "locations": [{"name": "x", "init": 0}],
            "templates": (0..6).map(|_| tmpl("F")).collect::<Vec<_>>(),
            "threads": [th("P0", 0), th("P1", 1), th("P2", 2)],
            "observed": [{"kind": "loc", "loc": 0}],
            "condition": {"k": "true"},
            "quorums": [{"q": q, "sync": [0, 2, 4], "all": [0, 1, 2, 3, 4, 5]}]
        }))
        .unwrap();
        let m = Compiled::new(none.clone(), &p).unwrap();
        let o = check(&p, &m, &Limits::default()).unwrap();
        assert_eq!((o.candidates, o.blocked), (candidates, blocked), "q = {q}");
    }
    // A quorum naming a template outside its barrier is refused.
    let mut p = sb();
    p.quorums = vec![crate::program::Quorum { q: 1, sync: vec![0], all: vec![1] }];
    assert!(p.validate().is_err());
}

#[test]
fn a_location_of_constant_rmws_holds_its_chains_values_alone() {
    // x: three fetch_add(x, 1), each once in an execution: 0 to 3, not the
    // fixpoint's 0 to 6 (each add applied once a round); y: stored from a
    // register, left to the fixpoint
    let p = incs();
    let exact = crate::execution::rmw_chain_domains(&p);
    assert_eq!(exact[0], Some((0..=3).collect()));
    assert_eq!(exact[1], None);
    let budget = Budget::new(None, None);
    let private = vec![false; p.locations.len()];
    let fast = value_domains(&p, &private, &[], &[], &Limits::default(), &budget).unwrap();
    let slow =
        value_domains(&p, &private, &[], &[], &Limits { reference: true, ..Limits::default() }, &budget).unwrap();
    assert_eq!(fast[0], (0..=3).collect());
    assert!(fast[0].is_subset(&slow[0]) && slow[0].len() > fast[0].len());
}

/// P0: r0 = fetch_add(x, 1); r1 = fetch_add(x, 2) (tagged "A", unless
/// `untagged`); P1: r0 = x; P2 (with `rival`): fetch_add(x, 4). x's values,
/// each RMW once: 0, 1, 2, 3 (and with 4 added: up to 7).
fn adds(untagged: bool, rival: bool) -> Program {
    let tags: &[&str] = if untagged { &[] } else { &["A"] };
    let t = |kind: &str| json!({"kind": kind, "tags": tags, "attrs": {}});
    let rmw = |v: i64, dst: usize, ev: usize| json!({"op": "rmw", "dst": dst, "loc": 0, "rmw": "add", "val": {"k": "c", "v": v}, "ev_r": ev, "ev_w": ev + 1});
    let mut threads = vec![
        json!({"name": "P0", "nregs": 2, "code": [rmw(1, 0, 0), rmw(2, 1, 2)]}),
        json!({"name": "P1", "nregs": 1, "code": [{"op": "load", "dst": 0, "loc": 0, "ev": 4}]}),
    ];
    if rival {
        threads.push(json!({"name": "P2", "nregs": 1, "code": [rmw(4, 0, 5)]}));
    }
    serde_json::from_value(json!({
        "name": "ADDS",
        "locations": [{"name": "x", "init": 0}],
        "templates": [t("R"), t("W"), t("R"), t("W"), t("R"), t("R"), t("W")],
        "threads": threads,
        "observed": [{"kind": "reg", "thread": 0, "reg": 0}, {"kind": "reg", "thread": 0, "reg": 1},
                     {"kind": "reg", "thread": 1, "reg": 0}],
        "condition": {"k": "eq", "var": 0, "val": 1}
    }))
    .unwrap()
}

/// The SC model of `sc_model`, declaring the RMWs tagged "A" atomic chains.
fn sc_chains() -> ModelIr {
    let mut m = sc_model_json();
    m["rmw_chains"] = json!(["A"]);
    serde_json::from_value(m).unwrap()
}

#[test]
fn rmw_chain_writers_are_one_threads_tagged_rmws_alone() {
    assert_eq!(adds(false, false).rmw_chain_writers(&["A".into()]), vec![Some(0)]);
    // an RMW of another thread, untagged RMWs, another tag: none
    assert_eq!(adds(false, true).rmw_chain_writers(&["A".into()]), vec![None]);
    assert_eq!(adds(true, false).rmw_chain_writers(&["A".into()]), vec![None]);
    assert_eq!(adds(false, false).rmw_chain_writers(&["B".into()]), vec![None]);
    // a plain store of the location: none (INC3's y is stored, x has three threads' adds)
    assert_eq!(incs().rmw_chain_writers(&[]), vec![None, None]);
}

#[test]
fn a_paths_rmws_must_form_one_chain_from_the_initial_value() {
    let ev = |kind: Kind, value: i64, rmw_with_prev: bool| PathEvent {
        kind,
        loc: Some(0),
        value,
        template: 0,
        pc: 0,
        rmw_with_prev,
        data: 0,
        ctrl: 0,
        addr: 0,
        any_value: false,
        alts: None,
        computed: None,
    };
    let rmws = |pairs: &[(i64, i64)]| -> Vec<PathEvent> {
        pairs.iter().flat_map(|&(r, w)| [ev(Kind::R, r, false), ev(Kind::W, w, true)]).collect()
    };
    use super::super::execution::{rmw_chain_holds, PathEvent};
    use crate::program::Kind;
    assert!(rmw_chain_holds(0, &rmws(&[(0, 1), (1, 3)]), 0));
    // in another order than the path's: coherence need not follow program order
    assert!(rmw_chain_holds(0, &rmws(&[(2, 3), (0, 2)]), 0));
    // two RMWs reading the initial value: one of them reads no write just before its own
    assert!(!rmw_chain_holds(0, &rmws(&[(0, 1), (0, 2)]), 0));
    // a value no RMW of the path wrote, nor the initial one
    assert!(!rmw_chain_holds(0, &rmws(&[(0, 1), (5, 6)]), 0));
    // values that repeat: 0 -> 1 -> 0 -> 1 (exchanges), either pair first
    assert!(rmw_chain_holds(0, &rmws(&[(1, 0), (0, 1), (0, 1)]), 0));
    assert!(!rmw_chain_holds(0, &rmws(&[(1, 0), (1, 0), (0, 1)]), 0));
    // another location's RMWs, and plain reads, are not its chain
    let mut evs = rmws(&[(0, 1)]);
    evs.push(ev(Kind::R, 7, false));
    evs.extend(rmws(&[(4, 5)]).into_iter().map(|e| PathEvent { loc: Some(1), ..e }));
    assert!(rmw_chain_holds(0, &evs, 0));
    assert!(rmw_chain_holds(0, &[], 0));
}

#[test]
fn chained_paths_keep_the_references_executions() {
    let p = adds(false, false);
    let m = Compiled::new(sc_chains(), &p).unwrap();
    let limits = |reference| Limits { reference, keep_all: true, ..Limits::default() };
    let fast = check(&p, &m, &limits(false)).unwrap();
    let slow = check(&p, &m, &limits(true)).unwrap();
    assert_eq!(summary(&fast), summary(&slow));
    // by hand: under SC P0's adds read 0 then 1 (x ends 3); P1 reads 0, 1 or 3
    let outs: Vec<Vec<i64>> = fast.outcomes.iter().map(|x| x.values.clone()).collect();
    assert_eq!(outs, vec![vec![0, 1, 0], vec![0, 1, 1], vec![0, 1, 3]]);
    assert!(fast.candidates < slow.candidates);
    // P0's paths: of the 4 x 4 values its reads may take, the two that chain
    // from 0 (0 then 1; 2 then 0, coherence against program order, which
    // the model rules out)
    let budget = Budget::new(None, None);
    let private = vec![false; p.locations.len()];
    let dom = value_domains(&p, &private, &[], &[], &Limits::default(), &budget).unwrap();
    let count = |locs: Vec<usize>| {
        let chained = Chained { locs, order: None };
        thread_paths(&p, 0, &dom, &private, &[], &chained, &[], 100, &budget, false).unwrap().paths.len()
    };
    assert_eq!((count(vec![]), count(vec![0])), (16, 2));
    // with a rival thread's add the location is no one thread's: no reduction, same answers
    let p = adds(false, true);
    let m = Compiled::new(sc_chains(), &p).unwrap();
    assert_eq!(summary(&check(&p, &m, &limits(false)).unwrap()), summary(&check(&p, &m, &limits(true)).unwrap()));
}

#[test]
fn justified_by_bit_sets_agrees_with_the_sorted_pairs() {
    let mut dropped = 0;
    for p in [sb(), incs(), two_writers(), adds(false, true), tagged()] {
        let paths = all_paths(&p);
        let j = Justify::new(&p, &paths, &vec![false; p.locations.len()]);
        assert!(j.masks.is_some(), "{}", p.name);
        let plain = Justify { paths: j.paths.clone(), masks: None };
        let radices: Vec<usize> = paths.iter().map(Vec::len).collect();
        let total: usize = radices.iter().product();
        let mut kept = 0;
        for idx in 0..total {
            let which = path_indices(&radices, idx);
            assert_eq!(j.justified(&which), plain.justified(&which), "{} {which:?}", p.name);
            kept += j.justified(&which) as usize;
        }
        assert!(kept > 0, "{}", p.name);
        dropped += total - kept;
    }
    // some combinations read a value none of their paths writes (INC3's,
    // where P0 reads 2 and no other path has written 1 or 2)
    assert!(dropped > 0);
}

/// P0: x = 1; x = 2; x = 3 (stores); P1: r0 = x; r1 = (r0 == 0) (with
/// `keep`: r2 = r0 + 0 after it, so r0 is read again); observed: r1.
fn mapped(keep: bool) -> Program {
    let mut p1 = vec![
        json!({"op": "load", "dst": 0, "loc": 0, "ev": 3}),
        json!({"op": "assign", "dst": 1, "val": {"k": "bin", "o": "==", "a": {"k": "r", "r": 0}, "b": {"k": "c", "v": 0}}}),
    ];
    if keep {
        p1.push(json!({"op": "assign", "dst": 2, "val": {"k": "r", "r": 0}}));
    }
    let st = |v: i64, ev: usize| json!({"op": "store", "loc": 0, "val": {"k": "c", "v": v}, "ev": ev});
    serde_json::from_value(json!({
        "name": "MAPPED",
        "locations": [{"name": "x", "init": 0}],
        "templates": [tmpl("W"), tmpl("W"), tmpl("W"), tmpl("R")],
        "threads": [
            {"name": "P0", "nregs": 1, "code": [st(1, 0), st(2, 1), st(3, 2)]},
            {"name": "P1", "nregs": 3, "code": p1}
        ],
        "observed": [{"kind": "reg", "thread": 1, "reg": 1}],
        "condition": {"k": "eq", "var": 0, "val": 1}
    }))
    .unwrap()
}

#[test]
fn a_load_read_through_one_assignment_is_a_path_per_image() {
    use crate::program::LoadUse;
    assert_eq!(mapped(false).load_uses(1), [LoadUse::Mapped, LoadUse::Value]);
    // r0 read again later: a path per value
    assert_eq!(mapped(true).load_uses(1)[0], LoadUse::Value);
    let p = mapped(false);
    let budget = Budget::new(None, None);
    let private = vec![false; 1];
    let dom = value_domains(&p, &private, &[], &[], &Limits::default(), &budget).unwrap();
    let paths = thread_paths(&p, 1, &dom, &private, &p.load_uses(1), &Chained::default(), &[], 100, &budget, false)
        .unwrap()
        .paths;
    // x is 0 (r1 = 1) or 1, 2, 3 (r1 = 0): two paths, the second reading any of 1, 2, 3
    assert_eq!(paths.len(), 2);
    let alts: Vec<Option<Vec<i64>>> = paths.iter().map(|q| q.events[0].alts.as_ref().map(|a| a.to_vec())).collect();
    assert!(alts.contains(&None) && alts.contains(&Some(vec![1, 2, 3])));
    // the same executions as the reference's, each read showing the value of the write it read
    for q in [mapped(false), mapped(true)] {
        let fast = run(&q, false);
        let slow = run(&q, true);
        assert_eq!(summary(&fast), summary(&slow));
        let mut shown: Vec<i64> =
            fast.executions.iter().map(|e| e.events.iter().find(|v| v.kind == "R").unwrap().value).collect();
        shown.sort();
        assert_eq!(shown, [0, 1, 2, 3], "one execution per write P1 reads, under SC");
    }
}

#[test]
fn chain_plans_give_each_rmw_what_an_order_of_them_gives() {
    use super::super::execution::chain_plans;
    // P0 of ADDS: fetch_add 1 then 2 from 0: in either order, the first reads 0 or 2, the second 1 or 0
    let p = adds(false, false);
    assert!(chain_plans(&p, 0, 0, None).is_some());
    let budget = Budget::new(None, None);
    let private = vec![false; 1];
    let dom = value_domains(&p, &private, &[], &[], &Limits::default(), &budget).unwrap();
    let chained = Chained { locs: vec![0], order: None };
    let paths = thread_paths(&p, 0, &dom, &private, &[], &chained, &[], 100, &budget, false).unwrap().paths;
    let mut reads: Vec<(i64, i64)> = paths.iter().map(|q| (q.events[0].value, q.events[2].value)).collect();
    reads.sort();
    assert_eq!(reads, [(0, 1), (2, 0)]);
    // with program order putting each before the later ones: 0 then 1 alone
    let order = crate::model_ir::RmwChainOrder::default();
    assert_eq!(chain_plans(&p, 0, 0, Some(&order)).map(|c| c.orders()), Some(1));
    let chained = Chained { locs: vec![0], order: Some(order.clone()) };
    let paths = thread_paths(&p, 0, &dom, &private, &[], &chained, &[], 100, &budget, false).unwrap().paths;
    assert_eq!(paths.iter().map(|q| (q.events[0].value, q.events[2].value)).collect::<Vec<_>>(), [(0, 1)]);
    // an RMW tagged as program order's exception (the adds are tagged A): both orders again
    let free = crate::model_ir::RmwChainOrder { not_from: vec!["A".into()], not_to: vec![] };
    assert_eq!(chain_plans(&p, 0, 0, Some(&free)).map(|c| c.orders()), Some(2));
    // one RMW, one order (whether the thread writes the location alone is
    // `rmw_chain_writers`'s question, not this one's: INC3's x is not)
    assert!(chain_plans(&incs(), 0, 0, None).is_some_and(|c| c.orders() == 1));
}

/// P0: r0 = x (op `p0` with operand `a`), then a branch on r0 == 0 that
/// skips a store of 1 to y (the RMW mapped: the branch alone reads r0);
/// P1: x (op add, operand `b` from a register: x's values are then the
/// fixpoint's, no chain's), its value read by nothing; P2: r0 = x;
/// observed: P2's r0, x and y at the end. x: a computed location.
fn rival_updates(p0: &str, a: i64, b: i64, partial_co: bool) -> Program {
    serde_json::from_value(json!({
        "name": "RIVALS",
        "locations": [{"name": "x", "init": 0}, {"name": "y", "init": 0}],
        "templates": [tmpl("R"), tmpl("W"), tmpl("W"), tmpl("R"), tmpl("W"), tmpl("R")],
        "threads": [
            {"name": "P0", "nregs": 1, "code": [
                {"op": "rmw", "dst": 0, "loc": 0, "rmw": p0, "val": {"k": "c", "v": a}, "ev_r": 0, "ev_w": 1},
                {"op": "branch", "cond": {"k": "bin", "o": "==", "a": {"k": "r", "r": 0}, "b": {"k": "c", "v": 0}}, "target": 3},
                {"op": "store", "loc": 1, "val": {"k": "c", "v": 1}, "ev": 2}
            ]},
            {"name": "P1", "nregs": 2, "code": [
                {"op": "assign", "dst": 1, "val": {"k": "c", "v": b}},
                {"op": "rmw", "dst": 0, "loc": 0, "rmw": "add", "val": {"k": "r", "r": 1}, "ev_r": 3, "ev_w": 4}
            ]},
            {"name": "P2", "nregs": 1, "code": [{"op": "load", "dst": 0, "loc": 0, "ev": 5}]}
        ],
        "observed": [{"kind": "reg", "thread": 2, "reg": 0}, {"kind": "loc", "loc": 0}, {"kind": "loc", "loc": 1}],
        "condition": {"k": "eq", "var": 1, "val": 0},
        "partial_co": partial_co
    }))
    .unwrap()
}

/// No axiom at all (every candidate is an execution, RMWs reading each
/// other in a cycle too), and one that asks only that co order every two
/// writes of a location (a `co_total` check: `empty((W*W & loc) - id - (co | co^-1))`).
fn no_axioms() -> ModelIr {
    serde_json::from_value(json!({"name": "none", "nodes": [], "checks": []})).unwrap()
}

fn co_total_only() -> ModelIr {
    serde_json::from_value(json!({
        "name": "co-total",
        "nodes": [
            {"op": "tag", "name": "W"}, {"op": "prod", "a": 0, "b": 0}, {"op": "base", "name": "loc"},
            {"op": "inter", "a": 1, "b": 2}, {"op": "base", "name": "id"}, {"op": "diff", "a": 3, "b": 4},
            {"op": "base", "name": "co"}, {"op": "inv", "a": 6}, {"op": "union", "a": 6, "b": 7},
            {"op": "diff", "a": 5, "b": 8}
        ],
        "checks": [{"kind": "empty", "node": 9, "name": "co-total"}]
    }))
    .unwrap()
}

#[test]
fn rmws_whose_values_go_to_no_register_are_computed() {
    let p = rival_updates("add", 1, 2, false);
    let uses: Vec<Vec<LoadUse>> = (0..3).map(|t| p.load_uses(t)).collect();
    // P0's RMW mapped (the branch alone reads its register), P1's free
    assert_eq!((uses[0][0], uses[1][1]), (LoadUse::Mapped, LoadUse::Free));
    assert_eq!(p.computed_locations(&uses), vec![true, false]);
    // a store to x, or a register read after the branch, and x is not
    let mut q = rival_updates("add", 1, 2, false);
    q.threads[2]
        .code
        .push(serde_json::from_value(json!({"op": "store", "loc": 0, "val": {"k": "c", "v": 5}, "ev": 2})).unwrap());
    let uses: Vec<Vec<LoadUse>> = (0..3).map(|t| q.load_uses(t)).collect();
    assert_eq!(q.computed_locations(&uses), vec![false, false]);
    let mut q = rival_updates("add", 1, 2, false);
    q.threads[0]
        .code
        .push(serde_json::from_value(json!({"op": "store", "loc": 1, "val": {"k": "r", "r": 0}, "ev": 2})).unwrap());
    assert_eq!(q.load_uses(0)[0], LoadUse::Value);
    // a compare-and-swap may write nothing: not computed
    let c = rival_updates("cas", 1, 2, false);
    let uses: Vec<Vec<LoadUse>> = (0..3).map(|t| c.load_uses(t)).collect();
    assert_eq!(c.computed_locations(&uses), vec![false, false]);
}

#[test]
fn computed_rmws_keep_the_references_executions() {
    // Each RMW's write computed from what its read reads, against the
    // reference, which guesses every value: the same executions, counted
    // alike, under SC, under no axiom (RMWs reading each other in a cycle:
    // add 1 and add -1 hold any value of x's domain, add 1 and add 2 none),
    // and under a check that co be total (a partial co pruned early). (umax
    // 2 under SC alone: under the others its RMW reading its own write holds
    // any value from 2 up, and the other's add makes one past the domain's
    // bound, which the reference's P2, guessing within it, never reads)
    for (op, a, b) in [("add", 1, 2), ("add", 1, -1), ("exch", 3, 0), ("umax", 2, 1)] {
        for partial in [false, true] {
            let p = rival_updates(op, a, b, partial);
            let models = if op == "umax" { vec![sc_model()] } else { vec![sc_model(), no_axioms(), co_total_only()] };
            for ir in models {
                let m = Compiled::new(ir.clone(), &p).unwrap();
                let fast = check(&p, &m, &Limits { keep_all: true, ..Limits::default() }).unwrap();
                let slow = check(&p, &m, &Limits { reference: true, keep_all: true, ..Limits::default() }).unwrap();
                let what = format!("{op} {a} {b} partial {partial} {}", ir.name);
                assert!(fast.complete && slow.complete, "{what}");
                assert_eq!(summary(&fast), summary(&slow), "{what}");
                assert!(fast.consistent > 0, "{what}");
                // the witnesses show the values the writes were given
                for e in &fast.executions {
                    for &(w, r) in &e.rf {
                        assert_eq!(e.events[w].value, e.events[r].value, "{what}: rf {w} -> {r}");
                    }
                }
            }
        }
    }
}

#[test]
fn co_total_checks_are_found() {
    let p = rival_updates("add", 1, 2, true);
    assert_eq!(Compiled::new(co_total_only(), &p).unwrap().co_total, vec![5]);
    assert!(Compiled::new(sc_model(), &p).unwrap().co_total.is_empty());
}

#[test]
fn next_subset_gives_every_subset_in_increasing_order() {
    for free in [0u64, 0b1, 0b1011, 0b1101_0010, u64::MAX << 60] {
        let mut seen = vec![0u64];
        let mut extra = 0;
        while let Some(next) = next_subset(extra, free) {
            seen.push(next);
            extra = next;
        }
        // the filter over every mask up to free's top bit gives the same list
        let top = 64 - free.leading_zeros();
        if top < 16 {
            let all: Vec<u64> = (0..1u64 << top).filter(|m| m & !free == 0).collect();
            assert_eq!(seen, all, "{free:b}");
        }
        assert_eq!(seen.len(), 1 << free.count_ones(), "{free:b}");
        assert!(seen.windows(2).all(|w| w[0] < w[1]));
    }
}

/// `n` threads each storing 1 to x, co partial.
fn writers(n: usize) -> Program {
    let threads: Vec<_> = (0..n)
        .map(|t| json!({"name": format!("P{t}"), "nregs": 0, "code": [{"op": "store", "loc": 0, "val": {"k": "c", "v": 1}, "ev": t}]}))
        .collect();
    serde_json::from_value(json!({
        "name": "WRITERS",
        "locations": [{"name": "x", "init": 0}],
        "templates": (0..n).map(|_| tmpl("W")).collect::<Vec<_>>(),
        "threads": threads,
        "observed": [{"kind": "loc", "loc": 0}],
        "condition": {"k": "eq", "var": 0, "val": 1},
        "partial_co": true
    }))
    .unwrap()
}

#[test]
fn a_co_that_must_be_total_places_each_write_after_all_placed() {
    // co must order every two writes: each write's predecessors are all the
    // writes placed before it, one set (not 2^k) each. 5 writers: the 5!
    // total orders, as the reference finds them; 40: the candidate limit
    // reached along the first orders (trying 2^k sets a write, the search
    // would find no candidate in a lifetime).
    let p = writers(5);
    let m = Compiled::new(co_total_only(), &p).unwrap();
    let fast = check(&p, &m, &Limits::default()).unwrap();
    let slow = check(&p, &m, &Limits { reference: true, ..Limits::default() }).unwrap();
    assert!(fast.complete && slow.complete);
    assert_eq!((fast.consistent, fast.candidates), (120, 120));
    assert_eq!(summary(&fast), summary(&slow));
    let p = writers(40);
    let m = Compiled::new(co_total_only(), &p).unwrap();
    let out = check(&p, &m, &Limits { max_candidates: 1000, ..Limits::default() }).unwrap();
    assert!(!out.complete && out.consistent > 0);
    assert_eq!(out.limit.unwrap().which, "candidates");
}

/// P0 (work group 0) stores x, P1 (work group 1) stores y; P0's store's
/// template says `own` of `wg` when given.
fn stores_in_work_groups(own: Option<i64>) -> Program {
    let attrs = own.map_or(json!({}), |g| json!({"wg": g}));
    serde_json::from_value(json!({
        "name": "WG",
        "locations": [{"name": "x", "init": 0}, {"name": "y", "init": 0}],
        "templates": [{"kind": "W", "tags": [], "attrs": attrs}, tmpl("W")],
        "threads": [
            {"name": "P0", "attrs": {"wg": 0}, "nregs": 0, "code": [{"op": "store", "loc": 0, "val": {"k": "c", "v": 1}, "ev": 0}]},
            {"name": "P1", "attrs": {"wg": 1}, "nregs": 0, "code": [{"op": "store", "loc": 1, "val": {"k": "c", "v": 1}, "ev": 1}]}
        ],
        "observed": [{"kind": "loc", "loc": 0}],
        "condition": {"k": "eq", "var": 0, "val": 1}
    }))
    .unwrap()
}

#[test]
fn an_event_attribute_its_template_leaves_unset_is_its_threads() {
    // empty(same_event_attr(wg) - id): two events of one work group are
    // inconsistent. P0's and P1's stores are in work groups 0 and 1 (their
    // threads'), or both in 1 where P0's template says so; init events have
    // neither thread nor attribute, and pair with nothing.
    let ir: ModelIr = serde_json::from_value(json!({
        "name": "one-event-a-work-group",
        "nodes": [{"op": "same_event_attr", "name": "wg"}, {"op": "base", "name": "id"}, {"op": "diff", "a": 0, "b": 1}],
        "checks": [{"kind": "empty", "node": 2, "name": "apart"}]
    }))
    .unwrap();
    for (own, consistent) in [(None, 1), (Some(0), 1), (Some(1), 0)] {
        let p = stores_in_work_groups(own);
        let m = Compiled::new(ir.clone(), &p).unwrap();
        let out = check(&p, &m, &Limits::default()).unwrap();
        assert_eq!(out.consistent, consistent, "{own:?}");
    }
}
