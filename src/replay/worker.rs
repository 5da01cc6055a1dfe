//! A session worker: one captured session on one side, on its own connection, in order.

use super::plan::{Control, Mode, Send, SkipReason, send_for};
use super::*;
use super::{gate::*, job::*};
use crate::db::DbError;
use crate::db::dialect::Autocommit;
use crate::db::exec::{Outcome, Session};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// A session idle this long (wall time, outside a transaction) gives its connection back, unless
/// `--release-idle` says otherwise.
pub const DEFAULT_RELEASE_IDLE: Duration = Duration::from_secs(30);
/// Results with more rows than this are cut to this many before comparing.
pub(super) const MAX_ROWS: usize = 100_000;
/// Half of tokio's timer resolution (1 ms): how early a statement is aimed without the precise
/// timer.
const TIMER_HALF_TICK: Duration = Duration::from_micros(500);

/// What a worker knows about its session, to replay it and to restore it after a reconnect.
#[derive(Default)]
pub(super) struct SessionState {
    pub(super) in_txn: bool,
    /// PostgreSQL aborted the transaction after an error: skip to its end.
    pub(super) aborted: bool,
    pub(super) autocommit_off: bool,
    /// Statements that set session state (USE, SET), replayed after a reconnect.
    pub(super) restore: Vec<Vec<u8>>,
    /// Tables written in the open transaction, and when its snapshot began.
    pub(super) txn_tables: Vec<String>,
    pub(super) txn_snapshot: Option<u64>,
    /// The session holds state a reconnect cannot restore (temporary tables, table locks, named
    /// locks): it keeps its connection however long it idles.
    pub(super) pinned: bool,
    /// The recorded second the session's `timestamp` is set to (MySQL family, `--mode all`).
    pub(super) clock: Option<i64>,
}

pub(super) async fn connect(
    ep: &Endpoint,
    mode: Mode,
    st: &SessionState,
) -> Result<Session, DbError> {
    let mut s = Session::connect(ep).await?;
    if mode == Mode::Reads {
        // Defence in depth: in reads mode the server itself refuses writes. A server that will not
        // take the setting gets no statements.
        s.run(ep.engine.dialect().read_only_session).await?;
    }
    for r in &st.restore {
        let _ = s.execute_bytes(r).await;
    }
    Ok(s)
}

/// One captured session on one side: its connection, its session state, and where its clock is.
pub(super) struct Worker {
    pub(super) side: Side,
    pub(super) ep: Endpoint,
    pub(super) mode: Mode,
    pub(super) done: mpsc::Sender<Done>,
    /// The replay's start: schedules are offsets from it.
    pub(super) start: Instant,
    pub(super) stop: Arc<super::stop::Stop>,
    /// This worker's connection in the stop's registry of running statements.
    cancel_id: Option<u64>,
    /// Idle this long outside a transaction, the session gives its connection back.
    release_idle: Duration,
    /// The captured start order of writes (`--mode all`), shared by the side's workers.
    pub(super) gate: Option<Arc<OrderGate>>,
    /// The side's URL names the database, so the capture's `USE` is not followed.
    url_has_db: bool,
    conn: Option<Session>,
    st: SessionState,
    /// When the session's previous statement finished: the earliest the next one can start.
    prev_done: Instant,
    /// The connection was lost and reopened before the next statement.
    lost: bool,
    /// The connection id last given to the gate (`OrderGate::register`): it is given again only
    /// when it changes, not under the gate's lock for every ordered statement.
    registered: Option<u32>,
}

/// What a worker does after a statement.
enum Next {
    Continue,
    Stop,
}

