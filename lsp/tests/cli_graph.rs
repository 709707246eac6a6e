//! `litmus check --graph dot`: each violation's and witness's schedule is replaced by one
//! Graphviz digraph of its execution (checked structurally: no Graphviz here), as many as the
//! JSON report has violations and witnesses; `--graph` with `--json` or `--quiet` is a usage
//! error.

mod cli_support;
use cli_support::*;

/// The digraphs in a text output: each from its `digraph "..." {` line to its closing `}`.
fn digraphs(out: &str) -> Vec<String> {
    let mut graphs = Vec::new();
    let mut cur: Option<(String, i32)> = None;
    for line in out.lines() {
        if let Some((g, depth)) = cur.as_mut() {
            g.push_str(line);
            g.push('\n');
            let t = line.trim();
            if t.ends_with('{') {
                *depth += 1;
            } else if t == "}" {
                *depth -= 1;
            }
            if *depth == 0 {
                graphs.push(cur.take().unwrap().0);
            }
        } else if line.starts_with("digraph ") {
            assert!(line.ends_with(" {"), "{line}");
            cur = Some((format!("{line}\n"), 1));
        }
    }
    assert!(cur.is_none(), "an unclosed digraph:\n{out}");
    graphs
}

/// A structural check of one digraph: quoted name, statements end their lines, braces
/// balance, every edge joins declared nodes and has a known kind; returns the edge kinds.
fn check_digraph(g: &str) -> Vec<String> {
    let mut nodes = std::collections::BTreeSet::new();
    let mut kinds = Vec::new();
    for l in g.lines().skip(1) {
        let l = l.trim();
        if l.ends_with('{') || l == "}" {
            continue;
        }
        assert!(l.ends_with(';'), "{l}");
        assert_eq!(l.matches('"').count() % 2, 0, "{l}");
        if let Some((a, rest)) = l.split_once(" -> ") {
            let b = rest.split_whitespace().next().unwrap();
            assert!(nodes.contains(a) && nodes.contains(b), "{l}\n{g}");
            let kind = rest.split('"').nth(1).unwrap().to_string();
            assert!(
                ["po", "rf", "co", "fr", "rmw"].contains(&kind.as_str()),
                "{l}"
            );
            kinds.push(kind);
        } else if l.starts_with('n') && l.contains(" [label=") {
            nodes.insert(l.split_whitespace().next().unwrap().to_string());
        }
    }
    assert!(!nodes.is_empty(), "{g}");
    kinds
}

#[test]
fn every_violation_and_witness_of_the_examples_is_one_digraph() {
    let mut total = 0;
    for name in [
        "sb.litmus",
        "mp.litmus",
        "dekker.litmus",
        "racy-counter.litmus",
        "sb-x86.litmus",
    ] {
        let path = example(name);
        let text = run(&["check", "--color", "never", "--graph", "dot", &path]);
        assert!(text.status == 0 || text.status == 1, "{}", text.stderr);
        assert!(!text.stdout.contains("Schedule ("), "{}", text.stdout);
        let graphs = digraphs(&text.stdout);
        let json = run(&["check", "--json", &path]).json();
        let mut expected = 0;
        for m in ["sc", "tso", "pso"] {
            let r = &json["files"][0]["results"][m];
            expected += r["violations"].as_array().map_or(0, Vec::len);
            let holds = r["condition"]["holds"].as_bool() == Some(true);
            let exists = r["condition"]["kind"].as_str() == Some("exists");
            expected += (r["witness"].is_array() && holds && exists) as usize;
        }
        assert_eq!(graphs.len(), expected, "{name}:\n{}", text.stdout);
        for g in &graphs {
            let kinds = check_digraph(g);
            assert!(kinds.iter().any(|k| k == "rf"), "{name}: no rf edge\n{g}");
        }
        total += graphs.len();
    }
    assert!(total >= 6, "{total}");
}

#[test]
fn sb_under_tso_draws_herds_picture() {
    let r = run(&[
        "check",
        "--color",
        "never",
        "--graph",
        "dot",
        "--model",
        "tso",
        &example("sb.litmus"),
    ]);
    let g = &digraphs(&r.stdout)[0];
    assert!(g.starts_with("digraph \"SB TSO witness\" {\n"), "{g}");
    // herd's names: P0's events a, b; P1's c, d; the initial writes unnamed.
    for label in [
        "\"Wx=0\"",
        "\"Wy=0\"",
        "\"a: Wx=1\"",
        "\"b: Ry=0\"",
        "\"c: Wy=1\"",
        "\"d: Rx=0\"",
    ] {
        assert!(g.contains(label), "{label}\n{g}");
    }
    let mut kinds = check_digraph(g);
    kinds.sort();
    assert_eq!(kinds, ["co", "co", "fr", "fr", "po", "po", "rf", "rf"]);
    assert!(
        r.stdout.contains("Final state: P0:r0=0; P1:r1=0;"),
        "{}",
        r.stdout
    );
}

#[test]
fn graph_is_text_only() {
    for other in ["--json", "--quiet"] {
        let r = run(&["check", "--graph", "dot", other, &example("sb.litmus")]);
        assert_eq!(r.status, 2, "{other}");
        assert!(r.stderr.contains("cannot be used with"), "{}", r.stderr);
    }
}
