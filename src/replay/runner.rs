//! The replay engine: a reader thread streams the capture, a dispatcher hands each captured session's
//! statements to one worker per side (each with its own connection and clock), and a comparator pairs
//! the two sides' results as they arrive and keeps the statistics.

use super::compare::{compare, row_diff};
use super::plan::{
    CompareMode, Control, Mode, Send, SkipReason, StatementPlan, for_text, plan, send_for,
};
use super::stats::{Latency, regression};
use super::*;
use crate::capture::EventReader;
use crate::db::compare::OutcomeComparison;
use crate::db::exec::{Outcome, Session};
use crate::db::{DbError, Engine};
use crate::profile::Finding;
use crate::profile::rewrite::rewrite_with;
use crate::sql::fingerprint::format_id;
use crate::workload::Command;
use crate::workload::{Endpoints, Header, InputRef, SchemaId};
use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Jobs queued in all (both sides, all sessions) before the dispatcher waits: bounds memory and how far
/// one side may run ahead of the other. The bound is global, not per session: a per-session bound
/// lets one session blocked on a lock stop the dispatcher before it reaches the COMMIT that would
/// release that lock.
const QUEUED_JOBS: usize = 50_000;
/// A session idle this long (wall time, outside a transaction) gives its connection back.
const IDLE: Duration = Duration::from_secs(30);
/// Time given to the first connections before the schedule starts.
const HEADROOM: Duration = Duration::from_millis(200);
/// Results with more rows than this are cut to this many before comparing.
const MAX_ROWS: usize = 100_000;
/// How long an ordered statement runs before the next ordered one may start (see `worker`).
const LOCK_GRACE: Duration = Duration::from_millis(2);
/// How long a statement waits for its turn in the capture's start order before it goes anyway.
const ORDER_WAIT: Duration = Duration::from_secs(2);

/// Keeps the capture's start order of writes across sessions on one side (`--keep-order`): a
/// statement that writes, locks or commits starts only after every statement captured before it has
/// started (not finished, so statements still overlap; plain reads never wait). Concurrent writers then
/// take their locks in the order they did when captured, and both sides see the same interleaving;
/// without it, two sessions touching the same rows race differently on each side. A statement that
/// waits longer than ORDER_WAIT (a lock the target holds longer, a session that stopped) goes anyway.
#[derive(Default)]
pub struct OrderGate {
    /// (lowest job number not yet started, job numbers started out of order).
    state: std::sync::Mutex<(u64, std::collections::BTreeSet<u64>)>,
    notify: tokio::sync::Notify,
    pub timeouts: std::sync::atomic::AtomicU64,
}

impl OrderGate {
    fn new() -> OrderGate {
        OrderGate {
            state: std::sync::Mutex::new((1, Default::default())),
            ..Default::default()
        }
    }

    fn next(&self) -> u64 {
        self.state.lock().map(|s| s.0).unwrap_or(u64::MAX)
    }

    async fn wait_turn(&self, seq: u64) {
        let deadline = tokio::time::Instant::now() + ORDER_WAIT;
        loop {
            let notified = self.notify.notified();
            if self.next() >= seq {
                return;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                self.timeouts.fetch_add(1, Ordering::Relaxed);
                // Move the order past whatever is stuck, so later statements do not wait for it too.
                if let Ok(mut s) = self.state.lock()
                    && s.0 < seq
                {
                    s.0 = seq;
                    let (next, set) = &mut *s;
                    set.retain(|&x| x >= *next);
                    while set.remove(next) {
                        *next += 1;
                    }
                }
                self.notify.notify_waiters();
                return;
            }
        }
    }

