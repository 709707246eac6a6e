//! `--unbounded`: the answer for every number of loop iterations, as text
//! (`docs/reference.md#unbounded`).

use std::fmt::Write;

use litmus_engine::unbounded::{Unbounded, Verdict};

use super::text::Ctx;

/// `-q --unbounded`: the answer as a part of the model's summary line.
pub fn summary(ctx: &Ctx, u: &Unbounded) -> String {
    let st = ctx.style;
    match u.verdict {
        Verdict::EveryIteration => st.green("for every iteration"),
        Verdict::Violation => st.red(&format!(
            "violation for every iteration from loop bound {}",
            u.loop_bound
        )),
        Verdict::Unknown => st.yellow("unknown for every iteration"),
    }
}

/// The answer's line after the model's block: every iteration, a violation (and the loop
/// bound its schedules replay with), or unknown and why.
pub fn block(ctx: &Ctx, u: &Unbounded) -> String {
    let st = ctx.style;
    let mut out = String::new();
    let robust = match &u.robust {
        Some(r) if r.holds && r.complete => " (robust under TSO: TSO behaves as SC)",
        _ => "",
    };
    let _ = match u.verdict {
        Verdict::EveryIteration => writeln!(
            out,
            "\nFor every number of iterations: {}{robust}",
            st.green("the results above hold")
        ),
        Verdict::Violation => writeln!(
            out,
            "\nFor every number of iterations: {} (the schedules replay with --loop-bound {})",
            st.red("violated"),
            u.loop_bound.max(1)
        ),
        Verdict::Unknown => writeln!(
            out,
            "\nFor every number of iterations: {}",
            st.yellow("unknown")
        ),
    };
    if let Some(r) = &u.reason {
        let _ = writeln!(out, "Why not proven: {r}");
    }
    if u.rounds > 0 {
        let _ = writeln!(
            out,
            "Lazy TSO reachability: {} refinement round{} ({} states in the last)",
            u.rounds,
            if u.rounds == 1 { "" } else { "s" },
            u.round_states
        );
    }
    out
}
