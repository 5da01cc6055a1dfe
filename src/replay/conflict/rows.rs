//! Which rows of which tables a statement touches, as keys that compare by hashes.

use crate::replay::plan::StatementPlan;
use crate::sql::keywords::eq_kw;
use crate::sql::lexer::{TokenKind, unquote};

/// Column = value pairs (column lower case, value as written without quotes), sorted by column.
pub(super) type RowKey = Vec<(String, Vec<u8>)>;

/// Rows of one table a statement touches: some rows named by equalities, or all of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Access {
    /// Shared with the conflict analysis' table windows (see `accesses`): a transaction's accesses
    /// are cloned into its touches and its end, and each clone of a `String` was an allocation on
    /// the dispatcher's thread.
    pub(super) table: std::sync::Arc<str>,
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
    pub(super) columns: Vec<(u64, u64, Vec<u8>)>,
    /// 128 bits of all the column names: equal hashes are taken as the same columns (a collision
    /// is 2^-128 likely), so the common check costs two integer compares.
    pub(super) columns_hash: u128,
    pub(super) values_hash: u64,
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

/// Whether two accesses of the same table may touch the same rows.
pub(super) fn overlaps(a: &Option<std::sync::Arc<Key>>, b: &Option<std::sync::Arc<Key>>) -> bool {
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

/// The rows a statement touches, from its tokens: None when it cannot say (a barrier). A table
/// already in `known` (the tables seen so far) shares its name with it.
pub(super) fn accesses<V>(
    plan: &StatementPlan,
    sql: &[u8],
    known: &rustc_hash::FxHashMap<std::sync::Arc<str>, V>,
) -> Option<Vec<Access>> {
    let mut tables: Vec<&str> = plan.tables_written.iter().map(String::as_str).collect();
    tables.extend(plan.tables_read.iter().map(String::as_str));
    tables.sort_unstable();
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
                table: known
                    .get_key_value(table)
                    .map_or_else(|| table.into(), |(t, _)| t.clone()),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn key(sql: &str) -> Option<Vec<(String, String)>> {
        row_key(sql.as_bytes()).map(|k| {
            k.into_iter()
                .map(|(c, v)| (c, String::from_utf8(v).unwrap()))
                .collect()
        })
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
}
