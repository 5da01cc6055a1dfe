//! MySQL tokens written as PostgreSQL-family SQL: identifiers, string, hex and bit literals, zero
//! dates, version comments. Works on the one MySQL lexer's tokens, never on regexes over raw SQL.

use crate::schema::target::pg_ident;
use crate::sql::lexer::{Lexer, Token, TokenKind, unquote};

/// What a value is written into, as far as its literal's form matters on the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Unknown or any type a quoted literal fits (text, numbers, JSON).
    Any,
    Boolean,
    Bytes,
    /// `bit(n)`: the full target type is kept beside it by the caller.
    Bit,
    Temporal,
    Integer,
}

impl Slot {
    /// The slot of a target type as the profile writes it.
    pub fn of_target_type(ty: &str) -> Slot {
        let t = ty.to_ascii_lowercase();
        if t.starts_with("boolean") || t == "bool" {
            Slot::Boolean
        } else if t.starts_with("bytea") || t.starts_with("bytes") || t.contains("blob") {
            Slot::Bytes
        } else if t.starts_with("bit") || t.starts_with("varbit") {
            Slot::Bit
        } else if t.starts_with("timestamp") || t.starts_with("date") || t.starts_with("time") {
            Slot::Temporal
        } else if matches!(
            t.as_str(),
            "smallint" | "integer" | "bigint" | "int2" | "int4" | "int8"
        ) || t.starts_with("numeric")
        {
            Slot::Integer
        } else {
            Slot::Any
        }
    }
}

/// The tokens of a statement that the source server runs: comments dropped; a version comment's
/// content kept, except MySQL-5.7-and-later ones (`/*!50700` … `/*!99999`), which MariaDB skips
/// (sakila's data keeps a MySQL-only column inside one). Whitespace is kept.
pub fn code_tokens(src: &[u8]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut skipping = false;
    for t in Lexer::new(src) {
        match t.kind {
            TokenKind::VersionCommentStart => {
                let digits: String = t
                    .text(src)
                    .iter()
                    .filter(|b| b.is_ascii_digit())
                    .map(|&b| b as char)
                    .collect();
                let v: u64 = digits.parse().unwrap_or(0);
                skipping = (50700..100000).contains(&v);
            }
            TokenKind::VersionCommentEnd => skipping = false,
            _ if skipping => {}
            TokenKind::Comment | TokenKind::Hint => out.push(Token {
                kind: TokenKind::Whitespace,
                start: t.start,
                end: t.start,
            }),
            _ => out.push(t),
        }
    }
    out
}

/// A word token's upper-case text (empty for other tokens).
pub fn word(t: &Token, src: &[u8]) -> String {
    if t.kind == TokenKind::Word {
        String::from_utf8_lossy(t.text(src)).to_ascii_uppercase()
    } else {
        String::new()
    }
}

/// An identifier token's name as MySQL reads it (backticks removed).
pub fn ident_name(t: &Token, src: &[u8]) -> String {
    match t.kind {
        TokenKind::QuotedIdent => String::from_utf8_lossy(&unquote(t.text(src))).into_owned(),
        _ => String::from_utf8_lossy(t.text(src)).into_owned(),
    }
}

/// A name for the target: lower case (how an unquoted MySQL name reads there), quoted when needed.
pub fn target_ident(name: &str) -> String {
    pg_ident(&name.to_lowercase())
}

/// A standard-conforming PostgreSQL string literal of `bytes`. NUL cannot be stored in a
/// PostgreSQL text value: it is dropped and counted in `nul`.
pub fn pg_string(bytes: &[u8], nul: &mut usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\'' => out.push_str("''"),
            '\0' => *nul += 1,
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A `bytea` literal (hex form; needs standard_conforming_strings, which the script sets).
pub fn pg_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2 + 4);
    out.push_str("'\\x");
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
    }
    out.push('\'');
    out
}

fn hex_digits_to_bytes(hex: &[u8]) -> Vec<u8> {
    let h: Vec<u8> = if hex.len() % 2 == 1 {
        std::iter::once(b'0').chain(hex.iter().copied()).collect()
    } else {
        hex.to_vec()
    };
    h.chunks(2)
        .filter_map(|c| u8::from_str_radix(std::str::from_utf8(c).ok()?, 16).ok())
        .collect()
}

/// The bytes of a hex literal (`0x4142`, `X'4142'`), or of a bit literal (`0b101`, `B'101'`).
fn literal_bytes(kind: TokenKind, text: &[u8]) -> (Vec<u8>, Option<String>) {
    match kind {
        TokenKind::HexNumber => (hex_digits_to_bytes(&text[2..]), None),
        TokenKind::HexString => (hex_digits_to_bytes(&text[2..text.len() - 1]), None),
        TokenKind::BitNumber => {
            let bits = String::from_utf8_lossy(&text[2..]).into_owned();
            (bits_to_bytes(&bits), Some(bits))
        }
        _ => {
            let bits = String::from_utf8_lossy(&text[2..text.len() - 1]).into_owned();
            (bits_to_bytes(&bits), Some(bits))
        }
    }
}

