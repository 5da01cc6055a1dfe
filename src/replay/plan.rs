//! What to do with each captured statement, decided once per fingerprint: whether the mode lets it be
//! sent, how its results compare (multiset, ordered with ties, or not at all), and what the target
//! side sends (the statement, its rewrite, a translation of session and transaction control, or
//! nothing).

use crate::db::Engine;
use crate::sql::classify::{
    SettingReach, StatementClass, classify, has_top_level_order_by, nondeterministic_functions,
    setting_reach,
};
use crate::sql::keywords::eq_kw;
use crate::sql::lexer::{Lexer, Token, TokenKind};
use crate::sql::single::{Lexicon, second_statement};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Which statements a replay sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Only statements that cannot change data (plain reads and session settings): safe while the
    /// application double-writes.
    Reads,
    /// Writes and transactions too: for a restored copy of the source and a target loaded from it.
    All,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Reads => "reads",
            Mode::All => "all",
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Mode, String> {
        match s {
            "reads" => Ok(Mode::Reads),
            "all" => Ok(Mode::All),
            other => Err(format!("unknown mode {other:?}: reads or all")),
        }
    }
}

/// How two results of a statement compare.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "how", rename_all = "snake_case")]
pub enum CompareMode {
    /// Rows in any order.
    Multiset,
    /// Rows in order, except among rows tied on the ORDER BY keys (result column positions).
    Ordered { keys: Vec<usize> },
    /// ORDER BY keys that are not plain result columns: rows compare as a multiset, order unchecked.
    OrderUnchecked,
    /// Results legitimately differ between runs.
    NotComparable { reason: String },
}

/// The plan for one fingerprint.
#[derive(Clone, Debug)]
pub struct StatementPlan {
    pub class: StatementClass,
    pub compare: CompareMode,
    /// Why the mode does not send it, if it does not.
    pub skip: Option<SkipReason>,
    /// Session or transaction control, and what it does.
    pub control: Control,
    /// ORDER BY items written as result column names or positions, resolved per result.
    pub order_items: Vec<OrderItem>,
    /// Tables the statement reads and writes (lower case, without the database), to tell races
    /// between concurrent sessions from real differences.
    pub tables_read: Vec<String>,
    pub tables_written: Arc<Vec<String>>,
    /// Leaves state on the connection that replaying `USE`/`SET` cannot restore: the session keeps
    /// its connection however long it idles.
    pub pins_session: bool,
    /// Reads the server's clock (`NOW()`, `CURRENT_TIMESTAMP`, …, not `SYSDATE()`): in `--mode all`
    /// a MySQL-family side first sets the session's `timestamp` to the statement's recorded time, so
    /// rows written with it are the same on both sides (and as captured).
    pub uses_clock: bool,
    /// `INSERT … ON DUPLICATE KEY UPDATE`: MySQL counts an updated row as 2 affected rows and an
    /// unchanged one as 0, where an `ON CONFLICT` rewrite counts each 1 (see the comparator).
    pub upsert: bool,
}

/// Tables after FROM/JOIN (read) and after UPDATE, INSERT/REPLACE INTO, DELETE FROM (written).
pub fn tables(sql: &[u8]) -> (Vec<String>, Vec<String>) {
    let toks = significant(sql);
    let w = |i: usize| toks.get(i).map(|t| t.text(sql)).unwrap_or(b"");
    let name_at = |i: usize| -> Option<String> {
        let t = toks.get(i)?;
        if !matches!(t.kind, TokenKind::Word | TokenKind::QuotedIdent) {
            return None;
        }
        let mut n = name_of(t.text(sql));
        if w(i + 1) == b"." {
            n = toks.get(i + 2).map(|x| name_of(x.text(sql)))?;
        }
        let n = n.to_lowercase();
        (!matches!(n.as_str(), "select" | "dual" | "lateral")).then_some(n)
    };
    let (mut r, mut wr) = (Vec::new(), Vec::new());
    let first = w(0);
    for i in 0..toks.len() {
        let x = w(i);
        if (eq_kw(x, b"FROM") || eq_kw(x, b"JOIN"))
            && let Some(n) = name_at(i + 1)
        {
            if eq_kw(first, b"DELETE") && eq_kw(x, b"FROM") {
                wr.push(n.clone());
            }
            r.push(n);
        }
        if (eq_kw(x, b"INTO") && (eq_kw(first, b"INSERT") || eq_kw(first, b"REPLACE")))
            || (i == 0 && eq_kw(x, b"UPDATE"))
        {
            let mut k = i + 1;
            while matches!(
                w(k).to_ascii_uppercase().as_slice(),
                b"LOW_PRIORITY" | b"IGNORE"
            ) {
                k += 1;
            }
            if let Some(n) = name_at(k) {
                wr.push(n);
            }
        }
    }
    r.sort();
    r.dedup();
    wr.sort();
    wr.dedup();
    (r, wr)
}

