//! The reference explorer: exhaustive breadth-first search of the operational semantics of
//! [`crate::semantics`] with a visited set of states. It is the oracle the MCR engine is tested
//! against: simple rather than fast.
//!
//! Every state reachable from the initial state is visited once, at its smallest depth, so
//! every reported schedule (violation, witness, condition counterexample) is a shortest one.
//! Choices are taken in the order of [`State::enabled`], so exploration is deterministic. An
//! *execution* here is a path reaching a terminal state not seen before, so `stats.executions`
//! counts distinct terminal states (final, violating or blocked).

use super::tree::Tree;
use crate::collect::Collector;
use crate::control::Control;
use crate::ir::Program;
use crate::options::CheckOptions;
use crate::report::Model;
use crate::semantics::State;
use std::collections::{HashSet, VecDeque};

/// Explores every state of `program` under `model`, feeding `col`. Stops early (setting
/// `col.complete = false`) on cancellation or timeout.
pub fn explore(
    program: &Program,
    model: Model,
    _opts: &CheckOptions,
    ctl: &Control,
    col: &mut Collector<'_>,
) {
    let init = State::initial(program, model);
    if !init.is_running() {
        col.end(&init, &[]);
        return;
    }
    let mut visited: HashSet<State> = HashSet::new();
    visited.insert(init.clone());
    let mut nodes = Tree::default();
    let mut queue: VecDeque<(State, Option<usize>)> = VecDeque::from([(init, None)]);
    let mut steps: u64 = 0;
    while let Some((state, id)) = queue.pop_front() {
        for choice in state.enabled(program) {
            let mut s = state.clone();
            let ev = s.step(program, choice);
            steps += 1;
            // Every step: a step of a program with thousands of threads clones a large state.
            // One unit of work for the portfolio per step.
            col.count_work(1);
            if ctl.should_stop() {
                col.complete = false;
                col.stats.explored = visited.len() as u64;
                // Stopped early: return now, free the visited set meanwhile.
                super::drop_in_background((visited, nodes, queue, state, s));
                return;
            }
            if steps.is_multiple_of(8192) {
                ctl.report(&col.progress());
            }
            if visited.contains(&s) {
                continue;
            }
            visited.insert(s.clone());
            let nid = nodes.push(id, ev);
            if s.is_running() {
                queue.push_back((s, nid));
            } else {
                col.end(&s, &nodes.path(nid));
                if col.stopped_first() {
                    col.complete = false;
                    return;
                }
            }
        }
    }
    col.stats.explored = visited.len() as u64;
    ctl.report(&col.progress());
}

#[cfg(test)]
mod tests {
    use crate::control::Control;
    use crate::options::{CheckOptions, EngineKind};
    use crate::report::Model;
    use crate::report::{FinalState, ViolationKind};
    use crate::semantics::{BlockReason, State, Status};
    use crate::span::Span;
    use crate::testgen::{random_test, random_test_with, GenConfig};
    use std::collections::BTreeSet;

    fn opts() -> CheckOptions {
        CheckOptions {
            engine: EngineKind::Exhaustive.into(),
            ..CheckOptions::default()
        }
    }

    /// Final states, (kind, span) of violations, and whether the loop bound cut an execution.
    type Outcome = (BTreeSet<FinalState>, BTreeSet<(ViolationKind, Span)>, bool);

    /// All paths, no visited set. `None` when there are more than `budget` paths.
    fn naive(p: &crate::ir::Program, m: Model, budget: &mut u64) -> Option<Outcome> {
        let mut out = (BTreeSet::new(), BTreeSet::new(), false);
        let mut stack = vec![State::initial(p, m)];
        while let Some(s) = stack.pop() {
            match s.status() {
                Status::Running => {
                    for c in s.enabled(p) {
                        let mut n = s.clone();
                        n.step(p, c);
                        stack.push(n);
                    }
                }
                st => {
                    *budget = budget.checked_sub(1)?;
                    match st {
                        Status::Finished => {
                            out.0.insert(s.final_state(p));
                        }
                        Status::Violation { kind, span, .. } => {
                            out.1.insert((*kind, *span));
                        }
                        Status::Blocked { reason, .. } => {
                            out.2 |= *reason == BlockReason::LoopBound
                        }
                        Status::Running => {}
                    }
                }
            }
        }
        Some(out)
    }

    #[test]
    fn the_visited_set_loses_nothing() {
        let mut compared = 0;
        for seed in 0..200 {
            let t = if seed % 2 == 0 {
                random_test(seed)
            } else {
                random_test_with(seed, GenConfig::all())
            };
            let p = crate::ir::Program::lower(&t, 2).unwrap();
            for m in Model::ALL {
                let Some((states, viols, lb)) = naive(&p, m, &mut 4_000) else {
                    continue;
                };
                compared += 1;
                let o = CheckOptions {
                    loop_bound: 2,
                    ..opts()
                };
                let r = crate::check(&t, m, &o, &Control::new());
                assert_eq!(
                    r.states,
                    states.into_iter().collect::<Vec<_>>(),
                    "seed {seed} {m:?}"
                );
                let got: BTreeSet<_> = r
                    .violations
                    .iter()
                    .filter(|v| v.kind != ViolationKind::Condition)
                    .map(|v| (v.kind, v.span))
                    .collect();
                assert_eq!(got, viols, "seed {seed} {m:?}");
                assert_eq!(
                    r.warnings.iter().any(|w| w.message.contains("loop bound")),
                    lb
                );
            }
        }
        assert!(compared > 300, "only {compared} comparisons");
    }

    #[test]
    fn exploration_is_deterministic() {
        for seed in 0..40 {
            let t = random_test(seed);
            for m in Model::ALL {
                let mut a = crate::check(&t, m, &opts(), &Control::new());
                let mut b = crate::check(&t, m, &opts(), &Control::new());
                a.stats.time_ms = 0.0;
                b.stats.time_ms = 0.0;
                assert_eq!(a, b, "seed {seed} {m:?}");
            }
        }
    }

    /// Cancelling and deadlines are tested for every engine at once in
    /// `engine/tests/cancel.rs`; here, the reference explorer's last progress report counts
    /// every execution.
    #[test]
    fn progress_reports_every_execution() {
        // The largest of some random programs, so that exploration reports more than once.
        let t = (0..80)
            .map(random_test)
            .max_by_key(|t| {
                let r = crate::check(t, Model::Pso, &opts(), &Control::new());
                r.stats.executions
            })
            .unwrap();
        let full = crate::check(&t, Model::Pso, &opts(), &Control::new());
        assert!(full.complete && full.stats.executions > 100);
        // Progress is reported.
        let seen = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let s2 = seen.clone();
        let ctl = Control::new()
            .with_progress(move |p| s2.store(p.executions, std::sync::atomic::Ordering::Relaxed));
        crate::check(&t, Model::Pso, &opts(), &ctl);
        assert_eq!(
            seen.load(std::sync::atomic::Ordering::Relaxed),
            full.stats.executions
        );
    }
}
