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

/// The capture's transactions read straight from its general log, independently of cutover: per
/// session, the statements up to each COMMIT/ROLLBACK, named by the first write (`UPDATE district1`:
/// New-Order, `UPDATE warehouse1`: Payment, `DELETE new_orders1`: Delivery) or, read-only, counted
/// together (Order-Status, Stock-Level, and a Delivery cut off before its first write). The
/// `SHOW VARIABLES` each session runs before `SET autocommit=0` is a transaction of its own.
fn capture_transactions() -> (std::collections::BTreeMap<String, u64>, u64) {
    let mut text = String::new();
    flate2::read::GzDecoder::new(
        std::fs::File::open(common::corpus("tpcc/general.log.gz")).expect("tpcc/general.log.gz"),
    )
    .read_to_string(&mut text)
    .expect("read the general log");
    let mut open: std::collections::HashMap<String, Option<String>> = Default::default();
    let (mut writers, mut read_only) = (std::collections::BTreeMap::new(), 0u64);
    for line in text.lines() {
        let Some(at) = line.find(" Query\t") else {
            continue;
        };
        let Some(session) = line[..at].split_whitespace().last() else {
            continue;
        };
        let words: Vec<&str> = line[at + 7..].split_whitespace().collect();
        let first = words.first().map(|w| w.to_uppercase()).unwrap_or_default();
        match first.as_str() {
            "COMMIT" | "ROLLBACK" => match open.remove(session) {
                Some(Some(name)) => *writers.entry(name).or_insert(0) += 1,
                Some(None) => read_only += 1,
                None => {}
            },
            "BEGIN" | "SET" | "SHOW" | "" => {}
            verb => {
                let name = open.entry(session.to_string()).or_insert(None);
                if name.is_none() && ["UPDATE", "INSERT", "DELETE"].contains(&verb) {
                    let table = words
                        .iter()
                        .skip(1)
                        .find(|w| !["INTO", "FROM"].contains(&w.to_uppercase().as_str()))
                        .unwrap_or(&"?");
                    *name = Some(format!("{verb} {table}"));
                }
            }
        }
    }
    // Transactions the end of the capture cut off: the replay rolls them back, still transactions.
    for name in open.into_values() {
        match name {
            Some(name) => *writers.entry(name).or_insert(0) += 1,
            None => read_only += 1,
        }
    }
    (writers, read_only)
}

/// The replay's transaction classes are TPC-C's five, with the capture's counts: New-Order (its
/// 5 to 15 order lines and its rollback one class), Payment (by customer id or name, good or bad
/// credit), Delivery, and the two read-only ones.
fn five_classes(log: &str, r: &Value) {
    let (writers, read_only) = capture_transactions();
    let classes = r["transactions"].as_array().expect("transactions");
    let count = |name: &str| -> u64 {
        classes
            .iter()
            .filter(|c| c["name"] == name)
            .map(|c| c["count"].as_u64().unwrap_or(0))
            .sum()
    };
    let summary: Vec<String> = classes
        .iter()
        .map(|c| format!("{} x{} ({})", c["name"], c["count"], c["class"]))
        .collect();
    for (name, n) in &writers {
        assert_eq!(
            classes
                .iter()
                .filter(|c| c["name"] == *name.as_str())
                .count(),
            1,
            "{log}: {name} is one class: {summary:#?}"
        );
        assert_eq!(count(name), *n, "{log}: {name}: {summary:#?}");
    }
    assert_eq!(writers.len(), 3, "{writers:?}");
    let selects: u64 = classes
        .iter()
        .filter(|c| c["name"].as_str().is_some_and(|n| n.starts_with("SELECT ")))
        .map(|c| c["count"].as_u64().unwrap_or(0))
        .sum();
    // The slow log writes a statement when it ends: a statement still running when the capture
    // stopped is in the general log only (here, one Delivery's first SELECT).
    let cut_off = if log.contains("slow") { 4 } else { 0 };
    assert!(
        selects <= read_only && read_only - selects <= cut_off,
        "{log}: read-only {selects}, the general log holds {read_only}: {summary:#?}"
    );
    assert!(count("SELECT customer1") > 4 && count("SELECT district1") > 4);
    let named = writers.values().sum::<u64>() + read_only;
    let total: u64 = classes
        .iter()
        .map(|c| c["count"].as_u64().unwrap_or(0))
        .sum();
    assert!(
        total + cut_off >= named + count("SHOW") && total <= named + count("SHOW"),
        "{log}: {summary:#?}"
    );
    assert_eq!(count("SHOW"), 4, "one per session");
    for c in classes {
        assert!(
            c["source"]["count"].as_u64() == c["count"].as_u64(),
            "{log}: every transaction of the capture ran on the source: {c:#}"
        );
    }
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
    five_classes(log, &r);
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
