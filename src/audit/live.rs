//! Live confirmation: asks the real target about each audited statement (and its rewrite), and records
//! what it answered.
//!
//! Nothing is ever committed. On a PostgreSQL-protocol target everything happens inside one
//! transaction that is rolled back at the end, each statement in a savepoint of its own: statements
//! that read or write rows are only planned (`EXPLAIN`: parsed, analysed and planned, with literals
//! checked against column types, but not run, so no row is read, locked or changed); DDL and SET run
//! (both are transactional there) and are rolled back with the rest. Transaction control (BEGIN,
//! COMMIT, …, LOCK TABLES, XA) is never sent, since it would end the audit's own transaction. On a
//! MySQL target, reads and writes are planned with EXPLAIN inside a read-only transaction, session SET
//! runs, and DDL is not sent (MySQL commits DDL implicitly).
//!
//! `--live-setup` first creates the `--schema` tables inside that transaction, translated to the
//! target's types, so statements can be checked against an empty target; they vanish on rollback.

use super::{Finding, StatementAudit, Verdict, verdict_of};
use crate::db::exec::Session;
use crate::db::{DbError, Endpoint, Engine};
use crate::profile::{Profile, Severity};
use crate::schema::Schema;
use crate::schema::target::create_table_pg;
use crate::sql::classify::{StatementClass, classify};
use serde::{Deserialize, Serialize};

/// What the target answered for one text.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct LiveAnswer {
    /// `explain` (planned, not run), `run` (run and rolled back), or `not_sent`.
    pub how: String,
    /// True when the target accepted it.
    pub accepted: bool,
    /// The target's error code (SQLSTATE or MySQL errno) and message, when it refused.
    pub code: Option<String>,
    pub message: Option<String>,
}

/// Live results of a whole audit.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LiveSummary {
    /// The target, password masked.
    pub target: String,
    pub server_version: Option<String>,
    /// Tables created by --live-setup (rolled back).
    pub setup_tables: usize,
    pub setup_errors: Vec<String>,
    pub accepted: usize,
    /// Statements the target refused (for a reason other than a missing table without
    /// `--live-setup`).
    pub rejected: usize,
    /// Statements the target could not judge: it refused them because a table (or column, schema)
    /// they name does not exist there, and `--live-setup` did not create the schema first.
    #[serde(default)]
    pub unconfirmed: usize,
    pub not_sent: usize,
    /// Statements whose live answer changed the static verdict.
    pub verdict_changes: usize,
    pub rewrites_accepted: usize,
    pub rewrites_rejected: usize,
}

/// SQLSTATEs (and MySQL errnos) that mean a schema object is missing rather than the SQL being
/// wrong: table (42P01, 1146), column (42703, 1054), schema or database (3F000, 1049). A missing
/// function or operator (42883) is not among them: that is the SQL the target rejects.
fn missing_object(code: &str) -> bool {
    matches!(code, "42P01" | "42703" | "3F000" | "1146" | "1054" | "1049")
}

/// How a statement is put to the target without changing anything.
fn plan_for(sql: &str, engine: Engine) -> Option<(String, &'static str)> {
    match classify(sql.as_bytes()) {
        StatementClass::Read | StatementClass::LockingRead | StatementClass::Write => {
            let upper = sql.trim_start().get(..8).unwrap_or("").to_ascii_uppercase();
            if upper.starts_with("EXPLAIN")
                || upper.starts_with("DESC")
                || upper.starts_with("SHOW")
            {
                // Already harmless; running it is the check.
                Some((sql.to_string(), "run"))
            } else if upper.starts_with("CALL")
                || upper.starts_with("LOAD")
                || upper.starts_with("DO ")
            {
                None
            } else {
                Some((format!("EXPLAIN {sql}"), "explain"))
            }
        }
        StatementClass::Ddl if engine.dialect().transactional_ddl => Some((sql.to_string(), "run")),
        StatementClass::Session => {
            let u = sql.to_ascii_uppercase();
            // SET GLOBAL / PERSIST would change the server: never.
            if u.contains("GLOBAL") || u.contains("PERSIST") {
                None
            } else {
                Some((sql.to_string(), "run"))
            }
        }
        StatementClass::Ddl | StatementClass::Transaction | StatementClass::Other => None,
    }
}

