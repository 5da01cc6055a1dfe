//! What `--mode all` orders across sessions: only statements whose transactions conflict.
//!
//! The capture's order (the general log's start order, the slow log's completion order) says which of
//! two conflicting statements took its locks first; statements that touch different rows may run in
//! any order, since neither could have waited for the other. So each ordered statement (a write, a
//! locking read, DDL, the end of a transaction) gets the statements captured before it in other
//! sessions that touch the same rows, and waits until those have taken their locks (see `gate`):
//!
//! - a statement's rows are named by the equalities of its top-level `WHERE` (`id = 5 AND k = 'x'`)
//!   or the columns and values of a one-row `INSERT`; two statements on the same table touch
//!   different rows when some column has a different value in both. Anything else (ranges, `OR`,
//!   joins, multi-row inserts, no `WHERE`) touches the whole table;
//! - a `COMMIT`/`ROLLBACK` touches everything its transaction touched, so conflicting transactions
//!   also end in the captured order;
//! - but once a transaction holds an exclusive lock on rows (it wrote them, or read them `FOR
//!   UPDATE`), a statement of another session captured later on those rows cannot have taken its
//!   lock before the transaction ended, whatever the log's order says: the general log writes a
//!   statement when it starts (before it waits for the lock), and the slow log may write it before
//!   the COMMIT that let it go (the COMMIT's record is written after its locks are released). The
//!   transaction's later statements and its end do not wait for such statements — the server
//!   makes them wait for the transaction instead. Waiting for them at the gate would be a cycle
//!   (the gate waits for the statement, the statement for the transaction's lock) that only the
//!   2 s timeout ends;
//! - a write whose tables are unknown (`CALL`, …) waits for everything captured before it, and
//!   everything after waits for it.
//!
//! Memory is bounded: each table keeps a window of its recent statements; a statement that conflicts
//! with one that fell out of the window waits for every ordered statement up to that one instead.

use super::plan::{Control, StatementPlan};
use crate::sql::classify::StatementClass as C;
use crate::sql::keywords::eq_kw;
use crate::sql::lexer::{TokenKind, unquote};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// Statements remembered per table before the oldest are folded into a watermark.
const WINDOW: usize = 512;

/// Column = value pairs (column lower case, value as written without quotes), sorted by column.
pub(super) type RowKey = Vec<(String, Vec<u8>)>;

/// Rows of one table a statement touches: some rows named by equalities, or all of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Access {
    pub(super) table: String,
    /// None: the whole table.
    pub(super) key: Option<std::sync::Arc<Key>>,
}

/// A row key with hashes of its columns and of its values: every ordered statement is checked
/// against up to WINDOW remembered ones on the dispatcher's one thread, and comparing the strings
/// each time was most of its cost (2026-12-05 profile of a sysbench replay: 8% of the process).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Key {
    /// Per column, sorted by the column's hash: the hash of its name, the hash of its value, and
    /// the value (compared only when the hashes agree).
    columns: Vec<(u64, u64, Vec<u8>)>,
    /// 128 bits of all the column names: equal hashes are taken as the same columns (a collision
    /// is 2^-128 likely), so the common check costs two integer compares.
    columns_hash: u128,
    values_hash: u64,
}

impl Key {
    pub(super) fn new(pairs: RowKey) -> Key {
        let mut all = xxhash_rust::xxh3::Xxh3::new();
        let mut values = xxhash_rust::xxh3::Xxh3::new();
        let mut columns: Vec<(u64, u64, Vec<u8>)> = pairs
            .into_iter()
            .map(|(c, v)| {
                // Column names are taken as equal when their 64-bit hashes are: the few columns
                // of one table do not collide in practice.
                let ch = xxhash_rust::xxh3::xxh3_64(c.as_bytes());
                (ch, xxhash_rust::xxh3::xxh3_64(&v), v)
            })
            .collect();
        columns.sort_by_key(|x| x.0);
        for (ch, vh, _) in &columns {
            all.update(&ch.to_le_bytes());
            values.update(&vh.to_le_bytes());
        }
        Key {
            columns,
            columns_hash: all.digest128(),
            values_hash: values.digest(),
        }
    }
}

