//! `auto` against each engine alone, in CPU time, and the work weights measured on the
//! same runs.

use crate::rows::{auto_rows, files_in, geo_mean, Row};
use crate::run::{measure, Run, ENGINES};
use litmus_engine::report::Model;
use litmus_engine::{syntax, EngineChoice};
use std::collections::BTreeMap;
use std::io::Write;

/// Runs below this much CPU are mostly fixed cost; the weights are fitted on the others.
const WEIGHT_MIN_MS: f64 = 5.0;

/// Nanoseconds of CPU per `should_stop` poll of each engine over the fitted rows (what
/// `auto::weight` holds): the geometric mean of each row's CPU time over its polls, over the
/// rows that finished with at least [`WEIGHT_MIN_MS`] of CPU, and the spread of those rows.
pub fn weights(timeout: f64) {
    println!("\n### Work weights: nanoseconds of CPU per `should_stop` poll (fitted rows)\n");
    println!("Over the fitted rows each engine finished with at least {WEIGHT_MIN_MS} ms of CPU: the geometric mean of each row's CPU time per poll (what `auto::weight` holds, rounded), and the 10th and 90th percentiles of the rows.\n");
    println!("| engine | rows | geometric mean ns / poll | p10 | p90 |");
    println!("|---|---:|---:|---:|---:|");
    for (name, e) in ENGINES {
        let mut per = vec![];
        for row in auto_rows().into_iter().filter(|r| r.fitted) {
            for model in Model::ALL {
                let r = measure(&row.src, e, model, row.bound, timeout, false);
                if r.complete && r.cpu_ms >= WEIGHT_MIN_MS && r.polls > 0 {
                    per.push(r.cpu_ms * 1e6 / r.polls as f64);
                }
            }
        }
        per.sort_by(f64::total_cmp);
        let q = |p: f64| {
            per.get((p * per.len() as f64) as usize)
                .copied()
                .unwrap_or(f64::NAN)
        };
        println!(
            "| {name} | {} | {:.0} | {:.0} | {:.0} |",
            per.len(),
            geo_mean(&per),
            q(0.1),
            q(0.9)
        );
    }
}

/// Runs `engine` on `row` under `model` `repeat` times and keeps the run with the least CPU
/// (a finished one over an unfinished one).
fn best_of(row: &Row, engine: EngineChoice, model: Model, timeout: f64, repeat: usize) -> Run {
    let mut best = measure(&row.src, engine, model, row.bound, timeout, false);
    // A run that timed out is not repeated (the time limit is wall time: on a loaded machine
    // a repeat might finish, but then it is near the limit anyway).
    for _ in 1..if best.complete { repeat } else { 1 } {
        let r = measure(&row.src, engine, model, row.bound, timeout, false);
        if r.complete && (!best.complete || r.cpu_ms < best.cpu_ms) {
            best = r;
        }
    }
    best
}

/// Each engine alone and `auto`, side by side, per row and model, in CPU time; the ratio
/// (auto + 1 ms) / (fastest + 1 ms), its geometric mean per family, over the fitted rows, the
/// held-out rows and all, and the rows over 1.2. `ENGINES_RAW=FILE` also writes every run
/// (tab-separated) for fitting the weights.
pub fn table(timeout: f64) {
    let repeat: usize = std::env::var("ENGINES_REPEAT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let mut raw = std::env::var("ENGINES_RAW")
        .ok()
        .map(|p| std::fs::File::create(p).expect("ENGINES_RAW file"));
    println!("\n### `auto` against each engine alone, in CPU time\n");
    println!("Each cell: executions / CPU ms of the check (`-`: not finished within {timeout} s; the least CPU of {repeat} runs). `auto`: the engine that answered, and its plan's first candidate. Ratio: (auto + 1 ms) / (fastest + 1 ms). Rows marked * were used to fit the weights and the static guess; the others are held out.\n");
    println!("| family | row | model | MCR | exhaustive | DPOR | auto | engine (first) | ratio |");
    println!("|---|---|---|---|---|---|---|---|---:|");
    let (mut fit, mut held) = (vec![], vec![]);
    let mut per_family: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut order = vec![];
    let mut over = vec![];
    let mut missed = vec![];
    for row in auto_rows() {
        if !order.contains(&row.family) {
            order.push(row.family);
        }
        for model in Model::ALL {
            let kinds = [ENGINES[0].1, ENGINES[1].1, ENGINES[2].1, EngineChoice::Auto];
            let runs: Vec<Run> = kinds
                .iter()
                .map(|e| best_of(&row, *e, model, timeout, repeat))
                .collect();
            if let Some(f) = raw.as_mut() {
                for (e, r) in kinds.iter().zip(&runs) {
                    writeln!(
                        f,
                        "{}\t{}\t{}\t{}\t{}\t{}\t{:.3}\t{:.3}\t{}\t{}\t{}\t{}\t{}",
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
                        r.lean
                    )
                    .expect("raw row");
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
                if q > 1.2 {
                    over.push(format!("{name} ({q:.2})"));
                }
                format!("{q:.2}")
            } else if fastest.is_finite() {
                missed.push(name);
                "**unfinished**".into()
            } else {
                "n/a".into()
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
    println!("\n| family | rows | geometric mean | worst | rows over 1.2 |");
    println!("|---|---:|---:|---:|---:|");
    for fam in order {
        let v = per_family.get(fam).cloned().unwrap_or_default();
        let worst = v.iter().cloned().fold(f64::NAN, f64::max);
        let n = v.iter().filter(|&&q| q > 1.2).count();
        println!(
            "| {fam} | {} | {:.3} | {worst:.2} | {n} |",
            v.len(),
            geo_mean(&v)
        );
    }
    let all = [fit.clone(), held.clone()].concat();
    println!(
        "\nGeometric mean of (auto + 1 ms) / (fastest + 1 ms) in CPU time: fitted rows {:.3} ({} rows), held-out rows {:.3} ({} rows), all {:.3} ({} rows).\n",
        geo_mean(&fit),
        fit.len(),
        geo_mean(&held),
        held.len(),
        geo_mean(&all),
        all.len()
    );
    println!(
        "Rows over 1.2: {}.\n",
        if over.is_empty() {
            "none".to_string()
        } else {
            over.join(", ")
        }
    );
    println!(
        "Rows some engine finished and auto did not: {}.",
        if missed.is_empty() {
            "none".to_string()
        } else {
            missed.join(", ")
        }
    );
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
