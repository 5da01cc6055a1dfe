//! The dispatcher: reads the capture's batches, plans each fingerprint once, and hands every
//! statement to its session's worker on each side at its scheduled time.

use super::plan::{Control, StatementPlan, for_text, plan};
use super::*;
use super::{gate::*, job::*, worker::*};
use crate::capture::EventReader;
use crate::profile::Finding;
use crate::workload::Command;
use crate::workload::InputRef;
use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;
use tokio::sync::mpsc;

/// Jobs queued in all (both sides, all sessions) before the dispatcher waits: bounds memory and how far
/// one side may run ahead of the other. The bound is global, not per session: a per-session bound
/// lets one session blocked on a lock stop the dispatcher before it reaches the COMMIT that would
/// release that lock.
pub(super) const QUEUED_JOBS: usize = 50_000;

/// Permits the dispatcher takes from the budget at once when it is spent: each finished job then
/// does not wake the dispatcher's thread for one more job (a wake-up per statement was 8% of a
/// sysbench replay's CPU in the 2026-12-05 profile).
const PERMIT_CHUNK: u32 = 256;
/// How long the dispatcher waits for a whole chunk before it takes permits one by one: a chunk may
/// never come back whole when the queued jobs wait for statements not yet dispatched.
const CHUNK_WAIT: std::time::Duration = std::time::Duration::from_millis(50);

/// The budget's permits the dispatcher holds and has not handed to a job yet.
#[derive(Default)]
struct Permits(Option<tokio::sync::OwnedSemaphorePermit>);

impl Permits {
    /// One permit for a job: from the chunk held, else a new chunk, else (after CHUNK_WAIT) a
    /// single one. None when the budget was closed.
    async fn take_one(
        &mut self,
        budget: &Arc<tokio::sync::Semaphore>,
    ) -> Option<tokio::sync::OwnedSemaphorePermit> {
        if let Some(one) = self.0.as_mut().and_then(|p| p.split(1)) {
            return Some(one);
        }
        if let Ok(chunk) = budget.clone().try_acquire_many_owned(PERMIT_CHUNK) {
            self.0 = Some(chunk);
        } else {
            tokio::select! {
                chunk = budget.clone().acquire_many_owned(PERMIT_CHUNK) => self.0 = Some(chunk.ok()?),
                _ = tokio::time::sleep(CHUNK_WAIT) => return budget.clone().acquire_owned().await.ok(),
            }
        }
        self.0.as_mut().and_then(|p| p.split(1))
    }
}

/// What the dispatcher found out.
#[derive(Default)]
pub(super) struct DispatchSummary {
    pub(super) sessions: u64,
    pub(super) fingerprints: FxHashMap<u64, String>,
    /// Executions per fingerprint, in order of first appearance.
    pub(super) order: Vec<u64>,
    pub(super) counts: FxHashMap<u64, u64>,
    pub(super) rewritten: FxHashMap<u64, u64>,
    pub(super) not_rewritable: FxHashMap<u64, u64>,
    pub(super) notes: Vec<String>,
    pub(super) inputs: Vec<InputRef>,
}

/// What the reader thread sends the dispatcher.
pub(super) enum BatchMsg {
    /// Events, and per event the microseconds its schedule adds to its whole-second stamp.
    Batch(crate::capture::Batch, Vec<u32>),
    /// The end of the inputs: what was odd about them, and the inputs as read (sizes, hashes).
    End {
        notes: Vec<String>,
        inputs: Vec<InputRef>,
    },
    Error(String),
}

pub(super) fn read_batches(mut reader: EventReader, tx: mpsc::Sender<BatchMsg>) {
    let mut spreader = super::spread::Spreader::default();
    let send = |ready: Vec<super::spread::Spread>| {
        ready
            .into_iter()
            .all(|(b, o)| tx.blocking_send(BatchMsg::Batch(b, o)).is_ok())
    };
    loop {
        match reader.next_batch() {
            Ok(Some(b)) => {
                if !send(spreader.push(b)) {
                    return;
                }
            }
            Ok(None) => {
                if !send(spreader.finish()) {
                    return;
                }
                let notes = reader
                    .diagnostics()
                    .examples
                    .iter()
                    .map(crate::workload::diag::Note::describe)
                    .collect();
                let inputs = reader.inputs().iter().map(InputRef::from).collect();
                let _ = tx.blocking_send(BatchMsg::End { notes, inputs });
                return;
            }
            Err(e) => {
                let _ = tx.blocking_send(BatchMsg::Error(e.to_string()));
                return;
            }
        }
    }
}

