//! The final condition as herd7 shows it: the variables it observes, the final states projected
//! onto them (herd prints and counts projected states), and the condition printed back in the
//! test's own dialect (`P0:r0 == 0 && P1:r1 == 0`, or herd's `0:EAX=0 /\ 1:EAX=0` for x86).

use std::collections::BTreeSet;

use litmus_engine::ast::{BinOp, Dialect, Expr, ExprKind, LocRef, Test, UnOp};
use litmus_engine::report::FinalState;

/// The state keys (`P0:r0`, `x`, `a[1]`) the condition mentions (the engine's projection,
/// so that the states printed are the ones its counts are over), ordered as in a final state:
/// registers by thread, then memory in declaration order. Empty without a condition.
pub fn observed_keys(test: &Test, states: &[FinalState]) -> Vec<String> {
    let mut keys = litmus_engine::condition::observed_keys(test);
    if let Some(first) = states.first() {
        let rank = |k: &String| {
            first
                .0
                .iter()
                .position(|(e, _)| e == k)
                // A key the states lack goes last.
                .unwrap_or(first.0.len())
        };
        keys.sort_by_key(rank);
    }
    keys
}

/// `P0:r0` (the engine's key naming for a register in a final state).
pub fn reg_key(test: &Test, thread: usize, reg: &str) -> String {
    let name = test
        .threads
        .get(thread)
        .map(|t| t.name.text.as_str())
        .unwrap_or("?");
    format!("{name}:{reg}")
}

/// `x` or `a[1]`: the index of a location in a final condition is a constant expression.
pub fn loc_key(test: &Test, loc: &LocRef) -> String {
    let name = test
        .shared
        .get(loc.var)
        .map(|d| d.name.text.as_str())
        .unwrap_or("?");
    match &loc.index {
        None => name.to_owned(),
        Some(ix) => match const_eval(ix) {
            Some(i) => format!("{name}[{i}]"),
            None => format!("{name}[{}]", print_native(test, ix)),
        },
    }
}

fn const_eval(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v) => Some(*v),
        ExprKind::Unary(UnOp::Neg, a) => Some(const_eval(a)?.wrapping_neg()),
        ExprKind::Unary(UnOp::Not, a) => Some((const_eval(a)? == 0) as i64),
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (const_eval(a)?, const_eval(b)?);
            Some(match op {
                BinOp::Add => a.wrapping_add(b),
                BinOp::Sub => a.wrapping_sub(b),
                BinOp::Mul => a.wrapping_mul(b),
                BinOp::Div => a.checked_div(b)?,
                BinOp::Rem => a.checked_rem(b)?,
                _ => return None,
            })
        }
        _ => None,
    }
}

/// The distinct final states restricted to `keys`, sorted (herd's `States` list). A key a
/// state lacks (a register the thread never writes) reads as its initial value 0. With no keys
/// (no condition), the states themselves.
pub fn project(states: &[FinalState], keys: &[String]) -> Vec<FinalState> {
    let set: BTreeSet<FinalState> = if keys.is_empty() {
        states.iter().cloned().collect()
    } else {
        states.iter().map(|s| s.project(keys)).collect()
    };
    set.into_iter().collect()
}

/// herd's view of the final states of a test in one of its dialects: the keys it shows (the
/// condition's and the `locations [...]` ones) in herd's order, registers by thread then name,
/// then memory by name; and the distinct states projected onto them, sorted by their values in
/// that order.
pub fn herd_states(
    test: &Test,
    states: &[FinalState],
    locations: &[String],
) -> (Vec<String>, Vec<FinalState>) {
    let mut keys = litmus_engine::condition::observed_keys(test);
    for k in locations {
        if !keys.contains(k) {
            keys.push(k.clone());
        }
    }
    if keys.is_empty() {
        if let Some(first) = states.first() {
            keys = first.0.iter().map(|(k, _)| k.clone()).collect();
        }
    }
    // herd's order: registers by thread, then in the order of herd's register type (`EAX`,
    // `EBX`, `ECX`, `EDX`, `ESI`, `EDI`, `EBP`, `ESP`; `rax` ... `rsp`, `r8` ... `r15`), then
    // memory by name, then array cells (herd's `Deref`, after every plain name).
    let rank = |k: &String| -> (u8, usize, usize, String) {
        if let Some((t, r)) = k.split_once(':') {
            if let Some(n) = t.strip_prefix('P').and_then(|d| d.parse::<usize>().ok()) {
                return (0, n, herd_register_rank(r), r.to_owned());
            }
        }
        (if k.contains('[') { 2 } else { 1 }, 0, 0, k.clone())
    };
    keys.sort_by_key(rank);
    let mut projected: Vec<FinalState> = states.iter().map(|s| s.project(&keys)).collect();
    projected.sort_by(|a, b| {
        let va = a.0.iter().map(|(_, v)| *v);
        let vb = b.0.iter().map(|(_, v)| *v);
        va.cmp(vb)
    });
    projected.dedup();
    (keys, projected)
}

