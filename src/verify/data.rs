//! The data comparison of one table: digests on both servers, drilling into what differs, resolving
//! differing keys into rows, and (with `--live`) re-checking them until they settle.

use super::plan::{KeyShape, Plan};
use super::{DiffKind, Pending, VerifyOptions};
use crate::db::compare::{OutcomeComparison, compare_sets};
use crate::db::exec::{Outcome, ResultSet, Session};
use crate::db::value::Value;
use crate::db::{DbError, Endpoint, Engine};
use std::cell::Cell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A session on one server, in a read-only consistent snapshot (or, for live re-checks, not).
pub struct Side {
    pub s: Session,
    pub engine: Engine,
    /// The most text one value may hold on this server (MySQL's max_allowed_packet, which also
    /// caps GROUP_CONCAT), if it has such a limit.
    pub text_limit: Option<u64>,
}

impl Side {
    /// Opens a session in a consistent read-only snapshot. On PostgreSQL, `snapshot` (exported by
    /// the first session) makes every session see the very same data.
    pub async fn snapshot(ep: &Endpoint, snapshot: Option<&str>) -> Result<Side, DbError> {
        let mut s = Session::connect(ep).await?;
        let text_limit = prepare(&mut s).await?;
        let dialect = ep.engine.dialect();
        s.run(dialect.snapshot_begin).await?;
        if let Some(adopt) = snapshot.and_then(|id| dialect.import_snapshot(id)) {
            s.run(&adopt).await?;
        }
        Ok(Side {
            s,
            engine: ep.engine,
            text_limit,
        })
    }

    /// A plain session: each statement sees the latest committed data.
    pub async fn latest(ep: &Endpoint) -> Result<Side, DbError> {
        let mut s = Session::connect(ep).await?;
        let text_limit = prepare(&mut s).await?;
        Ok(Side {
            s,
            engine: ep.engine,
            text_limit,
        })
    }

    /// The id other sessions can adopt to share this snapshot (PostgreSQL), if the server can.
    pub async fn export_snapshot(&mut self) -> Option<String> {
        let export = self.engine.dialect().export_snapshot?;
        let o = self.s.execute(export).await.ok()?;
        first_text(&o, 0)
    }

    async fn run(&mut self, sql: &str) -> Result<Outcome, DbError> {
        self.s.execute(sql).await
    }
}

/// Session settings of verify's MySQL sessions; returns max_allowed_packet. GROUP_CONCAT (the
/// ordered chunk digest) gathers a chunk's text, capped by group_concat_max_len and by
/// max_allowed_packet: chunks are sized below that, and a chunk cut short anyway only differs and is
/// then compared row by row.
async fn prepare(s: &mut Session) -> Result<Option<u64>, DbError> {
    if s.engine() != Engine::MySql {
        return Ok(None);
    }
    s.run("SET SESSION group_concat_max_len = 1073741824")
        .await?;
    let o = s.execute("SELECT @@max_allowed_packet").await?;
    Ok(first_text(&o, 0).and_then(|t| t.parse().ok()))
}

/// Asks both servers at once, each in its own dialect.
async fn both(
    src: &mut Side,
    tgt: &mut Side,
    sql: impl Fn(Engine) -> String,
) -> Result<(Outcome, Outcome), DbError> {
    let (qa, qb) = (sql(src.engine), sql(tgt.engine));
    let (a, b) = tokio::join!(src.run(&qa), tgt.run(&qb));
    Ok((a?, b?))
}

/// (row hash, COUNT) rows as a map.
fn hash_counts(o: &Outcome) -> HashMap<i64, i64> {
    rows(o)
        .iter()
        .filter_map(|r| {
            Some((
                r.first()?.as_text()?.parse().ok()?,
                r.get(1)?.as_text()?.parse().ok()?,
            ))
        })
        .collect()
}

/// The hashes whose copies differ between the sides, as pending differences.
fn surplus(
    hashes: impl IntoIterator<Item = i64>,
    a: &HashMap<i64, i64>,
    b: &HashMap<i64, i64>,
) -> Vec<Pending> {
    hashes
        .into_iter()
        .filter_map(|h| {
            let d = a.get(&h).copied().unwrap_or(0) - b.get(&h).copied().unwrap_or(0);
            (d != 0).then(|| Pending::copies(h, d))
        })
        .collect()
}

pub fn first_text(rs: &Outcome, col: usize) -> Option<String> {
    rs.sets
        .first()?
        .rows
        .first()?
        .get(col)
        .and_then(Value::as_text)
}

