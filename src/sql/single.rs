//! Is a text exactly one statement for the server that will run it?
//!
//! Both drivers accept several `;`-separated statements in one text (mysql_async always negotiates
//! `CLIENT_MULTI_STATEMENTS` and has no switch to turn it off; PostgreSQL's simple protocol runs every
//! statement of a query string), so a statement that looks like a read can carry a `DROP TABLE` behind
//! it. Every text cutover sends passes [`second_statement`] first (in `db::exec`), and is refused when
//! the server could see a second statement in it.
//!
//! The check follows each server's lexical rules exactly where they are fixed, and is conservative
//! where they depend on what the text alone does not show: MySQL's `NO_BACKSLASH_ESCAPES` and
//! `ANSI_QUOTES`, PostgreSQL's `standard_conforming_strings`, which server version runs a `/*!NNNNN`
//! comment. A `;` followed by anything but whitespace, comments and further `;` under any reading
//! counts. The price is that a rare legitimate text (a stored-program body with `;` sent as one text, a
//! hint in a text that also holds `;`) is refused rather than sent.

/// Whose lexical rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lexicon {
    /// MySQL and MariaDB: `'…'` and `"…"` strings (backslash escapes unless `NO_BACKSLASH_ESCAPES`;
    /// `"…"` an identifier without escapes under `ANSI_QUOTES`), backtick identifiers, `#` and `-- `
    /// line comments ending at a newline, flat `/* */` comments, `/*!…*/` and `/*+…*/` that hold code.
    MySql,
    /// PostgreSQL-protocol servers: `'…'` (backslash escapes only when `standard_conforming_strings`
    /// is off), `E'…'` (always), `"…"` identifiers, `$tag$…$tag$`, `--` line comments ending at a
    /// newline or carriage return, nested `/* */` comments.
    Postgres,
}

/// The byte offset where a second statement may start, if the server could find one in `sql`; `None`
/// for a single statement, with or without trailing `;`, whitespace and comments.
///
/// `escapes` says whether a backslash escapes the next byte in a plain `'…'` string, when the caller
/// knows (MySQL reports `NO_BACKSLASH_ESCAPES` in every OK packet); `None` tries both. Each reading
/// scanned is a consistent interpretation of the whole text, and the server uses one of them, so the
/// union of what they find is what the server could find. Version comments and hints are code on some
/// servers and comments on others, per comment: a text holding one and a `;` anywhere but at its end
/// is refused outright.
pub fn second_statement(sql: &[u8], lexicon: Lexicon, escapes: Option<bool>) -> Option<usize> {
    // Fast path (almost every statement): no `;` or NUL before the trailing run of whitespace and `;`
    // means one statement under any rules.
    let mut trail = sql.len();
    while trail > 0 && matches!(sql[trail - 1], b';' | b' ' | b'\t' | b'\n' | b'\r') {
        trail -= 1;
    }
    memchr::memchr2(b';', 0, &sql[..trail])?;
    let plain: &[bool] = match escapes {
        Some(true) => &[true],
        Some(false) => &[false],
        None => &[true, false],
    };
    let mut readings: Vec<Reading> = Vec::with_capacity(3);
    for &single_escapes in plain {
        match lexicon {
            // ANSI_QUOTES (unknown here) makes "…" an identifier, which never takes escapes.
            Lexicon::MySql if single_escapes => {
                readings.push(Reading {
                    lexicon,
                    single_escapes,
                    double_escapes: true,
                });
                readings.push(Reading {
                    lexicon,
                    single_escapes,
                    double_escapes: false,
                });
            }
            _ => readings.push(Reading {
                lexicon,
                single_escapes,
                double_escapes: false,
            }),
        }
    }
    readings.iter().filter_map(|r| r.scan(sql)).min()
}

/// One consistent reading of the session settings that decide where quotes end.
struct Reading {
    lexicon: Lexicon,
    single_escapes: bool,
    double_escapes: bool,
}

#[inline]
fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

