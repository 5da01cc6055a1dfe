//! Verify: do source and target hold the same rows? Both servers compute, inside a consistent
//! snapshot, the row count and the sum of a per-row hash of a canonical text (`encode`) per chunk,
//! so only digests travel. Tables keyed by one integer column are chunked by key range; tables with
//! string, temporal or composite keys are bucketed by the hash of their key text (collations order
//! strings differently on the two engines, hashes do not); tables without a unique key are compared
//! as multisets of row hashes. A chunk that differs is narrowed down to rows, which are fetched and
//! compared in canonical values (float tolerance, JSON normalisation) naming the columns.
//!
//! With `--live`, each difference is re-checked on the latest data after a delay that doubles, so
//! rows in flight during double-writes are not reported; `--fix-sql` writes the repairs;
//! `--checkpoint` lets an interrupted run resume; [`watch`] repeats the check until it converges.

mod check;
mod data;
mod encode;
mod filter;
mod fix;
mod plan;

use crate::db::value::{Tolerance, Value};
use crate::db::{DbError, Endpoint};
use crate::schema::Table;
use crate::workload::{Endpoints, Header, SchemaId};
use data::{Side, Throttle};
use encode::{EncodedColumn, TargetKind};
use plan::{KeyShape, Plan};
use serde::{Deserialize, Serialize};
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
        }
    }
}

/// What a difference is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DiffKind {
    #[serde(rename = "missing_in_target")]
    Missing,
    #[serde(rename = "extra_in_target")]
    Extra,
    #[serde(rename = "different")]
    Different,
}

impl DiffKind {
    pub fn name(self) -> &'static str {
        match self {
            DiffKind::Missing => "missing_in_target",
            DiffKind::Extra => "extra_in_target",
            DiffKind::Different => "different",
        }
    }
}

/// A table's outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableStatus {
    /// Every row and column type matched.
    #[default]
    Match,
    /// Rows or the schema differ (or the table is missing on the target).
    Differ,
    /// Rows could not be compared (see the table's `reason`).
    NotVerified,
}

impl TableStatus {
    pub fn name(self) -> &'static str {
        match self {
            TableStatus::Match => "match",
            TableStatus::Differ => "differ",
            TableStatus::NotVerified => "not_verified",
        }
    }
}

/// A difference on its way to the report: found, then resolved into rows and (with `--live`)
/// re-checked.
#[derive(Clone, Debug)]
pub struct Pending {
    pub kind: DiffKind,
    /// The key's values (keyed tables).
    pub key: Vec<Value>,
    /// The row hash (multisets).
    pub hash: Option<i64>,
    /// How many copies differ (multisets; 1 otherwise).
    pub copies: u64,
    pub columns: Vec<String>,
    pub source: Option<Vec<Value>>,
    pub target: Option<Vec<Value>>,
}

impl Pending {
    pub fn keyed(kind: DiffKind, key: Vec<Value>) -> Pending {
        Pending {
            kind,
            key,
            hash: None,
            copies: 1,
            columns: Vec::new(),
            source: None,
            target: None,
        }
    }

    /// `surplus` copies more on the source (positive) or on the target (negative).
    pub fn copies(hash: i64, surplus: i64) -> Pending {
        Pending {
            kind: if surplus > 0 {
                DiffKind::Missing
            } else {
                DiffKind::Extra
            },
            key: Vec::new(),
            hash: Some(hash),
            copies: surplus.unsigned_abs(),
            columns: Vec::new(),
            source: None,
            target: None,
        }
    }
}

/// One differing row.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RowDifference {
    /// The key's values, or `row hash …` for a table without a key.
    pub key: String,
    pub kind: DiffKind,
    /// For `different`: the columns that differ.
    pub columns: Vec<String>,
    pub source: Option<Vec<String>>,
    pub target: Option<Vec<String>>,
}

