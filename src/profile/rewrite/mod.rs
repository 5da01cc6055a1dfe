//! Mechanical rewrites: the MySQL-isms a target rejects that can be translated token by token without
//! knowing the data (backticks, double-quoted strings, backslash escapes, `LIMIT a, b`, `&&`, `<=>`,
//! `LOCK IN SHARE MODE`, index hints, `FROM DUAL`, `INTERVAL 1 DAY`, and the function calls the
//! profile gives a template for, such as `IFNULL(a, b)` → `COALESCE(a, b)`).
//!
//! The rewriter works on the byte lexer's tokens and keeps everything it does not translate exactly as
//! written (comments, spacing, case). A rewrite is `complete` when every error-level finding of the
//! statement is one the rewriter translated; replay sends only complete rewrites and lists the rest.
//! Whether the rewrite really runs on the target is for `--live` to say.

mod casts;
mod clauses;
mod pipes;
pub use pipes::{pipes_as_or, pipes_between_single_values};
mod dates;
mod functions;
mod session;

use super::{Finding, Profile, Severity};
use crate::sql::lexer::{Lexer, Token, TokenKind};

/// A rewritten statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rewrite {
    pub sql: String,
    /// Rule ids translated (with the function name for function rules: `FN-MISSING:IFNULL`).
    pub applied: Vec<String>,
    /// True when every error-level finding was translated.
    pub complete: bool,
}

/// Rules the token rewriter can translate, whatever their details.
const TRANSLATED: &[&str] = &[
    "LEX-001",
    "LEX-002",
    "LEX-002C",
    "LEX-003",
    "LEX-003W",
    "LEX-004",
    "LEX-007",
    "LEX-007E",
    "LEX-008",
    "LEX-008N",
    "LEX-009",
    "LEX-012",
    "LEX-013",
    "LEX-014",
    "DML-001",
    "DML-009",
    "DML-019",
    "FN-INTERVAL",
];

/// Rules translated occurrence by occurrence: complete when one was and none was left.
const PER_OCCURRENCE: &[&str] = &[
    "DML-010", "DML-017", "DML-017D", "DML-017C", "DML-017V", "CONN-003", "TXN-007", "LEX-021",
    "LEX-022", "LEX-020", "LEX-015", "LEX-016", "LEX-017",
];

/// MySQL's SELECT/INSERT/UPDATE/DELETE modifiers, which change nothing the statement returns.
const MODIFIERS: &[&str] = &[
    "STRAIGHT_JOIN",
    "SQL_CALC_FOUND_ROWS",
    "SQL_NO_CACHE",
    "SQL_CACHE",
    "HIGH_PRIORITY",
    "LOW_PRIORITY",
    "DELAYED",
    "SQL_SMALL_RESULT",
    "SQL_BIG_RESULT",
    "SQL_BUFFER_RESULT",
];

/// True when the profile treats `rule` as something to change (error or warning).
fn wanted(profile: &Profile, rule: &str) -> bool {
    profile
        .rule(rule)
        .and_then(|r| r.severity)
        .is_some_and(|s| matches!(s, Severity::Error | Severity::Warning))
}

