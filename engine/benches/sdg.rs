//! The static dependency graph (MCR-S+) against plain MCR on the programs issue 4 names: the
//! paper's Counter with Max = 5, bubble sort of 3 and 4 shared values, and the corpus's
//! mutual-exclusion algorithms. Every query goes to Z3 (the causal search, which decides most
//! queries by default, does not use the graph): per program and model, the reads whose
//! validity Z3 had to keep and their match terms (the paper's #reads and #constraints), Z3's
//! work in its own deterministic resource units and its time (median of interleaved runs),
//! the share of that work due to data validity (the same queries solved again without any:
//! the ceiling of what pruning it can save), the time the graph cost, and the executions.
//! Runs with and without the graph explore differently (Z3's models pick the seeds), so one
//! more run with the graph solves each of its queries three times more in solvers of their
//! own, with every read's validity, with the static closure (every read an event that can be
//! in the seed may need, up front) and with the paper's Algorithm 3 taken literally: Z3's work
//! on identical queries (`Tuning::paired_solve`); the run fails if the graph changes the
//! answer of any of them (the paper's lemma: MCR-S+ explores what MCR does). Besides the
//! averages over the rows, it prints the summed times, the time inside Z3's satisfiability
//! checks alone, and the mean over the rows whose exploration takes a second or more (the
//! paper averages only such benchmarks).
//! Prints a Markdown table (committed as `docs/bench-sdg.md`).
//!
//! Run: `cargo bench -p litmus-engine --bench sdg` (about 35 minutes; `SDG_BENCH_RUNS=n` sets
//! the runs per configuration, 3 by default, 1 for Counter, which takes minutes a run;
//! `SDG_BENCH_ONLY=bubble3,dekker` runs only the programs named; `SDG_BENCH_PER_QUERY=1` gives
//! each query a formula with only its own validity, the paper's setting, instead of every
//! read's validity behind guards in one incremental solver per trace; `SDG_BENCH_WITNESS=1`
//! takes the seeds of satisfiable queries from the deterministic causal search instead of
//! Z3's models, so that both sides explore the same executions and solve the same queries).

use litmus_engine::ir::Program;
use litmus_engine::mcr::{self, McrStats, Tuning};
use litmus_engine::report::Model;
use litmus_engine::{syntax, CheckOptions, Control};
use std::path::PathBuf;

