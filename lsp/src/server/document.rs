//! One open document: its text (a rope), version, syntax tree, AST, syntax diagnostics, program
//! tokens, and the verification results currently shown for it.
//!
//! Edits are applied synchronously in the order the handlers run them (never across an
//! `.await`), each followed by an incremental tree-sitter reparse: the previous tree is edited
//! with the same change, then handed to the parser. A long text is parsed off the main loop
//! instead ([`Deferred`]), with a stop flag the next edit, a close or shutdown sets.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ropey::Rope;
use tower_lsp_server::ls_types::TextDocumentContentChangeEvent;

use litmus_engine::ast::Test;
use litmus_engine::report::Violation;
use litmus_engine::{Control, Diagnostic, Model, ModelReport, Span};

use super::engine::{Engine, ParseOut};
use super::position::{self, Encoding};
use super::tokens::TokenMap;

/// What is known of one model for the current text.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// A check is planned and waits for a worker (`maxJobs` are busy).
    Waiting,
    /// A check is running and has found no violation yet.
    Running,
    /// A check is running and has found these violations (each with the first schedule found),
    /// shown until the complete report replaces them.
    Exploring(Vec<Violation>),
    /// A report, its spans in the current text's coordinates. `fresh_condition` is false when
    /// the condition was re-evaluated from cached states (schedules for it are being redone).
    Done {
        report: Box<ModelReport>,
        fresh_condition: bool,
    },
    /// The check panicked: the message.
    Crashed(String),
    /// The check was cancelled (by the user, or a newer verification of the same program)
    /// before it finished: the violations it had found, kept and shown as incomplete.
    Cancelled(Vec<Violation>),
}

/// The exploration running for a document.
#[derive(Clone, Debug)]
pub struct Job {
    pub id: u64,
    pub control: Control,
    /// The `$/progress` token, once the client created it.
    pub token: Option<String>,
    /// It checks for every iteration (`server::unbounded`).
    pub unbounded: bool,
    /// The main loop, told of a cancel.
    pub tx: OnCancel,
}

/// What tells the main loop that a job was cancelled (so that it takes the job's models out of
/// the queue): given by the planner (`verify.rs`), so that the state knows no channel.
#[derive(Clone)]
pub struct OnCancel(pub Arc<dyn Fn(u64) + Send + Sync>);

impl std::fmt::Debug for OnCancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnCancel")
    }
}

impl Job {
    /// Stops the job: its checks at their next poll of the control, and (through the main
    /// loop) its models not started yet.
    pub fn cancel(&self) {
        self.control.cancel();
        (self.tx.0)(self.id);
    }
}

/// A model's report, with the unbounded answer when the job checked for every iteration.
/// (Boxed: the answer is large, and rare beside the report in the job's messages.)
pub type Checked = (
    ModelReport,
    Option<Box<litmus_engine::unbounded::Unbounded>>,
);

impl Outcome {
    /// The violations to show: of the complete report, or found so far by a running check.
    pub fn violations(&self) -> &[Violation] {
        match self {
            Outcome::Done { report, .. } => &report.violations,
            Outcome::Exploring(vs) | Outcome::Cancelled(vs) => vs,
            _ => &[],
        }
    }
    /// Whether a check for it is still to finish (waiting for a worker, or running).
    pub fn running(&self) -> bool {
        matches!(
            self,
            Outcome::Waiting | Outcome::Running | Outcome::Exploring(_)
        )
    }
}

