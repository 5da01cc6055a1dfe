//! What to verify, with the defaults (defined here only).

use crate::db::Endpoint;
use crate::db::value::Tolerance;
use std::path::PathBuf;
use std::time::Duration;

/// What to verify.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    pub source: Endpoint,
    pub target: Endpoint,
    /// The target profile (`postgres`, `kingbase`, `kaiwudb`), for the report.
    pub profile: Option<String>,
    /// Tables to check (all base tables of the source database when None).
    pub tables: Option<Vec<String>>,
    /// A condition added to every query on both sides (for example on updated_at).
    pub where_clause: Option<String>,
    /// Rows per chunk (by key range) or per bucket.
    pub chunk_rows: u64,
    /// Rows at or below which a differing chunk is compared row by row.
    pub leaf_rows: u64,
    pub examples: usize,
    pub tolerance: Tolerance,
    /// Sessions per server computing chunk digests.
    pub threads: usize,
    /// Pause while a server runs more than this many queries.
    pub max_load: Option<u64>,
    /// Re-check differences on the latest data before reporting them.
    pub live: bool,
    pub live_retries: u32,
    pub live_delay: Duration,
    pub fix_sql: Option<PathBuf>,
    pub checkpoint: Option<PathBuf>,
    /// Set on Ctrl-C / SIGTERM (or by a caller): the run stops at the next chunk and reports what
    /// it verified.
    pub stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl VerifyOptions {
    pub fn new(source: Endpoint, target: Endpoint) -> VerifyOptions {
        VerifyOptions {
            source,
            target,
            profile: None,
            tables: None,
            where_clause: None,
            chunk_rows: 10_000,
            leaf_rows: 1000,
            examples: 10,
            tolerance: Tolerance::default(),
            threads: 1,
            max_load: None,
            live: false,
            live_retries: 4,
            live_delay: Duration::from_millis(500),
            fix_sql: None,
            checkpoint: None,
            stop: Default::default(),
        }
    }
}
