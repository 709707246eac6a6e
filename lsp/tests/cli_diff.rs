//! `litmus diff` and `litmus model` (`docs/models.md`): the built-in AArch64 model written out,
//! a weakened copy made at test time (the `external` check without `lob`), and the tests whose
//! verdicts the change moves; on the shared AArch64 and RISC-V samples
//! (`../shared/conformance/{aarch64,riscv}`, SKIPPED when absent) the list is the one obtained by
//! running `litmus check --cat` with each model and comparing verdicts. One file in four of
//! each sample keeps the suite to seconds.

mod cli_support;
use cli_support::*;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const MP_DMB_ADDR: &str = "AArch64 MP+dmb.sy+addr
{
0:X1=x; 0:X3=y;
1:X1=y; 1:X3=x;
}
 P0          | P1                  ;
 MOV W0,#1   | LDR W0,[X1]         ;
 STR W0,[X1] | EOR W2,W0,W0        ;
 DMB SY      | LDR W4,[X3,W2,SXTW] ;
 MOV W2,#1   |                     ;
 STR W2,[X3] |                     ;
exists (1:X0=1 /\\ 1:X4=0)
";

/// The built-in model written into a scratch folder, and `with` replacing `what` in a copy.
fn models(test: &str, arch: &str, what: &str, with: &str) -> (String, String) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(test);
    let _ = std::fs::remove_dir_all(&dir);
    let r = run(&["model", arch, "--write", &dir.display().to_string()]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let orig = dir.join(format!("{arch}.cat"));
    assert!(
        r.stdout.contains(&orig.display().to_string()),
        "{}",
        r.stdout
    );
    assert!(dir.join("stdlib.cat").is_file());
    let text = std::fs::read_to_string(&orig).unwrap();
    assert!(text.contains(what), "{what} not in {arch}.cat");
    let weak = dir.join("weak.cat");
    std::fs::write(&weak, text.replace(what, with)).unwrap();
    (orig.display().to_string(), weak.display().to_string())
}

fn sample(arch: &str) -> Option<Vec<String>> {
    let dir = root()
        .join("../shared/conformance")
        .join(arch)
        .join("tests");
    if !dir.is_dir() {
        println!("SKIPPED: no shared {arch} sample at {}", dir.display());
        return None;
    }
    let mut files = Vec::new();
    let mut todo = vec![dir];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p: PathBuf = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                files.push(p.display().to_string());
            }
        }
    }
    files.sort();
    Some(files.into_iter().step_by(4).collect())
}

/// `litmus check --cat MODEL --json FILES`: each file's verdict (`holds`).
fn verdicts(model: &str, files: &[String]) -> Vec<(String, bool)> {
    let mut args = vec!["check", "--json", "--cat", model];
    args.extend(files.iter().map(String::as_str));
    let r = run(&args);
    assert!(r.status != 2, "{}", r.stderr);
    let doc = r.json();
    doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                // JSON version 2: the one axiomatic model's result under its key
                // (`aarch64`, `riscv`)
                f["results"]
                    .as_object()
                    .and_then(|r| r.values().next())
                    .and_then(|m| m["condition"]["holds"].as_bool())
                    .unwrap_or_else(|| panic!("no verdict in {f}")),
            )
        })
        .collect()
}

fn same_as_check(arch: &str, what: &str, with: &str) {
    let Some(files) = sample(arch) else { return };
    let (orig, weak) = models(&format!("cli_diff_{arch}"), arch, what, with);
    let mut args = vec!["diff", "--json", "--cat", &orig, "--cat", &weak];
    args.extend(files.iter().map(String::as_str));
    let start = std::time::Instant::now();
    let r = run(&args);
    println!(
        "{arch}: diff of {} tests: {:?}",
        files.len(),
        start.elapsed()
    );
    let doc = r.json();
    let changed: BTreeSet<String> = doc["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["file"].as_str().unwrap().to_string())
        .collect();
    let (a, b) = (verdicts(&orig, &files), verdicts(&weak, &files));
    assert_eq!(a.len(), files.len());
    let expected: BTreeSet<String> = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| x.1 != y.1)
        .map(|(x, _)| x.0.clone())
        .collect();
    assert!(!expected.is_empty(), "the weakening changes nothing");
    assert_eq!(changed, expected);
    assert_eq!(doc["checked"].as_u64(), Some(files.len() as u64));
    assert_eq!(r.status, 1, "{}", r.stderr);
    println!(
        "{arch}: {} of {} verdicts differ",
        changed.len(),
        files.len()
    );
}

#[test]
fn aarch64_diff_equals_two_checks() {
    same_as_check(
        "aarch64",
        "acyclic obs | hob | lob | plob | dsbob as external",
        "acyclic obs | hob | plob | dsbob as external",
    );
}

#[test]
fn riscv_diff_equals_two_checks() {
    let text = litmus_engine::axiomatic::RISCV_CAT;
    let check = text
        .lines()
        .find(|l| l.starts_with("acyclic") && l.contains("ppo"))
        .expect("riscv.cat's main check");
    same_as_check("riscv", check, &check.replace("ppo", "0"));
}

