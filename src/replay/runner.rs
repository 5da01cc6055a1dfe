//! The replay engine: a reader thread streams the capture, the dispatcher hands each captured
//! session's statements to one worker per side (each with its own connection and clock), and the
//! comparator pairs the two sides' results as they arrive and keeps the statistics.

use super::*;
use super::{
    budget, comparator::*, dispatch::*, gate::*, host::HostSample, job::*, statistics, summary::*,
};
use crate::capture::EventReader;
use crate::db::DbError;
use crate::db::exec::Session;
use crate::workload::{Endpoints, Header, InputRef, SchemaId};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Time given to the first connections before the schedule starts.
const HEADROOM: Duration = Duration::from_millis(200);

/// Runs a replay to the end (or until Ctrl-C or `--duration`) and returns its report.
pub async fn replay(opts: ReplayOptions) -> Result<ReplayReport, ReplayError> {
    // Fail early on unreachable servers and wrong credentials, before any statement is sent; the
    // same connection reads the side's planner statistics.
    let mut unanalyzed = [None, None];
    for (i, ep) in std::iter::once(&opts.source)
        .chain(opts.target.iter())
        .enumerate()
    {
        let mut s = Session::connect(ep).await.map_err(ReplayError::Db)?;
        unanalyzed[i] = statistics::unanalyzed(&mut s).await;
        s.close().await;
    }
    let count = check_connection_budget(&opts).await?;
    let reader = EventReader::open(&opts.logs, opts.capture.clone())
        .map_err(|e| ReplayError::Input(e.to_string()))?;
    let mut header = Header::start(SchemaId::REPLAY);
    header.endpoints = Endpoints {
        source: Some(opts.source.to_string()),
        target: opts.target.as_ref().map(|t| t.to_string()),
    };
    // Until the reader reaches the end (an interrupted replay), the inputs are known by path only.
    let inputs: Vec<InputRef> = reader
        .inputs()
        .iter()
        .map(|i| InputRef::path(i.path.clone()))
        .collect();
    let stop = Arc::new(super::stop::Stop::default());
    let interrupted = Arc::new(AtomicBool::new(false));
    let signalled = Arc::new(AtomicBool::new(false));
    {
        let (stop, interrupted, signalled) = (stop.clone(), interrupted.clone(), signalled.clone());
        tokio::spawn(async move {
            crate::workload::signals::interrupt().await;
            signalled.store(true, Ordering::SeqCst);
            interrupted.store(true, Ordering::SeqCst);
            stop.store(true, Ordering::SeqCst);
            // Statements running now would keep the replay (and the servers) busy: cancel them.
            stop.cancel_running().await;
        });
    }
    if let Some(d) = opts.duration {
        let (stop, interrupted) = (stop.clone(), interrupted.clone());
        tokio::spawn(async move {
            tokio::time::sleep(d).await;
            interrupted.store(true, Ordering::SeqCst);
            stop.store(true, Ordering::SeqCst);
        });
    }
    // Reader thread: batches of events into the async world.
    let (batch_tx, batch_rx) = mpsc::channel(4);
    std::thread::Builder::new()
        .name("cutover-replay-read".into())
        .spawn(move || read_batches(reader, batch_tx))
        .map_err(|e| ReplayError::Input(format!("cannot start the reader thread: {e}")))?;
    let (done_tx, done_rx) = mpsc::channel::<Done>(4096);
    let start = Instant::now() + HEADROOM;
    // The same moment on the wall clock, for the spans `cutover merge` unites.
    let start_unix_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
        + HEADROOM.as_secs_f64();
    let opts = Arc::new(opts);
    let comparator = tokio::spawn(compare_loop(done_rx, opts.clone(), start, count));
    let gates = if opts.keep_order {
        Some((
            Arc::new(OrderGate::new(
                Some(opts.source.clone()),
                opts.break_lock_cycles,
            )),
            Arc::new(OrderGate::new(opts.target.clone(), opts.break_lock_cycles)),
        ))
    } else {
        None
    };
    // The replay's own CPU and its host's, from here to the last result (the count pass above
    // is not the replay's load).
    let single_thread = tokio::runtime::Handle::current().runtime_flavor()
        == tokio::runtime::RuntimeFlavor::CurrentThread;
    let host_start = HostSample::now(single_thread);
    let mut summary = dispatch(
        batch_rx,
        opts.clone(),
        done_tx,
        start,
        stop.clone(),
        gates.clone(),
    )
    .await?;
    if summary.inputs.is_empty() {
        summary.inputs = inputs;
    }
    let acc = comparator
        .await
        .map_err(|e| ReplayError::Input(format!("comparator failed: {e}")))?;
    let host_end = HostSample::now(single_thread);
    // Read once: a signal landing between two reads would give a report whose `interrupted` and
    // `incomplete` disagree.
    let signalled = signalled.load(Ordering::SeqCst);
    let interrupted = interrupted.load(Ordering::SeqCst) || signalled;
    let mut report = finish(acc, summary, &opts, interrupted, start_unix_s);
    let sent = report.sides.values().map(|s| s.statements).sum();
    report.client = Some(host_end.since(&host_start, sent));
    if signalled {
        report.incomplete.push(format!(
            "interrupted by a signal (Ctrl-C or SIGTERM) {:.1} s in: the figures cover what ran before it, and the statements running then were cancelled on the servers",
            Instant::now().saturating_duration_since(start).as_secs_f64()
        ));
    }
    for (side, s) in &report.sides {
        if s.infrastructure_errors > 0 {
            report.incomplete.push(format!(
                "{} statements did not run on the {side} because the client or the infrastructure failed, not the SQL (first: {}): they are not compared; fix the cause (file descriptors, connection limits, the server's health) and replay again",
                s.infrastructure_errors,
                s.first_infrastructure_error.as_deref().unwrap_or("?")
            ));
        }
    }
    for (side, u) in ["source", "target"].into_iter().zip(unanalyzed) {
        if let Some(x) = report.sides.get_mut(side) {
            x.unanalyzed = u;
        }
    }
    header.inputs = std::mem::take(&mut report.header.inputs);
    header.finish();
    report.header = header;
    if let Some((gs, gt)) = gates {
        for (side, g) in [("source", gs), ("target", gt)] {
            if let Some(x) = report.sides.get_mut(side) {
                x.order_wait_timeouts = Some(g.timeouts.load(Ordering::Relaxed));
                x.order_lock_cycles = Some(g.lock_cycles.load(Ordering::Relaxed));
                x.order_waits = Some(g.waits.load(Ordering::Relaxed));
                x.order_wait_s = Some(g.waited_us.load(Ordering::Relaxed) as f64 / 1e6);
                x.order_held_past_grace = Some(g.held_past_grace.load(Ordering::Relaxed));
                x.order_moved = Some(g.moves.load(Ordering::Relaxed));
            }
        }
    }
    Ok(report)
}

