//! Types of expressions as the target sees them: what a MySQL column becomes under the profile's type
//! map, and what literals are valid for which type. MySQL converts between strings, numbers and dates
//! silently; PostgreSQL-family targets type-check, so most silent conversions become errors there.

use crate::profile::Profile;
use crate::schema::Column;

/// The class of a value on the target.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    Int,
    Numeric,
    Float,
    Bool,
    Text,
    /// Blank-padded CHAR(n).
    Char,
    Bytes,
    Date,
    Time,
    Timestamp,
    TimestampTz,
    Json,
    Bits,
    Interval,
    /// An enum type with its labels.
    Enum(Vec<String>),
    /// A quoted literal: its type comes from the other side of the operator.
    StrLit(String),
    /// A numeric literal, as written.
    NumLit {
        text: String,
        integer: bool,
    },
    Null,
    Unknown,
}

impl Ty {
    pub fn from_class(class: &str, members: &[String]) -> Ty {
        match class {
            "integer" => Ty::Int,
            "numeric" => Ty::Numeric,
            "float" => Ty::Float,
            "bool" => Ty::Bool,
            "text" => Ty::Text,
            "char" => Ty::Char,
            "bytes" => Ty::Bytes,
            "date" => Ty::Date,
            "time" => Ty::Time,
            "timestamp" => Ty::Timestamp,
            "timestamptz" => Ty::TimestampTz,
            "json" => Ty::Json,
            "bits" => Ty::Bits,
            "enum" => Ty::Enum(members.to_vec()),
            _ => Ty::Unknown,
        }
    }

    /// The target type of a schema column under the profile's type map.
    pub fn of_column(c: &Column, profile: &Profile) -> Ty {
        match profile.type_mapping(&c.mysql_type) {
            Some((_, m)) => Ty::from_class(m.class.as_deref().unwrap_or(""), &c.mysql_type.members),
            None => Ty::Unknown,
        }
    }

    pub fn is_numeric(&self) -> bool {
        matches!(self, Ty::Int | Ty::Numeric | Ty::Float | Ty::NumLit { .. })
    }

    pub fn is_integer(&self) -> bool {
        matches!(self, Ty::Int | Ty::NumLit { integer: true, .. })
    }

    pub fn is_text(&self) -> bool {
        matches!(self, Ty::Text | Ty::Char)
    }

    pub fn is_temporal(&self) -> bool {
        matches!(self, Ty::Date | Ty::Time | Ty::Timestamp | Ty::TimestampTz)
    }

    /// A typed value (not a literal waiting for context, not unknown).
    pub fn is_typed(&self) -> bool {
        !matches!(
            self,
            Ty::StrLit(_) | Ty::NumLit { .. } | Ty::Null | Ty::Unknown
        )
    }

    pub fn name(&self) -> &'static str {
        match self {
            Ty::Int => "integer",
            Ty::Numeric => "numeric",
            Ty::Float => "double precision",
            Ty::Bool => "boolean",
            Ty::Text => "character varying",
            Ty::Char => "character",
            Ty::Bytes => "bytea",
            Ty::Date => "date",
            Ty::Time => "time",
            Ty::Timestamp => "timestamp",
            Ty::TimestampTz => "timestamptz",
            Ty::Json => "jsonb",
            Ty::Bits => "bit",
            Ty::Interval => "interval",
            Ty::Enum(_) => "enum",
            Ty::StrLit(_) => "unknown",
            Ty::NumLit { integer: true, .. } => "integer",
            Ty::NumLit { .. } => "numeric",
            Ty::Null => "null",
            Ty::Unknown => "unknown",
        }
    }
}