/// One table's result.
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct TableReport {
    pub table: String,
    /// How rows are matched: `id (integer ranges)`, `(a, b) (hash buckets)`, or
    /// `none (multiset of row hashes)`.
    pub key: String,
    pub rows_source: u64,
    pub rows_target: u64,
    pub missing_in_target: u64,
    pub extra_in_target: u64,
    pub different: u64,
    /// With `--live`: rows that differed at first and matched on a re-check (in flight).
    pub in_flight: u64,
    /// Key ranges or hash buckets digested.
    pub chunks: u64,
    pub chunks_differing: u64,
    pub status: TableStatus,
    /// The table does not exist on the target (counted as one difference).
    pub target_missing: bool,
    pub reason: Option<String>,
    /// Schema findings: missing columns, types that cannot hold the source's values, sequences.
    pub schema: Vec<String>,
    pub examples: Vec<RowDifference>,
}

/// The whole run (`cutover.verify/1`); the endpoints are in the header.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VerifyReport {
    #[serde(flatten)]
    pub header: Header,
    /// The target profile named with `--profile`, if any.
    pub profile: Option<String>,
    pub live: bool,
    pub tables: Vec<TableReport>,
    pub total_differences: u64,
    pub not_verified: Vec<String>,
    /// Statements written by `--fix-sql`.
    pub fix_statements: Option<u64>,
    /// Seconds spent paused by `--max-load`.
    pub paused_seconds: f64,
}

impl VerifyReport {
    pub fn failed(&self) -> bool {
        self.total_differences > 0 || self.tables.iter().any(|t| t.status == TableStatus::Differ)
    }
}

/// Why verify could not run.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("{0}")]
    Other(String),
}

/// What `--checkpoint` keeps: finished tables and how far the current one got.
#[derive(Debug, Serialize, Deserialize, Default)]
#[serde(default)]
struct Checkpoint {
    source: String,
    target: String,
    where_clause: Option<String>,
    chunk_rows: u64,
    done: Vec<TableReport>,
    /// The table under way, its report so far, and the next key range start.
    current: Option<(TableReport, i128)>,
}

impl Checkpoint {
    fn load(opts: &VerifyOptions) -> Result<Checkpoint, VerifyError> {
        let fresh = Checkpoint {
            source: opts.source.to_string(),
            target: opts.target.to_string(),
            where_clause: opts.where_clause.clone(),
            chunk_rows: opts.chunk_rows,
            ..Default::default()
        };
        let Some(path) = &opts.checkpoint else {
            return Ok(fresh);
        };
        let Ok(text) = std::fs::read_to_string(path) else {
            return Ok(fresh);
        };
        let c: Checkpoint = serde_json::from_str(&text).map_err(|e| {
            VerifyError::Other(format!(
                "{}: not a cutover verify checkpoint ({e}); remove it to start over",
                path.display()
            ))
        })?;
        if (&c.source, &c.target, &c.where_clause, c.chunk_rows)
            != (
                &fresh.source,
                &fresh.target,
                &fresh.where_clause,
                fresh.chunk_rows,
            )
        {
            return Err(VerifyError::Other(format!(
                "{}: the checkpoint is of another run (source, target, --where or --chunk-rows differ); remove it to start over",
                path.display()
            )));
        }
        Ok(c)
    }

    fn save(&self, opts: &VerifyOptions) -> Result<(), VerifyError> {
        let Some(path) = &opts.checkpoint else {
            return Ok(());
        };
        let tmp = path.with_extension("tmp");
        let text = serde_json::to_string(self).map_err(|e| VerifyError::Other(e.to_string()))?;
        std::fs::write(&tmp, text)
            .and_then(|_| std::fs::rename(&tmp, path))
            .map_err(|e| {
                VerifyError::Other(format!("cannot write checkpoint {}: {e}", path.display()))
            })
    }
}

/// Every connection a run holds.
struct Conns {
    src: Side,
    tgt: Side,
    /// Extra snapshot sessions for `--threads`.
    pool: Vec<(Side, Side)>,
    /// Sessions on the latest data, for `--live`.
    live: Option<(Side, Side)>,
    throttle: Throttle,
}

