//! `cutover audit --emit-sql` end to end on real servers (issue 14): sakila's schema and data
//! loaded into MariaDB from the original scripts; the same scripts translated for PostgreSQL and
//! loaded into an empty database with `psql -v ON_ERROR_STOP=1`; `cutover verify --all` between them.

mod common;

use common::*;
use std::io::Write;
use std::process::{Command, Stdio};

const DB: &str = "cutover_emit_sakila";

fn sakila_script(dir: &std::path::Path) -> std::path::PathBuf {
    let s = shared_dir().join("peer-sql").join("sakila");
    let schema = std::fs::read_to_string(s.join("mysql-sakila-schema.sql"))
        .expect("read ../shared/peer-sql/sakila/mysql-sakila-schema.sql")
        .replace("sakila", DB);
    let data = std::fs::read_to_string(s.join("mysql-sakila-data.sql"))
        .expect("read the sakila data")
        .replace("USE sakila;", &format!("USE {DB};"));
    let path = dir.join("sakila.sql");
    std::fs::write(&path, format!("{schema}\n{data}")).unwrap();
    path
}

/// Runs `script` with the mysql client (in database `db` when given).
fn load_mariadb(db: Option<&str>, script: &[u8], what: &str) {
    let mut client = mysql_client();
    client.args(db);
    let mut child = client
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run the mysql client ({e}): {HOW_TO_START}"));
    child.stdin.take().unwrap().write_all(script).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "loading {what} into MariaDB: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Loads the translation into a fresh PostgreSQL database `db` with ON_ERROR_STOP and returns
/// `cutover verify --all`'s tables against the MariaDB database of the same name.
fn load_postgres_and_verify(db: &str, translated: &std::path::Path) -> Vec<serde_json::Value> {
    fresh_pg_database(db);
    let load = psql_client(db).arg("-f").arg(translated).output().unwrap();
    assert!(
        load.status.success(),
        "psql -v ON_ERROR_STOP=1 refused the translation: {}",
        String::from_utf8_lossy(&load.stderr)
    );
    let (v, _) = verify_json(db, &["--all"]);
    v["tables"].as_array().cloned().unwrap_or_default()
}

#[test]
fn sakila_translated_for_postgres_loads_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let script = sakila_script(dir.path());
    load_mariadb(None, &std::fs::read(&script).unwrap(), "sakila");
    let out_sql = dir.path().join("sakila.pg.sql");
    let report = dir.path().join("audit.json");
    let out = Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(["audit", "--target", "postgres", "--emit-sql"])
        .arg(&out_sql)
        .args(["--format", "json", "-q", "-o"])
        .arg(&report)
        .arg(&script)
        .output()
        .unwrap();
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let e = &j["emitted"];
    assert_eq!(e["resets"], 13, "{e:#}");
    assert_eq!(e["statements"], 102, "{e:#}");
    assert_eq!(
        e["translated"].as_u64().unwrap() + e["commented"].as_u64().unwrap(),
        102,
        "every statement is written, translated or commented out: {e:#}"
    );
    assert_eq!(e["foreign_keys"], 22, "{e:#}");
    // Routines are written commented out with their finding ids; the three triggers (plain row
    // logic on NEW/OLD) become PL/pgSQL functions and triggers.
    let reasons: Vec<&str> = e["commented_reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(
        reasons.iter().filter(|r| r.contains("DDL-017")).count() >= 5,
        "{reasons:#?}"
    );
    assert!(
        !reasons
            .iter()
            .any(|r| r.contains("TRIGGER") || r.contains("DDL-019")),
        "{reasons:#?}"
    );
    let text = std::fs::read_to_string(&out_sql).unwrap();
    assert!(
        text.contains("-- CREATE PROCEDURE") || text.contains("-- CREATE DEFINER"),
        "routines commented, not dropped"
    );
    assert!(
        text.contains("CREATE TRIGGER ins_film AFTER INSERT ON film FOR EACH ROW EXECUTE FUNCTION ins_film_fn()"),
        "the ins_film trigger translated"
    );
    let tables = load_postgres_and_verify(DB, &out_sql);
    assert_eq!(tables.len(), 16, "{tables:#?}");
    for t in &tables {
        assert_eq!(t["target_missing"], false, "{t:#}");
        assert_eq!(t["schema"].as_array().map(|a| a.len()), Some(0), "{t:#}");
        // film_text included: both servers fill it from film by the ins_film trigger.
        assert_eq!(t["status"], "match", "{t:#}");
    }
    // Identity columns continue after the loaded ids; foreign keys are in place.
    let next = psql(
        DB,
        "INSERT INTO actor (first_name, last_name) VALUES ('A', 'B') RETURNING actor_id",
    );
    assert_eq!(next.trim(), "201");
    let fks = psql(DB, "SELECT count(*) FROM pg_constraint WHERE contype = 'f'");
    assert_eq!(fks.trim(), "22");
    // The translated upd_film trigger keeps film_text in step, as MySQL's does.
    let synced = psql(
        DB,
        "UPDATE film SET title = 'CUTOVER TEST' WHERE film_id = 1; SELECT title FROM film_text WHERE film_id = 1",
    );
    assert!(synced.contains("CUTOVER TEST"), "{synced}");
    // ON UPDATE CURRENT_TIMESTAMP became a trigger.
    let changed = psql(
        DB,
        "UPDATE actor SET first_name = 'Z' WHERE actor_id = 1 RETURNING last_update > '2020-01-01'",
    );
    assert_eq!(changed.trim(), "t");
    psql(
        "postgres",
        &format!("DROP DATABASE IF EXISTS {DB} WITH (FORCE)"),
    );
    mysql(None, &format!("DROP DATABASE IF EXISTS {DB}"));
}

