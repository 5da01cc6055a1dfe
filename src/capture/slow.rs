//! Reads slow query logs: MySQL 5.x/8.0 (with `log_slow_extra`), MariaDB 10.x and Percona Server.
//!
//! An entry is a run of `#` metadata lines (`# Time:`, `# User@Host:`, `# Thread_id:`, `# Query_time:`,
//! Percona/MariaDB extras), then optional `use db;` and `SET timestamp=N;` lines the server adds, then
//! the statement and the `;` plus newline that the server always appends. Admin commands appear as
//! `# administrator command: Quit;`.

use super::diag::Issue;
use super::lines::{
    Stamp, is_header_continuation, is_header_start, line_end, parse_log_time, parse_seconds_us,
    parse_u64, trim_eol,
};
use super::records::{
    BodyEnd, ChunkEnd, ChunkRecords, LocalNote, RawRecord, Span, command_from_name, find_body_end,
    is_blank, skip_to_record,
};
use crate::sql::lexer::QuoteState;
use crate::workload::Command;

/// A metadata line that can only appear at or near the top of an entry, so in statement position it
/// means the statement has ended.
pub fn is_entry_line(line: &[u8]) -> bool {
    if line.len() < 8 || line[0] != b'#' || line[1] != b' ' {
        return false;
    }
    let l = &line[2..];
    (l.starts_with(b"Time: ") && l.get(6).is_some_and(u8::is_ascii_digit))
        || l.starts_with(b"User@Host: ")
        || l.starts_with(b"User: ")
        || l.starts_with(b"Client: ")
        || (l.starts_with(b"Thread_id: ") && l.get(11).is_some_and(u8::is_ascii_digit))
        || (l.starts_with(b"Query_time: ") && l.get(12).is_some_and(u8::is_ascii_digit))
        || l.starts_with(b"Schema: ")
}

/// A line where a chunk may start: the first line of an entry (`# Time:` or `# User@Host:` right after
/// a statement's `;`), or a server header block.
pub fn is_split_point(buf: &[u8], pos: usize) -> bool {
    let le = line_end(buf, pos, buf.len());
    let line = &buf[pos..le];
    if is_header_start(line) {
        return true;
    }
    // Only lines that also end a statement in a sequential read (`is_entry_line`), or the parallel
    // read would start entries where the sequential one does not.
    if !((line.starts_with(b"# Time: ") || line.starts_with(b"# User@Host: "))
        && is_entry_line(line))
    {
        return false;
    }
    let prev = trim_eol(&buf[..pos]);
    prev.ends_with(b";")
}

/// Reads the entries of `buf[start..limit]`. `start` is at a split point (or the file start).
pub fn read_chunk(
    buf: &[u8],
    start: usize,
    limit: usize,
    at_eof: bool,
    naive_offset_s: i32,
) -> ChunkRecords {
    // Reserved up front rather than grown by doubling, which copied the records at each regrowth:
    // a slow-log entry, with its header lines, is rarely shorter than 192 bytes, and what is
    // reserved but not used is never touched.
    let mut records = Vec::with_capacity(limit.saturating_sub(start) / 192);
    let mut notes = Vec::new();
    let mut pos = start;
    let mut line_no: u64 = 0;
    while pos < limit {
        let le = line_end(buf, pos, limit);
        let line = &buf[pos..le];
        if is_header_start(line) || is_header_continuation(line) || is_blank(line) {
            pos = le;
            line_no += 1;
            continue;
        }
        if line.first() != Some(&b'#') || memchr::memchr(0, line).is_some() {
            let (next, n, binary) = skip_to_record(buf, pos, limit, |l| l.first() == Some(&b'#'));
            notes.push(LocalNote {
                issue: if binary {
                    Issue::BinaryData
                } else {
                    Issue::NotARecord
                },
                line: line_no,
                lines: n,
                detail: super::diag::excerpt(line, 60),
            });
            pos = next;
            line_no += n;
            continue;
        }
        let entry_start = pos;
        let entry_line = line_no;
        match read_entry(buf, pos, limit, at_eof, naive_offset_s, line_no, &mut notes) {
            Entry::Done {
                record,
                next,
                lines,
            } => {
                if let Some(r) = record {
                    records.push(*r);
                }
                pos = next;
                line_no += lines;
            }
            Entry::NeedMore => {
                return ChunkRecords {
                    records,
                    notes,
                    lines: entry_line,
                    end: ChunkEnd::Incomplete {
                        record_start: entry_start,
                        line: entry_line,
                    },
                };
            }
        }
    }
    ChunkRecords {
        records,
        notes,
        lines: line_no,
        end: ChunkEnd::Complete,
    }
}

