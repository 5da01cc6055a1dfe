//! MySQL functions the target lacks whose translation depends on the arguments' types and
//! collations, on the AST: `FIELD(x, a, b, …)` (the position of `x` among the values, compared as
//! MySQL compares them), `ELT(n, a, b, …)` (the `n`th value), `HEX(x)` (of a string's bytes or of
//! an integer), `UNHEX(s)` of a valid hex string, `STRCMP(a, b)` under the arguments' collation,
//! and CONCAT's booleans and date-times written as MySQL writes them.

use super::rewrite_dml::last_name;
use super::rewrite_expr::{case_insensitive, column};
use crate::schema::Table;
use sqlparser::ast::*;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;
use std::ops::ControlFlow;

/// The findings this pass translates.
pub fn handles(rule: &str, detail: Option<&str>) -> bool {
    (rule == "FN-MISSING"
        && matches!(
            detail,
            Some("FIELD()" | "ELT()" | "HEX()" | "UNHEX()" | "STRCMP()")
        ))
        || (rule == "SEM-027"
            && detail.is_some_and(|d| {
                ["CONCAT", "CONCAT_WS"].iter().any(|f| {
                    ["boolean", "timestamp", "timestamptz"]
                        .iter()
                        .any(|t| d == format!("{f}() of a {t} column"))
                })
            }))
}

/// The arguments of CONCAT/CONCAT_WS written as MySQL writes them in a string: a TINYINT(1)
/// (boolean here) as `1`/`0`, a DATETIME/TIMESTAMP with exactly its fractional digits and no zone.
fn concat_args(f: &mut Function, tables: &[&Table]) -> Option<()> {
    let FunctionArguments::List(l) = &mut f.args else {
        return Some(());
    };
    for a in &mut l.args {
        let FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) = a else {
            continue;
        };
        let Some(c) = column(x, tables) else {
            continue;
        };
        let template = if c.mysql_type.is_tinyint1() {
            "CAST(cutover_0 AS integer)".to_string()
        } else if matches!(c.mysql_type.base.as_str(), "DATETIME" | "TIMESTAMP") {
            let fraction = match c.mysql_type.length.unwrap_or(0) {
                0 => String::new(),
                6 => ".US".to_string(),
                3 => ".MS".to_string(),
                _ => return None,
            };
            format!("to_char(cutover_0, 'YYYY-MM-DD HH24:MI:SS{fraction}')")
        } else {
            continue;
        };
        let v = x.clone();
        *x = fill(&template, &[v])?;
    }
    Some(())
}

/// `template` parsed, with each `cutover_<k>` replaced by `args[k]`.
pub(super) fn fill(template: &str, args: &[Expr]) -> Option<Expr> {
    let mut e = Parser::new(&PostgreSqlDialect {})
        .try_with_sql(template)
        .ok()?
        .parse_expr()
        .ok()?;
    let _ = visit_expressions_mut(&mut e, |n| {
        if let Expr::Identifier(i) = n
            && let Some(k) = i.value.strip_prefix("cutover_")
            && let Ok(k) = k.parse::<usize>()
            && let Some(a) = args.get(k)
        {
            *n = a.clone();
        }
        ControlFlow::<()>::Continue(())
    });
    Some(e)
}

fn args_of(f: &Function) -> Option<Vec<Expr>> {
    let FunctionArguments::List(l) = &f.args else {
        return None;
    };
    l.args
        .iter()
        .map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Some(x.clone()),
            _ => None,
        })
        .collect()
}

fn is_string(e: &Expr) -> bool {
    matches!(e, Expr::Value(v) if matches!(v.value, Value::SingleQuotedString(_)))
}

fn is_number(e: &Expr) -> bool {
    matches!(e, Expr::Value(v) if matches!(v.value, Value::Number(..)))
}

