//! Safety against the real servers (hardening issue, item 1): a text that carries a second statement
//! behind a harmless one never reaches a server. Each entry point the QA pass broke in is tried
//! (replay in reads mode, `audit --live` on a MySQL target, `verify --where`), the connection layer is
//! tried directly under the session settings that move where a string ends, and the single-statement
//! scanner is checked against what the servers themselves run.

mod common;

use common::{HOW_TO_START, mysql, mysql_url, pg_url, psql, with_db};
use cutover::db::exec::Session;
use cutover::db::{DbError, Endpoint};
use cutover::sql::single::{Lexicon, second_statement};
use std::path::Path;
use std::process::{Command, Output};

const DB: &str = "cutover_never_harm";

fn cutover(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(args)
        .output()
        .expect("run cutover")
}

fn mariadb_victims(db: &str) {
    mysql(
        None,
        &format!(
            "DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db};
             CREATE TABLE {db}.victim (id INT PRIMARY KEY, v INT); INSERT INTO {db}.victim VALUES (1, 1), (2, 2);
             CREATE TABLE {db}.victim6 (id INT PRIMARY KEY); INSERT INTO {db}.victim6 VALUES (1)"
        ),
    );
}

fn postgres_victims(db: &str) {
    common::fresh_pg_database(db);
    psql(
        db,
        "CREATE TABLE victim (id INT PRIMARY KEY, v INT); INSERT INTO victim VALUES (1, 1), (2, 2)",
    );
}

fn mariadb_tables(db: &str) -> String {
    mysql(
        None,
        &format!(
            "SELECT GROUP_CONCAT(table_name ORDER BY table_name) FROM information_schema.tables WHERE table_schema = '{db}'"
        ),
    )
    .trim()
    .to_string()
}

fn global(name: &str) -> String {
    mysql(None, &format!("SELECT @@GLOBAL.{name}"))
        .trim()
        .to_string()
}

/// A MariaDB slow log holding `entries` (one SQL text each, as the server would log them).
fn write_slow_log(path: &Path, db: &str, entries: &[&str]) {
    let mut log = String::from(
        "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:\n\
         Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n",
    );
    for (i, sql) in entries.iter().enumerate() {
        log.push_str(&format!(
            "# Time: 261202 21:16:{:02}\n# User@Host: root[root] @  [127.0.0.1]\n\
             # Thread_id: 40  Schema: {db}  QC_hit: No\n\
             # Query_time: 0.000100  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 0\n\
             # Rows_affected: 0  Bytes_sent: 60\nSET timestamp={};\n{sql}\n",
            10 + i,
            1796246210 + i
        ));
    }
    std::fs::write(path, log).expect("write slow log");
}

