//! What both axiomatic checks (herd's instruction tests, [`super::check`], and its C tests,
//! [`super::ccheck::check_c`]) keep of the model's runs on their candidates, herd's way: the
//! positive and negative counts of the allowed ones, the first witness the condition asks for,
//! the first forbidden execution whose state satisfies the condition, and the verdict.

use crate::ast::Quantifier;
use crate::cat::Failure;

pub(super) struct Tally<E> {
    pub positive: u64,
    pub negative: u64,
    pub witness: Option<E>,
    pub forbidden: Option<E>,
}

impl<E> Tally<E> {
    pub fn new() -> Self {
        Tally {
            positive: 0,
            negative: 0,
            witness: None,
            forbidden: None,
        }
    }

    /// One run of the model on a candidate whose final state satisfies the condition when
    /// `sat`; `exe` builds the execution to keep. Whether the model allowed it.
    pub fn run(
        &mut self,
        failed: Option<Failure>,
        sat: bool,
        quantifier: Quantifier,
        exe: impl FnOnce(Option<Failure>) -> E,
    ) -> bool {
        match failed {
            None => {
                if sat {
                    self.positive += 1;
                } else {
                    self.negative += 1;
                }
                let wanted = sat != (quantifier == Quantifier::Forall);
                if wanted && self.witness.is_none() {
                    self.witness = Some(exe(None));
                }
                true
            }
            Some(f) => {
                if sat && self.forbidden.is_none() {
                    self.forbidden = Some(exe(Some(f)));
                }
                false
            }
        }
    }

    /// Adds the tally of the runs that follow this one's in the sequential order.
    pub fn merge(&mut self, next: Tally<E>) {
        self.positive += next.positive;
        self.negative += next.negative;
        if self.witness.is_none() {
            self.witness = next.witness;
        }
        if self.forbidden.is_none() {
            self.forbidden = next.forbidden;
        }
    }

    /// herd's verdict on the condition; the forbidden execution is kept only when no allowed
    /// state satisfies it (it is then what forbids the condition's state).
    pub fn verdict(&mut self, quantifier: Quantifier) -> bool {
        if self.positive > 0 {
            self.forbidden = None;
        }
        match quantifier {
            Quantifier::Exists => self.positive > 0,
            Quantifier::NotExists => self.positive == 0,
            Quantifier::Forall => self.negative == 0,
        }
    }
}
