//! Shared helpers of the `syntax_*` tests: one rendering of a parse (diagnostics with carets,
//! then a compact dump of the lowered test) so that every test is `check(input, expect![..])`.
#![allow(dead_code)]

use litmus_engine::ast::{Expr, ExprKind, LocRef, RmwOp, Stmt, StmtKind, Test, UnOp};
use litmus_engine::diag::Severity;
use litmus_engine::syntax;
use litmus_engine::LineIndex;
use std::fmt::Write as _;

/// Parses `input` and compares its rendering with `expect`.
pub fn check(input: &str, expect: expect_test::Expect) {
    expect.assert_eq(&render(input));
}

pub fn render(input: &str) -> String {
    let parsed = syntax::parse(input);
    let has_error = parsed.diagnostics.iter().any(|d| d.is_error());
    assert_eq!(
        parsed.test.is_none(),
        has_error,
        "`test` must be None iff there is an error"
    );
    let idx = LineIndex::new(input);
    let mut out = String::new();
    for d in &parsed.diagnostics {
        let (s, e) = idx.span(d.span);
        let sev = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        };
        let _ = writeln!(
            out,
            "{sev} {}:{}-{}:{}: {}",
            s.line, s.col, e.line, e.col, d.message
        );
        let line = idx.line_text(s.line);
        let width = if e.line == s.line {
            (e.col - s.col).max(1)
        } else {
            1
        };
        let _ = writeln!(out, "  | {line}");
        let _ = writeln!(
            out,
            "  | {}{}",
            " ".repeat(s.col as usize - 1),
            "^".repeat(width as usize)
        );
        for r in &d.related {
            let p = idx.line_col(r.span.start);
            let _ = writeln!(out, "  = {}:{}: {}", p.line, p.col, r.message);
        }
    }
    if let Some(test) = &parsed.test {
        out.push_str(&dump(test));
    }
    out
}

/// A compact, readable dump of a lowered test.
pub fn dump(t: &Test) -> String {
    let mut out = String::new();
    let _ = write!(out, "test {} ({:?})", t.name.text, t.dialect);
    if let Some(d) = &t.description {
        let _ = write!(out, " {d:?}");
    }
    out.push('\n');
    for s in &t.shared {
        match s.size {
            None => {
                let _ = writeln!(out, "shared {} = {}", s.name.text, s.init[0]);
            }
            Some(n) => {
                let vals: Vec<String> = s.init.iter().map(|v| v.to_string()).collect();
                let _ = writeln!(out, "shared {}[{n}] = {{{}}}", s.name.text, vals.join(", "));
            }
        }
    }
    for m in &t.mutexes {
        let _ = writeln!(out, "mutex {}", m.text);
    }
    for th in &t.threads {
        let _ = write!(out, "thread {}", th.name.text);
        for (r, v) in &th.reg_init {
            let _ = write!(out, " {}={v}", r.text);
        }
        out.push('\n');
        stmts(t, &th.body, 1, &mut out);
    }
    if let Some(c) = &t.condition {
        let _ = writeln!(out, "{} {}", c.quantifier.as_str(), expr(t, &c.expr));
    }
    out
}

fn stmts(t: &Test, body: &[Stmt], depth: usize, out: &mut String) {
    for s in body {
        let pad = "  ".repeat(depth);
        let line = match &s.kind {
            StmtKind::Store { loc: l, value } => format!("{} <- {}", loc(t, l), expr(t, value)),
            StmtKind::Assign { reg, value } => format!("{} := {}", reg.text, expr(t, value)),
            StmtKind::Fence => "fence".into(),
            StmtKind::Lock { name, .. } => format!("lock {}", name.text),
            StmtKind::Unlock { name, .. } => format!("unlock {}", name.text),
            StmtKind::Rmw {
                dest,
                op,
                loc: l,
                args,
            } => {
                let op = match op {
                    RmwOp::Xchg => "xchg",
                    RmwOp::Cas => "cas",
                    RmwOp::FetchAdd => "fetch_add",
                    RmwOp::FetchAnd => "fetch_and",
                    RmwOp::FetchOr => "fetch_or",
                    RmwOp::FetchXor => "fetch_xor",
                };
                let args: Vec<String> = args.iter().map(|a| expr(t, a)).collect();
                let call = format!("{op}({}, {})", loc(t, l), args.join(", "));
                match dest {
                    Some(d) => format!("{} := {call}", d.text),
                    None => call,
                }
            }
            StmtKind::Assert(e) => format!("assert {}", expr(t, e)),
            StmtKind::Assume(e) => format!("assume {}", expr(t, e)),
            StmtKind::Await(e) => format!("await {}", expr(t, e)),
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => {
                let _ = writeln!(out, "{pad}if {}", expr(t, cond));
                stmts(t, then_body, depth + 1, out);
                if !else_body.is_empty() {
                    let _ = writeln!(out, "{pad}else");
                    stmts(t, else_body, depth + 1, out);
                }
                continue;
            }
            StmtKind::While { cond, body } => {
                let _ = writeln!(out, "{pad}while {}", expr(t, cond));
                stmts(t, body, depth + 1, out);
                continue;
            }
        };
        let _ = writeln!(out, "{pad}{line}");
    }
}

fn loc(t: &Test, l: &LocRef) -> String {
    let name = &t.shared[l.var].name.text;
    match &l.index {
        Some(i) => format!("{name}[{}]", expr(t, i)),
        None => name.clone(),
    }
}

pub fn expr(t: &Test, e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Reg(n) => n.text.clone(),
        ExprKind::Load(l) => format!("*{}", loc(t, l)),
        ExprKind::ThreadReg { thread, reg } => {
            format!("{}:{}", t.threads[*thread].name.text, reg.text)
        }
        ExprKind::Unary(op, a) => {
            let op = match op {
                UnOp::Neg => "-",
                UnOp::Not => "!",
            };
            format!("{op}{}", expr(t, a))
        }
        ExprKind::Binary(op, a, b) => {
            let op = op.symbol();
            format!("({} {op} {})", expr(t, a), expr(t, b))
        }
    }
}

/// The largest character boundary of `s` at or before `i` (a cut that keeps the text valid).
pub fn char_floor(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
