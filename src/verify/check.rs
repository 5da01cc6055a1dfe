//! Schema first: the target's columns and their types against the source's, under the type map the
//! audit and `cutover`'s DDL use, and sequences that lag behind the ids already loaded.

use super::data::{Side, first_text};
use crate::db::value::Value;
use crate::db::{DbError, Engine};
use crate::profile::Profile;
use crate::schema::{Column, MySqlType};
use std::collections::BTreeMap;

/// A target column as information_schema describes it.
#[derive(Clone, Debug, Default)]
pub struct TargetColumn {
    /// information_schema data_type, lower case (`integer`, `character varying`, `USER-DEFINED`…).
    pub data_type: String,
    pub char_len: Option<u64>,
    pub num_precision: Option<u64>,
    pub num_scale: Option<u64>,
    pub datetime_precision: Option<u64>,
    /// MySQL targets: the full COLUMN_TYPE.
    pub column_type: Option<String>,
}

impl TargetColumn {
    /// The type as literals need it (`bit(8)`, `boolean`, …).
    pub fn literal_type(&self) -> String {
        match (self.data_type.as_str(), self.char_len) {
            ("bit", Some(n)) => format!("bit({n})"),
            (t, _) => t.to_string(),
        }
    }

    /// True when this column is the type `ddl` (`numeric(20,0)`, `varchar(40)`, `int8`, …) as the
    /// target's information_schema describes it: the base type under PostgreSQL's names, and the
    /// length, precision and scale or fractional seconds where `ddl` gives them.
    pub fn is(&self, ddl: &str) -> bool {
        let ddl = ddl.trim().to_ascii_lowercase();
        let (base, args) = match ddl.split_once('(') {
            Some((b, a)) => (b.trim(), a.trim_end_matches(')').trim()),
            None => (ddl.as_str(), ""),
        };
        let canonical = match base {
            "int" | "int4" | "integer" => "integer",
            "int8" | "bigint" => "bigint",
            "int2" | "smallint" => "smallint",
            "bool" | "boolean" => "boolean",
            "varchar" | "character varying" => "character varying",
            "char" | "character" | "bpchar" => "character",
            "float8" | "double precision" => "double precision",
            "float4" | "real" => "real",
            "decimal" | "numeric" => "numeric",
            "timestamp" => "timestamp without time zone",
            "timestamptz" => "timestamp with time zone",
            "time" => "time without time zone",
            "string" => "text",
            "bytes" => "bytea",
            other => other,
        };
        if self.data_type != canonical {
            return false;
        }
        let nums: Vec<u64> = args
            .split(',')
            .filter_map(|x| x.trim().parse().ok())
            .collect();
        match canonical {
            "numeric" => {
                nums.is_empty()
                    || (self.num_precision, self.num_scale)
                        == (
                            nums.first().copied(),
                            Some(nums.get(1).copied().unwrap_or(0)),
                        )
            }
            "character varying" | "character" | "bit" => {
                nums.first().is_none_or(|n| self.char_len == Some(*n))
            }
            t if t.starts_with("time") => nums
                .first()
                .is_none_or(|n| self.datetime_precision == Some(*n)),
            _ => true,
        }
    }

    fn shown(&self) -> String {
        if let Some(ct) = &self.column_type {
            return ct.clone();
        }
        let t = &self.data_type;
        match (self.char_len, self.num_precision, self.num_scale) {
            (Some(n), _, _) => format!("{t}({n})"),
            (_, Some(p), Some(s)) if t == "numeric" => format!("{t}({p},{s})"),
            _ => t.clone(),
        }
    }
}

/// Table (lower case) → column (lower case) → its description, for the target's current schema.
pub async fn target_columns(
    t: &mut Side,
) -> Result<BTreeMap<String, BTreeMap<String, TargetColumn>>, DbError> {
    let q = t.engine.dialect().columns_query;
    let o = t.s.execute(q).await?;
    let mut out: BTreeMap<String, BTreeMap<String, TargetColumn>> = BTreeMap::new();
    // Table → the schema its columns come from: the first in resolution order (a table of the
    // same name further down the search_path is hidden, as it is from the application).
    let mut schema_of: BTreeMap<String, String> = BTreeMap::new();
    for r in o
        .sets
        .first()
        .map(|s| s.rows.as_slice())
        .unwrap_or_default()
    {
        let text = |i: usize| r.get(i).and_then(Value::as_text);
        let num = |i: usize| text(i).and_then(|t| t.parse::<u64>().ok());
        let (Some(tn), Some(cn), Some(dt)) = (text(0), text(1), text(2)) else {
            continue;
        };
        let schema = text(8).unwrap_or_default();
        if schema_of
            .entry(tn.to_lowercase())
            .or_insert_with(|| schema.clone())
            != &schema
        {
            continue;
        }
        out.entry(tn.to_lowercase()).or_default().insert(
            cn.to_lowercase(),
            TargetColumn {
                data_type: dt.to_lowercase(),
                char_len: num(3),
                num_precision: num(4),
                num_scale: num(5),
                datetime_precision: num(6),
                column_type: text(7).map(|t| t.to_lowercase()),
            },
        );
    }
    Ok(out)
}

