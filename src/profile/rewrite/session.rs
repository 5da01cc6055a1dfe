//! Session statements the token rewriter replaces whole: the transaction isolation level, the
//! time zone, the client character set, the idle timeout, the strict sql_mode and autocommit the
//! target always has, `DO`, `UNLOCK TABLES`, `SHOW TABLES` and `SET @variable`.

use super::{Writer, wanted};
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

    /// The variable a `SET` at `i` assigns and the token of its value, when the statement assigns
    /// that one variable and nothing else (an optional `;` may follow).
    fn lone_assignment(&self, i: usize, end: usize) -> Option<(String, usize)> {
        let (var, eq) = self.session_variable(i, end)?;
        let value = self.next_sig(eq + 1, end)?;
        if self
            .next_sig(value + 1, end)
            .is_some_and(|r| self.text(r) != ";")
        {
            return None;
        }
        Some((var, value))
    }

    /// `SET [SESSION] sql_mode = '…'` whose every mode is one the target always behaves as (strict
    /// writes, no zero dates, division by zero an error, full GROUP BY) → the value kept in the
    /// placeholder setting `mysql.sql_mode`: the statement changes nothing here, and the session can
    /// still read what it set. Modes that change how later statements read (ANSI_QUOTES,
    /// PIPES_AS_CONCAT, NO_BACKSLASH_ESCAPES) or relax checks are not translated: the audit reads
    /// every statement under MySQL's defaults.
    ///
    /// `SET [SESSION] autocommit = 1` → `SET mysql.autocommit = 1`: sessions here commit each
    /// statement outside BEGIN … COMMIT, which is what the statement asks for. (MySQL commits an open
    /// transaction only when autocommit was 0, and `SET autocommit = 0`, which has no equivalent
    /// here, is never translated, so no session reaches that state.)
    pub(super) fn session_placeholder(&mut self, i: usize, end: usize) -> Option<(String, usize)> {
        const TARGET_MODES: &[&str] = &[
            "STRICT_TRANS_TABLES",
            "STRICT_ALL_TABLES",
            "NO_ZERO_IN_DATE",
            "NO_ZERO_DATE",
            "ERROR_FOR_DIVISION_BY_ZERO",
            "NO_ENGINE_SUBSTITUTION",
            "NO_AUTO_CREATE_USER",
            "ONLY_FULL_GROUP_BY",
            "TRADITIONAL",
        ];
        let (var, value) = self.lone_assignment(i, end)?;
        let v = self.text(value).to_string();
        match var.as_str() {
            "sql_mode"
                if wanted(self.profile, "CONN-002")
                    && self.toks[value].kind == TokenKind::String
                    && v.len() >= 2
                    && v.starts_with('\'')
                    && v.ends_with('\'') =>
            {
                let modes = &v[1..v.len() - 1];
                let known = modes
                    .split(',')
                    .all(|m| TARGET_MODES.contains(&m.trim().to_ascii_uppercase().as_str()));
                if modes.trim().is_empty() || !known {
                    return None;
                }
                self.note("CONN-002:SQL_MODE");
                Some((format!("SET mysql.sql_mode = {v}"), value + 1))
            }
            "autocommit" if wanted(self.profile, "TXN-002") => {
                let on = v.trim_matches('\'').to_ascii_uppercase();
                if !matches!(on.as_str(), "1" | "ON" | "TRUE") {
                    return None;
                }
                self.note("TXN-002");
                Some(("SET mysql.autocommit = 1".to_string(), value + 1))
            }
            _ => None,
        }
    }

    /// `SET [SESSION] wait_timeout = N` → the target's idle timeouts, outside and inside a
    /// transaction (MySQL's applies to both), in one `DO` block.
    pub(super) fn session_wait_timeout(&mut self, i: usize, end: usize) -> Option<(String, usize)> {
        let (var, value) = self.lone_assignment(i, end)?;
        let seconds = self.text(value).to_string();
        if var != "wait_timeout"
            || !wanted(self.profile, "CONN-002")
            || self.toks[value].kind != TokenKind::Number
            || !seconds.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        self.note("CONN-002:WAIT_TIMEOUT");
        Some((
            format!(
                "DO $cutover_rw$ BEGIN PERFORM set_config('idle_session_timeout', '{seconds}s', false); \
                 PERFORM set_config('idle_in_transaction_session_timeout', '{seconds}s', false); END $cutover_rw$"
            ),
            value + 1,
        ))
    }

    /// `DO e1, e2` → `DO $cutover_rw$ BEGIN PERFORM e1; PERFORM e2; END $cutover_rw$`: both evaluate
    /// the expressions and discard the values. The expressions are translated like any others.
    pub(super) fn do_statement(&mut self, i: usize, end: usize) -> Option<(String, usize)> {
        let mut stop = end;
        while let Some(last) = self.prev_sig(stop) {
            if last <= i || self.text(last) != ";" {
                break;
            }
            stop = last;
        }
        let mut parts = Vec::new();
        let mut depth = 0i32;
        let mut start = i + 1;
        for k in i + 1..stop {
            if self.toks[k].kind == TokenKind::Punct {
                match self.text(k) {
                    "(" => depth += 1,
                    ")" => depth -= 1,
                    "," if depth == 0 => {
                        parts.push((start, k));
                        start = k + 1;
                    }
                    _ => {}
                }
            }
        }
        parts.push((start, stop));
        let mut body = String::new();
        for (a, b) in parts {
            let e = self.emit(a, b).trim().to_string();
            if e.is_empty() || e.contains("$cutover_rw$") {
                return None;
            }
            body.push_str(&format!("PERFORM {e}; "));
        }
        self.note("ADM-001:DO");
        Some((
            format!("DO $cutover_rw$ BEGIN {body}END $cutover_rw$"),
            stop,
        ))
    }

    /// `UNLOCK TABLES` → a `DO` block that does nothing: it releases the locks of `LOCK TABLES` (and
    /// `FLUSH TABLES WITH READ LOCK`), neither of which is translated, so a session here never holds
    /// one; nor is there an open LOCK TABLES transaction for it to commit.
    pub(super) fn unlock_tables(&mut self, i: usize, end: usize) -> Option<(String, usize)> {
        let t = self.next_sig(i + 1, end)?;
        if !(self.word_is(t, "TABLES") || self.word_is(t, "TABLE"))
            || self
                .next_sig(t + 1, end)
                .is_some_and(|r| self.text(r) != ";")
        {
            return None;
        }
        self.note("TXN-003:UNLOCK");
        Some(("DO $cutover_rw$ BEGIN END $cutover_rw$".to_string(), t + 1))
    }

    /// `SHOW TABLES [LIKE 'pattern']` → the current schema's tables and views from
    /// information_schema, in MySQL's order (by name, byte-wise).
    pub(super) fn show_tables(&mut self, i: usize, end: usize) -> Option<(String, usize)> {
        let k = self.next_sig(i + 1, end)?;
        if !self.word_is(k, "TABLES") {
            return None;
        }
        let mut last = k;
        let mut like = String::new();
        if let Some(l) = self
            .next_sig(k + 1, end)
            .filter(|&l| self.word_is(l, "LIKE"))
        {
            let p = self.next_sig(l + 1, end)?;
            let pattern = self.text(p);
            if self.toks[p].kind != TokenKind::String
                || !pattern.starts_with('\'')
                || pattern.contains('\\')
            {
                return None;
            }
            like = format!(" AND table_name LIKE {pattern}");
            last = p;
        }
        if self
            .next_sig(last + 1, end)
            .is_some_and(|r| self.text(r) != ";")
        {
            return None;
        }
        self.note("DML-022S");
        Some((
            format!(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() \
                 AND table_type IN ('BASE TABLE', 'VIEW'){like} ORDER BY table_name COLLATE \"C\""
            ),
            last + 1,
        ))
    }

    /// `SET @v = literal` (or `:=`) alone → the value kept in the placeholder setting
    /// `mysql_uservar.v`, where the session holds it as MySQL's does. Statements that read `@v` are
    /// not translated (the setting's value is text, where MySQL keeps the literal's type), so they
    /// stay errors rather than compare differently.
    pub(super) fn user_variable(&mut self, i: usize, end: usize) -> Option<(String, usize)> {
        let var = self.next_sig(i + 1, end)?;
        let name = self.text(var).strip_prefix('@')?.to_ascii_lowercase();
        if self.toks[var].kind != TokenKind::Variable
            || name.is_empty()
            || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            return None;
        }
        let eq = self.next_sig(var + 1, end)?;
        if !matches!(self.text(eq), "=" | ":=") {
            return None;
        }
        let mut value = self.next_sig(eq + 1, end)?;
        let negative = self.text(value) == "-";
        if negative {
            value = self.next_sig(value + 1, end)?;
        }
        if self
            .next_sig(value + 1, end)
            .is_some_and(|r| self.text(r) != ";")
        {
            return None;
        }
        let v = self.text(value);
        let text = match self.toks[value].kind {
            TokenKind::Number => format!("'{}{v}'", if negative { "-" } else { "" }),
            TokenKind::String if v.starts_with('\'') && !v.contains('\\') && !negative => {
                v.to_string()
            }
            _ => return None,
        };
        self.note("LEX-019:SET");
        Some((format!("SET mysql_uservar.{name} = {text}"), value + 1))
    }
}
