//! An execution as a graph of events, in herd's and GenMC's vocabulary, and its Graphviz `dot`.
//!
//! Nodes are the memory events of the execution: each load is a read `R`, each store a write
//! `W`, a writing RMW a read and a write joined by an `rmw` edge (a failed `cas` only reads),
//! fences `F`, `lock`/`unlock` `L`/`U`; and, as herd draws them, one initial write per location
//! the execution touches (`Wx=0`, no thread). Register-only steps, branches and checks are not
//! events, nor is an access that faulted (an index out of bounds). A flush is not an event either: it decides where its store sits in coherence.
//!
//! Edges:
//! - `po`, program order: between consecutive events of a thread;
//! - `rf`, reads-from: from the write a read took its value from (the initial write, another
//!   thread's store once in memory, or the thread's own store forwarded from its buffer);
//! - `co`, coherence: per location, the order writes reached memory (the initial write first;
//!   under SC a store reaches memory when it runs, under TSO/PSO when it is flushed, an RMW when
//!   it runs), drawn between consecutive writes as herd does;
//! - `fr`, from-read (`rf⁻¹;co`): from a read to every write coherence-after the one it read;
//! - `rmw`: from the read to the write of one atomic update.
//!
//! A write still in a buffer when the schedule ends (an execution stopped by a violation) has
//! no place in coherence yet: it is `pending` and has no `co` or `fr` edge.

use crate::ir::Program;
use crate::report::Action;
use crate::semantics::{event_loc, Event, WriteId};
use crate::span::Span;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// The initial write of a location.
    Init,
    Read,
    Write,
    Fence,
    Lock,
    Unlock,
}

/// One event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Node {
    /// Position in [`Graph::nodes`].
    pub id: usize,
    /// herd's letter for thread events (`a`, `b`, ..., `z`, `aa`, ...), thread by thread in
    /// program order as herd names them; empty for initial writes.
    pub name: String,
    pub kind: NodeKind,
    /// `None` for initial writes.
    pub thread: Option<usize>,
    /// The location (or, for lock/unlock, the mutex).
    pub loc: Option<String>,
    pub value: Option<i64>,
    /// The instruction (none for initial writes).
    pub span: Option<Span>,
    /// Index of the schedule step that ran it.
    pub step: Option<usize>,
    /// A write still buffered when the schedule ends (not in coherence yet).
    pub pending: bool,
    /// herd's label: `Wx=1`, `Ry=0`, `F`; a mutex's `lock m`, `unlock m` (as the trace's table
    /// words them).
    pub label: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeKind {
    Po,
    Rf,
    Co,
    Fr,
    Rmw,
}

impl EdgeKind {
    pub fn key(self) -> &'static str {
        match self {
            EdgeKind::Po => "po",
            EdgeKind::Rf => "rf",
            EdgeKind::Co => "co",
            EdgeKind::Fr => "fr",
            EdgeKind::Rmw => "rmw",
        }
    }
    /// herd's colours: po black, rf red, co blue, fr orange; rmw purple.
    pub fn colour(self) -> &'static str {
        match self {
            EdgeKind::Po => "black",
            EdgeKind::Rf => "red",
            EdgeKind::Co => "blue",
            EdgeKind::Fr => "darkorange",
            EdgeKind::Rmw => "purple",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub kind: EdgeKind,
}

/// The execution graph of one schedule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Graph {
    /// Initial writes first (by location), then thread events in execution order.
    pub nodes: Vec<Node>,
    /// In a fixed order: po, rmw, rf, co, fr, each by source then target.
    pub edges: Vec<Edge>,
    /// Thread names (the clusters).
    pub threads: Vec<String>,
}

