//! Progress on a terminal.

use cutover::workload::{Progress, Unit};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{self, IsTerminal};

/// Progress on stderr: a bar with done of total, rate and time left when the total is known, a
/// spinner with the count otherwise; nothing when stderr is not a terminal or with `-q`.
pub struct TermProgress {
    bar: Option<ProgressBar>,
}

impl TermProgress {
    pub fn new(quiet: bool) -> TermProgress {
        TermProgress {
            bar: (!quiet && io::stderr().is_terminal()).then(|| {
                let b = ProgressBar::hidden();
                b.set_draw_target(ProgressDrawTarget::stderr());
                b
            }),
        }
    }
}

impl Progress for TermProgress {
    fn phase(&self, what: &str, total: Option<u64>, unit: Unit) {
        let Some(b) = &self.bar else { return };
        let template = match (unit, total) {
            (Unit::Bytes, Some(_)) => {
                "{spinner} {prefix} {bytes}/{total_bytes} ({bytes_per_sec}, {eta} left) {msg}"
            }
            (Unit::Bytes, None) => "{spinner} {prefix} {bytes} ({bytes_per_sec}) {msg}",
            (Unit::Items, Some(_)) => {
                "{spinner} {prefix} {pos}/{len} ({per_sec}, {eta} left) {msg}"
            }
            (Unit::Items, None) => "{spinner} {prefix} {pos} ({per_sec}) {msg}",
        };
        b.set_style(
            ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b.set_prefix(what.to_string());
        match total {
            Some(t) => b.set_length(t),
            None => b.unset_length(),
        }
    }
    fn done(&self, n: u64) {
        if let Some(b) = &self.bar {
            b.set_position(n);
        }
    }
    fn note(&self, text: &str) {
        if let Some(b) = &self.bar {
            b.set_message(text.to_string());
        }
    }
    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
            b.reset();
        }
    }
}
