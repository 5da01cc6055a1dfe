//! `cutover merge`: combines the JSON results of replays run on several machines (`--shard K/N`) into
//! one report. Histograms and samples are merged, never percentiles averaged, and the latency tests
//! are run again on the merged samples.

use super::stats::{Latency, SerializedLatency, holm, regression};
use super::*;

fn lat(s: &SerializedLatency, what: &str) -> Result<Latency, String> {
    if s.histogram.is_empty() {
        return Ok(Latency::default());
    }
    Latency::decode(s).map_err(|e| format!("{what}: {e}"))
}

fn merge_lat(a: &SerializedLatency, b: &SerializedLatency, what: &str) -> Result<Latency, String> {
    let mut x = lat(a, what)?;
    x.merge(&lat(b, what)?);
    Ok(x)
}

/// The order gate's counts add up; a shard replayed with `--free-order` has none.
fn add_order_gate(a: &mut SideReport, b: &SideReport) {
    fn add<T: std::ops::Add<Output = T> + Copy>(x: Option<T>, y: Option<T>) -> Option<T> {
        match (x, y) {
            (Some(x), Some(y)) => Some(x + y),
            (x, y) => x.or(y),
        }
    }
    a.order_wait_timeouts = add(a.order_wait_timeouts, b.order_wait_timeouts);
    a.order_lock_cycles = add(a.order_lock_cycles, b.order_lock_cycles);
    a.order_waits = add(a.order_waits, b.order_waits);
    a.order_wait_s = add(a.order_wait_s, b.order_wait_s);
    a.order_held_past_grace = add(a.order_held_past_grace, b.order_held_past_grace);
    a.order_moved = add(a.order_moved, b.order_moved);
}

fn merge_side(a: &mut SideReport, b: &SideReport) -> Result<(), String> {
    a.statements += b.statements;
    a.errors += b.errors;
    a.commits += b.commits;
    a.transactions += b.transactions;
    a.reconnects += b.reconnects;
    a.infrastructure_errors += b.infrastructure_errors;
    add_order_gate(a, b);
    // Each shard looked at the same server when it started: the most it found.
    if b.unanalyzed.as_ref().map(|u| u.blind()) > a.unanalyzed.as_ref().map(|u| u.blind()) {
        a.unanalyzed = b.unanalyzed.clone();
    }
    if a.first_infrastructure_error.is_none() {
        a.first_infrastructure_error = b.first_infrastructure_error.clone();
    }
    for (k, v) in &b.skipped {
        *a.skipped.entry(*k).or_default() += v;
    }
    // The merged run lasted as long as the union of the shards' spans (they may run at the same
    // time, one after another, or overlap); reports without spans: as long as the longest.
    if !a.spans_unix_s.is_empty() && !b.spans_unix_s.is_empty() {
        a.spans_unix_s.extend(b.spans_unix_s.iter().copied());
        a.elapsed_s = union_s(&a.spans_unix_s);
    } else {
        a.elapsed_s = a.elapsed_s.max(b.elapsed_s);
        a.spans_unix_s.clear();
    }
    let x = merge_lat(
        &a.transaction_latency_hist,
        &b.transaction_latency_hist,
        "transaction latency histogram",
    )?;
    a.transaction_latency_ms = x.summary();
    a.transaction_latency_hist = x.encode();
    let l = merge_lat(&a.latency_hist, &b.latency_hist, "latency histogram")?;
    a.latency_ms = l.summary();
    a.latency_hist = l.encode();
    let g = merge_lat(&a.lag_hist, &b.lag_hist, "lag histogram")?;
    a.start_lag_ms = g.summary();
    a.lag_hist = g.encode();
    if let Some(bh) = &b.behind_hist {
        let x = match &a.behind_hist {
            Some(ah) => merge_lat(ah, bh, "behind-schedule histogram")?,
            None => lat(bh, "behind-schedule histogram")?,
        };
        a.behind_ms = Some(super::summary::less_the_added_microsecond(x.summary()));
        a.behind_hist = Some(x.encode());
    }
    let per_s = |n: u64| {
        if a.elapsed_s > 0.0 {
            n as f64 / a.elapsed_s
        } else {
            0.0
        }
    };
    a.qps = per_s(a.statements);
    a.tps = per_s(a.transactions);
    (a.recorded_qps, a.pace) = merged_pace(a, b);
    a.error_rate = if a.statements > 0 {
        a.errors as f64 / a.statements as f64
    } else {
        0.0
    };
    for (i, s) in b.timeline.iter().enumerate() {
        if a.timeline.len() <= i {
            a.timeline.push(TimeSlice {
                t_s: s.t_s,
                ..Default::default()
            });
        }
        let t = &mut a.timeline[i];
        t.statements += s.statements;
        t.errors += s.errors;
        t.commits += s.commits;
        t.qps = t.statements as f64 / 10.0;
        t.recorded += s.recorded;
        t.recorded_qps = t.recorded as f64 / 10.0;
        if let Some(h) = &s.latency_hist {
            let merged = merge_lat(
                t.latency_hist
                    .as_ref()
                    .unwrap_or(&SerializedLatency::default()),
                h,
                "timeline histogram",
            )?;
            t.p99_ms = merged.summary().p99;
            t.latency_ms = Some(merged.summary());
            t.latency_hist = Some(merged.encode());
        }
    }
    Ok(())
}

