//! Latency statistics for replay: HDR histograms for percentiles (serialisable, so that shards merge
//! exactly), a bounded uniform sample per fingerprint for the significance test, and the one-sided
//! Mann–Whitney U test that decides whether a fingerprint regressed.

use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2Serializer};
use serde::{Deserialize, Serialize};

/// Significant figures of latency histograms (values within 1%).
const SIGFIG: u8 = 2;
/// Samples kept per fingerprint and side for the significance test.
pub const RESERVOIR: usize = 1000;

/// Latency in microseconds: a histogram and a uniform sample.
#[derive(Clone, Debug)]
pub struct Latency {
    pub hist: Histogram<u64>,
    pub sample: Vec<u32>,
    seen: u64,
    rng: u64,
}

impl Default for Latency {
    fn default() -> Self {
        Latency {
            hist: new_hist(),
            sample: Vec::new(),
            seen: 0,
            rng: 0x9E37_79B9_7F4A_7C15,
        }
    }
}

fn new_hist() -> Histogram<u64> {
    // Auto-resizing: memory follows the largest value seen. SIGFIG is a valid constant.
    Histogram::<u64>::new(SIGFIG).expect("2 significant figures is a valid histogram precision")
}

impl Latency {
    pub fn record(&mut self, us: u64) {
        let us = us.max(1);
        if self.hist.record(us).is_err() {
            self.hist.saturating_record(us);
        }
        self.seen += 1;
        let v = us.min(u32::MAX as u64) as u32;
        if self.sample.len() < RESERVOIR {
            self.sample.push(v);
        } else {
            // Algorithm R with a xorshift generator: each value seen has the same chance to be kept.
            self.rng ^= self.rng << 13;
            self.rng ^= self.rng >> 7;
            self.rng ^= self.rng << 17;
            let j = self.rng % self.seen;
            if (j as usize) < RESERVOIR {
                self.sample[j as usize] = v;
            }
        }
    }

    /// Folds another side's or shard's latencies in. The merged sample stays uniform: each part
    /// contributes in proportion to how many values it saw.
    pub fn merge(&mut self, other: &Latency) {
        self.hist.auto(true);
        if self.hist.add(&other.hist).is_err() {
            // Only when a value cannot be represented at all: record the other side's values one by one.
            for v in other.hist.iter_recorded() {
                self.hist
                    .saturating_record_n(v.value_iterated_to(), v.count_at_value());
            }
        }
        let total = self.seen + other.seen;
        if total == 0 {
            return;
        }
        let mut merged: Vec<u32> = Vec::with_capacity(RESERVOIR);
        let take_a = ((self.seen as f64 / total as f64) * RESERVOIR as f64).round() as usize;
        merged.extend(self.sample.iter().take(take_a));
        merged.extend(
            other
                .sample
                .iter()
                .take(RESERVOIR.saturating_sub(merged.len())),
        );
        self.sample = merged;
        self.seen = total;
    }

    pub fn summary(&self) -> LatencySummary {
        let h = &self.hist;
        if h.is_empty() {
            return LatencySummary::default();
        }
        let ms = |us: u64| us as f64 / 1000.0;
        LatencySummary {
            count: h.len(),
            avg: h.mean() / 1000.0,
            p50: ms(h.value_at_quantile(0.50)),
            p95: ms(h.value_at_quantile(0.95)),
            p99: ms(h.value_at_quantile(0.99)),
            max: ms(h.max()),
        }
    }

    /// The histogram, serialised (HdrHistogram V2, base64) for `cutover merge`.
    pub fn encode(&self) -> SerializedLatency {
        let mut buf = Vec::new();
        let _ = V2Serializer::new().serialize(&self.hist, &mut buf);
        SerializedLatency {
            histogram: base64::engine::general_purpose::STANDARD.encode(buf),
            sample: self.sample.clone(),
            seen: self.seen,
        }
    }

