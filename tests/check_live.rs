//! `cutover check` on the real servers: the shipped scenario (replays/check-sysbench.toml, pointed at
//! a scratch copy of its data) runs audit → replay → verify → report and writes every file; a scenario
//! without `[verify]` is no-go with verify not-run; an unreachable target names the stage, writes the
//! report with that stage not-run, and exits 2 without a panic.

mod common;

use common::{HOW_TO_START, mysql, mysql_url, pg_url, with_db};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cutover(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(args)
        .output()
        .expect("run cutover")
}

/// The scenario's four sbtest tables, same rows, in database `db` on MariaDB and (with `pg`)
/// PostgreSQL, as scripts/load-scenario.sh loads them.
fn load(db: &str, pg: bool) {
    mysql(
        None,
        &format!("DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}"),
    );
    let sql = std::fs::read_to_string(root().join("corpora/scenario/sbtest.mysql.sql")).unwrap();
    mysql(Some(db), &sql);
    if pg {
        common::fresh_pg_database(db);
        let out = common::psql_client(db)
            .arg("-f")
            .arg(root().join("corpora/scenario/sbtest.postgres.sql"))
            .output()
            .unwrap_or_else(|e| panic!("cannot run psql ({e}): {HOW_TO_START}"));
        assert!(
            out.status.success(),
            "psql: {}\n({HOW_TO_START})",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn drop_db(db: &str, pg: bool) {
    mysql(None, &format!("DROP DATABASE IF EXISTS {db}"));
    if pg {
        common::psql(
            "postgres",
            &format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
        );
    }
}

/// The shipped scenario's text with its servers replaced by the test servers' database `db`, its
/// `target` by `target` when given, and its relative paths made absolute (the copy lives elsewhere).
fn shipped_scenario(db: &str, target: Option<&str>) -> String {
    let text = std::fs::read_to_string(root().join("replays/check-sysbench.toml")).unwrap();
    let mut out = String::new();
    let (mut source_seen, mut target_seen) = (false, false);
    for line in text.lines() {
        if line.starts_with("source = ") {
            out.push_str(&format!("source = \"{}\"\n", with_db(&mysql_url(), db)));
            source_seen = true;
        } else if line.starts_with("target = ") {
            let t = target.map_or_else(|| with_db(&pg_url(), db), str::to_string);
            out.push_str(&format!("target = \"{t}\"\n"));
            target_seen = true;
        } else {
            let abs = format!("\"{}/", root().display());
            out.push_str(&line.replace("\"../", &abs));
            out.push('\n');
        }
    }
    assert!(
        source_seen && target_seen,
        "the shipped scenario changed:\n{text}"
    );
    out
}

fn check(scenario: &str, dir: &Path, extra: &[&str]) -> (Output, PathBuf) {
    let file = dir.join("scenario.toml");
    std::fs::write(&file, scenario).unwrap();
    let out = dir.join("out");
    let mut args = vec![
        "check",
        "--scenario",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    (cutover(&args), out)
}

fn report(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("report.json"))
        .unwrap_or_else(|e| panic!("no report.json in {} ({e})", out.display()));
    serde_json::from_str(&text).expect("report.json is JSON")
}

fn statuses(j: &Value) -> Vec<(String, String)> {
    j["criteria"]
        .as_array()
        .expect("criteria")
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap_or("").to_string(),
                c["status"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn no_server_trouble(err: &str) {
    assert!(!err.contains("cannot connect"), "{err}\n({HOW_TO_START})");
}

#[test]
fn the_shipped_scenario_runs_every_stage_and_writes_every_file() {
    let db = "cutover_check_ship";
    load(db, true);
    let dir = tempfile::tempdir().unwrap();
    let (o, out) = check(&shipped_scenario(db, None), dir.path(), &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    no_server_trouble(&err);
    assert!(!err.contains("panicked"), "{err}");
    // Piped: no progress lines.
    assert!(!err.contains("[1/4]"), "progress drawn on a pipe: {err}");
    for f in [
        "audit.json",
        "replay.json",
        "verify.json",
        "report.json",
        "report.html",
        "report.md",
        "report.junit.xml",
    ] {
        let p = out.join(f);
        assert!(
            p.metadata().map(|m| m.len() > 0).unwrap_or(false),
            "{f} missing or empty: {err}"
        );
    }
    let j = report(&out);
    assert_eq!(j["schema"], "cutover.report/1");
    let st = statuses(&j);
    for stage in ["audit.", "replay.", "verify.", "evidence."] {
        assert!(
            st.iter().any(|(id, _)| id.starts_with(stage)),
            "{stage}: {st:?}"
        );
    }
    let not_run: Vec<_> = st.iter().filter(|(_, s)| s == "not-run").collect();
    assert!(not_run.is_empty(), "stages not run: {not_run:?}\n{err}");
    // The stage results are the stages' own schemas, and the report read all three.
    for (f, schema) in [
        ("audit.json", "cutover.audit/1"),
        ("replay.json", "cutover.replay/1"),
        ("verify.json", "cutover.verify/1"),
    ] {
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join(f)).unwrap()).unwrap();
        assert_eq!(v["schema"], schema);
    }
    assert_eq!(j["stage_inputs"].as_array().map(Vec::len), Some(3));
    // Reads mode leaves the writes unexercised: a warning, never a block.
    let status = |id: &str| st.iter().find(|(i, _)| i == id).map(|(_, s)| s.as_str());
    assert_eq!(status("replay.coverage"), Some("warn"));
    assert_eq!(status("verify.differences"), Some("pass"));
    assert_eq!(status("replay.mismatches"), Some("pass"));
    assert_eq!(status("audit.fail"), Some("pass"));
    // The exit code is the report's. Same rows, same answers: only latency, timed on a shared
    // machine, could block (and then the report says so).
    let code = o.status.code();
    match j["verdict"].as_str() {
        Some("go") | Some("go-with-waivers") => assert_eq!(code, Some(0), "{err}"),
        Some("no-go") => {
            assert_eq!(code, Some(1), "{err}");
            let blocking: Vec<_> = st
                .iter()
                .filter(|(_, s)| ["fail", "vacuous", "not-run"].contains(&s.as_str()))
                .collect();
            assert!(
                blocking.iter().all(|(id, _)| id == "replay.latency"),
                "{blocking:?}"
            );
        }
        v => panic!("verdict {v:?}"),
    }
    // The text report on stdout says the verdict.
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with("cutover report: "), "{text}");
    drop_db(db, true);
}

#[test]
fn without_a_verify_section_verify_is_not_run_and_the_verdict_is_no_go() {
    let db = "cutover_check_nover";
    load(db, true);
    let text = shipped_scenario(db, None);
    let start = text
        .find("[verify]")
        .expect("the shipped scenario has [verify]");
    let end = text[start..]
        .find("\n[")
        .map_or(text.len(), |i| start + i + 1);
    let without = format!("{}{}", &text[..start], &text[end..]);
    assert!(!without.contains("[verify]") && without.contains("[report]"));
    let dir = tempfile::tempdir().unwrap();
    let (o, out) = check(&without, dir.path(), &["--format", "json"]);
    let err = String::from_utf8_lossy(&o.stderr);
    no_server_trouble(&err);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let j: Value = serde_json::from_slice(&o.stdout).expect("--format json on stdout");
    assert_eq!(j["verdict"], "no-go");
    let st = statuses(&j);
    let verify: Vec<_> = st
        .iter()
        .filter(|(id, _)| id.starts_with("verify."))
        .collect();
    assert_eq!(verify.len(), 4, "{st:?}");
    assert!(verify.iter().all(|(_, s)| s == "not-run"), "{verify:?}");
    assert!(j["reason"].as_str().unwrap().contains("verify.differences"));
    assert!(!out.join("verify.json").exists());
    assert!(out.join("replay.json").exists() && out.join("report.html").exists());
    assert_eq!(report(&out)["verdict"], "no-go");
    drop_db(db, true);
}

#[test]
fn an_unreachable_target_names_the_stage_and_the_report_is_still_written() {
    let db = "cutover_check_down";
    load(db, false);
    let dir = tempfile::tempdir().unwrap();
    let (o, out) = check(
        &shipped_scenario(db, Some(&format!("postgres://postgres@127.0.0.1:1/{db}"))),
        dir.path(),
        &["-q"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("replay could not run: cannot connect to postgres://postgres@127.0.0.1:1/"),
        "{err}"
    );
    assert!(err.contains("verify could not run"), "{err}");
    assert!(err.contains("not-run"), "{err}");
    // The audit ran (it needs no target); the report is there with replay and verify not-run.
    assert!(out.join("audit.json").exists());
    assert!(!out.join("replay.json").exists());
    let j = report(&out);
    assert_eq!(j["verdict"], "no-go");
    for (id, s) in statuses(&j) {
        if id.starts_with("replay.") || id.starts_with("verify.") {
            assert_eq!(s, "not-run", "{id}");
        }
        if id == "audit.fail" {
            assert_eq!(s, "pass");
        }
    }
    drop_db(db, false);
}

#[test]
fn a_scenario_with_a_typo_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let text = shipped_scenario("cutover_check_never", None).replace("tables =", "tabels =");
    let (o, out) = check(&text, dir.path(), &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("scenario.toml") && err.contains("tabels"),
        "{err}"
    );
    assert!(!out.exists(), "nothing is written for a bad scenario");
    // A missing gate file is found before any stage runs, too.
    let text = shipped_scenario("cutover_check_never", None)
        .replace("checklists/gate.toml", "checklists/no-such-gate.toml");
    let (o, out) = check(&text, dir.path(), &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("no-such-gate.toml"), "{err}");
    assert!(!out.exists());
}

#[test]
fn ctrl_c_during_the_replay_stops_the_check_and_still_writes_the_report() {
    let db = "cutover_check_sigint";
    load(db, true);
    let dir = tempfile::tempdir().unwrap();
    // The TPC-C capture spans 10 recorded seconds: at a tenth of its pace the replay lasts
    // minutes, and the signal, sent once the audit has written its result, lands in it. (The
    // sysbench capture's statements all share one second: no pace makes it last.)
    let text = shipped_scenario(db, None)
        .replace("speed = 10.0", "speed = 0.1")
        .replace(
            "corpora/sysbench/general-text.log.gz",
            "corpora/tpcc/general.log.gz",
        );
    assert!(text.contains("speed = 0.1") && text.contains("tpcc/general.log.gz"));
    let file = dir.path().join("scenario.toml");
    std::fs::write(&file, text).unwrap();
    let out = dir.path().join("out");
    let child = Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(["check", "--scenario", file.to_str().unwrap(), "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run cutover");
    let pid = child.id().to_string();
    let started = std::time::Instant::now();
    while !out.join("audit.json").exists() && started.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(
        out.join("audit.json").exists(),
        "the audit did not finish in 2 minutes"
    );
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let sent = Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill");
    assert!(sent.success());
    let o = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&o.stderr);
    no_server_trouble(&err);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("replay: incomplete"), "{err}");
    assert!(
        err.contains("verify could not run: the check was interrupted"),
        "{err}"
    );
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("replay.json")).unwrap()).unwrap();
    assert_eq!(r["interrupted"], true);
    assert!(!out.join("verify.json").exists());
    let j = report(&out);
    assert_eq!(j["verdict"], "no-go");
    for (id, s) in statuses(&j) {
        if id.starts_with("verify.") {
            assert_eq!(s, "not-run", "{id}");
        }
    }
    drop_db(db, true);
}

