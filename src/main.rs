//! The `cutover` command line: flags → one library entry per subcommand → a printer. Defaults live in
//! the library; this file only wires them.

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use cutover::capture::{CaptureOptions, EventReader};
use cutover::db::Endpoint;
use cutover::render::{self, Format, Render, RenderOptions};
use cutover::workload::time::{parse_duration, parse_utc_offset};
use cutover::workload::{LogType, Progress, Unit};
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
    /// Check every distinct statement of logs or .sql scripts against a target database profile.
    Audit(AuditArgs),
    /// Replay a captured workload against a source and a target, comparing results and latency.
    Replay(ReplayArgs),
    /// Combine the JSON results of sharded replays (`replay --shard K/N --format json`).
    Merge(MergeArgs),
    /// Check that source and target hold the same rows (checksums pushed down, row-level diffs).
    Verify(VerifyArgs),
}

/// Where and how a result is printed.
#[derive(Args)]
struct OutputArgs {
    /// text, markdown or json.
    #[arg(long, default_value = "text")]
    format: Format,
    /// Write the result to this file instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Never draw progress (drawn only when stderr is a terminal).
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum LogTypeArg {
    General,
    Slow,
}

#[derive(Args)]
struct ReadArgs {
    /// The log type, when detection from the first lines is not wanted.
    #[arg(long, value_enum)]
    log_type: Option<LogTypeArg>,
    /// UTC offset of timestamps printed without a zone (MariaDB, MySQL ≤ 5.6), e.g. +08:00.
    #[arg(long, default_value = "+00:00")]
    log_timezone: String,
    /// Parser threads (default: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

#[derive(Args)]
struct DigestArgs {
    /// Log files: general or slow query logs, plain or gzip; `-` reads standard input.
    #[arg(required = true)]
    logs: Vec<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
    /// Fingerprints to report (default: 20 in text and Markdown, all in JSON).
    #[arg(long)]
    limit: Option<usize>,
    #[command(flatten)]
    out: OutputArgs,
}

#[derive(Args)]
struct EventsArgs {
    /// Log files: general or slow query logs, plain or gzip; `-` reads standard input.
    #[arg(required = true)]
    logs: Vec<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
    /// jsonl (one JSON object per event).
    #[arg(long, default_value = "jsonl", value_parser = ["jsonl"])]
    format: String,
    /// Write the events to this file instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum KingbaseMode {
    /// A cluster initialised in MySQL compatibility mode (database_mode=mysql).
    Mysql,
    /// A cluster initialised in PostgreSQL or Oracle mode.
    Pg,
}

#[derive(Args)]
struct AuditArgs {
    /// Captured logs (anything `cutover digest` reads) and .sql scripts (mysqldump output included).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The target profile: postgres, kingbase or kaiwudb (or any checklists/NAME.toml).
    #[arg(long)]
    target: String,
    /// For --target kingbase: the mode the cluster was initialised in.
    #[arg(long, value_enum, default_value = "mysql")]
    kingbase_mode: KingbaseMode,
    /// The MySQL schema, as DDL (mysqldump --no-data output; a full dump works too).
    #[arg(long, conflicts_with = "source")]
    schema: Option<PathBuf>,
    /// Read the schema from the MySQL source's information_schema (mysql://user:pass@host:3306/db).
    #[arg(long)]
    source: Option<String>,
    /// Ask the real target about each statement and its rewrite, inside a transaction that is rolled back.
    #[arg(long)]
    live: Option<String>,
    /// With --live: create the --schema/--source tables on the target first (rolled back with the rest).
    #[arg(long, requires = "live")]
    live_setup: bool,
    /// A MySQL table that becomes a KaiwuDB time-series table (repeatable).
    #[arg(long = "ts-table")]
    ts_tables: Vec<String>,
    /// Read the target profiles from this directory instead of the built-in ones.
    #[arg(long)]
    checklists: Option<PathBuf>,
    /// Statements listed in detail in text and Markdown (default 50).
    #[arg(long)]
    limit: Option<usize>,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    out: OutputArgs,
}

#[derive(Args)]
struct ReplayArgs {
    /// Captured logs (general or slow, plain or gzip).
    logs: Vec<PathBuf>,
    /// A scenario file (replays/*.toml) holding the settings; options given here override it.
    #[arg(long)]
    scenario: Option<PathBuf>,
    /// The source database (mysql://user:pass@host:3306/db).
    #[arg(long)]
    source: Option<String>,
    /// The target database (postgres://… for PostgreSQL, KingbaseES and KaiwuDB, or mysql://…).
    #[arg(long)]
    target: Option<String>,
    /// The target profile, for --rewrite (default: the one the target URL's scheme names).
    #[arg(long)]
    profile: Option<String>,
    /// Replay at this multiple of the recorded pace (1 = as recorded).
    #[arg(long, conflicts_with = "max_speed")]
    speed: Option<f64>,
    /// No pauses: per-session order and concurrency are kept.
    #[arg(long)]
    max_speed: bool,
    /// reads (default): only statements that cannot change data; all: writes and transactions too.
    #[arg(long)]
    mode: Option<cutover::replay::plan::Mode>,
    /// Required with --mode all: you replay against copies you may write to.
    #[arg(long)]
    allow_writes: bool,
    /// Send the audit's mechanical rewrites to the target.
    #[arg(long)]
    rewrite: bool,
    /// With --mode all: let writes from different sessions start in any order. By default writes,
    /// locking reads and COMMITs keep the captured order across sessions, so that both sides see the
    /// same interleaving of concurrent writers (reads are never held back).
    #[arg(long)]
    free_order: bool,
    /// Stop after this long (30s, 5m, 1h).
    #[arg(long)]
    duration: Option<String>,
    /// Replay only the sessions of shard K of N (0-based K), to share a capture between machines.
    #[arg(long)]
    shard: Option<String>,
    /// Slower by more than this fraction (at p50 or p95) is a regression candidate (default 0.2).
    #[arg(long)]
    threshold: Option<f64>,
    /// Significance level of the latency test (default 0.01).
    #[arg(long)]
    alpha: Option<f64>,
    /// UTC offset of timestamps printed without a zone (MariaDB, MySQL ≤ 5.6), e.g. +08:00.
    #[arg(long)]
    log_timezone: Option<String>,
    #[command(flatten)]
    out: OutputArgs,
}

#[derive(Args)]
struct MergeArgs {
    /// JSON results of `cutover replay --format json`.
    #[arg(required = true)]
    results: Vec<PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
}

#[derive(Args)]
struct VerifyArgs {
    /// The MySQL source (mysql://user:pass@host:3306/db).
    #[arg(long)]
    source: String,
    /// The target (postgres://…, kingbase://…, kaiwudb://… or mysql://…).
    #[arg(long)]
    target: String,
    /// The target profile, shown in the report (the URL scheme already tells the dialect).
    #[arg(long, value_parser = ["postgres", "kingbase", "kingbase-pg", "kaiwudb"])]
    profile: Option<String>,
    /// Tables to check, comma-separated (default: every base table of the source database).
    #[arg(long, value_delimiter = ',', conflicts_with = "all")]
    tables: Option<Vec<String>>,
    /// Check every table (the default).
    #[arg(long)]
    all: bool,
    /// A condition both sides apply (for example "updated_at >= '2026-12-01'").
    #[arg(long = "where")]
    where_clause: Option<String>,
    /// Rows per chunk (key range) or per hash bucket (default 10000).
    #[arg(long)]
    chunk_rows: Option<u64>,
    /// Sessions per server computing chunk digests (default 1; each holds its own snapshot on
    /// MySQL; on PostgreSQL they share one).
    #[arg(long)]
    threads: Option<usize>,
    /// Pause while either server runs more than N queries (MySQL Threads_running, PostgreSQL
    /// active backends).
    #[arg(long, value_name = "N")]
    max_load: Option<u64>,
    /// Re-check each difference on the latest data, after a delay that doubles, before reporting
    /// it: rows in flight during double-writes are counted as in flight, not as differences.
    #[arg(long)]
    live: bool,
    /// Re-checks per difference with --live (default 4).
    #[arg(long)]
    live_retries: Option<u32>,
    /// First delay before a --live re-check, then doubled (default 500ms).
    #[arg(long)]
    live_delay: Option<String>,
    /// Repeat the check every INTERVAL until it finds no difference (or --rounds runs).
    #[arg(long, value_name = "INTERVAL")]
    watch: Option<String>,
    /// With --watch: stop after this many rounds (0: until converged).
    #[arg(long, default_value_t = 0)]
    rounds: u32,
    /// Write the INSERT/UPDATE/DELETE statements that repair the target to FILE (never run).
    #[arg(long, value_name = "FILE")]
    fix_sql: Option<PathBuf>,
    /// Keep progress in FILE; an interrupted run given the same FILE resumes where it stopped.
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Digest(a) => digest(a),
        Cmd::Events(a) => events(a),
        Cmd::Audit(a) => audit(a),
        Cmd::Replay(a) => replay(a),
        Cmd::Merge(a) => merge(a),
        Cmd::Verify(a) => verify(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // A closed pipe (`| head`) is not an error worth a message.
            if e.chain().any(|c| {
                c.downcast_ref::<io::Error>()
                    .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("cutover: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Progress on stderr: a bar with done of total, rate and time left when the total is known, a
/// spinner with the count otherwise; nothing when stderr is not a terminal or with `-q`.
struct TermProgress {
    bar: Option<ProgressBar>,
}

impl TermProgress {
    fn new(quiet: bool) -> TermProgress {
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

fn capture_options(r: &ReadArgs) -> Result<CaptureOptions> {
    let Some(offset) = parse_utc_offset(&r.log_timezone) else {
        anyhow::bail!(
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

/// Prints `result` as asked; exit code 1 when `failed`.
fn print(
    result: &impl Render,
    out: &OutputArgs,
    limit: Option<usize>,
    failed: bool,
) -> Result<ExitCode> {
    let mut w = output(&out.output)?;
    render::write(result, out.format, &RenderOptions { limit }, &mut w)?;
    w.flush()?;
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn digest(a: DigestArgs) -> Result<ExitCode> {
    let run = cutover::digest::DigestRun {
        logs: a.logs,
        capture: capture_options(&a.read)?,
        options: Default::default(),
    };
    let d = cutover::digest::run(&run, &TermProgress::new(a.out.quiet))?;
    print(&d, &a.out, a.limit, false)
}

fn events(a: EventsArgs) -> Result<ExitCode> {
    let mut reader = EventReader::open(&a.logs, capture_options(&a.read)?)?;
    let files: Vec<String> = reader.inputs().iter().map(|i| i.path.clone()).collect();
    let mut out = output(&a.output)?;
    reader.for_each_batch(&TermProgress::new(a.quiet), |batch| {
        for ev in &batch.events {
            render::events_jsonl::write_event(&mut out, ev, &files)?;
        }
        Ok::<(), anyhow::Error>(())
    })?;
    out.flush()?;
    let d = reader.diagnostics();
    if !d.is_empty() && !a.quiet {
        eprintln!(
            "cutover: {} lines skipped; {} notes (run `cutover digest` for details)",
            d.skipped_lines,
            d.counts.values().sum::<u64>()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn audit(a: AuditArgs) -> Result<ExitCode> {
    use cutover::audit::{AuditRun, SchemaSource};
    let profile = match (a.target.as_str(), a.kingbase_mode) {
        ("kingbase", KingbaseMode::Pg) => "kingbase-pg",
        (t, _) => t,
    };
    let mut run = AuditRun::new(a.inputs, profile);
    run.checklists = a.checklists;
    run.schema = match (a.schema, a.source) {
        (Some(p), _) => SchemaSource::Ddl(p),
        (None, Some(url)) => SchemaSource::Server(Endpoint::parse(&url)?),
        (None, None) => SchemaSource::None,
    };
    run.live = a.live.map(|u| Endpoint::parse(&u)).transpose()?;
    run.live_setup = a.live_setup;
    run.options.ts_tables = a.ts_tables;
    run.capture = capture_options(&a.read)?;
    let report = cutover::audit::run(&run, &TermProgress::new(a.out.quiet))?;
    let failed = report.summary.fail > 0;
    print(&report, &a.out, a.limit, failed)
}

fn replay(a: ReplayArgs) -> Result<ExitCode> {
    use cutover::replay::scenario::ReplaySettings;
    let flag = |b: bool| b.then_some(true);
    let flags = ReplaySettings {
        logs: a.logs,
        source: a.source,
        target: a.target,
        profile: a.profile,
        speed: a.speed,
        max_speed: flag(a.max_speed),
        mode: a.mode,
        allow_writes: flag(a.allow_writes),
        rewrite: flag(a.rewrite),
        free_order: flag(a.free_order),
        duration: a.duration,
        shard: a.shard,
        threshold: a.threshold,
        alpha: a.alpha,
        log_timezone: a.log_timezone,
    };
    let file = match &a.scenario {
        Some(p) => ReplaySettings::load(p)?,
        None => ReplaySettings::default(),
    };
    let mut opts = flags.over(file).resolve()?;
    opts.progress = !a.out.quiet && io::stderr().is_terminal();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let report = runtime.block_on(cutover::replay::runner::replay(opts))?;
    print(&report, &a.out, None, report.failed())
}

fn merge(a: MergeArgs) -> Result<ExitCode> {
    let mut reports = Vec::new();
    for p in &a.results {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?;
        let r: cutover::replay::ReplayReport = serde_json::from_str(&text).map_err(|e| {
            anyhow::anyhow!("{}: not a cutover replay JSON result ({e})", p.display())
        })?;
        reports.push(r);
    }
    let merged = cutover::replay::merge::merge(reports).map_err(|e| anyhow::anyhow!("{e}"))?;
    print(&merged, &a.out, None, merged.failed())
}

fn verify(a: VerifyArgs) -> Result<ExitCode> {
    let duration = |s: &str| parse_duration(s).map_err(anyhow::Error::msg);
    let mut opts = cutover::verify::VerifyOptions::new(
        Endpoint::parse(&a.source)?,
        Endpoint::parse(&a.target)?,
    );
    opts.profile = a.profile.or(opts.profile);
    opts.tables = a.tables;
    opts.where_clause = a.where_clause;
    opts.chunk_rows = a.chunk_rows.unwrap_or(opts.chunk_rows).max(1);
    opts.threads = a.threads.unwrap_or(opts.threads).clamp(1, 64);
    opts.max_load = a.max_load;
    opts.live = a.live;
    opts.live_retries = a.live_retries.unwrap_or(opts.live_retries);
    if let Some(d) = &a.live_delay {
        opts.live_delay = duration(d)?;
    }
    opts.fix_sql = a.fix_sql;
    opts.checkpoint = a.checkpoint;
    let progress = TermProgress::new(a.out.quiet);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let on_table = |t: &str| progress.note(t);
    match &a.watch {
        None => {
            progress.phase("verifying", None, Unit::Items);
            let r = runtime.block_on(cutover::verify::verify(&opts, on_table))?;
            progress.finish();
            print(&r, &a.out, None, r.failed())
        }
        Some(every) => {
            let interval = duration(every)?;
            let text = a.out.format == Format::Text && !a.out.quiet;
            progress.phase("verifying", None, Unit::Items);
            let w = runtime.block_on(cutover::verify::watch(
                &opts,
                interval,
                a.rounds,
                on_table,
                |w, _| {
                    if text {
                        eprintln!(
                            "\rround {}: {} differences, {} in flight",
                            w.round, w.total_differences, w.in_flight
                        );
                    }
                },
            ))?;
            progress.finish();
            print(&w, &a.out, None, !w.converged)
        }
    }
}
