//! Splits a text holding several `;`-separated statements (a multi-statement `Query` in the general
//! log) into its statements, on lexer tokens so that `;` in strings and comments does not split.
//!
//! Stored-program definitions (`CREATE PROCEDURE … BEGIN …; …; END`) and MariaDB compound statements
//! (`BEGIN NOT ATOMIC …`) contain `;` in their bodies and are never split.

use super::keywords::eq_kw;
use super::lexer::{Lexer, TokenKind};

/// Byte ranges of the statements in `sql`, each trimmed of surrounding whitespace and its `;`.
/// A text with one statement (the common case) returns one range; empty statements are dropped.
pub fn split_statements(sql: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    // Fast path: no `;` before trailing whitespace/semicolons means one statement.
    let trimmed_end = trim_end(sql, sql.len());
    if memchr::memchr(b';', &sql[..trimmed_end]).is_none() || is_compound(sql) {
        let s = trim_start(sql, 0, trimmed_end);
        if s < trimmed_end {
            out.push((s, trimmed_end));
        }
        return out;
    }
    let mut stmt_start = 0;
    for tok in Lexer::new(sql) {
        if tok.kind == TokenKind::Punct && tok.text(sql) == b";" {
            push_trimmed(sql, stmt_start, tok.start, &mut out);
            stmt_start = tok.end;
        }
    }
    push_trimmed(sql, stmt_start, sql.len(), &mut out);
    out
}

fn push_trimmed(sql: &[u8], start: usize, end: usize, out: &mut Vec<(usize, usize)>) {
    let e = trim_end(sql, end);
    let s = trim_start(sql, start, e);
    if s < e {
        out.push((s, e));
    }
}

fn trim_end(sql: &[u8], mut end: usize) -> usize {
    while end > 0 && (sql[end - 1].is_ascii_whitespace() || sql[end - 1] == b';') {
        end -= 1;
    }
    end
}

fn trim_start(sql: &[u8], mut start: usize, end: usize) -> usize {
    while start < end && sql[start].is_ascii_whitespace() {
        start += 1;
    }
    start
}

/// True when the text starts a stored program or compound statement, whose body holds `;`.
fn is_compound(sql: &[u8]) -> bool {
    let words: Vec<&[u8]> = Lexer::new(sql)
        .filter(|t| !matches!(t.kind, TokenKind::Whitespace | TokenKind::Comment))
        .take(12)
        .map(|t| t.text(sql))
        .collect();
    let Some(first) = words.first() else {
        return false;
    };
    if eq_kw(first, b"BEGIN") {
        return words.get(1).is_some_and(|w| eq_kw(w, b"NOT"));
    }
    if eq_kw(first, b"CREATE") {
        return words.iter().skip(1).any(|w| {
            eq_kw(w, b"PROCEDURE")
                || eq_kw(w, b"FUNCTION")
                || eq_kw(w, b"TRIGGER")
                || eq_kw(w, b"EVENT")
                || eq_kw(w, b"PACKAGE")
        });
    }
    // Labelled blocks and control statements outside programs (MariaDB).
    eq_kw(first, b"IF")
        || eq_kw(first, b"WHILE")
        || eq_kw(first, b"LOOP")
        || eq_kw(first, b"REPEAT")
        || eq_kw(first, b"CASE")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(s: &str) -> Vec<&str> {
        split_statements(s.as_bytes())
            .into_iter()
            .map(|(a, b)| &s[a..b])
            .collect()
    }

    #[test]
    fn splits_on_top_level_semicolons() {
        assert_eq!(
            parts("SELECT 1; SELECT 'a;b' ; /* ; */ SELECT 3;"),
            vec!["SELECT 1", "SELECT 'a;b'", "/* ; */ SELECT 3"]
        );
        assert_eq!(parts("SELECT 1"), vec!["SELECT 1"]);
        assert_eq!(parts("SELECT 1;\n"), vec!["SELECT 1"]);
        assert_eq!(parts(" ; ;"), Vec::<&str>::new());
    }

    #[test]
    fn keeps_stored_programs_whole() {
        let p = "CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END";
        assert_eq!(parts(p), vec![p]);
        let d = "CREATE DEFINER=`root`@`%` TRIGGER t BEFORE INSERT ON x FOR EACH ROW BEGIN SET NEW.a=1; END";
        assert_eq!(parts(d), vec![d]);
    }
}
