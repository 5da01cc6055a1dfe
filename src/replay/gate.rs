//! The cross-session order gate of `--mode all`: writes start in the captured order.

use std::sync::atomic::Ordering;
use std::time::Duration;

/// How long a statement waits for its turn in the capture's start order before it goes anyway.
pub(super) const ORDER_WAIT: Duration = Duration::from_secs(2);

/// Keeps the capture's start order of writes across sessions on one side (`--keep-order`): a
/// statement that writes, locks or commits starts only after every statement captured before it has
/// started (not finished, so statements still overlap; plain reads never wait). Concurrent writers then
/// take their locks in the order they did when captured, and both sides see the same interleaving;
/// without it, two sessions touching the same rows race differently on each side. A statement that
/// waits longer than ORDER_WAIT (a lock the target holds longer, a session that stopped) goes anyway.
#[derive(Default)]
pub struct OrderGate {
    /// (lowest job number not yet started, job numbers started out of order).
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

    pub(super) fn next(&self) -> u64 {
        self.state.lock().map(|s| s.0).unwrap_or(u64::MAX)
    }

    pub(super) async fn wait_turn(&self, seq: u64) {
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

    pub(super) fn started(&self, seq: u64) {
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
