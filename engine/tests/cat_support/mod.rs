//! What the cat tests share (`cat_language.rs`, `cat_kernel_model.rs`): the shared data's
//! folders, a resolver for `include`, and small hand-built executions as a front end hands
//! them to a model.
#![allow(dead_code)]

use litmus_engine::cat::rel::{Rel, Set};
use litmus_engine::cat::{Env, Model, Outcome, Value};
use std::path::{Path, PathBuf};

pub fn shared(sub: &str) -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    [
        root.join(format!("../shared/{sub}")),
        root.join(format!("../../shared/{sub}")),
    ]
    .into_iter()
    .find(|d| d.exists())
}

pub fn cat_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            cat_files(&p, out);
        } else if matches!(p.extension().and_then(|e| e.to_str()), Some("cat" | "bell")) {
            out.push(p);
        }
    }
}

/// Finds an included file in the including file's folder, then in the library's root folder
/// (herd's include path).
pub fn dir_resolver(dir: PathBuf, root: PathBuf) -> impl Fn(&str) -> Option<String> {
    move |f: &str| {
        std::fs::read_to_string(dir.join(f))
            .or_else(|_| std::fs::read_to_string(root.join(f)))
            .ok()
    }
}

// ---------------------------------------------------------------------------------------
// Small hand-built executions
// ---------------------------------------------------------------------------------------

/// One event of a hand-built execution.
#[derive(Clone)]
pub struct Ev {
    /// `None`: an initial write.
    pub thread: Option<usize>,
    /// `'R'`, `'W'`, `'F'` or `'L'` (a lock event).
    pub kind: char,
    pub loc: &'static str,
    pub value: i64,
    pub tags: Vec<&'static str>,
}

