//! The digest: per-fingerprint statistics over an event stream, in the spirit of pt-query-digest.
//!
//! [`Digester`] folds events in as they stream by, in memory bounded by the number of distinct
//! fingerprints, sessions and seconds, never by the number of events. [`Digest`] is the one result type
//! every printer (text, JSON) renders.

mod concurrency;
mod latency;

use crate::capture::{CaptureError, CaptureOptions, EventReader};
use crate::sql::fingerprint::{fingerprint_id, format_id};
use crate::workload::Progress;
use crate::workload::diag::{Diagnostics, Issue};
use crate::workload::time::format_iso_micros;
use crate::workload::{Command, Event, Header, InputRef, InputSummary, SchemaId, TimePrecision};
use concurrency::ConcurrencyTracker;
use latency::LatencyRecorder;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Tuning of the digest.
#[derive(Clone, Debug)]
pub struct DigestOptions {
    /// Longest sample statement kept per fingerprint, in bytes.
    pub sample_bytes: usize,
    /// Longest fingerprint text kept, in bytes (ids are computed on the whole text).
    pub fingerprint_bytes: usize,
    /// Width of the QPS-over-time buckets; `None` picks one that gives at most ~60 buckets.
    pub qps_interval_s: Option<u64>,
}

impl Default for DigestOptions {
    fn default() -> Self {
        DigestOptions {
            sample_bytes: 4096,
            fingerprint_bytes: 16 << 10,
            qps_interval_s: None,
        }
    }
}

/// Databases listed per fingerprint before the rest are only counted.
const MAX_DATABASES: usize = 16;
/// Seconds kept while counting distinct active sessions per second.
const ACTIVE_WINDOW_S: i64 = 120;

#[derive(Clone, Copy, Default)]
struct Sum {
    total: u128,
    max: u64,
    seen: u64,
}

impl Sum {
    fn add(&mut self, v: Option<u64>) {
        if let Some(v) = v {
            self.total += v as u128;
            self.max = self.max.max(v);
            self.seen += 1;
        }
    }
}

struct SampleEvent {
    sql: String,
    bytes: usize,
    duration_us: Option<u64>,
    session: u64,
    start_us: Option<i64>,
    file: u32,
    line: u64,
}

struct Class {
    command: Command,
    count: u64,
    latency: LatencyRecorder,
    lock: Sum,
    rows_sent: Sum,
    rows_examined: Sum,
    rows_affected: Sum,
    errors: u64,
    first_us: Option<i64>,
    last_us: Option<i64>,
    databases: Vec<String>,
    more_databases: HashSet<u64>,
    sample: Option<SampleEvent>,
}

/// Folds events into per-fingerprint statistics.
pub struct Digester {
    opts: DigestOptions,
    texts: HashMap<u64, String>,
    truncated_texts: HashSet<u64>,
    classes: HashMap<u64, Class>,
    admin_ids: HashMap<Command, u64>,
    events: u64,
    statements: u64,
    /// Events per command, indexed by `Command as usize`.
    commands: [u64; Command::ALL.len()],
    sessions: HashSet<u64>,
    first_us: Option<i64>,
    last_us: Option<i64>,
    /// Per second of start time: (statements, their total duration in µs).
    statements_per_second: BTreeMap<i64, (u64, u64)>,
    /// The second being tallied, before it goes into `statements_per_second` (events mostly come in
    /// time order, so this saves a map update per event).
    current_second: Option<(i64, u64, u64)>,
    precise_events: u64,
    second_events: u64,
    untimed_events: u64,
    concurrency: ConcurrencyTracker,
    busy_us: u128,
    active: BTreeMap<i64, HashSet<u64>>,
    /// The second whose active sessions are being collected, out of `active` while it is.
    active_current: Option<(i64, HashSet<u64>)>,
    peak_active: (u64, i64),
}

