//! Evaluator for the model IR built by `python/hrf/models` (docs/readings.md).
//!
//! A model is a DAG of set and relation expressions over the base sets and
//! relations of an execution, plus checks (`acyclic`, `irreflexive`,
//! `empty`) that are either consistency axioms or undefined-behaviour flags.
//! Nothing here knows any model by name: tags and attributes are strings
//! chosen by the Python side.

use super::execution::{Dynamic, EventStructure};
use super::relation::{bits, full_set, rows, EventSet};
use crate::error::Error;
pub use crate::model_ir::{Check, CheckKind, ModelIr, Node, OrderDecl};
use crate::program::Program;

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
/// The deepest model IR the evaluator takes (operand chains from a check
/// down to a leaf): evaluation recurses along them, and a thread's stack
/// (rayon's workers have 2 MiB) must hold the deepest. Real models are a
/// few dozen deep.
pub const MAX_DEPTH: usize = 1000;

pub const READS_RF: u8 = 1;
pub const READS_CO: u8 = 2;
pub const READS_ORDERS: u8 = 4;

/// A model prepared for one program: tags resolved to template indices,
/// and per node whether it depends on `rf`/`co` and on `foreach` variables.
pub struct Compiled {
    pub ir: std::sync::Arc<ModelIr>,
    /// For each combination of `READS_*` bits: the nodes that read any of
    /// them, a bit per node (what `Evaluator::forget` forgets).
    readers: [Vec<u64>; 8],
    /// Per node: a set (else a relation).
    is_set: Vec<bool>,
    /// Per node: the foreach variables it reads free (a bit each); a node
    /// with any is evaluated anew each time.
    vars: Vec<u64>,
    /// Checks that may be applied to partial `rf`/`co` (monotone in them).
    pub prunable: Vec<usize>,
    /// Checks that may be applied to a partial `rf` once `co` is complete
    /// (monotone in rf, not in co).
    pub prunable_once_co: Vec<usize>,
    /// Static relation nodes E of consistency checks `empty(E - (co | co^-1))`
    /// (co or its transitive closure): the pairs of writes co must order
    /// one way or the other (PTX's axiom-Coherence2). A partial co placing a
    /// write unordered with such a write placed before it can never order
    /// them (`enumerate`'s `co_place_partial`).
    pub co_total: Vec<usize>,
    /// The checks that judge a candidate: the model's own, `checks[..judged]`.
    /// Those after them prune only: each is a model check applied to a
    /// lower bound of its relation (`lower_bounds`).
    pub judged: usize,
    /// The flag checks that read a witness order, each with whether its
    /// relation only shrinks as the orders grow (so that the empty orders
    /// bound it from above): such a flag is raised where some order the
    /// execution is consistent with raises it (`enumerate`'s `sweep_orders`).
    pub order_flags: Vec<(usize, bool)>,
    /// For each `Tag` node: (template has tag, location has tag).
    tag_tables: Vec<Option<(Vec<bool>, Vec<bool>)>>,
    /// For each `SameEventAttr` / `Foreach`: template attribute values.
    attr_tables: Vec<Option<Vec<AttrOf>>>,
    /// For each `SameThreadAttr`: thread attribute values; for each
    /// `SameEventAttr` / `Foreach`, those of the attribute's name, which an
    /// event whose template leaves it unset takes from its thread.
    thread_attr_tables: Vec<Option<Vec<Option<i64>>>>,
}

/// A template's value of an event attribute: set in its `attrs`, the
/// event's own value (its `value_attr`: known only on the path), or unset.
#[derive(Clone, Copy, Debug)]
enum AttrOf {
    Unset,
    Is(i64),
    EventValue,
}

impl AttrOf {
    fn table(prog: &Program, name: &str) -> Vec<AttrOf> {
        let of = |t: &crate::program::EventTemplate| match t.attrs.get(name) {
            _ if t.value_attr.as_deref() == Some(name) => AttrOf::EventValue,
            Some(v) => AttrOf::Is(*v),
            None => AttrOf::Unset,
        };
        prog.templates.iter().map(of).collect()
    }

    /// The event's value: its template's, else its thread's (`threads`:
    /// the thread attribute of the same name; an event of a thread keeps
    /// its thread's place in the scope tree unless its template says
    /// otherwise, as a copy's write into another CTA's memory does).
    fn of(table: &[AttrOf], threads: &[Option<i64>], e: &super::execution::Event) -> Option<i64> {
        match table[e.template?] {
            AttrOf::Unset => threads.get(e.thread?).copied().flatten(),
            AttrOf::Is(v) => Some(v),
            AttrOf::EventValue => Some(e.value),
        }
    }
}

impl Compiled {
    /// The model prepared for `prog`. A consistency check that is not
    /// monotone in rf/co (it reads them through a difference, as the
    /// immediate pairs of an order do) cannot prune partial candidates; its
    /// check on a lower bound of its relation can (`lower_bounds`).
    pub fn new(ir: impl Into<std::sync::Arc<ModelIr>>, prog: &Program) -> Result<Self, Error> {
        let ir: std::sync::Arc<ModelIr> = ir.into();
        let (c, mono) = Self::analyse(ir.clone(), prog, ir.checks.len())?;
        let mut c = match lower_bounds(&ir, &mono) {
            Some(extended) => Self::analyse(std::sync::Arc::new(extended), prog, ir.checks.len())?.0,
            None => c,
        };
        c.co_total = c.co_totals();
        Ok(c)
    }

