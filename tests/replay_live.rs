//! `cutover replay` against the real MariaDB and PostgreSQL: A/A on one server (reads, and all
//! statements on identical copies of the data a live capture started from), A/B from MariaDB to
//! PostgreSQL with rewrites, seeded differences found exactly, PostgreSQL's aborted transactions,
//! sharding and merging, and the guards (reads never write; --mode all needs --allow-writes).

mod common;

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The tests of this file run one at a time: one of them turns the server's general log on, and
/// another test's statements must not end up in its capture.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

use common::{HOW_TO_START, mysql, mysql_url, pg_url, psql, with_db};

/// Writes a MariaDB general log: the server's header, then `records`.
fn write_general_log(path: &Path, records: &str) -> std::io::Result<()> {
    const HEADER: &str = "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n";
    std::fs::write(path, format!("{HEADER}{records}"))
}

/// The four sysbench tables with the same deterministic rows, on MariaDB database `db`.
fn mariadb_sbtest(db: &str) {
    mysql(
        None,
        &format!("DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}"),
    );
    for t in 1..=4 {
        mysql(
            Some(db),
            &format!(
                "CREATE TABLE sbtest{t} (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k_{t} (k));
                 INSERT INTO sbtest{t} SELECT seq, (seq*7919) % 10007, CONCAT(MD5(seq), '-', MD5(seq+1), '-', MD5(seq+2)), MD5(seq+3) FROM seq_1_to_10000"
            ),
        );
    }
}

/// The same rows on PostgreSQL database `db`.
fn postgres_sbtest(db: &str) {
    common::fresh_pg_database(db);
    for t in 1..=4 {
        psql(
            db,
            &format!(
                "CREATE TABLE sbtest{t} (id SERIAL PRIMARY KEY, k INTEGER NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '');
                 CREATE INDEX k_{t} ON sbtest{t}(k);
                 INSERT INTO sbtest{t} SELECT g, (g*7919) % 10007, md5(g::text) || '-' || md5((g+1)::text) || '-' || md5((g+2)::text), md5((g+3)::text) FROM generate_series(1, 10000) g"
            ),
        );
    }
}

fn checksum(db: &str) -> String {
    mysql(
        None,
        &format!("CHECKSUM TABLE {db}.sbtest1, {db}.sbtest2, {db}.sbtest3, {db}.sbtest4"),
    )
    .lines()
    .map(|l| l.split('\t').nth(1).unwrap_or("").to_string())
    .collect::<Vec<_>>()
    .join(" ")
}

fn cutover(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(args)
        .output()
        .expect("run cutover")
}

fn replay_json(args: &[&str]) -> Value {
    let mut all = vec!["replay", "--format", "json", "-q"];
    all.extend_from_slice(args);
    let out = cutover(&all);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("cannot connect"), "{err}\n({HOW_TO_START})");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}); stderr: {err}"))
}

/// The go/no-go report (JSON) of one replay result.
fn go_no_go(replay: &Path) -> Value {
    let out = cutover(&[
        "report",
        "--format",
        "json",
        "--replay",
        replay.to_str().unwrap(),
    ]);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)))
}

fn capture(name: &str) -> String {
    common::corpus(&format!("sysbench/{name}.log.gz"))
        .display()
        .to_string()
}

#[test]
fn a_a_reads_on_one_mariadb_find_nothing_and_write_nothing() {
    let _serial = serial();
    let db = "cutover_replay_aa";
    mariadb_sbtest(db);
    let before = checksum(db);
    let url = with_db(&mysql_url(), db);
    for log in ["general-text", "general-ps", "slow-text"] {
        let j = replay_json(&[
            &capture(log),
            "--source",
            &url,
            "--target",
            &url,
            "--max-speed",
        ]);
        assert_eq!(j["mismatches"], 0, "{log}: {:#}", j["mismatch_groups"]);
        assert_eq!(
            j["regressions"].as_array().unwrap().len(),
            0,
            "{log}: {:#}",
            j["regressions"]
        );
        assert!(
            j["compared"].as_u64().unwrap() > 1500,
            "{log}: compared {}",
            j["compared"]
        );
        assert_eq!(j["sides"]["source"]["errors"], 0, "{log}");
        assert!(
            j["sides"]["source"]["skipped"]["write_in_reads_mode"]
                .as_u64()
                .unwrap()
                > 100,
            "{log}: writes are not sent in reads mode"
        );
    }
    // The recorded pace, ten times faster: the schedule is kept.
    let j = replay_json(&[&capture("general-text"), "--source", &url, "--speed", "10"]);
    assert_eq!(j["pace"]["speed"], 10.0);
    assert!(
        j["sides"]["source"]["start_lag_ms"]["p50"]
            .as_f64()
            .unwrap()
            < 5.0,
        "{:#}",
        j["sides"]["source"]["start_lag_ms"]
    );
    assert_eq!(checksum(db), before, "reads mode wrote to the source");
    mysql(None, &format!("DROP DATABASE {db}"));
}

