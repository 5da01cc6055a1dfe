//! Verify: do source and target hold the same rows? Both servers compute, inside a consistent
//! snapshot, the row count and the sum of a per-row hash of a canonical text (`encode`) per chunk,
//! so only digests travel. Tables keyed by one integer column are chunked by key range; tables with
//! string, temporal or composite keys are bucketed by the hash of their key text (collations order
//! strings differently on the two engines, hashes do not); tables without a unique key are compared
//! as multisets of row hashes. A chunk that differs is narrowed down to rows, which are fetched and
//! compared in canonical values (float tolerance, JSON normalisation) naming the columns.
//!
//! With `--live`, each difference is re-checked on the latest data after a delay that doubles, so
//! rows in flight during double-writes are not reported; `--fix-sql` writes the repairs;
//! `--checkpoint` lets an interrupted run resume; [`watch`] repeats the check until it converges.

mod check;
mod checkpoint;
mod data;
mod encode;
mod filter;
mod fix;
mod options;
mod plan;
mod report;
mod run;
mod table;
mod watch;

pub use options::VerifyOptions;
pub use report::{
    DiffKind, RowDifference, TableReport, TableStatus, VerifyError, VerifyReport, WatchReport,
    WatchRound,
};
pub use run::verify;
use table::Pending;
pub use watch::watch;
