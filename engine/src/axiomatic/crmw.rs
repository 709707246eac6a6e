//! The read-modify-writes and lock primitives of a C thread that give a value
//! ([`super::cthread`]): herd's `__xchg`, `__cmpxchg`, the `__atomic_op` forms,
//! `__atomic_add_unless` (a read and a write joined by `rmw`, or the read alone when it
//! fails), C11's (one event, both a read and a write), `spin_trylock` and `spin_is_locked`.

use super::cthread::{binop, bit, tags_of, Alts, CCtx, CKind, St};
use super::AxError;
use crate::c::{Annot, Expr, Returns};

impl CCtx<'_> {
    /// The read-modify-writes and lock primitives that give a value.
    pub(super) fn eval_rmw(&self, e: &Expr, st: St) -> Result<Alts, AxError> {
        let mut out = Vec::new();
        match e {
            Expr::Xchg {
                annot, addr, value, ..
            } => {
                for (st, a, at) in self.eval(addr, st)? {
                    for (st, v, vt) in self.eval(value, st)? {
                        if let Annot::Order(_) = annot {
                            for (st, i) in
                                self.update(st, a, at, tags_of(annot), &|_| true, (&|_| v, vt))?
                            {
                                let old = st.path.events[i].read;
                                out.push((st, old, bit(i)));
                            }
                            continue;
                        }
                        for (mut st, r) in self.reads(st, a, at, tags_of(annot), true)? {
                            let w = self.write(&mut st, a, at, tags_of(annot), (v, vt), true)?;
                            st.path.rmw.push((r, w));
                            let old = st.path.events[r].read;
                            out.push((st, old, bit(r)));
                        }
                    }
                }
            }
            Expr::Cmpxchg {
                annot,
                addr,
                old,
                new,
                ..
            } => {
                for (st, a, at) in self.eval(addr, st)? {
                    for (st, o, _) in self.eval(old, st)? {
                        for (st, n, nt) in self.eval(new, st)? {
                            for (mut st, r) in self.reads(st, a, at, tags_of(annot), true)? {
                                let v = st.path.events[r].read;
                                if v == o {
                                    let w =
                                        self.write(&mut st, a, at, tags_of(annot), (n, nt), true)?;
                                    st.path.rmw.push((r, w));
                                }
                                out.push((st, v, bit(r)));
                            }
                        }
                    }
                }
            }
            Expr::CompareExchange {
                strong,
                addr,
                expected,
                desired,
                success,
                failure,
                ..
            } => {
                for (st, a, at) in self.eval(addr, st)? {
                    for (st, ea, et) in self.eval(expected, st)? {
                        for (st, d, dt) in self.eval(desired, st)? {
                            // the expected value, read non-atomically
                            for (st, er) in self.reads(st, ea, et, Vec::new(), false)? {
                                let exp = st.path.events[er].read;
                                let ok = |v: i64| v == exp;
                                for (st, _) in self.update(
                                    st.clone(),
                                    a,
                                    at,
                                    vec![success.tag().into()],
                                    &ok,
                                    (&|_| d, dt),
                                )? {
                                    out.push((st, 1, 0));
                                }
                                for (mut st, r) in
                                    self.reads(st, a, at, vec![failure.tag().into()], false)?
                                {
                                    let v = st.path.events[r].read;
                                    if *strong && v == exp {
                                        continue;
                                    }
                                    self.write(&mut st, ea, et, Vec::new(), (v, bit(r)), false)?;
                                    out.push((st, 0, 0));
                                }
                            }
                        }
                    }
                }
            }
            Expr::AtomicOp {
                annot,
                addr,
                op,
                value,
                returns,
                ..
            } => {
                for (st, v, vt) in self.eval(value, st)? {
                    for (st, a, at) in self.eval(addr, st)? {
                        let ret = |old: i64, new: i64| match returns {
                            Returns::Nothing => 0,
                            Returns::New => new,
                            Returns::Old => old,
                        };
                        if let Annot::Order(_) = annot {
                            let f = |x: i64| binop(*op, x, v);
                            for (st, i) in
                                self.update(st, a, at, tags_of(annot), &|_| true, (&f, vt))?
                            {
                                let (o, n) = (st.path.events[i].read, st.path.events[i].write);
                                out.push((st, ret(o, n), bit(i)));
                            }
                            continue;
                        }
                        for (mut st, r) in self.reads(st, a, at, tags_of(annot), true)? {
                            let o = st.path.events[r].read;
                            let n = binop(*op, o, v);
                            let w =
                                self.write(&mut st, a, at, tags_of(annot), (n, vt | bit(r)), true)?;
                            st.path.rmw.push((r, w));
                            out.push((st, ret(o, n), bit(r)));
                        }
                    }
                }
            }
            Expr::AddUnless {
                annot,
                addr,
                add,
                unless,
                ..
            } => {
                for (st, a, at) in self.eval(addr, st)? {
                    for (st, u, _) in self.eval(unless, st)? {
                        for (st, v, vt) in self.eval(add, st)? {
                            for (mut st, r) in self.reads(st, a, at, tags_of(annot), true)? {
                                let o = st.path.events[r].read;
                                if o != u {
                                    let w = self.write(
                                        &mut st,
                                        a,
                                        at,
                                        tags_of(annot),
                                        (o.wrapping_add(v), vt | bit(r)),
                                        true,
                                    )?;
                                    st.path.rmw.push((r, w));
                                    out.push((st, 1, 0));
                                } else {
                                    out.push((st, 0, 0));
                                }
                            }
                        }
                    }
                }
            }
            Expr::TryLock { addr, .. } => {
                for (st, a, at) in self.eval(addr, st)? {
                    let mut ok = st.clone();
                    self.push(&mut ok, CKind::Lock, a, vec!["LKR".into()], at)?;
                    self.push(&mut ok, CKind::Lock, a, vec!["LKW".into()], at)?;
                    out.push((ok, 1, 0));
                    let mut no = st;
                    self.push(&mut no, CKind::Lock, a, vec!["LF".into()], at)?;
                    out.push((no, 0, 0));
                }
            }
            Expr::IsLocked { addr, .. } => {
                for (st, a, at) in self.eval(addr, st)? {
                    let mut yes = st.clone();
                    self.push(&mut yes, CKind::Lock, a, vec!["RL".into()], at)?;
                    out.push((yes, 1, 0));
                    let mut no = st;
                    self.push(&mut no, CKind::Lock, a, vec!["RU".into()], at)?;
                    out.push((no, 0, 0));
                }
            }
            _ => return self.eval(e, st),
        }
        Ok(out)
    }
}