/// What an ordered statement waits for before it starts: every ordered statement numbered below
/// `all_before`, and the statements numbered in `on`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Deps {
    pub(super) all_before: u64,
    pub(super) on: Vec<u64>,
    /// The sessions of the statements in `on`.
    pub(super) sessions: Vec<u64>,
}

/// Whether two accesses of the same table may touch the same rows.
fn overlaps(a: &Option<std::sync::Arc<Key>>, b: &Option<std::sync::Arc<Key>>) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return true;
    };
    if a.columns_hash == b.columns_hash && a.values_hash != b.values_hash {
        // Same columns (the usual case: `id = …` against `id = …`), different values somewhere.
        // (Equal value hashes of different values only send the pair to the exact comparison.)
        return false;
    }
    let (a, b) = (&a.columns, &b.columns);
    // Both sorted by column: a column in both with different values separates them.
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                if a[i].1 != b[j].1 || a[i].2 != b[j].2 {
                    return false;
                }
                i += 1;
                j += 1;
            }
        }
    }
    true
}

/// The rows a statement touches, from its tokens: None when it cannot say (a barrier).
pub(super) fn accesses(plan: &StatementPlan, sql: &[u8]) -> Option<Vec<Access>> {
    let mut tables: Vec<String> = plan.tables_written.iter().cloned().collect();
    tables.extend(plan.tables_read.iter().cloned());
    tables.sort();
    tables.dedup();
    if tables.is_empty() {
        return None;
    }
    let key = if tables.len() == 1 {
        row_key(sql).map(|k| std::sync::Arc::new(Key::new(k)))
    } else {
        None
    };
    Some(
        tables
            .into_iter()
            .map(|table| Access {
                table,
                key: key.clone(),
            })
            .collect(),
    )
}

/// A literal value's text (numbers as written, strings unquoted), with a leading minus.
fn literal(toks: &[crate::sql::lexer::Token], sql: &[u8], i: usize) -> Option<(Vec<u8>, usize)> {
    let t = toks.get(i)?;
    match t.kind {
        TokenKind::Number | TokenKind::HexNumber => Some((t.text(sql).to_vec(), i + 1)),
        TokenKind::String | TokenKind::NationalString => Some((unquote(t.text(sql)), i + 1)),
        TokenKind::Punct if t.text(sql) == b"-" => {
            let n = toks.get(i + 1)?;
            (n.kind == TokenKind::Number).then(|| {
                let mut v = b"-".to_vec();
                v.extend_from_slice(n.text(sql));
                (v, i + 2)
            })
        }
        _ => None,
    }
}

fn column_name(toks: &[crate::sql::lexer::Token], sql: &[u8], i: usize) -> Option<(String, usize)> {
    let t = toks.get(i)?;
    if !matches!(t.kind, TokenKind::Word | TokenKind::QuotedIdent) {
        return None;
    }
    // `t.col`: the column is the last part.
    let (last, next) = if toks.get(i + 1).is_some_and(|d| d.text(sql) == b".") {
        let c = toks.get(i + 2)?;
        (c, i + 3)
    } else {
        (t, i + 1)
    };
    Some((
        String::from_utf8_lossy(&unquote(last.text(sql))).to_lowercase(),
        next,
    ))
}

