//! Session statements the token rewriter replaces whole: the transaction isolation level, the
//! time zone and the client character set.

use super::Writer;
use crate::sql::lexer::TokenKind;

impl Writer<'_> {
    /// The variable a `SET` at `i` assigns (lower case, without `SESSION`/`LOCAL` or the
    /// `@@session.`/`@@local.`/`@@` prefix), and the index of its `=` or `:=`. The lexer may give
    /// `@@session.tx_isolation` as one token or as `@@session`, `.`, `tx_isolation`: the variable
    /// is every token up to the `=`.
    fn session_variable(&self, i: usize, end: usize) -> Option<(String, usize)> {
        let mut k = self.next_sig(i + 1, end)?;
        if self.word_is(k, "SESSION") || self.word_is(k, "LOCAL") {
            k = self.next_sig(k + 1, end)?;
        }
        let mut var = String::new();
        let mut eq = k;
        while !matches!(self.text(eq), "=" | ":=") {
            var.push_str(&self.text(eq).to_ascii_lowercase());
            eq = self.next_sig(eq + 1, end)?;
        }
        let name = var
            .strip_prefix("@@session.")
            .or_else(|| var.strip_prefix("@@local."))
            .or_else(|| var.strip_prefix("@@"))
            .unwrap_or(&var)
            .to_string();
        Some((name, eq))
    }

    /// `SET [SESSION|LOCAL] tx_isolation|transaction_isolation = 'LEVEL'` (also `@@session.…`, `@@…`)
    /// as the whole statement: PostgreSQL's session default for later transactions, which is what the
    /// MySQL variable sets. `SET GLOBAL …` is left alone (a server setting, not the application's).
    pub(super) fn session_isolation(&mut self, i: usize, end: usize) -> Option<(String, usize)> {
        let (var, eq) = self.session_variable(i, end)?;
        let var = var.as_str();
        if var != "tx_isolation" && var != "transaction_isolation" {
            return None;
        }
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

    /// `SET [SESSION] time_zone = '+02:00' | 'Europe/Paris' | 'SYSTEM'` (alone in its statement) →
    /// `SET TIME ZONE INTERVAL '+02:00' HOUR TO MINUTE` (an offset keeps its sign: a POSIX string
    /// would invert it), `SET TIME ZONE 'Europe/Paris'`, `SET TIME ZONE LOCAL`.
    pub(super) fn session_time_zone(&mut self, i: usize, end: usize) -> Option<(String, usize)> {
        let (var, eq) = self.session_variable(i, end)?;
        if var != "time_zone" {
            return None;
        }
        let value = self.next_sig(eq + 1, end)?;
        if self.toks[value].kind != TokenKind::String {
            return None;
        }
        if self
            .next_sig(value + 1, end)
            .is_some_and(|r| self.text(r) != ";")
        {
            return None;
        }
        let v = self.text(value);
        if v.len() < 2 {
            return None;
        }
        let v = &v[1..v.len() - 1];
        let b = v.as_bytes();
        let offset = b.len() == 6
            && matches!(b[0], b'+' | b'-')
            && b[1..3].iter().all(u8::is_ascii_digit)
            && b[3] == b':'
            && b[4..6].iter().all(u8::is_ascii_digit);
        let out = if offset {
            format!("SET TIME ZONE INTERVAL '{v}' HOUR TO MINUTE")
        } else if v.eq_ignore_ascii_case("SYSTEM") {
            "SET TIME ZONE LOCAL".to_string()
        } else if !v.is_empty()
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+'))
        {
            format!("SET TIME ZONE '{v}'")
        } else {
            return None;
        };
        self.note("CONN-002:TIME_ZONE");
        Some((out, value + 1))
    }

    /// `SET NAMES utf8mb4` / `SET CHARACTER SET utf8mb4` (also utf8, utf8mb3) as the whole statement:
    /// the client encoding, which is what they set for the session.
    pub(super) fn session_charset(&mut self, i: usize, end: usize) -> Option<(String, usize)> {
        let k = self.next_sig(i + 1, end)?;
        let cs = if self.word_is(k, "NAMES") {
            self.next_sig(k + 1, end)?
        } else if self.word_is(k, "CHARACTER") {
            let s = self.next_sig(k + 1, end)?;
            if !self.word_is(s, "SET") {
                return None;
            }
            self.next_sig(s + 1, end)?
        } else if self.word_is(k, "CHARSET") {
            self.next_sig(k + 1, end)?
        } else {
            return None;
        };
        let name = self
            .text(cs)
            .trim_matches(['\'', '"', '`'])
            .to_ascii_lowercase();
        if !matches!(name.as_str(), "utf8" | "utf8mb4" | "utf8mb3") {
            return None;
        }
        let mut after = cs + 1;
        let mut rest = self.next_sig(after, end);
        // `COLLATE utf8mb4_…` sets the collation of the session's literals: the target has no
        // such setting (columns keep theirs), so only the encoding carries over.
        if let Some(c) = rest.filter(|&c| self.word_is(c, "COLLATE")) {
            let coll = self.next_sig(c + 1, end)?;
            if !self
                .text(coll)
                .trim_matches(['\'', '"', '`'])
                .to_ascii_lowercase()
                .starts_with("utf8")
            {
                return None;
            }
            after = coll + 1;
            rest = self.next_sig(after, end);
            self.note("CONN-003:COLLATE");
        }
        if rest.is_some_and(|r| self.text(r) != ";") {
            return None;
        }
        self.note("CONN-003");
        Some(("SET client_encoding = 'UTF8'".to_string(), after))
    }
}
