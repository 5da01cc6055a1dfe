//! Capture: reads MySQL/MariaDB/Percona general and slow query logs into the normalized event stream.
//!
//! Files are read in batches of a few megabytes. Each batch ends at a line where a record starts and is
//! cut into chunks, also at record starts, which are read in parallel (`general`, `slow`,
//! `build`); a sequential pass (`resolve`) then applies state carried from record to record. A
//! record that runs past its chunk inside a string literal (a chunk was cut at a line that only looked
//! like a record start) is re-read sequentially with the rest of the batch, and past the batch it is
//! carried into the next one, so the result is the same as a sequential read.
//!
//! Memory holds one batch, its events and two read-ahead blocks, whatever the size of the input.

mod build;
/// The diagnostics types live in the shared workload model; this path stays for the readers.
pub(crate) use crate::workload::diag;
mod detect;
mod general;
mod input;
mod lines;
mod records;
mod resolve;
mod slow;

use crate::workload::{Event, LogType};
use build::{ChunkEvents, build_events};
use crossbeam_channel::Receiver;
use detect::Sniff;
use diag::{Diagnostics, Issue, Note};
use input::InputProgress;
use rayon::prelude::*;
use records::ChunkRecords;
use resolve::Resolver;
use rustc_hash::FxHashSet as HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// How to read the logs.
#[derive(Clone, Debug)]
pub struct CaptureOptions {
    /// Force the log type instead of detecting it per file.
    pub log_type: Option<LogType>,
    /// Offset from UTC, in seconds, of timestamps printed without a zone (MariaDB, MySQL ≤ 5.6, MySQL
    /// 5.7+ with `log_timestamps=SYSTEM` in old builds). Default 0: such times are taken as UTC.
    pub naive_utc_offset_s: i32,
    /// Bytes per batch (default 4 MiB).
    pub batch_bytes: usize,
    /// Worker threads (0: all cores).
    pub threads: usize,
    /// Smallest chunk handed to one thread (default 64 KiB); tests lower it to exercise chunk edges.
    pub min_chunk_bytes: usize,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions {
            log_type: None,
            naive_utc_offset_s: 0,
            batch_bytes: 4 << 20,
            threads: 0,
            min_chunk_bytes: 64 << 10,
        }
    }
}

/// Why reading could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error(transparent)]
    Input(#[from] input::InputError),
    #[error(
        "{path}: cannot tell what kind of log this is (its first lines are neither general-log nor slow-log records). If it is one, pass --log-type general|slow."
    )]
    UnknownFormat { path: PathBuf },
    #[error("cannot start worker threads: {0}")]
    Threads(String),
}

pub use crate::workload::InputSummary;
use crate::workload::{Progress, Unit};
/// The chunk readers and what they say about a chunk's end, for the fuzzer that checks the parallel
/// read against a sequential one (`tests/fuzz_parsers.rs`).
pub use general::read_chunk as read_general_chunk;
pub use input::{Hashed, InputError};
pub use records::ChunkEnd;
pub use slow::read_chunk as read_slow_chunk;

/// A batch of events, in log order.
pub struct Batch {
    pub events: Vec<Event>,
    /// Fingerprints that appear for the first time in this batch: (id, text).
    pub new_fingerprints: Vec<(u64, String)>,
}

/// A file being cut into batches by the parse stage.
struct FileStream {
    index: u32,
    path: PathBuf,
    log_type: LogType,
    buf: Vec<u8>,
    rest: Option<Receiver<io::Result<Vec<u8>>>>,
    eof: bool,
    /// A read failure to report with the next batch.
    failed: Option<String>,
    /// The next batch must end past this offset of `buf`: the previous batch ended inside a record
    /// that needs more data, and cutting at the same place again would make no progress.
    min_end: usize,
}

