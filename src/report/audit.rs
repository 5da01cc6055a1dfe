//! `audit.fail` and `audit.warn`: the statements the target rejects (weighted by executions and by
//! time, each with its rewrite or the manual step) and those whose results may differ, by category.

use super::gate::{Gate, above, describe_above};
use super::{Criterion, Evidence, Status};
use crate::audit::{AuditReport, StatementAudit, Verdict};
use std::collections::BTreeMap;

fn not_run(id: &str) -> Criterion {
    Criterion {
        id: id.into(),
        stage: "audit".into(),
        status: Status::NotRun,
        value: None,
        measured: "no audit result given".into(),
        threshold: String::new(),
        summary: "not run: give --audit FILE (cutover audit --format json)".into(),
        evidence: Vec::new(),
        status_before_waivers: Status::NotRun,
    }
}

/// The manual step for a statement without a rewrite: its failing rules' titles and messages.
fn manual_step(st: &StatementAudit, severity: crate::profile::Severity) -> Vec<String> {
    st.findings
        .iter()
        .filter(|f| f.severity == severity)
        .map(|f| {
            let fix = f
                .rewrite
                .as_deref()
                .map(|r| format!(" Fix: {r}"))
                .unwrap_or_default();
            format!("{} {}: {}{fix}", f.rule, f.title, f.message)
        })
        .collect()
}

pub fn criteria(audits: &[AuditReport], gate: &Gate) -> Vec<Criterion> {
    if audits.is_empty() {
        return vec![not_run("audit.fail"), not_run("audit.warn")];
    }
    let statements: Vec<&StatementAudit> = audits.iter().flat_map(|a| &a.statements).collect();
    let executions: u64 = statements.iter().map(|s| s.count).sum();
    let total_time: f64 = statements.iter().filter_map(|s| s.total_time_s).sum();
    let timed = statements.iter().any(|s| s.total_time_s.is_some());
    let failing: Vec<&&StatementAudit> = statements
        .iter()
        .filter(|s| s.verdict == Verdict::Fail)
        .collect();
    let fail_exec: u64 = failing.iter().map(|s| s.count).sum();
    let fail_time: f64 = failing.iter().filter_map(|s| s.total_time_s).sum();
    let share = if executions > 0 {
        fail_exec as f64 / executions as f64
    } else {
        0.0
    };
    let time_share = (timed && total_time > 0.0).then(|| fail_time / total_time);
    let levels = gate.levels("audit.fail");
    let mut evidence: Vec<Evidence> = failing
        .iter()
        .map(|s| {
            let mut notes = Vec::new();
            match &s.rewrite {
                Some(r) => notes.push(format!("rewrite (automatic): {r}")),
                None => {
                    notes.push("manual:".into());
                    notes.extend(manual_step(s, crate::profile::Severity::Error));
                }
            }
            notes.push(format!("example: {}", s.sql));
            Evidence {
                kind: "fingerprint".into(),
                id: s.fingerprint_id.clone(),
                detail: s.fingerprint.clone(),
                value: Some(s.count as f64),
                status: Status::Fail,
                waived_by: None,
                notes,
            }
        })
        .collect();
    // Failing rule ids too, so a waiver can name a rule rather than every statement it hits.
    evidence.sort_by(|a, b| {
        b.value
            .partial_cmp(&a.value)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let status = if statements.is_empty() {
        Status::Vacuous
    } else {
        // Any failing statement is above a level of 0: compare the share, but a single failing
        // statement with a zero-execution weight still counts.
        let v = if fail_exec == 0 && !failing.is_empty() {
            f64::MIN_POSITIVE
        } else {
            share.max(time_share.unwrap_or(0.0))
        };
        above(v, levels)
    };
    for e in &mut evidence {
        e.status = if status == Status::Fail {
            Status::Fail
        } else {
            Status::Warn
        };
    }
    let measured = format!(
        "{} of {} distinct statements fail; {:.2}% of {} executions{}",
        failing.len(),
        statements.len(),
        share * 100.0,
        executions,
        time_share
            .map(|t| format!(", {:.2}% of the recorded time", t * 100.0))
            .unwrap_or_default()
    );
    let fail = Criterion {
        id: "audit.fail".into(),
        stage: "audit".into(),
        status,
        value: Some(share),
        summary: match status {
            Status::Vacuous => "the audit saw no statement".into(),
            Status::Pass => "the target accepts every executed statement".into(),
            _ => format!(
                "{} statement class(es) the target rejects ({} automatic rewrite(s))",
                failing.len(),
                failing.iter().filter(|s| s.rewrite.is_some()).count()
            ),
        },
        measured,
        threshold: format!("share of executions: {}", describe_above(levels)),
        evidence,
        status_before_waivers: status,
    };

    // audit.warn: by category.
    let warning: Vec<&&StatementAudit> = statements
        .iter()
        .filter(|s| s.verdict == Verdict::Warn)
        .collect();
    let mut by_category: BTreeMap<String, (u64, u64, Vec<String>)> = BTreeMap::new();
    for s in &warning {
        for f in s
            .findings
            .iter()
            .filter(|f| f.severity == crate::profile::Severity::Warning)
        {
            let e = by_category.entry(f.category.clone()).or_default();
            e.0 += 1;
            e.1 += s.count;
            if e.2.len() < 5 && !e.2.contains(&f.rule) {
                e.2.push(f.rule.clone());
            }
        }
    }
    let wlevels = gate.levels("audit.warn");
    let wstatus = if statements.is_empty() {
        Status::Vacuous
    } else {
        above(warning.len() as f64, wlevels)
    };
    let mut wevidence: Vec<Evidence> = by_category
        .iter()
        .map(|(cat, (n, execs, rules))| Evidence {
            kind: "category".into(),
            id: cat.clone(),
            detail: format!(
                "{n} finding(s) on {execs} execution(s); rules {}",
                rules.join(", ")
            ),
            value: Some(*n as f64),
            status: wstatus.min(Status::Fail),
            waived_by: None,
            notes: Vec::new(),
        })
        .collect();
    wevidence.extend(warning.iter().take(50).map(|s| Evidence {
        kind: "fingerprint".into(),
        id: s.fingerprint_id.clone(),
        detail: s.fingerprint.clone(),
        value: Some(s.count as f64),
        status: wstatus,
        waived_by: None,
        notes: manual_step(s, crate::profile::Severity::Warning),
    }));
    let warn = Criterion {
        id: "audit.warn".into(),
        stage: "audit".into(),
        status: wstatus,
        value: Some(warning.len() as f64),
        measured: format!(
            "{} statement(s) whose results may differ, in {} categor(ies)",
            warning.len(),
            by_category.len()
        ),
        threshold: format!("statements: {}", describe_above(wlevels)),
        summary: if warning.is_empty() {
            "no statement whose results may differ".into()
        } else {
            format!(
                "results may differ: {}",
                by_category
                    .iter()
                    .map(|(c, (n, _, _))| format!("{c} {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        },
        evidence: wevidence,
        status_before_waivers: wstatus,
    };
    vec![fail, warn]
}
