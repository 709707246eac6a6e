//! What the RC11 tests share (`rc11_model.rs`, the classic tests; `rc11_random.rs`, the
//! differential test): herd's `rc11.cat` from `../shared`, and small C11 executions built as
//! herd's C front end builds them, judged by a model.
#![allow(dead_code)]

use litmus_engine::axiomatic::C11_ORDER_SETS;
use litmus_engine::cat::rel::{Rel, Set};
pub use litmus_engine::cat::UNDEF_FLAG;
use litmus_engine::cat::{Env, Model, Value};
use std::path::PathBuf;

pub fn shared(sub: &str) -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    [
        root.join(format!("../shared/{sub}")),
        root.join(format!("../../shared/{sub}")),
    ]
    .into_iter()
    .find(|d| d.exists())
}

/// herd's `rc11.cat`, run as the conformance data was made (`herd7 -model rc11.cat`: no bell
/// file; herd's C front end defines the sets of memory orders itself).
pub fn herds_rc11() -> Option<Model> {
    let Some(dir) = shared("cat-corpus/herd-libdir") else {
        println!(
            "SKIPPED: ../shared/cat-corpus/herd-libdir not found; herd's rc11.cat was not run"
        );
        return None;
    };
    let src = std::fs::read_to_string(dir.join("rc11.cat")).unwrap();
    let resolve = move |f: &str| std::fs::read_to_string(dir.join(f)).ok();
    Some(Model::parse(&src, &resolve).unwrap_or_else(|e| panic!("herd's rc11.cat: {e}")))
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    R,
    W,
    /// A read-modify-write as herd's C front end makes it: one event, in both R and W.
    U,
    F,
}

/// One event; `mode` is the memory order's set (`None`: a non-atomic access).
#[derive(Clone, Debug)]
pub struct Ev {
    /// `None`: an initial write.
    pub thread: Option<usize>,
    pub kind: Kind,
    pub loc: usize,
    pub value: i64,
    pub mode: Option<&'static str>,
    /// One half of a read-modify-write made of a read and a write (herd's atomic accesses).
    pub at: bool,
}

pub const NA: Option<&str> = None;
pub const RLX: Option<&str> = Some("RLX");
pub const CON: Option<&str> = Some("CON");
pub const ACQ: Option<&str> = Some("ACQ");
pub const REL: Option<&str> = Some("REL");
pub const ACQ_REL: Option<&str> = Some("ACQ_REL");
pub const SC: Option<&str> = Some("SC");

pub fn ev(thread: usize, kind: Kind, loc: usize, value: i64, mode: Option<&'static str>) -> Ev {
    Ev {
        thread: Some(thread),
        kind,
        loc,
        value,
        mode,
        at: false,
    }
}
pub fn init(loc: usize) -> Ev {
    Ev {
        thread: None,
        ..ev(0, Kind::W, loc, 0, NA)
    }
}

pub fn is_read(e: &Ev) -> bool {
    matches!(e.kind, Kind::R | Kind::U)
}
pub fn is_write(e: &Ev) -> bool {
    matches!(e.kind, Kind::W | Kind::U)
}

pub fn rel(n: usize, pairs: &[(usize, usize)]) -> Value {
    let mut r = Rel::empty(n);
    for &(a, b) in pairs {
        r.add(a, b);
    }
    Value::Rel(r)
}

