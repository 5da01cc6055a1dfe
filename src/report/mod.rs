//! Printers: render result types as text for people or JSON for machines. No analysis happens here.

pub mod audit_text;
pub mod digest_text;
pub mod events_jsonl;
pub mod replay_text;
pub mod verify_text;

pub use verify_text::verify_text;

use serde::Serialize;
use std::io::{self, Write};

/// Output formats shared by the commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// Writes any result type as pretty JSON followed by a newline.
pub fn write_json<T: Serialize>(out: &mut dyn Write, value: &T) -> io::Result<()> {
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
    }
}
