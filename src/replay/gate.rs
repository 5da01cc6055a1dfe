//! The cross-session order gate of `--mode all`: a statement starts once the statements it conflicts
//! with (see `conflict`) have taken their locks on this side.

use super::conflict::{Deps, Moved};
use crate::db::Endpoint;
use crate::db::exec::Session;
use rustc_hash::FxHashMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// How long a statement waits for the statements it conflicts with before it goes anyway.
pub(super) const ORDER_WAIT: Duration = Duration::from_secs(2);

/// The least an ordered statement runs before the gate asks whether it has reached its rows (see
/// `lock_grace`).
const MIN_LOCK_GRACE: Duration = Duration::from_millis(2);
/// The longest grace, and the longest between two looks at the server's lock waits (see
/// `lock_grace`).
const MAX_LOCK_GRACE: Duration = Duration::from_millis(50);

/// How often a waiting statement looks for a wait cycle through the server's locks. A cycle is
/// broken when two looks in a row see it: MariaDB's lock views are a cache refreshed at most every
/// 100 ms, so one look can show a lock released since, and two looks this far apart cannot.
const PROBE_EVERY: Duration = Duration::from_millis(200);
/// With `--break-lock-cycles`: how often a waiting statement looks for a cycle it should break.
const BREAK_PROBE_EVERY: Duration = Duration::from_millis(20);

/// The side's connection that asks the server about lock waits (see `OrderGate::breaks_cycle`).
struct Probe {
    endpoint: Endpoint,
    session: Option<Session>,
    /// Which of the dialect's `lock_waiters` queries this server answers.
    query: usize,
    /// The server cannot tell (no such view, no privilege): statements wait for their turn only.
    off: bool,
}

/// One side's record of which ordered statements have passed (finished, or run long enough to hold
/// their locks). Statements that do not conflict never wait for each other; a statement waits only
/// for the ones its `Deps` name. One that waits longer than ORDER_WAIT (a lock the side holds longer,
/// a session that stopped) goes anyway, and what it waited for counts as passed so that later
/// statements do not wait for it too.
#[derive(Default)]
pub struct OrderGate {
    state: std::sync::Mutex<Passed>,
    pub timeouts: std::sync::atomic::AtomicU64,
    /// Ordered statements still running at the end of their lock grace (see `reached_rows`).
    pub held_past_grace: std::sync::atomic::AtomicU64,
    /// Statements that waited for their turn, and how long they waited in all (µs).
    pub waits: std::sync::atomic::AtomicU64,
    pub waited_us: std::sync::atomic::AtomicU64,
    /// Wait cycles through a server lock, broken by letting their earliest waiting statement go
    /// (counted once per cycle, when broken; see `wait_turn`).
    pub lock_cycles: std::sync::atomic::AtomicU64,
    probe: Option<tokio::sync::Mutex<Probe>>,
    /// Let the earliest waiting statement of a cycle go at once (`--break-lock-cycles`).
    break_cycles: bool,
    /// Each captured session's connection id on this side's server.
    connections: std::sync::Mutex<FxHashMap<u64, u32>>,
    /// Per session waiting at the gate now: its statement's place in the order, and the sessions it
    /// waits for.
    waiting: std::sync::Mutex<FxHashMap<u64, (u64, Vec<u64>)>>,
    /// A running estimate of the median latency of ordered statements on this side, µs.
    median_latency_us: std::sync::atomic::AtomicU64,
    /// Statements moved after another transaction's end (see `Moved`).
    pub moves: std::sync::atomic::AtomicU64,
}

impl OrderGate {
    /// The gate of the side at `endpoint` (the server asked about lock waits).
    pub(super) fn new(endpoint: Option<Endpoint>, break_cycles: bool) -> OrderGate {
        OrderGate {
            break_cycles,
            state: std::sync::Mutex::new(Passed {
                next: 1,
                ..Default::default()
            }),
            probe: endpoint.map(|endpoint| {
                tokio::sync::Mutex::new(Probe {
                    endpoint,
                    session: None,
                    query: 0,
                    off: false,
                })
            }),
            ..Default::default()
        }
    }

    /// Notes the connection a captured session uses now (ordered statements register it before they
    /// wait, so a session blocked in one can be recognised).
    pub(super) fn register(&self, session: u64, connection: Option<u32>) {
        if let (Some(c), Ok(mut m)) = (connection, self.connections.lock()) {
            m.insert(session, c);
        }
    }

