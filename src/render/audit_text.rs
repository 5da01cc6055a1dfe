//! The audit report for people: plain text for a terminal, Markdown for a ticket or a wiki. Both come
//! from the same [`AuditReport`]; JSON is the report serialised as it is.

use super::{Render, RenderOptions, md_cell, md_code};
use crate::audit::{AuditReport, Finding, StatementAudit, Verdict};
use crate::profile::Severity;
use std::io::{self, Write};

fn sev(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Notice => "notice",
        Severity::Info => "info",
        Severity::Off => "off",
    }
}

fn verdict(v: Verdict) -> &'static str {
    match v {
        Verdict::Ok => "ok",
        Verdict::Warn => "warn",
        Verdict::Fail => "fail",
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// One line for a statement, shortened.
fn one_line(sql: &str, max: usize) -> String {
    // Word by word up to `max` characters: a dump's statement may be gigabytes.
    let mut out = String::new();
    let mut chars = 0;
    for w in sql.split_whitespace() {
        if chars > 0 {
            out.push(' ');
            chars += 1;
        }
        let n = w.chars().count();
        if chars + n > max {
            out.extend(w.chars().take(max.saturating_sub(chars)));
            out.push('…');
            return out;
        }
        out.push_str(w);
        chars += n;
    }
    out
}

/// Statements worth listing: fail first, then warn, by executions.
fn ranked(r: &AuditReport) -> Vec<&StatementAudit> {
    let mut v: Vec<&StatementAudit> = r
        .statements
        .iter()
        .filter(|s| s.verdict != Verdict::Ok)
        .collect();
    v.sort_by(|a, b| {
        b.verdict
            .cmp(&a.verdict)
            .then(b.count.cmp(&a.count))
            .then(a.ordinal.cmp(&b.ordinal))
    });
    v
}

fn finding_line(f: &Finding) -> String {
    let mut s = format!("{} {} {}", sev(f.severity), f.rule, f.title);
    if let Some(d) = &f.detail {
        s.push_str(&format!(" [{d}]"));
    }
    s
}

impl Render for AuditReport {
    fn header(&self) -> &crate::workload::Header {
        &self.header
    }

    /// `limit` caps the statements listed in detail (50).
    fn text(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        write_text(out, self, opts.limit.unwrap_or(50))
    }

    fn markdown(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        write_markdown(out, self, opts.limit.unwrap_or(50))
    }
}

/// What the unconfirmed statements of a live run (`--live` without `--live-setup`) mean.
fn unconfirmed_line(r: &AuditReport) -> Option<String> {
    let n = r.live.as_ref()?.unconfirmed;
    (n > 0).then(|| {
        format!(
            "{n} statements unconfirmed: the tables they name do not exist on the target; --live-setup would create them from the schema{}",
            if r.schema_source.is_none() {
                " (give one with --schema or --source)"
            } else {
                ""
            }
        )
    })
}

fn input_paths(r: &AuditReport) -> Vec<&str> {
    r.header.inputs.iter().map(|i| i.path.as_str()).collect()
}

/// Writes the plain-text report. `limit` caps the statements listed in detail.
fn write_text(out: &mut dyn Write, r: &AuditReport, limit: usize) -> io::Result<()> {
    let s = &r.summary;
    writeln!(out, "cutover audit: {} ({})", r.profile, r.target)?;
    writeln!(out, "inputs: {}", input_paths(r).join(", "))?;
    writeln!(
        out,
        "schema: {}",
        r.schema_source.as_deref().unwrap_or("none")
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "statements  {:>7}   ok {:>6}   warn {:>6}   fail {:>6}   checked on tokens only {}",
        s.statements, s.ok, s.warn, s.fail, s.not_parsed
    )?;
    writeln!(
        out,
        "ready       {} of executions{}",
        pct(s.ready_by_executions),
        s.ready_by_time
            .map(|t| format!(", {} of recorded time", pct(t)))
            .unwrap_or_default()
    )?;
    writeln!(
        out,
        "failing     {} of executions",
        pct(s.failing_by_executions)
    )?;
    if let Some(l) = &r.live {
        writeln!(
            out,
            "live        {} ({}): accepted {}, rejected {}, unconfirmed {}, not sent {}, verdicts changed {}, rewrites accepted {} / rejected {}",
            l.target,
            l.server_version
                .as_deref()
                .map(|v| one_line(v, 40))
                .unwrap_or_default(),
            l.accepted,
            l.rejected,
            l.unconfirmed,
            l.not_sent,
            l.verdict_changes,
            l.rewrites_accepted,
            l.rewrites_rejected
        )?;
        if let Some(u) = unconfirmed_line(r) {
            writeln!(out, "            {u}")?;
        }
        for e in &l.setup_errors {
            writeln!(out, "            setup: {e}")?;
        }
    }
    writeln!(out)?;
    if !s.by_category.is_empty() {
        writeln!(
            out,
            "findings by category      error  warning  notice   info"
        )?;
        for (cat, m) in &s.by_category {
            let g = |k: Severity| m.get(&k).copied().unwrap_or(0);
            writeln!(
                out,
                "  {:<22} {:>6} {:>8} {:>7} {:>6}",
                cat,
                g(Severity::Error),
                g(Severity::Warning),
                g(Severity::Notice),
                g(Severity::Info)
            )?;
        }
        writeln!(out)?;
    }
    for u in &r.unchecked {
        writeln!(out, "not checked: {u}")?;
    }
    for f in &r.schema_findings {
        writeln!(
            out,
            "schema: {} {}: {}",
            sev(f.severity),
            f.rule,
            f.detail.as_deref().unwrap_or(&f.title)
        )?;
    }
    for n in &r.input_notes {
        writeln!(out, "input: {n}")?;
    }
    let list = ranked(r);
    if !list.is_empty() {
        writeln!(out)?;
    }
    for st in list.iter().take(limit) {
        writeln!(
            out,
            "#{} {} ×{} {}:{}  {}",
            st.ordinal,
            verdict(st.verdict).to_uppercase(),
            st.count,
            st.origin.file,
            st.origin.line,
            one_line(&st.sql, 100)
        )?;
        for f in &st.findings {
            if f.severity == Severity::Info {
                continue;
            }
            writeln!(out, "    {}", finding_line(f))?;
            writeln!(out, "        {}", f.message)?;
            if let Some(rw) = &f.rewrite {
                writeln!(out, "        rewrite: {rw}")?;
            }
            if let Some(l) = &f.live {
                writeln!(out, "        live: {l}")?;
            }
        }
        if let Some(rw) = &st.rewrite {
            writeln!(out, "    rewritten: {}", one_line(rw, 200))?;
        }
    }
    if list.len() > limit {
        writeln!(
            out,
            "… {} more statements with findings (--limit, or --format json for all)",
            list.len() - limit
        )?;
    }
    for d in &r.proposed_ddl {
        writeln!(out, "\nproposed DDL:\n{d}")?;
    }
    Ok(())
}

/// A fenced block holding `text` verbatim: the fence is longer than any backtick run inside.
fn md_fence(lang: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{text}\n{fence}")
}

/// Writes the Markdown report. SQL is verbatim: in code spans in the table (cut to one line), and
/// whole in fenced blocks, with its rewrite, under the table.
fn write_markdown(out: &mut dyn Write, r: &AuditReport, limit: usize) -> io::Result<()> {
    let s = &r.summary;
    writeln!(out, "# cutover audit: {}\n", r.profile)?;
    writeln!(
        out,
        "- inputs: {}",
        input_paths(r)
            .iter()
            .map(|i| md_code(i))
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    writeln!(
        out,
        "- schema: {}",
        r.schema_source
            .as_deref()
            .map(md_code)
            .unwrap_or_else(|| "none".into())
    )?;
    writeln!(
        out,
        "- statements: {} (ok {}, warn {}, fail {}; {} checked on tokens only)",
        s.statements, s.ok, s.warn, s.fail, s.not_parsed
    )?;
    writeln!(
        out,
        "- ready: {} of executions{}",
        pct(s.ready_by_executions),
        s.ready_by_time
            .map(|t| format!(", {} of recorded time", pct(t)))
            .unwrap_or_default()
    )?;
    if let Some(l) = &r.live {
        writeln!(
            out,
            "- live target {}: accepted {}, rejected {}, unconfirmed {}, not sent {}, verdicts changed {}",
            md_code(&l.target),
            l.accepted,
            l.rejected,
            l.unconfirmed,
            l.not_sent,
            l.verdict_changes
        )?;
        if let Some(u) = unconfirmed_line(r) {
            writeln!(out, "- {}", md_cell(&u))?;
        }
    }
    for u in &r.unchecked {
        writeln!(out, "- not checked: {}", md_cell(u))?;
    }
    if !s.by_category.is_empty() {
        writeln!(
            out,
            "\n| category | error | warning | notice | info |\n|---|---:|---:|---:|---:|"
        )?;
        for (cat, m) in &s.by_category {
            let g = |k: Severity| m.get(&k).copied().unwrap_or(0);
            writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                md_cell(cat),
                g(Severity::Error),
                g(Severity::Warning),
                g(Severity::Notice),
                g(Severity::Info)
            )?;
        }
    }
    let list = ranked(r);
    if !list.is_empty() {
        writeln!(
            out,
            "\n## Statements\n\n| # | verdict | runs | statement | findings |\n|---:|---|---:|---|---|"
        )?;
    }
    for st in list.iter().take(limit) {
        let fs: Vec<String> = st
            .findings
            .iter()
            .filter(|f| f.severity != Severity::Info)
            .map(|f| md_cell(&finding_line(f)))
            .collect();
        writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            st.ordinal,
            verdict(st.verdict),
            st.count,
            md_code(&one_line(&st.sql, 80)),
            fs.join("<br>")
        )?;
    }
    let rewritten: Vec<&&StatementAudit> = list
        .iter()
        .take(limit)
        .filter(|st| st.rewrite.is_some())
        .collect();
    if !rewritten.is_empty() {
        writeln!(out, "\n## Rewrites")?;
    }
    for st in rewritten {
        writeln!(
            out,
            "\n### #{} ({}:{})\n\n{}\n\n{}",
            st.ordinal,
            md_cell(&st.origin.file),
            st.origin.line,
            md_fence("sql", &st.sql),
            md_fence("sql", st.rewrite.as_deref().unwrap_or_default())
        )?;
    }
    if list.len() > limit {
        writeln!(
            out,
            "\n{} more statements with findings are in the JSON report.",
            list.len() - limit
        )?;
    }
    for d in &r.proposed_ddl {
        writeln!(out, "\n## Proposed DDL\n\n{}", md_fence("sql", d))?;
    }
    Ok(())
}
