//! Every log variant cutover reads, field by field: the real MariaDB sysbench captures in
//! corpora/sysbench and the hand-written MySQL 5.7/8.0 and Percona samples in corpora/formats.

mod common;

use cutover::capture::{CaptureOptions, read_all};
use cutover::sql::fingerprint::{fingerprint, fingerprint_id};
use cutover::workload::time::format_iso_micros;
use cutover::workload::{Command, Event, TimePrecision};

fn read(rel: &str) -> Vec<Event> {
    let (events, diag) = read_all(&[common::corpus(rel)], CaptureOptions::default())
        .unwrap_or_else(|e| panic!("{rel}: {e}"));
    assert_eq!(diag.skipped_lines, 0, "{rel}: {diag:?}");
    events
}

fn start(e: &Event) -> String {
    format_iso_micros(e.start_us.expect("a start time"))
}

#[test]
fn mysql80_slow_log_with_log_slow_extra() {
    let ev = read("formats/mysql80-slow-extra.log");
    assert_eq!(ev.len(), 4);
    // Start: is used as is, to the microsecond.
    assert_eq!(start(&ev[0]), "2024-05-01T10:00:00.249750Z");
    assert_eq!(ev[0].time_precision, TimePrecision::Microsecond);
    assert_eq!(
        (ev[0].session, ev[0].duration_us, ev[0].lock_us),
        (15, Some(250), Some(10))
    );
    assert_eq!(
        (
            ev[0].user.as_deref(),
            ev[0].host.as_deref(),
            ev[0].db.as_deref()
        ),
        (Some("app"), Some("web1"), Some("shop"))
    );
    assert_eq!(
        (ev[0].rows_sent, ev[0].rows_examined, ev[0].errno),
        (Some(1), Some(1), Some(0))
    );
    // An error, with the newer `Count_hit_tmp_table_size` field and its double space.
    assert_eq!(
        (ev[1].errno, start(&ev[1])),
        (Some(1146), "2024-05-01T10:00:00.300123Z".to_string())
    );
    // `use shop;` is file-global: it still applies to the second entry.
    assert_eq!(ev[1].db.as_deref(), Some("shop"));
    // Admin command.
    assert_eq!((ev[2].command, ev[2].sql.len()), (Command::Quit, 0));
    // A statement whose password the server rewrote.
    assert!(ev[3].redacted);
    assert_eq!(ev[3].db.as_deref(), Some("mysql"));
}

#[test]
fn mysql57_slow_log() {
    let ev = read("formats/mysql57-slow.log");
    assert_eq!(ev.len(), 3);
    // No Start: here, so start = # Time (the end) - Query_time, at microsecond precision.
    assert_eq!(start(&ev[0]), "2021-10-12T01:13:38.131029Z");
    // A string literal holding `;` + newline + a `# Time:` line does not end the entry.
    let sql = ev[0].sql_lossy();
    assert!(sql.starts_with("SELECT id, total\n  FROM orders"), "{sql}");
    assert!(
        sql.ends_with("# really not a new entry' ORDER BY id"),
        "{sql}"
    );
    // Entries are in end order; the third started before the second.
    assert_eq!(start(&ev[1]), "2021-10-12T01:13:38.130000Z");
    assert_eq!(start(&ev[2]), "2021-10-12T01:13:38.100000Z");
    assert_eq!(
        (ev[2].session, ev[2].user.as_deref(), ev[2].host.as_deref()),
        (5, Some("root"), Some("localhost"))
    );
}

#[test]
fn percona_slow_log_extras() {
    let ev = read("formats/percona57-slow.log");
    assert_eq!(ev.len(), 2);
    assert_eq!(
        (ev[0].session, ev[0].db.as_deref(), ev[0].rows_affected),
        (101, Some("shop"), Some(0))
    );
    assert_eq!(ev[1].errno, Some(1062));
}

#[test]
fn mysql80_general_log_with_offsets_and_prepared_statements() {
    let ev = read("formats/mysql80-general-offset.log");
    let cmds: Vec<Command> = ev.iter().map(|e| e.command).collect();
    use Command::*;
    assert_eq!(
        cmds,
        vec![
            Connect, Query, Prepare, Execute, Execute, CloseStmt, Connect, InitDb, Query, Query,
            Query, ChangeUser, Query, Quit, Quit
        ]
    );
    // +08:00 converted to UTC.
    assert_eq!(start(&ev[0]), "2024-05-01T10:00:00.000100Z");
    // Connect gives user, host and database to the session.
    assert_eq!(
        (
            ev[1].user.as_deref(),
            ev[1].host.as_deref(),
            ev[1].db.as_deref()
        ),
        (Some("app"), Some("10.0.0.5"), Some("shop"))
    );
    // Executes carry their values and point at the Prepare of the same fingerprint.
    assert_eq!(
        ev[3].sql_lossy(),
        "SELECT name FROM customers WHERE id = 42"
    );
    assert_eq!(
        (ev[3].prepared_stmt, ev[4].prepared_stmt),
        (Some(1), Some(1))
    );
    assert_eq!(ev[3].fingerprint_id, ev[2].fingerprint_id);
    // `Connect … on  using Socket`: no database until Init DB.
    assert_eq!(ev[6].db, None);
    assert_eq!(ev[8].db.as_deref(), Some("archive"));
    // A continuation line that looks like `<id> <word>` stays in the statement.
    assert_eq!(ev[8].sql_lossy(), "SELECT a,\n       10 AS x\nFROM t");
    // A multi-statement Query becomes one event per statement.
    assert_eq!(
        (ev[9].sql_lossy().as_ref(), ev[9].multi),
        ("SELECT 1", Some((0, 2)))
    );
    assert_eq!(
        (ev[10].sql_lossy().as_ref(), ev[10].multi),
        ("SELECT 'a;b'", Some((1, 2)))
    );
    // Change user switches user and database.
    assert_eq!(
        (ev[12].user.as_deref(), ev[12].db.as_deref()),
        (Some("admin"), Some("mysql"))
    );
    assert!(ev[12].redacted);
}

