//! `cutover report --junit FILE`: one JUnit testcase per criterion, for CI. `fail`, `vacuous` and
//! `not-run` are failures; `waived` is a pass with the waiver in its output; `warn` passes with a
//! system-out line.

use crate::report::{GoNoGoReport, Status};
use std::io::{self, Write};

/// XML text or attribute value: the five special characters escaped, and characters XML 1.0 does
/// not allow (most control characters) replaced, so captured SQL cannot break the file.
pub fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

pub fn write(r: &GoNoGoReport, out: &mut dyn Write) -> io::Result<()> {
    let failures = r.criteria.iter().filter(|c| c.status.blocks()).count();
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<testsuites name="cutover go/no-go" tests="{}" failures="{failures}" errors="0">"#,
        r.criteria.len()
    )?;
    writeln!(
        out,
        r#"  <testsuite name="cutover.report" tests="{}" failures="{failures}" errors="0" skipped="0" timestamp="{}">"#,
        r.criteria.len(),
        xml(r.header.finished.trim_end_matches('Z'))
    )?;
    writeln!(
        out,
        r#"    <properties><property name="verdict" value="{}"/><property name="gate" value="{}"/></properties>"#,
        r.verdict.name(),
        xml(&r.gate)
    )?;
    for c in &r.criteria {
        writeln!(
            out,
            r#"    <testcase classname="cutover.{}" name="{}">"#,
            xml(&c.stage),
            xml(&c.id)
        )?;
        let mut detail = format!(
            "{}\nmeasured: {}\nthreshold: {}\n",
            c.summary, c.measured, c.threshold
        );
        for e in c
            .evidence
            .iter()
            .filter(|e| e.status != Status::Pass)
            .take(20)
        {
            detail.push_str(&format!("- {} {}: {}\n", e.kind, e.id, e.detail));
        }
        if c.status.blocks() {
            writeln!(
                out,
                r#"      <failure type="{}" message="{}">{}</failure>"#,
                c.status.name(),
                xml(&c.summary),
                xml(&detail)
            )?;
        } else {
            writeln!(
                out,
                "      <system-out>{}: {}</system-out>",
                c.status.name(),
                xml(&detail)
            )?;
        }
        writeln!(out, "    </testcase>")?;
    }
    writeln!(out, "  </testsuite>\n</testsuites>")
}
