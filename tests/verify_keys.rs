//! `cutover verify` on string, composite and AUTO_INCREMENT keys, repairs, and `--live` while a
//! writer keeps changing both sides (real MariaDB and PostgreSQL).

mod common;

use serde_json::Value;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use common::{mysql_url, pg_url, with_db};

const DB: &str = "cutover_verify_keys";

fn mysql(sql: &str) {
    common::mysql(Some(DB), sql);
}

fn psql(sql: &str) {
    common::psql(DB, sql);
}

fn load() {
    common::mysql(
        None,
        &format!("DROP DATABASE IF EXISTS {DB}; CREATE DATABASE {DB}"),
    );
    // Keys that MySQL's collation and PostgreSQL's order differently: letter case, accents, spaces.
    mysql(
        "CREATE TABLE skey (code VARCHAR(20) PRIMARY KEY, n INT NOT NULL);
         INSERT INTO skey SELECT CONCAT(IF(seq % 2 = 0, 'Ab', 'aB'), seq, IF(seq % 3 = 0, ' x', '')), seq FROM seq_1_to_3000;
         INSERT INTO skey VALUES ('Émile', 1), ('zoë', 2), ('_under', 3);
         CREATE TABLE ckey (a INT NOT NULL, b VARCHAR(10) NOT NULL, d DATE NOT NULL, v DECIMAL(8,2), PRIMARY KEY (a, b, d));
         INSERT INTO ckey SELECT seq % 50, CONCAT('b', seq % 7), DATE('2026-01-01') + INTERVAL seq DAY, seq / 4 FROM seq_1_to_2000;
         CREATE TABLE seqt (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10));
         INSERT INTO seqt (v) SELECT CONCAT('v', seq) FROM seq_1_to_500;
         CREATE TABLE live (id INT PRIMARY KEY, v INT NOT NULL, note VARCHAR(20));
         INSERT INTO live SELECT seq, 0, 'n' FROM seq_1_to_20000;",
    );
    common::psql(
        "postgres",
        &format!("DROP DATABASE IF EXISTS {DB} WITH (FORCE)"),
    );
    common::psql("postgres", &format!("CREATE DATABASE {DB}"));
    psql(
        "CREATE TABLE skey (code varchar(20) PRIMARY KEY, n integer NOT NULL);
         INSERT INTO skey SELECT CASE WHEN g % 2 = 0 THEN 'Ab' ELSE 'aB' END || g || CASE WHEN g % 3 = 0 THEN ' x' ELSE '' END, g FROM generate_series(1, 3000) g;
         INSERT INTO skey VALUES ('Émile', 1), ('zoë', 2), ('_under', 3);
         CREATE TABLE ckey (a integer NOT NULL, b varchar(10) NOT NULL, d date NOT NULL, v numeric(8,2), PRIMARY KEY (a, b, d));
         INSERT INTO ckey SELECT g % 50, 'b' || g % 7, date '2026-01-01' + g, round(g / 4.0, 2) FROM generate_series(1, 2000) g;
         CREATE TABLE seqt (id serial PRIMARY KEY, v varchar(10));
         INSERT INTO seqt (id, v) SELECT g, 'v' || g FROM generate_series(1, 500) g;
         CREATE TABLE live (id integer PRIMARY KEY, v integer NOT NULL, note varchar(20));
         INSERT INTO live SELECT g, 0, 'n' FROM generate_series(1, 20000) g;",
    );
}

fn verify(extra: &[&str]) -> (Value, Option<i32>) {
    common::verify_json(DB, extra)
}

use common::table_report as table;

use common::diff_counts as counts;

