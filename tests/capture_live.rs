//! Captures real general and slow logs from the MariaDB at CUTOVER_TEST_MYSQL_URL while running the
//! hard cases through a real client (text and binary protocol), then reads them back with cutover.
//!
//! The server must run on this machine (it writes the log files into a temporary directory). Its logging
//! settings are restored afterwards.

mod common;

use cutover::capture::{CaptureOptions, read_all};
use cutover::workload::{Command, Event};
use mysql_async::prelude::*;
use std::os::unix::fs::PermissionsExt;

fn mysql_url() -> String {
    std::env::var("CUTOVER_TEST_MYSQL_URL")
        .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306/test".into())
}

async fn connect() -> mysql_async::Conn {
    let url = mysql_url();
    let opts = mysql_async::Opts::from_url(&url)
        .unwrap_or_else(|e| panic!("bad CUTOVER_TEST_MYSQL_URL {url}: {e}"));
    let opts = mysql_async::OptsBuilder::from_opts(opts).prefer_socket(false);
    mysql_async::Conn::new(opts).await.unwrap_or_else(|e| {
        panic!("cannot connect to MariaDB at {url}: {e}. Start it with scripts/setup-servers.sh, or point CUTOVER_TEST_MYSQL_URL at a server")
    })
}

const FAKE_SLOW_ENTRY: &str = "done;\n# Time: 2024-05-01T10:00:00.000002Z\n# User@Host: x[x] @ h []  Id: 9\n# Query_time: 0.1  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\nSELECT 1;\n";
const FAKE_GENERAL_RECORD: &str = "x\n\t\t    99 Query\tDROP TABLE everything\n";
const MULTILINE: &str = "SELECT id,\n       10 AS x\nFROM notes\nWHERE id = 1";

/// Runs the workload; returns (text session id, prepared session id).
async fn workload(admin: &mut mysql_async::Conn) -> Result<(u64, u64), mysql_async::Error> {
    let mut a = connect().await;
    let mut b = connect().await;
    let id_a: u64 = a
        .query_first("SELECT CONNECTION_ID()")
        .await?
        .unwrap_or_default();
    let id_b: u64 = b
        .query_first("SELECT CONNECTION_ID()")
        .await?
        .unwrap_or_default();
    a.query_drop("CREATE DATABASE IF NOT EXISTS cutover_capture_test")
        .await?;
    a.query_drop("USE cutover_capture_test").await?;
    a.query_drop(
        "CREATE TABLE IF NOT EXISTS notes (id INT PRIMARY KEY, note TEXT) DEFAULT CHARSET=latin1",
    )
    .await?;
    a.query_drop("DELETE FROM notes").await?;
    a.exec_drop("INSERT INTO notes VALUES (?, ?)", (1, FAKE_SLOW_ENTRY))
        .await?; // binary protocol
    a.query_drop(format!(
        "INSERT INTO notes VALUES (2, '{}')",
        FAKE_SLOW_ENTRY
    ))
    .await?;
    a.query_drop(format!(
        "INSERT INTO notes VALUES (3, '{}')",
        FAKE_GENERAL_RECORD
    ))
    .await?;
    a.query_drop("INSERT INTO notes VALUES (4, 'O''Brien'), (5, \"dq\"), (6, 0x1F)")
        .await?;
    let _: Vec<(i32, i32)> = a.query(MULTILINE).await?;
    // Multi-statement text (CLIENT_MULTI_STATEMENTS): one general-log record, two slow-log entries.
    let mut r = a.query_iter("SELECT 1; SELECT 'a;b'").await?;
    while !r.is_empty() {
        let _: Vec<mysql_async::Row> = r.collect().await?;
    }
    drop(r);
    // Not UTF-8: a latin1 é sent as one raw byte.
    a.query_drop("SET NAMES latin1").await?;
    a.query_drop(&b"INSERT INTO notes VALUES (7, 'caf\xe9')"[..])
        .await?;
    admin
        .query_drop("DROP USER IF EXISTS 'cutover_tmp'@'localhost'")
        .await?;
    a.query_drop("CREATE USER 'cutover_tmp'@'localhost' IDENTIFIED BY 'hunter2-secret'")
        .await?;
    a.query_drop("DROP USER 'cutover_tmp'@'localhost'").await?;
    // Prepared statements on the other session.
    b.query_drop("USE cutover_capture_test").await?;
    for id in [1, 4, 5] {
        let _: Option<String> = b
            .exec_first("SELECT note FROM notes WHERE id = ?", (id,))
            .await?;
    }
    b.exec_drop("UPDATE notes SET note = ? WHERE id = ?", ("it's", 5))
        .await?;
    a.disconnect().await?;
    b.disconnect().await?;
    Ok((id_a, id_b))
}

