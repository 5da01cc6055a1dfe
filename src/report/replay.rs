//! The replay's criteria: mismatches (races apart), target errors (with what they broke), latency
//! (judged in `latency`), coverage of what the mode covers, pace, throughput.

use super::gate::{Gate, above, below, describe_above, describe_below};
use super::{Criterion, Evidence, LatencyClass, Status};
use crate::replay::{ClientCpu, Pace, ReplayReport, SideReport};

pub(super) fn criterion(
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

pub(super) fn ev(
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
    let (mut latency, classes) = super::latency::latency(r, gate);
    let mut throughput = throughput(&source, target, gate);
    for c in [&mut latency, &mut throughput] {
        planned_blind(c, &source, target);
    }
    (
        vec![
            mismatches(r, gate),
            target_errors(r, gate),
            latency,
            coverage(r, &source, gate),
            pace(r, &source, target, gate),
            throughput,
        ],
        classes,
    )
}

/// A side whose tables had rows and no planner statistics ran its plans blind (a freshly loaded
/// PostgreSQL runs seq scans and bad joins until autovacuum gets to it): its latencies and rate
/// describe that, not the database after ANALYZE. A passing verdict is only a warning then, and
/// every verdict says why.
fn planned_blind(c: &mut Criterion, source: &SideReport, target: &SideReport) {
    let blind: Vec<(&str, &crate::replay::Unanalyzed)> = [("source", source), ("target", target)]
        .into_iter()
        .filter_map(|(name, s)| Some((name, s.unanalyzed.as_ref().filter(|u| u.blind() > 0)?)))
        .collect();
    // Nothing ran: there is no figure for missing statistics to have skewed (a vacuous verdict on
    // too few executions still rests on measured ones, and is told).
    let nothing_ran = source.statements == 0 && target.statements == 0;
    if blind.is_empty() || nothing_ran || c.status == Status::NotRun {
        return;
    }
    if c.status == Status::Pass {
        c.status = Status::Warn;
        c.status_before_waivers = Status::Warn;
    }
    let mut said = Vec::new();
    let mut first = Vec::new();
    for (name, u) in blind {
        let mut what = Vec::new();
        let mut detail = Vec::new();
        if u.tables > 0 {
            what.push(format!("{} table(s) never analyzed", u.tables));
            detail.push(format!(
                "{} table(s) with rows never analyzed ({})",
                u.tables,
                u.named()
            ));
        }
        if u.stale > 0 {
            what.push(format!("{} table(s) with stale statistics", u.stale));
            detail.push(format!(
                "{} table(s) changed by more rows since their last ANALYZE than they held then ({})",
                u.stale,
                u.stale_named()
            ));
        }
        said.push(format!("{name}: {}", what.join(", ")));
        first.push(ev(
            "side",
            name,
            detail.join("; "),
            Some(u.blind() as f64),
            Status::Warn,
            vec![
                "the planner had no statistics describing them and planned blind: ANALYZE them (vacuumdb --analyze-only) and replay again before trusting this figure".into(),
            ],
        ));
    }
    // Ahead of the criterion's own evidence, source before target.
    c.evidence.splice(0..0, first);
    c.summary = format!(
        "{}; measured with planner statistics missing or stale ({}): ANALYZE and replay again",
        c.summary,
        said.join("; ")
    );
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
            evidence.push(pace_evidence(name, s, p, levels));
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
                let waits: Vec<String> = [("source", source), ("target", target)]
                    .into_iter()
                    .filter_map(|(name, s)| {
                        let share = s.order_wait_notable(r.sessions)?;
                        Some(format!("{:.0}% ({name})", share * 100.0))
                    })
                    .collect();
                let mut why = if waits.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; its sessions spent {} of their time waiting for the captured order of conflicting writes (--free-order drops it; results may then differ)",
                        waits.join(", ")
                    )
                };
                if let Some(host) = r.client.as_ref().and_then(ClientCpu::out_of_cpu) {
                    why.push_str(&format!("; {host}: {}", ClientCpu::ADVICE));
                }
                format!(
                    "the replay could not hold the recorded load: its latencies describe a lighter one{why}"
                )
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
        match status {
            Status::Pass => "statements started on schedule".into(),
            Status::Vacuous => "no statement was replayed: there is no pace to judge".into(),
            _ => "statements started late: the recorded load was not held".into(),
        },
        evidence,
    )
}

