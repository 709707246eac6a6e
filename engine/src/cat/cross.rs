//! Choices built as a product, chosen as a tree. `with co from generate_cos(pco)` chooses
//! among every union of one order per location (`cross(S)`): for three writers of a lock
//! word and two of another location that is 453,600 coherence orders, and building each
//! one, sorting them and running the model on each took seconds per candidate, where nearly
//! all fail `empty rmw & (fre ; coe)` as soon as one location's order is known.
//!
//! So `cross-unions`, when its value is what a `with` chooses from (and only then: the
//! flag [`Env::lazy_cross`] is up while the `with`'s expression is evaluated), keeps its
//! parts: [`Value::Cross`]. The `with` then walks the product as a tree, one part per level,
//! in the order of the parts and of each part's members. At a node whose subtree has at
//! least [`prune::GROUP`] members, the model is run once with `x` bound to the pairs every
//! member of the subtree has (the node's chosen orders and what every member of each
//! remaining part shares); a check that only grows with `x` ([`prune`]) failing there
//! forbids the whole subtree: its first member is run alone (so the first forbidden
//! execution and its check are exact) and stands for the others ([`super::eval::Outcome::pruned`]). The
//! members are the same set, so the model's verdicts are those of the materialised set;
//! only the order in which they are run (and so which forbidden execution comes first) is
//! the tree's. Anything else that meets a `Value::Cross` materialises it ([`force`]).

use super::eval::Env;
use super::prune;
use super::rel::Rel;
use super::run::Branch;
use super::value::{canon, values, Value};
use super::CatError;

/// Every union `m0 | m1 | ... ` that takes one member from each part, each member a
/// relation over `n` events.
#[derive(Debug)]
pub struct Cross {
    pub(super) parts: Vec<Vec<Rel>>,
    pub(super) n: usize,
}

impl Cross {
    /// The parts of `cross-unions(S)` as a product when every member is a relation (a pair,
    /// or empty) and no two parts share a pair; `None` otherwise.
    pub(super) fn of(parts: &[Vec<Value>], n: usize) -> Option<Cross> {
        let mut out = Vec::with_capacity(parts.len());
        for p in parts {
            let mut rels = Vec::with_capacity(p.len());
            for v in p {
                rels.push(match v {
                    Value::Rel(r) => r.clone(),
                    Value::Empty => Rel::empty(n),
                    Value::Pair(a, b) => {
                        let mut r = Rel::empty(n);
                        r.add(*a, *b);
                        r
                    }
                    _ => return None,
                });
            }
            out.push(rels);
        }
        // Parts over disjoint pairs (one location each, one lock read each) make distinct
        // choices distinct unions, so the product is a set, as the materialised one is.
        let mut seen = Rel::empty(n);
        for p in &out {
            let support = p.iter().fold(Rel::empty(n), |a, r| union(&a, r));
            if !seen.zip(&support, |x, y| x & y).is_empty() {
                return None;
            }
            seen = union(&seen, &support);
        }
        Some(Cross { parts: out, n })
    }

    /// How many members: the product of the parts' sizes (saturating).
    pub(super) fn size(&self, from: usize) -> usize {
        self.parts[from..]
            .iter()
            .fold(1usize, |a, p| a.saturating_mul(p.len()))
    }
}

fn union(a: &Rel, b: &Rel) -> Rel {
    a.zip(b, |x, y| x | y)
}

/// The set the product stands for, sorted as every set of values is.
pub(super) fn force(c: &Cross) -> Value {
    let mut acc = vec![Rel::empty(c.n)];
    for p in &c.parts {
        let mut next = Vec::with_capacity(acc.len() * p.len());
        for a in &acc {
            for m in p {
                next.push(union(a, m));
            }
        }
        acc = next;
    }
    values(acc.into_iter().map(|r| canon(Value::Rel(r))).collect())
}

/// A [`Value::Cross`] materialised; any other value as it is.
pub(super) fn forced(v: Value) -> Value {
    match v {
        Value::Cross(c) => force(&c),
        v => v,
    }
}

/// What a `with x from <product>` needs to run the rest of the model at a leaf or a group.
pub(super) trait Rest {
    /// Runs the rest of the model with `x` bound to `choice`, pushing its branches.
    fn leaf(&mut self, choice: Value, results: &mut Vec<Branch>) -> Result<(), CatError>;
    /// Whether a check that only grows with `x` fails with `x` bound to `common`.
    fn fails_on_all(&mut self, common: Value) -> bool;
    fn env(&self) -> &Env;
    fn stopped(&self) -> bool;
}

