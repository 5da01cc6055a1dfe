//! `cutover report` for a terminal (text) and for a pull request or CI step summary (Markdown).

use super::{Render, RenderOptions, md_cell};
use crate::report::{Criterion, GoNoGoReport, Status};
use std::io::{self, Write};

impl Render for GoNoGoReport {
    fn header(&self) -> &crate::workload::Header {
        &self.header
    }
    fn text(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        text(self, out, opts.limit.unwrap_or(5))
    }
    fn markdown(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        markdown(self, out, opts.limit.unwrap_or(10))
    }
}

fn mark(s: Status) -> &'static str {
    match s {
        Status::Pass => "PASS",
        Status::Warn => "WARN",
        Status::Waived => "WAIVED",
        Status::Vacuous => "VACUOUS",
        Status::NotRun => "NOT RUN",
        Status::Fail => "FAIL",
    }
}

/// One line of untrusted text for a terminal: control characters (escape sequences) shown as
/// `\u{…}`, so captured SQL cannot drive the terminal.
pub fn line(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, c) in s.chars().enumerate() {
        if n >= max {
            out.push('…');
            break;
        }
        if c.is_control() {
            if c == '\n' || c == '\t' || c == '\r' {
                out.push(' ');
            } else {
                out.push_str(&c.escape_unicode().to_string());
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn text(r: &GoNoGoReport, out: &mut dyn Write, limit: usize) -> io::Result<()> {
    writeln!(out, "cutover report: {}", r.verdict.name().to_uppercase())?;
    writeln!(out, "  {}", line(&r.reason, 400))?;
    writeln!(out, "  gate: {}", r.gate)?;
    writeln!(out)?;
    for c in &r.criteria {
        crit_text(c, out, limit)?;
    }
    if !r.waivers.is_empty() {
        writeln!(out, "\nwaivers:")?;
        for w in &r.waivers {
            writeln!(
                out,
                "  {} {} (owner {}, expires {}): {} — {}",
                w.waiver.criterion,
                w.waiver
                    .matches
                    .as_deref()
                    .map(|m| format!("match {}", line(m, 60)))
                    .unwrap_or_default(),
                line(&w.waiver.owner, 60),
                w.waiver.expires,
                line(&w.waiver.reason, 200),
                w.note
            )?;
        }
    }
    let e = &r.effort;
    if !e.classes.is_empty() {
        writeln!(
            out,
            "\neffort: {} statement class(es) to fix ({} automatic, {} manual), {:.0} units of {} min = {:.1} person-days, migration level {}",
            e.classes.len(),
            e.automatic,
            e.manual,
            e.units,
            e.unit_minutes,
            e.person_days,
            e.level
        )?;
        for c in e.classes.iter().take(limit) {
            writeln!(
                out,
                "  {:>5.0}u {} {} {} {} [{}]",
                c.units,
                c.level,
                c.fix,
                c.fingerprint_id,
                line(&c.fingerprint, 80),
                c.rules.join(", ")
            )?;
        }
    }
    if r.verify_history.len() > 1 {
        writeln!(
            out,
            "\nverify history: {} ({})",
            r.verify_history
                .iter()
                .map(|p| p.total_differences.to_string())
                .collect::<Vec<_>>()
                .join(" → "),
            r.verify_trend()
        )?;
        for p in &r.verify_history {
            writeln!(
                out,
                "  {} {}{}: {} difference(s), {} in flight",
                p.finished,
                line(&p.path, 120),
                p.round.map(|n| format!(" round {n}")).unwrap_or_default(),
                p.total_differences,
                p.in_flight
            )?;
        }
    }
    if let Some(b) = &r.baseline {
        writeln!(
            out,
            "\nsince the baseline {} (was {}):",
            line(&b.path, 200),
            b.verdict_before.map(|v| v.name()).unwrap_or("?")
        )?;
        if b.better.is_empty() && b.worse.is_empty() && b.new.is_empty() && b.fixed.is_empty() {
            writeln!(out, "  no criterion or evidence changed")?;
        }
        for (what, items) in [
            ("worse", &b.worse),
            ("new", &b.new),
            ("better", &b.better),
            ("fixed", &b.fixed),
        ] {
            for i in items.iter().take(limit * 2) {
                writeln!(out, "  {what:<6} {}", line(i, 300))?;
            }
            if items.len() > limit * 2 {
                writeln!(
                    out,
                    "  {what:<6} … {} more (--limit, or --format json)",
                    items.len() - limit * 2
                )?;
            }
        }
    }
    writeln!(
        out,
        "\ninputs: {}",
        r.stage_inputs
            .iter()
            .map(|i| format!("{} ({})", i.path, i.schema))
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    Ok(())
}

fn crit_text(c: &Criterion, out: &mut dyn Write, limit: usize) -> io::Result<()> {
    writeln!(
        out,
        "{:<8} {:<22} {}",
        mark(c.status),
        c.id,
        line(&c.summary, 300)
    )?;
    if c.status != Status::NotRun {
        writeln!(out, "         {:<22} {}", "", line(&c.measured, 300))?;
    }
    if matches!(c.status, Status::Pass | Status::NotRun) {
        return Ok(());
    }
    for e in c
        .evidence
        .iter()
        .filter(|e| e.status != Status::Pass)
        .take(limit)
    {
        let waived = if e.waived_by.is_some() {
            " (waived)"
        } else {
            ""
        };
        writeln!(
            out,
            "           - {} {}{}: {}",
            e.kind,
            line(&e.id, 60),
            waived,
            line(&e.detail, 160)
        )?;
        for n in e.notes.iter().take(4) {
            writeln!(out, "               {}", line(n, 160))?;
        }
    }
    let more = c
        .evidence
        .iter()
        .filter(|e| e.status != Status::Pass)
        .count()
        .saturating_sub(limit);
    if more > 0 {
        writeln!(out, "           … {more} more (--limit, or --format json)")?;
    }
    Ok(())
}

fn markdown(r: &GoNoGoReport, out: &mut dyn Write, limit: usize) -> io::Result<()> {
    let icon = match r.verdict {
        crate::report::Verdict::Go => "✅",
        crate::report::Verdict::GoWithWaivers => "☑️",
        crate::report::Verdict::NoGo => "❌",
    };
    writeln!(out, "# Cutover: {icon} {}\n", r.verdict.name())?;
    writeln!(out, "{}\n", md_cell(&r.reason))?;
    writeln!(out, "| criterion | status | measured | threshold |")?;
    writeln!(out, "|---|---|---|---|")?;
    for c in &r.criteria {
        writeln!(
            out,
            "| `{}` | **{}** | {} | {} |",
            c.id,
            c.status.name(),
            md_cell(&c.measured),
            md_cell(&c.threshold)
        )?;
    }
    for c in r
        .criteria
        .iter()
        .filter(|c| !matches!(c.status, Status::Pass))
    {
        writeln!(
            out,
            "\n## `{}`: {}\n\n{}\n",
            c.id,
            c.status.name(),
            md_cell(&c.summary)
        )?;
        let items: Vec<_> = c
            .evidence
            .iter()
            .filter(|e| e.status != Status::Pass)
            .take(limit)
            .collect();
        if items.is_empty() {
            continue;
        }
        writeln!(out, "| evidence | id | detail | value |")?;
        writeln!(out, "|---|---|---|---|")?;
        for e in items {
            writeln!(
                out,
                "| {}{} | {} | {} | {} |",
                e.kind,
                if e.waived_by.is_some() {
                    " (waived)"
                } else {
                    ""
                },
                super::md_code(&e.id),
                super::md_code(&e.detail),
                e.value
                    .map(|v| format!("{v:.3}")
                        .trim_end_matches('0')
                        .trim_end_matches('.')
                        .to_string())
                    .unwrap_or_default()
            )?;
        }
    }
    if !r.waivers.is_empty() {
        writeln!(
            out,
            "\n## Waivers\n\n| criterion | match | owner | expires | reason | applied |\n|---|---|---|---|---|---|"
        )?;
        for w in &r.waivers {
            writeln!(
                out,
                "| `{}` | {} | {} | {} | {} | {} |",
                w.waiver.criterion,
                w.waiver
                    .matches
                    .as_deref()
                    .map(super::md_code)
                    .unwrap_or_default(),
                md_cell(&w.waiver.owner),
                w.waiver.expires,
                md_cell(&w.waiver.reason),
                md_cell(&w.note)
            )?;
        }
    }
    let e = &r.effort;
    if !e.classes.is_empty() {
        writeln!(
            out,
            "\n## Effort\n\n{} statement class(es): {} automatic, {} manual; {:.0} units × {} min = **{:.1} person-days**, migration level **{}**.\n",
            e.classes.len(),
            e.automatic,
            e.manual,
            e.units,
            e.unit_minutes,
            e.person_days,
            e.level
        )?;
        writeln!(
            out,
            "| units | level | fix | fingerprint | rules |\n|---|---|---|---|---|"
        )?;
        for c in e.classes.iter().take(limit) {
            writeln!(
                out,
                "| {:.0} | {} | {} | {} | {} |",
                c.units,
                c.level,
                c.fix,
                super::md_code(&c.fingerprint),
                c.rules.join(", ")
            )?;
        }
    }
    if r.verify_history.len() > 1 {
        writeln!(
            out,
            "\n## Verify history: {}\n\n{} (the newest decides).\n\n| finished | file | round | differences | in flight |\n|---|---|---|---|---|",
            r.verify_trend(),
            r.verify_history
                .iter()
                .map(|p| p.total_differences.to_string())
                .collect::<Vec<_>>()
                .join(" → ")
        )?;
        for p in &r.verify_history {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                md_cell(&p.finished),
                super::md_code(&p.path),
                p.round.map(|n| n.to_string()).unwrap_or_default(),
                p.total_differences,
                p.in_flight
            )?;
        }
    }
    if let Some(b) = &r.baseline {
        writeln!(
            out,
            "\n## Since the baseline\n\n{} (was **{}**, now **{}**).\n\n| change | what |\n|---|---|",
            super::md_code(&b.path),
            b.verdict_before.map(|v| v.name()).unwrap_or("?"),
            r.verdict.name()
        )?;
        let mut any = false;
        for (what, items) in [
            ("worse", &b.worse),
            ("new", &b.new),
            ("better", &b.better),
            ("fixed", &b.fixed),
        ] {
            for i in items.iter().take(limit * 3) {
                any = true;
                writeln!(out, "| {what} | {} |", md_cell(i))?;
            }
        }
        if !any {
            writeln!(out, "| same | no criterion or evidence changed |")?;
        }
    }
    writeln!(
        out,
        "\nInputs: {}",
        r.stage_inputs
            .iter()
            .map(|i| format!("`{}` ({})", md_cell(&i.path), i.schema))
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    Ok(())
}
