//! The Linux kernel's memory model (read from `../shared`, never bundled; skipped with a
//! message when absent) judging hand-built candidate executions of the classic tests, and
//! herd's `rc11.cat` with its bell file.

mod cat_support;

use cat_support::*;
use litmus_engine::cat::{Model, Value};

// ---------------------------------------------------------------------------------------
// The Linux-kernel memory model (read from ../shared, never bundled)
// ---------------------------------------------------------------------------------------

const LKMM: &str = "conformance/linux/model";

fn lkmm() -> Option<Model> {
    let Some(dir) = shared(LKMM) else {
        println!("SKIPPED: ../shared/{LKMM} not found; the kernel model was not evaluated");
        return None;
    };
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let resolve = dir_resolver(dir.clone(), dir.clone());
    let m = Model::parse_with_bell(
        "linux-kernel.bell",
        &read("linux-kernel.bell"),
        &read("linux-kernel.cat"),
        &resolve,
    );
    Some(m.unwrap_or_else(|e| panic!("the kernel model: {e}")))
}

/// The kernel model's verdict on one candidate (`lkmmv2`, as `linux-kernel.cfg` asks):
/// `Ok(flags)` when allowed, `Err(check)` when forbidden.
fn judge(
    m: &Model,
    evs: &[Ev],
    rf: &[(usize, usize)],
    co: &[(usize, usize)],
    extra: &[(&str, &[(usize, usize)])],
) -> Result<Vec<String>, String> {
    let mut env = env_of(evs, rf, co, extra);
    env.variants.insert("lkmmv2".into());
    let out = m.run(&mut env).unwrap_or_else(|e| panic!("{e}"));
    match out.failed {
        None => Ok(out.flag_lines()),
        Some(f) => Err(f.name),
    }
}

const ONCE: &[&str] = &["ONCE"];

/// A candidate: its events, rf and co.
type Candidate = (Vec<Ev>, Vec<(usize, usize)>, Vec<(usize, usize)>);

/// MP: P0 writes x then y, P1 reads y (1) then x (0), with `fence0`/`fence1` between.
fn mp(fence0: &[&'static str], fence1: &[&'static str]) -> Candidate {
    let evs = vec![
        init("x"),
        init("y"),
        w(0, "x", 1, ONCE),
        f(0, fence0),
        w(0, "y", 1, ONCE),
        r(1, "y", 1, ONCE),
        f(1, fence1),
        r(1, "x", 0, ONCE),
    ];
    (evs, vec![(4, 5), (0, 7)], vec![(0, 2), (1, 4)])
}

