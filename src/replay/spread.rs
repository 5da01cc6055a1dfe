//! Start times within a whole second. MariaDB's logs (and MySQL's before 5.7) stamp whole seconds,
//! so every statement of a second would be due at its start: the replay would send a second's
//! statements in a burst, and those of the last stamp after the schedule's end (a 10 s capture
//! took 10.57 s at `--speed 1` with no start lag, 2026-12-06). The general log's line order is the
//! server's order of starts, so each second's statements are spread over the second in that order,
//! evenly. The first and the last second of a log are partial: their statements take the spacing
//! of the full second next to them, at the end of the first second and at the start of the last,
//! so the recorded rate (statements over the schedule's span) is not inflated by a short first or
//! last second nor deflated by stretching it over a whole one.
//!
//! A slow log's records are in the order statements ended. MariaDB stamps each with the whole
//! second it started (10.11), MySQL 5.6 with the whole second it ended (its start is that less
//! Query_time): either way a second's statements were all due at once, the replay sent them in a
//! burst and the last second's after the schedule's end (a 10 s MariaDB capture took 10.75 s at
//! `--speed 1`, with or without `--free-order`, while its general log took 10.09 s; 2026-12-07).
//! So a slow log's whole-second stamps, start or end, are spread the same way in line order, and
//! the start moves with its stamp.
//!
//! Only the schedule moves: the events keep their stamps (`SET TIMESTAMP` replays the recorded one).
//! Stamps with microseconds (MySQL 5.7 and later, Percona) are left as read.

use crate::capture::Batch;
use crate::workload::TimePrecision;
use std::collections::VecDeque;

const SECOND_US: u64 = 1_000_000;

/// A batch with, per event, microseconds to add to its stamp for the schedule.
pub(super) type Spread = (Batch, Vec<u32>);

/// The events of one whole-second stamp, by (batch number, index in the batch).
struct Second {
    stamp: i64,
    events: Vec<(u64, usize)>,
}

/// Holds batches until the seconds their events belong to are complete, then hands them on with
/// their offsets. Holds at most the first two seconds of the log, then one.
#[derive(Default)]
pub(super) struct Spreader {
    held: VecDeque<(u64, Batch, Vec<u32>)>,
    next_batch: u64,
    /// The log's first second, kept until the next one says what a full second holds.
    first: Option<Second>,
    open: Option<Second>,
    /// How many statements the last complete second held.
    last_full: Option<usize>,
}

impl Spreader {
    /// Takes a batch; returns those whose offsets are known, in order.
    pub(super) fn push(&mut self, batch: Batch) -> Vec<Spread> {
        let no = self.next_batch;
        self.next_batch += 1;
        // Whole-second stamps: a start (general log, MariaDB's slow log) or an end (MySQL 5.6's slow
        // log: the start plus Query_time). A slow-log start the reader moved to keep a session's
        // order is neither and stays where it is.
        let second = SECOND_US as i64;
        let stamps: Vec<(usize, i64)> = batch
            .events
            .iter()
            .enumerate()
            .filter_map(|(i, ev)| {
                let start = ev.start_us?;
                let end = start + ev.duration_us.unwrap_or(0) as i64;
                if ev.time_precision != TimePrecision::Second {
                    None
                } else if start % second == 0 {
                    Some((i, start))
                } else {
                    (end % second == 0).then_some((i, end))
                }
            })
            .collect();
        // Held first: a second that ends inside this batch gets its offsets here too.
        let offsets = vec![0; batch.events.len()];
        self.held.push_back((no, batch, offsets));
        let mut late = Vec::new();
        for (i, t) in stamps {
            match &mut self.open {
                Some(s) if s.stamp == t => s.events.push((no, i)),
                // An earlier stamp after a later one (a slow log: the statement started in that
                // second and ended after statements of the next had been written): it started late
                // in its second, so it goes at the end of it, in no second's spread. At the start
                // of it, it was due before the statements its session ran ahead of it in that
                // second, and the replay reported it a second behind its time (max 1,004 ms in
                // every slow-log row of bench-replay, 2026-12-07).
                Some(s) if t < s.stamp => late.push(i),
                _ => {
                    if let Some(done) = self.open.take() {
                        self.close(done);
                    }
                    self.open = Some(Second {
                        stamp: t,
                        events: vec![(no, i)],
                    });
                }
            }
        }
        if let Some((_, _, o)) = self.held.back_mut() {
            for i in late {
                o[i] = (SECOND_US - 1) as u32;
            }
        }
        self.ready()
    }

