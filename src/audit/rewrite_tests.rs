use super::{findings_of, rewrite, statement_rewrite};
use crate::audit::with_postgres;

/// The audit's rewrite of `sql` (None: none, or not complete).
fn audit_rw(sql: &str) -> Option<String> {
    with_postgres(|ctx| statement_rewrite(sql, ctx, &findings_of(sql, ctx)))
}

/// The statement's whole rewrite for PostgreSQL against the schema `ddl` creates.
fn rewrite_against(ddl: &str, sql: &str) -> Option<String> {
    against(ddl, |ctx| {
        statement_rewrite(sql, ctx, &findings_of(sql, ctx))
    })
}

/// `f` under the postgres profile with the schema `ddl` declares.
fn against<T>(ddl: &str, f: impl FnOnce(&crate::audit::Context) -> T) -> T {
    let schema = crate::schema::ddl::schema_from_ddl(ddl, "s.sql").schema;
    let profile = crate::profile::load_profile("postgres", None).expect("profile");
    let opts = crate::audit::AuditOptions::default();
    f(&crate::audit::Context {
        profile: &profile,
        schema: Some(&schema),
        options: &opts,
    })
}

#[test]
fn a_view_with_options_gets_the_expression_pass() {
    let ddl = "CREATE TABLE c (id INT PRIMARY KEY, is_active TINYINT(1) NOT NULL)";
    let sql = "CREATE ALGORITHM=MERGE VIEW v AS SELECT id FROM c WHERE is_active = 1";
    assert_eq!(
        rewrite_against(ddl, sql).as_deref(),
        Some("CREATE VIEW v AS SELECT id FROM c WHERE is_active = true")
    );
}

#[test]
fn pipes_become_or_between_conditions_only() {
    let or = with_postgres(|ctx| {
        rewrite(
            "SELECT id FROM customers WHERE country = 'DE' || country = 'FR'",
            ctx,
        )
    })
    .expect("a rewrite");
    assert_eq!(
        or.sql,
        "SELECT id FROM customers WHERE country = 'DE' OR country = 'FR'"
    );
    // Between values MySQL's OR casts the strings to numbers: no rewrite keeps that, and a
    // rewrite to OR would be rejected (a text is no boolean there).
    for sql in [
        "SELECT id, country || code AS cc FROM customers",
        "SELECT id, 'order-' || id AS label FROM orders",
    ] {
        let r = with_postgres(|ctx| rewrite(sql, ctx));
        assert!(
            r.as_ref().is_none_or(|r| !r.sql.contains(" OR ")),
            "{sql}: {r:?}"
        );
    }
}

#[test]
fn set_names_with_a_collation_sets_the_encoding() {
    assert_eq!(
        audit_rw("SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci").as_deref(),
        Some("SET client_encoding = 'UTF8'")
    );
    assert_eq!(audit_rw("SET NAMES utf8mb4 COLLATE latin1_bin"), None);
}

#[test]
fn divisors_become_null_if_zero_in_queries_only() {
    assert_eq!(
        audit_rw("SELECT MOD(5, 0) AS r").as_deref(),
        Some("SELECT MOD(5, NULLIF(0, 0)) AS r")
    );
    // A write fails in MySQL's strict mode too: no NULLIF there.
    assert!(audit_rw("UPDATE t SET a = b / 0").is_none_or(|s| !s.contains("NULLIF")));
}

#[test]
fn hex_and_bit_literals_by_context() {
    let full = |sql: &str| audit_rw(sql).unwrap_or_default();
    assert_eq!(full("SELECT 0x41 AS h"), "SELECT '\\x41'::bytea AS h");
    assert_eq!(full("SELECT X'4142' AS h"), "SELECT '\\x4142'::bytea AS h");
    assert_eq!(
        full("SELECT id FROM products WHERE sku = 0x5445412D303031"),
        "SELECT id FROM products WHERE sku = 'TEA-001'"
    );
    assert_eq!(
        full("SELECT 0b101 + 0 AS n, 0x123 + 1"),
        "SELECT 5 + 0 AS n, 291 + 1"
    );
    assert_eq!(full("SELECT b'1' | 2"), "SELECT 1 | 2");
    // A literal longer than any format width (a picture in a dump).
    let big = format!("SELECT 0x{}", "ab".repeat(40_000));
    assert!(full(&big).ends_with("'::bytea"));
    // Compared, but not printable text: not translated.
    assert_eq!(audit_rw("SELECT 1 FROM t WHERE a = 0x00"), None);
}

