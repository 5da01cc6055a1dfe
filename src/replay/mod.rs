//! Replay: the captured workload against a source and (optionally) a target, each captured session on
//! its own connection per side at the recorded pace, results compared value by value and latency
//! compared per fingerprint with a significance test.
//!
//! Data flows one way: the capture's event stream ([`crate::capture::EventReader`]) is planned per
//! fingerprint (`plan`), dispatched to per-session workers on each side (`runner`), and their
//! results meet in one comparator that tallies [`ReplayReport`]. The sides never wait for each other:
//! each has its own connections and its own clock, so a slow target does not slow the source's
//! figures; only the comparator pairs their results, and the bounded queues between dispatcher and
//! workers bound memory.

mod budget;
mod comparator;
mod compare;
mod conflict;
mod dispatch;
mod gate;
mod host;
mod job;
mod merge;
mod plan;
mod runner;
mod scenario;
mod spread;
mod statistics;
mod stats;
mod stop;
mod summary;
mod timer;
mod txn;
mod worker;

pub use host::ClientCpu;
pub use merge::merge;
pub use plan::{Mode, SkipReason};
pub use runner::{ReplayError, replay as run};
pub use scenario::{ReplaySettings, ScenarioError};
pub use stats::{LatencySummary, RegressionRule, RegressionTest, SerializedLatency};

use crate::db::Endpoint;
use crate::db::value::Tolerance;
use crate::workload::Header;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// How fast to replay. JSON: `"max"` or `{"speed": 10.0}`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pace {
    /// Recorded start offsets divided by this factor (1 = the recorded pace).
    Speed(f64),
    /// No pauses: each session sends its next statement as soon as the previous one is done.
    Max,
}

/// Whether a replay runs on a single-threaded async runtime (every task on the thread that started
/// it): when it drives only the source and `TOKIO_WORKER_THREADS` is not set. The sessions' tasks
/// wait on the network: with one side the work per statement is small, and a second worker thread
/// mostly adds cross-thread wake-ups (2026-12-06, 8-session sysbench capture on 2 cores, interleaved
/// runs: one worker thread +8% QPS and 15% less CPU than two). Tokio's current-thread scheduler does
/// without the multi-threaded one's work-stealing queues and the hand-over from the thread that
/// waits for the replay to the worker: +4% QPS by default and +7% with `--free-order` over one worker
/// thread (2026-12-06, seven and four interleaved pairs). With a target, comparing every result
/// wants the cores (tokio's default, one worker per core).
pub fn single_threaded_runtime(opts: &ReplayOptions) -> bool {
    opts.target.is_none() && std::env::var_os("TOKIO_WORKER_THREADS").is_none()
}

/// Everything a replay needs.
#[derive(Clone, Debug)]
pub struct ReplayOptions {
    pub logs: Vec<PathBuf>,
    pub capture: crate::capture::CaptureOptions,
    pub source: Endpoint,
    pub target: Option<Endpoint>,
    /// The target profile, for `--rewrite`.
    pub profile: Option<crate::profile::Profile>,
    pub rewrite: bool,
    /// With `rewrite`: the audit's findings per fingerprint of the same capture, which say what the
    /// profile's rewriter translates (the caller runs the audit; replay never does).
    pub rewrites: Option<std::sync::Arc<crate::profile::Rewrites>>,
    pub pace: Pace,
    pub mode: Mode,
    /// Stop after this long (wall time).
    pub duration: Option<std::time::Duration>,
    /// Replay only the sessions whose id hashes to shard K of N (K in 0..N).
    pub shard: Option<(u32, u32)>,
    pub regression: RegressionRule,
    pub tolerance: Tolerance,
    /// Mismatch examples kept per (fingerprint, category).
    pub examples: usize,
    /// Keep the captured start order across sessions (statement N starts after N-1 started).
    pub keep_order: bool,
    /// With `keep_order`: the earliest waiting statement of a wait cycle through a server lock goes
    /// at once (see `gate`), instead of after the 2 s limit.
    pub break_lock_cycles: bool,
    /// Show progress on stderr.
    pub progress: bool,
    /// The most connections replay may open per server (`--max-connections`); by default half
    /// of the server's free connections (see `budget`).
    pub max_connections: Option<u64>,
    /// A session idle this long outside a transaction gives its connection back and reconnects,
    /// state restored, when it runs again: how idle sessions share a server's connections.
    pub release_idle: std::time::Duration,
}

