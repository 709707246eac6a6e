//! Hovering a relation's name in a cat file while a test is open
//! (`docs/models.md#a-relations-pairs-in-the-execution-on-view`): the pairs the name holds in
//! the execution the axiomatic view of the most recently active test shows (its witness or its
//! forbidding execution): the hovered file's model run on that execution's base relations
//! (`litmus_engine::cat::evaluate`), or when that file does not load or run (or the execution
//! has no base: a C test's) the values the model it was checked under left
//! (`litmus_engine::cat::named_values`, kept in the view). Events are named as the view names
//! them (`e3`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use litmus_engine::cat::Named;
use tower_lsp_server::ls_types::Uri;

use crate::json::axview::AxView;
use crate::server::axiom;
use crate::server::ctx::Ctx;
use crate::server::util::lock;

/// At most this many pairs are listed; more are counted.
const SHOWN: usize = 24;

/// Marks `uri` as the most recently active test (opened, edited, saved, hovered, its view asked
/// for).
pub fn touch(ctx: &Ctx, uri: &Uri) {
    *lock(&ctx.shared.cat.active) = Some(uri.clone());
}

/// The view of the most recently active test, if it has an execution.
pub fn active_view(ctx: &Ctx) -> Option<std::sync::Arc<AxView>> {
    let uri = lock(&ctx.shared.cat.active).clone()?;
    let st = ctx.state();
    let d = st.docs.get(&uri)?;
    let v = axiom::current(d)?.as_ref().ok()?.clone();
    v.execution.is_some().then_some(v)
}

/// `(e1, e2), (e3, e4)`, `{e1, e2}`, or `empty`.
pub fn pairs_text(v: &Named) -> String {
    let (n, mut s) = match v {
        Named::Set(es) if es.is_empty() => return "empty".into(),
        Named::Rel(ps) if ps.is_empty() => return "empty".into(),
        Named::Set(es) => {
            let shown: Vec<String> = es.iter().take(SHOWN).map(|e| format!("e{e}")).collect();
            (es.len(), format!("{{{}}}", shown.join(", ")))
        }
        Named::Rel(ps) => {
            let shown: Vec<String> = ps
                .iter()
                .take(SHOWN)
                .map(|(a, b)| format!("(e{a}, e{b})"))
                .collect();
            (ps.len(), shown.join(", "))
        }
    };
    if n > SHOWN {
        let _ = write!(s, ", … ({n} in all)");
    }
    s
}

/// The values of the hovered file's model run on the view's execution (its base relations):
/// `None` when the execution has none (a C test's) or the file is no model that loads and runs
/// (then the checked model's values are shown).
pub fn evaluated(
    view: &AxView,
    path: &Path,
    text: &str,
    search: &[PathBuf],
) -> Option<Vec<(String, Named)>> {
    let x = view.execution.as_ref()?;
    if x.base.is_empty() {
        return None;
    }
    let model = crate::catmodel::load::load_text(path, text, search).ok()?;
    litmus_engine::cat::evaluate(&model, x.nodes.len(), &x.base).ok()
}

/// The hover's paragraph for `name` in the view's execution: its value under the hovered file
/// (`own`: the file's name and values) when that file runs on it, else under the model the
/// test was checked under.
pub fn paragraph(
    view: &AxView,
    name: &str,
    own: Option<(&str, &[(String, Named)])>,
) -> Option<String> {
    let x = view.execution.as_ref()?;
    let role = if x.role == "forbidden" {
        "forbidden execution"
    } else {
        "witness"
    };
    let (model, values) = match own {
        Some((file, v)) => (file.to_string(), v),
        None => (view.model.clone(), &x.values[..]),
    };
    let head = format!("**In {}'s {role}** (under {model}):", view.test);
    match values.iter().find(|(k, _)| k == name) {
        Some((_, v)) => Some(format!("{head} `{name}`: {}", pairs_text(v))),
        None => Some(format!(
            "{head} `{name}` has no value (not defined by that model, or only after a check \
             that fails on this execution)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_named_as_the_view_names_events() {
        assert_eq!(pairs_text(&Named::Rel(vec![])), "empty");
        assert_eq!(pairs_text(&Named::Set(vec![])), "empty");
        assert_eq!(
            pairs_text(&Named::Rel(vec![(1, 2), (3, 4)])),
            "(e1, e2), (e3, e4)"
        );
        assert_eq!(pairs_text(&Named::Set(vec![0, 5])), "{e0, e5}");
        let many = Named::Rel((0..30).map(|i| (i, i + 1)).collect());
        let t = pairs_text(&many);
        assert!(t.ends_with(", … (30 in all)"), "{t}");
        assert_eq!(t.matches("(e").count(), SHOWN);
    }
}
