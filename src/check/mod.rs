//! Check: the whole path from one scenario file. Audit → replay → verify → report, each through its
//! stage's library entry, each stage's result written as its JSON (`audit.json`, `replay.json`,
//! `verify.json`) into one folder, and the report built from those files as `cutover report` builds
//! it (`report.json`, `.html`, `.md`, `.junit.xml`). Stages meet only in those results.
//!
//! A stage the scenario leaves out is not run, so the report shows it `not-run` (never `go`). A stage
//! that fails to run (an unreachable server, wrong credentials) is recorded with its error; the
//! stages after it still run and the report is still written, with that stage `not-run`.

mod scenario;

pub use scenario::{AuditSection, CheckScenario, ReportSection, VerifySection};

use crate::render::{self, Format, Render, RenderOptions};
use crate::report::{GoNoGoReport, ReportOptions};
use crate::workload::{Progress, Unit};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The stages in their order; the report is the last.
pub const STAGES: [&str; 4] = ["audit", "replay", "verify", "report"];

/// What happens, for a progress display.
#[derive(Clone, Debug)]
pub enum StageEvent {
    /// Stage `index` (1-based) of [`STAGES`] starts.
    Start {
        stage: &'static str,
        index: usize,
        what: String,
    },
    /// It ended and wrote its result.
    Done {
        stage: &'static str,
        index: usize,
        summary: String,
        file: PathBuf,
        seconds: f64,
    },
    /// The scenario leaves it out.
    Skipped {
        stage: &'static str,
        index: usize,
        why: String,
    },
    /// It could not run (`partial` false: no result, its criteria are `not-run`), or its result is
    /// incomplete (`partial` true: written and judged, covering what was done). The message says why.
    Failed {
        stage: &'static str,
        index: usize,
        error: String,
        partial: bool,
    },
}

/// A stage that could not run, or ran only in part.
#[derive(Clone, Debug)]
pub struct StageFailure {
    pub stage: &'static str,
    pub error: String,
    /// True when the stage wrote a result that is incomplete (damaged input, interrupted).
    pub partial: bool,
}

/// What a check produced.
#[derive(Debug)]
pub struct CheckOutcome {
    /// The report, also written as `report.*` in the folder.
    pub report: GoNoGoReport,
    /// Every file written, in order.
    pub files: Vec<PathBuf>,
    /// Stages that could not run (their criteria are `not-run`) or whose result is incomplete.
    pub failures: Vec<StageFailure>,
}

impl CheckOutcome {
    /// 0 for go and go-with-waivers, 1 for no-go, 2 when a stage could not do what was asked (the
    /// report is written all the same).
    pub fn exit_code(&self) -> u8 {
        if !self.failures.is_empty() {
            2
        } else if self.report.failed() {
            1
        } else {
            0
        }
    }
}

/// Why a check could not produce a report.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("cannot write {path}: {message}")]
    Write { path: String, message: String },
    #[error("the report: {0}")]
    Report(#[from] crate::report::ReportError),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
}

/// The files a check writes into its folder.
pub const FILES: [&str; 7] = [
    "audit.json",
    "replay.json",
    "verify.json",
    "report.json",
    "report.html",
    "report.md",
    "report.junit.xml",
];