/// Tables a side's planner had no statistics for, or statistics of a much smaller table (see
/// `SideReport::unanalyzed`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Unanalyzed {
    /// How many were never analyzed.
    pub tables: u64,
    /// The largest of them (schema.table), at most ten.
    pub examples: Vec<String>,
    /// How many were analyzed, then changed by more rows than they held then (analyzed before a
    /// bulk load): their statistics describe a table that is no longer there.
    #[serde(default)]
    pub stale: u64,
    /// The most changed of them, at most ten.
    #[serde(default)]
    pub stale_examples: Vec<String>,
}

impl Unanalyzed {
    /// Tables planned without statistics that describe them, never analyzed or stale.
    pub fn blind(&self) -> u64 {
        self.tables + self.stale
    }

    /// The never-analyzed tables named, "…" when there are more.
    pub fn named(&self) -> String {
        listed(&self.examples, self.tables)
    }

    /// The tables with stale statistics named, "…" when there are more.
    pub fn stale_named(&self) -> String {
        listed(&self.stale_examples, self.stale)
    }
}

fn listed(examples: &[String], of: u64) -> String {
    let more = if of as usize > examples.len() {
        ", …"
    } else {
        ""
    };
    format!("{}{more}", examples.join(", "))
}

/// One side's figures.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SideReport {
    /// The server, password masked.
    pub endpoint: String,
    /// Statements sent.
    pub statements: u64,
    pub errors: u64,
    /// COMMITs sent.
    pub commits: u64,
    /// Transactions that ran on this side (BEGIN … COMMIT/ROLLBACK, `autocommit=0` runs, and each
    /// autocommit statement as a transaction of its own): `tps` counts these.
    #[serde(default)]
    pub transactions: u64,
    /// Their latency, first statement's start to the end of the COMMIT/ROLLBACK (sysbench's
    /// "latency" per event).
    #[serde(default)]
    pub transaction_latency_ms: LatencySummary,
    #[serde(default)]
    pub transaction_latency_hist: SerializedLatency,
    /// Statements not sent on this side, by reason.
    pub skipped: BTreeMap<plan::SkipReason, u64>,
    pub qps: f64,
    /// Transactions per second (until 2026-12: COMMITs per second; see `transactions`).
    pub tps: f64,
    pub error_rate: f64,
    pub latency_ms: LatencySummary,
    /// How late statements started against the schedule (recorded offset / speed, or the end of the
    /// session's previous statement if that came later), in ms.
    pub start_lag_ms: LatencySummary,
    /// At `--speed`: how late statements started against their recorded time (scaled by the
    /// speed), in ms, the lateness a session carried from its previous statements included: a
    /// session that fell behind shows it here while its start lag stays near zero. None at
    /// `--max-speed`.
    #[serde(default)]
    pub behind_ms: Option<LatencySummary>,
    /// Per 10 seconds of replay.
    pub timeline: Vec<TimeSlice>,
    /// Reconnections after a lost connection (session state was restored).
    pub reconnects: u64,
    /// Statements that did not run because the client or the infrastructure failed (descriptors,
    /// connection limits, lost connections, a server going down): not counted in `errors`.
    #[serde(default)]
    pub infrastructure_errors: u64,
    #[serde(default)]
    pub first_infrastructure_error: Option<String>,
    /// `--mode all`: statements that waited more than 2 s for their turn in the captured start order
    /// and went anyway (the interleaving may then differ from the capture's).
    #[serde(default)]
    pub order_wait_timeouts: Option<u64>,
    /// `--mode all`: waits found, 200 ms into them, in a cycle through a server lock (the
    /// waiting statement's own transaction holds a lock a session it waits for needs); they end
    /// at the 2 s limit and are among `order_wait_timeouts` (see the README).
    #[serde(default)]
    pub order_lock_cycles: Option<u64>,
    /// `--mode all`: statements that waited for their turn at all, and their waits added up
    /// (seconds of session time): how much keeping the captured order held the sessions back.
    #[serde(default)]
    pub order_waits: Option<u64>,
    #[serde(default)]
    pub order_wait_s: Option<f64>,
    /// `--mode all`: ordered statements still running at the end of their lock grace, whose
    /// waiters were held until the server showed them waiting for a row lock (or they finished).
    #[serde(default)]
    pub order_held_past_grace: Option<u64>,
    /// `--mode all`, general log: statements the log writes before another session's on the same
    /// rows that took the rows only after that session's transaction ended (its end is written
    /// while their transaction is open and silent), replayed in that order (see the README).
    #[serde(default)]
    pub order_moved: Option<u64>,
    /// A PostgreSQL-family side's tables with rows and no planner statistics when the replay
    /// started (never analyzed, by hand or by autovacuum); None on a MySQL-family side or when the
    /// server cannot tell.
    #[serde(default)]
    pub unanalyzed: Option<Unanalyzed>,
    /// Wall time from the first statement to the last, in seconds.
    pub elapsed_s: f64,
    /// When the first statement started and the last ended, seconds since the Unix epoch: `cutover
    /// merge` measures the union of the shards' spans with them. A merged report has one per shard.
    #[serde(default)]
    pub spans_unix_s: Vec<[f64; 2]>,
    /// At `--speed`: the rate the schedule asked for (the capture's, scaled), and the achieved
    /// `qps` as a share of it. Below 0.9 the replay did not hold the recorded load, and its
    /// latencies describe a lighter one.
    #[serde(default)]
    pub recorded_qps: Option<f64>,
    #[serde(default)]
    pub pace: Option<f64>,
    /// Histograms for `cutover merge`.
    pub latency_hist: SerializedLatency,
    pub lag_hist: SerializedLatency,
    #[serde(default)]
    pub behind_hist: Option<SerializedLatency>,
}

