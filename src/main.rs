//! The `cutover` command line: parses arguments, calls the library, picks a printer.

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};
use cutover::capture::{Batch, CaptureOptions, EventReader};
use cutover::digest::{DigestOptions, Digester};
use cutover::report::{self, Format};
use cutover::workload::LogType;
use cutover::workload::time::parse_utc_offset;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "cutover",
    version,
    about = "Is it safe to move this MySQL application onto another database?"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Digest query logs: events, sessions, QPS, concurrency and per-fingerprint statistics.
    Digest(DigestArgs),
    /// Write the normalized event stream that replay and audit consume.
    Events(EventsArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum LogTypeArg {
    General,
    Slow,
}

#[derive(Args)]
struct ReadArgs {
    /// Log files: general or slow query logs, plain or gzip; `-` reads standard input.
    #[arg(required = true)]
    logs: Vec<PathBuf>,
    /// The log type, when detection from the first lines is not wanted.
    #[arg(long, value_enum)]
    log_type: Option<LogTypeArg>,
    /// UTC offset of timestamps printed without a zone (MariaDB, MySQL ≤ 5.6), e.g. +08:00.
    #[arg(long, default_value = "+00:00")]
    log_timezone: String,
    /// Parser threads (default: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Never draw a progress bar (one is drawn only when stderr is a terminal).
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args)]
struct DigestArgs {
    #[command(flatten)]
    read: ReadArgs,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Fingerprints to report (default: 20 in text, all in JSON).
    #[arg(long)]
    limit: Option<usize>,
    /// Write the report to this file instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum EventsFormat {
    Jsonl,
}

#[derive(Args)]
struct EventsArgs {
    #[command(flatten)]
    read: ReadArgs,
    #[arg(long, value_enum, default_value = "jsonl")]
    format: EventsFormat,
    /// Write the events to this file instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Digest(a) => digest(a),
        Cmd::Events(a) => events(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // A closed pipe (`| head`) is not an error worth a message.
            if e.downcast_ref::<io::Error>()
                .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("cutover: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn capture_options(r: &ReadArgs) -> Result<CaptureOptions> {
    let Some(offset) = parse_utc_offset(&r.log_timezone) else {
        bail!(
            "--log-timezone {:?} is not a UTC offset; write it like +08:00, -05:30 or UTC",
            r.log_timezone
        );
    };
    Ok(CaptureOptions {
        log_type: r.log_type.map(|t| match t {
            LogTypeArg::General => LogType::General,
            LogTypeArg::Slow => LogType::Slow,
        }),
        naive_utc_offset_s: offset,
        threads: r.threads,
        ..CaptureOptions::default()
    })
}

fn output(path: &Option<PathBuf>) -> Result<Box<dyn Write>> {
    Ok(match path {
        Some(p) => Box::new(BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(BufWriter::with_capacity(1 << 20, io::stdout().lock())),
    })
}

/// Reads every batch, calling `each`, with a progress bar on a terminal.
fn for_each_batch(
    reader: &mut EventReader,
    quiet: bool,
    mut each: impl FnMut(Batch) -> Result<()>,
) -> Result<()> {
    let bar = if !quiet && io::stderr().is_terminal() {
        let (_, total) = reader.progress();
        let bar = match total {
            Some(t) => ProgressBar::new(t),
            None => ProgressBar::no_length(),
        };
        bar.set_draw_target(ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} reading logs {bytes}/{total_bytes} ({bytes_per_sec}, {eta} left) {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Some(bar)
    } else {
        None
    };
    let mut events = 0u64;
    while let Some(batch) = reader.next_batch()? {
        events += batch.events.len() as u64;
        each(batch)?;
        if let Some(b) = &bar {
            b.set_position(reader.progress().0);
            b.set_message(format!("{} events", report::thousands(events)));
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(())
}

fn digest(a: DigestArgs) -> Result<ExitCode> {
    let mut reader = EventReader::open(&a.read.logs, capture_options(&a.read)?)?;
    let mut digester = Digester::new(DigestOptions::default());
    for_each_batch(&mut reader, a.read.quiet, |batch| {
        digester.add_fingerprints(batch.new_fingerprints);
        for ev in &batch.events {
            digester.add(ev);
        }
        Ok(())
    })?;
    let mut d = digester.finish(reader.inputs().to_vec(), reader.diagnostics());
    let mut out = output(&a.output)?;
    match a.format {
        Format::Text => report::digest_text::write(&mut out, &d, a.limit.unwrap_or(20))?,
        Format::Json => {
            if let Some(l) = a.limit {
                d.fingerprints.truncate(l);
            }
            report::write_json(&mut out, &d)?
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn events(a: EventsArgs) -> Result<ExitCode> {
    let mut reader = EventReader::open(&a.read.logs, capture_options(&a.read)?)?;
    let files: Vec<String> = reader.inputs().iter().map(|i| i.path.clone()).collect();
    let mut out = output(&a.output)?;
    let EventsFormat::Jsonl = a.format;
    for_each_batch(&mut reader, a.read.quiet, |batch| {
        for ev in &batch.events {
            report::events_jsonl::write_event(&mut out, ev, &files)?;
        }
        Ok(())
    })?;
    out.flush()?;
    let d = reader.diagnostics();
    if !d.is_empty() && !a.read.quiet {
        eprintln!(
            "cutover: {} lines skipped; {} notes (run `cutover digest` for details)",
            d.skipped_lines,
            d.counts.values().sum::<u64>()
        );
    }
    Ok(ExitCode::SUCCESS)
}