    /// The end of the log: the last second is partial.
    pub(super) fn finish(&mut self) -> Vec<Spread> {
        // A log of one second has no rate to go by: left at its stamp.
        if let Some(last) = self.open.take() {
            let first = self.first.take();
            // Two partial seconds only: each takes the spacing of the fuller one.
            let full = (self.last_full.into_iter())
                .chain(first.iter().map(|f| f.events.len()))
                .chain([last.events.len()])
                .max()
                .unwrap_or(1);
            if self.last_full.is_some() || first.is_some() {
                let spacing = SECOND_US / full as u64;
                self.assign(&last, |j| j as u64 * spacing);
            }
            if let Some(first) = first {
                let (n, spacing) = (first.events.len(), SECOND_US / full as u64);
                self.assign(&first, |j| SECOND_US - (n - j) as u64 * spacing);
            }
        }
        self.held.drain(..).map(|(_, b, o)| (b, o)).collect()
    }

    fn close(&mut self, s: Second) {
        let k = s.events.len();
        if self.first.is_none() && self.last_full.is_none() {
            self.first = Some(s);
            return;
        }
        self.assign(&s, |j| j as u64 * SECOND_US / k as u64);
        if let Some(first) = self.first.take() {
            let n = first.events.len();
            let spacing = SECOND_US / k.max(n) as u64;
            self.assign(&first, |j| SECOND_US - (n - j) as u64 * spacing);
        }
        self.last_full = Some(k);
    }

    fn assign(&mut self, s: &Second, offset: impl Fn(usize) -> u64) {
        for (j, &(no, i)) in s.events.iter().enumerate() {
            let front = self.held.front().map_or(0, |h| h.0);
            if let Some((_, _, o)) = self.held.get_mut((no - front) as usize)
                && let Some(x) = o.get_mut(i)
            {
                *x = offset(j).min(SECOND_US - 1) as u32;
            }
        }
    }