/// Whether a quoted literal is a valid value of a type on the target.
#[derive(Debug, PartialEq, Eq)]
pub enum Literal {
    Valid,
    /// Valid, but read differently from MySQL (`24:00:00` is the next midnight).
    ValidDifferent(&'static str),
    Invalid,
}

fn is_int_text(s: &str) -> bool {
    let t = s.trim();
    let t = t.strip_prefix(['+', '-']).unwrap_or(t);
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
}

fn is_decimal_text(s: &str) -> bool {
    let t = s.trim();
    if t.eq_ignore_ascii_case("nan") {
        return true;
    }
    let t = t.strip_prefix(['+', '-']).unwrap_or(t);
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(p) => (&t[..p], Some(&t[p + 1..])),
        None => (t, None),
    };
    let (i, f) = mant.split_once('.').unwrap_or((mant, ""));
    let digits_ok = (!i.is_empty() || !f.is_empty())
        && i.bytes().all(|b| b.is_ascii_digit())
        && f.bytes().all(|b| b.is_ascii_digit());
    let exp_ok = exp.is_none_or(is_int_text);
    digits_ok && exp_ok
}

fn is_bool_text(s: &str) -> bool {
    let t = s.trim().to_ascii_lowercase();
    if t.is_empty() {
        return false;
    }
    ["true", "false", "yes", "no"]
        .iter()
        .any(|w| w.starts_with(&t))
        || ["on", "off"].contains(&t.as_str())
        || t == "1"
        || t == "0"
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => 0,
    }
}

/// `YYYY-MM-DD`, `YYYY-M-D`, `YYYYMMDD`: (year, month, day) and the rest of the text.
fn split_date(s: &str) -> Option<(i64, u32, u32, &str)> {
    let t = s.trim();
    if t.len() >= 8
        && t.as_bytes()[..8].iter().all(u8::is_ascii_digit)
        && t.as_bytes().get(8).is_none_or(|b| !b.is_ascii_digit())
    {
        return Some((
            t[..4].parse().ok()?,
            t[4..6].parse().ok()?,
            t[6..8].parse().ok()?,
            &t[8..],
        ));
    }
    let mut parts = t.splitn(3, '-');
    let y = parts.next()?;
    let m = parts.next()?;
    let rest = parts.next()?;
    let d_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    if y.is_empty()
        || !y.bytes().all(|b| b.is_ascii_digit())
        || m.is_empty()
        || m.len() > 2
        || d_end == 0
        || d_end > 2
    {
        return None;
    }
    Some((
        y.parse().ok()?,
        m.parse().ok()?,
        rest[..d_end].parse().ok()?,
        &rest[d_end..],
    ))
}

fn valid_date(y: i64, m: u32, d: u32) -> bool {
    y > 0 && (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m)
}

/// `HH:MM[:SS[.f]]` with an optional zone: (valid, is 24:00:00).
fn check_time(t: &str) -> Option<bool> {
    let t = t.trim();
    let clock = t.split(['+', 'Z']).next().unwrap_or(t);
    let clock = match clock.rfind('-') {
        Some(p) if p > 2 => &clock[..p],
        _ => clock,
    };
    let mut parts = clock.split(':');
    let h: u32 = parts.next()?.trim().parse().ok()?;
    let mi: u32 = parts.next()?.parse().ok()?;
    let s: f64 = parts.next().map_or(Some(0.0), |s| s.parse().ok())?;
    if h > 24 || mi > 59 || s >= 61.0 || (h == 24 && (mi > 0 || s > 0.0)) {
        return None;
    }
    Some(h == 24)
}