/// What the parse stage hands the resolve stage.
enum Parsed {
    FileStart {
        index: u32,
        name: String,
        log_type: LogType,
    },
    Batch {
        /// The bytes the records point into.
        buf: Vec<u8>,
        chunks: Vec<ChunkEvents>,
        /// Bytes of `buf` consumed by this batch.
        consumed: usize,
    },
    /// Reading stopped early (I/O or decompression error); what came before is kept.
    ReadFailed {
        line: u64,
        detail: String,
    },
    Error(CaptureError),
}

/// What the resolve stage hands the caller.
enum Resolved {
    Batch(Batch),
    End {
        inputs: Vec<InputSummary>,
        diagnostics: Diagnostics,
    },
    Error(CaptureError),
}

/// Reads a sequence of log files as one event stream, batch by batch.
///
/// Three stages run concurrently: a reader thread per file (I/O, gzip), the parse stage (cuts batches,
/// reads chunks in parallel on a rayon pool) and the resolve stage (state from record to record). The
/// caller's own work on a batch overlaps with all three. Channels between stages hold one batch, so
/// memory stays bounded.
pub struct EventReader {
    rx: Receiver<Resolved>,
    inputs: Vec<InputSummary>,
    diagnostics: Diagnostics,
    progress: Vec<Arc<InputProgress>>,
    done: bool,
}

impl EventReader {
    /// Opens every input up front, so that a missing file or an unknown format is reported before any
    /// work is done.
    pub fn open(paths: &[PathBuf], opts: CaptureOptions) -> Result<EventReader, CaptureError> {
        let threads = if opts.threads == 0 {
            std::thread::available_parallelism().map_or(2, |n| n.get())
        } else {
            opts.threads
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("cutover-parse-{i}"))
            .build()
            .map_err(|e| CaptureError::Threads(e.to_string()))?;
        let mut inputs = Vec::new();
        let mut progress = Vec::new();
        let mut first = None;
        for (i, p) in paths.iter().enumerate() {
            let prog = Arc::new(InputProgress::default());
            let (stream, summary) = open_file(&opts, i as u32, p, prog.clone())?;
            inputs.push(summary);
            progress.push(prog);
            if i == 0 {
                first = Some(stream);
            }
        }
        let (parsed_tx, parsed_rx) = crossbeam_channel::bounded::<Parsed>(1);
        let (resolved_tx, resolved_rx) = crossbeam_channel::bounded::<Resolved>(1);
        let parse_progress = progress.clone();
        let parse_paths = paths.to_vec();
        let parse_opts = opts.clone();
        let spawn_err = |e: io::Error| CaptureError::Threads(e.to_string());
        std::thread::Builder::new()
            .name("cutover-split".into())
            .spawn(move || {
                parse_stage(
                    parse_opts,
                    parse_paths,
                    first,
                    parse_progress,
                    pool,
                    parsed_tx,
                )
            })
            .map_err(spawn_err)?;
        let resolve_inputs = inputs.clone();
        std::thread::Builder::new()
            .name("cutover-resolve".into())
            .spawn(move || resolve_stage(resolve_inputs, parsed_rx, resolved_tx))
            .map_err(spawn_err)?;
        Ok(EventReader {
            rx: resolved_rx,
            inputs,
            diagnostics: Diagnostics::default(),
            progress,
            done: false,
        })
    }

    /// The inputs, with what has been read of them (complete once `next_batch` returned `None`).
    pub fn inputs(&self) -> &[InputSummary] {
        &self.inputs
    }

