//! `cutover audit --live` against the real PostgreSQL and MariaDB: the target's own answers are folded
//! into the verdicts, the rewrites are tried, and nothing is left behind on the target.

mod common;

use serde_json::Value;
use std::process::Command;

fn pg_url() -> String {
    std::env::var("CUTOVER_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

fn mysql_url() -> String {
    std::env::var("CUTOVER_TEST_MYSQL_URL")
        .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306/test".into())
}

fn audit(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(args)
        .output()
        .expect("run cutover");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("cannot connect"),
        "{err}\n(start the servers with scripts/setup-servers.sh, or set CUTOVER_TEST_PG_URL / CUTOVER_TEST_MYSQL_URL)"
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}); stderr: {err}"))
}

fn rules(j: &Value, i: usize) -> Vec<String> {
    j["statements"][i]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

const SCHEMA: &str = "CREATE TABLE `cutover_live_orders` (\n  `id` int unsigned NOT NULL AUTO_INCREMENT,\n  `customer` varchar(40) NOT NULL,\n  `total` decimal(10,2) NOT NULL,\n  `placed_at` datetime NOT NULL,\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB;\n";

#[test]
fn postgres_answers_each_statement_and_keeps_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("schema.sql");
    std::fs::write(&schema, SCHEMA).unwrap();
    let sql = dir.path().join("app.sql");
    std::fs::write(
        &sql,
        "SELECT id, total FROM cutover_live_orders WHERE customer = 'x' ORDER BY id LIMIT 10, 5;\n\
         SELECT id FROM cutover_live_orders WHERE id = 1;\n\
         SELECT id FROM cutover_live_orders WHERE nosuchcolumn = 1;\n\
         INSERT INTO cutover_live_orders (customer, total, placed_at) VALUES ('a', 1.5, '2026-01-01 10:00:00');\n\
         UPDATE cutover_live_orders SET total = total + 1 WHERE id = 1;\n\
         COMMIT;\n",
    )
    .unwrap();
    let url = pg_url();
    let j = audit(&[
        "audit",
        "--target",
        "postgres",
        "--schema",
        schema.to_str().unwrap(),
        "--live",
        &url,
        "--live-setup",
        "--format",
        "json",
        "-q",
        sql.to_str().unwrap(),
    ]);
    let live = &j["live"];
    assert_eq!(live["setup_tables"], 1, "{live}");
    assert!(
        live["server_version"]
            .as_str()
            .unwrap_or("")
            .contains("PostgreSQL")
    );
    // LIMIT a, b: refused by the target, and cutover's rewrite accepted.
    let f0 = &j["statements"][0]["findings"][0];
    assert!(
        f0["live"].as_str().unwrap_or("").contains("refused"),
        "{f0}"
    );
    assert_eq!(j["statements"][0]["verdict"], "fail");
    assert!(live["rewrites_accepted"].as_u64().unwrap() >= 1, "{live}");
    // A statement cutover had no objection to, but the target rejects: the target wins.
    assert_eq!(j["statements"][1]["verdict"], "ok");
    assert_eq!(j["statements"][2]["verdict"], "fail");
    assert!(
        rules(&j, 2).contains(&"LIVE-REJECTED".to_string()),
        "{:?}",
        rules(&j, 2)
    );
    // Writes are planned, not run; COMMIT is never sent.
    assert_eq!(
        j["statements"][3]["verdict"], "ok",
        "{}",
        j["statements"][3]
    );
    assert_eq!(live["not_sent"], 1);
    assert_eq!(j["summary"]["fail"], 2);
    // Nothing was committed: the set-up table is gone.
    let check = audit(&[
        "audit",
        "--target",
        "postgres",
        "--live",
        &url,
        "--format",
        "json",
        "-q",
        sql.to_str().unwrap(),
    ]);
    assert!(
        rules(&check, 1).contains(&"LIVE-UNCONFIRMED".to_string()),
        "the table created by --live-setup must not survive the run: {:?}",
        rules(&check, 1)
    );
}

#[test]
fn mysql_targets_are_asked_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let sql = dir.path().join("app.sql");
    std::fs::write(
        &sql,
        "SELECT 1 + 1;\nSELECT nosuchfunction(1);\nCREATE TABLE cutover_never_created (a int);\n",
    )
    .unwrap();
    let j = audit(&[
        "audit",
        "--target",
        "postgres",
        "--live",
        &mysql_url(),
        "--format",
        "json",
        "-q",
        sql.to_str().unwrap(),
    ]);
    assert_eq!(j["live"]["accepted"], 1, "{}", j["live"]);
    assert_eq!(j["live"]["rejected"], 1);
    assert_eq!(j["live"]["not_sent"], 1, "DDL commits on MySQL: never sent");
}

