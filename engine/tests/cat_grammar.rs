//! The editor's tree-sitter grammar for cat (`grammar/cat`, `tree_sitter_litmus::LANGUAGE_CAT`)
//! reads every model as the engine's parser does: the same statements, of the same kinds,
//! starting at the same bytes, in every cat and bell file of herd's library, of the kernel's
//! model (`../shared`, skipped with a message when absent) and of the project's own models.

mod cat_support;

use cat_support::*;
use litmus_engine::cat::{parse_file, Stmt};
use std::path::{Path, PathBuf};

/// The engine's statements as (kind, offset); `show`/`unshow`/`debug` have no offset.
fn engine_statements(src: &str) -> Vec<(&'static str, Option<usize>)> {
    let stmts = parse_file(src).expect("the engine parses it");
    stmts
        .iter()
        .filter_map(|s| {
            Some(match s {
                Stmt::Let(_, at) | Stmt::LetRec(_, at) => ("let", Some(*at)),
                Stmt::Check { at, .. } => ("check", Some(*at)),
                Stmt::Include(_, at) => ("include", Some(*at)),
                Stmt::Show => ("show", None),
                Stmt::Enum(_, _, at) => ("enum", Some(*at)),
                Stmt::Events(_, _, at) => ("events", Some(*at)),
                Stmt::Procedure(_, _, _, at) => ("procedure", Some(*at)),
                Stmt::Call(_, _, _, at) => ("call", Some(*at)),
                Stmt::Forall(_, _, _, at) => ("forall", Some(*at)),
                Stmt::WithFrom(_, _, at) => ("with", Some(*at)),
                Stmt::IfVariant(_, _, _, at) => ("if", Some(*at)),
                Stmt::Match(_, _, _, at) => ("match", Some(*at)),
                Stmt::Origin(_) => return None,
            })
        })
        .collect()
}

/// The grammar's top-level statements the same way (a `let rec ... when check` is two, as the
/// engine makes it).
fn grammar_statements(src: &str) -> Vec<(&'static str, Option<usize>)> {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_litmus::LANGUAGE_CAT.into())
        .unwrap();
    let tree = parser.parse(src, None).unwrap();
    let root = tree.root_node();
    assert!(!root.has_error(), "the grammar parses it");
    let mut out = Vec::new();
    let mut cursor = root.walk();
    for node in root.named_children(&mut cursor) {
        let at = Some(node.start_byte());
        let kind = match node.kind() {
            "header" | "comment" => continue,
            "let_statement" => "let",
            "check_statement" => "check",
            "include_statement" => "include",
            "show_statement" | "debug_statement" => {
                out.push(("show", None));
                continue;
            }
            "enum_statement" => "enum",
            "events_statement" => "events",
            "procedure_statement" => "procedure",
            "call_statement" => "call",
            "forall_statement" => "forall",
            "with_statement" => "with",
            "if_statement" => "if",
            "match_statement" => "match",
            other => panic!("unexpected top-level node {other}"),
        };
        out.push((kind, at));
        if let Some(check) = node.child_by_field_name("check") {
            out.push(("check", Some(check.start_byte())));
        }
    }
    out
}

fn compare(files: &[PathBuf]) -> usize {
    let mut statements = 0;
    for file in files {
        let src = std::fs::read_to_string(file).unwrap();
        let engine = engine_statements(&src);
        let grammar = grammar_statements(&src);
        if engine != grammar {
            let first = engine
                .iter()
                .zip(&grammar)
                .position(|(a, b)| a != b)
                .unwrap_or(engine.len().min(grammar.len()));
            panic!(
                "{}: the engine and the grammar differ at statement {first}: engine {:?}, grammar {:?}",
                file.display(),
                engine.get(first),
                grammar.get(first)
            );
        }
        statements += engine.len();
    }
    statements
}

#[test]
fn grammar_and_engine_agree_on_every_statement_of_the_shared_models() {
    for sub in ["cat-corpus/herd-libdir", "conformance/linux/model"] {
        let Some(dir) = shared(sub) else {
            println!("SKIPPED: ../shared/{sub} not found; the grammar was not compared there");
            continue;
        };
        let mut files = Vec::new();
        cat_files(&dir, &mut files);
        assert!(!files.is_empty(), "no cat files under {}", dir.display());
        let statements = compare(&files);
        println!(
            "{sub}: {} files, {statements} statements alike",
            files.len()
        );
    }
}

#[test]
fn grammar_and_engine_agree_on_the_projects_models() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    cat_files(&src.join("axiomatic"), &mut files);
    cat_files(&src.join("cat/lib"), &mut files);
    assert!(files.len() >= 10);
    let statements = compare(&files);
    assert!(statements > 100);
}

#[test]
fn a_difference_is_caught() {
    // The comparison itself can fail: `r *` before a keyword is the closure for both, and a
    // shifted statement is seen.
    let src = "let a = r* let b = s\n";
    assert_eq!(engine_statements(src), grammar_statements(src));
    assert_eq!(
        grammar_statements(src),
        [("let", Some(0)), ("let", Some(11))]
    );
}
