//! Types and scanning shared by the general-log and slow-log readers.
//!
//! A reader works on one chunk of a file held in memory: it finds the records in it and returns them as
//! [`RawRecord`]s whose text fields are byte ranges into the chunk's buffer. Whatever needs state from
//! earlier in the file (inherited timestamps, the current database, prepared statements) is left for
//! the sequential resolver, so chunks can be read in parallel.
//!
//! Where a record ends is decided quote-aware: a line that looks like the start of the next record
//! (a candidate) ends the current one only if the text so far is not inside a string literal or
//! comment. If it is, up to [`LOOKAHEAD_CANDIDATES`] further candidates are tried; when none of them is
//! outside a literal either, the quote is taken to be unbalanced (corrupt text, a truncated statement)
//! and the record ends at the first candidate. A record that reaches the end of a chunk inside a
//! literal is reported as incomplete so the caller can re-read it with more data.

use super::diag::Issue;
use super::lines::{Stamp, is_header_start, line_end};
use crate::sql::lexer::QuoteState;
use crate::workload::Command;

/// How many in-literal candidates may be skipped while looking for the real end of a record.
pub const LOOKAHEAD_CANDIDATES: usize = 16;

/// A byte range into the chunk buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
    pub fn get<'a>(&self, buf: &'a [u8]) -> &'a [u8] {
        &buf[self.start..self.end]
    }
}

/// One log record as read, before any state from earlier records is applied.
#[derive(Clone, Debug, Default)]
pub struct RawRecord {
    /// 0-based line of the record's first line, counted from the chunk start.
    pub line: u64,
    pub command: Option<Command>,
    pub thread_id: Option<u64>,
    /// The time printed on the record itself (general-log line prefix, slow-log `# Time:`).
    pub stamp: Option<Stamp>,
    /// `Start:` from MySQL 8's `log_slow_extra`.
    pub start_stamp: Option<Stamp>,
    /// The slow-log `# Time:` is the statement's start (MariaDB, whose `# Thread_id:` line carries
    /// `QC_hit:`), not its end (MySQL, Percona).
    pub stamp_is_start: bool,
    /// `SET timestamp=N;` in the slow log (seconds).
    pub set_timestamp: Option<i64>,
    pub query_time_us: Option<u64>,
    pub lock_us: Option<u64>,
    pub rows_sent: Option<u64>,
    pub rows_examined: Option<u64>,
    pub rows_affected: Option<u64>,
    pub errno: Option<u32>,
    pub user: Option<Span>,
    pub host: Option<Span>,
    /// `Schema:` in MariaDB/Percona slow logs (per entry).
    pub schema: Option<Span>,
    /// `use db;` before a slow-log statement (file-global: it applies until the next one).
    pub use_db: Option<Span>,
    /// The database named by a general-log `Connect`/`Change user` (`… on db`) or `Init DB`.
    pub connect_db: Option<Span>,
    /// A general-log `Connect` that the server refused (`Access denied …`).
    pub connect_failed: bool,
    /// The statement text or command argument.
    pub sql: Span,
}

/// A note made while reading a chunk; lines are chunk-relative and fixed up by the caller.
#[derive(Clone, Debug)]
pub struct LocalNote {
    pub issue: Issue,
    pub line: u64,
    pub lines: u64,
    pub detail: String,
}

/// How a chunk read ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkEnd {
    /// Every record in the chunk ended inside it.
    Complete,
    /// The record starting at byte `record_start` (line `line`) needs data past the chunk's end.
    Incomplete { record_start: usize, line: u64 },
}

/// What reading one chunk produced.
#[derive(Debug)]
pub struct ChunkRecords {
    pub records: Vec<RawRecord>,
    pub notes: Vec<LocalNote>,
    /// Lines consumed (up to the incomplete record, if any).
    pub lines: u64,
    pub end: ChunkEnd,
}

