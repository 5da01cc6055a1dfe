//! Statement fingerprints: the statement with its literal values abstracted away, so that every
//! execution of the same query shape groups together.
//!
//! Rules (on [`Lexer`] tokens, never on raw text):
//! - literals (strings, numbers, `0x1F`, `x'..'`, `b'..'`, `N'..'`) and `?` placeholders become `?`;
//!   a sign directly before a number in operand position folds into it (`id = -5` → `id = ?`);
//!   a charset introducer before a string goes with it (`_utf8mb4'x'` → `?`);
//! - `IN (?, ?, ?)` becomes `in (?+)`; in `VALUES (…), (…)` a row identical to the first after
//!   normalisation is dropped, so single-row and multi-row inserts share a fingerprint;
//! - whitespace and comments fold into single spaces with a canonical spacing; optimizer hints
//!   `/*+ … */` and version comments `/*!… */` are kept (the latter normalised inside);
//! - keywords (sqlparser's list, and MySQL's that it lacks: `INFILE`, `LOW_PRIORITY`, …) and built-in
//!   function names in calls (`NOW()`) are lower-cased; `ASC` after an operand is dropped (the default);
//!   identifiers are kept exactly as written, digits and quotes included, so `sbtest1` and `sbtest2`
//!   stay apart;
//! - a trailing `;` is dropped.
//!
//! The id is the 64-bit xxh3 of the fingerprint text, printed as 16 hex digits; it depends only on
//! the text, so it is stable across runs, machines and versions as long as these rules are.

use super::keywords::{self, classify, eq_kw};
use super::lexer::{Lexer, Token, TokenKind};

/// What the fingerprinter noticed about a statement besides its fingerprint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FingerprintInfo {
    /// A string, quoted identifier or comment ran to the end of the text.
    pub unterminated: bool,
    /// The statement names a password (`IDENTIFIED`, `PASSWORD`, `MASTER_PASSWORD`, …): its text must be
    /// redacted before it is shown (see `sql::redact`).
    pub mentions_password: bool,
}

/// The fingerprint's stable 64-bit id.
#[inline]
pub fn fingerprint_id(fingerprint: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(fingerprint)
}

/// Formats an id the way reports print it.
pub fn format_id(id: u64) -> String {
    format!("{id:016X}")
}

