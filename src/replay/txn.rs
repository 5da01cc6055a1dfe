//! Transactions: each session's statements grouped into transactions (BEGIN/START TRANSACTION …
//! COMMIT or ROLLBACK, the runs of an `autocommit=0` session, single autocommit statements),
//! classified by shape, timed on each side from the results the workers report, in order, per
//! session. Memory stays bounded: one open transaction per session (its folded shape, capped) and
//! per class a histogram and a reservoir, as fingerprints have.

use super::job::{Done, Res, Side};
use super::plan::{Control, SkipReason};
use super::stats::Latency;
use crate::sql::classify::StatementClass;
use rustc_hash::FxHashMap;

/// Longest repeated block folded (a TPC-C order line is 4 statements).
const MAX_PERIOD: usize = 8;
/// Statements of a shape kept (after folding); a longer transaction's class is its first ones.
const MAX_SHAPE: usize = 64;

/// A transaction being read on one side.
#[derive(Default)]
struct Open {
    /// Per statement (after folding): its step (see `step_key`).
    shape: Vec<u64>,
    /// Per statement of `shape`: the fingerprint of the statement that made the step, to show.
    fps: Vec<u64>,
    /// Per statement of `shape`: part of a folded repetition.
    folded: Vec<bool>,
    first_write: Option<String>,
    first: Option<String>,
    /// The step of the first write, else of the first statement.
    first_step: Option<u64>,
    first_step_writes: bool,
    /// Tables written and read, trailing digits dropped (see `table_kind`).
    written: std::collections::BTreeSet<String>,
    read: std::collections::BTreeSet<String>,
    /// First statement's start and the end of its last (µs since the replay's start): on this side.
    start_us: Option<u64>,
    end_us: u64,
    error: bool,
    rollback: bool,
}

#[derive(Default)]
struct SessionTxn {
    autocommit_off: bool,
    open: Option<Open>,
}

/// A class on one side.
#[derive(Default)]
pub(super) struct ClassSideAcc {
    pub(super) count: u64,
    pub(super) rollbacks: u64,
    pub(super) errors: u64,
    pub(super) latency: Latency,
}

#[derive(Default)]
pub(super) struct ClassAcc {
    pub(super) name: String,
    /// The fingerprints of the first transaction of the class, one per step.
    pub(super) shape: Vec<u64>,
    pub(super) folded: Vec<bool>,
    /// Transactions of the class in the capture (counted on the source side, which gets every
    /// statement of the sessions replayed, sent or not).
    pub(super) count: u64,
    pub(super) sides: [ClassSideAcc; 2],
}

/// Every side's transactions.
#[derive(Default)]
pub(super) struct TxnAcc {
    sessions: [FxHashMap<u64, SessionTxn>; 2],
    pub(super) classes: FxHashMap<u64, ClassAcc>,
    /// Per side: transactions that ran (at least one statement sent), and their latencies.
    pub(super) ran: [u64; 2],
    pub(super) latency: [Latency; 2],
}

/// Appends a statement's step to a shape, folding a block that repeats the one before it; `fps`
/// keeps, per step, the fingerprint that first made it.
fn push_folded(
    shape: &mut Vec<u64>,
    folded: &mut Vec<bool>,
    fps: &mut Vec<u64>,
    step: u64,
    fp: u64,
) {
    shape.push(step);
    folded.push(false);
    fps.push(fp);
    let n = shape.len();
    for p in 1..=MAX_PERIOD.min(n / 2) {
        if shape[n - p..] == shape[n - 2 * p..n - p] {
            shape.truncate(n - p);
            folded.truncate(n - p);
            fps.truncate(n - p);
            for m in &mut folded[n - 2 * p..n - p] {
                *m = true;
            }
            return;
        }
    }
}