    fn analyse(ir: std::sync::Arc<ModelIr>, prog: &Program, judged: usize) -> Result<(Self, Vec<Mono>), Error> {
        let n = ir.nodes.len();
        // What each node reads of rf, co and the witness orders (`READS_*`).
        let mut reads = vec![0u8; n];
        let mut mono = vec![Mono::Const; n];
        // The foreach variables each node reads free, and those the foreach
        // nodes below it bind, as bit masks over the IR's variable names.
        let mut names: Vec<String> = Vec::new();
        let mut bit = |name: &str| -> Result<u64, Error> {
            let k = match names.iter().position(|x| *x == name) {
                Some(k) => k,
                None => {
                    names.push(name.to_string());
                    names.len() - 1
                }
            };
            if k >= 64 {
                return Err(Error::invalid(format!("model {}: more than 64 foreach variables", ir.name)));
            }
            Ok(1u64 << k)
        };
        let mut vars = vec![0u64; n];
        let mut binds = vec![0u64; n];
        let mut tag_tables = vec![None; n];
        let mut attr_tables = vec![None; n];
        let mut thread_attr_tables = vec![None; n];
        let mut depth = vec![1usize; n];
        for (i, node) in ir.nodes.iter().enumerate() {
            for k in node.operands() {
                if k < i {
                    depth[i] = depth[i].max(depth[k] + 1);
                }
            }
            if depth[i] > MAX_DEPTH {
                return Err(Error::Unsupported(format!(
                    "model {}: expressions nested more than {MAX_DEPTH} deep (node {i}): the evaluator \
                     recurses along them",
                    ir.name
                )));
            }
            let child = |c: usize| -> Result<usize, Error> {
                if c < i {
                    Ok(c)
                } else {
                    Err(Error::invalid(format!("model {}: node {i} refers forward to {c}", ir.name)))
                }
            };
            let (d, m, v, bs): (u8, Mono, u64, u64) = match node {
                Node::Tag { name } => {
                    let t: Vec<bool> = prog.templates.iter().map(|t| t.tags.contains(name)).collect();
                    let l: Vec<bool> = prog.locations.iter().map(|l| l.tags.contains(name)).collect();
                    tag_tables[i] = Some((t, l));
                    (0, Mono::Const, 0, 0)
                }
                Node::AllSet | Node::EmptySet => (0, Mono::Const, 0, 0),
                Node::Var { name } | Node::RelVar { name } => (0, Mono::Const, bit(name)?, 0),
                Node::Base { name } => match name.as_str() {
                    "rf" => (READS_RF, Mono::Up, 0, 0),
                    "co" => (READS_CO, Mono::Up, 0, 0),
                    "fr" => (READS_RF | READS_CO, Mono::Up, 0, 0),
                    "po" | "rmw" | "loc" | "int" | "ext" | "id" | "universal" | "empty" | "data" | "ctrl" | "addr"
                    | "ssw" => (0, Mono::Const, 0, 0),
                    other if ir.orders.iter().any(|o| o.name == other) => (READS_ORDERS, Mono::Up, 0, 0),
                    other => return Err(Error::invalid(format!("model {}: unknown base relation {other:?}", ir.name))),
                },
                Node::SameThreadAttr { name } => {
                    thread_attr_tables[i] = Some(prog.threads.iter().map(|t| t.attrs.get(name).copied()).collect());
                    (0, Mono::Const, 0, 0)
                }
                Node::SameEventAttr { name } => {
                    attr_tables[i] = Some(AttrOf::table(prog, name));
                    thread_attr_tables[i] = Some(prog.threads.iter().map(|t| t.attrs.get(name).copied()).collect());
                    (0, Mono::Const, 0, 0)
                }
                // a difference is monotone in its first operand, antitone in its second
                Node::SetDiff { a, b } | Node::Diff { a, b } => {
                    let (a, b) = (child(*a)?, child(*b)?);
                    (reads[a] | reads[b], join(mono[a], flip(mono[b])), vars[a] | vars[b], binds[a] | binds[b])
                }
                Node::Foreach { attr, var, body } => {
                    let b = child(*body)?;
                    attr_tables[i] = Some(AttrOf::table(prog, attr));
                    thread_attr_tables[i] = Some(prog.threads.iter().map(|t| t.attrs.get(attr).copied()).collect());
                    let v = bit(var)?;
                    // No foreach inside binds `var` again: the evaluator keeps one
                    // value per node, which an inner binding would overwrite.
                    if binds[b] & v != 0 {
                        return Err(Error::invalid(format!(
                            "model {}: node {i}: a foreach inside binds {var} again; give it another name",
                            ir.name
                        )));
                    }
                    (reads[b], mono[b], vars[b] & !v, binds[b] | v)
                }
                Node::Fix { var, body } => {
                    let b = child(*body)?;
                    let v = bit(var)?;
                    if binds[b] & v != 0 {
                        return Err(Error::invalid(format!(
                            "model {}: node {i}: a fix inside binds {var} again; give it another name",
                            ir.name
                        )));
                    }
                    (reads[b], mono[b], vars[b] & !v, binds[b] | v)
                }
                // the other operators: what their operands read, monotone as they are
                node => {
                    let mut acc = (0, Mono::Const, 0, 0);
                    for k in node.operands() {
                        let k = child(k)?;
                        acc = (acc.0 | reads[k], join(acc.1, mono[k]), acc.2 | vars[k], acc.3 | binds[k]);
                    }
                    acc
                }
            };
            reads[i] = d;
            mono[i] = m;
            vars[i] = v;
            binds[i] = bs;
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
                Node::Foreach { body, .. } | Node::Fix { body, .. } => {
                    want(*body, false, &is_set)?;
                    false
                }
                Node::Base { .. } | Node::SameThreadAttr { .. } | Node::SameEventAttr { .. } | Node::RelVar { .. } => {
                    false
                }
            };
        }
        for (name, node) in &ir.shows {
            if *node >= n || is_set[*node] || vars[*node] != 0 {
                return Err(Error::invalid(format!("model {}: show {name} needs a relation", ir.name)));
            }
        }
        for o in &ir.orders {
            if o.set >= n || !is_set[o.set] || reads[o.set] != 0 || vars[o.set] != 0 {
                return Err(Error::invalid(format!(
                    "model {}: order {} needs a set fixed by the events alone",
                    ir.name, o.name
                )));
            }
        }
        // How each node grows with the witness orders, rf and co held fixed: a
        // flag that reads an order is raised where some order raises it, and
        // one that only shrinks as the orders grow is raised by none where the
        // empty orders do not raise it. A fixed point is not analysed.
        let mut mono_ord = vec![Mono::Const; n];
        for (i, node) in ir.nodes.iter().enumerate() {
            mono_ord[i] = match node {
                _ if reads[i] & READS_ORDERS == 0 => Mono::Const,
                Node::Base { .. } => Mono::Up,
                Node::SetDiff { a, b } | Node::Diff { a, b } => join(mono_ord[*a], flip(mono_ord[*b])),
                Node::Fix { .. } => Mono::Mixed,
                node => node.operands().fold(Mono::Const, |acc, k| join(acc, mono_ord[k])),
            };
        }
        let order_flags: Vec<(usize, bool)> = (ir.checks.iter().enumerate())
            .filter(|(_, c)| c.flag.is_some() && c.node < n && reads[c.node] & READS_ORDERS != 0)
            .map(|(ci, c)| (ci, matches!(mono_ord[c.node], Mono::Const | Mono::Down)))
            .collect();
        // Monotonicity in rf (and the witness orders) with co held fixed:
        // once the search has chosen all of co (`enumerate::search_order`
        // chooses it before the reads with several possible writes), the
        // checks monotone in rf alone prune too (a check may read co
        // antitonically: the immediate pairs of an order, `r - r;r+`).
        let mut mono_rf = vec![Mono::Const; n];
        for (i, node) in ir.nodes.iter().enumerate() {
            mono_rf[i] = match node {
                Node::Base { name } if name == "co" => Mono::Const,
                Node::SetDiff { a, b } | Node::Diff { a, b } => join(mono_rf[*a], flip(mono_rf[*b])),
                node if node.operands().next().is_none() => mono[i],
                node => node.operands().fold(Mono::Const, |acc, k| join(acc, mono_rf[k])),
            };
        }
        let mut prunable = Vec::new();
        let mut prunable_once_co = Vec::new();
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
            if vars[c.node] != 0 {
                return Err(Error::invalid(format!("model {}: check {} uses an unbound variable", ir.name, c.name)));
            }
            if c.flag.is_none() && matches!(mono[c.node], Mono::Const | Mono::Up) {
                prunable.push(ci);
            } else if c.flag.is_none() && matches!(mono_rf[c.node], Mono::Const | Mono::Up) {
                prunable_once_co.push(ci);
            }
        }
        let mut readers: [Vec<u64>; 8] = std::array::from_fn(|_| vec![0u64; n.div_ceil(64)]);
        for (i, &r) in reads.iter().enumerate() {
            for (c, set) in readers.iter_mut().enumerate() {
                if r & c as u8 != 0 {
                    set[i / 64] |= 1u64 << (i % 64);
                }
            }
        }
        Ok((
            Compiled {
                ir,
                readers,
                is_set,
                vars,
                prunable,
                prunable_once_co,
                co_total: Vec::new(),
                judged,
                order_flags,
                tag_tables,
                attr_tables,
                thread_attr_tables,
            },
            mono,
        ))
    }
}