fn write_file(
    path: &Path,
    f: &dyn Fn(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), CheckError> {
    let err = |e: std::io::Error| CheckError::Write {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let mut w = BufWriter::new(std::fs::File::create(path).map_err(err)?);
    f(&mut w).map_err(err)?;
    w.flush().map_err(err)
}

/// Why a written result is incomplete (damaged inputs, interruptions), as the stage commands say it.
fn incomplete<R: Render>(r: &R) -> Vec<String> {
    let mut out: Vec<String> = r
        .header()
        .damaged_inputs()
        .map(|(path, why)| {
            format!("{path} is damaged, {why}; the result covers only what was read before it")
        })
        .collect();
    out.extend(
        r.incomplete()
            .into_iter()
            .map(|w| format!("incomplete: {w}")),
    );
    out
}

/// Runs the scenario's stages and the report, writing everything into `out`.
///
/// `progress` draws the audit's and verify's phases; `replay_progress` lets the replay draw its own
/// bar on stderr; `on_event` hears each stage start, end, be left out or fail.
pub fn run(
    s: &CheckScenario,
    out: &Path,
    progress: &dyn Progress,
    replay_progress: bool,
    on_event: &mut dyn FnMut(&StageEvent),
) -> Result<CheckOutcome, CheckError> {
    // The gate and the waivers are read before anything runs: a typo there should not cost a replay.
    let report_opts = ReportOptions {
        gate: s.report.gate.clone(),
        waivers: s.report.waivers.clone(),
        baseline: s.report.baseline.clone(),
        ..ReportOptions::default()
    };
    crate::report::build(&report_opts)?;
    std::fs::create_dir_all(out).map_err(|e| CheckError::Write {
        path: out.display().to_string(),
        message: e.to_string(),
    })?;
    // Results of an earlier check in the same folder must not stand in for a stage that fails now.
    for f in FILES {
        let p = out.join(f);
        if p.exists() {
            std::fs::remove_file(&p).map_err(|e| CheckError::Write {
                path: p.display().to_string(),
                message: e.to_string(),
            })?;
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CheckError::Runtime)?;
    let mut files = Vec::new();
    let mut failures = Vec::new();
    let mut opts = report_opts;
    let left_out = |stage: &str| {
        s.left_out
            .iter()
            .find(|(st, _)| *st == stage)
            .map(|(_, why)| why.clone())
    };
    let mut fail = |stage: &'static str,
                    index: usize,
                    error: String,
                    partial: bool,
                    on_event: &mut dyn FnMut(&StageEvent)| {
        on_event(&StageEvent::Failed {
            stage,
            index,
            error: error.clone(),
            partial,
        });
        failures.push(StageFailure {
            stage,
            error,
            partial,
        });
    };

    // 1. Audit.
    let mut rewrites = None;
    if let Some(why) = left_out("audit") {
        on_event(&StageEvent::Skipped {
            stage: "audit",
            index: 1,
            why,
        });
    } else if let Some(profile) = &s.profile {
        on_event(&StageEvent::Start {
            stage: "audit",
            index: 1,
            what: format!("{} capture file(s) for {profile}", s.logs.len()),
        });
        let t = Instant::now();
        let mut run = crate::audit::AuditRun::new(s.logs.clone(), profile);
        run.checklists = s.audit.checklists.clone();
        run.capture = s.capture.clone();
        run.schema = match (&s.audit.schema, s.audit.schema_from_source, &s.source) {
            (Some(p), _, _) => crate::audit::SchemaSource::Ddl(p.clone()),
            (None, true, Some(src)) => crate::audit::SchemaSource::Server(src.clone()),
            _ => crate::audit::SchemaSource::None,
        };
        match crate::audit::run_for_rewrites(&run, progress) {
            Ok((a, for_replay)) => {
                progress.finish();
                let path = out.join("audit.json");
                write_file(&path, &|w| {
                    render::write(&a, Format::Json, &RenderOptions::default(), w)
                })?;
                for why in incomplete(&a) {
                    fail("audit", 1, why, true, on_event);
                }
                on_event(&StageEvent::Done {
                    stage: "audit",
                    index: 1,
                    summary: format!(
                        "{} distinct statement(s): {} fail, {} warn",
                        a.summary.statements, a.summary.fail, a.summary.warn
                    ),
                    file: path.clone(),
                    seconds: t.elapsed().as_secs_f64(),
                });
                if s.replay.as_ref().is_some_and(|r| r.rewrite) {
                    rewrites = Some(std::sync::Arc::new(for_replay));
                }
                opts.audits.push(path.clone());
                files.push(path);
            }
            Err(e) => {
                progress.finish();
                fail("audit", 1, format!("{e}"), false, on_event);
            }
        }
    }

    // 2. Replay. Ctrl-C or SIGTERM stops it with a partial result, and stops the check there: the
    // stages after it are not run, the report is written.
    let mut interrupted = false;
    match &s.replay {
        None => on_event(&StageEvent::Skipped {
            stage: "replay",
            index: 2,
            why: left_out("replay").unwrap_or_default(),
        }),
        Some(r) if r.rewrite && rewrites.is_none() => fail(
            "replay",
            2,
            "it sends the audit's rewrites (rewrite = true) and the audit did not run (its error is above)".into(),
            false,
            on_event,
        ),
        Some(r) => {
            let mut r = r.clone();
            r.rewrites = rewrites;
            r.progress = replay_progress;
            on_event(&StageEvent::Start {
                stage: "replay",
                index: 2,
                what: format!(
                    "{} mode at {}{}",
                    r.mode.name(),
                    r.pace.name(),
                    if r.rewrite { ", with rewrites" } else { "" }
                ),
            });
            let t = Instant::now();
            match runtime.block_on(crate::replay::run(r)) {
                Ok(rep) => {
                    let path = out.join("replay.json");
                    write_file(&path, &|w| {
                        render::write(&rep, Format::Json, &RenderOptions::default(), w)
                    })?;
                    for why in incomplete(&rep) {
                        fail("replay", 2, why, true, on_event);
                    }
                    on_event(&StageEvent::Done {
                        stage: "replay",
                        index: 2,
                        summary: format!(
                            "{} execution(s) compared, {} mismatch(es), {} regression(s)",
                            rep.compared,
                            rep.mismatches,
                            rep.regressions.len()
                        ),
                        file: path.clone(),
                        seconds: t.elapsed().as_secs_f64(),
                    });
                    interrupted = rep.interrupted;
                    opts.replays.push(path.clone());
                    files.push(path);
                }
                Err(e) => fail("replay", 2, format!("{e}"), false, on_event),
            }
        }
    }

    // 3. Verify.
    match (&s.verify, &s.source, &s.target) {
        (Some(_), Some(_), Some(_)) if interrupted => fail(
            "verify",
            3,
            "the check was interrupted (Ctrl-C or SIGTERM) during the replay".into(),
            false,
            on_event,
        ),
        (Some(v), Some(src), Some(tgt)) => {
            let mut target = tgt.clone();
            if let Some(schema) = &v.target_schema {
                target = target.with_schema(schema);
            }
            let mut o = crate::verify::VerifyOptions::new(src.clone(), target);
            o.profile = s.profile.clone();
            o.tables = v.tables.clone();
            o.where_clause = v.where_clause.clone();
            o.chunk_rows = v.chunk_rows.unwrap_or(o.chunk_rows).max(1);
            o.threads = v.threads.unwrap_or(o.threads).clamp(1, 64);
            o.live = v.live.unwrap_or(false);
            on_event(&StageEvent::Start {
                stage: "verify",
                index: 3,
                what: match &o.tables {
                    Some(t) => format!("{} table(s)", t.len()),
                    None => "every table of the source database".into(),
                },
            });
            let t = Instant::now();
            progress.phase("verifying", None, Unit::Notes);
            let result = runtime.block_on(crate::verify::verify(&o, |table| progress.note(table)));
            progress.finish();
            match result {
                Ok(rep) => {
                    let path = out.join("verify.json");
                    write_file(&path, &|w| {
                        render::write(&rep, Format::Json, &RenderOptions::default(), w)
                    })?;
                    for why in incomplete(&rep) {
                        fail("verify", 3, why, true, on_event);
                    }
                    on_event(&StageEvent::Done {
                        stage: "verify",
                        index: 3,
                        summary: format!(
                            "{} table(s), {} row(s) differ, {} not verified",
                            rep.tables.len(),
                            rep.total_differences,
                            rep.not_verified.len()
                        ),
                        file: path.clone(),
                        seconds: t.elapsed().as_secs_f64(),
                    });
                    opts.verifies.push(path.clone());
                    files.push(path);
                }
                Err(e) => fail("verify", 3, format!("{e}"), false, on_event),
            }
        }
        _ => on_event(&StageEvent::Skipped {
            stage: "verify",
            index: 3,
            why: left_out("verify").unwrap_or_default(),
        }),
    }

    // 4. The report, from the files written.
    on_event(&StageEvent::Start {
        stage: "report",
        index: 4,
        what: format!("{} stage result(s)", files.len()),
    });
    let t = Instant::now();
    let report = crate::report::build(&opts)?;
    let ro = RenderOptions::default();
    let path = out.join("report.json");
    write_file(&path, &|w| render::write(&report, Format::Json, &ro, w))?;
    files.push(path.clone());
    let p = out.join("report.html");
    write_file(&p, &|w| render::report_html::write(&report, w))?;
    files.push(p);
    let p = out.join("report.md");
    write_file(&p, &|w| render::write(&report, Format::Markdown, &ro, w))?;
    files.push(p);
    let p = out.join("report.junit.xml");
    write_file(&p, &|w| render::report_junit::write(&report, w))?;
    files.push(p);
    on_event(&StageEvent::Done {
        stage: "report",
        index: 4,
        summary: format!("{}: {}", report.verdict.name(), report.reason),
        file: path,
        seconds: t.elapsed().as_secs_f64(),
    });
    Ok(CheckOutcome {
        report,
        files,
        failures,
    })
}