impl SideReport {
    /// The share of the sessions' time spent waiting at the order gate (`--mode all` with the
    /// captured order kept), given the replay's number of sessions.
    pub fn order_wait_share(&self, sessions: u64) -> Option<f64> {
        let session_s = self.elapsed_s * sessions as f64;
        self.order_wait_s
            .filter(|_| session_s > 0.0)
            .map(|w| (w / session_s).min(1.0))
    }

    /// The share, when keeping the captured order made the sessions wait for a noticeable part
    /// (5% or more) of their time: a reason the side did not hold the recorded pace.
    pub fn order_wait_notable(&self, sessions: u64) -> Option<f64> {
        self.order_wait_share(sessions).filter(|s| *s >= 0.05)
    }
}

/// One slice of the timeline.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TimeSlice {
    /// Start of the slice, seconds since the replay started.
    pub t_s: u64,
    pub statements: u64,
    pub errors: u64,
    pub commits: u64,
    pub qps: f64,
    /// Statements the schedule (the recorded pace at `--speed`) put in this slice, and their rate.
    #[serde(default)]
    pub recorded: u64,
    #[serde(default)]
    pub recorded_qps: f64,
    pub p99_ms: f64,
    /// avg/p50/p95/p99/max of the slice, in ms.
    #[serde(default)]
    pub latency_ms: Option<LatencySummary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_hist: Option<SerializedLatency>,
}

/// Per fingerprint.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FingerprintReport {
    pub fingerprint: String,
    pub id: String,
    /// Executions captured (and planned for replay).
    pub count: u64,
    pub compared: u64,
    pub mismatches: u64,
    pub not_comparable: u64,
    /// Why results are not comparable, when they are not.
    pub not_comparable_reason: Option<String>,
    pub source: FingerprintSide,
    pub target: Option<FingerprintSide>,
    /// The latency test, when there is a target.
    pub latency_test: Option<RegressionTest>,
    /// Executions sent rewritten to the target, and ones that could not be rewritten.
    pub rewritten: u64,
    pub not_rewritable: u64,
}

