//! Date and string calls whose arguments the token rewriter reorders or translates:
//! `SUBSTRING_INDEX`, `TIMESTAMPDIFF`, `ADDDATE`/`SUBDATE`, `CONVERT_TZ` between UTC offsets, and `DATE_FORMAT`/`STR_TO_DATE` with the
//! MySQL format translated to a PostgreSQL pattern.

use super::Writer;
use crate::sql::lexer::TokenKind;

impl Writer<'_> {
    /// `SUBSTRING_INDEX(s, d, 1 | -1)` → `split_part(s, d, n)`; `TIMESTAMPDIFF(unit, a, b)` → whole
    /// units of `b - a` (truncated toward zero, as MySQL); `ADDDATE/SUBDATE(d, n)` (days) and
    /// `(d, INTERVAL …)`.
    pub(super) fn date_and_string_calls(
        &mut self,
        i: usize,
        end: usize,
    ) -> Option<(String, usize)> {
        let name = self.text(i).to_ascii_uppercase();
        let (close, args) = self.call_args(i, end)?;
        let rendered: Vec<String> = args
            .iter()
            .map(|&(a, b)| self.emit(a, b).trim().to_string())
            .collect();
        let out = match (name.as_str(), rendered.as_slice()) {
            ("SUBSTRING_INDEX", [s, d, n]) if n == "1" || n == "-1" => {
                format!("split_part({s}, {d}, {n})")
            }
            ("TIMESTAMPDIFF", [unit, a, b]) => {
                let (a, b) = (
                    format!("CAST({a} AS timestamp)"),
                    format!("CAST({b} AS timestamp)"),
                );
                let secs = |n: u64| {
                    format!("CAST(trunc(EXTRACT(EPOCH FROM ({b} - {a})) / {n}) AS bigint)")
                };
                let months = |n: u64| {
                    format!(
                        "CAST(trunc((EXTRACT(YEAR FROM age({b}, {a})) * 12 + EXTRACT(MONTH FROM age({b}, {a}))) / {n}) AS bigint)"
                    )
                };
                match unit.to_ascii_uppercase().as_str() {
                    "SECOND" => secs(1),
                    "MINUTE" => secs(60),
                    "HOUR" => secs(3600),
                    "DAY" => secs(86400),
                    "WEEK" => secs(604800),
                    "MONTH" => months(1),
                    "QUARTER" => months(3),
                    "YEAR" => months(12),
                    _ => return None,
                }
            }
            ("ADDDATE" | "SUBDATE", [d, x]) => {
                let op = if name == "ADDDATE" { "+" } else { "-" };
                if x.to_ascii_uppercase().contains("INTERVAL") {
                    format!("({d} {op} {x})")
                } else {
                    format!("({d} {op} ({x}) * INTERVAL '1 day')")
                }
            }
            // UTC offsets only (a named zone needs MySQL's time zone tables, which may be
            // empty: NULL there). MySQL converts only inside the TIMESTAMP range (1970 to 2038)
            // and returns the value as it is outside.
            ("CONVERT_TZ", [ts, from, to]) if utc_offset(from) && utc_offset(to) => {
                let value = format!("CAST({ts} AS timestamp)");
                let utc = format!("({value} AT TIME ZONE INTERVAL {from} HOUR TO MINUTE)");
                format!(
                    "(CASE WHEN {utc} BETWEEN TIMESTAMPTZ '1970-01-01 00:00:01+00' AND TIMESTAMPTZ '2038-01-19 03:14:07+00' \
                     THEN ({utc} AT TIME ZONE INTERVAL {to} HOUR TO MINUTE) ELSE {value} END)"
                )
            }
            _ => return None,
        };
        self.note(&format!("FN-MISSING:{name}"));
        Some((out, close + 1))
    }

    /// `DATE_FORMAT(d, 'fmt')` → `to_char(d, 'pg fmt')`; `STR_TO_DATE(s, 'fmt')` → `to_date(s, …)`,
    /// or `CAST(to_timestamp(s, …) AS timestamp)` when the format has a time. Only with a literal
    /// format every code of which has a target equivalent.
    pub(super) fn date_format(&mut self, i: usize, end: usize) -> Option<(String, usize)> {
        let name = self.text(i).to_ascii_uppercase();
        let (close, args) = self.call_args(i, end)?;
        let [(value_from, value_to), (format_from, _)] = args[..] else {
            return None;
        };
        let f = self.next_sig(format_from, close)?;
        if self.toks[f].kind != TokenKind::String
            || self.next_sig(f + 1, close).is_some()
            || !self.text(f).starts_with('\'')
            || self.text(f).len() < 2
        {
            return None;
        }
        let lit = self.text(f);
        let (pattern, has_time) = pg_datetime_format(&lit[1..lit.len() - 1])?;
        let arg = self.emit(value_from, value_to);
        let arg = arg.trim();
        let out = match (name.as_str(), has_time) {
            ("DATE_FORMAT", _) => format!("to_char({arg}, '{pattern}')"),
            (_, true) => format!("CAST(to_timestamp({arg}, '{pattern}') AS timestamp)"),
            _ => format!("to_date({arg}, '{pattern}')"),
        };
        self.note(&format!("FN-MISSING:{name}"));
        Some((out, close + 1))
    }
}

