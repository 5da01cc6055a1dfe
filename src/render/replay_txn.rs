//! The replay report's transaction classes and target-only errors, for people (text and Markdown).

use super::{md_cell, md_code};
use crate::replay::{RegressionTest, ReplayReport, TransactionClass};
use std::io::{self, Write};

/// `×1.04 [0.98, 1.10]`, or why there is no verdict.
pub(super) fn verdict(t: Option<&RegressionTest>) -> String {
    match t {
        None => String::new(),
        Some(t) => match (t.ratio, t.ratio_ci) {
            (Some(r), Some([lo, hi])) => format!(
                "×{r:.2} [{lo:.2}, {hi:.2}]{}",
                if t.regression { " REGRESSION" } else { "" }
            ),
            _ => t.note.clone().unwrap_or_default(),
        },
    }
}

/// The most frequent class that writes: the tpmC analogue.
fn main_write_class(r: &ReplayReport) -> Option<&TransactionClass> {
    r.transactions
        .iter()
        .filter(|c| {
            ["INSERT", "UPDATE", "DELETE", "REPLACE"]
                .iter()
                .any(|w| c.name.starts_with(w))
        })
        .max_by_key(|c| c.count)
}

pub(super) fn text(out: &mut dyn Write, r: &ReplayReport) -> io::Result<()> {
    if !r.transactions.is_empty() {
        writeln!(
            out,
            "transactions by class ({} {}; latency ms from the first statement to COMMIT/ROLLBACK):",
            r.transactions.len(),
            if r.transactions.len() == 1 {
                "class"
            } else {
                "classes"
            }
        )?;
        writeln!(
            out,
            "    {:<28} {:>8}  {:<6} {:>8} {:>9} {:>9} {:>9} {:>9} {:>6} {:>6}  target/source",
            "class", "captured", "side", "count", "tpm", "avg", "p95", "p99", "rollb", "errors"
        )?;
        for c in r.transactions.iter().take(20) {
            let sides = std::iter::once(("source", Some(&c.source)))
                .chain(std::iter::once(("target", c.target.as_ref())));
            for (i, (name, s)) in sides.enumerate() {
                let Some(s) = s else { continue };
                writeln!(
                    out,
                    "    {:<28} {:>8}  {:<6} {:>8} {:>9.1} {:>9.3} {:>9.3} {:>9.3} {:>6} {:>6}  {}",
                    if i == 0 { c.name.as_str() } else { "" },
                    if i == 0 {
                        c.count.to_string()
                    } else {
                        String::new()
                    },
                    name,
                    s.count,
                    s.tpm,
                    s.latency_ms.avg,
                    s.latency_ms.p95,
                    s.latency_ms.p99,
                    s.rollbacks,
                    s.errors,
                    if i == 1 {
                        verdict(c.latency_test.as_ref())
                    } else {
                        String::new()
                    }
                )?;
            }
        }
        if r.transactions.len() > 20 {
            writeln!(
                out,
                "    … {} more classes in the JSON",
                r.transactions.len() - 20
            )?;
        }
        if let Some(c) = main_write_class(r) {
            write!(
                out,
                "most frequent write transaction ({}), per minute:",
                c.name
            )?;
            write!(out, " source {:.1}", c.source.tpm)?;
            if let Some(t) = &c.target {
                write!(out, ", target {:.1}", t.tpm)?;
            }
            writeln!(out, " (the tpmC analogue)\n")?;
        } else {
            writeln!(out)?;
        }
    }
    for e in &r.target_errors {
        writeln!(
            out,
            "TARGET ERROR {} ×{}  {}\n    {}",
            e.code.as_deref().unwrap_or("?"),
            e.count,
            e.fingerprint,
            e.message
        )?;
        if let Some(x) = &e.example {
            writeln!(
                out,
                "    first: session {} #{}: {}",
                x.session,
                x.seq,
                x.sql.split_whitespace().collect::<Vec<_>>().join(" ")
            )?;
        }
        writeln!(
            out,
            "    broke afterwards in its session: {} mismatches, {} statements skipped (aborted transaction){}",
            e.later_mismatches,
            e.later_skipped,
            if e.later_fingerprints.is_empty() {
                ""
            } else {
                ":"
            }
        )?;
        for f in &e.later_fingerprints {
            writeln!(out, "        {f}")?;
        }
    }
    if !r.target_errors.is_empty() {
        writeln!(out)?;
    }
    Ok(())
}

pub(super) fn markdown(out: &mut dyn Write, r: &ReplayReport) -> io::Result<()> {
    if !r.transactions.is_empty() {
        writeln!(
            out,
            "\n## Transactions\n\n| class | captured | side | count | TPS | tpm | avg ms | p50 ms | p95 ms | p99 ms | max ms | rollbacks | errors | target/source |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
        )?;
        for c in &r.transactions {
            let sides = std::iter::once(("source", Some(&c.source)))
                .chain(std::iter::once(("target", c.target.as_ref())));
            for (i, (name, s)) in sides.enumerate() {
                let Some(s) = s else { continue };
                let l = &s.latency_ms;
                writeln!(
                    out,
                    "| {} | {} | {name} | {} | {:.2} | {:.1} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {} | {} |",
                    if i == 0 {
                        md_code(&c.name)
                    } else {
                        String::new()
                    },
                    if i == 0 {
                        c.count.to_string()
                    } else {
                        String::new()
                    },
                    s.count,
                    s.tps,
                    s.tpm,
                    l.avg,
                    l.p50,
                    l.p95,
                    l.p99,
                    l.max,
                    s.rollbacks,
                    s.errors,
                    if i == 1 {
                        md_cell(&verdict(c.latency_test.as_ref()))
                    } else {
                        String::new()
                    }
                )?;
            }
        }
        if let Some(c) = main_write_class(r) {
            writeln!(
                out,
                "\ntpmC analogue ({}, the most frequent write transaction): source {:.1}{}",
                md_code(&c.name),
                c.source.tpm,
                c.target
                    .as_ref()
                    .map(|t| format!(", target {:.1}", t.tpm))
                    .unwrap_or_default()
            )?;
        }
    }
    if !r.target_errors.is_empty() {
        writeln!(
            out,
            "\n## Errors only the target raised\n\n| code | count | fingerprint | message | later mismatches | later skipped |\n|---|---:|---|---|---:|---:|"
        )?;
        for e in &r.target_errors {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                md_cell(e.code.as_deref().unwrap_or("?")),
                e.count,
                md_code(&e.fingerprint),
                md_cell(&e.message),
                e.later_mismatches,
                e.later_skipped
            )?;
        }
    }
    Ok(())
}
