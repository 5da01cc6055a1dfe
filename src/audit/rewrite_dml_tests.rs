use super::rewrite;
use crate::audit::{AuditOptions, Context};
use crate::schema::ddl::schema_from_ddl;

fn rw(sql: &str) -> Option<String> {
    let profile = crate::profile::load_profile("postgres", None).expect("profile");
    let ddl = schema_from_ddl(
        "CREATE TABLE kv (k VARCHAR(50) NOT NULL, v VARCHAR(200) NULL, hits INT NOT NULL DEFAULT 0, PRIMARY KEY (k));
         CREATE TABLE c (id INT NOT NULL AUTO_INCREMENT, on_ TINYINT(1) NOT NULL, PRIMARY KEY (id));",
        "t.sql",
    );
    let o = AuditOptions::default();
    let ctx = Context {
        profile: &profile,
        schema: Some(&ddl.schema),
        options: &o,
    };
    rewrite(
        sql,
        &ctx,
        super::Semantics {
            decimal_division: true,
            case_insensitive: true,
            booleans: true,
            ..Default::default()
        },
    )
}

#[test]
fn decimal_division_and_case_insensitive_columns() {
    assert_eq!(
        rw("SELECT hits / 2, 7 / 2, SUM(hits) / COUNT(*), v / 2 FROM kv").as_deref(),
        Some(
            "SELECT (round(CAST(hits AS NUMERIC) / 2, 4)), (round(CAST(7 AS NUMERIC) / 2, 4)), (round(CAST(SUM(hits) AS NUMERIC) / COUNT(*), 4)), v / 2 FROM kv"
        )
    );
    assert_eq!(
        rw("SELECT k FROM kv WHERE k = 'Beta' AND v LIKE 'a%' AND k IN ('A', 'b') AND hits = 2")
            .as_deref(),
        Some(
            "SELECT k FROM kv WHERE rtrim(lower(k)) = rtrim(lower('Beta')) AND v ILIKE 'a%' AND rtrim(lower(k)) IN (rtrim(lower('A')), rtrim(lower('b'))) AND hits = 2"
        )
    );
}

#[test]
fn upserts() {
    assert_eq!(
        rw("INSERT INTO kv (k, v, hits) VALUES ('a', 'b', 5) ON DUPLICATE KEY UPDATE v = VALUES(v), hits = hits + VALUES(hits)").as_deref(),
        Some("INSERT INTO kv (k, v, hits) VALUES ('a', 'b', 5) ON CONFLICT(k) DO UPDATE SET v = EXCLUDED.v, hits = kv.hits + EXCLUDED.hits")
    );
    assert_eq!(
        rw("REPLACE INTO kv (k, v) VALUES ('a', 'b')").as_deref(),
        Some(
            "INSERT INTO kv (k, v) VALUES ('a', 'b') ON CONFLICT(k) DO UPDATE SET v = EXCLUDED.v, hits = DEFAULT"
        )
    );
    assert_eq!(
        rw("INSERT IGNORE INTO kv (k) VALUES ('a')").as_deref(),
        Some("INSERT INTO kv (k) VALUES ('a') ON CONFLICT DO NOTHING")
    );
    assert_eq!(
        rw("INSERT INTO kv (k, v) VALUES ('flag', TRUE)").as_deref(),
        Some("INSERT INTO kv (k, v) VALUES ('flag', '1')")
    );
    // IGNORE stores a string too long for its column cut to the column's length.
    assert_eq!(
        rw("INSERT IGNORE INTO kv (k, v) VALUES (REPEAT('x', 60), 'short')").as_deref(),
        Some(
            "INSERT INTO kv (k, v) VALUES (left(CAST(REPEAT('x', 60) AS TEXT), 50), 'short') ON CONFLICT DO NOTHING"
        )
    );
    assert_eq!(
        rw("INSERT INTO kv SET k = 'a', hits = 2").as_deref(),
        Some("INSERT INTO kv (k, hits) VALUES ('a', 2)")
    );
    // No key the insert gives: no rewrite.
    assert_eq!(rw("REPLACE INTO kv (v) VALUES ('b')"), None);
}