    /// The server's lock waits now, as (waiting connection, connection holding the lock); None
    /// when the server cannot tell.
    async fn lock_waits(&self) -> Option<Vec<(u32, u32)>> {
        let probe = self.probe.as_ref()?;
        let mut p = probe.lock().await;
        if p.off {
            return None;
        }
        if p.session.is_none() {
            match Session::connect(&p.endpoint).await {
                Ok(s) => p.session = Some(s),
                Err(_) => {
                    p.off = true;
                    return None;
                }
            }
        }
        let queries = p.endpoint.engine.dialect().lock_waiters;
        while p.query < queries.len() {
            let q = queries[p.query];
            let s = p.session.as_mut()?;
            match s.execute(q).await {
                Ok(o) => {
                    let id = |v: Option<&crate::db::value::Value>| {
                        v.and_then(|v| v.as_text())
                            .and_then(|t| t.parse::<u32>().ok())
                    };
                    return Some(
                        o.sets
                            .first()
                            .map(|set| {
                                set.rows
                                    .iter()
                                    .filter_map(|r| Some((id(r.first())?, id(r.get(1))?)))
                                    .collect()
                            })
                            .unwrap_or_default(),
                    );
                }
                Err(_) => p.query += 1,
            }
        }
        p.off = true;
        None
    }

    /// Whether session `me` (its statement `seq` in the order), waiting at the gate for `sessions`,
    /// is in a wait cycle and is the one to break it: following from `sessions` what each session
    /// waits for, at this gate or for a server lock, leads back to `me`, and of the statements
    /// waiting at the gate on that cycle, `me`'s came first in the capture. The capture's order
    /// cannot be kept there (the server took locks in another order than the capture shows, as
    /// InnoDB's gap locks do for rows the statements do not name) and waiting longer changes
    /// nothing; the earliest statement of the cycle is the one closest to its captured turn, and
    /// the choice both sides make alike.
    async fn breaks_cycle(&self, me: u64, seq: u64, sessions: &[u64]) -> bool {
        if sessions.is_empty() {
            return false;
        }
        let Some(waits) = self.lock_waits().await else {
            return false;
        };
        let (Ok(conns), Ok(gate)) = (self.connections.lock(), self.waiting.lock()) else {
            return false;
        };
        let session_of: FxHashMap<u32, u64> = conns.iter().map(|(s, c)| (*c, *s)).collect();
        let mut blocked_by: FxHashMap<u64, Vec<u64>> = FxHashMap::default();
        for (waiter, holder) in waits {
            if let (Some(w), Some(h)) = (session_of.get(&waiter), session_of.get(&holder)) {
                blocked_by.entry(*w).or_default().push(*h);
            }
        }
        earliest_in_cycle(me, seq, sessions, &gate, &blocked_by)
    }

    fn ready(&self, deps: &Deps) -> bool {
        self.state
            .lock()
            .map_or(true, |s| s.passed(deps.all_before, &deps.on))
    }

    /// Statement `m.statement` took its rows after the transaction ending at `m.after` ended (see
    /// `Moved`): it waits for that end, and the statements of `m.session` stop waiting for it.
    pub(super) fn moved(&self, m: Moved) {
        if let Ok(mut s) = self.state.lock() {
            // Moved again (another transaction took the rows first as well): after both ends.
            s.moved
                .entry(m.statement)
                .or_default()
                .push((m.session, m.after));
            self.moves.fetch_add(1, Ordering::Relaxed);
            // A moved statement that has passed changes nothing any more.
            if s.moved.len() > 4096 {
                let next = s.next;
                s.moved.retain(|&statement, _| statement >= next);
            }
        }
    }

    /// `deps` as the moved statements change them for statement `seq` of `session`; None when
    /// they do not. Only the ending transaction's statements (up to its end) stop waiting: the
    /// session's next transaction came after the moved statement in the log, as before.
    fn amended(&self, deps: &Deps, session: u64, seq: u64) -> Option<Deps> {
        // Nothing moved yet (most replays): no second lock per ordered statement.
        if self.moves.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let s = self.state.lock().ok()?;
        if s.moved.is_empty() {
            return None;
        }
        let ends = s.moved.get(&seq);
        let drop = |d: &u64| {
            s.moved.get(d).is_some_and(|ends| {
                ends.iter()
                    .any(|&(ender, end)| ender == session && seq <= end)
            })
        };
        if ends.is_none() && !deps.on.iter().any(drop) {
            return None;
        }
        let mut d = deps.clone();
        d.on.retain(|x| !drop(x));
        for &(ender, end) in ends.into_iter().flatten() {
            d.on.push(end);
            d.sessions.push(ender);
        }
        d.on.sort_unstable();
        d.on.dedup();
        d.sessions.sort_unstable();
        d.sessions.dedup();
        Some(d)
    }

