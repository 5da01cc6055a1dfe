//! The hard cases of log parsing (../shared/research/replay_anchors.md §12) and bad input, on
//! synthetic logs written the way the servers write them.

mod common;

use cutover::capture::{CaptureError, CaptureOptions, read_all};
use cutover::workload::diag::Issue;
use cutover::workload::time::format_iso_micros;
use cutover::workload::{Command, Event, LogType};

fn read_text(text: &[u8]) -> (Vec<Event>, cutover::workload::diag::Diagnostics) {
    let (_dir, path) = common::temp_log(text);
    read_all(&[path], CaptureOptions::default()).expect("read")
}

fn slow_entry(time: &str, id: u64, qt: &str, sql: &str) -> String {
    format!(
        "# Time: {time}\n# User@Host: app[app] @ localhost []  Id: {id:>5}\n# Query_time: {qt}  Lock_time: 0.000000 Rows_sent: 0  Rows_examined: 0\nSET timestamp=1714557600;\n{sql};\n"
    )
}

#[test]
fn slow_log_string_holding_semicolon_newline_hash() {
    let mut log = slow_entry(
        "2024-05-01T10:00:00.000010Z",
        1,
        "0.000010",
        "INSERT INTO t VALUES ('a;\n# not metadata;\n# Time: 2024-05-01T10:00:00Z\n')",
    );
    log += &slow_entry("2024-05-01T10:00:00.000020Z", 2, "0.000010", "SELECT 2");
    let (ev, diag) = read_text(log.as_bytes());
    assert_eq!(ev.len(), 2, "{diag:?}");
    assert_eq!(
        ev[0].sql_lossy(),
        "INSERT INTO t VALUES ('a;\n# not metadata;\n# Time: 2024-05-01T10:00:00Z\n')"
    );
    assert!(diag.is_empty());
}

#[test]
fn slow_log_missing_time_lines_inherit() {
    // MySQL 5.6: `# Time:` is the end, so the start is that less Query_time.
    let log = "# Time: 240501 10:00:00\n# User@Host: a[a] @ h []  Id:     1\n# Query_time: 0.5  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\nSELECT 1;\n# User@Host: a[a] @ h []  Id:     2\n# Query_time: 0.25  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\nSELECT 2;\n";
    let (ev, _) = read_text(log.as_bytes());
    assert_eq!(
        format_iso_micros(ev[0].start_us.unwrap()),
        "2024-05-01T09:59:59.500000Z"
    );
    assert_eq!(
        format_iso_micros(ev[1].start_us.unwrap()),
        "2024-05-01T09:59:59.750000Z"
    );
    // MariaDB (`QC_hit:`): `# Time:` is the second the statement started.
    let log = "# Time: 240501 10:00:00\n# User@Host: a[a] @ h []\n# Thread_id: 1  Schema: db1  QC_hit: No\n# Query_time: 0.5  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\nSELECT 1;\n# User@Host: a[a] @ h []\n# Thread_id: 2  Schema: db1  QC_hit: No\n# Query_time: 0.25  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\nSELECT 2;\n";
    let (ev, _) = read_text(log.as_bytes());
    let starts: Vec<String> = ev
        .iter()
        .map(|e| format_iso_micros(e.start_us.unwrap()))
        .collect();
    assert_eq!(starts, ["2024-05-01T10:00:00.000000Z"; 2]);
}

#[test]
fn slow_log_use_is_file_global_and_schema_per_entry() {
    let log = "# User@Host: a[a] @ h []\n# Query_time: 1  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\nuse db1;\nSELECT 1;\n# User@Host: a[a] @ h []\n# Query_time: 1  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\nSELECT 2;\n# User@Host: a[a] @ h []\n# Thread_id: 3  Schema: db9  QC_hit: No\n# Query_time: 1  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\nSELECT 3;\n";
    let (ev, _) = read_text(log.as_bytes());
    let dbs: Vec<Option<&str>> = ev.iter().map(|e| e.db.as_deref()).collect();
    assert_eq!(dbs, vec![Some("db1"), Some("db1"), Some("db9")]);
}

