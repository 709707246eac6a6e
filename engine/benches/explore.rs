//! MCR against the exhaustive explorer over the litmus corpus (`tests/litmus/*.litmus`):
//! per program and model, MCR executions, distinct final states, causal states (MCR's own
//! measure of redundancy, `McrStats::causal_states`), exhaustive executions, how MCR's queries
//! were decided (pre-check, causal search, Z3), and the wall time of both engines, side by side.
//! Prints a Markdown table (committed as `docs/bench-mcr.md`).
//!
//! Run: `cargo bench -p litmus-engine --bench explore` (MCR gets 10 s per test and model).

use litmus_engine::collect::Collector;
use litmus_engine::ir::Program;
use litmus_engine::report::{Model, ModelReport};
use litmus_engine::{check, mcr, syntax, CheckOptions, Control, EngineKind};
use std::time::Instant;

/// MCR's report, its wall time and its own counters.
fn run_mcr(
    test: &litmus_engine::ast::Test,
    model: Model,
    opts: &CheckOptions,
) -> (ModelReport, f64, mcr::McrStats) {
    let start = Instant::now();
    let program = Program::lower(test, opts.loop_bound).expect("lowers");
    let mut col = Collector::new(test, &program, model);
    let ctl = Control::new();
    let stats = mcr::explore_with(
        &program,
        model,
        opts,
        &ctl,
        mcr::Tuning::default(),
        &mut |ex| col.end(ex.state, ex.events),
    );
    col.stats.constraints += stats.constraints;
    col.stats.solver_ms += stats.solver_ms;
    col.complete &= stats.complete;
    let r = col.finish(start.elapsed());
    (r, start.elapsed().as_secs_f64() * 1000.0, stats)
}

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/litmus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/litmus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    files.sort();
    println!("| test | model | states | causal states | MCR execs | MCR/states | MCR/causal | exhaustive execs | queries | pre-checked | searched | Z3 | MCR ms | query ms | exhaustive ms | agree |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    let (mut tot_states, mut tot_mcr, mut tot_exh) = ([0u64; 3], [0u64; 3], [0u64; 3]);
    let (mut t_mcr, mut t_exh) = ([0f64; 3], [0f64; 3]);
    let mut tot_causal = [0u64; 3];
    let mut disagreements = 0;
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let Some(test) = syntax::parse(&src).test else {
            continue;
        };
        let name = f.file_stem().unwrap().to_string_lossy();
        for (mi, model) in Model::ALL.into_iter().enumerate() {
            let opts = CheckOptions {
                engine: EngineKind::Exhaustive.into(),
                ..CheckOptions::default()
            };
            let t0 = Instant::now();
            let exh = check(&test, model, &opts, &Control::new());
            let exh_ms = t0.elapsed().as_secs_f64() * 1000.0;
            let mopts = CheckOptions {
                timeout: Some(std::time::Duration::from_secs(10)),
                ..CheckOptions::default()
            };
            let (m, mcr_ms, ms) = run_mcr(&test, model, &mopts);
            let causal = ms.causal_states;
            let same = m.complete
                && m.states == exh.states
                && m.violations
                    .iter()
                    .map(|v| (v.kind, v.span))
                    .eq(exh.violations.iter().map(|v| (v.kind, v.span)));
            disagreements += usize::from(!same);
            let states = exh.states.len() as u64;
            let ratio = m.stats.executions as f64 / states.max(1) as f64;
            let cratio = m.stats.executions as f64 / causal.max(1) as f64;
            tot_causal[mi] += causal;
            println!(
                "| {name} | {} | {states} | {causal} | {} | {ratio:.2} | {cratio:.2} | {} | {} | {} | {} | {} | {mcr_ms:.1} | {:.1} | {exh_ms:.1} | {} |",
                model.key(),
                m.stats.executions,
                exh.stats.executions,
                ms.queries,
                ms.prefiltered,
                ms.searched,
                ms.queries - ms.prefiltered - ms.searched,
                m.stats.solver_ms,
                if same { "yes" } else if !m.complete { "timeout" } else { "NO" }
            );
            tot_states[mi] += states;
            tot_mcr[mi] += m.stats.executions;
            tot_exh[mi] += exh.stats.executions;
            t_mcr[mi] += mcr_ms;
            t_exh[mi] += exh_ms;
        }
    }
    println!();
    println!("| model | states | causal states | MCR execs | MCR/states | MCR/causal | exhaustive execs | MCR ms | exhaustive ms |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (mi, model) in Model::ALL.into_iter().enumerate() {
        println!(
            "| {} | {} | {} | {} | {:.2} | {:.2} | {} | {:.0} | {:.0} |",
            model.key(),
            tot_states[mi],
            tot_causal[mi],
            tot_mcr[mi],
            tot_mcr[mi] as f64 / tot_states[mi].max(1) as f64,
            tot_mcr[mi] as f64 / tot_causal[mi].max(1) as f64,
            tot_exh[mi],
            t_mcr[mi],
            t_exh[mi]
        );
    }
    println!();
    println!("{} files, {} disagreements", files.len(), disagreements);
}