    /// Waits until what `deps` names has passed. `session` is the waiting session (to tell a wait
    /// for a turn from a wait cycle through the server's locks, see `breaks_cycle`).
    pub(super) async fn wait_for(&self, deps: &Deps, session: u64, seq: u64) {
        let amended = self.amended(deps, session, seq);
        let deps = amended.as_ref().unwrap_or(deps);
        if self.ready(deps) {
            return;
        }
        if let Ok(mut w) = self.waiting.lock() {
            w.insert(session, (seq, deps.sessions.clone()));
        }
        let since = std::time::Instant::now();
        self.wait_turn(deps, session, seq).await;
        self.waits.fetch_add(1, Ordering::Relaxed);
        self.waited_us
            .fetch_add(since.elapsed().as_micros() as u64, Ordering::Relaxed);
        if let Ok(mut w) = self.waiting.lock() {
            w.remove(&session);
        }
    }

    async fn wait_turn(&self, deps: &Deps, session: u64, seq: u64) {
        let now = tokio::time::Instant::now();
        let deadline = now + ORDER_WAIT;
        let every = if self.break_cycles {
            BREAK_PROBE_EVERY
        } else {
            PROBE_EVERY
        };
        let mut probe_at = now + every;
        let probes = self.probe.is_some() && !deps.sessions.is_empty();
        // The previous look saw this wait in a cycle.
        let mut seen = false;
        let wake = std::sync::Arc::new(tokio::sync::Notify::new());
        loop {
            match self.state.lock() {
                Ok(mut s) if !s.passed(deps.all_before, &deps.on) => s.waiters.push(Waiter {
                    all_before: deps.all_before,
                    on: deps.on.clone(),
                    wake: wake.clone(),
                }),
                _ => return,
            }
            let until = if probes {
                deadline.min(probe_at)
            } else {
                deadline
            };
            let woken = tokio::time::timeout_at(until, wake.notified())
                .await
                .is_ok();
            match self.state.lock() {
                Ok(mut s) => {
                    // Woken, the waiter was taken off the list; timed out, it is still on it.
                    s.waiters
                        .retain(|w| !std::sync::Arc::ptr_eq(&w.wake, &wake));
                    if s.passed(deps.all_before, &deps.on) {
                        return;
                    }
                }
                Err(_) => return,
            }
            if woken {
                continue;
            }
            if tokio::time::Instant::now() < deadline {
                // A cycle waits no longer than it takes to be sure of it: nothing but a statement
                // of the cycle going ends it (the 2 s timeout let one go too, 1.6 s later). Going
                // at the first look made A/A copies of TPC-C end with a mismatch now and then
                // (2026-12-04, with looks every 20 ms: 1 in 4 runs), so by default it takes two.
                probe_at = tokio::time::Instant::now() + every;
                if self.breaks_cycle(session, seq, &deps.sessions).await {
                    if self.break_cycles || seen {
                        self.lock_cycles.fetch_add(1, Ordering::Relaxed);
                        self.give_way(deps);
                        return;
                    }
                    seen = true;
                } else {
                    seen = false;
                }
                continue;
            }
            self.timeouts.fetch_add(1, Ordering::Relaxed);
            self.give_way(deps);
            return;
        }
    }

    /// Counts what `deps` names as passed and wakes the waiters: whatever is stuck is let through,
    /// so later statements do not wait for it too.
    fn give_way(&self, deps: &Deps) {
        if let Ok(mut s) = self.state.lock() {
            if s.next < deps.all_before {
                s.next = deps.all_before;
                let next = s.next;
                s.ahead.retain(|&x| x >= next);
            }
            for &d in &deps.on {
                s.pass(d);
            }
            s.wake_ready();
        }
    }