/// The model with a pruning check added for each consistency check that is
/// not monotone in rf/co: the same check on a lower bound of its relation,
/// built from the IR so that it is monotone. As rf and co grow toward a
/// candidate, a monotone node's value only grows (its value now is a lower
/// bound of its final one) and an antitone node's only shrinks (an upper
/// bound); a difference's lower bound is its first operand's lower bound
/// less its second's upper bound. Where no bound is known (a lower bound:
/// empty; an upper bound: everything) the operators say what is left. A
/// check fails on its relation whenever it fails on a part of it, so a
/// failing lower bound rules out every candidate the partial one extends.
/// None when every consistency check is monotone already.
fn lower_bounds(ir: &ModelIr, mono: &[Mono]) -> Option<ModelIr> {
    let wanted: Vec<usize> = (ir.checks.iter().enumerate())
        .filter(|(_, c)| c.flag.is_none() && matches!(mono[c.node], Mono::Down | Mono::Mixed))
        .map(|(ci, _)| ci)
        .collect();
    if wanted.is_empty() {
        return None;
    }
    let mut b = Bounds { nodes: ir.nodes.clone(), mono, memo: std::collections::HashMap::new() };
    let mut checks = ir.checks.clone();
    for ci in wanted {
        let c = &ir.checks[ci];
        if let Some(node) = b.bound(c.node, true) {
            checks.push(crate::model_ir::Check {
                kind: c.kind,
                node,
                name: format!("{} (a lower bound, pruning only)", c.name),
                flag: None,
            });
        }
    }
    if checks.len() == ir.checks.len() {
        return None;
    }
    Some(ModelIr { nodes: b.nodes, checks, ..ir.clone() })
}

