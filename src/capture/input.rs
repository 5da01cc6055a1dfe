//! Opens log files (plain or gzip, or standard input) and reads them in blocks on a background thread,
//! so that decompression and I/O overlap with parsing.

use crossbeam_channel::{Receiver, bounded};
use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use xxhash_rust::xxh3::Xxh3;

/// Why a log could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot open {path}: {source}. Check the path and that you may read it.")]
    Open { path: PathBuf, source: io::Error },
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
}

/// Bytes read before the log type is detected.
pub const SNIFF_BYTES: usize = 256 << 10;

/// How far the reading of one input got: bytes read from the file (compressed bytes for .gz), for
/// progress, and the content hash of those bytes once the end was reached, so results can show that
/// they come from the same capture.
#[derive(Default)]
pub struct InputProgress {
    pub bytes: AtomicU64,
    hash: Mutex<(Xxh3, Option<u64>)>,
}

impl InputProgress {
    /// Starts over (the file is opened again).
    fn reset(&self) {
        self.bytes.store(0, Ordering::Relaxed);
        if let Ok(mut h) = self.hash.lock() {
            *h = (Xxh3::new(), None);
        }
    }

    /// xxh3-64 of the whole file, once it was read to its end.
    pub fn content_hash(&self) -> Option<u64> {
        self.hash.lock().ok().and_then(|h| h.1)
    }
}

/// A reader that counts and hashes what passes through it (scripts, which are not read by the log
/// pipeline).
pub struct Hashed<R> {
    inner: R,
    hasher: Xxh3,
    bytes: u64,
}

impl<R> Hashed<R> {
    pub fn new(inner: R) -> Hashed<R> {
        Hashed {
            inner,
            hasher: Xxh3::new(),
            bytes: 0,
        }
    }

    /// (bytes read, xxh3-64 of them).
    pub fn finish(&self) -> (u64, u64) {
        (self.bytes, self.hasher.digest())
    }
}

impl<R: Read> Read for Hashed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
}

/// Counts and hashes the bytes read from the underlying file.
struct Counting<R> {
    inner: R,
    progress: Arc<InputProgress>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.bytes.fetch_add(n as u64, Ordering::Relaxed);
        if let Ok(mut h) = self.progress.hash.lock() {
            if n == 0 {
                if h.1.is_none() && !buf.is_empty() {
                    h.1 = Some(h.0.digest());
                }
            } else {
                h.0.update(&buf[..n]);
            }
        }
        Ok(n)
    }
}

/// An opened input: its first block (for sniffing) and a channel with the rest.
pub struct OpenedInput {
    pub head: Vec<u8>,
    /// The first block was the whole input.
    pub head_is_all: bool,
    /// Reading stopped with this error within the first block.
    pub head_error: Option<String>,
    pub compressed: bool,
    /// On-disk size, when known.
    pub size: Option<u64>,
    pub rest: Option<Receiver<io::Result<Vec<u8>>>>,
}

/// A decoding failure that happened in the middle of a file (corrupt or truncated gzip).
pub fn describe_read_error(path: &Path, e: &io::Error) -> String {
    format!("reading {} stopped early: {e}", path.display())
}

/// Reads up to `block` bytes. On a failure part-way (a truncated gzip stream), the bytes read before
/// it are returned with the error.
fn fill_block(r: &mut dyn Read, block: usize) -> (Vec<u8>, Option<io::Error>) {
    let mut buf = Vec::with_capacity(block);
    let err = r.take(block as u64).read_to_end(&mut buf).err();
    (buf, err)
}

/// Opens `path` (`-` for standard input) and starts reading it in `block`-byte pieces.
pub fn open(
    path: &Path,
    block: usize,
    progress: Arc<InputProgress>,
) -> Result<OpenedInput, InputError> {
    progress.reset();
    let (raw, size): (Box<dyn Read + Send>, Option<u64>) = if path == Path::new("-") {
        (Box::new(io::stdin()), None)
    } else {
        let f = File::open(path).map_err(|source| InputError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        let meta = f.metadata().map_err(|source| InputError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        if meta.is_dir() {
            return Err(InputError::Open {
                path: path.to_path_buf(),
                source: io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "it is a directory, not a log file",
                ),
            });
        }
        (Box::new(f), Some(meta.len()))
    };
    let mut reader = BufReader::with_capacity(
        1 << 20,
        Counting {
            inner: raw,
            progress: progress.clone(),
        },
    );
    let peek = reader.fill_buf().map_err(|source| InputError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let compressed = peek.len() >= 2 && peek[0] == 0x1f && peek[1] == 0x8b;
    let mut stream: Box<dyn Read + Send> = if compressed {
        Box::new(MultiGzDecoder::new(reader))
    } else {
        Box::new(reader)
    };
    // The first block is also what the log type is detected from: never less than SNIFF_BYTES.
    let first = block.max(SNIFF_BYTES);
    let (head, err) = fill_block(&mut stream, first);
    if let Some(e) = err {
        if head.is_empty() {
            return Err(InputError::Read {
                path: path.to_path_buf(),
                source: e,
            });
        }
        let head_error = Some(describe_read_error(path, &e));
        return Ok(OpenedInput {
            head,
            head_is_all: true,
            head_error,
            compressed,
            size,
            rest: None,
        });
    }
    if head.len() < first {
        return Ok(OpenedInput {
            head,
            head_is_all: true,
            head_error: None,
            compressed,
            size,
            rest: None,
        });
    }
    // Two blocks in flight at most: memory stays bounded whatever the file size.
    let (tx, rx) = bounded(2);
    std::thread::Builder::new()
        .name("cutover-read".into())
        .spawn(move || {
            loop {
                let (b, err) = fill_block(&mut stream, block);
                let last = b.len() < block || err.is_some();
                if !b.is_empty() && tx.send(Ok(b)).is_err() {
                    break;
                }
                if let Some(e) = err {
                    let _ = tx.send(Err(e));
                }
                if last {
                    break;
                }
            }
        })
        .map_err(|source| InputError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(OpenedInput {
        head,
        head_is_all: false,
        head_error: None,
        compressed,
        size,
        rest: Some(rx),
    })
}
