//! The `cutover` command line: documented outputs, exit codes and error messages.

mod common;

use std::process::{Command, Output, Stdio};

fn cutover(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run cutover")
}

fn corpus(rel: &str) -> String {
    common::corpus(rel).display().to_string()
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

#[test]
fn digest_json_has_the_documented_fields() {
    let out = cutover(&[
        "digest",
        "--format",
        "json",
        &corpus("sysbench/slow-ps.log.gz"),
    ]);
    let d = json(&out);
    assert_eq!(d["events"], 3000);
    assert_eq!(d["statements"], 3000);
    assert_eq!(d["sessions"], 4);
    let fps = d["fingerprints"].as_array().expect("fingerprints");
    assert_eq!(fps.len(), 38);
    let total: u64 = fps
        .iter()
        .map(|f| f["count"].as_u64().expect("count"))
        .sum();
    assert_eq!(total, 3000);
    for f in fps {
        assert_eq!(f["id"].as_str().expect("id").len(), 16);
        assert!(f["fingerprint"].is_string());
        for k in ["total_s", "avg_s", "p50_s", "p95_s", "p99_s", "max_s"] {
            assert!(f["query_time"][k].is_number(), "{k} in {f}");
        }
        assert!(f["query_time"]["p50_s"].as_f64() <= f["query_time"]["p99_s"].as_f64());
        assert!(f["sample"]["sql"].is_string());
    }
    // Ranked by total time.
    let totals: Vec<f64> = fps
        .iter()
        .map(|f| f["query_time"]["total_s"].as_f64().unwrap_or(0.0))
        .collect();
    assert!(totals.windows(2).all(|w| w[0] >= w[1]));
    assert!(d["qps"]["series"].as_array().is_some_and(|s| !s.is_empty()));
    assert_eq!(d["logs"][0]["log_type"], "slow");
    assert_eq!(d["logs"][0]["compressed"], true);
}

#[test]
fn digest_text_report() {
    let out = cutover(&[
        "digest",
        "--limit",
        "3",
        &corpus("sysbench/general-ps.log.gz"),
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("# Overall: 3,000 events (2,843 statements)"),
        "{text}"
    );
    assert!(text.contains("# Profile"));
    assert!(text.contains("# Query 3:"));
    assert!(!text.contains("# Query 4:"));
    assert!(text.contains("more fingerprints"));
}

#[test]
fn events_jsonl_one_object_per_event() {
    let out = cutover(&[
        "events",
        "--format",
        "jsonl",
        &corpus("formats/mysql80-general-offset.log"),
    ]);
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 15);
    let exec = &lines[3];
    assert_eq!(exec["command"], "execute");
    assert_eq!(exec["session"], 21);
    assert_eq!(exec["start"], "2024-05-01T10:00:00.000400Z");
    assert_eq!(exec["start_us"], 1714557600000400i64);
    assert_eq!(exec["sql"], "SELECT name FROM customers WHERE id = 42");
    assert_eq!(exec["prepared_stmt"], 1);
    assert_eq!(exec["db"], "shop");
    assert_eq!(exec["user"], "app");
    assert_eq!(exec["line"], 7);
    assert_eq!(exec["fingerprint_id"], lines[2]["fingerprint_id"]);
    for k in [
        "seq",
        "time_precision",
        "duration_us",
        "host",
        "rows_sent",
        "errno",
        "multi",
        "redacted",
        "file",
    ] {
        assert!(exec.get(k).is_some(), "{k}");
    }
}

#[test]
fn events_jsonl_keeps_non_utf8_bytes() {
    let (_d, path) = common::temp_log(b"\t\t     5 Query\tSELECT 'caf\xe9'\n");
    let out = cutover(&["events", "-q", &path.display().to_string()]);
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(line["sql_base64"], "U0VMRUNUICdjYWbpJw==");
}

#[test]
fn reads_standard_input_and_forced_type() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(["digest", "--format", "json", "--log-type", "slow", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let log = std::fs::read(common::corpus("formats/percona57-slow.log")).expect("read");
    std::io::Write::write_all(child.stdin.as_mut().expect("stdin"), &log).expect("write");
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("wait");
    assert_eq!(json(&out)["events"], 2);
}

#[test]
fn timezone_option_applies_to_naive_timestamps() {
    let (_d, path) = common::temp_log(b"240501 18:00:00\t     5 Query\tSELECT 1\n");
    let out = cutover(&[
        "events",
        "--log-timezone",
        "+08:00",
        &path.display().to_string(),
    ]);
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(line["start"], "2024-05-01T10:00:00.000000Z");
    let out = cutover(&[
        "events",
        "--log-timezone",
        "Mars",
        &path.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--log-timezone"));
}

#[test]
fn errors_are_clear_and_exit_2() {
    let out = cutover(&["digest", "/nonexistent/slow.log"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot open /nonexistent/slow.log: No such file or directory"),
        "{err}"
    );
    assert!(err.contains("Check the path"), "{err}");
    // The cause is said once, not again after the message that already names it.
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    let out = cutover(&["audit", "--target", "postgres", "/nonexistent/script.sql"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot read the SQL script"), "{err}");
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    let (_d, path) = common::temp_log(b"\x89PNG\r\n\x1a\n\x00\x00binary");
    let out = cutover(&["digest", &path.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--log-type general|slow"));
}

#[test]
fn an_input_without_records_is_said_so() {
    // An empty file, and a general log with only the server's banner (logging switched on and off
    // again before any statement): both read as valid, empty captures, and each gets a note.
    let (_e, empty) = common::temp_log(b"");
    let (_b, banner) = common::temp_log(
        b"/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:\n\
          Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\n\
          Time\t\t    Id Command\tArgument\n",
    );
    for (path, detail) in [
        (&empty, "an empty file"),
        (&banner, "3 lines, none a record"),
    ] {
        let path = path.display().to_string();
        let out = cutover(&["digest", "--format", "json", &path]);
        let j = json(&out);
        assert_eq!(j["diagnostics"]["counts"]["no_records"], 1, "{j:#}");
        let note = &j["diagnostics"]["examples"][0];
        assert_eq!(note["issue"], "no_records", "{j:#}");
        assert_eq!(note["file"], path.as_str(), "{j:#}");
        assert_eq!(note["detail"], detail, "{j:#}");
        let text = String::from_utf8_lossy(&cutover(&["digest", &path]).stdout).into_owned();
        assert!(text.contains("holds no log record"), "{text}");
    }
    // A log with records gets no such note.
    let out = cutover(&[
        "digest",
        "--format",
        "json",
        &corpus("sysbench/slow-ps.log.gz"),
    ]);
    assert!(
        json(&out)["diagnostics"]["counts"]
            .get("no_records")
            .is_none()
    );
}

#[test]
fn notes_are_reported_with_file_and_line() {
    let (_d, path) = common::temp_log(b"garbage line\n\t\t     5 Query\tSELECT 1\n");
    let out = cutover(&["digest", &path.display().to_string()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "{}:1: lines that belong to no log record were skipped",
            path.display()
        )),
        "{text}"
    );
    let out = cutover(&["digest", "--format", "json", &path.display().to_string()]);
    let d = json(&out);
    assert_eq!(d["diagnostics"]["skipped_lines"], 1);
    assert_eq!(d["diagnostics"]["counts"]["not_a_record"], 1);
    assert_eq!(d["diagnostics"]["examples"][0]["line"], 1);
}

#[test]
fn quiet_when_piped() {
    let out = cutover(&["digest", &corpus("sysbench/slow-text.log.gz")]);
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// MariaDB's slow log stamps the second a statement started (measured on 10.11: a `SLEEP(1.7)` begun
/// at 02:14:50.54 is stamped `# Time: 261207  2:14:50`, as is its `SET timestamp`); MySQL 5.6 stamps
/// the second it ended, so its start is the stamp less Query_time.
#[test]
fn a_mariadb_slow_log_stamps_starts_and_a_mysql_one_ends() {
    let dir = tempfile::tempdir().unwrap();
    let start_of = |name: &str, text: &str| -> serde_json::Value {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = cutover(&["events", "--format", "jsonl", path.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let first = String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON line"))
            .expect("one event");
        first["start_us"].clone()
    };
    let mariadb = "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:\n\
        Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\n\
        Time\t\t    Id Command\tArgument\n\
        # Time: 261207  2:14:50\n\
        # User@Host: root[root] @  [127.0.0.1]\n\
        # Thread_id: 3459  Schema:   QC_hit: No\n\
        # Query_time: 1.700256  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 0\n\
        # Rows_affected: 0  Bytes_sent: 64\n\
        SET timestamp=1796609690;\n\
        SELECT SLEEP(1.7);\n";
    assert_eq!(
        start_of("mariadb-slow.log", mariadb),
        1_796_609_690_000_000i64
    );
    let mysql56 = "/usr/sbin/mysqld, Version: 5.6.51-log (MySQL Community Server (GPL)). started with:\n\
        Tcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock\n\
        Time                 Id Command    Argument\n\
        # Time: 261207  2:14:52\n\
        # User@Host: root[root] @ localhost []  Id:    12\n\
        # Query_time: 1.700256  Lock_time: 0.000000 Rows_sent: 1  Rows_examined: 0\n\
        SET timestamp=1796609690;\n\
        SELECT SLEEP(1.7);\n";
    assert_eq!(
        start_of("mysql56-slow.log", mysql56),
        1_796_609_692_000_000i64 - 1_700_256
    );
}
