//! The replay's criteria: mismatches (races apart), target errors (with what they broke), latency
//! per statement and transaction class, coverage of what the mode covers, pace, throughput.

use super::gate::{Gate, above, below, describe_above, describe_below, num};
use super::{Criterion, Evidence, LatencyClass, Status};
use crate::replay::{
    Pace, RegressionRule, RegressionTest, ReplayReport, SerializedLatency, SideReport,
};

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
        stage: "replay".into(),
        status,
        value,
        measured,
        threshold,
        summary,
        evidence,
        status_before_waivers: status,
    }
}

pub const IDS: [&str; 6] = [
    "replay.mismatches",
    "replay.target_errors",
    "replay.latency",
    "replay.coverage",
    "replay.pace",
    "replay.throughput",
];

fn not_run(why: &str) -> Vec<Criterion> {
    IDS.iter()
        .map(|id| {
            criterion(
                id,
                Status::NotRun,
                None,
                why.into(),
                String::new(),
                format!("not run: {why}"),
                Vec::new(),
            )
        })
        .collect()
}

fn ev(
    kind: &str,
    id: &str,
    detail: String,
    value: Option<f64>,
    status: Status,
    notes: Vec<String>,
) -> Evidence {
    Evidence {
        kind: kind.into(),
        id: id.into(),
        detail,
        value,
        status,
        waived_by: None,
        notes,
    }
}

pub fn criteria(replay: Option<&ReplayReport>, gate: &Gate) -> (Vec<Criterion>, Vec<LatencyClass>) {
    let Some(r) = replay else {
        return (
            not_run("no replay result given (--replay FILE from cutover replay --format json)"),
            Vec::new(),
        );
    };
    let Some(target) = r.sides.get("target") else {
        return (
            not_run("the replay ran on the source only (no --target): nothing was compared"),
            Vec::new(),
        );
    };
    let source = r.sides.get("source").cloned().unwrap_or_default();
    let (latency, classes) = latency(r, gate);
    (
        vec![
            mismatches(r, gate),
            target_errors(r, gate),
            latency,
            coverage(r, &source, gate),
            pace(r, &source, target, gate),
            throughput(&source, target, gate),
        ],
        classes,
    )
}

fn mismatches(r: &ReplayReport, gate: &Gate) -> Criterion {
    let levels = gate.levels("replay.mismatches");
    // Groups that follow a target error are that error's consequences: counted under
    // replay.target_errors, not as causes of their own.
    let own: Vec<_> = r
        .mismatch_groups
        .iter()
        .filter(|g| g.caused_by.is_none())
        .collect();
    let consequences: u64 = r
        .mismatch_groups
        .iter()
        .filter(|g| g.caused_by.is_some())
        .map(|g| g.count)
        .sum();
    let count = r.mismatches.saturating_sub(consequences);
    let status = if r.compared == 0 {
        Status::Vacuous
    } else {
        above(count as f64, levels)
    };
    let mut evidence: Vec<Evidence> = own
        .iter()
        .map(|g| {
            let mut notes = Vec::new();
            if let Some(x) = g.examples.first() {
                notes.push(format!(
                    "example (session {}, #{}): {}",
                    x.session, x.seq, x.sql
                ));
                notes.push(format!("reason: {}", x.reason));
                notes.extend(x.diff.iter().take(6).cloned());
            }
            ev(
                "fingerprint",
                &g.id,
                format!("{} [{}]", g.fingerprint, g.category),
                Some(g.count as f64),
                status,
                notes,
            )
        })
        .collect();
    if r.concurrent_races > 0 {
        evidence.push(ev("races", "concurrent_races", "reads that differed while another session committed writes to their tables: the sessions raced differently on each side; not counted".into(), Some(r.concurrent_races as f64), Status::Pass, Vec::new()));
    }
    if consequences > 0 {
        evidence.push(ev("consequences", "caused_by", "mismatches that follow an error only the target raised: counted under replay.target_errors".into(), Some(consequences as f64), Status::Pass, Vec::new()));
    }
    criterion(
        "replay.mismatches",
        status,
        Some(count as f64),
        format!(
            "{count} of {} compared executions differ ({} concurrent races apart)",
            r.compared, r.concurrent_races
        ),
        format!("executions: {}", describe_above(levels)),
        match status {
            Status::Vacuous => {
                "nothing was compared: 0 executions with results on both sides".into()
            }
            Status::Pass => format!("{} executions compared, results identical", r.compared),
            _ => format!(
                "{count} execution(s) in {} class(es) return different results on the target",
                own.len()
            ),
        },
        evidence,
    )
}

