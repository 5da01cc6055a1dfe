//! Expression rewrites on sqlparser's AST, for the statement forms of `rewrite_dml`: a column's
//! schema type (`column`, `integer_valued`), booleans stored as TINYINT(1), integer division
//! (MySQL's decimal quotient), case-insensitive comparisons under a `_ci` collation, `DIV`, and
//! GROUP_CONCAT → string_agg.

use super::rewrite_dml::{ident, last_name};
use crate::schema::Table;
use sqlparser::ast::*;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;

/// The column `e` names, when one of the statement's tables has it (and no other does).
pub(super) fn column<'a>(e: &Expr, tables: &[&'a Table]) -> Option<&'a crate::schema::Column> {
    let name = match e {
        Expr::Identifier(i) => &i.value,
        Expr::CompoundIdentifier(p) => &p.last()?.value,
        _ => return None,
    };
    let mut found = tables.iter().filter_map(|t| t.column(name));
    let c = found.next()?;
    found.next().is_none().then_some(c)
}

/// True when `e` is a column MySQL declares TINYINT(1)/BOOL, which the target has as boolean.
pub(super) fn bool_column(e: &Expr, tables: &[&Table]) -> bool {
    column(e, tables).is_some_and(|c| {
        (c.mysql_type.base == "TINYINT" && c.mysql_type.length == Some(1))
            || matches!(c.mysql_type.base.as_str(), "BOOL" | "BOOLEAN")
    })
}

/// `0`/`1` as `false`/`true`.
pub(super) fn bool_literal(e: &Expr) -> Option<Expr> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) if n == "0" => Some(Expr::value(Value::Boolean(false))),
            Value::Number(n, _) if n == "1" => Some(Expr::value(Value::Boolean(true))),
            _ => None,
        },
        _ => None,
    }
}

fn cast_integer(e: Expr) -> Expr {
    Expr::Cast {
        kind: CastKind::Cast,
        expr: Box::new(e),
        data_type: DataType::Integer(None),
        format: None,
    }
}

/// A boolean (TINYINT(1)) column used as a number: compared with 0/1 → with false/true; in
/// arithmetic or SUM/AVG → CAST(col AS INTEGER).
pub(super) fn booleans(e: &mut Expr, tables: &[&Table]) {
    match e {
        Expr::BinaryOp { left, op, right } => {
            if matches!(op, BinaryOperator::Eq | BinaryOperator::NotEq) {
                if bool_column(left, tables)
                    && let Some(b) = bool_literal(right)
                {
                    **right = b;
                } else if bool_column(right, tables)
                    && let Some(b) = bool_literal(left)
                {
                    **left = b;
                }
            } else if matches!(
                op,
                BinaryOperator::Plus
                    | BinaryOperator::Minus
                    | BinaryOperator::Multiply
                    | BinaryOperator::Divide
            ) {
                for side in [left, right] {
                    if bool_column(side, tables) {
                        let x = std::mem::replace(side.as_mut(), Expr::value(Value::Null));
                        **side = cast_integer(x);
                    }
                }
            }
        }
        Expr::Function(f)
            if last_name(&f.name)
                .is_some_and(|n| matches!(n.to_ascii_uppercase().as_str(), "SUM" | "AVG")) =>
        {
            if let FunctionArguments::List(l) = &mut f.args
                && let [FunctionArg::Unnamed(FunctionArgExpr::Expr(x))] = l.args.as_mut_slice()
                && bool_column(x, tables)
            {
                let v = std::mem::replace(x, Expr::value(Value::Null));
                *x = cast_integer(v);
            }
        }
        _ => {}
    }
}

fn is_integer_type(base: &str) -> bool {
    matches!(
        base,
        "TINYINT" | "SMALLINT" | "MEDIUMINT" | "INT" | "INTEGER" | "BIGINT"
    )
}

/// True when `e` has an integer value (scale 0) in MySQL: an integer literal, an integer column,
/// COUNT, SUM of one of those.
pub(super) fn integer_valued(e: &Expr, tables: &[&Table]) -> bool {
    match e {
        Expr::Value(v) => {
            matches!(&v.value, Value::Number(n, _) if n.chars().all(|c| c.is_ascii_digit()))
        }
        Expr::Nested(x) => integer_valued(x, tables),
        Expr::Function(f) => {
            let name = last_name(&f.name).unwrap_or_default().to_ascii_uppercase();
            let FunctionArguments::List(l) = &f.args else {
                return false;
            };
            match (name.as_str(), l.args.as_slice()) {
                ("COUNT", _) => true,
                ("SUM", [FunctionArg::Unnamed(FunctionArgExpr::Expr(x))]) => {
                    integer_valued(x, tables)
                }
                _ => false,
            }
        }
        _ => column(e, tables)
            .is_some_and(|c| is_integer_type(&c.mysql_type.base) && c.mysql_type.length != Some(1)),
    }
}

/// `a / b` of integers: MySQL answers in decimal with 4 more digits of scale, the target truncates
/// to an integer. Written `round(CAST(a AS numeric) / b, 4)`.
pub(super) fn division(e: &mut Expr, tables: &[&Table], null_divisor: bool) {
    if let Expr::BinaryOp {
        left,
        op: BinaryOperator::Divide,
        right,
    } = e
        && integer_valued(left, tables)
        && integer_valued(right, tables)
    {
        // With SEM-003, the divisor as NULLIF(b, 0) here: the pass over divisors does not see
        // inside this new expression.
        let text = if null_divisor {
            format!("round(CAST({left} AS numeric) / NULLIF({right}, 0), 4)")
        } else {
            format!("round(CAST({left} AS numeric) / {right}, 4)")
        };
        if let Some(x) = Parser::new(&PostgreSqlDialect {})
            .try_with_sql(&text)
            .ok()
            .and_then(|mut p| p.parse_expr().ok())
        {
            *e = Expr::Nested(Box::new(x));
        }
    }
}

