//! The cat grammar (`cat/grammar.js`, [`tree_sitter_litmus::LANGUAGE_CAT`]): every model of
//! herd's library and of the Linux kernel parses without an error, operators bind as in herd's
//! grammar (and the project's parser, `engine/src/cat/parse.rs`), and the queries compile and
//! capture what the editors rely on. The tree shapes of the constructs are in
//! `cat/test/corpus/*.txt` (run by `tests/corpus.rs`).

use std::path::{Path, PathBuf};
use tree_sitter::{Node, Parser, Query, QueryCursor, StreamingIterator, Tree};

fn language() -> tree_sitter::Language {
    tree_sitter_litmus::LANGUAGE_CAT.into()
}

fn parse(src: &str) -> Tree {
    let mut parser = Parser::new();
    parser.set_language(&language()).unwrap();
    parser.parse(src, None).unwrap()
}

/// The first ERROR or MISSING node, as `line:column kind`.
fn first_error(node: Node) -> Option<String> {
    if node.is_error() || node.is_missing() {
        let p = node.start_position();
        let what = if node.is_missing() {
            format!("MISSING {}", node.kind())
        } else {
            "ERROR".to_string()
        };
        return Some(format!("{}:{} {what}", p.row + 1, p.column + 1));
    }
    let mut cursor = node.walk();
    let children: Vec<Node> = node.children(&mut cursor).collect();
    children.into_iter().find_map(first_error)
}

fn models_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            models_under(&path, out);
        } else if path.extension().is_some_and(|e| e == "cat" || e == "bell") {
            out.push(path);
        }
    }
}

/// Every `.cat` and `.bell` file of herd's library (with its subfolders) and of the kernel's
/// model parses with no ERROR or MISSING node.
#[test]
fn herd_library_and_kernel_model_parse_without_errors() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    let dirs = [
        shared.join("cat-corpus/herd-libdir"),
        shared.join("conformance/linux/model"),
    ];
    let mut files = Vec::new();
    for dir in &dirs {
        if !dir.is_dir() {
            println!("SKIPPED: {} is absent", dir.display());
            return;
        }
        let before = files.len();
        models_under(dir, &mut files);
        assert!(files.len() > before, "no model in {}", dir.display());
    }
    let mut failures = Vec::new();
    for file in &files {
        let src = std::fs::read_to_string(file).unwrap();
        let tree = parse(&src);
        let root = tree.root_node();
        assert_eq!(root.kind(), "source_file");
        if let Some(e) = first_error(root) {
            failures.push(format!("{}:{e}", file.display()));
        } else {
            assert!(!root.has_error());
            // Something was read: at least one statement (a model is never only comments).
            assert!(root.named_child_count() > 0, "{} is empty", file.display());
        }
    }
    println!("cat grammar: {} files parsed", files.len());
    assert!(
        failures.is_empty(),
        "{} of {} files do not parse:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// The project's own models (`engine/src/axiomatic/*.cat`) and cat library
/// (`engine/src/cat/lib/*.cat`) parse too: these are in the repository, so this runs everywhere.
#[test]
fn project_models_parse_without_errors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/src");
    let mut files = Vec::new();
    models_under(&root.join("axiomatic"), &mut files);
    models_under(&root.join("cat/lib"), &mut files);
    assert!(files.len() >= 10, "{files:?}");
    for file in &files {
        let src = std::fs::read_to_string(file).unwrap();
        let tree = parse(&src);
        assert_eq!(first_error(tree.root_node()), None, "{}", file.display());
    }
    println!("cat grammar: {} project models parsed", files.len());
}