fn target_errors(r: &ReplayReport, gate: &Gate) -> Criterion {
    let levels = gate.levels("replay.target_errors");
    let mut evidence = Vec::new();
    let mut count = 0;
    let method;
    if !r.target_errors.is_empty() {
        method = "target_errors";
        for e in &r.target_errors {
            count += e.count;
            let mut notes = Vec::new();
            if let Some(x) = &e.example {
                notes.push(format!(
                    "example (session {}, #{}): {}",
                    x.session, x.seq, x.sql
                ));
            }
            if e.later_mismatches + e.later_skipped > 0 {
                notes.push(format!(
                    "then in the same session: {} mismatch(es), {} statement(s) skipped ({})",
                    e.later_mismatches,
                    e.later_skipped,
                    e.later_fingerprints.join(", ")
                ));
            }
            let code = e
                .code
                .as_deref()
                .map(|c| format!("[{c}] "))
                .unwrap_or_default();
            evidence.push(ev(
                "error",
                &e.id,
                format!("{code}{} — {}", e.message, e.fingerprint),
                Some(e.count as f64),
                Status::Fail,
                notes,
            ));
        }
    } else {
        // A replay result without the explained errors: the failing classes, with their first error.
        method = "fingerprints";
        for f in &r.fingerprints {
            let Some(t) = &f.target else { continue };
            let extra = t.errors.saturating_sub(f.source.errors);
            if extra == 0 {
                continue;
            }
            count += extra;
            let msg = t
                .first_error
                .clone()
                .unwrap_or_else(|| "error text not recorded".into());
            let mut notes = Vec::new();
            if let Some(g) = r
                .mismatch_groups
                .iter()
                .find(|g| g.id == f.id && g.category == "error_on_target")
                && let Some(x) = g.examples.first()
            {
                notes.push(format!(
                    "example (session {}, #{}): {}",
                    x.session, x.seq, x.sql
                ));
            }
            evidence.push(ev(
                "error",
                &f.id,
                format!("{msg} — {}", f.fingerprint),
                Some(extra as f64),
                Status::Fail,
                notes,
            ));
        }
    }
    let status = if r.compared == 0 && count == 0 {
        Status::Vacuous
    } else {
        above(count as f64, levels)
    };
    for e in &mut evidence {
        e.status = status;
    }
    let first = evidence
        .first()
        .map(|e| e.detail.clone())
        .unwrap_or_default();
    criterion(
        "replay.target_errors",
        status,
        Some(count as f64),
        format!("{count} execution(s) ran on the source and failed on the target"),
        format!("executions: {}", describe_above(levels)),
        match status {
            Status::Vacuous => "nothing ran on both sides".into(),
            Status::Pass => "every statement that ran on the source ran on the target".into(),
            _ => format!("{count} failed on the target (from {method}); first: {first}"),
        },
        evidence,
    )
}

