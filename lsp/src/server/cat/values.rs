//! Hovering a relation's name in a cat file while a test is open
//! (`docs/models.md#a-relations-pairs-in-the-execution-on-view`): the pairs the name holds in
//! the execution the axiomatic view of the most recently active test shows (its witness or its
//! forbidding execution), as the model it was checked under left them
//! (`litmus_engine::cat::named_values`, kept in the view). Events are named as the view names
//! them (`e3`).

use std::fmt::Write as _;

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

/// The hover's paragraph for `name` in the view's execution.
pub fn paragraph(view: &AxView, name: &str) -> Option<String> {
    let x = view.execution.as_ref()?;
    let role = if x.role == "forbidden" {
        "forbidden execution"
    } else {
        "witness"
    };
    let head = format!("**In {}'s {role}** (under {}):", view.test, view.model);
    match x.values.iter().find(|(k, _)| k == name) {
        Some((_, v)) => Some(format!("{head} `{name}`: {}", pairs_text(v))),
        None if x.role == "forbidden" => Some(format!(
            "{head} `{name}` has no value (not defined by that model before the check that \
             forbids the execution)"
        )),
        None => Some(format!(
            "{head} `{name}` has no value (not defined by that model)"
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
