//! Unit tests of the dependency graph.

use super::cfg::{def, uses};
use super::trace::Set;
use super::*;
use crate::ir::Program;
use crate::mcr::trace_of;
use crate::report::Model;

fn program(src: &str) -> Program {
    let parsed = crate::syntax::parse(src);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    Program::lower(&parsed.test.unwrap(), 8).unwrap()
}

/// The trace of the program run thread by thread (the default scheduler), and its
/// dependences: for each event, (thread, kind, the events it exists by, the events its value
/// comes from).
fn deps(src: &str) -> Vec<(usize, String, Vec<usize>, Vec<usize>)> {
    let p = program(src);
    let tr = trace_of(&p, Model::Sc, &[]);
    let d = Sdg::new(&p)
        .trace_deps(&p, &tr)
        .expect("the events follow the code");
    let bits = |s: &Set| members(s, tr.events.len()).collect();
    tr.events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            (
                e.thread,
                format!("{:?}", e.kind),
                bits(&d.exist[i]),
                bits(&d.value[i]),
            )
        })
        .collect()
}

#[test]
fn a_store_depends_on_the_read_it_writes_and_nothing_else() {
    let d = deps("litmus T shared x = 0, y = 0, z = 0; thread P0 { r1 = x; y = r1; z = 1; }");
    assert_eq!(d[1].2, Vec::<usize>::new(), "y = r1 exists whatever r1 is");
    assert_eq!(d[1].3, vec![0], "y = r1 writes what the load read");
    assert_eq!(
        (d[2].2.clone(), d[2].3.clone()),
        (vec![], vec![]),
        "z = 1 depends on nothing"
    );
}

#[test]
fn a_branch_makes_its_body_depend_on_its_condition() {
    let d = deps(
        "litmus T shared x = 1, y = 0, z = 0; thread P0 { r = x; if (r == 1) { y = 1; } z = 1; }",
    );
    assert_eq!(d[1].2, vec![0], "y = 1 happens because x read 1");
    assert_eq!(d[2].2, Vec::<usize>::new(), "z = 1 happens either way");
}

#[test]
fn a_counter_loop_store_depends_only_on_its_own_iteration() {
    // The paper's Counter: the loop runs on a register, so each store depends only on the
    // load just before it.
    let d = deps("litmus T shared c = 0; thread P0 { i = 0; while (i < 3) { r = c; c = r + 1; i = i + 1; } }");
    let stores: Vec<_> = d
        .iter()
        .enumerate()
        .filter(|(_, e)| e.1.starts_with("Store"))
        .collect();
    assert_eq!(stores.len(), 3);
    for (i, s) in stores {
        assert_eq!(
            s.2,
            Vec::<usize>::new(),
            "store {i} exists whatever was read"
        );
        assert_eq!(
            s.3,
            vec![i - 1],
            "store {i} writes its own iteration's read"
        );
    }
}

#[test]
fn code_after_an_await_or_a_possible_block_depends_on_what_decides_it() {
    let d = deps("litmus T shared x = 1, y = 0; thread P0 { await(x == 1); y = 1; }");
    assert_eq!(
        d[1].2,
        vec![0],
        "y = 1 follows the await's successful round"
    );
    let d = deps("litmus T shared x = 1, z = 0; mutex m; thread P0 { r = x; if (r == 1) { lock(m); } z = 1; }");
    assert_eq!(
        d.last().unwrap().2,
        vec![0],
        "z = 1 needs the lock, which the branch decides, not to block"
    );
}

#[test]
fn an_array_access_depends_on_its_index() {
    let d = deps("litmus T shared i = 1, a[2], y = 0; thread P0 { r = i; a[r] = 5; y = 2; }");
    assert_eq!(
        d[1].2,
        vec![0],
        "where a[r] = 5 writes (and that it does not fault) comes from the read"
    );
    assert_eq!(
        d[2].2,
        vec![0],
        "a possible index error decides whether y = 2 runs"
    );
}

