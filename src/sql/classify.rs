//! Quick facts about a statement from its tokens: what kind of statement it is, whether it can change
//! data, whether its rows come in a defined order, and which non-deterministic functions it calls.
//! Token-based on purpose: it must work on statements sqlparser cannot parse and stay cheap enough
//! for every event of a replay.

use super::keywords::eq_kw;
use super::lexer::{Lexer, Token, TokenKind};

/// What a statement does, by its leading keywords.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StatementClass {
    /// SELECT, WITH … SELECT, VALUES, TABLE, (SELECT …), EXPLAIN, DESCRIBE, SHOW, DO.
    Read,
    /// A SELECT that locks rows (`FOR UPDATE`, `LOCK IN SHARE MODE`, `FOR SHARE`) or assigns into
    /// variables/files (`INTO`).
    LockingRead,
    /// INSERT, UPDATE, DELETE, REPLACE, LOAD, MERGE, CALL, and WITH … UPDATE/DELETE.
    Write,
    /// CREATE, ALTER, DROP, RENAME, TRUNCATE, GRANT, REVOKE, and other schema or account changes.
    Ddl,
    /// BEGIN, START TRANSACTION, COMMIT, ROLLBACK, SAVEPOINT, RELEASE, XA, LOCK/UNLOCK TABLES.
    Transaction,
    /// SET, USE, and other session settings.
    Session,
    /// Server administration (FLUSH, KILL, RESET, OPTIMIZE, ANALYZE, …) and anything unknown.
    Other,
}

impl StatementClass {
    /// True for statements that cannot change stored data.
    pub fn is_read_only(self) -> bool {
        matches!(self, StatementClass::Read | StatementClass::Session)
    }
}

/// The tokens that carry meaning (no whitespace, comments, hints or version-comment markers).
pub fn significant(sql: &[u8]) -> impl Iterator<Item = Token> + '_ {
    Lexer::new(sql).filter(|t| {
        !matches!(
            t.kind,
            TokenKind::Whitespace
                | TokenKind::Comment
                | TokenKind::Hint
                | TokenKind::VersionCommentStart
                | TokenKind::VersionCommentEnd
        )
    })
}

/// Functions that change server state although they are called from a read: user-level locks
/// (taken from the application's own sessions otherwise) and sequences.
const SIDE_EFFECT_FUNCTIONS: &[&[u8]] = &[
    b"GET_LOCK",
    b"RELEASE_LOCK",
    b"RELEASE_ALL_LOCKS",
    b"NEXTVAL",
    b"SETVAL",
    b"PG_ADVISORY_LOCK",
    b"PG_ADVISORY_XACT_LOCK",
    b"PG_ADVISORY_LOCK_SHARED",
    b"PG_ADVISORY_XACT_LOCK_SHARED",
    b"PG_TRY_ADVISORY_LOCK",
    b"PG_TRY_ADVISORY_XACT_LOCK",
    b"PG_ADVISORY_UNLOCK",
    b"PG_ADVISORY_UNLOCK_ALL",
];

/// The statement's class. A read or setting that calls a function with side effects (`GET_LOCK`,
/// `NEXTVAL`, MariaDB's `NEXT VALUE FOR`) is a write.
pub fn classify(sql: &[u8]) -> StatementClass {
    let class = classify_by_keyword(sql);
    if matches!(
        class,
        StatementClass::Read | StatementClass::LockingRead | StatementClass::Session
    ) && has_side_effects(sql)
    {
        return StatementClass::Write;
    }
    class
}

fn has_side_effects(sql: &[u8]) -> bool {
    let toks: Vec<Token> = significant(sql).collect();
    toks.iter().enumerate().any(|(i, t)| {
        let w = t.text(sql);
        let next = |k: usize| toks.get(i + k).map(|n| n.text(sql)).unwrap_or_default();
        t.kind == TokenKind::Word
            && ((next(1) == b"(" && SIDE_EFFECT_FUNCTIONS.iter().any(|f| eq_kw(w, f)))
                || (eq_kw(w, b"NEXT") && eq_kw(next(1), b"VALUE") && eq_kw(next(2), b"FOR")))
    })
}