/// Runs every member of `c` in tree order, pruning forbidden subtrees.
pub(super) fn run(
    c: &Cross,
    rest: &mut dyn Rest,
    results: &mut Vec<Branch>,
) -> Result<(), CatError> {
    // per level, the pairs every member of every part from that level on has
    let mut shared = vec![Rel::empty(c.n); c.parts.len() + 1];
    for i in (0..c.parts.len()).rev() {
        let mut all = c.parts[i]
            .first()
            .cloned()
            .unwrap_or_else(|| Rel::empty(c.n));
        for m in &c.parts[i][1..] {
            all = all.zip(m, |x, y| x & y);
        }
        shared[i] = union(&shared[i + 1], &all);
    }
    if c.parts.iter().any(|p| p.is_empty()) {
        return Ok(());
    }
    let walk = Walk { c, shared: &shared };
    walk.node(rest, 0, &Rel::empty(c.n), results)
}

struct Walk<'a> {
    c: &'a Cross,
    shared: &'a [Rel],
}

impl Walk<'_> {
    fn node(
        &self,
        rest: &mut dyn Rest,
        level: usize,
        chosen: &Rel,
        results: &mut Vec<Branch>,
    ) -> Result<(), CatError> {
        if rest.stopped() {
            return Err(CatError::at(0, STOPPED));
        }
        if level == self.c.parts.len() {
            return rest.leaf(canon(Value::Rel(chosen.clone())), results);
        }
        self.range(rest, level, (0, self.c.parts[level].len()), chosen, results)
    }

    /// The members of part `level` from `lo` to `hi` (each with every member of the parts
    /// after it): first as one group, then halved, then one by one.
    fn range(
        &self,
        rest: &mut dyn Rest,
        level: usize,
        (lo, hi): (usize, usize),
        chosen: &Rel,
        results: &mut Vec<Branch>,
    ) -> Result<(), CatError> {
        let part = &self.c.parts[level][lo..hi];
        let size = part.len().saturating_mul(self.c.size(level + 1));
        if rest.env().prune && size >= prune::GROUP {
            let mut all = part[0].clone();
            for m in &part[1..] {
                all = all.zip(m, |x, y| x & y);
            }
            let common = union(&union(chosen, &all), &self.shared[level + 1]);
            if rest.fails_on_all(canon(Value::Rel(common))) {
                // the first member alone; it stands for the others
                let mut first = union(chosen, &part[0]);
                for p in &self.c.parts[level + 1..] {
                    first = union(&first, &p[0]);
                }
                let start = results.len();
                rest.leaf(canon(Value::Rel(first)), results)?;
                if let Some(b) = results.get_mut(start) {
                    b.0.pruned += (size - 1) as u64;
                }
                return Ok(());
            }
            if part.len() > 1 {
                let mid = lo + part.len() / 2;
                self.range(rest, level, (lo, mid), chosen, results)?;
                return self.range(rest, level, (mid, hi), chosen, results);
            }
        }
        for m in part {
            self.node(rest, level + 1, &union(chosen, m), results)?;
        }
        Ok(())
    }
}

/// The message of the error a stopped run ends with.
pub const STOPPED: &str = "stopped";

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(n: usize, pairs: &[(usize, usize)]) -> Rel {
        let mut r = Rel::empty(n);
        for &(a, b) in pairs {
            r.add(a, b);
        }
        r
    }

    #[test]
    fn the_product_forced_is_the_set_of_unions() {
        let n = 4;
        let parts = vec![
            vec![Value::Rel(rel(n, &[(0, 1)])), Value::Rel(rel(n, &[(1, 0)]))],
            vec![Value::Empty, Value::Rel(rel(n, &[(2, 3)]))],
        ];
        let c = Cross::of(&parts, n).unwrap();
        assert_eq!(c.size(0), 4);
        let Value::Values(vs) = force(&c) else {
            panic!()
        };
        assert_eq!(vs.len(), 4);
        assert!(Cross::of(&[vec![Value::Event(1)]], n).is_none());
        // overlapping parts could give one union twice: built as a set instead
        let overlap = [
            vec![Value::Pair(0, 1)],
            vec![Value::Pair(0, 1), Value::Empty],
        ];
        assert!(Cross::of(&overlap, n).is_none());
    }
}