/// The compat corpus's schema and data, loaded into MariaDB and dumped by mysqldump (which writes
/// the BIT column's values as raw bytes in string literals, 0x80 among them, not UTF-8), translated
/// by `--emit-sql`, loaded into an empty PostgreSQL with ON_ERROR_STOP: every table verifies equal.
#[test]
fn a_mysqldump_of_the_compat_schema_translates_loads_and_verifies() {
    const COMPAT: &str = "cutover_emit_compat";
    let dir = tempfile::tempdir().unwrap();
    mysql(
        None,
        &format!("DROP DATABASE IF EXISTS {COMPAT}; CREATE DATABASE {COMPAT}"),
    );
    let mut script = std::fs::read(corpus("compat/schema.mysql.sql")).unwrap();
    script.extend(std::fs::read(corpus("compat/data.sql")).unwrap());
    load_mariadb(Some(COMPAT), &script, "the compat corpus");
    let dump = mysql_tool("mysqldump")
        .arg(COMPAT)
        .output()
        .unwrap_or_else(|e| panic!("cannot run mysqldump ({e}): {HOW_TO_START}"));
    assert!(
        dump.status.success(),
        "{}",
        String::from_utf8_lossy(&dump.stderr)
    );
    assert!(
        std::str::from_utf8(&dump.stdout).is_err(),
        "the dump holds raw bytes (the BIT values), the case under test"
    );
    let dump_path = dir.path().join("compat-dump.sql");
    std::fs::write(&dump_path, &dump.stdout).unwrap();
    let out_sql = dir.path().join("compat.pg.sql");
    let out = Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(["audit", "--target", "postgres", "-q", "--emit-sql"])
        .arg(&out_sql)
        .arg(&dump_path)
        .output()
        .unwrap();
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tables = load_postgres_and_verify(COMPAT, &out_sql);
    assert_eq!(tables.len(), 6, "{tables:#?}");
    for t in &tables {
        assert_eq!(t["status"], "match", "{t:#}");
    }
    psql(
        "postgres",
        &format!("DROP DATABASE IF EXISTS {COMPAT} WITH (FORCE)"),
    );
    mysql(None, &format!("DROP DATABASE IF EXISTS {COMPAT}"));
}