    /// The held batches before the first one with an event of a second still being counted.
    fn ready(&mut self) -> Vec<Spread> {
        let blocked = [&self.first, &self.open]
            .into_iter()
            .flatten()
            .filter_map(|s| s.events.first().map(|e| e.0))
            .min();
        let mut out = Vec::new();
        while let Some((no, _, _)) = self.held.front() {
            if blocked.is_some_and(|b| *no >= b) {
                break;
            }
            if let Some((_, b, o)) = self.held.pop_front() {
                out.push((b, o));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Event;

    fn batch(stamps: &[Option<i64>]) -> Batch {
        Batch {
            events: stamps
                .iter()
                .map(|t| Event {
                    seq: 0,
                    command: crate::workload::Command::Query,
                    session: 1,
                    start_us: t.map(|s| s * SECOND_US as i64),
                    time_precision: if t.is_some() {
                        TimePrecision::Second
                    } else {
                        TimePrecision::Unknown
                    },
                    duration_us: None,
                    lock_us: None,
                    user: None,
                    host: None,
                    db: None,
                    sql: b"SELECT 1".to_vec(),
                    rows_sent: None,
                    rows_examined: None,
                    rows_affected: None,
                    errno: None,
                    fingerprint_id: 0,
                    prepared_stmt: None,
                    multi: None,
                    redacted: false,
                    origin: crate::workload::Origin { file: 0, line: 1 },
                })
                .collect(),
            new_fingerprints: Vec::new(),
        }
    }

    fn offsets(out: Vec<Spread>) -> Vec<u32> {
        out.into_iter().flat_map(|(_, o)| o).collect()
    }

    #[test]
    fn spreads_each_second_and_fits_the_partial_ends_to_the_full_seconds() {
        let mut s = Spreader::default();
        // Second 10: 2 statements (the capture began late in it); 11: 4; 12: 1 (it ended early).
        let mut got = Vec::new();
        got.extend(offsets(s.push(batch(&[Some(10), Some(10), Some(11)]))));
        assert!(got.is_empty(), "the first second waits for a full one");
        got.extend(offsets(s.push(batch(&[
            Some(11),
            None,
            Some(11),
            Some(11),
        ]))));
        got.extend(offsets(s.push(batch(&[Some(12)]))));
        got.extend(offsets(s.finish()));
        assert_eq!(
            got,
            vec![
                500_000, 750_000, // the end of second 10, at second 11's spacing
                0, 250_000, 0, 500_000, 750_000, // second 11, evenly (the unstamped one: 0)
                0,       // second 12 from its start
            ]
        );
    }

    #[test]
    fn a_second_that_ends_inside_a_batch_is_spread_there_too() {
        let mut s = Spreader::default();
        let mut got = offsets(s.push(batch(&[Some(1), Some(2), Some(2), Some(3), Some(3)])));
        got.extend(offsets(s.push(batch(&[Some(3), Some(3), Some(4)]))));
        got.extend(offsets(s.finish()));
        assert_eq!(
            got,
            vec![500_000, 0, 500_000, 0, 250_000, 500_000, 750_000, 0]
        );
    }

    #[test]
    fn a_slow_logs_start_stamps_are_spread_like_a_general_logs() {
        let mut s = Spreader::default();
        // MariaDB: starts stamped 10, 11, 11, 12 with their Query_time.
        let mut b = batch(&[Some(10), Some(11), Some(11), Some(12)]);
        for ev in &mut b.events {
            ev.duration_us = Some(1_700_000);
        }
        let mut got = offsets(s.push(b));
        got.extend(offsets(s.finish()));
        assert_eq!(got, vec![500_000, 0, 500_000, 0]);
    }

    #[test]
    fn a_slow_logs_ends_are_spread_and_its_starts_move_with_them() {
        let mut s = Spreader::default();
        // Ends stamped 10, 11, 11, 12, 12 (whole seconds); starts are the ends less Query_time.
        let mut b = batch(&[Some(10), Some(11), Some(11), Some(12), Some(12)]);
        let query_us = [300, 0, 1_500_000, 20, 40];
        for (ev, q) in b.events.iter_mut().zip(query_us) {
            ev.duration_us = Some(q);
            ev.start_us = ev.start_us.map(|end| end - q as i64);
        }
        // A start the reader moved later to keep its session's order: no whole-second end.
        b.events[4].start_us = Some(12 * SECOND_US as i64 - 10);
        let mut got = offsets(s.push(b));
        got.extend(offsets(s.finish()));
        // Second 10 is partial (the end of it, at second 11's spacing); 11 is full; 12 is the
        // partial last second; the moved start stays.
        assert_eq!(got, vec![500_000, 0, 500_000, 0, 0]);
    }

    #[test]
    fn an_earlier_stamp_after_a_later_one_goes_at_the_end_of_its_second() {
        let mut s = Spreader::default();
        // A slow log in the order statements ended, stamped with their start: the fourth started
        // in second 11 and ended after the first of second 12 was written.
        let mut b = batch(&[Some(10), Some(11), Some(11), Some(12), Some(11), Some(12)]);
        for ev in &mut b.events {
            ev.duration_us = Some(5_000);
        }
        b.events.push(batch(&[Some(13)]).events.remove(0));
        let mut got = offsets(s.push(b));
        got.extend(offsets(s.finish()));
        // After its session's statements of second 11 (at 0 and 500,000), not before them.
        assert_eq!(got, vec![500_000, 0, 500_000, 0, 999_999, 500_000, 0]);
    }

    #[test]
    fn microsecond_stamps_and_a_single_second_are_left_alone() {
        let mut s = Spreader::default();
        let mut b = batch(&[Some(5), Some(5)]);
        b.events[1].time_precision = TimePrecision::Microsecond;
        b.events[1].start_us = Some(5_000_123);
        let mut got = offsets(s.push(b));
        got.extend(offsets(s.finish()));
        assert_eq!(got, vec![0, 0]);
    }
}
