//! The bundled queries compile against the grammar, the node types are valid JSON-ish text,
//! and (where the tree-sitter CLI is installed) the committed generated parser is fresh.

use std::path::Path;
use std::process::Command;

fn language() -> tree_sitter::Language {
    tree_sitter_litmus::LANGUAGE.into()
}

#[test]
fn highlights_query_compiles_and_captures() {
    let query = tree_sitter::Query::new(&language(), tree_sitter_litmus::HIGHLIGHTS_QUERY)
        .expect("valid query");
    assert!(query.capture_names().contains(&"keyword"));
    assert!(query.capture_names().contains(&"comment"));
}

#[test]
fn locals_query_compiles() {
    tree_sitter::Query::new(&language(), tree_sitter_litmus::LOCALS_QUERY).expect("valid query");
}

#[test]
fn node_types_lists_the_front_end_nodes() {
    for kind in [
        "native_test",
        "x86_test",
        "assignment_expression",
        "x86_instruction",
        "thread_register",
        "asm_test",
        "asm_instruction",
        "mnemonic",
        "arm_address",
        "riscv_address",
        "c_test",
        "c_thread",
        "c_call",
        "c_declaration",
    ] {
        assert!(
            tree_sitter_litmus::NODE_TYPES.contains(&format!("\"type\": \"{kind}\"")),
            "{kind} missing"
        );
    }
}

/// `src/parser.c` is what `tree-sitter generate` makes of `grammar.js` (skipped without the CLI).
#[test]
fn generated_parser_is_fresh() {
    let Ok(out) = Command::new("tree-sitter").arg("--version").output() else {
        eprintln!("skipping: the tree-sitter CLI is not installed");
        return;
    };
    let version = String::from_utf8_lossy(&out.stdout);
    if !version.contains("0.27") {
        eprintln!("skipping: tree-sitter CLI {version} is not 0.27");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = std::env::temp_dir().join(format!("litmus-grammar-fresh-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for f in ["grammar.js", "package.json", "tree-sitter.json"] {
        std::fs::copy(root.join(f), tmp.join(f)).unwrap();
    }
    let status = Command::new("tree-sitter")
        .arg("generate")
        .env("TREE_SITTER_JS_RUNTIME", "native")
        .current_dir(&tmp)
        .status()
        .unwrap();
    assert!(status.success());
    for f in ["src/parser.c", "src/grammar.json", "src/node-types.json"] {
        let fresh = std::fs::read_to_string(tmp.join(f)).unwrap();
        let committed = std::fs::read_to_string(root.join(f)).unwrap();
        assert!(
            fresh == committed,
            "{f} is stale: run `tree-sitter generate` in grammar/"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