#[test]
fn string_and_composite_keys_sequences_repairs_and_live_double_writes() {
    load();
    let (j, _) = verify(&["--tables", "skey,ckey,seqt", "--chunk-rows", "200"]);
    for name in ["skey", "ckey"] {
        let t = table(&j, name);
        assert_eq!(t["status"], "match", "{t:#}");
        assert!(t["key"].as_str().unwrap().contains("hash buckets"), "{t:#}");
    }
    assert_eq!(table(&j, "skey")["rows_source"], 3003);
    // The serial's sequence was never moved past the loaded ids: the next insert would collide.
    let s = table(&j, "seqt");
    assert_eq!(s["status"], "differ");
    assert!(
        s["schema"][0]
            .as_str()
            .unwrap()
            .contains("next insert would collide"),
        "{s:#}"
    );

    psql(
        "UPDATE skey SET n = n + 1 WHERE code = 'Ab10';
         UPDATE skey SET code = 'ab14' WHERE code = 'Ab14';
         DELETE FROM skey WHERE code = 'zoë';
         UPDATE ckey SET v = v + 0.01 WHERE a = 7 AND b = 'b0';
         DELETE FROM ckey WHERE a = 1 AND b = 'b1' AND d = date '2026-01-02';",
    );
    let fix = std::env::temp_dir().join(format!("cutover-fix-keys-{}.sql", std::process::id()));
    let f = fix.to_str().unwrap();
    let (j, code) = verify(&[
        "--tables",
        "skey,ckey,seqt",
        "--chunk-rows",
        "200",
        "--fix-sql",
        f,
    ]);
    assert_eq!(code, Some(1));
    // A key changed only in letter case is one row missing and one extra (MySQL would call the
    // two keys equal; their bytes differ).
    assert_eq!(counts(table(&j, "skey")), (2, 1, 1), "{j:#}");
    let ck = table(&j, "ckey");
    let moved: u64 = (1..2000).filter(|g| g % 50 == 7 && g % 7 == 0).count() as u64;
    assert_eq!(counts(ck), (1, 0, moved), "{ck:#}");
    let sql = std::fs::read_to_string(&fix).unwrap();
    assert!(sql.contains("setval"), "{sql}");
    psql(&sql);
    let (j, code) = verify(&["--tables", "skey,ckey,seqt", "--chunk-rows", "200"]);
    assert_eq!(j["total_differences"], 0, "after applying:\n{sql}\n{j:#}");
    assert_eq!(code, Some(0));
    let _ = std::fs::remove_file(&fix);

    // --live while a writer updates both sides (source first, the target a moment later): no
    // false differences.
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut i = 0u32;
            let mut writes = 0u32;
            while !stop.load(Ordering::Relaxed) {
                i += 1;
                let id = (i * 7919) % 20000 + 1;
                let sql = format!("UPDATE live SET v = v + 1, note = 'w{i}' WHERE id = {id}");
                mysql(&sql);
                // The target follows a moment later: the row is in flight meanwhile.
                std::thread::sleep(std::time::Duration::from_millis(40));
                psql(&sql);
                writes += 1;
            }
            writes
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(1000));
    let (j, code) = verify(&[
        "--tables",
        "live",
        "--chunk-rows",
        "50",
        "--live",
        "--live-delay",
        "200ms",
    ]);
    stop.store(true, Ordering::Relaxed);
    let writes = writer.join().unwrap();
    let t = table(&j, "live");
    assert!(writes > 10, "the writer made only {writes} writes");
    assert_eq!(
        counts(t),
        (0, 0, 0),
        "false differences under double-writes: {t:#}"
    );
    assert_eq!(code, Some(0));
    eprintln!(
        "live: {writes} double-writes during the run, {} rows in flight",
        t["in_flight"]
    );

    // A row changed on one side only is persistent and reported.
    psql("UPDATE live SET note = 'target only' WHERE id = 4242");
    let (j, code) = verify(&[
        "--tables",
        "live",
        "--chunk-rows",
        "100",
        "--live",
        "--live-delay",
        "100ms",
    ]);
    let t = table(&j, "live");
    assert_eq!(counts(t), (0, 0, 1), "{t:#}");
    assert_eq!(t["examples"][0]["columns"][0], "note");
    assert_eq!(code, Some(1));

    // --checkpoint: finished tables are not checked again; a finished run removes the file; a
    // checkpoint of another run is refused.
    let ck = std::env::temp_dir().join(format!("cutover-ckpt-{}.json", std::process::id()));
    let (s, t) = (with_db(&mysql_url(), DB), with_db(&pg_url(), DB));
    std::fs::write(
        &ck,
        serde_json::json!({"source": s, "target": t, "where_clause": null, "chunk_rows": 200,
            "done": [{"table": "skey", "status": "match", "rows_source": 7, "rows_target": 7}], "current": null})
        .to_string(),
    )
    .unwrap();
    let c = ck.to_str().unwrap();
    let (j, _) = verify(&[
        "--tables",
        "skey,ckey",
        "--chunk-rows",
        "200",
        "--checkpoint",
        c,
    ]);
    assert_eq!(
        table(&j, "skey")["rows_source"],
        7,
        "skey was checked again: {j:#}"
    );
    assert_eq!(table(&j, "ckey")["rows_source"], 2000);
    assert!(!ck.exists(), "a finished run keeps its checkpoint");
    std::fs::write(
        &ck,
        serde_json::json!({"source": s, "target": t, "chunk_rows": 999}).to_string(),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args([
            "verify",
            "--source",
            &s,
            "--target",
            &t,
            "--chunk-rows",
            "200",
            "--checkpoint",
            c,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("checkpoint is of another run"));
    let _ = std::fs::remove_file(&ck);

    common::mysql(None, &format!("DROP DATABASE {DB}"));
    common::psql("postgres", &format!("DROP DATABASE {DB} WITH (FORCE)"));
}
