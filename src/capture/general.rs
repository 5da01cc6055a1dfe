//! Reads general query logs.
//!
//! Line formats (from the servers' `sql/log.cc`):
//! - MySQL 5.7/8.0: `2020-07-25T15:01:40.143115Z\t   12 Query\tSELECT …` on every record (UTC `Z` or a
//!   `+08:00` offset with `log_timestamps=SYSTEM`; some 5.7 builds put spaces after the timestamp);
//! - MariaDB and MySQL ≤ 5.6: `YYMMDD HH:MM:SS\t` only when the second changes, otherwise `\t\t`, then
//!   the thread id right-aligned, the command, a tab, the argument;
//! - MySQL 5.0/5.1: the command is padded with spaces instead of followed by a tab.
//!
//! The argument continues on following lines without any prefix. A following line is a new record only
//! if it has a record prefix with a known command name (so `       10 AS x` inside a statement is not)
//! and the statement so far is not inside a string literal.

use super::diag::Issue;
use super::lines::{
    Stamp, is_header_continuation, is_header_start, line_end, parse_iso, parse_yymmdd, trim_eol,
};
use super::records::{
    BodyEnd, COMMAND_NAMES, ChunkEnd, ChunkRecords, LocalNote, RawRecord, Span, command_from_name,
    find_body_end, is_blank, skip_to_record,
};
use crate::workload::Command;

/// The prefix of a record line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordLine {
    pub stamp: Option<Stamp>,
    pub thread_id: u64,
    pub command: Command,
    /// Offset of the argument within the line.
    pub arg_start: usize,
}

/// Recognises a record line; `None` for continuation lines and anything else.
pub fn parse_record_line(line: &[u8], naive_offset_s: i32) -> Option<RecordLine> {
    let n = line.len();
    let mut i = 0;
    let mut stamp = None;
    match line.first()? {
        b'0'..=b'9' => {
            let (s, len) = if line.len() > 4 && line[4] == b'-' {
                parse_iso(line, naive_offset_s)?
            } else {
                parse_yymmdd(line, naive_offset_s)?
            };
            stamp = Some(s);
            i = len;
            if i >= n || !(line[i] == b'\t' || line[i] == b' ') {
                return None;
            }
        }
        b'\t' | b' ' => {
            // No timestamp: the whitespace before the thread id holds a tab (`\t\t`), or, in logs of
            // older servers and logs whose tabs were expanded, at least 8 spaces (the two tabs'
            // width). A continuation line indented that far must still name a command after a
            // number (`        10 AS x` does not), and is never taken inside a string.
            let ws = line
                .iter()
                .position(|&b| b != b'\t' && b != b' ')
                .unwrap_or(n);
            if !line[..ws].contains(&b'\t') && ws < 8 {
                return None;
            }
        }
        _ => return None,
    }
    while i < n && (line[i] == b'\t' || line[i] == b' ') {
        i += 1;
    }
    let id_start = i;
    while i < n && line[i].is_ascii_digit() {
        i += 1;
    }
    if i == id_start || i - id_start > 20 || i >= n || line[i] != b' ' {
        return None;
    }
    let thread_id = super::lines::parse_u64(&line[id_start..i])?;
    while i < n && line[i] == b' ' {
        i += 1;
    }
    let rest = &line[i..];
    let first = *rest.first()?;
    let names_it = |name: &[u8]| {
        rest.starts_with(name)
            && matches!(
                rest.get(name.len()),
                None | Some(b'\t' | b' ' | b'\n' | b'\r')
            )
    };
    // Nearly every record is a Query: tried first, ahead of the longest-first scan of the names
    // (its ~300 instructions a line were 1% of a replay's; no name is a prefix of `Query` nor
    // `Query` of one, so the answer is the same).
    let name: &[u8] = if names_it(b"Query") {
        b"Query"
    } else {
        COMMAND_NAMES
            .iter()
            .find(|name| name[0] == first && names_it(name))?
    };
    let command = command_from_name(name)?;
    i += name.len();
    if line.get(i) == Some(&b'\t') {
        i += 1;
    } else {
        while i < n && line[i] == b' ' {
            i += 1;
        }
    }
    Some(RecordLine {
        stamp,
        thread_id,
        command,
        arg_start: i,
    })
}

/// A line where a chunk may start: any record line, or a server header block.
pub fn is_split_point(buf: &[u8], pos: usize, naive_offset_s: i32) -> bool {
    let le = line_end(buf, pos, buf.len());
    let line = &buf[pos..le];
    is_header_start(line) || parse_record_line(line, naive_offset_s).is_some()
}

