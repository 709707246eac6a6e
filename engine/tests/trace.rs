//! The trace view and the execution graph (`litmus_engine::trace`, `litmus_engine::graph`):
//! - over every program of the corpus and the examples, under SC, TSO and PSO, every
//!   violation's and witness's trace has one row per step, ends where the report says (the
//!   reported final state, in the last row's registers and memory; or the violation), and its
//!   graph is well formed (every read has one `rf` source, `co` per location is a chain from
//!   the initial write, `fr` is `rf⁻¹;co`, `po` follows each thread's events);
//! - the graphs of SB, MP and Dekker match what was worked out by hand;
//! - the `dot` rendering is a well-formed digraph (a structural check: no Graphviz here).

use litmus_engine::condition::{falsifies, satisfies};
use litmus_engine::graph::{to_dot, EdgeKind, Graph, NodeKind};
use litmus_engine::report::{Action, Schedule, ViolationKind};
use litmus_engine::trace::{trace, Trace, TraceEnd};
use litmus_engine::{check, syntax, CheckOptions, Control, Model};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

fn corpus_files() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["tests/litmus", "examples"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "litmus") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

fn parse(src: &str) -> litmus_engine::ast::Test {
    syntax::parse(src).test.expect("parses")
}

/// The structural invariants of an execution graph.
fn check_graph(g: &Graph, what: &str) {
    let n = g.nodes.len();
    for (i, node) in g.nodes.iter().enumerate() {
        assert_eq!(node.id, i, "{what}");
    }
    for e in &g.edges {
        assert!(e.from < n && e.to < n && e.from != e.to, "{what}: {e:?}");
    }
    let of = |k: EdgeKind| g.edges.iter().filter(move |e| e.kind == k);
    // Every read has exactly one rf source, a write (or initial write) to its location with
    // the value it read.
    for r in g.nodes.iter().filter(|x| x.kind == NodeKind::Read) {
        let src: Vec<_> = of(EdgeKind::Rf).filter(|e| e.to == r.id).collect();
        assert_eq!(src.len(), 1, "{what}: {}", r.label);
        let w = &g.nodes[src[0].from];
        assert!(matches!(w.kind, NodeKind::Write | NodeKind::Init), "{what}");
        assert_eq!(
            (&w.loc, w.value),
            (&r.loc, r.value),
            "{what}: {} <- {}",
            r.label,
            w.label
        );
    }
    // co: per location one chain starting at the initial write; pending writes stay out.
    let mut co_next: BTreeMap<usize, usize> = BTreeMap::new();
    let mut co_prev: BTreeMap<usize, usize> = BTreeMap::new();
    for e in of(EdgeKind::Co) {
        assert_eq!(g.nodes[e.from].loc, g.nodes[e.to].loc, "{what}");
        assert!(
            co_next.insert(e.from, e.to).is_none(),
            "{what}: co branches"
        );
        assert!(co_prev.insert(e.to, e.from).is_none(), "{what}: co joins");
        assert_ne!(g.nodes[e.to].kind, NodeKind::Init, "{what}");
    }
    for w in g.nodes.iter().filter(|x| x.kind == NodeKind::Write) {
        assert_eq!(
            co_prev.contains_key(&w.id),
            !w.pending,
            "{what}: {}",
            w.label
        );
    }
    // fr = rf⁻¹;co⁺ exactly.
    let mut fr_expected = BTreeSet::new();
    for rf in of(EdgeKind::Rf) {
        let mut w = rf.from;
        while let Some(&next) = co_next.get(&w) {
            fr_expected.insert((rf.to, next));
            w = next;
        }
    }
    let fr: BTreeSet<(usize, usize)> = of(EdgeKind::Fr).map(|e| (e.from, e.to)).collect();
    assert_eq!(fr, fr_expected, "{what}");
    // po links consecutive events of one thread, in step order.
    for e in of(EdgeKind::Po) {
        let (a, b) = (&g.nodes[e.from], &g.nodes[e.to]);
        assert!(a.thread.is_some() && a.thread == b.thread, "{what}");
        assert!(a.step < b.step, "{what}");
    }
    let threads: BTreeSet<usize> = g.nodes.iter().filter_map(|x| x.thread).collect();
    let rmw = of(EdgeKind::Rmw).count();
    let events = g.nodes.iter().filter(|x| x.thread.is_some()).count();
    assert_eq!(
        of(EdgeKind::Po).count() + rmw,
        events - threads.len(),
        "{what}"
    );
}