/// A statement's step in a transaction's shape: its first word, whether it locks, and the tables it
/// writes and reads, each table's trailing digits dropped. Not its fingerprint: the same business
/// transaction reads `s_dist_05` in one district and `s_dist_07` in the next (TPC-C New-Order), and
/// picks `sbtest3` or `sbtest7` at random (sysbench); those are one class, not one per column or table.
fn step_key(sql: &[u8], plan: &super::plan::StatementPlan) -> u64 {
    // Hashed as it is read, not gathered in a buffer first: this runs for every statement on the
    // comparator's thread (with its three allocations it was 1.5% of a sysbench replay's
    // instructions, 2026-12-07).
    let mut key = xxhash_rust::xxh3::Xxh3::new();
    let first = sql
        .split(|b| b.is_ascii_whitespace() || *b == b'(')
        .find(|w| !w.is_empty())
        .unwrap_or(b"?");
    let mut upper = [0u8; 32];
    for piece in first.chunks(upper.len()) {
        let upper = &mut upper[..piece.len()];
        upper.copy_from_slice(piece);
        upper.make_ascii_uppercase();
        key.update(upper);
    }
    key.update(&[u8::from(plan.class == StatementClass::LockingRead)]);
    for (mark, tables) in [
        (b'w', &plan.tables_written[..]),
        (b'r', &plan.tables_read[..]),
    ] {
        let mut add = |n: &str| {
            key.update(&[mark]);
            key.update(n.as_bytes());
        };
        match tables {
            [] => {}
            [t] => add(table_kind(t)),
            _ => {
                let mut names: Vec<&str> = tables.iter().map(|t| table_kind(t)).collect();
                names.sort_unstable();
                names.dedup();
                names.into_iter().for_each(add);
            }
        }
    }
    key.digest()
}

/// A table's name without its trailing digits: `stock1` and `stock2` (TPC-C table sets), `sbtest3`
/// and `sbtest7` (sysbench) are the same kind of table to a transaction class.
fn table_kind(t: &str) -> &str {
    let k = t.trim_end_matches(|c: char| c.is_ascii_digit());
    if k.is_empty() { t } else { k }
}

/// The class of a transaction: its first write's step (else its first statement's) and the kinds
/// of tables it writes and reads. Not the exact sequence of statements: TPC-C's Payment runs one
/// more customer lookup when it finds the customer by name and one more update for a bad-credit
/// customer, a New-Order has 5 to 15 order lines, and each is still one business transaction.
fn class_of(o: &Open) -> u64 {
    let mut key: Vec<u8> = Vec::new();
    key.extend_from_slice(&o.first_step.unwrap_or(0).to_le_bytes());
    key.push(u8::from(o.first_step_writes));
    for (mark, set) in [(b'w', &o.written), (b'r', &o.read)] {
        for t in set {
            key.push(mark);
            key.extend_from_slice(t.as_bytes());
        }
    }
    xxhash_rust::xxh3::xxh3_64(&key)
}

/// `UPDATE district1`, `SELECT sbtest1`: the statement's first word and its first table.
fn statement_name(d: &Done) -> String {
    let sql = &d.job.sql;
    let verb: String = String::from_utf8_lossy(
        sql.split(|b| b.is_ascii_whitespace() || *b == b'(')
            .find(|w| !w.is_empty())
            .unwrap_or(b"?"),
    )
    .to_uppercase();
    let plan = &d.job.plan;
    match plan.tables_written.first().or(plan.tables_read.first()) {
        Some(t) => format!("{verb} {t}"),
        None => verb,
    }
}

