//! Catalogues: the 487 herd `X86` conformance tests under SC and TSO with `litmus check -j 1`
//! and `-j 2` (and `-j` = every core), wall time, the CPU time the run used (user + system,
//! from `/proc/self/stat`'s children fields) and the speed-up; the outputs must be identical.
//!
//! Run: `cargo bench -p litmus --bench catalogue` (`LITMUS_X86_DIR` overrides where the tests
//! are; default `../shared/conformance/x86` next to the workspace). Table committed in
//! `docs/bench-engines.md`.
//!
//! With `LITMUS_CATALOGUE_DIR` (a directory searched recursively for `.litmus` files, e.g. the
//! public litmus-tests/litmus-tests-x86 repository, fetched and not committed), the streamed
//! catalogue instead (`docs/catalogues.md`): the first 500, 2,000 and all of its files (sorted)
//! under SC and TSO, with `-q` and with `--json`, `-j 1` against `-j 2`: wall time (median of
//! `LITMUS_BENCH_REPEAT` paired runs, default 3), the median of the paired speed-ups, and peak
//! RSS (`/usr/bin/time -f %M`); then `litmus merge` of two shards of the whole catalogue. With
//! `LITMUS_BASE_BIN` (another build of `litmus`, e.g. the one before streaming) each run is
//! made with both binaries, side by side, and their outputs must be identical (timings aside).

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

/// User + system CPU seconds of this process's waited-for children so far.
fn children_cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which ends with ')'): cutime and cstime are the 16th and
    // 17th fields of the whole line, the 14th and 15th after it.
    let rest = s.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    let ticks = 100.0; // USER_HZ on Linux
    if f.len() > 14 {
        (f[13] + f[14]) / ticks
    } else {
        0.0
    }
}

fn main() {
    if let Ok(dir) = std::env::var("LITMUS_CATALOGUE_DIR") {
        streamed(&PathBuf::from(dir));
        return;
    }
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
        println!(
            "x86 conformance tests not found in {} (set LITMUS_X86_DIR)",
            dir.display()
        );
        return;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "### Catalogue: {} herd x86 tests, SC and TSO, `litmus check -q` ({cores} cores)\n",
        files.len()
    );
    println!("| engine | -j | wall | CPU | CPU / wall | speed-up over -j 1 |");
    println!("|---|---:|---:|---:|---:|---:|");
    for engine in ["auto", "exhaustive"] {
        let mut base = None;
        let mut first_out: Option<Vec<u8>> = None;
        for j in [1, 2] {
            let cpu0 = children_cpu();
            let t0 = Instant::now();
            let out = Command::new(env!("CARGO_BIN_EXE_litmus"))
                .args([
                    "check",
                    "-q",
                    "--model",
                    "sc,tso",
                    "--engine",
                    engine,
                    "-j",
                    &j.to_string(),
                ])
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

/// Every `.litmus` file under `dir`, sorted.
fn litmus_files(dir: &std::path::Path, into: &mut Vec<String>) {
    let Ok(d) = std::fs::read_dir(dir) else {
        return;
    };
    for e in d.filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            litmus_files(&p, into);
        } else if p.extension().is_some_and(|x| x == "litmus") {
            into.push(p.display().to_string());
        }
    }
}

/// One run of `bin` under `/usr/bin/time`: (wall s, CPU s, peak RSS MiB, stdout, status).
fn timed(bin: &str, args: &[&str], files: &[String]) -> (f64, f64, f64, Vec<u8>, Option<i32>) {
    let stats = std::env::temp_dir().join(format!("litmus-bench-time-{}", std::process::id()));
    let t0 = Instant::now();
    // In a session of its own (`setsid`): with the kernel's autogroup scheduling, a run in the
    // bench's session shares one scheduling group with everything else of that session (a
    // build), and two threads of one group get no more CPU than one on a busy machine.
    let out = Command::new("setsid")
        .args(["-w", "/usr/bin/time", "-f", "%U %S %M", "-o"])
        .arg(&stats)
        .arg(bin)
        .args(args)
        .args(files)
        .output()
        .expect("/usr/bin/time runs litmus");
    let wall = t0.elapsed().as_secs_f64();
    let s = std::fs::read_to_string(&stats).unwrap_or_default();
    let f: Vec<f64> = s
        .lines()
        .last()
        .unwrap_or("")
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    let (cpu, rss) = if f.len() == 3 {
        (f[0] + f[1], f[2] / 1024.0)
    } else {
        (0.0, 0.0)
    };
    (wall, cpu, rss, out.stdout, out.status.code())
}

