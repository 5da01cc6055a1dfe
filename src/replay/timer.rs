//! Wakes a session at its statement's due instant to within tens of microseconds.
//!
//! tokio's timer fires on 1 ms ticks, so a statement it started was up to 1 ms late (±0.5 ms when
//! aimed half a tick early, and then up to 0.5 ms early). At `--speed 1` that tick was most of the
//! start lag the report shows, and pushed its p99 past 1 ms on a capture made at 60% of the
//! machine's rate (2026-12-07). Here one thread sleeps on a condition variable until the earliest
//! due instant (the kernel's high-resolution timers, 50 µs of slack) and wakes the tasks due.
//! Only the last stretch of a wait comes here: the worker sleeps on tokio's timer until shortly
//! before the due instant, so the heap holds at most one entry per waiting session.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Condvar, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::Instant;

/// A wait longer than this sleeps on tokio's timer first, until this long before its end (the
/// coarse timer fires up to 1 ms after the instant it is given).
pub(super) const COARSE_MARGIN: std::time::Duration = std::time::Duration::from_millis(2);

/// Completes at `due` (or at once if it has passed).
pub(super) fn sleep_until(due: Instant) -> PreciseSleep {
    PreciseSleep { due }
}

pub(super) struct PreciseSleep {
    due: Instant,
}

impl Future for PreciseSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if Instant::now() >= self.due {
            return Poll::Ready(());
        }
        // A second poll before the due instant (a spurious wake) registers again: the earlier
        // entry then wakes the task once more for nothing, which a poll shrugs off. Without the
        // thread (see `available`) the task is woken at once rather than never.
        match timer() {
            Some(t) => t.add(self.due, cx.waker().clone()),
            None => cx.waker().wake_by_ref(),
        }
        Poll::Pending
    }
}

struct Entry {
    due: Instant,
    /// Breaks ties between equal instants (wakers are not ordered).
    seq: u64,
    waker: Waker,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        (self.due, self.seq) == (o.due, o.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.due, self.seq).cmp(&(o.due, o.seq))
    }
}

#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Reverse<Entry>>,
    seq: u64,
}

struct Timer {
    queue: Mutex<Queue>,
    changed: Condvar,
}

/// The process's timer thread, started on first use; it sleeps while nothing waits. None if the
/// system refused the thread.
fn timer() -> Option<&'static Timer> {
    static TIMER: OnceLock<Option<&'static Timer>> = OnceLock::new();
    *TIMER.get_or_init(|| {
        let t: &'static Timer = Box::leak(Box::new(Timer {
            queue: Mutex::new(Queue::default()),
            changed: Condvar::new(),
        }));
        std::thread::Builder::new()
            .name("cutover-timer".into())
            .spawn(move || t.run())
            .ok()
            .map(|_| t)
    })
}

/// Whether the timer thread runs (false if the system refused a thread: the worker then waits on
/// tokio's timer alone).
pub(super) fn available() -> bool {
    timer().is_some()
}

impl Timer {
    fn add(&self, due: Instant, waker: Waker) {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        q.seq += 1;
        let seq = q.seq;
        let earliest = q.heap.peek().is_none_or(|Reverse(e)| due < e.due);
        q.heap.push(Reverse(Entry { due, seq, waker }));
        drop(q);
        if earliest {
            self.changed.notify_one();
        }
    }

    fn run(&self) {
        let mut due_now: Vec<Waker> = Vec::new();
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let now = Instant::now();
            while q.heap.peek().is_some_and(|Reverse(e)| e.due <= now) {
                if let Some(Reverse(e)) = q.heap.pop() {
                    due_now.push(e.waker);
                }
            }
            if !due_now.is_empty() {
                // Wake outside the lock: a waker may take the runtime's own locks.
                drop(q);
                for w in due_now.drain(..) {
                    w.wake();
                }
                q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
                continue;
            }
            q = match q.heap.peek() {
                None => self.changed.wait(q).unwrap_or_else(|p| p.into_inner()),
                Some(Reverse(e)) => {
                    let left = e.due.saturating_duration_since(now);
                    self.changed
                        .wait_timeout(q, left)
                        .unwrap_or_else(|p| p.into_inner())
                        .0
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The point of this timer: a due instant between tokio's 1 ms ticks is met to well under
    /// half a tick. With tokio's timer the median lateness of such dues is about 1 ms.
    #[test]
    fn dues_between_milliseconds_are_met_to_a_fraction_of_one() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let late = rt.block_on(async {
            let mut late = Vec::new();
            for i in 0..200u64 {
                // Dues spread over the millisecond: 0.30, 0.37, 0.44 … ms ahead.
                let due = Instant::now() + Duration::from_micros(300 + (i * 70) % 1000);
                sleep_until(due).await;
                late.push(Instant::now().saturating_duration_since(due));
            }
            late
        });
        let mut sorted = late.clone();
        sorted.sort();
        let median = sorted[sorted.len() / 2];
        assert!(
            median < Duration::from_micros(250),
            "median lateness {median:?} (tokio's 1 ms timer gives about 1 ms)"
        );
        assert!(available());
    }

    /// Many tasks due at interleaved instants all wake, none before its instant.
    #[test]
    fn every_task_wakes_and_none_early() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async {
            let start = Instant::now();
            let tasks: Vec<_> = (0..64u64)
                .map(|i| {
                    tokio::spawn(async move {
                        let due = start + Duration::from_micros(500 + (i * 37) % 3000);
                        sleep_until(due).await;
                        Instant::now() >= due
                    })
                })
                .collect();
            for t in tasks {
                assert!(t.await.expect("task"), "a task woke before its due instant");
            }
        });
    }
}
