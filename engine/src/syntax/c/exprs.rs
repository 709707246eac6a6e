//! C expressions as written ([`SExpr`]): operators, casts (dropped: herd ignores C's types),
//! calls (macros stay calls), assignments; what the dialect lacks is an error here.

use super::Lower;
use crate::ast::Name;
use crate::c::source::{SExpr, SUnOp};
use crate::c::{BinOp, UnOp};
use crate::span::Span;
use crate::syntax::{children_by_field, field};
use tree_sitter::Node;

impl Lower<'_, '_> {
    pub(super) fn expr_inner(&mut self, node: Node, sp: Span) -> SExpr {
        let b = Box::new;
        match node.kind() {
            "identifier" => SExpr::Ident(self.src.name(node)),
            "integer" => {
                let t = self.src.text(node);
                let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                    Some(h) => i64::from_str_radix(h, 16).ok(),
                    None => t.parse().ok(),
                };
                match v {
                    Some(v) => SExpr::Int(v, sp),
                    None => {
                        self.error(sp, format!("integer `{t}` does not fit in 64 bits"));
                        SExpr::Int(0, sp)
                    }
                }
            }
            "c_parenthesized" => self.expr_field(node, "expression"),
            // herd ignores C's types: a cast is its operand.
            "c_cast" => self.expr_field(node, "operand"),
            "c_unary" => {
                let op = field(node, "operator").map_or("", |o| self.src.text(o));
                let x = self.expr_field(node, "operand");
                let op = match op {
                    "-" => SUnOp::Op(UnOp::Neg),
                    "!" => SUnOp::Op(UnOp::Not),
                    "~" => SUnOp::Op(UnOp::BitNot),
                    "*" => SUnOp::Deref,
                    "&" => SUnOp::AddrOf,
                    _ => return x, // `+e`
                };
                SExpr::Unary(op, b(x), sp)
            }
            "c_binary" => {
                let op = field(node, "operator").map_or("", |o| self.src.text(o));
                let l = self.expr_field(node, "left");
                let r = self.expr_field(node, "right");
                let op = match op {
                    "||" => BinOp::LogicalOr,
                    "&&" => BinOp::LogicalAnd,
                    "|" => BinOp::Or,
                    "^" => BinOp::Xor,
                    "&" => BinOp::And,
                    "==" => BinOp::Eq,
                    "!=" => BinOp::Ne,
                    "<" => BinOp::Lt,
                    "<=" => BinOp::Le,
                    ">" => BinOp::Gt,
                    ">=" => BinOp::Ge,
                    "<<" => BinOp::Shl,
                    ">>" => BinOp::Shr,
                    "+" => BinOp::Add,
                    "-" => BinOp::Sub,
                    "*" => BinOp::Mul,
                    "/" => BinOp::Div,
                    _ => BinOp::Rem,
                };
                SExpr::Binary(op, b(l), b(r), sp)
            }
            "c_conditional" => {
                let c = self.expr_field(node, "condition");
                let x = self.expr_field(node, "consequence");
                let y = self.expr_field(node, "alternative");
                SExpr::Cond(b(c), b(x), b(y), sp)
            }
            "c_assignment" => {
                let op = match field(node, "operator").map_or("=", |o| self.src.text(o)) {
                    "+=" => Some(BinOp::Add),
                    "-=" => Some(BinOp::Sub),
                    "|=" => Some(BinOp::Or),
                    "&=" => Some(BinOp::And),
                    "^=" => Some(BinOp::Xor),
                    _ => None,
                };
                let left = self.expr_field(node, "left");
                let right = self.expr_field(node, "right");
                SExpr::Assign {
                    op,
                    left: b(left),
                    right: b(right),
                    span: sp,
                }
            }
            "c_call" => {
                let name = match field(node, "function") {
                    Some(f) => self.src.name(f),
                    None => Name {
                        text: String::new(),
                        span: sp,
                    },
                };
                let args = children_by_field(node, "argument")
                    .into_iter()
                    .map(|a| self.expr(a))
                    .collect();
                SExpr::Call {
                    name,
                    args,
                    span: sp,
                }
            }
            "c_member" => {
                self.error(
                    sp,
                    "structure members (`->`, `.`) are not supported in C tests",
                );
                SExpr::Int(0, sp)
            }
            "c_subscript" => {
                self.error(sp, "arrays (`a[i]`) are not supported in C tests");
                SExpr::Int(0, sp)
            }
            // ERROR nodes: already a syntax error.
            _ => SExpr::Int(0, sp),
        }
    }
}
