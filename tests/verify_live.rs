//! `cutover verify` on the real MariaDB and PostgreSQL: identical data over every type pair is a match,
//! and each seeded difference is found with exact counts.

mod common;

use serde_json::Value;

const DB: &str = "cutover_verify";

fn mysql(sql: &str) {
    common::mysql(None, sql);
}

fn psql(db: &str, sql: &str) {
    common::psql(db, sql);
}

/// The same 2,000 rows over every type pair on both servers.
fn load() {
    mysql(&format!(
        "DROP DATABASE IF EXISTS {DB}; CREATE DATABASE {DB}; USE {DB}; SET time_zone = '+00:00';
         CREATE TABLE types (id INT PRIMARY KEY, i INT, u BIGINT UNSIGNED, d DECIMAL(10,2), f DOUBLE, dt DATETIME(6), ts TIMESTAMP(6) NULL,
           dd DATE, tm TIME, ch CHAR(10), vc VARCHAR(40), tx TEXT, bl BLOB, b TINYINT(1), e ENUM('a','b'), j JSON, y YEAR, bt BIT(8));
         INSERT INTO types SELECT seq, CAST(seq AS SIGNED) * 7 - 5000, 18446744073709551615 - seq, seq * 0.01 - 3, seq * 1.1,
           TIMESTAMP('2026-01-01') + INTERVAL seq SECOND + INTERVAL seq MICROSECOND, TIMESTAMP('2026-06-01') + INTERVAL seq MINUTE,
           DATE('2026-01-01') + INTERVAL seq DAY, SEC_TO_TIME(seq * 37), CONCAT('c', seq), CONCAT('v', seq, IF(seq % 10 = 0, '  ', '')),
           IF(seq % 97 = 0, NULL, REPEAT('t', seq % 50)), UNHEX(MD5(seq)), seq % 2, IF(seq % 2 = 0, 'a', 'b'), JSON_OBJECT('n', seq, 'a', 'x'),
           2000 + seq % 100, seq % 256 FROM seq_1_to_2000;
         CREATE TABLE nokey (a INT, b VARCHAR(10)); INSERT INTO nokey VALUES (1, 'x'), (1, 'x');"
    ));
    common::fresh_pg_database(DB);
    psql(
        DB,
        "SET TIME ZONE 'UTC';
         CREATE TABLE types (id integer PRIMARY KEY, i integer, u numeric(20,0), d numeric(10,2), f double precision, dt timestamp(6), ts timestamptz(6),
           dd date, tm time, ch char(10), vc varchar(40), tx text, bl bytea, b boolean, e text, j jsonb, y smallint, bt bit(8));
         INSERT INTO types SELECT g, g * 7 - 5000, 18446744073709551615 - g, g * 0.01 - 3, g * 1.1,
           timestamp '2026-01-01' + g * interval '1 second' + g * interval '1 microsecond', timestamptz '2026-06-01 00:00:00+00' + g * interval '1 minute',
           date '2026-01-01' + g, time '00:00:00' + g * 37 * interval '1 second', 'c' || g, 'v' || g || CASE WHEN g % 10 = 0 THEN '  ' ELSE '' END,
           CASE WHEN g % 97 = 0 THEN NULL ELSE repeat('t', g % 50) END, decode(md5(g::text), 'hex'), g % 2 = 1, CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END,
           jsonb_build_object('n', g, 'a', 'x'), 2000 + g % 100, (g % 256)::bit(8) FROM generate_series(1, 2000) g;
         CREATE TABLE nokey (a integer, b varchar(10)); INSERT INTO nokey VALUES (1, 'x'), (1, 'x');",
    );
}

fn verify(extra: &[&str]) -> (Value, Option<i32>) {
    common::verify_json(DB, extra)
}

use common::table_report as table;

