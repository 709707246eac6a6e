//! `cat::outline`: what an editor needs of one cat file (definitions, uses, scopes, comments,
//! includes, errors); `docs/cat.md#in-the-editor`.

use litmus_engine::cat::{outline, DefKind, TokenKind};

fn at(src: &str, needle: &str, nth: usize) -> usize {
    src.match_indices(needle).nth(nth).expect(needle).0
}

const SRC: &str = r#""Test model"
include "cross.cat"

(* Observed-by: external communication. *)
let obs = rfe | coe
let f(x, y) = x ; y | obs
let g = fun obs -> obs | po
let rec hb = po | hb ; hb
and sw = rf ; [A]
let loc2 = let z = po in z ; z
procedure p(r) = acyclic r end
enum Accesses = 'once || 'release
acyclic obs | f(po, rf) as ob
with c from cross(obs)
let uses = c | missing
"#;

#[test]
fn definitions_with_kinds_and_documentation() {
    let o = outline(SRC);
    assert!(o.error.is_none(), "{:?}", o.error);
    let globals: Vec<(&str, DefKind)> = o
        .defs
        .iter()
        .filter(|d| !d.is_local())
        .map(|d| (d.name.as_str(), d.kind))
        .collect();
    assert_eq!(
        globals,
        [
            ("obs", DefKind::Let),
            ("f", DefKind::Function),
            ("g", DefKind::Function),
            ("hb", DefKind::Let),
            ("sw", DefKind::Let),
            ("loc2", DefKind::Let),
            ("p", DefKind::Procedure),
            ("Accesses", DefKind::Enum),
            ("c", DefKind::Choice),
            ("uses", DefKind::Let),
        ]
    );
    let obs = &o.defs[0];
    assert_eq!(
        obs.doc.as_deref(),
        Some("Observed-by: external communication.")
    );
    assert_eq!(obs.span.start as usize, at(SRC, "obs", 0));
    assert!(SRC[obs.stmt.range()].starts_with("let obs = rfe | coe"));
    assert!(o.defs.iter().find(|d| d.name == "f").unwrap().doc.is_none());
    let locals: Vec<&str> = o
        .defs
        .iter()
        .filter(|d| d.is_local())
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(locals, ["x", "y", "obs", "z", "r"]);
    assert_eq!(o.includes, [("cross.cat".to_string(), o.includes[0].1)]);
    assert_eq!(&SRC[o.includes[0].1.range()], "\"cross.cat\"");
    assert_eq!(o.checks.len(), 2);
    assert_eq!(o.checks[1].1.as_deref(), Some("ob"));
}

#[test]
fn uses_resolve_to_locals_and_globals_by_statement() {
    let o = outline(SRC);
    // `obs` inside `g` is g's parameter; inside `f` the global.
    let in_g = at(SRC, "obs | po", 0);
    let u = o
        .uses
        .iter()
        .find(|u| u.span.start as usize == in_g)
        .unwrap();
    let local = u.local.expect("a local");
    assert_eq!(o.defs[local].span.start as usize, at(SRC, "obs ->", 0));
    let in_f = at(SRC, "obs\n", 0);
    let u = o
        .uses
        .iter()
        .find(|u| u.span.start as usize == in_f)
        .unwrap();
    assert_eq!(u.local, None);
    assert_eq!(o.global("obs", in_f), Some(0));
    // let rec sees itself; a plain let does not.
    let hb_use = at(SRC, "hb ; hb", 0);
    assert_eq!(o.defs[o.global("hb", hb_use).unwrap()].name, "hb");
    assert_eq!(o.global("uses", at(SRC, "uses", 0)), None);
    // a name used in its own (non-rec) definition is the earlier one or none
    assert_eq!(o.global("missing", at(SRC, "missing", 0)), None);
    // named checks are not uses
    assert!(!o.uses.iter().any(|u| u.name == "ob"));
    // the use of the choice
    assert!(o.global("c", at(SRC, "c | missing", 0)).is_some());
    // comments are tokens
    assert!(o
        .tokens
        .iter()
        .any(|(s, k)| *k == TokenKind::Comment && SRC[s.range()].starts_with("(* Observed")));
    assert!(o
        .tokens
        .iter()
        .any(|(s, k)| *k == TokenKind::Tag && &SRC[s.range()] == "'once"));
}

#[test]
fn a_file_that_does_not_parse_still_has_its_outline() {
    let src = "let a = po\nlet b = a | (rf\nlet c = b\n";
    let o = outline(src);
    let e = o.error.as_ref().expect("an error");
    assert!(e.offset >= at(src, "let c", 0), "{e:?}");
    let names: Vec<&str> = o.defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(o.global("a", at(src, "a |", 0)), Some(0));
    let src = "let a = po\nlet b = a $ rf\n";
    let o = outline(src);
    assert_eq!(o.error.as_ref().map(|e| e.offset), Some(at(src, "$", 0)));
    assert_eq!(o.defs.len(), 2);
}

#[test]
fn the_builtin_models_outline_without_unknown_names() {
    use litmus_engine::axiomatic::{KNOWN_TAGS, SUPPLIED};
    let stdlib = outline(litmus_engine::cat::library_file("stdlib.cat").unwrap());
    for src in [
        litmus_engine::axiomatic::AARCH64_CAT,
        litmus_engine::axiomatic::RISCV_CAT,
    ] {
        let o = outline(src);
        assert!(o.error.is_none());
        for u in &o.uses {
            let known = u.local.is_some()
                || o.global(&u.name, u.span.start as usize).is_some()
                || stdlib.exported(&u.name).is_some()
                || SUPPLIED.contains(&u.name.as_str())
                || KNOWN_TAGS.contains(&u.name.as_str())
                || litmus_engine::cat::BUILTIN_FUNCTIONS.contains(&u.name.as_str());
            assert!(known, "unknown name {} at {}", u.name, u.span.start);
        }
    }
}
