//! What the audit says about a statement, in the profile's terms, and what replay needs of it to
//! rewrite the statement for the target.

use super::Severity;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One finding on a statement.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Finding {
    pub rule: String,
    pub category: String,
    pub severity: Severity,
    pub title: String,
    pub message: String,
    /// What exactly triggered it.
    pub detail: Option<String>,
    pub rewrite: Option<String>,
    pub evidence: Option<String>,
    pub confidence: Option<String>,
    /// 1-based line and column in the input (file position for .sql inputs).
    pub line: Option<u64>,
    pub column: Option<u64>,
    /// What the live target answered, when `--live` was given.
    pub live: Option<String>,
}

/// Rewrites a whole statement for the target from its findings: the audit's tree and DDL rewrites
/// (upserts, multi-table and LIMITed UPDATE/DELETE, GROUP_CONCAT, CREATE TABLE, ...), which the token
/// rewriter cannot do. Replay holds it as a trait object so that it never reaches into the audit.
pub trait StatementRewriter: Send + Sync {
    /// The statement written for the target, when every error-level finding was translated.
    fn rewrite(&self, sql: &str, findings: &[Finding]) -> Option<String>;
}

/// The audit's findings per fingerprint, handed to replay for `--rewrite`: replay rewrites each
/// execution with the audit's [`StatementRewriter`] when there is one, else (or when it gives up)
/// with [`super::rewrite::rewrite_with`] and these findings, never running the audit itself.
#[derive(Clone, Default)]
pub struct Rewrites {
    pub by_fingerprint: FxHashMap<u64, Arc<Vec<Finding>>>,
    pub statements: Option<Arc<dyn StatementRewriter>>,
}

impl std::fmt::Debug for Rewrites {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rewrites")
            .field("fingerprints", &self.by_fingerprint.len())
            .field("statements", &self.statements.is_some())
            .finish()
    }
}

impl Rewrites {
    /// The findings of a fingerprint; `None` when the audit did not see it.
    pub fn findings(&self, fingerprint: u64) -> Option<&Arc<Vec<Finding>>> {
        self.by_fingerprint.get(&fingerprint)
    }

    /// One execution's text written for the target: the whole-statement rewriter first (a complete
    /// rewrite), else the profile's token rewriter (complete or not). `None`: nothing to rewrite.
    pub fn rewrite(
        &self,
        sql: &str,
        profile: &super::Profile,
        findings: &[Finding],
    ) -> Option<super::rewrite::Rewrite> {
        let needs = findings
            .iter()
            .any(|f| matches!(f.severity, Severity::Error | Severity::Warning));
        if let (true, Some(st)) = (needs, &self.statements)
            && let Some(written) = st.rewrite(sql, findings)
        {
            return Some(super::rewrite::Rewrite {
                sql: written,
                applied: Vec::new(),
                complete: true,
            });
        }
        super::rewrite::rewrite_with(sql, profile, findings)
    }
}
