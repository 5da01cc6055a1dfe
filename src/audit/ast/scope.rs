//! The tables a statement names, and the column references resolved against them.

use super::{Checker, ScopeEntry, Typed, ipos, last_ident};
use crate::audit::Hit;
use crate::audit::typing::Ty;
use crate::schema::{Column, Table};
use sqlparser::ast::*;
use std::ops::ControlFlow;

/// Collects every table reference of a statement (a flat scope: good enough for OLTP statements),
/// and the names its common table expressions declare (references to them are not tables).
struct TableCollector {
    refs: Vec<(ObjectName, Option<Ident>)>,
    ctes: Vec<String>,
}

impl Visitor for TableCollector {
    type Break = ();
    fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
        if let Some(with) = &q.with {
            self.ctes
                .extend(with.cte_tables.iter().map(|c| c.alias.name.value.clone()));
        }
        ControlFlow::Continue(())
    }
    fn pre_visit_table_factor(&mut self, tf: &TableFactor) -> ControlFlow<()> {
        if let TableFactor::Table { name, alias, .. } = tf {
            self.refs
                .push((name.clone(), alias.as_ref().map(|a| a.name.clone())));
        }
        ControlFlow::Continue(())
    }
}

/// Schemas of the server's own catalogs: their tables are never in an application's schema.
const SYSTEM_SCHEMAS: &[&str] = &[
    "information_schema",
    "mysql",
    "performance_schema",
    "sys",
    "pg_catalog",
];

/// True when `name` is a table the application's schema should hold: not `dual`, not a table of a
/// system catalog (`information_schema.tables`, `mysql.user`, …).
fn is_application_table(name: &ObjectName) -> bool {
    let parts: Vec<&Ident> = name.0.iter().filter_map(|p| p.as_ident()).collect();
    match parts.as_slice() {
        [] => false,
        [t] => !t.value.eq_ignore_ascii_case("dual"),
        [.., db, _] => !SYSTEM_SCHEMAS
            .iter()
            .any(|s| db.value.eq_ignore_ascii_case(s)),
    }
}

impl<'a, 'c> Checker<'a, 'c> {
    /// The tables the statement names, under their aliases and their names; checks how each is
    /// spelled on the way.
    pub(super) fn statement_scope(&mut self, stmt: &Statement) -> Vec<ScopeEntry<'a>> {
        let mut tc = TableCollector {
            refs: Vec::new(),
            ctes: Vec::new(),
        };
        let _ = stmt.visit(&mut tc);
        let mut scope = Vec::new();
        for (name, alias) in &tc.refs {
            let Some(ident) = last_ident(name) else {
                continue;
            };
            let table = self.ctx.schema.and_then(|s| s.table(&ident.value));
            if let Some(t) = table {
                self.check_name_case(ident, &t.name);
            } else if name.0.len() > 1
                || !tc.ctes.iter().any(|c| c.eq_ignore_ascii_case(&ident.value))
            {
                self.check_in_schema(name);
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

    /// A table the given schema lacks (SCHEMA-001): nothing about it could be checked, and the
    /// target will not have it unless it is created. Only when a schema was given.
    pub(super) fn check_in_schema(&mut self, name: &ObjectName) {
        let Some(schema) = self.ctx.schema else {
            return;
        };
        let Some(ident) = last_ident(name) else {
            return;
        };
        if schema.table(&ident.value).is_some()
            || schema.has_view(&ident.value)
            || !is_application_table(name)
        {
            return;
        }
        let (l, c) = ipos(ident);
        self.push(Hit::new("SCHEMA-001").pos(l, c).detail(ident.value.clone()));
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

#[cfg(test)]
mod tests {
    use crate::audit::{AuditOptions, Context, detect};
    use crate::profile::load_profile;
    use crate::schema::ddl::schema_from_ddl;

    /// The SCHEMA-001 details (missing tables) of `sql`, against a schema holding only `sbtest1`
    /// (or none).
    fn missing(sql: &str, with_schema: bool) -> Vec<String> {
        let p = load_profile("postgres", None).expect("the built-in postgres profile loads");
        let d = schema_from_ddl(
            "CREATE TABLE sbtest1 (id int NOT NULL, k int NOT NULL, c char(120) NOT NULL, PRIMARY KEY (id));\n\
             CREATE VIEW recent_ids AS SELECT id FROM sbtest1;",
            "schema.sql",
        );
        let o = AuditOptions::default();
        let ctx = Context {
            profile: &p,
            schema: with_schema.then_some(&d.schema),
            options: &o,
        };
        let (hits, parsed) = detect(sql, &ctx);
        assert!(parsed, "{sql}");
        hits.into_iter()
            .filter(|h| h.rule == "SCHEMA-001")
            .filter_map(|h| h.detail)
            .collect()
    }

    #[test]
    fn tables_the_schema_lacks_are_reported() {
        assert_eq!(
            missing("SELECT c FROM sbtest3 WHERE id=1", true),
            ["sbtest3"]
        );
        assert!(missing("SELECT c FROM sbtest3 WHERE id=1", false).is_empty());
        assert!(missing("SELECT c FROM SBTEST1 WHERE id=1", true).is_empty());
        assert_eq!(
            missing(
                "SELECT a.c FROM sbtest1 a JOIN sbtest2 b ON a.id = b.id WHERE b.k IN (SELECT k FROM sbtest4)",
                true
            ),
            ["sbtest2", "sbtest4"]
        );
        assert_eq!(
            missing("INSERT INTO sbtest9 (id) VALUES (1)", true),
            ["sbtest9"]
        );
        assert_eq!(
            missing("INSERT INTO sbtest1 (id) SELECT id FROM sbtest5", true),
            ["sbtest5"]
        );
        assert_eq!(
            missing("REPLACE INTO sbtest6 VALUES (1, 2, 'c')", true),
            ["sbtest6"]
        );
        assert_eq!(
            missing("UPDATE sbtest7 SET k = k + 1 WHERE id = 2", true),
            ["sbtest7"]
        );
        assert_eq!(
            missing("DELETE FROM sbtest8 WHERE id = 2", true),
            ["sbtest8"]
        );
        assert_eq!(missing("SELECT c FROM shop.sbtest3", true), ["sbtest3"]);
    }

    #[test]
    fn ctes_views_dual_and_system_catalogs_are_not_missing_tables() {
        assert!(
            missing(
                "WITH recent AS (SELECT id FROM sbtest1) SELECT * FROM recent r JOIN RECENT s ON r.id = s.id",
                true
            )
            .is_empty()
        );
        assert_eq!(
            missing(
                "WITH recent AS (SELECT id FROM sbtest1) SELECT * FROM shop.recent",
                true
            ),
            ["recent"],
            "a qualified name is a table, not the CTE"
        );
        for sql in [
            "SELECT id FROM recent_ids",
            "SELECT 1 FROM dual",
            "SELECT table_name FROM information_schema.tables",
            "SELECT user FROM mysql.user",
            "SELECT * FROM performance_schema.threads",
            "SELECT * FROM sys.session",
            "SELECT * FROM PG_CATALOG.pg_class",
        ] {
            assert!(missing(sql, true).is_empty(), "{sql}");
        }
    }
}