impl Digester {
    pub fn new(opts: DigestOptions) -> Digester {
        Digester {
            opts,
            texts: HashMap::default(),
            truncated_texts: HashSet::default(),
            classes: HashMap::default(),
            admin_ids: HashMap::default(),
            events: 0,
            statements: 0,
            commands: [0; Command::ALL.len()],
            sessions: HashSet::default(),
            first_us: None,
            last_us: None,
            statements_per_second: BTreeMap::new(),
            current_second: None,
            active_current: None,
            precise_events: 0,
            second_events: 0,
            untimed_events: 0,
            concurrency: ConcurrencyTracker::default(),
            busy_us: 0,
            active: BTreeMap::new(),
            peak_active: (0, 0),
        }
    }

    /// Registers fingerprint texts (from a capture batch) before the events that use them.
    pub fn add_fingerprints(&mut self, fps: impl IntoIterator<Item = (u64, String)>) {
        for (id, mut text) in fps {
            if text.len() > self.opts.fingerprint_bytes {
                let mut cut = self.opts.fingerprint_bytes;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
                self.truncated_texts.insert(id);
            }
            self.texts.entry(id).or_insert(text);
        }
    }

    /// The class an event is counted in: its fingerprint for statements, `administrator command: X`
    /// for everything else (as pt-query-digest groups them).
    fn class_id(&mut self, ev: &Event) -> u64 {
        // Statements carry their fingerprint and other commands their `administrator command: X`;
        // a Prepare carries the fingerprint of the statement it prepares (so Executes can be matched
        // to it) but is counted as the command.
        if ev.command != Command::Prepare {
            return ev.fingerprint_id;
        }
        let texts = &mut self.texts;
        *self.admin_ids.entry(ev.command).or_insert_with(|| {
            let fp = ev.command.admin_fingerprint();
            let id = fingerprint_id(fp.as_bytes());
            texts.entry(id).or_insert(fp);
            id
        })
    }

    pub fn add(&mut self, ev: &Event) {
        self.events += 1;
        self.commands[ev.command as usize] += 1;
        self.sessions.insert(ev.session);
        if ev.command.is_statement() {
            self.statements += 1;
        }
        let end_us = ev.start_us.map(|s| s + ev.duration_us.unwrap_or(0) as i64);
        match (ev.start_us, ev.time_precision) {
            (None, _) | (_, TimePrecision::Unknown) => self.untimed_events += 1,
            (Some(start), precision) => {
                let end = end_us.unwrap_or(start);
                self.first_us = Some(self.first_us.map_or(start, |f| f.min(start)));
                self.last_us = Some(self.last_us.map_or(end, |l| l.max(end)));
                let sec = start.div_euclid(1_000_000);
                if ev.command.is_statement() {
                    let busy = ev.duration_us.unwrap_or(0);
                    match &mut self.current_second {
                        Some((s, n, b)) if *s == sec => {
                            *n += 1;
                            *b += busy;
                        }
                        _ => {
                            self.flush_second();
                            self.current_second = Some((sec, 1, busy));
                        }
                    }
                    self.note_active(sec, ev.session);
                }
                match precision {
                    TimePrecision::Microsecond => {
                        self.precise_events += 1;
                        if ev.command.is_statement()
                            && let Some(d) = ev.duration_us
                        {
                            self.concurrency.add(start, start + d as i64);
                        }
                    }
                    _ => self.second_events += 1,
                }
            }
        }
        if let Some(d) = ev.duration_us
            && ev.command.is_statement()
        {
            self.busy_us += d as u128;
        }

        let id = self.class_id(ev);
        let opts_sample = self.opts.sample_bytes;
        let class = self.classes.entry(id).or_insert_with(|| Class {
            command: ev.command,
            count: 0,
            latency: LatencyRecorder::default(),
            lock: Sum::default(),
            rows_sent: Sum::default(),
            rows_examined: Sum::default(),
            rows_affected: Sum::default(),
            errors: 0,
            first_us: None,
            last_us: None,
            databases: Vec::new(),
            more_databases: HashSet::default(),
            sample: None,
        });
        class.count += 1;
        if let Some(d) = ev.duration_us {
            class.latency.record(d);
        }
        class.lock.add(ev.lock_us);
        class.rows_sent.add(ev.rows_sent);
        class.rows_examined.add(ev.rows_examined);
        class.rows_affected.add(ev.rows_affected);
        if ev.errno.is_some_and(|e| e != 0) {
            class.errors += 1;
        }
        if let Some(s) = ev.start_us {
            class.first_us = Some(class.first_us.map_or(s, |f| f.min(s)));
            class.last_us = Some(class.last_us.map_or(s, |l| l.max(s)));
        }
        if let Some(db) = &ev.db
            && !class.databases.iter().any(|d| d.as_str() == db.as_ref())
        {
            if class.databases.len() < MAX_DATABASES {
                class.databases.push(db.to_string());
            } else if class.more_databases.len() < 100_000 {
                class
                    .more_databases
                    .insert(xxhash_rust::xxh3::xxh3_64(db.as_bytes()));
            }
        }
        // The sample is the slowest execution (the first, when the log has no durations).
        let replace = match &class.sample {
            None => true,
            Some(s) => ev.duration_us.unwrap_or(0) > s.duration_us.unwrap_or(0),
        };
        if replace && ev.command != Command::Connect {
            let bytes = ev.sql.len();
            let mut text = String::from_utf8_lossy(&ev.sql[..bytes.min(opts_sample)]).into_owned();
            if bytes > opts_sample && text.ends_with('\u{FFFD}') {
                text.pop();
            }
            class.sample = Some(SampleEvent {
                sql: text,
                bytes,
                duration_us: ev.duration_us,
                session: ev.session,
                start_us: ev.start_us,
                file: ev.origin.file,
                line: ev.origin.line,
            });
        }
    }