enum Entry {
    Done {
        record: Option<Box<RawRecord>>,
        next: usize,
        lines: u64,
    },
    NeedMore,
}

fn read_entry(
    buf: &[u8],
    start: usize,
    limit: usize,
    at_eof: bool,
    tz: i32,
    first_line: u64,
    notes: &mut Vec<LocalNote>,
) -> Entry {
    let mut rec = RawRecord {
        line: first_line,
        ..Default::default()
    };
    let mut pos = start;
    let mut lines = 0u64;
    let mut saw_query_time = false;
    // Metadata lines.
    while pos < limit {
        let le = line_end(buf, pos, limit);
        let line = trim_eol(&buf[pos..le]);
        if line.first() != Some(&b'#') || memchr::memchr(0, line).is_some() || is_header_start(line)
        {
            break;
        }
        if let Some(rest) = line.strip_prefix(b"# administrator command: ") {
            // The command is the event; there is no statement text.
            let name = rest.strip_suffix(b";").unwrap_or(rest);
            rec.command = Some(command_from_name(name).unwrap_or(Command::Other));
            rec.sql = Span::new(le, le);
            return Entry::Done {
                record: Some(Box::new(rec)),
                next: le,
                lines: lines + 1,
            };
        }
        // A new entry header after this entry's Query_time line: this entry had no statement.
        if saw_query_time
            && is_entry_line(&buf[pos..le])
            && !line.starts_with(b"# Query_time:")
            && !line.starts_with(b"# Thread_id:")
            && !line.starts_with(b"# Schema:")
        {
            return no_statement(notes, Issue::MissingStatement, first_line, lines, pos);
        }
        if line.starts_with(b"# Query_time:") {
            saw_query_time = true;
        }
        parse_meta_line(
            buf,
            pos,
            line.len(),
            &mut rec,
            tz,
            first_line + lines,
            notes,
        );
        pos = le;
        lines += 1;
    }
    if pos >= limit && !at_eof {
        return Entry::NeedMore;
    }
    // Body: prefix lines, then the statement up to the next entry. (The metadata loop stopped at a
    // line that is not `#`, a header or binary data, or at the end.)
    let body_start = pos;
    if body_start >= limit {
        return no_statement(notes, Issue::TruncatedFinalEvent, first_line, lines, pos);
    }
    let first_body_line = &buf[body_start..line_end(buf, body_start, limit)];
    if is_header_start(first_body_line) || memchr::memchr(0, first_body_line).is_some() {
        return no_statement(notes, Issue::MissingStatement, first_line, lines, pos);
    }
    let first_end = line_end(buf, body_start, limit);
    let (end, body_lines, unclosed, hard) =
        match find_body_end(buf, body_start, first_end, limit, at_eof, is_entry_line) {
            BodyEnd::NeedMore => return Entry::NeedMore,
            BodyEnd::At {
                end,
                lines,
                unclosed,
                hard,
            } => (end, lines, unclosed, hard),
        };
    let body_line0 = first_line + lines;
    if unclosed {
        notes.push(LocalNote {
            issue: Issue::UnclosedQuote,
            line: body_line0,
            lines: body_lines,
            detail: super::diag::excerpt(&buf[body_start..first_end], 60),
        });
    }
    let total_lines = lines + body_lines;

    // Prefix lines written by the server: `use db;` and `SET timestamp=N;` (in any order).
    let mut s = body_start;
    let mut prefix_lines = 0u64;
    let mut last_prefix: Option<usize> = None;
    loop {
        if s >= end {
            break;
        }
        let le = line_end(buf, s, end);
        let l = trim_eol(&buf[s..le]);
        if let Some(db) = use_prefix(l) {
            rec.use_db = Some(Span::new(s + db.0, s + db.1));
        } else if let Some(ts) = set_timestamp_prefix(l) {
            rec.set_timestamp = Some(ts);
        } else {
            break;
        }
        last_prefix = Some(s);
        prefix_lines += 1;
        s = le;
    }
    // Only prefix lines: the last one was the statement itself (`use db` or `SET timestamp=…` run by
    // the client).
    if s >= end
        && let Some(p) = last_prefix
    {
        s = p;
        prefix_lines -= 1;
        let l = trim_eol(&buf[p..line_end(buf, p, end)]);
        if use_prefix(l).is_some() {
            // The entry's database context is what was in effect before; `use` runs the switch.
            rec.use_db = None;
        } else {
            rec.set_timestamp = None;
        }
    }
    // An admin command after the prefix lines (MariaDB writes `use db;` before it).
    let first_stmt_line = trim_eol(&buf[s..line_end(buf, s, end)]);
    if let Some(rest) = first_stmt_line.strip_prefix(b"# administrator command: ") {
        let name = rest.strip_suffix(b";").unwrap_or(rest);
        rec.command = Some(command_from_name(name).unwrap_or(Command::Other));
        rec.sql = Span::new(end, end);
        return Entry::Done {
            record: Some(Box::new(rec)),
            next: end,
            lines: total_lines,
        };
    }

    // The statement ends with the `;` the server appends. Text after the last `;`-terminated line is
    // not part of it.
    let mut stmt_end = end;
    while stmt_end > s && buf[stmt_end - 1].is_ascii_whitespace() {
        stmt_end -= 1;
    }
    if stmt_end > s && buf[stmt_end - 1] == b';' {
        rec.sql = Span::new(s, stmt_end - 1);
    } else {
        // Look for the last line that ends with `;`.
        let mut cut = None;
        let mut p = stmt_end;
        while p > s {
            let Some(nl) = memchr::memrchr(b'\n', &buf[s..p]) else {
                break;
            };
            let line_stop = s + nl;
            let before = trim_eol(&buf[s..line_stop + 1]);
            if before.ends_with(b";") {
                cut = Some(s + before.len());
                break;
            }
            p = line_stop;
        }
        match cut {
            Some(c) => {
                let garbage_first = line_end(buf, c, end);
                let kept_lines = buf[s..garbage_first]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count() as u64;
                notes.push(LocalNote {
                    issue: Issue::TrailingGarbage,
                    line: body_line0 + prefix_lines + kept_lines,
                    lines: body_lines.saturating_sub(prefix_lines + kept_lines).max(1),
                    detail: super::diag::excerpt(&buf[garbage_first..end], 60),
                });
                rec.sql = Span::new(s, c - 1);
            }
            // At the end of the file: a statement cut off mid-way (no final newline, or an open
            // literal) is dropped; one that ends cleanly on a line is kept with a note.
            None if hard
                && at_eof
                && end >= limit
                && (buf[limit - 1] != b'\n'
                    || !QuoteState::Code.advance(&buf[s..stmt_end]).is_code()) =>
            {
                notes.push(LocalNote {
                    issue: Issue::TruncatedFinalEvent,
                    line: first_line,
                    lines: total_lines,
                    detail: super::diag::excerpt(&buf[s..stmt_end], 60),
                });
                return Entry::Done {
                    record: None,
                    next: end,
                    lines: total_lines,
                };
            }
            None => {
                notes.push(LocalNote {
                    issue: Issue::UnterminatedStatement,
                    line: body_line0 + prefix_lines,
                    lines: 1,
                    detail: super::diag::excerpt(&buf[s..stmt_end], 60),
                });
                rec.sql = Span::new(s, stmt_end);
            }
        }
    }
    if rec.command.is_none() {
        rec.command = Some(Command::Query);
    }
    Entry::Done {
        record: Some(Box::new(rec)),
        next: end,
        lines: total_lines,
    }
}

