//! The program with a fence at every candidate place, lowered once, and its variants: a
//! candidate set is the same program with the other candidates' fence instructions switched
//! off. The fences are added to the AST, not the text, so every position stays the original
//! text's and nothing is reparsed.

use super::{Candidate, Path};
use crate::ast::{Stmt, StmtKind, Test};
use crate::ir::{InstrKind, Program};
use crate::span::Span;
use std::collections::{BTreeMap, BTreeSet};

/// The program with every candidate fenced, and where each candidate's fence is.
pub(super) struct AllFenced {
    /// The test with a fence statement after every candidate's statement.
    pub test: Test,
    pub program: Program,
    /// Per candidate: (thread, pc) of its fence instruction.
    pub pcs: Vec<(usize, usize)>,
}

impl AllFenced {
    /// `test` with a fence after each of `cands`, lowered with `loop_bound`.
    pub fn new(test: &Test, cands: &[Candidate], loop_bound: u32) -> Result<AllFenced, String> {
        let mut fenced = test.clone();
        for (t, th) in fenced.threads.iter_mut().enumerate() {
            let marks: BTreeMap<&Path, Span> = cands
                .iter()
                .filter(|c| c.place.thread == t)
                .map(|c| (&c.path, marker(c)))
                .collect();
            if !marks.is_empty() {
                th.body = with_fences(&th.body, &mut vec![], &marks);
            }
        }
        let program = Program::lower(&fenced, loop_bound)?;
        let mut pcs = Vec::with_capacity(cands.len());
        for c in cands {
            let t = c.place.thread;
            let code = &program.threads[t].code;
            let mut at = code
                .iter()
                .enumerate()
                .filter(|(_, i)| i.kind == InstrKind::Fence && i.span == marker(c))
                .map(|(pc, _)| pc);
            match (at.next(), at.next()) {
                (Some(pc), None) => pcs.push((t, pc)),
                _ => return Err("a candidate fence is not one instruction of the program".into()),
            }
        }
        Ok(AllFenced {
            test: fenced,
            program,
            pcs,
        })
    }

    /// The program with the fences of the candidates in `on` and no other candidate's.
    pub fn variant(&self, on: &BTreeSet<usize>) -> Program {
        let mut p = self.program.clone();
        for (i, &(t, pc)) in self.pcs.iter().enumerate() {
            if !on.contains(&i) {
                p.threads[t].code[pc].kind = InstrKind::Jump(pc as u32 + 1);
            }
        }
        p
    }
}

/// The span of a candidate's fence: empty, where its text would go. No statement of the
/// source has an empty span, and no two candidates of a thread share a place.
fn marker(c: &Candidate) -> Span {
    Span::new(c.place.offset, c.place.offset)
}

/// `body` (at `prefix`) with a fence statement after each statement whose path is in `marks`.
fn with_fences(body: &[Stmt], prefix: &mut Path, marks: &BTreeMap<&Path, Span>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(body.len());
    for (i, s) in body.iter().enumerate() {
        prefix.push(i);
        let nested = |branch: usize, b: &[Stmt], prefix: &mut Path| {
            prefix.push(branch);
            let b = with_fences(b, prefix, marks);
            prefix.pop();
            b
        };
        let kind = match &s.kind {
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => StmtKind::If {
                cond: cond.clone(),
                then_body: nested(0, then_body, prefix),
                else_body: nested(1, else_body, prefix),
            },
            StmtKind::While { cond, body } => StmtKind::While {
                cond: cond.clone(),
                body: nested(2, body, prefix),
            },
            k => k.clone(),
        };
        out.push(Stmt { kind, span: s.span });
        if let Some(&span) = marks.get(&*prefix) {
            out.push(Stmt {
                kind: StmtKind::Fence,
                span,
            });
        }
        prefix.pop();
    }
    out
}
