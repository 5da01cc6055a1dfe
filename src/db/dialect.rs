//! What differs between the engines cutover talks to, as data: one [`Dialect`] value per [`Engine`].
//!
//! The stages ask the dialect ("how is a name quoted here", "how does a read-only snapshot start",
//! "does an error abort the transaction") instead of matching on the engine themselves, so adding an
//! engine, or finding that KingbaseES needs another spelling, is a change in one place. What is
//! verify's own canonical format (the per-type text of a column) stays in verify; the SQL each engine
//! spells differently lives here.

use super::{DbError, Engine};

/// How a server handles MySQL's `SET autocommit = 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Autocommit {
    /// The server has the setting: the captured statement is sent as it is.
    Native,
    /// The server has no such setting (PostgreSQL): replay opens the transaction MySQL would have
    /// opened with an explicit `BEGIN` before the next statement, and commits it where MySQL would.
    EmulatedWithBegin,
}

/// One engine's spellings and behaviours.
#[derive(Debug)]
pub struct Dialect {
    pub engine: Engine,
    /// The character that quotes an identifier (a doubled one stands for itself inside).
    ident_quote: char,
    /// Unquoted names fold to lower case (PostgreSQL): cutover writes table and column names lower
    /// case there, as its DDL and pgloader create them.
    folds_to_lower: bool,
    /// MySQL: whether a backslash in a string literal is an escape depends on the session's
    /// sql_mode (NO_BACKSLASH_ESCAPES), so strings with backslashes or control bytes are written
    /// as hex. PostgreSQL: they are written as E'' strings, which read alike whatever
    /// standard_conforming_strings says.
    backslash_escapes: bool,
    /// Text values may hold a NUL byte (PostgreSQL's cannot).
    text_holds_nul: bool,
    /// Settings pinned on every session so that both sides print values alike.
    pub session_settings: &'static [&'static str],
    /// The server's version string.
    pub version_query: &'static str,
    /// Makes every later transaction of the session read-only (replay's `--mode reads` guard).
    pub read_only_session: &'static str,
    /// Starts the transaction `audit --live` works in: read-only on MySQL (DDL would commit there,
    /// so none is sent); a plain transaction on PostgreSQL, where DDL is transactional and every
    /// statement is rolled back to a savepoint.
    pub live_transaction: &'static str,
    /// Starts a consistent, read-only snapshot (verify).
    pub snapshot_begin: &'static str,
    /// Exports the snapshot so other sessions can share it, where the server can.
    pub export_snapshot: Option<&'static str>,
    /// Starts a transaction in a repair script.
    pub script_begin: &'static str,
    /// Settings at the top of a repair script, so that it reads the same whatever the client's
    /// defaults (its character set).
    pub script_preamble: &'static [&'static str],
    /// Counts the statements running on the server now, as (label, count) (verify's back-off).
    pub running_statements: &'static str,
    /// Queries that list the server's lock waits as (waiting connection id, holding connection id),
    /// tried in order until one runs (MariaDB and MySQL 5.7 keep the lock waits in information_schema, MySQL
    /// 8.0 in performance_schema). Replay asks it to tell a statement waiting for its turn from a
    /// cycle through a server lock (see replay's `gate`).
    pub lock_waiters: &'static [&'static str],
    /// The query that reads the session's own connection id, when the driver does not know it.
    pub connection_id_query: Option<&'static str>,
    /// Lists the columns of the tables the session's unqualified names reach, as (table, column,
    /// data type, character length, precision, scale, datetime precision, full column type or NULL,
    /// schema), in name-resolution order: on PostgreSQL every schema of the search_path, first
    /// first (pgloader puts a MySQL database's tables in a schema of its own and adds it to the
    /// database's search_path), so the first schema holding a table is the one the application
    /// reaches.
    pub columns_query: &'static str,
    /// Error codes (MySQL errno or SQLSTATE) meaning the connection is gone.
    pub lost_connection_codes: &'static [&'static str],
    pub autocommit: Autocommit,
    /// DDL runs inside a transaction and rolls back with it.
    pub transactional_ddl: bool,
    /// An error inside a transaction aborts it: nothing more runs until ROLLBACK (PostgreSQL).
    pub error_aborts_transaction: bool,
    /// The statement that starts a transaction, where the captured MySQL spelling
    /// (`START TRANSACTION READ WRITE`, `BEGIN WORK`, …) must be replaced; `None`: send as captured.
    pub begin: Option<&'static str>,
    /// The server knows `USE db`.
    pub has_use: bool,
    /// The server knows `LOCK TABLES`.
    pub has_lock_tables: bool,
    /// The server takes MySQL's `SET` variables.
    pub takes_mysql_settings: bool,
    /// The server keeps AUTO_INCREMENT past the highest id by itself (no sequence to reset).
    pub counters_follow_inserts: bool,
}

