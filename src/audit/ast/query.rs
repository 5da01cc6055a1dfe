//! Queries: WITH, set operations, SELECT (projection, DISTINCT, joins, WHERE, GROUP BY, HAVING),
//! ORDER BY and LIMIT, and the conditions they hold.

use super::grouping::has_aggregate;
use super::{Checker, Typed, pos};
use crate::audit::Hit;
use crate::audit::typing::Ty;
use crate::schema::{Column, Table};
use sqlparser::ast::*;

impl<'a, 'c> Checker<'a, 'c> {
    pub(super) fn query(&mut self, q: &Query) {
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                self.query(&cte.query);
            }
        }
        let projection = self.set_expr(&q.body);
        let has_limit = q.limit_clause.is_some();
        if let Some(ob) = &q.order_by {
            if let OrderByKind::Expressions(exprs) = &ob.kind {
                let mut cols: Vec<(&'a Table, &'a Column)> = Vec::new();
                let mut all_columns = true;
                for o in exprs {
                    let t = self.order_target(&o.expr, &projection);
                    let t = t.unwrap_or_else(|| self.expr(&o.expr));
                    if let Some(col) = t.col {
                        if col.nullable && o.options.nulls_first.is_none() {
                            let (l, c) = pos(&o.expr);
                            self.push(Hit::new("SEM-005").pos(l, c).detail(col.name.clone()));
                        }
                        if col.mysql_type.is_text()
                            && col.case_insensitive()
                            && !matches!(t.ty, Ty::Enum(_))
                        {
                            let (l, c) = pos(&o.expr);
                            self.push(Hit::new("CASE-005").pos(l, c).detail(col.name.clone()));
                        }
                        if let Some(tb) = t.table {
                            cols.push((tb, col));
                        }
                    } else {
                        all_columns = false;
                    }
                }
                if has_limit
                    && self.ctx.schema.is_some()
                    && !self.orders_uniquely(&cols, all_columns)
                {
                    self.push(Hit::new("DML-015"));
                }
            }
        } else if has_limit
            && self.ctx.schema.is_some()
            && !matches!(*q.body, SetExpr::Values(_))
            && !self.single_row_query(q)
        {
            self.push(Hit::new("DML-015").detail("LIMIT without ORDER BY"));
        }
    }

    /// A query that returns at most one row (an aggregate without GROUP BY, or a filter on a unique key).
    pub(super) fn single_row_query(&self, q: &Query) -> bool {
        if let SetExpr::Select(s) = &*q.body {
            let no_group = matches!(&s.group_by, GroupByExpr::Expressions(v, _) if v.is_empty());
            if no_group && s.projection.iter().all(|p| matches!(p, SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } if has_aggregate(e))) {
                return true;
            }
            if let Some(w) = &s.selection {
                let mut eq_cols = Vec::new();
                collect_equalities(w, &mut eq_cols);
                let resolved: Vec<(&Table, &Column)> =
                    eq_cols.iter().filter_map(|p| self.resolve(p)).collect();
                for (t, _) in &resolved {
                    let names: Vec<String> = resolved
                        .iter()
                        .filter(|(t2, _)| std::ptr::eq(*t2, *t))
                        .map(|(_, c)| c.name.clone())
                        .collect();
                    if t.is_unique_on(&names) {
                        return true;
                    }
                }
            }
        }
        false
    }

    pub(super) fn orders_uniquely(&self, cols: &[(&Table, &Column)], all_columns: bool) -> bool {
        if !all_columns || cols.is_empty() {
            return false;
        }
        let t = cols[0].0;
        let names: Vec<String> = cols
            .iter()
            .filter(|(tb, _)| std::ptr::eq(*tb, t))
            .map(|(_, c)| c.name.clone())
            .collect();
        t.is_unique_on(&names)
    }

    /// ORDER BY 2 / ORDER BY alias: the projection item it means.
    pub(super) fn order_target(
        &mut self,
        e: &Expr,
        projection: &[(Option<String>, Expr)],
    ) -> Option<Typed<'a>> {
        match e {
            Expr::Value(v) => {
                if let Value::Number(n, _) = &v.value {
                    let i: usize = n.parse().ok()?;
                    let (_, pe) = projection.get(i.checked_sub(1)?)?;
                    return Some(self.expr_quiet(pe));
                }
                None
            }
            Expr::Identifier(id) => {
                let (_, pe) = projection.iter().find(|(a, _)| {
                    a.as_deref()
                        .is_some_and(|a| a.eq_ignore_ascii_case(&id.value))
                })?;
                if self.resolve(std::slice::from_ref(id)).is_some() {
                    return None;
                }
                Some(self.expr_quiet(pe))
            }
            _ => None,
        }
    }

    /// Checks a set expression; returns the projection (alias, expr) of its first SELECT.
    pub(super) fn set_expr(&mut self, body: &SetExpr) -> Vec<(Option<String>, Expr)> {
        match body {
            SetExpr::Select(s) => self.select(s),
            SetExpr::Query(q) => {
                self.query(q);
                Vec::new()
            }
            SetExpr::SetOperation {
                left,
                right,
                op,
                set_quantifier,
            } => {
                let p = self.set_expr(left);
                self.set_expr(right);
                let distinct = matches!(
                    set_quantifier,
                    SetQuantifier::None | SetQuantifier::Distinct
                ) && matches!(
                    op,
                    SetOperator::Union
                        | SetOperator::Intersect
                        | SetOperator::Except
                        | SetOperator::Minus
                );
                if distinct {
                    for (_, e) in &p {
                        let t = self.expr_quiet(e);
                        if t.ci() {
                            let (l, c) = pos(e);
                            self.push(Hit::new("CASE-004").pos(l, c).detail(format!(
                                "{op} on {}",
                                t.col.map(|c| c.name.clone()).unwrap_or_default()
                            )));
                        }
                    }
                }
                p
            }
            SetExpr::Values(v) => {
                for row in &v.rows {
                    for e in &row.content {
                        self.expr(e);
                    }
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    pub(super) fn select(&mut self, s: &Select) -> Vec<(Option<String>, Expr)> {
        let mut projection = Vec::new();
        let saved_aliases = std::mem::take(&mut self.aliases);
        for item in &s.projection {
            match item {
                SelectItem::UnnamedExpr(e) => {
                    self.expr(e);
                    projection.push((None, e.clone()));
                }
                SelectItem::ExprWithAlias { expr, alias } => {
                    self.expr(expr);
                    self.check_alias(alias);
                    self.aliases.push(alias.value.clone());
                    projection.push((Some(alias.value.clone()), expr.clone()));
                }
                _ => {}
            }
        }
        if matches!(s.distinct, Some(Distinct::Distinct)) {
            for (_, e) in &projection {
                let t = self.expr_quiet(e);
                if t.ci() {
                    let (l, c) = pos(e);
                    self.push(Hit::new("CASE-004").pos(l, c).detail(format!(
                        "DISTINCT {}",
                        t.col.map(|c| c.name.clone()).unwrap_or_default()
                    )));
                }
            }
        }
        for twj in &s.from {
            self.table_factor(&twj.relation);
            for j in &twj.joins {
                self.table_factor(&j.relation);
                let constraint = match &j.join_operator {
                    JoinOperator::Join(c)
                    | JoinOperator::Inner(c)
                    | JoinOperator::Left(c)
                    | JoinOperator::LeftOuter(c)
                    | JoinOperator::Right(c)
                    | JoinOperator::RightOuter(c)
                    | JoinOperator::FullOuter(c) => Some(c),
                    _ => None,
                };
                if let Some(JoinConstraint::On(e)) = constraint {
                    self.condition(e);
                }
            }
        }
        if let Some(w) = &s.selection {
            self.condition(w);
        }
        let group: Vec<Expr> = match &s.group_by {
            GroupByExpr::Expressions(v, _) => v.clone(),
            _ => Vec::new(),
        };
        for g in &group {
            let t = self
                .order_target(g, &projection)
                .unwrap_or_else(|| self.expr(g));
            if t.ci() {
                let (l, c) = pos(g);
                self.push(Hit::new("CASE-004").pos(l, c).detail(format!(
                    "GROUP BY {}",
                    t.col.map(|c| c.name.clone()).unwrap_or_default()
                )));
            }
        }
        if !group.is_empty() {
            self.check_grouping(&projection, &group);
        }
        if let Some(h) = &s.having {
            self.check_having(h, &projection, group.is_empty());
            self.condition(h);
        }
        self.aliases = saved_aliases;
        projection
    }

    pub(super) fn table_factor(&mut self, tf: &TableFactor) {
        match tf {
            TableFactor::Derived { subquery, .. } => self.query(subquery),
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => {
                self.table_factor(&table_with_joins.relation);
                for j in &table_with_joins.joins {
                    self.table_factor(&j.relation);
                }
            }
            _ => {}
        }
    }

    /// `SELECT x year`: a keyword alias without AS.
    pub(super) fn check_alias(&mut self, alias: &Ident) {
        if alias.quote_style.is_some() {
            return;
        }
        let start = alias.span.start;
        if start.line == 0 {
            return;
        }
        // The text before the alias: was it AS?
        let offset = line_col_to_offset(self.sql, start.line, start.column);
        let before = self.sql[..offset].trim_end();
        let has_as = before.len() >= 2
            && before[before.len() - 2..].eq_ignore_ascii_case("as")
            && before[..before.len() - 2].ends_with(|c: char| !c.is_alphanumeric() && c != '_');
        if !has_as && self.profile().needs_as(&alias.value) {
            self.push(
                Hit::new("LEX-006A")
                    .pos(start.line, start.column)
                    .detail(alias.value.clone())
                    .rewrite(format!("AS {}", alias.value)),
            );
        }
    }

    /// A condition (WHERE, ON, HAVING): typed like any expression; a non-boolean result is noted.
    pub(super) fn condition(&mut self, e: &Expr) {
        let t = self.expr(e);
        if matches!(t.ty, Ty::Int | Ty::Numeric | Ty::Text | Ty::Char) && t.col.is_some() {
            let (l, c) = pos(e);
            self.push(
                Hit::new("SEM-020")
                    .pos(l, c)
                    .detail(format!("WHERE on a {} column", t.ty.name())),
            );
        }
    }
}

/// Column references compared for equality with a constant (`WHERE id = 5 AND x = 'a'`).
fn collect_equalities(e: &Expr, out: &mut Vec<Vec<Ident>>) {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            collect_equalities(left, out);
            collect_equalities(right, out);
        }
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } => {
            for (a, b) in [(left, right), (right, left)] {
                if matches!(**b, Expr::Value(_)) {
                    match &**a {
                        Expr::Identifier(i) => out.push(vec![i.clone()]),
                        Expr::CompoundIdentifier(v) => out.push(v.clone()),
                        _ => {}
                    }
                }
            }
        }
        Expr::Nested(x) => collect_equalities(x, out),
        _ => {}
    }
}

/// Byte offset of a 1-based (line, column) position (columns count characters).
fn line_col_to_offset(text: &str, line: u64, column: u64) -> usize {
    let mut off = 0usize;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i as u64 + 1 == line {
            return off
                + l.char_indices()
                    .nth(column.saturating_sub(1) as usize)
                    .map_or(l.len(), |(b, _)| b);
        }
        off += l.len();
    }
    text.len()
}