impl TxnAcc {
    /// One result, in its session's order on its side.
    pub(super) fn observe(&mut self, d: &Done) {
        let k = match d.side {
            Side::Source => 0,
            Side::Target => 1,
        };
        let infra = matches!(&d.res, Res::Error { code, message } if crate::db::infrastructure_failure(code, message));
        let ran = !infra && !matches!(d.res, Res::Skipped(_));
        let failed = !infra && matches!(d.res, Res::Error { .. });
        let aborted = matches!(
            d.res,
            Res::Skipped(
                SkipReason::InsideAbortedTransaction | SkipReason::EndOfAbortedTransaction
            )
        );
        let plan = &d.job.plan;
        let session = d.job.session;
        let st = self.sessions[k].entry(session).or_default();
        let mut closed: Vec<Open> = Vec::new();
        match plan.control {
            Control::Begin => {
                if let Some(o) = st.open.take() {
                    closed.push(o);
                }
                let mut o = Open::default();
                if ran {
                    o.start_us = Some(d.at_us);
                    o.end_us = d.at_us + d.latency_us;
                }
                st.open = Some(o);
            }
            Control::Commit | Control::Rollback => {
                if let Some(mut o) = st.open.take() {
                    if ran {
                        o.start_us.get_or_insert(d.at_us);
                        o.end_us = d.at_us + d.latency_us;
                    }
                    o.rollback |= plan.control == Control::Rollback || aborted;
                    o.error |= failed;
                    closed.push(o);
                }
            }
            Control::Autocommit(on) => {
                // SET autocommit = 1 commits the open transaction.
                if on && let Some(o) = st.open.take() {
                    closed.push(o);
                }
                st.autocommit_off = !on;
            }
            Control::Use | Control::Set | Control::LockTables => {}
            Control::None => {
                // DDL commits what is open and is a transaction of its own.
                if plan.class == StatementClass::Ddl
                    && let Some(o) = st.open.take()
                {
                    closed.push(o);
                }
                let single =
                    st.open.is_none() && (!st.autocommit_off || plan.class == StatementClass::Ddl);
                let o = st.open.get_or_insert_with(Open::default);
                let step = step_key(&d.job.sql, plan);
                if o.shape.len() < MAX_SHAPE {
                    push_folded(&mut o.shape, &mut o.folded, &mut o.fps, step, d.job.fp);
                }
                let writes = plan.class == StatementClass::Write;
                if o.first_step.is_none() || (writes && !o.first_step_writes) {
                    o.first_step = Some(step);
                    o.first_step_writes = writes;
                }
                // A transaction names the same few tables again and again: a new String only for
                // a table not seen in it yet.
                for (set, tables) in [
                    (&mut o.written, &plan.tables_written[..]),
                    (&mut o.read, &plan.tables_read[..]),
                ] {
                    for t in tables {
                        let kind = table_kind(t);
                        if !set.contains(kind) {
                            set.insert(kind.to_string());
                        }
                    }
                }
                if o.first.is_none()
                    || (o.first_write.is_none() && plan.class == StatementClass::Write)
                {
                    let name = statement_name(d);
                    if plan.class == StatementClass::Write {
                        o.first_write = Some(name.clone());
                    }
                    o.first.get_or_insert(name);
                }
                if ran {
                    o.start_us.get_or_insert(d.at_us);
                    o.end_us = d.at_us + d.latency_us;
                }
                o.error |= failed;
                o.rollback |= aborted;
                if single && let Some(o) = st.open.take() {
                    closed.push(o);
                }
            }
        }
        if st.open.is_none() && !st.autocommit_off {
            self.sessions[k].remove(&session);
        }
        for o in closed {
            self.close(k, o);
        }
    }

    fn close(&mut self, k: usize, o: Open) {
        if o.shape.is_empty() {
            // BEGIN … COMMIT with nothing in between (or only settings): not a transaction of work.
            return;
        }
        let id = class_of(&o);
        let c = self.classes.entry(id).or_insert_with(|| ClassAcc {
            name: o
                .first_write
                .clone()
                .or(o.first.clone())
                .unwrap_or_default(),
            shape: o.fps.clone(),
            folded: o.folded.clone(),
            ..Default::default()
        });
        if k == 0 {
            c.count += 1;
        }
        if let Some(start) = o.start_us {
            let s = &mut c.sides[k];
            s.count += 1;
            s.rollbacks += o.rollback as u64;
            s.errors += o.error as u64;
            let us = o.end_us.saturating_sub(start);
            s.latency.record(us);
            self.ran[k] += 1;
            self.latency[k].record(us);
        }
    }

