//! The connection budget: replay opens one connection per captured session per side, so before the
//! first statement it counts how many sessions the capture holds open at once and checks that the
//! servers can spare that many. A replay that would fill a server's `max_connections` locks the
//! application out; it is refused, with the numbers, unless the user allows it.

use super::dispatch::shard_of;
use crate::capture::{CaptureOptions, EventReader};
use crate::db::exec::Session;
use crate::db::{DbError, Endpoint, Engine};
use crate::workload::{Command, Progress};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::path::PathBuf;

/// The share of a server's free connections a replay takes unless told otherwise.
pub const DEFAULT_SHARE: f64 = 0.5;

/// The most connections the capture's sessions hold at the same time, counted over the sessions
/// this shard replays. A session holds one from an event until its `Quit`, or, when `idle_window_us`
/// is given, until that long (in recorded time) passes without an event: a worker idle outside a
/// transaction gives its connection back (`--release-idle`, 30 s by default) and reconnects, its state restored, on
/// its next statement. Without a window (`--max-speed`, where recorded time means nothing) a
/// session holds its connection to the end.
/// What the pass over the capture before the replay learned: the connections it needs, and the
/// statements it will replay and over how much recorded time (for progress and pace).
#[derive(Clone, Copy, Debug, Default)]
pub struct CaptureCount {
    pub peak_sessions: u64,
    /// Query and Execute events of the sessions this shard replays.
    pub statements: u64,
    /// First and last recorded start, µs (None: the log has no times).
    pub span_us: Option<(i64, i64)>,
    /// Every start falls on a whole second (MariaDB's general log): the span is a second longer.
    pub whole_seconds: bool,
}

impl CaptureCount {
    /// The recorded rate, statements per second (None without times).
    pub fn recorded_rate(&self) -> Option<f64> {
        let (a, b) = self.span_us?;
        let span = (b - a) as f64 / 1e6 + if self.whole_seconds { 1.0 } else { 0.0 };
        (span > 0.0).then(|| self.statements as f64 / span)
    }
}

