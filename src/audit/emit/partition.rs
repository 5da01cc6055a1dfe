//! `PARTITION BY RANGE (col)` and `PARTITION BY RANGE (YEAR(date_col))` with `VALUES LESS THAN`
//! bounds, as the target's declarative partitioning on the column: a partition per MySQL
//! partition, from the previous bound (MINVALUE first) to its own (MAXVALUE for MySQL's), so each
//! row lands, or is refused, as in MySQL. Other partitionings are left to the caller.

use super::literal::{ident_name, target_ident, word};
use crate::schema::Table;
use crate::sql::lexer::{Token, TokenKind};

/// The translated partitioning of a table.
pub struct Partitioning {
    /// `PARTITION BY RANGE (col)`, for the end of the CREATE TABLE.
    pub clause: String,
    /// `CREATE TABLE t_p PARTITION OF t FOR VALUES FROM (…) TO (…)`, one per partition.
    pub partitions: Vec<String>,
    /// The index in the table options' code tokens where the PARTITION clause starts (what
    /// precedes it are the ordinary table options).
    pub starts_at: usize,
    /// Functions of the partition expression (`YEAR`), which this translation answers.
    pub calls: Vec<String>,
}

/// The partitioning of `table` from its table options' code tokens `c`. None when there is none, or
/// one of a form this does not translate.
pub fn range_partitioning(src: &[u8], c: &[Token], table: &Table) -> Option<Partitioning> {
    let w = |i: usize| c.get(i).map(|t| word(t, src)).unwrap_or_default();
    let text = |i: usize| c.get(i).map(|t| t.text(src)).unwrap_or_default();
    let start = (0..c.len()).find(|&i| w(i) == "PARTITION" && w(i + 1) == "BY")?;
    if w(start + 2) != "RANGE" || text(start + 3) != b"(" {
        return None;
    }
    // (col) or (YEAR(col))
    let (col_at, year, mut i) = if text(start + 5) == b")" {
        (start + 4, false, start + 6)
    } else if w(start + 4) == "YEAR"
        && text(start + 5) == b"("
        && text(start + 7) == b")"
        && text(start + 8) == b")"
    {
        (start + 6, true, start + 9)
    } else {
        return None;
    };
    let col_tok = c.get(col_at)?;
    if !matches!(col_tok.kind, TokenKind::Word | TokenKind::QuotedIdent) {
        return None;
    }
    let col = table.column(&ident_name(col_tok, src))?;
    let base = col.mysql_type.base.as_str();
    let date_suffix = match (year, base) {
        (true, "DATE") => "-01-01",
        (true, "DATETIME") => "-01-01 00:00:00",
        (false, _) if col.mysql_type.is_integer() => "",
        _ => return None,
    };
    // The target requires the partition column in every unique key.
    let in_key = |k: &Vec<String>| k.iter().any(|x| x.eq_ignore_ascii_case(&col.name));
    if !in_key(&table.primary_key) || !table.unique_keys.iter().all(in_key) {
        return None;
    }
    let tname = target_ident(&table.name);
    let cname = target_ident(&col.name);
    if text(i) != b"(" {
        return None;
    }
    i += 1;
    let mut partitions = Vec::new();
    let mut from = "MINVALUE".to_string();
    loop {
        // PARTITION name VALUES LESS THAN (n) | MAXVALUE | (MAXVALUE)
        if w(i) != "PARTITION" || w(i + 2) != "VALUES" || w(i + 3) != "LESS" || w(i + 4) != "THAN" {
            return None;
        }
        let name = ident_name(c.get(i + 1)?, src);
        let (bound, next) = if w(i + 5) == "MAXVALUE" {
            ("MAXVALUE".to_string(), i + 6)
        } else if text(i + 5) == b"(" && w(i + 6) == "MAXVALUE" && text(i + 7) == b")" {
            ("MAXVALUE".to_string(), i + 8)
        } else if text(i + 5) == b"(" && text(i + 7) == b")" {
            let n = std::str::from_utf8(text(i + 6)).ok()?;
            if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let bound = if year {
                if n.len() != 4 {
                    return None;
                }
                format!("'{n}{date_suffix}'")
            } else {
                n.to_string()
            };
            (bound, i + 8)
        } else {
            return None;
        };
        if from == "MAXVALUE" {
            return None;
        }
        partitions.push(format!(
            "CREATE TABLE {} PARTITION OF {tname} FOR VALUES FROM ({from}) TO ({bound})",
            target_ident(&format!("{}_{name}", table.name))
        ));
        from = bound;
        match text(next) {
            b"," => i = next + 1,
            b")" => {
                i = next + 1;
                break;
            }
            _ => return None,
        }
    }
    if c.get(i).is_some_and(|t| t.text(src) != b";") || partitions.is_empty() {
        return None;
    }
    Some(Partitioning {
        clause: format!(" PARTITION BY RANGE ({cname})"),
        partitions,
        starts_at: start,
        calls: if year {
            vec!["YEAR".into()]
        } else {
            Vec::new()
        },
    })
}
