//! Read the stage results → criteria → waivers → verdict, effort, charts, baseline.

use super::inputs::{ReportError, StageInputs};
use super::*;
use crate::workload::time::parse_iso_micros;
use crate::workload::{InputRef, SchemaId};
use std::path::PathBuf;

/// What `cutover report` was given.
#[derive(Clone, Debug, Default)]
pub struct ReportOptions {
    pub audits: Vec<PathBuf>,
    pub replays: Vec<PathBuf>,
    pub verifies: Vec<PathBuf>,
    pub digest: Option<PathBuf>,
    /// A gate over the built-in one.
    pub gate: Option<PathBuf>,
    pub waivers: Option<PathBuf>,
    pub baseline: Option<PathBuf>,
    /// The report's "now" (µs since the epoch), for freshness and waiver expiry; `None`: the clock.
    pub now_us: Option<i64>,
}

/// Every criterion id, in the report's order.
pub const CRITERIA: [&str; 13] = [
    "audit.fail",
    "audit.warn",
    "replay.mismatches",
    "replay.target_errors",
    "replay.latency",
    "replay.coverage",
    "replay.pace",
    "replay.throughput",
    "verify.differences",
    "verify.unverified",
    "verify.schema",
    "verify.freshness",
    "evidence.consistency",
];

fn captures_of(h: &crate::workload::Header) -> Vec<(String, Option<String>)> {
    h.inputs
        .iter()
        .map(|i| (i.path.clone(), i.xxh3.clone()))
        .collect()
}

