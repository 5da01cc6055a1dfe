//! MySQL's lenient conversions, written out on the AST: a string meets a number as the number its
//! leading characters spell (`'2abc'` is 2, `'abc'` is 0), in double precision; an ENUM meets a
//! number as its member's position; a number is true when it is not zero; the zero date is below
//! every date; `COLLATE …_bin` compares bytes. The target refuses each form, so each is spelled out
//! as MySQL evaluates it.

use super::rewrite_dml::last_name;
use super::rewrite_expr::column;
use crate::schema::{Column, Table};
use sqlparser::ast::*;

/// The findings this pass translates: a string literal or column meeting a number (SEM-001,
/// SEM-001L), SUM/AVG of strings (SEM-021 and the FN-ARGS it causes), an ENUM compared with a number
/// or with a string that is not one of its members (SEM-016), IS TRUE / NOT on a number (SEM-020).
pub fn handles(rule: &str, detail: Option<&str>) -> bool {
    // LEX-024: `s = BINARY 'x'`; SEM-018: a DATE in arithmetic with a number.
    if matches!(rule, "LEX-024" | "SEM-018") || companion(rule, detail) {
        return true;
    }
    let Some(d) = detail else {
        return false;
    };
    let text = |s: &str| matches!(s, "character varying" | "character");
    let number = |s: &str| matches!(s, "integer" | "numeric" | "double precision");
    let operands = |d: &str| -> bool {
        let words: Vec<&str> = d.split(' ').collect();
        // `<type> <op> <type>`, types of one or two words.
        let Some(op_at) = words.iter().position(|w| is_operator(w)) else {
            return false;
        };
        let (l, r) = (words[..op_at].join(" "), words[op_at + 1..].join(" "));
        (text(&l) && number(&r)) || (number(&l) && text(&r))
    };
    match rule {
        "SEM-001" => {
            operands(d) || (d.starts_with('\'') && d.ends_with("': operator is not unique"))
        }
        "SEM-001L" => {
            d.starts_with('\'')
                && (d.ends_with("' in arithmetic")
                    || ["integer", "numeric", "double precision"]
                        .iter()
                        .any(|t| d.ends_with(&format!("' for a {t} value"))))
        }
        "SEM-021" => ["sum(", "avg("]
            .iter()
            .any(|f| d == format!("{f}character varying)") || d == format!("{f}character)")),
        "SEM-016" => {
            (d.starts_with("enum ") && d.ends_with(" integer"))
                || (d.starts_with('\'') && d.ends_with("' for a enum value"))
        }
        // `d > '0000-00-00'`: the zero date is below every date.
        "SEM-017" => {
            d.starts_with("'0000-00-00")
                && ["date", "timestamp", "timestamptz"]
                    .iter()
                    .any(|t| d.ends_with(&format!("' for a {t} value")))
        }
        // `s = 'x '` on a PAD SPACE column: trailing spaces do not count.
        "CASE-006" => d.starts_with('\'') && d.ends_with(" '"),
        // `s COLLATE utf8mb4_bin = 'x'`: a byte-wise comparison, which the target's is.
        "LEX-023" => d.ends_with("_bin"),
        // `ISNULL(a) OR b`, `n AND m`: an integer operand of a logical operator.
        "SEM-020"
            if ["integer", "numeric", "double precision"].iter().any(|t| {
                ["OR", "AND", "XOR"]
                    .iter()
                    .any(|o| d == format!("{t} operand of {o}"))
            }) =>
        {
            true
        }
        // `s = BINARY 'x'`: a byte-wise comparison, which the target's is.
        "LEX-024" => true,
        "SEM-020" => matches!(
            d,
            "IS TRUE on integer"
                | "IS TRUE on numeric"
                | "IS TRUE on double precision"
                | "NOT on a number"
        ),
        _ => false,
    }
}

