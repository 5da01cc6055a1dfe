//! The normalized event stream as JSON Lines: one object per event, in log order.

use crate::sql::fingerprint::format_id;
use crate::workload::time::format_iso_micros;
use crate::workload::{Command, Event, TimePrecision};
use base64::Engine;
use serde::Serialize;
use std::io::{self, Write};

#[derive(Serialize)]
struct EventLine<'a> {
    seq: u64,
    session: u64,
    command: Command,
    start: Option<String>,
    start_us: Option<i64>,
    time_precision: TimePrecision,
    duration_us: Option<u64>,
    lock_us: Option<u64>,
    user: Option<&'a str>,
    host: Option<&'a str>,
    db: Option<&'a str>,
    sql: std::borrow::Cow<'a, str>,
    /// Present only when the statement is not valid UTF-8: the exact bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    sql_base64: Option<String>,
    fingerprint_id: String,
    rows_sent: Option<u64>,
    rows_examined: Option<u64>,
    rows_affected: Option<u64>,
    errno: Option<u32>,
    prepared_stmt: Option<u32>,
    multi: Option<(u16, u16)>,
    redacted: bool,
    file: &'a str,
    line: u64,
}

/// Writes one event as a JSON line. `files` maps `origin.file` to the input's path.
pub fn write_event(out: &mut dyn Write, ev: &Event, files: &[String]) -> io::Result<()> {
    let sql = String::from_utf8_lossy(&ev.sql);
    let sql_base64 = match sql {
        std::borrow::Cow::Owned(_) => {
            Some(base64::engine::general_purpose::STANDARD.encode(&ev.sql))
        }
        std::borrow::Cow::Borrowed(_) => None,
    };
    let line = EventLine {
        seq: ev.seq,
        session: ev.session,
        command: ev.command,
        start: ev.start_us.map(format_iso_micros),
        start_us: ev.start_us,
        time_precision: ev.time_precision,
        duration_us: ev.duration_us,
        lock_us: ev.lock_us,
        user: ev.user.as_deref(),
        host: ev.host.as_deref(),
        db: ev.db.as_deref(),
        sql,
        sql_base64,
        fingerprint_id: format_id(ev.fingerprint_id),
        rows_sent: ev.rows_sent,
        rows_examined: ev.rows_examined,
        rows_affected: ev.rows_affected,
        errno: ev.errno,
        prepared_stmt: ev.prepared_stmt,
        multi: ev.multi,
        redacted: ev.redacted,
        file: files
            .get(ev.origin.file as usize)
            .map_or("", |s| s.as_str()),
        line: ev.origin.line,
    };
    serde_json::to_writer(&mut *out, &line).map_err(io::Error::from)?;
    out.write_all(b"\n")
}
