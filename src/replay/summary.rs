//! The replay's report from the comparator's tallies.

use super::stats::{holm, regression};
use super::*;
use super::{comparator::*, dispatch::*};
use crate::sql::fingerprint::format_id;
use crate::workload::{Header, SchemaId};

pub(super) fn side_report(
    a: SideAcc,
    endpoint: &Endpoint,
    txns: (u64, &super::stats::Latency),
    start_unix_s: f64,
) -> SideReport {
    let elapsed_s = a
        .first_at
        .map_or(0.0, |f| (a.last_at.saturating_sub(f)) as f64 / 1e6);
    let spans_unix_s = a.first_at.map_or_else(Vec::new, |f| {
        vec![[
            start_unix_s + f as f64 / 1e6,
            start_unix_s + a.last_at as f64 / 1e6,
        ]]
    });
    // The schedule's rate over its own span (a one-statement schedule has none).
    let recorded_qps = a.due_span.and_then(|(first, last)| {
        let n: u64 = a.recorded.iter().sum();
        (last > first).then(|| n as f64 / ((last - first) as f64 / 1e6))
    });
    // The pace compares like with like: the schedule's rate is over the span of its starts, so the
    // replay's is over the span of its own (over first start to last end, a capture whose last
    // statement is a 5 s report, replayed exactly on time, showed 67% of a 10 s schedule and a
    // pace "not held"). `qps` stays over the whole run, as sysbench reports it.
    let started_span_s = a
        .first_at
        .map_or(0.0, |f| a.last_start.saturating_sub(f) as f64 / 1e6);
    // How late against the recorded times: only at --speed.
    let behind = Some(a.behind.summary()).filter(|s| s.count > 0);
    let per_s = |n: u64| {
        if elapsed_s > 0.0 {
            n as f64 / elapsed_s
        } else {
            0.0
        }
    };
    SideReport {
        endpoint: endpoint.to_string(),
        statements: a.statements,
        errors: a.errors,
        commits: a.commits,
        transactions: txns.0,
        transaction_latency_ms: txns.1.summary(),
        transaction_latency_hist: txns.1.encode(),
        skipped: a.skipped,
        qps: per_s(a.statements),
        tps: per_s(txns.0),
        error_rate: if a.statements > 0 {
            a.errors as f64 / a.statements as f64
        } else {
            0.0
        },
        latency_ms: a.latency.summary(),
        start_lag_ms: less_the_added_microsecond(a.lag.summary()),
        behind_ms: behind.map(less_the_added_microsecond),
        behind_hist: behind.map(|_| a.behind.encode()),
        timeline: (0..a.slices.len().max(a.recorded.len()))
            .map(|i| {
                let rec = a.recorded.get(i).copied().unwrap_or(0);
                match a.slices.get(i) {
                    Some((n, e, c, l)) => TimeSlice {
                        t_s: i as u64 * 10,
                        statements: *n,
                        errors: *e,
                        commits: *c,
                        qps: *n as f64 / 10.0,
                        recorded: rec,
                        recorded_qps: rec as f64 / 10.0,
                        p99_ms: l.summary().p99,
                        latency_ms: Some(l.summary()),
                        latency_hist: Some(l.encode()),
                    },
                    None => TimeSlice {
                        t_s: i as u64 * 10,
                        recorded: rec,
                        recorded_qps: rec as f64 / 10.0,
                        ..TimeSlice::default()
                    },
                }
            })
            .collect(),
        reconnects: a.reconnects,
        infrastructure_errors: a.infrastructure_errors,
        first_infrastructure_error: a.first_infrastructure_error.clone(),
        order_wait_timeouts: None,
        order_lock_cycles: None,
        order_waits: None,
        order_wait_s: None,
        order_held_past_grace: None,
        order_moved: None,
        unanalyzed: None,
        elapsed_s,
        spans_unix_s,
        recorded_qps,
        pace: recorded_qps.filter(|r| *r > 0.0).map(|r| {
            if started_span_s > 0.0 {
                a.statements as f64 / started_span_s / r
            } else {
                per_s(a.statements) / r
            }
        }),
        latency_hist: a.latency.encode(),
        lag_hist: a.lag.encode(),
    }
}

