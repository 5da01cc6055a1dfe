//! Masks passwords in statement text before it is shown or written anywhere.
//!
//! MySQL 5.7+ rewrites most password-bearing statements in its logs (`IDENTIFIED BY <secret>`), but
//! MariaDB and older servers log them in clear. cutover never prints a database password it read from
//! a log. In account and replication statements (`CREATE/ALTER USER`, `GRANT`, `SET PASSWORD`,
//! `CHANGE MASTER|REPLICATION`, `CREATE/ALTER SERVER`, `START SLAVE|REPLICA`) the string literal
//! after `IDENTIFIED … BY`/`AS` or after any `…PASSWORD` option is replaced with `'<redacted>'`; in
//! every statement, so are the arguments of `PASSWORD(…)`/`OLD_PASSWORD(…)`. Application data that
//! merely sits in a column named `password` is left alone: replay needs it.

use super::keywords::eq_kw;
use super::lexer::{Lexer, TokenKind};

/// The outcome of [`redact`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redaction {
    /// The text with secrets masked.
    pub text: Vec<u8>,
    /// How many literals were masked by cutover.
    pub masked: usize,
    /// The server had already masked a secret (`<secret>`).
    pub server_masked: bool,
}

/// Masks the secrets in `sql`. Call it for statements the fingerprinter flagged with
/// `mentions_password`; it is cheap but not free.
pub fn redact(sql: &[u8]) -> Redaction {
    let mut out = Vec::with_capacity(sql.len());
    let mut copied = 0;
    let mut masked = 0;
    // Number of significant tokens left during which the next string literal is a secret.
    let mut armed = 0u32;
    // Inside `PASSWORD(`: every literal up to the matching `)` is a secret.
    let mut in_password_call: Option<u32> = None;
    let mut depth = 0u32;
    let mut prev_password_word = false;
    let account = is_account_statement(sql);
    for tok in Lexer::new(sql) {
        let text = tok.text(sql);
        match tok.kind {
            TokenKind::Whitespace | TokenKind::Comment => continue,
            TokenKind::Word => {
                if account && eq_kw(text, b"IDENTIFIED") {
                    armed = 6; // IDENTIFIED [WITH plugin] BY|AS 'x'
                } else if text.len() >= 8 && text.windows(8).any(|w| eq_kw(w, b"PASSWORD")) {
                    if account {
                        armed = 8; // SET PASSWORD [FOR 'u'@'h'] = 'x', MASTER_PASSWORD = 'x'
                    }
                    prev_password_word = true;
                    continue;
                }
            }
            TokenKind::String
            | TokenKind::NationalString
            | TokenKind::HexString
            | TokenKind::Unterminated
                if armed > 0 || in_password_call.is_some() =>
            {
                // In `SET PASSWORD FOR 'u'@'h' = 'x'` the user's name is not a secret: only mask after `=`
                // or `BY`/`AS`, or inside PASSWORD().
                let after_user = sql[..tok.start]
                    .iter()
                    .rev()
                    .find(|b| !b.is_ascii_whitespace())
                    == Some(&b'@');
                let before_at = sql.get(tok.end) == Some(&b'@');
                if !after_user && !before_at {
                    out.extend_from_slice(&sql[copied..tok.start]);
                    out.extend_from_slice(b"'<redacted>'");
                    copied = tok.end;
                    masked += 1;
                    armed = 0;
                }
            }
            TokenKind::Punct => match text {
                b"(" => {
                    depth += 1;
                    if prev_password_word && in_password_call.is_none() {
                        in_password_call = Some(depth);
                    }
                }
                b")" => {
                    if in_password_call == Some(depth) {
                        in_password_call = None;
                    }
                    depth = depth.saturating_sub(1);
                }
                b";" => armed = 0,
                _ => {}
            },
            _ => {}
        }
        prev_password_word = false;
        armed = armed.saturating_sub(1);
    }
    out.extend_from_slice(&sql[copied..]);
    let server_masked = memchr::memmem::find(sql, b"<secret>").is_some();
    Redaction {
        text: out,
        masked,
        server_masked,
    }
}

/// True for statements whose string literals may carry account or replication credentials.
fn is_account_statement(sql: &[u8]) -> bool {
    let mut words = Lexer::new(sql)
        .filter(|t| {
            !matches!(
                t.kind,
                TokenKind::Whitespace | TokenKind::Comment | TokenKind::VersionCommentStart
            )
        })
        .take(2)
        .map(|t| t.text(sql));
    let (Some(first), second) = (words.next(), words.next()) else {
        return false;
    };
    let second = second.unwrap_or(b"");
    (eq_kw(first, b"CREATE") || eq_kw(first, b"ALTER") || eq_kw(first, b"DROP"))
        && (eq_kw(second, b"USER") || eq_kw(second, b"SERVER") || eq_kw(second, b"ROLE"))
        || eq_kw(first, b"GRANT")
        || (eq_kw(first, b"SET") && eq_kw(second, b"PASSWORD"))
        || (eq_kw(first, b"CHANGE") && (eq_kw(second, b"MASTER") || eq_kw(second, b"REPLICATION")))
        || (eq_kw(first, b"START") && (eq_kw(second, b"SLAVE") || eq_kw(second, b"REPLICA")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> String {
        String::from_utf8(redact(s.as_bytes()).text).unwrap()
    }

    #[test]
    fn masks_common_forms() {
        assert_eq!(
            r("CREATE USER 'app'@'%' IDENTIFIED BY 's3cret'"),
            "CREATE USER 'app'@'%' IDENTIFIED BY '<redacted>'"
        );
        assert_eq!(
            r("ALTER USER u IDENTIFIED WITH mysql_native_password BY 'x', v IDENTIFIED BY 'y'"),
            "ALTER USER u IDENTIFIED WITH mysql_native_password BY '<redacted>', v IDENTIFIED BY '<redacted>'"
        );
        assert_eq!(
            r("SET PASSWORD FOR 'bob'@'localhost' = PASSWORD('pw')"),
            "SET PASSWORD FOR 'bob'@'localhost' = PASSWORD('<redacted>')"
        );
        assert_eq!(r("SET PASSWORD = 'pw'"), "SET PASSWORD = '<redacted>'");
        assert_eq!(
            r("CHANGE MASTER TO MASTER_HOST='h', MASTER_PASSWORD='pw'"),
            "CHANGE MASTER TO MASTER_HOST='h', MASTER_PASSWORD='<redacted>'"
        );
        assert_eq!(
            r("GRANT ALL ON *.* TO 'u'@'h' IDENTIFIED BY PASSWORD '*ABC'"),
            "GRANT ALL ON *.* TO 'u'@'h' IDENTIFIED BY PASSWORD '<redacted>'"
        );
    }

    #[test]
    fn server_masks_are_noticed() {
        let red = redact(b"CREATE USER 'u'@'h' IDENTIFIED BY <secret>");
        assert!(red.server_masked);
        assert_eq!(red.masked, 0);
    }

    #[test]
    fn leaves_other_strings_alone() {
        assert_eq!(r("SELECT 'password' FROM t"), "SELECT 'password' FROM t");
        assert_eq!(
            r("SELECT id FROM users WHERE password = 'x'"),
            "SELECT id FROM users WHERE password = 'x'"
        );
        assert_eq!(r("SELECT PASSWORD('x')"), "SELECT PASSWORD('<redacted>')");
    }
}