#[test]
fn identical_data_matches_and_seeded_differences_are_found_exactly() {
    load();
    let (j, code) = verify(&["--tables", "types", "--chunk-rows", "300"]);
    let t = table(&j, "types");
    assert_eq!(t["status"], "match", "{t:#}");
    assert_eq!(
        (t["rows_source"].as_u64(), t["rows_target"].as_u64()),
        (Some(2000), Some(2000))
    );
    assert_eq!(j["total_differences"], 0, "{j:#}");
    assert_eq!(code, Some(0));
    assert!(t["chunks"].as_u64().unwrap() >= 6);

    psql(
        DB,
        "UPDATE types SET i = i + 1 WHERE id = 10;
         UPDATE types SET vc = upper(vc) WHERE id = 20;
         UPDATE types SET vc = vc || ' ' WHERE id = 31;
         UPDATE types SET dt = dt + interval '1 microsecond' WHERE id = 40;
         UPDATE types SET d = d + 0.01 WHERE id = 50;
         UPDATE types SET f = f * 1.000001 WHERE id = 60;
         DELETE FROM types WHERE id = 70;
         INSERT INTO types (id, i) VALUES (5000, 1);
         UPDATE types SET tx = NULL WHERE id = 100;",
    );
    let (j, code) = verify(&["--tables", "types", "--chunk-rows", "300"]);
    let t = table(&j, "types");
    assert_eq!(code, Some(1));
    assert_eq!(t["status"], "differ");
    assert_eq!(t["missing_in_target"], 1, "{t:#}");
    assert_eq!(t["extra_in_target"], 1, "{t:#}");
    assert_eq!(t["different"], 7, "{t:#}");
    assert_eq!(j["total_differences"], 9);
    let ex = t["examples"].as_array().unwrap();
    let cols_of = |key: &str| -> Vec<String> {
        ex.iter()
            .find(|e| e["key"] == key)
            .map(|e| {
                e["columns"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c.as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(cols_of("10"), ["i"]);
    assert_eq!(
        cols_of("20"),
        ["vc"],
        "a change of letter case is a difference"
    );
    assert_eq!(cols_of("31"), ["vc"], "a trailing space is a difference");
    assert_eq!(cols_of("40"), ["dt"]);
    assert_eq!(cols_of("50"), ["d"]);
    assert_eq!(cols_of("60"), ["f"]);
    assert_eq!(cols_of("100"), ["tx"], "'' and NULL differ");
    assert!(
        ex.iter()
            .any(|e| e["key"] == "70" && e["kind"] == "missing_in_target")
    );
    assert!(
        ex.iter()
            .any(|e| e["key"] == "5000" && e["kind"] == "extra_in_target")
    );

    // --fix-sql writes repairs in PostgreSQL's dialect; applied to the target, the next run matches.
    let fix = std::env::temp_dir().join(format!("cutover-fix-{}.sql", std::process::id()));
    let f = fix.to_str().unwrap();
    let (j, _) = verify(&["--tables", "types", "--chunk-rows", "300", "--fix-sql", f]);
    assert_eq!(j["fix_statements"], 9, "{j:#}");
    let sql = std::fs::read_to_string(&fix).unwrap();
    assert!(sql.contains("DELETE FROM types WHERE id = 5000"), "{sql}");
    psql(DB, &sql);
    let (j, code) = verify(&["--tables", "types", "--chunk-rows", "300"]);
    assert_eq!(j["total_differences"], 0, "after applying {sql}\n{j:#}");
    assert_eq!(code, Some(0));
    let _ = std::fs::remove_file(&fix);

    // A table without a key is compared as a multiset of row hashes: duplicates count.
    let (j, _) = verify(&["--tables", "nokey"]);
    let n = table(&j, "nokey");
    assert_eq!(n["status"], "match", "{n:#}");
    assert!(n["key"].as_str().unwrap().contains("multiset"));
    psql(DB, "INSERT INTO nokey VALUES (1, 'x'), (2, 'y')");
    let (j, _) = verify(&["--tables", "nokey"]);
    let n = table(&j, "nokey");
    assert_eq!(
        (
            n["extra_in_target"].as_u64(),
            n["missing_in_target"].as_u64()
        ),
        (Some(2), Some(0)),
        "{n:#}"
    );
    mysql(&format!("DROP DATABASE {DB}"));
    psql("postgres", &format!("DROP DATABASE {DB} WITH (FORCE)"));
}