/// herd's event names: `a`..`z`, then `aa`, `ab`, ...
fn letter(mut i: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (i % 26) as u8);
        if i < 26 {
            break;
        }
        i = i / 26 - 1;
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// The graph of the execution whose replayed events are `events` (in schedule order).
pub fn build(p: &Program, events: &[Event]) -> Graph {
    let mut g = Graph {
        threads: p.threads.iter().map(|t| t.name.clone()).collect(),
        ..Graph::default()
    };
    // Initial writes of every location a read or write touches, in declaration order.
    let mut cells: Vec<u32> = events
        .iter()
        .filter(|e| matches!(e.action, Action::Load | Action::Store | Action::Rmw))
        .filter_map(|e| e.cell)
        .collect();
    cells.sort_unstable();
    cells.dedup();
    let mut writes: BTreeMap<WriteId, usize> = BTreeMap::new();
    let mut co: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for &c in &cells {
        let id = g.nodes.len();
        let loc = p.cells.get(c as usize).cloned().unwrap_or_default();
        let v = p.init.get(c as usize).copied().unwrap_or(0);
        g.nodes.push(Node {
            id,
            name: String::new(),
            kind: NodeKind::Init,
            thread: None,
            label: format!("W{loc}={v}"),
            loc: Some(loc),
            value: Some(v),
            span: None,
            step: None,
            pending: false,
        });
        writes.insert(WriteId::Init(c), id);
        co.insert(c, vec![id]);
    }
    let mut reads: Vec<(usize, WriteId, Option<u32>)> = Vec::new();
    let mut last_of_thread: BTreeMap<usize, usize> = BTreeMap::new();
    let mut edges: Vec<Edge> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if e.action == Action::Flush {
            if let (Some(w), Some(c)) = (e.write, e.cell) {
                if let Some(&n) = writes.get(&w) {
                    g.nodes[n].pending = false;
                    co.entry(c).or_default().push(n);
                }
            }
            continue;
        }
        if matches!(e.action, Action::Load | Action::Store | Action::Rmw) && e.cell.is_none() {
            // The access faulted (an index out of bounds): it touched no memory.
            continue;
        }
        let loc = event_loc(p, e);
        let push = |g: &mut Graph, kind: NodeKind, value: Option<i64>| {
            let id = g.nodes.len();
            let l = loc.clone().unwrap_or_default();
            let label = match (kind, value) {
                (NodeKind::Read, Some(v)) => format!("R{l}={v}"),
                (NodeKind::Write, Some(v)) => format!("W{l}={v}"),
                (NodeKind::Fence, _) => "F".into(),
                (NodeKind::Lock, _) => format!("lock {l}"),
                (NodeKind::Unlock, _) => format!("unlock {l}"),
                _ => l.clone(),
            };
            g.nodes.push(Node {
                id,
                name: String::new(),
                kind,
                thread: Some(e.thread),
                loc: loc.clone(),
                value,
                span: Some(e.span),
                step: Some(i),
                pending: false,
                label,
            });
            id
        };
        let first;
        let last;
        match e.action {
            Action::Load => {
                let n = push(&mut g, NodeKind::Read, e.value);
                if let Some(w) = e.read_from {
                    reads.push((n, w, e.cell));
                }
                (first, last) = (n, n);
            }
            Action::Store => {
                let n = push(&mut g, NodeKind::Write, e.value);
                if let Some(w) = e.write {
                    writes.insert(w, n);
                }
                if let Some(c) = e.cell {
                    if e.buffered {
                        g.nodes[n].pending = true;
                    } else {
                        co.entry(c).or_default().push(n);
                    }
                }
                (first, last) = (n, n);
            }
            Action::Rmw => {
                let r = push(&mut g, NodeKind::Read, e.value);
                if let Some(w) = e.read_from {
                    reads.push((r, w, e.cell));
                }
                let mut end = r;
                if let (Some(v), Some(w), Some(c)) = (e.stored, e.write, e.cell) {
                    let n = push(&mut g, NodeKind::Write, Some(v));
                    writes.insert(w, n);
                    co.entry(c).or_default().push(n);
                    edges.push(Edge {
                        from: r,
                        to: n,
                        kind: EdgeKind::Rmw,
                    });
                    end = n;
                }
                (first, last) = (r, end);
            }
            Action::Fence => {
                let n = push(&mut g, NodeKind::Fence, None);
                (first, last) = (n, n);
            }
            Action::Lock => {
                let n = push(&mut g, NodeKind::Lock, None);
                (first, last) = (n, n);
            }
            Action::Unlock => {
                let n = push(&mut g, NodeKind::Unlock, None);
                (first, last) = (n, n);
            }
            _ => continue,
        }
        if let Some(prev) = last_of_thread.insert(e.thread, last) {
            edges.push(Edge {
                from: prev,
                to: first,
                kind: EdgeKind::Po,
            });
        }
    }
    for &(r, w, cell) in &reads {
        if let Some(&src) = writes.get(&w) {
            edges.push(Edge {
                from: src,
                to: r,
                kind: EdgeKind::Rf,
            });
            if let Some(order) = cell.and_then(|c| co.get(&c)) {
                if let Some(k) = order.iter().position(|&n| n == src) {
                    for &later in &order[k + 1..] {
                        edges.push(Edge {
                            from: r,
                            to: later,
                            kind: EdgeKind::Fr,
                        });
                    }
                }
            }
        }
    }
    for order in co.values() {
        for pair in order.windows(2) {
            edges.push(Edge {
                from: pair[0],
                to: pair[1],
                kind: EdgeKind::Co,
            });
        }
    }
    // herd names events thread by thread, each in program order.
    let mut order: Vec<usize> = (0..g.nodes.len())
        .filter(|&i| g.nodes[i].thread.is_some())
        .collect();
    order.sort_by_key(|&i| (g.nodes[i].thread, g.nodes[i].step, i));
    for (k, i) in order.into_iter().enumerate() {
        g.nodes[i].name = letter(k);
    }
    edges.sort_by_key(|e| (e.kind, e.from, e.to));
    edges.dedup();
    g.edges = edges;
    g
}

