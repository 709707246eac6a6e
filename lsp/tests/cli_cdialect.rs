//! `litmus check` on herd's C tests (`docs/reference.md#c`): checked under the kernel's model
//! read from the user's files (`--conf`, `--cat`/`--bell`/`--macros`, or found in a kernel
//! tree above the test), herd's block, and the answer against the test's `Result:` header as
//! the kernel's `judgelitmus.sh` judges it. The model files come from the shared data
//! (`../shared/conformance/linux/model/`); the tests that need them say SKIPPED without it.

mod cli_support;
use cli_support::*;
use std::path::PathBuf;

const MP: &str = "C MP\n(* Result: Never DATARACE *)\n{ x = 0; }\n\
                  P0(int *x, int *y)\n{\n\tWRITE_ONCE(*x, 1);\n\tsmp_store_release(y, 1);\n}\n\n\
                  P1(int *x, int *y)\n{\n\tint r0 = smp_load_acquire(y);\n\tr1 = READ_ONCE(*x);\n}\n\n\
                  exists (1:r0=1 /\\ 1:r1=0)\n";

/// MP with plain accesses to `x` and no ordering on the reader's side: a data race.
const MP_RACE: &str = "C MP-race\n(* Result: Sometimes DATARACE *)\n{}\n\
                  P0(int *x, int *y)\n{\n\t*x = 1;\n\tsmp_store_release(y, 1);\n}\n\n\
                  P1(int *x, int *y)\n{\n\tint r0 = READ_ONCE(*y);\n\tint r1 = *x;\n}\n\n\
                  exists (1:r0=1 /\\ 1:r1=0)\n";

fn model_dir() -> Option<PathBuf> {
    let d = root().join("../shared/conformance/linux/model");
    if d.join("linux-kernel.cfg").is_file() {
        Some(d)
    } else {
        println!("SKIPPED: ../shared/conformance/linux/model not found");
        None
    }
}

#[test]
fn with_no_model_the_error_says_where_to_get_one() {
    let f = scratch("cdialect", "mp.litmus", MP.as_bytes());
    let r = run(&["check", &f]);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    for want in [
        "no memory model for the C test",
        "tools/memory-model/",
        "--conf",
        "herd/libdir/",
    ] {
        assert!(r.stderr.contains(want), "{want}: {}", r.stderr);
    }
}

#[test]
fn a_c_syntax_error_has_its_position() {
    let f = scratch(
        "cdialect",
        "bad.litmus",
        b"C bad\n{}\nP0(int *x) { r0 = ; }\n",
    );
    let r = run(&["check", &f]);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("bad.litmus:3:"), "{}", r.stderr);
}

