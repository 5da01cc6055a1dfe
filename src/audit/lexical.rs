//! Lexical detectors: what the target's lexer reads differently from MySQL's. They run on tokens of the
//! raw text, because sqlparser normalises these differences away (backticks become quote styles, `&&`
//! prints as AND, version comments are expanded).

use super::{Context, Hit};
use crate::sql::keywords::eq_kw;
use crate::sql::lexer::{Lexer, Token, TokenKind};

/// A token with whether it sits inside a `/*! … */` version comment (which the target drops).
#[derive(Clone, Copy)]
pub struct Tok {
    pub t: Token,
    pub in_version_comment: bool,
    /// A comment or whitespace came right before it.
    pub spaced: bool,
}

/// The significant tokens of `sql`.
pub fn toks(sql: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut in_vc = false;
    let mut spaced = false;
    for t in Lexer::new(sql.as_bytes()) {
        match t.kind {
            TokenKind::Whitespace | TokenKind::Comment => spaced = true,
            TokenKind::VersionCommentStart => {
                in_vc = true;
                spaced = true;
            }
            TokenKind::VersionCommentEnd => {
                in_vc = false;
                spaced = true;
            }
            _ => {
                out.push(Tok {
                    t,
                    in_version_comment: in_vc,
                    spaced,
                });
                spaced = false;
            }
        }
    }
    out
}

fn text<'a>(sql: &'a str, t: &Token) -> &'a str {
    &sql[t.start..t.end]
}

/// True when a column of this name exists anywhere in the schema.
fn is_column_name(ctx: &Context, name: &str) -> bool {
    ctx.schema
        .is_some_and(|s| s.tables.iter().any(|t| t.column(name).is_some()))
}