/// How a class's latency is judged, and the ratio shown.
///
/// With an interval, a class is judged only by the statistics, never by its point ratio (on
/// identical servers a small class's point ratio swings to 1.4 under load; its interval does not
/// leave 1): a level (`warn`, `fail`) is crossed when the interval's LOWER bound exceeds it, a typical
/// execution is slower by at least `min_shift_ms` (the source's p50 × (ratio − 1)), and, when the
/// replay's own test was run at or below that level (`1 + regression_rule.threshold <= level`), its
/// Holm-adjusted p-value is below `alpha` (significant after the correction across the classes).
fn judge(
    test: &RegressionTest,
    rule: &RegressionRule,
    source_p50_ms: f64,
    gate: &Gate,
) -> (Status, f64, String) {
    let (warn, fail) = gate.levels("replay.latency");
    let alpha = gate.get("replay.latency", "alpha");
    let min_shift_ms = gate.get("replay.latency", "min_shift_ms");
    if let (Some(ratio), Some(ci)) = (test.ratio, test.ratio_ci) {
        let p = test.p_adjusted.unwrap_or(test.p_value);
        let slower_ms = source_p50_ms * (ratio - 1.0);
        let tested_level = 1.0 + rule.threshold;
        let beyond = |level: f64| {
            level >= 0.0
                && ci[0] > level
                && !(min_shift_ms > 0.0 && slower_ms < min_shift_ms)
                && (tested_level > level + 1e-9 || p < alpha)
        };
        let status = if beyond(fail) {
            Status::Fail
        } else if beyond(warn) {
            Status::Warn
        } else {
            Status::Pass
        };
        let why = if status == Status::Pass && ratio > warn && warn >= 0.0 {
            if ci[0] <= warn {
                format!(
                    "; the point ratio is above {} but the interval reaches {:.2}: not shown to be slower",
                    num(warn),
                    ci[0]
                )
            } else if slower_ms < min_shift_ms {
                format!(
                    "; a typical execution is {slower_ms:.3} ms slower, under the {} ms floor",
                    num(min_shift_ms)
                )
            } else {
                format!("; not significant after Holm (p {p:.3} ≥ {})", num(alpha))
            }
        } else {
            String::new()
        };
        return (
            status,
            ratio,
            format!(
                "ratio {:.2} [{:.2}, {:.2}], p(Holm) {p:.3}, typical execution {:+.3} ms{why}",
                ratio, ci[0], ci[1], slower_ms
            ),
        );
    }
    // No interval in this replay result: the p50 must exceed the level (the p95 alone is too noisy
    // to decide) and the test be significant.
    let p = test.p_adjusted.unwrap_or(test.p_value);
    let significant = p < alpha;
    let status = if significant && test.p50_ratio > fail {
        Status::Fail
    } else if significant && (test.p50_ratio > warn || test.p95_ratio > warn) {
        Status::Warn
    } else {
        Status::Pass
    };
    (
        status,
        test.p50_ratio,
        format!(
            "p50 ratio {:.2}, p95 ratio {:.2}, p {p:.3} (no interval in the replay result)",
            test.p50_ratio, test.p95_ratio
        ),
    )
}

fn pcts(l: &crate::replay::LatencySummary) -> [f64; 4] {
    [l.p50, l.p95, l.p99, l.max]
}