#[test]
fn pipes_joining_conditions_are_audited_as_or() {
    let ddl = "CREATE TABLE c (id INT PRIMARY KEY, country CHAR(2)) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;";
    let sql = "SELECT id FROM c WHERE country = 'DE' || country = 'FR'";
    assert_eq!(
        rewrite_against(ddl, sql).as_deref(),
        Some(
            "SELECT id FROM c WHERE rtrim(lower(country)) = rtrim(lower('DE')) OR rtrim(lower(country)) = rtrim(lower('FR'))"
        )
    );
    // The finding is the rejected OR of conditions, not the misread tree's comparison of a
    // boolean with 'FR' (the target rejects the chain of `=`).
    let rules = |sql: &str| -> Vec<String> {
        against(ddl, |ctx| {
            findings_of(sql, ctx).into_iter().map(|f| f.rule).collect()
        })
    };
    assert_eq!(rules(sql), ["LEX-007E"]);
    // One comparison of a `||`: runs on the target with another meaning, a warning.
    let one = rules("SELECT id FROM c WHERE country = 'DE' || 'FR'");
    assert!(!one.contains(&"LEX-007E".to_string()), "{one:?}");
}

#[test]
fn aliases_get_as() {
    assert_eq!(
        audit_rw("SELECT id, birth_year year, MONTH(created_at) month FROM customers").as_deref(),
        Some(
            "SELECT id, birth_year AS year, CAST(EXTRACT(MONTH FROM created_at) AS integer) AS month FROM customers"
        )
    );
}

#[test]
fn a_view_loses_its_definer() {
    assert_eq!(
        audit_rw(
            "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v` AS select `t`.`id` AS `id` from `t`"
        )
        .as_deref(),
        Some("CREATE VIEW \"v\" AS select \"t\".\"id\" AS \"id\" from \"t\"")
    );
}

#[test]
fn translates_create_table() {
    let out = audit_rw(
        "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT, code VARCHAR(20) NOT NULL, PRIMARY KEY (id), KEY idx_code (code)) ENGINE=InnoDB",
    )
    .unwrap_or_default();
    assert!(
        out.starts_with("DO $cutover_rw$ BEGIN\nCREATE TABLE t ("),
        "{out}"
    );
    assert!(out.contains("GENERATED BY DEFAULT AS IDENTITY"), "{out}");
    assert!(out.contains("CREATE INDEX idx_code ON t (code)"), "{out}");
    assert_eq!(
        audit_rw("CREATE TABLE t2 LIKE customers").as_deref(),
        Some("CREATE TABLE t2 (LIKE customers INCLUDING ALL)")
    );
    let tmp = audit_rw("CREATE TEMPORARY TABLE tt (id INT UNSIGNED NOT NULL PRIMARY KEY)")
        .unwrap_or_default();
    assert!(tmp.starts_with("CREATE TEMPORARY TABLE tt ("), "{tmp}");
    let ft = audit_rw(
        "CREATE TABLE f (id INT PRIMARY KEY, body TEXT NOT NULL, FULLTEXT KEY ft_body (body)) ENGINE=InnoDB",
    )
    .unwrap_or_default();
    assert!(
        ft.contains("CREATE INDEX ft_body ON f USING gin (to_tsvector('simple', body))"),
        "{ft}"
    );
    let sp = audit_rw(
        "CREATE TABLE s (id INT PRIMARY KEY, location POINT NOT NULL, SPATIAL KEY sp_location (location))",
    )
    .unwrap_or_default();
    assert!(
        sp.contains("CREATE INDEX sp_location ON s USING gist (location)"),
        "{sp}"
    );
    let generated = audit_rw(
        "CREATE TABLE g (id INT PRIMARY KEY, a VARCHAR(9) NOT NULL, b VARCHAR(9) NOT NULL, ab VARCHAR(19) GENERATED ALWAYS AS (CONCAT(a, ' ', b)) VIRTUAL)",
    )
    .unwrap_or_default();
    assert!(
        generated.contains(
            "GENERATED ALWAYS AS ((CAST(a AS text) || CAST(' ' AS text) || CAST(b AS text))) STORED"
        ),
        "{generated}"
    );
    let part = audit_rw(
        "CREATE TABLE p (id INT NOT NULL, d DATE NOT NULL, PRIMARY KEY (id, d)) PARTITION BY RANGE (YEAR(d)) \
         (PARTITION p2023 VALUES LESS THAN (2024), PARTITION pmax VALUES LESS THAN MAXVALUE)",
    )
    .unwrap_or_default();
    assert!(
        part.contains(") PARTITION BY RANGE (d);\nCREATE TABLE p_p2023 PARTITION OF p FOR VALUES FROM (MINVALUE) TO ('2024-01-01');\n\
         CREATE TABLE p_pmax PARTITION OF p FOR VALUES FROM ('2024-01-01') TO (MAXVALUE)"),
        "{part}"
    );
    // The partition column outside the primary key: the target refuses it, no rewrite.
    assert_eq!(
        audit_rw(
            "CREATE TABLE q (id INT NOT NULL PRIMARY KEY, d DATE NOT NULL) PARTITION BY RANGE (YEAR(d)) \
             (PARTITION pmax VALUES LESS THAN MAXVALUE)"
        ),
        None
    );
    // A zero-date default cannot be kept: no rewrite.
    assert_eq!(
        audit_rw("CREATE TABLE z (id INT PRIMARY KEY, d DATE NOT NULL DEFAULT '0000-00-00')"),
        None
    );
}

