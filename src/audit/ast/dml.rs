//! INSERT, UPDATE and DELETE: the values assigned to columns and the conditions.

use super::{Checker, last_ident, pos};
use crate::audit::Hit;
use crate::audit::typing::{Literal, Ty, literal_for};
use crate::schema::{Column, Table};
use sqlparser::ast::*;
use std::ops::ControlFlow;

impl<'a, 'c> Checker<'a, 'c> {
    /// A value assigned to a column (INSERT VALUES, UPDATE SET): what the target accepts.
    pub(super) fn assign(&mut self, col: &'a Column, value: &Expr) {
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

    pub(super) fn insert(&mut self, ins: &Insert) {
        let table = match &ins.table {
            TableObject::TableName(n) => {
                let t = last_ident(n).and_then(|i| self.ctx.schema.and_then(|s| s.table(&i.value)));
                if t.is_none() {
                    self.check_in_schema(n);
                }
                t
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

    pub(super) fn assignment(&mut self, a: &Assignment, table: Option<&'a Table>) {
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

    pub(super) fn update(&mut self, u: &Update) {
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

    pub(super) fn delete(&mut self, d: &Delete) {
        if let Some(w) = &d.selection {
            self.condition(w);
        }
    }
}