fn classify_by_keyword(sql: &[u8]) -> StatementClass {
    let toks: Vec<Token> = significant(sql).collect();
    let word = |i: usize| {
        toks.get(i)
            .filter(|t| t.kind == TokenKind::Word)
            .map(|t| t.text(sql))
    };
    let is = |i: usize, kw: &[u8]| word(i).is_some_and(|w| eq_kw(w, kw));
    let first = toks
        .iter()
        .position(|t| !(t.kind == TokenKind::Punct && t.text(sql) == b"("));
    let Some(f) = first else {
        return StatementClass::Other;
    };
    let kw = |k: &[u8]| is(f, k);
    if kw(b"SELECT") || kw(b"VALUES") || kw(b"TABLE") {
        return if locks_or_assigns(sql, &toks) {
            StatementClass::LockingRead
        } else {
            StatementClass::Read
        };
    }
    if kw(b"WITH") {
        // WITH … SELECT reads; WITH … UPDATE/DELETE/INSERT writes: find the first statement keyword at depth 0.
        let mut depth = 0i32;
        for t in &toks[f..] {
            let text = t.text(sql);
            match (t.kind, text) {
                (TokenKind::Punct, b"(") => depth += 1,
                (TokenKind::Punct, b")") => depth -= 1,
                (TokenKind::Word, w) if depth == 0 => {
                    if eq_kw(w, b"UPDATE")
                        || eq_kw(w, b"DELETE")
                        || eq_kw(w, b"INSERT")
                        || eq_kw(w, b"REPLACE")
                    {
                        return StatementClass::Write;
                    }
                    if eq_kw(w, b"SELECT") {
                        return if locks_or_assigns(sql, &toks) {
                            StatementClass::LockingRead
                        } else {
                            StatementClass::Read
                        };
                    }
                }
                _ => {}
            }
        }
        return StatementClass::Other;
    }
    if kw(b"SHOW") || kw(b"DESCRIBE") || kw(b"DESC") || kw(b"EXPLAIN") || kw(b"DO") || kw(b"HELP") {
        // EXPLAIN ANALYZE runs the statement.
        if kw(b"EXPLAIN") && (is(f + 1, b"ANALYZE")) {
            return classify_rest(sql, &toks, f + 2);
        }
        return StatementClass::Read;
    }
    if kw(b"INSERT")
        || kw(b"UPDATE")
        || kw(b"DELETE")
        || kw(b"REPLACE")
        || kw(b"LOAD")
        || kw(b"MERGE")
        || kw(b"CALL")
        || kw(b"UPSERT")
    {
        return StatementClass::Write;
    }
    if kw(b"CREATE")
        || kw(b"ALTER")
        || kw(b"DROP")
        || kw(b"RENAME")
        || kw(b"TRUNCATE")
        || kw(b"GRANT")
        || kw(b"REVOKE")
        || kw(b"COMMENT")
    {
        return StatementClass::Ddl;
    }
    if kw(b"BEGIN")
        || kw(b"START")
        || kw(b"COMMIT")
        || kw(b"ROLLBACK")
        || kw(b"SAVEPOINT")
        || kw(b"RELEASE")
        || kw(b"XA")
        || kw(b"LOCK")
        || kw(b"UNLOCK")
        || kw(b"END")
        || kw(b"ABORT")
    {
        return StatementClass::Transaction;
    }
    if kw(b"SET") {
        // MariaDB's `SET STATEMENT var = value, … FOR statement` does what its statement does.
        if is(f + 1, b"STATEMENT") {
            let mut depth = 0i32;
            for (i, t) in toks.iter().enumerate().skip(f + 2) {
                match (t.kind, t.text(sql)) {
                    (TokenKind::Punct, b"(") => depth += 1,
                    (TokenKind::Punct, b")") => depth -= 1,
                    (TokenKind::Word, w) if depth == 0 && eq_kw(w, b"FOR") => {
                        return classify_rest(sql, &toks, i + 1);
                    }
                    _ => {}
                }
            }
            return StatementClass::Other;
        }
        // Account changes, stored in the grant tables.
        if is(f + 1, b"PASSWORD") || (is(f + 1, b"DEFAULT") && is(f + 2, b"ROLE")) {
            return StatementClass::Ddl;
        }
        return StatementClass::Session;
    }
    if kw(b"USE") || kw(b"RESET") && is(f + 1, b"CONNECTION") {
        return StatementClass::Session;
    }
    StatementClass::Other
}

/// What a session statement (`SET`, `RESET CONNECTION`) would change beyond the session's own
/// settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingReach {
    /// Only this session's settings.
    Session,
    /// The server's (`SET GLOBAL`, `SET PERSIST`, `@@global.x`).
    Server,
    /// Would make a read-only session writable again (`SET TRANSACTION READ WRITE`,
    /// `transaction_read_only = 0`, `RESET CONNECTION`).
    LiftsReadOnly,
}

