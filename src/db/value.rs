//! The canonical value type: what a result value means, whichever engine produced it, so that MySQL
//! and PostgreSQL-family results compare by meaning rather than by spelling.
//!
//! Values are read from the servers' text output together with each column's type ([`Kind`]):
//! integers and decimals compare by value (a different scale is noted, not a difference), floats
//! within a relative tolerance that depends on their width, date/time values to the microsecond in
//! UTC, strings and bytes exactly (NULL and `''` differ), `CHAR` values without their padding,
//! booleans equal to integer 0/1 (PostgreSQL `boolean` where MySQL has `TINYINT(1)`), JSON by
//! structure (key order and spacing do not matter), `BIT` values as numbers.

use crate::workload::time::{WallClock, days_from_civil};
use serde::Serialize;
use std::cmp::Ordering;

/// How to read a column's text values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Int,
    Decimal,
    /// Single precision (MySQL FLOAT, PostgreSQL real): about 7 significant digits.
    Float32,
    /// Double precision.
    Float64,
    Bool,
    Text,
    /// Blank-padded `CHAR(n)` as PostgreSQL returns it: trailing spaces are padding.
    PaddedText,
    Bytes,
    Date,
    Time,
    /// A timestamp without a time zone (MySQL DATETIME, PostgreSQL timestamp).
    Timestamp,
    /// A timestamp printed in the session time zone, with an offset (PostgreSQL timestamptz) or
    /// without (MySQL TIMESTAMP, printed in the session zone; sessions are pinned to UTC).
    TimestampTz,
    Json,
    Bits,
    /// Anything else (intervals, arrays, UUIDs, geometry): compared as text.
    Other,
}

/// A canonical value.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Value {
    Null,
    Int(i128),
    /// A decimal number in canonical form (no leading or trailing zeros, no `-0`) and the scale the
    /// server printed.
    Decimal {
        digits: String,
        scale: u32,
    },
    Float {
        value: f64,
        double: bool,
    },
    Bool(bool),
    Text(Vec<u8>),
    Bytes(Vec<u8>),
    /// Days since 1970-01-01.
    Date(i32),
    /// Microseconds (MySQL TIME may be negative or beyond 24 h).
    Time(i64),
    /// Microseconds since the epoch, UTC.
    Timestamp(i64),
    /// Canonical JSON text (sorted keys, no spaces).
    Json(String),
    Bits(u64),
}

/// Relative tolerance for comparing floats.
#[derive(Clone, Copy, Debug)]
pub struct Tolerance {
    pub float32: f64,
    pub float64: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance {
            float32: 1e-6,
            float64: 1e-12,
        }
    }
}

/// How two values compare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Comparison {
    Equal,
    /// Equal in value, with a difference worth noting (decimal scale, float rounding).
    EqualNoting(String),
    Different,
}

impl Value {
    /// Reads a server's text form of a value of `kind`. Text that does not parse as `kind` is kept as
    /// text, so nothing is lost.
    pub fn from_text(kind: Kind, text: &[u8]) -> Value {
        let s = std::str::from_utf8(text).ok();
        let parsed = match (kind, s) {
            (Kind::Int, Some(s)) => s.trim().parse::<i128>().ok().map(Value::Int),
            (Kind::Decimal, Some(s)) => parse_decimal(s.trim()),
            (Kind::Float32 | Kind::Float64, Some(s)) => {
                parse_float(s.trim()).map(|v| Value::Float {
                    value: v,
                    double: kind == Kind::Float64,
                })
            }
            (Kind::Bool, Some(s)) => match s.trim() {
                "t" | "true" | "1" | "TRUE" => Some(Value::Bool(true)),
                "f" | "false" | "0" | "FALSE" => Some(Value::Bool(false)),
                _ => None,
            },
            (Kind::PaddedText, _) => {
                let mut end = text.len();
                while end > 0 && text[end - 1] == b' ' {
                    end -= 1;
                }
                Some(Value::Text(text[..end].to_vec()))
            }
            (Kind::Bytes, _) => Some(Value::Bytes(
                decode_bytea(text).unwrap_or_else(|| text.to_vec()),
            )),
            (Kind::Date, Some(s)) => parse_date(s.trim()).map(Value::Date),
            (Kind::Time, Some(s)) => parse_time(s.trim()).map(Value::Time),
            (Kind::Timestamp | Kind::TimestampTz, Some(s)) => {
                parse_timestamp(s.trim()).map(Value::Timestamp)
            }
            (Kind::Json, Some(s)) => canonical_json(s).map(Value::Json),
            (Kind::Bits, _) => parse_bits(text).map(Value::Bits),
            _ => None,
        };
        parsed.unwrap_or_else(|| Value::Text(text.to_vec()))
    }

