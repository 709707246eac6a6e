//! `litmus fences --json`: `{"version": 1, "files": [...]}`, one entry per file with the fences
//! found (`docs/reference.md#fences`).

use litmus_engine::fences::{Goal, Named, Synthesis};
use litmus_engine::report::ViolationKind;
use litmus_engine::LineIndex;
use serde::Serialize;

use super::Pos;

/// The whole document.
#[derive(Serialize)]
pub struct Document {
    version: u32,
    files: Vec<File>,
}

impl Document {
    pub fn new(files: Vec<File>) -> Document {
        Document { version: 1, files }
    }
}

/// One file's answer.
#[derive(Serialize)]
pub struct File {
    path: String,
    model: &'static str,
    goal: &'static str,
    complete: bool,
    fences: Vec<Fence>,
    candidates: usize,
    checks: u32,
    fixed: Vec<Violation>,
    sc_violations: Vec<Violation>,
    /// The program with the fences inserted.
    text: String,
    time_ms: f64,
}

/// A fence: its thread, where its text goes (`line`, `col`) and the statement it follows.
#[derive(Serialize)]
struct Fence {
    thread: usize,
    line: u32,
    col: u32,
    after: Pos,
}

/// A violation the fences fix, or one SC has too.
#[derive(Serialize)]
struct Violation {
    #[serde(flatten)]
    pos: Pos,
    kind: ViolationKind,
    message: String,
}

impl File {
    pub fn new(path: &str, index: &LineIndex, s: &Synthesis) -> File {
        let named = |v: &[Named]| -> Vec<Violation> {
            v.iter()
                .map(|n| Violation {
                    pos: Pos::new(index, n.span),
                    kind: n.kind,
                    message: n.message.clone(),
                })
                .collect()
        };
        File {
            path: path.into(),
            model: s.model.key(),
            goal: match s.goal {
                Goal::Verdicts => "verdicts",
                Goal::Robust => "robust",
            },
            complete: s.complete,
            fences: s
                .fences
                .iter()
                .map(|p| {
                    let lc = index.line_col(p.offset as u32);
                    Fence {
                        thread: p.thread,
                        line: lc.line,
                        col: lc.col,
                        after: Pos::new(index, p.after),
                    }
                })
                .collect(),
            candidates: s.candidates,
            checks: s.checks,
            fixed: named(&s.fixed),
            sc_violations: named(&s.sc_violations),
            text: s.text.clone(),
            time_ms: (s.time_ms * 1000.0).round() / 1000.0,
        }
    }
}
