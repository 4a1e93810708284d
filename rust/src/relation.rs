//! Binary relations over the events of one execution, as bit matrices.
//!
//! An execution has at most `MAX_EVENTS` events (init writes included); row
//! `i` of a relation is the set of events `j` with `(i, j)` in the relation,
//! one bit per event. Every operation of the relational DSL (docs/readings.md) is
//! here: union, intersection, difference, sequence, inverse, closures,
//! identity on a set, cartesian product, and the three checks.

pub const MAX_EVENTS: usize = EventSet::BITS as usize;

/// A set of events: bit `i` is event `i`.
/// A set of events, bit i for event i: the width of the enclosing
/// checker (`narrow` or `wide` in lib.rs).
pub type EventSet = super::EventSet;

#[inline]
pub fn bits(mut s: EventSet) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if s == 0 {
            None
        } else {
            let i = s.trailing_zeros() as usize;
            s &= s - 1;
            Some(i)
        }
    })
}

#[inline]
pub fn full_set(n: usize) -> EventSet {
    if n >= MAX_EVENTS {
        EventSet::MAX
    } else {
        ((1 as EventSet) << n) - 1
    }
}

/// `rows` has one word per event, `n` in all: a small test's relations are
/// a few words, copied and freed as such (a fixed array of MAX_EVENTS words
/// made every copy 512 bytes).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Relation {
    pub n: usize,
    pub rows: Vec<EventSet>,
}

impl Relation {
    pub fn empty(n: usize) -> Self {
        debug_assert!(n <= MAX_EVENTS);
        Relation { n, rows: vec![0; n] }
    }

    pub fn identity(n: usize) -> Self {
        Self::identity_on(n, full_set(n))
    }

    /// `[S]`: the identity restricted to the set `s`.
    pub fn identity_on(n: usize, s: EventSet) -> Self {
        let mut r = Self::empty(n);
        rows::identity_on(&mut r.rows, s & full_set(n));
        r
    }

    /// `S * T`: every pair from `s` to `t`.
    pub fn product(n: usize, s: EventSet, t: EventSet) -> Self {
        let mut r = Self::empty(n);
        rows::product(&mut r.rows, s, t & full_set(n));
        r
    }

    pub fn from_pairs(n: usize, pairs: &[(usize, usize)]) -> Self {
        let mut r = Self::empty(n);
        for &(a, b) in pairs {
            r.add(a, b);
        }
        r
    }

    #[inline]
    pub fn add(&mut self, a: usize, b: usize) {
        self.rows[a] |= (1 as EventSet) << b;
    }

    #[inline]
    pub fn contains(&self, a: usize, b: usize) -> bool {
        self.rows[a] >> b & 1 == 1
    }

    pub fn pairs(&self) -> Vec<(usize, usize)> {
        rows::pairs(&self.rows)
    }

    /// The first pair in row order, as `pairs().first()` without the list.
    pub fn first_pair(&self) -> Option<(usize, usize)> {
        rows::first_pair(&self.rows)
    }

    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|&r| r == 0)
    }

    pub fn union(&self, o: &Self) -> Self {
        let mut r = Self::empty(self.n);
        rows::union(&mut r.rows, &self.rows, &o.rows);
        r
    }

    pub fn inter(&self, o: &Self) -> Self {
        let mut r = Self::empty(self.n);
        rows::inter(&mut r.rows, &self.rows, &o.rows);
        r
    }

    pub fn diff(&self, o: &Self) -> Self {
        let mut r = Self::empty(self.n);
        rows::diff(&mut r.rows, &self.rows, &o.rows);
        r
    }

    /// `self ; o`: relational composition.
    pub fn seq(&self, o: &Self) -> Self {
        let mut r = Self::empty(self.n);
        rows::seq(&mut r.rows, &self.rows, &o.rows);
        r
    }

    /// `[s] ; self`: the rows of `self` whose event is in `s` (as `seq`
    /// with `identity_on(s)` first, without building the identity).
    pub fn restrict_domain(&self, s: EventSet) -> Self {
        let mut r = Self::empty(self.n);
        rows::restrict_domain(&mut r.rows, &self.rows, s);
        r
    }

    /// `self ; [s]`: the pairs of `self` that end in `s`.
    pub fn restrict_range(&self, s: EventSet) -> Self {
        let mut r = Self::empty(self.n);
        rows::restrict_range(&mut r.rows, &self.rows, s);
        r
    }

    pub fn inverse(&self) -> Self {
        let mut r = Self::empty(self.n);
        rows::inverse(&mut r.rows, &self.rows);
        r
    }

    /// `self+`: transitive closure (Warshall, one word per row).
    pub fn plus(&self) -> Self {
        let mut r = self.clone();
        rows::close(&mut r.rows);
        r
    }

    /// `self*`: reflexive transitive closure.
    pub fn star(&self) -> Self {
        self.plus().with_identity()
    }

    /// `self?`: reflexive closure.
    pub fn opt(&self) -> Self {
        self.clone().with_identity()
    }

    /// `self | id`, in place.
    fn with_identity(mut self) -> Self {
        rows::add_identity(&mut self.rows);
        self
    }

    pub fn domain(&self) -> EventSet {
        rows::domain(&self.rows)
    }

    pub fn range(&self) -> EventSet {
        rows::range(&self.rows)
    }

    pub fn is_irreflexive(&self) -> bool {
        (0..self.n).all(|i| self.rows[i] >> i & 1 == 0)
    }

    pub fn is_acyclic(&self) -> bool {
        self.plus().is_irreflexive()
    }

    /// The pairs `(i, i)` of a reflexive relation, or a cycle of an
    /// acyclicity violation, as a witness: events on some cycle.
    pub fn reflexive_points(&self) -> Vec<usize> {
        rows::reflexive_points(&self.rows)
    }
}

