//! A small byte-level MySQL lexer for the hot paths (fingerprints over gigabytes of logs).
//!
//! sqlparser's tokenizer allocates a `String` per token and manages about 21 MB/s; this lexer only
//! returns byte ranges and never allocates. It follows MySQL's default lexical rules (no
//! `ANSI_QUOTES`, no `NO_BACKSLASH_ESCAPES`): `'…'` and `"…"` are strings with backslash escapes and
//! doubled quotes, backticks quote identifiers, `#` and `-- ` start line comments, `/*! … */` and
//! `/*M! … */` hold code that is lexed as ordinary tokens, and `/*+ … */` is an optimizer hint.
//! It never fails: input it cannot make sense of becomes `Punct` or `Unterminated` tokens.
//! `tests/lexer_agreement.rs` checks it against sqlparser's tokenizer on what is a literal.

/// The kinds of token the fingerprinter and the statement splitter need to tell apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// An unquoted identifier or keyword (may start with digits, as MySQL allows: `1abc`).
    Word,
    /// A backtick-quoted identifier.
    QuotedIdent,
    /// `'…'` or `"…"`.
    String,
    /// `N'…'`.
    NationalString,
    /// `X'…'`.
    HexString,
    /// `B'…'`.
    BitString,
    /// `123`, `1.5`, `.5`, `1e-3`.
    Number,
    /// `0x1F`.
    HexNumber,
    /// `0b101`.
    BitNumber,
    /// `?`.
    Placeholder,
    /// `@var`, `@'var'`, `@@session.sql_mode`.
    Variable,
    /// `/* … */`, `-- …`, `# …`.
    Comment,
    /// `/*!40101` or `/*M!100100`: the start of a version comment; its content follows as tokens.
    VersionCommentStart,
    /// The `*/` closing a version comment.
    VersionCommentEnd,
    /// `/*+ … */`.
    Hint,
    Whitespace,
    /// Operators and punctuation, one to three bytes.
    Punct,
    /// A string, quoted identifier or comment that runs to the end of the input.
    Unterminated,
}

impl TokenKind {
    /// Literal values: what a fingerprint replaces with `?`.
    pub fn is_literal(self) -> bool {
        matches!(
            self,
            TokenKind::String
                | TokenKind::NationalString
                | TokenKind::HexString
                | TokenKind::BitString
                | TokenKind::Number
                | TokenKind::HexNumber
                | TokenKind::BitNumber
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn text<'a>(&self, src: &'a [u8]) -> &'a [u8] {
        &src[self.start..self.end]
    }
}

const WORD: u8 = 1; // may continue an identifier
const DIGIT: u8 = 2;
const SPACE: u8 = 4;

/// Byte classes, built at compile time. Bytes ≥ 0x80 are identifier bytes (UTF-8 identifiers).
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        if b.is_ascii_alphabetic() || b == b'_' || b == b'$' || b >= 0x80 {
            t[i] = WORD;
        }
        if b.is_ascii_digit() {
            t[i] = WORD | DIGIT;
        }
        if b == b' ' || b == b'\t' || b == b'\n' || b == b'\r' || b == 0x0b || b == 0x0c {
            t[i] = SPACE;
        }
        i += 1;
    }
    t
};

#[inline]
pub fn is_word_byte(b: u8) -> bool {
    CLASS[b as usize] & WORD != 0
}

#[inline]
fn is_digit(b: u8) -> bool {
    CLASS[b as usize] & DIGIT != 0
}

#[inline]
fn is_space(b: u8) -> bool {
    CLASS[b as usize] & SPACE != 0
}

