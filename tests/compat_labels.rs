//! Labels the compat corpus (corpora/compat) by running every statement for real on MariaDB and on
//! PostgreSQL, and checks the labels committed in corpora/compat/labels.tsv still hold.
//!
//! Each statement runs alone on fresh sessions against a database loaded from the corpus schema and
//! data (schema.mysql.sql / schema.pg.sql, data.sql), inside a transaction that is rolled back; after
//! DDL the MySQL side (whose DDL commits) is reloaded. Labels:
//! - `fails`: PostgreSQL rejects the statement (the SQLSTATE and message are kept);
//! - `differs`: both run, but the results differ in canonical values (or, for writes, the affected-row
//!   counts or the tables afterwards differ);
//! - `same`: both run with the same results;
//! - `nondeterministic`: both run, but the statement calls NOW(), RAND(), VERSION(), … so results are
//!   not comparable;
//! - `invalid`: MariaDB itself rejects it (a corpus bug; the test fails on any).
//!
//! Rewrite the labels: `scripts/label-compat.sh` (CUTOVER_WRITE_LABELS=1).

mod common;

use cutover::db::Endpoint;
use cutover::db::compare::{OutcomeComparison, compare_outcomes};
use cutover::db::exec::{Outcome, Session};
use cutover::db::value::Tolerance;
use cutover::sql::classify::{
    StatementClass, classify, has_top_level_order_by, nondeterministic_functions,
};
use cutover::sql::script::split_script;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The statement files, in the order labels are written.
const FILES: &[&str] = &[
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
const DB: &str = "cutover_compat";

fn compat(rel: &str) -> PathBuf {
    common::corpus(&format!("compat/{rel}"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(compat(rel))
        .unwrap_or_else(|e| panic!("{}: {e}", compat(rel).display()))
}

fn endpoints() -> (Endpoint, Endpoint) {
    let my = std::env::var("CUTOVER_TEST_MYSQL_URL")
        .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306/test".into());
    let pg = std::env::var("CUTOVER_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    (
        Endpoint::parse(&my).expect("CUTOVER_TEST_MYSQL_URL"),
        Endpoint::parse(&pg).expect("CUTOVER_TEST_PG_URL"),
    )
}

async fn connect(ep: &Endpoint) -> Session {
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
fn reload_mysql() {
    common::mysql(
        None,
        &format!("DROP DATABASE IF EXISTS {DB}; CREATE DATABASE {DB}"),
    );
    common::mysql(Some(DB), &read("schema.mysql.sql"));
    common::mysql(Some(DB), &read("data.sql"));
}

fn reload_pg() {
    common::psql(
        "postgres",
        &format!("DROP DATABASE IF EXISTS {DB} WITH (FORCE)"),
    );
    common::psql("postgres", &format!("CREATE DATABASE {DB}"));
    common::psql(DB, &read("schema.pg.sql"));
    common::psql(DB, &read("data.sql"));
    common::psql(DB, &read("post_load.pg.sql"));
}

/// `CREATE DATABASE|SCHEMA [IF NOT EXISTS] name`: the name, to drop it again.
fn created_database(sql: &str) -> Option<String> {
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

async fn run_one(ep: &Endpoint, sql: &str, class: StatementClass, is_pg: bool) -> Run {
    let mut s = connect(&ep.with_database(DB)).await;
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

/// Runs one statement on both servers and labels it: (label, detail).
async fn label(
    my: &Endpoint,
    pg: &Endpoint,
    my_admin: &mut Session,
    pg_admin: &mut Session,
    sql: &str,
) -> (String, String) {
    let class = classify(sql.as_bytes());
    let m = run_one(my, sql, class, false).await;
    let p = run_one(pg, sql, class, true).await;
    // Undo what could not be rolled back.
    if let Some(db) = created_database(sql)
        && db != DB
    {
        let _ = my_admin
            .execute(&format!("DROP DATABASE IF EXISTS `{db}`"))
            .await;
        let _ = pg_admin
            .execute(&format!("DROP DATABASE IF EXISTS \"{db}\""))
            .await;
    }
    if class == StatementClass::Ddl
        || class == StatementClass::Transaction
        || class == StatementClass::Other
    {
        reload_mysql();
    }
    if class == StatementClass::Ddl && created_database(sql).is_some() {
        reload_pg();
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

fn clean(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

#[tokio::test(flavor = "multi_thread")]
async fn labels_match_the_real_servers() {
    let (my, pg) = endpoints();
    let mut my_admin = connect(&my).await;
    let mut pg_admin = connect(&pg).await;
    reload_mysql();
    reload_pg();

    let mut tsv = String::from("file\tordinal\tline\tlabel\tdetail\tcomment\n");
    let mut invalid = Vec::new();
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for file in FILES {
        let rel = format!("statements/{file}.sql");
        let Ok(text) = std::fs::read_to_string(compat(&rel)) else {
            continue;
        };
        for (ordinal, st) in split_script(&text).iter().enumerate() {
            let (l, detail) = label(&my, &pg, &mut my_admin, &mut pg_admin, &st.text).await;
            if l == "invalid" {
                invalid.push(format!("{rel}:{}: {detail}", st.line));
            }
            *counts.entry(l.clone()).or_default() += 1;
            let _ = writeln!(
                tsv,
                "{file}\t{ordinal}\t{}\t{l}\t{}\t{}",
                st.line,
                clean(&detail),
                clean(&st.leading_comment)
            );
        }
    }
    let _ = my_admin
        .execute(&format!("DROP DATABASE IF EXISTS {DB}"))
        .await;
    let _ = pg_admin
        .execute(&format!("DROP DATABASE IF EXISTS {DB} WITH (FORCE)"))
        .await;
    eprintln!("labels: {counts:?}");
    assert!(
        invalid.is_empty(),
        "statements MariaDB rejects (fix the corpus):\n{}",
        invalid.join("\n")
    );

    let path = compat("labels.tsv");
    if std::env::var("CUTOVER_WRITE_LABELS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &tsv).expect("write labels.tsv");
        return;
    }
    let committed = std::fs::read_to_string(&path)
        .expect("corpora/compat/labels.tsv (write it with scripts/label-compat.sh)");
    // Compare labels (not details: server messages may change with versions).
    let key = |s: &str| -> Vec<(String, String, String)> {
        s.lines()
            .skip(1)
            .map(|l| {
                let c: Vec<&str> = l.split('\t').collect();
                (
                    c[0].to_string(),
                    c[1].to_string(),
                    c.get(3).copied().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    let (now, then) = (key(&tsv), key(&committed));
    let changed: Vec<String> = now
        .iter()
        .zip(then.iter().map(Some).chain(std::iter::repeat(None)))
        .filter(|(a, b)| Some(*a) != *b)
        .map(|(a, b)| {
            format!(
                "{}#{}: now {}, committed {}",
                a.0,
                a.1,
                a.2,
                b.map_or("missing".into(), |b| b.2.clone())
            )
        })
        .collect();
    assert!(
        changed.is_empty() && now.len() == then.len(),
        "labels changed (rerun scripts/label-compat.sh if the corpus changed):\n{}",
        changed.join("\n")
    );
}