/// Statements the replayer interprets rather than just sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    None,
    Begin,
    Commit,
    Rollback,
    /// `SET autocommit = 0|1`.
    Autocommit(bool),
    /// `USE db`.
    Use,
    /// `LOCK TABLES` / `UNLOCK TABLES`.
    LockTables,
    /// Any other `SET`.
    Set,
}

/// An ORDER BY item as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OrderItem {
    Column(String),
    Position(usize),
    Expression,
}

fn significant(sql: &[u8]) -> Vec<Token> {
    crate::sql::classify::significant(sql).collect()
}

/// The control meaning of a statement.
pub fn control_of(sql: &[u8]) -> Control {
    let toks = significant(sql);
    let w = |i: usize| toks.get(i).map(|t| t.text(sql)).unwrap_or(b"");
    let first = w(0);
    if eq_kw(first, b"BEGIN") && toks.len() <= 2
        || eq_kw(first, b"START") && eq_kw(w(1), b"TRANSACTION")
    {
        Control::Begin
    } else if eq_kw(first, b"COMMIT") {
        Control::Commit
    } else if eq_kw(first, b"ROLLBACK") && !toks.iter().any(|t| eq_kw(t.text(sql), b"TO")) {
        Control::Rollback
    } else if eq_kw(first, b"USE") {
        Control::Use
    } else if (eq_kw(first, b"LOCK") || eq_kw(first, b"UNLOCK"))
        && (eq_kw(w(1), b"TABLES") || eq_kw(w(1), b"TABLE"))
    {
        Control::LockTables
    } else if eq_kw(first, b"SET") {
        let mut i = 1;
        if eq_kw(w(i), b"SESSION") || eq_kw(w(i), b"LOCAL") || w(i) == b"@@session" {
            i += 1;
        }
        let name = w(i);
        let name = name.strip_prefix(b"@@").unwrap_or(name);
        let name = name.strip_prefix(b"session.").unwrap_or(name);
        if eq_kw(name, b"AUTOCOMMIT") && toks.len() == i + 3 {
            let v = w(i + 2);
            return Control::Autocommit(v == b"1" || eq_kw(v, b"ON") || eq_kw(v, b"TRUE"));
        }
        Control::Set
    } else {
        Control::None
    }
}