    fn started(&self, seq: u64) {
        if let Ok(mut s) = self.state.lock() {
            let (next, set) = &mut *s;
            if seq >= *next {
                set.insert(seq);
                while set.remove(next) {
                    *next += 1;
                }
            }
        }
        self.notify.notify_waiters();
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Side {
    Source,
    Target,
}

/// One statement to run on a side.
struct Job {
    seq: u64,
    session: u64,
    fp: u64,
    /// Microseconds after the replay's start; None at max speed.
    due_us: Option<u64>,
    sql: Vec<u8>,
    /// What the target sends instead (a rewrite), when it differs.
    target_sql: Option<String>,
    plan: Arc<StatementPlan>,
    /// `--keep-order`: this statement's place among the statements that write, lock or end a
    /// transaction (reads are not ordered).
    order_seq: Option<u64>,
    /// Held until both sides and the comparator are done with the job.
    _budget: tokio::sync::OwnedSemaphorePermit,
}

enum Msg {
    Job(Arc<Job>),
    End,
}

enum Res {
    Rows(Outcome),
    Error { code: String, message: String },
    Skipped(SkipReason),
}

/// A side's result for one job.
struct Done {
    side: Side,
    job: Arc<Job>,
    res: Res,
    lag_us: u64,
    latency_us: u64,
    /// When it started, microseconds after the replay's start.
    at_us: u64,
    commit: bool,
    reconnected: bool,
    /// When the statement's snapshot began (its transaction's first statement), µs after the start.
    snapshot_us: u64,
    /// Tables whose changes this statement made visible to other sessions (an autocommit write, or
    /// the COMMIT of a transaction that wrote them).
    published: Option<Arc<Vec<String>>>,
}

impl Done {
    /// A result for a statement that was not run (skipped, or no connection).
    fn unsent(side: Side, job: Arc<Job>, res: Res) -> Done {
        Done {
            side,
            job,
            res,
            lag_us: 0,
            latency_us: 0,
            at_us: 0,
            commit: false,
            reconnected: false,
            snapshot_us: 0,
            published: None,
        }
    }
}

/// What the dispatcher found out.
#[derive(Default)]
struct DispatchSummary {
    sessions: u64,
    fingerprints: FxHashMap<u64, String>,
    /// Executions per fingerprint, in order of first appearance.
    order: Vec<u64>,
    counts: FxHashMap<u64, u64>,
    rewritten: FxHashMap<u64, u64>,
    not_rewritable: FxHashMap<u64, u64>,
    notes: Vec<String>,
    inputs: Vec<InputRef>,
}

/// Runs a replay to the end (or until Ctrl-C or `--duration`) and returns its report.
pub async fn replay(opts: ReplayOptions) -> Result<ReplayReport, ReplayError> {
    // Fail early on unreachable servers and wrong credentials, before any statement is sent.
    for ep in std::iter::once(&opts.source).chain(opts.target.iter()) {
        Session::connect(ep)
            .await
            .map_err(ReplayError::Db)?
            .close()
            .await;
    }
    let reader = EventReader::open(&opts.logs, opts.capture.clone())
        .map_err(|e| ReplayError::Input(e.to_string()))?;
    let mut header = Header::start(SchemaId::REPLAY);
    header.endpoints = Endpoints {
        source: Some(opts.source.to_string()),
        target: opts.target.as_ref().map(|t| t.to_string()),
    };
    // Until the reader reaches the end (an interrupted replay), the inputs are known by path only.
    let inputs: Vec<InputRef> = reader
        .inputs()
        .iter()
        .map(|i| InputRef::path(i.path.clone()))
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let (stop, interrupted) = (stop.clone(), interrupted.clone());
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                interrupted.store(true, Ordering::SeqCst);
                stop.store(true, Ordering::SeqCst);
            }
        });
    }
    if let Some(d) = opts.duration {
        let (stop, interrupted) = (stop.clone(), interrupted.clone());
        tokio::spawn(async move {
            tokio::time::sleep(d).await;
            interrupted.store(true, Ordering::SeqCst);
            stop.store(true, Ordering::SeqCst);
        });
    }
    // Reader thread: batches of events into the async world.
    let (batch_tx, batch_rx) = mpsc::channel(4);
    std::thread::Builder::new()
        .name("cutover-replay-read".into())
        .spawn(move || read_batches(reader, batch_tx))
        .map_err(|e| ReplayError::Input(format!("cannot start the reader thread: {e}")))?;
    let (done_tx, done_rx) = mpsc::channel::<Done>(4096);
    let start = Instant::now() + HEADROOM;
    let opts = Arc::new(opts);
    let comparator = tokio::spawn(compare_loop(done_rx, opts.clone(), start));
    let gates = if opts.keep_order {
        Some((Arc::new(OrderGate::new()), Arc::new(OrderGate::new())))
    } else {
        None
    };
    let mut summary = dispatch(
        batch_rx,
        opts.clone(),
        done_tx,
        start,
        stop.clone(),
        gates.clone(),
    )
    .await?;
    if summary.inputs.is_empty() {
        summary.inputs = inputs;
    }
    let acc = comparator
        .await
        .map_err(|e| ReplayError::Input(format!("comparator failed: {e}")))?;
    let mut report = finish(acc, summary, &opts, interrupted.load(Ordering::SeqCst));
    header.inputs = std::mem::take(&mut report.header.inputs);
    header.finish();
    report.header = header;
    if let Some((gs, gt)) = gates {
        if let Some(x) = report.sides.get_mut("source") {
            x.order_wait_timeouts = Some(gs.timeouts.load(Ordering::Relaxed));
        }
        if let Some(x) = report.sides.get_mut("target") {
            x.order_wait_timeouts = Some(gt.timeouts.load(Ordering::Relaxed));
        }
    }
    Ok(report)
}