/// The equalities that name a statement's rows: `WHERE a = 1 AND b = 'x'` at the top level, or a
/// one-row `INSERT … (a, b) VALUES (1, 'x')`. None when the statement may touch any row.
pub(super) fn row_key(sql: &[u8]) -> Option<RowKey> {
    let toks: Vec<_> = crate::sql::classify::significant(sql).collect();
    let w = |i: usize| toks.get(i).map(|t| t.text(sql)).unwrap_or(b"");
    let first = w(0);
    let mut key: RowKey = Vec::new();
    if eq_kw(first, b"INSERT") || eq_kw(first, b"REPLACE") {
        // INSERT [IGNORE] INTO t (cols) VALUES (vals) with nothing after but ON DUPLICATE KEY.
        let open = toks.iter().position(|t| t.text(sql) == b"(")?;
        let mut cols = Vec::new();
        let mut i = open + 1;
        loop {
            let (c, n) = column_name(&toks, sql, i)?;
            cols.push(c);
            match w(n) {
                b"," => i = n + 1,
                b")" => {
                    i = n + 1;
                    break;
                }
                _ => return None,
            }
        }
        if !(eq_kw(w(i), b"VALUES") || eq_kw(w(i), b"VALUE")) || w(i + 1) != b"(" {
            return None;
        }
        i += 2;
        let mut depth = 0;
        for col in cols {
            match literal(&toks, sql, i) {
                Some((v, n)) if matches!(w(n), b"," | b")") => {
                    key.push((col, v));
                    i = n;
                }
                _ => {
                    // An expression (NOW(), a function): this column names nothing; skip it.
                    while i < toks.len() {
                        match w(i) {
                            b"(" => depth += 1,
                            b")" if depth == 0 => break,
                            b")" => depth -= 1,
                            b"," if depth == 0 => break,
                            _ => {}
                        }
                        i += 1;
                    }
                }
            }
            match w(i) {
                b"," => i += 1,
                b")" => {
                    i += 1;
                    break;
                }
                _ => return None,
            }
        }
        // A second row: the statement names several rows; take the whole table.
        if w(i) == b"," {
            return None;
        }
    } else {
        let mut depth = 0i32;
        let start = toks.iter().enumerate().position(|(i, t)| {
            match t.text(sql) {
                b"(" => depth += 1,
                b")" => depth -= 1,
                _ => {}
            }
            depth == 0 && t.kind == TokenKind::Word && eq_kw(t.text(sql), b"WHERE") && i > 0
        })?;
        let mut i = start + 1;
        loop {
            let (c, n) = column_name(&toks, sql, i)?;
            if w(n) != b"=" {
                return None;
            }
            let (v, n) = literal(&toks, sql, n + 1)?;
            key.push((c, v));
            let x = w(n);
            if eq_kw(x, b"AND") {
                i = n + 1;
                continue;
            }
            if n >= toks.len()
                || x == b";"
                || [&b"ORDER"[..], b"LIMIT", b"FOR", b"LOCK", b"GROUP"]
                    .iter()
                    .any(|k| eq_kw(x, k))
            {
                break;
            }
            return None;
        }
    }
    if key.is_empty() {
        return None;
    }
    key.sort();
    key.dedup_by(|a, b| a.0 == b.0);
    Some(key)
}

/// One remembered ordered statement on a table.
#[derive(Clone)]
struct Entry {
    seq: u64,
    session: u64,
    key: Option<std::sync::Arc<Key>>,
}

/// The remembered statements of one table that name rows by the same columns.
#[derive(Default)]
struct ColumnSet {
    /// The columns' name hashes.
    columns: Vec<u64>,
    /// By the hash of all their values, in statement order.
    by_values: FxHashMap<u64, VecDeque<Entry>>,
    /// By one column's (name hash, value hash): each statement is filed under each of its columns,
    /// in statement order, so that a statement naming rows by other columns finds the ones that
    /// agree with it on a column they share without looking at the rest.
    by_column: FxHashMap<(u64, u64), VecDeque<Entry>>,
    len: usize,
}

/// The last WINDOW ordered statements on one table, filed so that a statement naming rows is
/// compared only with those that may touch them: statements on the whole table, and statements
/// naming rows that agree with it on a column both name (or share no column with it). Scanning
/// all of them was 5% of a sysbench replay's CPU on 2026-12-06 (most of them `id = n` on other
/// rows), and filing by the whole key alone still scanned every one-row INSERT for each
/// `id = n` statement and the reverse (4% on the same replay, hot rows making it worse).
#[derive(Default)]
struct TableWindow {
    /// The window in statement order, for eviction.
    order: VecDeque<(u64, Option<std::sync::Arc<Key>>)>,
    /// Statements naming rows, by their columns' hash.
    keyed: FxHashMap<u128, ColumnSet>,
    /// Statements on the whole table.
    whole: VecDeque<Entry>,
    /// The highest statement folded out of the window (0: none).
    evicted: u64,
}