fn bits_to_bytes(bits: &str) -> Vec<u8> {
    let v = u128::from_str_radix(if bits.is_empty() { "0" } else { bits }, 2).unwrap_or(0);
    let bytes = v.to_be_bytes();
    let first = bytes.iter().position(|&b| b != 0).unwrap_or(15);
    bytes[first..].to_vec()
}

/// A date or datetime string MySQL accepts and PostgreSQL refuses: a zero year, month or day.
pub fn is_zero_date(s: &[u8]) -> bool {
    let s = String::from_utf8_lossy(s);
    let date = s.split([' ', 'T']).next().unwrap_or("");
    let parts: Vec<&str> = date.split('-').collect();
    parts.len() == 3
        && parts.iter().all(|p| p.chars().all(|c| c.is_ascii_digit()))
        && parts.iter().any(|p| p.trim_start_matches('0').is_empty())
}

/// What writing literals changed that the reader should know of.
#[derive(Clone, Debug, Default)]
pub struct LiteralNotes {
    pub zero_dates: usize,
    pub nul_bytes: usize,
    /// String values with bytes that are not UTF-8 bound for a text column (an error for the
    /// statement: the caller stops with "not UTF-8").
    pub not_utf8_text: usize,
}

/// Writes one literal token for a slot (`target_type` is the column's type on the target, for
/// bit columns). `introducer` is the charset introducer before it (`_binary`), if any.
pub fn literal(
    t: &Token,
    src: &[u8],
    slot: Slot,
    target_type: &str,
    introducer: Option<&str>,
    notes: &mut LiteralNotes,
) -> String {
    let text = t.text(src);
    let binary = introducer.is_some_and(|i| i.eq_ignore_ascii_case("_binary"));
    match t.kind {
        TokenKind::String | TokenKind::NationalString => {
            let quoted = if t.kind == TokenKind::NationalString {
                &text[1..]
            } else {
                text
            };
            let unquoted = unquote(quoted);
            let (bytes, had_raw) = crate::sql::script::raw_bytes(&unquoted);
            if had_raw && !(binary || matches!(slot, Slot::Bytes | Slot::Bit)) {
                // Bytes that are not UTF-8 going into a text column: the script's encoding is not
                // UTF-8 (or the column is binary on the source and text here).
                notes.not_utf8_text += 1;
            }
            match slot {
                Slot::Bytes => pg_bytes(&bytes),
                // mysqldump writes BIT values as the bytes of the number in a string.
                Slot::Bit => {
                    let mut v: u128 = 0;
                    for b in bytes.iter() {
                        v = v.wrapping_shl(8) | u128::from(*b);
                    }
                    format!("CAST({v} AS {target_type})")
                }
                Slot::Temporal if is_zero_date(&bytes) => {
                    notes.zero_dates += 1;
                    "NULL".into()
                }
                _ if binary => pg_bytes(&bytes),
                _ => pg_string(&bytes, &mut notes.nul_bytes),
            }
        }
        TokenKind::HexNumber
        | TokenKind::HexString
        | TokenKind::BitNumber
        | TokenKind::BitString => {
            let (bytes, bits) = literal_bytes(t.kind, text);
            let as_int = || {
                let mut v: u128 = 0;
                for b in &bytes {
                    v = v.wrapping_shl(8) | u128::from(*b);
                }
                v.to_string()
            };
            match slot {
                Slot::Bytes => pg_bytes(&bytes),
                Slot::Bit => match bits {
                    Some(b) => format!("CAST(B'{b}' AS {target_type})"),
                    None => format!("CAST({} AS {target_type})", as_int()),
                },
                Slot::Integer => as_int(),
                Slot::Boolean => (as_int() != "0").to_string(),
                _ if binary => pg_bytes(&bytes),
                _ if bits.is_some() => as_int(),
                _ => pg_string(&bytes, &mut notes.nul_bytes),
            }
        }
        TokenKind::Number => {
            let s = String::from_utf8_lossy(text).into_owned();
            match slot {
                Slot::Boolean => {
                    let zero = s.parse::<f64>().map(|v| v == 0.0).unwrap_or(false);
                    (!zero).to_string()
                }
                Slot::Bit => format!("CAST({s} AS {target_type})"),
                _ => s,
            }
        }
        _ => String::from_utf8_lossy(text).into_owned(),
    }
}

