//! The public entry points of a check: [`check`] and [`robustness`], one test under one
//! model. Each lowers the program once and asks the chosen engine through the engine interface
//! ([`crate::engine::Engine`]): a fixed explorer, or the `auto` portfolio, which runs explorers
//! on that one program. The way from the options to an explorer goes one way: check → (auto
//! →) engine → explorer.

use crate::ast::Test;
use crate::collect::WorkFn;
use crate::control::Control;
use crate::engine::{engine, Engine, Task};
use crate::ir::{LowerError, Program};
use crate::options::{CheckOptions, EngineChoice, EngineKind};
use crate::report::{Model, ModelReport, Stats, Warning};
use crate::robust::Robustness;

/// The engine a choice names: the portfolio or one explorer.
pub fn chosen(choice: EngineChoice) -> &'static dyn Engine {
    match choice {
        EngineChoice::Auto => &crate::auto::Portfolio,
        EngineChoice::Fixed(kind) => engine(kind),
    }
}

/// The one explorer a choice runs on one thread (fence synthesis): `auto`'s first candidate.
pub fn single(
    choice: EngineChoice,
    program: &Program,
    model: Model,
    opts: &CheckOptions,
) -> EngineKind {
    match choice {
        EngineChoice::Auto => crate::auto::single(program, model, opts),
        EngineChoice::Fixed(kind) => kind,
    }
}

/// Checks `test` under `model`: every reachable final state, the condition's verdict,
/// violations with schedules, a witness, stats. Never panics; a violation is a result.
pub fn check(test: &Test, model: Model, opts: &CheckOptions, ctl: &Control) -> ModelReport {
    check_counting(test, model, opts, ctl, None)
}

/// [`check`], counting the explorer's work on `work` (benchmarks print it; a fixed engine
/// only).
pub fn check_counting(
    test: &Test,
    model: Model,
    opts: &CheckOptions,
    ctl: &Control,
    work: Option<WorkFn>,
) -> ModelReport {
    // The deadline counts from here (or from the caller's, if earlier: the CLI's includes
    // parsing), and the stop reason is this check's own.
    let ctl = &ctl.for_check(opts);
    // Lowering a huge thread takes a while: it polls the same stop check.
    let program = match Program::lower_with(test, opts.loop_bound, &|| ctl.should_stop()) {
        Ok(p) => p,
        Err(LowerError::Stopped) => {
            let mut report = stopped_before_exploring(model, ctl.stop_reason());
            report.stats.engine = match opts.engine {
                EngineChoice::Fixed(kind) => Some(kind),
                // As before the engine interface: the portfolio named its fallback.
                EngineChoice::Auto => Some(EngineKind::Exhaustive),
            };
            return report;
        }
        Err(LowerError::Invalid(message)) => {
            let mut report = unchecked(model, format!("cannot check: {message}"));
            if opts.engine == EngineChoice::Auto {
                report.stats.engine = Some(EngineKind::Exhaustive);
            }
            return report;
        }
    };
    let task = Task {
        work,
        ..Task::new(test, &program, model, opts)
    };
    chosen(opts.engine).check(&task, ctl)
}

/// Checks `test` for robustness under `model` (SC's executions only), with the chosen
/// engine's method: DPOR's cycle check of its executions, else the attack search.
pub fn robustness(test: &Test, model: Model, opts: &CheckOptions, ctl: &Control) -> Robustness {
    match Program::lower_with(test, opts.loop_bound, &|| ctl.should_stop()) {
        Ok(p) => chosen(opts.engine).robustness(&Task::new(test, &p, model, opts), ctl),
        Err(_) => Robustness::unrefuted(false),
    }
}

/// The report of a check stopped (cancel, deadline, memory budget) before its exploration
/// began: nothing found, incomplete, and the warning saying why.
pub fn stopped_before_exploring(model: Model, reason: Option<crate::StopReason>) -> ModelReport {
    unchecked(model, crate::collect::incomplete_message(reason))
}

