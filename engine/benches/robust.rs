//! Robustness and fence synthesis against full explorations, on the corpus's
//! mutual-exclusion algorithms and paper-style programs (Trencher's and Sober's benchmarks
//! are of this kind: Dekker, Peterson, Lamport's fast mutex, Szymanski, bakery, SB rings).
//! Per program and model: the robustness verdict and the attack search's states and time;
//! DPOR's robustness (`--engine dpor --robust`: executions checked and time);
//! the brute-force definition (every path, no state merging) where it fits a budget; a full
//! check with the reference explorer and with MCR; and `litmus fences` (goal verdicts) with
//! the fences it proposes, the candidate sets it checked and its time. Prints a Markdown
//! table (committed as `docs/bench-robust.md`).
//!
//! Run: `cargo bench -p litmus-engine --bench robust`.

use litmus_engine::fences::{synthesize, Goal};
use litmus_engine::ir::Program;
use litmus_engine::robust::{brute_force, robustness};
use litmus_engine::{check, syntax, CheckOptions, Control, EngineKind, Model};
use std::time::{Duration, Instant};

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// `SB` with `n` threads in a ring: thread i stores x_i then loads x_{i+1}.
fn sb_ring(n: usize, fenced: bool) -> String {
    let vars: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    let mut s = format!(
        "litmus SB{n}\nshared {};\n",
        vars.iter()
            .map(|v| format!("{v} = 0"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for i in 0..n {
        let f = if fenced { "  fence;\n" } else { "" };
        s += &format!(
            "thread P{i} {{\n  {} = 1;\n{f}  r0 = {};\n}}\n",
            vars[i],
            vars[(i + 1) % n]
        );
    }
    let conj: Vec<String> = (0..n).map(|i| format!("P{i}:r0 == 0")).collect();
    s += &format!("exists ({})\n", conj.join(" && "));
    s
}

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/litmus");
    let corpus = [
        "sb",
        "mp",
        "iriw",
        "n6",
        "dekker",
        "dekker_fence",
        "peterson",
        "peterson_fence",
        "peterson_fence2",
        "lamport_fast",
        "lamport_fast_fence",
        "szymanski",
        "szymanski_fence",
        "bakery",
        "bakery_fence",
    ];
    let mut programs: Vec<(String, String)> = corpus
        .iter()
        .map(|n| {
            (
                n.to_string(),
                std::fs::read_to_string(dir.join(format!("{n}.litmus"))).unwrap(),
            )
        })
        .collect();
    for n in [3, 4, 5] {
        programs.push((format!("sb_ring{n}"), sb_ring(n, false)));
        programs.push((format!("sb_ring{n}_fence"), sb_ring(n, true)));
    }
    println!("| test | model | robust | attack states | --robust ms | DPOR execs | DPOR --robust ms | brute force | brute force ms | exhaustive execs | exhaustive ms | MCR ms | fences | sets checked | fences ms |");
    println!("|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut totals = [[0f64; 5]; 2];
    for (name, src) in &programs {
        let test = syntax::parse(src).test.expect("parses");
        let program = Program::lower(&test, 8).unwrap();
        for (mi, model) in [Model::Tso, Model::Pso].into_iter().enumerate() {
            let opts = CheckOptions {
                timeout: Some(Duration::from_secs(60)),
                ..CheckOptions::default()
            };
            let t = Instant::now();
            let r = robustness(&test, model, &opts, &Control::new());
            let r_ms = ms(t);
            let dopts = CheckOptions {
                engine: EngineKind::Dpor,
                ..opts.clone()
            };
            let t = Instant::now();
            let d = robustness(&test, model, &dopts, &Control::new());
            let d_ms = ms(t);
            assert_eq!(
                d.holds, r.holds,
                "{name} {model:?}: DPOR's robustness disagrees"
            );
            let t = Instant::now();
            let bf = brute_force(&program, model, &mut 200_000);
            let bf_ms = ms(t);
            let eopts = CheckOptions {
                engine: EngineKind::Exhaustive,
                ..opts.clone()
            };
            let t = Instant::now();
            let exh = check(&test, model, &eopts, &Control::new());
            let e_ms = ms(t);
            let t = Instant::now();
            let mcr = check(&test, model, &opts, &Control::new());
            let m_ms = ms(t);
            let t = Instant::now();
            let f = synthesize(src, &test, model, Goal::Verdicts, &opts, &Control::new()).unwrap();
            let f_ms = ms(t);
            assert!(
                bf.is_none_or(|b| b == r.holds),
                "{name} {model:?}: brute force disagrees"
            );
            assert!(
                r.complete && d.complete && exh.complete && mcr.complete && f.complete,
                "{name} {model:?}"
            );
            totals[mi][0] += r_ms;
            totals[mi][1] += e_ms;
            totals[mi][2] += m_ms;
            totals[mi][3] += f_ms;
            totals[mi][4] += d_ms;
            println!(
                "| {name} | {} | {} | {} | {r_ms:.1} | {} | {d_ms:.1} | {} | {} | {} | {e_ms:.1} | {m_ms:.1} | {} | {} | {f_ms:.1} |",
                model.key(),
                if r.holds { "yes" } else { "no" },
                r.states,
                d.states,
                match bf { None => "over budget".to_string(), Some(b) => if b { "yes".into() } else { "no".into() } },
                if bf.is_some() { format!("{bf_ms:.1}") } else { format!("> {bf_ms:.0}") },
                exh.stats.executions,
                f.fences.len(),
                f.checks,
            );
        }
    }
    for (mi, m) in ["tso", "pso"].iter().enumerate() {
        let t = totals[mi];
        println!(
            "\n{m}: --robust {:.1} ms in all (DPOR's {:.1} ms), exhaustive check {:.1} ms, MCR check {:.1} ms, fences {:.1} ms",
            t[0], t[4], t[1], t[2], t[3]
        );
    }
}