impl Worker {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        side: Side,
        ep: Endpoint,
        mode: Mode,
        done: mpsc::Sender<Done>,
        start: Instant,
        stop: Arc<super::stop::Stop>,
        gate: Option<Arc<OrderGate>>,
        release_idle: Duration,
    ) -> Worker {
        Worker {
            side,
            url_has_db: ep.database().is_some(),
            ep,
            mode,
            done,
            start,
            stop,
            cancel_id: None,
            release_idle,
            gate,
            conn: None,
            st: SessionState::default(),
            prev_done: start,
            lost: false,
            registered: None,
        }
    }

    /// Replays the session's jobs until the dispatcher says it ended, or the replay stops.
    pub(super) async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Msg>) {
        loop {
            let msg = match tokio::time::timeout(self.release_idle, rx.recv()).await {
                Ok(Some(m)) => m,
                Ok(None) => break,
                Err(_) => {
                    // Idle outside a transaction: give the connection back.
                    if !self.st.in_txn && !self.st.pinned {
                        self.release_connection().await;
                    }
                    continue;
                }
            };
            let job = match msg {
                Msg::End => break,
                Msg::Job(j) => j,
            };
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            if let Next::Stop = self.replay(&job).await {
                break;
            }
        }
        self.close().await;
    }

    /// Replays one statement: skip it, or wait for its time, send it and report what came back.
    async fn replay(&mut self, job: &Arc<Job>) -> Next {
        if let Some(reason) = self.not_sent(job).await {
            return self
                .report(
                    Done::unsent(self.side, job.clone(), Res::Skipped(reason)),
                    job,
                )
                .await;
        }
        let text: &[u8] = match send_for(&job.plan.control, self.ep.engine, self.url_has_db) {
            Send::Skip(r) => {
                let unsent = Done::unsent(self.side, job.clone(), Res::Skipped(r));
                return self.report(unsent, job).await;
            }
            Send::Replace(t) => t.as_bytes(),
            Send::Text => match (&job.target_sql, self.side) {
                (Some(t), Side::Target) => t.as_bytes(),
                _ => &job.sql,
            },
        };
        let due = job.due_us.map(|d| self.start + Duration::from_micros(d));
        // A long pause before the statement (the dispatcher reads ahead, so its job is already
        // here): outside a transaction, give the connection back meanwhile, as an idle session does.
        if let Some(d) = due
            && d.saturating_duration_since(Instant::now()) > self.release_idle
            && !self.st.in_txn
            && !self.st.autocommit_off
            && !self.st.pinned
        {
            self.release_connection().await;
        }
        if !self.wait_until(due).await {
            self.pass(job);
            return Next::Stop;
        }
        if let Err(e) = self.connected().await {
            let res = Res::Error {
                code: "connect".into(),
                message: e.to_string(),
            };
            return self
                .report(Done::unsent(self.side, job.clone(), res), job)
                .await;
        }
        self.open_emulated_transaction(job).await;
        self.set_clock(job).await;
        if let (Some(g), Some(os)) = (&self.gate, job.order_seq) {
            let me = self.conn.as_ref().and_then(|c| c.connection_id());
            if me != self.registered {
                g.register(job.session, me);
                self.registered = me;
            }
            g.wait_for(&job.deps, job.session, os).await;
        }
        let scheduled = due.map_or(self.prev_done, |d| d.max(self.prev_done));
        let t0 = Instant::now();
        let r = self.execute(job, text).await;
        if r.is_err() && self.stop.load(Ordering::SeqCst) {
            // Cancelled by Ctrl-C / SIGTERM (or failed while stopping): not a result to compare.
            return Next::Stop;
        }
        let latency = t0.elapsed();
        if let (Some(g), Some(_)) = (&self.gate, job.order_seq) {
            g.observe_latency(latency);
        }
        let latency_us = latency.as_micros() as u64;
        self.prev_done = Instant::now();
        let at_us = t0.saturating_duration_since(self.start).as_micros() as u64;
        let (snapshot_us, published) = self.visibility(job, r.is_ok(), at_us);
        let res = self.outcome(job, text, r).await;
        let d = Done {
            side: self.side,
            job: job.clone(),
            commit: job.plan.control == Control::Commit && matches!(res, Res::Rows(_)),
            res,
            lag_us: t0.saturating_duration_since(scheduled).as_micros() as u64,
            behind_us: due.map(|d| t0.saturating_duration_since(d).as_micros() as u64),
            latency_us,
            at_us,
            reconnected: std::mem::take(&mut self.lost),
            snapshot_us,
            published,
        };
        match self.done.send(d).await {
            Ok(()) => Next::Continue,
            Err(_) => Next::Stop,
        }
    }

    /// Lets the next ordered statement go: a skipped job takes its turn too, or the statements after
    /// it would wait for nothing.
    fn pass(&self, job: &Job) {
        if let (Some(g), Some(os)) = (&self.gate, job.order_seq) {
            g.started(os);
        }
    }

    /// Reports a statement that was not run.
    async fn report(&self, d: Done, job: &Job) -> Next {
        self.pass(job);
        match self.done.send(d).await {
            Ok(()) => Next::Continue,
            Err(_) => Next::Stop,
        }
    }

    /// Why the statement is not sent on this side: the plan says so, or a PostgreSQL-protocol side
    /// emulates it (autocommit) or skips it (inside a transaction it aborted after an error).
    async fn not_sent(&mut self, job: &Job) -> Option<SkipReason> {
        let plan = &job.plan;
        if let Some(r) = plan.skip {
            return Some(r);
        }
        if self.ep.engine.dialect().autocommit != Autocommit::EmulatedWithBegin {
            return None;
        }
        if let Control::Autocommit(on) = plan.control {
            self.st.autocommit_off = !on;
            if on && self.st.in_txn {
                if let Some(c) = self.conn.as_mut() {
                    let _ = c.execute("COMMIT").await;
                }
                self.st.in_txn = false;
            }
            return Some(SkipReason::AutocommitEmulated);
        }
        if self.st.aborted {
            if matches!(plan.control, Control::Commit | Control::Rollback) {
                self.st.aborted = false;
                self.st.in_txn = false;
                return Some(SkipReason::EndOfAbortedTransaction);
            }
            return Some(SkipReason::InsideAbortedTransaction);
        }
        None
    }

    /// Waits for the schedule, in slices so that a stop (Ctrl-C, `--duration`) is noticed during
    /// long pauses; false when the replay stopped.
    async fn wait_until(&self, due: Option<Instant>) -> bool {
        // Nothing starts before the replay's start, `--max-speed` included: times are measured
        // from it (a statement sent during the connection headroom would count as taking no time,
        // and a short replay or a shard reported a million statements per second).
        let d = due.map_or(self.start, |d| d.max(self.start));
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return false;
            }
            let now = Instant::now();
            if now >= d {
                return true;
            }
            // Asked only when there is a wait (the first use starts the timer thread).
            let precise = super::timer::available();
            // tokio's timer (1 ms ticks) for the bulk of a wait, the precise timer for its last
            // stretch; tokio's alone, aimed half a tick early, if the timer thread could not start.
            let coarse_until = if precise {
                d.checked_sub(super::timer::COARSE_MARGIN)
            } else {
                d.checked_sub(TIMER_HALF_TICK)
            };
            match coarse_until {
                Some(c) if c > now => {
                    tokio::time::sleep_until(c.min(now + Duration::from_millis(100)).into()).await
                }
                _ if precise => super::timer::sleep_until(d).await,
                _ => return true,
            }
        }
    }

    /// Takes the connection out of the worker and out of the stop's registry of running
    /// statements.
    fn take_connection(&mut self) -> Option<Session> {
        if let Some(id) = self.cancel_id.take() {
            self.stop.unregister(id);
        }
        self.conn.take()
    }

    /// Closes the connection (idle); the next statement reopens it with the session's state.
    async fn release_connection(&mut self) {
        if let Some(c) = self.take_connection() {
            c.close().await;
        }
    }

    /// Opens the connection if there is none (first statement, after an idle close or a lost
    /// connection), with the session's settings restored.
    async fn connected(&mut self) -> Result<(), DbError> {
        if self.conn.is_none() {
            let c = connect(&self.ep, self.mode, &self.st).await?;
            self.cancel_id = Some(self.stop.register(c.cancel_handle()));
            self.conn = Some(c);
            self.st.clock = None;
            self.prev_done = self.prev_done.max(Instant::now());
        }
        Ok(())
    }

    /// `--mode all` on a MySQL-family side: a statement that reads the clock (`NOW()` in an INSERT)
    /// runs with the session's `timestamp` set to its recorded second, as the binary log replays
    /// it, so both sides write the same values (a PostgreSQL-protocol side has no such setting).
    async fn set_clock(&mut self, job: &Job) {
        let (Some(t), true, true, true) = (
            job.recorded_us,
            job.plan.uses_clock,
            self.mode == Mode::All,
            self.ep.engine.dialect().takes_mysql_settings,
        ) else {
            return;
        };
        let second = t.div_euclid(1_000_000);
        if self.st.clock == Some(second) {
            return;
        }
        if let Some(c) = self.conn.as_mut()
            && c.execute(&format!("SET timestamp = {second}"))
                .await
                .is_ok()
        {
            self.st.clock = Some(second);
        }
    }

    /// PostgreSQL has no autocommit=0: open the transaction MySQL would have.
    async fn open_emulated_transaction(&mut self, job: &Job) {
        if self.ep.engine.dialect().autocommit == Autocommit::EmulatedWithBegin
            && self.st.autocommit_off
            && !self.st.in_txn
            && !matches!(
                job.plan.control,
                Control::Begin | Control::Commit | Control::Rollback
            )
            && let Some(c) = self.conn.as_mut()
            && c.execute("BEGIN").await.is_ok()
        {
            self.st.in_txn = true;
        }
    }

    /// Sends the statement. An ordered statement lets the next one go once it has finished or has
    /// reached its rows (see `OrderGate::lock_grace`): marking it at its start would let the next
    /// writer race it for the same row lock, which the capture's order had settled.
    async fn execute(&mut self, job: &Job, text: &[u8]) -> Result<Outcome, DbError> {
        let gate = self.gate.clone();
        // Only an ordered statement on a side with a gate holds anyone back.
        let grace = gate
            .as_ref()
            .filter(|_| job.order_seq.is_some())
            .map(|g| g.lock_grace());
        let pass = || {
            if let (Some(g), Some(os)) = (&gate, job.order_seq) {
                g.started(os);
            }
        };
        let Some(c) = self.conn.as_mut() else {
            pass();
            return Err(DbError::Io {
                endpoint: self.ep.to_string(),
                message: "no connection".into(),
            });
        };
        let Some(grace) = grace else {
            pass();
            return c.execute_keyed(text, job.fp).await;
        };
        // A transaction's end holds the locks of its statements, which have all finished: the
        // statements waiting for it reach the server's lock queue after it.
        let ends = matches!(job.plan.control, Control::Commit | Control::Rollback);
        let me = c.connection_id().filter(|_| !ends);
        let exec = c.execute_keyed(text, job.fp);
        tokio::pin!(exec);
        let reached = async {
            tokio::time::sleep(grace).await;
            if let (Some(g), Some(me)) = (&gate, me) {
                g.reached_rows(me, grace).await;
            }
        };
        tokio::select! {
            r = &mut exec => { pass(); r }
            _ = reached => { pass(); exec.await }
        }
    }

    /// Snapshots and visibility, for telling races between sessions from real differences: when the
    /// statement's snapshot began, and the tables whose writes became visible to other sessions with it.
    fn visibility(&mut self, job: &Job, ok: bool, at_us: u64) -> (u64, Option<Arc<Vec<String>>>) {
        let plan = &job.plan;
        let st = &mut self.st;
        let in_txn_before = st.in_txn
            || (self.ep.engine.dialect().autocommit == Autocommit::Native && st.autocommit_off);
        let snapshot_us = if in_txn_before && !matches!(plan.control, Control::Begin) {
            *st.txn_snapshot.get_or_insert(at_us)
        } else {
            at_us
        };
        let mut published: Option<Arc<Vec<String>>> = None;
        if ok {
            if !plan.tables_written.is_empty() {
                if in_txn_before {
                    // A set (the comparator asks whether a table is in it): a transaction writing
                    // one table four times keeps one copy, not four allocations.
                    for t in plan.tables_written.iter() {
                        if !st.txn_tables.contains(t) {
                            st.txn_tables.push(t.clone());
                        }
                    }
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
        (snapshot_us, published)
    }

    /// What the statement's result does to the session, and the result as the comparator takes it.
    async fn outcome(&mut self, job: &Job, text: &[u8], r: Result<Outcome, DbError>) -> Res {
        let plan = &job.plan;
        let engine = self.ep.engine;
        match r {
            Ok(mut o) => {
                self.st.pinned |= plan.pins_session;
                match plan.control {
                    Control::Begin => self.st.in_txn = true,
                    Control::Commit | Control::Rollback => self.st.in_txn = false,
                    Control::Use | Control::Set | Control::Autocommit(_) => {
                        self.st.restore.push(text.to_vec())
                    }
                    _ => {}
                }
                if engine.dialect().autocommit == Autocommit::Native
                    && self.st.autocommit_off
                    && plan.class != crate::sql::classify::StatementClass::Transaction
                {
                    self.st.in_txn = true;
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
                if engine.dialect().lost_connection(&e) {
                    // Reconnect before the next statement and restore the session's settings.
                    drop(self.take_connection());
                    self.st.in_txn = false;
                    self.lost = true;
                } else if engine.dialect().error_aborts_transaction && self.st.in_txn {
                    // The transaction is aborted: roll it back and skip to its end, as the
                    // application on a PostgreSQL-family server would have to.
                    if let Some(c) = self.conn.as_mut() {
                        let _ = c.execute("ROLLBACK").await;
                    }
                    self.st.aborted = !matches!(plan.control, Control::Commit | Control::Rollback);
                    self.st.in_txn = false;
                }
                Res::Error { code, message }
            }
        }
    }

    /// Never leaves a transaction open, never commits one the capture did not commit.
    async fn close(mut self) {
        if let Some(mut c) = self.take_connection() {
            if self.st.in_txn
                || (self.ep.engine.dialect().autocommit == Autocommit::Native
                    && self.st.autocommit_off)
            {
                let _ = c.execute("ROLLBACK").await;
            }
            c.close().await;
        }
    }
}
