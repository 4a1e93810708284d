//! Evaluator for the model IR built by `python/hrf/models` (docs/readings.md).
//!
//! A model is a DAG of set and relation expressions over the base sets and
//! relations of an execution, plus checks (`acyclic`, `irreflexive`,
//! `empty`) that are either consistency axioms or undefined-behaviour flags.
//! Nothing here knows any model by name: tags and attributes are strings
//! chosen by the Python side.

use crate::error::Error;
use crate::execution::{Dynamic, EventStructure};
use crate::program::Program;
use crate::relation::{bits, full_set, EventSet, Relation};
use serde::Deserialize;
use std::collections::BTreeSet;

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields, tag = "op", rename_all = "snake_case")]
pub enum Node {
    // ---- sets
    /// Events whose template carries the tag; `R`, `W`, `F`, `M` and `IW`
    /// (init writes) are built in. Init writes carry their location's tags.
    Tag {
        name: String,
    },
    AllSet,
    EmptySet,
    SetUnion {
        a: usize,
        b: usize,
    },
    SetInter {
        a: usize,
        b: usize,
    },
    SetDiff {
        a: usize,
        b: usize,
    },
    Domain {
        a: usize,
    },
    Range {
        a: usize,
    },
    /// The set bound by an enclosing `foreach`.
    Var {
        name: String,
    },
    // ---- relations
    /// `po`, `rf`, `co`, `fr`, `rmw`, `loc`, `int`, `ext`, `id`, `universal`,
    /// `empty`, and the dependencies `data`, `ctrl`, `addr` (PTX).
    Base {
        name: String,
    },
    /// Pairs of thread events whose threads have equal attribute `name`.
    SameThreadAttr {
        name: String,
    },
    /// Pairs of events whose template attribute `name` is set and equal.
    SameEventAttr {
        name: String,
    },
    Ident {
        a: usize,
    },
    Prod {
        a: usize,
        b: usize,
    },
    Union {
        a: usize,
        b: usize,
    },
    Inter {
        a: usize,
        b: usize,
    },
    Diff {
        a: usize,
        b: usize,
    },
    Seq {
        a: usize,
        b: usize,
    },
    Inv {
        a: usize,
    },
    Plus {
        a: usize,
    },
    Star {
        a: usize,
    },
    Opt {
        a: usize,
    },
    /// Union over the classes of events sharing a value of template
    /// attribute `attr`, with `var` bound to the class, of `body`.
    Foreach {
        attr: String,
        var: String,
        body: usize,
    },
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CheckKind {
    Acyclic,
    Irreflexive,
    Empty,
}

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Check {
    pub kind: CheckKind,
    pub node: usize,
    pub name: String,
    /// None: a consistency axiom. Some(kind): an undefined-behaviour flag
    /// (`heterogeneous_race`, `data_race`, ...), raised when the check fails.
    #[serde(default)]
    pub flag: Option<String>,
}

/// A witness order the model asks for (e.g. the total order `sc` of
/// seq_cst operations in the HRF-relaxed models): the enumerator tries
/// every total order of the events of `set` (a set node that does not
/// depend on rf/co), and the relation is available as `Base { name }`.
#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OrderDecl {
    pub name: String,
    pub set: usize,
}

#[derive(Deserialize, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelIr {
    pub name: String,
    pub nodes: Vec<Node>,
    pub checks: Vec<Check>,
    #[serde(default)]
    pub orders: Vec<OrderDecl>,
    /// Relations to report for witness executions (herd's `show`), e.g.
    /// synchronisation edges to draw: (name, node).
    #[serde(default)]
    pub shows: Vec<(String, usize)>,
    /// The model's axioms imply that a read of a location no other thread
    /// accesses reads the last write to it before the read in program
    /// order, or the initial value when there is none (coherence, herd's
    /// "uniproc"). The enumerator then gives such reads that value alone;
    /// the reference enumerator ignores this.
    #[serde(default)]
    pub uniproc: bool,
    /// When not empty: `uniproc` holds only for the locations whose every
    /// access carries one of these tags (OpenCL: the global and local
    /// regions, whose happens-before contains po).
    #[serde(default)]
    pub uniproc_tags: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mono {
    Const,
    Up,
    Down,
    Mixed,
}

