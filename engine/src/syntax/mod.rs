//! The front end: source text → tree-sitter tree → name-resolved [`ast::Test`] + diagnostics.
//!
//! One grammar (`grammar/grammar.js`, crate `tree-sitter-litmus`) covers both dialects; the
//! root's child says which one a file is written in (`docs/reference.md#native`: `litmus NAME`, `docs/reference.md#x86`: `X86 NAME`).
//!
//! - `errors` turns ERROR and MISSING nodes into one diagnostic each ("expected `;`",
//!   "unexpected `foo`") without cascades;
//! - `native` lowers the native dialect and checks its static rules (§1: resolution of
//!   identifiers to shared locations, mutexes or registers; mutex/array misuse; duplicates);
//! - `x86` lowers the herd x86 dialect (`docs/reference.md#x86`) to the same AST;
//! - `asm` lowers herd's `AArch64` and `RISCV` dialects (`docs/arm-riscv.md`): the table to
//!   the AST with empty thread bodies, the code to [`crate::asm::Code`] ([`Parsed::asm`]);
//! - `expr` lowers expressions of both dialects (threads and final conditions).
//!
//! Architecture invariants: never panics and never recurses without bound on any input (deep
//! nesting is reported, not followed); `Parsed::test` is `None` iff some diagnostic is an
//! error; every AST node's span points at the source it came from.
//!
//! Cancellation: [`parse_with`] polls a caller's stop check (the CLI and the server pass
//! [`crate::Control::should_stop`]) from tree-sitter's progress callback while parsing and
//! every [`POLL_EVERY`] nodes while lowering, so a huge input (hundreds of thousands of
//! statements) stops within milliseconds of a deadline or a cancel; the engine still does no
//! I/O and keeps no clock of its own.

pub(crate) mod asm;
mod c;
mod errors;
mod expr;
pub mod fences;
mod native;
mod registers;
mod shared;
mod x86;

pub use x86::herd_locations;

use crate::ast;
use crate::diag::Diagnostic;
use crate::span::Span;
use shared::Front;
use std::cell::Cell;
use std::ops::ControlFlow;
use tree_sitter::{Node, ParseOptions, Parser, Tree};

/// The result of parsing one source text.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The concrete syntax tree (always present, even for garbage input).
    pub tree: Tree,
    /// The lowered test; `None` iff `diagnostics` contains an error.
    pub test: Option<ast::Test>,
    /// Syntax errors first, then semantic diagnostics, each group in source order.
    pub diagnostics: Vec<Diagnostic>,
    /// The code of an AArch64 or RISC-V test (whose [`ast::Test`] has empty thread bodies);
    /// `None` for other dialects, and iff `test` is `None`.
    pub asm: Option<crate::asm::Code>,
    /// The code of a C test as written (macros not expanded: [`crate::c::lower`] does that
    /// with the model's `.def` file), whose [`ast::Test`] has empty thread bodies; `None` for
    /// other dialects, and iff `test` is `None`.
    pub c: Option<crate::c::Source>,
}

/// Parses and lowers `text` from scratch.
pub fn parse(text: &str) -> Parsed {
    parse_incremental(text, None)
}

/// Parses `text` reusing `old`, a tree of the previous version of the text on which the
/// caller has already called [`Tree::edit`] for every change (tree-sitter's contract; a tree
/// that was not edited gives a wrong tree, not a crash). Lowering always runs on the whole
/// new tree (it takes well under a millisecond per thousand lines).
pub fn parse_incremental(text: &str, old: Option<&Tree>) -> Parsed {
    match parse_with(text, old, &|| false) {
        Some(p) => p,
        // Unreachable (nothing asks to stop); still, never panic.
        None => Parsed {
            tree: parse_tree(text, old, &|| false).unwrap_or_else(|| empty_tree(&mut parser())),
            test: None,
            diagnostics: Vec::new(),
            asm: None,
            c: None,
        },
    }
}

/// [`parse_incremental`], stopping early once `stop` returns true: `None` then (the caller
/// reports the work as incomplete, as an exploration that stops early). `stop` is polled
/// often enough to stop within a few milliseconds on any input, and not again once it has
/// said stop.
pub fn parse_with(text: &str, old: Option<&Tree>, stop: &dyn Fn() -> bool) -> Option<Parsed> {
    let stop = Stop::new(stop);
    let tree = parse_tree(text, old, &|| stop.poll())?;
    let Some((test, diagnostics, code)) = lower_full(text, &tree, &stop) else {
        // Freeing the tree of a huge input takes a while: not on the way out.
        crate::control::drop_in_background(tree);
        return None;
    };
    Some(Parsed {
        tree,
        test,
        diagnostics,
        asm: code.asm,
        c: code.c,
    })
}