/// An entry without a statement: noted, and reading goes on at `next`.
fn no_statement(
    notes: &mut Vec<LocalNote>,
    issue: Issue,
    line: u64,
    lines: u64,
    next: usize,
) -> Entry {
    notes.push(LocalNote {
        issue,
        line,
        lines,
        detail: String::new(),
    });
    Entry::Done {
        record: None,
        next,
        lines,
    }
}

/// `use db;` or ``use `db`;`` as the server writes it: returns the name's range within the line.
fn use_prefix(l: &[u8]) -> Option<(usize, usize)> {
    let rest = l.strip_prefix(b"use ")?;
    let name = rest.strip_suffix(b";")?;
    if name.is_empty() || name.iter().any(|b| b.is_ascii_whitespace()) && !name.starts_with(b"`") {
        return None;
    }
    let (a, b) = if name.len() >= 2 && name[0] == b'`' && name[name.len() - 1] == b'`' {
        (5, 4 + name.len() - 1)
    } else {
        (4, 4 + name.len())
    };
    Some((a, b))
}

/// `SET timestamp=N;`, possibly with `last_insert_id=…,insert_id=…` first (MySQL), as the server writes
/// it: returns N (seconds; a fraction is dropped).
fn set_timestamp_prefix(l: &[u8]) -> Option<i64> {
    let rest = l.strip_prefix(b"SET ")?.strip_suffix(b";")?;
    let mut ts = None;
    for assignment in rest.split(|&b| b == b',') {
        let eq = assignment.iter().position(|&b| b == b'=')?;
        let (k, v) = (&assignment[..eq], &assignment[eq + 1..]);
        match k {
            b"timestamp" => {
                let whole = v.split(|&b| b == b'.').next()?;
                ts = Some(parse_u64(whole)? as i64);
            }
            b"last_insert_id" | b"insert_id" => {
                parse_u64(v)?;
            }
            _ => return None,
        }
    }
    ts
}