fn join(a: Mono, b: Mono) -> Mono {
    use Mono::*;
    match (a, b) {
        (Const, x) | (x, Const) => x,
        (x, y) if x == y => x,
        _ => Mixed,
    }
}

fn flip(a: Mono) -> Mono {
    match a {
        Mono::Up => Mono::Down,
        Mono::Down => Mono::Up,
        x => x,
    }
}

/// What a node reads of a candidate (`Compiled::reads`, `Evaluator::forget`).
pub const READS_RF: u8 = 1;
pub const READS_CO: u8 = 2;
pub const READS_ORDERS: u8 = 4;

#[derive(Clone, Debug)]
pub enum Val {
    Set(EventSet),
    // shared, not copied: a cached relation is read by every node using it
    Rel(std::rc::Rc<Relation>),
}

/// A model prepared for one program: tags resolved to template indices,
/// and per node whether it depends on `rf`/`co` and on `foreach` variables.
pub struct Compiled {
    pub ir: std::sync::Arc<ModelIr>,
    /// Per node: which of rf, co and the witness orders it reads
    /// (`READS_RF` | `READS_CO` | `READS_ORDERS`), through its operands.
    reads: Vec<u8>,
    vars: Vec<BTreeSet<String>>,
    /// Checks that may be applied to partial `rf`/`co` (monotone in them).
    pub prunable: Vec<usize>,
    /// For each `Tag` node: (template has tag, location has tag).
    tag_tables: Vec<Option<(Vec<bool>, Vec<bool>)>>,
    /// For each `SameEventAttr` / `Foreach`: template attribute values.
    attr_tables: Vec<Option<Vec<Option<i64>>>>,
    /// For each `SameThreadAttr`: thread attribute values.
    thread_attr_tables: Vec<Option<Vec<Option<i64>>>>,
}

