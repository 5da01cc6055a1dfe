//! `cutover replay --mode all` of the shipped TPC-C capture (corpora/tpcc, made by
//! scripts/capture-tpcc.sh) against two copies of the data it started from, on the real MariaDB:
//! the default replay is exact (no mismatches, both copies identical afterwards), with concurrent
//! New-Order, Payment and Delivery transactions taking `FOR UPDATE` locks on the same districts
//! and `NOW()` in their inserts.

mod common;

use common::{HOW_TO_START, mysql, mysql_client, mysql_url, with_db};
use serde_json::Value;
use std::io::{Read, Write};
use std::process::{Command, Stdio};

const TABLES: &[&str] = &[
    "warehouse1",
    "district1",
    "customer1",
    "history1",
    "orders1",
    "new_orders1",
    "order_line1",
    "stock1",
    "item1",
];

/// A fresh database `db` holding the capture's starting data (start.sql.gz).
fn restore_start(db: &str) {
    mysql(
        None,
        &format!("DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}"),
    );
    let mut dump = Vec::new();
    flate2::read::GzDecoder::new(
        std::fs::File::open(common::corpus("tpcc/start.sql.gz"))
            .expect("corpora/tpcc/start.sql.gz"),
    )
    .read_to_end(&mut dump)
    .expect("read start.sql.gz");
    let mut child = mysql_client()
        .arg(db)
        .stdin(Stdio::piped())
        .spawn()
        .expect("run mysql");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&dump)
        .expect("load the dump");
    let status = child.wait().expect("mysql");
    assert!(
        status.success(),
        "restoring start.sql.gz into {db} failed ({HOW_TO_START})"
    );
}

fn checksums(db: &str) -> Vec<String> {
    let list: Vec<String> = TABLES.iter().map(|t| format!("{db}.{t}")).collect();
    mysql(None, &format!("CHECKSUM TABLE {}", list.join(", ")))
        .lines()
        .map(|l| l.split('\t').nth(1).unwrap_or("").to_string())
        .collect()
}

fn replay(log: &str, a: &str, b: &str, extra: &[&str]) -> Value {
    let url = mysql_url();
    let mut args = vec![
        "replay".to_string(),
        log.to_string(),
        "--source".into(),
        with_db(&url, a),
        "--target".into(),
        with_db(&url, b),
        "--mode".into(),
        "all".into(),
        "--allow-writes".into(),
        "--format".into(),
        "json".into(),
        "-q".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let out = Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(&args)
        .output()
        .expect("run cutover");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("cannot connect"), "{err}\n({HOW_TO_START})");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}); stderr: {err}"))
}

fn a_a_is_exact(log: &str, extra: &[&str]) {
    let (a, b) = ("cutover_replay_tpcc_a", "cutover_replay_tpcc_b");
    restore_start(a);
    restore_start(b);
    assert_eq!(checksums(a), checksums(b), "the two restored copies differ");
    let r = replay(&common::corpus(log).display().to_string(), a, b, extra);
    let side = |s: &str| &r["sides"][s];
    let statements = side("source")["statements"].as_u64().unwrap_or(0);
    assert!(
        statements > 11_000,
        "{log}: {statements} statements replayed"
    );
    assert_eq!(
        side("source")["statements"],
        side("target")["statements"],
        "{log}: both sides ran every statement"
    );
    assert_eq!(r["mismatches"], 0, "{log}: {}", r["mismatch_groups"]);
    assert_eq!(r["incomplete"], Value::Array(vec![]), "{log}");
    assert_eq!(
        checksums(a),
        checksums(b),
        "{log}: the two copies differ after an A/A replay of the TPC-C capture"
    );
    mysql(
        None,
        &format!("DROP DATABASE IF EXISTS {a}; DROP DATABASE IF EXISTS {b}"),
    );
}

#[test]
fn a_a_of_the_tpcc_capture_leaves_identical_copies() {
    a_a_is_exact("tpcc/general.log.gz", &["--max-speed"]);
    a_a_is_exact("tpcc/slow.log.gz", &["--max-speed"]);
}