/// Rewrites `sql` for the target of `profile`, judging completeness against `findings` (the
/// statement's findings under the same profile). None when nothing needed changing.
pub fn rewrite_with(sql: &str, profile: &Profile, findings: &[Finding]) -> Option<Rewrite> {
    let toks: Vec<Token> = Lexer::new(sql.as_bytes()).collect();
    let declared_names = declared_names(sql, &toks, findings);
    let mut w = Writer {
        sql,
        toks,
        profile,
        applied: Vec::new(),
        missed: Vec::new(),
        declared_names,
    };
    let out = w.emit(0, w.toks.len());
    if out == sql {
        return None;
    }
    let applied = w.applied;
    let missed = w.missed;
    let complete = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .all(|f| {
            TRANSLATED.contains(&f.rule.as_str())
                // Rules translated occurrence by occurrence: every occurrence was.
                || (PER_OCCURRENCE.contains(&f.rule.as_str())
                    && applied.contains(&f.rule)
                    && !missed.contains(&f.rule))
                || (f.rule == "DML-016" && applied.iter().any(|a| a.ends_with(":ISNULL")))
                || (f.rule == "TXN-002" && applied.iter().any(|a| a == "TXN-002"))
                || (f.rule == "DML-012" && applied.iter().any(|a| a == "DML-012"))
                || (matches!(f.rule.as_str(), "LEX-019" | "LEX-018")
                    && applied.iter().any(|a| a == "LEX-019:SET"))
                || (matches!(f.rule.as_str(), "DML-022S" | "DML-022")
                    && f.detail.as_deref() == Some("SHOW TABLES")
                    && applied.iter().any(|a| a == "DML-022S"))
                || (f.rule == "CASE-001"
                    && f.detail.as_deref().and_then(case_001_names).is_some_and(|(written, _)| {
                        applied.iter().any(|a| a.strip_prefix("CASE-001:") == Some(written))
                    }))
                || (f.rule == "TXN-003" && applied.iter().any(|a| a == "TXN-003:UNLOCK"))
                || (f.rule == "ADM-001"
                    && f.detail.as_deref() == Some("DO")
                    && applied.iter().any(|a| a == "ADM-001:DO"))
                // SET NAMES … COLLATE: the session collation is dropped with the statement.
                || (f.rule == "LEX-023" && applied.iter().any(|a| a == "CONN-003:COLLATE"))
                // The isolation rewrite takes the whole statement, its `@@` variable included.
                || (matches!(f.rule.as_str(), "CONN-002" | "LEX-020")
                    && applied.iter().any(|a| a.starts_with("CONN-002:")))
                || (f.rule.starts_with("FN-")
                    && f.detail.as_deref().is_some_and(|d| {
                        applied.iter().any(|a| {
                            a.starts_with(&f.rule)
                                && d.to_ascii_uppercase().starts_with(&format!(
                                    "{}(",
                                    a.rsplit(':').next().unwrap_or("")
                                ))
                        })
                    }))
        });
    Some(Rewrite {
        sql: out,
        applied,
        complete,
    })
}

struct Writer<'a> {
    sql: &'a str,
    toks: Vec<Token>,
    profile: &'a Profile,
    applied: Vec<String>,
    /// Rules with an occurrence left untranslated.
    missed: Vec<String>,
    /// Unquoted names written in another case than the schema declares them (CASE-001), with the
    /// declared spelling: quoted as declared wherever the word appears.
    declared_names: Vec<(String, String)>,
}

/// The name as written and as declared in a CASE-001 finding's detail, `written (declared as Name)`.
fn case_001_names(detail: &str) -> Option<(&str, &str)> {
    let (written, rest) = detail.split_once(" (declared as ")?;
    Some((written, rest.strip_suffix(')')?))
}

/// The CASE-001 names to quote: those the audit flagged at every place the statement writes them
/// (as many findings as words of that spelling), so that no word of the same spelling that means
/// something else (a column of another table, an alias) is quoted with them.
fn declared_names(sql: &str, toks: &[Token], findings: &[Finding]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let names = findings
        .iter()
        .filter(|f| f.rule == "CASE-001")
        .filter_map(|f| f.detail.as_deref().and_then(case_001_names));
    for (written, declared) in names.clone() {
        if out.iter().any(|(w, _)| w == written) {
            continue;
        }
        let flagged = names.clone().filter(|(w, _)| *w == written).count();
        let words = toks
            .iter()
            .filter(|t| t.kind == TokenKind::Word && &sql[t.start..t.end] == written)
            .count();
        let one_spelling = names
            .clone()
            .filter(|(w, _)| *w == written)
            .all(|(_, d)| d == declared);
        if flagged == words && one_spelling && !declared.contains('"') {
            out.push((written.to_string(), declared.to_string()));
        }
    }
    out
}

