//! Expressions: each typed as the target would type it, with the findings on the way.

use super::{Checker, Typed, pos};
use crate::audit::Hit;
use crate::audit::tokens::cast_type_hit;
use crate::audit::typing::{Literal, Ty, literal_for};
use sqlparser::ast::*;

impl<'a, 'c> Checker<'a, 'c> {
    /// Types an expression without recording findings (it was checked already).
    pub(super) fn expr_quiet(&mut self, e: &Expr) -> Typed<'a> {
        let n = self.hits.len();
        let t = self.expr(e);
        self.hits.truncate(n);
        t
    }

    pub(super) fn expr(&mut self, e: &Expr) -> Typed<'a> {
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
                let at = pos(e);
                for item in list {
                    let it = self.expr(item);
                    self.compare(at, &t, &it, &BinaryOperator::Eq);
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
                let at = pos(e);
                self.compare(at, &t, &lo, &BinaryOperator::GtEq);
                self.compare(at, &t, &hi, &BinaryOperator::LtEq);
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
                let at = pos(e);
                for cw in conditions {
                    let ct = self.expr(&cw.condition);
                    if let Some(o) = &op {
                        self.compare(at, o, &ct, &BinaryOperator::Eq);
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