/// Findings that come with one [`handles`] counts, for the same occurrence: SUM/AVG of a string
/// (FN-ARGS besides SEM-021), `BINARY 'x'` (a cast, and text compared with bytes, besides LEX-024).
pub fn companion(rule: &str, detail: Option<&str>) -> bool {
    let Some(d) = detail else {
        return false;
    };
    match rule {
        "FN-ARGS" => ["sum(character", "avg(character"]
            .iter()
            .any(|f| d.starts_with(f)),
        "DML-017" => d == "AS BINARY",
        "SEM-001" => {
            let words: Vec<&str> = d.split(' ').collect();
            words.len() >= 3
                && matches!(words[words.len() - 2], "=" | "<>" | "!=")
                && words[words.len() - 1] == "bytea"
                && matches!(
                    words[..words.len() - 2].join(" ").as_str(),
                    "character varying" | "character"
                )
        }
        _ => false,
    }
}

fn is_operator(w: &str) -> bool {
    matches!(
        w,
        "=" | "<>" | "!=" | "<" | ">" | "<=" | ">=" | "<=>" | "+" | "-" | "*" | "/" | "%" | "DIV"
    )
}

/// The number MySQL reads from the start of `s`: leading spaces, a sign, digits, a fraction, an
/// exponent; 0 when there are no digits.
pub fn leading_number(s: &str) -> String {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r']);
    let b = t.as_bytes();
    let digits_from = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut i = 0;
    let negative = b.first() == Some(&b'-');
    if matches!(b.first(), Some(b'-' | b'+')) {
        i = 1;
    }
    let int_end = digits_from(i);
    let int = &t[i..int_end];
    let mut frac = "";
    let mut end = int_end;
    if b.get(int_end) == Some(&b'.') {
        let f_end = digits_from(int_end + 1);
        frac = &t[int_end + 1..f_end];
        end = f_end;
    }
    if int.is_empty() && frac.is_empty() {
        return "0".to_string();
    }
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    out.push_str(if int.is_empty() { "0" } else { int });
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let mut k = end + 1;
        let sign = matches!(b.get(k), Some(b'-' | b'+'));
        if sign {
            k += 1;
        }
        let e_end = digits_from(k);
        if e_end > k {
            out.push_str(&t[end..e_end]);
        }
    }
    out
}

/// The SQL of MySQL's string-to-number conversion of the expression `cutover_0`: the leading
/// number (no backslashes in the pattern: the token pass after this one would read them as MySQL
/// escapes), 0 when there is none, NULL for NULL.
const MYSQL_NUMBER: &str = "(CASE WHEN cutover_0 IS NULL THEN NULL ELSE COALESCE(CAST(substring(CAST(cutover_0 AS text) FROM '^[[:space:]]*([-+]?(?:[0-9]+[.]?[0-9]*|[.][0-9]+)(?:[eE][-+]?[0-9]+)?)') AS double precision), 0) END)";

/// `template` parsed, with every `cutover_0` replaced by `x`.
pub(super) fn substitute(template: &str, x: &Expr) -> Option<Expr> {
    super::rewrite_calls::fill(template, std::slice::from_ref(x))
}

fn take(e: &mut Expr) -> Expr {
    std::mem::replace(e, Expr::value(Value::Null))
}

fn string_literal(e: &Expr) -> Option<&str> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Some(s),
            _ => None,
        },
        Expr::Nested(x) => string_literal(x),
        _ => None,
    }
}

fn number_literal(e: &Expr) -> bool {
    match e {
        Expr::Value(v) => matches!(v.value, Value::Number(..)),
        Expr::UnaryOp {
            op: UnaryOperator::Minus | UnaryOperator::Plus,
            expr,
        } => number_literal(expr),
        Expr::Nested(x) => number_literal(x),
        _ => false,
    }
}

fn is_number_type(c: &Column) -> bool {
    (c.mysql_type.is_integer() && !c.mysql_type.is_tinyint1())
        || matches!(
            c.mysql_type.base.as_str(),
            "DECIMAL" | "NUMERIC" | "FLOAT" | "DOUBLE" | "REAL"
        )
}

fn text_column(e: &Expr, tables: &[&Table]) -> bool {
    column(e, tables).is_some_and(|c| c.mysql_type.is_text())
}

fn number_column(e: &Expr, tables: &[&Table]) -> bool {
    column(e, tables).is_some_and(is_number_type)
}

/// A number as MySQL computes with it when a string is involved: double precision.
fn double(n: String) -> Expr {
    Expr::Cast {
        kind: CastKind::Cast,
        expr: Box::new(Expr::value(Value::Number(n, false))),
        data_type: DataType::DoublePrecision,
        format: None,
    }
}

