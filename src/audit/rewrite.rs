//! The audit's use of the profile's rewriter ([`crate::profile::rewrite`]): a statement rewritten with
//! its own findings.

use super::{Context, StatementOrigin, detect, judge};
use crate::profile::rewrite::{Rewrite, rewrite_with};

/// Rewrites `sql`, computing its findings first.
pub fn rewrite(sql: &str, ctx: &Context) -> Option<Rewrite> {
    let (hits, _) = detect(sql, ctx);
    let origin = StatementOrigin {
        file: String::new(),
        line: 1,
        column: 1,
    };
    let (findings, _) = judge(&hits, sql, &origin, ctx.profile);
    rewrite_with(sql, ctx.profile, &findings)
}

#[cfg(test)]
mod tests {
    use super::rewrite;
    use crate::audit::with_postgres;

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
        assert!(rw("SELECT `a` FROM t").1);
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
        // Several assignments, or the server's default: not translated.
        assert!(!rw("SET tx_isolation='READ-COMMITTED', sql_mode=''").1);
        assert!(!rw("SET GLOBAL tx_isolation='READ-COMMITTED'").1);
        // No session switch for foreign keys: no rewrite, the finding says what to do instead.
        assert!(!rw("SET FOREIGN_KEY_CHECKS=0").1);
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
}