pub static MYSQL: Dialect = Dialect {
    engine: Engine::MySql,
    ident_quote: '`',
    folds_to_lower: false,
    backslash_escapes: true,
    text_holds_nul: true,
    session_settings: &["SET time_zone = '+00:00'"],
    version_query: "SELECT VERSION()",
    read_only_session: "SET SESSION TRANSACTION READ ONLY",
    live_transaction: "START TRANSACTION READ ONLY",
    snapshot_begin: "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY",
    export_snapshot: None,
    script_begin: "START TRANSACTION;",
    script_preamble: &["SET NAMES utf8mb4;"],
    running_statements: "SHOW GLOBAL STATUS LIKE 'Threads_running'",
    lock_waiters: &[
        "SELECT r.trx_mysql_thread_id, b.trx_mysql_thread_id FROM information_schema.INNODB_LOCK_WAITS w JOIN information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id JOIN information_schema.INNODB_TRX r ON r.trx_id = w.requesting_trx_id",
        "SELECT r.PROCESSLIST_ID, b.PROCESSLIST_ID FROM performance_schema.data_lock_waits w JOIN performance_schema.threads b ON b.THREAD_ID = w.BLOCKING_THREAD_ID JOIN performance_schema.threads r ON r.THREAD_ID = w.REQUESTING_THREAD_ID",
    ],
    connection_id_query: None,
    columns_query: "SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION, COLUMN_TYPE, TABLE_SCHEMA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()",
    // 2006 "server has gone away" and 2013 "lost connection during query" (client errors, as some
    // proxies report them), 1927 connection killed (MariaDB), 1053 server shutdown.
    lost_connection_codes: &["1927", "1053", "2006", "2013"],
    autocommit: Autocommit::Native,
    transactional_ddl: false,
    error_aborts_transaction: false,
    begin: None,
    has_use: true,
    has_lock_tables: true,
    takes_mysql_settings: true,
    counters_follow_inserts: true,
};

pub static POSTGRES: Dialect = Dialect {
    engine: Engine::Postgres,
    ident_quote: '"',
    folds_to_lower: true,
    backslash_escapes: false,
    text_holds_nul: false,
    session_settings: &[
        "SET TimeZone = 'UTC'",
        "SET DateStyle = 'ISO, YMD'",
        "SET IntervalStyle = 'postgres'",
        "SET bytea_output = 'hex'",
        "SET extra_float_digits = 1",
        // The bytea literals verify sends ('\x1f'::bytea) need it, whatever the server's default.
        "SET standard_conforming_strings = on",
    ],
    version_query: "SELECT version()",
    read_only_session: "SET default_transaction_read_only = on",
    live_transaction: "BEGIN",
    snapshot_begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
    export_snapshot: Some("SELECT pg_export_snapshot()"),
    script_begin: "BEGIN;",
    script_preamble: &[
        "SET client_encoding = 'UTF8';",
        "SET standard_conforming_strings = on;",
    ],
    running_statements: "SELECT 'active', count(*) FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid()",
    lock_waiters: &[
        "SELECT pid, unnest(pg_blocking_pids(pid)) FROM pg_stat_activity WHERE cardinality(pg_blocking_pids(pid)) > 0",
    ],
    connection_id_query: Some("SELECT pg_backend_pid()"),
    columns_query: "SELECT c.table_name, c.column_name, c.data_type, c.character_maximum_length, c.numeric_precision, c.numeric_scale, c.datetime_precision, NULL, c.table_schema FROM information_schema.columns c JOIN unnest(current_schemas(false)) WITH ORDINALITY AS s(name, pos) ON s.name = c.table_schema ORDER BY s.pos, c.table_name, c.ordinal_position",
    // admin_shutdown, crash_shutdown, cannot_connect_now.
    lost_connection_codes: &["57P01", "57P02", "57P03"],
    autocommit: Autocommit::EmulatedWithBegin,
    transactional_ddl: true,
    error_aborts_transaction: true,
    begin: Some("BEGIN"),
    has_use: false,
    has_lock_tables: false,
    takes_mysql_settings: false,
    counters_follow_inserts: false,
};

