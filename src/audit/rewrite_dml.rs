//! Rewrites on sqlparser's AST (`VisitMut`) for MySQL statements whose structure the target writes
//! differently: `INSERT … ON DUPLICATE KEY UPDATE` → `ON CONFLICT (key) DO UPDATE` (`VALUES(c)` →
//! `EXCLUDED.c`), `REPLACE` → `INSERT … ON CONFLICT (key) DO UPDATE` of every column, `INSERT
//! IGNORE` → `ON CONFLICT DO NOTHING`, `INSERT … SET` → a column list and `VALUES`, `UPDATE/DELETE …
//! [ORDER BY] LIMIT n` → `WHERE ctid IN (SELECT ctid … LIMIT n)`, multi-table `UPDATE … JOIN` →
//! `UPDATE … FROM`, multi-table `DELETE` → `DELETE … USING`, `a DIV b` → `div(a, b)`,
//! `GROUP_CONCAT(x ORDER BY y SEPARATOR s)` → `string_agg(CAST(x AS TEXT), s ORDER BY y)` (the
//! expression rewrites live in `rewrite_expr`).
//! The statement is printed back from the tree; the token rewriter then does the rest.

use super::Context;
use super::ast::parse;
use crate::schema::Table;
use sqlparser::ast::*;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;
use std::ops::ControlFlow;

use super::rewrite_expr::{
    bool_column, bool_literal, booleans, call_of, case_insensitive, division, expr,
};

/// The rules translated here, with the function rule's detail for GROUP_CONCAT.
pub fn handles(rule: &str, detail: Option<&str>) -> bool {
    matches!(
        rule,
        "DML-002"
            | "DML-003"
            | "DML-004"
            | "DML-005"
            | "DML-006"
            | "DML-007"
            | "DML-008"
            | "LEX-010"
            | "LEX-011"
            | "DML-018"
            | "SEM-015"
            | "DML-011"
            | "DML-020"
            | "DML-021"
            | "SEM-002"
            | "CASE-002"
            | "CASE-003"
            | "SEM-003"
            | "SEM-019"
            | "SEM-005"
            | "SEM-025"
            // An alias without AS that the target reads as a keyword: the tree prints every
            // alias with AS.
            | "LEX-006A"
    ) || (rule == "FN-ARGS"
        && detail.is_some_and(|d| {
            let d = d.to_ascii_lowercase();
            d.starts_with("sum(boolean") || d.starts_with("avg(boolean")
        }))
        || (rule == "SEM-001L"
            && detail.is_some_and(|d| d.ends_with(" in COALESCE()") && d.starts_with('\'')))
        || (rule == "FN-MISSING"
            && detail.is_some_and(|d| d.to_ascii_uppercase().starts_with("GROUP_CONCAT(")))
        || super::rewrite_lenient::handles(rule, detail)
        || super::rewrite_calls::handles(rule, detail)
}

pub(super) fn ident(s: &str) -> Ident {
    Ident::new(s)
}

pub(super) fn last_name(n: &ObjectName) -> Option<String> {
    n.0.last()
        .and_then(|p| p.as_ident())
        .map(|i| i.value.clone())
}

/// The key an upsert conflicts on: the primary key when the insert gives all its columns, else the
/// first unique key it gives in full.
fn conflict_key(table: &Table, cols: &[String]) -> Option<Vec<String>> {
    let given = |k: &Vec<String>| {
        !k.is_empty()
            && k.iter()
                .all(|c| cols.iter().any(|x| x.eq_ignore_ascii_case(c)))
    };
    std::iter::once(&table.primary_key)
        .chain(table.unique_keys.iter())
        .find(|k| given(k))
        .cloned()
}