/// The scheduled rate and the pace of two shards together. Shards run side by side on disjoint
/// sessions: their scheduled rates add up, and so do the rates they started statements at (a
/// shard's pace times its scheduled rate; the pace is over the span of the starts, which a merged
/// report does not keep).
fn merged_pace(a: &SideReport, b: &SideReport) -> (Option<f64>, Option<f64>) {
    let add = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => Some(x + y),
        (x, y) => x.or(y),
    };
    let started = |s: &SideReport| s.pace.zip(s.recorded_qps).map(|(p, r)| p * r);
    let recorded = add(a.recorded_qps, b.recorded_qps);
    let pace = recorded
        .filter(|r| *r > 0.0)
        .zip(add(started(a), started(b)))
        .map(|(r, s)| s / r);
    (recorded, pace)
}

/// The length of the union of time spans, in seconds.
pub(super) fn union_s(spans: &[[f64; 2]]) -> f64 {
    let mut v: Vec<[f64; 2]> = spans.to_vec();
    v.sort_by(|a, b| a[0].total_cmp(&b[0]));
    let mut total = 0.0;
    let mut cur: Option<[f64; 2]> = None;
    for s in v {
        match &mut cur {
            Some(c) if s[0] <= c[1] => c[1] = c[1].max(s[1]),
            _ => {
                if let Some(c) = cur {
                    total += c[1] - c[0];
                }
                cur = Some(s);
            }
        }
    }
    if let Some(c) = cur {
        total += c[1] - c[0];
    }
    total
}

fn merge_txn_side(a: &mut TransactionSide, b: &TransactionSide) -> Result<(), String> {
    a.count += b.count;
    a.rollbacks += b.rollbacks;
    a.errors += b.errors;
    let l = merge_lat(
        &a.latency_hist,
        &b.latency_hist,
        "transaction class histogram",
    )?;
    a.latency_ms = l.summary();
    a.latency_hist = l.encode();
    Ok(())
}