/// Verifies every table once.
pub async fn verify(
    opts: &VerifyOptions,
    mut progress: impl FnMut(&str),
) -> Result<VerifyReport, VerifyError> {
    if let Some(w) = &opts.where_clause {
        filter::check_where(w).map_err(VerifyError::Other)?;
    }
    let schema = crate::schema::source::schema_from_server(&opts.source).await?;
    // Both snapshots start together, before anything else is read.
    let (a, b) = tokio::join!(
        Side::snapshot(&opts.source, None),
        Side::snapshot(&opts.target, None)
    );
    let (src, mut tgt) = (a?, b?);
    let shared = tgt.export_snapshot().await;
    let mut pool = Vec::new();
    for _ in 1..opts.threads.max(1) {
        let (a, b) = tokio::join!(
            Side::snapshot(&opts.source, None),
            Side::snapshot(&opts.target, shared.as_deref())
        );
        pool.push((a?, b?));
    }
    let live = if opts.live {
        Some((
            Side::latest(&opts.source).await?,
            Side::latest(&opts.target).await?,
        ))
    } else {
        None
    };
    let monitors = if opts.max_load.is_some() {
        vec![
            crate::db::exec::Session::connect(&opts.source).await?,
            crate::db::exec::Session::connect(&opts.target).await?,
        ]
    } else {
        Vec::new()
    };
    let mut conns = Conns {
        src,
        tgt,
        pool,
        live,
        throttle: Throttle {
            max_running: opts.max_load,
            monitors,
            last_check: None,
            paused: Duration::ZERO,
        },
    };
    let tcols = check::target_columns(&mut conns.tgt).await?;
    // The profile whose type map says what each column becomes on the target: the one named, else
    // the one the target URL implies.
    let profile = match opts
        .profile
        .as_deref()
        .or_else(|| crate::profile::default_for(&opts.target))
    {
        Some(id) => Some(
            crate::profile::load_profile(id, None)
                .map_err(|e| VerifyError::Other(e.to_string()))?,
        ),
        None => None,
    };
    let mut fix = match &opts.fix_sql {
        Some(p) => Some(
            fix::FixWriter::create(
                p,
                opts.target.engine,
                &format!("make {} hold what {} holds", opts.target, opts.source),
            )
            .map_err(|e| VerifyError::Other(format!("cannot write {}: {e}", p.display())))?,
        ),
        None => None,
    };
    let mut ckpt = Checkpoint::load(opts)?;
    let mut header = Header::start(SchemaId::VERIFY);
    header.endpoints = Endpoints {
        source: Some(opts.source.to_string()),
        target: Some(opts.target.to_string()),
    };
    let mut report = VerifyReport {
        header,
        profile: opts.profile.clone(),
        live: opts.live,
        tables: Vec::new(),
        total_differences: 0,
        not_verified: Vec::new(),
        fix_statements: None,
        paused_seconds: 0.0,
    };
    let wanted: Vec<&Table> = match &opts.tables {
        Some(list) => {
            let mut v = Vec::new();
            for n in list {
                match schema.table(n) {
                    Some(t) => v.push(t),
                    None => {
                        return Err(VerifyError::Other(format!(
                            "table {n} is not in the source database {}",
                            opts.source
                        )));
                    }
                }
            }
            v
        }
        None => schema.tables.iter().collect(),
    };
    for t in wanted {
        if let Some(done) = ckpt.done.iter().find(|d| d.table == t.name) {
            report.tables.push(done.clone());
            continue;
        }
        progress(&t.name);
        let resume = ckpt.current.take().filter(|(tr, _)| tr.table == t.name);
        let mut tr = match &resume {
            Some((tr, _)) => tr.clone(),
            None => TableReport {
                table: t.name.clone(),
                status: TableStatus::Match,
                ..Default::default()
            },
        };
        let Some(tc) = tcols.get(&t.name.to_lowercase()) else {
            tr.status = TableStatus::Differ;
            tr.target_missing = true;
            tr.reason = Some("the table does not exist on the target".into());
            report.tables.push(tr);
            continue;
        };
        let mut cols = Vec::new();
        let mut schema_notes = Vec::new();
        for c in &t.columns {
            match tc.get(&c.name.to_lowercase()) {
                None => schema_notes.push(format!("column {} is missing on the target", c.name)),
                Some(dt) => {
                    if let Some(p) =
                        check::type_problem(c, dt, opts.target.engine, profile.as_ref())
                    {
                        schema_notes.push(format!("column {}: {p}", c.name));
                    }
                    cols.push(EncodedColumn {
                        name: c.name.clone(),
                        mysql_type: c.mysql_type.clone(),
                        target: if dt.data_type == "boolean" {
                            TargetKind::Bool
                        } else {
                            TargetKind::Plain
                        },
                        nullable: c.nullable,
                        collation: c.collation.clone().or_else(|| t.collation.clone()),
                        target_type: dt.literal_type(),
                    })
                }
            }
        }
        for extra in tc.keys().filter(|k| t.column(k).is_none()) {
            schema_notes.push(format!("column {extra} exists only on the target"));
        }
        for c in t.columns.iter().filter(|c| c.auto_increment) {
            if let Some((finding, repair)) =
                check::sequence_problem(&mut conns.tgt, &t.name, &c.name).await?
            {
                schema_notes.push(finding);
                if let (Some(f), Some(sql)) = (fix.as_mut(), repair) {
                    f.raw(&sql).map_err(io_error(opts))?;
                }
            }
        }
        if resume.is_none() {
            tr.schema = schema_notes;
        }
        let Some(plan) = choose_plan(t, cols, opts) else {
            tr.status = TableStatus::NotVerified;
            tr.reason =
                Some("a key column is missing on the target: rows cannot be matched".into());
            report.not_verified.push(t.name.clone());
            report.tables.push(tr);
            continue;
        };
        tr.key = plan.describe_key();
        if plan.shape == KeyShape::Multiset {
            tr.reason = Some("no primary or unique NOT NULL key: compared as a multiset of row hashes (a changed row shows as one missing and one extra)".into());
        }
        let start = resume.map(|(_, lo)| lo);
        verify_table(
            &plan,
            &mut conns,
            opts,
            &mut tr,
            fix.as_mut(),
            start,
            &mut ckpt,
            &mut progress,
        )
        .await?;
        if !tr.schema.is_empty() || tr.missing_in_target + tr.extra_in_target + tr.different > 0 {
            tr.status = TableStatus::Differ;
        }
        if opts.checkpoint.is_some() {
            ckpt.current = None;
            ckpt.done.push(tr.clone());
            ckpt.save(opts)?;
        }
        report.tables.push(tr);
    }
    for tr in &report.tables {
        report.total_differences += tr.missing_in_target
            + tr.extra_in_target
            + tr.different
            + tr.schema.len() as u64
            + u64::from(tr.target_missing);
    }
    if let Some(f) = fix {
        report.fix_statements = Some(f.finish().map_err(io_error(opts))?);
    }
    report.paused_seconds = conns.throttle.paused.as_secs_f64();
    let _ = conns.src.s.run("ROLLBACK").await;
    let _ = conns.tgt.s.run("ROLLBACK").await;
    // A finished run needs no checkpoint: the next run starts afresh.
    if let Some(p) = &opts.checkpoint {
        let _ = std::fs::remove_file(p);
    }
    Ok(report)
}