/// Fingerprints `sql` into a new string (lossy for non-UTF-8 identifiers).
pub fn fingerprint(sql: &[u8]) -> String {
    let mut out = Vec::new();
    Fingerprinter::default().run(sql, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// What was emitted last, for spacing and sign folding.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Prev {
    Start,
    /// An identifier, a non-clause keyword, a literal, a variable or `)`: something a binary
    /// operator can follow.
    Operand,
    /// A name that a `(` directly follows in a function call or column list.
    Callable,
    /// A clause keyword (`in`, `values`, `where`, …): a `(` after it is spaced, a sign after it is unary.
    Clause,
    Open,
    Dot,
    /// Any other operator or punctuation, or the start of a version comment.
    Operator,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FrameKind {
    InList,
    ValuesRow,
    Other,
}

struct Frame {
    kind: FrameKind,
    /// Output position of the `(`.
    open_at: usize,
    /// For `InList`: nothing but literals and commas so far.
    only_literals: bool,
}

/// State of a `VALUES` row list at one paren depth.
struct ValuesList {
    depth: usize,
    first_row: Option<(usize, usize)>,
    /// Output length before the `,` that preceded the row being written.
    comma_at: Option<usize>,
}

/// Reusable fingerprinting state (keeps its buffers across calls).
#[derive(Default)]
pub struct Fingerprinter {
    frames: Vec<Frame>,
    values: Option<ValuesList>,
}

/// `IDENTIFIED`, `PASSWORD`, `MASTER_PASSWORD`, …: words after which a password may follow.
fn mentions_password(word: &[u8], class: u8) -> bool {
    class & keywords::IDENTIFIED != 0
        || (word.len() >= 8
            && memchr::memchr2(b'P', b'p', word).is_some()
            && word.windows(8).any(|w| eq_kw(w, b"PASSWORD")))
}

impl Fingerprinter {
    /// Writes the fingerprint of `sql` into `out` (cleared first).
    pub fn run(&mut self, sql: &[u8], out: &mut Vec<u8>) -> FingerprintInfo {
        out.clear();
        self.frames.clear();
        self.values = None;
        let mut info = FingerprintInfo::default();
        let mut prev = Prev::Start;
        let mut toks = Lexer::new(sql)
            .filter(|t| !matches!(t.kind, TokenKind::Whitespace | TokenKind::Comment))
            .peekable();

        while let Some(tok) = toks.next() {
            let text = tok.text(sql);
            // Does this token end a VALUES row list?
            if let Some(v) = &self.values
                && self.frames.len() == v.depth
            {
                let continues = matches!(text, b"," | b"(")
                    || (tok.kind == TokenKind::Word
                        && classify(text) & (keywords::VALUES | keywords::ROW) != 0);
                if !continues {
                    self.values = None;
                }
            }
            match tok.kind {
                TokenKind::Word => {
                    // A charset introducer glued to a string literal goes with the literal.
                    if text[0] == b'_'
                        && let Some(next) = toks.peek()
                        && next.start == tok.end
                        && next.kind == TokenKind::String
                    {
                        continue;
                    }
                    let class = classify(text);
                    // `x ASC` is `x`: ASC is every ordering's default (and reserved, so never a
                    // bare name), so `ORDER BY x` and `ORDER BY x ASC` are one shape.
                    if matches!(prev, Prev::Operand | Prev::Callable) && eq_kw(text, b"ASC") {
                        continue;
                    }
                    if mentions_password(text, class) {
                        info.mentions_password = true;
                    }
                    let keyword = class & (keywords::KEYWORD | keywords::MYSQL_KEYWORD) != 0
                        || (class & keywords::FUNCTION != 0
                            && toks.peek().is_some_and(|n| {
                                n.start == tok.end
                                    && n.kind == TokenKind::Punct
                                    && sql[n.start] == b'('
                            }));
                    self.space(out, prev, Prev::Operand);
                    if keyword {
                        out.extend(text.iter().map(u8::to_ascii_lowercase));
                    } else {
                        out.extend_from_slice(text);
                    }
                    self.note_token_in_frame(false);
                    prev = if class & keywords::CLAUSE != 0 {
                        if class & keywords::VALUES != 0 {
                            self.values = Some(ValuesList {
                                depth: self.frames.len(),
                                first_row: None,
                                comma_at: None,
                            });
                        }
                        Prev::Clause
                    } else {
                        Prev::Callable
                    };
                }
                TokenKind::QuotedIdent => {
                    self.space(out, prev, Prev::Operand);
                    out.extend_from_slice(text);
                    self.note_token_in_frame(false);
                    prev = Prev::Callable;
                }
                TokenKind::Variable => {
                    self.space(out, prev, Prev::Operand);
                    out.extend_from_slice(text);
                    self.note_token_in_frame(false);
                    prev = Prev::Operand;
                }
                k if k.is_literal() || k == TokenKind::Placeholder => {
                    self.literal(out, prev);
                    prev = Prev::Operand;
                }
                TokenKind::Unterminated => {
                    info.unterminated = true;
                    self.literal(out, prev);
                    prev = Prev::Operand;
                }
                TokenKind::VersionCommentStart => {
                    self.space(out, prev, Prev::Operator);
                    out.extend_from_slice(text);
                    prev = Prev::Operator;
                }
                TokenKind::VersionCommentEnd => {
                    out.extend_from_slice(b" */");
                    prev = Prev::Operand;
                }
                TokenKind::Hint => {
                    self.space(out, prev, Prev::Operator);
                    push_collapsed(out, text);
                    prev = Prev::Operator;
                }
                _ => {
                    // Punctuation and operators.
                    match text {
                        b"(" => {
                            let kind = if prev == Prev::Clause && ends_with_kw(out, b"in") {
                                FrameKind::InList
                            } else if self
                                .values
                                .as_ref()
                                .is_some_and(|v| v.depth == self.frames.len())
                            {
                                FrameKind::ValuesRow
                            } else {
                                FrameKind::Other
                            };
                            self.note_token_in_frame(false);
                            if !(prev == Prev::Callable
                                || prev == Prev::Start
                                || prev == Prev::Open
                                || prev == Prev::Dot)
                            {
                                out.push(b' ');
                            }
                            self.frames.push(Frame {
                                kind,
                                open_at: out.len(),
                                only_literals: true,
                            });
                            out.push(b'(');
                            prev = Prev::Open;
                        }
                        b")" => {
                            if let Some(frame) = self.frames.pop() {
                                match frame.kind {
                                    FrameKind::InList
                                        if frame.only_literals && out.len() > frame.open_at + 1 =>
                                    {
                                        out.truncate(frame.open_at + 1);
                                        out.extend_from_slice(b"?+");
                                    }
                                    FrameKind::ValuesRow => {
                                        out.push(b')');
                                        self.close_values_row(out, frame.open_at);
                                        prev = Prev::Operand;
                                        continue;
                                    }
                                    _ => {}
                                }
                            }
                            out.push(b')');
                            prev = Prev::Operand;
                        }
                        b"," => {
                            if let Some(v) = &mut self.values
                                && v.depth == self.frames.len()
                            {
                                v.comma_at = Some(out.len());
                            }
                            out.extend_from_slice(b",");
                            prev = Prev::Operator;
                            // The space after a comma is written by the next token.
                        }
                        b"." => {
                            self.note_token_in_frame(false);
                            out.push(b'.');
                            prev = Prev::Dot;
                        }
                        b";" => {
                            self.frames.clear();
                            self.values = None;
                            out.push(b';');
                            prev = Prev::Operator;
                        }
                        b"-" | b"+"
                            if !matches!(prev, Prev::Operand | Prev::Callable)
                                && toks.peek().is_some_and(is_signed_literal) =>
                        {
                            // Unary sign on a number: part of the literal.
                        }
                        _ => {
                            self.note_token_in_frame(false);
                            self.space(out, prev, Prev::Operator);
                            out.extend_from_slice(text);
                            prev = Prev::Operator;
                        }
                    }
                }
            }
        }
        while matches!(out.last(), Some(b';' | b' ')) {
            out.pop();
        }
        info
    }

    fn literal(&mut self, out: &mut Vec<u8>, prev: Prev) {
        self.space(out, prev, Prev::Operand);
        out.push(b'?');
        self.note_token_in_frame(true);
    }

    /// Records, for an enclosing `IN (` list, whether it still holds only literals.
    #[inline]
    fn note_token_in_frame(&mut self, literal: bool) {
        if !literal && let Some(f) = self.frames.last_mut() {
            f.only_literals = false;
        }
    }

    #[inline]
    fn space(&self, out: &mut Vec<u8>, prev: Prev, _cur: Prev) {
        match prev {
            Prev::Start | Prev::Open | Prev::Dot => {}
            _ => out.push(b' '),
        }
    }

    /// A `VALUES` row just closed at output position `open_at`: drop it if it repeats the first row.
    fn close_values_row(&mut self, out: &mut Vec<u8>, open_at: usize) {
        let Some(v) = &mut self.values else { return };
        match v.first_row {
            None => v.first_row = Some((open_at, out.len())),
            Some((a, b)) => {
                if let Some(comma) = v.comma_at
                    && out[open_at..] == out[a..b]
                {
                    out.truncate(comma);
                }
            }
        }
        v.comma_at = None;
    }
}

fn is_signed_literal(t: &Token) -> bool {
    matches!(
        t.kind,
        TokenKind::Number | TokenKind::HexNumber | TokenKind::BitNumber | TokenKind::Placeholder
    )
}

fn ends_with_kw(out: &[u8], kw: &[u8]) -> bool {
    out.len() >= kw.len()
        && &out[out.len() - kw.len()..] == kw
        && (out.len() == kw.len() || !super::lexer::is_word_byte(out[out.len() - kw.len() - 1]))
}

/// Copies `text` with every run of whitespace turned into one space.
fn push_collapsed(out: &mut Vec<u8>, text: &[u8]) {
    let mut in_space = false;
    for &b in text {
        if b.is_ascii_whitespace() {
            if !in_space {
                out.push(b' ');
                in_space = true;
            }
        } else {
            out.push(b);
            in_space = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(s: &str) -> String {
        fingerprint(s.as_bytes())
    }

    #[test]
    fn mysql_key_words_fold_and_asc_is_the_default() {
        assert_eq!(
            fp("LOAD DATA LOCAL INFILE '/tmp/a' INTO TABLE t"),
            fp("load data local infile '/tmp/b' into table t")
        );
        assert_eq!(
            fp("load data local INFILE 'x' into table t"),
            "load data local infile ? into table t"
        );
        assert_eq!(
            fp("SELECT a FROM t ORDER BY x ASC, y DESC"),
            "select a from t order by x, y desc"
        );
        assert_eq!(
            fp("SELECT a FROM t ORDER BY x"),
            fp("select a from t order by x asc")
        );
        assert_eq!(
            fp("SELECT a FROM t ORDER BY f(x) ASC LIMIT 1"),
            "select a from t order by f(x) limit ?"
        );
        // Names keep their case; a quoted `asc` is a name.
        assert_eq!(fp("SELECT `asc` FROM T1"), "select `asc` from T1");
    }

    #[test]
    fn literals_become_placeholders() {
        assert_eq!(
            fp("SELECT * FROM users_2009 WHERE id IN (1,2,3) AND name='O''Brien' LIMIT 10, 20"),
            "select * from users_2009 where id in (?+) and name = ? limit ?, ?"
        );
        assert_eq!(
            fp("select x from t where y = 0x1F and z is null"),
            "select x from t where y = ? and z is null"
        );
        assert_eq!(
            fp("SELECT b'1', X'ff', N'x', _utf8mb4'abc', 1.5e3, -7"),
            "select ?, ?, ?, ?, ?, ?"
        );
    }

    #[test]
    fn identifiers_kept_as_written() {
        assert_eq!(
            fp("SELECT `db1`.`tbl`.c FROM db1.T WHERE md5col='x'"),
            "select `db1`.`tbl`.c from db1.T where md5col = ?"
        );
        assert_ne!(
            fp("SELECT c FROM sbtest1 WHERE id=1"),
            fp("SELECT c FROM sbtest2 WHERE id=1")
        );
    }

    #[test]
    fn whitespace_comments_and_case_fold() {
        let a = fp("SELECT  c\n FROM sbtest1 /* x */ WHERE id = 5 -- tail\n");
        let b = fp("select c from sbtest1 where id=42");
        assert_eq!(a, b);
        assert_eq!(a, "select c from sbtest1 where id = ?");
        assert_eq!(fp("SELECT COUNT(*) FROM t"), "select count(*) from t");
    }

    #[test]
    fn hints_and_version_comments_kept() {
        assert_eq!(
            fp("SELECT /*+ MAX_EXECUTION_TIME(1000)   */ a FROM t"),
            "select /*+ MAX_EXECUTION_TIME(1000) */ a from t"
        );
        assert_eq!(
            fp("/*!40101 SET NAMES utf8 */"),
            "/*!40101 set names utf8 */"
        );
        assert_eq!(
            fp("SELECT /*!40001 SQL_NO_CACHE */ * FROM t"),
            "select /*!40001 sql_no_cache */ * from t"
        );
    }

    #[test]
    fn values_rows_collapse() {
        let one = fp("INSERT INTO t (a, b) VALUES (1, 'x')");
        let many = fp("INSERT INTO t (a,b) VALUES (1,'x'),(2,'y'), (3, 'z')");
        assert_eq!(one, many);
        assert_eq!(one, "insert into t(a, b) values (?, ?)");
        assert_eq!(
            fp("INSERT INTO t VALUES (1, NOW()), (2, 3)"),
            "insert into t values (?, now()), (?, ?)"
        );
        assert_eq!(
            fp("INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = VALUES(a), b = 2"),
            "insert into t values (?) on duplicate key update a = values (a), b = ?"
        );
        assert_eq!(
            fp("INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)"),
            fp("INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, 5, 'a', 'b')")
        );
    }

    #[test]
    fn in_lists_collapse_only_literals() {
        assert_eq!(
            fp("SELECT 1 FROM t WHERE a IN (1)"),
            fp("SELECT 1 FROM t WHERE a in (1, 2, 3)")
        );
        assert_eq!(
            fp("SELECT 1 FROM t WHERE a IN (SELECT b FROM u)"),
            "select ? from t where a in (select b from u)"
        );
        assert_eq!(
            fp("SELECT 1 FROM t WHERE a NOT IN (?, ?)"),
            "select ? from t where a not in (?+)"
        );
    }

    #[test]
    fn binary_minus_kept() {
        assert_eq!(
            fp("SELECT a - 1, a-1, (-1), 5 - -2 FROM t"),
            "select a - ?, a - ?, (?), ? - ? from t"
        );
        assert_eq!(
            fp("UPDATE sbtest1 SET k=k+1 WHERE id=5"),
            "update sbtest1 set k = k + ? where id = ?"
        );
    }

    #[test]
    fn unterminated_still_fingerprints() {
        let mut out = Vec::new();
        let info = Fingerprinter::default().run(b"SELECT 'abc FROM t", &mut out);
        assert!(info.unterminated);
        assert_eq!(out, b"select ?");
    }

    #[test]
    fn password_statements_flagged() {
        let mut out = Vec::new();
        let info =
            Fingerprinter::default().run(b"CREATE USER 'u'@'h' IDENTIFIED BY 'pw'", &mut out);
        assert!(info.mentions_password);
        let info = Fingerprinter::default().run(b"SELECT 1", &mut out);
        assert!(!info.mentions_password);
    }

    #[test]
    fn trailing_semicolon_dropped() {
        assert_eq!(fp("SELECT 1;"), "select ?");
        assert_eq!(fp("BEGIN"), "begin");
    }

    #[test]
    fn ids_are_stable() {
        // Pinned: changing the rules changes ids, which users store in review tables.
        assert_eq!(
            format_id(fingerprint_id(b"select c from sbtest1 where id = ?")),
            format_id(fingerprint_id(
                fp("SELECT c FROM sbtest1 WHERE id=1").as_bytes()
            ))
        );
        assert_eq!(format_id(fingerprint_id(b"")), "2D06800538D394C2");
    }
}
