//! `CAST(x AS T)` and `CONVERT(x, T)` / `CONVERT(x USING cs)`: MySQL's cast types written as the
//! target's; MySQL's hexadecimal and bit literals as the number, text or bytes they stand for.

use super::Writer;
use crate::sql::lexer::TokenKind;

/// A MySQL CAST type's name on the target (`words`: the type's words, upper case; `len`: its
/// parenthesised length, if any): (name, rule it answers). None: written as it is.
fn cast_type(words: &[String], len: Option<&str>) -> Option<(String, &'static str)> {
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    Some(match (w.as_slice(), len) {
        (["SIGNED"] | ["SIGNED", "INT" | "INTEGER"], None) => ("BIGINT".into(), "DML-017"),
        (["UNSIGNED"] | ["UNSIGNED", "INT" | "INTEGER"], None) => ("NUMERIC(20)".into(), "DML-017"),
        (["CHAR"] | ["NCHAR"], None) => ("TEXT".into(), "DML-017C"),
        (["CHAR"] | ["NCHAR"], Some(n)) => (format!("VARCHAR({n})"), "DML-017C"),
        (["DATETIME"], None) => ("TIMESTAMP".into(), "DML-017"),
        (["DATETIME"], Some(n)) => (format!("TIMESTAMP({n})"), "DML-017"),
        (["DOUBLE"], None) => ("DOUBLE PRECISION".into(), "DML-017D"),
        (["BINARY"], None) => ("BYTEA".into(), "DML-017"),
        _ => return None,
    })
}

impl Writer<'_> {
    /// `CAST(x AS T)` (`open` is the `(`): the MySQL-only type names written for the target.
    pub(super) fn cast(&mut self, i: usize, open: usize, end: usize) -> Option<(String, usize)> {
        let close = self.matching(open, end)?;
        let mut depth = 0;
        let mut as_at = None;
        for k in open + 1..close {
            match (self.toks[k].kind, self.text(k)) {
                (TokenKind::Punct, "(") => depth += 1,
                (TokenKind::Punct, ")") => depth -= 1,
                (TokenKind::Word, w) if depth == 0 && w.eq_ignore_ascii_case("AS") => {
                    as_at = Some(k)
                }
                _ => {}
            }
        }
        let as_at = as_at?;
        let (words, len) = self.type_words(as_at + 1, close)?;
        let Some((ty, rule)) = cast_type(&words, len.as_deref()) else {
            if words.iter().any(|w| {
                matches!(
                    w.as_str(),
                    "SIGNED" | "UNSIGNED" | "DATETIME" | "DOUBLE" | "BINARY"
                )
            }) {
                self.miss("DML-017");
            }
            return None;
        };
        let inner = self.emit(open + 1, as_at);
        self.note(rule);
        Some((
            format!("{}({} AS {ty})", self.text(i), inner.trim()),
            close + 1,
        ))
    }

    /// The words of a type name in `from..to` and its parenthesised length: None when anything else
    /// is there (a charset, two numbers).
    pub(super) fn type_words(
        &self,
        from: usize,
        to: usize,
    ) -> Option<(Vec<String>, Option<String>)> {
        let mut words = Vec::new();
        let mut len = None;
        let mut k = from;
        while k < to {
            if !self.is_sig(k) {
                k += 1;
                continue;
            }
            match self.toks[k].kind {
                TokenKind::Word if len.is_none() => words.push(self.text(k).to_ascii_uppercase()),
                TokenKind::Punct if self.text(k) == "(" && len.is_none() => {
                    let n = self.next_sig(k + 1, to)?;
                    let mut c = self.next_sig(n + 1, to)?;
                    if self.toks[n].kind != TokenKind::Number {
                        return None;
                    }
                    let mut l = self.text(n).to_string();
                    if self.text(c) == "," {
                        let m = self.next_sig(c + 1, to)?;
                        if self.toks[m].kind != TokenKind::Number {
                            return None;
                        }
                        l = format!("{l},{}", self.text(m));
                        c = self.next_sig(m + 1, to)?;
                    }
                    if self.text(c) != ")" {
                        return None;
                    }
                    len = Some(l);
                    k = c;
                }
                _ => return None,
            }
            k += 1;
        }
        (!words.is_empty()).then_some((words, len))
    }

    /// `CONVERT(x, T)` → `CAST(x AS T)`, `CONVERT(x USING utf8mb4)` → `(x)`.
    pub(super) fn convert(&mut self, open: usize, end: usize) -> Option<(String, usize)> {
        let close = self.matching(open, end)?;
        let mut depth = 0;
        let mut sep = None;
        for k in open + 1..close {
            match (self.toks[k].kind, self.text(k)) {
                (TokenKind::Punct, "(") => depth += 1,
                (TokenKind::Punct, ")") => depth -= 1,
                (TokenKind::Punct, ",") if depth == 0 => sep = Some((k, false)),
                (TokenKind::Word, w) if depth == 0 && w.eq_ignore_ascii_case("USING") => {
                    sep = Some((k, true))
                }
                _ => {}
            }
        }
        let Some((k, using)) = sep else {
            self.miss("DML-017V");
            return None;
        };
        let (words, len) = match self.type_words(k + 1, close) {
            Some(t) => t,
            None => {
                self.miss("DML-017V");
                return None;
            }
        };
        let inner = self.emit(open + 1, k);
        let inner = inner.trim();
        let out = if using {
            if !matches!(words.as_slice(), [w] if w == "UTF8" || w == "UTF8MB4" || w == "UTF8MB3") {
                self.miss("DML-017V");
                return None;
            }
            format!("({inner})")
        } else {
            let ty = match cast_type(&words, len.as_deref()) {
                Some((t, _)) => t,
                None => {
                    let mut t = words.join(" ");
                    if let Some(n) = len {
                        t.push_str(&format!("({n})"));
                    }
                    t
                }
            };
            format!("CAST({inner} AS {ty})")
        };
        self.note("DML-017V");
        Some((out, close + 1))
    }
}