/// Iterates over the tokens of one SQL text.
pub struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    /// Inside `/*! … */`: the next `*/` closes it.
    in_version_comment: bool,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a [u8]) -> Self {
        Lexer {
            src,
            pos: 0,
            in_version_comment: false,
        }
    }

    #[inline]
    fn peek(&self, ahead: usize) -> u8 {
        *self.src.get(self.pos + ahead).unwrap_or(&0)
    }

    #[inline]
    fn has(&self, ahead: usize) -> bool {
        self.pos + ahead < self.src.len()
    }

    /// Skips a quoted run starting at the opening quote; returns false if it never closes.
    /// Backslash escapes apply to strings (`'`, `"`), not to backticks; a doubled quote is a quote.
    fn skip_quoted(&mut self, quote: u8) -> bool {
        let backslash = quote != b'`';
        let mut i = self.pos + 1;
        let src = self.src;
        loop {
            let rest = &src[i..];
            let found = if backslash {
                memchr::memchr2(quote, b'\\', rest)
            } else {
                memchr::memchr(quote, rest)
            };
            match found {
                None => {
                    self.pos = src.len();
                    return false;
                }
                Some(off) => {
                    let at = i + off;
                    if src[at] == b'\\' {
                        i = at + 2;
                        if i > src.len() {
                            self.pos = src.len();
                            return false;
                        }
                    } else if src.get(at + 1) == Some(&quote) {
                        i = at + 2;
                    } else {
                        self.pos = at + 1;
                        return true;
                    }
                }
            }
        }
    }

    fn skip_word(&mut self) {
        while self.pos < self.src.len() && is_word_byte(self.src[self.pos]) {
            self.pos += 1;
        }
    }

    fn skip_digits(&mut self) {
        while self.pos < self.src.len() && is_digit(self.src[self.pos]) {
            self.pos += 1;
        }
    }

    /// Lexes a token starting with a digit or `.digit`: a number, or an identifier such as `1abc`.
    fn number_or_word(&mut self) -> TokenKind {
        let start = self.pos;
        if self.peek(0) == b'0' && matches!(self.peek(1), b'x' | b'b') {
            let hex = self.peek(1) == b'x';
            let mut j = self.pos + 2;
            while j < self.src.len()
                && (if hex {
                    self.src[j].is_ascii_hexdigit()
                } else {
                    matches!(self.src[j], b'0' | b'1')
                })
            {
                j += 1;
            }
            let has_digits = j > self.pos + 2;
            let clean_end = j >= self.src.len() || !is_word_byte(self.src[j]);
            if has_digits && clean_end {
                self.pos = j;
                return if hex {
                    TokenKind::HexNumber
                } else {
                    TokenKind::BitNumber
                };
            }
            // `0xZZ`, `0b2`, `0x`: MySQL reads these as identifiers.
            self.skip_word();
            return TokenKind::Word;
        }
        self.skip_digits();
        let mut fraction = false;
        if self.peek(0) == b'.'
            && (self.pos == start
                || !self.has(1)
                || !is_word_byte(self.peek(1))
                || is_digit(self.peek(1)))
        {
            fraction = true;
            self.pos += 1;
            self.skip_digits();
        }
        if matches!(self.peek(0), b'e' | b'E') {
            let sign = matches!(self.peek(1), b'+' | b'-') as usize;
            if is_digit(self.peek(1 + sign)) {
                self.pos += 1 + sign;
                self.skip_digits();
                if self.pos < self.src.len()
                    && is_word_byte(self.src[self.pos])
                    && !is_digit(self.src[self.pos])
                {
                    // `1e5x` is not a number in MySQL; keep it one identifier token.
                    self.skip_word();
                    return TokenKind::Word;
                }
                return TokenKind::Number;
            }
        }
        if !fraction && self.pos < self.src.len() && is_word_byte(self.src[self.pos]) {
            self.skip_word();
            return TokenKind::Word;
        }
        TokenKind::Number
    }

    fn block_comment(&mut self) -> TokenKind {
        // self.pos is at "/*"
        match memchr::memmem::find(&self.src[self.pos + 2..], b"*/") {
            Some(off) => {
                self.pos += 2 + off + 2;
                TokenKind::Comment
            }
            None => {
                self.pos = self.src.len();
                TokenKind::Unterminated
            }
        }
    }

    fn line_comment(&mut self) -> TokenKind {
        match memchr::memchr(b'\n', &self.src[self.pos..]) {
            Some(off) => self.pos += off,
            None => self.pos = self.src.len(),
        }
        TokenKind::Comment
    }
}