/// Where the text of a record ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyEnd {
    /// At byte `end`, after `lines` lines (counted from the body's first line); `unclosed` when a
    /// quote never closed and the record was cut at the first candidate.
    At {
        end: usize,
        lines: u64,
        unclosed: bool,
        hard: bool,
    },
    /// The chunk ended inside a literal: more data is needed.
    NeedMore,
}

/// Scans forward from `text_start` (inside the line that starts at `line_start`) to where the record's
/// text ends. `is_candidate` says whether a line looks like the start of a new record. Header blocks and
/// lines with NUL bytes end a record whatever the quote state (`hard`).
pub fn find_body_end(
    buf: &[u8],
    text_start: usize,
    first_line_end: usize,
    limit: usize,
    at_eof: bool,
    is_candidate: impl Fn(&[u8]) -> bool,
) -> BodyEnd {
    let mut state = QuoteState::Code.advance(&buf[text_start..first_line_end]);
    let mut pos = first_line_end;
    let mut lines = 1u64;
    let mut first_in_literal: Option<(usize, u64)> = None;
    let mut skipped = 0usize;
    loop {
        if pos >= limit {
            if !at_eof {
                if state.is_code() {
                    // Chunks end at a line chosen because it starts a record: outside any literal, it is
                    // the first clean candidate, so the record ends here.
                    return BodyEnd::At {
                        end: pos,
                        lines,
                        unclosed: false,
                        hard: false,
                    };
                }
                return BodyEnd::NeedMore;
            }
            return match first_in_literal {
                Some((end, l)) if !state.is_code() => BodyEnd::At {
                    end,
                    lines: l,
                    unclosed: true,
                    hard: false,
                },
                _ => BodyEnd::At {
                    end: limit,
                    lines,
                    unclosed: false,
                    hard: true,
                },
            };
        }
        let le = line_end(buf, pos, limit);
        let line = &buf[pos..le];
        if is_header_start(line) || memchr::memchr(0, line).is_some() {
            return match first_in_literal {
                Some((end, l)) => BodyEnd::At {
                    end,
                    lines: l,
                    unclosed: true,
                    hard: false,
                },
                None => BodyEnd::At {
                    end: pos,
                    lines,
                    unclosed: false,
                    hard: true,
                },
            };
        }
        if is_candidate(line) {
            if state.is_code() {
                return BodyEnd::At {
                    end: pos,
                    lines,
                    unclosed: false,
                    hard: false,
                };
            }
            if first_in_literal.is_none() {
                first_in_literal = Some((pos, lines));
            }
            skipped += 1;
            if skipped > LOOKAHEAD_CANDIDATES {
                let (end, l) = first_in_literal.unwrap_or((pos, lines));
                return BodyEnd::At {
                    end,
                    lines: l,
                    unclosed: true,
                    hard: false,
                };
            }
        }
        state = state.advance(line);
        lines += 1;
        pos = le;
    }
}

/// Skips lines that belong to no record until a line where `is_start` says a record begins, a header,
/// or the limit. Returns (position, lines skipped, whether binary data was seen).
pub fn skip_to_record(
    buf: &[u8],
    mut pos: usize,
    limit: usize,
    is_start: impl Fn(&[u8]) -> bool,
) -> (usize, u64, bool) {
    let mut lines = 0;
    let mut binary = false;
    while pos < limit {
        let le = line_end(buf, pos, limit);
        let line = &buf[pos..le];
        let has_nul = memchr::memchr(0, line).is_some();
        if !has_nul && (is_start(line) || is_header_start(line) || is_blank(line)) {
            break;
        }
        binary |= has_nul;
        lines += 1;
        pos = le;
    }
    (pos, lines, binary)
}

