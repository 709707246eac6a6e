//! herd's C tests of the Linux kernel (`../shared/conformance/linux/`: herdtools7's
//! catalogue and a sample of Paul McKenney's collection) checked by the axiomatic engine
//! under the kernel's own model files (read from the shared data, never bundled), compared
//! with herd7 7.58: the verdict (`Never`/`Sometimes`/`Always`), the positive and negative
//! counts, the final states (`states.json`, where recorded) and every flag of
//! `expected.csv`. Prints the counts and fails on any disagreement.
//!
//! `LITMUS_C_ONLY=substring` checks only the files whose path contains it (for debugging).

mod c_support;

use c_support::Judge;

#[test]
fn linux_kernel_tests_agree_with_herd() {
    let Some(root) = c_support::root("linux") else {
        println!("SKIPPED: ../shared/conformance/linux not found; no C test was checked");
        return;
    };
    let k = c_support::kernel(&root);
    let states = c_support::states(&root);
    let judge = Judge {
        root: &root,
        model: &k.model,
        variants: &k.variants,
        defs: &k.defs,
        states: &states,
    };
    let only = std::env::var("LITMUS_C_ONLY").ok();
    let csv = std::fs::read_to_string(root.join("expected.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<&str>>())
        .filter(|f| only.as_ref().is_none_or(|o| f[0].contains(o.as_str())))
        .collect();
    // two tests at a time (CI has two cores), reported in the file's order
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<(usize, Result<(), String>)> = std::thread::scope(|sc| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                sc.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(f) = rows.get(i) else { return mine };
                        if f[8] == "ok" {
                            mine.push((i, judge.check(f)));
                        }
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    results.sort_by_key(|r| r.0);
    let (mut agree, mut disagree, mut unchecked) = (0, Vec::new(), Vec::new());
    for f in rows.iter().filter(|f| f[8] != "ok") {
        unchecked.push(format!("{}: herd7's status {}", f[0], f[8]));
    }
    for (i, r) in results {
        match r {
            Ok(()) => agree += 1,
            Err(d) => disagree.push(format!("{}: {d}", rows[i][0])),
        }
    }
    for d in &disagree {
        println!("DISAGREE {d}");
    }
    for u in &unchecked {
        println!("UNCHECKED {u}");
    }
    println!(
        "linux: {agree} agree, {} disagree, {} unchecked",
        disagree.len(),
        unchecked.len()
    );
    assert!(
        disagree.is_empty(),
        "{} tests disagree with herd7",
        disagree.len()
    );
}
