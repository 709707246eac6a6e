//! Sets of events and binary relations over at most [`MAX_EVENTS`] events, as bit sets: a
//! set is one `u128`, a relation one `u128` row per event (row `a` holds the `b` with `a r b`).

/// The most events one candidate execution may have.
pub const MAX_EVENTS: usize = 128;

pub type Set = u128;

/// Iterates the members of a set in increasing order.
pub fn members(mut s: Set) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if s == 0 {
            return None;
        }
        let i = s.trailing_zeros() as usize;
        s &= s - 1;
        Some(i)
    })
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rel {
    pub rows: Vec<Set>,
}

impl Rel {
    pub fn empty(n: usize) -> Rel {
        Rel { rows: vec![0; n] }
    }
    pub fn n(&self) -> usize {
        self.rows.len()
    }
    pub fn add(&mut self, a: usize, b: usize) {
        self.rows[a] |= 1 << b;
    }
    pub fn has(&self, a: usize, b: usize) -> bool {
        self.rows[a] >> b & 1 == 1
    }
    pub fn identity(s: Set, n: usize) -> Rel {
        let mut r = Rel::empty(n);
        for i in members(s) {
            r.add(i, i);
        }
        r
    }
    pub fn cartesian(a: Set, b: Set, n: usize) -> Rel {
        let mut r = Rel::empty(n);
        for i in members(a) {
            r.rows[i] = b;
        }
        r
    }
    pub fn zip(&self, o: &Rel, f: impl Fn(Set, Set) -> Set) -> Rel {
        Rel {
            rows: self
                .rows
                .iter()
                .zip(&o.rows)
                .map(|(a, b)| f(*a, *b))
                .collect(),
        }
    }
    pub fn seq(&self, o: &Rel) -> Rel {
        let rows = self
            .rows
            .iter()
            .map(|&row| members(row).fold(0, |acc, m| acc | o.rows[m]))
            .collect();
        Rel { rows }
    }
    pub fn inverse(&self) -> Rel {
        let mut r = Rel::empty(self.n());
        for (a, &row) in self.rows.iter().enumerate() {
            for b in members(row) {
                r.add(b, a);
            }
        }
        r
    }
    /// Transitive closure (Warshall).
    pub fn plus(&self) -> Rel {
        let mut r = self.clone();
        for k in 0..r.n() {
            let rk = r.rows[k];
            for i in 0..r.n() {
                if r.rows[i] >> k & 1 == 1 {
                    r.rows[i] |= rk;
                }
            }
        }
        r
    }
    pub fn with_identity(&self) -> Rel {
        let mut r = self.clone();
        for i in 0..r.n() {
            r.add(i, i);
        }
        r
    }
    pub fn domain(&self) -> Set {
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| **r != 0)
            .fold(0, |acc, (i, _)| acc | 1 << i)
    }
    pub fn range(&self) -> Set {
        self.rows.iter().fold(0, |acc, r| acc | r)
    }
    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|r| *r == 0)
    }
    pub fn irreflexive(&self) -> Option<usize> {
        (0..self.n()).find(|&i| self.has(i, i))
    }
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for (a, &row) in self.rows.iter().enumerate() {
            v.extend(members(row).map(|b| (a, b)));
        }
        v
    }
    /// A cycle of the relation (its events in order, the first not repeated), if it has one.
    pub fn cycle(&self) -> Option<Vec<usize>> {
        // Depth-first search with colours; returns the first cycle found.
        let n = self.n();
        let mut colour = vec![0u8; n];
        let mut stack: Vec<(usize, Set)> = Vec::new();
        for start in 0..n {
            if colour[start] != 0 {
                continue;
            }
            colour[start] = 1;
            stack.push((start, self.rows[start]));
            while let Some(top) = stack.last_mut() {
                if top.1 == 0 {
                    colour[top.0] = 2;
                    stack.pop();
                    continue;
                }
                let next = top.1.trailing_zeros() as usize;
                top.1 &= top.1 - 1;
                match colour[next] {
                    0 => {
                        colour[next] = 1;
                        stack.push((next, self.rows[next]));
                    }
                    1 => {
                        let pos = stack.iter().position(|(e, _)| *e == next).unwrap_or(0);
                        return Some(stack[pos..].iter().map(|(e, _)| *e).collect());
                    }
                    _ => {}
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closure_and_cycle() {
        let mut r = Rel::empty(4);
        r.add(0, 1);
        r.add(1, 2);
        assert!(r.plus().has(0, 2));
        assert_eq!(r.cycle(), None);
        r.add(2, 0);
        assert_eq!(r.cycle(), Some(vec![0, 1, 2]));
        assert_eq!(r.plus().irreflexive(), Some(0));
        assert_eq!(r.inverse().pairs(), vec![(0, 2), (1, 0), (2, 1)]);
    }
}