/// A connection that holds the audit's transaction open.
pub struct LiveTarget {
    session: Session,
    engine: Engine,
    counter: u64,
    pub summary: LiveSummary,
}

impl LiveTarget {
    /// Connects and opens the transaction that everything happens in.
    pub async fn open(endpoint: &Endpoint) -> Result<LiveTarget, DbError> {
        let mut session = Session::connect(endpoint).await?;
        let dialect = endpoint.engine.dialect();
        let version = session
            .execute(dialect.version_query)
            .await
            .ok()
            .and_then(|o| {
                o.sets
                    .first()
                    .and_then(|s| s.rows.first())
                    .and_then(|r| r.first())
                    .and_then(|v| v.as_text())
            });
        session.run(dialect.live_transaction).await?;
        Ok(LiveTarget {
            session,
            engine: endpoint.engine,
            counter: 0,
            summary: LiveSummary {
                target: endpoint.to_string(),
                server_version: version,
                ..Default::default()
            },
        })
    }

    /// Creates the schema's tables inside the transaction (PostgreSQL-protocol targets only).
    pub async fn setup(&mut self, schema: &Schema, profile: &Profile) -> Result<(), DbError> {
        if !self.engine.dialect().transactional_ddl {
            self.summary.setup_errors.push("--live-setup is only for PostgreSQL-protocol targets: MySQL commits DDL, so cutover will not create tables there".into());
            return Ok(());
        }
        for t in &schema.tables {
            let ddl = create_table_pg(t, profile, false);
            match self.kept(&ddl).await? {
                Ok(()) => self.summary.setup_tables += 1,
                Err(e) => self
                    .summary
                    .setup_errors
                    .push(format!("table {}: {e}", t.name)),
            }
        }
        Ok(())
    }

    /// Runs `sql` in a savepoint that is kept when it succeeds (the set-up tables), rolled back when
    /// it fails; the outer transaction is rolled back at the end either way.
    async fn kept(&mut self, sql: &str) -> Result<Result<(), DbError>, DbError> {
        self.counter += 1;
        let sp = format!("cutover_live_{}", self.counter);
        self.session.run(&format!("SAVEPOINT {sp}")).await?;
        let r = self.session.execute(sql).await.map(|_| ());
        match r {
            Ok(()) => self.session.run(&format!("RELEASE SAVEPOINT {sp}")).await?,
            Err(_) => {
                self.session
                    .run(&format!("ROLLBACK TO SAVEPOINT {sp}"))
                    .await?
            }
        }
        Ok(r)
    }

    /// Runs `sql` in a savepoint that is rolled back: Ok(Err) when the target refused it, Err when
    /// the connection failed.
    async fn guarded(&mut self, sql: &str) -> Result<Result<(), DbError>, DbError> {
        if !self.engine.dialect().transactional_ddl {
            // No DDL reaches this server (see `plan`), and MySQL has nothing to roll back to.
            return Ok(self.session.execute(sql).await.map(|_| ()));
        }
        self.counter += 1;
        let sp = format!("cutover_live_{}", self.counter);
        self.session.run(&format!("SAVEPOINT {sp}")).await?;
        let r = self.session.execute(sql).await.map(|_| ());
        self.session
            .run(&format!("ROLLBACK TO SAVEPOINT {sp}"))
            .await?;
        if r.is_ok() {
            self.session.run(&format!("RELEASE SAVEPOINT {sp}")).await?;
        }
        Ok(r)
    }