    /// `from_text` for bytes the caller owns: text keeps them without a copy (the hot path of a
    /// replay, where most values are strings).
    pub fn from_text_owned(kind: Kind, text: Vec<u8>) -> Value {
        match kind {
            Kind::Text | Kind::Other => Value::Text(text),
            _ => Value::from_text(kind, &text),
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Reinterprets a value for comparison against a column of another kind: JSON held as text (MariaDB
    /// keeps JSON as LONGTEXT), 0/1 integers against booleans, and bit strings against numbers.
    pub fn coerce_to(&self, kind: Kind) -> Value {
        match (self, kind) {
            (Value::Text(t), Kind::Json) => std::str::from_utf8(t)
                .ok()
                .and_then(canonical_json)
                .map_or_else(|| self.clone(), Value::Json),
            (Value::Int(i @ (0 | 1)), Kind::Bool) => Value::Bool(*i == 1),
            (Value::Bits(b), Kind::Int | Kind::Decimal) => Value::Int(*b as i128),
            (Value::Int(i), Kind::Bits) if *i >= 0 && *i <= u64::MAX as i128 => {
                Value::Bits(*i as u64)
            }
            (Value::Bytes(b), Kind::Text | Kind::PaddedText | Kind::Json | Kind::Other) => {
                let v = Value::Text(b.clone());
                if kind == Kind::Json {
                    v.coerce_to(Kind::Json)
                } else {
                    v
                }
            }
            (Value::Date(d), Kind::Timestamp | Kind::TimestampTz) => {
                Value::Timestamp(*d as i64 * 86_400_000_000)
            }
            _ => self.clone(),
        }
    }

    /// A key that sorts values and groups equal ones together: numbers (of any kind) by their canonical
    /// decimal text, floats rounded to their width's significant digits.
    pub fn sort_key(&self) -> Vec<u8> {
        let mut k = Vec::new();
        match self {
            Value::Null => k.push(0),
            Value::Int(_)
            | Value::Decimal { .. }
            | Value::Float { .. }
            | Value::Bool(_)
            | Value::Bits(_) => {
                k.push(1);
                k.extend_from_slice(self.numeric_text().unwrap_or_default().as_bytes());
            }
            Value::Text(t) | Value::Bytes(t) => {
                k.push(2);
                k.extend_from_slice(t);
            }
            Value::Json(j) => {
                k.push(2);
                k.extend_from_slice(j.as_bytes());
            }
            Value::Date(d) => {
                k.push(3);
                k.extend_from_slice(&(*d as i64 * 86_400_000_000).to_be_bytes());
            }
            Value::Timestamp(t) => {
                k.push(3);
                k.extend_from_slice(&t.to_be_bytes());
            }
            Value::Time(t) => {
                k.push(4);
                k.extend_from_slice(&t.to_be_bytes());
            }
        }
        k
    }

    /// The value of a number as canonical decimal text (floats rounded to their precision).
    fn numeric_text(&self) -> Option<String> {
        Some(match self {
            Value::Int(i) => i.to_string(),
            Value::Bits(b) => b.to_string(),
            Value::Bool(b) => if *b { "1" } else { "0" }.to_string(),
            Value::Decimal { digits, .. } => digits.clone(),
            Value::Float { value, double } => float_canonical(*value, if *double { 12 } else { 6 }),
            _ => return None,
        })
    }

    fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float { value, .. } => Some(*value),
            other => other.numeric_text()?.parse().ok(),
        }
    }

    /// Compares two canonical values.
    pub fn compare(&self, other: &Value, tol: &Tolerance) -> Comparison {
        use Value::*;
        match (self, other) {
            (Null, Null) => Comparison::Equal,
            (Null, _) | (_, Null) => Comparison::Different,
            (Float { .. }, _) | (_, Float { .. })
                if self.numeric_text().is_some() && other.numeric_text().is_some() =>
            {
                let (a, b) = (
                    self.as_f64().unwrap_or(f64::NAN),
                    other.as_f64().unwrap_or(f64::NAN),
                );
                // The narrower of the two decides: a float32 on either side has ~7 digits.
                let single = matches!(self, Float { double: false, .. })
                    || matches!(other, Float { double: false, .. });
                let rel = if single { tol.float32 } else { tol.float64 };
                if a == b || (a.is_nan() && b.is_nan()) {
                    Comparison::Equal
                } else if (a - b).abs() <= rel * a.abs().max(b.abs()) {
                    Comparison::EqualNoting(format!(
                        "floats {a} and {b} equal within a relative {rel:e}"
                    ))
                } else {
                    Comparison::Different
                }
            }
            (
                Decimal {
                    digits: a,
                    scale: sa,
                },
                Decimal {
                    digits: b,
                    scale: sb,
                },
            ) => {
                if a != b {
                    Comparison::Different
                } else if sa != sb {
                    Comparison::EqualNoting(format!("same value, scale {sa} vs {sb}"))
                } else {
                    Comparison::Equal
                }
            }
            (Bool(a), Int(i)) | (Int(i), Bool(a)) => {
                if (*i == 1 && *a) || (*i == 0 && !*a) {
                    Comparison::EqualNoting("boolean vs 0/1 integer".into())
                } else {
                    Comparison::Different
                }
            }
            (Bool(_), Decimal { .. }) | (Decimal { .. }, Bool(_)) => {
                if self.numeric_text() == other.numeric_text() {
                    Comparison::EqualNoting("boolean vs 0/1 number".into())
                } else {
                    Comparison::Different
                }
            }
            (
                Int(_) | Decimal { .. } | Bits(_) | Bool(_),
                Int(_) | Decimal { .. } | Bits(_) | Bool(_),
            ) => {
                if self.numeric_text() == other.numeric_text() {
                    Comparison::Equal
                } else {
                    Comparison::Different
                }
            }
            (Text(a), Bytes(b)) | (Bytes(a), Text(b)) => {
                if a == b {
                    Comparison::Equal
                } else {
                    Comparison::Different
                }
            }
            (Json(a), Text(t)) | (Text(t), Json(a)) => {
                match std::str::from_utf8(t).ok().and_then(canonical_json) {
                    Some(j) if &j == a => Comparison::Equal,
                    _ => Comparison::Different,
                }
            }
            (Date(d), Timestamp(t)) | (Timestamp(t), Date(d)) => {
                if *d as i64 * 86_400_000_000 == *t {
                    Comparison::EqualNoting("date vs midnight timestamp".into())
                } else {
                    Comparison::Different
                }
            }
            (a, b) => {
                if a == b {
                    Comparison::Equal
                } else {
                    Comparison::Different
                }
            }
        }
    }

    /// The value as plain text, as a server printed it (catalog names, counts, hashes); None for NULL.
    pub fn as_text(&self) -> Option<String> {
        match self {
            Value::Text(t) | Value::Bytes(t) => Some(String::from_utf8_lossy(t).into_owned()),
            Value::Null => None,
            other => Some(other.display()),
        }
    }

    /// A short printable form, for reports and diffs.
    pub fn display(&self) -> String {
        match self {
            Value::Null => "NULL".into(),
            Value::Int(i) => i.to_string(),
            Value::Decimal { digits, scale } => with_scale(digits, *scale),
            Value::Float { value, .. } => value.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Text(t) => format!("{:?}", String::from_utf8_lossy(t)),
            Value::Bytes(b) => format!(
                "x'{}'",
                b.iter().map(|c| format!("{c:02x}")).collect::<String>()
            ),
            Value::Date(d) => {
                let (y, m, dd) = crate::workload::time::civil_from_days(*d as i64);
                format!("{y:04}-{m:02}-{dd:02}")
            }
            Value::Time(t) => {
                let neg = *t < 0;
                let a = t.unsigned_abs();
                format!(
                    "{}{:02}:{:02}:{:02}.{:06}",
                    if neg { "-" } else { "" },
                    a / 3_600_000_000,
                    (a / 60_000_000) % 60,
                    (a / 1_000_000) % 60,
                    a % 1_000_000
                )
            }
            Value::Timestamp(t) => crate::workload::time::format_iso_micros(*t),
            Value::Json(j) => j.clone(),
            Value::Bits(b) => format!("b'{b:b}'"),
        }
    }
}

/// Orders rows by their values' sort keys (for multiset comparison).
pub fn cmp_rows(a: &[Value], b: &[Value]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        match x.sort_key().cmp(&y.sort_key()) {
            Ordering::Equal => continue,
            o => return o,
        }
    }
    a.len().cmp(&b.len())
}