/// Is `value` (a quoted literal) valid for `ty` on the target?
pub fn literal_for(ty: &Ty, value: &str) -> Literal {
    match ty {
        Ty::Int => {
            if is_int_text(value) {
                Literal::Valid
            } else {
                Literal::Invalid
            }
        }
        Ty::Numeric | Ty::Float => {
            if is_decimal_text(value)
                || (matches!(ty, Ty::Float)
                    && matches!(
                        value.trim().to_ascii_lowercase().as_str(),
                        "infinity" | "-infinity"
                    ))
            {
                Literal::Valid
            } else {
                Literal::Invalid
            }
        }
        Ty::Bool => {
            if is_bool_text(value) {
                Literal::Valid
            } else {
                Literal::Invalid
            }
        }
        Ty::Date => {
            if matches!(
                value.trim().to_ascii_lowercase().as_str(),
                "today" | "tomorrow" | "yesterday" | "epoch" | "infinity" | "-infinity"
            ) {
                return Literal::Valid;
            }
            match split_date(value) {
                Some((y, m, d, rest)) if valid_date(y, m, d) => match rest.trim() {
                    "" => Literal::Valid,
                    time => match check_time(time.trim_start_matches('T')) {
                        Some(_) => Literal::Valid,
                        None => Literal::Invalid,
                    },
                },
                _ => Literal::Invalid,
            }
        }
        Ty::Timestamp | Ty::TimestampTz => {
            if matches!(
                value.trim().to_ascii_lowercase().as_str(),
                "now" | "today" | "tomorrow" | "yesterday" | "epoch" | "infinity" | "-infinity"
            ) {
                return Literal::Valid;
            }
            match split_date(value) {
                Some((y, m, d, rest)) if valid_date(y, m, d) => {
                    let time = rest.trim().trim_start_matches('T');
                    if time.is_empty() {
                        return Literal::Valid;
                    }
                    match check_time(time) {
                        Some(true) => Literal::ValidDifferent(
                            "24:00:00 is the next midnight here; MySQL rejects it",
                        ),
                        Some(false) => Literal::Valid,
                        None => Literal::Invalid,
                    }
                }
                _ => Literal::Invalid,
            }
        }
        Ty::Time => match check_time(value) {
            Some(true) => Literal::ValidDifferent("24:00:00 is valid here"),
            Some(false) => Literal::Valid,
            None => Literal::Invalid,
        },
        Ty::Enum(members) => {
            if members.is_empty() || members.iter().any(|m| m == value) {
                Literal::Valid
            } else {
                Literal::Invalid
            }
        }
        Ty::Bits => {
            if !value.is_empty() && value.bytes().all(|b| b == b'0' || b == b'1') {
                Literal::Valid
            } else {
                Literal::Invalid
            }
        }
        Ty::Json => {
            if serde_json::from_str::<serde_json::Value>(value).is_ok() {
                Literal::Valid
            } else {
                Literal::Invalid
            }
        }
        _ => Literal::Valid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(literal_for(&Ty::Int, "12"), Literal::Valid);
        assert_eq!(literal_for(&Ty::Int, "2abc"), Literal::Invalid);
        assert_eq!(literal_for(&Ty::Numeric, "1.5e3"), Literal::Valid);
        assert_eq!(literal_for(&Ty::Bool, "1"), Literal::Valid);
        assert_eq!(literal_for(&Ty::Bool, "yes"), Literal::Valid);
        assert_eq!(literal_for(&Ty::Date, "0000-00-00"), Literal::Invalid);
        assert_eq!(literal_for(&Ty::Date, "2024-02-30"), Literal::Invalid);
        assert_eq!(literal_for(&Ty::Date, "2024-02-29"), Literal::Valid);
        assert_eq!(literal_for(&Ty::Date, "2024-5-1"), Literal::Valid);
        assert_eq!(literal_for(&Ty::Date, "20240501"), Literal::Valid);
        assert_eq!(
            literal_for(&Ty::Timestamp, "2024-05-01 24:00:00"),
            Literal::ValidDifferent("24:00:00 is the next midnight here; MySQL rejects it")
        );
        assert_eq!(
            literal_for(&Ty::Timestamp, "2024-05-01 10:00:00.5"),
            Literal::Valid
        );
        assert_eq!(
            literal_for(&Ty::Timestamp, "2024-05-01 25:00:00"),
            Literal::Invalid
        );
        assert_eq!(
            literal_for(&Ty::Enum(vec!["pro".into()]), "PRO"),
            Literal::Invalid
        );
        assert_eq!(literal_for(&Ty::Json, "{\"a\":1}"), Literal::Valid);
    }
}