/// Writes a run of tokens for the target with identifiers and literals translated and no slot
/// information (DDL bodies, defaults, index and key definitions).
pub fn translate_tokens(src: &[u8], toks: &[Token], notes: &mut LiteralNotes) -> String {
    translate_with_slot(src, toks, Slot::Any, "", notes)
}

/// [`translate_tokens`] with every literal written for `slot`.
pub fn translate_with_slot(
    src: &[u8],
    toks: &[Token],
    slot: Slot,
    target_type: &str,
    notes: &mut LiteralNotes,
) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        match t.kind {
            TokenKind::Whitespace => {
                if t.start == t.end {
                    out.push(' ');
                } else {
                    out.push_str(&String::from_utf8_lossy(t.text(src)));
                }
            }
            TokenKind::QuotedIdent => out.push_str(&target_ident(&ident_name(t, src))),
            TokenKind::Word => {
                let w = word(t, src);
                let next = next_code(toks, i + 1);
                // A charset introducer: `_utf8mb4'x'`, `_binary 0x…`.
                if w.starts_with('_')
                    && next.is_some_and(|n| toks[n].kind.is_literal())
                    && let Some(n) = next
                {
                    let lit = literal(&toks[n], src, slot, target_type, Some(&w), notes);
                    out.push_str(&lit);
                    i = n + 1;
                    continue;
                }
                // `CURRENT_TIMESTAMP()` / `NOW()` style: PostgreSQL takes CURRENT_TIMESTAMP bare.
                if matches!(
                    w.as_str(),
                    "CURRENT_TIMESTAMP" | "LOCALTIMESTAMP" | "CURRENT_DATE"
                ) && let Some(n) = next
                    && toks[n].text(src) == b"("
                    && let Some(m) = next_code(toks, n + 1)
                    && toks[m].text(src) == b")"
                {
                    out.push_str(&w);
                    i = m + 1;
                    continue;
                }
                match (w.as_str(), slot) {
                    ("TRUE", Slot::Integer) => out.push('1'),
                    ("FALSE", Slot::Integer) => out.push('0'),
                    _ => out.push_str(&String::from_utf8_lossy(t.text(src))),
                }
            }
            k if k.is_literal() => {
                out.push_str(&literal(t, src, slot, target_type, None, notes));
            }
            TokenKind::VersionCommentStart | TokenKind::VersionCommentEnd => out.push(' '),
            _ => out.push_str(&String::from_utf8_lossy(t.text(src))),
        }
        i += 1;
    }
    out
}

/// The index of the next token that is not whitespace, from `i` on.
pub fn next_code(toks: &[Token], mut i: usize) -> Option<usize> {
    while i < toks.len() {
        if toks[i].kind != TokenKind::Whitespace {
            return Some(i);
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tr(sql: &str, slot: Slot, ty: &str) -> String {
        let toks = code_tokens(sql.as_bytes());
        translate_with_slot(
            sql.as_bytes(),
            &toks,
            slot,
            ty,
            &mut LiteralNotes::default(),
        )
    }

    #[test]
    fn literals_translate_by_slot() {
        assert_eq!(tr(r"'it\'s\n'", Slot::Any, ""), "'it''s\n'");
        assert_eq!(tr("\"dq\"", Slot::Any, ""), "'dq'");
        assert_eq!(tr("0x4142", Slot::Any, ""), "'AB'");
        assert_eq!(tr("0x4142", Slot::Bytes, ""), "'\\x4142'");
        assert_eq!(tr("X'ff'", Slot::Integer, ""), "255");
        assert_eq!(tr("b'101'", Slot::Bit, "bit(3)"), "CAST(B'101' AS bit(3))");
        assert_eq!(tr("0b101", Slot::Integer, ""), "5");
        assert_eq!(tr("1", Slot::Boolean, ""), "true");
        assert_eq!(tr("0", Slot::Boolean, ""), "false");
        assert_eq!(tr("'0000-00-00 00:00:00'", Slot::Temporal, ""), "NULL");
        assert_eq!(tr("'2020-01-02'", Slot::Temporal, ""), "'2020-01-02'");
        assert_eq!(tr("_binary 'ab'", Slot::Any, ""), "'\\x6162'");
        assert_eq!(tr("_utf8mb4'ab'", Slot::Any, ""), "'ab'");
        assert_eq!(tr("`Order` /* c */", Slot::Any, ""), "\"order\"  ");
        assert_eq!(
            tr("current_timestamp()", Slot::Any, ""),
            "CURRENT_TIMESTAMP"
        );
        assert_eq!(tr("1 /*!50705 ,2*/", Slot::Any, ""), "1 ");
        assert_eq!(tr("1 /*!40101 ,2*/", Slot::Any, ""), "1  ,2");
    }
}
