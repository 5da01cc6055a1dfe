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
    /// Check every distinct statement of logs or .sql scripts against a target database profile.
    Audit(AuditArgs),
    /// Replay a captured workload against a source and a target, comparing results and latency.
    Replay(ReplayArgs),
    /// Combine the JSON results of sharded replays (`replay --shard K/N --format json`).
    Merge(MergeArgs),
    /// Check that source and target hold the same rows (checksums pushed down, row-level diffs).
    Verify(VerifyArgs),
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
    #[arg(long, value_parser = ["postgres", "kingbase", "kaiwudb"])]
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
    /// Rows per chunk (key range) or per hash bucket.
    #[arg(long, default_value_t = 10_000)]
    chunk_rows: u64,
    /// Sessions per server computing chunk digests (each holds its own snapshot on MySQL; on
    /// PostgreSQL they share one).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Pause while either server runs more than N queries (MySQL Threads_running, PostgreSQL
    /// active backends).
    #[arg(long, value_name = "N")]
    max_load: Option<u64>,
    /// Re-check each difference on the latest data, after a delay that doubles, before reporting
    /// it: rows in flight during double-writes are counted as in flight, not as differences.
    #[arg(long)]
    live: bool,
    /// Re-checks per difference with --live.
    #[arg(long, default_value_t = 4)]
    live_retries: u32,
    /// First delay before a --live re-check (then doubled): 500ms, 2s, …
    #[arg(long, default_value = "500ms")]
    live_delay: String,
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
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    #[arg(long, short)]
    quiet: bool,
    #[arg(long, short)]
    output: Option<PathBuf>,
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
    /// The target profile, for --rewrite (default: postgres for postgres:// targets).
    #[arg(long)]
    profile: Option<String>,
    /// Replay at this multiple of the recorded pace (1 = as recorded).
    #[arg(long, conflicts_with = "max_speed")]
    speed: Option<f64>,
    /// No pauses: per-session order and concurrency are kept.
    #[arg(long)]
    max_speed: bool,
    /// reads (default): only statements that cannot change data; all: writes and transactions too.
    #[arg(long, value_enum)]
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
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// UTC offset of timestamps printed without a zone (MariaDB, MySQL ≤ 5.6), e.g. +08:00.
    #[arg(long, default_value = "+00:00")]
    log_timezone: String,
    #[arg(long, short)]
    quiet: bool,
    #[arg(long, short)]
    output: Option<PathBuf>,
}

