//! What verify asks each server for one table: the key shape chosen for it and the SQL of every
//! question (chunk digests, bucket digests, key hashes, rows by key), per engine.

use super::encode::{
    EncodedColumn, bucket, literal, quote, row_bytes, row_hash, row_parts, row_text,
};
use crate::db::Engine;
use crate::db::value::Value;

/// How a table's rows are matched between the two sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyShape {
    /// One integer key column: chunks are key ranges, which both engines order alike.
    IntRange,
    /// A string, temporal or composite unique key: rows are bucketed by the hash of the key's
    /// canonical text, because MySQL and PostgreSQL collations order strings differently.
    Hashed,
    /// No unique key: the table is a multiset of row hashes, bucketed by the row hash.
    Multiset,
}

/// One table's plan.
#[derive(Clone, Debug)]
pub struct Plan {
    pub table: String,
    pub shape: KeyShape,
    /// The key columns (empty for a multiset), in key order.
    pub key: Vec<EncodedColumn>,
    /// Every compared column; the key columns are among them.
    pub cols: Vec<EncodedColumn>,
    pub where_clause: Option<String>,
    /// Integer ranges over the primary key: chunks are digested in key order (one hash per chunk,
    /// see `encode`); otherwise by the sum of row hashes.
    pub ordered: bool,
    /// A PostgreSQL-family target has PostgreSQL's byte functions (see `encode::row_bytes`).
    pub byte_functions: bool,
}

impl Plan {
    pub fn name(&self, e: Engine) -> String {
        quote(e, &self.table)
    }

    /// The key, described for the report.
    pub fn describe_key(&self) -> String {
        let names: Vec<&str> = self.key.iter().map(|c| c.name.as_str()).collect();
        match self.shape {
            KeyShape::IntRange => format!("{} (integer ranges)", names.join(", ")),
            KeyShape::Hashed => format!("({}) (hash buckets)", names.join(", ")),
            KeyShape::Multiset => "none (multiset of row hashes)".into(),
        }
    }

    fn with_where(&self, cond: Option<String>) -> String {
        match (cond, &self.where_clause) {
            (Some(c), Some(w)) => format!(" WHERE {c} AND ({w})"),
            (Some(c), None) => format!(" WHERE {c}"),
            (None, Some(w)) => format!(" WHERE {w}"),
            (None, None) => String::new(),
        }
    }

    fn int_key(&self, e: Engine) -> String {
        quote(e, self.key.first().map(|c| c.name.as_str()).unwrap_or(""))
    }

    fn range(&self, e: Engine, lo: i128, hi: i128) -> String {
        self.with_where(Some(format!("{} BETWEEN {lo} AND {hi}", self.int_key(e))))
    }

    pub fn row_hash(&self, e: Engine) -> String {
        row_hash(e, &row_bytes(e, &self.cols, self.byte_functions))
    }

    /// The bytes a row is bucketed by: its key's canonical text, or the whole row without a key.
    fn bucket_source(&self, e: Engine) -> String {
        match self.shape {
            KeyShape::Multiset => row_bytes(e, &self.cols, self.byte_functions),
            _ => row_bytes(e, &self.key, self.byte_functions),
        }
    }

    fn bucket_in(&self, e: Engine, buckets: u64, which: &[u64]) -> String {
        let list: Vec<String> = which.iter().map(u64::to_string).collect();
        format!(
            "{} IN ({})",
            bucket(e, &self.bucket_source(e), buckets),
            list.join(", ")
        )
    }

    /// Lowest and highest integer key.
    pub fn bounds(&self, e: Engine) -> String {
        let k = self.int_key(e);
        format!(
            "SELECT MIN({k}), MAX({k}) FROM {}{}",
            self.name(e),
            self.with_where(None)
        )
    }

    /// The server's estimate of the rows and of their average size in bytes (statistics, not a
    /// count: counting is what the digests do).
    pub fn estimate(&self, e: Engine) -> String {
        e.dialect().table_estimate(&self.table, &self.name(e))
    }

    /// COUNT and a digest of a key range: the SHA-256 (hex) of its row texts in key order when the
    /// plan is ordered, else the SUM of row hashes.
    pub fn range_digest(&self, e: Engine, lo: i128, hi: i128) -> String {
        if !self.ordered {
            return format!(
                "SELECT COUNT(*), SUM({}) FROM {}{}",
                self.row_hash(e),
                self.name(e),
                self.range(e, lo, hi)
            );
        }
        match e {
            // InnoDB reads a primary-key range in key order, which GROUP_CONCAT keeps; its own
            // ORDER BY would sort every chunk again. GROUP_CONCAT takes the columns and separators
            // as arguments, the bytes CONCAT_WS would make without building them first (15% of
            // MariaDB's work); it skips a row with a NULL argument, and only a column the source
            // declares NOT NULL is passed bare, so that happens only where the rows differ anyway.
            Engine::MySql => format!(
                "SELECT COUNT(*), SHA2(GROUP_CONCAT({} SEPARATOR '\u{1e}'), 256) FROM {} FORCE INDEX (PRIMARY){}",
                row_parts(e, &self.cols).join(", '\u{1f}', "),
                self.name(e),
                self.range(e, lo, hi)
            ),
            // The aggregate reads the ordered subquery as it comes: no sort beyond the index's.
            Engine::Postgres => format!(
                "SELECT COUNT(*), encode(sha256(string_agg(cutover_row, '\\x1e'::bytea)), 'hex') FROM (SELECT {} AS cutover_row FROM {}{} ORDER BY {}) cutover_chunk",
                row_bytes(e, &self.cols, self.byte_functions),
                self.name(e),
                self.range(e, lo, hi),
                self.int_key(e)
            ),
        }
    }

