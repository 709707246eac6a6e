//! Final states on the hot path: values over interned keys, and the final condition compiled
//! to read them.
//!
//! A [`crate::report::FinalState`] pairs every key (`P0:r0`, `x`, `a[1]`) with its value, so
//! building one per execution, comparing them in the collector's set and evaluating the
//! condition by key (`format!` per atom) allocated strings for every execution. The keys of
//! every final state of a program are the same and come in the same order
//! ([`crate::semantics::State::final_state`]), so the collector keeps only the values
//! ([`FinalKeys::values`]); two value vectors compare as their final states do (the keys are
//! equal position by position), so the set's order, and the report, stay the same. The
//! strings are made once per report ([`FinalKeys::state`]).
//!
//! [`CompiledCondition`] is the condition's expression with each atom resolved to a position
//! in those values once; [`CompiledCondition::eval`] gives what
//! [`crate::condition::satisfies`] gives on the corresponding final state.

use crate::ast::{self, BinOp, ExprKind, UnOp};
use crate::condition::{cell_key, reg_key};
use crate::ir::{binop, Program};
use crate::report::FinalState;
use crate::semantics::State;
use rustc_hash::FxHashMap;

/// The keys of a program's final states, in their canonical order.
pub struct FinalKeys {
    keys: Vec<String>,
    /// The position of each key (the first, as [`FinalState::get`] finds it).
    index: FxHashMap<String, usize>,
}

impl FinalKeys {
    pub fn new(p: &Program) -> FinalKeys {
        let mut keys = Vec::new();
        for (t, th) in p.threads.iter().enumerate() {
            for r in 0..th.regs.len() {
                keys.push(p.reg_key(t, r));
            }
        }
        keys.extend(p.cells.iter().cloned());
        let mut index = FxHashMap::default();
        for (i, k) in keys.iter().enumerate() {
            index.entry(k.clone()).or_insert(i);
        }
        FinalKeys { keys, index }
    }

    /// The values of `state`'s final state, in key order (no strings).
    pub fn values(p: &Program, state: &State) -> Vec<i64> {
        let mut v = Vec::with_capacity(state.mem.len() + p.threads.len());
        for (t, th) in p.threads.iter().enumerate() {
            v.extend_from_slice(&state.threads[t].regs[..th.regs.len()]);
        }
        v.extend_from_slice(&state.mem);
        v
    }

    /// The position of `key`, if final states have it.
    pub fn position(&self, key: &str) -> Option<usize> {
        self.index.get(key).copied()
    }

    /// The values of `fs` in key order, if it has exactly these keys in this order.
    pub fn values_of(&self, fs: &FinalState) -> Option<Vec<i64>> {
        (fs.0.len() == self.keys.len() && fs.0.iter().zip(&self.keys).all(|((k, _), j)| k == j))
            .then(|| fs.0.iter().map(|&(_, v)| v).collect())
    }

    /// About the bytes a [`FinalState`] of these keys takes: a (key, value) pair and the
    /// key's string (at least 16 bytes) per key.
    pub fn listed_bytes(&self) -> u64 {
        let pairs = std::mem::size_of::<(String, i64)>();
        self.keys
            .iter()
            .map(|k| (pairs + k.len().next_multiple_of(16).max(16)) as u64)
            .sum()
    }

    /// The final state with these values.
    pub fn state(&self, values: &[i64]) -> FinalState {
        FinalState(
            self.keys
                .iter()
                .cloned()
                .zip(values.iter().copied())
                .collect(),
        )
    }
}

/// An atom's place in the values: a scalar's or register's position, or an array's cells.
enum Atom {
    /// A position, or `None` for a key final states lack (reads 0).
    Slot(Option<usize>),
    /// An array cell chosen by the index expression: `cells[i]` for `0 <= i < cells.len()`;
    /// other indices are looked up by key (`name`).
    Array {
        name: String,
        cells: Vec<Option<usize>>,
        index: Box<Compiled>,
    },
}

enum Compiled {
    Int(i64),
    Atom(Atom),
    Unary(UnOp, Box<Compiled>),
    Binary(BinOp, Box<Compiled>, Box<Compiled>),
}

/// The final condition's expression over [`FinalKeys`] positions.
pub struct CompiledCondition {
    expr: Compiled,
    keys: FinalKeys,
}

impl CompiledCondition {
    /// The condition of `test` over the final states of `p`; `None` without a condition.
    pub fn new(test: &ast::Test, p: &Program) -> Option<CompiledCondition> {
        let c = test.condition.as_ref()?;
        let keys = FinalKeys::new(p);
        Some(CompiledCondition {
            expr: compile(test, &keys, &c.expr),
            keys,
        })
    }

    /// The keys it reads through.
    pub fn keys(&self) -> &FinalKeys {
        &self.keys
    }

    /// Whether the condition's expression holds in the final state with `values`.
    pub fn holds(&self, values: &[i64]) -> bool {
        eval(&self.keys, &self.expr, values) != 0
    }
}

