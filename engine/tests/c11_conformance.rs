//! herd's C11 tests (`../shared/conformance/c11/`: 100 of Dat3M's `litmus/C11` tests with
//! herd7 7.58's answers under herd's `rc11.cat`) checked by the axiomatic engine under the
//! project's own RC11 model (`engine/src/axiomatic/rc11.cat`): the observation
//! (`Never`/`Sometimes`/`Always`), the positive and negative counts, the final states
//! (`states.json`) and the flags (`*undef*` for a data race). Prints the counts and fails on
//! any disagreement.

use litmus_engine::axiomatic::{check_c, rc11_model};
use litmus_engine::c::{lower, Defs};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn root() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/c11");
    p.join("expected.csv").exists().then_some(p)
}

fn observation(pos: u64, neg: u64) -> &'static str {
    match (pos, neg) {
        (0, _) => "Never",
        (_, 0) => "Always",
        _ => "Sometimes",
    }
}

#[test]
fn c11_tests_agree_with_herd_under_the_projects_rc11() {
    let Some(root) = root() else {
        println!("SKIPPED: ../shared/conformance/c11 not found; no C11 test was checked");
        return;
    };
    let model = rc11_model();
    // C11's operations are built in: no `.def` file
    let defs = Defs::parse("none.def", "").unwrap();
    let states: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("states.json")).unwrap()).unwrap();
    let csv = std::fs::read_to_string(root.join("expected.csv")).unwrap();
    let (mut agree, mut disagree, mut unchecked) = (0, Vec::new(), Vec::new());
    let (mut never, mut undef) = (0, 0);
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (file, obs, pos, neg, flags, status) = (f[0], f[2], f[3], f[4], f[5], f[8]);
        if status != "ok" {
            unchecked.push(format!("{file}: herd7's status {status}"));
            continue;
        }
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let p = litmus_engine::syntax::parse(&text);
        let (Some(test), Some(src)) = (&p.test, &p.c) else {
            disagree.push(format!("{file}: does not parse: {:?}", p.diagnostics));
            continue;
        };
        let prog = match lower(src, &defs) {
            Ok(prog) => prog,
            Err(d) => {
                disagree.push(format!("{file}: does not lower: {d:?}"));
                continue;
            }
        };
        let r = match check_c(test, src, &prog, &model, &BTreeSet::new(), &|| false) {
            Ok(r) => r,
            Err(e) => {
                disagree.push(format!("{file}: cannot check: {e}"));
                continue;
            }
        };
        let mut diffs = Vec::new();
        let got = observation(r.positive, r.negative);
        if got != obs {
            diffs.push(format!("observation {got}, herd {obs}"));
        }
        if (r.positive.to_string(), r.negative.to_string()) != (pos.into(), neg.into()) {
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
        if let Some(want) = states.get(file).and_then(|s| s.as_array()) {
            let want: Vec<String> = want
                .iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect();
            if want != r.states {
                diffs.push(format!("states {:?}, herd {want:?}", r.states));
            }
        }
        if diffs.is_empty() {
            agree += 1;
            never += usize::from(obs == "Never");
            undef += usize::from(!want_flags.is_empty());
        } else {
            disagree.push(format!("{file}: {}", diffs.join("; ")));
        }
    }
    for d in &disagree {
        println!("DISAGREE {d}");
    }
    for u in &unchecked {
        println!("UNCHECKED {u}");
    }
    println!(
        "c11 under litmus's rc11.cat: {agree} agree ({never} Never, {undef} flagged *undef*), \
         {} disagree, {} unchecked",
        disagree.len(),
        unchecked.len()
    );
    assert!(
        disagree.is_empty(),
        "{} tests disagree with herd7",
        disagree.len()
    );
}