/// Builds bound nodes (`lower_bounds`): `bound(i, true)` a node whose value
/// is always within node i's final value and grows with rf/co,
/// `bound(i, false)` one that always holds it and shrinks; None where the
/// bound is empty (lower) or everything (upper).
struct Bounds<'m> {
    nodes: Vec<Node>,
    mono: &'m [Mono],
    memo: std::collections::HashMap<(usize, bool), Option<usize>>,
}

impl Bounds<'_> {
    fn push(&mut self, node: Node) -> Option<usize> {
        self.nodes.push(node);
        Some(self.nodes.len() - 1)
    }

    fn bound(&mut self, i: usize, lower: bool) -> Option<usize> {
        let own = if lower { Mono::Up } else { Mono::Down };
        if self.mono[i] == Mono::Const || self.mono[i] == own {
            return Some(i); // its value now is the bound
        }
        if let Some(&got) = self.memo.get(&(i, lower)) {
            return got;
        }
        let got = self.derive(i, lower);
        self.memo.insert((i, lower), got);
        got
    }

    fn derive(&mut self, i: usize, lower: bool) -> Option<usize> {
        // None is the empty relation (set) for a lower bound, everything for an upper one
        let node = self.nodes[i].clone();
        match node {
            Node::Diff { a, b } | Node::SetDiff { a, b } => {
                let x = self.bound(a, lower)?;
                match self.bound(b, !lower) {
                    Some(y) => self.push(rebuilt(&node, x, y)?),
                    None if lower => None, // less everything
                    None => Some(x),       // less nothing
                }
            }
            Node::Union { a, b } | Node::SetUnion { a, b } => match (self.bound(a, lower), self.bound(b, lower)) {
                (Some(x), Some(y)) => self.push(rebuilt(&node, x, y)?),
                (x, y) if lower => x.or(y),
                _ => None,
            },
            Node::Inter { a, b } | Node::SetInter { a, b } => match (self.bound(a, lower), self.bound(b, lower)) {
                (Some(x), Some(y)) => self.push(rebuilt(&node, x, y)?),
                (x, y) if !lower => x.or(y),
                _ => None,
            },
            Node::Seq { a, b } | Node::Prod { a, b } => {
                let (x, y) = (self.bound(a, lower)?, self.bound(b, lower)?);
                self.push(rebuilt(&node, x, y)?)
            }
            Node::Inv { a } | Node::Plus { a } | Node::Domain { a } | Node::Range { a } | Node::Ident { a } => {
                let x = self.bound(a, lower)?;
                self.push(rebuilt(&node, x, x)?)
            }
            Node::Star { a } | Node::Opt { a } => match self.bound(a, lower) {
                Some(x) => self.push(rebuilt(&node, x, x)?),
                // the identity alone, for a lower bound
                None if lower => self.push(Node::Base { name: "id".into() }),
                None => None,
            },
            Node::Foreach { attr, var, body } => {
                let body = self.bound(body, lower)?;
                self.push(Node::Foreach { attr, var, body })
            }
            // a fixed point, a leaf that grows and shrinks: no bound
            _ => None,
        }
    }
}