pub fn hits(sql: &str, ctx: &Context) -> Vec<Hit> {
    let mut hits = Vec::new();
    let b = sql.as_bytes();
    // Comments are skipped by `toks`; look at them here.
    let raw: Vec<Token> = Lexer::new(b).collect();
    for (i, t) in raw.iter().enumerate() {
        match t.kind {
            TokenKind::Comment if b[t.start] == b'#' => hits.push(Hit::new("LEX-004").at(t.start)),
            TokenKind::VersionCommentStart => {
                let inner_end = raw[i..]
                    .iter()
                    .find(|x| x.kind == TokenKind::VersionCommentEnd)
                    .map_or(sql.len(), |x| x.start);
                let inner = sql[t.end..inner_end].trim();
                hits.push(
                    Hit::new("LEX-005")
                        .at(t.start)
                        .detail(format!("{} {inner} */", text(sql, t))),
                );
            }
            // `--` not followed by a space: MySQL reads minus minus.
            TokenKind::Punct if text(sql, t) == "-" => {
                if let Some(n) = raw.get(i + 1)
                    && n.kind == TokenKind::Punct
                    && text(sql, n) == "-"
                    && n.start == t.end
                    && raw
                        .get(i + 2)
                        .is_some_and(|m| m.start == n.end && m.kind != TokenKind::Whitespace)
                {
                    hits.push(Hit::new("LEX-004W").at(t.start));
                }
            }
            _ => {}
        }
    }
    let ts = toks(sql);
    for (i, tk) in ts.iter().enumerate() {
        if tk.in_version_comment {
            continue;
        }
        let t = &tk.t;
        let s = text(sql, t);
        let prev = i.checked_sub(1).map(|p| &ts[p]);
        let next = ts.get(i + 1);
        match t.kind {
            TokenKind::QuotedIdent => hits.push(
                Hit::new("LEX-001")
                    .at(t.start)
                    .detail(s.to_string())
                    .rewrite(format!("\"{}\"", &s[1..s.len() - 1].replace("``", "`"))),
            ),
            TokenKind::String if s.starts_with('"') => {
                let inner = &s[1..s.len() - 1];
                let rule = if is_column_name(ctx, inner) {
                    "LEX-002C"
                } else {
                    "LEX-002"
                };
                hits.push(
                    Hit::new(rule)
                        .at(t.start)
                        .detail(s.to_string())
                        .rewrite(format!("'{}'", inner.replace('\'', "''"))),
                );
            }
            TokenKind::String | TokenKind::NationalString => {
                let inner = if s.starts_with('N') || s.starts_with('n') {
                    &s[2..s.len() - 1]
                } else {
                    &s[1..s.len() - 1]
                };
                if inner.contains("\\'") {
                    hits.push(Hit::new("LEX-003").at(t.start).detail(s.to_string()));
                } else if has_escape(inner) {
                    hits.push(Hit::new("LEX-003W").at(t.start).detail(s.to_string()));
                }
                // Adjacent literals on one line.
                if let Some(n) = next
                    && n.t.kind == TokenKind::String
                    && !n.in_version_comment
                    && !sql[t.end..n.t.start].contains('\n')
                {
                    hits.push(Hit::new("LEX-021").at(n.t.start));
                }
            }
            TokenKind::HexNumber => {
                hits.push(Hit::new("LEX-015").at(t.start).detail(s.to_string()))
            }
            TokenKind::HexString | TokenKind::BitString => {
                hits.push(Hit::new("LEX-016").at(t.start).detail(s.to_string()))
            }
            TokenKind::BitNumber => {
                hits.push(Hit::new("LEX-017").at(t.start).detail(s.to_string()))
            }
            TokenKind::Variable => {
                if s.starts_with("@@") {
                    hits.push(Hit::new("LEX-020").at(t.start).detail(s.to_string()));
                } else {
                    let name = s.trim_start_matches('@');
                    let rule = if is_column_name(ctx, name)
                        && next.is_none_or(|n| text(sql, &n.t) != ":=")
                    {
                        "LEX-019C"
                    } else {
                        "LEX-019"
                    };
                    hits.push(Hit::new(rule).at(t.start).detail(s.to_string()));
                }
            }
            TokenKind::Punct => match s {
                "&&" => hits.push(Hit::new("LEX-008").at(t.start)),
                "!" => hits.push(Hit::new("LEX-008N").at(t.start)),
                "<=>" => hits.push(Hit::new("LEX-013").at(t.start)),
                ":=" => hits.push(Hit::new("LEX-018").at(t.start)),
                _ => {}
            },
            TokenKind::Word => {
                let called = next.is_some_and(|n| text(sql, &n.t) == "(" && !n.spaced);
                let operand_before = prev.is_some_and(|p| is_operand_end(sql, &p.t));
                if eq_kw(s.as_bytes(), b"XOR") && operand_before {
                    hits.push(Hit::new("LEX-010").at(t.start));
                } else if eq_kw(s.as_bytes(), b"DIV") && operand_before && !called {
                    hits.push(Hit::new("LEX-011").at(t.start));
                } else if eq_kw(s.as_bytes(), b"MOD") && operand_before && !called {
                    hits.push(Hit::new("LEX-012").at(t.start));
                } else if (eq_kw(s.as_bytes(), b"REGEXP") || eq_kw(s.as_bytes(), b"RLIKE"))
                    && !called
                {
                    hits.push(
                        Hit::new("LEX-014")
                            .at(t.start)
                            .detail(s.to_ascii_uppercase()),
                    );
                } else if eq_kw(s.as_bytes(), b"DUAL")
                    && prev.is_some_and(|p| eq_kw(text(sql, &p.t).as_bytes(), b"FROM"))
                {
                    hits.push(Hit::new("LEX-009").at(t.start));
                } else if s.starts_with('_')
                    && next.is_some_and(|n| n.t.kind == TokenKind::String && n.t.start == t.end)
                {
                    hits.push(Hit::new("LEX-022").at(t.start).detail(s.to_string()));
                } else if eq_kw(s.as_bytes(), b"COLLATE") {
                    if let Some(n) = next {
                        let c = text(sql, &n.t)
                            .trim_matches(['`', '\'', '"'])
                            .to_ascii_lowercase();
                        if is_mysql_collation(&c) {
                            hits.push(Hit::new("LEX-023").at(n.t.start).detail(c));
                        }
                    }
                } else if eq_kw(s.as_bytes(), b"BINARY")
                    && prev.is_some_and(|p| {
                        !eq_kw(text(sql, &p.t).as_bytes(), b"AS")
                            && text(sql, &p.t) != "("
                            && !eq_kw(text(sql, &p.t).as_bytes(), b"CHARACTER")
                            && !eq_kw(text(sql, &p.t).as_bytes(), b"SET")
                    })
                    && next.is_some_and(|n| {
                        matches!(
                            n.t.kind,
                            TokenKind::Word | TokenKind::QuotedIdent | TokenKind::String
                        )
                    })
                    && !is_type_position(sql, &ts, i)
                {
                    hits.push(Hit::new("LEX-024").at(t.start));
                }
            }
            _ => {}
        }
    }
    hits
}

/// True when the token can end an operand (so a following word is an infix operator).
fn is_operand_end(sql: &str, t: &Token) -> bool {
    match t.kind {
        TokenKind::Word => {
            let w = text(sql, t).as_bytes();
            !(eq_kw(w, b"SELECT")
                || eq_kw(w, b"WHERE")
                || eq_kw(w, b"AND")
                || eq_kw(w, b"OR")
                || eq_kw(w, b"ON")
                || eq_kw(w, b"SET")
                || eq_kw(w, b"BY")
                || eq_kw(w, b"HAVING")
                || eq_kw(w, b"WHEN")
                || eq_kw(w, b"THEN")
                || eq_kw(w, b"ELSE")
                || eq_kw(w, b"NOT"))
        }
        TokenKind::Punct => text(sql, t) == ")",
        TokenKind::QuotedIdent | TokenKind::Variable | TokenKind::Placeholder => true,
        k => k.is_literal(),
    }
}

