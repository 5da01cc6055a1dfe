//! The tables a statement names, and the column references resolved against them.

use super::{Checker, ScopeEntry, Typed, ipos, last_ident};
use crate::audit::Hit;
use crate::audit::typing::Ty;
use crate::schema::{Column, Table};
use sqlparser::ast::*;
use std::ops::ControlFlow;

/// Collects every table reference of a statement (a flat scope: good enough for OLTP statements).
struct TableCollector {
    refs: Vec<(ObjectName, Option<Ident>)>,
}

impl Visitor for TableCollector {
    type Break = ();
    fn pre_visit_table_factor(&mut self, tf: &TableFactor) -> ControlFlow<()> {
        if let TableFactor::Table { name, alias, .. } = tf {
            self.refs
                .push((name.clone(), alias.as_ref().map(|a| a.name.clone())));
        }
        ControlFlow::Continue(())
    }
}

impl<'a, 'c> Checker<'a, 'c> {
    /// The tables the statement names, under their aliases and their names; checks how each is
    /// spelled on the way.
    pub(super) fn statement_scope(&mut self, stmt: &Statement) -> Vec<ScopeEntry<'a>> {
        let mut tc = TableCollector { refs: Vec::new() };
        let _ = stmt.visit(&mut tc);
        let mut scope = Vec::new();
        for (name, alias) in &tc.refs {
            let Some(ident) = last_ident(name) else {
                continue;
            };
            let table = self.ctx.schema.and_then(|s| s.table(&ident.value));
            if let Some(t) = table {
                self.check_name_case(ident, &t.name);
            }
            self.check_reserved(ident);
            scope.push(ScopeEntry {
                name: alias
                    .as_ref()
                    .map_or(ident.value.clone(), |a| a.value.clone()),
                table,
            });
            if alias.is_some() {
                scope.push(ScopeEntry {
                    name: ident.value.clone(),
                    table,
                });
            }
        }
        scope
    }

    /// Unquoted reference to a name declared with upper-case letters (quoted on the target).
    pub(super) fn check_name_case(&mut self, ident: &Ident, declared: &str) {
        if ident.quote_style.is_none() && declared != declared.to_lowercase() {
            let (l, c) = ipos(ident);
            self.push(
                Hit::new("CASE-001")
                    .pos(l, c)
                    .detail(format!("{} (declared as {declared})", ident.value))
                    .rewrite(format!("\"{declared}\"")),
            );
        }
    }

    pub(super) fn check_reserved(&mut self, ident: &Ident) {
        if ident.quote_style.is_none() && self.profile().is_reserved(&ident.value) {
            let (l, c) = ipos(ident);
            self.push(
                Hit::new("LEX-006")
                    .pos(l, c)
                    .detail(ident.value.clone())
                    .rewrite(format!("\"{}\"", ident.value.to_lowercase())),
            );
        }
    }

    /// Resolves a column reference against the scope.
    pub(super) fn resolve(&self, parts: &[Ident]) -> Option<(&'a Table, &'a Column)> {
        match parts {
            [c] => self
                .scope
                .iter()
                .filter_map(|s| s.table)
                .find_map(|t| t.column(&c.value).map(|col| (t, col))),
            [.., t, c] => {
                let table = self
                    .scope
                    .iter()
                    .find(|s| s.name.eq_ignore_ascii_case(&t.value))
                    .and_then(|s| s.table)?;
                table.column(&c.value).map(|col| (table, col))
            }
            _ => None,
        }
    }

    pub(super) fn column_typed(&mut self, parts: &[Ident]) -> Typed<'a> {
        match self.resolve(parts) {
            Some((t, col)) => {
                if let Some(last) = parts.last() {
                    self.check_name_case(last, &col.name);
                }
                Typed {
                    ty: Ty::of_column(col, self.profile()),
                    col: Some(col),
                    table: Some(t),
                }
            }
            None => {
                if let [one] = parts {
                    self.check_reserved(one);
                }
                Typed::of(Ty::Unknown)
            }
        }
    }
}
