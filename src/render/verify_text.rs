//! `cutover verify` as text.

use super::{Render, RenderOptions, md_cell, md_code};
use crate::verify::{TableStatus, VerifyReport, WatchReport};
use std::io::{self, Write};

impl Render for VerifyReport {
    fn header(&self) -> &crate::workload::Header {
        &self.header
    }

    fn incomplete(&self) -> Vec<String> {
        self.incomplete.clone()
    }

    fn text(&self, out: &mut dyn Write, _opts: &RenderOptions) -> io::Result<()> {
        verify_text(out, self)
    }

    fn markdown(&self, out: &mut dyn Write, _opts: &RenderOptions) -> io::Result<()> {
        verify_markdown(out, self)
    }
}

impl Render for WatchReport {
    fn header(&self) -> &crate::workload::Header {
        &self.header
    }

    fn incomplete(&self) -> Vec<String> {
        self.report.incomplete.clone()
    }

    fn text(&self, out: &mut dyn Write, _opts: &RenderOptions) -> io::Result<()> {
        verify_text(out, &self.report)?;
        writeln!(
            out,
            "watch: {} rounds, {}",
            self.rounds.len(),
            if self.converged {
                "converged"
            } else {
                "not converged"
            }
        )
    }

    fn markdown(&self, out: &mut dyn Write, _opts: &RenderOptions) -> io::Result<()> {
        verify_markdown(out, &self.report)?;
        writeln!(
            out,
            "\n| round | differences | in flight |\n|---:|---:|---:|"
        )?;
        for r in &self.rounds {
            writeln!(
                out,
                "| {} | {} | {} |",
                r.round, r.total_differences, r.in_flight
            )?;
        }
        writeln!(
            out,
            "\n{}",
            if self.converged {
                "Converged."
            } else {
                "**Not converged.**"
            }
        )
    }
}

fn endpoint(e: &Option<String>) -> &str {
    e.as_deref().unwrap_or("?")
}

fn verify_markdown(out: &mut dyn Write, r: &VerifyReport) -> io::Result<()> {
    writeln!(
        out,
        "# cutover verify\n\n- {} → {}{}\n- total differences: **{}**\n",
        md_code(endpoint(&r.header.endpoints.source)),
        md_code(endpoint(&r.header.endpoints.target)),
        if r.live {
            " (live: differences re-checked)"
        } else {
            ""
        },
        r.total_differences
    )?;
    for why in &r.incomplete {
        writeln!(out, "- **incomplete**: {}\n", md_cell(why))?;
    }
    writeln!(
        out,
        "| table | status | source rows | target rows | missing | extra | different | in flight | notes |\n|---|---|---:|---:|---:|---:|---:|---:|---|"
    )?;
    for t in &r.tables {
        let mut notes: Vec<String> = t.reason.iter().cloned().collect();
        notes.extend(t.schema.iter().cloned());
        notes.extend(t.cannot_hold.iter().cloned());
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            md_cell(&t.table),
            t.status.name(),
            t.rows_source,
            t.rows_target,
            t.missing_in_target,
            t.extra_in_target,
            t.different,
            t.in_flight,
            md_cell(&notes.join("; "))
        )?;
    }
    let differing: Vec<_> = r
        .tables
        .iter()
        .filter(|t| t.status == TableStatus::Differ && !t.examples.is_empty())
        .collect();
    for t in differing {
        writeln!(
            out,
            "\n## {}\n\n| kind | key | columns |\n|---|---|---|",
            md_cell(&t.table)
        )?;
        for e in &t.examples {
            writeln!(
                out,
                "| {} | {} | {} |",
                e.kind.name(),
                md_code(&e.key),
                md_cell(&e.columns.join(", "))
            )?;
        }
    }
    Ok(())
}

fn verify_text(out: &mut dyn Write, r: &VerifyReport) -> io::Result<()> {
    writeln!(
        out,
        "cutover verify: {} → {}{}",
        endpoint(&r.header.endpoints.source),
        endpoint(&r.header.endpoints.target),
        if r.live {
            " (live: differences re-checked)"
        } else {
            ""
        }
    )?;
    writeln!(
        out,
        "{:<32} {:>10} {:>10} {:>8} {:>8} {:>9} {:>9} {:>7}  status",
        "table", "source", "target", "missing", "extra", "different", "in flight", "chunks"
    )?;
    for t in &r.tables {
        writeln!(
            out,
            "{:<32} {:>10} {:>10} {:>8} {:>8} {:>9} {:>9} {:>7}  {}",
            t.table,
            t.rows_source,
            t.rows_target,
            t.missing_in_target,
            t.extra_in_target,
            t.different,
            t.in_flight,
            t.chunks,
            t.status.name()
        )?;
        if !t.key.is_empty() {
            writeln!(out, "    key: {}", t.key)?;
        }
        if let Some(why) = &t.reason {
            writeln!(out, "    {why}")?;
        }
        for s in &t.schema {
            writeln!(out, "    schema: {s}")?;
        }
        for s in &t.cannot_hold {
            writeln!(out, "    cannot hold: {s}")?;
        }
        for e in &t.examples {
            writeln!(
                out,
                "    {} key {}{}",
                e.kind.name(),
                e.key,
                if e.columns.is_empty() {
                    String::new()
                } else {
                    format!(": {}", e.columns.join(", "))
                }
            )?;
            if let Some(x) = &e.source {
                writeln!(out, "      - {}", x.join(" | "))?;
            }
            if let Some(y) = &e.target {
                writeln!(out, "      + {}", y.join(" | "))?;
            }
        }
    }
    if let Some(n) = r.fix_statements {
        writeln!(out, "repair statements written: {n}")?;
    }
    if r.paused_seconds > 0.0 {
        writeln!(out, "paused for --max-load: {:.1} s", r.paused_seconds)?;
    }
    writeln!(out, "total differences: {}", r.total_differences)?;
    for why in &r.incomplete {
        writeln!(out, "INCOMPLETE: {why}")?;
    }
    Ok(())
}
