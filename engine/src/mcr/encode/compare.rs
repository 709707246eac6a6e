//! Benchmark mode: every Z3 query solved again with other data validity, each in a solver of
//! its own so that none changes what another learns; only the work and the answers' agreement
//! are counted, and the exploration follows the real answers.

use super::query::Z3Vars;
use super::{Answer, Encoder, Target, Validity};

/// What the benchmark's extra solves counted ([`super::super::Tuning::bare_solve`],
/// [`super::super::Tuning::paired_solve`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompareCounts {
    /// Bare: Z3's work on the same queries without any validity.
    pub work_bare: u64,
    /// Paired: Z3's work on the same queries with every read's validity (MCR without the
    /// graph).
    pub work_all: u64,
    /// Paired: Z3's work on the same queries with the paper's Algorithm 3 taken literally.
    pub work_literal: u64,
    /// Paired: Z3's work on the same queries with the static closure ([`Validity::Cone`]).
    pub work_cone: u64,
    /// Paired: queries whose satisfiability with every read's validity differs from the real
    /// answer (the graph must change no answer, only which model of it Z3 returns).
    pub paired_differ: u64,
    /// Paired: queries satisfiable both ways.
    pub paired_sat: u64,
    /// Paired: satisfiable queries whose seed with every read's validity differs from the
    /// real one (both keep every read of their seed valid; Z3 chose another model).
    pub paired_other_seed: u64,
}

/// The extra solves of one trace: which ones, and their solvers (bare, all, literal, cone).
pub struct Compare {
    bare: bool,
    paired: bool,
    sides: [Option<Z3Vars>; 4],
}

impl Compare {
    /// `bare`: solve without validity; `paired` (with the graph only): with every read's, with
    /// the paper's Algorithm 3, with the static closure.
    pub fn new(bare: bool, paired: bool) -> Compare {
        Compare {
            bare,
            paired,
            sides: [None, None, None, None],
        }
    }

    /// Solves the query that got `answer` again as configured, counting the work in `counts`.
    pub fn after(
        &mut self,
        enc: &mut Encoder<'_>,
        target: &Target,
        keep: usize,
        timeout_ms: Option<u32>,
        answer: &Answer,
        counts: &mut CompareCounts,
    ) {
        if self.bare {
            counts.work_bare += self
                .side_solve(enc, target, keep, timeout_ms, Validity::Bare)
                .0;
        }
        if self.paired && enc.pruning().is_some() {
            let (work, all) = self.side_solve(enc, target, keep, timeout_ms, Validity::All);
            counts.work_all += work;
            match (answer, &all) {
                (Answer::Sat(a), Answer::Sat(b)) => {
                    counts.paired_sat += 1;
                    counts.paired_other_seed += u64::from(a != b);
                }
                (Answer::Unknown, _) | (_, Answer::Unknown) | (Answer::Unsat, Answer::Unsat) => {}
                _ => counts.paired_differ += 1,
            }
            counts.work_literal += self
                .side_solve(enc, target, keep, timeout_ms, Validity::Literal)
                .0;
            counts.work_cone += self
                .side_solve(enc, target, keep, timeout_ms, Validity::Cone)
                .0;
        }
    }

    /// One extra solve of the query with `validity`, in its own solver: its work (returned)
    /// and its answer; the encoder's counters are left as they were.
    fn side_solve(
        &mut self,
        enc: &mut Encoder<'_>,
        target: &Target,
        keep: usize,
        timeout_ms: Option<u32>,
        validity: Validity,
    ) -> (u64, Answer) {
        let slot = match validity {
            Validity::Mcr => return (0, Answer::Unknown),
            Validity::Bare => 0,
            Validity::All => 1,
            Validity::Literal => 2,
            Validity::Cone => 3,
        };
        let (counts, constraints, constrained) =
            (enc.counts, enc.constraints, enc.constrained.take());
        std::mem::swap(&mut enc.z3, &mut self.sides[slot]);
        let answer = enc.solve_z3_with(target, keep, timeout_ms, validity);
        std::mem::swap(&mut enc.z3, &mut self.sides[slot]);
        let work = enc.counts.work - counts.work;
        (enc.counts, enc.constraints, enc.constrained) = (counts, constraints, constrained);
        (work, answer)
    }
}