impl Reading {
    fn scan(&self, sql: &[u8]) -> Option<usize> {
        let mysql = self.lexicon == Lexicon::MySql;
        let n = sql.len();
        let mut i = 0;
        // Past a top-level `;`: anything significant from here on is a second statement.
        let mut ended = false;
        while i < n {
            let c = sql[i];
            let next = sql.get(i + 1).copied();
            // Whitespace, comments and `;` are what may follow the end of the statement.
            match c {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => {
                    i += 1;
                    continue;
                }
                b';' => {
                    ended = true;
                    i += 1;
                    continue;
                }
                b'#' if mysql => {
                    i = line_end(sql, i, b'\n', b'\n');
                    continue;
                }
                b'-' if next == Some(b'-') && !mysql => {
                    i = line_end(sql, i, b'\n', b'\r');
                    continue;
                }
                // MySQL wants whitespace or a control character after `--` (`--x` is minus minus x).
                b'-' if next == Some(b'-') && sql.get(i + 2).is_none_or(|b| *b <= b' ') => {
                    i = line_end(sql, i, b'\n', b'\n');
                    continue;
                }
                b'/' if next == Some(b'*') => {
                    let m = sql.get(i + 2).copied();
                    let executable = mysql
                        && (m == Some(b'!')
                            || m == Some(b'+')
                            || (m == Some(b'M') && sql.get(i + 3) == Some(&b'!')));
                    if executable {
                        // Code or comment depending on the server and its version: with a `;`
                        // before the end of the text (the fast path ruled out none), refuse.
                        return Some(i);
                    }
                    i = block_comment_end(sql, i, !mysql);
                    continue;
                }
                _ => {}
            }
            // Something significant. After the end of the statement it starts a second one; a NUL
            // byte ends the text for some servers and not for others, so it counts as one too.
            if ended || c == 0 {
                return Some(i);
            }
            i = match c {
                b'\'' => {
                    let escapes = self.single_escapes || (!mysql && escape_string(sql, i));
                    quoted_end(sql, i + 1, b'\'', escapes)
                }
                b'"' => quoted_end(sql, i + 1, b'"', mysql && self.double_escapes),
                b'`' if mysql => quoted_end(sql, i + 1, b'`', false),
                b'$' if !mysql => match dollar_tag(sql, i) {
                    Some(tag_len) => dollar_end(sql, i, tag_len),
                    None => i + 1,
                },
                // A whole identifier or keyword in one step, so that `a$$` (an identifier on
                // PostgreSQL) never opens a dollar quote.
                b if is_ident_byte(b) => {
                    let mut j = i + 1;
                    while j < n && is_ident_byte(sql[j]) {
                        j += 1;
                    }
                    j
                }
                _ => i + 1,
            };
        }
        None
    }
}

/// Just past the end of a line comment starting at `from`: the first `a` or `b` byte.
fn line_end(sql: &[u8], from: usize, a: u8, b: u8) -> usize {
    memchr::memchr2(a, b, &sql[from..]).map_or(sql.len(), |p| from + p + 1)
}