/// How far a session statement reaches. Token-based and conservative: a variable whose name mentions
/// `read_only` counts as lifting the guard.
pub fn setting_reach(sql: &[u8]) -> SettingReach {
    let toks: Vec<Token> = significant(sql).collect();
    let mut reach = SettingReach::Session;
    for (i, t) in toks.iter().enumerate() {
        let text = t.text(sql);
        let lower = text.to_ascii_lowercase();
        let system_var = t.kind == TokenKind::Variable && lower.starts_with(b"@@");
        if (t.kind == TokenKind::Word
            && (eq_kw(text, b"GLOBAL") || eq_kw(text, b"PERSIST") || eq_kw(text, b"PERSIST_ONLY")))
            || (system_var && (lower.starts_with(b"@@global.") || lower.starts_with(b"@@persist")))
        {
            return SettingReach::Server;
        }
        let next = toks.get(i + 1).map(|n| n.text(sql)).unwrap_or_default();
        if ((t.kind == TokenKind::Word || system_var)
            && memchr::memmem::find(&lower, b"read_only").is_some())
            || (eq_kw(text, b"READ") && eq_kw(next, b"WRITE"))
            || (i == 0 && eq_kw(text, b"RESET"))
        {
            reach = SettingReach::LiftsReadOnly;
        }
    }
    reach
}

fn classify_rest(sql: &[u8], toks: &[Token], from: usize) -> StatementClass {
    match toks.get(from) {
        Some(t) => classify_by_keyword(&sql[t.start..]),
        None => StatementClass::Other,
    }
}

