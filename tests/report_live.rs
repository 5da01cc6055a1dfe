//! `cutover report` on real stage results from the real MariaDB (and PostgreSQL through the
//! shipped scenario): A/A → go four times in a row; five rows changed on the target → no-go naming
//! the tables and fingerprints, waived → go-with-waivers, the waiver expired → no-go; a duplicate
//! key only the target raises → `replay.target_errors` fails with the error text.

mod common;

use common::{criterion, mysql, mysql_url, with_db};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// One test at a time: they replay on the same server and their timing feeds latency verdicts.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn cutover(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(args)
        .output()
        .expect("run cutover")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The shipped scenario's tables, same rows, on MariaDB database `db`.
fn sbtest(db: &str) {
    mysql(
        None,
        &format!("DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}"),
    );
    let sql = std::fs::read_to_string(root().join("corpora/scenario/sbtest.mysql.sql")).unwrap();
    mysql(Some(db), &sql);
}

/// Runs a stage writing JSON to `out`; returns its exit code.
fn stage(args: &[&str], out: &Path) -> i32 {
    let mut all: Vec<&str> = args.to_vec();
    let o = out.to_str().unwrap();
    all.extend(["--format", "json", "-q", "-o", o]);
    let r = cutover(&all);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        !err.contains("cannot connect"),
        "{err}\n({})",
        common::HOW_TO_START
    );
    assert!(out.exists(), "{args:?} wrote no result: {err}");
    r.status.code().unwrap_or(-1)
}

fn report(args: &[&str]) -> (Value, i32, String) {
    let mut all = vec!["report", "--format", "json"];
    all.extend_from_slice(args);
    let r = cutover(&all);
    let err = String::from_utf8_lossy(&r.stderr).into_owned();
    let j: Value =
        serde_json::from_slice(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {err}"));
    (j, r.status.code().unwrap_or(-1), err)
}

fn capture() -> String {
    root()
        .join("corpora/sysbench/general-text.log.gz")
        .display()
        .to_string()
}

/// audit + replay (reads, x10) + verify from database `a` to `b`, JSON in `dir`.
fn run_stages(dir: &Path, a: &str, b: &str) -> [PathBuf; 3] {
    let (src, tgt) = (with_db(&mysql_url(), a), with_db(&mysql_url(), b));
    let paths = [
        dir.join("audit.json"),
        dir.join("replay.json"),
        dir.join("verify.json"),
    ];
    let log = capture();
    stage(&["audit", "--target", "postgres", &log], &paths[0]);
    stage(
        &[
            "replay", &log, "--source", &src, "--target", &tgt, "--speed", "10",
        ],
        &paths[1],
    );
    stage(&["verify", "--source", &src, "--target", &tgt], &paths[2]);
    paths
}

fn files_args(p: &[PathBuf; 3]) -> Vec<String> {
    vec![
        "--audit".into(),
        p[0].display().to_string(),
        "--replay".into(),
        p[1].display().to_string(),
        "--verify".into(),
        p[2].display().to_string(),
    ]
}

#[test]
fn a_a_on_identical_data_is_go_four_runs_in_a_row() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (a, b) = ("cutover_report_aa_a", "cutover_report_aa_b");
    sbtest(a);
    sbtest(b);
    let dir = tempfile::tempdir().unwrap();
    let mut verdicts = Vec::new();
    for run in 0..4 {
        let p = run_stages(dir.path(), a, b);
        let args = files_args(&p);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (j, code, err) = report(&args);
        let blocking: Vec<String> = j["criteria"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| ["fail", "vacuous", "not-run"].contains(&c["status"].as_str().unwrap()))
            .map(|c| format!("{} {}: {}", c["id"], c["status"], c["summary"]))
            .collect();
        assert_eq!(j["verdict"], "go", "run {run}: {blocking:#?} {err}");
        assert_eq!(code, 0, "run {run}");
        assert_eq!(j["schema"], "cutover.report/1");
        assert_eq!(
            criterion(&j, "replay.latency")["status"],
            "pass",
            "run {run}: {:#}",
            criterion(&j, "replay.latency")
        );
        assert!(criterion(&j, "replay.mismatches")["value"] == 0.0);
        assert_eq!(
            criterion(&j, "evidence.consistency")["status"],
            "pass",
            "{:#}",
            criterion(&j, "evidence.consistency")
        );
        // Reads mode leaves the writes out: not exercised on the target, a warning.
        assert_eq!(criterion(&j, "replay.coverage")["status"], "warn");
        verdicts.push(j["verdict"].clone());
        if run == 3 {
            // The HTML of a full run in a real browser: criteria, ratio bars, percentile curves,
            // the timeline, verify per table; a screenshot under target/ for a person to look at.
            let keep = root().join("target/report-live");
            std::fs::create_dir_all(&keep).unwrap();
            for f in &p {
                std::fs::copy(f, keep.join(f.file_name().unwrap())).unwrap();
            }
            let html = keep.join("report.html");
            let mut with_html = args.clone();
            with_html.extend(["--html", html.to_str().unwrap()]);
            let (_, code, err) = report(&with_html);
            assert_eq!(code, 0, "{err}");
            let dom = common::html_in_chromium(
                &html,
                Some((&root().join("target/report-screenshot.png"), 5)),
            );
            assert!(dom.contains("Percentiles (ms)"), "percentile curves");
            // Drawn from the replay's histograms: p1 … p99.99 and the maximum.
            assert!(
                dom.contains("percentile (log scale of the tail)"),
                "percentile curves from the histograms"
            );
            let top = &j["charts"]["latency_classes"][0];
            assert_eq!(
                top["source_curve"].as_array().map(Vec::len),
                Some(14),
                "{top:#}"
            );
            assert_eq!(top["target_curve"].as_array().map(Vec::len), Some(14));
            assert!(dom.contains("Throughput (statements/s)"), "the timeline");
            assert!(dom.contains("Verify: rows differing per table"));
        }
    }
    assert!(verdicts.iter().all(|v| v == "go"), "{verdicts:?}");
    mysql(None, &format!("DROP DATABASE {a}; DROP DATABASE {b}"));
}