impl Writer<'_> {
    fn text(&self, i: usize) -> &str {
        let t = &self.toks[i];
        &self.sql[t.start..t.end]
    }

    fn is_sig(&self, i: usize) -> bool {
        !matches!(
            self.toks[i].kind,
            TokenKind::Whitespace | TokenKind::Comment
        )
    }

    /// The next significant token at or after `i`, before `end`.
    fn next_sig(&self, i: usize, end: usize) -> Option<usize> {
        (i..end).find(|&k| self.is_sig(k))
    }

    fn word_is(&self, i: usize, w: &str) -> bool {
        self.toks[i].kind == TokenKind::Word && self.text(i).eq_ignore_ascii_case(w)
    }

    /// The index of the `)` matching the `(` at `open`.
    fn matching(&self, open: usize, end: usize) -> Option<usize> {
        let mut depth = 0i32;
        for k in open..end {
            if self.toks[k].kind == TokenKind::Punct {
                match self.text(k) {
                    "(" => depth += 1,
                    ")" => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(k);
                        }
                    }
                    _ => {}
                }
            }
        }
        None
    }

    /// Whether the `||` at `i` joins conditions (a comparison on either side, up to the nearest
    /// boundary at its depth: a comma, a parenthesis, a clause keyword, AND/OR): then it is MySQL's
    /// logical OR and `OR` keeps it. Between plain values it is not rewritten.
    fn pipes_join_conditions(&self, i: usize, end: usize) -> bool {
        let boundary = |k: usize| {
            let t = self.text(k);
            matches!(t, "," | ";")
                || [
                    "SELECT", "WHERE", "AND", "OR", "ON", "HAVING", "WHEN", "THEN", "ELSE", "SET",
                    "AS", "FROM",
                ]
                .iter()
                .any(|w| self.word_is(k, w))
        };
        let comparison = |k: usize| {
            matches!(
                self.text(k),
                "=" | "<>" | "!=" | "<" | ">" | "<=" | ">=" | "<=>"
            ) || [
                "LIKE", "IN", "IS", "BETWEEN", "REGEXP", "RLIKE", "EXISTS", "NOT", "TRUE", "FALSE",
            ]
            .iter()
            .any(|w| self.word_is(k, w))
        };
        let side = |range: &mut dyn Iterator<Item = usize>, opens: &str, closes: &str| {
            let mut depth = 0i32;
            for k in range {
                if !self.is_sig(k) {
                    continue;
                }
                let t = self.text(k);
                if t == opens {
                    depth += 1;
                } else if t == closes {
                    if depth == 0 {
                        return false;
                    }
                    depth -= 1;
                } else if depth == 0 {
                    if boundary(k) {
                        return false;
                    }
                    if comparison(k) {
                        return true;
                    }
                }
            }
            false
        };
        side(&mut (0..i).rev(), ")", "(") || side(&mut (i + 1..end), "(", ")")
    }

    /// The previous significant token before `i`.
    fn prev_sig(&self, i: usize) -> Option<usize> {
        (0..i).rev().find(|&k| self.is_sig(k))
    }

    fn miss(&mut self, rule: &str) {
        if !self.missed.iter().any(|a| a == rule) {
            self.missed.push(rule.to_string());
        }
    }

    fn note(&mut self, rule: &str) {
        if !self.applied.iter().any(|a| a == rule) {
            self.applied.push(rule.to_string());
        }
    }

    /// Writes tokens `from..end`, translated.
    fn emit(&mut self, from: usize, end: usize) -> String {
        let mut out = String::new();
        let mut i = from;
        while i < end {
            let kind = self.toks[i].kind;
            let text = self.text(i).to_string();
            match kind {
                TokenKind::QuotedIdent if wanted(self.profile, "LEX-001") => {
                    let inner = text[1..text.len() - 1].replace("``", "`");
                    out.push('"');
                    out.push_str(&inner.replace('"', "\"\""));
                    out.push('"');
                    self.note("LEX-001");
                }
                TokenKind::String | TokenKind::NationalString
                    if wanted(self.profile, "LEX-002") || wanted(self.profile, "LEX-003") =>
                {
                    match requote(&text) {
                        Some((s, changed)) => {
                            out.push_str(&s);
                            if changed {
                                self.note(if text.starts_with('"') {
                                    "LEX-002"
                                } else {
                                    "LEX-003"
                                });
                            }
                        }
                        None => out.push_str(&text),
                    }
                }
                // 'a' 'b' on one line: the target joins adjacent literals only across a newline.
                TokenKind::Whitespace
                    if wanted(self.profile, "LEX-021")
                        && !text.contains('\n')
                        && self
                            .prev_sig(i)
                            .is_some_and(|p| self.toks[p].kind == TokenKind::String)
                        && self
                            .next_sig(i, end)
                            .is_some_and(|n| self.toks[n].kind == TokenKind::String) =>
                {
                    out.push('\n');
                    self.note("LEX-021");
                }
                // _utf8mb4'x': the target's strings are all in the database encoding.
                TokenKind::Word
                    if text.starts_with('_')
                        && wanted(self.profile, "LEX-022")
                        && self.toks.get(i + 1).is_some_and(|n| {
                            n.kind == TokenKind::String && n.start == self.toks[i].end
                        }) =>
                {
                    if matches!(
                        text.to_ascii_lowercase().as_str(),
                        "_utf8" | "_utf8mb4" | "_utf8mb3"
                    ) {
                        self.note("LEX-022");
                    } else {
                        self.miss("LEX-022");
                        out.push_str(&text);
                    }
                }
                // @@autocommit reads 1: sessions here commit each statement outside BEGIN … COMMIT
                // (`SET autocommit = 0` is never translated). Other server variables are not.
                TokenKind::Variable
                    if text.starts_with("@@") && wanted(self.profile, "LEX-020") =>
                {
                    let name = text.to_ascii_lowercase();
                    if matches!(
                        name.as_str(),
                        "@@autocommit" | "@@session.autocommit" | "@@local.autocommit"
                    ) {
                        out.push('1');
                        self.note("LEX-020");
                    } else {
                        out.push_str(&text);
                        self.miss("LEX-020");
                    }
                }
                TokenKind::HexNumber
                | TokenKind::BitNumber
                | TokenKind::HexString
                | TokenKind::BitString => {
                    let rule = match kind {
                        TokenKind::HexNumber => "LEX-015",
                        TokenKind::BitNumber => "LEX-017",
                        _ => "LEX-016",
                    };
                    match self
                        .binary_literal(i, end)
                        .filter(|_| wanted(self.profile, rule))
                    {
                        Some(s) => {
                            out.push_str(&s);
                            self.note(rule);
                        }
                        None => {
                            out.push_str(&text);
                            self.miss(rule);
                        }
                    }
                }
                TokenKind::Comment if text.starts_with('#') && wanted(self.profile, "LEX-004") => {
                    out.push_str("--");
                    out.push_str(&text[1..]);
                    self.note("LEX-004");
                }
                TokenKind::Punct => match text.as_str() {
                    "&&" if wanted(self.profile, "LEX-008") => {
                        out.push_str("AND");
                        self.note("LEX-008");
                    }
                    "||" if (wanted(self.profile, "LEX-007")
                        || wanted(self.profile, "LEX-007E"))
                        && self.pipes_join_conditions(i, end) =>
                    {
                        out.push_str("OR");
                        self.note("LEX-007");
                    }
                    "||" if wanted(self.profile, "LEX-007") => {
                        // Between values MySQL's OR casts strings to numbers (`'DE' || 'x'` is 0):
                        // no rewrite keeps that; the finding says so.
                        out.push_str("||");
                        self.miss("LEX-007");
                    }
                    "!" if wanted(self.profile, "LEX-008N") => {
                        out.push_str("NOT ");
                        self.note("LEX-008N");
                    }
                    // `10--2`: MySQL's minus minus (a comment needs a space after `--`); the target
                    // reads a comment.
                    "-" if wanted(self.profile, "LEX-004W")
                        && self.toks.get(i + 1).is_some_and(|n| {
                            n.start == self.toks[i].end && self.sql[n.start..n.end].starts_with('-')
                        }) =>
                    {
                        out.push_str("- ");
                        self.note("LEX-004W");
                    }
                    "<=>" if wanted(self.profile, "LEX-013") => {
                        out.push_str("IS NOT DISTINCT FROM");
                        self.note("LEX-013");
                    }
                    _ => out.push_str(&text),
                },
                TokenKind::Word
                    if wanted(self.profile, "CASE-001")
                        && self.declared_names.iter().any(|(w, _)| *w == text) =>
                {
                    let declared = self
                        .declared_names
                        .iter()
                        .find(|(w, _)| *w == text)
                        .map(|(_, d)| d.clone())
                        .unwrap_or_default();
                    out.push('"');
                    out.push_str(&declared);
                    out.push('"');
                    self.note(&format!("CASE-001:{text}"));
                }
                TokenKind::Word => {
                    if let Some((s, next)) = self.word(i, end) {
                        out.push_str(&s);
                        i = next;
                        continue;
                    }
                    out.push_str(&text);
                }
                _ => out.push_str(&text),
            }
            i += 1;
        }
        out
    }

    /// Translations that start at a word: (text, index after what was consumed).
    fn word(&mut self, i: usize, end: usize) -> Option<(String, usize)> {
        let w = self.text(i).to_ascii_uppercase();
        match w.as_str() {
            // LIMIT a, b → LIMIT b OFFSET a
            "LIMIT" if wanted(self.profile, "DML-001") => {
                let a = self.next_sig(i + 1, end)?;
                let comma = self.next_sig(a + 1, end)?;
                let b = self.next_sig(comma + 1, end)?;
                let is_val = |k: usize| {
                    matches!(
                        self.toks[k].kind,
                        TokenKind::Number | TokenKind::Placeholder
                    )
                };
                if is_val(a) && self.text(comma) == "," && is_val(b) {
                    self.note("DML-001");
                    return Some((
                        format!("LIMIT {} OFFSET {}", self.text(b), self.text(a)),
                        b + 1,
                    ));
                }
                None
            }
            // SET [SESSION] tx_isolation = 'REPEATABLE-READ' → SET SESSION CHARACTERISTICS AS …
            "SET" if i == self.next_sig(0, end)? => self
                .session_isolation(i, end)
                .or_else(|| {
                    wanted(self.profile, "CONN-003")
                        .then(|| self.session_charset(i, end))
                        .flatten()
                })
                .or_else(|| self.session_time_zone(i, end))
                .or_else(|| self.session_placeholder(i, end))
                .or_else(|| {
                    wanted(self.profile, "LEX-019")
                        .then(|| self.user_variable(i, end))
                        .flatten()
                })
                .or_else(|| self.session_wait_timeout(i, end)),
            "DO" if i == self.next_sig(0, end)? && wanted(self.profile, "ADM-001") => {
                self.do_statement(i, end)
            }
            "GROUP" if wanted(self.profile, "DML-012") => self.group_by_order(i, end),
            "SHOW" if i == self.next_sig(0, end)? && wanted(self.profile, "DML-022S") => {
                self.show_tables(i, end)
            }
            "UNLOCK" if i == self.next_sig(0, end)? && wanted(self.profile, "TXN-003") => {
                self.unlock_tables(i, end)
            }
            // START TRANSACTION WITH CONSISTENT SNAPSHOT → … ISOLATION LEVEL REPEATABLE READ (the
            // snapshot is taken at the first statement rather than at START).
            "START" if i == self.next_sig(0, end)? && wanted(self.profile, "TXN-007") => {
                let t = self.next_sig(i + 1, end)?;
                let k1 = self.next_sig(t + 1, end)?;
                let k2 = self.next_sig(k1 + 1, end)?;
                let k3 = self.next_sig(k2 + 1, end)?;
                if self.word_is(t, "TRANSACTION")
                    && self.word_is(k1, "WITH")
                    && self.word_is(k2, "CONSISTENT")
                    && self.word_is(k3, "SNAPSHOT")
                {
                    self.note("TXN-007");
                    return Some((
                        "START TRANSACTION ISOLATION LEVEL REPEATABLE READ".to_string(),
                        k3 + 1,
                    ));
                }
                None
            }
            "DATE_FORMAT" | "STR_TO_DATE" => self.date_format(i, end),
            "SUBSTRING_INDEX" | "TIMESTAMPDIFF" | "ADDDATE" | "SUBDATE" | "CONVERT_TZ" => {
                self.date_and_string_calls(i, end)
            }
            "CAST"
                if ["DML-017", "DML-017D", "DML-017C"]
                    .iter()
                    .any(|r| wanted(self.profile, r))
                    && self
                        .next_sig(i + 1, end)
                        .is_some_and(|k| self.text(k) == "(") =>
            {
                let open = self.next_sig(i + 1, end)?;
                self.cast(i, open, end)
            }
            "CONVERT"
                if wanted(self.profile, "DML-017V")
                    && self
                        .next_sig(i + 1, end)
                        .is_some_and(|k| self.text(k) == "(") =>
            {
                let open = self.next_sig(i + 1, end)?;
                self.convert(open, end)
            }
            // SELECT STRAIGHT_JOIN / SQL_NO_CACHE / …, INSERT LOW_PRIORITY, DELETE QUICK → dropped;
            // `a STRAIGHT_JOIN b` → `a JOIN b`.
            m if (MODIFIERS.contains(&m) || m == "QUICK") && wanted(self.profile, "DML-010") => {
                let p = self.prev_sig(i)?;
                let after_verb = ["SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE"]
                    .iter()
                    .chain(MODIFIERS)
                    .any(|v| self.word_is(p, v));
                if m == "QUICK" && !(self.word_is(p, "DELETE") || self.word_is(p, "LOW_PRIORITY")) {
                    return None;
                }
                self.note("DML-010");
                if after_verb {
                    // Drop the word and the space after it.
                    let next = self.next_sig(i + 1, end).unwrap_or(i + 1);
                    Some((String::new(), next))
                } else if m == "STRAIGHT_JOIN" {
                    Some(("JOIN".to_string(), i + 1))
                } else {
                    self.miss("DML-010");
                    None
                }
            }
            // LOCK IN SHARE MODE → FOR SHARE
            "LOCK" if wanted(self.profile, "DML-019") => {
                let k1 = self.next_sig(i + 1, end)?;
                let k2 = self.next_sig(k1 + 1, end)?;
                let k3 = self.next_sig(k2 + 1, end)?;
                if self.word_is(k1, "IN") && self.word_is(k2, "SHARE") && self.word_is(k3, "MODE") {
                    self.note("DML-019");
                    return Some(("FOR SHARE".to_string(), k3 + 1));
                }
                None
            }
            // FROM DUAL → nothing (unless more FROM items follow, which MySQL does not allow anyway)
            "FROM" if wanted(self.profile, "LEX-009") => {
                let d = self.next_sig(i + 1, end)?;
                if self.word_is(d, "DUAL") {
                    self.note("LEX-009");
                    return Some((String::new(), d + 1));
                }
                None
            }
            // USE|FORCE|IGNORE INDEX|KEY [FOR JOIN|ORDER BY|GROUP BY] (…) → nothing
            "USE" | "FORCE" | "IGNORE" if wanted(self.profile, "DML-009") => {
                let k = self.next_sig(i + 1, end)?;
                if !(self.word_is(k, "INDEX") || self.word_is(k, "KEY")) {
                    return None;
                }
                let mut open = self.next_sig(k + 1, end)?;
                if self.word_is(open, "FOR") {
                    let mut n = self.next_sig(open + 1, end)?;
                    if self.word_is(n, "ORDER") || self.word_is(n, "GROUP") {
                        n = self.next_sig(n + 1, end)?;
                    }
                    open = self.next_sig(n + 1, end)?;
                }
                if self.text(open) != "(" {
                    return None;
                }
                let close = self.matching(open, end)?;
                self.note("DML-009");
                Some((String::new(), close + 1))
            }
            // x REGEXP y → x ~* y (MySQL's REGEXP follows the collation: case-insensitive by default)
            "REGEXP" | "RLIKE" if wanted(self.profile, "LEX-014") => {
                self.note("LEX-014");
                Some(("~*".to_string(), i + 1))
            }
            "NOT" if wanted(self.profile, "LEX-014") => {
                let k = self.next_sig(i + 1, end)?;
                if self.word_is(k, "REGEXP") || self.word_is(k, "RLIKE") {
                    self.note("LEX-014");
                    return Some(("!~*".to_string(), k + 1));
                }
                None
            }
            // a MOD b → a % b (MOD(a, b) exists on the target)
            "MOD" if wanted(self.profile, "LEX-012") => {
                let k = self.next_sig(i + 1, end)?;
                if self.text(k) == "(" {
                    return None;
                }
                self.note("LEX-012");
                Some(("%".to_string(), i + 1))
            }
            // INTERVAL 3 DAY → INTERVAL '3 DAY'; INTERVAL ? DAY → (? * INTERVAL '1 DAY')
            "INTERVAL" if wanted(self.profile, "FN-INTERVAL") => {
                let n = self.next_sig(i + 1, end)?;
                let unit = self.next_sig(n + 1, end)?;
                let u = self.text(unit).to_ascii_uppercase();
                if !matches!(
                    u.as_str(),
                    "MICROSECOND"
                        | "SECOND"
                        | "MINUTE"
                        | "HOUR"
                        | "DAY"
                        | "WEEK"
                        | "MONTH"
                        | "QUARTER"
                        | "YEAR"
                ) {
                    return None;
                }
                let (amount, unit_text) = if u == "QUARTER" {
                    (3, "MONTH")
                } else {
                    (1, u.as_str())
                };
                let s = match self.toks[n].kind {
                    TokenKind::Number if amount == 1 => {
                        format!("INTERVAL '{} {unit_text}'", self.text(n))
                    }
                    TokenKind::Number => format!(
                        "INTERVAL '{} {unit_text}'",
                        self.text(n).parse::<f64>().ok()? * amount as f64
                    ),
                    TokenKind::Placeholder => {
                        format!("({} * INTERVAL '{amount} {unit_text}')", self.text(n))
                    }
                    TokenKind::String => {
                        let v = &self.text(n)[1..self.text(n).len() - 1];
                        if amount != 1
                            || !v
                                .trim()
                                .chars()
                                .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
                        {
                            return None;
                        }
                        format!("INTERVAL '{v} {unit_text}'")
                    }
                    _ => return None,
                };
                self.note("FN-INTERVAL");
                Some((s, unit + 1))
            }
            _ => self.function(i, end),
        }
    }
}

