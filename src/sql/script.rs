//! Splits a `.sql` script (mysqldump output included) into statements, the way the `mysql` client does:
//! `;` ends a statement outside strings, quoted identifiers and comments; `DELIMITER x` lines change
//! the terminator (for stored-program bodies); `/*!40101 … */` version comments are code, so a
//! statement made only of one is kept; a script's last statement needs no terminator.

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
}

/// Splits `script` into statements. Never fails: text that does not end properly becomes the last
/// statement as it is.
pub fn split_script(script: &str) -> Vec<ScriptStatement> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Code,
        Quoted(u8),
        LineComment,
        BlockComment,
    }
    let b = script.as_bytes();
    let mut out = Vec::new();
    let mut delimiter = ";".to_string();
    let mut state = State::Code;
    let mut start = 0usize; // start of the current statement's text
    let mut i = 0usize;
    let mut at_line_start = true;
    let mut only_blank = true; // nothing but whitespace and comments since `start`
    while i < b.len() {
        let c = b[i];
        match state {
            State::Code => {
                // The `DELIMITER` client command: first word of a line, outside any statement.
                if at_line_start
                    && only_blank
                    && starts_with_ci(&b[i..], b"delimiter")
                    && matches!(b.get(i + 9), Some(b' ' | b'\t'))
                {
                    let line_end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |p| i + p);
                    let new = script[i + 9..line_end].trim();
                    if !new.is_empty() {
                        delimiter = new.to_string();
                    }
                    i = (line_end + 1).min(b.len());
                    start = i;
                    at_line_start = true;
                    continue;
                }
                if b[i..].starts_with(delimiter.as_bytes()) {
                    push(&mut out, script, start, i, &delimiter);
                    i += delimiter.len();
                    start = i;
                    only_blank = true;
                    at_line_start = false;
                    continue;
                }
                match c {
                    b'\'' | b'"' | b'`' => {
                        state = State::Quoted(c);
                        only_blank = false;
                    }
                    b'#' => state = State::LineComment,
                    b'-' if b.get(i + 1) == Some(&b'-')
                        && b.get(i + 2).is_none_or(|n| *n <= b' ') =>
                    {
                        state = State::LineComment;
                        i += 1;
                    }
                    // `/*!…*/` (version comment) and `/*+…*/` (hint) are code.
                    b'/' if b.get(i + 1) == Some(&b'*')
                        && !matches!(b.get(i + 2), Some(b'!' | b'+')) =>
                    {
                        state = State::BlockComment;
                        i += 1;
                    }
                    _ if !c.is_ascii_whitespace() => only_blank = false,
                    _ => {}
                }
            }
            State::Quoted(q) => {
                if c == b'\\' && q != b'`' {
                    i += 1;
                } else if c == q {
                    if b.get(i + 1) == Some(&q) {
                        i += 1;
                    } else {
                        state = State::Code;
                    }
                }
            }
            State::LineComment => {
                if c == b'\n' {
                    state = State::Code;
                }
            }
            State::BlockComment => {
                if c == b'*' && b.get(i + 1) == Some(&b'/') {
                    state = State::Code;
                    i += 1;
                }
            }
        }
        at_line_start = c == b'\n';
        i += 1;
    }
    push(&mut out, script, start, b.len(), &delimiter);
    out
}

fn starts_with_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.len() >= needle.len() && hay[..needle.len()].eq_ignore_ascii_case(needle)
}

fn push(out: &mut Vec<ScriptStatement>, script: &str, start: usize, end: usize, delimiter: &str) {
    use super::lexer::{Lexer, TokenKind};
    let raw = &script[start..end];
    // Skip leading whitespace and ordinary comments; version comments and hints are code.
    let code_at = Lexer::new(raw.as_bytes())
        .find(|t| !matches!(t.kind, TokenKind::Whitespace | TokenKind::Comment))
        .map(|t| t.start);
    let Some(code_at) = code_at else { return };
    let text = raw[code_at..].trim_end();
    let leading_comment = raw[..code_at]
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
    let abs = start + code_at;
    let line = script[..abs].matches('\n').count() + 1;
    let column = abs - script[..abs].rfind('\n').map_or(0, |p| p + 1) + 1;
    out.push(ScriptStatement {
        text: text.to_string(),
        leading_comment,
        line,
        column,
        delimiter: delimiter.to_string(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn positions_are_reported() {
        let st = split_script("\n\n  SELECT 1;\nSELECT\n 2;");
        assert_eq!((st[0].line, st[0].column), (3, 3));
        assert_eq!((st[1].line, st[1].column), (4, 1));
    }
}