/// A fingerprint on one side.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FingerprintSide {
    pub statements: u64,
    pub errors: u64,
    pub latency_ms: LatencySummary,
    pub latency_hist: SerializedLatency,
    /// The first error, when there were some.
    pub first_error: Option<String>,
}

/// Mismatches of one fingerprint and category.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MismatchGroup {
    pub fingerprint: String,
    pub id: String,
    /// `rows` (different rows or values), `order`, `affected_rows`, `error_on_target`,
    /// `error_on_source`.
    pub category: String,
    pub count: u64,
    pub examples: Vec<MismatchExample>,
    /// When these mismatches follow an error only the target raised in the same session (its
    /// transaction was rolled back there): that error, by
    /// the `id` it has in `target_errors`. Such groups are consequences, not causes of their own.
    #[serde(default)]
    pub caused_by: Option<String>,
}

/// One mismatch.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MismatchExample {
    pub session: u64,
    pub seq: u64,
    /// The statement as the source ran it (and the target's text when it differed).
    pub sql: String,
    pub target_sql: Option<String>,
    pub reason: String,
    /// `-` rows only on the source, `+` rows only on the target.
    pub diff: Vec<String>,
}

/// A latency regression.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Regression {
    pub fingerprint: String,
    pub id: String,
    pub count: u64,
    pub source_p50_ms: f64,
    pub target_p50_ms: f64,
    pub source_p95_ms: f64,
    pub target_p95_ms: f64,
    pub p50_ratio: f64,
    pub p95_ratio: f64,
    pub p_value: f64,
    /// The test's effect: the ratio of a typical execution, its interval, the Holm-adjusted p.
    #[serde(default)]
    pub ratio: Option<f64>,
    #[serde(default)]
    pub ratio_ci: Option<[f64; 2]>,
    #[serde(default)]
    pub p_adjusted: Option<f64>,
}

/// The whole replay (`cutover.replay/1`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReplayReport {
    #[serde(flatten)]
    pub header: Header,
    pub mode: Mode,
    pub pace: Pace,
    pub shard: Option<String>,
    /// Stopped early (Ctrl-C, SIGTERM or --duration): the figures cover what ran.
    pub interrupted: bool,
    pub sessions: u64,
    pub sides: BTreeMap<String, SideReport>,
    /// Executions whose results were compared.
    pub compared: u64,
    pub mismatches: u64,
    pub not_comparable: u64,
    /// Both sides failed: compared by presence only.
    pub both_failed: u64,
    /// Executions not compared because a side could not run them (infrastructure failures).
    #[serde(default)]
    pub not_run: u64,
    /// Why the run is incomplete (interrupted by a signal, statements that did not run): empty for
    /// a complete run. An incomplete run exits with code 2 whatever it compared.
    #[serde(default)]
    pub incomplete: Vec<String>,
    /// Reads whose results differed while another session committed writes to the tables they read
    /// (on either side): the sessions raced differently on each side, so the difference is not
    /// counted as a mismatch (`--mode all`).
    #[serde(default)]
    pub concurrent_races: u64,
    pub regressions: Vec<Regression>,
    pub regression_rule: RegressionRule,
    pub fingerprints: Vec<FingerprintReport>,
    pub mismatch_groups: Vec<MismatchGroup>,
    /// `--rewrite`: executions sent rewritten, and fingerprints that could not be (sent as captured).
    pub rewritten: u64,
    pub not_rewritable: Vec<String>,
    /// Log notes (skipped records, truncated files).
    pub input_notes: Vec<String>,
    /// Per transaction class (each session's statements grouped into transactions, classified by
    /// shape), most frequent first.
    #[serde(default)]
    pub transactions: Vec<TransactionClass>,
    /// Errors only the target raised, with what they broke afterwards.
    #[serde(default)]
    pub target_errors: Vec<TargetError>,
    /// cutover's use of its own host's CPU over the replay: whether the host, rather than the
    /// servers, set the pace. None in results made before 2026-12-07.
    #[serde(default)]
    pub client: Option<ClientCpu>,
}

