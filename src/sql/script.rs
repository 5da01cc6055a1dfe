//! Splits a `.sql` script (mysqldump output included) into statements, the way the `mysql` client
//! does, on the tokens of the one MySQL lexer ([`super::lexer`]): the delimiter ends a statement
//! outside strings, quoted identifiers, comments and hints; `DELIMITER x` lines change it (for
//! stored-program bodies); `/*!40101 … */` version comments are code, so a statement made only of one
//! is kept; a script's last statement needs no terminator.
//!
//! [`ScriptReader`] reads a script of any size as it goes: memory holds the statement under way, not
//! the script. A quote or comment that never closes would make the `mysql` client read the rest of the
//! file into one statement; here that statement is cut at the end of the line where the quote opened,
//! marked [`Unterminated`], and splitting resumes on the next line.

use super::lexer::{Lexer, TokenKind};
use std::io::{self, Read};

/// One statement of a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptStatement {
    /// The text, without its terminator, leading comments and surrounding whitespace (the `mysql`
    /// client strips comments too).
    pub text: String,
    /// The comments before the statement, if any (they often say what it is for).
    pub leading_comment: String,
    /// 1-based line and column where the text starts.
    pub line: usize,
    pub column: usize,
    /// The delimiter in force (`;` unless a DELIMITER command changed it).
    pub delimiter: String,
    /// A quote or comment in it never closed.
    pub unterminated: Option<Unterminated>,
}

/// Where an unclosed quote or comment opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unterminated {
    /// `string`, `quoted identifier` or `comment`.
    pub what: &'static str,
    pub line: usize,
    pub column: usize,
}

/// Why a script could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error(
        "the script is not UTF-8 text (line {line}); convert it (iconv -f latin1 -t utf-8) and run again"
    )]
    NotUtf8 { line: usize },
    #[error(
        "line {line}: one statement is longer than {limit} bytes (MySQL's largest max_allowed_packet); is a quote left open?"
    )]
    TooLong { line: usize, limit: usize },
}

/// The longest statement a server takes (MySQL's max_allowed_packet cannot exceed 1 GiB).
pub const MAX_STATEMENT: usize = 1 << 30;

/// Splits a script held in memory. Never fails: an unclosed quote is marked, not an error.
pub fn split_script(script: &str) -> Vec<ScriptStatement> {
    let mut out = Vec::new();
    let mut reader = ScriptReader::new(script.as_bytes());
    while let Some(Ok(st)) = reader.next() {
        out.push(st);
    }
    out
}

/// Reads statements from a script stream, one at a time.
pub struct ScriptReader<R> {
    input: R,
    /// Bytes read; `buf[pos..]` is not consumed yet and starts the next statement (or command).
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    delimiter: String,
    /// Accept bytes that are not UTF-8 inside string literals (see `with_raw_bytes_in_strings`).
    raw_bytes_in_strings: bool,
    /// Line and column of `buf[0]`.
    line: usize,
    column: usize,
    /// Lexing of `buf` stopped for lack of data at this length: read at least this much more before
    /// trying again, so a long statement is lexed O(log n) times, not once per read.
    want: usize,
    max_statement: usize,
    block: usize,
    failed: bool,
    /// Reading failed part-way (a damaged file): reported once the statements before it are out.
    broken: Option<io::Error>,
    /// Bytes dropped from the front of `buf` so far.
    consumed: usize,
}

const READ_BLOCK: usize = 1 << 20;

/// What one pass over the buffer found.
enum Step {
    /// A statement (or nothing but comments) ends at `end`; the next one starts at `next`.
    Statement {
        end: usize,
        next: usize,
        unterminated: Option<(TokenKind, usize)>,
    },
    /// A `DELIMITER x` line ending at `next`.
    Delimiter {
        delimiter: String,
        next: usize,
    },
    NeedMore,
}

impl<R: Read> ScriptReader<R> {
    pub fn new(input: R) -> ScriptReader<R> {
        ScriptReader {
            input,
            buf: Vec::new(),
            pos: 0,
            eof: false,
            delimiter: ";".into(),
            raw_bytes_in_strings: false,
            line: 1,
            column: 1,
            want: 0,
            max_statement: MAX_STATEMENT,
            block: READ_BLOCK,
            failed: false,
            broken: None,
            consumed: 0,
        }
    }

