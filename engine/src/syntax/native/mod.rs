//! Lowering of the native dialect (`docs/reference.md#native`) and its static rules.
//!
//! Two passes: declarations first (so a thread may use a location declared after it, with
//! an error saying declarations come first, rather than a cascade of unknown names), then
//! threads in source order, then the final condition, which sees every thread's registers.
//!
//! Choices where the spec is silent:
//! - a register named in the final condition that its thread never mentions is a warning,
//!   not an error: it exists and its final value is 0 (like an unused herd register);
//! - array sizes are constant expressions from 1 to [`MAX_ARRAY`];
//! - `0:r0` (herd style) is accepted in the final condition and means the first thread.
//!
//! Code map: this file lowers the test as a whole (header, pass order, final condition);
//! `declarations.rs` checks and lowers shared locations and mutexes; `statements.rs` lowers
//! thread bodies.

mod declarations;
mod statements;

use super::expr::{Scope, Sym, ThreadInfo};
use super::shared::{lower_condition, lower_header, Front, LowerFn, Lowered};
use super::{children_by_field, field, span, Src};
use crate::ast::{Condition, Dialect, Name, SharedDecl, Test, Thread};
use crate::diag::Diagnostic;
use crate::span::Span;
use std::collections::{BTreeSet, HashMap};
use tree_sitter::Node;

/// The largest array the front end accepts (cells are explored state; keep it sane).
pub(crate) const MAX_ARRAY: i64 = 1 << 16;

/// The native dialect's [`Front`].
pub(in crate::syntax) struct Lowering;

impl Front for Lowering {
    const NODE: &'static str = "native_test";
    const LOWER: LowerFn = lower;
}

/// Lowers a native test; stops early (with a partial result the caller discards) once
/// `src.should_stop()` says so.
fn lower(src: &Src<'_>, node: Node, diags: &mut Vec<Diagnostic>) -> Option<Lowered> {
    let mut l = Native {
        src,
        diags,
        shared: Vec::new(),
        mutexes: Vec::new(),
        by_name: HashMap::new(),
    };

    let (name, description) = lower_header(src, node);

    let items = children_by_field(node, "item");
    // Pass 1: declarations.
    let mut seen_thread: Option<Node> = None;
    for &item in &items {
        if src.should_stop() {
            return None;
        }
        match item.kind() {
            "thread" => seen_thread = seen_thread.or(Some(item)),
            "shared_declaration" | "mutex_declaration" => {
                if let Some(t) = seen_thread {
                    l.diags.push(
                        Diagnostic::error(span(item), "declarations must come before the threads")
                            .with_related(span(t), "first thread is here"),
                    );
                }
                if field(item, "terminator").is_none() && !item.has_error() {
                    let end = item.end_byte();
                    l.diags
                        .push(Diagnostic::error(Span::new(end, end), "expected `;`"));
                }
                if item.kind() == "shared_declaration" {
                    for d in children_by_field(item, "declarator") {
                        l.shared_declarator(d);
                    }
                } else {
                    for n in children_by_field(item, "name") {
                        l.mutex(n);
                    }
                }
            }
            _ => {}
        }
    }

    // Pass 2: threads.
    let mut threads: Vec<Thread> = Vec::new();
    let mut infos: Vec<ThreadInfo> = Vec::new();
    for &item in items.iter().filter(|i| i.kind() == "thread") {
        if src.should_stop() {
            return None;
        }
        let Some(name_node) = field(item, "name") else {
            continue;
        };
        let tname = src.name(name_node);
        if let Some(prev) = threads.iter().find(|t| t.name.text == tname.text) {
            l.diags.push(
                Diagnostic::error(tname.span, format!("duplicate thread `{}`", tname.text))
                    .with_related(prev.name.span, "first declared here"),
            );
        }
        let mut regs = BTreeSet::new();
        let body = match field(item, "body") {
            Some(b) => l.block(b, &mut regs, 0),
            None => Vec::new(),
        };
        infos.push(ThreadInfo {
            name: tname.text.clone(),
            regs,
        });
        threads.push(Thread {
            name: tname,
            reg_init: Vec::new(),
            body,
            span: span(item),
        });
    }
    // Without threads after a syntax error, the error already says what is wrong.
    let syntax_error = node.parent().unwrap_or(node).has_error();
    if threads.is_empty() && !syntax_error {
        let at = field(node, "header").map(span).unwrap_or(span(node));
        l.diags.push(Diagnostic::error(
            at,
            "a test needs at least one thread: `thread P0 { ... }`",
        ));
    }

    let condition = field(node, "condition").and_then(|c| l.condition(c, &infos));

    Some((
        Test {
            dialect: Dialect::Native,
            name,
            description,
            shared: l.shared,
            mutexes: l.mutexes,
            threads,
            condition,
            span: span(node),
        },
        None,
    ))
}

struct Native<'s, 'd> {
    src: &'s Src<'s>,
    diags: &'d mut Vec<Diagnostic>,
    shared: Vec<SharedDecl>,
    mutexes: Vec<Name>,
    by_name: HashMap<String, Sym>,
}

impl Native<'_, '_> {
    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, msg));
    }

    fn condition(&mut self, node: Node, threads: &[ThreadInfo]) -> Option<Condition> {
        let scope = Scope {
            shared: &self.shared,
            by_name: &self.by_name,
        };
        // `None` only when the quantifier or expression is missing: a syntax error already.
        lower_condition(self.src, &scope, self.diags, Dialect::Native, node, threads)
    }
}
