//! What the dispatcher hands a session worker, and what the worker hands back.

use super::plan::{SkipReason, StatementPlan};
use crate::db::exec::Outcome;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Side {
    Source,
    Target,
}

/// One statement to run on a side.
pub(super) struct Job {
    pub(super) seq: u64,
    pub(super) session: u64,
    pub(super) fp: u64,
    /// Microseconds after the replay's start; None at max speed.
    pub(super) due_us: Option<u64>,
    /// When the statement started in the capture (µs since the Unix epoch), when the log says.
    pub(super) recorded_us: Option<i64>,
    pub(super) sql: Vec<u8>,
    /// What the target sends instead (a rewrite), when it differs.
    pub(super) target_sql: Option<String>,
    pub(super) plan: Arc<StatementPlan>,
    /// `--keep-order`: this statement's place among the statements that write, lock or end a
    /// transaction (reads are not ordered).
    pub(super) order_seq: Option<u64>,
    /// With `order_seq`: the ordered statements of other sessions it conflicts with (`conflict`).
    pub(super) deps: super::conflict::Deps,
    /// Held until both sides and the comparator are done with the job.
    pub(super) _budget: tokio::sync::OwnedSemaphorePermit,
}

pub(super) enum Msg {
    Job(Arc<Job>),
    End,
}

pub(super) enum Res {
    Rows(Outcome),
    Error { code: String, message: String },
    Skipped(SkipReason),
}

/// A side's result for one job.
pub(super) struct Done {
    pub(super) side: Side,
    pub(super) job: Arc<Job>,
    pub(super) res: Res,
    pub(super) lag_us: u64,
    /// How late it started against its recorded time (scaled by the speed), previous statements'
    /// lateness included; None at `--max-speed`.
    pub(super) behind_us: Option<u64>,
    pub(super) latency_us: u64,
    /// When it started, microseconds after the replay's start.
    pub(super) at_us: u64,
    pub(super) commit: bool,
    pub(super) reconnected: bool,
    /// When the statement's snapshot began (its transaction's first statement), µs after the start.
    pub(super) snapshot_us: u64,
    /// Tables whose changes this statement made visible to other sessions (an autocommit write, or
    /// the COMMIT of a transaction that wrote them).
    pub(super) published: Option<Arc<Vec<String>>>,
}

impl Done {
    /// A result for a statement that was not run (skipped, or no connection).
    pub(super) fn unsent(side: Side, job: Arc<Job>, res: Res) -> Done {
        Done {
            side,
            job,
            res,
            lag_us: 0,
            behind_us: None,
            latency_us: 0,
            at_us: 0,
            commit: false,
            reconnected: false,
            snapshot_us: 0,
            published: None,
        }
    }
}