/// Merges shard reports into one.
pub fn merge(reports: Vec<ReplayReport>) -> Result<ReplayReport, String> {
    check_shards(&reports)?;
    let mut it = reports.into_iter();
    let Some(mut out) = it.next() else {
        return Err("nothing to merge".into());
    };
    for r in it {
        if r.mode != out.mode {
            return Err(format!(
                "cannot merge a {} replay with a {} replay",
                r.mode.name(),
                out.mode.name()
            ));
        }
        // One capture shared by the shards: each input once.
        for i in r.header.inputs {
            if !out.header.inputs.iter().any(|o| o.path == i.path) {
                out.header.inputs.push(i);
            }
        }
        out.header.started = out.header.started.clone().min(r.header.started);
        out.header.finished = out.header.finished.clone().max(r.header.finished);
        out.interrupted |= r.interrupted;
        for why in &r.incomplete {
            out.incomplete.push(format!(
                "shard {}: {why}",
                r.shard.as_deref().unwrap_or("?")
            ));
        }
        out.sessions += r.sessions;
        for (name, s) in &r.sides {
            match out.sides.get_mut(name) {
                Some(a) => merge_side(a, s)?,
                None => {
                    out.sides.insert(name.clone(), s.clone());
                }
            }
        }
        out.compared += r.compared;
        out.mismatches += r.mismatches;
        out.not_comparable += r.not_comparable;
        out.both_failed += r.both_failed;
        out.not_run += r.not_run;
        out.rewritten += r.rewritten;
        out.not_rewritable.extend(r.not_rewritable);
        out.input_notes.extend(r.input_notes);
        out.client = match (out.client.take(), &r.client) {
            (Some(mut a), Some(b)) => {
                a.merge(b);
                Some(a)
            }
            // A shard without the figures (a result from before they were measured): no total.
            _ => None,
        };
        for f in r.fingerprints {
            match out.fingerprints.iter_mut().find(|x| x.id == f.id) {
                None => out.fingerprints.push(f),
                Some(x) => {
                    x.count += f.count;
                    x.compared += f.compared;
                    x.mismatches += f.mismatches;
                    x.not_comparable += f.not_comparable;
                    x.rewritten += f.rewritten;
                    x.not_rewritable += f.not_rewritable;
                    let side = |a: &mut FingerprintSide,
                                b: &FingerprintSide|
                     -> Result<(), String> {
                        a.statements += b.statements;
                        a.errors += b.errors;
                        let l =
                            merge_lat(&a.latency_hist, &b.latency_hist, "fingerprint histogram")?;
                        a.latency_ms = l.summary();
                        a.latency_hist = l.encode();
                        if a.first_error.is_none() {
                            a.first_error = b.first_error.clone();
                        }
                        Ok(())
                    };
                    side(&mut x.source, &f.source)?;
                    if let (Some(a), Some(b)) = (x.target.as_mut(), f.target.as_ref()) {
                        side(a, b)?;
                    }
                }
            }
        }
        for c in r.transactions {
            match out.transactions.iter_mut().find(|x| x.class == c.class) {
                None => out.transactions.push(c),
                Some(x) => {
                    x.count += c.count;
                    merge_txn_side(&mut x.source, &c.source)?;
                    if let (Some(a), Some(b)) = (x.target.as_mut(), c.target.as_ref()) {
                        merge_txn_side(a, b)?;
                    }
                }
            }
        }
        for e in r.target_errors {
            match out
                .target_errors
                .iter_mut()
                .find(|x| x.id == e.id && x.code == e.code)
            {
                None => out.target_errors.push(e),
                Some(x) => {
                    x.count += e.count;
                    x.later_mismatches += e.later_mismatches;
                    x.later_skipped += e.later_skipped;
                    for f in e.later_fingerprints {
                        if !x.later_fingerprints.contains(&f) {
                            x.later_fingerprints.push(f);
                        }
                    }
                }
            }
        }
        for g in r.mismatch_groups {
            match out
                .mismatch_groups
                .iter_mut()
                .find(|x| x.id == g.id && x.category == g.category && x.caused_by == g.caused_by)
            {
                None => out.mismatch_groups.push(g),
                Some(x) => {
                    x.count += g.count;
                    let room = 3usize.saturating_sub(x.examples.len());
                    x.examples.extend(g.examples.into_iter().take(room));
                }
            }
        }
    }
    out.not_rewritable.sort();
    out.not_rewritable.dedup();
    out.shard = Some("merged".into());
    // The latency tests again, on the merged samples.
    out.regressions.clear();
    let rule = out.regression_rule;
    for f in &mut out.fingerprints {
        let Some(t) = &f.target else { continue };
        let (s, t) = (
            lat(&f.source.latency_hist, "histogram")?,
            lat(&t.latency_hist, "histogram")?,
        );
        let test = regression(&s, &t, &rule);
        f.latency_test = Some(test);
    }
    holm(
        out.fingerprints
            .iter_mut()
            .filter_map(|f| f.latency_test.as_mut()),
        rule.alpha,
    );
    out.regressions = out
        .fingerprints
        .iter()
        .filter_map(super::summary::regression_of)
        .collect();
    // Transaction classes: rates over the merged sides' time, tests on the merged samples.
    let elapsed = |side: &str| out.sides.get(side).map_or(0.0, |x| x.elapsed_s);
    let (es, et) = (elapsed("source"), elapsed("target"));
    let rate = |x: &mut TransactionSide, e: f64| {
        x.tps = if e > 0.0 { x.count as f64 / e } else { 0.0 };
        x.tpm = x.tps * 60.0;
    };
    for c in &mut out.transactions {
        rate(&mut c.source, es);
        if let Some(t) = c.target.as_mut() {
            rate(t, et);
            let s = lat(&c.source.latency_hist, "histogram")?;
            let tl = lat(&t.latency_hist, "histogram")?;
            c.latency_test = Some(regression(&s, &tl, &rule));
        }
    }
    holm(
        out.transactions
            .iter_mut()
            .filter_map(|c| c.latency_test.as_mut()),
        rule.alpha,
    );
    out.transactions
        .sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
    out.target_errors
        .sort_by_key(|e| std::cmp::Reverse(e.count));
    out.mismatch_groups
        .sort_by_key(|g| std::cmp::Reverse(g.count));
    Ok(out)
}