#[derive(Args)]
struct MergeArgs {
    /// JSON results of `cutover replay --format json`.
    #[arg(required = true)]
    results: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    #[arg(long, short)]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum AuditFormat {
    Text,
    Markdown,
    Json,
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
    #[arg(long, value_enum, default_value = "text")]
    format: AuditFormat,
    /// Read the target profiles from this directory instead of the built-in ones.
    #[arg(long)]
    checklists: Option<PathBuf>,
    /// Statements listed in detail in text and Markdown (default 50).
    #[arg(long, default_value_t = 50)]
    limit: usize,
    /// The log type, when detection from the first lines is not wanted.
    #[arg(long, value_enum)]
    log_type: Option<LogTypeArg>,
    /// UTC offset of timestamps printed without a zone (MariaDB, MySQL ≤ 5.6), e.g. +08:00.
    #[arg(long, default_value = "+00:00")]
    log_timezone: String,
    /// Never draw progress (drawn only when stderr is a terminal).
    #[arg(long, short)]
    quiet: bool,
    /// Write the report to this file instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
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

fn audit(a: AuditArgs) -> Result<ExitCode> {
    use cutover::audit::{self, AuditOptions, Context as AuditContext, catalog, input, live};
    let profile_id = match (a.target.as_str(), a.kingbase_mode) {
        ("kingbase", KingbaseMode::Pg) => "kingbase-pg".to_string(),
        (t, _) => t.to_string(),
    };
    let profile = catalog::load_profile(&profile_id, a.checklists.as_deref())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // The schema, from DDL or from the source server.
    let mut schema_warnings = Vec::new();
    let schema = match (&a.schema, &a.source) {
        (Some(p), _) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read the schema file {}", p.display()))?;
            let d = cutover::schema::ddl::schema_from_ddl(&text, &p.display().to_string());
            schema_warnings = d.warnings;
            if d.schema.is_empty() {
                bail!(
                    "{}: no CREATE TABLE statement found; give mysqldump --no-data output",
                    p.display()
                );
            }
            Some((d.schema, p.display().to_string()))
        }
        (None, Some(url)) => {
            let ep = cutover::db::Endpoint::parse(url)?;
            let s = runtime.block_on(cutover::schema::source::schema_from_server(&ep))?;
            Some((s, ep.to_string()))
        }
        _ => None,
    };
    let opts = AuditOptions {
        ts_tables: a.ts_tables.clone(),
    };
    let ctx = AuditContext {
        profile: &profile,
        schema: schema.as_ref().map(|(s, _)| s),
        options: &opts,
    };
    let read = ReadArgs {
        logs: a.inputs.clone(),
        log_type: a.log_type,
        log_timezone: a.log_timezone.clone(),
        threads: 0,
        quiet: a.quiet,
    };
    let bar = progress_bar(
        a.quiet,
        "reading {bytes}/{total_bytes} ({bytes_per_sec}, {eta} left)",
    );
    let got = input::read_inputs(&a.inputs, capture_options(&read)?, |done, total| {
        if let Some(b) = &bar {
            if let Some(t) = total {
                b.set_length(t);
            }
            b.set_position(done);
        }
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let statements = audit::audit_all(&got.statements, &ctx);
    let mut notes = got.notes;
    notes.extend(schema_warnings);
    let mut report = audit::build_report(
        &profile,
        a.inputs.iter().map(|p| p.display().to_string()).collect(),
        schema.as_ref().map(|(s, n)| (s, n.clone())),
        statements,
        notes,
    );
    if let Some((s, _)) = &schema {
        report.proposed_ddl = audit::timeseries::proposed_ddl(
            s,
            &opts.ts_tables,
            &mut report.schema_findings,
            &profile,
        );
    }
    if let Some(url) = &a.live {
        let ep = cutover::db::Endpoint::parse(url)?;
        let n = report.statements.len();
        let bar = progress_bar(a.quiet, "asking the target {pos}/{len}");
        if let Some(b) = &bar {
            b.set_length(n as u64);
        }
        let summary = runtime.block_on(async {
            let mut t = live::LiveTarget::open(&ep).await?;
            let schema_ready = if a.live_setup {
                match &schema {
                    Some((s, _)) => {
                        t.setup(s).await?;
                        true
                    }
                    None => {
                        t.summary
                            .setup_errors
                            .push("--live-setup needs --schema or --source".into());
                        false
                    }
                }
            } else {
                false
            };
            t.confirm(&mut report.statements, schema_ready, |i| {
                if let Some(b) = &bar {
                    b.set_position(i as u64);
                }
            })
            .await?;
            let summary = t.summary.clone();
            t.close().await?;
            Ok::<_, cutover::db::DbError>(summary)
        })?;
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        report.summary = audit::summarize(&report.statements);
        report.live = Some(summary);
    }
    let mut out = output(&a.output)?;
    match a.format {
        AuditFormat::Text => report::audit_text::write_text(&mut out, &report, a.limit)?,
        AuditFormat::Markdown => report::audit_text::write_markdown(&mut out, &report, a.limit)?,
        AuditFormat::Json => report::write_json(&mut out, &report)?,
    }
    out.flush()?;
    Ok(if report.summary.fail > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// A progress bar on stderr when it is a terminal and not `quiet`.
fn progress_bar(quiet: bool, template: &str) -> Option<ProgressBar> {
    if quiet || !io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::no_length();
    bar.set_draw_target(ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(&format!("{{spinner}} {template}"))
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Some(bar)
}

/// Replay settings as a scenario file holds them (replays/*.toml).
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Scenario {
    #[serde(default)]
    logs: Vec<PathBuf>,
    source: Option<String>,
    target: Option<String>,
    profile: Option<String>,
    speed: Option<f64>,
    #[serde(default)]
    max_speed: bool,
    mode: Option<cutover::replay::plan::Mode>,
    #[serde(default)]
    allow_writes: bool,
    #[serde(default)]
    rewrite: bool,
    #[serde(default)]
    free_order: bool,
    duration: Option<String>,
    shard: Option<String>,
    threshold: Option<f64>,
    alpha: Option<f64>,
}

/// `30s`, `5m`, `1h`, `90` (seconds).
fn parse_duration(s: &str) -> Result<std::time::Duration> {
    let s = s.trim();
    let (num, mult) = match s.chars().last() {
        Some('s') if s.ends_with("ms") => (&s[..s.len() - 2], 0.001),
        Some('s') => (&s[..s.len() - 1], 1.0),
        Some('m') => (&s[..s.len() - 1], 60.0),
        Some('h') => (&s[..s.len() - 1], 3600.0),
        _ => (s, 1.0),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| anyhow::anyhow!("{s:?}: write a duration like 500ms, 30s, 5m or 1h"))?;
    Ok(std::time::Duration::from_secs_f64(v * mult))
}

fn replay(a: ReplayArgs) -> Result<ExitCode> {
    use cutover::replay::{Pace, ReplayOptions, plan::Mode, stats::RegressionRule};
    let mut sc = Scenario::default();
    if let Some(p) = &a.scenario {
        let text = std::fs::read_to_string(p)
            .with_context(|| format!("cannot read the scenario {}", p.display()))?;
        sc = toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
        // Log paths in a scenario are relative to the scenario file.
        let dir = p.parent().map(|d| d.to_path_buf()).unwrap_or_default();
        sc.logs = sc
            .logs
            .into_iter()
            .map(|l| if l.is_absolute() { l } else { dir.join(l) })
            .collect();
    }
    let logs = if a.logs.is_empty() { sc.logs } else { a.logs };
    if logs.is_empty() {
        bail!("no log to replay: give LOG... or a --scenario with logs = [...]");
    }
    let Some(source) = a.source.or(sc.source) else {
        bail!(
            "--source mysql://user:pass@host:3306/db is required (or source = \"…\" in the scenario)"
        )
    };
    let source = cutover::db::Endpoint::parse(&source)?;
    let target = a
        .target
        .or(sc.target)
        .map(|t| cutover::db::Endpoint::parse(&t))
        .transpose()?;
    let mode = a.mode.or(sc.mode).unwrap_or(Mode::Reads);
    if mode == Mode::All && !(a.allow_writes || sc.allow_writes) {
        bail!(
            "--mode all writes to both databases: use it on restored copies only, and say so with --allow-writes"
        );
    }
    let pace = if a.max_speed || sc.max_speed && a.speed.is_none() {
        Pace::Max
    } else {
        let s = a.speed.or(sc.speed).unwrap_or(1.0);
        if !(s > 0.0 && s.is_finite()) {
            bail!("--speed {s}: give a positive factor (1 = the recorded pace)");
        }
        Pace::Speed(s)
    };
    let shard = match a.shard.or(sc.shard) {
        None => None,
        Some(s) => {
            let parsed = s.split_once('/').and_then(|(k, n)| {
                Some((k.trim().parse::<u32>().ok()?, n.trim().parse::<u32>().ok()?))
            });
            match parsed {
                Some((k, n)) if n > 0 && k < n => Some((k, n)),
                _ => bail!("--shard {s:?}: write it as K/N with 0 <= K < N, e.g. 0/4"),
            }
        }
    };
    let rewrite = a.rewrite || sc.rewrite;
    let profile_id = a.profile.or(sc.profile).or_else(|| {
        target
            .as_ref()
            .filter(|t| t.engine == cutover::db::Engine::Postgres)
            .map(|_| "postgres".to_string())
    });
    let profile = match (&profile_id, rewrite) {
        (Some(p), _) => Some(cutover::audit::catalog::load_profile(p, None)?),
        (None, true) => bail!("--rewrite needs --profile postgres|kingbase|kaiwudb"),
        (None, false) => None,
    };
    let duration = a
        .duration
        .or(sc.duration)
        .map(|d| parse_duration(&d))
        .transpose()?;
    let read = ReadArgs {
        logs: logs.clone(),
        log_type: None,
        log_timezone: a.log_timezone.clone(),
        threads: 0,
        quiet: a.quiet,
    };
    let mut regression = RegressionRule::default();
    if let Some(t) = a.threshold.or(sc.threshold) {
        regression.threshold = t;
    }
    if let Some(x) = a.alpha.or(sc.alpha) {
        regression.alpha = x;
    }
    let opts = ReplayOptions {
        logs,
        capture: capture_options(&read)?,
        source,
        target,
        profile,
        rewrite,
        pace,
        mode,
        duration,
        shard,
        regression,
        tolerance: Default::default(),
        examples: 3,
        keep_order: mode == Mode::All && !(a.free_order || sc.free_order),
        progress: !a.quiet && io::stderr().is_terminal(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let report = runtime.block_on(cutover::replay::runner::replay(opts))?;
    write_replay(&report, a.format, &a.output)
}

/// Prints a replay (or merged) report; exit code 1 when it has mismatches or regressions.
fn write_replay(
    r: &cutover::replay::ReplayReport,
    format: Format,
    path: &Option<PathBuf>,
) -> Result<ExitCode> {
    let mut out = output(path)?;
    match format {
        Format::Text => report::replay_text::write_text(&mut out, r)?,
        Format::Json => report::write_json(&mut out, r)?,
    }
    out.flush()?;
    Ok(if r.failed() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
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
    write_replay(&merged, a.format, &a.output)
}

fn verify(a: VerifyArgs) -> Result<ExitCode> {
    let mut opts = cutover::verify::VerifyOptions::new(
        cutover::db::Endpoint::parse(&a.source)?,
        cutover::db::Endpoint::parse(&a.target)?,
    );
    opts.profile = a.profile;
    opts.tables = a.tables;
    opts.where_clause = a.where_clause;
    opts.chunk_rows = a.chunk_rows.max(1);
    opts.threads = a.threads.clamp(1, 64);
    opts.max_load = a.max_load;
    opts.live = a.live;
    opts.live_retries = a.live_retries;
    opts.live_delay = parse_duration(&a.live_delay)?;
    opts.fix_sql = a.fix_sql;
    opts.checkpoint = a.checkpoint;
    let show = !a.quiet && io::stderr().is_terminal();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let progress = |t: &str| {
        if show {
            eprint!("\rverifying {t:<60}");
        }
    };
    let (r, rounds) = match &a.watch {
        None => (
            runtime.block_on(cutover::verify::verify(&opts, progress))?,
            None,
        ),
        Some(every) => {
            let interval = parse_duration(every)?;
            let text = a.format == Format::Text && !a.quiet;
            let (r, rounds) = runtime.block_on(cutover::verify::watch(
                &opts,
                interval,
                a.rounds,
                progress,
                |w, _| {
                    if text {
                        eprintln!(
                            "\rround {}: {} differences, {} in flight",
                            w.round, w.total_differences, w.in_flight
                        );
                    }
                },
            ))?;
            (r, Some(rounds))
        }
    };
    if show {
        eprint!("\r{:<70}\r", "");
    }
    let mut out = output(&a.output)?;
    match a.format {
        Format::Json => match &rounds {
            None => report::write_json(&mut out, &r)?,
            Some(rounds) => report::write_json(
                &mut out,
                &serde_json::json!({"report": r, "rounds": rounds, "converged": !r.failed()}),
            )?,
        },
        Format::Text => {
            report::verify_text(&mut out, &r)?;
            if let Some(rounds) = &rounds {
                writeln!(
                    out,
                    "watch: {} rounds, {}",
                    rounds.len(),
                    if r.failed() {
                        "not converged"
                    } else {
                        "converged"
                    }
                )?;
            }
        }
    }
    out.flush()?;
    Ok(if r.failed() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
