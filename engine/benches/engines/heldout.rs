//! `auto` on programs it was not fitted on (issue 58): the held-out family, generated here at
//! benchmark time from fresh seeds by a generator of its own (`tests/programs/heldout.rs`),
//! a second family from the sweeps' generator (`litmus_engine::testgen`), and the issue's
//! three programs, each engine alone and `auto` side by side, in CPU time and on free cores.

use crate::auto::best_of;
use crate::heldout_programs::heldout;
use crate::rows::{geo_mean, Row};
use crate::run::{Run, ENGINES};
use litmus_engine::report::Model;
use litmus_engine::testgen::{print, random_test_with, GenConfig};
use litmus_engine::EngineChoice;
use std::collections::BTreeMap;

/// The first seed of the family (`ENGINES_HELDOUT_SEED` to draw another): not a seed the plan
/// or the weights were chosen on (those used seeds below 1,000 of this generator).
const SEED: u64 = 5_800_000;

/// One program's measurements: the engines alone (MCR, exhaustive, DPOR) and `auto`.
struct Measured {
    name: String,
    model: Model,
    runs: Vec<Run>,
}

fn ratio(auto: f64, best: f64) -> f64 {
    (auto + 1.0) / (best + 1.0)
}

/// Prints the per-program table and the summary over `rows`, each under each of `models`.
fn compare(title: &str, rows: &[Row], models: &[Model], timeout: f64, repeat: usize) {
    println!("\n### {title}\n");
    println!("Each cell: executions / CPU ms (`-`: not finished within {timeout} s; least of {repeat} runs, the four runs of a row interleaved in each round). free: time on free cores (CPU ms on the critical path). Ratio: (auto + 1 ms) / (fastest member + 1 ms).\n");
    println!("| program | model | lean | MCR | exhaustive | DPOR | auto | engine (first) | ratio CPU | auto free | best free | ratio free cores |");
    println!("|---|---|---:|---|---|---|---|---|---:|---:|---:|---:|");
    let kinds = [ENGINES[0].1, ENGINES[1].1, ENGINES[2].1, EngineChoice::Auto];
    let mut all = vec![];
    for row in rows {
        for &model in models {
            let runs = best_of(row, &kinds, model, timeout, repeat);
            let m = Measured {
                name: row.label.clone(),
                model,
                runs,
            };
            print_row(&m);
            if std::env::var("ENGINES_HELDOUT_FIT").is_ok() {
                fit_line(row, &m);
            }
            all.push(m);
        }
    }
    summary(&all);
}

fn cell(r: &Run) -> String {
    if r.complete {
        format!("{} / {:.1}", r.executions, r.cpu_ms)
    } else {
        "-".into()
    }
}

/// The fastest finished member: (CPU ms, free-cores ms), or `None`.
fn best(m: &Measured) -> Option<(f64, f64)> {
    let done: Vec<&Run> = m.runs[..3].iter().filter(|r| r.complete).collect();
    if done.is_empty() {
        return None;
    }
    let cpu = done.iter().map(|r| r.cpu_ms).fold(f64::INFINITY, f64::min);
    let free = done.iter().map(|r| r.path_ms).fold(f64::INFINITY, f64::min);
    Some((cpu, free))
}

fn print_row(m: &Measured) {
    let auto = &m.runs[3];
    let first = auto.plan.split(['@', ',']).next().unwrap_or("?");
    let tail = match best(m) {
        Some((cpu, free)) if auto.complete => format!(
            "{:.2} | {:.1} | {:.1} | {:.2}",
            ratio(auto.cpu_ms, cpu),
            auto.path_ms,
            free,
            ratio(auto.path_ms, free)
        ),
        Some(_) => "**unfinished** | - | - | -".into(),
        None => "n/a | - | - | n/a".into(),
    };
    println!(
        "| {} | {} | {:.2} | {} | {} | {} | {} | {} ({first}) | {tail} |",
        m.name,
        m.model.label(),
        auto.lean,
        cell(&m.runs[0]),
        cell(&m.runs[1]),
        cell(&m.runs[2]),
        cell(auto),
        auto.engine,
    );
}