impl Iterator for Lexer<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        let src = self.src;
        if self.pos >= src.len() {
            return None;
        }
        let start = self.pos;
        let b = src[start];
        let kind = match b {
            _ if is_space(b) => {
                self.pos += 1;
                while self.pos < src.len() && is_space(src[self.pos]) {
                    self.pos += 1;
                }
                TokenKind::Whitespace
            }
            b'\'' | b'"' => {
                if self.skip_quoted(b) {
                    TokenKind::String
                } else {
                    TokenKind::Unterminated
                }
            }
            b'`' => {
                if self.skip_quoted(b'`') {
                    TokenKind::QuotedIdent
                } else {
                    TokenKind::Unterminated
                }
            }
            b'N' | b'n' | b'X' | b'x' | b'B' | b'b' if self.peek(1) == b'\'' => {
                self.pos += 1;
                let closed = self.skip_quoted(b'\'');
                if !closed {
                    TokenKind::Unterminated
                } else {
                    match b {
                        b'N' | b'n' => TokenKind::NationalString,
                        b'X' | b'x' => TokenKind::HexString,
                        _ => TokenKind::BitString,
                    }
                }
            }
            b'0'..=b'9' => self.number_or_word(),
            // `.5` is a number, but in `t.1col` the dot qualifies an identifier.
            b'.' if is_digit(self.peek(1))
                && !(start > 0 && (is_word_byte(src[start - 1]) || src[start - 1] == b'`')) =>
            {
                self.number_or_word()
            }
            _ if is_word_byte(b) => {
                self.skip_word();
                TokenKind::Word
            }
            b'?' => {
                self.pos += 1;
                TokenKind::Placeholder
            }
            b'@' => {
                self.pos += 1;
                if self.peek(0) == b'@' {
                    self.pos += 1;
                }
                match self.peek(0) {
                    q @ (b'\'' | b'"' | b'`') if self.has(0) => {
                        if !self.skip_quoted(q) {
                            return Some(Token {
                                kind: TokenKind::Unterminated,
                                start,
                                end: self.pos,
                            });
                        }
                    }
                    _ => {
                        self.skip_word();
                        // `@@session.sql_mode`, `@@global.x`
                        while self.peek(0) == b'.' && self.has(1) && is_word_byte(self.peek(1)) {
                            self.pos += 1;
                            self.skip_word();
                        }
                    }
                }
                if self.pos == start + 1 {
                    TokenKind::Punct
                } else {
                    TokenKind::Variable
                }
            }
            b'#' => self.line_comment(),
            b'-' if self.peek(1) == b'-'
                && (!self.has(2) || is_space(self.peek(2)) || self.peek(2) < 0x20) =>
            {
                self.line_comment()
            }
            b'/' if self.peek(1) == b'*' => {
                let version_at = if self.peek(2) == b'!' {
                    Some(3)
                } else if self.peek(2) == b'M' && self.peek(3) == b'!' {
                    Some(4)
                } else {
                    None
                };
                if let Some(at) = version_at
                    && !self.in_version_comment
                {
                    self.pos += at;
                    let digits = self.pos;
                    self.skip_digits();
                    // `/*M!999999\- enable the sandbox mode */` (mariadb-dump since 10.11.8 and
                    // 11.x): a version no server reaches, for the client only. A comment to us.
                    if self.pos - digits >= 6 && &src[digits..digits + 6] == b"999999" {
                        self.pos = start;
                        self.block_comment()
                    } else {
                        self.in_version_comment = true;
                        TokenKind::VersionCommentStart
                    }
                } else if self.peek(2) == b'+' {
                    match self.block_comment() {
                        TokenKind::Comment => TokenKind::Hint,
                        other => other,
                    }
                } else {
                    self.block_comment()
                }
            }
            b'*' if self.in_version_comment && self.peek(1) == b'/' => {
                self.pos += 2;
                self.in_version_comment = false;
                TokenKind::VersionCommentEnd
            }
            _ => {
                self.pos += punct_len(&src[start..]);
                TokenKind::Punct
            }
        };
        Some(Token {
            kind,
            start,
            end: self.pos,
        })
    }
}