pub(super) struct SessionHandle {
    pub(super) source: mpsc::UnboundedSender<Msg>,
    pub(super) target: Option<mpsc::UnboundedSender<Msg>>,
}

pub(super) fn shard_of(session: u64, n: u32) -> u32 {
    (xxhash_rust::xxh3::xxh3_64(&session.to_le_bytes()) % n as u64) as u32
}

pub(super) type Gates = Option<(Arc<OrderGate>, Arc<OrderGate>)>;

/// Per fingerprint: the plan, and its findings for the rewriter (both shared, so that each execution
/// clones two pointers).
pub(super) type PlanEntry = (Arc<StatementPlan>, Option<Arc<Vec<Finding>>>);

/// Statements whose relative order `--keep-order` keeps: writes, locking reads, DDL and the ends of
/// transactions (the points where one session's changes meet another's).
pub(super) fn orders_writes(p: &StatementPlan) -> bool {
    use crate::sql::classify::StatementClass as C;
    matches!(p.class, C::Write | C::LockingRead | C::Ddl)
        || matches!(p.control, Control::Commit | Control::Rollback)
}

pub(super) async fn dispatch(
    mut batches: mpsc::Receiver<BatchMsg>,
    opts: Arc<ReplayOptions>,
    done_tx: mpsc::Sender<Done>,
    start: Instant,
    stop: Arc<super::stop::Stop>,
    gates: Gates,
) -> Result<DispatchSummary, ReplayError> {
    let mut s = DispatchSummary::default();
    let mut sessions: FxHashMap<u64, SessionHandle> = FxHashMap::default();
    let mut plans: FxHashMap<u64, PlanEntry> = FxHashMap::default();
    let mut base_us: Option<i64> = None;
    let mut last_due: FxHashMap<u64, u64> = FxHashMap::default();
    let mut seq = 0u64;
    let mut order_counter = 0u64;
    let mut conflicts = super::conflict::Conflicts::default();
    let budget = Arc::new(tokio::sync::Semaphore::new(QUEUED_JOBS));
    let mut permits = Permits::default();
    // The audit's findings, handed over by the caller, say what to rewrite for the target.
    let rewrite = match (&opts.profile, &opts.rewrites, opts.target.is_some()) {
        (Some(p), Some(r), true) => Some((p, r.clone())),
        _ => None,
    };
    'read: while let Some(msg) = batches.recv().await {
        let (batch, spread) = match msg {
            BatchMsg::Batch(b, o) => (b, o),
            BatchMsg::End { notes, inputs } => {
                s.notes.extend(notes);
                s.inputs = inputs;
                continue;
            }
            BatchMsg::Error(e) => return Err(ReplayError::Input(e)),
        };
        s.fingerprints.extend(batch.new_fingerprints);
        for (mut ev, within) in batch.events.into_iter().zip(spread) {
            if stop.load(Ordering::Relaxed) {
                break 'read;
            }
            if let Some((k, n)) = opts.shard
                && shard_of(ev.session, n) != k
            {
                continue;
            }
            let (sql, is_job) = match ev.command {
                Command::Query | Command::Execute => (std::mem::take(&mut ev.sql), true),
                Command::InitDb => (
                    format!(
                        "USE `{}`",
                        String::from_utf8_lossy(&ev.sql).replace('`', "``")
                    )
                    .into_bytes(),
                    true,
                ),
                Command::Quit => {
                    conflicts.end_session(ev.session);
                    if let Some(h) = sessions.remove(&ev.session) {
                        let _ = h.source.send(Msg::End);
                        if let Some(t) = h.target {
                            let _ = t.send(Msg::End);
                        }
                    }
                    continue;
                }
                Command::Connect => (Vec::new(), false),
                _ => continue,
            };
            let handle = sessions.entry(ev.session).or_insert_with(|| {
                s.sessions += 1;
                let spawn = |side: Side, ep: &Endpoint| {
                    let (tx, rx) = mpsc::unbounded_channel();
                    let gate = gates.as_ref().map(|(s, t)| {
                        if side == Side::Source {
                            s.clone()
                        } else {
                            t.clone()
                        }
                    });
                    let w = Worker::new(
                        side,
                        ep.clone(),
                        opts.mode,
                        done_tx.clone(),
                        start,
                        stop.clone(),
                        gate,
                        opts.release_idle,
                    );
                    tokio::spawn(w.run(rx));
                    tx
                };
                SessionHandle {
                    source: spawn(Side::Source, &opts.source),
                    target: opts.target.as_ref().map(|t| spawn(Side::Target, t)),
                }
            });
            if !is_job {
                continue;
            }
            // Schedule: the recorded offset scaled by the speed; events without a time inherit the
            // session's previous one.
            let due_us = match opts.pace {
                Pace::Max => None,
                Pace::Speed(speed) => {
                    let due = match ev.start_us {
                        Some(t) => {
                            // Within its whole second, in log order (see spread.rs).
                            let t = t + i64::from(within);
                            let b = *base_us.get_or_insert(t);
                            ((t - b).max(0) as f64 / speed) as u64
                        }
                        None => last_due.get(&ev.session).copied().unwrap_or(0),
                    };
                    last_due.insert(ev.session, due);
                    Some(due)
                }
            };
            let fp = ev.fingerprint_id;
            let (p, findings) = plans
                .entry(fp)
                .or_insert_with(|| {
                    let findings = rewrite.as_ref().and_then(|(_, r)| r.findings(fp).cloned());
                    (Arc::new(plan(&sql, opts.mode)), findings)
                })
                .clone();
            let p = for_text(&p, &sql);
            if !s.counts.contains_key(&fp) {
                s.order.push(fp);
            }
            *s.counts.entry(fp).or_default() += 1;
            let mut target_sql = None;
            if let (Some((profile, rewrites)), Some(f)) = (&rewrite, &findings)
                && p.skip.is_none()
                && p.control == Control::None
                && !f.is_empty()
            {
                if let Some(r) = rewrites.rewrite(&String::from_utf8_lossy(&sql), profile, f) {
                    if r.complete {
                        *s.rewritten.entry(fp).or_default() += 1;
                    } else {
                        *s.not_rewritable.entry(fp).or_default() += 1;
                    }
                    target_sql = Some(r.sql);
                } else if f
                    .iter()
                    .any(|x| x.severity == crate::profile::Severity::Error)
                {
                    *s.not_rewritable.entry(fp).or_default() += 1;
                }
            }
            seq += 1;
            let (order_seq, deps) = if opts.keep_order && p.skip.is_none() && orders_writes(&p) {
                order_counter += 1;
                // The general log records no duration: its lines are written as statements start.
                let written_at_start = ev.duration_us.is_none();
                let deps = conflicts.order(order_counter, ev.session, &p, &sql, written_at_start);
                for m in conflicts.take_moved() {
                    if let Some((gs, gt)) = &gates {
                        gs.moved(m);
                        gt.moved(m);
                    }
                }
                (Some(order_counter), deps)
            } else {
                if opts.keep_order && p.skip.is_none() {
                    conflicts.control(ev.session, &p.control);
                } else if opts.keep_order {
                    conflicts.wrote(ev.session);
                }
                (None, Default::default())
            };
            let Some(budget) = permits.take_one(&budget).await else {
                break 'read;
            };
            let job = Arc::new(Job {
                seq,
                session: ev.session,
                fp,
                due_us,
                recorded_us: ev.start_us,
                sql,
                target_sql,
                plan: p,
                order_seq,
                deps,
                _budget: budget,
            });
            // A closed worker (it stopped) is not an error here: the comparator has its results.
            let _ = handle.source.send(Msg::Job(job.clone()));
            if let Some(t) = &handle.target {
                let _ = t.send(Msg::Job(job));
            }
        }
    }
    for (_, h) in sessions.drain() {
        let _ = h.source.send(Msg::End);
        if let Some(t) = h.target {
            let _ = t.send(Msg::End);
        }
    }
    Ok(s)
}