#[test]
fn schema_from_the_source_server_drives_collation_checks() {
    // The test database on the MariaDB stands in for the application's source.
    let url = mysql_url();
    let run = |sql: &str| {
        let out = Command::new("mysql")
            .args(["-h127.0.0.1", "-uroot", "test", "-e", sql])
            .output();
        match out {
            Ok(o) if o.status.success() => {}
            Ok(o) => panic!("mysql client: {}", String::from_utf8_lossy(&o.stderr)),
            Err(e) => panic!(
                "cannot run the mysql client ({e}): install mariadb-client (scripts/setup-servers.sh does)"
            ),
        }
    };
    run(
        "DROP VIEW IF EXISTS cutover_src_people_v; DROP TABLE IF EXISTS cutover_src_people; CREATE TABLE cutover_src_people (id INT PRIMARY KEY, name VARCHAR(40) COLLATE utf8mb4_general_ci, code VARBINARY(10)); CREATE VIEW cutover_src_people_v AS SELECT id FROM cutover_src_people",
    );
    let dir = tempfile::tempdir().unwrap();
    let sql = dir.path().join("q.sql");
    std::fs::write(&sql, "SELECT id FROM cutover_src_people WHERE name = 'alice';\nSELECT id FROM cutover_src_people WHERE code = 'x';\nSELECT id FROM cutover_src_people_v;\nSELECT id FROM cutover_src_nowhere;\n").unwrap();
    let j = audit(&[
        "audit",
        "--target",
        "postgres",
        "--source",
        &url,
        "--format",
        "json",
        "-q",
        sql.to_str().unwrap(),
    ]);
    run("DROP VIEW cutover_src_people_v; DROP TABLE cutover_src_people");
    assert!(
        j["schema_source"]
            .as_str()
            .unwrap_or("")
            .starts_with("mysql://"),
        "{}",
        j["schema_source"]
    );
    assert!(
        rules(&j, 0).contains(&"CASE-002".to_string()),
        "case-insensitive column: {:?}",
        rules(&j, 0)
    );
    assert!(
        !rules(&j, 1).contains(&"CASE-002".to_string()),
        "binary column: {:?}",
        rules(&j, 1)
    );
    assert!(
        j["unchecked"]
            .as_array()
            .unwrap()
            .iter()
            .all(|u| !u.as_str().unwrap_or("").contains("no schema"))
    );
    // A view of the source is not a missing table; a table it lacks is (SCHEMA-001).
    assert_eq!(j["statements"][2]["verdict"], "ok", "{:?}", rules(&j, 2));
    assert!(
        rules(&j, 3).contains(&"SCHEMA-001".to_string()),
        "{:?}",
        rules(&j, 3)
    );
}

/// Issue 14, item 3: without --live-setup the target lacks the application's tables, so a refusal
/// for a missing table says nothing about the SQL: such statements are `unconfirmed`, not rejected,
/// and the printed summary says so instead of reporting rejections next to `ok` verdicts.
#[test]
fn missing_tables_without_live_setup_are_unconfirmed_not_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let sql = dir.path().join("app.sql");
    std::fs::write(
        &sql,
        "SELECT id, total FROM cutover_acc_absent WHERE customer = 'x' ORDER BY id LIMIT 10, 5;\n\
         SELECT id FROM cutover_acc_absent WHERE id = 1;\n\
         INSERT INTO cutover_acc_absent (customer, total) VALUES ('a', 1.5);\n\
         UPDATE cutover_acc_absent SET total = total + 1 WHERE id = 1;\n\
         SELECT IFNULL(1, 2);\n\
         COMMIT;\n",
    )
    .unwrap();
    let url = pg_url();
    let args = |format: &'static str| {
        vec![
            "audit".to_string(),
            "--target".into(),
            "postgres".into(),
            "--live".into(),
            url.clone(),
            "--format".into(),
            format.into(),
            "-q".into(),
            sql.display().to_string(),
        ]
    };
    let json_args = args("json");
    let j = audit(&json_args.iter().map(String::as_str).collect::<Vec<_>>());
    let live = &j["live"];
    // LIMIT a, b is a syntax error before any table is looked up; IFNULL does not exist.
    assert_eq!(live["rejected"], 2, "{live}");
    assert_eq!(live["unconfirmed"], 3, "{live}");
    assert_eq!(live["not_sent"], 1, "{live}");
    assert_eq!(
        live["rewrites_rejected"], 0,
        "a rewrite refused for its missing table is not a rejected rewrite: {live}"
    );
    for i in 1..4 {
        assert_eq!(j["statements"][i]["verdict"], "ok", "#{i}");
        assert!(
            rules(&j, i).contains(&"LIVE-UNCONFIRMED".to_string()),
            "#{i}"
        );
    }
    for format in ["text", "markdown"] {
        let a = args(format);
        let out = Command::new(env!("CARGO_BIN_EXE_cutover"))
            .args(&a)
            .output()
            .expect("run cutover");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("rejected 2, unconfirmed 3"),
            "{format}: {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.contains("3 statements unconfirmed: the tables they name do not exist on the target; --live-setup would create them from the schema"),
            "{format}: {text}"
        );
    }
}