fn io_error(opts: &VerifyOptions) -> impl Fn(std::io::Error) -> VerifyError + '_ {
    move |e| {
        VerifyError::Other(format!(
            "cannot write {}: {e}",
            opts.fix_sql
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ))
    }
}

/// The key a table's rows are matched by: its primary key, else a unique key on NOT NULL columns,
/// else none (a multiset). None when a key column is missing on the target.
fn choose_plan(t: &Table, cols: Vec<EncodedColumn>, opts: &VerifyOptions) -> Option<Plan> {
    let not_null_unique = t
        .unique_keys
        .iter()
        .find(|k| k.iter().all(|c| t.column(c).is_some_and(|c| !c.nullable)));
    let key_names: Vec<String> = if !t.primary_key.is_empty() {
        t.primary_key.clone()
    } else {
        not_null_unique.cloned().unwrap_or_default()
    };
    let mut key = Vec::new();
    for k in &key_names {
        key.push(
            cols.iter()
                .find(|c| c.name.eq_ignore_ascii_case(k))?
                .clone(),
        );
    }
    let shape = match key.as_slice() {
        [] => KeyShape::Multiset,
        [k] if k.mysql_type.is_integer() && k.target == TargetKind::Plain => KeyShape::IntRange,
        _ => KeyShape::Hashed,
    };
    Some(Plan {
        table: t.name.clone(),
        shape,
        key,
        cols,
        where_clause: opts.where_clause.clone(),
        // FORCE INDEX (PRIMARY) is what keeps MySQL's chunk in key order, and a MySQL target may
        // lack that key; MySQL→MySQL loses nothing, as MariaDB's GROUP_CONCAT costs what its
        // per-row hashes do (the ordered digest is PostgreSQL's saving).
        ordered: shape == KeyShape::IntRange
            && !t.primary_key.is_empty()
            && opts.target.engine != crate::db::Engine::MySql,
        byte_functions: opts.target.flavor != crate::db::Flavor::KaiwuDb,
    })
}

