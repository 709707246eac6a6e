//! `auto` on programs it was not fitted on (issue 58): the held-out family, generated here at
//! benchmark time from fresh seeds by a generator of its own (`tests/programs/heldout.rs`),
//! a second family from the sweeps' generator (`litmus_engine::testgen`), and the issue's
//! three programs, each engine alone and `auto` side by side, in CPU time and on free cores.

use crate::auto::{least, round};
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
    /// [`per_round`] over every round.
    per_round: Option<(f64, f64, bool, bool)>,
}

/// Rows whose ratio, in CPU or on free cores, is above this or below its inverse after their
/// first rounds are measured again, `ENGINES_CONFIRM` more rounds (3 unless told; 0: none), in
/// a pass after every row's first rounds, so minutes later. A shared machine's speed can come
/// and go in bursts of seconds (one deterministic check alone, 30 runs in a row: 6.0-6.7 ms in
/// 10 of them, 8.4-11.4 ms in the others; `docs/bench-engines.md`), and both runs of a row
/// can fall in one burst, so a row can be over or under the line by noise. Both tails and the
/// rows near the line are measured again; the summary says how many were, and how many of
/// them were over before.
const CONFIRM_BAND: f64 = 1.1;

/// The median over `rounds` of each round's own ratio, `auto` against that round's fastest
/// member (in CPU and on free cores), and whether the median round is over 1.2 x + 1 ms:
/// runs of one round are milliseconds apart, so a burst of speed meets them alike.
fn per_round(rounds: &[Vec<Run>]) -> Option<(f64, f64, bool, bool)> {
    let v: Vec<(f64, f64, f64, f64)> = rounds
        .iter()
        .filter_map(|r| {
            let (b, bw) = best(r)?;
            let a = &r[3];
            a.complete.then(|| {
                (
                    ratio(a.cpu_ms, b),
                    ratio(a.path_ms, bw),
                    a.cpu_ms - 1.2 * b - 1.0,
                    a.path_ms - 1.2 * bw - 1.0,
                )
            })
        })
        .collect();
    if v.is_empty() {
        return None;
    }
    let median = |f: fn(&(f64, f64, f64, f64)) -> f64| {
        let mut x: Vec<f64> = v.iter().map(f).collect();
        x.sort_by(f64::total_cmp);
        let n = x.len();
        if n % 2 == 1 {
            x[n / 2]
        } else {
            (x[n / 2 - 1] + x[n / 2]) / 2.0
        }
    };
    Some((
        median(|t| t.0),
        median(|t| t.1),
        median(|t| t.2) > 0.0,
        median(|t| t.3) > 0.0,
    ))
}

/// Whether `auto` took more than 1.2 x the fastest member + 1 ms.
fn over_line(auto: f64, best: f64) -> bool {
    auto > 1.2 * best + 1.0
}

fn ratio(auto: f64, best: f64) -> f64 {
    (auto + 1.0) / (best + 1.0)
}

