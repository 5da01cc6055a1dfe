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
//! - and the general log's order of two statements that want the same rows is the order in which
//!   they were written, not the order in which they took the lock: a thread may wait for a CPU
//!   between the two. Its lines prove the other order when a transaction ends while an open
//!   transaction of another session wrote (or locked) the same rows for certain (`same_rows`) in
//!   a statement written before the ending transaction's own, and has written nothing since: had
//!   that statement held the rows first, the ending transaction could not have ended before the
//!   open one. That statement ran after the end, so it is moved after it (`Moved`): it waits for
//!   the end, and the ending
//!   transaction's statements do not wait for it (2026-12-07: in a sysbench capture made at 60% of
//!   the machine's rate, seven such pairs met at the gate in a cycle that only the 2 s timeout
//!   ended, and the replay fell 2.3 s behind its schedule). The slow log is left as it is: it
//!   writes a transaction's COMMIT after its locks are released, so the same lines can come from
//!   the order they show;
//! - a write whose tables are unknown (`CALL`, …) waits for everything captured before it, and
//!   everything after waits for it.
//!
//! Memory is bounded: each table keeps a window of its recent statements; a statement that conflicts
//! with one that fell out of the window waits for every ordered statement up to that one instead.

mod rows;
mod window;

use super::plan::{Control, StatementPlan};
use crate::sql::classify::StatementClass as C;
use crate::sql::keywords::eq_kw;
use rows::{Access, accesses, overlaps};
use rustc_hash::FxHashMap;
use window::{Entry, TableWindow};

/// What an ordered statement waits for before it starts: every ordered statement numbered below
/// `all_before`, and the statements numbered in `on`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Deps {
    pub(super) all_before: u64,
    pub(super) on: Vec<u64>,
    /// The sessions of the statements in `on`.
    pub(super) sessions: Vec<u64>,
}

/// The dispatcher's view of conflicts: recent statements per table and each session's open
/// transaction.
#[derive(Default)]
pub(super) struct Conflicts {
    /// Keyed by the one copy of each table name that accesses share (see `Access::table`).
    tables: FxHashMap<std::sync::Arc<str>, TableWindow>,
    /// The last statement that waits for everything before it (unknown tables).
    barrier: u64,
    /// Per session: in a transaction (BEGIN, or autocommit off), and what it touched.
    sessions: FxHashMap<u64, SessionTxn>,
    /// Sessions whose open transaction holds exclusive locks (where `Moved` looks).
    holding: rustc_hash::FxHashSet<u64>,
    /// Statements seen (ordered or not), to tell whether a session wrote anything after one.
    events: u64,
    /// Statements found to have run after the end of another transaction, not yet handed over.
    moved: Vec<Moved>,
}

/// An ordered statement that the general log writes before another session's statement on the
/// same rows, but that took the rows only after that session's transaction ended (see the module's
/// notes): it waits for the end `after` (a COMMIT or ROLLBACK of `session`), and the statements of
/// `session` do not wait for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Moved {
    pub(super) statement: u64,
    pub(super) session: u64,
    pub(super) after: u64,
}

#[derive(Default)]
struct SessionTxn {
    autocommit_off: bool,
    explicit: bool,
    touched: Vec<Touch>,
    /// `Conflicts::events` at the session's latest statement.
    last_event: u64,
}

/// Rows an open transaction touched, and since which statement it holds an exclusive lock on them.
struct Touch {
    access: Access,
    exclusive_since: Option<u64>,
    /// `Conflicts::events` at the statement `exclusive_since`.
    exclusive_event: u64,
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

/// Whether two accesses meet for certain wherever either names a row: one names its rows by some of
/// the other's columns, with the same values (`id = 5` and a one-row `INSERT` of id 5; `overlaps`
/// says whether they may meet at all). Only then does one transaction's end prove that the other's
/// statement did not hold the rows: statements that merely may meet (`id = 5` and `k = 3`) need not
/// have met, and moving one after the end would only add a wait.
fn same_rows(a: &Option<std::sync::Arc<rows::Key>>, b: &Option<std::sync::Arc<rows::Key>>) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    let (few, many) = if a.columns.len() <= b.columns.len() {
        (&a.columns, &b.columns)
    } else {
        (&b.columns, &a.columns)
    };
    few.iter().all(|(name, value, v)| {
        many.iter()
            .any(|(n, h, w)| n == name && h == value && w == v)
    })
}

/// Counts a statement of `session` (see `SessionTxn::last_event`) and returns its transaction (on
/// the fields, not `&mut self`: the caller goes on using the others).
fn note<'a>(
    events: &mut u64,
    sessions: &'a mut FxHashMap<u64, SessionTxn>,
    session: u64,
) -> &'a mut SessionTxn {
    *events += 1;
    let txn = sessions.entry(session).or_default();
    txn.last_event = *events;
    txn
}

