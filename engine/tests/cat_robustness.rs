//! The cat parser and interpreter never panic: mutations of the project's own models and
//! library, and random cat token soup, give a model or an error inside the text; a model that
//! parses runs on a small execution to a verdict or an error.

mod syntax_support;
mod tier;

use proptest::prelude::*;
use syntax_support::char_floor;

proptest! {
    #![proptest_config(ProptestConfig { cases: tier::sweep(64, 400) as u32, ..ProptestConfig::default() })]

    /// The cat parser on mutations of the project's own models and library: a model or an
    /// error inside the text, never a panic; and a model that parses runs on a small
    /// execution to a verdict or an error, never a panic.
    #[test]
    fn cat_mutations(at in 0usize..20_000, len in 0usize..12, insert in proptest::sample::select(CAT_TOKENS), which in 0usize..CAT_SEEDS.len()) {
        let (name, src) = CAT_SEEDS[which];
        let start = char_floor(src, at % src.len());
        let end = char_floor(src, (start + len).min(src.len())).max(start);
        let mut text = src.to_string();
        text.replace_range(start..end, insert);
        check_cat(name, &text)?;
    }

    /// Random cat token soup after a model's header.
    #[test]
    fn cat_token_soup(tokens in proptest::collection::vec(proptest::sample::select(CAT_TOKENS), 0..60)) {
        let mut text = String::from("\"soup\"\n");
        for t in tokens {
            text.push_str(t);
            text.push(' ');
        }
        check_cat("soup", &text)?;
    }
}

/// The project's cat files: its models and its library.
const CAT_SEEDS: [(&str, &str); 11] = [
    ("aarch64.cat", litmus_engine::axiomatic::AARCH64_CAT),
    ("riscv.cat", litmus_engine::axiomatic::RISCV_CAT),
    ("ppc.cat", litmus_engine::axiomatic::PPC_CAT),
    ("arm.cat", litmus_engine::axiomatic::ARM_CAT),
    ("sc.cat", litmus_engine::axiomatic::SC_CAT),
    ("x86tso.cat", litmus_engine::axiomatic::X86TSO_CAT),
    ("rc11.cat", litmus_engine::axiomatic::RC11_CAT),
    ("stdlib.cat", litmus_engine::cat::LIBRARY[0].1),
    ("cross.cat", litmus_engine::cat::LIBRARY[1].1),
    ("cos-opt.cat", litmus_engine::cat::LIBRARY[2].1),
    ("cos.cat", litmus_engine::cat::LIBRARY[3].1),
];

const CAT_TOKENS: &[&str] = &[
    "let",
    "let rec",
    "and",
    "in",
    "fun",
    "->",
    "try",
    "with",
    "from",
    "match",
    "||",
    "end",
    "if",
    "then",
    "else",
    "begin",
    "acyclic",
    "irreflexive",
    "empty",
    "~",
    "as",
    "flag",
    "undefined_unless",
    "assert",
    "include",
    "\"cos.cat\"",
    "\"missing.cat\"",
    "show",
    "procedure",
    "call",
    "forall",
    "do",
    "enum",
    "instructions",
    "R[{'a,'b}]",
    "'tag",
    "\"lkmmv2\"",
    "variant",
    "not",
    "&&",
    "|",
    ";",
    "&",
    "\\",
    "*",
    "+",
    "?",
    "^-1",
    "-1",
    "^",
    "++",
    "=",
    ",",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "{}",
    "_",
    "0",
    "po",
    "rf",
    "co",
    "fr",
    "loc",
    "id",
    "R",
    "W",
    "M",
    "F",
    "IW",
    "x",
    "f x",
    "map",
    "domain",
    "range",
    "fencerel",
    "linearisations",
    "classes-loc",
    "different-values",
    "tag2set",
    "(*",
    "*)",
    "//",
    "#",
    "\"",
    "'",
    "\n",
    " ",
    "é",
    "\u{0}",
];

/// A mutated cat file: parsed alone and as a model (with the project's library for its
/// includes): errors lie inside the text; a model that parses runs on a small execution.
fn check_cat(name: &str, text: &str) -> Result<(), TestCaseError> {
    use litmus_engine::cat::{parse_file, Model};
    if let Err(e) = parse_file(text) {
        prop_assert!(e.offset <= text.len(), "{name}: {e:?} outside the text");
        prop_assert!(!e.message.is_empty());
    }
    match Model::parse(text, &|_| None) {
        Err(e) => {
            // an error in an included library file has its own offsets
            if e.file.is_none() {
                prop_assert!(e.offset <= text.len(), "{name}: {e:?} outside the text");
            }
            prop_assert!(!e.message.is_empty());
        }
        Ok(model) => {
            let mut env = small_execution();
            if let Err(e) = model.run(&mut env) {
                prop_assert!(!e.message.is_empty(), "{name}: an empty error");
            }
        }
    }
    Ok(())
}