/// The end of a `/* … */` comment starting at `from` (nested on PostgreSQL); an unclosed comment runs
/// to the end of the text.
fn block_comment_end(sql: &[u8], from: usize, nested: bool) -> usize {
    let mut depth = 0usize;
    let mut i = from;
    while i + 1 < sql.len() {
        if sql[i] == b'/' && sql[i + 1] == b'*' && (nested || depth == 0) {
            depth += 1;
            i += 2;
        } else if sql[i] == b'*' && sql[i + 1] == b'/' {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    sql.len()
}

/// The end of a quoted run whose opening quote is just before `from`: doubled quotes stay inside, and
/// with `escapes` a backslash takes the next byte. An unclosed quote runs to the end of the text.
fn quoted_end(sql: &[u8], from: usize, quote: u8, escapes: bool) -> usize {
    let mut i = from;
    while i < sql.len() {
        let c = sql[i];
        if escapes && c == b'\\' {
            i += 2;
        } else if c == quote {
            if sql.get(i + 1) == Some(&quote) {
                i += 2;
            } else {
                return i + 1;
            }
        } else {
            i += 1;
        }
    }
    sql.len()
}

/// True when the `'` at `quote` opens a PostgreSQL escape string (`E'…'`), where backslashes always
/// escape.
fn escape_string(sql: &[u8], quote: usize) -> bool {
    quote >= 1
        && matches!(sql[quote - 1], b'E' | b'e')
        && (quote == 1 || !is_ident_byte(sql[quote - 2]))
}

/// The length of a dollar-quote delimiter (`$$`, `$tag$`) starting at `at`, as PostgreSQL's scanner
/// reads one: `$`, an optional tag of letters, digits (not first) and `_`, `$`.
fn dollar_tag(sql: &[u8], at: usize) -> Option<usize> {
    let mut j = at + 1;
    if let Some(&b) = sql.get(j)
        && (b.is_ascii_alphabetic() || b == b'_' || b >= 0x80)
    {
        j += 1;
        while let Some(&b) = sql.get(j) {
            if b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80 {
                j += 1;
            } else {
                break;
            }
        }
    }
    (sql.get(j) == Some(&b'$')).then_some(j + 1 - at)
}

/// The end of a dollar-quoted string whose delimiter starts at `at`; unclosed runs to the end.
fn dollar_end(sql: &[u8], at: usize, tag_len: usize) -> usize {
    let tag = &sql[at..at + tag_len];
    let body = at + tag_len;
    memchr::memmem::find(&sql[body..], tag).map_or(sql.len(), |p| body + p + tag_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn second(sql: &str, lexicon: Lexicon) -> Option<&str> {
        second_statement(sql.as_bytes(), lexicon, None).map(|i| &sql[i..])
    }

    #[test]
    fn single_statements_pass() {
        for sql in [
            "SELECT 1",
            "SELECT 1;",
            "SELECT 1 ;  \n ; -- done\n/* end */",
            "SELECT 'a;b', \"c;d\", `e;f` FROM t # ; trailing\n",
            "SELECT 'it''s; fine'",
            "SELECT 1 -- ; DROP TABLE t",
        ] {
            assert_eq!(second(sql, Lexicon::MySql), None, "{sql}");
        }
        for sql in [
            "SELECT 1;",
            "SELECT 'a;b', \"c;d\"",
            "SELECT $$a;b$$, $x$ ; $$ ; $x$",
            "SELECT E'a\\'; b'",
            "SELECT 1 /* a /* ; */ ; */",
            "SELECT 1 --; DROP TABLE t",
        ] {
            assert_eq!(second(sql, Lexicon::Postgres), None, "{sql}");
        }
    }

    #[test]
    fn second_statements_are_found() {
        for (sql, rest) in [
            ("SELECT 1; DROP TABLE victim", "DROP TABLE victim"),
            (
                "SELECT 1; SET GLOBAL max_connections=77;",
                "SET GLOBAL max_connections=77;",
            ),
            ("SELECT 1;/* x */DROP TABLE t", "DROP TABLE t"),
            // Under NO_BACKSLASH_ESCAPES the string ends at the backslash.
            ("SELECT 'a\\'; DROP TABLE t; -- '", "DROP TABLE t; -- '"),
            // Under ANSI_QUOTES "…" is an identifier, without escapes.
            ("SELECT \"a\\\"; DROP TABLE t; -- \"", "DROP TABLE t; -- \""),
            // `--x` is not a comment on MySQL.
            ("SELECT 1 --x\n; DROP TABLE t", "DROP TABLE t"),
            // Version comments and hints may be code: with a `;` about, refused.
            (
                "SELECT 1 /*!50000 ; DROP TABLE t */",
                "/*!50000 ; DROP TABLE t */",
            ),
            (
                "SELECT 1; /*!50000 DROP TABLE t */",
                "/*!50000 DROP TABLE t */",
            ),
            (
                "SELECT /*+ ' */ 1; DROP TABLE t; -- '",
                "/*+ ' */ 1; DROP TABLE t; -- '",
            ),
            // `#` comments end at a newline only.
            (
                "SELECT 1 # \r ' \n ; DROP TABLE t; -- '",
                "DROP TABLE t; -- '",
            ),
            ("SELECT 1\0; DROP TABLE t", "\0; DROP TABLE t"),
            // A `$` is no quote on MySQL.
            ("SELECT $$; DROP TABLE t; $$", "DROP TABLE t; $$"),
        ] {
            assert_eq!(second(sql, Lexicon::MySql), Some(rest), "{sql}");
        }
        for (sql, rest) in [
            ("SELECT 1; DROP TABLE victim", "DROP TABLE victim"),
            // standard_conforming_strings=off makes the backslash an escape; on, the string ends.
            ("SELECT 'a\\'; DROP TABLE t; --'", "DROP TABLE t; --'"),
            // `#` and backticks mean nothing to PostgreSQL.
            ("SELECT 1 # ; DROP TABLE t", "DROP TABLE t"),
            ("SELECT `a;b`", "b`"),
            // A dollar quote ends at its own tag; `a$$` is an identifier, not a quote.
            (
                "SELECT $$'$$; DROP TABLE t; SELECT '$$'",
                "DROP TABLE t; SELECT '$$'",
            ),
            ("SELECT a$$; DROP TABLE t; $$", "DROP TABLE t; $$"),
            // Nested comments: the second `*/` closes.
            (
                "/* /* */ ' */ ; DROP TABLE t; SELECT ' '",
                "DROP TABLE t; SELECT ' '",
            ),
            // An escape string next to a plain one.
            (
                "SELECT E'\\'', 'a\\' ; DROP TABLE x; --'",
                "DROP TABLE x; --'",
            ),
            // Line comments end at a carriage return too.
            ("SELECT 1 --x\r; DROP TABLE t", "DROP TABLE t"),
        ] {
            assert_eq!(second(sql, Lexicon::Postgres), Some(rest), "{sql}");
        }
    }

    #[test]
    fn a_known_escape_mode_narrows_the_readings() {
        let text = b"SELECT 'it\\'s; fine'";
        assert_eq!(second_statement(text, Lexicon::MySql, Some(true)), None);
        assert!(second_statement(text, Lexicon::MySql, Some(false)).is_some());
        assert!(second_statement(text, Lexicon::MySql, None).is_some());
        // Hints and version comments without a `;` before the end are fine.
        for sql in ["SELECT /*+ BKA(t) */ 1;", "/*!40101 SET NAMES utf8 */;"] {
            assert_eq!(second(sql, Lexicon::MySql), None, "{sql}");
        }
    }

    #[test]
    fn unclosed_quotes_and_comments_hide_nothing_after_them() {
        // The server sees an unterminated literal too and rejects the whole text.
        assert_eq!(second("SELECT 'a; DROP TABLE t", Lexicon::MySql), None);
        assert_eq!(
            second("SELECT 1 /* ; DROP TABLE t", Lexicon::Postgres),
            None
        );
    }
}
