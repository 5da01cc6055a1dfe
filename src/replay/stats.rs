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

impl SerializedLatency {
    /// The latencies (ms) at the given percentiles (0–100; 100 = the maximum), read from the
    /// histogram; `None` when there is no histogram or it does not decode.
    pub fn percentiles_ms(&self, percentiles: &[f64]) -> Option<Vec<f64>> {
        if self.histogram.is_empty() {
            return None;
        }
        let l = Latency::decode(self).ok()?;
        if l.hist.is_empty() {
            return None;
        }
        Some(
            percentiles
                .iter()
                .map(|p| {
                    let us = if *p >= 100.0 {
                        l.hist.max()
                    } else {
                        l.hist.value_at_percentile(p.max(0.0))
                    };
                    us as f64 / 1000.0
                })
                .collect(),
        )
    }
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
    /// Significance level of the one-sided test, after Holm's correction across the classes tested.
    pub alpha: f64,
    /// Fewer executions than this on either side: no verdict.
    pub min_samples: usize,
    /// A typical execution must also be slower by at least this many milliseconds: sub-millisecond
    /// shifts follow the machine (caches, CPU contention), not the database.
    #[serde(default = "default_min_shift_ms")]
    pub min_shift_ms: f64,
}

fn default_min_shift_ms() -> f64 {
    0.25
}

