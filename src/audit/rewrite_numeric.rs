//! Expression rewrites for MySQL's lenient numbers, on the AST: a division or remainder by zero is
//! NULL in a MySQL query (the target raises an error), and LIKE on a number matches its text (the
//! target has no LIKE for numbers); NULLs sort first in MySQL.

use super::rewrite_dml::last_name;
use super::rewrite_expr::{call_of, column, integer_valued};
use crate::schema::Table;
use sqlparser::ast::*;

/// `NULLIF(e, 0)`.
fn null_if_zero(e: Expr) -> Expr {
    call_of(
        "NULLIF",
        vec![e, Expr::value(Value::Number("0".into(), false))],
    )
}

/// True when `e` is a number literal other than zero: dividing by it cannot fail.
fn nonzero_literal(e: &Expr) -> bool {
    match e {
        Expr::Value(v) => {
            matches!(&v.value, Value::Number(n, _) if n.chars().any(|c| c.is_ascii_digit() && c != '0'))
        }
        Expr::Nested(x) => nonzero_literal(x),
        _ => false,
    }
}

/// The divisor of `a / b`, `a % b`, `a DIV b` and `MOD(a, b)` as `NULLIF(b, 0)`: MySQL answers a
/// division by zero with NULL in a query (a warning), where the target raises an error. Only for
/// queries: in writes, MySQL's default strict mode (ERROR_FOR_DIVISION_BY_ZERO) fails as well.
pub fn null_divisor(e: &mut Expr) {
    let divisor = match e {
        Expr::BinaryOp {
            op: BinaryOperator::Divide | BinaryOperator::Modulo | BinaryOperator::MyIntegerDivide,
            right,
            ..
        } => Some(right.as_mut()),
        Expr::Function(f) if last_name(&f.name).is_some_and(|n| n.eq_ignore_ascii_case("MOD")) => {
            match &mut f.args {
                FunctionArguments::List(l) if l.args.len() == 2 => match &mut l.args[1] {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Some(x),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    };
    if let Some(d) = divisor
        && !nonzero_literal(d)
    {
        let old = std::mem::replace(d, Expr::value(Value::Null));
        *d = null_if_zero(old);
    }
}

/// `n LIKE p` on an integer, DECIMAL, DATE or ENUM column: `CAST(n AS text) LIKE p`, the text MySQL
/// matches (both servers write these types the same way). None for a column of another non-text
/// type (a DATETIME with fractions, a TIMESTAMP or a boolean reads differently as text); text
/// columns and other expressions are left as they are.
pub fn like_on_text(e: &mut Expr, tables: &[&Table]) -> Option<()> {
    let (Expr::Like { expr, .. } | Expr::ILike { expr, .. }) = e else {
        return Some(());
    };
    let Some(c) = column(expr, tables) else {
        return Some(());
    };
    let base = c.mysql_type.base.as_str();
    if c.mysql_type.is_text() {
        return Some(());
    }
    if !(integer_valued(expr, tables) || matches!(base, "DECIMAL" | "NUMERIC" | "DATE" | "ENUM")) {
        return None;
    }
    let old = std::mem::replace(expr.as_mut(), Expr::value(Value::Null));
    **expr = Expr::Cast {
        kind: CastKind::Cast,
        expr: Box::new(old),
        data_type: DataType::Text,
        format: None,
    };
    Some(())
}

/// The query's ORDER BY with MySQL's place for NULLs spelled out: NULL is the smallest value in
/// MySQL (first ascending, last descending), the largest here. None when the query has no ORDER BY
/// of expressions (the NULL ordering found is in a subquery or a window, not translated) or one
/// orders with USING.
pub fn mysql_null_order(q: &mut Query) -> Option<()> {
    let OrderByKind::Expressions(items) = &mut q.order_by.as_mut()?.kind else {
        return None;
    };
    for o in items {
        let descending = match &o.options.sort {
            None | Some(OrderBySort::Asc) => false,
            Some(OrderBySort::Desc) => true,
            Some(OrderBySort::Using(_)) => return None,
        };
        if o.options.nulls_first.is_none() {
            o.options.nulls_first = Some(!descending);
        }
    }
    Some(())
}

/// `AVG(c)` of an integer or DECIMAL column as `round(avg(c), scale + 4)`: MySQL answers with the
/// column's scale plus 4 (div_precision_increment), rounded; the target with 16 or more digits.
/// None for an AVG of anything else (its scale is not known here).
pub fn avg_scale(e: &mut Expr, tables: &[&Table]) -> Option<()> {
    let Expr::Function(f) = e else {
        return Some(());
    };
    if !last_name(&f.name).is_some_and(|n| n.eq_ignore_ascii_case("AVG")) || f.over.is_some() {
        return Some(());
    }
    let FunctionArguments::List(l) = &f.args else {
        return None;
    };
    let [FunctionArg::Unnamed(FunctionArgExpr::Expr(x))] = l.args.as_slice() else {
        return None;
    };
    let c = column(x, tables)?;
    let scale = if integer_valued(x, tables) {
        0
    } else if matches!(c.mysql_type.base.as_str(), "DECIMAL" | "NUMERIC") {
        c.mysql_type.scale.unwrap_or(0)
    } else {
        return None;
    };
    let avg = std::mem::replace(e, Expr::value(Value::Null));
    *e = call_of(
        "round",
        vec![
            avg,
            Expr::value(Value::Number((scale + 4).to_string(), false)),
        ],
    );
    Some(())
}

/// `COALESCE(n, 'text')` with integer, DECIMAL or YEAR columns: each such column as
/// `CAST(n AS text)`. MySQL answers in a string (the number's text, as the target writes it too); the target refuses
/// the mix. Other arguments are left: a string literal or column is text already.
pub fn coalesce_text(e: &mut Expr, tables: &[&Table]) {
    let Expr::Function(f) = e else {
        return;
    };
    if !last_name(&f.name).is_some_and(|n| n.eq_ignore_ascii_case("COALESCE")) {
        return;
    }
    let FunctionArguments::List(l) = &mut f.args else {
        return;
    };
    let has_string = l.args.iter().any(|a| {
        matches!(a, FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v)))
            if matches!(v.value, Value::SingleQuotedString(_)))
    });
    if !has_string {
        return;
    }
    for a in &mut l.args {
        if let FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) = a
            && column(x, tables).is_some_and(|c| {
                integer_valued(x, tables)
                    || matches!(c.mysql_type.base.as_str(), "DECIMAL" | "NUMERIC" | "YEAR")
            })
        {
            let old = std::mem::replace(x, Expr::value(Value::Null));
            *x = Expr::Cast {
                kind: CastKind::Cast,
                expr: Box::new(old),
                data_type: DataType::Text,
                format: None,
            };
        }
    }
}