pub fn peak_sessions(
    logs: &[PathBuf],
    capture: &CaptureOptions,
    shard: Option<(u32, u32)>,
    idle_window_us: Option<i64>,
    progress: &dyn Progress,
) -> Result<CaptureCount, String> {
    let mut reader = EventReader::open(logs, capture.clone()).map_err(|e| e.to_string())?;
    // Session → time of its last event; events in log order, with expiry from the front.
    let mut last: FxHashMap<u64, i64> = FxHashMap::default();
    let mut recent: VecDeque<(i64, u64)> = VecDeque::new();
    let mut now = i64::MIN;
    let mut peak = 0u64;
    let mut count = CaptureCount {
        whole_seconds: true,
        ..Default::default()
    };
    reader
        .for_each_batch(progress, |batch| {
            for ev in &batch.events {
                if let Some((k, n)) = shard
                    && shard_of(ev.session, n) != k
                {
                    continue;
                }
                now = now.max(ev.start_us.unwrap_or(now));
                if matches!(ev.command, Command::Query | Command::Execute) {
                    count.statements += 1;
                    if let Some(t) = ev.start_us {
                        count.whole_seconds &= t % 1_000_000 == 0;
                        count.span_us =
                            Some(count.span_us.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
                    }
                }
                if let Some(w) = idle_window_us {
                    while let Some(&(t, sess)) = recent.front() {
                        if t >= now.saturating_sub(w) {
                            break;
                        }
                        recent.pop_front();
                        if last.get(&sess) == Some(&t) {
                            last.remove(&sess);
                        }
                    }
                }
                match ev.command {
                    Command::Quit => {
                        last.remove(&ev.session);
                    }
                    Command::Query | Command::Execute | Command::InitDb | Command::Connect => {
                        last.insert(ev.session, now);
                        if idle_window_us.is_some() {
                            recent.push_back((now, ev.session));
                        }
                        peak = peak.max(last.len() as u64);
                    }
                    _ => {}
                }
            }
            Ok::<(), crate::capture::CaptureError>(())
        })
        .map_err(|e| e.to_string())?;
    count.peak_sessions = peak;
    Ok(count)
}

/// A server's connection limit and what is in use now.
#[derive(Clone, Copy, Debug)]
pub struct ServerConnections {
    /// Connections ordinary users may open (PostgreSQL: max_connections less the superuser
    /// reserve).
    pub limit: u64,
    pub in_use: u64,
}

impl ServerConnections {
    pub fn free(&self) -> u64 {
        self.limit.saturating_sub(self.in_use)
    }
}

/// Reads a server's connection limit and current use (read-only queries).
pub async fn server_connections(ep: &Endpoint) -> Result<ServerConnections, DbError> {
    let mut s = Session::connect(ep).await?;
    let q = match ep.engine {
        Engine::MySql => {
            "SELECT @@max_connections, (SELECT COUNT(*) FROM information_schema.PROCESSLIST)"
        }
        Engine::Postgres => {
            "SELECT current_setting('max_connections')::int - COALESCE(current_setting('superuser_reserved_connections', true)::int, 0), (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')"
        }
    };
    let o = s.execute(q).await;
    s.close().await;
    let o = o?;
    let num = |i: usize| {
        o.sets
            .first()
            .and_then(|set| set.rows.first())
            .and_then(|r| r.get(i))
            .and_then(|v| v.as_text())
            .and_then(|t| t.trim().parse::<u64>().ok())
    };
    Ok(ServerConnections {
        limit: num(0).unwrap_or(u64::MAX),
        // The session that asked is closed now.
        in_use: num(1).unwrap_or(0).saturating_sub(1),
    })
}

/// Why a replay may not open the connections it needs, or `None` when it may.
/// `max_connections`: the user's own cap (`--max-connections`), else `DEFAULT_SHARE` of the free.
pub fn refusal(
    side: &str,
    ep: &Endpoint,
    peak: u64,
    server: ServerConnections,
    max_connections: Option<u64>,
) -> Option<String> {
    let free = server.free();
    // One more than the sessions: replay's own check connection at the start.
    let needed = peak + 1;
    let (allowed, how) = match max_connections {
        Some(m) => (m.min(free), format!("--max-connections {m}")),
        None => (
            (free as f64 * DEFAULT_SHARE).floor() as u64,
            format!(
                "by default cutover takes at most {:.0}% of the free connections",
                DEFAULT_SHARE * 100.0
            ),
        ),
    };
    if needed <= allowed {
        return None;
    }
    let limit = if server.limit == u64::MAX {
        "an unknown number of".to_string()
    } else {
        server.limit.to_string()
    };
    Some(format!(
        "the capture keeps up to {peak} sessions busy at once (each holds a connection until it has been idle for the --release-idle time, 30 s by default), so replay would open {needed} connections to the {side} ({ep}); that server allows {limit} connections and {} are in use, {free} free, and {how}: at most {allowed}. \
         Let idle sessions share connections sooner (--release-idle 1s: a session reconnects, its state restored, when it runs again), replay a shard at a time (--shard K/N divides the sessions), raise max_connections on a server that is not in production, or give --max-connections N (at most the {free} free) if the application can spare them",
        server.in_use
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Quiet;

    #[test]
    fn the_recorded_rate_counts_a_whole_second_log_s_last_second() {
        let shipped = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("corpora/sysbench/general-text.log.gz");
        let c = peak_sessions(&[shipped], &CaptureOptions::default(), None, None, &Quiet).unwrap();
        // 2,995 statements, every one stamped with the same whole second.
        assert_eq!(c.statements, 2995);
        assert!(c.whole_seconds);
        assert_eq!(c.recorded_rate(), Some(2995.0));
        let micro = CaptureCount {
            peak_sessions: 1,
            statements: 300,
            span_us: Some((0, 2_000_000)),
            whole_seconds: false,
        };
        assert_eq!(micro.recorded_rate(), Some(150.0));
        assert_eq!(CaptureCount::default().recorded_rate(), None);
    }

    #[test]
    fn refuses_with_the_numbers() {
        let ep = Endpoint::parse("mysql://root:pw@127.0.0.1:3306/test").unwrap();
        let server = ServerConnections {
            limit: 151,
            in_use: 11,
        };
        let why = refusal("source", &ep, 200, server, None).unwrap();
        for n in [
            "200 sessions busy",
            "201 connections",
            "allows 151",
            "11 are in use",
            "140 free",
            "at most 70",
        ] {
            assert!(why.contains(n), "{n}: {why}");
        }
        assert!(!why.contains("pw@"), "{why}");
        assert!(refusal("source", &ep, 60, server, None).is_none());
        assert!(refusal("source", &ep, 100, server, Some(120)).is_none());
        // Never more than the free connections, whatever the user says.
        assert!(refusal("source", &ep, 150, server, Some(1000)).is_some());
    }
}
