//! The canonical text of a row that MySQL/MariaDB and PostgreSQL-family servers compute identically,
//! so that per-row hashes, and per-chunk counts and sums of them, can be compared without moving rows.
//!
//! Each column becomes `v<text>` or `N` for NULL (so NULL and '' differ), columns are joined with the
//! unit separator (0x1F), and the row hash is the first 60 bits of its SHA-256 (of the UTF-8 bytes) as
//! an integer. A chunk is (COUNT(*), SUM(hash)): a sum, unlike XOR, does not let duplicate rows cancel
//! out. Floats and JSON print differently on the two engines; when their chunk differs, rows are
//! fetched and compared in canonical values with a tolerance, so those differences never become false
//! alarms.
//!
//! Integer-key ranges whose key is the primary key use an ordered chunk digest instead: the SHA-256 of
//! the chunk's row texts joined in key order (0x1E between rows). Both engines order integers alike,
//! so the digests agree, and one hash per chunk spares PostgreSQL a sha256 call per row, about half
//! its work (MariaDB's GROUP_CONCAT costs what its per-row SHA2 does). A chunk whose rows came back
//! in another order, or cut short by GROUP_CONCAT's limit, only looks different: it is split and
//! compared row by row, so neither ever decides a result.
//!
//! PostgreSQL hashes a row as bytes: text columns go through `textsend(concat_ws(…))` (UTF-8: the
//! client encoding of cutover's sessions) and
//! bpchar columns (`character(n)`, which PostgreSQL prints blank-padded while MySQL returns CHAR
//! without trailing blanks) as `rtrim(bpcharsend(c), ' ')` on bytes. Casting bpchar to text trims by
//! characters, and that cast alone was a third of PostgreSQL's work on a sysbench table.
//!
//! Why SHA-256 and not MD5: both engines have it built in (MySQL `SHA2(…, 256)` since 5.5, PostgreSQL
//! `sha256()` since 11, KaiwuDB and KingbaseES too), and MariaDB's MD5 costs about twice its SHA2 per
//! row (measured on 1M sysbench rows: the per-row hash is where verify spends its time).

use crate::db::Engine;
use crate::schema::MySqlType;

/// How a target column is stored, where that changes its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    Plain,
    /// PostgreSQL boolean for a MySQL TINYINT(1).
    Bool,
    /// A PostgreSQL text array for a MySQL SET (what pgloader makes of it): compared as the SET's
    /// comma-joined members, in order, which is what pgloader keeps.
    SetArray,
}

/// A PostgreSQL name as cutover's DDL writes it (lower case, quoted when needed).
pub fn q_pg(name: &str) -> String {
    Engine::Postgres.dialect().quote(name)
}

/// The quoted column name on an engine.
pub fn quote(engine: Engine, name: &str) -> String {
    engine.dialect().quote(name)
}

/// The text of one column, by its MySQL type, on `engine`.
pub fn column_text(
    engine: Engine,
    name: &str,
    t: &MySqlType,
    target: TargetKind,
    collation: Option<&str>,
) -> String {
    let c = quote(engine, name);
    let base = t.base.as_str();
    match engine {
        Engine::MySql => match base {
            // Text in another character set is hashed as UTF-8, as PostgreSQL stores it.
            _ if t.is_text() && needs_utf8(collation) => format!("CONVERT({c} USING utf8mb4)"),
            // A string is its own text: CAST(… AS CHAR) of a CHAR column costs MariaDB about
            // as much as the hash.
            _ if t.is_text() && !matches!(base, "ENUM" | "SET") => c,
            "DECIMAL" | "NUMERIC" => format!(
                "IF(LOCATE('.', CAST({c} AS CHAR)) > 0, TRIM(TRAILING '.' FROM TRIM(TRAILING '0' FROM CAST({c} AS CHAR))), CAST({c} AS CHAR))"
            ),
            "DATETIME" | "TIMESTAMP" => format!("DATE_FORMAT({c}, '%Y-%m-%d %H:%i:%s.%f')"),
            "DATE" => format!("DATE_FORMAT({c}, '%Y-%m-%d')"),
            "BINARY" | "VARBINARY" | "TINYBLOB" | "BLOB" | "MEDIUMBLOB" | "LONGBLOB" => {
                format!("HEX({c})")
            }
            "BIT" => format!("CAST({c} + 0 AS CHAR)"),
            _ => format!("CAST({c} AS CHAR)"),
        },
        Engine::Postgres => match base {
            _ if target == TargetKind::Bool => format!("({c})::int::text"),
            _ if target == TargetKind::SetArray => format!("array_to_string({c}, ',')"),
            "DECIMAL" | "NUMERIC" => format!("trim_scale({c})::text"),
            "DATETIME" | "TIMESTAMP" => format!("to_char({c}, 'YYYY-MM-DD HH24:MI:SS.US')"),
            "DATE" => format!("to_char({c}, 'YYYY-MM-DD')"),
            "BINARY" | "VARBINARY" | "TINYBLOB" | "BLOB" | "MEDIUMBLOB" | "LONGBLOB" => {
                format!("upper(encode({c}, 'hex'))")
            }
            "BIT" => format!("({c})::bigint::text"),
            _ => format!("({c})::text"),
        },
    }
}