/// A side's achieved rate against the scheduled one, and how far behind its recorded times its
/// statements started (where the replay measured it).
fn pace_evidence(name: &str, s: &SideReport, pace: f64, levels: (f64, f64)) -> Evidence {
    let mut detail = format!(
        "{:.0} statements/s started of {:.0} scheduled",
        pace * s.recorded_qps.unwrap_or(0.0),
        s.recorded_qps.unwrap_or(0.0)
    );
    if let Some(b) = s.behind_ms.as_ref().filter(|b| b.count > 0) {
        detail.push_str(&format!(
            "; behind the recorded time p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            b.p50, b.p99, b.max
        ));
    }
    ev(
        "side",
        name,
        detail,
        Some(pace),
        below(pace, levels),
        Vec::new(),
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
        if status == Status::Vacuous {
            "no statement was replayed on the source: there is no rate to compare".into()
        } else {
            format!("the target ran {:.0}% of the source's rate", share * 100.0)
        },
        vec![side("source", source), side("target", target)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::Unanalyzed;

    fn passing() -> Criterion {
        criterion(
            "replay.throughput",
            Status::Pass,
            Some(1.0),
            String::new(),
            String::new(),
            "the target ran 100% of the source's rate".into(),
            Vec::new(),
        )
    }

    #[test]
    fn a_criterion_with_nothing_measured_says_nothing_of_planner_statistics() {
        let target = SideReport {
            unanalyzed: Some(Unanalyzed {
                tables: 2,
                examples: vec!["public.t".into()],
                ..Unanalyzed::default()
            }),
            ..SideReport::default()
        };
        // The throughput of a replay that ran nothing: vacuous, and it stays as it is.
        let mut c = throughput(&SideReport::default(), &target, &Gate::built_in());
        assert_eq!(c.status, Status::Vacuous);
        let before = c.summary.clone();
        planned_blind(&mut c, &SideReport::default(), &target);
        assert_eq!(c.status, Status::Vacuous);
        assert_eq!(c.summary, before);
        assert_eq!(
            c.summary,
            "no statement was replayed on the source: there is no rate to compare"
        );
        assert!(
            c.evidence
                .iter()
                .all(|e| e.id != "target" || e.notes.is_empty())
        );
    }

    #[test]
    fn a_side_planned_blind_turns_a_pass_into_a_warning_that_says_why() {
        let source = SideReport {
            statements: 100,
            ..SideReport::default()
        };
        let target = SideReport {
            statements: 100,
            unanalyzed: Some(Unanalyzed {
                tables: 12,
                examples: vec!["public.orders".into(), "public.stock".into()],
                stale: 1,
                stale_examples: vec!["public.item".into()],
            }),
            ..SideReport::default()
        };
        let mut c = passing();
        planned_blind(&mut c, &source, &target);
        assert_eq!(c.status, Status::Warn);
        assert_eq!(c.status_before_waivers, Status::Warn);
        assert!(
            c.summary.contains("target: 12 table(s) never analyzed"),
            "{}",
            c.summary
        );
        let e = &c.evidence[0];
        assert_eq!((e.id.as_str(), e.status), ("target", Status::Warn));
        assert!(
            e.detail.contains("public.orders, public.stock, …"),
            "{}",
            e.detail
        );
        assert!(e.detail.contains("held then (public.item)"), "{}", e.detail);
        assert!(
            c.summary.contains("1 table(s) with stale statistics"),
            "{}",
            c.summary
        );
        assert!(e.notes[0].contains("ANALYZE"), "{:?}", e.notes);

        // A failure stays a failure, with the same warning beside it.
        let mut failing = passing();
        failing.status = Status::Fail;
        planned_blind(&mut failing, &target, &target);
        assert_eq!(failing.status, Status::Fail);
        assert_eq!(failing.evidence.len(), 2);
        assert_eq!(failing.evidence[0].id, "source");
    }

    #[test]
    fn the_pace_evidence_says_how_far_behind_the_recorded_times_a_side_ran() {
        let mut side = SideReport {
            qps: 14_517.0,
            recorded_qps: Some(17_271.0),
            ..SideReport::default()
        };
        // The pace is over the span of the starts; here 14,517 started per second of 17,271.
        let pace = 14_517.0 / 17_271.0;
        let e = pace_evidence("source", &side, pace, (0.9, 0.5));
        assert_eq!(e.detail, "14517 statements/s started of 17271 scheduled");
        assert_eq!(e.status, Status::Warn);
        side.behind_ms = Some(crate::replay::LatencySummary {
            count: 170_820,
            p50: 950.0,
            p99: 1875.97,
            max: 2867.2,
            ..Default::default()
        });
        let e = pace_evidence("source", &side, pace, (0.9, 0.5));
        assert_eq!(
            e.detail,
            "14517 statements/s started of 17271 scheduled; behind the recorded time p50 950.0 ms, p99 1876.0 ms, max 2867.2 ms"
        );
    }

    #[test]
    fn analyzed_sides_or_sides_that_cannot_tell_change_nothing() {
        let analyzed = SideReport {
            unanalyzed: Some(Unanalyzed::default()),
            ..SideReport::default()
        };
        let mut c = passing();
        planned_blind(&mut c, &analyzed, &SideReport::default());
        assert_eq!(c.status, Status::Pass);
        assert!(c.evidence.is_empty());
        assert_eq!(c.summary, "the target ran 100% of the source's rate");
    }
}