/// Top-level ORDER BY items.
pub fn order_items(sql: &[u8]) -> Vec<OrderItem> {
    let toks = significant(sql);
    let mut depth = 0i32;
    let mut start = None;
    for (i, t) in toks.iter().enumerate() {
        match (t.kind, t.text(sql)) {
            (TokenKind::Punct, b"(") => depth += 1,
            (TokenKind::Punct, b")") => depth -= 1,
            (TokenKind::Word, w)
                if depth == 0
                    && eq_kw(w, b"ORDER")
                    && toks.get(i + 1).is_some_and(|n| eq_kw(n.text(sql), b"BY")) =>
            {
                start = Some(i + 2)
            }
            _ => {}
        }
    }
    let Some(start) = start else {
        return Vec::new();
    };
    let mut items = Vec::new();
    let mut cur: Vec<Token> = Vec::new();
    let mut depth = 0;
    let finish = |cur: &mut Vec<Token>, items: &mut Vec<OrderItem>| {
        let mut parts: Vec<&Token> = cur.iter().collect();
        if parts
            .last()
            .is_some_and(|t| eq_kw(t.text(sql), b"ASC") || eq_kw(t.text(sql), b"DESC"))
        {
            parts.pop();
        }
        let item = match parts.as_slice() {
            [t] if t.kind == TokenKind::Number => t
                .text(sql)
                .iter()
                .try_fold(0usize, |a, &d| {
                    if d.is_ascii_digit() {
                        Some(a * 10 + (d - b'0') as usize)
                    } else {
                        None
                    }
                })
                .map_or(OrderItem::Expression, OrderItem::Position),
            [t] if matches!(t.kind, TokenKind::Word | TokenKind::QuotedIdent) => {
                OrderItem::Column(name_of(t.text(sql)))
            }
            [_, dot, t]
                if dot.text(sql) == b"."
                    && matches!(t.kind, TokenKind::Word | TokenKind::QuotedIdent) =>
            {
                OrderItem::Column(name_of(t.text(sql)))
            }
            _ => OrderItem::Expression,
        };
        items.push(item);
        cur.clear();
    };
    for t in toks.into_iter().skip(start) {
        let txt = t.text(sql);
        match (t.kind, txt) {
            (TokenKind::Punct, b"(") => depth += 1,
            (TokenKind::Punct, b")") => depth -= 1,
            _ => {}
        }
        if depth == 0
            && (t.kind == TokenKind::Word
                && (eq_kw(txt, b"LIMIT")
                    || eq_kw(txt, b"FOR")
                    || eq_kw(txt, b"LOCK")
                    || eq_kw(txt, b"OFFSET"))
                || txt == b";")
        {
            break;
        }
        if depth == 0 && txt == b"," {
            finish(&mut cur, &mut items);
        } else {
            cur.push(t);
        }
    }
    if !cur.is_empty() {
        finish(&mut cur, &mut items);
    }
    items
}

/// A table or column name as written (quoted or not), as text.
fn name_of(token: &[u8]) -> String {
    String::from_utf8_lossy(&crate::sql::lexer::unquote(token)).into_owned()
}

fn has_limit(sql: &[u8]) -> bool {
    let toks = significant(sql);
    let mut depth = 0;
    toks.iter().any(|t| {
        match t.text(sql) {
            b"(" => depth += 1,
            b")" => depth -= 1,
            _ => {}
        }
        depth == 0 && t.kind == TokenKind::Word && eq_kw(t.text(sql), b"LIMIT")
    })
}

/// Why a statement was not sent to a side: a stable id in JSON (`write_in_reads_mode`), a sentence for
/// people ([`SkipReason::message`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// The text reads as several statements under some session setting.
    SeveralStatements,
    Administration,
    SetGlobal,
    /// `SET TRANSACTION READ WRITE`, `transaction_read_only = 0`, `RESET CONNECTION` in reads mode.
    WouldMakeSessionWritable,
    TransactionSettingInReadsMode,
    LockingReadInReadsMode,
    WriteInReadsMode,
    DdlInReadsMode,
    TransactionControlInReadsMode,
    /// `USE`, when the side's URL names the database.
    UseUrlNamesDatabase,
    UseOnPostgres,
    LockTablesOnPostgres,
    MysqlSettingOnPostgres,
    /// `SET autocommit`, emulated with BEGIN/COMMIT on PostgreSQL-protocol targets.
    AutocommitEmulated,
    /// The COMMIT or ROLLBACK of a transaction the target aborted after an error.
    EndOfAbortedTransaction,
    /// A statement inside a transaction the target aborted after an error.
    InsideAbortedTransaction,
    /// `LOAD DATA LOCAL INFILE`: the client sent a file of its own machine, which replay does not
    /// have.
    LocalInfile,
}

