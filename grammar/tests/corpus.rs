//! Runs the corpora in `test/corpus/*.txt` (litmus) and `cat/test/corpus/*.txt` (cat) without
//! the tree-sitter CLI.
//!
//! The format is tree-sitter's: a `===` line, the title, a `===` line, the input, a `---` line,
//! the expected S-expression. Expected trees without field names are compared against the
//! actual tree with its field names stripped (which is what `tree-sitter test` does).
//! `UPDATE_CORPUS=1 cargo test -p tree-sitter-litmus --test corpus` rewrites the expectations
//! (review the diff!), including for error-recovery cases that `tree-sitter test -u` refuses.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

struct Case {
    title: String,
    input: String,
    expected: String,
}

fn is_rule(line: &str, ch: char) -> bool {
    line.len() >= 3 && line.chars().all(|c| c == ch)
}

fn parse_corpus(text: &str) -> Vec<Case> {
    let lines: Vec<&str> = text.lines().collect();
    let mut cases = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !is_rule(lines[i], '=') {
            i += 1;
            continue;
        }
        let title = lines[i + 1].trim().to_string();
        assert!(is_rule(lines[i + 2], '='), "malformed header for {title}");
        i += 3;
        let start = i;
        while !is_rule(lines[i], '-') {
            i += 1;
        }
        let input = lines[start..i].join("\n").trim_matches('\n').to_string() + "\n";
        i += 1;
        let start = i;
        while i < lines.len()
            && !(is_rule(lines[i], '=') && i + 2 < lines.len() && is_rule(lines[i + 2], '='))
        {
            i += 1;
        }
        let expected = lines[start..i].join("\n").trim().to_string();
        cases.push(Case {
            title,
            input,
            expected,
        });
    }
    cases
}

/// Collapses whitespace and drops field names (`name: `) if `keep_fields` is false.
fn normalize(sexp: &str, keep_fields: bool) -> String {
    let mut out = String::new();
    for word in sexp.split_whitespace() {
        if !keep_fields && word.ends_with(':') && !word.starts_with('(') && !word.starts_with('"') {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.replace(" )", ")")
}

/// Pretty-prints a normalised S-expression the way `tree-sitter test -u` does.
fn pretty(sexp: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut chars = sexp.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            in_string = c != '"';
            out.push(c);
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '(' => {
                if !out.is_empty() {
                    out.push('\n');
                    out.push_str(&"  ".repeat(depth));
                }
                depth += 1;
                out.push('(');
            }
            ')' => {
                depth = depth.saturating_sub(1);
                out.push(')');
            }
            ' ' if chars.peek() == Some(&'(') => {}
            _ => out.push(c),
        }
    }
    out
}

fn corpus_files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("test/corpus exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
}

#[test]
fn corpus() {
    run_corpus(tree_sitter_litmus::LANGUAGE.into(), "test/corpus", 30);
}

#[test]
fn cat_corpus() {
    run_corpus(
        tree_sitter_litmus::LANGUAGE_CAT.into(),
        "cat/test/corpus",
        20,
    );
}

fn run_corpus(language: tree_sitter::Language, dir: &str, min_cases: usize) {
    let update = std::env::var_os("UPDATE_CORPUS").is_some();
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&language).unwrap();
    let mut failures = String::new();
    let mut count = 0;
    for file in corpus_files(dir) {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut rewritten = String::new();
        for case in parse_corpus(&text) {
            count += 1;
            let tree = parser.parse(&case.input, None).unwrap();
            let actual_full = tree.root_node().to_sexp();
            let keep_fields = case.expected.contains(": (");
            let actual = normalize(&actual_full, keep_fields);
            let expected = normalize(&case.expected, true);
            if update {
                let bar_eq = "=".repeat(80);
                let bar_dash = "-".repeat(80);
                let _ = write!(
                    rewritten,
                    "{bar_eq}\n{}\n{bar_eq}\n\n{}\n\n{bar_dash}\n\n{}\n\n",
                    case.title,
                    case.input.trim_end(),
                    pretty(&actual)
                );
            } else if actual != expected {
                let _ = writeln!(
                    failures,
                    "{}: {}\n  expected: {expected}\n  actual:   {actual}",
                    file.display(),
                    case.title
                );
            }
        }
        if update {
            std::fs::write(&file, rewritten.trim_end().to_string() + "\n").unwrap();
        }
    }
    assert!(count >= min_cases, "{dir} has only {count} cases");
    assert!(failures.is_empty(), "corpus mismatches:\n{failures}");
}

#[test]
fn error_recovery_cases_contain_errors() {
    // Every case in errors.txt must really exercise recovery.
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("test/corpus/errors.txt");
    let text = std::fs::read_to_string(file).unwrap();
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_litmus::LANGUAGE.into())
        .unwrap();
    let cases = parse_corpus(&text);
    assert!(cases.len() >= 8);
    for case in cases {
        let tree = parser.parse(&case.input, None).unwrap();
        assert!(
            tree.root_node().has_error(),
            "{} parses without error",
            case.title
        );
    }
}
