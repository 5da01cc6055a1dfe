//! AST detectors: statements parsed with sqlparser (MySQL dialect) and walked with the schema at hand,
//! typing each expression as the target would ([`typing`]) to find comparisons, arithmetic, function
//! calls and assignments the target rejects or evaluates differently, plus DDL column types and
//! options, GROUP BY/HAVING rules, ordering and collation dependencies.

use super::tokens::{cast_type_hit, function_hit};
use super::typing::{Literal, Ty, literal_for};
use super::{Context, Hit};
use crate::profile::Profile;
use crate::schema::{Column, MySqlType, Table};
use sqlparser::ast::*;
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;
use std::ops::ControlFlow;

/// Parses one statement with sqlparser's MySQL dialect; `None` when it cannot.
pub fn parse(sql: &str) -> Option<Statement> {
    let mut p = Parser::new(&MySqlDialect {})
        .with_recursion_limit(200)
        .try_with_sql(sql)
        .ok()?;
    let st = p.parse_statement().ok()?;
    // Anything after the statement but a `;` means it was not understood as one statement.
    while p.consume_token(&sqlparser::tokenizer::Token::SemiColon) {}
    if p.peek_token().token != sqlparser::tokenizer::Token::EOF {
        return None;
    }
    Some(st)
}

/// An expression's type, and the column it is when it is one.
#[derive(Clone)]
struct Typed<'a> {
    ty: Ty,
    col: Option<&'a Column>,
    table: Option<&'a Table>,
}

impl<'a> Typed<'a> {
    fn of(ty: Ty) -> Typed<'a> {
        Typed {
            ty,
            col: None,
            table: None,
        }
    }
    fn nullable(&self) -> bool {
        match (&self.ty, self.col) {
            (Ty::Null, _) => true,
            (_, Some(c)) => c.nullable,
            _ => false,
        }
    }
    fn ci(&self) -> bool {
        self.col.is_some_and(|c| c.case_insensitive())
    }
}

struct ScopeEntry<'a> {
    /// The name the statement uses for the table (its alias, else its name).
    name: String,
    table: Option<&'a Table>,
}

struct Checker<'a, 'c> {
    ctx: &'c Context<'a>,
    sql: &'c str,
    scope: Vec<ScopeEntry<'a>>,
    aliases: Vec<String>,
    hits: Vec<Hit>,
}

fn pos(e: &impl Spanned) -> (u64, u64) {
    let s = e.span().start;
    (s.line, s.column)
}

fn ipos(i: &Ident) -> (u64, u64) {
    (i.span.start.line, i.span.start.column)
}

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

fn last_ident(name: &ObjectName) -> Option<&Ident> {
    name.0.last().and_then(|p| p.as_ident())
}

