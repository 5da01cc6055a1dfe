//! Mechanical rewrites: the MySQL-isms a target rejects that can be translated token by token without
//! knowing the data (backticks, double-quoted strings, backslash escapes, `LIMIT a, b`, `&&`, `<=>`,
//! `LOCK IN SHARE MODE`, index hints, `FROM DUAL`, `INTERVAL 1 DAY`, and the function calls the
//! profile gives a template for, such as `IFNULL(a, b)` → `COALESCE(a, b)`).
//!
//! The rewriter works on the byte lexer's tokens and keeps everything it does not translate exactly as
//! written (comments, spacing, case). A rewrite is `complete` when every error-level finding of the
//! statement is one the rewriter translated; replay sends only complete rewrites and lists the rest.
//! Whether the rewrite really runs on the target is for `--live` to say.

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
    let mut w = Writer {
        sql,
        toks: Lexer::new(sql.as_bytes()).collect(),
        profile,
        applied: Vec::new(),
    };
    let out = w.emit(0, w.toks.len());
    if out == sql {
        return None;
    }
    let applied = w.applied;
    let complete = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .all(|f| {
            TRANSLATED.contains(&f.rule.as_str())
                || (f.rule == "DML-016" && applied.iter().any(|a| a.ends_with(":ISNULL")))
                || (f.rule == "CONN-002" && applied.iter().any(|a| a.starts_with("CONN-002:")))
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
                    "||" if wanted(self.profile, "LEX-007") || wanted(self.profile, "LEX-007E") => {
                        out.push_str("OR");
                        self.note("LEX-007");
                    }
                    "!" if wanted(self.profile, "LEX-008N") => {
                        out.push_str("NOT ");
                        self.note("LEX-008N");
                    }
                    "<=>" if wanted(self.profile, "LEX-013") => {
                        out.push_str("IS NOT DISTINCT FROM");
                        self.note("LEX-013");
                    }
                    _ => out.push_str(&text),
                },
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
            "SET" if i == self.next_sig(0, end)? => self.session_isolation(i, end),
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

    /// `SET [SESSION|LOCAL] tx_isolation|transaction_isolation = 'LEVEL'` (also `@@session.…`, `@@…`)
    /// as the whole statement: PostgreSQL's session default for later transactions, which is what the
    /// MySQL variable sets. `SET GLOBAL …` is left alone (a server setting, not the application's).
    fn session_isolation(&mut self, i: usize, end: usize) -> Option<(String, usize)> {
        let mut k = self.next_sig(i + 1, end)?;
        if self.word_is(k, "SESSION") || self.word_is(k, "LOCAL") {
            k = self.next_sig(k + 1, end)?;
        }
        let var = self.text(k).to_ascii_lowercase();
        let var = var
            .strip_prefix("@@session.")
            .or_else(|| var.strip_prefix("@@local."))
            .or_else(|| var.strip_prefix("@@"))
            .unwrap_or(&var);
        if var != "tx_isolation" && var != "transaction_isolation" {
            return None;
        }
        let eq = self.next_sig(k + 1, end)?;
        let value = self.next_sig(eq + 1, end)?;
        if !matches!(self.text(eq), "=" | ":=") || self.toks[value].kind != TokenKind::String {
            return None;
        }
        // Nothing but an optional `;` may follow: several assignments are not translated.
        let rest = self.next_sig(value + 1, end);
        if rest.is_some_and(|r| self.text(r) != ";") {
            return None;
        }
        let v = self.text(value);
        let level = v[1..v.len() - 1]
            .trim()
            .to_ascii_uppercase()
            .replace('-', " ");
        if !matches!(
            level.as_str(),
            "READ UNCOMMITTED" | "READ COMMITTED" | "REPEATABLE READ" | "SERIALIZABLE"
        ) {
            return None;
        }
        self.note(&format!("CONN-002:{}", var.to_ascii_uppercase()));
        Some((
            format!("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL {level}"),
            value + 1,
        ))
    }

    /// A call of a function the profile gives a template for.
    fn function(&mut self, i: usize, end: usize) -> Option<(String, usize)> {
        let name = self.text(i).to_ascii_uppercase();
        let m = self.profile.function(&name)?;
        let templates = m.template.as_ref()?;
        let open = i + 1;
        if open >= end || self.text(open) != "(" {
            return None;
        }
        let close = self.matching(open, end)?;
        // Split the arguments at top-level commas.
        let mut args: Vec<(usize, usize)> = Vec::new();
        let mut depth = 0;
        let mut start = open + 1;
        for k in open + 1..close {
            if self.toks[k].kind == TokenKind::Punct {
                match self.text(k) {
                    "(" => depth += 1,
                    ")" => depth -= 1,
                    "," if depth == 0 => {
                        args.push((start, k));
                        start = k + 1;
                    }
                    _ => {}
                }
            }
        }
        if (open + 1..close).any(|k| self.is_sig(k)) {
            args.push((start, close));
        }
        let template = templates
            .get(&args.len().to_string())
            .or_else(|| templates.get("*"))?
            .clone();
        let rendered: Vec<String> = args
            .iter()
            .map(|&(a, b)| self.emit(a, b).trim().to_string())
            .collect();
        let mut s = template.clone();
        s = s.replace("$*", &rendered.join(", "));
        for (n, a) in rendered.iter().enumerate().rev() {
            s = s.replace(&format!("${}", n + 1), a);
        }
        let rule = match m.status.as_deref() {
            Some("missing") => "FN-MISSING",
            Some("syntax") => "FN-SYNTAX",
            _ => "FN-DIFFERS",
        };
        self.note(&format!("{rule}:{name}"));
        Some((s, close + 1))
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