/// An operator node of `node`'s kind over operands `a` and `b` (a unary
/// one takes `a`); None for a node that is no operator.
fn rebuilt(node: &Node, a: usize, b: usize) -> Option<Node> {
    Some(match node {
        Node::Diff { .. } => Node::Diff { a, b },
        Node::SetDiff { .. } => Node::SetDiff { a, b },
        Node::Union { .. } => Node::Union { a, b },
        Node::SetUnion { .. } => Node::SetUnion { a, b },
        Node::Inter { .. } => Node::Inter { a, b },
        Node::SetInter { .. } => Node::SetInter { a, b },
        Node::Seq { .. } => Node::Seq { a, b },
        Node::Prod { .. } => Node::Prod { a, b },
        Node::Inv { .. } => Node::Inv { a },
        Node::Plus { .. } => Node::Plus { a },
        Node::Domain { .. } => Node::Domain { a },
        Node::Range { .. } => Node::Range { a },
        Node::Ident { .. } => Node::Ident { a },
        Node::Star { .. } => Node::Star { a },
        Node::Opt { .. } => Node::Opt { a },
        _ => return None,
    })
}

impl Compiled {
    /// Does node `i` read none of rf, co, the orders and the variables (is
    /// its value fixed by the event structure)?
    fn is_static(&self, i: usize) -> bool {
        self.readers[7][i / 64] >> (i % 64) & 1 == 0 && self.vars[i] == 0
    }

    /// The static nodes E of the judged consistency checks
    /// `empty(E - (co | co^-1))`, co or co+ (`co_total`).
    fn co_totals(&self) -> Vec<usize> {
        let nodes = &self.ir.nodes;
        let is_co = |i: usize| match &nodes[i] {
            Node::Base { name } => name == "co",
            Node::Plus { a } => matches!(&nodes[*a], Node::Base { name } if name == "co"),
            _ => false,
        };
        let is_inv_co = |i: usize| matches!(&nodes[i], Node::Inv { a } if is_co(*a));
        let both = |i: usize| match &nodes[i] {
            Node::Union { a, b } => (is_co(*a) && is_inv_co(*b)) || (is_inv_co(*a) && is_co(*b)),
            _ => false,
        };
        (self.ir.checks[..self.judged].iter())
            .filter(|c| c.flag.is_none() && c.kind == CheckKind::Empty)
            .filter_map(|c| match &nodes[c.node] {
                Node::Diff { a, b } if self.is_static(*a) && both(*b) => Some(*a),
                _ => None,
            })
            .collect()
    }
}

/// Evaluation of a compiled model on one event structure; node values are
/// cached, static ones across all `rf`/`co` choices, the others until what
/// they read changes (`forget`). Every node's value has its place in one
/// buffer (a set node's in `sets`, a relation node's `n` rows in `rows`),
/// so evaluating allocates nothing; a node's operands come before it.
pub struct Evaluator<'a> {
    pub m: &'a Compiled,
    es: &'a EventStructure,
    n: usize,
    st: EvalState,
    bound: Vec<(String, EventSet)>,
    /// The relations bound by the `fix` nodes being evaluated.
    bound_rels: Vec<(String, Vec<EventSet>)>,
}

/// An evaluator's buffers, kept from one event structure to the next
/// (`Evaluator::with_state`): allocated once, and their static values (what
/// reads no rf, co or witness order) still hold for an event structure of
/// the same shape (`EventStructure::same_shape`).
pub struct EvalState {
    /// A bit per node: its place holds its value for the current
    /// rf/co/orders. Never set for nodes that read a `foreach` variable.
    fresh: Vec<u64>,
    sets: Vec<EventSet>,
    /// Node i's rows at `rows[i * n .. (i + 1) * n]`.
    rows: Vec<EventSet>,
    /// Rows to work in (`fr`).
    scratch: Vec<EventSet>,
    n: usize,
}

impl EvalState {
    fn new(nodes: usize, n: usize) -> Self {
        EvalState {
            fresh: vec![0; nodes.div_ceil(64)],
            sets: vec![0; nodes],
            rows: vec![0; nodes * n],
            scratch: vec![0; n],
            n,
        }
    }
}

impl<'a> Evaluator<'a> {
    pub fn new(m: &'a Compiled, es: &'a EventStructure) -> Self {
        Self::with_state(m, es, None, false)
    }

    /// An evaluator that reuses the buffers of an earlier one (of the same
    /// model); with `same_shape`, the earlier event structure had the shape
    /// of `es`, and the static values computed on it are kept.
    pub fn with_state(m: &'a Compiled, es: &'a EventStructure, st: Option<EvalState>, same_shape: bool) -> Self {
        let k = m.ir.nodes.len();
        let (st, keep) = match st {
            Some(st) if st.n == es.n && st.sets.len() == k => (st, same_shape),
            _ => (EvalState::new(k, es.n), false),
        };
        let mut ev = Evaluator { m, es, n: es.n, st, bound: Vec::new(), bound_rels: Vec::new() };
        if keep {
            // the static values stay: forget what reads rf, co or an order
            ev.forget(READS_RF | READS_CO | READS_ORDERS);
        } else {
            ev.st.fresh.fill(0);
        }
        ev
    }

    /// The buffers, for the next event structure (`with_state`).
    pub fn into_state(self) -> EvalState {
        self.st
    }