/// Prints the per-program table and the summary over `rows`, each under each of `models`.
fn compare(title: &str, rows: &[Row], models: &[Model], timeout: f64, repeat: usize) {
    println!("\n### {title}\n");
    println!("Each cell: executions / CPU ms (`-`: not finished within {timeout} s; least of {repeat} runs, the four runs of a row interleaved in each round). free: time on free cores (CPU ms on the critical path). Ratio: (auto + 1 ms) / (fastest member + 1 ms). Round: the median over the rounds of each round's own ratio (rows measured again have {repeat} + `ENGINES_CONFIRM` rounds).\n");
    println!("| program | model | lean | MCR | exhaustive | DPOR | auto | engine (first) | ratio CPU | auto free | best free | ratio free cores | round CPU | round free |");
    println!("|---|---|---:|---|---|---|---|---|---:|---:|---:|---:|---:|---:|");
    let kinds = [ENGINES[0].1, ENGINES[1].1, ENGINES[2].1, EngineChoice::Auto];
    let confirm: usize = std::env::var("ENGINES_CONFIRM")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    // Every row's first rounds, then the rows to measure again, in a pass of their own.
    let mut measured: Vec<(&Row, Model, Vec<Vec<Run>>)> = vec![];
    for row in rows {
        for &model in models {
            let first = round(row, &kinds, model, timeout, None);
            let mut rounds = vec![first];
            for _ in 1..repeat {
                let r = round(row, &kinds, model, timeout, Some(&rounds[0]));
                rounds.push(r);
            }
            measured.push((row, model, rounds));
        }
    }
    let outside = |q: f64| !(1.0 / CONFIRM_BAND..=CONFIRM_BAND).contains(&q);
    let mut again = vec![];
    for (row, model, rounds) in measured.iter_mut() {
        let runs = least(rounds);
        let (b, bw) = match best(&runs) {
            Some(b) if runs[3].complete && confirm > 0 => b,
            _ => continue,
        };
        let (a, aw) = (runs[3].cpu_ms, runs[3].path_ms);
        if outside(ratio(a, b)) || outside(ratio(aw, bw)) {
            again.push((over_line(a, b), over_line(aw, bw)));
            for _ in 0..confirm {
                let r = round(row, &kinds, *model, timeout, Some(&rounds[0]));
                rounds.push(r);
            }
        }
    }
    let mut all = vec![];
    for (row, model, rounds) in &measured {
        let m = Measured {
            name: row.label.clone(),
            model: *model,
            runs: least(rounds),
            per_round: per_round(rounds),
        };
        print_row(&m);
        if std::env::var("ENGINES_HELDOUT_FIT").is_ok() {
            fit_line(row, &m);
        }
        all.push(m);
    }
    summary(&all);
    println!(
        "\nMeasured again ({confirm} more rounds, after every row's first {repeat}: a ratio above {CONFIRM_BAND} or below {:.2} in CPU or on free cores): {} rows, of which {} were over 1.2 x + 1 ms in CPU and {} on free cores before.",
        1.0 / CONFIRM_BAND,
        again.len(),
        again.iter().filter(|c| c.0).count(),
        again.iter().filter(|c| c.1).count(),
    );
}

fn cell(r: &Run) -> String {
    if r.complete {
        format!("{} / {:.1}", r.executions, r.cpu_ms)
    } else {
        "-".into()
    }
}

/// The fastest finished member: (CPU ms, free-cores ms), or `None`.
fn best(runs: &[Run]) -> Option<(f64, f64)> {
    let done: Vec<&Run> = runs[..3].iter().filter(|r| r.complete).collect();
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
    let tail = match best(&m.runs) {
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
    let rounds = m
        .per_round
        .map_or("- | -".into(), |r| format!("{:.2} | {:.2}", r.0, r.1));
    println!(
        "| {} | {} | {:.2} | {} | {} | {} | {} | {} ({first}) | {tail} | {rounds} |",
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
        let Some((b, bw)) = best(&m.runs) else {
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
        if over_line(auto.cpu_ms, b) {
            over.push(format!("{name} ({q:.2})"));
        }
        if over_line(auto.path_ms, bw) {
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
    // The same over each round's own ratio (runs of one round meet a burst alike).
    let rounds: Vec<(f64, f64, bool, bool)> = all.iter().filter_map(|m| m.per_round).collect();
    let (rc, rf): (Vec<f64>, Vec<f64>) = rounds.iter().map(|r| (r.0, r.1)).unzip();
    println!(
        "| CPU, median of each round's ratio | {} | {:.3} | {:.2} | {} |",
        rc.len(),
        geo_mean(&rc),
        worst(&rc),
        rounds.iter().filter(|r| r.2).count()
    );
    println!(
        "| free cores, median of each round's ratio | {} | {:.3} | {:.2} | {} |",
        rf.len(),
        geo_mean(&rf),
        worst(&rf),
        rounds.iter().filter(|r| r.3).count()
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