impl SkipReason {
    pub fn message(self) -> &'static str {
        use SkipReason::*;
        match self {
            SeveralStatements => "several statements in one text (never replayed)",
            Administration => "administration statement (never replayed)",
            SetGlobal => "SET GLOBAL (never replayed)",
            WouldMakeSessionWritable => {
                "setting that would make the session writable (--mode reads)"
            }
            TransactionSettingInReadsMode => "transaction setting (--mode reads)",
            LockingReadInReadsMode => "locking read (--mode reads)",
            WriteInReadsMode => "write (--mode reads)",
            DdlInReadsMode => "DDL (--mode reads)",
            TransactionControlInReadsMode => "transaction control (--mode reads)",
            UseUrlNamesDatabase => "USE (the URL names the database)",
            UseOnPostgres => "USE has no PostgreSQL equivalent",
            LockTablesOnPostgres => "LOCK TABLES has no PostgreSQL equivalent",
            MysqlSettingOnPostgres => "MySQL session setting",
            AutocommitEmulated => "SET autocommit (emulated with BEGIN/COMMIT)",
            EndOfAbortedTransaction => "end of a transaction the target aborted after an error",
            InsideAbortedTransaction => "inside a transaction the target aborted after an error",
            LocalInfile => "LOAD DATA LOCAL INFILE (the file was on the application's machine)",
        }
    }
}

/// `LOAD DATA [LOW_PRIORITY | CONCURRENT] LOCAL INFILE …`.
fn is_local_infile(sql: &[u8]) -> bool {
    let mut words = Lexer::new(sql)
        .filter(|t| t.kind == TokenKind::Word)
        .map(|t| t.text(sql))
        .take(5);
    if !(words.next().is_some_and(|w| eq_kw(w, b"LOAD"))
        && words.next().is_some_and(|w| eq_kw(w, b"DATA")))
    {
        return false;
    }
    let rest: Vec<&[u8]> = words.collect();
    rest.windows(2)
        .any(|w| eq_kw(w[0], b"LOCAL") && eq_kw(w[1], b"INFILE"))
}

/// The plan for one execution. A plan holds for its fingerprint, but a string literal can hide a
/// second statement behind a read under some session settings (`SELECT 'a\'; DELETE …` fingerprints
/// as `select ?`), so each text is checked on its own. Capture has already split what the default
/// rules split; what still reads as several statements is never sent (the connection would refuse it
/// anyway).
pub fn for_text(plan: &Arc<StatementPlan>, sql: &[u8]) -> Arc<StatementPlan> {
    if plan.skip.is_none() && second_statement(sql, Lexicon::MySql, None).is_some() {
        Arc::new(StatementPlan {
            skip: Some(SkipReason::SeveralStatements),
            ..(**plan).clone()
        })
    } else {
        plan.clone()
    }
}

/// Plans a statement (from one of its executions; everything decided holds for its fingerprint).
pub fn plan(sql: &[u8], mode: Mode) -> StatementPlan {
    let class = classify(sql);
    let control = control_of(sql);
    let nondet = nondeterministic_functions(sql);
    let ordered = has_top_level_order_by(sql);
    let items = if ordered {
        order_items(sql)
    } else {
        Vec::new()
    };
    let compare = if !nondet.is_empty() {
        CompareMode::NotComparable {
            reason: format!("calls {}", nondet.join(", ")),
        }
    } else if has_limit(sql) && !ordered {
        CompareMode::NotComparable {
            reason: "LIMIT without ORDER BY: which rows come back is up to each server".into(),
        }
    } else if ordered {
        // Resolved per result; an expression key means the order cannot be checked.
        if items.contains(&OrderItem::Expression) {
            CompareMode::OrderUnchecked
        } else {
            CompareMode::Ordered { keys: Vec::new() }
        }
    } else {
        CompareMode::Multiset
    };
    let reach = setting_reach(sql);
    let skip = match (mode, class) {
        _ if is_local_infile(sql) => Some(SkipReason::LocalInfile),
        (_, StatementClass::Other) => Some(SkipReason::Administration),
        (_, StatementClass::Session) if reach == SettingReach::Server => {
            Some(SkipReason::SetGlobal)
        }
        (Mode::Reads, StatementClass::Read) => None,
        (Mode::Reads, StatementClass::Session) if reach == SettingReach::LiftsReadOnly => {
            Some(SkipReason::WouldMakeSessionWritable)
        }
        (Mode::Reads, StatementClass::Session)
            if control == Control::Set || control == Control::Use =>
        {
            None
        }
        (Mode::Reads, StatementClass::Session) => Some(SkipReason::TransactionSettingInReadsMode),
        (Mode::Reads, StatementClass::LockingRead) => Some(SkipReason::LockingReadInReadsMode),
        (Mode::Reads, StatementClass::Write) => Some(SkipReason::WriteInReadsMode),
        (Mode::Reads, StatementClass::Ddl) => Some(SkipReason::DdlInReadsMode),
        (Mode::Reads, StatementClass::Transaction) => {
            Some(SkipReason::TransactionControlInReadsMode)
        }
        (Mode::All, _) => None,
    };
    let (tables_read, tables_written) = tables(sql);
    StatementPlan {
        class,
        compare,
        skip,
        control,
        order_items: items,
        tables_read,
        tables_written: Arc::new(tables_written),
        pins_session: pins_session(sql),
        uses_clock: nondet.iter().any(|f| CLOCK_FUNCTIONS.contains(&f.as_str())),
        upsert: class == StatementClass::Write && is_upsert(sql),
    }
}