/// Translates the lenient conversion at `e`, counting each in `done`. None when `e` is one this
/// pass should translate but cannot (an ENUM whose members are not known).
pub fn lenient(e: &mut Expr, tables: &[&Table], pipes: bool, done: &mut usize) -> Option<()> {
    use BinaryOperator::*;
    match e {
        // `a || b` between values (`pipes`: the caller checked each is one): MySQL's OR, 1, 0 or
        // NULL, of the values as numbers.
        Expr::BinaryOp {
            left,
            op: StringConcat,
            right,
        } if pipes => {
            let l = truth(left, tables)?;
            let r = truth(right, tables)?;
            *e = super::rewrite_calls::fill("CAST(cutover_0 OR cutover_1 AS integer)", &[l, r])?;
            *done += 1;
        }
        Expr::BinaryOp { left, op, right }
            if matches!(op, Gt | Lt | NotEq) && zero_date(left, right, tables) =>
        {
            // Below every date: `d > zero` holds for every date, `d < zero` for none; a zero date
            // stored in MySQL is NULL here, which neither `>`, `<` nor `<>` selects, as MySQL
            // selects no zero date with them.
            for side in [left, right] {
                if string_literal(side).is_some() {
                    **side = Expr::value(Value::SingleQuotedString("-infinity".into()));
                }
            }
            *done += 1;
        }
        Expr::BinaryOp { left, op, right }
            if matches!(op, Eq | NotEq)
                && (binary_collation(left).is_some() || binary_collation(right).is_some()) =>
        {
            // PAD SPACE (MariaDB's and MySQL's utf8mb4_bin) ignores trailing spaces.
            let pad = [&**left, &**right]
                .iter()
                .filter_map(|x| binary_collation(x))
                .all(|c| !c.contains("nopad") && !c.contains("0900"));
            for side in [left, right] {
                if let Expr::Collate { expr, .. } = side.as_mut() {
                    let inner = take(expr);
                    **side = inner;
                }
                if pad {
                    let x = take(side);
                    **side = substitute("rtrim(cutover_0)", &x)?;
                }
            }
            *done += 1;
        }
        Expr::BinaryOp { left, op, right }
            if matches!(op, Eq | NotEq)
                && (binary_cast(left, tables).is_some()
                    || binary_cast(right, tables).is_some()) =>
        {
            // Bytes against bytes, trailing spaces included: the target's text comparison.
            for side in [left, right] {
                if let Some(inner) = binary_cast(side, tables) {
                    **side = inner;
                }
            }
            *done += 1;
        }
        Expr::BinaryOp {
            left,
            op: And | Or | Xor,
            right,
        } => {
            for side in [left, right] {
                if number_column(side, tables) {
                    let v = take(side);
                    **side = substitute("(cutover_0 <> 0)", &v)?;
                    *done += 1;
                } else if is_call(side, "ISNULL") {
                    // ISNULL(x) is translated as `(x IS NULL)`, a boolean, by the function
                    // templates after this pass.
                    *done += 1;
                }
            }
        }
        // A DATE in arithmetic with a number is the number YYYYMMDD in MySQL (`d + 1` is
        // 20240502), a date here.
        Expr::BinaryOp {
            left,
            op: Plus | Minus,
            right,
        } if (date_column(left, tables) && number_literal(right))
            || (date_column(right, tables) && number_literal(left)) =>
        {
            for side in [left, right] {
                if date_column(side, tables) {
                    let d = take(side);
                    **side = substitute("CAST(to_char(cutover_0, 'YYYYMMDD') AS bigint)", &d)?;
                }
            }
            *done += 1;
        }
        // Trailing spaces against a PAD SPACE column, which ignores them (a case-insensitive one is
        // folded with rtrim(lower()) by the collation pass).
        Expr::BinaryOp { left, op, right }
            if matches!(op, Eq | NotEq)
                && (padded_against_column(left, right, tables)
                    || padded_against_column(right, left, tables)) =>
        {
            let ci = [&**left, &**right]
                .iter()
                .any(|x| column(x, tables).is_some_and(|c| c.case_insensitive()));
            if !ci {
                for side in [left, right] {
                    let x = take(side);
                    **side = substitute("rtrim(cutover_0)", &x)?;
                }
            }
            *done += 1;
        }
        Expr::BinaryOp { left, op, right } => {
            let comparison = matches!(op, Eq | NotEq | Lt | LtEq | Gt | GtEq | Spaceship);
            let arithmetic = matches!(op, Plus | Minus | Multiply | Divide | Modulo);
            if !(comparison || arithmetic) {
                return Some(());
            }
            let numeric = |x: &Expr| number_literal(x) || number_column(x, tables);
            // An ENUM against a number: its member's position; against a string that is none of
            // its members: its text, compared under its collation.
            for flip in [false, true] {
                let (a, b) = if flip {
                    (&mut *right, &mut *left)
                } else {
                    (&mut *left, &mut *right)
                };
                let Some(c) = column(a, tables).filter(|c| c.mysql_type.base == "ENUM") else {
                    continue;
                };
                if comparison && number_literal(b) {
                    let members = &c.mysql_type.members;
                    if members.is_empty() || members.iter().any(|m| m.contains('\\')) {
                        return None;
                    }
                    let whens: String = members
                        .iter()
                        .enumerate()
                        .map(|(k, m)| format!(" WHEN '{}' THEN {}", m.replace('\'', "''"), k + 1))
                        .collect();
                    let x = take(a);
                    **a = substitute(&format!("(CASE CAST(cutover_0 AS text){whens} END)"), &x)?;
                    *done += 1;
                    return Some(());
                }
                if matches!(op, Eq | NotEq)
                    && let Some(s) = string_literal(b)
                    && !c.mysql_type.members.iter().any(|m| m == s)
                {
                    let fold = match (c.case_insensitive(), c.pad_space()) {
                        (true, true) => "rtrim(lower(cutover_0))",
                        (true, false) => "lower(cutover_0)",
                        (false, true) => "rtrim(cutover_0)",
                        (false, false) => "cutover_0",
                    };
                    let x = take(a);
                    let text = substitute("CAST(cutover_0 AS text)", &x)?;
                    **a = substitute(fold, &text)?;
                    let y = take(b);
                    **b = substitute(fold, &y)?;
                    *done += 1;
                    return Some(());
                }
            }
            // Two string literals in arithmetic: both numbers.
            if arithmetic && string_literal(left).is_some() && string_literal(right).is_some() {
                for side in [left, right] {
                    let n = leading_number(string_literal(side).unwrap_or_default());
                    **side = double(n);
                }
                *done += 1;
                return Some(());
            }
            for flip in [false, true] {
                let (a, b) = if flip {
                    (&mut *right, &mut *left)
                } else {
                    (&mut *left, &mut *right)
                };
                // A string literal against a number: the number it starts with.
                if let Some(s) = string_literal(a)
                    && numeric(b)
                {
                    let n = leading_number(s);
                    **a = if arithmetic {
                        double(n)
                    } else {
                        Expr::value(Value::Number(n, false))
                    };
                    *done += 1;
                    return Some(());
                }
                // A string column against a number: the number each value starts with.
                if text_column(a, tables) && numeric(b) {
                    let x = take(a);
                    **a = substitute(MYSQL_NUMBER, &x)?;
                    *done += 1;
                    return Some(());
                }
            }
        }
        Expr::Function(f)
            if last_name(&f.name)
                .is_some_and(|n| matches!(n.to_ascii_uppercase().as_str(), "SUM" | "AVG")) =>
        {
            if let FunctionArguments::List(l) = &mut f.args
                && let [FunctionArg::Unnamed(FunctionArgExpr::Expr(x))] = l.args.as_mut_slice()
                && text_column(x, tables)
            {
                let v = take(x);
                *x = substitute(MYSQL_NUMBER, &v)?;
                *done += 1;
            }
        }
        // A number is true when it is not zero.
        Expr::IsTrue(x) | Expr::IsFalse(x) | Expr::IsNotTrue(x) | Expr::IsNotFalse(x)
            if number_column(x, tables) =>
        {
            let v = take(x);
            **x = substitute("(cutover_0 <> 0)", &v)?;
            *done += 1;
        }
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } if number_column(expr, tables) => {
            let v = take(expr);
            **expr = substitute("(cutover_0 <> 0)", &v)?;
            *done += 1;
        }
        _ => {}
    }
    Some(())
}