/// SB: each thread writes its variable, then reads the other's initial value.
fn sb(fence: &[&'static str]) -> Candidate {
    let evs = vec![
        init("x"),
        init("y"),
        w(0, "x", 1, ONCE),
        f(0, fence),
        r(0, "y", 0, ONCE),
        w(1, "y", 1, ONCE),
        f(1, fence),
        r(1, "x", 0, ONCE),
    ];
    (evs, vec![(1, 4), (0, 7)], vec![(0, 2), (1, 5)])
}

/// LB: each thread reads the other's write, then writes.
fn lb() -> Candidate {
    let evs = vec![
        init("x"),
        init("y"),
        r(0, "x", 1, ONCE),
        w(0, "y", 1, ONCE),
        r(1, "y", 1, ONCE),
        w(1, "x", 1, ONCE),
    ];
    (evs, vec![(5, 2), (3, 4)], vec![(0, 5), (1, 3)])
}

#[test]
fn kernel_model_on_the_classic_tests() {
    let Some(m) = lkmm() else { return };
    // MP+wmb+rmb: forbidden (herd: Never), by happens-before.
    let (evs, rf, co) = mp(&["wmb"], &["rmb"]);
    assert_eq!(judge(&m, &evs, &rf, &co, &[]), Err("happens-before".into()));
    // ... and its other outcome (r1 reads x = 1) is allowed.
    let mut evs2 = evs.clone();
    evs2[7].value = 1;
    assert_eq!(judge(&m, &evs2, &[(4, 5), (2, 7)], &co, &[]), Ok(vec![]));
    // MP with READ_ONCE/WRITE_ONCE only (the fences are `barrier()`): allowed (Sometimes).
    let (evs, rf, co) = mp(&["barrier"], &["barrier"]);
    assert_eq!(judge(&m, &evs, &rf, &co, &[]), Ok(vec![]));
    // MP with smp_wmb only: still allowed.
    let (evs, rf, co) = mp(&["wmb"], &["barrier"]);
    assert_eq!(judge(&m, &evs, &rf, &co, &[]), Ok(vec![]));
    // SB+mbs: forbidden, by propagation; SB with no fences: allowed.
    let (evs, rf, co) = sb(&["MB"]);
    assert_eq!(judge(&m, &evs, &rf, &co, &[]), Err("propagation".into()));
    let (evs, rf, co) = sb(&["barrier"]);
    assert_eq!(judge(&m, &evs, &rf, &co, &[]), Ok(vec![]));
    // SB with smp_wmb (orders only writes): allowed.
    let (evs, rf, co) = sb(&["wmb"]);
    assert_eq!(judge(&m, &evs, &rf, &co, &[]), Ok(vec![]));
    // LB with READ_ONCE/WRITE_ONCE only: allowed; with a data dependency on each side
    // (LB+datas, as the kernel's LB+poonceonces and LB+ctrlonceonce tests say): forbidden.
    let (evs, rf, co) = lb();
    assert_eq!(judge(&m, &evs, &rf, &co, &[]), Ok(vec![]));
    let deps: &[(usize, usize)] = &[(2, 3), (4, 5)];
    assert_eq!(
        judge(&m, &evs, &rf, &co, &[("data", deps)]),
        Err("happens-before".into())
    );
    assert_eq!(
        judge(&m, &evs, &rf, &co, &[("ctrl", deps)]),
        Err("happens-before".into())
    );
    // a dependency on one side only: allowed
    assert_eq!(
        judge(&m, &evs, &rf, &co, &[("data", &[(2, 3)])]),
        Ok(vec![])
    );
}

#[test]
fn kernel_model_flags_data_races_on_plain_accesses() {
    let Some(m) = lkmm() else { return };
    // P0: *x = 1;  P1: r0 = *x;  (plain accesses, no marking)
    for (rf, value) in [((1, 2), 1), ((0, 2), 0)] {
        let evs = [init("x"), w(0, "x", 1, &[]), r(1, "x", value, &[])];
        let got = judge(&m, &evs, &[rf], &[(0, 1)], &[]);
        assert_eq!(got, Ok(vec!["Flag data-race".to_string()]), "rf {rf:?}");
        // the same with WRITE_ONCE/READ_ONCE: no race
        let evs = [init("x"), w(0, "x", 1, ONCE), r(1, "x", value, ONCE)];
        assert_eq!(judge(&m, &evs, &[rf], &[(0, 1)], &[]), Ok(vec![]));
    }
    // Plain accesses ordered by a release/acquire pair do not race (MP with plain x).
    let evs = [
        init("x"),
        init("y"),
        w(0, "x", 1, &[]),
        w(0, "y", 1, &["RELEASE"]),
        r(1, "y", 1, &["ACQUIRE"]),
        r(1, "x", 1, &[]),
    ];
    let rf = [(3, 4), (2, 5)];
    assert_eq!(judge(&m, &evs, &rf, &[(0, 2), (1, 3)], &[]), Ok(vec![]));
    // ... but without the acquire they do.
    let mut evs = evs.to_vec();
    evs[4].tags = ONCE.to_vec();
    assert_eq!(
        judge(&m, &evs, &rf, &[(0, 2), (1, 3)], &[]),
        Ok(vec!["Flag data-race".to_string()])
    );
}

#[test]
fn kernel_model_needs_its_variant() {
    let Some(m) = lkmm() else { return };
    let (evs, rf, co) = mp(&["barrier"], &["barrier"]);
    let mut env = env_of(&evs, &rf, &co, &[]);
    let out = m.run(&mut env).unwrap();
    assert_eq!(
        out.flag_lines(),
        vec!["Flag this-model-requires-variant-higher-than-lkmmv1"]
    );
}

#[test]
fn kernel_model_rcu_and_locks() {
    let Some(m) = lkmm() else { return };
    // RCU-MP: P0 { rcu_read_lock(); r0 = READ_ONCE(x); r1 = READ_ONCE(y); rcu_read_unlock(); }
    //         P1 { WRITE_ONCE(y, 1); synchronize_rcu(); WRITE_ONCE(x, 1); }
    // r0 = 1 and r1 = 0 is forbidden (herd: Never), by the rcu check.
    let rcu = |sync: &'static str| {
        vec![
            init("x"),
            init("y"),
            f(0, &["rcu-lock"]),
            r(0, "x", 1, ONCE),
            r(0, "y", 0, ONCE),
            f(0, &["rcu-unlock"]),
            w(1, "y", 1, ONCE),
            f(1, &[sync]),
            w(1, "x", 1, ONCE),
        ]
    };
    let (rf, co) = ([(8, 3), (1, 4)], [(0, 8), (1, 6)]);
    assert_eq!(
        judge(&m, &rcu("sync-rcu"), &rf, &co, &[]),
        Err("rcu".into())
    );
    assert_eq!(judge(&m, &rcu("barrier"), &rf, &co, &[]), Ok(vec![]));

    // MP inside critical sections of one spin lock s:
    // P0 { spin_lock(s); WRITE_ONCE(x, 1); WRITE_ONCE(y, 1); spin_unlock(s); }
    // P1 { spin_lock(s); r0 = READ_ONCE(y); r1 = READ_ONCE(x); spin_unlock(s); }
    // lock.cat pairs the lock events, and the model chooses the order of the critical
    // sections (`with co from ...`): r0 = 1, r1 = 0 is forbidden under either order, and
    // r0 = 1, r1 = 1 is allowed.
    let locked = |r1: i64| {
        vec![
            init("s"),
            init("x"),
            init("y"),
            lk(0, "s", "LKR"),
            lk(0, "s", "LKW"),
            w(0, "x", 1, ONCE),
            w(0, "y", 1, ONCE),
            lk(0, "s", "UL"),
            lk(1, "s", "LKR"),
            lk(1, "s", "LKW"),
            r(1, "y", 1, ONCE),
            r(1, "x", r1, ONCE),
            lk(1, "s", "UL"),
        ]
    };
    let co = [(1, 5), (2, 6)];
    assert!(judge(&m, &locked(0), &[(6, 10), (1, 11)], &co, &[]).is_err());
    assert_eq!(
        judge(&m, &locked(1), &[(6, 10), (5, 11)], &co, &[]),
        Ok(vec![])
    );
    // each critical-section order is one run of the model
    let env = env_of(&locked(1), &[(6, 10), (5, 11)], &co, &[]);
    let mut env2 = env.clone();
    env2.variants.insert("lkmmv2".into());
    let runs = m.run_all(&env2).unwrap();
    assert_eq!(runs.len(), 2);
    let allowed: Vec<bool> = runs.iter().map(|(o, _)| o.failed.is_none()).collect();
    assert_eq!(allowed.iter().filter(|a| **a).count(), 1, "{allowed:?}");
    // in the allowed one, P0's critical section comes first: P1's lock read reads P0's unlock
    let (_, e) = runs.iter().find(|(o, _)| o.failed.is_none()).unwrap();
    assert!(
        pairs_of(&e.vars["rf"]).contains(&(7, 8)),
        "{:?}",
        pairs_of(&e.vars["rf"])
    );
}