#[test]
fn replay_in_reads_mode_sends_no_second_statement_and_no_harmful_setting() {
    let db = "cutover_never_harm_replay";
    mariadb_victims(db);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("slow.log");
    let before = global("connect_timeout");
    write_slow_log(
        &log,
        db,
        &[
            "SELECT 1; SET GLOBAL connect_timeout=77;",
            "SELECT 2; DROP TABLE victim;",
            "SELECT v FROM victim WHERE id = 1",
            "SET STATEMENT max_statement_time=10 FOR DELETE FROM victim",
            "SET SESSION TRANSACTION READ WRITE",
            "SET PASSWORD FOR 'cutover_nobody'@'%' = PASSWORD('x')",
            "SELECT GET_LOCK('cutover_never_harm', 0)",
            "SELECT 'a\\'; DELETE FROM victim; -- '",
        ],
    );
    let url = with_db(&mysql_url(), db);
    for mode in [["--mode", "reads"], ["--mode", "all"]] {
        let mut args = vec![
            "replay",
            log.to_str().unwrap(),
            "--source",
            &url,
            "--max-speed",
            "--format",
            "json",
            "-q",
        ];
        args.extend_from_slice(&mode);
        if mode[1] == "all" {
            // --mode all sends the writes, but never SET GLOBAL or a hidden second statement: the
            // DELETE and DROP would run, so only the two harmless-looking lines are given.
            write_slow_log(
                &log,
                db,
                &[
                    "SELECT 1; SET GLOBAL connect_timeout=77;",
                    "SELECT 'a\\'; DELETE FROM victim; -- '",
                ],
            );
            args.push("--allow-writes");
        }
        let out = cutover(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        let j: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {err}\n({HOW_TO_START})"));
        let skipped = &j["sides"]["source"]["skipped"];
        assert_eq!(skipped["set_global"], 1, "{mode:?}: {skipped:#}");
        if mode[1] == "reads" {
            assert_eq!(
                skipped["ddl_in_reads_mode"], 2,
                "DROP TABLE, SET PASSWORD: {skipped:#}"
            );
            assert_eq!(
                skipped["write_in_reads_mode"], 2,
                "SET STATEMENT … DELETE, GET_LOCK: {skipped:#}"
            );
            assert_eq!(skipped["would_make_session_writable"], 1, "{skipped:#}");
        }
        // The string with a backslash ends early under NO_BACKSLASH_ESCAPES: never sent.
        assert_eq!(skipped["several_statements"], 1, "{mode:?}: {skipped:#}");
        assert_eq!(j["sides"]["source"]["errors"], 0, "{mode:?}: {j:#}");
        assert_eq!(
            global("connect_timeout"),
            before,
            "{mode:?}: a global changed"
        );
        assert_eq!(mariadb_tables(db), "victim,victim6", "{mode:?}");
        assert_eq!(
            mysql(Some(db), "SELECT COUNT(*) FROM victim").trim(),
            "2",
            "{mode:?}: rows deleted"
        );
    }
    mysql(None, &format!("DROP DATABASE {db}"));
}

#[test]
fn audit_live_on_a_mysql_target_sends_no_second_statement() {
    let db = "cutover_never_harm_audit";
    mariadb_victims(db);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("slow.log");
    write_slow_log(&log, db, &["SELECT 1; DROP TABLE victim6;"]);
    let out = cutover(&[
        "audit",
        "--target",
        "kingbase",
        "--live",
        &with_db(&mysql_url(), db),
        "--format",
        "json",
        "-q",
        log.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    let j: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {err}\n({HOW_TO_START})"));
    // The two statements are audited apart; the DROP is never sent to a MySQL target (it commits).
    let sqls: Vec<&str> = j["statements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sql"].as_str().unwrap())
        .collect();
    assert!(
        sqls.contains(&"SELECT 1") && sqls.contains(&"DROP TABLE victim6"),
        "{sqls:?}"
    );
    assert_eq!(mariadb_tables(db), "victim,victim6");
    mysql(None, &format!("DROP DATABASE {db}"));
}

#[test]
fn verify_where_is_one_condition_or_nothing_runs() {
    let db = "cutover_never_harm_verify";
    mariadb_victims(db);
    postgres_victims(db);
    mysql(Some(db), "DROP TABLE victim6");
    let src = with_db(&mysql_url(), db);
    let tgt = with_db(&pg_url(), db);
    for bad in ["1=1; DROP TABLE victim", "1=1) OR (1=1", "id > 0 -- ", "1"] {
        let out = cutover(&[
            "verify", "--source", &src, "--target", &tgt, "--where", bad, "-q",
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("--where"), "{bad}: {err}");
    }
    assert_eq!(mariadb_tables(db), "victim");
    assert_eq!(psql(db, "SELECT count(*) FROM victim").trim(), "2");
    // A real condition works.
    let out = cutover(&[
        "verify", "--source", &src, "--target", &tgt, "--where", "id > 1", "--format", "json", "-q",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    mysql(None, &format!("DROP DATABASE {db}"));
    psql("postgres", &format!("DROP DATABASE {db} WITH (FORCE)"));
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn connect(url: &str) -> Session {
    Session::connect(&Endpoint::parse(url).unwrap())
        .await
        .unwrap_or_else(|e| panic!("{e}\n({HOW_TO_START})"))
}

#[test]
fn sessions_refuse_second_statements_under_every_quoting_mode() {
    mariadb_victims(DB);
    postgres_victims(DB);
    rt().block_on(async {
        let mut my = connect(&with_db(&mysql_url(), DB)).await;
        for mode in [
            "",
            "NO_BACKSLASH_ESCAPES",
            "ANSI_QUOTES",
            "ANSI_QUOTES,NO_BACKSLASH_ESCAPES",
        ] {
            my.execute(&format!("SET SESSION sql_mode = '{mode}'"))
                .await
                .unwrap();
            let mut refused = vec![
                "SELECT 1; DROP TABLE victim",
                "SELECT \"a\\\"; DROP TABLE victim; -- \"",
                "SELECT 1 /*!50000 ; DROP TABLE victim */",
            ];
            // The session's NO_BACKSLASH_ESCAPES is known (the server reports it): where
            // backslashes escape, this is one string, and it runs as one.
            let backslash = "SELECT 'a\\'; DROP TABLE victim; -- '";
            if mode.contains("NO_BACKSLASH_ESCAPES") {
                refused.push(backslash);
            } else {
                let o = my.execute(backslash).await.unwrap();
                assert_eq!(o.sets.len(), 1, "{mode}");
            }
            for sql in refused {
                let r = my.execute(sql).await;
                assert!(
                    matches!(r, Err(DbError::SeveralStatements { .. })),
                    "sql_mode {mode:?}: {sql}: {r:?}"
                );
            }
            // One statement with a `;` in a string still runs, in the modes where it is one.
            let r = my.execute("SELECT 'a;b'").await;
            assert!(r.is_ok(), "{mode}: {r:?}");
        }
        my.close().await;
        let mut pg = connect(&with_db(&pg_url(), DB)).await;
        for scs in ["on", "off"] {
            pg.execute(&format!("SET standard_conforming_strings = {scs}"))
                .await
                .unwrap();
            for sql in [
                "SELECT 1; DROP TABLE victim",
                "SELECT 'a\\'; DROP TABLE victim; --'",
                "SELECT $$'$$; DROP TABLE victim; SELECT '$$'",
                "SELECT 1 --x\r; DROP TABLE victim",
            ] {
                let r = pg.execute(sql).await;
                assert!(
                    matches!(r, Err(DbError::SeveralStatements { .. })),
                    "scs {scs}: {sql}: {r:?}"
                );
            }
            assert!(pg.execute("SELECT $$a;b$$").await.is_ok());
        }
        pg.close().await;
    });
    assert_eq!(mariadb_tables(DB), "victim,victim6");
    assert_eq!(mysql(Some(DB), "SELECT COUNT(*) FROM victim").trim(), "2");
    assert_eq!(psql(DB, "SELECT count(*) FROM victim").trim(), "2");
}

/// A small deterministic generator (xorshift), so a failure names a reproducible case.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

/// Texts built from the pieces that move statement boundaries: quotes, backslashes, comments of every
/// kind, dollar quotes, version comments, `;` and a second harmless SELECT.
fn texts(seed: u64, n: usize) -> Vec<String> {
    const PIECES: &[&str] = &[
        "'",
        "\"",
        "`",
        "\\",
        ";",
        " ",
        "\n",
        "\r",
        "; SELECT 2",
        " SELECT 3",
        "'a;b'",
        "'x\\'",
        "\"y\\\"",
        "-- ",
        "--x",
        "#",
        "/*",
        "*/",
        "/* ; */",
        "/*!",
        "/*+",
        "$$",
        "$q$",
        "E'",
        "1",
        ",",
        "'';",
        "x",
    ];
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let mut s = String::from("SELECT 1");
            for _ in 0..(1 + rng.next() % 6) {
                s.push_str(rng.pick(PIECES));
            }
            if rng.next().is_multiple_of(2) {
                s.push_str("; SELECT 4");
            }
            s
        })
        .collect()
}

#[test]
fn the_scanner_finds_every_second_statement_mariadb_runs() {
    use mysql_async::prelude::*;
    let cases = texts(0x9E37_79B9_7F4A_7C15, 6000);
    rt().block_on(async {
        let opts = mysql_async::Opts::from_url(&mysql_url()).unwrap();
        let mut conn = mysql_async::Conn::new(mysql_async::OptsBuilder::from_opts(opts).prefer_socket(false))
            .await
            .unwrap_or_else(|e| panic!("{e}\n({HOW_TO_START})"));
        let mut multi_seen = 0;
        for mode in ["", "NO_BACKSLASH_ESCAPES", "ANSI_QUOTES", "ANSI_QUOTES,NO_BACKSLASH_ESCAPES"] {
            conn.query_drop(format!("SET SESSION sql_mode = '{mode}'")).await.unwrap();
            let escapes = Some(!mode.contains("NO_BACKSLASH_ESCAPES"));
            for sql in &cases {
                // The driver sends the text as it is, several statements allowed: count what ran.
                // A failing later statement counts (it was attempted); "Query was empty" (1065) for
                // nothing but a comment after the `;` does not.
                let mut statements = 0;
                if let Ok(mut r) = conn.query_iter(sql.as_str()).await {
                    statements = 1;
                    loop {
                        match r.collect::<mysql_async::Row>().await {
                            Err(mysql_async::Error::Server(e)) if e.code == 1065 => break,
                            Err(_) => {
                                statements += 1;
                                break;
                            }
                            Ok(_) if r.is_empty() => break,
                            Ok(_) => statements += 1,
                        }
                    }
                }
                if statements > 1 {
                    multi_seen += 1;
                    for known in [escapes, None] {
                        assert!(
                            second_statement(sql.as_bytes(), Lexicon::MySql, known).is_some(),
                            "MariaDB (sql_mode {mode:?}) ran {statements} statements of {sql:?}, the scanner ({known:?}) saw one"
                        );
                    }
                }
            }
        }
        eprintln!("MariaDB ran {multi_seen} of {} texts as several statements", 4 * cases.len());
        assert!(multi_seen > 500, "only {multi_seen} texts ran as several statements: the generator tests little");
        conn.query_drop("SET SESSION sql_mode = DEFAULT").await.unwrap();
        let _ = conn.disconnect().await;
    });
}

#[test]
fn the_scanner_finds_every_second_statement_postgresql_runs() {
    // PostgreSQL runs nothing of a text with a syntax error anywhere: more cases for as many hits.
    let cases = texts(0xD1B5_4A32_D192_ED03, 8000);
    rt().block_on(async {
        let (client, connection) = tokio_postgres::connect(&pg_url(), tokio_postgres::NoTls)
            .await
            .unwrap_or_else(|e| panic!("{e}\n({HOW_TO_START})"));
        tokio::spawn(connection);
        let mut multi_seen = 0;
        for scs in ["on", "off"] {
            client
                .batch_execute(&format!("SET standard_conforming_strings = {scs}; SET escape_string_warning = off"))
                .await
                .unwrap();
            for sql in &cases {
                // PostgreSQL parses the whole text first: it runs all of its statements or none.
                let statements = match client.simple_query(sql).await {
                    Ok(msgs) => msgs
                        .iter()
                        .filter(|m| matches!(m, tokio_postgres::SimpleQueryMessage::CommandComplete(_)))
                        .count(),
                    Err(_) => 0,
                };
                if statements > 1 {
                    multi_seen += 1;
                    assert!(
                        second_statement(sql.as_bytes(), Lexicon::Postgres, None).is_some(),
                        "PostgreSQL (standard_conforming_strings {scs}) ran {statements} statements of {sql:?}, the scanner saw one"
                    );
                }
            }
        }
        eprintln!("PostgreSQL ran {multi_seen} of {} texts as several statements", 2 * cases.len());
        assert!(multi_seen > 500, "only {multi_seen} texts ran as several statements: the generator tests little");
    });
}
