//! The replay report for people: a sysbench-like summary per side, then mismatches and regressions.

use super::{Render, RenderOptions, md_cell, md_code};
use crate::replay::{ClientCpu, ReplayReport, SideReport};
use std::io::{self, Write};

fn side(
    out: &mut dyn Write,
    name: &str,
    s: &SideReport,
    sessions: u64,
    client: Option<&ClientCpu>,
) -> io::Result<()> {
    writeln!(out, "{name}: {}", s.endpoint)?;
    writeln!(
        out,
        "    statements:  {:>12}   ({:.2} per sec.)",
        s.statements, s.qps
    )?;
    writeln!(
        out,
        "    transactions:{:>12}   ({:.2} per sec.)   commits: {}",
        s.transactions, s.tps, s.commits
    )?;
    writeln!(
        out,
        "    errors:      {:>12}   ({:.3}%)",
        s.errors,
        s.error_rate * 100.0
    )?;
    writeln!(out, "    reconnects:  {:>12}", s.reconnects)?;
    if s.infrastructure_errors > 0 {
        writeln!(
            out,
            "    did not run: {:>12}  (client or infrastructure failures, not SQL errors)",
            s.infrastructure_errors
        )?;
    }
    writeln!(out, "    time:        {:>12.3}s", s.elapsed_s)?;
    let l = &s.latency_ms;
    writeln!(
        out,
        "    latency (ms):   avg {:.3}   p50 {:.3}   p95 {:.3}   p99 {:.3}   max {:.3}",
        l.avg, l.p50, l.p95, l.p99, l.max
    )?;
    let t = &s.transaction_latency_ms;
    if t.count > 0 {
        writeln!(
            out,
            "    transaction latency (ms): avg {:.3}   p95 {:.3}   max {:.3}",
            t.avg, t.p95, t.max
        )?;
    }
    let g = &s.start_lag_ms;
    writeln!(
        out,
        "    start lag (ms): p50 {:.3}   p99 {:.3}   max {:.3}",
        g.p50, g.p99, g.max
    )?;
    if let Some(b) = &s.behind_ms {
        writeln!(
            out,
            "    behind the recorded time (ms): p50 {:.3}   p99 {:.3}   max {:.3}",
            b.p50, b.p99, b.max
        )?;
    }
    if let Some(n) = s.order_waits {
        writeln!(
            out,
            "    order waits: {n:>12}   ({:.3}s in all; lock cycles {}, 2 s timeouts {}; held past the lock grace {}; moved after a later end {})",
            s.order_wait_s.unwrap_or(0.0),
            s.order_lock_cycles.unwrap_or(0),
            s.order_wait_timeouts.unwrap_or(0),
            s.order_held_past_grace.unwrap_or(0),
            s.order_moved.unwrap_or(0)
        )?;
    }
    if let Some(u) = s.unanalyzed.as_ref().filter(|u| u.tables > 0) {
        writeln!(
            out,
            "    statistics:  {} with rows never analyzed ({}): the planner planned them blind, and these latencies describe that; ANALYZE them (as after any bulk load) and replay again",
            tables(u.tables),
            u.named()
        )?;
    }
    if let Some(u) = s.unanalyzed.as_ref().filter(|u| u.stale > 0) {
        writeln!(
            out,
            "    statistics:  {} changed by more rows since their last ANALYZE than they held then ({}): the planner's statistics describe the smaller tables they were, and these latencies describe that; ANALYZE them and replay again",
            tables(u.stale),
            u.stale_named()
        )?;
    }
    if let (Some(rec), Some(pace)) = (s.recorded_qps, s.pace) {
        let missed = pace < 0.9;
        writeln!(
            out,
            "    pace:        {:.0} statements started per second of the recorded {rec:.0} ({:.0}%){}",
            pace * rec,
            pace * 100.0,
            if missed {
                ": the replay did not hold the recorded load; its latencies describe a lighter one"
            } else {
                ""
            }
        )?;
        // Where the pace was missed, what may have held it back.
        if missed {
            if let Some(share) = s.order_wait_notable(sessions) {
                writeln!(
                    out,
                    "                 the sessions waited {:.0}% of their time for the captured order of conflicting writes (--free-order drops it; results may then differ)",
                    share * 100.0
                )?;
            }
            if let Some(why) = client.and_then(ClientCpu::out_of_cpu) {
                writeln!(out, "                 {why}: {}", ClientCpu::ADVICE)?;
            }
        }
    }
    if !s.skipped.is_empty() {
        writeln!(out, "    not sent:")?;
        for (why, n) in &s.skipped {
            writeln!(out, "        {n:>10}  {}", why.message())?;
        }
    }
    Ok(())
}

