//! The `cutover` command line: flags ([`cli::args`]) → one library entry per subcommand → a printer.
//! Defaults live in the library; this file only wires them.

mod cli;

use anyhow::{Context, Result};
use clap::Parser;
use cli::args::*;
use cutover::capture::{CaptureOptions, EventReader};
use cutover::db::Endpoint;
use cutover::render::progress::TermProgress;
use cutover::render::{self, Format, Render, RenderOptions};
use cutover::workload::time::{parse_duration, parse_utc_offset};
use cutover::workload::{LogType, Progress, Unit};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// mimalloc rather than glibc's malloc: a replay allocates per statement and per row, and
/// glibc's allocator was ~11% of a sysbench replay's CPU on the 2-core machine (2026-12-06).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc asks for transparent huge pages on its arenas (`MADV_HUGEPAGE`), and a replay keeps
/// touching memory it freed and mimalloc gave back: each touch zeroed a fresh 2 MiB page. That was
/// 6% of a sysbench replay's CPU (`clear_page_erms`; 0.2% without). In six interleaved pairs of
/// `--max-speed --free-order` replays the client's CPU per statement was 28.9-30.8 µs without, 30.1-36.6
/// with (2026-12-07); a 1.3 GB digest took the same time either way.
fn no_transparent_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes integers only and changes how later page faults of this
    // process are served; no memory of ours is read or written. Failure leaves THP as it was.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

fn main() -> ExitCode {
    no_transparent_huge_pages();
    let cli = Cli::parse();
    if let Some(path) = &cli.password_file {
        let installed = cutover::db::credentials::PasswordFile::read(path)
            .map_err(anyhow::Error::from)
            .and_then(|f| {
                cutover::db::credentials::use_password_file(f).map_err(anyhow::Error::msg)
            });
        if let Err(e) = installed {
            eprintln!("cutover: --password-file {}", error_text(&e));
            return ExitCode::from(2);
        }
    }
    let result = match cli.command {
        Cmd::Digest(a) => digest(a),
        Cmd::Events(a) => events(a),
        Cmd::Audit(a) => audit(a),
        Cmd::Replay(a) => replay(a),
        Cmd::Merge(a) => merge(a),
        Cmd::Verify(a) => verify(a),
        Cmd::Report(a) => report(a),
        Cmd::Check(a) => check(a),
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
            eprintln!("cutover: {}", error_text(&e));
            ExitCode::from(2)
        }
    }
}

/// An error and its causes on one line, each cause said once: many errors already name their cause
/// in their own message (`cannot open x.log: No such file or directory (os error 2). Check …`), and
/// anyhow's `{:#}` would repeat it after them.
fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if text.is_empty() {
            text = c;
        } else if !text.contains(&c) {
            text.push_str(": ");
            text.push_str(&c);
        }
    }
    text
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
    // A damaged input is an error even though the result of what came before it was written.
    let mut damaged = false;
    for (path, why) in result.header().damaged_inputs() {
        eprintln!(
            "cutover: {path} is damaged, {why}; the result covers only what was read before it"
        );
        damaged = true;
    }
    for why in result.incomplete() {
        eprintln!("cutover: incomplete: {why}");
        damaged = true;
    }
    Ok(if damaged {
        ExitCode::from(2)
    } else if failed {
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
    let mut code = ExitCode::SUCCESS;
    for i in reader.inputs() {
        if let Some(why) = &i.damaged {
            eprintln!(
                "cutover: {} is damaged, {why}; the events written are only those read before it",
                i.path
            );
            code = ExitCode::from(2);
        }
    }
    Ok(code)
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
    run.emit_sql = a.emit_sql;
    run.options.ts_tables = a.ts_tables;
    run.capture = capture_options(&a.read)?;
    let report = cutover::audit::run(&run, &TermProgress::new(a.out.quiet))?;
    let failed = report.failed(match a.fail_on {
        FailOnArg::Warn => cutover::audit::FailOn::Warn,
        FailOnArg::Fail => cutover::audit::FailOn::Fail,
    });
    print(&report, &a.out, a.limit, failed)
}

fn replay(a: ReplayArgs) -> Result<ExitCode> {
    use cutover::replay::ReplaySettings;
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
        break_lock_cycles: flag(a.break_lock_cycles),
        duration: a.duration,
        shard: a.shard,
        threshold: a.threshold,
        alpha: a.alpha,
        log_timezone: a.log_timezone,
        max_connections: a.max_connections,
        release_idle: a.release_idle,
    };
    let file = match &a.scenario {
        Some(p) => ReplaySettings::load(p)?,
        None => ReplaySettings::default(),
    };
    let mut opts = flags.over(file).resolve()?;
    opts.progress = !a.out.quiet && io::stderr().is_terminal();
    if let (true, Some(p), Some(_)) = (opts.rewrite, &opts.profile, &opts.target) {
        // What to rewrite comes from the audit of the same capture, against the source's schema
        // (read-only: the keys an upsert's ON CONFLICT names, the collations, the types).
        let mut run = cutover::audit::AuditRun::new(opts.logs.clone(), &p.id);
        run.capture = opts.capture.clone();
        run.schema = cutover::audit::SchemaSource::Server(opts.source.clone());
        let (_, rewrites) =
            cutover::audit::run_for_rewrites(&run, &TermProgress::new(a.out.quiet))?;
        opts.rewrites = Some(std::sync::Arc::new(rewrites));
    }
    let mut runtime = if cutover::replay::single_threaded_runtime(&opts) {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    let runtime = runtime
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let report = runtime.block_on(cutover::replay::run(opts))?;
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
    let merged = cutover::replay::merge(reports).map_err(|e| anyhow::anyhow!("{e}"))?;
    print(&merged, &a.out, None, merged.failed())
}

fn report(a: ReportArgs) -> Result<ExitCode> {
    let opts = cutover::report::ReportOptions {
        audits: a.audit,
        replays: a.replay,
        verifies: a.verify,
        digest: a.digest,
        gate: a.gate,
        waivers: a.waivers,
        baseline: a.baseline,
        now_us: None,
    };
    if opts.audits.is_empty() && opts.replays.is_empty() && opts.verifies.is_empty() {
        anyhow::bail!(
            "give at least one stage result: --audit, --replay or --verify FILE (each stage's --format json)"
        );
    }
    let r = cutover::report::build(&opts)?;
    let write_to = |path: &PathBuf, f: &dyn Fn(&mut dyn Write) -> io::Result<()>| -> Result<()> {
        let mut w = BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?,
        );
        f(&mut w)?;
        w.flush()?;
        Ok(())
    };
    let ro = RenderOptions { limit: a.limit };
    if let Some(p) = &a.html {
        write_to(p, &|w| render::report_html::write(&r, w))?;
    }
    if let Some(p) = &a.markdown {
        write_to(p, &|w| render::write(&r, Format::Markdown, &ro, w))?;
    }
    if let Some(p) = &a.junit {
        write_to(p, &|w| render::report_junit::write(&r, w))?;
    }
    print(&r, &a.out, a.limit, r.failed())
}