/// Parses one metadata line at `buf[pos..pos+len]` into `rec`.
fn parse_meta_line(
    buf: &[u8],
    pos: usize,
    len: usize,
    rec: &mut RawRecord,
    tz: i32,
    line_no: u64,
    notes: &mut Vec<LocalNote>,
) {
    let line = &buf[pos..pos + len];
    if let Some(rest) = line.strip_prefix(b"# Time: ") {
        let off = pos + 8;
        let t = rest
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(rest.len());
        match parse_log_time(&rest[t..], tz) {
            Some((stamp, n)) => {
                rec.stamp = Some(stamp);
                // Old Percona: `# Time: 071218 11:48:27 # User@Host: …` on one line.
                let after = &rest[t + n..];
                if let Some(i) = memchr::memmem::find(after, b"# User@Host: ") {
                    parse_user_host(buf, off + t + n + i + 13, pos + len, rec);
                }
            }
            None => notes.push(LocalNote {
                issue: Issue::BadTimestamp,
                line: line_no,
                lines: 1,
                detail: super::diag::excerpt(line, 60),
            }),
        }
        return;
    }
    if line.starts_with(b"# User@Host: ") {
        parse_user_host(buf, pos + 13, pos + len, rec);
        return;
    }
    if line.starts_with(b"# User: ") {
        parse_user_host(buf, pos + 8, pos + len, rec);
        return;
    }
    if let Some(rest) = line.strip_prefix(b"# Client: ") {
        // `# Client: 127.0.0.1:12345`
        let host_len = rest.iter().rposition(|&b| b == b':').unwrap_or(rest.len());
        rec.host = Some(Span::new(pos + 10, pos + 10 + host_len));
        return;
    }
    parse_key_values(buf, pos, len, rec, tz, line_no, notes);
}