fn rows(o: &Outcome) -> &[Vec<Value>] {
    o.sets
        .first()
        .map(|s| s.rows.as_slice())
        .unwrap_or_default()
}

/// Pauses while a server is busier than `--max-load` allows.
pub struct Throttle {
    pub max_running: Option<u64>,
    pub monitors: Vec<Session>,
    pub last_check: Option<Instant>,
    pub paused: Duration,
}

impl Throttle {
    pub async fn wait(&mut self) -> Result<(), DbError> {
        let Some(max) = self.max_running else {
            return Ok(());
        };
        if self
            .last_check
            .is_some_and(|t| t.elapsed() < Duration::from_millis(500))
        {
            return Ok(());
        }
        loop {
            let mut busiest = 0u64;
            for m in &mut self.monitors {
                let q = m.engine().dialect().running_statements;
                let o = m.execute(q).await?;
                let n = first_text(&o, 1)
                    .and_then(|t| t.parse::<u64>().ok())
                    .unwrap_or(0);
                busiest = busiest.max(n);
            }
            self.last_check = Some(Instant::now());
            if busiest <= max {
                return Ok(());
            }
            let pause = Duration::from_millis(250);
            tokio::time::sleep(pause).await;
            self.paused += pause;
        }
    }
}

/// A chunk digest: row count and the sum of row hashes, as the server printed them.
pub type Digest = (u64, Option<String>);

fn digest_of(o: &Outcome) -> Digest {
    (
        first_text(o, 0).and_then(|t| t.parse().ok()).unwrap_or(0),
        first_text(o, 1),
    )
}

/// Runs one digest query per range on one server, spread over its sessions.
pub async fn digest_ranges(
    sides: &mut [&mut Side],
    plan: &Plan,
    ranges: &[(i128, i128)],
) -> Result<Vec<Digest>, DbError> {
    let next = Cell::new(0usize);
    let out: Vec<Cell<Digest>> = ranges.iter().map(|_| Cell::new((0, None))).collect();
    let work = sides.iter_mut().map(|side| {
        let (next, out) = (&next, &out);
        async move {
            loop {
                let i = next.get();
                if i >= ranges.len() {
                    return Ok::<_, DbError>(());
                }
                next.set(i + 1);
                let (lo, hi) = ranges[i];
                let o = side.run(&plan.range_digest(side.engine, lo, hi)).await?;
                out[i].set(digest_of(&o));
            }
        }
    });
    for r in futures_util::future::join_all(work).await {
        r?;
    }
    Ok(out.into_iter().map(Cell::into_inner).collect())
}

/// Digests per bucket on one server, in one pass.
pub async fn digest_buckets(
    side: &mut Side,
    plan: &Plan,
    buckets: u64,
) -> Result<HashMap<u64, Digest>, DbError> {
    let o = side.run(&plan.bucket_digests(side.engine, buckets)).await?;
    Ok(rows(&o)
        .iter()
        .filter_map(|r| {
            let b = r.first()?.as_text()?.parse().ok()?;
            let c = r.get(1)?.as_text()?.parse().ok()?;
            Some((b, (c, r.get(2).and_then(Value::as_text))))
        })
        .collect())
}

/// The integer key's lowest and highest value on one server.
pub async fn bounds(side: &mut Side, plan: &Plan) -> Result<(Option<i128>, Option<i128>), DbError> {
    let o = side.run(&plan.bounds(side.engine)).await?;
    let p = |i: usize| first_text(&o, i).and_then(|x| x.parse::<i128>().ok());
    Ok((p(0), p(1)))
}

/// The server's estimate of the table's rows and of their average size in bytes (0 when unknown).
pub async fn estimate(side: &mut Side, plan: &Plan) -> (u64, u64) {
    match side.run(&plan.estimate(side.engine)).await {
        Ok(o) => {
            let n = |i| {
                first_text(&o, i)
                    .and_then(|t| t.parse::<f64>().ok())
                    .map(|f| f.max(0.0) as u64)
                    .unwrap_or(0)
            };
            (n(0), n(1))
        }
        Err(_) => (0, 0),
    }
}