#[test]
fn five_changed_rows_are_no_go_until_waived_and_again_when_the_waiver_expires() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (a, b) = ("cutover_report_five_a", "cutover_report_five_b");
    sbtest(a);
    sbtest(b);
    mysql(
        Some(b),
        "UPDATE sbtest1 SET c = 'changed on the target' WHERE id IN (4990, 5003, 5017, 5050, 5100)",
    );
    let dir = tempfile::tempdir().unwrap();
    let p = run_stages(dir.path(), a, b);
    let base = files_args(&p);
    let args: Vec<&str> = base.iter().map(String::as_str).collect();
    let (j, code, _) = report(&args);
    assert_eq!(j["verdict"], "no-go");
    assert_eq!(code, 1);
    let m = criterion(&j, "replay.mismatches");
    assert_eq!(m["status"], "fail", "{m:#}");
    let fps: Vec<&str> = m["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "fingerprint")
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert!(
        !fps.is_empty() && fps.iter().all(|id| id.len() == 16),
        "{fps:?}"
    );
    let d = criterion(&j, "verify.differences");
    assert_eq!(d["status"], "fail");
    assert_eq!(d["value"], 5.0);
    assert_eq!(d["evidence"][0]["id"], "sbtest1");
    assert!(
        j["reason"].as_str().unwrap().contains("replay.mismatches")
            && j["reason"].as_str().unwrap().contains("verify.differences")
    );

    // Waived: both criteria, the differences by table.
    let waivers = |expires: &str| {
        format!(
            "[[waiver]]\ncriterion = \"replay.mismatches\"\nreason = \"rows edited by hand on the target, known\"\nowner = \"dba@example.com\"\nexpires = {expires}\n\n[[waiver]]\ncriterion = \"verify.differences\"\nmatch = \"sbtest1\"\nreason = \"same five rows\"\nowner = \"dba@example.com\"\nexpires = {expires}\n"
        )
    };
    let wfile = dir.path().join("waivers.toml");
    std::fs::write(&wfile, waivers("2099-12-31")).unwrap();
    let mut w = args.clone();
    w.extend(["--waivers", wfile.to_str().unwrap()]);
    let (j, code, _) = report(&w);
    assert_eq!(j["verdict"], "go-with-waivers", "{}", j["reason"]);
    assert_eq!(code, 0);
    assert_eq!(criterion(&j, "verify.differences")["status"], "waived");
    assert_eq!(
        criterion(&j, "verify.differences")["status_before_waivers"],
        "fail"
    );
    // Expired: no-go, and the report says it expired.
    std::fs::write(&wfile, waivers("2020-01-31")).unwrap();
    let (j, code, _) = report(&w);
    assert_eq!(j["verdict"], "no-go");
    assert_eq!(code, 1);
    assert!(
        j["waivers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["expired"] == true && w["note"].as_str().unwrap().contains("expired")),
        "{:#}",
        j["waivers"]
    );
    // The text says it too.
    let out = cutover(&[
        "report",
        "--audit",
        &base[1],
        "--replay",
        &base[3],
        "--verify",
        &base[5],
        "--waivers",
        wfile.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("NO-GO") && text.contains("expired on 2020-01-31"),
        "{text}"
    );
    mysql(None, &format!("DROP DATABASE {a}; DROP DATABASE {b}"));
}

#[test]
fn a_duplicate_key_on_the_target_fails_target_errors_with_the_error_text() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (a, b) = ("cutover_report_dup_a", "cutover_report_dup_b");
    sbtest(a);
    sbtest(b);
    // A row only the target has: the captured INSERT of the same id fails there (1062).
    mysql(
        Some(b),
        "INSERT INTO sbtest1 VALUES (20001, 1, 'only on the target', 'x')",
    );
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("dup.log");
    std::fs::write(
        &log,
        "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n\
261204 10:00:00\t    40 Connect\troot@127.0.0.1 on cutover_sbtest using TCP/IP\n\
\t\t    40 Query\tINSERT INTO sbtest1 (id, k, c, pad) VALUES (20001, 7, 'from the application', 'y')\n\
\t\t    40 Query\tSELECT c FROM sbtest1 WHERE id = 20001\n\
261204 10:00:01\t    40 Quit\t\n",
    )
    .unwrap();
    let (src, tgt) = (with_db(&mysql_url(), a), with_db(&mysql_url(), b));
    let r = dir.path().join("replay.json");
    stage(
        &[
            "replay",
            log.to_str().unwrap(),
            "--source",
            &src,
            "--target",
            &tgt,
            "--mode",
            "all",
            "--allow-writes",
            "--max-speed",
        ],
        &r,
    );
    let (j, code, err) = report(&["--replay", r.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    let t = criterion(&j, "replay.target_errors");
    assert_eq!(t["status"], "fail", "{t:#}");
    let detail = t["evidence"][0]["detail"].as_str().unwrap();
    assert!(
        detail.contains("Duplicate entry") || detail.contains("1062"),
        "{detail}"
    );
    assert!(
        t["summary"].as_str().unwrap().contains("Duplicate"),
        "{t:#}"
    );
    mysql(None, &format!("DROP DATABASE {a}; DROP DATABASE {b}"));
}

/// Writes the JSON report of `args` to `path` (and returns it).
fn report_to(args: &[&str], path: &Path) -> Value {
    let (j, _, err) = report(args);
    assert!(j["schema"] == "cutover.report/1", "{err}");
    std::fs::write(path, serde_json::to_vec_pretty(&j).unwrap()).unwrap();
    j
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_baseline_names_what_got_worse_and_what_was_fixed() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (a, b) = ("cutover_rep_base_a", "cutover_rep_base_b");
    sbtest(a);
    sbtest(b);
    let dir = tempfile::tempdir().unwrap();
    // An A/A run: go.
    let aa = dir.path().join("aa");
    std::fs::create_dir_all(&aa).unwrap();
    let p = run_stages(&aa, a, b);
    let args = files_args(&p);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let first = dir.path().join("first.json");
    let j = report_to(&args, &first);
    assert_eq!(j["verdict"], "go", "{}", j["reason"]);
    // Five rows changed on the target, then a report against the first one.
    mysql(
        Some(b),
        "UPDATE sbtest1 SET c = 'changed on the target' WHERE id IN (4990, 5003, 5017, 5050, 5100)",
    );
    let five = dir.path().join("five");
    std::fs::create_dir_all(&five).unwrap();
    let p5 = run_stages(&five, a, b);
    let args5 = files_args(&p5);
    let mut with_base: Vec<&str> = args5.iter().map(String::as_str).collect();
    with_base.extend(["--baseline", first.to_str().unwrap()]);
    let second = dir.path().join("second.json");
    let j = report_to(&with_base, &second);
    assert_eq!(j["verdict"], "no-go");
    let base = &j["baseline"];
    assert_eq!(base["verdict_before"], "go", "{base:#}");
    let worse = strings(&base["worse"]);
    let new = strings(&base["new"]);
    let has = |v: &[String], s: &str| v.iter().any(|x| x.contains(s));
    assert!(
        has(
            &worse,
            "verify.differences: pass → fail (0 → 5): table sbtest1"
        ),
        "{worse:#?}"
    );
    assert!(
        has(&worse, "replay.mismatches: pass → fail") && has(&worse, "fingerprint "),
        "{worse:#?}"
    );
    assert!(
        new.contains(&"verify.differences table sbtest1".to_string()),
        "{new:#?}"
    );
    assert!(has(&new, "replay.mismatches fingerprint "), "{new:#?}");
    assert!(
        strings(&base["fixed"])
            .iter()
            .all(|f| !f.starts_with("verify.")),
        "{base:#}"
    );
    // The reverse: the A/A run against the five-row report: better and fixed.
    let mut back: Vec<&str> = args.clone();
    back.extend(["--baseline", second.to_str().unwrap()]);
    let (j, code, _) = report(&back);
    assert_eq!(code, 0);
    let base = &j["baseline"];
    assert_eq!(base["verdict_before"], "no-go");
    let better = strings(&base["better"]);
    let fixed = strings(&base["fixed"]);
    assert!(
        has(
            &better,
            "verify.differences: fail → pass (5 → 0): table sbtest1"
        ),
        "{better:#?}"
    );
    assert!(
        has(&better, "replay.mismatches: fail → pass"),
        "{better:#?}"
    );
    assert!(
        fixed.contains(&"verify.differences table sbtest1".to_string())
            && has(&fixed, "replay.mismatches fingerprint "),
        "{fixed:#?}"
    );
    // Text, Markdown and HTML show the baseline section.
    let mut out_args = vec!["report"];
    out_args.extend(with_base.iter().copied());
    let md = dir.path().join("r.md");
    let html = dir.path().join("r.html");
    out_args.extend([
        "--markdown",
        md.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    let o = cutover(&out_args);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("since the baseline")
            && text.contains("(was go)")
            && text.contains("worse  verify.differences: pass → fail (0 → 5): table sbtest1")
            && text.contains("new    verify.differences table sbtest1"),
        "{text}"
    );
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains("## Since the baseline")
            && md.contains("was **go**, now **no-go**")
            && md.contains("| worse | verify.differences: pass → fail (0 → 5): table sbtest1 |"),
        "{md}"
    );
    let dom = common::html_in_chromium(&html, None);
    assert!(
        dom.contains("id=\"baseline\"")
            && dom.contains("Since the baseline")
            && dom.contains("verify.differences table sbtest1"),
        "the HTML's baseline section"
    );
    mysql(None, &format!("DROP DATABASE {a}; DROP DATABASE {b}"));
}

#[test]
fn several_verifies_keep_their_history_and_the_newest_decides() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (a, b) = ("cutover_rep_hist_a", "cutover_rep_hist_b");
    sbtest(a);
    sbtest(b);
    mysql(
        Some(b),
        "UPDATE sbtest1 SET c = 'changed on the target' WHERE id IN (4990, 5003, 5017, 5050, 5100)",
    );
    let dir = tempfile::tempdir().unwrap();
    let p = run_stages(dir.path(), a, b);
    // Repaired from the source, then verified again.
    mysql(
        Some(b),
        &format!(
            "UPDATE {b}.sbtest1 t JOIN {a}.sbtest1 s ON s.id = t.id SET t.c = s.c WHERE t.id IN (4990, 5003, 5017, 5050, 5100)"
        ),
    );
    let (src, tgt) = (with_db(&mysql_url(), a), with_db(&mysql_url(), b));
    let repaired = dir.path().join("verify-repaired.json");
    stage(&["verify", "--source", &src, "--target", &tgt], &repaired);
    // Given newest first: the report orders them by when they finished.
    let html = dir.path().join("r.html");
    let md = dir.path().join("r.md");
    let args = [
        "--audit",
        p[0].to_str().unwrap(),
        "--replay",
        p[1].to_str().unwrap(),
        "--verify",
        repaired.to_str().unwrap(),
        "--verify",
        p[2].to_str().unwrap(),
    ];
    let (j, _, err) = report(&args);
    let d = criterion(&j, "verify.differences");
    assert_eq!(d["status"], "pass", "the newest decides: {d:#} {err}");
    assert_eq!(d["value"], 0.0);
    assert!(
        d["measured"]
            .as_str()
            .unwrap()
            .contains("history 5 → 0 (converging)"),
        "{d:#}"
    );
    let h = j["verify_history"].as_array().unwrap();
    assert_eq!(h.len(), 2, "{h:#?}");
    assert_eq!(h[0]["total_differences"], 5);
    assert_eq!(h[1]["total_differences"], 0);
    assert!(
        h[1]["path"]
            .as_str()
            .unwrap()
            .ends_with("verify-repaired.json")
    );
    assert_eq!(j["verify_converging"], true);
    // The replay saw the five rows: that stays a failure (it is the replay's evidence).
    assert_eq!(criterion(&j, "replay.mismatches")["status"], "fail");
    let mut all = vec!["report"];
    all.extend(args);
    all.extend([
        "--html",
        html.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
    ]);
    let o = cutover(&all);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("verify history: 5 → 0 (converging)"),
        "{text}"
    );
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.contains("## Verify history: converging"), "{md}");
    let dom = common::html_in_chromium(&html, Some((&root().join("target/report-history.png"), 5)));
    assert!(
        dom.contains("Verify trend: differences per run / round (converging)"),
        "the trend chart"
    );
    assert!(
        dom.contains("Verify history: converging"),
        "the history table"
    );
    // The rows changed again and a third verify: 5 → 0 → 2, not converging, and the newest fails.
    mysql(
        Some(b),
        "UPDATE sbtest1 SET c = 'changed again' WHERE id IN (4990, 5003)",
    );
    let again = dir.path().join("verify-again.json");
    stage(&["verify", "--source", &src, "--target", &tgt], &again);
    let (j, code, _) = report(&[
        "--replay",
        p[1].to_str().unwrap(),
        "--verify",
        p[2].to_str().unwrap(),
        "--verify",
        repaired.to_str().unwrap(),
        "--verify",
        again.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert_eq!(j["verify_converging"], false, "{:#}", j["verify_history"]);
    let d = criterion(&j, "verify.differences");
    assert_eq!(d["status"], "fail", "{d:#}");
    assert!(
        d["measured"]
            .as_str()
            .unwrap()
            .contains("history 5 → 0 → 2 (not converging)"),
        "{d:#}"
    );
    mysql(None, &format!("DROP DATABASE {a}; DROP DATABASE {b}"));
}

#[test]
fn an_empty_capture_is_no_evidence_and_says_why() {
    // A capture with no statement (the log was off) replays to nothing: every replay criterion is
    // vacuous, the verdict is no-go, and no summary describes a run that did not happen.
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("empty.log");
    std::fs::write(&log, b"").unwrap();
    let out = dir.path().join("replay.json");
    let code = stage(
        &[
            "replay",
            log.to_str().unwrap(),
            "--source",
            &mysql_url(),
            "--target",
            &common::pg_url(),
        ],
        &out,
    );
    assert_eq!(code, 0);
    let (j, code, err) = report(&["--replay", out.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(j["verdict"], "no-go", "{j:#}");
    for (id, summary) in [
        (
            "replay.pace",
            "no statement was replayed: there is no pace to judge",
        ),
        (
            "replay.throughput",
            "no statement was replayed on the source: there is no rate to compare",
        ),
    ] {
        let c = criterion(&j, id);
        assert_eq!(c["status"], "vacuous", "{c:#}");
        assert_eq!(c["summary"], summary, "{c:#}");
    }
}
