//! The cat language (issues 53 and 55): every cat and bell file of herd's library and of the
//! Linux-kernel memory model parses (`../shared`, skipped with a message when absent); each
//! construct evaluated on small hand-built executions; and the kernel's model, read from
//! `../shared`, judging hand-built candidate executions of the classic tests.

use litmus_engine::cat::rel::{Rel, Set};
use litmus_engine::cat::{parse_file, CatError, Env, Model, Outcome, Value};
use std::path::{Path, PathBuf};

fn shared(sub: &str) -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    [
        root.join(format!("../shared/{sub}")),
        root.join(format!("../../shared/{sub}")),
    ]
    .into_iter()
    .find(|d| d.exists())
}

fn cat_files(dir: &Path, out: &mut Vec<PathBuf>) {
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
fn dir_resolver(dir: PathBuf, root: PathBuf) -> impl Fn(&str) -> Option<String> {
    move |f: &str| {
        std::fs::read_to_string(dir.join(f))
            .or_else(|_| std::fs::read_to_string(root.join(f)))
            .ok()
    }
}

#[test]
fn every_shared_cat_and_bell_file_parses() {
    let mut total = 0;
    for sub in ["cat-corpus/herd-libdir", "conformance/linux/model"] {
        let Some(dir) = shared(sub) else {
            println!("SKIPPED: ../shared/{sub} not found; its cat and bell files were not parsed");
            continue;
        };
        let mut files = Vec::new();
        cat_files(&dir, &mut files);
        assert!(!files.is_empty(), "no cat files under {}", dir.display());
        let mut failures = Vec::new();
        for f in &files {
            let src = std::fs::read_to_string(f).unwrap();
            if let Err(e) = parse_file(&src) {
                failures.push(format!("{}: {e} (near {:?})", f.display(), near(&src, &e)));
                continue;
            }
            // And with its includes, from its own folder (the library first).
            let resolve = dir_resolver(f.parent().unwrap().to_path_buf(), dir.clone());
            if let Err(e) = Model::parse(&src, &resolve) {
                failures.push(format!("{} with includes: {e}", f.display()));
            }
        }
        println!(
            "{sub}: {} cat/bell files parsed",
            files.len() - failures.len()
        );
        assert!(
            failures.is_empty(),
            "{} files fail:\n{}",
            failures.len(),
            failures.join("\n")
        );
        total += files.len();
    }
    println!("parsed {total} files in all");
}

fn near(src: &str, e: &CatError) -> String {
    let s = e.offset.min(src.len());
    src[s..].chars().take(40).collect()
}

// ---------------------------------------------------------------------------------------
// Small hand-built executions
// ---------------------------------------------------------------------------------------

/// One event of a hand-built execution.
#[derive(Clone)]
struct Ev {
    /// `None`: an initial write.
    thread: Option<usize>,
    /// `'R'`, `'W'`, `'F'` or `'L'` (a lock event).
    kind: char,
    loc: &'static str,
    value: i64,
    tags: Vec<&'static str>,
}

fn w(t: usize, loc: &'static str, value: i64, tags: &[&'static str]) -> Ev {
    Ev {
        thread: Some(t),
        kind: 'W',
        loc,
        value,
        tags: tags.to_vec(),
    }
}
fn r(t: usize, loc: &'static str, value: i64, tags: &[&'static str]) -> Ev {
    Ev {
        kind: 'R',
        ..w(t, loc, value, tags)
    }
}
fn f(t: usize, tags: &[&'static str]) -> Ev {
    Ev {
        kind: 'F',
        ..w(t, "", 0, tags)
    }
}
/// A lock event (`LKR`, `LKW`, `UL`, ...): a memory event that is neither in `R` nor in `W`
/// (`lock.cat` puts them there itself).
fn lk(t: usize, loc: &'static str, tag: &'static str) -> Ev {
    Ev {
        kind: 'L',
        tags: vec![tag],
        ..w(t, loc, 0, &[])
    }
}
fn init(loc: &'static str) -> Ev {
    Ev {
        thread: None,
        ..w(0, loc, 0, &[])
    }
}

fn rel(n: usize, pairs: &[(usize, usize)]) -> Value {
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
fn env_of(
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

fn no_files(_: &str) -> Option<String> {
    None
}

/// Runs a model on an execution; panics on a model error.
fn run(src: &str, env: &mut Env) -> Outcome {
    let m = Model::parse(src, &no_files).unwrap_or_else(|e| panic!("{e}"));
    m.run(env).unwrap_or_else(|e| panic!("{e}"))
}

/// Two threads: 0: W x (P0), 1: R x (P1), 2: W y (P1); rf 0 -> 1.
fn small() -> Env {
    let evs = [
        w(0, "x", 1, &["a"]),
        r(1, "x", 1, &["b"]),
        w(1, "y", 1, &[]),
    ];
    env_of(&evs, &[(0, 1)], &[], &[])
}

fn pairs_of(v: &Value) -> Vec<(usize, usize)> {
    match v {
        Value::Rel(r) => r.pairs(),
        Value::Empty => vec![],
        v => panic!("not a relation: {v:?}"),
    }
}

fn set_of(v: &Value) -> Set {
    match v {
        Value::Set(s) => *s,
        Value::Empty => 0,
        v => panic!("not a set: {v:?}"),
    }
}

#[test]
fn functions_closures_and_application() {
    let mut env = small();
    run(
        "let a = po
         let f(x) = a | x             (* a closure: `a` is po where f is defined *)
         let a = rf
         let t1 = f(0)
         let g = fun x -> x ; po
         let t2 = g(rf)
         let add r = fun s -> r | s   (* curried, applied by juxtaposition *)
         let t3 = add po rf
         let pair(x, y) = x ; y
         let t4 = pair(rf, po)
         let (p, q) = (rf, po)
         let t5 = q",
        &mut env,
    );
    assert_eq!(pairs_of(&env.vars["t1"]), vec![(1, 2)]);
    assert_eq!(pairs_of(&env.vars["t2"]), vec![(0, 2)]);
    assert_eq!(pairs_of(&env.vars["t3"]), vec![(0, 1), (1, 2)]);
    assert_eq!(pairs_of(&env.vars["t4"]), vec![(0, 2)]);
    assert_eq!(pairs_of(&env.vars["t5"]), vec![(1, 2)]);
}

#[test]
fn recursion_fixpoints_and_library_helpers() {
    let mut env = small();
    run(
        "include \"cross.cat\"
         let rec count s = match s with || {} -> 0 || e ++ rest -> [e] | count rest end
         let c = count(M)
         let m = map (fun e -> {e}) M                   (* a set of singleton sets *)
         let k = map (fun p -> p ++ 0) (po | rf)       (* single-edge relations *)
         let both = cross({{po, rf}, {0, loc}})
         let lin = linearisations(M, po)
         let parts = classes-loc(M)
         let d = domain(rf) and rg = range(rf)
         let fr1 = fencerel(B)
         let u = udr(rf)
         let rec tc = rf | po | (tc ; tc)",
        {
            env.vars.insert("B".into(), Value::Set(0b010));
            &mut env
        },
    );
    assert_eq!(pairs_of(&env.vars["c"]), vec![(0, 0), (1, 1), (2, 2)]);
    let Value::Values(m) = &env.vars["m"] else {
        panic!("{:?}", env.vars["m"])
    };
    assert_eq!(
        m.iter().map(set_of).collect::<Vec<_>>(),
        vec![0b001, 0b010, 0b100]
    );
    let Value::Values(k) = &env.vars["k"] else {
        panic!()
    };
    assert_eq!(k.len(), 2);
    // cross of {po, rf} and {0, loc}: four unions, all distinct
    let Value::Values(b) = &env.vars["both"] else {
        panic!()
    };
    assert_eq!(b.len(), 4);
    // total orders of the three events extending po (1 before 2): 3 of them
    let Value::Values(l) = &env.vars["lin"] else {
        panic!()
    };
    assert_eq!(l.len(), 3);
    for o in l.iter() {
        let p = pairs_of(o);
        assert!(p.contains(&(1, 2)) && p.len() == 3, "{p:?}");
    }
    let Value::Values(parts) = &env.vars["parts"] else {
        panic!()
    };
    assert_eq!(
        parts.iter().map(set_of).collect::<Vec<_>>(),
        vec![0b011, 0b100]
    );
    assert_eq!(set_of(&env.vars["d"]), 0b001);
    assert_eq!(set_of(&env.vars["rg"]), 0b010);
    assert_eq!(pairs_of(&env.vars["fr1"]), vec![]);
    assert_eq!(set_of(&env.vars["u"]), 0b011);
    assert_eq!(pairs_of(&env.vars["tc"]), vec![(0, 1), (0, 2), (1, 2)]);
}

#[test]
fn tags_enums_match_try_and_variants() {
    let mut env = small();
    env.variants.insert("on".into());
    run(
        "enum Colours = 'red || 'blue-ish
         instructions W[Colours]
         let pick(t) = match t with 'red -> po || _ -> rf end
         let a = pick('red) and b = pick('blue-ish)
         let c = Red | Blue-ish               (* the enum's tag sets: empty when unsupplied *)
         let d = try undefined-name with rf
         let e = if \"on\" then po else rf
         let g = if \"off\" || not \"on\" then po else rf
         let h = if 'red in Colours then po else rf
         let i = if {'red} subset Colours then po else rf
         if \"on\" let j = po else let j = rf end",
        &mut env,
    );
    assert_eq!(pairs_of(&env.vars["a"]), vec![(1, 2)]);
    assert_eq!(pairs_of(&env.vars["b"]), vec![(0, 1)]);
    assert_eq!(set_of(&env.vars["c"]), 0);
    assert_eq!(pairs_of(&env.vars["d"]), vec![(0, 1)]);
    assert_eq!(pairs_of(&env.vars["e"]), vec![(1, 2)]);
    assert_eq!(pairs_of(&env.vars["g"]), vec![(0, 1)]);
    assert_eq!(pairs_of(&env.vars["h"]), vec![(1, 2)]);
    assert_eq!(pairs_of(&env.vars["i"]), vec![(1, 2)]);
    assert_eq!(pairs_of(&env.vars["j"]), vec![(1, 2)]);
}

#[test]
fn checks_flags_procedures_and_forall() {
    let mut env = small();
    let out = run(
        "flag ~empty rf as has-rf
         flag ~empty co as has-co
         undefined_unless empty rf as no-rf
         procedure p(r) = acyclic r as inner end
         call p(po)
         forall e in M do irreflexive [e] ; po end",
        &mut env,
    );
    assert_eq!(out.failed, None);
    assert_eq!(out.flag_lines(), vec!["Flag has-rf", "Flag *undef*"]);
    let out = run(
        "procedure p(r) = acyclic r as inner end
         call p(po | po^-1) as outer",
        &mut small(),
    );
    assert_eq!(out.failed.map(|f| f.name), Some("outer".to_string()));
    let out = run("forall e in M do empty [e] ; rf end", &mut small());
    assert_eq!(out.failed.map(|f| f.events), Some(vec![0, 1]));
}

#[test]
fn with_from_runs_the_model_once_per_choice() {
    let env = small();
    let m = Model::parse(
        "with x from {po, rf, 0}
         let y = x
         flag ~empty x as nonempty
         empty x & rf as not-rf",
        &no_files,
    )
    .unwrap();
    let all = m.run_all(&env).unwrap();
    assert_eq!(all.len(), 3);
    let verdicts: Vec<(bool, Vec<String>)> = all
        .iter()
        .map(|(o, _)| (o.failed.is_none(), o.flags.clone()))
        .collect();
    // the set is ordered: 0 first, then po's and rf's relations in their own order
    assert_eq!(verdicts.iter().filter(|v| v.0).count(), 2);
    assert!(all
        .iter()
        .any(|(o, e)| o.failed.is_some() && pairs_of(&e.vars["y"]) == vec![(0, 1)]));
    let mut env = small();
    let out = m.run(&mut env).unwrap();
    assert_eq!(out.failed, None);
    assert_eq!(out.flags, vec!["nonempty"]);
    // no choice at all: nothing is allowed
    let m = Model::parse("with x from {}", &no_files).unwrap();
    assert!(m.run(&mut small()).unwrap().failed.is_some());
    // the model's own coherence orders: two writes to x, two orders, each run
    let evs = [init("x"), w(0, "x", 1, &[]), w(1, "x", 2, &[])];
    let env = env_of(&evs, &[], &[], &[]);
    let m = Model::parse("include \"cos-opt.cat\"", &no_files).unwrap();
    let all = m.run_all(&env).unwrap();
    let cos: Vec<Vec<(usize, usize)>> = all.iter().map(|(_, e)| pairs_of(&e.vars["co"])).collect();
    assert_eq!(cos.len(), 2, "{cos:?}");
    assert!(
        cos.contains(&vec![(0, 1), (0, 2), (1, 2)]) && cos.contains(&vec![(0, 1), (0, 2), (2, 1)])
    );
}

#[test]
fn bad_input_gives_errors_with_positions() {
    for (src, offset, msg) in [
        ("let x = (po", 11, "expected `)`"),
        ("let x = po ;; rf", 12, "expected an expression"),
        ("let x = 'a ++", 13, "expected an expression"),
        ("acyclic po as", 13, "expected a name"),
        ("let x = po (* open", 11, "unterminated comment"),
        // non-ASCII text in a comment (the lexer once sliced inside `é` and panicked)
        ("let x = po (* é", 11, "unterminated comment"),
        ("(* café *) let x = po $", 23, "unexpected `$`"),
        ("enum E = a", 9, "expected a tag"),
        ("let x = po $", 11, "unexpected `$`"),
        ("include \"nowhere.cat\"", 0, "cannot include `nowhere.cat`"),
    ] {
        let e = Model::parse(src, &no_files).unwrap_err();
        assert_eq!(
            (e.offset, e.message.starts_with(msg)),
            (offset, true),
            "{src}: {e}"
        );
    }
    // an error found while running names the included file it is in
    let files = |f: &str| (f == "a.cat").then(|| "let y = po\nlet x = nothing".to_string());
    let m = Model::parse("let z = rf\ninclude \"a.cat\"\nlet w = z", &files).unwrap();
    let e = m.run(&mut small()).unwrap_err();
    assert_eq!((e.file.as_deref(), e.offset), (Some("a.cat"), 19), "{e}");
    let m = Model::parse("include \"a.cat\"\nlet w = nothing", &|f: &str| {
        (f == "a.cat").then(|| "let y = po".to_string())
    })
    .unwrap();
    let e = m.run(&mut small()).unwrap_err();
    assert_eq!(
        (e.file, e.offset),
        (None, 24),
        "back in the model's own text"
    );
    let deep = format!("let x = {}po{}", "(".repeat(5000), ")".repeat(5000));
    assert!(Model::parse(&deep, &no_files)
        .unwrap_err()
        .message
        .contains("nested too deeply"));
    for (src, msg) in [
        ("let x = nothing", "unknown name `nothing`"),
        ("let x = po(rf)", "`po` is a relation, not a function"),
        (
            "let x = W ; po",
            "expected a relation, found a set of events",
        ),
        (
            "let rec f x = f x\nlet y = f(po)",
            "function calls nested too deeply",
        ),
        (
            "let x = match 'a with 'b -> po end",
            "no clause matches `'a`",
        ),
    ] {
        let m = Model::parse(src, &no_files).unwrap();
        let e = m.run(&mut small()).unwrap_err();
        assert!(e.message.contains(msg), "{src}: {e}");
    }
}

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