/// Why a replay could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Db(DbError),
    #[error("{0}")]
    Input(String),
}

/// What the reader thread sends the dispatcher.
enum BatchMsg {
    Batch(crate::capture::Batch),
    /// The end of the inputs: what was odd about them, and the inputs as read (sizes, hashes).
    End {
        notes: Vec<String>,
        inputs: Vec<InputRef>,
    },
    Error(String),
}

fn read_batches(mut reader: EventReader, tx: mpsc::Sender<BatchMsg>) {
    loop {
        match reader.next_batch() {
            Ok(Some(b)) => {
                if tx.blocking_send(BatchMsg::Batch(b)).is_err() {
                    return;
                }
            }
            Ok(None) => {
                let notes = reader
                    .diagnostics()
                    .examples
                    .iter()
                    .map(crate::workload::diag::Note::describe)
                    .collect();
                let inputs = reader
                    .inputs()
                    .iter()
                    .map(|i| InputRef {
                        path: i.path.clone(),
                        bytes: i.bytes,
                        xxh3: i.xxh3.clone(),
                    })
                    .collect();
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

struct SessionHandle {
    source: mpsc::UnboundedSender<Msg>,
    target: Option<mpsc::UnboundedSender<Msg>>,
}

fn shard_of(session: u64, n: u32) -> u32 {
    (xxhash_rust::xxh3::xxh3_64(&session.to_le_bytes()) % n as u64) as u32
}

type Gates = Option<(Arc<OrderGate>, Arc<OrderGate>)>;

/// Per fingerprint: the plan, and its findings for the rewriter (both shared, so that each execution
/// clones two pointers).
type PlanEntry = (Arc<StatementPlan>, Option<Arc<Vec<Finding>>>);

/// Statements whose relative order `--keep-order` keeps: writes, locking reads, DDL and the ends of
/// transactions (the points where one session's changes meet another's).
fn orders_writes(p: &StatementPlan) -> bool {
    use crate::sql::classify::StatementClass as C;
    matches!(p.class, C::Write | C::LockingRead | C::Ddl)
        || matches!(p.control, Control::Commit | Control::Rollback)
}

async fn dispatch(
    mut batches: mpsc::Receiver<BatchMsg>,
    opts: Arc<ReplayOptions>,
    done_tx: mpsc::Sender<Done>,
    start: Instant,
    stop: Arc<AtomicBool>,
    gates: Gates,
) -> Result<DispatchSummary, ReplayError> {
    let mut s = DispatchSummary::default();
    let mut sessions: FxHashMap<u64, SessionHandle> = FxHashMap::default();
    let mut plans: FxHashMap<u64, PlanEntry> = FxHashMap::default();
    let mut base_us: Option<i64> = None;
    let mut last_due: FxHashMap<u64, u64> = FxHashMap::default();
    let mut seq = 0u64;
    let mut order_counter = 0u64;
    let budget = Arc::new(tokio::sync::Semaphore::new(QUEUED_JOBS));
    // The audit's findings, handed over by the caller, say what to rewrite for the target.
    let rewrite = match (&opts.profile, &opts.rewrites, opts.target.is_some()) {
        (Some(p), Some(r), true) => Some((p, r.clone())),
        _ => None,
    };
    'read: while let Some(msg) = batches.recv().await {
        let batch = match msg {
            BatchMsg::Batch(b) => b,
            BatchMsg::End { notes, inputs } => {
                s.notes.extend(notes);
                s.inputs = inputs;
                continue;
            }
            BatchMsg::Error(e) => return Err(ReplayError::Input(e)),
        };
        s.fingerprints.extend(batch.new_fingerprints);
        for ev in batch.events {
            if stop.load(Ordering::Relaxed) {
                break 'read;
            }
            if let Some((k, n)) = opts.shard
                && shard_of(ev.session, n) != k
            {
                continue;
            }
            let (sql, is_job) = match ev.command {
                Command::Query | Command::Execute => (ev.sql.clone(), true),
                Command::InitDb => (
                    format!(
                        "USE `{}`",
                        String::from_utf8_lossy(&ev.sql).replace('`', "``")
                    )
                    .into_bytes(),
                    true,
                ),
                Command::Quit => {
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
                    tokio::spawn(worker(
                        side,
                        ep.clone(),
                        opts.mode,
                        rx,
                        done_tx.clone(),
                        start,
                        stop.clone(),
                        gate,
                    ));
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
            if let (Some((profile, _)), Some(f)) = (&rewrite, &findings)
                && p.skip.is_none()
                && p.control == Control::None
                && !f.is_empty()
            {
                if let Some(r) = rewrite_with(&String::from_utf8_lossy(&sql), profile, f) {
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
            let order_seq = if opts.keep_order && p.skip.is_none() && orders_writes(&p) {
                order_counter += 1;
                Some(order_counter)
            } else {
                None
            };
            let Ok(budget) = budget.clone().acquire_owned().await else {
                break 'read;
            };
            let job = Arc::new(Job {
                seq,
                session: ev.session,
                fp,
                due_us,
                sql,
                target_sql,
                plan: p,
                order_seq,
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

/// What a worker knows about its session, to replay it and to restore it after a reconnect.
#[derive(Default)]
struct SessionState {
    in_txn: bool,
    /// PostgreSQL aborted the transaction after an error: skip to its end.
    aborted: bool,
    autocommit_off: bool,
    /// Statements that set session state (USE, SET), replayed after a reconnect.
    restore: Vec<Vec<u8>>,
    /// Tables written in the open transaction, and when its snapshot began.
    txn_tables: Vec<String>,
    txn_snapshot: Option<u64>,
}

async fn connect(ep: &Endpoint, mode: Mode, st: &SessionState) -> Result<Session, DbError> {
    let mut s = Session::connect(ep).await?;
    if mode == Mode::Reads {
        // Defence in depth: in reads mode the server itself refuses writes. A server that will not
        // take the setting gets no statements.
        let guard = match ep.engine {
            Engine::MySql => "SET SESSION TRANSACTION READ ONLY",
            Engine::Postgres => "SET default_transaction_read_only = on",
        };
        s.run(guard).await?;
    }
    for r in &st.restore {
        let _ = s.execute_bytes(r).await;
    }
    Ok(s)
}

#[allow(clippy::too_many_arguments)]
async fn worker(
    side: Side,
    ep: Endpoint,
    mode: Mode,
    mut rx: mpsc::UnboundedReceiver<Msg>,
    done: mpsc::Sender<Done>,
    start: Instant,
    stop: Arc<AtomicBool>,
    gate: Option<Arc<OrderGate>>,
) {
    let engine = ep.engine;
    let url_has_db = ep.database().is_some();
    let mut conn: Option<Session> = None;
    let mut st = SessionState::default();
    let mut prev_done = start;
    let mut lost = false;
    loop {
        let msg = match tokio::time::timeout(IDLE, rx.recv()).await {
            Ok(Some(m)) => m,
            Ok(None) => break,
            Err(_) => {
                if !st.in_txn
                    && let Some(c) = conn.take()
                {
                    c.close().await;
                }
                continue;
            }
        };
        let job = match msg {
            Msg::End => break,
            Msg::Job(j) => j,
        };
        if stop.load(Ordering::Relaxed) {
            break;
        }
        // Skipped jobs take their turn too, or the statements after them would wait for nothing.
        let pass = |g: &Option<Arc<OrderGate>>| {
            if let (Some(g), Some(os)) = (g, job.order_seq) {
                g.started(os);
            }
        };
        let skip = |reason: SkipReason| Done::unsent(side, job.clone(), Res::Skipped(reason));
        let plan = &job.plan;
        if let Some(r) = plan.skip {
            pass(&gate);
            let _ = done.send(skip(r)).await;
            continue;
        }
        if engine == Engine::Postgres {
            if let Control::Autocommit(on) = plan.control {
                st.autocommit_off = !on;
                if on && st.in_txn {
                    if let Some(c) = conn.as_mut() {
                        let _ = c.execute("COMMIT").await;
                    }
                    st.in_txn = false;
                }
                pass(&gate);
                let _ = done.send(skip(SkipReason::AutocommitEmulated)).await;
                continue;
            }
            if st.aborted {
                if matches!(plan.control, Control::Commit | Control::Rollback) {
                    st.aborted = false;
                    st.in_txn = false;
                    pass(&gate);
                    let _ = done.send(skip(SkipReason::EndOfAbortedTransaction)).await;
                } else {
                    pass(&gate);
                    let _ = done.send(skip(SkipReason::InsideAbortedTransaction)).await;
                }
                continue;
            }
        }
        let send = send_for(&plan.control, engine, url_has_db);
        let text: &[u8] = match &send {
            Send::Skip(r) => {
                pass(&gate);
                let _ = done.send(skip(*r)).await;
                continue;
            }
            Send::Replace(t) => t.as_bytes(),
            Send::Text => match (&job.target_sql, side) {
                (Some(t), Side::Target) => t.as_bytes(),
                _ => &job.sql,
            },
        };
        // Wait for the schedule.
        let due = job.due_us.map(|d| start + Duration::from_micros(d));
        if let Some(d) = due {
            // In slices, so that a stop (Ctrl-C, --duration) is noticed during long pauses.
            while Instant::now() < d && !stop.load(Ordering::Relaxed) {
                tokio::time::sleep_until(d.min(Instant::now() + Duration::from_millis(100)).into())
                    .await;
            }
            if stop.load(Ordering::Relaxed) {
                pass(&gate);
                break;
            }
        }
        if conn.is_none() {
            match connect(&ep, mode, &st).await {
                Ok(c) => conn = Some(c),
                Err(e) => {
                    pass(&gate);
                    let _ = done
                        .send(Done::unsent(
                            side,
                            job.clone(),
                            Res::Error {
                                code: "connect".into(),
                                message: e.to_string(),
                            },
                        ))
                        .await;
                    continue;
                }
            }
            prev_done = prev_done.max(Instant::now());
        }
        let Some(c) = conn.as_mut() else {
            pass(&gate);
            continue;
        };
        // PostgreSQL has no autocommit=0: open the transaction MySQL would have.
        if engine == Engine::Postgres
            && st.autocommit_off
            && !st.in_txn
            && !matches!(
                plan.control,
                Control::Begin | Control::Commit | Control::Rollback
            )
            && c.execute("BEGIN").await.is_ok()
        {
            st.in_txn = true;
        }
        if let (Some(g), Some(os)) = (&gate, job.order_seq) {
            g.wait_turn(os).await;
        }
        let scheduled = due.map_or(prev_done, |d| d.max(prev_done));
        let t0 = Instant::now();
        let lag_us = t0.saturating_duration_since(scheduled).as_micros() as u64;
        // An ordered statement lets the next one go once it has finished or has run for LOCK_GRACE
        // (by then it holds its locks, or waits for one): marking it at its start would let the next
        // writer race it for the same row lock, which the capture's order had settled.
        let r = if gate.is_some() && job.order_seq.is_some() {
            let exec = c.execute_keyed(text, job.fp);
            tokio::pin!(exec);
            tokio::select! {
                r = &mut exec => { pass(&gate); r }
                _ = tokio::time::sleep(LOCK_GRACE) => { pass(&gate); exec.await }
            }
        } else {
            pass(&gate);
            c.execute_keyed(text, job.fp).await
        };
        let latency_us = t0.elapsed().as_micros() as u64;
        prev_done = Instant::now();
        let at_us = t0.saturating_duration_since(start).as_micros() as u64;
        let reconnected = std::mem::take(&mut lost);
        // Snapshots and visibility, for telling races between sessions from real differences.
        let in_txn_before = st.in_txn || (engine == Engine::MySql && st.autocommit_off);
        let snapshot_us = if in_txn_before && !matches!(plan.control, Control::Begin) {
            *st.txn_snapshot.get_or_insert(at_us)
        } else {
            at_us
        };
        let mut published: Option<Arc<Vec<String>>> = None;
        let ok = r.is_ok();
        if ok {
            if !plan.tables_written.is_empty() {
                if in_txn_before {
                    st.txn_tables.extend(plan.tables_written.iter().cloned());
                } else {
                    published = Some(plan.tables_written.clone());
                }
            }
            if matches!(plan.control, Control::Commit) && !st.txn_tables.is_empty() {
                published = Some(Arc::new(std::mem::take(&mut st.txn_tables)));
            }
        }
        if matches!(
            plan.control,
            Control::Commit | Control::Rollback | Control::Begin
        ) {
            st.txn_tables.clear();
            st.txn_snapshot = None;
        }
        let res = match r {
            Ok(mut o) => {
                match plan.control {
                    Control::Begin => st.in_txn = true,
                    Control::Commit | Control::Rollback => st.in_txn = false,
                    Control::Use | Control::Set | Control::Autocommit(_) => {
                        st.restore.push(text.to_vec())
                    }
                    _ => {}
                }
                if engine == Engine::MySql
                    && st.autocommit_off
                    && plan.class != crate::sql::classify::StatementClass::Transaction
                {
                    st.in_txn = true;
                }
                for set in &mut o.sets {
                    if set.rows.len() > MAX_ROWS {
                        set.rows.truncate(MAX_ROWS);
                    }
                }
                Res::Rows(o)
            }
            Err(e) => {
                let (code, message) = match &e {
                    DbError::Server { code, message, .. } => (code.clone(), message.clone()),
                    other => ("connection".to_string(), other.to_string()),
                };
                // The connection is gone: lost on the wire, or killed by the server (MariaDB/MySQL
                // 1927 and 1053 announce it; PostgreSQL 57P01 and 57P02).
                let gone = matches!(e, DbError::Io { .. })
                    || matches!(
                        e.code(),
                        Some("1927" | "1053" | "2006" | "2013" | "57P01" | "57P02" | "57P03")
                    );
                if gone {
                    // Reconnect before the next statement and restore the session's settings.
                    conn = None;
                    st.in_txn = false;
                    lost = true;
                } else if engine == Engine::Postgres && st.in_txn {
                    // The transaction is aborted: roll it back and skip to its end, as the
                    // application on a PostgreSQL-family server would have to.
                    if let Some(c) = conn.as_mut() {
                        let _ = c.execute("ROLLBACK").await;
                    }
                    st.aborted = !matches!(plan.control, Control::Commit | Control::Rollback);
                    st.in_txn = false;
                }
                Res::Error { code, message }
            }
        };
        let commit = plan.control == Control::Commit && matches!(res, Res::Rows(_));
        if done
            .send(Done {
                side,
                job: job.clone(),
                res,
                lag_us,
                latency_us,
                at_us,
                commit,
                reconnected,
                snapshot_us,
                published,
            })
            .await
            .is_err()
        {
            break;
        }
    }
    if let Some(mut c) = conn {
        if st.in_txn || (engine == Engine::MySql && st.autocommit_off) {
            // Never leave a transaction open, never commit one the capture did not commit.
            let _ = c.execute("ROLLBACK").await;
        }
        c.close().await;
    }
}

#[derive(Default)]
struct SideAcc {
    statements: u64,
    errors: u64,
    commits: u64,
    skipped: BTreeMap<SkipReason, u64>,
    latency: Latency,
    lag: Latency,
    slices: Vec<(u64, u64, u64, Latency)>,
    reconnects: u64,
    first_at: Option<u64>,
    last_at: u64,
}

#[derive(Default)]
struct FpSideAcc {
    statements: u64,
    errors: u64,
    latency: Latency,
    first_error: Option<String>,
}

#[derive(Default)]
struct FpAcc {
    compared: u64,
    mismatches: u64,
    not_comparable: u64,
    not_comparable_reason: Option<String>,
    source: FpSideAcc,
    target: FpSideAcc,
}

#[derive(Default)]
struct Acc {
    sides: FxHashMap<u8, SideAcc>,
    fps: FxHashMap<u64, FpAcc>,
    groups: FxHashMap<(u64, &'static str), MismatchGroup>,
    compared: u64,
    mismatches: u64,
    not_comparable: u64,
    both_failed: u64,
    concurrent_races: u64,
    /// Per side: the statements that published writes (see `Published`).
    published: [std::collections::VecDeque<Published>; 2],
    /// Mismatches that may be races, decided once the sides have moved past them.
    suspects: Vec<Suspect>,
    /// The latest start seen per side.
    watermark: [u64; 2],
}

/// A write made visible: (start µs, end µs, session, seq, tables). It became visible somewhere in
/// between; (session, seq) names the same statement on both sides.
type Published = (u64, u64, u64, u64, Arc<Vec<String>>);

/// A mismatch in `--mode all` waiting to be told apart from a race between sessions.
struct Suspect {
    job: Arc<Job>,
    category: &'static str,
    reason: String,
    diff: Vec<String>,
    /// (snapshot start, end) per side, µs.
    windows: [(u64, u64); 2],
}

/// Margin around a statement's window within which another session's commit counts as a race.
const RACE_MARGIN_US: u64 = 2_000;

fn side_key(s: Side) -> u8 {
    match s {
        Side::Source => 0,
        Side::Target => 1,
    }
}

fn record(acc: &mut Acc, d: &Done) {
    let sa = acc.sides.entry(side_key(d.side)).or_default();
    let fa = acc.fps.entry(d.job.fp).or_default();
    let fs = match d.side {
        Side::Source => &mut fa.source,
        Side::Target => &mut fa.target,
    };
    match &d.res {
        Res::Skipped(r) => *sa.skipped.entry(*r).or_default() += 1,
        res => {
            sa.statements += 1;
            fs.statements += 1;
            sa.latency.record(d.latency_us);
            fs.latency.record(d.latency_us);
            sa.lag.record(d.lag_us + 1);
            sa.first_at = Some(sa.first_at.map_or(d.at_us, |f| f.min(d.at_us)));
            sa.last_at = sa.last_at.max(d.at_us + d.latency_us);
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

fn pair(acc: &mut Acc, src: &Done, tgt: &Done, opts: &ReplayOptions) {
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
        (Res::Error { .. }, Res::Error { .. }) => {
            acc.both_failed += 1;
            acc.compared += 1;
            fa.compared += 1;
            return;
        }
        (Res::Rows(_), Res::Error { code, message }) => {
            category = "error_on_target";
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
    count_mismatch(acc, job, category, reason, diff, opts);
}

fn count_mismatch(
    acc: &mut Acc,
    job: &Arc<Job>,
    category: &'static str,
    reason: String,
    diff: Vec<String>,
    opts: &ReplayOptions,
) {
    let fa = acc.fps.entry(job.fp).or_default();
    acc.compared += 1;
    acc.mismatches += 1;
    fa.compared += 1;
    fa.mismatches += 1;
    let g = acc
        .groups
        .entry((job.fp, category))
        .or_insert_with(|| MismatchGroup {
            category: category.to_string(),
            id: format_id(job.fp),
            ..Default::default()
        });
    g.count += 1;
    if g.examples.len() < opts.examples {
        let mut sql = String::from_utf8_lossy(&job.sql).into_owned();
        if sql.len() > 2000 {
            sql.truncate(sql.char_indices().nth(2000).map_or(sql.len(), |(i, _)| i));
            sql.push('…');
        }
        g.examples.push(MismatchExample {
            session: job.session,
            seq: job.seq,
            sql,
            target_sql: job.target_sql.clone(),
            reason,
            diff,
        });
    }
}

/// Each side's published writes by (session, seq): (start, end) µs.
type PublishedIndex = [FxHashMap<(u64, u64), (u64, u64)>; 2];

/// Whether a statement of `session` that touched `tables` and ran within `windows` (per side:
/// snapshot start, end) may have raced another session's write. Where such a write fell against
/// the statement on a side: visible to it (ended before its snapshot), not (began after it ended),
/// or overlapping. A race is an overlap on either side, or a write the two sides placed differently
/// (before the statement on one, after it on the other), though neither side overlapped.
fn raced(
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
fn settle(acc: &mut Acc, opts: &ReplayOptions, all: bool) {
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
            count_mismatch(acc, &sp.job, sp.category, sp.reason, sp.diff, opts);
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

async fn compare_loop(
    mut rx: mpsc::Receiver<Done>,
    opts: Arc<ReplayOptions>,
    start: Instant,
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
    while let Some(d) = rx.recv().await {
        record(&mut acc, &d);
        n += 1;
        let k = side_key(d.side) as usize;
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
            b.set_message(format!(
                "replaying: {} results, {} compared, {} mismatches, {:.0} s",
                n,
                acc.compared,
                acc.mismatches,
                start.elapsed().as_secs_f64()
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
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    acc
}

fn side_report(a: SideAcc, endpoint: &Endpoint) -> SideReport {
    let elapsed_s = a
        .first_at
        .map_or(0.0, |f| (a.last_at.saturating_sub(f)) as f64 / 1e6);
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
        skipped: a.skipped,
        qps: per_s(a.statements),
        tps: per_s(a.commits),
        error_rate: if a.statements > 0 {
            a.errors as f64 / a.statements as f64
        } else {
            0.0
        },
        latency_ms: a.latency.summary(),
        start_lag_ms: {
            // Lags were recorded plus one microsecond (histograms hold no zero).
            let mut s = a.lag.summary();
            for v in [&mut s.avg, &mut s.p50, &mut s.p95, &mut s.p99, &mut s.max] {
                *v = (*v - 0.001).max(0.0);
            }
            s
        },
        timeline: a
            .slices
            .iter()
            .enumerate()
            .map(|(i, (n, e, c, l))| TimeSlice {
                t_s: i as u64 * 10,
                statements: *n,
                errors: *e,
                commits: *c,
                qps: *n as f64 / 10.0,
                p99_ms: l.summary().p99,
                latency_ms: Some(l.summary()),
                latency_hist: Some(l.encode()),
            })
            .collect(),
        reconnects: a.reconnects,
        order_wait_timeouts: None,
        elapsed_s,
        latency_hist: a.latency.encode(),
        lag_hist: a.lag.encode(),
    }
}

fn finish(
    mut acc: Acc,
    s: DispatchSummary,
    opts: &ReplayOptions,
    interrupted: bool,
) -> ReplayReport {
    let mut sides = BTreeMap::new();
    sides.insert(
        "source".to_string(),
        side_report(acc.sides.remove(&0).unwrap_or_default(), &opts.source),
    );
    if let Some(t) = &opts.target {
        sides.insert(
            "target".to_string(),
            side_report(acc.sides.remove(&1).unwrap_or_default(), t),
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
        if let Some(t) = &test
            && t.regression
        {
            let (a, b) = (fa.source.latency.summary(), fa.target.latency.summary());
            regressions.push(Regression {
                fingerprint: text.clone(),
                id: format_id(*fp),
                count: fa.target.statements,
                source_p50_ms: a.p50,
                target_p50_ms: b.p50,
                source_p95_ms: a.p95,
                target_p95_ms: b.p95,
                p50_ratio: t.p50_ratio,
                p95_ratio: t.p95_ratio,
                p_value: t.p_value,
            });
        }
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
    let mut groups: Vec<MismatchGroup> = acc
        .groups
        .into_iter()
        .map(|((fp, _), mut g)| {
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
        concurrent_races: acc.concurrent_races,
        regressions,
        regression_rule: opts.regression,
        fingerprints,
        mismatch_groups: groups,
        rewritten: s.rewritten.values().sum(),
        not_rewritable,
        input_notes: s.notes,
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