fn rw(sql: &str) -> (String, bool) {
    with_postgres(|ctx| {
        rewrite(sql, ctx)
            .map(|r| (r.sql, r.complete))
            .unwrap_or((sql.to_string(), true))
    })
}

#[test]
fn translates_the_mechanical_cases() {
    assert_eq!(
        rw("SELECT `id` FROM `t` WHERE name = \"x\" LIMIT 10, 5").0,
        "SELECT \"id\" FROM \"t\" WHERE name = 'x' LIMIT 5 OFFSET 10"
    );
    assert_eq!(rw("SELECT 'it\\'s' FROM t").0, "SELECT 'it''s' FROM t");
    assert_eq!(
        rw("SELECT IFNULL(a, IFNULL(b, 0)) FROM t").0,
        "SELECT COALESCE(a, COALESCE(b, 0)) FROM t"
    );
    assert_eq!(
        rw("SELECT * FROM t FORCE INDEX (k) WHERE a = 1 && b <=> 2 LOCK IN SHARE MODE").0,
        "SELECT * FROM t  WHERE a = 1 AND b IS NOT DISTINCT FROM 2 FOR SHARE"
    );
    assert_eq!(
        rw("SELECT d + INTERVAL 3 DAY, d - INTERVAL ? HOUR FROM t").0,
        "SELECT d + INTERVAL '3 DAY', d - (? * INTERVAL '1 HOUR') FROM t"
    );
    assert_eq!(rw("SELECT 1 FROM DUAL").0.trim_end(), "SELECT 1");
    assert_eq!(rw("SELECT 10--2").0, "SELECT 10- -2");
    assert!(rw("SELECT `a` FROM t").1);
}