/// The schemas (PostgreSQL, in search_path order, existing ones only) or the database (MySQL) the
/// target's unqualified names reach.
pub async fn searched_schemas(t: &mut Side) -> Result<Vec<String>, DbError> {
    let q = match t.engine {
        Engine::Postgres => "SELECT unnest(current_schemas(false))",
        Engine::MySql => "SELECT DATABASE()",
    };
    let o = t.s.execute(q).await?;
    Ok(o.sets
        .first()
        .map(|s| {
            s.rows
                .iter()
                .filter_map(|r| r.first().and_then(Value::as_text))
                .collect()
        })
        .unwrap_or_default())
}

/// Decimal digits an integer type needs.
fn int_digits(t: &MySqlType) -> u64 {
    match (t.base.as_str(), t.unsigned) {
        ("TINYINT", _) => 3,
        ("SMALLINT", _) => 5,
        ("MEDIUMINT", _) => 8,
        ("INT" | "INTEGER", _) => 10,
        ("BIGINT", false) => 19,
        ("BIGINT", true) => 20,
        _ => 10,
    }
}

/// Signed bits an integer type needs on the target.
fn int_bits(t: &MySqlType) -> u32 {
    let bits = match t.base.as_str() {
        "TINYINT" => 8,
        "SMALLINT" => 16,
        "MEDIUMINT" => 24,
        "BIGINT" => 64,
        "YEAR" => 16,
        _ => 32,
    };
    if t.unsigned { bits + 1 } else { bits }
}

/// Why the target column cannot hold every value of the source column, if it cannot. The type the
/// profile writes for the column is accepted as it is (the catalog decided it, with its notes: the
/// audit proposes it and `--live-setup` creates it, `tests/profile_agreement.rs`); any other type must
/// hold every value, and the message names the profile's type.
pub fn type_problem(
    src: &Column,
    tgt: &TargetColumn,
    target: Engine,
    profile: Option<&Profile>,
) -> Option<String> {
    let want = profile.map(|p| (p, crate::schema::target::column_type(p, src)));
    if let Some((_, ty)) = &want
        && target == Engine::Postgres
        && tgt.is(ty)
    {
        return None;
    }
    let problem = holds_every_value(src, tgt, target)?;
    Some(match want {
        Some((p, ty)) => format!("{problem} (the {} profile uses {ty})", p.id),
        None => problem,
    })
}

