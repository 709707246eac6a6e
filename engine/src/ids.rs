//! Typed indices: a number that names one kind of thing, so that a position cannot be passed
//! where another kind of position is meant and "none" is an `Option`, not a sentinel value.

use std::fmt;

/// An event's position in its trace ([`crate::mcr::trace::Trace::events`]): what targets,
/// answers, seeds and the causal model speak of. A trace is far shorter than `u32::MAX` events
/// (the loop bound and the step limit bound it), so it is stored in 32 bits, as the causal
/// search's packed arrays store it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventId(u32);

impl EventId {
    /// The event at position `i` of its trace.
    pub fn new(i: usize) -> EventId {
        EventId(u32::try_from(i).expect("a trace has fewer than 2^32 events"))
    }

    /// The position, to index the trace's events and per-event arrays.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e{}", self.0)
    }
}

/// Per-event arrays (the trace's events, and what the analyses record per event) are indexed
/// by [`EventId`] directly, without `.index()` at every use.
impl<T> std::ops::Index<EventId> for [T] {
    type Output = T;
    fn index(&self, id: EventId) -> &T {
        &self[id.index()]
    }
}

impl<T> std::ops::IndexMut<EventId> for [T] {
    fn index_mut(&mut self, id: EventId) -> &mut T {
        &mut self[id.index()]
    }
}

impl<T> std::ops::Index<EventId> for Vec<T> {
    type Output = T;
    fn index(&self, id: EventId) -> &T {
        &self[id.index()]
    }
}

impl<T> std::ops::IndexMut<EventId> for Vec<T> {
    fn index_mut(&mut self, id: EventId) -> &mut T {
        &mut self[id.index()]
    }
}
