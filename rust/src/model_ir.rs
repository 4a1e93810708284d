//! The model IR built by `python/hrf/models` (its JSON form): a DAG of
//! set and relation expressions over the base sets and relations of an
//! execution, the checks on them, the witness orders. One IR for both
//! widths of the checker (`narrow`, `wide`), which evaluate it (`model.rs`).

use serde::Deserialize;

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
    /// The relation bound by an enclosing `fix`.
    RelVar {
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
    /// attribute `attr`, with `var` bound to the class, of `body`. No
    /// foreach inside `body` may bind `var` again (`Compiled::new` refuses
    /// it; the DSL names each variable afresh).
    Foreach {
        attr: String,
        var: String,
        body: usize,
    },
    /// The least fixed point of `body` in `var` (cat's `let rec r = ...`),
    /// iterated from the empty relation. No fix inside `body` binds `var`
    /// again.
    Fix {
        var: String,
        body: usize,
    },
}

impl Node {
    /// The nodes this one is computed from (its operands, a foreach's body).
    pub fn operands(&self) -> impl Iterator<Item = usize> {
        let (a, b) = match self {
            Node::SetUnion { a, b }
            | Node::SetInter { a, b }
            | Node::SetDiff { a, b }
            | Node::Prod { a, b }
            | Node::Union { a, b }
            | Node::Inter { a, b }
            | Node::Diff { a, b }
            | Node::Seq { a, b } => (Some(*a), Some(*b)),
            Node::Domain { a }
            | Node::Range { a }
            | Node::Ident { a }
            | Node::Inv { a }
            | Node::Plus { a }
            | Node::Star { a }
            | Node::Opt { a } => (Some(*a), None),
            Node::Foreach { body, .. } | Node::Fix { body, .. } => (Some(*body), None),
            _ => (None, None),
        };
        a.into_iter().chain(b)
    }
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
    /// The model's axioms make an RMW carrying one of these tags atomic
    /// with the others of its thread on its location: it reads the write
    /// just before its own in coherence order. Where one thread's such
    /// RMWs are a location's only writes (the initial one aside), the
    /// values each path of that thread reads and writes with them form one
    /// chain from the initial value, and the enumerator drops the paths
    /// whose do not (`Program::rmw_chain_writers`); the reference
    /// enumerator ignores this. Empty: no such reduction.
    #[serde(default)]
    pub rmw_chains: Vec<String>,
    /// With `rmw_chains`: the model's axioms also put such an RMW before,
    /// in coherence, each later one of its thread in program order, but
    /// from an RMW carrying one of `not_from` (asynchronous: what follows
    /// it is not ordered after it) or to one carrying one of `not_to` (not
    /// ordered after what precedes it). None: no such order is known.
    #[serde(default)]
    pub rmw_chain_order: Option<RmwChainOrder>,
}

/// The RMWs that program order does not put in coherence order
/// (`ModelIr::rmw_chain_order`).
#[derive(Deserialize, Debug, Clone, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RmwChainOrder {
    #[serde(default)]
    pub not_from: Vec<String>,
    #[serde(default)]
    pub not_to: Vec<String>,
}
