//! `cutover report` as a command: an audit alone is never `go`; files that are no stage result exit
//! 2; the JUnit file reads in a JUnit parser (python3's xml.etree with the JUnit structure checked);
//! the HTML renders in headless Chromium with its charts and no script error (a screenshot is kept
//! under target/ for a person to look at). The replay and verify results come from the real
//! stages in tests/report_live.rs; here an audit of the shipped capture needs no server, and the
//! HTML is made from the stage results that test leaves in target/report-live/.

use serde_json::Value;
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cutover(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(args)
        .output()
        .expect("run cutover")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn audit(dir: &Path) -> PathBuf {
    let p = dir.join("audit.json");
    let log = root().join("corpora/sysbench/general-text.log.gz");
    let o = cutover(&[
        "audit",
        "--target",
        "postgres",
        log.to_str().unwrap(),
        "--format",
        "json",
        "-q",
        "-o",
        p.to_str().unwrap(),
    ]);
    assert!(p.exists(), "{}", String::from_utf8_lossy(&o.stderr));
    p
}

#[test]
fn an_audit_alone_is_never_go() {
    let dir = tempfile::tempdir().unwrap();
    let a = audit(dir.path());
    let o = cutover(&["report", "--audit", a.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["verdict"], "no-go");
    for c in j["criteria"].as_array().unwrap() {
        let id = c["id"].as_str().unwrap();
        if id.starts_with("replay.") || id.starts_with("verify.") {
            assert_eq!(c["status"], "not-run", "{id}");
        }
        assert!(
            c.get("threshold").is_some() && c.get("value").is_some() && c.get("evidence").is_some(),
            "{c:#}"
        );
    }
    assert_eq!(j["criteria"][0]["id"], "audit.fail");
    assert_eq!(j["criteria"][0]["status"], "pass");
    // The JSON reads back into its type.
    let back: cutover::report::GoNoGoReport = serde_json::from_value(j).unwrap();
    assert!(back.failed());
}

#[test]
fn files_that_are_no_stage_result_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let a = audit(dir.path());
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "{\"hello\": 1}").unwrap();
    let o = cutover(&["report", "--audit", junk.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no \"schema\" field"));
    let o = cutover(&["report", "--replay", a.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("is a cutover.audit/1 result; --replay takes cutover.replay/1"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = cutover(&["report", "--audit", "/nonexistent/audit.json"]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::write(&junk, "not json").unwrap();
    let o = cutover(&["report", "--verify", junk.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let gate = dir.path().join("gate.toml");
    std::fs::write(&gate, "[replay.latncy]\nfail = 2\n").unwrap();
    let o = cutover(&[
        "report",
        "--audit",
        a.to_str().unwrap(),
        "--gate",
        gate.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown criterion"));
}

/// Parses a JUnit file with python3's xml.etree and checks the JUnit structure (testsuites >
/// testsuite > testcase with name and classname; failure with message; counts agree); prints
/// `tests failures` on success.
fn junit_check(path: &Path) -> Result<String, String> {
    let script = r#"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == 'testsuites', root.tag
n = f = 0
for s in root.findall('testsuite'):
    cases = s.findall('testcase')
    fails = [c for c in cases if c.find('failure') is not None]
    assert int(s.get('tests')) == len(cases), 'tests count'
    assert int(s.get('failures')) == len(fails), 'failures count'
    for c in cases:
        assert c.get('name') and c.get('classname'), 'testcase without name/classname'
        for x in c:
            assert x.tag in ('failure', 'error', 'skipped', 'system-out', 'system-err'), x.tag
            if x.tag == 'failure': assert x.get('message') is not None, 'failure without message'
    n += len(cases); f += len(fails)
print(n, f)
"#;
    let o = Command::new("python3")
        .args(["-c", script, path.to_str().unwrap()])
        .output()
        .map_err(|e| format!("python3: {e}"))?;
    if o.status.success() {
        Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

#[test]
fn junit_reads_in_a_junit_parser_and_a_malformed_file_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let a = audit(dir.path());
    let x = dir.path().join("r.xml");
    let o = cutover(&[
        "report",
        "--audit",
        a.to_str().unwrap(),
        "--junit",
        x.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1));
    // 13 criteria; the 10 replay and verify ones not run fail.
    assert_eq!(junit_check(&x).unwrap(), "13 10");
    let bad = dir.path().join("bad.xml");
    std::fs::write(
        &bad,
        std::fs::read_to_string(&x)
            .unwrap()
            .replace("</testsuites>", ""),
    )
    .unwrap();
    assert!(
        junit_check(&bad).is_err(),
        "the check catches a truncated file"
    );
}

#[test]
fn html_of_an_audit_alone_renders_offline_in_chromium() {
    // The charts of a full run are checked on live stage results in tests/report_live.rs.
    let dir = tempfile::tempdir().unwrap();
    let a = audit(dir.path());
    let html = dir.path().join("report.html");
    let o = cutover(&[
        "report",
        "--audit",
        a.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let dom = common::html_in_chromium(&html, None);
    assert!(
        dom.contains("not-run"),
        "the missing stages are shown as not run"
    );
}

/// `cutover digest --format json` of a capture, written to `dir/name`.
fn digest(dir: &Path, capture: &str, name: &str) -> PathBuf {
    let p = dir.join(name);
    let log = root().join(capture);
    let o = cutover(&[
        "digest",
        log.to_str().unwrap(),
        "--format",
        "json",
        "-q",
        "-o",
        p.to_str().unwrap(),
    ]);
    assert!(p.exists(), "{}", String::from_utf8_lossy(&o.stderr));
    p
}

fn consistency(j: &Value) -> &Value {
    common::criterion(j, "evidence.consistency")
}

#[test]
fn the_digest_is_cross_checked_with_the_audit_by_capture_digest() {
    let dir = tempfile::tempdir().unwrap();
    let a = audit(dir.path());
    // The same capture: the digest and the audit read the same bytes (xxh3 of the file).
    let same = digest(dir.path(), "corpora/sysbench/general-text.log.gz", "d.json");
    let o = cutover(&[
        "report",
        "--audit",
        a.to_str().unwrap(),
        "--digest",
        same.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    let c = consistency(&j);
    assert_eq!(c["status"], "pass", "{c:#}");
    let e = &c["evidence"][0];
    assert_eq!(e["id"], "audit/digest", "{c:#}");
    assert_eq!(e["status"], "pass");
    assert!(
        e["detail"].as_str().unwrap().contains("same capture: ")
            && e["detail"]
                .as_str()
                .unwrap()
                .contains("general-text.log.gz"),
        "{e:#}"
    );
    // The digest file is one of the report's inputs.
    assert!(
        j["stage_inputs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["schema"] == "cutover.digest/1"),
        "{:#}",
        j["stage_inputs"]
    );
    // Another capture (the slow log of the same workload): not the same capture, a failure that
    // names both files.
    let other = digest(
        dir.path(),
        "corpora/sysbench/slow-text.log.gz",
        "other.json",
    );
    let o = cutover(&[
        "report",
        "--audit",
        a.to_str().unwrap(),
        "--digest",
        other.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    let c = consistency(&j);
    assert_eq!(c["status"], "fail", "{c:#}");
    let detail = c["summary"].as_str().unwrap();
    assert!(
        detail.contains("not the same capture")
            && detail.contains("general-text.log.gz")
            && detail.contains("slow-text.log.gz"),
        "{detail}"
    );
    assert!(
        j["reason"]
            .as_str()
            .unwrap()
            .contains("evidence.consistency")
    );
    // The text report says it.
    let o = cutover(&[
        "report",
        "--audit",
        a.to_str().unwrap(),
        "--digest",
        other.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("evidence.consistency") && text.contains("not the same capture"),
        "{text}"
    );
    // A digest given to --audit, or an audit to --digest, is refused (exit 2).
    let o = cutover(&[
        "report",
        "--audit",
        a.to_str().unwrap(),
        "--digest",
        a.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--digest takes cutover.digest/1"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