    /// Returns once the statement running on connection `me` past its lock grace has reached its
    /// rows: it waits for a row lock (it is in the server's lock queue, ahead of the statements
    /// waiting for it here), or the server cannot tell. A statement still on its way to its rows
    /// (queued for the CPU on a loaded side) is not overtaken: the lock grace alone let the next
    /// writer of the same row through first now and then, and an A/A's copies ended different with
    /// every result equal (2026-12-06, 1 in 9 `--max-speed` runs of a sysbench capture with both
    /// copies on one MariaDB). Looks again every `every` until then; the statement finishing ends
    /// the wait too (the caller's).
    pub(super) async fn reached_rows(&self, me: u32, every: Duration) {
        self.held_past_grace.fetch_add(1, Ordering::Relaxed);
        loop {
            match self.lock_waits().await {
                Some(waits) if !waits.iter().any(|(w, _)| *w == me) => {
                    tokio::time::sleep(every).await
                }
                _ => return,
            }
        }
    }

    /// How long an ordered statement runs before the gate looks whether it has reached its rows
    /// (`reached_rows`; a transaction's end lets its waiters go then): most statements finish
    /// sooner, and the server is asked only about the rest (waiting for the statement to finish
    /// could wait on a lock the waiting statement's own transaction holds). MIN_LOCK_GRACE on a
    /// side that answers in well under a millisecond; on a loaded side (an A/A with both copies on
    /// one server runs at 40% of the recorded pace, statements queueing for the CPU before they
    /// reach their rows) four times the median latency, up to 50 ms, so that the server is not
    /// asked about every statement.
    pub(super) fn lock_grace(&self) -> Duration {
        let median = self.median_latency_us.load(Ordering::Relaxed);
        Duration::from_micros(median.saturating_mul(4)).clamp(MIN_LOCK_GRACE, MAX_LOCK_GRACE)
    }

    /// Moves the median estimate towards `latency` by a small step (the median, not the mean:
    /// statements blocked on row locks for long must not stretch the grace of the rest).
    pub(super) fn observe_latency(&self, latency: Duration) {
        let x = latency.as_micros() as u64;
        let m = self.median_latency_us.load(Ordering::Relaxed);
        let step = (m / 32).max(1);
        let next = match x.cmp(&m) {
            std::cmp::Ordering::Greater => m + step,
            std::cmp::Ordering::Less => m - step.min(m),
            std::cmp::Ordering::Equal => m,
        };
        // Racing updates from other sessions may overwrite each other: a lost step is harmless.
        self.median_latency_us.store(next, Ordering::Relaxed);
    }

    pub(super) fn started(&self, seq: u64) {
        if let Ok(mut s) = self.state.lock() {
            s.pass(seq);
            s.wake_ready();
        }
    }
}

/// Which ordered statements have passed: every number below `next`, and the ones in `ahead`; and
/// the statements waiting for some of them.
#[derive(Default)]
struct Passed {
    next: u64,
    ahead: std::collections::BTreeSet<u64>,
    /// Each is woken alone, once what it waits for has passed: waking every waiter at every pass
    /// woke each wait ~55 times on a sysbench replay (68,116 wake-ups for 1,248 waits), each
    /// wake-up a poll of the session's task, a lock and a timer set anew.
    waiters: Vec<Waiter>,
    /// Moved statements (see `Moved`): the sessions whose statements no longer wait for it, each
    /// with the end it waits for.
    moved: FxHashMap<u64, Vec<(u64, u64)>>,
}

/// A statement waiting at the gate.
struct Waiter {
    all_before: u64,
    on: Vec<u64>,
    wake: std::sync::Arc<tokio::sync::Notify>,
}

impl Passed {
    /// Whether every statement before `all_before`, and each in `on`, has passed.
    fn passed(&self, all_before: u64, on: &[u64]) -> bool {
        self.next >= all_before && on.iter().all(|d| *d < self.next || self.ahead.contains(d))
    }

    fn pass(&mut self, seq: u64) {
        if seq < self.next {
            return;
        }
        if seq == self.next {
            // The next in the order (the common case): no trip through `ahead`, whose node an
            // insert allocates and the removal frees again when nothing else is ahead.
            self.next += 1;
        } else {
            self.ahead.insert(seq);
        }
        // Always, not only after the next in order: `give_way` may leave the watermark on a
        // statement already in `ahead`.
        while !self.ahead.is_empty() && self.ahead.remove(&self.next) {
            self.next += 1;
        }
    }