pub fn w(t: usize, loc: &'static str, value: i64, tags: &[&'static str]) -> Ev {
    Ev {
        thread: Some(t),
        kind: 'W',
        loc,
        value,
        tags: tags.to_vec(),
    }
}
pub fn r(t: usize, loc: &'static str, value: i64, tags: &[&'static str]) -> Ev {
    Ev {
        kind: 'R',
        ..w(t, loc, value, tags)
    }
}
pub fn f(t: usize, tags: &[&'static str]) -> Ev {
    Ev {
        kind: 'F',
        ..w(t, "", 0, tags)
    }
}
/// A lock event (`LKR`, `LKW`, `UL`, ...): a memory event that is neither in `R` nor in `W`
/// (`lock.cat` puts them there itself).
pub fn lk(t: usize, loc: &'static str, tag: &'static str) -> Ev {
    Ev {
        kind: 'L',
        tags: vec![tag],
        ..w(t, loc, 0, &[])
    }
}
pub fn init(loc: &'static str) -> Ev {
    Ev {
        thread: None,
        ..w(0, loc, 0, &[])
    }
}

pub fn rel(n: usize, pairs: &[(usize, usize)]) -> Value {
    let mut r = Rel::empty(n);
    for &(a, b) in pairs {
        r.add(a, b);
    }
    Value::Rel(r)
}

/// The base sets and relations of an execution, as a front end hands them to the model:
/// `R W M F IW FW`, a set per tag (named as herd names it: `'wmb` -> `Wmb`), `po loc int ext
/// id rf co` and `extra` (`addr`, `data`, `ctrl`, `rmw`: empty unless given). Events of a
/// thread are in program order.
pub fn env_of(
    evs: &[Ev],
    rf: &[(usize, usize)],
    co: &[(usize, usize)],
    extra: &[(&str, &[(usize, usize)])],
) -> Env {
    let n = evs.len();
    let mut env = Env::new(n);
    let set = |p: &dyn Fn(&Ev) -> bool| -> Set {
        evs.iter()
            .enumerate()
            .filter(|(_, e)| p(e))
            .fold(0, |s, (i, _)| s | 1 << i)
    };
    let wset = set(&|e| e.kind == 'W');
    let mut sets: Vec<(String, Set)> = vec![
        ("R".into(), set(&|e| e.kind == 'R')),
        ("W".into(), wset),
        ("M".into(), set(&|e| e.kind != 'F')),
        ("F".into(), set(&|e| e.kind == 'F')),
        ("IW".into(), set(&|e| e.thread.is_none())),
    ];
    // final writes: the writes (not initial) no write follows in co
    let fw = (0..n)
        .filter(|&i| wset >> i & 1 == 1 && evs[i].thread.is_some())
        .filter(|&i| !co.iter().any(|&(a, _)| a == i))
        .fold(0, |s, i| s | 1 << i);
    sets.push(("FW".into(), fw));
    let mut tags: Vec<&str> = evs.iter().flat_map(|e| e.tags.iter().copied()).collect();
    tags.sort();
    tags.dedup();
    for t in tags {
        sets.push((
            litmus_engine::cat::tag_set_name(t),
            set(&|e| e.tags.contains(&t)),
        ));
    }
    // herd's C front end always has these sets (lock events)
    for name in ["LKR", "LKW", "UL", "LF", "RL", "RU"] {
        if !sets.iter().any(|(s, _)| s == name) {
            sets.push((name.into(), 0));
        }
    }
    for (name, s) in sets {
        env.vars.insert(name, Value::Set(s));
    }
    let (mut po, mut loc, mut int, mut ext, mut id) = (vec![], vec![], vec![], vec![], vec![]);
    for a in 0..n {
        id.push((a, a));
        for b in 0..n {
            let (ea, eb) = (&evs[a], &evs[b]);
            let same_thread = ea.thread.is_some() && ea.thread == eb.thread;
            if same_thread {
                int.push((a, b));
                if a < b {
                    po.push((a, b));
                }
            } else if a != b {
                ext.push((a, b));
            }
            if ea.kind != 'F' && eb.kind != 'F' && ea.loc == eb.loc {
                loc.push((a, b));
            }
        }
    }
    for (name, pairs) in [
        ("po", &po),
        ("loc", &loc),
        ("int", &int),
        ("ext", &ext),
        ("id", &id),
    ] {
        env.vars.insert(name.into(), rel(n, pairs));
    }
    env.vars.insert("rf".into(), rel(n, rf));
    env.vars.insert("co".into(), rel(n, co));
    for name in ["addr", "data", "ctrl", "rmw"] {
        let pairs = extra
            .iter()
            .find(|(k, _)| *k == name)
            .map_or(&[][..], |(_, p)| p);
        env.vars.insert(name.into(), rel(n, pairs));
    }
    env.values = evs.iter().map(|e| Some(e.value)).collect();
    env
}

pub fn no_files(_: &str) -> Option<String> {
    None
}

/// Runs a model on an execution; panics on a model error.
pub fn run(src: &str, env: &mut Env) -> Outcome {
    let m = Model::parse(src, &no_files).unwrap_or_else(|e| panic!("{e}"));
    m.run(env).unwrap_or_else(|e| panic!("{e}"))
}

/// Two threads: 0: W x (P0), 1: R x (P1), 2: W y (P1); rf 0 -> 1.
pub fn small() -> Env {
    let evs = [
        w(0, "x", 1, &["a"]),
        r(1, "x", 1, &["b"]),
        w(1, "y", 1, &[]),
    ];
    env_of(&evs, &[(0, 1)], &[], &[])
}

pub fn pairs_of(v: &Value) -> Vec<(usize, usize)> {
    match v {
        Value::Rel(r) => r.pairs(),
        Value::Empty => vec![],
        v => panic!("not a relation: {v:?}"),
    }
}

pub fn set_of(v: &Value) -> Set {
    match v {
        Value::Set(s) => *s,
        Value::Empty => 0,
        v => panic!("not a set: {v:?}"),
    }
}