impl TableWindow {
    /// Calls `f` with the remembered statements that may touch the rows `key` names (all of them
    /// for None); `overlaps` decides among them.
    fn for_each_candidate(&self, key: &Option<std::sync::Arc<Key>>, mut f: impl FnMut(&Entry)) {
        self.whole.iter().for_each(&mut f);
        for (ch, set) in &self.keyed {
            let all = || set.by_values.values().flatten();
            let Some(k) = key else {
                all().for_each(&mut f);
                continue;
            };
            if *ch == k.columns_hash {
                set.by_values
                    .get(&k.values_hash)
                    .into_iter()
                    .flatten()
                    .for_each(&mut f);
                continue;
            }
            match k.columns.iter().find(|c| set.columns.contains(&c.0)) {
                // Only statements with the same value in that column can touch the same rows.
                Some((c, vh, _)) => set
                    .by_column
                    .get(&(*c, *vh))
                    .into_iter()
                    .flatten()
                    .for_each(&mut f),
                // No column in common: nothing tells the rows apart.
                None => all().for_each(&mut f),
            }
        }
    }

    fn push(&mut self, e: Entry) {
        // The same statement on the same rows twice (a transaction's end repeats its accesses).
        if self
            .order
            .back()
            .is_some_and(|(seq, key)| *seq == e.seq && *key == e.key)
        {
            return;
        }
        self.order.push_back((e.seq, e.key.clone()));
        match e.key.clone() {
            None => self.whole.push_back(e),
            Some(k) => {
                let set = self.keyed.entry(k.columns_hash).or_default();
                if set.len == 0 {
                    set.columns = k.columns.iter().map(|c| c.0).collect();
                }
                set.len += 1;
                for (c, vh, _) in &k.columns {
                    set.by_column
                        .entry((*c, *vh))
                        .or_default()
                        .push_back(e.clone());
                }
                set.by_values.entry(k.values_hash).or_default().push_back(e);
            }
        }
        while self.order.len() > WINDOW {
            let Some((seq, key)) = self.order.pop_front() else {
                break;
            };
            self.evicted = self.evicted.max(seq);
            // Each list is in statement order, as the window: the oldest is at its front.
            let Some(k) = key else {
                self.whole.pop_front();
                continue;
            };
            let Some(set) = self.keyed.get_mut(&k.columns_hash) else {
                continue;
            };
            pop_oldest(&mut set.by_values, k.values_hash);
            for (c, vh, _) in &k.columns {
                pop_oldest(&mut set.by_column, (*c, *vh));
            }
            set.len -= 1;
            if set.len == 0 {
                self.keyed.remove(&k.columns_hash);
            }
        }
    }
}

/// Drops the oldest statement filed under `at`, and the list when it is empty.
fn pop_oldest<K: std::hash::Hash + Eq>(lists: &mut FxHashMap<K, VecDeque<Entry>>, at: K) {
    if let Some(d) = lists.get_mut(&at) {
        d.pop_front();
        if d.is_empty() {
            lists.remove(&at);
        }
    }
}

/// The dispatcher's view of conflicts: recent statements per table and each session's open
/// transaction.
#[derive(Default)]
pub(super) struct Conflicts {
    tables: FxHashMap<String, TableWindow>,
    /// The last statement that waits for everything before it (unknown tables).
    barrier: u64,
    /// Per session: in a transaction (BEGIN, or autocommit off), and what it touched.
    sessions: FxHashMap<u64, SessionTxn>,
}

#[derive(Default)]
struct SessionTxn {
    autocommit_off: bool,
    explicit: bool,
    touched: Vec<Touch>,
}

/// Rows an open transaction touched, and since which statement it holds an exclusive lock on them.
struct Touch {
    access: Access,
    exclusive_since: Option<u64>,
}