#[test]
fn translates_casts_modifiers_and_session_statements() {
    let full = |sql: &str| audit_rw(sql).unwrap_or_default();
    assert_eq!(
        full(
            "SELECT CAST(a AS SIGNED), CAST(b AS UNSIGNED INTEGER), CAST(c AS CHAR), CAST(d AS CHAR(3)) FROM t"
        ),
        "SELECT CAST(a AS BIGINT), CAST(b AS NUMERIC(20)), CAST(c AS TEXT), CAST(d AS VARCHAR(3)) FROM t"
    );
    assert_eq!(
        full("SELECT CAST(x AS DATETIME), CAST(y AS DOUBLE), CAST(z AS BINARY) FROM t"),
        "SELECT CAST(x AS TIMESTAMP), CAST(y AS DOUBLE PRECISION), CAST(z AS BYTEA) FROM t"
    );
    assert_eq!(
        full("SELECT CONVERT(p, CHAR), CONVERT(t USING utf8mb4), CONVERT(q, DECIMAL(5,2)) FROM t"),
        "SELECT CAST(p AS TEXT), (t), CAST(q AS DECIMAL(5,2)) FROM t"
    );
    // A charset other than UTF-8: not translated.
    assert_eq!(audit_rw("SELECT CONVERT(t USING latin1) FROM t"), None);
    assert_eq!(
        full("SELECT SQL_NO_CACHE SQL_CALC_FOUND_ROWS id FROM a STRAIGHT_JOIN b ON a.x = b.x"),
        "SELECT id FROM a JOIN b ON a.x = b.x"
    );
    assert_eq!(
        full(
            "SELECT DATE_FORMAT(d, '%Y-%m-%d %H:%i'), DATE_FORMAT(d, '%d %M %Y, %W at %T') FROM t"
        ),
        "SELECT to_char(d, 'YYYY-MM-DD HH24:MI'), to_char(d, 'DD FMMonth YYYY, FMDay\" at \"HH24:MI:SS') FROM t"
    );
    assert_eq!(
        full(
            "SELECT STR_TO_DATE('03/05/2024 14:30', '%d/%m/%Y %H:%i'), STR_TO_DATE(s, '%Y%m%d') FROM t"
        ),
        "SELECT CAST(to_timestamp('03/05/2024 14:30', 'DD/MM/YYYY HH24:MI') AS timestamp), to_date(s, 'YYYYMMDD') FROM t"
    );
    // A week number has no to_char equivalent of MySQL's: no rewrite.
    assert_eq!(audit_rw("SELECT DATE_FORMAT(d, '%U') FROM t"), None);
    assert_eq!(
        full(
            "SELECT SUBSTRING_INDEX(e, '@', -1), TIMESTAMPDIFF(HOUR, a, b), ADDDATE(d, 7), SUBDATE(d, INTERVAL 1 DAY) FROM t"
        ),
        "SELECT split_part(e, '@', -1), CAST(trunc(EXTRACT(EPOCH FROM (CAST(b AS timestamp) - CAST(a AS timestamp))) / 3600) AS bigint), (d + (7) * INTERVAL '1 day'), (d - INTERVAL '1 DAY') FROM t"
    );
    assert_eq!(audit_rw("SELECT SUBSTRING_INDEX(e, '.', 2) FROM t"), None);
    assert_eq!(
        full("SELECT CONVERT_TZ(d, '+00:00', '+02:00') FROM t"),
        "SELECT (CASE WHEN (CAST(d AS timestamp) AT TIME ZONE INTERVAL '+00:00' HOUR TO MINUTE) \
         BETWEEN TIMESTAMPTZ '1970-01-01 00:00:01+00' AND TIMESTAMPTZ '2038-01-19 03:14:07+00' \
         THEN ((CAST(d AS timestamp) AT TIME ZONE INTERVAL '+00:00' HOUR TO MINUTE) AT TIME ZONE \
         INTERVAL '+02:00' HOUR TO MINUTE) ELSE CAST(d AS timestamp) END) FROM t"
    );
    assert_eq!(
        audit_rw("SELECT CONVERT_TZ(d, 'UTC', 'Europe/Paris') FROM t"),
        None
    );
    assert_eq!(
        full("SELECT 1 FROM t WHERE a = 'TEA' '-001' AND b = _utf8mb4'x'"),
        "SELECT 1 FROM t WHERE a = 'TEA'\n'-001' AND b = 'x'"
    );
    assert_eq!(audit_rw("SELECT _latin1'x'"), None);
    assert_eq!(
        full("SET time_zone = '+02:00'"),
        "SET TIME ZONE INTERVAL '+02:00' HOUR TO MINUTE"
    );
    assert_eq!(
        full("SET time_zone = 'Europe/Paris'"),
        "SET TIME ZONE 'Europe/Paris'"
    );
    assert_eq!(full("SET NAMES utf8mb4"), "SET client_encoding = 'UTF8'");
    assert_eq!(
        full("SET CHARACTER SET utf8"),
        "SET client_encoding = 'UTF8'"
    );
    assert_eq!(audit_rw("SET NAMES latin1"), None);
    assert_eq!(
        full("START TRANSACTION WITH CONSISTENT SNAPSHOT"),
        "START TRANSACTION ISOLATION LEVEL REPEATABLE READ"
    );
}