/// Statements of the capture (from `cutover events`) that read column c of sbtest1 for one of `ids`.
fn statements_reading(log: &str, ids: &BTreeSet<u64>) -> u64 {
    let out = cutover(&["events", "-q", log]);
    let mut n = 0;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let e: Value = serde_json::from_str(line).unwrap();
        if !matches!(e["command"].as_str(), Some("query" | "execute")) {
            continue;
        }
        let sql = e["sql"].as_str().unwrap_or("").to_string();
        if !sql.starts_with("SELECT c FROM sbtest1 ")
            && !sql.starts_with("SELECT DISTINCT c FROM sbtest1 ")
        {
            continue;
        }
        let num = |s: &str| {
            s.trim()
                .trim_end_matches(|c: char| !c.is_ascii_digit())
                .parse::<u64>()
                .ok()
        };
        let hit = if let Some(rest) = sql.split("WHERE id=").nth(1) {
            num(rest.split_whitespace().next().unwrap_or("")).is_some_and(|id| ids.contains(&id))
        } else if let Some(rest) = sql.split("BETWEEN ").nth(1) {
            let mut p = rest.split(" AND ");
            match (
                p.next().and_then(num),
                p.next()
                    .and_then(|x| num(x.split_whitespace().next().unwrap_or(""))),
            ) {
                (Some(a), Some(b)) => ids.range(a..=b).next().is_some(),
                _ => false,
            }
        } else {
            false
        };
        if hit {
            n += 1;
        }
    }
    n
}

#[test]
fn a_b_mariadb_to_postgresql_with_rewrites_finds_exactly_the_changed_rows() {
    let _serial = serial();
    let db = "cutover_replay_ab";
    mariadb_sbtest(db);
    postgres_sbtest(db);
    let (src, tgt) = (with_db(&mysql_url(), db), with_db(&pg_url(), db));
    let log = capture("general-text");
    let args = [
        log.as_str(),
        "--source",
        &src,
        "--target",
        &tgt,
        "--profile",
        "postgres",
        "--rewrite",
        "--max-speed",
    ];
    let j = replay_json(&args);
    assert_eq!(j["mismatches"], 0, "{:#}", j["mismatch_groups"]);
    assert!(j["compared"].as_u64().unwrap() > 1500);
    assert_eq!(j["sides"]["target"]["errors"], 0, "{:#}", j["fingerprints"]);
    // Change 5 rows on the target only: exactly the statements that read them mismatch.
    let ids: BTreeSet<u64> = [4990, 5003, 5017, 5050, 5100].into();
    let list = ids.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    psql(
        db,
        &format!("UPDATE sbtest1 SET c = 'changed on the target' WHERE id IN ({list})"),
    );
    let expected = statements_reading(&log, &ids);
    assert!(
        expected > 10,
        "the capture reads these rows {expected} times"
    );
    let j = replay_json(&args);
    assert_eq!(
        j["mismatches"].as_u64().unwrap(),
        expected,
        "{:#}",
        j["mismatch_groups"]
    );
    let g = &j["mismatch_groups"][0];
    assert_eq!(g["category"], "rows");
    assert!(
        g["examples"][0]["diff"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().starts_with("+ \"changed on the target")),
        "{g:#}"
    );
    let out = cutover(&[
        "replay",
        "-q",
        &log,
        "--source",
        &src,
        "--target",
        &tgt,
        "--max-speed",
    ]);
    assert_eq!(out.status.code(), Some(1), "mismatches exit 1");
    mysql(None, &format!("DROP DATABASE {db}"));
    psql("postgres", &format!("DROP DATABASE {db} WITH (FORCE)"));
}

/// The audit's tree rewrites (which the token rewriter cannot do) reach the replay: an upsert, an
/// UPDATE with ORDER BY … LIMIT, a multi-table UPDATE and a GROUP_CONCAT run on PostgreSQL with the
/// results MariaDB gave, and both copies hold the same rows afterwards.
#[test]
fn replay_rewrite_sends_the_audits_tree_rewrites_to_the_target() {
    let _serial = serial();
    let db = "cutover_replay_rw";
    mariadb_sbtest(db);
    postgres_sbtest(db);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("rw.log");
    write_general_log(
        &log,
        "261202 21:16:42\t    31 Connect\troot@127.0.0.1 on x using TCP/IP\n\
         \t\t    31 Query\tINSERT INTO sbtest1 (id, k, c, pad) VALUES (3, 5, 'x', 'y') ON DUPLICATE KEY UPDATE k = k + VALUES(k)\n\
         \t\t    31 Query\tINSERT INTO sbtest1 (id, k, c, pad) VALUES (20001, 5, 'x', 'y') ON DUPLICATE KEY UPDATE k = k + VALUES(k)\n\
         \t\t    31 Query\tUPDATE sbtest1 SET k = k + 100 WHERE id < 50 ORDER BY id DESC LIMIT 3\n\
         \t\t    31 Query\tUPDATE sbtest1 a JOIN sbtest2 b ON a.id = b.id SET a.k = b.k + 1 WHERE a.id BETWEEN 10 AND 12\n\
         \t\t    31 Query\tSELECT GROUP_CONCAT(k ORDER BY id SEPARATOR '|') FROM sbtest1 WHERE id BETWEEN 1 AND 5\n\
         \t\t    31 Query\tSELECT IFNULL(NULL, k), k DIV 7 FROM sbtest1 WHERE id = 3\n\
         \t\t    31 Query\tSELECT id, k FROM sbtest1 WHERE id IN (3, 10, 11, 12, 47, 48, 49, 20001) ORDER BY id\n\
         \t\t    31 Quit\t\n",
    )
    .unwrap();
    let (src, tgt) = (with_db(&mysql_url(), db), with_db(&pg_url(), db));
    let j = replay_json(&[
        log.to_str().unwrap(),
        "--source",
        &src,
        "--target",
        &tgt,
        "--profile",
        "postgres",
        "--rewrite",
        "--mode",
        "all",
        "--allow-writes",
        "--max-speed",
    ]);
    assert_eq!(
        j["sides"]["target"]["errors"], 0,
        "{:#}",
        j["mismatch_groups"]
    );
    assert_eq!(j["mismatches"], 0, "{:#}", j["mismatch_groups"]);
    assert_eq!(j["compared"], 7, "{j:#}");
    assert!(
        j["rewritten"].as_u64().unwrap() >= 6,
        "every statement but the last is rewritten: {:#}",
        j["fingerprints"]
    );
    assert_eq!(j["not_rewritable"].as_array().unwrap().len(), 0, "{j:#}");
    let sql =
        "SELECT id, k FROM sbtest1 WHERE id IN (3, 10, 11, 12, 47, 48, 49, 20001) ORDER BY id";
    let after = mysql(Some(db), sql).replace('\t', "|");
    assert_eq!(after, psql(db, sql), "both copies hold the same rows");
    assert!(after.contains("20001"), "{after}");
    mysql(None, &format!("DROP DATABASE {db}"));
    psql("postgres", &format!("DROP DATABASE {db} WITH (FORCE)"));
}

