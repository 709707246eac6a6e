//! What a lens, hover or verdict is about, and whether two spans overlap: below the views
//! (`verdict.rs`, `view.rs`) that both use them.

use litmus_engine::ast::Test;
use litmus_engine::Span;

pub fn overlaps(a: Span, b: Span) -> bool {
    a.start < b.end.max(b.start + 1) && b.start < a.end.max(a.start + 1)
}

/// What a lens, hover or verdict is about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    Test,
    Assert(Span),
    Condition,
}

/// The target of a lens at `span` (the test's name, the condition, else an assertion).
pub fn target_at(test: &Test, span: Span) -> Target {
    if span == test.name.span {
        Target::Test
    } else if test.condition.as_ref().is_some_and(|c| c.span == span) {
        Target::Condition
    } else {
        Target::Assert(span)
    }
}
