//! What every dialect's lowering shares: the header (name and description), the final
//! condition and the string literal; the scope conditions resolve names in is
//! [`super::expr::Scope`]. What differs between dialects is behind [`Front`]: each dialect
//! module (`native`, `x86`, `asm`) implements it, and `syntax::lower_full` picks the one whose
//! node the tree holds. Dialect modules import this module and `expr`, never each other.

use super::expr::{ExprLowerer, Mode, Scope, ThreadInfo};
use super::{field, span, Src};
use crate::ast::{Condition, Dialect, Name, Quantifier, Test};
use crate::diag::Diagnostic;
use crate::span::Span;
use tree_sitter::Node;

/// A lowered test: the AST, and for assembly dialects the code table ([`crate::asm::Code`]).
pub(super) type Lowered = (Test, Option<crate::asm::Code>);

/// A dialect's lowering of a test node; `None` when lowering stopped early or the test is
/// unusable (the diagnostics say why).
pub(super) type LowerFn = fn(&Src<'_>, Node, &mut Vec<Diagnostic>) -> Option<Lowered>;

/// What differs between dialects: the tree node their tests parse to, and how it lowers.
pub(super) trait Front {
    /// The kind of the root's child that a test of this dialect is (`native_test`).
    const NODE: &'static str;
    const LOWER: LowerFn;
}

/// The test's name and description from the `header` field of either dialect's test node; a
/// missing name (already a syntax error) is an empty name at the test's start.
pub(super) fn lower_header(src: &Src<'_>, node: Node) -> (Name, Option<String>) {
    let header = field(node, "header");
    let name = header
        .and_then(|h| field(h, "name"))
        .map(|n| src.name(n))
        .unwrap_or(Name {
            text: String::new(),
            span: Span::new(node.start_byte(), node.start_byte()),
        });
    let description = header
        .and_then(|h| field(h, "description"))
        .map(|d| unquote(src.text(d)));
    (name, description)
}

/// The contents of a string literal: quotes removed, `\"` and `\\` unescaped (any other
/// backslash is kept as written).
fn unquote(s: &str) -> String {
    let inner = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some(&next)) if next == '"' || next == '\\' => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// Lowers a final condition (every dialect).
pub(super) fn lower_condition(
    src: &Src,
    scope: &Scope,
    diags: &mut Vec<Diagnostic>,
    dialect: Dialect,
    node: Node,
    threads: &[ThreadInfo],
) -> Option<Condition> {
    let q = field(node, "quantifier")?;
    let qtext: String = src.text(q).chars().filter(|c| !c.is_whitespace()).collect();
    let quantifier = match qtext.as_str() {
        "forall" => Quantifier::Forall,
        "~exists" => Quantifier::NotExists,
        "final" if dialect == Dialect::Native => {
            diags.push(Diagnostic::error(
                span(q),
                "`final` is x86 syntax; use `exists`",
            ));
            Quantifier::Exists
        }
        _ => Quantifier::Exists,
    };
    let e = field(node, "expression")?;
    let mut lw = ExprLowerer {
        src,
        scope,
        diags,
        dialect,
        mode: Mode::Condition(threads),
    };
    let expr = lw.lower(e, 0);
    Some(Condition {
        quantifier,
        expr,
        span: span(node),
    })
}

/// Calls `f` with the text and span of every identifier under `node` outside a thread's
/// register (`0:X1`): the locations a condition or an init block of herd's dialects mentions.
pub(super) fn each_location(src: &Src<'_>, node: Node, mut f: impl FnMut(&str, Span)) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "thread_register" => {}
            "identifier" => f(src.text(n), super::span(n)),
            _ => {
                let mut cursor = n.walk();
                let children: Vec<Node> = n.named_children(&mut cursor).collect();
                stack.extend(children.into_iter().rev());
            }
        }
    }
}