fn check_trace(t: &Trace, schedule: &Schedule, what: &str) {
    assert_eq!(t.rows.len(), schedule.len(), "{what}");
    for (row, step) in t.rows.iter().zip(schedule) {
        assert_eq!(&row.step, step, "{what}");
    }
    // Buffers only ever hold stores under TSO/PSO, and only what was stored and not flushed.
    for row in &t.rows {
        let waiting: usize = row.after.buffers.iter().map(Vec::len).sum();
        if t.model == Model::Sc {
            assert_eq!(waiting, 0, "{what}");
        }
    }
    let stored = schedule
        .iter()
        .filter(|s| s.action == Action::Store && s.buffered)
        .count();
    let flushed = schedule
        .iter()
        .filter(|s| s.action == Action::Flush)
        .count();
    let last = t.rows.last().map_or(&t.initial, |r| &r.after);
    let waiting: usize = last.buffers.iter().map(Vec::len).sum();
    assert_eq!(waiting, stored - flushed, "{what}");
    check_graph(&t.graph, what);
    let dot = to_dot(&t.graph, "g", what);
    check_dot(&dot, &t.graph);
}

/// A structural check of a `dot` digraph: header, balanced braces, every statement ends its
/// line, every edge joins declared nodes, the edge count matches.
fn check_dot(dot: &str, g: &Graph) {
    let mut lines = dot.lines();
    let head = lines.next().unwrap();
    assert!(
        head.starts_with("digraph \"") && head.ends_with(" {"),
        "{dot}"
    );
    let mut depth = 1;
    let mut declared = BTreeSet::new();
    let mut edges = 0;
    for l in lines {
        let l = l.trim();
        if l.ends_with('{') {
            depth += 1;
        } else if l == "}" {
            depth -= 1;
        } else {
            assert!(l.ends_with(';'), "{l}");
            assert_eq!(l.matches('"').count() % 2, 0, "{l}");
            if let Some((a, rest)) = l.split_once(" -> ") {
                let b = rest.split_whitespace().next().unwrap();
                assert!(declared.contains(a) && declared.contains(b), "{l}");
                edges += 1;
            } else if l.starts_with('n') && l.contains(" [label=") {
                declared.insert(l.split_whitespace().next().unwrap().to_string());
            }
        }
        assert!(depth >= 0, "{dot}");
    }
    assert_eq!(depth, 0, "{dot}");
    assert_eq!(edges, g.edges.len(), "{dot}");
    assert_eq!(declared.len(), g.nodes.len(), "{dot}");
}

#[test]
fn every_corpus_schedule_traces_to_what_was_reported() {
    let opts = CheckOptions::default();
    let ctl = Control::new();
    let mut traced = 0;
    for path in corpus_files() {
        let src = std::fs::read_to_string(&path).unwrap();
        let test = parse(&src);
        for m in Model::ALL {
            let r = check(&test, m, &opts, &ctl);
            for v in &r.violations {
                let what = format!("{} {m:?} {:?}", path.display(), v.kind);
                let t =
                    trace(&test, m, &opts, &v.schedule).unwrap_or_else(|e| panic!("{what}: {e}"));
                check_trace(&t, &v.schedule, &what);
                match (&t.end, v.kind) {
                    (TraceEnd::Final { state }, ViolationKind::Condition) => {
                        assert_eq!(state, &t.last_as_final_state(), "{what}");
                        assert!(r.states.contains(state), "{what}");
                        let q = test.condition.as_ref().unwrap().quantifier;
                        assert!(falsifies(q, satisfies(&test, state).unwrap()), "{what}");
                    }
                    (TraceEnd::Violation { kind, span, .. }, k) => {
                        assert_eq!((*kind, *span), (k, v.span), "{what}")
                    }
                    (other, _) => panic!("{what}: ended {other:?}"),
                }
                traced += 1;
            }
            if let Some(w) = &r.witness {
                let what = format!("{} {m:?} witness", path.display());
                let t = trace(&test, m, &opts, w).unwrap();
                check_trace(&t, w, &what);
                match &t.end {
                    TraceEnd::Final { state } => {
                        assert_eq!(state, &t.last_as_final_state(), "{what}");
                        assert_eq!(satisfies(&test, state), Some(true), "{what}");
                    }
                    other => panic!("{what}: ended {other:?}"),
                }
                traced += 1;
            }
        }
    }
    assert!(traced >= 60, "only {traced} schedules traced");
}

fn graph_of(src: &str, m: Model, witness: bool) -> Graph {
    let test = parse(src);
    let opts = CheckOptions::default();
    let r = check(&test, m, &opts, &Control::new());
    let s = if witness {
        r.witness.expect("a witness")
    } else {
        r.violations[0].schedule.clone()
    };
    trace(&test, m, &opts, &s).unwrap().graph
}