/// A transaction class: every transaction of one business kind (see `class`), so a New-Order with 5
/// or 15 order lines is one class.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TransactionClass {
    /// Id of the class (16 hex digits): xxh3 of its first write's step and the kinds of tables it writes
    /// and reads (names without trailing digits), so data-dependent branches and repeated lines of one
    /// business transaction are one class.
    pub class: String,
    /// Named by its first write, else its first statement (`UPDATE district1`, `SELECT sbtest1`).
    pub name: String,
    /// The shape of the class's first transaction: its fingerprints in order, a folded run written
    /// with a trailing ` (+)`.
    pub statements: Vec<String>,
    /// Transactions of this class in the capture (of the sessions replayed).
    pub count: u64,
    pub source: TransactionSide,
    pub target: Option<TransactionSide>,
    /// The same regression rule as statements, on whole-transaction latency.
    pub latency_test: Option<RegressionTest>,
}

/// A transaction class on one side.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TransactionSide {
    /// Transactions of the class that ran on this side (committed or rolled back).
    pub count: u64,
    /// Per second and per minute of this side's wall time.
    pub tps: f64,
    pub tpm: f64,
    /// From the transaction's first statement's start to its end (COMMIT/ROLLBACK done), in ms.
    pub latency_ms: LatencySummary,
    pub latency_hist: SerializedLatency,
    /// Ended by ROLLBACK (as captured, or because an error aborted them).
    pub rollbacks: u64,
    /// Transactions in which a statement failed.
    pub errors: u64,
}

/// An error the target raised where the source did not, and its consequences.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TargetError {
    /// SQLSTATE (PostgreSQL-protocol) or MySQL error number, when known.
    pub code: Option<String>,
    pub message: String,
    pub fingerprint: String,
    pub id: String,
    /// Executions that failed this way.
    pub count: u64,
    /// The first failing execution.
    pub example: Option<MismatchExample>,
    /// What it broke afterwards in the same session (a rolled-back transaction makes later reads
    /// differ): mismatches grouped under this cause rather than counted as causes of their own,
    /// statements skipped, and their fingerprints.
    #[serde(default)]
    pub later_mismatches: u64,
    #[serde(default)]
    pub later_skipped: u64,
    #[serde(default)]
    pub later_fingerprints: Vec<String>,
}

impl Pace {
    pub fn name(self) -> String {
        match self {
            Pace::Max => "max".into(),
            Pace::Speed(x) => format!("speed {x}"),
        }
    }
}

impl ReplayReport {
    /// True when CI should fail: mismatches or regressions.
    pub fn failed(&self) -> bool {
        self.mismatches > 0 || !self.regressions.is_empty()
    }
}

#[cfg(test)]
mod side_report_tests {
    use super::SideReport;

    #[test]
    fn the_order_wait_share_is_of_the_sessions_time_and_notable_from_five_percent() {
        let side = |waited: Option<f64>, elapsed_s: f64| SideReport {
            order_wait_s: waited,
            elapsed_s,
            ..SideReport::default()
        };
        // 8 sessions over 10 s: 80 session-seconds, 16 of them at the gate.
        let s = side(Some(16.0), 10.0);
        assert_eq!(s.order_wait_share(8), Some(0.2));
        assert_eq!(s.order_wait_notable(8), Some(0.2));
        // 2 of 80: not a reason worth naming.
        assert_eq!(side(Some(2.0), 10.0).order_wait_notable(8), None);
        // --free-order (no gate) and an empty run have no share.
        assert_eq!(side(None, 10.0).order_wait_share(8), None);
        assert_eq!(side(Some(1.0), 0.0).order_wait_share(8), None);
    }
}