    /// Forget what reads any of `changed` (`READS_RF`, `READS_CO`,
    /// `READS_ORDERS`): the rest stays cached.
    pub fn forget(&mut self, changed: u8) {
        if changed == 0 {
            return;
        }
        for (f, &r) in self.st.fresh.iter_mut().zip(&self.m.readers[changed as usize & 7]) {
            *f &= !r;
        }
    }

    /// The pairs of every relation the model shows, for a witness.
    pub fn shown(&mut self, d: &Dynamic) -> Vec<(String, Vec<(usize, usize)>)> {
        let m = self.m;
        m.ir.shows.iter().map(|(name, node)| (name.clone(), self.rel_pairs(*node, d))).collect()
    }

    pub fn set(&mut self, i: usize, d: &Dynamic) -> EventSet {
        self.eval(i, d);
        self.st.sets[i]
    }

    /// The pairs of relation node `i`.
    pub fn rel_pairs(&mut self, i: usize, d: &Dynamic) -> Vec<(usize, usize)> {
        rows::pairs(self.rel(i, d))
    }

    /// The rows of relation node `i`.
    pub fn rel(&mut self, i: usize, d: &Dynamic) -> &[EventSet] {
        self.eval(i, d);
        &self.st.rows[i * self.n..(i + 1) * self.n]
    }