/// `# Key: value  Key: value …` lines (Thread_id, Schema, Query_time, Rows_*, log_slow_extra's Errno,
/// Start and End, Percona's Last_errno, …). Unknown keys are ignored.
fn parse_key_values(
    buf: &[u8],
    pos: usize,
    len: usize,
    rec: &mut RawRecord,
    tz: i32,
    line_no: u64,
    notes: &mut Vec<LocalNote>,
) {
    let line = &buf[pos..pos + len];
    let mut i = 1; // after '#'
    let n = line.len();
    let mut bad = false;
    while i < n {
        while i < n && line[i].is_ascii_whitespace() {
            i += 1;
        }
        let key_start = i;
        while i < n && !line[i].is_ascii_whitespace() {
            i += 1;
        }
        let word = &line[key_start..i];
        let Some(key) = word.strip_suffix(b":") else {
            continue;
        };
        // The value: the next word, unless that is itself a key (an empty value, e.g. `Schema: `).
        let mut j = i;
        while j < n && line[j] == b' ' {
            j += 1;
        }
        let val_start = j;
        while j < n && !line[j].is_ascii_whitespace() {
            j += 1;
        }
        let mut value = &line[val_start..j];
        let mut value_abs = Span::new(pos + val_start, pos + j);
        if value.ends_with(b":") && value.len() > 1 {
            value = b"";
            value_abs = Span::new(pos + val_start, pos + val_start);
        } else {
            i = j;
        }
        let ok = match key {
            b"Thread_id" | b"Id" => parse_u64(value).map(|v| rec.thread_id = Some(v)).is_some(),
            b"Schema" => {
                rec.schema = Some(value_abs);
                true
            }
            // MariaDB's mark (Percona prints `QC_Hit:` on a line of its own): its `# Time:` is the
            // second the statement started.
            b"QC_hit" => {
                rec.stamp_is_start = true;
                true
            }
            b"Query_time" => parse_seconds_us(value)
                .map(|v| rec.query_time_us = Some(v))
                .is_some(),
            b"Lock_time" => parse_seconds_us(value)
                .map(|v| rec.lock_us = Some(v))
                .is_some(),
            b"Rows_sent" => parse_u64(value).map(|v| rec.rows_sent = Some(v)).is_some(),
            b"Rows_examined" => parse_u64(value)
                .map(|v| rec.rows_examined = Some(v))
                .is_some(),
            b"Rows_affected" => parse_u64(value)
                .map(|v| rec.rows_affected = Some(v))
                .is_some(),
            b"Errno" | b"Last_errno" => parse_u64(value)
                .map(|v| rec.errno = Some(v.min(u32::MAX as u64) as u32))
                .is_some(),
            b"Start" => match parse_log_time(value, tz) {
                Some((stamp, _)) => {
                    rec.start_stamp = Some(stamp);
                    true
                }
                None => false,
            },
            b"End" => match parse_log_time(value, tz) {
                Some((stamp, _)) => {
                    rec.stamp = Some(Stamp { ..stamp });
                    true
                }
                None => false,
            },
            _ => true,
        };
        bad |= !ok;
    }
    if bad {
        notes.push(LocalNote {
            issue: Issue::BadMetadataValue,
            line: line_no,
            lines: 1,
            detail: super::diag::excerpt(line, 80),
        });
    }
}

