//! herd's C dialect: the front end (`syntax::c`), the `.def` file parser (`c::def`) and the
//! expansion (`c::lower`), on small tests written here and on every C test of the shared data
//! (`../shared/conformance/linux/tests`, `../shared/conformance/c11/tests`, read with the
//! shared kernel `.def` and herd's `c11.def`), and of Paul McKenney's collection when
//! `LITMUS_PAULMCK_DIR` names a checkout of it. Absent data is said, not skipped silently.

use litmus_engine::c::source::{Outcome, SStmt};
use litmus_engine::c::{self, Annot, Defs, Expr, MemoryOrder, Returns, Stmt};
use litmus_engine::syntax;
use std::path::{Path, PathBuf};

/// A small `.def` in herd's syntax, written here (the kernel's is GPL and read from
/// `../shared` only).
const DEFS: &str = "\
READ_ONCE(X) __load{once}(X)
WRITE_ONCE(X,V) { __store{once}(X,V); }
smp_store_release(X,V) { __store{release}(*X,V); }
smp_load_acquire(X) __load{acquire}(*X)
smp_mb() { __fence{mb}; }
xchg(X,V) __xchg{mb}(X,V)
cmpxchg(X,V,W) __cmpxchg{mb}(X,V,W)
spin_lock(X) { __lock(X); }
spin_unlock(X) { __unlock(X); }
spin_trylock(X) __trylock(X)
atomic_read(X) READ_ONCE(*X)
atomic_inc(X) { __atomic_op{noreturn}(X,+,1); }
atomic_fetch_andnot(V,X) __atomic_fetch_op{mb}(X,&~,V)
atomic_dec_and_test(X) __atomic_op_return{mb}(X,-,1) == 0
atomic_add_unless(X,V,W) __atomic_add_unless{mb}(X,V,W)
synchronize_srcu(X) { __srcu{sync-srcu}(X); }
loop(X) loop(X)
";

fn defs() -> Defs {
    Defs::parse("test.def", DEFS).expect("the test's .def parses")
}

fn program(text: &str) -> c::Program {
    let p = syntax::parse(text);
    assert!(
        p.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        p.diagnostics
    );
    let src = p.c.expect("a C test has its source");
    c::lower(&src, &defs()).unwrap_or_else(|e| panic!("{e:?}"))
}

fn errors(text: &str) -> Vec<(String, usize)> {
    let p = syntax::parse(text);
    let mut out: Vec<(String, usize)> = p
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| (d.message.clone(), d.span.start as usize))
        .collect();
    if out.is_empty() {
        if let Some(src) = p.c {
            if let Err(e) = c::lower(&src, &defs()) {
                out = e
                    .iter()
                    .map(|d| (d.message.clone(), d.span.start as usize))
                    .collect();
            }
        }
    }
    out
}

const MP: &str = "C MP+poonceonce+pooncerelease
\"doc\"
Cycle=Rfe PodRR Fre PodWW
(* Result: Never DATARACE *)
{
  x = 1; int *p = &y; 0:r9 = 2;
}

P0(int *x, int *y)
{
\tWRITE_ONCE(*x, 1);
\tsmp_store_release(y, 1);
}

P1(int *x, int *y)
{
\tint r0 = smp_load_acquire(y);
\tr1 = READ_ONCE(*x);
\tif (r0 == 1) { smp_mb(); } else *x = 2;
}

exists (1:r0=1 /\\ 1:r1=0 /\\ x=1)
";

#[test]
fn header_init_threads_and_condition_lower_to_a_c_test() {
    let p = syntax::parse(MP);
    assert!(
        p.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        p.diagnostics
    );
    let t = p.test.expect("the AST");
    assert_eq!(t.dialect, litmus_engine::ast::Dialect::C);
    assert_eq!(t.name.text, "MP+poonceonce+pooncerelease");
    assert_eq!(t.description.as_deref(), Some("doc"));
    let names: Vec<&str> = t.shared.iter().map(|s| s.name.text.as_str()).collect();
    assert_eq!(names, ["x", "p", "y"]);
    assert_eq!(t.shared[0].init, vec![1]);
    assert_eq!(t.threads.len(), 2);
    assert_eq!(t.threads[0].reg_init.len(), 1);
    assert!(t.condition.is_some());
    let src = p.c.expect("the source");
    let e = src.expected.expect("the Result: comment");
    assert_eq!(e.outcome, Outcome::Never);
    assert!(e.datarace);
    assert_eq!(src.threads[1].params.len(), 2);
    assert!(matches!(src.threads[1].body[0], SStmt::Decl { .. }));
}