/// `FOR UPDATE`, `FOR SHARE`, `LOCK IN SHARE MODE` or `INTO` at the top level of a SELECT.
fn locks_or_assigns(sql: &[u8], toks: &[Token]) -> bool {
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate() {
        let text = t.text(sql);
        match (t.kind, text) {
            (TokenKind::Punct, b"(") => depth += 1,
            (TokenKind::Punct, b")") => depth -= 1,
            (TokenKind::Word, w) if depth <= 0 => {
                let next = toks.get(i + 1).map(|n| n.text(sql)).unwrap_or_default();
                if (eq_kw(w, b"FOR") && (eq_kw(next, b"UPDATE") || eq_kw(next, b"SHARE")))
                    || (eq_kw(w, b"LOCK") && eq_kw(next, b"IN"))
                    || eq_kw(w, b"INTO")
                {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// True when the statement's result order is set by an ORDER BY at its top level (not one inside a
/// subquery or a window definition).
pub fn has_top_level_order_by(sql: &[u8]) -> bool {
    let toks: Vec<Token> = significant(sql).collect();
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate() {
        match (t.kind, t.text(sql)) {
            (TokenKind::Punct, b"(") => depth += 1,
            (TokenKind::Punct, b")") => depth -= 1,
            (TokenKind::Word, w)
                if depth == 0
                    && eq_kw(w, b"ORDER")
                    && toks.get(i + 1).is_some_and(|n| eq_kw(n.text(sql), b"BY")) =>
            {
                return true;
            }
            _ => {}
        }
    }
    false
}

/// Functions and keywords whose value changes from run to run or from server to server.
const NONDETERMINISTIC: &[&[u8]] = &[
    b"NOW",
    b"CURRENT_TIMESTAMP",
    b"CURRENT_TIME",
    b"CURRENT_DATE",
    b"CURDATE",
    b"CURTIME",
    b"SYSDATE",
    b"UTC_TIMESTAMP",
    b"UTC_DATE",
    b"UTC_TIME",
    b"LOCALTIME",
    b"LOCALTIMESTAMP",
    b"UNIX_TIMESTAMP",
    b"RAND",
    b"RANDOM",
    b"UUID",
    b"UUID_SHORT",
    b"SYS_GUID",
    b"GEN_RANDOM_UUID",
    b"CONNECTION_ID",
    b"LAST_INSERT_ID",
    b"ROW_COUNT",
    b"FOUND_ROWS",
    b"VERSION",
    b"USER",
    b"CURRENT_USER",
    b"SESSION_USER",
    b"SYSTEM_USER",
    b"DATABASE",
    b"SCHEMA",
    b"SLEEP",
    b"BENCHMARK",
    b"CLOCK_TIMESTAMP",
    b"STATEMENT_TIMESTAMP",
    b"TRANSACTION_TIMESTAMP",
    b"PG_BACKEND_PID",
];

/// The non-deterministic functions a statement uses (upper case, deduplicated), e.g. `["NOW", "RAND"]`.
/// Such statements are not comparable result by result between two servers.
pub fn nondeterministic_functions(sql: &[u8]) -> Vec<String> {
    let toks: Vec<Token> = significant(sql).collect();
    let mut out: Vec<String> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.kind != TokenKind::Word {
            continue;
        }
        let w = t.text(sql);
        let Some(name) = NONDETERMINISTIC.iter().find(|n| eq_kw(w, n)) else {
            continue;
        };
        // Keywords that are functions only when called, except the SQL-standard niladic ones.
        let called = toks
            .get(i + 1)
            .is_some_and(|n| n.kind == TokenKind::Punct && n.text(sql) == b"(");
        let niladic = matches!(
            *name,
            b"CURRENT_TIMESTAMP"
                | b"CURRENT_TIME"
                | b"CURRENT_DATE"
                | b"LOCALTIME"
                | b"LOCALTIMESTAMP"
                | b"CURRENT_USER"
                | b"SESSION_USER"
        );
        // `@@version` is a variable, `t.user` a column.
        let qualified = i > 0 && toks[i - 1].text(sql) == b".";
        if (called || niladic) && !qualified {
            let s = String::from_utf8_lossy(name).into_owned();
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use StatementClass::*;

    #[test]
    fn classes() {
        for (sql, class) in [
            ("SELECT 1", Read),
            ("(SELECT 1) UNION (SELECT 2)", Read),
            ("select * from t for update", LockingRead),
            ("SELECT * FROM t LOCK IN SHARE MODE", LockingRead),
            ("SELECT a INTO @x FROM t", LockingRead),
            ("WITH c AS (SELECT 1) SELECT * FROM c", Read),
            (
                "WITH c AS (SELECT 1) DELETE FROM t WHERE id IN (SELECT * FROM c)",
                Write,
            ),
            ("SHOW TABLES", Read),
            ("EXPLAIN SELECT 1", Read),
            ("/*!40101 SET NAMES utf8 */", Session),
            ("INSERT INTO t VALUES (1)", Write),
            ("REPLACE INTO t VALUES (1)", Write),
            ("CALL p()", Write),
            ("CREATE TABLE t (a INT)", Ddl),
            ("TRUNCATE t", Ddl),
            ("START TRANSACTION", Transaction),
            ("LOCK TABLES t WRITE", Transaction),
            ("SET autocommit = 0", Session),
            ("USE db", Session),
            ("FLUSH TABLES", Other),
            (
                "SET STATEMENT max_statement_time=1 FOR DELETE FROM t",
                Write,
            ),
            ("SET STATEMENT a=(1), b=2 FOR SELECT 1", Read),
            ("SET PASSWORD = PASSWORD('x')", Ddl),
            ("SET DEFAULT ROLE r FOR u", Ddl),
            ("SELECT GET_LOCK('app', 10)", Write),
            ("DO RELEASE_LOCK('app')", Write),
            ("SELECT NEXT VALUE FOR s", Write),
            ("SET @id = NEXTVAL(s)", Write),
            ("SELECT get_lock FROM t", Read),
        ] {
            assert_eq!(classify(sql.as_bytes()), class, "{sql}");
        }
    }

    #[test]
    fn setting_reaches() {
        use SettingReach::*;
        for (sql, reach) in [
            ("SET NAMES utf8mb4", Session),
            ("SET SESSION sql_mode = 'ANSI'", Session),
            ("SET @read = 1", Session),
            ("SET GLOBAL max_connections = 77", Server),
            ("SET @@global.max_connections = 77", Server),
            ("SET PERSIST x = 1", Server),
            ("SET SESSION TRANSACTION READ WRITE", LiftsReadOnly),
            (
                "SET TRANSACTION ISOLATION LEVEL READ COMMITTED, READ WRITE",
                LiftsReadOnly,
            ),
            ("SET transaction_read_only = 0", LiftsReadOnly),
            ("SET @@session.tx_read_only = OFF", LiftsReadOnly),
            (
                "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
                Session,
            ),
            ("RESET CONNECTION", LiftsReadOnly),
        ] {
            assert_eq!(setting_reach(sql.as_bytes()), reach, "{sql}");
        }
    }

    #[test]
    fn order_by_at_top_level_only() {
        assert!(has_top_level_order_by(b"SELECT a FROM t ORDER BY a"));
        assert!(has_top_level_order_by(
            b"SELECT a FROM t UNION SELECT b FROM u ORDER BY 1"
        ));
        assert!(!has_top_level_order_by(
            b"SELECT ROW_NUMBER() OVER (ORDER BY a) FROM t"
        ));
        assert!(!has_top_level_order_by(
            b"SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 3) x"
        ));
    }

    #[test]
    fn nondeterminism() {
        assert_eq!(
            nondeterministic_functions(b"SELECT NOW(), RAND(), id FROM t WHERE d < CURRENT_DATE"),
            vec!["NOW", "RAND", "CURRENT_DATE"]
        );
        assert!(nondeterministic_functions(b"SELECT user, version FROM t").is_empty());
        assert!(nondeterministic_functions(b"SELECT t.user() FROM t").is_empty());
        assert_eq!(
            nondeterministic_functions(b"SELECT @@version, VERSION()"),
            vec!["VERSION"]
        );
    }
}
