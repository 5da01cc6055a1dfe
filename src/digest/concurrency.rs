//! How many sessions had a statement in flight at once, measured from start and end times.
//!
//! Slow logs are written in order of completion, so starts arrive late by up to a statement's
//! duration. Endpoints wait in a heap until no earlier endpoint can still arrive (the newest end seen
//! minus a window), then are swept in time order. A statement longer than the window, or one logged
//! out of order by more than it, is counted from the moment it is swept: the peak can then be low by
//! those statements, which the result reports. Only microsecond-precise times are used: with
//! whole-second times every statement of a second would seem to overlap.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// How far behind the newest end an endpoint may arrive and still be placed exactly.
const WINDOW_US: i64 = 10_000_000;

#[derive(Debug, Default)]
pub struct ConcurrencyTracker {
    /// (time, 0 for an end / 1 for a start): ends first at equal times, so back-to-back statements of one
    /// session do not overlap.
    heap: BinaryHeap<Reverse<(i64, u8)>>,
    newest_end: i64,
    swept_until: i64,
    in_flight: i64,
    peak: i64,
    peak_at: i64,
    /// Statements whose start arrived after the sweep had passed it.
    pub late: u64,
    pub measured: u64,
}

impl ConcurrencyTracker {
    pub fn add(&mut self, start_us: i64, end_us: i64) {
        self.measured += 1;
        let end_us = end_us.max(start_us);
        if self.measured > 1 && start_us < self.swept_until {
            self.late += 1;
        }
        self.heap.push(Reverse((start_us.max(self.swept_until), 1)));
        self.heap.push(Reverse((end_us.max(self.swept_until), 0)));
        if end_us > self.newest_end {
            self.newest_end = end_us;
        }
        let watermark = self.newest_end - WINDOW_US;
        self.sweep(watermark);
    }

    fn sweep(&mut self, until: i64) {
        while let Some(Reverse((t, kind))) = self.heap.peek().copied() {
            if t > until {
                break;
            }
            self.heap.pop();
            self.swept_until = self.swept_until.max(t);
            if kind == 1 {
                self.in_flight += 1;
                if self.in_flight > self.peak {
                    self.peak = self.in_flight;
                    self.peak_at = t;
                }
            } else {
                self.in_flight -= 1;
            }
        }
    }

    /// (peak, when) once every endpoint has been swept.
    pub fn finish(&mut self) -> Option<(u64, i64)> {
        self.sweep(i64::MAX);
        if self.measured == 0 {
            None
        } else {
            Some((self.peak.max(0) as u64, self.peak_at))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_overlaps_not_neighbours() {
        let mut c = ConcurrencyTracker::default();
        // Session A: [0,10], [10,20]; session B: [5,15]; C: [12,13]. Peak 3 at 12 (A, B, C).
        c.add(0, 10);
        c.add(5, 15);
        c.add(10, 20);
        c.add(12, 13);
        assert_eq!(c.finish(), Some((3, 12)));
    }

    #[test]
    fn end_ordered_arrivals_are_placed_by_start() {
        let mut c = ConcurrencyTracker::default();
        // Logged by end time: the long statement arrives last but started first.
        c.add(100, 110);
        c.add(120, 130);
        c.add(0, 200);
        assert_eq!(c.finish().map(|p| p.0), Some(2));
        assert_eq!(c.late, 0);
    }
}