/// Where herd's register type puts an x86 register (`X86`'s `EAX`... and `X86_64`'s
/// `rax`...), for the order of a final state; unknown names last.
fn herd_register_rank(r: &str) -> usize {
    const X86: [&str; 8] = ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP"];
    const X86_64: [&str; 16] = [
        "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12",
        "r13", "r14", "r15",
    ];
    X86.iter()
        .position(|n| *n == r)
        .or_else(|| X86_64.iter().position(|n| *n == r))
        .unwrap_or(usize::MAX)
}

/// A state key as herd7 (7.56.3 and later) prints it in both x86 dialects: `P0:EAX` →
/// `0:EAX`; a location in brackets, `x` → `[x]`; an array cell without, `a[1]`.
pub fn herd_key(test: &Test, key: &str) -> String {
    if let Some((t, r)) = key.split_once(':') {
        if let Some(n) = t.strip_prefix('P').filter(|d| d.parse::<usize>().is_ok()) {
            return format!("{n}:{r}");
        }
    }
    let array = key.contains('[')
        || test
            .shared
            .iter()
            .any(|d| d.name.text == key && d.is_array());
    if matches!(test.dialect, Dialect::X86 | Dialect::X86_64) && !array {
        format!("[{key}]")
    } else {
        key.to_owned()
    }
}

/// One state as herd prints it: `P0:r0=0; P1:r1=0;`.
pub fn state_line(state: &FinalState) -> String {
    let mut out = String::new();
    for (i, (k, v)) in state.0.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&format!("{k}={v};"));
    }
    out
}

/// The condition's expression in the test's dialect, without the quantifier or outer
/// parentheses.
pub fn print_condition(test: &Test) -> Option<String> {
    let cond = test.condition.as_ref()?;
    Some(match test.dialect {
        Dialect::Native => print_native(test, &cond.expr),
        _ => print_herd(test, &cond.expr),
    })
}

/// C-like, with parentheses only where precedence needs them.
pub fn print_native(test: &Test, e: &Expr) -> String {
    native(test, e, 0)
}

fn native_prec(op: BinOp) -> u8 {
    match op {
        BinOp::Implies => 1,
        BinOp::Or => 2,
        BinOp::And => 3,
        BinOp::Eq | BinOp::Ne => 4,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 5,
        BinOp::Add | BinOp::Sub => 6,
        BinOp::Mul | BinOp::Div | BinOp::Rem => 7,
        // Not written in any condition (x86 instructions only); C's order, kept tight.
        BinOp::BitOr | BinOp::BitXor | BinOp::BitAnd => 4,
        BinOp::Shl | BinOp::Shr => 6,
    }
}

fn native_op(op: BinOp) -> &'static str {
    op.symbol()
}

fn native(test: &Test, e: &Expr, min: u8) -> String {
    match &e.kind {
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Reg(n) => n.text.clone(),
        ExprKind::ThreadReg { thread, reg } => reg_key(test, *thread, &reg.text),
        ExprKind::Load(loc) => loc_key(test, loc),
        ExprKind::Unary(op, a) => {
            let sym = if *op == UnOp::Neg { "-" } else { "!" };
            format!("{sym}{}", native(test, a, 8))
        }
        ExprKind::Binary(op, a, b) => {
            let p = native_prec(*op);
            // Left-associative: the right operand needs parentheses at equal precedence.
            let s = format!(
                "{} {} {}",
                native(test, a, p),
                native_op(*op),
                native(test, b, p + 1)
            );
            if p < min {
                format!("({s})")
            } else {
                s
            }
        }
    }
}

/// herd's own syntax: `0:EAX=0 /\ 1:EAX=0`, `not (..)`, `\/`, `=>`; memory as `[x]` (an
/// array cell `a[1]`), as herd7 7.56.3 and later print them.
pub fn print_herd(test: &Test, e: &Expr) -> String {
    herd(test, e, 0)
}

