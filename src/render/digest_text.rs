//! The digest as text, laid out like pt-query-digest's report so DBAs find their way around it.

use super::{Render, RenderOptions, bytes, duration, md_cell, md_code, thousands};
use crate::digest::{Digest, FingerprintStats};
use crate::workload::diag::Note;
use std::io::{self, Write};

impl Render for Digest {
    fn header(&self) -> &crate::workload::Header {
        &self.header
    }

    /// pt-query-digest's layout; `limit` caps the fingerprints shown (20).
    fn text(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        write(out, self, opts.limit.unwrap_or(20))
    }

    fn markdown(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        markdown(out, self, opts.limit.unwrap_or(20))
    }

    /// Every field; `limit`, when given, keeps the first fingerprints.
    fn json(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        match opts.limit {
            Some(l) if l < self.fingerprints.len() => {
                let mut d = self.clone();
                d.fingerprints.truncate(l);
                super::write_json(out, &d)
            }
            _ => super::write_json(out, self),
        }
    }
}

fn markdown(out: &mut dyn Write, d: &Digest, limit: usize) -> io::Result<()> {
    writeln!(out, "# cutover digest\n")?;
    for i in &d.logs {
        writeln!(
            out,
            "- {} ({} log): {} events",
            md_code(&i.path),
            i.log_type.name(),
            thousands(i.events)
        )?;
    }
    writeln!(
        out,
        "- {} events ({} statements), {} fingerprints, {} sessions",
        thousands(d.events),
        thousands(d.statements),
        thousands(d.fingerprints.len() as u64),
        thousands(d.sessions)
    )?;
    if let Some(t) = &d.time {
        writeln!(
            out,
            "- time: {} .. {} ({}), timed to the {}",
            t.first,
            t.last,
            duration(t.seconds),
            d.time_precision.name()
        )?;
    }
    if let Some(avg) = d.qps.average {
        writeln!(
            out,
            "- QPS: average {avg:.1}, peak {} in one second",
            thousands(d.qps.peak)
        )?;
    }
    if !d.diagnostics.counts.is_empty() {
        writeln!(
            out,
            "- skipped: {} lines; {} notes",
            thousands(d.diagnostics.skipped_lines),
            thousands(d.diagnostics.counts.values().sum())
        )?;
    }
    writeln!(
        out,
        "\n| rank | id | calls | total time | share | avg | p95 | fingerprint |\n|---:|---|---:|---:|---:|---:|---:|---|"
    )?;
    for f in d.fingerprints.iter().take(limit) {
        let (total, share, avg, p95) = match &f.query_time {
            Some(t) => (
                duration(t.total_s),
                format!("{:.1}%", t.share * 100.0),
                duration(t.avg_s),
                duration(t.p95_s),
            ),
            None => ("-".into(), "-".into(), "-".into(), "-".into()),
        };
        writeln!(
            out,
            "| {} | {} | {} | {total} | {share} | {avg} | {p95} | {} |",
            f.rank,
            f.id,
            thousands(f.count),
            md_code(&one_line(&f.fingerprint, 120))
        )?;
    }
    if d.fingerprints.len() > limit {
        writeln!(
            out,
            "\n{} more fingerprints are in the JSON report.",
            md_cell(&thousands((d.fingerprints.len() - limit) as u64))
        )?;
    }
    Ok(())
}