/// `priv_user[user] @ host [ip]  Id: N` starting at `buf[start..end]`.
fn parse_user_host(buf: &[u8], start: usize, end: usize, rec: &mut RawRecord) {
    let text = &buf[start..end];
    let at = memchr::memmem::find(text, b" @ ").unwrap_or(text.len());
    let who = &text[..at];
    match (memchr::memchr(b'[', who), memchr::memrchr(b']', who)) {
        (Some(lb), Some(rb)) if rb > lb => {
            let (u0, u1) = if rb > lb + 1 { (lb + 1, rb) } else { (0, lb) };
            if u1 > u0 {
                rec.user = Some(Span::new(start + u0, start + u1));
            }
        }
        _ => {
            if !who.is_empty() {
                rec.user = Some(Span::new(start, start + at));
            }
        }
    }
    if at >= text.len() {
        return;
    }
    let mut i = at + 3;
    while i < text.len() && text[i] == b' ' {
        i += 1;
    }
    let host_start = i;
    while i < text.len() && text[i] != b' ' && text[i] != b'[' {
        i += 1;
    }
    let host_end = i;
    let mut ip = None;
    if let Some(lb) = memchr::memchr(b'[', &text[i..]) {
        let lb = i + lb;
        if let Some(rb) = memchr::memchr(b']', &text[lb..]) {
            let rb = lb + rb;
            if rb > lb + 1 {
                ip = Some(Span::new(start + lb + 1, start + rb));
            }
            i = rb + 1;
        }
    }
    rec.host = if host_end > host_start {
        Some(Span::new(start + host_start, start + host_end))
    } else {
        ip
    };
    if let Some(id_at) = memchr::memmem::find(&text[i..], b"Id:") {
        let rest = &text[i + id_at + 3..];
        let d0 = rest.iter().position(|b| *b != b' ').unwrap_or(rest.len());
        let d1 = rest[d0..]
            .iter()
            .position(|b| !b.is_ascii_digit())
            .map_or(rest.len(), |p| d0 + p);
        if let Some(id) = parse_u64(&rest[d0..d1]) {
            rec.thread_id = Some(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> ChunkRecords {
        read_chunk(text.as_bytes(), 0, text.len(), true, 0)
    }

    fn sql<'a>(text: &'a str, r: &RawRecord) -> &'a str {
        &text[r.sql.start..r.sql.end]
    }

    #[test]
    fn mariadb_entry() {
        let t = "# Time: 261202 20:48:57\n# User@Host: root[root] @  [127.0.0.1]\n# Thread_id: 14  Schema: sbcap  QC_hit: No\n# Query_time: 0.000012  Lock_time: 0.000000  Rows_sent: 0  Rows_examined: 0\n# Rows_affected: 0  Bytes_sent: 0\nuse `sbcap`;\nSET timestamp=1796244537;\nBEGIN;\n# User@Host: root[root] @  [127.0.0.1]\n# Thread_id: 13  Schema: sbcap  QC_hit: No\n# Query_time: 0.000173  Lock_time: 0.000042  Rows_sent: 1  Rows_examined: 1\n# Rows_affected: 0  Bytes_sent: 0\nSET timestamp=1796244537;\nSELECT c FROM sbtest1 WHERE id=611;\n";
        let out = read(t);
        assert!(out.notes.is_empty(), "{:?}", out.notes);
        assert_eq!(out.records.len(), 2);
        let r = &out.records[0];
        assert_eq!(sql(t, r), "BEGIN");
        assert_eq!(r.thread_id, Some(14));
        assert_eq!(&t[r.use_db.unwrap().start..r.use_db.unwrap().end], "sbcap");
        assert_eq!(&t[r.user.unwrap().start..r.user.unwrap().end], "root");
        assert_eq!(&t[r.host.unwrap().start..r.host.unwrap().end], "127.0.0.1");
        assert_eq!(r.set_timestamp, Some(1796244537));
        let r = &out.records[1];
        assert_eq!(sql(t, r), "SELECT c FROM sbtest1 WHERE id=611");
        assert_eq!(r.query_time_us, Some(173));
        assert_eq!(r.rows_sent, Some(1));
        assert_eq!(r.line, 8);
    }

    #[test]
    fn mysql8_slow_extra() {
        let t = "# Time: 2021-10-12T01:13:38.132884Z\n# User@Host: app[app] @ localhost []  Id:    15\n# Query_time: 0.001855  Lock_time: 0.000000 Rows_sent: 0  Rows_examined: 0 Thread_id: 15 Errno: 1146 Killed: 0 Bytes_received: 0 Bytes_sent: 0 Read_first: 0 Read_last: 0 Read_key: 0 Read_next: 0 Read_prev: 0 Read_rnd: 0 Read_rnd_next: 0 Sort_merge_passes: 0 Sort_range_count: 0 Sort_rows: 0 Sort_scan_count: 0 Created_tmp_disk_tables: 0 Created_tmp_tables: 0 Count_hit_tmp_table_size: 0  Start: 2021-10-12T01:13:38.131029Z End: 2021-10-12T01:13:38.132884Z\nuse shop;\nSET timestamp=1634001218;\nSELECT * FROM nope;\n";
        let out = read(t);
        assert!(out.notes.is_empty(), "{:?}", out.notes);
        let r = &out.records[0];
        assert_eq!(r.errno, Some(1146));
        assert_eq!(r.thread_id, Some(15));
        assert_eq!(r.start_stamp.unwrap().us % 1_000_000, 131_029);
        assert_eq!(&t[r.host.unwrap().start..r.host.unwrap().end], "localhost");
    }

    #[test]
    fn string_with_fake_entry_inside() {
        let t = "# Time: 2024-05-01T10:00:00.000001Z\n# User@Host: a[a] @ h []  Id: 1\n# Query_time: 0.1  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\nINSERT INTO notes VALUES ('done;\n# Time: 2024-05-01T10:00:00.000002Z\n# User@Host: x[x] @ h []  Id: 9\n# Query_time: 0.1  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\nSELECT 1;\n');\n# Time: 2024-05-01T10:00:01.000000Z\n# User@Host: a[a] @ h []  Id: 1\n# Query_time: 0.1  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\nSELECT 2;\n";
        let out = read(t);
        assert_eq!(out.records.len(), 2, "{:?}", out.notes);
        assert!(sql(t, &out.records[0]).ends_with("SELECT 1;\n')"));
        assert_eq!(sql(t, &out.records[1]), "SELECT 2");
    }

    #[test]
    fn admin_commands_and_use_before_them() {
        let t = "# User@Host: meow[meow] @  [1.2.3.8]\n# Thread_id: 7  Schema: db2\n# Query_time: 0.018799  Lock_time: 0.009453  Rows_sent: 0  Rows_examined: 0\nuse db2;\n# administrator command: Quit;\n";
        let out = read(t);
        assert_eq!(out.records.len(), 1);
        assert_eq!(out.records[0].command, Some(Command::Quit));
        assert!(out.records[0].use_db.is_some());
    }

    #[test]
    fn truncated_final_event_is_reported() {
        let t = "# Time: 071015 21:43:52\n# User@Host: root[root] @ localhost []\n# Query_time: 2  Lock_time: 0  Rows_sent: 1  Rows_examined: 0\nselect sleep(2) fr";
        let out = read(t);
        assert!(out.records.is_empty());
        assert_eq!(out.notes[0].issue, Issue::TruncatedFinalEvent);
    }

    #[test]
    fn garbage_after_statement_is_skipped() {
        let t = "# Query_time: 1  Lock_time: 0  Rows_sent: 0  Rows_examined: 0\nSELECT 1;\nzzz garbage\n# Query_time: 1  Lock_time: 0  Rows_sent: 0  Rows_examined: 0\nSELECT 2;\n";
        let out = read(t);
        assert_eq!(out.records.len(), 2);
        assert_eq!(sql(t, &out.records[0]), "SELECT 1");
        assert_eq!(out.notes[0].issue, Issue::TrailingGarbage);
        assert_eq!(out.notes[0].line, 2);
    }

    #[test]
    fn user_statement_use_is_kept() {
        let t = "# Query_time: 1  Lock_time: 0  Rows_sent: 0  Rows_examined: 0\nuse foo;\n";
        let out = read(t);
        assert_eq!(sql(t, &out.records[0]), "use foo");
    }
}