#[test]
fn wrong_credentials_name_the_stages_and_never_print_the_password() {
    let dir = tempfile::tempdir().unwrap();
    let db = "cutover_check_nopass";
    let u = common::url_parts(&mysql_url());
    let bad = format!(
        "mysql://nosuchuser:s3cret-Check-pw@{}:{}/{db}",
        u.host, u.port
    );
    let text: String = shipped_scenario(db, None)
        .lines()
        .map(|l| {
            if l.starts_with("source = ") {
                format!("source = \"{bad}\"\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let (o, out) = check(&text, dir.path(), &["--format", "json"]);
    let err = String::from_utf8_lossy(&o.stderr);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(2), "{err}");
    // The audit reads the schema from the source, the replay and verify talk to it: all three say so.
    for stage in ["audit", "replay", "verify"] {
        assert!(
            err.contains(&format!("{stage} could not run")),
            "{stage}: {err}"
        );
    }
    assert!(err.contains("nosuchuser"), "{err}");
    for text in [&err, &stdout] {
        assert!(
            !text.contains("s3cret-Check-pw"),
            "password printed: {text}"
        );
    }
    for f in std::fs::read_dir(&out).unwrap() {
        let body = std::fs::read_to_string(f.unwrap().path()).unwrap();
        assert!(!body.contains("s3cret-Check-pw"));
    }
    let j = report(&out);
    assert_eq!(j["verdict"], "no-go");
    assert!(
        statuses(&j)
            .iter()
            .all(|(id, s)| id == "evidence.consistency" || s == "not-run")
    );
}
