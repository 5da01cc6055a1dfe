//! Faults around a replay or a verify, on the real servers (hardening issue, items 2, 3, 4, 7, 16):
//! a capture that would take more connections than a server can spare is refused with the
//! numbers; Ctrl-C / SIGTERM cancels the statements running on the servers, writes the partial
//! result and exits 2; statements that fail for infrastructure reasons (out of file descriptors)
//! are counted apart and make the run incomplete, never "0 mismatches, exit 0"; and the usual
//! mistakes of a new user get an error that says what to do.

mod common;

use common::*;
use serde_json::Value;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Tests here load the servers (connections, long statements): one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_cutover")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A MariaDB general log with `sessions` sessions, each connecting and running `sql` at the same
/// second, none quitting.
fn general_log(dir: &std::path::Path, sessions: u32, sql: &str) -> std::path::PathBuf {
    let mut log = String::from(
        "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n",
    );
    log.push_str("261204 10:00:00\t");
    for s in 0..sessions {
        let id = 100 + s;
        if s > 0 {
            log.push_str("\t\t");
        }
        log.push_str(&format!(
            "{id:>6} Connect\troot@localhost on test using TCP/IP\n\t\t{id:>6} Query\t{sql}\n"
        ));
    }
    let p = dir.join("general.log");
    std::fs::write(&p, log).expect("write log");
    p
}

fn replay(log: &std::path::Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "replay",
        log.to_str().unwrap(),
        "--source",
        "",
        "--format",
        "json",
        "-q",
    ];
    let src = mysql_url();
    args[3] = &src;
    args.extend_from_slice(extra);
    Command::new(bin())
        .args(&args)
        .output()
        .expect("run cutover")
}