/// A value as MySQL's logical operators read it: true when its number is not zero.
fn truth(x: &Expr, tables: &[&Table]) -> Option<Expr> {
    if let Some(s) = string_literal(x) {
        let zero = leading_number(s).parse::<f64>().ok()? == 0.0;
        return Some(Expr::value(Value::Boolean(!zero)));
    }
    if number_literal(x) || number_column(x, tables) {
        return substitute("(cutover_0 <> 0)", x);
    }
    if text_column(x, tables) {
        let n = substitute(MYSQL_NUMBER, x)?;
        return substitute("(cutover_0 <> 0)", &n);
    }
    if column(x, tables).is_some_and(|c| c.mysql_type.is_tinyint1()) {
        return Some(x.clone());
    }
    None
}

fn date_column(x: &Expr, tables: &[&Table]) -> bool {
    column(x, tables).is_some_and(|c| c.mysql_type.base == "DATE")
}

/// `lit` a string literal ending in a space, `col` a text column that pads (PAD SPACE).
fn padded_against_column(lit: &Expr, col: &Expr, tables: &[&Table]) -> bool {
    string_literal(lit).is_some_and(|s| s.ends_with(' '))
        && column(col, tables).is_some_and(|c| c.mysql_type.is_text() && c.pad_space())
}

