//! What the audit reads: the distinct statements of its inputs.
//!
//! A `.sql` script (mysqldump output included) yields each of its statements, in order. A captured log
//! (anything `cutover digest` reads) yields one statement per fingerprint, in order of first
//! appearance, with how often it ran, for how long in total, and the first execution as its sample:
//! auditing a 10 GB capture means auditing its few hundred distinct statements once each.

use super::StatementOrigin;
use crate::capture::Hashed;
use crate::capture::{CaptureError, CaptureOptions, EventReader};
use crate::sql::fingerprint::fingerprint;
use crate::sql::fingerprint::{fingerprint_id, format_id};
use crate::sql::redact::redact;
use crate::sql::script::{ScriptError, ScriptReader, ScriptStatement, Unterminated, split_script};
use crate::workload::InputRef;
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};

/// One distinct statement to audit.
#[derive(Clone, Debug)]
pub struct DistinctStatement {
    pub fingerprint: String,
    pub fingerprint_id: String,
    /// The statement (a script's text, or a log's first execution), passwords masked.
    pub sample: String,
    /// Executions (1 for each statement of a script).
    pub count: u64,
    /// Total recorded execution time, when the log recorded durations.
    pub total_time_s: Option<f64>,
    pub origin: StatementOrigin,
    /// A script statement whose quote or comment never closed (cut at the end of that line).
    pub unterminated: Option<Unterminated>,
}

/// What was read, and what was odd about it.
#[derive(Debug, Default)]
pub struct AuditInput {
    pub statements: Vec<DistinctStatement>,
    /// Log notes (skipped records, truncated files), one line each, `file:line: what`.
    pub notes: Vec<String>,
    /// Statement executions read (logs), or statements (scripts).
    pub executions: u64,
    /// The files read, with their sizes and content hashes.
    pub inputs: Vec<InputRef>,
}

/// Why an input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{path}: cannot read the SQL script: {source}")]
    Script {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "{path}:{line}: the SQL script is not UTF-8 text; convert it (iconv -f latin1 -t utf-8) and run again"
    )]
    NotUtf8 { path: String, line: usize },
    #[error("{0} (if it is a SQL script, give it a .sql name)")]
    Log(CaptureError),
}

/// True when `path` names a SQL script rather than a captured log.
pub fn is_script(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.ends_with(".sql") || name.ends_with(".sql.gz")
}

/// Reads a SQL script (plain or gzip): every statement, in order. The script is read as it goes,
/// never whole; its size and content hash are kept for the report's header. `raw_bytes`: bytes
/// that are not UTF-8 inside string literals are kept (a dump being translated by `--emit-sql`,
/// whose BIT and BLOB values mysqldump writes as raw bytes); otherwise they are an error.
pub fn read_script(path: &Path, raw_bytes: bool) -> Result<AuditInput, InputError> {
    use std::io::BufRead;
    let display = path.display().to_string();
    let script_error = |e: std::io::Error| InputError::Script {
        path: display.clone(),
        source: e,
    };
    let file = std::fs::File::open(path).map_err(script_error)?;
    let mut hashed = Hashed::new(file);
    let mut head = std::io::BufReader::with_capacity(1 << 20, &mut hashed);
    let gzip = head
        .fill_buf()
        .map_err(script_error)?
        .starts_with(&[0x1f, 0x8b]);
    let reader: Box<dyn std::io::Read + '_> = if gzip {
        Box::new(flate2::read::MultiGzDecoder::new(head))
    } else {
        Box::new(head)
    };
    let mut got = AuditInput::default();
    let mut statements = ScriptReader::new(reader);
    if raw_bytes {
        statements = statements.with_raw_bytes_in_strings();
    }
    let mut damaged = None;
    // The last line of the last statement read whole.
    let mut read_to_line = 0usize;
    while let Some(st) = statements.next() {
        // A corrupt or truncated (gzip) file: keep what came before, and say where it stopped
        // (an unreadable file from its first byte is an error: nothing was read).
        if let Err(ScriptError::Io(e)) = &st
            && statements.bytes_read() > 0
        {
            damaged = Some(if read_to_line == 0 {
                format!("unreadable within its first statement: {e}")
            } else {
                format!("unreadable after line {read_to_line}: {e}")
            });
            break;
        }
        if let Ok(s) = &st {
            read_to_line = s.line + s.text.matches('\n').count();
        }
        let st = st.map_err(|e| match e {
            ScriptError::Io(e) => script_error(e),
            ScriptError::NotUtf8 { line } => InputError::NotUtf8 {
                path: display.clone(),
                line,
            },
            other => InputError::Script {
                path: display.clone(),
                source: std::io::Error::other(other.to_string()),
            },
        })?;
        got.statements.push(distinct(&st, &display));
    }
    got.executions = got.statements.len() as u64;
    drop(statements);
    let (bytes, hash) = hashed.finish();
    got.inputs.push(InputRef {
        path: display,
        bytes: Some(bytes),
        xxh3: damaged.is_none().then(|| format!("{hash:016x}")),
        damaged,
    });
    Ok(got)
}