#[test]
fn mariadb_general_log_with_restart_and_use() {
    let ev = read("formats/mariadb-general-restart.log");
    assert_eq!(ev.len(), 8);
    // Timestamps only when the second changes: inherited, second precision.
    assert_eq!(start(&ev[2]), "2024-05-01T10:00:00.000000Z");
    assert_eq!(ev[2].time_precision, TimePrecision::Second);
    // `USE archive` switches the database for what follows (not for itself).
    assert_eq!(
        (ev[2].db.as_deref(), ev[3].db.as_deref()),
        (Some("shop"), Some("archive"))
    );
    // After the restart header, thread 8 is a new connection with its own user and database.
    assert_eq!(
        (ev[5].command, ev[6].user.as_deref(), ev[6].db.as_deref()),
        (Command::Connect, Some("app"), Some("inventory"))
    );
    assert_eq!(ev[6].origin.line, 13);
}

#[test]
fn mariadb_sysbench_general_log_with_prepared_statements() {
    let ev = read("sysbench/general-ps.log.gz");
    assert_eq!(ev.len(), 3000);
    let executes: Vec<&Event> = ev
        .iter()
        .filter(|e| e.command == Command::Execute)
        .collect();
    assert!(executes.len() > 2500);
    // Every Execute finds the Prepare with its fingerprint in its own session.
    assert!(
        executes.iter().all(|e| e.prepared_stmt.is_some()),
        "an Execute without its Prepare"
    );
    // Execute texts carry literal values; Prepare texts carry placeholders; both fingerprint alike.
    let e = executes
        .iter()
        .find(|e| e.sql_lossy().starts_with("SELECT c FROM sbtest"))
        .expect("a point select");
    assert!(!e.sql_lossy().contains('?'));
    let prepare = ev
        .iter()
        .find(|p| {
            p.command == Command::Prepare
                && p.session == e.session
                && p.fingerprint_id == e.fingerprint_id
        })
        .expect("its Prepare");
    assert!(prepare.sql_lossy().contains('?'));
    assert!(ev.iter().all(|e| e.db.as_deref() == Some("cutover_sbtest")
        || e.command == Command::Quit
        || e.command == Command::Connect));
}

#[test]
fn mariadb_sysbench_slow_logs() {
    for rel in ["sysbench/slow-ps.log.gz", "sysbench/slow-text.log.gz"] {
        let ev = read(rel);
        assert_eq!(ev.len(), 3000, "{rel}");
        assert!(
            ev.iter().all(|e| e.duration_us.is_some()
                && e.start_us.is_some()
                && e.db.as_deref() == Some("cutover_sbtest")),
            "{rel}"
        );
        assert!(
            ev.iter()
                .all(|e| e.rows_affected.is_some() && e.user.as_deref() == Some("root")),
            "{rel}"
        );
        // MariaDB prints whole seconds: start = end second - Query_time, in session order.
        assert!(ev.iter().all(|e| e.time_precision == TimePrecision::Second));
        let mut last: std::collections::HashMap<u64, i64> = Default::default();
        for e in &ev {
            let s = e.start_us.unwrap_or_default();
            if let Some(prev) = last.insert(e.session, s) {
                assert!(
                    s >= prev,
                    "{rel}: session {} went back in time at line {}",
                    e.session,
                    e.origin.line
                );
            }
        }
        let sessions: std::collections::HashSet<u64> = ev.iter().map(|e| e.session).collect();
        assert_eq!(sessions.len(), 4, "{rel}: sysbench ran 4 threads");
    }
}

#[test]
fn sysbench_text_and_prepared_runs_share_fingerprints() {
    let text = read("sysbench/general-text.log.gz");
    let ps = read("sysbench/general-ps.log.gz");
    let point_select = fingerprint_id(fingerprint(b"SELECT c FROM sbtest1 WHERE id=1").as_bytes());
    assert!(
        text.iter()
            .any(|e| e.command == Command::Query && e.fingerprint_id == point_select)
    );
    assert!(
        ps.iter()
            .any(|e| e.command == Command::Execute && e.fingerprint_id == point_select)
    );
}