/// Differences gathered before they are resolved and re-checked together.
const PENDING_BATCH: usize = 5_000;
/// The most text an ordered chunk digest should gather on a server.
const CHUNK_TEXT_BYTES: u64 = 8 << 20;
/// Key ranges digested between checkpoints.
const SEGMENT_CHUNKS: usize = 64;

#[allow(clippy::too_many_arguments)]
async fn verify_table(
    plan: &Plan,
    conns: &mut Conns,
    opts: &VerifyOptions,
    tr: &mut TableReport,
    mut fix: Option<&mut fix::FixWriter>,
    resume_from: Option<i128>,
    ckpt: &mut Checkpoint,
    progress: &mut impl FnMut(&str),
) -> Result<(), VerifyError> {
    let (ea, eb) = tokio::join!(
        data::estimate(&mut conns.src, plan),
        data::estimate(&mut conns.tgt, plan)
    );
    let estimate = ea.0.max(eb.0);
    // An ordered chunk digest holds the chunk's text on each server: keep it to a few MiB.
    let row_bytes = ea.1.max(eb.1).max(1);
    let text_limit = [conns.src.text_limit, conns.tgt.text_limit]
        .into_iter()
        .flatten()
        .fold(CHUNK_TEXT_BYTES, |a, b| a.min(b / 2));
    let chunk_rows = if plan.ordered {
        opts.chunk_rows.min((text_limit / row_bytes).max(1))
    } else {
        opts.chunk_rows
    };
    let mut pending: Vec<Pending> = Vec::new();
    if plan.shape != KeyShape::IntRange {
        let buckets = (estimate / opts.chunk_rows.max(1)).clamp(1, 1_000_000);
        conns.throttle.wait().await?;
        let (a, b) = tokio::join!(
            data::digest_buckets(&mut conns.src, plan, buckets),
            data::digest_buckets(&mut conns.tgt, plan, buckets)
        );
        let (a, b) = (a?, b?);
        tr.chunks = buckets;
        tr.rows_source = a.values().map(|d| d.0).sum();
        tr.rows_target = b.values().map(|d| d.0).sum();
        let mut differing: Vec<u64> = (0..buckets).filter(|k| a.get(k) != b.get(k)).collect();
        differing.sort_unstable();
        tr.chunks_differing = differing.len() as u64;
        for group in differing.chunks(16) {
            let found =
                data::leaf_buckets(&mut conns.src, &mut conns.tgt, plan, buckets, group).await?;
            pending.extend(found);
            flush(
                plan,
                conns,
                opts,
                tr,
                fix.as_deref_mut(),
                &mut pending,
                PENDING_BATCH,
            )
            .await?;
        }
        return flush(plan, conns, opts, tr, fix, &mut pending, 0).await;
    }
    let (a, b) = tokio::join!(
        data::bounds(&mut conns.src, plan),
        data::bounds(&mut conns.tgt, plan)
    );
    let ((smin, smax), (tmin, tmax)) = (a?, b?);
    let (Some(lo), Some(hi)) = (
        smin.into_iter().chain(tmin).min(),
        smax.into_iter().chain(tmax).max(),
    ) else {
        return Ok(()); // both empty
    };
    let span = hi - lo + 1;
    let rows = if estimate == 0 {
        span
    } else {
        estimate as i128
    };
    let width = ((span * chunk_rows as i128) / rows.max(1)).max(1);
    let total_chunks = (span + width - 1) / width;
    let mut start = resume_from.unwrap_or(lo);
    while start <= hi {
        let mut ranges = Vec::new();
        while start <= hi && ranges.len() < SEGMENT_CHUNKS {
            let end = (start + width - 1).min(hi);
            ranges.push((start, end));
            start = end + 1;
        }
        conns.throttle.wait().await?;
        let (a, b) = {
            let mut srcs: Vec<&mut Side> = vec![&mut conns.src];
            let mut tgts: Vec<&mut Side> = vec![&mut conns.tgt];
            for (s, t) in conns.pool.iter_mut() {
                srcs.push(s);
                tgts.push(t);
            }
            tokio::join!(
                data::digest_ranges(&mut srcs, plan, &ranges),
                data::digest_ranges(&mut tgts, plan, &ranges)
            )
        };
        let (a, b) = (a?, b?);
        let mut stack: Vec<((i128, i128), u64)> = Vec::new();
        for ((range, da), db) in ranges.iter().zip(&a).zip(&b) {
            tr.chunks += 1;
            tr.rows_source += da.0;
            tr.rows_target += db.0;
            if da != db {
                tr.chunks_differing += 1;
                stack.push((*range, da.0.max(db.0)));
            }
        }
        stack.reverse();
        // Narrow each differing range down: split in ten until small, then compare key by key.
        while let Some(((l, h), n)) = stack.pop() {
            if n > opts.leaf_rows && h > l {
                let step = ((h - l + 1) / 10).max(1);
                let mut parts = Vec::new();
                let mut s = l;
                while s <= h {
                    let e = (s + step - 1).min(h);
                    parts.push((s, e));
                    s = e + 1;
                }
                let (mut one_src, mut one_tgt) = ([&mut conns.src], [&mut conns.tgt]);
                let (pa, pb) = tokio::join!(
                    data::digest_ranges(&mut one_src, plan, &parts),
                    data::digest_ranges(&mut one_tgt, plan, &parts)
                );
                let (pa, pb) = (pa?, pb?);
                for ((r, x), y) in parts.iter().zip(&pa).zip(&pb).rev() {
                    if x != y {
                        stack.push((*r, x.0.max(y.0)));
                    }
                }
                continue;
            }
            pending.extend(data::leaf_range(&mut conns.src, &mut conns.tgt, plan, l, h).await?);
            flush(
                plan,
                conns,
                opts,
                tr,
                fix.as_deref_mut(),
                &mut pending,
                PENDING_BATCH,
            )
            .await?;
        }
        flush(plan, conns, opts, tr, fix.as_deref_mut(), &mut pending, 0).await?;
        progress(&format!(
            "{} {}/{} chunks",
            plan.table, tr.chunks, total_chunks
        ));
        if opts.checkpoint.is_some() {
            ckpt.current = Some((tr.clone(), start));
            ckpt.save(opts)?;
        }
    }
    Ok(())
}