/// Within a differing key range: (key, row hash) on both sides, merged by key into pending
/// differences (rows on one side only, and keys whose hashes differ).
pub async fn leaf_range(
    src: &mut Side,
    tgt: &mut Side,
    plan: &Plan,
    lo: i128,
    hi: i128,
) -> Result<Vec<Pending>, DbError> {
    let (a, b) = both(src, tgt, |e| plan.range_hashes(e, lo, hi)).await?;
    let pairs = |o: &Outcome| -> Vec<(i128, String)> {
        rows(o)
            .iter()
            .filter_map(|r| Some((r.first()?.as_text()?.parse().ok()?, r.get(1)?.as_text()?)))
            .collect()
    };
    let (a, b) = (pairs(&a), pairs(&b));
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    let key = |k: i128| vec![Value::Int(k)];
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                if x.1 != y.1 {
                    out.push(Pending::keyed(DiffKind::Different, key(x.0)));
                }
                i += 1;
                j += 1;
            }
            (Some(x), y) if y.is_none_or(|y| x.0 < y.0) => {
                out.push(Pending::keyed(DiffKind::Missing, key(x.0)));
                i += 1;
            }
            (_, Some(y)) => {
                out.push(Pending::keyed(DiffKind::Extra, key(y.0)));
                j += 1;
            }
            _ => break,
        }
    }
    Ok(out)
}

/// Within differing buckets: keyed tables join (key text → row hash) on the client; multisets
/// compare how many copies of each row hash each side holds.
pub async fn leaf_buckets(
    src: &mut Side,
    tgt: &mut Side,
    plan: &Plan,
    buckets: u64,
    which: &[u64],
) -> Result<Vec<Pending>, DbError> {
    let (a, b) = both(src, tgt, |e| plan.bucket_rows(e, buckets, which)).await?;
    let mut out = Vec::new();
    if plan.shape == KeyShape::Multiset {
        let (ca, cb) = (hash_counts(&a), hash_counts(&b));
        let mut hashes: Vec<i64> = ca.keys().chain(cb.keys()).copied().collect();
        hashes.sort_unstable();
        hashes.dedup();
        return Ok(surplus(hashes, &ca, &cb));
    }
    let nkey = plan.key.len();
    let index = |o: &Outcome| -> HashMap<String, (String, Vec<Value>)> {
        rows(o)
            .iter()
            .filter_map(|r| {
                let kt = r.first()?.as_text()?;
                let h = r.get(1)?.as_text()?;
                Some((kt, (h, r.get(2..2 + nkey)?.to_vec())))
            })
            .collect()
    };
    let (ia, ib) = (index(&a), index(&b));
    for (kt, (h, key)) in &ia {
        match ib.get(kt) {
            None => out.push(Pending::keyed(DiffKind::Missing, key.clone())),
            Some((h2, _)) if h2 != h => out.push(Pending::keyed(DiffKind::Different, key.clone())),
            Some(_) => {}
        }
    }
    for (kt, (_, key)) in &ib {
        if !ia.contains_key(kt) {
            out.push(Pending::keyed(DiffKind::Extra, key.clone()));
        }
    }
    Ok(out)
}

/// A key's identity across engines (both print the same key values alike).
pub fn key_id(key: &[Value]) -> String {
    let parts: Vec<String> = key.iter().map(Value::display).collect();
    parts.join("\u{1f}")
}

/// Looks the pending keys up on both sides and decides what each really is, from the rows: missing,
/// extra, different (in canonical values, naming the columns) or — dropped — the same after all
/// (floats within tolerance, JSON that prints differently, or a row that has since settled).
pub async fn resolve_keyed(
    src: &mut Side,
    tgt: &mut Side,
    plan: &Plan,
    opts: &VerifyOptions,
    pending: Vec<Pending>,
) -> Result<Vec<Pending>, DbError> {
    let positions = plan.key_positions();
    let mut out = Vec::new();
    for batch in pending.chunks(200) {
        let keys: Vec<Vec<Value>> = batch.iter().map(|p| p.key.clone()).collect();
        let (a, b) = both(src, tgt, |e| plan.rows_by_keys(e, &keys)).await?;
        let by_key = |o: &Outcome| -> HashMap<String, Vec<Value>> {
            rows(o)
                .iter()
                .map(|r| {
                    let k: Vec<Value> = positions
                        .iter()
                        .map(|&i| r.get(i).cloned().unwrap_or(Value::Null))
                        .collect();
                    (key_id(&k), r.clone())
                })
                .collect()
        };
        let (ma, mb) = (by_key(&a), by_key(&b));
        let (sa, sb) = (a.sets.first(), b.sets.first());
        for p in batch {
            let id = key_id(&p.key);
            let (x, y) = (ma.get(&id), mb.get(&id));
            let mut p = p.clone();
            match (x, y) {
                (None, None) => continue,
                (Some(x), None) => {
                    p.kind = DiffKind::Missing;
                    p.source = Some(x.clone());
                    p.target = None;
                }
                (None, Some(y)) => {
                    p.kind = DiffKind::Extra;
                    p.source = None;
                    p.target = Some(y.clone());
                }
                (Some(x), Some(y)) => {
                    let (Some(sa), Some(sb)) = (sa, sb) else {
                        continue;
                    };
                    let differing = differing_columns(sa, x, sb, y, opts);
                    if differing.is_empty() {
                        continue;
                    }
                    p.kind = DiffKind::Different;
                    p.columns = differing;
                    p.source = Some(x.clone());
                    p.target = Some(y.clone());
                }
            }
            out.push(p);
        }
    }
    Ok(out)
}

