//! Final states written exactly as herd7 writes them: for every shared test that has herd's
//! states, the set of lines `litmus check` prints after `States N` must equal herd7's, string
//! for string (names, brackets, order of the names in a line, values).
//!
//! - `aarch64/`, `riscv/`: `states.json` (herd's `vars` and `states`), the test's file named in
//!   `SOURCES.csv`. The RISC-V records taken from the tracesynth log were written by a herd7
//!   older than 7.56.3 (June 2021), which wrote global locations without brackets (`x=1;`,
//!   as `herd7 -brackets false` still does); litmus's lines are compared with them in that
//!   spelling, and the count is printed.
//! - `x86_64/herd/NAME.{sc,tso}.out`: herd7 7.57's output under `sc.cat` and `x86tso-mixed.cat`.
//! - `ppc/`, `arm/`, `linux/`, `c11/` (`states.json`: path → herd's lines). The kernel's tests
//!   under its model read from the shared data (`--conf linux/model/linux-kernel.cfg`), C11's
//!   under the project's `rc11.cat` written out by `litmus model rc11 --write` (`--cat`).
//!
//! The data live outside the repository, in `../shared/conformance` next to the workspace; when
//! it is absent the test says so and checks nothing.

mod cli_support;
use cli_support::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

fn conformance() -> Option<PathBuf> {
    let d = root().join("../shared/conformance");
    d.is_dir().then_some(d)
}

/// The lines after each `States N` of a `litmus check` run over many files, per (file, model):
/// the file from the `# PATH` headers, the model from `--- SC ---` (empty for the axiomatic
/// engine's one model).
fn printed_states(stdout: &str) -> HashMap<(String, String), BTreeSet<String>> {
    let mut out = HashMap::new();
    let (mut path, mut model) = (String::new(), String::new());
    let mut lines = stdout.lines();
    while let Some(line) = lines.next() {
        if let Some(p) = line.strip_prefix("# ") {
            path = p.to_owned();
            model.clear();
        } else if let Some(m) = line
            .strip_prefix("--- ")
            .and_then(|l| l.strip_suffix(" ---"))
        {
            model = m.to_owned();
        } else if let Some(n) = line.strip_prefix("States ") {
            let n: usize = n.trim().parse().unwrap_or(0);
            let set: BTreeSet<String> = lines.by_ref().take(n).map(str::to_owned).collect();
            out.insert((path.clone(), model.clone()), set);
        }
    }
    out
}