/// What the statement's findings ask of the expression pass.
#[derive(Clone, Copy, Default)]
pub struct Semantics {
    /// SEM-002: an integer division, which MySQL answers in decimal.
    pub decimal_division: bool,
    /// CASE-002/CASE-003: a comparison or LIKE on a case-insensitive column.
    pub case_insensitive: bool,
    /// SEM-015: a TINYINT(1) column, boolean on the target, used as a number.
    pub booleans: bool,
    /// SEM-003: a division or remainder by zero, NULL in a MySQL query.
    pub null_divisors: bool,
    /// SEM-019: LIKE on a number, a date or an ENUM.
    pub like_on_text: bool,
    /// SEM-005: ORDER BY a nullable column, where NULLs sort first in MySQL and last here.
    pub null_order: bool,
    /// SEM-025: AVG of exact numbers, which MySQL answers with 4 more digits of scale.
    pub avg_scale: bool,
    /// SEM-001L in COALESCE: a string literal among numbers, a string result in MySQL.
    pub coalesce_text: bool,
    /// Strings meeting numbers, ENUMs meeting numbers, numbers as conditions
    /// ([`super::rewrite_lenient`]): how many the findings name; the pass must translate as many.
    pub lenient: usize,
    /// FIELD/ELT ([`super::rewrite_calls`]).
    pub calls: bool,
    /// `a || b` between single values: MySQL's OR of them as numbers.
    pub value_pipes: bool,
}

/// The statement translated, or None when it is not one of these forms (or the schema does not
/// say what it needs).
pub fn rewrite(sql: &str, ctx: &Context, sem: Semantics) -> Option<String> {
    let mut st = parse(sql)?;
    // The tables the statement names, for the columns' types and collations.
    let mut tables: Vec<&Table> = Vec::new();
    if let Some(schema) = ctx.schema {
        let _ = visit_relations(&st, |r| {
            if let Some(t) = last_name(r).and_then(|n| schema.table(&n))
                && !tables.iter().any(|x| std::ptr::eq(*x, t))
            {
                tables.push(t);
            }
            ControlFlow::<()>::Continue(())
        });
    }
    let ok = match &mut st {
        Statement::Insert(ins) => insert(ins, ctx, sem.booleans),
        Statement::Update(up) => update(up, &tables, sem.booleans),
        Statement::Delete(del) => delete(del),
        Statement::Query(q) => match q.body.as_mut() {
            SetExpr::Select(sel) => select(sel, &tables),
            _ => Some(()),
        },
        _ => Some(()),
    };
    ok?;
    if sem.null_order {
        let Statement::Query(q) = &mut st else {
            return None;
        };
        super::rewrite_numeric::mysql_null_order(q)?;
    }
    // Writes fail on a division by zero in MySQL's default strict mode, as on the target.
    if sem.null_divisors && !matches!(st, Statement::Query(_)) {
        return None;
    }
    let mut failed = false;
    let mut lenient = 0;
    let _ = visit_expressions_mut(&mut st, |e| {
        if expr(e).is_none() {
            failed = true;
        }
        if sem.calls && super::rewrite_calls::calls(e, &tables).is_none() {
            failed = true;
        }
        if sem.lenient > 0
            && super::rewrite_lenient::lenient(e, &tables, sem.value_pipes, &mut lenient).is_none()
        {
            failed = true;
        }
        if sem.decimal_division {
            division(e, &tables, sem.null_divisors);
        }
        if sem.null_divisors {
            super::rewrite_numeric::null_divisor(e);
        }
        if sem.like_on_text && super::rewrite_numeric::like_on_text(e, &tables).is_none() {
            failed = true;
        }
        if sem.avg_scale && super::rewrite_numeric::avg_scale(e, &tables).is_none() {
            failed = true;
        }
        if sem.coalesce_text {
            super::rewrite_numeric::coalesce_text(e, &tables);
        }
        if sem.case_insensitive {
            case_insensitive(e, &tables);
        }
        if sem.booleans {
            booleans(e, &tables);
        }
        ControlFlow::<()>::Continue(())
    });
    (!failed && lenient >= sem.lenient).then(|| st.to_string())
}