/// Reads the records of `buf[start..limit]`. `start` is at a split point (or the file start).
pub fn read_chunk(
    buf: &[u8],
    start: usize,
    limit: usize,
    at_eof: bool,
    naive_offset_s: i32,
) -> ChunkRecords {
    // Reserved up front rather than grown by doubling, which copied the records at each regrowth:
    // a general-log record is rarely shorter than 64 bytes, and what is reserved but not used is
    // never touched.
    let mut records = Vec::with_capacity(limit.saturating_sub(start) / 64);
    let mut notes = Vec::new();
    let mut pos = start;
    let mut line_no: u64 = 0;
    // The line that ends one record is parsed again as the start of the next: remember the last one.
    let memo: std::cell::Cell<Option<(usize, RecordLine)>> = std::cell::Cell::new(None);
    let is_record = |l: &[u8]| match parse_record_line(l, naive_offset_s) {
        Some(rl) => {
            memo.set(Some((l.as_ptr() as usize, rl)));
            true
        }
        None => false,
    };
    while pos < limit {
        let le = line_end(buf, pos, limit);
        let line = &buf[pos..le];
        if is_header_start(line) || is_header_continuation(line) || is_blank(line) {
            pos = le;
            line_no += 1;
            continue;
        }
        let parsed = match memo.get() {
            Some((at, rl)) if at == line.as_ptr() as usize => Some(rl),
            _ if memchr::memchr(0, line).is_some() => None,
            _ => parse_record_line(line, naive_offset_s),
        };
        let Some(rl) = parsed else {
            let (next, n, binary) = skip_to_record(buf, pos, limit, is_record);
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
        };
        let arg_start = pos + rl.arg_start.min(le - pos);
        let (end, lines) = match find_body_end(buf, arg_start, le, limit, at_eof, is_record) {
            BodyEnd::NeedMore => {
                return ChunkRecords {
                    records,
                    notes,
                    lines: line_no,
                    end: ChunkEnd::Incomplete {
                        record_start: pos,
                        line: line_no,
                    },
                };
            }
            BodyEnd::At {
                end,
                lines,
                unclosed,
                ..
            } => {
                if unclosed {
                    notes.push(LocalNote {
                        issue: Issue::UnclosedQuote,
                        line: line_no,
                        lines,
                        detail: super::diag::excerpt(line, 60),
                    });
                }
                (end, lines)
            }
        };
        // A record cut off by the end of the file (no final newline) is incomplete.
        if at_eof && end >= limit && limit > 0 && buf[limit - 1] != b'\n' {
            notes.push(LocalNote {
                issue: Issue::TruncatedFinalEvent,
                line: line_no,
                lines,
                detail: super::diag::excerpt(&buf[pos..end], 60),
            });
            pos = end;
            line_no += lines;
            continue;
        }
        let mut arg_end = end;
        if arg_end > arg_start && buf[arg_end - 1] == b'\n' {
            arg_end -= 1;
            if arg_end > arg_start && buf[arg_end - 1] == b'\r' {
                arg_end -= 1;
            }
        }
        let mut rec = RawRecord {
            line: line_no,
            command: Some(rl.command),
            thread_id: Some(rl.thread_id),
            stamp: rl.stamp,
            sql: Span::new(arg_start, arg_end.max(arg_start)),
            ..Default::default()
        };
        match rl.command {
            Command::Connect | Command::ChangeUser => {
                parse_connect(buf, arg_start, arg_end, &mut rec)
            }
            Command::InitDb => {
                let t = trim_eol(&buf[arg_start..arg_end]);
                rec.connect_db = Some(Span::new(arg_start, arg_start + t.len()));
            }
            _ => {}
        }
        records.push(rec);
        pos = end;
        line_no += lines;
    }
    ChunkRecords {
        records,
        notes,
        lines: line_no,
        end: ChunkEnd::Complete,
    }
}

