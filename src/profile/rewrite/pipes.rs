//! MySQL's `||`, its logical OR under the default sql_mode: where it joins conditions it is written
//! `OR`; between single values the audit's tree pass writes the OR of their numbers.

use super::{Profile, Writer};
use crate::sql::lexer::{Lexer, Token, TokenKind};

/// `sql` with MySQL's `||` written `OR` where it joins conditions. None when there is no `||`, or
/// one between values (MySQL's OR of numbers, which OR does not keep).
pub fn pipes_as_or(sql: &str, profile: &Profile) -> Option<String> {
    let w = Writer {
        sql,
        toks: Lexer::new(sql.as_bytes()).collect(),
        profile,
        applied: Vec::new(),
        missed: Vec::new(),
        declared_names: Vec::new(),
    };
    let end = w.toks.len();
    let mut out = String::new();
    let mut changed = false;
    for i in 0..end {
        if w.toks[i].kind == TokenKind::Punct && w.text(i) == "||" {
            if !w.pipes_join_conditions(i, end) {
                return None;
            }
            out.push_str("OR");
            changed = true;
        } else {
            out.push_str(w.text(i));
        }
    }
    changed.then_some(out)
}

/// True when `sql` has `||` and each stands between two single values (a name, a literal) with
/// nothing else around them up to a list's or clause's edge: MySQL's OR of two values, which the
/// tree reads unambiguously as `a || b`.
pub fn pipes_between_single_values(sql: &str) -> bool {
    let toks: Vec<Token> = Lexer::new(sql.as_bytes()).collect();
    let text = |i: usize| &sql[toks[i].start..toks[i].end];
    let sig: Vec<usize> = (0..toks.len())
        .filter(|&i| !matches!(toks[i].kind, TokenKind::Whitespace | TokenKind::Comment))
        .collect();
    let value = |k: usize| {
        matches!(
            toks[k].kind,
            TokenKind::Word | TokenKind::QuotedIdent | TokenKind::String | TokenKind::Number
        ) && ![
            "SELECT", "AS", "FROM", "WHERE", "AND", "OR", "NOT", "NULL", "ON",
        ]
        .iter()
        .any(|w| text(k).eq_ignore_ascii_case(w))
    };
    let edge = |k: Option<&usize>| {
        k.is_none_or(|&k| {
            matches!(text(k), "," | "(" | ")" | ";")
                || [
                    "SELECT", "AS", "FROM", "WHERE", "ORDER", "GROUP", "HAVING", "LIMIT",
                ]
                .iter()
                .any(|w| text(k).eq_ignore_ascii_case(w))
        })
    };
    let mut any = false;
    for (n, &i) in sig.iter().enumerate() {
        if toks[i].kind != TokenKind::Punct || text(i) != "||" {
            continue;
        }
        any = true;
        let (Some(&a), Some(&b)) = (n.checked_sub(1).and_then(|m| sig.get(m)), sig.get(n + 1))
        else {
            return false;
        };
        let before = n.checked_sub(2).and_then(|m| sig.get(m));
        if !(value(a) && value(b) && edge(before) && edge(sig.get(n + 2))) {
            return false;
        }
    }
    any
}