/// `… ON DUPLICATE KEY UPDATE …` among the statement's words.
fn is_upsert(sql: &[u8]) -> bool {
    let words: Vec<&[u8]> = Lexer::new(sql)
        .filter(|t| t.kind == TokenKind::Word)
        .map(|t| t.text(sql))
        .collect();
    words.windows(4).any(|w| {
        eq_kw(w[0], b"ON")
            && eq_kw(w[1], b"DUPLICATE")
            && eq_kw(w[2], b"KEY")
            && eq_kw(w[3], b"UPDATE")
    })
}

/// Functions that read the session's `timestamp` (SYSDATE reads the wall clock whatever it is set to).
const CLOCK_FUNCTIONS: &[&str] = &[
    "NOW",
    "CURRENT_TIMESTAMP",
    "CURRENT_TIME",
    "CURRENT_DATE",
    "CURDATE",
    "CURTIME",
    "UTC_TIMESTAMP",
    "UTC_DATE",
    "UTC_TIME",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "UNIX_TIMESTAMP",
];

/// Whether a statement leaves state on its connection that replaying `USE`/`SET` cannot restore.
pub(super) fn pins_session(sql: &[u8]) -> bool {
    let words = Lexer::new(sql)
        .filter(|t| t.kind == TokenKind::Word)
        .map(|t| t.text(sql));
    let mut first: Option<&[u8]> = None;
    for (i, w) in words.enumerate() {
        match i {
            0 if eq_kw(w, b"LOCK") => return true,
            0 => first = Some(w),
            1 if first.is_some_and(|f| eq_kw(f, b"CREATE")) && eq_kw(w, b"TEMPORARY") => {
                return true;
            }
            _ if eq_kw(w, b"GET_LOCK") => return true,
            _ => {}
        }
    }
    false
}

/// What a side sends for a statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Send {
    /// The text, as captured (or rewritten).
    Text,
    /// A replacement (the PostgreSQL form of transaction control).
    Replace(&'static str),
    /// Nothing, for this reason.
    Skip(SkipReason),
}