fn differing_columns(
    sa: &ResultSet,
    x: &[Value],
    sb: &ResultSet,
    y: &[Value],
    opts: &VerifyOptions,
) -> Vec<String> {
    let mut differing = Vec::new();
    for c in 0..sa.columns.len().min(sb.columns.len()) {
        let one = |s: &ResultSet, r: &[Value]| ResultSet {
            columns: vec![s.columns[c].clone()],
            rows: vec![vec![r.get(c).cloned().unwrap_or(Value::Null)]],
        };
        if let OutcomeComparison::Differs { .. } =
            compare_sets(&one(sa, x), &one(sb, y), true, &opts.tolerance)
        {
            differing.push(sa.columns[c].name.clone());
        }
    }
    differing
}

/// Multisets: how many copies of each pending row hash each side holds now, and one row of each
/// (for the report and for repairs).
pub async fn resolve_copies(
    src: &mut Side,
    tgt: &mut Side,
    plan: &Plan,
    pending: Vec<Pending>,
) -> Result<Vec<Pending>, DbError> {
    let mut out = Vec::new();
    for batch in pending.chunks(500) {
        let hashes: Vec<i64> = batch.iter().filter_map(|p| p.hash).collect();
        let (a, b) = both(src, tgt, |e| plan.count_hashes(e, &hashes)).await?;
        let left = surplus(hashes, &hash_counts(&a), &hash_counts(&b));
        // One row per hash, from the side that holds more copies.
        let on = |want: DiffKind| -> Vec<i64> {
            left.iter()
                .filter(|p| p.kind == want)
                .filter_map(|p| p.hash)
                .collect()
        };
        let (miss, extra) = (on(DiffKind::Missing), on(DiffKind::Extra));
        let fetch =
            async |side: &mut Side, hs: Vec<i64>| -> Result<HashMap<i64, Vec<Value>>, DbError> {
                if hs.is_empty() {
                    return Ok(HashMap::new());
                }
                let o = side.run(&plan.rows_by_hashes(side.engine, &hs)).await?;
                Ok(rows(&o)
                    .iter()
                    .filter_map(|r| Some((r.first()?.as_text()?.parse().ok()?, r[1..].to_vec())))
                    .collect())
            };
        let (ra, rb) = tokio::join!(fetch(src, miss), fetch(tgt, extra));
        let (ra, rb) = (ra?, rb?);
        for mut p in left {
            let h = p.hash.unwrap_or_default();
            p.source = ra.get(&h).cloned();
            p.target = rb.get(&h).cloned();
            out.push(p);
        }
    }
    Ok(out)
}

/// Resolves pending differences on the snapshot sessions, then, with `--live`, re-checks the ones
/// left on sessions that see the latest data, after a delay that doubles each round: rows that
/// settle were in flight; rows still different after the last round are persistent.
pub async fn settle(
    snap: (&mut Side, &mut Side),
    live: Option<(&mut Side, &mut Side)>,
    plan: &Plan,
    opts: &VerifyOptions,
    pending: Vec<Pending>,
) -> Result<(Vec<Pending>, u64), DbError> {
    let resolve = async |a: &mut Side, b: &mut Side, p: Vec<Pending>| {
        if plan.shape == KeyShape::Multiset {
            resolve_copies(a, b, plan, p).await
        } else {
            resolve_keyed(a, b, plan, opts, p).await
        }
    };
    let mut left = resolve(snap.0, snap.1, pending).await?;
    let mut in_flight = 0u64;
    if let Some((a, b)) = live {
        let mut delay = opts.live_delay;
        for _ in 0..opts.live_retries {
            if left.is_empty() {
                break;
            }
            tokio::time::sleep(delay).await;
            delay *= 2;
            let before = left.len();
            left = resolve(a, b, left).await?;
            in_flight += (before - left.len()) as u64;
        }
    }
    Ok((left, in_flight))
}