fn summary(all: &[Measured]) {
    let (mut cpu, mut free) = (vec![], vec![]);
    let (mut over, mut over_w, mut missed, mut none) = (vec![], vec![], vec![], 0);
    let mut winners: BTreeMap<String, usize> = BTreeMap::new();
    let mut answered: BTreeMap<String, usize> = BTreeMap::new();
    let mut right = 0;
    for m in all {
        let auto = &m.runs[3];
        let Some((b, bw)) = best(m) else {
            none += 1;
            continue;
        };
        let fastest = ENGINES
            .iter()
            .zip(&m.runs[..3])
            .filter(|(_, r)| r.complete)
            .min_by(|a, b| a.1.cpu_ms.total_cmp(&b.1.cpu_ms))
            .map(|(e, _)| e.1.key().to_string())
            .unwrap_or_default();
        *winners.entry(fastest.clone()).or_default() += 1;
        if !auto.complete {
            missed.push(format!("{} {}", m.name, m.model.label()));
            continue;
        }
        *answered.entry(auto.engine.clone()).or_default() += 1;
        right += usize::from(auto.engine == fastest);
        let (q, qw) = (ratio(auto.cpu_ms, b), ratio(auto.path_ms, bw));
        cpu.push(q);
        free.push(qw);
        let name = format!("{} {}", m.name, m.model.label());
        if auto.cpu_ms > 1.2 * b + 1.0 {
            over.push(format!("{name} ({q:.2})"));
        }
        if auto.path_ms > 1.2 * bw + 1.0 {
            over_w.push(format!("{name} ({qw:.2})"));
        }
    }
    let worst = |v: &[f64]| v.iter().cloned().fold(f64::NAN, f64::max);
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    let names = |m: &BTreeMap<String, usize>| {
        m.iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!("\n| measure | rows | geometric mean | worst | rows over 1.2 x + 1 ms |");
    println!("|---|---:|---:|---:|---:|");
    println!(
        "| CPU | {} | {:.3} | {:.2} | {} |",
        cpu.len(),
        geo_mean(&cpu),
        worst(&cpu),
        over.len()
    );
    println!(
        "| free cores | {} | {:.3} | {:.2} | {} |",
        free.len(),
        geo_mean(&free),
        worst(&free),
        over_w.len()
    );
    println!("\nRows over 1.2 x + 1 ms in CPU: {}.\n", list(&over));
    println!("Rows over 1.2 x + 1 ms on free cores: {}.\n", list(&over_w));
    println!(
        "Fastest member in CPU: {}; `auto` answered with: {}; with the fastest on {right} of {} rows. Rows no engine finished (left out): {none}. Rows some engine finished and `auto` did not: {}.",
        names(&winners),
        names(&answered),
        cpu.len(),
        list(&missed)
    );
}

/// A family's size (`PREFIX`, 200 unless told), first seed (`PREFIX_SEED`, `seed` unless
/// told) and models (`ENGINES_HELDOUT_MODELS`, e.g. `sc,tso,pso`; PSO unless told).
fn family_env(prefix: &str, seed: u64) -> (u64, u64, Vec<Model>) {
    let num = |name: &str| std::env::var(name).ok().and_then(|s| s.parse().ok());
    let models = std::env::var("ENGINES_HELDOUT_MODELS")
        .ok()
        .map(|s| s.split(',').filter_map(Model::parse).collect())
        .unwrap_or(vec![Model::Pso]);
    (
        num(prefix).unwrap_or(200),
        num(&format!("{prefix}_SEED")).unwrap_or(seed),
        models,
    )
}

/// The held-out family: `ENGINES_HELDOUT=N` programs (200 unless told) from seed
/// `ENGINES_HELDOUT_SEED` on, each under PSO (and the models of `ENGINES_HELDOUT_MODELS`,
/// e.g. `sc,tso,pso`).
pub fn table(timeout: f64, repeat: usize) {
    let (n, seed, models) = family_env("ENGINES_HELDOUT", SEED);
    if std::env::var("ENGINES_HELDOUT_PRINT").is_ok() {
        for s in seed..seed + n {
            println!("{}", heldout(s));
        }
        return;
    }
    let rows: Vec<Row> = (seed..seed + n)
        .map(|s| Row {
            family: "held-out",
            label: format!("Heldout{s}"),
            src: heldout(s),
            bound: 8,
            fitted: false,
        })
        .collect();
    compare(
        &format!(
            "`auto` on the held-out family: {n} programs, seeds {seed}..{}",
            seed + n
        ),
        &rows,
        &models,
        timeout,
        repeat,
    );
}

/// The first seed of the sweep generator's family (`ENGINES_SWEEP_SEED` to draw another).
const SWEEP_SEED: u64 = 5_900_000;

/// The settings of the sweep generator's family, one per seed in turn: every construct
/// (`GenConfig::all`: arrays, runtime errors, awaits, two mutexes, loops over registers and
/// over memory), the same with spin loops, issue 39's lock inversions and AwaitBlowup's shape.
fn sweep_config(seed: u64) -> (&'static str, GenConfig) {
    match seed % 4 {
        0 => ("all", GenConfig::all()),
        1 => ("spins", GenConfig::spins()),
        2 => ("lock_order", GenConfig::lock_order()),
        _ => ("awaits", GenConfig::awaits()),
    }
}

/// A second held-out family, from a generator the portfolio was never fitted or chosen on:
/// the project's own random-program generator (`litmus_engine::testgen`, the one the sweeps
/// against the reference explorer use), `ENGINES_SWEEP=N` programs (200 unless told) from
/// seed `ENGINES_SWEEP_SEED` on, each under PSO at loop bound 4 (and the models of
/// `ENGINES_HELDOUT_MODELS`).
pub fn sweep_table(timeout: f64, repeat: usize) {
    let (n, seed, models) = family_env("ENGINES_SWEEP", SWEEP_SEED);
    let rows: Vec<Row> = (seed..seed + n)
        .map(|s| {
            let (name, cfg) = sweep_config(s);
            let src = print(&random_test_with(s, cfg));
            if std::env::var("ENGINES_HELDOUT_PRINT").is_ok() {
                println!("// {name}\n{src}");
            }
            Row {
                family: "sweep generator",
                label: format!("Sweep{s}"),
                src,
                bound: 4,
                fitted: false,
            }
        })
        .collect();
    if std::env::var("ENGINES_HELDOUT_PRINT").is_ok() {
        return;
    }
    compare(
        &format!(
            "`auto` on the sweep generator's family: {n} programs, seeds {seed}..{}",
            seed + n
        ),
        &rows,
        &models,
        timeout,
        repeat,
    );
}

/// The issue's three programs under PSO (`benches/engines/issue58/`).
pub fn issue_table(timeout: f64, repeat: usize) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/engines/issue58");
    let rows: Vec<Row> = crate::rows::files_in(&dir)
        .into_iter()
        .map(|f| Row {
            family: "issue 58",
            label: f.file_stem().unwrap().to_string_lossy().to_string(),
            src: std::fs::read_to_string(&f).unwrap(),
            bound: 8,
            fitted: false,
        })
        .collect();
    compare(
        "Issue 58's programs under PSO",
        &rows,
        &[Model::Pso],
        timeout,
        repeat,
    );
}

/// `ENGINES_HELDOUT_FIT=1`: per program, each member's measured CPU per unit of work over
/// `auto::weight` (1.00: the weight is exact), for members that finished with at least 5 ms.
fn fit_line(row: &Row, m: &Measured) {
    use litmus_engine::{ir::Program, syntax};
    let Some(p) = syntax::parse(&row.src)
        .test
        .and_then(|t| Program::lower(&t, row.bound).ok())
    else {
        return;
    };
    let mut out = vec![];
    for ((name, e), r) in ENGINES.iter().zip(&m.runs[..3]) {
        if let (EngineChoice::Fixed(k), true) = (e, r.complete && r.cpu_ms >= 5.0 && r.polls > 0) {
            let w = litmus_engine::auto::weight(*k, &p, m.model) as f64;
            out.push(format!("{name} {:.2}", r.cpu_ms * 1e6 / r.polls as f64 / w));
        }
    }
    println!("FIT {} {} {}", m.name, m.model.label(), out.join(" "));
}