/// Translates a FIELD or ELT call at `e`. None when one has arguments this pass does not
/// translate (values of mixed kinds, a value that is not one of an ENUM's members).
pub fn calls(e: &mut Expr, tables: &[&Table]) -> Option<()> {
    let Expr::Function(f) = e else {
        return Some(());
    };
    let name = last_name(&f.name).unwrap_or_default().to_ascii_uppercase();
    if matches!(name.as_str(), "CONCAT" | "CONCAT_WS") {
        return concat_args(f, tables);
    }
    if !matches!(name.as_str(), "FIELD" | "ELT" | "HEX" | "UNHEX" | "STRCMP") {
        return Some(());
    }
    let args = args_of(f)?;
    if name == "STRCMP" {
        *e = strcmp(&args, tables)?;
        return Some(());
    }
    if name == "HEX" || name == "UNHEX" {
        let [x] = args.as_slice() else {
            return None;
        };
        let c = column(x, tables);
        let template = if name == "UNHEX" {
            // Only a string of whole hex pairs: MySQL answers NULL for the rest, the target fails.
            if !even_hex(x) {
                return None;
            }
            "decode(cutover_0, 'hex')"
        } else if is_string(x) || c.is_some_and(|c| c.mysql_type.is_text()) {
            "upper(encode(convert_to(CAST(cutover_0 AS text), 'UTF8'), 'hex'))"
        } else if is_number(x) && !x.to_string().contains(['.', 'e', 'E'])
            || c.is_some_and(|c| c.mysql_type.is_integer())
        {
            // 64-bit two's complement for negatives, as MySQL.
            "upper(to_hex(CAST(cutover_0 AS bigint)))"
        } else {
            return None;
        };
        *e = fill(template, &args)?;
        return Some(());
    }
    let (first, values) = args.split_first()?;
    if values.is_empty() {
        return None;
    }
    let mut whens = String::new();
    let mut parts = vec![first.clone()];
    if name == "FIELD" {
        let strings = values.iter().all(is_string);
        if !(strings || values.iter().all(is_number)) {
            return None;
        }
        let members = column(first, tables)
            .filter(|c| c.mysql_type.base == "ENUM")
            .map(|c| &c.mysql_type.members);
        for (k, v) in values.iter().enumerate() {
            if let (Some(m), Expr::Value(x)) = (members, v)
                && let Value::SingleQuotedString(s) = &x.value
                && !m.contains(s)
            {
                return None;
            }
            // Compared as MySQL compares them: under the column's collation.
            let mut eq = Expr::BinaryOp {
                left: Box::new(first.clone()),
                op: BinaryOperator::Eq,
                right: Box::new(v.clone()),
            };
            case_insensitive(&mut eq, tables);
            parts.push(eq);
            whens.push_str(&format!(" WHEN cutover_{} THEN {}", k + 1, k + 1));
        }
        *e = fill(&format!("(CASE{whens} ELSE 0 END)"), &parts)?;
    } else {
        // MySQL rounds a fractional position, as the cast does.
        for (k, v) in values.iter().enumerate() {
            parts.push(v.clone());
            whens.push_str(&format!(" WHEN {} THEN cutover_{}", k + 1, k + 1));
        }
        *e = fill(
            &format!("(CASE CAST(cutover_0 AS bigint){whens} END)"),
            &parts,
        )?;
    }
    Some(())
}

/// `STRCMP(a, b)` compared as MySQL compares its arguments: under a `_ci` collation (a column's, or
/// the connection's for two literals) on upper() of both, as `*_general_ci` weighs letters (so `_`
/// sorts after letters, as there), rtrim'd too when the collation pads with spaces; else as they
/// are. Always in code-point order (`COLLATE ucs_basic`), whatever the target database's locale.
/// (Accents, which `_ci` collations also ignore, stay significant.) None for an argument that is
/// neither a string literal nor a string column: MySQL compares numbers as strings there.
fn strcmp(args: &[Expr], tables: &[&Table]) -> Option<Expr> {
    let [a, b] = args else {
        return None;
    };
    let mut columns = Vec::new();
    for x in args {
        match column(x, tables) {
            Some(c) if c.mysql_type.is_text() => columns.push(c),
            _ if is_string(x) => {}
            _ => return None,
        }
    }
    let folded = columns.is_empty() || columns.iter().any(|c| c.case_insensitive());
    let pad = columns.iter().any(|c| c.pad_space());
    let side = |k: usize| {
        let mut x = format!("cutover_{k}");
        if folded {
            x = format!("upper({x})");
        }
        if pad {
            x = format!("rtrim({x})");
        }
        x
    };
    let (l, r) = (side(0), side(1));
    fill(
        &format!(
            "(CASE WHEN {l} < {r} COLLATE ucs_basic THEN -1 WHEN {l} > {r} COLLATE ucs_basic THEN 1 \
             WHEN {l} = {r} THEN 0 END)"
        ),
        &[a.clone(), b.clone()],
    )
}

/// True for text that is whole hex pairs: a literal of them, or `upper(encode(…, 'hex'))` (HEX of
/// a string as translated here; the call's argument is translated before the call).
fn even_hex(x: &Expr) -> bool {
    match x {
        Expr::Value(v) => matches!(&v.value, Value::SingleQuotedString(s)
            if s.len() % 2 == 0 && s.bytes().all(|b| b.is_ascii_hexdigit())),
        Expr::Function(f)
            if last_name(&f.name).is_some_and(|n| n.eq_ignore_ascii_case("upper")) =>
        {
            args_of(f).is_some_and(|a| match a.as_slice() {
                [Expr::Function(g)] => {
                    last_name(&g.name).is_some_and(|n| n.eq_ignore_ascii_case("encode"))
                        && args_of(g).is_some_and(|b| {
                            matches!(b.as_slice(), [_, Expr::Value(v)]
                                if matches!(&v.value, Value::SingleQuotedString(s) if s == "hex"))
                        })
                }
                _ => false,
            })
        }
        _ => false,
    }
}