/// True when `e` is a column the schema says compares case-insensitively (a text column with a
/// `_ci` collation; not ENUM/SET, which the target keeps as other types).
fn ci_column(e: &Expr, tables: &[&Table]) -> bool {
    column(e, tables).is_some_and(|c| {
        c.case_insensitive() && !matches!(c.mysql_type.base.as_str(), "ENUM" | "SET")
    })
}

fn is_string(e: &Expr) -> bool {
    matches!(e, Expr::Value(v) if matches!(v.value, Value::SingleQuotedString(_) | Value::DoubleQuotedString(_)))
}

/// `lower(e)`, and `rtrim(…)` of it for a PAD SPACE column (`'a' = 'a  '` there).
fn fold(e: Expr, pad: bool) -> Expr {
    let l = call("lower", e);
    if pad { call("rtrim", l) } else { l }
}

fn call(name: &str, e: Expr) -> Expr {
    call_of(name, vec![e])
}

/// `name(args…)`, a plain call.
pub(super) fn call_of(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Function(Function {
        name: ObjectName::from(vec![ident(name)]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: args
                .into_iter()
                .map(|a| FunctionArg::Unnamed(FunctionArgExpr::Expr(a)))
                .collect(),
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    })
}

/// A `_ci` column compared with a string: `=`/`<>` on lower() of both sides (rtrim'd too when the
/// collation pads with spaces), LIKE as ILIKE, IN on lower(). (Accents, which `_ci` collations also
/// ignore, stay significant.)
pub(super) fn case_insensitive(e: &mut Expr, tables: &[&Table]) {
    let pad = |x: &Expr| column(x, tables).is_some_and(|c| c.pad_space());
    match e {
        Expr::BinaryOp { left, op, right }
            if matches!(op, BinaryOperator::Eq | BinaryOperator::NotEq)
                && ((ci_column(left, tables) && is_string(right))
                    || (is_string(left) && ci_column(right, tables))) =>
        {
            let p = pad(left) || pad(right);
            let l = std::mem::replace(left.as_mut(), Expr::value(Value::Null));
            let r = std::mem::replace(right.as_mut(), Expr::value(Value::Null));
            **left = fold(l, p);
            **right = fold(r, p);
        }
        Expr::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char,
        } if ci_column(expr, tables) && is_string(pattern) => {
            *e = Expr::ILike {
                negated: *negated,
                any: false,
                expr: expr.clone(),
                pattern: pattern.clone(),
                escape_char: escape_char.clone(),
            };
        }
        Expr::In {
            expr,
            target: InTarget::List(list),
            ..
        } if ci_column(expr, tables) && list.iter().all(is_string) => {
            let p = pad(expr);
            let x = std::mem::replace(expr.as_mut(), Expr::value(Value::Null));
            **expr = fold(x, p);
            for item in list.iter_mut() {
                let v = std::mem::replace(item, Expr::value(Value::Null));
                *item = fold(v, p);
            }
        }
        _ => {}
    }
}

/// `a DIV b` → `div(a, b)` (integer quotient, truncated toward zero as MySQL's), GROUP_CONCAT →
/// string_agg. None when a GROUP_CONCAT has a form with no translation.
pub(super) fn expr(e: &mut Expr) -> Option<()> {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::MyIntegerDivide,
            right,
        } => {
            let call = format!("CAST(div({left}, {right}) AS BIGINT)");
            *e = Parser::new(&PostgreSqlDialect {})
                .try_with_sql(&call)
                .ok()?
                .parse_expr()
                .ok()?;
        }
        // a XOR b (booleans): a <> b, NULL when either is.
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Xor,
            right,
        } => {
            let l = std::mem::replace(left.as_mut(), Expr::value(Value::Null));
            let r = std::mem::replace(right.as_mut(), Expr::value(Value::Null));
            *e = Expr::Nested(Box::new(Expr::BinaryOp {
                left: Box::new(Expr::Nested(Box::new(l))),
                op: BinaryOperator::NotEq,
                right: Box::new(Expr::Nested(Box::new(r))),
            }));
        }
        Expr::Function(f)
            if last_name(&f.name).is_some_and(|n| n.eq_ignore_ascii_case("GROUP_CONCAT")) =>
        {
            let FunctionArguments::List(list) = &mut f.args else {
                return None;
            };
            if list.args.len() != 1 {
                return None;
            }
            let distinct = matches!(list.duplicate_treatment, Some(DuplicateTreatment::Distinct));
            let mut sep = Expr::value(Value::SingleQuotedString(",".into()));
            let mut clauses = Vec::new();
            for c in list.clauses.drain(..) {
                match c {
                    FunctionArgumentClause::Separator(v) => sep = Expr::value(v.value),
                    FunctionArgumentClause::OrderBy(o) => {
                        clauses.push(FunctionArgumentClause::OrderBy(o))
                    }
                    _ => return None,
                }
            }
            let FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) = list.args.remove(0) else {
                return None;
            };
            // With DISTINCT, the target wants the ORDER BY among the arguments: no cast then.
            let arg = if distinct {
                x
            } else {
                Expr::Cast {
                    kind: CastKind::Cast,
                    expr: Box::new(x),
                    data_type: DataType::Text,
                    format: None,
                }
            };
            list.args = vec![
                FunctionArg::Unnamed(FunctionArgExpr::Expr(arg)),
                FunctionArg::Unnamed(FunctionArgExpr::Expr(sep)),
            ];
            list.clauses = clauses;
            f.name = ObjectName::from(vec![ident("string_agg")]);
        }
        _ => {}
    }
    Some(())
}