    /// Asks the target about one text.
    pub async fn ask(&mut self, sql: &str) -> Result<LiveAnswer, DbError> {
        let Some((text, how)) = plan_for(sql, self.engine) else {
            return Ok(LiveAnswer {
                how: "not_sent".into(),
                accepted: false,
                code: None,
                message: Some(
                    "not sent: it would commit, end the audit's transaction or change the server"
                        .into(),
                ),
            });
        };
        Ok(match self.guarded(&text).await? {
            Ok(()) => LiveAnswer {
                how: how.into(),
                accepted: true,
                code: None,
                message: None,
            },
            Err(e) => LiveAnswer {
                how: how.into(),
                accepted: false,
                code: e.code().map(str::to_string),
                message: Some(server_message(&e)),
            },
        })
    }

    /// Asks about every statement and its rewrite, and folds the answers into the findings and
    /// verdicts.
    pub async fn confirm(
        &mut self,
        statements: &mut [StatementAudit],
        schema_ready: bool,
        mut progress: impl FnMut(usize),
    ) -> Result<(), DbError> {
        for (i, st) in statements.iter_mut().enumerate() {
            let answer = self.ask(&st.sql).await?;
            let rewrite_answer = match &st.rewrite {
                Some(r) => Some(self.ask(r).await?),
                None => None,
            };
            apply(
                st,
                &answer,
                rewrite_answer.as_ref(),
                schema_ready,
                &mut self.summary,
            );
            progress(i + 1);
        }
        Ok(())
    }

    /// Rolls everything back and disconnects.
    pub async fn close(mut self) -> Result<(), DbError> {
        self.session.run("ROLLBACK").await?;
        self.session.close().await;
        Ok(())
    }
}

