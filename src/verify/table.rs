//! One table: chunk digests on both sides, differing chunks narrowed down to rows, rows re-checked
//! with `--live`, repairs written with `--fix-sql`.

use super::*;
use super::{checkpoint::*, options::*, report::*, run::*};
use crate::db::value::Value;
use data::Side;
use plan::{KeyShape, Plan};

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

/// Differences gathered before they are resolved and re-checked together.
pub(super) const PENDING_BATCH: usize = 5_000;
/// The most text an ordered chunk digest should gather on a server.
pub(super) const CHUNK_TEXT_BYTES: u64 = 8 << 20;
/// Key ranges digested between checkpoints.
pub(super) const SEGMENT_CHUNKS: usize = 64;

#[allow(clippy::too_many_arguments)]
pub(super) async fn verify_table(
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
        if opts.stop.load(std::sync::atomic::Ordering::SeqCst) {
            tr.reason = Some(format!(
                "interrupted after {} of {total_chunks} key ranges",
                tr.chunks
            ));
            return flush(plan, conns, opts, tr, fix, &mut pending, 0).await;
        }
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
            "{}: {} of {} key ranges",
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
pub(super) async fn flush(
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
        if let Some(f) = fix.as_deref_mut()
            && let Some(note) = f.write(plan, p).map_err(io_error(opts))?
            && tr.cannot_hold.len() < 100
        {
            tr.cannot_hold.push(note);
        }
    }
    Ok(())
}

/// The most characters of one value an example shows.
pub(super) const EXAMPLE_CHARS: usize = 200;

/// A value in an example: as `Value::display` shows it, cut after `EXAMPLE_CHARS` characters with
/// its full length in bytes, so a difference in a long text does not flood the report.
pub(super) fn example_value(v: &Value) -> String {
    let shown = v.display();
    match shown.char_indices().nth(EXAMPLE_CHARS) {
        Some((cut, _)) => format!("{}… ({} bytes)", &shown[..cut], shown.len()),
        None => shown,
    }
}

/// A key value as people write it (text unquoted).
pub(super) fn show(v: &Value) -> String {
    match v {
        Value::Text(t) => String::from_utf8_lossy(t).into_owned(),
        v => v.display(),
    }
}