#[test]
fn herds_rc11_model_with_its_bell_file() {
    let Some(dir) = shared("cat-corpus/herd-libdir") else {
        println!("SKIPPED: ../shared/cat-corpus/herd-libdir not found; rc11.cat was not run");
        return;
    };
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let resolve = dir_resolver(dir.clone(), dir.clone());
    // rc11.cat includes cos.cat: the project's, so `co` is the caller's, as the engine does.
    let m = Model::parse_with_bell("c11.bell", &read("c11.bell"), &read("rc11.cat"), &resolve)
        .unwrap_or_else(|e| panic!("{e}"));
    let judge = |evs: &[Ev], rf: &[(usize, usize)], co: &[(usize, usize)]| {
        let mut env = env_of(evs, rf, co, &[]);
        env.vars.insert("RMW".into(), Value::Set(0));
        let out = m.run(&mut env).unwrap_or_else(|e| panic!("{e}"));
        match out.failed {
            None => Ok(out.flag_lines()),
            Some(f) => Err(f.name),
        }
    };
    // SB with seq_cst accesses: forbidden by the SC axiom; with relaxed ones: allowed.
    let sb = |t: &'static str| {
        vec![
            init("x"),
            init("y"),
            w(0, "x", 1, &[t]),
            r(0, "y", 0, &[t]),
            w(1, "y", 1, &[t]),
            r(1, "x", 0, &[t]),
        ]
    };
    let (rf, co) = ([(1, 3), (0, 5)], [(0, 2), (1, 4)]);
    assert_eq!(judge(&sb("sc"), &rf, &co), Err("SC".into()));
    assert_eq!(judge(&sb("rlx"), &rf, &co), Ok(vec![]));
    // MP with a release write and an acquire read: the stale read of x is forbidden.
    let evs = [
        init("x"),
        init("y"),
        w(0, "x", 1, &["rlx"]),
        w(0, "y", 1, &["rel"]),
        r(1, "y", 1, &["acq"]),
        r(1, "x", 0, &["rlx"]),
    ];
    let co = [(0, 2), (1, 3)];
    assert_eq!(
        judge(&evs, &[(3, 4), (0, 5)], &co),
        Err("coherence1".into())
    );
    // Non-atomic accesses that race: undefined behaviour, reported as herd does
    // (`Flag *undef*`, whatever the `undefined_unless` check's name).
    let evs = [init("x"), w(0, "x", 1, &[]), r(1, "x", 1, &[])];
    assert_eq!(
        judge(&evs, &[(1, 2)], &[(0, 1)]),
        Ok(vec!["Flag *undef*".to_string()])
    );
}