/// The width rules: can `tgt` hold every value of `src`?
fn holds_every_value(src: &Column, tgt: &TargetColumn, target: Engine) -> Option<String> {
    let t = &src.mysql_type;
    if target == Engine::MySql {
        let want = t.text.to_lowercase();
        return match &tgt.column_type {
            Some(ct) if ct.replace(' ', "") != want.replace(' ', "") => {
                Some(format!("source {} but target {ct}", t.text))
            }
            _ => None,
        };
    }
    let dt = tgt.data_type.as_str();
    let narrow = |why: &str| {
        Some(format!(
            "source {} but target {}: {why}",
            t.text,
            tgt.shown()
        ))
    };
    let base = t.base.as_str();
    match base {
        _ if t.is_integer() => {
            let room = match dt {
                "smallint" => 16,
                "integer" => 32,
                "bigint" => 64,
                "boolean" if t.is_tinyint1() => return None,
                "numeric" => {
                    return match (tgt.num_precision, tgt.num_scale) {
                        (Some(p), s) if p.saturating_sub(s.unwrap_or(0)) < int_digits(t) => {
                            narrow("too few digits for the largest values")
                        }
                        _ => None,
                    };
                }
                _ => return narrow("not an integer type"),
            };
            if int_bits(t) > room {
                narrow("the largest values would not fit")
            } else {
                None
            }
        }
        "DECIMAL" | "NUMERIC" => {
            if dt != "numeric" {
                return narrow("not an exact decimal type");
            }
            let (p, s) = (t.length.unwrap_or(10), t.scale.unwrap_or(0));
            match (tgt.num_precision, tgt.num_scale) {
                (None, _) => None,
                (Some(tp), ts) => {
                    let ts = ts.unwrap_or(0);
                    if ts < s {
                        narrow("decimals would be rounded")
                    } else if tp.saturating_sub(ts) < p.saturating_sub(s) {
                        narrow("the largest values would not fit")
                    } else {
                        None
                    }
                }
            }
        }
        "FLOAT" => (!matches!(dt, "real" | "double precision"))
            .then(|| format!("source {} but target {dt}", t.text)),
        "DOUBLE" | "REAL" => match dt {
            "double precision" => None,
            "real" => narrow("single precision keeps about 7 significant digits"),
            _ => narrow("not a floating-point type"),
        },
        "CHAR" | "VARCHAR" | "NCHAR" | "NVARCHAR" | "TINYTEXT" | "TEXT" | "MEDIUMTEXT"
        | "LONGTEXT" => {
            let need = match base {
                "TINYTEXT" => 255,
                "TEXT" => 65_535,
                "MEDIUMTEXT" => 16_777_215,
                "LONGTEXT" => 4_294_967_295,
                _ => t.length.unwrap_or(1),
            };
            match dt {
                // MariaDB's JSON is LONGTEXT with a json_valid check.
                "text" | "json" | "jsonb" => None,
                "character varying" | "character" => match tgt.char_len {
                    Some(n) if n < need => narrow("longer strings would not fit"),
                    _ if dt == "character" && base != "CHAR" => {
                        narrow("bpchar pads with spaces and ignores trailing ones")
                    }
                    _ => None,
                },
                _ => narrow("not a string type"),
            }
        }
        "ENUM" | "SET" => (!matches!(dt, "text" | "character varying" | "user-defined"))
            .then(|| format!("source {} but target {dt}", t.text)),
        "BINARY" | "VARBINARY" | "TINYBLOB" | "BLOB" | "MEDIUMBLOB" | "LONGBLOB" => {
            (dt != "bytea").then(|| format!("source {} but target {dt}: bytes need bytea", t.text))
        }
        "DATETIME" | "TIMESTAMP" => {
            if !dt.starts_with("timestamp") {
                return narrow("not a timestamp type");
            }
            let fsp = t.length.unwrap_or(0);
            match tgt.datetime_precision {
                Some(p) if p < fsp => narrow("fractional seconds would be rounded"),
                _ => None,
            }
        }
        "DATE" => (!matches!(dt, "date") && !dt.starts_with("timestamp"))
            .then(|| format!("source {} but target {dt}", t.text)),
        "TIME" => (!dt.starts_with("time") && dt != "interval")
            .then(|| format!("source {} but target {dt}", t.text)),
        "JSON" => (!matches!(dt, "json" | "jsonb" | "text"))
            .then(|| format!("source {} but target {dt}", t.text)),
        "BIT" => {
            let n = t.length.unwrap_or(1);
            match dt {
                "bit" | "bit varying" => match tgt.char_len {
                    Some(m) if m < n => narrow("too few bits"),
                    _ => None,
                },
                "bigint" => None,
                "integer" if n < 32 => None,
                "smallint" if n < 16 => None,
                _ => narrow("cannot hold every bit pattern"),
            }
        }
        _ => None,
    }
}

/// For an AUTO_INCREMENT column: does the target's sequence hand out an id the table already holds?
/// Returns a finding and the statement that repairs it.
pub async fn sequence_problem(
    tgt: &mut Side,
    table: &str,
    column: &str,
) -> Result<Option<(String, Option<String>)>, DbError> {
    if tgt.engine.dialect().counters_follow_inserts {
        // InnoDB moves AUTO_INCREMENT past the highest id by itself.
        return Ok(None);
    }
    let (t, c) = (
        super::encode::q_pg(table).replace('\'', "''"),
        column.to_lowercase().replace('\'', "''"),
    );
    let o = tgt
        .s
        .execute(&format!("SELECT pg_get_serial_sequence('{t}', '{c}')"))
        .await?;
    let Some(seq) = first_text(&o, 0) else {
        return Ok(Some((
            format!(
                "column {column} is AUTO_INCREMENT on the source but has no sequence or identity on the target: inserts that omit it will fail"
            ),
            None,
        )));
    };
    let q = format!(
        "SELECT s.last_value, s.is_called, (SELECT MAX({}) FROM {}) FROM {seq} s",
        super::encode::q_pg(column),
        super::encode::q_pg(table)
    );
    let o = tgt.s.execute(&q).await?;
    let num = |i: usize| first_text(&o, i).and_then(|t| t.parse::<i128>().ok());
    let (Some(last), called, Some(max)) = (
        num(0),
        first_text(&o, 1).is_some_and(|t| t == "true" || t == "t" || t == "1"),
        num(2),
    ) else {
        return Ok(None);
    };
    let next = if called { last + 1 } else { last };
    if next > max {
        return Ok(None);
    }
    Ok(Some((
        format!(
            "sequence {seq} hands out {next} next but {table}.{column} already holds {max}: the next insert would collide"
        ),
        Some(format!(
            "SELECT setval('{}', {max})",
            seq.replace('\'', "''")
        )),
    )))
}
