//! Catalogues: the 487 herd `X86` conformance tests under SC and TSO with `litmus check -j 1`
//! and `-j 2` (and `-j` = every core), wall time, the CPU time the run used (user + system,
//! from `/proc/self/stat`'s children fields) and the speed-up; the outputs must be identical.
//!
//! Run: `cargo bench -p litmus --bench catalogue` (`LITMUS_X86_DIR` overrides where the tests
//! are; default `../shared/conformance/x86` next to the workspace). Table committed in
//! `docs/bench-engines.md`.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

/// User + system CPU seconds of this process's waited-for children so far.
fn children_cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which ends with ')'): cutime and cstime are the 16th and
    // 17th fields of the whole line, the 14th and 15th after it.
    let rest = s.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest.split_whitespace().map(|x| x.parse().unwrap_or(0.0)).collect();
    let ticks = 100.0; // USER_HZ on Linux
    if f.len() > 14 {
        (f[13] + f[14]) / ticks
    } else {
        0.0
    }
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = std::env::var("LITMUS_X86_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join("../shared/conformance/x86"));
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
                .map(|p| p.display().to_string())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    if files.is_empty() {
        println!("x86 conformance tests not found in {} (set LITMUS_X86_DIR)", dir.display());
        return;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("### Catalogue: {} herd x86 tests, SC and TSO, `litmus check -q` ({cores} cores)\n", files.len());
    println!("| engine | -j | wall | CPU | CPU / wall | speed-up over -j 1 |");
    println!("|---|---:|---:|---:|---:|---:|");
    for engine in ["auto", "exhaustive"] {
        let mut base = None;
        let mut first_out: Option<Vec<u8>> = None;
        for j in [1, 2] {
            let cpu0 = children_cpu();
            let t0 = Instant::now();
            let out = Command::new(env!("CARGO_BIN_EXE_litmus"))
                .args(["check", "-q", "--model", "sc,tso", "--engine", engine, "-j", &j.to_string()])
                .args(&files)
                .output()
                .expect("litmus runs");
            let wall = t0.elapsed().as_secs_f64();
            let cpu = children_cpu() - cpu0;
            match &first_out {
                None => first_out = Some(out.stdout.clone()),
                Some(o) => assert!(*o == out.stdout, "-j {j} printed something else than -j 1"),
            }
            let b = *base.get_or_insert(wall);
            println!(
                "| {engine} | {j} | {wall:.2} s | {cpu:.2} s | {:.2} | {:.2} |",
                cpu / wall,
                b / wall
            );
        }
    }
}
