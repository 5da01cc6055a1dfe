//! The comparator: pairs the two sides' results as they arrive, tells races from mismatches, and
//! keeps the statistics.

use super::compare::{compare, row_diff};
use super::job::*;
use super::plan::{CompareMode, Control, Mode, SkipReason};
use super::stats::Latency;
use super::*;
use crate::db::compare::OutcomeComparison;
use crate::sql::fingerprint::format_id;
use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc;

#[derive(Default)]
pub(super) struct SideAcc {
    pub(super) statements: u64,
    pub(super) errors: u64,
    pub(super) commits: u64,
    pub(super) skipped: BTreeMap<SkipReason, u64>,
    pub(super) latency: Latency,
    pub(super) lag: Latency,
    /// How late statements started against their recorded time, at `--speed`.
    pub(super) behind: Latency,
    pub(super) slices: Vec<(u64, u64, u64, Latency)>,
    pub(super) reconnects: u64,
    /// Statements that did not run because the client or the infrastructure failed.
    pub(super) infrastructure_errors: u64,
    pub(super) first_infrastructure_error: Option<String>,
    /// Statements sent or due, per 10 s of the schedule (the recorded pace, scaled by the speed).
    pub(super) recorded: Vec<u64>,
    /// The first and last scheduled start (µs from the replay's start), at `--speed`.
    pub(super) due_span: Option<(u64, u64)>,
    pub(super) first_at: Option<u64>,
    pub(super) last_at: u64,
    /// When the last statement started (µs from the replay's start): the pace measures the span
    /// of starts, as the schedule's is.
    pub(super) last_start: u64,
}

#[derive(Default)]
pub(super) struct FpSideAcc {
    pub(super) statements: u64,
    pub(super) errors: u64,
    pub(super) latency: Latency,
    pub(super) first_error: Option<String>,
}

#[derive(Default)]
pub(super) struct FpAcc {
    pub(super) compared: u64,
    pub(super) mismatches: u64,
    pub(super) not_comparable: u64,
    pub(super) not_comparable_reason: Option<String>,
    pub(super) source: FpSideAcc,
    pub(super) target: FpSideAcc,
}