impl Compiled {
    pub fn new(ir: impl Into<std::sync::Arc<ModelIr>>, prog: &Program) -> Result<Self, Error> {
        let ir: std::sync::Arc<ModelIr> = ir.into();
        let n = ir.nodes.len();
        // What each node reads of rf, co and the witness orders (`READS_*`).
        let mut reads = vec![0u8; n];
        let mut mono = vec![Mono::Const; n];
        let mut vars: Vec<BTreeSet<String>> = vec![BTreeSet::new(); n];
        let mut tag_tables = vec![None; n];
        let mut attr_tables = vec![None; n];
        let mut thread_attr_tables = vec![None; n];
        for (i, node) in ir.nodes.iter().enumerate() {
            let child = |c: usize| -> Result<usize, Error> {
                if c < i {
                    Ok(c)
                } else {
                    Err(Error::invalid(format!("model {}: node {i} refers forward to {c}", ir.name)))
                }
            };
            let (d, m, v): (u8, Mono, BTreeSet<String>) = match node {
                Node::Tag { name } => {
                    let t: Vec<bool> = prog.templates.iter().map(|t| t.tags.contains(name)).collect();
                    let l: Vec<bool> = prog.locations.iter().map(|l| l.tags.contains(name)).collect();
                    tag_tables[i] = Some((t, l));
                    (0, Mono::Const, BTreeSet::new())
                }
                Node::AllSet | Node::EmptySet => (0, Mono::Const, BTreeSet::new()),
                Node::Var { name } => (0, Mono::Const, BTreeSet::from([name.clone()])),
                Node::Base { name } => match name.as_str() {
                    "rf" => (READS_RF, Mono::Up, BTreeSet::new()),
                    "co" => (READS_CO, Mono::Up, BTreeSet::new()),
                    "fr" => (READS_RF | READS_CO, Mono::Up, BTreeSet::new()),
                    "po" | "rmw" | "loc" | "int" | "ext" | "id" | "universal" | "empty" | "data" | "ctrl" | "addr" => {
                        (0, Mono::Const, BTreeSet::new())
                    }
                    other if ir.orders.iter().any(|o| o.name == other) => (READS_ORDERS, Mono::Up, BTreeSet::new()),
                    other => return Err(Error::invalid(format!("model {}: unknown base relation {other:?}", ir.name))),
                },
                Node::SameThreadAttr { name } => {
                    thread_attr_tables[i] = Some(prog.threads.iter().map(|t| t.attrs.get(name).copied()).collect());
                    (0, Mono::Const, BTreeSet::new())
                }
                Node::SameEventAttr { name } => {
                    attr_tables[i] = Some(prog.templates.iter().map(|t| t.attrs.get(name).copied()).collect());
                    (0, Mono::Const, BTreeSet::new())
                }
                Node::Domain { a }
                | Node::Range { a }
                | Node::Ident { a }
                | Node::Inv { a }
                | Node::Plus { a }
                | Node::Star { a }
                | Node::Opt { a } => {
                    let a = child(*a)?;
                    (reads[a], mono[a], vars[a].clone())
                }
                Node::SetUnion { a, b }
                | Node::SetInter { a, b }
                | Node::Prod { a, b }
                | Node::Union { a, b }
                | Node::Inter { a, b }
                | Node::Seq { a, b } => {
                    let (a, b) = (child(*a)?, child(*b)?);
                    (reads[a] | reads[b], join(mono[a], mono[b]), vars[a].union(&vars[b]).cloned().collect())
                }
                Node::SetDiff { a, b } | Node::Diff { a, b } => {
                    let (a, b) = (child(*a)?, child(*b)?);
                    (reads[a] | reads[b], join(mono[a], flip(mono[b])), vars[a].union(&vars[b]).cloned().collect())
                }
                Node::Foreach { attr, var, body } => {
                    let b = child(*body)?;
                    attr_tables[i] = Some(prog.templates.iter().map(|t| t.attrs.get(attr).copied()).collect());
                    let mut vs = vars[b].clone();
                    vs.remove(var);
                    (reads[b], mono[b], vs)
                }
            };
            reads[i] = d;
            mono[i] = m;
            vars[i] = v;
        }
        // Sorts: which nodes are sets, which relations; reject ill-sorted IR.
        let mut is_set = vec![false; n];
        for (i, node) in ir.nodes.iter().enumerate() {
            let want = |c: usize, set: bool, is_set: &[bool]| -> Result<(), Error> {
                if is_set[c] == set {
                    Ok(())
                } else {
                    Err(Error::invalid(format!(
                        "model {}: node {i} expects a {} at node {c}",
                        ir.name,
                        if set { "set" } else { "relation" }
                    )))
                }
            };
            is_set[i] = match node {
                Node::Tag { .. } | Node::AllSet | Node::EmptySet | Node::Var { .. } => true,
                Node::SetUnion { a, b } | Node::SetInter { a, b } | Node::SetDiff { a, b } => {
                    want(*a, true, &is_set)?;
                    want(*b, true, &is_set)?;
                    true
                }
                Node::Domain { a } | Node::Range { a } => {
                    want(*a, false, &is_set)?;
                    true
                }
                Node::Ident { a } => {
                    want(*a, true, &is_set)?;
                    false
                }
                Node::Prod { a, b } => {
                    want(*a, true, &is_set)?;
                    want(*b, true, &is_set)?;
                    false
                }
                Node::Union { a, b } | Node::Inter { a, b } | Node::Diff { a, b } | Node::Seq { a, b } => {
                    want(*a, false, &is_set)?;
                    want(*b, false, &is_set)?;
                    false
                }
                Node::Inv { a } | Node::Plus { a } | Node::Star { a } | Node::Opt { a } => {
                    want(*a, false, &is_set)?;
                    false
                }
                Node::Foreach { body, .. } => {
                    want(*body, false, &is_set)?;
                    false
                }
                Node::Base { .. } | Node::SameThreadAttr { .. } | Node::SameEventAttr { .. } => false,
            };
        }
        for (name, node) in &ir.shows {
            if *node >= n || is_set[*node] || !vars[*node].is_empty() {
                return Err(Error::invalid(format!("model {}: show {name} needs a relation", ir.name)));
            }
        }
        for o in &ir.orders {
            if o.set >= n || !is_set[o.set] || reads[o.set] != 0 || !vars[o.set].is_empty() {
                return Err(Error::invalid(format!(
                    "model {}: order {} needs a set fixed by the events alone",
                    ir.name, o.name
                )));
            }
        }
        // Flags must not depend on a witness order: an execution is kept with
        // the first order found (orders only have to exist).
        for c in &ir.checks {
            if c.flag.is_some() && c.node < n && reads[c.node] & READS_ORDERS != 0 {
                return Err(Error::invalid(format!(
                    "model {}: flag {} depends on a witness order; orders only have to exist",
                    ir.name, c.name
                )));
            }
        }
        let mut prunable = Vec::new();
        for (ci, c) in ir.checks.iter().enumerate() {
            if c.node >= n {
                return Err(Error::invalid(format!("model {}: check {} names no node", ir.name, c.name)));
            }
            if is_set[c.node] {
                return Err(Error::invalid(format!(
                    "model {}: check {} applies to a set, not a relation",
                    ir.name, c.name
                )));
            }
            if !vars[c.node].is_empty() {
                return Err(Error::invalid(format!("model {}: check {} uses an unbound variable", ir.name, c.name)));
            }
            if c.flag.is_none() && matches!(mono[c.node], Mono::Const | Mono::Up) {
                prunable.push(ci);
            }
        }
        Ok(Compiled { ir, reads, vars, prunable, tag_tables, attr_tables, thread_attr_tables })
    }
}

