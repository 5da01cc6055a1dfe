//! Running corpora/compat statements for real on MariaDB and PostgreSQL and comparing what they do
//! (results in canonical values, affected rows, the tables afterwards). Shared by
//! tests/compat_labels.rs (the labels) and tests/rewrite_accuracy.rs (the audit's rewrites).
//!
//! Each statement runs alone on fresh sessions against a database loaded from the corpus schema and
//! data, inside a transaction that is rolled back; after DDL the MySQL side (whose DDL commits) is
//! reloaded.

use super::common;
use cutover::db::Endpoint;
use cutover::db::compare::{OutcomeComparison, compare_outcomes};
use cutover::db::exec::{Outcome, Session};
use cutover::db::value::Tolerance;
use cutover::sql::classify::{
    StatementClass, classify, has_top_level_order_by, nondeterministic_functions,
};
use std::path::PathBuf;

/// The statement files, in the order labels are written.
pub const FILES: &[&str] = &[
    "lexical",
    "functions",
    "dml",
    "semantics",
    "case_collation",
    "ddl",
    "types",
    "session_txn",
    "plain",
];

pub fn compat(rel: &str) -> PathBuf {
    common::corpus(&format!("compat/{rel}"))
}

pub fn read(rel: &str) -> String {
    std::fs::read_to_string(compat(rel))
        .unwrap_or_else(|e| panic!("{}: {e}", compat(rel).display()))
}

pub fn endpoints() -> (Endpoint, Endpoint) {
    let my = std::env::var("CUTOVER_TEST_MYSQL_URL")
        .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306/test".into());
    let pg = std::env::var("CUTOVER_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    (
        Endpoint::parse(&my).expect("CUTOVER_TEST_MYSQL_URL"),
        Endpoint::parse(&pg).expect("CUTOVER_TEST_PG_URL"),
    )
}

pub async fn connect(ep: &Endpoint) -> Session {
    Session::connect(ep)
        .await
        .unwrap_or_else(|e| panic!("{e}\n(start the servers with scripts/setup-servers.sh)"))
}

/// Tables snapshotted after a write, with their columns (customers.updated_at is left out: both sides
/// set it to the current time).
const SNAPSHOT: &[(&str, &str, &str)] = &[
    (
        "customers",
        "id, email, name, code, country, is_active, tier, tags, birth_year, balance, score, rating, notes, avatar, profile, created_at",
        "id",
    ),
    (
        "products",
        "id, sku, title, price, stock, weight_kg, flags, category",
        "id",
    ),
    (
        "orders",
        "id, customer_id, status, total, placed_at, shipped_on, note",
        "id",
    ),
    (
        "order_items",
        "order_id, product_id, qty, unit_price",
        "order_id, product_id",
    ),
    ("kv", "k, v, hits", "k"),
];

async fn snapshot(s: &mut Session) -> Result<Vec<Outcome>, String> {
    let mut out = Vec::new();
    for (table, cols, key) in SNAPSHOT {
        let o = s
            .execute(&format!("SELECT {cols} FROM {table} ORDER BY {key}"))
            .await
            .map_err(|e| e.to_string())?;
        out.push(o);
    }
    Ok(out)
}

/// The scripts are loaded with the servers' own clients: cutover's sessions send one statement at a
/// time.
pub fn reload_mysql(db: &str) {
    common::mysql(
        None,
        &format!("DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}"),
    );
    common::mysql(Some(db), &read("schema.mysql.sql"));
    common::mysql(Some(db), &read("data.sql"));
}

pub fn reload_pg(db: &str) {
    common::psql(
        "postgres",
        &format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
    );
    common::psql("postgres", &format!("CREATE DATABASE {db}"));
    common::psql(db, &read("schema.pg.sql"));
    common::psql(db, &read("data.sql"));
    common::psql(db, &read("post_load.pg.sql"));
}

/// `CREATE DATABASE|SCHEMA [IF NOT EXISTS] name`: the name, to drop it again.
pub fn created_database(sql: &str) -> Option<String> {
    let words: Vec<String> = sql
        .split_whitespace()
        .take(6)
        .map(|w| {
            w.trim_matches(|c| c == '`' || c == '"' || c == ';')
                .to_string()
        })
        .collect();
    if words.len() < 3
        || !words[0].eq_ignore_ascii_case("create")
        || !(words[1].eq_ignore_ascii_case("database") || words[1].eq_ignore_ascii_case("schema"))
    {
        return None;
    }
    if words[2].eq_ignore_ascii_case("if") {
        words.get(5).cloned()
    } else {
        Some(words[2].clone())
    }
}

