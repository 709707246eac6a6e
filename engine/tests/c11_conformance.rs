//! herd's C11 tests (`../shared/conformance/c11/`: 100 of Dat3M's `litmus/C11` tests with
//! herd7 7.58's answers under herd's `rc11.cat`) checked by the axiomatic engine under the
//! project's own RC11 model (`engine/src/axiomatic/rc11.cat`): the observation
//! (`Never`/`Sometimes`/`Always`), the positive and negative counts, the final states
//! (`states.json`) and the flags (`*undef*` for a data race). Prints the counts and fails on
//! any disagreement.

mod c_support;

use c_support::Judge;
use litmus_engine::axiomatic::rc11_model;
use litmus_engine::c::Defs;
use std::collections::BTreeSet;

#[test]
fn c11_tests_agree_with_herd_under_the_projects_rc11() {
    let Some(root) = c_support::root("c11") else {
        println!("SKIPPED: ../shared/conformance/c11 not found; no C11 test was checked");
        return;
    };
    let model = rc11_model();
    // C11's operations are built in: no `.def` file
    let defs = Defs::parse("none.def", "").unwrap();
    let states = c_support::states(&root);
    let judge = Judge {
        root: &root,
        model: &model,
        variants: &BTreeSet::new(),
        defs: &defs,
        states: &states,
    };
    let csv = std::fs::read_to_string(root.join("expected.csv")).unwrap();
    let (mut agree, mut disagree, mut unchecked) = (0, Vec::new(), Vec::new());
    let (mut never, mut undef) = (0, 0);
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (file, obs, flags, status) = (f[0], f[2], f[5], f[8]);
        if status != "ok" {
            unchecked.push(format!("{file}: herd7's status {status}"));
            continue;
        }
        match judge.check(&f) {
            Ok(()) => {
                agree += 1;
                never += usize::from(obs == "Never");
                undef += usize::from(!flags.is_empty());
            }
            Err(d) => disagree.push(format!("{file}: {d}")),
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