impl Default for RegressionRule {
    fn default() -> Self {
        RegressionRule {
            threshold: 0.2,
            alpha: 0.01,
            min_samples: 30,
            min_shift_ms: default_min_shift_ms(),
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

/// The Hodges–Lehmann estimate of the shift `y - x` (the median of all pairwise differences) with
/// its distribution-free confidence interval (Lehmann: order statistics of the pairwise differences
/// at the Mann–Whitney critical value, normal approximation), two-sided at `1 - 2 * alpha_one_sided`.
pub fn hodges_lehmann(x: &[f64], y: &[f64], alpha_one_sided: f64) -> Option<(f64, [f64; 2])> {
    if x.is_empty() || y.is_empty() {
        return None;
    }
    let mut d: Vec<f64> = Vec::with_capacity(x.len() * y.len());
    for &b in y {
        for &a in x {
            d.push(b - a);
        }
    }
    let n = d.len();
    let mut at = |k: usize| -> f64 {
        let k = k.min(n - 1);
        *d.select_nth_unstable_by(k, |a, b| a.total_cmp(b)).1
    };
    let est = if n % 2 == 1 {
        at(n / 2)
    } else {
        (at(n / 2 - 1) + at(n / 2)) / 2.0
    };
    let (n1, n2) = (x.len() as f64, y.len() as f64);
    let z = normal_quantile(1.0 - alpha_one_sided);
    let c = (n1 * n2 / 2.0 - z * (n1 * n2 * (n1 + n2 + 1.0) / 12.0).sqrt()).floor();
    let k = c.max(0.0) as usize;
    let lo = at(k);
    let hi = at(n.saturating_sub(1 + k));
    Some((est, [lo.min(est), hi.max(est)]))
}

/// Φ⁻¹(p) by bisection on [`normal_cdf`] (only a few calls per replay).
pub fn normal_quantile(p: f64) -> f64 {
    let (mut lo, mut hi) = (-10.0f64, 10.0f64);
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if normal_cdf(mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// Tests whether `target` is slower than `source` by more than the threshold. The effect is the
/// Hodges–Lehmann estimate of the shift of log-latencies (`ratio` = its exponential: how much
/// slower a typical execution is) with its confidence interval; a regression needs the interval's
/// lower bound above 1 + threshold, a typical execution slower by at least `min_shift_ms`, and the
/// one-sided Mann–Whitney U test of target against source × (1 + threshold) significant at alpha.
/// [`holm`] then adjusts the p-values across the replay's classes and withdraws the verdicts that
/// are not significant after the correction. Requiring the whole interval beyond the threshold is
/// what keeps identical servers from flagging (a tiny systematic shift is significant on 1,000
/// samples, but not beyond 20%), and the absolute floor keeps the machine's sub-millisecond jitter
/// out of verdicts.
pub fn regression(source: &Latency, target: &Latency, rule: &RegressionRule) -> RegressionTest {
    let (s, t) = (source.summary(), target.summary());
    let ratio = |a: f64, b: f64| if a > 0.0 { b / a } else { 1.0 };
    let (p50_ratio, p95_ratio) = (ratio(s.p50, t.p50), ratio(s.p95, t.p95));
    let samples = Some([source.sample.len() as u64, target.sample.len() as u64]);
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
            samples,
        };
    }
    let scaled: Vec<f64> = source
        .sample
        .iter()
        .map(|&v| v as f64 * (1.0 + rule.threshold))
        .collect();
    let tv: Vec<f64> = target.sample.iter().map(|&v| v as f64).collect();
    let p = mann_whitney_greater(&tv, &scaled);
    let ls: Vec<f64> = source
        .sample
        .iter()
        .map(|&v| (v.max(1) as f64).ln())
        .collect();
    let lt: Vec<f64> = target
        .sample
        .iter()
        .map(|&v| (v.max(1) as f64).ln())
        .collect();
    let (shift, ci) = hodges_lehmann(&ls, &lt, rule.alpha).unwrap_or((0.0, [0.0, 0.0]));
    let (r, ci) = (shift.exp(), [ci[0].exp(), ci[1].exp()]);
    // How much longer a typical execution takes, in ms (the source's median times the ratio).
    let typical_ms = median_ms(&source.sample);
    let slower_ms = typical_ms * (r - 1.0);
    let regression =
        ci[0] > 1.0 + rule.threshold && slower_ms >= rule.min_shift_ms && p < rule.alpha;
    RegressionTest {
        p50_ratio,
        p95_ratio,
        p_value: p,
        regression,
        note: None,
        ratio: Some(r),
        ratio_ci: Some(ci),
        p_adjusted: None,
        samples,
    }
}

fn median_ms(sample: &[u32]) -> f64 {
    if sample.is_empty() {
        return 0.0;
    }
    let mut v = sample.to_vec();
    let mid = v.len() / 2;
    *v.select_nth_unstable(mid).1 as f64 / 1000.0
}

/// Holm's step-down correction across one family of tests (the statement classes of a replay, or
/// its transaction classes): sets `p_adjusted` on every test with a verdict, and withdraws the
/// regressions whose adjusted p-value is not below alpha.
pub fn holm<'a>(tests: impl IntoIterator<Item = &'a mut RegressionTest>, alpha: f64) {
    let mut tested: Vec<&mut RegressionTest> =
        tests.into_iter().filter(|t| t.note.is_none()).collect();
    tested.sort_by(|a, b| a.p_value.total_cmp(&b.p_value));
    let m = tested.len();
    let mut running = 0.0f64;
    for (i, t) in tested.into_iter().enumerate() {
        running = running.max(((m - i) as f64 * t.p_value).min(1.0));
        t.p_adjusted = Some(running);
        if running >= alpha {
            t.regression = false;
        }
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
        // A/A: the same noisy distribution on both sides (about a millisecond, so that a doubling
        // is above the rule's absolute floor, `min_shift_ms`).
        let noisy = |seed: u64| {
            (0..5000u64).map(move |i| {
                1000 + ((i * 7919 + seed) % 970) + if i % 50 == 0 { 20000 } else { 0 }
            })
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

    /// Log-normal-ish latencies around `median_us` from a deterministic generator.
    fn lognormal(n: usize, median_us: f64, sigma: f64, seed: u64) -> Latency {
        let mut l = Latency::default();
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut uniform = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        };
        for _ in 0..n {
            // Box–Muller.
            let z = (-2.0 * uniform().ln()).sqrt() * (2.0 * std::f64::consts::PI * uniform()).cos();
            l.record((median_us * (sigma * z).exp()) as u64);
        }
        l
    }

    #[test]
    fn a_doubling_is_caught_with_its_interval_and_a_a_noise_is_not() {
        let rule = RegressionRule::default();
        let src = lognormal(3000, 2000.0, 0.5, 1);
        // Twice as slow: caught, the ratio near 2 and inside its interval.
        let slow = lognormal(3000, 4000.0, 0.5, 2);
        let r = regression(&src, &slow, &rule);
        let (ratio, ci) = (r.ratio.unwrap(), r.ratio_ci.unwrap());
        assert!(r.regression, "{r:?}");
        assert!((ratio - 2.0).abs() < 0.15, "{r:?}");
        assert!(ci[0] <= ratio && ratio <= ci[1] && ci[0] > 1.2, "{r:?}");
        assert_eq!(r.samples, Some([1000, 1000]));
        // A/A: the same distribution, another draw; and the same with the small systematic shift
        // a busy 2-core machine gives one side (+8%), and a 1.4x shift of a 0.1 ms statement
        // (the machine's jitter): no verdict of regression in 50 draws.
        for seed in 0..50 {
            let a = lognormal(2000, 2000.0, 0.5, 100 + seed);
            let b = lognormal(2000, 2000.0, 0.5, 200 + seed);
            assert!(!regression(&a, &b, &rule).regression, "seed {seed}");
            let c = lognormal(2000, 2160.0, 0.5, 300 + seed);
            let r = regression(&a, &c, &rule);
            assert!(!r.regression, "seed {seed}: {r:?}");
            assert!(r.ratio_ci.unwrap()[0] < 1.2, "{r:?}");
            let fast = lognormal(2000, 100.0, 0.3, 400 + seed);
            let jitter = lognormal(2000, 140.0, 0.3, 500 + seed);
            let r = regression(&fast, &jitter, &rule);
            assert!(!r.regression, "seed {seed}: {r:?}");
        }
        // A 30% shift measured on few noisy samples: the interval reaches below 1.2, no verdict.
        let a = lognormal(60, 2000.0, 0.9, 7);
        let b = lognormal(60, 2600.0, 0.9, 8);
        let r = regression(&a, &b, &rule);
        assert!(!r.regression, "{r:?}");
    }

    #[test]
    fn holm_adjusts_across_the_family_and_withdraws_what_does_not_survive() {
        let t = |p: f64| RegressionTest {
            p50_ratio: 2.0,
            p95_ratio: 2.0,
            p_value: p,
            regression: true,
            note: None,
            ratio: Some(2.0),
            ratio_ci: Some([1.5, 2.5]),
            p_adjusted: None,
            samples: Some([100, 100]),
        };
        let mut tests = [t(0.001), t(0.004), t(0.003), t(0.5)];
        holm(tests.iter_mut(), 0.01);
        let adj: Vec<f64> = tests.iter().map(|x| x.p_adjusted.unwrap()).collect();
        // Sorted: 0.001×4 = 0.004, 0.003×3 = 0.009, 0.004×2 = 0.008 → 0.009 (monotone), 0.5×1.
        assert!((adj[0] - 0.004).abs() < 1e-12, "{adj:?}");
        assert!((adj[2] - 0.009).abs() < 1e-12, "{adj:?}");
        assert!((adj[1] - 0.009).abs() < 1e-12, "{adj:?}");
        assert!((adj[3] - 0.5).abs() < 1e-12, "{adj:?}");
        let verdicts: Vec<bool> = tests.iter().map(|x| x.regression).collect();
        assert_eq!(verdicts, vec![true, true, true, false]);
        // Ten tests at p = 0.002: each significant alone, none after the correction.
        let mut many: Vec<RegressionTest> = (0..10).map(|_| t(0.002)).collect();
        holm(many.iter_mut(), 0.01);
        assert!(many.iter().all(|x| !x.regression));
    }

    #[test]
    fn hodges_lehmann_finds_a_known_shift() {
        let x: Vec<f64> = (0..200).map(|i| (i % 37) as f64).collect();
        let y: Vec<f64> = x.iter().map(|v| v + 5.0).collect();
        let (est, ci) = hodges_lehmann(&x, &y, 0.01).unwrap();
        assert!((est - 5.0).abs() < 1e-9, "{est}");
        assert!(
            ci[0] <= 5.0 && ci[1] >= 5.0 && ci[1] - ci[0] < 10.0,
            "{ci:?}"
        );
        assert!((normal_quantile(0.99) - 2.3263).abs() < 1e-3);
    }
}
