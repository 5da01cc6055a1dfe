//! The replay engine: a reader thread streams the capture, the dispatcher hands each captured
//! session's statements to one worker per side (each with its own connection and clock), and the
//! comparator pairs the two sides' results as they arrive and keeps the statistics.

use super::*;
use super::{comparator::*, dispatch::*, gate::*, job::*, summary::*};
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
    // Fail early on unreachable servers and wrong credentials, before any statement is sent.
    for ep in std::iter::once(&opts.source).chain(opts.target.iter()) {
        Session::connect(ep)
            .await
            .map_err(ReplayError::Db)?
            .close()
            .await;
    }
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
    let stop = Arc::new(AtomicBool::new(false));
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let (stop, interrupted) = (stop.clone(), interrupted.clone());
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                interrupted.store(true, Ordering::SeqCst);
                stop.store(true, Ordering::SeqCst);
            }
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
    let opts = Arc::new(opts);
    let comparator = tokio::spawn(compare_loop(done_rx, opts.clone(), start));
    let gates = if opts.keep_order {
        Some((Arc::new(OrderGate::new()), Arc::new(OrderGate::new())))
    } else {
        None
    };
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
    let mut report = finish(acc, summary, &opts, interrupted.load(Ordering::SeqCst));
    header.inputs = std::mem::take(&mut report.header.inputs);
    header.finish();
    report.header = header;
    if let Some((gs, gt)) = gates {
        if let Some(x) = report.sides.get_mut("source") {
            x.order_wait_timeouts = Some(gs.timeouts.load(Ordering::Relaxed));
        }
        if let Some(x) = report.sides.get_mut("target") {
            x.order_wait_timeouts = Some(gt.timeouts.load(Ordering::Relaxed));
        }
    }
    Ok(report)
}

/// Why a replay could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Db(DbError),
    #[error("{0}")]
    Input(String),
}