/// Refuses a replay that would take more of a server's connections than it may (see `budget`).
/// Returns what the pass over the capture counted (progress shows it as the total).
async fn check_connection_budget(
    opts: &ReplayOptions,
) -> Result<budget::CaptureCount, ReplayError> {
    if opts.progress {
        eprintln!("cutover: counting the sessions the capture holds open at once…");
    }
    let (logs, capture, shard) = (opts.logs.clone(), opts.capture.clone(), opts.shard);
    // The idle release is in wall time: at --speed S it spans S times as much recorded time.
    let window = match opts.pace {
        Pace::Speed(s) => Some((opts.release_idle.as_micros() as f64 * s) as i64),
        Pace::Max => None,
    };
    // A capture of many gigabytes takes a while to count (some 430 MB/s of slow log here): the
    // bar says how far it is, on a terminal only.
    let show = opts.progress;
    let count = tokio::task::spawn_blocking(move || {
        let progress = crate::render::progress::TermProgress::new(!show);
        budget::peak_sessions(&logs, &capture, shard, window, &progress)
    })
    .await
    .map_err(|e| ReplayError::Input(format!("session count failed: {e}")))?
    .map_err(ReplayError::Input)?;
    let sides =
        std::iter::once(("source", &opts.source)).chain(opts.target.iter().map(|t| ("target", t)));
    for (side, ep) in sides {
        let server = budget::server_connections(ep)
            .await
            .map_err(ReplayError::Db)?;
        if let Some(why) =
            budget::refusal(side, ep, count.peak_sessions, server, opts.max_connections)
        {
            return Err(ReplayError::Input(why));
        }
    }
    Ok(count)
}

/// Why a replay could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Db(DbError),
    #[error("{0}")]
    Input(String),
}