    fn flush_second(&mut self) {
        if let Some((sec, n, busy)) = self.current_second.take() {
            let slot = self.statements_per_second.entry(sec).or_insert((0, 0));
            slot.0 += n;
            slot.1 += busy;
        }
    }

    fn note_active(&mut self, sec: i64, session: u64) {
        if let Some((cur, set)) = &mut self.active_current
            && *cur == sec
        {
            set.insert(session);
            if set.len() as u64 > self.peak_active.0 {
                self.peak_active = (set.len() as u64, sec);
            }
            return;
        }
        // Another second: park the current one and take this one's set.
        if let Some((cur, set)) = self.active_current.take() {
            self.active.insert(cur, set);
        }
        let newest = self
            .active
            .last_key_value()
            .map_or(sec, |(k, _)| (*k).max(sec));
        if sec < newest - ACTIVE_WINDOW_S {
            return;
        }
        let set = self.active.remove(&sec).unwrap_or_default();
        self.active_current = Some((sec, set));
        while self
            .active
            .first_key_value()
            .is_some_and(|(&oldest, _)| oldest < newest - ACTIVE_WINDOW_S)
        {
            self.active.pop_first();
        }
        self.note_active(sec, session);
    }

    /// The finished digest.
    pub fn finish(mut self, inputs: Vec<InputSummary>, diagnostics: &Diagnostics) -> Digest {
        self.flush_second();
        let total_time_us: u128 = self
            .classes
            .values()
            .filter(|c| c.command.is_statement())
            .map(|c| c.latency.summary().map_or(0, |s| s.total_us))
            .sum();
        let mut classes: Vec<(u64, Class)> = self.classes.drain().collect();
        classes.sort_by(|(ia, a), (ib, b)| {
            let ta = a.latency.summary().map_or(0, |s| s.total_us);
            let tb = b.latency.summary().map_or(0, |s| s.total_us);
            tb.cmp(&ta).then(b.count.cmp(&a.count)).then(ia.cmp(ib))
        });
        let events = self.events.max(1) as f64;
        let fingerprints = classes
            .into_iter()
            .enumerate()
            .map(|(i, (id, c))| {
                let lat = c.latency.summary();
                FingerprintStats {
                    rank: i + 1,
                    id: format_id(id),
                    fingerprint: self.texts.get(&id).cloned().unwrap_or_default(),
                    fingerprint_truncated: self.truncated_texts.contains(&id),
                    command: c.command,
                    count: c.count,
                    share: c.count as f64 / events,
                    query_time: lat.map(|s| TimeStats {
                        total_s: s.total_us as f64 / 1e6,
                        share: if total_time_us > 0 {
                            s.total_us as f64 / total_time_us as f64
                        } else {
                            0.0
                        },
                        min_s: s.min_us as f64 / 1e6,
                        avg_s: s.avg_us / 1e6,
                        p50_s: s.p50_us as f64 / 1e6,
                        p95_s: s.p95_us as f64 / 1e6,
                        p99_s: s.p99_us as f64 / 1e6,
                        max_s: s.max_us as f64 / 1e6,
                    }),
                    lock_time_total_s: (c.lock.seen > 0).then(|| c.lock.total as f64 / 1e6),
                    rows_sent: RowStats::of(&c.rows_sent),
                    rows_examined: RowStats::of(&c.rows_examined),
                    rows_affected: RowStats::of(&c.rows_affected),
                    errors: c.errors,
                    first_seen: c.first_us.map(format_iso_micros),
                    last_seen: c.last_us.map(format_iso_micros),
                    databases: c.databases,
                    more_databases: c.more_databases.len() as u64,
                    sample: c.sample.map(|s| Sample {
                        truncated: s.bytes > s.sql.len(),
                        bytes: s.bytes,
                        sql: s.sql,
                        session: s.session,
                        start: s.start_us.map(format_iso_micros),
                        query_time_s: s.duration_us.map(|d| d as f64 / 1e6),
                        file: inputs
                            .get(s.file as usize)
                            .map(|i| i.path.clone())
                            .unwrap_or_default(),
                        line: s.line,
                    }),
                }
            })
            .collect();

        let time = match (self.first_us, self.last_us) {
            (Some(f), Some(l)) => Some(TimeSpan {
                first: format_iso_micros(f),
                last: format_iso_micros(l),
                first_us: f,
                last_us: l,
                seconds: (l - f) as f64 / 1e6,
                whole_seconds: (l.div_euclid(1_000_000) - f.div_euclid(1_000_000) + 1).max(1)
                    as u64,
            }),
            _ => None,
        };
        let precision = match (self.precise_events > 0, self.second_events > 0) {
            (true, false) => LogPrecision::Microsecond,
            (false, true) => LogPrecision::Second,
            (true, true) => LogPrecision::Mixed,
            (false, false) => LogPrecision::None,
        };
        let qps = self.qps(time.as_ref());
        let peak = self.concurrency.finish();
        let busiest_second = self
            .statements_per_second
            .iter()
            .map(|(s, n)| (n.1, *s))
            .max_by_key(|(b, s)| (*b, -s))
            .filter(|(b, _)| *b > 0);
        let rate_span_s = time.as_ref().map_or(0.0, |t| t.whole_seconds as f64);
        let has_durations = self.busy_us > 0;
        let concurrency = Concurrency {
            peak_in_flight: peak.map(|p| p.0),
            peak_at: peak.map(|p| format_iso_micros(p.1)),
            late_statements: self.concurrency.late,
            average_in_flight: (has_durations && rate_span_s > 0.0)
                .then(|| self.busy_us as f64 / 1e6 / rate_span_s),
            peak_second_average_in_flight: busiest_second.map(|(b, _)| b as f64 / 1e6),
            peak_second_at: busiest_second.map(|(_, s)| format_iso_micros(s * 1_000_000)),
            peak_active_sessions_per_second: self.peak_active.0,
            peak_active_at: (self.peak_active.0 > 0)
                .then(|| format_iso_micros(self.peak_active.1 * 1_000_000)),
            note: if peak.is_some() {
                None
            } else if has_durations {
                Some("the log times statements to the second only, so statements in flight cannot be counted exactly; see peak_second_average_in_flight".into())
            } else {
                Some("the log records no durations (general log): statements in flight cannot be counted; see peak_active_sessions_per_second".into())
            },
        };
        let commands = Command::ALL
            .iter()
            .zip(self.commands)
            .filter(|(_, n)| *n > 0)
            .map(|(c, n)| (c.server_name().to_string(), n))
            .collect();
        let mut header = Header::start(SchemaId::DIGEST);
        header.inputs = inputs.iter().map(InputRef::from).collect();
        Digest {
            header,
            logs: inputs,
            events: self.events,
            statements: self.statements,
            commands,
            sessions: self.sessions.len() as u64,
            untimed_events: self.untimed_events,
            time_precision: precision,
            time,
            qps,
            concurrency,
            fingerprints,
            diagnostics: DiagnosticsReport::from(diagnostics),
        }
    }