/// Reaching definitions by the dense data flow the sparse ones replace (a set per instruction
/// and register): the reference the sparse result must equal.
fn dense_reaching_uses(
    code: &[crate::ir::Instr],
    succ: &[Vec<u32>],
    th: &ThreadCode,
) -> Vec<Vec<(u32, Reg)>> {
    let n = code.len();
    let nregs = th.n_regs as usize;
    // Per instruction and register: the definitions reaching its entry (sets of instruction
    // indices; `n` stands for the initial value).
    let mut ins: Vec<Vec<Vec<u32>>> = vec![vec![Vec::new(); nregs]; n + 1];
    ins[0].iter_mut().for_each(|defs| *defs = vec![n as u32]);
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..n {
            let mut out = ins[i].clone();
            if let Some(d) = def(&code[i].kind) {
                if let Some(o) = out.get_mut(d as usize) {
                    *o = vec![i as u32];
                }
            }
            if code[i].clear_temps {
                for o in out.iter_mut().skip(th.regs.len()) {
                    o.clear();
                }
            }
            for &s in &succ[i] {
                let s = s as usize;
                for r in 0..nregs {
                    for &d in &out[r] {
                        if !ins[s][r].contains(&d) {
                            ins[s][r].push(d);
                            changed = true;
                        }
                    }
                }
            }
        }
    }
    let out = (0..n)
        .map(|i| {
            let (a, b) = uses(&code[i].kind);
            let mut regs: Vec<Reg> = a.into_iter().chain(b).collect();
            regs.sort_unstable();
            regs.dedup();
            let mut out: Vec<(u32, Reg)> = regs
                .into_iter()
                .flat_map(|r| {
                    ins[i]
                        .get(r as usize)
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|&d| (d as usize) < n)
                        .map(move |d| (d, r))
                })
                .collect();
            out.sort_unstable();
            out
        })
        .collect();
    out
}

/// The sparse reaching definitions equal the dense ones on every thread of `p`.
fn same_reaching(p: &Program, what: &str) {
    for (t, th) in p.threads.iter().enumerate() {
        let succ = super::cfg::successors(&th.code);
        let sparse = super::reaching::reaching_uses(&th.code, &succ, th, &mut || false)
            .expect("small threads are not skipped");
        assert_eq!(
            sparse,
            dense_reaching_uses(&th.code, &succ, th),
            "{what}, thread {t}"
        );
    }
}

#[test]
fn sparse_reaching_definitions_equal_the_dense_data_flow_on_the_corpus() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/litmus");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.retain(|f| f.extension().is_some_and(|e| e == "litmus"));
    files.sort();
    let mut checked = 0;
    for f in &files {
        let parsed = crate::syntax::parse(&std::fs::read_to_string(f).unwrap());
        let Some(test) = parsed.test else { continue };
        let Ok(p) = Program::lower(&test, 3) else {
            continue;
        };
        same_reaching(&p, &f.display().to_string());
        checked += 1;
    }
    assert!(checked > 50, "the corpus was read ({checked} files)");
}

#[test]
fn sparse_reaching_definitions_equal_the_dense_data_flow_on_random_programs() {
    let full = std::env::var("LITMUS_FULL_TESTS").is_ok_and(|v| v == "1");
    for seed in 0..if full { 5_000 } else { 500 } {
        let t = crate::testgen::random_test_with(seed, crate::testgen::GenConfig::all());
        if let Ok(p) = Program::lower(&t, 2) {
            same_reaching(&p, &format!("seed {seed}"));
        }
    }
}

#[test]
fn code_no_path_from_the_entry_reaches_still_has_its_definitions() {
    // After `while (1)` nothing runs, but the graph is the code's, as the dense data flow had it.
    let p =
        program("litmus T shared x = 0; thread P0 { r = 1; while (1) { x = r; } r = 2; x = r; }");
    same_reaching(&p, "unreachable tail");
}

#[test]
fn a_long_thread_and_many_registers_get_a_graph() {
    let body: String = (0..20_000)
        .map(|i| format!("r{} = {i}; ", i % 50))
        .collect();
    let p = program(&format!(
        "litmus S shared x = 0; thread P0 {{ {body} x = r7; }}"
    ));
    let g = Sdg::new(&p);
    assert_eq!(g.skipped, None);
    let last = &g.threads[0].data[p.threads[0].code.len() - 1];
    assert_eq!(last.len(), 1, "x = r7 reads the last r7 = ...: {last:?}");
    let body: String = (0..10_000).map(|i| format!("r{i} = {i}; ")).collect();
    let p = program(&format!(
        "litmus S shared x = 0; thread P0 {{ {body} x = r9999 + r0; }}"
    ));
    let g = Sdg::new(&p);
    assert_eq!(g.skipped, None);
    assert_eq!(g.threads[0].data[p.threads[0].code.len() - 1].len(), 2);
}