fn with_scale(digits: &str, scale: u32) -> String {
    if scale == 0 {
        return digits.to_string();
    }
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let mut f = frac.to_string();
    while (f.len() as u32) < scale {
        f.push('0');
    }
    format!("{int}.{f}")
}

/// Canonical decimal text: optional `-`, no leading zeros (but `0.x`), no trailing fractional zeros,
/// no `-0`. Returns None for anything that is not a plain decimal number.
pub fn normalize_decimal(s: &str) -> Option<(String, u32)> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let scale = frac.len() as u32;
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let mut out = String::new();
    let zero = int == "0" && frac.is_empty();
    if neg && !zero {
        out.push('-');
    }
    out.push_str(int);
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    Some((out, scale))
}

fn parse_decimal(s: &str) -> Option<Value> {
    normalize_decimal(s).map(|(digits, scale)| Value::Decimal { digits, scale })
}

fn parse_float(s: &str) -> Option<f64> {
    match s {
        "NaN" => Some(f64::NAN),
        "Infinity" | "inf" => Some(f64::INFINITY),
        "-Infinity" | "-inf" => Some(f64::NEG_INFINITY),
        _ => s.parse().ok(),
    }
}

/// A float as canonical decimal text with `digits` significant digits.
fn float_canonical(v: f64, digits: usize) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    if v == 0.0 {
        return "0".into();
    }
    let sci = format!("{:.*e}", digits - 1, v);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mant.starts_with('-');
    let mant_digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    // mant_digits = d.ddd… with the point after the first digit.
    let point = 1 + exp;
    let mut s = String::new();
    if point <= 0 {
        s.push_str("0.");
        s.extend(std::iter::repeat_n('0', (-point) as usize));
        s.push_str(&mant_digits);
    } else if point as usize >= mant_digits.len() {
        s.push_str(&mant_digits);
        s.extend(std::iter::repeat_n('0', point as usize - mant_digits.len()));
    } else {
        s.push_str(&mant_digits[..point as usize]);
        s.push('.');
        s.push_str(&mant_digits[point as usize..]);
    }
    let s = if neg { format!("-{s}") } else { s };
    normalize_decimal(&s).map(|(d, _)| d).unwrap_or(s)
}

