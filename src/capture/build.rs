//! The per-chunk work that needs no state from earlier in the file, done in parallel: splitting
//! multi-statement queries, fingerprinting, masking passwords.

use super::records::ChunkRecords;
use crate::sql::fingerprint::{FingerprintInfo, Fingerprinter, fingerprint_id};
use crate::sql::keywords::eq_kw;
use crate::sql::lexer::{Lexer, TokenKind};
use crate::sql::redact::redact;
use crate::sql::split::split_statements;
use crate::workload::Command;
use rustc_hash::FxHashSet as HashSet;

/// One event's worth of work done, tied to its record.
#[derive(Debug)]
pub struct PreEvent {
    /// Index of the record in the chunk's records.
    pub record: usize,
    pub command: Command,
    pub sql: Vec<u8>,
    pub fingerprint_id: u64,
    pub multi: Option<(u16, u16)>,
    pub redacted: bool,
    pub non_utf8: bool,
    /// For `USE db` statements: the database they switch to (unquoted).
    pub switches_db: Option<Vec<u8>>,
}

/// A chunk read and prepared.
#[derive(Debug)]
pub struct ChunkEvents {
    pub records: ChunkRecords,
    pub events: Vec<PreEvent>,
    /// Fingerprints first seen in this chunk (not in the set passed in), with their text.
    pub new_fingerprints: Vec<(u64, String)>,
}

/// Prepares the events of one chunk.
pub fn build_events(buf: &[u8], records: ChunkRecords, known: &HashSet<u64>) -> ChunkEvents {
    let mut events = Vec::with_capacity(records.records.len());
    let mut new_fps: Vec<(u64, String)> = Vec::new();
    let mut local: HashSet<u64> = HashSet::default();
    let mut fper = Fingerprinter::default();
    let mut fp_buf = Vec::with_capacity(256);
    for (ri, rec) in records.records.iter().enumerate() {
        let command = rec.command.unwrap_or(Command::Query);
        let text = rec.sql.get(buf);
        match command {
            Command::Query | Command::Execute | Command::Prepare => {
                // Several statements in one Query (CLIENT_MULTI_STATEMENTS; the general log keeps them
                // in one record, a slow log may too): each is judged and replayed on its own.
                let parts = if command == Command::Query {
                    split_statements(text)
                } else {
                    vec![(0, trim_len(text))]
                };
                let n = parts.len();
                if n == 0 {
                    // An empty statement (a bare `;`): keep it as an event so nothing vanishes.
                    let id =
                        note_fp(&mut fper, &mut fp_buf, b"", &mut local, known, &mut new_fps).0;
                    events.push(pre(ri, command, Vec::new(), id, None));
                    continue;
                }
                for (k, (a, b)) in parts.into_iter().enumerate() {
                    let stmt = &text[a..b];
                    let (id, info) = note_fp(
                        &mut fper,
                        &mut fp_buf,
                        stmt,
                        &mut local,
                        known,
                        &mut new_fps,
                    );
                    let multi = if n > 1 {
                        Some((
                            k.min(u16::MAX as usize) as u16,
                            n.min(u16::MAX as usize) as u16,
                        ))
                    } else {
                        None
                    };
                    let mut ev = pre(ri, command, stmt.to_vec(), id, multi);
                    if info.mentions_password || memchr::memmem::find(stmt, b"<secret>").is_some() {
                        let red = redact(stmt);
                        if red.masked > 0 || red.server_masked {
                            ev.redacted = true;
                            ev.sql = red.text;
                        }
                    }
                    if command == Command::Query {
                        ev.switches_db = use_target(stmt);
                    }
                    events.push(ev);
                }
            }
            _ => {
                let fp = command.admin_fingerprint();
                let id = fingerprint_id(fp.as_bytes());
                if !known.contains(&id) && local.insert(id) {
                    new_fps.push((id, fp));
                }
                events.push(pre(ri, command, text.to_vec(), id, None));
            }
        }
    }
    ChunkEvents {
        records,
        events,
        new_fingerprints: new_fps,
    }
}

fn pre(
    record: usize,
    command: Command,
    sql: Vec<u8>,
    fingerprint_id: u64,
    multi: Option<(u16, u16)>,
) -> PreEvent {
    let non_utf8 = std::str::from_utf8(&sql).is_err();
    PreEvent {
        record,
        command,
        sql,
        fingerprint_id,
        multi,
        redacted: false,
        non_utf8,
        switches_db: None,
    }
}

fn trim_len(text: &[u8]) -> usize {
    let mut e = text.len();
    while e > 0 && text[e - 1].is_ascii_whitespace() {
        e -= 1;
    }
    e
}

fn note_fp(
    fper: &mut Fingerprinter,
    out: &mut Vec<u8>,
    stmt: &[u8],
    local: &mut HashSet<u64>,
    known: &HashSet<u64>,
    new_fps: &mut Vec<(u64, String)>,
) -> (u64, FingerprintInfo) {
    let info = fper.run(stmt, out);
    let id = fingerprint_id(out);
    if !known.contains(&id) && local.insert(id) {
        new_fps.push((id, String::from_utf8_lossy(out).into_owned()));
    }
    (id, info)
}

/// The database a `USE db` statement switches to.
fn use_target(stmt: &[u8]) -> Option<Vec<u8>> {
    let start = stmt.iter().position(|b| !b.is_ascii_whitespace())?;
    if stmt.len() < start + 4
        || !eq_kw(&stmt[start..start + 3], b"USE")
        || !stmt[start + 3].is_ascii_whitespace()
    {
        return None;
    }
    let mut toks = Lexer::new(&stmt[start..])
        .filter(|t| !matches!(t.kind, TokenKind::Whitespace | TokenKind::Comment));
    toks.next()?;
    let t = toks.next()?;
    let text = t.text(&stmt[start..]);
    match t.kind {
        TokenKind::Word => Some(text.to_vec()),
        TokenKind::QuotedIdent => Some(crate::sql::lexer::unquote(text)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_statements() {
        assert_eq!(use_target(b"USE shop"), Some(b"shop".to_vec()));
        assert_eq!(use_target(b"  use `my``db`"), Some(b"my`db".to_vec()));
        assert_eq!(use_target(b"USER()"), None);
        assert_eq!(use_target(b"SELECT 1"), None);
    }
}