/// The tree of an expression with its operators: `(| a (; b c))`, `(~ (* r))`, `(app f x)`.
fn shape(node: Node, src: &str) -> String {
    let text = |n: Node| src[n.byte_range()].to_string();
    let child = |f: &str| node.child_by_field_name(f).unwrap();
    match node.kind() {
        "binary_expression" => format!(
            "({} {} {})",
            text(child("operator")),
            shape(child("left"), src),
            shape(child("right"), src)
        ),
        "complement_expression" => format!("(~ {})", shape(child("operand"), src)),
        "postfix_expression" => {
            let operand = child("operand");
            let op = src[operand.end_byte()..node.end_byte()].replace(' ', "");
            format!("({op} {})", shape(operand, src))
        }
        "application" => {
            let mut cursor = node.walk();
            let args: Vec<String> = node
                .children_by_field_name("argument", &mut cursor)
                .map(|a| shape(a, src))
                .collect();
            format!("(app {} {})", text(child("function")), args.join(" "))
        }
        "parenthesized_expression" => shape(node.named_child(0).unwrap(), src),
        "tuple_expression" => {
            let mut cursor = node.walk();
            let items: Vec<String> = node
                .named_children(&mut cursor)
                .map(|a| shape(a, src))
                .collect();
            format!("(, {})", items.join(" "))
        }
        "identifier" | "tag" => text(node),
        other => other.to_string(),
    }
}

/// The value of the first binding of `let x = EXPR`.
fn expr_shape(expr: &str) -> String {
    let src = format!("let x = {expr}\n");
    let tree = parse(&src);
    assert!(
        !tree.root_node().has_error(),
        "{expr}: {}",
        tree.root_node().to_sexp()
    );
    let value = tree
        .root_node()
        .named_child(0)
        .and_then(|s| s.child_by_field_name("binding"))
        .and_then(|b| b.child_by_field_name("value"))
        .unwrap();
    shape(value, &src)
}

#[test]
fn operators_bind_as_in_herds_grammar() {
    for (expr, expected) in [
        // loosest first: `|`, `++`, `;`, `\`, `&`, `*`
        ("a | b ; c", "(| a (; b c))"),
        ("a ; b | c", "(| (; a b) c)"),
        ("e ++ S | T", "(| (++ e S) T)"),
        ("a ; b ++ c", "(++ (; a b) c)"),
        ("a \\ b ; c", "(; (\\ a b) c)"),
        ("a & b \\ c", "(\\ (& a b) c)"),
        ("a \\ b & c", "(\\ a (& b c))"),
        ("R * W & M", "(& (* R W) M)"),
        // associativity: `\` and `*` to the left, the others to the right
        ("a \\ b \\ c", "(\\ (\\ a b) c)"),
        ("a | b | c", "(| a (| b c))"),
        ("a ; b ; c", "(; a (; b c))"),
        ("a & b & c", "(& a (& b c))"),
        ("A * B * C", "(* (* A B) C)"),
        // `*`: the cartesian product before an operand, else the closure
        ("r*", "(* r)"),
        ("r* ; s", "(; (* r) s)"),
        ("r * s", "(* r s)"),
        ("r*s", "(* r s)"),
        ("r?*", "(* (? r))"),
        ("(po ; rf)* | co", "(| (* (; po rf)) co)"),
        ("R * (W | F)", "(* R (| W F))"),
        ("r * ~s", "(* r (~ s))"),
        ("r * 'a", "(* r 'a)"),
        ("r * begin s end", "(* r begin_expression)"),
        // prefix `~` is looser than the postfix operators, tighter than `*` and the rest
        ("~r*", "(~ (* r))"),
        ("~r * s", "(* (~ r) s)"),
        ("~r ; s", "(; (~ r) s)"),
        ("~r^-1", "(~ (^-1 r))"),
        ("r^-1+", "(+ (^-1 r))"),
        ("r -1", "(-1 r)"),
        ("r^ -1", "(^-1 r)"),
        // application by juxtaposition binds tightest
        ("f x^-1", "(^-1 (app f x))"),
        ("~f x", "(~ (app f x))"),
        ("map f S | T", "(| (app map f S) T)"),
        (
            "domain(rmw) ; range(rmw)",
            "(; (app domain rmw) (app range rmw))",
        ),
        ("f(a, b)", "(app f (, a b))"),
        // a tuple is looser than every operator
        ("a, b | c", "(, a (| b c))"),
    ] {
        assert_eq!(expr_shape(expr), expected, "{expr}");
    }
}