fn latency(r: &ReplayReport, gate: &Gate) -> (Criterion, Vec<LatencyClass>) {
    let (warn, fail) = gate.levels("replay.latency");
    let max_untested = gate.get("replay.latency", "max_untested_share");
    let min_samples = gate.get("replay.latency", "min_samples") as u64;
    let mut classes = Vec::new();
    let mut evidence = Vec::new();
    let (mut tested_exec, mut untested_exec) = (0u64, 0u64);
    let mut with_interval = 0;
    let mut without_interval = 0;
    let mut add = |kind: &str,
                   id: &str,
                   name: &str,
                   count: u64,
                   test: Option<&RegressionTest>,
                   s: &crate::replay::LatencySummary,
                   t: Option<&crate::replay::LatencySummary>,
                   hists: (&SerializedLatency, Option<&SerializedLatency>),
                   evidence: &mut Vec<Evidence>| {
        let ran = s.count;
        if ran == 0 {
            return; // not replayed (left out by the mode): replay.coverage lists it
        }
        let too_few = match test {
            None => true,
            Some(x) => {
                x.note.is_some() || s.count < min_samples || t.is_none_or(|t| t.count < min_samples)
            }
        };
        if too_few {
            untested_exec += ran;
            evidence.push(ev(
                kind,
                id,
                name.into(),
                None,
                Status::Vacuous,
                vec![format!(
                    "{ran} execution(s): too few for a verdict (fewer than {min_samples} on a side)"
                )],
            ));
            return;
        }
        let Some(test) = test else { return };
        tested_exec += ran;
        if test.ratio_ci.is_some() {
            with_interval += 1
        } else {
            without_interval += 1
        }
        let (status, ratio, how) = judge(test, &r.regression_rule, s.p50, gate);
        classes.push(LatencyClass {
            kind: kind.into(),
            id: id.into(),
            name: name.into(),
            count,
            total_ms: s.avg * s.count as f64,
            ratio,
            ratio_ci: test.ratio_ci,
            source_ms: pcts(s),
            target_ms: t.map(pcts).unwrap_or_default(),
            status,
            source_curve: hists
                .0
                .percentiles_ms(&super::CURVE_PERCENTILES)
                .unwrap_or_default(),
            target_curve: hists
                .1
                .and_then(|h| h.percentiles_ms(&super::CURVE_PERCENTILES))
                .unwrap_or_default(),
        });
        evidence.push(ev(kind, id, name.into(), Some(ratio), status, vec![how]));
    };
    for f in &r.fingerprints {
        add(
            "fingerprint",
            &f.id,
            &f.fingerprint,
            f.count,
            f.latency_test.as_ref(),
            &f.source.latency_ms,
            f.target.as_ref().map(|t| &t.latency_ms),
            (
                &f.source.latency_hist,
                f.target.as_ref().map(|t| &t.latency_hist),
            ),
            &mut evidence,
        );
    }
    for t in &r.transactions {
        add(
            "transaction",
            &t.class,
            &t.name,
            t.count,
            t.latency_test.as_ref(),
            &t.source.latency_ms,
            t.target.as_ref().map(|x| &x.latency_ms),
            (
                &t.source.latency_hist,
                t.target.as_ref().map(|x| &x.latency_hist),
            ),
            &mut evidence,
        );
    }
    let worst = classes
        .iter()
        .map(|c| c.status)
        .filter(|s| *s != Status::Vacuous)
        .max()
        .unwrap_or(Status::Pass);
    let total = tested_exec + untested_exec;
    let untested_share = if total > 0 {
        untested_exec as f64 / total as f64
    } else {
        1.0
    };
    let status = if classes.is_empty() || untested_share > max_untested {
        Status::Vacuous
    } else {
        worst
    };
    // Items at fail are what a waiver must cover; vacuous items only when the criterion is vacuous.
    if status != Status::Vacuous {
        for e in &mut evidence {
            if e.status == Status::Vacuous {
                e.status = Status::Warn;
            }
        }
    }
    evidence.sort_by(|a, b| {
        b.status.cmp(&a.status).then(
            b.value
                .partial_cmp(&a.value)
                .unwrap_or(std::cmp::Ordering::Equal),
        )
    });
    let method = match (with_interval, without_interval) {
        (0, 0) => "no class tested".to_string(),
        (_, 0) => "effect size with its interval (Holm-adjusted p)".to_string(),
        (0, _) => "p50/p95 ratios and p-value (the replay result has no intervals)".to_string(),
        (a, b) => format!("{a} class(es) by interval, {b} by p50/p95 ratios and p-value"),
    };
    let worst_ratio = classes.iter().map(|c| c.ratio).fold(f64::NAN, f64::max);
    let highest_lower = classes
        .iter()
        .filter_map(|c| c.ratio_ci.map(|ci| ci[0]))
        .fold(f64::NAN, f64::max);
    let failing = classes.iter().filter(|c| c.status == Status::Fail).count();
    let c = criterion(
        "replay.latency",
        status,
        worst_ratio.is_finite().then_some(worst_ratio),
        format!(
            "{} class(es) tested, {failing} regressed; highest ratio {}{}; {:.0}% of replayed executions in classes too small to test; method: {method}",
            classes.len(),
            if worst_ratio.is_finite() {
                format!("{worst_ratio:.2}")
            } else {
                "-".into()
            },
            if highest_lower.is_finite() {
                format!(", highest interval lower bound {highest_lower:.2}")
            } else {
                String::new()
            },
            untested_share * 100.0
        ),
        format!(
            "ratio target/source: warn / fail when the interval's lower bound is above {} / {} with a typical execution at least {} ms slower and, where the replay tested at that level, p(Holm) below {} (without an interval: the significant p50 ratio); never on a point ratio alone; vacuous when over {}% of executions are untested",
            num(warn),
            num(fail),
            num(gate.get("replay.latency", "min_shift_ms")),
            num(gate.get("replay.latency", "alpha")),
            num(max_untested * 100.0)
        ),
        match status {
            Status::Vacuous if classes.is_empty() => {
                "no class had enough executions for a latency verdict".into()
            }
            Status::Vacuous => format!(
                "{:.0}% of the replayed executions are in classes too small for a verdict",
                untested_share * 100.0
            ),
            Status::Fail => format!(
                "{failing} class(es) slower on the target beyond {}",
                num(fail)
            ),
            Status::Warn => format!(
                "{} class(es) slower on the target beyond {} for sure (interval), within the failure level",
                classes.iter().filter(|c| c.status == Status::Warn).count(),
                num(warn)
            ),
            _ => format!(
                "{} class(es) tested: none significantly slower than {} on the target",
                classes.len(),
                num(warn)
            ),
        },
        evidence,
    );
    (c, classes)
}

