//! `auto` against each engine alone, in CPU time, and the work weights measured on the
//! same runs.

use crate::rows::{auto_rows, files_in, geo_mean, Row};
use crate::run::{measure, Run, ENGINES};
use litmus_engine::auto::weight;
use litmus_engine::ir::Program;
use litmus_engine::report::Model;
use litmus_engine::{syntax, EngineChoice, EngineKind};
use std::collections::BTreeMap;
use std::io::Write;

/// Runs below this much CPU are mostly fixed cost; the weights are judged on the others.
const WEIGHT_MIN_MS: f64 = 5.0;

/// How well `auto::weight` tracks each engine's CPU time per unit of work: per engine, over the
/// runs (fitted or held-out rows) that finished with at least [`WEIGHT_MIN_MS`] of CPU, the
/// geometric mean and the 10th and 90th percentiles of measured / weight, and the spread of
/// the raw nanoseconds per unit (what one weight per engine would have to fit).
/// The single engines the weights are for, as the tables name them.
const MEMBERS: [(&str, EngineKind); 3] = [
    ("exhaustive", EngineKind::Exhaustive),
    ("DPOR", EngineKind::Dpor),
    ("MCR", EngineKind::Mcr),
];

fn weight_fit(runs: &[(bool, EngineKind, f64, f64, Model)]) {
    println!("\n### Work weights: CPU per unit of work against `auto::weight`\n");
    println!("Runs of one engine alone that took at least {WEIGHT_MIN_MS} ms of CPU. Measured / weight: CPU ns per unit over `auto::weight(engine, program, model)` (1.00: the weight is exact); raw: CPU ns per unit, whose spread one weight per engine would have to cover.\n");
    println!("| engine | rows | measured / weight: geometric mean | p10 | p90 | raw ns per unit: p10 | p90 |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for (name, e) in MEMBERS {
        for fitted in [true, false] {
            let pick = |k: usize| {
                let mut v: Vec<f64> = runs
                    .iter()
                    .filter(|r| r.0 == fitted && r.1 == e)
                    .map(|r| if k == 0 { r.2 / r.3 } else { r.2 })
                    .collect();
                v.sort_by(f64::total_cmp);
                v
            };
            let (q, raw) = (pick(0), pick(1));
            let at = |v: &[f64], p: f64| {
                v.get((p * v.len() as f64) as usize)
                    .copied()
                    .unwrap_or(f64::NAN)
            };
            println!(
                "| {name} | {} {} | {:.2} | {:.2} | {:.2} | {:.0} | {:.0} |",
                q.len(),
                if fitted { "fitted" } else { "held out" },
                geo_mean(&q),
                at(&q, 0.1),
                at(&q, 0.9),
                at(&raw, 0.1),
                at(&raw, 0.9)
            );
        }
    }
    // Per model (the weights' model factors): measured / weight over the fitted rows.
    println!("\nMeasured / weight per model, fitted rows (geometric mean, runs):\n");
    println!("| engine | SC | TSO | PSO |");
    println!("|---|---:|---:|---:|");
    for (name, e) in MEMBERS {
        let cells: Vec<String> = Model::ALL
            .iter()
            .map(|&m| {
                let v: Vec<f64> = runs
                    .iter()
                    .filter(|r| r.0 && r.1 == e && r.4 == m)
                    .map(|r| r.2 / r.3)
                    .collect();
                format!("{:.2} ({})", geo_mean(&v), v.len())
            })
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
}

/// Runs each of `kinds` on `row` under `model`, `repeat` rounds of one run each (so that the
/// engines compared are measured under the same load), and keeps each one's run with the
/// least CPU (a finished one over an unfinished one). A run that timed out is not repeated.
pub fn best_of(
    row: &Row,
    kinds: &[EngineChoice],
    model: Model,
    timeout: f64,
    repeat: usize,
) -> Vec<Run> {
    let mut rounds = vec![round(row, kinds, model, timeout, None)];
    for _ in 1..repeat {
        let r = round(row, kinds, model, timeout, Some(&rounds[0]));
        rounds.push(r);
    }
    least(&rounds)
}

/// One round of a row: each of `kinds` once, in order (a kind that did not finish in
/// `first` is not run again).
pub fn round(
    row: &Row,
    kinds: &[EngineChoice],
    model: Model,
    timeout: f64,
    first: Option<&[Run]>,
) -> Vec<Run> {
    kinds
        .iter()
        .enumerate()
        .map(|(k, e)| match first {
            Some(f) if !f[k].complete => f[k].clone(),
            _ => measure(&row.src, *e, model, row.bound, timeout, false),
        })
        .collect()
}

/// Each kind's least over `rounds` (a finished run over an unfinished one; the least time
/// on free cores of its finished runs).
pub fn least(rounds: &[Vec<Run>]) -> Vec<Run> {
    let mut best = rounds[0].clone();
    for r in &rounds[1..] {
        for (k, run) in r.iter().enumerate() {
            if run.complete && best[k].complete {
                let path = best[k].path_ms.min(run.path_ms);
                if run.cpu_ms < best[k].cpu_ms {
                    best[k] = run.clone();
                }
                best[k].path_ms = path;
            }
        }
    }
    best
}

/// Each engine alone and `auto`, side by side, per row and model, in CPU time; the ratio
/// (auto + 1 ms) / (fastest + 1 ms), its geometric mean per family, over the fitted rows, the
/// held-out rows and all, and the rows where auto took more than 1.2 x the fastest + 1 ms. `ENGINES_RAW=FILE` also writes every run
/// (tab-separated) for fitting the weights.
pub fn table(timeout: f64) {
    let repeat: usize = std::env::var("ENGINES_REPEAT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let mut raw = std::env::var("ENGINES_RAW")
        .ok()
        .map(|p| std::fs::File::create(p).expect("ENGINES_RAW file"));
    println!("\n### `auto` against each engine alone, in CPU time and in time on free cores\n");
    println!("Each cell: executions / CPU ms of the check (`-`: not finished within {timeout} s; the least CPU of {repeat} runs). `auto`: the engine that answered, and its plan's first candidate; free cores: its critical path in CPU ms (each member's start, in CPU time of the check's thread, plus its own thread's CPU time to its end; the latest end; least of {repeat} runs), the time the check would take with a core for each member. A single engine's time on free cores is the CPU time of the thread that runs it (the check's own; less than the process's CPU time in the other column, which also counts start-up threads, teardown and exit). Ratio: (auto + 1 ms) / (fastest + 1 ms), in CPU and on free cores (there against the least of the engines' own times on free cores). Rows marked * were used to fit the weights and the static guess; the others are held out.\n");
    println!("| family | row | model | MCR | exhaustive | DPOR | auto | engine (first) | ratio CPU | auto, free cores | ratio free cores |");
    println!("|---|---|---|---|---|---|---|---|---:|---:|---:|");
    let (mut fit, mut held) = (vec![], vec![]);
    let (mut fit_w, mut held_w) = (vec![], vec![]);
    let mut per_family: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut per_family_w: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut order = vec![];
    let mut over = vec![];
    let mut over_w = vec![];
    let mut missed = vec![];
    let mut units = vec![];
    for row in auto_rows() {
        let program = syntax::parse(&row.src)
            .test
            .and_then(|t| Program::lower(&t, row.bound).ok());
        if !order.contains(&row.family) {
            order.push(row.family);
        }
        for model in Model::ALL {
            let kinds = [ENGINES[0].1, ENGINES[1].1, ENGINES[2].1, EngineChoice::Auto];
            let runs = best_of(&row, &kinds, model, timeout, repeat);
            if let Some(f) = raw.as_mut() {
                for (e, r) in kinds.iter().zip(&runs) {
                    writeln!(
                        f,
                        "{}\t{}\t{}\t{}\t{}\t{}\t{:.3}\t{:.3}\t{}\t{}\t{}\t{}\t{}\t{:.3}",
                        row.family,
                        row.label,
                        model.label(),
                        row.fitted as u8,
                        e.key(),
                        r.complete as u8,
                        r.cpu_ms,
                        r.ms,
                        r.polls,
                        r.executions,
                        r.engine,
                        r.plan,
                        r.lean,
                        r.path_ms
                    )
                    .expect("raw row");
                }
            }
            for (e, r) in kinds.iter().zip(&runs) {
                if let (EngineChoice::Fixed(k), Some(p)) = (e, &program) {
                    if r.complete && r.cpu_ms >= WEIGHT_MIN_MS && r.polls > 0 {
                        let per = r.cpu_ms * 1e6 / r.polls as f64;
                        units.push((row.fitted, *k, per, weight(*k, p, model) as f64, model));
                    }
                }
            }
            let (auto, runs) = runs.split_last().expect("auto's run");
            let cell = |r: &Run| {
                if r.complete {
                    format!("{} / {:.1}", r.executions, r.cpu_ms)
                } else {
                    "-".into()
                }
            };
            let fastest = runs
                .iter()
                .filter(|r| r.complete)
                .map(|r| r.cpu_ms)
                .fold(f64::INFINITY, f64::min);
            let star = if row.fitted { "*" } else { "" };
            let name = format!("{} {} {}", row.family, row.label, model.label());
            let ratio = if fastest.is_finite() && auto.complete {
                let q = (auto.cpu_ms + 1.0) / (fastest + 1.0);
                if row.fitted { &mut fit } else { &mut held }.push(q);
                per_family.entry(row.family).or_default().push(q);
                // The target (issue 42): within 1.2 x the fastest + 1 ms.
                if auto.cpu_ms > 1.2 * fastest + 1.0 {
                    over.push(format!("{name} ({q:.2})"));
                }
                let fastest_w = runs
                    .iter()
                    .filter(|r| r.complete)
                    .map(|r| r.path_ms)
                    .fold(f64::INFINITY, f64::min);
                let qw = (auto.path_ms + 1.0) / (fastest_w + 1.0);
                if row.fitted { &mut fit_w } else { &mut held_w }.push(qw);
                per_family_w.entry(row.family).or_default().push(qw);
                if auto.path_ms > 1.2 * fastest_w + 1.0 {
                    over_w.push(format!("{name} ({qw:.2})"));
                }
                format!("{q:.2} | {:.1} | {qw:.2}", auto.path_ms)
            } else if fastest.is_finite() {
                missed.push(name);
                "**unfinished** | - | -".into()
            } else {
                "n/a | - | n/a".into()
            };
            let first = auto.plan.split(['@', ',']).next().unwrap_or("?");
            println!(
                "| {}{star} | {} | {} | {} | {} | {} | {} | {} ({first}) | {ratio} |",
                row.family,
                row.label,
                model.label(),
                cell(&runs[0]),
                cell(&runs[1]),
                cell(&runs[2]),
                cell(auto),
                auto.engine
            );
        }
    }
    println!("\n| family | rows | CPU: geometric mean | worst | rows over 1.2 x + 1 ms | free cores: geometric mean | worst | rows over 1.2 x + 1 ms |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for fam in order {
        let v = per_family.get(fam).cloned().unwrap_or_default();
        let vw = per_family_w.get(fam).cloned().unwrap_or_default();
        let worst = |v: &[f64]| v.iter().cloned().fold(f64::NAN, f64::max);
        let count = |over: &[String]| {
            over.iter()
                .filter(|o| o.starts_with(&format!("{fam} ")))
                .count()
        };
        println!(
            "| {fam} | {} | {:.3} | {:.2} | {} | {:.3} | {:.2} | {} |",
            v.len(),
            geo_mean(&v),
            worst(&v),
            count(&over),
            geo_mean(&vw),
            worst(&vw),
            count(&over_w)
        );
    }
    for (what, fit, held, over) in [
        ("CPU time", &fit, &held, &over),
        ("time on free cores", &fit_w, &held_w, &over_w),
    ] {
        let all = [fit.clone(), held.clone()].concat();
        println!(
            "\nGeometric mean of (auto + 1 ms) / (fastest + 1 ms) in {what}: fitted rows {:.3} ({} rows), held-out rows {:.3} ({} rows), all {:.3} ({} rows).\n",
            geo_mean(fit),
            fit.len(),
            geo_mean(held),
            held.len(),
            geo_mean(&all),
            all.len()
        );
        println!(
            "Rows where auto took more than 1.2 x the fastest + 1 ms in {what} (ratio): {}.",
            if over.is_empty() {
                "none".to_string()
            } else {
                over.join(", ")
            }
        );
    }
    println!();
    println!(
        "Rows some engine finished and auto did not: {}.",
        if missed.is_empty() {
            "none".to_string()
        } else {
            missed.join(", ")
        }
    );
    weight_fit(&units);
}

/// The x86 conformance set, summed per model: each engine alone and `auto`.
pub fn x86_table(timeout: f64) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/x86");
    let dir = std::env::var("LITMUS_X86_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or(dir);
    let files = files_in(&dir);
    if files.is_empty() {
        println!(
            "\n(x86 conformance set not found at {}: skipped)",
            dir.display()
        );
        return;
    }
    println!("\n### The x86 conformance set, summed over {} tests (it informed the static guess, not the weights)\n", files.len());
    println!("CPU time of the checks, summed per model.\n");
    println!("| model | MCR | exhaustive | DPOR | auto | auto / fastest | auto's engines |");
    println!("|---|---|---|---|---|---:|---|");
    let srcs: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .filter(|s| syntax::parse(s).test.is_some())
        .collect();
    for model in [Model::Sc, Model::Tso] {
        let mut tot = [0f64; 4];
        let mut winners = std::collections::BTreeMap::<String, usize>::new();
        for src in &srcs {
            for (i, (_, e)) in ENGINES.iter().enumerate() {
                tot[i] += measure(src, *e, model, 8, timeout, false).cpu_ms;
            }
            let a = measure(src, EngineChoice::Auto, model, 8, timeout, false);
            tot[3] += a.cpu_ms;
            *winners.entry(a.engine).or_default() += 1;
        }
        let fastest = tot[..3].iter().cloned().fold(f64::INFINITY, f64::min);
        let w: Vec<String> = winners.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!(
            "| {} | {:.0} ms | {:.0} ms | {:.0} ms | {:.0} ms | {:.2} | {} |",
            model.label(),
            tot[0],
            tot[1],
            tot[2],
            tot[3],
            tot[3] / fastest,
            w.join(", ")
        );
    }
}