    fn qps(&self, span: Option<&TimeSpan>) -> Qps {
        let Some(span) = span else {
            return Qps {
                average: None,
                peak: 0,
                peak_at: None,
                interval_s: 0,
                series: Vec::new(),
            };
        };
        let secs = (span.seconds.ceil() as u64).max(1);
        let interval = self.opts.qps_interval_s.unwrap_or_else(|| {
            [1u64, 5, 10, 30, 60, 300, 600, 1800, 3600, 21_600, 86_400]
                .into_iter()
                .find(|i| secs / i <= 60)
                .unwrap_or(86_400 * 7)
        });
        let (peak, peak_sec) = self
            .statements_per_second
            .iter()
            .map(|(s, n)| (n.0, *s))
            .max_by_key(|(n, s)| (*n, -s))
            .unwrap_or((0, 0));
        let mut series: BTreeMap<i64, u64> = BTreeMap::new();
        for (&sec, &(n, _)) in &self.statements_per_second {
            let bucket = sec.div_euclid(interval as i64) * interval as i64;
            *series.entry(bucket).or_insert(0) += n;
        }
        let series = series
            .into_iter()
            .map(|(b, n)| QpsPoint {
                start: format_iso_micros(b * 1_000_000),
                statements: n,
                qps: n as f64 / interval as f64,
            })
            .collect();
        Qps {
            average: (span.whole_seconds > 0)
                .then(|| self.statements as f64 / span.whole_seconds as f64),
            peak,
            peak_at: (peak > 0).then(|| format_iso_micros(peak_sec * 1_000_000)),
            interval_s: interval,
            series,
        }
    }
}