/// A script statement as the audit takes it.
pub(crate) fn distinct(st: &ScriptStatement, file: &str) -> DistinctStatement {
    let fp = fingerprint(st.text.as_bytes());
    let red = redact(st.text.as_bytes());
    DistinctStatement {
        fingerprint_id: format_id(fingerprint_id(fp.as_bytes())),
        fingerprint: fp,
        sample: String::from_utf8_lossy(&red.text).into_owned(),
        count: 1,
        total_time_s: None,
        origin: StatementOrigin {
            file: file.to_string(),
            line: st.line as u64,
            column: st.column as u64,
        },
        unterminated: st.unterminated.clone(),
    }
}

/// The statements of a script held in memory (`name` is where they are said to come from).
pub fn script_statements(text: &str, name: &str) -> AuditInput {
    let statements: Vec<DistinctStatement> = split_script(text)
        .iter()
        .map(|st| distinct(st, name))
        .collect();
    AuditInput {
        executions: statements.len() as u64,
        inputs: Vec::new(),
        statements,
        notes: Vec::new(),
    }
}

/// Reads captured logs: one statement per fingerprint, in order of first appearance. `progress` is
/// called after each batch with (bytes read, total bytes when known).
pub fn read_logs(
    paths: &[PathBuf],
    opts: CaptureOptions,
    mut progress: impl FnMut(u64, Option<u64>),
) -> Result<AuditInput, InputError> {
    let mut reader = EventReader::open(paths, opts).map_err(InputError::Log)?;
    let mut texts: FxHashMap<u64, String> = FxHashMap::default();
    let mut index: FxHashMap<u64, usize> = FxHashMap::default();
    let mut statements: Vec<DistinctStatement> = Vec::new();
    let mut timed: Vec<bool> = Vec::new();
    let mut executions = 0u64;
    while let Some(batch) = reader.next_batch().map_err(InputError::Log)? {
        texts.extend(batch.new_fingerprints);
        for ev in &batch.events {
            if !ev.command.is_statement() {
                continue;
            }
            executions += 1;
            let slot = *index.entry(ev.fingerprint_id).or_insert_with(|| {
                let file = reader
                    .inputs()
                    .get(ev.origin.file as usize)
                    .map(|i| i.path.clone())
                    .unwrap_or_default();
                statements.push(DistinctStatement {
                    fingerprint: texts.get(&ev.fingerprint_id).cloned().unwrap_or_default(),
                    fingerprint_id: format_id(ev.fingerprint_id),
                    sample: ev.sql_lossy().into_owned(),
                    count: 0,
                    total_time_s: None,
                    origin: StatementOrigin {
                        file,
                        line: ev.origin.line,
                        column: 1,
                    },
                    unterminated: None,
                });
                timed.push(false);
                statements.len() - 1
            });
            let st = &mut statements[slot];
            st.count += 1;
            if let Some(d) = ev.duration_us {
                *st.total_time_s.get_or_insert(0.0) += d as f64 / 1e6;
                timed[slot] = true;
            }
        }
        let (done, total) = reader.progress();
        progress(done, total);
    }
    // A fingerprint first seen in a batch is announced in that batch, so every text is known by now;
    // fill any left empty (events read before their announcement) from the final table.
    for st in &mut statements {
        if st.fingerprint.is_empty() {
            st.fingerprint = fingerprint(st.sample.as_bytes());
        }
    }
    let notes = reader
        .diagnostics()
        .examples
        .iter()
        .map(crate::workload::diag::Note::describe)
        .collect();
    let inputs = reader.inputs().iter().map(InputRef::from).collect();
    Ok(AuditInput {
        statements,
        notes,
        executions,
        inputs,
    })
}

/// Reads every input, scripts and logs alike, into one list (statements of later inputs follow).
pub fn read_inputs(
    paths: &[PathBuf],
    opts: CaptureOptions,
    raw_bytes: bool,
    mut progress: impl FnMut(u64, Option<u64>),
) -> Result<AuditInput, InputError> {
    let (scripts, logs): (Vec<PathBuf>, Vec<PathBuf>) =
        paths.iter().cloned().partition(|p| is_script(p));
    let mut all = AuditInput::default();
    for p in &scripts {
        let one = read_script(p, raw_bytes)?;
        all.executions += one.executions;
        all.statements.extend(one.statements);
        all.inputs.extend(one.inputs);
    }
    if !logs.is_empty() {
        let one = read_logs(&logs, opts, &mut progress)?;
        all.executions += one.executions;
        all.notes.extend(one.notes);
        all.inputs.extend(one.inputs);
        // The same statement may appear in a script and a log: keep them apart (they have different
        // origins), the log's with its counts.
        all.statements.extend(one.statements);
    }
    Ok(all)
}
