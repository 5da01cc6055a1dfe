//! KaiwuDB time-series tables: for each MySQL table the user maps to a TS table (`--ts-table`), the
//! statements it gets are checked against what TS tables allow, and a `CREATE TABLE … TAGS … PRIMARY
//! TAGS` is proposed from its MySQL definition.
//!
//! TS tables differ from relational ones in ways that lose data silently: rows with the same
//! timestamp (per device) overwrite each other, UPDATE only changes tag values, DELETE only takes
//! time ranges and primary-tag equality, and one invalid timestamp rejects a whole multi-row INSERT.

use super::lexical::toks;
use super::{Context, Finding, Hit, StatementOrigin, judge};
use crate::profile::Profile;
use crate::schema::{MySqlType, Schema, Table};
use crate::sql::lexer::TokenKind;

use crate::sql::lexer::unquote_str as unquote;

/// The time column of a TS table: the first DATETIME/TIMESTAMP column (NOT NULL ones first).
pub fn time_column(t: &Table) -> Option<&str> {
    let temporal =
        |c: &&crate::schema::Column| matches!(c.mysql_type.base.as_str(), "DATETIME" | "TIMESTAMP");
    t.columns
        .iter()
        .filter(temporal)
        .find(|c| !c.nullable)
        .or_else(|| t.columns.iter().find(temporal))
        .map(|c| c.name.as_str())
}

/// Columns that identify the device (primary tags): the primary key without the time column and
/// auto-increment ids, else the first NOT NULL integer or string column named like an id.
pub fn primary_tags(t: &Table) -> Vec<String> {
    let time = time_column(t).unwrap_or("");
    let from_pk: Vec<String> = t
        .primary_key
        .iter()
        .filter(|k| !k.eq_ignore_ascii_case(time))
        .filter(|k| t.column(k).is_some_and(|c| !c.auto_increment))
        .cloned()
        .collect();
    if !from_pk.is_empty() {
        return from_pk.into_iter().take(4).collect();
    }
    t.columns
        .iter()
        .filter(|c| !c.auto_increment && !c.name.eq_ignore_ascii_case(time))
        .filter(|c| {
            c.mysql_type.is_integer() || matches!(c.mysql_type.base.as_str(), "CHAR" | "VARCHAR")
        })
        .find(|c| {
            let n = c.name.to_ascii_lowercase();
            n.ends_with("_id")
                || ["device", "sensor", "host", "meter", "tag", "node"]
                    .iter()
                    .any(|w| n.contains(w))
        })
        .map(|c| vec![c.name.clone()])
        .unwrap_or_default()
}

/// The KaiwuDB TS type for a MySQL column type, and what is lost (TS tables have no DECIMAL, DATE or JSON).
pub fn ts_type(t: &MySqlType) -> (String, Option<&'static str>) {
    match t.base.as_str() {
        "TINYINT" if t.is_tinyint1() => ("BOOL".into(), None),
        "TINYINT" | "SMALLINT" => ("INT2".into(), None),
        "MEDIUMINT" | "INT" if !t.unsigned => ("INT4".into(), None),
        "MEDIUMINT" | "INT" => ("INT8".into(), None),
        "BIGINT" => (
            "INT8".into(),
            if t.unsigned {
                Some("BIGINT UNSIGNED above 2^63 does not fit INT8")
            } else {
                None
            },
        ),
        "BOOLEAN" => ("BOOL".into(), None),
        "FLOAT" => ("FLOAT4".into(), None),
        "DOUBLE" | "REAL" => ("FLOAT8".into(), None),
        "DECIMAL" | "NUMERIC" => (
            "FLOAT8".into(),
            Some("DECIMAL becomes FLOAT8: exact decimal values (money) are rounded"),
        ),
        "DATE" => (
            "TIMESTAMP".into(),
            Some("DATE becomes TIMESTAMP (midnight)"),
        ),
        "DATETIME" | "TIMESTAMP" => ("TIMESTAMPTZ".into(), None),
        "CHAR" => (format!("CHAR({})", t.length.unwrap_or(1)), None),
        "VARCHAR" => (format!("VARCHAR({})", t.length.unwrap_or(255)), None),
        "JSON" => (
            "VARCHAR(4096)".into(),
            Some("JSON becomes VARCHAR: no JSON operators"),
        ),
        "TINYTEXT" | "TEXT" | "MEDIUMTEXT" | "LONGTEXT" | "ENUM" | "SET" => (
            "VARCHAR(4096)".into(),
            Some("text becomes VARCHAR(4096): longer values are rejected"),
        ),
        "BINARY" | "VARBINARY" | "TINYBLOB" | "BLOB" | "MEDIUMBLOB" | "LONGBLOB" => {
            ("VARBYTES".into(), None)
        }
        _ => ("VARCHAR(255)".into(), Some("no TS type: stored as VARCHAR")),
    }
}