/// A parser for the litmus language.
pub fn parser() -> Parser {
    let mut parser = Parser::new();
    // The grammar crate is built from the same sources: the ABI always matches.
    let _ = parser.set_language(&tree_sitter_litmus::LANGUAGE.into());
    parser
}

/// The tree of `text`, or `None` if `stop` said stop first.
fn parse_tree(text: &str, old: Option<&Tree>, stop: &dyn Fn() -> bool) -> Option<Tree> {
    let mut parser = parser();
    let bytes = text.as_bytes();
    let mut read = |i: usize, _| bytes.get(i..).unwrap_or_default();
    // tree-sitter calls this every hundred or so parse operations.
    let mut progress = |_: &tree_sitter::ParseState| {
        if stop() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = ParseOptions::new().progress_callback(&mut progress);
    if let Some(tree) = parser.parse_with_options(&mut read, old, Some(options)) {
        return Some(tree);
    }
    if stop() {
        // The parser keeps its partial stacks for a resumption that will not come; freeing
        // them takes a tenth of a second on a huge input, which must not delay the stop.
        crate::control::drop_in_background(parser);
        return None;
    }
    // Without a stop, `parse` returns `None` only without a language, which is always set
    // here. Still, never panic: fall back to a fresh parse, then to "".
    parser.reset();
    Some(
        parser
            .parse(text, None)
            .unwrap_or_else(|| empty_tree(&mut parser)),
    )
}

fn empty_tree(parser: &mut Parser) -> Tree {
    parser
        .parse("", None)
        .expect("tree-sitter parses the empty string")
}

/// How many lowering steps (statements, instructions, declarations, error nodes) pass between
/// two polls of the caller's stop check: each poll may read the clock.
pub(crate) use crate::control::POLL_EVERY;

/// The caller's stop check, polled every [`POLL_EVERY`] calls of [`Stop::poll`]; once it has
/// said stop, it keeps saying so without asking again.
pub(crate) struct Stop<'a> {
    check: &'a dyn Fn() -> bool,
    count: Cell<u32>,
    stopped: Cell<bool>,
}

impl<'a> Stop<'a> {
    pub fn new(check: &'a dyn Fn() -> bool) -> Stop<'a> {
        Stop {
            check,
            count: Cell::new(0),
            stopped: Cell::new(false),
        }
    }
    /// Whether to stop now (asks the caller every [`POLL_EVERY`] calls).
    pub fn poll(&self) -> bool {
        if self.stopped.get() {
            return true;
        }
        let n = self.count.get().wrapping_add(1);
        self.count.set(n);
        if n.is_multiple_of(POLL_EVERY) && (self.check)() {
            self.stopped.set(true);
        }
        self.stopped.get()
    }
    /// Whether a poll has said stop (does not ask).
    pub fn stopped(&self) -> bool {
        self.stopped.get()
    }
}

/// Lowers a tree: syntax diagnostics, then the dialect's lowering.
pub fn lower(text: &str, tree: &Tree) -> (Option<ast::Test>, Vec<Diagnostic>) {
    let never = || false;
    let stop = Stop::new(&never);
    lower_with(text, tree, &stop).unwrap_or_default()
}

/// [`lower`], or `None` if `stop` said stop first.
fn lower_with(
    text: &str,
    tree: &Tree,
    stop: &Stop<'_>,
) -> Option<(Option<ast::Test>, Vec<Diagnostic>)> {
    lower_full(text, tree, stop).map(|(t, d, _)| (t, d))
}

/// The code beside the AST of an AArch64, RISC-V or C test.
#[derive(Default)]
struct Code {
    asm: Option<crate::asm::Code>,
    c: Option<crate::c::Source>,
}

type Lowered = (Option<ast::Test>, Vec<Diagnostic>, Code);

/// [`lower_with`], with the code of an AArch64 or RISC-V test.
fn lower_full(text: &str, tree: &Tree, stop: &Stop<'_>) -> Option<Lowered> {
    let root = tree.root_node();
    let mut diags = errors::syntax_errors(text, root, stop);
    let syntax_count = diags.len();
    let fronts: [(&str, shared::LowerFn); 3] = [
        (native::Lowering::NODE, native::Lowering::LOWER),
        (x86::Lowering::NODE, x86::Lowering::LOWER),
        (asm::Lowering::NODE, asm::Lowering::LOWER),
    ];
    let test_node = (0..root.named_child_count())
        .filter_map(|i| root.named_child(i as u32))
        .find_map(|n| {
            let (_, lower) = fronts.iter().find(|(kind, _)| *kind == n.kind())?;
            Some((n, lower))
        });
    let mut code = Code::default();
    let c_node = (0..root.named_child_count())
        .filter_map(|i| root.named_child(i as u32))
        .find(|n| n.kind() == c::NODE);
    let lowered = match (test_node, c_node) {
        (_, Some(node)) => c::lower(&Src::new(text, stop), node, &mut diags).map(|(t, s)| {
            code.c = Some(s);
            t
        }),
        (Some((node, lower)), None) => {
            lower(&Src::new(text, stop), node, &mut diags).map(|(t, c)| {
                code.asm = c;
                t
            })
        }
        (None, None) => {
            let start = text.len() - text.trim_start().len();
            let end = text[start..]
                .find(char::is_whitespace)
                .map_or(text.len(), |i| start + i);
            let first_word = &text[start..end];
            // A test whose header is right but that failed to parse as a whole keeps its
            // syntax errors; anything else gets one diagnostic saying what a test looks like.
            let herd = [
                "X86", "x86", "X86_64", "AArch64", "RISCV", "PPC", "ARM", "C",
            ];
            if !(first_word == "litmus" || herd.contains(&first_word)) || diags.is_empty() {
                diags.clear();
                diags.push(Diagnostic::error(
                    Span::new(start, end),
                    "expected a test: `litmus NAME` (native dialect), `X86 NAME`, `X86_64 NAME`, `AArch64 NAME`, `RISCV NAME`, `PPC NAME`, `ARM NAME` or `C NAME` (herd's dialects)",
                ));
            }
            None
        }
    };
    // No cascades: a semantic diagnostic whose range touches a syntax error is a consequence
    // of it (`MOV [x] $1` is not also "unsupported MOV operands").
    if syntax_count > 0 && diags.len() > syntax_count {
        let (syntax, semantic) = diags.split_at(syntax_count);
        let touches = |d: &Diagnostic| {
            syntax
                .iter()
                .any(|e| e.span.start <= d.span.end && d.span.start <= e.span.end)
        };
        let keep: Vec<Diagnostic> = semantic.iter().filter(|d| !touches(d)).cloned().collect();
        diags.truncate(syntax_count);
        diags.extend(keep);
    }
    // Semantic diagnostics in source order (stable: related ones keep their order).
    if diags.len() > syntax_count {
        diags[syntax_count..].sort_by_key(|d| d.span.start);
    }
    if stop.stopped() {
        return None;
    }
    if diags.iter().any(Diagnostic::is_error) {
        return Some((None, diags, Code::default()));
    }
    Some((lowered, diags, code))
}

/// Shared helpers over tree-sitter nodes, and the stop check lowering polls.
pub(crate) struct Src<'a> {
    pub text: &'a str,
    pub stop: &'a Stop<'a>,
}

