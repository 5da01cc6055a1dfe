//! Fuzzing the log readers and the fingerprinter with proptest: arbitrary bytes and mutated real logs
//! must never panic or hang, and reading in many small parallel chunks must give exactly what one
//! sequential pass gives.
//!
//! Longer runs: `PROPTEST_CASES=20000 cargo test --release --test fuzz_parsers`.

mod common;

use cutover::capture::ChunkEnd;
use cutover::capture::{CaptureOptions, read_all, read_general_chunk, read_slow_chunk};
use cutover::sql::fingerprint::Fingerprinter;
use cutover::sql::redact::redact;
use cutover::sql::split::split_statements;
use cutover::workload::LogType;
use proptest::prelude::*;

fn seed_logs() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for rel in [
        "formats/mysql80-slow-extra.log",
        "formats/mysql57-slow.log",
        "formats/mysql80-general-offset.log",
        "formats/percona57-slow.log",
        "formats/mariadb-general-restart.log",
    ] {
        seeds.push(std::fs::read(common::corpus(rel)).expect("seed"));
    }
    for name in [
        "slow033.txt",
        "slow059.txt",
        "genlog001.txt",
        "genlog005.txt",
        "slow047.txt",
    ] {
        seeds.push(std::fs::read(common::percona_logs().join(name)).expect("seed"));
    }
    seeds
}

#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Replace(usize, u8),
    Truncate(usize),
    Duplicate(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let snippets = prop::sample::select(vec![
        b"'".to_vec(),
        b"\"".to_vec(),
        b"`".to_vec(),
        b";\n".to_vec(),
        b"\n# Time: 2024-05-01T10:00:00Z\n".to_vec(),
        b"\n# User@Host: a[a] @ h []  Id: 3\n".to_vec(),
        b"\n\t\t     7 Query\tSELECT 1\n".to_vec(),
        b"/*".to_vec(),
        b"\\".to_vec(),
        b"\x00\xff\xfe".to_vec(),
        b"\n/usr/sbin/mysqld, Version: 8.0 (x). started with:\n".to_vec(),
        b"# Query_time: x  Lock_time: \n".to_vec(),
    ]);
    prop_oneof![
        (any::<usize>(), snippets).prop_map(|(p, s)| Edit::Insert(p, s)),
        (any::<usize>(), 1usize..40).prop_map(|(p, n)| Edit::Delete(p, n)),
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Edit::Replace(p, b)),
        any::<usize>().prop_map(Edit::Truncate),
        (any::<usize>(), 1usize..200).prop_map(|(p, n)| Edit::Duplicate(p, n)),
    ]
}

fn apply(mut log: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let n = log.len().max(1);
        match e {
            Edit::Insert(p, s) => {
                let at = p % (log.len() + 1);
                log.splice(at..at, s.iter().copied());
            }
            Edit::Delete(p, k) => {
                let at = p % n;
                let end = (at + k).min(log.len());
                if at < end {
                    log.drain(at..end);
                }
            }
            Edit::Replace(p, b) => {
                if !log.is_empty() {
                    let at = p % log.len();
                    log[at] = *b;
                }
            }
            Edit::Truncate(p) => log.truncate(p % n),
            Edit::Duplicate(p, k) => {
                let at = p % n;
                let end = (at + k).min(log.len());
                let piece: Vec<u8> = log[at.min(end)..end].to_vec();
                log.splice(end..end, piece);
            }
        }
    }
    log
}

fn read_both_ways(log: &[u8], log_type: Option<LogType>) {
    let (_d, path) = common::temp_log(log);
    let one = CaptureOptions {
        log_type,
        batch_bytes: 1 << 20,
        threads: 1,
        min_chunk_bytes: usize::MAX / 2,
        ..Default::default()
    };
    let seq = read_all(std::slice::from_ref(&path), one);
    let many = CaptureOptions {
        log_type,
        batch_bytes: 97,
        threads: 3,
        min_chunk_bytes: 13,
        ..Default::default()
    };
    let par = read_all(&[path], many);
    match (seq, par) {
        (Ok((a, da)), Ok((b, db))) => {
            assert_eq!(
                a.len(),
                b.len(),
                "parallel read has a different number of events"
            );
            if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
                panic!(
                    "event {i} differs:\nsequential {:?}\nparallel   {:?}",
                    a[i], b[i]
                );
            }
            assert_eq!(da.skipped_lines, db.skipped_lines);
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!(
            "one way failed: {:?} vs {:?}",
            a.map(|x| x.0.len()),
            b.map(|x| x.0.len())
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256), ..ProptestConfig::default() })]

    #[test]
    fn mutated_logs_read_the_same_in_parallel(seed in 0usize..10, edits in prop::collection::vec(edit(), 0..6)) {
        let seeds = seed_logs();
        let log = apply(seeds[seed % seeds.len()].clone(), &edits);
        read_both_ways(&log, None);
        read_both_ways(&log, Some(LogType::Slow));
        read_both_ways(&log, Some(LogType::General));
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_chunk_readers(bytes in prop::collection::vec(any::<u8>(), 0..2000), cut in any::<usize>(), eof in any::<bool>()) {
        let limit = if bytes.is_empty() { 0 } else { cut % (bytes.len() + 1) };
        for out in [read_slow_chunk(&bytes, 0, limit, eof, 0), read_general_chunk(&bytes, 0, limit, eof, 0)] {
            for r in &out.records {
                prop_assert!(r.sql.start <= r.sql.end && r.sql.end <= limit);
            }
            if let ChunkEnd::Incomplete { record_start, .. } = out.end {
                prop_assert!(!eof && record_start < limit.max(1));
            }
        }
    }

    #[test]
    fn sql_tools_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let mut out = Vec::new();
        let info = Fingerprinter::default().run(&bytes, &mut out);
        let mut again = Vec::new();
        prop_assert_eq!(Fingerprinter::default().run(&bytes, &mut again), info);
        prop_assert_eq!(out, again);
        let red = redact(&bytes);
        prop_assert!(red.masked == 0 || red.text != bytes);
        for (a, b) in split_statements(&bytes) {
            prop_assert!(a < b && b <= bytes.len());
        }
    }

    #[test]
    fn literals_never_change_a_fingerprint(n in any::<i64>(), s in "[a-zA-Z0-9 ;#'\\\\]{0,20}", m in 1usize..6) {
        let quoted = s.replace('\\', "\\\\").replace('\'', "''");
        let a = format!("SELECT c FROM t WHERE id = {n} AND s = '{quoted}' AND k IN ({})", vec!["1"; m].join(", "));
        let b = "SELECT c FROM t WHERE id = 7 AND s = 'x' AND k IN (2)";
        prop_assert_eq!(cutover::sql::fingerprint(a.as_bytes()), cutover::sql::fingerprint(b.as_bytes()));
    }
}