#[test]
fn kernel_macros_expand_to_herds_primitives_with_their_tags() {
    let prog = program(MP);
    let p0 = &prog.threads[0].body;
    assert!(
        matches!(&p0[0], Stmt::Store { annot: Annot::Tag(t), addr: Expr::Var(x), value: Expr::Int(1, _), .. } if t == "once" && x.text == "x"),
        "{p0:?}"
    );
    assert!(
        matches!(&p0[1], Stmt::Store { annot: Annot::Tag(t), addr: Expr::Var(y), .. } if t == "release" && y.text == "y")
    );
    let p1 = &prog.threads[1].body;
    assert!(
        matches!(&p1[0], Stmt::Local { value: Some(Expr::Load { annot: Annot::Tag(t), .. }), .. } if t == "acquire")
    );
    assert!(
        matches!(&p1[1], Stmt::Assign { value: Expr::Load { annot: Annot::Tag(t), .. }, .. } if t == "once")
    );
    let Stmt::If {
        then, otherwise, ..
    } = &p1[2]
    else {
        panic!("{p1:?}")
    };
    assert!(matches!(&then[0], Stmt::Fence { annot: Annot::Tag(t), .. } if t == "mb"));
    assert!(matches!(
        &otherwise[0],
        Stmt::Store {
            annot: Annot::Plain,
            ..
        }
    ));
}

#[test]
fn atomics_locks_and_srcu_expand() {
    let prog = program(
        "C atomics\n{}\nP0(atomic_t *v, spinlock_t *s, int *x, struct srcu_struct *ss)\n{\n\
         spin_lock(s); r0 = spin_trylock(s); spin_unlock(s);\n\
         atomic_inc(v); r1 = atomic_fetch_andnot(3, v); r2 = atomic_dec_and_test(v);\n\
         r3 = atomic_add_unless(v, 1, 0); r4 = xchg(x, 1); r5 = cmpxchg(x, 1, 2);\n\
         r6 = atomic_read(v); synchronize_srcu(ss);\n}\nexists (0:r0=1)\n",
    );
    let b = &prog.threads[0].body;
    assert!(matches!(b[0], Stmt::Lock { .. }));
    assert!(matches!(
        &b[1],
        Stmt::Assign {
            value: Expr::TryLock { .. },
            ..
        }
    ));
    assert!(matches!(b[2], Stmt::Unlock { .. }));
    assert!(matches!(
        &b[3],
        Stmt::Eval(Expr::AtomicOp {
            returns: Returns::Nothing,
            op: c::BinOp::Add,
            ..
        })
    ));
    assert!(matches!(
        &b[4],
        Stmt::Assign {
            value: Expr::AtomicOp {
                returns: Returns::Old,
                op: c::BinOp::AndNot,
                ..
            },
            ..
        }
    ));
    assert!(
        matches!(&b[5], Stmt::Assign { value: Expr::Binary(c::BinOp::Eq, l, _), .. }
        if matches!(**l, Expr::AtomicOp { returns: Returns::New, op: c::BinOp::Sub, .. }))
    );
    assert!(matches!(
        &b[6],
        Stmt::Assign {
            value: Expr::AddUnless { .. },
            ..
        }
    ));
    assert!(matches!(
        &b[7],
        Stmt::Assign {
            value: Expr::Xchg { .. },
            ..
        }
    ));
    assert!(matches!(
        &b[8],
        Stmt::Assign {
            value: Expr::Cmpxchg { .. },
            ..
        }
    ));
    assert!(
        matches!(&b[9], Stmt::Assign { value: Expr::Load { annot: Annot::Tag(t), .. }, .. } if t == "once")
    );
    assert!(matches!(&b[10], Stmt::Srcu { tag, .. } if tag == "sync-srcu"));
}