    /// What was skipped or odd (complete once `next_batch` returned `None`).
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diagnostics
    }

    /// (bytes read from disk, total bytes when known) over all inputs, for progress displays.
    pub fn progress(&self) -> (u64, Option<u64>) {
        let done = self
            .progress
            .iter()
            .map(|p| p.bytes.load(Ordering::Relaxed))
            .sum();
        let total = self.inputs.iter().map(|i| i.bytes).sum::<Option<u64>>();
        (done, total)
    }

    /// Reads every batch, handing each to `each`, and reports bytes read to `progress`.
    pub fn for_each_batch<E: From<CaptureError>>(
        &mut self,
        progress: &dyn Progress,
        mut each: impl FnMut(Batch) -> Result<(), E>,
    ) -> Result<(), E> {
        progress.phase("reading logs", self.progress().1, Unit::Bytes);
        let mut events = 0u64;
        while let Some(batch) = self.next_batch()? {
            events += batch.events.len() as u64;
            each(batch)?;
            progress.done(self.progress().0);
            progress.note(&format!("{events} events"));
        }
        progress.finish();
        Ok(())
    }

    /// The next batch of events, or `None` at the end of the last input.
    pub fn next_batch(&mut self) -> Result<Option<Batch>, CaptureError> {
        if self.done {
            return Ok(None);
        }
        match self.rx.recv() {
            Ok(Resolved::Batch(b)) => Ok(Some(b)),
            Ok(Resolved::End {
                inputs,
                diagnostics,
            }) => {
                self.inputs = inputs;
                for (summary, p) in self.inputs.iter_mut().zip(&self.progress) {
                    summary.xxh3 = p.content_hash().map(|h| format!("{h:016x}"));
                }
                self.diagnostics = diagnostics;
                self.done = true;
                Ok(None)
            }
            Ok(Resolved::Error(e)) => {
                self.done = true;
                Err(e)
            }
            Err(_) => {
                self.done = true;
                Err(CaptureError::Threads(
                    "the capture pipeline stopped unexpectedly".into(),
                ))
            }
        }
    }
}

fn open_file(
    opts: &CaptureOptions,
    index: u32,
    path: &Path,
    progress: Arc<InputProgress>,
) -> Result<(FileStream, InputSummary), CaptureError> {
    // Opening again (after the up-front check) counts progress from the start.
    let opened = input::open(path, opts.batch_bytes, progress)?;
    let log_type = match opts.log_type {
        Some(t) => t,
        None => match detect::sniff(&opened.head) {
            Sniff::Is(t) => t,
            // An empty log: nothing to read either way.
            Sniff::Empty => LogType::Slow,
            Sniff::Unknown => {
                return Err(CaptureError::UnknownFormat {
                    path: path.to_path_buf(),
                });
            }
        },
    };
    let summary = InputSummary {
        path: path.display().to_string(),
        log_type,
        compressed: opened.compressed,
        bytes: opened.size,
        text_bytes: 0,
        lines: 0,
        events: 0,
        xxh3: None,
        damaged: None,
    };
    let stream = FileStream {
        index,
        path: path.to_path_buf(),
        log_type,
        buf: opened.head,
        rest: opened.rest,
        eof: opened.head_is_all,
        failed: opened.head_error,
        min_end: 0,
    };
    Ok((stream, summary))
}

/// The parse stage: files → batches → chunks read in parallel.
fn parse_stage(
    opts: CaptureOptions,
    paths: Vec<PathBuf>,
    first: Option<FileStream>,
    progress: Vec<Arc<InputProgress>>,
    pool: rayon::ThreadPool,
    tx: crossbeam_channel::Sender<Parsed>,
) {
    let mut known: HashSet<u64> = HashSet::default();
    let mut first = first;
    for (i, path) in paths.iter().enumerate() {
        let mut stream = match first.take() {
            Some(s) => s,
            None => match open_file(&opts, i as u32, path, progress[i].clone()) {
                Ok((s, _)) => s,
                Err(e) => {
                    let _ = tx.send(Parsed::Error(e));
                    return;
                }
            },
        };
        let name = stream.path.display().to_string();
        if tx
            .send(Parsed::FileStart {
                index: stream.index,
                name,
                log_type: stream.log_type,
            })
            .is_err()
        {
            return;
        }
        let mut line_base = 0u64;
        while let Some(msgs) =
            next_parsed_batch(&opts, &mut stream, &pool, &mut known, &mut line_base)
        {
            for m in msgs {
                if tx.send(m).is_err() {
                    return;
                }
            }
        }
    }
}