impl Engine {
    /// This engine's dialect.
    pub fn dialect(self) -> &'static Dialect {
        match self {
            Engine::MySql => &MYSQL,
            Engine::Postgres => &POSTGRES,
        }
    }
}

impl Dialect {
    /// A name quoted for this engine (lower-cased first where unquoted names fold to lower case,
    /// and quoted there only when it needs to be).
    pub fn quote(&self, name: &str) -> String {
        if self.folds_to_lower {
            return crate::schema::target::pg_ident(&name.to_lowercase());
        }
        let q = self.ident_quote;
        format!("{q}{}{q}", name.replace(q, &format!("{q}{q}")))
    }

    /// A string literal for this engine that reads the same under every session setting: no raw
    /// NUL or control byte, no backslash whose meaning depends on sql_mode or
    /// standard_conforming_strings. A string PostgreSQL text cannot hold (a NUL byte) is `NULL`
    /// here (a look-up then finds no row, which is the truth); repair scripts check
    /// [`Dialect::cannot_hold`] first and never write it.
    pub fn string_literal(&self, s: &str) -> String {
        if self.cannot_hold(s.as_bytes()).is_some() {
            return "NULL".into();
        }
        let awkward = |b: u8| b == b'\\' || (b < 0x20 && b != b'\t' && b != b'\n');
        if self.backslash_escapes {
            if s.bytes().any(awkward) {
                let hex: String = s.bytes().map(|b| format!("{b:02X}")).collect();
                return format!("_utf8mb4 X'{hex}'");
            }
            return format!("'{}'", s.replace('\'', "''"));
        }
        if s.bytes().any(awkward) {
            let mut out = String::with_capacity(s.len() + 3);
            out.push_str("E'");
            for c in s.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\'' => out.push_str("''"),
                    c if (c as u32) < 0x20 && c != '\t' && c != '\n' => {
                        out.push_str(&format!("\\x{:02X}", c as u32))
                    }
                    c => out.push(c),
                }
            }
            out.push('\'');
            return out;
        }
        format!("'{}'", s.replace('\'', "''"))
    }

    /// Why this engine's text cannot hold `s`, if it cannot (PostgreSQL text has no NUL byte).
    pub fn cannot_hold(&self, s: &[u8]) -> Option<&'static str> {
        (!self.text_holds_nul && s.contains(&0))
            .then_some("holds a NUL byte, which PostgreSQL text cannot store")
    }

    /// Joins text expressions with the unit separator (0x1F); a NULL argument is skipped.
    pub fn concat_with_unit_separator(&self, parts: &[String]) -> String {
        match self.engine {
            Engine::MySql => format!("CONCAT_WS(CHAR(31), {})", parts.join(", ")),
            Engine::Postgres => format!("concat_ws(chr(31), {})", parts.join(", ")),
        }
    }

    /// `'v' || text`, or `'N'` when the text is NULL.
    pub fn null_marked(&self, text: &str) -> String {
        match self.engine {
            Engine::MySql => format!("IFNULL(CONCAT('v', {text}), 'N')"),
            Engine::Postgres => format!("COALESCE('v' || {text}, 'N')"),
        }
    }

    /// The first `hex_digits` hex digits of the SHA-256 of `bytes`, as an unsigned integer.
    pub fn sha256_prefix(&self, bytes: &str, hex_digits: u32) -> String {
        match self.engine {
            Engine::MySql => format!(
                "CAST(CONV(SUBSTRING(SHA2({bytes}, 256), 1, {hex_digits}), 16, 10) AS UNSIGNED)"
            ),
            Engine::Postgres => format!(
                "('x' || left(encode(sha256({bytes}), 'hex'), {hex_digits}))::bit({})::bigint",
                hex_digits * 4
            ),
        }
    }

    /// Makes this session share a snapshot another session exported (`export_snapshot`).
    pub fn import_snapshot(&self, id: &str) -> Option<String> {
        self.export_snapshot?;
        Some(format!(
            "SET TRANSACTION SNAPSHOT '{}'",
            id.replace('\'', "")
        ))
    }

    /// The planner's row count and average row length of a table (one row, two columns).
    pub fn table_estimate(&self, table_name: &str, quoted_name: &str) -> String {
        match self.engine {
            Engine::MySql => format!(
                "SELECT TABLE_ROWS, AVG_ROW_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '{}'",
                table_name.replace('\'', "''")
            ),
            Engine::Postgres => format!(
                "SELECT reltuples::bigint, CASE WHEN reltuples > 0 THEN (pg_table_size(oid) / reltuples)::bigint END FROM pg_class WHERE oid = to_regclass('{}')",
                quoted_name.replace('\'', "''")
            ),
        }
    }

    /// Deletes `copies` of the rows matching `cond` (duplicates are indistinguishable, so exactly the
    /// surplus copies go).
    pub fn delete_copies(&self, table: &str, cond: &str, copies: u64) -> String {
        match self.engine {
            Engine::Postgres => format!(
                "DELETE FROM {table} WHERE ctid IN (SELECT ctid FROM {table} WHERE {cond} LIMIT {copies})"
            ),
            Engine::MySql => format!("DELETE FROM {table} WHERE {cond} LIMIT {copies}"),
        }
    }

    /// The error means the connection is gone.
    pub fn lost_connection(&self, e: &DbError) -> bool {
        matches!(e, DbError::Io { .. })
            || e.code()
                .is_some_and(|c| self.lost_connection_codes.contains(&c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_and_literals_follow_the_engine() {
        assert_eq!(MYSQL.quote("a`b"), "`a``b`");
        assert_eq!(POSTGRES.quote("Order"), "\"order\"");
        assert_eq!(POSTGRES.quote("city"), "city");
        assert_eq!(MYSQL.string_literal("it's"), "'it''s'");
        assert_eq!(MYSQL.string_literal(r"a\b"), "_utf8mb4 X'615C62'");
        assert_eq!(MYSQL.string_literal("a\0b"), "_utf8mb4 X'610062'");
        assert_eq!(POSTGRES.string_literal(r"it's a\b"), r"E'it''s a\\b'");
        assert_eq!(POSTGRES.string_literal("a\rb"), r"E'a\x0Db'");
        assert_eq!(POSTGRES.string_literal("a\0b"), "NULL");
        assert_eq!(POSTGRES.string_literal("line\nnext"), "'line\nnext'");
        assert!(POSTGRES.cannot_hold(b"a\0").is_some() && MYSQL.cannot_hold(b"a\0").is_none());
    }

    #[test]
    fn lost_connection_codes_belong_to_their_engine() {
        let server = |code: &str| DbError::Server {
            endpoint: "x".into(),
            code: code.into(),
            message: String::new(),
        };
        assert!(MYSQL.lost_connection(&server("2013")));
        assert!(!MYSQL.lost_connection(&server("57P01")));
        assert!(POSTGRES.lost_connection(&server("57P01")));
        assert!(!POSTGRES.lost_connection(&server("1064")));
        assert!(POSTGRES.import_snapshot("00000003-1").is_some());
        assert!(MYSQL.import_snapshot("x").is_none());
    }
}