    /// Wakes the waiters whose statements may go now, and takes them off the list. `notify_one`
    /// keeps the wake-up for a waiter that is not polling yet, so none is lost.
    fn wake_ready(&mut self) {
        let mut i = 0;
        while i < self.waiters.len() {
            let w = &self.waiters[i];
            if self.passed(w.all_before, &w.on) {
                self.waiters.swap_remove(i).wake.notify_one();
            } else {
                i += 1;
            }
        }
    }
}

/// Whether following from `sessions` what each session waits for (`gate`: at the gate, with its
/// statement's place in the order; `blocked_by`: for a server lock) leads back to `me`, and `me`'s
/// statement `seq` is the earliest of those waiting at the gate on the way.
fn earliest_in_cycle(
    me: u64,
    seq: u64,
    sessions: &[u64],
    gate: &FxHashMap<u64, (u64, Vec<u64>)>,
    blocked_by: &FxHashMap<u64, Vec<u64>>,
) -> bool {
    // Breadth first from the sessions waited for, remembering how each was reached.
    let mut parent: FxHashMap<u64, u64> = FxHashMap::default();
    let mut queue: std::collections::VecDeque<u64> = sessions.iter().copied().collect();
    for s in sessions {
        parent.insert(*s, me);
    }
    while let Some(s) = queue.pop_front() {
        if s == me {
            // The path back: every session on it that waits at the gate must wait for an
            // earlier statement than `me`'s.
            let mut at = parent.get(&me).copied();
            let mut steps = 0;
            while let Some(x) = at {
                if x == me || steps > parent.len() {
                    break;
                }
                if gate.get(&x).is_some_and(|(other, _)| *other < seq) {
                    return false;
                }
                at = parent.get(&x).copied();
                steps += 1;
            }
            return true;
        }
        let next = gate
            .get(&s)
            .map(|(_, on)| on.as_slice())
            .unwrap_or(&[])
            .iter()
            .chain(blocked_by.get(&s).map(Vec::as_slice).unwrap_or(&[]));
        for n in next {
            if !parent.contains_key(n) {
                parent.insert(*n, s);
                queue.push_back(*n);
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_move_the_watermark_over_every_statement_already_ahead() {
        let mut p = Passed {
            next: 1,
            ..Default::default()
        };
        p.pass(3);
        p.pass(2);
        assert_eq!((p.next, p.ahead.len()), (1, 2));
        p.pass(1);
        assert_eq!((p.next, p.ahead.len()), (4, 0));
        p.pass(2);
        assert_eq!(p.next, 4);
        // As `give_way` can leave it: the watermark on a statement that has already passed. The
        // next pass of any statement moves it over that one.
        p.ahead.insert(6);
        p.next = 6;
        p.pass(8);
        assert_eq!(p.next, 7);
        assert!(p.passed(7, &[8]));
        assert!(!p.passed(8, &[]));
    }

    #[test]
    fn the_lock_grace_follows_the_median_latency_not_the_blocked_statements() {
        let g = OrderGate::default();
        assert_eq!(g.lock_grace(), MIN_LOCK_GRACE);
        // A fast side: 300 µs statements keep the 2 ms floor.
        for _ in 0..2000 {
            g.observe_latency(Duration::from_micros(300));
        }
        assert_eq!(g.lock_grace(), Duration::from_millis(2));
        // A loaded side: 5 ms statements, one in five blocked on a row lock for half a second.
        for i in 0..5000 {
            let ms = if i % 5 == 0 { 500 } else { 5 };
            g.observe_latency(Duration::from_millis(ms));
        }
        let grace = g.lock_grace();
        assert!(
            grace >= Duration::from_millis(18) && grace <= Duration::from_millis(24),
            "{grace:?}"
        );
        // Never more than the cap.
        for _ in 0..5000 {
            g.observe_latency(Duration::from_secs(1));
        }
        assert_eq!(g.lock_grace(), MAX_LOCK_GRACE);
    }

    #[tokio::test]
    async fn a_waiter_wakes_when_what_it_waits_for_has_passed_and_not_before() {
        let gate = std::sync::Arc::new(OrderGate::new(None, false));
        let deps = Deps {
            all_before: 0,
            on: vec![3],
            sessions: vec![7],
        };
        let waiting = {
            let (gate, deps) = (gate.clone(), deps.clone());
            tokio::spawn(async move { gate.wait_for(&deps, 1, 10).await })
        };
        let on_list = |n: usize| {
            let gate = gate.clone();
            async move {
                for _ in 0..200 {
                    if gate.state.lock().map(|s| s.waiters.len()).unwrap_or(0) == n {
                        return true;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                false
            }
        };
        assert!(on_list(1).await, "the statement never waited");
        // Statements it does not wait for pass: it stays on the list, not woken.
        gate.started(1);
        gate.started(2);
        gate.started(4);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        assert!(on_list(1).await);
        // Its statement passes: it goes, long before the 2 s wait ends.
        gate.started(3);
        let t0 = std::time::Instant::now();
        tokio::time::timeout(Duration::from_secs(1), waiting)
            .await
            .expect("woken")
            .expect("no panic");
        assert!(t0.elapsed() < Duration::from_millis(500));
        assert!(on_list(0).await);
        assert_eq!(gate.timeouts.load(Ordering::Relaxed), 0);
        // Already passed: no wait at all.
        tokio::time::timeout(Duration::from_millis(100), gate.wait_for(&deps, 1, 11))
            .await
            .expect("no wait");
    }

    #[tokio::test]
    async fn a_moved_statement_waits_for_the_end_and_its_session_stops_waiting_for_it() {
        let gate = std::sync::Arc::new(OrderGate::new(None, false));
        // Statement 1 (session 1) took its rows after session 2's transaction ended at 4.
        gate.moved(Moved {
            statement: 1,
            session: 2,
            after: 4,
        });
        let on = |v: Vec<u64>, sessions: Vec<u64>| Deps {
            all_before: 0,
            on: v,
            sessions,
        };
        assert_eq!(
            gate.amended(&on(vec![], vec![]), 1, 1),
            Some(on(vec![4], vec![2]))
        );
        // Session 2's statements stop waiting for it; another session's still waits.
        assert_eq!(
            gate.amended(&on(vec![1, 3], vec![1, 3]), 2, 2),
            Some(on(vec![3], vec![1, 3]))
        );
        assert_eq!(gate.amended(&on(vec![1], vec![1]), 3, 5), None);
        // So does session 2's next transaction, written after statement 1.
        assert_eq!(gate.amended(&on(vec![1], vec![1]), 2, 6), None);
        // Session 2 runs through its end without statement 1; statement 1 goes after it.
        for seq in [2, 4] {
            tokio::time::timeout(
                Duration::from_millis(500),
                gate.wait_for(&on(vec![1], vec![1]), 2, seq),
            )
            .await
            .expect("session 2 does not wait for the moved statement");
            gate.started(seq);
        }
        gate.started(3);
        tokio::time::timeout(
            Duration::from_millis(500),
            gate.wait_for(&on(vec![], vec![]), 1, 1),
        )
        .await
        .expect("the moved statement goes once the end has passed");
        assert_eq!(gate.timeouts.load(Ordering::Relaxed), 0);
        // Moved again, after another session's end too: it waits for both.
        gate.moved(Moved {
            statement: 1,
            session: 3,
            after: 7,
        });
        assert_eq!(
            gate.amended(&on(vec![], vec![]), 1, 1),
            Some(on(vec![4, 7], vec![2, 3]))
        );
    }

    #[test]
    fn the_earliest_waiter_of_a_cycle_breaks_it() {
        // 1 waits at the gate (statement 10) for 2; 2 waits for a lock 3 holds; 3 waits at the gate
        // (statement 12) for 1.
        let mut gate: FxHashMap<u64, (u64, Vec<u64>)> = FxHashMap::default();
        gate.insert(1, (10, vec![2]));
        gate.insert(3, (12, vec![1]));
        let mut blocked: FxHashMap<u64, Vec<u64>> = FxHashMap::default();
        blocked.insert(2, vec![3]);
        assert!(earliest_in_cycle(1, 10, &[2], &gate, &blocked));
        assert!(!earliest_in_cycle(3, 12, &[1], &gate, &blocked));
        // No lock wait: 2 is just on its way, no cycle.
        assert!(!earliest_in_cycle(
            1,
            10,
            &[2],
            &gate,
            &FxHashMap::default()
        ));
        // A waiter outside the cycle does not count.
        gate.insert(9, (5, vec![1]));
        assert!(earliest_in_cycle(1, 10, &[2], &gate, &blocked));
        assert!(!earliest_in_cycle(1, 10, &[], &gate, &blocked));
    }
}