/// What `cutover digest` reads.
#[derive(Clone, Debug)]
pub struct DigestRun {
    pub logs: Vec<PathBuf>,
    pub capture: CaptureOptions,
    pub options: DigestOptions,
}

/// Reads the logs and digests them: the library entry of `cutover digest`.
pub fn run(r: &DigestRun, progress: &dyn Progress) -> Result<Digest, CaptureError> {
    let started = crate::workload::header::now_iso();
    let mut reader = EventReader::open(&r.logs, r.capture.clone())?;
    let mut digester = Digester::new(r.options.clone());
    reader.for_each_batch(progress, |batch| {
        digester.add_fingerprints(batch.new_fingerprints);
        for ev in &batch.events {
            digester.add(ev);
        }
        Ok::<(), CaptureError>(())
    })?;
    let mut d = digester.finish(reader.inputs().to_vec(), reader.diagnostics());
    d.header.started = started;
    d.header.finish();
    Ok(d)
}

/// How finely the whole log timed its events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogPrecision {
    Microsecond,
    Second,
    /// Some events to the microsecond, some to the second (logs of several servers).
    Mixed,
    /// No event has a time.
    None,
}

impl LogPrecision {
    pub fn name(self) -> &'static str {
        match self {
            LogPrecision::Microsecond => "microsecond",
            LogPrecision::Second => "second",
            LogPrecision::Mixed => "mixed",
            LogPrecision::None => "none",
        }
    }
}