/// Output without its timings (`time_ms`, `solver_ms` in JSON; the text stats line's).
fn untimed(s: &[u8]) -> String {
    String::from_utf8_lossy(s)
        .lines()
        .filter(|l| !l.contains("\"time_ms\"") && !l.contains("\"solver_ms\""))
        .map(|l| match l.find(", solver ") {
            Some(i) if l.starts_with("Stats:") => match l.rfind(" ms, ") {
                Some(j) => format!("{}{}", &l[..i], &l[j + 4..]),
                None => l.to_owned(),
            },
            _ => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        0.0
    } else {
        v[v.len() / 2]
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// The streamed catalogue's tables.
fn streamed(dir: &std::path::Path) {
    let mut all = vec![];
    litmus_files(dir, &mut all);
    all.sort();
    if all.is_empty() {
        println!("no .litmus files under {}", dir.display());
        return;
    }
    let repeat: usize = std::env::var("LITMUS_BENCH_REPEAT")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3)
        .max(1);
    let new = env!("CARGO_BIN_EXE_litmus").to_owned();
    let mut bins = vec![("after", new.clone())];
    if let Ok(b) = std::env::var("LITMUS_BASE_BIN") {
        bins.insert(0, ("before", b));
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "### Streamed catalogue: {} files of {}, SC and TSO ({cores} cores, load average {} at the start, {repeat} paired runs)\n",
        all.len(),
        dir.display(),
        load_average()
    );
    println!("| build | output | files | -j 1 wall | -j 2 wall | speed-up (median of pairs) | -j 1 CPU | -j 2 CPU | -j 1 peak RSS | -j 2 peak RSS |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut sizes: Vec<usize> = [500, 2000].into_iter().filter(|&n| n < all.len()).collect();
    sizes.push(all.len());
    for &n in &sizes {
        let files = &all[..n];
        for mode in ["-q", "--json"] {
            // rows[bin] = (wall j1, wall j2, ratio, rss j1, rss j2, cpu j1, cpu j2) per repetition.
            let mut rows: Vec<Vec<[f64; 7]>> = vec![vec![]; bins.len()];
            let mut reference: Option<String> = None;
            for _ in 0..repeat {
                for (b, (_, bin)) in bins.iter().enumerate() {
                    let mut r = [0.0; 7];
                    for (k, j) in ["1", "2"].into_iter().enumerate() {
                        let (wall, cpu, rss, stdout, _status) =
                            timed(bin, &["check", mode, "--model", "sc,tso", "-j", j], files);
                        let u = untimed(&stdout);
                        match &reference {
                            None => reference = Some(u),
                            Some(o) => assert!(*o == u, "{bin} -j {j} {mode}: output differs"),
                        }
                        r[k] = wall;
                        r[3 + k] = rss;
                        r[5 + k] = cpu;
                    }
                    r[2] = r[0] / r[1];
                    rows[b].push(r);
                }
            }
            for (b, (name, _)) in bins.iter().enumerate() {
                let m = |i: usize| median(rows[b].iter().map(|r| r[i]).collect());
                println!(
                    "| {name} | `{mode}` | {n} | {:.2} s | {:.2} s | {:.2}x | {:.2} s | {:.2} s | {:.1} MiB | {:.1} MiB |",
                    m(0),
                    m(1),
                    m(2),
                    m(5),
                    m(6),
                    m(3),
                    m(4)
                );
            }
        }
    }
    // `litmus merge` of two shards of the whole catalogue.
    let tmp = std::env::temp_dir().join(format!("litmus-bench-merge-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("a temporary directory");
    let mut shards = vec![];
    let mut bytes = 0;
    for k in 1..=2 {
        let (_, _, _, stdout, _) = timed(
            &new,
            &[
                "check",
                "--json",
                "--model",
                "sc,tso",
                "--shard",
                &format!("{k}/2"),
            ],
            &all,
        );
        bytes += stdout.len();
        let p = tmp.join(format!("shard{k}.json"));
        std::fs::write(&p, &stdout).expect("the shard is written");
        shards.push(p.display().to_string());
    }
    println!(
        "\n| build | `litmus merge` of 2 shards ({:.0} MB of JSON) | wall | peak RSS |",
        bytes as f64 / 1e6
    );
    println!("|---|---|---:|---:|");
    let mut rows: Vec<Vec<[f64; 2]>> = vec![vec![]; bins.len()];
    let mut reference: Option<Vec<u8>> = None;
    for _ in 0..repeat {
        for (b, (_, bin)) in bins.iter().enumerate() {
            let (wall, _, rss, stdout, _) = timed(bin, &["merge"], &shards);
            match &reference {
                None => reference = Some(stdout),
                Some(o) => assert!(*o == stdout, "{bin}: merge output differs"),
            }
            rows[b].push([wall, rss]);
        }
    }
    for (b, (name, _)) in bins.iter().enumerate() {
        let m = |i: usize| median(rows[b].iter().map(|r| r[i]).collect());
        println!(
            "| {name} | {} files | {:.2} s | {:.1} MiB |",
            all.len(),
            m(0),
            m(1)
        );
    }
    println!("\nload average at the end: {}", load_average());
    let _ = std::fs::remove_dir_all(&tmp);
}
