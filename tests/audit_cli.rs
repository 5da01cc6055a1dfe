//! `cutover audit` end to end through the binary: inputs (scripts, dumps, logs), targets, formats,
//! exit codes, and bad input.

mod common;

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn cutover(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(args)
        .output()
        .expect("run cutover")
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

fn verdicts(j: &Value) -> Vec<String> {
    j["statements"]
        .as_array()
        .expect("statements")
        .iter()
        .map(|s| s["verdict"].as_str().unwrap_or("").to_string())
        .collect()
}

fn rules(j: &Value, i: usize) -> Vec<String> {
    j["statements"][i]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["rule"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn script_json_follows_the_documented_shape_and_exit_codes_gate_ci() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(
        dir.path(),
        "app.sql",
        "SELECT `id` FROM t LIMIT 5, 10;\nSELECT id FROM t WHERE id = 1;\n-- a comment; with a semicolon\nSELECT IFNULL(a, 0) FROM t;\n",
    );
    let out = cutover(&["audit", "--target", "postgres", "--format", "json", &bad]);
    assert_eq!(out.status.code(), Some(1), "a fail verdict exits 1");
    let j = json_of(&out);
    assert_eq!(j["target"], "postgres");
    assert_eq!(verdicts(&j), ["fail", "ok", "fail"]);
    let s0 = &j["statements"][0];
    assert_eq!(s0["ordinal"], 0);
    assert_eq!(s0["count"], 1);
    assert_eq!(s0["fingerprint"], "select `id` from t limit ?, ?");
    assert!(
        rules(&j, 0).contains(&"LEX-001".to_string())
            && rules(&j, 0).contains(&"DML-001".to_string()),
        "{:?}",
        rules(&j, 0)
    );
    let f = &s0["findings"][0];
    for key in [
        "rule", "category", "severity", "message", "rewrite", "line", "column",
    ] {
        assert!(f.get(key).is_some(), "finding without {key}: {f}");
    }
    assert_eq!(s0["rewrite"], "SELECT \"id\" FROM t LIMIT 10 OFFSET 5");
    assert_eq!(
        j["statements"][2]["rewrite"],
        "SELECT COALESCE(a, 0) FROM t"
    );
    assert_eq!(
        j["statements"][2]["origin"]["line"], 4,
        "the comment line is not a statement"
    );
    assert_eq!(j["summary"]["fail"], 2);
    assert!(
        j["unchecked"][0]
            .as_str()
            .unwrap_or("")
            .contains("no schema"),
        "says what could not be checked"
    );

    let good = write(dir.path(), "ok.sql", "SELECT id FROM t WHERE id = 1;\n");
    let out = cutover(&["audit", "--target", "postgres", &good]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("statements") && text.contains("ok"), "{text}");
    let out = cutover(&[
        "audit", "--target", "postgres", "--format", "markdown", &bad,
    ]);
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("| # | verdict | runs | statement | findings |")
    );
}

#[test]
fn mysqldump_output_with_delimiters_and_version_comments() {
    let dir = tempfile::tempdir().unwrap();
    let dump = write(
        dir.path(),
        "dump.sql",
        "/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n\
         CREATE TABLE `t` (\n  `id` int(11) NOT NULL AUTO_INCREMENT,\n  `note` varchar(20) DEFAULT 'a;b',\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n\
         INSERT INTO `t` VALUES (1,'x;y'),(2,'it\\'s');\n\
         DELIMITER ;;\nCREATE TRIGGER trg BEFORE INSERT ON t FOR EACH ROW BEGIN SET NEW.note = 'z'; END ;;\nDELIMITER ;\n",
    );
    let out = cutover(&[
        "audit", "--target", "postgres", "--schema", &dump, "--format", "json", &dump,
    ]);
    let j = json_of(&out);
    let st = j["statements"].as_array().unwrap();
    assert_eq!(st.len(), 4, "{st:#?}");
    assert!(
        rules(&j, 1).iter().any(|r| r == "DDL-001"),
        "AUTO_INCREMENT: {:?}",
        rules(&j, 1)
    );
    assert!(
        rules(&j, 1).iter().any(|r| r == "DDL-002"),
        "ENGINE/CHARSET: {:?}",
        rules(&j, 1)
    );
    assert!(
        rules(&j, 2).iter().any(|r| r == "LEX-003"),
        "backslash escape: {:?}",
        rules(&j, 2)
    );
    assert!(
        rules(&j, 3).iter().any(|r| r == "DDL-019"),
        "trigger in a DELIMITER block: {:?}",
        rules(&j, 3)
    );
}

#[test]
fn logs_audit_once_per_fingerprint_with_counts() {
    let logs: Vec<String> = ["general-ps", "slow-text"]
        .iter()
        .map(|n| {
            common::corpus(&format!("sysbench/{n}.log.gz"))
                .display()
                .to_string()
        })
        .collect();
    let mut args = vec!["audit", "--target", "postgres", "--format", "json", "-q"];
    args.extend(logs.iter().map(String::as_str));
    let out = cutover(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j = json_of(&out);
    let st = j["statements"].as_array().unwrap();
    let execs: u64 = st.iter().map(|s| s["count"].as_u64().unwrap()).sum();
    // The same logs as events: executions are the Query and Execute events, one statement per
    // fingerprint among them.
    let mut eargs = vec!["events", "-q"];
    eargs.extend(logs.iter().map(String::as_str));
    let ev = cutover(&eargs);
    let mut n = 0u64;
    let mut fps = std::collections::HashSet::new();
    for line in String::from_utf8_lossy(&ev.stdout).lines() {
        let e: Value = serde_json::from_str(line).unwrap();
        if matches!(e["command"].as_str(), Some("query" | "execute")) {
            n += 1;
            fps.insert(e["fingerprint_id"].as_str().unwrap_or("").to_string());
        }
    }
    assert!(n > 4000, "{n}");
    assert_eq!(execs, n);
    assert_eq!(st.len(), fps.len());
    for (i, s) in st.iter().enumerate() {
        assert_eq!(s["ordinal"], i);
    }
    assert!(
        j["summary"]["ready_by_time"].as_f64().is_some(),
        "the slow log timed the statements"
    );
}

#[test]
fn target_profiles_differ_where_the_targets_do() {
    let dir = tempfile::tempdir().unwrap();
    let sql = write(dir.path(), "q.sql", "SELECT `id` FROM t;\n");
    let pg = json_of(&cutover(&[
        "audit", "--target", "postgres", "--format", "json", &sql,
    ]));
    let kb = json_of(&cutover(&[
        "audit", "--target", "kingbase", "--format", "json", &sql,
    ]));
    let kb_pg = json_of(&cutover(&[
        "audit",
        "--target",
        "kingbase",
        "--kingbase-mode",
        "pg",
        "--format",
        "json",
        &sql,
    ]));
    let kw = json_of(&cutover(&[
        "audit", "--target", "kaiwudb", "--format", "json", &sql,
    ]));
    assert_eq!(verdicts(&pg), ["fail"]);
    assert_ne!(
        verdicts(&kb),
        ["fail"],
        "KingbaseES MySQL mode takes backticks (a vendor claim: not an error)"
    );
    assert_eq!(
        verdicts(&kb_pg),
        ["fail"],
        "not in MySQL mode, backticks fail again"
    );
    assert_eq!(verdicts(&kw), ["fail"]);
    assert_eq!(kb["profile_lineage"][0], "postgres-family");
}

#[test]
fn kaiwudb_time_series_tables_are_checked_and_proposed() {
    let dir = tempfile::tempdir().unwrap();
    let schema = write(
        dir.path(),
        "s.sql",
        "CREATE TABLE readings (id BIGINT AUTO_INCREMENT PRIMARY KEY, device_id INT NOT NULL, recorded_at DATETIME(3) NOT NULL, temp DECIMAL(5,2));\n",
    );
    let sql = write(
        dir.path(),
        "w.sql",
        "INSERT INTO readings (device_id, recorded_at, temp) VALUES (1, '2026-01-01 00:00:00', 20.5), (2, '0000-00-00 00:00:00', 1);\nUPDATE readings SET temp = 0 WHERE id = 5;\nDELETE FROM readings WHERE recorded_at < '2025-01-01';\nDELETE FROM readings WHERE temp < 0;\n",
    );
    let j = json_of(&cutover(&[
        "audit",
        "--target",
        "kaiwudb",
        "--schema",
        &schema,
        "--ts-table",
        "readings",
        "--format",
        "json",
        &sql,
    ]));
    assert!(
        rules(&j, 0).contains(&"TS-003".to_string())
            && rules(&j, 0).contains(&"TS-019".to_string()),
        "{:?}",
        rules(&j, 0)
    );
    assert!(rules(&j, 1).contains(&"TS-006".to_string()));
    assert!(
        !rules(&j, 2).contains(&"TS-007".to_string()),
        "a time-range DELETE is allowed"
    );
    assert!(rules(&j, 3).contains(&"TS-007".to_string()));
    let ddl = j["proposed_ddl"][0].as_str().unwrap();
    assert!(
        ddl.contains("recorded_at TIMESTAMPTZ NOT NULL")
            && ddl.contains("PRIMARY TAGS (device_id)"),
        "{ddl}"
    );
    // Not a TS table: none of it applies, and no DDL is proposed.
    let plain = json_of(&cutover(&[
        "audit", "--target", "kaiwudb", "--schema", &schema, "--format", "json", &sql,
    ]));
    assert!(!rules(&plain, 1).contains(&"TS-006".to_string()));
    assert!(plain["proposed_ddl"].as_array().unwrap().is_empty());
}

#[test]
fn bad_input_gets_a_clear_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let out = cutover(&["audit", "--target", "postgres", "/nonexistent/app.sql"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/app.sql"));
    let sql = write(dir.path(), "q.sql", "SELECT 1;\n");
    let out = cutover(&["audit", "--target", "oracle", &sql]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("postgres, kingbase or kaiwudb"));
    let bin = dir.path().join("blob.log");
    std::fs::write(
        &bin,
        (0..4096u32)
            .map(|i| (i * 7919 % 256) as u8)
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let out = cutover(&["audit", "--target", "postgres", bin.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot tell what kind of log"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let latin1 = dir.path().join("l.sql");
    std::fs::write(&latin1, b"SELECT 'caf\xe9';\n").unwrap();
    let out = cutover(&["audit", "--target", "postgres", latin1.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not UTF-8"));
    // Unparseable SQL is audited on tokens and says so.
    let junk = write(dir.path(), "junk.sql", "SELEC FROM WHERE `x` ((;\n");
    let j = json_of(&cutover(&[
        "audit", "--target", "postgres", "--format", "json", &junk,
    ]));
    assert_eq!(j["statements"][0]["parsed"], false);
    assert!(rules(&j, 0).contains(&"PARSE".to_string()));
    // A wrong password never shows in the error.
    let out = cutover(&[
        "audit",
        "--target",
        "postgres",
        "--live",
        "postgres://nobody:s3cret@127.0.0.1:1/x",
        &sql,
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("s3cret") && err.contains("cannot connect"),
        "{err}"
    );
}

/// An unterminated string, comment or backtick (hardening issue, item 6) is an error finding at its
/// line, the script is split again from the next line, and "ready" is not 100%; gzip scripts are read
/// the same way, as a stream.
#[test]
fn unterminated_quotes_are_findings_and_splitting_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let text = "SELECT 1;\nINSERT INTO t VALUES ('oops);\nSELECT 2;\nSELECT `x FROM t;\nSELECT 3;\n/* never closed\nSELECT 4;\n";
    let plain = write(dir.path(), "broken.sql", text);
    let gz = dir.path().join("broken.sql.gz");
    {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(
            std::fs::File::create(&gz).unwrap(),
            flate2::Compression::default(),
        );
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap();
    }
    for input in [plain, gz.display().to_string()] {
        let out = cutover(&["audit", "--target", "postgres", "--format", "json", &input]);
        assert_eq!(out.status.code(), Some(1), "{input}");
        let j = json_of(&out);
        let sqls: Vec<&str> = j["statements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["sql"].as_str().unwrap())
            .collect();
        assert_eq!(
            sqls,
            [
                "SELECT 1",
                "INSERT INTO t VALUES ('oops);",
                "SELECT 2",
                "SELECT `x FROM t;",
                "SELECT 3",
                "/* never closed",
                "SELECT 4"
            ],
            "{input}"
        );
        for (i, line) in [(1, 2), (3, 4), (5, 6)] {
            let st = &j["statements"][i];
            assert_eq!(st["verdict"], "fail", "{st:#}");
            let f = &st["findings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["rule"] == "INPUT-001")
                .cloned()
                .unwrap_or_default();
            assert_eq!(f["severity"], "error", "{st:#}");
            assert_eq!(f["line"], line, "{f:#}");
        }
        assert!(j["summary"]["ready_by_executions"].as_f64().unwrap() < 1.0);
        assert_eq!(j["inputs"][0]["xxh3"].as_str().map(str::len), Some(16));
    }
}

/// The sysbench tables as `mysqldump --no-data` writes them, `sbtest1` only.
const SBTEST1: &str = "CREATE TABLE `sbtest1` (\n  `id` int NOT NULL AUTO_INCREMENT,\n  `k` int NOT NULL DEFAULT '0',\n  `c` char(120) NOT NULL DEFAULT '',\n  `pad` char(60) NOT NULL DEFAULT '',\n  PRIMARY KEY (`id`),\n  KEY `k_1` (`k`)\n) ENGINE=InnoDB;\n";

fn unchecked(j: &Value) -> Vec<String> {
    j["unchecked"]
        .as_array()
        .expect("unchecked")
        .iter()
        .map(|u| u.as_str().unwrap_or("").to_string())
        .collect()
}

/// Issue 14, item 1: a statement naming a table the given schema lacks is not `ok` (SCHEMA-001).
#[test]
fn tables_missing_from_the_given_schema_warn() {
    let dir = tempfile::tempdir().unwrap();
    let schema = write(dir.path(), "schema.sql", SBTEST1);
    let sql = write(
        dir.path(),
        "app.sql",
        "SELECT c FROM sbtest3 WHERE id=1;\n\
         SELECT c FROM sbtest1 WHERE id=1;\n\
         WITH r AS (SELECT id FROM sbtest1) SELECT id FROM r;\n\
         SELECT table_name FROM information_schema.tables;\n\
         INSERT INTO sbtest9 (id, k) VALUES (1, 2);\n\
         UPDATE sbtest3 SET k = k + 1 WHERE id = 2;\n",
    );
    let j = json_of(&cutover(&[
        "audit", "--target", "postgres", "--schema", &schema, "--format", "json", &sql,
    ]));
    assert_eq!(verdicts(&j), ["warn", "ok", "ok", "ok", "warn", "warn"]);
    for i in [0, 4, 5] {
        assert!(rules(&j, i).contains(&"SCHEMA-001".to_string()), "#{i}");
    }
    let f = &j["statements"][0]["findings"][0];
    assert_eq!(f["rule"], "SCHEMA-001");
    assert_eq!(f["category"], "schema");
    assert_eq!(f["severity"], "notice");
    assert_eq!(f["detail"], "sbtest3");
    assert_eq!(
        (f["line"].as_u64(), f["column"].as_u64()),
        (Some(1), Some(15))
    );
    let id = |i: usize| {
        j["statements"][i]["fingerprint_id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let notes = unchecked(&j);
    assert!(
        notes.contains(&format!(
            "table sbtest3 is not in the schema: 2 statement(s) naming it (#{}, #{}) (SCHEMA-001)",
            id(0),
            id(5)
        )),
        "{notes:?}"
    );
    assert!(
        notes.contains(&format!(
            "table sbtest9 is not in the schema: 1 statement(s) naming it (#{}) (SCHEMA-001)",
            id(4)
        )),
        "{notes:?}"
    );
    // No schema given: nothing to compare with, so no SCHEMA-001 (as before).
    let j = json_of(&cutover(&[
        "audit", "--target", "postgres", "--format", "json", &sql,
    ]));
    assert_eq!(verdicts(&j), ["ok"; 6]);
    assert!(!unchecked(&j).iter().any(|u| u.contains("SCHEMA-001")));

    // A sysbench capture against a schema of sbtest1 alone: every statement on another table warns.
    let log = common::corpus("sysbench/general-ps.log.gz")
        .display()
        .to_string();
    let j = json_of(&cutover(&[
        "audit", "--target", "postgres", "--schema", &schema, "--format", "json", "-q", &log,
    ]));
    let st = j["statements"].as_array().unwrap();
    let mut on_others = 0;
    for (i, s) in st.iter().enumerate() {
        let fp = s["fingerprint"].as_str().unwrap_or("");
        if ["sbtest2", "sbtest3", "sbtest4"]
            .iter()
            .any(|t| fp.contains(t))
        {
            on_others += 1;
            assert_eq!(s["verdict"], "warn", "{fp}");
            assert!(rules(&j, i).contains(&"SCHEMA-001".to_string()), "{fp}");
        } else {
            assert!(!rules(&j, i).contains(&"SCHEMA-001".to_string()), "{fp}");
        }
    }
    assert!(on_others > 0);
}

/// Issue 14, item 2: a script's CREATE TABLE statements are schema for its other statements, so
/// giving the same file again as --schema changes nothing.
#[test]
fn a_ddl_script_is_its_own_schema() {
    let dir = tempfile::tempdir().unwrap();
    let dump = write(
        dir.path(),
        "dump.sql",
        "CREATE TABLE `t` (\n  `id` int NOT NULL AUTO_INCREMENT,\n  `name` varchar(20) NOT NULL,\n  `flag` tinyint(1) NOT NULL DEFAULT 0,\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n\
         INSERT INTO `t` VALUES (1,'a',0);\n\
         SELECT id FROM t WHERE name = 'A';\n\
         UPDATE t SET flag = 1 WHERE id = 1;\n\
         SELECT * FROM other WHERE id = 1;\n",
    );
    let alone = json_of(&cutover(&[
        "audit", "--target", "postgres", "--format", "json", &dump,
    ]));
    assert_eq!(
        alone["schema_source"],
        format!("the CREATE TABLE statements of {dump}")
    );
    assert!(
        !unchecked(&alone).iter().any(|u| u.contains("no schema")),
        "{:?}",
        unchecked(&alone)
    );
    assert!(
        rules(&alone, 2).contains(&"CASE-002".to_string()),
        "the case-insensitive collation comes from the script's table: {:?}",
        rules(&alone, 2)
    );
    assert!(rules(&alone, 4).contains(&"SCHEMA-001".to_string()));
    let given = json_of(&cutover(&[
        "audit", "--target", "postgres", "--schema", &dump, "--format", "json", &dump,
    ]));
    assert_eq!(given["schema_source"], dump.as_str());
    assert_eq!(verdicts(&alone), verdicts(&given));
    for i in 0..verdicts(&alone).len() {
        assert_eq!(rules(&alone, i), rules(&given, i), "#{i}");
    }
    // A given schema that lacks the script's table: both, the given one first.
    let schema = write(dir.path(), "schema.sql", SBTEST1);
    let both = json_of(&cutover(&[
        "audit", "--target", "postgres", "--schema", &schema, "--format", "json", &dump,
    ]));
    assert_eq!(
        both["schema_source"],
        format!("{schema}, and the CREATE TABLE statements of {dump}")
    );
    assert_eq!(verdicts(&both), verdicts(&alone));
}

/// Issue 14, item 4: --fail-on says which verdict exits 1 (fail by default).
#[test]
fn fail_on_chooses_the_verdict_that_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let schema = write(dir.path(), "schema.sql", SBTEST1);
    let warns = write(
        dir.path(),
        "warn.sql",
        "SELECT c FROM sbtest3 WHERE id=1;\n",
    );
    let fails = write(
        dir.path(),
        "fail.sql",
        "SELECT `c` FROM sbtest1 LIMIT 5, 10;\n",
    );
    let oks = write(dir.path(), "ok.sql", "SELECT c FROM sbtest1 WHERE id=1;\n");
    let code = |file: &str, extra: &[&str]| {
        let mut args = vec!["audit", "--target", "postgres", "--schema", &schema, "-q"];
        args.extend(extra);
        args.push(file);
        cutover(&args).status.code()
    };
    assert_eq!(code(&warns, &[]), Some(0), "warn does not fail by default");
    assert_eq!(code(&warns, &["--fail-on", "fail"]), Some(0));
    assert_eq!(code(&warns, &["--fail-on", "warn"]), Some(1));
    assert_eq!(code(&fails, &[]), Some(1));
    assert_eq!(code(&fails, &["--fail-on", "fail"]), Some(1));
    assert_eq!(code(&fails, &["--fail-on", "warn"]), Some(1));
    assert_eq!(code(&oks, &["--fail-on", "warn"]), Some(0));
    let out = cutover(&["audit", "--target", "postgres", "--fail-on", "never", &oks]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown --fail-on is a usage error"
    );
}

/// Markdown keeps SQL verbatim: backticks inside code spans (in the table) and fenced blocks (the
/// rewrites) come out exactly as written.
#[test]
fn markdown_keeps_sql_verbatim() {
    let dir = tempfile::tempdir().unwrap();
    let sql = write(
        dir.path(),
        "app.sql",
        "SELECT `id` FROM t LIMIT 5, 10;\nSELECT '```', `id` FROM t LIMIT 1, 2;\n",
    );
    let out = cutover(&[
        "audit", "--target", "postgres", "--format", "markdown", &sql,
    ]);
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(
        md.contains("| `` SELECT `id` FROM t LIMIT 5, 10 `` |"),
        "{md}"
    );
    assert!(
        md.contains("\n```sql\nSELECT `id` FROM t LIMIT 5, 10\n```\n"),
        "{md}"
    );
    // A run of three backticks in the SQL: the span and the fence are longer than it.
    assert!(
        md.contains("| ```` SELECT '```', `id` FROM t LIMIT 1, 2 ```` |"),
        "{md}"
    );
    assert!(
        md.contains("\n````sql\nSELECT '```', `id` FROM t LIMIT 1, 2\n````\n"),
        "{md}"
    );
}

/// Issue 14, item 6: forms KaiwuDB takes (its grammar, KWDB a5c90efc sql.y) have rule ids of their
/// own, so its profile lets them through while PostgreSQL still rejects them; and a form KaiwuDB
/// rejects but PostgreSQL takes (GENERATED ALWAYS) is caught on KaiwuDB.
#[test]
fn kaiwudb_forms_get_their_own_rules_and_severities() {
    let dir = tempfile::tempdir().unwrap();
    let sql = write(
        dir.path(),
        "kw.sql",
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT AS (a + 1) STORED, INDEX ia (a), UNIQUE INDEX ub (b)) COMMENT='orders';\n\
         CREATE TABLE u (a INT, b INT GENERATED ALWAYS AS (a + 1) STORED);\n\
         CREATE DATABASE IF NOT EXISTS shop;\n\
         SELECT CAST(a AS DOUBLE) FROM t;\n\
         SHOW TABLES;\n\
         SHOW VARIABLES LIKE 'version';\n\
         DESCRIBE t;\n\
         CREATE TABLE k (a INT, KEY ka (a)) ENGINE=InnoDB;\n",
    );
    let run = |target: &str| {
        json_of(&cutover(&[
            "audit", "--target", target, "--format", "json", &sql,
        ]))
    };
    let kw = run("kaiwudb");
    assert_eq!(
        verdicts(&kw),
        ["ok", "fail", "ok", "ok", "warn", "fail", "warn", "fail"]
    );
    assert!(rules(&kw, 1).contains(&"DDL-011G".to_string()));
    assert!(rules(&kw, 4).contains(&"DML-022S".to_string()));
    assert!(rules(&kw, 5).contains(&"DML-022".to_string()));
    let k = rules(&kw, 7);
    assert!(
        k.contains(&"DDL-002".to_string()) && k.contains(&"DDL-004".to_string()),
        "KEY and ENGINE= still fail on KaiwuDB: {k:?}"
    );
    let pg = run("postgres");
    assert_eq!(
        verdicts(&pg),
        ["fail", "ok", "fail", "fail", "fail", "fail", "fail", "fail"]
    );
    for (i, rule) in [
        (0, "DDL-002C"),
        (0, "DDL-004I"),
        (0, "DDL-011S"),
        (2, "DDL-016N"),
        (3, "DML-017D"),
        (4, "DML-022S"),
        (6, "DML-022S"),
    ] {
        assert!(rules(&pg, i).contains(&rule.to_string()), "#{i} {rule}");
    }
    // KingbaseES (MySQL mode) keeps its vendor-claim notices, under the new ids too.
    let kb = run("kingbase");
    assert_eq!(
        verdicts(&kb),
        ["warn", "ok", "warn", "warn", "warn", "warn", "warn", "warn"]
    );
}