/// PostgreSQL `bytea` hex output (`\x00ff`); anything else is not bytea text.
fn decode_bytea(t: &[u8]) -> Option<Vec<u8>> {
    let hex = t.strip_prefix(b"\\x")?;
    if hex.len() % 2 != 0 {
        return None;
    }
    hex.chunks(2)
        .map(|p| {
            let h = (p[0] as char).to_digit(16)?;
            let l = (p[1] as char).to_digit(16)?;
            Some((h * 16 + l) as u8)
        })
        .collect()
}

/// `0101` (PostgreSQL bit strings) or raw bytes (MySQL BIT through the text protocol).
fn parse_bits(t: &[u8]) -> Option<u64> {
    if !t.is_empty() && t.len() <= 64 && t.iter().all(|b| *b == b'0' || *b == b'1') {
        return u64::from_str_radix(std::str::from_utf8(t).ok()?, 2).ok();
    }
    if t.len() <= 8 {
        return Some(t.iter().fold(0u64, |acc, b| (acc << 8) | *b as u64));
    }
    None
}

fn parse_date(s: &str) -> Option<i32> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let y: i64 = s[..4].parse().ok()?;
    let m: u32 = s[5..7].parse().ok()?;
    let d: u32 = s[8..10].parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    Some(days_from_civil(y, m, d) as i32)
}

/// `HH:MM:SS[.ffffff]`, possibly negative or over 24 hours (MySQL), possibly with a `+00` offset
/// (PostgreSQL timetz, offset applied).
fn parse_time(s: &str) -> Option<i64> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (clock, offset_s) = split_offset(s);
    let mut parts = clock.splitn(3, ':');
    let h: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let sec_part = parts.next()?;
    let (sec, frac) = sec_part.split_once('.').unwrap_or((sec_part, ""));
    let sec: i64 = sec.parse().ok()?;
    let micros = frac_micros(frac)?;
    let mut us = ((h * 60 + m) * 60 + sec) * 1_000_000 + micros - offset_s * 1_000_000;
    if neg {
        us = -us;
    }
    Some(us)
}

