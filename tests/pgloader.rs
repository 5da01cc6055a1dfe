//! `cutover verify` on what pgloader (the tool teams migrate MySQL to PostgreSQL with) produces from
//! a real database, sakila (hardening issue, item 13): pgloader puts the tables in a schema named
//! after the source database and adds it to the database's search_path; verify finds them there as
//! the application would, and `--target-schema` names a schema outright.

mod common;

use common::*;
use serde_json::Value;
use std::process::Command;

const DB: &str = "cutover_sakila";

fn load_sakila_into_mariadb() {
    let dir = shared_dir().join("peer-sql").join("sakila");
    let schema = std::fs::read_to_string(dir.join("mysql-sakila-schema.sql"))
        .expect("read ../shared/peer-sql/sakila/mysql-sakila-schema.sql")
        .replace("sakila", DB);
    let data = std::fs::read_to_string(dir.join("mysql-sakila-data.sql"))
        .expect("read the sakila data")
        .replace("USE sakila;", &format!("USE {DB};"));
    for (what, sql) in [("schema", schema), ("data", data)] {
        let mut child = mysql_client()
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run the mysql client ({e}): {HOW_TO_START}"));
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(sql.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "loading sakila's {what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn pgloader() {
    fresh_pg_database(DB);
    let out = Command::new("pgloader")
        .args([&with_db(&mysql_url(), DB), &with_db(&pg_url(), DB)])
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run pgloader ({e}): install it with apt-get install pgloader (scripts/setup-servers.sh does)")
        });
    assert!(
        out.status.success(),
        "pgloader failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn verify(extra: &[&str]) -> (Value, Option<i32>) {
    verify_json(DB, extra)
}

#[test]
fn verify_finds_pgloaders_tables_where_the_application_does() {
    load_sakila_into_mariadb();
    pgloader();
    // pgloader's schema is on the database's search_path, not first: the tables are found there.
    let path = psql(DB, "SHOW search_path");
    assert!(path.contains(DB), "pgloader did not add its schema: {path}");
    let (j, _) = verify(&["--all"]);
    let tables = j["tables"].as_array().unwrap();
    assert!(tables.len() >= 16, "{j:#}");
    for t in tables {
        assert_eq!(t["target_missing"], false, "{t:#}");
        assert_eq!(
            t["rows_source"], t["rows_target"],
            "row counts of {}: {t:#}",
            t["table"]
        );
    }
    // Every value survives pgloader; one column changes form: MySQL's SET becomes a text array
    // ('Trailers,Deleted Scenes' → {Trailers,"Deleted Scenes"}). Its values compare equal (as the
    // SET's members), and the change of type is the table's one schema finding.
    for t in tables {
        if t["table"] == "film" {
            assert_eq!(t["different"], 0, "{t:#}");
            let schema = t["schema"].as_array().unwrap();
            assert!(
                schema.len() == 1 && schema[0].as_str().unwrap().contains("special_features"),
                "{t:#}"
            );
        } else {
            assert_eq!(t["status"], "match", "{t:#}");
        }
    }
    // A changed SET on the target is found, and the repair file puts it back.
    psql(
        DB,
        &format!("UPDATE {DB}.film SET special_features = '{{Trailers}}' WHERE film_id = 7"),
    );
    let fix = std::env::temp_dir().join(format!("cutover-pgloader-fix-{}.sql", std::process::id()));
    let (jf, _) = verify(&["--tables", "film", "--fix-sql", fix.to_str().unwrap()]);
    let film = table_report(&jf, "film");
    assert_eq!(film["different"], 1, "{film:#}");
    assert!(
        film["examples"][0]["columns"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "special_features"),
        "{film:#}"
    );
    let sql = std::fs::read_to_string(&fix).unwrap();
    assert!(sql.contains("special_features = '{"), "{sql}");
    psql(DB, &sql);
    let got = psql(
        DB,
        &format!("SELECT special_features FROM {DB}.film WHERE film_id = 7"),
    );
    assert_eq!(got.trim(), "{Trailers,\"Deleted Scenes\"}", "{sql}");
    let _ = std::fs::remove_file(&fix);
    let rental = table_report(&j, "rental");
    assert_eq!(rental["rows_source"], 16044, "{rental:#}");
    // --target-schema names it outright, even off the search_path.
    psql(DB, &format!("ALTER DATABASE {DB} RESET search_path"));
    let (j, _) = verify(&["--tables", "actor,rental"]);
    let actor = table_report(&j, "actor");
    assert_eq!(actor["target_missing"], true, "{actor:#}");
    assert_eq!(
        actor["rows_source"], 200,
        "a table missing on the target still shows the source's rows: {actor:#}"
    );
    assert!(
        actor["reason"]
            .as_str()
            .unwrap()
            .contains("--target-schema"),
        "{actor:#}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args([
            "verify",
            "--source",
            &with_db(&mysql_url(), DB),
            "--target",
            &with_db(&pg_url(), DB),
            "--target-schema",
            "no_such_schema",
            "-q",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no such schema") && err.contains("public"),
        "{err}"
    );
    let (j, _) = verify(&["--tables", "actor,rental", "--target-schema", DB]);
    for name in ["actor", "rental"] {
        let t = table_report(&j, name);
        assert_eq!(t["target_missing"], false, "{t:#}");
        assert_eq!(t["rows_source"], t["rows_target"], "{t:#}");
    }
    assert!(
        j["endpoints"]["target"]
            .as_str()
            .unwrap()
            .contains(&format!("(schema {DB})")),
        "{}",
        j["endpoints"]
    );
}