/// Everything `cutover digest` reports (`cutover.digest/1`); printers render it as text, Markdown
/// or JSON.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Digest {
    #[serde(flatten)]
    pub header: Header,
    /// Each log as read: type, sizes, lines and events.
    pub logs: Vec<InputSummary>,
    /// Events read: statements plus commands (Connect, Quit, Prepare, …).
    pub events: u64,
    /// Statements run: `Query` and `Execute` events.
    pub statements: u64,
    /// Events by server command name.
    pub commands: BTreeMap<String, u64>,
    /// Distinct thread ids.
    pub sessions: u64,
    pub untimed_events: u64,
    /// How finely the log timed events.
    pub time_precision: LogPrecision,
    pub time: Option<TimeSpan>,
    pub qps: Qps,
    pub concurrency: Concurrency,
    /// Ranked by total query time, then count.
    pub fingerprints: Vec<FingerprintStats>,
    pub diagnostics: DiagnosticsReport,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TimeSpan {
    pub first: String,
    pub last: String,
    pub first_us: i64,
    pub last_us: i64,
    pub seconds: f64,
    /// The calendar seconds the span touches (first's to last's, both counted): what averages
    /// are taken over, so that an average can never exceed the busiest second, even when the log
    /// times statements to the second and the span is a few milliseconds of estimated starts.
    #[serde(default)]
    pub whole_seconds: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Qps {
    /// Statements per second over the calendar seconds the span touches (never above `peak`).
    pub average: Option<f64>,
    /// The most statements started within one second.
    pub peak: u64,
    pub peak_at: Option<String>,
    pub interval_s: u64,
    pub series: Vec<QpsPoint>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct QpsPoint {
    pub start: String,
    pub statements: u64,
    pub qps: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Concurrency {
    /// The most sessions with a statement in flight at one instant (microsecond-timed slow logs).
    pub peak_in_flight: Option<u64>,
    pub peak_at: Option<String>,
    /// Statements logged so far out of order that they were counted from later than their start.
    pub late_statements: u64,
    /// Total statement time over the span (pt-query-digest's "concurrency").
    pub average_in_flight: Option<f64>,
    /// The same average within the busiest second: statement time started in that second / 1 s. With
    /// whole-second logs (MariaDB) it stands in for the peak in flight.
    pub peak_second_average_in_flight: Option<f64>,
    pub peak_second_at: Option<String>,
    /// The most distinct sessions that started a statement within one second.
    pub peak_active_sessions_per_second: u64,
    pub peak_active_at: Option<String>,
    pub note: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FingerprintStats {
    pub rank: usize,
    /// 16 hex digits: xxh3-64 of the fingerprint text.
    pub id: String,
    pub fingerprint: String,
    pub fingerprint_truncated: bool,
    pub command: Command,
    pub count: u64,
    /// Of all events.
    pub share: f64,
    pub query_time: Option<TimeStats>,
    pub lock_time_total_s: Option<f64>,
    pub rows_sent: Option<RowStats>,
    pub rows_examined: Option<RowStats>,
    pub rows_affected: Option<RowStats>,
    pub errors: u64,
    pub first_seen: Option<String>,
    pub last_seen: Option<String>,
    pub databases: Vec<String>,
    pub more_databases: u64,
    pub sample: Option<Sample>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TimeStats {
    pub total_s: f64,
    /// Of the query time of all statements.
    pub share: f64,
    pub min_s: f64,
    pub avg_s: f64,
    pub p50_s: f64,
    pub p95_s: f64,
    pub p99_s: f64,
    pub max_s: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RowStats {
    pub total: u128,
    pub avg: f64,
    pub max: u64,
}

impl RowStats {
    fn of(s: &Sum) -> Option<RowStats> {
        (s.seen > 0).then(|| RowStats {
            total: s.total,
            avg: s.total as f64 / s.seen as f64,
            max: s.max,
        })
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Sample {
    /// The statement (the slowest execution), passwords masked, cut at `bytes` if long.
    pub sql: String,
    pub truncated: bool,
    /// Length of the whole statement.
    pub bytes: usize,
    pub session: u64,
    pub start: Option<String>,
    pub query_time_s: Option<f64>,
    pub file: String,
    pub line: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DiagnosticsReport {
    pub skipped_lines: u64,
    pub counts: BTreeMap<Issue, u64>,
    pub examples: Vec<DiagnosticExample>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DiagnosticExample {
    pub issue: Issue,
    pub file: String,
    pub line: u64,
    pub lines: u64,
    pub message: String,
    pub detail: String,
}

impl From<&Diagnostics> for DiagnosticsReport {
    fn from(d: &Diagnostics) -> Self {
        DiagnosticsReport {
            skipped_lines: d.skipped_lines,
            counts: d.counts.clone(),
            examples: d
                .examples
                .iter()
                .map(|n| DiagnosticExample {
                    issue: n.issue,
                    file: n.file.clone(),
                    line: n.line,
                    lines: n.lines,
                    message: n.issue.describe().to_string(),
                    detail: n.detail.clone(),
                })
                .collect(),
        }
    }
}