#[test]
fn c11_operations_carry_their_memory_order() {
    let prog = program(
        "C c11\n{ [x] = 0; }\nP0 (atomic_int* x, atomic_int* y) {\n\
         int r1 = atomic_load_explicit(x, memory_order_acquire);\n\
         atomic_store_explicit(y, 1, memory_order_release);\n\
         atomic_thread_fence(memory_order_seq_cst);\n\
         int r2 = atomic_fetch_add_explicit(x, 2, memory_order_relaxed);\n\
         int r3 = atomic_compare_exchange_strong_explicit(x, &r1, 5, memory_order_acq_rel, memory_order_relaxed);\n\
         *y = 3;\n}\nexists (0:r1=1)\n",
    );
    let b = &prog.threads[0].body;
    assert!(matches!(
        &b[0],
        Stmt::Local {
            value: Some(Expr::Load {
                annot: Annot::Order(MemoryOrder::Acquire),
                ..
            }),
            ..
        }
    ));
    assert!(matches!(
        &b[1],
        Stmt::Store {
            annot: Annot::Order(MemoryOrder::Release),
            ..
        }
    ));
    assert!(matches!(
        &b[2],
        Stmt::Fence {
            annot: Annot::Order(MemoryOrder::SeqCst),
            ..
        }
    ));
    assert!(matches!(
        &b[3],
        Stmt::Local {
            value: Some(Expr::AtomicOp {
                annot: Annot::Order(MemoryOrder::Relaxed),
                returns: Returns::Old,
                ..
            }),
            ..
        }
    ));
    assert!(matches!(
        &b[4],
        Stmt::Local {
            value: Some(Expr::CompareExchange {
                strong: true,
                success: MemoryOrder::AcqRel,
                failure: MemoryOrder::Relaxed,
                ..
            }),
            ..
        }
    ));
    assert!(matches!(
        &b[5],
        Stmt::Store {
            annot: Annot::Plain,
            ..
        }
    ));
}

#[test]
fn unknown_macros_and_bad_calls_are_errors_at_the_call() {
    let text = "C bad\n{}\nP0(int *x)\n{\n  smp_memb();\n  r0 = smp_mb();\n  WRITE_ONCE(*x);\n  r1 = loop(x);\n  r2 = atomic_load_explicit(x, memory_order_bogus);\n}\n";
    let errs = errors(text);
    let at = |s: &str| text.find(s).unwrap();
    assert_eq!(errs.len(), 5, "{errs:?}");
    assert!(
        errs[0].0.contains("unknown macro `smp_memb`") && errs[0].0.contains("test.def"),
        "{errs:?}"
    );
    assert_eq!(errs[0].1, at("smp_memb"));
    assert!(errs[1].0.contains("`smp_mb` has no value"), "{errs:?}");
    assert!(
        errs[2].0.contains("`WRITE_ONCE` takes 2 arguments"),
        "{errs:?}"
    );
    assert!(errs[3].0.contains("expand more than"), "{errs:?}");
    assert_eq!(errs[3].1, at("loop(x)"));
    assert!(errs[4].0.contains("expected a memory order"), "{errs:?}");
    assert_eq!(errs[4].1, at("memory_order_bogus"));
}

#[test]
fn what_the_dialect_lacks_is_an_error_with_a_position() {
    let text = "C t\n{}\nP0(int *x)\n{\n  r0 = x->next;\n  Q1 = 2;\n}\nP2(int *y) { }\n";
    let errs = errors(text);
    assert!(
        errs.iter()
            .any(|(m, at)| m.contains("structure members") && *at == text.find("x->").unwrap()),
        "{errs:?}"
    );
    assert!(
        errs.iter()
            .any(|(m, at)| m.contains("expected `P1`") && *at == text.find("P2").unwrap()),
        "{errs:?}"
    );
}

#[test]
fn checking_a_c_test_says_it_is_not_available_yet() {
    let p = syntax::parse(MP);
    let test = p.test.expect("the AST");
    let err = litmus_engine::ir::Program::lower(&test, 4).expect_err("no engine runs C yet");
    assert!(format!("{err:?}").contains("not available yet"), "{err:?}");
}

// ------------------------------------------------------------------ the shared data

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

