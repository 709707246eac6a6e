//! A C test's execution in the JSON document, and C11 tests under the built-in RC11 model
//! (issue 53): under the kernel's model (read from `../shared/conformance/linux/model/`,
//! SKIPPED without it) message passing with release and acquire is forbidden, its
//! `execution` the candidate reaching the condition's state with the check that forbids it
//! and its cycle; without them it is allowed, its `execution` a witness whose reads-from give
//! the condition's values. A C11 test (`memory_order_*`) with no model named or found is
//! checked under `rc11.cat (built in, for C11 tests)`, alone, in a mixed run and in JSON; a
//! kernel test with no model still gets the error saying where the model's files come from.

mod cli_support;
use cli_support::*;
use serde_json::Value;
use std::path::PathBuf;

fn linux() -> Option<PathBuf> {
    let d = root().join("../shared/conformance/linux");
    if d.join("model/linux-kernel.cfg").is_file() && d.join("tests/catalogue").is_dir() {
        Some(d)
    } else {
        println!("SKIPPED: ../shared/conformance/linux (tests and model) not found");
        None
    }
}

/// The event `id` of `x`.
fn event(x: &Value, id: &Value) -> Value {
    let i = id.as_u64().unwrap() as usize;
    let e = x["events"][i].clone();
    assert_eq!(e["id"], i, "{x}");
    e
}

/// The pair `(write, read)` of `x`'s rf into the read of `loc` by thread `t`: the write's
/// location and value, the read's value.
fn read_from(x: &Value, t: u64, loc: &str) -> (Value, Value) {
    let rf = x["rf"].as_array().unwrap();
    let pair = rf
        .iter()
        .find(|p| {
            let r = event(x, &p[1]);
            r["thread"] == t && r["loc"] == loc && r["kind"] == "R"
        })
        .unwrap_or_else(|| panic!("no rf into thread {t}'s read of {loc}: {x}"));
    let (w, r) = (event(x, &pair[0]), event(x, &pair[1]));
    assert_eq!(w["kind"], "W", "{x}");
    assert_eq!(w["loc"], loc, "{x}");
    assert_eq!(w["value"], r["value"], "{x}");
    (w, r)
}

