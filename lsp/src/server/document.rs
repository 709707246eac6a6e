//! One open document: its text (a rope), version, syntax tree, AST, syntax diagnostics, program
//! tokens, and the verification results currently shown for it.
//!
//! Edits are applied synchronously in the order the handlers run them (never across an
//! `.await`), each followed by an incremental tree-sitter reparse: the previous tree is edited
//! with the same change, then handed to the parser.

use std::collections::BTreeMap;
use std::sync::Arc;

use ropey::Rope;
use tower_lsp_server::ls_types::TextDocumentContentChangeEvent;

use litmus_engine::ast::Test;
use litmus_engine::report::Violation;
use litmus_engine::{Control, Diagnostic, Model, ModelReport, Span};

use super::engine::Engine;
use super::position::{self, Encoding};
use super::tokens::TokenMap;

/// What is known of one model for the current text.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// A check is running and has found no violation yet.
    Running,
    /// A check is running and has found these violations (each with the first schedule found),
    /// shown until the complete report replaces them.
    Exploring(Vec<Violation>),
    /// A report, its spans in the current text's coordinates. `fresh_condition` is false when
    /// the condition was re-evaluated from cached states (schedules for it are being redone).
    Done {
        report: ModelReport,
        fresh_condition: bool,
    },
    /// The check panicked: the message.
    Crashed(String),
}

/// The exploration running for a document.
#[derive(Clone, Debug)]
pub struct Job {
    pub id: u64,
    pub control: Control,
    /// The `$/progress` token, once the client created it.
    pub token: Option<String>,
}

impl Outcome {
    /// The violations to show: of the complete report, or found so far by a running check.
    pub fn violations(&self) -> &[Violation] {
        match self {
            Outcome::Done { report, .. } => &report.violations,
            Outcome::Exploring(vs) => vs,
            _ => &[],
        }
    }
    /// Whether a check for it still runs.
    pub fn running(&self) -> bool {
        matches!(self, Outcome::Running | Outcome::Exploring(_))
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
}

impl Document {
    pub fn new(engine: &dyn Engine, text: String, version: i32) -> Document {
        let mut d = Document {
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
        };
        d.reparse(engine);
        d
    }

    /// Applies one content change (ranged or whole-text) to the rope and the old tree.
    pub fn apply(&mut self, enc: Encoding, ch: &TextDocumentContentChangeEvent) {
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

    /// Re-reads the text from the rope and reparses (incrementally when there is an old tree).
    /// Returns whether the program tokens changed.
    pub fn reparse(&mut self, engine: &dyn Engine) -> bool {
        self.text = self.rope.to_string();
        let text = self.text.clone();
        let old = self.tree.take();
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            engine.parse(&text, old.as_ref())
        }));
        let (tree, test, diags) = match out {
            Ok(p) => (p.tree, p.test, p.diagnostics),
            Err(e) => {
                let msg = super::panic_message(&e);
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