/// Evaluation of a compiled model on one event structure; node values are
/// cached, static ones across all `rf`/`co` choices, the others until what
/// they read changes (`forget`).
pub struct Evaluator<'a> {
    pub m: &'a Compiled,
    es: &'a EventStructure,
    cache: Vec<Option<Val>>,
    bound: Vec<(String, EventSet)>,
}

impl<'a> Evaluator<'a> {
    pub fn new(m: &'a Compiled, es: &'a EventStructure) -> Self {
        Evaluator { m, es, cache: vec![None; m.ir.nodes.len()], bound: Vec::new() }
    }

    /// Forget what reads any of `changed` (`READS_RF`, `READS_CO`,
    /// `READS_ORDERS`): the rest stays cached.
    pub fn forget(&mut self, changed: u8) {
        if changed == 0 {
            return;
        }
        for (i, c) in self.cache.iter_mut().enumerate() {
            if self.m.reads[i] & changed != 0 {
                *c = None;
            }
        }
    }

    /// The pairs of every relation the model shows, for a witness.
    pub fn shown(&mut self, d: &Dynamic) -> Vec<(String, Vec<(usize, usize)>)> {
        let shows = self.m.ir.shows.clone();
        shows.into_iter().map(|(name, node)| (name, self.rel(node, d).pairs())).collect()
    }

    pub fn set(&mut self, i: usize, d: &Dynamic) -> EventSet {
        match self.eval(i, d) {
            Val::Set(s) => s,
            Val::Rel(_) => panic!("model IR: node {i} is a relation where a set is expected"),
        }
    }

    fn rel(&mut self, i: usize, d: &Dynamic) -> std::rc::Rc<Relation> {
        match self.eval(i, d) {
            Val::Rel(r) => r,
            Val::Set(_) => panic!("model IR: node {i} is a set where a relation is expected"),
        }
    }

