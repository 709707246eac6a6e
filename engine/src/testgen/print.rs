//! Printing a test as native-dialect source.

use crate::ast::*;

/// Prints a test as native-dialect source (`docs/reference.md#native`). Expressions are fully parenthesised.
pub fn print(test: &Test) -> String {
    let mut out = format!("litmus {}\n\n", test.name.text);
    if !test.shared.is_empty() {
        let decls: Vec<String> = test
            .shared
            .iter()
            .map(|d| match d.size {
                None => format!("{} = {}", d.name.text, d.init.first().copied().unwrap_or(0)),
                Some(n) => format!(
                    "{}[{}] = {{{}}}",
                    d.name.text,
                    n,
                    d.init
                        .iter()
                        .map(|v| v.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
            .collect();
        out += &format!("shared {};\n", decls.join(", "));
    }
    if !test.mutexes.is_empty() {
        let ms: Vec<&str> = test.mutexes.iter().map(|m| m.text.as_str()).collect();
        out += &format!("mutex {};\n", ms.join(", "));
    }
    for th in &test.threads {
        out += &format!("\nthread {} {{\n", th.name.text);
        for s in &th.body {
            print_stmt(test, s, 1, &mut out);
        }
        out += "}\n";
    }
    if let Some(c) = &test.condition {
        out += &format!(
            "\n{} ({})\n",
            c.quantifier.as_str(),
            print_expr(test, &c.expr)
        );
    }
    out
}

fn print_loc(test: &Test, l: &LocRef) -> String {
    let name = test
        .shared
        .get(l.var)
        .map(|d| d.name.text.as_str())
        .unwrap_or("?");
    match &l.index {
        None => name.to_string(),
        Some(i) => format!("{name}[{}]", print_expr(test, i)),
    }
}

fn print_expr(test: &Test, e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(v) if *v < 0 => format!("(-{})", v.unsigned_abs()),
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Reg(n) => n.text.clone(),
        ExprKind::Load(l) => print_loc(test, l),
        ExprKind::ThreadReg { thread, reg } => format!(
            "{}:{}",
            test.threads
                .get(*thread)
                .map(|t| t.name.text.as_str())
                .unwrap_or("?"),
            reg.text
        ),
        ExprKind::Unary(op, a) => {
            let o = if *op == UnOp::Neg { "-" } else { "!" };
            format!("{o}({})", print_expr(test, a))
        }
        ExprKind::Binary(op, a, b) => {
            if *op == BinOp::Implies {
                return format!("(!({}) || ({}))", print_expr(test, a), print_expr(test, b));
            }
            let o = op.symbol();
            format!("({} {o} {})", print_expr(test, a), print_expr(test, b))
        }
    }
}

fn print_stmt(test: &Test, s: &Stmt, depth: usize, out: &mut String) {
    let ind = "  ".repeat(depth);
    match &s.kind {
        StmtKind::Store { loc, value } => {
            *out += &format!(
                "{ind}{} = {};\n",
                print_loc(test, loc),
                print_expr(test, value)
            )
        }
        StmtKind::Assign { reg, value } => {
            *out += &format!("{ind}{} = {};\n", reg.text, print_expr(test, value))
        }
        StmtKind::Fence => *out += &format!("{ind}fence;\n"),
        StmtKind::Lock { name, .. } => *out += &format!("{ind}lock({});\n", name.text),
        StmtKind::Unlock { name, .. } => *out += &format!("{ind}unlock({});\n", name.text),
        StmtKind::Rmw {
            dest,
            op,
            loc,
            args,
        } => {
            let f = match op {
                RmwOp::Xchg => "xchg",
                RmwOp::Cas => "cas",
                RmwOp::FetchAdd => "fetch_add",
                // x86-only operations (`LOCK AND`, ...), never generated.
                RmwOp::FetchAnd => "fetch_and",
                RmwOp::FetchOr => "fetch_or",
                RmwOp::FetchXor => "fetch_xor",
            };
            let mut a = vec![print_loc(test, loc)];
            a.extend(args.iter().map(|x| print_expr(test, x)));
            let call = format!("{f}({})", a.join(", "));
            match dest {
                Some(d) => *out += &format!("{ind}{} = {call};\n", d.text),
                None => *out += &format!("{ind}{call};\n"),
            }
        }
        StmtKind::Assert(e) => *out += &format!("{ind}assert({});\n", print_expr(test, e)),
        StmtKind::Assume(e) => *out += &format!("{ind}assume({});\n", print_expr(test, e)),
        StmtKind::Await(e) => *out += &format!("{ind}await({});\n", print_expr(test, e)),
        StmtKind::If {
            cond,
            then_body,
            else_body,
        } => {
            *out += &format!("{ind}if ({}) {{\n", print_expr(test, cond));
            for t in then_body {
                print_stmt(test, t, depth + 1, out);
            }
            if else_body.is_empty() {
                *out += &format!("{ind}}}\n");
            } else {
                *out += &format!("{ind}}} else {{\n");
                for t in else_body {
                    print_stmt(test, t, depth + 1, out);
                }
                *out += &format!("{ind}}}\n");
            }
        }
        StmtKind::While { cond, body } => {
            *out += &format!("{ind}while ({}) {{\n", print_expr(test, cond));
            for t in body {
                print_stmt(test, t, depth + 1, out);
            }
            *out += &format!("{ind}}}\n");
        }
    }
}
