//! The sequential pass: applies what earlier records established (inherited timestamps, the current
//! database, the session's user, prepared statements) and turns prepared records into [`Event`]s.
//! Everything here is a few map lookups per event, so it keeps up with the parallel readers.

use super::build::PreEvent;
use super::diag::{Diagnostics, Issue, Note, excerpt};
use super::lines::Stamp;
use super::records::RawRecord;
use crate::workload::{Command, Event, LogType, Origin, TimePrecision};
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

/// A name as logged and its shared string.
type Interned = (Box<[u8]>, Arc<str>);

/// Interns the few distinct user, host and database names so events share them.
#[derive(Default)]
struct Interner {
    map: HashMap<Box<[u8]>, Arc<str>>,
    /// The last names handed out: most logs have one or two of each, so most lookups end here.
    recent: [Option<Interned>; 4],
    next_slot: usize,
}

/// Past this many distinct names, stop remembering new ones (each event then gets its own copy).
const INTERNER_LIMIT: usize = 100_000;

impl Interner {
    fn get(&mut self, bytes: &[u8]) -> Arc<str> {
        for (k, v) in self.recent.iter().flatten() {
            if &**k == bytes {
                return v.clone();
            }
        }
        let s = match self.map.get(bytes) {
            Some(s) => s.clone(),
            None => {
                let s: Arc<str> = Arc::from(String::from_utf8_lossy(bytes).as_ref());
                if self.map.len() < INTERNER_LIMIT {
                    self.map.insert(bytes.into(), s.clone());
                }
                s
            }
        };
        self.recent[self.next_slot] = Some((bytes.into(), s.clone()));
        self.next_slot = (self.next_slot + 1) % self.recent.len();
        s
    }
}

#[derive(Default)]
struct Session {
    user: Option<Arc<str>>,
    host: Option<Arc<str>>,
    db: Option<Arc<str>>,
    last_start: Option<i64>,
    prepares: u32,
    /// Fingerprint id → the number of the `Prepare` that produced it.
    prepared: HashMap<u64, u32>,
}

/// State carried from record to record.
pub struct Resolver {
    log_type: LogType,
    file: u32,
    file_name: String,
    last_stamp: Option<Stamp>,
    last_use_db: Option<Arc<str>>,
    sessions: HashMap<u64, Session>,
    names: Interner,
    next_seq: u64,
}

impl Default for Resolver {
    fn default() -> Self {
        Resolver {
            log_type: LogType::General,
            file: 0,
            file_name: String::new(),
            last_stamp: None,
            last_use_db: None,
            sessions: HashMap::default(),
            names: Interner::default(),
            next_seq: 0,
        }
    }
}

impl Resolver {
    /// Starts a new input file. Sessions carry over (rotated logs of one server); the file-global
    /// context of the log format (last timestamp, last `use`) does not.
    pub fn start_file(&mut self, file: u32, file_name: &str, log_type: LogType) {
        self.file = file;
        self.file_name = file_name.to_string();
        self.log_type = log_type;
        self.last_stamp = None;
        self.last_use_db = None;
    }

    fn name(&mut self, buf: &[u8], span: Option<super::records::Span>) -> Option<Arc<str>> {
        let span = span?;
        let bytes = span.get(buf);
        if bytes.is_empty() {
            None
        } else {
            Some(self.names.get(bytes))
        }
    }