fn coverage(r: &ReplayReport, source: &SideReport, gate: &Gate) -> Criterion {
    let levels = gate.levels("replay.coverage");
    // What the mode leaves out on purpose, and what it covers but could not send.
    let by_mode =
        |reason: &str| reason.ends_with("in_reads_mode") || reason == "would_make_session_writable";
    let mut left_out = 0;
    let mut not_sent = 0;
    let mut evidence = Vec::new();
    for (reason, n) in &source.skipped {
        let name = serde_json::to_value(reason)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        if by_mode(&name) {
            left_out += n;
            evidence.push(ev(
                "skipped",
                &name,
                format!(
                    "left out by --mode {}: not exercised on the target",
                    r.mode.name()
                ),
                Some(*n as f64),
                Status::Warn,
                Vec::new(),
            ));
        } else {
            not_sent += n;
            evidence.push(ev(
                "skipped",
                &name,
                "covered by the mode but not sent".into(),
                Some(*n as f64),
                Status::Pass,
                Vec::new(),
            ));
        }
    }
    // Statements the mode covers: the ones sent plus those it covers but could not send.
    let covered = source.statements + not_sent;
    let compared = r.compared + r.both_failed;
    let share = if covered > 0 {
        compared as f64 / covered as f64
    } else {
        0.0
    };
    let mut status = if covered == 0 || compared == 0 {
        Status::Vacuous
    } else {
        below(share, levels)
    };
    if status == Status::Pass && left_out > 0 {
        status = Status::Warn;
    }
    for f in r
        .fingerprints
        .iter()
        .filter(|f| f.source.statements == 0 && f.count > 0)
        .take(30)
    {
        evidence.push(ev(
            "fingerprint",
            &f.id,
            f.fingerprint.clone(),
            Some(f.count as f64),
            Status::Warn,
            vec!["not exercised on the target".into()],
        ));
    }
    if status == Status::Fail {
        for e in &mut evidence {
            if e.kind == "skipped" && e.status == Status::Pass {
                e.status = Status::Fail;
            }
        }
    }
    criterion(
        "replay.coverage",
        status,
        Some(share),
        format!(
            "{compared} of the {covered} statements --mode {} covers were replayed and compared ({:.1}%); {left_out} left out by the mode",
            r.mode.name(),
            share * 100.0
        ),
        format!(
            "share compared: {}; statements left out by the mode warn",
            describe_below(levels)
        ),
        match status {
            Status::Vacuous => "no statement was replayed and compared".into(),
            Status::Warn if left_out > 0 => format!(
                "{left_out} statement(s) (writes, transactions) not exercised on the target by --mode {}",
                r.mode.name()
            ),
            _ => format!("{:.1}% of what the mode covers was compared", share * 100.0),
        },
        evidence,
    )
}

fn pace(r: &ReplayReport, source: &SideReport, target: &SideReport, gate: &Gate) -> Criterion {
    let levels = gate.levels("replay.pace");
    let mut evidence = Vec::new();
    let Pace::Speed(speed) = r.pace else {
        return criterion(
            "replay.pace",
            Status::Warn,
            None,
            "replayed at --max-speed: no recorded rate to hold".into(),
            describe_below(levels),
            "the latencies were measured at whatever load each side could take, not at the recorded load".into(),
            evidence,
        );
    };
    let lowest = [("source", source), ("target", target)]
        .into_iter()
        .filter_map(|(name, s)| {
            let p = s.pace?;
            evidence.push(ev(
                "side",
                name,
                format!(
                    "{:.0} statements/s achieved of {:.0} scheduled",
                    s.qps,
                    s.recorded_qps.unwrap_or(0.0)
                ),
                Some(p),
                below(p, levels),
                Vec::new(),
            ));
            Some(p)
        })
        .fold(f64::NAN, f64::min);
    if lowest.is_finite() {
        let status = below(lowest, levels);
        return criterion(
            "replay.pace",
            status,
            Some(lowest),
            format!(
                "achieved {:.0}% of the recorded rate (x{speed}) on the slower side",
                lowest * 100.0
            ),
            format!("achieved/recorded: {}", describe_below(levels)),
            if status == Status::Pass {
                "the replay held the recorded load".into()
            } else {
                "the replay could not hold the recorded load: its latencies describe a lighter one"
                    .into()
            },
            evidence,
        );
    }
    // No scheduled rate in this result: how late statements started against the schedule says
    // whether it was held.
    let lag = source.start_lag_ms.p95.max(target.start_lag_ms.p95);
    let status = if source.start_lag_ms.count == 0 {
        Status::Vacuous
    } else if lag > 100.0 {
        Status::Warn
    } else {
        Status::Pass
    };
    criterion(
        "replay.pace",
        status,
        Some(lag),
        format!(
            "start lag p95 {lag:.1} ms against the schedule at x{speed} (the result has no recorded rate)"
        ),
        "start lag p95 over 100 ms warns (used when the replay result has no recorded rate)".into(),
        if status == Status::Pass {
            "statements started on schedule".into()
        } else {
            "statements started late: the recorded load was not held".into()
        },
        evidence,
    )
}