fn frac_micros(frac: &str) -> Option<i64> {
    if frac.is_empty() {
        return Some(0);
    }
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut f: String = frac.chars().take(6).collect();
    while f.len() < 6 {
        f.push('0');
    }
    f.parse().ok()
}

/// Splits a trailing `+08`, `-05:30`, `+0530` or `Z` offset; returns (rest, offset in seconds).
fn split_offset(s: &str) -> (&str, i64) {
    if let Some(r) = s.strip_suffix('Z') {
        return (r, 0);
    }
    if let Some(pos) = s.rfind(['+', '-']) {
        // Only after the clock (`HH:MM:SS`), never the date's dashes.
        let tail = &s[pos + 1..];
        let colon_in_head = s[..pos].contains(':');
        if colon_in_head
            && !tail.is_empty()
            && tail.len() <= 5
            && tail.bytes().all(|b| b.is_ascii_digit() || b == b':')
        {
            let digits: String = tail.chars().filter(|c| c.is_ascii_digit()).collect();
            let (h, m) = match digits.len() {
                2 => (digits.parse::<i64>().unwrap_or(0), 0),
                4 => (
                    digits[..2].parse::<i64>().unwrap_or(0),
                    digits[2..].parse::<i64>().unwrap_or(0),
                ),
                _ => return (s, 0),
            };
            let sign = if s.as_bytes()[pos] == b'-' { -1 } else { 1 };
            return (&s[..pos], sign * (h * 3600 + m * 60));
        }
    }
    (s, 0)
}

/// `YYYY-MM-DD HH:MM:SS[.ffffff][+offset]` (or with `T`) to microseconds since the epoch, UTC.
fn parse_timestamp(s: &str) -> Option<i64> {
    if s.len() < 19 {
        return parse_date(s).map(|d| d as i64 * 86_400_000_000);
    }
    let (head, offset) = split_offset(s);
    let b = head.as_bytes();
    if b[4] != b'-'
        || b[7] != b'-'
        || !(b[10] == b' ' || b[10] == b'T')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let wc = WallClock {
        year: head[..4].parse().ok()?,
        month: head[5..7].parse().ok()?,
        day: head[8..10].parse().ok()?,
        hour: head[11..13].parse().ok()?,
        minute: head[14..16].parse().ok()?,
        second: head[17..19].parse().ok()?,
        micros: frac_micros(head.get(20..).unwrap_or(""))? as u32,
    };
    if !wc.is_valid() {
        return None;
    }
    Some(wc.to_unix_micros(offset as i32))
}

/// JSON text re-serialised with sorted keys and no spaces.
pub fn canonical_json(s: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(s).ok()?;
    Some(sort_json(v).to_string())
}

