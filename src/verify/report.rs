//! What verify reports: per table, per differing row, and per `--watch` round.

use crate::db::DbError;
use crate::workload::Header;
use serde::{Deserialize, Serialize};

/// What a difference is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DiffKind {
    #[serde(rename = "missing_in_target")]
    Missing,
    #[serde(rename = "extra_in_target")]
    Extra,
    #[serde(rename = "different")]
    Different,
}

impl DiffKind {
    pub fn name(self) -> &'static str {
        match self {
            DiffKind::Missing => "missing_in_target",
            DiffKind::Extra => "extra_in_target",
            DiffKind::Different => "different",
        }
    }
}

/// A table's outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableStatus {
    /// Every row and column type matched.
    #[default]
    Match,
    /// Rows or the schema differ (or the table is missing on the target).
    Differ,
    /// Rows could not be compared (see the table's `reason`).
    NotVerified,
}

impl TableStatus {
    pub fn name(self) -> &'static str {
        match self {
            TableStatus::Match => "match",
            TableStatus::Differ => "differ",
            TableStatus::NotVerified => "not_verified",
        }
    }
}

/// One differing row.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RowDifference {
    /// The key's values, or `row hash …` for a table without a key.
    pub key: String,
    pub kind: DiffKind,
    /// For `different`: the columns that differ.
    pub columns: Vec<String>,
    pub source: Option<Vec<String>>,
    pub target: Option<Vec<String>>,
}

/// One table's result.
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct TableReport {
    pub table: String,
    /// How rows are matched: `id (integer ranges)`, `(a, b) (hash buckets)`, or
    /// `none (multiset of row hashes)`.
    pub key: String,
    pub rows_source: u64,
    pub rows_target: u64,
    pub missing_in_target: u64,
    pub extra_in_target: u64,
    pub different: u64,
    /// With `--live`: rows that differed at first and matched on a re-check (in flight).
    pub in_flight: u64,
    /// Key ranges or hash buckets digested.
    pub chunks: u64,
    pub chunks_differing: u64,
    pub status: TableStatus,
    /// The table does not exist on the target (counted as one difference).
    pub target_missing: bool,
    pub reason: Option<String>,
    /// Schema findings: missing columns, types that cannot hold the source's values, sequences.
    pub schema: Vec<String>,
    /// Source values the target cannot hold (a NUL byte in PostgreSQL text): those rows are not in
    /// the `--fix-sql` file, and no repair will make the two sides equal.
    pub cannot_hold: Vec<String>,
    pub examples: Vec<RowDifference>,
}

/// The whole run (`cutover.verify/1`); the endpoints are in the header.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VerifyReport {
    #[serde(flatten)]
    pub header: Header,
    /// The target profile named with `--profile`, if any.
    pub profile: Option<String>,
    pub live: bool,
    pub tables: Vec<TableReport>,
    pub total_differences: u64,
    pub not_verified: Vec<String>,
    /// Statements written by `--fix-sql`.
    pub fix_statements: Option<u64>,
    /// Seconds spent paused by `--max-load`.
    pub paused_seconds: f64,
    /// Why the run is incomplete (interrupted): empty for a complete run; the command then exits
    /// with code 2 whatever it found.
    #[serde(default)]
    pub incomplete: Vec<String>,
}

impl VerifyReport {
    pub fn failed(&self) -> bool {
        self.total_differences > 0 || self.tables.iter().any(|t| t.status == TableStatus::Differ)
    }
}

/// Why verify could not run.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("{0}")]
    Other(String),
}

/// One round of `--watch`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WatchRound {
    pub round: u32,
    pub total_differences: u64,
    pub in_flight: u64,
}

/// `cutover verify --watch` (`cutover.verify-watch/1`): the last round's report and every round's
/// totals, so the trend (converging or not) shows.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WatchReport {
    #[serde(flatten)]
    pub header: Header,
    pub report: VerifyReport,
    pub rounds: Vec<WatchRound>,
    /// The last round found no difference.
    pub converged: bool,
}
