//! Developer tool: runs DPOR on litmus files and prints its counters per model.
//!
//! `cargo run --release -p litmus-engine --example dpor_stats -- FILE... [--model sc,tso,pso]
//! [--timeout SECS] [--loop-bound N] [--first]`

use litmus_engine::collect::Collector;
use litmus_engine::ir::Program;
use litmus_engine::report::Model;
use litmus_engine::{syntax, CheckOptions, Control};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut files = Vec::new();
    let mut models = Model::ALL.to_vec();
    let mut opts = CheckOptions::default();
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
            "--first" => opts.first = true,
            f => files.push(f.to_string()),
        }
        i += 1;
    }
    for f in files {
        let src = std::fs::read_to_string(&f).expect("readable file");
        let test = syntax::parse(&src).test.expect("a test without errors");
        let program = Program::lower(&test, opts.loop_bound).expect("lowers");
        for &m in &models {
            let mut col = Collector::new(&test, &program, m);
            col.first = opts.first;
            let t0 = Instant::now();
            let s = litmus_engine::dpor::explore(&program, m, &opts, &Control::new(), &mut col);
            let el = t0.elapsed();
            let r = col.finish(el);
            println!(
                "{f} {}: executions {} blocked {} sleep-blocked {} states {} violations {} steps {} depth {} complete {} {:.3}s",
                m.label(),
                r.stats.executions,
                r.stats.blocked,
                s.sleep_blocked,
                r.states.len(),
                r.violations.len(),
                s.steps,
                s.max_depth,
                r.complete,
                el.as_secs_f64()
            );
        }
    }
}
