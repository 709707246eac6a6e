//! The cat language (issues 53 and 55): every cat and bell file of herd's library and of the
//! Linux-kernel memory model parses (`../shared`, skipped with a message when absent); each
//! construct evaluated on small hand-built executions. The kernel's model judging hand-built
//! executions is in `cat_kernel_model.rs`.

mod cat_support;

use cat_support::*;
use litmus_engine::cat::{parse_file, CatError, Model, Value};

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

/// A `let rec` of sets and relations is evaluated as herd evaluates it (`fix_step`): each
/// round takes the bindings in order, each seeing the ones before it in the same round. The
/// kernel's bell file matches RCU critical sections this way (with `\`, so not monotone):
/// two sections in a row, lock 0, unlock 1, lock 2, unlock 3 in program order, are matched
/// 0-1 and 2-3. Evaluated all at once from the last round's values, the match picked up
/// 0-3 too, and the kernel model read the two sections as one (Paul McKenney's
/// `C-RW-G+RW-R3I` and the kernel catalogue's `C-RomanPenyaev-list-rcu-rr` answered `Never`
/// where herd7 answers `Sometimes`).
#[test]
fn let_rec_rounds_see_the_bindings_before_them() {
    let evs = [
        f(0, &["Rcu-lock"]),
        f(0, &["Rcu-unlock"]),
        f(0, &["Rcu-lock"]),
        f(0, &["Rcu-unlock"]),
    ];
    let mut env = env_of(&evs, &[], &[], &[]);
    run(
        "let matching = let rec
             unmatched-locks = Rcu-lock \\ domain(matched)
         and unmatched-unlocks = Rcu-unlock \\ range(matched)
         and unmatched = unmatched-locks | unmatched-unlocks
         and unmatched-po = [unmatched] ; po ; [unmatched]
         and unmatched-locks-to-unlocks = [unmatched-locks] ; po ; [unmatched-unlocks]
         and matched = matched | (unmatched-locks-to-unlocks \\ (unmatched-po ; unmatched-po))
         in matched",
        &mut env,
    );
    assert_eq!(pairs_of(&env.vars["matching"]), vec![(0, 1), (2, 3)]);
}

/// A failed check says where it is (the editor's link from a test's verdict to its check): the
/// statement's offset in its own file, the included file named; and every named set and
/// relation of the run is there to read (the editor's hover on a name).
#[test]
fn a_failed_check_says_where_it_is_and_the_run_names_its_values() {
    use litmus_engine::cat::{named_values, Env, Named};
    let inc = "let r = _ * _\nirreflexive r as refl\n";
    let resolve = |f: &str| (f == "inc.cat").then(|| inc.to_string());
    let own = "\"t\"\nacyclic 0 as fine\ninclude \"inc.cat\"\n";
    let m = Model::parse(own, &resolve).unwrap();
    let mut env = Env::new(2);
    let out = m.run(&mut env).unwrap();
    let f = out.failed.expect("r is reflexive");
    assert_eq!(f.name, "refl");
    assert_eq!(f.file.as_deref(), Some("inc.cat"));
    assert_eq!(f.at, inc.find("irreflexive").unwrap());
    let values = named_values(&env);
    let r = values
        .iter()
        .find(|(k, _)| k == "r")
        .map(|(_, v)| v.clone());
    assert_eq!(r, Some(Named::Rel(vec![(0, 0), (0, 1), (1, 0), (1, 1)])));
    // the same model run again on base values (an editor's other model on the same candidate):
    // a relation given in the base is the caller's, `r` what the model makes of `_`
    let base = vec![("po".to_string(), Named::Rel(vec![(0, 1)]))];
    let again = litmus_engine::cat::evaluate(&m, 2, &base).unwrap();
    let get = |k: &str| again.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    assert_eq!(get("po"), Some(Named::Rel(vec![(0, 1)])));
    assert_eq!(
        get("r"),
        Some(Named::Rel(vec![(0, 0), (0, 1), (1, 0), (1, 1)]))
    );
    // a check of the model's own text: no file
    let own = "\"t\"\ninclude \"defs.cat\"\nempty r as some\n";
    let defs = |f: &str| (f == "defs.cat").then(|| "let r = _ * _\n".to_string());
    let m = Model::parse(own, &defs).unwrap();
    let mut env = Env::new(2);
    let f = m.run(&mut env).unwrap().failed.expect("r is not empty");
    assert_eq!((f.name.as_str(), f.file.as_deref()), ("some", None));
    assert_eq!(f.at, own.find("empty").unwrap());
}