/// The exploration's statistics and its whole time in milliseconds.
fn run(program: &Program, model: Model, sdg: bool, tuning: Tuning) -> (McrStats, f64) {
    let opts = CheckOptions {
        sdg,
        ..CheckOptions::default()
    };
    let t0 = std::time::Instant::now();
    let stats = mcr::explore_with(program, model, &opts, &Control::new(), tuning, &mut |_| {});
    (stats, t0.elapsed().as_secs_f64() * 1000.0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn pct(with: f64, without: f64) -> f64 {
    if without == 0.0 {
        0.0
    } else {
        100.0 * (with - without) / without
    }
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let programs: Vec<(PathBuf, Vec<Model>)> = vec![
        (root.join("benches/sdg/counter.litmus"), vec![Model::Sc]),
        (root.join("benches/sdg/bubble3.litmus"), Model::ALL.to_vec()),
        (root.join("benches/sdg/bubble4.litmus"), Model::ALL.to_vec()),
        (
            root.join("../tests/litmus/dekker.litmus"),
            Model::ALL.to_vec(),
        ),
        (
            root.join("../tests/litmus/peterson.litmus"),
            Model::ALL.to_vec(),
        ),
        (
            root.join("../tests/litmus/lamport_fast.litmus"),
            Model::ALL.to_vec(),
        ),
        (
            root.join("../tests/litmus/bakery.litmus"),
            Model::ALL.to_vec(),
        ),
        (
            root.join("../tests/litmus/szymanski.litmus"),
            Model::ALL.to_vec(),
        ),
    ];
    let runs: usize = std::env::var("SDG_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let per_query = std::env::var("SDG_BENCH_PER_QUERY").is_ok_and(|v| v == "1");
    // Every query to Z3; the two benchmark modes only in the runs that count them.
    // `SDG_BENCH_WITNESS=1`: seeds of satisfiable queries from the causal search, not from
    // Z3's model (`Tuning::witness_budget`), so that both sides explore the same executions.
    let witness_budget = if std::env::var("SDG_BENCH_WITNESS").is_ok_and(|v| v == "1") {
        mcr::SEARCH_BUDGET
    } else {
        0
    };
    let tuning = Tuning {
        search_budget: 0,
        per_query,
        witness_budget,
        ..Tuning::default()
    };
    let only: Option<Vec<String>> = std::env::var("SDG_BENCH_ONLY")
        .ok()
        .map(|s| s.split(',').map(str::to_string).collect());
    println!("| program | model | reads (SDG / none) | Δ | match terms (SDG / none) | Δ | Z3 work, k (SDG / none) | Δ | validity share | Z3 ms (SDG / none) | Δ | check ms (SDG / none) | Δ | solved again | SDG ms | executions (SDG / none) | same queries: Z3 work, k (SDG / all / static / Alg. 3) | Δ SDG | Δ static | Δ Alg. 3 |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let (mut d_reads, mut d_terms, mut d_work, mut d_time, mut shares) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut d_paired, mut d_cone, mut d_literal) = (Vec::new(), Vec::new(), Vec::new());
    let (mut sdg_ms_total, mut saved_ms_total) = (0.0, 0.0);
    // The paper leaves out of its averages the benchmarks whose exploration takes "far less
    // than 1 second": the rows whose exploration without the graph takes a second or more.
    let mut d_time_long = Vec::new();
    let (mut d_check, mut sum_z3, mut sum_check) = (Vec::new(), [0.0; 2], [0.0; 2]);
    let (mut paired_sat, mut paired_other, mut execs) = (0, 0, [0u64; 2]);
    for (path, models) in &programs {
        let src = std::fs::read_to_string(path).expect("benchmark program");
        let test = syntax::parse(&src).test.expect("parses");
        let program = Program::lower(&test, CheckOptions::default().loop_bound).expect("lowers");
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if only.as_ref().is_some_and(|o| !o.contains(&name)) {
            continue;
        }
        let reps = if name == "counter" { 1 } else { runs.max(1) };
        for &model in models {
            let (mut with, mut without, mut explore_ms) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..reps {
                with.push(run(&program, model, true, tuning).0);
                let (o, ms) = run(&program, model, false, tuning);
                without.push(o);
                explore_ms.push(ms);
            }
            let (w, o) = (&with[0], &without[0]);
            execs[0] += w.executions;
            execs[1] += o.executions;
            // Work is deterministic (each exploration has a Z3 context of its own): any run.
            assert!(
                with.iter().all(|s| s.z3_work == w.z3_work),
                "Z3 work varied between runs"
            );
            let tw = median(with.iter().map(|s| s.z3_ms).collect());
            let to = median(without.iter().map(|s| s.z3_ms).collect());
            let cw = median(with.iter().map(|s| s.check_ms).collect());
            let co = median(without.iter().map(|s| s.check_ms).collect());
            let dc_ms = pct(cw, co);
            d_check.push(dc_ms);
            sum_z3[0] += tw;
            sum_z3[1] += to;
            sum_check[0] += cw;
            sum_check[1] += co;
            let sdg_ms = median(with.iter().map(|s| s.sdg_ms).collect());
            let (dr, dt, dw, dq) = (
                pct(w.reads_constrained as f64, o.reads_constrained as f64),
                pct(w.match_terms as f64, o.match_terms as f64),
                pct(w.z3_work as f64, o.z3_work as f64),
                pct(tw, to),
            );
            d_reads.push(dr);
            d_terms.push(dt);
            d_work.push(dw);
            d_time.push(dq);
            if median(explore_ms) >= 1000.0 {
                d_time_long.push(dq);
            }
            // The validity share, without the graph: one more run whose every query is also
            // solved without validity (not for Counter: minutes more).
            let share = if name == "counter" {
                "—".to_string()
            } else {
                let b = run(
                    &program,
                    model,
                    false,
                    Tuning {
                        bare_solve: true,
                        ..tuning
                    },
                )
                .0;
                let share = 100.0 * (1.0 - b.compare.work_bare as f64 / b.z3_work.max(1) as f64);
                shares.push(share);
                format!("{share:.0}%")
            };
            // The same queries four ways: one more run with the graph, each query also solved
            // with every read's validity, with the static closure and with Algorithm 3 as the
            // paper writes it.
            let p = run(
                &program,
                model,
                true,
                Tuning {
                    paired_solve: true,
                    ..tuning
                },
            )
            .0;
            // The paper's lemma (MCR-S+ explores what MCR does) on identical queries.
            assert_eq!(
                p.compare.paired_differ,
                0,
                "{name} {}: the graph changed the answer of a query",
                model.key()
            );
            paired_sat += p.compare.paired_sat;
            paired_other += p.compare.paired_other_seed;
            let all = p.compare.work_all as f64;
            let (dp, dc, dl) = (
                pct(p.z3_work as f64, all),
                pct(p.compare.work_cone as f64, all),
                pct(p.compare.work_literal as f64, all),
            );
            d_paired.push(dp);
            d_cone.push(dc);
            d_literal.push(dl);
            sdg_ms_total += sdg_ms;
            saved_ms_total += to - tw;
            println!(
                "| {name} | {} | {} / {} | {dr:+.1}% | {} / {} | {dt:+.1}% | {} / {} | {dw:+.1}% | {share} | {tw:.0} / {to:.0} | {dq:+.1}% | {cw:.0} / {co:.0} | {dc_ms:+.1}% | {} | {sdg_ms:.1} | {} / {} | {} / {} / {} / {} | {dp:+.1}% | {dc:+.1}% | {dl:+.1}% |",
                model.key(),
                w.reads_constrained,
                o.reads_constrained,
                w.match_terms,
                o.match_terms,
                w.z3_work / 1000,
                o.z3_work / 1000,
                w.refinements,
                w.executions,
                o.executions,
                p.z3_work / 1000,
                p.compare.work_all / 1000,
                p.compare.work_cone / 1000,
                p.compare.work_literal / 1000
            );
        }
    }
    let avg = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    println!();
    println!(
        "Average over the {} rows: reads {:+.1}%, match terms {:+.1}%, Z3 work {:+.1}%, Z3 time {:+.1}%; \
         validity's share of Z3's work without the graph, {:.0}% ({} rows). \
         The graph cost {sdg_ms_total:.0} ms in all; the Z3 time it saved, in all: {saved_ms_total:.0} ms. \
         On the same queries, Z3 work: with the graph {:+.1}%, with the static closure {:+.1}%, with Algorithm 3 literally {:+.1}%.",
        d_reads.len(),
        avg(&d_reads),
        avg(&d_terms),
        avg(&d_work),
        avg(&d_time),
        avg(&shares),
        shares.len(),
        avg(&d_paired),
        avg(&d_cone),
        avg(&d_literal)
    );
    println!();
    println!(
        "Z3 time summed over the rows: {:.1} s with the graph, {:.1} s without ({:+.1}%); of it, in Z3's satisfiability checks: {:.1} s against {:.1} s ({:+.1}%; mean of rows {:+.1}%). \
         Mean of the {} rows whose exploration without the graph takes a second or more (the paper averages only such benchmarks): Z3 time {:+.1}%. \
         On the same queries the graph changed no answer; of {paired_sat} satisfiable, {paired_other} got another seed from Z3. \
         Executions: {} with the graph, {} without.",
        sum_z3[0] / 1000.0,
        sum_z3[1] / 1000.0,
        pct(sum_z3[0], sum_z3[1]),
        sum_check[0] / 1000.0,
        sum_check[1] / 1000.0,
        pct(sum_check[0], sum_check[1]),
        avg(&d_check),
        d_time_long.len(),
        avg(&d_time_long),
        execs[0],
        execs[1]
    );
}