fn throughput(source: &SideReport, target: &SideReport, gate: &Gate) -> Criterion {
    let levels = gate.levels("replay.throughput");
    let share = if source.qps > 0.0 {
        target.qps / source.qps
    } else {
        0.0
    };
    let status = if source.statements == 0 {
        Status::Vacuous
    } else {
        below(share, levels)
    };
    let side = |name: &str, s: &SideReport| {
        ev(
            "side",
            name,
            format!(
                "{:.1} TPS, {:.1} QPS, avg {:.2} ms, p95 {:.2} ms, {} errors",
                s.tps, s.qps, s.latency_ms.avg, s.latency_ms.p95, s.errors
            ),
            Some(s.qps),
            Status::Pass,
            Vec::new(),
        )
    };
    criterion(
        "replay.throughput",
        status,
        Some(share),
        format!(
            "source {:.1} TPS / {:.1} QPS / avg {:.2} ms / p95 {:.2} ms; target {:.1} TPS / {:.1} QPS / avg {:.2} ms / p95 {:.2} ms",
            source.tps,
            source.qps,
            source.latency_ms.avg,
            source.latency_ms.p95,
            target.tps,
            target.qps,
            target.latency_ms.avg,
            target.latency_ms.p95
        ),
        format!("target QPS / source QPS: {}", describe_below(levels)),
        format!("the target ran {:.0}% of the source's rate", share * 100.0),
        vec![side("source", source), side("target", target)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(ratio: f64, ci: [f64; 2], p_adjusted: f64) -> RegressionTest {
        RegressionTest {
            p50_ratio: ratio,
            p95_ratio: ratio,
            p_value: p_adjusted,
            regression: false,
            note: None,
            ratio: Some(ratio),
            ratio_ci: Some(ci),
            p_adjusted: Some(p_adjusted),
            samples: Some([1000, 1000]),
        }
    }

    #[test]
    fn latency_warns_only_on_the_statistics_never_on_a_point_ratio() {
        let (gate, rule) = (Gate::built_in(), RegressionRule::default());
        // The flake: identical servers under load, a class's point ratio 1.38 but its interval
        // reaching below 1.2 (and not significant): pass, with the reason.
        let (s, _, how) = judge(&test(1.38, [0.95, 1.9], 0.4), &rule, 2.0, &gate);
        assert_eq!(s, Status::Pass, "{how}");
        assert!(how.contains("not shown to be slower"), "{how}");
        // The interval above 1.2, significant, 0.7 ms slower: warn.
        let (s, _, how) = judge(&test(1.35, [1.25, 1.45], 0.001), &rule, 2.0, &gate);
        assert_eq!(s, Status::Warn, "{how}");
        // Same, but not significant after Holm: pass.
        let (s, _, how) = judge(&test(1.35, [1.25, 1.45], 0.05), &rule, 2.0, &gate);
        assert_eq!(s, Status::Pass, "{how}");
        assert!(how.contains("Holm"), "{how}");
        // Same, on a 0.1 ms statement (0.035 ms slower): under the floor, pass.
        let (s, _, how) = judge(&test(1.35, [1.25, 1.45], 0.001), &rule, 0.1, &gate);
        assert_eq!(s, Status::Pass, "{how}");
        assert!(how.contains("floor"), "{how}");
        // Twice as slow for sure: fail; a point ratio of 1.6 with the interval under 1.5: warn.
        let (s, _, _) = judge(&test(2.0, [1.8, 2.2], 1e-9), &rule, 2.0, &gate);
        assert_eq!(s, Status::Fail);
        let (s, _, _) = judge(&test(1.6, [1.3, 1.9], 1e-6), &rule, 2.0, &gate);
        assert_eq!(s, Status::Warn);
    }
}