fn insert(ins: &mut Insert, ctx: &Context, booleans: bool) -> Option<()> {
    if ins.insert_alias.is_some() || ins.priority.is_some() {
        return None;
    }
    let TableObject::TableName(tname) = &ins.table else {
        return None;
    };
    let tname = tname.clone();
    let table_name = last_name(&tname)?;
    // INSERT … SET a = 1, b = 2 → INSERT … (a, b) VALUES (1, 2)
    if !ins.assignments.is_empty() {
        let mut cols = Vec::new();
        let mut vals = Vec::new();
        for a in ins.assignments.drain(..) {
            let AssignmentTarget::ColumnName(c) = a.target else {
                return None;
            };
            cols.push(ObjectName::from(vec![ident(&last_name(&c)?)]));
            vals.push(a.value);
        }
        ins.columns = cols;
        ins.source = Some(Box::new(Query {
            with: None,
            body: Box::new(SetExpr::Values(Values {
                explicit_row: false,
                value_keyword: false,
                rows: vec![Parens::with_empty_span(vals)],
            })),
            order_by: None,
            limit_clause: None,
            fetch: None,
            locks: vec![],
            for_clause: None,
            settings: None,
            format_clause: None,
            pipe_operators: vec![],
        }));
    }
    let cols: Vec<String> = ins.columns.iter().filter_map(last_name).collect();
    let table = || ctx.schema.and_then(|s| s.table(&table_name));
    // VALUES rows: NULL or 0 into an AUTO_INCREMENT column asks MySQL for the next value (DEFAULT
    // here); 0/1 into a TINYINT(1) column is false/true.
    if let Some(t) = table()
        && let Some(src) = &mut ins.source
        && let SetExpr::Values(values) = src.body.as_mut()
    {
        for (j, c) in cols.iter().enumerate() {
            let Some(col) = t.column(c) else { continue };
            let boolean = (col.mysql_type.base == "TINYINT" && col.mysql_type.length == Some(1))
                || matches!(col.mysql_type.base.as_str(), "BOOL" | "BOOLEAN");
            for row in values.rows.iter_mut() {
                let Some(v) = row.get_mut(j) else { continue };
                let zero_or_null = matches!(v, Expr::Value(x) if matches!(&x.value, Value::Null)
                    || matches!(&x.value, Value::Number(n, _) if n == "0"));
                let true_or_false = match v {
                    Expr::Value(x) => match x.value {
                        Value::Boolean(b) => Some(b),
                        _ => None,
                    },
                    _ => None,
                };
                if col.auto_increment && zero_or_null {
                    *v = Expr::Identifier(ident("DEFAULT"));
                } else if booleans
                    && col.mysql_type.is_text()
                    && let Some(b) = true_or_false
                {
                    // TRUE is the number 1 in MySQL, stored in a string column as '1'.
                    *v = Expr::value(Value::SingleQuotedString(if b { "1" } else { "0" }.into()));
                } else if booleans
                    && boolean
                    && let Some(b) = bool_literal(v)
                {
                    *v = b;
                }
            }
        }
    }
    if ins.replace_into {
        // REPLACE: the row with the same key is replaced by the new one, the columns not given
        // taking their defaults.
        let t = table()?;
        let key = conflict_key(t, &cols)?;
        let assignments = t
            .columns
            .iter()
            .filter(|c| !key.iter().any(|k| k.eq_ignore_ascii_case(&c.name)))
            .map(|c| Assignment {
                target: AssignmentTarget::ColumnName(ObjectName::from(vec![ident(&c.name)])),
                value: if cols.iter().any(|x| x.eq_ignore_ascii_case(&c.name)) {
                    Expr::CompoundIdentifier(vec![ident("EXCLUDED"), ident(&c.name)])
                } else {
                    Expr::Identifier(ident("DEFAULT"))
                },
            })
            .collect::<Vec<_>>();
        ins.replace_into = false;
        ins.into = true;
        ins.on = Some(OnInsert::OnConflict(OnConflict {
            conflict_target: Some(ConflictTarget::Columns {
                columns: key.iter().map(|k| ident(k)).collect(),
                predicate: None,
            }),
            action: if assignments.is_empty() {
                OnConflictAction::DoNothing
            } else {
                OnConflictAction::DoUpdate(DoUpdate {
                    assignments,
                    selection: None,
                })
            },
        }));
        return Some(());
    }
    if ins.ignore {
        if ins.on.is_some() {
            return None;
        }
        // IGNORE turns MySQL's error for a string too long for its column into a warning, and
        // stores the string cut to the column's length.
        if let Some(t) = table()
            && let Some(src) = &mut ins.source
            && let SetExpr::Values(values) = src.body.as_mut()
        {
            for (j, c) in cols.iter().enumerate() {
                let Some(col) = t.column(c) else { continue };
                let Some(n) = col.mysql_type.length.filter(|_| {
                    matches!(
                        col.mysql_type.base.as_str(),
                        "VARCHAR" | "CHAR" | "NVARCHAR" | "NCHAR"
                    )
                }) else {
                    continue;
                };
                for row in values.rows.iter_mut() {
                    let Some(v) = row.get_mut(j) else { continue };
                    let fits = match v {
                        Expr::Value(x) => match &x.value {
                            Value::SingleQuotedString(s) => s.chars().count() as u64 <= n,
                            Value::Null | Value::Number(..) | Value::Boolean(_) => true,
                            _ => false,
                        },
                        Expr::Identifier(i) => i.value.eq_ignore_ascii_case("DEFAULT"),
                        _ => false,
                    };
                    if !fits {
                        let x = std::mem::replace(v, Expr::value(Value::Null));
                        *v = call_of(
                            "left",
                            vec![
                                Expr::Cast {
                                    kind: CastKind::Cast,
                                    expr: Box::new(x),
                                    data_type: DataType::Text,
                                    format: None,
                                },
                                Expr::value(Value::Number(n.to_string(), false)),
                            ],
                        );
                    }
                }
            }
        }
        ins.ignore = false;
        ins.on = Some(OnInsert::OnConflict(OnConflict {
            conflict_target: None,
            action: OnConflictAction::DoNothing,
        }));
        return Some(());
    }
    if let Some(OnInsert::DuplicateKeyUpdate(assignments)) = &mut ins.on {
        let t = table()?;
        let key = conflict_key(t, &cols)?;
        let mut out = Vec::new();
        for a in assignments.drain(..) {
            let AssignmentTarget::ColumnName(c) = a.target else {
                return None;
            };
            let mut value = a.value;
            let mut bad = false;
            let _ = visit_expressions_mut(&mut value, |e| {
                match e {
                    // A column of the row: the existing row's, named through the table.
                    Expr::Identifier(i) => {
                        *e = Expr::CompoundIdentifier(vec![ident(&table_name), i.clone()]);
                    }
                    // VALUES(c): the row proposed for insertion.
                    Expr::Function(f)
                        if last_name(&f.name).is_some_and(|n| n.eq_ignore_ascii_case("VALUES")) =>
                    {
                        let col = match &f.args {
                            FunctionArguments::List(l) if l.args.len() == 1 => match &l.args[0] {
                                FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Identifier(
                                    i,
                                ))) => Some(i.clone()),
                                FunctionArg::Unnamed(FunctionArgExpr::Expr(
                                    Expr::CompoundIdentifier(p),
                                )) => p.last().cloned(),
                                _ => None,
                            },
                            _ => None,
                        };
                        match col {
                            Some(c) => {
                                *e = Expr::CompoundIdentifier(vec![ident("EXCLUDED"), c]);
                            }
                            None => bad = true,
                        }
                    }
                    Expr::Subquery(_) | Expr::Exists { .. } | Expr::In { .. } => bad = true,
                    _ => {}
                }
                ControlFlow::<()>::Continue(())
            });
            if bad {
                return None;
            }
            out.push(Assignment {
                target: AssignmentTarget::ColumnName(ObjectName::from(vec![ident(&last_name(
                    &c,
                )?)])),
                value,
            });
        }
        ins.on = Some(OnInsert::OnConflict(OnConflict {
            conflict_target: Some(ConflictTarget::Columns {
                columns: key.iter().map(|k| ident(k)).collect(),
                predicate: None,
            }),
            action: OnConflictAction::DoUpdate(DoUpdate {
                assignments: out,
                selection: None,
            }),
        }));
    }
    Some(())
}