fn compile(test: &ast::Test, keys: &FinalKeys, e: &ast::Expr) -> Compiled {
    let slot = |k: String| Compiled::Atom(Atom::Slot(keys.position(&k)));
    match &e.kind {
        ExprKind::Int(v) => Compiled::Int(*v),
        ExprKind::Reg(_) => Compiled::Int(0),
        ExprKind::ThreadReg { thread, reg } => match test.threads.get(*thread) {
            Some(t) => slot(reg_key(&t.name.text, &reg.text)),
            None => Compiled::Int(0),
        },
        ExprKind::Load(loc) => {
            let Some(d) = test.shared.get(loc.var) else {
                return Compiled::Int(0);
            };
            let name = &d.name.text;
            if !d.is_array() {
                return slot(cell_key(name, None));
            }
            let index = match &loc.index {
                Some(i) => compile(test, keys, i),
                None => Compiled::Int(0),
            };
            Compiled::Atom(Atom::Array {
                name: name.clone(),
                cells: (0..d.cells() as i64)
                    .map(|i| keys.position(&cell_key(name, Some(i))))
                    .collect(),
                index: Box::new(index),
            })
        }
        ExprKind::Unary(op, a) => Compiled::Unary(*op, Box::new(compile(test, keys, a))),
        ExprKind::Binary(op, a, b) => Compiled::Binary(
            *op,
            Box::new(compile(test, keys, a)),
            Box::new(compile(test, keys, b)),
        ),
    }
}

/// [`crate::condition`]'s `eval_in` over values: the same short-circuits, division by zero
/// reads 0, a missing key reads 0.
fn eval(keys: &FinalKeys, e: &Compiled, values: &[i64]) -> i64 {
    let at = |slot: Option<usize>| slot.and_then(|i| values.get(i).copied()).unwrap_or(0);
    match e {
        Compiled::Int(v) => *v,
        Compiled::Atom(Atom::Slot(s)) => at(*s),
        Compiled::Atom(Atom::Array { name, cells, index }) => {
            let i = eval(keys, index, values);
            match usize::try_from(i).ok().and_then(|i| cells.get(i)) {
                Some(s) => at(*s),
                None => at(keys.position(&cell_key(name, Some(i)))),
            }
        }
        Compiled::Unary(op, a) => {
            let v = eval(keys, a, values);
            match op {
                UnOp::Neg => v.wrapping_neg(),
                UnOp::Not => (v == 0) as i64,
            }
        }
        Compiled::Binary(op, a, b) => {
            let x = eval(keys, a, values);
            match op {
                BinOp::And if x == 0 => return 0,
                BinOp::Or if x != 0 => return 1,
                BinOp::Implies if x == 0 => return 1,
                _ => {}
            }
            binop(*op, x, eval(keys, b, values)).unwrap_or(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{Expr, LocRef, Name};
    use crate::syntax;

    fn e(kind: ExprKind) -> Expr {
        Expr {
            kind,
            span: Default::default(),
        }
    }
    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        e(ExprKind::Binary(op, Box::new(a), Box::new(b)))
    }
    fn reg(thread: usize, r: &str) -> Expr {
        e(ExprKind::ThreadReg {
            thread,
            reg: Name {
                text: r.into(),
                span: Default::default(),
            },
        })
    }
    fn load(var: usize, index: Option<Expr>) -> Expr {
        e(ExprKind::Load(LocRef {
            var,
            index: index.map(Box::new),
            span: Default::default(),
        }))
    }

    /// The compiled condition agrees with `condition::satisfies` on every combination of
    /// values in -1..=3 for conditions with registers, scalars, arrays (constant, computed and
    /// out-of-range indices), keys final states lack (a register of no thread, an unknown
    /// register), short-circuits, division by zero and every operator kind.
    #[test]
    fn compiled_condition_agrees_with_the_string_keyed_one() {
        let src = "litmus T\nshared x = 0, a[3];\nthread P0 {\n  r0 = x;\n  r1 = a[1];\n}\n\
                   thread P1 {\n  r0 = a[2];\n}\nexists (P0:r0 == 1 && a[1] == P1:r0)\n";
        let mut test = syntax::parse(src).test.expect("parses");
        let p = Program::lower(&test, 2).expect("lowers");
        use BinOp::*;
        let int = |v| e(ExprKind::Int(v));
        let exprs = [
            test.condition.as_ref().unwrap().expr.clone(),
            bin(
                Or,
                bin(Eq, load(1, Some(reg(0, "r1"))), int(2)),
                bin(Implies, load(0, None), bin(Div, reg(1, "r0"), reg(0, "r0"))),
            ),
            bin(
                And,
                e(ExprKind::Unary(UnOp::Not, Box::new(reg(0, "r9")))),
                bin(
                    Add,
                    bin(
                        Rem,
                        load(1, Some(bin(Sub, reg(1, "r0"), int(1)))),
                        reg(0, "r1"),
                    ),
                    e(ExprKind::Unary(UnOp::Neg, Box::new(reg(7, "r0")))),
                ),
            ),
            bin(Ne, load(1, None), load(5, None)),
        ];
        let mut checked = 0;
        for expr in exprs {
            test.condition.as_mut().unwrap().expr = expr;
            let c = CompiledCondition::new(&test, &p).expect("a condition");
            let n = c.keys().keys.len();
            for code in 0..5u32.pow(n as u32) {
                let mut values = vec![0i64; n];
                let mut k = code;
                for v in values.iter_mut() {
                    *v = (k % 5) as i64 - 1;
                    k /= 5;
                }
                let fs = c.keys().state(&values);
                assert_eq!(
                    Some(c.holds(&values)),
                    crate::condition::satisfies(&test, &fs),
                    "{fs:?}"
                );
                assert_eq!(c.keys().values_of(&fs), Some(values));
                checked += 1;
            }
        }
        println!("compared {checked} final states");
    }
}