fn check(a: CheckArgs) -> Result<ExitCode> {
    use cutover::check::{CheckScenario, STAGES, StageEvent};
    let scenario = CheckScenario::load(&a.scenario)?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(&scenario.name));
    let show = !a.quiet && io::stderr().is_terminal();
    let progress = TermProgress::new(a.quiet);
    let n = STAGES.len();
    let mut on_event = |e: &StageEvent| match e {
        StageEvent::Start { stage, index, what } if show => {
            eprintln!("[{index}/{n}] {stage}: {what}");
        }
        StageEvent::Done {
            stage,
            index,
            summary,
            file,
            seconds,
        } if show => {
            eprintln!(
                "[{index}/{n}] {stage} done in {seconds:.1} s: {summary} ({})",
                file.display()
            );
        }
        StageEvent::Skipped { stage, index, why } if show => {
            eprintln!("[{index}/{n}] {stage}: not run, {why} (the report shows it not-run)");
        }
        // Always said, piped or not.
        StageEvent::Failed {
            stage,
            error,
            partial: false,
            ..
        } => {
            eprintln!(
                "cutover check: {stage} could not run: {error}\n  the report marks {stage} not-run; fix this and run the check again"
            );
        }
        StageEvent::Failed {
            stage,
            error,
            partial: true,
            ..
        } => {
            eprintln!("cutover check: {stage}: {error}");
        }
        _ => {}
    };
    let outcome = cutover::check::run(&scenario, &out, &progress, show, &mut on_event)?;
    let mut w = BufWriter::new(io::stdout().lock());
    render::write(
        &outcome.report,
        a.format,
        &RenderOptions { limit: a.limit },
        &mut w,
    )?;
    w.flush()?;
    if show {
        eprintln!(
            "cutover check: {} ({} files in {})",
            outcome.report.verdict.name().to_uppercase(),
            outcome.files.len(),
            out.display()
        );
    }
    if !outcome.failures.is_empty() {
        let mut stages: Vec<&str> = outcome.failures.iter().map(|f| f.stage).collect();
        stages.dedup();
        eprintln!(
            "cutover check: {} did not complete (said above); the report in {} judges what ran (exit 2)",
            stages.join(", "),
            out.display()
        );
    }
    Ok(ExitCode::from(outcome.exit_code()))
}

fn verify(a: VerifyArgs) -> Result<ExitCode> {
    let duration = |s: &str| parse_duration(s).map_err(anyhow::Error::msg);
    let mut target = Endpoint::parse(&a.target)?;
    if let Some(s) = &a.target_schema {
        target = target.with_schema(s);
    }
    let mut opts = cutover::verify::VerifyOptions::new(Endpoint::parse(&a.source)?, target);
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
            progress.phase("verifying", None, Unit::Notes);
            let r = runtime.block_on(cutover::verify::verify(&opts, on_table))?;
            progress.finish();
            print(&r, &a.out, None, r.failed())
        }
        Some(every) => {
            let interval = duration(every)?;
            let text = a.out.format == Format::Text && !a.out.quiet;
            progress.phase("verifying", None, Unit::Notes);
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