#[test]
fn postgresql_aborted_transactions_are_rolled_back_and_skipped_not_cascaded() {
    let _serial = serial();
    let db = "cutover_replay_txn";
    mariadb_sbtest(db);
    postgres_sbtest(db);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("txn.log");
    write_general_log(
        &log,
        "261202 21:16:42\t    30 Connect\troot@127.0.0.1 on x using TCP/IP\n\
         \t\t    30 Query\tBEGIN\n\
         \t\t    30 Query\tSELECT c FROM sbtest1 WHERE id=1\n\
         \t\t    30 Query\tSELECT k FROM sbtest1 WHERE c = 5\n\
         \t\t    30 Query\tUPDATE sbtest1 SET k = k + 1 WHERE id = 2\n\
         \t\t    30 Query\tCOMMIT\n\
         \t\t    30 Query\tSELECT k FROM sbtest1 WHERE id=2\n\
         \t\t    30 Quit\t\n",
    )
    .unwrap();
    let (src, tgt) = (with_db(&mysql_url(), db), with_db(&pg_url(), db));
    let j = replay_json(&[
        log.to_str().unwrap(),
        "--source",
        &src,
        "--target",
        &tgt,
        "--mode",
        "all",
        "--allow-writes",
        "--max-speed",
    ]);
    // `c = 5` compares a string with a number: MariaDB runs it, PostgreSQL refuses.
    let groups = j["mismatch_groups"].as_array().unwrap();
    assert!(
        groups.iter().any(|g| g["category"] == "error_on_target"),
        "{groups:#?}"
    );
    let skipped = &j["sides"]["target"]["skipped"];
    assert_eq!(skipped["inside_aborted_transaction"], 1, "{skipped:#}");
    assert_eq!(skipped["end_of_aborted_transaction"], 1, "{skipped:#}");
    assert_eq!(
        j["sides"]["target"]["errors"], 1,
        "one error, not a cascade"
    );
    // The last SELECT ran after the rollback: the source committed k+1, the target did not.
    assert!(
        groups.iter().any(|g| g["category"] == "rows"
            && g["fingerprint"]
                .as_str()
                .unwrap()
                .contains("select k from sbtest1 where id = ?")),
        "{groups:#?}"
    );
    mysql(None, &format!("DROP DATABASE {db}"));
    psql("postgres", &format!("DROP DATABASE {db} WITH (FORCE)"));
}

fn capture_live(dir: &Path, snapshot: &str) -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/capture-sysbench.sh");
    let out = Command::new("bash")
        .arg(script)
        .args([
            "--out",
            dir.to_str().unwrap(),
            "--time",
            "2",
            "--threads",
            "4",
            "--keep",
            "all",
            "--no-gzip",
            "--only",
            "text",
            "--snapshot",
            snapshot,
        ])
        .env("CUTOVER_TEST_MYSQL_URL", mysql_url())
        .output()
        .expect("run scripts/capture-sysbench.sh");
    assert!(
        out.status.success(),
        "capture-sysbench.sh: {}\n(it needs sysbench and a local MariaDB: {HOW_TO_START})",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("general-text.log")
}

fn copy_db(src: &str, dst: &str) {
    mysql(
        None,
        &format!("DROP DATABASE IF EXISTS {dst}; CREATE DATABASE {dst}"),
    );
    for t in mysql(
        None,
        &format!("SELECT table_name FROM information_schema.tables WHERE table_schema='{src}'"),
    )
    .lines()
    {
        mysql(
            None,
            &format!(
                "CREATE TABLE {dst}.{t} LIKE {src}.{t}; INSERT INTO {dst}.{t} SELECT * FROM {src}.{t}"
            ),
        );
    }
}