/// MySQL's SELECT extensions: `GROUP BY … WITH ROLLUP` → `GROUP BY ROLLUP (…)`, a HAVING that
/// names a select alias → the aliased expression, HAVING with no GROUP BY nor aggregate → WHERE.
fn select(sel: &mut Select, tables: &[&Table]) -> Option<()> {
    if let GroupByExpr::Expressions(exprs, modifiers) = &mut sel.group_by
        && modifiers.contains(&GroupByWithModifier::Rollup)
    {
        if modifiers.len() != 1 {
            return None;
        }
        let items: Vec<Vec<Expr>> = exprs.drain(..).map(|e| vec![e]).collect();
        *exprs = vec![Expr::Rollup(items)];
        modifiers.clear();
    }
    let Some(having) = &mut sel.having else {
        return Some(());
    };
    // Aliases of the select list, when no table of the statement has a column of that name.
    let aliases: Vec<(String, Expr)> = sel
        .projection
        .iter()
        .filter_map(|p| match p {
            SelectItem::ExprWithAlias { expr, alias } => Some((alias.value.clone(), expr.clone())),
            _ => None,
        })
        .filter(|(a, _)| !tables.iter().any(|t| t.column(a).is_some()))
        .collect();
    let _ = visit_expressions_mut(having, |e| {
        if let Expr::Identifier(i) = e
            && let Some((_, x)) = aliases
                .iter()
                .find(|(a, _)| a.eq_ignore_ascii_case(&i.value))
        {
            *e = Expr::Nested(Box::new(x.clone()));
        }
        ControlFlow::<()>::Continue(())
    });
    let grouped = !matches!(&sel.group_by, GroupByExpr::Expressions(e, _) if e.is_empty());
    let mut calls = false;
    let _ = visit_expressions(&sel.projection, |e| {
        calls |= matches!(e, Expr::Function(_));
        ControlFlow::<()>::Continue(())
    });
    if let Some(h) = &sel.having {
        let _ = visit_expressions(h, |e| {
            calls |= matches!(e, Expr::Function(_) | Expr::Subquery(_));
            ControlFlow::<()>::Continue(())
        });
    }
    if !grouped && !calls {
        let h = sel.having.take();
        sel.selection = and(sel.selection.take(), h);
    }
    Some(())
}