pub(super) fn finish(
    mut acc: Acc,
    s: DispatchSummary,
    opts: &ReplayOptions,
    interrupted: bool,
    start_unix_s: f64,
) -> ReplayReport {
    let mut sides = BTreeMap::new();
    let txn_side = |k: usize| (acc.txns.ran[k], &acc.txns.latency[k]);
    sides.insert(
        "source".to_string(),
        side_report(
            acc.sides.remove(&0).unwrap_or_default(),
            &opts.source,
            txn_side(0),
            start_unix_s,
        ),
    );
    if let Some(t) = &opts.target {
        sides.insert(
            "target".to_string(),
            side_report(
                acc.sides.remove(&1).unwrap_or_default(),
                t,
                txn_side(1),
                start_unix_s,
            ),
        );
    }
    let mut fingerprints = Vec::new();
    let mut regressions = Vec::new();
    for fp in &s.order {
        let fa = acc.fps.remove(fp).unwrap_or_default();
        let text = s.fingerprints.get(fp).cloned().unwrap_or_default();
        let fside = |x: &FpSideAcc| FingerprintSide {
            statements: x.statements,
            errors: x.errors,
            latency_ms: x.latency.summary(),
            latency_hist: x.latency.encode(),
            first_error: x.first_error.clone(),
        };
        let test = opts
            .target
            .as_ref()
            .map(|_| regression(&fa.source.latency, &fa.target.latency, &opts.regression));
        fingerprints.push(FingerprintReport {
            fingerprint: text,
            id: format_id(*fp),
            count: s.counts.get(fp).copied().unwrap_or(0),
            compared: fa.compared,
            mismatches: fa.mismatches,
            not_comparable: fa.not_comparable,
            not_comparable_reason: fa.not_comparable_reason,
            source: fside(&fa.source),
            target: opts.target.as_ref().map(|_| fside(&fa.target)),
            latency_test: test,
            rewritten: s.rewritten.get(fp).copied().unwrap_or(0),
            not_rewritable: s.not_rewritable.get(fp).copied().unwrap_or(0),
        });
    }
    holm(
        fingerprints
            .iter_mut()
            .filter_map(|f| f.latency_test.as_mut()),
        opts.regression.alpha,
    );
    regressions.extend(fingerprints.iter().filter_map(regression_of));
    let transactions = transaction_classes(
        &mut acc.txns,
        &s,
        &sides,
        opts.target.is_some(),
        &opts.regression,
    );
    let target_errors = target_errors(&mut acc, &s);
    let mut groups: Vec<MismatchGroup> = acc
        .groups
        .into_iter()
        .map(|((fp, _, _), mut g)| {
            g.fingerprint = s.fingerprints.get(&fp).cloned().unwrap_or_default();
            g
        })
        .collect();
    groups.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then(a.fingerprint.cmp(&b.fingerprint))
    });
    let mut not_rewritable: Vec<String> = s
        .not_rewritable
        .keys()
        .map(|fp| {
            s.fingerprints
                .get(fp)
                .cloned()
                .unwrap_or_else(|| format_id(*fp))
        })
        .collect();
    not_rewritable.sort();
    ReplayReport {
        header: Header {
            inputs: s.inputs,
            ..Header::start(SchemaId::REPLAY)
        },
        mode: opts.mode,
        pace: opts.pace,
        shard: opts.shard.map(|(k, n)| format!("{k}/{n}")),
        interrupted,
        sessions: s.sessions,
        sides,
        compared: acc.compared,
        mismatches: acc.mismatches,
        not_comparable: acc.not_comparable,
        both_failed: acc.both_failed,
        not_run: acc.not_run,
        incomplete: Vec::new(),
        concurrent_races: acc.concurrent_races,
        regressions,
        regression_rule: opts.regression,
        fingerprints,
        mismatch_groups: groups,
        rewritten: s.rewritten.values().sum(),
        not_rewritable,
        input_notes: s.notes,
        transactions,
        target_errors,
        client: None,
    }
}

