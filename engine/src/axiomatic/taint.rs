//! What a value depends on: the reads of its path it was computed from.
//!
//! The Arm ARM distinguishes two ways a read reaches a later value. Through registers and
//! memory (an instruction's inputs to its outputs, a store to the load of the same address
//! after it with no store between: the Arm ARM's "dependency through registers and memory")
//! it is a *basic* dependency, and `addr`, `data` and `ctrl` are made of those. Through the
//! condition of an instruction that *picks* one of its inputs (`CSEL` and its kin choosing a
//! register by the flags, `CAS` writing or not by its comparison) it is only a *pick*
//! dependency, which orders less (the Arm ARM's pick-ordered-before: writes, and accesses
//! after an `ISB`). `pick` is a superset of `basic`.

use crate::cat::rel::Set;
use std::ops::{BitOr, BitOrAssign};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Taint {
    /// Reads reaching the value through registers and memory.
    pub basic: Set,
    /// Reads reaching it through those and through picks.
    pub pick: Set,
}

impl Taint {
    pub const NONE: Taint = Taint { basic: 0, pick: 0 };

    /// The value read by event `i` of the path.
    pub fn read(i: usize) -> Taint {
        Taint {
            basic: 1 << i,
            pick: 1 << i,
        }
    }

    /// The same reads, reaching through a pick only (a condition that chooses).
    pub fn picked(self) -> Taint {
        Taint {
            basic: 0,
            pick: self.pick,
        }
    }
}

impl BitOr for Taint {
    type Output = Taint;
    fn bitor(self, o: Taint) -> Taint {
        Taint {
            basic: self.basic | o.basic,
            pick: self.pick | o.pick,
        }
    }
}

impl BitOrAssign for Taint {
    fn bitor_assign(&mut self, o: Taint) {
        *self = *self | o;
    }
}
