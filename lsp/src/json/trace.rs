//! The language server's step-by-step shapes: the `litmus/trace` reply ([`Trace`]) and the
//! `litmus.showSchedule` schedule ([`Schedule`]), documented in `docs/design/lsp.md`. Every
//! step carries its text as the server renders it (`label`, the sentence; `cell`, the short
//! form for its thread's column): clients show these strings and render no step themselves.
//! The structured fields of a row (`action`, `loc`, `value`, `buffered`, `text`) stay for
//! clients written against the first version of the reply.
//!
//! The server fills these types (`server::trace`, `server::to_proto`) with LSP ranges.

use litmus_engine::graph::NodeKind;
use litmus_engine::report::Action;
use serde::Serialize;
use tower_lsp_server::ls_types::Range;

/// `litmus.showSchedule`'s answer: `{title, model, kind, steps: [{label, location}]}`.
#[derive(Serialize)]
pub struct Schedule {
    pub title: String,
    pub model: &'static str,
    pub kind: &'static str,
    pub steps: Vec<ScheduleStep>,
}

#[derive(Serialize)]
pub struct ScheduleStep {
    pub label: String,
    pub location: Location,
}

#[derive(Serialize)]
pub struct Location {
    pub uri: String,
    pub range: Range,
}

/// `litmus/trace`'s answer.
#[derive(Serialize)]
pub struct Trace {
    pub uri: String,
    pub test: String,
    pub model: &'static str,
    pub index: usize,
    pub kind: String,
    pub title: String,
    pub message: String,
    pub range: Range,
    pub choices: Vec<Choice>,
    pub threads: Vec<String>,
    pub locations: Vec<String>,
    pub initial: Snapshot,
    pub rows: Vec<Row>,
    pub end: End,
    pub graph: Graph,
}

/// Another finding the view can switch to.
#[derive(Serialize)]
pub struct Choice {
    pub model: &'static str,
    pub index: usize,
    pub kind: String,
    pub title: String,
}

/// Memory, buffers and registers before the first step or after one.
#[derive(Serialize)]
pub struct Snapshot {
    pub memory: Vec<(String, i64)>,
    /// Per thread, the stores still buffered, oldest first (PSO: by location).
    pub buffers: Vec<Vec<Pending>>,
    /// Per thread, `[reg, value]`.
    pub registers: Vec<Vec<(String, i64)>>,
}

#[derive(Serialize)]
pub struct Pending {
    pub loc: String,
    pub value: i64,
    pub range: Range,
}

/// One step.
#[derive(Serialize)]
pub struct Row {
    pub thread: usize,
    pub action: Action,
    pub loc: Option<String>,
    pub value: Option<i64>,
    pub buffered: bool,
    /// The step as a sentence (`P1 reads x = 0 from memory (P0's store x = 1 still buffered)`).
    pub label: String,
    /// The step in its thread's column (`read x = 0`, `x = 1 → buffer`, `lock m`).
    pub cell: String,
    /// The instruction's source text on one line.
    pub text: String,
    pub range: Range,
    pub after: Snapshot,
}

/// How the schedule ends: `{end: "final", state}`, `{end: "violation", kind, message,
/// range}`, `{end: "blocked", reason, range}` or `{end: "running"}`.
#[derive(Serialize)]
#[serde(tag = "end", rename_all = "lowercase")]
pub enum End {
    Final {
        state: Vec<(String, i64)>,
    },
    Violation {
        kind: &'static str,
        message: String,
        range: Range,
    },
    Blocked {
        reason: String,
        range: Range,
    },
    Running,
}

/// The execution as a graph of events.
#[derive(Serialize)]
pub struct Graph {
    /// A deadlock's wait-for relation (empty otherwise).
    pub waits: Vec<Wait>,
    pub threads: Vec<String>,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

#[derive(Serialize)]
pub struct Node {
    pub id: usize,
    pub name: String,
    pub kind: NodeKind,
    pub thread: Option<usize>,
    pub loc: Option<String>,
    pub value: Option<i64>,
    pub label: String,
    pub pending: bool,
    pub step: Option<usize>,
    pub range: Option<Range>,
}

#[derive(Serialize)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub kind: &'static str,
    /// On a cycle of the graph (what SC has no execution with).
    pub explains: bool,
}

/// `thread` waits for `mutex` (`waits: "mutex"`) held by `holder` since its `lock` node, or at
/// an `await` (`waits: "await"`).
#[derive(Serialize)]
pub struct Wait {
    pub thread: usize,
    pub waits: &'static str,
    pub mutex: Option<String>,
    pub holder: Option<usize>,
    pub lock: Option<usize>,
}