    /// Dumps hold binary data in string literals (mysqldump writes BIT and, without `--hex-blob`,
    /// BLOB values as raw bytes): with this, bytes that are not UTF-8 inside a string literal are
    /// kept, each as the character `RAW_BYTE_BASE + byte` (see [`raw_bytes`]); outside string
    /// literals they are still an error (a script in another encoding).
    pub fn with_raw_bytes_in_strings(mut self) -> Self {
        self.raw_bytes_in_strings = true;
        self
    }

    /// Bytes read from the input so far (decompressed).
    pub fn bytes_read(&self) -> usize {
        self.buf.len() + self.consumed
    }

    /// A lower statement-size limit (tests).
    pub fn with_max_statement(mut self, limit: usize) -> Self {
        self.max_statement = limit;
        self
    }

    /// Reads in blocks of `bytes` (tests of statements cut across reads).
    pub fn with_block(mut self, bytes: usize) -> Self {
        self.block = bytes.max(1);
        self
    }

    /// The unconsumed bytes.
    fn rest(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    fn fill(&mut self) -> io::Result<()> {
        // Drop what was consumed, but only once it is most of the buffer: moving the rest down after
        // every statement would cost the whole buffer per statement.
        if self.pos > 0 && self.pos * 2 >= self.buf.len() {
            self.consumed += self.pos;
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        let target = self.buf.len().max(self.pos + self.want) + self.block;
        while !self.eof && self.broken.is_none() && self.buf.len() < target {
            let old = self.buf.len();
            self.buf.resize(old + self.block, 0);
            let n = loop {
                match self.input.read(&mut self.buf[old..]) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    r => break r,
                }
            };
            match n {
                Ok(n) => {
                    self.buf.truncate(old + n);
                    if n == 0 {
                        self.eof = true;
                    }
                }
                Err(e) => {
                    // A damaged input (corrupt or truncated gzip): the statements read before the
                    // damage still come out, then this error.
                    self.buf.truncate(old);
                    self.broken = Some(e);
                }
            }
        }
        Ok(())
    }

    /// Moves past `n` bytes, keeping the line and column of the new start.
    fn consume(&mut self, n: usize) {
        let done = &self.buf[self.pos..self.pos + n];
        let newlines = memchr::memchr_iter(b'\n', done).count();
        if newlines > 0 {
            self.line += newlines;
            let last = memchr::memrchr(b'\n', done).unwrap_or(0);
            self.column = n - last;
        } else {
            self.column += n;
        }
        self.pos += n;
        self.want = 0;
    }

    /// Line and column of byte `at` of the buffer.
    fn position(&self, at: usize) -> (usize, usize) {
        let before = &self.rest()[..at];
        match memchr::memrchr(b'\n', before) {
            Some(nl) => (
                self.line + memchr::memchr_iter(b'\n', before).count(),
                at - nl,
            ),
            None => (self.line, self.column + at),
        }
    }

    fn next_step(&self) -> Step {
        let b = self.rest();
        let delim = self.delimiter.as_bytes();
        let mut only_blank = true;
        let mut line_start = self.column == 1;
        for tok in Lexer::new(b) {
            let text = tok.text(b);
            match tok.kind {
                TokenKind::Whitespace => {
                    if memchr::memchr(b'\n', text).is_some() {
                        line_start = true;
                    }
                    // A delimiter made of spaces is not a thing; nothing to look for here.
                    continue;
                }
                TokenKind::Comment => {
                    // A line comment stops before its newline; the whitespace after it starts a line.
                    continue;
                }
                TokenKind::Unterminated => {
                    if !self.eof {
                        return Step::NeedMore;
                    }
                    let line_end = memchr::memchr(b'\n', &b[tok.start..])
                        .map_or(b.len(), |p| tok.start + p + 1);
                    return Step::Statement {
                        end: line_end,
                        next: line_end,
                        unterminated: Some((kind_of_unclosed(b, tok.start), tok.start)),
                    };
                }
                TokenKind::Word
                    if only_blank && line_start && text.eq_ignore_ascii_case(b"delimiter") =>
                {
                    let after = tok.end;
                    if matches!(b.get(after), Some(b' ' | b'\t')) {
                        let Some(nl) = memchr::memchr(b'\n', &b[after..]) else {
                            if !self.eof {
                                return Step::NeedMore;
                            }
                            let d = String::from_utf8_lossy(&b[after..]).trim().to_string();
                            return Step::Delimiter {
                                delimiter: d,
                                next: b.len(),
                            };
                        };
                        let d = String::from_utf8_lossy(&b[after..after + nl])
                            .trim()
                            .to_string();
                        return Step::Delimiter {
                            delimiter: d,
                            next: after + nl + 1,
                        };
                    }
                }
                _ => {}
            }
            line_start = false;
            // Strings, quoted identifiers and hints are opaque; the delimiter may start anywhere
            // else, even inside a word (`END$$`), as in the mysql client.
            let opaque = matches!(
                tok.kind,
                TokenKind::String
                    | TokenKind::NationalString
                    | TokenKind::HexString
                    | TokenKind::BitString
                    | TokenKind::QuotedIdent
                    | TokenKind::Hint
            ) || (tok.kind == TokenKind::Variable
                && text.iter().any(|c| b"'\"`".contains(c)));
            if !opaque {
                for p in tok.start..tok.end {
                    if b[p..].starts_with(delim) {
                        return Step::Statement {
                            end: p,
                            next: p + delim.len(),
                            unterminated: None,
                        };
                    }
                }
            }
            only_blank = false;
        }
        if !self.eof {
            // The last token may be cut at the end of the buffer.
            return Step::NeedMore;
        }
        Step::Statement {
            end: b.len(),
            next: b.len(),
            unterminated: None,
        }
    }

    /// The statement in `buf[..end]`, if it holds more than comments.
    fn statement(
        &self,
        end: usize,
        unterminated: Option<(TokenKind, usize)>,
    ) -> Result<Option<ScriptStatement>, ScriptError> {
        let raw = &self.rest()[..end];
        // Skip leading whitespace and ordinary comments; version comments and hints are code.
        let Some(code_at) = Lexer::new(raw)
            .find(|t| !matches!(t.kind, TokenKind::Whitespace | TokenKind::Comment))
            .map(|t| t.start)
        else {
            return Ok(None);
        };
        let (line, column) = self.position(code_at);
        let decoded;
        let text = match std::str::from_utf8(&raw[code_at..]) {
            Ok(t) => t,
            Err(_) if self.raw_bytes_in_strings => {
                decoded = escape_raw_bytes(&raw[code_at..]).ok_or(ScriptError::NotUtf8 { line })?;
                decoded.as_str()
            }
            Err(_) => return Err(ScriptError::NotUtf8 { line }),
        }
        .trim_end();
        let leading = String::from_utf8_lossy(&raw[..code_at]);
        let leading_comment = leading
            .lines()
            .map(|l| {
                l.trim()
                    .trim_start_matches("--")
                    .trim_start_matches('#')
                    .trim()
            })
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let unterminated = unterminated.map(|(what, at)| {
            let (line, column) = self.position(at);
            Unterminated {
                what: match what {
                    TokenKind::QuotedIdent => "quoted identifier",
                    TokenKind::Comment => "comment",
                    _ => "string",
                },
                line,
                column,
            }
        });
        Ok(Some(ScriptStatement {
            text: text.to_string(),
            leading_comment,
            line,
            column,
            delimiter: self.delimiter.clone(),
            unterminated,
        }))
    }
}

/// What an unterminated token opened: a backtick identifier, a comment or a string.
fn kind_of_unclosed(b: &[u8], at: usize) -> TokenKind {
    match (b.get(at), b.get(at + 1)) {
        (Some(b'`'), _) => TokenKind::QuotedIdent,
        (Some(b'/'), Some(b'*')) => TokenKind::Comment,
        _ => TokenKind::String,
    }
}

impl<R: Read> Iterator for ScriptReader<R> {
    type Item = Result<ScriptStatement, ScriptError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            if self.rest().is_empty() {
                if let Err(e) = self.fill() {
                    self.failed = true;
                    return Some(Err(e.into()));
                }
                if self.rest().is_empty() {
                    return self.broken.take().map(|e| {
                        self.failed = true;
                        Err(e.into())
                    });
                }
            }
            match self.next_step() {
                Step::NeedMore => {
                    if self.rest().len() > self.max_statement {
                        self.failed = true;
                        return Some(Err(ScriptError::TooLong {
                            line: self.line,
                            limit: self.max_statement,
                        }));
                    }
                    if let Some(e) = self.broken.take() {
                        self.failed = true;
                        return Some(Err(e.into()));
                    }
                    self.want = self.rest().len() * 2;
                    if let Err(e) = self.fill() {
                        self.failed = true;
                        return Some(Err(e.into()));
                    }
                }
                Step::Delimiter { delimiter, next } => {
                    if !delimiter.is_empty() {
                        self.delimiter = delimiter;
                    }
                    self.consume(next);
                }
                Step::Statement {
                    end,
                    next,
                    unterminated,
                } => {
                    let st = self.statement(end, unterminated);
                    self.consume(next);
                    match st {
                        Ok(Some(st)) => return Some(Ok(st)),
                        Ok(None) => {
                            if self.eof && self.rest().is_empty() {
                                return None;
                            }
                        }
                        Err(e) => return Some(Err(e)),
                    }
                }
            }
        }
    }
}