/// Receives blocks until the buffer holds `want` bytes or the file ends; a read failure ends the file.
fn fill(stream: &mut FileStream, want: usize, failed: &mut Option<String>) {
    while !stream.eof && stream.buf.len() < want {
        let Some(rx) = &stream.rest else {
            stream.eof = true;
            break;
        };
        match rx.recv() {
            // The reader thread closes the channel after the last block (and any error).
            Ok(Ok(block)) => stream.buf.extend_from_slice(&block),
            Ok(Err(e)) => {
                *failed = Some(input::describe_read_error(&stream.path, &e));
                stream.eof = true;
            }
            Err(_) => stream.eof = true,
        }
    }
}

/// Cuts, reads and prepares one batch of the stream; `None` when the file is done.
fn next_parsed_batch(
    opts: &CaptureOptions,
    st: &mut FileStream,
    pool: &rayon::ThreadPool,
    known: &mut HashSet<u64>,
    line_base: &mut u64,
) -> Option<Vec<Parsed>> {
    let batch_bytes = opts.batch_bytes;
    let mut failed = st.failed.take();
    fill(st, st.min_end + batch_bytes, &mut failed);
    if st.buf.is_empty() && st.eof {
        return None;
    }
    let tz = opts.naive_utc_offset_s;
    let log_type = st.log_type;
    // Where this batch ends: the last record start in the buffer, so no record is cut.
    let target = st.min_end + batch_bytes;
    let batch_end = loop {
        // Batches stay near `batch_bytes` even when more is buffered (the first block is larger).
        if st.buf.len() > target
            && let Some(p) =
                last_split_point(&st.buf[..target], log_type, tz).filter(|&p| p > st.min_end)
        {
            break p;
        }
        if st.eof {
            break st.buf.len();
        }
        match last_split_point(&st.buf, log_type, tz) {
            Some(p) if p > st.min_end => break p,
            _ => {
                let want = st.buf.len() + batch_bytes;
                fill(st, want, &mut failed);
            }
        }
    };
    let at_eof = st.eof && batch_end == st.buf.len();
    let buf = &st.buf;
    let chunks = split_chunks(
        buf,
        batch_end,
        log_type,
        tz,
        pool.current_num_threads() * 4,
        opts.min_chunk_bytes,
    );
    let known_ref = &*known;
    let mut outs: Vec<ChunkEvents> = pool.install(|| {
        chunks
            .par_iter()
            .enumerate()
            .map(|(i, &(s, e))| {
                let last = i + 1 == chunks.len();
                let recs = read_records(buf, s, e, last && at_eof, log_type, tz);
                build_events(buf, recs, known_ref)
            })
            .collect()
    });
    // A record that runs past its chunk inside a literal: read the rest of the batch sequentially from
    // there, dropping what the later chunks made of it.
    let mut carry_from = batch_end;
    if let Some(k) = outs
        .iter()
        .position(|o| matches!(o.records.end, ChunkEnd::Incomplete { .. }))
    {
        outs.truncate(k + 1);
        if let ChunkEnd::Incomplete { record_start, .. } = outs[k].records.end {
            let recs = read_records(buf, record_start, batch_end, at_eof, log_type, tz);
            let again = build_events(buf, recs, known_ref);
            if let ChunkEnd::Incomplete { record_start, .. } = again.records.end {
                carry_from = record_start;
            }
            outs.push(again);
        }
    }
    for o in &outs {
        for (id, _) in &o.new_fingerprints {
            known.insert(*id);
        }
        *line_base += o.records.lines;
    }
    st.min_end = batch_end.saturating_sub(carry_from);
    // The unread tail starts the next batch; the batch keeps the rest of the buffer.
    let mut next = Vec::with_capacity(batch_bytes + (st.buf.len() - carry_from) + (64 << 10));
    next.extend_from_slice(&st.buf[carry_from..]);
    let buf = std::mem::replace(&mut st.buf, next);
    let mut msgs = vec![Parsed::Batch {
        buf,
        chunks: outs,
        consumed: carry_from,
    }];
    if let Some(detail) = failed {
        msgs.push(Parsed::ReadFailed {
            line: *line_base + 1,
            detail,
        });
    }
    Some(msgs)
}