fn needs_utf8(collation: Option<&str>) -> bool {
    collation.is_some_and(|c| {
        let c = c.to_ascii_lowercase();
        !(c.starts_with("utf8") || c.starts_with("ascii") || c == "binary")
    })
}

/// A column to encode.
#[derive(Clone, Debug)]
pub struct EncodedColumn {
    pub name: String,
    pub mysql_type: MySqlType,
    /// How the target stores it.
    pub target: TargetKind,
    /// Whether the source allows NULL.
    pub nullable: bool,
    /// The source collation (text in a non-UTF-8 character set is converted before hashing).
    pub collation: Option<String>,
    /// The column's type on the target as information_schema names it (`bit(8)`, `boolean`, …).
    pub target_type: String,
}

impl EncodedColumn {
    /// The type a literal for this column is written for on `engine` (the source is MySQL, whose
    /// literals need no type; a MySQL target is named by its own type).
    pub fn type_on(&self, engine: Engine) -> &str {
        match engine {
            Engine::Postgres => &self.target_type,
            Engine::MySql => "",
        }
    }
}

/// One column's part of the row text, with the NULL marker where the source allows NULL.
fn column_part(engine: Engine, col: &EncodedColumn) -> String {
    let (t, k) = (&col.mysql_type, col.target);
    let plain_int = t.is_integer() && t.base != "YEAR" && k == TargetKind::Plain;
    let v = if plain_int && !col.nullable {
        quote(engine, &col.name)
    } else {
        column_text(engine, &col.name, t, k, col.collation.as_deref())
    };
    if col.nullable {
        engine.dialect().null_marked(&v)
    } else {
        v
    }
}

/// The row's canonical text. Columns the source declares NOT NULL skip the NULL marker (a NULL on the
/// target then drops out of the text, which still makes the hashes differ), and integer columns go
/// in as they are (both engines print them alike): fewer function calls per row on both servers.
pub fn row_text(engine: Engine, cols: &[EncodedColumn]) -> String {
    engine
        .dialect()
        .concat_with_unit_separator(&row_parts(engine, cols))
}

/// Each column's part of the row text (see `row_text`).
pub fn row_parts(engine: Engine, cols: &[EncodedColumn]) -> Vec<String> {
    cols.iter().map(|c| column_part(engine, c)).collect()
}

/// The bytes of the row's canonical text, which is what gets hashed: MySQL's text as it is, and on
/// PostgreSQL a bytea, in which bpchar columns are trimmed as bytes (a NULL in a column the source
/// declares NOT NULL makes the whole row NULL there, which differs from any hash the source has).
///
/// `byte_functions`: the server has PostgreSQL's `textsend`, `bpcharsend` and `rtrim(bytea, bytea)`
/// (PostgreSQL and KingbaseES; not KaiwuDB, which gets `convert_to` of the text, bpchar cast to text).
pub fn row_bytes(engine: Engine, cols: &[EncodedColumn], byte_functions: bool) -> String {
    if engine == Engine::MySql {
        return row_text(engine, cols);
    }
    if !byte_functions {
        return format!("convert_to({}, 'UTF8')", row_text(engine, cols));
    }
    let mut segments: Vec<String> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    let flush = |texts: &mut Vec<String>, segments: &mut Vec<String>| {
        if !texts.is_empty() {
            // textsend: the text in the client encoding, which is UTF-8 in cutover's sessions
            // (convert_to looks the encoding up by name on every row).
            segments.push(format!(
                "textsend(concat_ws(chr(31), {}))",
                texts.join(", ")
            ));
            texts.clear();
        }
    };
    for col in cols {
        if col.target_type == "character" {
            flush(&mut texts, &mut segments);
            // A space is one byte in UTF-8 and never part of another character.
            let v = format!(
                "rtrim(bpcharsend({}), '\\x20'::bytea)",
                quote(engine, &col.name)
            );
            segments.push(if col.nullable {
                format!("COALESCE('\\x76'::bytea || {v}, '\\x4e'::bytea)")
            } else {
                v
            });
        } else {
            texts.push(column_part(engine, col));
        }
    }
    flush(&mut texts, &mut segments);
    segments.join(" || '\\x1f'::bytea || ")
}