fn sort_json(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(m) => {
            let sorted: std::collections::BTreeMap<String, serde_json::Value> =
                m.into_iter().map(|(k, v)| (k, sort_json(v))).collect();
            serde_json::Value::Object(sorted.into_iter().collect())
        }
        serde_json::Value::Array(a) => {
            serde_json::Value::Array(a.into_iter().map(sort_json).collect())
        }
        // Numbers: 1.0 and 1 are the same JSON number.
        serde_json::Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 && !n.is_u64() && !n.is_i64() => {
                serde_json::json!(f as i64)
            }
            _ => serde_json::Value::Number(n),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(kind: Kind, s: &str) -> Value {
        Value::from_text(kind, s.as_bytes())
    }

    fn eq(a: &Value, b: &Value) -> bool {
        !matches!(a.compare(b, &Tolerance::default()), Comparison::Different)
    }

    #[test]
    fn numbers_by_value() {
        assert!(eq(&v(Kind::Decimal, "120.50"), &v(Kind::Decimal, "120.5")));
        assert_eq!(
            v(Kind::Decimal, "120.50").compare(&v(Kind::Decimal, "120.5"), &Tolerance::default()),
            Comparison::EqualNoting("same value, scale 2 vs 1".into())
        );
        assert!(eq(
            &v(Kind::Decimal, "3.2500"),
            &v(Kind::Decimal, "3.2500000000000000")
        ));
        assert!(eq(&v(Kind::Int, "10"), &v(Kind::Decimal, "10")));
        assert!(!eq(&v(Kind::Decimal, "3.5000"), &v(Kind::Int, "3")));
        assert!(eq(&v(Kind::Decimal, "-0.00"), &v(Kind::Int, "0")));
        assert!(eq(
            &v(Kind::Int, "18446744073709551615"),
            &v(Kind::Decimal, "18446744073709551615")
        ));
    }

    #[test]
    fn floats_within_their_width() {
        assert!(eq(
            &v(Kind::Float64, "3.333333333333"),
            &v(Kind::Float64, "3.3333333333330002")
        ));
        assert!(!eq(
            &v(Kind::Float64, "1.234567"),
            &v(Kind::Float64, "1.234568")
        ));
        assert!(eq(
            &v(Kind::Float32, "0.1"),
            &v(Kind::Float64, "0.10000000149011612")
        ));
        assert!(eq(&v(Kind::Float64, "2"), &v(Kind::Int, "2")));
        assert_eq!(
            v(Kind::Float64, "2").sort_key(),
            v(Kind::Int, "2").sort_key()
        );
        assert_eq!(
            v(Kind::Float64, "3.3333333333330002").sort_key(),
            v(Kind::Float64, "3.333333333333").sort_key()
        );
    }

    #[test]
    fn booleans_and_bits() {
        assert!(eq(&v(Kind::Bool, "t"), &v(Kind::Int, "1")));
        assert!(!eq(&v(Kind::Bool, "f"), &v(Kind::Int, "1")));
        assert_eq!(v(Kind::Bits, "00000011"), Value::Bits(3));
        assert_eq!(Value::from_text(Kind::Bits, &[0x03]), Value::Bits(3));
        assert!(eq(&Value::Bits(3), &v(Kind::Int, "3")));
    }

    #[test]
    fn strings_exact_char_padding_stripped() {
        assert!(eq(&v(Kind::PaddedText, "A001    "), &v(Kind::Text, "A001")));
        assert!(!eq(&v(Kind::Text, "Carol "), &v(Kind::Text, "Carol")));
        assert!(!eq(&v(Kind::Text, ""), &Value::Null));
        assert!(!eq(&v(Kind::Text, "bob"), &v(Kind::Text, "Bob")));
        assert!(eq(&v(Kind::Bytes, "\\x4142"), &v(Kind::Text, "AB")));
    }

    #[test]
    fn times_to_the_microsecond_in_utc() {
        assert!(eq(
            &v(Kind::Timestamp, "2024-05-01 10:00:00.123456"),
            &v(Kind::TimestampTz, "2024-05-01 12:00:00.123456+02")
        ));
        assert!(!eq(
            &v(Kind::Timestamp, "2024-05-01 10:00:00.000001"),
            &v(Kind::Timestamp, "2024-05-01 10:00:00")
        ));
        assert!(eq(
            &v(Kind::TimestampTz, "2024-01-05 10:00:00+00"),
            &v(Kind::Timestamp, "2024-01-05 10:00:00")
        ));
        assert_eq!(v(Kind::Date, "2024-05-03"), Value::Date(19846));
        assert_eq!(v(Kind::Time, "-838:59:59"), Value::Time(-3_020_399_000_000));
        assert!(eq(
            &v(Kind::Time, "10:00:00+00"),
            &v(Kind::Time, "10:00:00")
        ));
        // A zero date does not parse as a date: kept as text, so it differs from any real date.
        assert_eq!(
            v(Kind::Date, "0000-00-00"),
            Value::Text(b"0000-00-00".to_vec())
        );
    }

    #[test]
    fn json_by_structure() {
        assert!(eq(
            &v(Kind::Json, r#"{"lang": "de", "newsletter": true}"#),
            &v(Kind::Json, r#"{"newsletter":true,"lang":"de"}"#)
        ));
        assert!(eq(
            &v(Kind::Json, r#"{"a": 1}"#),
            &v(Kind::Text, r#"{"a":1}"#)
        ));
        assert!(!eq(
            &v(Kind::Json, r#"{"a": 1}"#),
            &v(Kind::Json, r#"{"a": 2}"#)
        ));
    }

    #[test]
    fn decimal_normalisation() {
        assert_eq!(normalize_decimal("007.2500"), Some(("7.25".into(), 4)));
        assert_eq!(normalize_decimal("-0.000"), Some(("0".into(), 3)));
        assert_eq!(normalize_decimal(".5"), Some(("0.5".into(), 1)));
        assert_eq!(normalize_decimal("1e5"), None);
        assert_eq!(float_canonical(1e-7, 12), "0.0000001");
        assert_eq!(float_canonical(-12345.678, 6), "-12345.7");
        assert_eq!(float_canonical(1.5e20, 12), "150000000000000000000");
    }
}