/// The resolve stage: applies record-to-record state and hands out events.
fn resolve_stage(
    mut inputs: Vec<InputSummary>,
    rx: Receiver<Parsed>,
    tx: crossbeam_channel::Sender<Resolved>,
) {
    let mut resolver = Resolver::default();
    let mut diagnostics = Diagnostics::default();
    let mut current: Option<(u32, String)> = None;
    let mut line_base = 0u64;
    let mut seen_fps: HashSet<u64> = HashSet::default();
    for msg in rx {
        match msg {
            Parsed::FileStart {
                index,
                name,
                log_type,
            } => {
                resolver.start_file(index, &name, log_type);
                current = Some((index, name));
                line_base = 0;
            }
            Parsed::Batch {
                buf,
                chunks,
                consumed,
            } => {
                let Some((index, name)) = &current else {
                    continue;
                };
                // Sized up front: a 4 MiB batch of a general log is some 60,000 events, and growing
                // the vector by doubling copied it again and again (2.6% of the resolve thread's
                // samples in a replay's profile, 2026-12-06).
                let in_batch: usize = chunks.iter().map(|o| o.events.len()).sum();
                let mut events = Vec::with_capacity(in_batch);
                let mut new_fps = Vec::new();
                for out in chunks {
                    let lines = out.records.lines;
                    absorb(
                        &mut resolver,
                        &mut diagnostics,
                        name,
                        &buf,
                        out,
                        line_base,
                        &mut events,
                        &mut new_fps,
                    );
                    line_base += lines;
                }
                drop(buf);
                new_fps.retain(|(id, _)| seen_fps.insert(*id));
                if let Some(s) = inputs.get_mut(*index as usize) {
                    s.text_bytes += consumed as u64;
                    s.lines = line_base;
                    s.events += events.len() as u64;
                }
                if (!events.is_empty() || !new_fps.is_empty())
                    && tx
                        .send(Resolved::Batch(Batch {
                            events,
                            new_fingerprints: new_fps,
                        }))
                        .is_err()
                {
                    return;
                }
            }
            Parsed::ReadFailed { line, detail } => {
                let file = current.as_ref().map(|c| c.1.clone()).unwrap_or_default();
                if let Some(s) = current
                    .as_ref()
                    .and_then(|(index, _)| inputs.get_mut(*index as usize))
                {
                    s.damaged = Some(format!(
                        "unreadable after line {} (byte {} of its {}text): {detail}",
                        line.saturating_sub(1),
                        s.text_bytes,
                        if s.compressed { "decompressed " } else { "" }
                    ));
                }
                diagnostics.record(Note {
                    issue: Issue::ReadError,
                    file,
                    line,
                    lines: 0,
                    detail,
                });
            }
            Parsed::Error(e) => {
                let _ = tx.send(Resolved::Error(e));
                return;
            }
        }
    }
    // An input that gave nothing is said so, where its lines would otherwise go unremarked (an
    // empty file reads as a valid, empty capture).
    for s in inputs
        .iter()
        .filter(|s| s.events == 0 && s.damaged.is_none())
    {
        diagnostics.record(Note {
            issue: Issue::NoRecords,
            file: s.path.clone(),
            line: 1,
            lines: 0,
            detail: if s.text_bytes == 0 {
                "an empty file".into()
            } else {
                format!("{} lines, none a record", s.lines)
            },
        });
    }
    let _ = tx.send(Resolved::End {
        inputs,
        diagnostics,
    });
}