/// The first `hex_digits` hex digits of the SHA-256 of `bytes` (see `row_bytes`), as an integer.
fn sha_prefix(engine: Engine, bytes: &str, hex_digits: u32) -> String {
    engine.dialect().sha256_prefix(bytes, hex_digits)
}

/// The row hash (an integer below 2^60) of a row's bytes.
pub fn row_hash(engine: Engine, row_bytes: &str) -> String {
    sha_prefix(engine, row_bytes, 15)
}

/// The bucket (0..buckets) of a row, from the hash of its key text (or of the whole row when the table
/// has no key): both engines put a row in the same bucket whatever their collations, so buckets can
/// be compared where key order cannot.
pub fn bucket(engine: Engine, key_bytes: &str, buckets: u64) -> String {
    format!("({} % {buckets})", sha_prefix(engine, key_bytes, 8))
}

/// A value as a SQL literal for `engine`, for a column of `target_type` (the information_schema data
/// type on that side): what `--fix-sql` writes and what row look-ups by key use.
pub fn literal(engine: Engine, target_type: &str, v: &crate::db::value::Value) -> String {
    use crate::db::value::Value;
    let pg = engine == Engine::Postgres;
    let quoted = |s: &str| engine.dialect().string_literal(s);
    let hex = |b: &[u8]| b.iter().map(|c| format!("{c:02x}")).collect::<String>();
    match v {
        Value::Null => "NULL".into(),
        Value::Int(i) if pg && target_type == "boolean" => (*i != 0).to_string(),
        Value::Int(i) => i.to_string(),
        Value::Bool(b) if pg => b.to_string(),
        Value::Bool(b) => u8::from(*b).to_string(),
        Value::Decimal { .. } => v.display(),
        Value::Float { value, .. } if value.is_finite() => {
            // Rust prints the shortest text that reads back to the same f64.
            let t = format!("{value:e}");
            if pg { format!("'{t}'::float8") } else { t }
        }
        Value::Float { value, .. } => quoted(&value.to_string()),
        // A SET's members as an array literal, left untyped so that it takes the column's array
        // type (pgloader makes an enum array of it); an empty SET is an empty array.
        Value::Text(t) if pg && target_type == "array" => {
            let text = String::from_utf8_lossy(t);
            let members: Vec<String> = text
                .split(',')
                .filter(|m| !m.is_empty())
                .map(|m| format!("\"{}\"", m.replace('\\', "\\\\").replace('"', "\\\"")))
                .collect();
            quoted(&format!("{{{}}}", members.join(",")))
        }
        Value::Text(t) => quoted(&String::from_utf8_lossy(t)),
        Value::Json(j) => quoted(j),
        // decode() reads the same whatever standard_conforming_strings says.
        Value::Bytes(b) if pg => format!("decode('{}', 'hex')", hex(b)),
        Value::Bytes(b) => format!("X'{}'", hex(b)),
        Value::Date(_) | Value::Time(_) => quoted(&v.display()),
        Value::Timestamp(us) => {
            let iso = crate::workload::time::format_iso_micros(*us);
            // 2026-01-01T00:00:00.000001Z → 2026-01-01 00:00:00.000001 (UTC, as sessions are pinned).
            let plain = iso.trim_end_matches('Z').replacen('T', " ", 1);
            if pg {
                quoted(&format!("{plain}+00"))
            } else {
                quoted(&plain)
            }
        }
        Value::Bits(b) if pg && target_type.starts_with("bit") => {
            // An integer cast to bit(n) keeps its n lowest bits: the width must be the column's.
            let width = target_type
                .split_once('(')
                .and_then(|(_, w)| w.trim_end_matches(')').parse::<u32>().ok())
                .unwrap_or(64);
            format!("{b}::bigint::bit({width})")
        }
        Value::Bits(b) => b.to_string(),
    }
}