/// The name a FROM item is referred to by (its alias, else its table name).
fn ref_name(t: &TableFactor) -> Option<String> {
    match t {
        TableFactor::Table { name, alias, .. } => alias
            .as_ref()
            .map(|a| a.name.value.clone())
            .or_else(|| last_name(name)),
        _ => None,
    }
}

fn and(a: Option<Expr>, b: Option<Expr>) -> Option<Expr> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Expr::BinaryOp {
            left: Box::new(Expr::Nested(Box::new(a))),
            op: BinaryOperator::And,
            right: Box::new(Expr::Nested(Box::new(b))),
        }),
        (a, b) => a.or(b),
    }
}

/// The ON condition of an inner join (None: another kind of join).
fn inner_on(j: &Join) -> Option<Expr> {
    match &j.join_operator {
        JoinOperator::Join(JoinConstraint::On(e)) | JoinOperator::Inner(JoinConstraint::On(e)) => {
            Some(e.clone())
        }
        _ => None,
    }
}

/// `… WHERE ctid IN (SELECT ctid FROM t WHERE … ORDER BY … LIMIT n)`.
fn ctid_subquery(
    from: &TableFactor,
    selection: &Option<Expr>,
    order_by: &[OrderByExpr],
    limit: &Expr,
) -> Option<Expr> {
    let mut q = format!("ctid IN (SELECT ctid FROM {from}");
    if let Some(w) = selection {
        q.push_str(&format!(" WHERE {w}"));
    }
    if !order_by.is_empty() {
        let o: Vec<String> = order_by.iter().map(|o| o.to_string()).collect();
        q.push_str(&format!(" ORDER BY {}", o.join(", ")));
    }
    q.push_str(&format!(" LIMIT {limit})"));
    Parser::new(&PostgreSqlDialect {})
        .try_with_sql(&q)
        .ok()?
        .parse_expr()
        .ok()
}