/// Whether the statement takes exclusive row locks: writes and DDL do, `SELECT … FOR UPDATE` does;
/// `LOCK IN SHARE MODE` / `FOR SHARE` take shared ones and `SELECT … INTO @v` none.
fn locks_exclusively(plan: &StatementPlan, sql: &[u8]) -> bool {
    match plan.class {
        C::Write | C::Ddl => true,
        C::LockingRead => {
            let toks: Vec<_> = crate::sql::classify::significant(sql).collect();
            toks.windows(2)
                .any(|w| eq_kw(w[0].text(sql), b"FOR") && eq_kw(w[1].text(sql), b"UPDATE"))
        }
        _ => false,
    }
}

impl Conflicts {
    /// Registers ordered statement `seq` of `session` and returns what it waits for. `plan` and
    /// `sql` say what it touches.
    pub(super) fn order(
        &mut self,
        seq: u64,
        session: u64,
        plan: &StatementPlan,
        sql: &[u8],
    ) -> Deps {
        let txn = self.sessions.entry(session).or_default();
        let ends = matches!(plan.control, Control::Commit | Control::Rollback);
        // What an ending transaction touched: its accesses, and the locks it held.
        let ended = if ends {
            std::mem::take(&mut txn.touched)
        } else {
            Vec::new()
        };
        let acc = if ends {
            Some(ended.iter().map(|t| t.access.clone()).collect())
        } else if matches!(plan.class, C::Write | C::LockingRead | C::Ddl) {
            accesses(plan, sql)
        } else {
            Some(Vec::new())
        };
        if ends {
            txn.explicit = false;
        }
        let Some(acc) = acc else {
            // Unknown reach: after everything, and everything after it.
            self.barrier = seq;
            txn.touched.clear();
            return Deps {
                all_before: seq,
                ..Default::default()
            };
        };
        if !ends && (txn.explicit || txn.autocommit_off) {
            let exclusive = locks_exclusively(plan, sql).then_some(seq);
            for a in &acc {
                match txn.touched.iter_mut().find(|t| &t.access == a) {
                    Some(t) => {
                        t.exclusive_since = t.exclusive_since.or(exclusive);
                    }
                    None => txn.touched.push(Touch {
                        access: a.clone(),
                        exclusive_since: exclusive,
                    }),
                }
            }
        }
        // The locks the transaction holds (this statement's own included: they cannot exempt
        // anything, every remembered statement came before it).
        let held: &[Touch] = if ends { &ended } else { &txn.touched };
        let mut deps = Deps {
            all_before: self.barrier + u64::from(self.barrier > 0),
            ..Default::default()
        };
        let mut on: Vec<(u64, u64)> = Vec::new();
        for a in &acc {
            if !self.tables.contains_key(&a.table) {
                self.tables.insert(a.table.clone(), TableWindow::default());
            }
            let Some(w) = self.tables.get_mut(&a.table) else {
                continue;
            };
            if w.evicted > 0 {
                // Conflicts with a statement no longer in the window cannot be ruled out.
                deps.all_before = deps.all_before.max(w.evicted + 1);
            }
            w.for_each_candidate(&a.key, |e| {
                if e.session != session
                    && overlaps(&e.key, &a.key)
                    && !held.iter().any(|t| {
                        t.exclusive_since.is_some_and(|since| since < e.seq)
                            && t.access.table == a.table
                            && overlaps(&t.access.key, &e.key)
                    })
                {
                    on.push((e.seq, e.session));
                }
            });
            w.push(Entry {
                seq,
                session,
                key: a.key.clone(),
            });
        }
        on.retain(|&(d, _)| d >= deps.all_before);
        deps.on = on.iter().map(|&(d, _)| d).collect();
        deps.on.sort_unstable();
        deps.on.dedup();
        deps.sessions = on.iter().map(|&(_, s)| s).collect();
        deps.sessions.sort_unstable();
        deps.sessions.dedup();
        deps
    }

    /// Follows a statement that is not ordered but changes the session's transaction state.
    pub(super) fn control(&mut self, session: u64, control: &Control) {
        let txn = self.sessions.entry(session).or_default();
        match control {
            Control::Begin => {
                txn.explicit = true;
                txn.touched.clear();
            }
            Control::Autocommit(on) => txn.autocommit_off = !on,
            _ => {}
        }
    }

