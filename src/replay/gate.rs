//! The cross-session order gate of `--mode all`: a statement starts once the statements it conflicts
//! with (see `conflict`) have taken their locks on this side.

use super::conflict::Deps;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// How long a statement waits for the statements it conflicts with before it goes anyway.
pub(super) const ORDER_WAIT: Duration = Duration::from_secs(2);

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
}

impl OrderGate {
    pub(super) fn new() -> OrderGate {
        OrderGate {
            state: std::sync::Mutex::new((1, Default::default())),
            ..Default::default()
        }
    }

    fn ready(&self, deps: &Deps) -> bool {
        let Ok(s) = self.state.lock() else {
            return true;
        };
        let (next, ahead) = &*s;
        *next >= deps.all_before && deps.on.iter().all(|d| d < next || ahead.contains(d))
    }

    pub(super) async fn wait_for(&self, deps: &Deps) {
        if self.ready(deps) {
            return;
        }
        let deadline = tokio::time::Instant::now() + ORDER_WAIT;
        loop {
            let notified = self.notify.notified();
            if self.ready(deps) {
                return;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                self.timeouts.fetch_add(1, Ordering::Relaxed);
                // Whatever is stuck counts as passed, so later statements do not wait for it too.
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
                return;
            }
        }
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
