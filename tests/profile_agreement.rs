//! One type map (architecture issue, item 1): for every MySQL type the catalogs name, the audit's
//! proposed type, the table `--live-setup` creates and the type verify accepts are the profile's one
//! answer. A MariaDB table gets a column of each type; its schema is read back from the server (as
//! `--source` and verify read it); the PostgreSQL table is created from it by the same translation
//! `--live-setup` uses; then `cutover audit` must propose exactly those types and `cutover verify`
//! must accept every column.

mod common;

use common::{HOW_TO_START, mysql, mysql_url, pg_url, psql, with_db};
use cutover::db::Endpoint;
use cutover::profile::load_profile;
use cutover::schema::target::{column_type, create_table_pg};
use std::process::Command;

/// A MySQL type that the catalog key `key` stands for (`DECIMAL(M,D)` → `decimal(12,3)`).
fn example(key: &str) -> String {
    let k = key.to_ascii_lowercase();
    let base = k.split(['(', ' ']).next().unwrap_or(&k).to_string();
    let rest = k[base.len()..].to_string();
    let with_len = |n: &str| format!("{base}({n}){rest}");
    match (base.as_str(), rest.as_str()) {
        (_, "(m,d)") => format!("{base}(12,3)"),
        (_, "(n)") if base == "datetime" || base == "timestamp" => format!("{base}(3)"),
        (_, "(n)") => format!("{base}(7)"),
        ("char" | "nchar" | "binary", "") => with_len("10"),
        ("varchar" | "nvarchar" | "varbinary", "") => with_len("40"),
        ("bit", "") => with_len("8"),
        ("enum" | "set", "") => format!("{base}('a','b')"),
        _ => k,
    }
}

/// A type's text for matching: upper case, no spaces (`enum('a', 'b')` and `ENUM('A','B')` agree).
fn normal(t: &str) -> String {
    t.to_uppercase().replace(' ', "")
}

#[test]
fn audit_live_setup_and_verify_give_one_type_per_column() {
    let db = "cutover_agreement";
    let profile = load_profile("postgres", None).unwrap();
    let postgis = psql(
        "postgres",
        "SELECT count(*) FROM pg_type WHERE typname = 'geometry'",
    )
    .trim()
        == "1";
    let mut cols = Vec::new();
    for key in profile.types.keys() {
        if key == "SERIAL" {
            continue; // MariaDB takes one auto column per table: it gets a table of its own below.
        }
        if !postgis && matches!(key.as_str(), "GEOMETRY") {
            // Without PostGIS the profile's `geometry` cannot be created: said, not skipped silently.
            assert!(
                profile.types[key]
                    .target
                    .as_deref()
                    .is_some_and(|t| t.contains("PostGIS")),
                "the catalog says GEOMETRY needs PostGIS"
            );
            eprintln!("{key}: the profile maps it to geometry, which needs PostGIS on the target");
            continue;
        }
        cols.push(format!("c{} {} NULL", cols.len(), example(key)));
    }
    let ddl = format!(
        "CREATE TABLE agreement (id INT NOT NULL PRIMARY KEY, {});\nCREATE TABLE agreement_serial (id SERIAL PRIMARY KEY)",
        cols.join(", ")
    );
    mysql(
        None,
        &format!("DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}"),
    );
    mysql(Some(db), &ddl);
    let src = with_db(&mysql_url(), db);
    let tgt = with_db(&pg_url(), db);
    // The schema as the server reports it: what --source, --live-setup and verify read.
    let schema = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(cutover::schema::source::schema_from_server(
            &Endpoint::parse(&src).unwrap(),
        ))
        .unwrap_or_else(|e| panic!("{e}\n({HOW_TO_START})"));
    common::fresh_pg_database(db);
    let mut expected = std::collections::BTreeMap::new();
    for t in &schema.tables {
        let create = create_table_pg(t, &profile, false);
        psql(db, &create);
        for c in &t.columns {
            let ty = column_type(&profile, c);
            // Schema translation writes the profile's type (identity aside).
            assert!(
                create.contains(&format!("{} {ty}", c.name.to_lowercase())),
                "{}: {create}",
                c.mysql_type.text
            );
            if t.name == "agreement" {
                expected.insert(normal(&c.mysql_type.text), ty);
            }
        }
    }
    // Verify accepts every column the profile's type made.
    let out = Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args([
            "verify", "--source", &src, "--target", &tgt, "--format", "json", "-q",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    for t in v["tables"].as_array().unwrap() {
        assert_eq!(t["schema"], serde_json::json!([]), "{t:#}");
        assert_eq!(t["status"], "match", "{t:#}");
    }
    // The audit proposes the same type for each column of the same table definition.
    let dir = tempfile::tempdir().unwrap();
    let shown = mysql(Some(db), "SHOW CREATE TABLE agreement");
    let create = shown
        .split_once('\t')
        .map(|x| x.1)
        .unwrap_or_default()
        .replace("\\n", "\n");
    let sql = dir.path().join("agreement.sql");
    std::fs::write(&sql, format!("{create};\n")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args([
            "audit",
            "--target",
            "postgres",
            "--format",
            "json",
            "-q",
            sql.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let a: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut proposed = 0;
    for f in a["statements"][0]["findings"].as_array().unwrap() {
        let rule = f["rule"].as_str().unwrap_or("");
        if !rule.starts_with("TYP-") {
            continue;
        }
        let detail = f["detail"].as_str().unwrap_or("");
        let (mysql_type, _) = detail.split_once(" → ").unwrap_or((detail, ""));
        let want = expected
            .get(&normal(mysql_type))
            .unwrap_or_else(|| panic!("{mysql_type} is not a column type here: {f:#}"));
        assert_eq!(f["rewrite"].as_str(), Some(want.as_str()), "{f:#}");
        proposed += 1;
    }
    assert!(proposed > 20, "only {proposed} type findings: {a:#}");
    mysql(None, &format!("DROP DATABASE {db}"));
    psql("postgres", &format!("DROP DATABASE {db} WITH (FORCE)"));
}