    /// Turns the prepared events of one record into events; `line_base` is the 0-based line of the
    /// chunk start within the file.
    pub fn resolve_record(
        &mut self,
        buf: &[u8],
        rec: &RawRecord,
        pres: &mut dyn Iterator<Item = PreEvent>,
        line_base: u64,
        diags: &mut Diagnostics,
        out: &mut Vec<Event>,
    ) {
        let session_id = rec.thread_id.unwrap_or(0);
        let line = line_base + rec.line + 1;

        // Time.
        if let Some(s) = rec.stamp {
            self.last_stamp = Some(s);
        }
        let duration = rec.query_time_us;
        let (start_us, precision) = match self.log_type {
            LogType::General => match rec.stamp.or(self.last_stamp) {
                Some(s) => (Some(s.us), s.precision),
                None => (None, TimePrecision::Unknown),
            },
            LogType::Slow => {
                if let Some(st) = rec.start_stamp {
                    (Some(st.us), st.precision)
                } else if let Some(stamp) = rec.stamp.or(self.last_stamp) {
                    // MariaDB stamps the second a statement started (10.11: a SLEEP(1.7) started
                    // at 02:14:50.54 is stamped 02:14:50, as is its SET timestamp); MySQL and
                    // Percona the time it ended.
                    if rec.stamp_is_start {
                        (Some(stamp.us), stamp.precision)
                    } else {
                        (
                            Some(stamp.us - duration.unwrap_or(0) as i64),
                            stamp.precision,
                        )
                    }
                } else if let Some(ts) = rec.set_timestamp {
                    (Some(ts * 1_000_000), TimePrecision::Second)
                } else {
                    (None, TimePrecision::Unknown)
                }
            }
        };

        // Names and database. Names from the record are interned before the session is looked up (once).
        let command = rec.command.unwrap_or(Command::Query);
        let (user, host, db, session) = match self.log_type {
            LogType::Slow => {
                if let Some(u) = rec.use_db {
                    self.last_use_db = self.name(buf, Some(u));
                }
                let schema = self.name(buf, rec.schema);
                let user = self.name(buf, rec.user);
                let host = self.name(buf, rec.host);
                let db = schema.or_else(|| self.last_use_db.clone());
                (user, host, db, self.sessions.entry(session_id).or_default())
            }
            LogType::General => {
                let connects = matches!(command, Command::Connect | Command::ChangeUser)
                    && !rec.connect_failed;
                let named = if connects {
                    Some((
                        self.name(buf, rec.user),
                        self.name(buf, rec.host),
                        self.name(buf, rec.connect_db),
                    ))
                } else {
                    None
                };
                let init_db = if command == Command::InitDb {
                    Some(self.name(buf, rec.connect_db))
                } else {
                    None
                };
                let s = self.sessions.entry(session_id).or_default();
                if let Some((user, host, db)) = named {
                    if command == Command::Connect {
                        // A new connection on a reused thread id: nothing of the old session survives.
                        *s = Session {
                            last_start: s.last_start,
                            ..Session::default()
                        };
                    }
                    s.user = user;
                    s.host = host;
                    s.db = db;
                }
                if let Some(db) = init_db {
                    s.db = db;
                }
                (s.user.clone(), s.host.clone(), s.db.clone(), s)
            }
        };

        // Keep each session's statements in order: slow-log start times computed from whole-second end
        // times can invert two statements of one session.
        let start_us = start_us.map(|s| match session.last_start {
            Some(prev) if prev > s => prev,
            _ => s,
        });
        if start_us.is_some() {
            session.last_start = start_us;
        }

        for pre in pres {
            let mut prepared_stmt = None;
            match pre.command {
                Command::Prepare => {
                    session.prepares += 1;
                    session
                        .prepared
                        .insert(pre.fingerprint_id, session.prepares);
                }
                Command::Execute => {
                    prepared_stmt = session.prepared.get(&pre.fingerprint_id).copied();
                    if prepared_stmt.is_none() && self.log_type == LogType::General {
                        diags.record(Note {
                            issue: Issue::ExecuteWithoutPrepare,
                            file: self.file_name.clone(),
                            line,
                            lines: 1,
                            detail: excerpt(&pre.sql, 60),
                        });
                    }
                }
                _ => {}
            }
            if pre.non_utf8 {
                diags.record(Note {
                    issue: Issue::NonUtf8,
                    file: self.file_name.clone(),
                    line,
                    lines: 1,
                    detail: excerpt(&pre.sql, 60),
                });
            }
            if pre.redacted {
                diags.record(Note {
                    issue: Issue::PasswordMasked,
                    file: self.file_name.clone(),
                    line,
                    lines: 1,
                    detail: excerpt(&pre.sql, 60),
                });
            }
            if let Some(target) = &pre.switches_db {
                session.db = Some(self.names.get(target));
            }
            // A slow-log entry split into several statements measured them together: its time, rows
            // and error go with the first part, so totals count them once.
            let measured = pre.multi.is_none_or(|(k, _)| k == 0);
            out.push(Event {
                seq: self.next_seq,
                command: pre.command,
                session: session_id,
                start_us,
                time_precision: precision,
                duration_us: duration.filter(|_| measured),
                lock_us: rec.lock_us.filter(|_| measured),
                user: user.clone(),
                host: host.clone(),
                db: db.clone(),
                sql: pre.sql,
                rows_sent: rec.rows_sent.filter(|_| measured),
                rows_examined: rec.rows_examined.filter(|_| measured),
                rows_affected: rec.rows_affected.filter(|_| measured),
                errno: rec.errno.filter(|_| measured),
                fingerprint_id: pre.fingerprint_id,
                prepared_stmt,
                multi: pre.multi,
                redacted: pre.redacted,
                origin: Origin {
                    file: self.file,
                    line,
                },
            });
            self.next_seq += 1;
        }
        if self.log_type == LogType::General && rec.command == Some(Command::Quit) {
            self.sessions.remove(&session_id);
        }
    }
}
