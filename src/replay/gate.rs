//! The cross-session order gate of `--mode all`: a statement starts once the statements it conflicts
//! with (see `conflict`) have taken their locks on this side.

use super::conflict::Deps;
use crate::db::Endpoint;
use crate::db::exec::Session;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// How long a statement waits for the statements it conflicts with before it goes anyway.
pub(super) const ORDER_WAIT: Duration = Duration::from_secs(2);

/// How long a statement waits before asking the server whether its own session's locks hold up
/// another connection, and how often it asks again.
const PROBE_EVERY: Duration = Duration::from_millis(20);

/// The side's connection that asks the server about lock waits (see `OrderGate::blocks_others`).
struct Probe {
    endpoint: Endpoint,
    session: Option<Session>,
    /// Which of the dialect's `lock_waiters` queries this server answers.
    query: usize,
    /// The server cannot tell (no such view, no privilege): statements wait for their turn only.
    off: bool,
}

/// One side's record of which ordered statements have passed (finished, or run long enough to hold
/// their locks): every number below `next`, and the ones in `ahead`. Statements that do not conflict
/// never wait for each other; a statement waits only for the ones its `Deps` name. One that waits
/// longer than ORDER_WAIT (a lock the side holds longer, a session that stopped) goes anyway, and
/// what it waited for counts as passed so that later statements do not wait for it too.
#[derive(Default)]
pub struct OrderGate {
    pub(super) state: std::sync::Mutex<(u64, std::collections::BTreeSet<u64>)>,
    pub(super) notify: tokio::sync::Notify,
    pub timeouts: std::sync::atomic::AtomicU64,
    /// Waits ended because the waiting session's own locks held up a session it waited for.
    pub lock_cycles: std::sync::atomic::AtomicU64,
    probe: Option<tokio::sync::Mutex<Probe>>,
    /// Each captured session's connection id on this side's server.
    connections: std::sync::Mutex<rustc_hash::FxHashMap<u64, u32>>,
}

impl OrderGate {
    /// The gate of the side at `endpoint` (the server asked about lock waits).
    pub(super) fn new(endpoint: Option<Endpoint>) -> OrderGate {
        OrderGate {
            state: std::sync::Mutex::new((1, Default::default())),
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

    /// Whether connection `me` holds a lock that one of `sessions` (any connection of the replay's
    /// when empty) waits for. A statement waiting for its turn while its own session's transaction
    /// blocks the session it waits for would wait forever: the capture's order cannot be kept there
    /// (the servers took locks in another order than the capture shows, as InnoDB's gap locks do
    /// for rows the statements do not name), and waiting longer changes nothing.
    async fn blocks(&self, me: u32, sessions: &[u64]) -> bool {
        let wanted: Vec<u32> = match self.connections.lock() {
            Ok(m) if sessions.is_empty() => m.values().copied().collect(),
            Ok(m) => sessions.iter().filter_map(|s| m.get(s).copied()).collect(),
            Err(_) => return false,
        };
        if wanted.is_empty() {
            return false;
        }
        let Some(probe) = &self.probe else {
            return false;
        };
        let mut p = probe.lock().await;
        if p.off {
            return false;
        }
        if p.session.is_none() {
            match Session::connect(&p.endpoint).await {
                Ok(s) => p.session = Some(s),
                Err(_) => {
                    p.off = true;
                    return false;
                }
            }
        }
        let queries = p.endpoint.engine.dialect().lock_waiters;
        while p.query < queries.len() {
            let q = queries[p.query].replace("{id}", &me.to_string());
            let Some(s) = p.session.as_mut() else {
                return false;
            };
            match s.execute(&q).await {
                Ok(o) => {
                    return o.sets.first().is_some_and(|set| {
                        set.rows.iter().any(|r| {
                            r.first()
                                .and_then(|v| v.as_text())
                                .and_then(|v| v.parse::<u32>().ok())
                                .is_some_and(|id| wanted.contains(&id))
                        })
                    });
                }
                Err(_) => p.query += 1,
            }
        }
        p.off = true;
        false
    }

    fn ready(&self, deps: &Deps) -> bool {
        let Ok(s) = self.state.lock() else {
            return true;
        };
        let (next, ahead) = &*s;
        *next >= deps.all_before && deps.on.iter().all(|d| d < next || ahead.contains(d))
    }

    /// Waits until what `deps` names has passed; `me` is the waiting session's connection id on
    /// this side's server, to tell a wait for a turn from a lock cycle (see `blocks`).
    pub(super) async fn wait_for(&self, deps: &Deps, me: Option<u32>) {
        if self.ready(deps) {
            return;
        }
        let now = tokio::time::Instant::now();
        let deadline = now + ORDER_WAIT;
        let mut next_probe = now + PROBE_EVERY;
        loop {
            let notified = self.notify.notified();
            if self.ready(deps) {
                return;
            }
            let until = if me.is_some() && self.probe.is_some() {
                deadline.min(next_probe)
            } else {
                deadline
            };
            if tokio::time::timeout_at(until, notified).await.is_ok() {
                continue;
            }
            if tokio::time::Instant::now() < deadline {
                if let Some(me) = me
                    && self.blocks(me, &deps.sessions).await
                {
                    // Only this statement goes: what it waited for has not passed, and others
                    // that wait for it keep waiting.
                    self.lock_cycles.fetch_add(1, Ordering::Relaxed);
                    return;
                }
                next_probe = tokio::time::Instant::now() + PROBE_EVERY;
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
            let (next, ahead) = &mut *s;
            if *next < deps.all_before {
                *next = deps.all_before;
                ahead.retain(|&x| x >= *next);
            }
            for &d in &deps.on {
                if d >= *next {
                    ahead.insert(d);
                }
            }
            while ahead.remove(next) {
                *next += 1;
            }
        }
        self.notify.notify_waiters();
    }

    pub(super) fn started(&self, seq: u64) {
        if let Ok(mut s) = self.state.lock() {
            let (next, ahead) = &mut *s;
            if seq >= *next {
                ahead.insert(seq);
                while ahead.remove(next) {
                    *next += 1;
                }
            }
        }
        self.notify.notify_waiters();
    }
}
