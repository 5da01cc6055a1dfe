//! Keyword-level detectors on tokens: statement forms the target does not have (INSERT IGNORE,
//! ON DUPLICATE KEY UPDATE, LIMIT a, b, SHOW, MySQL DDL clauses, session statements). They do not need
//! a parse, so they also cover what sqlparser rejects; [`fallback_hits`] adds the function and type
//! checks that the AST stage does when a parse succeeds.

mod ddl;
mod functions;
mod set;
mod stream;

pub use functions::{cast_type_hit, fallback_hits, function_hit};

use super::{Context, Hit};
use crate::sql::lexer::TokenKind;
use stream::Stream;

pub fn hits(sql: &str, _ctx: &Context) -> Vec<Hit> {
    let s = Stream::new(sql);
    let mut h = Vec::new();
    if s.len() == 0 {
        return h;
    }
    // Skip leading parentheses ((SELECT …) UNION …).
    let f = (0..s.len()).find(|&i| s.w(i) != "(").unwrap_or(0);
    let first = s.w(f).to_string();

    // Anywhere in the statement.
    for i in 0..s.len() {
        let w = s.w(i);
        match w {
            "USE" | "FORCE" | "IGNORE" if (s.is_word(i + 1, "INDEX") || s.is_word(i + 1, "KEY")) && i > f => {
                h.push(Hit::new("DML-009").at(s.at(i)).detail(format!("{w} {}", s.w(i + 1))));
            }
            "STRAIGHT_JOIN" | "SQL_CALC_FOUND_ROWS" | "SQL_NO_CACHE" | "SQL_CACHE" | "HIGH_PRIORITY" | "SQL_SMALL_RESULT" | "SQL_BIG_RESULT" | "SQL_BUFFER_RESULT" => {
                h.push(Hit::new("DML-010").at(s.at(i)).detail(w.to_string()));
            }
            "WITH" if s.is_word(i + 1, "ROLLUP") => h.push(Hit::new("DML-011").at(s.at(i))),
            "INTO" if s.is_word(i + 1, "OUTFILE") || s.is_word(i + 1, "DUMPFILE") => h.push(Hit::new("DML-013").at(s.at(i))),
            "LOCK" if s.is_word(i + 1, "IN") && s.is_word(i + 2, "SHARE") => h.push(Hit::new("DML-019").at(s.at(i))),
            "WAIT" if i >= 2 && s.is_word(i - 1, "UPDATE") && s.is_word(i - 2, "FOR") => h.push(Hit::new("DML-025").at(s.at(i))),
            "LIMIT"
                // LIMIT a, b
                if s.toks.get(i + 2).is_some_and(|t| &sql[t.t.start..t.t.end] == ",") && s.depth.get(i + 2) == s.depth.get(i) => {
                    let (a, b) = (s.toks.get(i + 1).map(|t| &sql[t.t.start..t.t.end]), s.toks.get(i + 3).map(|t| &sql[t.t.start..t.t.end]));
                    let rw = match (a, b) {
                        (Some(a), Some(b)) => format!("LIMIT {b} OFFSET {a}"),
                        _ => "LIMIT count OFFSET offset".to_string(),
                    };
                    h.push(Hit::new("DML-001").at(s.at(i)).rewrite(rw));
                }
            "INTERVAL" => {
                // INTERVAL 3 DAY (unquoted amount), not INTERVAL '3' DAY.
                if let Some(n) = s.toks.get(i + 1) {
                    let unit = s.w(i + 2);
                    if n.t.kind != TokenKind::String && is_interval_unit(unit) {
                        h.push(Hit::new("FN-INTERVAL").at(s.at(i)).detail(format!("INTERVAL {} {unit}", &sql[n.t.start..n.t.end])).rewrite(format!("INTERVAL '{} {}'", sql[n.t.start..n.t.end].trim_matches('\''), unit.to_lowercase())));
                    }
                }
            }
            "MATCH" if s.toks.get(i + 1).is_some_and(|t| &sql[t.t.start..t.t.end] == "(") && s.find("AGAINST", i, s.depth[i]).is_some() => {
                h.push(Hit::new("FN-MISSING").at(s.at(i)).detail("MATCH … AGAINST").rewrite("to_tsvector(col) @@ plainto_tsquery('…') with a GIN index"));
            }
            "DUPLICATE" if i >= 1 && s.is_word(i - 1, "ON") && s.is_word(i + 1, "KEY") => {
                h.push(Hit::new("DML-002").at(s.at(i - 1)));
            }
            "PARTITION" if s.is_word(i + 1, "BY") && s.depth[i] == 0 => h.push(Hit::new("DDL-015").at(s.at(i))),
            _ => {}
        }
        // GROUP BY … ASC|DESC
        if w == "GROUP" && s.is_word(i + 1, "BY") {
            let d = s.depth[i];
            let mut j = i + 2;
            while j < s.len()
                && !(s.depth[j] == d
                    && matches!(
                        s.w(j),
                        "HAVING"
                            | "ORDER"
                            | "LIMIT"
                            | "WITH"
                            | "UNION"
                            | "WINDOW"
                            | "FOR"
                            | "LOCK"
                            | ")"
                    ))
            {
                if s.depth[j] == d && (s.is_word(j, "ASC") || s.is_word(j, "DESC")) {
                    h.push(Hit::new("DML-012").at(s.at(j)));
                    break;
                }
                j += 1;
            }
        }
    }

    match first.as_str() {
        "INSERT" => {
            for i in f + 1..s.len().min(f + 5) {
                match s.w(i) {
                    "IGNORE" => h.push(Hit::new("DML-004").at(s.at(i))),
                    "LOW_PRIORITY" | "DELAYED" | "HIGH_PRIORITY" => {
                        h.push(Hit::new("DML-010").at(s.at(i)).detail(s.w(i).to_string()))
                    }
                    _ => {}
                }
            }
            // INSERT [INTO] t [PARTITION (…)] SET …
            let mut i = f + 1;
            while i < s.len()
                && matches!(
                    s.w(i),
                    "IGNORE" | "LOW_PRIORITY" | "DELAYED" | "HIGH_PRIORITY" | "INTO"
                )
            {
                i += 1;
            }
            i += 1; // table name
            while s
                .toks
                .get(i)
                .is_some_and(|t| &sql[t.t.start..t.t.end] == ".")
            {
                i += 2;
            }
            if s.is_word(i, "PARTITION") {
                i += 1;
                while i < s.len()
                    && !(s.depth[i] == 0 && sql[s.toks[i].t.start..s.toks[i].t.end] == *")")
                {
                    i += 1;
                }
                i += 1;
            }
            if s.is_word(i, "SET") {
                h.push(Hit::new("DML-005").at(s.at(i)));
            }
        }
        "REPLACE" => h.push(Hit::new("DML-003").at(s.at(f))),
        "UPDATE" => {
            let set = s.find("SET", f, 0).unwrap_or(s.len());
            for i in f + 1..set {
                match s.w(i) {
                    "JOIN" | "," if s.depth[i] == 0 => {
                        h.push(Hit::new("DML-006").at(s.at(i)));
                        break;
                    }
                    "IGNORE" => h.push(Hit::new("DML-004").at(s.at(i)).detail("UPDATE IGNORE")),
                    "LOW_PRIORITY" => {
                        h.push(Hit::new("DML-010").at(s.at(i)).detail("LOW_PRIORITY"))
                    }
                    _ => {}
                }
            }
            if let Some(i) = s.find("ORDER", set, 0).or_else(|| s.find("LIMIT", set, 0)) {
                h.push(Hit::new("DML-008").at(s.at(i)));
            }
        }
        "DELETE" => {
            let from = s.find("FROM", f, 0);
            if let Some(fr) = from {
                let between: Vec<usize> = (f + 1..fr)
                    .filter(|&i| !matches!(s.w(i), "LOW_PRIORITY" | "QUICK" | "IGNORE"))
                    .collect();
                if !between.is_empty() {
                    h.push(Hit::new("DML-007").at(s.at(between[0])));
                }
                if let Some(u) = s.find("USING", fr, 0) {
                    h.push(Hit::new("DML-007").at(s.at(u)));
                }
                if let Some(i) = s.find("ORDER", fr, 0).or_else(|| s.find("LIMIT", fr, 0)) {
                    h.push(Hit::new("DML-008").at(s.at(i)));
                }
                if between.is_empty()
                    && (fr..s.len()).any(|i| s.depth[i] == 0 && s.is_word(i, "JOIN"))
                    && s.find("USING", fr, 0).is_none()
                {
                    h.push(Hit::new("DML-007").at(s.at(fr)));
                }
            }
            for i in f + 1..s.len().min(f + 4) {
                match s.w(i) {
                    "IGNORE" => h.push(Hit::new("DML-004").at(s.at(i)).detail("DELETE IGNORE")),
                    "LOW_PRIORITY" | "QUICK" => {
                        h.push(Hit::new("DML-010").at(s.at(i)).detail(s.w(i).to_string()))
                    }
                    _ => {}
                }
            }
        }
        "SHOW" => h.push(
            Hit::new(show_rule(&s, f))
                .at(s.at(f))
                .detail(format!("SHOW {}", s.w(f + 1))),
        ),
        "DESCRIBE" | "DESC" => h.push(Hit::new(show_rule(&s, f)).at(s.at(f)).detail(first.clone())),
        "EXPLAIN"
            if s.toks
                .get(f + 1)
                .is_some_and(|t| matches!(t.t.kind, TokenKind::Word | TokenKind::QuotedIdent))
                && !matches!(
                    s.w(f + 1),
                    "SELECT"
                        | "INSERT"
                        | "UPDATE"
                        | "DELETE"
                        | "WITH"
                        | "ANALYZE"
                        | "VERBOSE"
                        | "REPLACE"
                        | "FORMAT"
                        | "EXTENDED"
                        | "PARTITIONS"
                ) =>
        {
            h.push(Hit::new("DML-022").at(s.at(f)).detail("EXPLAIN table"));
        }
        "LOAD" => h.push(Hit::new("DML-013").at(s.at(f))),
        "SET" => set::set_statement(&s, f, &mut h),
        "START"
            if !matches!(s.w(f + 1), "SLAVE" | "REPLICA")
                && s.find_seq(&["WITH", "CONSISTENT", "SNAPSHOT"], f).is_some() =>
        {
            h.push(Hit::new("TXN-007").at(s.at(f)));
        }
        "LOCK" | "UNLOCK"
            if s.is_word(f + 1, "TABLES") || s.is_word(f + 1, "TABLE") && first == "UNLOCK" =>
        {
            h.push(Hit::new("TXN-003").at(s.at(f)))
        }
        "LOCK" if s.is_word(f + 1, "TABLE") && s.find("IN", f, 0).is_none() => {
            h.push(Hit::new("TXN-003").at(s.at(f)))
        }
        "XA" => h.push(Hit::new("TXN-005").at(s.at(f))),
        "USE" => h.push(Hit::new("CONN-005").at(s.at(f))),
        "FLUSH" | "KILL" | "DO" | "HANDLER" | "OPTIMIZE" | "REPAIR" | "CHECKSUM" | "PURGE"
        | "INSTALL" | "UNINSTALL" | "CACHE" | "BINLOG" | "HELP" => {
            h.push(Hit::new("ADM-001").at(s.at(f)).detail(first.clone()))
        }
        "CHECK" | "ANALYZE" if s.is_word(f + 1, "TABLE") => h.push(
            Hit::new("ADM-001")
                .at(s.at(f))
                .detail(format!("{first} TABLE")),
        ),
        "RESET" if matches!(s.w(f + 1), "QUERY" | "MASTER" | "SLAVE" | "REPLICA") => h.push(
            Hit::new("ADM-001")
                .at(s.at(f))
                .detail(format!("RESET {}", s.w(f + 1))),
        ),
        "CHANGE" if matches!(s.w(f + 1), "MASTER" | "REPLICATION") => {
            h.push(Hit::new("ADM-001").at(s.at(f)).detail("CHANGE MASTER"))
        }
        "STOP" | "START" if matches!(s.w(f + 1), "SLAVE" | "REPLICA") => h.push(
            Hit::new("ADM-001")
                .at(s.at(f))
                .detail(format!("{first} SLAVE")),
        ),
        "RENAME" if s.is_word(f + 1, "TABLE") => h.push(Hit::new("DDL-013").at(s.at(f))),
        "DROP" => {
            if s.is_word(f + 1, "INDEX") && s.find("ON", f + 2, 0).is_some() {
                h.push(Hit::new("DDL-014").at(s.at(f)));
            }
            if s.is_word(f + 1, "DATABASE") && s.is_word(f + 2, "IF") {
                // DROP DATABASE IF EXISTS exists on both.
            }
        }
        "CREATE" => ddl::create_statement(&s, f, &mut h),
        "ALTER"
            if s.is_word(f + 1, "TABLE")
                || (s.is_word(f + 1, "ONLINE") || s.is_word(f + 1, "IGNORE")) =>
        {
            ddl::alter_table(&s, f, &mut h)
        }
        "ALTER"
            if matches!(s.w(f + 1), "DATABASE" | "SCHEMA")
                && (s.find("CHARACTER", f, 0).is_some()
                    || s.find("CHARSET", f, 0).is_some()
                    || s.find("COLLATE", f, 0).is_some()) =>
        {
            h.push(Hit::new("DDL-016").at(s.at(f)))
        }
        _ => {}
    }
    h
}