/// How a side replays a control statement. `url_has_db`: the side's URL names the database, so the
/// capture's `USE` is not followed.
pub fn send_for(control: &Control, engine: Engine, url_has_db: bool) -> Send {
    use crate::db::dialect::Autocommit;
    let d = engine.dialect();
    match control {
        Control::Use if url_has_db => Send::Skip(SkipReason::UseUrlNamesDatabase),
        Control::Use if !d.has_use => Send::Skip(SkipReason::UseOnPostgres),
        Control::LockTables if !d.has_lock_tables => Send::Skip(SkipReason::LockTablesOnPostgres),
        Control::Set if !d.takes_mysql_settings => Send::Skip(SkipReason::MysqlSettingOnPostgres),
        Control::Autocommit(_) if d.autocommit == Autocommit::EmulatedWithBegin => {
            Send::Skip(SkipReason::AutocommitEmulated)
        }
        Control::Begin => d.begin.map_or(Send::Text, Send::Replace),
        _ => Send::Text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_what_sysbench_sends() {
        let p = plan(
            b"SELECT c FROM sbtest1 WHERE id BETWEEN 5 AND 104 ORDER BY c",
            Mode::Reads,
        );
        assert_eq!(p.compare, CompareMode::Ordered { keys: Vec::new() });
        assert_eq!(p.order_items, vec![OrderItem::Column("c".into())]);
        assert_eq!(p.skip, None);
        assert_eq!(
            plan(b"UPDATE sbtest1 SET k=k+1 WHERE id=5", Mode::Reads).skip,
            Some(SkipReason::WriteInReadsMode)
        );
        assert_eq!(
            plan(b"UPDATE sbtest1 SET k=k+1 WHERE id=5", Mode::All).skip,
            None
        );
        assert_eq!(plan(b"BEGIN", Mode::All).control, Control::Begin);
        assert_eq!(
            plan(b"SET autocommit=0", Mode::All).control,
            Control::Autocommit(false)
        );
        assert!(matches!(
            plan(b"SELECT NOW()", Mode::Reads).compare,
            CompareMode::NotComparable { .. }
        ));
        assert!(matches!(
            plan(b"SELECT * FROM t LIMIT 1", Mode::Reads).compare,
            CompareMode::NotComparable { .. }
        ));
        assert_eq!(
            plan(b"SELECT a FROM t ORDER BY LOWER(a)", Mode::Reads).compare,
            CompareMode::OrderUnchecked
        );
        assert_eq!(
            order_items(b"SELECT a, b FROM t ORDER BY t.`a` DESC, 2 LIMIT 3"),
            vec![OrderItem::Column("a".into()), OrderItem::Position(2)]
        );
        assert_eq!(
            plan(b"SET GLOBAL general_log = 0", Mode::All).skip,
            Some(SkipReason::SetGlobal)
        );
        assert_eq!(
            tables(b"SELECT a FROM db.`T1` t JOIN t2 ON 1"),
            (vec!["t1".to_string(), "t2".to_string()], vec![])
        );
        assert_eq!(
            tables(b"UPDATE sbtest1 SET k=k+1 WHERE id=5").1,
            vec!["sbtest1".to_string()]
        );
        assert_eq!(
            tables(b"INSERT INTO sbtest2 (id) VALUES (1)").1,
            vec!["sbtest2".to_string()]
        );
        assert_eq!(
            tables(b"DELETE FROM sbtest3 WHERE id=1").1,
            vec!["sbtest3".to_string()]
        );
    }
}

#[cfg(test)]
mod local_infile_tests {
    use super::*;

    #[test]
    fn load_data_local_infile_is_skipped_in_every_mode() {
        for mode in [Mode::Reads, Mode::All] {
            for sql in [
                "LOAD DATA LOCAL INFILE '/tmp/a.csv' INTO TABLE t",
                "load data low_priority local infile 'x' into table t",
            ] {
                assert_eq!(
                    plan(sql.as_bytes(), mode).skip,
                    Some(SkipReason::LocalInfile),
                    "{sql}"
                );
            }
        }
        assert_ne!(
            plan(
                b"LOAD DATA INFILE '/var/lib/mysql-files/a.csv' INTO TABLE t",
                Mode::All
            )
            .skip,
            Some(SkipReason::LocalInfile)
        );
    }
}

#[cfg(test)]
mod pin_tests {
    use super::pins_session;

    #[test]
    fn session_state_that_a_reconnect_loses_pins_the_connection() {
        assert!(pins_session(b"CREATE TEMPORARY TABLE t (a INT)"));
        assert!(pins_session(b"lock tables t write"));
        assert!(pins_session(b"SELECT GET_LOCK('x', 1)"));
        assert!(!pins_session(b"SELECT 'GET_LOCK' FROM t"));
        assert!(!pins_session(b"CREATE TABLE temporary_t (a INT)"));
        assert!(!pins_session(b"SELECT c FROM sbtest1 WHERE id = 1"));
    }
}