/// The regression entry of a fingerprint whose test (after Holm's correction) says it regressed.
pub(super) fn regression_of(f: &FingerprintReport) -> Option<Regression> {
    let t = f.latency_test.as_ref().filter(|t| t.regression)?;
    let target = f.target.as_ref()?;
    Some(Regression {
        fingerprint: f.fingerprint.clone(),
        id: f.id.clone(),
        count: target.statements,
        source_p50_ms: f.source.latency_ms.p50,
        target_p50_ms: target.latency_ms.p50,
        source_p95_ms: f.source.latency_ms.p95,
        target_p95_ms: target.latency_ms.p95,
        p50_ratio: t.p50_ratio,
        p95_ratio: t.p95_ratio,
        p_value: t.p_value,
        ratio: t.ratio,
        ratio_ci: t.ratio_ci,
        p_adjusted: t.p_adjusted,
    })
}

/// The transaction classes, most frequent first, each tested like a fingerprint (Holm across the
/// classes: a family of its own).
fn transaction_classes(
    txns: &mut super::txn::TxnAcc,
    s: &DispatchSummary,
    sides: &BTreeMap<String, SideReport>,
    two_sided: bool,
    rule: &RegressionRule,
) -> Vec<TransactionClass> {
    let elapsed = |side: &str| sides.get(side).map_or(0.0, |x| x.elapsed_s);
    let side = |c: &super::txn::ClassSideAcc, elapsed_s: f64| {
        let tps = if elapsed_s > 0.0 {
            c.count as f64 / elapsed_s
        } else {
            0.0
        };
        TransactionSide {
            count: c.count,
            tps,
            tpm: tps * 60.0,
            latency_ms: c.latency.summary(),
            latency_hist: c.latency.encode(),
            rollbacks: c.rollbacks,
            errors: c.errors,
        }
    };
    let mut out: Vec<TransactionClass> = txns
        .classes
        .drain()
        .map(|(id, c)| TransactionClass {
            class: format_id(id),
            name: c.name.clone(),
            statements: c
                .shape
                .iter()
                .zip(&c.folded)
                .map(|(fp, folded)| {
                    let text = s
                        .fingerprints
                        .get(fp)
                        .cloned()
                        .unwrap_or_else(|| format_id(*fp));
                    if *folded { format!("{text} (+)") } else { text }
                })
                .collect(),
            count: c.count,
            source: side(&c.sides[0], elapsed("source")),
            target: two_sided.then(|| side(&c.sides[1], elapsed("target"))),
            latency_test: two_sided
                .then(|| regression(&c.sides[0].latency, &c.sides[1].latency, rule)),
        })
        .collect();
    holm(
        out.iter_mut().filter_map(|c| c.latency_test.as_mut()),
        rule.alpha,
    );
    out.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
    out
}

/// The target-only errors with the fingerprints of what they broke, most frequent first.
fn target_errors(acc: &mut Acc, s: &DispatchSummary) -> Vec<TargetError> {
    let text = |fp: &u64| {
        s.fingerprints
            .get(fp)
            .cloned()
            .unwrap_or_else(|| format_id(*fp))
    };
    let mut out: Vec<TargetError> = std::mem::take(&mut acc.target_errors)
        .into_iter()
        .enumerate()
        .map(|(i, mut e)| {
            e.fingerprint = acc.error_fps.get(i).map(text).unwrap_or_default();
            e.later_fingerprints = acc
                .target_error_later
                .get(i)
                .map(|l| l.iter().map(text).collect())
                .unwrap_or_default();
            e
        })
        .collect();
    out.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then(a.fingerprint.cmp(&b.fingerprint))
    });
    out
}

/// Lags are recorded plus one microsecond (histograms hold no zero).
pub(super) fn less_the_added_microsecond(mut s: LatencySummary) -> LatencySummary {
    for v in [&mut s.avg, &mut s.p50, &mut s.p95, &mut s.p99, &mut s.max] {
        *v = (*v - 0.001).max(0.0);
    }
    s
}
