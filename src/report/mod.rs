//! Report: one go/no-go verdict from the stages' results. It reads the stage JSON files back into
//! their types (`inputs`), judges each criterion against the gate's thresholds (`gate`, `audit`,
//! `replay`, `verify`, `consistency`), applies the waivers (`waivers`), estimates the effort of the
//! fixes (`effort`) and compares with an earlier report (`baseline`). Printing is in `crate::render`.
//!
//! A criterion with no evidence behind it never passes: a stage that was not run is `not-run`, a
//! stage that ran without exercising anything (0 rows compared, 0 statements replayed, latency
//! classes too small for a test) is `vacuous`; both block `go` like a failure.

mod audit;
mod baseline;
mod build;
mod consistency;
mod effort;
mod gate;
mod inputs;
mod latency;
mod replay;
mod verify;
mod waivers;

pub use build::{ReportOptions, build};
pub use effort::{EffortClass, EffortCosts, EffortReport};
pub use gate::Gate;
pub use inputs::{ReportError, StageInputs};
pub use waivers::{Waiver, WaiverUse};

use crate::workload::Header;
use serde::{Deserialize, Serialize};

/// A criterion's outcome.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    #[default]
    Pass,
    Warn,
    Waived,
    Vacuous,
    NotRun,
    Fail,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Warn => "warn",
            Status::Waived => "waived",
            Status::Vacuous => "vacuous",
            Status::NotRun => "not-run",
            Status::Fail => "fail",
        }
    }

    /// Blocks `go` (unless waived, which turns it into `Waived`).
    pub fn blocks(self) -> bool {
        matches!(self, Status::Fail | Status::Vacuous | Status::NotRun)
    }
}

/// The answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Go,
    GoWithWaivers,
    NoGo,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Go => "go",
            Verdict::GoWithWaivers => "go-with-waivers",
            Verdict::NoGo => "no-go",
        }
    }
}

/// One piece of evidence behind a criterion: a statement fingerprint, a table, a rule, a transaction
/// class, an error, a file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// `fingerprint`, `table`, `rule`, `transaction`, `error`, `file`, `category`, `side`.
    pub kind: String,
    /// What a waiver's `match` names: the fingerprint id, table name, rule id, class id, file path.
    pub id: String,
    /// The fingerprint text, the error message, the reason: for people.
    pub detail: String,
    /// The item's own measure (executions, rows, ratio, …), when it has one.
    #[serde(default)]
    pub value: Option<f64>,
    /// This item's own status: the items at `fail`/`vacuous` are what a waiver must cover.
    pub status: Status,
    /// The waiver that covers it, by index in the report's `waivers`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waived_by: Option<usize>,
    /// Further facts: the rewrite, the example SQL, the error code, the interval.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One criterion of the gate.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Criterion {
    /// `audit.fail`, `replay.latency`, …
    pub id: String,
    /// `audit`, `replay`, `verify`, `evidence`.
    pub stage: String,
    pub status: Status,
    /// The measured value (a count, a share, a ratio), null when nothing was measured.
    pub value: Option<f64>,
    /// The value said in words with its unit.
    pub measured: String,
    /// The gate's levels, in words (`fail above 0`, `warn below 0.95`).
    pub threshold: String,
    /// One line: why this status.
    pub summary: String,
    pub evidence: Vec<Evidence>,
    /// The status before waivers (equal to `status` unless waived).
    pub status_before_waivers: Status,
}

/// A stage file as the report read it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReportInput {
    pub path: String,
    pub schema: String,
    /// xxh3-64 of the file's bytes.
    pub xxh3: String,
    pub bytes: u64,
    /// When the stage finished (its header).
    pub finished: String,
    /// The capture files the stage read (their paths and digests), and its servers.
    pub captures: Vec<crate::workload::InputRef>,
    pub endpoints: crate::workload::Endpoints,
}

/// One verify result in the history (oldest first): the newest decides.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VerifyPoint {
    pub path: String,
    pub finished: String,
    /// Round of a `--watch` file (1-based), or null for a single verify.
    pub round: Option<u32>,
    pub total_differences: u64,
    pub in_flight: u64,
}

/// What changed since `--baseline`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct BaselineDiff {
    pub path: String,
    pub verdict_before: Option<Verdict>,
    /// Criteria whose status got better or worse, and evidence items new or gone (fixed).
    pub better: Vec<String>,
    pub worse: Vec<String>,
    pub new: Vec<String>,
    pub fixed: Vec<String>,
}

/// Figures the charts draw, kept in the result so every printer draws from the same data.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ChartData {
    /// Per class (statement or transaction) with a latency test: ratio and interval.
    pub latency_classes: Vec<LatencyClass>,
    /// Per 10 s of replay and side: statements/s and p95 (ms).
    pub timeline: Vec<TimelinePoint>,
    /// Differences per table in the newest verify.
    pub verify_tables: Vec<(String, u64)>,
    /// Audit verdicts per category: (category, fail statements, warn statements).
    pub audit_categories: Vec<(String, u64, u64)>,
    /// Statement rewrites: (fingerprint id, original, rewrite).
    pub rewrites: Vec<(String, String, String)>,
}

/// A latency class for the charts.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LatencyClass {
    /// `statement` or `transaction`.
    pub kind: String,
    pub id: String,
    pub name: String,
    pub count: u64,
    /// Source total time (ms), to rank classes.
    pub total_ms: f64,
    pub ratio: f64,
    pub ratio_ci: Option<[f64; 2]>,
    /// Source and target percentiles (p50, p95, p99, max) in ms.
    pub source_ms: [f64; 4],
    pub target_ms: [f64; 4],
    pub status: Status,
    /// The percentile curves from the replay's latency histograms (`latency_hist`): ms at each of
    /// [`CURVE_PERCENTILES`] (100 = the maximum), source and target; empty when the replay result
    /// carries no histogram (the charts then draw the four percentiles above).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_curve: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub target_curve: Vec<f64>,
}

/// The percentiles of [`LatencyClass::source_curve`] and `target_curve`.
pub const CURVE_PERCENTILES: [f64; 14] = [
    1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 98.0, 99.0, 99.5, 99.9, 99.99, 100.0,
];

/// One slice of a replay's timeline.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TimelinePoint {
    pub side: String,
    pub t_s: u64,
    pub qps: f64,
    pub p95_ms: f64,
}

/// The go/no-go report (`cutover.report/1`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GoNoGoReport {
    #[serde(flatten)]
    pub header: Header,
    pub verdict: Verdict,
    /// Why, in one line: the blocking criteria.
    pub reason: String,
    /// The gate file applied (`built-in` for checklists/gate.toml as shipped).
    pub gate: String,
    pub criteria: Vec<Criterion>,
    pub waivers: Vec<WaiverUse>,
    pub effort: EffortReport,
    /// The stage files read.
    pub stage_inputs: Vec<ReportInput>,
    pub verify_history: Vec<VerifyPoint>,
    /// The verify history converges (differences shrinking to the newest), when there are several.
    pub verify_converging: Option<bool>,
    pub baseline: Option<BaselineDiff>,
    pub charts: ChartData,
}

impl GoNoGoReport {
    /// The verify history's trend in words: `converging`, `not converging`, `one point`.
    pub fn verify_trend(&self) -> &'static str {
        verify::trend_name(self.verify_converging)
    }

    /// Exit code: 0 for go and go-with-waivers, 1 for no-go.
    pub fn failed(&self) -> bool {
        self.verdict == Verdict::NoGo
    }

    pub fn criterion(&self, id: &str) -> Option<&Criterion> {
        self.criteria.iter().find(|c| c.id == id)
    }
}