#[test]
fn general_log_commands_with_spaces_and_reused_threads() {
    let log = b"240501 10:00:00\t     5 Connect\tu@h on  using TCP/IP\n\t\t     5 Init DB\tshop\n\t\t     5 Query\tSELECT 1\n\t\t     5 Change user\tv@h on other\n\t\t     5 Reset stmt\t\n\t\t     5 Close stmt\t\n\t\t     5 Quit\t\n\t\t     5 Connect\tw@h on fresh\n\t\t     5 Query\tSELECT 2\n";
    let (ev, _) = read_text(log);
    let got: Vec<(Command, Option<&str>, Option<&str>)> = ev
        .iter()
        .map(|e| (e.command, e.user.as_deref(), e.db.as_deref()))
        .collect();
    use Command::*;
    assert_eq!(
        got,
        vec![
            (Connect, Some("u"), None),
            (InitDb, Some("u"), Some("shop")),
            (Query, Some("u"), Some("shop")),
            (ChangeUser, Some("v"), Some("other")),
            (ResetStmt, Some("v"), Some("other")),
            (CloseStmt, Some("v"), Some("other")),
            (Quit, Some("v"), Some("other")),
            (Connect, Some("w"), Some("fresh")),
            (Query, Some("w"), Some("fresh")),
        ]
    );
}

#[test]
fn general_log_execute_without_prepare_is_noted() {
    let log = b"\t\t     5 Execute\tSELECT 1 FROM t WHERE id = 3\n";
    let (ev, diag) = read_text(log);
    assert_eq!(ev[0].prepared_stmt, None);
    assert_eq!(diag.count(Issue::ExecuteWithoutPrepare), 1);
}

#[test]
fn passwords_never_come_out() {
    let log = b"\t\t     5 Query\tGRANT ALL ON *.* TO 'x'@'%' IDENTIFIED BY 'pw-one'\n\t\t     5 Query\tSET PASSWORD FOR 'x'@'%' = PASSWORD('pw-two')\n\t\t     5 Query\tCHANGE MASTER TO MASTER_PASSWORD='pw-three'\n";
    let (ev, diag) = read_text(log);
    for e in &ev {
        assert!(e.redacted);
        assert!(!e.sql_lossy().contains("pw-"), "{}", e.sql_lossy());
    }
    assert_eq!(diag.count(Issue::PasswordMasked), 3);
}

#[test]
fn header_blocks_mid_file() {
    let header = "/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:\nTcp port: 3306  Unix socket: /tmp/s\nTime                 Id Command    Argument\n";
    let mut log = header.to_string();
    log += &slow_entry("2024-05-01T10:00:00.000010Z", 1, "0.000010", "SELECT 1");
    log += header;
    log += &slow_entry("2024-05-01T10:00:01.000010Z", 1, "0.000010", "SELECT 2");
    let (ev, diag) = read_text(log.as_bytes());
    assert_eq!(ev.len(), 2);
    assert!(diag.is_empty(), "{diag:?}");
    assert_eq!(ev[1].origin.line, 12);
}

/// A log with many tricky entries, big enough for many batches and chunks.
fn tricky_slow_log(n: usize) -> String {
    let mut log = String::new();
    for i in 0..n {
        let t = format!(
            "2024-05-01T10:00:{:02}.{:06}Z",
            (i / 1000) % 60,
            i % 1000 * 1000
        );
        let sql = match i % 5 {
            0 => format!("SELECT c FROM sbtest1 WHERE id={i}"),
            1 => format!(
                "INSERT INTO t VALUES ({i}, 'x;\n# Time: 2024-05-01T10:00:00.000001Z\n# User@Host: z[z] @ h []  Id: 77\n')"
            ),
            2 => format!("SELECT a,\n  {i} AS x\nFROM t"),
            3 => format!("UPDATE t SET v = 'it''s {i};' WHERE k = 'a\\'b'"),
            _ => "COMMIT".to_string(),
        };
        log += &slow_entry(&t, (i % 7) as u64 + 1, "0.000100", &sql);
    }
    log
}

#[test]
fn parallel_chunks_read_exactly_like_one_sequential_pass() {
    let log = tricky_slow_log(3000);
    let (_d, path) = common::temp_log(log.as_bytes());
    let one = CaptureOptions {
        batch_bytes: 64 << 20,
        threads: 1,
        min_chunk_bytes: usize::MAX / 2,
        ..Default::default()
    };
    let (seq, d1) = read_all(std::slice::from_ref(&path), one).expect("sequential");
    assert_eq!(seq.len(), 3000);
    assert!(d1.is_empty(), "{d1:?}");
    for (batch, chunk) in [(4096, 512), (1000, 100), (70_000, 1000), (300, 50)] {
        let many = CaptureOptions {
            batch_bytes: batch,
            threads: 4,
            min_chunk_bytes: chunk,
            ..Default::default()
        };
        let (par, d2) = read_all(std::slice::from_ref(&path), many).expect("parallel");
        assert_eq!(par.len(), seq.len(), "batch {batch}");
        for (a, b) in seq.iter().zip(&par) {
            assert_eq!(a, b, "batch {batch} chunk {chunk}");
        }
        assert!(d2.is_empty(), "{d2:?}");
    }
}