/// Builds the report from the stage files.
pub fn build(opts: &ReportOptions) -> Result<GoNoGoReport, ReportError> {
    let mut header = Header::start(SchemaId("cutover.report/1"));
    let now_us = opts
        .now_us
        .unwrap_or_else(|| parse_iso_micros(&header.started).unwrap_or(0));
    let today = crate::workload::time::format_iso_micros(now_us)[..10].to_string();
    let gate = match &opts.gate {
        Some(p) => gate::Gate::load(p)?,
        None => gate::Gate::built_in(),
    };
    let waivers = match &opts.waivers {
        Some(p) => waivers::load(p, &CRITERIA)?,
        None => Vec::new(),
    };
    let baseline: Option<GoNoGoReport> = match &opts.baseline {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| ReportError::Read {
                path: p.display().to_string(),
                message: e.to_string(),
            })?;
            let v: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| ReportError::NotAStageResult {
                    path: p.display().to_string(),
                    message: format!("not JSON ({e})"),
                })?;
            if v.get("schema").and_then(|s| s.as_str()) != Some("cutover.report/1") {
                return Err(ReportError::NotAStageResult {
                    path: p.display().to_string(),
                    message: "--baseline takes an earlier cutover.report/1 JSON result".into(),
                });
            }
            Some(
                serde_json::from_value(v).map_err(|e| ReportError::NotAStageResult {
                    path: p.display().to_string(),
                    message: format!("does not read as a report: {e}"),
                })?,
            )
        }
        None => None,
    };
    let inputs = StageInputs::load(
        &opts.audits,
        &opts.replays,
        &opts.verifies,
        opts.digest.as_deref(),
    )?;

    let mut criteria = audit::criteria(&inputs.audits, &gate);
    let (replay_criteria, latency_classes) = replay::criteria(inputs.replay.as_ref(), &gate);
    criteria.extend(replay_criteria);
    let history = inputs.verify_history();
    let newest = inputs.verifies.last().map(|(p, r, _)| (p.as_str(), r));
    criteria.extend(verify::criteria(newest, &history, now_us, &gate));
    let mut captures = Vec::new();
    for a in &inputs.audits {
        captures.push(("audit", captures_of(&a.header)));
    }
    if let Some(r) = &inputs.replay {
        captures.push(("replay", captures_of(&r.header)));
    }
    if let Some(d) = &inputs.digest {
        captures.push(("digest", captures_of(&d.header)));
    }
    let mut endpoints = Vec::new();
    if let Some(r) = &inputs.replay {
        endpoints.push(("replay", &r.header.endpoints));
    }
    if let Some((_, v)) = newest {
        endpoints.push(("verify", &v.header.endpoints));
    }
    criteria.push(consistency::criterion(&captures, &endpoints));

    let waiver_uses = waivers::apply(&mut criteria, waivers, &today);
    let blocking: Vec<&Criterion> = criteria.iter().filter(|c| c.status.blocks()).collect();
    let verdict = if !blocking.is_empty() {
        Verdict::NoGo
    } else if criteria.iter().any(|c| c.status == Status::Waived) {
        Verdict::GoWithWaivers
    } else {
        Verdict::Go
    };
    let reason = match verdict {
        Verdict::NoGo => format!(
            "blocked by {}",
            blocking
                .iter()
                .map(|c| format!("{} ({})", c.id, c.status.name()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Verdict::GoWithWaivers => format!(
            "every criterion passes or is waived ({} waived)",
            criteria
                .iter()
                .filter(|c| c.status == Status::Waived)
                .map(|c| c.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Verdict::Go => "every criterion passes (warnings are shown, never blocking)".into(),
    };

    let effort = effort::estimate(&inputs.audits, &effort::EffortCosts::built_in());
    let charts = charts(&inputs, latency_classes);

    header.inputs = inputs
        .files
        .iter()
        .map(|f| InputRef {
            path: f.path.clone(),
            bytes: Some(f.bytes),
            xxh3: Some(f.xxh3.clone()),
            damaged: None,
        })
        .collect();
    if let Some(r) = &inputs.replay {
        header.endpoints = r.header.endpoints.clone();
    } else if let Some((_, v)) = newest {
        header.endpoints = v.header.endpoints.clone();
    }
    let mut report = GoNoGoReport {
        verdict,
        reason,
        gate: gate.name.clone(),
        criteria,
        waivers: waiver_uses,
        effort,
        stage_inputs: inputs.files.clone(),
        verify_converging: verify::converging(&history),
        verify_history: history,
        baseline: None,
        charts,
        header,
    };
    if let (Some(b), Some(p)) = (&baseline, &opts.baseline) {
        report.baseline = Some(baseline::compare(&p.display().to_string(), b, &report));
    }
    report.header.finish();
    Ok(report)
}

fn charts(inputs: &StageInputs, mut latency_classes: Vec<LatencyClass>) -> ChartData {
    latency_classes.sort_by(|a, b| {
        b.total_ms
            .partial_cmp(&a.total_ms)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut c = ChartData {
        latency_classes,
        ..ChartData::default()
    };
    if let Some(r) = &inputs.replay {
        for (side, s) in &r.sides {
            for t in &s.timeline {
                c.timeline.push(TimelinePoint {
                    side: side.clone(),
                    t_s: t.t_s,
                    qps: t.qps,
                    p95_ms: t.latency_ms.as_ref().map(|l| l.p95).unwrap_or(t.p99_ms),
                });
            }
        }
    }
    if let Some((_, v, _)) = inputs.verifies.last() {
        c.verify_tables = v
            .tables
            .iter()
            .map(|t| {
                (
                    t.table.clone(),
                    t.missing_in_target
                        + t.extra_in_target
                        + t.different
                        + u64::from(t.target_missing),
                )
            })
            .collect();
    }
    let mut cats: std::collections::BTreeMap<String, (u64, u64)> = Default::default();
    for st in inputs.audits.iter().flat_map(|a| &a.statements) {
        let mut seen = std::collections::BTreeSet::new();
        for f in &st.findings {
            if !seen.insert(f.category.clone()) {
                continue;
            }
            let e = cats.entry(f.category.clone()).or_default();
            match st.verdict {
                crate::audit::Verdict::Fail => e.0 += 1,
                crate::audit::Verdict::Warn => e.1 += 1,
                crate::audit::Verdict::Ok => {}
            }
        }
        if let Some(r) = &st.rewrite
            && c.rewrites.len() < 50
        {
            c.rewrites
                .push((st.fingerprint_id.clone(), st.sql.clone(), r.clone()));
        }
    }
    c.audit_categories = cats
        .into_iter()
        .filter(|(_, (f, w))| f + w > 0)
        .map(|(k, (f, w))| (k, f, w))
        .collect();
    c
}