fn pairs(v: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn edges(g: &Graph, k: EdgeKind) -> BTreeSet<(String, String)> {
    g.edges_of(k).into_iter().collect()
}

const SB: &str = include_str!("../../tests/litmus/sb.litmus");
const MP: &str = include_str!("../../tests/litmus/mp.litmus");
const DEKKER: &str = include_str!("../../tests/litmus/dekker.litmus");

#[test]
fn sb_under_tso_reads_both_initial_writes_and_fr_points_at_the_other_store() {
    let g = graph_of(SB, Model::Tso, true);
    let labels: Vec<&str> = g.nodes.iter().map(|n| n.label.as_str()).collect();
    assert_eq!(&labels[..2], ["Wx=0", "Wy=0"]);
    assert_eq!(
        edges(&g, EdgeKind::Rf),
        pairs(&[("Wy=0", "Ry=0"), ("Wx=0", "Rx=0")])
    );
    assert_eq!(
        edges(&g, EdgeKind::Fr),
        pairs(&[("Ry=0", "Wy=1"), ("Rx=0", "Wx=1")])
    );
    assert_eq!(
        edges(&g, EdgeKind::Co),
        pairs(&[("Wx=0", "Wx=1"), ("Wy=0", "Wy=1")])
    );
    assert_eq!(
        edges(&g, EdgeKind::Po),
        pairs(&[("Wx=1", "Ry=0"), ("Wy=1", "Rx=0")])
    );
    // The fr edges cross threads: the cycle po;fr;po;fr that SC forbids.
    for e in g.edges.iter().filter(|e| e.kind == EdgeKind::Fr) {
        assert_ne!(g.nodes[e.from].thread, g.nodes[e.to].thread);
    }
}

#[test]
fn mp_under_pso_reads_the_flag_from_p0_and_the_data_from_the_initial_write() {
    let g = graph_of(MP, Model::Pso, true);
    assert_eq!(
        edges(&g, EdgeKind::Rf),
        pairs(&[("Wy=1", "Ry=1"), ("Wx=0", "Rx=0")])
    );
    assert_eq!(edges(&g, EdgeKind::Fr), pairs(&[("Rx=0", "Wx=1")]));
    assert_eq!(
        edges(&g, EdgeKind::Po),
        pairs(&[("Wx=1", "Wy=1"), ("Ry=1", "Rx=0")])
    );
    assert_eq!(
        edges(&g, EdgeKind::Co),
        pairs(&[("Wx=0", "Wx=1"), ("Wy=0", "Wy=1")])
    );
    // Under TSO the outcome is unreachable: no witness.
    let test = parse(MP);
    let r = check(&test, Model::Tso, &CheckOptions::default(), &Control::new());
    assert!(r.witness.is_none());
}

#[test]
fn dekker_under_tso_both_threads_read_the_initial_flag_and_counter() {
    let g = graph_of(DEKKER, Model::Tso, false);
    let rf: Vec<_> = g.edges_of(EdgeKind::Rf);
    // Each thread read the other's flag as 0 from the initial write, and the counter as 0.
    assert!(
        rf.contains(&("Wflag1=0".into(), "Rflag1=0".into())),
        "{rf:?}"
    );
    assert!(
        rf.contains(&("Wflag0=0".into(), "Rflag0=0".into())),
        "{rf:?}"
    );
    let cnt_reads: Vec<_> = rf.iter().filter(|(_, r)| r.starts_with("Rcnt")).collect();
    assert_eq!(cnt_reads.len(), 2, "{rf:?}");
    assert!(cnt_reads
        .iter()
        .all(|(w, r)| w == "Wcnt=0" && r == "Rcnt=0"));
    // Both increments write 1, one after the other in coherence; each read of the counter is
    // from-read before both.
    let co: Vec<_> = g
        .edges_of(EdgeKind::Co)
        .into_iter()
        .filter(|(a, _)| a.starts_with("Wcnt"))
        .collect();
    assert_eq!(co.len(), 2, "{co:?}");
    let fr_cnt = g
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::Fr && g.nodes[e.from].label == "Rcnt=0")
        .count();
    assert_eq!(fr_cnt, 4);
    // The flag reads are from-read before the other thread's flag store of 1.
    let fr = edges(&g, EdgeKind::Fr);
    assert!(
        fr.contains(&("Rflag1=0".into(), "Wflag1=1".into())),
        "{fr:?}"
    );
    assert!(
        fr.contains(&("Rflag0=0".into(), "Wflag0=1".into())),
        "{fr:?}"
    );
}

#[test]
fn an_rmw_is_a_read_and_a_write_joined_by_rmw() {
    let src = "litmus X\nshared x = 0;\nthread P0 {\n  r0 = fetch_add(x, 2);\n}\n\
               thread P1 {\n  x = 5;\n}\nexists (P0:r0 == 5)\n";
    let g = graph_of(src, Model::Tso, true);
    assert_eq!(edges(&g, EdgeKind::Rmw), pairs(&[("Rx=5", "Wx=7")]));
    assert_eq!(
        edges(&g, EdgeKind::Co),
        pairs(&[("Wx=0", "Wx=5"), ("Wx=5", "Wx=7")])
    );
    assert_eq!(edges(&g, EdgeKind::Fr), pairs(&[("Rx=5", "Wx=7")]));
}