#[test]
fn a_a_all_statements_on_identical_copies_of_a_live_capture() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let snap = "cutover_replay_snap";
    let log = capture_live(dir.path(), snap);
    copy_db(snap, "cutover_replay_a");
    copy_db(snap, "cutover_replay_b");
    let (a, b) = (
        with_db(&mysql_url(), "cutover_replay_a"),
        with_db(&mysql_url(), "cutover_replay_b"),
    );
    let out = cutover(&[
        "replay",
        "-q",
        log.to_str().unwrap(),
        "--source",
        &a,
        "--target",
        &b,
        "--mode",
        "all",
        "--max-speed",
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "--mode all without --allow-writes must refuse"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-writes"));
    let j = replay_json(&[
        log.to_str().unwrap(),
        "--source",
        &a,
        "--target",
        &b,
        "--mode",
        "all",
        "--allow-writes",
        "--max-speed",
    ]);
    assert_eq!(j["mismatches"], 0, "{:#}", j["mismatch_groups"]);
    assert_eq!(
        j["regressions"].as_array().unwrap().len(),
        0,
        "{:#}",
        j["regressions"]
    );
    assert!(j["sides"]["source"]["commits"].as_u64().unwrap() > 100);
    assert!(j["compared"].as_u64().unwrap() > 5000);
    // The order gate says how much keeping the captured order held the sessions back.
    for side in ["source", "target"] {
        let x = &j["sides"][side];
        let waited = x["order_wait_s"]
            .as_f64()
            .expect("order_wait_s in --mode all");
        let session_s = x["elapsed_s"].as_f64().unwrap() * j["sessions"].as_f64().unwrap();
        assert!(x["order_waits"].is_u64(), "{x:#}");
        assert!(
            (0.0..=session_s).contains(&waited),
            "{side}: waited {waited} s of {session_s} session-seconds"
        );
    }
    assert_eq!(
        checksum("cutover_replay_a"),
        checksum("cutover_replay_b"),
        "both copies end in the same state"
    );
    assert_ne!(
        checksum("cutover_replay_a"),
        checksum(snap),
        "the writes were replayed"
    );
    for d in [snap, "cutover_replay_a", "cutover_replay_b"] {
        mysql(None, &format!("DROP DATABASE {d}"));
    }
}

#[test]
fn shards_merge_into_the_whole_and_bad_settings_are_refused() {
    let _serial = serial();
    let db = "cutover_replay_shard";
    mariadb_sbtest(db);
    let url = with_db(&mysql_url(), db);
    let log = capture("general-text");
    let dir = tempfile::tempdir().unwrap();
    let whole = replay_json(&[&log, "--source", &url, "--target", &url, "--max-speed"]);
    // One shard's replay, as JSON.
    let shard = |spec: &str| {
        cutover(&[
            "replay",
            "-q",
            "--format",
            "json",
            &log,
            "--source",
            &url,
            "--target",
            &url,
            "--max-speed",
            "--shard",
            spec,
        ])
    };
    let mut parts = Vec::new();
    for k in 0..2 {
        let out = shard(&format!("{k}/2"));
        // A shard's rate is physical: its statements' time, spread over its sessions, fits in its
        // elapsed time (a shard once reported a million statements per second over 0.5 ms).
        let part: Value = serde_json::from_slice(&out.stdout).unwrap();
        let s = &part["sides"]["source"];
        let busy_s =
            s["latency_ms"]["avg"].as_f64().unwrap() * s["statements"].as_f64().unwrap() / 1e3;
        let sessions = part["sessions"].as_f64().unwrap().max(1.0);
        assert!(
            s["elapsed_s"].as_f64().unwrap() >= busy_s / sessions,
            "shard {k}: {} statements busy {busy_s:.4} s over {sessions} sessions in {} s ({} QPS)",
            s["statements"],
            s["elapsed_s"],
            s["qps"]
        );
        let p = dir.path().join(format!("part{k}.json"));
        std::fs::write(&p, &out.stdout).unwrap();
        parts.push(p.display().to_string());
    }
    let mut args = vec!["merge", "--format", "json"];
    args.extend(parts.iter().map(String::as_str));
    let out = cutover(&args);
    let merged: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(
        merged["compared"],
        whole["compared"],
        "merged {parts:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        merged["sides"]["source"]["statements"],
        whole["sides"]["source"]["statements"]
    );
    assert_eq!(merged["sessions"], whole["sessions"]);
    assert_eq!(
        merged["sides"]["source"]["latency_ms"]["count"],
        whole["sides"]["source"]["latency_ms"]["count"]
    );
    // What would count statements twice is refused with what to do: one result given twice, and
    // two results of the same shard (run again).
    let refused = |args: &[&str], why: &str| {
        let mut all = vec!["merge", "-q"];
        all.extend_from_slice(args);
        let o = cutover(&all);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
    };
    refused(
        &[&parts[0], &parts[0]],
        "are the same run: give each result once",
    );
    let again_path = dir.path().join("part0-again.json");
    std::fs::write(&again_path, shard("0/2").stdout).unwrap();
    refused(
        &[&parts[0], again_path.to_str().unwrap(), &parts[1]],
        "replayed the same shard: its statements would count twice",
    );
    let third_path = dir.path().join("part1of3.json");
    std::fs::write(&third_path, shard("1/3").stdout).unwrap();
    refused(
        &[&parts[0], third_path.to_str().unwrap()],
        "split the capture differently (2 and 3 shards)",
    );
    // A scenario file holds the same settings.
    let scenario = dir.path().join("s.toml");
    std::fs::write(
        &scenario,
        format!("logs = [{log:?}]\nsource = {url:?}\ntarget = {url:?}\nmax_speed = true\n"),
    )
    .unwrap();
    let j = replay_json(&["--scenario", scenario.to_str().unwrap()]);
    assert_eq!(j["compared"], whole["compared"]);
    // --duration stops a slow replay cleanly, with the partial report.
    let slow = dir.path().join("slow-pace.log");
    write_general_log(
        &slow,
        "261202 21:16:40\t    30 Query\tSELECT 1\n\
         261202 21:16:50\t    30 Query\tSELECT 2\n\
         261202 21:17:40\t    30 Query\tSELECT 3\n",
    )
    .unwrap();
    let t0 = std::time::Instant::now();
    let j = replay_json(&[
        slow.to_str().unwrap(),
        "--source",
        &url,
        "--speed",
        "1",
        "--duration",
        "2s",
    ]);
    assert_eq!(j["interrupted"], true);
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(8),
        "took {:?}",
        t0.elapsed()
    );
    assert_eq!(
        j["sides"]["source"]["statements"], 1,
        "only the first statement was due within 2 s"
    );
    // Bad settings and unreachable servers: clear errors, exit 2, passwords masked.
    let out = cutover(&["replay", &log, "--source", "mysql://u:s3cret@127.0.0.1:1/x"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot connect") && !err.contains("s3cret"),
        "{err}"
    );
    let out = cutover(&["replay", &log, "--source", &url, "--shard", "2/2"]);
    assert_eq!(out.status.code(), Some(2));
    mysql(None, &format!("DROP DATABASE {db}"));
}

#[test]
fn a_dropped_connection_reconnects_with_its_session_state() {
    let _serial = serial();
    let db = "cutover_replay_kill";
    mariadb_sbtest(db);
    let url = with_db(&mysql_url(), db);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("kill.log");
    write_general_log(
        &log,
        "261202 21:16:40\t    30 Query\tSET SESSION sql_mode = 'ANSI_QUOTES'\n\
         \t\t    30 Query\tSELECT SLEEP(5) AS cutover_kill_me\n\
         \t\t    30 Query\tSELECT id FROM \"sbtest1\" WHERE id = 1\n",
    )
    .unwrap();
    // Kill the replay's connection while it sleeps.
    let killer = std::thread::spawn(|| {
        for _ in 0..50 {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let ids = mysql(
                None,
                "SELECT id FROM information_schema.processlist WHERE info LIKE 'SELECT SLEEP(5) AS cutover_kill_me%'",
            );
            if let Some(id) = ids.lines().next() {
                mysql(None, &format!("KILL {id}"));
                return true;
            }
        }
        false
    });
    let j = replay_json(&[log.to_str().unwrap(), "--source", &url, "--max-speed"]);
    assert!(
        killer.join().unwrap(),
        "the sleeping statement was never seen"
    );
    let s = &j["sides"]["source"];
    assert_eq!(s["reconnects"], 1, "{s:#}");
    // The killed statement did not run: an infrastructure failure (connection lost), not an error
    // of its SQL, and it makes the run incomplete.
    assert_eq!(s["infrastructure_errors"], 1, "{s:#}");
    assert_eq!(
        s["errors"], 0,
        "no statement failed for its SQL: {:#}",
        j["fingerprints"]
    );
    assert_eq!(j["incomplete"].as_array().map(Vec::len), Some(1), "{j:#}");
    // The statement after the reconnect ran with the restored sql_mode: "sbtest1" names the table
    // under ANSI_QUOTES (without it, it is a string, and the statement a syntax error).
    assert_eq!(s["statements"], 2);
    mysql(None, &format!("DROP DATABASE {db}"));
}

/// An ordered write still on its way to its row when its lock grace ends (here, its SELECT sleeps
/// before the INSERT takes the row) holds back the write captured after it on the same row until
/// the server shows it waiting for a row lock or it finishes: with the grace alone, the later
/// INSERT took the row first and the captured one failed (the copies of an A/A then ended
/// different with every result equal).
#[test]
fn an_ordered_write_on_its_way_to_its_row_is_not_overtaken() {
    let _serial = serial();
    let db = "cutover_replay_grace";
    mariadb_sbtest(db);
    let url = with_db(&mysql_url(), db);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("grace.log");
    write_general_log(
        &log,
        "261202 21:16:40\t    30 Connect\troot@127.0.0.1 on x using TCP/IP\n\
         \t\t    31 Connect\troot@127.0.0.1 on x using TCP/IP\n\
         \t\t    30 Query\tINSERT INTO sbtest1 (id, k, c, pad) SELECT 20001, SLEEP(0.3), 'first', ''\n\
         \t\t    31 Query\tINSERT INTO sbtest1 (id, k, c, pad) VALUES (20001, 0, 'second', '')\n\
         \t\t    30 Quit\t\n\
         \t\t    31 Quit\t\n",
    )
    .unwrap();
    let j = replay_json(&[
        log.to_str().unwrap(),
        "--source",
        &url,
        "--mode",
        "all",
        "--allow-writes",
        "--max-speed",
    ]);
    let s = &j["sides"]["source"];
    // As captured: the first INSERT took the row, the second failed on the duplicate key.
    assert_eq!(
        mysql(Some(db), "SELECT c FROM sbtest1 WHERE id = 20001").trim(),
        "first",
        "{s:#}"
    );
    assert_eq!(s["errors"], 1, "{s:#}");
    assert_eq!(s["order_waits"], 1, "{s:#}");
    assert_eq!(s["order_held_past_grace"], 1, "{s:#}");
    mysql(None, &format!("DROP DATABASE {db}"));
}

/// A log whose order the server's locks contradict (a statement written after one that, replayed,
/// waits for a row lock the waiting session holds): the gate holds one session for the other while
/// the server holds the other for the first. The cycle is seen, made sure of (two looks at the
/// server's lock waits, 200 ms apart) and broken, well before the 2 s timeout, on both sides of an
/// A/A, and both copies end alike.
#[test]
fn a_wait_cycle_through_a_server_lock_is_broken_not_timed_out() {
    let _serial = serial();
    let (a, b) = ("cutover_replay_cycle_a", "cutover_replay_cycle_b");
    for db in [a, b] {
        mariadb_sbtest(db);
    }
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("cycle.log");
    // Session 31's UPDATE of row 1 waits for session 30's lock when replayed; its UPDATE of row 2
    // (written before session 30's) is then never reached, and session 30's waits for it. Session
    // 31's SELECT keeps the general log's order correction (see `Moved`) out of this: the session
    // wrote something after its UPDATE of row 2, so the log does not prove that UPDATE came late.
    write_general_log(
        &log,
        "261207 08:30:00\t    30 Connect\troot@127.0.0.1 on x using TCP/IP\n\
         \t\t    31 Connect\troot@127.0.0.1 on x using TCP/IP\n\
         \t\t    30 Query\tBEGIN\n\
         \t\t    30 Query\tUPDATE sbtest1 SET k = k + 1 WHERE id = 1\n\
         \t\t    31 Query\tBEGIN\n\
         \t\t    31 Query\tUPDATE sbtest1 SET k = k + 10 WHERE id = 1\n\
         \t\t    31 Query\tUPDATE sbtest1 SET k = k + 10 WHERE id = 2\n\
         \t\t    30 Query\tUPDATE sbtest1 SET k = k + 1 WHERE id = 2\n\
         \t\t    31 Query\tSELECT k FROM sbtest2 WHERE id = 3\n\
         \t\t    30 Query\tCOMMIT\n\
         \t\t    31 Query\tCOMMIT\n\
         \t\t    30 Quit\t\n\
         \t\t    31 Quit\t\n",
    )
    .unwrap();
    let started = std::time::Instant::now();
    let j = replay_json(&[
        log.to_str().unwrap(),
        "--source",
        &with_db(&mysql_url(), a),
        "--target",
        &with_db(&mysql_url(), b),
        "--mode",
        "all",
        "--allow-writes",
        "--max-speed",
    ]);
    let took = started.elapsed();
    for side in ["source", "target"] {
        let s = &j["sides"][side];
        assert_eq!(s["order_lock_cycles"], 1, "{side}: {s:#}");
        assert_eq!(s["order_wait_timeouts"], 0, "{side}: {s:#}");
        assert_eq!(s["errors"], 0, "{side}: {s:#}");
    }
    // Two looks 200 ms apart, not the 2 s timeout (the two sides wait at the same time).
    assert!(
        took < std::time::Duration::from_millis(1900),
        "took {took:?}"
    );
    assert_eq!(j["mismatches"], 0, "{j:#}");
    for db in [a, b] {
        assert_eq!(
            mysql(
                Some(db),
                "SELECT k FROM sbtest1 WHERE id IN (1, 2) ORDER BY id"
            )
            .split_whitespace()
            .collect::<Vec<_>>(),
            // Row 1: (1 * 7919) % 10007 + 11; row 2: (2 * 7919) % 10007 + 11.
            ["7930", "5842"],
            "{db}"
        );
    }
    assert_eq!(checksum(a), checksum(b));
    for db in [a, b] {
        mysql(None, &format!("DROP DATABASE {db}"));
    }
}

/// A PostgreSQL target whose tables were loaded and never analyzed is named in the report (its
/// planner plans them blind until autovacuum gets to them); once analyzed, nothing is said.
#[test]
fn a_target_without_planner_statistics_is_named() {
    let _serial = serial();
    let db = "cutover_replay_stats";
    mysql(
        None,
        &format!(
            "DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}; CREATE TABLE {db}.t (id INT PRIMARY KEY, v TEXT); INSERT INTO {db}.t VALUES (1, 'x')"
        ),
    );
    common::fresh_pg_database(db);
    // Autovacuum off for these tables, or it could analyze them before the replay looks.
    psql(
        db,
        "CREATE TABLE t (id INT PRIMARY KEY, v TEXT) WITH (autovacuum_enabled = false);
         INSERT INTO t SELECT g, 'x' FROM generate_series(1, 1000) g;
         CREATE TABLE empty (id INT) WITH (autovacuum_enabled = false);
         CREATE TABLE loaded_after (id INT) WITH (autovacuum_enabled = false);
         INSERT INTO loaded_after VALUES (1);
         CREATE TABLE drifted (id INT) WITH (autovacuum_enabled = false);
         INSERT INTO drifted SELECT g FROM generate_series(1, 1000) g",
    );
    // Each step in its own session: a session reports its row changes when it ends, and changes
    // reported after an ANALYZE count as made after it.
    psql(db, "ANALYZE loaded_after; ANALYZE drifted");
    psql(
        db,
        "INSERT INTO loaded_after SELECT g FROM generate_series(2, 1000) g;
         INSERT INTO drifted SELECT g FROM generate_series(1001, 1500) g",
    );
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("stats.log");
    write_general_log(
        &log,
        "261202 21:16:40\t    30 Query\tSELECT v FROM t WHERE id = 1\n",
    )
    .unwrap();
    let (src, tgt) = (with_db(&mysql_url(), db), with_db(&pg_url(), db));
    let args = [
        log.to_str().unwrap(),
        "--source",
        &src,
        "--target",
        &tgt,
        "--max-speed",
    ];
    let j = replay_json(&args);
    assert_eq!(j["sides"]["source"]["unanalyzed"], Value::Null, "{j:#}");
    // The empty table needs no statistics; a table analyzed with 1 row and loaded with 999 more has
    // stale ones; one that grew by half since (under its size) is not named.
    assert_eq!(
        j["sides"]["target"]["unanalyzed"],
        serde_json::json!({"tables": 1, "examples": ["public.t"],
                           "stale": 1, "stale_examples": ["public.loaded_after"]})
    );
    let mut text_args = vec!["replay"];
    text_args.extend_from_slice(&args);
    let text = String::from_utf8_lossy(&cutover(&text_args).stdout).into_owned();
    assert!(
        text.contains("1 table with rows never analyzed (public.t)"),
        "{text}"
    );
    assert!(
        text.contains(
            "1 table changed by more rows since their last ANALYZE than they held then (public.loaded_after)"
        ),
        "{text}"
    );
    // The go/no-go report carries it beside the target's latency and rate.
    let result = dir.path().join("replay.json");
    std::fs::write(&result, j.to_string()).unwrap();
    let r = go_no_go(&result);
    for id in ["replay.latency", "replay.throughput"] {
        let c = common::criterion(&r, id);
        assert_ne!(c["status"], "pass", "{c:#}");
        assert!(
            c["summary"]
                .as_str()
                .unwrap()
                .contains("target: 1 table(s) never analyzed, 1 table(s) with stale statistics"),
            "{c:#}"
        );
        let e = &c["evidence"][0];
        assert_eq!(
            (&e["id"], &e["status"]),
            (&Value::from("target"), &Value::from("warn")),
            "{c:#}"
        );
        assert!(
            e["detail"].as_str().unwrap().contains("(public.t)"),
            "{c:#}"
        );
    }
    psql(db, "ANALYZE");
    let j = replay_json(&args);
    assert_eq!(j["sides"]["target"]["unanalyzed"]["tables"], 0, "{j:#}");
    assert_eq!(j["sides"]["target"]["unanalyzed"]["stale"], 0, "{j:#}");
    mysql(None, &format!("DROP DATABASE {db}"));
    psql("postgres", &format!("DROP DATABASE {db} WITH (FORCE)"));
}

/// A session that falls behind its recorded times shows it in `behind_ms`, while its start lag (the
/// replay's own delay beyond the session's previous statement) stays near zero: a statement that
/// took 0.6 s in the replay and 0.1 s in the capture makes the next one start 0.5 s late.
#[test]
fn a_session_behind_its_recorded_times_is_measured() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("behind.log");
    write_general_log(
        &log,
        "261207 02:40:01\t    40 Query\tSELECT SLEEP(0.6)\n\
         261207 02:40:01\t    41 Query\tSELECT 1\n\
         261207 02:40:02\t    40 Query\tSELECT 2\n\
         261207 02:40:02\t    41 Query\tSELECT 3\n\
         261207 02:40:03\t    41 Query\tSELECT 4\n",
    )
    .unwrap();
    let url = with_db(&mysql_url(), "test");
    let at_speed = replay_json(&[log.to_str().unwrap(), "--source", &url, "--speed", "1"]);
    let s = &at_speed["sides"]["source"];
    assert_eq!(s["statements"], 5, "{s:#}");
    // Session 40's second statement is due about 1 s after its first, which took 0.6 s: on time.
    // Make it due sooner: the same at --speed 4 (due 0.25 s after, started after 0.6 s).
    let faster = replay_json(&[log.to_str().unwrap(), "--source", &url, "--speed", "4"]);
    let f = &faster["sides"]["source"];
    let behind_max = f["behind_ms"]["max"].as_f64().unwrap();
    assert!(
        (250.0..600.0).contains(&behind_max),
        "behind max {behind_max}: {f:#}"
    );
    assert!(
        f["start_lag_ms"]["max"].as_f64().unwrap() < 100.0,
        "{:#}",
        f["start_lag_ms"]
    );
    assert!(s["behind_ms"]["max"].as_f64().unwrap() < 100.0, "{s:#}");
    let text = String::from_utf8_lossy(
        &cutover(&[
            "replay",
            log.to_str().unwrap(),
            "--source",
            &url,
            "--speed",
            "4",
            "-q",
        ])
        .stdout,
    )
    .into_owned();
    assert!(text.contains("behind the recorded time (ms):"), "{text}");
    // No recorded time to be behind at --max-speed.
    let max = replay_json(&[log.to_str().unwrap(), "--source", &url, "--max-speed"]);
    assert_eq!(max["sides"]["source"]["behind_ms"], Value::Null);
    // Shards merge their lateness.
    let mut parts = Vec::new();
    for k in 0..2 {
        let part = replay_json(&[
            log.to_str().unwrap(),
            "--source",
            &url,
            "--speed",
            "4",
            "--shard",
            &format!("{k}/2"),
        ]);
        let p = dir.path().join(format!("behind{k}.json"));
        std::fs::write(&p, part.to_string()).unwrap();
        parts.push(p.display().to_string());
    }
    let mut args = vec!["merge", "--format", "json"];
    args.extend(parts.iter().map(String::as_str));
    let merged: Value = serde_json::from_slice(&cutover(&args).stdout).unwrap();
    let m = &merged["sides"]["source"]["behind_ms"];
    assert_eq!(m["count"], 5, "{merged:#}");
    assert!(
        (250.0..600.0).contains(&m["max"].as_f64().unwrap()),
        "{m:#}"
    );
}