    /// The end of the replay: transactions still open were never committed (the worker rolls them
    /// back when its session ends).
    pub(super) fn finish(&mut self) {
        for k in 0..2 {
            let open: Vec<Open> = std::mem::take(&mut self.sessions[k])
                .into_values()
                .filter_map(|s| s.open)
                .collect();
            for mut o in open {
                o.rollback = true;
                self.close(k, o);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(seq: &[u64]) -> (Vec<u64>, Vec<bool>) {
        let (mut s, mut f, mut fps) = (Vec::new(), Vec::new(), Vec::new());
        for &x in seq {
            push_folded(&mut s, &mut f, &mut fps, x, x + 1000);
        }
        assert_eq!(fps, s.iter().map(|x| x + 1000).collect::<Vec<_>>());
        (s, f)
    }

    #[test]
    fn repeated_lines_fold_so_5_and_15_order_lines_are_one_class() {
        // New-Order: 3 header statements, then per order line 4 statements, then 2 more.
        let order = |lines: usize| {
            let mut v = vec![1, 2, 3];
            for _ in 0..lines {
                v.extend([10, 11, 12, 13]);
            }
            v.extend([4, 5]);
            v
        };
        let (a, fa) = fold(&order(5));
        let (b, _) = fold(&order(15));
        assert_eq!(a, vec![1, 2, 3, 10, 11, 12, 13, 4, 5]);
        assert_eq!(a, b);
        assert_eq!(
            fa,
            vec![false, false, false, true, true, true, true, false, false]
        );
        // A run of one statement folds; different statements do not.
        assert_eq!(fold(&[7, 7, 7, 8]).0, vec![7, 8]);
        assert_eq!(fold(&[7, 8, 9]).0, vec![7, 8, 9]);
        assert_ne!(fold(&[7, 8]).0, fold(&[8, 7]).0);
    }

    /// The step key hashes, as it reads them, the bytes it once gathered in a buffer (its first
    /// word upper case, whether it locks, `w`/`r` and each kind of table, sorted): the same classes.
    #[test]
    fn the_step_key_is_the_hash_of_the_word_the_lock_and_the_kinds_of_tables() {
        use crate::replay::plan::{Mode, plan};
        let gathered = |sql: &str| {
            let p = plan(sql.as_bytes(), Mode::All);
            let mut key: Vec<u8> = sql
                .as_bytes()
                .split(|b| b.is_ascii_whitespace() || *b == b'(')
                .find(|w| !w.is_empty())
                .unwrap_or(b"?")
                .to_ascii_uppercase();
            key.push(u8::from(p.class == StatementClass::LockingRead));
            for (mark, tables) in [(b'w', &p.tables_written[..]), (b'r', &p.tables_read[..])] {
                let mut names: Vec<&str> = tables.iter().map(|t| table_kind(t)).collect();
                names.sort_unstable();
                names.dedup();
                for n in names {
                    key.push(mark);
                    key.extend_from_slice(n.as_bytes());
                }
            }
            xxhash_rust::xxh3::xxh3_64(&key)
        };
        let streamed = |sql: &str| step_key(sql.as_bytes(), &plan(sql.as_bytes(), Mode::All));
        for sql in [
            "select c from sbtest3 where id=5",
            "SELECT c FROM sbtest1 WHERE id BETWEEN 1 AND 100 FOR UPDATE",
            "update stock2 set s_quantity = 5 where s_i_id = 1",
            "INSERT INTO t1 SELECT * FROM t2 JOIN t3 ON t2.a = t3.a JOIN t20 ON t20.a = t2.a",
            "(select 1)",
            "",
            "averyveryverylongfirstwordthatisfarlongerthanthirtytwobytes x",
        ] {
            assert_eq!(streamed(sql), gathered(sql), "{sql}");
        }
        assert_eq!(
            streamed("select c from sbtest3 where id=5"),
            streamed("SELECT c FROM sbtest7 WHERE id=9")
        );
        assert_ne!(
            streamed("select c from sbtest3 where id=5"),
            streamed("select c from sbtest3 where id=5 for update")
        );
    }
}