fn herd(test: &Test, e: &Expr, min: u8) -> String {
    match &e.kind {
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Reg(n) => n.text.clone(),
        ExprKind::ThreadReg { thread, reg } => format!("{thread}:{}", reg.text),
        ExprKind::Load(loc)
            if matches!(test.dialect, Dialect::X86 | Dialect::X86_64)
                && loc.index.is_none()
                && !test.shared.get(loc.var).is_some_and(|d| d.is_array()) =>
        {
            format!("[{}]", loc_key(test, loc))
        }
        ExprKind::Load(loc) => loc_key(test, loc),
        // herd7 prints a negation as `not (p)` whichever way it was written.
        ExprKind::Unary(UnOp::Not, a) => format!("not ({})", herd(test, a, 0)),
        ExprKind::Unary(UnOp::Neg, a) => format!("-{}", herd(test, a, 9)),
        ExprKind::Binary(op, a, b) => {
            let (p, sym) = match op {
                BinOp::Implies => (1, " => "),
                BinOp::Or => (2, " \\/ "),
                BinOp::And => (3, " /\\ "),
                BinOp::Eq => (4, "="),
                BinOp::Ne => (4, "!="),
                other => (native_prec(*other) + 1, native_op(*other)),
            };
            // `/\` and `\/` are associative; `=>` groups to the right.
            let (lp, rp) = match op {
                BinOp::And | BinOp::Or => (p, p),
                BinOp::Implies => (p + 1, p),
                _ => (p, p + 1),
            };
            let s = format!("{}{sym}{}", herd(test, a, lp), herd(test, b, rp));
            if p < min {
                format!("({s})")
            } else {
                s
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(pairs: &[(&str, i64)]) -> FinalState {
        FinalState(pairs.iter().map(|&(k, v)| (k.to_owned(), v)).collect())
    }

    #[test]
    fn projection_merges_states_that_agree_on_the_keys() {
        let states = vec![
            st(&[("P0:r0", 0), ("P1:r1", 1), ("x", 1)]),
            st(&[("P0:r0", 0), ("P1:r1", 1), ("x", 2)]),
            st(&[("P0:r0", 1), ("P1:r1", 0), ("x", 1)]),
        ];
        let keys = vec!["P0:r0".to_owned(), "P1:r1".to_owned()];
        let p = project(&states, &keys);
        assert_eq!(
            p,
            vec![
                st(&[("P0:r0", 0), ("P1:r1", 1)]),
                st(&[("P0:r0", 1), ("P1:r1", 0)])
            ]
        );
        assert_eq!(state_line(&p[0]), "P0:r0=0; P1:r1=1;");
    }

    #[test]
    fn projection_without_keys_keeps_whole_states_and_fills_missing_registers() {
        let states = vec![st(&[("x", 1)]), st(&[("x", 1)])];
        assert_eq!(project(&states, &[]), vec![st(&[("x", 1)])]);
        assert_eq!(
            project(&states, &["P0:r9".to_owned()]),
            vec![st(&[("P0:r9", 0)])]
        );
    }

    fn printed(src: &str) -> String {
        let parsed = litmus_engine::syntax::parse(src);
        let test = parsed
            .test
            .unwrap_or_else(|| panic!("{:?}", parsed.diagnostics));
        print_condition(&test).unwrap()
    }

    #[test]
    fn native_conditions_print_with_minimal_parentheses() {
        let head = "litmus T\nshared x, a[2];\nthread P0 { r0 = x; }\nthread P1 { r1 = x; }\n";
        let cases = [
            "P0:r0 == 0 && P1:r1 == 0",
            "P0:r0 == 0 && (P1:r1 == 1 || x == 2)",
            "P0:r0 == 0 && P1:r1 == 1 || x == 2",
            "!(a[1] == 2) && P0:r0 - (P1:r1 - 1) == -3",
            "P0:r0 * (P1:r1 + 1) != a[0]",
        ];
        for c in cases {
            assert_eq!(printed(&format!("{head}exists ({c})\n")), c);
        }
    }

    #[test]
    fn x86_conditions_print_in_herd_syntax() {
        let head = "X86 T\n{ x=0; y=0; }\n P0 | P1 ;\n MOV EAX,[x] | MOV EAX,[y] ;\n";
        let cases = [
            ("exists (0:EAX=0 /\\ 1:EAX=0)", "0:EAX=0 /\\ 1:EAX=0"),
            // Locations in brackets, as herd7 7.56.3 and later print them in every dialect.
            (
                "exists (0:EAX=0 /\\ (1:EAX=1 \\/ x=2))",
                "0:EAX=0 /\\ (1:EAX=1 \\/ [x]=2)",
            ),
            ("~exists (P0:EAX=1 /\\ [y]=0)", "0:EAX=1 /\\ [y]=0"),
            ("forall (0:EAX=1 => ~(x=2))", "0:EAX=1 => not ([x]=2)"),
            ("exists (not (0:EAX=0 /\\ x=1))", "not (0:EAX=0 /\\ [x]=1)"),
        ];
        for (src, want) in cases {
            assert_eq!(printed(&format!("{head}{src}\n")), want, "{src}");
        }
    }
}
