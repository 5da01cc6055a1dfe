//! Query-time distributions per fingerprint: exact for small classes, an HDR histogram beyond.

use hdrhistogram::Histogram;

/// Samples kept exactly before switching to a histogram.
const EXACT_LIMIT: usize = 256;
/// Significant figures of the histogram: values within 1% (pt-query-digest's buckets are 5% wide).
const SIGFIG: u8 = 2;

/// Records durations in microseconds.
#[derive(Clone, Debug, Default)]
pub struct LatencyRecorder {
    exact: Vec<u64>,
    hist: Option<Box<Histogram<u32>>>,
    count: u64,
    total: u128,
    min: u64,
    max: u64,
}

/// Summary statistics, in microseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LatencySummary {
    pub count: u64,
    pub total_us: u128,
    pub min_us: u64,
    pub avg_us: f64,
    pub p50_us: u64,
    pub p95_us: u64,
    pub p99_us: u64,
    pub max_us: u64,
}

impl LatencyRecorder {
    pub fn record(&mut self, us: u64) {
        if self.count == 0 || us < self.min {
            self.min = us;
        }
        self.max = self.max.max(us);
        self.count += 1;
        self.total += us as u128;
        match &mut self.hist {
            // `record` grows an auto-resizing histogram; `saturating_record` would clamp instead.
            Some(h) => {
                if h.record(us).is_err() {
                    h.saturating_record(us);
                }
            }
            None => {
                self.exact.push(us);
                if self.exact.len() > EXACT_LIMIT {
                    // Auto-resizing: memory grows with the largest value seen, not a fixed range.
                    if let Ok(mut h) = Histogram::<u32>::new(SIGFIG) {
                        for &v in &self.exact {
                            if h.record(v).is_err() {
                                h.saturating_record(v);
                            }
                        }
                        self.exact = Vec::new();
                        self.hist = Some(Box::new(h));
                    }
                }
            }
        }
    }

    pub fn summary(&self) -> Option<LatencySummary> {
        if self.count == 0 {
            return None;
        }
        let (p50, p95, p99) = match &self.hist {
            Some(h) => (
                h.value_at_quantile(0.50),
                h.value_at_quantile(0.95),
                h.value_at_quantile(0.99),
            ),
            None => {
                let mut v = self.exact.clone();
                v.sort_unstable();
                (
                    nearest_rank(&v, 0.50),
                    nearest_rank(&v, 0.95),
                    nearest_rank(&v, 0.99),
                )
            }
        };
        Some(LatencySummary {
            count: self.count,
            total_us: self.total,
            min_us: self.min,
            avg_us: self.total as f64 / self.count as f64,
            // A histogram reports a bucket's upper edge; never report beyond the real extremes.
            p50_us: p50.clamp(self.min, self.max),
            p95_us: p95.clamp(self.min, self.max),
            p99_us: p99.clamp(self.min, self.max),
            max_us: self.max,
        })
    }
}

/// The nearest-rank percentile of sorted values (the smallest value with at least q of the data at or
/// below it), which is what a histogram quantile approximates.
fn nearest_rank(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_for_small_classes() {
        let mut r = LatencyRecorder::default();
        for v in 1..=100 {
            r.record(v);
        }
        let s = r.summary().unwrap();
        assert_eq!(
            (s.p50_us, s.p95_us, s.p99_us, s.max_us, s.min_us),
            (50, 95, 99, 100, 1)
        );
        assert_eq!(s.total_us, 5050);
    }

    #[test]
    fn histogram_within_one_percent() {
        let mut r = LatencyRecorder::default();
        for v in 1..=100_000u64 {
            r.record(v);
        }
        let s = r.summary().unwrap();
        assert!(
            (s.p50_us as f64 - 50_000.0).abs() / 50_000.0 < 0.01,
            "{}",
            s.p50_us
        );
        assert!(
            (s.p99_us as f64 - 99_000.0).abs() / 99_000.0 < 0.01,
            "{}",
            s.p99_us
        );
        assert_eq!(s.max_us, 100_000);
    }
}
