//! `--watch`: verify again until the data converges.

use super::{options::*, report::*, run::*};
use crate::workload::{Endpoints, Header, SchemaId};
use std::time::Duration;

/// Repeats [`verify`] every `interval` until a round finds no difference (converged) or `rounds`
/// rounds have run (0: no limit). Returns the last round's report and every round's totals.
pub async fn watch(
    opts: &VerifyOptions,
    interval: Duration,
    rounds: u32,
    mut progress: impl FnMut(&str),
    mut on_round: impl FnMut(&WatchRound, &VerifyReport),
) -> Result<WatchReport, VerifyError> {
    let mut header = Header::start(SchemaId::VERIFY_WATCH);
    header.endpoints = Endpoints {
        source: Some(opts.source.to_string()),
        target: Some(opts.target.to_string()),
    };
    let mut history = Vec::new();
    let mut round = 0;
    loop {
        round += 1;
        let r = verify(opts, &mut progress).await?;
        let w = WatchRound {
            round,
            total_differences: r.total_differences,
            in_flight: r.tables.iter().map(|t| t.in_flight).sum(),
        };
        on_round(&w, &r);
        history.push(w);
        let stopped = !r.incomplete.is_empty();
        if stopped || !r.failed() || (rounds > 0 && round >= rounds) {
            header.finish();
            return Ok(WatchReport {
                header,
                converged: !stopped && !r.failed(),
                report: r,
                rounds: history,
            });
        }
        tokio::select! {
            _ = tokio::time::sleep(interval) => {}
            _ = crate::workload::signals::interrupt() => {
                opts.stop.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
    }
}