/// The rule for a SHOW or DESCRIBE statement starting at `f`: DML-022S for the forms KaiwuDB (after
/// CockroachDB) also has, exactly as MySQL writes them: `SHOW TABLES [FROM db]`, `SHOW DATABASES`,
/// `SHOW SCHEMAS`, `SHOW COLUMNS FROM t`, `SHOW INDEX|INDEXES|KEYS FROM t`, `SHOW CREATE
/// [TABLE|VIEW|DATABASE] name`, `DESCRIBE t`; DML-022 for every other (`SHOW VARIABLES`, `SHOW
/// FULL …`, `… LIKE 'x'`, `DESC t`).
fn show_rule(s: &Stream, f: usize) -> &'static str {
    // A possibly qualified name from `i`; the index after it.
    let name = |i: usize| -> Option<usize> {
        let is_name = |k: usize| {
            s.toks
                .get(k)
                .is_some_and(|t| matches!(t.t.kind, TokenKind::Word | TokenKind::QuotedIdent))
        };
        if !is_name(i) {
            return None;
        }
        if s.w(i + 1) == "." && is_name(i + 2) {
            Some(i + 3)
        } else {
            Some(i + 1)
        }
    };
    // Nothing but `;` from `i` on.
    let ends = |i: usize| (i..s.len()).all(|k| s.w(k) == ";");
    let shared = match s.w(f) {
        "DESCRIBE" => name(f + 1).is_some_and(ends),
        "SHOW" => match s.w(f + 1) {
            "DATABASES" | "SCHEMAS" => ends(f + 2),
            "TABLES" => ends(f + 2) || (s.is_word(f + 2, "FROM") && name(f + 3).is_some_and(ends)),
            "COLUMNS" | "INDEX" | "INDEXES" | "KEYS" => {
                s.is_word(f + 2, "FROM") && name(f + 3).is_some_and(ends)
            }
            "CREATE" => {
                let at = if matches!(s.w(f + 2), "TABLE" | "VIEW" | "DATABASE") {
                    f + 3
                } else {
                    f + 2
                };
                name(at).is_some_and(ends)
            }
            _ => false,
        },
        _ => false,
    };
    if shared { "DML-022S" } else { "DML-022" }
}