fn events_of(path: &std::path::Path, sessions: &[u64]) -> Vec<Event> {
    let (events, diag) = read_all(&[path.to_path_buf()], CaptureOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(diag.skipped_lines, 0, "{}: {diag:?}", path.display());
    events
        .into_iter()
        .filter(|e| sessions.contains(&e.session))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn captures_real_logs_faithfully() {
    let mut admin = connect().await;
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o1777)).expect("chmod");
    let general = dir.path().join("general.log");
    let slow = dir.path().join("slow.log");
    for f in [&general, &slow] {
        std::fs::write(f, b"").expect("create log");
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o666)).expect("chmod");
    }
    let saved: (u8, String, u8, String, f64) = admin
        .query_first("SELECT @@global.general_log, @@global.general_log_file, @@global.slow_query_log, @@global.slow_query_log_file, @@global.long_query_time")
        .await
        .expect("read logging settings")
        .expect("a row");
    admin
        .query_drop(format!(
            "SET GLOBAL general_log_file = '{}', slow_query_log_file = '{}', long_query_time = 0; SET GLOBAL general_log = 1, slow_query_log = 1",
            general.display(),
            slow.display()
        ))
        .await
        .expect("enable logs (needs SUPER on a local server)");
    let outcome = workload(&mut admin).await;
    admin
        .query_drop(format!(
            "SET GLOBAL general_log = 0, slow_query_log = 0; SET GLOBAL general_log_file = '{}', slow_query_log_file = '{}', long_query_time = {}; SET GLOBAL general_log = {}, slow_query_log = {}; DROP DATABASE IF EXISTS cutover_capture_test",
            saved.1, saved.3, saved.4, saved.0, saved.2
        ))
        .await
        .expect("restore logging settings");
    let (a, b) = outcome.expect("workload");
    assert!(
        std::fs::metadata(&general).map(|m| m.len()).unwrap_or(0) > 0,
        "the server wrote no general log: is it on this machine?"
    );

    // General log.
    let ev = events_of(&general, &[a, b]);
    let texts: Vec<String> = ev.iter().map(|e| e.sql_lossy().into_owned()).collect();
    let count = |s: &str| texts.iter().filter(|t| t.contains(s)).count();
    assert_eq!(
        count("# Time: 2024-05-01T10:00:00.000002Z"),
        2,
        "{texts:#?}"
    );
    assert_eq!(count("99 Query\tDROP TABLE everything"), 1, "{texts:#?}");
    assert!(!ev.iter().any(|e| e.session == 99 || e.session == 9));
    assert_eq!(count(MULTILINE), 1);
    let multi: Vec<&Event> = ev.iter().filter(|e| e.multi.is_some()).collect();
    assert_eq!(
        multi
            .iter()
            .map(|e| e.sql_lossy().into_owned())
            .collect::<Vec<_>>(),
        vec!["SELECT 1", "SELECT 'a;b'"]
    );
    // Prepared statements: Execute texts hold the values, linked to their Prepare.
    let executes: Vec<&Event> = ev
        .iter()
        .filter(|e| e.session == b && e.command == Command::Execute)
        .collect();
    assert_eq!(executes.len(), 4, "{texts:#?}");
    assert!(executes.iter().all(|e| e.prepared_stmt.is_some()));
    assert!(
        executes
            .iter()
            .any(|e| e.sql_lossy() == "SELECT note FROM notes WHERE id = 4")
    );
    assert!(
        executes
            .iter()
            .any(|e| e.sql_lossy() == "UPDATE notes SET note = 'it\\'s' WHERE id = 5"),
        "{texts:#?}"
    );
    // The database: from Connect for session b, then USE.
    assert!(
        executes
            .iter()
            .all(|e| e.db.as_deref() == Some("cutover_capture_test"))
    );
    // Bytes that are not UTF-8 are kept as they are.
    assert!(
        ev.iter()
            .any(|e| e.sql == b"INSERT INTO notes VALUES (7, 'caf\xe9')")
    );
    // MariaDB logs the password in clear: cutover masks it.
    assert!(
        !texts.iter().any(|t| t.contains("hunter2")),
        "password leaked"
    );
    assert!(
        ev.iter()
            .any(|e| e.redacted && e.sql_lossy().contains("IDENTIFIED BY '<redacted>'"))
    );

    // Slow log: the same statements, with timing, one entry per statement of the multi-statement.
    let ev = events_of(&slow, &[a, b]);
    let texts: Vec<String> = ev.iter().map(|e| e.sql_lossy().into_owned()).collect();
    let count = |s: &str| texts.iter().filter(|t| t.contains(s)).count();
    assert_eq!(
        count("# Time: 2024-05-01T10:00:00.000002Z"),
        2,
        "{texts:#?}"
    );
    assert_eq!(count(MULTILINE), 1);
    assert_eq!(count("SELECT 'a;b'"), 1);
    assert!(
        !texts.iter().any(|t| t.contains("hunter2")),
        "password leaked"
    );
    assert!(
        ev.iter()
            .all(|e| e.duration_us.is_some() && e.start_us.is_some())
    );
    assert!(
        ev.iter()
            .filter(|e| e.session == b)
            .any(|e| e.sql_lossy() == "SELECT note FROM notes WHERE id = 5")
    );
}