    pub fn eval(&mut self, i: usize, d: &Dynamic) -> Val {
        if let Some(v) = &self.cache[i] {
            return v.clone();
        }
        let es = self.es;
        let n = es.n;
        let r = |x: Relation| Val::Rel(std::rc::Rc::new(x));
        let v = match &self.m.ir.nodes[i] {
            Node::Tag { name } => {
                let mut s = match name.as_str() {
                    "R" => es.reads,
                    "W" => es.writes,
                    "F" => es.fences,
                    "M" => es.reads | es.writes,
                    "IW" => es.init,
                    _ => 0,
                };
                let (tt, lt) = self.m.tag_tables[i].as_ref().unwrap();
                for e in &es.events {
                    let has = match e.template {
                        Some(t) => tt[t],
                        None => lt[e.loc.unwrap()],
                    };
                    if has {
                        s |= 1u64 << e.id;
                    }
                }
                Val::Set(s)
            }
            Node::AllSet => Val::Set(full_set(n)),
            Node::EmptySet => Val::Set(0),
            Node::Var { name } => {
                let s = self.bound.iter().rev().find(|(v, _)| v == name).map(|(_, s)| *s);
                Val::Set(s.expect("unbound variable (checked at compile time)"))
            }
            Node::SetUnion { a, b } => {
                let (a, b) = (*a, *b);
                Val::Set(self.set(a, d) | self.set(b, d))
            }
            Node::SetInter { a, b } => {
                let (a, b) = (*a, *b);
                Val::Set(self.set(a, d) & self.set(b, d))
            }
            Node::SetDiff { a, b } => {
                let (a, b) = (*a, *b);
                Val::Set(self.set(a, d) & !self.set(b, d))
            }
            Node::Domain { a } => {
                let a = *a;
                Val::Set(self.rel(a, d).domain())
            }
            Node::Range { a } => {
                let a = *a;
                Val::Set(self.rel(a, d).range())
            }
            Node::Base { name } => r(match name.as_str() {
                "po" => es.po.clone(),
                "rf" => d.rf.clone(),
                "co" => d.co.clone(),
                "fr" => d.fr(),
                other if d.orders.iter().any(|(n, _)| n == other) => {
                    d.orders.iter().find(|(n, _)| n == other).unwrap().1.clone()
                }
                "rmw" => es.rmw.clone(),
                "data" => es.data.clone(),
                "ctrl" => es.ctrl.clone(),
                "loc" => es.loc.clone(),
                "int" => es.int.clone(),
                "ext" => {
                    let thread_events = full_set(n) & !es.init;
                    Relation::product(n, thread_events, thread_events).diff(&es.int)
                }
                "id" => Relation::identity(n),
                "universal" => Relation::product(n, full_set(n), full_set(n)),
                _ => Relation::empty(n),
            }),
            Node::SameThreadAttr { .. } => {
                let table = self.m.thread_attr_tables[i].as_ref().unwrap();
                let mut rel = Relation::empty(n);
                for a in &es.events {
                    for b in &es.events {
                        if let (Some(ta), Some(tb)) = (a.thread, b.thread) {
                            if table[ta].is_some() && table[ta] == table[tb] {
                                rel.add(a.id, b.id);
                            }
                        }
                    }
                }
                r(rel)
            }
            Node::SameEventAttr { .. } => {
                let table = self.m.attr_tables[i].as_ref().unwrap();
                let val = |e: &crate::execution::Event| e.template.and_then(|t| table[t]);
                let mut rel = Relation::empty(n);
                for a in &es.events {
                    for b in &es.events {
                        if val(a).is_some() && val(a) == val(b) {
                            rel.add(a.id, b.id);
                        }
                    }
                }
                r(rel)
            }
            Node::Ident { a } => {
                let a = *a;
                r(Relation::identity_on(n, self.set(a, d)))
            }
            Node::Prod { a, b } => {
                let (a, b) = (*a, *b);
                let (sa, sb) = (self.set(a, d), self.set(b, d));
                r(Relation::product(n, sa, sb))
            }
            Node::Union { a, b } => {
                let (a, b) = (*a, *b);
                r(self.rel(a, d).union(&self.rel(b, d)))
            }
            Node::Inter { a, b } => {
                let (a, b) = (*a, *b);
                r(self.rel(a, d).inter(&self.rel(b, d)))
            }
            Node::Diff { a, b } => {
                let (a, b) = (*a, *b);
                r(self.rel(a, d).diff(&self.rel(b, d)))
            }
            Node::Seq { a, b } => {
                let (a, b) = (*a, *b);
                // [S];r and r;[S] (the DSL's restrictions) mask rows or columns.
                match (&self.m.ir.nodes[a], &self.m.ir.nodes[b]) {
                    (Node::Ident { a: s }, _) => {
                        let s = *s;
                        let set = self.set(s, d);
                        r(self.rel(b, d).restrict_domain(set))
                    }
                    (_, Node::Ident { a: s }) => {
                        let s = *s;
                        let set = self.set(s, d);
                        r(self.rel(a, d).restrict_range(set))
                    }
                    _ => r(self.rel(a, d).seq(&self.rel(b, d))),
                }
            }
            Node::Inv { a } => {
                let a = *a;
                r(self.rel(a, d).inverse())
            }
            Node::Plus { a } => {
                let a = *a;
                r(self.rel(a, d).plus())
            }
            Node::Star { a } => {
                let a = *a;
                r(self.rel(a, d).star())
            }
            Node::Opt { a } => {
                let a = *a;
                r(self.rel(a, d).opt())
            }
            Node::Foreach { var, body, .. } => {
                let (var, body) = (var.clone(), *body);
                let table = self.m.attr_tables[i].as_ref().unwrap();
                let mut classes: Vec<(i64, EventSet)> = Vec::new();
                for e in &es.events {
                    if let Some(v) = e.template.and_then(|t| table[t]) {
                        match classes.iter_mut().find(|(k, _)| *k == v) {
                            Some((_, s)) => *s |= 1u64 << e.id,
                            None => classes.push((v, 1u64 << e.id)),
                        }
                    }
                }
                let mut acc = Relation::empty(n);
                for (_, s) in classes {
                    // what reads `var` is never cached (below): each class evaluates it anew
                    self.bound.push((var.clone(), s));
                    let part = self.rel(body, d);
                    for (row, p) in acc.rows.iter_mut().zip(&part.rows) {
                        *row |= p;
                    }
                    self.bound.pop();
                }
                r(acc)
            }
        };
        if self.m.vars[i].is_empty() {
            self.cache[i] = Some(v.clone());
        }
        v
    }

