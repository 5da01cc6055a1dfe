//! The token stream the keyword detectors read.

use crate::audit::lexical::{Tok, toks};
use crate::sql::lexer::TokenKind;

/// The tokens of one statement outside version comments, with words upper-cased and paren depth.
pub(super) struct Stream<'a> {
    pub(super) sql: &'a str,
    pub(super) toks: Vec<Tok>,
    pub(super) upper: Vec<String>,
    pub(super) depth: Vec<i32>,
}

impl<'a> Stream<'a> {
    pub(super) fn new(sql: &'a str) -> Stream<'a> {
        let toks: Vec<Tok> = toks(sql)
            .into_iter()
            .filter(|t| !t.in_version_comment)
            .collect();
        let upper = toks
            .iter()
            .map(|t| {
                if t.t.kind == TokenKind::Word {
                    sql[t.t.start..t.t.end].to_ascii_uppercase()
                } else {
                    sql[t.t.start..t.t.end].to_string()
                }
            })
            .collect();
        let mut depth = Vec::with_capacity(toks.len());
        let mut d = 0;
        for t in &toks {
            let s = &sql[t.t.start..t.t.end];
            if s == ")" {
                d -= 1;
            }
            depth.push(d);
            if s == "(" {
                d += 1;
            }
        }
        Stream {
            sql,
            toks,
            upper,
            depth,
        }
    }

    pub(super) fn w(&self, i: usize) -> &str {
        self.upper.get(i).map_or("", |s| s.as_str())
    }

    pub(super) fn is_word(&self, i: usize, kw: &str) -> bool {
        self.toks
            .get(i)
            .is_some_and(|t| t.t.kind == TokenKind::Word)
            && self.w(i) == kw
    }

    pub(super) fn at(&self, i: usize) -> usize {
        self.toks.get(i).map_or(0, |t| t.t.start)
    }

    pub(super) fn len(&self) -> usize {
        self.toks.len()
    }

    /// Index of the first word `kw` at depth `d` from `from`.
    pub(super) fn find(&self, kw: &str, from: usize, d: i32) -> Option<usize> {
        (from..self.len()).find(|&i| self.depth[i] == d && self.is_word(i, kw))
    }

    /// Index of the sequence of words `seq` (any depth) from `from`.
    pub(super) fn find_seq(&self, seq: &[&str], from: usize) -> Option<usize> {
        (from..self.len()).find(|&i| {
            seq.iter()
                .enumerate()
                .all(|(k, kw)| self.is_word(i + k, kw))
        })
    }
}