#[test]
fn general_log_parallel_equals_sequential() {
    let mut log = String::new();
    for i in 0..2000 {
        let ts = if i % 10 == 0 {
            format!("2405{:02} 10:00:{:02}\t", 1 + i / 600, (i / 10) % 60)
        } else {
            "\t\t".to_string()
        };
        let body = match i % 4 {
            0 => format!("Query\tSELECT {i}"),
            1 => format!("Query\tINSERT INTO t VALUES ('x\n\t\t    99 Query\tnot a record {i}')"),
            2 => format!("Query\tSELECT a,\n       10 AS x\nFROM t{i}"),
            _ => "Execute\tSELECT 1".to_string(),
        };
        log += &format!("{ts}{:>6} {body}\n", i % 9 + 1);
    }
    let (_d, path) = common::temp_log(log.as_bytes());
    let one = CaptureOptions {
        batch_bytes: 64 << 20,
        threads: 1,
        min_chunk_bytes: usize::MAX / 2,
        ..Default::default()
    };
    let (seq, _) = read_all(std::slice::from_ref(&path), one).expect("sequential");
    assert_eq!(seq.len(), 2000);
    assert!(!seq.iter().any(|e| e.session == 99));
    let many = CaptureOptions {
        batch_bytes: 2048,
        threads: 4,
        min_chunk_bytes: 64,
        ..Default::default()
    };
    let (par, _) = read_all(&[path], many).expect("parallel");
    assert_eq!(seq, par);
}

#[test]
fn binary_garbage_is_skipped_with_its_location() {
    let mut log = slow_entry("2024-05-01T10:00:00.000010Z", 1, "0.000010", "SELECT 1").into_bytes();
    let garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    log.extend_from_slice(&garbage);
    log.extend_from_slice(b"\n");
    log.extend_from_slice(
        slow_entry("2024-05-01T10:00:00.000020Z", 2, "0.000010", "SELECT 2").as_bytes(),
    );
    let (ev, diag) = read_text(&log);
    let texts: Vec<String> = ev.iter().map(|e| e.sql_lossy().into_owned()).collect();
    assert!(texts.contains(&"SELECT 2".to_string()), "{texts:?}");
    assert!(texts.contains(&"SELECT 1".to_string()), "{texts:?}");
    assert!(diag.skipped_lines > 0);
    assert!(
        diag.examples
            .iter()
            .any(|n| n.line >= 6 && n.issue.is_skip()),
        "{diag:?}"
    );
}

#[test]
fn truncated_final_events() {
    let mut log = slow_entry("2024-05-01T10:00:00.000010Z", 1, "0.000010", "SELECT 1");
    log += "# Time: 2024-05-01T10:00:00.000020Z\n# User@Host: a[a] @ h []  Id: 2\n# Query_time: 0.1  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\nSELECT * FROM t WHE";
    let (ev, diag) = read_text(log.as_bytes());
    assert_eq!(ev.len(), 1);
    assert_eq!(diag.count(Issue::TruncatedFinalEvent), 1);
    let (ev, diag) = read_text(b"\t\t     5 Query\tSELECT 1\n\t\t     5 Query\tSELECT * FR");
    assert_eq!(ev.len(), 1);
    assert_eq!(diag.count(Issue::TruncatedFinalEvent), 1);
}

#[test]
fn fifty_megabyte_statement() {
    let mut sql = String::from("INSERT INTO t VALUES ");
    let mut i = 0u64;
    while sql.len() < 50 << 20 {
        sql += &format!("({i}, 'row {i} with a ; and a quote '' inside'),");
        i += 1;
    }
    sql.pop();
    let mut log = slow_entry("2024-05-01T10:00:00.000010Z", 1, "1.5", &sql);
    log += &slow_entry("2024-05-01T10:00:02.000010Z", 1, "0.000010", "SELECT 1");
    let (_d, path) = common::temp_log(log.as_bytes());
    let (ev, diag) = read_all(&[path], CaptureOptions::default()).expect("read");
    assert_eq!(ev.len(), 2);
    assert_eq!(ev[0].sql.len(), sql.len());
    assert!(diag.is_empty());
}

#[test]
fn non_utf8_statements_are_kept_byte_for_byte() {
    let (ev, diag) = read_text(b"\t\t     5 Query\tSELECT 'caf\xe9'\n");
    assert_eq!(ev[0].sql, b"SELECT 'caf\xe9'");
    assert_eq!(diag.count(Issue::NonUtf8), 1);
}

