//! Developer tool: runs MCR on litmus files and prints its counters per model.
//!
//! `cargo run --release -p litmus-engine --example mcr_stats -- FILE... [--model sc,tso,pso]
//! [--timeout SECS] [--no-search] [--no-prefilter] [--no-sdg] [--per-query] [--no-prune-runs] [--no-merge-runs] [--no-canonical] [--z3-seed N] [--bare] [--paired] [--verbose] [--loop-bound N]`
//! (`--verbose` prints every execution)

use litmus_engine::ir::Program;
use litmus_engine::mcr::{self, Tuning};
use litmus_engine::report::Model;
use litmus_engine::{syntax, CheckOptions, Control};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut files = Vec::new();
    let mut models = Model::ALL.to_vec();
    let mut opts = CheckOptions::default();
    let mut tuning = Tuning::default();
    let mut verbose = false;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--model" => {
                i += 1;
                models = args[i]
                    .split(',')
                    .map(|m| {
                        Model::ALL
                            .into_iter()
                            .find(|x| x.key() == m)
                            .expect("model")
                    })
                    .collect();
            }
            "--timeout" => {
                i += 1;
                opts.timeout = Some(Duration::from_secs_f64(args[i].parse().expect("seconds")));
            }
            "--loop-bound" => {
                i += 1;
                opts.loop_bound = args[i].parse().expect("bound");
            }
            "--no-search" => tuning.search_budget = 0,
            "--no-prefilter" => tuning.prefilter = false,
            "--no-sdg" => opts.sdg = false,
            "--per-query" => tuning.per_query = true,
            "--bare" => tuning.bare_solve = true,
            "--no-prune-runs" => tuning.prune_runs = false,
            "--no-merge-runs" => tuning.merge_runs = false,
            "--no-canonical" => tuning.canonical_seeds = false,
            "--z3-seed" => {
                i += 1;
                tuning.solver_seed = Some(args[i].parse().expect("seed"));
            }
            "--paired" => tuning.paired_solve = true,
            "--verbose" => verbose = true,
            f => files.push(f.to_string()),
        }
        i += 1;
    }
    for f in &files {
        let src = std::fs::read_to_string(f).expect("readable file");
        let test = syntax::parse(&src).test.expect("a test without errors");
        let program = Program::lower(&test, opts.loop_bound).expect("lowers");
        for &model in &models {
            let t0 = Instant::now();
            let mut causal = std::collections::HashSet::new();
            let mut ghost = std::collections::HashSet::new();
            let s = mcr::explore_with(&program, model, &opts, &Control::new(), tuning, &mut |ex| {
                if verbose {
                    let steps: Vec<String> = ex
                        .events
                        .iter()
                        .map(|e| {
                            format!(
                                "P{}:{:?}{}{}",
                                e.thread,
                                e.action,
                                e.cell.map(|c| format!(" c{c}")).unwrap_or_default(),
                                e.value.map(|v| format!("={v}")).unwrap_or_default()
                            )
                        })
                        .collect();
                    println!("  exec: {:?} {}", ex.state.status(), steps.join(", "));
                }
                let (c, g) = causal_keys(&program, model, ex.events);
                causal.insert(format!("{c:?}{:?}{:?}", ex.state.mem, ex.state.status()));
                ghost.insert(format!("{g:?}{:?}{:?}", ex.state.mem, ex.state.status()));
            });
            println!(
                "  causal states {}, without failed await rounds {}",
                causal.len(),
                ghost.len()
            );
            println!(
                "  Z3: {} calls, {} reads constrained, {} match terms, {} refinements, {} constraints, SDG {:.1} ms, z3 {:.1} ms, work {} (bare {}, all {}, literal {}, cone {}), check {:.1} ms, lazy {:.1} ms",
                s.z3_queries, s.reads_constrained, s.match_terms, s.refinements, s.constraints, s.sdg_ms, s.z3_ms, s.z3_work, s.compare.work_bare, s.compare.work_all, s.compare.work_literal, s.compare.work_cone, s.check_ms, s.lazy_ms
            );
            println!(
                "{f} {}: {:.1} ms, {} executions, {} queries ({} pre-checked, {} searched, {} gave up, {} search states), solver {:.1} ms, {} constraints, {} pruned, {} merged, {} diverged{}",
                model.key(),
                t0.elapsed().as_secs_f64() * 1000.0,
                s.executions,
                s.queries,
                s.prefiltered,
                s.searched,
                s.search_gave_up,
                s.search_states,
                s.solver_ms,
                s.constraints,
                s.pruned,
                s.merged,
                s.diverged,
                if s.complete { "" } else { ", INCOMPLETE" }
            );
        }
    }
}

/// Per thread, its steps with values; and the same without the loads of failed `await` rounds.
fn causal_keys(
    p: &Program,
    model: Model,
    events: &[litmus_engine::semantics::Event],
) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    use litmus_engine::report::Action;
    use litmus_engine::semantics::{Choice, State};
    let n = p.threads.len();
    let mut all = vec![Vec::new(); n];
    let mut kept = vec![Vec::new(); n];
    let mut round: Vec<Vec<String>> = vec![Vec::new(); n];
    let mut st = State::initial(p, model);
    for ev in events {
        let t = ev.thread;
        let c = if ev.action == Action::Flush {
            Choice::Flush {
                thread: t,
                cell: (model == Model::Pso).then_some(ev.cell.unwrap_or(0)),
            }
        } else {
            Choice::Exec(t)
        };
        let before = st.clone();
        if st.try_step(p, c).is_none() {
            break;
        }
        if ev.action == Action::Flush {
            continue;
        }
        let k = format!("{:?}{:?}{:?}{:?}", ev.action, ev.cell, ev.value, ev.mutex);
        all[t].push(k.clone());
        let b = &before.threads[t];
        let a = &st.threads[t];
        if b.await_dirty.is_some() && ev.action == Action::Load {
            round[t].push(k);
            let failed = a.awaiting.is_some() || a.pc <= b.pc;
            let ended = a.await_dirty.is_none() || a.pc <= b.pc;
            if failed {
                round[t].clear();
            } else if ended {
                let r = std::mem::take(&mut round[t]);
                kept[t].extend(r);
            }
        } else {
            let r = std::mem::take(&mut round[t]);
            kept[t].extend(r);
            kept[t].push(k);
        }
    }
    (all, kept)
}