fn update(up: &mut Update, tables: &[&Table], booleans: bool) -> Option<()> {
    if up.from.is_some() {
        return None;
    }
    if booleans {
        for a in &mut up.assignments {
            if let AssignmentTarget::ColumnName(c) = &a.target
                && let Some(name) = last_name(c)
                && bool_column(&Expr::Identifier(ident(&name)), tables)
                && let Some(b) = bool_literal(&a.value)
            {
                a.value = b;
            }
        }
    }
    if !up.table.joins.is_empty() {
        if up.limit.is_some() || !up.order_by.is_empty() {
            return None;
        }
        // UPDATE a JOIN b ON c SET a.x = … WHERE w → UPDATE a SET x = … FROM b WHERE c AND w: only
        // when every assignment is to the first table.
        let first = ref_name(&up.table.relation)?;
        for a in &mut up.assignments {
            let AssignmentTarget::ColumnName(c) = &a.target else {
                return None;
            };
            let parts: Vec<String> =
                c.0.iter()
                    .filter_map(|p| p.as_ident().map(|i| i.value.clone()))
                    .collect();
            match parts.as_slice() {
                [q, col] if q.eq_ignore_ascii_case(&first) => {
                    a.target = AssignmentTarget::ColumnName(ObjectName::from(vec![ident(col)]));
                }
                _ => return None,
            }
        }
        let mut joins = std::mem::take(&mut up.table.joins).into_iter();
        let j1 = joins.next()?;
        let on = inner_on(&j1)?;
        let rest: Vec<Join> = joins.collect();
        if rest.iter().any(|j| inner_on(j).is_none()) {
            return None;
        }
        up.from = Some(UpdateTableFromKind::AfterSet(vec![TableWithJoins {
            relation: j1.relation,
            joins: rest,
        }]));
        up.selection = and(Some(on), up.selection.take());
        return Some(());
    }
    if let Some(limit) = up.limit.take() {
        let sub = ctid_subquery(&up.table.relation, &up.selection, &up.order_by, &limit)?;
        up.order_by.clear();
        up.selection = Some(sub);
    }
    Some(())
}

fn delete(del: &mut Delete) -> Option<()> {
    let from = match &mut del.from {
        FromTable::WithFromKeyword(f) | FromTable::WithoutKeyword(f) => f,
    };
    let multi = !del.tables.is_empty() || del.using.is_some();
    if !multi {
        let [t] = from.as_mut_slice() else {
            return None;
        };
        if !t.joins.is_empty() {
            return None;
        }
        if let Some(limit) = del.limit.take() {
            let sub = ctid_subquery(&t.relation, &del.selection, &del.order_by, &limit)?;
            del.order_by.clear();
            del.selection = Some(sub);
        }
        return Some(());
    }
    if del.limit.is_some() || !del.order_by.is_empty() {
        return None;
    }
    // The one table rows are deleted from, and the list of tables it is found in.
    let (target, mut list) = if !del.tables.is_empty() {
        if del.using.is_some() || del.tables.len() != 1 {
            return None;
        }
        (last_name(&del.tables[0])?, std::mem::take(from))
    } else {
        let [t] = from.as_slice() else {
            return None;
        };
        if !t.joins.is_empty() {
            return None;
        }
        (ref_name(&t.relation)?, del.using.take()?)
    };
    // Find the target among the items: first of a join chain, or one of a comma list.
    let at = list
        .iter()
        .position(|t| ref_name(&t.relation).is_some_and(|n| n.eq_ignore_ascii_case(&target)))?;
    let mut item = list.remove(at);
    let mut cond = None;
    let mut using = list;
    if !item.joins.is_empty() {
        let mut joins = std::mem::take(&mut item.joins).into_iter();
        let j1 = joins.next()?;
        cond = Some(inner_on(&j1)?);
        let rest: Vec<Join> = joins.collect();
        if rest.iter().any(|j| inner_on(j).is_none()) {
            return None;
        }
        using.insert(
            0,
            TableWithJoins {
                relation: j1.relation,
                joins: rest,
            },
        );
    }
    if using.is_empty() {
        return None;
    }
    del.tables.clear();
    del.from = FromTable::WithFromKeyword(vec![item]);
    del.using = Some(using);
    del.selection = and(cond, del.selection.take());
    Some(())
}

#[cfg(test)]
#[path = "rewrite_dml_tests.rs"]
mod tests;