    pub fn decode(s: &SerializedLatency) -> Result<Latency, String> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&s.histogram)
            .map_err(|e| format!("histogram is not base64: {e}"))?;
        let mut hist: Histogram<u64> = Deserializer::new()
            .deserialize(&mut &bytes[..])
            .map_err(|e| format!("histogram does not decode: {e:?}"))?;
        // Deserialised histograms do not grow by themselves; merging needs them to.
        hist.auto(true);
        Ok(Latency {
            hist,
            sample: s.sample.clone(),
            seen: s.seen,
            rng: 0x9E37_79B9_7F4A_7C15,
        })
    }
}

/// A latency distribution as JSON carries it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SerializedLatency {
    /// HdrHistogram V2 serialisation, base64, values in microseconds.
    pub histogram: String,
    /// A uniform sample (microseconds) of at most 1000 values, for the significance test.
    pub sample: Vec<u32>,
    /// How many values the sample was drawn from.
    pub seen: u64,
}

/// Percentiles in milliseconds.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LatencySummary {
    pub count: u64,
    pub avg: f64,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// One-sided Mann–Whitney U test of "x tends to be larger than y" (normal approximation with tie
/// correction; fine from ~20 values a side). Returns the p-value.
pub fn mann_whitney_greater(x: &[f64], y: &[f64]) -> f64 {
    let (n1, n2) = (x.len() as f64, y.len() as f64);
    if x.is_empty() || y.is_empty() {
        return 1.0;
    }
    let mut all: Vec<(f64, bool)> = x
        .iter()
        .map(|&v| (v, true))
        .chain(y.iter().map(|&v| (v, false)))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Ranks with ties averaged.
    let mut rank_sum_x = 0.0;
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j + 1 < all.len() && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let avg_rank = (i + j) as f64 / 2.0 + 1.0;
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        for item in &all[i..=j] {
            if item.1 {
                rank_sum_x += avg_rank;
            }
        }
        i = j + 1;
    }
    let u = rank_sum_x - n1 * (n1 + 1.0) / 2.0;
    let mean = n1 * n2 / 2.0;
    let n = n1 + n2;
    let var = n1 * n2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
    if var <= 0.0 {
        return 1.0;
    }
    // Continuity correction.
    let z = (u - mean - 0.5) / var.sqrt();
    1.0 - normal_cdf(z)
}

/// Φ(z), from the complementary error function (Numerical Recipes' erfc, |error| < 1.2e-7).
pub fn normal_cdf(z: f64) -> f64 {
    let x = -z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * x.abs());
    let y = t
        * (-x * x - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    let erfc = if x >= 0.0 { y } else { 2.0 - y };
    0.5 * erfc
}

/// How regressions are decided.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct RegressionRule {
    /// The target is a regression when slower than the source by more than this fraction (0.2 = 20%).
    pub threshold: f64,
    /// Significance level of the one-sided test.
    pub alpha: f64,
    /// Fewer executions than this on either side: no verdict.
    pub min_samples: usize,
}

impl Default for RegressionRule {
    fn default() -> Self {
        RegressionRule {
            threshold: 0.2,
            alpha: 0.01,
            min_samples: 30,
        }
    }
}

/// The verdict on one fingerprint's latency.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RegressionTest {
    /// target p50 / source p50, target p95 / source p95.
    pub p50_ratio: f64,
    pub p95_ratio: f64,
    /// p-value of "target latencies exceed source latencies × (1 + threshold)".
    pub p_value: f64,
    pub regression: bool,
    /// Why there is no verdict (too few samples), when there is none.
    pub note: Option<String>,
    /// Effect size: the estimated ratio target / source of a typical execution's latency (1.0 = the
    /// same), with its confidence interval at 1 - alpha. `None` when there is no verdict.
    #[serde(default)]
    pub ratio: Option<f64>,
    #[serde(default)]
    pub ratio_ci: Option<[f64; 2]>,
    /// `p_value` after Holm's correction across every class tested in the same replay (statement
    /// classes and transaction classes are corrected as separate families).
    #[serde(default)]
    pub p_adjusted: Option<f64>,
    /// Latencies the test used on each side: `[source, target]`.
    #[serde(default)]
    pub samples: Option<[u64; 2]>,
}