/// The operations on rows (one word per event, as `Relation::rows`),
/// written into `out`: the evaluator keeps every node's value in one buffer
/// and computes into it without allocating; `Relation`'s methods are these.
pub mod rows {
    use super::{bits, EventSet};

    pub fn union(out: &mut [EventSet], a: &[EventSet], b: &[EventSet]) {
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            *o = x | y;
        }
    }

    pub fn inter(out: &mut [EventSet], a: &[EventSet], b: &[EventSet]) {
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            *o = x & y;
        }
    }

    pub fn diff(out: &mut [EventSet], a: &[EventSet], b: &[EventSet]) {
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            *o = x & !y;
        }
    }

    /// `a ; b`: relational composition.
    pub fn seq(out: &mut [EventSet], a: &[EventSet], b: &[EventSet]) {
        for (o, &row) in out.iter_mut().zip(a) {
            let mut acc: EventSet = 0;
            for j in bits(row) {
                acc |= b[j];
            }
            *o = acc;
        }
    }

    /// `[s] ; a`: the rows of `a` whose event is in `s`.
    pub fn restrict_domain(out: &mut [EventSet], a: &[EventSet], s: EventSet) {
        for (i, (o, &x)) in out.iter_mut().zip(a).enumerate() {
            *o = if s >> i & 1 == 1 { x } else { 0 };
        }
    }

    /// `a ; [s]`: the pairs of `a` that end in `s`.
    pub fn restrict_range(out: &mut [EventSet], a: &[EventSet], s: EventSet) {
        for (o, &x) in out.iter_mut().zip(a) {
            *o = x & s;
        }
    }

    pub fn inverse(out: &mut [EventSet], a: &[EventSet]) {
        out.fill(0);
        for (i, &row) in a.iter().enumerate() {
            for j in bits(row) {
                out[j] |= (1 as EventSet) << i;
            }
        }
    }

    /// Transitive closure in place (Warshall, one word per row).
    pub fn close(r: &mut [EventSet]) {
        for k in 0..r.len() {
            let rk = r[k];
            if rk == 0 {
                continue;
            }
            let kb = (1 as EventSet) << k;
            for row in r.iter_mut() {
                if *row & kb != 0 {
                    *row |= rk;
                }
            }
        }
    }

    /// An event on a cycle of `r`, or None where `r` is acyclic. Events
    /// with no successor left are peeled off, highest first (events are
    /// numbered in program order, so most relations go in a pass or two);
    /// what stays has a successor each, and following successors for `n`
    /// steps from any of them ends on a cycle. The slow reference is the
    /// closure (`close`, then a reflexive point).
    pub fn on_cycle(r: &[EventSet]) -> Option<usize> {
        let mut alive: EventSet = super::full_set(r.len());
        loop {
            let before = alive;
            for i in (0..r.len()).rev() {
                if alive >> i & 1 == 1 && r[i] & alive == 0 {
                    alive &= !((1 as EventSet) << i);
                }
            }
            if alive == 0 {
                return None;
            }
            if alive == before {
                break;
            }
        }
        let mut x = alive.trailing_zeros() as usize;
        for _ in 0..r.len() {
            x = (r[x] & alive).trailing_zeros() as usize;
        }
        Some(x)
    }

    /// `r | id`, in place.
    pub fn add_identity(r: &mut [EventSet]) {
        for (i, row) in r.iter_mut().enumerate() {
            *row |= (1 as EventSet) << i;
        }
    }

    /// `[s]`: the identity restricted to `s`.
    pub fn identity_on(out: &mut [EventSet], s: EventSet) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = s & ((1 as EventSet) << i);
        }
    }

    /// `s * t`: every pair from `s` to `t`.
    pub fn product(out: &mut [EventSet], s: EventSet, t: EventSet) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = if s >> i & 1 == 1 { t } else { 0 };
        }
    }

    pub fn domain(a: &[EventSet]) -> EventSet {
        a.iter().enumerate().fold(0, |s, (i, &r)| if r != 0 { s | (1 as EventSet) << i } else { s })
    }

    pub fn range(a: &[EventSet]) -> EventSet {
        a.iter().fold(0, |s, &r| s | r)
    }

    /// The first pair in row order.
    pub fn first_pair(a: &[EventSet]) -> Option<(usize, usize)> {
        let i = a.iter().position(|&r| r != 0)?;
        Some((i, a[i].trailing_zeros() as usize))
    }

    /// The events `i` with `(i, i)` in `a`.
    pub fn reflexive_points(a: &[EventSet]) -> Vec<usize> {
        (0..a.len()).filter(|&i| a[i] >> i & 1 == 1).collect()
    }

    pub fn pairs(a: &[EventSet]) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for (i, &row) in a.iter().enumerate() {
            for j in bits(row) {
                v.push((i, j));
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slow reference for the closure: repeated squaring of pair sets.
    fn slow_plus(r: &Relation) -> Relation {
        let mut cur = r.clone();
        loop {
            let next = cur.union(&cur.seq(&cur));
            if next == cur {
                return cur;
            }
            cur = next;
        }
    }

    fn pseudo_random(n: usize, seed: u64, density: u64) -> Relation {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mut r = Relation::empty(n);
        for i in 0..n {
            for j in 0..n {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                if (x >> 33) % 100 < density {
                    r.add(i, j);
                }
            }
        }
        r
    }

    #[test]
    fn closure_matches_reference() {
        for seed in 0..200 {
            let n = 1 + (seed as usize % 64);
            let r = pseudo_random(n, seed, 3 + seed % 7);
            assert_eq!(r.plus(), slow_plus(&r), "seed {seed}");
        }
    }

    #[test]
    fn algebra_basics() {
        let r = Relation::from_pairs(4, &[(0, 1), (1, 2), (2, 3)]);
        assert!(r.is_acyclic());
        assert!(r.plus().contains(0, 3));
        assert_eq!(r.inverse().pairs(), vec![(1, 0), (2, 1), (3, 2)]);
        assert_eq!(r.seq(&r).pairs(), vec![(0, 2), (1, 3)]);
        let c = r.union(&Relation::from_pairs(4, &[(3, 0)]));
        assert!(!c.is_acyclic());
        assert!(c.is_irreflexive());
        assert_eq!(Relation::identity_on(4, 0b1010).pairs(), vec![(1, 1), (3, 3)]);
        assert_eq!(Relation::product(3, 0b001, 0b110).pairs(), vec![(0, 1), (0, 2)]);
        assert_eq!(r.domain(), 0b0111);
        assert_eq!(r.range(), 0b1110);
        assert!(r.diff(&r).is_empty());
        assert_eq!(r.first_pair(), r.pairs().first().copied());
        assert_eq!(r.diff(&r).first_pair(), None);
        assert_eq!(r.opt().pairs().len(), 7);
        assert_eq!(r.star().pairs().len(), 10);
    }

    #[test]
    fn restrictions_and_closures_match_their_definitions() {
        for seed in 0..100 {
            let n = 1 + (seed as usize % 64);
            let r = pseudo_random(n, seed, 5 + seed % 20);
            let s = pseudo_random(n, seed + 1000, 50).rows[0];
            let id = Relation::identity_on(n, s);
            assert_eq!(r.restrict_domain(s), id.seq(&r), "seed {seed}");
            assert_eq!(r.restrict_range(s), r.seq(&id), "seed {seed}");
            assert_eq!(r.opt(), r.union(&Relation::identity(n)), "seed {seed}");
            assert_eq!(r.star(), r.plus().union(&Relation::identity(n)), "seed {seed}");
        }
    }

    #[test]
    fn on_cycle_agrees_with_the_closure() {
        for seed in 0..400 {
            let n = 1 + (seed as usize % 64);
            // sparse to dense: acyclic and cyclic relations both
            let mut r = pseudo_random(n, seed, seed % 9);
            if seed % 3 == 0 {
                // forward edges alone (acyclic), with one back edge where seed % 2
                r = Relation { n, rows: r.rows.iter().enumerate().map(|(i, &x)| x & !full_set(i + 1)).collect() };
                if seed % 2 == 0 && n > 2 {
                    r.add(n - 1, n / 2);
                }
            }
            let closed = r.plus();
            match rows::on_cycle(&r.rows) {
                None => assert!(closed.is_irreflexive(), "seed {seed}: a cycle missed"),
                Some(x) => assert!(closed.contains(x, x), "seed {seed}: {x} is on no cycle"),
            }
        }
    }

    #[test]
    fn sixty_four_events() {
        let mut r = Relation::empty(64);
        for i in 0..63 {
            r.add(i, i + 1);
        }
        assert!(r.is_acyclic());
        assert!(r.plus().contains(0, 63));
        r.add(63, 0);
        assert!(!r.is_acyclic());
    }
}