#[test]
fn names_keywords_and_comments_lex_as_herds() {
    // `-` and `.` inside names, but `x->` is `x` then `->`; a primed name.
    assert_eq!(expr_shape("po-loc ; fr.ext"), "(; po-loc fr.ext)");
    assert_eq!(expr_shape("r-1"), "r-1");
    let tree = parse("let f = fun x->x'\n");
    assert!(!tree.root_node().has_error());
    // Nested comments, and `//`, `#` line comments.
    let src = "(* a (* b *) c *)\nlet x = po // d\n# e\nlet y = rf (* f *)\n";
    let tree = parse(src);
    let root = tree.root_node();
    assert!(!root.has_error(), "{}", root.to_sexp());
    let mut cursor = root.walk();
    let comments: Vec<&str> = root
        .named_children(&mut cursor)
        .filter(|n| n.kind() == "comment")
        .map(|n| &src[n.byte_range()])
        .collect();
    assert_eq!(comments, ["(* a (* b *) c *)", "// d", "# e", "(* f *)"]);
    // A keyword is not a name.
    assert!(parse("let in = po\n").root_node().has_error());
    // An unterminated comment is an error, not a hang.
    let src = "let x = po\n(* open";
    assert!(parse(src).root_node().named_child_count() >= 1);
}

/// Captures of `query` on `src`: (capture name, text), in order.
fn captures(query_src: &str, src: &str) -> Vec<(String, String)> {
    let query = Query::new(&language(), query_src).expect("valid query");
    let tree = parse(src);
    assert!(!tree.root_node().has_error());
    let mut cursor = QueryCursor::new();
    let mut out = Vec::new();
    let mut matches = cursor.matches(&query, tree.root_node(), src.as_bytes());
    while let Some(m) = matches.next() {
        for c in m.captures() {
            out.push((
                query.capture_names()[c.index as usize].to_string(),
                src[c.node.byte_range()].to_string(),
            ));
        }
    }
    out
}

fn has(caps: &[(String, String)], name: &str, text: &str) -> bool {
    caps.iter().any(|(n, t)| n == name && t == text)
}

const SAMPLE: &str = r#""SC" (* the model *)
include "cos.cat"
let com = rf | co | fr
let f(x, y) = x ; y
let g = fun z -> z^-1
procedure p(a) =
  acyclic a as cyc
end
call p(po) as named
flag ~empty f(po, com) as racy
enum Kinds = 'once || 'release
let m = match t with 'once -> 0 || _ -> domain(po) end
forall e in S do
  empty e
end
"#;

#[test]
fn highlights_query_compiles_and_captures() {
    let caps = captures(tree_sitter_litmus::CAT_HIGHLIGHTS_QUERY, SAMPLE);
    for (name, text) in [
        ("comment", "(* the model *)"),
        ("title", "\"SC\""),
        ("keyword.import", "include"),
        ("string.special.path", "\"cos.cat\""),
        ("keyword", "let"),
        ("keyword", "acyclic"),
        ("keyword", "flag"),
        ("keyword", "empty"),
        ("keyword", "as"),
        ("keyword.function", "fun"),
        ("keyword.function", "procedure"),
        ("keyword.conditional", "match"),
        ("keyword.repeat", "forall"),
        ("operator", "|"),
        ("operator", "~"),
        ("operator", "^-1"),
        ("operator", "->"),
        ("variable", "com"),
        ("function", "f"),
        ("function", "g"),
        ("function", "p"),
        ("variable.parameter", "x"),
        ("variable.parameter", "z"),
        ("variable.parameter", "a"),
        ("function.call", "f"),
        ("function.call", "p"),
        ("function.builtin", "domain"),
        ("variable.builtin", "po"),
        ("constant", "'once"),
        ("constant.builtin", "0"),
        ("type", "Kinds"),
        ("label", "cyc"),
        ("label", "racy"),
        ("label", "named"),
    ] {
        assert!(has(&caps, name, text), "no @{name} on `{text}`");
    }
}

#[test]
fn locals_query_scopes_parameters() {
    let caps = captures(tree_sitter_litmus::CAT_LOCALS_QUERY, SAMPLE);
    for (name, text) in [
        ("local.definition.var", "com"),
        ("local.definition.function", "f"),
        ("local.definition.parameter", "x"),
        ("local.definition.parameter", "z"),
        ("local.definition.function", "p"),
        ("local.definition.parameter", "a"),
        ("local.definition.var", "e"),
        ("local.definition.type", "Kinds"),
        ("local.reference", "rf"),
        ("local.scope", "fun z -> z^-1"),
        ("local.scope", "f(x, y) = x ; y"),
    ] {
        let found = caps
            .iter()
            .any(|(n, t)| n == name && (t == text || t.starts_with(text) && name == "local.scope"));
        assert!(found, "no @{name} on `{text}`");
    }
    // The procedure is a scope of its own.
    assert!(caps
        .iter()
        .any(|(n, t)| n == "local.scope" && t.starts_with("procedure p(a)")));
}

