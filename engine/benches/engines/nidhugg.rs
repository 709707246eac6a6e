//! The translations of Nidhugg's TACAS'15 mutual exclusion benchmarks beside Nidhugg's counts.

use crate::programs::{nidhugg, NIDHUGG};
use crate::run::{measure, Run, ENGINES};
use litmus_engine::report::Model;
use litmus_engine::{EngineChoice, EngineKind};

/// DPOR's executions (blocked included) on the translations of Nidhugg's benchmarks at loop
/// bounds 4, 10 and 32, with and without `--first`, beside Nidhugg's "all" and "first".
/// Nidhugg's counts are the same at every unroll bound it was run with (dekker 4 and 10,
/// lamport 3 and 8; peterson and szymanski have no loop): its row for the benchmark, fences
/// and model is printed at every bound.
pub fn nidhugg_bounds(timeout: f64) {
    println!("\n### DPOR against Nidhugg by loop bound\n");
    println!("Executions, blocked ones included (blocked in parentheses), and the verdict; DPOR's `first` runs to its first violation (`--first`). A mark `>` where DPOR runs more executions than Nidhugg.\n");
    println!("| benchmark | fences | model | bound | DPOR all | Nidhugg all | DPOR first | Nidhugg first |");
    println!("|---|---|---|---:|---|---:|---|---:|");
    let (mut over, mut rows) = (0, 0);
    for name in ["dekker", "peterson", "szymanski", "lamport"] {
        for f in ["none", "TSO", "PSO"] {
            let src = nidhugg(name, f);
            let nid = NIDHUGG
                .iter()
                .find(|r| r.0 == name && r.2 == f)
                .expect("Nidhugg's row")
                .3;
            for model in Model::ALL {
                let (nall, nfirst) = nid[model as usize];
                for bound in [4, 10, 32] {
                    let eng = EngineChoice::Fixed(EngineKind::Dpor);
                    let all = measure(&src, eng, model, bound, timeout, false);
                    let first = measure(&src, eng, model, bound, timeout, true);
                    let cell = |r: &Run, n: u64| {
                        let verdict = if r.violations > 0 {
                            "bug"
                        } else if r.complete {
                            "ok"
                        } else {
                            "timeout"
                        };
                        let mark = if r.executions > n { " >" } else { "" };
                        format!("{verdict} {} ({}){mark}", r.executions, r.blocked)
                    };
                    rows += 2;
                    over += (all.executions > nall) as u32 + (first.executions > nfirst) as u32;
                    println!(
                        "| {name} | {f} | {} | {bound} | {} | {nall} | {} | {nfirst} |",
                        model.label(),
                        cell(&all, nall),
                        cell(&first, nfirst)
                    );
                }
            }
        }
    }
    println!("\nDPOR runs more executions than Nidhugg in {over} of {rows} cells.");
}

/// Mutual exclusion, after Nidhugg's TACAS'15 benchmarks: every engine with and without
/// `--first`, beside Nidhugg's executions.
pub fn table(timeout: f64) {
    println!("\n### Mutual exclusion, after Nidhugg's TACAS'15 benchmarks\n");
    println!("Executions (blocked ones in parentheses, counted apart) and the verdict: `ok`, or `bug` when a violation was found; with `--first`, the executions run until the first violation. Loop bound 8. Nidhugg's executions (traces and assume-blocked traces, `../shared/notes/peers.md`) in the last column.\n");
    println!("| benchmark | fences | model | MCR | exhaustive | DPOR | MCR --first | exhaustive --first | DPOR --first | Nidhugg |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let nid = |name: &str, f: &str, m: Model| -> String {
        let row = NIDHUGG
            .iter()
            .find(|r| r.0 == name && r.2 == f)
            .expect("Nidhugg's row")
            .3;
        let (all, first) = row[m as usize];
        format!("{all} all, {first} to the first error")
    };
    for name in ["dekker", "peterson", "szymanski", "lamport"] {
        for f in ["none", "TSO", "PSO"] {
            let src = nidhugg(name, f);
            for model in Model::ALL {
                let mut cells = vec![];
                for first in [false, true] {
                    for (_, e) in ENGINES {
                        let r = measure(&src, e, model, 8, timeout, first);
                        let verdict = if r.violations > 0 {
                            "bug"
                        } else if r.complete {
                            "ok"
                        } else {
                            "timeout"
                        };
                        cells.push(format!("{verdict} {} ({})", r.executions, r.blocked));
                    }
                }
                println!(
                    "| {name} | {f} | {} | {} | {} |",
                    model.label(),
                    cells.join(" | "),
                    nid(name, f, model)
                );
            }
        }
    }
}

/// DPOR on the translations written with register-carried loop conditions
/// (`*-registers.litmus.tpl`, issue 58) at loop bounds 2 to 10, with and without `--first`,
/// beside the plain translations' counts and Nidhugg's.
pub fn nidhugg_registers(timeout: f64) {
    println!("\n### DPOR against Nidhugg, loops with register-carried conditions\n");
    println!("Executions, blocked ones included, at loop bounds 2 to 10 (one number when the same at every bound), and the verdict; the plain translation's at bound 4 beside them. A mark `>` where DPOR runs more executions than Nidhugg.\n");
    println!("| benchmark | fences | model | registers: all | plain: all | Nidhugg all | registers: first | plain: first | Nidhugg first |");
    println!("|---|---|---|---|---:|---:|---|---:|---:|");
    let (mut over, mut cells, mut flat) = (0, 0, 0);
    for name in ["dekker", "peterson", "szymanski", "lamport"] {
        for f in ["none", "TSO", "PSO"] {
            let src = nidhugg(&format!("{name}-registers"), f);
            let plain = nidhugg(name, f);
            for model in Model::ALL {
                let (nall, nfirst) = crate::programs::nidhugg_counts(name, f, model as usize);
                let eng = EngineChoice::Fixed(EngineKind::Dpor);
                let mut row = Vec::new();
                for (first, n) in [(false, nall), (true, nfirst)] {
                    let runs: Vec<Run> = (2..=10)
                        .map(|b| measure(&src, eng, model, b, timeout, first))
                        .collect();
                    let counts: Vec<u64> = runs.iter().map(|r| r.executions).collect();
                    let same = counts.iter().all(|&c| c == counts[0]);
                    flat += same as u32;
                    cells += 1;
                    let worst = counts.iter().copied().max().unwrap_or(0);
                    over += (worst > n) as u32;
                    let r = &runs[0];
                    let verdict = if r.violations > 0 {
                        "bug"
                    } else if r.complete {
                        "ok"
                    } else {
                        "timeout"
                    };
                    let shown = if same {
                        counts[0].to_string()
                    } else {
                        format!("{counts:?}")
                    };
                    let mark = if worst > n { " >" } else { "" };
                    let p = measure(&plain, eng, model, 4, timeout, first);
                    row.push(format!("{verdict} {shown}{mark} | {} | {n}", p.executions));
                }
                println!("| {name} | {f} | {} | {} |", model.label(), row.join(" | "));
            }
        }
    }
    println!("\nThe same count at every loop bound in {flat} of {cells} cells; DPOR runs more executions than Nidhugg in {over} of {cells}.");
}
