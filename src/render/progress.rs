//! Progress on a terminal.

use crate::workload::{Progress, Unit};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::io::{self, IsTerminal};
use std::time::Duration;

/// Progress on stderr: a bar with done of total, rate and time left when the total is known, a
/// spinner with the count otherwise; nothing when stderr is not a terminal or with `-q`.
pub struct TermProgress {
    bar: Option<ProgressBar>,
}

impl TermProgress {
    pub fn new(quiet: bool) -> TermProgress {
        TermProgress {
            // Hidden until the first phase gives it a style: drawn at once, it showed an empty
            // default bar ("0/0") first.
            bar: (!quiet && io::stderr().is_terminal()).then(ProgressBar::hidden),
        }
    }
}

impl Progress for TermProgress {
    fn phase(&self, what: &str, total: Option<u64>, unit: Unit) {
        let Some(b) = &self.bar else { return };
        let template = match (unit, total) {
            (Unit::Bytes, Some(_)) => {
                "{spinner} {prefix} {bytes}/{total_bytes} ({bytes_per_sec}, {left}) {msg}"
            }
            (Unit::Bytes, None) => "{spinner} {prefix} {bytes} ({bytes_per_sec}) {msg}",
            (Unit::Items, Some(_)) => "{spinner} {prefix} {pos}/{len} ({per_sec}, {left}) {msg}",
            (Unit::Items, None) => "{spinner} {prefix} {pos} ({per_sec}) {msg}",
            (Unit::Notes, _) => "{spinner} {prefix} {msg} ({elapsed})",
        };
        let style = ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key("left", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&time_left(s.pos(), s.len(), s.elapsed()));
            });
        // Each phase starts its own clock: the time left is this phase's.
        b.reset();
        b.set_style(style);
        b.set_prefix(what.to_string());
        match total {
            Some(t) => b.set_length(t),
            None => b.unset_length(),
        }
        if b.is_hidden() {
            b.set_draw_target(ProgressDrawTarget::stderr());
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

/// The time left of a phase from its average rate so far (indicatif's own estimate stays at 0 s
/// when the position moves in a few large steps, as the log readers report it).
fn time_left(done: u64, total: Option<u64>, elapsed: Duration) -> String {
    match total {
        Some(t) if done >= t => "finishing".into(),
        Some(t) if done > 0 && elapsed.as_millis() >= 200 => {
            let secs = elapsed.as_secs_f64() * (t - done) as f64 / done as f64;
            format!("{} left", human_duration(secs))
        }
        _ => "estimating time left".into(),
    }
}

fn human_duration(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_left_follows_the_average_rate() {
        let el = Duration::from_secs(10);
        assert_eq!(time_left(250, Some(1000), el), "30 s left");
        assert_eq!(time_left(10, Some(1000), el), "16 min 30 s left");
        assert_eq!(time_left(1, Some(1000), el), "2 h 46 min left");
        assert_eq!(time_left(0, Some(1000), el), "estimating time left");
        assert_eq!(
            time_left(5, Some(10), Duration::from_millis(50)),
            "estimating time left"
        );
        assert_eq!(time_left(10, Some(10), el), "finishing");
    }
}
