//! Stopping a replay: the flag every worker and the dispatcher check, and the statements running
//! now, so that Ctrl-C or SIGTERM cancels them on the servers (PostgreSQL's cancel request, MySQL's
//! `KILL QUERY` from a side connection) instead of waiting for a 100-second query to finish, or
//! leaving it running after cutover is gone.

use crate::db::exec::CancelHandle;
use rustc_hash::FxHashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

#[derive(Default)]
pub(super) struct Stop {
    flag: AtomicBool,
    /// Worker connection id → how to cancel what it runs.
    running: Mutex<FxHashMap<u64, CancelHandle>>,
    next_id: AtomicU64,
}

impl Stop {
    pub(super) fn load(&self, o: Ordering) -> bool {
        self.flag.load(o)
    }

    pub(super) fn store(&self, v: bool, o: Ordering) {
        self.flag.store(v, o)
    }

    /// Registers a worker's connection; the id unregisters it.
    pub(super) fn register(&self, h: CancelHandle) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut m) = self.running.lock() {
            m.insert(id, h);
        }
        id
    }

    pub(super) fn unregister(&self, id: u64) {
        if let Ok(mut m) = self.running.lock() {
            m.remove(&id);
        }
    }

    /// Cancels whatever every registered connection is running (a connection running nothing
    /// ignores it); how many cancels were sent.
    pub(super) async fn cancel_running(&self) -> usize {
        let handles: Vec<CancelHandle> = match self.running.lock() {
            Ok(m) => m.values().cloned().collect(),
            Err(_) => return 0,
        };
        let n = handles.len();
        let cancels = handles.iter().map(|h| h.cancel());
        let _ = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            futures_util::future::join_all(cancels),
        )
        .await;
        n
    }
}
