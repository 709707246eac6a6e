//! The interpreter's own functions: `domain`, `range`, `fencerel`, `classes-loc`, `classes`,
//! `linearisations`, `different-values`, `tag2events`/`tag2set`, `fold` (iterated) and
//! `cross-unions` (the project's `cross.cat` defines `cross` with it: a set built one `++`
//! at a time costs a sort per member).

use super::eval::*;
use super::rel::{members, Rel, Set};
use super::CatError;

/// The interpreter's own functions, found when no `let` defines the name.
pub(super) const BUILTINS: [&str; 12] = [
    "fold",
    "cross-unions",
    "domain",
    "range",
    "fencerel",
    "classes-loc",
    "classes",
    "linearisations",
    "different-values",
    "tag2events",
    "tag2set",
    "fail",
];

impl Env {
    pub(super) fn args(
        &self,
        arg: Value,
        k: usize,
        f: &str,
        at: usize,
    ) -> Result<Vec<Value>, CatError> {
        match arg {
            Value::Tuple(items) if items.len() == k => Ok(items.to_vec()),
            v if k == 1 => Ok(vec![v]),
            _ => Err(CatError::at(at, &format!("`{f}` takes {k} arguments"))),
        }
    }

    pub(super) fn builtin(&mut self, b: &str, arg: Value, at: usize) -> Result<Value, CatError> {
        match b {
            "domain" => Ok(Value::Set(self.as_rel(arg, at)?.domain())),
            "range" => Ok(Value::Set(self.as_rel(arg, at)?.range())),
            "fencerel" => {
                // (po & (_ * S)); po
                let s = self.as_set(arg, at)?;
                let po = self.as_rel(self.lookup("po", at)?, at)?;
                let before = po.zip(&Rel::cartesian(self.universe(), s, self.n), |x, y| x & y);
                Ok(Value::Rel(before.seq(&po)))
            }
            "classes-loc" => {
                let s = self.as_set(arg, at)?;
                let loc = self.as_rel(self.lookup("loc", at)?, at)?;
                Ok(self.classes(s, &loc))
            }
            "classes" => {
                let r = self.as_rel(arg, at)?;
                let s = r.domain();
                Ok(self.classes(s, &r))
            }
            "fold" => {
                // fold(f, s, a) = f(x1, f(x2, ... f(xn, a))), iterated (a set of many
                // choices, as `cross` builds, would nest the calls too deeply)
                let a = self.args(arg, 3, b, at)?;
                let f = a[0].clone();
                let mut acc = a[2].clone();
                let fe = super::Expr::Var("fold".into(), at);
                for x in self.elements(a[1].clone(), at)?.into_iter().rev() {
                    acc = self.apply(
                        f.clone(),
                        Value::Tuple(std::sync::Arc::new(vec![x, acc])),
                        at,
                        &fe,
                    )?;
                }
                Ok(acc)
            }
            "cross-unions" => {
                // cross(S): every union that takes one member from each set of S; {0} when S
                // is empty
                let parts = self.elements(arg, at)?;
                if self.lazy_cross {
                    let parts: Vec<Vec<Value>> = parts
                        .iter()
                        .map(|p| self.elements(p.clone(), at))
                        .collect::<Result<_, _>>()?;
                    if let Some(c) = super::cross::Cross::of(&parts, self.n) {
                        return Ok(Value::Cross(std::sync::Arc::new(c)));
                    }
                }
                let mut acc = vec![Value::Empty];
                for choices in parts {
                    let cs = self.elements(choices, at)?;
                    let mut next = Vec::with_capacity(acc.len() * cs.len());
                    for p in &acc {
                        for c in &cs {
                            let u = self.setop(super::BinOp::Union, c.clone(), p.clone(), at)?;
                            next.push(canon(u));
                        }
                    }
                    acc = match values(next) {
                        Value::Values(vs) => vs.to_vec(),
                        _ => Vec::new(),
                    };
                }
                Ok(values(acc))
            }
            "linearisations" => {
                let a = self.args(arg, 2, b, at)?;
                let s = self.as_set(a[0].clone(), at)?;
                let r = self.as_rel(a[1].clone(), at)?;
                Ok(values(linearisations(s, &r, self.n)))
            }
            "different-values" => {
                let r = self.as_rel(arg, at)?;
                let val = |e: usize| self.values.get(e).copied().flatten();
                let mut out = Rel::empty(self.n);
                for (a, b) in r.pairs() {
                    if let (Some(x), Some(y)) = (val(a), val(b)) {
                        if x != y {
                            out.add(a, b);
                        }
                    }
                }
                Ok(Value::Rel(out))
            }
            "tag2events" | "tag2set" => match arg {
                Value::Tag(t) => self.lookup(&tag_set_name(&t), at),
                v => Err(CatError::at(
                    at,
                    &format!("`{b}` takes a tag, found {}", kind_name(&v)),
                )),
            },
            _ => Err(CatError::at(at, "`fail` called")),
        }
    }

    /// The classes of `s` under the equivalence `r`, as a set of sets.
    pub(super) fn classes(&self, s: Set, r: &Rel) -> Value {
        let mut left = s;
        let mut out = Vec::new();
        while left != 0 {
            let e = left.trailing_zeros() as usize;
            let class = (r.rows[e] | 1 << e) & s;
            out.push(Value::Set(class));
            left &= !class;
        }
        values(out)
    }
}
/// Every strict total order of `s` that contains `r` restricted to `s` (transitively closed).
pub(super) fn linearisations(s: Set, r: &Rel, n: usize) -> Vec<Value> {
    let evs: Vec<usize> = members(s).collect();
    let mut out = Vec::new();
    let mut order = Vec::new();
    pub(super) fn go(
        evs: &[usize],
        left: Set,
        r: &Rel,
        n: usize,
        order: &mut Vec<usize>,
        out: &mut Vec<Value>,
    ) {
        if left == 0 {
            let mut t = Rel::empty(n);
            for (i, &a) in order.iter().enumerate() {
                for &b in &order[i + 1..] {
                    t.add(a, b);
                }
            }
            out.push(canon(Value::Rel(t)));
            return;
        }
        for &e in evs {
            // e may come next when nothing left (other than e) must precede it
            let preds = (0..n).filter(|&p| r.has(p, e) && p != e);
            if left >> e & 1 == 1 && preds.clone().all(|p| left >> p & 1 == 0) {
                order.push(e);
                go(evs, left & !(1 << e), r, n, order, out);
                order.pop();
            }
        }
    }
    let restricted = Rel {
        rows: r
            .rows
            .iter()
            .enumerate()
            .map(|(i, row)| if s >> i & 1 == 1 { row & s } else { 0 })
            .collect(),
    };
    go(&evs, s, &restricted, n, &mut order, &mut out);
    out
}