/// The sets and relations herd's C front end gives a candidate (`CAction.arch_sets`): `R W M
/// F IW FW`, `RMW`/`X` (read-modify-writes and atomic halves), `A`/`NA` (accesses with a
/// memory order / everything else), one set per memory order, the lock sets (empty), and `po
/// loc int ext id rf co rmw addr data ctrl`. Events of a thread are in program order.
pub fn env_of(
    evs: &[Ev],
    rf: &[(usize, usize)],
    co: &[(usize, usize)],
    rmw: &[(usize, usize)],
) -> Env {
    let n = evs.len();
    let mut env = Env::new(n);
    let set = |p: &dyn Fn(&Ev) -> bool| -> Set {
        evs.iter()
            .enumerate()
            .filter(|(_, e)| p(e))
            .fold(0, |s, (i, _)| s | 1 << i)
    };
    let mem = |e: &Ev| e.kind != Kind::F;
    let atomic = |e: &Ev| mem(e) && e.mode.is_some();
    let fw = (0..n)
        .filter(|&i| is_write(&evs[i]) && !co.iter().any(|&(a, _)| a == i))
        .fold(0, |s: Set, i| s | 1 << i);
    let mut sets: Vec<(String, Set)> = vec![
        ("R".into(), set(&is_read)),
        ("W".into(), set(&is_write)),
        ("M".into(), set(&mem)),
        ("F".into(), set(&|e| e.kind == Kind::F)),
        ("IW".into(), set(&|e| e.thread.is_none())),
        ("FW".into(), fw),
        ("RMW".into(), set(&|e| e.kind == Kind::U || e.at)),
        ("X".into(), set(&|e| e.kind == Kind::U || e.at)),
        ("A".into(), set(&atomic)),
        ("NA".into(), set(&|e| !atomic(e))),
    ];
    for name in C11_ORDER_SETS {
        sets.push((name.into(), set(&|e| e.mode == Some(name))));
    }
    for name in ["LK", "LKR", "LKW", "LS", "LF", "UL", "RL", "RU", "annot"] {
        sets.push((name.into(), 0));
    }
    for (name, s) in sets {
        env.vars.insert(name, Value::Set(s));
    }
    let (mut po, mut loc, mut int, mut ext, mut id) = (vec![], vec![], vec![], vec![], vec![]);
    for a in 0..n {
        id.push((a, a));
        for b in 0..n {
            let (ea, eb) = (&evs[a], &evs[b]);
            if ea.thread.is_some() && ea.thread == eb.thread {
                int.push((a, b));
                if a < b {
                    po.push((a, b));
                }
            } else if a != b {
                ext.push((a, b));
            }
            if mem(ea) && mem(eb) && ea.loc == eb.loc {
                loc.push((a, b));
            }
        }
    }
    for (name, pairs) in [
        ("po", &po[..]),
        ("loc", &loc),
        ("int", &int),
        ("ext", &ext),
        ("id", &id),
        ("rf", rf),
        ("co", co),
        ("rmw", rmw),
        ("addr", &[]),
        ("data", &[]),
        ("ctrl", &[]),
    ] {
        env.vars.insert(name.into(), rel(n, pairs));
    }
    env.values = evs.iter().map(|e| Some(e.value)).collect();
    env
}

/// A candidate execution: events, rf, co (transitive), rmw.
#[derive(Clone, Debug)]
pub struct Exec {
    pub evs: Vec<Ev>,
    pub rf: Vec<(usize, usize)>,
    pub co: Vec<(usize, usize)>,
    pub rmw: Vec<(usize, usize)>,
}

/// A model's answer: `Ok(flags)` when it allows the execution, `Err(check)` when not.
pub fn judge(m: &Model, x: &Exec) -> Result<Vec<String>, String> {
    let mut env = env_of(&x.evs, &x.rf, &x.co, &x.rmw);
    let out = m.run(&mut env).unwrap_or_else(|e| panic!("{e}"));
    match out.failed {
        None => Ok(out.flags),
        Some(f) => Err(f.name),
    }
}

/// Builds an execution from threads of events; `co` lists each location's writes in
/// coherence order after its initial write (which is event `loc`, the first `nlocs` events).
pub fn exec(nlocs: usize, threads: &[&[Ev]], rf: &[(usize, usize)], co: &[&[usize]]) -> Exec {
    let mut evs: Vec<Ev> = (0..nlocs).map(init).collect();
    for t in threads {
        evs.extend(t.iter().cloned());
    }
    let mut pairs = Vec::new();
    for (l, order) in co.iter().enumerate() {
        let chain: Vec<usize> = std::iter::once(l).chain(order.iter().copied()).collect();
        for i in 0..chain.len() {
            for j in i + 1..chain.len() {
                pairs.push((chain[i], chain[j]));
            }
        }
    }
    Exec {
        evs,
        rf: rf.to_vec(),
        co: pairs,
        rmw: vec![],
    }
}

pub use Kind::{F, R, U, W};
pub const X: usize = 0;
pub const Y: usize = 1;