/// The bytes a `0x41`, `X'41'`, `0b101` or `b'101'` literal spells (an odd hex digit or short bit
/// run padded on the left, as MySQL does). None for anything else.
fn literal_bytes(text: &str) -> Option<Vec<u8>> {
    let lower = text.to_ascii_lowercase();
    let (digits, radix) = if let Some(h) = lower.strip_prefix("0x") {
        (h.to_string(), 16)
    } else if let Some(b) = lower.strip_prefix("0b") {
        (b.to_string(), 2)
    } else if let Some(h) = lower.strip_prefix("x'") {
        (h.strip_suffix('\'')?.to_string(), 16)
    } else if let Some(b) = lower.strip_prefix("b'") {
        (b.strip_suffix('\'')?.to_string(), 2)
    } else {
        return None;
    };
    let per_byte = if radix == 16 { 2 } else { 8 };
    let width = digits.len().div_ceil(per_byte) * per_byte;
    let padded = "0".repeat(width - digits.len()) + &digits;
    (0..padded.len())
        .step_by(per_byte)
        .map(|k| u8::from_str_radix(&padded[k..k + per_byte], radix).ok())
        .collect()
}

impl Writer<'_> {
    /// MySQL's hexadecimal and bit literals, by what the neighbouring operator makes of them: a
    /// number in arithmetic or bit operations (`0x41 + 0` is 65), a string compared with a value
    /// (`sku = 0x5445` compares the text 'TE', byte for byte as the target compares text), else a
    /// binary string (`'\x41'::bytea`). None when the value does not fit (a number over 64 bits, a
    /// compared string that is not printable UTF-8).
    pub(super) fn binary_literal(&self, i: usize, end: usize) -> Option<String> {
        let bytes = literal_bytes(self.text(i))?;
        let arithmetic = |k: Option<usize>| {
            k.is_some_and(|k| {
                matches!(
                    self.text(k),
                    "+" | "-" | "*" | "/" | "%" | "|" | "&" | "^" | "<<" | ">>" | "~"
                ) || self.word_is(k, "DIV")
                    || self.word_is(k, "MOD")
            })
        };
        let comparison = |k: Option<usize>| {
            k.is_some_and(|k| {
                matches!(
                    self.text(k),
                    "=" | "<>" | "!=" | "<" | ">" | "<=" | ">=" | "<=>"
                ) || self.word_is(k, "LIKE")
            })
        };
        let (prev, next) = (self.prev_sig(i), self.next_sig(i + 1, end));
        if arithmetic(prev) || arithmetic(next) {
            if bytes.len() > 8 {
                return None;
            }
            let n = bytes.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
            return Some(n.to_string());
        }
        if comparison(prev) || comparison(next) {
            let s = String::from_utf8(bytes).ok()?;
            if s.chars().any(char::is_control) {
                return None;
            }
            return Some(format!("'{}'", s.replace('\'', "''")));
        }
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        Some(format!("'\\x{hex}'::bytea"))
    }
}
