//! Each table's window of recent ordered statements, filed by the rows they name.

use super::rows::Key;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// Statements remembered per table before the oldest are folded into a watermark.
pub(super) const WINDOW: usize = 512;

/// One remembered ordered statement on a table.
#[derive(Clone)]
pub(super) struct Entry {
    pub(super) seq: u64,
    pub(super) session: u64,
    pub(super) key: Option<std::sync::Arc<Key>>,
}

/// The remembered statements of one table that name rows by the same columns.
#[derive(Default)]
pub(super) struct ColumnSet {
    /// The columns' name hashes.
    columns: Vec<u64>,
    /// By the hash of all their values, in statement order.
    pub(super) by_values: FxHashMap<u64, VecDeque<Entry>>,
    /// By one column's (name hash, value hash): each statement is filed under each of its columns,
    /// in statement order, so that a statement naming rows by other columns finds the ones that
    /// agree with it on a column they share without looking at the rest.
    pub(super) by_column: FxHashMap<(u64, u64), VecDeque<Entry>>,
    len: usize,
}

/// The last WINDOW ordered statements on one table, filed so that a statement naming rows is
/// compared only with those that may touch them: statements on the whole table, and statements
/// naming rows that agree with it on a column both name (or share no column with it). Scanning
/// all of them was 5% of a sysbench replay's CPU on 2026-12-06 (most of them `id = n` on other
/// rows), and filing by the whole key alone still scanned every one-row INSERT for each
/// `id = n` statement and the reverse (4% on the same replay, hot rows making it worse).
#[derive(Default)]
pub(super) struct TableWindow {
    /// The window in statement order, for eviction.
    pub(super) order: VecDeque<(u64, Option<std::sync::Arc<Key>>)>,
    /// Statements naming rows, by their columns' hash.
    pub(super) keyed: FxHashMap<u128, ColumnSet>,
    /// Statements on the whole table.
    whole: VecDeque<Entry>,
    /// The highest statement folded out of the window (0: none).
    pub(super) evicted: u64,
}

impl TableWindow {
    /// Calls `f` with the remembered statements that may touch the rows `key` names (all of them
    /// for None); `overlaps` decides among them.
    pub(super) fn for_each_candidate(
        &self,
        key: &Option<std::sync::Arc<Key>>,
        mut f: impl FnMut(&Entry),
    ) {
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

    pub(super) fn push(&mut self, e: Entry) {
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

#[cfg(test)]
mod tests {
    use super::super::rows::{RowKey, overlaps};
    use super::*;
    use std::sync::Arc;

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
}