pub struct Document {
    pub version: i32,
    pub rope: Rope,
    pub text: String,
    pub tree: Option<tree_sitter::Tree>,
    pub test: Option<Arc<Test>>,
    pub syntax: Vec<Diagnostic>,
    /// Program tokens of `text` (the verification cache key) and the condition's token text.
    pub tokens: TokenMap,
    pub cond_key: String,
    /// Verification results shown for the current text, per model.
    pub results: BTreeMap<Model, Outcome>,
    pub job: Option<Job>,
    /// Version of the last edit that changed the program tokens (for stale-result checks).
    pub program_version: i32,
    /// The stop flag of a parse running off the main loop for the current text, if any.
    pub parsing: Option<Arc<AtomicBool>>,
    /// The fence quick fix per relaxed model for the current text (`server::fences`): every
    /// change of the text drops them, cancelling a running one.
    pub fences: BTreeMap<Model, FenceFix>,
    /// The axiomatic check of an AArch64 or RISC-V test (`server::axiom`).
    pub axiom: Option<AxState>,
    /// The answers for every iteration of the models whose shown report an unbounded check
    /// made (`server::unbounded`); dropped with the results.
    pub unbounded: BTreeMap<Model, litmus_engine::unbounded::Unbounded>,
}

/// The axiomatic check of a document.
pub enum AxState {
    /// Waiting for a place in the queue or running; dropping it cancels the job.
    Running(AxJob),
    /// Its answer, for the program of `key`.
    Done {
        key: String,
        answer: std::result::Result<Arc<crate::json::axview::AxView>, super::engine::AxFail>,
    },
}

pub struct AxJob {
    pub id: u64,
    pub key: String,
    pub control: Control,
}

impl Drop for AxJob {
    fn drop(&mut self) {
        self.control.cancel();
    }
}

/// The fence quick fix's edits: (byte offset, inserted text), pure insertions.
pub type Insertions = Vec<(usize, String)>;

/// The fence quick fix of one model for the current text.
pub enum FenceFix {
    /// Its job waits for a place in the queue or runs.
    Running(FenceJob),
    /// Its answer: `None` when no quick fix is offered (none needed, or the search did not
    /// finish).
    Done(Option<Insertions>),
}

/// A running fence quick fix. Dropping it (an edit, a close, shutdown) cancels the job.
pub struct FenceJob {
    pub id: u64,
    pub control: Control,
    /// Becomes `Some(answer)` when the job finishes; closes without one if it is cancelled.
    pub done: tokio::sync::watch::Receiver<Option<Option<Insertions>>>,
}

impl Drop for FenceJob {
    fn drop(&mut self) {
        self.control.cancel();
    }
}

impl Document {
    /// A document not parsed yet: call [`Document::reparse`].
    pub fn new(text: String, version: i32) -> Document {
        Document {
            version,
            rope: Rope::from_str(&text),
            text,
            tree: None,
            test: None,
            syntax: vec![],
            tokens: TokenMap::new("", None),
            cond_key: String::new(),
            results: BTreeMap::new(),
            job: None,
            program_version: version,
            parsing: None,
            fences: BTreeMap::new(),
            axiom: None,
            unbounded: BTreeMap::new(),
        }
    }

    /// Applies one content change (ranged or whole-text) to the rope and the old tree.
    pub fn apply(&mut self, enc: Encoding, ch: &TextDocumentContentChangeEvent) {
        self.fences.clear();
        match ch.range {
            None => {
                self.rope = Rope::from_str(&ch.text);
                self.tree = None;
            }
            Some(r) => {
                let start = position::offset(&self.rope, enc, r.start);
                let end = position::offset(&self.rope, enc, r.end).max(start);
                let point = |rope: &Rope, b: usize| {
                    let row = rope.byte_to_line(b);
                    tree_sitter::Point {
                        row,
                        column: b - rope.line_to_byte(row),
                    }
                };
                let start_position = point(&self.rope, start);
                let old_end_position = point(&self.rope, end);
                let (sc, ec) = (self.rope.byte_to_char(start), self.rope.byte_to_char(end));
                self.rope.remove(sc..ec);
                self.rope.insert(sc, &ch.text);
                let new_end = start + ch.text.len();
                let edit = tree_sitter::InputEdit {
                    start_byte: start,
                    old_end_byte: end,
                    new_end_byte: new_end,
                    start_position,
                    old_end_position,
                    new_end_position: point(&self.rope, new_end),
                };
                if let Some(t) = &mut self.tree {
                    t.edit(&edit);
                }
            }
        }
    }