    /// Bring node `i`'s place up to date (its operands first).
    fn eval(&mut self, i: usize, d: &Dynamic) {
        if self.st.fresh[i / 64] >> (i % 64) & 1 == 1 {
            return;
        }
        let m = self.m;
        let es = self.es;
        let n = self.n;
        // operands, then this node's value from theirs. An intersection,
        // sequence or product with an empty operand, or a difference from an
        // empty relation, is empty: the other operand is not evaluated (a
        // static operand is looked at first, its value is kept for the
        // event structure).
        match &m.ir.nodes[i] {
            Node::Inter { a, b } | Node::Seq { a, b } | Node::Prod { a, b } => {
                let (x, y) = if m.is_static(*b) && !m.is_static(*a) { (*b, *a) } else { (*a, *b) };
                for k in [x, y] {
                    self.eval(k, d);
                    if self.is_empty(k) {
                        self.st.rows[i * n..(i + 1) * n].fill(0);
                        return self.done(i);
                    }
                }
            }
            Node::Diff { a, b } => {
                self.eval(*a, d);
                if self.is_empty(*a) {
                    self.st.rows[i * n..(i + 1) * n].fill(0);
                    return self.done(i);
                }
                self.eval(*b, d);
            }
            // a foreach evaluates its body once per class, a fix until it holds still, below
            Node::Foreach { .. } | Node::Fix { .. } => {}
            node => {
                for k in node.operands() {
                    self.eval(k, d);
                }
            }
        }
        let (before, here) = self.st.rows.split_at_mut(i * n);
        let out = &mut here[..n];
        let arg = |a: usize| &before[a * n..(a + 1) * n];
        let sets = &mut self.st.sets;
        match &m.ir.nodes[i] {
            Node::Tag { name } => {
                let mut s = es.builtin_tag(name);
                let (tt, lt) = m.tag_tables[i].as_ref().unwrap();
                for e in &es.events {
                    // an access has its template's tags and its location's
                    // (the same for a fixed location; for one through a
                    // pointer, known only once the path names it)
                    let has = match e.template {
                        Some(t) => tt[t] || e.loc.is_some_and(|l| lt[l]),
                        None => lt[e.loc.unwrap()],
                    };
                    if has {
                        s |= (1 as EventSet) << e.id;
                    }
                }
                sets[i] = s;
            }
            Node::AllSet => sets[i] = full_set(n),
            Node::EmptySet => sets[i] = 0,
            Node::Var { name } => {
                let s = self.bound.iter().rev().find(|(v, _)| v == name).map(|(_, s)| *s);
                sets[i] = s.expect("unbound variable (checked at compile time)");
            }
            Node::RelVar { name } => {
                let r = self.bound_rels.iter().rev().find(|(v, _)| v == name);
                out.copy_from_slice(&r.expect("unbound variable (checked at compile time)").1);
            }
            Node::SetUnion { a, b } => sets[i] = sets[*a] | sets[*b],
            Node::SetInter { a, b } => sets[i] = sets[*a] & sets[*b],
            Node::SetDiff { a, b } => sets[i] = sets[*a] & !sets[*b],
            Node::Domain { a } => sets[i] = rows::domain(arg(*a)),
            Node::Range { a } => sets[i] = rows::range(arg(*a)),
            Node::Base { name } => match name.as_str() {
                "po" => out.copy_from_slice(&es.po.rows),
                "rf" => out.copy_from_slice(&d.rf.rows),
                "co" => out.copy_from_slice(&d.co.rows),
                "fr" => d.fr_into(out, &mut self.st.scratch),
                "rmw" => out.copy_from_slice(&es.rmw.rows),
                "data" => out.copy_from_slice(&es.data.rows),
                "ctrl" => out.copy_from_slice(&es.ctrl.rows),
                "addr" => out.copy_from_slice(&es.addr.rows),
                "ssw" => out.copy_from_slice(&es.ssw.rows),
                "loc" => out.copy_from_slice(&es.loc.rows),
                "int" => out.copy_from_slice(&es.int.rows),
                "ext" => {
                    let thread_events = full_set(n) & !es.init;
                    rows::product(out, thread_events, thread_events);
                    for (o, &x) in out.iter_mut().zip(&es.int.rows) {
                        *o &= !x;
                    }
                }
                "id" => rows::identity_on(out, full_set(n)),
                "universal" => rows::product(out, full_set(n), full_set(n)),
                other => match d.orders.iter().find(|(o, _)| o == other) {
                    Some((_, r)) => out.copy_from_slice(&r.rows),
                    None => out.fill(0),
                },
            },
            Node::SameThreadAttr { .. } => {
                let table = m.thread_attr_tables[i].as_ref().unwrap();
                out.fill(0);
                for a in &es.events {
                    for b in &es.events {
                        if let (Some(ta), Some(tb)) = (a.thread, b.thread) {
                            if table[ta].is_some() && table[ta] == table[tb] {
                                out[a.id] |= (1 as EventSet) << b.id;
                            }
                        }
                    }
                }
            }
            Node::SameEventAttr { .. } => {
                let table = m.attr_tables[i].as_ref().unwrap();
                let threads = m.thread_attr_tables[i].as_deref().unwrap_or(&[]);
                let val = |e: &super::execution::Event| AttrOf::of(table, threads, e);
                out.fill(0);
                for a in &es.events {
                    for b in &es.events {
                        if val(a).is_some() && val(a) == val(b) {
                            out[a.id] |= (1 as EventSet) << b.id;
                        }
                    }
                }
            }
            Node::Ident { a } => rows::identity_on(out, sets[*a]),
            Node::Prod { a, b } => rows::product(out, sets[*a], sets[*b]),
            Node::Union { a, b } => rows::union(out, arg(*a), arg(*b)),
            Node::Inter { a, b } => rows::inter(out, arg(*a), arg(*b)),
            Node::Diff { a, b } => rows::diff(out, arg(*a), arg(*b)),
            // [S];r and r;[S] (the DSL's restrictions) mask rows or columns.
            Node::Seq { a, b } => match (&m.ir.nodes[*a], &m.ir.nodes[*b]) {
                (Node::Ident { a: s }, _) => rows::restrict_domain(out, arg(*b), sets[*s]),
                (_, Node::Ident { a: s }) => rows::restrict_range(out, arg(*a), sets[*s]),
                _ => rows::seq(out, arg(*a), arg(*b)),
            },
            Node::Inv { a } => rows::inverse(out, arg(*a)),
            Node::Plus { a } => {
                out.copy_from_slice(arg(*a));
                rows::close(out);
            }
            Node::Star { a } => {
                out.copy_from_slice(arg(*a));
                rows::close(out);
                rows::add_identity(out);
            }
            Node::Opt { a } => {
                out.copy_from_slice(arg(*a));
                rows::add_identity(out);
            }
            Node::Fix { .. } => {}
            Node::Foreach { var, body, .. } => {
                let body = *body;
                let table = m.attr_tables[i].as_ref().unwrap();
                let threads = m.thread_attr_tables[i].as_deref().unwrap_or(&[]);
                let mut classes: Vec<(i64, EventSet)> = Vec::new();
                for e in &es.events {
                    if let Some(v) = AttrOf::of(table, threads, e) {
                        match classes.iter_mut().find(|(k, _)| *k == v) {
                            Some((_, s)) => *s |= (1 as EventSet) << e.id,
                            None => classes.push((v, (1 as EventSet) << e.id)),
                        }
                    }
                }
                out.fill(0);
                for (_, s) in classes {
                    // what reads `var` is never fresh: each class evaluates it
                    // anew (no foreach inside rebinds `var`: `Compiled::new`)
                    self.bound.push((var.clone(), s));
                    self.eval(body, d);
                    self.bound.pop();
                    let (before, here) = self.st.rows.split_at_mut(i * n);
                    for (o, &p) in here[..n].iter_mut().zip(&before[body * n..(body + 1) * n]) {
                        *o |= p;
                    }
                }
            }
        }
        if let Node::Fix { var, body } = &m.ir.nodes[i] {
            // X0 = empty, X(k+1) = body(Xk), until it holds still: at most
            // n*n + 1 rounds for a monotone body, each adding a pair
            let body = *body;
            let mut x: Vec<EventSet> = vec![0; n];
            for _ in 0..=n * n {
                self.bound_rels.push((var.clone(), x.clone()));
                self.eval(body, d);
                self.bound_rels.pop();
                let next = &self.st.rows[body * n..(body + 1) * n];
                if next == x.as_slice() {
                    break;
                }
                x.copy_from_slice(next);
            }
            self.st.rows[i * n..(i + 1) * n].copy_from_slice(&x);
        }
        self.done(i);
    }

    /// Node `i`'s place holds its value: fresh, unless it reads a variable.
    fn done(&mut self, i: usize) {
        if self.m.vars[i] == 0 {
            self.st.fresh[i / 64] |= 1u64 << (i % 64);
        }
    }