/// Once at least `min` differences are pending (and at least one): resolves and re-checks them,
/// then counts, shows and repairs what is left.
async fn flush(
    plan: &Plan,
    conns: &mut Conns,
    opts: &VerifyOptions,
    tr: &mut TableReport,
    mut fix: Option<&mut fix::FixWriter>,
    pending: &mut Vec<Pending>,
    min: usize,
) -> Result<(), VerifyError> {
    if pending.is_empty() || pending.len() < min {
        return Ok(());
    }
    let pending = std::mem::take(pending);
    let live = conns.live.as_mut().map(|(a, b)| (a, b));
    let (left, in_flight) =
        data::settle((&mut conns.src, &mut conns.tgt), live, plan, opts, pending).await?;
    tr.in_flight += in_flight;
    for p in &left {
        match p.kind {
            DiffKind::Missing => tr.missing_in_target += p.copies,
            DiffKind::Extra => tr.extra_in_target += p.copies,
            DiffKind::Different => tr.different += p.copies,
        }
        if tr.examples.len() < opts.examples {
            tr.examples.push(RowDifference {
                key: match p.hash {
                    Some(h) if p.key.is_empty() => {
                        format!("row hash {h:015x} ({} copies)", p.copies)
                    }
                    _ => {
                        let k: Vec<String> = p.key.iter().map(show).collect();
                        k.join(", ")
                    }
                },
                kind: p.kind,
                columns: p.columns.clone(),
                source: p
                    .source
                    .as_ref()
                    .map(|r| r.iter().map(example_value).collect()),
                target: p
                    .target
                    .as_ref()
                    .map(|r| r.iter().map(example_value).collect()),
            });
        }
        if let Some(f) = fix.as_deref_mut() {
            f.write(plan, p).map_err(io_error(opts))?;
        }
    }
    Ok(())
}