/// The value of a quoted token as MySQL reads it: a backtick identifier without its quotes and with
/// doubled backticks single; a `'…'` or `"…"` string without its quotes, doubled quotes single and
/// backslash escapes applied (`\n`, `\t`, `\0`, `\Z`, …; `\%` and `\_` keep their backslash, as
/// MySQL keeps them for LIKE). Anything else comes back as it is. The one unquoting rule of the crate.
pub fn unquote(text: &[u8]) -> Vec<u8> {
    let (Some(&q), Some(&last)) = (text.first(), text.last()) else {
        return Vec::new();
    };
    if text.len() < 2 || q != last || !matches!(q, b'`' | b'\'' | b'"') {
        return text.to_vec();
    }
    let inner = &text[1..text.len() - 1];
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        let c = inner[i];
        if c == q && inner.get(i + 1) == Some(&q) {
            out.push(q);
            i += 2;
        } else if c == b'\\' && q != b'`' && i + 1 < inner.len() {
            let n = inner[i + 1];
            match n {
                b'n' => out.push(b'\n'),
                b't' => out.push(b'\t'),
                b'r' => out.push(b'\r'),
                b'b' => out.push(8),
                b'0' => out.push(0),
                b'Z' => out.push(26),
                b'%' | b'_' => out.extend_from_slice(&[b'\\', n]),
                other => out.push(other),
            }
            i += 2;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// [`unquote`] for text.
pub fn unquote_str(text: &str) -> String {
    String::from_utf8_lossy(&unquote(text.as_bytes())).into_owned()
}

/// Length of the operator at the start of `s` (longest match).
fn punct_len(s: &[u8]) -> usize {
    let at = |i: usize| *s.get(i).unwrap_or(&0);
    match (at(0), at(1), at(2)) {
        (b'<', b'=', b'>') | (b'-', b'>', b'>') => 3,
        (b'<', b'=' | b'>' | b'<', _)
        | (b'>', b'=' | b'>', _)
        | (b'!', b'=', _)
        | (b'&', b'&', _)
        | (b'|', b'|', _)
        | (b':', b'=', _)
        | (b'-', b'>', _)
        | (b'=', b'=', _) => 2,
        (b, _, _) if b >= 0x80 => 1,
        _ => 1,
    }
}

/// Where a SQL text stands lexically at the end of some prefix of it: used by the log framers to tell
/// whether a line that looks like a new log record is really inside a string literal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QuoteState {
    #[default]
    Code,
    /// Inside `'…'`, `"…"` or `` `…` `` (the byte is the quote).
    Quoted(u8),
    /// Inside `'…'`/`"…"` right after a backslash.
    Escaped(u8),
    /// Inside `/* … */`.
    BlockComment,
    /// Inside `-- …` or `# …` (ends at the newline).
    LineComment,
}

impl QuoteState {
    /// True when a record boundary here would not cut a literal or comment.
    pub fn is_code(self) -> bool {
        matches!(self, QuoteState::Code | QuoteState::LineComment)
    }

    /// Advances over `text`, which continues the text already scanned.
    pub fn advance(mut self, text: &[u8]) -> QuoteState {
        let mut i = 0;
        let n = text.len();
        while i < n {
            match self {
                QuoteState::Code => {
                    // Jump to the next byte that can change state.
                    let Some(off) = find_code_special(&text[i..]) else {
                        return self;
                    };
                    i += off;
                    let b = text[i];
                    match b {
                        b'\'' | b'"' | b'`' => {
                            self = QuoteState::Quoted(b);
                            i += 1;
                        }
                        b'#' => {
                            self = QuoteState::LineComment;
                            i += 1;
                        }
                        b'-' => {
                            let next = text.get(i + 2).copied();
                            if text.get(i + 1) == Some(&b'-') && next.is_none_or(|c| c <= b' ') {
                                self = QuoteState::LineComment;
                                i += 2;
                            } else {
                                i += 1;
                            }
                        }
                        b'/' => {
                            if text.get(i + 1) == Some(&b'*')
                                && !matches!(text.get(i + 2), Some(b'!'))
                            {
                                self = QuoteState::BlockComment;
                                i += 2;
                            } else {
                                i += 1;
                            }
                        }
                        _ => i += 1,
                    }
                }
                QuoteState::Quoted(q) => {
                    let rest = &text[i..];
                    let found = if q == b'`' {
                        memchr::memchr(q, rest)
                    } else {
                        memchr::memchr2(q, b'\\', rest)
                    };
                    match found {
                        None => return self,
                        Some(off) => {
                            i += off;
                            if text[i] == b'\\' {
                                self = QuoteState::Escaped(q);
                                i += 1;
                            } else if text.get(i + 1) == Some(&q) {
                                i += 2;
                            } else if i + 1 == n {
                                // A closing quote at the very end of this piece: if the next piece starts
                                // with the same quote it is a doubled quote. Lines end with '\n', so a
                                // piece never ends right after a quote in the framers; treat as closed.
                                self = QuoteState::Code;
                                i += 1;
                            } else {
                                self = QuoteState::Code;
                                i += 1;
                            }
                        }
                    }
                }
                QuoteState::Escaped(q) => {
                    self = QuoteState::Quoted(q);
                    i += 1;
                }
                QuoteState::BlockComment => match memchr::memmem::find(&text[i..], b"*/") {
                    None => return self,
                    Some(off) => {
                        self = QuoteState::Code;
                        i += off + 2;
                    }
                },
                QuoteState::LineComment => match memchr::memchr(b'\n', &text[i..]) {
                    None => return self,
                    Some(off) => {
                        self = QuoteState::Code;
                        i += off + 1;
                    }
                },
            }
        }
        self
    }
}

/// Bytes that can change the quote state outside literals: quotes and comment starters.
static CODE_SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    t[b'\'' as usize] = true;
    t[b'"' as usize] = true;
    t[b'`' as usize] = true;
    t[b'#' as usize] = true;
    t[b'-' as usize] = true;
    t[b'/' as usize] = true;
    t
};