/// `BINARY(16)` in a column definition, or `CHARACTER SET binary`: a type, not the operator.
fn is_type_position(sql: &str, ts: &[Tok], i: usize) -> bool {
    ts.get(i + 1).is_some_and(|n| text(sql, &n.t) == "(")
        || ts.get(i.wrapping_sub(1)).is_some_and(|p| {
            matches!(p.t.kind, TokenKind::Word | TokenKind::QuotedIdent)
                && ts
                    .get(i.wrapping_sub(2))
                    .is_some_and(|pp| text(sql, &pp.t) == "," || text(sql, &pp.t) == "(")
        })
}

/// Backslash escapes MySQL interprets in strings (`\n`, `\t`, `\\`, `\0`, `\r`, `\Z`, `\"`, `\b`).
/// `\%` and `\_` mean the same in LIKE patterns on both sides.
fn has_escape(inner: &str) -> bool {
    let b = inner.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'\\' {
            if matches!(
                b[i + 1],
                b'n' | b't' | b'\\' | b'0' | b'r' | b'Z' | b'"' | b'b'
            ) {
                return true;
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    false
}

/// MySQL collation names: charset_… (utf8mb4_bin, latin1_swedish_ci, binary).
pub fn is_mysql_collation(c: &str) -> bool {
    const CHARSETS: &[&str] = &[
        "utf8mb4_",
        "utf8mb3_",
        "utf8_",
        "latin1_",
        "latin2_",
        "ascii_",
        "binary",
        "ucs2_",
        "utf16_",
        "utf32_",
        "cp1251_",
        "cp1252_",
        "gbk_",
        "gb2312_",
        "gb18030_",
        "big5_",
        "sjis_",
        "euckr_",
        "ujis_",
        "koi8r_",
        "greek_",
        "hebrew_",
        "armscii8_",
        "tis620_",
    ];
    CHARSETS.iter().any(|p| c.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::with_postgres;

    fn rules(sql: &str) -> Vec<String> {
        with_postgres(|ctx| hits(sql, ctx).into_iter().map(|h| h.rule).collect())
    }

    #[test]
    fn lexical_detectors() {
        assert_eq!(rules("SELECT `a` FROM t"), vec!["LEX-001"]);
        assert_eq!(rules("SELECT \"x\""), vec!["LEX-002"]);
        assert_eq!(rules("SELECT 'It\\'s'"), vec!["LEX-003"]);
        assert_eq!(rules("SELECT 'a\\nb'"), vec!["LEX-003W"]);
        assert_eq!(rules("SELECT 'a\\%' LIKE 'x'"), Vec::<String>::new());
        assert_eq!(rules("SELECT 1 # c"), vec!["LEX-004"]);
        assert_eq!(rules("SELECT 10--2"), vec!["LEX-004W"]);
        assert_eq!(rules("SELECT 10 -- c"), Vec::<String>::new());
        assert_eq!(rules("SELECT /*!40001 SQL_NO_CACHE */ 1"), vec!["LEX-005"]);
        assert_eq!(
            rules("SELECT a && b, !c, a XOR b, 7 DIV 2, 7 MOD 2, a <=> b, a REGEXP 'x'"),
            vec![
                "LEX-008", "LEX-008N", "LEX-010", "LEX-011", "LEX-012", "LEX-013", "LEX-014"
            ]
        );
        assert_eq!(
            rules("SELECT MOD(7, 2), REGEXP_LIKE(a, 'x')"),
            Vec::<String>::new()
        );
        assert_eq!(rules("SELECT 1 FROM DUAL"), vec!["LEX-009"]);
        assert_eq!(
            rules("SELECT 0x41, X'41', 0b101"),
            vec!["LEX-015", "LEX-016", "LEX-017"]
        );
        assert_eq!(rules("SET @x := 1"), vec!["LEX-019", "LEX-018"]);
        assert_eq!(rules("SELECT @@version"), vec!["LEX-020"]);
        assert_eq!(rules("SELECT 'a' 'b'"), vec!["LEX-021"]);
        assert_eq!(rules("SELECT 'a'\n'b'"), Vec::<String>::new());
        assert_eq!(rules("SELECT _utf8mb4'x'"), vec!["LEX-022"]);
        assert_eq!(rules("SELECT a COLLATE utf8mb4_bin"), vec!["LEX-023"]);
        assert_eq!(
            rules("SELECT * FROM t WHERE BINARY a = 'x'"),
            vec!["LEX-024"]
        );
        assert_eq!(rules("SELECT CAST(a AS BINARY)"), Vec::<String>::new());
    }
}
