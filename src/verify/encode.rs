//! The canonical text of a row that MySQL/MariaDB and PostgreSQL-family servers compute identically,
//! so that per-row hashes, and per-chunk counts and sums of them, can be compared without moving rows.
//!
//! Each column becomes `v<text>` or `N` for NULL (so NULL and '' differ), columns are joined with the
//! unit separator (0x1F), and the row hash is the first 60 bits of its MD5 as an integer. A chunk is
//! (COUNT(*), SUM(hash)): a sum, unlike XOR, does not let duplicate rows cancel out. Floats and JSON
//! print differently on the two engines; when their chunk differs, rows are fetched and compared in
//! canonical values with a tolerance, so those differences never become false alarms.

use crate::db::Engine;
use crate::schema::MySqlType;

/// How a target column is stored, where that changes its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    Plain,
    /// PostgreSQL boolean for a MySQL TINYINT(1).
    Bool,
}

fn q_my(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// A PostgreSQL name as cutover's DDL writes it (lower case, quoted when needed).
pub fn q_pg(name: &str) -> String {
    crate::schema::target::pg_ident(&name.to_lowercase())
}

/// The quoted column name on an engine.
pub fn quote(engine: Engine, name: &str) -> String {
    match engine {
        Engine::MySql => q_my(name),
        Engine::Postgres => q_pg(name),
    }
}

/// The text of one column, by its MySQL type, on `engine`.
pub fn column_text(engine: Engine, name: &str, t: &MySqlType, target: TargetKind) -> String {
    let c = quote(engine, name);
    let base = t.base.as_str();
    match engine {
        Engine::MySql => match base {
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

/// A column to encode: name, MySQL type, how the target stores it, and whether the source allows NULL.
pub type EncodedColumn = (String, MySqlType, TargetKind, bool);

/// The row's canonical text. Columns the source declares NOT NULL skip the NULL marker (a NULL on the
/// target then drops out of the text, which still makes the hashes differ), and integer columns go
/// in as they are (both engines print them alike): fewer function calls per row on both servers.
pub fn row_text(engine: Engine, cols: &[EncodedColumn]) -> String {
    let parts: Vec<String> = cols
        .iter()
        .map(|(n, t, k, nullable)| {
            let plain_int = t.is_integer() && t.base != "YEAR" && *k == TargetKind::Plain;
            let v = if plain_int && !*nullable {
                quote(engine, n)
            } else {
                column_text(engine, n, t, *k)
            };
            match (engine, nullable) {
                (_, false) => v,
                (Engine::MySql, true) => format!("IFNULL(CONCAT('v', {v}), 'N')"),
                (Engine::Postgres, true) => format!("COALESCE('v' || {v}, 'N')"),
            }
        })
        .collect();
    match engine {
        Engine::MySql => format!("CONCAT_WS(CHAR(31), {})", parts.join(", ")),
        Engine::Postgres => format!("concat_ws(chr(31), {})", parts.join(", ")),
    }
}

/// The row hash (an integer below 2^60).
pub fn row_hash(engine: Engine, row_text: &str) -> String {
    match engine {
        Engine::MySql => {
            format!("CAST(CONV(SUBSTRING(MD5({row_text}), 1, 15), 16, 10) AS UNSIGNED)")
        }
        Engine::Postgres => format!("('x' || substr(md5({row_text}), 1, 15))::bit(60)::bigint"),
    }
}
