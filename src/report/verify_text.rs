//! `cutover verify` as text.

use crate::verify::VerifyReport;
use std::io::{self, Write};

pub fn verify_text(out: &mut dyn Write, r: &VerifyReport) -> io::Result<()> {
    writeln!(
        out,
        "cutover verify: {} → {}{}",
        r.source,
        r.target,
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
            t.status
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
        for e in &t.examples {
            writeln!(
                out,
                "    {} key {}{}",
                e.kind,
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
    writeln!(out, "total differences: {}", r.total_differences)
}