#[test]
fn a_replay_that_would_crowd_the_server_is_refused_with_the_numbers() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let max: u64 = mysql(None, "SELECT @@max_connections")
        .trim()
        .parse()
        .unwrap();
    // More sessions at once than half the server's connections.
    let sessions = (max / 2 + 10) as u32;
    let log = general_log(dir.path(), sessions, "SELECT 1");
    let o = replay(&log, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    for want in [
        format!("up to {sessions} sessions"),
        format!("allows {max} connections"),
        "--max-connections".to_string(),
        "--shard".to_string(),
    ] {
        assert!(err.contains(&want), "{want:?} missing: {err}");
    }
    assert!(o.stdout.is_empty(), "nothing ran, so no result");
    // The user's own cap is checked too.
    let small = general_log(dir.path(), 10, "SELECT 1");
    let o = replay(&small, &["--max-connections", "5"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--max-connections 5"), "{}", stderr(&o));
    let o = replay(&small, &["--max-connections", "20"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["sides"]["source"]["statements"], 10, "{j:#}");
}

/// Sends `signal` to a child after `after`, and waits for it; (output, seconds from the signal).
fn signal_after(mut child: Child, signal: &str, after: Duration) -> (Output, f64) {
    std::thread::sleep(after);
    let sent = Instant::now();
    let ok = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(ok.success());
    // Never hang the test: a child still alive after 30 s is killed and the test fails below.
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    if child.try_wait().unwrap().is_none() {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    (out, sent.elapsed().as_secs_f64())
}

/// Starts cutover with its output piped, to be stopped by a signal.
fn spawn(args: &[&str]) -> Child {
    Command::new(bin())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start cutover")
}

fn running_on_mariadb(marker: &str) -> u64 {
    mysql(
        None,
        &format!(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%{marker}%' AND INFO NOT LIKE '%PROCESSLIST%'"
        ),
    )
    .trim()
    .parse()
    .unwrap()
}

fn running_on_postgres(marker: &str) -> u64 {
    psql(
        "postgres",
        &format!(
            "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%{marker}%' AND query NOT LIKE '%pg_stat_activity%'"
        ),
    )
    .trim()
    .parse()
    .unwrap()
}

#[test]
fn ctrl_c_cancels_running_statements_and_writes_the_partial_result() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    // MariaDB runs SLEEP(100) (the target fails it at once); PostgreSQL runs pg_sleep(100) (the
    // source fails it at once): each engine's cancel is needed once.
    for (signal, sql, on_pg) in [
        ("INT", "SELECT SLEEP(100) AS cutover_cancel_my", false),
        ("TERM", "SELECT pg_sleep(100) AS cutover_cancel_pg", true),
    ] {
        let log = general_log(dir.path(), 1, sql);
        let marker = if on_pg {
            "cutover_cancel_pg"
        } else {
            "cutover_cancel_my"
        };
        let target = pg_url();
        let child = spawn(&[
            "replay",
            log.to_str().unwrap(),
            "--source",
            &mysql_url(),
            "--target",
            &target,
            "--format",
            "json",
            "-q",
        ]);
        let (o, secs) = signal_after(child, signal, Duration::from_secs(3));
        assert!(
            secs < 10.0,
            "SIG{signal}: cutover took {secs:.1} s to stop: {}",
            stderr(&o)
        );
        assert_eq!(o.status.code(), Some(2), "SIG{signal}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("interrupted by a signal"),
            "{}",
            stderr(&o)
        );
        let j: Value = serde_json::from_slice(&o.stdout).expect("a partial JSON result");
        assert_eq!(j["interrupted"], true);
        assert!(!j["incomplete"].as_array().unwrap().is_empty(), "{j:#}");
        assert_eq!(
            j["mismatches"], 0,
            "a cancelled statement is not a mismatch: {j:#}"
        );
        // Nothing left running on the server.
        std::thread::sleep(Duration::from_millis(500));
        let left = if on_pg {
            running_on_postgres(marker)
        } else {
            running_on_mariadb(marker)
        };
        assert_eq!(
            left, 0,
            "SIG{signal}: the statement still runs on the server"
        );
    }
}

#[test]
fn verify_stops_on_ctrl_c_with_a_partial_report() {
    let _g = serial();
    let db = "cutover_verify_int";
    mysql(
        None,
        &format!(
            "DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}; USE {db};
             CREATE TABLE a (id INT PRIMARY KEY, v INT); INSERT INTO a SELECT seq, seq FROM seq_1_to_20000;
             CREATE TABLE b (id INT PRIMARY KEY, v INT); INSERT INTO b SELECT seq, seq FROM seq_1_to_100;"
        ),
    );
    fresh_pg_database(db);
    psql(
        db,
        "CREATE TABLE a (id integer PRIMARY KEY, v integer); INSERT INTO a SELECT g, g FROM generate_series(1, 20000) g;
         CREATE TABLE b (id integer PRIMARY KEY, v integer); INSERT INTO b SELECT g, g FROM generate_series(1, 100) g;",
    );
    // One row per key range: thousands of round trips, seconds of work.
    let child = spawn(&[
        "verify",
        "--source",
        &with_db(&mysql_url(), db),
        "--target",
        &with_db(&pg_url(), db),
        "--tables",
        "a,b",
        "--chunk-rows",
        "1",
        "--format",
        "json",
        "-q",
    ]);
    let (o, secs) = signal_after(child, "INT", Duration::from_millis(1500));
    assert!(secs < 10.0, "verify took {secs:.1} s to stop");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let j: Value = serde_json::from_slice(&o.stdout).expect("a partial JSON result");
    assert!(
        j["incomplete"][0]
            .as_str()
            .is_some_and(|s| s.contains("0 of 2 tables verified")),
        "{j:#}"
    );
    let a = table_report(&j, "a");
    assert_eq!(a["status"], "not_verified", "{a:#}");
    assert!(
        a["reason"].as_str().unwrap().contains("interrupted after"),
        "{a:#}"
    );
    assert_eq!(table_report(&j, "b")["status"], "not_verified");
}

#[test]
fn infrastructure_failures_are_counted_apart_and_make_the_run_incomplete() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let log = general_log(dir.path(), 60, "SELECT 1");
    // 40 file descriptors: cutover's own files and the first connections take them, the rest of
    // the sessions cannot connect ("Too many open files").
    let o = Command::new("sh")
        .args([
            "-c",
            &format!(
                "ulimit -n 40 && exec \"$0\" replay {} --source {} --target {} --max-connections 100 --format json -q",
                log.display(),
                mysql_url(),
                pg_url()
            ),
            bin(),
        ])
        .output()
        .expect("run cutover");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("did not run"), "{}", stderr(&o));
    let j: Value = serde_json::from_slice(&o.stdout).expect("JSON result");
    let infra: u64 = ["source", "target"]
        .iter()
        .map(|s| j["sides"][s]["infrastructure_errors"].as_u64().unwrap_or(0))
        .sum();
    assert!(infra > 0, "{j:#}");
    assert_eq!(
        j["mismatches"], 0,
        "a client failure is not a mismatch: {j:#}"
    );
    assert!(j["not_run"].as_u64().unwrap() > 0, "{j:#}");
    assert!(!j["incomplete"].as_array().unwrap().is_empty());
}

#[test]
fn a_new_users_mistakes_get_errors_that_say_what_to_do() {
    let verify = |source: &str, target: &str| {
        Command::new(bin())
            .args(["verify", "--source", source, "--target", target, "-q"])
            .output()
            .unwrap()
    };
    // Source and target swapped.
    let o = verify(&pg_url(), &mysql_url());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("Did you swap --source and --target?"),
        "{}",
        stderr(&o)
    );
    // A URL without a database.
    let u = url_parts(&mysql_url());
    let no_db = format!("mysql://{}@{}:{}", u.user, u.host, u.port);
    let o = verify(&no_db, &pg_url());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("names no database")
            && stderr(&o).contains("mysql://user@host:3306/shop"),
        "{}",
        stderr(&o)
    );
    // A PostgreSQL URL without a database would land in the one named after the user.
    let p = url_parts(&pg_url());
    let pg_no_db = format!("postgres://{}@{}:{}", p.user, p.host, p.port);
    let o = verify(&mysql_url(), &pg_no_db);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("the --target URL names no database"),
        "{}",
        stderr(&o)
    );
    // An unreachable server: no word about the project's own set-up script.
    let o = verify("mysql://root@127.0.0.1:1/test", &pg_url());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot connect") && !stderr(&o).contains("setup-servers"),
        "{}",
        stderr(&o)
    );
    // A user the server does not know, and a database it does not have: each hint names what to
    // fix (PostgreSQL says "does not exist" of both).
    let o = verify(
        &mysql_url(),
        &format!("postgres://cutover_no_such_role@{}:{}/test", p.host, p.port),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cutover_no_such_role")
            && stderr(&o).contains("Check the user name")
            && !stderr(&o).contains("database name"),
        "{}",
        stderr(&o)
    );
    for o in [
        verify(&mysql_url(), &with_db(&pg_url(), "cutover_no_such_db")),
        verify(&with_db(&mysql_url(), "cutover_no_such_db"), &pg_url()),
    ] {
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains("Check the database name") && !stderr(&o).contains("user name"),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn idle_sessions_share_connections_with_release_idle() {
    let _g = serial();
    let db = "cutover_release_idle";
    mysql(
        None,
        &format!("DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}"),
    );
    let dir = tempfile::tempdir().unwrap();
    // MySQL 5.7 general log: 100 sessions starting 50 ms apart (5 s in all), each running a
    // statement, idling 1 s, running another; no Quit.
    let mut log = String::from(
        "/usr/sbin/mysqld, Version: 5.7.44-log (MySQL Community Server (GPL)). started with:\nTcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock\nTime                 Id Command    Argument\n",
    );
    let mut events: Vec<(u32, String)> = Vec::new();
    for s in 0..100u32 {
        let at = s * 50_000;
        events.push((at, format!("{:>6} Query\tSELECT {s}", 100 + s)));
        events.push((
            at + 1_000_000,
            format!("{:>6} Query\tSELECT {s}, 2", 100 + s),
        ));
    }
    events.sort();
    for (at, rec) in events {
        let t = format!(
            "2026-12-04T10:00:{:02}.{:06}Z",
            at / 1_000_000,
            at % 1_000_000
        );
        log.push_str(&format!("{t}\t{rec}\n"));
    }
    let path = dir.path().join("general.log");
    std::fs::write(&path, log).unwrap();
    let url = with_db(&mysql_url(), db);
    let run = |extra: &[&str]| {
        let mut args = vec![
            "replay",
            path.to_str().unwrap(),
            "--source",
            &url,
            "--max-connections",
            "20",
            "--format",
            "json",
            "-q",
        ];
        args.extend_from_slice(extra);
        spawn(&args)
    };
    // Each session would hold its connection for 30 s: 100 at once, over the cap.
    let o = run(&[]).wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--release-idle"), "{}", stderr(&o));
    // Released after 200 ms idle, they share a handful of connections. One mysql client samples
    // PROCESSLIST every 20 ms over one connection for the 7 s the replay runs (a client started
    // per sample missed every connection under load once: each lives only a few hundred ms).
    let mut sampler = mysql_client()
        .args(["-N", "-B"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run the mysql client ({e}): {HOW_TO_START}"));
    let mut samples = String::new();
    for _ in 0..350 {
        samples.push_str(&format!(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = '{db}'; DO SLEEP(0.02);\n"
        ));
    }
    let mut sampler_in = sampler.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        let _ = sampler_in.write_all(samples.as_bytes());
    });
    let child = run(&["--release-idle", "200ms"]);
    let o = child.wait_with_output().unwrap();
    let _ = feeder.join();
    let seen = sampler.wait_with_output().unwrap();
    let counts: Vec<u64> = String::from_utf8_lossy(&seen.stdout)
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    let most = counts.iter().copied().max().unwrap_or(0);
    assert!(
        counts.len() > 20,
        "only {} samples of PROCESSLIST",
        counts.len()
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["sides"]["source"]["statements"], 200, "{j:#}");
    // Held for the 1 s idle, about 20 sessions would be connected at once; released after 200 ms,
    // a handful.
    assert!(
        (1..=12).contains(&most),
        "{most} connections at once with --release-idle 200ms"
    );
    mysql(None, &format!("DROP DATABASE {db}"));
}

/// A MySQL 5.7 general log (microsecond times) of `statements` (session, SQL), 10 ms apart.
fn paced_log(statements: impl Iterator<Item = (u32, String)>) -> String {
    let mut log = String::from(
        "/usr/sbin/mysqld, Version: 5.7.44-log (MySQL Community Server (GPL)). started with:\nTcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock\nTime                 Id Command    Argument\n",
    );
    for (i, (session, sql)) in statements.enumerate() {
        let at = i * 10_000;
        log.push_str(&format!(
            "2026-12-04T10:00:{:02}.{:06}Z\t{session:>6} Query\t{sql}\n",
            at / 1_000_000,
            at % 1_000_000,
        ));
    }
    log
}

/// The source side of a source-only replay of `path` at `speed`.
fn source_side_at(path: &std::path::Path, speed: &str) -> Value {
    let o = Command::new(bin())
        .args([
            "replay",
            path.to_str().unwrap(),
            "--source",
            &mysql_url(),
            "--speed",
            speed,
            "--format",
            "json",
            "-q",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    j["sides"]["source"].clone()
}

/// The pace is measured over the span of the starts, as the schedule's rate is: a replay that starts
/// every statement on time holds the recorded pace however long its last statement runs. Measured
/// over first start to last end, this one showed about 33%.
#[test]
fn a_long_last_statement_does_not_make_a_pace_not_held() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    // 50 statements of 2 sessions, 10 ms apart (0.5 s), then a 1 s SLEEP.
    let log = paced_log((0..51u32).map(|i| {
        let sql = if i == 50 {
            "SELECT SLEEP(1)".to_string()
        } else {
            format!("SELECT {i}")
        };
        (100 + i % 2, sql)
    }));
    let path = dir.path().join("long-last.log");
    std::fs::write(&path, log).unwrap();
    let s = source_side_at(&path, "1");
    let rec = s["recorded_qps"].as_f64().unwrap();
    assert!((95.0..=110.0).contains(&rec), "{s:#}");
    let pace = s["pace"].as_f64().unwrap();
    assert!((0.9..=1.1).contains(&pace), "pace {pace}: {s:#}");
    // QPS stays over the whole run, the SLEEP included.
    assert!(s["qps"].as_f64().unwrap() < 0.5 * rec, "{s:#}");
}

#[test]
fn the_report_says_when_the_recorded_pace_was_not_held() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    // 200 statements of 4 sessions, 10 ms apart (2 s).
    let log = paced_log((0..200u32).map(|i| (100 + i % 4, format!("SELECT {i}"))));
    let path = dir.path().join("paced.log");
    std::fs::write(&path, log).unwrap();
    let side = |speed: &str| source_side_at(&path, speed);
    // At the recorded pace (100 QPS) a local MariaDB keeps up.
    let s = side("1");
    let rec = s["recorded_qps"].as_f64().unwrap();
    assert!((90.0..=110.0).contains(&rec), "{s:#}");
    assert!(s["pace"].as_f64().unwrap() > 0.9, "{s:#}");
    let slices: u64 = s["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["recorded"].as_u64().unwrap())
        .sum();
    assert_eq!(slices, 200);
    // 100,000 times faster than recorded (10 million QPS asked of 4 sessions): not held, and said.
    let s = side("100000");
    assert!(s["pace"].as_f64().unwrap() < 0.9, "{s:#}");
}