    /// Is the (current) value of node `i` empty?
    fn is_empty(&self, i: usize) -> bool {
        if self.m.is_set[i] {
            self.st.sets[i] == 0
        } else {
            self.st.rows[i * self.n..(i + 1) * self.n].iter().all(|&r| r == 0)
        }
    }

    /// Does check `ci` hold? On failure, a witness: the events of a
    /// violating pair (`empty`) or of a cycle / reflexive point.
    pub fn check(&mut self, ci: usize, d: &Dynamic) -> Result<(), Vec<usize>> {
        let c = &self.m.ir.checks[ci];
        let (kind, node) = (c.kind, c.node);
        self.eval(node, d);
        let st = &mut self.st;
        let rel = &st.rows[node * self.n..(node + 1) * self.n];
        match kind {
            CheckKind::Empty => match rows::first_pair(rel) {
                None => Ok(()),
                Some((a, b)) => Err(if a == b { vec![a] } else { vec![a, b] }),
            },
            CheckKind::Irreflexive => match (0..rel.len()).find(|&i| rel[i] >> i & 1 == 1) {
                None => Ok(()),
                Some(p) => Err(vec![p]),
            },
            CheckKind::Acyclic => match rows::on_cycle(rel) {
                None => Ok(()),
                Some(p) => Err(cycle_through(rel, p)),
            },
        }
    }
}

/// A shortest cycle of `rel` through event `start` (which lies on one).
fn cycle_through(rel: &[EventSet], start: usize) -> Vec<usize> {
    let n = rel.len();
    let mut prev = vec![usize::MAX; n];
    let mut frontier: Vec<usize> = vec![start];
    let mut seen: EventSet = 0;
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for &u in &frontier {
            for v in bits(rel[u]) {
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
                    seen |= (1 as EventSet) << v;
                    prev[v] = u;
                    next.push(v);
                }
            }
        }
        frontier = next;
    }
    vec![start]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A chain of `opt` nodes `depth` deep over po, checked irreflexive.
    fn deep_model(depth: usize) -> ModelIr {
        let mut nodes = vec![json!({"op": "base", "name": "po"})];
        for i in 0..depth {
            nodes.push(json!({"op": "opt", "a": i}));
        }
        serde_json::from_value(json!({
            "name": "deep", "nodes": nodes, "checks": [{"kind": "irreflexive", "node": depth, "name": "deep"}]
        }))
        .unwrap()
    }

    #[test]
    fn a_model_nested_past_the_bound_is_refused_not_a_stack_overflow() {
        // Evaluation recurses along operand chains: a model deeper than
        // MAX_DEPTH is an error naming the bound (it once overflowed the stack).
        let p: Program = serde_json::from_value(json!({
            "name": "empty", "locations": [], "templates": [], "threads": [], "observed": [],
            "condition": {"k": "and", "args": []}
        }))
        .unwrap();
        assert!(Compiled::new(deep_model(MAX_DEPTH - 1), &p).is_ok());
        let e = Compiled::new(deep_model(100_000), &p).err().expect("refused");
        assert!(e.to_string().contains("nested more than"), "{e}");
    }

    #[test]
    fn a_check_through_immediate_pairs_prunes_through_its_lower_bound() {
        // acyclic(po | (co - co;co)): co's immediate pairs shrink as co grows,
        // so the check is not monotone; its lower bound po | (lower(co) -
        // upper(co;co)) has no upper bound for co;co (it grows), so it is
        // po alone, monotone: a pruning-only check after the model's one.
        let ir: ModelIr = serde_json::from_value(json!({
            "name": "imm", "nodes": [
                {"op": "base", "name": "co"}, {"op": "seq", "a": 0, "b": 0}, {"op": "diff", "a": 0, "b": 1},
                {"op": "base", "name": "po"}, {"op": "union", "a": 3, "b": 2},
                {"op": "diff", "a": 3, "b": 1}
            ],
            "checks": [{"kind": "acyclic", "node": 4, "name": "imm"}, {"kind": "empty", "node": 5, "name": "po-less"}]
        }))
        .unwrap();
        let p: Program = serde_json::from_value(json!({
            "name": "empty", "locations": [], "templates": [], "threads": [], "observed": [],
            "condition": {"k": "and", "args": []}
        }))
        .unwrap();
        let c = Compiled::new(ir, &p).unwrap();
        assert_eq!(c.judged, 2);
        // the union's lower bound is po (node 3) itself; the lower bound of po - co;co is po less
        // the upper bound of co;co, which is everything: empty, so that check gets none
        assert_eq!(c.ir.checks.len(), 3);
        assert_eq!(c.ir.checks[2].node, 3);
        assert!(c.ir.checks[2].name.contains("pruning only"));
        assert!(c.prunable.contains(&2) && !c.prunable.contains(&0));
        // empty(po - co;co) shrinks as co grows: it prunes once co is chosen, and gets no bound
        assert!(!c.prunable.contains(&1) && c.prunable_once_co.contains(&1));
    }
}
