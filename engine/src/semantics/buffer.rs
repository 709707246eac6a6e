//! Store buffers: FIFOs of buffered stores, persistent so that a state is cheap to copy.
//!
//! An explorer keeps many states that differ by a step or two (DPOR the states along its path,
//! the reference explorer its visited set, MCR the state before each choice), and a store
//! buffer grows by one entry per store a thread issues before flushing: `while (1) { x = 1; }`
//! under TSO has a buffer of `i` entries at iteration `i`. With a plain `VecDeque` every copy
//! of a state copied its buffers and every hash read them whole, so time and memory were
//! quadratic in the loop bound. A [`Buffer`] is an `imbl::Vector` (an RRB tree whose nodes are
//! shared between copies: clone O(1), push at the back and pop at the front amortised O(1),
//! copying only the chunk of 64 slots it changes; the slots hold `Arc`s of the entries, so
//! that chunk is 512 bytes) together with a digest of its `(cell, value)` sequence kept up to
//! date by each push and pop, so hashing a buffer is O(1) too.
//!
//! The digest is a polynomial hash of the sequence in two independent lanes modulo the
//! Mersenne prime 2^61 - 1: for entries `x_0 .. x_{k-1}` (oldest first) it is
//! `sum x_i * r^(k-1-i)`. A push multiplies by `r` and adds; a pop subtracts the oldest
//! entry's term. It depends only on the sequence, never on the history that built it, so equal
//! buffers hash alike; two different sequences of length `k` share a lane's digest with
//! probability at most `k / 2^61` (the lanes are independent).

use super::WriteId;
use crate::span::Span;
use std::sync::Arc;

/// A buffered store.
#[derive(Clone, Debug)]
pub struct BufEntry {
    pub cell: u32,
    pub value: i64,
    pub write: WriteId,
    pub span: Span,
    pub po: u32,
}

/// One FIFO store buffer: oldest entry at the front.
#[derive(Clone, Debug, Default)]
pub struct Buffer {
    /// Each entry behind an `Arc`, so that the chunk a step copies holds pointers, not entries.
    entries: imbl::Vector<Arc<BufEntry>>,
    /// The digest of the `(cell, value)` sequence, one value per lane (module doc).
    digest: [u64; 2],
}

const P: u64 = (1 << 61) - 1;
/// Each lane's base `r` and the key its entries are mixed with.
const LANES: [(u64, u64); 2] = [
    (0x0a3b_1c5d_7e9f_2468 % P, 0x9e37_79b9_7f4a_7c15),
    (0x1f2e_3d4c_5b6a_7988 % P, 0xc2b2_ae3d_27d4_eb4f),
];

fn mul(a: u64, b: u64) -> u64 {
    let x = a as u128 * b as u128;
    let s = (x as u64 & P) + (x >> 61) as u64;
    let s = if s >= P { s - P } else { s };
    if s >= P {
        s - P
    } else {
        s
    }
}

fn add(a: u64, b: u64) -> u64 {
    let s = a + b;
    if s >= P {
        s - P
    } else {
        s
    }
}

fn pow(mut b: u64, mut e: u64) -> u64 {
    let mut r = 1;
    while e > 0 {
        if e & 1 == 1 {
            r = mul(r, b);
        }
        b = mul(b, b);
        e >>= 1;
    }
    r
}

/// An entry's term in lane `lane`: `(cell, value)` mixed (splitmix64's finaliser) into
/// `[0, P)`.
fn term(e: &BufEntry, lane: usize) -> u64 {
    let mut z = (e.value as u64) ^ (e.cell as u64).rotate_left(32) ^ LANES[lane].1;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= (z >> 31) ^ (e.cell as u64);
    z % P
}

impl Buffer {
    pub fn new() -> Buffer {
        Buffer::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The oldest entry.
    pub fn front(&self) -> Option<&BufEntry> {
        self.entries.front().map(|e| &**e)
    }

    /// The entries, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &BufEntry> + ExactSizeIterator {
        self.entries.iter().map(|e| &**e)
    }

    pub fn push_back(&mut self, e: BufEntry) {
        for (lane, d) in self.digest.iter_mut().enumerate() {
            *d = add(mul(*d, LANES[lane].0), term(&e, lane));
        }
        self.entries.push_back(Arc::new(e));
    }

    pub fn pop_front(&mut self) -> Option<BufEntry> {
        let k = self.entries.len() as u64;
        let e = Arc::unwrap_or_clone(self.entries.pop_front()?);
        for (lane, d) in self.digest.iter_mut().enumerate() {
            let t = mul(term(&e, lane), pow(LANES[lane].0, k - 1));
            *d = add(*d, P - t);
        }
        Some(e)
    }

    /// The digest of the `(cell, value)` sequence (equal sequences, equal digests).
    pub fn digest(&self) -> [u64; 2] {
        self.digest
    }

    /// Whether both hold the same `(cell, value)` sequence (write identities, spans and
    /// program-order indices aside).
    pub fn same_stores(&self, o: &Buffer) -> bool {
        self.len() == o.len()
            && self.digest == o.digest
            && self
                .iter()
                .zip(o.iter())
                .all(|(e, f)| e.cell == f.cell && e.value == f.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(cell: u32, value: i64) -> BufEntry {
        BufEntry {
            cell,
            value,
            write: WriteId::Init(cell),
            span: Span::default(),
            po: 0,
        }
    }

    #[test]
    fn the_digest_depends_on_the_sequence_only() {
        // [1, 2, 3] built directly, and by pushing 0, 1, 2, 3 and popping the 0.
        let mut a = Buffer::new();
        for v in [1, 2, 3] {
            a.push_back(entry(0, v));
        }
        let mut b = Buffer::new();
        for v in [0, 1, 2, 3] {
            b.push_back(entry(0, v));
        }
        let copy = b.clone();
        assert_eq!(b.pop_front().map(|e| e.value), Some(0));
        assert!(a.same_stores(&b) && a.digest() == b.digest());
        // The copy taken before the pop is unchanged.
        assert_eq!(copy.len(), 4);
        assert_eq!(
            copy.iter().map(|e| e.value).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        // Order, cell and value all count.
        let mut c = Buffer::new();
        for v in [2, 1, 3] {
            c.push_back(entry(0, v));
        }
        let mut d = Buffer::new();
        for (cell, v) in [(1, 1), (0, 2), (0, 3)] {
            d.push_back(entry(cell, v));
        }
        assert!(!a.same_stores(&c) && a.digest() != c.digest());
        assert!(!a.same_stores(&d) && a.digest() != d.digest());
        // Emptied, it is the empty buffer.
        while b.pop_front().is_some() {}
        assert_eq!(b.digest(), Buffer::new().digest());
    }
}