/// Writes the report; `limit` caps the fingerprints shown.
fn write(out: &mut dyn Write, d: &Digest, limit: usize) -> io::Result<()> {
    writeln!(
        out,
        "# {} {} digest",
        d.header.tool.name, d.header.tool.version
    )?;
    writeln!(out, "#")?;
    writeln!(out, "# Inputs")?;
    for i in &d.logs {
        let size = match (i.bytes, i.compressed) {
            (Some(b), true) => format!("{} gzip, {} of text", bytes(b), bytes(i.text_bytes)),
            (Some(b), false) => bytes(b),
            (None, _) => format!("{} of text", bytes(i.text_bytes)),
        };
        writeln!(
            out,
            "#   {}  {} log, {}, {} events",
            i.path,
            i.log_type.name(),
            size,
            thousands(i.events)
        )?;
    }
    writeln!(out, "#")?;
    writeln!(
        out,
        "# Overall: {} events ({} statements), {} fingerprints, {} sessions",
        thousands(d.events),
        thousands(d.statements),
        thousands(d.fingerprints.len() as u64),
        thousands(d.sessions)
    )?;
    if !d.commands.is_empty() {
        let parts: Vec<String> = d
            .commands
            .iter()
            .map(|(c, n)| format!("{c} {}", thousands(*n)))
            .collect();
        writeln!(out, "# Commands: {}", parts.join(", "))?;
    }
    match &d.time {
        Some(t) => writeln!(
            out,
            "# Time: {} .. {} ({}), timed to the {}",
            t.first,
            t.last,
            duration(t.seconds),
            d.time_precision.name()
        )?,
        None => writeln!(out, "# Time: the log gives no times")?,
    }
    if let Some(avg) = d.qps.average {
        writeln!(
            out,
            "# QPS: average {:.1}, peak {} in one second at {}",
            avg,
            thousands(d.qps.peak),
            d.qps.peak_at.as_deref().unwrap_or("-")
        )?;
    }
    let c = &d.concurrency;
    let mut conc = Vec::new();
    if let (Some(p), Some(at)) = (c.peak_in_flight, &c.peak_at) {
        conc.push(format!("peak {p} statements in flight at {at}"));
    }
    if let Some(a) = c.average_in_flight {
        conc.push(format!("average {a:.2} in flight"));
    }
    if let (Some(a), Some(at)) = (c.peak_second_average_in_flight, &c.peak_second_at) {
        conc.push(format!("{a:.2} on average in the busiest second ({at})"));
    }
    if c.peak_active_sessions_per_second > 0 {
        conc.push(format!(
            "up to {} sessions active in one second",
            c.peak_active_sessions_per_second
        ));
    }
    if !conc.is_empty() {
        writeln!(out, "# Concurrency: {}", conc.join("; "))?;
    }
    if let Some(n) = &c.note {
        writeln!(out, "#   ({n})")?;
    }
    if d.diagnostics.counts.is_empty() {
        writeln!(out, "# Skipped: nothing")?;
    } else {
        writeln!(
            out,
            "# Skipped: {} lines; notes:",
            thousands(d.diagnostics.skipped_lines)
        )?;
        for (issue, n) in &d.diagnostics.counts {
            writeln!(out, "#   {} × {}", thousands(*n), issue.describe())?;
        }
        for e in &d.diagnostics.examples {
            let note = Note {
                issue: e.issue,
                file: e.file.clone(),
                line: e.line,
                lines: e.lines,
                detail: e.detail.clone(),
            };
            writeln!(out, "#     {}", note.describe())?;
        }
    }

    let shown: Vec<&FingerprintStats> = d.fingerprints.iter().take(limit).collect();
    writeln!(out, "#")?;
    writeln!(out, "# Profile")?;
    writeln!(
        out,
        "# Rank Query ID          Response time      Calls   R/Call      p95  Fingerprint"
    )?;
    writeln!(
        out,
        "# ==== ================ ============== ========== ======== ========  ==========="
    )?;
    for f in &shown {
        let (resp, rcall, p95) = match &f.query_time {
            Some(t) => (
                format!("{:>8} {:>4.1}%", duration(t.total_s), t.share * 100.0),
                duration(t.avg_s),
                duration(t.p95_s),
            ),
            None => ("-".to_string(), "-".to_string(), "-".to_string()),
        };
        writeln!(
            out,
            "# {:>4} {} {:>14} {:>10} {:>8} {:>8}  {}",
            f.rank,
            f.id,
            resp,
            thousands(f.count),
            rcall,
            p95,
            one_line(&f.fingerprint, 70)
        )?;
    }
    if d.fingerprints.len() > shown.len() {
        let rest = &d.fingerprints[shown.len()..];
        let calls: u64 = rest.iter().map(|f| f.count).sum();
        writeln!(
            out,
            "# MISC ({} more fingerprints, {} calls; --limit shows more)",
            thousands(rest.len() as u64),
            thousands(calls)
        )?;
    }

    for f in &shown {
        writeln!(out)?;
        write_class(out, f)?;
    }

    if !d.qps.series.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "# Statements over time ({} s buckets, statements per second)",
            d.qps.interval_s
        )?;
        let max = d.qps.series.iter().map(|p| p.qps).fold(0.0, f64::max);
        for p in &d.qps.series {
            let bar = if max > 0.0 {
                ((p.qps / max) * 40.0).round() as usize
            } else {
                0
            };
            writeln!(out, "#   {}  {:>10.1}  {}", p.start, p.qps, "#".repeat(bar))?;
        }
    }
    Ok(())
}