/// The host's CPUs, as /proc/stat lists them.
fn host_cpus() -> u64 {
    std::fs::read_to_string("/proc/stat")
        .expect("/proc/stat")
        .lines()
        .filter(|l| {
            l.strip_prefix("cpu")
                .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        })
        .count() as u64
}

#[test]
fn a_replay_on_a_host_out_of_cpu_says_so_and_what_to_do() {
    let _serial = serial();
    let db = "cutover_replay_host";
    mariadb_sbtest(db);
    let url = with_db(&mysql_url(), db);
    // Every CPU of the host kept busy by this test while the replay runs: the host is out of CPU.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let burners: Vec<_> = (0..host_cpus())
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut x = 1u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            })
        })
        .collect();
    // A/A of the reads (the go/no-go report judges the pace of a replay with a target).
    let j = replay_json(&[
        &capture("general-text"),
        "--source",
        &url,
        "--target",
        &url,
        "--speed",
        "1",
    ]);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for b in burners {
        b.join().unwrap();
    }
    let c = &j["client"];
    let sent = j["sides"]["source"]["statements"].as_u64().unwrap()
        + j["sides"]["target"]["statements"].as_u64().unwrap();
    assert!(sent > 200, "{:#}", j["sides"]);
    assert_eq!(c["statements"].as_u64(), Some(sent), "{c:#}");
    let cpu = c["user_s"].as_f64().unwrap() + c["system_s"].as_f64().unwrap();
    assert!(cpu > 0.0, "{c:#}");
    let per = c["us_per_statement"].as_f64().unwrap();
    assert!((per - cpu * 1e6 / sent as f64).abs() < 0.01 * per, "{c:#}");
    assert_eq!(c["host_cpus"].as_u64(), Some(host_cpus()), "{c:#}");
    assert!(c["host_busy"].as_f64().unwrap() >= 0.9, "{c:#}");
    // With a target the replay runs on several threads: no one thread's share to give.
    assert!(c["runtime_thread_busy"].is_null(), "{c:#}");

    // The same result with the pace missed (as on a slower host): the text report and the go/no-go
    // report's replay.pace name the host as the reason, and what to do.
    let mut missed = j.clone();
    missed["sides"]["source"]["pace"] = serde_json::json!(0.5);
    missed["sides"]["source"]["recorded_qps"] = serde_json::json!(2000.0);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("replay.json");
    std::fs::write(&path, serde_json::to_vec(&missed).unwrap()).unwrap();
    let p = path.to_str().unwrap();
    let text = String::from_utf8_lossy(&cutover(&["merge", p]).stdout).to_string();
    assert!(text.contains("replay host: cutover used"), "{text}");
    assert!(
        text.contains("the replay's host was out of CPU")
            && text.contains("run the replay from a host of its own"),
        "{text}"
    );
    let r = go_no_go(&path);
    let pace = common::criterion(&r, "replay.pace");
    let said = pace.to_string();
    assert!(
        said.contains("out of CPU") && said.contains("--shard K/N"),
        "{pace:#}"
    );
    // Held pace: no such reason, whatever the host's load.
    missed["sides"]["source"]["pace"] = serde_json::json!(1.0);
    std::fs::write(&path, serde_json::to_vec(&missed).unwrap()).unwrap();
    let text = String::from_utf8_lossy(&cutover(&["merge", p]).stdout).to_string();
    assert!(!text.contains("out of CPU"), "{text}");

    // A source-only replay runs on one thread, whose busy share is given.
    let j = replay_json(&[&capture("general-text"), "--source", &url, "--max-speed"]);
    let t = j["client"]["runtime_thread_busy"].as_f64().unwrap();
    assert!(t > 0.0 && t <= 1.0, "{:#}", j["client"]);
    mysql(None, &format!("DROP DATABASE {db}"));
}