#[test]
fn updates_and_deletes() {
    assert_eq!(
        rw("UPDATE t SET a = 1 WHERE b = 2 ORDER BY c LIMIT 1").as_deref(),
        Some(
            "UPDATE t SET a = 1 WHERE ctid IN (SELECT ctid FROM t WHERE b = 2 ORDER BY c LIMIT 1)"
        )
    );
    assert_eq!(
        rw("DELETE FROM t WHERE b = 2 LIMIT 3").as_deref(),
        Some("DELETE FROM t WHERE ctid IN (SELECT ctid FROM t WHERE b = 2 LIMIT 3)")
    );
    assert_eq!(
        rw("UPDATE o JOIN c ON c.id = o.cid SET o.note = 'x' WHERE c.tier = 'e'").as_deref(),
        Some("UPDATE o SET note = 'x' FROM c WHERE (c.id = o.cid) AND (c.tier = 'e')")
    );
    // Two tables updated: the target updates one table per statement.
    assert_eq!(
        rw("UPDATE o JOIN c ON c.id = o.cid SET o.note = 'x', c.b = 1"),
        None
    );
    assert_eq!(
        rw(
            "DELETE oi FROM order_items oi JOIN orders o ON o.id = oi.order_id WHERE o.status = 'p'"
        )
        .as_deref(),
        Some(
            "DELETE FROM order_items oi USING orders o WHERE (o.id = oi.order_id) AND (o.status = 'p')"
        )
    );
    assert_eq!(
        rw("DELETE FROM a USING a, b WHERE b.id = a.id").as_deref(),
        Some("DELETE FROM a USING b WHERE b.id = a.id")
    );
}

#[test]
fn booleans_and_identity() {
    assert_eq!(
        rw("SELECT id, on_ + 0, SUM(on_) FROM c WHERE on_ = 1").as_deref(),
        Some(
            "SELECT id, CAST(on_ AS INTEGER) + 0, SUM(CAST(on_ AS INTEGER)) FROM c WHERE on_ = true"
        )
    );
    assert_eq!(
        rw("UPDATE c SET on_ = 0 WHERE id = 1").as_deref(),
        Some("UPDATE c SET on_ = false WHERE id = 1")
    );
    assert_eq!(
        rw("INSERT INTO c (id, on_) VALUES (NULL, 1), (0, 0)").as_deref(),
        Some("INSERT INTO c (id, on_) VALUES (DEFAULT, true), (DEFAULT, false)")
    );
}

#[test]
fn select_extensions() {
    assert_eq!(
        rw("SELECT k, SUM(hits) AS n FROM kv GROUP BY k WITH ROLLUP").as_deref(),
        Some("SELECT k, SUM(hits) AS n FROM kv GROUP BY ROLLUP (k)")
    );
    assert_eq!(
        rw("SELECT k, SUM(hits) AS n FROM kv GROUP BY k HAVING n > 2").as_deref(),
        Some("SELECT k, SUM(hits) AS n FROM kv GROUP BY k HAVING (SUM(hits)) > 2")
    );
    assert_eq!(
        rw("SELECT k, hits FROM kv WHERE v IS NULL HAVING hits > 2").as_deref(),
        Some("SELECT k, hits FROM kv WHERE (v IS NULL) AND (hits > 2)")
    );
}

#[test]
fn div_and_group_concat() {
    assert_eq!(
        rw("SELECT stock DIV 7 FROM t").as_deref(),
        Some("SELECT CAST(div(stock, 7) AS BIGINT) FROM t")
    );
    assert_eq!(
        rw("SELECT 1 FROM t WHERE (a = 1) XOR (b = 2)").as_deref(),
        Some("SELECT 1 FROM t WHERE (((a = 1)) <> ((b = 2)))")
    );
    assert_eq!(
        rw("SELECT GROUP_CONCAT(id ORDER BY id SEPARATOR ';') FROM t").as_deref(),
        Some("SELECT string_agg(CAST(id AS TEXT), ';' ORDER BY id) FROM t")
    );
    assert_eq!(
        rw("SELECT GROUP_CONCAT(DISTINCT c ORDER BY c) FROM t").as_deref(),
        Some("SELECT string_agg(DISTINCT c, ',' ORDER BY c) FROM t")
    );
}