/// A report with nothing found, incomplete, and one warning saying why.
fn unchecked(model: Model, message: String) -> ModelReport {
    ModelReport {
        model,
        complete: false,
        states: vec![],
        condition: None,
        violations: vec![],
        witness: None,
        warnings: vec![Warning {
            message,
            span: None,
        }],
        stats: Stats::default(),
        stopped: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{BinOp, Quantifier, StmtKind};
    use crate::report::ViolationKind;
    use crate::testgen::Builder;

    fn opts() -> CheckOptions {
        CheckOptions {
            engine: EngineKind::Exhaustive.into(),
            ..CheckOptions::default()
        }
    }

    /// Final states as strings `k=v,...` restricted to `keys`, sorted and deduplicated.
    fn states(r: &ModelReport, keys: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = r
            .states
            .iter()
            .map(|s| {
                keys.iter()
                    .map(|k| format!("{k}={}", s.get(k).unwrap_or(-99)))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// SB: P0: x=1; r0=y  P1: y=1; r1=x, exists (r0==0 && r1==0).
    fn sb(fenced: bool) -> crate::ast::Test {
        let mut b = Builder::new();
        let shared = vec![b.shared("x", 0), b.shared("y", 0)];
        let body = |b: &mut Builder, w: usize, r: usize, reg: &str| {
            let one = b.int(1);
            let mut v = vec![b.store(w, one)];
            if fenced {
                v.push(b.stmt(StmtKind::Fence));
            }
            let l = b.load(r);
            v.push(b.assign(reg, l));
            v
        };
        let t0 = body(&mut b, 0, 1, "r0");
        let t1 = body(&mut b, 1, 0, "r1");
        let threads = vec![b.thread("P0", t0), b.thread("P1", t1)];
        let a = b.treg(0, "r0");
        let z = b.int(0);
        let c1 = b.bin(BinOp::Eq, a, z);
        let a = b.treg(1, "r1");
        let z = b.int(0);
        let c2 = b.bin(BinOp::Eq, a, z);
        let c = b.bin(BinOp::And, c1, c2);
        let cond = b.condition(Quantifier::Exists, c);
        b.test("SB", shared, vec![], threads, Some(cond))
    }

    #[test]
    fn store_buffering_is_allowed_only_with_store_buffers() {
        let t = sb(false);
        let ctl = Control::new();
        let sc = check(&t, Model::Sc, &opts(), &ctl);
        assert_eq!(
            states(&sc, &["P0:r0", "P1:r1"]),
            ["P0:r0=0,P1:r1=1", "P0:r0=1,P1:r1=0", "P0:r0=1,P1:r1=1"]
        );
        let cond = sc.condition.clone().unwrap();
        assert!(!cond.holds);
        assert_eq!((cond.positive, cond.negative), (0, 3));
        assert!(sc.witness.is_none());
        for m in [Model::Tso, Model::Pso] {
            let r = check(&t, m, &opts(), &ctl);
            assert_eq!(states(&r, &["P0:r0", "P1:r1"]).len(), 4, "{m:?}");
            let c = r.condition.clone().unwrap();
            assert!(c.holds && c.positive == 1 && c.negative == 3);
            let w = r.witness.clone().expect("witness");
            // Breadth-first: the shortest witness, 4 thread steps and 2 flushes.
            assert_eq!(w.len(), 6, "{m:?}");
            match crate::replay(&t, m, &opts(), &w).unwrap() {
                crate::ReplayEnd::Final(s) => {
                    assert_eq!((s.get("P0:r0"), s.get("P1:r1")), (Some(0), Some(0)))
                }
                other => panic!("witness replayed to {other:?}"),
            }
            assert!(r.complete && r.violations.is_empty());
            // Every state also has x = y = 1 once drained.
            assert!(r
                .states
                .iter()
                .all(|s| s.get("x") == Some(1) && s.get("y") == Some(1)));
        }
        let f = sb(true);
        for m in Model::ALL {
            let r = check(&f, m, &opts(), &ctl);
            assert_eq!(states(&r, &["P0:r0", "P1:r1"]).len(), 3, "{m:?}");
            assert!(!r.condition.unwrap().holds);
        }
    }

    #[test]
    fn message_passing_breaks_only_under_pso() {
        // P0: x=1; y=1  P1: r0=y; r1=x  forall (!(r0==1 && r1==0))
        let mut b = Builder::new();
        let shared = vec![b.shared("x", 0), b.shared("y", 0)];
        let (o1, o2) = (b.int(1), b.int(1));
        let t0 = vec![b.store(0, o1), b.store(1, o2)];
        let (ly, lx) = (b.load(1), b.load(0));
        let t1 = vec![b.assign("r0", ly), b.assign("r1", lx)];
        let threads = vec![b.thread("P0", t0), b.thread("P1", t1)];
        let (a, one) = (b.treg(1, "r0"), b.int(1));
        let c1 = b.bin(BinOp::Eq, a, one);
        let (a, zero) = (b.treg(1, "r1"), b.int(0));
        let c2 = b.bin(BinOp::Eq, a, zero);
        let c = b.bin(BinOp::And, c1, c2);
        let c = b.not(c);
        let cond = b.condition(Quantifier::Forall, c);
        let t = b.test("MP", shared, vec![], threads, Some(cond));
        let ctl = Control::new();
        for (m, bad) in [(Model::Sc, false), (Model::Tso, false), (Model::Pso, true)] {
            let r = check(&t, m, &opts(), &ctl);
            let c = r.condition.clone().unwrap();
            assert_eq!(c.holds, !bad, "{m:?}");
            assert_eq!(c.positive + c.negative, if bad { 4 } else { 3 });
            assert_eq!(r.violations.len(), bad as usize);
            if bad {
                let v = &r.violations[0];
                assert_eq!(v.kind, ViolationKind::Condition);
                match crate::replay(&t, m, &opts(), &v.schedule).unwrap() {
                    crate::ReplayEnd::Final(s) => {
                        assert_eq!((s.get("P1:r0"), s.get("P1:r1")), (Some(1), Some(0)))
                    }
                    other => panic!("{other:?}"),
                }
            }
        }
    }

    #[test]
    fn runtime_errors_deadlock_and_loop_bound() {
        let mut b = Builder::new();
        let shared = vec![b.shared("x", 0)];
        let ms = vec![b.name("m")];
        // P0: lock(m); lock(m);   -> error (re-lock)
        let t0 = vec![b.lock(0, &ms), b.lock(0, &ms)];
        let threads = vec![b.thread("P0", t0)];
        let t = b.test("Relock", shared.clone(), ms.clone(), threads, None);
        let r = check(&t, Model::Tso, &opts(), &Control::new());
        assert_eq!(r.violations.len(), 1);
        assert_eq!(r.violations[0].kind, ViolationKind::Error);
        assert!(r.states.is_empty());

        // P0: lock(m)  P1: lock(m) -> one of them holds m forever: final states exist, and
        // with P0 waiting on await(x == 1) nobody writes x: deadlock.
        let l = b.load(0);
        let one = b.int(1);
        let c = b.bin(BinOp::Eq, l, one);
        let t0 = vec![b.stmt(StmtKind::Await(c))];
        let threads = vec![b.thread("P0", t0)];
        let t = b.test("Stuck", shared.clone(), vec![], threads, None);
        let r = check(&t, Model::Sc, &opts(), &Control::new());
        assert_eq!(r.violations.len(), 1);
        assert_eq!(r.violations[0].kind, ViolationKind::Deadlock);

        // P0: r0 = 1 / x  -> division by zero.
        let (one, l) = (b.int(1), b.load(0));
        let d = b.bin(BinOp::Div, one, l);
        let t0 = vec![b.assign("r0", d)];
        let threads = vec![b.thread("P0", t0)];
        let t = b.test("Div", shared.clone(), vec![], threads, None);
        let r = check(&t, Model::Pso, &opts(), &Control::new());
        assert_eq!(r.violations.len(), 1);
        assert_eq!(r.violations[0].message, "division by zero");
        let end = crate::replay(&t, Model::Pso, &opts(), &r.violations[0].schedule).unwrap();
        assert!(matches!(
            end,
            crate::ReplayEnd::Violation {
                kind: ViolationKind::Error,
                ..
            }
        ));

        // P0: while (x == 0) { }  -> loop bound warning, no state, no violation.
        let (l, z) = (b.load(0), b.int(0));
        let c = b.bin(BinOp::Eq, l, z);
        let t0 = vec![b.stmt(StmtKind::While {
            cond: c,
            body: vec![],
        })];
        let threads = vec![b.thread("P0", t0)];
        let t = b.test("Spin", shared, vec![], threads, None);
        let o = CheckOptions {
            loop_bound: 3,
            ..opts()
        };
        let r = check(&t, Model::Sc, &o, &Control::new());
        assert!(r.violations.is_empty() && r.states.is_empty());
        assert_eq!(r.warnings.len(), 1);
        assert!(r.warnings[0].message.contains("loop bound 3"));
        assert_eq!(r.stats.blocked, 1);
    }
}