/// Tests whether `target` is slower than `source` by more than the threshold: the ratio of p50 or p95
/// must exceed 1 + threshold, and a Mann–Whitney U test of target samples against source samples
/// scaled by 1 + threshold must reject "not slower by that much" at level alpha. Both conditions guard
/// against the single-sample noise pt-upgrade reports.
pub fn regression(source: &Latency, target: &Latency, rule: &RegressionRule) -> RegressionTest {
    let (s, t) = (source.summary(), target.summary());
    let ratio = |a: f64, b: f64| if a > 0.0 { b / a } else { 1.0 };
    let (p50_ratio, p95_ratio) = (ratio(s.p50, t.p50), ratio(s.p95, t.p95));
    if source.sample.len() < rule.min_samples || target.sample.len() < rule.min_samples {
        return RegressionTest {
            p50_ratio,
            p95_ratio,
            p_value: 1.0,
            regression: false,
            note: Some(format!(
                "fewer than {} executions on a side",
                rule.min_samples
            )),
            ratio: None,
            ratio_ci: None,
            p_adjusted: None,
            samples: Some([source.sample.len() as u64, target.sample.len() as u64]),
        };
    }
    let scaled: Vec<f64> = source
        .sample
        .iter()
        .map(|&v| v as f64 * (1.0 + rule.threshold))
        .collect();
    let tv: Vec<f64> = target.sample.iter().map(|&v| v as f64).collect();
    let p = mann_whitney_greater(&tv, &scaled);
    let slower = p50_ratio > 1.0 + rule.threshold || p95_ratio > 1.0 + rule.threshold;
    RegressionTest {
        p50_ratio,
        p95_ratio,
        p_value: p,
        regression: slower && p < rule.alpha,
        note: None,
        ratio: None,
        ratio_ci: None,
        p_adjusted: None,
        samples: Some([source.sample.len() as u64, target.sample.len() as u64]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lat(values: impl Iterator<Item = u64>) -> Latency {
        let mut l = Latency::default();
        values.for_each(|v| l.record(v));
        l
    }

    #[test]
    fn normal_cdf_is_right() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(1.96) - 0.975).abs() < 1e-4);
        assert!((normal_cdf(-2.326) - 0.01).abs() < 1e-4);
    }

    #[test]
    fn same_distribution_is_no_regression_and_a_real_slowdown_is() {
        // A/A: the same noisy distribution on both sides.
        let noisy = |seed: u64| {
            (0..5000u64)
                .map(move |i| 100 + ((i * 7919 + seed) % 97) + if i % 50 == 0 { 2000 } else { 0 })
        };
        let a = lat(noisy(1));
        let b = lat(noisy(5));
        let r = regression(&a, &b, &RegressionRule::default());
        assert!(!r.regression, "{r:?}");
        // Twice as slow: a regression.
        let c = lat(noisy(3).map(|v| v * 2));
        let r = regression(&a, &c, &RegressionRule::default());
        assert!(r.regression && r.p_value < 1e-6, "{r:?}");
        // 10% slower: under the 20% threshold.
        let d = lat(noisy(3).map(|v| v * 11 / 10));
        assert!(!regression(&a, &d, &RegressionRule::default()).regression);
        // One huge outlier does not make a regression (pt-upgrade's failure mode).
        let mut e = lat(noisy(9));
        e.record(1_000_000);
        assert!(!regression(&a, &e, &RegressionRule::default()).regression);
    }

    #[test]
    fn histograms_round_trip_and_merge() {
        let a = lat(1..=1000);
        let b = Latency::decode(&a.encode()).unwrap();
        assert_eq!(a.summary(), b.summary());
        let mut m = Latency::decode(&lat(1..=1000).encode()).unwrap();
        m.merge(&lat((1001..=2000).map(|v| v * 1000)));
        assert_eq!(
            m.hist.len(),
            2000,
            "a decoded histogram grows to take larger values"
        );
        let mut m = lat(1..=1000);
        m.merge(&lat(1001..=2000));
        assert_eq!(m.hist.len(), 2000);
        assert_eq!(m.sample.len(), RESERVOIR);
        assert!((m.summary().p50 - 1.0).abs() < 0.02, "{:?}", m.summary());
    }
}