impl Graph {
    /// The edges of one kind as `(from label, to label)` pairs, for tests and plain views.
    pub fn edges_of(&self, kind: EdgeKind) -> Vec<(String, String)> {
        self.edges
            .iter()
            .filter(|e| e.kind == kind)
            .map(|e| {
                (
                    self.nodes[e.from].label.clone(),
                    self.nodes[e.to].label.clone(),
                )
            })
            .collect()
    }
}

fn quote(s: &str) -> String {
    let mut q = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// The graph as a Graphviz digraph named `name`, captioned `title`: initial writes in a top
/// row, one cluster per thread with its events in program order, edges labelled and coloured
/// by kind (herd's colours).
pub fn to_dot(g: &Graph, name: &str, title: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(name));
    let _ = writeln!(out, "  label={};", quote(title));
    out.push_str("  labelloc=t;\n  rankdir=TB;\n");
    out.push_str("  node [shape=plaintext, fontname=\"monospace\"];\n");
    out.push_str("  edge [fontname=\"monospace\", fontsize=10];\n");
    let inits: Vec<&Node> = g
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Init)
        .collect();
    if !inits.is_empty() {
        out.push_str("  {\n    rank=min;\n");
        for n in &inits {
            let _ = writeln!(out, "    n{} [label={}];", n.id, quote(&n.label));
        }
        out.push_str("  }\n");
    }
    for (t, name) in g.threads.iter().enumerate() {
        let nodes: Vec<&Node> = g.nodes.iter().filter(|n| n.thread == Some(t)).collect();
        if nodes.is_empty() {
            continue;
        }
        let _ = writeln!(out, "  subgraph cluster_{t} {{");
        let _ = writeln!(out, "    label={};", quote(name));
        for n in nodes {
            let mut label = format!("{}: {}", n.name, n.label);
            if n.pending {
                label.push_str(" (buffered)");
            }
            let _ = writeln!(out, "    n{} [label={}];", n.id, quote(&label));
        }
        out.push_str("  }\n");
    }
    for e in &g.edges {
        let c = e.kind.colour();
        let _ = writeln!(
            out,
            "  n{} -> n{} [label={}, color={c}, fontcolor={c}{}];",
            e.from,
            e.to,
            quote(e.kind.key()),
            // Only po pulls events into place (weight 0: the other edges only order ranks;
            // `constraint=false` with clusters trips Graphviz's "trouble in init_rank").
            if e.kind == EdgeKind::Po {
                ""
            } else {
                ", weight=0"
            }
        );
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_follow_herd() {
        let l: Vec<String> = [0, 1, 25, 26, 27, 51, 52, 701, 702]
            .iter()
            .map(|&i| letter(i))
            .collect();
        assert_eq!(l, ["a", "b", "z", "aa", "ab", "az", "ba", "zz", "aaa"]);
    }

    #[test]
    fn dot_quotes_names() {
        let g = Graph {
            threads: vec!["P0".into()],
            ..Graph::default()
        };
        let d = to_dot(&g, "a \"b\"\\", "t");
        assert!(d.starts_with("digraph \"a \\\"b\\\"\\\\\" {\n"), "{d}");
        assert!(d.ends_with("}\n"));
    }
}