/// Where a byte that is not UTF-8 is kept in a statement's text (`ScriptReader::
/// with_raw_bytes_in_strings`): U+10FF00 + byte, in a private-use plane no SQL text uses.
pub const RAW_BYTE_BASE: u32 = 0x10FF00;

/// The statement as text with every byte that is not UTF-8 kept as `RAW_BYTE_BASE + byte`, when
/// all such bytes are inside string literals; None otherwise.
fn escape_raw_bytes(raw: &[u8]) -> Option<String> {
    let strings: Vec<(usize, usize)> = Lexer::new(raw)
        .filter(|t| matches!(t.kind, TokenKind::String | TokenKind::NationalString))
        .map(|t| (t.start, t.end))
        .collect();
    let inside = |at: usize| strings.iter().any(|&(a, b)| a <= at && at < b);
    let mut out = String::with_capacity(raw.len() + 16);
    let mut at = 0;
    while at < raw.len() {
        match std::str::from_utf8(&raw[at..]) {
            Ok(t) => {
                out.push_str(t);
                break;
            }
            Err(e) => {
                let good = e.valid_up_to();
                out.push_str(std::str::from_utf8(&raw[at..at + good]).ok()?);
                let bad = e.error_len().unwrap_or(raw.len() - at - good);
                for i in 0..bad {
                    let pos = at + good + i;
                    if !inside(pos) {
                        return None;
                    }
                    out.push(char::from_u32(RAW_BYTE_BASE + u32::from(raw[pos]))?);
                }
                at += good + bad;
            }
        }
    }
    Some(out)
}