    /// (key, row hash) over a key range, in key order.
    pub fn range_hashes(&self, e: Engine, lo: i128, hi: i128) -> String {
        let k = self.int_key(e);
        format!(
            "SELECT {k}, {} FROM {}{} ORDER BY {k}",
            self.row_hash(e),
            self.name(e),
            self.range(e, lo, hi)
        )
    }

    /// (bucket, COUNT, SUM of row hashes) for every bucket, in one pass over the table.
    pub fn bucket_digests(&self, e: Engine, buckets: u64) -> String {
        format!(
            "SELECT {} AS cutover_bucket, COUNT(*), SUM({}) FROM {}{} GROUP BY 1",
            bucket(e, &self.bucket_source(e), buckets),
            self.row_hash(e),
            self.name(e),
            self.with_where(None)
        )
    }

    /// For keyed tables: (key text, row hash, key columns…) of the rows in some buckets.
    /// For multisets: (row hash, COUNT) of the rows in some buckets.
    pub fn bucket_rows(&self, e: Engine, buckets: u64, which: &[u64]) -> String {
        let cond = Some(self.bucket_in(e, buckets, which));
        match self.shape {
            KeyShape::Multiset => format!(
                "SELECT {h}, COUNT(*) FROM {}{} GROUP BY {h}",
                self.name(e),
                self.with_where(cond),
                h = self.row_hash(e)
            ),
            _ => {
                let keys: Vec<String> = self.key.iter().map(|c| quote(e, &c.name)).collect();
                format!(
                    "SELECT {}, {}, {} FROM {}{}",
                    row_text(e, &self.key),
                    self.row_hash(e),
                    keys.join(", "),
                    self.name(e),
                    self.with_where(cond)
                )
            }
        }
    }

    pub fn column_list(&self, e: Engine) -> String {
        let cols: Vec<String> = self.cols.iter().map(|c| quote(e, &c.name)).collect();
        cols.join(", ")
    }

    /// The compared columns as fetched for row-by-row comparison: as they are, but a text array
    /// holding a SET comes back as the SET's text.
    pub fn select_list(&self, e: Engine) -> String {
        let cols: Vec<String> = self
            .cols
            .iter()
            .map(|c| match (e, c.target) {
                (Engine::Postgres, super::encode::TargetKind::SetArray) => {
                    let q = quote(e, &c.name);
                    format!("array_to_string({q}, ',') AS {q}")
                }
                _ => quote(e, &c.name),
            })
            .collect();
        cols.join(", ")
    }

    /// The positions of the key columns among `cols`.
    pub fn key_positions(&self) -> Vec<usize> {
        self.key
            .iter()
            .filter_map(|k| self.cols.iter().position(|c| c.name == k.name))
            .collect()
    }

    /// `k1 = v1 AND k2 = v2` for one key.
    pub fn key_condition(&self, e: Engine, key: &[Value]) -> String {
        Self::condition(e, &self.key, key)
    }

    /// `c1 = v1 AND c2 IS NULL …` over some columns.
    pub fn condition(e: Engine, cols: &[EncodedColumn], values: &[Value]) -> String {
        let parts: Vec<String> = cols
            .iter()
            .zip(values)
            .map(|(c, v)| match v {
                Value::Null => format!("{} IS NULL", quote(e, &c.name)),
                v => format!("{} = {}", quote(e, &c.name), literal(e, c.type_on(e), v)),
            })
            .collect();
        parts.join(" AND ")
    }

    /// Every compared column of the rows with these keys (in no particular order).
    pub fn rows_by_keys(&self, e: Engine, keys: &[Vec<Value>]) -> String {
        let conds: Vec<String> = keys
            .iter()
            .map(|k| format!("({})", self.key_condition(e, k)))
            .collect();
        format!(
            "SELECT {} FROM {} WHERE {}",
            self.select_list(e),
            self.name(e),
            conds.join(" OR ")
        )
    }

    /// (row hash, every compared column) of the rows with these hashes (multisets).
    pub fn rows_by_hashes(&self, e: Engine, hashes: &[i64]) -> String {
        let list: Vec<String> = hashes.iter().map(i64::to_string).collect();
        let h = self.row_hash(e);
        format!(
            "SELECT {h}, {} FROM {}{}",
            self.select_list(e),
            self.name(e),
            self.with_where(Some(format!("{h} IN ({})", list.join(", "))))
        )
    }

    /// (row hash, COUNT) for some hashes, as the server holds them now (multiset re-checks).
    pub fn count_hashes(&self, e: Engine, hashes: &[i64]) -> String {
        let list: Vec<String> = hashes.iter().map(i64::to_string).collect();
        let h = self.row_hash(e);
        format!(
            "SELECT {h}, COUNT(*) FROM {}{} GROUP BY {h}",
            self.name(e),
            self.with_where(Some(format!("{h} IN ({})", list.join(", "))))
        )
    }
}
