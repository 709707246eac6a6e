//! The schedules of a breadth-first search over states: each visited state's incoming edge (its
//! parent and the event that led there), from which the path to any state is read back. The
//! reference explorer and the robustness attack search both keep one.

use crate::semantics::Event;

/// A visited state's incoming edge: its parent node and the event that led here. `parent` is
/// `None` for a successor of the initial state.
struct Node {
    parent: Option<usize>,
    event: Event,
}

/// The parent-pointer tree of events of a breadth-first search; a node is a `usize` id, and
/// `None` stands for the initial state.
#[derive(Default)]
pub(crate) struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    /// Adds the edge `parent --event-->` to a new node; its id.
    pub(crate) fn push(&mut self, parent: Option<usize>, event: Event) -> Option<usize> {
        self.nodes.push(Node { parent, event });
        Some(self.nodes.len() - 1)
    }

    /// The events from the initial state to node `id` (empty for the initial state itself).
    pub(crate) fn path(&self, mut id: Option<usize>) -> Vec<Event> {
        let mut out = Vec::new();
        while let Some(i) = id {
            out.push(self.nodes[i].event.clone());
            id = self.nodes[i].parent;
        }
        out.reverse();
        out
    }
}
