//! What the C conformance tests share (`c_conformance.rs`, the kernel's tests; `c11_conformance.rs`,
//! C11's): one row of a shared `expected.csv` checked by the C engine and compared with herd7's
//! answer: the observation, the counts, the flags and the final states.
#![allow(dead_code)]

use litmus_engine::axiomatic::check_c;
use litmus_engine::c::{lower, Defs};
use litmus_engine::cat::Model;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `../shared/conformance/NAME` when its `expected.csv` is there.
pub fn root(name: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/conformance")
        .join(name);
    p.join("expected.csv").exists().then_some(p)
}

/// herd's observation from the counts.
pub fn observation(pos: u64, neg: u64) -> &'static str {
    match (pos, neg) {
        (0, _) => "Never",
        (_, 0) => "Always",
        _ => "Sometimes",
    }
}

/// `0:r1=S8;` → `0:r1=S;`: herd names an unsolved value by its variable (`S8`, `S23`); the
/// engine writes `S` for it.
pub fn unsymbol(line: &str) -> String {
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

/// What a test is checked with: the model, its variants, the `.def` file, herd's states.
pub struct Judge<'a> {
    pub root: &'a Path,
    pub model: &'a Model,
    pub variants: &'a BTreeSet<String>,
    pub defs: &'a Defs,
    pub states: &'a serde_json::Value,
}

impl Judge<'_> {
    /// One row of `expected.csv` (`file,test,observation,positive,negative,flags,...`):
    /// `Ok(())` when the engine agrees with herd7, else what differs.
    pub fn check(&self, f: &[&str]) -> Result<(), String> {
        let (file, obs, pos, neg, flags) = (f[0], f[2], f[3], f[4], f[5]);
        let text = std::fs::read_to_string(self.root.join(file)).unwrap();
        let p = litmus_engine::syntax::parse(&text);
        let (Some(test), Some(src)) = (&p.test, &p.c) else {
            return Err(format!("does not parse: {:?}", p.diagnostics));
        };
        let prog = lower(src, self.defs).map_err(|d| format!("does not lower: {d:?}"))?;
        let start = std::time::Instant::now();
        let r = check_c(test, src, &prog, self.model, self.variants, &|| false)
            .map_err(|e| format!("cannot check: {e}"))?;
        let took = start.elapsed().as_secs_f64();
        if took > 5.0 {
            println!("slow: {file} {took:.1}s");
        }
        let mut diffs = Vec::new();
        let got = observation(r.positive, r.negative);
        if got != obs {
            diffs.push(format!("observation {got}, herd {obs}"));
        }
        if (r.positive.to_string(), r.negative.to_string()) != (pos.to_string(), neg.to_string()) {
            diffs.push(format!(
                "counts {} {}, herd {pos} {neg}",
                r.positive, r.negative
            ));
        }
        let want_flags: BTreeSet<&str> = flags.split(';').filter(|s| !s.is_empty()).collect();
        let got_flags: BTreeSet<&str> = r.flags.iter().map(String::as_str).collect();
        if want_flags != got_flags {
            diffs.push(format!("flags {got_flags:?}, herd {want_flags:?}"));
        }
        if let Some(want) = self.states.get(file).and_then(|s| s.as_array()) {
            let want: Vec<String> = want
                .iter()
                .filter_map(|s| s.as_str())
                .map(unsymbol)
                .collect();
            if want != r.states {
                diffs.push(format!("states {:?}, herd {want:?}", r.states));
            }
        }
        if diffs.is_empty() {
            Ok(())
        } else {
            Err(diffs.join("; "))
        }
    }
}

/// herd's final states of a sample (`states.json`).
pub fn states(root: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(root.join("states.json")).unwrap()).unwrap()
}

/// The kernel's model as the shared data has it (`linux/model/`): the model, its `.def`
/// file's macros, and the variants herd's `linux-kernel.cfg` sets.
pub struct Kernel {
    pub model: Model,
    pub defs: Defs,
    pub variants: BTreeSet<String>,
}

/// [`Kernel`] from `root` (`../shared/conformance/linux`).
pub fn kernel(root: &Path) -> Kernel {
    let dir = root.join("model");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let resolve = {
        let dir = dir.clone();
        move |f: &str| std::fs::read_to_string(dir.join(f)).ok()
    };
    let model = Model::parse_with_bell(
        "linux-kernel.bell",
        &read("linux-kernel.bell"),
        &read("linux-kernel.cat"),
        &resolve,
    )
    .unwrap_or_else(|e| panic!("the kernel model: {e}"));
    let defs = Defs::parse("linux-kernel.def", &read("linux-kernel.def")).unwrap();
    Kernel {
        model,
        defs,
        variants: ["lkmmv2".to_string()].into(),
    }
}

/// `n` threads taking a lock emulated with `xchg_acquire` and releasing it with
/// `smp_store_release`, each writing its own location and reading the next one's (Paul
/// McKenney's `C-SB+l-o-o-u+...-XE` shape).
pub fn sb_xchg_lock(n: usize) -> String {
    let mut s = format!("C SB-xchg-lock-{n}\n{{\n}}\n");
    for t in 0..n {
        let (a, b) = (t, (t + 1) % n);
        s += &format!(
            "P{t}(int *sl, int *x{a}, int *x{b})\n{{\n  int r1;\n  int r2;\n\n  \
             r2 = xchg_acquire(sl, 1);\n  WRITE_ONCE(*x{a}, 1);\n  r1 = READ_ONCE(*x{b});\n  \
             smp_store_release(sl, 0);\n}}\n"
        );
    }
    let cond: Vec<String> = (0..n).map(|t| format!("{t}:r1=0 /\\ {t}:r2=0")).collect();
    s + &format!("exists ({})\n", cond.join(" /\\ "))
}
