//! Scaling families (each engine per size until its first timeout), the corpus, and DPOR's
//! executions per row.

use crate::rows::auto_rows;
use crate::run::{measure, Run, ENGINES};
use litmus_engine::report::Model;
use litmus_engine::{syntax, EngineChoice, EngineKind};

/// A scaling family: per model, each engine's run per size until its first timeout within a
/// group of sizes (the counter: one group per thread count), then the largest size each
/// finished.
pub fn family(title: &str, sizes: &[(String, String, u32, usize)], timeout: f64) {
    println!("\n### {title}\n");
    println!("Each cell: executions / wall time / peak RSS. A dash: not run (a smaller size timed out).\n");
    println!("| size | model | states | MCR | exhaustive | DPOR |");
    println!("|---|---|---:|---|---|---|");
    let mut largest = vec![];
    for model in Model::ALL {
        let mut alive = [true; 3];
        let mut best: [Vec<String>; 3] = [vec![], vec![], vec![]];
        let mut group = usize::MAX;
        for (label, src, bound, g) in sizes {
            if *g != group {
                group = *g;
                alive = [true; 3];
                for b in &mut best {
                    b.push("none".into());
                }
            }
            let mut cells = vec![];
            let mut states = None;
            for (i, (_, e)) in ENGINES.iter().enumerate() {
                if !alive[i] {
                    cells.push("-".to_string());
                    continue;
                }
                let r = measure(src, *e, model, *bound, timeout, false);
                if r.complete {
                    *best[i].last_mut().expect("a group") = label.clone();
                    states.get_or_insert(r.states);
                } else {
                    alive[i] = false;
                }
                cells.push(r.cell());
            }
            let st = states.map(|s| s.to_string()).unwrap_or_else(|| "?".into());
            println!(
                "| {label} | {} | {st} | {} |",
                model.label(),
                cells.join(" | ")
            );
        }
        largest.push((model, best));
    }
    println!("\nLargest size finished within {timeout} s (per group):\n");
    println!("| model | MCR | exhaustive | DPOR |");
    println!("|---|---|---|---|");
    for (model, best) in largest {
        let b: Vec<String> = best.iter().map(|b| b.join(", ")).collect();
        println!("| {} | {} |", model.label(), b.join(" | "));
    }
}

/// The corpus (`tests/litmus/`): every engine per test and model, with totals.
pub fn corpus(timeout: f64) {
    println!("\n### The corpus (`tests/litmus/`)\n");
    println!("| test | model | states | MCR | exhaustive | DPOR |");
    println!("|---|---|---:|---|---|---|");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/litmus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/litmus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    files.sort();
    let mut totals = [[(0u64, 0f64); 3]; 3];
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        if syntax::parse(&src).test.is_none() {
            continue;
        }
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        for (mi, model) in Model::ALL.into_iter().enumerate() {
            let runs: Vec<Run> = ENGINES
                .iter()
                .map(|(_, e)| measure(&src, *e, model, 8, timeout, false))
                .collect();
            for (i, r) in runs.iter().enumerate() {
                totals[mi][i].0 += r.executions;
                totals[mi][i].1 += r.ms;
            }
            let cells: Vec<String> = runs.iter().map(Run::cell).collect();
            println!(
                "| {name} | {} | {} | {} |",
                model.label(),
                runs[1].states,
                cells.join(" | ")
            );
        }
    }
    println!("\nTotals over the corpus (executions / wall time):\n");
    println!("| model | MCR | exhaustive | DPOR |");
    println!("|---|---|---|---|");
    for (mi, model) in Model::ALL.into_iter().enumerate() {
        let c: Vec<String> = totals[mi]
            .iter()
            .map(|(e, ms)| format!("{e} / {ms:.0} ms"))
            .collect();
        println!("| {} | {} |", model.label(), c.join(" | "));
    }
}

/// `ENGINES_ONLY=dpor`: DPOR's executions (blocked ones) on every row of the `auto` table and
/// of the Dekker family, no times (compare them with the committed tables to see which rows
/// a change to DPOR moved).
pub fn dpor_counts(timeout: f64) {
    let dpor = EngineChoice::Fixed(EngineKind::Dpor);
    println!("\n### DPOR's executions per row\n");
    println!("| family | row | model | DPOR executions (blocked) |");
    println!("|---|---|---|---:|");
    let dekker = std::fs::read_to_string(format!(
        "{}/../examples/dekker.litmus",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("dekker");
    let mut rows: Vec<(String, String, String, u32)> = auto_rows()
        .into_iter()
        .map(|r| (r.family.to_string(), r.label, r.src, r.bound))
        .collect();
    rows.extend((2..=12).map(|b| {
        (
            "Dekker by loop bound".to_string(),
            format!("loop bound {b}"),
            dekker.clone(),
            b,
        )
    }));
    for (family, label, src, bound) in rows {
        for model in Model::ALL {
            let r = measure(&src, dpor, model, bound, timeout, false);
            let cell = if r.complete {
                format!("{} ({})", r.executions, r.blocked)
            } else {
                "-".into()
            };
            println!("| {family} | {label} | {} | {cell} |", model.label());
        }
    }
}
