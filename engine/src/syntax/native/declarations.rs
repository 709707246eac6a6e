//! Declarations of the native dialect: shared locations (scalars and arrays, constant
//! initialisers and sizes) and mutexes, each name declared once.

use super::{Native, MAX_ARRAY};
use crate::ast::{Dialect, Name, SharedDecl};
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::syntax::expr::{const_eval, ExprLowerer, Mode, Scope, Sym};
use crate::syntax::{children_by_field, field, span};
use std::collections::{BTreeSet, HashMap};
use tree_sitter::Node;
impl Native<'_, '_> {
    /// The span where `name` was first declared, if it was.
    fn declared(&self, name: &str) -> Option<Span> {
        match self.by_name.get(name)? {
            Sym::Shared(i) => Some(self.shared[*i].name.span),
            Sym::Mutex(i) => Some(self.mutexes[*i].span),
        }
    }

    fn duplicate(&mut self, name: &Name) -> bool {
        if let Some(first) = self.declared(&name.text) {
            self.diags.push(
                Diagnostic::error(name.span, format!("`{}` is already declared", name.text))
                    .with_related(first, "first declared here"),
            );
            return true;
        }
        false
    }

    pub(super) fn mutex(&mut self, node: Node) {
        let name = self.src.name(node);
        if !self.duplicate(&name) {
            self.by_name
                .insert(name.text.clone(), Sym::Mutex(self.mutexes.len()));
            self.mutexes.push(name);
        }
    }

    /// A constant expression in a declaration (no names allowed).
    fn constant(&mut self, node: Node, what: &str) -> Option<i64> {
        let empty = HashMap::new();
        let scope = Scope {
            shared: &[],
            by_name: &empty,
        };
        let mut regs = BTreeSet::new();
        let before = self.diags.len();
        let mut lw = ExprLowerer {
            src: self.src,
            scope: &scope,
            diags: self.diags,
            dialect: Dialect::Native,
            mode: Mode::Thread(&mut regs),
        };
        let e = lw.lower(node, 0);
        if self.diags.len() > before {
            return None;
        }
        match const_eval(&e) {
            Some(v) if regs.is_empty() => Some(v),
            None if regs.is_empty() => {
                self.error(span(node), format!("{what} divides by zero"));
                None
            }
            _ => {
                self.error(
                    span(node),
                    format!("{what} must be a constant (literals and operators, no names)"),
                );
                None
            }
        }
    }

    pub(super) fn shared_declarator(&mut self, node: Node) {
        let Some(name_node) = field(node, "name") else {
            return;
        };
        let name = self.src.name(name_node);
        let size = field(node, "size").and_then(|s| {
            let v = self.constant(s, "an array size")?;
            if v < 1 {
                self.error(span(s), format!("array size must be at least 1, not {v}"));
                None
            } else if v > MAX_ARRAY {
                self.error(
                    span(s),
                    format!("array size {v} is too large (at most {MAX_ARRAY})"),
                );
                None
            } else {
                Some(v as u32)
            }
        });
        let is_array = field(node, "size").is_some();
        let cells = size.unwrap_or(1) as usize;
        let mut init = vec![0i64; cells];
        if let Some(value) = field(node, "value") {
            match (value.kind() == "initializer_list", is_array) {
                (true, true) => {
                    let elems = children_by_field(value, "element");
                    for (i, el) in elems.iter().enumerate() {
                        if i >= cells {
                            if size.is_some() {
                                self.error(
                                    span(*el),
                                    format!(
                                        "too many initialisers: `{}` has {cells} cells",
                                        name.text
                                    ),
                                );
                            }
                            break;
                        }
                        if let Some(v) = self.constant(*el, "an initial value") {
                            init[i] = v;
                        }
                    }
                }
                (true, false) => self.error(
                    span(value),
                    format!(
                        "`{}` is a scalar; a list initialiser needs an array: `{}[N] = {{...}}`",
                        name.text, name.text
                    ),
                ),
                (false, true) => self.error(
                    span(value),
                    format!(
                        "an array is initialised with a list: `{}[N] = {{...}}`",
                        name.text
                    ),
                ),
                (false, false) => {
                    if let Some(v) = self.constant(value, "an initial value") {
                        init[0] = v;
                    }
                }
            }
        }
        if self.duplicate(&name) {
            return;
        }
        self.by_name
            .insert(name.text.clone(), Sym::Shared(self.shared.len()));
        // A broken size still declares an array (of one cell) so uses do not cascade.
        let size = if is_array {
            Some(size.unwrap_or(1))
        } else {
            None
        };
        self.shared.push(SharedDecl {
            name,
            size,
            init,
            span: span(node),
        });
    }
}
