//! The verify criteria: persistent differences, tables not verified, schema findings, freshness. The
//! newest verify decides; the history shows the trend.

use super::gate::{Gate, above, describe_above, num};
use super::{Criterion, Evidence, Status, VerifyPoint};
use crate::verify::{TableStatus, VerifyReport};
use crate::workload::time::parse_iso_micros;

pub const IDS: [&str; 4] = [
    "verify.differences",
    "verify.unverified",
    "verify.schema",
    "verify.freshness",
];

fn criterion(
    id: &str,
    status: Status,
    value: Option<f64>,
    measured: String,
    threshold: String,
    summary: String,
    evidence: Vec<Evidence>,
) -> Criterion {
    Criterion {
        id: id.into(),
        stage: "verify".into(),
        status,
        value,
        measured,
        threshold,
        summary,
        evidence,
        status_before_waivers: status,
    }
}

fn table_ev(
    table: &str,
    detail: String,
    value: Option<f64>,
    status: Status,
    notes: Vec<String>,
) -> Evidence {
    Evidence {
        kind: "table".into(),
        id: table.into(),
        detail,
        value,
        status,
        waived_by: None,
        notes,
    }
}

pub fn criteria(
    newest: Option<(&str, &VerifyReport)>,
    history: &[VerifyPoint],
    now_us: i64,
    gate: &Gate,
) -> Vec<Criterion> {
    let Some((path, v)) = newest else {
        return IDS
            .iter()
            .map(|id| {
                criterion(
                    id,
                    Status::NotRun,
                    None,
                    "no verify result given".into(),
                    String::new(),
                    "not run: give --verify FILE (cutover verify --format json)".into(),
                    Vec::new(),
                )
            })
            .collect();
    };
    let rows_compared: u64 = v
        .tables
        .iter()
        .filter(|t| t.status != TableStatus::NotVerified)
        .map(|t| t.rows_source + t.rows_target)
        .sum();
    let vacuous = v.tables.is_empty() || rows_compared == 0;

    // Differences: rows (after --live re-checks) and missing tables.
    let levels = gate.levels("verify.differences");
    let mut rows = 0;
    let mut evidence = Vec::new();
    for t in &v.tables {
        let n = t.missing_in_target + t.extra_in_target + t.different + u64::from(t.target_missing);
        rows += n;
        if n > 0 {
            let notes = t
                .examples
                .iter()
                .take(5)
                .map(|x| {
                    format!(
                        "{} key {}{}",
                        x.kind.name(),
                        x.key,
                        if x.columns.is_empty() {
                            String::new()
                        } else {
                            format!(" columns {}", x.columns.join(", "))
                        }
                    )
                })
                .collect();
            evidence.push(table_ev(
                &t.table,
                format!(
                    "{} missing, {} extra, {} different{}",
                    t.missing_in_target,
                    t.extra_in_target,
                    t.different,
                    if t.target_missing {
                        " (table missing on the target)"
                    } else {
                        ""
                    }
                ),
                Some(n as f64),
                Status::Fail,
                notes,
            ));
        }
    }
    let status = if vacuous {
        Status::Vacuous
    } else {
        above(rows as f64, levels)
    };
    for e in &mut evidence {
        e.status = status;
    }
    let trend = if history.len() > 1 {
        format!(
            "; history {} ({})",
            history
                .iter()
                .map(|p| p.total_differences.to_string())
                .collect::<Vec<_>>()
                .join(" → "),
            trend_name(converging(history))
        )
    } else {
        String::new()
    };
    let in_flight: u64 = v.tables.iter().map(|t| t.in_flight).sum();
    let diff = criterion(
        "verify.differences",
        status,
        Some(rows as f64),
        format!(
            "{rows} row(s) differ in {} of {} table(s){}{trend}",
            evidence.len(),
            v.tables.len(),
            if v.live {
                format!(" after live re-checks ({in_flight} in flight)")
            } else {
                String::new()
            }
        ),
        format!("rows: {}", describe_above(levels)),
        match status {
            Status::Vacuous => {
                "no row was compared (no table, or every table empty or not verified)".into()
            }
            Status::Pass => format!(
                "{} table(s), {} rows per side, identical",
                v.tables.len(),
                rows_compared / 2
            ),
            _ => format!(
                "{rows} row(s) differ: {}",
                evidence
                    .iter()
                    .map(|e| e.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
        evidence,
    );

    // Unverified tables.
    let levels = gate.levels("verify.unverified");
    let unverified: Vec<_> = v
        .tables
        .iter()
        .filter(|t| t.status == TableStatus::NotVerified)
        .collect();
    let ustatus = if v.tables.is_empty() {
        Status::Vacuous
    } else {
        above(unverified.len() as f64, levels)
    };
    let uev = unverified
        .iter()
        .map(|t| {
            table_ev(
                &t.table,
                t.reason
                    .clone()
                    .unwrap_or_else(|| "no reason recorded".into()),
                None,
                ustatus,
                Vec::new(),
            )
        })
        .chain(
            v.not_verified
                .iter()
                .filter(|n| !unverified.iter().any(|t| &t.table == *n))
                .map(|n| table_ev(n, "not verified".into(), None, ustatus, Vec::new())),
        )
        .collect::<Vec<_>>();
    let unv = criterion(
        "verify.unverified",
        ustatus,
        Some(uev.len() as f64),
        format!("{} of {} table(s) not verified", uev.len(), v.tables.len()),
        format!("tables: {}", describe_above(levels)),
        if uev.is_empty() {
            "every table was verified".into()
        } else {
            format!(
                "not verified: {}",
                uev.iter()
                    .map(|e| format!("{} ({})", e.id, e.detail))
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        },
        uev,
    );

    // Schema: findings warn, values the target cannot hold fail.
    let (warn, fail) = gate.levels("verify.schema");
    let mut sev = Vec::new();
    let (mut findings, mut cannot) = (0u64, 0u64);
    for t in &v.tables {
        findings += t.schema.len() as u64;
        cannot += t.cannot_hold.len() as u64;
        if !t.schema.is_empty() || !t.cannot_hold.is_empty() {
            let status =
                if !t.cannot_hold.is_empty() && fail >= 0.0 && t.cannot_hold.len() as f64 > fail {
                    Status::Fail
                } else {
                    Status::Warn
                };
            let mut notes = t.schema.clone();
            notes.extend(t.cannot_hold.iter().map(|c| format!("cannot hold: {c}")));
            sev.push(table_ev(
                &t.table,
                format!(
                    "{} schema finding(s), {} value(s) the target cannot hold",
                    t.schema.len(),
                    t.cannot_hold.len()
                ),
                Some((t.schema.len() + t.cannot_hold.len()) as f64),
                status,
                notes,
            ));
        }
    }
    let sstatus = if v.tables.is_empty() {
        Status::Vacuous
    } else if fail >= 0.0 && cannot as f64 > fail {
        Status::Fail
    } else if warn >= 0.0 && (findings + cannot) as f64 > warn {
        Status::Warn
    } else {
        Status::Pass
    };
    let schema = criterion(
        "verify.schema",
        sstatus,
        Some((findings + cannot) as f64),
        format!(
            "{findings} schema finding(s) (types, missing columns, sequences), {cannot} value(s) the target cannot hold"
        ),
        format!(
            "schema findings warn above {}; values the target cannot hold fail above {}",
            num(warn),
            num(fail)
        ),
        if sev.is_empty() {
            "column types and sequences agree".into()
        } else {
            format!(
                "schema findings on {}",
                sev.iter()
                    .map(|e| e.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        },
        sev,
    );

    // Freshness of the newest verify.
    let (warn, fail) = gate.levels("verify.freshness");
    let age_h = parse_iso_micros(&v.header.finished).map(|f| (now_us - f) as f64 / 3.6e9);
    let fstatus = match age_h {
        None => Status::Fail,
        Some(h) => above(h, (warn, fail)),
    };
    let fresh = criterion(
        "verify.freshness",
        fstatus,
        age_h,
        match age_h {
            Some(h) => format!(
                "the newest verify ({path}) finished {} ago",
                crate::render::duration(h * 3600.0)
            ),
            None => format!("the newest verify ({path}) has no readable finish time"),
        },
        format!("age in hours: {}", describe_above((warn, fail))),
        match fstatus {
            Status::Pass => "the data was verified recently".into(),
            _ => "the verify is old: the data may have drifted since; run it again".into(),
        },
        vec![Evidence {
            kind: "file".into(),
            id: path.into(),
            detail: format!("finished {}", v.header.finished),
            value: age_h,
            status: fstatus,
            waived_by: None,
            notes: Vec::new(),
        }],
    );
    vec![diff, unv, schema, fresh]
}

/// Whether the history converges: each point has no more differences than the one before, and the
/// newest is 0 (or lower than the first).
pub fn converging(history: &[VerifyPoint]) -> Option<bool> {
    if history.len() < 2 {
        return None;
    }
    let first = history.first()?.total_differences;
    let last = history.last()?.total_differences;
    let monotone = history
        .windows(2)
        .all(|w| w[1].total_differences <= w[0].total_differences);
    Some(last == 0 || (monotone && last < first))
}

/// The trend in words: `converging`, `not converging`, or `one point`.
pub fn trend_name(converging: Option<bool>) -> &'static str {
    match converging {
        Some(true) => "converging",
        Some(false) => "not converging",
        None => "one point",
    }
}
