//! Printers: every stage result renders through one trait, [`Render`], as text for a terminal,
//! Markdown for a pull request or a CI step summary, and JSON for machines (hyperfine's exporters
//! are the model: one result type, several exporters). No analysis happens here.

pub mod audit_text;
pub mod digest_text;
pub mod events_jsonl;
pub mod progress;
pub mod replay_text;
mod replay_txn;
pub mod report_html;
pub mod report_junit;
pub mod report_text;
pub mod verify_text;

use serde::{Deserialize, Serialize};
use std::io::{self, Write};

/// Output formats shared by the commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    Text,
    Markdown,
    Json,
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Format, String> {
        match s.to_ascii_lowercase().as_str() {
            "text" => Ok(Format::Text),
            "markdown" | "md" => Ok(Format::Markdown),
            "json" => Ok(Format::Json),
            other => Err(format!("unknown format {other:?}: text, markdown or json")),
        }
    }
}

/// What a printer shows besides the result itself.
#[derive(Clone, Debug, Default)]
pub struct RenderOptions {
    /// How many items (fingerprints, statements) to list in detail; `None`: the printer's default.
    pub limit: Option<usize>,
}

/// A stage result, printable for people and machines.
pub trait Render: Serialize {
    /// The header every stage result carries.
    fn header(&self) -> &crate::workload::Header;
    /// Why the result is incomplete (interrupted, work that could not be done); empty when it is
    /// complete. An incomplete result is still written, and the command exits with code 2.
    fn incomplete(&self) -> Vec<String> {
        Vec::new()
    }
    fn text(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()>;
    fn markdown(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()>;
    /// The result as pretty JSON (every field; `limit` is for people).
    fn json(&self, out: &mut dyn Write, _opts: &RenderOptions) -> io::Result<()> {
        write_json(out, self)
    }
}

/// Writes `result` in `format`.
pub fn write<R: Render + ?Sized>(
    result: &R,
    format: Format,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        Format::Text => result.text(out, opts),
        Format::Markdown => result.markdown(out, opts),
        Format::Json => result.json(out, opts),
    }
}

/// Text safe inside a Markdown table cell.
pub fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// Markdown inline code for any text, however many backticks it holds (CommonMark: a run of
/// backticks longer than any inside, padded with spaces), so copied SQL stays exactly as it was.
pub fn md_code(s: &str) -> String {
    let one_line = s.replace(['\n', '\r'], " ");
    let mut longest = 0;
    let mut run = 0;
    for c in one_line.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest + 1);
    let pad = if one_line.starts_with('`') || one_line.ends_with('`') || longest > 0 {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{}{pad}{fence}", one_line.replace('|', "\\|"))
}

/// Writes any result type as pretty JSON followed by a newline.
pub fn write_json<T: Serialize + ?Sized>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A duration in seconds, printed with a unit that keeps 3–4 significant digits.
pub fn duration(seconds: f64) -> String {
    let us = seconds * 1e6;
    if us < 1000.0 {
        format!("{us:.0}us")
    } else if us < 1e6 {
        format!("{:.1}ms", us / 1e3)
    } else if seconds < 600.0 {
        format!("{seconds:.2}s")
    } else if seconds < 36_000.0 {
        format!("{:.1}min", seconds / 60.0)
    } else {
        format!("{:.1}h", seconds / 3600.0)
    }
}

/// Bytes with a binary unit.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(12), "12");
        assert_eq!(duration(0.000145), "145us");
        assert_eq!(duration(0.0012), "1.2ms");
        assert_eq!(duration(2.5), "2.50s");
        assert_eq!(bytes(4_633_987), "4.4 MiB");
        assert_eq!(md_code("SELECT `a`"), "`` SELECT `a` ``");
        assert_eq!(md_code("SELECT 1"), "`SELECT 1`");
    }
}