    /// A session ended: forget its transaction.
    pub(super) fn end_session(&mut self, session: u64) {
        self.sessions.remove(&session);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::plan::{Mode, plan};
    use std::sync::Arc;

    fn key(sql: &str) -> Option<Vec<(String, String)>> {
        row_key(sql.as_bytes()).map(|k| {
            k.into_iter()
                .map(|(c, v)| (c, String::from_utf8(v).unwrap()))
                .collect()
        })
    }

    /// Orders statements numbered 1, 2, … as the dispatcher does.
    fn numbered() -> impl FnMut(&mut Conflicts, u64, &str) -> Deps {
        let mut next = 0;
        move |c, session, sql| {
            next += 1;
            let p = plan(sql.as_bytes(), Mode::All);
            c.order(next, session, &p, sql.as_bytes())
        }
    }

    fn kv(pairs: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(
            pairs
                .iter()
                .map(|(c, v)| (c.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn rows_named_by_equalities_and_one_row_inserts() {
        assert_eq!(
            key("UPDATE sbtest1 SET k=k+1 WHERE id=5"),
            kv(&[("id", "5")])
        );
        assert_eq!(
            key(
                "SELECT d_next_o_id, d_tax FROM district1 WHERE d_w_id = 1 AND d_id = 3 FOR UPDATE"
            ),
            kv(&[("d_id", "3"), ("d_w_id", "1")])
        );
        assert_eq!(
            key("INSERT INTO new_orders1 (no_o_id, no_d_id, no_w_id) VALUES (3001,10,1)"),
            kv(&[("no_d_id", "10"), ("no_o_id", "3001"), ("no_w_id", "1")])
        );
        assert_eq!(
            key("INSERT INTO h (a, d, b) VALUES (7, NOW(), 'x')"),
            kv(&[("a", "7"), ("b", "x")])
        );
        assert_eq!(key("DELETE FROM t WHERE id = -3"), kv(&[("id", "-3")]));
        assert_eq!(key("UPDATE t SET a=1 WHERE id=1 OR id=2"), None);
        assert_eq!(key("UPDATE t SET a=1 WHERE id BETWEEN 1 AND 2"), None);
        assert_eq!(key("UPDATE t SET a=1"), None);
        assert_eq!(key("INSERT INTO t (a) VALUES (1), (2)"), None);
        assert_eq!(key("INSERT INTO t VALUES (1, 2)"), None);
        assert_eq!(key("DELETE FROM t WHERE id IN (1, 2)"), None);
    }

    #[test]
    fn only_conflicting_statements_wait_and_commits_keep_their_order() {
        let mut c = Conflicts::default();
        let mut order = numbered();
        c.control(1, &Control::Begin);
        c.control(2, &Control::Begin);
        assert!(
            order(&mut c, 1, "UPDATE t SET a=1 WHERE id=1")
                .on
                .is_empty()
        ); // 1
        assert!(
            order(&mut c, 2, "UPDATE t SET a=1 WHERE id=2")
                .on
                .is_empty()
        ); // 2
        assert!(order(&mut c, 1, "COMMIT").on.is_empty()); // 3
        assert_eq!(
            order(&mut c, 2, "UPDATE t SET a=2 WHERE id=1").on,
            vec![1, 3]
        ); // 4
        // Session 2's COMMIT touched ids 2 and 1: after session 1's statements on id 1, its end too.
        assert_eq!(order(&mut c, 2, "COMMIT").on, vec![1, 3]); // 5
        assert_eq!(
            order(&mut c, 3, "UPDATE t SET a=3 WHERE id=9").on,
            Vec::<u64>::new()
        );
        let whole = order(&mut c, 3, "UPDATE t SET a=3"); // 7: the whole table
        assert_eq!(whole.on, vec![1, 2, 3, 4, 5]);
        assert_eq!(
            order(&mut c, 4, "UPDATE u SET a=1 WHERE id=1").on,
            Vec::<u64>::new()
        );
        let unknown = order(&mut c, 4, "CALL p()");
        assert_eq!(unknown.all_before, 9);
        assert_eq!(
            order(&mut c, 1, "UPDATE u SET a=1 WHERE id=2").all_before,
            10
        );
    }

    #[test]
    fn a_transaction_holding_a_lock_does_not_wait_for_statements_it_blocked() {
        let mut c = Conflicts::default();
        let mut next = numbered();
        let mut order = |c: &mut Conflicts, session: u64, sql: &str| next(c, session, sql).on;
        c.control(1, &Control::Begin);
        c.control(2, &Control::Begin);
        assert!(order(&mut c, 1, "UPDATE t SET a=1 WHERE id=1").is_empty()); // 1
        // Captured after 1 but blocked by session 1's lock until its COMMIT (the general log's
        // start order; the slow log writes it before the COMMIT's record now and then).
        assert_eq!(order(&mut c, 2, "UPDATE t SET a=2 WHERE id=1"), vec![1]); // 2
        // Session 1 goes on and ends without waiting for 2.
        assert!(order(&mut c, 1, "DELETE FROM t WHERE id=1").is_empty()); // 3
        assert!(order(&mut c, 1, "COMMIT").is_empty()); // 4
        // A read FOR UPDATE holds the lock as well; a shared or no lock does not.
        c.control(3, &Control::Begin);
        assert!(order(&mut c, 3, "SELECT a FROM u WHERE id=7 FOR UPDATE").is_empty()); // 5
        assert_eq!(order(&mut c, 4, "UPDATE u SET a=1 WHERE id=7"), vec![5]); // 6
        assert!(order(&mut c, 3, "COMMIT").is_empty()); // 7
        c.control(5, &Control::Begin);
        assert!(order(&mut c, 5, "SELECT a FROM v WHERE id=7 LOCK IN SHARE MODE").is_empty()); // 8
        assert_eq!(order(&mut c, 6, "UPDATE v SET a=1 WHERE id=7"), vec![8]); // 9
        assert_eq!(order(&mut c, 5, "COMMIT"), vec![9]); // 10
        // A statement captured before the lock was taken is still waited for.
        c.control(7, &Control::Begin);
        assert!(order(&mut c, 8, "UPDATE w SET a=1 WHERE id=1").is_empty()); // 11
        assert_eq!(order(&mut c, 7, "UPDATE w SET a=2 WHERE id=1"), vec![11]); // 12
        assert_eq!(order(&mut c, 7, "COMMIT"), vec![11]); // 13
    }

    #[test]
    fn the_window_files_find_what_a_scan_of_the_whole_window_finds() {
        // Random keys over a few columns and values, some whole-table statements, more than a
        // window of them: each lookup must find exactly the overlapping statements a scan of
        // everything the window holds finds.
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut rand = move |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let columns = ["id", "k", "w", "d"];
        let random_key = |rand: &mut dyn FnMut(u64) -> u64| -> Option<Arc<Key>> {
            if rand(10) == 0 {
                return None;
            }
            let mut pairs: RowKey = Vec::new();
            for c in columns {
                if rand(2) == 0 {
                    pairs.push((c.to_string(), rand(4).to_string().into_bytes()));
                }
            }
            if pairs.is_empty() {
                pairs.push(("id".into(), rand(4).to_string().into_bytes()));
            }
            Some(Arc::new(Key::new(pairs)))
        };
        let mut w = TableWindow::default();
        for seq in 1..=3 * WINDOW as u64 {
            let key = random_key(&mut rand);
            let mut found: Vec<u64> = Vec::new();
            w.for_each_candidate(&key, |e| {
                if overlaps(&e.key, &key) {
                    found.push(e.seq)
                }
            });
            found.sort_unstable();
            let mut scanned: Vec<u64> = w
                .order
                .iter()
                .filter(|(_, k)| overlaps(k, &key))
                .map(|(s, _)| *s)
                .collect();
            scanned.sort_unstable();
            assert_eq!(found, scanned, "statement {seq}, key {key:?}");
            w.push(Entry {
                seq,
                session: seq % 7,
                key,
            });
        }
    }

    #[test]
    fn the_window_files_statements_by_their_rows_and_still_finds_every_conflict() {
        let mut c = Conflicts::default();
        let mut next = numbered();
        let mut on = |c: &mut Conflicts, session: u64, sql: &str| next(c, session, sql).on;
        for id in 1..=20 {
            assert!(on(&mut c, id, &format!("UPDATE t SET a=1 WHERE id={id}")).is_empty());
        } // 1..=20
        // Same column, same value: only the statement on that row.
        assert_eq!(on(&mut c, 99, "UPDATE t SET a=2 WHERE id=7"), vec![7]); // 21
        // Another column: any row may be the same one.
        let by_k = on(&mut c, 98, "UPDATE t SET a=3 WHERE k=5"); // 22
        assert_eq!(by_k, (1..=21).collect::<Vec<u64>>());
        // A row named by id meets the statement on k, and its own row's.
        assert_eq!(on(&mut c, 97, "DELETE FROM t WHERE id=3"), vec![3, 22]); // 23
        // The whole table meets everything.
        assert_eq!(
            on(&mut c, 96, "UPDATE t SET a=4"),
            (1..=23).collect::<Vec<u64>>()
        ); // 24
        // And a row afterwards meets the whole-table statement.
        assert_eq!(
            on(&mut c, 95, "UPDATE t SET a=5 WHERE id=19"),
            vec![19, 22, 24]
        ); // 25
        // A one-row INSERT names its row by all its columns: it meets the statements that agree
        // with it on a column both name (id = 19; not k = 5), and the whole table.
        assert_eq!(
            on(&mut c, 94, "INSERT INTO t (id, k) VALUES (19, 4)"),
            vec![19, 24, 25]
        ); // 26
        assert_eq!(
            on(&mut c, 93, "UPDATE t SET a=6 WHERE id=19 AND k=4"),
            vec![19, 24, 25, 26]
        ); // 27
        // No column in common with the others: any row may be theirs.
        assert_eq!(
            on(&mut c, 92, "UPDATE t SET a=7 WHERE c='x'"),
            (1..=27).collect::<Vec<u64>>()
        ); // 28
        // Statements folded out of the window leave no trace in its files: after a full window of
        // two-column rows, a row on id meets only what the window holds, and each only once.
        let mut c = Conflicts::default();
        let mut next = numbered();
        let mut on = |c: &mut Conflicts, session: u64, sql: &str| next(c, session, sql);
        let n = WINDOW as u64 + 10;
        for i in 1..=n {
            let sql = format!("INSERT INTO t (id, k) VALUES ({}, {i})", i % 3);
            on(&mut c, i, &sql);
        }
        let w = &c.tables["t"];
        let filed: usize = w
            .keyed
            .values()
            .map(|s| s.by_values.values().map(VecDeque::len).sum::<usize>())
            .sum();
        let by_column: usize = w
            .keyed
            .values()
            .map(|s| s.by_column.values().map(VecDeque::len).sum::<usize>())
            .sum();
        assert_eq!(
            (w.order.len(), filed, by_column),
            (WINDOW, WINDOW, 2 * WINDOW)
        );
        let d = on(&mut c, 0, "DELETE FROM t WHERE id=1");
        assert_eq!(d.all_before, n - WINDOW as u64 + 1);
        let expect: Vec<u64> = (n - WINDOW as u64 + 1..=n).filter(|i| i % 3 == 1).collect();
        assert_eq!(d.on, expect);
    }

    #[test]
    fn the_window_is_bounded() {
        let mut c = Conflicts::default();
        for i in 1..=(WINDOW as u64 * 3) {
            let sql = format!("UPDATE t SET a=1 WHERE id={i}");
            let p = plan(sql.as_bytes(), Mode::All);
            c.order(i, i, &p, sql.as_bytes());
        }
        let w = &c.tables["t"];
        assert_eq!(w.order.len(), WINDOW);
        let p = plan(b"UPDATE t SET a=2 WHERE id=1", Mode::All);
        let d = c.order(10_000, 1, &p, b"UPDATE t SET a=2 WHERE id=1");
        // Ids 1..=1024 fell out of the window: the statement on id 1 waits for all of them.
        assert_eq!(d.all_before, WINDOW as u64 * 2 + 1);
        assert!(d.on.is_empty());
    }
}
