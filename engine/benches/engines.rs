//! MCR, the reference explorer and DPOR side by side, in one run: executions, wall time and
//! peak RSS per program, model and engine, on scaling families (the counter, an SB ring, the MCR
//! paper's Example, Dekker with a growing loop bound), the largest size each engine finishes
//! within the time limit, the corpus, and Dekker, Peterson, Szymanski and Lamport's fast mutex
//! with and without fences (translated from the C sources of Nidhugg's TACAS'15 benchmarks,
//! templates in `benches/engines/`) with and without `--first`, and DPOR on them at loop
//! bounds 4, 10 and 32 beside Nidhugg's counts (`ENGINES_ONLY=bounds`). Prints Markdown (committed as
//! `docs/bench-engines.md`).
//!
//! Each measurement runs in a child process of this binary (source on standard input), so that
//! the peak RSS (`VmHWM`) is that run's alone.
//!
//! Run: `cargo bench -p litmus-engine --bench engines` (10 s per run; `ENGINES_TIMEOUT=SECS`;
//! `ENGINES_ONLY=auto,x86` for some sections, `ENGINES_FAMILY=counter,SB ring` for some rows
//! of the `auto` table, `ENGINES_REPEAT=N` for each of its cells' fastest of N runs).

#[path = "../tests/programs/mod.rs"]
mod programs;

use litmus_engine::check::check_counting;
use litmus_engine::report::Model;
use litmus_engine::{syntax, CheckOptions, Control, EngineChoice, EngineKind};
use programs::{counter, nidhugg, sb_ring};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ENGINES: [(&str, EngineChoice); 3] = [
    ("MCR", EngineChoice::Fixed(EngineKind::Mcr)),
    ("exhaustive", EngineChoice::Fixed(EngineKind::Exhaustive)),
    ("DPOR", EngineChoice::Fixed(EngineKind::Dpor)),
];

/// One run's result, as the child prints it.
#[derive(Clone, Debug)]
struct Run {
    executions: u64,
    blocked: u64,
    states: u64,
    violations: u64,
    complete: bool,
    stopped: bool,
    ms: f64,
    rss_kb: u64,
    /// `Control::should_stop` polls (the portfolio's work units, unweighted).
    polls: u64,
    /// The engine that answered (`auto`: the portfolio's winner).
    engine: String,
}

impl Run {
    fn cell(&self) -> String {
        let mark = if self.stopped {
            " first"
        } else if !self.complete {
            " **timeout**"
        } else {
            ""
        };
        format!(
            "{} / {:.0} ms / {:.1} MB{mark}",
            self.executions,
            self.ms,
            self.rss_kb as f64 / 1024.0
        )
    }
}

fn peak_rss_kb() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The child: `--child ENGINE MODEL LOOP_BOUND TIMEOUT_S FIRST`, source on stdin.
fn child(args: &[String]) {
    let engine = EngineChoice::parse(&args[0]).unwrap_or(EngineKind::Dpor.into());
    let model = Model::parse(&args[1]).expect("model");
    let mut src = String::new();
    std::io::stdin().read_to_string(&mut src).expect("stdin");
    let test = syntax::parse(&src)
        .test
        .expect("the benchmark program parses");
    let opts = CheckOptions {
        engine,
        loop_bound: args[2].parse().expect("bound"),
        timeout: Some(Duration::from_secs_f64(args[3].parse().expect("seconds"))),
        first: args[4] == "1",
        ..CheckOptions::default()
    };
    // The engine's units of work, unweighted (a fixed engine's; `auto` counts its own).
    let units = Arc::new(AtomicU64::new(0));
    let counter = units.clone();
    let work = Arc::new(move |n| {
        counter.fetch_add(n, Ordering::Relaxed);
    });
    let t0 = Instant::now();
    let r = check_counting(&test, model, &opts, &Control::new(), Some(work));
    let ms = t0.elapsed().as_secs_f64() * 1000.0;
    println!(
        "{} {} {} {} {} {} {ms} {} {} {}",
        r.stats.executions,
        r.stats.blocked,
        r.states.len(),
        r.violations.len(),
        r.complete as u8,
        r.stopped.is_some() as u8,
        peak_rss_kb(),
        units.load(Ordering::Relaxed),
        r.stats.engine.map_or("none", |e| e.key()),
    );
}

