//! The chunk digests of `cutover verify` on real MariaDB and PostgreSQL: ordered digests over
//! primary-key ranges (including chunks past GROUP_CONCAT's limit), bpchar columns hashed as trimmed
//! bytes, and per-row hash sums over a unique key that is not the primary key.

mod common;

const DB: &str = "cutover_verify_digests";

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
    // wide: 60 rows of 400 KB, 24 MB in all, more than MariaDB's max_allowed_packet (16 MiB), which
    // also caps GROUP_CONCAT. chars: CHAR columns, padded by PostgreSQL, with multi-byte text, '' and
    // NULL. uk: an integer unique key that is not a primary key.
    mysql(
        "CREATE TABLE wide (id INT PRIMARY KEY, body LONGTEXT NOT NULL);
         INSERT INTO wide SELECT seq, REPEAT(CONCAT('w', seq, '-'), 400000 DIV (LENGTH(seq) + 2)) FROM seq_1_to_60;
         CREATE TABLE chars (id BIGINT PRIMARY KEY, code CHAR(5) NOT NULL, label CHAR(8), n INT);
         INSERT INTO chars SELECT seq, ELT(1 + seq % 5, 'a', 'é', '', 'abcde', 'x y'), IF(seq % 7 = 0, NULL, ELT(1 + seq % 3, 'ü', 'zz ', '')), seq FROM seq_1_to_5000;
         CREATE TABLE uk (id INT NOT NULL, v CHAR(4) NOT NULL, UNIQUE KEY (id));
         INSERT INTO uk SELECT seq, 'v' FROM seq_1_to_3000;",
    );
    common::psql(
        "postgres",
        &format!("DROP DATABASE IF EXISTS {DB} WITH (FORCE)"),
    );
    common::psql("postgres", &format!("CREATE DATABASE {DB}"));
    psql(
        "CREATE TABLE wide (id integer PRIMARY KEY, body text NOT NULL);
         INSERT INTO wide SELECT g, repeat('w' || g || '-', 400000 / (length(g::text) + 2)) FROM generate_series(1, 60) g;
         CREATE TABLE chars (id bigint PRIMARY KEY, code char(5) NOT NULL, label char(8), n integer);
         INSERT INTO chars SELECT g, (ARRAY['a', 'é', '', 'abcde', 'x y'])[1 + g % 5], CASE WHEN g % 7 = 0 THEN NULL ELSE (ARRAY['ü', 'zz ', ''])[1 + g % 3] END, g FROM generate_series(1, 5000) g;
         CREATE TABLE uk (id integer NOT NULL UNIQUE, v char(4) NOT NULL);
         INSERT INTO uk SELECT g, 'v' FROM generate_series(1, 3000) g;
         ANALYZE;",
    );
    mysql("ANALYZE TABLE wide, chars, uk");
}

use common::diff_counts as counts;

#[test]
fn ordered_digests_bpchar_bytes_and_unique_keys() {
    load();
    // One chunk asked for the whole wide table: verify sizes chunks below GROUP_CONCAT's limit.
    let (j, code) = common::verify_json(DB, &["--all", "--chunk-rows", "100000"]);
    assert_eq!(j["total_differences"], 0, "{j:#}");
    assert_eq!(code, Some(0));
    let wide = common::table_report(&j, "wide");
    assert_eq!(wide["rows_source"], 60);
    assert!(
        wide["chunks"].as_u64().unwrap() > 1,
        "a 24 MB table must not be one GROUP_CONCAT: {wide:#}"
    );
    assert_eq!(common::table_report(&j, "chars")["rows_target"], 5000);
    assert!(
        common::table_report(&j, "uk")["key"]
            .as_str()
            .unwrap()
            .contains("integer ranges"),
        "{j:#}"
    );

    // One byte in the middle of a 400 KB value; a trailing blank where bpchar keeps none; an
    // accent dropped; NULL for ''; a label changed on a row whose code stays; a unique-key row off.
    psql(
        "UPDATE wide SET body = overlay(body placing 'X' from 200000) WHERE id = 33;
         UPDATE chars SET code = 'e' WHERE id = 1;
         UPDATE chars SET label = NULL WHERE id = 3;
         UPDATE chars SET label = 'zz' WHERE id = 4;
         UPDATE uk SET v = 'w' WHERE id = 1500;",
    );
    mysql("UPDATE chars SET code = 'abcd' WHERE id = 8");
    // 'zz' and 'zz ' are the same CHAR value on both engines: not a difference.
    let (j, code) = common::verify_json(DB, &["--all", "--chunk-rows", "100000"]);
    assert_eq!(code, Some(1));
    let wide = common::table_report(&j, "wide");
    assert_eq!(counts(wide), (0, 0, 1), "{j:#}");
    // Examples cut long values, with their length.
    let shown = wide["examples"][0]["source"][1].as_str().unwrap();
    assert!(
        shown.ends_with("… (400002 bytes)") && shown.len() < 400,
        "{shown}"
    );
    let chars = common::table_report(&j, "chars");
    assert_eq!(counts(chars), (0, 0, 3), "{j:#}");
    assert_eq!(counts(common::table_report(&j, "uk")), (0, 0, 1), "{j:#}");
    assert_eq!(j["total_differences"], 5, "{j:#}");

    // A kaiwudb:// target gets text hashed through convert_to and bpchar cast to text (KaiwuDB has
    // no textsend/bpcharsend): on PostgreSQL, which has both, the same rows must come out.
    let pg = common::with_db(&common::pg_url(), DB);
    let kaiwudb_url = format!(
        "kaiwudb://{}",
        pg.split_once("://").map_or("", |(_, rest)| rest)
    );
    let (k, _) = common::verify_json_between(
        &common::with_db(&common::mysql_url(), DB),
        &kaiwudb_url,
        &["--all"],
    );
    for t in ["wide", "chars", "uk"] {
        assert_eq!(
            counts(common::table_report(&k, t)),
            counts(common::table_report(&j, t)),
            "{t}: {k:#}"
        );
    }
    common::mysql(None, &format!("DROP DATABASE {DB}"));
    common::psql("postgres", &format!("DROP DATABASE {DB} WITH (FORCE)"));
}
