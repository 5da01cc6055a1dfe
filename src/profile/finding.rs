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

/// The audit's findings per fingerprint, handed to replay for `--rewrite`: replay rewrites each
/// execution with [`super::rewrite::rewrite_with`] and these findings, never running the audit itself.
#[derive(Clone, Debug, Default)]
pub struct Rewrites {
    pub by_fingerprint: FxHashMap<u64, Arc<Vec<Finding>>>,
}

impl Rewrites {
    /// The findings of a fingerprint; `None` when the audit did not see it.
    pub fn findings(&self, fingerprint: u64) -> Option<&Arc<Vec<Finding>>> {
        self.by_fingerprint.get(&fingerprint)
    }
}