fn litmus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    // Symbolic links are not followed (the collection links a directory into itself).
    let mut entries: Vec<_> = entries
        .flatten()
        .filter_map(|e| Some((e.path(), e.file_type().ok()?)))
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (p, kind) in entries {
        if kind.is_dir() {
            litmus_files(&p, out);
        } else if kind.is_file() && p.extension().is_some_and(|e| e == "litmus") {
            out.push(p);
        }
    }
}

/// Macros herd's `.def` files do not define either (herd rejects the tests that call them).
const UNDEFINED_IN_HERD: [&str; 2] = ["smp_memb", "spin_unlock_wait"];

/// Parses and lowers every C test under `dir` with `defs`: (files read, C tests, lowered,
/// tests rejected for a macro herd does not define either); panics on any other failure.
fn check_dir(dir: &Path, defs: &Defs) -> (usize, usize, usize, Vec<String>) {
    let mut files = Vec::new();
    litmus_files(dir, &mut files);
    let (mut c_tests, mut lowered, mut undefined, mut failures) = (0, 0, Vec::new(), Vec::new());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        if !text.trim_start().starts_with("C ") {
            continue;
        }
        c_tests += 1;
        let p = syntax::parse(&text);
        let errs: Vec<String> = p
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.message.clone())
            .collect();
        if !errs.is_empty() {
            failures.push(format!("{}: {}", f.display(), errs.join("; ")));
            continue;
        }
        let Some(src) = p.c else {
            failures.push(format!("{}: no C source", f.display()));
            continue;
        };
        match c::lower(&src, defs) {
            Ok(_) => lowered += 1,
            Err(e) => {
                let herd_too = e.iter().all(|d| {
                    UNDEFINED_IN_HERD
                        .iter()
                        .any(|m| d.message.contains(&format!("unknown macro `{m}`")))
                });
                let msg: Vec<String> = e.iter().map(|d| d.message.clone()).collect();
                if herd_too {
                    undefined.push(format!("{}: {}", f.display(), msg.join("; ")));
                } else {
                    failures.push(format!("{}: {}", f.display(), msg.join("; ")));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {c_tests} C tests under {} fail:\n{}",
        failures.len(),
        dir.display(),
        failures.join("\n")
    );
    (files.len(), c_tests, lowered, undefined)
}

fn read_defs(path: &Path) -> Option<Defs> {
    let text = std::fs::read_to_string(path).ok()?;
    let name = path.file_name()?.to_string_lossy().to_string();
    Some(Defs::parse(&name, &text).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

#[test]
fn every_shared_linux_and_c11_test_parses_and_lowers() {
    let root = shared();
    let kernel = read_defs(&root.join("conformance/linux/model/linux-kernel.def"));
    let c11 = read_defs(&root.join("cat-corpus/herd-libdir/c11.def"));
    match kernel {
        None => eprintln!(
            "NOTE: {} is absent: the linux tests' parsing and macro expansion were NOT checked",
            root.join("conformance/linux").display()
        ),
        Some(defs) => {
            let dir = root.join("conformance/linux/tests");
            let (files, c_tests, lowered, undefined) = check_dir(&dir, &defs);
            eprintln!(
                "linux: {files} files, {c_tests} C tests, {lowered} parsed and lowered with linux-kernel.def, {} call a macro no .def defines",
                undefined.len()
            );
            assert_eq!(files, 517, "the shared linux folder holds 517 tests");
            assert_eq!(c_tests, files);
            assert_eq!(lowered + undefined.len(), c_tests);
        }
    }
    match c11 {
        None => eprintln!(
            "NOTE: herd's c11.def under {} is absent: the C11 tests were NOT checked",
            root.join("cat-corpus/herd-libdir").display()
        ),
        Some(defs) => {
            let dir = root.join("conformance/c11/tests");
            let (files, c_tests, lowered, undefined) = check_dir(&dir, &defs);
            eprintln!(
                "c11: {files} files, {c_tests} C tests, {lowered} parsed and lowered with c11.def"
            );
            if files == 0 {
                eprintln!(
                    "NOTE: {} is absent: the C11 tests were NOT checked",
                    dir.display()
                );
            } else {
                assert_eq!(files, 100, "the shared c11 folder holds 100 tests");
                assert_eq!((c_tests, lowered, undefined.len()), (100, 100, 0));
            }
        }
    }
}

/// Paul McKenney's collection (github.com/paulmckrcu/litmus at 2f1be9e, 5,388 C tests), when
/// `LITMUS_PAULMCK_DIR` names a checkout of it.
#[test]
fn paul_mckenneys_collection_parses_and_lowers_when_present() {
    let Some(dir) = std::env::var_os("LITMUS_PAULMCK_DIR") else {
        eprintln!(
            "NOTE: LITMUS_PAULMCK_DIR is not set: Paul McKenney's collection was NOT checked"
        );
        return;
    };
    let Some(defs) = read_defs(&shared().join("conformance/linux/model/linux-kernel.def")) else {
        eprintln!("NOTE: the shared linux-kernel.def is absent: Paul McKenney's collection was NOT checked");
        return;
    };
    let (files, c_tests, lowered, undefined) = check_dir(Path::new(&dir), &defs);
    eprintln!(
        "paulmck: {files} .litmus files, {c_tests} C tests, {lowered} parsed and lowered, {} call a macro no .def defines (herd rejects them too):",
        undefined.len()
    );
    for u in &undefined {
        eprintln!("  {u}");
    }
    assert!(c_tests > 0, "no C test under {}", Path::new(&dir).display());
    assert_eq!(lowered + undefined.len(), c_tests);
}

/// The `Result:` headers of the shared linux tests, read as `judgelitmus.sh` reads them, against
/// herd7's observation in `expected.csv`: the README says the two differ on a few tests only
/// (11 of 187 when this was written, all OOTA and plain-access tests).
#[test]
fn result_headers_of_the_shared_linux_tests_mostly_agree_with_herd() {
    let dir = shared().join("conformance/linux");
    let Ok(csv) = std::fs::read_to_string(dir.join("expected.csv")) else {
        eprintln!(
            "NOTE: {} is absent: the Result: headers were NOT checked",
            dir.display()
        );
        return;
    };
    let (mut with_header, mut comparable, mut agree, mut maybe) = (0, 0, 0, 0);
    let mut mention = 0;
    let mut differ = Vec::new();
    for line in csv.lines().skip(1) {
        let cols: Vec<&str> = line.split(',').collect();
        let (Some(file), Some(observation)) = (cols.first(), cols.get(2)) else {
            continue;
        };
        let text = std::fs::read_to_string(dir.join(file)).expect("a file expected.csv names");
        mention += usize::from(text.contains("Result:"));
        let p = syntax::parse(&text);
        let Some(e) = p.c.and_then(|s| s.expected) else {
            continue;
        };
        with_header += 1;
        let said = match e.outcome {
            Outcome::Never | Outcome::Deadlock => "Never",
            Outcome::Sometimes => "Sometimes",
            Outcome::Always => "Always",
            Outcome::Maybe => {
                maybe += 1;
                continue;
            }
            Outcome::Other(_) => continue,
        };
        comparable += 1;
        if said == *observation {
            agree += 1;
        } else {
            differ.push(format!("{file}: header {said}, herd {observation}"));
        }
    }
    eprintln!(
        "Result: headers: {with_header} of the shared linux tests have one; {comparable} say Never/Sometimes/Always/DEADLOCK, {agree} agree with herd7, {maybe} say Maybe; differing: {differ:?}"
    );
    assert_eq!(
        with_header, mention,
        "every file that mentions `Result:` has a header"
    );
    assert!(with_header >= 150, "only {with_header} headers found");
    // The headers of the OOTA and plain-access tests predate the model herd7 7.58 runs.
    assert!(
        agree * 100 >= comparable * 90,
        "{agree} of {comparable} agree: {differ:?}"
    );
}

#[test]
fn filter_and_locations_are_kept_for_the_engine() {
    let p = syntax::parse(
        "C t\n{}\nP0(int *x) { r0 = READ_ONCE(*x); }\nlocations [x; 0:r0;]\nfilter (0:r0=1)\nexists (x=1)\n",
    );
    assert!(
        p.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        p.diagnostics
    );
    let src = p.c.expect("the source");
    assert!(src.filter.is_some());
    assert_eq!(src.shown.len(), 2);
    assert!(src.expected.is_none());
}