#[test]
fn the_table_the_exit_status_and_model_errors() {
    let (orig, weak) = models(
        "cli_diff_table",
        "aarch64",
        "acyclic obs | hob | lob | plob | dsbob as external",
        "acyclic obs | hob | plob | dsbob as external",
    );
    let t = scratch(
        "cli_diff_table",
        "MP+dmb.sy+addr.litmus",
        MP_DMB_ADDR.as_bytes(),
    );
    let native = example("sb.litmus");
    let r = run(&["diff", "--cat", &orig, "--cat", &weak, &t, &native]);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    let mut lines = r.stdout.lines();
    assert!(lines.next().unwrap().starts_with("test "), "{}", r.stdout);
    let row = lines.next().unwrap();
    assert!(row.starts_with("MP+dmb.sy+addr"), "{row}");
    assert!(row.contains("No -> Ok"), "{row}");
    assert!(row.ends_with(&t), "{row}");
    assert!(r.stderr.contains("1 of 1 tests differ"), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("skipped: not an AArch64, RISC-V or x86 test"),
        "{}",
        r.stderr
    );

    // The same model twice: nothing differs, status 0.
    let r = run(&["diff", "--cat", &orig, "--cat", &orig, &t]);
    assert_eq!((r.status, r.stdout.as_str()), (0, ""), "{}", r.stderr);

    // A model that does not parse: its error with file:line:col, status 2.
    let bad = scratch(
        "cli_diff_table",
        "bad.cat",
        b"let a = po\nlet b = (a | rf\n",
    );
    let r = run(&["diff", "--cat", &orig, "--cat", &bad, &t]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("{bad}:3:1: expected `)`")),
        "{}",
        r.stderr
    );
    // An include that is missing names the include.
    let inc = scratch("cli_diff_table", "inc.cat", b"include \"nowhere.cat\"\n");
    let r = run(&["diff", "--cat", &inc, "--cat", &orig, &t]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr
            .contains(&format!("{inc}:1:1: cannot include `nowhere.cat`")),
        "{}",
        r.stderr
    );
    // One model only.
    let r = run(&["diff", "--cat", &orig, &t]);
    assert_eq!(r.status, 2);
}

#[test]
fn x86_tests_go_through_the_axiomatic_program_check() {
    // SB: SC forbids (0,0), x86-TSO allows it; the native copy of SB is skipped.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_diff_x86");
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.display().to_string();
    for m in ["sc", "x86tso"] {
        assert_eq!(run(&["model", m, "--write", &d]).status, 0);
    }
    let (sc, tso) = (
        dir.join("sc.cat").display().to_string(),
        dir.join("x86tso.cat").display().to_string(),
    );
    let (x86, native) = (example("sb-x86.litmus"), example("sb.litmus"));
    let r = run(&["diff", "--json", "--cat", &sc, "--cat", &tso, &x86, &native]);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    let doc = r.json();
    assert_eq!(doc["checked"], 1);
    assert_eq!(doc["changed"][0]["file"], x86.as_str());
    assert_eq!(
        (
            doc["changed"][0]["before"].as_str(),
            doc["changed"][0]["after"].as_str()
        ),
        (Some("No"), Some("Ok"))
    );
    assert_eq!(doc["skipped"][0]["file"], native.as_str());
}

#[test]
fn model_lists_prints_and_writes_without_overwriting() {
    let r = run(&["model"]);
    assert_eq!(r.status, 0);
    for n in [
        "aarch64",
        "riscv",
        "sc",
        "x86tso",
        "stdlib.cat",
        "cross.cat",
    ] {
        assert!(r.stdout.contains(n), "{n}: {}", r.stdout);
    }
    let r = run(&["model", "riscv"]);
    assert_eq!(r.stdout, litmus_engine::axiomatic::RISCV_CAT);
    let r = run(&["model", "cos-opt.cat"]);
    assert_eq!(
        Some(r.stdout.as_str()),
        litmus_engine::cat::library_file("cos-opt.cat")
    );
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_model_write");
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.display().to_string();
    // cos-opt.cat includes cross.cat: both are written, with stdlib.cat.
    let r = run(&["model", "cos-opt", "--write", &d]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    for f in ["cos-opt.cat", "cross.cat", "stdlib.cat"] {
        assert!(dir.join(f).is_file(), "{f}: {}", r.stdout);
    }
    std::fs::write(dir.join("stdlib.cat"), "(* mine *)").unwrap();
    let r = run(&["model", "aarch64", "--write", &d]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("exists with other contents"),
        "{}",
        r.stderr
    );
    assert!(
        !dir.join("aarch64.cat").exists(),
        "nothing written on a conflict"
    );
    let r = run(&["model", "aarch64", "--write", &d, "--force"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.join("stdlib.cat")).unwrap(),
        litmus_engine::cat::library_file("stdlib.cat").unwrap()
    );
    let r = run(&["model", "power"]);
    assert_eq!(r.status, 2);
}