impl Conflicts {
    /// Registers ordered statement `seq` of `session` and returns what it waits for. `plan` and
    /// `sql` say what it touches; `written_at_start`: the log writes statements as they start
    /// (the general log), so that its order of an open transaction's lock and an ended one's can be
    /// corrected (`take_moved`).
    pub(super) fn order(
        &mut self,
        seq: u64,
        session: u64,
        plan: &StatementPlan,
        sql: &[u8],
        written_at_start: bool,
    ) -> Deps {
        let mut txn = note(&mut self.events, &mut self.sessions, session);
        let event = txn.last_event;
        let ends = matches!(plan.control, Control::Commit | Control::Rollback);
        // What an ending transaction touched: its accesses, and the locks it held.
        let ended = if ends {
            std::mem::take(&mut txn.touched)
        } else {
            Vec::new()
        };
        if ends {
            self.holding.remove(&session);
            if written_at_start {
                self.find_moved(seq, session, &ended);
            }
            txn = self.sessions.entry(session).or_default();
        }
        let acc = if ends {
            Some(ended.iter().map(|t| t.access.clone()).collect())
        } else if matches!(plan.class, C::Write | C::LockingRead | C::Ddl) {
            accesses(plan, sql, &self.tables)
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
            self.holding.remove(&session);
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
                        if t.exclusive_since.is_none() && exclusive.is_some() {
                            t.exclusive_since = exclusive;
                            t.exclusive_event = event;
                        }
                    }
                    None => txn.touched.push(Touch {
                        access: a.clone(),
                        exclusive_since: exclusive,
                        exclusive_event: event,
                    }),
                }
            }
            if exclusive.is_some() {
                self.holding.insert(session);
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
            let w = self.tables.entry(a.table.clone()).or_default();
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
        // Not what fell below `all_before` (waited for anyway), nor a statement just moved after
        // this end (see `Moved`).
        on.retain(|&(d, _)| {
            d >= deps.all_before
                && !self
                    .moved
                    .iter()
                    .any(|m| m.statement == d && m.session == session)
        });
        deps.on = on.iter().map(|&(d, _)| d).collect();
        deps.on.sort_unstable();
        deps.on.dedup();
        deps.sessions = on.iter().map(|&(_, s)| s).collect();
        deps.sessions.sort_unstable();
        deps.sessions.dedup();
        deps
    }

    /// The statements of open transactions that, by the general log's lines, took their rows only
    /// after the transaction of `session` ending at `seq` (which touched `ended`) had ended: the
    /// open transaction's statement came first in the log, before the ending one's on the same
    /// rows (`same_rows`), and its session has written nothing since (had it run, it would have
    /// held the rows and the ending transaction could not have ended).
    fn find_moved(&mut self, seq: u64, session: u64, ended: &[Touch]) {
        for t in ended {
            let Some(mine) = t.exclusive_since else {
                continue;
            };
            for other in &self.holding {
                if *other == session {
                    continue;
                }
                let Some(txn) = self.sessions.get(other) else {
                    continue;
                };
                for o in &txn.touched {
                    if let Some(theirs) = o.exclusive_since
                        && theirs < mine
                        && o.exclusive_event == txn.last_event
                        && o.access.table == t.access.table
                        && same_rows(&o.access.key, &t.access.key)
                        && !self.moved.iter().any(|m| m.statement == theirs)
                    {
                        self.moved.push(Moved {
                            statement: theirs,
                            session,
                            after: seq,
                        });
                    }
                }
            }
        }
    }

    /// The statements moved since the last call (see `Moved`), for the gates.
    pub(super) fn take_moved(&mut self) -> Vec<Moved> {
        std::mem::take(&mut self.moved)
    }

    /// Notes a statement of `session` that is not replayed: the session was not silent.
    pub(super) fn wrote(&mut self, session: u64) {
        note(&mut self.events, &mut self.sessions, session);
    }

    /// Follows a statement that is not ordered but changes the session's transaction state.
    pub(super) fn control(&mut self, session: u64, control: &Control) {
        let txn = note(&mut self.events, &mut self.sessions, session);
        match control {
            Control::Begin => {
                txn.explicit = true;
                txn.touched.clear();
                self.holding.remove(&session);
            }
            Control::Autocommit(on) => txn.autocommit_off = !on,
            _ => {}
        }
    }

    /// A session ended: forget its transaction.
    pub(super) fn end_session(&mut self, session: u64) {
        self.sessions.remove(&session);
        self.holding.remove(&session);
    }
}