struct Run {
    outcome: Result<Outcome, (String, String)>,
    after: Option<Result<Vec<Outcome>, String>>,
}

async fn run_one(ep: &Endpoint, db: &str, sql: &str, class: StatementClass, is_pg: bool) -> Run {
    let mut s = connect(&ep.with_database(db)).await;
    let timeout = if is_pg {
        "SET statement_timeout = '20s'"
    } else {
        "SET SESSION max_statement_time = 20"
    };
    let _ = s.execute(timeout).await;
    let wrap = match class {
        StatementClass::Transaction | StatementClass::Session => false,
        StatementClass::Ddl => is_pg && created_database(sql).is_none(),
        _ => true,
    };
    if wrap {
        s.execute(if is_pg { "BEGIN" } else { "START TRANSACTION" })
            .await
            .expect("begin");
    }
    let outcome = s
        .execute(sql)
        .await
        .map_err(|e| (e.code().unwrap_or("io").to_string(), e.to_string()));
    let after = if outcome.is_ok()
        && matches!(
            class,
            StatementClass::Write | StatementClass::LockingRead | StatementClass::Other
        ) {
        Some(snapshot(&mut s).await)
    } else {
        None
    };
    if wrap {
        let _ = s.execute("ROLLBACK").await;
    }
    s.close().await;
    Run { outcome, after }
}

/// Runs `sql` on MariaDB and `pg_sql` (the same statement, or a rewrite of it) on PostgreSQL in
/// database `db` and labels the pair: (label, detail), as described in tests/compat_labels.rs.
pub async fn label(
    my: &Endpoint,
    pg: &Endpoint,
    my_admin: &mut Session,
    pg_admin: &mut Session,
    db: &str,
    sql: &str,
    pg_sql: &str,
) -> (String, String) {
    let class = classify(sql.as_bytes());
    let m = run_one(my, db, sql, class, false).await;
    let p = run_one(pg, db, pg_sql, class, true).await;
    // Undo what could not be rolled back.
    if let Some(created) = created_database(sql)
        && created != db
    {
        let _ = my_admin
            .execute(&format!("DROP DATABASE IF EXISTS `{created}`"))
            .await;
        let _ = pg_admin
            .execute(&format!("DROP DATABASE IF EXISTS \"{created}\""))
            .await;
    }
    if class == StatementClass::Ddl
        || class == StatementClass::Transaction
        || class == StatementClass::Other
    {
        reload_mysql(db);
    }
    if class == StatementClass::Ddl && created_database(sql).is_some() {
        reload_pg(db);
    }
    let m_out = match m.outcome {
        Ok(o) => o,
        Err((code, msg)) => return ("invalid".into(), format!("MariaDB {code}: {msg}")),
    };
    let p_out = match p.outcome {
        Ok(o) => o,
        Err((code, msg)) => {
            return (
                "fails".into(),
                format!(
                    "{code}: {}",
                    msg.split(": ").skip(1).collect::<Vec<_>>().join(": ")
                ),
            );
        }
    };
    let nondet = nondeterministic_functions(sql.as_bytes());
    if !nondet.is_empty() {
        return ("nondeterministic".into(), nondet.join(","));
    }
    let tol = Tolerance::default();
    let (mut m_out, mut p_out) = (m_out, p_out);
    if class == StatementClass::Ddl {
        // DDL row counts mean nothing comparable (MySQL counts the rows an ALTER copied).
        m_out.affected = None;
        p_out.affected = None;
    }
    match compare_outcomes(&m_out, &p_out, has_top_level_order_by(sql.as_bytes()), &tol) {
        OutcomeComparison::Differs { reason, .. } => return ("differs".into(), reason),
        OutcomeComparison::Same { .. } => {}
    }
    if let (Some(a), Some(b)) = (m.after, p.after) {
        match (a, b) {
            (Ok(a), Ok(b)) => {
                for ((t, _, _), (x, y)) in SNAPSHOT.iter().zip(a.iter().zip(&b)) {
                    // As multisets: the snapshot's ORDER BY on a string key sorts by each server's collation.
                    if let OutcomeComparison::Differs { reason, .. } =
                        compare_outcomes(x, y, false, &tol)
                    {
                        return ("differs".into(), format!("table {t} afterwards: {reason}"));
                    }
                }
            }
            (Err(e), _) | (_, Err(e)) => {
                return (
                    "differs".into(),
                    format!("tables afterwards unreadable: {e}"),
                );
            }
        }
    }
    ("same".into(), String::new())
}