pub fn hits(stmt: &Statement, sql: &str, ctx: &Context) -> Vec<Hit> {
    let mut tc = TableCollector { refs: Vec::new() };
    let _ = stmt.visit(&mut tc);
    let mut scope = Vec::new();
    let mut c = Checker {
        ctx,
        sql,
        scope: Vec::new(),
        aliases: Vec::new(),
        hits: Vec::new(),
    };
    for (name, alias) in &tc.refs {
        let Some(ident) = last_ident(name) else {
            continue;
        };
        let table = ctx.schema.and_then(|s| s.table(&ident.value));
        if let Some(t) = table {
            c.check_name_case(ident, &t.name);
        }
        c.check_reserved(ident);
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
    c.scope = scope;
    match stmt {
        Statement::Query(q) => c.query(q),
        Statement::Insert(ins) => c.insert(ins),
        Statement::Update(u) => c.update(u),
        Statement::Delete(d) => c.delete(d),
        Statement::CreateTable(ct) => c.create_table(ct),
        Statement::AlterTable(at) => c.alter_table(at),
        Statement::CreateView(v) => c.query(&v.query),
        _ => c.scan_functions(stmt),
    }
    c.hits
}

/// The findings for a MySQL column type on the target (CREATE/ALTER TABLE, and DDL on tokens).
pub fn type_hits(profile: &Profile, t: &MySqlType, at: Option<(u64, u64)>, hits: &mut Vec<Hit>) {
    let Some((key, m)) = profile.type_mapping(t) else {
        return;
    };
    // The rewrite is the profile's one type for this column (what --live-setup creates and verify
    // expects); the catalog's advice, when it names alternatives, goes in the detail.
    let target = profile
        .target_type(t)
        .or_else(|| m.target.clone())
        .unwrap_or_default();
    let advice = m
        .target
        .as_deref()
        .filter(|a| !a.eq_ignore_ascii_case(&target))
        .map(|a| format!(" (advice: {a})"))
        .unwrap_or_default();
    let detail = match &m.note {
        Some(n) => format!("{} → {target}{advice}: {n}", t.text.to_uppercase()),
        None => format!("{} → {target}{advice}", t.text.to_uppercase()),
    };
    let rule = match m.written.as_deref() {
        Some("fails") => "TYP-FAIL",
        Some("differs") => "TYP-DIFF",
        _ => "TYP-LOSS",
    };
    let mut h = Hit::new(rule).detail(detail).rewrite(target);
    if let Some((l, c)) = at {
        h = h.pos(l, c);
    }
    let _ = key;
    hits.push(h);
    if t.zerofill {
        hits.push(Hit::new("DDL-006").detail("ZEROFILL: format with lpad() when displaying"));
    }
}

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

fn fn_name(f: &Function) -> String {
    f.name
        .0
        .last()
        .and_then(|p| p.as_ident())
        .map(|i| i.value.to_ascii_uppercase())
        .unwrap_or_default()
}

fn fn_args(f: &Function) -> Vec<&Expr> {
    match &f.args {
        FunctionArguments::List(l) => l
            .args
            .iter()
            .filter_map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                FunctionArg::Named {
                    arg: FunctionArgExpr::Expr(e),
                    ..
                }
                | FunctionArg::ExprNamed {
                    arg: FunctionArgExpr::Expr(e),
                    ..
                } => Some(e),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn is_distinct_call(f: &Function) -> bool {
    matches!(&f.args, FunctionArguments::List(l) if matches!(l.duplicate_treatment, Some(DuplicateTreatment::Distinct)))
}

/// Does the expression contain an aggregate call (outside window functions)?
fn has_aggregate(e: &Expr) -> bool {
    let mut found = false;
    let _ = visit_expressions(e, |x| {
        if let Expr::Function(f) = x
            && f.over.is_none()
            && AGGREGATES.contains(&fn_name(f).as_str())
        {
            found = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    found
}

/// Column references outside aggregate calls.
fn plain_column_refs(e: &Expr, out: &mut Vec<Vec<Ident>>) {
    match e {
        Expr::Identifier(i) => out.push(vec![i.clone()]),
        Expr::CompoundIdentifier(v) => out.push(v.clone()),
        Expr::Function(f) if f.over.is_none() && AGGREGATES.contains(&fn_name(f).as_str()) => {}
        Expr::Subquery(_)
        | Expr::Exists { .. }
        | Expr::In {
            target: InTarget::Subquery(_),
            ..
        } => {}
        other => {
            for_each_child(other, &mut |c| plain_column_refs(c, out));
        }
    }
}

/// Calls `f` on the direct sub-expressions of `e` (the common variants).
#[allow(clippy::redundant_closure)] // `f` is a `&mut dyn FnMut`: the closures reborrow it
fn for_each_child(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    match e {
        Expr::BinaryOp { left, right, .. } => {
            f(left);
            f(right);
        }
        Expr::UnaryOp { expr, .. }
        | Expr::Nested(expr)
        | Expr::IsNull(expr)
        | Expr::IsNotNull(expr)
        | Expr::IsTrue(expr)
        | Expr::IsFalse(expr)
        | Expr::IsNotTrue(expr)
        | Expr::IsNotFalse(expr)
        | Expr::Collate { expr, .. }
        | Expr::Cast { expr, .. } => f(expr),
        Expr::In { expr, target, .. } => {
            f(expr);
            if let InTarget::List(list) = target {
                list.iter().for_each(|x| f(x));
            }
        }
        Expr::Between {
            expr, low, high, ..
        } => {
            f(expr);
            f(low);
            f(high);
        }
        Expr::Like { expr, pattern, .. }
        | Expr::ILike { expr, pattern, .. }
        | Expr::RLike { expr, pattern, .. } => {
            f(expr);
            f(pattern);
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            if let Some(o) = operand {
                f(o);
            }
            for cw in conditions {
                f(&cw.condition);
                f(&cw.result);
            }
            if let Some(e) = else_result {
                f(e);
            }
        }
        Expr::Function(func) => fn_args(func).into_iter().for_each(|x| f(x)),
        Expr::Tuple(v) => v.iter().for_each(|x| f(x)),
        _ => {}
    }
}

impl<'a, 'c> Checker<'a, 'c> {
    fn push(&mut self, h: Hit) {
        self.hits.push(h);
    }

    fn profile(&self) -> &'a Profile {
        self.ctx.profile
    }

    /// Unquoted reference to a name declared with upper-case letters (quoted on the target).
    fn check_name_case(&mut self, ident: &Ident, declared: &str) {
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

    fn check_reserved(&mut self, ident: &Ident) {
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
    fn resolve(&self, parts: &[Ident]) -> Option<(&'a Table, &'a Column)> {
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

    fn column_typed(&mut self, parts: &[Ident]) -> Typed<'a> {
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

    // ------------------------------------------------------------------------------------ queries

    fn query(&mut self, q: &Query) {
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
    fn single_row_query(&self, q: &Query) -> bool {
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

    fn orders_uniquely(&self, cols: &[(&Table, &Column)], all_columns: bool) -> bool {
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
    fn order_target(
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

    /// Types an expression without recording findings (it was checked already).
    fn expr_quiet(&mut self, e: &Expr) -> Typed<'a> {
        let n = self.hits.len();
        let t = self.expr(e);
        self.hits.truncate(n);
        t
    }

    /// Checks a set expression; returns the projection (alias, expr) of its first SELECT.
    fn set_expr(&mut self, body: &SetExpr) -> Vec<(Option<String>, Expr)> {
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

    fn select(&mut self, s: &Select) -> Vec<(Option<String>, Expr)> {
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

    fn table_factor(&mut self, tf: &TableFactor) {
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
    fn check_alias(&mut self, alias: &Ident) {
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

    /// Every selected column must be grouped, aggregated, or depend on a grouped primary key.
    fn check_grouping(&mut self, projection: &[(Option<String>, Expr)], group: &[Expr]) {
        let mut grouped: Vec<(Option<*const Table>, String)> = Vec::new();
        let group_text: Vec<String> = group.iter().map(|g| g.to_string().to_lowercase()).collect();
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

    fn check_having(&mut self, h: &Expr, projection: &[(Option<String>, Expr)], no_group: bool) {
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

    /// A condition (WHERE, ON, HAVING): typed like any expression; a non-boolean result is noted.
    fn condition(&mut self, e: &Expr) {
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

    // --------------------------------------------------------------------------------- expressions

    fn expr(&mut self, e: &Expr) -> Typed<'a> {
        match e {
            Expr::Identifier(i) => self.column_typed(std::slice::from_ref(i)),
            Expr::CompoundIdentifier(v) => self.column_typed(v),
            Expr::Value(v) => Typed::of(match &v.value {
                Value::Number(n, _) => Ty::NumLit {
                    text: n.clone(),
                    integer: !n.contains(['.', 'e', 'E']),
                },
                Value::SingleQuotedString(s)
                | Value::NationalStringLiteral(s)
                | Value::EscapedStringLiteral(s) => Ty::StrLit(s.clone()),
                Value::Boolean(_) => Ty::Bool,
                Value::Null => Ty::Null,
                _ => Ty::Unknown,
            }),
            Expr::Nested(inner) => self.expr(inner),
            Expr::UnaryOp { op, expr } => {
                let t = self.expr(expr);
                match op {
                    UnaryOperator::Minus | UnaryOperator::Plus => match t.ty {
                        Ty::NumLit { text, integer } => Typed::of(Ty::NumLit {
                            text: format!("-{text}"),
                            integer,
                        }),
                        Ty::Bool => {
                            let (l, c) = pos(e);
                            self.push(Hit::new("SEM-015").pos(l, c).detail("-flag"));
                            Typed::of(Ty::Unknown)
                        }
                        other => Typed::of(other),
                    },
                    UnaryOperator::Not => {
                        if t.ty.is_numeric() && t.col.is_some() {
                            let (l, c) = pos(e);
                            self.push(Hit::new("SEM-020").pos(l, c).detail("NOT on a number"));
                        }
                        Typed::of(Ty::Bool)
                    }
                    _ => Typed::of(Ty::Unknown),
                }
            }
            Expr::BinaryOp { left, op, right } => self.binary(e, left, op, right),
            Expr::IsNull(x) | Expr::IsNotNull(x) => {
                self.expr(x);
                Typed::of(Ty::Bool)
            }
            Expr::IsTrue(x) | Expr::IsFalse(x) | Expr::IsNotTrue(x) | Expr::IsNotFalse(x) => {
                let t = self.expr(x);
                if t.ty.is_numeric() || t.ty.is_text() {
                    let (l, c) = pos(e);
                    self.push(
                        Hit::new("SEM-020")
                            .pos(l, c)
                            .detail(format!("IS TRUE on {}", t.ty.name())),
                    );
                }
                Typed::of(Ty::Bool)
            }
            Expr::In {
                expr,
                target: InTarget::List(list),
                ..
            } => {
                let t = self.expr(expr);
                for item in list {
                    let it = self.expr(item);
                    self.compare(e, &t, &it, &BinaryOperator::Eq);
                }
                Typed::of(Ty::Bool)
            }
            Expr::In {
                expr,
                target: InTarget::Subquery(subquery),
                ..
            } => {
                self.expr(expr);
                self.query(subquery);
                Typed::of(Ty::Bool)
            }
            Expr::Between {
                expr, low, high, ..
            } => {
                let t = self.expr(expr);
                let lo = self.expr(low);
                let hi = self.expr(high);
                self.compare(e, &t, &lo, &BinaryOperator::GtEq);
                self.compare(e, &t, &hi, &BinaryOperator::LtEq);
                if t.ty.is_text() && matches!(lo.ty, Ty::StrLit(_)) {
                    let (l, c) = pos(e);
                    self.push(Hit::new("SEM-028").pos(l, c).detail("BETWEEN on strings"));
                }
                Typed::of(Ty::Bool)
            }
            Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } => {
                let t = self.expr(expr);
                self.expr(pattern);
                if t.ty.is_numeric() || t.ty.is_temporal() || matches!(t.ty, Ty::Bool | Ty::Enum(_))
                {
                    if t.ty.is_typed() {
                        let (l, c) = pos(e);
                        self.push(
                            Hit::new("SEM-019")
                                .pos(l, c)
                                .detail(format!("{} LIKE", t.ty.name())),
                        );
                    }
                } else if t.ci() && matches!(e, Expr::Like { .. }) {
                    let (l, c) = pos(e);
                    self.push(
                        Hit::new("CASE-003")
                            .pos(l, c)
                            .detail(t.col.map(|c| c.name.clone()).unwrap_or_default()),
                    );
                }
                Typed::of(Ty::Bool)
            }
            Expr::RLike { expr, pattern, .. } => {
                self.expr(expr);
                self.expr(pattern);
                Typed::of(Ty::Bool)
            }
            Expr::Function(f) => self.function(e, f),
            Expr::Cast {
                expr, data_type, ..
            } => {
                self.expr(expr);
                let dt = data_type.to_string();
                let (l, c) = pos(e);
                let mut hs = Vec::new();
                cast_type_hit(&dt, 0, &mut hs);
                for h in hs {
                    self.push(Hit { offset: None, ..h }.pos(l, c));
                }
                Typed::of(cast_ty(&dt))
            }
            Expr::Convert {
                expr, data_type, ..
            } => {
                self.expr(expr);
                let (l, c) = pos(e);
                self.push(Hit::new("DML-017V").pos(l, c));
                Typed::of(
                    data_type
                        .as_ref()
                        .map_or(Ty::Text, |d| cast_ty(&d.to_string())),
                )
            }
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let op = operand.as_ref().map(|o| self.expr(o));
                let mut result: Option<Typed<'a>> = None;
                for cw in conditions {
                    let ct = self.expr(&cw.condition);
                    if let Some(o) = &op {
                        self.compare(e, o, &ct, &BinaryOperator::Eq);
                    }
                    let rt = self.expr(&cw.result);
                    if result.as_ref().is_none_or(|r| !r.ty.is_typed()) {
                        result = Some(rt);
                    }
                }
                if let Some(x) = else_result {
                    let rt = self.expr(x);
                    if let Some(r) = &result
                        && r.ty.is_numeric()
                        && let Ty::StrLit(s) = &rt.ty
                        && literal_for(&Ty::Numeric, s) == Literal::Invalid
                    {
                        let (l, c) = pos(x.as_ref());
                        self.push(
                            Hit::new("SEM-001L")
                                .pos(l, c)
                                .detail(format!("'{s}' with numeric CASE results")),
                        );
                    }
                }
                Typed::of(result.map_or(Ty::Unknown, |r| r.ty))
            }
            Expr::Subquery(q) => {
                self.query(q);
                Typed::of(Ty::Unknown)
            }
            Expr::Exists { subquery, .. } => {
                self.query(subquery);
                Typed::of(Ty::Bool)
            }
            Expr::Extract { expr, .. } => {
                self.expr(expr);
                Typed::of(Ty::Numeric)
            }
            Expr::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let t = self.expr(expr);
                let from = substring_from.as_ref().map(|x| self.expr(x));
                if let Some(x) = substring_for {
                    self.expr(x);
                }
                if t.ty.is_numeric() && t.ty.is_typed() {
                    let (l, c) = pos(e);
                    self.push(
                        Hit::new("FN-ARGS")
                            .pos(l, c)
                            .detail(format!("substring({} …)", t.ty.name())),
                    );
                }
                if let Some(Typed {
                    ty: Ty::NumLit { text, .. },
                    ..
                }) = &from
                    && (text.starts_with('-') || text == "0")
                {
                    let (l, c) = pos(e);
                    self.push(Hit::new("FN-DIFFERS").pos(l, c).detail("SUBSTRING with a negative or zero start: counts from the end (negative) or returns '' (0) in MySQL").rewrite("right(s, n)"));
                }
                Typed::of(Ty::Text)
            }
            Expr::Trim { expr, .. } => {
                self.expr(expr);
                Typed::of(Ty::Text)
            }
            Expr::Position { expr, r#in } => {
                self.expr(expr);
                self.expr(r#in);
                Typed::of(Ty::Int)
            }
            Expr::Interval(_) => Typed::of(Ty::Interval),
            Expr::TypedString(ts) => {
                let t = cast_ty(&ts.data_type.to_string());
                if let Value::SingleQuotedString(s) = &ts.value.value
                    && literal_for(&t, s) == Literal::Invalid
                {
                    let (l, c) = pos(e);
                    self.push(
                        Hit::new(if t.is_temporal() {
                            "SEM-017"
                        } else {
                            "SEM-001L"
                        })
                        .pos(l, c)
                        .detail(format!("'{s}'")),
                    );
                }
                Typed::of(t)
            }
            Expr::Collate { expr, .. } => self.expr(expr),
            Expr::Tuple(v) => {
                for x in v {
                    self.expr(x);
                }
                Typed::of(Ty::Unknown)
            }
            other => {
                self.scan_functions(other);
                Typed::of(Ty::Unknown)
            }
        }
    }

    fn binary(&mut self, e: &Expr, left: &Expr, op: &BinaryOperator, right: &Expr) -> Typed<'a> {
        let l = self.expr(left);
        let r = self.expr(right);
        use BinaryOperator::*;
        match op {
            Eq | NotEq | Lt | LtEq | Gt | GtEq | Spaceship => {
                self.compare(e, &l, &r, op);
                Typed::of(Ty::Bool)
            }
            Plus | Minus | Multiply | Divide | Modulo | MyIntegerDivide => {
                self.arith(e, &l, &r, op, right)
            }
            StringConcat => {
                // MySQL's default sql_mode reads || as OR.
                let (ln, cn) = pos(e);
                let rule = if matches!(l.ty, Ty::Bool)
                    || matches!(r.ty, Ty::Bool)
                    || is_condition(left)
                    || is_condition(right)
                {
                    "LEX-007E"
                } else {
                    "LEX-007"
                };
                self.push(Hit::new(rule).pos(ln, cn));
                Typed::of(Ty::Text)
            }
            And | Or | Xor => {
                for (t, x) in [(&l, left), (&r, right)] {
                    if (t.ty.is_numeric() || t.ty.is_text()) && t.ty.is_typed() {
                        let (ln, cn) = pos(x);
                        self.push(
                            Hit::new("SEM-020")
                                .pos(ln, cn)
                                .detail(format!("{} operand of {op}", t.ty.name())),
                        );
                    }
                }
                Typed::of(Ty::Bool)
            }
            _ => Typed::of(Ty::Unknown),
        }
    }

    /// A comparison between two typed operands.
    fn compare(&mut self, at: &Expr, l: &Typed<'a>, r: &Typed<'a>, op: &BinaryOperator) {
        let (line, col) = pos(at);
        let ordering = matches!(
            op,
            BinaryOperator::Lt | BinaryOperator::LtEq | BinaryOperator::Gt | BinaryOperator::GtEq
        );
        for (a, b) in [(l, r), (r, l)] {
            match (&a.ty, &b.ty) {
                // A typed operand against a quoted literal: the literal must be valid for the type.
                (t, Ty::StrLit(s)) if t.is_typed() => {
                    match literal_for(t, s) {
                        Literal::Invalid => {
                            let rule = match t {
                                Ty::Date | Ty::Timestamp | Ty::TimestampTz | Ty::Time => "SEM-017",
                                Ty::Enum(_) => "SEM-016",
                                _ => "SEM-001L",
                            };
                            self.push(
                                Hit::new(rule)
                                    .pos(line, col)
                                    .detail(format!("'{s}' for a {} value", t.name())),
                            );
                        }
                        Literal::ValidDifferent(why) => self.push(
                            Hit::new("SEM-017W")
                                .pos(line, col)
                                .detail(format!("'{s}': {why}")),
                        ),
                        Literal::Valid => {}
                    }
                    if matches!(t, Ty::Enum(_)) && ordering {
                        self.push(Hit::new("SEM-016R").pos(line, col));
                    }
                    if a.ci() && matches!(op, BinaryOperator::Eq | BinaryOperator::NotEq) {
                        self.push(
                            Hit::new("CASE-002")
                                .pos(line, col)
                                .detail(a.col.map(|c| c.name.clone()).unwrap_or_default()),
                        );
                    }
                    if a.ci() && ordering {
                        self.push(
                            Hit::new("SEM-028")
                                .pos(line, col)
                                .detail(format!("{op} on a string column")),
                        );
                    }
                    if s.ends_with(' ') && a.col.is_some_and(|c| c.pad_space()) {
                        self.push(Hit::new("CASE-006").pos(line, col).detail(format!("'{s}'")));
                    }
                    return;
                }
                // A number against a typed non-number.
                (t, Ty::NumLit { .. } | Ty::Int | Ty::Numeric | Ty::Float)
                    if t.is_typed() && !t.is_numeric() =>
                {
                    let rule = match t {
                        Ty::Bool => "SEM-015",
                        Ty::Enum(_) => "SEM-016",
                        Ty::Bits | Ty::Json | Ty::Bytes | Ty::Interval => "SEM-001",
                        _ => "SEM-001",
                    };
                    self.push(Hit::new(rule).pos(line, col).detail(format!(
                        "{} {op} {}",
                        t.name(),
                        b.ty.name()
                    )));
                    return;
                }
                _ => {}
            }
        }
        // Two columns.
        if l.ty.is_text()
            && r.ty.is_text()
            && (l.ci() || r.ci())
            && matches!(op, BinaryOperator::Eq | BinaryOperator::NotEq)
        {
            self.push(
                Hit::new("CASE-002")
                    .pos(line, col)
                    .detail("comparison of case-insensitive string columns"),
            );
        }
        if matches!(op, BinaryOperator::Eq)
            && (matches!(l.ty, Ty::Float) && l.col.is_some()
                || matches!(r.ty, Ty::Float) && r.col.is_some())
        {
            self.push(Hit::new("SEM-024").pos(line, col));
        }
        if matches!(l.ty, Ty::Null) || matches!(r.ty, Ty::Null) {
            return;
        }
        if l.ty.is_typed()
            && r.ty.is_typed()
            && class_of(&l.ty) != class_of(&r.ty)
            && !(l.ty.is_temporal() && r.ty.is_temporal())
        {
            self.push(Hit::new("SEM-001").pos(line, col).detail(format!(
                "{} {op} {}",
                l.ty.name(),
                r.ty.name()
            )));
        }
    }

    fn arith(
        &mut self,
        at: &Expr,
        l: &Typed<'a>,
        r: &Typed<'a>,
        op: &BinaryOperator,
        right: &Expr,
    ) -> Typed<'a> {
        let (line, col) = pos(at);
        if matches!(l.ty, Ty::Bool) || matches!(r.ty, Ty::Bool) {
            self.push(
                Hit::new("SEM-015")
                    .pos(line, col)
                    .detail(format!("boolean {op}")),
            );
            return Typed::of(Ty::Unknown);
        }
        if let (Ty::StrLit(a), Ty::StrLit(b)) = (&l.ty, &r.ty) {
            self.push(
                Hit::new("SEM-001")
                    .pos(line, col)
                    .detail(format!("'{a}' {op} '{b}': operator is not unique")),
            );
            return Typed::of(Ty::Unknown);
        }
        for (a, b) in [(l, r), (r, l)] {
            if let Ty::StrLit(s) = &b.ty
                && a.ty.is_numeric()
                && literal_for(&Ty::Numeric, s) == Literal::Invalid
            {
                self.push(
                    Hit::new("SEM-001L")
                        .pos(line, col)
                        .detail(format!("'{s}' in arithmetic")),
                );
                return Typed::of(Ty::Unknown);
            }
            if a.ty.is_text() && a.ty.is_typed() && b.ty.is_numeric() {
                self.push(Hit::new("SEM-001").pos(line, col).detail(format!(
                    "{} {op} {}",
                    a.ty.name(),
                    b.ty.name()
                )));
                return Typed::of(Ty::Unknown);
            }
        }
        // Dates and numbers.
        let date_num = |x: &Ty, y: &Ty| x.is_temporal() && y.is_numeric();
        if date_num(&l.ty, &r.ty) || date_num(&r.ty, &l.ty) {
            let d = if l.ty.is_temporal() { &l.ty } else { &r.ty };
            if matches!(d, Ty::Date) && matches!(op, BinaryOperator::Plus | BinaryOperator::Minus) {
                self.push(Hit::new("SEM-018").pos(line, col));
                return Typed::of(Ty::Date);
            }
            self.push(
                Hit::new("SEM-001")
                    .pos(line, col)
                    .detail(format!("{} {op} number", d.name())),
            );
            return Typed::of(Ty::Unknown);
        }
        if matches!(
            op,
            BinaryOperator::Divide | BinaryOperator::Modulo | BinaryOperator::MyIntegerDivide
        ) {
            if let Ty::NumLit { text, .. } = &r.ty
                && is_zero_literal(text)
            {
                let (rl, rc) = pos(right);
                self.push(Hit::new("SEM-003").pos(rl, rc).detail(format!("{op} 0")));
            }
            if matches!(op, BinaryOperator::Divide) && l.ty.is_integer() && r.ty.is_integer() {
                self.push(Hit::new("SEM-002").pos(line, col));
            }
        }
        let ty = if matches!(l.ty, Ty::Float) || matches!(r.ty, Ty::Float) {
            Ty::Float
        } else if matches!(l.ty, Ty::Numeric | Ty::NumLit { integer: false, .. })
            || matches!(r.ty, Ty::Numeric | Ty::NumLit { integer: false, .. })
        {
            Ty::Numeric
        } else if l.ty.is_integer() && r.ty.is_integer() {
            Ty::Int
        } else if l.ty.is_temporal() {
            l.ty.clone()
        } else {
            Ty::Unknown
        };
        Typed::of(ty)
    }

    fn function(&mut self, e: &Expr, f: &Function) -> Typed<'a> {
        let name = fn_name(f);
        let args = fn_args(f);
        let tys: Vec<Typed<'a>> = args.iter().map(|a| self.expr(a)).collect();
        if let FunctionArguments::Subquery(q) = &f.args {
            self.query(q);
        }
        let (line, col) = pos(e);
        let offset_hits = {
            let mut hs = Vec::new();
            function_hit(self.profile(), &name, 0, &mut hs);
            hs
        };
        for h in offset_hits {
            self.push(Hit { offset: None, ..h }.pos(line, col));
        }
        let Some(m) = self.profile().function(&name).cloned() else {
            return Typed::of(Ty::Unknown);
        };
        let exists = !matches!(m.status.as_deref(), Some("missing") | Some("syntax"));
        if exists {
            match (m.status.as_deref(), m.differs_when.as_deref()) {
                (Some("differs"), Some("nullable_args")) if tys.iter().any(|t| t.nullable()) => {
                    self.push(Hit::new("FN-DIFFERS").pos(line, col).detail(format!("{name}(): {}", m.note.clone().unwrap_or_default())).rewrite(m.rewrite.clone().unwrap_or_default()));
                }
                (Some("differs"), Some("non_ascii")) if tys.iter().any(|t| t.ty.is_text() && t.ty.is_typed() || matches!(&t.ty, Ty::StrLit(s) if !s.is_ascii())) => {
                    self.push(Hit::new("FN-DIFFERS").pos(line, col).detail(format!("{name}(): {}", m.note.clone().unwrap_or_default())).rewrite(m.rewrite.clone().unwrap_or_default()));
                }
                (Some("differs"), Some("negative_arg")) if tys.iter().skip(1).any(|t| matches!(&t.ty, Ty::NumLit { text, .. } if text.starts_with('-') || text == "0")) => {
                    self.push(Hit::new("FN-DIFFERS").pos(line, col).detail(format!("{name}(): {}", m.note.clone().unwrap_or_default())).rewrite(m.rewrite.clone().unwrap_or_default()));
                }
                (Some("differs"), Some("one_arg")) if tys.len() == 1 => {
                    self.push(Hit::new("FN-DIFFERS").pos(line, col).detail(format!("{name}(): {}", m.note.clone().unwrap_or_default())).rewrite(m.rewrite.clone().unwrap_or_default()));
                }
                (Some("note"), _) => self.push(Hit::new("FN-NOTE").pos(line, col).detail(format!("{name}(): {}", m.note.clone().unwrap_or_default()))),
                _ => {}
            }
            // Argument classes.
            if let Some(variants) = &m.args
                && let Some(v) = variants.iter().find(|v| v.len() == tys.len())
            {
                for (t, class) in tys.iter().zip(v) {
                    if !accepts(class, &t.ty) {
                        self.push(
                            Hit::new("FN-ARGS")
                                .pos(line, col)
                                .detail(format!(
                                    "{}({} …): no such function for {}",
                                    name.to_lowercase(),
                                    t.ty.name(),
                                    t.ty.name()
                                ))
                                .rewrite(format!(
                                    "cast the argument: {}(x::{})",
                                    name.to_lowercase(),
                                    if class == "text" { "text" } else { "numeric" }
                                )),
                        );
                        break;
                    }
                }
            }
        }
        // Semantics specific to a few functions.
        match name.as_str() {
            "COALESCE" | "IFNULL" | "NULLIF" | "GREATEST" | "LEAST" => {
                if let Some(typed) = tys.iter().find(|t| t.ty.is_typed() && !t.ty.is_text()) {
                    for t in &tys {
                        if let Ty::StrLit(s) = &t.ty
                            && literal_for(&typed.ty, s) == Literal::Invalid
                        {
                            self.push(Hit::new("SEM-001L").pos(line, col).detail(format!(
                                "'{s}' mixed with {} in {name}()",
                                typed.ty.name()
                            )));
                        }
                    }
                }
            }
            "CONCAT" | "CONCAT_WS" => {
                for t in &tys {
                    match t.ty {
                        Ty::Bool | Ty::Timestamp | Ty::TimestampTz if t.col.is_some() => {
                            self.push(
                                Hit::new("SEM-027")
                                    .pos(line, col)
                                    .detail(format!("{name}() of a {} column", t.ty.name())),
                            );
                        }
                        Ty::Char if t.col.is_some() => self.push(
                            Hit::new("SEM-023")
                                .pos(line, col)
                                .detail(format!("{name}() of a CHAR column")),
                        ),
                        _ => {}
                    }
                }
            }
            "SUM" | "AVG" => {
                if let Some(t) = tys.first() {
                    if matches!(t.ty, Ty::Text | Ty::Char | Ty::Bool | Ty::Enum(_)) {
                        self.push(
                            Hit::new(if matches!(t.ty, Ty::Bool) {
                                "SEM-015"
                            } else {
                                "SEM-021"
                            })
                            .pos(line, col)
                            .detail(format!(
                                "{}({})",
                                name.to_lowercase(),
                                t.ty.name()
                            )),
                        );
                    } else if name == "AVG" && matches!(t.ty, Ty::Numeric) {
                        self.push(Hit::new("SEM-025").pos(line, col));
                    }
                }
            }
            "MIN" | "MAX" => {
                if let Some(t) = tys.first()
                    && t.ci()
                    && t.ty.is_text()
                {
                    self.push(
                        Hit::new("CASE-005")
                            .pos(line, col)
                            .detail(format!("{name}() of a case-insensitive string column")),
                    );
                }
            }
            "COUNT" if is_distinct_call(f) => {
                if let Some(t) = tys.first()
                    && t.ci()
                {
                    self.push(
                        Hit::new("CASE-004")
                            .pos(line, col)
                            .detail("COUNT(DISTINCT) of a case-insensitive string column"),
                    );
                }
            }
            "MOD" => {
                if let Some(Typed {
                    ty: Ty::NumLit { text, .. },
                    ..
                }) = tys.get(1)
                    && is_zero_literal(text)
                {
                    self.push(Hit::new("SEM-003").pos(line, col).detail("MOD(x, 0)"));
                }
            }
            _ => {}
        }
        let ret = match m.returns.as_deref() {
            Some(r) if r.starts_with("arg") => r[3..]
                .parse::<usize>()
                .ok()
                .and_then(|i| tys.get(i.wrapping_sub(1)))
                .map(|t| match &t.ty {
                    Ty::NumLit { integer: true, .. } => Ty::Int,
                    Ty::NumLit { .. } => Ty::Numeric,
                    Ty::StrLit(_) => Ty::Text,
                    other => other.clone(),
                }),
            Some(class) => Some(Ty::from_class(class, &[])),
            None => None,
        };
        Typed::of(ret.unwrap_or(Ty::Unknown))
    }

    /// Function checks for whatever is walked without typing (SET, CALL, DDL expressions, …).
    fn scan_functions<V: Visit>(&mut self, node: &V) {
        let mut found = Vec::new();
        let _ = visit_expressions(node, |x| {
            if let Expr::Function(f) = x {
                found.push((fn_name(f), pos(x)));
            }
            ControlFlow::<()>::Continue(())
        });
        for (n, (l, c)) in found {
            let mut hs = Vec::new();
            function_hit(self.profile(), &n, 0, &mut hs);
            for h in hs {
                self.push(Hit { offset: None, ..h }.pos(l, c));
            }
        }
    }

    // ------------------------------------------------------------------------------------ DML

    /// A value assigned to a column (INSERT VALUES, UPDATE SET): what the target accepts.
    fn assign(&mut self, col: &'a Column, value: &Expr) {
        let target = Ty::of_column(col, self.profile());
        let v = self.expr(value);
        let (line, c) = pos(value);
        if col.auto_increment {
            match &v.ty {
                Ty::Null => {
                    self.push(Hit::new("DML-018").pos(line, c).detail(col.name.clone()));
                    return;
                }
                Ty::NumLit { text, .. } if text == "0" => {
                    self.push(Hit::new("DML-018Z").pos(line, c).detail(col.name.clone()));
                    return;
                }
                _ => {}
            }
        }
        match (&target, &v.ty) {
            (Ty::Bool, Ty::NumLit { .. } | Ty::Int | Ty::Numeric) => self.push(
                Hit::new("SEM-015")
                    .pos(line, c)
                    .detail(format!("{} is boolean on the target", col.name)),
            ),
            (Ty::Enum(_), Ty::NumLit { .. }) => self.push(
                Hit::new("SEM-016")
                    .pos(line, c)
                    .detail(format!("number into enum column {}", col.name)),
            ),
            (t, Ty::StrLit(s)) if t.is_typed() => match literal_for(t, s) {
                Literal::Invalid => {
                    let rule = match t {
                        Ty::Date | Ty::Timestamp | Ty::TimestampTz | Ty::Time => "SEM-017",
                        Ty::Enum(_) => "SEM-016",
                        _ => "SEM-001L",
                    };
                    self.push(Hit::new(rule).pos(line, c).detail(format!(
                        "'{s}' into {} ({})",
                        col.name,
                        t.name()
                    )));
                }
                Literal::ValidDifferent(why) => self.push(
                    Hit::new("SEM-017W")
                        .pos(line, c)
                        .detail(format!("'{s}': {why}")),
                ),
                Literal::Valid => {}
            },
            (t, Ty::Bool) if t.is_numeric() || t.is_text() => {
                self.push(Hit::new("SEM-015").pos(line, c).detail(format!(
                    "boolean into {} column {}",
                    t.name(),
                    col.name
                )))
            }
            _ => {}
        }
    }

    fn insert(&mut self, ins: &Insert) {
        let table = match &ins.table {
            TableObject::TableName(n) => {
                last_ident(n).and_then(|i| self.ctx.schema.and_then(|s| s.table(&i.value)))
            }
            _ => None,
        };
        for c in &ins.columns {
            if let (Some(t), Some(id)) = (table, c.0.last().and_then(|p| p.as_ident()))
                && let Some(col) = t.column(&id.value)
            {
                self.check_name_case(id, &col.name);
            }
        }
        let cols: Vec<Option<&'a Column>> = match table {
            Some(t) if ins.columns.is_empty() => t.columns.iter().map(Some).collect(),
            Some(t) => ins
                .columns
                .iter()
                .map(|c| {
                    c.0.last()
                        .and_then(|p| p.as_ident())
                        .and_then(|i| t.column(&i.value))
                })
                .collect(),
            None => Vec::new(),
        };
        if let Some(src) = &ins.source {
            match &*src.body {
                SetExpr::Values(v) if !cols.is_empty() => {
                    for row in &v.rows {
                        for (i, e) in row.iter().enumerate() {
                            match cols.get(i).copied().flatten() {
                                Some(col) => self.assign(col, e),
                                None => {
                                    self.expr(e);
                                }
                            }
                        }
                    }
                }
                _ => self.query(src),
            }
        }
        for a in &ins.assignments {
            self.assignment(a, table);
        }
    }

    fn assignment(&mut self, a: &Assignment, table: Option<&'a Table>) {
        let col = match &a.target {
            AssignmentTarget::ColumnName(n) => {
                let parts: Vec<Ident> = n.0.iter().filter_map(|p| p.as_ident().cloned()).collect();
                self.resolve(&parts)
                    .map(|(_, c)| c)
                    .or_else(|| table.and_then(|t| parts.last().and_then(|i| t.column(&i.value))))
            }
            _ => None,
        };
        match col {
            Some(c) => self.assign(c, &a.value),
            None => {
                self.expr(&a.value);
            }
        }
    }

    fn update(&mut self, u: &Update) {
        let table = match &u.table.relation {
            TableFactor::Table { name, .. } => {
                last_ident(name).and_then(|i| self.ctx.schema.and_then(|s| s.table(&i.value)))
            }
            _ => None,
        };
        let mut assigned: Vec<String> = Vec::new();
        for a in &u.assignments {
            // A later assignment reading a column set earlier: MySQL sees the new value.
            let mut reads = Vec::new();
            let _ = visit_expressions(&a.value, |x| {
                match x {
                    Expr::Identifier(i) => reads.push(i.value.to_lowercase()),
                    Expr::CompoundIdentifier(v) => {
                        reads.extend(v.last().map(|i| i.value.to_lowercase()))
                    }
                    _ => {}
                }
                ControlFlow::<()>::Continue(())
            });
            if reads.iter().any(|r| assigned.contains(r)) && u.table.joins.is_empty() {
                let (l, c) = pos(&a.value);
                self.push(Hit::new("DML-026").pos(l, c));
            }
            self.assignment(a, table);
            if let AssignmentTarget::ColumnName(n) = &a.target
                && let Some(i) = n.0.last().and_then(|p| p.as_ident())
            {
                assigned.push(i.value.to_lowercase());
            }
        }
        for j in &u.table.joins {
            if let JoinOperator::Join(JoinConstraint::On(e))
            | JoinOperator::Inner(JoinConstraint::On(e))
            | JoinOperator::Left(JoinConstraint::On(e))
            | JoinOperator::LeftOuter(JoinConstraint::On(e)) = &j.join_operator
            {
                self.condition(e);
            }
        }
        if let Some(w) = &u.selection {
            self.condition(w);
        }
    }

    fn delete(&mut self, d: &Delete) {
        if let Some(w) = &d.selection {
            self.condition(w);
        }
    }

    // ------------------------------------------------------------------------------------ DDL

    fn column_def(&mut self, c: &ColumnDef) {
        let t = MySqlType::parse(&c.data_type.to_string());
        let (l, cl) = ipos(&c.name);
        type_hits(self.profile(), &t, Some((l, cl)), &mut self.hits);
        self.check_reserved(&c.name);
        for o in &c.options {
            match &o.option {
                ColumnOption::OnUpdate(_) => {
                    self.push(Hit::new("DDL-009").pos(l, cl).detail(c.name.value.clone()))
                }
                ColumnOption::Comment(_) => {
                    self.push(Hit::new("DDL-003").pos(l, cl).detail(c.name.value.clone()))
                }
                ColumnOption::CharacterSet(_) | ColumnOption::Collation(_) => {
                    self.push(Hit::new("DDL-026").pos(l, cl).detail(o.option.to_string()))
                }
                ColumnOption::Generated { .. } => {
                    let text = o.option.to_string().to_ascii_uppercase();
                    if text.contains("VIRTUAL")
                        || !text.contains("STORED")
                        || !text.contains("GENERATED ALWAYS")
                    {
                        self.push(Hit::new("DDL-011").pos(l, cl).detail(c.name.value.clone()));
                    }
                }
                ColumnOption::Default(e) => {
                    let text = e.to_string();
                    if text.contains("0000-00-00") {
                        self.push(
                            Hit::new("TYP-ZERO")
                                .pos(l, cl)
                                .detail(format!("DEFAULT {text}")),
                        );
                    }
                }
                other => {
                    if other
                        .to_string()
                        .to_ascii_uppercase()
                        .contains("AUTO_INCREMENT")
                    {
                        self.push(
                            Hit::new("DDL-001")
                                .pos(l, cl)
                                .detail(c.name.value.clone())
                                .rewrite(format!(
                                    "{} BIGINT GENERATED BY DEFAULT AS IDENTITY",
                                    c.name.value
                                )),
                        );
                        self.push(Hit::new("SEM-010").pos(l, cl).detail(c.name.value.clone()));
                    }
                }
            }
        }
        // `VARCHAR(20) CHARACTER SET x COLLATE y` may be inside the type.
        let dt = c.data_type.to_string().to_ascii_uppercase();
        if dt.contains("CHARACTER SET") || dt.contains(" COLLATE ") {
            self.push(
                Hit::new("DDL-026")
                    .pos(l, cl)
                    .detail(c.data_type.to_string()),
            );
        }
    }

    fn create_table(&mut self, ct: &CreateTable) {
        for c in &ct.columns {
            self.column_def(c);
        }
        if let Some(n) = last_ident(&ct.name) {
            self.check_reserved(n);
        }
        for k in &ct.constraints {
            let text = k.to_string();
            let up = text.to_ascii_uppercase();
            if up.starts_with("FULLTEXT") || up.starts_with("SPATIAL") {
                self.push(
                    Hit::new("DDL-020")
                        .detail(text.split_whitespace().next().unwrap_or("").to_string()),
                );
            } else if up.starts_with("KEY")
                || up.starts_with("INDEX")
                || up.contains("UNIQUE KEY")
                || up.contains("UNIQUE INDEX")
            {
                self.push(Hit::new("DDL-004").detail(text.chars().take(60).collect::<String>()));
            }
            if up.contains("USING BTREE") || up.contains("USING HASH") {
                self.push(Hit::new("DDL-005B"));
            }
            if has_prefix_length(&text) {
                self.push(Hit::new("DDL-005").detail(text.chars().take(60).collect::<String>()));
            }
        }
        if ct.comment.is_some() {
            self.push(Hit::new("DDL-002").detail("COMMENT="));
        }
        if let Some(q) = &ct.query {
            self.query(q);
        }
    }

    fn alter_table(&mut self, at: &AlterTable) {
        for op in &at.operations {
            match op {
                AlterTableOperation::AddColumn { column_def, .. } => self.column_def(column_def),
                AlterTableOperation::ModifyColumn { .. }
                | AlterTableOperation::ChangeColumn { .. } => {}
                other => {
                    let up = other.to_string().to_ascii_uppercase();
                    if up.starts_with("ADD FULLTEXT") || up.starts_with("ADD SPATIAL") {
                        self.push(Hit::new("DDL-020"));
                    }
                }
            }
        }
    }
}

/// `name(10)` inside a key's column list.
fn has_prefix_length(key: &str) -> bool {
    let Some(open) = key.find('(') else {
        return false;
    };
    let inner = &key[open + 1..key.rfind(')').unwrap_or(key.len())];
    let b = inner.as_bytes();
    (0..b.len()).any(|i| b[i] == b'(' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
}

/// Does the expression produce a boolean (a comparison, a logical operator)?
fn is_condition(e: &Expr) -> bool {
    match e {
        Expr::Nested(x) => is_condition(x),
        Expr::BinaryOp { op, .. } => matches!(
            op,
            BinaryOperator::Eq
                | BinaryOperator::NotEq
                | BinaryOperator::Lt
                | BinaryOperator::LtEq
                | BinaryOperator::Gt
                | BinaryOperator::GtEq
                | BinaryOperator::And
                | BinaryOperator::Or
        ),
        Expr::IsNull(_)
        | Expr::IsNotNull(_)
        | Expr::In { .. }
        | Expr::Between { .. }
        | Expr::Like { .. }
        | Expr::Exists { .. } => true,
        _ => false,
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

fn class_of(t: &Ty) -> u8 {
    match t {
        Ty::Int | Ty::Numeric | Ty::Float => 1,
        Ty::Text | Ty::Char | Ty::Enum(_) => 2,
        Ty::Bool => 3,
        Ty::Date | Ty::Time | Ty::Timestamp | Ty::TimestampTz => 4,
        Ty::Json => 5,
        Ty::Bytes => 6,
        Ty::Bits => 7,
        Ty::Interval => 8,
        _ => 0,
    }
}

/// Does a function argument of class `t` fit the accepted class?
fn accepts(class: &str, t: &Ty) -> bool {
    if !t.is_typed() {
        return true;
    }
    match class {
        "text" => t.is_text() || matches!(t, Ty::Enum(_) | Ty::Json),
        "number" => t.is_numeric(),
        "exact" => matches!(t, Ty::Int | Ty::Numeric),
        "integer" => matches!(t, Ty::Int),
        _ => true,
    }
}

/// The type of a CAST target written the MySQL way.
fn cast_ty(dt: &str) -> Ty {
    let u = dt.to_ascii_uppercase();
    let base = u.split([' ', '(']).next().unwrap_or("");
    match base {
        "INT" | "INTEGER" | "BIGINT" | "SMALLINT" | "TINYINT" | "SIGNED" | "UNSIGNED" | "YEAR" => {
            Ty::Int
        }
        "DECIMAL" | "NUMERIC" | "DEC" => Ty::Numeric,
        "FLOAT" | "DOUBLE" | "REAL" => Ty::Float,
        "CHAR" | "VARCHAR" | "TEXT" | "NCHAR" | "CHARACTER" => Ty::Text,
        "DATE" => Ty::Date,
        "DATETIME" | "TIMESTAMP" => Ty::Timestamp,
        "TIME" => Ty::Time,
        "JSON" | "JSONB" => Ty::Json,
        "BINARY" | "VARBINARY" | "BLOB" | "BYTEA" => Ty::Bytes,
        "BOOLEAN" | "BOOL" => Ty::Bool,
        _ => Ty::Unknown,
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

/// A numeric literal that is zero (`0`, `-0`, `0.0`, `.0`).
fn is_zero_literal(text: &str) -> bool {
    text.trim_start_matches('-')
        .trim_start_matches('0')
        .trim_start_matches('.')
        .trim_start_matches('0')
        .is_empty()
}