/// A MySQL date format (`%Y-%m-%d %H:%i`) as a PostgreSQL to_char/to_timestamp pattern, and whether
/// it has a time part. None when a code has no equivalent (week numbers, `%D`) or the format has a
/// quote or backslash.
fn pg_datetime_format(mysql: &str) -> Option<(String, bool)> {
    let mut out = String::new();
    let mut literal = String::new();
    let mut time = false;
    let flush = |out: &mut String, literal: &mut String| {
        if literal.chars().any(|c| c.is_ascii_alphabetic()) {
            out.push('"');
            out.push_str(literal);
            out.push('"');
        } else {
            out.push_str(literal);
        }
        literal.clear();
    };
    let mut chars = mysql.chars();
    while let Some(c) = chars.next() {
        if matches!(c, '\'' | '"' | '\\') {
            return None;
        }
        if c != '%' {
            literal.push(c);
            continue;
        }
        let code = chars.next()?;
        if code == '%' {
            literal.push('%');
            continue;
        }
        flush(&mut out, &mut literal);
        let (p, t) = match code {
            'Y' => ("YYYY", false),
            'y' => ("YY", false),
            'm' => ("MM", false),
            'c' => ("FMMM", false),
            'd' => ("DD", false),
            'e' => ("FMDD", false),
            'j' => ("DDD", false),
            'M' => ("FMMonth", false),
            'b' => ("Mon", false),
            'W' => ("FMDay", false),
            'a' => ("Dy", false),
            'H' => ("HH24", true),
            'k' => ("FMHH24", true),
            'h' | 'I' => ("HH12", true),
            'l' => ("FMHH12", true),
            'i' => ("MI", true),
            's' | 'S' => ("SS", true),
            'f' => ("US", true),
            'p' => ("AM", true),
            'T' => ("HH24:MI:SS", true),
            'r' => ("HH12:MI:SS AM", true),
            _ => return None,
        };
        out.push_str(p);
        time |= t;
    }
    flush(&mut out, &mut literal);
    Some((out, time))
}

/// `'+02:00'`, `'-05:30'`: a UTC offset written as MySQL's time zone settings write one.
fn utc_offset(literal: &str) -> bool {
    let b = literal.as_bytes();
    b.len() == 8
        && b[0] == b'\''
        && b[7] == b'\''
        && matches!(b[1], b'+' | b'-')
        && b[2..4].iter().all(u8::is_ascii_digit)
        && b[4] == b':'
        && b[5..7].iter().all(u8::is_ascii_digit)
}