/// A line of nothing but whitespace: not content, never reported.
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Maps a server command name (as the general log prints it, or after `# administrator command:`).
pub fn command_from_name(name: &[u8]) -> Option<Command> {
    Some(match name {
        b"Query" => Command::Query,
        b"Prepare" => Command::Prepare,
        b"Execute" => Command::Execute,
        b"Close stmt" => Command::CloseStmt,
        b"Reset stmt" => Command::ResetStmt,
        b"Long Data" => Command::LongData,
        b"Fetch" => Command::Fetch,
        b"Connect" => Command::Connect,
        b"Quit" => Command::Quit,
        b"Init DB" => Command::InitDb,
        b"Change user" => Command::ChangeUser,
        b"Reset Connection" => Command::ResetConnection,
        b"Ping" => Command::Ping,
        b"Field List" => Command::FieldList,
        b"Set option" => Command::SetOption,
        b"Statistics" => Command::Statistics,
        b"Refresh" => Command::Refresh,
        b"Shutdown" => Command::Shutdown,
        b"Processlist" => Command::Processlist,
        b"Kill" => Command::Kill,
        b"Debug" => Command::Debug,
        b"Sleep" => Command::Sleep,
        b"Create DB" | b"Drop DB" | b"Time" | b"Delayed insert" | b"Binlog Dump"
        | b"Table Dump" | b"Connect Out" | b"Register Slave" | b"Daemon" | b"Binlog Dump GTID"
        | b"Error" | b"clone" => Command::Other,
        _ => return None,
    })
}

/// Server command names, longest first so that `Connect Out` wins over `Connect`.
pub const COMMAND_NAMES: &[&[u8]] = &[
    b"Binlog Dump GTID",
    b"Reset Connection",
    b"Delayed insert",
    b"Register Slave",
    b"Binlog Dump",
    b"Change user",
    b"Connect Out",
    b"Processlist",
    b"Close stmt",
    b"Field List",
    b"Reset stmt",
    b"Set option",
    b"Statistics",
    b"Table Dump",
    b"Create DB",
    b"Long Data",
    b"Shutdown",
    b"Drop DB",
    b"Execute",
    b"Init DB",
    b"Prepare",
    b"Connect",
    b"Refresh",
    b"Daemon",
    b"Debug",
    b"Error",
    b"Fetch",
    b"Query",
    b"Sleep",
    b"clone",
    b"Kill",
    b"Ping",
    b"Quit",
    b"Time",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(l: &[u8]) -> bool {
        l.starts_with(b"# Time: ")
    }

    #[test]
    fn ends_at_first_clean_candidate() {
        let buf = b"SELECT 1;\n# Time: x\n";
        let r = find_body_end(buf, 0, 10, buf.len(), true, cand);
        assert_eq!(
            r,
            BodyEnd::At {
                end: 10,
                lines: 1,
                unclosed: false,
                hard: false
            }
        );
    }

    #[test]
    fn skips_candidates_inside_literals() {
        let buf = b"INSERT INTO t VALUES ('a;\n# Time: fake\n');\n# Time: real\n";
        let r = find_body_end(buf, 0, 26, buf.len(), true, cand);
        let real = buf.windows(12).position(|w| w == b"# Time: real").unwrap();
        assert_eq!(
            r,
            BodyEnd::At {
                end: real,
                lines: 3,
                unclosed: false,
                hard: false
            }
        );
    }

    #[test]
    fn unbalanced_quote_cuts_at_first_candidate() {
        let mut buf = b"SELECT 'oops;\n".to_vec();
        for _ in 0..20 {
            buf.extend_from_slice(b"# Time: x\nSELECT 1;\n");
        }
        let r = find_body_end(&buf, 0, 14, buf.len(), true, cand);
        assert_eq!(
            r,
            BodyEnd::At {
                end: 14,
                lines: 1,
                unclosed: true,
                hard: false
            }
        );
    }

    #[test]
    fn needs_more_when_chunk_ends_in_literal() {
        let buf = b"SELECT 'a;\n# Time: x\n";
        assert_eq!(
            find_body_end(buf, 0, 11, buf.len(), false, cand),
            BodyEnd::NeedMore
        );
    }
}