    /// Does check `ci` hold? On failure, a witness: the events of a
    /// violating pair (`empty`) or of a cycle / reflexive point.
    pub fn check(&mut self, ci: usize, d: &Dynamic) -> Result<(), Vec<usize>> {
        let c = &self.m.ir.checks[ci];
        let (kind, node) = (c.kind, c.node);
        let rel = self.rel(node, d);
        match kind {
            CheckKind::Empty => match rel.first_pair() {
                None => Ok(()),
                Some((a, b)) => Err(if a == b { vec![a] } else { vec![a, b] }),
            },
            CheckKind::Irreflexive => {
                let pts = rel.reflexive_points();
                if pts.is_empty() {
                    Ok(())
                } else {
                    Err(vec![pts[0]])
                }
            }
            CheckKind::Acyclic => {
                let cl = rel.plus();
                let pts = cl.reflexive_points();
                if pts.is_empty() {
                    Ok(())
                } else {
                    Err(cycle_through(&rel, pts[0]))
                }
            }
        }
    }
}

/// A shortest cycle of `rel` through event `start` (which lies on one).
fn cycle_through(rel: &Relation, start: usize) -> Vec<usize> {
    let n = rel.n;
    let mut prev = vec![usize::MAX; n];
    let mut frontier: Vec<usize> = vec![start];
    let mut seen: EventSet = 0;
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for &u in &frontier {
            for v in bits(rel.rows[u]) {
                if v == start {
                    let mut cyc = vec![u];
                    let mut x = u;
                    while x != start {
                        x = prev[x];
                        cyc.push(x);
                    }
                    cyc.reverse();
                    return cyc;
                }
                if seen >> v & 1 == 0 {
                    seen |= 1u64 << v;
                    prev[v] = u;
                    next.push(v);
                }
            }
        }
        frontier = next;
    }
    vec![start]
}
