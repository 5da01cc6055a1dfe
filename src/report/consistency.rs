//! `evidence.consistency`: the stage results describe the same capture and the same databases.
//! Replay and audit must have read the same capture (their inputs' xxh3 digests), replay's and
//! verify's target must be the same database (and source).

use super::{Criterion, Evidence, Status};
use crate::workload::Endpoints;

fn ev(kind: &str, id: &str, detail: String, status: Status) -> Evidence {
    Evidence {
        kind: kind.into(),
        id: id.into(),
        detail,
        value: None,
        status,
        waived_by: None,
        notes: Vec::new(),
    }
}

/// The capture files a stage read: (path, xxh3).
type Captures = Vec<(String, Option<String>)>;

/// `captures`: per stage (`audit`, `replay`, `digest`) the capture files it read (path, xxh3).
/// `endpoints`: per stage (`replay`, `verify`) its servers.
pub fn criterion(captures: &[(&str, Captures)], endpoints: &[(&str, &Endpoints)]) -> Criterion {
    let mut evidence = Vec::new();
    let mut checks = 0;
    // Captures: every pair of stages that recorded digests must share them.
    let digests = |files: &Vec<(String, Option<String>)>| {
        let mut d: Vec<String> = files.iter().filter_map(|(_, h)| h.clone()).collect();
        d.sort();
        d.dedup();
        d
    };
    for (i, (a, fa)) in captures.iter().enumerate() {
        for (b, fb) in captures.iter().skip(i + 1) {
            let (da, db) = (digests(fa), digests(fb));
            if da.is_empty() || db.is_empty() {
                continue;
            }
            checks += 1;
            let shared = da.iter().filter(|h| db.contains(h)).count();
            let names = |f: &Vec<(String, Option<String>)>| {
                f.iter()
                    .map(|(p, h)| {
                        format!("{p} ({})", h.as_deref().unwrap_or("not read to its end"))
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if shared == 0 {
                evidence.push(ev(
                    "capture",
                    &format!("{a}/{b}"),
                    format!(
                        "{a} read {}; {b} read {}: not the same capture",
                        names(fa),
                        names(fb)
                    ),
                    Status::Fail,
                ));
            } else if da != db {
                evidence.push(ev(
                    "capture",
                    &format!("{a}/{b}"),
                    format!(
                        "{a} read {}; {b} read {}: partly the same capture",
                        names(fa),
                        names(fb)
                    ),
                    Status::Warn,
                ));
            } else {
                evidence.push(ev(
                    "capture",
                    &format!("{a}/{b}"),
                    format!("same capture: {}", names(fa)),
                    Status::Pass,
                ));
            }
        }
    }
    // Databases: replay's and verify's target (and source) must be the same.
    let norm = |u: &Option<String>| {
        u.as_deref()
            .map(|s| s.trim_end_matches('/').to_ascii_lowercase())
    };
    for (i, (a, ea)) in endpoints.iter().enumerate() {
        for (b, eb) in endpoints.iter().skip(i + 1) {
            for (side, x, y) in [
                ("target", &ea.target, &eb.target),
                ("source", &ea.source, &eb.source),
            ] {
                let (Some(x2), Some(y2)) = (norm(x), norm(y)) else {
                    continue;
                };
                checks += 1;
                let (xs, ys) = (x.as_deref().unwrap_or(""), y.as_deref().unwrap_or(""));
                if x2 == y2 {
                    evidence.push(ev(
                        "database",
                        &format!("{a}/{b} {side}"),
                        format!("same {side}: {xs}"),
                        Status::Pass,
                    ));
                } else {
                    evidence.push(ev("database", &format!("{a}/{b} {side}"), format!("{a}'s {side} is {xs} but {b}'s is {ys}: the evidence is about different databases"), Status::Fail));
                }
            }
        }
    }
    let status = if checks == 0 {
        Status::Pass
    } else {
        evidence
            .iter()
            .map(|e| e.status)
            .max()
            .unwrap_or(Status::Pass)
    };
    let bad: Vec<&str> = evidence
        .iter()
        .filter(|e| e.status != Status::Pass)
        .map(|e| e.detail.as_str())
        .collect();
    Criterion {
        id: "evidence.consistency".into(),
        stage: "evidence".into(),
        status,
        value: Some(bad.len() as f64),
        measured: format!(
            "{checks} check(s) of captures (xxh3) and databases, {} disagreement(s)",
            bad.len()
        ),
        threshold: "any different capture or database fails".into(),
        summary: if checks == 0 {
            "nothing to cross-check (one stage, or no digests recorded)".into()
        } else if bad.is_empty() {
            "the stages read the same capture and talked to the same databases".into()
        } else {
            bad.join("; ")
        },
        evidence,
        status_before_waivers: status,
    }
}
