//! Damaged inputs and odd logs (hardening issue, items 5 and 15): a corrupt or truncated gzip is an
//! error naming the file and where reading stopped, the result of what came before is written and
//! marked; a log timed to the second never prints an average above its peak.

mod common;

use common::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cutover(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(args)
        .output()
        .expect("run cutover")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A sysbench capture from the corpus, and a truncated and a corrupted copy of it.
fn damaged_copies(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let good = corpus("sysbench/slow-text.log.gz");
    let bytes = std::fs::read(&good).expect("read the corpus capture");
    let truncated = dir.join("truncated.log.gz");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).expect("write");
    let mut corrupt = bytes.clone();
    let at = bytes.len() / 3;
    corrupt[at..at + 8].copy_from_slice(&[0xde, 0xad, 0xbe, 0xef, 0xde, 0xad, 0xbe, 0xef]);
    let corrupted = dir.join("corrupt.log.gz");
    std::fs::write(&corrupted, &corrupt).expect("write");
    (good, truncated, corrupted)
}

#[test]
fn a_damaged_gzip_is_an_error_with_a_partial_result() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (good, truncated, corrupted) = damaged_copies(dir.path());
    let whole = cutover(&["digest", "--format", "json", good.to_str().unwrap()]);
    assert!(whole.status.success(), "{}", stderr(&whole));
    let whole: serde_json::Value = serde_json::from_slice(&whole.stdout).expect("json");
    let whole_events = whole["events"].as_u64().unwrap();
    for damaged in [&truncated, &corrupted] {
        let name = damaged.file_name().unwrap().to_str().unwrap();
        let o = cutover(&["digest", "--format", "json", damaged.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains(name) && err.contains("damaged") && err.contains("byte "),
            "{name}: the error must name the file and where it stopped: {err}"
        );
        // What came before is there, and marked as partial in the result itself.
        let d: serde_json::Value = serde_json::from_slice(&o.stdout).expect("partial json");
        let events = d["events"].as_u64().unwrap();
        assert!(
            events > 0 && events < whole_events,
            "{name}: {events} of {whole_events}"
        );
        assert!(
            d["inputs"][0]["damaged"]
                .as_str()
                .is_some_and(|s| s.contains("unreadable after line")),
            "{name}: {}",
            d["inputs"][0]
        );
        // The other readers of logs say the same.
        let ev = cutover(&["events", damaged.to_str().unwrap(), "-o", "/dev/null"]);
        assert_eq!(ev.status.code(), Some(2), "events {name}: {}", stderr(&ev));
        assert!(stderr(&ev).contains(name));
        let au = cutover(&["audit", "--target", "postgres", damaged.to_str().unwrap()]);
        assert_eq!(au.status.code(), Some(2), "audit {name}: {}", stderr(&au));
        assert!(stderr(&au).contains(name));
    }
}

