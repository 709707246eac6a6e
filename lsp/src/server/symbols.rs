//! Names in a test: every occurrence of a shared location, mutex, register and thread, for go to
//! definition, find references, document symbols and semantic tokens.

use litmus_engine::ast::{Expr, ExprKind, LocRef, Stmt, StmtKind, Test};
use litmus_engine::Span;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sym {
    Shared(usize),
    Mutex(usize),
    /// A register: thread index and name.
    Reg(usize, String),
    Thread(usize),
}

#[derive(Clone, Debug)]
pub struct Occurrence {
    pub sym: Sym,
    /// The span of the name itself.
    pub span: Span,
    /// A declaration (`shared x`, `mutex m`, `thread P0`) or, for a register, not.
    pub decl: bool,
    /// It writes the location or register (a store, an assignment, an RMW, `lock`/`unlock`);
    /// else it reads it or names it (document highlight's kinds).
    pub write: bool,
}

/// The span of `name` within `span`: the span itself if it spells the name, else the first
/// occurrence of the name inside it as a whole word (e.g. `a` in `a[i]`, `r0` in `P0:r0`).
pub fn name_span(text: &str, span: Span, name: &str) -> Span {
    let Some(s) = text.get(span.range()) else {
        return span;
    };
    if s == name {
        return span;
    }
    let bytes = s.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut from = 0;
    while let Some(i) = s[from..].find(name).map(|i| i + from) {
        let before_ok = i == 0 || !word(bytes[i - 1]);
        let after = i + name.len();
        let after_ok = after >= bytes.len() || !word(bytes[after]);
        if before_ok && after_ok {
            return Span::new(span.start as usize + i, span.start as usize + after);
        }
        from = i + 1;
    }
    span
}

pub fn occurrences(test: &Test, text: &str) -> Vec<Occurrence> {
    let mut c = Collector {
        test,
        text,
        out: Vec::new(),
        thread: 0,
    };
    for (i, d) in test.shared.iter().enumerate() {
        let span = name_span(text, d.name.span, &d.name.text);
        c.out.push(Occurrence {
            sym: Sym::Shared(i),
            span,
            decl: true,
            write: false,
        });
    }
    for (i, m) in test.mutexes.iter().enumerate() {
        let span = name_span(text, m.span, &m.text);
        c.out.push(Occurrence {
            sym: Sym::Mutex(i),
            span,
            decl: true,
            write: false,
        });
    }
    for (t, th) in test.threads.iter().enumerate() {
        c.thread = t;
        let span = name_span(text, th.name.span, &th.name.text);
        c.out.push(Occurrence {
            sym: Sym::Thread(t),
            span,
            decl: true,
            write: false,
        });
        for (r, _) in &th.reg_init {
            c.reg(t, r);
        }
        for s in &th.body {
            c.stmt(s);
        }
    }
    if let Some(cond) = &test.condition {
        c.expr(&cond.expr);
    }
    c.out.sort_by_key(|o| (o.span.start, o.span.end));
    c.out.dedup_by(|a, b| a.span == b.span && a.sym == b.sym);
    c.out
}

struct Collector<'a> {
    test: &'a Test,
    text: &'a str,
    out: Vec<Occurrence>,
    thread: usize,
}

impl Collector<'_> {
    fn reg(&mut self, t: usize, n: &litmus_engine::ast::Name) {
        self.reg_as(t, n, false);
    }
    fn reg_as(&mut self, t: usize, n: &litmus_engine::ast::Name, write: bool) {
        let span = name_span(self.text, n.span, &n.text);
        self.out.push(Occurrence {
            sym: Sym::Reg(t, n.text.clone()),
            span,
            decl: false,
            write,
        });
    }
    fn loc(&mut self, l: &LocRef) {
        self.loc_as(l, false);
    }
    fn loc_as(&mut self, l: &LocRef, write: bool) {
        if let Some(d) = self.test.shared.get(l.var) {
            let span = name_span(self.text, l.span, &d.name.text);
            self.out.push(Occurrence {
                sym: Sym::Shared(l.var),
                span,
                decl: false,
                write,
            });
        }
        if let Some(i) = &l.index {
            self.expr(i);
        }
    }
    fn stmt(&mut self, s: &Stmt) {
        let t = self.thread;
        match &s.kind {
            StmtKind::Store { loc, value } => {
                self.loc_as(loc, true);
                self.expr(value);
            }
            StmtKind::Assign { reg, value } => {
                self.reg_as(t, reg, true);
                self.expr(value);
            }
            StmtKind::Fence => {}
            StmtKind::Lock { mutex, name } | StmtKind::Unlock { mutex, name } => {
                let span = name_span(self.text, name.span, &name.text);
                self.out.push(Occurrence {
                    sym: Sym::Mutex(*mutex),
                    span,
                    decl: false,
                    write: true,
                });
            }
            StmtKind::Rmw {
                dest, loc, args, ..
            } => {
                if let Some(d) = dest {
                    self.reg_as(t, d, true);
                }
                self.loc_as(loc, true);
                for a in args {
                    self.expr(a);
                }
            }
            StmtKind::Assert(e) | StmtKind::Assume(e) | StmtKind::Await(e) => self.expr(e),
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => {
                self.expr(cond);
                for s in then_body.iter().chain(else_body) {
                    self.stmt(s);
                }
            }
            StmtKind::While { cond, body } => {
                self.expr(cond);
                for s in body {
                    self.stmt(s);
                }
            }
        }
    }
    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Int(_) => {}
            ExprKind::Reg(n) => self.reg(self.thread, n),
            ExprKind::Load(l) => self.loc(l),
            ExprKind::ThreadReg { thread, reg } => {
                // `P0:r0`: the thread part names the thread, the register part the register.
                let span = name_span(self.text, reg.span, &reg.text);
                let span = if span == reg.span && self.text.get(span.range()) != Some(&reg.text) {
                    // The name span covers `P0:r0`: take the part after the colon.
                    let s = self.text.get(e.span.range()).unwrap_or("");
                    match s.rfind(':') {
                        Some(i) => Span::new(e.span.start as usize + i + 1, e.span.end as usize),
                        None => span,
                    }
                } else {
                    span
                };
                self.out.push(Occurrence {
                    sym: Sym::Reg(*thread, reg.text.clone()),
                    span,
                    decl: false,
                    write: false,
                });
            }
            ExprKind::Unary(_, a) => self.expr(a),
            ExprKind::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
        }
    }
}

/// The occurrence under byte offset `off` (touching its start or end counts).
pub fn at(occ: &[Occurrence], off: u32) -> Option<&Occurrence> {
    occ.iter()
        .find(|o| o.span.start <= off && off < o.span.end)
        .or_else(|| occ.iter().find(|o| o.span.end == off))
}

/// The definition of a symbol: its declaration, or for a register its first occurrence.
pub fn definition<'a>(occ: &'a [Occurrence], sym: &Sym) -> Option<&'a Occurrence> {
    occ.iter()
        .find(|o| &o.sym == sym && o.decl)
        .or_else(|| occ.iter().find(|o| &o.sym == sym))
}