    /// Re-reads the text from the rope and reparses (incrementally when there is an old tree):
    /// on the spot when the text is at most [`INLINE_PARSE_BYTES`] long; a longer one is
    /// handed back as a [`Deferred`] parse for a blocking thread, and until it lands the
    /// document has no tree, AST, diagnostics or results (requests answer nothing for it). A
    /// parse still running for an older text is told to stop.
    pub fn reparse(&mut self, engine: &dyn Engine) -> Reparse {
        self.stop_parse();
        self.text = self.rope.to_string();
        if self.text.len() > INLINE_PARSE_BYTES {
            let stop = Arc::new(AtomicBool::new(false));
            self.parsing = Some(stop.clone());
            self.test = None;
            self.syntax = vec![];
            self.tokens = TokenMap::new("", None);
            self.cond_key = String::new();
            return Reparse::Deferred(Deferred {
                version: self.version,
                text: Arc::new(self.text.clone()),
                // The last tree, edited by every change since (cheap: shared, copy on write).
                old: self.tree.clone(),
                stop,
            });
        }
        let text = self.text.clone();
        let old = self.tree.take();
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            engine.parse(&text, old.as_ref())
        }));
        Reparse::Done(self.install(out.map_err(|e| super::util::panic_message(&*e))))
    }

    /// Tells a deferred parse still running for this document to stop.
    pub fn stop_parse(&mut self) {
        if let Some(s) = self.parsing.take() {
            s.store(true, Ordering::Relaxed);
        }
    }

    /// Takes a parse of the current text (or the parser's panic message). Returns whether the
    /// program tokens changed.
    pub fn install(&mut self, out: Result<ParseOut, String>) -> bool {
        self.parsing = None;
        let (tree, test, diags) = match out {
            Ok(p) => (p.tree, p.test, p.diagnostics),
            Err(msg) => {
                let d = Diagnostic::error(
                    Span::new(0, 0),
                    format!("internal error in the parser: {msg}"),
                );
                (None, None, vec![d])
            }
        };
        self.tree = tree;
        self.test = test.map(Arc::new);
        self.syntax = diags;
        let cond = self
            .test
            .as_ref()
            .and_then(|t| t.condition.as_ref())
            .map(|c| c.span);
        let tokens = TokenMap::new(&self.text, cond);
        let cond_key = cond
            .map(|c| TokenMap::new(&self.text[c.range()], None).key)
            .unwrap_or_default();
        let changed = tokens.key != self.tokens.key || self.test.is_none();
        self.tokens = tokens;
        self.cond_key = cond_key;
        changed
    }
}

/// Texts longer than this (bytes) are parsed off the server's main loop. Parsing and lowering
/// take about 2 s for 12 MB (750,000 statements, release), so a text parsed on the spot holds
/// the loop for about 20 ms at most, and every ordinary document (a few kB) keeps its tree
/// and AST the moment its edit is applied.
pub const INLINE_PARSE_BYTES: usize = 128 * 1024;

/// What [`Document::reparse`] did.
pub enum Reparse {
    /// Parsed on the spot: whether the program tokens changed.
    Done(bool),
    /// To be parsed off the main loop ([`Deferred::run`]).
    Deferred(Deferred),
}

/// A parse of a long text, run on a blocking thread; its result is installed only if the
/// document is still at `version` (a newer edit, a close or shutdown sets `stop`).
pub struct Deferred {
    pub version: i32,
    pub text: Arc<String>,
    pub old: Option<tree_sitter::Tree>,
    pub stop: Arc<AtomicBool>,
}

impl Deferred {
    /// Parses (blocking); `None` when told to stop. A parser panic is its message.
    pub fn run(&self, engine: &dyn Engine) -> Option<Result<ParseOut, String>> {
        let stop = || self.stop.load(Ordering::Relaxed);
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            engine.parse_with(&self.text, self.old.as_ref(), &stop)
        }));
        match out {
            Ok(Some(p)) => Some(Ok(p)),
            Ok(None) => None,
            Err(e) => Some(Err(super::util::panic_message(&*e))),
        }
    }
}