#[test]
fn conf_answers_as_herd_and_compares_with_the_header() {
    let Some(dir) = model_dir() else { return };
    let cfg = dir.join("linux-kernel.cfg").display().to_string();
    // MP with release/acquire: never, and no data race, so the header's DATARACE disagrees
    let f = scratch("cdialect", "mp-conf.litmus", MP.as_bytes());
    let r = run(&["check", "--conf", &cfg, &f]);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("Test MP Allowed\nStates 3\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("\nNo\nWitnesses\nPositive: 0 Negative: 3\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("Observation MP Never 0 3"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("DISAGREES with its header `Result: Never DATARACE`: Never 0 3"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("1 of 1 C test disagrees with its `Result:` header"),
        "{}",
        r.stdout
    );
    // the racy one: its flag is raised, as its header says
    let g = scratch("cdialect", "mp-race.litmus", MP_RACE.as_bytes());
    let r = run(&["check", "--conf", &cfg, &g]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("\nFlag data-race\n"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("agrees with its header `Result: Sometimes DATARACE`: Sometimes 1 3 with Flag data-race"),
        "{}",
        r.stdout
    );
}

#[test]
fn cat_bell_and_macros_name_the_model() {
    let Some(dir) = model_dir() else { return };
    let p = |f: &str| dir.join(f).display().to_string();
    let g = scratch("cdialect", "mp-race-cat.litmus", MP_RACE.as_bytes());
    let (cat, bell, def) = (
        p("linux-kernel.cat"),
        p("linux-kernel.bell"),
        p("linux-kernel.def"),
    );
    let args = [
        "check",
        "--cat",
        &cat,
        "--bell",
        &bell,
        "--macros",
        &def,
        "--variant",
        "lkmmv2",
        &g,
    ];
    let r = run(&args);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("Observation MP-race Sometimes 1 3"),
        "{}",
        r.stdout
    );
}

/// A stand-in kernel tree: the shared model files in `TMP/tools/memory-model/`, and tests
/// under its `litmus-tests/`, checked with no option.
#[test]
fn a_test_in_a_kernel_tree_finds_the_model_above_it() {
    let Some(dir) = model_dir() else { return };
    let tree = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cdialect-kernel-tree");
    let mm = tree.join("tools/memory-model");
    std::fs::create_dir_all(mm.join("litmus-tests")).unwrap();
    for f in [
        "linux-kernel.cfg",
        "linux-kernel.bell",
        "linux-kernel.cat",
        "linux-kernel.def",
        "lock.cat",
    ] {
        std::fs::copy(dir.join(f), mm.join(f)).unwrap();
    }
    let catalogue = root().join("../shared/conformance/linux/tests/catalogue");
    let name = "MP+pooncerelease+poacquireonce.litmus";
    let test = mm.join("litmus-tests").join(name);
    std::fs::copy(catalogue.join(name), &test).unwrap();
    let r = run(&["check", &test.display().to_string()]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("tools/memory-model/linux-kernel.cfg"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("Observation MP+pooncerelease+poacquireonce Never 0 3"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("agrees with its header `Result: Never`"),
        "{}",
        r.stdout
    );
}

#[test]
fn speedcheck_examines_the_relevant_executions_and_says_so() {
    let Some(dir) = model_dir() else { return };
    let cfg = dir.join("linux-kernel.cfg").display().to_string();
    let g = scratch("cdialect", "mp-race-speed.litmus", MP_RACE.as_bytes());
    // herd7 -speedcheck true: the one execution that satisfies the condition
    let r = run(&["check", "--conf", &cfg, "--speedcheck", "true", &g]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    for want in [
        "\nOk\nWitnesses\nPositive: 1 Negative: 0\nFlag data-race\n",
        "\nSpeedcheck: only the executions relevant to the condition were examined",
        "agrees with its header `Result: Sometimes DATARACE`: Always 1 0 with Flag data-race \
         (relevant executions only)",
    ] {
        assert!(r.stdout.contains(want), "{want}: {}", r.stdout);
    }
    // `false` and the default (a small test) examine every execution, and say nothing
    for opts in [&["--speedcheck", "false"][..], &[]] {
        let mut args = vec!["check", "--conf", &cfg];
        args.extend_from_slice(opts);
        args.push(&g);
        let r = run(&args);
        assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
        assert!(r.stdout.contains("Positive: 1 Negative: 3"), "{}", r.stdout);
        assert!(!r.stdout.contains("Speedcheck"), "{}", r.stdout);
    }
    // the header's `Never` is judged from the relevant executions alone too, and their
    // flags cannot deny a DATARACE the irrelevant ones may raise
    let f = scratch("cdialect", "mp-speed.litmus", MP.as_bytes());
    let r = run(&["check", "--conf", &cfg, "--speedcheck", "true", &f]);
    assert!(
        r.stdout.contains(
            "agrees with its header `Result: Never DATARACE`: Never 0 0 (relevant executions only)"
        ),
        "{}",
        r.stdout
    );
}

/// A load-buffering chain of `n` threads: each reads its location and writes the next.
fn chain(n: usize) -> String {
    let mut s = format!("C LB-chain-{n}\n(* Result: Sometimes *)\n{{}}\n");
    for t in 0..n {
        let (a, b) = (t, (t + 1) % n);
        s += &format!(
            "P{t}(int *x{a}, int *x{b})\n{{\n  int r0;\n  r0 = READ_ONCE(*x{a});\n  \
             WRITE_ONCE(*x{b}, 1);\n}}\n"
        );
    }
    let cond: Vec<String> = (0..n).map(|t| format!("{t}:r0=1")).collect();
    s + &format!("exists ({})\n", cond.join(" /\\ "))
}

#[test]
fn a_test_too_large_to_count_is_answered_from_its_relevant_executions_in_json_too() {
    let Some(dir) = model_dir() else { return };
    let cfg = dir.join("linux-kernel.cfg").display().to_string();
    let f = scratch("cdialect", "lb-chain-16.litmus", chain(16).as_bytes());
    let r = run(&["check", "--conf", &cfg, "--json", &f]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let doc = r.json();
    let c = &doc["files"][0]["results"]["c"];
    assert_eq!(c["judgement"]["speedcheck"], true, "{c}");
    assert_eq!(c["judgement"]["agrees"], true, "{c}");
    assert_eq!(c["condition"]["holds"], true, "{c}");
}

/// `n` threads taking a lock emulated with `xchg_acquire` (Paul McKenney's
/// `C-SB+l-o-o-u+...-XE` shape): few combinations of paths, many reads-from choices each.
fn sb_xchg_lock(n: usize) -> String {
    let mut s = format!("C SB-xchg-lock-{n}\n(* Result: Never *)\n{{}}\n");
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

#[test]
fn a_test_checked_on_several_threads_prints_what_one_thread_prints() {
    let Some(dir) = model_dir() else { return };
    let cfg = dir.join("linux-kernel.cfg").display().to_string();
    let f = scratch(
        "cdialect",
        "sb-xchg-lock-3.litmus",
        sb_xchg_lock(3).as_bytes(),
    );
    // every file a C test: checked one after another, each on `-j` threads
    let one = run(&["check", "--conf", &cfg, "-j", "1", &f]);
    assert_eq!(one.status, 0, "{}{}", one.stdout, one.stderr);
    assert!(one.stdout.contains("Observation SB-xchg-lock-3 Never 0 "));
    for j in ["2", "3"] {
        let many = run(&["check", "--conf", &cfg, "-j", j, &f]);
        assert_eq!(
            (one.status, &one.stdout),
            (many.status, &many.stdout),
            "-j {j}"
        );
    }
    // `--json`: one task of the run, which borrows the worker slots the run leaves free
    let json = |j: &str| {
        let r = run(&["check", "--conf", &cfg, "--json", "-j", j, &f]);
        assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
        let mut c = r.json()["files"][0]["results"]["c"].take();
        c["stats"].as_object_mut().map(|o| o.remove("time_ms"));
        c
    };
    let one = json("1");
    assert_eq!(one["condition"]["holds"], false, "{one}");
    assert_eq!(one, json("3"));
}
