//! `verify --fix-sql` files read the same under every session setting and never hold a raw NUL
//! (hardening issue, item 12): applied by the real clients, with and without NO_BACKSLASH_ESCAPES
//! and standard_conforming_strings, they make the target equal to the source; a value the target
//! cannot hold (a NUL byte in PostgreSQL text) is a finding, not a broken file.

mod common;

use common::*;
use std::process::Command;

/// Each test has its own source database (tests run in parallel).
const DB_MY: &str = "cutover_fixsql_my";
const DB: &str = "cutover_fixsql_pg";

/// Rows whose strings trip naive escaping: backslashes, quotes, a NUL, control bytes, non-ASCII.
const ROWS: &str = "(1, 'back\\\\slash \\\\n not a newline'), (2, 'it''s quoted'), (3, CONCAT('nul', CHAR(0), 'byte')), \
                    (4, CONCAT('tab', CHAR(9), 'cr', CHAR(13), 'z')), (5, 'naïve ünïcode ✓'), (6, '\\\\'), (7, '')";

fn source(db: &str) {
    mysql(
        None,
        &format!(
            "DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}; USE {db};
             CREATE TABLE esc (id INT PRIMARY KEY, s VARCHAR(60) CHARACTER SET utf8mb4);
             INSERT INTO esc VALUES {ROWS};
             CREATE TABLE bin (id INT PRIMARY KEY, b BLOB);
             INSERT INTO bin VALUES (1, X'4142'), (2, X'005C27'), (3, X'');"
        ),
    );
}

/// Applies a file with a client, failing the test on any error.
fn apply(client: &mut Command, file: &str) {
    let input = std::fs::File::open(file).expect("open fix file");
    let out = client
        .stdin(input)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the client ({e}): {HOW_TO_START}"));
    assert!(
        out.status.success(),
        "applying {file} failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        std::fs::read_to_string(file).unwrap_or_default()
    );
}

fn fix_file(name: &str) -> String {
    std::env::temp_dir()
        .join(format!("cutover-{name}-{}.sql", std::process::id()))
        .to_string_lossy()
        .into_owned()
}

#[test]
fn mysql_target_fix_file_is_independent_of_sql_mode() {
    source(DB_MY);
    for (i, sql_mode) in ["", "NO_BACKSLASH_ESCAPES"].iter().enumerate() {
        let target_db = format!("{DB_MY}_t{i}");
        mysql(
            None,
            &format!(
                "DROP DATABASE IF EXISTS {target_db}; CREATE DATABASE {target_db};
                 CREATE TABLE {target_db}.esc (id INT PRIMARY KEY, s VARCHAR(60) CHARACTER SET utf8mb4);"
            ),
        );
        let file = fix_file(&format!("fix-my{i}"));
        let (src, tgt) = (
            with_db(&mysql_url(), DB_MY),
            with_db(&mysql_url(), &target_db),
        );
        let (j, code) = verify_json_between(&src, &tgt, &["--tables", "esc", "--fix-sql", &file]);
        assert_eq!(code, Some(1), "{j:#}");
        assert_eq!(j["fix_statements"], 7, "{j:#}");
        let bytes = std::fs::read(&file).unwrap();
        assert!(!bytes.contains(&0), "raw NUL in {file}");
        let mut client = mysql_client();
        client.args([
            &format!("--init-command=SET SESSION sql_mode = '{sql_mode}'"),
            &target_db,
        ]);
        apply(&mut client, &file);
        let (j, code) = verify_json_between(&src, &tgt, &["--tables", "esc"]);
        assert_eq!(
            (j["total_differences"].as_u64(), code),
            (Some(0), Some(0)),
            "sql_mode '{sql_mode}': after applying {}\n{j:#}",
            String::from_utf8_lossy(&bytes)
        );
        let _ = std::fs::remove_file(&file);
    }
}

#[test]
fn postgres_target_fix_file_applies_and_reports_what_it_cannot_hold() {
    source(DB);
    let pg_db = DB;
    fresh_pg_database(pg_db);
    psql(
        pg_db,
        "CREATE TABLE esc (id integer PRIMARY KEY, s varchar(60)); CREATE TABLE bin (id integer PRIMARY KEY, b bytea)",
    );
    for (i, conforming) in ["on", "off"].iter().enumerate() {
        psql(pg_db, "TRUNCATE esc, bin");
        let file = fix_file(&format!("fix-pg{i}"));
        let (j, code) = verify_json(DB, &["--tables", "esc,bin", "--fix-sql", &file]);
        assert_eq!(code, Some(1), "{j:#}");
        let t = table_report(&j, "esc");
        let cannot = t["cannot_hold"].as_array().unwrap();
        assert_eq!(cannot.len(), 1, "{t:#}");
        assert!(
            cannot[0].as_str().unwrap().contains("(3)")
                && cannot[0].as_str().unwrap().contains("NUL"),
            "{t:#}"
        );
        assert_eq!(j["fix_statements"], 9, "{j:#}");
        let bytes = std::fs::read(&file).unwrap();
        assert!(!bytes.contains(&0), "raw NUL in {file}");
        let mut client = psql_client(pg_db);
        client.env(
            "PGOPTIONS",
            format!("-c standard_conforming_strings={conforming}"),
        );
        apply(&mut client, &file);
        let (j, _) = verify_json(DB, &["--tables", "esc,bin"]);
        // Bytes land as bytes whatever standard_conforming_strings says.
        assert_eq!(
            table_report(&j, "bin")["status"],
            "match",
            "standard_conforming_strings={conforming}: {j:#}"
        );
        let t = table_report(&j, "esc");
        // Only the NUL row is left: missing on the target, and no repair can add it.
        assert_eq!(
            diff_counts(t),
            (1, 0, 0),
            "standard_conforming_strings={conforming}: {t:#}"
        );
        let _ = std::fs::remove_file(&file);
    }
}