fn write_class(out: &mut dyn Write, f: &FingerprintStats) -> io::Result<()> {
    writeln!(out, "# Query {}: {}", f.rank, f.id)?;
    let time_part = f
        .query_time
        .as_ref()
        .map(|t| {
            format!(
                ", query time {} ({:.1}%)",
                duration(t.total_s),
                t.share * 100.0
            )
        })
        .unwrap_or_default();
    writeln!(
        out,
        "#   count      {} ({:.1}% of events){}",
        thousands(f.count),
        f.share * 100.0,
        time_part
    )?;
    if let Some(t) = &f.query_time {
        writeln!(
            out,
            "#   time       min {}  avg {}  p50 {}  p95 {}  p99 {}  max {}",
            duration(t.min_s),
            duration(t.avg_s),
            duration(t.p50_s),
            duration(t.p95_s),
            duration(t.p99_s),
            duration(t.max_s)
        )?;
    }
    if let Some(l) = f.lock_time_total_s {
        writeln!(out, "#   lock time  total {}", duration(l))?;
    }
    let mut rows = Vec::new();
    for (name, r) in [
        ("sent", &f.rows_sent),
        ("examined", &f.rows_examined),
        ("affected", &f.rows_affected),
    ] {
        if let Some(r) = r {
            rows.push(format!(
                "{name} total {} avg {:.1} max {}",
                r.total, r.avg, r.max
            ));
        }
    }
    if !rows.is_empty() {
        writeln!(out, "#   rows       {}", rows.join(" | "))?;
    }
    if f.errors > 0 {
        writeln!(out, "#   errors     {}", thousands(f.errors))?;
    }
    if let (Some(a), Some(b)) = (&f.first_seen, &f.last_seen) {
        writeln!(out, "#   seen       {a} .. {b}")?;
    }
    if !f.databases.is_empty() {
        let more = if f.more_databases > 0 {
            format!(" and {} more", f.more_databases)
        } else {
            String::new()
        };
        writeln!(out, "#   databases  {}{more}", f.databases.join(", "))?;
    }
    writeln!(
        out,
        "#   fingerprint{}",
        if f.fingerprint_truncated {
            " (truncated)"
        } else {
            ""
        }
    )?;
    writeln!(out, "#     {}", f.fingerprint)?;
    if let Some(s) = &f.sample {
        let when = s.start.as_deref().unwrap_or("time unknown");
        let qt = s
            .query_time_s
            .map(|q| format!(", {}", duration(q)))
            .unwrap_or_default();
        writeln!(
            out,
            "#   sample     session {}, {when}{qt}, {}:{}",
            s.session, s.file, s.line
        )?;
        write!(out, "{}", s.sql)?;
        if s.truncated {
            write!(out, " /* … {} of {} bytes shown */", s.sql.len(), s.bytes)?;
        }
        writeln!(out, "\\G")?;
    }
    Ok(())
}

/// The first `max` characters of `s` on one line.
fn one_line(s: &str, max: usize) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(max)
        .collect();
    if s.chars().count() > max {
        out.push('…');
    }
    out
}