/// MP's stale read as a candidate: `W x; W y || R y; R x` (x read from the initial write),
/// with every set and relation the project's models read (empty where unused).
fn small_execution() -> litmus_engine::cat::Env {
    use litmus_engine::cat::rel::Rel;
    use litmus_engine::cat::{Env, Value};
    // 0: init x, 1: init y, 2: W x (P0), 3: W y (P0), 4: R y (P1), 5: R x (P1)
    let n = 6;
    let rel = |pairs: &[(usize, usize)]| {
        let mut r = Rel::empty(n);
        for &(a, b) in pairs {
            r.add(a, b);
        }
        Value::Rel(r)
    };
    let mut env = Env::new(n);
    let sets: [(&str, u128); 6] = [
        ("R", 0b110000),
        ("W", 0b001111),
        ("M", 0b111111),
        ("F", 0),
        ("IW", 0b000011),
        ("FW", 0b001100),
    ];
    for (k, v) in sets {
        env.vars.insert(k.into(), Value::Set(v));
    }
    let tags = litmus_engine::axiomatic::KNOWN_TAGS
        .iter()
        .chain(&litmus_engine::axiomatic::C11_ORDER_SETS);
    for t in tags {
        env.vars.insert(t.to_string(), Value::Set(0));
    }
    let same_loc = [
        (0, 2),
        (2, 0),
        (0, 5),
        (5, 0),
        (2, 5),
        (5, 2),
        (1, 3),
        (3, 1),
        (1, 4),
        (4, 1),
        (3, 4),
        (4, 3),
    ];
    let ids: Vec<(usize, usize)> = (0..n).map(|i| (i, i)).collect();
    let loc: Vec<(usize, usize)> = same_loc
        .iter()
        .copied()
        .chain(ids.iter().copied())
        .collect();
    let int = [
        (2, 3),
        (3, 2),
        (4, 5),
        (5, 4),
        (2, 2),
        (3, 3),
        (4, 4),
        (5, 5),
    ];
    let ext: Vec<(usize, usize)> = (0..n)
        .flat_map(|a| (0..n).map(move |b| (a, b)))
        .filter(|p| p.0 != p.1 && !int.contains(p))
        .collect();
    let vars: [(&str, Vec<(usize, usize)>); 12] = [
        ("po", vec![(2, 3), (4, 5)]),
        ("loc", loc),
        ("int", int.to_vec()),
        ("ext", ext),
        ("id", ids),
        ("rf", vec![(3, 4), (0, 5)]),
        ("fr", vec![(5, 2)]),
        ("co", vec![(0, 2), (1, 3)]),
        ("rmw", vec![]),
        ("addr", vec![]),
        ("data", vec![]),
        ("ctrl", vec![]),
    ];
    for (k, pairs) in &vars {
        env.vars.insert(k.to_string(), rel(pairs));
    }
    // what the axiomatic engine adds: the internal and external parts of rf, co and fr,
    // po-loc, and AArch64's pick dependencies
    for (k, pairs) in &vars[5..8] {
        let (i, e): (Vec<_>, Vec<_>) = pairs.iter().partition(|p| int.contains(p));
        env.vars.insert(format!("{k}i"), rel(&i));
        env.vars.insert(format!("{k}e"), rel(&e));
    }
    env.vars.insert("po-loc".into(), rel(&[]));
    for k in ["pick", "pick-addr", "pick-data", "pick-ctrl"] {
        env.vars.insert(k.into(), rel(&[]));
    }
    env.values = vec![Some(0), Some(0), Some(1), Some(1), Some(1), Some(0)];
    env
}

#[test]
fn the_cat_seeds_are_valid() {
    // Each cat seed parses and judges the small execution (MP's stale read).
    for (name, src) in CAT_SEEDS {
        let m = litmus_engine::cat::Model::parse(src, &|_| None)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if !matches!(name, "stdlib.cat" | "cross.cat" | "cos-opt.cat" | "cos.cat") {
            let out = m
                .run(&mut small_execution())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            // forbidden under SC and TSO, allowed under the weak models (no order asked)
            let forbidden = out.failed.is_some();
            assert_eq!(
                forbidden,
                matches!(name, "sc.cat" | "x86tso.cat"),
                "{name}: {out:?}"
            );
        }
    }
}
