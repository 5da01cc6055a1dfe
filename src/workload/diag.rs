//! What the log readers skipped or had to guess, with file:line, so nothing is dropped silently.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Why some input was skipped, or what was odd about a record that was kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Issue {
    /// Lines that are not part of any record (before the first record, or after garbage).
    NotARecord,
    /// Lines holding NUL bytes: binary data, not log text.
    BinaryData,
    /// The last record of a file was cut off (no `;` terminator).
    TruncatedFinalEvent,
    /// A slow-log record whose statement lacks the `;` the server always writes: it was kept as read.
    UnterminatedStatement,
    /// Lines after a statement's terminating `;` and before the next record.
    TrailingGarbage,
    /// A string literal never closed; the statement was cut at the next record header.
    UnclosedQuote,
    /// A slow-log metadata line with a value that does not parse (kept without that value).
    BadMetadataValue,
    /// A slow-log record with metadata but no statement.
    MissingStatement,
    /// An `Execute` whose `Prepare` is not in the log (the capture started after it).
    ExecuteWithoutPrepare,
    /// A statement with bytes that are not valid UTF-8 (kept byte for byte).
    NonUtf8,
    /// A statement holding a password, masked before output.
    PasswordMasked,
    /// A timestamp field that is out of range.
    BadTimestamp,
    /// The input could not be read to its end (corrupt or truncated compression, I/O error).
    ReadError,
    /// An input that holds no log record at all (an empty file, or only a server's start-up
    /// banner): nothing of it is in the result.
    NoRecords,
}

impl Issue {
    /// True when input was dropped rather than kept with a note.
    pub fn is_skip(self) -> bool {
        matches!(
            self,
            Issue::NotARecord
                | Issue::BinaryData
                | Issue::TruncatedFinalEvent
                | Issue::TrailingGarbage
                | Issue::MissingStatement
                | Issue::ReadError
        )
    }

    pub fn describe(self) -> &'static str {
        match self {
            Issue::NotARecord => "lines that belong to no log record were skipped",
            Issue::BinaryData => "lines holding binary data (NUL bytes) were skipped",
            Issue::TruncatedFinalEvent => {
                "the last record was cut off (no ';' terminator) and was skipped"
            }
            Issue::UnterminatedStatement => {
                "statement without the ';' terminator the server writes; kept as read"
            }
            Issue::TrailingGarbage => "lines after a statement's terminating ';' were skipped",
            Issue::UnclosedQuote => {
                "a quote never closed; the statement was cut at the next record header"
            }
            Issue::BadMetadataValue => "a metadata value did not parse and was left out",
            Issue::MissingStatement => {
                "a slow-log entry had metadata but no statement and was skipped"
            }
            Issue::ExecuteWithoutPrepare => {
                "an Execute had no Prepare earlier in its session (capture began later)"
            }
            Issue::NonUtf8 => "a statement holds bytes that are not UTF-8; kept byte for byte",
            Issue::PasswordMasked => {
                "a statement held a password; it was masked and cannot be replayed as logged"
            }
            Issue::BadTimestamp => "a timestamp was out of range and was ignored",
            Issue::ReadError => "the input could not be read to its end; what came before was used",
            Issue::NoRecords => {
                "the input holds no log record: is it the right file, and was the log on while the workload ran?"
            }
        }
    }
}

/// One occurrence, located in the input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    pub issue: Issue,
    pub file: String,
    /// First line concerned (1-based).
    pub line: u64,
    /// Number of lines concerned (skipped lines), 1 for a note on a record.
    pub lines: u64,
    /// A short excerpt or detail, printable.
    pub detail: String,
}

/// Occurrence counts by issue, and the first few occurrences of each.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Diagnostics {
    pub counts: BTreeMap<Issue, u64>,
    /// Lines dropped in all.
    pub skipped_lines: u64,
    pub examples: Vec<Note>,
}

/// How many located examples to keep per issue.
pub const EXAMPLES_PER_ISSUE: usize = 5;

impl Diagnostics {
    pub fn record(&mut self, note: Note) {
        let count = self.counts.entry(note.issue).or_insert(0);
        *count += 1;
        if note.issue.is_skip() {
            self.skipped_lines += note.lines;
        }
        if *count as usize <= EXAMPLES_PER_ISSUE {
            self.examples.push(note);
        }
    }

    pub fn count(&self, issue: Issue) -> u64 {
        self.counts.get(&issue).copied().unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
}

/// A printable excerpt of raw log bytes (at most `max` characters, control bytes escaped).
pub fn excerpt(bytes: &[u8], max: usize) -> String {
    let mut s = String::new();
    for ch in String::from_utf8_lossy(bytes).chars() {
        if s.chars().count() >= max {
            s.push('…');
            break;
        }
        if ch.is_control() && ch != '\t' {
            s.push_str(&format!("\\x{:02x}", ch as u32 & 0xff));
        } else {
            s.push(ch);
        }
    }
    s
}

impl Note {
    /// A printable one-line description (`file:line: what (detail)`).
    pub fn describe(&self) -> String {
        let n = self;
        let span = if n.lines > 1 {
            format!("{}-{}", n.line, n.line + n.lines - 1)
        } else {
            n.line.to_string()
        };
        if n.detail.is_empty() {
            format!("{}:{}: {}", n.file, span, n.issue.describe())
        } else {
            format!(
                "{}:{}: {} ({})",
                n.file,
                span,
                n.issue.describe(),
                excerpt(n.detail.as_bytes(), 80)
            )
        }
    }
}
