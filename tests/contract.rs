//! The output contract: every stage's JSON carries the same header (a versioned `schema` id, the tool,
//! start and end times, inputs with their content hashes, endpoints with passwords masked) and reads
//! back into its type unchanged, so `cutover report` can combine them. Run on real stage output
//! against the real MariaDB and PostgreSQL.

mod common;

use common::{HOW_TO_START, mysql, mysql_url, pg_url, psql, with_db};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::process::Command;

fn cutover_json(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(args)
        .output()
        .expect("run cutover");
    let err = String::from_utf8_lossy(&out.stderr);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {err}\n({HOW_TO_START})"))
}

/// Reads `json` into `T`, writes it again and checks nothing was lost or changed.
fn round_trips<T: DeserializeOwned + Serialize>(json: &Value, what: &str) -> T {
    let typed: T = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("{what}: does not read back into its type: {e}"));
    let again = serde_json::to_value(&typed).expect("serialize");
    assert_eq!(&again, json, "{what}: changed on the way through its type");
    typed
}

fn check_header(j: &Value, schema: &str) {
    assert_eq!(j["schema"], schema, "{j:#}");
    assert_eq!(j["tool"]["name"], "cutover");
    assert_eq!(j["tool"]["version"], env!("CARGO_PKG_VERSION"));
    let (a, b) = (
        j["started"].as_str().unwrap(),
        j["finished"].as_str().unwrap(),
    );
    assert!(a.ends_with('Z') && a <= b, "{a} .. {b}");
}

#[test]
fn digest_and_audit_read_back_with_content_hashes() {
    let log = common::corpus("sysbench/slow-text.log.gz");
    let log = log.to_str().unwrap();
    let d = cutover_json(&["digest", "--format", "json", "-q", log]);
    check_header(&d, "cutover.digest/1");
    let hash = d["inputs"][0]["xxh3"]
        .as_str()
        .expect("a content hash")
        .to_string();
    assert_eq!(hash.len(), 16);
    round_trips::<cutover::digest::Digest>(&d, "digest");

    let sql = common::corpus("compat/statements/dml.sql");
    let a = cutover_json(&[
        "audit",
        "--target",
        "postgres",
        "--format",
        "json",
        "-q",
        sql.to_str().unwrap(),
        log,
    ]);
    check_header(&a, "cutover.audit/1");
    let inputs = a["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 2, "{inputs:?}");
    // The same capture gives the same hash in every stage.
    assert!(
        inputs.iter().any(|i| i["xxh3"] == hash.as_str()),
        "{inputs:?}"
    );
    round_trips::<cutover::audit::AuditReport>(&a, "audit");
}

#[test]
fn replay_merge_and_verify_read_back() {
    let db = "cutover_contract";
    mysql(
        None,
        &format!(
            "DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}; CREATE TABLE {db}.t (id INT PRIMARY KEY, v VARCHAR(20)); INSERT INTO {db}.t VALUES (1, 'a'), (2, 'b')"
        ),
    );
    common::fresh_pg_database(db);
    psql(
        db,
        "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20)); INSERT INTO t VALUES (1, 'a'), (2, 'b')",
    );
    let src = with_db(&mysql_url(), db);
    let tgt = with_db(&pg_url(), db);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("general.log");
    std::fs::write(
        &log,
        "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:\n\
         Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n\
         261202 21:16:40\t    30 Query\tSELECT v FROM t WHERE id = 1\n\
         \t\t    31 Query\tSELECT v FROM t WHERE id = 2\n",
    )
    .unwrap();
    let log = log.to_str().unwrap();
    let mut shards = Vec::new();
    for k in 0..2 {
        let r = cutover_json(&[
            "replay",
            log,
            "--source",
            &src,
            "--target",
            &tgt,
            "--max-speed",
            "--shard",
            &format!("{k}/2"),
            "--format",
            "json",
            "-q",
        ]);
        check_header(&r, "cutover.replay/1");
        assert_eq!(r["endpoints"]["target"], tgt.as_str());
        round_trips::<cutover::replay::ReplayReport>(&r, "replay");
        let p = dir.path().join(format!("shard{k}.json"));
        std::fs::write(&p, r.to_string()).unwrap();
        shards.push(p.display().to_string());
    }
    let mut args = vec!["merge", "--format", "json"];
    args.extend(shards.iter().map(String::as_str));
    let m = cutover_json(&args);
    check_header(&m, "cutover.replay/1");
    assert_eq!(
        m["inputs"].as_array().unwrap().len(),
        1,
        "each input once: {}",
        m["inputs"]
    );
    assert_eq!(m["compared"], 2);
    round_trips::<cutover::replay::ReplayReport>(&m, "merged replay");

    let v = cutover_json(&[
        "verify", "--source", &src, "--target", &tgt, "--format", "json", "-q",
    ]);
    check_header(&v, "cutover.verify/1");
    assert_eq!(v["tables"][0]["status"], "match", "{v:#}");
    round_trips::<cutover::verify::VerifyReport>(&v, "verify");
    let w = cutover_json(&[
        "verify", "--source", &src, "--target", &tgt, "--watch", "1s", "--format", "json", "-q",
    ]);
    check_header(&w, "cutover.verify-watch/1");
    assert_eq!(w["converged"], true);
    round_trips::<cutover::verify::WatchReport>(&w, "verify --watch");

    mysql(None, &format!("DROP DATABASE {db}"));
    psql("postgres", &format!("DROP DATABASE {db} WITH (FORCE)"));
}