#[test]
fn folds_query_folds_blocks() {
    let caps = captures(tree_sitter_litmus::CAT_FOLDS_QUERY, SAMPLE);
    let folds: Vec<&str> = caps
        .iter()
        .filter(|(n, _)| n == "fold")
        .map(|(_, t)| t.lines().next().unwrap())
        .collect();
    for first_line in [
        "(* the model *)",
        "procedure p(a) =",
        "forall e in S do",
        "let com = rf | co | fr",
        "match t with 'once -> 0 || _ -> domain(po) end",
    ] {
        assert!(
            folds.contains(&first_line),
            "no fold at `{first_line}`: {folds:?}"
        );
    }
}

#[test]
fn node_types_list_the_cat_nodes() {
    for kind in [
        "source_file",
        "header",
        "let_statement",
        "binding",
        "check_statement",
        "procedure_statement",
        "match_expression",
        "binary_expression",
        "postfix_expression",
        "application",
        "tag",
    ] {
        assert!(
            tree_sitter_litmus::CAT_NODE_TYPES.contains(&format!("\"type\": \"{kind}\"")),
            "{kind} missing"
        );
    }
}

/// `cat/src/parser.c` is what `tree-sitter generate` makes of `cat/grammar.js` in `grammar/cat/`
/// (skipped without the CLI).
#[test]
fn cat_generated_parser_is_fresh() {
    let Ok(out) = std::process::Command::new("tree-sitter")
        .arg("--version")
        .output()
    else {
        println!("SKIPPED: the tree-sitter CLI is not installed");
        return;
    };
    let version = String::from_utf8_lossy(&out.stdout);
    if !version.contains("0.27") {
        println!("SKIPPED: tree-sitter CLI {version} is not 0.27");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = std::env::temp_dir().join(format!("litmus-cat-grammar-fresh-{}", std::process::id()));
    std::fs::create_dir_all(tmp.join("cat")).unwrap();
    for f in ["grammar.js", "package.json", "tree-sitter.json"] {
        std::fs::copy(root.join("cat").join(f), tmp.join("cat").join(f)).unwrap();
    }
    let status = std::process::Command::new("tree-sitter")
        .arg("generate")
        .env("TREE_SITTER_JS_RUNTIME", "native")
        .current_dir(tmp.join("cat"))
        .status()
        .unwrap();
    assert!(status.success());
    for f in ["src/parser.c", "src/grammar.json", "src/node-types.json"] {
        let fresh = std::fs::read_to_string(tmp.join("cat").join(f)).unwrap();
        let committed = std::fs::read_to_string(root.join("cat").join(f)).unwrap();
        assert!(
            fresh == committed,
            "cat/{f} is stale: run `tree-sitter generate` in grammar/cat/"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The grammar's reserved words and the scanner's keywords (after a `*`, a keyword other than
/// `begin` starts no operand) are the engine's (`engine/src/cat/lex.rs`, `KEYWORDS`).
#[test]
fn keywords_are_the_engines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lex = std::fs::read_to_string(root.join("../engine/src/cat/lex.rs")).unwrap();
    let start = lex.find("KEYWORDS: [&str;").expect("KEYWORDS in lex.rs");
    let list = &lex[start..];
    let list = &list[list.find("= [").unwrap() + 3..list.find("];").unwrap()];
    let keywords: Vec<&str> = list
        .split(',')
        .map(|k| k.trim().trim_matches('"'))
        .filter(|k| !k.is_empty())
        .collect();
    assert!(keywords.len() >= 30, "{keywords:?}");
    let scanner = std::fs::read_to_string(root.join("cat/src/scanner.c")).unwrap();
    for kw in keywords {
        let tree = parse(&format!("let {kw} = po\n"));
        assert!(tree.root_node().has_error(), "`{kw}` is not reserved");
        if kw != "begin" {
            assert!(
                scanner.contains(&format!("\"{kw}\"")),
                "`{kw}` missing from the scanner's keywords"
            );
        }
    }
}