#[derive(Default)]
pub(super) struct Acc {
    pub(super) sides: FxHashMap<u8, SideAcc>,
    pub(super) fps: FxHashMap<u64, FpAcc>,
    /// By (fingerprint, category, the target error they follow from).
    pub(super) groups: FxHashMap<(u64, &'static str, Option<usize>), MismatchGroup>,
    pub(super) compared: u64,
    pub(super) mismatches: u64,
    pub(super) not_comparable: u64,
    pub(super) both_failed: u64,
    /// Pairs not compared because a side failed for infrastructure reasons.
    pub(super) not_run: u64,
    pub(super) concurrent_races: u64,
    /// Per side: the statements that published writes (see `Published`).
    pub(super) published: [std::collections::VecDeque<Published>; 2],
    /// Mismatches that may be races, decided once the sides have moved past them.
    pub(super) suspects: Vec<Suspect>,
    /// The latest start seen per side.
    pub(super) watermark: [u64; 2],
    /// Each session's statements grouped into transactions, per side.
    pub(super) txns: super::txn::TxnAcc,
    /// Errors only the target raised, keyed by (fingerprint, code) in `target_error_index`; the
    /// fingerprints of what each broke afterwards.
    pub(super) target_errors: Vec<TargetError>,
    pub(super) target_error_index: FxHashMap<(u64, String), usize>,
    pub(super) target_error_later: Vec<Vec<u64>>,
    pub(super) error_fps: Vec<u64>,
    /// Per session, as the pairs arrive: its transaction, and the target-only error that broke it.
    pub(super) pair_sessions: FxHashMap<u64, PairSession>,
}

/// A session as the comparator pairs its statements: whether a transaction is open, the tables it
/// wrote, and the target-only error whose consequences later statements are.
#[derive(Default)]
pub(super) struct PairSession {
    in_txn: bool,
    autocommit_off: bool,
    tables: Vec<String>,
    /// Index into `Acc::target_errors`.
    cause: Option<usize>,
    /// The broken transaction is still open: everything in it is a consequence.
    cause_open: bool,
    /// After it ended: the tables whose changes the target lost; later statements of the session
    /// that touch them are consequences.
    tainted: Vec<String>,
}

/// Most fingerprints listed per target error as broken afterwards.
const LATER_FINGERPRINTS: usize = 20;

/// Which target-only error (if any) the pair `src`/`tgt` is a consequence of, from the session's
/// state before it; then moves the session's transaction state past it.
pub(super) fn consequence_of(acc: &mut Acc, src: &Done, tgt: &Done) -> Option<usize> {
    let job = &src.job;
    let plan = &job.plan;
    let ps = acc.pair_sessions.entry(job.session).or_default();
    let touches = |t: &[String]| {
        plan.tables_read
            .iter()
            .chain(plan.tables_written.iter())
            .any(|x| t.contains(x))
    };
    let cause = ps
        .cause
        .filter(|_| ps.cause_open || (!ps.tainted.is_empty() && touches(&ps.tainted)));
    if let Some(c) = cause
        && matches!(
            tgt.res,
            Res::Skipped(
                SkipReason::InsideAbortedTransaction | SkipReason::EndOfAbortedTransaction
            )
        )
    {
        acc.target_errors[c].later_skipped += 1;
        note_later(&mut acc.target_error_later[c], job.fp);
    }
    match plan.control {
        Control::Begin => {
            ps.in_txn = true;
            ps.tables.clear();
            if ps.cause_open {
                ps.cause_open = false;
            }
        }
        Control::Commit | Control::Rollback | Control::Autocommit(true) => {
            if ps.cause_open {
                ps.cause_open = false;
                ps.tainted = std::mem::take(&mut ps.tables);
            }
            ps.in_txn = false;
            ps.tables.clear();
            if plan.control == Control::Autocommit(true) {
                ps.autocommit_off = false;
            }
        }
        Control::Autocommit(false) => ps.autocommit_off = true,
        _ => {
            if (ps.in_txn || ps.autocommit_off) && ps.tables.len() < 64 {
                for t in plan.tables_written.iter() {
                    if !ps.tables.contains(t) {
                        ps.tables.push(t.clone());
                    }
                }
            }
        }
    }
    cause
}

fn note_later(list: &mut Vec<u64>, fp: u64) {
    if list.len() < LATER_FINGERPRINTS && !list.contains(&fp) {
        list.push(fp);
    }
}

/// A target-only error that is not itself a consequence: recorded, and made the cause of what its
/// session does next.
fn register_target_error(acc: &mut Acc, src: &Done, code: &str, message: &str) {
    let job = &src.job;
    let key = (job.fp, code.to_string());
    let idx = match acc.target_error_index.get(&key) {
        Some(&i) => i,
        None => {
            let i = acc.target_errors.len();
            acc.target_errors.push(TargetError {
                code: (!code.is_empty()).then(|| code.to_string()),
                message: message.to_string(),
                id: format_id(job.fp),
                example: Some(example(
                    job,
                    format!("only the target failed: {code}: {message}"),
                    Vec::new(),
                )),
                ..Default::default()
            });
            acc.target_error_later.push(Vec::new());
            acc.error_fps.push(job.fp);
            acc.target_error_index.insert(key, i);
            i
        }
    };
    acc.target_errors[idx].count += 1;
    let ps = acc.pair_sessions.entry(job.session).or_default();
    ps.cause = Some(idx);
    ps.cause_open = ps.in_txn || ps.autocommit_off;
    ps.tainted = if ps.cause_open {
        Vec::new()
    } else {
        job.plan.tables_written.to_vec()
    };
}

fn example(job: &Job, reason: String, diff: Vec<String>) -> MismatchExample {
    let mut sql = String::from_utf8_lossy(&job.sql).into_owned();
    if sql.len() > 2000 {
        sql.truncate(sql.char_indices().nth(2000).map_or(sql.len(), |(i, _)| i));
        sql.push('…');
    }
    MismatchExample {
        session: job.session,
        seq: job.seq,
        sql,
        target_sql: job.target_sql.clone(),
        reason,
        diff,
    }
}

/// A write made visible: (start µs, end µs, session, seq, tables). It became visible somewhere in
/// between; (session, seq) names the same statement on both sides.
pub(super) type Published = (u64, u64, u64, u64, Arc<Vec<String>>);

/// A mismatch in `--mode all` waiting to be told apart from a race between sessions.
pub(super) struct Suspect {
    pub(super) job: Arc<Job>,
    /// The target-only error it follows from, if any.
    pub(super) cause: Option<usize>,
    pub(super) category: &'static str,
    pub(super) reason: String,
    pub(super) diff: Vec<String>,
    /// (snapshot start, end) per side, µs.
    pub(super) windows: [(u64, u64); 2],
}

/// Margin around a statement's window within which another session's commit counts as a race.
pub(super) const RACE_MARGIN_US: u64 = 2_000;

pub(super) fn side_key(s: Side) -> u8 {
    match s {
        Side::Source => 0,
        Side::Target => 1,
    }
}

pub(super) fn record(acc: &mut Acc, d: &Done) {
    let sa = acc.sides.entry(side_key(d.side)).or_default();
    let fa = acc.fps.entry(d.job.fp).or_default();
    let fs = match d.side {
        Side::Source => &mut fa.source,
        Side::Target => &mut fa.target,
    };
    if !matches!(d.res, Res::Skipped(_))
        && let Some(due) = d.job.due_us
    {
        let slot = (due / 10_000_000) as usize;
        if sa.recorded.len() <= slot {
            sa.recorded.resize(slot + 1, 0);
        }
        sa.recorded[slot] += 1;
        sa.due_span = Some(
            sa.due_span
                .map_or((due, due), |(a, b)| (a.min(due), b.max(due))),
        );
    }
    match &d.res {
        Res::Skipped(r) => *sa.skipped.entry(*r).or_default() += 1,
        // Did not run: no statement, no latency, no error of the SQL's.
        Res::Error { code, message } if crate::db::infrastructure_failure(code, message) => {
            sa.infrastructure_errors += 1;
            sa.first_infrastructure_error
                .get_or_insert_with(|| format!("{code}: {message}"));
            if d.reconnected {
                sa.reconnects += 1;
            }
        }
        res => {
            sa.statements += 1;
            fs.statements += 1;
            sa.latency.record(d.latency_us);
            fs.latency.record(d.latency_us);
            sa.lag.record(d.lag_us + 1);
            if let Some(b) = d.behind_us {
                sa.behind.record(b + 1);
            }
            sa.first_at = Some(sa.first_at.map_or(d.at_us, |f| f.min(d.at_us)));
            sa.last_at = sa.last_at.max(d.at_us + d.latency_us);
            sa.last_start = sa.last_start.max(d.at_us);
            let slice = (d.at_us / 10_000_000) as usize;
            if sa.slices.len() <= slice {
                sa.slices.resize_with(slice + 1, Default::default);
            }
            let sl = &mut sa.slices[slice];
            sl.0 += 1;
            sl.3.record(d.latency_us);
            if let Res::Error { code, message } = res {
                sa.errors += 1;
                fs.errors += 1;
                sl.1 += 1;
                fs.first_error
                    .get_or_insert_with(|| format!("{code}: {message}"));
            }
            if d.commit {
                sa.commits += 1;
                sl.2 += 1;
            }
            if d.reconnected {
                sa.reconnects += 1;
            }
        }
    }
}

/// The statement failed for a reason outside SQL (see `db::infrastructure_failure`).
fn did_not_run(r: &Res) -> bool {
    matches!(r, Res::Error { code, message } if crate::db::infrastructure_failure(code, message))
}

pub(super) fn pair(acc: &mut Acc, src: &Done, tgt: &Done, opts: &ReplayOptions) {
    let cause = consequence_of(acc, src, tgt);
    let job = &src.job;
    let fa = acc.fps.entry(job.fp).or_default();
    let category: &'static str;
    let (reason, diff) = match (&src.res, &tgt.res) {
        (Res::Skipped(_), _) | (_, Res::Skipped(_)) => return,
        _ if matches!(job.plan.compare, CompareMode::NotComparable { .. }) => {
            acc.not_comparable += 1;
            fa.not_comparable += 1;
            if let CompareMode::NotComparable { reason } = &job.plan.compare {
                fa.not_comparable_reason
                    .get_or_insert_with(|| reason.clone());
            }
            return;
        }
        _ if did_not_run(&src.res) || did_not_run(&tgt.res) => {
            acc.not_run += 1;
            return;
        }
        (Res::Error { .. }, Res::Error { .. }) => {
            acc.both_failed += 1;
            acc.compared += 1;
            fa.compared += 1;
            return;
        }
        (Res::Rows(_), Res::Error { code, message }) => {
            category = "error_on_target";
            if cause.is_none() {
                register_target_error(acc, src, code, message);
            }
            (
                format!("only the target failed: {code}: {message}"),
                Vec::new(),
            )
        }
        (Res::Error { code, message }, Res::Rows(_)) => {
            category = "error_on_source";
            (
                format!("only the source failed: {code}: {message}"),
                Vec::new(),
            )
        }
        (Res::Rows(a), Res::Rows(b))
            if job.plan.upsert && job.target_sql.is_some() && upsert_counts_agree(a, b) =>
        {
            // MySQL counts 1 per inserted row, 2 per updated and 0 per unchanged one; the
            // ON CONFLICT rewrite counts 1 for each: the rows themselves are compared by later reads.
            acc.compared += 1;
            fa.compared += 1;
            return;
        }
        (Res::Rows(a), Res::Rows(b)) => match compare(
            a,
            b,
            &job.plan.compare,
            &job.plan.order_items,
            &opts.tolerance,
        ) {
            OutcomeComparison::Same { .. } => {
                acc.compared += 1;
                fa.compared += 1;
                return;
            }
            OutcomeComparison::Differs { reason, .. } => {
                category = if reason.contains("different order") {
                    "order"
                } else if a.sets.is_empty() && b.sets.is_empty() {
                    "affected_rows"
                } else {
                    "rows"
                };
                let diff = if category == "rows" || category == "order" {
                    row_diff(a, b, 12)
                } else {
                    Vec::new()
                };
                (reason, diff)
            }
        },
    };
    if opts.mode == Mode::All
        && !(job.plan.tables_read.is_empty() && job.plan.tables_written.is_empty())
    {
        acc.suspects.push(Suspect {
            job: job.clone(),
            cause,
            category,
            reason,
            diff,
            windows: [
                (src.snapshot_us, src.at_us + src.latency_us),
                (tgt.snapshot_us, tgt.at_us + tgt.latency_us),
            ],
        });
        return;
    }
    count_mismatch(acc, job, category, reason, diff, opts, cause);
}

pub(super) fn count_mismatch(
    acc: &mut Acc,
    job: &Arc<Job>,
    category: &'static str,
    reason: String,
    diff: Vec<String>,
    opts: &ReplayOptions,
    cause: Option<usize>,
) {
    if let Some(c) = cause {
        acc.target_errors[c].later_mismatches += 1;
        note_later(&mut acc.target_error_later[c], job.fp);
    }
    let fa = acc.fps.entry(job.fp).or_default();
    acc.compared += 1;
    acc.mismatches += 1;
    fa.compared += 1;
    fa.mismatches += 1;
    let caused_by = cause.map(|c| acc.target_errors[c].id.clone());
    let g = acc
        .groups
        .entry((job.fp, category, cause))
        .or_insert_with(|| MismatchGroup {
            category: category.to_string(),
            id: format_id(job.fp),
            caused_by,
            ..Default::default()
        });
    g.count += 1;
    if g.examples.len() < opts.examples {
        g.examples.push(example(job, reason, diff));
    }
}

/// Each side's published writes by (session, seq): (start, end) µs.
pub(super) type PublishedIndex = [FxHashMap<(u64, u64), (u64, u64)>; 2];

/// Whether a statement of `session` that touched `tables` and ran within `windows` (per side:
/// snapshot start, end) may have raced another session's write. Where such a write fell against
/// the statement on a side: visible to it (ended before its snapshot), not (began after it ended),
/// or overlapping. A race is an overlap on either side, or a write the two sides placed differently
/// (before the statement on one, after it on the other), though neither side overlapped.
pub(super) fn raced(
    windows: [(u64, u64); 2],
    session: u64,
    tables: &[&String],
    published: &[std::collections::VecDeque<Published>; 2],
    index: &PublishedIndex,
) -> bool {
    let place = |side: usize, start: u64, end: u64| -> Option<bool> {
        let (from, to) = windows[side];
        if end + RACE_MARGIN_US < from {
            Some(true)
        } else if start > to + RACE_MARGIN_US {
            Some(false)
        } else {
            None
        }
    };
    (0..2).any(|side| {
        published[side]
            .iter()
            .filter(|(_, _, s, _, t)| *s != session && t.iter().any(|x| tables.contains(&x)))
            .any(|(start, end, s, seq, _)| {
                let here = place(side, *start, *end);
                // The other side's copy of the same write; pruned ones ended long before.
                let there = index[1 - side]
                    .get(&(*s, *seq))
                    .map_or(Some(true), |(a, b)| place(1 - side, *a, *b));
                here.is_none() || there.is_none() || here != there
            })
    })
}

/// Decides suspects whose windows the sides have moved well past (all of them when `all`), and
/// forgets published writes no remaining suspect can race with.
pub(super) fn settle(acc: &mut Acc, opts: &ReplayOptions, all: bool) {
    let horizon = acc.watermark[0]
        .min(acc.watermark[1])
        .saturating_sub(5_000_000);
    let suspects = std::mem::take(&mut acc.suspects);
    // Each side's published writes by (session, seq), built once for the suspects decided now.
    let mut index: PublishedIndex = Default::default();
    let due = |sp: &Suspect| all || sp.windows[0].1.max(sp.windows[1].1) <= horizon;
    if suspects.iter().any(due) {
        for (side, log) in acc.published.iter().enumerate() {
            index[side] = log
                .iter()
                .map(|(start, end, session, seq, _)| ((*session, *seq), (*start, *end)))
                .collect();
        }
    }
    for sp in suspects {
        if !due(&sp) {
            acc.suspects.push(sp);
            continue;
        }
        let tables: Vec<&String> = sp
            .job
            .plan
            .tables_read
            .iter()
            .chain(sp.job.plan.tables_written.iter())
            .collect();
        let raced = raced(sp.windows, sp.job.session, &tables, &acc.published, &index);
        if raced {
            acc.concurrent_races += 1;
            let fa = acc.fps.entry(sp.job.fp).or_default();
            fa.not_comparable += 1;
            fa.not_comparable_reason.get_or_insert_with(|| "a concurrent session committed writes to the same tables while it ran (sessions raced differently on each side)".into());
            acc.not_comparable += 1;
        } else {
            count_mismatch(
                acc,
                &sp.job,
                sp.category,
                sp.reason,
                sp.diff,
                opts,
                sp.cause,
            );
        }
    }
    let keep_from = acc
        .suspects
        .iter()
        .map(|s| s.windows[0].0.min(s.windows[1].0))
        .min()
        .unwrap_or(horizon)
        .min(horizon)
        .saturating_sub(10_000_000);
    for log in &mut acc.published {
        while log
            .front()
            .is_some_and(|(_, end, _, _, _)| *end < keep_from)
        {
            log.pop_front();
        }
    }
}

/// The progress line: per side, results of the total the capture holds, the rate against the
/// recorded one (scaled by the speed) and the time left at that rate; compared and mismatches.
fn progress_line(
    done: [u64; 2],
    two_sided: bool,
    count: &super::budget::CaptureCount,
    opts: &ReplayOptions,
    acc: &Acc,
    elapsed_s: f64,
) -> String {
    let total = count.statements.max(1);
    let recorded = match (opts.pace, count.recorded_rate()) {
        (super::Pace::Speed(s), Some(r)) => Some(r * s),
        _ => None,
    };
    let mut parts = Vec::new();
    for (k, side) in ["source", "target"].iter().enumerate() {
        if k == 1 && !two_sided {
            continue;
        }
        let n = done[k];
        let rate = n as f64 / elapsed_s.max(1e-3);
        let left = if rate > 0.0 && n < total {
            format!(", {:.0} s left", (total - n) as f64 / rate)
        } else {
            String::new()
        };
        let pace = recorded
            .map(|r| format!(" = {:.0}% of recorded", 100.0 * rate / r))
            .unwrap_or_default();
        parts.push(format!(
            "{side} {n}/{total} ({:.0}%) {rate:.0}/s{pace}{left}",
            100.0 * n as f64 / total as f64
        ));
    }
    if two_sided {
        parts.push(format!(
            "{} compared, {} mismatches",
            acc.compared, acc.mismatches
        ));
    }
    format!("replaying: {}", parts.join("; "))
}

pub(super) async fn compare_loop(
    mut rx: mpsc::Receiver<Done>,
    opts: Arc<ReplayOptions>,
    start: Instant,
    count: super::budget::CaptureCount,
) -> Acc {
    let mut acc = Acc::default();
    let mut pending: FxHashMap<u64, Done> = FxHashMap::default();
    let two_sided = opts.target.is_some();
    let bar = if opts.progress {
        let b = indicatif::ProgressBar::new_spinner();
        b.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        Some(b)
    } else {
        None
    };
    let mut n = 0u64;
    let mut done = [0u64; 2];
    while let Some(d) = rx.recv().await {
        record(&mut acc, &d);
        acc.txns.observe(&d);
        n += 1;
        let k = side_key(d.side) as usize;
        done[k] += 1;
        acc.watermark[k] = acc.watermark[k].max(d.at_us);
        if let Some(p) = &d.published {
            acc.published[k].push_back((
                d.at_us,
                d.at_us + d.latency_us,
                d.job.session,
                d.job.seq,
                p.clone(),
            ));
        }
        if n.is_multiple_of(10_000) {
            settle(&mut acc, &opts, false);
        }
        if let Some(b) = &bar
            && n.is_multiple_of(1000)
        {
            b.set_message(progress_line(
                done,
                two_sided,
                &count,
                &opts,
                &acc,
                start.elapsed().as_secs_f64(),
            ));
            b.tick();
        }
        if !two_sided {
            continue;
        }
        match pending.remove(&d.job.seq) {
            Some(other) => {
                let (s, t) = if d.side == Side::Source {
                    (&d, &other)
                } else {
                    (&other, &d)
                };
                pair(&mut acc, s, t, &opts);
            }
            None => {
                pending.insert(d.job.seq, d);
            }
        }
    }
    settle(&mut acc, &opts, true);
    acc.txns.finish();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    acc
}

/// An upsert's counts of affected rows under the two conventions can describe the same rows: the
/// target's `m` rows inserted or updated are MySQL's `n` with each updated row counted twice and each
/// unchanged one not at all, so `n` lies in `0..=2m` (and no result sets on either side).
fn upsert_counts_agree(
    mysql: &crate::db::exec::Outcome,
    target: &crate::db::exec::Outcome,
) -> bool {
    match (mysql.affected, target.affected) {
        (Some(n), Some(m)) => mysql.sets.is_empty() && target.sets.is_empty() && n <= 2 * m,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    fn logs(a: &[Published], b: &[Published]) -> ([VecDeque<Published>; 2], PublishedIndex) {
        let published = [a.iter().cloned().collect(), b.iter().cloned().collect()];
        let mut index: PublishedIndex = Default::default();
        for (side, log) in [a, b].iter().enumerate() {
            index[side] = log.iter().map(|p| ((p.2, p.3), (p.0, p.1))).collect();
        }
        (published, index)
    }

    #[test]
    fn races_are_overlaps_or_writes_the_sides_ordered_differently() {
        let t = Arc::new(vec!["sbtest1".to_string()]);
        let other = Arc::new(vec!["other".to_string()]);
        let name = "sbtest1".to_string();
        let tables = vec![&name];
        // The read ran at 100–110 ms on the source and 300–310 ms on the target.
        let w = [(100_000, 110_000), (300_000, 310_000)];
        let write =
            |start: u64, table: &Arc<Vec<String>>| (start, start + 1_000, 7, 42, table.clone());
        // Before it on both sides: the same data, no race.
        let (p, i) = logs(&[write(50_000, &t)], &[write(250_000, &t)]);
        assert!(!raced(w, 1, &tables, &p, &i));
        // Overlapping on one side.
        let (p, i) = logs(&[write(105_000, &t)], &[write(250_000, &t)]);
        assert!(raced(w, 1, &tables, &p, &i));
        // Before it on the source, after it on the target, overlapping neither: the flake this
        // rule fixes (a SUM read saw a write on one side only).
        let (p, i) = logs(&[write(50_000, &t)], &[write(400_000, &t)]);
        assert!(raced(w, 1, &tables, &p, &i));
        // Another table, or the statement's own session: never a race.
        let (p, i) = logs(&[write(105_000, &other)], &[write(400_000, &other)]);
        assert!(!raced(w, 1, &tables, &p, &i));
        let (p, i) = logs(&[write(50_000, &t)], &[write(400_000, &t)]);
        assert!(!raced(w, 7, &tables, &p, &i));
        // Pruned from one side's log: it ended long before, as on the side that still has it.
        let (p, i) = logs(&[], &[write(250_000, &t)]);
        assert!(!raced(w, 1, &tables, &p, &i));
    }
}