#[test]
fn translates_session_isolation() {
    for sql in [
        "SET SESSION tx_isolation='REPEATABLE-READ'",
        "SET transaction_isolation = 'REPEATABLE-READ';",
        "SET @@session.tx_isolation='REPEATABLE-READ'",
    ] {
        let (out, complete) = rw(sql);
        assert!(
            out.starts_with(
                "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ"
            ),
            "{sql} → {out}"
        );
        assert!(complete, "{sql}");
    }
    // Several assignments, or the server's default: not translated (no rewrite, or one that
    // leaves an error standing).
    let translated = |sql: &str| with_postgres(|ctx| rewrite(sql, ctx).is_some_and(|r| r.complete));
    assert!(!translated(
        "SET tx_isolation='READ-COMMITTED', sql_mode=''"
    ));
    assert!(!translated("SET GLOBAL tx_isolation='READ-COMMITTED'"));
    // No session switch for foreign keys: no rewrite, the finding says what to do instead.
    assert!(!translated("SET FOREIGN_KEY_CHECKS=0"));
}

#[test]
fn translates_session_statements_the_target_has_an_answer_for() {
    let full = |sql: &str| audit_rw(sql).unwrap_or_default();
    assert_eq!(
        full("SET sql_mode='STRICT_TRANS_TABLES,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO'"),
        "SET mysql.sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO'"
    );
    // A mode that changes how statements read, or relaxes a check: not translated.
    assert_eq!(
        audit_rw("SET SESSION sql_mode = 'TRADITIONAL,ANSI_QUOTES'"),
        None
    );
    assert_eq!(audit_rw("SET sql_mode = ''"), None);
    assert_eq!(audit_rw("SET sql_mode = '"), None);
    assert_eq!(full("SET autocommit=1"), "SET mysql.autocommit = 1");
    assert_eq!(audit_rw("SET autocommit=0"), None);
    assert_eq!(
        full("SET @@session.wait_timeout = 28800"),
        "DO $cutover_rw$ BEGIN PERFORM set_config('idle_session_timeout', '28800s', false); \
         PERFORM set_config('idle_in_transaction_session_timeout', '28800s', false); END $cutover_rw$"
    );
    assert_eq!(
        full("DO SLEEP(0), 1 + 1"),
        "DO $cutover_rw$ BEGIN PERFORM CAST(pg_sleep(0) IS NULL AS integer); PERFORM 1 + 1; END $cutover_rw$"
    );
    assert_eq!(
        full("UNLOCK TABLES"),
        "DO $cutover_rw$ BEGIN END $cutover_rw$"
    );
    assert_eq!(
        full("SHOW TABLES LIKE 'ord%'"),
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() \
         AND table_type IN ('BASE TABLE', 'VIEW') AND table_name LIKE 'ord%' ORDER BY table_name COLLATE \"C\""
    );
    assert_eq!(audit_rw("SHOW TABLES FROM other_db"), None);
    assert_eq!(audit_rw("LOCK TABLES kv WRITE"), None);
    assert_eq!(full("SET @x = 5"), "SET mysql_uservar.x = '5'");
    assert_eq!(
        full("SET @Limit_Total := -20;"),
        "SET mysql_uservar.limit_total = '-20';"
    );
    assert_eq!(audit_rw("SET @x = @y + 1"), None);
    assert_eq!(audit_rw("SELECT @x"), None);
    assert_eq!(
        full("SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id DESC"),
        "SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id ORDER BY customer_id DESC"
    );
    assert_eq!(
        full("SELECT a, b, COUNT(*) FROM t GROUP BY a DESC, b LIMIT 3"),
        "SELECT a, b, COUNT(*) FROM t GROUP BY a, b ORDER BY a DESC, b LIMIT 3"
    );
    assert_eq!(
        audit_rw("SELECT a FROM t GROUP BY a DESC HAVING COUNT(*) > 1"),
        None
    );
    assert_eq!(full("SELECT @@autocommit"), "SELECT 1");
    assert_eq!(audit_rw("SELECT @@version_comment LIMIT 1"), None);
}

