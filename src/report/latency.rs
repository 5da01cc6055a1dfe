//! The replay's latency criterion: per statement and transaction class, each judged by its ratio's
//! interval, a minimum shift and the Holm-corrected test (never by a point ratio alone).

use super::gate::{Gate, num};
use super::replay::{criterion, ev};
use super::{Criterion, Evidence, LatencyClass, Status};
use crate::replay::{RegressionRule, RegressionTest, ReplayReport, SerializedLatency};

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

pub(super) fn latency(r: &ReplayReport, gate: &Gate) -> (Criterion, Vec<LatencyClass>) {
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