impl<'a> Src<'a> {
    pub fn new(text: &'a str, stop: &'a Stop<'a>) -> Src<'a> {
        Src { text, stop }
    }
    /// Whether lowering should stop now ([`Stop::poll`]).
    pub fn should_stop(&self) -> bool {
        self.stop.poll()
    }
    pub fn text(&self, node: Node) -> &'a str {
        self.text.get(node.byte_range()).unwrap_or("")
    }
    pub fn name(&self, node: Node) -> ast::Name {
        ast::Name {
            text: self.text(node).to_string(),
            span: span(node),
        }
    }
}

pub(crate) fn span(node: Node) -> Span {
    Span::new(node.start_byte(), node.end_byte())
}

/// Field ids by name, looked up once: tree-sitter's own lookup compares the name with every
/// field name on each call, which was the largest single cost of lowering.
fn field_id(name: &str) -> Option<std::num::NonZeroU16> {
    use std::collections::HashMap;
    use std::sync::OnceLock;
    static IDS: OnceLock<HashMap<String, std::num::NonZeroU16>> = OnceLock::new();
    let ids = IDS.get_or_init(|| {
        let language: tree_sitter::Language = tree_sitter_litmus::LANGUAGE.into();
        (1..=language.field_count() as u16)
            .filter_map(|id| {
                Some((
                    language.field_name_for_id(id)?.to_string(),
                    std::num::NonZeroU16::new(id)?,
                ))
            })
            .collect()
    });
    ids.get(name).copied()
}

/// Children with field `field`, in order, without MISSING ones.
pub(crate) fn children_by_field<'t>(node: Node<'t>, field: &str) -> Vec<Node<'t>> {
    let Some(id) = field_id(field) else {
        return Vec::new();
    };
    let mut cursor = node.walk();
    node.children_by_field_id(id, &mut cursor)
        .filter(|n| !n.is_missing())
        .collect()
}

/// The child with field `field`, unless it is missing.
pub(crate) fn field<'t>(node: Node<'t>, field: &str) -> Option<Node<'t>> {
    node.child_by_field_id(field_id(field)?.get())
        .filter(|n| !n.is_missing())
}