/// Adds one chunk's events and notes, resolved, to the batch.
#[allow(clippy::too_many_arguments)]
fn absorb(
    resolver: &mut Resolver,
    diags: &mut Diagnostics,
    file_name: &str,
    buf: &[u8],
    out: ChunkEvents,
    line_base: u64,
    events: &mut Vec<Event>,
    new_fps: &mut Vec<(u64, String)>,
) {
    let ChunkEvents {
        records,
        events: pres,
        new_fingerprints,
    } = out;
    let ChunkRecords { records, notes, .. } = records;
    for n in notes {
        diags.record(Note {
            issue: n.issue,
            file: file_name.to_string(),
            line: line_base + n.line + 1,
            lines: n.lines,
            detail: n.detail,
        });
    }
    new_fps.extend(new_fingerprints);
    let mut pres = pres.into_iter().peekable();
    for (ri, rec) in records.iter().enumerate() {
        let mut mine = std::iter::from_fn(|| pres.next_if(|p| p.record == ri));
        resolver.resolve_record(buf, rec, &mut mine, line_base, diags, events);
    }
}

fn read_records(
    buf: &[u8],
    start: usize,
    end: usize,
    at_eof: bool,
    log_type: LogType,
    tz: i32,
) -> ChunkRecords {
    match log_type {
        LogType::General => general::read_chunk(buf, start, end, at_eof, tz),
        LogType::Slow => slow::read_chunk(buf, start, end, at_eof, tz),
    }
}

fn is_split_point(buf: &[u8], pos: usize, log_type: LogType, tz: i32) -> bool {
    match log_type {
        LogType::General => general::is_split_point(buf, pos, tz),
        LogType::Slow => slow::is_split_point(buf, pos),
    }
}

/// The start of the last complete line in `buf` where a record starts.
fn last_split_point(buf: &[u8], log_type: LogType, tz: i32) -> Option<usize> {
    // Skip the last line if it has no newline yet: it may be incomplete.
    let search_end = match buf.last() {
        Some(b'\n') => buf.len() - 1,
        _ => memchr::memrchr(b'\n', buf)?,
    };
    for nl in memchr::memrchr_iter(b'\n', &buf[..search_end]) {
        let pos = nl + 1;
        if is_split_point(&buf[..search_end + 1], pos, log_type, tz) {
            return Some(pos);
        }
    }
    None
}

/// Cuts `buf[..end]` into up to `n` chunks at record starts.
fn split_chunks(
    buf: &[u8],
    end: usize,
    log_type: LogType,
    tz: i32,
    n: usize,
    min_chunk: usize,
) -> Vec<(usize, usize)> {
    let mut bounds = vec![0usize];
    let step = (end / n.max(1)).max(min_chunk.max(1));
    let mut target = step;
    while target < end {
        let Some(nl) = memchr::memchr(b'\n', &buf[target..end]) else {
            break;
        };
        let mut pos = target + nl + 1;
        let mut found = None;
        while pos < end {
            if is_split_point(&buf[..end], pos, log_type, tz) {
                found = Some(pos);
                break;
            }
            match memchr::memchr(b'\n', &buf[pos..end]) {
                Some(off) => pos += off + 1,
                None => break,
            }
        }
        match found {
            Some(p) if p > *bounds.last().unwrap_or(&0) => {
                bounds.push(p);
                target = p + step;
            }
            _ => break,
        }
    }
    let mut chunks = Vec::with_capacity(bounds.len());
    for w in bounds.windows(2) {
        chunks.push((w[0], w[1]));
    }
    chunks.push((*bounds.last().unwrap_or(&0), end));
    chunks
}

/// Reads every event of `paths` into memory. For tests and small inputs; real callers stream batches.
pub fn read_all(
    paths: &[PathBuf],
    opts: CaptureOptions,
) -> Result<(Vec<Event>, Diagnostics), CaptureError> {
    let mut reader = EventReader::open(paths, opts)?;
    let mut all = Vec::new();
    while let Some(b) = reader.next_batch()? {
        all.extend(b.events);
    }
    Ok((all, reader.diagnostics().clone()))
}
