//! herd's `AArch64` and `RISCV` dialects on the public samples: every test of
//! `../shared/conformance/aarch64` and `../shared/conformance/riscv` (relative to the
//! repository root; skipped with a message when absent) parses and lowers without an error,
//! or fails only at instructions outside the supported subset, each with its position; and
//! the subset covers at least 99% of the census of the full public collections
//! (`../shared/conformance/census-aarch64-riscv/<arch>-mnemonics.csv`). Checking them is not
//! available yet and says so. About a second.
//!
//! Where the sample has a test that uses something outside the subset, it is listed with the
//! error's position (today none).

use litmus_engine::asm::{self, Arch};
use litmus_engine::{check, syntax, CheckOptions, Control, Model};
use std::path::{Path, PathBuf};

fn shared(sub: &str) -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    [
        root.join(format!("../shared/conformance/{sub}")),
        root.join(format!("../../shared/conformance/{sub}")),
    ]
    .into_iter()
    .find(|d| d.exists())
}

fn litmus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            litmus_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "litmus") {
            out.push(p);
        }
    }
}

fn sample(set: &str, arch: Arch) {
    let Some(dir) = shared(set) else {
        println!("skipping {set} conformance: ../shared/conformance/{set} not found");
        return;
    };
    let mut files = Vec::new();
    litmus_files(&dir.join("tests"), &mut files);
    assert!(
        files.len() >= 100,
        "{set}: only {} tests found",
        files.len()
    );
    let (mut ok, mut outside, mut bad) = (0, Vec::new(), Vec::new());
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap_or_default();
        let p = syntax::parse(&src);
        let name = f.strip_prefix(&dir).unwrap_or(f).display().to_string();
        match (&p.test, &p.asm) {
            (Some(t), Some(code)) => {
                assert_eq!(code.arch, arch, "{name}");
                assert_eq!(code.threads.len(), t.threads.len(), "{name}");
                ok += 1;
            }
            _ => {
                let errors: Vec<_> = p.diagnostics.iter().filter(|d| d.is_error()).collect();
                let only_subset = !errors.is_empty()
                    && errors.iter().all(|d| {
                        d.message.contains("outside the supported")
                            && src
                                .get(d.span.range())
                                .is_some_and(|s| !s.trim().is_empty())
                    });
                let first = errors
                    .first()
                    .map(|d| {
                        format!(
                            "{}: `{}` {}",
                            d.span.start,
                            src.get(d.span.range()).unwrap_or(""),
                            d.message
                        )
                    })
                    .unwrap_or_default();
                if only_subset {
                    outside.push(format!("{name}: {first}"));
                } else {
                    bad.push(format!("{name}: {first}"));
                }
            }
        }
    }
    println!(
        "{set}: {} tests: {ok} parse and lower, {} fail only at instructions outside the subset, {} otherwise",
        files.len(),
        outside.len(),
        bad.len()
    );
    for o in &outside {
        println!("  outside the subset: {o}");
    }
    assert!(
        bad.is_empty(),
        "{set}: {} tests fail otherwise:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert!(
        ok * 100 >= files.len() * 99,
        "{set}: only {ok} of {} parse",
        files.len()
    );
}

#[test]
fn aarch64_sample_parses() {
    sample("aarch64", Arch::AArch64);
}

#[test]
fn riscv_sample_parses() {
    sample("riscv", Arch::RiscV);
}

/// The census counts, per mnemonic, the tests of the full collections that use it: the tests
/// using any mnemonic outside the subset are at most the sum of those counts.
fn census(arch: Arch, file: &str, total: usize) {
    let Some(dir) = shared("census-aarch64-riscv") else {
        println!("skipping the census: ../shared/conformance/census-aarch64-riscv not found");
        return;
    };
    let csv = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
    let (mut supported, mut missing, mut lost) = (0, Vec::new(), 0usize);
    for line in csv.lines().skip(1) {
        let cols: Vec<&str> = line.split(',').collect();
        let (Some(m), Some(Ok(tests))) = (cols.first(), cols.get(1).map(|t| t.parse::<usize>()))
        else {
            continue;
        };
        if asm::describe(arch, m).is_some() {
            // What the hover describes, the front end lowers (an operand count error at
            // most, never "outside the subset").
            let header = if arch == Arch::AArch64 {
                "AArch64"
            } else {
                "RISCV"
            };
            let src = format!("{header} T\n{{}}\n P0 ;\n {m} ;\nexists (x=0)\n");
            let p = syntax::parse(&src);
            assert!(
                p.diagnostics
                    .iter()
                    .all(|d| !d.message.contains("outside the supported")),
                "{m} is described but not lowered: {:?}",
                p.diagnostics
            );
            supported += 1;
        } else {
            missing.push(format!("{m} ({tests})"));
            lost += tests;
        }
    }
    let covered = total.saturating_sub(lost);
    println!(
        "{file}: {supported} mnemonics supported; outside: {}; at least {covered} of {total} tests ({:.2}%) use only supported mnemonics",
        missing.join(", "),
        covered as f64 * 100.0 / total as f64
    );
    assert!(supported > 0, "{file}: no rows read");
    assert!(covered * 100 >= total * 99, "{file}: coverage below 99%");
}

#[test]
fn the_subset_covers_99_percent_of_the_census() {
    census(Arch::AArch64, "aarch64-mnemonics.csv", 5317);
    census(Arch::RiscV, "riscv-mnemonics.csv", 6889);
}

#[test]
fn checking_says_it_is_not_available_yet() {
    for src in [
        "AArch64 MP\n{ 0:X1=x; }\n P0 ;\n MOV W0,#1 ;\n STR W0,[X1] ;\nexists (x=1)\n",
        "RISCV MP\n{ 0:x6=x; }\n P0 ;\n sw x5,0(x6) ;\nexists (x=1)\n",
    ] {
        let p = syntax::parse(src);
        let test = p.test.expect("parses");
        let r = check(&test, Model::Sc, &CheckOptions::default(), &Control::new());
        assert!(
            !r.complete,
            "an AArch64/RISC-V check must not claim a verdict"
        );
        assert!(r.condition.is_none() && r.states.is_empty());
        assert!(
            r.warnings
                .iter()
                .any(|w| w.message.contains("not available yet")),
            "{:?}",
            r.warnings
        );
    }
}