/// The most characters of one value an example shows.
const EXAMPLE_CHARS: usize = 200;

/// A value in an example: as `Value::display` shows it, cut after `EXAMPLE_CHARS` characters with
/// its full length in bytes, so a difference in a long text does not flood the report.
fn example_value(v: &Value) -> String {
    let shown = v.display();
    match shown.char_indices().nth(EXAMPLE_CHARS) {
        Some((cut, _)) => format!("{}… ({} bytes)", &shown[..cut], shown.len()),
        None => shown,
    }
}

/// A key value as people write it (text unquoted).
fn show(v: &Value) -> String {
    match v {
        Value::Text(t) => String::from_utf8_lossy(t).into_owned(),
        v => v.display(),
    }
}

/// One round of `--watch`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WatchRound {
    pub round: u32,
    pub total_differences: u64,
    pub in_flight: u64,
}

/// `cutover verify --watch` (`cutover.verify-watch/1`): the last round's report and every round's
/// totals, so the trend (converging or not) shows.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WatchReport {
    #[serde(flatten)]
    pub header: Header,
    pub report: VerifyReport,
    pub rounds: Vec<WatchRound>,
    /// The last round found no difference.
    pub converged: bool,
}

/// Repeats [`verify`] every `interval` until a round finds no difference (converged) or `rounds`
/// rounds have run (0: no limit). Returns the last round's report and every round's totals.
pub async fn watch(
    opts: &VerifyOptions,
    interval: Duration,
    rounds: u32,
    mut progress: impl FnMut(&str),
    mut on_round: impl FnMut(&WatchRound, &VerifyReport),
) -> Result<WatchReport, VerifyError> {
    let mut header = Header::start(SchemaId::VERIFY_WATCH);
    header.endpoints = Endpoints {
        source: Some(opts.source.to_string()),
        target: Some(opts.target.to_string()),
    };
    let mut history = Vec::new();
    let mut round = 0;
    loop {
        round += 1;
        let r = verify(opts, &mut progress).await?;
        let w = WatchRound {
            round,
            total_differences: r.total_differences,
            in_flight: r.tables.iter().map(|t| t.in_flight).sum(),
        };
        on_round(&w, &r);
        history.push(w);
        if !r.failed() || (rounds > 0 && round >= rounds) {
            header.finish();
            return Ok(WatchReport {
                header,
                converged: !r.failed(),
                report: r,
                rounds: history,
            });
        }
        tokio::time::sleep(interval).await;
    }
}