#[test]
fn a_damaged_gzip_script_keeps_what_came_before() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut sql = String::new();
    for i in 0..20_000 {
        sql.push_str(&format!(
            "INSERT INTO t{} VALUES ({i}, 'row {i}');\n",
            i % 50
        ));
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(sql.as_bytes()).unwrap();
    let bytes = gz.finish().unwrap();
    let path = dir.path().join("dump.sql.gz");
    std::fs::write(&path, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let o = audit_file_json(&path);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("dump.sql.gz is damaged"),
        "{}",
        stderr(&o)
    );
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("partial json");
    assert!(r["inputs"][0]["damaged"].is_string(), "{}", r["inputs"]);
    assert!(
        r["summary"]["statements"].as_u64().unwrap_or(0) > 0,
        "{}",
        r["summary"]
    );
    // Damage inside the first statement: still a result (with the other inputs audited), marked.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(
        format!(
            "INSERT INTO t VALUES {};\n",
            vec!["(1, 'row')"; 200_000].join(",")
        )
        .as_bytes(),
    )
    .unwrap();
    let bytes = gz.finish().unwrap();
    let first = dir.path().join("first.sql.gz");
    std::fs::write(&first, &bytes[..bytes.len() / 2]).unwrap();
    let other = dir.path().join("other.sql");
    std::fs::write(&other, "SELECT 1;\n").unwrap();
    let o = cutover(&[
        "audit",
        "--target",
        "postgres",
        "--format",
        "json",
        first.to_str().unwrap(),
        other.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a result");
    assert!(
        r["inputs"][0]["damaged"]
            .as_str()
            .is_some_and(|d| d.contains("within its first statement")),
        "{}",
        r["inputs"]
    );
    assert_eq!(
        r["summary"]["statements"], 1,
        "the other input is audited: {}",
        r["summary"]
    );
}

#[test]
fn a_log_timed_to_the_second_never_averages_above_its_peak() {
    // MariaDB slow log, 3,000 statements ending within one second (timestamps to the second), each
    // 2.8 ms: the estimated starts spread over 3 ms, which once gave "average 1,058,948 QPS, peak
    // 3,000 in one second".
    let mut log = String::from("# Time: 261204 10:00:00\n");
    for i in 0..3000 {
        log.push_str(&format!(
            "# User@Host: app[app] @ localhost []\n# Thread_id: {}  Schema: db1  QC_hit: No\n# Query_time: 0.002800  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 1\nSET timestamp=1796378400;\nSELECT c FROM sbtest1 WHERE id={i};\n",
            1 + i % 16
        ));
    }
    let (_d, path) = temp_log(log.as_bytes());
    let o = cutover(&["digest", "--format", "json", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let d: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(d["events"].as_u64(), Some(3000), "{}", d["events"]);
    let avg = d["qps"]["average"].as_f64().unwrap();
    let peak = d["qps"]["peak"].as_u64().unwrap() as f64;
    assert!(avg <= peak, "average {avg} above peak {peak}");
    assert!(
        avg >= 1000.0,
        "average {avg}: 3,000 statements in at most 2 seconds"
    );
    // 3,000 × 2.8 ms = 8.4 s of statement time within at most 2 s: at most 8.4 in flight on average.
    let in_flight = d["concurrency"]["average_in_flight"].as_f64().unwrap();
    assert!(in_flight <= 8.4 + 1e-9, "average in flight {in_flight}");
    let text = cutover(&["digest", path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(!text.contains("1058948"), "{text}");
}

/// The arguments of `cutover audit --target postgres --format json FILE`.
fn audit_args(path: &Path) -> [&str; 6] {
    [
        "audit",
        "--target",
        "postgres",
        "--format",
        "json",
        path.to_str().unwrap(),
    ]
}

fn audit_file_json(path: &Path) -> Output {
    cutover(&audit_args(path))
}

fn audit_json(sql: &str) -> (serde_json::Value, Output, f64) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("big.sql");
    std::fs::write(&path, sql).unwrap();
    let t0 = std::time::Instant::now();
    let o = audit_file_json(&path);
    let secs = t0.elapsed().as_secs_f64();
    let j = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("no JSON ({e}), status {:?}: {}", o.status, stderr(&o)));
    (j, o, secs)
}

#[test]
fn deep_expressions_are_checked_on_tokens_not_a_crash() {
    // An ORM's expansion: 10,000 terms of arithmetic, 30,000 OR terms. These overflowed the stack
    // (SIGABRT, no report) in the AST walk.
    for sql in [
        format!("SELECT 1{};\n", "+1".repeat(10_000)),
        format!(
            "SELECT c FROM t WHERE {};\n",
            (0..30_000)
                .map(|i| format!("id={i}"))
                .collect::<Vec<_>>()
                .join(" OR ")
        ),
    ] {
        let (j, o, _) = audit_json(&sql);
        assert!(
            matches!(o.status.code(), Some(0) | Some(1)),
            "status {:?}: {}",
            o.status,
            stderr(&o)
        );
        let st = &j["statements"][0];
        let parse = st["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == "PARSE")
            .unwrap_or_else(|| panic!("no PARSE finding: {st:#}"));
        assert!(
            parse["detail"].as_str().unwrap_or("").contains("too deep"),
            "{parse:#}"
        );
    }
    // Just under the limit still gets the whole AST check.
    let (j, _, _) = audit_json(&format!("SELECT 1{};\n", "+1".repeat(900)));
    assert!(
        !j["statements"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "PARSE"),
        "{:#}",
        j["statements"][0]
    );
}

#[test]
fn a_long_in_list_is_audited_in_linear_time() {
    let list = |n: usize| {
        format!(
            "SELECT c FROM t WHERE id IN ({});\n",
            (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
        )
    };
    let (_, o, small) = audit_json(&list(10_000));
    assert!(o.status.code().is_some(), "{}", stderr(&o));
    let (j, o, big) = audit_json(&list(100_000));
    assert!(
        matches!(o.status.code(), Some(0) | Some(1)),
        "{}",
        stderr(&o)
    );
    assert_eq!(j["summary"]["statements"], 1);
    // Quadratic was 0.42 s → 103 s (x245) for 10x the values; linear is about x10 plus start-up.
    assert!(big < 30.0, "100,000 values took {big:.1} s");
    assert!(
        big < small * 40.0 + 1.0,
        "10x the values took {:.0}x the time ({small:.2} s → {big:.2} s)",
        big / small
    );
}

/// Runs cutover and samples its peak resident memory (VmHWM) from /proc until it exits: (output,
/// peak KiB).
fn peak_memory(args: &[&str]) -> (Output, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start cutover");
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    // Drain stdout on a thread so a large result never blocks the child.
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut v).ok();
        v
    });
    while child.try_wait().unwrap().is_none() {
        if let Ok(s) = std::fs::read_to_string(&status)
            && let Some(kb) = s
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse::<u64>().ok())
        {
            peak = peak.max(kb);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let mut out = child.wait_with_output().unwrap();
    out.stdout = reader.join().unwrap();
    (out, peak)
}

#[test]
fn a_dump_sized_insert_is_audited_in_a_small_multiple_of_its_size() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("dump.sql");
    let mut sql = String::from("INSERT INTO t VALUES ");
    let mut i = 0u64;
    while sql.len() < 20_000_000 {
        if i > 0 {
            sql.push(',');
        }
        sql.push_str(&format!(
            "({i},'{}',{},'2026-01-01 00:00:00')",
            "x".repeat(80),
            i * 7
        ));
        i += 1;
    }
    sql.push_str(";\n");
    std::fs::write(&path, &sql).unwrap();
    let (o, peak_kib) = peak_memory(&audit_args(&path));
    assert!(
        matches!(o.status.code(), Some(0) | Some(1)),
        "{}",
        stderr(&o)
    );
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let st = &j["statements"][0];
    assert!(
        st["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "INPUT-002"),
        "{}",
        st["findings"]
    );
    // Building every row's tokens and tree took 24x the statement (1.39 GB for 57 MB).
    let mb = sql.len() as u64 / 1_000_000;
    assert!(
        peak_kib / 1024 < mb * 7 + 60,
        "peak {} MiB for a {mb} MB statement",
        peak_kib / 1024
    );
}
