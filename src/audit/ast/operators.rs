//! Operators: comparisons, arithmetic, `||` and the logical operators on typed operands.

use super::{Checker, Typed, pos};
use crate::audit::Hit;
use crate::audit::typing::{Literal, Ty, literal_for};
use sqlparser::ast::*;

impl<'a, 'c> Checker<'a, 'c> {
    pub(super) fn binary(
        &mut self,
        e: &Expr,
        left: &Expr,
        op: &BinaryOperator,
        right: &Expr,
    ) -> Typed<'a> {
        use BinaryOperator::*;
        // `a = 'x' || b = 'y'` is MySQL's OR of two comparisons; the tree, where `||` binds tighter
        // than `=`, holds `(a = ('x' || b)) = 'y'`, a chain of comparisons the target rejects (they
        // do not associate there). Those comparisons are not the statement's: the `||` under them
        // is reported as an OR of conditions and nothing is compared.
        let chained =
            |x: &Expr| matches!(x, Expr::BinaryOp { op, .. } if is_comparison(op)) && misread_or(x);
        if is_comparison(op) && (chained(left) || chained(right)) {
            for x in [left, right] {
                self.misread_operand(x);
            }
            return Typed::of(Ty::Bool);
        }
        let l = self.expr(left);
        let r = self.expr(right);
        match op {
            op if is_comparison(op) => {
                self.compare(pos(e), &l, &r, op);
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

    /// A comparison between two typed operands, reported at `at` (line, column). The caller
    /// computes the position once: an expression's span is the union of its children's, so asking
    /// it per item of a 100,000-value IN list would be quadratic.
    pub(super) fn compare(
        &mut self,
        at: (u64, u64),
        l: &Typed<'a>,
        r: &Typed<'a>,
        op: &BinaryOperator,
    ) {
        let (line, col) = at;
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

    pub(super) fn arith(
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

/// A numeric literal that is zero (`0`, `-0`, `0.0`, `.0`).
pub(super) fn is_zero_literal(text: &str) -> bool {
    text.trim_start_matches('-')
        .trim_start_matches('0')
        .trim_start_matches('.')
        .trim_start_matches('0')
        .is_empty()
}

fn is_comparison(op: &BinaryOperator) -> bool {
    use BinaryOperator::*;
    matches!(op, Eq | NotEq | Lt | LtEq | Gt | GtEq | Spaceship)
}

/// True for a `||` or a comparison with one under it, through comparisons only: an operand of
/// a comparison that MySQL reads as part of an OR (see [`Checker::binary`]).
fn misread_or(e: &Expr) -> bool {
    match e {
        Expr::BinaryOp {
            op: BinaryOperator::StringConcat,
            ..
        } => true,
        Expr::BinaryOp { left, op, right } if is_comparison(op) => {
            misread_or(left) || misread_or(right)
        }
        _ => false,
    }
}

impl<'a, 'c> Checker<'a, 'c> {
    /// An operand of a comparison misread around a `||`: the `||` is an OR of conditions
    /// (LEX-007E), the comparisons are skipped, everything else is checked as usual.
    fn misread_operand(&mut self, e: &Expr) {
        match e {
            Expr::BinaryOp {
                left,
                op: BinaryOperator::StringConcat,
                right,
            } => {
                let (ln, cn) = pos(e);
                self.push(Hit::new("LEX-007E").pos(ln, cn));
                self.misread_operand(left);
                self.misread_operand(right);
            }
            Expr::BinaryOp { left, op, right } if is_comparison(op) => {
                self.misread_operand(left);
                self.misread_operand(right);
            }
            x => {
                self.expr(x);
            }
        }
    }
}
