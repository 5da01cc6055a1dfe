//! GROUP BY and HAVING rules: every selected column grouped, aggregated or dependent on a grouped
//! primary key; no select-list aliases in HAVING; no plain columns beside aggregates without GROUP BY.

use super::functions::fn_name;
use super::{Checker, ipos, pos};
use crate::audit::Hit;
use crate::schema::Table;
use sqlparser::ast::*;
use std::ops::ControlFlow;

const AGGREGATES: &[&str] = &[
    "COUNT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "GROUP_CONCAT",
    "BIT_AND",
    "BIT_OR",
    "BIT_XOR",
    "STD",
    "STDDEV",
    "STDDEV_POP",
    "STDDEV_SAMP",
    "VARIANCE",
    "VAR_POP",
    "VAR_SAMP",
    "JSON_ARRAYAGG",
    "JSON_OBJECTAGG",
    "ANY_VALUE",
    "STRING_AGG",
];

/// Does the expression contain an aggregate call (outside window functions)?
pub(super) fn has_aggregate(e: &Expr) -> bool {
    let mut found = false;
    let _ = visit_expressions(e, |x| {
        if is_aggregate_call(x) {
            found = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    found
}

/// Is the expression an aggregate call (not a window function)?
fn is_aggregate_call(e: &Expr) -> bool {
    matches!(e, Expr::Function(f) if f.over.is_none() && AGGREGATES.contains(&fn_name(f).as_str()))
}

/// Column references outside aggregate calls (and outside subqueries).
pub(super) fn plain_column_refs(e: &Expr, out: &mut Vec<Vec<Ident>>) {
    let mut v = PlainColumnRefs { opaque: 0, out };
    let _ = e.visit(&mut v);
}

/// Collects the column references of an expression with sqlparser's visitor, so that every
/// expression kind is walked. It deliberately records nothing under two kinds of node: an
/// aggregate call (its arguments are aggregated, not grouped) and a query (a subquery, EXISTS,
/// `IN (SELECT …)`, `ANY (SELECT …)`: their columns belong to the subquery's own scope). A
/// `Visitor` cannot prune a branch, only abort the whole walk, so it counts how many such nodes
/// enclose the current one and records only at depth 0.
struct PlainColumnRefs<'o> {
    opaque: usize,
    out: &'o mut Vec<Vec<Ident>>,
}

impl Visitor for PlainColumnRefs<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
        self.opaque += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
        self.opaque -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if self.opaque == 0 {
            match e {
                Expr::Identifier(i) => self.out.push(vec![i.clone()]),
                Expr::CompoundIdentifier(v) => self.out.push(v.clone()),
                _ => {}
            }
        }
        if is_aggregate_call(e) {
            self.opaque += 1;
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if is_aggregate_call(e) {
            self.opaque -= 1;
        }
        ControlFlow::Continue(())
    }
}

impl<'a, 'c> Checker<'a, 'c> {
    /// Every selected column must be grouped, aggregated, or depend on a grouped primary key.
    pub(super) fn check_grouping(&mut self, projection: &[(Option<String>, Expr)], group: &[Expr]) {
        let mut grouped: Vec<(Option<*const Table>, String)> = Vec::new();
        // What is grouped, as text: the GROUP BY items, and the select items they name by alias or
        // position (`GROUP BY y` or `GROUP BY 1` for `EXTRACT(YEAR FROM d) y` groups that expression).
        let mut group_text: Vec<String> =
            group.iter().map(|g| g.to_string().to_lowercase()).collect();
        for g in group {
            let target = match g {
                Expr::Value(v) => match &v.value {
                    Value::Number(n, _) => n
                        .parse::<usize>()
                        .ok()
                        .and_then(|i| projection.get(i.wrapping_sub(1)))
                        .map(|(_, e)| e.clone()),
                    _ => None,
                },
                Expr::Identifier(id) if self.resolve(std::slice::from_ref(id)).is_none() => {
                    projection
                        .iter()
                        .find(|(a, _)| {
                            a.as_deref()
                                .is_some_and(|a| a.eq_ignore_ascii_case(&id.value))
                        })
                        .map(|(_, e)| e.clone())
                }
                _ => None,
            };
            if let Some(t) = &target {
                group_text.push(t.to_string().to_lowercase());
            }
            let g2 = target.unwrap_or_else(|| g.clone());
            let mut refs = Vec::new();
            if let Expr::Identifier(i) = &g2 {
                refs.push(vec![i.clone()]);
            } else if let Expr::CompoundIdentifier(v) = &g2 {
                refs.push(v.clone());
            }
            for r in refs {
                if let Some((t, c)) = self.resolve(&r) {
                    grouped.push((Some(t as *const Table), c.name.to_lowercase()));
                }
            }
        }
        for (_, e) in projection {
            if has_aggregate(e) || group_text.contains(&e.to_string().to_lowercase()) {
                continue;
            }
            let mut refs = Vec::new();
            plain_column_refs(e, &mut refs);
            for r in refs {
                let Some((t, c)) = self.resolve(&r) else {
                    continue;
                };
                let tp = t as *const Table;
                if grouped
                    .iter()
                    .any(|(gt, gc)| *gt == Some(tp) && *gc == c.name.to_lowercase())
                {
                    continue;
                }
                // Functionally dependent on the table's grouped primary key.
                let pk_grouped = !t.primary_key.is_empty()
                    && t.primary_key.iter().all(|k| {
                        grouped
                            .iter()
                            .any(|(gt, gc)| *gt == Some(tp) && *gc == k.to_lowercase())
                    });
                if !pk_grouped {
                    let (l, cl) = pos(e);
                    self.push(Hit::new("DML-023").pos(l, cl).detail(c.name.clone()));
                }
            }
        }
    }

    pub(super) fn check_having(
        &mut self,
        h: &Expr,
        projection: &[(Option<String>, Expr)],
        no_group: bool,
    ) {
        let mut refs = Vec::new();
        let _ = visit_expressions(h, |x| {
            if let Expr::Identifier(i) = x {
                refs.push(i.clone());
            }
            ControlFlow::<()>::Continue(())
        });
        for r in refs {
            if self.resolve(std::slice::from_ref(&r)).is_none()
                && self
                    .aliases
                    .iter()
                    .any(|a| a.eq_ignore_ascii_case(&r.value))
            {
                let (l, c) = ipos(&r);
                self.push(Hit::new("DML-020").pos(l, c).detail(r.value.clone()));
            }
        }
        if no_group {
            for (_, e) in projection {
                if has_aggregate(e) {
                    continue;
                }
                let mut prefs = Vec::new();
                plain_column_refs(e, &mut prefs);
                if prefs.iter().any(|p| self.resolve(p).is_some()) {
                    let (l, c) = pos(e);
                    self.push(Hit::new("DML-021").pos(l, c));
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::ast::parse;

    /// The column names `plain_column_refs` finds in the first select item of `SELECT <expr>`.
    fn refs(expr: &str) -> Vec<String> {
        let Some(Statement::Query(q)) = parse(&format!("SELECT {expr} FROM t")) else {
            panic!("{expr}: not parsed as a query");
        };
        let SetExpr::Select(s) = &*q.body else {
            panic!("{expr}: not a SELECT");
        };
        let Some(SelectItem::UnnamedExpr(e)) = s.projection.first() else {
            panic!("{expr}: no unnamed select item");
        };
        let mut out = Vec::new();
        plain_column_refs(e, &mut out);
        out.iter()
            .map(|p| {
                p.iter()
                    .map(|i| i.value.as_str())
                    .collect::<Vec<_>>()
                    .join(".")
            })
            .collect()
    }

    #[test]
    fn plain_column_refs_walk_every_expression_kind() {
        assert_eq!(refs("a + t.b"), vec!["a", "t.b"]);
        assert_eq!(refs("EXTRACT(YEAR FROM a) + b"), vec!["a", "b"]);
        assert_eq!(refs("SUBSTRING(a, 1, b)"), vec!["a", "b"]);
        assert_eq!(refs("d + INTERVAL a DAY"), vec!["d", "a"]);
        assert_eq!(refs("SUM(a) OVER (PARTITION BY g)"), vec!["a", "g"]);
    }

    #[test]
    fn plain_column_refs_stop_at_aggregates_and_subqueries() {
        assert_eq!(refs("SUM(a) + b"), vec!["b"]);
        assert_eq!(refs("MAX(a + b)"), Vec::<String>::new());
        assert_eq!(refs("c IN (SELECT d FROM u WHERE d = e)"), vec!["c"]);
        assert_eq!(
            refs("EXISTS (SELECT d FROM u WHERE d = e)"),
            Vec::<String>::new()
        );
        assert_eq!(refs("(SELECT MAX(d) FROM u) + f"), vec!["f"]);
        assert_eq!(refs("c = ANY (SELECT d FROM u)"), vec!["c"]);
    }

    /// `GROUP BY y` or `GROUP BY 1` naming `EXTRACT(YEAR FROM d) y` groups that expression: its
    /// columns need no grouping of their own (PostgreSQL accepts these).
    #[test]
    fn grouping_by_alias_or_position_groups_the_expression() {
        let schema = crate::schema::ddl::schema_from_ddl(
            "CREATE TABLE t (id INT PRIMARY KEY, d DATE, a INT)",
            "t.sql",
        )
        .schema;
        let profile = crate::profile::load_profile("postgres", None).unwrap();
        let options = crate::audit::AuditOptions::default();
        let ctx = crate::audit::Context {
            profile: &profile,
            schema: Some(&schema),
            options: &options,
        };
        let dml023 = |sql: &str| {
            crate::audit::detect(sql, &ctx)
                .0
                .iter()
                .filter(|h| h.rule == "DML-023")
                .filter_map(|h| h.detail.clone())
                .collect::<Vec<_>>()
        };
        for sql in [
            "SELECT EXTRACT(YEAR FROM d) y, COUNT(*) FROM t GROUP BY y",
            "SELECT EXTRACT(YEAR FROM d) y, COUNT(*) FROM t GROUP BY 1",
            "SELECT YEAR(d) y, COUNT(*) FROM t GROUP BY y",
        ] {
            assert!(dml023(sql).is_empty(), "{sql}: {:?}", dml023(sql));
        }
        assert_eq!(
            dml023("SELECT EXTRACT(YEAR FROM d) y, a, COUNT(*) FROM t GROUP BY y"),
            ["a"]
        );
    }
}