/// herd's lines from a `states.json` record of the AArch64/RISC-V samples.
fn record_lines(rec: &serde_json::Value) -> BTreeSet<String> {
    let vars: Vec<String> = serde_json::from_value(rec["vars"].clone()).unwrap_or_default();
    let states: Vec<Vec<String>> =
        serde_json::from_value(rec["states"].clone()).unwrap_or_default();
    states
        .iter()
        .map(|s| {
            vars.iter()
                .zip(s)
                .map(|(k, v)| format!("{k}={v};"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// A line as a herd7 older than 7.56.3 (or `herd7 -brackets false`) writes it: `[x]=1;` →
/// `x=1;`.
fn without_brackets(line: &str) -> String {
    line.split(' ')
        .map(
            |atom| match atom.strip_prefix('[').and_then(|a| a.split_once("]=")) {
                Some((name, rest)) => format!("{name}={rest}"),
                None => atom.to_owned(),
            },
        )
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Default)]
struct Tally {
    compared: usize,
    /// RISC-V: lines written by an old herd7; C: states with herd's unsolved symbol.
    old_herd: usize,
    differ: Vec<String>,
}

impl Tally {
    fn compare(&mut self, what: &str, herd: &BTreeSet<String>, litmus: Option<&BTreeSet<String>>) {
        self.compared += 1;
        match litmus {
            None => self
                .differ
                .push(format!("{what}: litmus printed no states")),
            Some(l) if l != herd => self.differ.push(format!(
                "{what}:\n    herd7:  {:?}\n    litmus: {:?}",
                herd, l
            )),
            Some(_) => {}
        }
    }
}

/// Runs `litmus check ARGS FILES` and returns its printed states.
fn check_files(args: &[&str], files: &[PathBuf]) -> HashMap<(String, String), BTreeSet<String>> {
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    all.extend(files.iter().map(|p| p.display().to_string()));
    let argv: Vec<&str> = all.iter().map(String::as_str).collect();
    let r = run(&argv);
    assert!(
        r.status == 0 || r.status == 1,
        "litmus check exited {}: {}",
        r.status,
        r.stderr
    );
    printed_states(&r.stdout)
}

/// AArch64 or RISC-V: every record of `states.json`.
fn asm_set(dir: &Path, tally: &mut Tally) {
    let states: BTreeMap<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("states.json")).unwrap()).unwrap();
    // test → (file, written by a herd7 before 7.56.3).
    let sources = std::fs::read_to_string(dir.join("SOURCES.csv")).unwrap();
    let mut files: HashMap<String, (PathBuf, bool)> = HashMap::new();
    for l in sources.lines().skip(1) {
        let f: Vec<&str> = l.splitn(7, ',').collect();
        if f.len() >= 6 {
            let old = f[5].contains("tracesynth");
            files.insert(f[0].to_owned(), (dir.join(f[1]), old));
        }
    }
    let wanted: Vec<(&String, &serde_json::Value, PathBuf, bool)> = states
        .iter()
        .map(|(name, rec)| {
            let (file, old) = files
                .get(name)
                .unwrap_or_else(|| panic!("{name} is not in SOURCES.csv"))
                .clone();
            (name, rec, file, old)
        })
        .collect();
    let paths: Vec<PathBuf> = wanted.iter().map(|w| w.2.clone()).collect();
    let printed = check_files(&["check", "--color", "never"], &paths);
    for (name, rec, file, old) in wanted {
        let herd = record_lines(rec);
        let key = (file.display().to_string(), String::new());
        let litmus = printed.get(&key).map(|set| {
            if old {
                set.iter().map(|l| without_brackets(l)).collect()
            } else {
                set.clone()
            }
        });
        tally.old_herd += old as usize;
        tally.compare(name, &herd, litmus.as_ref());
    }
}

/// `x86_64/herd/NAME.{sc,tso}.out`.
fn x86_64_set(dir: &Path, tally: &mut Tally) {
    let mut outs: Vec<PathBuf> = std::fs::read_dir(dir.join("herd"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "out"))
        .collect();
    outs.sort();
    let mut tests: BTreeSet<String> = BTreeSet::new();
    for p in &outs {
        let f = p.file_name().unwrap().to_string_lossy();
        if let Some(stem) = f
            .strip_suffix(".sc.out")
            .or_else(|| f.strip_suffix(".tso.out"))
        {
            tests.insert(stem.to_owned());
        }
    }
    let files: Vec<PathBuf> = tests
        .iter()
        .map(|t| dir.join(format!("{t}.litmus")))
        .collect();
    let printed = check_files(&["check", "--color", "never", "--model", "sc,tso"], &files);
    for (t, file) in tests.iter().zip(&files) {
        for (model, suffix) in [("SC", "sc"), ("TSO", "tso")] {
            let Ok(text) =
                std::fs::read_to_string(dir.join("herd").join(format!("{t}.{suffix}.out")))
            else {
                continue;
            };
            let printed_herd = printed_states(&text);
            let herd = printed_herd
                .get(&(String::new(), String::new()))
                .cloned()
                .unwrap_or_default();
            let key = (file.display().to_string(), model.to_owned());
            tally.compare(&format!("{t} {model}"), &herd, printed.get(&key));
        }
    }
}

/// `0:r1=S8;` → `0:r1=S;`.
fn unsymbol(line: &str) -> String {
    line.split(' ')
        .map(|item| match item.split_once("=S") {
            Some((k, n)) if n.trim_end_matches(';').chars().all(|c| c.is_ascii_digit()) => {
                format!("{k}=S;")
            }
            _ => item.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The options naming the model of a set's tests.
fn model_args(set: &str, dir: &Path) -> Vec<String> {
    match set {
        "linux" => vec![
            "--conf".into(),
            dir.join("model/linux-kernel.cfg").display().to_string(),
        ],
        "c11" => {
            let out = root().join("target/tmp/cli_herd_states/rc11");
            let r = run(&[
                "model",
                "rc11",
                "--write",
                &out.display().to_string(),
                "--force",
            ]);
            assert_eq!(r.status, 0, "litmus model rc11 --write: {}", r.stderr);
            vec!["--cat".into(), out.join("rc11.cat").display().to_string()]
        }
        _ => Vec::new(),
    }
}

/// A sample of another dialect (`states.json`: path → herd's lines).
fn other_set(set: &str, dir: &Path, tally: &mut Tally) -> Result<(), String> {
    let states: BTreeMap<String, Vec<String>> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("states.json")).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let Some(first) = states.keys().next() else {
        return Err("no records".into());
    };
    // Does litmus read this dialect? One file tells.
    let model = model_args(set, dir);
    let mut argv = vec!["check", "--color", "never"];
    argv.extend(model.iter().map(String::as_str));
    let probe_file = dir.join(first).display().to_string();
    argv.push(&probe_file);
    let probe = run(&argv);
    if !probe.stdout.contains("States ") {
        let why = probe
            .stderr
            .lines()
            .chain(probe.stdout.lines())
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no output")
            .to_owned();
        return Err(format!(
            "litmus does not read this dialect yet ({why}); herd's states of {} tests not \
             compared",
            states.len()
        ));
    }
    let files: Vec<PathBuf> = states.keys().map(|p| dir.join(p)).collect();
    argv.pop();
    let printed = check_files(&argv, &files);
    for (p, lines) in &states {
        let herd: BTreeSet<String> = lines.iter().cloned().collect();
        // herd names an unsolved value by its variable (`S8`, `S23`: its solver's numbering);
        // litmus writes `S` for it (docs/reference.md#c)
        let unsolved = herd.iter().any(|l| l.contains("=S"));
        let herd: BTreeSet<String> = herd.iter().map(|l| unsymbol(l)).collect();
        tally.old_herd += unsolved as usize;
        // One model per file for these dialects: the only block printed.
        let path = dir.join(p).display().to_string();
        let litmus = printed
            .iter()
            .find(|((f, _), _)| *f == path)
            .map(|(_, s)| s);
        tally.compare(&format!("{set} {p}"), &herd, litmus);
    }
    Ok(())
}

#[test]
fn final_states_are_written_as_herd7_writes_them() {
    let Some(conf) = conformance() else {
        println!(
            "skipping: ../shared/conformance is absent; no final states compared with herd7's"
        );
        return;
    };
    let mut failures = Vec::new();
    for set in ["aarch64", "riscv", "x86_64", "linux", "ppc", "arm", "c11"] {
        let dir = conf.join(set);
        let mut tally = Tally::default();
        match set {
            "aarch64" | "riscv" if dir.join("states.json").is_file() => asm_set(&dir, &mut tally),
            "x86_64" if dir.join("herd").is_dir() => x86_64_set(&dir, &mut tally),
            "aarch64" | "riscv" | "x86_64" => {
                println!("{set}: no herd states here; nothing compared");
                continue;
            }
            _ if dir.join("states.json").is_file() => {
                if let Err(why) = other_set(set, &dir, &mut tally) {
                    println!("{set}: skipped: {why}");
                    continue;
                }
            }
            _ => {
                println!("{set}: absent; nothing compared");
                continue;
            }
        }
        println!(
            "{set}: {} state sets compared with herd7's as strings, {} equal, {} differ{}",
            tally.compared,
            tally.compared - tally.differ.len(),
            tally.differ.len(),
            if tally.old_herd > 0 && set == "linux" {
                format!(
                    " ({} of them with herd's unsolved symbol, `S8` read as `S`)",
                    tally.old_herd
                )
            } else if tally.old_herd > 0 {
                format!(
                    " ({} of them written by a herd7 before 7.56.3, without brackets)",
                    tally.old_herd
                )
            } else {
                String::new()
            }
        );
        for d in &tally.differ {
            println!("  {d}");
        }
        failures.extend(tally.differ.into_iter().map(|d| format!("{set} {d}")));
    }
    assert!(
        failures.is_empty(),
        "{} state sets differ from herd7's",
        failures.len()
    );
}
