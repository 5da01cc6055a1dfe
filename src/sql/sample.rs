//! The shape of a huge multi-row INSERT, small enough to audit: mysqldump writes `INSERT … VALUES
//! (…), (…), …` statements up to max_allowed_packet (up to 1 GB), and building sqlparser's tokens
//! and tree for all their rows takes some 25 times the statement's size. Their rows repeat one
//! shape, so the audit checks the statement cut to its first rows, with what follows the row list
//! (`ON DUPLICATE KEY UPDATE …`) kept, and says so. Found on lexer tokens in one streaming pass that
//! allocates nothing but the sample.

use super::keywords::eq_kw;
use super::lexer::{Lexer, TokenKind};

/// The statement with its VALUES row list cut after `keep_rows` rows, and how many rows it had;
/// `None` when it is not an `INSERT`/`REPLACE … VALUES` with more rows than that.
pub fn values_sample(sql: &str, keep_rows: usize) -> Option<(String, usize)> {
    let b = sql.as_bytes();
    let mut toks =
        Lexer::new(b).filter(|t| !matches!(t.kind, TokenKind::Whitespace | TokenKind::Comment));
    let first = toks.next()?;
    if first.kind != TokenKind::Word
        || !(eq_kw(first.text(b), b"INSERT") || eq_kw(first.text(b), b"REPLACE"))
    {
        return None;
    }
    // Up to VALUES / VALUE at the top level.
    let mut depth = 0usize;
    loop {
        let t = toks.next()?;
        match (t.kind, t.text(b)) {
            (TokenKind::Punct, b"(") => depth += 1,
            (TokenKind::Punct, b")") => depth = depth.saturating_sub(1),
            (TokenKind::Word, w) if depth == 0 && (eq_kw(w, b"VALUES") || eq_kw(w, b"VALUE")) => {
                break;
            }
            (TokenKind::Word, w) if depth == 0 && eq_kw(w, b"SELECT") => return None,
            _ => {}
        }
    }
    // The rows: `(…)` groups at the top level, separated by commas (`ROW(…)` too).
    let mut rows = 0usize;
    let mut cut_at = None;
    let mut list_end = None;
    let mut expect_row = true;
    for t in toks {
        match (t.kind, t.text(b)) {
            (TokenKind::Punct, b"(") => depth += 1,
            (TokenKind::Punct, b")") => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    rows += 1;
                    list_end = Some(t.end);
                    if rows == keep_rows {
                        cut_at = Some(t.end);
                    }
                    expect_row = false;
                }
            }
            (TokenKind::Punct, b",") if depth == 0 => expect_row = true,
            (TokenKind::Word, w) if depth == 0 && expect_row && eq_kw(w, b"ROW") => {}
            _ if depth == 0 => break, // the row list ended (ON DUPLICATE KEY UPDATE, `;`, …)
            _ => {}
        }
    }
    let (cut, end) = (cut_at?, list_end?);
    if rows <= keep_rows {
        return None;
    }
    Some((format!("{}{}", &sql[..cut], &sql[end..]), rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_the_row_list_and_keeps_what_follows() {
        let sql = "INSERT INTO t (a, b) VALUES (1, 'x,)'), (2, f(3)), (3, 'z') ON DUPLICATE KEY UPDATE b = VALUES(b);";
        let (s, n) = values_sample(sql, 2).unwrap();
        assert_eq!(n, 3);
        assert_eq!(
            s,
            "INSERT INTO t (a, b) VALUES (1, 'x,)'), (2, f(3)) ON DUPLICATE KEY UPDATE b = VALUES(b);"
        );
        assert!(values_sample(sql, 3).is_none());
        assert!(values_sample("SELECT 1", 1).is_none());
        assert!(values_sample("INSERT INTO t SELECT * FROM u", 1).is_none());
        let (s, n) = values_sample("REPLACE INTO t VALUES ROW(1), ROW(2), ROW(3)", 1).unwrap();
        assert_eq!((s.as_str(), n), ("REPLACE INTO t VALUES ROW(1)", 3));
    }
}
