//! Reading the stage results back: each file by its `schema` id into its stage's type. A file that
//! cannot be read, is not JSON, or is no stage result (or not the stage its flag says) is an error:
//! the report cannot be made (exit code 2).

use super::{ReportInput, VerifyPoint};
use crate::audit::AuditReport;
use crate::digest::Digest;
use crate::replay::ReplayReport;
use crate::verify::{VerifyReport, WatchReport};
use crate::workload::{Header, SchemaId};
use std::path::{Path, PathBuf};

/// Why the report cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot read {path}: {message}")]
    Read { path: String, message: String },
    #[error("{path}: {message}")]
    NotAStageResult { path: String, message: String },
    #[error("the gate {path}: {message}")]
    Gate { path: String, message: String },
    #[error("the waivers {path}: {message}")]
    Waivers { path: String, message: String },
    #[error("the effort costs: {0}")]
    Effort(String),
    #[error("{0}")]
    Other(String),
}

/// Every stage result given to the report, typed.
#[derive(Default)]
pub struct StageInputs {
    pub audits: Vec<AuditReport>,
    /// Merged as `cutover merge` does when several.
    pub replay: Option<ReplayReport>,
    /// Oldest first; each with its rounds when it came from `--watch`.
    pub verifies: Vec<(String, VerifyReport, Option<WatchReport>)>,
    pub digest: Option<Digest>,
    pub files: Vec<ReportInput>,
}

fn read(path: &Path) -> Result<(Vec<u8>, serde_json::Value), ReportError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ReportError::Read {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    let value: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| ReportError::NotAStageResult {
            path: shown.clone(),
            message: format!("not JSON ({e}); give the output of a stage's --format json"),
        })?;
    Ok((bytes, value))
}

fn typed<T: serde::de::DeserializeOwned>(
    path: &Path,
    value: serde_json::Value,
    what: &str,
) -> Result<T, ReportError> {
    serde_json::from_value(value).map_err(|e| ReportError::NotAStageResult {
        path: path.display().to_string(),
        message: format!("says it is a {what} result but does not read as one: {e}"),
    })
}

fn schema_of(path: &Path, value: &serde_json::Value) -> Result<String, ReportError> {
    value
        .get("schema")
        .and_then(|s| s.as_str())
        .map(str::to_string)
        .ok_or_else(|| ReportError::NotAStageResult {
            path: path.display().to_string(),
            message: "has no \"schema\" field: not a cutover stage result".into(),
        })
}

fn wrong(path: &Path, flag: &str, schema: &str, expected: &[SchemaId]) -> ReportError {
    ReportError::NotAStageResult {
        path: path.display().to_string(),
        message: format!(
            "is a {schema} result; {flag} takes {}",
            expected
                .iter()
                .map(|s| s.0)
                .collect::<Vec<_>>()
                .join(" or ")
        ),
    }
}

fn record(files: &mut Vec<ReportInput>, path: &Path, bytes: &[u8], header: &Header) {
    files.push(ReportInput {
        path: path.display().to_string(),
        schema: header.schema.clone(),
        xxh3: format!("{:016x}", xxhash_rust::xxh3::xxh3_64(bytes)),
        bytes: bytes.len() as u64,
        finished: header.finished.clone(),
        captures: header.inputs.clone(),
        endpoints: header.endpoints.clone(),
    });
}

impl StageInputs {
    /// Reads every file; replays are merged, verifies sorted oldest first.
    pub fn load(
        audits: &[PathBuf],
        replays: &[PathBuf],
        verifies: &[PathBuf],
        digest: Option<&Path>,
    ) -> Result<StageInputs, ReportError> {
        let mut s = StageInputs::default();
        for p in audits {
            let (bytes, v) = read(p)?;
            let schema = schema_of(p, &v)?;
            if schema != SchemaId::AUDIT.0 {
                return Err(wrong(p, "--audit", &schema, &[SchemaId::AUDIT]));
            }
            let a: AuditReport = typed(p, v, "audit")?;
            record(&mut s.files, p, &bytes, &a.header);
            s.audits.push(a);
        }
        let mut reps = Vec::new();
        for p in replays {
            let (bytes, v) = read(p)?;
            let schema = schema_of(p, &v)?;
            if schema != SchemaId::REPLAY.0 {
                return Err(wrong(p, "--replay", &schema, &[SchemaId::REPLAY]));
            }
            let r: ReplayReport = typed(p, v, "replay")?;
            record(&mut s.files, p, &bytes, &r.header);
            reps.push(r);
        }
        if !reps.is_empty() {
            s.replay = Some(
                crate::replay::merge(reps)
                    .map_err(|e| ReportError::Other(format!("the replay results: {e}")))?,
            );
        }
        for p in verifies {
            let (bytes, v) = read(p)?;
            let schema = schema_of(p, &v)?;
            let shown = p.display().to_string();
            if schema == SchemaId::VERIFY.0 {
                let r: VerifyReport = typed(p, v, "verify")?;
                record(&mut s.files, p, &bytes, &r.header);
                s.verifies.push((shown, r, None));
            } else if schema == SchemaId::VERIFY_WATCH.0 {
                let w: WatchReport = typed(p, v, "verify --watch")?;
                record(&mut s.files, p, &bytes, &w.header);
                s.verifies.push((shown, w.report.clone(), Some(w)));
            } else {
                return Err(wrong(
                    p,
                    "--verify",
                    &schema,
                    &[SchemaId::VERIFY, SchemaId::VERIFY_WATCH],
                ));
            }
        }
        s.verifies
            .sort_by(|a, b| a.1.header.finished.cmp(&b.1.header.finished));
        if let Some(p) = digest {
            let (bytes, v) = read(p)?;
            let schema = schema_of(p, &v)?;
            if schema != SchemaId::DIGEST.0 {
                return Err(wrong(p, "--digest", &schema, &[SchemaId::DIGEST]));
            }
            let d: Digest = typed(p, v, "digest")?;
            record(&mut s.files, p, &bytes, &d.header);
            s.digest = Some(d);
        }
        Ok(s)
    }

    /// The verify history, oldest first: a `--watch` file gives one point per round.
    pub fn verify_history(&self) -> Vec<VerifyPoint> {
        let mut out = Vec::new();
        for (path, r, watch) in &self.verifies {
            match watch {
                Some(w) => out.extend(w.rounds.iter().map(|round| VerifyPoint {
                    path: path.clone(),
                    finished: w.header.finished.clone(),
                    round: Some(round.round),
                    total_differences: round.total_differences,
                    in_flight: round.in_flight,
                })),
                None => out.push(VerifyPoint {
                    path: path.clone(),
                    finished: r.header.finished.clone(),
                    round: None,
                    total_differences: r.total_differences,
                    in_flight: r.tables.iter().map(|t| t.in_flight).sum(),
                }),
            }
        }
        out
    }
}