/// Refuses what would count statements twice or mix captures: one result given twice (the same
/// run: its shard and start), two results of the same shard, shards of different splits (K/N with
/// different N), and shards whose captures differ (the inputs' content hashes, where both have them).
fn check_shards(reports: &[ReplayReport]) -> Result<(), String> {
    let shard_of = |r: &ReplayReport| -> Option<(u32, u32)> {
        let (k, n) = r.shard.as_deref()?.split_once('/')?;
        Some((k.parse().ok()?, n.parse().ok()?))
    };
    let hashes = |r: &ReplayReport| -> Option<Vec<String>> {
        let mut h: Vec<String> = r
            .header
            .inputs
            .iter()
            .map(|i| i.xxh3.clone())
            .collect::<Option<_>>()?;
        h.sort();
        Some(h)
    };
    let name = |i: usize, r: &ReplayReport| {
        format!(
            "result {} (shard {}, started {})",
            i + 1,
            r.shard.as_deref().unwrap_or("none"),
            r.header.started
        )
    };
    for (i, a) in reports.iter().enumerate() {
        for (j, b) in reports.iter().enumerate().skip(i + 1) {
            if a.shard == b.shard && a.header.started == b.header.started {
                return Err(format!(
                    "{} and result {} are the same run: give each result once",
                    name(i, a),
                    j + 1
                ));
            }
            let (Some((ka, na)), Some((kb, nb))) = (shard_of(a), shard_of(b)) else {
                continue;
            };
            if na != nb {
                return Err(format!(
                    "{} and {} split the capture differently ({na} and {nb} shards): merge the shards of one split",
                    name(i, a),
                    name(j, b)
                ));
            }
            if ka == kb {
                return Err(format!(
                    "{} and {} replayed the same shard: its statements would count twice; give each shard's result once",
                    name(i, a),
                    name(j, b)
                ));
            }
            if let (Some(ha), Some(hb)) = (hashes(a), hashes(b))
                && ha != hb
            {
                return Err(format!(
                    "{} and {} replayed different captures (their inputs' xxh3 differ): merge the shards of one capture",
                    name(i, a),
                    name(j, b)
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_gates_counts_add_up_across_shards() {
        let gate = |waits: Option<u64>, s: Option<f64>| SideReport {
            order_waits: waits,
            order_wait_s: s,
            order_wait_timeouts: waits.map(|_| 1),
            order_lock_cycles: waits.map(|_| 2),
            order_held_past_grace: waits.map(|_| 3),
            order_moved: waits.map(|_| 4),
            ..SideReport::default()
        };
        let mut a = gate(Some(10), Some(1.5));
        add_order_gate(&mut a, &gate(Some(5), Some(0.5)));
        assert_eq!(
            (
                a.order_waits,
                a.order_wait_s,
                a.order_wait_timeouts,
                a.order_lock_cycles,
                a.order_held_past_grace,
                a.order_moved
            ),
            (Some(15), Some(2.0), Some(2), Some(4), Some(6), Some(8))
        );
        // A --free-order shard has no gate: the other's counts stand.
        let mut free = gate(None, None);
        add_order_gate(&mut free, &a);
        assert_eq!((free.order_waits, free.order_wait_s), (Some(15), Some(2.0)));
        add_order_gate(&mut free, &gate(None, None));
        assert_eq!(free.order_waits, Some(15));
    }

    #[test]
    fn shards_paces_weigh_by_their_scheduled_rates() {
        let shard = |recorded: Option<f64>, pace: Option<f64>| SideReport {
            recorded_qps: recorded,
            pace,
            ..SideReport::default()
        };
        // 300 of 300 scheduled and 50 of 100: 350 of 400.
        let (r, p) = merged_pace(
            &shard(Some(300.0), Some(1.0)),
            &shard(Some(100.0), Some(0.5)),
        );
        assert_eq!((r, p), (Some(400.0), Some(0.875)));
        // At --max-speed nothing was scheduled.
        assert_eq!(
            merged_pace(&shard(None, None), &shard(None, None)),
            (None, None)
        );
    }
}
