fn main() {
    let src_dir = std::path::Path::new("src");

    let mut c_config = cc::Build::new();
    c_config.std("c11").include(src_dir);

    #[cfg(target_env = "msvc")]
    c_config.flag("-utf-8");

    if std::env::var("TARGET").unwrap() == "wasm32-unknown-unknown" {
        let Ok(wasm_headers) = std::env::var("DEP_TREE_SITTER_LANGUAGE_WASM_HEADERS") else {
            panic!("Environment variable DEP_TREE_SITTER_LANGUAGE_WASM_HEADERS must be set by the language crate");
        };

        c_config.include(&wasm_headers);
    }

    let parser_path = src_dir.join("parser.c");
    c_config.file(&parser_path);
    println!("cargo:rerun-if-changed={}", parser_path.to_str().unwrap());

    let scanner_path = src_dir.join("scanner.c");
    if scanner_path.exists() {
        c_config.file(&scanner_path);
        println!("cargo:rerun-if-changed={}", scanner_path.to_str().unwrap());
    }

    c_config.compile("tree-sitter-litmus");

    // The second language, herd's cat (grammar `cat/`), with its external scanner (nested
    // comments, the two meanings of `*`).
    let cat_dir = std::path::Path::new("cat/src");
    let mut cat_config = cc::Build::new();
    cat_config.std("c11").include(cat_dir);
    #[cfg(target_env = "msvc")]
    cat_config.flag("-utf-8");
    if std::env::var("TARGET").unwrap() == "wasm32-unknown-unknown" {
        if let Ok(wasm_headers) = std::env::var("DEP_TREE_SITTER_LANGUAGE_WASM_HEADERS") {
            cat_config.include(&wasm_headers);
        }
    }
    for file in ["parser.c", "scanner.c"] {
        let path = cat_dir.join(file);
        cat_config.file(&path);
        println!("cargo:rerun-if-changed={}", path.to_str().unwrap());
    }
    cat_config.compile("tree-sitter-cat");

    // Optional queries: a `cfg` for each one present (highlights and locals always are). The
    // directory is watched, not each file: a `rerun-if-changed` naming a file that does not
    // exist (injections.scm, tags.scm) makes cargo rerun this script, and so rebuild this crate,
    // the engine and the binary, on every build.
    println!("cargo:rerun-if-changed=queries");
    for (cfg, path) in [
        ("with_highlights_query", "queries/highlights.scm"),
        ("with_injections_query", "queries/injections.scm"),
        ("with_locals_query", "queries/locals.scm"),
        ("with_tags_query", "queries/tags.scm"),
    ] {
        println!("cargo:rustc-check-cfg=cfg({cfg})");
        if std::path::Path::new(path).exists() {
            println!("cargo:rustc-cfg={cfg}");
        }
    }
}