/// Proposes the TS DDL for every `--ts-table`, adding schema findings (TS-002, TS-005) as it goes.
pub fn proposed_ddl(
    schema: &Schema,
    ts_tables: &[String],
    findings: &mut Vec<Finding>,
    profile: &Profile,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut hits = Vec::new();
    for name in ts_tables {
        let Some(t) = schema.table(name) else {
            hits.push(Hit::new("TS-002").detail(format!(
                "{name}: not in the schema, so no TS table can be proposed"
            )));
            continue;
        };
        let Some(time) = time_column(t) else {
            hits.push(Hit::new("TS-002").detail(format!(
                "{}: no DATETIME or TIMESTAMP column to become the first column",
                t.name
            )));
            continue;
        };
        if !t
            .columns
            .first()
            .is_some_and(|c| c.name.eq_ignore_ascii_case(time))
        {
            hits.push(Hit::new("TS-002").detail(format!(
                "{}: the time column {time} is not the first column; the proposal moves it first",
                t.name
            )));
        }
        let tags = primary_tags(t);
        let mut cols = vec![format!("  {} TIMESTAMPTZ NOT NULL", time.to_lowercase())];
        for c in &t.columns {
            if c.name.eq_ignore_ascii_case(time)
                || tags.iter().any(|g| g.eq_ignore_ascii_case(&c.name))
                || c.auto_increment
            {
                continue;
            }
            let (ty, loss) = ts_type(&c.mysql_type);
            if let Some(l) = loss {
                hits.push(Hit::new("TS-005").detail(format!("{}.{}: {l}", t.name, c.name)));
            }
            cols.push(format!("  {} {ty}", c.name.to_lowercase()));
        }
        let tag_defs: Vec<String> = tags
            .iter()
            .filter_map(|g| t.column(g))
            .map(|c| {
                let (ty, _) = ts_type(&c.mysql_type);
                let ty = if ty.starts_with("VARCHAR") {
                    format!("VARCHAR({})", c.mysql_type.length.unwrap_or(64).min(128))
                } else {
                    ty
                };
                format!("  {} {ty} NOT NULL", c.name.to_lowercase())
            })
            .collect();
        let mut ddl = format!(
            "-- {}: a KaiwuDB time-series table (in a database made with CREATE TS DATABASE)\n",
            t.name
        );
        let dropped: Vec<&str> = t
            .columns
            .iter()
            .filter(|c| c.auto_increment)
            .map(|c| c.name.as_str())
            .collect();
        if !dropped.is_empty() {
            ddl.push_str(&format!("-- dropped: {} (auto-increment ids have no place in a TS table; rows are identified by time and tags)\n", dropped.join(", ")));
        }
        if tag_defs.is_empty() {
            ddl.push_str("-- no column identifies the device: add a primary tag (for example device_id) before loading\n");
            ddl.push_str(&format!("CREATE TABLE {} (\n{}\n) TAGS (\n  device_id INT4 NOT NULL\n) PRIMARY TAGS (device_id);", t.name.to_lowercase(), cols.join(",\n")));
        } else {
            ddl.push_str(&format!(
                "CREATE TABLE {} (\n{}\n) TAGS (\n{}\n) PRIMARY TAGS ({});",
                t.name.to_lowercase(),
                cols.join(",\n"),
                tag_defs.join(",\n"),
                tags.iter()
                    .map(|g| g.to_lowercase())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        hits.push(Hit::new("TS-DDL").detail(t.name.clone()));
        out.push(ddl);
    }
    let origin = StatementOrigin {
        file: String::new(),
        line: 0,
        column: 0,
    };
    let (mut f, _) = judge(&hits, "", &origin, profile);
    for x in &mut f {
        x.line = None;
        x.column = None;
    }
    findings.extend(f);
    out
}

/// True when a date/time literal is outside what a TS table stores (0000-01-01 … 2970-01-01) or invalid.
fn bad_ts_literal(s: &str) -> bool {
    let d = s.trim();
    let Some(year) = d.get(..4).and_then(|y| y.parse::<u32>().ok()) else {
        return false;
    };
    if d.len() < 10 || d.as_bytes()[4] != b'-' {
        return false;
    }
    let month = d.get(5..7).and_then(|m| m.parse::<u32>().ok()).unwrap_or(0);
    let day = d
        .get(8..10)
        .and_then(|m| m.parse::<u32>().ok())
        .unwrap_or(0);
    year >= 2970 || month == 0 || day == 0 || month > 12 || day > 31
}

/// Checks one statement against the TS-table rules, on tokens.
pub fn hits(sql: &str, ctx: &Context) -> Vec<Hit> {
    let mut out = Vec::new();
    if ctx.options.ts_tables.is_empty() {
        return out;
    }
    let ts = toks(sql);
    let w = |i: usize| {
        ts.get(i)
            .map(|t| sql[t.t.start..t.t.end].to_ascii_uppercase())
            .unwrap_or_default()
    };
    let name_at = |i: usize| -> Option<String> {
        let t = ts.get(i)?;
        if !matches!(t.t.kind, TokenKind::Word | TokenKind::QuotedIdent) {
            return None;
        }
        let mut n = unquote(&sql[t.t.start..t.t.end]);
        // db.table
        if ts
            .get(i + 1)
            .is_some_and(|d| &sql[d.t.start..d.t.end] == ".")
            && let Some(x) = ts.get(i + 2)
        {
            n = unquote(&sql[x.t.start..x.t.end]);
        }
        Some(n)
    };
    let is_ts = |n: &str| {
        ctx.options
            .ts_tables
            .iter()
            .any(|t| t.eq_ignore_ascii_case(n))
    };
    let first = w(0);
    let table_of = |start: usize| -> Option<(usize, String)> {
        (start..ts.len().min(start + 4))
            .find_map(|i| name_at(i).filter(|n| is_ts(n)).map(|n| (i, n)))
    };
    let time_col = |name: &str| {
        ctx.schema
            .and_then(|s| s.table(name))
            .and_then(time_column)
            .map(str::to_string)
    };
    match first.as_str() {
        "INSERT" | "REPLACE" => {
            let Some(into) = (0..ts.len()).find(|&i| w(i) == "INTO") else {
                return out;
            };
            let Some((ti, name)) = table_of(into + 1) else {
                return out;
            };
            out.push(Hit::new("TS-003").at(ts[ti].t.start).detail(name.clone()));
            // Column list without the time column.
            if let (Some(time), Some(open)) = (
                time_col(&name),
                ts.get(ti + 1).filter(|t| &sql[t.t.start..t.t.end] == "("),
            ) {
                let close = (ti + 1..ts.len())
                    .find(|&k| &sql[ts[k].t.start..ts[k].t.end] == ")")
                    .unwrap_or(ts.len());
                let listed = (ti + 2..close)
                    .any(|k| unquote(&sql[ts[k].t.start..ts[k].t.end]).eq_ignore_ascii_case(&time));
                if !listed {
                    out.push(
                        Hit::new("TS-008")
                            .at(open.t.start)
                            .detail(format!("{name}: no {time}")),
                    );
                }
            }
            let rows = (0..ts.len())
                .filter(|&k| &sql[ts[k].t.start..ts[k].t.end] == "(")
                .count();
            for t in &ts {
                if t.t.kind == TokenKind::String {
                    let lit = &sql[t.t.start + 1..t.t.end - 1];
                    if bad_ts_literal(lit) {
                        let batch = if rows > 2 {
                            " (the whole multi-row INSERT is rejected)"
                        } else {
                            ""
                        };
                        out.push(
                            Hit::new("TS-019")
                                .at(t.t.start)
                                .detail(format!("'{lit}'{batch}")),
                        );
                    }
                }
            }
        }
        "UPDATE" => {
            if let Some((ti, name)) = table_of(1) {
                out.push(Hit::new("TS-006").at(ts[ti].t.start).detail(name));
            }
        }
        "DELETE" => {
            let Some(from) = (0..ts.len()).find(|&i| w(i) == "FROM") else {
                return out;
            };
            let Some((ti, name)) = table_of(from + 1) else {
                return out;
            };
            let time = time_col(&name).unwrap_or_default();
            let tags: Vec<String> = ctx
                .schema
                .and_then(|s| s.table(&name))
                .map(primary_tags)
                .unwrap_or_default();
            let where_at = (ti..ts.len()).find(|&i| w(i) == "WHERE");
            let ok = where_at.is_some_and(|wi| {
                (wi + 1..ts.len())
                    .filter(|&k| matches!(ts[k].t.kind, TokenKind::Word | TokenKind::QuotedIdent))
                    .all(|k| {
                        let n = unquote(&sql[ts[k].t.start..ts[k].t.end]);
                        let u = n.to_ascii_uppercase();
                        matches!(
                            u.as_str(),
                            "AND" | "OR" | "IN" | "NOT" | "BETWEEN" | "NULL" | "IS"
                        ) || n.eq_ignore_ascii_case(&time)
                            || n.eq_ignore_ascii_case(&name)
                            || tags.iter().any(|g| g.eq_ignore_ascii_case(&n))
                    })
            });
            if !ok {
                out.push(Hit::new("TS-007").at(ts[ti].t.start).detail(name));
            }
        }
        "SELECT" | "WITH" | "(" => {
            let refs: Vec<(usize, String)> = (0..ts.len())
                .filter(|&i| matches!(w(i).as_str(), "FROM" | "JOIN"))
                .filter_map(|i| name_at(i + 1).filter(|n| is_ts(n)).map(|n| (i + 1, n)))
                .collect();
            let complex = (0..ts.len()).any(|i| matches!(w(i).as_str(), "JOIN" | "UNION"))
                || ts
                    .iter()
                    .filter(|t| sql[t.t.start..t.t.end].eq_ignore_ascii_case("SELECT"))
                    .count()
                    > 1;
            if let Some((i, n)) = refs.first()
                && complex
            {
                out.push(Hit::new("TS-014").at(ts[*i].t.start).detail(n.clone()));
            }
        }
        "CREATE" => {
            if let Some((ti, name)) = (1..3)
                .find(|&i| w(i) == "TABLE")
                .and_then(|i| table_of(i + 1))
            {
                out.push(Hit::new("TS-001").at(ts[ti].t.start).detail(name));
            }
        }
        _ => {}
    }
    out
}