fn server_message(e: &DbError) -> String {
    match e {
        DbError::Server { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

fn live_finding(
    rule: &str,
    severity: Severity,
    title: &str,
    message: String,
    rewrite: Option<String>,
) -> Finding {
    Finding {
        rule: rule.into(),
        category: "live".into(),
        severity,
        title: title.into(),
        message,
        detail: None,
        rewrite,
        evidence: Some("the live target".into()),
        confidence: Some("live".into()),
        line: None,
        column: None,
        live: None,
    }
}

/// Folds the target's answers into one statement's findings and verdict.
pub fn apply(
    st: &mut StatementAudit,
    answer: &LiveAnswer,
    rewrite: Option<&LiveAnswer>,
    schema_ready: bool,
    summary: &mut LiveSummary,
) {
    let said = match (&answer.code, &answer.message) {
        (Some(c), Some(m)) => format!("{c}: {m}"),
        (None, Some(m)) => m.clone(),
        _ => String::new(),
    };
    let before = st.verdict;
    if answer.how == "not_sent" {
        summary.not_sent += 1;
    } else if answer.accepted {
        summary.accepted += 1;
        let text = format!(
            "the target accepted it ({})",
            if answer.how == "explain" {
                "planned with EXPLAIN"
            } else {
                "run, then rolled back"
            }
        );
        for f in &mut st.findings {
            f.live = Some(text.clone());
        }
        if st.verdict == Verdict::Fail {
            // The target is the judge: what it accepts does not fail. The static findings stay, as
            // things to review.
            for f in &mut st.findings {
                if f.severity == Severity::Error {
                    f.severity = Severity::Warning;
                }
            }
            st.findings.push(live_finding(
                "LIVE-ACCEPTED",
                Severity::Info,
                "The target accepted a statement cutover expected it to reject",
                text,
                None,
            ));
        }
    } else {
        let missing = answer.code.as_deref().is_some_and(missing_object);
        if missing && !schema_ready {
            summary.unconfirmed += 1;
        } else {
            summary.rejected += 1;
        }
        for f in &mut st.findings {
            f.live = Some(format!("the target refused it: {said}"));
        }
        if missing && !schema_ready {
            st.findings.push(live_finding(
                "LIVE-UNCONFIRMED",
                Severity::Info,
                "Could not confirm: an object is missing on the target",
                format!("the target said {said}; create the schema there first (--live-setup with --schema) to confirm"),
                None,
            ));
        } else if st.verdict != Verdict::Fail {
            st.findings.push(live_finding(
                "LIVE-REJECTED",
                Severity::Error,
                "The target rejected the statement",
                format!("the target said {said}"),
                st.rewrite.clone(),
            ));
        }
    }
    if let Some(r) = rewrite {
        // Refused because its table is missing: nothing is known about the rewrite either.
        let unconfirmed = !schema_ready && r.code.as_deref().is_some_and(missing_object);
        if r.accepted {
            summary.rewrites_accepted += 1;
        } else if r.how != "not_sent" && !unconfirmed {
            summary.rewrites_rejected += 1;
            st.findings.push(live_finding(
                "LIVE-REWRITE-REJECTED",
                Severity::Info,
                "The target rejected cutover's rewrite",
                format!(
                    "the rewrite was refused: {}",
                    r.message.clone().unwrap_or_default()
                ),
                None,
            ));
        }
    }
    st.verdict = verdict_of(&st.findings);
    if st.verdict != before {
        summary.verdict_changes += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::StatementOrigin;

    fn statement(verdict: Verdict) -> StatementAudit {
        StatementAudit {
            ordinal: 0,
            fingerprint: "select c from sbtest3 where id = ?".into(),
            fingerprint_id: "1F11C236DFEE6850".into(),
            sql: "SELECT c FROM sbtest3 WHERE id=1".into(),
            count: 1,
            total_time_s: None,
            verdict,
            parsed: true,
            findings: Vec::new(),
            rewrite: None,
            origin: StatementOrigin {
                file: "q.sql".into(),
                line: 1,
                column: 1,
            },
        }
    }

    fn refused(code: &str) -> LiveAnswer {
        LiveAnswer {
            how: "explain".into(),
            accepted: false,
            code: Some(code.into()),
            message: Some("relation \"sbtest3\" does not exist".into()),
        }
    }

    #[test]
    fn a_missing_table_without_setup_is_unconfirmed_not_rejected() {
        let mut summary = LiveSummary::default();
        let mut st = statement(Verdict::Ok);
        apply(&mut st, &refused("42P01"), None, false, &mut summary);
        assert_eq!((summary.rejected, summary.unconfirmed), (0, 1));
        assert_eq!(st.verdict, Verdict::Ok);
        assert!(st.findings.iter().any(|f| f.rule == "LIVE-UNCONFIRMED"));
        // Its rewrite, refused for the same reason, is not a rejected rewrite either.
        let mut st = statement(Verdict::Ok);
        apply(
            &mut st,
            &refused("42P01"),
            Some(&refused("42P01")),
            false,
            &mut summary,
        );
        assert_eq!(summary.rewrites_rejected, 0);
        // With the schema set up on the target, a missing table is the target's answer.
        let mut summary = LiveSummary::default();
        let mut st = statement(Verdict::Ok);
        apply(&mut st, &refused("42P01"), None, true, &mut summary);
        assert_eq!((summary.rejected, summary.unconfirmed), (1, 0));
        assert_eq!(st.verdict, Verdict::Fail);
        // A missing function or operator is the SQL being rejected, schema or not.
        let mut summary = LiveSummary::default();
        let mut st = statement(Verdict::Ok);
        apply(&mut st, &refused("42883"), None, false, &mut summary);
        assert_eq!((summary.rejected, summary.unconfirmed), (1, 0));
    }

    #[test]
    fn summaries_written_before_unconfirmed_existed_still_read() {
        let old = r#"{"target":"postgres://x","server_version":null,"setup_tables":0,"setup_errors":[],"accepted":1,"rejected":2,"not_sent":0,"verdict_changes":0,"rewrites_accepted":0,"rewrites_rejected":0}"#;
        let s: LiveSummary = serde_json::from_str(old).expect("an older live summary reads");
        assert_eq!((s.rejected, s.unconfirmed), (2, 0));
    }
}