fn measure(
    src: &str,
    engine: EngineChoice,
    model: Model,
    loop_bound: u32,
    timeout: f64,
    first: bool,
) -> Run {
    let exe = std::env::current_exe().expect("own path");
    let mut c = Command::new(exe)
        .args([
            "--child",
            engine.key(),
            model.key(),
            &loop_bound.to_string(),
            &timeout.to_string(),
            if first { "1" } else { "0" },
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("child runs");
    c.stdin
        .take()
        .expect("stdin")
        .write_all(src.as_bytes())
        .expect("source written");
    let out = c.wait_with_output().expect("child ends");
    let s = String::from_utf8_lossy(&out.stdout);
    let f: Vec<&str> = s.split_whitespace().collect();
    assert_eq!(f.len(), 10, "child output: {s}");
    Run {
        executions: f[0].parse().unwrap(),
        blocked: f[1].parse().unwrap(),
        states: f[2].parse().unwrap(),
        violations: f[3].parse().unwrap(),
        complete: f[4] == "1",
        stopped: f[5] == "1",
        ms: f[6].parse().unwrap(),
        rss_kb: f[7].parse().unwrap(),
        polls: f[8].parse().unwrap(),
        engine: f[9].to_string(),
    }
}

/// After the MCR paper's Example (its Figure 6, the electron microscope's PSO bug): a writer
/// builds an object (zeroes then sets its fields) and publishes it, a reader reads it; both
/// loop `n` times.
fn mcr_example(n: usize) -> String {
    format!(
        "litmus Example{n}\nshared x = 0, y = 0, z = 0;\n\
         thread P0 {{\n  i = 0;\n  while (i < {n}) {{\n    x = 0;\n    y = 0;\n    x = 2;\n    y = 3;\n    z = 1;\n    i = i + 1;\n  }}\n}}\n\
         thread P1 {{\n  j = 0;\n  while (j < {n}) {{\n    r = z;\n    if (r == 1) {{\n      a = x;\n      b = y;\n      assert(a != 0 && b != 0);\n    }}\n    j = j + 1;\n  }}\n}}\n"
    )
}

/// Nidhugg 0.4's executions (traces plus assume-blocked traces) on its TACAS'15 benchmarks,
/// "all" (`--keep-going`) and "first" (to the first error), per benchmark, unroll bound (0:
/// none), fences and model (SC, TSO, PSO): `../shared/notes/peers.md`, measured on this machine
/// on 2026-11-26.
const NIDHUGG: [(&str, u32, &str, [(u64, u64); 3]); 15] = [
    ("dekker", 4, "none", [(21, 21), (27, 24), (55, 9)]),
    ("dekker", 4, "TSO", [(21, 21), (21, 21), (49, 9)]),
    ("dekker", 4, "PSO", [(21, 21), (21, 21), (24, 24)]),
    ("dekker", 10, "none", [(21, 21), (27, 24), (55, 9)]),
    ("dekker", 10, "TSO", [(21, 21), (21, 21), (49, 9)]),
    ("dekker", 10, "PSO", [(21, 21), (21, 21), (24, 24)]),
    ("peterson", 0, "none", [(10, 10), (30, 11), (42, 3)]),
    ("peterson", 0, "TSO", [(10, 10), (10, 10), (32, 3)]),
    ("peterson", 0, "PSO", [(10, 10), (10, 10), (10, 10)]),
    ("szymanski", 0, "none", [(103, 103), (1018, 518), (1256, 5)]),
    ("szymanski", 0, "TSO", [(103, 103), (103, 103), (115, 5)]),
    ("szymanski", 0, "PSO", [(103, 103), (103, 103), (103, 103)]),
    ("lamport", 8, "none", [(32, 32), (60, 10), (230, 4)]),
    ("lamport", 8, "TSO", [(32, 32), (32, 32), (96, 4)]),
    ("lamport", 8, "PSO", [(32, 32), (32, 32), (46, 46)]),
];

/// DPOR's executions (blocked included) on the translations of Nidhugg's benchmarks at loop
/// bounds 4, 10 and 32, with and without `--first`, beside Nidhugg's "all" and "first".
/// Nidhugg's counts are the same at every unroll bound it was run with (dekker 4 and 10,
/// lamport 3 and 8; peterson and szymanski have no loop): its row for the benchmark, fences
/// and model is printed at every bound.
fn nidhugg_bounds(timeout: f64) {
    println!("\n### DPOR against Nidhugg by loop bound\n");
    println!("Executions, blocked ones included (blocked in parentheses), and the verdict; DPOR's `first` runs to its first violation (`--first`). A mark `>` where DPOR runs more executions than Nidhugg.\n");
    println!("| benchmark | fences | model | bound | DPOR all | Nidhugg all | DPOR first | Nidhugg first |");
    println!("|---|---|---|---:|---|---:|---|---:|");
    let (mut over, mut rows) = (0, 0);
    for name in ["dekker", "peterson", "szymanski", "lamport"] {
        for f in ["none", "TSO", "PSO"] {
            let src = nidhugg(name, f);
            let nid = NIDHUGG
                .iter()
                .find(|r| r.0 == name && r.2 == f)
                .expect("Nidhugg's row")
                .3;
            for model in Model::ALL {
                let (nall, nfirst) = nid[model as usize];
                for bound in [4, 10, 32] {
                    let eng = EngineChoice::Fixed(EngineKind::Dpor);
                    let all = measure(&src, eng, model, bound, timeout, false);
                    let first = measure(&src, eng, model, bound, timeout, true);
                    let cell = |r: &Run, n: u64| {
                        let verdict = if r.violations > 0 {
                            "bug"
                        } else if r.complete {
                            "ok"
                        } else {
                            "timeout"
                        };
                        let mark = if r.executions > n { " >" } else { "" };
                        format!("{verdict} {} ({}){mark}", r.executions, r.blocked)
                    };
                    rows += 2;
                    over += (all.executions > nall) as u32 + (first.executions > nfirst) as u32;
                    println!(
                        "| {name} | {f} | {} | {bound} | {} | {nall} | {} | {nfirst} |",
                        model.label(),
                        cell(&all, nall),
                        cell(&first, nfirst)
                    );
                }
            }
        }
    }
    println!("\nDPOR runs more executions than Nidhugg in {over} of {rows} cells.");
}

/// A scaling family: per model, each engine's run per size until its first timeout within a
/// group of sizes (the counter: one group per thread count), then the largest size each
/// finished.
fn family(title: &str, sizes: &[(String, String, u32, usize)], timeout: f64) {
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

/// One row of the `auto` comparison: family, label, source, loop bound, whether the
/// portfolio's weights were fitted on it.
struct Row {
    family: &'static str,
    label: String,
    src: String,
    bound: u32,
    fitted: bool,
}

fn files_in(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p: &std::path::PathBuf| p.extension().is_some_and(|x| x == "litmus"));
    files.sort();
    files
}

/// The rows of the `auto` comparison. Fitted: the counter, the SB ring and the corpus. Held
/// out: the MCR paper's Example, the mutual exclusion programs, the examples.
fn auto_rows() -> Vec<Row> {
    let mut rows = vec![];
    for (t, k) in [
        (2, 1),
        (2, 2),
        (2, 3),
        (2, 4),
        (3, 1),
        (3, 2),
        (4, 1),
        (3, 3),
    ] {
        rows.push(Row {
            family: "counter",
            label: format!("{t}x{k}"),
            src: counter(t, k),
            bound: 8,
            fitted: true,
        });
    }
    for n in [3, 5, 7, 8, 10, 12] {
        rows.push(Row {
            family: "SB ring",
            label: format!("{n}"),
            src: sb_ring(n),
            bound: 8,
            fitted: true,
        });
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for f in files_in(&root.join("tests/litmus")) {
        let src = std::fs::read_to_string(&f).unwrap();
        if syntax::parse(&src).test.is_some() {
            let label = f.file_stem().unwrap().to_string_lossy().to_string();
            rows.push(Row {
                family: "corpus",
                label,
                src,
                bound: 8,
                fitted: true,
            });
        }
    }
    for n in 1..=5 {
        rows.push(Row {
            family: "Example",
            label: format!("N={n}"),
            src: mcr_example(n),
            bound: 8,
            fitted: false,
        });
    }
    for name in ["dekker", "peterson", "szymanski", "lamport"] {
        for f in ["none", "TSO", "PSO"] {
            rows.push(Row {
                family: "mutex",
                label: format!("{name} {f}"),
                src: nidhugg(name, f),
                bound: 8,
                fitted: false,
            });
        }
    }
    for f in files_in(&root.join("examples")) {
        let src = std::fs::read_to_string(&f).unwrap();
        let label = f.file_stem().unwrap().to_string_lossy().to_string();
        rows.push(Row {
            family: "examples",
            label,
            src,
            bound: 8,
            fitted: false,
        });
    }
    // `ENGINES_FAMILY=counter,mutex`: only those families (to re-measure a few rows).
    if let Ok(f) = std::env::var("ENGINES_FAMILY") {
        rows.retain(|r| f.split(',').any(|x| x == r.family));
    }
    rows
}

fn geo_mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

/// Nanoseconds per poll of each engine over the fitted rows (what `auto::weight` holds).
fn weights(timeout: f64) {
    println!("\n### Work weights: nanoseconds per `should_stop` poll (fitted rows)\n");
    println!("Sum of wall time over sum of polls, over the rows each engine finished; the portfolio's weights (`engine/src/auto.rs`) are these, rounded.\n");
    println!("| engine | rows | polls | ms | ns / poll |");
    println!("|---|---:|---:|---:|---:|");
    for (name, e) in ENGINES {
        let (mut rows, mut polls, mut ms) = (0, 0u64, 0f64);
        for row in auto_rows().into_iter().filter(|r| r.fitted) {
            for model in Model::ALL {
                let r = measure(&row.src, e, model, row.bound, timeout, false);
                if r.complete {
                    rows += 1;
                    polls += r.polls;
                    ms += r.ms;
                }
            }
        }
        println!(
            "| {name} | {rows} | {polls} | {ms:.0} | {:.0} |",
            ms * 1e6 / polls.max(1) as f64
        );
    }
}

/// Each engine alone and `auto`, side by side, per row and model; the ratio of `auto`'s wall
/// time to the fastest single engine's.
fn auto_table(timeout: f64) {
    let repeat: usize = std::env::var("ENGINES_REPEAT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    println!("\n### `auto` against each engine alone\n");
    println!("Each cell: executions / wall time (`-`: not finished within {timeout} s; the fastest of {repeat} runs). `auto`: the engine that answered. Ratio: auto / fastest finished engine. Rows marked * were used to fit the weights; the others are held out.\n");
    println!("| family | row | model | MCR | exhaustive | DPOR | auto | engine | ratio |");
    println!("|---|---|---|---|---|---|---|---|---:|");
    let (mut fit, mut held) = (vec![], vec![]);
    let mut over = vec![];
    let mut missed = vec![];
    for row in auto_rows() {
        for model in Model::ALL {
            let kinds = [ENGINES[0].1, ENGINES[1].1, ENGINES[2].1, EngineChoice::Auto];
            let mut runs: Vec<Run> = kinds
                .iter()
                .map(|e| measure(&row.src, *e, model, row.bound, timeout, false))
                .collect();
            // `ENGINES_REPEAT=N`: N rounds, each cell's fastest (the machine is shared: a
            // round's time can be another job's). A cell that timed out is not repeated,
            // except `auto` where an engine finished.
            for _ in 1..repeat {
                let any = runs[..3].iter().any(|r| r.complete);
                for (k, e) in kinds.iter().enumerate() {
                    if runs[k].complete || (k == 3 && any) {
                        let r = measure(&row.src, *e, model, row.bound, timeout, false);
                        if r.complete && (!runs[k].complete || r.ms < runs[k].ms) {
                            runs[k] = r;
                        }
                    }
                }
            }
            let auto = runs.pop().expect("auto's run");
            let cell = |r: &Run| {
                if r.complete {
                    format!("{} / {:.1} ms", r.executions, r.ms)
                } else {
                    "-".into()
                }
            };
            let fastest = runs
                .iter()
                .filter(|r| r.complete)
                .map(|r| r.ms)
                .fold(f64::INFINITY, f64::min);
            let star = if row.fitted { "*" } else { "" };
            let ratio = if fastest.is_finite() && auto.complete {
                // Start-up (thread spawns) counts as 1 ms on both sides, so sub-millisecond
                // rows do not dominate the mean.
                let q = (auto.ms + 1.0) / (fastest + 1.0);
                if row.fitted {
                    fit.push(q)
                } else {
                    held.push(q)
                }
                if auto.ms > 1.5 * fastest + 5.0 {
                    over.push(format!("{} {} {}", row.family, row.label, model.label()));
                }
                format!("{q:.2}")
            } else if fastest.is_finite() {
                missed.push(format!("{} {} {}", row.family, row.label, model.label()));
                "**unfinished**".into()
            } else {
                "n/a".into()
            };
            println!(
                "| {}{star} | {} | {} | {} | {} | {} | {} | {} | {ratio} |",
                row.family,
                row.label,
                model.label(),
                cell(&runs[0]),
                cell(&runs[1]),
                cell(&runs[2]),
                cell(&auto),
                auto.engine
            );
        }
    }
    println!("\nGeometric mean of (auto + 1 ms) / (fastest + 1 ms): fitted rows {:.3} ({} rows), held-out rows {:.3} ({} rows), all {:.3}.\n",
        geo_mean(&fit), fit.len(), geo_mean(&held), held.len(), geo_mean(&[fit.clone(), held.clone()].concat()));
    println!(
        "Rows where auto took more than 1.5 x the fastest + 5 ms: {}.\n",
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
fn x86_table(timeout: f64) {
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
                tot[i] += measure(src, *e, model, 8, timeout, false).ms;
            }
            let a = measure(src, EngineChoice::Auto, model, 8, timeout, false);
            tot[3] += a.ms;
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

/// `ENGINES_ONLY=dpor`: DPOR's executions (blocked ones) on every row of the `auto` table and
/// of the Dekker family, no times (compare them with the committed tables to see which rows
/// a change to DPOR moved).
fn dpor_counts(timeout: f64) {
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        return child(&args[i + 1..]);
    }
    let timeout: f64 = std::env::var("ENGINES_TIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10.0);
    let only = std::env::var("ENGINES_ONLY").unwrap_or_default();
    let want = |s: &str| only.is_empty() || only.split(',').any(|o| o == s);
    println!("# Engines side by side\n");
    println!("Generated by `cargo bench -p litmus-engine --bench engines` (time limit {timeout} s per run, release build).");

    if want("weights") {
        weights(timeout);
    }
    if want("auto") {
        auto_table(timeout);
    }
    if want("x86") {
        x86_table(timeout);
    }

    // Not part of the default run: DPOR alone on every row of the `auto` table and of the
    // Dekker family, executions only, to see which rows a change to DPOR moved.
    if only.split(',').any(|o| o == "dpor") {
        dpor_counts(timeout);
    }

    if want("nidhugg") {
        println!("\n### Mutual exclusion, after Nidhugg's TACAS'15 benchmarks\n");
        println!("Executions (blocked ones in parentheses, counted apart) and the verdict: `ok`, or `bug` when a violation was found; with `--first`, the executions run until the first violation. Loop bound 8. Nidhugg's executions (traces and assume-blocked traces, `../shared/notes/peers.md`) in the last column.\n");
        println!("| benchmark | fences | model | MCR | exhaustive | DPOR | MCR --first | exhaustive --first | DPOR --first | Nidhugg |");
        println!("|---|---|---|---|---|---|---|---|---|---|");
        let nid = |name: &str, f: &str, m: Model| -> String {
            let row = NIDHUGG
                .iter()
                .find(|r| r.0 == name && r.2 == f)
                .expect("Nidhugg's row")
                .3;
            let (all, first) = row[m as usize];
            format!("{all} all, {first} to the first error")
        };
        for name in ["dekker", "peterson", "szymanski", "lamport"] {
            for f in ["none", "TSO", "PSO"] {
                let src = nidhugg(name, f);
                for model in Model::ALL {
                    let mut cells = vec![];
                    for first in [false, true] {
                        for (_, e) in ENGINES {
                            let r = measure(&src, e, model, 8, timeout, first);
                            let verdict = if r.violations > 0 {
                                "bug"
                            } else if r.complete {
                                "ok"
                            } else {
                                "timeout"
                            };
                            cells.push(format!("{verdict} {} ({})", r.executions, r.blocked));
                        }
                    }
                    println!(
                        "| {name} | {f} | {} | {} | {} |",
                        model.label(),
                        cells.join(" | "),
                        nid(name, f, model)
                    );
                }
            }
        }
    }

    if want("bounds") {
        nidhugg_bounds(timeout);
    }

    if want("counter") {
        let sizes: Vec<(String, String, u32, usize)> = (2..=4)
            .flat_map(|t| (1..=4).map(move |k| (format!("{t} threads x {k}"), counter(t, k), 8, t)))
            .collect();
        family(
            "Counter: each thread increments `c` k times (`r = c; c = r + 1;`)",
            &sizes,
            timeout,
        );
    }
    if want("sb") {
        let sizes: Vec<_> = (2..=12)
            .map(|n| (format!("{n} threads"), sb_ring(n), 8, 0))
            .collect();
        family(
            "SB ring: thread i writes x_i and reads x_(i+1)",
            &sizes,
            timeout,
        );
    }
    if want("example") {
        let sizes: Vec<_> = (1..=5)
            .map(|n| (format!("N = {n}"), mcr_example(n), 8, 0))
            .collect();
        family(
            "The MCR paper's Example (Figure 6), both threads looping N times",
            &sizes,
            timeout,
        );
    }
    if want("dekker") {
        let src = std::fs::read_to_string(format!(
            "{}/../examples/dekker.litmus",
            env!("CARGO_MANIFEST_DIR")
        ))
        .expect("dekker");
        let sizes: Vec<_> = (2..=12)
            .map(|b| (format!("loop bound {b}"), src.clone(), b, 0))
            .collect();
        family(
            "Dekker (`examples/dekker.litmus`) by loop bound",
            &sizes,
            timeout,
        );
    }
    if want("corpus") {
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
}