/// `user@host on db using TCP/IP` (8.0), `user@host on db` (5.x), `user@host as anonymous on db`
/// (MariaDB), or `Access denied for user 'u'@'h' (using password: YES)`.
fn parse_connect(buf: &[u8], start: usize, end: usize, rec: &mut RawRecord) {
    let arg = &buf[start..end];
    if arg.starts_with(b"Access denied") {
        rec.connect_failed = true;
        return;
    }
    let word_end = arg.iter().position(|&b| b == b' ').unwrap_or(arg.len());
    let who = &arg[..word_end];
    match memchr::memrchr(b'@', who) {
        Some(at) => {
            rec.user = Some(Span::new(start, start + at));
            rec.host = Some(Span::new(start + at + 1, start + word_end));
        }
        None => rec.user = Some(Span::new(start, start + word_end)),
    }
    if let Some(on) = memchr::memmem::find(&arg[word_end..], b" on ") {
        let db_start = word_end + on + 4;
        let rest = &arg[db_start..];
        let db_len = memchr::memmem::find(rest, b" using ")
            .unwrap_or_else(|| rest.iter().position(|&b| b == b' ').unwrap_or(rest.len()));
        let db = &rest[..db_len];
        let db = trim_eol(db);
        if !db.is_empty() && db != b" " {
            rec.connect_db = Some(Span::new(start + db_start, start + db_start + db.len()));
        } else {
            rec.connect_db = Some(Span::new(start + db_start, start + db_start));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::time::format_iso_micros;

    fn read(text: &str) -> ChunkRecords {
        read_chunk(text.as_bytes(), 0, text.len(), true, 0)
    }

    /// `parse_record_line` tries `Query` before the other names: right only while no command
    /// name is a prefix of `Query` nor `Query` a prefix of one.
    #[test]
    fn query_is_no_other_command_s_prefix_nor_has_one() {
        for name in COMMAND_NAMES.iter().filter(|n| **n != b"Query") {
            assert!(
                !name.starts_with(b"Query") && !b"Query".starts_with(name),
                "{}",
                String::from_utf8_lossy(name)
            );
        }
        let line = b"\t\t   12 Query\tselect 1";
        assert_eq!(
            parse_record_line(line, 0).map(|r| r.command),
            Some(crate::workload::Command::Query)
        );
    }

    fn sql<'a>(t: &'a str, r: &RawRecord) -> &'a str {
        &t[r.sql.start..r.sql.end]
    }

    #[test]
    fn record_line_forms() {
        let r =
            parse_record_line(b"2020-07-25T15:01:40.143115Z\t   12 Prepare\tSELECT ?", 0).unwrap();
        assert_eq!(
            (r.thread_id, r.command, r.arg_start),
            (12, Command::Prepare, 42)
        );
        assert_eq!(
            format_iso_micros(r.stamp.unwrap().us),
            "2020-07-25T15:01:40.143115Z"
        );
        let r = parse_record_line(b"2016-06-07T19:07:02.558338Z    3 Connect\tx", 0).unwrap();
        assert_eq!(r.thread_id, 3);
        let r = parse_record_line(b"\t\t    13 Close stmt\t\n", 0).unwrap();
        assert_eq!(r.command, Command::CloseStmt);
        let r = parse_record_line(b"261202 20:48:57\t    12 Quit\t\n", 0).unwrap();
        assert_eq!(r.command, Command::Quit);
        let r = parse_record_line(b"\t\t                 11 Init DB     my_webstats", 0).unwrap();
        assert_eq!((r.command, r.arg_start), (Command::InitDb, 34));
        let r = parse_record_line(
            b"               \t     11 Connect     root@localhost on  ",
            0,
        )
        .unwrap();
        assert_eq!(r.command, Command::Connect);
        // Older servers, and logs whose tabs were expanded: spaces only.
        let r = parse_record_line(b"                 42 Query       SELECT foo", 0).unwrap();
        assert_eq!(
            (r.thread_id, r.command, r.arg_start),
            (42, Command::Query, 32)
        );
        // Continuation lines.
        assert!(parse_record_line(b"       10 AS x", 0).is_none());
        assert!(parse_record_line(b"                 10 AS x", 0).is_none());
        assert!(parse_record_line(b"\t\t    10 AS x", 0).is_none());
        assert!(parse_record_line(b"                         FROM tbl", 0).is_none());
    }

    #[test]
    fn multiline_statement_with_record_like_continuation() {
        let t = "2024-05-01T10:00:00.000001Z\t    5 Query\tSELECT a,\n       10 AS x\nFROM t\n2024-05-01T10:00:00.000002Z\t    5 Quit\t\n";
        let out = read(t);
        assert_eq!(out.records.len(), 2);
        assert_eq!(sql(t, &out.records[0]), "SELECT a,\n       10 AS x\nFROM t");
        assert_eq!(out.records[1].command, Some(Command::Quit));
    }

    #[test]
    fn record_lines_inside_strings() {
        let t = "\t\t     5 Query\tINSERT INTO t VALUES ('x\n\t\t     6 Query\tnot a record')\n\t\t     5 Quit\t\n";
        let out = read(t);
        assert_eq!(out.records.len(), 2, "{:?}", out.notes);
        assert!(sql(t, &out.records[0]).ends_with("not a record')"));
    }

    #[test]
    fn connect_forms() {
        let t = "\t\t    13 Connect\troot@127.0.0.1 on sbcap using TCP/IP\n\t\t    14 Connect\tapp@localhost as anonymous on shop\n\t\t    15 Connect\troot@localhost on  using Socket\n\t\t    16 Connect\tAccess denied for user 'x'@'h' (using password: YES)\n";
        let out = read(t);
        let db = |r: &RawRecord| r.connect_db.map(|s| &t[s.start..s.end]);
        assert_eq!(db(&out.records[0]), Some("sbcap"));
        assert_eq!(
            out.records[0].host.map(|s| &t[s.start..s.end]),
            Some("127.0.0.1")
        );
        assert_eq!(db(&out.records[1]), Some("shop"));
        assert_eq!(db(&out.records[2]), Some(""));
        assert!(out.records[3].connect_failed);
    }

    #[test]
    fn truncated_last_line_is_reported() {
        let t = "\t\t     5 Query\tSELECT 1\n\t\t     5 Query\tSELECT * FR";
        let out = read(t);
        assert_eq!(out.records.len(), 1);
        assert_eq!(out.notes[0].issue, Issue::TruncatedFinalEvent);
    }

    #[test]
    fn garbage_before_first_record_is_reported() {
        let t = "garbage\nmore\n\t\t     5 Query\tSELECT 1\n";
        let out = read(t);
        assert_eq!(out.records.len(), 1);
        assert_eq!(
            (out.notes[0].issue, out.notes[0].lines),
            (Issue::NotARecord, 2)
        );
    }
}