/// A MySQL string literal re-quoted the standard way: (text, changed). None when the value cannot be
/// written as a standard string (a NUL byte).
fn requote(lit: &str) -> Option<(String, bool)> {
    let (prefix, body) = if lit.starts_with(['N', 'n']) {
        (&lit[..1], &lit[1..])
    } else {
        ("", lit)
    };
    if body.len() < 2 {
        return None;
    }
    let q = body.as_bytes()[0] as char;
    let inner = &body[1..body.len() - 1];
    if q == '\'' && !inner.contains('\\') {
        return Some((lit.to_string(), false));
    }
    let mut value = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('0') => return None,
                Some('n') => value.push('\n'),
                Some('t') => value.push('\t'),
                Some('r') => value.push('\r'),
                Some('b') => value.push('\u{8}'),
                Some('Z') => value.push('\u{1a}'),
                // MySQL keeps the backslash before % and _ (they stay LIKE escapes).
                Some('%') => value.push_str("\\%"),
                Some('_') => value.push_str("\\_"),
                Some(o) => value.push(o),
                None => value.push('\\'),
            }
        } else if c == q && chars.peek() == Some(&q) {
            chars.next();
            value.push(q);
        } else {
            value.push(c);
        }
    }
    Some((format!("{prefix}'{}'", value.replace('\'', "''")), true))
}