#[test]
fn quotes_names_declared_in_mixed_case() {
    let ddl = "CREATE TABLE AuditTrail (Id INT PRIMARY KEY, EventName VARCHAR(40));\n\
         CREATE TABLE t (id INT PRIMARY KEY, eventname VARCHAR(40));";
    let rw = |sql: &str| rewrite_against(ddl, sql);
    assert_eq!(
        rw("SELECT EventName FROM AuditTrail ORDER BY Id").as_deref(),
        Some("SELECT \"EventName\" FROM \"AuditTrail\" ORDER BY \"Id\"")
    );
    assert_eq!(
        rw("SELECT eventname FROM `AuditTrail` ORDER BY id").as_deref(),
        Some("SELECT \"EventName\" FROM \"AuditTrail\" ORDER BY \"Id\"")
    );
    // `id` also names t's column: the words cannot be told apart, so nothing is quoted.
    assert_eq!(
        rw("SELECT a.id FROM AuditTrail a JOIN t ON t.id = a.id"),
        None
    );
}

#[test]
fn spells_out_strings_and_enums_meeting_numbers() {
    let ddl = "CREATE TABLE c (id INT PRIMARY KEY, name VARCHAR(40), hits INT, seen DATE, \
         sku VARCHAR(9) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, at6 DATETIME(6), ok TINYINT(1), \
         tier ENUM('free','pro') NOT NULL) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;";
    let rw = |sql: &str| rewrite_against(ddl, sql);
    let number = |x: &str| {
        format!(
            "(CASE WHEN {x} IS NULL THEN NULL ELSE COALESCE(CAST(SUBSTRING(CAST({x} AS TEXT) FROM \
             '^[[:space:]]*([-+]?(?:[0-9]+[.]?[0-9]*|[.][0-9]+)(?:[eE][-+]?[0-9]+)?)') AS DOUBLE PRECISION), 0) END)"
        )
    };
    assert_eq!(
        rw("SELECT id FROM c WHERE hits = '2abc'").as_deref(),
        Some("SELECT id FROM c WHERE hits = 2")
    );
    assert_eq!(
        rw("SELECT id FROM c WHERE name = 0"),
        Some(format!("SELECT id FROM c WHERE {} = 0", number("name")))
    );
    assert_eq!(
        rw("SELECT SUM(name) FROM c"),
        Some(format!("SELECT SUM({}) FROM c", number("name")))
    );
    assert_eq!(
        rw("SELECT '1abc' + 1 AS n, '3' * '4' AS m").as_deref(),
        Some(
            "SELECT CAST(1 AS DOUBLE PRECISION) + 1 AS n, \
             CAST(3 AS DOUBLE PRECISION) * CAST(4 AS DOUBLE PRECISION) AS m"
        )
    );
    assert_eq!(
        rw("SELECT id FROM c WHERE tier = 2").as_deref(),
        Some(
            "SELECT id FROM c WHERE (CASE CAST(tier AS TEXT) WHEN 'free' THEN 1 WHEN 'pro' THEN 2 END) = 2"
        )
    );
    assert_eq!(
        rw("SELECT id FROM c WHERE tier = 'PRO'").as_deref(),
        Some("SELECT id FROM c WHERE rtrim(lower(CAST(tier AS TEXT))) = rtrim(lower('PRO'))")
    );
    assert_eq!(
        rw("SELECT hits IS TRUE AS t FROM c WHERE NOT hits").as_deref(),
        Some("SELECT (hits <> 0) IS TRUE AS t FROM c WHERE NOT (hits <> 0)")
    );
    assert_eq!(
        rw("SELECT id FROM c WHERE name COLLATE utf8mb4_bin = 'Bob'").as_deref(),
        Some("SELECT id FROM c WHERE rtrim(name) = rtrim('Bob')")
    );
    assert_eq!(
        rw("SELECT id FROM c WHERE seen > '0000-00-00' AND seen <> '0000-00-00 00:00:00'")
            .as_deref(),
        Some("SELECT id FROM c WHERE seen > '-infinity' AND seen <> '-infinity'")
    );
    // `>=` would take MySQL's zero dates, NULL here: not translated.
    assert_eq!(rw("SELECT id FROM c WHERE seen >= '0000-00-00'"), None);
    assert_eq!(
        rw("SELECT id FROM c WHERE name = BINARY 'bob'").as_deref(),
        Some("SELECT id FROM c WHERE name = 'bob'")
    );
    assert_eq!(
        rw("SELECT id FROM c WHERE hits OR name IS NULL").as_deref(),
        Some("SELECT id FROM c WHERE (hits <> 0) OR name IS NULL")
    );
    assert_eq!(
        rw("SELECT ELT(FIELD(tier, 'free', 'pro'), 'F', 'P') AS t FROM c ORDER BY FIELD(name, 'b', 'a')")
            .as_deref(),
        Some(
            "SELECT (CASE CAST((CASE WHEN tier = 'free' THEN 1 WHEN tier = 'pro' THEN 2 ELSE 0 END) AS BIGINT) \
             WHEN 1 THEN 'F' WHEN 2 THEN 'P' END) AS t FROM c ORDER BY (CASE WHEN rtrim(lower(name)) = rtrim(lower('b')) \
             THEN 1 WHEN rtrim(lower(name)) = rtrim(lower('a')) THEN 2 ELSE 0 END)"
        )
    );
    assert_eq!(
        rw("SELECT HEX(name), UNHEX(HEX(name)), HEX(hits) FROM c").as_deref(),
        Some(
            "SELECT upper(encode(convert_to(CAST(name AS TEXT), 'UTF8'), 'hex')), \
             decode(upper(encode(convert_to(CAST(name AS TEXT), 'UTF8'), 'hex')), 'hex'), \
             upper(to_hex(CAST(hits AS BIGINT))) FROM c"
        )
    );
    assert_eq!(rw("SELECT UNHEX(name) FROM c"), None);
    // Under name's `_ci` collation (PAD SPACE): upper case, as `*_general_ci` weighs letters.
    assert_eq!(
        rw("SELECT STRCMP(name, 'Carol') FROM c").as_deref(),
        Some(
            "SELECT (CASE WHEN rtrim(upper(name)) < rtrim(upper('Carol')) COLLATE ucs_basic THEN -1 \
             WHEN rtrim(upper(name)) > rtrim(upper('Carol')) COLLATE ucs_basic THEN 1 \
             WHEN rtrim(upper(name)) = rtrim(upper('Carol')) THEN 0 END) FROM c"
        )
    );
    assert_eq!(
        rw("SELECT id FROM c WHERE sku = 'A1 '").as_deref(),
        Some("SELECT id FROM c WHERE rtrim(sku) = rtrim('A1 ')")
    );
    assert_eq!(
        rw("SELECT seen + 1 AS d FROM c").as_deref(),
        Some("SELECT CAST(to_char(seen, 'YYYYMMDD') AS BIGINT) + 1 AS d FROM c")
    );
    assert_eq!(
        rw("SELECT id, name || hits AS x, 'a' || id AS y FROM c").as_deref(),
        Some(&*format!(
            "SELECT id, CAST(({} <> 0) OR (hits <> 0) AS INTEGER) AS x, CAST(false OR (id <> 0) AS INTEGER) AS y FROM c",
            number("name")
        ))
    );
    assert_eq!(
        rw("SELECT CONCAT('at ', at6, ' ', ok) FROM c").as_deref(),
        Some(
            "SELECT (CAST('at ' AS text) || CAST(to_char(at6, 'YYYY-MM-DD HH24:MI:SS.US') AS text) || CAST(' ' AS text) || CAST(CAST(ok AS INTEGER) AS text)) FROM c"
        )
    );
    // A value that is none of the ENUM's members: not translated.
    assert_eq!(rw("SELECT FIELD(tier, 'gold') FROM c"), None);
    // An operand whose type the schema does not give: not translated.
    assert_eq!(rw("SELECT id FROM c WHERE x.y = '2abc'"), None);
}

#[test]
fn says_when_it_is_not_enough() {
    // ON DUPLICATE KEY UPDATE needs the key: not mechanical.
    let (_, complete) = rw("INSERT INTO `t` (a) VALUES (1) ON DUPLICATE KEY UPDATE a = 2");
    assert!(!complete);
}

#[test]
fn leaves_strings_and_comments_alone() {
    assert_eq!(
        rw("SELECT 'a && b', 'LIMIT 1, 2' FROM t /* `x` */").0,
        "SELECT 'a && b', 'LIMIT 1, 2' FROM t /* `x` */"
    );
}