#[test]
fn kernel_mp_json_has_the_forbidding_cycle_or_the_witness() {
    let Some(dir) = linux() else { return };
    let conf = dir.join("model/linux-kernel.cfg").display().to_string();
    let cat = dir.join("tests/catalogue");
    let forbidden = cat.join("MP+pooncerelease+poacquireonce.litmus");
    let allowed = cat.join("MP+poonceonces.litmus");
    let (f, a) = (
        forbidden.display().to_string(),
        allowed.display().to_string(),
    );
    let r = run(&["check", "--json", "--conf", &conf, &f, &a]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let doc = r.json();
    let files = doc["files"].as_array().unwrap();
    let result = |p: &str| files.iter().find(|x| x["path"] == p).unwrap()["results"]["c"].clone();

    // release/acquire: forbidden, by the model's acyclic check, with its cycle
    let c = result(&f);
    assert_eq!(c["condition"]["holds"], false, "{c}");
    let x = &c["execution"];
    assert_eq!(x["allowed"], false, "{c}");
    assert_eq!(x["failed"]["kind"], "acyclic", "{c}");
    assert_eq!(x["failed"]["check"], "happens-before", "{c}");
    let cycle = x["failed"]["events"].as_array().unwrap();
    assert!(cycle.len() >= 2, "{c}");
    // the cycle is made of the threads' events, the release write's read among them
    for id in cycle {
        assert!(event(x, id)["thread"].is_u64(), "{c}");
    }
    assert!(
        cycle.iter().any(|id| {
            let e = event(x, id);
            e["kind"] == "R" && e["tags"].as_array().unwrap().contains(&"ACQUIRE".into())
        }),
        "{c}"
    );
    // the candidate reaches the condition's state: r0 reads flag=1, r1 buf=0
    let (w, _) = read_from(x, 1, "flag");
    assert_eq!(
        (&w["thread"], &w["value"]),
        (&Value::from(0), &Value::from(1)),
        "{c}"
    );
    let (w, _) = read_from(x, 1, "buf");
    assert_eq!(
        (&w["thread"], &w["value"]),
        (&Value::Null, &Value::from(0)),
        "{c}"
    );

    // plain once accesses: allowed, a witness with the same reads-from
    let c = result(&a);
    assert_eq!(c["condition"]["holds"], true, "{c}");
    let x = &c["execution"];
    assert_eq!(x["allowed"], true, "{c}");
    assert!(x["failed"].is_null(), "{c}");
    assert_eq!(x["rf"].as_array().unwrap().len(), 2, "{c}");
    let (w, r) = read_from(x, 1, "flag");
    assert_eq!(
        (&w["thread"], &r["value"]),
        (&Value::from(0), &Value::from(1)),
        "{c}"
    );
    let (w, r) = read_from(x, 1, "buf");
    assert_eq!(
        (&w["thread"], &r["value"]),
        (&Value::Null, &Value::from(0)),
        "{c}"
    );
}

const MP_REL_ACQ: &str = "C MP+rel+acq\n\n{}\n\n\
P0(atomic_int *x, atomic_int *y)\n{\n\
\tatomic_store_explicit(x, 1, memory_order_relaxed);\n\
\tatomic_store_explicit(y, 1, memory_order_release);\n}\n\n\
P1(atomic_int *x, atomic_int *y)\n{\n\
\tint r0 = atomic_load_explicit(y, memory_order_acquire);\n\
\tint r1 = atomic_load_explicit(x, memory_order_relaxed);\n}\n\n\
exists (1:r0=1 /\\ 1:r1=0)\n";

const MP_KERNEL: &str = "C MP+once\n\n{}\n\n\
P0(int *x, int *y)\n{\n\tWRITE_ONCE(*x, 1);\n\tWRITE_ONCE(*y, 1);\n}\n\n\
P1(int *x, int *y)\n{\n\tint r0;\n\tint r1;\n\n\
\tr0 = READ_ONCE(*y);\n\tr1 = READ_ONCE(*x);\n}\n\n\
exists (1:r0=1 /\\ 1:r1=0)\n";

const RC11: &str = "rc11.cat (built in, for C11 tests)";

#[test]
fn c11_tests_are_checked_under_rc11_with_no_model() {
    let relacq = scratch("cli_cview", "MP+rel+acq.litmus", MP_REL_ACQ.as_bytes());
    let relaxed = MP_REL_ACQ
        .replace("MP+rel+acq", "MP+rlx+rlx")
        .replace("memory_order_release", "memory_order_relaxed")
        .replace("memory_order_acquire", "memory_order_relaxed");
    let rlx = scratch("cli_cview", "MP+rlx+rlx.litmus", relaxed.as_bytes());

    // alone: herd's block under RC11, `No` with release/acquire, `Ok` relaxed
    let r = run(&["check", &relacq, &rlx]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(&format!("{relacq}: model {RC11}\n")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(&format!("{rlx}: model {RC11}\n")),
        "{}",
        r.stdout
    );
    let (a, b) = r
        .stdout
        .split_at(r.stdout.find(&format!("# {rlx}")).unwrap());
    assert!(a.contains("\nNo\n"), "{a}");
    assert!(a.contains("Observation MP+rel+acq Never 0 3"), "{a}");
    assert!(b.contains("\nOk\n"), "{b}");
    assert!(b.contains("Observation MP+rlx+rlx Sometimes 1 3"), "{b}");

    // in a run with a native test: the same answers
    let mixed = run(&["check", &example("mp.litmus"), &relacq, &rlx]);
    assert!(
        mixed.stdout.contains(&format!("model {RC11}")),
        "{}{}",
        mixed.stdout,
        mixed.stderr
    );
    assert!(
        mixed.stdout.contains("Observation MP+rel+acq Never 0 3"),
        "{}",
        mixed.stdout
    );
    assert!(
        mixed
            .stdout
            .contains("Observation MP+rlx+rlx Sometimes 1 3"),
        "{}",
        mixed.stdout
    );

    // JSON: the model's name, the verdicts, the forbidden candidate and the witness
    let doc = run(&["check", "--json", &relacq, &rlx]).json();
    let files = doc["files"].as_array().unwrap();
    let c = |p: &str| files.iter().find(|x| x["path"] == p).unwrap()["results"]["c"].clone();
    let (f, a) = (c(&relacq), c(&rlx));
    assert_eq!((&f["model"], &a["model"]), (&RC11.into(), &RC11.into()));
    assert_eq!(f["condition"]["holds"], false, "{f}");
    assert_eq!(f["execution"]["allowed"], false, "{f}");
    assert!(f["execution"]["failed"]["check"].is_string(), "{f}");
    assert_eq!(a["condition"]["holds"], true, "{a}");
    assert_eq!(a["execution"]["allowed"], true, "{a}");
    let (w, _) = read_from(&a["execution"], 1, "y");
    assert_eq!(w["thread"], 0, "{a}");
}

#[test]
fn a_kernel_test_with_no_model_is_still_an_error() {
    let k = scratch("cli_cview", "MP+once.litmus", MP_KERNEL.as_bytes());
    let r = run(&["check", &k]);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("no memory model for the C test"),
        "{}",
        r.stderr
    );
    assert!(!r.stdout.contains(RC11), "{}", r.stdout);
}