#[inline]
fn find_code_special(s: &[u8]) -> Option<usize> {
    s.iter().position(|&b| CODE_SPECIAL[b as usize])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquoting() {
        assert_eq!(unquote_str("`my``db`"), "my`db");
        assert_eq!(unquote_str("'it''s'"), "it's");
        assert_eq!(unquote_str("'it\\'s\\n'"), "it's\n");
        assert_eq!(unquote_str("\"a\"\"b\""), "a\"b");
        assert_eq!(unquote_str("'50\\%'"), "50\\%");
        assert_eq!(unquote_str("`a\\b`"), "a\\b");
        assert_eq!(unquote_str("plain"), "plain");
    }

    fn kinds(sql: &str) -> Vec<(TokenKind, &str)> {
        Lexer::new(sql.as_bytes())
            .filter(|t| t.kind != TokenKind::Whitespace)
            .map(|t| (t.kind, &sql[t.start..t.end]))
            .collect()
    }

    #[test]
    fn literals() {
        use TokenKind::*;
        assert_eq!(
            kinds("SELECT 'O''Brien', \"a\\\"b\", 0x1F, x'1F', b'1', 0b11, N'n', 1.5e-3, .5, 12"),
            vec![
                (Word, "SELECT"),
                (String, "'O''Brien'"),
                (Punct, ","),
                (String, "\"a\\\"b\""),
                (Punct, ","),
                (HexNumber, "0x1F"),
                (Punct, ","),
                (HexString, "x'1F'"),
                (Punct, ","),
                (BitString, "b'1'"),
                (Punct, ","),
                (BitNumber, "0b11"),
                (Punct, ","),
                (NationalString, "N'n'"),
                (Punct, ","),
                (Number, "1.5e-3"),
                (Punct, ","),
                (Number, ".5"),
                (Punct, ","),
                (Number, "12"),
            ]
        );
    }

    #[test]
    fn identifiers_with_digits_are_words() {
        use TokenKind::*;
        assert_eq!(
            kinds("db1.sbtest2 1abc 0xZZ"),
            vec![
                (Word, "db1"),
                (Punct, "."),
                (Word, "sbtest2"),
                (Word, "1abc"),
                (Word, "0xZZ")
            ]
        );
        assert_eq!(
            kinds("t.1col"),
            vec![(Word, "t"), (Punct, "."), (Word, "1col")]
        );
    }

    #[test]
    fn comments_and_version_comments() {
        use TokenKind::*;
        assert_eq!(
            kinds("/*!40101 SET x=1 */ /*+ BKA(t) */ # c\n-- c\n--x /* c */"),
            vec![
                (VersionCommentStart, "/*!40101"),
                (Word, "SET"),
                (Word, "x"),
                (Punct, "="),
                (Number, "1"),
                (VersionCommentEnd, "*/"),
                (Hint, "/*+ BKA(t) */"),
                (Comment, "# c"),
                (Comment, "-- c"),
                (Punct, "-"),
                (Punct, "-"),
                (Word, "x"),
                (Comment, "/* c */"),
            ]
        );
    }

    #[test]
    fn the_mariadb_dump_sandbox_line_is_a_comment() {
        use TokenKind::*;
        assert_eq!(
            kinds("/*M!999999\\- enable the sandbox mode */ \nSET x=1"),
            vec![
                (Comment, "/*M!999999\\- enable the sandbox mode */"),
                (Word, "SET"),
                (Word, "x"),
                (Punct, "="),
                (Number, "1"),
            ]
        );
        // A version a server can reach stays code.
        assert_eq!(
            kinds("/*M!100100 SET */")[0],
            (VersionCommentStart, "/*M!100100")
        );
    }

    #[test]
    fn unterminated_runs_to_end() {
        let toks: Vec<_> = Lexer::new(b"SELECT 'abc").collect();
        assert_eq!(toks.last().map(|t| t.kind), Some(TokenKind::Unterminated));
        let toks: Vec<_> = Lexer::new(b"SELECT 'abc\\").collect();
        assert_eq!(toks.last().map(|t| t.kind), Some(TokenKind::Unterminated));
    }

    #[test]
    fn variables_and_operators() {
        use TokenKind::*;
        assert_eq!(
            kinds("@a := @@session.sql_mode <=> @'x y' ->> '$.a'"),
            vec![
                (Variable, "@a"),
                (Punct, ":="),
                (Variable, "@@session.sql_mode"),
                (Punct, "<=>"),
                (Variable, "@'x y'"),
                (Punct, "->>"),
                (String, "'$.a'")
            ]
        );
    }

    #[test]
    fn quote_state() {
        let s = QuoteState::Code.advance(b"INSERT INTO t VALUES ('a;\n");
        assert_eq!(s, QuoteState::Quoted(b'\''));
        let s = s.advance(b"# Time: 2024\n");
        assert!(!s.is_code());
        let s = s.advance(b"it''s done');\n");
        assert!(s.is_code());
        assert!(QuoteState::Code.advance(b"SELECT 1 # it's\n").is_code());
        assert!(
            QuoteState::Code
                .advance(b"SELECT '\\'' /* ' */\n")
                .is_code()
        );
        assert!(!QuoteState::Code.advance(b"SELECT 'x\\").is_code());
    }
}