fn is_interval_unit(u: &str) -> bool {
    matches!(
        u,
        "MICROSECOND"
            | "SECOND"
            | "MINUTE"
            | "HOUR"
            | "DAY"
            | "WEEK"
            | "MONTH"
            | "QUARTER"
            | "YEAR"
            | "SECOND_MICROSECOND"
            | "MINUTE_MICROSECOND"
            | "MINUTE_SECOND"
            | "HOUR_MICROSECOND"
            | "HOUR_SECOND"
            | "HOUR_MINUTE"
            | "DAY_MICROSECOND"
            | "DAY_SECOND"
            | "DAY_MINUTE"
            | "DAY_HOUR"
            | "YEAR_MONTH"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::with_postgres;

    fn rules(sql: &str) -> Vec<String> {
        with_postgres(|ctx| hits(sql, ctx).into_iter().map(|h| h.rule).collect())
    }

    #[test]
    fn statement_forms() {
        assert_eq!(rules("SELECT * FROM t LIMIT 10, 20"), vec!["DML-001"]);
        assert_eq!(
            rules("SELECT * FROM t LIMIT 10 OFFSET 20"),
            Vec::<String>::new()
        );
        assert_eq!(rules("INSERT IGNORE INTO t VALUES (1)"), vec!["DML-004"]);
        assert_eq!(rules("INSERT INTO t SET a = 1"), vec!["DML-005"]);
        assert_eq!(
            rules("INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE a = 2"),
            vec!["DML-002"]
        );
        assert_eq!(rules("REPLACE INTO t VALUES (1)"), vec!["DML-003"]);
        assert_eq!(
            rules("UPDATE a JOIN b ON a.id = b.id SET a.x = 1"),
            vec!["DML-006"]
        );
        assert_eq!(
            rules("UPDATE a SET x = 1 ORDER BY id LIMIT 1"),
            vec!["DML-008"]
        );
        assert_eq!(
            rules("DELETE a FROM a JOIN b ON a.id = b.id"),
            vec!["DML-007"]
        );
        assert_eq!(
            rules("SELECT * FROM t USE INDEX (i) WHERE a = 1"),
            vec!["DML-009"]
        );
        assert_eq!(
            rules("SELECT SQL_CALC_FOUND_ROWS * FROM t"),
            vec!["DML-010"]
        );
        assert_eq!(
            rules("SELECT /*!40001 SQL_NO_CACHE */ * FROM t"),
            Vec::<String>::new()
        );
        assert_eq!(
            rules("SELECT a, COUNT(*) FROM t GROUP BY a WITH ROLLUP"),
            vec!["DML-011"]
        );
        assert_eq!(rules("SELECT a FROM t GROUP BY a DESC"), vec!["DML-012"]);
        assert_eq!(rules("SELECT * FROM t LOCK IN SHARE MODE"), vec!["DML-019"]);
        assert_eq!(rules("SHOW TABLES"), vec!["DML-022S"]);
        for shared in [
            "SHOW TABLES;",
            "SHOW TABLES FROM shop",
            "SHOW DATABASES",
            "SHOW COLUMNS FROM shop.orders",
            "SHOW INDEX FROM orders",
            "SHOW KEYS FROM orders",
            "SHOW CREATE TABLE orders",
            "SHOW CREATE VIEW v",
            "SHOW CREATE DATABASE shop",
            "DESCRIBE orders",
        ] {
            assert_eq!(rules(shared), vec!["DML-022S"], "{shared}");
        }
        for mysql_only in [
            "SHOW VARIABLES LIKE 'version'",
            "SHOW STATUS",
            "SHOW FULL PROCESSLIST",
            "SHOW FULL TABLES",
            "SHOW TABLES LIKE 'o%'",
            "SHOW TABLE STATUS",
            "SHOW COLUMNS FROM orders LIKE 'id'",
            "SHOW FULL COLUMNS FROM orders",
            "SHOW CREATE DATABASE IF NOT EXISTS shop",
            "DESC orders",
            "DESCRIBE orders id",
            "EXPLAIN orders",
        ] {
            assert_eq!(rules(mysql_only), vec!["DML-022"], "{mysql_only}");
        }
        assert_eq!(
            rules("CREATE DATABASE IF NOT EXISTS shop"),
            vec!["DDL-016N"]
        );
        assert_eq!(
            rules("CREATE DATABASE shop DEFAULT CHARACTER SET utf8mb4"),
            vec!["DDL-016"]
        );
        assert_eq!(
            rules("CREATE TABLE t (a INT) COMMENT='x'"),
            vec!["DDL-002C"]
        );
        assert_eq!(
            rules("CREATE TABLE t (a INT) COMMENT='x' ENGINE=InnoDB"),
            vec!["DDL-002C", "DDL-002"]
        );
        assert_eq!(rules("SET autocommit = 0"), vec!["TXN-002"]);
        assert_eq!(rules("SET NAMES utf8mb4"), vec!["CONN-003"]);
        assert_eq!(rules("SET NAMES utf8"), Vec::<String>::new());
        assert_eq!(rules("SET SESSION sql_mode = ''"), vec!["CONN-002"]);
        assert_eq!(
            rules("SET TRANSACTION ISOLATION LEVEL READ COMMITTED"),
            Vec::<String>::new()
        );
        assert_eq!(
            rules("START TRANSACTION WITH CONSISTENT SNAPSHOT"),
            vec!["TXN-007"]
        );
        assert_eq!(rules("LOCK TABLES t WRITE"), vec!["TXN-003"]);
        assert_eq!(
            rules("CREATE TABLE t (a INT) ENGINE=InnoDB"),
            vec!["DDL-002"]
        );
        assert_eq!(rules("CREATE TABLE t LIKE u"), vec!["DDL-024"]);
        assert_eq!(
            rules("CREATE INDEX i ON t (name(10)) USING BTREE"),
            vec!["DDL-005", "DDL-005B"]
        );
        assert_eq!(
            rules("ALTER TABLE t ADD COLUMN x INT AFTER y, MODIFY z INT"),
            vec!["DDL-012", "DDL-012"]
        );
        assert_eq!(
            rules("ALTER TABLE t ADD COLUMN x INT"),
            Vec::<String>::new()
        );
        assert_eq!(rules("DROP INDEX i ON t"), vec!["DDL-014"]);
        assert_eq!(rules("RENAME TABLE a TO b"), vec!["DDL-013"]);
        assert_eq!(
            rules("SELECT d + INTERVAL 1 DAY FROM t"),
            vec!["FN-INTERVAL"]
        );
        assert_eq!(
            rules("SELECT d + INTERVAL '1' DAY FROM t"),
            Vec::<String>::new()
        );
    }
}