impl Render for ReplayReport {
    fn header(&self) -> &crate::workload::Header {
        &self.header
    }

    fn incomplete(&self) -> Vec<String> {
        self.incomplete.clone()
    }

    fn text(&self, out: &mut dyn Write, _opts: &RenderOptions) -> io::Result<()> {
        write_text(out, self)
    }

    fn markdown(&self, out: &mut dyn Write, _opts: &RenderOptions) -> io::Result<()> {
        write_markdown(out, self)
    }
}

fn input_paths(r: &ReplayReport) -> String {
    r.header
        .inputs
        .iter()
        .map(|i| i.path.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn write_markdown(out: &mut dyn Write, r: &ReplayReport) -> io::Result<()> {
    writeln!(
        out,
        "# cutover replay\n\n- inputs: {}\n- {}, {} mode, {} sessions{}",
        md_code(&input_paths(r)),
        r.pace.name(),
        r.mode.name(),
        r.sessions,
        if r.interrupted {
            "\n- **interrupted**: the figures cover what ran before the stop"
        } else {
            ""
        }
    )?;
    writeln!(
        out,
        "\n| side | endpoint | statements | errors | QPS | TPS | avg ms | p95 ms | p99 ms |\n|---|---|---:|---:|---:|---:|---:|---:|---:|"
    )?;
    for (name, s) in &r.sides {
        writeln!(
            out,
            "| {name} | {} | {} | {} | {:.1} | {:.1} | {:.3} | {:.3} | {:.3} |",
            md_code(&s.endpoint),
            s.statements,
            s.errors,
            s.qps,
            s.tps,
            s.latency_ms.avg,
            s.latency_ms.p95,
            s.latency_ms.p99
        )?;
    }
    if let Some(c) = &r.client {
        writeln!(out, "\n- replay host: {}", host_line(c))?;
    }
    if r.sides.contains_key("target") {
        writeln!(
            out,
            "\n- compared: {}, mismatches: **{}**, not comparable: {}, failed on both: {}, concurrent races: {}\n- latency regressions: **{}**",
            r.compared,
            r.mismatches,
            r.not_comparable,
            r.both_failed,
            r.concurrent_races,
            r.regressions.len()
        )?;
    }
    super::replay_txn::markdown(out, r)?;
    if !r.mismatch_groups.is_empty() {
        writeln!(
            out,
            "\n## Mismatches\n\n| category | count | fingerprint | first reason | caused by |\n|---|---:|---|---|---|"
        )?;
        for g in &r.mismatch_groups {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                md_cell(&g.category),
                g.count,
                md_code(&g.fingerprint),
                md_cell(g.examples.first().map_or("", |e| e.reason.as_str())),
                g.caused_by
                    .as_deref()
                    .map(|c| format!("target error `{c}`"))
                    .unwrap_or_default()
            )?;
        }
    }
    if !r.regressions.is_empty() {
        writeln!(
            out,
            "\n## Latency regressions\n\n| fingerprint | runs | p50 ms source → target | p95 ms source → target | ratio [interval] | p (Holm) |\n|---|---:|---|---|---|---:|"
        )?;
        for x in &r.regressions {
            writeln!(
                out,
                "| {} | {} | {:.3} → {:.3} (×{:.2}) | {:.3} → {:.3} (×{:.2}) | {} | {:.1e} |",
                md_code(&x.fingerprint),
                x.count,
                x.source_p50_ms,
                x.target_p50_ms,
                x.p50_ratio,
                x.source_p95_ms,
                x.target_p95_ms,
                x.p95_ratio,
                ratio_text(x),
                x.p_adjusted.unwrap_or(x.p_value)
            )?;
        }
    }
    Ok(())
}

fn ratio_text(x: &crate::replay::Regression) -> String {
    match (x.ratio, x.ratio_ci) {
        (Some(r), Some([lo, hi])) => format!("×{r:.2} [{lo:.2}, {hi:.2}]"),
        _ => String::new(),
    }
}

/// cutover's own CPU and its host's over the replay, in one line.
fn host_line(c: &ClientCpu) -> String {
    let mut line = format!(
        "cutover used {:.2} cores ({:.1} µs of CPU per statement: user {:.2}s, system {:.2}s)",
        c.cores, c.us_per_statement, c.user_s, c.system_s
    );
    if let Some(t) = c.runtime_thread_busy {
        line.push_str(&format!("; its runtime thread busy {:.0}%", t * 100.0));
    }
    if let (Some(b), Some(n)) = (c.host_busy, c.host_cpus) {
        line.push_str(&format!("; the host's {n} CPUs busy {:.0}%", b * 100.0));
    }
    line
}

/// Writes the text report.
fn write_text(out: &mut dyn Write, r: &ReplayReport) -> io::Result<()> {
    writeln!(
        out,
        "cutover replay: {} ({}, {} mode){}",
        input_paths(r),
        r.pace.name(),
        r.mode.name(),
        r.shard
            .as_deref()
            .map(|s| format!(", shard {s}"))
            .unwrap_or_default()
    )?;
    if r.interrupted {
        writeln!(
            out,
            "INTERRUPTED: the figures cover what ran before the stop"
        )?;
    }
    for why in &r.incomplete {
        writeln!(out, "INCOMPLETE: {why}")?;
    }
    writeln!(out, "sessions: {}\n", r.sessions)?;
    for (name, s) in &r.sides {
        side(out, name, s, r.sessions, r.client.as_ref())?;
        writeln!(out)?;
    }
    if let Some(c) = &r.client {
        writeln!(out, "replay host: {}", host_line(c))?;
    }
    if r.sides.contains_key("target") {
        writeln!(
            out,
            "compared: {}   mismatches: {}   not comparable: {}   failed on both: {}   did not run: {}",
            r.compared, r.mismatches, r.not_comparable, r.both_failed, r.not_run
        )?;
        if r.concurrent_races > 0 {
            writeln!(
                out,
                "not comparable because sessions raced on the same tables (--mode all): {}",
                r.concurrent_races
            )?;
        }
        writeln!(
            out,
            "latency regressions: {} (a typical execution slower by more than {:.0}% with {:.0}% confidence (Hodges-Lehmann interval) and by {} ms or more, one-sided Mann-Whitney U p < {} after Holm's correction)",
            r.regressions.len(),
            r.regression_rule.threshold * 100.0,
            (1.0 - r.regression_rule.alpha) * 100.0,
            r.regression_rule.min_shift_ms,
            r.regression_rule.alpha
        )?;
        if r.rewritten > 0 || !r.not_rewritable.is_empty() {
            writeln!(
                out,
                "rewritten for the target: {} executions; fingerprints that could not be rewritten: {}",
                r.rewritten,
                r.not_rewritable.len()
            )?;
            for f in &r.not_rewritable {
                writeln!(out, "    {f}")?;
            }
        }
    }
    writeln!(out)?;
    super::replay_txn::text(out, r)?;
    for g in &r.mismatch_groups {
        writeln!(
            out,
            "\nMISMATCH {} ×{}  {}{}",
            g.category,
            g.count,
            g.fingerprint,
            g.caused_by
                .as_deref()
                .map(|c| format!("\n    caused by the target error of {c} (see TARGET ERROR)"))
                .unwrap_or_default()
        )?;
        for e in &g.examples {
            writeln!(out, "    session {} #{}: {}", e.session, e.seq, e.reason)?;
            writeln!(
                out,
                "    {}",
                e.sql.split_whitespace().collect::<Vec<_>>().join(" ")
            )?;
            for d in &e.diff {
                writeln!(out, "      {d}")?;
            }
        }
    }
    for x in &r.regressions {
        writeln!(
            out,
            "\nREGRESSION {}\n    p50 {:.3} → {:.3} ms (×{:.2}), p95 {:.3} → {:.3} ms (×{:.2}), {} executions, typical ratio {}, p = {:.2e} (Holm {:.2e})",
            x.fingerprint,
            x.source_p50_ms,
            x.target_p50_ms,
            x.p50_ratio,
            x.source_p95_ms,
            x.target_p95_ms,
            x.p95_ratio,
            x.count,
            ratio_text(x),
            x.p_value,
            x.p_adjusted.unwrap_or(x.p_value)
        )?;
    }
    for n in &r.input_notes {
        writeln!(out, "input: {n}")?;
    }
    Ok(())
}

/// "1 table", "3 tables".
fn tables(n: u64) -> String {
    format!("{n} table{}", if n == 1 { "" } else { "s" })
}