#[test]
fn unknown_line_shapes_are_reported_not_fatal() {
    let mut log = String::from("this is not a log line\nnor this\n");
    log += &slow_entry("2024-05-01T10:00:00.000010Z", 1, "0.000010", "SELECT 1");
    log += "# Weird: metadata we do not know\n";
    let (ev, diag) = read_text(log.as_bytes());
    assert_eq!(ev.len(), 1);
    assert_eq!(diag.count(Issue::NotARecord), 1);
    assert_eq!(diag.examples[0].line, 1);
    assert_eq!(diag.examples[0].lines, 2);
}

#[test]
fn unreadable_and_unrecognised_inputs_are_clear_errors() {
    let err = read_all(
        &["/nonexistent/cutover.log".into()],
        CaptureOptions::default(),
    )
    .expect_err("an error");
    assert!(
        err.to_string()
            .contains("cannot open /nonexistent/cutover.log"),
        "{err}"
    );
    let dir = tempfile::tempdir().expect("dir");
    let err =
        read_all(&[dir.path().to_path_buf()], CaptureOptions::default()).expect_err("an error");
    assert!(err.to_string().contains("directory"), "{err}");
    let (_d, path) = common::temp_log(b"\x7fELF\x02\x01\x01\x00\x00\x00garbage\nmore garbage\n");
    let err =
        read_all(std::slice::from_ref(&path), CaptureOptions::default()).expect_err("an error");
    assert!(matches!(err, CaptureError::UnknownFormat { .. }), "{err}");
    assert!(err.to_string().contains("--log-type"), "{err}");
    // Forcing the type reads it, skipping what is not a record.
    let (ev, diag) = read_all(
        &[path],
        CaptureOptions {
            log_type: Some(LogType::General),
            ..Default::default()
        },
    )
    .expect("forced");
    assert!(ev.is_empty());
    assert!(diag.skipped_lines >= 1);
}

#[test]
fn gzip_and_plain_read_alike() {
    let plain = common::corpus("formats/mysql57-slow.log");
    let text = std::fs::read(&plain).expect("read");
    let dir = tempfile::tempdir().expect("dir");
    let gz = dir.path().join("x.log.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).expect("create"),
        flate2::Compression::default(),
    );
    std::io::Write::write_all(&mut enc, &text).expect("gzip");
    enc.finish().expect("finish");
    let (a, _) = read_all(&[plain], CaptureOptions::default()).expect("plain");
    let (b, _) = read_all(std::slice::from_ref(&gz), CaptureOptions::default()).expect("gz");
    assert_eq!(a.len(), b.len());
    assert!(
        a.iter()
            .zip(&b)
            .all(|(x, y)| x.sql == y.sql && x.start_us == y.start_us)
    );
    // A truncated gzip file: what was read is kept, and the failure is reported.
    let bytes = std::fs::read(&gz).expect("read gz");
    std::fs::write(&gz, &bytes[..bytes.len() / 2]).expect("truncate");
    let (_, diag) = read_all(&[gz], CaptureOptions::default()).expect("truncated gz still reads");
    assert!(
        diag.count(Issue::ReadError) + diag.count(Issue::TruncatedFinalEvent) >= 1,
        "{diag:?}"
    );
}

/// A slow-log entry holding several statements (hardening issue, item 1): each is an event of its
/// own, judged and replayed apart; the entry's time and rows are counted once, on the first.
#[test]
fn slow_log_multi_statement_entry_is_split() {
    let mut log = slow_entry(
        "2024-05-01T10:00:00.000010Z",
        7,
        "0.000300",
        "SELECT 1; SET GLOBAL max_connections=77",
    );
    log += &slow_entry("2024-05-01T10:00:00.000020Z", 7, "0.000010", "SELECT 'a;b'");
    let (ev, diag) = read_text(log.as_bytes());
    let sqls: Vec<String> = ev.iter().map(|e| e.sql_lossy().into_owned()).collect();
    assert_eq!(
        sqls,
        ["SELECT 1", "SET GLOBAL max_connections=77", "SELECT 'a;b'"],
        "{diag:?}"
    );
    let multi: Vec<Option<(u16, u16)>> = ev.iter().map(|e| e.multi).collect();
    assert_eq!(multi, [Some((0, 2)), Some((1, 2)), None]);
    let durations: Vec<Option<u64>> = ev.iter().map(|e| e.duration_us).collect();
    assert_eq!(durations, [Some(300), None, Some(10)]);
}