/// The bytes a literal's text stands for, with the characters `escape_raw_bytes` made turned back
/// into their bytes; `had_raw` says whether there were any.
pub fn raw_bytes(text: &[u8]) -> (std::borrow::Cow<'_, [u8]>, bool) {
    let Ok(s) = std::str::from_utf8(text) else {
        return (std::borrow::Cow::Borrowed(text), false);
    };
    let raw = |c: char| (RAW_BYTE_BASE + 0x80..=RAW_BYTE_BASE + 0xFF).contains(&(c as u32));
    if !s.chars().any(raw) {
        return (std::borrow::Cow::Borrowed(text), false);
    }
    let mut out = Vec::with_capacity(text.len());
    for c in s.chars() {
        if raw(c) {
            out.push((c as u32 - RAW_BYTE_BASE) as u8);
        } else {
            let mut b = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
        }
    }
    (std::borrow::Cow::Owned(out), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_bytes_are_kept_inside_string_literals_only_when_asked() {
        let input: &[u8] =
            b"INSERT INTO t VALUES (1,'\x80\x01',_binary '\xff');\nSELECT caf\xe9;\n";
        let plain: Vec<_> = ScriptReader::new(input).collect();
        assert!(matches!(plain[0], Err(ScriptError::NotUtf8 { line: 1 })));
        let raw: Vec<_> = ScriptReader::new(input)
            .with_raw_bytes_in_strings()
            .collect();
        let first = raw[0].as_ref().expect("raw bytes in strings are kept");
        let (bytes, had) = raw_bytes(first.text.as_bytes());
        assert!(had);
        assert_eq!(
            &bytes[..],
            &b"INSERT INTO t VALUES (1,'\x80\x01',_binary '\xff')"[..]
        );
        // Outside a string literal the script is in another encoding: still an error.
        assert!(matches!(raw[1], Err(ScriptError::NotUtf8 { line: 2 })));
        assert!(!raw_bytes(b"plain").1);
    }

    fn texts(s: &str) -> Vec<String> {
        split_script(s).into_iter().map(|s| s.text).collect()
    }

    #[test]
    fn semicolons_in_strings_and_comments() {
        let s = "SELECT 'a;b'; -- c;\nSELECT \"x;\" /* ; */ FROM t; # z;\nSELECT `a;b` FROM t";
        assert_eq!(
            texts(s),
            vec![
                "SELECT 'a;b'",
                "SELECT \"x;\" /* ; */ FROM t",
                "SELECT `a;b` FROM t"
            ]
        );
        assert_eq!(split_script(s)[1].leading_comment, "c;");
    }

    #[test]
    fn mysqldump_version_comments() {
        let s = "/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n/*!40101 SET NAMES utf8mb4 */;\n--\n-- Table structure\n--\n\nDROP TABLE IF EXISTS `t`;\n";
        assert_eq!(
            texts(s),
            vec![
                "/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */",
                "/*!40101 SET NAMES utf8mb4 */",
                "DROP TABLE IF EXISTS `t`"
            ]
        );
        assert_eq!(split_script(s)[2].leading_comment, "Table structure");
    }

    #[test]
    fn delimiter_blocks() {
        let s = "DELIMITER ;;\nCREATE TRIGGER t BEFORE INSERT ON x FOR EACH ROW BEGIN\n  SET NEW.a = 1;\n  SET NEW.b = 2;\nEND ;;\nDELIMITER ;\nSELECT 1;\n";
        let st = split_script(s);
        assert_eq!(st.len(), 2);
        assert!(st[0].text.starts_with("CREATE TRIGGER") && st[0].text.ends_with("END"));
        assert_eq!(st[0].delimiter, ";;");
        assert_eq!(
            (st[1].text.as_str(), st[1].line, st[1].delimiter.as_str()),
            ("SELECT 1", 7, ";")
        );
        let s2 = "delimiter //\nCREATE PROCEDURE p() BEGIN SELECT 1; END//\ndelimiter ;\n";
        assert_eq!(texts(s2), vec!["CREATE PROCEDURE p() BEGIN SELECT 1; END"]);
        let s3 =
            "DELIMITER $$\nCREATE FUNCTION f() RETURNS INT BEGIN RETURN 1; END$$\nDELIMITER ;\n";
        assert_eq!(
            texts(s3),
            vec!["CREATE FUNCTION f() RETURNS INT BEGIN RETURN 1; END"]
        );
    }

    #[test]
    fn positions_are_reported() {
        let st = split_script("\n\n  SELECT 1;\nSELECT\n 2;");
        assert_eq!((st[0].line, st[0].column), (3, 3));
        assert_eq!((st[1].line, st[1].column), (4, 1));
        let st = split_script("SELECT 1; SELECT 2;\n");
        assert_eq!((st[1].line, st[1].column), (1, 11));
    }

    #[test]
    fn an_unclosed_quote_is_marked_and_splitting_resumes() {
        let s = "SELECT 1;\nINSERT INTO t VALUES ('it\\'s fine'), ('oops);\nSELECT 2;\nSELECT `x;\nSELECT 3;\n";
        let st = split_script(s);
        let got: Vec<(&str, Option<(usize, usize)>)> = st
            .iter()
            .map(|s| {
                (
                    s.text.as_str(),
                    s.unterminated.as_ref().map(|u| (u.line, u.column)),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("SELECT 1", None),
                (
                    "INSERT INTO t VALUES ('it\\'s fine'), ('oops);",
                    Some((2, 39))
                ),
                ("SELECT 2", None),
                ("SELECT `x;", Some((4, 8))),
                ("SELECT 3", None),
            ]
        );
        assert_eq!(
            st[3].unterminated.as_ref().unwrap().what,
            "quoted identifier"
        );
    }

    /// Read in tiny pieces, the script splits exactly as it does in memory.
    #[test]
    fn streaming_matches_in_memory() {
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(out.len()).min(7);
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let s = "/*!40101 SET NAMES utf8 */;\n-- x\nINSERT INTO t VALUES ('a;b'),('c');\nDELIMITER //\nCREATE PROCEDURE p() BEGIN SELECT 1; END//\nDELIMITER ;\nSELECT 'unclosed;\nSELECT 9";
        for block in [1, 3, 5, 64] {
            let streamed: Vec<ScriptStatement> = ScriptReader::new(Trickle(s.as_bytes()))
                .with_block(block)
                .map(|r| r.unwrap())
                .collect();
            assert_eq!(streamed, split_script(s), "block {block}");
            assert_eq!(streamed.len(), 5);
        }
    }

    #[test]
    fn an_overlong_statement_is_an_error() {
        let s = format!("SELECT '{}", "x".repeat(5000));
        let r: Vec<_> = ScriptReader::new(s.as_bytes())
            .with_max_statement(1000)
            .with_block(100)
            .collect();
        assert!(matches!(r.last(), Some(Err(ScriptError::TooLong { .. }))));
    }
}