/// `BINARY e` (a cast to a binary string) of a string column or literal: `e`.
fn binary_cast(x: &Expr, tables: &[&Table]) -> Option<Expr> {
    match x {
        Expr::Cast {
            expr,
            data_type: DataType::Binary(_) | DataType::Varbinary(_),
            ..
        } if string_literal(expr).is_some() || text_column(expr, tables) => Some((**expr).clone()),
        _ => None,
    }
}

fn is_call(x: &Expr, name: &str) -> bool {
    matches!(x, Expr::Function(f) if last_name(&f.name).is_some_and(|n| n.eq_ignore_ascii_case(name)))
}

/// The collation of `x COLLATE name` when it compares bytes (`…_bin`).
fn binary_collation(x: &Expr) -> Option<String> {
    match x {
        Expr::Collate { collation, .. } => {
            let name = collation.to_string().to_ascii_lowercase();
            name.ends_with("_bin").then_some(name)
        }
        _ => None,
    }
}

/// True when one side is MySQL's zero date and the other a date or time column.
fn zero_date(left: &Expr, right: &Expr, tables: &[&Table]) -> bool {
    let zero = |x: &Expr| {
        string_literal(x).is_some_and(|s| {
            s.starts_with("0000-00-00")
                && s.chars().all(|c| matches!(c, '0' | '-' | ':' | ' ' | '.'))
        })
    };
    let dated = |x: &Expr| {
        column(x, tables).is_some_and(|c| {
            matches!(
                c.mysql_type.base.as_str(),
                "DATE" | "DATETIME" | "TIMESTAMP"
            )
        })
    };
    (zero(left) && dated(right)) || (zero(right) && dated(left))
}

#[cfg(test)]
mod tests {
    use super::{handles, leading_number};

    #[test]
    fn reads_the_leading_number_as_mysql_does() {
        for (s, n) in [
            ("2abc", "2"),
            ("  -1.5e3x", "-1.5e3"),
            (".5", "0.5"),
            ("1.", "1"),
            ("abc", "0"),
            ("-", "0"),
            ("0x10", "0"),
            ("+7", "7"),
            ("3e", "3"),
        ] {
            assert_eq!(leading_number(s), n, "{s}");
        }
    }

    #[test]
    fn takes_only_the_forms_it_translates() {
        assert!(handles("SEM-001", Some("character varying = integer")));
        assert!(handles("SEM-001", Some("integer + character")));
        assert!(handles(
            "SEM-001",
            Some("'3' * '4': operator is not unique")
        ));
        assert!(!handles("SEM-001", Some("bytea = integer")));
        assert!(handles("SEM-001L", Some("'2abc' for a integer value")));
        assert!(!handles("SEM-001L", Some("'2abc' into hits (integer)")));
        assert!(handles("SEM-016", Some("enum = integer")));
        assert!(!handles("SEM-016", Some("number into enum column tier")));
        assert!(handles("SEM-021", Some("sum(character varying)")));
        assert!(!handles("SEM-021", Some("sum(enum)")));
    }
}