#[cfg(test)]
mod tests {
    use super::window::WINDOW;
    use super::*;
    use crate::replay::plan::{Mode, plan};
    use std::collections::VecDeque;

    /// Orders statements numbered 1, 2, … as the dispatcher does.
    fn numbered() -> impl FnMut(&mut Conflicts, u64, &str) -> Deps {
        let mut next = 0;
        move |c, session, sql| {
            next += 1;
            let p = plan(sql.as_bytes(), Mode::All);
            c.order(next, session, &p, sql.as_bytes(), true)
        }
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
    fn the_general_log_proves_a_lock_taken_after_an_end_the_slow_log_does_not() {
        // Session 1's UPDATE is written first, but session 2 updates the same row and commits while
        // session 1's transaction is open and silent: session 1's UPDATE took the row after.
        let lines = [
            (1, "UPDATE t SET a=1 WHERE id=1"), // 1
            (2, "UPDATE t SET a=2 WHERE id=1"), // 2
            (2, "UPDATE t SET a=3 WHERE id=2"), // 3
            (2, "COMMIT"),                      // 4
            (1, "UPDATE t SET a=4 WHERE id=2"), // 5
            (1, "COMMIT"),                      // 6
        ];
        let run = |written_at_start: bool, silent: bool| {
            let mut c = Conflicts::default();
            c.control(1, &Control::Begin);
            c.control(2, &Control::Begin);
            let mut out = Vec::new();
            for (i, (session, sql)) in lines.iter().enumerate() {
                if i == 3 && !silent {
                    // Session 1 wrote a read after its UPDATE: the UPDATE did not wait.
                    c.control(1, &Control::None);
                }
                let p = plan(sql.as_bytes(), Mode::All);
                let d = c.order(i as u64 + 1, *session, &p, sql.as_bytes(), written_at_start);
                out.push((d.on, c.take_moved()));
            }
            out
        };
        let general = run(true, true);
        assert_eq!(general[1].0, vec![1]); // dispatched before the end proves otherwise
        assert_eq!(general[3].0, Vec::<u64>::new()); // the end does not wait for statement 1
        assert_eq!(
            general[3].1,
            vec![Moved {
                statement: 1,
                session: 2,
                after: 4
            }]
        );
        assert_eq!(general[4].0, vec![3, 4]);
        assert!(
            general
                .iter()
                .enumerate()
                .all(|(i, (_, m))| i == 3 || m.is_empty())
        );
        // The slow log writes a COMMIT after its locks are released: its lines prove nothing.
        let slow = run(false, true);
        assert_eq!(slow[3].0, vec![1]);
        assert!(slow.iter().all(|(_, m)| m.is_empty()));
        // Nor do the general log's when session 1 went on after its UPDATE.
        let went_on = run(true, false);
        assert_eq!(went_on[3].0, vec![1]);
        assert!(went_on.iter().all(|(_, m)| m.is_empty()));
    }

    #[test]
    fn only_statements_that_meet_for_certain_are_moved() {
        let ends_first = |first: &str, second: &str| {
            let mut c = Conflicts::default();
            c.control(1, &Control::Begin);
            c.control(2, &Control::Begin);
            let mut order = |session: u64, seq: u64, sql: &str| {
                let p = plan(sql.as_bytes(), Mode::All);
                c.order(seq, session, &p, sql.as_bytes(), true)
            };
            order(1, 1, first);
            order(2, 2, second);
            let end = order(2, 3, "COMMIT");
            (end.on, c.take_moved().len())
        };
        // A one-row INSERT of id 1 meets a DELETE of id 1 wherever it lands.
        assert_eq!(
            ends_first(
                "DELETE FROM t WHERE id=1",
                "INSERT INTO t (id, k) VALUES (1, 4)"
            ),
            (vec![], 1)
        );
        // A row named by k may be id 1 or not: the end proves nothing.
        assert_eq!(
            ends_first("UPDATE t SET a=1 WHERE k=5", "UPDATE t SET a=2 WHERE id=1"),
            (vec![1], 0)
        );
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
            c.order(i, i, &p, sql.as_bytes(), true);
        }
        let w = &c.tables["t"];
        assert_eq!(w.order.len(), WINDOW);
        let p = plan(b"UPDATE t SET a=2 WHERE id=1", Mode::All);
        let d = c.order(10_000, 1, &p, b"UPDATE t SET a=2 WHERE id=1", true);
        // Ids 1..=1024 fell out of the window: the statement on id 1 waits for all of them.
        assert_eq!(d.all_before, WINDOW as u64 * 2 + 1);
        assert!(d.on.is_empty());
    }
}
